//! Maui's own trace formats: resource traces (one compute node per line,
//! 21 fields, guide section 16.2) and workload traces (one job per line, 44
//! fields, section 16.3).
//!
//! Both are whitespace-separated; `[NONE]` marks an empty value; lists are
//! written `[a][b]`; as in Maui 3.3's readers (`MTrace.c`), a `#` begins a
//! comment wherever it is, and a line beginning with `VERSION` gives the
//! trace version, which must be 230, the only one Maui 3.3 reads and the
//! one it writes first in its traces (`VERSION 230`).
//! The guide's own workload sample predates its table in places: it writes
//! `0` where a name is absent (QOS, account, partition, resource manager) and
//! a numeric flag word in the flags field. The reader accepts both: `0` in
//! those name fields and a bare number as flags mean "none".
//!
//! Generic resources: a node's come from field 18 when it holds a list
//! (`[gpu:4][tape:2]`, `NAME[:COUNT]` items, as Maui 3.3's reader takes that
//! field; the guide's table calls it the relative speed, and a number there
//! still is one). A job's come from its RM extension string (field 28,
//! `ATTR:VALUE` or `ATTR=VALUE` items separated by `;`, section 13.3):
//! `GRES:tape,matlab@2` (the guide) or `GRES:tape:matlab@2` (Maui's
//! reader), each `NAME[@COUNT]`, per task; `GRES=tape:2` (a count after a
//! colon, the form Slurm writes) is read as two tapes. Other extensions are
//! ignored, as they are by Maui's simulator.
//!
//! A job's node requirements are honoured as Maui's simulator honours them:
//! the node memory and disk comparisons (fields 16-19) against the nodes'
//! configured memory and disk, the required features, and the required
//! network adapter, architecture and operating system (fields 13-15) as
//! node features `network:NAME`, `arch:NAME` and `os:NAME`, which the nodes
//! of a resource trace carry from their fields 14, 15 and 17. A job whose
//! requirement no node meets is rejected with the reason (`NoFit`), never
//! run elsewhere. What the engine has no use for (a node's run classes and
//! frame, a job's executable and set constraints) is kept in the typed
//! record only.

use super::input::{self, InputError, LineReader, ReadOptions, ReadStats};
use super::swf::{Continuation, FieldError, SwfHeader};
use super::workload::{MapOptions, NoRequest, SimJob, SkipReason};
use crate::model::{GresList, Job, Node, NodeState, Resources, Secs, Time};
use std::io::BufRead;

/// Field names of a resource trace line, in order.
pub const RESOURCE_FIELDS: [&str; 21] = [
    "resource type",
    "event type",
    "event time",
    "resource id",
    "resource manager name",
    "configured swap",
    "configured memory",
    "configured disk",
    "configured processors",
    "frame location",
    "slot location",
    "slot use count",
    "operating system",
    "architecture",
    "node features",
    "run classes",
    "network adapters",
    "relative speed",
    "reserved field 1",
    "reserved field 2",
    "reserved field 3",
];

/// Field names of a workload trace line, in order.
pub const WORKLOAD_FIELDS: [&str; 44] = [
    "job id",
    "nodes requested",
    "tasks requested",
    "user name",
    "group name",
    "wallclock limit",
    "job completion state",
    "required class",
    "submission time",
    "dispatch time",
    "start time",
    "completion time",
    "required network adapter",
    "required node architecture",
    "required node operating system",
    "required node memory comparison",
    "required node memory",
    "required node disk comparison",
    "required node disk",
    "required node attributes",
    "system queue time",
    "tasks allocated",
    "required tasks per node",
    "QOS",
    "job flags",
    "account name",
    "executable",
    "comment",
    "bypass count",
    "proc-seconds utilized",
    "partition name",
    "dedicated processors per task",
    "dedicated memory per task",
    "dedicated disk per task",
    "dedicated swap per task",
    "start date",
    "end date",
    "allocated host list",
    "resource manager name",
    "required host mask",
    "reservation",
    "set description",
    "application simulator data",
    "reserved field 1",
];

/// Resource trace field 2: the state a node starts in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ResourceEvent {
    /// `AVAILABLE`: the node starts Idle.
    Available,
    /// `DEFINED`: the node exists but starts Down.
    Defined,
    /// `DRAINED`: the node starts Drained.
    Drained,
}

/// One resource trace line.
#[derive(Clone, Debug, PartialEq)]
pub struct ResourceRecord {
    /// Field 2: starting state.
    pub event: ResourceEvent,
    /// Field 3: event time (Maui ignores it).
    pub event_time: Time,
    /// Field 4: node name.
    pub name: String,
    /// Field 5: resource manager.
    pub rm: Option<String>,
    /// Field 6: swap, MB.
    pub swap: u64,
    /// Field 7: real memory, MB.
    pub mem: u64,
    /// Field 8: local disk, MB.
    pub disk: u64,
    /// Field 9: processors.
    pub procs: u32,
    /// Field 10: SP2 frame (`-1`: none).
    pub frame: i64,
    /// Field 11: SP2 first slot (`-1`: none).
    pub slot: i64,
    /// Field 12: SP2 slots used.
    pub slot_count: i64,
    /// Field 13: operating system.
    pub os: Option<String>,
    /// Field 14: architecture.
    pub arch: Option<String>,
    /// Field 15: features.
    pub features: Vec<String>,
    /// Field 16: run classes with their slot counts (`[batch:2]`).
    pub classes: Vec<(String, u32)>,
    /// Field 17: network adapters.
    pub networks: Vec<String>,
    /// Field 18: relative speed (1.0 when the field lists generic
    /// resources instead).
    pub speed: f64,
    /// Field 18 as Maui 3.3 reads it: generic resources (`[gpu:4]`).
    pub gres: GresList,
    /// Fields 19-21, reserved.
    pub reserved: [Option<String>; 3],
}

impl ResourceRecord {
    /// Parses one line.
    pub fn parse(line: &[u8]) -> Result<ResourceRecord, FieldError> {
        let f = split_exact(line, &RESOURCE_FIELDS)?;
        let p = Fields {
            f: &f,
            names: &RESOURCE_FIELDS,
        };
        let kind = p.text(0);
        if !kind.eq_ignore_ascii_case("COMPUTENODE") {
            return Err(p.err(0, format!("expected COMPUTENODE, got \"{kind}\"")));
        }
        let ev = p.text(1);
        let event = match ev.to_ascii_uppercase().as_str() {
            "AVAILABLE" => ResourceEvent::Available,
            "DEFINED" => ResourceEvent::Defined,
            "DRAINED" => ResourceEvent::Drained,
            _ => {
                return Err(p.err(
                    1,
                    format!("expected AVAILABLE, DEFINED or DRAINED, got \"{ev}\""),
                ))
            }
        };
        let name = p
            .name(3)
            .ok_or_else(|| p.err(3, "a node name is required".into()))?;
        let f18 = p.text(17);
        let (speed, gres) = if is_none(&f18) {
            (1.0, GresList::default())
        } else if f18.starts_with('[') {
            (1.0, p.gres_list(17)?)
        } else {
            let speed = p.real(17)?;
            if speed <= 0.0 {
                return Err(p.err(17, format!("speed must be positive, got {speed}")));
            }
            (speed, GresList::default())
        };
        Ok(ResourceRecord {
            event,
            event_time: p.int(2, 0)?,
            name,
            rm: p.name(4),
            swap: p.int(5, 0)? as u64,
            mem: p.int(6, 0)? as u64,
            disk: p.int(7, 0)? as u64,
            procs: p.u32(8)?,
            frame: p.int(9, -1)?,
            slot: p.int(10, -1)?,
            slot_count: p.int(11, -1)?,
            os: p.name(12),
            arch: p.name(13),
            features: p.list(14)?,
            classes: p.classes(15)?,
            networks: p.list(16)?,
            speed,
            gres,
            reserved: [p.name(18), p.name(19), p.name(20)],
        })
    }

    /// The node this line describes.
    pub fn to_node(&self) -> Node {
        Node {
            name: self.name.clone(),
            state: match self.event {
                ResourceEvent::Available => NodeState::Idle,
                ResourceEvent::Defined => NodeState::Down,
                ResourceEvent::Drained => NodeState::Drained,
            },
            configured: Resources {
                procs: self.procs,
                mem: self.mem,
                swap: self.swap,
                disk: self.disk,
                ..Resources::ZERO
            },
            features: node_features(
                &self.features,
                self.arch.as_deref(),
                self.os.as_deref(),
                &self.networks,
            ),
            speed: Some(self.speed),
            gres: self.gres.clone(),
            ..Node::default()
        }
    }
}

/// `[a][b]`, or `[NONE]` for an empty list (resource trace lists).
fn bracketed<'a>(items: impl Iterator<Item = &'a str>) -> String {
    let out: String = items.map(|i| format!("[{i}]")).collect();
    if out.is_empty() {
        "[NONE]".into()
    } else {
        out
    }
}

/// A node as one resource trace line (Maui's `MTraceBuildResource`, what
/// `schedctl -n` prints): its configured resources, features, generic
/// resources, and its state as the starting event (down nodes DEFINED,
/// drained ones DRAINED). [`ResourceRecord::parse`] reads it back to the
/// same node, so the output serves as a cluster file for `simulate`.
pub fn resource_line(n: &Node, now: Time) -> String {
    let event = match n.state {
        NodeState::Down => "DEFINED",
        NodeState::Drained | NodeState::Draining => "DRAINED",
        _ => "AVAILABLE",
    };
    let tagged = |tag: &str| -> Vec<&str> {
        n.features
            .iter()
            .filter_map(|f| f.strip_prefix(tag))
            .collect()
    };
    let plain = n
        .features
        .iter()
        .filter(|f| {
            !["arch:", "os:", "network:"]
                .iter()
                .any(|t| f.starts_with(t))
        })
        .map(String::as_str);
    let one = |v: Vec<&str>| v.first().map_or("[NONE]".to_string(), |s| s.to_string());
    let f18 = if n.gres.is_empty() {
        format!("{}", n.speed.unwrap_or(1.0))
    } else {
        bracketed(n.gres.to_string().split(','))
    };
    let c = &n.configured;
    format!(
        "COMPUTENODE {event} {now} {} [NONE] {} {} {} {} -1 -1 1 {} {} {} [NONE] {} {f18} [NONE] [NONE] [NONE]",
        n.name,
        c.swap,
        c.mem,
        c.disk,
        c.procs,
        one(tagged("os:")),
        one(tagged("arch:")),
        bracketed(plain),
        bracketed(tagged("network:").into_iter()),
    )
}

/// Workload trace field 7.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CompletionState {
    /// Ran to completion.
    Completed,
    /// Cancelled (possibly after starting).
    Removed,
    /// Never ran.
    NotRun,
}

/// Comparison of a node requirement (fields 16 and 18).
pub use crate::model::Cmp;

/// One workload trace line.
#[derive(Clone, Debug, PartialEq)]
pub struct WorkloadRecord {
    /// 1: job id.
    pub id: String,
    /// 2: nodes requested (0: no node count).
    pub nodes: u32,
    /// 3: tasks requested.
    pub tasks: u32,
    /// 4: user.
    pub user: String,
    /// 5: group.
    pub group: String,
    /// 6: wallclock limit, seconds.
    pub walltime: Secs,
    /// 7: how it ended.
    pub state: CompletionState,
    /// 8: required classes with instance counts (`[batch:1]`).
    pub classes: Vec<(String, u32)>,
    /// 9: submission time (epoch).
    pub submit: Time,
    /// 10: dispatch time.
    pub dispatch: Time,
    /// 11: start time.
    pub start: Time,
    /// 12: completion time.
    pub completion: Time,
    /// 13: required network adapter.
    pub network: Option<String>,
    /// 14: required node architecture.
    pub arch: Option<String>,
    /// 15: required node operating system.
    pub os: Option<String>,
    /// 16-17: required node memory (MB) and how it compares.
    pub node_mem: (Cmp, u64),
    /// 18-19: required node disk (MB) and how it compares.
    pub node_disk: (Cmp, u64),
    /// 20: required node features.
    pub features: Vec<String>,
    /// 21: time the job met all fairness policies.
    pub system_queue_time: Time,
    /// 22: tasks allocated.
    pub tasks_allocated: u32,
    /// 23: required tasks per node (`None`: no requirement).
    pub tasks_per_node: Option<u32>,
    /// 24: QOS requested.
    pub qos_requested: Option<String>,
    /// 24: QOS delivered.
    pub qos_delivered: Option<String>,
    /// 25: job flags (`[BACKFILL][PREEMPTEE]`).
    pub flags: Vec<String>,
    /// 26: account.
    pub account: Option<String>,
    /// 27: executable.
    pub executable: Option<String>,
    /// 28: RM-specific comment.
    pub comment: Option<String>,
    /// 28: generic resources per task (its `GRES` RM extension).
    pub gres: GresList,
    /// 29: times bypassed by backfill (`None`: not recorded).
    pub bypass: Option<u32>,
    /// 30: processor-seconds actually used (statistics only).
    pub proc_seconds: f64,
    /// 31: partition the job ran in.
    pub partition: Option<String>,
    /// 32: processors per task.
    pub procs_per_task: u32,
    /// 33: memory per task, MB.
    pub mem_per_task: u64,
    /// 34: disk per task, MB.
    pub disk_per_task: u64,
    /// 35: swap per task, MB.
    pub swap_per_task: u64,
    /// 36: earliest start (epoch, 0: none).
    pub start_date: Time,
    /// 37: deadline (epoch, 0: none).
    pub end_date: Time,
    /// 38: hosts allocated.
    pub alloc_hosts: Vec<String>,
    /// 39: resource manager.
    pub rm: Option<String>,
    /// 40: required hosts.
    pub host_mask: Vec<String>,
    /// 41: required reservation.
    pub reservation: Option<String>,
    /// 42: set constraint (`ONEOF:PROCSPEED:350:450`).
    pub set_description: Option<String>,
    /// 43: application simulator data.
    pub app_sim: Option<String>,
    /// 44: reserved.
    pub reserved: Option<String>,
}

impl WorkloadRecord {
    /// Parses one line.
    pub fn parse(line: &[u8]) -> Result<WorkloadRecord, FieldError> {
        let f = split_exact(line, &WORKLOAD_FIELDS)?;
        let p = Fields {
            f: &f,
            names: &WORKLOAD_FIELDS,
        };
        let st = p.text(6);
        let state = match st.to_ascii_lowercase().as_str() {
            "completed" => CompletionState::Completed,
            "removed" => CompletionState::Removed,
            "notrun" => CompletionState::NotRun,
            _ => {
                return Err(p.err(
                    6,
                    format!("expected Completed, Removed or NotRun, got \"{st}\""),
                ))
            }
        };
        let qos = p.name_or_zero(23);
        let (qos_requested, qos_delivered) = match qos.as_deref().map(|q| q.split_once(':')) {
            Some(Some((r, d))) => (
                (!r.is_empty()).then(|| r.to_string()),
                (!d.is_empty()).then(|| d.to_string()),
            ),
            Some(None) => (qos, None),
            None => (None, None),
        };
        let flags_text = p.text(24);
        let flags = if flags_text.bytes().all(|b| b.is_ascii_digit()) {
            Vec::new()
        } else {
            p.list(24)?
        };
        let tpn = p.int(22, -1)?;
        let bypass = p.int(28, -1)?;
        Ok(WorkloadRecord {
            id: p
                .name(0)
                .ok_or_else(|| p.err(0, "a job id is required".into()))?,
            nodes: p.u32(1)?,
            tasks: p.u32(2)?,
            user: p
                .name(3)
                .ok_or_else(|| p.err(3, "a user name is required".into()))?,
            group: p
                .name(4)
                .ok_or_else(|| p.err(4, "a group name is required".into()))?,
            walltime: p.int(5, 0)?,
            state,
            classes: p.classes(7)?,
            submit: p.int(8, 0)?,
            dispatch: p.int(9, 0)?,
            start: p.int(10, 0)?,
            completion: p.int(11, 0)?,
            network: p.name(12),
            arch: p.name(13),
            os: p.name(14),
            node_mem: (p.cmp(15)?, p.int(16, 0)? as u64),
            node_disk: (p.cmp(17)?, p.int(18, 0)? as u64),
            features: p.list(19)?,
            system_queue_time: p.int(20, 0)?,
            tasks_allocated: p.u32(21)?,
            tasks_per_node: (tpn > 0).then_some(tpn as u32),
            qos_requested,
            qos_delivered,
            flags,
            account: p.name_or_zero(25),
            executable: p.name(26),
            comment: p.name(27),
            gres: match p.name(27) {
                Some(c) => rm_extension_gres(&c).map_err(|m| p.err(27, m))?,
                None => GresList::default(),
            },
            bypass: (bypass >= 0).then_some(bypass as u32),
            proc_seconds: p.real(29)?,
            partition: p.name_or_zero(30),
            procs_per_task: p.u32(31)?,
            mem_per_task: p.int(32, 0)? as u64,
            disk_per_task: p.int(33, 0)? as u64,
            swap_per_task: p.int(34, 0)? as u64,
            start_date: p.int(35, 0)?,
            end_date: p.int(36, 0)?,
            alloc_hosts: p.hosts(37)?,
            rm: p.name_or_zero(38),
            host_mask: p.hosts(39)?,
            reservation: p.name(40),
            set_description: p.name(41),
            app_sim: p.name(42),
            reserved: p.name(43),
        })
    }
}

impl WorkloadRecord {
    /// The record as one workload trace line, as [`WorkloadRecord::parse`]
    /// reads it back: absent names and empty lists are `[NONE]`, lists
    /// `[a][b]`, host lists `a:b`. Names must hold no blank and no `#`
    /// (the format has no quoting), which the caller sees to.
    pub fn to_line(&self) -> String {
        fn name(n: &Option<String>) -> &str {
            n.as_deref().unwrap_or("[NONE]")
        }
        fn list<'a>(items: impl Iterator<Item = &'a str>) -> String {
            bracketed(items)
        }
        fn hosts(h: &[String]) -> String {
            if h.is_empty() {
                "[NONE]".into()
            } else {
                h.join(":")
            }
        }
        fn cmp(c: Cmp) -> &'static str {
            match c {
                Cmp::Gt => ">",
                Cmp::Ge => ">=",
                Cmp::Eq => "=",
                Cmp::Le => "<=",
                Cmp::Lt => "<",
            }
        }
        let classes: Vec<String> = self
            .classes
            .iter()
            .map(|(c, n)| format!("{c}:{n}"))
            .collect();
        let qos = match (&self.qos_requested, &self.qos_delivered) {
            (None, None) => "[NONE]".to_string(),
            (Some(r), None) => r.clone(),
            (r, Some(d)) => format!("{}:{d}", r.as_deref().unwrap_or("")),
        };
        let state = match self.state {
            CompletionState::Completed => "Completed",
            CompletionState::Removed => "Removed",
            CompletionState::NotRun => "NotRun",
        };
        let f: [String; 44] = [
            self.id.clone(),
            self.nodes.to_string(),
            self.tasks.to_string(),
            self.user.clone(),
            self.group.clone(),
            self.walltime.to_string(),
            state.to_string(),
            list(classes.iter().map(String::as_str)),
            self.submit.to_string(),
            self.dispatch.to_string(),
            self.start.to_string(),
            self.completion.to_string(),
            name(&self.network).to_string(),
            name(&self.arch).to_string(),
            name(&self.os).to_string(),
            cmp(self.node_mem.0).to_string(),
            self.node_mem.1.to_string(),
            cmp(self.node_disk.0).to_string(),
            self.node_disk.1.to_string(),
            list(self.features.iter().map(String::as_str)),
            self.system_queue_time.to_string(),
            self.tasks_allocated.to_string(),
            self.tasks_per_node.unwrap_or(0).to_string(),
            qos,
            list(self.flags.iter().map(String::as_str)),
            name(&self.account).to_string(),
            name(&self.executable).to_string(),
            name(&self.comment).to_string(),
            self.bypass.map_or(-1, i64::from).to_string(),
            self.proc_seconds.to_string(),
            name(&self.partition).to_string(),
            self.procs_per_task.to_string(),
            self.mem_per_task.to_string(),
            self.disk_per_task.to_string(),
            self.swap_per_task.to_string(),
            self.start_date.to_string(),
            self.end_date.to_string(),
            hosts(&self.alloc_hosts),
            name(&self.rm).to_string(),
            hosts(&self.host_mask),
            name(&self.reservation).to_string(),
            name(&self.set_description).to_string(),
            name(&self.app_sim).to_string(),
            name(&self.reserved).to_string(),
        ];
        f.join(" ")
    }
}

/// Partition names that mean "no particular partition" in Maui.
fn is_any_partition(p: &str) -> bool {
    p.eq_ignore_ascii_case("DEFAULT") || p.eq_ignore_ascii_case("ALL")
}

/// Turns a workload trace record into a job.
///
/// Conventions: tasks requested (else allocated) tasks of
/// `procs_per_task` processors (at least one) with the dedicated memory,
/// swap and disk per task; a node count when one was requested; the first
/// required class unless it is Maui's `DEFAULT`; the requested QOS; flags as
/// job attributes; the required host mask as host list; submit time as
/// recorded (0 means unknown); the start date as earliest start; runtime =
/// completion - start, as the guide says the simulator computes it; the
/// wallclock limit (field 6) as walltime, [`MapOptions::no_request`] when it
/// is 0. The partition (where the job ran) becomes a requirement only with
/// [`MapOptions::partitions`] and never for `DEFAULT`/`ALL`. `NotRun` jobs,
/// and `Removed` jobs that never started, are skipped.
pub fn map_workload_record(rec: &WorkloadRecord, opts: &MapOptions) -> Result<SimJob, SkipReason> {
    if rec.state == CompletionState::NotRun {
        return Err(SkipReason::NotRun);
    }
    if rec.start <= 0 || rec.completion <= 0 {
        return Err(if rec.state == CompletionState::Removed {
            SkipReason::CancelledBeforeStart
        } else {
            SkipReason::NoRuntime
        });
    }
    if rec.submit <= 0 {
        return Err(SkipReason::NoSubmitTime);
    }
    let runtime = rec.completion - rec.start;
    if runtime < 0 {
        return Err(SkipReason::NoRuntime);
    }
    let tasks = if rec.tasks > 0 {
        rec.tasks
    } else {
        rec.tasks_allocated
    };
    if tasks == 0 {
        return Err(SkipReason::NoProcs);
    }
    let ppt = rec.procs_per_task.max(1);
    let procs = tasks as u64 * ppt as u64;
    if opts.max_procs.is_some_and(|m| procs > m as u64) {
        return Err(SkipReason::TooLarge);
    }
    let walltime = if rec.walltime > 0 {
        Some(rec.walltime)
    } else {
        match opts.no_request {
            NoRequest::Runtime => Some(runtime.max(1)),
            NoRequest::SystemDefault => None,
            NoRequest::Fixed(t) => Some(t),
        }
    };
    let job = Job {
        id: rec.id.clone(),
        user: rec.user.clone(),
        group: rec.group.clone(),
        account: rec.account.clone(),
        class: rec
            .classes
            .first()
            .map(|(c, _)| c)
            .filter(|c| !c.eq_ignore_ascii_case("DEFAULT"))
            .cloned(),
        qos: rec.qos_requested.clone(),
        partition: rec
            .partition
            .as_ref()
            .filter(|p| opts.partitions && !is_any_partition(p))
            .cloned(),
        submit_time: rec.submit,
        earliest_start: (rec.start_date > 0).then_some(rec.start_date),
        walltime,
        tasks,
        task: Resources {
            procs: ppt,
            mem: rec.mem_per_task,
            swap: rec.swap_per_task,
            disk: rec.disk_per_task,
            ..Resources::ZERO
        },
        nodes: (rec.nodes > 0).then_some(rec.nodes),
        tasks_per_node: rec.tasks_per_node,
        features: node_features(
            &rec.features,
            rec.arch.as_deref(),
            rec.os.as_deref(),
            rec.network.as_slice(),
        )
        .into(),
        node_mem: node_amount(rec.node_mem),
        node_disk: node_amount(rec.node_disk),
        hostlist: rec.host_mask.as_slice().into(),
        advres: rec.reservation.clone(),
        attributes: rec.flags.as_slice().into(),
        gres_per_task: rec.gres.clone(),
        ..Job::default()
    };
    Ok(SimJob {
        job,
        runtime,
        trace_wait: Some((rec.start - rec.submit).max(0)),
    })
}

/// A requirement on a node's memory or disk, unless it holds for every
/// node (`>= 0`, which `[NONE]` also reads as).
fn node_amount((cmp, mb): (Cmp, u64)) -> Option<crate::model::NodeAmount> {
    (!(cmp == Cmp::Ge && mb == 0)).then_some(crate::model::NodeAmount { cmp, mb })
}

/// Features, then the architecture, operating system and network adapters
/// as the features `arch:NAME`, `os:NAME` and `network:NAME`: how a node's
/// resource trace fields meet a job's requirements of them.
fn node_features(
    features: &[String],
    arch: Option<&str>,
    os: Option<&str>,
    networks: &[String],
) -> Vec<String> {
    let mut out = features.to_vec();
    out.extend(arch.map(|a| format!("arch:{a}")));
    out.extend(os.map(|o| format!("os:{o}")));
    out.extend(networks.iter().map(|n| format!("network:{n}")));
    out
}

/// Reads a workload trace, handing each record to `f`.
pub fn read_workload<R: BufRead>(
    r: R,
    file: &str,
    opts: ReadOptions,
    stats: &mut ReadStats,
    mut f: impl FnMut(WorkloadRecord),
) -> Result<(), InputError> {
    read_lines(
        r,
        file,
        opts,
        stats,
        WorkloadRecord::parse,
        &mut f,
        &mut |_, _| {},
    )
}

/// [`read_workload`], also reading the whole-line comments as an SWF
/// header's (`# MaxNodes: 64`, as `mauictl convert --to maui` writes them):
/// Maui ignores them; the simulator takes the machine's size from them
/// when no cluster is given.
pub fn read_workload_with_header<R: BufRead>(
    r: R,
    file: &str,
    opts: ReadOptions,
    stats: &mut ReadStats,
    header: &mut SwfHeader,
    mut f: impl FnMut(WorkloadRecord),
) -> Result<(), InputError> {
    let mut cont = Continuation::default();
    read_lines(
        r,
        file,
        opts,
        stats,
        WorkloadRecord::parse,
        &mut f,
        &mut |text, line| header.read_comment(&String::from_utf8_lossy(text), line, &mut cont),
    )
}

/// Reads a resource trace into records.
pub fn read_resources<R: BufRead>(
    r: R,
    file: &str,
    opts: ReadOptions,
) -> Result<(Vec<ResourceRecord>, ReadStats), InputError> {
    let mut out = Vec::new();
    let mut stats = ReadStats::default();
    read_lines(
        r,
        file,
        opts,
        &mut stats,
        ResourceRecord::parse,
        &mut |x| out.push(x),
        &mut |_, _| {},
    )?;
    Ok((out, stats))
}

/// The nodes of a resource trace, in file order. A node listed again takes
/// the later line's values (a later event for the same node) but keeps its
/// first position.
pub fn resource_nodes(records: &[ResourceRecord]) -> Vec<Node> {
    let mut out: Vec<Node> = Vec::new();
    let mut at = std::collections::HashMap::new();
    for r in records {
        let n = r.to_node();
        match at.get(&r.name) {
            Some(&i) => out[i] = n,
            None => {
                at.insert(r.name.clone(), out.len());
                out.push(n);
            }
        }
    }
    for (i, n) in out.iter_mut().enumerate() {
        n.index = i as u32;
    }
    out
}

/// The trace version Maui 3.3 writes and reads (`VERSION 230`, the
/// `DEFAULT_*_TRACE_VERSION` of its `include/msched.h`): its readers load
/// records of no other version.
pub const TRACE_VERSION: i64 = 230;

/// A Maui trace line with its comment cut off: Maui's readers end a line
/// at its first `#`, wherever it is.
pub(crate) fn uncommented(line: &[u8]) -> &[u8] {
    match line.iter().position(|&b| b == b'#') {
        Some(i) => &line[..i],
        None => line,
    }
}

/// Whether `t` (an uncommented line, leading blanks removed) is a version
/// line, `VERSION 230`, as Maui 3.3's readers recognise one (the line
/// begins with `VERSION`); if so, whether its version is one they read.
/// Maui takes the number after `VERSION` and one character (with
/// `strtol`, so `0x` and a leading `0` change the base), and assumes 230
/// when that is below 100; that case is an error here, as is any version
/// but 230, whose records Maui skips one by one.
pub(crate) fn version_line(t: &[u8]) -> Option<Result<(), String>> {
    let rest = t.strip_prefix(b"VERSION")?;
    let token = rest
        .get(1..)
        .and_then(|r| input::fields(r).next())
        .map(|(_, f)| String::from_utf8_lossy(f).into_owned());
    let Some(token) = token else {
        return Some(Err(format!(
            "a version line without a version: Maui's traces begin with VERSION {TRACE_VERSION}"
        )));
    };
    let number = if let Some(h) = token
        .strip_prefix("0x")
        .or_else(|| token.strip_prefix("0X"))
    {
        i64::from_str_radix(h, 16).ok()
    } else if token.len() > 1 && token.starts_with('0') {
        i64::from_str_radix(&token[1..], 8).ok()
    } else {
        token.parse::<i64>().ok()
    };
    Some(match number {
        Some(TRACE_VERSION) => Ok(()),
        Some(v) if v >= 100 => Err(format!(
            "trace version {v}: Maui 3.3 reads only version {TRACE_VERSION} records, and so does mauisched"
        )),
        _ => Err(format!(
            "version \"{token}\" is not a trace version: Maui's traces begin with VERSION {TRACE_VERSION}"
        )),
    })
}

fn read_lines<R: BufRead, T>(
    r: R,
    file: &str,
    opts: ReadOptions,
    stats: &mut ReadStats,
    parse: fn(&[u8]) -> Result<T, FieldError>,
    f: &mut dyn FnMut(T),
    comment: &mut dyn FnMut(&[u8], u64),
) -> Result<(), InputError> {
    let mut lines = LineReader::new(r);
    let mut line = 0;
    while let Some(l) = lines.next_line().map_err(|e| InputError::io(file, e))? {
        stats.lines += 1;
        line += 1;
        if let Some(text) = l.trim_ascii_start().strip_prefix(b"#") {
            comment(text, line);
        }
        let l = uncommented(l);
        let t = l.trim_ascii_start();
        if t.is_empty() {
            stats.comments += 1;
            continue;
        }
        if let Some(v) = version_line(t) {
            // Every record after a version Maui does not read would be
            // misread: an error even with --lenient.
            let col = 1 + (l.len() - t.len()) as u32;
            v.map_err(|m| InputError::syntax(file, lines.line, col, m))?;
            stats.comments += 1;
            continue;
        }
        match parse(l) {
            Ok(rec) => {
                stats.records += 1;
                f(rec);
            }
            Err(e) => {
                stats.malformed(InputError::syntax(file, lines.line, e.col, e.message), opts)?
            }
        }
    }
    Ok(())
}

/// Splits a line into exactly `names.len()` fields.
fn split_exact<'a>(line: &'a [u8], names: &[&str]) -> Result<Vec<(u32, &'a [u8])>, FieldError> {
    let f: Vec<(u32, &[u8])> = input::fields(line).collect();
    let n = names.len();
    if f.len() < n {
        return Err(FieldError {
            col: line.len() as u32 + 1,
            message: format!(
                "expected {n} fields, found {} (missing field {}, {})",
                f.len(),
                f.len() + 1,
                names[f.len()]
            ),
        });
    }
    if f.len() > n {
        return Err(FieldError {
            col: f[n].0,
            message: format!(
                "expected {n} fields, found {} (extra field \"{}\")",
                f.len(),
                input::show(f[n].1)
            ),
        });
    }
    Ok(f)
}

/// Typed access to the fields of one line, with positioned errors.
struct Fields<'a> {
    f: &'a [(u32, &'a [u8])],
    names: &'a [&'a str],
}

impl Fields<'_> {
    fn err(&self, i: usize, message: String) -> FieldError {
        FieldError {
            col: self.f[i].0,
            message: format!("field {} ({}): {message}", i + 1, self.names[i]),
        }
    }

    fn text(&self, i: usize) -> String {
        String::from_utf8_lossy(self.f[i].1).into_owned()
    }

    /// A name, `None` for `[NONE]`/`NONE`.
    fn name(&self, i: usize) -> Option<String> {
        let t = self.text(i);
        (!is_none(&t)).then_some(t)
    }

    /// A name where the guide's sample writes `0` for "none".
    fn name_or_zero(&self, i: usize) -> Option<String> {
        self.name(i).filter(|t| t != "0")
    }

    /// An integer not below `min` (`-1` where the format uses it for "none").
    fn int(&self, i: usize, min: i64) -> Result<i64, FieldError> {
        let t = self.text(i);
        let v: i64 = t.parse().map_err(|_| {
            self.err(
                i,
                format!("expected an integer, got \"{}\"", input::show(self.f[i].1)),
            )
        })?;
        if v < min {
            return Err(self.err(i, format!("{v} is below the smallest allowed value {min}")));
        }
        Ok(v)
    }

    fn u32(&self, i: usize) -> Result<u32, FieldError> {
        let v = self.int(i, 0)?;
        u32::try_from(v).map_err(|_| self.err(i, format!("{v} is too large")))
    }

    fn real(&self, i: usize) -> Result<f64, FieldError> {
        let t = self.text(i);
        t.parse::<f64>()
            .ok()
            .filter(|r| r.is_finite())
            .ok_or_else(|| {
                self.err(
                    i,
                    format!("expected a number, got \"{}\"", input::show(self.f[i].1)),
                )
            })
    }

    fn cmp(&self, i: usize) -> Result<Cmp, FieldError> {
        Ok(match self.text(i).as_str() {
            ">" => Cmp::Gt,
            ">=" => Cmp::Ge,
            "=" | "==" => Cmp::Eq,
            "<=" => Cmp::Le,
            "<" => Cmp::Lt,
            t if is_none(t) => Cmp::Ge,
            t => return Err(self.err(i, format!("expected one of >, >=, =, <=, <, got \"{t}\""))),
        })
    }

    /// `[a][b]` (or `[NONE]`) as a list.
    fn list(&self, i: usize) -> Result<Vec<String>, FieldError> {
        let t = self.text(i);
        if is_none(&t) {
            return Ok(Vec::new());
        }
        bracket_list(&t).ok_or_else(|| {
            self.err(
                i,
                format!(
                    "expected a list like [a][b] or [NONE], got \"{}\"",
                    input::show(self.f[i].1)
                ),
            )
        })
    }

    /// `[batch:2][fast]` as names with counts (1 when not given).
    fn classes(&self, i: usize) -> Result<Vec<(String, u32)>, FieldError> {
        self.list(i)?
            .into_iter()
            .map(|c| match c.split_once(':') {
                None => Ok((c, 1)),
                Some((n, k)) => k
                    .parse()
                    .map(|k| (n.to_string(), k))
                    .map_err(|_| self.err(i, format!("expected NAME:COUNT, got \"{c}\""))),
            })
            .collect()
    }

    /// `[gpu:4][tape]` as generic resources (a count of 1 when not given).
    fn gres_list(&self, i: usize) -> Result<GresList, FieldError> {
        let items = self.list(i)?;
        GresList::parse(&items.join(",")).map_err(|m| self.err(i, m))
    }

    /// Host lists: `a:b:c` or `[a][b]`.
    fn hosts(&self, i: usize) -> Result<Vec<String>, FieldError> {
        let t = self.text(i);
        if is_none(&t) || t == "0" {
            return Ok(Vec::new());
        }
        if t.starts_with('[') {
            return self.list(i);
        }
        Ok(t.split(':')
            .filter(|h| !h.is_empty())
            .map(String::from)
            .collect())
    }
}

/// The `GRES` item of an RM extension string (see the module doc), empty
/// when there is none; the error says what is wrong with it.
pub fn rm_extension_gres(ext: &str) -> Result<GresList, String> {
    let mut out = GresList::default();
    for item in ext.split([';', '\n']) {
        let item = item.trim().trim_matches('"').trim();
        let item = item
            .strip_prefix("x=")
            .or_else(|| item.strip_prefix("X="))
            .unwrap_or(item);
        let Some(head) = item.get(..4) else { continue };
        if !head.eq_ignore_ascii_case("GRES") {
            continue;
        }
        let value = item[4..].trim_start();
        let Some(value) = value.strip_prefix(':').or_else(|| value.strip_prefix('=')) else {
            continue;
        };
        let bad = |why: String| format!("GRES \"{}\": {why}", value.trim());
        let mut last: Option<String> = None;
        for tok in value.trim().split([',', ':']).map(str::trim) {
            if tok.is_empty() {
                return Err(bad("empty item".into()));
            }
            if tok.bytes().all(|b| b.is_ascii_digit()) {
                // `tape:2`: a count after its name.
                let Some(name) = last.take() else {
                    return Err(bad(format!("count \"{tok}\" without a resource name")));
                };
                let c: u32 = tok
                    .parse()
                    .map_err(|_| bad(format!("count \"{tok}\" is too large")))?;
                if c == 0 {
                    return Err(bad(format!("count of \"{name}\" must be positive")));
                }
                out.set(&name, c);
                continue;
            }
            let (name, count) = match tok.split_once('@') {
                Some((n, c)) => match c.parse::<u32>() {
                    Ok(k) if k > 0 => (n, k),
                    _ => {
                        return Err(bad(format!(
                            "count \"{c}\" of \"{n}\" is not a positive whole number"
                        )))
                    }
                },
                None => (tok, 1),
            };
            // The name rules of every other generic resource list.
            let one = GresList::parse(&format!("{name}:{count}")).map_err(bad)?;
            if !matches!(one.items(), [(n, _)] if n == name) {
                return Err(bad(format!("\"{name}\" is not a resource name")));
            }
            out.set(name, count);
            // Only a name without `@COUNT` may take a count after it.
            last = (!tok.contains('@')).then(|| name.to_string());
        }
    }
    Ok(out)
}

fn is_none(t: &str) -> bool {
    t.eq_ignore_ascii_case("[NONE]") || t.eq_ignore_ascii_case("NONE")
}

/// Reads `[a][b:2]` into `["a", "b:2"]`; `None` when not of that shape.
fn bracket_list(t: &str) -> Option<Vec<String>> {
    let mut out = Vec::new();
    let mut rest = t;
    while !rest.is_empty() {
        let body = rest.strip_prefix('[')?;
        let end = body.find(']')?;
        let item = &body[..end];
        if item.is_empty() || item.contains('[') {
            return None;
        }
        if !is_none(&format!("[{item}]")) {
            out.push(item.to_string());
        }
        rest = &body[end + 1..];
    }
    Some(out)
}

#[cfg(test)]
#[path = "mauitrace_tests.rs"]
mod tests;
