//! Step 6: backfill, soft limits first, then hard; and the bypass counts
//! it leaves.

use super::{Passes, Placer};
use crate::backfill::{self, BfJob};
use crate::config::BackfillPolicy;
use crate::model::{NodeIdx, Secs};
use crate::reservation::acl::JobAdmission;
use std::collections::BTreeSet;

impl<'a, P: Placer<'a>> Passes<'_, P> {
    pub(super) fn backfill_pass(&mut self) {
        let p = &self.p.cx().cfg.params;
        if p.backfill_policy == BackfillPolicy::None {
            return;
        }
        for hard in [false, true] {
            match p.backfill_policy {
                // Under PREEMPT every job was tried in the priority pass;
                // this takes those soft limits deferred, as FIRSTFIT.
                BackfillPolicy::FirstFit | BackfillPolicy::Preempt => {
                    self.first_fit_by_window(hard)
                }
                policy => {
                    let order = self.backfill_order(hard);
                    self.choose_by_window(order, policy, hard)
                }
            }
        }
    }

    /// The jobs the backfill round (`hard`: the one under hard limits)
    /// considers, in priority order, up to BACKFILLDEPTH.
    fn backfill_order(&self, hard: bool) -> Vec<usize> {
        let depth = self.backfill_depth();
        (0..self.idle().len())
            .filter(|&i| self.may_backfill(i, hard))
            .take(depth)
            .collect()
    }

    /// BACKFILLDEPTH as a count (0: every job).
    fn backfill_depth(&self) -> usize {
        match self.p.cx().cfg.params.backfill_depth {
            0 => usize::MAX,
            d => d as usize,
        }
    }

    /// Job `i` waits, holds no reservation and may be backfilled in this
    /// round (`hard`: the one under hard limits) as far as chunking goes.
    fn may_backfill(&self, i: usize, hard: bool) -> bool {
        let p = &self.p.cx().cfg.params;
        let x = &self.idle()[i];
        x.blocked.is_none()
            && !self.started.contains_key(&x.j)
            && !self.reserved.contains_key(&x.j)
            && (hard || !self.soft_deferred.contains_key(&i))
            && (!self.chunk_on || x.procs >= p.bf_chunk_size as u64)
    }

    /// FIRSTFIT as Maui's `MQueueBackFill` and `MBFFirstFit` run it: window
    /// after window ([`backfill::maui_window_of`]: every node with processors
    /// free, for as long as the first of them stays available, then the
    /// nodes available longer, for as long as the first of those, and so
    /// on), the jobs in priority order whose walltime (at the window's
    /// fastest node's speed) and processors fit the window, up to
    /// BACKFILLDEPTH of them, each started on the window's nodes if it fits
    /// there now.
    ///
    /// A job is tried in one window at most: the next windows hold some of
    /// this one's nodes (a node's availability only shortens as jobs start)
    /// with no more free, so where it did not fit it would not fit again.
    fn first_fit_by_window(&mut self, hard: bool) {
        let depth = self.backfill_depth();
        // The jobs that may still be in a window's list, in priority
        // order: whether a job may be backfilled only turns false as jobs
        // start, and a window holds no more processors than the one
        // before it, so a job that drops out of this list never returns.
        let mut live: Vec<usize> = (0..self.idle().len())
            .filter(|&i| self.may_backfill(i, hard))
            .collect();
        if live.is_empty() {
            return;
        }
        let mut longer_than: Secs = 0;
        let mut tried = vec![false; self.idle().len()];
        let mut first = true;
        // Each usable node with processors free: (node, free processors,
        // availability), brought up to date on the nodes of each start.
        let cx = self.p.cx();
        let wjob = crate::engine::backfill_window_job(self.p.cx().cfg);
        let avail = backfill::maui_availability(
            &cx.view.cluster,
            &cx.view.profile,
            cx.now,
            &JobAdmission::new(&cx.view.table, &wjob),
            self.p.with_free_procs(),
        );
        let mut windows =
            backfill::MauiWindows::new(avail, |n| cx.view.cluster.nodes[n as usize].speed);
        while let Some(w) = windows.window(longer_than) {
            let limit = match w.duration {
                Secs::MAX => Secs::MAX,
                d => (d as f64 * w.speed) as Secs,
            };
            let idle = self.idle();
            // Only a job tried here can have started since `live` was made
            // (each start is of the job tried; nothing else that
            // `may_backfill` reads changes during backfill), so only tried
            // jobs are asked again.
            live.retain(|&i| idle[i].procs <= w.procs && (!tried[i] || self.may_backfill(i, hard)));
            if live.iter().all(|&i| tried[i]) {
                // No job is left to try in this window or a later one.
                break;
            }
            let fits: Vec<usize> = live
                .iter()
                .copied()
                .filter(|&i| idle[i].wall <= limit)
                .take(depth)
                .collect();
            // The window's nodes, when a job is first tried in it (before
            // any start in it changes the availabilities).
            let mut nodes: Option<Vec<NodeIdx>> = None;
            for i in fits {
                if std::mem::replace(&mut tried[i], true) {
                    continue;
                }
                if self.started.contains_key(&self.idle()[i].j) || !self.admissible(i, hard) {
                    continue;
                }
                // The first window holds every node with processors free
                // that no reservation claims: for a job no reservation
                // admits, that is every node it could use.
                let everywhere = first && !self.p.admitted_anywhere(i);
                let within = match everywhere {
                    true => None,
                    false => Some(&nodes.get_or_insert_with(|| windows.nodes(longer_than))[..]),
                };
                if let Some(placed) = self.start_within(i, within) {
                    let cx = self.p.cx();
                    let adm = JobAdmission::new(&cx.view.table, &wjob);
                    windows.refresh(&placed, |n| {
                        backfill::maui_available(&cx.view.profile, n, cx.now, &adm)
                    });
                }
            }
            if depth == usize::MAX {
                // Tried jobs only count towards a BACKFILLDEPTH.
                live.retain(|&i| !tried[i]);
            }
            first = false;
            if w.duration == Secs::MAX {
                break;
            }
            longer_than = w.duration;
        }
    }

    /// BESTFIT / GREEDY: traverse the backfill windows widest first; choose
    /// among the jobs that fit each window.
    fn choose_by_window(&mut self, mut pool: Vec<usize>, policy: BackfillPolicy, hard: bool) {
        let cx = self.p.cx();
        let (now, metric) = (cx.now, cx.cfg.params.backfill_metric);
        let wjob = crate::engine::backfill_window_job(self.p.cx().cfg);
        loop {
            let cx = self.p.cx();
            let adm = JobAdmission::new(&cx.view.table, &wjob);
            let windows = backfill::windows(&cx.view.cluster, &cx.view.profile, now, &adm);
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
