//! Step 5: the priority pass with job reservations.
//!
//! Jobs start in priority order while they fit. From the first job that
//! cannot start, every later start is out of order, that is backfill: it
//! follows BACKFILLPOLICY and chunking, while blocked jobs keep getting
//! reservations until RESERVATIONDEPTH is used. Under FIRSTFIT later jobs
//! still start here in order, as in Maui's `MQueueScheduleIJobs`, until a
//! job can neither start nor get a reservation ("Idle Job Reached"); from
//! then on only the backfill phase starts jobs. BESTFIT and GREEDY choose
//! in the backfill phase. Under PREEMPT the job reservations are lifted
//! before the backfill phase, so that backfill may run into them; what it
//! starts is preemptible by the jobs that hold them ([`super::preempt`]).

use super::rank::verdict_reason;
use super::reserve::Reserve;
use super::{Passes, Placer};
use crate::config::{BackfillPolicy, ReservationPolicy};
use crate::engine::plan::{Reason, Start};
use crate::model::NodeIdx;
use crate::profile::Admits;
use crate::throttle::{self, Totals, Verdict};

impl<'a, P: Placer<'a>> Passes<'_, P> {
    pub(super) fn priority_pass(&mut self) {
        let cx = self.p.cx();
        let (cfg, now) = (cx.cfg, cx.now);
        let p = &cfg.params;
        let stacks = cfg.reservation_stacks();
        let mut stack_left: Vec<u32> = stacks.iter().map(|(_, s)| s.depth).collect();
        let mut blocked_seen = false;
        // A job could neither start nor get a reservation.
        let mut idle_found = false;
        let chunking = p.bf_chunk_size > 0
            && p.bf_chunk_duration.0 > 0
            && p.backfill_policy == BackfillPolicy::FirstFit;
        let mut chunk_triggered = false;
        // Under BACKFILLPOLICY PREEMPT a job that would be given a
        // reservation (a timeslot) may preempt what was backfilled.
        let bf_preempt = p.backfill_policy == BackfillPolicy::Preempt;
        self.refresh_preemptible();
        // Jobs this scheduler suspended go back first, as in Maui.
        self.resume_suspended();
        for i in 0..self.idle().len() {
            if self.idle()[i].blocked.is_some() || !self.active_limits_allow(i) {
                continue;
            }
            let procs = self.idle()[i].procs;
            let small = self.chunk_on && procs < p.bf_chunk_size as u64;
            let may_start = !blocked_seen
                || (p.backfill_policy == BackfillPolicy::FirstFit && !small && !idle_found);
            if may_start && self.start(i, blocked_seen) {
                continue;
            }
            let never = p.reservation_policy == ReservationPolicy::Never;
            if self.preempt.is_some() {
                let slot = bf_preempt
                    && !never
                    && self.reservation_stack(i, &stacks, &stack_left).is_some();
                if self.preempt_for(i, blocked_seen, slot) {
                    continue;
                }
            }
            if !blocked_seen && !self.p.fits_now(i) {
                blocked_seen = true;
                self.decisive = Some(i);
            }
            if chunking && !chunk_triggered && procs >= p.bf_chunk_size as u64 {
                // A large job is blocked: freed resources are kept for large jobs
                // for BFCHUNKDURATION.
                chunk_triggered = true;
                let since = *self.state.chunk_since.get_or_insert(now);
                self.chunk_on = now < since + p.bf_chunk_duration.0;
            }
            let reserved = match (!never)
                .then(|| self.reservation_stack(i, &stacks, &stack_left))
                .flatten()
            {
                Some(k) => {
                    self.decisive = Some(i);
                    let made = self.reserve_turn(i, may_start);
                    if made {
                        stack_left[k] = stack_left[k].saturating_sub(1);
                    }
                    made
                }
                None => false,
            };
            // The first job that can neither start nor get a reservation
            // decides which later ones may still start here.
            if !reserved && !idle_found {
                self.decisive = Some(i);
            }
            idle_found |= !reserved;
        }
        if !chunk_triggered {
            self.state.chunk_since = None;
        }
        if bf_preempt {
            self.lift_reservations();
        }
    }

    /// Under BACKFILLPOLICY PREEMPT, before the backfill pass: the job
    /// reservations made stay in the plan (estimates, and the timeslots
    /// their jobs preempt for when it comes) but are taken out of the
    /// profile, so that backfill may start jobs that run into them.
    fn lift_reservations(&mut self) {
        let held: Vec<(usize, Vec<NodeIdx>)> = self
            .reserved
            .iter()
            .map(|(&j, r)| (j, r.2.iter().map(|a| a.0).collect()))
            .collect();
        let mut touched: Vec<NodeIdx> = Vec::new();
        let cx = self.p.cx_mut();
        for (j, nodes) in held {
            for n in nodes {
                if cx.view.profile.remove_job(n, j as crate::profile::JobIdx) {
                    touched.push(n);
                }
            }
        }
        if !touched.is_empty() {
            touched.sort_unstable();
            touched.dedup();
            self.p.freed(&touched);
        }
    }

    /// Throttling at job `i`'s turn: false when active limits keep it from
    /// starting, blocked by a hard limit or deferred to the backfill
    /// phase's second round by a soft one.
    fn active_limits_allow(&mut self, i: usize) -> bool {
        if !self.throttled {
            return true;
        }
        match self.active_verdict(i) {
            Verdict::FitsSoft => true,
            v @ Verdict::FitsHardOnly(_) => {
                if let Some(r) = verdict_reason(&v) {
                    self.soft_deferred.insert(i, r);
                }
                false
            }
            v @ Verdict::Blocked(_) => {
                self.p.cx_mut().idle[i].blocked = verdict_reason(&v);
                false
            }
        }
    }

    /// Active (running) limits applied to job `i` with what started so far.
    pub(super) fn active_verdict(&self, i: usize) -> Verdict {
        let cx = self.p.cx();
        let job = &cx.jobs[cx.idle[i].j];
        let default_wall = cx.cfg.params.system_default_job_walltime.0;
        let demand = Totals::of_job(job, cx.now, default_wall, &cx.view.cluster.total);
        throttle::check_active(cx.cfg, job, &demand, &self.usage)
    }

    /// The first reservation stack admitting job `i`'s QOS that still has
    /// room (a job that ever held one keeps it under RESERVATIONPOLICY
    /// HIGHEST). Once the stacks are used, most jobs end here: the job
    /// itself is looked at only where needed.
    fn reservation_stack(
        &self,
        i: usize,
        stacks: &[(String, crate::config::ResStack)],
        stack_left: &[u32],
    ) -> Option<usize> {
        let cx = self.p.cx();
        let job = &cx.jobs[cx.idle[i].j];
        let keep = cx.cfg.params.reservation_policy == ReservationPolicy::Highest
            && self.state.ever_reserved.contains_key(&job.id);
        let admits = |k: usize| {
            stacks[k].1.qos.0.is_empty()
                || stacks[k]
                    .1
                    .qos
                    .contains(job.qos.as_deref().unwrap_or("DEFAULT"))
        };
        (0..stacks.len())
            .find(|&k| stack_left[k] > 0 && admits(k))
            .or_else(|| {
                keep.then(|| (0..stacks.len()).find(|&k| admits(k)))
                    .flatten()
            })
    }

    /// Job `i`'s reservation at its turn: true when one was made.
    fn reserve_turn(&mut self, i: usize, may_start: bool) -> bool {
        match self.reserve(i, may_start) {
            Reserve::Made(r) => {
                let cx = self.p.cx();
                let (j, now) = (cx.idle[i].j, cx.now);
                let id = cx.jobs[j].id.clone();
                self.reserved.insert(j, r);
                self.state.ever_reserved.entry(id).or_insert(now);
                true
            }
            Reserve::FitsNow | Reserve::Later => false,
            Reserve::Never => {
                self.p.cx_mut().idle[i].blocked = Some(Reason::NoFit {
                    detail:
                        "no time at which its nodes could hold it (reservations and node limits)"
                            .into(),
                });
                false
            }
        }
    }

    /// Starts job `i` now if it fits (`backfill`: out of priority order):
    /// counts it against the active limits and notes the start, with the
    /// reservation it runs in.
    pub(super) fn start(&mut self, i: usize, backfill: bool) -> bool {
        let Some(nodes) = self.p.start_now(i) else {
            return false;
        };
        self.note_start(i, backfill, nodes)
    }

    /// Backfills job `i` now on `window`'s nodes (sorted; `None`: any) if
    /// it fits there (its host list still applies). Unlike
    /// [`Passes::start`], what the placer learnt from failed starts is not
    /// consulted.
    pub(super) fn start_within(
        &mut self,
        i: usize,
        window: Option<&[NodeIdx]>,
    ) -> Option<Vec<NodeIdx>> {
        if !self.p.may_fit_now(i) {
            return None;
        }
        let only: Option<Vec<NodeIdx>> = window.map(|w| match &self.idle()[i].req.hosts {
            Some(h) => w
                .iter()
                .copied()
                .filter(|n| h.binary_search(n).is_ok())
                .collect(),
            None => w.to_vec(),
        });
        let now = self.p.cx().now;
        let nodes = self.p.place(i, now, only.as_deref())?;
        let placed = nodes.iter().map(|n| n.0).collect();
        self.note_start(i, true, nodes);
        Some(placed)
    }

    /// Counts job `i`, started on `nodes`, against the active limits and
    /// notes the start.
    pub(super) fn note_start(
        &mut self,
        i: usize,
        backfill: bool,
        nodes: Vec<(NodeIdx, u32)>,
    ) -> bool {
        let cx = self.p.cx();
        let (j, now, wall) = (cx.idle[i].j, cx.now, cx.idle[i].wall);
        let job = &cx.jobs[j];
        if self.throttled {
            let default_wall = cx.cfg.params.system_default_job_walltime.0;
            let mut t = Totals::of_job(job, now, default_wall, &cx.view.cluster.total);
            t.nodes = nodes.len() as u64;
            self.usage.add_active(job, &t);
        }
        let reservation = job.advres.clone().or_else(|| {
            let adm = cx.adm(j);
            nodes.iter().find_map(|&(n, _)| {
                cx.view
                    .profile
                    .claims_at(n, now)
                    .into_iter()
                    .find(|(r, _)| adm.admits(*r, now, now + wall).is_some())
                    .map(|(r, _)| cx.view.table[r as usize].id.clone())
            })
        });
        let start = Start {
            job: job.id.clone(),
            allocation: cx.named(&nodes),
            backfill,
            reservation,
            after: Vec::new(),
        };
        self.started.insert(j, start);
        true
    }
}
