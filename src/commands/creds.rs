//! Maui's credential and cluster overviews: `diagnose -u/-g/-a/-c/-Q`
//! (each credential's configuration and use), `diagnose -t` (partitions),
//! `showhold` (held jobs) and `showstate` (the cluster at a glance), in
//! the layouts of Maui 3.3 (`MUserShow`, `MClassShow`, `MQOSShow`,
//! `MParShow`, `MCShowJobHold`, `MCClusterShow`), each also as JSON.

use crate::config::Config;
use crate::engine::LastIteration;
use crate::model::{CredKind, HoldKind, JobState};
use serde_json::{json, Value};

use super::NONE;

/// Every name of `kind` the scheduler knows: configured (`*CFG[name]`)
/// or on a job of the last iteration, sorted.
fn known(cfg: &Config, last: Option<&LastIteration>, kind: CredKind) -> Vec<String> {
    let mut v: Vec<String> = cfg
        .creds
        .get(&kind)
        .map(|m| m.keys().cloned().collect())
        .unwrap_or_default();
    v.extend(
        last.iter()
            .flat_map(|l| l.jobs.iter())
            .filter_map(|j| j.cred(kind).map(str::to_string)),
    );
    v.retain(|n| !n.eq_ignore_ascii_case("DEFAULT"));
    v.sort();
    v.dedup();
    v
}

fn list(names: Option<&crate::config::value::Names>) -> String {
    match names {
        Some(n) if !n.0.is_empty() => n.0.join(":"),
        _ => NONE.into(),
    }
}

/// One credential's row: what maui.cfg says of it and its jobs now.
#[derive(Clone, Debug, serde::Serialize)]
struct CredView {
    name: String,
    priority: i64,
    flags: String,
    qdef: String,
    qlist: String,
    plist: String,
    fs_target: f64,
    limits: String,
    pdef: Option<String>,
    active_jobs: usize,
    idle_jobs: usize,
}

fn cred_views(
    cfg: &Config,
    last: Option<&LastIteration>,
    kind: CredKind,
    name: Option<&str>,
) -> Result<Vec<CredView>, String> {
    let mut names = known(cfg, last, kind);
    if let Some(n) = name {
        if !names.iter().any(|x| x == n) {
            return Err(format!(
                "no {} \"{n}\": no job has it and maui.cfg has no {}[{n}]",
                kind.name().to_lowercase(),
                kind.cfg_param()
            ));
        }
        names.retain(|x| x == n);
    }
    Ok(names
        .into_iter()
        .map(|n| {
            let c = cfg.cred(kind, &n).cloned().unwrap_or_default();
            let jobs = last
                .iter()
                .flat_map(|l| l.jobs.iter())
                .filter(|j| j.cred(kind) == Some(n.as_str()));
            let (mut active, mut idle) = (0, 0);
            for j in jobs {
                if j.state.is_active() {
                    active += 1;
                } else if j.state == JobState::Idle {
                    idle += 1;
                }
            }
            let limits: Vec<String> = c
                .limits
                .iter()
                .chain(&c.overrides)
                .map(|l| format!("{}={}", l.attr_name(), l.render()))
                .collect();
            CredView {
                priority: c.priority.unwrap_or(0),
                flags: list(c.flags.as_ref()),
                qdef: c.qdef.clone().unwrap_or_else(|| NONE.into()),
                qlist: list(c.qlist.as_ref()),
                plist: list(c.plist.as_ref()),
                fs_target: c.fs_target.map_or(0.0, |t| t.percent),
                limits: if limits.is_empty() {
                    NONE.into()
                } else {
                    limits.join(",")
                },
                pdef: c.pdef.clone(),
                name: n,
                active_jobs: active,
                idle_jobs: idle,
            }
        })
        .collect())
}

/// `diagnose -u|-g|-a|-c [NAME]`: each credential's priority, flags, QOS
/// and partition access, fairshare target and limits, with `-v` its jobs.
pub fn diagnose_cred(
    cfg: &Config,
    last: Option<&LastIteration>,
    kind: CredKind,
    name: Option<&str>,
    verbose: bool,
) -> Result<String, String> {
    let rows = cred_views(cfg, last, kind, name)?;
    let mut o = String::new();
    let class = kind == CredKind::Class;
    if class {
        o.push_str("Class/Queue Status\n\n");
        o.push_str(&format!(
            "{:<14} {:<8} {:<12} {:<12} {:>12}{} {:<20} {:<6} {}\n\n",
            "Name",
            "Priority",
            "Flags",
            "QDef",
            "QOSList",
            '*',
            "PartitionList",
            "Target",
            "Limits"
        ));
    } else {
        o.push_str(&format!(
            "Displaying {} information...\n",
            match kind {
                CredKind::User => "user",
                CredKind::Group => "group",
                _ => "account",
            }
        ));
        o.push_str(&format!(
            "{:<12} {:>8} {:>12} {:>12} {:>12}{} {:>20} {:>6} {:>7}\n\n",
            "Name",
            "Priority",
            "Flags",
            "QDef",
            "QOSList",
            "*",
            "PartitionList",
            "Target",
            "Limits"
        ));
    }
    for r in &rows {
        if class {
            o.push_str(&format!(
                "{:<14} {:>8} {:<12} {:<12} {:>12}  {:<20} {:>5.2} {:>7}\n",
                r.name, r.priority, r.flags, r.qdef, r.qlist, r.plist, r.fs_target, r.limits
            ));
        } else {
            o.push_str(&format!(
                "{:<12} {:>8} {:>12} {:>12} {:>12}  {:>20} {:>6.2} {:>7}\n",
                r.name, r.priority, r.flags, r.qdef, r.qlist, r.plist, r.fs_target, r.limits
            ));
        }
        if let Some(p) = &r.pdef {
            o.push_str(&format!("  PDEF={p}\n"));
        }
        if verbose {
            o.push_str(&format!(
                "  Jobs: {} active, {} idle\n",
                r.active_jobs, r.idle_jobs
            ));
        }
    }
    Ok(o)
}

/// [`diagnose_cred`] as JSON.
pub fn diagnose_cred_json(
    cfg: &Config,
    last: Option<&LastIteration>,
    kind: CredKind,
    name: Option<&str>,
) -> Result<Value, String> {
    let rows = cred_views(cfg, last, kind, name)?;
    Ok(json!({"credential": kind.name().to_lowercase(), "rows": rows}))
}

/// `diagnose -Q`: each QOS's priority, queue time and expansion factor
/// weights and targets, flags and limits (Maui's `MQOSShow` shows every
/// QOS whatever the name given; a name given here shows that one).
pub fn diagnose_qos(
    cfg: &Config,
    last: Option<&LastIteration>,
    name: Option<&str>,
) -> Result<String, String> {
    let rows = cred_views(cfg, last, CredKind::Qos, name)?;
    let mut o = String::from("QOS Status\n\n");
    o.push_str(&format!(
        "{:<20}{} {:>8} {:>8} {:>8} {:>8} {:>8} {:>10} {:>10} {}\n\n",
        "Name",
        '*',
        "Priority",
        "QTWeight",
        "QTTarget",
        "XFWeight",
        "XFTarget",
        "QFlags",
        "JobFlags",
        "Limits"
    ));
    for r in &rows {
        let c = cfg
            .cred(CredKind::Qos, &r.name)
            .cloned()
            .unwrap_or_default();
        o.push_str(&format!(
            "{:<20}  {:>8} {:>8} {:>8} {:>8} {:>8.2} {:>10} {:>10} {}\n",
            r.name,
            r.priority,
            c.qt_weight.unwrap_or(0),
            c.qt_target.unwrap_or(0),
            c.xf_weight.unwrap_or(0),
            c.xf_target.unwrap_or(0.0),
            list(c.qflags.as_ref()),
            r.flags,
            r.limits
        ));
    }
    Ok(o)
}

/// A partition's nodes and processors: configured, up, dedicated, active.
#[derive(Clone, Debug, Default, serde::Serialize)]
struct PartRow {
    name: String,
    nodes: [u64; 4],
    procs: [u64; 4],
    memory: [u64; 4],
}

fn partitions(last: &LastIteration) -> Vec<PartRow> {
    let c = &last.view.cluster;
    let mut rows: Vec<PartRow> = std::iter::once("ALL".to_string())
        .chain(c.partition_names.iter().cloned())
        .map(|name| PartRow {
            name,
            ..PartRow::default()
        })
        .collect();
    let mut busy: Vec<(u64, u64)> = vec![(0, 0); c.nodes.len()];
    for j in last.jobs.iter().filter(|j| j.state.is_active()) {
        for a in &j.allocation {
            if let Some(i) = c.index(&a.node) {
                let per = j.task;
                busy[i as usize].0 += a.tasks as u64 * per.procs as u64;
                busy[i as usize].1 += a.tasks as u64 * per.mem;
            }
        }
    }
    for n in &c.nodes {
        let up = !matches!(
            n.state,
            crate::model::NodeState::Down | crate::model::NodeState::Unknown
        );
        let (bp, bm) = busy[n.index as usize];
        let cfgd = &n.configured;
        let add = |r: &mut PartRow| {
            r.nodes[0] += 1;
            r.procs[0] += cfgd.procs as u64;
            r.memory[0] += cfgd.mem;
            if up {
                r.nodes[1] += 1;
                r.procs[1] += cfgd.procs as u64;
                r.memory[1] += cfgd.mem;
            }
            if bp > 0 {
                r.nodes[2] += 1;
                r.nodes[3] += 1;
            }
            r.procs[2] += bp;
            r.procs[3] += bp;
            r.memory[2] += bm;
            r.memory[3] += bm;
        };
        add(&mut rows[0]);
        if let Some(p) = n.partition_id {
            add(&mut rows[p as usize + 1]);
        }
    }
    rows
}

/// `diagnose -t`: the partitions, with configured, up, dedicated and
/// active nodes, processors and memory (Maui's `MParShow`).
pub fn diagnose_t(last: &LastIteration) -> String {
    let rows = partitions(last);
    let mut o = String::from("Displaying Partition Status\n\n");
    o.push_str(&format!(
        "System Partition Settings:  PList: {}\n\n",
        if rows.len() > 1 {
            rows[1..]
                .iter()
                .map(|r| r.name.as_str())
                .collect::<Vec<_>>()
                .join(":")
        } else {
            "DEFAULT".into()
        }
    ));
    o.push_str(&format!("{:<20} {:>8}\n\n", "Name", "Procs"));
    for r in &rows {
        o.push_str(&format!("{:<20} {:>8}\n", r.name, r.procs[0]));
    }
    let pct = |a: u64, b: u64| {
        if b > 0 {
            100.0 * a as f64 / b as f64
        } else {
            0.0
        }
    };
    for r in &rows {
        o.push_str(&format!("\nPartition {}\n", r.name));
        o.push_str(&format!(
            "{:<12} {:>10} {:>10} {:>7} {:>10} {:>7} {:>10} {:>7}\n\n",
            "Resource", "Configured", "Up", "U/C", "Dedicated", "D/U", "Active", "A/U"
        ));
        for (what, v) in [("Nodes", r.nodes), ("Procs", r.procs), ("Memory", r.memory)] {
            o.push_str(&format!(
                "{:<12} {:>10} {:>10} {:>6.2}% {:>10} {:>6.2}% {:>10} {:>6.2}%\n",
                what,
                v[0],
                v[1],
                pct(v[1], v[0]),
                v[2],
                pct(v[2], v[1]),
                v[3],
                pct(v[3], v[1])
            ));
        }
    }
    o
}

/// [`diagnose_t`] as JSON.
pub fn diagnose_t_json(last: &LastIteration) -> Value {
    let rows: Vec<Value> = partitions(last)
        .into_iter()
        .map(|r| {
            let part = |v: [u64; 4]| json!({"configured": v[0], "up": v[1], "dedicated": v[2], "active": v[3]});
            json!({"partition": r.name, "nodes": part(r.nodes), "procs": part(r.procs), "memory_mb": part(r.memory)})
        })
        .collect();
    json!({"now": last.plan.now, "partitions": rows})
}

/// Maui's hold names, in its order (`MHoldType`).
const HOLDS: [(HoldKind, &str); 3] = [
    (HoldKind::User, "User"),
    (HoldKind::System, "System"),
    (HoldKind::Batch, "Batch"),
];

/// `showhold`: every job with a hold and which (Maui's `MCShowJobHold`).
pub fn showhold(last: &LastIteration) -> String {
    let mut o = format!("{:>16} {:>10}\n\n", "JOBNAME", "HOLDS");
    for j in last.jobs.iter().filter(|j| !j.holds.is_empty()) {
        o.push_str(&format!("{:>16} ", j.id));
        for (k, n) in HOLDS {
            o.push_str(&format!(
                "{:>6} ",
                if j.holds.contains(&k) { n } else { "" }
            ));
        }
        o.push('\n');
    }
    o
}

/// [`showhold`] as JSON.
pub fn showhold_json(last: &LastIteration) -> Value {
    let rows: Vec<Value> = last
        .jobs
        .iter()
        .filter(|j| !j.holds.is_empty())
        .map(|j| {
            json!({"job": j.id, "holds": HOLDS.iter().filter(|(k, _)| j.holds.contains(k)).map(|(_, n)| *n).collect::<Vec<_>>()})
        })
        .collect();
    json!({"now": last.plan.now, "jobs": rows})
}

/// The letters showstate gives active jobs, in Maui's order.
const LETTERS: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789abcdefghijklmnopqrstuvwxyz";

/// `showstate`: the active jobs, each with a letter, then every node with
/// the letters of its jobs or its state (Maui's `MCClusterShow`; without
/// Maui's frames, one line per node).
pub fn showstate(cfg: &Config, last: &LastIteration) -> String {
    let zone = &last.zone;
    let now = last.plan.now;
    let active: Vec<&crate::model::Job> =
        last.jobs.iter().filter(|j| j.state.is_active()).collect();
    let mut o = format!("cluster state summary for {}\n\n", zone.fmt(now));
    o.push_str(&format!(
        "    {:<18} {:1} {:>9} {:>8} {:>5} {:>11}  {:>19}\n",
        "JobName", "S", "User", "Group", "Procs", "Remaining", "StartTime"
    ));
    o.push_str(&format!(
        "    {:<18} {:1} {:>9} {:>8} {:>5} {:>11}  {:>19}\n\n",
        "-".repeat(18),
        "-",
        "-".repeat(9),
        "-".repeat(8),
        "-".repeat(5),
        "-".repeat(11),
        "-".repeat(19)
    ));
    let letter = |i: usize| LETTERS.get(i).map_or('#', |b| *b as char);
    for (i, j) in active.iter().enumerate() {
        let wall = crate::engine::build::walltime(cfg, j);
        let start = j.start_time.unwrap_or(now);
        o.push_str(&format!(
            "({}) {:<18} {:1} {:>9} {:>8} {:>5} {:>11}  {:>19}\n",
            letter(i),
            j.id,
            j.state.name().chars().next().unwrap_or('?'),
            j.user,
            j.group,
            j.procs(),
            super::render::fmt_remaining(wall.saturating_sub(now - start)),
            zone.fmt(start)
        ));
    }
    let c = &last.view.cluster;
    let mut on_node: Vec<Vec<char>> = vec![Vec::new(); c.nodes.len()];
    for (i, j) in active.iter().enumerate() {
        for a in &j.allocation {
            if let Some(n) = c.index(&a.node) {
                on_node[n as usize].push(letter(i));
            }
        }
    }
    let busy_nodes = on_node.iter().filter(|v| !v.is_empty()).count();
    o.push_str(&format!(
        "\nusage summary:  {} active jobs  {} active nodes\n\n",
        active.len(),
        busy_nodes
    ));
    for n in &c.nodes {
        let jobs = &on_node[n.index as usize];
        use crate::model::NodeState as S;
        let mark = match (n.state, jobs.is_empty()) {
            (S::Down, false) => "*".to_string(),
            (S::Down, true) => "#".to_string(),
            (S::Drained | S::Draining, true) => "!".to_string(),
            (S::Unknown, _) => "?".to_string(),
            (S::Busy | S::Running, true) => "@".to_string(),
            (_, true) => " ".to_string(),
            (_, false) => jobs.iter().collect(),
        };
        o.push_str(&format!(
            "{:<20} {:<12} [{mark}]\n",
            n.name,
            n.partition.as_deref().unwrap_or("DEFAULT")
        ));
    }
    o.push_str(
        "\nKey:  [?]:Unknown [*]:Down w/Job [#]:Down [ ]:Idle [@] Busy w/No Job [!] Drained\n",
    );
    for n in c
        .nodes
        .iter()
        .filter(|n| n.state == crate::model::NodeState::Down)
    {
        o.push_str(&format!("\nnode {} is down\n", n.name));
    }
    o
}

/// [`showstate`] as JSON.
pub fn showstate_json(last: &LastIteration) -> Value {
    let c = &last.view.cluster;
    let jobs: Vec<Value> = last
        .jobs
        .iter()
        .filter(|j| j.state.is_active())
        .map(|j| json!({"job": j.id, "state": j.state.name(), "user": j.user, "group": j.group, "procs": j.procs(), "start_time": j.start_time, "nodes": j.allocation.iter().map(|a| &a.node).collect::<Vec<_>>()}))
        .collect();
    let nodes: Vec<Value> = c
        .nodes
        .iter()
        .map(|n| json!({"node": n.name, "state": n.state.name(), "partition": n.partition}))
        .collect();
    json!({"now": last.plan.now, "jobs": jobs, "nodes": nodes})
}
