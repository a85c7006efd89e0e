//! Renderers over the last iteration: showbf, showstart, checkjob, in
//! Maui's layouts (docs/rst/commands/*.rst), each also as JSON.

use super::{plan::Reason, LastIteration};
use crate::allocation::TaskRequest;
use crate::config::Config;
use crate::model::time::{fmt_duration, fmt_time};
use crate::model::{Job, JobState, Secs, Time};
use crate::profile::{FitRequest, Unreserved};
use crate::reservation::acl::JobAdmission;
use serde_json::json;

/// Maui's wording for a reason.
pub fn reason_text(r: &Reason) -> String {
    match r {
        Reason::Hold { kind } => format!(
            "job has hold in place ({})",
            match kind {
                crate::model::HoldKind::User => "User",
                crate::model::HoldKind::System => "System",
                crate::model::HoldKind::Batch => "Batch",
            }
        ),
        Reason::Dependency => "dependency is not met".into(),
        Reason::BeginTime { at } => format!("start date not reached ({})", fmt_time(*at)),
        Reason::Policy { detail, .. } => format!("rejected by policy: {detail}"),
        Reason::FairshareCap { detail } => format!("fairshare cap reached: {detail}"),
        Reason::NegativePriority => "job priority is negative (REJECTNEGPRIOJOBS)".into(),
        Reason::NoFit { detail } => format!("job can never run on this cluster: {detail}"),
        Reason::Resources => "insufficient idle procs".into(),
        Reason::Reservation { id } => format!(
            "idle procs do not meet requirements: reserved by {id}, whose ACL excludes the job"
        ),
        Reason::Priority => "resources are held for higher-priority jobs".into(),
    }
}

fn dur(s: Secs) -> String {
    if s >= crate::profile::INFINITY / 2 || s == Secs::MAX {
        "INFINITY".into()
    } else {
        fmt_duration(s)
    }
}

/// Options of showbf.
#[derive(Clone, Debug, Default)]
pub struct ShowbfOpts {
    /// `-d`: only windows lasting at least this long.
    pub duration: Option<Secs>,
    /// `-p`: only this partition.
    pub partition: Option<String>,
    /// `-n`: only windows with at least this many nodes.
    pub nodes: Option<usize>,
}

/// One partition's windows.
fn partition_windows(
    last: &LastIteration,
    partition: Option<&str>,
    opts: &ShowbfOpts,
) -> Vec<crate::backfill::Window> {
    let mut c = last.view.cluster.clone();
    if let Some(p) = partition {
        for n in &mut c.nodes {
            if n.partition.as_deref() != Some(p) {
                n.usable = false;
            }
        }
    }
    crate::backfill::windows(&c, &last.view.profile, last.plan.now)
        .into_iter()
        .filter(|w| {
            opts.duration.is_none_or(|d| w.duration >= d)
                && opts.nodes.is_none_or(|n| w.nodes.len() >= n)
        })
        .collect()
}

/// showbf: idle resources now, not held by reservations, per partition.
pub fn showbf(last: &LastIteration, opts: &ShowbfOpts) -> String {
    let now = last.plan.now;
    let mut parts: Vec<Option<String>> = vec![None];
    let mut names: Vec<String> = last
        .view
        .cluster
        .nodes
        .iter()
        .filter_map(|n| n.partition.clone())
        .collect();
    names.sort();
    names.dedup();
    parts.extend(names.into_iter().map(Some));
    if let Some(p) = &opts.partition {
        parts = vec![Some(p.clone())];
    }
    let mut out = format!(
        "backfill window (partition: {}) {}\n",
        opts.partition.as_deref().unwrap_or("ALL"),
        fmt_time(now)
    );
    for p in parts {
        let ws = partition_windows(last, p.as_deref(), opts);
        out.push_str(&format!("\npartition {}:\n", p.as_deref().unwrap_or("ALL")));
        if ws.is_empty() {
            out.push_str("  no procs available\n");
        }
        for w in ws {
            let procs = if w.procs == 1 { "proc " } else { "procs" };
            let nodes = if w.nodes.len() == 1 { "node " } else { "nodes" };
            if w.duration == Secs::MAX {
                out.push_str(&format!(
                    "  {:>4} {procs} on {:>4} {nodes} available with no time limit\n",
                    w.procs,
                    w.nodes.len()
                ));
            } else {
                out.push_str(&format!(
                    "  {:>4} {procs} on {:>4} {nodes} available for {:>11}\n",
                    w.procs,
                    w.nodes.len(),
                    fmt_duration(w.duration)
                ));
            }
        }
    }
    out
}

/// showbf as JSON.
pub fn showbf_json(last: &LastIteration, opts: &ShowbfOpts) -> serde_json::Value {
    let mut parts = vec![None];
    let mut names: Vec<String> = last
        .view
        .cluster
        .nodes
        .iter()
        .filter_map(|n| n.partition.clone())
        .collect();
    names.sort();
    names.dedup();
    parts.extend(names.into_iter().map(Some));
    let v: Vec<_> = parts
        .into_iter()
        .map(|p| {
            let ws: Vec<_> = partition_windows(last, p.as_deref(), opts)
                .into_iter()
                .map(|w| {
                    json!({
                        "procs": w.procs,
                        "nodes": w.nodes.iter().map(|&n| last.view.cluster.nodes[n as usize].name.clone()).collect::<Vec<_>>(),
                        "duration": if w.duration == Secs::MAX { serde_json::Value::Null } else { json!(w.duration) },
                    })
                })
                .collect();
            json!({"partition": p.unwrap_or_else(|| "ALL".into()), "windows": ws})
        })
        .collect();
    json!({"now": last.plan.now, "partitions": v})
}

fn find<'a>(last: &'a LastIteration, id: &str) -> Result<&'a Job, String> {
    last.jobs
        .iter()
        .find(|j| j.id == id)
        .ok_or_else(|| format!("job {id} is not known to the scheduler"))
}

/// Start estimate of a job: running → its start; reserved → the
/// reservation; otherwise the earliest time its resources are free,
/// assuming it were the highest-priority job (Maui's reservation-based
/// estimate). `None` when no time exists.
pub fn estimate(
    cfg: &Config,
    last: &LastIteration,
    id: &str,
) -> Result<Option<(Time, Secs)>, String> {
    let job = find(last, id)?;
    let wall = super::build::walltime(cfg, job);
    if job.state.is_active() {
        return Ok(job.start_time.map(|t| (t, wall)));
    }
    if let Some(jp) = last.plan.job(id) {
        if let Some(t) = jp.estimated_start {
            return Ok(Some((t, wall)));
        }
        if matches!(jp.reason, Some(Reason::NoFit { .. })) {
            return Ok(None);
        }
    }
    let req = TaskRequest::from_job(job, &last.view.cluster, cfg);
    let fit = FitRequest {
        tasks: req.tasks,
        task: req.task,
        duration: wall,
        earliest: last.plan.now.max(job.earliest_start.unwrap_or(0)),
        min_per_node: req.tasks_per_node.unwrap_or(0),
        max_per_node: if req.exact_tpn {
            req.tasks_per_node
        } else {
            None
        },
        nodes: req.node_count,
    };
    let adm = JobAdmission::new(&last.view.table, job);
    let cluster = &last.view.cluster;
    Ok(last
        .view
        .profile
        .earliest_start(&fit, &adm, |n| {
            req.check_node(&cluster.nodes[n as usize]).is_ok()
        })
        .map(|f| (f.start, wall)))
}

/// showstart JOBID.
pub fn showstart(cfg: &Config, last: &LastIteration, id: &str) -> Result<String, String> {
    let job = find(last, id)?;
    let now = last.plan.now;
    let wall = super::build::walltime(cfg, job);
    let mut out = format!(
        "job {id} requires {} proc{} for {}\n",
        job.procs(),
        if job.procs() == 1 { "" } else { "s" },
        fmt_duration(wall)
    );
    match estimate(cfg, last, id)? {
        Some((t, w)) => {
            out.push_str(&format!(
                "Earliest start in       {:>11} on {}\n",
                fmt_duration((t - now).max(0)),
                fmt_time(t)
            ));
            out.push_str(&format!(
                "Earliest completion in  {:>11} on {}\n",
                fmt_duration((t + w - now).max(0)),
                fmt_time(t + w)
            ));
            out.push_str(&format!(
                "Best Partition: {}\n",
                job.partition.as_deref().unwrap_or("ALL")
            ));
        }
        None => out.push_str(
            "no start time can be estimated: the job cannot run on the resources that exist\n",
        ),
    }
    Ok(out)
}

/// showstart as JSON.
pub fn showstart_json(
    cfg: &Config,
    last: &LastIteration,
    id: &str,
) -> Result<serde_json::Value, String> {
    let job = find(last, id)?;
    let e = estimate(cfg, last, id)?;
    Ok(json!({
        "job": id,
        "procs": job.procs(),
        "walltime": super::build::walltime(cfg, job),
        "start": e.map(|(t, _)| t),
        "end": e.map(|(t, w)| t + w),
    }))
}

/// checkjob JOBID: state, credentials, request, priority, reservation, and
/// why the job is not running.
pub fn checkjob(
    cfg: &Config,
    last: &LastIteration,
    id: &str,
    verbose: bool,
) -> Result<String, String> {
    let job = find(last, id)?;
    let now = last.plan.now;
    let wall = super::build::walltime(cfg, job);
    let jp = last.plan.job(id);
    let state = if job.state == JobState::Idle && job.is_held() {
        "Hold"
    } else {
        job.state.name()
    };
    let mut out = format!("job {id}\n\nState: {state}\n");
    let mut creds = format!("Creds:  user:{}  group:{}", job.user, job.group);
    for (k, v) in [
        ("account", &job.account),
        ("class", &job.class),
        ("qos", &job.qos),
    ] {
        if let Some(v) = v {
            creds.push_str(&format!("  {k}:{v}"));
        }
    }
    out.push_str(&creds);
    out.push('\n');
    let ran = job.start_time.map_or(0, |s| (now - s).max(0));
    out.push_str(&format!(
        "WallTime: {} of {}\n",
        fmt_duration(ran),
        fmt_duration(wall)
    ));
    out.push_str(&format!("SubmitTime: {}\n", fmt_time(job.submit_time)));
    if job.state == JobState::Idle {
        let eligible = jp.map_or(0, |j| j.eff_queue_time);
        out.push_str(&format!(
            "  (Time Queued  Total: {}  Eligible: {})\n",
            fmt_duration((now - job.submit_time).max(0)),
            fmt_duration(eligible)
        ));
    }
    if let Some(s) = job.start_time {
        out.push_str(&format!("StartTime: {}\n", fmt_time(s)));
    }
    out.push_str(&format!("\nTotal Tasks: {}\n\n", job.tasks));
    out.push_str(&format!(
        "Req[0]  TaskCount: {}  Partition: {}\n",
        job.tasks,
        job.partition.as_deref().unwrap_or("ALL")
    ));
    out.push_str(&format!(
        "Procs: {}  Memory >= {}M  Disk >= {}M  Swap >= {}M (per task)\n",
        job.task.procs, job.task.mem, job.task.disk, job.task.swap
    ));
    let list = |v: &[String]| {
        if v.is_empty() {
            "---".to_string()
        } else {
            v.iter().map(|f| format!("[{f}]")).collect()
        }
    };
    out.push_str(&format!(
        "Features: {}  Preferred: {}\n",
        list(&job.features),
        list(&job.pref_features)
    ));
    if !job.hostlist.is_empty() {
        out.push_str(&format!("HostList: {}\n", job.hostlist.join(",")));
    }
    if !job.allocation.is_empty() {
        let a: Vec<String> = job
            .allocation
            .iter()
            .map(|a| format!("[{}:{}]", a.node, a.tasks))
            .collect();
        out.push_str(&format!("Allocated Nodes:\n{}\n", a.join("")));
    }
    out.push('\n');
    if let Some(jp) = jp {
        out.push_str(&format!("StartPriority:  {}\n", jp.priority));
        if jp.bypass_count > 0 {
            out.push_str(&format!("Bypass:  {}\n", jp.bypass_count));
        }
    }
    if let Some(r) = last
        .plan
        .reservations
        .iter()
        .find(|r| r.job.as_deref() == Some(id))
    {
        out.push_str(&format!(
            "Reservation '{}' ({:>11} -> {:>11}  Duration: {})\n",
            r.id,
            fmt_duration(r.start - now),
            fmt_duration(r.end - now),
            fmt_duration(r.end - r.start)
        ));
    }
    if let Some(s) = last.plan.starts.iter().find(|s| s.job == id) {
        let a: Vec<String> = s
            .allocation
            .iter()
            .map(|a| format!("{}:{}", a.node, a.tasks))
            .collect();
        out.push_str(&format!(
            "Starting now{} on {}\n",
            if s.backfill { " (backfill)" } else { "" },
            a.join(",")
        ));
    }
    if let Some(r) = jp.and_then(|j| j.reason.as_ref()) {
        out.push_str(&format!("Reason: {}\n", r));
        out.push_str(&format!("NOTE:  job cannot run  ({})\n", reason_text(r)));
        if let Some(Ok(Some((t, _)))) =
            (job.state == JobState::Idle).then(|| estimate(cfg, last, id))
        {
            out.push_str(&format!(
                "Estimated start: {} (in {})\n",
                fmt_time(t),
                fmt_duration((t - now).max(0))
            ));
        }
    }
    if verbose && job.state == JobState::Idle {
        let req = TaskRequest::from_job(job, &last.view.cluster, cfg);
        let adm = JobAdmission::new(&last.view.table, job);
        let end = now.saturating_add(wall);
        let (mut idle_procs, mut feasible) = (0u64, 0u64);
        out.push_str("\nNode availability:\n");
        for n in &last.view.cluster.nodes {
            let free = last.view.profile.free(n.index, now, end, &Unreserved);
            idle_procs += free.procs as u64;
            let why = match req.check_node(n) {
                Err(m) => format!("{m:?}"),
                Ok(()) => {
                    let t = last
                        .view
                        .profile
                        .tasks_fit(n.index, now, end, &req.task, &adm);
                    feasible += t as u64 * req.task.procs as u64;
                    if t == 0 {
                        "no room (in use or reserved)".into()
                    } else {
                        format!("{t} task(s) fit")
                    }
                }
            };
            out.push_str(&format!("  {:<16} {}\n", n.name, why));
        }
        out.push_str(&format!(
            "idle procs: {idle_procs:>4}  feasible procs: {feasible:>4}\n"
        ));
    }
    Ok(out)
}

/// checkjob as JSON.
pub fn checkjob_json(
    cfg: &Config,
    last: &LastIteration,
    id: &str,
) -> Result<serde_json::Value, String> {
    let job = find(last, id)?;
    let jp = last.plan.job(id);
    let est = if job.state == JobState::Idle {
        estimate(cfg, last, id)?
    } else {
        None
    };
    Ok(json!({
        "job": job,
        "plan": jp,
        "reason_text": jp.and_then(|j| j.reason.as_ref()).map(reason_text),
        "estimated_start": est.map(|(t, _)| t),
        "start": last.plan.starts.iter().find(|s| s.job == id),
        "priority": last.plan.priorities.iter().find(|p| p.job == id),
    }))
}

/// Duration display that knows INFINITY (used by showq and others).
pub fn fmt_remaining(s: Secs) -> String {
    dur(s)
}

/// The showq state word of a waiting job.
fn waiting_state(r: Option<&Reason>) -> &'static str {
    match r {
        Some(Reason::Hold { kind }) => match kind {
            crate::model::HoldKind::User => "UserHold",
            crate::model::HoldKind::System => "SystemHold",
            crate::model::HoldKind::Batch => "BatchHold",
        },
        Some(Reason::BeginTime { .. }) | Some(Reason::Dependency) => "Deferred",
        _ => "Idle",
    }
}

/// showq: active jobs (running, suspended, and those this iteration
/// starts), eligible jobs in priority order, blocked jobs (holds, policies,
/// dependencies: not a matter of resources), in Maui's three sections.
pub fn showq(cfg: &Config, last: &LastIteration) -> String {
    let now = last.plan.now;
    let by_id: std::collections::BTreeMap<&str, &Job> =
        last.jobs.iter().map(|j| (j.id.as_str(), j)).collect();
    let started: std::collections::BTreeSet<&str> =
        last.plan.starts.iter().map(|s| s.job.as_str()).collect();
    // (remaining, id, user, state, procs, start)
    let mut active: Vec<(Secs, &Job, &'static str, Time)> = Vec::new();
    for j in &last.jobs {
        if j.state.is_active() {
            let start = j.start_time.unwrap_or(now);
            let end = start.saturating_add(super::build::walltime(cfg, j));
            active.push((end - now, j, j.state.name(), start));
        } else if started.contains(j.id.as_str()) {
            active.push((super::build::walltime(cfg, j), j, "Starting", now));
        }
    }
    active.sort_by(|a, b| {
        a.0.cmp(&b.0)
            .then_with(|| super::job_id_cmp(&a.1.id, &b.1.id))
    });
    let mut out = String::from("ACTIVE JOBS--------------------\n");
    out.push_str(&format!(
        "{:<18} {:>8} {:>10} {:>5} {:>11}  {:>20}\n\n",
        "JOBNAME", "USERNAME", "STATE", "PROC", "REMAINING", "STARTTIME"
    ));
    let mut busy = 0u64;
    for (rem, j, state, start) in &active {
        busy += j.procs();
        out.push_str(&format!(
            "{:<18} {:>8} {:>10} {:>5} {:>11}  {:>20}\n",
            j.id,
            j.user,
            state,
            j.procs(),
            fmt_duration((*rem).max(0)),
            fmt_time(*start)
        ));
    }
    let total = last.view.cluster.total.procs as u64;
    let pct = if total > 0 {
        100.0 * busy as f64 / total as f64
    } else {
        0.0
    };
    out.push_str(&format!(
        "\n{:>6} Active Job{}  {:>5} of {:>5} Processors Active ({pct:.2}%)\n\n",
        active.len(),
        if active.len() == 1 { " " } else { "s" },
        busy,
        total
    ));
    let mut eligible = Vec::new();
    let mut blocked = Vec::new();
    for jp in last.plan.jobs.iter().filter(|j| !j.started) {
        let Some(job) = by_id.get(jp.job.as_str()) else {
            continue;
        };
        if jp.reason.as_ref().is_some_and(Reason::is_blocking) {
            blocked.push((*job, waiting_state(jp.reason.as_ref())));
        } else {
            eligible.push((*job, "Idle"));
        }
    }
    let section = |out: &mut String, title: &str, rows: &[(&Job, &str)]| {
        out.push_str(title);
        out.push_str(&format!(
            "{:<18} {:>8} {:>10} {:>5} {:>11}  {:>20}\n\n",
            "JOBNAME", "USERNAME", "STATE", "PROC", "WCLIMIT", "QUEUETIME"
        ));
        for (j, state) in rows {
            out.push_str(&format!(
                "{:<18} {:>8} {:>10} {:>5} {:>11}  {:>20}\n",
                j.id,
                j.user,
                state,
                j.procs(),
                fmt_duration(super::build::walltime(cfg, j)),
                fmt_time(j.submit_time)
            ));
        }
    };
    section(&mut out, "IDLE JOBS----------------------\n", &eligible);
    out.push_str(&format!(
        "\n{} Idle Job{}\n\n",
        eligible.len(),
        if eligible.len() == 1 { "" } else { "s" }
    ));
    section(&mut out, "BLOCKED JOBS----------------\n", &blocked);
    out.push_str(&format!(
        "\nTotal Jobs: {}   Active Jobs: {}   Idle Jobs: {}   Blocked Jobs: {}\n",
        active.len() + eligible.len() + blocked.len(),
        active.len(),
        eligible.len(),
        blocked.len()
    ));
    out
}
