//! Building one iteration's view: cluster, profile and reservation table.
//!
//! Order matters (see `reservation::view`): running jobs first, so every
//! claim is placed around them; then admin reservations re-apply their
//! claims; then the standing instances re-apply theirs and top up, with last
//! iteration's job reservations provisionally in place so a new instance
//! cannot take what a job was promised (seed 7.1.5, DEPTH); then those
//! provisional placements are removed and the priority pass makes new ones.

use super::state::{EngineState, NamedClaim};
use crate::config::{Config, NodeAccessPolicy, NodeAllocationPolicy};
use crate::model::{Cluster, Job, JobState, NodeIdx, Resources, Time};
use crate::profile::{running_window, JobIdx, Occupant, Profile, ResIdx, Unreserved};
use crate::reservation::place::{Candidate as PlaceCandidate, ChooseCtx, NodeChooser};
use crate::reservation::{acl, NodeClaim, Reservation, StandingSet};
use std::sync::Arc;

/// The iteration's world.
pub struct View {
    /// Nodes with NODECFG applied (shared: the engine reuses it while the
    /// nodes and their configuration stay the same).
    pub cluster: Arc<Cluster>,
    /// Availability over time.
    pub profile: Profile,
    /// Reservation table; index = profile `ResIdx`.
    pub table: Vec<Reservation>,
    /// Standing reservations still short of tasks.
    pub partial: Vec<String>,
    /// Window each job holds (running) or would hold from now (idle).
    pub windows: Vec<(Time, Time)>,
}

/// Walltime the scheduler plans with.
pub fn walltime(cfg: &Config, job: &Job) -> i64 {
    job.walltime
        .unwrap_or(cfg.params.system_default_job_walltime.0)
        .max(1)
}

/// True when a job placed on `node` takes the whole node (SINGLEJOB,
/// SINGLETASK), by the node's policy or the job's own (QOS DEDICATED).
pub fn dedicated(node_policy: NodeAccessPolicy, job_policy: Option<NodeAccessPolicy>) -> bool {
    let is = |p: NodeAccessPolicy| {
        matches!(
            p,
            NodeAccessPolicy::SingleJob | NodeAccessPolicy::SingleTask
        )
    };
    is(node_policy) || job_policy.is_some_and(is)
}

/// Orders reservation candidate nodes by NODEALLOCATIONPOLICY as it applies
/// to future placements (CPULOAD and LASTAVAILABLE fall back to MINRESOURCE:
/// a reservation has no load and ends nowhere in particular).
pub struct PolicyChooser(pub NodeAllocationPolicy);

impl NodeChooser for PolicyChooser {
    fn order(&self, ctx: &ChooseCtx, c: &mut [PlaceCandidate]) {
        let nodes = &ctx.cluster.nodes;
        match self.0 {
            NodeAllocationPolicy::FirstAvailable
            | NodeAllocationPolicy::Contiguous
            | NodeAllocationPolicy::Local => c.sort_by_key(|x| x.node),
            NodeAllocationPolicy::Fastest | NodeAllocationPolicy::MaxBalance => {
                c.sort_by(|a, b| {
                    let (na, nb) = (&nodes[a.node as usize], &nodes[b.node as usize]);
                    nb.speed.total_cmp(&na.speed).then(a.node.cmp(&b.node))
                })
            }
            NodeAllocationPolicy::Priority => c.sort_by(|a, b| {
                let (na, nb) = (&nodes[a.node as usize], &nodes[b.node as usize]);
                nb.priority.cmp(&na.priority).then(a.node.cmp(&b.node))
            }),
            _ => c.sort_by_key(|x| {
                let n = &nodes[x.node as usize];
                (
                    n.configured.procs,
                    n.configured.mem,
                    n.configured.disk,
                    n.configured.swap,
                    x.node,
                )
            }),
        }
    }
}

/// Adds a job's tasks on a node; with dedicated access the job takes
/// everything it can see on the node for its window.
pub fn place_job(
    profile: &mut Profile,
    node: NodeIdx,
    mut o: Occupant,
    dedicated_node: bool,
    adm: &dyn crate::profile::Admits,
) -> Result<(), crate::profile::ProfileError> {
    if dedicated_node {
        o.task = profile.free(node, o.start, o.end, adm).max_each(&o.task);
        o.tasks = 1;
    }
    profile.add_job(node, o, adm)
}

/// Builds the view for `jobs` (already in canonical order; `JobIdx` = position).
pub fn build(
    cfg: &Config,
    nodes: &[crate::model::Node],
    jobs: &[Job],
    now: Time,
    state: &mut EngineState,
) -> View {
    build_with(cfg, Arc::new(Cluster::build(nodes, cfg)), jobs, now, state)
}

/// [`build`] over a cluster already built from the nodes.
pub fn build_with(
    cfg: &Config,
    cluster: Arc<Cluster>,
    jobs: &[Job],
    now: Time,
    state: &mut EngineState,
) -> View {
    let profile = Profile::from_cluster(&cluster, now);
    let mut v = View {
        cluster,
        profile,
        table: Vec::new(),
        partial: Vec::new(),
        windows: Vec::with_capacity(jobs.len()),
    };
    // 1. Running and suspended jobs hold their nodes until start + walltime.
    for (j, job) in jobs.iter().enumerate() {
        let w = match job.state {
            s if s.is_active() => {
                running_window(job.start_time.unwrap_or(now), walltime(cfg, job), now)
            }
            _ => (now, now.saturating_add(walltime(cfg, job))),
        };
        v.windows.push(w);
        if !job.state.is_active() {
            continue;
        }
        // A suspended job keeps its memory but not its processors.
        let task = if job.state == JobState::Suspended {
            Resources {
                procs: 0,
                ..job.task
            }
        } else {
            job.task
        };
        for a in &job.allocation {
            let Some(node) = v.cluster.index(&a.node) else {
                continue;
            };
            let n = &v.cluster.nodes[node as usize];
            let (task, tasks) = if dedicated(n.access, None) && job.state == JobState::Running {
                (n.configured, 1)
            } else {
                (task, a.tasks)
            };
            v.profile.add_running_job(
                node,
                Occupant {
                    job: j as JobIdx,
                    start: w.0,
                    end: w.1,
                    task,
                    tasks,
                },
                &Unreserved,
            );
        }
    }
    // 2. Admin reservations.
    state.admin.expire(now);
    let admits = |r: &Reservation, j: JobIdx| -> bool {
        jobs.get(j as usize).is_some_and(|job| {
            acl::access(r, job, v.windows[j as usize].0, v.windows[j as usize].1).is_granted()
        })
    };
    let mut table: Vec<Reservation> = Vec::new();
    for r in state.admin.reservations(&v.cluster) {
        let idx = table.len() as ResIdx;
        crate::reservation::place::reapply(&r, idx, &mut v.profile, &|j| admits(&r, j));
        table.push(r);
    }
    // 3. Last iteration's job reservations, provisionally: standing
    // reservations placed next keep off their nodes. Without standing
    // reservations they would be taken out again untouched.
    let provisional_base = jobs.len() as JobIdx;
    let mut provisional: Vec<(NodeIdx, JobIdx)> = Vec::new();
    let last_reservations = if cfg.standing.is_empty() {
        &[][..]
    } else {
        &state.job_reservations[..]
    };
    for (k, jr) in last_reservations.iter().enumerate() {
        let pj = provisional_base + k as JobIdx;
        for c in &jr.claims {
            let Some(node) = v.cluster.index(&c.node) else {
                continue;
            };
            let o = Occupant {
                job: pj,
                start: jr.start,
                end: jr.end,
                task: c.resources,
                tasks: 1,
            };
            if v.profile.add_job(node, o, &Unreserved).is_ok() {
                provisional.push((node, pj));
            }
        }
    }
    // 4. Standing reservations: roll, re-apply the claims they hold, top up.
    let mut standing = StandingSet::new();
    standing.roll(&cfg.standing, now);
    standing.set_claims(|id| {
        state
            .standing_claims
            .get(id)
            .map(|cs| {
                cs.iter()
                    .filter_map(|c| {
                        v.cluster.index(&c.node).map(|node| NodeClaim {
                            node,
                            tasks: c.tasks,
                            resources: c.resources,
                        })
                    })
                    .collect()
            })
            .unwrap_or_default()
    });
    let first = table.len() as ResIdx;
    let chooser = PolicyChooser(cfg.params.node_allocation_policy);
    let outcomes = standing.place(first, &v.cluster, &mut v.profile, &chooser, &admits);
    state.standing_claims.clear();
    for (r, o) in standing.instances().iter().zip(&outcomes) {
        if o.is_partial() {
            v.partial.push(r.id.clone());
        }
        state.standing_claims.insert(
            r.id.clone(),
            r.claims
                .iter()
                .map(|c| NamedClaim {
                    node: v.cluster.nodes[c.node as usize].name.clone(),
                    tasks: c.tasks,
                    resources: c.resources,
                })
                .collect(),
        );
    }
    table.extend(standing.instances().iter().cloned());
    for (node, pj) in provisional {
        v.profile.remove_job(node, pj);
    }
    v.table = table;
    v
}
