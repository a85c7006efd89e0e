//! What a configuration change would change, before it goes live
//! (`mauictl whatif`): one iteration under the configuration in force and
//! one under a candidate, on the same snapshot and the same scheduler
//! memory, each in a scheduler of its own in memory (nothing is written,
//! and a running scheduler is only read from). The report names what
//! differs between the two plans:
//!
//! - jobs the candidate would start that the current configuration does
//!   not, and the other way round;
//! - moves in the priority order among the first N jobs of either;
//! - reservations that appear, disappear or move (start, end or nodes);
//! - the reason of each job that waits under both, where it changes;
//! - per credential (user, group, account, class, QOS), the mean change
//!   of its waiting jobs' priority and of their rank in the order.
//!
//! Identical configurations give an empty report ([`Report::identical`]).

use crate::config::Config;
use crate::engine::{LastIteration, Plan};
use crate::model::time::Zone;
use crate::model::{CredKind, JobState, NodeTasks, Snapshot, Time};
use crate::service::Service;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

/// The first N of the priority order compared when none is given.
pub const DEFAULT_TOP: usize = 20;

/// A job the plan starts.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct StartRow {
    /// Job id.
    pub job: String,
    /// Started by backfill (out of priority order).
    pub backfill: bool,
    /// Nodes and tasks per node.
    pub allocation: Vec<NodeTasks>,
}

/// Starts one plan makes and the other does not.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Starts {
    /// Started under the candidate only.
    pub added: Vec<StartRow>,
    /// Started under the current configuration only.
    pub removed: Vec<StartRow>,
}

/// One place in a priority order.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Ranked {
    /// 1 for the first job.
    pub rank: usize,
    /// Job id.
    pub job: String,
    /// Its priority.
    pub priority: i64,
    /// Its rank in the other order differs.
    pub moved: bool,
}

/// A job whose rank differs, among the first N of either order.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RankChange {
    /// Job id.
    pub job: String,
    /// Rank under the current configuration.
    pub current_rank: usize,
    /// Rank under the candidate.
    pub candidate_rank: usize,
    /// Priority under the current configuration.
    pub current_priority: i64,
    /// Priority under the candidate.
    pub candidate_priority: i64,
}

/// The first N of each priority order and the jobs that move.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Order {
    /// The first N under the current configuration.
    pub current: Vec<Ranked>,
    /// The first N under the candidate.
    pub candidate: Vec<Ranked>,
    /// Jobs of either list whose rank differs, by current rank.
    pub changes: Vec<RankChange>,
}

/// Where and when a reservation is.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ResAt {
    /// Its id.
    pub id: String,
    /// Start.
    pub start: Time,
    /// End.
    pub end: Time,
    /// `node:tasks`, in node order.
    pub nodes: Vec<String>,
}

/// A reservation that is only in one plan, or in both at other times or
/// places.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ResMove {
    /// `Job`, `User` (administrative) or `Standing`.
    pub kind: String,
    /// The job, for a job reservation; else the reservation's id.
    pub name: String,
    /// Under the current configuration (null: none).
    pub current: Option<ResAt>,
    /// Under the candidate (null: none).
    pub candidate: Option<ResAt>,
}

/// A waiting job whose reason changes.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ReasonChange {
    /// Job id.
    pub job: String,
    /// Why it waits under the current configuration.
    pub current: String,
    /// Why it waits under the candidate.
    pub candidate: String,
}

/// How a credential's waiting jobs move.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CredShift {
    /// `user`, `group`, `account`, `class` or `qos`.
    pub credential: String,
    /// Its name.
    pub name: String,
    /// Its idle jobs (in both orders).
    pub jobs: usize,
    /// Their mean priority under the current configuration.
    pub current_mean_priority: f64,
    /// Under the candidate.
    pub candidate_mean_priority: f64,
    /// Candidate less current.
    pub mean_priority_change: f64,
    /// Their mean rank (1 is first) under the current configuration.
    pub current_mean_rank: f64,
    /// Under the candidate.
    pub candidate_mean_rank: f64,
    /// Candidate less current: negative moves the credential's jobs up.
    pub mean_rank_change: f64,
}

/// What differs between the plans of two configurations.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Report {
    /// The iteration's time.
    pub now: Time,
    /// Where the current configuration came from.
    pub current: String,
    /// Where the candidate came from.
    pub candidate: String,
    /// How many of each priority order are compared.
    pub top: usize,
    /// True when the two plans decide the same (every list below empty).
    pub identical: bool,
    /// Starts that differ.
    pub starts: Starts,
    /// The first `top` of each order and the jobs that move.
    pub order: Order,
    /// Reservations that appear, disappear or move.
    pub reservations: Vec<ResMove>,
    /// Waiting jobs whose reason changes.
    pub reasons: Vec<ReasonChange>,
    /// Credentials whose waiting jobs move, by kind then name.
    pub credentials: Vec<CredShift>,
}

/// One iteration over `snap` (its memory included) under `cfg`, in memory.
fn run(cfg: &Config, snap: &Snapshot) -> Result<(Arc<Plan>, Arc<LastIteration>), String> {
    let mut snap = snap.clone();
    let mut svc = Service::in_memory_from_snapshot(cfg.clone(), &mut snap, Default::default());
    let ran = svc.iterate(&mut snap).map_err(|e| e.to_string())?;
    let last = svc
        .engine()
        .last()
        .cloned()
        .ok_or("the iteration left no result")?;
    Ok((ran.plan, last))
}

/// Runs `snap` under `current` and under `candidate` and compares the
/// plans; `top` is how many of each priority order to compare. The
/// snapshot's `now` should be set (else the memory's last iteration
/// time is used).
pub fn compare(
    current: &Config,
    candidate: &Config,
    snap: &Snapshot,
    top: usize,
) -> Result<Report, String> {
    let (a, last_a) = run(current, snap)?;
    let (b, _) = run(candidate, snap)?;
    let zone = &current.zone;
    let mut r = Report {
        now: a.now,
        current: current.source.clone(),
        candidate: candidate.source.clone(),
        top,
        identical: false,
        starts: starts(&a, &b),
        order: order(&a, &b, top),
        reservations: reservations(&a, &b),
        reasons: reasons(&a, &b, zone),
        credentials: credentials(&a, &b, &last_a),
    };
    r.identical = r.starts.added.is_empty()
        && r.starts.removed.is_empty()
        && r.order.changes.is_empty()
        && r.reservations.is_empty()
        && r.reasons.is_empty()
        && r.credentials.is_empty();
    Ok(r)
}

fn starts(a: &Plan, b: &Plan) -> Starts {
    let row = |s: &crate::engine::Start| StartRow {
        job: s.job.clone(),
        backfill: s.backfill,
        allocation: s.allocation.clone(),
    };
    let only = |x: &Plan, y: &Plan| -> Vec<StartRow> {
        let other: BTreeSet<&str> = y.starts.iter().map(|s| s.job.as_str()).collect();
        (x.starts.iter())
            .filter(|s| !other.contains(s.job.as_str()))
            .map(row)
            .collect()
    };
    Starts {
        added: only(b, a),
        removed: only(a, b),
    }
}

/// Rank (1-based) and priority of each job in a plan's order.
fn ranks(p: &Plan) -> BTreeMap<&str, (usize, i64)> {
    (p.jobs.iter().enumerate())
        .map(|(i, j)| (j.job.as_str(), (i + 1, j.priority)))
        .collect()
}

fn order(a: &Plan, b: &Plan, top: usize) -> Order {
    let (ra, rb) = (ranks(a), ranks(b));
    let list = |p: &Plan, other: &BTreeMap<&str, (usize, i64)>| -> Vec<Ranked> {
        (p.jobs.iter().take(top).enumerate())
            .map(|(i, j)| Ranked {
                rank: i + 1,
                job: j.job.clone(),
                priority: j.priority,
                moved: other.get(j.job.as_str()).is_none_or(|o| o.0 != i + 1),
            })
            .collect()
    };
    let mut seen = BTreeSet::new();
    let mut changes = Vec::new();
    let heads = a.jobs.iter().take(top).chain(b.jobs.iter().take(top));
    for j in heads {
        let id = j.job.as_str();
        if !seen.insert(id) {
            continue;
        }
        if let (Some(&(rank_a, prio_a)), Some(&(rank_b, prio_b))) = (ra.get(id), rb.get(id)) {
            if rank_a != rank_b {
                changes.push(RankChange {
                    job: id.to_string(),
                    current_rank: rank_a,
                    candidate_rank: rank_b,
                    current_priority: prio_a,
                    candidate_priority: prio_b,
                });
            }
        }
    }
    changes.sort_by_key(|c| (c.current_rank, c.candidate_rank));
    Order {
        current: list(a, &rb),
        candidate: list(b, &ra),
        changes,
    }
}

/// A plan's reservations by (kind, job or id).
fn reservations_of(p: &Plan) -> BTreeMap<(String, String), ResAt> {
    (p.reservations.iter())
        .map(|r| {
            let name = r.job.clone().unwrap_or_else(|| r.id.clone());
            let at = ResAt {
                id: r.id.clone(),
                start: r.start,
                end: r.end,
                nodes: (r.allocation.iter())
                    .map(|a| format!("{}:{}", a.node, a.tasks))
                    .collect(),
            };
            ((r.kind.clone(), name), at)
        })
        .collect()
}

fn reservations(a: &Plan, b: &Plan) -> Vec<ResMove> {
    let (ra, mut rb) = (reservations_of(a), reservations_of(b));
    let mut out = Vec::new();
    for (key, at) in ra {
        let other = rb.remove(&key);
        let same = other
            .as_ref()
            .is_some_and(|o| (o.start, o.end, &o.nodes) == (at.start, at.end, &at.nodes));
        if !same {
            out.push(ResMove {
                kind: key.0,
                name: key.1,
                current: Some(at),
                candidate: other,
            });
        }
    }
    out.extend(rb.into_iter().map(|(key, at)| ResMove {
        kind: key.0,
        name: key.1,
        current: None,
        candidate: Some(at),
    }));
    out.sort_by(|x, y| (&x.kind, &x.name).cmp(&(&y.kind, &y.name)));
    out
}

fn reasons(a: &Plan, b: &Plan, zone: &Zone) -> Vec<ReasonChange> {
    let waiting = |p: &Plan| -> BTreeMap<String, String> {
        (p.jobs.iter())
            .filter(|j| !j.started)
            .map(|j| {
                let why = (j.reason.as_ref()).map_or_else(|| "waiting".into(), |r| r.summary(zone));
                (j.job.clone(), why)
            })
            .collect()
    };
    let (wa, wb) = (waiting(a), waiting(b));
    let mut out: Vec<ReasonChange> = wa
        .into_iter()
        .filter_map(|(job, x)| {
            let y = wb.get(&job)?;
            (x != *y).then(|| ReasonChange {
                current: x,
                candidate: y.clone(),
                job,
            })
        })
        .collect();
    let order = ranks(a);
    out.sort_by_key(|c| order.get(c.job.as_str()).map_or(usize::MAX, |r| r.0));
    out
}

/// Means over a credential's idle jobs: (jobs, priority sums, rank sums).
type Sums = (usize, [f64; 2], [f64; 2]);

fn credentials(a: &Plan, b: &Plan, last: &LastIteration) -> Vec<CredShift> {
    let (ra, rb) = (ranks(a), ranks(b));
    let mut sums: BTreeMap<(CredKind, String), Sums> = BTreeMap::new();
    // Credentials as the current iteration saw them (defaults applied).
    for j in last.jobs.iter().filter(|j| j.state == JobState::Idle) {
        let (Some(&(rank_a, prio_a)), Some(&(rank_b, prio_b))) =
            (ra.get(j.id.as_str()), rb.get(j.id.as_str()))
        else {
            continue;
        };
        for kind in [
            CredKind::User,
            CredKind::Group,
            CredKind::Account,
            CredKind::Class,
            CredKind::Qos,
        ] {
            let Some(name) = crate::priority::cred_name(j, kind) else {
                continue;
            };
            let e = sums
                .entry((kind, name.to_string()))
                .or_insert((0, [0.0; 2], [0.0; 2]));
            e.0 += 1;
            e.1[0] += prio_a as f64;
            e.1[1] += prio_b as f64;
            e.2[0] += rank_a as f64;
            e.2[1] += rank_b as f64;
        }
    }
    (sums.into_iter())
        .filter_map(|((kind, name), (n, p, r))| {
            let k = n as f64;
            let (pa, pb, qa, qb) = (p[0] / k, p[1] / k, r[0] / k, r[1] / k);
            (pa != pb || qa != qb).then(|| CredShift {
                credential: kind.name().to_lowercase(),
                name,
                jobs: n,
                current_mean_priority: pa,
                candidate_mean_priority: pb,
                mean_priority_change: pb - pa,
                current_mean_rank: qa,
                candidate_mean_rank: qb,
                mean_rank_change: qb - qa,
            })
        })
        .collect()
}

fn nodes_text(a: &[NodeTasks]) -> String {
    let v: Vec<String> = a
        .iter()
        .map(|n| format!("{}:{}", n.node, n.tasks))
        .collect();
    v.join(",")
}

fn res_text(r: &Option<ResAt>, zone: &Zone) -> String {
    match r {
        None => "none".into(),
        Some(r) => format!(
            "{} to {} on {}",
            zone.fmt(r.start),
            zone.fmt(r.end),
            r.nodes.join(",")
        ),
    }
}

/// Signed, with a sign always (`+1.5`, `-2`, `+0`).
fn signed(x: f64) -> String {
    let s = format!("{:.2}", x);
    let s = s.trim_end_matches('0').trim_end_matches('.').to_string();
    if x >= 0.0 {
        format!("+{s}")
    } else {
        s
    }
}

impl Report {
    /// The report for people.
    pub fn render(&self, zone: &Zone) -> String {
        let mut o = format!(
            "what-if at {}\ncurrent    {}\ncandidate  {}\n\n",
            zone.fmt(self.now),
            self.current,
            self.candidate
        );
        if self.identical {
            o.push_str("no difference: the candidate makes the same decisions on this snapshot\n");
            return o;
        }
        let s = &self.starts;
        o.push_str(&format!(
            "starts: {} more, {} fewer\n",
            s.added.len(),
            s.removed.len()
        ));
        for (sign, rows) in [("+", &s.added), ("-", &s.removed)] {
            for r in rows.iter() {
                o.push_str(&format!(
                    "  {sign} {:<16} {}{}\n",
                    r.job,
                    nodes_text(&r.allocation),
                    if r.backfill { "  (backfill)" } else { "" }
                ));
            }
        }
        o.push_str(&format!(
            "\npriority order (first {}): {} job(s) move\n",
            self.top,
            self.order.changes.len()
        ));
        if !self.order.changes.is_empty() {
            o.push_str(&format!(
                "  {:<16} {:>7} {:>9} {:>14} {:>14}\n",
                "job", "current", "candidate", "current prio", "candidate prio"
            ));
        }
        for c in &self.order.changes {
            o.push_str(&format!(
                "  {:<16} {:>7} {:>9} {:>14} {:>14}\n",
                c.job, c.current_rank, c.candidate_rank, c.current_priority, c.candidate_priority
            ));
        }
        o.push_str(&format!(
            "\nreservations: {} change(s)\n",
            self.reservations.len()
        ));
        for m in &self.reservations {
            let what = match m.kind.as_str() {
                "Job" => format!("job {}", m.name),
                k => format!("{} {}", k.to_lowercase(), m.name),
            };
            o.push_str(&format!(
                "  {what}\n    current:   {}\n    candidate: {}\n",
                res_text(&m.current, zone),
                res_text(&m.candidate, zone)
            ));
        }
        o.push_str(&format!("\nreasons: {} change(s)\n", self.reasons.len()));
        for c in &self.reasons {
            o.push_str(&format!(
                "  {:<16} {}  ->  {}\n",
                c.job, c.current, c.candidate
            ));
        }
        o.push_str(&format!(
            "\ncredentials: {} shift(s)\n",
            self.credentials.len()
        ));
        if !self.credentials.is_empty() {
            o.push_str(&format!(
                "  {:<8} {:<16} {:>5} {:>16} {:>10}\n",
                "kind", "name", "jobs", "mean priority", "mean rank"
            ));
        }
        for c in &self.credentials {
            o.push_str(&format!(
                "  {:<8} {:<16} {:>5} {:>16} {:>10}\n",
                c.credential,
                c.name,
                c.jobs,
                signed(c.mean_priority_change),
                signed(c.mean_rank_change)
            ));
        }
        o
    }

    /// The report as JSON (the fields of [`Report`]), times with their
    /// local form beside them.
    pub fn json(&self, zone: &Zone) -> serde_json::Value {
        let mut v = serde_json::to_value(self).unwrap_or_default();
        crate::commands::with_local_times(&mut v, zone);
        v
    }

    /// A self-contained HTML page (no external resource): the two
    /// priority orders side by side, the jobs that move highlighted, and
    /// every other difference in a table.
    pub fn html(&self, zone: &Zone) -> String {
        let mut o = String::from(
            "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>mauisched what-if</title>\n<style>\n\
body{font-family:sans-serif;margin:1.5em;color:#222}\n\
table{border-collapse:collapse;margin:.5em 0 1.5em}\n\
th,td{border:1px solid #ccc;padding:.2em .6em;text-align:left}\n\
th{background:#f0f0f0}\n\
td.n{text-align:right}\n\
.sides{display:flex;gap:2em;align-items:flex-start}\n\
tr.moved td{background:#fff3b0}\n\
tr.added td{background:#d8f5d0}\n\
tr.removed td{background:#f8d4d4}\n\
.same{color:#2a7a2a;font-weight:bold}\n\
</style>\n</head>\n<body>\n",
        );
        o.push_str("<h1>What-if</h1>\n<table>\n");
        o.push_str(&format!(
            "<tr><th>Time</th><td>{}</td></tr>\n<tr><th>Current</th><td>{}</td></tr>\n<tr><th>Candidate</th><td>{}</td></tr>\n</table>\n",
            esc(&zone.fmt(self.now)),
            esc(&self.current),
            esc(&self.candidate)
        ));
        if self.identical {
            o.push_str("<p class=\"same\">No difference: the candidate makes the same decisions on this snapshot.</p>\n");
        }
        o.push_str(&format!(
            "<h2>Priority order (first {})</h2>\n<div class=\"sides\">\n",
            self.top
        ));
        for (title, list) in [
            ("Current", &self.order.current),
            ("Candidate", &self.order.candidate),
        ] {
            o.push_str(&format!(
                "<div>\n<h3>{title}</h3>\n<table>\n<tr><th>Rank</th><th>Job</th><th>Priority</th></tr>\n"
            ));
            for r in list.iter() {
                o.push_str(&format!(
                    "<tr{}><td class=\"n\">{}</td><td>{}</td><td class=\"n\">{}</td></tr>\n",
                    if r.moved { " class=\"moved\"" } else { "" },
                    r.rank,
                    esc(&r.job),
                    r.priority
                ));
            }
            o.push_str("</table>\n</div>\n");
        }
        o.push_str("</div>\n<h2>Starts</h2>\n<table>\n<tr><th></th><th>Job</th><th>Nodes</th><th>Backfill</th></tr>\n");
        for (class, sign, rows) in [
            (
                "added",
                "starts under the candidate only",
                &self.starts.added,
            ),
            (
                "removed",
                "starts under the current only",
                &self.starts.removed,
            ),
        ] {
            for r in rows.iter() {
                o.push_str(&format!(
                    "<tr class=\"{class}\"><td>{sign}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
                    esc(&r.job),
                    esc(&nodes_text(&r.allocation)),
                    if r.backfill { "yes" } else { "no" }
                ));
            }
        }
        o.push_str("</table>\n<h2>Reservations</h2>\n<table>\n<tr><th>Kind</th><th>Job or id</th><th>Current</th><th>Candidate</th></tr>\n");
        for m in &self.reservations {
            let class = match (&m.current, &m.candidate) {
                (None, _) => "added",
                (_, None) => "removed",
                _ => "moved",
            };
            o.push_str(&format!(
                "<tr class=\"{class}\"><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
                esc(&m.kind),
                esc(&m.name),
                esc(&res_text(&m.current, zone)),
                esc(&res_text(&m.candidate, zone))
            ));
        }
        o.push_str("</table>\n<h2>Reasons</h2>\n<table>\n<tr><th>Job</th><th>Current</th><th>Candidate</th></tr>\n");
        for c in &self.reasons {
            o.push_str(&format!(
                "<tr class=\"moved\"><td>{}</td><td>{}</td><td>{}</td></tr>\n",
                esc(&c.job),
                esc(&c.current),
                esc(&c.candidate)
            ));
        }
        o.push_str("</table>\n<h2>Credentials</h2>\n<table>\n<tr><th>Kind</th><th>Name</th><th>Jobs</th><th>Mean priority</th><th>Change</th><th>Mean rank</th><th>Change</th></tr>\n");
        for c in &self.credentials {
            o.push_str(&format!(
                "<tr><td>{}</td><td>{}</td><td class=\"n\">{}</td><td class=\"n\">{:.2} &rarr; {:.2}</td><td class=\"n\">{}</td><td class=\"n\">{:.2} &rarr; {:.2}</td><td class=\"n\">{}</td></tr>\n",
                esc(&c.credential),
                esc(&c.name),
                c.jobs,
                c.current_mean_priority,
                c.candidate_mean_priority,
                signed(c.mean_priority_change),
                c.current_mean_rank,
                c.candidate_mean_rank,
                signed(c.mean_rank_change)
            ));
        }
        o.push_str("</table>\n</body>\n</html>\n");
        o
    }
}

/// Text for HTML.
fn esc(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            '\'' => o.push_str("&#39;"),
            c => o.push(c),
        }
    }
    o
}
