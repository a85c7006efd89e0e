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
    maui_window_of(&maui_availability(cluster, profile, now, adm), longer_than)
}

/// `(node, free processors, availability)` ([`maui_available`]) of each
/// usable node with processors free, in node order.
pub fn maui_availability(
    cluster: &Cluster,
    profile: &Profile,
    now: Time,
    adm: &dyn Admits,
) -> Vec<(NodeIdx, u32, Secs)> {
    cluster
        .nodes
        .iter()
        .filter(|n| n.usable)
        .map(|n| {
            let (p, d) = maui_available(profile, n.index, now, adm);
            (n.index, p, d)
        })
        .filter(|a| a.1 > 0)
        .collect()
}

/// Maui's next window ([`maui_available`]'s rule) from
/// [`maui_availability`]'s list, kept up to date by the caller.
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
