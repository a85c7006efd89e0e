//! Placing a reservation's tasks onto nodes.
//!
//! Seed 7.1.5.1.3 and 7.1.5.2.5:
//!
//! - Non-floating (a HOSTLIST without TASKCOUNT): one task on every listed
//!   host, whatever the host's state, load or other reservations (the claim
//!   may stack; what running jobs it does not admit hold stays theirs until
//!   they end).
//! - Floating (a TASKCOUNT): only usable nodes (Idle, Running, Busy, not over
//!   their load limit) and only room no other reservation holds, unless
//!   ACCESS=SHARED lets it stack. With a HOSTLIST the listed hosts are used
//!   first, chosen by the node-choice hook (NODEALLOCATIONPOLICY); other
//!   nodes are only sought when the listed hosts cannot hold TASKCOUNT tasks
//!   even when idle.
//! - TPN: a node takes at least TPN tasks or none.
//! - Tasks are atomic: each one fits whole on its node.
//!
//! A reservation that cannot get all its tasks keeps what it got (partial);
//! [`top_up`] adds the rest when resources free up.

use super::{NodeClaim, Reservation};
use crate::model::{Cluster, NodeIdx, Time};
use crate::profile::{JobIdx, Profile, ResIdx};

/// A node a reservation could use, and how many of its tasks fit there.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Candidate {
    /// The node.
    pub node: NodeIdx,
    /// Tasks that fit there over the reservation's timeframe.
    pub fits: u32,
}

/// What the node-choice hook sees.
pub struct ChooseCtx<'a> {
    /// The cluster.
    pub cluster: &'a Cluster,
    /// The profile before placement.
    pub profile: &'a Profile,
    /// The reservation being placed.
    pub reservation: &'a Reservation,
    /// Its index in the profile.
    pub index: ResIdx,
    /// Start of its timeframe.
    pub start: Time,
    /// End of its timeframe.
    pub end: Time,
}

/// Orders candidate nodes by preference (the NODEALLOCATIONPOLICY hook).
pub trait NodeChooser {
    /// Sorts `candidates`, most preferred first.
    fn order(&self, ctx: &ChooseCtx, candidates: &mut [Candidate]);
}

/// The default: the RM's node order (FIRSTAVAILABLE).
#[derive(Clone, Copy, Debug, Default)]
pub struct RmOrder;

impl NodeChooser for RmOrder {
    fn order(&self, _: &ChooseCtx, candidates: &mut [Candidate]) {
        candidates.sort_by_key(|c| c.node);
    }
}

impl<F: Fn(&ChooseCtx, &mut [Candidate])> NodeChooser for F {
    fn order(&self, ctx: &ChooseCtx, candidates: &mut [Candidate]) {
        self(ctx, candidates)
    }
}

/// The result of [`top_up`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PlaceOutcome {
    /// Claims added by this call.
    pub added: Vec<NodeClaim>,
    /// Tasks held after the call.
    pub tasks: u32,
    /// Tasks wanted.
    pub wanted: u32,
}

impl PlaceOutcome {
    /// True when the reservation still lacks tasks.
    pub fn is_partial(&self) -> bool {
        self.tasks < self.wanted
    }
}

/// Re-applies the reservation's recorded claims to a (fresh) profile, for
/// reservations that already exist when the profile is rebuilt.
pub fn reapply(
    res: &Reservation,
    idx: ResIdx,
    profile: &mut Profile,
    admits_job: &dyn Fn(JobIdx) -> bool,
) {
    for c in &res.claims {
        profile.add_claim(
            c.node,
            idx,
            res.start,
            res.end,
            c.resources,
            res.claim_mode(),
            admits_job,
        );
    }
}

/// The claims [`top_up`] would add, without changing the profile.
pub fn plan(
    res: &Reservation,
    idx: ResIdx,
    cluster: &Cluster,
    profile: &Profile,
    chooser: &dyn NodeChooser,
    admits_job: &dyn Fn(JobIdx) -> bool,
) -> Vec<NodeClaim> {
    let req = &res.request;
    let have = res.tasks();
    let wanted = req.wanted_tasks(cluster);
    if have >= wanted {
        return Vec::new();
    }
    let held = |n: NodeIdx| -> u32 {
        res.claims
            .iter()
            .filter(|c| c.node == n)
            .map(|c| c.tasks)
            .sum()
    };
    // The task's generic resources, resolved once for every node.
    let task_gres = req.resolved_gres(cluster);
    let task_on = |node: &crate::model::EffNode| task_gres.map(|g| req.task_with(g, node));
    if !req.is_floating() {
        // A task with generic resources goes only where the node has them.
        let gres = !req.resources.gres.is_empty();
        return req
            .listed_nodes(cluster)
            .into_iter()
            .filter(|&n| held(n) == 0)
            .filter_map(|n| {
                let node = &cluster.nodes[n as usize];
                let task = task_on(node)?;
                if gres && !task.gres.fits_in(&node.configured.gres) {
                    return None;
                }
                Some(NodeClaim {
                    node: n,
                    tasks: 1,
                    resources: task,
                })
            })
            .collect();
    }
    let mut missing = wanted - have;
    let mode = res.claim_mode();
    let ctx = ChooseCtx {
        cluster,
        profile,
        reservation: res,
        index: idx,
        start: res.start,
        end: res.end,
    };
    let eligible = req.node_filter(cluster);
    let candidate = |n: NodeIdx| -> Option<Candidate> {
        let node = &cluster.nodes[n as usize];
        if !node.usable || !eligible.admits(node) {
            return None;
        }
        let task = task_on(node)?;
        if task.is_zero() {
            return None;
        }
        let room = profile.claimable(n, idx, res.start, res.end, mode, admits_job);
        let fits = task.times_fits_in(&room);
        let min = if held(n) >= req.tpn {
            1
        } else {
            req.tpn - held(n)
        };
        (fits >= min.max(1)).then_some(Candidate { node: n, fits })
    };
    let listed = req.listed_nodes(cluster);
    let mut passes: Vec<Vec<Candidate>> = Vec::new();
    if req.hostlist.is_some() {
        passes.push(listed.iter().filter_map(|&n| candidate(n)).collect());
        // Beyond the host list only when it cannot hold TASKCOUNT tasks at all.
        let capacity: u64 = listed
            .iter()
            .map(|&n| {
                let node = &cluster.nodes[n as usize];
                task_on(node).map_or(0, |t| t.times_fits_in(&node.configured) as u64)
            })
            .sum();
        if capacity < wanted as u64 {
            passes.push(
                (0..cluster.nodes.len() as NodeIdx)
                    .filter(|n| !listed.contains(n))
                    .filter_map(candidate)
                    .collect(),
            );
        }
    } else {
        passes.push(
            (0..cluster.nodes.len() as NodeIdx)
                .filter_map(candidate)
                .collect(),
        );
    }
    let mut out = Vec::new();
    for mut cands in passes {
        chooser.order(&ctx, &mut cands);
        for c in cands {
            if missing == 0 {
                break;
            }
            let k = c.fits.min(missing);
            if held(c.node) + k < req.tpn {
                continue;
            }
            let Some(task) = task_on(&cluster.nodes[c.node as usize]) else {
                continue;
            };
            out.push(NodeClaim {
                node: c.node,
                tasks: k,
                resources: task.checked_mul(k).unwrap_or(task),
            });
            missing -= k;
        }
    }
    out
}

/// Adds claims to the profile.
pub fn apply(
    res: &Reservation,
    idx: ResIdx,
    claims: &[NodeClaim],
    profile: &mut Profile,
    admits_job: &dyn Fn(JobIdx) -> bool,
) {
    for c in claims {
        profile.add_claim(
            c.node,
            idx,
            res.start,
            res.end,
            c.resources,
            res.claim_mode(),
            admits_job,
        );
    }
}

/// Finds nodes for the tasks the reservation still lacks and claims them in
/// the profile. The caller appends `added` to the reservation's claims.
pub fn top_up(
    res: &Reservation,
    idx: ResIdx,
    cluster: &Cluster,
    profile: &mut Profile,
    chooser: &dyn NodeChooser,
    admits_job: &dyn Fn(JobIdx) -> bool,
) -> PlaceOutcome {
    let added = plan(res, idx, cluster, profile, chooser, admits_job);
    apply(res, idx, &added, profile, admits_job);
    PlaceOutcome {
        tasks: res.tasks() + added.iter().map(|c| c.tasks).sum::<u32>(),
        wanted: res.request.wanted_tasks(cluster),
        added,
    }
}

/// Re-applies the reservation's claims, then tops it up, recording the new
/// claims in it. For callers that own the reservation and a closure that
/// does not borrow it.
pub fn ensure(
    res: &mut Reservation,
    idx: ResIdx,
    cluster: &Cluster,
    profile: &mut Profile,
    chooser: &dyn NodeChooser,
    admits_job: &dyn Fn(&Reservation, JobIdx) -> bool,
) -> PlaceOutcome {
    let out = {
        let r: &Reservation = res;
        let f = |j: JobIdx| admits_job(r, j);
        reapply(r, idx, profile, &f);
        top_up(r, idx, cluster, profile, chooser, &f)
    };
    res.claims.extend(out.added.iter().copied());
    res.claims.sort_by_key(|c| c.node);
    merge_claims(&mut res.claims);
    out
}

/// Merges entries for the same node (claims sorted by node).
fn merge_claims(claims: &mut Vec<NodeClaim>) {
    claims.dedup_by(|b, a| {
        if a.node == b.node {
            a.tasks += b.tasks;
            a.resources = a.resources.saturating_add(&b.resources);
            true
        } else {
            false
        }
    });
}
