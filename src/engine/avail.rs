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
    /// (t1, cumulative procs drop, cumulative mem drop) in t1 order.
    sorted: Vec<(Time, u64, u64)>,
    total: (u64, u64),
    stale: usize,
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
            sorted: Vec::new(),
            total: (0, 0),
            stale: 0,
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

    /// Rebuilds the sorted bounds and the open list from the node values.
    fn resort(&mut self) {
        self.open.clear();
        self.open_any.clear();
        let mut order: Vec<usize> = Vec::new();
        let (mut tp, mut tm) = (0u64, 0u64);
        for (k, f) in self.f0.iter().enumerate() {
            if f.is_zero() {
                continue;
            }
            if f.procs > 0 {
                self.open.push(k as NodeIdx);
            }
            self.open_any.push(k as NodeIdx);
            tp += f.procs as u64;
            tm += f.mem;
            order.push(k);
        }
        order.sort_unstable_by_key(|&k| (self.t1[k], k));
        self.sorted.clear();
        let (mut dp, mut dm) = (0u64, 0u64);
        for k in order {
            if self.t1[k] == Time::MAX {
                break;
            }
            let lo = Resources::min_each(&self.f0[k], &self.g[k]);
            dp += (self.f0[k].procs - lo.procs) as u64;
            dm += self.f0[k].mem - lo.mem;
            self.sorted.push((self.t1[k], dp, dm));
        }
        self.total = (tp, tm);
        self.stale = 0;
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
