//! Upper bounds on what can start now, for rejecting jobs without looking
//! at every node.
//!
//! For each usable node the index keeps `f0`, what is free at `now` when
//! every reservation is ignored (the most any job could use there; or only
//! the unclaimed part, for jobs no reservation admits), and
//! `(t1, g)`: the first later time at which that free amount drops in
//! processors or memory, and what is free then. A job running over
//! `[now, end)` can use at most `f0` on the node, and at most
//! `min(f0, g)` when `t1 < end`, since its window then covers `t1`. Summed
//! over the nodes (sorted by `t1` with prefix sums), that bounds how many
//! processors and how much memory any job could get for a window in
//! `O(log nodes)`; `open` lists the nodes with anything free at `now`.
//!
//! The passes only ever add jobs and reservations to the profile, so free
//! resources only shrink: values computed earlier stay upper bounds. The
//! iteration refreshes the nodes a placement touched at once and re-sorts
//! every so often; a bound that is a little stale is still a bound, so the
//! index never changes a decision, it only skips work whose outcome is
//! known.

use crate::model::{Cluster, NodeIdx, Resources, Time};
use crate::profile::{Admits, Profile, ResIdx, Unreserved};

/// Admission that grants every reservation.
struct AdmitAll;
impl Admits for AdmitAll {
    fn admits(&self, _: ResIdx, _: Time, _: Time) -> Option<crate::config::Affinity> {
        Some(crate::config::Affinity::Neutral)
    }
}

/// Which capacity an index counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Scope {
    /// Everything, reserved or not: a bound for any job.
    All,
    /// Unclaimed capacity only: a bound for jobs no reservation admits.
    Unclaimed,
}

/// Boundaries looked at per node when searching for the first drop.
const SCAN: usize = 24;

/// Touched nodes after which the sorted bounds are rebuilt.
const RESORT: usize = 32;

#[derive(Clone, Debug, PartialEq)]
pub(crate) struct NowIndex {
    scope: Scope,
    now: Time,
    f0: Vec<Resources>,
    t1: Vec<Time>,
    g: Vec<Resources>,
    /// Nodes with free processors, and with anything free.
    open: Vec<NodeIdx>,
    open_any: Vec<NodeIdx>,
    /// The nodes with a drop (`t1 < Time::MAX`) in `(t1, node)` order, as
    /// of the last sort.
    order: Vec<NodeIdx>,
    /// (t1, cumulative procs drop, cumulative mem drop) in t1 order.
    sorted: Vec<(Time, u64, u64)>,
    total: (u64, u64),
    /// Refreshes since the last sort.
    stale: usize,
    /// Nodes refreshed since the last sort, each once, with what was free
    /// on it then; `dirty` marks them (one bit per node).
    touched: Vec<(NodeIdx, Resources)>,
    dirty: Vec<u64>,
    /// Scratch for the sort's merge (empty between sorts).
    merged: Vec<NodeIdx>,
}

impl NowIndex {
    /// The index of `profile` at `now` over the usable nodes of `cluster`.
    pub fn new(cluster: &Cluster, profile: &Profile, now: Time, scope: Scope) -> NowIndex {
        let n = cluster.nodes.len();
        let mut ix = NowIndex {
            scope,
            now,
            f0: vec![Resources::ZERO; n],
            t1: vec![Time::MAX; n],
            g: vec![Resources::ZERO; n],
            open: Vec::new(),
            open_any: Vec::new(),
            order: Vec::new(),
            sorted: Vec::new(),
            total: (0, 0),
            stale: 0,
            touched: Vec::new(),
            dirty: vec![0; n.div_ceil(64)],
            merged: Vec::new(),
        };
        for node in &cluster.nodes {
            if node.usable {
                ix.refresh(profile, node.index);
            }
        }
        ix.resort();
        ix
    }

    /// The index moved to a later `now` over a profile whose lines changed
    /// only on `changed` (placements added or removed, or a segment
    /// boundary passed since the index's `now`): the index [`NowIndex::new`]
    /// gives. Elsewhere the segment holding the new `now` is the one that
    /// held the old, so what is free then and the first drop after are the
    /// same.
    pub fn advance(
        &mut self,
        cluster: &Cluster,
        profile: &Profile,
        now: Time,
        changed: &[NodeIdx],
    ) {
        self.now = now;
        for &node in changed {
            if cluster.nodes.get(node as usize).is_some_and(|n| n.usable) {
                self.refresh(profile, node);
            }
        }
        // Nothing refreshed since the last sort: it would sort the same.
        if self.stale > 0 {
            self.resort();
        }
    }

    /// The index over unclaimed capacity, from this one over all of it,
    /// of a profile where nothing is claimed (so all of it is unclaimed).
    pub fn of_unclaimed(&self) -> NowIndex {
        NowIndex {
            scope: Scope::Unclaimed,
            ..self.clone()
        }
    }

    /// Recomputes one node's values (after a placement on it).
    pub fn refresh(&mut self, profile: &Profile, node: NodeIdx) {
        let k = node as usize;
        if k >= self.f0.len() {
            return;
        }
        let adm: &dyn Admits = match self.scope {
            Scope::All => &AdmitAll,
            Scope::Unclaimed => &Unreserved,
        };
        // What is free now, then at each later boundary until it drops.
        let mut steps = profile.free_steps(node, self.now, adm);
        let f0 = steps.next().map_or(Resources::ZERO, |(_, f)| f);
        let (mut t1, mut g) = (Time::MAX, f0);
        // Nothing free now: nothing to drop from.
        let scan = if f0.is_zero() { 0 } else { SCAN };
        for (c, f) in steps.take(scan) {
            if c == Time::MAX {
                break;
            }
            if f.procs < f0.procs || f.mem < f0.mem {
                t1 = c;
                g = f;
                break;
            }
        }
        let old = self.f0[k];
        let (w, b) = (k / 64, 1u64 << (k % 64));
        if self.dirty[w] & b == 0 {
            self.dirty[w] |= b;
            self.touched.push((node, old));
        }
        self.f0[k] = f0;
        self.t1[k] = t1;
        self.g[k] = g;
        // Cannot happen while the passes only add work, but keep the open
        // lists supersets whatever the caller does.
        if old.procs == 0 && f0.procs > 0 {
            if let Err(p) = self.open.binary_search(&node) {
                self.open.insert(p, node);
            }
        }
        if old.is_zero() && !f0.is_zero() {
            if let Err(p) = self.open_any.binary_search(&node) {
                self.open_any.insert(p, node);
            }
        }
        self.stale += 1;
    }

    /// Brings the sorted bounds, the totals and the open lists up to date
    /// with the node values. Only the nodes refreshed since the last sort
    /// can have moved: they are taken out of the order, sorted among
    /// themselves and merged back, so a sort costs a pass over the order,
    /// not a sort of every node.
    fn resort(&mut self) {
        let (mut tp, mut tm) = self.total;
        for &(node, before) in &self.touched {
            let f = &self.f0[node as usize];
            tp = tp - before.procs as u64 + f.procs as u64;
            tm = tm - before.mem + f.mem;
        }
        self.total = (tp, tm);
        let f0 = &self.f0;
        self.open.retain(|&n| f0[n as usize].procs > 0);
        self.open_any.retain(|&n| !f0[n as usize].is_zero());
        let (t1, dirty) = (&self.t1, &self.dirty);
        let is_dirty = |n: NodeIdx| dirty[n as usize / 64] & (1 << (n % 64)) != 0;
        let mut fresh: Vec<NodeIdx> = self
            .touched
            .iter()
            .map(|&(n, _)| n)
            .filter(|&n| t1[n as usize] != Time::MAX)
            .collect();
        fresh.sort_unstable_by_key(|&n| (t1[n as usize], n));
        let key = |n: NodeIdx| (t1[n as usize], n);
        let mut kept = self
            .order
            .iter()
            .copied()
            .filter(|&n| !is_dirty(n))
            .peekable();
        let mut fresh = fresh.into_iter().peekable();
        let merged = &mut self.merged;
        loop {
            let next = match (kept.peek(), fresh.peek()) {
                (Some(&a), Some(&b)) if key(a) < key(b) => kept.next(),
                (Some(_), Some(_)) => fresh.next(),
                (Some(_), None) => kept.next(),
                (None, Some(_)) => fresh.next(),
                (None, None) => break,
            };
            merged.extend(next);
        }
        std::mem::swap(&mut self.order, &mut self.merged);
        self.merged.clear();
        self.sorted.clear();
        let (mut dp, mut dm) = (0u64, 0u64);
        for &n in &self.order {
            let k = n as usize;
            let lo = Resources::min_each(&self.f0[k], &self.g[k]);
            dp += (self.f0[k].procs - lo.procs) as u64;
            dm += self.f0[k].mem - lo.mem;
            self.sorted.push((self.t1[k], dp, dm));
        }
        for &(n, _) in &self.touched {
            self.dirty[n as usize / 64] = 0;
        }
        self.touched.clear();
        self.stale = 0;
    }

    /// Re-sorts now if any node changed: after resources were freed the
    /// bounds kept would be too low, no longer bounds.
    pub fn resort_now(&mut self) {
        if self.stale > 0 {
            self.resort();
        }
    }

    /// Re-sorts when enough nodes changed since the last time.
    pub fn maybe_resort(&mut self) {
        if self.stale >= RESORT {
            self.resort();
        }
    }

    /// Upper bounds on the processors and memory any job could use over
    /// `[now, end)`, summed over the nodes.
    pub fn bound(&self, end: Time) -> (u64, u64) {
        let i = self.sorted.partition_point(|e| e.0 < end);
        let (dp, dm) = if i == 0 {
            (0, 0)
        } else {
            (self.sorted[i - 1].1, self.sorted[i - 1].2)
        };
        (self.total.0 - dp, self.total.1 - dm)
    }

    /// False when `tasks` tasks of `task` certainly cannot be placed over
    /// `[now, end)`.
    pub fn may_fit(&self, tasks: u32, task: &Resources, end: Time) -> bool {
        let (p, m) = self.bound(end);
        let need_p = task.procs as u64 * tasks as u64;
        let need_m = task.mem.saturating_mul(tasks as u64);
        need_p <= p && need_m <= m
    }

    /// What is free at `now` on `node` ignoring reservations (an upper
    /// bound on what any job can use there from now on).
    pub fn free_now(&self, node: NodeIdx) -> Resources {
        self.f0.get(node as usize).copied().unwrap_or_default()
    }

    /// Nodes where a task of `task` could start now, in node order: those
    /// with free processors when the task asks for processors, else those
    /// with anything free (a superset; check [`NowIndex::free_now`]).
    pub fn open(&self, task: &Resources) -> &[NodeIdx] {
        if task.procs > 0 {
            &self.open
        } else {
            &self.open_any
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;
    use crate::model::Node;
    use crate::profile::Occupant;
    use proptest::prelude::*;

    const NOW: Time = 1_000;

    proptest! {
        /// However placements arrive and whenever the iteration re-sorts,
        /// the index re-sorted after them is the one built anew from the
        /// profile they left: refreshing only the touched nodes and merging
        /// them back into the order loses and misplaces nothing.
        #[test]
        fn a_refreshed_index_is_the_one_built_anew(
            places in prop::collection::vec(
                (0u32..8, 0i64..50, 1i64..200, 1u32..3, 0u64..400, any::<bool>()),
                1..40,
            ),
            unclaimed in any::<bool>(),
        ) {
            let nodes: Vec<Node> = (0..8)
                .map(|i| Node {
                    name: format!("n{i}"),
                    configured: Resources::procs_mem(4, 1000),
                    ..Node::default()
                })
                .collect();
            let cluster = Cluster::build(&nodes, &Config::parse("", "t.cfg").config);
            let mut profile = Profile::new(NOW, nodes.iter().map(|n| n.configured));
            let scope = if unclaimed { Scope::Unclaimed } else { Scope::All };
            let mut ix = NowIndex::new(&cluster, &profile, NOW, scope);
            for (k, &(node, start, len, procs, mem, resort)) in places.iter().enumerate() {
                let o = Occupant {
                    job: k as u32,
                    start: NOW + start,
                    end: NOW + start + len,
                    task: Resources::procs_mem(procs, mem),
                    tasks: 1,
                };
                if profile.add_job(node, o, &AdmitAll).is_ok() {
                    ix.refresh(&profile, node);
                }
                if resort {
                    ix.resort();
                }
            }
            ix.resort();
            prop_assert_eq!(ix, NowIndex::new(&cluster, &profile, NOW, scope));
        }
    }
}
