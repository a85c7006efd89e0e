//! What the scheduler remembers between iterations, as a snapshot
//! carries it (`docs/snapshot.md`, the top-level fields
//! `admin_reservations`, `fairshare` and `state`): plain data, read
//! strictly (an unknown field is an error naming its path), so that an
//! iteration can be run again elsewhere from the same memory
//! (`mauictl snapshot`, `plan --snapshot`, `whatif`).
//!
//! The engine keeps its own forms of these (`engine::EngineState`, the
//! fairshare windows by credential id) and converts; the checkpoint, which
//! must read files older versions wrote, keeps its own, more lenient,
//! serialisation of them. The administrative reservation store and the
//! kinds of action are the same types everywhere.

use super::{NodeTasks, Resources, Secs, Time};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// What an operator asked the front end to do through the RM.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ActionKind {
    /// Place an administrator (system) hold on the job (sethold).
    Hold,
    /// Remove the administrator hold (releasehold).
    Release,
    /// Place a user hold on the job (sethold -u), as its owner would.
    UserHold,
    /// Remove the user hold (releasehold -u).
    UserRelease,
    /// Cancel the job, queued or running (canceljob).
    Cancel,
    /// Preemption (PREEMPTPOLICY REQUEUE): end the running job and queue
    /// it again; `by` names the preemptor.
    Requeue,
    /// Preemption (PREEMPTPOLICY SUSPEND): stop the running job on its
    /// nodes, which keep its memory; `by` names the preemptor.
    Suspend,
    /// Preemption (PREEMPTPOLICY CHECKPOINT): checkpoint the running job,
    /// end it and queue it again; `by` names the preemptor.
    Checkpoint,
    /// Resume a job this scheduler suspended, its processors free again.
    Resume,
}

/// A setres request. Lists use Maui's syntax (`john:mary`, `!projectX`,
/// `high,low-`); every field is optional except that TASKS and/or HOSTS
/// must be given.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct AdminRequest {
    /// `-n`: the reservation's name (default: first ACL name or `system`,
    /// followed by `.N`).
    pub name: Option<String>,
    /// `-s`: start (default: now).
    pub start: Option<Time>,
    /// `-e`: end.
    pub end: Option<Time>,
    /// `-d`: duration (with neither end nor duration: INFINITY).
    pub duration: Option<Secs>,
    /// `-u`: USERLIST.
    pub users: Option<String>,
    /// `-g`: GROUPLIST.
    pub groups: Option<String>,
    /// `-a`: ACCOUNTLIST.
    pub accounts: Option<String>,
    /// `-q`: CLASSLIST.
    pub classes: Option<String>,
    /// `-Q`: QOSLIST.
    pub qos: Option<String>,
    /// JOBATTRLIST.
    pub job_attrs: Option<String>,
    /// TIMELIMIT, `[[[DD:]HH:]MM:]SS[*]`.
    pub time_limit: Option<String>,
    /// `-r`: resources per task, `PROCS=1:MEM=512` or `PROCS:1;MEM:512`
    /// (default PROCS=-1: whole nodes).
    pub resources: Option<String>,
    /// `TASKS==N`: task count.
    pub tasks: Option<u32>,
    /// Host names or expressions (`node00[3-6]`), or `ALL`.
    pub hosts: Option<String>,
    /// TPN.
    pub tpn: Option<u32>,
    /// `-f`: required node features.
    pub features: Option<String>,
    /// `-p`: partition.
    pub partition: Option<String>,
    /// `-x`: flags.
    pub flags: Option<String>,
    /// `-o`: owner, `USER:john`.
    pub owner: Option<String>,
    /// `-c`: charge account.
    pub charge_account: Option<String>,
    /// DEDICATED or SHARED.
    pub access: Option<String>,
    /// PRIORITY.
    pub priority: Option<i64>,
}

/// A stored administrative reservation.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AdminRecord {
    /// Its name.
    pub id: String,
    /// When it was created.
    pub created: Time,
    /// Resolved start.
    pub start: Time,
    /// Resolved end ([`crate::profile::INFINITY`] for never).
    pub end: Time,
    /// The request as given.
    pub request: AdminRequest,
    /// Nodes it holds, by name, with task counts.
    pub nodes: Vec<(String, u32)>,
}

/// The administrative reservations, serializable as a whole (the
/// checkpoint embeds it, or [`AdminStore::save`] writes it alone:
/// `crate::persist::admin`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct AdminStore {
    /// Last sequence number used per name base (`john` → 2 after `john.2`),
    /// so released names are not reused.
    pub sequence: BTreeMap<String, u32>,
    /// The reservations, in creation order.
    pub records: Vec<AdminRecord>,
}

/// The rest of the engine's memory: what decides the next iteration
/// besides the resource manager's snapshot, the configuration, the
/// administrative reservations and fairshare usage.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Memory {
    /// Time of the iteration before (fairshare and queue time accrue from
    /// it; jobs that ended after it are still to be charged).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_iteration: Option<Time>,
    /// Effective queue time as accrued so far, by idle job.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub queue_time: BTreeMap<String, QueueTime>,
    /// Times each idle job was bypassed by backfill.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub bypass: BTreeMap<String, u32>,
    /// System priorities set with `setspri`, by job.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub system_priority: BTreeMap<String, i64>,
    /// The job reservations the iteration before made.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub job_reservations: Vec<HeldReservation>,
    /// What each standing reservation instance holds, by instance id.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub standing_claims: BTreeMap<String, Vec<Claim>>,
    /// Jobs that ever held a reservation, with when (RESERVATIONPOLICY
    /// HIGHEST).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub ever_reserved: BTreeMap<String, Time>,
    /// Since when backfill chunking (BFCHUNKDURATION) protects freed
    /// resources.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub chunk_since: Option<Time>,
    /// Operators' holds, releases and cancels waiting for the next plan.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub pending_actions: Vec<PendingAction>,
    /// Scheduling stopped by an operator (`schedctl -s`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stopped: Option<Stopped>,
    /// Jobs an operator asked to start at the next iteration (`runjob`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub forced_starts: Vec<ForcedRun>,
    /// Jobs this scheduler preempted, by id.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub preempted: BTreeMap<String, Preempted>,
    /// Jobs started out of priority order under BACKFILLPOLICY PREEMPT,
    /// with their priority when they started.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub preemptible: BTreeMap<String, i64>,
}

impl Memory {
    /// True when there is nothing remembered.
    pub fn is_empty(&self) -> bool {
        *self == Memory::default()
    }
}

/// A job's effective queue time as it accrues.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct QueueTime {
    /// Seconds accrued so far.
    pub accrued: Secs,
    /// Time of the last update (the submission time before the first).
    pub last_update: Time,
    /// Whether the job accrued at the last update; null before the first.
    pub accruing: Option<bool>,
    /// `accrued` before the last update moved the clock on: what the
    /// priority reads.
    pub previous: Secs,
}

/// A reservation's tasks on one node.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Claim {
    /// Node name.
    pub node: String,
    /// Tasks there.
    pub tasks: u32,
    /// Resources of one task.
    pub resources: Resources,
    /// Generic resources of one task, by name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gres: Option<BTreeMap<String, u32>>,
}

/// A job reservation made by an iteration.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct HeldReservation {
    /// Job id.
    pub job: String,
    /// Reserved start.
    pub start: Time,
    /// Reserved end.
    pub end: Time,
    /// Nodes and resources.
    pub claims: Vec<Claim>,
}

/// An operator's request waiting to go out with the next plan.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PendingAction {
    /// What to do.
    pub kind: ActionKind,
    /// Job id.
    pub job: String,
    /// Who asked.
    #[serde(default)]
    pub by: String,
}

/// Who stopped scheduling, and when.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Stopped {
    /// User name.
    pub by: String,
    /// When (epoch s).
    pub at: Time,
}

/// An operator's `runjob` waiting for the next iteration.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ForcedRun {
    /// Job id.
    pub job: String,
    /// Nodes and tasks per node.
    pub allocation: Vec<NodeTasks>,
    /// Who asked.
    pub by: String,
}

/// A job this scheduler preempted.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Preempted {
    /// The preemptor's job id (the last time).
    #[serde(default)]
    pub by: String,
    /// When (the last time).
    #[serde(default)]
    pub at: Time,
    /// How: `requeue`, `suspend` or `checkpoint`.
    pub how: ActionKind,
    /// Times preempted.
    #[serde(default)]
    pub count: u32,
    /// Processor-seconds of work lost to requeues.
    #[serde(default)]
    pub lost: u64,
    /// Seconds the job had run before its suspension.
    #[serde(default)]
    pub ran: Secs,
    /// Suspended by this scheduler and not resumed yet.
    #[serde(default)]
    pub suspended: bool,
    /// When it was last resumed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resumed_at: Option<Time>,
    /// Its submission time when first preempted.
    #[serde(default)]
    pub submitted: Time,
}

/// Fairshare usage: the windows, most recent first.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct FairshareUsage {
    /// The windows (FSDEPTH of them at most are used).
    pub windows: Vec<FairshareWindow>,
}

/// Usage recorded during one fairshare window.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct FairshareWindow {
    /// Start of the window (epoch s).
    pub start: Time,
    /// Its length, the FSINTERVAL in force when it opened (s).
    pub duration: Secs,
    /// Usage in the FSPOLICY metric by kind (`USER`, `GROUP`, `ACCOUNT`,
    /// `CLASS`, `QOS`) and name.
    pub usage: BTreeMap<super::CredKind, BTreeMap<String, f64>>,
    /// Usage of all jobs.
    pub total: f64,
}
