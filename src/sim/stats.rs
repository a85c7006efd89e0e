//! What a run did for whom: per-credential tables, Maui's `showgrid`
//! matrix, the rejected jobs with their reasons, and the queue over time.
//! `simulate --out` writes them beside `jobs.csv`; `simulate --compare`
//! puts them side by side ([`super::compare`]).
//!
//! # Per credential
//!
//! For each user, group, account, class and QOS (`-`: jobs without one),
//! over the jobs that completed: their count, mean and p90 wait (nearest
//! rank), mean bounded slowdown, the processor-hours delivered to them
//! (processors × time held, suspensions left out, as in the utilization)
//! and their share of all processor-hours delivered, beside the
//! credential's FSTARGET (its `*CFG[name]`, else `*CFG[DEFAULT]`).
//!
//! # Grid
//!
//! Maui's statistics grid (`showgrid`, `MStatUpdateCompletedJobUsage`):
//! rows by processors requested, columns by walltime requested, with
//! Maui's default scales (processors 1, 2, 4 ... 512; walltimes 2:00,
//! 4:00 ... 34:08:00, the last column taking everything longer). A job
//! goes in the first row and column at least as large as its request.
//! Each cell counts jobs, their queue times, expansion factors
//! ((wait + run) / walltime, as Maui), backfilled jobs and processor-hours.

use super::report::{bounded_slowdown, percentile_nearest};
use super::run::SimResult;
use super::workload::SimJob;
use crate::config::{Config, FsTargetMode};
use crate::model::{CredKind, Secs, Time};
use crate::priority::cred_attr;
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// The credential kinds of the tables, in the order shown.
pub const KINDS: [(CredKind, &str); 5] = [
    (CredKind::User, "user"),
    (CredKind::Group, "group"),
    (CredKind::Account, "account"),
    (CredKind::Class, "class"),
    (CredKind::Qos, "qos"),
];

/// The name shown for jobs without a credential of a kind.
pub const NONE: &str = "-";

/// One credential's line.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CredRow {
    /// The credential's name ([`NONE`]: jobs without one).
    pub name: String,
    /// Jobs completed.
    pub jobs: u64,
    /// Mean wait, seconds.
    pub mean_wait: f64,
    /// 90th percentile of the wait (nearest rank), seconds.
    pub p90_wait: f64,
    /// Mean bounded slowdown.
    pub mean_bounded_slowdown: f64,
    /// Processor-hours delivered.
    pub proc_hours: f64,
    /// Share of all processor-hours delivered in the run, percent.
    pub share: f64,
    /// FSTARGET in force, percent.
    pub fs_target: Option<f64>,
    /// `target`, `floor` or `cap`.
    pub fs_target_mode: Option<&'static str>,
}

/// The table of one credential kind.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CredTable {
    /// `user`, `group`, `account`, `class` or `qos`.
    pub kind: &'static str,
    /// Its credentials, by name (natural order).
    pub rows: Vec<CredRow>,
}

/// The name of a job's credential of `kind`.
pub fn cred_name(job: &crate::model::Job, kind: CredKind) -> &str {
    let v = match kind {
        CredKind::User => Some(&job.user),
        CredKind::Group => Some(&job.group),
        CredKind::Account => job.account.as_ref(),
        CredKind::Class => job.class.as_ref(),
        CredKind::Qos => job.qos.as_ref(),
    };
    v.map(String::as_str)
        .filter(|s| !s.is_empty())
        .unwrap_or(NONE)
}

/// Processor-seconds a completed job held (suspensions left out).
fn held(j: &SimJob, start: Time, end: Time, suspended: Secs) -> f64 {
    j.job.procs() as f64 * (end - start - suspended).max(0) as f64
}

/// The five credential tables of a run.
pub fn credentials(cfg: &Config, jobs: &[SimJob], res: &SimResult) -> Vec<CredTable> {
    let done: Vec<(&SimJob, Secs, Secs, f64)> = jobs
        .iter()
        .zip(&res.records)
        .filter_map(|(j, r)| {
            let r = r.as_ref()?;
            let wait = r.start - j.job.submit_time;
            Some((
                j,
                wait,
                r.end - r.start,
                held(j, r.start, r.end, r.suspended),
            ))
        })
        .collect();
    let total: f64 = done.iter().map(|d| d.3).sum();
    KINDS
        .iter()
        .map(|&(kind, label)| {
            let mut by: BTreeMap<&str, Vec<&(&SimJob, Secs, Secs, f64)>> = BTreeMap::new();
            for d in &done {
                by.entry(cred_name(&d.0.job, kind)).or_default().push(d);
            }
            let mut rows: Vec<CredRow> = by
                .into_iter()
                .map(|(name, ds)| {
                    let n = ds.len() as f64;
                    let mut waits: Vec<i64> = ds.iter().map(|d| d.1).collect();
                    waits.sort_unstable();
                    let ps: f64 = ds.iter().map(|d| d.3).sum();
                    let target = (name != NONE)
                        .then(|| cred_attr(cfg, kind, name, |c| c.fs_target))
                        .flatten();
                    CredRow {
                        name: name.to_string(),
                        jobs: ds.len() as u64,
                        mean_wait: waits.iter().map(|&w| w as f64).sum::<f64>() / n,
                        p90_wait: percentile_nearest(&waits, 0.9),
                        mean_bounded_slowdown: ds
                            .iter()
                            .map(|d| bounded_slowdown(d.1, d.2))
                            .sum::<f64>()
                            / n,
                        proc_hours: ps / 3600.0,
                        share: if total > 0.0 { 100.0 * ps / total } else { 0.0 },
                        fs_target: target.map(|t| t.percent),
                        fs_target_mode: target.map(|t| match t.mode {
                            FsTargetMode::Target => "target",
                            FsTargetMode::Floor => "floor",
                            FsTargetMode::Cap => "cap",
                        }),
                    }
                })
                .collect();
            rows.sort_by(|a, b| super::report::natural(&a.name, &b.name));
            CredTable { kind: label, rows }
        })
        .collect()
}

/// `credentials.csv`: the tables, one line per credential.
pub fn credentials_csv(tables: &[CredTable]) -> String {
    let mut o = String::from(
        "kind,name,jobs,mean_wait,p90_wait,mean_bounded_slowdown,proc_hours,share_percent,fs_target\n",
    );
    for t in tables {
        for r in &t.rows {
            let target = match (r.fs_target, r.fs_target_mode) {
                (Some(p), Some("floor")) => format!("{p}+"),
                (Some(p), Some("cap")) => format!("{p}-"),
                (Some(p), _) => format!("{p}"),
                (None, _) => String::new(),
            };
            let _ = writeln!(
                o,
                "{},{},{},{:.0},{:.0},{:.3},{:.3},{:.3},{}",
                t.kind,
                super::report::csv_field(&r.name),
                r.jobs,
                r.mean_wait,
                r.p90_wait,
                r.mean_bounded_slowdown,
                r.proc_hours,
                r.share,
                target
            );
        }
    }
    o
}

/// Maui's default grid scales (`MStatSetDefaults`): walltimes from 2:00,
/// doubling 11 times; processors from 1, doubling 9 times.
const MIN_TIME: Secs = 120;
const TIME_STEPS: u32 = 11;
const MIN_PROCS: u64 = 1;
const PROC_STEPS: u32 = 9;

/// One cell of the grid.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct GridCell {
    /// Jobs.
    pub jobs: u64,
    /// Sum of their waits, seconds.
    pub wait_sum: f64,
    /// Sum of their expansion factors.
    pub xfactor_sum: f64,
    /// Largest expansion factor.
    pub xfactor_max: f64,
    /// Jobs started by backfill.
    pub backfilled: u64,
    /// Processor-hours they ran.
    pub proc_hours: f64,
}

impl GridCell {
    fn add(&mut self, o: &GridCell) {
        self.jobs += o.jobs;
        self.wait_sum += o.wait_sum;
        self.xfactor_sum += o.xfactor_sum;
        self.xfactor_max = self.xfactor_max.max(o.xfactor_max);
        self.backfilled += o.backfilled;
        self.proc_hours += o.proc_hours;
    }
}

/// Maui's statistics grid of a run (`showgrid`).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Grid {
    /// Upper bound of each column: walltime requested, seconds.
    pub walltimes: Vec<Secs>,
    /// Upper bound of each row: processors requested.
    pub procs: Vec<u64>,
    /// `cells[row][column]`.
    pub cells: Vec<Vec<GridCell>>,
}

impl Grid {
    /// The grid of the jobs that completed.
    pub fn of(jobs: &[SimJob], res: &SimResult, default_walltime: Secs) -> Grid {
        let mut walltimes: Vec<Secs> = (0..TIME_STEPS).map(|i| MIN_TIME << i).collect();
        walltimes.dedup();
        let procs: Vec<u64> = (0..=PROC_STEPS).map(|i| MIN_PROCS << i).collect();
        let mut cells = vec![vec![GridCell::default(); walltimes.len()]; procs.len()];
        let max_procs = *procs.last().unwrap_or(&1);
        for (j, r) in jobs.iter().zip(&res.records) {
            let Some(r) = r else { continue };
            let wall = j.job.walltime.unwrap_or(default_walltime).max(1);
            let col = walltimes
                .iter()
                .position(|&w| wall <= w)
                .unwrap_or(walltimes.len() - 1);
            let p = j.job.procs().min(max_procs);
            let row = procs
                .iter()
                .position(|&s| p <= s)
                .unwrap_or(procs.len() - 1);
            let wait = (r.start - j.job.submit_time).max(0);
            let run = (r.end - r.start - r.suspended).max(0);
            let xf = (wait + run) as f64 / wall as f64;
            cells[row][col].add(&GridCell {
                jobs: 1,
                wait_sum: wait as f64,
                xfactor_sum: xf,
                xfactor_max: xf,
                backfilled: r.backfill as u64,
                proc_hours: held(j, r.start, r.end, r.suspended) / 3600.0,
            });
        }
        Grid {
            walltimes,
            procs,
            cells,
        }
    }

    /// A row's total.
    pub fn row_total(&self, row: usize) -> GridCell {
        let mut t = GridCell::default();
        for c in &self.cells[row] {
            t.add(c);
        }
        t
    }

    /// A column's total.
    pub fn column_total(&self, col: usize) -> GridCell {
        let mut t = GridCell::default();
        for r in &self.cells {
            t.add(&r[col]);
        }
        t
    }

    /// Every job's.
    pub fn total(&self) -> GridCell {
        let mut t = GridCell::default();
        for r in 0..self.cells.len() {
            t.add(&self.row_total(r));
        }
        t
    }
}

/// The statistics `showgrid` shows, as Maui names them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GridStat {
    /// Average expansion factor, with the job count.
    AvgXFactor,
    /// Largest expansion factor.
    MaxXFactor,
    /// Average queue time, hours, with the job count.
    AvgQTime,
    /// Jobs.
    JobCount,
    /// Jobs backfilled.
    BfCount,
    /// Processor-hours run.
    NhRun,
}

impl GridStat {
    /// Every statistic, in `showgrid.txt`'s order.
    pub const ALL: [GridStat; 6] = [
        GridStat::AvgXFactor,
        GridStat::MaxXFactor,
        GridStat::AvgQTime,
        GridStat::JobCount,
        GridStat::BfCount,
        GridStat::NhRun,
    ];

    /// Maui's heading.
    pub fn title(self) -> &'static str {
        match self {
            GridStat::AvgXFactor => "Average XFactor Grid",
            GridStat::MaxXFactor => "Maximum XFactor Grid",
            GridStat::AvgQTime => "Average Queue Time Grid (hours)",
            GridStat::JobCount => "Job Count Grid",
            GridStat::BfCount => "Backfill Count Grid",
            GridStat::NhRun => "Processor-Hours Run Grid",
        }
    }

    /// The cell's text (`None`: no job).
    pub fn cell(self, c: &GridCell) -> Option<String> {
        if c.jobs == 0 {
            return None;
        }
        let n = c.jobs as f64;
        Some(match self {
            GridStat::AvgXFactor => format!("{:6.2}{:4}", c.xfactor_sum / n, c.jobs),
            GridStat::MaxXFactor => format!("{:6.2}{:4}", c.xfactor_max, c.jobs),
            GridStat::AvgQTime => format!("{:6.2}{:4}", c.wait_sum / n / 3600.0, c.jobs),
            GridStat::JobCount => format!("{:>10}", c.jobs),
            GridStat::BfCount => format!("{:>10}", c.backfilled),
            GridStat::NhRun => format!("{:>10.1}", c.proc_hours),
        })
    }
}

/// One statistic's grid in Maui's layout: a column per walltime, a row per
/// processor count, totals last; dashes where no job completed.
pub fn grid_text(g: &Grid, stat: GridStat) -> String {
    let mut o = String::new();
    let _ = writeln!(o, "{}\n", stat.title());
    let cell = |c: &GridCell| match stat.cell(c) {
        Some(s) => format!("[{s}]"),
        None => "[ -------- ]".to_string(),
    };
    o.push_str("[ PROCS ]");
    for &w in &g.walltimes {
        let _ = write!(o, "[ {:>8} ]", hms(w));
    }
    o.push_str("[   TOTAL  ]\n");
    for (r, &p) in g.procs.iter().enumerate() {
        let _ = write!(o, "[ {p:>5} ]");
        for c in &g.cells[r] {
            o.push_str(&cell(c));
        }
        o.push_str(&cell(&g.row_total(r)));
        o.push('\n');
    }
    o.push_str("[ T TOT ]");
    for col in 0..g.walltimes.len() {
        o.push_str(&cell(&g.column_total(col)));
    }
    o.push('\n');
    let t = g.total();
    let n = t.jobs.max(1) as f64;
    match stat {
        GridStat::AvgXFactor => {
            let _ = writeln!(
                o,
                "{:<26} {:8.4}",
                "Job Weighted XFactor:",
                t.xfactor_sum / n
            );
        }
        GridStat::MaxXFactor => {
            let _ = writeln!(o, "{:<26} {:8.4}", "Overall Max XFactor:", t.xfactor_max);
        }
        GridStat::AvgQTime => {
            let _ = writeln!(
                o,
                "{:<26} {:8.4}",
                "Job Weighted QTime (h):",
                t.wait_sum / n / 3600.0
            );
        }
        GridStat::JobCount | GridStat::BfCount | GridStat::NhRun => {}
    }
    let _ = writeln!(o, "{:<26} {:>8}", "Total Samples:", t.jobs);
    o
}

/// `HH:MM:SS` with as many hours as it takes, as Maui's grid heads.
fn hms(s: Secs) -> String {
    format!("{:02}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
}

/// `showgrid.txt`: every statistic's grid.
pub fn showgrid_txt(g: &Grid) -> String {
    GridStat::ALL
        .iter()
        .map(|&s| grid_text(g, s))
        .collect::<Vec<_>>()
        .join("\n")
}

/// A job taken out as one that can never run here.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RejectedJob {
    /// Job id.
    pub id: String,
    /// Owner.
    pub user: String,
    /// Processors requested.
    pub procs: u64,
    /// Walltime requested, seconds.
    pub walltime: Option<Secs>,
    /// Submitted (epoch).
    pub submit: Time,
    /// Taken out (epoch).
    pub rejected_at: Time,
    /// Why, as `checkjob` says it.
    pub reason: String,
}

/// The rejected jobs of a run, in workload order.
pub fn rejected(jobs: &[SimJob], res: &SimResult) -> Vec<RejectedJob> {
    res.rejected
        .iter()
        .zip(&res.rejections)
        .map(|(&i, why)| {
            let j = &jobs[i].job;
            RejectedJob {
                id: j.id.clone(),
                user: j.user.clone(),
                procs: j.procs(),
                walltime: j.walltime,
                submit: j.submit_time,
                rejected_at: why.at,
                reason: why.reason.clone(),
            }
        })
        .collect()
}

/// `rejected.csv` (with a leading `config` column when `config` is given).
pub fn rejected_csv(rows: &[(Option<&str>, &RejectedJob)]) -> String {
    let with_config = rows.iter().any(|r| r.0.is_some());
    let mut o = String::new();
    if with_config {
        o.push_str("config,");
    }
    o.push_str("id,user,procs,walltime,submit,rejected_at,reason\n");
    for (cfg, r) in rows {
        if with_config {
            let _ = write!(o, "{},", super::report::csv_field(cfg.unwrap_or("")));
        }
        let _ = writeln!(
            o,
            "{},{},{},{},{},{},{}",
            super::report::csv_field(&r.id),
            super::report::csv_field(&r.user),
            r.procs,
            r.walltime.map_or(String::new(), |w| w.to_string()),
            r.submit,
            r.rejected_at,
            super::report::csv_field(&r.reason)
        );
    }
    o
}

/// A run's queue over time, in bins of equal length from the first
/// submission to the last completion.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TimeSeries {
    /// Start of the first bin (epoch).
    pub from: Time,
    /// End of the last bin (epoch).
    pub to: Time,
    /// Share of processors busy, 0-1 (time-weighted mean of each bin).
    pub utilization: Vec<f64>,
    /// Jobs waiting (time-weighted mean of each bin).
    pub queue: Vec<f64>,
    /// Mean wait, seconds, of the jobs submitted in each bin that ran
    /// (`None`: none).
    pub wait: Vec<Option<f64>>,
}

impl TimeSeries {
    /// `bins` bins over `[from, to)`.
    pub fn of(
        jobs: &[SimJob],
        res: &SimResult,
        procs: u64,
        from: Time,
        to: Time,
        bins: usize,
    ) -> TimeSeries {
        let to = to.max(from + 1);
        let busy = super::svg::utilization_bins(jobs, &res.records, from, to, bins);
        let mut left: BTreeMap<usize, Time> = BTreeMap::new();
        for (&i, why) in res.rejected.iter().zip(&res.rejections) {
            left.insert(i, why.at);
        }
        let mut steps: Vec<(Time, i64)> = Vec::new();
        let mut sums = vec![(0f64, 0u64); bins.max(1)];
        let span = (to - from).max(1) as i128;
        for (i, (j, r)) in jobs.iter().zip(&res.records).enumerate() {
            let submit = j.job.submit_time;
            let until = match r {
                Some(r) => r.start,
                None => left.get(&i).copied().unwrap_or(to),
            };
            steps.push((submit, 1));
            steps.push((until.max(submit), -1));
            if let Some(r) = r {
                let k = ((submit - from).max(0) as i128 * bins as i128 / span) as usize;
                let s = &mut sums[k.min(bins.max(1) - 1)];
                s.0 += (r.start - submit).max(0) as f64;
                s.1 += 1;
            }
        }
        steps.sort_unstable();
        let procs = procs.max(1) as f64;
        TimeSeries {
            from,
            to,
            utilization: busy.into_iter().map(|b| b / procs).collect(),
            queue: super::svg::step_means(steps, from, to, bins),
            wait: sums
                .into_iter()
                .map(|(s, n)| (n > 0).then(|| s / n as f64))
                .collect(),
        }
    }
}

/// Everything this module reports about one run.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RunStats {
    /// Per-credential tables.
    pub credentials: Vec<CredTable>,
    /// Maui's grid.
    pub grid: Grid,
    /// Rejected jobs.
    pub rejected: Vec<RejectedJob>,
    /// Queue over time.
    pub series: TimeSeries,
}

/// Bins of the time series.
pub const SERIES_BINS: usize = 200;

impl RunStats {
    /// The statistics of a run whose summary is `s`.
    pub fn of(cfg: &Config, jobs: &[SimJob], res: &SimResult, s: &super::report::Summary) -> Self {
        RunStats {
            credentials: credentials(cfg, jobs, res),
            grid: Grid::of(jobs, res, cfg.params.system_default_job_walltime.0),
            rejected: rejected(jobs, res),
            series: TimeSeries::of(jobs, res, s.procs, s.start, s.end, SERIES_BINS),
        }
    }

    /// The files `simulate --out` writes for them: `credentials.csv`,
    /// `showgrid.txt` and `rejected.csv`.
    pub fn files(&self) -> [(&'static str, String); 3] {
        let rows: Vec<(Option<&str>, &RejectedJob)> =
            self.rejected.iter().map(|r| (None, r)).collect();
        [
            ("credentials.csv", credentials_csv(&self.credentials)),
            ("showgrid.txt", showgrid_txt(&self.grid)),
            ("rejected.csv", rejected_csv(&rows)),
        ]
    }
}

#[cfg(test)]
#[path = "stats_tests.rs"]
mod tests;
