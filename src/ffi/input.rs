//! Snapshot input: the nodes and jobs the RM reports, one iteration at a time.

use super::handle::{mauisched_t, with_handle};
use super::status::*;
use crate::config::NodeAllocationPolicy;
use crate::model::{
    GresList, HoldKind, Job, JobState, Node, NodeState, NodeTasks, Resources, Snapshot,
};
use std::ffi::c_char;
use std::mem::{offset_of, size_of};

/// Node state: up, nothing running.
pub const MAUISCHED_NODE_IDLE: u32 = 0;
/// Node state: up, some jobs running.
pub const MAUISCHED_NODE_RUNNING: u32 = 1;
/// Node state: up, fully used.
pub const MAUISCHED_NODE_BUSY: u32 = 2;
/// Node state: finishing its jobs, takes no new work.
pub const MAUISCHED_NODE_DRAINING: u32 = 3;
/// Node state: out of service.
pub const MAUISCHED_NODE_DRAINED: u32 = 4;
/// Node state: down.
pub const MAUISCHED_NODE_DOWN: u32 = 5;
/// Node state: unknown.
pub const MAUISCHED_NODE_UNKNOWN: u32 = 6;

/// Job state: queued.
pub const MAUISCHED_JOB_IDLE: u32 = 0;
/// Job state: running.
pub const MAUISCHED_JOB_RUNNING: u32 = 1;
/// Job state: suspended on its nodes.
pub const MAUISCHED_JOB_SUSPENDED: u32 = 2;
/// Job state: completed.
pub const MAUISCHED_JOB_COMPLETED: u32 = 3;
/// Job state: removed (cancelled).
pub const MAUISCHED_JOB_REMOVED: u32 = 4;

/// Hold bit: user hold.
pub const MAUISCHED_HOLD_USER: u32 = 1;
/// Hold bit: system (administrator) hold.
pub const MAUISCHED_HOLD_SYSTEM: u32 = 2;
/// Hold bit: batch hold (repeated start failures).
pub const MAUISCHED_HOLD_BATCH: u32 = 4;

/// A node as the RM reports it. Zero the struct, set `size` to
/// `sizeof(mauisched_node_t)`, then fill in what the RM knows: zero and
/// NULL mean "not known" unless a field says otherwise. Strings are
/// borrowed for the call only; lists are comma-separated.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct mauisched_node_t {
    /// `sizeof(mauisched_node_t)` as the caller compiled it.
    pub size: usize,
    /// Host name (required, unique).
    pub name: *const c_char,
    /// `MAUISCHED_NODE_*`.
    pub state: u32,
    /// Configured processors.
    pub procs: u32,
    /// Configured memory in MB.
    pub mem_mb: u64,
    /// Configured swap in MB.
    pub swap_mb: u64,
    /// Configured local disk in MB.
    pub disk_mb: u64,
    /// True when the `avail_*` fields carry what the RM measures as free.
    pub avail_valid: bool,
    /// Free processors as measured.
    pub avail_procs: u32,
    /// Free memory in MB as measured.
    pub avail_mem_mb: u64,
    /// Free swap in MB as measured.
    pub avail_swap_mb: u64,
    /// Free disk in MB as measured.
    pub avail_disk_mb: u64,
    /// Features, comma-separated, or NULL.
    pub features: *const c_char,
    /// Partition, or NULL.
    pub partition: *const c_char,
    /// Relative speed; 0 when unknown (NODECFG SPEED may set it).
    pub speed: f64,
    /// Processor speed in MHz; 0 when unknown.
    pub procspeed: u32,
    /// One-minute load average.
    pub load: f64,
    /// True when `priority` is set.
    pub has_priority: bool,
    /// Administrative node priority.
    pub priority: i64,
    /// Since ABI 1.3. Generic resources configured, `name[:type]:count`
    /// comma-separated (`gpu:a100:4,tape:2`), or NULL; the RM's count of a
    /// name wins over NODECFG GRES.
    pub gres: *const c_char,
    /// Since ABI 1.3. Generic resources free as measured, in the same
    /// form, when `avail_valid`; NULL: configured minus what running jobs
    /// hold.
    pub avail_gres: *const c_char,
}

/// A job as the RM reports it. Zero the struct, set `size` to
/// `sizeof(mauisched_job_t)`, then fill it in: zero and NULL mean "not
/// set" where noted. Strings are borrowed for the call only; lists are
/// comma-separated. Times are seconds since the epoch.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct mauisched_job_t {
    /// `sizeof(mauisched_job_t)` as the caller compiled it.
    pub size: usize,
    /// Job id (required, unique).
    pub id: *const c_char,
    /// User name (required).
    pub user: *const c_char,
    /// Group name (required).
    pub group: *const c_char,
    /// Account, or NULL.
    pub account: *const c_char,
    /// Class (queue, Slurm partition), or NULL.
    pub class_name: *const c_char,
    /// QOS, or NULL.
    pub qos: *const c_char,
    /// Partition the job is confined to, or NULL.
    pub partition: *const c_char,
    /// `MAUISCHED_JOB_*`.
    pub state: u32,
    /// `MAUISCHED_HOLD_*` bits.
    pub holds: u32,
    /// True while an RM dependency is unmet (zero: none pending).
    pub dependency_pending: bool,
    /// Submission time.
    pub submit_time: i64,
    /// Earliest start (begin time); 0 = none.
    pub earliest_start: i64,
    /// Start time of a running job; 0 = none.
    pub start_time: i64,
    /// Wallclock limit in seconds; 0 = none (SYSTEMDEFAULTJOBWALLTIME applies).
    pub walltime: i64,
    /// Number of tasks (at least 1).
    pub tasks: u32,
    /// Processors per task (at least 1).
    pub task_procs: u32,
    /// Memory per task in MB.
    pub task_mem_mb: u64,
    /// Swap per task in MB.
    pub task_swap_mb: u64,
    /// Disk per task in MB.
    pub task_disk_mb: u64,
    /// Requested node count; 0 = none.
    pub nodes: u32,
    /// Exact tasks per node; 0 = none.
    pub tasks_per_node: u32,
    /// Required features, or NULL.
    pub features: *const c_char,
    /// Preferred features (PREF), or NULL.
    pub pref_features: *const c_char,
    /// Required hosts, or NULL.
    pub hostlist: *const c_char,
    /// Excluded hosts, or NULL.
    pub exclude_hosts: *const c_char,
    /// Reservation requested (ADVRES), or NULL.
    pub advres: *const c_char,
    /// Job attributes for JOBATTRLIST, or NULL.
    pub attributes: *const c_char,
    /// Where a running job runs: `node:tasks,node:tasks`, or NULL.
    pub allocation: *const c_char,
    /// True when `system_priority` is set (setspri).
    pub has_system_priority: bool,
    /// Administrator-set system priority.
    pub system_priority: i64,
    /// True when `utilized_procs` carries a measurement.
    pub utilized_valid: bool,
    /// Processors the job uses now as measured (FSPOLICY UTILIZED...).
    pub utilized_procs: f64,
    /// Per-job NODEALLOCATIONPOLICY keyword, or NULL.
    pub node_allocation_policy: *const c_char,
    /// Since ABI 1.3. Generic resources per task, `name[:type]:count`
    /// comma-separated (Slurm `--gpus-per-task`, Maui `GRES=`), or NULL.
    pub gres_per_task: *const c_char,
    /// Since ABI 1.3. Generic resources per node (Slurm `--gres`,
    /// `--gpus-per-node`, Torque `nodes=N:gpus=G`), or NULL.
    pub gres_per_node: *const c_char,
    /// Since ABI 1.3. Generic resources for the whole job (Slurm
    /// `--gpus`), or NULL.
    pub gres_per_job: *const c_char,
    /// Since ABI 1.4. End time of a finished job (`MAUISCHED_JOB_COMPLETED`
    /// or `MAUISCHED_JOB_REMOVED` after it ran, with `start_time`); 0 =
    /// none. Report finished jobs as long as the RM keeps them: fairshare
    /// charges each its exact use up to this time, once.
    pub end_time: i64,
}

/// Smallest `size` accepted for each input struct: its first ABI version.
/// Later minor versions only append fields; callers built against an older
/// header get defaults for the fields they do not know.
pub const MAUISCHED_NODE_T_MIN_SIZE: usize =
    offset_of!(mauisched_node_t, priority) + size_of::<i64>();
/// See [`MAUISCHED_NODE_T_MIN_SIZE`].
pub const MAUISCHED_JOB_T_MIN_SIZE: usize =
    offset_of!(mauisched_job_t, node_allocation_policy) + size_of::<*const c_char>();

/// Copies a caller's struct of `size` bytes into a zeroed one of ours, so a
/// smaller (older) struct never leads us to read past its end.
pub(crate) unsafe fn read_versioned<T: Copy>(p: *const T, min: usize, what: &str) -> FfiResult<T> {
    if p.is_null() {
        return Err(FfiError::new(MAUISCHED_NULL_ARG, format!("{what} is NULL")));
    }
    let size = *(p as *const usize);
    if size < min {
        return Err(FfiError::new(
            MAUISCHED_BAD_STRUCT_SIZE,
            format!("{what}.size is {size} (at least {min} expected): set it to sizeof({what})"),
        ));
    }
    let mut v = std::mem::MaybeUninit::<T>::zeroed();
    std::ptr::copy_nonoverlapping(
        p as *const u8,
        v.as_mut_ptr() as *mut u8,
        size.min(size_of::<T>()),
    );
    Ok(v.assume_init())
}

/// A generic resource list field; the message names the field.
unsafe fn gres_str(
    p: *const c_char,
    what: &str,
    bad: impl Fn(String) -> FfiError,
) -> FfiResult<GresList> {
    match opt_str(p, what)? {
        None => Ok(GresList::default()),
        Some(s) => GresList::parse(s).map_err(|e| bad(format!("{what}: {e}"))),
    }
}

fn node_state(v: u32) -> Option<NodeState> {
    Some(match v {
        MAUISCHED_NODE_IDLE => NodeState::Idle,
        MAUISCHED_NODE_RUNNING => NodeState::Running,
        MAUISCHED_NODE_BUSY => NodeState::Busy,
        MAUISCHED_NODE_DRAINING => NodeState::Draining,
        MAUISCHED_NODE_DRAINED => NodeState::Drained,
        MAUISCHED_NODE_DOWN => NodeState::Down,
        MAUISCHED_NODE_UNKNOWN => NodeState::Unknown,
        _ => return None,
    })
}

fn job_state(v: u32) -> Option<JobState> {
    Some(match v {
        MAUISCHED_JOB_IDLE => JobState::Idle,
        MAUISCHED_JOB_RUNNING => JobState::Running,
        MAUISCHED_JOB_SUSPENDED => JobState::Suspended,
        MAUISCHED_JOB_COMPLETED => JobState::Completed,
        MAUISCHED_JOB_REMOVED => JobState::Removed,
        _ => return None,
    })
}

/// Converts a C node into the model (validating every field).
///
/// # Safety
/// `p` is NULL or points to a `mauisched_node_t` whose `size` bytes are readable.
pub unsafe fn node_from_c(p: *const mauisched_node_t) -> FfiResult<Node> {
    let n = read_versioned(p, MAUISCHED_NODE_T_MIN_SIZE, "mauisched_node_t")?;
    let name = req_str(n.name, "node.name")?.to_string();
    let bad = |m: String| FfiError::new(MAUISCHED_BAD_VALUE, format!("node {name}: {m}"));
    let state = node_state(n.state)
        .ok_or_else(|| bad(format!("state {} is not a MAUISCHED_NODE_* value", n.state)))?;
    if !(n.speed.is_finite() && n.speed >= 0.0 && n.load.is_finite()) {
        return Err(bad(
            "speed and load must be finite, speed not negative".into()
        ));
    }
    Ok(Node {
        name: name.clone(),
        index: 0,
        state,
        configured: Resources {
            procs: n.procs,
            mem: n.mem_mb,
            swap: n.swap_mb,
            disk: n.disk_mb,
            ..Resources::ZERO
        },
        available: n.avail_valid.then_some(Resources {
            procs: n.avail_procs,
            mem: n.avail_mem_mb,
            swap: n.avail_swap_mb,
            disk: n.avail_disk_mb,
            ..Resources::ZERO
        }),
        gres: gres_str(n.gres, "node.gres", bad)?,
        available_gres: match n.avail_valid && !n.avail_gres.is_null() {
            true => Some(gres_str(n.avail_gres, "node.avail_gres", bad)?),
            false => None,
        },
        features: list_str(n.features, "node.features")?,
        partition: opt_str(n.partition, "node.partition")?.map(str::to_string),
        speed: (n.speed > 0.0).then_some(n.speed),
        procspeed: (n.procspeed > 0).then_some(n.procspeed),
        load: n.load,
        priority: n.has_priority.then_some(n.priority),
        usage: None,
    })
}

/// Converts a C job into the model (validating every field).
///
/// # Safety
/// `p` is NULL or points to a `mauisched_job_t` whose `size` bytes are readable.
pub unsafe fn job_from_c(p: *const mauisched_job_t) -> FfiResult<Job> {
    let j = read_versioned(p, MAUISCHED_JOB_T_MIN_SIZE, "mauisched_job_t")?;
    let id = req_str(j.id, "job.id")?.to_string();
    let bad = |m: String| FfiError::new(MAUISCHED_BAD_VALUE, format!("job {id}: {m}"));
    let state = job_state(j.state)
        .ok_or_else(|| bad(format!("state {} is not a MAUISCHED_JOB_* value", j.state)))?;
    if j.tasks == 0 {
        return Err(bad("tasks is 0".into()));
    }
    if j.task_procs == 0 {
        return Err(bad("task_procs is 0: every task needs a processor".into()));
    }
    if j.utilized_valid && !(j.utilized_procs.is_finite() && j.utilized_procs >= 0.0) {
        return Err(bad(format!(
            "utilized_procs {} must be a finite number >= 0",
            j.utilized_procs
        )));
    }
    if j.end_time != 0 && j.start_time != 0 && j.end_time < j.start_time {
        return Err(bad(format!(
            "end_time {} is before start_time {}",
            j.end_time, j.start_time
        )));
    }
    if j.walltime < 0 {
        return Err(bad(format!("walltime {} is negative", j.walltime)));
    }
    if j.holds & !(MAUISCHED_HOLD_USER | MAUISCHED_HOLD_SYSTEM | MAUISCHED_HOLD_BATCH) != 0 {
        return Err(bad(format!("holds {:#x} has unknown bits", j.holds)));
    }
    let mut holds = Vec::new();
    for (bit, k) in [
        (MAUISCHED_HOLD_USER, HoldKind::User),
        (MAUISCHED_HOLD_SYSTEM, HoldKind::System),
        (MAUISCHED_HOLD_BATCH, HoldKind::Batch),
    ] {
        if j.holds & bit != 0 {
            holds.push(k);
        }
    }
    let mut allocation = Vec::new();
    for item in list_str(j.allocation, "job.allocation")? {
        let (node, tasks) = item.rsplit_once(':').unwrap_or((item.as_str(), "1"));
        let tasks: u32 = tasks
            .parse()
            .map_err(|_| bad(format!("allocation item \"{item}\" is not node:tasks")))?;
        allocation.push(NodeTasks {
            node: node.to_string(),
            tasks,
        });
    }
    let policy = match opt_str(j.node_allocation_policy, "job.node_allocation_policy")? {
        None => None,
        Some(s) => Some(
            NodeAllocationPolicy::from_keyword(s)
                .ok_or_else(|| bad(format!("node allocation policy \"{s}\" is unknown")))?,
        ),
    };
    let t = |v: i64| (v != 0).then_some(v);
    Ok(Job {
        id: id.clone(),
        user: req_str(j.user, "job.user")?.to_string(),
        group: req_str(j.group, "job.group")?.to_string(),
        account: opt_str(j.account, "job.account")?.map(str::to_string),
        class: opt_str(j.class_name, "job.class_name")?.map(str::to_string),
        qos: opt_str(j.qos, "job.qos")?.map(str::to_string),
        partition: opt_str(j.partition, "job.partition")?.map(str::to_string),
        state,
        holds: holds.into(),
        dependency_satisfied: !j.dependency_pending,
        submit_time: j.submit_time,
        earliest_start: t(j.earliest_start),
        start_time: t(j.start_time),
        end_time: t(j.end_time),
        walltime: t(j.walltime),
        tasks: j.tasks,
        task: Resources {
            procs: j.task_procs,
            mem: j.task_mem_mb,
            swap: j.task_swap_mb,
            disk: j.task_disk_mb,
            ..Resources::ZERO
        },
        gres_per_task: gres_str(j.gres_per_task, "job.gres_per_task", bad)?,
        gres_per_node: gres_str(j.gres_per_node, "job.gres_per_node", bad)?,
        gres_per_job: gres_str(j.gres_per_job, "job.gres_per_job", bad)?,
        node_gres: Default::default(),
        bundle: 0,
        nodes: (j.nodes > 0).then_some(j.nodes),
        tasks_per_node: (j.tasks_per_node > 0).then_some(j.tasks_per_node),
        features: list_str(j.features, "job.features")?.into(),
        // Comparisons on a node's configured memory or disk are Maui trace
        // fields; the RMs ask for amounts (in `task`).
        node_mem: None,
        node_disk: None,
        pref_features: list_str(j.pref_features, "job.pref_features")?.into(),
        hostlist: list_str(j.hostlist, "job.hostlist")?.into(),
        exclude_hosts: list_str(j.exclude_hosts, "job.exclude_hosts")?.into(),
        advres: opt_str(j.advres, "job.advres")?.map(str::to_string),
        attributes: list_str(j.attributes, "job.attributes")?.into(),
        bypass_count: 0,
        system_priority: j.has_system_priority.then_some(j.system_priority),
        node_allocation_policy: policy,
        allocation,
        utilized_procs: j.utilized_valid.then_some(j.utilized_procs),
    })
}

/// Starts a new snapshot at time `now` (seconds since the epoch), dropping
/// any snapshot not yet run. Add every node, then every job.
///
/// # Safety
/// `h` is a live handle.
#[no_mangle]
pub unsafe extern "C" fn mauisched_snapshot_begin(
    h: *mut mauisched_t,
    now: i64,
) -> mauisched_status_t {
    with_handle(h, |hd| {
        *hd.snapshot = Some(Snapshot {
            now: Some(now),
            nodes: Vec::new(),
            jobs: Vec::new(),
            ..Snapshot::default()
        });
        Ok(())
    })
}

/// Adds a node to the current snapshot (copied; `node` may be reused).
/// Nodes keep the order they are added in (RM order matters to
/// FIRSTAVAILABLE and CONTIGUOUS). Errors: `MAUISCHED_NO_SNAPSHOT` before
/// `mauisched_snapshot_begin`, `MAUISCHED_BAD_STRUCT_SIZE`,
/// `MAUISCHED_BAD_UTF8`, `MAUISCHED_BAD_VALUE` (the message names the
/// field); the snapshot is unchanged on error.
///
/// # Safety
/// `h` is a live handle; `node` is NULL or a valid `mauisched_node_t`.
#[no_mangle]
pub unsafe extern "C" fn mauisched_snapshot_add_node(
    h: *mut mauisched_t,
    node: *const mauisched_node_t,
) -> mauisched_status_t {
    with_handle(h, |hd| {
        let n = node_from_c(node)?;
        let s = hd.snapshot.as_mut().ok_or_else(|| {
            FfiError::new(
                MAUISCHED_NO_SNAPSHOT,
                "mauisched_snapshot_begin was not called",
            )
        })?;
        s.nodes.push(n);
        Ok(())
    })
}

/// Adds a job to the current snapshot (copied; `job` may be reused), in
/// any order. Errors as for [`mauisched_snapshot_add_node`]; duplicate ids
/// and allocations on unknown nodes are found by `mauisched_run`.
///
/// # Safety
/// `h` is a live handle; `job` is NULL or a valid `mauisched_job_t`.
#[no_mangle]
pub unsafe extern "C" fn mauisched_snapshot_add_job(
    h: *mut mauisched_t,
    job: *const mauisched_job_t,
) -> mauisched_status_t {
    with_handle(h, |hd| {
        let j = job_from_c(job)?;
        let s = hd.snapshot.as_mut().ok_or_else(|| {
            FfiError::new(
                MAUISCHED_NO_SNAPSHOT,
                "mauisched_snapshot_begin was not called",
            )
        })?;
        s.jobs.push(j);
        Ok(())
    })
}
