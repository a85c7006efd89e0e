//! Simulation results: `jobs.csv`, `summary.json` and the printed summary.
//!
//! # Metrics
//!
//! - **wait**: start − submit.
//! - **bounded slowdown**: max(1, (wait + run) / max(run, 10 s)), run being
//!   the time the job held its nodes (the usual 10-second floor keeps very
//!   short jobs from dominating the mean).
//! - **utilization**: processor-seconds the jobs held (requested processors
//!   × run) over total processors × makespan; the makespan runs from the
//!   first submission to the last completion. A run a preemption ended
//!   (requeue, checkpoint) counts as held, time suspended does not; the
//!   work requeues threw away is reported beside it (`lost_proc_hours`).
//! - **p95**: nearest rank (the smallest value at least 95 % of the jobs do
//!   not exceed); the median of an even count is the mean of the middle two.
//! - **fairshare** per user: the decayed usage the engine's fairshare state
//!   holds at the end of the run (the last FSDEPTH windows, as `diagnose -f`
//!   shows it) against the user's FSTARGET, and the user's share of every
//!   processor-second delivered over the whole run. The same per account
//!   and per QOS (`accounts`, `qos` in `summary.json`), when the workload's
//!   jobs have them (a Maui trace, or SWF converted by `mauictl convert`).
//!
//! `jobs.csv` gains `gres` and `hosts` columns when the cluster or the
//! workload has generic resources ([`jobs_csv_with_nodes`]).
//!
//! `jobs.csv` depends only on the inputs and is byte-identical from one run
//! to the next; `summary.json` also records how long the iterations took,
//! which varies.

use super::run::{Clock, JobRecord, SimResult};
use super::workload::SimJob;
use crate::config::{Config, FsTarget};
use crate::model::time::{civil_from_days, day_and_offset, fmt_duration};
use crate::model::{CredKind, Node, Secs, Time};
use crate::priority::cred_attr;
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// Floor of the bounded slowdown, seconds.
pub const BSLD_FLOOR: Secs = 10;

/// Bounded slowdown of a job that waited `wait` and ran `run` seconds.
pub fn bounded_slowdown(wait: Secs, run: Secs) -> f64 {
    let w = wait.max(0) as f64;
    let r = run.max(0) as f64;
    ((w + r) / r.max(BSLD_FLOOR as f64)).max(1.0)
}

/// `YYYY-MM-DD HH:MM:SS` (UTC).
pub fn iso_time(t: Time) -> String {
    let (days, off) = day_and_offset(t);
    let (y, m, d) = civil_from_days(days);
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02}:{:02}",
        off / 3600,
        (off / 60) % 60,
        off % 60
    )
}

/// Wait statistics, seconds.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct WaitStats {
    /// Mean.
    pub mean: f64,
    /// Median.
    pub median: f64,
    /// 95th percentile (nearest rank).
    pub p95: f64,
    /// Longest.
    pub max: f64,
}

/// One user's fairshare line.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct UserShare {
    /// User name.
    pub user: String,
    /// Jobs completed.
    pub jobs: u64,
    /// Share of all delivered processor-seconds over the run, percent.
    pub share: f64,
    /// Decayed fairshare usage at the end of the run, percent (`None`:
    /// nothing delivered in the windows considered).
    pub fs_usage: Option<f64>,
    /// FSTARGET in force (percent), if any.
    pub fs_target: Option<f64>,
    /// `target`, `floor` or `cap`.
    pub fs_target_mode: Option<String>,
}

/// One account's or QOS's fairshare line.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CredShare {
    /// Account or QOS name.
    pub name: String,
    /// Jobs completed.
    pub jobs: u64,
    /// Share of all delivered processor-seconds over the run, percent.
    pub share: f64,
    /// Decayed fairshare usage at the end of the run, percent (`None`:
    /// nothing delivered in the windows considered).
    pub fs_usage: Option<f64>,
    /// FSTARGET in force (percent), if any.
    pub fs_target: Option<f64>,
    /// `target`, `floor` or `cap`.
    pub fs_target_mode: Option<String>,
}

/// The summary of a run (`summary.json`).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Summary {
    /// Workload label.
    pub workload: String,
    /// Cluster label.
    pub cluster: String,
    /// Configuration label.
    pub config: String,
    /// `events` or `grid`.
    pub clock: String,
    /// RMPOLLINTERVAL, seconds.
    pub poll_interval: Secs,
    /// Nodes.
    pub nodes: usize,
    /// Processors.
    pub procs: u64,
    /// Jobs in the workload.
    pub jobs: usize,
    /// Jobs that ran to completion.
    pub completed: usize,
    /// Jobs taken out as impossible on this cluster (NoFit).
    pub rejected: usize,
    /// Those jobs, with the reason (also in `rejected.csv`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub rejected_jobs: Vec<super::stats::RejectedJob>,
    /// Jobs still waiting at the end.
    pub unfinished: usize,
    /// Jobs an operator cancelled (canceljob in the operators file); those
    /// that had started count as completed as well.
    #[serde(skip_serializing_if = "crate::util::is_zero")]
    pub cancelled: usize,
    /// Preemptions made (a job may be preempted more than once).
    #[serde(skip_serializing_if = "crate::util::is_zero")]
    pub preemptions: usize,
    /// Jobs preempted at least once.
    #[serde(skip_serializing_if = "crate::util::is_zero")]
    pub preempted_jobs: usize,
    /// Processor-hours of work requeues threw away (counted in the
    /// utilization as held, and lost).
    #[serde(skip_serializing_if = "crate::util::is_zero")]
    pub lost_proc_hours: f64,
    /// First submission (epoch).
    pub start: Time,
    /// Last completion (epoch).
    pub end: Time,
    /// end − start, seconds.
    pub makespan: Secs,
    /// Processor utilization over the makespan, 0–1.
    pub utilization: f64,
    /// Wait times of completed jobs.
    pub wait: WaitStats,
    /// Mean bounded slowdown.
    pub mean_bounded_slowdown: f64,
    /// Share of completed jobs started by backfill, 0–1.
    pub backfilled_share: f64,
    /// Iterations run.
    pub iterations: u64,
    /// Poll iterations skipped (nothing queued).
    pub skipped_polls: u64,
    /// Of the iterations, polls answered by the priority order alone.
    pub quiet_polls: u64,
    /// Mean wall time of one iteration, milliseconds (varies between runs).
    pub mean_iteration_ms: f64,
    /// Longest iteration, milliseconds (varies between runs).
    pub max_iteration_ms: f64,
    /// Per user, by name.
    pub users: Vec<UserShare>,
    /// Per account, by name; absent when no job has an account.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub accounts: Vec<CredShare>,
    /// Per QOS, by name; absent when no job has a QOS.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub qos: Vec<CredShare>,
    /// Operators' commands applied during the run (`--operators`), in the
    /// order applied; absent when there were none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub operators: Vec<OperatorReply>,
}

/// One operator's command of a run and what the scheduler answered.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct OperatorReply {
    /// When, seconds after the first submission.
    pub after: Secs,
    /// The line as written.
    pub command: String,
    /// Carried out (false: refused, nothing changed).
    pub ok: bool,
    /// The scheduler's answer, or why it refused.
    pub reply: String,
}

/// Adds the operators' commands of a run (`lines` and `events` in the
/// order applied, as [`super::operators::parse_operators`] gives them) and
/// the replies to them to the summary.
pub fn add_operators(
    s: &mut Summary,
    lines: &[String],
    events: &[super::run::OperatorEvent],
    res: &SimResult,
) {
    s.operators = lines
        .iter()
        .zip(events)
        .zip(&res.operator_replies)
        .map(|((line, e), r)| {
            let (ok, reply) = match r {
                Ok(d) => (true, d.text.trim_end().to_string()),
                Err(f) => (false, f.message.clone()),
            };
            OperatorReply {
                after: e.at - s.start,
                command: line.clone(),
                ok,
                reply,
            }
        })
        .collect();
}

/// Natural order of names such as `u2` < `u10`.
pub(crate) fn natural(a: &str, b: &str) -> std::cmp::Ordering {
    let split = |s: &str| {
        let i = s.trim_end_matches(|c: char| c.is_ascii_digit()).len();
        let (p, n) = s.split_at(i);
        (p.to_string(), n.parse::<u64>().ok())
    };
    split(a).cmp(&split(b)).then_with(|| a.cmp(b))
}

pub(crate) fn percentile_nearest(sorted: &[i64], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let rank = ((p * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
    sorted[rank - 1] as f64
}

fn median(sorted: &[i64]) -> f64 {
    match sorted.len() {
        0 => 0.0,
        n if n % 2 == 1 => sorted[n / 2] as f64,
        n => (sorted[n / 2 - 1] as f64 + sorted[n / 2] as f64) / 2.0,
    }
}

/// Labels of the run's inputs, for the summary.
#[derive(Clone, Debug, Default)]
pub struct Labels {
    /// Workload.
    pub workload: String,
    /// Cluster.
    pub cluster: String,
    /// Configuration.
    pub config: String,
}

/// Computes the summary.
pub fn summarize(
    cfg: &Config,
    nodes: &[Node],
    jobs: &[SimJob],
    res: &SimResult,
    clock: Clock,
    labels: &Labels,
) -> Summary {
    let procs: u64 = nodes.iter().map(|n| n.configured.procs as u64).sum();
    let start = jobs.first().map_or(0, |j| j.job.submit_time);
    let done: Vec<(&SimJob, &JobRecord)> = jobs
        .iter()
        .zip(&res.records)
        .filter_map(|(j, r)| r.as_ref().map(|r| (j, r)))
        .collect();
    let end = done.iter().map(|(_, r)| r.end).max().unwrap_or(start);
    let makespan = (end - start).max(0);
    let mut waits: Vec<i64> = done
        .iter()
        .map(|(j, r)| r.start - j.job.submit_time)
        .collect();
    waits.sort_unstable();
    let n = done.len().max(1) as f64;
    let held_before: u64 = res.preemptions.iter().map(|p| p.held).sum();
    let busy: f64 = done
        .iter()
        .map(|(j, r)| j.job.procs() as f64 * (r.end - r.start - r.suspended).max(0) as f64)
        .sum::<f64>()
        + held_before as f64;
    let mut preempted_jobs: Vec<usize> = res.preemptions.iter().map(|p| p.job).collect();
    preempted_jobs.sort_unstable();
    preempted_jobs.dedup();
    let utilization = if makespan > 0 && procs > 0 {
        busy / (procs as f64 * makespan as f64)
    } else {
        0.0
    };
    let bsld: f64 = done
        .iter()
        .map(|(j, r)| bounded_slowdown(r.start - j.job.submit_time, r.end - r.start))
        .sum::<f64>()
        / n;
    let backfilled = done.iter().filter(|(_, r)| r.backfill).count() as f64 / n;
    // Per user: jobs and processor-seconds.
    let mut per_user: BTreeMap<&str, (u64, f64)> = BTreeMap::new();
    for (j, r) in &done {
        let e = per_user.entry(j.job.user.as_str()).or_default();
        e.0 += 1;
        e.1 += j.job.procs() as f64 * (r.end - r.start) as f64;
    }
    let fs = &res.engine.state.fairshare;
    let share_of = |kind: CredKind, name: &str, count: u64, ps: f64| {
        let target: Option<FsTarget> = cred_attr(cfg, kind, name, |c| c.fs_target);
        CredShare {
            name: name.to_string(),
            jobs: count,
            share: if busy > 0.0 { 100.0 * ps / busy } else { 0.0 },
            fs_usage: fs.usage(cfg, kind, name),
            fs_target: target.map(|t| t.percent),
            fs_target_mode: target.map(|t| {
                match t.mode {
                    crate::config::FsTargetMode::Target => "target",
                    crate::config::FsTargetMode::Floor => "floor",
                    crate::config::FsTargetMode::Cap => "cap",
                }
                .to_string()
            }),
        }
    };
    let mut users: Vec<UserShare> = per_user
        .into_iter()
        .map(|(u, (count, ps))| {
            let c = share_of(CredKind::User, u, count, ps);
            UserShare {
                user: c.name,
                jobs: c.jobs,
                share: c.share,
                fs_usage: c.fs_usage,
                fs_target: c.fs_target,
                fs_target_mode: c.fs_target_mode,
            }
        })
        .collect();
    users.sort_by(|a, b| natural(&a.user, &b.user));
    // Per account and per QOS, for the jobs that have one.
    let per_cred = |kind: CredKind, name: fn(&SimJob) -> Option<&str>| {
        let mut per: BTreeMap<&str, (u64, f64)> = BTreeMap::new();
        for (j, r) in &done {
            if let Some(n) = name(j) {
                let e = per.entry(n).or_default();
                e.0 += 1;
                e.1 += j.job.procs() as f64 * (r.end - r.start) as f64;
            }
        }
        let mut v: Vec<CredShare> = per
            .into_iter()
            .map(|(n, (count, ps))| share_of(kind, n, count, ps))
            .collect();
        v.sort_by(|a, b| natural(&a.name, &b.name));
        v
    };
    let accounts = per_cred(CredKind::Account, |j| j.job.account.as_deref());
    let qos = per_cred(CredKind::Qos, |j| j.job.qos.as_deref());
    let iters = res.iterations.max(1) as f64;
    Summary {
        workload: labels.workload.clone(),
        cluster: labels.cluster.clone(),
        config: labels.config.clone(),
        clock: match clock {
            Clock::Events => "events",
            Clock::Grid => "grid",
        }
        .into(),
        poll_interval: res.poll,
        nodes: nodes.len(),
        procs,
        jobs: jobs.len(),
        completed: done.len(),
        rejected: res.rejected.len(),
        rejected_jobs: super::stats::rejected(jobs, res),
        unfinished: res.unfinished.len(),
        cancelled: res.cancelled.len(),
        preemptions: res.preemptions.len(),
        preempted_jobs: preempted_jobs.len(),
        lost_proc_hours: res.preemptions.iter().map(|p| p.lost as f64).sum::<f64>() / 3600.0,
        start,
        end,
        makespan,
        utilization,
        wait: WaitStats {
            mean: waits.iter().map(|&w| w as f64).sum::<f64>() / n,
            median: median(&waits),
            p95: percentile_nearest(&waits, 0.95),
            max: waits.last().copied().unwrap_or(0) as f64,
        },
        mean_bounded_slowdown: bsld,
        backfilled_share: backfilled,
        iterations: res.iterations,
        skipped_polls: res.skipped_polls,
        quiet_polls: res.quiet_polls,
        mean_iteration_ms: res.iterate_time.as_secs_f64() * 1000.0 / iters,
        max_iteration_ms: res.max_iterate_time.as_secs_f64() * 1000.0,
        users,
        accounts,
        qos,
        operators: Vec::new(),
    }
}

/// `jobs.csv`: one line per job that ran, in workload order.
pub fn jobs_csv(jobs: &[SimJob], res: &SimResult) -> String {
    let mut out =
        String::from("id,user,submit,start,end,procs,nodes,wait,bounded_slowdown,backfilled\n");
    for (j, r) in jobs.iter().zip(&res.records) {
        let Some(r) = r else { continue };
        let wait = r.start - j.job.submit_time;
        let _ = writeln!(
            out,
            "{},{},{},{},{},{},{},{},{:.4},{}",
            csv_field(&j.job.id),
            csv_field(&j.job.user),
            j.job.submit_time,
            r.start,
            r.end,
            j.job.procs(),
            r.nodes.len(),
            wait,
            bounded_slowdown(wait, r.end - r.start),
            if r.backfill { "yes" } else { "no" }
        );
    }
    out
}

/// `jobs.csv` as [`write_dir`] writes it: [`jobs_csv`], and when the
/// cluster or a job has generic resources, or `hosts` asks for them, two
/// more columns: `gres`, the job's request (`gpu:2/task`, `gpu:4/node`,
/// `gpu:8/job`, space-separated when several) and `hosts`, where it ran
/// (`g01:2+g02:2`, node:tasks in node order). Other runs keep the ten
/// columns.
pub fn jobs_csv_with_nodes(
    jobs: &[SimJob],
    nodes: &[Node],
    res: &SimResult,
    hosts: bool,
) -> String {
    let any = hosts
        || nodes.iter().any(|n| !n.gres.is_empty())
        || jobs.iter().any(|j| j.job.wants_gres());
    if !any {
        return jobs_csv(jobs, res);
    }
    let base = jobs_csv(jobs, res);
    let mut lines = base.lines();
    let mut out = String::with_capacity(base.len() * 2);
    let _ = writeln!(out, "{},gres,hosts", lines.next().unwrap_or_default());
    let ran = jobs
        .iter()
        .zip(&res.records)
        .filter_map(|(j, r)| r.as_ref().map(|r| (j, r)));
    for ((j, r), line) in ran.zip(lines) {
        let mut gres = Vec::new();
        for (l, per) in [
            (&j.job.gres_per_task, "task"),
            (&j.job.gres_per_node, "node"),
            (&j.job.gres_per_job, "job"),
        ] {
            if !l.is_empty() {
                gres.push(format!("{l}/{per}"));
            }
        }
        let hosts: Vec<String> = r
            .nodes
            .iter()
            .map(|&(i, t)| {
                let name = nodes.get(i as usize).map_or("?", |n| n.name.as_str());
                format!("{name}:{t}")
            })
            .collect();
        let _ = writeln!(
            out,
            "{line},{},{}",
            csv_field(&gres.join(" ")),
            csv_field(&hosts.join("+"))
        );
    }
    out
}

pub(crate) fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// The summary as `summary.json`.
pub fn summary_json(s: &Summary) -> String {
    let mut t = serde_json::to_string_pretty(s).unwrap_or_default();
    t.push('\n');
    t
}

/// Rejected jobs the printed summary names (the rest are in the files).
const REJECTED_SHOWN: usize = 5;

/// An FSTARGET as the summary prints it: `10.0`, `10.0+` (floor), `10.0-`
/// (cap), `-` (none).
fn target_text(target: Option<f64>, mode: Option<&str>) -> String {
    match (target, mode) {
        (Some(t), Some("floor")) => format!("{t:.1}+"),
        (Some(t), Some("cap")) => format!("{t:.1}-"),
        (Some(t), _) => format!("{t:.1}"),
        (None, _) => "-".into(),
    }
}

/// The printed summary (the users, then accounts and QOS, with the largest
/// share first, at most `top` of each).
pub fn render(s: &Summary, top: usize) -> String {
    let mut o = String::new();
    let _ = writeln!(o, "workload     {}", s.workload);
    let _ = writeln!(
        o,
        "cluster      {} ({} nodes, {} processors)",
        s.cluster, s.nodes, s.procs
    );
    let _ = writeln!(o, "config       {}", s.config);
    let _ = writeln!(
        o,
        "clock        {} (RMPOLLINTERVAL {})",
        s.clock,
        fmt_duration(s.poll_interval)
    );
    let _ = writeln!(o);
    let _ = writeln!(
        o,
        "jobs         {} completed of {}{}{}",
        s.completed,
        s.jobs,
        if s.rejected > 0 {
            format!(", {} rejected (can never run here)", s.rejected)
        } else {
            String::new()
        },
        if s.unfinished > 0 {
            format!(", {} never started", s.unfinished)
        } else {
            String::new()
        },
    );
    for r in s.rejected_jobs.iter().take(REJECTED_SHOWN) {
        let _ = writeln!(o, "             rejected job {}: {}", r.id, r.reason);
    }
    if s.rejected_jobs.len() > REJECTED_SHOWN {
        let _ = writeln!(
            o,
            "             ... {} more rejected in summary.json and rejected.csv (--out)",
            s.rejected_jobs.len() - REJECTED_SHOWN
        );
    }
    if s.cancelled > 0 {
        let _ = writeln!(o, "             {} cancelled by an operator", s.cancelled);
    }
    if s.preemptions > 0 {
        let _ = writeln!(
            o,
            "preempted    {} job(s) in {} preemption(s), {:.1} processor-hours of work lost",
            s.preempted_jobs, s.preemptions, s.lost_proc_hours
        );
    }
    let _ = writeln!(
        o,
        "makespan     {} ({} to {})",
        fmt_duration(s.makespan),
        iso_time(s.start),
        iso_time(s.end)
    );
    let _ = writeln!(o, "utilization  {:.1} %", 100.0 * s.utilization);
    let _ = writeln!(
        o,
        "wait         mean {}   median {}   p95 {}   max {}",
        fmt_duration(s.wait.mean.round() as Secs),
        fmt_duration(s.wait.median.round() as Secs),
        fmt_duration(s.wait.p95 as Secs),
        fmt_duration(s.wait.max as Secs)
    );
    let _ = writeln!(
        o,
        "slowdown     mean bounded slowdown {:.2} (10 s floor)",
        s.mean_bounded_slowdown
    );
    let _ = writeln!(
        o,
        "backfill     {:.1} % of jobs started by backfill",
        100.0 * s.backfilled_share
    );
    let _ = writeln!(
        o,
        "iterations   {} (mean {:.3} ms, max {:.1} ms; {} polls answered by the priority order, {} no-op polls skipped)",
        s.iterations, s.mean_iteration_ms, s.max_iteration_ms, s.quiet_polls, s.skipped_polls
    );
    if !s.users.is_empty() {
        let mut by_share: Vec<&UserShare> = s.users.iter().collect();
        by_share.sort_by(|a, b| b.share.total_cmp(&a.share).then(natural(&a.user, &b.user)));
        let _ = writeln!(o);
        let _ = writeln!(
            o,
            "fairshare    {:<10} {:>6} {:>9} {:>10} {:>8}",
            "user", "jobs", "share %", "FS usage %", "target"
        );
        for u in by_share.iter().take(top) {
            let target = target_text(u.fs_target, u.fs_target_mode.as_deref());
            let _ = writeln!(
                o,
                "             {:<10} {:>6} {:>9.2} {:>10} {:>8}",
                u.user,
                u.jobs,
                u.share,
                u.fs_usage.map_or("-".into(), |x| format!("{x:.2}")),
                target
            );
        }
        if by_share.len() > top {
            let _ = writeln!(
                o,
                "             ... {} more users in summary.json",
                by_share.len() - top
            );
        }
    }
    for (kind, creds) in [("account", &s.accounts), ("QOS", &s.qos)] {
        if creds.is_empty() {
            continue;
        }
        let mut by_share: Vec<&CredShare> = creds.iter().collect();
        by_share.sort_by(|a, b| b.share.total_cmp(&a.share).then(natural(&a.name, &b.name)));
        let _ = writeln!(o);
        let _ = writeln!(
            o,
            "fairshare    {:<10} {:>6} {:>9} {:>10} {:>8}",
            kind, "jobs", "share %", "FS usage %", "target"
        );
        for c in by_share.iter().take(top) {
            let target = target_text(c.fs_target, c.fs_target_mode.as_deref());
            let _ = writeln!(
                o,
                "             {:<10} {:>6} {:>9.2} {:>10} {:>8}",
                c.name,
                c.jobs,
                c.share,
                c.fs_usage.map_or("-".into(), |x| format!("{x:.2}")),
                target
            );
        }
        if by_share.len() > top {
            let _ = writeln!(
                o,
                "             ... {} more in summary.json",
                by_share.len() - top
            );
        }
    }
    if !s.operators.is_empty() {
        let refused = s.operators.iter().filter(|r| !r.ok).count();
        let _ = writeln!(o);
        let _ = writeln!(
            o,
            "operators    {} command(s), {refused} refused",
            s.operators.len()
        );
        for r in &s.operators {
            let first = r.reply.lines().next().unwrap_or("");
            let verdict = if r.ok { "" } else { "refused: " };
            let _ = writeln!(o, "             {}  ->  {verdict}{first}", r.command);
        }
    }
    o
}

/// Where the node chart looks, as chosen on the command line.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ChartChoice {
    /// Window start, seconds after the first submission (default: centred
    /// on the middle of the makespan).
    pub start: Option<Secs>,
    /// Window length (default: one day, or the makespan if shorter).
    pub span: Option<Secs>,
    /// Nodes shown (default 128, the first ones in cluster order).
    pub nodes: Option<usize>,
}

impl ChartChoice {
    /// The window for a run.
    pub fn window(&self, s: &Summary) -> super::svg::ChartWindow {
        let span = self.span.unwrap_or(86_400).min(s.makespan.max(1)).max(1);
        let from = match self.start {
            Some(off) => s.start.saturating_add(off),
            None => s.start + (s.makespan - span).max(0) / 2,
        };
        super::svg::ChartWindow {
            from,
            to: from.saturating_add(span),
            max_nodes: self.nodes.unwrap_or(128),
        }
    }
}

/// Writes `jobs.csv` (with the `hosts` column when `hosts` is set, see
/// [`jobs_csv_with_nodes`]), `summary.json`, `utilization.svg`,
/// `nodes.svg` and the files of `stats` ([`super::stats::RunStats::files`])
/// into `dir` (created if missing), each atomically. Returns the paths.
#[allow(clippy::too_many_arguments)]
pub fn write_dir(
    dir: &std::path::Path,
    s: &Summary,
    stats: &super::stats::RunStats,
    jobs: &[SimJob],
    nodes: &[Node],
    res: &SimResult,
    chart: &ChartChoice,
    hosts: bool,
) -> std::io::Result<Vec<std::path::PathBuf>> {
    std::fs::create_dir_all(dir)?;
    let win = chart.window(s);
    let files = [
        ("jobs.csv", jobs_csv_with_nodes(jobs, nodes, res, hosts)),
        ("summary.json", summary_json(s)),
        (
            "utilization.svg",
            super::svg::utilization(
                jobs,
                &res.records,
                s.procs,
                s.start,
                s.end.max(s.start + 1),
                s.utilization,
                &format!("Processor utilization: {}", s.workload),
            ),
        ),
        (
            "nodes.svg",
            super::svg::node_chart(
                jobs,
                &res.records,
                nodes,
                &win,
                &format!(
                    "Nodes x time, {} to {} UTC",
                    iso_time(win.from),
                    iso_time(win.to)
                ),
            ),
        ),
    ];
    let mut out = Vec::new();
    for (name, text) in files.into_iter().chain(stats.files()) {
        let p = dir.join(name);
        crate::util::atomic_write(&p, text.as_bytes())?;
        out.push(p);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounded_slowdown_has_a_ten_second_floor() {
        assert_eq!(bounded_slowdown(0, 100), 1.0);
        assert_eq!(bounded_slowdown(100, 100), 2.0);
        // A 1 s job that waited 9 s: (9 + 1) / 10 = 1, not 10.
        assert_eq!(bounded_slowdown(9, 1), 1.0);
        assert_eq!(bounded_slowdown(19, 1), 2.0);
        assert_eq!(bounded_slowdown(0, 0), 1.0);
    }

    #[test]
    fn percentiles_and_dates() {
        let v: Vec<i64> = (1..=20).collect();
        assert_eq!(percentile_nearest(&v, 0.95), 19.0);
        assert_eq!(median(&v), 10.5);
        assert_eq!(median(&[3]), 3.0);
        assert_eq!(iso_time(966_621_600), "2000-08-18 18:00:00");
        assert_eq!(natural("u2", "u10"), std::cmp::Ordering::Less);
        assert_eq!(natural("nobody", "u1"), std::cmp::Ordering::Less);
    }
}
