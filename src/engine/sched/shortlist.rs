//! Placing a job that starts now without scoring every node with room.
//!
//! Under the policies whose order the node alone leads ([`node_rank`]:
//! FIRSTAVAILABLE, MINRESOURCE, CPULOAD, FASTEST), a plain placement takes
//! the first `k` slots of the order when they hold the job
//! ([`first_slots`]). Those slots are found among few nodes: every node a
//! reservation claims anything on (reservation affinity comes first in the
//! order, so these are all scored), then the other nodes by runs of equal
//! rank, best run first, until the runs taken hold `k` slots. A slot on an
//! unclaimed node has no affinity and, without preferred features, the
//! same features count as every other, so its place in the order is its
//! rank, then (MINRESOURCE) what is free on it, then its index: no slot in
//! a later run can come before `k` slots of earlier runs. Where ranks are
//! all the node decides (not MINRESOURCE), a run is in index order too, and
//! the walk stops within it.
//!
//! The answer is [`allocate_from_first`]'s, which is the whole
//! allocation's; when those slots cannot hold the job, the caller scores
//! every node as before.

use super::*;
use crate::allocation::{allocate_from_first, first_slots, node_rank, Allocation};
use crate::config::NodeAllocationPolicy;

/// Usable nodes' runs of equal [`node_rank`], in rank order, per policy, for one
/// cluster: they depend on the nodes' configuration only, so the engine
/// carries them while the cluster is the same.
#[derive(Default)]
pub(super) struct NodeOrders {
    by_policy: Vec<(NodeAllocationPolicy, RankOrder)>,
}

/// Which run of equal rank each node is in, numbered in rank order.
struct RankOrder {
    /// Each node's run (`u32::MAX`: not usable).
    run_of: Vec<u32>,
    by_free: bool,
}

impl NodeOrders {
    /// The order for `policy` (one of those [`node_rank`] ranks).
    fn of(&mut self, policy: NodeAllocationPolicy, cluster: &Cluster) -> Option<&RankOrder> {
        let pos = match self.by_policy.iter().position(|(p, _)| *p == policy) {
            Some(pos) => pos,
            None => {
                let order = RankOrder::new(policy, cluster)?;
                self.by_policy.push((policy, order));
                self.by_policy.len() - 1
            }
        };
        Some(&self.by_policy[pos].1)
    }
}

impl RankOrder {
    fn new(policy: NodeAllocationPolicy, cluster: &Cluster) -> Option<RankOrder> {
        let mut keyed: Vec<([u64; 4], NodeIdx)> = Vec::with_capacity(cluster.nodes.len());
        let mut by_free = false;
        for n in cluster.nodes.iter().filter(|n| n.usable) {
            let (rank, f) = node_rank(n, policy)?;
            by_free = f;
            keyed.push((rank, n.index));
        }
        keyed.sort_unstable();
        let mut run_of = vec![u32::MAX; cluster.nodes.len()];
        let mut run = 0u32;
        for w in 0..keyed.len() {
            if w > 0 && keyed[w].0 != keyed[w - 1].0 {
                run += 1;
            }
            run_of[keyed[w].1 as usize] = run;
        }
        Some(RankOrder { run_of, by_free })
    }
}

/// Nodes on which a reservation claims anything (at some time): in node
/// order, and as a bit set.
pub(super) struct Claimed {
    nodes: Vec<NodeIdx>,
    bits: Vec<u64>,
}

impl Claimed {
    fn of(profile: &Profile) -> Claimed {
        let nodes = profile.claimed_nodes();
        let mut bits = vec![0u64; profile.node_count().div_ceil(64)];
        for &n in &nodes {
            bits[n as usize / 64] |= 1 << (n % 64);
        }
        Claimed { nodes, bits }
    }

    fn contains(&self, n: NodeIdx) -> bool {
        self.bits[n as usize / 64] & (1 << (n % 64)) != 0
    }
}

/// A set of nodes, one bit each.
#[derive(Default)]
pub(super) struct NodeBits(Vec<u64>);

impl NodeBits {
    pub(super) fn insert(&mut self, n: NodeIdx) {
        let w = n as usize / 64;
        if self.0.len() <= w {
            self.0.resize(w + 1, 0);
        }
        self.0[w] |= 1 << (n % 64);
    }

    pub(super) fn contains(&self, n: NodeIdx) -> bool {
        self.0
            .get(n as usize / 64)
            .is_some_and(|w| w & (1 << (n % 64)) != 0)
    }
}

#[cfg(test)]
thread_local! {
    /// Tests turn the shortlist off to compare with scoring every node.
    pub(crate) static OFF: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// What the shortlist decided for a start now.
pub(super) enum Shortlisted {
    /// The job's allocation.
    Placed(Allocation),
    /// The job cannot start now.
    Fails,
    /// Only scoring every node decides (or the shortlist does not apply).
    Undecided,
}

impl Iter<'_> {
    /// Job `i`'s allocation for a start now, from the shortlist.
    pub(super) fn allocate_now_shortlisted(&mut self, i: usize) -> Shortlisted {
        #[cfg(test)]
        if OFF.with(|o| o.get()) {
            return Shortlisted::Undecided;
        }
        let it = &self.idle[i];
        let job = &self.jobs[it.j];
        let policy = effective_policy(job, &self.cfg.params);
        let Some(k) = first_slots(&it.req, policy) else {
            return Shortlisted::Undecided;
        };
        // Preferred features come before rank in the order; host lists and
        // ADVRES restrict the nodes (rare, and scored in full).
        if !it.req.pref_features.is_empty()
            || it.req.hosts.is_some()
            || job.advres.is_some()
            || it.req.task.procs == 0
            || it.req.tasks == 0
        {
            return Shortlisted::Undecided;
        }
        let (start, end) = (self.now, self.now.saturating_add(it.wall));
        let need = it.req.tasks as u64;
        // What `candidates` checks first: most attempts fail here.
        if self.tasks_available(i, start, end, need) < need {
            return Shortlisted::Fails;
        }
        let cluster = std::sync::Arc::clone(&self.view.cluster);
        let mut orders = std::mem::take(&mut self.orders);
        let Some(order) = orders.of(policy, &cluster) else {
            self.orders = orders;
            return Shortlisted::Undecided;
        };
        if self.claimed.is_none() {
            self.claimed = Some(Claimed::of(&self.view.profile));
        }
        let claimed = self.claimed.as_ref().expect("set above");
        let (cands, complete) = self.shortlist(i, order, claimed, k, (start, end));
        self.orders = orders;
        let it = &self.idle[i];
        let answer = if complete {
            match allocate_checked(&it.req, &cands, &cluster, policy, true, self.local) {
                Some(a) => Shortlisted::Placed(a),
                None => Shortlisted::Fails,
            }
        } else {
            match allocate_from_first(&it.req, &cands, &cluster, policy, k) {
                Some(a) => Shortlisted::Placed(a),
                None => Shortlisted::Undecided,
            }
        };
        // Debug builds (every test) check the answer against scoring
        // every node with room.
        #[cfg(debug_assertions)]
        if !matches!(answer, Shortlisted::Undecided) {
            let all = self
                .candidates(i, (start, end), need, None)
                .and_then(|c| allocate_checked(&it.req, &c, &cluster, policy, true, self.local));
            let got = match &answer {
                Shortlisted::Placed(a) => Some(a),
                _ => None,
            };
            assert_eq!(got, all.as_ref(), "shortlist of job {}", it.req.job);
        }
        answer
    }

    /// The candidates of the claimed nodes and of the runs of `order`
    /// until they hold `k` slots on unclaimed nodes, and whether that is
    /// every candidate.
    ///
    /// Only nodes with room for a task now are looked at (the index's
    /// open list). Within a run ordered by what is free (MINRESOURCE:
    /// processors, memory, swap, disk, then node index), what is free over
    /// the job's window is what is free now on a node where nothing drops
    /// before the job would end
    /// ([`NowIndex::steady_until`], and nothing placed there later than now
    /// in this iteration): such nodes are taken by what is free now, and
    /// the others are all scored.
    fn shortlist(
        &self,
        i: usize,
        order: &RankOrder,
        claimed: &Claimed,
        k: usize,
        window: (Time, Time),
    ) -> (Vec<Candidate>, bool) {
        let it = &self.idle[i];
        let adm = self.adm(it.j);
        let ix = self.index_for(i);
        let task = &it.req.task;
        let open = ix.open(task);
        // Claimed nodes with room, and about k others (more where k slots
        // need more nodes): grown, the vector would copy its candidates.
        let mut out = Vec::with_capacity(claimed.nodes.len() + k.min(open.len()) + 16);
        // Unclaimed nodes' candidates that are slots.
        let mut slots = 0usize;
        let push =
            |out: &mut Vec<Candidate>, node: NodeIdx, is_claimed: bool| -> Option<Resources> {
                let free = self.view.profile.free(node, window.0, window.1, &adm);
                let tasks = task.times_fits_in(&free);
                if tasks == 0 {
                    return None;
                }
                let c = self.candidate(i, node, (tasks, free), window, &adm, false, is_claimed);
                let n = &self.view.cluster.nodes[node as usize];
                let slot = !is_claimed && crate::allocation::usable_tasks(&it.req, n, &c) > 0;
                out.push(c);
                slot.then_some(free)
            };
        let has_room = |node: NodeIdx| task.fits_in(&ix.free_now(node)) && self.suitable(i, node);
        for &node in &claimed.nodes {
            if has_room(node) {
                push(&mut out, node, true);
            }
        }
        // (run and free processors, free memory, swap and disk, node): what
        // is free now where it is what is free over the window, else all 0
        // (such a node's place in its run is not known beforehand, and it
        // comes first to be scored; a node with room has processors free).
        // In node order within a run, all are 0 throughout.
        let mut keyed: Vec<(u64, [u64; 3], NodeIdx)> = Vec::with_capacity(open.len());
        for &node in open {
            if claimed.contains(node) || !has_room(node) {
                continue;
            }
            let run = (order.run_of[node as usize] as u64) << 32;
            if order.by_free && ix.steady_until(node) >= window.1 && !self.later.contains(node) {
                let f = ix.free_now(node);
                keyed.push((run | f.procs as u64, [f.mem, f.swap, f.disk], node));
            } else {
                keyed.push((run, [0; 3], node));
            }
        }
        // Sorted a chunk at a time, as far as the walk goes.
        let mut sorted = 0usize;
        let mut next_chunk = k + 16;
        let mut run = u64::MAX;
        // In the current run: slots taken in order, what is free on each
        // scored one that is a slot, and how many of those come before the
        // last node taken.
        let mut taken = 0usize;
        let mut scored: Vec<(u32, [u64; 3])> = Vec::new();
        let mut last: Option<((u32, [u64; 3]), usize)> = None;
        for w in 0..keyed.len() {
            if w == sorted {
                let upto = (sorted + next_chunk).min(keyed.len());
                if upto < keyed.len() {
                    keyed[sorted..].select_nth_unstable(upto - sorted);
                }
                keyed[sorted..upto].sort_unstable();
                sorted = upto;
                next_chunk *= 2;
            }
            let (hi, rest, node) = keyed[w];
            if hi >> 32 != run {
                slots += taken + scored.len();
                if slots >= k {
                    return (out, false);
                }
                (run, taken, last) = (hi >> 32, 0, None);
                scored.clear();
            }
            let here = (hi as u32, rest);
            if order.by_free && here.0 == 0 {
                if let Some(f) = push(&mut out, node, false) {
                    scored.push((f.procs, [f.mem, f.swap, f.disk]));
                }
                continue;
            }
            // Slots certainly before this node: earlier runs', those taken
            // in this run, and scored ones with less free (ties go by node
            // index, which is the walk's order among equal keys).
            let before = match last {
                Some((l, b)) if l == here => b,
                _ => scored.iter().filter(|&&s| s < here).count(),
            };
            if slots + taken + before >= k {
                return (out, false);
            }
            if let Some(f) = push(&mut out, node, false) {
                debug_assert!(!order.by_free || (f.procs, [f.mem, f.swap, f.disk]) == here);
                taken += 1;
            }
            last = Some((here, before));
        }
        (out, true)
    }
}
