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
//! rank, then its index: no slot in a later run can come before `k` slots
//! of earlier runs. A run is in index order, and the walk stops within it.
//!
//! The walk's order ([`Walk`]) is kept through the iteration: built at a
//! policy's first shortlist, updated on the nodes of each placement, so a
//! shortlist costs the nodes it walks, not a sort of every node with room.
//!
//! The answer is [`allocate_from_first`]'s, which is the whole
//! allocation's; when those slots cannot hold the job, the caller scores
//! every node as before.

use super::*;
use crate::allocation::{allocate_from_first, first_slots, node_rank, Allocation};
use crate::config::NodeAllocationPolicy;
use crate::model::Bits;

/// Usable nodes in [`node_rank`] order, per policy, for one cluster: they
/// depend on the nodes' configuration only, so the engine carries them
/// while the cluster is the same.
#[derive(Default)]
pub(super) struct NodeOrders {
    by_policy: Vec<(NodeAllocationPolicy, Arc<RankOrder>)>,
}

/// The usable nodes by rank, then index (by run of equal rank, then
/// index), and each node's place in that order.
struct RankOrder {
    /// Usable nodes, best rank first, ties in index order.
    order: Vec<NodeIdx>,
    /// Each node's place in `order` (`u32::MAX`: not usable).
    pos_of: Vec<u32>,
}

impl NodeOrders {
    /// The order for `policy` (one of those [`node_rank`] ranks).
    fn of(&mut self, policy: NodeAllocationPolicy, cluster: &Cluster) -> Option<Arc<RankOrder>> {
        let pos = match self.by_policy.iter().position(|(p, _)| *p == policy) {
            Some(pos) => pos,
            None => {
                let order = RankOrder::new(policy, cluster)?;
                self.by_policy.push((policy, Arc::new(order)));
                self.by_policy.len() - 1
            }
        };
        Some(Arc::clone(&self.by_policy[pos].1))
    }
}

impl RankOrder {
    fn new(policy: NodeAllocationPolicy, cluster: &Cluster) -> Option<RankOrder> {
        let mut keyed: Vec<([u64; 4], NodeIdx)> = Vec::with_capacity(cluster.nodes.len());
        for n in cluster.nodes.iter().filter(|n| n.usable) {
            keyed.push((node_rank(n, policy)?, n.index));
        }
        keyed.sort_unstable();
        let mut pos_of = vec![u32::MAX; cluster.nodes.len()];
        for (p, &(_, node)) in keyed.iter().enumerate() {
            pos_of[node as usize] = p as u32;
        }
        Some(RankOrder {
            order: keyed.into_iter().map(|(_, n)| n).collect(),
            pos_of,
        })
    }
}

/// Nodes on which a reservation claims anything (at some time): in node
/// order, and as a bit set.
pub(super) struct Claimed {
    nodes: Vec<NodeIdx>,
    bits: Bits,
}

impl Claimed {
    fn of(profile: &Profile) -> Claimed {
        let nodes = profile.claimed_nodes();
        let bits = nodes.iter().copied().collect();
        Claimed { nodes, bits }
    }

    fn contains(&self, n: NodeIdx) -> bool {
        self.bits.contains(n)
    }
}

/// The unclaimed nodes with processors free now in one policy's order:
/// by run of equal rank, then index. Built at a policy's first shortlist
/// in an iteration and kept up to date by [`Iter::update_walks`] at each
/// placement, so a shortlist walks only as far as it needs. A bit per
/// place in the policy's order: building it and keeping it cost a bit per
/// node, and walking it skips 64 places that are out at a time.
pub(super) struct Walk {
    policy: NodeAllocationPolicy,
    ranks: Arc<RankOrder>,
    /// The places of `ranks.order` whose nodes are in the walk.
    entered: Bits,
    /// Nodes in the walk.
    len: usize,
}

impl Walk {
    fn new(
        policy: NodeAllocationPolicy,
        ranks: Arc<RankOrder>,
        claimed: &Claimed,
        ix: &NowIndex,
    ) -> Walk {
        let mut w = Walk {
            policy,
            entered: Bits::default(),
            ranks,
            len: 0,
        };
        for &node in ix.open(&Resources::procs(1)) {
            w.set(node, claimed, ix);
        }
        w
    }

    /// Node `node`'s entry from the index.
    fn set(&mut self, node: NodeIdx, claimed: &Claimed, ix: &NowIndex) {
        let Some(&pos) = self.ranks.pos_of.get(node as usize) else {
            return;
        };
        if pos == u32::MAX {
            return;
        }
        if !claimed.contains(node) && ix.free_now(node).procs > 0 {
            if self.entered.insert(pos) {
                self.len += 1;
            }
        } else if self.entered.remove(pos) {
            self.len -= 1;
        }
    }

    /// The nodes in the walk, in order.
    fn nodes(&self) -> impl Iterator<Item = NodeIdx> + '_ {
        self.entered
            .iter()
            .map(move |pos| self.ranks.order[pos as usize])
    }
}

/// When a start now uses the shortlist: tests set it per thread, to
/// compare with scoring every node and to use it on small clusters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(not(test), allow(dead_code))]
pub(crate) enum Mode {
    /// As in production.
    Normal,
    /// Never: every node with room is scored.
    Off,
    /// Wherever it applies, however few the nodes with room.
    Always,
}

#[cfg(test)]
thread_local! {
    static MODE: std::cell::Cell<Mode> = const { std::cell::Cell::new(Mode::Normal) };
}

#[cfg(test)]
fn mode() -> Mode {
    MODE.with(|m| m.get())
}

#[cfg(not(test))]
fn mode() -> Mode {
    Mode::Normal
}

/// Runs `f` with the shortlist in `mode` on this thread.
#[cfg(test)]
pub(crate) fn with_mode<T>(mode: Mode, f: impl FnOnce() -> T) -> T {
    MODE.with(|m| m.set(mode));
    let out = f();
    MODE.with(|m| m.set(Mode::Normal));
    out
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
    /// `only`: the nodes the job may use (a backfill window's, in node
    /// order); the order of the others among them is the same, so the
    /// first slots among them are found as among all.
    pub(super) fn allocate_now_shortlisted(
        &mut self,
        i: usize,
        only: Option<&[NodeIdx]>,
    ) -> Shortlisted {
        let mode = mode();
        if mode == Mode::Off {
            return Shortlisted::Undecided;
        }
        let it = &self.cx.idle[i];
        let job = &self.cx.jobs[it.j];
        let policy = effective_policy(job, &self.cx.cfg.params);
        let Some(k) = first_slots(it.req, policy) else {
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
        // Where twice the slots the job needs (at least as many as
        // `first_slots` ever tries) are a quarter or more of the nodes with
        // room (small clusters, wide jobs), the walk would not stop much
        // earlier: scoring every node costs less than building and keeping
        // the walk (on the 100- and 240-node simulations it cost ~1 % more
        // instructions than it saved at twice the nodes). The slots needed
        // are guessed from the largest node the job may use.
        if mode != Mode::Always {
            let least = crate::allocation::FIRST_SLOTS_MIN as u64;
            let open = self.index_for(i).open(&it.req.task).len() as u64;
            if open <= 4 * least {
                return Shortlisted::Undecided;
            }
            let largest = self.feasible.largest(it.nodes);
            let per_node = u64::from(it.req.task.times_fits_in(&largest).max(1));
            let slots = (u64::from(it.req.tasks).div_ceil(per_node) * 2).max(least);
            if open <= 4 * slots {
                return Shortlisted::Undecided;
            }
        }
        let (start, end) = (self.cx.now, self.cx.now.saturating_add(it.wall));
        let need = it.req.tasks as u64;
        // What `candidates` checks first: most attempts fail here.
        if self.tasks_available(i, start, end, need) < need {
            return Shortlisted::Fails;
        }
        let cluster = std::sync::Arc::clone(&self.cx.view.cluster);
        let Some(order) = self.orders.of(policy, &cluster) else {
            return Shortlisted::Undecided;
        };
        if self.claimed.is_none() {
            self.claimed = Some(Claimed::of(&self.cx.view.profile));
        }
        let claimed = self.claimed.as_ref().expect("set above");
        let w = match self.walks.iter().position(|w| w.policy == policy) {
            Some(w) => w,
            None => {
                self.walks
                    .push(Walk::new(policy, order, claimed, &self.now_ix));
                self.walks.len() - 1
            }
        };
        let (cands, complete) = self.shortlist(i, &self.walks[w], claimed, k, (start, end), only);
        let it = &self.cx.idle[i];
        let answer = if complete {
            match allocate_checked(it.req, &cands, &cluster, policy, true, self.cx.local) {
                Some(a) => Shortlisted::Placed(a),
                None => Shortlisted::Fails,
            }
        } else {
            match allocate_from_first(it.req, &cands, &cluster, policy, k) {
                Some(a) => Shortlisted::Placed(a),
                None => Shortlisted::Undecided,
            }
        };
        // Debug builds (every test) check the answer against scoring
        // every node with room.
        #[cfg(debug_assertions)]
        if !matches!(answer, Shortlisted::Undecided) {
            let all = self
                .candidates(i, (start, end), need, only)
                .and_then(|c| allocate_checked(it.req, &c, &cluster, policy, true, self.cx.local));
            let got = match &answer {
                Shortlisted::Placed(a) => Some(a),
                _ => None,
            };
            assert_eq!(got, all.as_ref(), "shortlist of job {}", it.req.job);
        }
        answer
    }

    /// The candidates of the claimed nodes and of the nodes of `walk` up
    /// to where the slots certainly before are `k` or hold the job, and
    /// whether that is every candidate.
    ///
    /// A plain placement takes the slots in order until the job is placed
    /// ([`crate::allocation::first_slots`]): once `k` slots, or slots whose
    /// counts add up to the job's tasks
    /// ([`crate::allocation::counts_toward`]), are ahead of a node, neither
    /// that node nor any after it matters. Only nodes with room for a task
    /// now are looked at.
    fn shortlist(
        &self,
        i: usize,
        walk: &Walk,
        claimed: &Claimed,
        k: usize,
        window: (Time, Time),
        only: Option<&[NodeIdx]>,
    ) -> (Vec<Candidate>, bool) {
        let it = &self.cx.idle[i];
        let adm = self.cx.adm(it.j);
        let ix = self.index_for(i);
        let task = &it.req.task;
        // Claimed nodes with room, and about k others (more where k slots
        // need more nodes): grown, the vector would copy its candidates.
        let mut out = Vec::with_capacity(claimed.nodes.len() + k.min(walk.len) + 16);
        // A node's candidate, and when it is a slot (an unclaimed node's
        // candidate the job can use), what it counts toward the job's tasks.
        let push = |out: &mut Vec<Candidate>, node: NodeIdx, is_claimed: bool| -> Option<u64> {
            let free = self.cx.view.profile.free(node, window.0, window.1, &adm);
            let tasks = task.times_fits_in(&free);
            if tasks == 0 {
                return None;
            }
            let c = self
                .cx
                .candidate(i, node, (tasks, free), window, &adm, false, is_claimed);
            let n = &self.cx.view.cluster.nodes[node as usize];
            let cap = match is_claimed {
                true => 0,
                false => crate::allocation::usable_tasks(it.req, n, &c),
            };
            out.push(c);
            let counts = crate::allocation::counts_toward(it.req, cap);
            (cap > 0).then_some(u64::from(counts))
        };
        let has_room = |node: NodeIdx| {
            task.fits_in(&ix.free_now(node))
                && only.is_none_or(|o| o.binary_search(&node).is_ok())
                && self.suitable(i, node)
        };
        for &node in &claimed.nodes {
            if has_room(node) {
                push(&mut out, node, true);
            }
        }
        let (mut slots, mut tasks) = (0u64, 0u64);
        for node in walk.nodes() {
            if slots >= k as u64 || tasks >= u64::from(it.req.tasks) {
                return (out, false);
            }
            if !has_room(node) {
                continue;
            }
            if let Some(counts) = push(&mut out, node, false) {
                slots += 1;
                tasks += counts;
            }
        }
        (out, true)
    }

    /// Brings the walks up to date on `nodes` after a start now there
    /// (what is free now changed).
    pub(super) fn update_walks(&mut self, nodes: &[(NodeIdx, u32)]) {
        let Some(claimed) = &self.claimed else {
            return;
        };
        for walk in &mut self.walks {
            for &(node, _) in nodes {
                walk.set(node, claimed, &self.now_ix);
            }
        }
    }
}
