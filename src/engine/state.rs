//! What the engine remembers between iterations (and across restarts, in
//! the checkpoint).

use crate::fairshare::Fairshare;
use crate::model::memory;
use crate::model::{Job, NodeTasks, Resources, Time};
use crate::priority::QueueAccrual;
use crate::reservation::AdminStore;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::sync::Arc;

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
    /// The generic resources of `resources` by name, which is how they are
    /// saved: the resource vector is saved without them, and their ids
    /// change with the cluster.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gres: Option<BTreeMap<String, u32>>,
}

impl NamedClaim {
    /// `resources` with their generic resources by `cluster`'s ids.
    pub fn resources_on(&self, cluster: &crate::model::Cluster) -> Resources {
        Resources {
            gres: cluster.gres_from_names(self.gres.as_ref()),
            ..self.resources
        }
    }
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
/// until `schedctl -r`. Kept in the checkpoint, so a restart does not
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

/// A job this scheduler preempted: by whom, when and how (`checkjob`),
/// kept while the resource manager still has the job.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Preemption {
    /// The preemptor's job id (the last time).
    pub by: String,
    /// When (the last time).
    pub at: Time,
    /// How: [`ActionKind::Requeue`](super::plan::ActionKind::Requeue),
    /// `Suspend` or `Checkpoint`.
    pub how: super::plan::ActionKind,
    /// Times preempted.
    pub count: u32,
    /// Processor-seconds of work lost to requeues (a suspension or a
    /// checkpoint loses none).
    #[serde(default)]
    pub lost: u64,
    /// Seconds the job had run before its suspension (its walltime left is
    /// the rest).
    #[serde(default)]
    pub ran: crate::model::Secs,
    /// Set while the job is suspended by this scheduler, not yet resumed.
    #[serde(default)]
    pub suspended: bool,
    /// When it was last resumed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resumed_at: Option<Time>,
    /// Its submission time when first preempted: under
    /// JOBPRIOACCRUALPOLICY ALWAYS its queue time counts from it whatever
    /// the resource manager reports after a requeue.
    pub submitted: Time,
}

impl Preemption {
    /// The record of a job preempted for the first time (the caller fills
    /// in who, when and how).
    pub fn first(job: &Job) -> Preemption {
        Preemption {
            by: String::new(),
            at: 0,
            how: super::plan::ActionKind::Requeue,
            count: 0,
            lost: 0,
            ran: 0,
            suspended: false,
            resumed_at: None,
            submitted: job.submit_time,
        }
    }
}

/// Queue-time accrual by job id, kept in job order
/// ([`crate::engine::job_id_cmp`]): an iteration brings every idle job's
/// record up to date walking the jobs in that order
/// ([`AccrualMap::rebuild`]), so the table is read and rebuilt in one
/// sequential pass instead of a hash look-up per job. Written to the
/// checkpoint as a map in key (string) order, as a `BTreeMap` is.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct AccrualMap {
    entries: Vec<(String, QueueAccrual)>,
}

impl AccrualMap {
    fn find(&self, id: &str) -> Result<usize, usize> {
        self.entries
            .binary_search_by(|(k, _)| crate::engine::job_id_cmp(k, id))
    }

    /// The record of job `id`.
    pub fn get(&self, id: &str) -> Option<&QueueAccrual> {
        self.find(id).ok().map(|k| &self.entries[k].1)
    }

    /// The record of job `id`, to change.
    pub fn get_mut(&mut self, id: &str) -> Option<&mut QueueAccrual> {
        self.find(id).ok().map(|k| &mut self.entries[k].1)
    }

    /// [`AccrualMap::get_mut`] for look-ups that come in job order: the
    /// record after the last one found (`next`) is tried first.
    pub fn get_mut_next(&mut self, next: &mut usize, id: &str) -> Option<&mut QueueAccrual> {
        let k = match self.entries.get(*next) {
            Some((k, _)) if k == id => *next,
            _ => self.find(id).ok()?,
        };
        *next = k + 1;
        Some(&mut self.entries[k].1)
    }

    /// Sets the record of job `id`; the one it had, if any.
    pub fn insert(&mut self, id: String, acc: QueueAccrual) -> Option<QueueAccrual> {
        match self.find(&id) {
            Ok(k) => Some(std::mem::replace(&mut self.entries[k].1, acc)),
            Err(k) => {
                self.entries.insert(k, (id, acc));
                None
            }
        }
    }

    /// Keeps the records `keep` accepts.
    pub fn retain(&mut self, mut keep: impl FnMut(&String, &mut QueueAccrual) -> bool) {
        self.entries.retain_mut(|(k, v)| keep(k, v));
    }

    /// Job ids, in job order.
    pub fn keys(&self) -> impl Iterator<Item = &String> {
        self.entries.iter().map(|(k, _)| k)
    }

    /// Number of records.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// True when there are no records.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Starts bringing the table to one iteration's idle jobs: each is
    /// handed its record ([`AccrualRebuild::record`]); [`AccrualMap::finish`]
    /// then keeps exactly those records, so the records of jobs that are
    /// no longer idle are forgotten.
    pub fn rebuild(&mut self) -> AccrualRebuild {
        AccrualRebuild {
            old: std::mem::take(&mut self.entries),
            next: 0,
            records: Vec::new(),
        }
    }

    /// Ends a [`AccrualMap::rebuild`] over `jobs` (the iteration's jobs,
    /// in job order).
    pub fn finish(&mut self, mut r: AccrualRebuild, jobs: &[Job]) {
        if !r.records.is_sorted_by_key(|x| x.0) {
            r.records.sort_by_key(|x| x.0);
        }
        let mut old = r.old;
        self.entries = Vec::with_capacity(r.records.len());
        for (j, k, acc) in r.records {
            let id = match old.get_mut(k) {
                Some((id, _)) if !id.is_empty() => std::mem::take(id),
                _ => jobs[j].id.clone(),
            };
            self.entries.push((id, acc));
        }
    }
}

/// An [`AccrualMap`] being brought to one iteration's idle jobs.
pub struct AccrualRebuild {
    /// The table before the iteration.
    old: Vec<(String, QueueAccrual)>,
    /// Where the next job in job order is looked for in `old`.
    next: usize,
    /// (job index, its place in `old` or `usize::MAX`, its record).
    records: Vec<(usize, usize, QueueAccrual)>,
}

impl AccrualRebuild {
    /// The record of `job`, the `j`th of the iteration's jobs (each idle
    /// job once), updated by `update`; its effective queue time. Jobs
    /// taken in job order are found by walking the old table; others by a
    /// binary search.
    pub fn record(
        &mut self,
        j: usize,
        job: &Job,
        update: impl FnOnce(&mut QueueAccrual),
    ) -> crate::model::Secs {
        let k = match self.old.get(self.next) {
            Some((id, _)) if *id == job.id => Ok(self.next),
            _ => self
                .old
                .binary_search_by(|(k, _)| crate::engine::job_id_cmp(k, &job.id)),
        };
        let (k, mut acc) = match k {
            Ok(k) => {
                self.next = k + 1;
                (k, self.old[k].1)
            }
            Err(_) => (usize::MAX, QueueAccrual::new(job)),
        };
        update(&mut acc);
        self.records.push((j, k, acc));
        acc.effective()
    }
}

impl Serialize for AccrualMap {
    fn serialize<S: serde::Serializer>(&self, ser: S) -> Result<S::Ok, S::Error> {
        let sorted: BTreeMap<&String, &QueueAccrual> =
            self.entries.iter().map(|(k, v)| (k, v)).collect();
        sorted.serialize(ser)
    }
}

impl<'de> Deserialize<'de> for AccrualMap {
    fn deserialize<D: serde::Deserializer<'de>>(de: D) -> Result<Self, D::Error> {
        Ok(AccrualMap::from_map(BTreeMap::deserialize(de)?))
    }
}

/// The engine's memory.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct EngineState {
    /// Time of the last iteration (fairshare accrues from here).
    pub last_iteration: Option<Time>,
    /// Effective queue time per idle job.
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
    /// Job reservations of the last iteration. Shared: each iteration
    /// makes a new list, and the service keeps the state an iteration
    /// started from (`mauictl snapshot`), a copy per iteration that would
    /// otherwise copy every reservation's claims node by node.
    pub job_reservations: Arc<Vec<JobReservation>>,
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
    /// Jobs this scheduler preempted, by id, while the RM has them.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub preempted: BTreeMap<String, Preemption>,
    /// Jobs started out of priority order under BACKFILLPOLICY PREEMPT, by
    /// id, with their priority when they started: preemptible while a
    /// waiting job has at least that priority (Maui's `MQueueScheduleIJobs`).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub preemptible: BTreeMap<String, i64>,
}

impl AccrualMap {
    /// The table of `records` by job id, given in any order.
    pub fn from_map(records: BTreeMap<String, QueueAccrual>) -> AccrualMap {
        let mut entries: Vec<(String, QueueAccrual)> = records.into_iter().collect();
        entries.sort_by(|a, b| crate::engine::job_id_cmp(&a.0, &b.0));
        AccrualMap { entries }
    }
}

fn claim_out(c: &NamedClaim) -> memory::Claim {
    memory::Claim {
        node: c.node.clone(),
        tasks: c.tasks,
        resources: c.resources,
        gres: c.gres.clone(),
    }
}

fn claim_in(c: memory::Claim) -> NamedClaim {
    NamedClaim {
        node: c.node,
        tasks: c.tasks,
        resources: c.resources,
        gres: c.gres,
    }
}

impl EngineState {
    /// This memory as a snapshot carries it: the administrative
    /// reservations, the fairshare windows and the rest
    /// ([`crate::model::memory`]).
    pub fn to_snapshot(&self) -> (AdminStore, memory::FairshareUsage, memory::Memory) {
        let fairshare = memory::FairshareUsage {
            windows: (self.fairshare.windows().into_iter())
                .map(|w| memory::FairshareWindow {
                    start: w.start,
                    duration: w.duration,
                    usage: w.usage,
                    total: w.total,
                })
                .collect(),
        };
        let rest = memory::Memory {
            last_iteration: self.last_iteration,
            queue_time: (self.accrual.entries.iter())
                .map(|(id, a)| {
                    let q = memory::QueueTime {
                        accrued: a.accrued,
                        last_update: a.last_update,
                        accruing: a.accruing,
                        previous: a.previous,
                    };
                    (id.clone(), q)
                })
                .collect(),
            bypass: self.bypass.clone(),
            system_priority: self.system_priority.clone(),
            job_reservations: (self.job_reservations.iter())
                .map(|r| memory::HeldReservation {
                    job: r.job.clone(),
                    start: r.start,
                    end: r.end,
                    claims: r.claims.iter().map(claim_out).collect(),
                })
                .collect(),
            standing_claims: (self.standing_claims.iter())
                .map(|(id, cs)| (id.clone(), cs.iter().map(claim_out).collect()))
                .collect(),
            ever_reserved: self.ever_reserved.clone(),
            chunk_since: self.chunk_since,
            pending_actions: (self.pending_actions.iter())
                .map(|a| memory::PendingAction {
                    kind: a.kind,
                    job: a.job.clone(),
                    by: a.by.clone(),
                })
                .collect(),
            stopped: self.stopped.as_ref().map(|s| memory::Stopped {
                by: s.by.clone(),
                at: s.at,
            }),
            forced_starts: (self.forced_starts.iter())
                .map(|f| memory::ForcedRun {
                    job: f.job.clone(),
                    allocation: f.allocation.clone(),
                    by: f.by.clone(),
                })
                .collect(),
            preempted: (self.preempted.iter())
                .map(|(id, p)| {
                    let rec = memory::Preempted {
                        by: p.by.clone(),
                        at: p.at,
                        how: p.how,
                        count: p.count,
                        lost: p.lost,
                        ran: p.ran,
                        suspended: p.suspended,
                        resumed_at: p.resumed_at,
                        submitted: p.submitted,
                    };
                    (id.clone(), rec)
                })
                .collect(),
            preemptible: self.preemptible.clone(),
        };
        (self.admin.clone(), fairshare, rest)
    }

    /// A memory from what a snapshot carries ([`EngineState::to_snapshot`]);
    /// a part that is absent is empty.
    pub fn from_snapshot(
        admin: Option<AdminStore>,
        fairshare: Option<memory::FairshareUsage>,
        rest: Option<memory::Memory>,
    ) -> EngineState {
        let windows = (fairshare.unwrap_or_default().windows.into_iter())
            .map(|w| crate::fairshare::Window {
                start: w.start,
                duration: w.duration,
                usage: w.usage,
                total: w.total,
                ..Default::default()
            })
            .collect();
        let m = rest.unwrap_or_default();
        EngineState {
            last_iteration: m.last_iteration,
            accrual: AccrualMap::from_map(
                (m.queue_time.into_iter())
                    .map(|(id, q)| {
                        let acc = QueueAccrual {
                            accrued: q.accrued,
                            last_update: q.last_update,
                            accruing: q.accruing,
                            previous: q.previous,
                        };
                        (id, acc)
                    })
                    .collect(),
            ),
            bypass: m.bypass,
            system_priority: m.system_priority,
            fairshare: Fairshare::from_windows(windows),
            admin: admin.unwrap_or_default(),
            standing_claims: (m.standing_claims.into_iter())
                .map(|(id, cs)| (id, cs.into_iter().map(claim_in).collect()))
                .collect(),
            job_reservations: Arc::new(
                (m.job_reservations.into_iter())
                    .map(|r| JobReservation {
                        job: r.job,
                        start: r.start,
                        end: r.end,
                        claims: r.claims.into_iter().map(claim_in).collect(),
                    })
                    .collect(),
            ),
            ever_reserved: m.ever_reserved,
            chunk_since: m.chunk_since,
            pending_actions: (m.pending_actions.into_iter())
                .map(|a| super::plan::Action {
                    kind: a.kind,
                    job: a.job,
                    by: a.by,
                })
                .collect(),
            stopped: m.stopped.map(|s| StopInfo { by: s.by, at: s.at }),
            forced_starts: (m.forced_starts.into_iter())
                .map(|f| ForcedStart {
                    job: f.job,
                    allocation: f.allocation,
                    by: f.by,
                })
                .collect(),
            preempted: (m.preempted.into_iter())
                .map(|(id, p)| {
                    let rec = Preemption {
                        by: p.by,
                        at: p.at,
                        how: p.how,
                        count: p.count,
                        lost: p.lost,
                        ran: p.ran,
                        suspended: p.suspended,
                        resumed_at: p.resumed_at,
                        submitted: p.submitted,
                    };
                    (id, rec)
                })
                .collect(),
            preemptible: m.preemptible,
        }
    }
}
