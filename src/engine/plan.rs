//! The plan: what one iteration decided, as data.

use crate::config::LimitKind;
use crate::model::{HoldKind, NodeTasks, Secs, Time};
use serde::Serialize;

/// Why a job is not started in this iteration (machine-readable).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "code")]
pub enum Reason {
    /// Eligible and the resources exist, but they are held for
    /// higher-priority jobs (their reservations or earlier starts).
    Priority {
        /// The job reservation that keeps the job off resources free now,
        /// when one does ([`ReservedFor`]); none when the starts of this
        /// iteration took them.
        #[serde(skip_serializing_if = "Option::is_none")]
        reserved_for: Option<ReservedFor>,
    },
    /// Not enough free resources for the job's shape and walltime.
    Resources,
    /// The resources it needs are held by a reservation whose ACL excludes it.
    Reservation {
        /// Reservation id.
        id: String,
    },
    /// A throttling policy blocks it. Boxed: the rarest and largest
    /// reason would otherwise size every job's (the memo, the ranked queue
    /// and the plan each hold one per job); it serializes as its fields.
    Policy(Box<PolicyBlock>),
    /// A hold is in place.
    Hold {
        /// Kind of hold.
        kind: HoldKind,
    },
    /// An RM dependency is not met.
    Dependency,
    /// The job may not start before this time (begin time).
    BeginTime {
        /// Earliest start.
        at: Time,
    },
    /// A fairshare cap (FSCAP) is reached.
    FairshareCap {
        /// The credential and its usage against the cap.
        detail: String,
    },
    /// REJECTNEGPRIOJOBS: the job's priority is negative.
    NegativePriority,
    /// The job can never run on this cluster as configured.
    NoFit {
        /// Why.
        detail: String,
    },
    /// The job would start now, but an operator has stopped scheduling
    /// (`schedctl -s`).
    Stopped {
        /// Who stopped it.
        by: String,
    },
}

/// A job reservation keeping a waiting job off resources that are free
/// now: its nodes have room for the job now, but not until the job's
/// walltime would end.
/// The throttling policy that blocks a job ([`Reason::Policy`]).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PolicyBlock {
    /// Limit (MAXJOB, MAXPROC, ...).
    pub limit: LimitKind,
    /// Credential label, e.g. `user steve` or `class batch, user steve`.
    pub credential: String,
    /// True when the hard limit blocks (not only the soft one).
    pub hard: bool,
    /// Maui's wording.
    pub detail: String,
    /// The generic resource of a MAXGRES limit.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gres: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ReservedFor {
    /// The job the reservation is for.
    pub job: String,
    /// When the reservation begins.
    pub from: Time,
}

impl Reason {
    /// [`Reason::Priority`] with no reservation named.
    pub const PRIORITY: Reason = Reason::Priority { reserved_for: None };

    /// The short code: `Priority`, `Resources`, `Reservation`, `Policy`, ...
    pub fn code(&self) -> &'static str {
        match self {
            Reason::Priority { .. } => "Priority",
            Reason::Resources => "Resources",
            Reason::Reservation { .. } => "Reservation",
            Reason::Policy(_) => "Policy",
            Reason::Hold { .. } => "Hold",
            Reason::Dependency => "Dependency",
            Reason::BeginTime { .. } => "BeginTime",
            Reason::FairshareCap { .. } => "FairshareCap",
            Reason::NegativePriority => "NegativePriority",
            Reason::NoFit { .. } => "NoFit",
            Reason::Stopped { .. } => "Stopped",
        }
    }

    /// True when the job is not eligible at all (not a matter of resources).
    pub fn is_blocking(&self) -> bool {
        !matches!(
            self,
            Reason::Priority { .. }
                | Reason::Resources
                | Reason::Reservation { .. }
                | Reason::Stopped { .. }
        )
    }
}

impl Reason {
    /// The reason's one-line form, as [`std::fmt::Display`] gives it, with
    /// times in the site's zone, named (`BeginTime Thu Nov 26 05:18:09 CST`).
    pub fn summary(&self, zone: &crate::model::time::Zone) -> String {
        match self {
            Reason::BeginTime { at } => format!("BeginTime {}", zone.fmt_named(*at)),
            other => other.to_string(),
        }
    }
}

impl std::fmt::Display for Reason {
    /// `Reservation interactive.0`, `Policy MAXJOB user steve`, ...
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Reason::Reservation { id } => write!(f, "Reservation {id}"),
            Reason::Policy(p) => match &p.gres {
                Some(g) => write!(f, "Policy {}[{g}] {}", p.limit.keyword(), p.credential),
                None => write!(f, "Policy {} {}", p.limit.keyword(), p.credential),
            },
            Reason::Hold { kind } => write!(
                f,
                "Hold {}",
                match kind {
                    HoldKind::User => "User",
                    HoldKind::System => "System",
                    HoldKind::Batch => "Batch",
                }
            ),
            Reason::BeginTime { at } => {
                // Without a zone at hand: UTC, named ([`Reason::summary`]
                // gives local time).
                let utc = crate::model::time::Zone::utc();
                write!(f, "BeginTime {}", utc.fmt_named(*at))
            }
            // Without the time, which the detail gives (`commands::render::reason_text`):
            // a comment that carries the summary changes only when the job
            // does.
            Reason::Priority {
                reserved_for: Some(r),
            } => write!(f, "Priority: free nodes reserved for job {}", r.job),
            Reason::FairshareCap { detail } => write!(f, "FairshareCap {detail}"),
            Reason::NoFit { detail } => write!(f, "NoFit {detail}"),
            Reason::Stopped { by } => write!(f, "Stopped by {by}"),
            other => f.write_str(other.code()),
        }
    }
}

/// A job to start now.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Start {
    /// Job id.
    pub job: String,
    /// Nodes and tasks per node, in node order.
    pub allocation: Vec<NodeTasks>,
    /// Started by backfill (out of priority order).
    pub backfill: bool,
    /// The reservation the job runs in, if it asked for one (ADVRES) or
    /// uses reserved resources it is admitted to.
    pub reservation: Option<String>,
    /// Jobs this plan preempts (its actions) on whose freed resources the
    /// job starts: where the resource manager refuses one of those
    /// preemptions, the front end does not make this start.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub after: Vec<String>,
}

/// What became of one idle job.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct JobPlan {
    /// Job id.
    pub job: String,
    /// Priority (final value used for ordering).
    pub priority: i64,
    /// Started in this iteration.
    pub started: bool,
    /// Why it waits (None when started).
    pub reason: Option<Reason>,
    /// Estimated start (its reservation's start, or a profile estimate).
    pub estimated_start: Option<Time>,
    /// Its job reservation, if it got one.
    pub reservation: Option<String>,
    /// Times bypassed by backfill so far.
    pub bypass_count: u32,
    /// Effective queue time used for priority.
    pub eff_queue_time: Secs,
    /// The points each priority component adds, in the order of
    /// `ComponentKind::ALL` (the C ABI's components;
    /// the whole breakdown: [`super::LastIteration::priority_breakdown`]).
    #[serde(skip)]
    pub components: [f64; 6],
    /// For a waiting PREEMPTOR: why preemption did not start it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub preemption: Option<String>,
}

/// A reservation as the plan reports it (job, admin and standing).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PlanReservation {
    /// Id.
    pub id: String,
    /// `Job`, `User` (admin), `Standing`.
    pub kind: String,
    /// The job, for job reservations.
    pub job: Option<String>,
    /// Start.
    pub start: Time,
    /// End.
    pub end: Time,
    /// Nodes and tasks.
    pub allocation: Vec<NodeTasks>,
}

pub use crate::model::memory::ActionKind;

impl ActionKind {
    /// The hold this action places (`true`) or removes (`false`); `None`
    /// for a cancel.
    pub fn hold_change(self) -> Option<(HoldKind, bool)> {
        match self {
            ActionKind::Hold => Some((HoldKind::System, true)),
            ActionKind::Release => Some((HoldKind::System, false)),
            ActionKind::UserHold => Some((HoldKind::User, true)),
            ActionKind::UserRelease => Some((HoldKind::User, false)),
            ActionKind::Cancel
            | ActionKind::Requeue
            | ActionKind::Suspend
            | ActionKind::Checkpoint
            | ActionKind::Resume => None,
        }
    }

    /// True for the actions that preempt a running job.
    pub fn preempts(self) -> bool {
        matches!(
            self,
            ActionKind::Requeue | ActionKind::Suspend | ActionKind::Checkpoint
        )
    }

    /// The preemption action of PREEMPTPOLICY.
    pub fn preemption(policy: crate::config::PreemptPolicy) -> ActionKind {
        use crate::config::PreemptPolicy as P;
        match policy {
            P::Requeue => ActionKind::Requeue,
            P::Suspend => ActionKind::Suspend,
            P::Checkpoint => ActionKind::Checkpoint,
        }
    }

    /// Lower-case name, as logs and `checkjob` write it.
    pub fn name(self) -> &'static str {
        match self {
            ActionKind::Hold => "hold",
            ActionKind::Release => "release",
            ActionKind::UserHold => "userhold",
            ActionKind::UserRelease => "userrelease",
            ActionKind::Cancel => "cancel",
            ActionKind::Requeue => "requeue",
            ActionKind::Suspend => "suspend",
            ActionKind::Checkpoint => "checkpoint",
            ActionKind::Resume => "resume",
        }
    }

    /// The action that places (`set`) or removes a hold of `kind`; `None`
    /// for a batch hold, which only the scheduler that placed it removes.
    pub fn for_hold(kind: HoldKind, set: bool) -> Option<ActionKind> {
        match (kind, set) {
            (HoldKind::System, true) => Some(ActionKind::Hold),
            (HoldKind::System, false) => Some(ActionKind::Release),
            (HoldKind::User, true) => Some(ActionKind::UserHold),
            (HoldKind::User, false) => Some(ActionKind::UserRelease),
            (HoldKind::Batch, _) => None,
        }
    }

    /// Applies the hold change to a job's holds (a cancel changes none).
    pub fn apply_to(self, holds: &mut thin_vec::ThinVec<HoldKind>) {
        match self.hold_change() {
            Some((k, true)) if !holds.contains(&k) => holds.push(k),
            Some((k, false)) => holds.retain(|h| *h != k),
            _ => {}
        }
    }
}

/// A request for the RM carried by a plan: an operator's (holds,
/// releases, cancels) or the scheduler's own (preemptions, resumptions).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct Action {
    /// What to do.
    pub kind: ActionKind,
    /// Job id.
    pub job: String,
    /// Who asked (user name), for the RM's and the host's logs; for a
    /// preemption, the preemptor's job id; for a resumption, empty.
    pub by: String,
}

/// Counters of one iteration.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Stats {
    /// Idle jobs seen.
    pub idle: usize,
    /// Idle jobs eligible to run (no hold, policy or dependency in the way).
    pub eligible: usize,
    /// Running jobs seen.
    pub running: usize,
    /// Jobs started in priority order.
    pub started_priority: usize,
    /// Jobs started by backfill.
    pub started_backfill: usize,
    /// Running jobs preempted.
    #[serde(skip_serializing_if = "crate::util::is_zero")]
    pub preempted: usize,
    /// Suspended jobs resumed.
    #[serde(skip_serializing_if = "crate::util::is_zero")]
    pub resumed: usize,
    /// Job reservations made.
    pub job_reservations: usize,
}

/// The decisions of one iteration.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Plan {
    /// Iteration time.
    pub now: Time,
    /// Jobs to start now.
    pub starts: Vec<Start>,
    /// Every idle job, in priority order.
    pub jobs: Vec<JobPlan>,
    /// Reservations in force (job reservations made now, admin, standing).
    pub reservations: Vec<PlanReservation>,
    /// Operator requests for the RM (holds and releases), in the order made.
    pub actions: Vec<Action>,
    /// Operator requests dropped because their job is no longer queued
    /// (it started, ended or left the RM's queue since), with why.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub dropped_actions: Vec<(Action, String)>,
    /// Counters.
    pub stats: Stats,
}

impl Plan {
    /// The plan of a job by id.
    pub fn job(&self, id: &str) -> Option<&JobPlan> {
        self.jobs.iter().find(|j| j.job == id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A policy block is boxed in memory but reads in the plan's JSON as
    /// the other reasons do: its fields beside the code.
    #[test]
    fn a_policy_reason_serializes_as_its_fields_beside_the_code() {
        let r = Reason::Policy(Box::new(PolicyBlock {
            limit: LimitKind::Gres,
            credential: "user steve".into(),
            hard: true,
            detail: "MAXGRES[gpu] 2".into(),
            gres: Some("gpu".into()),
        }));
        assert_eq!(
            serde_json::to_string(&r).unwrap(),
            r#"{"code":"Policy","limit":"MAXGRES","credential":"user steve","hard":true,"detail":"MAXGRES[gpu] 2","gres":"gpu"}"#
        );
        assert_eq!(r.to_string(), "Policy MAXGRES[gpu] user steve");
    }
}
