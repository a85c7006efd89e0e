//! `mauictl simulate --compare A.cfg B.cfg ...`: one trace, one cluster,
//! several configurations, run side by side (in parallel, one run per
//! core) and reported together.
//!
//! Each run is exactly the run `simulate -C A.cfg` makes: the same
//! summary, `jobs.csv` and statistics ([`super::stats`]); the comparison
//! only lays them out together:
//!
//! - [`text`]: the summaries side by side, for the terminal;
//! - [`json`]: `compare.json`, every run's summary and statistics;
//! - [`html`]: `report.html`, one self-contained page (no scripts or
//!   styles fetched from anywhere): the summaries, utilization, queue
//!   length and wait over time with one line per configuration, the
//!   per-credential tables, Maui's showgrid matrices and the rejected jobs.

use super::report::{iso_time, Summary};
use super::stats::{self, CredTable, GridStat, RunStats};
use super::svg::{esc, line_chart, Series, SERIES_COLOURS};
use crate::model::time::fmt_duration;
use crate::model::Secs;
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// One configuration's run.
#[derive(Clone, Debug, Serialize)]
pub struct Compared {
    /// Short name: the file's stem, made unique.
    pub label: String,
    /// The configuration file.
    pub config: String,
    /// The run's summary, as `simulate --json` prints it.
    pub summary: Summary,
    /// Its statistics.
    #[serde(flatten)]
    pub stats: RunStats,
}

/// Labels for configuration files: their stems, with `-2`, `-3` ... added
/// to repeats, and characters other than letters, digits, `.`, `_` and `-`
/// replaced by `_` (each becomes a directory of the output).
pub fn labels(paths: &[String]) -> Vec<String> {
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    paths
        .iter()
        .map(|p| {
            let stem = std::path::Path::new(p)
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            let mut base: String = stem
                .chars()
                .map(|c| {
                    if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                        c
                    } else {
                        '_'
                    }
                })
                .collect();
            if base.is_empty() || base.starts_with('.') {
                base.insert(0, 'c');
            }
            let n = seen.entry(base.clone()).or_default();
            *n += 1;
            if *n == 1 {
                base
            } else {
                format!("{base}-{n}")
            }
        })
        .collect()
}

/// A summary line compared: its label, and its value in a run.
type Row = (&'static str, fn(&Summary) -> String);

/// The summary lines compared.
fn rows() -> Vec<Row> {
    fn dur(x: f64) -> String {
        fmt_duration(x.round() as Secs)
    }
    vec![
        ("jobs completed", |s| s.completed.to_string()),
        ("rejected", |s| s.rejected.to_string()),
        ("never started", |s| s.unfinished.to_string()),
        ("preemptions", |s| s.preemptions.to_string()),
        ("lost proc-hours", |s| {
            format!("{:.1}", s.lost_proc_hours + 0.0)
        }),
        ("makespan", |s| fmt_duration(s.makespan)),
        ("utilization %", |s| format!("{:.1}", 100.0 * s.utilization)),
        ("mean wait", |s| dur(s.wait.mean)),
        ("median wait", |s| dur(s.wait.median)),
        ("p95 wait", |s| dur(s.wait.p95)),
        ("max wait", |s| dur(s.wait.max)),
        ("mean bounded slowdown", |s| {
            format!("{:.2}", s.mean_bounded_slowdown)
        }),
        ("backfilled %", |s| {
            format!("{:.1}", 100.0 * s.backfilled_share)
        }),
        ("iterations", |s| s.iterations.to_string()),
    ]
}

/// The summaries side by side.
pub fn text(runs: &[Compared]) -> String {
    let mut o = String::new();
    if let Some(first) = runs.first() {
        let s = &first.summary;
        let _ = writeln!(o, "workload     {}", s.workload);
        let _ = writeln!(
            o,
            "cluster      {} ({} nodes, {} processors)",
            s.cluster, s.nodes, s.procs
        );
        let _ = writeln!(o, "clock        {}", s.clock);
    }
    for r in runs {
        let _ = writeln!(o, "config       {}: {}", r.label, r.config);
    }
    let w = runs
        .iter()
        .map(|r| r.label.len())
        .max()
        .unwrap_or(0)
        .max(10);
    let _ = write!(o, "\n{:<22}", "");
    for r in runs {
        let _ = write!(o, " {:>w$}", r.label);
    }
    o.push('\n');
    for (name, f) in rows() {
        let _ = write!(o, "{name:<22}");
        for r in runs {
            let _ = write!(o, " {:>w$}", f(&r.summary));
        }
        o.push('\n');
    }
    o
}

/// `compare.json`.
pub fn json(runs: &[Compared]) -> String {
    let mut t =
        serde_json::to_string_pretty(&serde_json::json!({ "runs": runs })).unwrap_or_default();
    t.push('\n');
    t
}

const STYLE: &str = "body{font-family:sans-serif;margin:1.5em;color:#222}\
table{border-collapse:collapse;margin:0.5em 0 1.5em}\
th,td{border:1px solid #ccc;padding:2px 8px;text-align:right}\
th{background:#f0f0f0}td.n,th.n{text-align:left}\
h2{margin-top:1.6em;border-bottom:1px solid #ddd}\
.grids{display:flex;flex-wrap:wrap;gap:1.5em}pre{font-size:11px;background:#fafafa;padding:6px}\
.swatch{display:inline-block;width:12px;height:12px;margin-right:4px;vertical-align:middle}";

/// The per-credential table of one kind across the runs.
fn cred_table(o: &mut String, runs: &[Compared], k: usize) {
    let kind = runs[0].stats.credentials[k].kind;
    let mut names: Vec<&str> = Vec::new();
    for r in runs {
        for row in &r.stats.credentials[k].rows {
            if !names.contains(&row.name.as_str()) {
                names.push(&row.name);
            }
        }
    }
    names.sort_by(|a, b| super::report::natural(a, b));
    let _ = writeln!(o, "<h3>By {kind}</h3>\n<table>\n<tr><th class=\"n\" rowspan=\"2\">{kind}</th><th rowspan=\"2\">FS target %</th>");
    for r in runs {
        let _ = write!(o, "<th colspan=\"6\">{}</th>", esc(&r.label));
    }
    o.push_str("</tr>\n<tr>");
    for _ in runs {
        o.push_str("<th>jobs</th><th>mean wait</th><th>p90 wait</th><th>mean bsld</th><th>proc-h</th><th>share %</th>");
    }
    o.push_str("</tr>\n");
    let find = |t: &CredTable, n: &str| t.rows.iter().find(|r| r.name == n).cloned();
    for n in names {
        let target = runs
            .iter()
            .find_map(|r| find(&r.stats.credentials[k], n))
            .and_then(|r| r.fs_target.map(|t| (t, r.fs_target_mode)))
            .map_or(String::new(), |(t, m)| match m {
                Some("floor") => format!("{t}+"),
                Some("cap") => format!("{t}-"),
                _ => format!("{t}"),
            });
        let _ = write!(o, "<tr><td class=\"n\">{}</td><td>{target}</td>", esc(n));
        for r in runs {
            match find(&r.stats.credentials[k], n) {
                Some(c) => {
                    let _ = write!(
                        o,
                        "<td>{}</td><td>{}</td><td>{}</td><td>{:.2}</td><td>{:.1}</td><td>{:.2}</td>",
                        c.jobs,
                        fmt_duration(c.mean_wait.round() as Secs),
                        fmt_duration(c.p90_wait as Secs),
                        c.mean_bounded_slowdown,
                        c.proc_hours,
                        c.share
                    );
                }
                None => o.push_str("<td colspan=\"6\">-</td>"),
            }
        }
        o.push_str("</tr>\n");
    }
    o.push_str("</table>\n");
}

/// Rejected jobs listed in the page (all of them are in `rejected.csv`).
const REJECTED_LISTED: usize = 200;

/// `report.html`.
pub fn html(runs: &[Compared]) -> String {
    let mut o = String::new();
    let Some(first) = runs.first() else {
        return o;
    };
    let s0 = &first.summary;
    let title = format!(
        "mauisched: {} under {} configurations",
        s0.workload,
        runs.len()
    );
    let _ = writeln!(
        o,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{}</title><style>{STYLE}</style></head><body>",
        esc(&title)
    );
    let _ = writeln!(o, "<h1>{}</h1>", esc(&title));
    let _ = writeln!(
        o,
        "<p>Workload <code>{}</code>; cluster <code>{}</code> ({} nodes, {} processors); clock {} (RMPOLLINTERVAL {}); from {} to {} UTC.</p>",
        esc(&s0.workload),
        esc(&s0.cluster),
        s0.nodes,
        s0.procs,
        esc(&s0.clock),
        fmt_duration(s0.poll_interval),
        iso_time(s0.start),
        iso_time(runs.iter().map(|r| r.summary.end).max().unwrap_or(s0.end))
    );
    o.push_str("<h2>Configurations</h2>\n<table><tr><th class=\"n\">run</th><th class=\"n\">maui.cfg</th></tr>\n");
    for (i, r) in runs.iter().enumerate() {
        let _ = writeln!(
            o,
            "<tr><td class=\"n\"><span class=\"swatch\" style=\"background:{}\"></span>{}</td><td class=\"n\"><code>{}</code></td></tr>",
            SERIES_COLOURS[i % SERIES_COLOURS.len()],
            esc(&r.label),
            esc(&r.config)
        );
    }
    o.push_str("</table>\n<h2>Summary</h2>\n<table><tr><th class=\"n\"></th>");
    for r in runs {
        let _ = write!(o, "<th>{}</th>", esc(&r.label));
    }
    o.push_str("</tr>\n");
    for (name, f) in rows() {
        let _ = write!(o, "<tr><td class=\"n\">{name}</td>");
        for r in runs {
            let _ = write!(o, "<td>{}</td>", esc(&f(&r.summary)));
        }
        o.push_str("</tr>\n");
    }
    o.push_str("</table>\n<h2>Over time</h2>\n");
    // Every run's series is over the same bins (see [`run_all`]).
    let (from, to) = (first.stats.series.from, first.stats.series.to);
    let some = |v: &[f64]| v.iter().map(|&x| Some(x)).collect::<Vec<_>>();
    let util: Vec<Vec<Option<f64>>> = runs
        .iter()
        .map(|r| some(&r.stats.series.utilization))
        .collect();
    let queue: Vec<Vec<Option<f64>>> = runs.iter().map(|r| some(&r.stats.series.queue)).collect();
    let wait: Vec<Vec<Option<f64>>> = runs
        .iter()
        .map(|r| {
            r.stats
                .series
                .wait
                .iter()
                .map(|w| w.map(|s| s / 3600.0))
                .collect()
        })
        .collect();
    let series = |vals: &'_ [Vec<Option<f64>>]| -> Vec<(String, Vec<Option<f64>>)> {
        runs.iter()
            .zip(vals)
            .map(|(r, v)| (r.label.clone(), v.clone()))
            .collect()
    };
    for (title, vals, unit, scale) in [
        ("Processor utilization", series(&util), "%", 100.0),
        ("Jobs waiting", series(&queue), "", 1.0),
        (
            "Mean wait of the jobs submitted at each time, hours",
            series(&wait),
            "h",
            1.0,
        ),
    ] {
        let ss: Vec<Series> = vals
            .iter()
            .map(|(l, v)| Series {
                label: l,
                values: v,
            })
            .collect();
        o.push_str(&line_chart(title, from, to, &ss, unit, scale));
    }
    o.push_str("<h2>By credential</h2>\n<p>Jobs that completed: their wait (mean, 90th percentile), mean bounded slowdown, processor-hours delivered and share of all delivered, against the credential's FSTARGET. All lines are in <code>compare.json</code> and each run's <code>credentials.csv</code>.</p>\n");
    for k in 0..stats::KINDS.len() {
        cred_table(&mut o, runs, k);
    }
    o.push_str("<h2>showgrid</h2>\n<p>Maui's statistics grid: a row per processor count requested, a column per walltime requested (the last takes every longer one); a cell gives the average and the number of jobs. Every statistic is in each run's <code>showgrid.txt</code>.</p>\n");
    for stat in [GridStat::AvgXFactor, GridStat::AvgQTime] {
        o.push_str("<div class=\"grids\">\n");
        for r in runs {
            let _ = writeln!(
                o,
                "<div><h3>{}</h3><pre>{}</pre></div>",
                esc(&r.label),
                esc(&stats::grid_text(&r.stats.grid, stat))
            );
        }
        o.push_str("</div>\n");
    }
    o.push_str("<h2>Rejected jobs</h2>\n");
    let all: Vec<(&str, &stats::RejectedJob)> = runs
        .iter()
        .flat_map(|r| r.stats.rejected.iter().map(|j| (r.label.as_str(), j)))
        .collect();
    if all.is_empty() {
        o.push_str("<p>None: every job could run on this cluster.</p>\n");
    } else {
        let _ = writeln!(
            o,
            "<p>{} job(s) taken out as ones that can never run here{}.</p>",
            all.len(),
            if all.len() > REJECTED_LISTED {
                format!("; the first {REJECTED_LISTED} below, all in <code>rejected.csv</code>")
            } else {
                String::new()
            }
        );
        o.push_str("<table><tr><th class=\"n\">run</th><th class=\"n\">job</th><th class=\"n\">user</th><th>procs</th><th>walltime</th><th class=\"n\">reason</th></tr>\n");
        for (label, j) in all.iter().take(REJECTED_LISTED) {
            let _ = writeln!(
                o,
                "<tr><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td>{}</td><td>{}</td><td class=\"n\">{}</td></tr>",
                esc(label),
                esc(&j.id),
                esc(&j.user),
                j.procs,
                j.walltime.map_or("-".into(), fmt_duration),
                esc(&j.reason)
            );
        }
        o.push_str("</table>\n");
    }
    // Says, once the page is laid out, how many plots and lines it drew
    // (the browser test reads it back).
    o.push_str("<script>window.addEventListener('load',function(){var p=document.querySelectorAll('svg.plot');var l=0;p.forEach(function(s){l+=s.querySelectorAll('polyline').length;});document.body.setAttribute('data-rendered','plots='+p.length+' lines='+l);});</script>\n");
    o.push_str("</body></html>\n");
    o
}

/// One configuration to run.
pub struct Entry {
    /// Its label ([`labels`]).
    pub label: String,
    /// The configuration.
    pub config: crate::config::Config,
    /// Simulation settings under it.
    pub options: super::run::SimOptions,
    /// Operators' commands, as parsed under it.
    pub operators: Vec<super::run::OperatorEvent>,
    /// Their lines, for the summary.
    pub operator_lines: Vec<String>,
}

/// A finished run.
pub struct Finished {
    /// What the report shows.
    pub compared: Compared,
    /// The run itself (for `jobs.csv` and the charts).
    pub result: super::run::SimResult,
}

/// Runs every entry on the same jobs and nodes, in parallel (rayon's
/// pool, one run per core), each exactly as `simulate` runs it alone.
/// `tick` is called with the number of jobs each run finished since its
/// last call (for one progress bar over every run). The time series of
/// every run are over the same bins: from the first submission to the
/// latest end of any run.
pub fn run_all(
    entries: &[Entry],
    nodes: &[crate::model::Node],
    jobs: &[super::SimJob],
    labels: &super::report::Labels,
    tick: &(dyn Fn(u64) + Sync),
) -> Result<Vec<Finished>, String> {
    use rayon::prelude::*;
    let runs: Vec<(Summary, super::run::SimResult)> = entries
        .par_iter()
        .map(|e| {
            let mut last = 0u64;
            let mut calls = 0u64;
            let res = super::run::simulate_with_operators(
                &e.config,
                nodes,
                jobs,
                &e.operators,
                &e.options,
                |p| {
                    calls += 1;
                    if calls % 256 == 0 {
                        tick(p.finished as u64 - last);
                        last = p.finished as u64;
                    }
                },
            )
            .map_err(|err| format!("{}: {err}", e.config.source))?;
            tick(jobs.len() as u64 - last);
            let l = super::report::Labels {
                config: e.config.source.clone(),
                ..labels.clone()
            };
            let mut s = super::report::summarize(&e.config, nodes, jobs, &res, e.options.clock, &l);
            super::report::add_operators(&mut s, &e.operator_lines, &e.operators, &res);
            Ok((s, res))
        })
        .collect::<Result<_, String>>()?;
    let from = runs.first().map_or(0, |r| r.0.start);
    let to = runs.iter().map(|r| r.0.end).max().unwrap_or(from);
    Ok(entries
        .iter()
        .zip(runs)
        .map(|(e, (summary, result))| {
            let mut stats = RunStats::of(&e.config, jobs, &result, &summary);
            stats.series =
                stats::TimeSeries::of(jobs, &result, summary.procs, from, to, stats::SERIES_BINS);
            Finished {
                compared: Compared {
                    label: e.label.clone(),
                    config: e.config.source.clone(),
                    summary,
                    stats,
                },
                result,
            }
        })
        .collect())
}
