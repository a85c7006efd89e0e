//! Effective queue time under JOBPRIOACCRUALPOLICY.
//!
//! Maui does not use the raw time since submission for the QUEUETIME,
//! XFACTOR, TARGETQUEUETIME and TARGETXFACTOR subcomponents but an
//! *effective* queue time, so that holding jobs or stuffing the queue earns
//! no priority (guide 5.1.2.4.1, parameter JOBPRIOACCRUALPOLICY):
//!
//! - `ALWAYS`: an idle job accrues from submission, held or not;
//! - `QUEUEPOLICY`: it accrues while it is not held and meets the idle
//!   ("queue") throttling limits (MAXIJOB & co.);
//! - `FULLPOLICY`: it accrues only while it is not held, its dependencies are
//!   met and it meets all queue *and* run limits.
//!
//! A job whose RM begin time (`earliest_start`) is still in the future is
//! treated as held: the RM itself keeps it waiting (PBS state `W`).
//! Only idle jobs accrue; a running job's queue time stays what it was.
//!
//! The scheduler keeps a [`QueueAccrual`] per job (checkpointed) and updates
//! it every iteration with what the throttling policies decided. The time
//! between two updates is credited according to the decision of the earlier
//! one — the state the job was seen in for that interval — except at the
//! first sighting, where the current decision covers the time since
//! submission. Either way a change of state is accounted within one
//! RMPOLLINTERVAL.
//!
//! Priority reads the queue time recorded at the job's previous iteration,
//! as Maui 3.3 does: `MQueueSelectJobs` (MPolicy.c) stores the job's
//! `EffQueueDuration` after the queue has been sorted, and the next
//! iteration's `MJobGetStartPriority` (MPriority.c) reads it. Until that
//! record is above zero (the job's first iteration, or one seen at its own
//! submission time) Maui counts the time since submission instead, so a job
//! first seen at its submission counts its full wait one iteration later,
//! while a job first seen after it counts only what it had waited then.

use crate::config::JobPrioAccrualPolicy;
use crate::model::{Job, JobState, Secs, Time};
use serde::{Deserialize, Serialize};

/// True when the RM keeps the job from running: a hold, or a begin time
/// still in the future.
fn held(job: &Job, now: Time) -> bool {
    job.is_held() || job.earliest_start.is_some_and(|t| t > now)
}

/// True when the job accrues effective queue time at `now` under `policy`.
///
/// `meets_idle_limits` and `meets_all_limits` come from the throttling
/// policies (idle limits only; idle and active limits).
pub fn accrues(
    policy: JobPrioAccrualPolicy,
    job: &Job,
    now: Time,
    meets_idle_limits: bool,
    meets_all_limits: bool,
) -> bool {
    if job.state != JobState::Idle {
        return false;
    }
    match policy {
        JobPrioAccrualPolicy::Always => true,
        JobPrioAccrualPolicy::QueuePolicy => !held(job, now) && meets_idle_limits,
        JobPrioAccrualPolicy::FullPolicy => {
            !held(job, now) && job.dependency_satisfied && meets_idle_limits && meets_all_limits
        }
    }
}

/// A job's effective queue time as it accrues (kept in the checkpoint).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct QueueAccrual {
    /// Effective queue time accrued so far (seconds).
    pub accrued: Secs,
    /// Time of the last update (the job's submission time before the first).
    pub last_update: Time,
    /// Whether the job accrued at the last update; `None` before the first.
    pub accruing: Option<bool>,
    /// `accrued` as it stood before the last update moved the clock on: what
    /// Maui's priority reads (see the module notes). Zero in checkpoints
    /// written before it was kept, as for a job seen once.
    #[serde(default)]
    pub previous: Secs,
}

impl QueueAccrual {
    /// A fresh record for a job nobody has looked at yet.
    pub fn new(job: &Job) -> QueueAccrual {
        QueueAccrual {
            accrued: 0,
            last_update: job.submit_time,
            accruing: None,
            previous: 0,
        }
    }

    /// Brings the record up to `now` with this iteration's decision.
    pub fn update(
        &mut self,
        policy: JobPrioAccrualPolicy,
        job: &Job,
        now: Time,
        meets_idle_limits: bool,
        meets_all_limits: bool,
    ) {
        let accrues_now = accrues(policy, job, now, meets_idle_limits, meets_all_limits);
        if now > self.last_update && self.accruing.is_some() {
            self.previous = self.accrued;
        }
        if policy == JobPrioAccrualPolicy::Always && job.state == JobState::Idle {
            // ALWAYS counts from submission, whatever happened before.
            self.accrued = (now - job.submit_time).max(0);
        } else if now > self.last_update && self.accruing.unwrap_or(accrues_now) {
            self.accrued = self.accrued.saturating_add(now - self.last_update);
        }
        self.last_update = self.last_update.max(now);
        self.accruing = Some(accrues_now);
    }

    /// The effective queue time to use for priority: the one recorded at
    /// the previous iteration when above zero, else the current one (Maui's
    /// `EffQueueDuration`, see the module notes).
    pub fn effective(&self) -> Secs {
        if self.previous > 0 {
            self.previous
        } else {
            self.accrued
        }
    }
}

/// Effective queue time for a bare snapshot, without accrual history.
///
/// An idle job that would accrue now (taking every throttling limit as met)
/// counts `now - submit_time`; one that would not (held under QUEUEPOLICY or
/// FULLPOLICY, unmet dependency under FULLPOLICY) counts 0. An active job
/// counts the time it waited, `start_time - submit_time`.
pub fn snapshot_queue_time(policy: JobPrioAccrualPolicy, job: &Job, now: Time) -> Secs {
    match job.state {
        JobState::Idle => {
            if accrues(policy, job, now, true, true) {
                (now - job.submit_time).max(0)
            } else {
                0
            }
        }
        _ => job.start_time.map_or(0, |s| (s - job.submit_time).max(0)),
    }
}
