//! How long a node stays available to a job as Maui 3.3 measures it
//! (`MJobGetNRange` and `MJobGetSNRange` in `MJob.c`): the length its
//! FIRSTFIT backfill windows and its LASTAVAILABLE node order are built on.
//!
//! Maui walks a node's reservation events (job and reservation starts and
//! ends) from now and cuts the time into ranges of equal task counts, by
//! rules of its own, then merges the first range with those after it:
//!
//! - a range opens now with the tasks free now, if at least the `probe`
//!   tasks asked for are;
//! - at a time when Maui counts resources as taken ([`Profile::takes_at`]:
//!   a placement starts, a reservation the job may not use begins, one it
//!   may use ends, or a reservation's share of the node changes as jobs
//!   inside it start or end), the range ends for good when fewer than
//!   `probe` tasks are left; otherwise a new range begins when the count
//!   changes and either it drops, or the new or the old count is short of
//!   the job's task count. A gain at such a time is ignored when the job
//!   is no wider than both;
//! - at a time when resources are only released, a new range begins when
//!   the count grows (or drops, under the same condition as above). The
//!   first change after now counts as a taking on a node of a reservation
//!   that ended since the last iteration, when a job started there now
//!   ([`Profile::set_just_ended`]);
//! - the merge joins the second range to the first when it holds no fewer
//!   tasks or the first is shorter than the walltime, and each later range
//!   while the merged one is still shorter than the walltime (it compares
//!   the later ones with the slot it has already emptied, so their counts
//!   never qualify them). The merged range holds the fewest tasks of its
//!   parts. The first range is dropped when the ranges that follow it
//!   without a break are together shorter than the walltime.
//!
//! `MJobGetNRange` then searches by bisection for the most tasks such a
//! range holds, up to the job's task count.

use super::{Admits, Affinity, Profile, Rank, INFINITY, UNCLAIMED};
use crate::model::{NodeIdx, Resources, Secs, Time};

/// Reservation events Maui considers on a node (`MSched.ResDepth << 1`
/// with the default RESDEPTH 24, a little more for safety).
const EVENTS: usize = 64;

impl Profile {
    /// Maui's first availability range on `node` from `now` for `probe`
    /// tasks of `task`, for a job of `tasks` tasks and walltime `wall`:
    /// `(tasks it holds throughout, seconds)`, `Secs::MAX` when nothing
    /// ends it; `None` when fewer than `probe` tasks are free now or the
    /// time they stay free, without a break, is shorter than `wall`.
    #[allow(clippy::too_many_arguments)]
    pub fn maui_range<A: Admits + ?Sized>(
        &self,
        node: NodeIdx,
        now: Time,
        task: &Resources,
        tasks: u32,
        probe: u32,
        wall: Secs,
        adm: &A,
    ) -> Option<(u32, Secs)> {
        let mut steps = self
            .free_steps(node, now, adm)
            .map(|(t, f)| (t, task.times_fits_in(&f)));
        let (_, tc0) = steps.next()?;
        if tc0 < probe {
            return None;
        }
        // Each range's start and task count; the last ends at `end`.
        let mut ranges: Vec<(Time, u32)> = vec![(now, tc0)];
        let mut end = INFINITY;
        let mut cur = tc0;
        // Jobs started now, left unchecked behind a reservation that has
        // just ended (see `Profile::set_just_ended`).
        let mut unchecked = self.just_ended.binary_search(&node).is_ok()
            && self
                .line(node)
                .is_some_and(|l| l.jobs.iter().any(|o| o.start == now));
        for (c, f) in steps.take(EVENTS) {
            if c == INFINITY {
                break;
            }
            let narrow = |f: u32| f < tasks || cur < tasks;
            let takes = std::mem::take(&mut unchecked) || self.takes_at(node, c, adm);
            let split = if takes {
                if f < probe {
                    end = c;
                    break;
                }
                f != cur && (f < cur || narrow(f))
            } else {
                f > cur || (f < cur && narrow(f))
            };
            if split {
                ranges.push((c, f));
                cur = f;
            }
        }
        let secs = |t: Time| if t == INFINITY { Secs::MAX } else { t - now };
        if secs(end) < wall {
            return None;
        }
        let range_end = |k: usize| ranges.get(k + 1).map_or(end, |r| r.0);
        let (mut stop, mut count) = (range_end(0), tc0);
        for (k, &(_, tc)) in ranges.iter().enumerate().skip(1) {
            if (k == 1 && tc >= tc0) || secs(stop) < wall {
                stop = range_end(k);
                count = count.min(tc);
            } else {
                break;
            }
        }
        Some((count, secs(stop)))
    }

    /// Maui's availability of `node` to a job of `tasks` tasks of `task`
    /// (`tasks_per_node` of them on each node, if set) and walltime `wall`
    /// (`MJobGetNRange`): the most tasks a [`Profile::maui_range`] holds,
    /// found by bisection, and that range's length. `None` when no task is
    /// available long enough.
    #[allow(clippy::too_many_arguments)]
    pub fn maui_availability<A: Admits + ?Sized>(
        &self,
        node: NodeIdx,
        now: Time,
        task: &Resources,
        tasks: u32,
        tasks_per_node: Option<u32>,
        wall: Secs,
        adm: &A,
    ) -> Option<(u32, Secs)> {
        let tpn = tasks_per_node.unwrap_or(0);
        let free = self.tasks_fit(node, now, now.saturating_add(1), task, adm);
        let mut max = tasks.max(tpn).min(free);
        let (mut min, mut length) = (0u32, 0 as Secs);
        while max > min.max(tpn.saturating_sub(1)) {
            let mut probe = (max + min).div_ceil(2);
            if tpn > 0 {
                let next = tpn * (min / tpn + 1);
                probe = if next > probe {
                    next
                } else {
                    probe - probe % tpn
                };
            }
            match self.maui_range(node, now, task, tasks, probe, wall.max(1), adm) {
                Some((count, secs)) => (min, length) = (count, secs),
                None => {
                    max = probe - 1;
                    if tpn > 0 {
                        max -= max % tpn;
                    }
                }
            }
        }
        if tpn > 0 {
            min -= min % tpn;
        }
        (max > 0 && length > 0).then_some((min, length))
    }

    /// The reservation affinity Maui 3.3 gives a job on `node` for a
    /// reservation that begins only after the job would end (`start`,
    /// `end`): `MJobGetSNRange` checks access to every reservation it meets
    /// on the node's event list, and for one that does not overlap the job
    /// it takes the whole reservation as the overlap ("be generous"), so a
    /// job a later reservation admits is drawn to its nodes, a standing
    /// reservation's users to its nodes between two of its periods. The
    /// first such reservation after `end` that admits the job gives the
    /// affinity; `None` when none comes before a time the job's task would
    /// not fit on the node (where Maui's range search stops).
    pub fn affinity_after<A: Admits + ?Sized>(
        &self,
        node: NodeIdx,
        (start, end): (Time, Time),
        task: &Resources,
        adm: &A,
    ) -> Option<Affinity> {
        let line = self.line(node)?;
        let from = Self::seg_at(line, end.max(self.origin));
        for seg in line.segs[from..].iter().take(EVENTS) {
            let t = seg.start.max(end);
            if !task.fits_in(&self.seg_free(seg, adm, t, t.saturating_add(1))) {
                return None;
            }
            for c in &seg.cells {
                if c.stack == UNCLAIMED || c.cap.is_zero() {
                    continue;
                }
                if let Some(r) = self.rank(c.stack, adm, start, end) {
                    return Some(match r {
                        Rank::Positive => Affinity::Positive,
                        Rank::Negative => Affinity::Negative,
                        _ => Affinity::Neutral,
                    });
                }
            }
        }
        None
    }
}
