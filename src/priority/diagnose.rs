//! `diagnose -p`: the priority configuration and its effect on idle jobs.
//!
//! Layout (Maui 3.2's): a header naming each active component with its
//! active subcomponents, a `Weights` line (component weight, subcomponent
//! weights), one row per idle job, best first, then a `Totals` line with the
//! average contributions. Each job cell reads `<PERCENT>(<v1>:<v2>:...)`:
//! the percentage of the job's priority the component contributes, then the
//! pre-weight subcomponent values — credential priorities; fairshare deltas
//! (target − usage, after floor/cap); requested nodes, procs, memory, swap,
//! disk (MB), proc-seconds, PE and walltime (s); effective queue time in
//! minutes, XFactor and bypass count; target values; usage values. The
//! Totals cells give the average component percentage and, in parentheses,
//! the average percentage of each subcomponent. A component is hidden when
//! its weight is 0, a subcomponent when its weight is 0 for every job. A `*`
//! after the priority marks a system priority (setspri).

use super::{job_priority, percent_of, snapshot_queue_time, ComponentKind, FairshareView};
use super::{PriorityBreakdown, PriorityContext};
use crate::config::Config;
use crate::model::{Cluster, JobState, Snapshot, Time};
use serde_json::{json, Value};

/// Column labels of each component's subcomponents, in breakdown order.
fn labels(kind: ComponentKind) -> (&'static str, &'static [&'static str]) {
    match kind {
        ComponentKind::Cred => ("Cred", &["User", "Group", "Accnt", "QOS", "Class"]),
        ComponentKind::Fs => ("FS", &["User", "Group", "Accnt", "QOS", "Class"]),
        ComponentKind::Res => (
            "Res",
            &["Node", "Proc", "Mem", "Swap", "Disk", "PS", "PE", "WTime"],
        ),
        ComponentKind::Serv => ("Serv", &["QTime", "XFctr", "Bypass"]),
        ComponentKind::Targ => ("Targ", &["QTime", "XFctr"]),
        ComponentKind::Usage => ("Usage", &["Cons", "Rem", "Perc", "ExeT"]),
    }
}

/// Configured component weight and subcomponent weights (by Maui name), in
/// breakdown order.
fn weights(cfg: &Config, kind: ComponentKind) -> (i64, Vec<(&'static str, i64)>) {
    let p = &cfg.params;
    match kind {
        ComponentKind::Cred => (
            p.cred_weight,
            vec![
                ("USER", p.user_weight),
                ("GROUP", p.group_weight),
                ("ACCOUNT", p.account_weight),
                ("QOS", p.qos_weight),
                ("CLASS", p.class_weight),
            ],
        ),
        ComponentKind::Fs => (
            p.fs_weight,
            vec![
                ("FSUSER", p.fs_user_weight),
                ("FSGROUP", p.fs_group_weight),
                ("FSACCOUNT", p.fs_account_weight),
                ("FSQOS", p.fs_qos_weight),
                ("FSCLASS", p.fs_class_weight),
            ],
        ),
        ComponentKind::Res => (
            p.res_weight,
            vec![
                ("NODE", p.node_weight),
                ("PROC", p.proc_weight),
                ("MEM", p.mem_weight),
                ("SWAP", p.swap_weight),
                ("DISK", p.disk_weight),
                ("PS", p.ps_weight),
                ("PE", p.pe_weight),
                ("WALLTIME", p.walltime_weight),
            ],
        ),
        ComponentKind::Serv => (
            p.serv_weight,
            vec![
                ("QUEUETIME", p.queuetime_weight),
                ("XFACTOR", p.xfactor_weight),
                ("BYPASS", p.bypass_weight),
            ],
        ),
        ComponentKind::Targ => (
            p.targ_weight,
            vec![
                ("TARGETQUEUETIME", p.target_queuetime_weight),
                ("TARGETXFACTOR", p.target_xfactor_weight),
            ],
        ),
        ComponentKind::Usage => (
            p.usage_weight,
            vec![
                ("CONSUMED", p.usage_consumed_weight),
                ("REMAINING", p.usage_remaining_weight),
                ("PERCENT", p.usage_percent_weight),
                ("EXECUTIONTIME", p.usage_executiontime_weight),
            ],
        ),
    }
}

/// Priorities of the snapshot's idle jobs that are eligible to be considered
/// (not held, begin time reached, dependencies met), best first (ties by id).
///
/// Effective queue time follows `snapshot_queue_time`; cluster totals come
/// from the snapshot's nodes with NODECFG applied.
pub fn diagnose_p_rows(
    cfg: &Config,
    snapshot: &Snapshot,
    fairshare: &dyn FairshareView,
    now: Time,
) -> Vec<PriorityBreakdown> {
    let cluster = Cluster::build(&snapshot.nodes, cfg);
    let ctx = PriorityContext {
        now,
        cfg,
        total: cluster.total,
        fairshare,
    };
    let policy = cfg.params.job_prio_accrual_policy;
    let mut rows: Vec<PriorityBreakdown> = snapshot
        .jobs
        .iter()
        .filter(|j| {
            j.state == JobState::Idle
                && !j.is_held()
                && j.dependency_satisfied
                && j.earliest_start.is_none_or(|t| t <= now)
        })
        .map(|j| job_priority(&ctx, j, snapshot_queue_time(policy, j, now)))
        .collect();
    rows.sort_by(|a, b| b.priority.cmp(&a.priority).then_with(|| a.job.cmp(&b.job)));
    rows
}

/// Formats with `prec` decimals, never printing a negative zero (`-0.00`).
fn fixed(v: f64, prec: usize) -> String {
    let s = format!("{v:.prec$}");
    match s.strip_prefix('-') {
        Some(rest) if rest.bytes().all(|b| b == b'0' || b == b'.') => rest.to_string(),
        _ => s,
    }
}

/// Formats a value compactly: whole numbers without decimals, small ones
/// with two, others with one.
fn fmt_val(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        fixed(v, 0)
    } else if v.abs() < 10.0 {
        fixed(v, 2)
    } else {
        fixed(v, 1)
    }
}

/// One displayed component column: a head part and sub parts per line.
struct Column {
    lines: Vec<(String, Vec<String>)>,
}

impl Column {
    fn render(&self) -> Vec<String> {
        let hw = self.lines.iter().map(|l| l.0.len()).max().unwrap_or(0);
        let n = self.lines.first().map_or(0, |l| l.1.len());
        let sw: Vec<usize> = (0..n)
            .map(|i| self.lines.iter().map(|l| l.1[i].len()).max().unwrap_or(0))
            .collect();
        self.lines
            .iter()
            .map(|(h, parts)| {
                let inner: Vec<String> = parts
                    .iter()
                    .zip(&sw)
                    .map(|(p, w)| format!("{p:>w$}"))
                    .collect();
                format!("{h:>hw$}({})", inner.join(":"))
            })
            .collect()
    }
}

/// Renders `diagnose -p` for precomputed rows (see [`diagnose_p_rows`]).
pub fn render_diagnose_p(cfg: &Config, rows: &[PriorityBreakdown]) -> String {
    // Lines: 0 header, 1 weights, 2.. jobs, last totals.
    let mut columns = Vec::new();
    for kind in ComponentKind::ALL {
        let (cw, sws) = weights(cfg, kind);
        if cw == 0 {
            continue;
        }
        let active: Vec<usize> = (0..sws.len())
            .filter(|&i| {
                sws[i].1 != 0 || rows.iter().any(|r| r.component(kind).subs[i].weight != 0.0)
            })
            .collect();
        if active.is_empty() {
            continue;
        }
        let (label, sub_labels) = labels(kind);
        let mut lines = vec![
            (
                label.to_string(),
                active.iter().map(|&i| sub_labels[i].to_string()).collect(),
            ),
            (
                cw.to_string(),
                active.iter().map(|&i| sws[i].1.to_string()).collect(),
            ),
        ];
        for r in rows {
            let c = r.component(kind);
            lines.push((
                fixed(r.percent(kind), 2),
                active.iter().map(|&i| fmt_val(c.subs[i].value)).collect(),
            ));
        }
        let n = rows.len().max(1) as f64;
        let avg = rows.iter().map(|r| r.percent(kind)).sum::<f64>() / n;
        let sub_avg = active
            .iter()
            .map(|&i| {
                let s: f64 = rows
                    .iter()
                    .map(|r| percent_of(r.component(kind).subs[i].contribution, r.raw))
                    .sum();
                fixed(s / n, 2)
            })
            .collect();
        lines.push((fixed(avg, 2), sub_avg));
        columns.push(Column { lines }.render());
    }

    let mut job_col = vec!["Job".to_string(), "Weights".to_string()];
    let mut prio_col = vec!["PRIORITY*".to_string(), "--------".to_string()];
    for r in rows {
        job_col.push(r.job.clone());
        let mark = if r.system_priority.is_some() {
            "*"
        } else {
            " "
        };
        prio_col.push(format!("{}{mark}", r.priority));
    }
    job_col.push("Totals".to_string());
    prio_col.push("100.00 ".to_string());
    let jw = job_col.iter().map(String::len).max().unwrap_or(0);
    let pw = prio_col.iter().map(String::len).max().unwrap_or(0);

    let line = |i: usize| {
        let mut s = format!("{:<jw$}  {:>pw$}", job_col[i], prio_col[i]);
        for c in &columns {
            s.push_str("  ");
            s.push_str(&c[i]);
        }
        s.trim_end().to_string()
    };
    let mut out = String::from("diagnosing job priority information (partition: ALL)\n\n");
    out.push_str(&line(0));
    out.push('\n');
    out.push_str(&line(1));
    out.push_str("\n\n");
    if rows.is_empty() {
        out.push_str("no idle jobs\n");
        return out;
    }
    for i in 0..rows.len() {
        out.push_str(&line(2 + i));
        out.push('\n');
    }
    out.push('\n');
    out.push_str(&line(2 + rows.len()));
    out.push_str("\n\n* indicates system prio set on job\n");
    for r in rows.iter().filter(|r| r.rejected_negative) {
        out.push_str(&format!(
            "WARNING:  job '{}' has negative priority {} and will not start (REJECTNEGPRIOJOBS)\n",
            r.job, r.priority
        ));
    }
    out
}

/// `diagnose -p --json`: the weights and every row's full breakdown.
pub fn diagnose_p_json(cfg: &Config, rows: &[PriorityBreakdown]) -> Value {
    let weights: serde_json::Map<String, Value> = ComponentKind::ALL
        .iter()
        .map(|&k| {
            let (cw, sws) = weights(cfg, k);
            let subs: serde_json::Map<String, Value> = sws
                .into_iter()
                .map(|(n, w)| (n.to_string(), json!(w)))
                .collect();
            (
                k.name().to_string(),
                json!({"weight": cw, "subcomponents": subs}),
            )
        })
        .collect();
    json!({
        "partition": "ALL",
        "weights": weights,
        "jobs": serde_json::to_value(rows).unwrap_or(Value::Null),
    })
}
