//! Memory freed by the iterations, handed back to the system.
//!
//! The library runs inside the resource manager's server (slurmctld, the
//! PBS scheduler), on its allocator, glibc's, which keeps what a thread
//! frees in that thread's arena. Each iteration builds and drops its
//! copies of the queue; with jobs passing through, the arenas fragment
//! and the server's resident memory creeps up with the jobs that have
//! passed, though what is kept does not (Slurm scenario 11, 5,000 jobs of
//! 0 s through 64 nodes: +20-28 % between the first 500 and the end
//! without hand-backs, +5 % handing back after every iteration, which took
//! 0.3 ms at the median and 33 ms at the 99th percentile, waiting for the
//! arenas' locks). So when the front end frees a plan (it has applied it)
//! the free pages of every arena go back to the system (`malloc_trim`) if
//! [`INTERVAL`] of the snapshots' time has passed since the last
//! hand-back, or at once when a burst has drained: the queue's active jobs
//! (waiting or running) have fallen to half their most since then.

use crate::model::Time;

/// Most of the snapshots' time between two hand-backs while iterations run:
/// at most one a second, whatever the poll rate.
const INTERVAL: Time = 1;

/// Active jobs a queue must have held before its drain is worth a
/// hand-back of its own.
const MIN_PEAK: usize = 100;

/// When to hand free memory back, from the snapshots' times and counts of
/// active jobs.
#[derive(Debug, Default)]
pub(crate) struct Trim {
    /// The most active jobs a snapshot held since the last hand-back.
    peak: usize,
    /// The snapshot time of the last hand-back.
    last: Option<Time>,
}

impl Trim {
    /// True when, after an iteration over a snapshot taken at `now` with
    /// `active` waiting or running jobs, free memory should be handed
    /// back: [`INTERVAL`] has passed since the last time (or the clock
    /// went back), or the count has fallen to half of a peak of at least
    /// [`MIN_PEAK`]. Then the count becomes the peak.
    pub(crate) fn due(&mut self, active: usize, now: Time) -> bool {
        self.peak = self.peak.max(active);
        let drained = self.peak >= MIN_PEAK && active * 2 <= self.peak;
        let waited = self.last.is_none_or(|t| now < t || now - t >= INTERVAL);
        if drained || waited {
            self.peak = active;
            self.last = Some(now);
            return true;
        }
        false
    }
}

/// Hands the free pages of every glibc arena back to the system (nothing
/// elsewhere).
pub(crate) fn release_free_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim takes no pointers and is thread-safe; it only
    // returns free pages.
    unsafe {
        libc::malloc_trim(0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn free_memory_goes_back_every_interval_and_when_a_burst_drains() {
        let mut t = Trim::default();
        // The first iteration, then once per INTERVAL however often the
        // iterations run.
        assert!(t.due(0, 1000));
        let polls: Vec<bool> = (0..30).map(|k| t.due(50, 1000 + k / 10)).collect();
        let at: Vec<usize> = (0..30).filter(|&k| polls[k]).collect();
        assert_eq!(at, [10, 20]);
        // A burst within one interval: nothing while it grows or shrinks by
        // less than half, at once when it has halved.
        assert!(![300, 500, 260].into_iter().any(|n| t.due(n, 1002)));
        assert!(t.due(250, 1002));
        // The count then is the new peak: not again until it halves again
        // (or the interval passes).
        assert!(![250, 126].into_iter().any(|n| t.due(n, 1002)));
        assert!(t.due(125, 1002));
        assert!(t.due(0, 1002));
        // Under MIN_PEAK, jobs come and go without one until the interval.
        assert!(![99, 0, 60, 1].into_iter().any(|n| t.due(n, 1002)));
        assert!(t.due(1, 1003));
        // A clock set back does not stop them.
        assert!(t.due(1, 900));
    }
}
