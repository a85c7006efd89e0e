//! `showres`: reservations in Maui's layout (commands/showres.rst).
//!
//! Times are relative to `now` (`[-][D:]HH:MM:SS`); ends and durations more
//! than 1,000 hours away print as `INFINITY`. N/P is nodes/processors.
//! `-n` lists one line per reservation and node; its footer counts those
//! lines, as Maui's does. The S and JobState columns only apply to job
//! reservations (`-` otherwise).

use super::{ResKind, Reservation};
use crate::model::time::{fmt_duration, fmt_time, HOUR};
use crate::model::{Cluster, Time};
use serde_json::{json, Value};

/// Beyond this, ends and durations print as INFINITY.
const INFINITE_AFTER: i64 = 1000 * HOUR;

fn rel(t: Time, now: Time) -> String {
    let d = t.saturating_sub(now);
    if d > INFINITE_AFTER {
        "INFINITY".into()
    } else {
        fmt_duration(d)
    }
}

fn dur(r: &Reservation) -> String {
    let d = r.duration();
    if d > INFINITE_AFTER {
        "INFINITY".into()
    } else {
        fmt_duration(d)
    }
}

/// `left` padded to `lw`, then `right` right-aligned to `rw`, with at least
/// one space between them when either overflows.
fn pair(left: &str, lw: usize, right: &str, rw: usize) -> String {
    let l = format!("{left:<lw$}");
    let r = format!("{right:>rw$}");
    if l.len() > lw || !r.starts_with(' ') {
        format!("{l} {right}")
    } else {
        format!("{l}{r}")
    }
}

fn state_letter(r: &Reservation) -> &'static str {
    match &r.kind {
        ResKind::Job { state, .. } => match state {
            crate::model::JobState::Running => "R",
            crate::model::JobState::Suspended => "S",
            _ => "I",
        },
        _ => "-",
    }
}

fn job_state(r: &Reservation) -> &'static str {
    match &r.kind {
        ResKind::Job { state, .. } => state.name(),
        _ => "-",
    }
}

/// The reservations to show, in the order given (Maui lists its table in
/// order: job reservations, then administrative and standing ones).
fn selected<'a>(reservations: &'a [Reservation], id: Option<&str>) -> Vec<&'a Reservation> {
    reservations
        .iter()
        .filter(|r| id.is_none_or(|i| r.id == i))
        .collect()
}

/// `showres [RESID]`: one line per reservation.
pub fn showres(reservations: &[Reservation], now: Time, id: Option<&str>) -> String {
    let rows = selected(reservations, id);
    let mut out = String::new();
    out.push_str(&format!(
        "{} {}{:>12}{:>12}{:>12}{:>5}/{:<2}   {}\n\n",
        pair("ReservationID", 18, "Type", 6),
        "S",
        "Start",
        "End",
        "Duration",
        "N",
        "P",
        "StartTime"
    ));
    for r in &rows {
        out.push_str(&format!(
            "{} {}{:>12}{:>12}{:>12}{:>5}/{:<2}   {}\n",
            pair(&r.id, 18, r.type_name(), 6),
            state_letter(r),
            rel(r.start, now),
            rel(r.end, now),
            dur(r),
            r.claims.len(),
            r.procs(),
            fmt_time(r.start)
        ));
    }
    if !rows.is_empty() {
        out.push('\n');
    }
    out.push_str(&format!(
        "{} reservation{} located\n",
        rows.len(),
        if rows.len() == 1 { "" } else { "s" }
    ));
    out
}

/// `showres -n [RESID]`: one line per reserved node and reservation, by
/// node (RM order), then in the order given.
pub fn showres_nodes(
    reservations: &[Reservation],
    cluster: &Cluster,
    now: Time,
    id: Option<&str>,
) -> String {
    let mut lines: Vec<(u32, usize, String)> = Vec::new();
    for (i, r) in selected(reservations, id).into_iter().enumerate() {
        for c in &r.claims {
            let name = cluster
                .nodes
                .get(c.node as usize)
                .map(|n| n.name.as_str())
                .unwrap_or("?");
            lines.push((
                c.node,
                i,
                format!(
                    "{} {:>18}{:>11}{:>5}{:>12}{:>12}  {}\n",
                    pair(name, 14, r.type_name(), 6),
                    r.id,
                    job_state(r),
                    c.tasks,
                    rel(r.start, now),
                    dur(r),
                    fmt_time(r.start)
                ),
            ));
        }
    }
    lines.sort_by_key(|l| (l.0, l.1));
    let mut out = format!("reservations on {}\n\n", fmt_time(now));
    out.push_str(&format!(
        "{} {:>18}{:>11}{:>5}{:>12}{:>12}  {}\n\n",
        pair("NodeName", 14, "Type", 6),
        "ReservationID",
        "JobState",
        "Task",
        "Start",
        "Duration",
        "StartTime"
    ));
    for l in &lines {
        out.push_str(&l.2);
    }
    if !lines.is_empty() {
        out.push('\n');
    }
    out.push_str(&format!(
        "{} node{} reserved\n",
        lines.len(),
        if lines.len() == 1 { "" } else { "s" }
    ));
    out
}

/// `showres --json`: the same information for scripts (absolute times in
/// epoch seconds, `null` end for never-ending reservations).
pub fn showres_json(
    reservations: &[Reservation],
    cluster: &Cluster,
    now: Time,
    id: Option<&str>,
) -> Value {
    let rows: Vec<Value> = selected(reservations, id)
        .into_iter()
        .map(|r| {
            json!({
                "id": r.id,
                "type": r.type_name(),
                "kind": r.kind,
                "state": job_state(r),
                "start": r.start,
                "end": (r.end != crate::profile::INFINITY).then_some(r.end),
                "nodes": r.claims.len(),
                "procs": r.procs(),
                "tasks": r.tasks(),
                "acl": r.acl,
                "flags": r.flags,
                "claims": r.claims.iter().map(|c| json!({
                    "node": cluster.nodes.get(c.node as usize).map(|n| n.name.as_str()),
                    "tasks": c.tasks,
                    "resources": c.resources,
                })).collect::<Vec<_>>(),
            })
        })
        .collect();
    json!({ "now": now, "reservations": rows })
}
