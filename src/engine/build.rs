//! Building one iteration's view: cluster, profile and reservation table.
//!
//! Order matters (see `reservation::view`): running jobs first, so every
//! claim is placed around them; then admin reservations re-apply their
//! claims; then the standing instances re-apply theirs and top up. The
//! non-floating ones take their hosts "no matter what" (seed 7.1.5.2.5);
//! the floating ones are placed with last iteration's job reservations
//! provisionally in place, so a new instance cannot take what a job was
//! promised (seed 7.1.5, DEPTH). Then those provisional placements are
//! removed and the priority pass makes new ones.
//!
//! The running jobs' part is carried from one iteration to the next
//! ([`RunningProfile`]) and brought up to date from what changed.

use super::avail::{NowIndex, Scope};
use super::job_id_cmp;
use super::state::{EngineState, NamedClaim, Preemption};
use crate::config::{Config, NodeAccessPolicy, NodeAllocationPolicy};
use crate::model::{Cluster, Job, JobState, NodeIdx, Resources, Time};
use crate::profile::{running_window, JobIdx, Occupant, Profile, ResIdx, Unreserved};
use crate::reservation::place::{Candidate as PlaceCandidate, ChooseCtx, NodeChooser};
use crate::reservation::{acl, NodeClaim, Reservation, StandingSet};
use std::collections::BTreeMap;
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
    /// The profile's now-index over all capacity when it was carried with
    /// the running-job profile (no reservations: the profile is that one).
    /// Shared, not copied: the placer copies it only once a start now
    /// changes it.
    pub(crate) now_ix: Option<Arc<super::avail::NowIndex>>,
    /// The profile's now-index over unclaimed capacity, with `now_ix`,
    /// when the profile has reservations and was built on the carried
    /// running-job profile.
    pub(crate) open_ix: Option<Arc<super::avail::NowIndex>>,
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
    build_with(
        cfg,
        Arc::new(Cluster::build(nodes, cfg)),
        jobs,
        now,
        state,
        &mut None,
    )
}

/// [`build`] over a cluster already built from the nodes; `running` is
/// the profile of running jobs carried from the last iteration (see
/// [`RunningProfile`]), brought up to date here, or `None`.
pub fn build_with(
    cfg: &Config,
    cluster: Arc<Cluster>,
    jobs: &[Job],
    now: Time,
    state: &mut EngineState,
    running: &mut Option<RunningProfile>,
) -> View {
    let windows = job_windows(cfg, jobs, now, &state.preempted);
    // 1. Running and suspended jobs hold their nodes until start + walltime.
    let profile = running_jobs(cfg, &cluster, jobs, &windows, now, running);
    let mut v = View {
        cluster,
        profile,
        table: Vec::new(),
        partial: Vec::new(),
        windows,
        now_ix: None,
        open_ix: None,
    };
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
    // 3. Standing reservations: roll, re-apply the claims they hold, top up.
    // Last iteration's job reservations are in place provisionally while
    // the floating instances are placed, so those keep off their nodes;
    // non-floating instances take their hosts before them. Without
    // standing reservations they would be taken out again untouched.
    let carried = if cfg.standing.is_empty() {
        Vec::new()
    } else {
        carried_reservations(state, &v.cluster, jobs.len() as JobIdx)
    };
    let (standing, provisional) = standing_instances(
        cfg,
        state,
        now,
        (&v.cluster, &mut v.profile),
        table.len() as ResIdx,
        &admits,
        &carried,
    );
    for (r, partial) in standing {
        if partial {
            v.partial.push(r.id.clone());
        }
        table.push(r);
    }
    for (node, pj) in provisional {
        v.profile.remove_job(node, pj);
    }
    // Without reservations the profile is the running jobs' one. With
    // them it is that one where claims were made: its indexes are the
    // running jobs' one (all capacity is unclaimed there) brought up to
    // date on the lines the claims changed.
    if let Some(r) = running.as_mut() {
        let base = r.now_index(now);
        if table.is_empty() {
            v.now_ix = Some(base);
        } else {
            let changed = v.profile.lines_apart(&r.profile);
            let mut open = base.of_unclaimed();
            open.advance(&v.cluster, &v.profile, now, &changed);
            let mut all = (*base).clone();
            all.advance(&v.cluster, &v.profile, now, &changed);
            v.now_ix = Some(Arc::new(all));
            v.open_ix = Some(Arc::new(open));
        }
    }
    v.table = table;
    v
}

/// The window each job holds (running and suspended: from its start) or
/// would hold from now (idle).
fn job_windows(
    cfg: &Config,
    jobs: &[Job],
    now: Time,
    preempted: &BTreeMap<String, Preemption>,
) -> Vec<(Time, Time)> {
    jobs.iter()
        .map(|job| match job.state {
            s if s.is_active() => active_window(cfg, job, now, preempted),
            _ => (now, now.saturating_add(walltime(cfg, job))),
        })
        .collect()
}

/// The profile of running and suspended jobs: `running` brought up to
/// date from what changed, or built afresh, and kept for the next
/// iteration only while exact.
fn running_jobs(
    cfg: &Config,
    cluster: &Arc<Cluster>,
    jobs: &[Job],
    windows: &[(Time, Time)],
    now: Time,
    running: &mut Option<RunningProfile>,
) -> Profile {
    let default_wall = cfg.params.system_default_job_walltime.0;
    // Taken out while it is changed: a panic half-way leaves none behind.
    let carried = match running.take() {
        Some(mut r) => {
            let ok = r.update(cluster, default_wall, jobs, windows, now);
            if ok {
                *running = Some(r);
            }
            ok
        }
        None => false,
    };
    if !carried {
        *running = Some(RunningProfile::build(
            cluster,
            default_wall,
            jobs,
            windows,
            now,
        ));
    }
    let r = running.as_ref().expect("just built");
    let profile = r.profile.clone();
    if !r.exact {
        *running = None;
    }
    profile
}

/// Last iteration's job reservations as occupants of their nodes,
/// numbered from `base` (past every job).
fn carried_reservations(
    state: &EngineState,
    cluster: &Cluster,
    base: JobIdx,
) -> Vec<(NodeIdx, Occupant)> {
    let mut carried = Vec::new();
    for (k, jr) in state.job_reservations.iter().enumerate() {
        let pj = base + k as JobIdx;
        for c in &jr.claims {
            let Some(node) = cluster.index(&c.node) else {
                continue;
            };
            carried.push((
                node,
                Occupant {
                    job: pj,
                    start: jr.start,
                    end: jr.end,
                    task: c.resources_on(cluster),
                    tasks: 1,
                },
            ));
        }
    }
    carried
}

/// The standing reservations' instances at `now`, numbered from `first`:
/// rolled, with the claims they held re-applied and topped up in
/// `profile`; each with whether it is still short of tasks. The claims
/// are kept in `state` for the next iteration. The `carried` job
/// reservations are added to `profile` before the floating instances are
/// placed; the ones that fit are returned, to take out again.
#[allow(clippy::type_complexity)]
fn standing_instances(
    cfg: &Config,
    state: &mut EngineState,
    now: Time,
    (cluster, profile): (&Cluster, &mut Profile),
    first: ResIdx,
    admits: &dyn Fn(&Reservation, JobIdx) -> bool,
    carried: &[(NodeIdx, Occupant)],
) -> (Vec<(Reservation, bool)>, Vec<(NodeIdx, JobIdx)>) {
    let mut standing = StandingSet::new();
    standing.roll(&cfg.standing, &cfg.zone, now);
    standing.set_claims(cluster, |id| {
        state
            .standing_claims
            .get(id)
            .map(|cs| {
                cs.iter()
                    .filter_map(|c| {
                        cluster.index(&c.node).map(|node| NodeClaim {
                            node,
                            tasks: c.tasks,
                            resources: c.resources_on(cluster),
                        })
                    })
                    .collect()
            })
            .unwrap_or_default()
    });
    // The nodes of the instances that ended since the last iteration.
    let just_ended: Vec<NodeIdx> = state
        .standing_claims
        .iter()
        .filter(|(id, _)| {
            crate::reservation::standing::instance_end(&cfg.standing, id, &cfg.zone)
                .is_some_and(|end| end <= now)
        })
        .flat_map(|(_, cs)| cs.iter().filter_map(|c| cluster.index(&c.node)))
        .collect();
    profile.set_just_ended(just_ended);
    let chooser = PolicyChooser(cfg.params.node_allocation_policy);
    let mut carried = CarriedJobs::new(carried);
    let outcomes = standing.place(first, cluster, profile, &chooser, admits, &mut carried);
    let provisional = carried.provisional;
    state.standing_claims.clear();
    for r in standing.instances() {
        state.standing_claims.insert(
            r.id.clone(),
            r.claims
                .iter()
                .map(|c| NamedClaim {
                    node: cluster.nodes[c.node as usize].name.clone(),
                    tasks: c.tasks,
                    resources: c.resources,
                    gres: cluster.gres_by_name(&c.resources.gres),
                })
                .collect(),
        );
    }
    let instances = standing
        .instances()
        .iter()
        .cloned()
        .zip(outcomes.iter().map(|o| o.is_partial()))
        .collect();
    (instances, provisional)
}

/// Last iteration's job reservations, added to the profile before the
/// floating standing instances are placed; those that fit are
/// `provisional`, to take out again.
struct CarriedJobs<'a> {
    carried: &'a [(NodeIdx, Occupant)],
    /// (node, start, end) of each, sorted.
    windows: Vec<(NodeIdx, Time, Time)>,
    provisional: Vec<(NodeIdx, JobIdx)>,
}

impl<'a> CarriedJobs<'a> {
    fn new(carried: &'a [(NodeIdx, Occupant)]) -> CarriedJobs<'a> {
        let mut windows: Vec<_> = carried.iter().map(|(n, o)| (*n, o.start, o.end)).collect();
        windows.sort_unstable();
        CarriedJobs {
            carried,
            windows,
            provisional: Vec::new(),
        }
    }
}

impl crate::reservation::standing::BeforeFloating for CarriedJobs<'_> {
    fn add(&mut self, p: &mut Profile) {
        for (node, o) in self.carried {
            if p.add_job(*node, o.clone(), &Unreserved).is_ok() {
                self.provisional.push((*node, o.job));
            }
        }
    }

    fn meets(&self, r: &Reservation) -> bool {
        r.claims.iter().any(|c| {
            let from = self.windows.partition_point(|w| w.0 < c.node);
            self.windows[from..]
                .iter()
                .take_while(|w| w.0 == c.node)
                .any(|&(_, s, e)| s < r.end && r.start < e)
        })
    }
}

/// Adds a running or suspended job's placements; false when some did not
/// fit whole (an oversubscribed node, where what each job holds depends on
/// the order they are added in).
fn place_running(profile: &mut Profile, cluster: &Cluster, p: &Placed) -> bool {
    let held = if p.state == JobState::Suspended {
        Resources { procs: 0, ..p.task }
    } else {
        p.task
    };
    let mut whole = true;
    for &(node, tasks) in p.nodes() {
        let n = &cluster.nodes[node as usize];
        let (task, tasks) = if dedicated(n.access, None) && p.state == JobState::Running {
            (n.configured, 1)
        } else if !p.node_gres.is_zero() {
            // What the node holds for it in all: its tasks' and the
            // generic resources it asked per node.
            let all = held.checked_mul(tasks).unwrap_or(Resources::MAX);
            let extra = Resources {
                gres: p.node_gres,
                ..Resources::ZERO
            };
            (all.saturating_add(&extra), 1)
        } else {
            (held, tasks)
        };
        let o = Occupant {
            job: p.idx,
            start: p.window.0,
            end: p.window.1,
            task,
            tasks,
        };
        whole &= profile.add_running_job(node, o, &Unreserved).is_zero();
    }
    whole
}

/// Places active job `j` (index in the iteration's jobs) on its nodes as
/// `state` over `window`, as step 1 places running and suspended jobs:
/// what a preemption or a resumption changes within an iteration. False
/// when some did not fit whole.
pub(super) fn place_active(
    profile: &mut Profile,
    cluster: &Cluster,
    j: JobIdx,
    job: &Job,
    state: JobState,
    window: (Time, Time),
) -> bool {
    let mut p = Placed::of(j, job, window, cluster);
    p.state = state;
    place_running(profile, cluster, &p)
}

/// The window active job `job` holds its nodes for at `now` (step 1's).
pub(super) fn active_window(
    cfg: &Config,
    job: &Job,
    now: Time,
    preempted: &BTreeMap<String, Preemption>,
) -> (Time, Time) {
    let start = job.start_time.unwrap_or(now);
    let wall = walltime(cfg, job);
    // Time stood suspended does not count against the walltime (Slurm
    // and Torque alike): a job this scheduler suspended ends its
    // walltime's remainder after its resumption, or after now while it
    // is still suspended.
    let stopped = preempted.get(&job.id).and_then(|rec| {
        let from = if rec.suspended {
            Some(now)
        } else {
            rec.resumed_at
        };
        from.map(|f| (f, rec.ran))
    });
    match stopped {
        Some((from, ran)) => {
            let (_, end) = running_window(from, (wall - ran).max(0), now);
            (start, end.max(start))
        }
        None => running_window(start, wall, now),
    }
}

/// An allocation's node the cluster does not have (placed nowhere).
const NO_NODE: NodeIdx = NodeIdx::MAX;

/// A running or suspended job's placements and what they were made from.
struct Placed {
    /// The job's id: placements are kept in job order and met with the
    /// next iteration's jobs by a merge on it.
    id: String,
    /// The job's index in the iteration the profile was last brought up
    /// to date in (its number in the profile).
    idx: JobIdx,
    state: JobState,
    window: (Time, Time),
    task: Resources,
    /// Generic resources held on each node beyond the tasks'.
    node_gres: crate::model::GresCounts,
    /// (node, tasks) of each entry of the job's allocation, by node index
    /// ([`NO_NODE`] where the cluster has no node of that name).
    allocation: Vec<(NodeIdx, u32)>,
}

impl Placed {
    fn of(idx: JobIdx, job: &Job, window: (Time, Time), cluster: &Cluster) -> Placed {
        Placed {
            id: job.id.clone(),
            idx,
            state: job.state,
            window,
            task: job.task,
            node_gres: job.node_gres,
            allocation: job
                .allocation
                .iter()
                .map(|a| (cluster.index(&a.node).unwrap_or(NO_NODE), a.tasks))
                .collect(),
        }
    }

    /// The placements on nodes of the cluster.
    fn nodes(&self) -> impl Iterator<Item = &(NodeIdx, u32)> {
        self.allocation.iter().filter(|a| a.0 != NO_NODE)
    }

    /// True when `job` (of the same id) would be placed alike over
    /// `window` on `cluster` (the one this was made on).
    fn same(&self, job: &Job, window: (Time, Time), cluster: &Cluster) -> bool {
        self.state == job.state
            && self.window == window
            && self.task == job.task
            && self.node_gres == job.node_gres
            && self.allocation.len() == job.allocation.len()
            && self
                .allocation
                .iter()
                .zip(&job.allocation)
                .all(|(&(n, t), a)| {
                    t == a.tasks
                        && match cluster.nodes.get(n as usize) {
                            Some(node) => node.name == a.node,
                            None => cluster.index(&a.node).is_none(),
                        }
                })
    }
}

/// The profile of running and suspended jobs (step 1 of [`build_with`]),
/// carried from one iteration to the next by the engine and brought up to
/// date from the differences: jobs that ended or changed are taken out,
/// jobs that started or changed are added, the others are renumbered to
/// their place in the new iteration's jobs and the origin moves to `now`.
/// Between two polls a few jobs start or end, and this replaces adding
/// every running job to an empty profile each time.
///
/// The result is the profile a build from scratch gives (tested in
/// `engine::tests`): each segment's content at a time depends only on
/// the placements covering it, segments are coalesced, and the occupants
/// of a node are kept in job order. Placements that do not fit whole (an
/// oversubscribed node) depend on the order they were added in: then
/// nothing is carried.
pub struct RunningProfile {
    cluster: Arc<Cluster>,
    default_wall: crate::model::Secs,
    profile: Profile,
    /// In job order (by id).
    placed: Vec<Placed>,
    /// Every placement fit whole and no id was seen twice: it may be
    /// carried to the next iteration.
    exact: bool,
    /// Iterations it was brought up to date for since it was built.
    carried: u32,
    /// The profile's now-index over all capacity, once asked for; brought
    /// up to date with it (shared with the iteration that asked for it,
    /// which has ended by the time it is brought up to date again).
    ix: Option<Arc<NowIndex>>,
}

impl RunningProfile {
    /// Iterations it was brought up to date for since it was last built.
    #[cfg(test)]
    pub fn carried(&self) -> u32 {
        self.carried
    }

    /// The profile's now-index at `now` (its origin) over all capacity.
    fn now_index(&mut self, now: Time) -> Arc<NowIndex> {
        let ix = self.ix.get_or_insert_with(|| {
            Arc::new(NowIndex::new(&self.cluster, &self.profile, now, Scope::All))
        });
        Arc::clone(ix)
    }

    /// The running jobs' profile built from scratch.
    fn build(
        cluster: &Arc<Cluster>,
        default_wall: crate::model::Secs,
        jobs: &[Job],
        windows: &[(Time, Time)],
        now: Time,
    ) -> RunningProfile {
        let mut profile = Profile::from_cluster(cluster, now);
        let mut placed: Vec<Placed> = Vec::new();
        let mut exact = true;
        for (j, job) in jobs.iter().enumerate() {
            if !job.state.is_active() {
                continue;
            }
            let p = Placed::of(j as JobIdx, job, windows[j], cluster);
            exact &= place_running(&mut profile, cluster, &p);
            exact &= placed.last().is_none_or(|q| q.id != p.id);
            placed.push(p);
        }
        RunningProfile {
            cluster: Arc::clone(cluster),
            default_wall,
            profile,
            placed,
            exact,
            carried: 0,
            ix: None,
        }
    }

    /// Brings the profile up to date for `jobs` at `now`; false when it
    /// cannot be (other nodes or configuration, time going back, ids seen
    /// twice, or a placement that does not fit whole), and then it is to
    /// be built anew.
    fn update(
        &mut self,
        cluster: &Arc<Cluster>,
        default_wall: crate::model::Secs,
        jobs: &[Job],
        windows: &[(Time, Time)],
        now: Time,
    ) -> bool {
        if !Arc::ptr_eq(&self.cluster, cluster)
            || self.default_wall != default_wall
            || now < self.profile.origin()
        {
            return false;
        }
        let Some(m) = Merge::of(&mut self.placed, jobs, windows, cluster) else {
            return false;
        };
        // Nodes whose lines change from `now` on.
        let mut touched = self.profile.advance(now);
        // Out: jobs gone or changed (by their old numbers); the others
        // take their new numbers.
        let profile = &mut self.profile;
        for &g in &m.gone {
            let p = &self.placed[g];
            for &(node, _) in p.nodes() {
                profile.remove_job(node, p.idx);
                touched.push(node);
            }
        }
        profile.renumber_jobs(&m.renumber);
        // In: jobs started or changed, then each node's occupants in job
        // order as a build in job order leaves them.
        let mut placed_on: Vec<crate::model::NodeIdx> = Vec::new();
        for p in &m.added {
            if !place_running(profile, cluster, p) {
                return false;
            }
            placed_on.extend(p.nodes().map(|a| a.0));
        }
        m.apply(&mut self.placed);
        placed_on.sort_unstable();
        placed_on.dedup();
        for &node in &placed_on {
            profile.sort_occupants(node);
        }
        if let Some(ix) = &mut self.ix {
            touched.extend(placed_on);
            touched.sort_unstable();
            touched.dedup();
            Arc::make_mut(ix).advance(cluster, profile, now, &touched);
        }
        self.carried += 1;
        true
    }
}

/// The last iteration's placements met with this iteration's running and
/// suspended jobs, both in job order.
struct Merge {
    /// Placements of the jobs started or changed.
    added: Vec<Placed>,
    /// Positions of the placements to take out (jobs gone or changed).
    gone: Vec<usize>,
    /// (old number, new number) of the jobs that stay, in both orders.
    renumber: Vec<(JobIdx, JobIdx)>,
}

impl Merge {
    /// The merge of `placed` with `jobs`, giving the placements of the
    /// jobs that stay their new numbers; `None` when an id is seen twice
    /// or the jobs that stay changed order.
    fn of(
        placed: &mut [Placed],
        jobs: &[Job],
        windows: &[(Time, Time)],
        cluster: &Cluster,
    ) -> Option<Merge> {
        let mut m = Merge {
            added: Vec::new(),
            gone: Vec::new(),
            renumber: Vec::new(),
        };
        let mut k = 0;
        let mut last: Option<&str> = None;
        for (j, job) in jobs.iter().enumerate() {
            if !job.state.is_active() {
                continue;
            }
            if last == Some(job.id.as_str()) {
                return None;
            }
            last = Some(&job.id);
            while k < placed.len() && job_id_cmp(&placed[k].id, &job.id).is_lt() {
                m.gone.push(k);
                k += 1;
            }
            let (idx, window) = (j as JobIdx, windows[j]);
            match placed.get_mut(k).filter(|p| p.id == job.id) {
                Some(p) if p.same(job, window, cluster) => {
                    m.renumber.push((p.idx, idx));
                    p.idx = idx;
                    k += 1;
                }
                was => {
                    if was.is_some() {
                        m.gone.push(k);
                        k += 1;
                    }
                    m.added.push(Placed::of(idx, job, window, cluster));
                }
            }
        }
        m.gone.extend(k..placed.len());
        // Both iterations list jobs by id: the jobs that stay keep their
        // relative order (else the renumbering cannot be carried out).
        m.renumber.windows(2).all(|w| w[0].0 < w[1].0).then_some(m)
    }

    /// Takes the placements gone out of `placed` and puts those added in,
    /// in job order (nothing moves when no job started or ended).
    fn apply(self, placed: &mut Vec<Placed>) {
        if self.gone.is_empty() && self.added.is_empty() {
            return;
        }
        let mut gone = self.gone.into_iter().peekable();
        let mut k = 0;
        placed.retain(|_| {
            k += 1;
            gone.next_if_eq(&(k - 1)).is_none()
        });
        placed.extend(self.added);
        placed.sort_by_key(|p| p.idx);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Node, NodeTasks};
    use proptest::prelude::*;

    fn cfg(text: &str) -> Config {
        Config::parse(text, "test.cfg").config
    }

    /// `n` nodes `n1`... of 4 processors and 1,000 MB.
    fn four_proc_nodes(n: usize, c: &Config) -> Arc<Cluster> {
        let nodes: Vec<Node> = (1..=n)
            .map(|i| Node {
                name: format!("n{i}"),
                configured: Resources::procs_mem(4, 1000),
                ..Node::default()
            })
            .collect();
        Arc::new(Cluster::build(&nodes, c))
    }

    /// The carried job reservations, added before the first floating
    /// instance whether or not any instance could see them (as they were
    /// before [`CarriedJobs::meets`]).
    struct Always<'a>(CarriedJobs<'a>);

    impl crate::reservation::standing::BeforeFloating for Always<'_> {
        fn add(&mut self, p: &mut Profile) {
            self.0.add(p)
        }
        fn meets(&self, _: &Reservation) -> bool {
            true
        }
    }

    proptest! {
        /// Job reservations carried from the last iteration are added only
        /// where a standing instance could see them, and the instances and
        /// the profile come out as when they are always added.
        #[test]
        fn carried_job_reservations_are_added_only_where_an_instance_could_see_them(
            busy in proptest::collection::vec(0u32..4, 0..3),
            jobs in proptest::collection::vec((0u32..4, 0i64..40, 1i64..14, 1u32..5), 0..6),
            later in 1i64..30,
        ) {
            use crate::reservation::place::PlaceOutcome;
            use crate::reservation::standing::BeforeFloating;
            let c = cfg("SRCFG[day] TASKCOUNT=3 PERIOD=DAY DEPTH=2 STARTTIME=08:00:00 ENDTIME=17:00:00\n");
            let cluster = four_proc_nodes(4, &c);
            let (hour, t0) = (3600, 966_600_000); // Fri Aug 18 2000 12:00 UTC
            let one = Resources::procs_mem(1, 0);
            // First iteration: the instances take what the busy nodes leave.
            let mut set = StandingSet::new();
            set.roll(&c.standing, &c.zone, t0);
            let mut p0 = Profile::from_cluster(&cluster, t0);
            for (k, &n) in busy.iter().enumerate() {
                let o = Occupant { job: k as JobIdx, start: t0, end: t0 + 30 * hour, task: one, tasks: 4 };
                let _ = p0.add_job(n, o, &Unreserved);
            }
            let no_jobs = |_: &Reservation, _: JobIdx| false;
            let chooser = PolicyChooser(c.params.node_allocation_policy);
            set.place(0, &cluster, &mut p0, &chooser, &no_jobs, &mut ());
            // The next: the busy nodes are free, last iteration's job
            // reservations are carried.
            let now = t0 + later * hour;
            let carried: Vec<(NodeIdx, Occupant)> = jobs
                .iter()
                .enumerate()
                .map(|(k, &(n, from, hours, procs))| {
                    let start = now + from * hour;
                    (n, Occupant { job: 10 + k as JobIdx, start, end: start + hours * hour, task: one, tasks: procs })
                })
                .collect();
            let place = |b: &mut dyn BeforeFloating| -> (StandingSet, Profile, Vec<PlaceOutcome>) {
                let mut set = set.clone();
                set.roll(&c.standing, &c.zone, now);
                let mut p = Profile::from_cluster(&cluster, now);
                let out = set.place(0, &cluster, &mut p, &chooser, &no_jobs, b);
                (set, p, out)
            };
            let mut lazy = CarriedJobs::new(&carried);
            let (set1, mut p1, out1) = place(&mut lazy);
            let mut always = Always(CarriedJobs::new(&carried));
            let (set2, mut p2, out2) = place(&mut always);
            // Added exactly when some instance is short or meets one.
            let seen = set2.instances().iter().any(|r| {
                r.is_partial(&cluster) || lazy.meets(r)
            }) || out2.iter().any(|o| !o.added.is_empty());
            prop_assert_eq!(!lazy.provisional.is_empty(), seen && !always.0.provisional.is_empty());
            for (n, j) in lazy.provisional {
                p1.remove_job(n, j);
            }
            for (n, j) in always.0.provisional {
                p2.remove_job(n, j);
            }
            prop_assert_eq!(out1, out2);
            prop_assert_eq!(set1, set2);
            prop_assert!(p1 == p2);
        }
    }

    /// One change to the workload between two iterations.
    #[derive(Clone, Debug)]
    enum Op {
        /// Time passes.
        Wait(i64),
        /// A job is submitted (or resubmitted, idle again).
        Submit(u32, i64),
        /// An idle job starts on a node (fitting or not), or a running
        /// one gets a second node.
        Start(u32, usize, u32),
        /// A job ends (leaves the snapshot).
        End(u32),
        /// A running job is suspended, a suspended one resumes.
        Suspend(u32),
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            (0i64..900).prop_map(Op::Wait),
            (0u32..24, 30i64..1500).prop_map(|(j, w)| Op::Submit(j, w)),
            (0u32..24, 0usize..4, 1u32..4).prop_map(|(j, n, t)| Op::Start(j, n, t)),
            (0u32..24).prop_map(Op::End),
            (0u32..24).prop_map(Op::Suspend),
        ]
    }

    /// Ids whose order is not their number's (some sort as text).
    fn id(j: u32) -> String {
        if j % 5 == 0 {
            format!("job{j}")
        } else {
            format!("{}", (j * 7919) % 1000)
        }
    }

    fn apply(jobs: &mut Vec<Job>, now: &mut Time, op: &Op) {
        let find = |jobs: &mut Vec<Job>, j: u32| jobs.iter().position(|x| x.id == id(j));
        match *op {
            Op::Wait(dt) => *now += dt,
            Op::Submit(j, wall) => {
                if let Some(k) = find(jobs, j) {
                    jobs.remove(k);
                }
                jobs.push(Job {
                    id: id(j),
                    user: format!("u{}", j % 3),
                    group: "g".into(),
                    tasks: 2,
                    task: Resources::procs_mem(1, 100),
                    walltime: Some(wall),
                    submit_time: *now,
                    ..Job::default()
                });
            }
            Op::Start(j, n, tasks) => {
                if let Some(k) = find(jobs, j) {
                    let x = &mut jobs[k];
                    if x.state == JobState::Idle {
                        x.state = JobState::Running;
                        x.start_time = Some(*now);
                    }
                    x.allocation.push(NodeTasks {
                        node: format!("n{}", n + 1),
                        tasks,
                    });
                }
            }
            Op::End(j) => {
                if let Some(k) = find(jobs, j) {
                    jobs.remove(k);
                }
            }
            Op::Suspend(j) => {
                if let Some(k) = find(jobs, j) {
                    let x = &mut jobs[k];
                    x.state = match x.state {
                        JobState::Running => JobState::Suspended,
                        JobState::Suspended => JobState::Running,
                        s => s,
                    };
                }
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]

        /// Whatever starts, ends, is suspended, overruns its walltime or
        /// oversubscribes a node, the carried running-job profile and its
        /// now-index are the ones built from scratch.
        #[test]
        fn the_carried_profile_is_the_one_built_anew(
            ops in prop::collection::vec(op(), 1..60),
            single_job in any::<bool>(),
            standing in any::<bool>(),
        ) {
            let mut text = String::from(if single_job { "NODEACCESSPOLICY SINGLEJOB\n" } else { "" });
            if standing {
                text.push_str("SRCFG[d] TASKCOUNT=2 PERIOD=DAY STARTTIME=00:00:00 ENDTIME=23:00:00\n");
            }
            let c = cfg(&text);
            let cluster = four_proc_nodes(4, &c);
            let mut snapshot: Vec<Job> = Vec::new();
            let mut now: Time = 1_000_000;
            let mut running: Option<RunningProfile> = None;
            for op in &ops {
                apply(&mut snapshot, &mut now, op);
                let jobs = crate::engine::jobs_by_id(&snapshot);
                let mut st = EngineState::default();
                let kept = build_with(&c, Arc::clone(&cluster), &jobs, now, &mut st, &mut running);
                let mut st = EngineState::default();
                let anew = build_with(&c, Arc::clone(&cluster), &jobs, now, &mut st, &mut None);
                prop_assert_eq!(&kept.profile, &anew.profile, "after {:?}", op);
                prop_assert_eq!(&kept.windows, &anew.windows);
                // Its now-index, when kept (not after an oversubscribing
                // start), is the one made for the profile built anew.
                let ix = NowIndex::new(&anew.cluster, &anew.profile, now, Scope::All);
                prop_assert_eq!(kept.now_ix.is_some(), running.is_some());
                if let Some(kept_ix) = &kept.now_ix {
                    prop_assert_eq!(&**kept_ix, &ix, "after {:?}", op);
                }
                // With a standing reservation, so is the one over
                // unclaimed capacity.
                prop_assert_eq!(kept.open_ix.is_some(), running.is_some() && !kept.table.is_empty());
                if let Some(kept_open) = &kept.open_ix {
                    let open = NowIndex::new(&anew.cluster, &anew.profile, now, Scope::Unclaimed);
                    prop_assert_eq!(&**kept_open, &open, "after {:?}", op);
                }
            }
        }
    }

    /// The nodes of a standing reservation's instance are marked as just
    /// ended (`Profile::set_just_ended`) at the first iteration after its
    /// end, and only then; a weekly instance's end is found from its name.
    #[test]
    fn the_first_iteration_after_an_instance_marks_its_nodes() {
        const DAY: Time = 86_400;
        for (text, end) in [
            (
                "SRCFG[d] HOSTLIST=n2,n3 PERIOD=DAY STARTTIME=08:00:00 ENDTIME=17:00:00\n",
                DAY + 17 * 3600,
            ),
            // 1970-01-04 was a Sunday: Monday 08:00 to 17:00 of that week.
            (
                "SRCFG[d] HOSTLIST=n2,n3 PERIOD=WEEK STARTTIME=1:08:00:00 ENDTIME=1:17:00:00\n",
                4 * DAY + 17 * 3600,
            ),
        ] {
            let c = cfg(text);
            let cluster = four_proc_nodes(3, &c);
            let mut st = EngineState::default();
            let mut marked = |now: Time| {
                build_with(&c, Arc::clone(&cluster), &[], now, &mut st, &mut None)
                    .profile
                    .just_ended()
                    .to_vec()
            };
            assert_eq!(marked(end - 30), Vec::<NodeIdx>::new(), "{text}");
            assert_eq!(marked(end + 30), vec![1, 2], "{text}");
            assert_eq!(marked(end + 90), Vec::<NodeIdx>::new(), "{text}");
        }
    }

    /// Between polls where jobs start and end within the nodes' capacity,
    /// the profile is carried, not rebuilt; an oversubscribed node stops
    /// that until it is gone.
    #[test]
    fn the_profile_is_carried_while_placements_fit() {
        let c = cfg("");
        let cluster = four_proc_nodes(2, &c);
        let mut snapshot: Vec<Job> = Vec::new();
        let mut now: Time = 1_000_000;
        let mut running: Option<RunningProfile> = None;
        let mut step = |snapshot: &mut Vec<Job>, now: &mut Time, ops: &[Op]| {
            for op in ops {
                apply(snapshot, now, op);
            }
            let jobs = crate::engine::jobs_by_id(snapshot);
            let mut st = EngineState::default();
            build_with(&c, Arc::clone(&cluster), &jobs, *now, &mut st, &mut running);
            running.as_ref().map(|r| r.carried)
        };
        use Op::*;
        let s = &mut snapshot;
        let t = &mut now;
        assert_eq!(step(s, t, &[Submit(1, 600), Start(1, 0, 2)]), Some(0));
        assert_eq!(step(s, t, &[Wait(60), Submit(2, 600)]), Some(1));
        assert_eq!(step(s, t, &[Start(2, 1, 2), Submit(3, 900)]), Some(2));
        assert_eq!(step(s, t, &[Wait(30), End(1), Start(3, 0, 4)]), Some(3));
        // n1 holds 4 + 3 procs: rebuilt, not carried.
        assert_eq!(step(s, t, &[Submit(4, 60), Start(4, 0, 3)]), None);
        assert_eq!(step(s, t, &[Wait(10)]), None);
        assert_eq!(step(s, t, &[End(4)]), Some(0));
        assert_eq!(step(s, t, &[Wait(2000)]), Some(1));
    }
}
