//! Backfill (8.2): windows of idle resources and the choice of jobs to fill
//! them. The iteration (`engine`) owns the passes; this module holds the
//! pure parts: finding the windows and choosing among the jobs that fit.
//!
//! A backfill window is a node-time rectangle of resources idle now and not
//! reserved: a set of nodes and how long all of them stay free. The windows
//! overlap (seed 8.2.2, two running jobs and a reservation on 8 nodes over
//! 2 hours give a 4-node 1-hour window and a 1-node unlimited one); Maui
//! traverses them widest first.

use crate::config::BackfillMetric;
use crate::model::{Cluster, NodeIdx, Resources, Secs, Time};
use crate::profile::{Admits, Profile, INFINITY};

/// A backfill window.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Window {
    /// Nodes in the window.
    pub nodes: Vec<NodeIdx>,
    /// Idle unreserved processors on them.
    pub procs: u64,
    /// How long they all stay free (seconds; `Secs::MAX` for unlimited).
    pub duration: Secs,
}

/// How long node `n`'s currently free processors stay free (at least that
/// many) to a job `adm` admits.
fn free_for(profile: &Profile, n: NodeIdx, now: Time, adm: &dyn Admits) -> (u32, Secs) {
    let f0 = profile.free(n, now, now + 1, adm).procs;
    if f0 == 0 {
        return (0, 0);
    }
    let mut t = now;
    for _ in 0..64 {
        match profile.next_change(n, t) {
            None => return (f0, Secs::MAX),
            Some(INFINITY) => return (f0, Secs::MAX),
            Some(c) => {
                if profile.free(n, c, c + 1, adm).procs < f0 {
                    return (f0, c - now);
                }
                t = c;
            }
        }
    }
    (f0, t - now)
}

/// How long node `n`'s free processors count as available to Maui's
/// backfill window search (`MBFGetWindow`, which takes the length of the
/// first range `MJobGetNRange` finds for a one-processor task lasting a
/// second): until the first drop in the processors free, or until the
/// second change when the first is a gain, a gain at a time when something
/// also starts not counting ([`Profile::maui_range`]). `adm` is the
/// admission of Maui's window pseudo-job ([`crate::reservation::acl::window_job`]).
/// `(free processors now, seconds)`, `Secs::MAX` when nothing ends it.
pub fn maui_available(profile: &Profile, n: NodeIdx, now: Time, adm: &dyn Admits) -> (u32, Secs) {
    profile
        .maui_range(n, now, &Resources::procs(1), 1, 1, 1, adm)
        .unwrap_or((0, 0))
}

/// Maui's next FIRSTFIT backfill window (`MBFGetWindow`): the usable nodes
/// with processors free now whose availability ([`maui_available`]) lasts
/// longer than `longer_than`, for as long as the shortest of them; `None`
/// when there is none. Maui's backfill takes these windows one after the
/// other, each time starting from the last one's duration.
#[cfg(test)]
pub fn maui_window(
    cluster: &Cluster,
    profile: &Profile,
    now: Time,
    longer_than: Secs,
    adm: &dyn Admits,
) -> Option<Window> {
    maui_window_of(
        &maui_availability(cluster, profile, now, adm, None),
        longer_than,
    )
}

/// `(node, free processors, availability)` ([`maui_available`]) of each
/// usable node with processors free, in node order. `with_free`: in node
/// order, a superset of the nodes with processors free now (whatever the
/// reservations), the only ones looked at; `None`: every node.
pub fn maui_availability(
    cluster: &Cluster,
    profile: &Profile,
    now: Time,
    adm: &dyn Admits,
    with_free: Option<&[NodeIdx]>,
) -> Vec<(NodeIdx, u32, Secs)> {
    // Generic over the node source, so each arm gets its own inlined loop.
    fn of<'a>(
        nodes: impl Iterator<Item = &'a crate::model::EffNode>,
        profile: &Profile,
        now: Time,
        adm: &dyn Admits,
    ) -> Vec<(NodeIdx, u32, Secs)> {
        nodes
            .filter(|n| n.usable)
            .map(|n| {
                let (p, d) = maui_available(profile, n.index, now, adm);
                (n.index, p, d)
            })
            .filter(|a| a.1 > 0)
            .collect()
    }
    match with_free {
        None => of(cluster.nodes.iter(), profile, now, adm),
        Some(w) => of(
            w.iter().filter_map(|&n| cluster.nodes.get(n as usize)),
            profile,
            now,
            adm,
        ),
    }
}

/// Maui's next window ([`maui_available`]'s rule) from
/// [`maui_availability`]'s list, kept up to date by the caller.
#[cfg(test)]
pub fn maui_window_of(avail: &[(NodeIdx, u32, Secs)], longer_than: Secs) -> Option<Window> {
    let mut nodes = Vec::new();
    let (mut procs, mut duration) = (0u64, Secs::MAX);
    for &(n, p, d) in avail {
        if p > 0 && d > longer_than {
            nodes.push(n);
            procs += p as u64;
            duration = duration.min(d);
        }
    }
    (!nodes.is_empty()).then_some(Window {
        nodes,
        procs,
        duration,
    })
}

/// A FIRSTFIT window's size, without its nodes ([`MauiWindows::window`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WindowSize {
    /// Processors free on the window's nodes.
    pub procs: u64,
    /// How long they all stay available (`Secs::MAX`: unlimited).
    pub duration: Secs,
    /// The fastest of the window's nodes.
    pub speed: f64,
}

/// Maui's FIRSTFIT windows ([`maui_window_of`]) over an availability list
/// ([`maui_availability`]), found by a binary search over the nodes
/// sorted by availability instead of a pass over every node: a large
/// cluster has as many windows as distinct availabilities, and most
/// windows are passed over without a job being tried in them.
#[derive(Clone, Debug)]
pub struct MauiWindows {
    /// `(node, free processors, availability)` in node order.
    avail: Vec<(NodeIdx, u32, Secs)>,
    /// Speed of each entry's node.
    speed: Vec<f64>,
    /// `(availability, entry)` of the entries with processors free,
    /// shortest first.
    by_availability: Vec<(Secs, usize)>,
    /// Processors free on `by_availability[k..]`.
    procs_from: Vec<u64>,
    /// Fastest node of `by_availability[k..]`.
    speed_from: Vec<f64>,
    /// `procs_from` and `speed_from` are out of date (entries refreshed).
    stale: bool,
}

impl MauiWindows {
    /// The windows of `avail`, each node's speed given by `speed`.
    pub fn new(avail: Vec<(NodeIdx, u32, Secs)>, speed: impl Fn(NodeIdx) -> f64) -> MauiWindows {
        let speed = avail.iter().map(|a| speed(a.0)).collect();
        let mut w = MauiWindows {
            avail,
            speed,
            by_availability: Vec::new(),
            procs_from: Vec::new(),
            speed_from: Vec::new(),
            stale: true,
        };
        w.by_availability.extend(
            w.avail
                .iter()
                .enumerate()
                .filter(|(_, a)| a.1 > 0)
                .map(|(k, a)| (a.2, k)),
        );
        w.by_availability.sort_unstable();
        w.sums();
        w
    }

    /// The suffix sums of `by_availability`.
    fn sums(&mut self) {
        self.stale = false;
        let n = self.by_availability.len();
        self.procs_from.clear();
        self.procs_from.resize(n + 1, 0);
        self.speed_from.clear();
        self.speed_from.resize(n + 1, f64::MIN);
        for k in (0..n).rev() {
            let e = self.by_availability[k].1;
            self.procs_from[k] = self.procs_from[k + 1] + self.avail[e].1 as u64;
            self.speed_from[k] = self.speed_from[k + 1].max(self.speed[e]);
        }
    }

    /// The size of the window of the nodes available longer than
    /// `longer_than` (as [`maui_window_of`]); `None` when there is none.
    pub fn window(&mut self, longer_than: Secs) -> Option<WindowSize> {
        if self.stale {
            self.sums();
        }
        let k = self
            .by_availability
            .partition_point(|&(d, _)| d <= longer_than);
        let &(duration, _) = self.by_availability.get(k)?;
        Some(WindowSize {
            procs: self.procs_from[k],
            duration,
            speed: self.speed_from[k],
        })
    }

    /// The nodes of that window, in node order.
    pub fn nodes(&self, longer_than: Secs) -> Vec<NodeIdx> {
        self.avail
            .iter()
            .filter(|&&(_, p, d)| p > 0 && d > longer_than)
            .map(|a| a.0)
            .collect()
    }

    /// Brings the entries of `nodes` up to date (`available` gives a
    /// node's free processors and availability).
    pub fn refresh(&mut self, nodes: &[NodeIdx], available: impl Fn(NodeIdx) -> (u32, Secs)) {
        for &node in nodes {
            // Entries are in node order.
            let Ok(e) = self.avail.binary_search_by_key(&node, |a| a.0) else {
                continue;
            };
            let (p, d) = available(node);
            let old = self.avail[e];
            if (old.1, old.2) == (p, d) {
                continue;
            }
            if old.1 > 0 {
                if let Ok(k) = self.by_availability.binary_search(&(old.2, e)) {
                    self.by_availability.remove(k);
                }
            }
            if p > 0 {
                let k = self.by_availability.partition_point(|x| *x < (d, e));
                self.by_availability.insert(k, (d, e));
            }
            self.avail[e] = (node, p, d);
            self.stale = true;
        }
    }
}

/// The backfill windows at `now` of resources `adm` admits (see
/// [`maui_available`]), widest (most processors) first.
pub fn windows(cluster: &Cluster, profile: &Profile, now: Time, adm: &dyn Admits) -> Vec<Window> {
    let mut free: Vec<(Secs, NodeIdx, u32)> = cluster
        .nodes
        .iter()
        .filter(|n| n.usable)
        .filter_map(|n| {
            let (p, d) = free_for(profile, n.index, now, adm);
            (p > 0 && d > 0).then_some((d, n.index, p))
        })
        .collect();
    // Longest-lasting first; each distinct duration closes a window made of
    // every node lasting at least that long.
    free.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    let mut out = Vec::new();
    let mut nodes = Vec::new();
    let mut procs = 0u64;
    for (k, &(d, n, p)) in free.iter().enumerate() {
        nodes.push(n);
        procs += p as u64;
        if free.get(k + 1).is_none_or(|next| next.0 != d) {
            let mut ns = nodes.clone();
            ns.sort();
            out.push(Window {
                nodes: ns,
                procs,
                duration: d,
            });
        }
    }
    out.sort_by(|a, b| b.procs.cmp(&a.procs).then(a.duration.cmp(&b.duration)));
    out
}

/// A job that could go into a window: its caller key (priority position),
/// processors and walltime.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BfJob {
    /// Caller's key (lower = higher priority).
    pub key: usize,
    /// Processors.
    pub procs: u64,
    /// Walltime in seconds.
    pub seconds: Secs,
}

/// Degree of fit of a job by BACKFILLMETRIC (larger fits better).
pub fn metric(j: &BfJob, m: BackfillMetric) -> u128 {
    let (p, s) = (j.procs as u128, j.seconds.max(0) as u128);
    match m {
        BackfillMetric::Procs | BackfillMetric::Pe | BackfillMetric::Nodes => p,
        BackfillMetric::ProcSeconds | BackfillMetric::PeSeconds => p * s,
        BackfillMetric::Seconds => s,
    }
}

/// BESTFIT: the jobs that fit, best degree of fit first (priority breaks ties).
pub fn best_first(fits: &[BfJob], m: BackfillMetric) -> Vec<usize> {
    let mut v: Vec<&BfJob> = fits.iter().collect();
    v.sort_by(|a, b| metric(b, m).cmp(&metric(a, m)).then(a.key.cmp(&b.key)));
    v.into_iter().map(|j| j.key).collect()
}

/// GREEDY: the combination of jobs whose processors fit in `capacity` and
/// whose total degree of fit is largest (0/1 knapsack over the first 48
/// jobs in priority order), best first.
pub fn greedy(fits: &[BfJob], capacity: u64, m: BackfillMetric) -> Vec<usize> {
    let mut items: Vec<&BfJob> = fits.iter().collect();
    items.sort_by_key(|j| j.key);
    items.truncate(48);
    if items.is_empty() || capacity == 0 {
        return Vec::new();
    }
    // Scale processors so the table stays small on large windows.
    let scale = capacity.div_ceil(4096).max(1);
    let cap = (capacity / scale) as usize;
    let w: Vec<usize> = items
        .iter()
        .map(|j| j.procs.div_ceil(scale) as usize)
        .collect();
    let val: Vec<u128> = items.iter().map(|j| metric(j, m).max(1)).collect();
    // best[c] = (value, chosen set as a bitmask) with capacity c.
    let mut best: Vec<(u128, u64)> = vec![(0, 0); cap + 1];
    for (k, (&wk, &vk)) in w.iter().zip(&val).enumerate() {
        if wk > cap {
            continue;
        }
        for c in (wk..=cap).rev() {
            let cand = best[c - wk].0 + vk;
            if cand > best[c].0 {
                best[c] = (cand, best[c - wk].1 | (1u64 << k));
            }
        }
    }
    let set = best[cap].1;
    let mut chosen: Vec<&BfJob> = items
        .iter()
        .enumerate()
        .filter(|(k, _)| set & (1u64 << k) != 0)
        .map(|(_, j)| *j)
        .collect();
    chosen.sort_by(|a, b| metric(b, m).cmp(&metric(a, m)).then(a.key.cmp(&b.key)));
    chosen.into_iter().map(|j| j.key).collect()
}

#[cfg(test)]
mod tests;
