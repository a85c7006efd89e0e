//! `diagnose -f`: fairshare configuration and usage per credential.
//!
//! Layout, after Maui's: the settings, then a table whose columns are the
//! decayed usage (`%`), the target (`+` floor, `-` cap) and each window's
//! share (window 0 is the current one). `FSWeight` gives each window's decay
//! weight, `TotalUsage` the usage delivered in each window in hours of the
//! FSPOLICY metric (processor-hours for DEDICATEDPS). Credentials are listed
//! per kind, by name, when they have usage in a window considered or a
//! target of their own.

use super::{depth, Fairshare};
use crate::config::{Config, FsTarget};
use crate::model::time::fmt_duration;
use crate::model::{CredKind, Secs, Time};
use crate::priority::cred_attr;
use serde::Serialize;
use std::collections::BTreeSet;

/// One window column of the report.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FsReportWindow {
    /// Window index (0 = current).
    pub index: usize,
    /// Start (epoch seconds).
    pub start: Time,
    /// Decay weight `FSDECAY^index`.
    pub weight: f64,
    /// Usage delivered in the window (FSPOLICY metric, e.g. proc-seconds).
    pub total: f64,
}

/// One credential row of the report.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FsReportCred {
    /// Kind.
    pub kind: CredKind,
    /// Name.
    pub name: String,
    /// Decayed usage in percent (`None`: nothing delivered).
    pub usage: Option<f64>,
    /// Target in force.
    pub target: Option<FsTarget>,
    /// Share of each window's total in percent (`None`: window delivered nothing).
    pub windows: Vec<Option<f64>>,
}

/// Everything `diagnose -f` shows.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FsReport {
    /// FSDEPTH in force (bounded).
    pub depth: usize,
    /// FSINTERVAL (seconds).
    pub interval: Secs,
    /// FSDECAY.
    pub decay: f64,
    /// FSPOLICY as written.
    pub policy: String,
    /// SYSCFG FSTARGET, if set.
    pub system_target: Option<FsTarget>,
    /// The windows considered, current first.
    pub windows: Vec<FsReportWindow>,
    /// Credentials, by kind then name.
    pub creds: Vec<FsReportCred>,
}

/// Builds the `diagnose -f` report.
pub fn diagnose_f_report(cfg: &Config, fs: &Fairshare) -> FsReport {
    let d = depth(cfg);
    let decay = cfg.params.fs_decay.0;
    let all = fs.windows();
    let wins: Vec<_> = all.iter().take(d).collect();
    let windows = wins
        .iter()
        .enumerate()
        .map(|(i, w)| FsReportWindow {
            index: i,
            start: w.start,
            weight: decay.powi(i as i32),
            total: w.total,
        })
        .collect();
    let mut creds = Vec::new();
    for kind in CredKind::ALL {
        let mut names: BTreeSet<&str> = BTreeSet::new();
        for w in &wins {
            if let Some(m) = w.usage.get(&kind) {
                names.extend(m.keys().map(String::as_str));
            }
        }
        if let Some(m) = cfg.creds.get(&kind) {
            names.extend(
                m.iter()
                    .filter(|(n, c)| n.as_str() != "DEFAULT" && c.fs_target.is_some())
                    .map(|(n, _)| n.as_str()),
            );
        }
        for name in names {
            creds.push(FsReportCred {
                kind,
                name: name.to_string(),
                usage: fs.usage(cfg, kind, name),
                target: cred_attr(cfg, kind, name, |c| c.fs_target),
                windows: wins
                    .iter()
                    .map(|w| (w.total > 0.0).then(|| 100.0 * w.get(kind, name) / w.total))
                    .collect(),
            });
        }
    }
    FsReport {
        depth: d,
        interval: cfg.params.fs_interval.0,
        decay,
        policy: {
            use crate::config::value::Scalar;
            cfg.params.fs_policy.render()
        },
        system_target: cfg.system.fs_target,
        windows,
        creds,
    }
}

fn fmt_target(t: &Option<FsTarget>) -> String {
    match t {
        None => "-------".into(),
        Some(t) => {
            let m = match t.mode {
                crate::config::FsTargetMode::Target => "",
                crate::config::FsTargetMode::Floor => "+",
                crate::config::FsTargetMode::Cap => "-",
            };
            format!("{:.2}{m}", t.percent)
        }
    }
}

/// Renders `diagnose -f` in Maui's layout.
pub fn render_diagnose_f(cfg: &Config, fs: &Fairshare) -> String {
    let r = diagnose_f_report(cfg, fs);
    let mut out = String::from("FairShare Information\n\n");
    out.push_str(&format!(
        "Depth: {} intervals   Interval Length: {}   Decay Rate: {:.2}\n\n",
        r.depth,
        fmt_duration(r.interval),
        r.decay
    ));
    let what = match cfg.params.fs_policy.metric {
        None => " (fairshare usage is not tracked)",
        Some(crate::config::FsMetric::DedicatedPs) => {
            " (usage is tracked by processor seconds dedicated to each job)"
        }
        Some(crate::config::FsMetric::DedicatedPes) => {
            " (usage is tracked by processor-equivalent seconds dedicated to each job)"
        }
        Some(crate::config::FsMetric::UtilizedPs) => {
            " (usage is tracked by processor seconds used by each job)"
        }
    };
    out.push_str(&format!("FS Policy: {}{what}\n", r.policy));
    out.push_str(&format!(
        "System FS Settings:  Target Usage: {}\n\n",
        fmt_target(&r.system_target)
    ));
    if r.windows.is_empty() {
        out.push_str("no fairshare usage recorded\n");
    }

    // Table: name, %, target, then one column per window shown.
    let n = r.windows.len();
    let mut rows: Vec<Vec<String>> = Vec::new();
    let mut head = vec!["FSInterval".to_string(), "%".into(), "Target".into()];
    head.extend((0..n).map(|i| i.to_string()));
    let mut weight = vec!["FSWeight".to_string(), "-------".into(), "-------".into()];
    weight.extend(r.windows.iter().map(|w| format!("{:.4}", w.weight)));
    let mut total = vec!["TotalUsage".to_string(), "100.00".into(), "-------".into()];
    total.extend(r.windows.iter().map(|w| format!("{:.1}", w.total / 3600.0)));
    rows.push(head);
    rows.push(weight);
    rows.push(total);
    let mut kind_rows: Vec<(CredKind, Vec<String>)> = Vec::new();
    for c in &r.creds {
        let mut row = vec![
            c.name.clone(),
            c.usage.map_or("-------".into(), |u| format!("{u:.2}")),
            fmt_target(&c.target),
        ];
        row.extend(
            c.windows
                .iter()
                .map(|v| v.map_or("-------".into(), |v| format!("{v:.2}"))),
        );
        kind_rows.push((c.kind, row));
    }
    let cols = 3 + n;
    let width = |i: usize| {
        rows.iter()
            .chain(kind_rows.iter().map(|(_, r)| r))
            .map(|r| r[i].len())
            .max()
            .unwrap_or(0)
    };
    let widths: Vec<usize> = (0..cols).map(width).collect();
    let fmt_row = |row: &[String]| {
        let mut s = format!("{:<w$}", row[0], w = widths[0]);
        for i in 1..cols {
            s.push_str(&format!("  {:>w$}", row[i], w = widths[i]));
        }
        s.trim_end().to_string() + "\n"
    };
    if n > 0 {
        for row in &rows {
            out.push_str(&fmt_row(row));
        }
    }
    let mut last: Option<CredKind> = None;
    for (kind, row) in &kind_rows {
        if last != Some(*kind) {
            out.push_str(&format!("\n{}\n-------------\n", kind.name()));
            last = Some(*kind);
        }
        out.push_str(&fmt_row(row));
    }
    if let Some(w) = r.windows.first() {
        out.push_str(&format!(
            "\ncurrent window started {} (epoch {})\n",
            cfg.zone.fmt(w.start),
            w.start
        ));
    }
    out
}
