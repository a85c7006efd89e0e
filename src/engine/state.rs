//! What the engine remembers between iterations (and across restarts, in
//! the checkpoint).

use crate::fairshare::Fairshare;
use crate::model::{NodeTasks, Resources, Time};
use crate::priority::QueueAccrual;
use crate::reservation::AdminStore;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// A reservation's tasks on one node, by node name (stable across restarts
/// and node order changes).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct NamedClaim {
    /// Node name.
    pub node: String,
    /// Tasks there.
    pub tasks: u32,
    /// Their resources.
    pub resources: Resources,
}

/// A job reservation made in an iteration.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct JobReservation {
    /// Job id.
    pub job: String,
    /// Reserved start.
    pub start: Time,
    /// Reserved end.
    pub end: Time,
    /// Nodes and resources.
    pub claims: Vec<NamedClaim>,
}

/// Scheduling stopped by an operator (`schedctl -s`): plans carry no starts
/// until `schedctl -R`. Kept in the checkpoint, so a restart does not
/// silently resume what an operator stopped.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StopInfo {
    /// Who stopped it (user name).
    pub by: String,
    /// When (the scheduler's clock).
    pub at: Time,
}

/// An operator's `runjob`: the job starts at the next iteration on these
/// nodes, bypassing priority, throttling policies and reservations.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ForcedStart {
    /// Job id.
    pub job: String,
    /// Nodes and tasks per node.
    pub allocation: Vec<NodeTasks>,
    /// Who asked (user name).
    pub by: String,
}

/// Queue-time accrual by job id.
pub type AccrualMap = rustc_hash::FxHashMap<String, QueueAccrual>;

/// Writes a hashed map as a map in key order, as a `BTreeMap` is, so that
/// a checkpoint does not depend on the hash table's history.
fn in_key_order<S: serde::Serializer, V: Serialize>(
    map: &rustc_hash::FxHashMap<String, V>,
    ser: S,
) -> Result<S::Ok, S::Error> {
    let sorted: BTreeMap<&String, &V> = map.iter().collect();
    sorted.serialize(ser)
}

/// The engine's memory.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct EngineState {
    /// Time of the last iteration (fairshare accrues from here).
    pub last_iteration: Option<Time>,
    /// Effective queue time per idle job (hashed: every iteration looks up
    /// each idle job; written in key order).
    #[serde(serialize_with = "in_key_order")]
    pub accrual: AccrualMap,
    /// Backfill bypass counts per idle job.
    pub bypass: BTreeMap<String, u32>,
    /// System priorities set with setspri (job id to value).
    pub system_priority: BTreeMap<String, i64>,
    /// Fairshare windows (the current one is also written to FS.<epoch>).
    pub fairshare: Fairshare,
    /// Administrative reservations.
    pub admin: AdminStore,
    /// Claims of standing reservation instances, by instance id.
    pub standing_claims: BTreeMap<String, Vec<NamedClaim>>,
    /// Job reservations of the last iteration.
    pub job_reservations: Vec<JobReservation>,
    /// Jobs that ever held a reservation (RESERVATIONPOLICY HIGHEST).
    pub ever_reserved: BTreeMap<String, Time>,
    /// Backfill chunking: when protecting freed resources for large jobs began.
    pub chunk_since: Option<Time>,
    /// Operator requests to hand to the front end with the next plan.
    pub pending_actions: Vec<super::plan::Action>,
    /// Set while an operator has stopped scheduling (`schedctl -s`).
    pub stopped: Option<StopInfo>,
    /// Jobs an operator asked to start at the next iteration (`runjob`).
    pub forced_starts: Vec<ForcedStart>,
}
