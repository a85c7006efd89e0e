//! Renderers over the last iteration: showbf, showstart, checkjob, in
//! Maui's layouts (docs/rst/commands/*.rst), each also as JSON.

use super::NONE;
use crate::allocation::TaskRequest;
use crate::config::Config;
use crate::engine::{LastIteration, Reason, StartOutcome};
use crate::model::time::{fmt_duration, Zone};
use crate::model::{Job, JobState, Secs, Time};
use crate::profile::{FitRequest, Unreserved};
use crate::reservation::acl::JobAdmission;
use serde_json::json;

/// Maui's wording for a reason.
pub fn reason_text(r: &Reason, zone: &Zone) -> String {
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
        Reason::BeginTime { at } => format!("start date not reached ({})", zone.fmt(*at)),
        Reason::Policy(p) => format!("rejected by policy: {}", p.detail),
        Reason::FairshareCap { detail } => format!("fairshare cap reached: {detail}"),
        Reason::NegativePriority => "job priority is negative (REJECTNEGPRIOJOBS)".into(),
        Reason::NoFit { detail } => format!("job can never run on this cluster: {detail}"),
        Reason::Resources => "insufficient idle procs".into(),
        Reason::Reservation { id } => format!(
            "idle procs do not meet requirements: reserved by {id}, whose ACL excludes the job"
        ),
        Reason::Priority { reserved_for: None } => {
            "resources are held for higher-priority jobs".into()
        }
        Reason::Priority {
            reserved_for: Some(r),
        } => format!(
            "idle procs are reserved for job {} from {}, before this job's walltime would end",
            r.job,
            zone.fmt(r.from)
        ),
        Reason::Stopped { by } => {
            format!("scheduling is stopped (schedctl -s by {by}); schedctl -r resumes it")
        }
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
    /// `-u`, `-g`, `-a`, `-c`, `-q`: on behalf of these credentials (the
    /// reservations that admit them stay open in the windows); the others
    /// are any.
    pub creds: Vec<(crate::model::CredKind, String)>,
    /// `-f`: only nodes with all these features.
    pub features: Vec<String>,
    /// `-m`: only nodes whose memory compares so (MB).
    pub memory: Option<(crate::model::Cmp, u64)>,
    /// `-r`: only windows with at least this many processors.
    pub procs: Option<u64>,
}

impl ShowbfOpts {
    /// The pseudo-job the windows are asked for: the backfill window job
    /// with the credentials given.
    fn asker(&self, last: &LastIteration) -> Job {
        let mut j = last.window_job.clone();
        for (k, v) in &self.creds {
            use crate::model::CredKind as K;
            match k {
                K::User => j.user = v.clone(),
                K::Group => j.group = v.clone(),
                K::Account => j.account = Some(v.clone()),
                K::Class => j.class = Some(v.clone()),
                K::Qos => j.qos = Some(v.clone()),
            }
        }
        j
    }

    /// The name `kind` is asked as, for the header.
    fn who(&self, kind: crate::model::CredKind) -> &str {
        self.creds
            .iter()
            .find(|(k, _)| *k == kind)
            .map_or("ALL", |(_, v)| v.as_str())
    }
}

/// One partition's windows.
fn partition_windows(
    last: &LastIteration,
    partition: Option<&str>,
    opts: &ShowbfOpts,
) -> Vec<crate::backfill::Window> {
    let mut c = (*last.view.cluster).clone();
    for n in &mut c.nodes {
        let out_of_partition = partition.is_some_and(|p| n.partition.as_deref() != Some(p));
        let lacks_feature = opts.features.iter().any(|f| !n.features.contains(f));
        let memory_short = opts
            .memory
            .is_some_and(|(cmp, mb)| !cmp.holds(n.configured.mem, mb));
        if out_of_partition || lacks_feature || memory_short {
            n.usable = false;
        }
    }
    let asker = opts.asker(last);
    let adm = crate::reservation::acl::JobAdmission::new(&last.view.table, &asker);
    crate::backfill::windows(&c, &last.view.profile, last.plan.now, &adm)
        .into_iter()
        .filter(|w| {
            opts.duration.is_none_or(|d| w.duration >= d)
                && opts.nodes.is_none_or(|n| w.nodes.len() >= n)
                && opts.procs.is_none_or(|p| w.procs >= p)
        })
        .collect()
}

/// showbf: idle resources now, not held by reservations, per partition.
pub fn showbf(last: &LastIteration, opts: &ShowbfOpts) -> String {
    let zone = &last.zone;
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
        "backfill window (user: '{}' group: '{}' partition: {}) {}\n",
        opts.who(crate::model::CredKind::User),
        opts.who(crate::model::CredKind::Group),
        opts.partition.as_deref().unwrap_or("ALL"),
        zone.fmt(now)
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
                    "  {:>4} {procs} on {:>4} {nodes} available with no time limit",
                    w.procs,
                    w.nodes.len()
                ));
            } else {
                out.push_str(&format!(
                    "  {:>4} {procs} on {:>4} {nodes} available for {:>11}",
                    w.procs,
                    w.nodes.len(),
                    fmt_duration(w.duration)
                ));
            }
            let g = last.view.cluster.gres_text(&window_gres(last, &w));
            if !g.is_empty() {
                out.push_str(&format!("  with {g}"));
            }
            out.push('\n');
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
                        "gres": gres_json(&last.view.cluster, &window_gres(last, &w)),
                    })
                })
                .collect();
            json!({"partition": p.unwrap_or_else(|| "ALL".into()), "windows": ws})
        })
        .collect();
    json!({"now": last.plan.now, "partitions": v})
}

/// Generic resources free on a window's nodes for its whole duration.
fn window_gres(last: &LastIteration, w: &crate::backfill::Window) -> crate::model::GresCounts {
    let now = last.plan.now;
    let end = if w.duration == Secs::MAX {
        now.saturating_add(1)
    } else {
        now.saturating_add(w.duration)
    };
    let mut g = crate::model::GresCounts::ZERO;
    if last.view.cluster.gres_names.is_empty() {
        return g;
    }
    let c = &last.view.cluster;
    for &n in &w.nodes {
        let f = last.view.profile.free(n, now, end, &Unreserved);
        g = g.map(&c.gres_usable(&f.gres), u32::saturating_add);
    }
    g
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
    let wall = crate::engine::build::walltime(cfg, job);
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
    Ok(what_if(cfg, last, job).map(|t| (t, wall)))
}

/// The earliest time the resources of idle `job` are free in the world
/// after the plan (running jobs, reservations, this iteration's starts),
/// as if it were the next job: what `showstart` says for a job the plan
/// did not reserve.
fn what_if(cfg: &Config, last: &LastIteration, job: &Job) -> Option<Time> {
    let wall = crate::engine::build::walltime(cfg, job);
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
    last.view
        .profile
        .earliest_start(&fit, &adm, |n| {
            req.check_node(&cluster.nodes[n as usize]).is_ok()
        })
        .map(|f| f.start)
}

/// `showstart`'s estimate for the first `limit` idle jobs, in priority
/// order, that the plan gives no time and that wait only for resources,
/// priority, a reservation or their begin time (a held, dependent,
/// throttled or "can never run" job gets none: the RM shows its reason
/// and no start). `(index in plan.jobs, start)`, while `more()` says to go
/// on. Front ends show these as the job's expected start, so the RM's view
/// equals `showstart`'s for the same iteration.
pub fn what_if_starts(
    cfg: &Config,
    last: &LastIteration,
    limit: usize,
    mut more: impl FnMut() -> bool,
) -> Vec<(usize, Time)> {
    let by_id: rustc_hash::FxHashMap<&str, &Job> =
        last.jobs.iter().map(|j| (j.id.as_str(), j)).collect();
    let mut out = Vec::new();
    let mut tried = 0;
    for (i, jp) in last.plan.jobs.iter().enumerate() {
        if tried == limit || !more() {
            break;
        }
        let waits_for_resources = matches!(
            jp.reason,
            Some(
                Reason::Resources
                    | Reason::Priority { .. }
                    | Reason::Reservation { .. }
                    | Reason::BeginTime { .. }
            )
        );
        if jp.started || jp.estimated_start.is_some() || !waits_for_resources {
            continue;
        }
        let Some(job) = by_id.get(jp.job.as_str()) else {
            continue;
        };
        tried += 1;
        if let Some(t) = what_if(cfg, last, job) {
            out.push((i, t));
        }
    }
    out
}

/// Maui's `showstart PROCS@DURATION`: a job of PROCS one-processor tasks
/// for DURATION (seconds or `[[DD:]HH:]MM:SS`), asked by the backfill
/// window's credentials, that does not exist.
fn hypothetical(last: &LastIteration, spec: &str) -> Result<Job, String> {
    let (n, d) = spec.split_once('@').unwrap_or((spec, ""));
    let tasks: u32 = n.parse().ok().filter(|t| *t > 0).ok_or_else(|| {
        format!("showstart {spec}: expected PROCS@DURATION, PROCS a positive count")
    })?;
    let wall = match crate::model::time::parse_duration(d) {
        Ok(Some(w)) if w > 0 => w,
        _ => {
            return Err(format!(
                "showstart {spec}: expected PROCS@DURATION, DURATION in seconds or [[DD:]HH:]MM:SS"
            ))
        }
    };
    let mut job = last.window_job.clone();
    job.id = spec.to_string();
    job.tasks = tasks;
    job.task = crate::model::Resources::procs(1);
    job.walltime = Some(wall);
    job.submit_time = last.plan.now;
    job.state = JobState::Idle;
    Ok(job)
}

/// The job showstart asks about, and its start and walltime.
#[allow(clippy::type_complexity)]
fn showstart_subject(
    cfg: &Config,
    last: &LastIteration,
    id: &str,
) -> Result<(Job, Option<(Time, Secs)>), String> {
    if id.contains('@') {
        let job = hypothetical(last, id)?;
        let wall = crate::engine::build::walltime(cfg, &job);
        let est = what_if(cfg, last, &job).map(|t| (t, wall));
        return Ok((job, est));
    }
    let job = find(last, id)?.clone();
    let est = estimate(cfg, last, id)?;
    Ok((job, est))
}

/// showstart JOBID or PROCS@DURATION.
pub fn showstart(cfg: &Config, last: &LastIteration, id: &str) -> Result<String, String> {
    let zone = &last.zone;
    let (job, est) = showstart_subject(cfg, last, id)?;
    let job = &job;
    let now = last.plan.now;
    let wall = crate::engine::build::walltime(cfg, job);
    let mut out = format!(
        "job {id} requires {} proc{} for {}\n",
        job.procs(),
        if job.procs() == 1 { "" } else { "s" },
        fmt_duration(wall)
    );
    match est {
        Some((t, w)) => {
            out.push_str(&format!(
                "Earliest start in       {:>11} on {}\n",
                fmt_duration((t - now).max(0)),
                zone.fmt(t)
            ));
            out.push_str(&format!(
                "Earliest completion in  {:>11} on {}\n",
                fmt_duration((t + w - now).max(0)),
                zone.fmt(t + w)
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
    let (job, e) = showstart_subject(cfg, last, id)?;
    Ok(json!({
        "job": id,
        "procs": job.procs(),
        "walltime": crate::engine::build::walltime(cfg, &job),
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
    let zone = &last.zone;
    let job = find(last, id)?;
    let now = last.plan.now;
    let wall = crate::engine::build::walltime(cfg, job);
    let jp = last.plan.job(id);
    let outcome = last.start_outcome(id);
    let state = if job.state == JobState::Idle && last.started(id) {
        JobState::Running.name()
    } else if job.state == JobState::Idle && job.is_held() {
        "Hold"
    } else {
        job.state.name()
    };
    let mut out = format!("checking job {id}\n\nState: {state}\n");
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
    out.push_str(&format!("SubmitTime: {}\n", zone.fmt(job.submit_time)));
    if job.state == JobState::Idle {
        let eligible = jp.map_or(0, |j| j.eff_queue_time);
        out.push_str(&format!(
            "  (Time Queued  Total: {}  Eligible: {})\n",
            fmt_duration((now - job.submit_time).max(0)),
            fmt_duration(eligible)
        ));
    }
    if let Some(s) = job.start_time {
        out.push_str(&format!("StartTime: {}\n", zone.fmt(s)));
    }
    // The RM's tasks (the engine may bundle them for generic resources).
    let (tasks, task) = rm_tasks(job);
    out.push_str(&format!("\nTotal Tasks: {tasks}\n\n"));
    out.push_str(&format!(
        "Req[0]  TaskCount: {}  Partition: {}\n",
        tasks,
        job.partition.as_deref().unwrap_or("ALL")
    ));
    out.push_str(&format!(
        "Procs: {}  Memory >= {}M  Disk >= {}M  Swap >= {}M (per task)\n",
        task.procs, task.mem, task.disk, task.swap
    ));
    for (what, l) in [
        ("per task", &job.gres_per_task),
        ("per node", &job.gres_per_node),
        ("per job", &job.gres_per_job),
    ] {
        if !l.is_empty() {
            out.push_str(&format!("GRES: {l} ({what})\n"));
        }
    }
    if job.bundle > 1 {
        out.push_str(&format!(
            "  (scheduled as {} bundles of {} tasks that share their generic resources)\n",
            job.tasks, job.bundle
        ));
    }
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
        if job.wants_gres() {
            let c = &last.view.cluster;
            let g: Vec<String> = job
                .allocation
                .iter()
                .map(|a| {
                    format!(
                        "[{}:{}]",
                        a.node,
                        c.gres_text(&held_on_node(job, a.tasks).gres)
                    )
                })
                .collect();
            out.push_str(&format!("Allocated GRES:\n{}\n", g.join("")));
        }
    }
    out.push('\n');
    if let Some(jp) = jp {
        out.push_str(&format!("StartPriority:  {}\n", jp.priority));
        if jp.bypass_count > 0 {
            out.push_str(&format!("Bypass:  {}\n", jp.bypass_count));
        }
    }
    out.push_str(&preemption_lines(last, id));
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
        if job.wants_gres() {
            // What it holds there: the RM's tasks (bundles taken apart)
            // and the generic resources on each node.
            let c = &last.view.cluster;
            let held = reserved(job, &r.allocation);
            let t: String = held.iter().map(|(n, k, _)| format!("[{n}:{k}]")).collect();
            let g: String = held
                .iter()
                .map(|(n, _, g)| format!("[{n}:{}]", c.gres_text(g)))
                .collect();
            out.push_str(&format!("Reserved Nodes:\n{t}\nReserved GRES:\n{g}\n"));
        }
    }
    if let Some(s) = last.plan.starts.iter().find(|s| s.job == id) {
        let a: Vec<String> = s
            .allocation
            .iter()
            .map(|a| format!("{}:{}", a.node, a.tasks))
            .collect();
        let bf = match (s.backfill, s.after.is_empty()) {
            (true, _) => " (backfill)".to_string(),
            (false, false) => format!(" (after preempting job {})", s.after.join(", ")),
            (false, true) => String::new(),
        };
        out.push_str(&match &outcome {
            None => format!("Starting now{bf} on {}\n", a.join(",")),
            Some(StartOutcome::Started) => {
                format!("Started {}{bf} on {}\n", zone.fmt(now), a.join(","))
            }
            Some(StartOutcome::Refused(why)) => format!(
                "Start{bf} on {} not carried out: {why} (planned again at the next iteration)\n",
                a.join(",")
            ),
        });
    }
    if let Some(note) = jp.and_then(|j| j.preemption.as_deref()) {
        out.push_str(&format!("Preemption: not possible: {note}\n"));
    }
    if let Some(r) = jp.and_then(|j| j.reason.as_ref()) {
        out.push_str(&format!("Reason: {}\n", r));
        out.push_str(&format!(
            "NOTE:  job cannot run  ({})\n",
            reason_text(r, &last.zone)
        ));
        if let Some(Ok(Some((t, _)))) = startable(job, r).then(|| estimate(cfg, last, id)) {
            out.push_str(&format!(
                "Estimated start: {} (in {})\n",
                zone.fmt(t),
                fmt_duration((t - now).max(0))
            ));
        }
    }
    if verbose && job.state == JobState::Idle {
        out.push_str(&node_availability(cfg, last, job, None));
    }
    Ok(out)
}

/// checkjob's lines about preemption: what the plan does to job `id` now
/// (preempt it for a job, resume it) and what this scheduler did to it
/// before (who preempted it, when and how).
fn preemption_lines(last: &LastIteration, id: &str) -> String {
    let mut out = String::new();
    for a in last.plan.actions.iter().filter(|a| a.job == id) {
        match a.kind {
            k if k.preempts() => {
                out.push_str(&format!("Preempting now ({}) for job {}\n", k.name(), a.by))
            }
            crate::engine::ActionKind::Resume => {
                out.push_str("Resuming now (its processors are free again)\n")
            }
            _ => {}
        }
    }
    if let Some(p) = last.preempted.get(id) {
        out.push_str(&format!(
            "Preempted: {} time(s), last by job {} at {} ({}){}{}\n",
            p.count,
            p.by,
            last.zone.fmt(p.at),
            p.how.name(),
            if p.suspended { ", still suspended" } else { "" },
            if p.lost > 0 {
                format!(
                    ", {:.2} processor-hours of work lost",
                    p.lost as f64 / 3600.0
                )
            } else {
                String::new()
            }
        ));
    }
    out
}

/// checkjob's node by node availability of idle `job` (`-v`), or of one
/// node (`-n NODE`): how many of its tasks fit now, or why none can.
pub fn node_availability(
    cfg: &Config,
    last: &LastIteration,
    job: &Job,
    only: Option<&str>,
) -> String {
    let now = last.plan.now;
    let wall = crate::engine::build::walltime(cfg, job);
    let req = TaskRequest::from_job(job, &last.view.cluster, cfg);
    let adm = JobAdmission::new(&last.view.table, job);
    let end = now.saturating_add(wall);
    let (mut idle_procs, mut feasible) = (0u64, 0u64);
    let mut out = String::from("\nNode availability:\n");
    for n in last
        .view
        .cluster
        .nodes
        .iter()
        .filter(|n| only.is_none_or(|o| n.name == o))
    {
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
    out
}

/// `checkjob -r RESID[,RESID...]`: whether each reservation admits the
/// job for its walltime from now, in Maui's words (and as JSON pairs).
pub fn reservation_access(
    cfg: &Config,
    last: &LastIteration,
    job: &Job,
    ids: &[String],
) -> (String, Vec<(String, Option<bool>)>) {
    let now = last.plan.now;
    let end = now.saturating_add(crate::engine::build::walltime(cfg, job));
    let mut text = String::new();
    let mut v = Vec::new();
    for id in ids {
        let r = last.view.table.iter().find(|r| &r.id == id);
        let granted = r.map(|r| {
            crate::reservation::acl::access(r, job, now, end)
                .affinity()
                .is_some()
        });
        text.push_str(&match granted {
            Some(true) => format!("\nNOTE:  job granted access to reservation '{id}'\n"),
            Some(false) => format!("\nNOTE:  job denied access to reservation '{id}'\n"),
            None => format!("\nNOTE:  cannot locate reservation '{id}'\n"),
        });
        v.push((id.clone(), granted));
    }
    (text, v)
}

/// An idle job that starts by itself once resources allow: not held and
/// not waiting on a dependency (Maui gives those no estimate).
fn startable(job: &Job, why: &Reason) -> bool {
    job.state == JobState::Idle && !matches!(why, Reason::Hold { .. } | Reason::Dependency)
}

/// What a job reservation holds on each node, from its allocation in the
/// engine's tasks: the node, the RM's tasks, the generic resources.
fn reserved<'a>(
    job: &Job,
    allocation: &'a [crate::model::NodeTasks],
) -> Vec<(&'a str, u32, crate::model::GresCounts)> {
    allocation
        .iter()
        .map(|a| {
            let rm = a.tasks.saturating_mul(job.bundle.max(1));
            (a.node.as_str(), rm, held_on_node(job, rm).gres)
        })
        .collect()
}

/// checkjob as JSON.
pub fn checkjob_json(
    cfg: &Config,
    last: &LastIteration,
    id: &str,
) -> Result<serde_json::Value, String> {
    let job = find(last, id)?;
    let jp = last.plan.job(id);
    let est = match jp.and_then(|j| j.reason.as_ref()) {
        Some(r) if startable(job, r) => estimate(cfg, last, id)?,
        None if job.state == JobState::Idle => estimate(cfg, last, id)?,
        _ => None,
    };
    // One answer per question: the plan's estimate and bypass count are
    // the ones shown at the top level and in "job".
    let mut plan = serde_json::to_value(jp).unwrap_or_default();
    let mut job_v = serde_json::to_value(job).unwrap_or_default();
    if let (Some(p), Some(j)) = (plan.as_object_mut(), jp) {
        p.insert("estimated_start".into(), json!(est.map(|(t, _)| t)));
        if let Some(o) = job_v.as_object_mut() {
            o.insert("bypass_count".into(), json!(j.bypass_count));
        }
    }
    Ok(json!({
        "job": job_v,
        "plan": plan,
        "reason_text": jp.and_then(|j| j.reason.as_ref()).map(|r| reason_text(r, &last.zone)),
        "gres": {
            "per_task": job.gres_per_task,
            "per_node": job.gres_per_node,
            "per_job": job.gres_per_job,
            "bundle": job.bundle.max(1),
            "allocated": job.allocation.iter().map(|a| json!({"node": a.node, "gres": gres_json(&last.view.cluster, &held_on_node(job, a.tasks).gres)})).collect::<Vec<_>>(),
            "reserved": last.plan.reservations.iter().find(|r| r.job.as_deref() == Some(id)).map(|r| reserved(job, &r.allocation).into_iter().map(|(n, k, g)| json!({"node": n, "tasks": k, "gres": gres_json(&last.view.cluster, &g)})).collect::<Vec<_>>()).unwrap_or_default(),
        },
        "estimated_start": est.map(|(t, _)| t),
        "start": last.starts().find(|s| s.job == id),
        "start_outcome": match last.start_outcome(id) {
            None => serde_json::Value::Null,
            Some(StartOutcome::Started) => json!({"started": true}),
            Some(StartOutcome::Refused(why)) => json!({"started": false, "message": why}),
        },
        "priority": last.priority_breakdown(id),
        "preempted": last.preempted.get(id),
        "preempting": last.plan.actions.iter().filter(|a| a.job == id && a.kind.preempts()).map(|a| json!({"how": a.kind, "by": a.by})).next(),
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
        // Maui's Deferred is a defer hold; a job waiting on a dependency
        // or its start date is Idle, blocked for that reason.
        Some(Reason::Stopped { .. }) => "Stopped",
        _ => "Idle",
    }
}

/// Which part of the queue showq lists.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ShowqMode {
    /// The three sections (active, eligible, blocked).
    #[default]
    All,
    /// `-r`: active jobs with details.
    Running,
    /// `-i`: eligible jobs with details.
    Idle,
    /// `-b`: blocked jobs only.
    Blocked,
}

/// Options of showq.
#[derive(Clone, Debug, Default)]
pub struct ShowqOpts {
    /// Section and layout.
    pub mode: ShowqMode,
    /// `-p`: only jobs in this partition.
    pub partition: Option<String>,
    /// `-w user=…` (group, acct, class, qos): only jobs with this credential.
    pub filter: Option<(crate::model::CredKind, String)>,
}

/// One job as showq lists it.
struct QRow<'a> {
    job: &'a Job,
    state: &'static str,
    /// Remaining time (active) or walltime (waiting).
    time: Secs,
    /// Start time (active) or submission time (waiting).
    at: Time,
    /// Generic resources held (active) or asked for in all (waiting, once
    /// resolved; zero when the request cannot be).
    gres: GresSum,
}

/// The three sections of showq, in Maui's orders.
struct Queue<'a> {
    active: Vec<QRow<'a>>,
    eligible: Vec<(QRow<'a>, &'a crate::engine::JobPlan)>,
    blocked: Vec<(QRow<'a>, &'a crate::engine::JobPlan)>,
    busy_procs: u64,
    busy_nodes: usize,
    /// Generic resources held by active jobs and this plan's starts.
    busy_gres: GresSum,
}

/// The first node of a running job, or of a job the plan starts now.
fn first_node<'a>(last: &'a LastIteration, job: &'a Job) -> Option<&'a str> {
    job.allocation.first().map(|a| a.node.as_str()).or_else(|| {
        last.starts()
            .find(|s| s.job == job.id)
            .and_then(|s| s.allocation.first())
            .map(|a| a.node.as_str())
    })
}

/// The partition a job runs in or asks for (its first node's when running).
fn job_partition<'a>(last: &'a LastIteration, job: &'a Job) -> Option<&'a str> {
    if let Some(p) = job.partition.as_deref() {
        return Some(p);
    }
    let node = first_node(last, job)?;
    let c = &last.view.cluster;
    c.index(node)
        .and_then(|i| c.nodes[i as usize].partition.as_deref())
}

fn queue<'a>(cfg: &Config, last: &'a LastIteration, opts: &ShowqOpts) -> Queue<'a> {
    let now = last.plan.now;
    let keep = |j: &Job| {
        opts.filter
            .as_ref()
            .is_none_or(|(k, v)| j.cred(*k) == Some(v.as_str()))
            && opts
                .partition
                .as_deref()
                .is_none_or(|p| job_partition(last, j) == Some(p))
    };
    let starts: std::collections::BTreeMap<&str, &crate::engine::Start> =
        last.starts().map(|s| (s.job.as_str(), s)).collect();
    let mut active = Vec::new();
    let mut busy_procs = 0u64;
    let mut busy_nodes = std::collections::BTreeSet::new();
    let mut busy_gres: GresSum = [0; crate::model::MAX_GRES];
    for j in &last.jobs {
        let start = starts.get(j.id.as_str());
        if !j.state.is_active() && start.is_none() {
            continue;
        }
        let alloc = if j.state.is_active() {
            &j.allocation
        } else {
            &start.expect("checked above").allocation
        };
        busy_procs += j.procs();
        busy_nodes.extend(alloc.iter().map(|a| a.node.as_str()));
        let mut gres: GresSum = [0; crate::model::MAX_GRES];
        if j.wants_gres() {
            for a in alloc {
                add_gres(&mut gres, &held_on_node(j, a.tasks).gres);
            }
            for (b, g) in busy_gres.iter_mut().zip(&gres) {
                *b += g;
            }
        }
        if !keep(j) {
            continue;
        }
        let row = if j.state.is_active() {
            let s = j.start_time.unwrap_or(now);
            let end = s.saturating_add(crate::engine::build::walltime(cfg, j));
            QRow {
                job: j,
                state: j.state.name(),
                time: (end - now).max(0),
                at: s,
                gres,
            }
        } else {
            QRow {
                job: j,
                state: if last.started(&j.id) {
                    JobState::Running.name()
                } else {
                    "Starting"
                },
                time: crate::engine::build::walltime(cfg, j),
                at: now,
                gres,
            }
        };
        active.push(row);
    }
    active.sort_by(|a, b| {
        a.time
            .cmp(&b.time)
            .then_with(|| crate::engine::job_id_cmp(&a.job.id, &b.job.id))
    });
    let by_id: std::collections::BTreeMap<&str, &Job> =
        last.jobs.iter().map(|j| (j.id.as_str(), j)).collect();
    let mut eligible = Vec::new();
    let mut blocked = Vec::new();
    // Jobs the plan starts are active unless the resource manager refused
    // the start: then they wait again.
    for jp in last.plan.jobs.iter() {
        let Some(job) = by_id.get(jp.job.as_str()).copied() else {
            continue;
        };
        if starts.contains_key(job.id.as_str()) || !keep(job) {
            continue;
        }
        let is_blocked = jp.reason.as_ref().is_some_and(Reason::is_blocking);
        let row = QRow {
            job,
            state: if is_blocked {
                waiting_state(jp.reason.as_ref())
            } else {
                "Idle"
            },
            time: crate::engine::build::walltime(cfg, job),
            at: job.submit_time,
            gres: asked_gres(job),
        };
        if is_blocked {
            blocked.push((row, jp));
        } else {
            eligible.push((row, jp));
        }
    }
    Queue {
        active,
        eligible,
        blocked,
        busy_procs,
        busy_nodes: busy_nodes.len(),
        busy_gres,
    }
}

/// What a waiting job asks for in all, once its request is resolved (the
/// engine's tasks times their generic resources; an idle job asks nothing
/// per node of its own); zero when it cannot be.
fn asked_gres(job: &Job) -> GresSum {
    let mut sum: GresSum = [0; crate::model::MAX_GRES];
    if job.wants_gres() {
        for (k, s) in sum.iter_mut().enumerate() {
            *s = job.task.gres.get(k) as u64 * job.tasks as u64;
        }
    }
    sum
}

/// The request as the RM gave it, each scope marked (`gpu:2/node`),
/// several joined with `+`.
fn request_text(job: &Job) -> String {
    let parts: Vec<String> = [
        ("task", &job.gres_per_task),
        ("node", &job.gres_per_node),
        ("job", &job.gres_per_job),
    ]
    .into_iter()
    .filter(|(_, l)| !l.is_empty())
    .map(|(what, l)| format!("{l}/{what}"))
    .collect();
    parts.join("+")
}

/// showq's GRES column: what the job holds or asks for in all, the
/// request as given where it cannot be resolved, `-` for none.
fn gres_cell(c: &crate::model::Cluster, r: &QRow) -> String {
    if !r.job.wants_gres() {
        return "-".into();
    }
    let t = gres_compact(c, &r.gres);
    if t.is_empty() {
        request_text(r.job)
    } else {
        t
    }
}

fn pct(part: u64, whole: u64) -> f64 {
    if whole > 0 {
        100.0 * part as f64 / whole as f64
    } else {
        0.0
    }
}

/// Maui's plural: `s`, or a blank for one.
fn plural(n: usize) -> char {
    if n == 1 {
        ' '
    } else {
        's'
    }
}

/// Configured generic resources of all nodes.
fn total_gres(c: &crate::model::Cluster) -> GresSum {
    let mut sum: GresSum = [0; crate::model::MAX_GRES];
    for n in &c.nodes {
        add_gres(&mut sum, &n.configured.gres);
    }
    sum
}

fn active_summary(last: &LastIteration, q: &Queue) -> String {
    let c = &last.view.cluster;
    let total = c.total.procs as u64;
    let nodes = c.nodes.len();
    let mut out = format!(
        "{:>6} Active Job{}    {:>4} of {:>4} Processors Active ({:.2}%)\n{:>26} of {:>4} Nodes Active      ({:.2}%)\n",
        q.active.len(),
        plural(q.active.len()),
        q.busy_procs,
        total,
        pct(q.busy_procs, total),
        q.busy_nodes,
        nodes,
        pct(q.busy_nodes as u64, nodes as u64)
    );
    // One line per untyped generic resource (each device once).
    let all = total_gres(c);
    for (k, name) in c.gres_names.iter().enumerate() {
        if name.contains(':') {
            continue;
        }
        let label = format!("{name} Active");
        out.push_str(&format!(
            "{:>26} of {:>4} {label:<17} ({:.2}%)\n",
            q.busy_gres[k],
            all[k],
            pct(q.busy_gres[k], all[k])
        ));
    }
    out
}

/// Ends a showq header line: the GRES column's title where the cluster
/// has generic resources.
fn end_header(out: &mut String, c: &crate::model::Cluster) {
    if !c.gres_names.is_empty() {
        out.push_str("  GRES");
    }
    out.push_str("\n\n");
}

/// Ends a showq row: its GRES cell where the cluster has generic resources.
fn end_row(out: &mut String, c: &crate::model::Cluster, r: &QRow) {
    if !c.gres_names.is_empty() {
        out.push_str("  ");
        out.push_str(&gres_cell(c, r));
    }
    out.push('\n');
}

fn waiting_rows(
    out: &mut String,
    zone: &Zone,
    c: &crate::model::Cluster,
    rows: &[(QRow, &crate::engine::JobPlan)],
) {
    out.push_str(&format!(
        "{:<18} {:>8} {:>10} {:>5} {:>11} {:>20}",
        "JOBNAME", "USERNAME", "STATE", "PROC", "WCLIMIT", "QUEUETIME"
    ));
    end_header(out, c);
    for (r, _) in rows {
        out.push_str(&format!(
            "{:<18} {:>8} {:>10} {:>5} {:>11}  {:>19}",
            r.job.id,
            r.job.user,
            r.state,
            r.job.procs(),
            fmt_duration(r.time),
            zone.fmt(r.at)
        ));
        end_row(out, c, r);
    }
}

/// XFactor: (time queued + walltime) / walltime.
fn xfactor(queued: Secs, wall: Secs) -> f64 {
    (queued.max(0) + wall.max(1)) as f64 / wall.max(1) as f64
}

fn stopped_note(stopped: Option<&crate::engine::StopInfo>, zone: &Zone) -> String {
    match stopped {
        Some(s) => format!(
            "\nNOTE:  scheduling is stopped (schedctl -s by {} at {}): no job is started until schedctl -r\n",
            s.by,
            zone.fmt(s.at)
        ),
        None => String::new(),
    }
}

/// showq: active jobs (running, suspended, and those this iteration
/// starts), eligible jobs in priority order, blocked jobs (holds, policies,
/// dependencies: not a matter of resources), in Maui's three sections;
/// `-r`, `-i` and `-b` show one section with Maui's detailed columns.
/// `stopped` is the scheduler's current stop (schedctl -s), noted last.
pub fn showq(
    cfg: &Config,
    last: &LastIteration,
    opts: &ShowqOpts,
    stopped: Option<&crate::engine::StopInfo>,
) -> String {
    let zone = &last.zone;
    let now = last.plan.now;
    let q = queue(cfg, last, opts);
    let c = &last.view.cluster;
    let mut out = String::new();
    match opts.mode {
        ShowqMode::All => {
            out.push_str("ACTIVE JOBS--------------------\n");
            out.push_str(&format!(
                "{:<18} {:>8} {:>10} {:>5} {:>11} {:>20}",
                "JOBNAME", "USERNAME", "STATE", "PROC", "REMAINING", "STARTTIME"
            ));
            end_header(&mut out, c);
            for r in &q.active {
                out.push_str(&format!(
                    "{:<18} {:>8} {:>10} {:>5} {:>11}  {:>19}",
                    r.job.id,
                    r.job.user,
                    r.state,
                    r.job.procs(),
                    fmt_duration(r.time),
                    zone.fmt(r.at)
                ));
                end_row(&mut out, c, r);
            }
            out.push('\n');
            out.push_str(&active_summary(last, &q));
            out.push_str("\nIDLE JOBS----------------------\n");
            waiting_rows(&mut out, &last.zone, c, &q.eligible);
            out.push_str(&format!(
                "\n{} Idle Job{}\n\nBLOCKED JOBS----------------\n",
                q.eligible.len(),
                plural(q.eligible.len())
            ));
            waiting_rows(&mut out, &last.zone, c, &q.blocked);
            out.push_str(&format!(
                "\nTotal Jobs: {}   Active Jobs: {}   Idle Jobs: {}   Blocked Jobs: {}\n",
                q.active.len() + q.eligible.len() + q.blocked.len(),
                q.active.len(),
                q.eligible.len(),
                q.blocked.len()
            ));
        }
        ShowqMode::Running => {
            out.push_str("ACTIVE JOBS--------------------\n");
            out.push_str(&format!(
                "{:<18} {:>1} {:>4} {:>6} {:>8} {:>2} {:>9} {:>8} {:>12} {:>5} {:>11} {:>20}",
                "JOBNAME",
                "S",
                "PAR",
                "EFFIC",
                "XFACTOR",
                "Q",
                "USER",
                "GROUP",
                "MHOST",
                "PROCS",
                "REMAINING",
                "STARTTIME"
            ));
            end_header(&mut out, c);
            for r in &q.active {
                let j = r.job;
                let wall = crate::engine::build::walltime(cfg, j);
                let effic = match (j.utilized_procs, j.procs()) {
                    (Some(u), p) if p > 0 && j.state.is_active() => {
                        format!("{:.2}", 100.0 * u / p as f64)
                    }
                    _ => "------".into(),
                };
                let mhost = first_node(last, j).unwrap_or("-");
                out.push_str(&format!(
                    "{:<18} {:>1} {:>4} {:>6} {:>8.1} {:>2} {:>9} {:>8} {:>12} {:>5} {:>11}  {:>19}",
                    j.id,
                    if j.state.is_active() { &r.state[..1] } else { "S" },
                    job_partition(last, j).unwrap_or("-"),
                    effic,
                    xfactor(r.at - j.submit_time, wall),
                    j.qos.as_deref().unwrap_or("-"),
                    j.user,
                    j.group,
                    mhost,
                    j.procs(),
                    fmt_duration(r.time),
                    zone.fmt(r.at)
                ));
                end_row(&mut out, c, r);
            }
            out.push('\n');
            out.push_str(&active_summary(last, &q));
            out.push_str(&format!("\nTotal Jobs: {}\n", q.active.len()));
        }
        ShowqMode::Idle => {
            out.push_str("IDLE JOBS----------------------\n");
            out.push_str(&format!(
                "{:<18} {:>10} {:>8} {:>2} {:>9} {:>8} {:>6} {:>11} {:>9} {:>20}",
                "JOBNAME",
                "PRIORITY",
                "XFACTOR",
                "Q",
                "USER",
                "GROUP",
                "PROCS",
                "WCLIMIT",
                "CLASS",
                "SYSTEMQUEUETIME"
            ));
            end_header(&mut out, c);
            for (r, jp) in &q.eligible {
                let j = r.job;
                let name = if jp.reservation.is_some() {
                    format!("{}*", j.id)
                } else {
                    j.id.clone()
                };
                out.push_str(&format!(
                    "{:<18} {:>10} {:>8.1} {:>2} {:>9} {:>8} {:>6} {:>11} {:>9}  {:>19}",
                    name,
                    jp.priority,
                    xfactor(now - j.submit_time, r.time),
                    j.qos.as_deref().unwrap_or("-"),
                    j.user,
                    j.group,
                    j.procs(),
                    fmt_duration(r.time),
                    j.class.as_deref().unwrap_or("-"),
                    zone.fmt(j.submit_time)
                ));
                end_row(&mut out, c, r);
            }
            out.push_str(&format!(
                "\n{} Idle Job{}\n\nTotal Jobs: {}\n",
                q.eligible.len(),
                plural(q.eligible.len()),
                q.eligible.len()
            ));
        }
        ShowqMode::Blocked => {
            out.push_str("BLOCKED JOBS----------------\n");
            waiting_rows(&mut out, &last.zone, c, &q.blocked);
            out.push_str(&format!(
                "\n{} Blocked Job{}\n\nTotal Jobs: {}\n",
                q.blocked.len(),
                plural(q.blocked.len()),
                q.blocked.len()
            ));
        }
    }
    out.push_str(&stopped_note(stopped, &last.zone));
    out
}

/// showq as JSON: the sections Maui shows, with machine-readable times.
pub fn showq_json(
    cfg: &Config,
    last: &LastIteration,
    opts: &ShowqOpts,
    stopped: Option<&crate::engine::StopInfo>,
) -> serde_json::Value {
    let q = queue(cfg, last, opts);
    let c = &last.view.cluster;
    let has_gres = !c.gres_names.is_empty();
    let starts: rustc_hash::FxHashMap<&str, &[crate::model::NodeTasks]> = if has_gres {
        last.starts()
            .map(|s| (s.job.as_str(), s.allocation.as_slice()))
            .collect()
    } else {
        Default::default()
    };
    // Where the cluster has generic resources: the request as given, what
    // it comes to in all (held, or asked once placed) and, for an active
    // job, what it holds on each node.
    let with_gres = |mut v: serde_json::Value,
                     r: &QRow,
                     alloc: Option<&[crate::model::NodeTasks]>| {
        if has_gres {
            let mut g = json!({
                "per_task": r.job.gres_per_task,
                "per_node": r.job.gres_per_node,
                "per_job": r.job.gres_per_job,
                "total": gres_sum_json(c, &r.gres, false),
            });
            if let Some(a) = alloc {
                g["allocated"] = a
                    .iter()
                    .map(|a| json!({"node": a.node, "gres": gres_json(c, &held_on_node(r.job, a.tasks).gres)}))
                    .collect();
            }
            v["gres"] = g;
        }
        v
    };
    let waiting = |rows: &[(QRow, &crate::engine::JobPlan)]| -> Vec<serde_json::Value> {
        rows.iter()
            .map(|(r, jp)| {
                with_gres(
                    json!({
                        "job": r.job.id,
                        "user": r.job.user,
                        "group": r.job.group,
                        "state": r.state,
                        "procs": r.job.procs(),
                        "walltime": r.time,
                        "submit_time": r.job.submit_time,
                        "priority": jp.priority,
                        "reservation": jp.reservation,
                        "reason": jp.reason,
                        "estimated_start": jp.estimated_start,
                    }),
                    r,
                    None,
                )
            })
            .collect()
    };
    let total = last.view.cluster.total.procs as u64;
    let mut v = json!({
        "now": last.plan.now,
        "active": q.active.iter().map(|r| with_gres(json!({
            "job": r.job.id,
            "user": r.job.user,
            "group": r.job.group,
            "state": r.state,
            "procs": r.job.procs(),
            "remaining": r.time,
            "start_time": r.at,
        }), r, Some(active_allocation(&starts, r.job)))).collect::<Vec<_>>(),
        "eligible": waiting(&q.eligible),
        "blocked": waiting(&q.blocked),
        "summary": {
            "active_jobs": q.active.len(),
            "eligible_jobs": q.eligible.len(),
            "blocked_jobs": q.blocked.len(),
            "busy_procs": q.busy_procs,
            "total_procs": total,
            "busy_nodes": q.busy_nodes,
            "total_nodes": last.view.cluster.nodes.len(),
        },
        "stopped": stopped,
    });
    if has_gres {
        v["summary"]["busy_gres"] = gres_sum_json(c, &q.busy_gres, true);
        v["summary"]["total_gres"] = gres_sum_json(c, &total_gres(c), true);
    }
    v
}

/// A running job's allocation, or the allocation this plan starts it on.
fn active_allocation<'a>(
    starts: &rustc_hash::FxHashMap<&str, &'a [crate::model::NodeTasks]>,
    job: &'a Job,
) -> &'a [crate::model::NodeTasks] {
    if job.state.is_active() {
        return &job.allocation;
    }
    starts.get(job.id.as_str()).copied().unwrap_or(&[])
}

/// Memory as Maui prints it: whole gigabytes as `G`, else megabytes.
fn mem(mb: u64) -> String {
    if mb >= 1024 && mb % 1024 == 0 {
        format!("{}G", mb / 1024)
    } else {
        format!("{mb}M")
    }
}

/// Calls `f` with (node index, job, what the job holds there) for every
/// node of every active job and of this plan's starts.
fn each_held(last: &LastIteration, mut f: impl FnMut(usize, &Job, crate::model::Resources)) {
    let c = &last.view.cluster;
    let by_id: std::collections::BTreeMap<&str, &Job> =
        last.jobs.iter().map(|j| (j.id.as_str(), j)).collect();
    let active = last
        .jobs
        .iter()
        .filter(|j| j.state.is_active())
        .map(|j| (j, &j.allocation));
    let starting = last
        .starts()
        .filter_map(|s| by_id.get(s.job.as_str()).map(|j| (*j, &s.allocation)));
    for (j, alloc) in active.chain(starting) {
        for a in alloc {
            if let Some(i) = c.index(&a.node) {
                f(i as usize, j, held_on_node(j, a.tasks));
            }
        }
    }
}

/// What active jobs and this plan's starts hold on each node (by index):
/// resources and the jobs there.
fn dedicated(last: &LastIteration) -> Vec<(crate::model::Resources, Vec<String>)> {
    let mut out = vec![(crate::model::Resources::ZERO, Vec::new()); last.view.cluster.nodes.len()];
    each_held(last, |i, j, r| {
        let slot = &mut out[i];
        slot.0 = slot.0.saturating_add(&r);
        slot.1.push(j.id.clone());
    });
    out
}

/// The processors active jobs and this plan's starts hold on each node
/// (by index).
pub(crate) fn held_procs(last: &LastIteration) -> Vec<u32> {
    let mut out = vec![0u32; last.view.cluster.nodes.len()];
    each_held(last, |i, _, r| out[i] = out[i].saturating_add(r.procs));
    out
}

/// What `job` holds on a node where the RM runs `tasks` of its tasks:
/// its tasks' resources (the engine's tasks bundle the RM's where generic
/// resources asked per node or per job made it) and its per-node generic
/// resources.
fn held_on_node(job: &Job, tasks: u32) -> crate::model::Resources {
    let engine_tasks = if job.bundle > 1 && job.state == JobState::Idle {
        tasks / job.bundle
    } else {
        tasks
    };
    let r = job
        .task
        .checked_mul(engine_tasks)
        .unwrap_or(crate::model::Resources::MAX);
    r.saturating_add(&crate::model::Resources {
        gres: job.node_gres,
        ..crate::model::Resources::ZERO
    })
}

/// The job's task count and task as the RM gave them (the engine's
/// bundles taken apart).
fn rm_tasks(job: &Job) -> (u32, crate::model::Resources) {
    if job.bundle > 1 {
        let t = job.task;
        let b = job.bundle as u64;
        let task = crate::model::Resources {
            procs: t.procs / job.bundle,
            mem: t.mem / b,
            swap: t.swap / b,
            disk: t.disk / b,
            gres: crate::model::GresCounts::ZERO,
        };
        (job.tasks * job.bundle, task)
    } else {
        (job.tasks, job.task)
    }
}

/// Maui's resource line: `PROCS: 4  MEM: 8G  SWAP: 0M  DISK: 0M`, then
/// each generic resource held as `gpu: 2` (MUCResToString).
fn res_line(c: &crate::model::Cluster, r: &crate::model::Resources) -> String {
    let mut out = format!(
        "PROCS: {}  MEM: {}  SWAP: {}  DISK: {}",
        r.procs,
        mem(r.mem),
        mem(r.swap),
        mem(r.disk)
    );
    for (k, name) in c.gres_names.iter().enumerate() {
        if r.gres.get(k) > 0 {
            out.push_str(&format!("  {name}: {}", r.gres.get(k)));
        }
    }
    out
}

/// Generic resource counts by id summed without a node's cap (a
/// cluster's or a large job's totals pass 65,535).
pub(crate) type GresSum = [u64; crate::model::MAX_GRES];

/// Adds `g` to `sum`.
pub(crate) fn add_gres(sum: &mut GresSum, g: &crate::model::GresCounts) {
    for (k, s) in sum.iter_mut().enumerate() {
        *s += g.get(k) as u64;
    }
}

/// `sum` by name as requests spell them (showq, showres, diagnose -n): a
/// typed name with its count, an untyped one only for what its typed names
/// do not account for, so `gpu:a100:2` rather than `gpu:2,gpu:a100:2`,
/// and `gpu:1,gpu:a100:2` where one more GPU of any type is counted.
/// Empty when all are zero.
pub(crate) fn gres_compact(c: &crate::model::Cluster, sum: &GresSum) -> String {
    let mut out: Vec<String> = Vec::new();
    for (k, name) in c.gres_names.iter().enumerate() {
        let mut n = sum[k];
        if !name.contains(':') {
            let prefix = format!("{name}:");
            let typed: u64 = c
                .gres_names
                .iter()
                .enumerate()
                .filter(|(_, t)| t.starts_with(&prefix))
                .map(|(t, _)| sum[t])
                .sum();
            n = n.saturating_sub(typed);
        }
        if n > 0 {
            out.push(format!("{name}:{n}"));
        }
    }
    out.join(",")
}

/// Summed counts by name for JSON: every name of the cluster when `all`,
/// else those above zero.
pub(crate) fn gres_sum_json(
    c: &crate::model::Cluster,
    sum: &GresSum,
    all: bool,
) -> serde_json::Value {
    let m: serde_json::Map<String, serde_json::Value> = c
        .gres_names
        .iter()
        .enumerate()
        .filter(|(k, _)| all || sum[*k] > 0)
        .map(|(k, n)| (n.clone(), json!(sum[k])))
        .collect();
    serde_json::Value::Object(m)
}

/// Generic resource counts by name, for JSON.
pub(crate) fn gres_json(
    c: &crate::model::Cluster,
    g: &crate::model::GresCounts,
) -> serde_json::Value {
    let m: serde_json::Map<String, serde_json::Value> = c
        .gres_names
        .iter()
        .enumerate()
        .filter(|(k, _)| g.get(*k) > 0)
        .map(|(k, n)| (n.clone(), json!(g.get(k))))
        .collect();
    serde_json::Value::Object(m)
}

/// A node's state as Maui shows it: the RM's state when the node is out
/// of service, else Idle, Running or Busy by what jobs hold there.
fn node_state(n: &crate::model::EffNode, held: &crate::model::Resources) -> &'static str {
    use crate::model::NodeState;
    match n.state {
        NodeState::Down | NodeState::Drained | NodeState::Draining | NodeState::Unknown => {
            n.state.name()
        }
        _ if held.procs == 0 => "Idle",
        _ if held.procs >= n.configured.procs => "Busy",
        _ => "Running",
    }
}

/// checknode NODE: state, resources, reservations and jobs of one node.
pub fn checknode(last: &LastIteration, name: &str, verbose: bool) -> Result<String, String> {
    let c = &last.view.cluster;
    let i = c
        .index(name)
        .ok_or_else(|| format!("node {name} is not known to the scheduler"))?;
    let n = &c.nodes[i as usize];
    let now = last.plan.now;
    let ded = dedicated(last);
    let (held, jobs) = &ded[i as usize];
    let res = |r: &crate::model::Resources| res_line(c, r);
    let mut out = format!("checking node {name}\n\n");
    out.push_str(&format!("State:      {}\n", node_state(n, held)));
    if verbose {
        out.push_str(&format!(
            "Location:   Partition: {}  Frame/Slot:  NA\n",
            n.partition.as_deref().unwrap_or("DEFAULT")
        ));
    }
    out.push_str(&format!("Configured Resources: {}\n", res(&n.configured)));
    if let Some(avail) = n.reported_available {
        out.push_str(&format!(
            "Utilized   Resources: {}\n",
            res(&n.configured.saturating_sub(&avail))
        ));
    }
    out.push_str(&format!("Dedicated  Resources: {}\n", res(held)));
    if !n.configured.gres.is_zero() {
        let free = c.gres_usable(&n.configured.gres.map(&held.gres, u32::saturating_sub));
        let free = c.gres_text(&free);
        out.push_str(&format!(
            "Available GRES: {}\n",
            if free.is_empty() {
                "[NONE]"
            } else {
                free.as_str()
            }
        ));
    }
    for (name, cfg, rm) in &n.gres_overridden {
        out.push_str(&format!(
            "NOTE:  the RM reports {name}: {rm}, NODECFG GRES says {cfg}: the RM's count is used\n"
        ));
    }
    out.push_str(&format!(
        "Partition:  {}\n",
        n.partition.as_deref().unwrap_or("DEFAULT")
    ));
    out.push_str(&format!(
        "Speed:      {:<10.2}CPULoad:   {:.3}\n",
        n.speed, n.load
    ));
    out.push_str(&format!(
        "Features:   {}\n",
        if n.features.is_empty() {
            "[NONE]".to_string()
        } else {
            n.features.join(",")
        }
    ));
    out.push_str(&format!(
        "Access:     {}{}\n",
        n.access.keyword(),
        if n.usable {
            ""
        } else {
            "  (takes no new work)"
        }
    ));
    let table = super::showres::table(last);
    let here: Vec<String> = table
        .iter()
        .filter_map(|r| {
            let cl = r.claims.iter().find(|cl| cl.node == i)?;
            Some(format!(
                "  {} '{}'(x{})  {} -> {} ({})\n",
                r.type_name(),
                r.id,
                cl.tasks,
                dur(r.start - now),
                dur(r.end.saturating_sub(now)),
                dur(r.duration())
            ))
        })
        .collect();
    if !here.is_empty() {
        out.push_str("\nReservations:\n");
        for l in here {
            out.push_str(&l);
        }
    }
    out.push_str(&format!(
        "JobList:  {}\n",
        if jobs.is_empty() {
            "[NONE]".to_string()
        } else {
            jobs.join(",")
        }
    ));
    Ok(out)
}

/// checknode as JSON.
pub fn checknode_json(last: &LastIteration, name: &str) -> Result<serde_json::Value, String> {
    let c = &last.view.cluster;
    let i = c
        .index(name)
        .ok_or_else(|| format!("node {name} is not known to the scheduler"))?;
    let n = &c.nodes[i as usize];
    let ded = dedicated(last);
    let (held, jobs) = &ded[i as usize];
    let table = super::showres::table(last);
    let res: Vec<_> = table
        .iter()
        .filter_map(|r| {
            let cl = r.claims.iter().find(|cl| cl.node == i)?;
            Some(json!({
                "id": r.id, "type": r.type_name(), "tasks": cl.tasks,
                "start": r.start, "end": (r.end != crate::profile::INFINITY).then_some(r.end),
            }))
        })
        .collect();
    Ok(json!({
        "node": name,
        "state": node_state(n, held),
        "rm_state": n.state,
        "configured": n.configured,
        "available": n.reported_available,
        "dedicated": held,
        "gres": {
            "configured": gres_json(c, &n.configured.gres),
            "dedicated": gres_json(c, &held.gres),
            "available": gres_json(c, &c.gres_usable(&n.configured.gres.map(&held.gres, u32::saturating_sub))),
            "rm_over_nodecfg": n.gres_overridden.iter().map(|(name, cfg, rm)| json!({"name": name, "nodecfg": cfg, "rm": rm})).collect::<Vec<_>>(),
        },
        "partition": n.partition,
        "speed": n.speed,
        "load": n.load,
        "features": n.features,
        "usable": n.usable,
        "reservations": res,
        "jobs": jobs,
    }))
}

/// diagnose -n \[NODE\]: every node's state and resources (available:configured).
pub fn diagnose_n(last: &LastIteration, node: Option<&str>) -> Result<String, String> {
    let c = &last.view.cluster;
    if let Some(n) = node {
        c.index(n)
            .ok_or_else(|| format!("node {n} is not known to the scheduler"))?;
    }
    let ded = dedicated(last);
    let table = super::showres::table(last);
    // Maui's UIDiagnoseNodes layout (non-verbose: columns cut to width).
    let mut out = format!("diagnosing node table ({} slots)\n", c.nodes.len());
    out.push_str(&format!(
        "{:<20} {:>8} {:>7} {:>13} {:>13} {:>13} {:>5} {:>6} {:>6} {:>3.3} {:>6} {:>3.3} {:<30} {:<30} {:<22}\n\n",
        "Name",
        "State",
        " Procs ",
        "   Memory    ",
        "    Disk     ",
        "    Swap     ",
        "Speed",
        "Opsys",
        "Arch",
        "Partition",
        "Load",
        "Res",
        "Classes",
        "Network",
        "Features"
    ));
    let (mut active, mut idle, mut down) = (0, 0, 0);
    let mut tot_avail = crate::model::Resources::ZERO;
    let zero: GresSum = [0; crate::model::MAX_GRES];
    let (mut g_cfg, mut g_ded, mut g_avail) = (zero, zero, zero);
    for n in &c.nodes {
        let (held, _) = &ded[n.index as usize];
        let gres = node_gres(c, n, held);
        add_gres(&mut g_cfg, &gres[0]);
        add_gres(&mut g_ded, &gres[1]);
        add_gres(&mut g_avail, &gres[2]);
        let state = node_state(n, held);
        match state {
            "Idle" => idle += 1,
            "Running" | "Busy" => active += 1,
            _ => down += 1,
        }
        let avail = n.configured.saturating_sub(held);
        tot_avail = tot_avail.saturating_add(&avail);
        if node.is_some_and(|x| x != n.name) {
            continue;
        }
        let rsv = table
            .iter()
            .filter(|r| r.claims.iter().any(|cl| cl.node == n.index))
            .count();
        let features: String = if n.features.is_empty() {
            NONE.to_string()
        } else {
            n.features.iter().map(|f| format!("[{f}]")).collect()
        };
        out.push_str(&format!(
            "{:<20.20} {:>8.8} {:>3}:{:<3} {:>6}:{:<6} {:>6}:{:<6} {:>6}:{:<6} {:>5.2} {:>6.6} {:>6.6} {:>3.3} {:>6.2} {:03} {:<30.30} {:<30.30} {:<20.20}\n",
            n.name,
            state,
            avail.procs,
            n.configured.procs,
            avail.mem,
            n.configured.mem,
            avail.disk,
            n.configured.disk,
            avail.swap,
            n.configured.swap,
            n.speed,
            NONE,
            NONE,
            n.partition.as_deref().unwrap_or("DEFAULT"),
            n.load,
            rsv,
            NONE,
            NONE,
            features
        ));
        if !n.configured.gres.is_zero() {
            let [cf, de, av] = gres.map(|g| {
                let mut s = zero;
                add_gres(&mut s, &g);
                s
            });
            out.push_str(&gres_line(c, &cf, &de, &av));
        }
        if !n.usable && n.state.accepts_work() {
            out.push_str(&format!(
                "WARNING:  node {} is over its load limit (MAXLOAD) and takes no new work\n",
                n.name
            ));
        }
    }
    if node.is_none() {
        let t = &c.total;
        out.push_str(&format!(
            "{:<20.20} {:>8.8} {:>3}:{:<3} {:>6}:{:<6} {:>6}:{:<6} {:>6}:{:<6}\n",
            "-----",
            "---",
            tot_avail.procs,
            t.procs,
            tot_avail.mem,
            t.mem,
            tot_avail.disk,
            t.disk,
            tot_avail.swap,
            t.swap,
        ));
        if !c.gres_names.is_empty() {
            out.push_str(&gres_line(c, &g_cfg, &g_ded, &g_avail));
        }
        out.push_str(&format!(
            "\nTotal Nodes: {}  (Active: {active}  Idle: {idle}  Down: {down})\n",
            c.nodes.len()
        ));
    }
    Ok(out)
}

/// A node's generic resources: configured, dedicated (held by active jobs
/// and this plan's starts) and available (as a request can use them).
fn node_gres(
    c: &crate::model::Cluster,
    n: &crate::model::EffNode,
    held: &crate::model::Resources,
) -> [crate::model::GresCounts; 3] {
    let free = c.gres_usable(&n.configured.gres.map(&held.gres, u32::saturating_sub));
    [n.configured.gres, held.gres, free]
}

/// diagnose -n's GRES line under a node (or the totals).
fn gres_line(c: &crate::model::Cluster, cf: &GresSum, de: &GresSum, av: &GresSum) -> String {
    let t = |s: &GresSum| {
        let t = gres_compact(c, s);
        if t.is_empty() {
            "[NONE]".to_string()
        } else {
            t
        }
    };
    format!(
        "    GRES  Configured: {}  Dedicated: {}  Available: {}\n",
        t(cf),
        t(de),
        t(av)
    )
}

/// diagnose -n as JSON.
pub fn diagnose_n_json(
    last: &LastIteration,
    node: Option<&str>,
) -> Result<serde_json::Value, String> {
    let c = &last.view.cluster;
    let names: Vec<&str> = match node {
        Some(n) => {
            c.index(n)
                .ok_or_else(|| format!("node {n} is not known to the scheduler"))?;
            vec![n]
        }
        None => c.nodes.iter().map(|n| n.name.as_str()).collect(),
    };
    let nodes = names
        .into_iter()
        .map(|n| checknode_json(last, n))
        .collect::<Result<Vec<_>, _>>()?;
    let mut v = json!({ "now": last.plan.now, "nodes": nodes });
    if node.is_none() && !c.gres_names.is_empty() {
        // Each node carries its own under "gres"; these are the sums.
        let ded = dedicated(last);
        let zero: GresSum = [0; crate::model::MAX_GRES];
        let mut sums = [zero; 3];
        for n in &c.nodes {
            for (s, g) in sums
                .iter_mut()
                .zip(node_gres(c, n, &ded[n.index as usize].0))
            {
                add_gres(s, &g);
            }
        }
        v["gres_total"] = json!({
            "configured": gres_sum_json(c, &sums[0], true),
            "dedicated": gres_sum_json(c, &sums[1], true),
            "available": gres_sum_json(c, &sums[2], true),
        });
    }
    Ok(v)
}

/// diagnose -j \[JOBID\]: every job with its request, and a warning for each
/// job that cannot run, saying why.
pub fn diagnose_j(cfg: &Config, last: &LastIteration, id: Option<&str>) -> Result<String, String> {
    if let Some(i) = id {
        find(last, i)?;
    }
    let now = last.plan.now;
    // Maui's UIJobDiagnose columns (its "Diagnosing Jobs" title line is
    // overwritten by the header, so the header comes first).
    let mut out = format!(
        "{:<18} {:>8.8} {:>3.3} {:>4.4} {:>3} {:>11} {:>1.1} {:>4} {:>8} {:>8} {:>8} {:>11} {:>8} {:>6} {:>6} {:>6} {:>6} {:>6} {:>11} {}\n\n",
        "Name",
        "State",
        "Par",
        "Proc",
        "QOS",
        "WCLimit",
        "Reservation",
        "Min",
        "User",
        "Group",
        "Account",
        "QueuedTime",
        "Network",
        "Opsys",
        "Arch",
        "Mem",
        "Disk",
        "Procs",
        "Class",
        "Features"
    );
    let mut warnings = String::new();
    for j in last.jobs.iter().filter(|j| id.is_none_or(|i| j.id == i)) {
        let jp = last.plan.job(&j.id);
        let starting = last.starts().any(|s| s.job == j.id);
        let state = if j.state.is_active() {
            j.state.name()
        } else if starting && last.started(&j.id) {
            JobState::Running.name()
        } else if starting {
            "Starting"
        } else {
            waiting_state(jp.and_then(|p| p.reason.as_ref()))
        };
        let queued = match j.start_time {
            Some(s) if j.state.is_active() => s - j.submit_time,
            _ => now - j.submit_time,
        };
        let reserved = j.state.is_active()
            || starting
            || (last.plan.reservations.iter()).any(|r| r.job.as_deref() == Some(j.id.as_str()));
        let amount = |a: Option<crate::model::NodeAmount>| {
            a.map_or(">=0".to_string(), |a| format!("{}{}", a.cmp.symbol(), a.mb))
        };
        out.push_str(&format!(
            "{:<18} {:>8.8} {:>3.3} {:>4} {:>3.3} {:>11} {:>1} {:>4} {:>8.8} {:>8.8} {:>8.8} {:>11} {:>8} {:>6} {:>6} {:>6} {:>6} {:>6} {:>11} {}\n",
            j.id,
            state,
            job_partition(last, j).unwrap_or("ALL"),
            j.procs(),
            j.qos.as_deref().unwrap_or("-"),
            fmt_duration(crate::engine::build::walltime(cfg, j)),
            u8::from(reserved),
            j.procs(),
            j.user,
            j.group,
            j.account.as_deref().unwrap_or("-"),
            fmt_duration(queued.max(0)),
            NONE,
            NONE,
            NONE,
            amount(j.node_mem),
            amount(j.node_disk),
            ">=0",
            j.class.as_deref().map_or(NONE.to_string(), |c| format!("[{c}:1]")),
            if j.features.is_empty() {
                NONE.to_string()
            } else {
                j.features.iter().map(|f| format!("[{f}]")).collect()
            }
        ));
        if let Some(r) = jp.and_then(|p| p.reason.as_ref()).filter(|_| !starting) {
            if r.is_blocking() || matches!(r, Reason::Stopped { .. }) {
                warnings.push_str(&format!(
                    "WARNING:  job '{}' cannot run: {}\n",
                    j.id,
                    reason_text(r, &last.zone)
                ));
            }
        }
    }
    if !warnings.is_empty() {
        out.push('\n');
        out.push_str(&warnings);
    }
    Ok(out)
}

/// diagnose -j as JSON.
pub fn diagnose_j_json(
    cfg: &Config,
    last: &LastIteration,
    id: Option<&str>,
) -> Result<serde_json::Value, String> {
    if let Some(i) = id {
        find(last, i)?;
    }
    let jobs = last
        .jobs
        .iter()
        .filter(|j| id.is_none_or(|i| j.id == i))
        .map(|j| checkjob_json(cfg, last, &j.id))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(json!({ "now": last.plan.now, "jobs": jobs }))
}

/// diagnose -q: why each blocked job is not eligible (holds, policies,
/// dependencies, begin times, caps), in priority order.
pub fn diagnose_q(last: &LastIteration) -> String {
    let mut out = String::from("Diagnosing blocked jobs (policylevel SOFT  partition ALL)\n\n");
    let mut n = 0;
    for jp in last.plan.jobs.iter().filter(|j| !j.started) {
        let Some(r) = jp.reason.as_ref().filter(|r| r.is_blocking()) else {
            continue;
        };
        n += 1;
        let what = match r {
            Reason::Hold { kind } => format!(
                "has the following hold(s) in place:  {}",
                match kind {
                    crate::model::HoldKind::User => "User",
                    crate::model::HoldKind::System => "System",
                    crate::model::HoldKind::Batch => "Batch",
                }
            ),
            Reason::Policy(p) => format!(
                "violates {} policy: {}",
                if p.hard { "hard" } else { "soft" },
                p.detail
            ),
            Reason::BeginTime { at } => format!(
                "has not reached its start date ({} to startdate)",
                fmt_duration((*at - last.plan.now).max(0))
            ),
            other => reason_text(other, &last.zone),
        };
        out.push_str(&format!("job {:<20} {what}\n", jp.job));
    }
    if n == 0 {
        // Maui's buffer is replaced by this line.
        out = "no blocked jobs found\n".into();
    }
    out
}

/// diagnose -q as JSON.
pub fn diagnose_q_json(last: &LastIteration) -> serde_json::Value {
    let rows: Vec<_> = last
        .plan
        .jobs
        .iter()
        .filter(|j| !j.started && j.reason.as_ref().is_some_and(Reason::is_blocking))
        .map(|jp| {
            json!({
                "job": jp.job,
                "reason": jp.reason,
                "text": jp.reason.as_ref().map(|r| reason_text(r, &last.zone)),
            })
        })
        .collect();
    json!({ "now": last.plan.now, "blocked": rows })
}

/// An ACL in Maui's `USER==john+:==mary+ GROUP==staff+` form.
pub fn acl_text(acl: &crate::config::Acl) -> String {
    use crate::config::Affinity;
    let mut parts = Vec::new();
    for (label, list) in [
        ("USER", &acl.users),
        ("GROUP", &acl.groups),
        ("ACCT", &acl.accounts),
        ("CLASS", &acl.classes),
        ("QOS", &acl.qos),
        ("JATTR", &acl.job_attrs),
    ] {
        if list.entries.is_empty() {
            continue;
        }
        let items: Vec<String> = list
            .entries
            .iter()
            .map(|e| {
                format!(
                    "{}{}{}",
                    if e.not { "!=" } else { "==" },
                    e.name,
                    match e.affinity {
                        Affinity::Positive => "+",
                        Affinity::Negative => "-",
                        Affinity::Neutral => "=",
                    }
                )
            })
            .collect();
        parts.push(format!(
            "{label}{}{}",
            items.join(":"),
            if list.required { "*" } else { "" }
        ));
    }
    if let Some((t, req)) = acl.time_limit {
        parts.push(format!(
            "DURATION<={}{}",
            fmt_duration(t),
            if req { "*" } else { "" }
        ));
    }
    if parts.is_empty() {
        "[NONE]".into()
    } else {
        parts.join(" ")
    }
}

/// diagnose -r \[RESID\]: every reservation with its timeframe, resources,
/// flags and ACL (Maui's mdiag -r layout).
pub fn diagnose_r(last: &LastIteration, id: Option<&str>) -> Result<String, String> {
    let table = super::showres::table(last);
    if let Some(i) = id {
        if !table.iter().any(|r| r.id == i) {
            return Err(format!("no reservation \"{i}\""));
        }
    }
    let now = last.plan.now;
    let c = &last.view.cluster;
    let mut out = String::from("Diagnosing Reservations\n");
    // Maui's MResShowState layout.
    out.push_str(&format!(
        "{:<20} {:>10} {:>3.3} {:>11} {:>11}  {:>11} {:>4} {:>4} {:>4}\n",
        "ResID", "Type", "Par", "StartTime", "EndTime", "Duration", "Node", "Task", "Proc"
    ));
    out.push_str(&format!(
        "{:<20} {:>10} {:>3.3} {:>11} {:>11}  {:>11} {:>4} {:>4} {:>4}\n",
        "-----", "----", "---", "---------", "-------", "--------", "----", "----", "----"
    ));
    for r in table.iter().filter(|r| id.is_none_or(|i| r.id == i)) {
        out.push_str(&format!(
            "{:<20} {:>10} {:>3.3} {:>11} {:>11}  {:>11} {:>4} {:>4} {:>4}\n",
            r.id,
            r.type_name(),
            r.request.partition.as_deref().unwrap_or("ALL"),
            dur(r.start - now),
            dur(r.end.saturating_sub(now)),
            dur(r.duration()),
            r.claims.len(),
            r.tasks(),
            r.procs()
        ));
        if !r.flags.is_empty() {
            let f: Vec<&str> = r.flags.iter().map(|f| f.keyword()).collect();
            out.push_str(&format!("    Flags: {}\n", f.join(" ")));
        }
        out.push_str(&format!("    ACL: {}\n", acl_text(&r.acl)));
        if let Some((k, v)) = &r.owner {
            out.push_str(&format!("    Owner:  {}:{v}\n", k.name()));
        }
        let hosts: Vec<String> = r
            .claims
            .iter()
            .map(|cl| {
                format!(
                    "{}:{}",
                    c.nodes
                        .get(cl.node as usize)
                        .map_or("?", |n| n.name.as_str()),
                    cl.tasks
                )
            })
            .collect();
        out.push_str(&format!(
            "    Access: {}  Nodes: {}\n",
            r.access.keyword(),
            if hosts.is_empty() {
                "[NONE]".to_string()
            } else {
                hosts.join(",")
            }
        ));
        out.push('\n');
    }
    Ok(out)
}
