//! Running an iteration and reading its plan.
//!
//! The plan is read through individual accessors with out-parameters
//! rather than output structs: nothing in the output direction has a
//! layout to keep compatible, a later minor version adds a field by adding
//! a function, and a caller cannot pass a struct of the wrong size. Lists
//! are a count and an indexed getter; every string is owned by the plan
//! and valid until [`mauisched_plan_free`].

use super::handle::{mauisched_t, with_handle, Handle};
use super::status::*;
use crate::config::Config;
use crate::engine::seen_by_passes;
use crate::engine::{LastIteration, Plan, Reason};
use crate::model::Time;
use std::collections::BTreeMap;
use std::ffi::{c_char, CString};
use std::sync::{Arc, OnceLock};

/// Plan action: place an administrator hold on the job through the RM.
pub const MAUISCHED_ACTION_HOLD: u32 = 1;
/// Plan action: remove the administrator hold through the RM.
pub const MAUISCHED_ACTION_RELEASE: u32 = 2;
/// Plan action: place a user hold on the job through the RM, as its owner
/// would (sethold -u). Since ABI 1.6.
pub const MAUISCHED_ACTION_USER_HOLD: u32 = 3;
/// Plan action: remove the job's user hold through the RM (releasehold -u).
/// Since ABI 1.6.
pub const MAUISCHED_ACTION_USER_RELEASE: u32 = 4;
/// Plan action: cancel the job through the RM, queued or running
/// (canceljob). Since ABI 1.6.
pub const MAUISCHED_ACTION_CANCEL: u32 = 5;
/// Plan action: preemption under PREEMPTPOLICY REQUEUE: end the running job
/// and queue it again through the RM (Slurm `scontrol requeue`, Torque
/// `pbs_rerunjob`); the action's `by` is the preemptor's job id. Since ABI
/// 1.7.
pub const MAUISCHED_ACTION_REQUEUE: u32 = 6;
/// Plan action: preemption under PREEMPTPOLICY SUSPEND: suspend the
/// running job through the RM; `by` is the preemptor's job id. Since ABI
/// 1.7.
pub const MAUISCHED_ACTION_SUSPEND: u32 = 7;
/// Plan action: preemption under PREEMPTPOLICY CHECKPOINT: checkpoint the
/// running job, end it and queue it again through the RM; `by` is the
/// preemptor's job id. Since ABI 1.7.
pub const MAUISCHED_ACTION_CHECKPOINT: u32 = 8;
/// Plan action: resume a job the scheduler suspended; `by` is empty. Since
/// ABI 1.7.
pub const MAUISCHED_ACTION_RESUME: u32 = 9;

/// Job started in this iteration: no reason.
pub const MAUISCHED_REASON_NONE: u32 = 0;
/// Eligible, resources exist, but they are held for higher-priority jobs.
pub const MAUISCHED_REASON_PRIORITY: u32 = 1;
/// Not enough free resources for the job's shape and walltime.
pub const MAUISCHED_REASON_RESOURCES: u32 = 2;
/// The resources are held by a reservation whose ACL excludes the job.
pub const MAUISCHED_REASON_RESERVATION: u32 = 3;
/// A throttling policy (MAXJOB, MAXPROC, ...) blocks the job.
pub const MAUISCHED_REASON_POLICY: u32 = 4;
/// A hold is in place.
pub const MAUISCHED_REASON_HOLD: u32 = 5;
/// An RM dependency is not met.
pub const MAUISCHED_REASON_DEPENDENCY: u32 = 6;
/// The job's begin time is in the future.
pub const MAUISCHED_REASON_BEGIN_TIME: u32 = 7;
/// A fairshare cap (FSCAP) is reached.
pub const MAUISCHED_REASON_FAIRSHARE_CAP: u32 = 8;
/// REJECTNEGPRIOJOBS: the job's priority is negative.
pub const MAUISCHED_REASON_NEGATIVE_PRIORITY: u32 = 9;
/// The job can never run on this cluster as configured.
pub const MAUISCHED_REASON_NO_FIT: u32 = 10;
/// The job would start now, but an operator stopped scheduling
/// (`schedctl -s`). ABI 1.1.
pub const MAUISCHED_REASON_STOPPED: u32 = 11;

fn reason_code(r: &Reason) -> u32 {
    match r {
        Reason::Priority { .. } => MAUISCHED_REASON_PRIORITY,
        Reason::Resources => MAUISCHED_REASON_RESOURCES,
        Reason::Reservation { .. } => MAUISCHED_REASON_RESERVATION,
        Reason::Policy(_) => MAUISCHED_REASON_POLICY,
        Reason::Hold { .. } => MAUISCHED_REASON_HOLD,
        Reason::Dependency => MAUISCHED_REASON_DEPENDENCY,
        Reason::BeginTime { .. } => MAUISCHED_REASON_BEGIN_TIME,
        Reason::FairshareCap { .. } => MAUISCHED_REASON_FAIRSHARE_CAP,
        Reason::NegativePriority => MAUISCHED_REASON_NEGATIVE_PRIORITY,
        Reason::NoFit { .. } => MAUISCHED_REASON_NO_FIT,
        Reason::Stopped { .. } => MAUISCHED_REASON_STOPPED,
    }
}

/// A C string from text the library owns (a NUL inside becomes a space).
pub(crate) fn cstring(s: &str) -> CString {
    CString::new(s.replace('\0', " ")).unwrap_or_default()
}

struct PNode {
    name: CString,
    tasks: u32,
}

fn pnodes(alloc: &[crate::model::NodeTasks]) -> Vec<PNode> {
    alloc
        .iter()
        .map(|a| PNode {
            name: cstring(&a.node),
            tasks: a.tasks,
        })
        .collect()
}

struct PStart {
    job: CString,
    backfill: bool,
    reservation: CString,
    nodes: Vec<PNode>,
    after: Vec<CString>,
}

struct PJob {
    id: CString,
    priority: i64,
    started: bool,
    reason: u32,
    summary: CString,
    detail: CString,
    estimated_start: Time,
    reservation: CString,
    bypass: u32,
    components: Vec<(CString, f64)>,
}

struct PAction {
    kind: u32,
    job: CString,
    by: CString,
}

struct PRes {
    id: CString,
    kind: CString,
    job: CString,
    start: Time,
    end: Time,
    nodes: Vec<PNode>,
}

/// The decisions of one iteration.
///
/// Opaque to C. Returned by [`mauisched_run`], owned by the caller until
/// [`mauisched_plan_free`]; independent of the handle (it may outlive it,
/// and further calls on the handle do not change it). Read-only: several
/// threads may read one plan at the same time.
pub struct mauisched_plan_t {
    now: Time,
    starts: Vec<PStart>,
    jobs: Vec<PJob>,
    index: BTreeMap<String, usize>,
    reservations: Vec<PRes>,
    actions: Vec<PAction>,
    state_status: mauisched_status_t,
    state_saved: bool,
    state_message: CString,
    what_if: WhatIf,
    /// Free memory goes back to the system when the plan is freed (see
    /// `trim`): after the front end has applied it, not before.
    trim: bool,
}

/// `showstart`'s estimates for unreserved jobs, computed on the first
/// question (after the front end has applied the starts), from the
/// iteration the plan came from.
struct WhatIf {
    source: Option<(Arc<LastIteration>, Arc<Config>)>,
    starts: OnceLock<BTreeMap<usize, Time>>,
}

/// Unreserved jobs given a what-if estimate per plan, at most, in
/// priority order (as Slurm's backfill tests a bounded number of jobs).
const WHAT_IF_JOBS: usize = 100;
/// Time spent on what-if estimates per plan, at most: on a very large
/// cluster fewer than [`WHAT_IF_JOBS`] jobs get one.
const WHAT_IF_BUDGET: std::time::Duration = std::time::Duration::from_millis(50);

impl WhatIf {
    fn start(&self, plan_index: usize) -> Option<Time> {
        let starts = self.starts.get_or_init(|| {
            let Some((last, cfg)) = &self.source else {
                return BTreeMap::new();
            };
            let t0 = std::time::Instant::now();
            crate::commands::render::what_if_starts(cfg, last, WHAT_IF_JOBS, || {
                t0.elapsed() < WHAT_IF_BUDGET
            })
            .into_iter()
            .collect()
        });
        starts.get(&plan_index).copied()
    }
}

impl mauisched_plan_t {
    fn new(
        plan: &Plan,
        state: (mauisched_status_t, bool, String),
        source: Option<(Arc<LastIteration>, Arc<Config>)>,
        zone: &crate::model::time::Zone,
    ) -> mauisched_plan_t {
        let jobs: Vec<PJob> = plan
            .jobs
            .iter()
            .map(|j| PJob {
                id: cstring(&j.job),
                priority: j.priority,
                started: j.started,
                reason: j.reason.as_ref().map_or(MAUISCHED_REASON_NONE, reason_code),
                summary: cstring(
                    &j.reason
                        .as_ref()
                        .map(|r| r.summary(zone))
                        .unwrap_or_default(),
                ),
                detail: cstring(
                    &j.reason
                        .as_ref()
                        .map(|r| crate::commands::render::reason_text(r, zone))
                        .unwrap_or_default(),
                ),
                estimated_start: j.estimated_start.unwrap_or(-1),
                reservation: cstring(j.reservation.as_deref().unwrap_or("")),
                bypass: j.bypass_count,
                components: crate::priority::ComponentKind::ALL
                    .iter()
                    .zip(j.components)
                    .map(|(k, points)| (cstring(k.name()), points))
                    .collect(),
            })
            .collect();
        mauisched_plan_t {
            now: plan.now,
            starts: plan
                .starts
                .iter()
                .map(|s| PStart {
                    job: cstring(&s.job),
                    backfill: s.backfill,
                    reservation: cstring(s.reservation.as_deref().unwrap_or("")),
                    nodes: pnodes(&s.allocation),
                    after: s.after.iter().map(|j| cstring(j)).collect(),
                })
                .collect(),
            index: plan
                .jobs
                .iter()
                .enumerate()
                .map(|(i, j)| (j.job.clone(), i))
                .collect(),
            jobs,
            reservations: plan
                .reservations
                .iter()
                .map(|r| PRes {
                    id: cstring(&r.id),
                    kind: cstring(&r.kind),
                    job: cstring(r.job.as_deref().unwrap_or("")),
                    start: r.start,
                    end: r.end,
                    nodes: pnodes(&r.allocation),
                })
                .collect(),
            actions: plan
                .actions
                .iter()
                .map(|a| PAction {
                    kind: match a.kind {
                        crate::engine::ActionKind::Hold => MAUISCHED_ACTION_HOLD,
                        crate::engine::ActionKind::Release => MAUISCHED_ACTION_RELEASE,
                        crate::engine::ActionKind::UserHold => MAUISCHED_ACTION_USER_HOLD,
                        crate::engine::ActionKind::UserRelease => MAUISCHED_ACTION_USER_RELEASE,
                        crate::engine::ActionKind::Cancel => MAUISCHED_ACTION_CANCEL,
                        crate::engine::ActionKind::Requeue => MAUISCHED_ACTION_REQUEUE,
                        crate::engine::ActionKind::Suspend => MAUISCHED_ACTION_SUSPEND,
                        crate::engine::ActionKind::Checkpoint => MAUISCHED_ACTION_CHECKPOINT,
                        crate::engine::ActionKind::Resume => MAUISCHED_ACTION_RESUME,
                    },
                    job: cstring(&a.job),
                    by: cstring(&a.by),
                })
                .collect(),
            state_status: state.0,
            state_saved: state.1,
            state_message: cstring(&state.2),
            what_if: WhatIf {
                source,
                starts: OnceLock::new(),
            },
            trim: false,
        }
    }
}

/// Runs a plan accessor: NULL plan and NULL outputs are refused, panics
/// caught (a plan has no handle to poison).
unsafe fn with_plan(
    p: *const mauisched_plan_t,
    f: impl FnOnce(&mauisched_plan_t) -> FfiResult,
) -> mauisched_status_t {
    if p.is_null() {
        return MAUISCHED_NULL_ARG;
    }
    match boundary(|_| {}, || f(&*p)) {
        Ok(()) => MAUISCHED_OK,
        Err(e) => e.status,
    }
}

fn need<T>(ptrs: &[*const T]) -> FfiResult {
    if ptrs.iter().any(|p| p.is_null()) {
        return Err(FfiError::new(
            MAUISCHED_NULL_ARG,
            "an output pointer is NULL",
        ));
    }
    Ok(())
}

/// Element `i` of `v`, or OUT_OF_RANGE naming the index and the length.
pub(super) fn item<T>(v: &[T], i: usize) -> FfiResult<&T> {
    v.get(i).ok_or_else(|| {
        FfiError::new(
            MAUISCHED_OUT_OF_RANGE,
            format!("index {i} is beyond the end ({} items)", v.len()),
        )
    })
}

#[cfg(debug_assertions)]
fn test_panic_hook() {
    // Debug builds only: lets the ABI tests reach the panic boundary.
    if std::env::var_os("MAUISCHED_TEST_PANIC").is_some_and(|v| v == "mauisched_run") {
        panic!("MAUISCHED_TEST_PANIC=mauisched_run: deliberate panic for the ABI tests");
    }
}

#[cfg(not(debug_assertions))]
fn test_panic_hook() {}

fn run(hd: &mut Handle<'_>) -> FfiResult<mauisched_plan_t> {
    test_panic_hook();
    let snap = hd.snapshot.as_mut().ok_or_else(|| {
        FfiError::new(
            MAUISCHED_NO_SNAPSHOT,
            "mauisched_snapshot_begin was not called",
        )
    })?;
    let now = snap.now.unwrap_or_default();
    let active = snap.jobs.iter().filter(|j| seen_by_passes(j)).count();
    // A bad snapshot is kept (the caller begins a new one); a good one is
    // consumed.
    let ran = hd.svc.iterate(snap)?;
    *hd.snapshot = None;
    let state = match ran.save_error {
        Some(e) => {
            let e = FfiError::from(e);
            (e.status, false, e.message)
        }
        None => (MAUISCHED_OK, ran.saved, String::new()),
    };
    // The what-if estimates come from the iteration that made this plan.
    let source = hd
        .svc
        .engine()
        .last()
        .filter(|last| Arc::ptr_eq(&last.plan, &ran.plan))
        .map(|last| (Arc::clone(last), hd.svc.config_shared()));
    let zone = hd.svc.config().zone.clone();
    let mut plan = mauisched_plan_t::new(&ran.plan, state, source, &zone);
    plan.trim = hd.trim.due(active, now);
    Ok(plan)
}

/// Runs one scheduling iteration over the snapshot built since
/// `mauisched_snapshot_begin`, at that call's `now`.
///
/// The snapshot is checked as a whole first (unique node names and job
/// ids, allocations on listed nodes): an inconsistent one gives
/// `MAUISCHED_BAD_SNAPSHOT` with the reason and is kept, so the caller
/// begins a new one. On success the snapshot is consumed and `*plan_out`
/// receives the plan, owned by the caller until [`mauisched_plan_free`].
///
/// The state is written (fairshare files, then the checkpoint; each
/// atomically) at most once per iteration: on the first iteration of a
/// handle, after an administrative change, and otherwise when
/// CHECKPOINTINTERVAL has passed since the last write. A failed write does
/// not fail the iteration: the plan is returned, the error is logged at
/// `MAUISCHED_LOG_ERROR` and reported by [`mauisched_plan_state_status`],
/// and the next iteration tries again.
///
/// # Safety
/// `h` is a live handle; `plan_out` is valid for writing.
#[no_mangle]
pub unsafe extern "C" fn mauisched_run(
    h: *mut mauisched_t,
    plan_out: *mut *mut mauisched_plan_t,
) -> mauisched_status_t {
    with_handle(h, |hd| {
        if plan_out.is_null() {
            return Err(FfiError::new(MAUISCHED_NULL_ARG, "plan_out is NULL"));
        }
        let plan = run(hd)?;
        *plan_out = Box::into_raw(Box::new(plan));
        Ok(())
    })
}

/// Frees a plan and every string it returned. NULL is a no-op.
///
/// # Safety
/// `plan` is NULL or a plan from [`mauisched_run`] not freed before.
#[no_mangle]
pub unsafe extern "C" fn mauisched_plan_free(plan: *mut mauisched_plan_t) {
    if !plan.is_null() {
        let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let plan = Box::from_raw(plan);
            let trim = plan.trim;
            drop(plan);
            // What the iterations freed, the plan included, goes back to
            // the system now and then (see `trim`).
            if trim {
                super::trim::release_free_memory();
            }
        }));
    }
}

/// The iteration's time (seconds since the epoch).
///
/// # Safety
/// `plan` is a live plan; `now` is valid for writing.
#[no_mangle]
pub unsafe extern "C" fn mauisched_plan_now(
    plan: *const mauisched_plan_t,
    now: *mut i64,
) -> mauisched_status_t {
    with_plan(plan, |p| {
        need(&[now as *const ()])?;
        *now = p.now;
        Ok(())
    })
}

/// What became of the state write of this iteration: `*status` is
/// `MAUISCHED_OK` when the state was written or was not due, else the
/// failure's code (`MAUISCHED_IO_ERROR`); `*saved` says whether it was
/// written; `*message` is the failure's text ("" on success), owned by the
/// plan.
///
/// # Safety
/// `plan` is a live plan; the outputs are valid for writing.
#[no_mangle]
pub unsafe extern "C" fn mauisched_plan_state_status(
    plan: *const mauisched_plan_t,
    status: *mut mauisched_status_t,
    saved: *mut bool,
    message: *mut *const c_char,
) -> mauisched_status_t {
    with_plan(plan, |p| {
        need(&[
            status as *const (),
            saved as *const (),
            message as *const (),
        ])?;
        *status = p.state_status;
        *saved = p.state_saved;
        *message = p.state_message.as_ptr();
        Ok(())
    })
}

/// Number of jobs to start now.
///
/// # Safety
/// `plan` is a live plan; `count` is valid for writing.
#[no_mangle]
pub unsafe extern "C" fn mauisched_plan_start_count(
    plan: *const mauisched_plan_t,
    count: *mut usize,
) -> mauisched_status_t {
    with_plan(plan, |p| {
        need(&[count as *const ()])?;
        *count = p.starts.len();
        Ok(())
    })
}

/// Start number `index` (in the order the scheduler chose them): the job,
/// whether backfill started it, the reservation it runs in ("" for none)
/// and how many nodes it gets (see [`mauisched_plan_start_node`]).
/// `MAUISCHED_OUT_OF_RANGE` past the end.
///
/// # Safety
/// `plan` is a live plan; the outputs are valid for writing.
#[no_mangle]
pub unsafe extern "C" fn mauisched_plan_start(
    plan: *const mauisched_plan_t,
    index: usize,
    job_id: *mut *const c_char,
    backfill: *mut bool,
    reservation: *mut *const c_char,
    node_count: *mut usize,
) -> mauisched_status_t {
    with_plan(plan, |p| {
        need(&[
            job_id as *const (),
            backfill as *const (),
            reservation as *const (),
            node_count as *const (),
        ])?;
        let s = item(&p.starts, index)?;
        *job_id = s.job.as_ptr();
        *backfill = s.backfill;
        *reservation = s.reservation.as_ptr();
        *node_count = s.nodes.len();
        Ok(())
    })
}

/// Node `node_index` of start `index`: its name and the job's tasks there
/// (nodes in RM order).
///
/// # Safety
/// `plan` is a live plan; the outputs are valid for writing.
#[no_mangle]
pub unsafe extern "C" fn mauisched_plan_start_node(
    plan: *const mauisched_plan_t,
    index: usize,
    node_index: usize,
    node: *mut *const c_char,
    tasks: *mut u32,
) -> mauisched_status_t {
    with_plan(plan, |p| {
        need(&[node as *const (), tasks as *const ()])?;
        let n = item(&item(&p.starts, index)?.nodes, node_index)?;
        *node = n.name.as_ptr();
        *tasks = n.tasks;
        Ok(())
    })
}

/// Job `after_index` of those start `index` waits for (ABI 1.7): a job the
/// plan preempts (its action) whose nodes the start uses. When the RM
/// refuses any of those preemptions the front end must not make the start:
/// its resources were not freed. `MAUISCHED_OUT_OF_RANGE` past the last
/// (at once for a start that waits for none).
///
/// # Safety
/// `plan` is a live plan; `job_id` is valid for writing.
#[no_mangle]
pub unsafe extern "C" fn mauisched_plan_start_after(
    plan: *const mauisched_plan_t,
    index: usize,
    after_index: usize,
    job_id: *mut *const c_char,
) -> mauisched_status_t {
    with_plan(plan, |p| {
        need(&[job_id as *const ()])?;
        let j = item(&item(&p.starts, index)?.after, after_index)?;
        *job_id = j.as_ptr();
        Ok(())
    })
}

/// Number of idle jobs the iteration considered (started or not).
///
/// # Safety
/// `plan` is a live plan; `count` is valid for writing.
#[no_mangle]
pub unsafe extern "C" fn mauisched_plan_job_count(
    plan: *const mauisched_plan_t,
    count: *mut usize,
) -> mauisched_status_t {
    with_plan(plan, |p| {
        need(&[count as *const ()])?;
        *count = p.jobs.len();
        Ok(())
    })
}

/// The index of an idle job by id, for the `mauisched_plan_job*` getters;
/// `MAUISCHED_NOT_FOUND` for a job the iteration did not consider
/// (running, unknown).
///
/// # Safety
/// `plan` is a live plan; `job_id` is a valid string; `index` is valid for writing.
#[no_mangle]
pub unsafe extern "C" fn mauisched_plan_job_find(
    plan: *const mauisched_plan_t,
    job_id: *const c_char,
    index: *mut usize,
) -> mauisched_status_t {
    with_plan(plan, |p| {
        need(&[index as *const ()])?;
        let id = req_str(job_id, "job_id")?;
        let i = p.index.get(id).ok_or_else(|| {
            FfiError::new(MAUISCHED_NOT_FOUND, format!("job {id} is not in the plan"))
        })?;
        *index = *i;
        Ok(())
    })
}

/// Idle job number `index`, in priority order (highest first): its id,
/// priority and whether this iteration starts it.
///
/// # Safety
/// `plan` is a live plan; the outputs are valid for writing.
#[no_mangle]
pub unsafe extern "C" fn mauisched_plan_job(
    plan: *const mauisched_plan_t,
    index: usize,
    job_id: *mut *const c_char,
    priority: *mut i64,
    started: *mut bool,
) -> mauisched_status_t {
    with_plan(plan, |p| {
        need(&[
            job_id as *const (),
            priority as *const (),
            started as *const (),
        ])?;
        let j = item(&p.jobs, index)?;
        *job_id = j.id.as_ptr();
        *priority = j.priority;
        *started = j.started;
        Ok(())
    })
}

/// Why idle job `index` waits: a `MAUISCHED_REASON_*` code
/// (`MAUISCHED_REASON_NONE` when it starts), a short summary
/// (`"Policy MAXJOB user steve"`, `"Reservation john.1"`) and Maui's
/// longer wording; both "" when it starts.
///
/// # Safety
/// `plan` is a live plan; the outputs are valid for writing.
#[no_mangle]
pub unsafe extern "C" fn mauisched_plan_job_reason(
    plan: *const mauisched_plan_t,
    index: usize,
    code: *mut u32,
    summary: *mut *const c_char,
    detail: *mut *const c_char,
) -> mauisched_status_t {
    with_plan(plan, |p| {
        need(&[code as *const (), summary as *const (), detail as *const ()])?;
        let j = item(&p.jobs, index)?;
        *code = j.reason;
        *summary = j.summary.as_ptr();
        *detail = j.detail.as_ptr();
        Ok(())
    })
}

/// When idle job `index` is expected to start: the iteration's time for a
/// job it starts, its reservation's start for a reserved job; for one of
/// the first 100 unreserved jobs that wait only for resources, priority, a
/// reservation or their begin time, `showstart`'s estimate (the earliest
/// time its resources are free after this plan), computed on the first
/// call for such a job within at most 50 ms per plan; otherwise -1 (no
/// estimate). Also the job reservation's id ("" for none) and the number
/// of times backfill has bypassed the job.
///
/// # Safety
/// `plan` is a live plan; the outputs are valid for writing.
#[no_mangle]
pub unsafe extern "C" fn mauisched_plan_job_schedule(
    plan: *const mauisched_plan_t,
    index: usize,
    estimated_start: *mut i64,
    reservation: *mut *const c_char,
    bypass_count: *mut u32,
) -> mauisched_status_t {
    with_plan(plan, |p| {
        need(&[
            estimated_start as *const (),
            reservation as *const (),
            bypass_count as *const (),
        ])?;
        let j = item(&p.jobs, index)?;
        *estimated_start = if j.estimated_start >= 0 || j.started {
            j.estimated_start
        } else {
            p.what_if.start(index).unwrap_or(-1)
        };
        *reservation = j.reservation.as_ptr();
        *bypass_count = j.bypass;
        Ok(())
    })
}

/// Number of priority components of idle job `index` (Maui's six: CRED,
/// FS, RES, SERV, TARG, USAGE).
///
/// # Safety
/// `plan` is a live plan; `count` is valid for writing.
#[no_mangle]
pub unsafe extern "C" fn mauisched_plan_priority_count(
    plan: *const mauisched_plan_t,
    index: usize,
    count: *mut usize,
) -> mauisched_status_t {
    with_plan(plan, |p| {
        need(&[count as *const ()])?;
        *count = item(&p.jobs, index)?.components.len();
        Ok(())
    })
}

/// Component `component` of idle job `index`'s priority: its name
/// (`"SERV"`, ...) and the points it adds (weight × capped sum). Their sum,
/// rounded and bounded, is the calculated priority; a system priority
/// (setspri) replaces it.
///
/// # Safety
/// `plan` is a live plan; the outputs are valid for writing.
#[no_mangle]
pub unsafe extern "C" fn mauisched_plan_priority_component(
    plan: *const mauisched_plan_t,
    index: usize,
    component: usize,
    name: *mut *const c_char,
    contribution: *mut f64,
) -> mauisched_status_t {
    with_plan(plan, |p| {
        need(&[name as *const (), contribution as *const ()])?;
        let c = item(&item(&p.jobs, index)?.components, component)?;
        *name = c.0.as_ptr();
        *contribution = c.1;
        Ok(())
    })
}

/// Number of reservations in force: job reservations made in this
/// iteration, then administrative and standing ones.
///
/// # Safety
/// `plan` is a live plan; `count` is valid for writing.
#[no_mangle]
pub unsafe extern "C" fn mauisched_plan_reservation_count(
    plan: *const mauisched_plan_t,
    count: *mut usize,
) -> mauisched_status_t {
    with_plan(plan, |p| {
        need(&[count as *const ()])?;
        *count = p.reservations.len();
        Ok(())
    })
}

/// Reservation number `index`: id, kind (`"Job"`, `"User"` for
/// administrative, `"Standing"`), the job for a job reservation ("" for
/// others), start and end (seconds since the epoch) and its node count.
///
/// # Safety
/// `plan` is a live plan; the outputs are valid for writing.
#[no_mangle]
pub unsafe extern "C" fn mauisched_plan_reservation(
    plan: *const mauisched_plan_t,
    index: usize,
    id: *mut *const c_char,
    kind: *mut *const c_char,
    job_id: *mut *const c_char,
    start: *mut i64,
    end: *mut i64,
    node_count: *mut usize,
) -> mauisched_status_t {
    with_plan(plan, |p| {
        need(&[
            id as *const (),
            kind as *const (),
            job_id as *const (),
            start as *const (),
            end as *const (),
            node_count as *const (),
        ])?;
        let r = item(&p.reservations, index)?;
        *id = r.id.as_ptr();
        *kind = r.kind.as_ptr();
        *job_id = r.job.as_ptr();
        *start = r.start;
        *end = r.end;
        *node_count = r.nodes.len();
        Ok(())
    })
}

/// Node `node_index` of reservation `index`: its name and the tasks held.
///
/// # Safety
/// `plan` is a live plan; the outputs are valid for writing.
#[no_mangle]
pub unsafe extern "C" fn mauisched_plan_reservation_node(
    plan: *const mauisched_plan_t,
    index: usize,
    node_index: usize,
    node: *mut *const c_char,
    tasks: *mut u32,
) -> mauisched_status_t {
    with_plan(plan, |p| {
        need(&[node as *const (), tasks as *const ()])?;
        let n = item(&item(&p.reservations, index)?.nodes, node_index)?;
        *node = n.name.as_ptr();
        *tasks = n.tasks;
        Ok(())
    })
}

/// Number of operator actions (holds, releases, cancels) the front end must apply
/// through the RM, in order, before or after the starts.
///
/// # Safety
/// `plan` is a live plan; `count` is valid for writing.
#[no_mangle]
pub unsafe extern "C" fn mauisched_plan_action_count(
    plan: *const mauisched_plan_t,
    count: *mut usize,
) -> mauisched_status_t {
    with_plan(plan, |p| {
        need(&[count as *const ()])?;
        *count = p.actions.len();
        Ok(())
    })
}

/// Action `index`: its kind (`MAUISCHED_ACTION_*`), the job and who asked.
/// Strings are owned by the plan.
///
/// # Safety
/// `plan` is a live plan; the outputs are valid for writing.
#[no_mangle]
pub unsafe extern "C" fn mauisched_plan_action(
    plan: *const mauisched_plan_t,
    index: usize,
    kind: *mut u32,
    job: *mut *const c_char,
    by: *mut *const c_char,
) -> mauisched_status_t {
    with_plan(plan, |p| {
        need(&[kind as *const (), job as *const (), by as *const ()])?;
        let a = item(&p.actions, index)?;
        *kind = a.kind;
        *job = a.job.as_ptr();
        *by = a.by.as_ptr();
        Ok(())
    })
}
