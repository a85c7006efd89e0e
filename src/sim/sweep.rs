//! `mauictl sweep`: a grid of maui.cfg parameter values × one or more
//! traces, every point simulated, the configurations ranked by a metric.
//!
//! # Grid file
//!
//! A maui.cfg fragment. Ordinary lines are added to the base
//! configuration (`-C FILE`, else the embedded default) in every point;
//! a line `SWEEP NAME VALUE...` gives the values of one parameter, split
//! on whitespace, or on `|` when the line has one (for values with
//! spaces: `SWEEP CLASSCFG[batch] PRIORITY=10 | PRIORITY=100 MAXJOB=4`).
//! The configurations are every combination, the first SWEEP line varying
//! slowest; each is the base, the fixed lines, then `NAME VALUE` per SWEEP
//! line. Every configuration is parsed before anything runs: an error
//! names the grid file's line of the value.
//!
//! # Points
//!
//! A point is one configuration on one trace (configurations outer,
//! traces inner), and a whole `simulate` run. [`prepare`] writes the
//! sweep's directory: `sweep.json` (the manifest: every point's
//! configuration text, trace and options) and `points/`. Each point runs
//! from the manifest alone ([`run_point`], `mauictl sweep-point DIR N`),
//! writing `points/N.json`, so the points can run anywhere the directory
//! is shared: here in parallel (rayon), or as a Slurm or Torque job array
//! (one task per point); [`gather`] (`mauictl sweep-gather DIR`) then
//! reads them all into `sweep.csv`, `ranking.csv` and `report.html`.

use super::report::Summary;
use super::svg::esc;
use crate::config::Config;
use crate::model::time::fmt_duration;
use serde::{Deserialize, Serialize};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// One swept parameter.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Axis {
    /// The parameter as written (`XFACTORWEIGHT`, `CLASSCFG[batch]`).
    pub name: String,
    /// Its values, in order.
    pub values: Vec<String>,
    /// The grid file's line.
    pub line: usize,
}

/// A parsed grid file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GridSpec {
    /// Lines added to every configuration, with their line numbers.
    pub fixed: Vec<(usize, String)>,
    /// The swept parameters.
    pub axes: Vec<Axis>,
}

/// Reads a grid file (`source` names it in errors).
pub fn parse_grid(text: &str, source: &str) -> Result<GridSpec, String> {
    let mut g = GridSpec {
        fixed: Vec::new(),
        axes: Vec::new(),
    };
    for (n, raw) in text.lines().enumerate() {
        let line = raw.trim();
        let no = n + 1;
        let first = line.split_whitespace().next().unwrap_or("");
        if !first.eq_ignore_ascii_case("SWEEP") {
            if !line.is_empty() && !line.starts_with('#') {
                g.fixed.push((no, line.to_string()));
            }
            continue;
        }
        let rest = line[first.len()..].trim();
        let Some((name, vals)) = rest.split_once(char::is_whitespace) else {
            return Err(format!(
                "{source}:{no}: SWEEP needs a parameter and at least one value: \"{line}\""
            ));
        };
        let values: Vec<String> = if vals.contains('|') {
            vals.split('|').map(|v| v.trim().to_string()).collect()
        } else {
            vals.split_whitespace().map(String::from).collect()
        };
        if values.iter().any(|v| v.is_empty()) || values.is_empty() {
            return Err(format!("{source}:{no}: an empty value in \"{line}\""));
        }
        if let Some(a) = g.axes.iter().find(|a| a.name.eq_ignore_ascii_case(name)) {
            return Err(format!(
                "{source}:{no}: {name} is already swept on line {}",
                a.line
            ));
        }
        g.axes.push(Axis {
            name: name.to_string(),
            values,
            line: no,
        });
    }
    if g.axes.is_empty() {
        return Err(format!(
            "{source}: no SWEEP line: nothing to vary (SWEEP NAME VALUE VALUE ...)"
        ));
    }
    Ok(g)
}

/// One configuration of the grid: its values, by axis.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GridConfig {
    /// `values[k]` is the value of axis `k`.
    pub values: Vec<String>,
    /// The whole configuration text.
    pub text: String,
}

impl GridSpec {
    /// Every configuration, the first axis varying slowest, each checked
    /// by the configuration parser: `base` is the base configuration's
    /// text, `source` the grid file's name for errors.
    pub fn configs(&self, base: &str, source: &str) -> Result<Vec<GridConfig>, String> {
        let count: usize = self.axes.iter().map(|a| a.values.len()).product();
        let mut out = Vec::with_capacity(count);
        for i in 0..count {
            let mut rem = i;
            let mut values = vec![String::new(); self.axes.len()];
            for (k, a) in self.axes.iter().enumerate().rev() {
                values[k] = a.values[rem % a.values.len()].clone();
                rem /= a.values.len();
            }
            let mut text = base.to_string();
            if !text.is_empty() && !text.ends_with('\n') {
                text.push('\n');
            }
            let fixed_from = text.lines().count();
            for (_, l) in &self.fixed {
                text.push_str(l);
                text.push('\n');
            }
            let swept_from = text.lines().count();
            for (a, v) in self.axes.iter().zip(&values) {
                let _ = writeln!(text, "{} {v}", a.name);
            }
            let loaded = Config::parse(&text, "sweep");
            if let Some(d) = loaded.errors().next() {
                // Point the error at the grid file's line.
                let line = d.line as usize;
                let where_ = if line > swept_from {
                    let k = line - swept_from - 1;
                    let a = &self.axes[k];
                    format!("{source}:{}: {} {}", a.line, a.name, values[k])
                } else if line > fixed_from {
                    format!("{source}:{}", self.fixed[line - fixed_from - 1].0)
                } else {
                    format!("the base configuration, line {}", d.line)
                };
                return Err(format!("{where_}: {}", d.message));
            }
            out.push(GridConfig { values, text });
        }
        Ok(out)
    }
}

/// How each trace is read and the cluster chosen (as `simulate`'s options).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TraceOptions {
    /// Cluster file for every trace (else the SWF header's, or the demo's).
    pub cluster: Option<PathBuf>,
    /// Keep the first N jobs.
    pub jobs: Option<usize>,
    /// Skip malformed lines.
    pub lenient: bool,
}

/// The trace name that stands for the bundled demo.
pub const DEMO: &str = "demo";

/// The ranking metrics: name, what it is, and whether higher is better.
pub const METRICS: [(&str, &str, bool); 9] = [
    ("mean_bounded_slowdown", "mean bounded slowdown", false),
    ("mean_wait", "mean wait, s", false),
    ("median_wait", "median wait, s", false),
    ("p95_wait", "95th percentile wait, s", false),
    ("max_wait", "longest wait, s", false),
    ("utilization", "processor utilization, 0-1", true),
    ("makespan", "makespan, s", false),
    ("backfilled_share", "share of jobs backfilled, 0-1", true),
    ("lost_proc_hours", "processor-hours lost to requeues", false),
];

/// A metric's value in a summary.
pub fn metric(s: &Summary, name: &str) -> Option<f64> {
    Some(match name {
        "mean_bounded_slowdown" => s.mean_bounded_slowdown,
        "mean_wait" => s.wait.mean,
        "median_wait" => s.wait.median,
        "p95_wait" => s.wait.p95,
        "max_wait" => s.wait.max,
        "utilization" => s.utilization,
        "makespan" => s.makespan as f64,
        "backfilled_share" => s.backfilled_share,
        "lost_proc_hours" => s.lost_proc_hours + 0.0,
        _ => return None,
    })
}

/// Checks a metric name.
pub fn check_metric(name: &str) -> Result<(), String> {
    if METRICS.iter().any(|m| m.0 == name) {
        Ok(())
    } else {
        Err(format!(
            "unknown metric \"{name}\": one of {}",
            METRICS.map(|m| m.0).join(", ")
        ))
    }
}

/// The manifest, `sweep.json`: everything a point needs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    /// The grid file, as given.
    pub grid_file: String,
    /// The base configuration's name.
    pub base: String,
    /// The swept parameters.
    pub axes: Vec<Axis>,
    /// The configurations.
    pub configs: Vec<GridConfig>,
    /// The traces (paths, or [`DEMO`]).
    pub traces: Vec<String>,
    /// How they are read.
    pub options: TraceOptions,
    /// The ranking metric.
    pub metric: String,
}

impl Manifest {
    /// Points: configurations × traces.
    pub fn points(&self) -> usize {
        self.configs.len() * self.traces.len()
    }

    /// Point `i`'s configuration and trace indexes.
    pub fn point(&self, i: usize) -> (usize, usize) {
        (i / self.traces.len(), i % self.traces.len())
    }

    /// A configuration's short name: `XFACTORWEIGHT=10 FSWEIGHT=1`.
    pub fn label(&self, c: usize) -> String {
        self.axes
            .iter()
            .zip(&self.configs[c].values)
            .map(|(a, v)| format!("{}={v}", a.name))
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// Reads the manifest of a sweep directory.
pub fn read_manifest(dir: &Path) -> Result<Manifest, String> {
    let p = dir.join("sweep.json");
    let text = std::fs::read_to_string(&p).map_err(|e| format!("{}: {e}", p.display()))?;
    serde_json::from_str(&text).map_err(|e| format!("{}: {e}", p.display()))
}

/// Writes the sweep directory: `sweep.json` and an empty `points/`.
pub fn prepare(dir: &Path, m: &Manifest) -> Result<(), String> {
    let fail = |e: std::io::Error| format!("{}: {e}", dir.display());
    std::fs::create_dir_all(dir.join("points")).map_err(fail)?;
    let mut text = serde_json::to_string_pretty(m).map_err(|e| e.to_string())?;
    text.push('\n');
    crate::util::atomic_write(&dir.join("sweep.json"), text.as_bytes()).map_err(fail)
}

/// A point's result, `points/N.json`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PointResult {
    /// The point.
    pub point: usize,
    /// Its configuration (index).
    pub config: usize,
    /// Its trace.
    pub trace: String,
    /// Jobs completed, rejected and never started.
    pub completed: usize,
    /// Jobs rejected.
    pub rejected: usize,
    /// Jobs never started.
    pub unfinished: usize,
    /// Every metric, by name ([`METRICS`]).
    pub metrics: Vec<(String, f64)>,
}

impl PointResult {
    /// A metric's value.
    pub fn get(&self, name: &str) -> Option<f64> {
        self.metrics.iter().find(|m| m.0 == name).map(|m| m.1)
    }
}

fn point_file(dir: &Path, i: usize) -> PathBuf {
    dir.join("points").join(format!("{i}.json"))
}

/// Runs point `i` of the sweep in `dir` and writes `points/i.json`.
pub fn run_point(dir: &Path, m: &Manifest, i: usize) -> Result<PointResult, String> {
    use super::{cluster, demo, run, workload, MapOptions, ReadOptions};
    if i >= m.points() {
        return Err(format!(
            "{}: point {i} does not exist: the sweep has {} (0 to {})",
            dir.display(),
            m.points(),
            m.points().saturating_sub(1)
        ));
    }
    let (c, t) = m.point(i);
    let trace = &m.traces[t];
    let mut loaded = Config::parse(&m.configs[c].text, &format!("{} point {i}", m.grid_file));
    if let Some(e) = loaded.errors().next() {
        return Err(e.to_string());
    }
    loaded.use_host_zone();
    let cfg = loaded.config;
    let map = MapOptions::default();
    let mut w = if trace == DEMO {
        demo::workload_with(&map)
    } else {
        workload::load_path(
            Path::new(trace),
            ReadOptions {
                lenient: m.options.lenient,
            },
            &map,
        )
        .map_err(|e| e.to_string())?
    };
    w.select(&workload::Selection {
        start_at: None,
        jobs: m.options.jobs,
        scale_load: None,
    })?;
    let nodes = match (&m.options.cluster, trace == DEMO) {
        (Some(p), _) => cluster::load_cluster(p).map_err(|e| e.to_string())?,
        (None, true) => demo::cluster(),
        (None, false) => cluster::synthesize(&w.header, &w.jobs).ok_or_else(|| {
            format!("{trace}: the header gives neither MaxNodes nor MaxProcs; use --cluster FILE")
        })?,
    };
    let opts = run::SimOptions::default();
    let res = run::simulate(&cfg, &nodes, &w.jobs, &opts, |_| {}).map_err(|e| e.to_string())?;
    let s = super::report::summarize(
        &cfg,
        &nodes,
        &w.jobs,
        &res,
        opts.clock,
        &super::report::Labels::default(),
    );
    let r = PointResult {
        point: i,
        config: c,
        trace: trace.clone(),
        completed: s.completed,
        rejected: s.rejected,
        unfinished: s.unfinished,
        metrics: METRICS
            .iter()
            .filter_map(|(n, _, _)| metric(&s, n).map(|v| (n.to_string(), v)))
            .collect(),
    };
    let mut text = serde_json::to_string_pretty(&r).map_err(|e| e.to_string())?;
    text.push('\n');
    let p = point_file(dir, i);
    crate::util::atomic_write(&p, text.as_bytes()).map_err(|e| format!("{}: {e}", p.display()))?;
    Ok(r)
}

/// Runs every point here, in parallel on rayon's pool; `done` is called
/// after each.
pub fn run_all(dir: &Path, m: &Manifest, done: &(dyn Fn() + Sync)) -> Result<(), String> {
    use rayon::prelude::*;
    (0..m.points())
        .into_par_iter()
        .try_for_each(|i| run_point(dir, m, i).map(|_| done()))
}

/// One configuration's line of the ranking.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Ranked {
    /// Rank, from 1.
    pub rank: usize,
    /// Configuration index.
    pub config: usize,
    /// Its values, by axis.
    pub values: Vec<String>,
    /// The metric on each trace, in the manifest's order.
    pub per_trace: Vec<f64>,
    /// Their mean: what is ranked.
    pub mean: f64,
}

/// The sweep's results: every point's, and the ranking.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Gathered {
    /// The metric ranked.
    pub metric: String,
    /// Every point, in order.
    pub points: Vec<PointResult>,
    /// Configurations, best first.
    pub ranking: Vec<Ranked>,
}

/// Reads every point's result; fails naming the points missing.
pub fn gather(dir: &Path, m: &Manifest) -> Result<Gathered, String> {
    let mut points = Vec::with_capacity(m.points());
    let mut missing = Vec::new();
    for i in 0..m.points() {
        let p = point_file(dir, i);
        match std::fs::read_to_string(&p) {
            Ok(t) => points.push(
                serde_json::from_str::<PointResult>(&t)
                    .map_err(|e| format!("{}: {e}", p.display()))?,
            ),
            Err(_) => missing.push(i),
        }
    }
    if !missing.is_empty() {
        return Err(format!(
            "{}: {} of {} points have no result (points {}); see their logs in {}",
            dir.display(),
            missing.len(),
            m.points(),
            missing
                .iter()
                .map(|i| i.to_string())
                .collect::<Vec<_>>()
                .join(", "),
            dir.join("logs").display()
        ));
    }
    let higher = METRICS
        .iter()
        .find(|x| x.0 == m.metric)
        .is_some_and(|x| x.2);
    let mut ranking: Vec<Ranked> = (0..m.configs.len())
        .map(|c| {
            let per_trace: Vec<f64> = (0..m.traces.len())
                .map(|t| {
                    points[c * m.traces.len() + t]
                        .get(&m.metric)
                        .unwrap_or(f64::NAN)
                })
                .collect();
            let mean = per_trace.iter().sum::<f64>() / per_trace.len().max(1) as f64;
            Ranked {
                rank: 0,
                config: c,
                values: m.configs[c].values.clone(),
                per_trace,
                mean,
            }
        })
        .collect();
    ranking.sort_by(|a, b| {
        let o = a.mean.total_cmp(&b.mean);
        (if higher { o.reverse() } else { o }).then(a.config.cmp(&b.config))
    });
    for (k, r) in ranking.iter_mut().enumerate() {
        r.rank = k + 1;
    }
    Ok(Gathered {
        metric: m.metric.clone(),
        points,
        ranking,
    })
}

fn csv_field(s: &str) -> String {
    super::report::csv_field(s)
}

/// `sweep.csv`: one line per point, the swept values and every metric.
pub fn sweep_csv(m: &Manifest, g: &Gathered) -> String {
    let mut o = String::from("point,trace");
    for a in &m.axes {
        let _ = write!(o, ",{}", csv_field(&a.name));
    }
    o.push_str(",completed,rejected,unfinished");
    for (n, _, _) in METRICS {
        let _ = write!(o, ",{n}");
    }
    o.push('\n');
    for p in &g.points {
        let _ = write!(o, "{},{}", p.point, csv_field(&p.trace));
        for v in &m.configs[p.config].values {
            let _ = write!(o, ",{}", csv_field(v));
        }
        let _ = write!(o, ",{},{},{}", p.completed, p.rejected, p.unfinished);
        for (n, _, _) in METRICS {
            let _ = write!(
                o,
                ",{}",
                p.get(n).map_or(String::new(), |v| format!("{v:.6}"))
            );
        }
        o.push('\n');
    }
    o
}

/// `ranking.csv`: configurations best first.
pub fn ranking_csv(m: &Manifest, g: &Gathered) -> String {
    let mut o = String::from("rank");
    for a in &m.axes {
        let _ = write!(o, ",{}", csv_field(&a.name));
    }
    for t in &m.traces {
        let _ = write!(o, ",{}", csv_field(&format!("{} {}", g.metric, t)));
    }
    let _ = writeln!(o, ",{} mean", g.metric);
    for r in &g.ranking {
        let _ = write!(o, "{}", r.rank);
        for v in &r.values {
            let _ = write!(o, ",{}", csv_field(v));
        }
        for v in &r.per_trace {
            let _ = write!(o, ",{v:.6}");
        }
        let _ = writeln!(o, ",{:.6}", r.mean);
    }
    o
}

/// A metric's value as people read it.
fn show(metric: &str, v: f64) -> String {
    match metric {
        "mean_wait" | "median_wait" | "p95_wait" | "max_wait" | "makespan" => {
            fmt_duration(v.round() as i64)
        }
        "utilization" | "backfilled_share" => format!("{:.2} %", 100.0 * v),
        _ => format!("{v:.2}"),
    }
}

/// The ranking as a table (the first `top` configurations).
pub fn ranking_text(m: &Manifest, g: &Gathered, top: usize) -> String {
    let mut o = String::new();
    let _ = writeln!(
        o,
        "{} configurations x {} trace(s) = {} points, ranked by {} ({})",
        m.configs.len(),
        m.traces.len(),
        m.points(),
        g.metric,
        if METRICS.iter().any(|x| x.0 == g.metric && x.2) {
            "higher is better"
        } else {
            "lower is better"
        }
    );
    let widths: Vec<usize> = m
        .axes
        .iter()
        .enumerate()
        .map(|(k, a)| {
            m.configs
                .iter()
                .map(|c| c.values[k].len())
                .max()
                .unwrap_or(0)
                .max(a.name.len())
        })
        .collect();
    let _ = write!(o, "\n{:>4}", "rank");
    for (a, w) in m.axes.iter().zip(&widths) {
        let _ = write!(o, "  {:<w$}", a.name);
    }
    for t in &m.traces {
        let name = Path::new(t)
            .file_name()
            .map_or(t.clone(), |n| n.to_string_lossy().into_owned());
        let _ = write!(o, "  {:>14}", name.chars().take(14).collect::<String>());
    }
    if m.traces.len() > 1 {
        let _ = write!(o, "  {:>14}", "mean");
    }
    o.push('\n');
    for r in g.ranking.iter().take(top) {
        let _ = write!(o, "{:>4}", r.rank);
        for (v, w) in r.values.iter().zip(&widths) {
            let _ = write!(o, "  {v:<w$}");
        }
        for v in &r.per_trace {
            let _ = write!(o, "  {:>14}", show(&g.metric, *v));
        }
        if m.traces.len() > 1 {
            let _ = write!(o, "  {:>14}", show(&g.metric, r.mean));
        }
        o.push('\n');
    }
    if g.ranking.len() > top {
        let _ = writeln!(o, "... {} more in ranking.csv", g.ranking.len() - top);
    }
    o
}

/// The ranking as a bar chart: one bar per configuration, best first.
pub fn ranking_svg(m: &Manifest, g: &Gathered) -> String {
    let n = g.ranking.len().max(1);
    let bar = 18.0;
    let (l, r, t) = (300.0, 110.0, 40.0);
    let w = 960.0;
    let h = t + bar * n as f64 + 30.0;
    let pw = w - l - r;
    let top = g
        .ranking
        .iter()
        .map(|x| x.mean)
        .filter(|v| v.is_finite())
        .fold(0f64, f64::max)
        .max(f64::MIN_POSITIVE);
    let mut o = String::new();
    let _ = writeln!(
        o,
        r#"<svg xmlns="http://www.w3.org/2000/svg" class="plot" width="{w}" height="{h}" viewBox="0 0 {w} {h}" font-family="sans-serif" font-size="11">"#
    );
    let _ = writeln!(o, r#"<rect width="{w}" height="{h}" fill="white"/>"#);
    let _ = writeln!(
        o,
        r#"<text x="10" y="20" font-size="13">{} by configuration (mean over {} trace(s)), best first</text>"#,
        esc(&g.metric),
        m.traces.len()
    );
    for (k, x) in g.ranking.iter().enumerate() {
        let y = t + bar * k as f64;
        let len = if x.mean.is_finite() {
            pw * x.mean / top
        } else {
            0.0
        };
        let _ = writeln!(
            o,
            r##"<text x="{:.1}" y="{:.1}" text-anchor="end">{}</text><rect x="{l}" y="{:.1}" width="{len:.1}" height="{:.1}" fill="{}"><title>{}</title></rect><text x="{:.1}" y="{:.1}">{}</text>"##,
            l - 6.0,
            y + bar * 0.7,
            esc(&format!("{}. {}", x.rank, m.label(x.config))),
            y + 2.0,
            bar - 4.0,
            if k == 0 { "#2ca02c" } else { "#1f77b4" },
            esc(&show(&g.metric, x.mean)),
            l + len + 4.0,
            y + bar * 0.7,
            esc(&show(&g.metric, x.mean))
        );
    }
    o.push_str("</svg>\n");
    o
}

/// `report.html`: the ranking table and chart, self-contained.
pub fn report_html(m: &Manifest, g: &Gathered) -> String {
    let mut o = String::new();
    let title = format!("mauisched sweep: {} ranked by {}", m.grid_file, g.metric);
    let _ = writeln!(
        o,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{}</title><style>body{{font-family:sans-serif;margin:1.5em}}table{{border-collapse:collapse}}th,td{{border:1px solid #ccc;padding:2px 8px;text-align:right}}th{{background:#f0f0f0}}</style></head><body>",
        esc(&title)
    );
    let _ = writeln!(
        o,
        "<h1>{}</h1>\n<p>Base configuration <code>{}</code>; traces: {}.</p>",
        esc(&title),
        esc(&m.base),
        m.traces
            .iter()
            .map(|t| format!("<code>{}</code>", esc(t)))
            .collect::<Vec<_>>()
            .join(", ")
    );
    o.push_str(&ranking_svg(m, g));
    o.push_str("<table><tr><th>rank</th>");
    for a in &m.axes {
        let _ = write!(o, "<th>{}</th>", esc(&a.name));
    }
    for t in &m.traces {
        let _ = write!(o, "<th>{}</th>", esc(t));
    }
    o.push_str("<th>mean</th></tr>\n");
    for r in &g.ranking {
        let _ = write!(o, "<tr><td>{}</td>", r.rank);
        for v in &r.values {
            let _ = write!(o, "<td>{}</td>", esc(v));
        }
        for v in &r.per_trace {
            let _ = write!(o, "<td>{}</td>", esc(&show(&g.metric, *v)));
        }
        let _ = writeln!(o, "<td>{}</td></tr>", esc(&show(&g.metric, r.mean)));
    }
    o.push_str("</table>\n<p>Every metric of every point is in <code>sweep.csv</code>.</p>\n</body></html>\n");
    o
}

/// Writes `sweep.csv`, `ranking.csv`, `ranking.svg` and `report.html`
/// into the sweep's directory; returns the ranking text.
pub fn write_results(dir: &Path, m: &Manifest, g: &Gathered, top: usize) -> Result<String, String> {
    for (name, body) in [
        ("sweep.csv", sweep_csv(m, g)),
        ("ranking.csv", ranking_csv(m, g)),
        ("ranking.svg", ranking_svg(m, g)),
        ("report.html", report_html(m, g)),
    ] {
        let p = dir.join(name);
        crate::util::atomic_write(&p, body.as_bytes())
            .map_err(|e| format!("{}: {e}", p.display()))?;
    }
    Ok(ranking_text(m, g, top))
}

#[cfg(test)]
#[path = "sweep_tests.rs"]
mod tests;
