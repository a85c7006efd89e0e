//! `showres`: reservations in Maui's layout (commands/showres.rst).
//!
//! Times are relative to `now` (`[-][D:]HH:MM:SS`); ends and durations more
//! than 1,000 hours away print as `INFINITY`. N/P is nodes/processors.
//! `-n` lists one line per reservation and node; its footer counts those
//! lines, as Maui's does. The S and JobState columns only apply to job
//! reservations (`-` otherwise). Where the cluster has generic resources,
//! a last GRES column gives those each reservation (or, with `-n`, each of
//! its nodes) holds.

use super::render::{add_gres, gres_compact, gres_json, gres_sum_json, GresSum};
use crate::engine::LastIteration;
use crate::model::time::{fmt_duration, Zone, HOUR};
use crate::model::{Cluster, NodeTasks, Time};
use crate::reservation::{NodeClaim, ResKind, ResRequest, Reservation};
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

/// Generic resources a reservation holds on all its nodes.
fn held_gres(r: &Reservation) -> GresSum {
    let mut sum: GresSum = [0; crate::model::MAX_GRES];
    for c in &r.claims {
        add_gres(&mut sum, &c.resources.gres);
    }
    sum
}

/// The GRES cell: what is held, `-` for none.
fn gres_cell(cluster: &Cluster, sum: &GresSum) -> String {
    let t = gres_compact(cluster, sum);
    if t.is_empty() {
        "-".into()
    } else {
        t
    }
}

/// The StartTime column, last but for GRES where the cluster has some.
fn start_time_header(cluster: &Cluster) -> String {
    if cluster.gres_names.is_empty() {
        "StartTime".into()
    } else {
        format!("{:<19}  GRES", "StartTime")
    }
}

/// `showres [RESID]`: one line per reservation.
pub fn showres(
    reservations: &[Reservation],
    cluster: &Cluster,
    now: Time,
    zone: &Zone,
    id: Option<&str>,
) -> String {
    let rows = selected(reservations, id);
    let has_gres = !cluster.gres_names.is_empty();
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
        start_time_header(cluster)
    ));
    for r in &rows {
        out.push_str(&format!(
            "{} {}{:>12}{:>12}{:>12}{:>5}/{:<2}   {}",
            pair(&r.id, 18, r.type_name(), 6),
            state_letter(r),
            rel(r.start, now),
            rel(r.end, now),
            dur(r),
            r.claims.len(),
            r.procs(),
            zone.fmt(r.start)
        ));
        if has_gres {
            out.push_str("  ");
            out.push_str(&gres_cell(cluster, &held_gres(r)));
        }
        out.push('\n');
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
    zone: &Zone,
    id: Option<&str>,
) -> String {
    let has_gres = !cluster.gres_names.is_empty();
    let mut lines: Vec<(u32, usize, String)> = Vec::new();
    for (i, r) in selected(reservations, id).into_iter().enumerate() {
        for c in &r.claims {
            let name = cluster
                .nodes
                .get(c.node as usize)
                .map(|n| n.name.as_str())
                .unwrap_or("?");
            let mut line = format!(
                "{} {:>18}{:>11}{:>5}{:>12}{:>12}  {}",
                pair(name, 14, r.type_name(), 6),
                r.id,
                job_state(r),
                c.tasks,
                rel(r.start, now),
                dur(r),
                zone.fmt(r.start)
            );
            if has_gres {
                let mut g: GresSum = [0; crate::model::MAX_GRES];
                add_gres(&mut g, &c.resources.gres);
                line.push_str("  ");
                line.push_str(&gres_cell(cluster, &g));
            }
            line.push('\n');
            lines.push((c.node, i, line));
        }
    }
    lines.sort_by_key(|l| (l.0, l.1));
    let mut out = format!("reservations on {}\n\n", zone.fmt(now));
    out.push_str(&format!(
        "{} {:>18}{:>11}{:>5}{:>12}{:>12}  {}\n\n",
        pair("NodeName", 14, "Type", 6),
        "ReservationID",
        "JobState",
        "Task",
        "Start",
        "Duration",
        start_time_header(cluster)
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
    let has_gres = !cluster.gres_names.is_empty();
    let rows: Vec<Value> = selected(reservations, id)
        .into_iter()
        .map(|r| {
            let mut v = json!({
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
            });
            if has_gres {
                // By name: in all, and on each node.
                v["gres"] = gres_sum_json(cluster, &held_gres(r), false);
                for (cv, c) in v["claims"]
                    .as_array_mut()
                    .into_iter()
                    .flatten()
                    .zip(&r.claims)
                {
                    cv["gres"] = gres_json(cluster, &c.resources.gres);
                }
            }
            v
        })
        .collect();
    json!({ "now": now, "reservations": rows })
}

/// The reservations showres lists, in Maui's order: the jobs' (running
/// jobs, then the reservations this iteration made for idle jobs), then
/// the administrative and standing ones.
pub fn table(last: &LastIteration) -> Vec<Reservation> {
    let cluster = &last.view.cluster;
    // A running job's allocation is in the RM's tasks, with its per-node
    // generic resources on each node; an idle job's reservation is in the
    // engine's tasks, shown as the RM's (bundles taken apart).
    let claims = |alloc: &[NodeTasks], job: &crate::model::Job| -> Vec<NodeClaim> {
        let bundle = if job.state.is_active() {
            1
        } else {
            job.bundle.max(1)
        };
        let extra = crate::model::Resources {
            gres: job.node_gres,
            ..crate::model::Resources::ZERO
        };
        alloc
            .iter()
            .filter_map(|a| {
                Some(NodeClaim {
                    node: cluster.index(&a.node)?,
                    tasks: a.tasks.saturating_mul(bundle),
                    resources: job
                        .task
                        .checked_mul(a.tasks)
                        .unwrap_or(job.task)
                        .saturating_add(&extra),
                })
            })
            .collect()
    };
    let job_res = |job: &crate::model::Job, start: Time, end: Time, alloc: &[NodeTasks]| {
        let mut r = Reservation::new(
            job.id.clone(),
            ResKind::Job {
                job: job.id.clone(),
                state: job.state,
            },
            start,
            end,
            crate::config::Acl::default(),
            ResRequest {
                task_count: job.tasks.saturating_mul(job.bundle.max(1)),
                ..ResRequest::default()
            },
        );
        r.claims = claims(alloc, job);
        r
    };
    let mut out = Vec::new();
    for (j, job) in last.jobs.iter().enumerate() {
        if job.state.is_active() && !job.allocation.is_empty() {
            let (s, e) = last
                .view
                .windows
                .get(j)
                .copied()
                .unwrap_or((job.start_time.unwrap_or(last.plan.now), last.plan.now));
            out.push(job_res(job, s, e, &job.allocation));
        }
    }
    for pr in last.plan.reservations.iter().filter(|r| r.kind == "Job") {
        if let Some(job) = pr
            .job
            .as_deref()
            .and_then(|id| last.jobs.iter().find(|j| j.id == id))
        {
            out.push(job_res(job, pr.start, pr.end, &pr.allocation));
        }
    }
    out.extend(
        last.view
            .table
            .iter()
            .filter(|r| !matches!(r.kind, ResKind::Job { .. }))
            .cloned(),
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;
    use crate::model::time::HOUR;
    use crate::model::{JobState, Resources};
    use crate::sim::cluster::parse_cluster;

    #[test]
    fn showres_layout_matches_maui() {
        // commands/showres.rst, Example 1, at Thu Sep 1 2005 15:07:51.
        let now: Time = 1_125_587_271;
        let nodes = parse_cluster("node[001-032] procs=2", "test").unwrap();
        let c = Cluster::build(&nodes, &Config::default());
        let mk = |id: &str, state: JobState, start: Time, dur: i64, nodes: u32, procs: u32| {
            let mut r = Reservation::new(
                id.into(),
                ResKind::Job {
                    job: id.into(),
                    state,
                },
                start,
                start + dur,
                Default::default(),
                Default::default(),
            );
            // `procs` processors over `nodes` nodes, two per node where possible.
            let mut left = procs;
            for n in 0..nodes {
                let k = if n + 1 == nodes { left } else { left.min(2) };
                left -= k;
                r.claims.push(NodeClaim {
                    node: n,
                    tasks: k,
                    resources: Resources::procs(k),
                });
            }
            r
        };
        let run = JobState::Running;
        let idle = JobState::Idle;
        let rs = vec![
            mk("12941", run, now - 301, 2 * HOUR + 46 * 60 + 40, 13, 25),
            mk("12944", run, now - 301, 6 * HOUR + 40 * 60, 16, 16),
            mk("12946", run, now - 301, 30 * HOUR, 1, 2),
            mk("12954", run, now - 299, 3 * HOUR, 2, 4),
            mk(
                "12956",
                idle,
                now + 29 * HOUR + 54 * 60 + 59,
                6 * HOUR + 40 * 60,
                16,
                32,
            ),
            mk(
                "12969",
                idle,
                now + 6 * HOUR + 34 * 60 + 59,
                6 * HOUR + 40 * 60,
                4,
                4,
            ),
        ];
        let text = showres(&rs, &c, now, &Zone::utc(), None);
        let want = "\
ReservationID       Type S       Start         End    Duration    N/P    StartTime

12941                Job R   -00:05:01    02:41:39    02:46:40   13/25   Thu Sep  1 15:02:50
12944                Job R   -00:05:01    06:34:59    06:40:00   16/16   Thu Sep  1 15:02:50
12946                Job R   -00:05:01  1:05:54:59  1:06:00:00    1/2    Thu Sep  1 15:02:50
12954                Job R   -00:04:59    02:55:01    03:00:00    2/4    Thu Sep  1 15:02:52
12956                Job I  1:05:54:59  1:12:34:59    06:40:00   16/32   Fri Sep  2 21:02:50
12969                Job I    06:34:59    13:14:59    06:40:00    4/4    Thu Sep  1 21:42:50

6 reservations located
";
        assert_eq!(text, want);
        let one = showres(&rs, &c, now, &Zone::utc(), Some("12956"));
        assert!(one.ends_with("\n1 reservation located\n"), "{one}");
        let nodes = showres_nodes(&rs[2..3], &c, now, &Zone::utc(), None);
        let want = "\
reservations on Thu Sep  1 15:07:51

NodeName        Type      ReservationID   JobState Task       Start    Duration  StartTime

node001          Job              12946    Running    2   -00:05:01  1:06:00:00  Thu Sep  1 15:02:50

1 node reserved
";
        assert_eq!(nodes, want);
        let j = showres_json(&rs, &c, now, None);
        assert_eq!(j["reservations"][0]["procs"], 25);
        assert_eq!(j["reservations"][4]["state"], "Idle");
    }
}
