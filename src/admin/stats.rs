//! Scheduler statistics since the handle was created, as Maui's
//! `showstats` (`-s`) shows them: jobs seen, queue times, expansion
//! factors, bypasses, dedicated processor-hours, utilisation and backlog.
//!
//! Kept by the host side of the library (not checkpointed): one
//! [`SchedStats::record`] per iteration.

use crate::config::Config;
use crate::engine::{build::walltime, LastIteration, Reason};
use crate::model::time::{fmt_duration, Zone};
use crate::model::{CredKind, Job, JobState, Secs, Time};
use serde::Serialize;
use serde_json::{json, Value};
use std::collections::BTreeMap;

/// A job that was running at the last iteration.
#[derive(Clone, Debug, PartialEq)]
struct Running {
    start: Time,
    submit: Time,
    wall: Secs,
    procs: u64,
    /// Its user, group, account, QOS and class, for the per-credential
    /// statistics.
    creds: Vec<(CredKind, String)>,
}

impl Running {
    fn of(cfg: &Config, j: &Job, start: Time) -> Running {
        Running {
            start,
            submit: j.submit_time,
            wall: walltime(cfg, j),
            procs: j.procs(),
            creds: CredKind::ALL
                .iter()
                .filter_map(|k| j.cred(*k).map(|n| (*k, n.to_string())))
                .collect(),
        }
    }
}

/// Completed jobs of one credential since the statistics began (Maui's
/// `showstats -u/-g/-a/-c/-q` columns).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct CredStats {
    /// Jobs completed.
    pub jobs: u64,
    /// Processor-hours they asked for (processors × walltime limit).
    pub ph_request: f64,
    /// Processor-hours they held (processors × run time).
    pub ph_dedicated: f64,
    xf_sum: f64,
    /// Largest expansion factor.
    pub xf_max: f64,
    qtime_sum: f64,
    wc_sum: f64,
}

/// Running totals.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct SchedStats {
    /// Time of the first iteration.
    pub started_at: Option<Time>,
    /// Iterations so far.
    pub iterations: u64,
    /// Time of the last iteration.
    pub now: Time,
    /// Eligible idle jobs at the last iteration.
    pub eligible: usize,
    /// Idle jobs at the last iteration.
    pub idle: usize,
    /// Active jobs (running, suspended, starting) at the last iteration.
    pub active: usize,
    /// Jobs that finished (left the RM's list, or were reported done).
    pub completed: u64,
    /// Of those, the ones not removed (cancelled).
    pub successful: u64,
    /// Jobs started.
    pub started: u64,
    qtime_sum: i64,
    /// Longest queue time of a started job.
    pub qtime_max: Secs,
    bypass_sum: u64,
    /// Most bypasses of a started job.
    pub bypass_max: u32,
    xf_sum: f64,
    /// Largest expansion factor of a finished job.
    pub xf_max: f64,
    wc_sum: f64,
    /// Processor-seconds dedicated to jobs.
    pub dedicated_ps: f64,
    /// Processor-seconds that existed.
    pub available_ps: f64,
    /// Processors busy at the last iteration.
    pub busy_procs: u64,
    /// Processors in the cluster.
    pub total_procs: u64,
    /// Nodes with work at the last iteration.
    pub busy_nodes: usize,
    /// Nodes in the cluster.
    pub total_nodes: usize,
    /// Lowest utilisation seen (percent) and on which iteration.
    pub min_util: Option<(f64, u64)>,
    /// Estimated backlog now: eligible work over the cluster's processors.
    pub backlog: Secs,
    backlog_sum: f64,
    /// Utilised over dedicated processors of running jobs that report it.
    pub job_efficiency: Option<f64>,
    /// Running jobs preempted (Maui's TotalPreemptJobs).
    #[serde(skip_serializing_if = "crate::util::is_zero")]
    pub preempted: u64,
    /// Processor-hours the preempted jobs had run when preempted (Maui's
    /// TotalPHPreempted).
    #[serde(skip_serializing_if = "crate::util::is_zero")]
    pub preempted_ph: f64,
    #[serde(skip)]
    running: BTreeMap<String, Running>,
    /// Completed jobs per credential.
    #[serde(skip)]
    creds: BTreeMap<(CredKind, String), CredStats>,
    /// Each node's up and busy time (`showstats -n`).
    #[serde(skip)]
    pub nodes: super::nodestats::NodeStats,
}

impl SchedStats {
    /// Takes one iteration into account: the RM's jobs (to see which
    /// finished) and what the iteration decided.
    pub fn record(&mut self, cfg: &Config, rm_jobs: &[Job], last: &LastIteration) {
        let now = last.plan.now;
        self.started_at.get_or_insert(now);
        let dt = (now - self.now).max(0);
        if self.iterations > 0 {
            self.dedicated_ps += self.busy_procs as f64 * dt as f64;
            self.available_ps += self.total_procs as f64 * dt as f64;
        }
        self.nodes
            .record(last, if self.iterations > 0 { dt } else { 0 });
        self.iterations += 1;
        self.now = now;

        let state: BTreeMap<&str, JobState> =
            rm_jobs.iter().map(|j| (j.id.as_str(), j.state)).collect();
        let mut running = BTreeMap::new();
        for j in last.jobs.iter().filter(|j| j.state.is_active()) {
            let r = self
                .running
                .remove(&j.id)
                .unwrap_or_else(|| Running::of(cfg, j, j.start_time.unwrap_or(now)));
            running.insert(j.id.clone(), r);
        }
        for (id, r) in std::mem::take(&mut self.running) {
            if state.get(id.as_str()) == Some(&JobState::Idle) {
                // Started but back in the queue (the RM could not start
                // it, or requeued it): not finished.
                continue;
            }
            self.completed += 1;
            if state.get(id.as_str()) != Some(&JobState::Removed) {
                self.successful += 1;
            }
            let wall = r.wall.max(1) as f64;
            let xf = (now - r.submit).max(0) as f64 / wall;
            self.xf_sum += xf.max(1.0);
            self.xf_max = self.xf_max.max(xf.max(1.0));
            let wc = ((now - r.start).max(0) as f64 / wall).min(1.0);
            self.wc_sum += wc;
            for c in &r.creds {
                let e = self.creds.entry(c.clone()).or_default();
                e.jobs += 1;
                e.ph_request += (r.procs as f64 * wall) / 3600.0;
                e.ph_dedicated += (r.procs as f64 * (now - r.start).max(0) as f64) / 3600.0;
                e.xf_sum += xf.max(1.0);
                e.xf_max = e.xf_max.max(xf.max(1.0));
                e.qtime_sum += (r.start - r.submit).max(0) as f64;
                e.wc_sum += wc;
            }
        }
        let by_id: BTreeMap<&str, &Job> = last.jobs.iter().map(|j| (j.id.as_str(), j)).collect();
        for a in last.plan.actions.iter().filter(|a| a.kind.preempts()) {
            if let Some(j) = by_id.get(a.job.as_str()) {
                self.preempted += 1;
                let ran = j.start_time.map_or(0, |s| (now - s).max(0));
                self.preempted_ph += j.procs() as f64 * ran as f64 / 3600.0;
            }
        }
        let (mut busy, mut nodes) = (0u64, std::collections::BTreeSet::new());
        for j in last.jobs.iter().filter(|j| j.state.is_active()) {
            busy += j.procs();
            nodes.extend(j.allocation.iter().map(|a| a.node.clone()));
        }
        for s in &last.plan.starts {
            let Some(j) = by_id.get(s.job.as_str()) else {
                continue;
            };
            busy += j.procs();
            nodes.extend(s.allocation.iter().map(|a| a.node.clone()));
            self.started += 1;
            let q = (now - j.submit_time).max(0);
            self.qtime_sum += q;
            self.qtime_max = self.qtime_max.max(q);
            let b = last.plan.job(&j.id).map_or(0, |p| p.bypass_count);
            self.bypass_sum += b as u64;
            self.bypass_max = self.bypass_max.max(b);
            running.insert(j.id.clone(), Running::of(cfg, j, now));
        }
        self.running = running;
        self.busy_procs = busy;
        self.busy_nodes = nodes.len();
        self.total_procs = last.view.cluster.total.procs as u64;
        self.total_nodes = last.view.cluster.nodes.len();
        self.active = self.running.len();
        self.idle = last.plan.stats.idle;
        self.eligible = last.plan.stats.eligible;
        if self.total_procs > 0 {
            let u = 100.0 * busy as f64 / self.total_procs as f64;
            if self.min_util.is_none_or(|(m, _)| u < m) {
                self.min_util = Some((u, self.iterations));
            }
        }
        let work: f64 =
            last.plan
                .jobs
                .iter()
                .filter(|p| {
                    !p.started
                        && !p.reason.as_ref().is_some_and(|r| {
                            r.is_blocking() && !matches!(r, Reason::Stopped { .. })
                        })
                })
                .filter_map(|p| by_id.get(p.job.as_str()))
                .map(|j| j.procs() as f64 * walltime(cfg, j) as f64)
                .sum();
        self.backlog = if self.total_procs > 0 {
            (work / self.total_procs as f64) as Secs
        } else {
            0
        };
        self.backlog_sum += self.backlog as f64;
        let (mut used, mut ded) = (0.0, 0.0);
        for j in last.jobs.iter().filter(|j| j.state == JobState::Running) {
            if let Some(u) = j.utilized_procs {
                used += u;
                ded += j.procs() as f64;
            }
        }
        self.job_efficiency = (ded > 0.0).then(|| 100.0 * used / ded);
    }

    fn avg(sum: f64, n: u64) -> f64 {
        if n == 0 {
            0.0
        } else {
            sum / n as f64
        }
    }

    /// `showstats` in Maui's layout.
    pub fn render(&self, zone: &Zone) -> String {
        let pct = |a: f64, b: f64| if b > 0.0 { 100.0 * a / b } else { 0.0 };
        let k = |v: f64| {
            if v >= 1000.0 {
                format!("{:.2}K", v / 1000.0)
            } else {
                format!("{v:.2}")
            }
        };
        let started = self.started_at.unwrap_or(self.now);
        let mut o = format!("current scheduler time: {}\n\n", zone.fmt(self.now));
        o.push_str(&format!(
            "mauisched active for {:>11}   started on {}\n",
            fmt_duration(self.now - started),
            zone.fmt(started)
        ));
        o.push_str(&format!(
            "statistics for iteration {:>5}  initialized on {}\n\n",
            self.iterations,
            zone.fmt(started)
        ));
        o.push_str(&format!(
            "{:<30}{:>7}/{:<6} ({:.3}%)\n",
            "Eligible/Idle Jobs:",
            self.eligible,
            self.idle,
            pct(self.eligible as f64, self.idle as f64)
        ));
        o.push_str(&format!("{:<30}{:>7}\n", "Active Jobs:", self.active));
        o.push_str(&format!(
            "{:<30}{:>7}/{:<6} ({:.3}%)\n",
            "Successful/Completed Jobs:",
            self.successful,
            self.completed,
            pct(self.successful as f64, self.completed as f64)
        ));
        o.push_str(&format!(
            "{:<30}{:>7.2}/{:.2}\n",
            "Avg/Max QTime (Hours):",
            Self::avg(self.qtime_sum as f64, self.started) / 3600.0,
            self.qtime_max as f64 / 3600.0
        ));
        o.push_str(&format!(
            "{:<30}{:>7.3}/{:.2}\n",
            "Avg/Max XFactor:",
            Self::avg(self.xf_sum, self.completed),
            self.xf_max
        ));
        o.push_str(&format!(
            "{:<30}{:>7.2}/{:.2}\n\n",
            "Avg/Max Bypass:",
            Self::avg(self.bypass_sum as f64, self.started),
            self.bypass_max as f64
        ));
        if self.preempted > 0 {
            o.push_str(&format!(
                "{:<30}{:>7}/{:.2}\n\n",
                "Preempted Jobs/ProcHours:", self.preempted, self.preempted_ph
            ));
        }
        o.push_str(&format!(
            "{:<30}{:>7}/{:<6} ({:.3}%)\n\n",
            "Dedicated/Total ProcHours:",
            k(self.dedicated_ps / 3600.0),
            k(self.available_ps / 3600.0),
            pct(self.dedicated_ps, self.available_ps)
        ));
        o.push_str(&format!(
            "{:<30}{:>7}/{:<6} ({:.1}%)\n",
            "Current Active/Total Procs:",
            self.busy_procs,
            self.total_procs,
            pct(self.busy_procs as f64, self.total_procs as f64)
        ));
        o.push_str(&format!(
            "{:<30}{:>7}/{:<6} ({:.1}%)\n\n",
            "Current Active/Total Nodes:",
            self.busy_nodes,
            self.total_nodes,
            pct(self.busy_nodes as f64, self.total_nodes as f64)
        ));
        o.push_str(&format!(
            "{:<30}{:>7.3}%\n",
            "Avg WallClock Accuracy:",
            100.0 * Self::avg(self.wc_sum, self.completed)
        ));
        match self.job_efficiency {
            Some(e) => o.push_str(&format!("{:<30}{:>7.3}%\n", "Avg Job Proc Efficiency:", e)),
            None => o.push_str(&format!("{:<30}{:>7}\n", "Avg Job Proc Efficiency:", "---")),
        }
        if let Some((u, it)) = self.min_util {
            o.push_str(&format!(
                "{:<30}{:>7.3}% (on iteration {it})\n",
                "Min System Utilization:", u
            ));
        }
        o.push_str(&format!(
            "{:<30}{}/{}\n",
            "Est/Avg Backlog:",
            fmt_duration(self.backlog),
            fmt_duration(Self::avg(self.backlog_sum, self.iterations) as Secs)
        ));
        o
    }

    /// `showstats --json`.
    pub fn json(&self) -> Value {
        json!({
            "now": self.now,
            "started_at": self.started_at,
            "iterations": self.iterations,
            "eligible_jobs": self.eligible,
            "idle_jobs": self.idle,
            "active_jobs": self.active,
            "completed_jobs": self.completed,
            "successful_jobs": self.successful,
            "started_jobs": self.started,
            "avg_queue_time": Self::avg(self.qtime_sum as f64, self.started),
            "max_queue_time": self.qtime_max,
            "avg_xfactor": Self::avg(self.xf_sum, self.completed),
            "max_xfactor": self.xf_max,
            "avg_bypass": Self::avg(self.bypass_sum as f64, self.started),
            "max_bypass": self.bypass_max,
            "dedicated_proc_hours": self.dedicated_ps / 3600.0,
            "available_proc_hours": self.available_ps / 3600.0,
            "busy_procs": self.busy_procs,
            "total_procs": self.total_procs,
            "busy_nodes": self.busy_nodes,
            "total_nodes": self.total_nodes,
            "avg_wallclock_accuracy": Self::avg(self.wc_sum, self.completed),
            "job_efficiency": self.job_efficiency,
            "min_utilization": self.min_util.map(|(u, i)| json!({"percent": u, "iteration": i})),
            "backlog": self.backlog,
            "avg_backlog": Self::avg(self.backlog_sum, self.iterations),
        })
    }
}

/// One row of `showstats -u` and the like.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct CredRow {
    /// The credential's name.
    pub name: String,
    /// Active jobs now.
    pub active_jobs: u64,
    /// Their processors.
    pub active_procs: u64,
    /// Processor-hours they have run so far.
    pub active_proc_hours: f64,
    /// Completed since the statistics began.
    pub completed: CredStats,
    /// Share of all completed jobs (percent).
    pub jobs_percent: f64,
    /// Share of all requested processor-hours (percent).
    pub ph_request_percent: f64,
    /// Share of all dedicated processor-hours (percent).
    pub ph_dedicated_percent: f64,
    /// FSTARGET, if configured.
    pub fs_target: Option<f64>,
    /// Average expansion factor.
    pub avg_xfactor: f64,
    /// Average queue time, hours.
    pub avg_qtime_hours: f64,
    /// Average wallclock accuracy (percent).
    pub wc_accuracy: f64,
}

impl SchedStats {
    /// The per-credential rows of `kind` (Maui's `showstats -u [NAME]`):
    /// every credential with active or completed jobs, or with `verbose`
    /// every one configured too; most dedicated processor-hours first.
    /// An unknown `name` is an error naming it.
    pub fn cred_rows(
        &self,
        cfg: &Config,
        last: Option<&LastIteration>,
        kind: CredKind,
        name: Option<&str>,
        verbose: bool,
    ) -> Result<Vec<CredRow>, String> {
        let now = last.map_or(self.now, |l| l.plan.now);
        let mut rows: BTreeMap<String, CredRow> = BTreeMap::new();
        for j in last
            .iter()
            .flat_map(|l| l.jobs.iter())
            .filter(|j| j.state.is_active())
        {
            let Some(n) = j.cred(kind) else { continue };
            let r = rows.entry(n.to_string()).or_default();
            r.active_jobs += 1;
            r.active_procs += j.procs();
            let ran = j.start_time.map_or(0, |s| (now - s).max(0));
            r.active_proc_hours += j.procs() as f64 * ran as f64 / 3600.0;
        }
        let (mut jobs, mut req, mut ded) = (0u64, 0.0, 0.0);
        for ((k, n), c) in &self.creds {
            if *k != kind {
                continue;
            }
            jobs += c.jobs;
            req += c.ph_request;
            ded += c.ph_dedicated;
            rows.entry(n.clone()).or_default().completed = c.clone();
        }
        let configured: Vec<&String> = cfg
            .creds
            .get(&kind)
            .map(|m| {
                m.keys()
                    .filter(|n| !n.eq_ignore_ascii_case("DEFAULT"))
                    .collect()
            })
            .unwrap_or_default();
        if let Some(n) = name {
            let seen = last.is_some_and(|l| l.jobs.iter().any(|j| j.cred(kind) == Some(n)));
            if !rows.contains_key(n) && !seen && !configured.iter().any(|c| *c == n) {
                return Err(format!(
                    "cannot locate {} '{n}' (no job has it and maui.cfg does not configure it)",
                    kind.name().to_lowercase()
                ));
            }
            rows.entry(n.to_string()).or_default();
            rows.retain(|k, _| k == n);
        } else if verbose {
            for c in configured {
                rows.entry(c.clone()).or_default();
            }
        }
        let pct = |a: f64, b: f64| if b > 0.0 { 100.0 * a / b } else { 0.0 };
        let mut out: Vec<CredRow> = rows
            .into_iter()
            .map(|(n, mut r)| {
                let c = &r.completed;
                r.jobs_percent = pct(c.jobs as f64, jobs as f64);
                r.ph_request_percent = pct(c.ph_request, req);
                r.ph_dedicated_percent = pct(c.ph_dedicated, ded);
                r.avg_xfactor = Self::avg(c.xf_sum, c.jobs);
                r.avg_qtime_hours = Self::avg(c.qtime_sum, c.jobs) / 3600.0;
                r.wc_accuracy = 100.0 * Self::avg(c.wc_sum, c.jobs);
                r.fs_target = cfg
                    .cred(kind, &n)
                    .and_then(|c| c.fs_target)
                    .map(|t| t.percent);
                r.name = n;
                r
            })
            .filter(|r| verbose || name.is_some() || r.active_jobs > 0 || r.completed.jobs > 0)
            .collect();
        out.sort_by(|a, b| {
            (b.completed.ph_dedicated + b.active_proc_hours)
                .total_cmp(&(a.completed.ph_dedicated + a.active_proc_hours))
                .then_with(|| a.name.cmp(&b.name))
        });
        Ok(out)
    }

    /// `showstats -u` and the like in Maui's layout (`MCShowCStats`).
    pub fn render_creds(&self, kind: CredKind, rows: &[CredRow], zone: &Zone) -> String {
        let label = match kind {
            CredKind::User => "user",
            CredKind::Group => "group",
            CredKind::Account => "acct",
            CredKind::Class => "class",
            CredKind::Qos => "qos",
        };
        let mut o = format!(
            "statistics initialized {}\n\n",
            zone.fmt(self.started_at.unwrap_or(self.now))
        );
        o.push_str("         |------ Active ------|--------------------------------- Completed -----------------------------------|\n");
        o.push_str(&format!(
            "{:<9} {:>4} {:>5} {:>9} {:>4} {:>6} {:>6} {:>6} {:>6} {:>6} {:>5} {:>6} {:>6} {:>6} {:>6} {:>6}\n",
            label, "Jobs", "Procs", "ProcHours", "Jobs", "  %  ", "PHReq", "  %  ", "PHDed",
            "  %  ", "FSTgt", "AvgXF", "MaxXF", "AvgQH", "Effic", "WCAcc"
        ));
        let f2 = |v: f64| format!("{v:.2}");
        for r in rows {
            let c = &r.completed;
            let done = c.jobs > 0;
            let or_dash = |v: String| if done { v } else { "------".into() };
            o.push_str(&format!(
                "{:<9} {:>4} {:>5} {:>9.2} {:>4} {:>6} {:>5} {:>6} {:>6} {:>6} {:>5} {:>6} {:>6} {:>6} {:>6} {:>6}\n",
                r.name,
                r.active_jobs,
                r.active_procs,
                r.active_proc_hours,
                c.jobs,
                or_dash(f2(r.jobs_percent)),
                or_dash(format!("{:.0}", c.ph_request)),
                or_dash(f2(r.ph_request_percent)),
                or_dash(format!("{:.0}", c.ph_dedicated)),
                or_dash(f2(r.ph_dedicated_percent)),
                r.fs_target.map_or("-----".to_string(), |t| format!("{t:.1}")),
                or_dash(f2(r.avg_xfactor)),
                or_dash(f2(c.xf_max)),
                or_dash(f2(r.avg_qtime_hours)),
                "------",
                or_dash(f2(r.wc_accuracy)),
            ));
        }
        o.push_str("\n\n");
        o
    }
}
