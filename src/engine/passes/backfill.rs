//! Step 6: backfill, soft limits first, then hard; and the bypass counts
//! it leaves.

use super::{Passes, Placer};
use crate::backfill::{self, BfJob};
use crate::config::BackfillPolicy;
use std::collections::BTreeSet;

impl<'a, P: Placer<'a>> Passes<'_, P> {
    pub(super) fn backfill_pass(&mut self) {
        let p = &self.p.cx().cfg.params;
        if p.backfill_policy == BackfillPolicy::None {
            return;
        }
        for hard in [false, true] {
            let order = self.backfill_order(hard);
            match p.backfill_policy {
                BackfillPolicy::FirstFit => {
                    for i in order {
                        if self.admissible(i, hard) {
                            self.start(i, true);
                        }
                    }
                }
                policy => self.choose_by_window(order, policy, hard),
            }
        }
    }

    /// The jobs the backfill round (`hard`: the one under hard limits)
    /// considers, in priority order, up to BACKFILLDEPTH.
    fn backfill_order(&self, hard: bool) -> Vec<usize> {
        let p = &self.p.cx().cfg.params;
        let idle = self.idle();
        (0..idle.len())
            .filter(|&i| {
                let x = &idle[i];
                x.blocked.is_none()
                    && !self.started.contains_key(&x.j)
                    && !self.reserved.contains_key(&x.j)
                    && (hard || !self.soft_deferred.contains_key(&i))
                    && (!self.chunk_on || x.procs >= p.bf_chunk_size as u64)
            })
            .take(if p.backfill_depth == 0 {
                usize::MAX
            } else {
                p.backfill_depth as usize
            })
            .collect()
    }

    /// BESTFIT / GREEDY: traverse the backfill windows widest first; choose
    /// among the jobs that fit each window.
    fn choose_by_window(&mut self, mut pool: Vec<usize>, policy: BackfillPolicy, hard: bool) {
        let cx = self.p.cx();
        let (now, metric) = (cx.now, cx.cfg.params.backfill_metric);
        loop {
            let cx = self.p.cx();
            let windows = backfill::windows(&cx.view.cluster, &cx.view.profile, now);
            let mut progress = false;
            for w in &windows {
                let idle = self.idle();
                let fits: Vec<BfJob> = pool
                    .iter()
                    .filter(|&&i| idle[i].wall <= w.duration && idle[i].procs <= w.procs)
                    .map(|&i| BfJob {
                        key: i,
                        procs: idle[i].procs,
                        seconds: idle[i].wall,
                    })
                    .collect();
                let chosen = match policy {
                    BackfillPolicy::Greedy => backfill::greedy(&fits, w.procs, metric),
                    _ => backfill::best_first(&fits, metric),
                };
                for i in chosen {
                    pool.retain(|&x| x != i);
                    if self.admissible(i, hard) && self.start(i, true) {
                        progress = true;
                        break;
                    }
                }
                if progress {
                    break;
                }
            }
            if !progress || pool.is_empty() {
                break;
            }
        }
    }

    /// Throttling admits job `i` in this backfill round.
    fn admissible(&self, i: usize, hard: bool) -> bool {
        !self.throttled || self.active_verdict(i).allows(hard)
    }

    /// A job passed over by a lower-priority backfilled job is bypassed
    /// (once per iteration, however many jobs passed it).
    pub(super) fn count_bypasses(&mut self) {
        let idle = &self.p.cx().idle;
        let jobs = self.p.cx().jobs;
        let last_backfilled = (0..idle.len())
            .filter(|&i| self.started.get(&idle[i].j).is_some_and(|s| s.backfill))
            .max();
        let mut bypassed: BTreeSet<usize> = BTreeSet::new();
        if let Some(last) = last_backfilled {
            for x in &idle[..last] {
                if x.blocked.is_none() && !self.started.contains_key(&x.j) {
                    bypassed.insert(x.j);
                }
            }
        }
        for j in &bypassed {
            *self
                .state
                .bypass
                .entry(jobs[*j].id.clone())
                .or_insert(jobs[*j].bypass_count) += 1;
        }
    }
}
