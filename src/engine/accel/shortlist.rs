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

/// What a walk orders nodes by within a run: free processors, memory, swap
/// and disk (all 0 for policies not ordered by what is free).
type FreeKey = (u32, [u64; 3]);

/// A node's place in a walk: (run, free key, node).
type WalkKey = (u32, FreeKey, NodeIdx);

fn free_key(f: &Resources) -> FreeKey {
    (f.procs, [f.mem, f.swap, f.disk])
}

/// The unclaimed nodes with processors free now in one policy's order:
/// by run of equal rank, then (policies ordered by free) what is free now,
/// then index. Built at a policy's first shortlist in an iteration and
/// kept up to date by [`Iter::update_walks`] at each placement, so a
/// shortlist walks only as far as it needs.
pub(super) struct Walk {
    policy: NodeAllocationPolicy,
    by_free: bool,
    /// Each node's run ([`RankOrder::run_of`]).
    run_of: Vec<u32>,
    order: std::collections::BTreeSet<WalkKey>,
    /// (steady until, node) for policies ordered by free: a node placed on
    /// later than now in this iteration has `Time::MIN`.
    steady: std::collections::BTreeSet<(Time, NodeIdx)>,
    /// Each node's entry in both.
    entry: Vec<Option<(WalkKey, Time)>>,
}

impl Walk {
    fn new(
        policy: NodeAllocationPolicy,
        order: &RankOrder,
        claimed: &Claimed,
        ix: &NowIndex,
        later: &Bits,
    ) -> Walk {
        let mut w = Walk {
            policy,
            by_free: order.by_free,
            run_of: order.run_of.clone(),
            order: Default::default(),
            steady: Default::default(),
            entry: vec![None; order.run_of.len()],
        };
        for &node in ix.open(&Resources::procs(1)) {
            w.set(node, claimed, ix, later.contains(node));
        }
        w
    }

    fn run_of(&self, node: NodeIdx) -> u32 {
        self.run_of[node as usize]
    }

    fn steady_until(&self, node: NodeIdx) -> Time {
        self.entry[node as usize].map_or(Time::MIN, |(_, t)| t)
    }

    /// Node `node`'s entry from the index (`later`: a placement later than
    /// now was made on it in this iteration).
    fn set(&mut self, node: NodeIdx, claimed: &Claimed, ix: &NowIndex, later: bool) {
        let k = node as usize;
        if k >= self.entry.len() {
            return;
        }
        if let Some((key, t)) = self.entry[k].take() {
            self.order.remove(&key);
            self.steady.remove(&(t, node));
        }
        let run = self.run_of[k];
        let f = ix.free_now(node);
        if run == u32::MAX || claimed.contains(node) || f.procs == 0 {
            return;
        }
        let (key, t) = if self.by_free {
            let t = if later {
                Time::MIN
            } else {
                ix.steady_until(node)
            };
            ((run, free_key(&f), node), t)
        } else {
            ((run, (0, [0; 3]), node), Time::MAX)
        };
        self.order.insert(key);
        if self.by_free {
            self.steady.insert((t, node));
        }
        self.entry[k] = Some((key, t));
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
    pub(super) fn allocate_now_shortlisted(&mut self, i: usize) -> Shortlisted {
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
        let mut orders = std::mem::take(&mut self.orders);
        let Some(order) = orders.of(policy, &cluster) else {
            self.orders = orders;
            return Shortlisted::Undecided;
        };
        if self.claimed.is_none() {
            self.claimed = Some(Claimed::of(&self.cx.view.profile));
        }
        let claimed = self.claimed.as_ref().expect("set above");
        let w = match self.walks.iter().position(|w| w.policy == policy) {
            Some(w) => w,
            None => {
                let walk = Walk::new(policy, order, claimed, &self.now_ix, &self.later);
                self.walks.push(walk);
                self.walks.len() - 1
            }
        };
        self.orders = orders;
        let claimed = self.claimed.as_ref().expect("set above");
        let (cands, complete) = self.shortlist(i, &self.walks[w], claimed, k, (start, end));
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
                .candidates(i, (start, end), need, None)
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
    /// ([`crate::allocation::counts_toward`]), are certainly ahead of a
    /// node, neither that node nor any after it matters. Only nodes with
    /// room for a task now are looked at. Within a run ordered by what is
    /// free (MINRESOURCE: processors, memory, swap, disk, then node index),
    /// what is free over the job's window is what is free now on a node
    /// where nothing drops before the job would end
    /// ([`NowIndex::steady_until`], and nothing placed there later than now
    /// in this iteration): such nodes are taken in the walk's order, and
    /// the others are all scored first.
    fn shortlist(
        &self,
        i: usize,
        walk: &Walk,
        claimed: &Claimed,
        k: usize,
        window: (Time, Time),
    ) -> (Vec<Candidate>, bool) {
        let it = &self.cx.idle[i];
        let adm = self.cx.adm(it.j);
        let ix = self.index_for(i);
        let task = &it.req.task;
        let full = Ahead {
            slots: k as u64,
            tasks: u64::from(it.req.tasks),
        };
        // Claimed nodes with room, and about k others (more where k slots
        // need more nodes): grown, the vector would copy its candidates.
        let mut out = Vec::with_capacity(claimed.nodes.len() + k.min(walk.order.len()) + 16);
        // A node's candidate, and when it is a slot (an unclaimed node's
        // candidate the job can use), what is free on it over the window
        // and what it counts toward the job's tasks.
        let push = |out: &mut Vec<Candidate>,
                    node: NodeIdx,
                    is_claimed: bool|
         -> Option<(Resources, u64)> {
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
            (cap > 0).then_some((free, u64::from(counts)))
        };
        let has_room = |node: NodeIdx| task.fits_in(&ix.free_now(node)) && self.suitable(i, node);
        for &node in &claimed.nodes {
            if has_room(node) {
                push(&mut out, node, true);
            }
        }
        // The nodes where what is free may drop before the job would end,
        // all scored: (run, what is free over the window, what it counts)
        // of those that are slots, in order, and what those before each
        // come to.
        let mut scored: Vec<(u32, FreeKey, u64)> = Vec::new();
        if walk.by_free {
            for &(_, node) in walk.steady.range(..(window.1, 0)) {
                if has_room(node) {
                    if let Some((f, counts)) = push(&mut out, node, false) {
                        scored.push((walk.run_of(node), free_key(&f), counts));
                    }
                }
            }
            scored.sort_unstable();
        }
        let mut upto = Vec::with_capacity(scored.len() + 1);
        upto.push(Ahead::default());
        for (n, s) in scored.iter().enumerate() {
            upto.push(Ahead {
                slots: n as u64 + 1,
                tasks: upto[n].tasks + s.2,
            });
        }
        // The run walked and where its scored slots are in `scored`; the
        // slots taken in earlier runs and in this one.
        let (mut run, mut run_scored) = (u32::MAX, 0..0);
        let (mut taken_before, mut taken) = (Ahead::default(), Ahead::default());
        // The last key taken and this run's scored slots before it.
        let mut last: Option<(FreeKey, Ahead)> = None;
        for &(r, here, node) in &walk.order {
            if walk.by_free && walk.steady_until(node) < window.1 || !has_room(node) {
                continue;
            }
            if r != run {
                (run, taken_before, taken, last) =
                    (r, taken_before.plus(taken), Ahead::default(), None);
                let lo = scored.partition_point(|s| s.0 < r);
                let hi = scored.partition_point(|s| s.0 <= r);
                run_scored = lo..hi;
            }
            // The slots certainly before this node: earlier runs' (taken
            // and scored), those taken in this run, and this run's scored
            // ones with less free (ties go by node index, which is the
            // walk's order among equal keys).
            let before = match last {
                Some((l, b)) if l == here => b,
                _ => {
                    let n = scored[run_scored.clone()].partition_point(|s| s.1 < here);
                    upto[run_scored.start + n].minus(upto[run_scored.start])
                }
            };
            let ahead = taken_before
                .plus(upto[run_scored.start])
                .plus(taken)
                .plus(before);
            if ahead.slots >= full.slots || ahead.tasks >= full.tasks {
                return (out, false);
            }
            if let Some((f, counts)) = push(&mut out, node, false) {
                debug_assert!(!walk.by_free || free_key(&f) == here);
                taken = taken.plus(Ahead {
                    slots: 1,
                    tasks: counts,
                });
            }
            last = Some((here, before));
        }
        (out, true)
    }

    /// Brings the walks up to date on `nodes` after a placement there
    /// (what is free now changed, or a placement later than now was
    /// added: see [`Iter::later`]).
    pub(super) fn update_walks(&mut self, nodes: &[(NodeIdx, u32)]) {
        let Some(claimed) = &self.claimed else {
            return;
        };
        for walk in &mut self.walks {
            for &(node, _) in nodes {
                walk.set(node, claimed, &self.now_ix, self.later.contains(node));
            }
        }
    }
}

/// Slots ahead of a node in a walk, and what they count toward the job's
/// tasks ([`crate::allocation::counts_toward`]).
#[derive(Clone, Copy, Default, Debug, PartialEq)]
struct Ahead {
    slots: u64,
    tasks: u64,
}

impl Ahead {
    fn plus(self, o: Ahead) -> Ahead {
        Ahead {
            slots: self.slots + o.slots,
            tasks: self.tasks + o.tasks,
        }
    }

    fn minus(self, o: Ahead) -> Ahead {
        Ahead {
            slots: self.slots - o.slots,
            tasks: self.tasks - o.tasks,
        }
    }
}
