//! The two plots of a simulation, as plain SVG text (no plotting library:
//! two charts of rectangles and one polyline do not need one).
//!
//! - [`utilization`]: busy processors over time, in bins of equal length
//!   (each bin's value is its time-weighted mean), with the run's mean.
//! - [`line_chart`]: one line per run over time (`simulate --compare`).
//! - [`node_chart`]: a node × time chart of a window, like the figures of
//!   the guide's backfill section: one row per node, one rectangle per job
//!   on it, its height the job's share of the node's processors; jobs
//!   started in priority order are blue, backfilled jobs orange.

use super::report::iso_time;
use super::run::JobRecord;
use super::workload::SimJob;
use crate::model::{Node, Secs, Time};
use std::fmt::Write as _;

pub(crate) fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// A round tick step (seconds) giving about `want` ticks over `span`.
fn tick_step(span: Secs, want: i64) -> Secs {
    const STEPS: [Secs; 14] = [
        60,
        300,
        900,
        1800,
        3600,
        3 * 3600,
        6 * 3600,
        12 * 3600,
        86_400,
        2 * 86_400,
        7 * 86_400,
        14 * 86_400,
        30 * 86_400,
        91 * 86_400,
    ];
    let raw = span / want.max(1);
    STEPS
        .iter()
        .copied()
        .find(|&s| s >= raw)
        .unwrap_or(365 * 86_400)
}

fn tick_label(offset: Secs, step: Secs) -> String {
    if step >= 86_400 {
        format!("{}d", offset / 86_400)
    } else {
        format!("{}h", offset / 3600)
    }
}

/// Time ticks under a plot area `(left, top, width, height)` spanning
/// `span` seconds from `from`, and the axis label at height `label_y`.
fn time_axis(o: &mut String, area: (f64, f64, f64, f64), from: Time, span: Secs, label_y: f64) {
    let (l, t, pw, ph) = area;
    let step = tick_step(span, 10);
    let mut off = 0;
    while off <= span {
        let x = l + pw * off as f64 / span as f64;
        let _ = writeln!(
            o,
            r##"<line x1="{x:.1}" y1="{:.1}" x2="{x:.1}" y2="{:.1}" stroke="#999"/><text x="{x:.1}" y="{:.1}" text-anchor="middle">{}</text>"##,
            t + ph,
            t + ph + 4.0,
            t + ph + 16.0,
            tick_label(off, step)
        );
        off += step;
    }
    let _ = writeln!(
        o,
        r#"<text x="{:.1}" y="{:.1}" text-anchor="end">time since {} UTC</text>"#,
        l + pw,
        label_y,
        iso_time(from)
    );
}

/// Busy processors as a step function: sorted (time, delta) changes.
fn busy_steps(jobs: &[SimJob], records: &[Option<JobRecord>]) -> Vec<(Time, i64)> {
    let mut ev: Vec<(Time, i64)> = Vec::new();
    for (j, r) in jobs.iter().zip(records) {
        if let Some(r) = r {
            let p = j.job.procs() as i64;
            ev.push((r.start, p));
            ev.push((r.end, -p));
        }
    }
    ev.sort_unstable();
    ev
}

/// Time-weighted mean of busy processors in each of `bins` bins over
/// `[from, to)`.
pub fn utilization_bins(
    jobs: &[SimJob],
    records: &[Option<JobRecord>],
    from: Time,
    to: Time,
    bins: usize,
) -> Vec<f64> {
    step_means(busy_steps(jobs, records), from, to, bins)
}

/// Time-weighted mean, in each of `bins` bins over `[from, to)`, of a level
/// that starts at 0 and changes by `delta` at each `(time, delta)` of
/// `steps` (sorted by time).
pub fn step_means(steps: Vec<(Time, i64)>, from: Time, to: Time, bins: usize) -> Vec<f64> {
    let span = (to - from).max(1);
    let bins = bins.max(1);
    let mut acc = vec![0f64; bins];
    let edge = |k: usize| from + (span as i128 * k as i128 / bins as i128) as Time;
    let mut level: i64 = 0;
    let mut t = from;
    let add = |acc: &mut Vec<f64>, a: Time, b: Time, level: i64| {
        if b <= a || level == 0 {
            return;
        }
        // Spread [a, b) at `level` over the bins it covers.
        let mut k = ((a - from) as i128 * bins as i128 / span as i128) as usize;
        let mut x = a;
        while x < b && k < bins {
            let e = edge(k + 1).min(b);
            acc[k] += level as f64 * (e - x) as f64;
            x = e;
            k += 1;
        }
    };
    for (time, delta) in steps {
        let time = time.clamp(from, to);
        add(&mut acc, t, time, level);
        t = time;
        level += delta;
    }
    add(&mut acc, t, to, level);
    (0..bins)
        .map(|k| {
            let w = (edge(k + 1) - edge(k)).max(1) as f64;
            acc[k] / w
        })
        .collect()
}

/// Colours of the series of a [`line_chart`], in order.
pub const SERIES_COLOURS: [&str; 8] = [
    "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf",
];

/// One line of a [`line_chart`]: a value per bin, `None` where there is
/// none (the line breaks there).
pub struct Series<'a> {
    /// Legend label.
    pub label: &'a str,
    /// Values, one per bin of equal length over the chart's time span.
    pub values: &'a [Option<f64>],
}

/// A line chart over time with one line per series (the comparison
/// plots): `y_max` is the top of the y axis (at least the largest value),
/// `unit` follows the y tick labels (`%`, ` jobs`, `h`), and `scale`
/// multiplies values for the tick labels (100 for a 0-1 share shown in %).
pub fn line_chart(
    title: &str,
    from: Time,
    to: Time,
    series: &[Series],
    unit: &str,
    scale: f64,
) -> String {
    let (w, h) = (960.0, 360.0);
    let (l, r, t, b) = (70.0, 20.0, 40.0, 56.0);
    let pw = w - l - r;
    let ph = h - t - b;
    let span = (to - from).max(1);
    let top = series
        .iter()
        .flat_map(|s| s.values.iter().flatten())
        .fold(0f64, |a, &v| a.max(v));
    let y_max = nice_ceiling(top * scale) / scale;
    let mut o = String::new();
    let _ = writeln!(
        o,
        r#"<svg xmlns="http://www.w3.org/2000/svg" class="plot" width="{w}" height="{h}" viewBox="0 0 {w} {h}" font-family="sans-serif" font-size="11">"#
    );
    let _ = writeln!(o, r#"<rect width="{w}" height="{h}" fill="white"/>"#);
    let _ = writeln!(
        o,
        r#"<text x="{l}" y="20" font-size="13">{}</text>"#,
        esc(title)
    );
    for k in 0..=4 {
        let y = t + ph - ph * k as f64 / 4.0;
        let v = y_max * scale * k as f64 / 4.0;
        let label = if v.fract() == 0.0 || v >= 100.0 {
            format!("{v:.0}")
        } else {
            format!("{v:.2}")
        };
        let _ = writeln!(
            o,
            r##"<line x1="{l}" y1="{y:.1}" x2="{:.1}" y2="{y:.1}" stroke="#ddd"/><text x="{:.1}" y="{:.1}" text-anchor="end">{label}{}</text>"##,
            l + pw,
            l - 6.0,
            y + 4.0,
            esc(unit)
        );
    }
    time_axis(&mut o, (l, t, pw, ph), from, span, t + ph + 30.0);
    for (i, s) in series.iter().enumerate() {
        let colour = SERIES_COLOURS[i % SERIES_COLOURS.len()];
        let n = s.values.len().max(1);
        // One polyline per unbroken run of values, through bin centres.
        let mut runs: Vec<String> = Vec::new();
        let mut cur = String::new();
        for (k, v) in s.values.iter().enumerate() {
            match v {
                Some(v) => {
                    let x = l + pw * (k as f64 + 0.5) / n as f64;
                    let y = t + ph - ph * (v / y_max.max(f64::MIN_POSITIVE)).clamp(0.0, 1.0);
                    let _ = write!(
                        cur,
                        "{}{x:.1},{y:.1}",
                        if cur.is_empty() { "" } else { " " }
                    );
                }
                None if !cur.is_empty() => runs.push(std::mem::take(&mut cur)),
                None => {}
            }
        }
        if !cur.is_empty() {
            runs.push(cur);
        }
        for pts in runs {
            let _ = writeln!(
                o,
                r#"<polyline points="{pts}" fill="none" stroke="{colour}" stroke-width="1.4" data-series="{}"/>"#,
                esc(s.label)
            );
        }
        let lx = l + 10.0 + 150.0 * i as f64;
        let ly = h - 8.0;
        let _ = writeln!(
            o,
            r#"<line x1="{lx:.1}" y1="{:.1}" x2="{:.1}" y2="{:.1}" stroke="{colour}" stroke-width="3"/><text x="{:.1}" y="{ly:.1}">{}</text>"#,
            ly - 4.0,
            lx + 18.0,
            ly - 4.0,
            lx + 22.0,
            esc(s.label)
        );
    }
    let _ = writeln!(
        o,
        r##"<rect x="{l}" y="{t}" width="{pw}" height="{ph}" fill="none" stroke="#333"/>"##
    );
    o.push_str("</svg>\n");
    o
}

/// The smallest of 1, 2, 2.5, 5 × 10^k at least `v` (1 for nothing).
fn nice_ceiling(v: f64) -> f64 {
    if v <= 0.0 || !v.is_finite() {
        return 1.0;
    }
    let p = 10f64.powf(v.log10().floor());
    [1.0, 2.0, 2.5, 5.0, 10.0]
        .iter()
        .map(|m| m * p)
        .find(|&c| c >= v * (1.0 - 1e-12))
        .unwrap_or(10.0 * p)
}

/// The utilization-over-time plot.
pub fn utilization(
    jobs: &[SimJob],
    records: &[Option<JobRecord>],
    procs: u64,
    from: Time,
    to: Time,
    mean: f64,
    title: &str,
) -> String {
    let (w, h) = (960.0, 360.0);
    let (l, r, t, b) = (60.0, 20.0, 40.0, 40.0);
    let pw = w - l - r;
    let ph = h - t - b;
    let bins = 480usize;
    let vals = utilization_bins(jobs, records, from, to, bins);
    let procs = procs.max(1) as f64;
    let span = (to - from).max(1);
    let mut o = String::new();
    let _ = writeln!(
        o,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" font-family="sans-serif" font-size="11">"#
    );
    let _ = writeln!(o, r#"<rect width="{w}" height="{h}" fill="white"/>"#);
    let _ = writeln!(
        o,
        r#"<text x="{l}" y="20" font-size="13">{}</text>"#,
        esc(title)
    );
    // Grid and y axis (0, 25, 50, 75, 100 %).
    for k in 0..=4 {
        let y = t + ph - ph * k as f64 / 4.0;
        let _ = writeln!(
            o,
            r##"<line x1="{l}" y1="{y:.1}" x2="{:.1}" y2="{y:.1}" stroke="#ddd"/><text x="{:.1}" y="{:.1}" text-anchor="end">{}%</text>"##,
            l + pw,
            l - 6.0,
            y + 4.0,
            k * 25
        );
    }
    time_axis(&mut o, (l, t, pw, ph), from, span, h - 6.0);
    // The series as a filled step area.
    let mut pts = format!("{l:.1},{:.1}", t + ph);
    for (k, v) in vals.iter().enumerate() {
        let x0 = l + pw * k as f64 / bins as f64;
        let x1 = l + pw * (k + 1) as f64 / bins as f64;
        let y = t + ph - ph * (v / procs).clamp(0.0, 1.0);
        let _ = write!(pts, " {x0:.1},{y:.1} {x1:.1},{y:.1}");
    }
    let _ = write!(pts, " {:.1},{:.1}", l + pw, t + ph);
    let _ = writeln!(
        o,
        r##"<polygon points="{pts}" fill="#9ecae1" stroke="#3182bd" stroke-width="0.8"/>"##
    );
    let ym = t + ph - ph * mean.clamp(0.0, 1.0);
    let _ = writeln!(
        o,
        r##"<line x1="{l}" y1="{ym:.1}" x2="{:.1}" y2="{ym:.1}" stroke="#d62728" stroke-dasharray="5,4"/><text x="{:.1}" y="{:.1}" text-anchor="end" fill="#d62728">mean {:.1}%</text>"##,
        l + pw,
        l + pw - 4.0,
        ym - 4.0,
        100.0 * mean
    );
    let _ = writeln!(
        o,
        r##"<rect x="{l}" y="{t}" width="{pw}" height="{ph}" fill="none" stroke="#333"/>"##
    );
    o.push_str("</svg>\n");
    o
}

/// What the node chart shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ChartWindow {
    /// Window start.
    pub from: Time,
    /// Window end.
    pub to: Time,
    /// At most this many nodes (the first ones in cluster order).
    pub max_nodes: usize,
}

/// A node's processor lanes as runs of lanes free from the same time, in
/// lane order: as many runs as the jobs placed make, whatever the
/// processor count.
struct Lanes {
    /// (first lane, lanes, free from).
    runs: Vec<(u64, u64, Time)>,
}

impl Lanes {
    fn new(cap: u64) -> Lanes {
        Lanes {
            runs: vec![(0, cap, Time::MIN)],
        }
    }

    /// Takes the lowest `want` lanes free at `start` until `end` (fewer
    /// when fewer are free): the contiguous runs taken, (first, count).
    fn take(&mut self, start: Time, end: Time, want: u64) -> Vec<(u64, u64)> {
        let mut left = want;
        let mut taken: Vec<(u64, u64)> = Vec::new();
        let mut k = 0;
        while k < self.runs.len() && left > 0 {
            let (first, count, free_at) = self.runs[k];
            if free_at <= start {
                let n = count.min(left);
                left -= n;
                match taken.last_mut() {
                    Some(t) if t.0 + t.1 == first => t.1 += n,
                    _ => taken.push((first, n)),
                }
                self.runs[k] = (first, n, end);
                if n < count {
                    self.runs.insert(k + 1, (first + n, count - n, free_at));
                }
            }
            k += 1;
        }
        taken
    }
}

/// The node × time chart of a window.
pub fn node_chart(
    jobs: &[SimJob],
    records: &[Option<JobRecord>],
    nodes: &[Node],
    win: &ChartWindow,
    title: &str,
) -> String {
    let shown = nodes.len().min(win.max_nodes.max(1));
    let row = if shown <= 32 {
        18.0
    } else if shown <= 128 {
        8.0
    } else {
        4.0
    };
    let (l, r, t, b) = (80.0, 20.0, 48.0, 40.0);
    let pw = 960.0 - l - r;
    let ph = row * shown as f64;
    let (w, h) = (960.0, t + ph + b);
    let span = (win.to - win.from).max(1);
    let x_of = |tm: Time| l + pw * (tm.clamp(win.from, win.to) - win.from) as f64 / span as f64;
    let mut o = String::new();
    let _ = writeln!(
        o,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h:.0}" viewBox="0 0 {w} {h:.0}" font-family="sans-serif" font-size="11">"#
    );
    let _ = writeln!(o, r#"<rect width="{w}" height="{h:.0}" fill="white"/>"#);
    let _ = writeln!(
        o,
        r#"<text x="{l}" y="18" font-size="13">{}</text>"#,
        esc(title)
    );
    let _ = writeln!(
        o,
        r##"<rect x="{l}" y="26" width="10" height="10" fill="#6baed6"/><text x="{:.0}" y="35">priority order</text><rect x="{:.0}" y="26" width="10" height="10" fill="#fd8d3c"/><text x="{:.0}" y="35">backfill</text>"##,
        l + 14.0,
        l + 110.0,
        l + 124.0
    );
    // Jobs per shown node overlapping the window, by start.
    let mut per_node: Vec<Vec<(Time, Time, usize, u32)>> = vec![Vec::new(); shown];
    for (i, rec) in records.iter().enumerate() {
        let Some(rec) = rec else { continue };
        if rec.end <= win.from || rec.start >= win.to {
            continue;
        }
        for &(n, tasks) in &rec.nodes {
            if (n as usize) < shown {
                let p = jobs[i].job.task.procs.saturating_mul(tasks).max(1);
                per_node[n as usize].push((rec.start, rec.end, i, p));
            }
        }
    }
    for (n, list) in per_node.iter_mut().enumerate() {
        list.sort_unstable();
        let cap = nodes[n].configured.procs.max(1) as u64;
        let y0 = t + row * n as f64;
        if row >= 8.0 {
            let _ = writeln!(
                o,
                r#"<text x="{:.0}" y="{:.1}" text-anchor="end" font-size="{}">{}</text>"#,
                l - 4.0,
                y0 + row * 0.75,
                if row >= 18.0 { 11 } else { 7 },
                esc(&nodes[n].name)
            );
        }
        // Processor lanes: each job takes the lowest free lanes at its start.
        let mut lanes = Lanes::new(cap);
        for &(s, e, i, p) in list.iter() {
            let runs = lanes.take(s, e, p as u64);
            let rec = records[i].as_ref().is_some_and(|r| r.backfill);
            // Three shades per kind, by job, so neighbouring jobs stand apart.
            const BLUES: [&str; 3] = ["#6baed6", "#4292c6", "#9ecae1"];
            const ORANGES: [&str; 3] = ["#fd8d3c", "#f16913", "#fdae6b"];
            let fill = if rec { ORANGES[i % 3] } else { BLUES[i % 3] };
            let (x0, x1) = (x_of(s), x_of(e));
            // Contiguous runs of lanes become one rectangle each.
            for (first, count) in runs {
                let ly = y0 + row * first as f64 / cap as f64;
                let lh = row * count as f64 / cap as f64;
                let j = &jobs[i].job;
                let _ = writeln!(
                    o,
                    r##"<rect x="{x0:.1}" y="{ly:.2}" width="{:.1}" height="{lh:.2}" fill="{fill}" stroke="#fff" stroke-width="0.3"><title>job {} ({}), {} procs, {} to {}{}</title></rect>"##,
                    (x1 - x0).max(0.3),
                    esc(&j.id),
                    esc(&j.user),
                    j.procs(),
                    iso_time(s),
                    iso_time(e),
                    if rec { ", backfill" } else { "" }
                );
            }
        }
    }
    let step = tick_step(span, 8);
    let mut off = 0;
    while off <= span {
        let x = l + pw * off as f64 / span as f64;
        let _ = writeln!(
            o,
            r##"<line x1="{x:.1}" y1="{t}" x2="{x:.1}" y2="{:.1}" stroke="#bbb" stroke-width="0.5"/><text x="{x:.1}" y="{:.1}" text-anchor="middle">{}</text>"##,
            t + ph + 4.0,
            t + ph + 16.0,
            tick_label(off, step)
        );
        off += step;
    }
    let _ = writeln!(
        o,
        r#"<text x="{:.1}" y="{:.1}" text-anchor="end">time since {} UTC{}</text>"#,
        l + pw,
        h - 6.0,
        iso_time(win.from),
        if shown < nodes.len() {
            format!("; first {shown} of {} nodes", nodes.len())
        } else {
            String::new()
        }
    );
    let _ = writeln!(
        o,
        r##"<rect x="{l}" y="{t}" width="{pw}" height="{ph:.1}" fill="none" stroke="#333"/>"##
    );
    o.push_str("</svg>\n");
    o
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Job, Resources};

    fn sj(id: &str, procs: u32, submit: Time) -> SimJob {
        SimJob {
            job: Job {
                id: id.into(),
                user: "u1".into(),
                tasks: procs,
                task: Resources::procs(1),
                submit_time: submit,
                ..Job::default()
            },
            runtime: 0,
            trace_wait: None,
        }
    }

    fn rec(start: Time, end: Time, nodes: Vec<(u32, u32)>, backfill: bool) -> Option<JobRecord> {
        Some(JobRecord {
            start,
            end,
            nodes,
            backfill,
            suspended: 0,
        })
    }

    #[test]
    fn utilization_bins_are_time_weighted() {
        let jobs = vec![sj("1", 2, 0), sj("2", 1, 0)];
        let recs = vec![
            rec(0, 50, vec![(0, 2)], false),
            rec(25, 100, vec![(1, 1)], true),
        ];
        let v = utilization_bins(&jobs, &recs, 0, 100, 4);
        // [0,25): 2; [25,50): 3; [50,75): 1; [75,100): 1.
        assert_eq!(v, vec![2.0, 3.0, 1.0, 1.0]);
        let v = utilization_bins(&jobs, &recs, 0, 100, 1);
        assert_eq!(v, vec![(2.0 * 50.0 + 75.0) / 100.0]);
    }

    #[test]
    fn charts_are_well_formed_and_mark_backfill() {
        let jobs = vec![sj("1", 2, 0), sj("2", 1, 0)];
        let recs = vec![
            rec(0, 50, vec![(0, 2)], false),
            rec(25, 100, vec![(1, 1)], true),
        ];
        let nodes: Vec<Node> = (0..2)
            .map(|i| Node {
                name: format!("n{i}"),
                configured: Resources::procs(2),
                ..Node::default()
            })
            .collect();
        let u = utilization(&jobs, &recs, 4, 0, 100, 0.4375, "util <test>");
        assert!(u.starts_with("<svg") && u.ends_with("</svg>\n"));
        assert!(u.contains("util &lt;test&gt;") && u.contains("mean 43.8%"));
        let c = node_chart(
            &jobs,
            &recs,
            &nodes,
            &ChartWindow {
                from: 0,
                to: 100,
                max_nodes: 10,
            },
            "chart",
        );
        assert_eq!(
            c.matches("<rect x=").count(),
            2 + 2 + 1,
            "legend, jobs, frame"
        );
        assert!(c.contains("job 2 (u1), 1 procs") && c.contains(", backfill</title>"));
    }

    /// A node of a billion processors is drawn from its jobs' lane runs,
    /// not one slot per processor: jobs side by side and one after the
    /// other take the lanes Maui's order gives them.
    #[test]
    fn a_node_of_a_billion_processors_is_charted_by_runs() {
        const G: u32 = 1_000_000_000;
        let jobs = vec![sj("1", G / 2, 0), sj("2", G / 4, 0), sj("3", G, 0)];
        let recs = vec![
            rec(0, 50, vec![(0, G / 2)], false),
            rec(0, 80, vec![(0, G / 4)], true),
            rec(80, 100, vec![(0, G)], false),
        ];
        let nodes = vec![Node {
            name: "huge".into(),
            configured: Resources::procs(G),
            ..Node::default()
        }];
        let win = ChartWindow {
            from: 0,
            to: 100,
            max_nodes: 10,
        };
        let c = node_chart(&jobs, &recs, &nodes, &win, "chart");
        assert_eq!(c.matches("<rect x=").count(), 2 + 3 + 1, "{c}");
        assert!(c.contains("job 3 (u1), 1000000000 procs"), "{c}");
        let mut l = Lanes::new(u64::from(G));
        assert_eq!(l.take(0, 50, 500_000_000), vec![(0, 500_000_000)]);
        assert_eq!(l.take(0, 80, 250_000_000), vec![(500_000_000, 250_000_000)]);
        // At 60 the first half is free again, the next quarter is not.
        assert_eq!(
            l.take(60, 90, 600_000_000),
            vec![(0, 500_000_000), (750_000_000, 100_000_000)]
        );
    }
}
