//! Per-node statistics and Maui's `showstats -n` (`UINodeStatShow`,
//! `MStatBuildRClass`): how long each node was up and busy since the
//! statistics began, and the workload of the jobs in the queue by the
//! node memory they need.
//!
//! Each iteration charges the time since the last one to every node by
//! the state it had over that time (as Maui's `MRMNodePreUpdate` does):
//! always to its total, to its up time unless it was down, draining or of
//! unknown state, and to its busy time when it was up and not idle.

use crate::config::Config;
use crate::engine::{build::walltime, LastIteration};
use crate::model::{NodeState, Secs};
use serde::Serialize;
use serde_json::{json, Value};

/// What a node did since the statistics began.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct NodeTimes {
    /// Node name.
    pub node: String,
    /// Configured memory, MB.
    pub memory: u64,
    /// Seconds tracked.
    pub total: Secs,
    /// Seconds up.
    pub up: Secs,
    /// Seconds up with work on it.
    pub busy: Secs,
    /// State at the last iteration, as Maui shows it.
    #[serde(skip)]
    pub state: NodeState,
}

impl NodeTimes {
    /// Up over the last interval (Maui: not down, draining or unknown).
    fn counts_up(state: NodeState) -> bool {
        !matches!(
            state,
            NodeState::Down | NodeState::Draining | NodeState::Unknown
        )
    }
}

/// The nodes' times, in the RM's node order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct NodeStats {
    nodes: Vec<NodeTimes>,
}

impl NodeStats {
    /// Charges `dt` seconds (since the last iteration; 0 on the first) to
    /// each node by its state then, and takes up the nodes' states after
    /// `last`: Maui's Idle, Running or Busy by what active jobs and the
    /// plan's starts hold there, else the RM's.
    pub fn record(&mut self, last: &LastIteration, dt: Secs) {
        let c = &last.view.cluster;
        if dt > 0 {
            for n in &mut self.nodes {
                n.total += dt;
                if NodeTimes::counts_up(n.state) {
                    n.up += dt;
                    if n.state != NodeState::Idle {
                        n.busy += dt;
                    }
                }
            }
        }
        let held = crate::commands::render::held_procs(last);
        let same = self.nodes.len() == c.nodes.len()
            && self
                .nodes
                .iter()
                .zip(&c.nodes)
                .all(|(a, b)| a.node == b.name);
        if !same {
            let mut old = std::mem::take(&mut self.nodes);
            self.nodes = (c.nodes.iter())
                .map(|n| match old.iter().position(|o| o.node == n.name) {
                    Some(k) => old.swap_remove(k),
                    None => NodeTimes {
                        node: n.name.clone(),
                        ..NodeTimes::default()
                    },
                })
                .collect();
        }
        for ((t, n), &procs) in self.nodes.iter_mut().zip(&c.nodes).zip(&held) {
            t.memory = n.configured.mem;
            t.state = match n.state {
                NodeState::Down | NodeState::Drained | NodeState::Draining | NodeState::Unknown => {
                    n.state
                }
                _ if procs == 0 => NodeState::Idle,
                _ if procs >= n.configured.procs => NodeState::Busy,
                _ => NodeState::Running,
            };
        }
    }

    /// The nodes' times.
    pub fn nodes(&self) -> &[NodeTimes] {
        &self.nodes
    }
}

/// One memory class of Maui's "Memory Requirement Breakdown".
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MemClass {
    /// Node memory, MB.
    pub memory: u64,
    /// Nodes with that memory.
    pub nodes: u64,
    /// Processor-seconds of the jobs that need it (first by the smallest
    /// class they fit, `initial`), after Maui moves work to larger
    /// classes that are less loaded.
    pub workload: u64,
    /// Before that.
    pub initial: u64,
}

/// `MStatBuildRClass`: the node memory classes (ascending, nodes with no
/// memory left out) and the workload of every job in the queue (its
/// processors times its walltime), put in the smallest class its node
/// memory requirement fits, then spread from each class over the larger
/// ones whose load per node is not above its own.
pub fn memory_classes(cfg: &Config, last: &LastIteration, nodes: &[NodeTimes]) -> Vec<MemClass> {
    let mut classes: Vec<MemClass> = Vec::new();
    for n in nodes.iter().filter(|n| n.memory > 0) {
        match classes.binary_search_by_key(&n.memory, |c| c.memory) {
            Ok(k) => classes[k].nodes += 1,
            Err(k) => classes.insert(
                k,
                MemClass {
                    memory: n.memory,
                    nodes: 1,
                    workload: 0,
                    initial: 0,
                },
            ),
        }
    }
    for j in &last.jobs {
        let need = j.node_mem.map_or(0, |m| m.mb);
        if let Some(c) = classes.iter_mut().find(|c| need <= c.memory) {
            c.workload += j.procs() * walltime(cfg, j).max(0) as u64;
            c.initial = c.workload;
        }
    }
    let avg = |c: &MemClass| c.workload / c.nodes;
    for k in (0..classes.len().saturating_sub(1)).rev() {
        let own = avg(&classes[k]);
        let (mut nodes, mut work) = (classes[k].nodes, classes[k].workload);
        for c in &classes[k + 1..] {
            if own >= avg(c) {
                nodes += c.nodes;
                work += c.workload;
            }
        }
        if work > 0 {
            for c in &mut classes[k..] {
                if own >= avg(c) {
                    c.workload = (work as f64 * c.nodes as f64 / nodes as f64) as u64;
                }
            }
        }
    }
    classes
}

fn pct(a: f64, b: f64) -> f64 {
    if b > 0.0 {
        100.0 * a / b
    } else {
        0.0
    }
}

/// `showstats -n` in Maui's layout; `summary` (`-S`) leaves out the nodes.
pub fn render(cfg: &Config, last: &LastIteration, stats: &NodeStats, summary: bool) -> String {
    let nodes = stats.nodes();
    let classes = memory_classes(cfg, last, nodes);
    let total_nodes: u64 = classes.iter().map(|c| c.nodes).sum();
    if total_nodes == 0 {
        return "No Nodes Detected\n".into();
    }
    let total_work: u64 = classes.iter().map(|c| c.workload).sum();
    let avg_load = total_work / total_nodes;
    let mut o = String::from("Memory Requirement Breakdown:\n\n");
    o.push_str(&format!(
        "{:>8} {:>5} {:>7} {:>9} {:>7} {:>10} {:>7}\n",
        "Memory", "Proc", "Percent", "InitialNH", "Percent", "ProcHours", "Percent"
    ));
    for c in &classes {
        let (avg, iavg) = if avg_load == 0 {
            (0.0, 0.0)
        } else {
            (
                c.workload as f64 / c.nodes as f64 / avg_load as f64 * 100.0,
                c.initial as f64 / c.nodes as f64 / avg_load as f64 * 100.0,
            )
        };
        o.push_str(&format!(
            "{:>8} {:>5} {:>7.2} {:>9} {:>7.2} {:>10} {:>7.2}\n",
            c.memory,
            c.nodes,
            pct(c.nodes as f64, total_nodes as f64),
            c.initial / 3600,
            iavg,
            c.workload / 3600,
            avg
        ));
    }
    o.push_str(&format!(
        "{:>8} {:>5} {:>7.2} {:>9} {:>7.2} {:>10} {:>7.2}\n\n",
        "TOTAL",
        total_nodes,
        100.0,
        total_work / 3600,
        100.0,
        total_work / 3600,
        100.0
    ));
    o.push_str("\nNode Statistics\n\n");
    let mut sys = Summary::default();
    for c in &classes {
        let mut mem = Summary::default();
        for n in nodes.iter().filter(|n| n.memory == c.memory) {
            if mem.nodes == 0 && !summary {
                o.push_str(&format!("{:4}MB Nodes\n", c.memory));
                o.push_str(&format!(
                    "{:>20} {:>9} {:>9} {:>9}\n",
                    "NodeName", "Available", "Busy", "NodeState"
                ));
            }
            mem.add(n);
            if !summary {
                if n.up != 0 {
                    o.push_str(&format!(
                        "{:>20} {:>8.2}% {:>8.2}% {:>9}\n",
                        n.node,
                        pct(n.up as f64, n.total as f64),
                        pct(n.busy as f64, n.up as f64),
                        n.state.name()
                    ));
                } else {
                    o.push_str(&format!(
                        "{:>20} {:>9.2} {:>9.2} {:>9}\n",
                        n.node,
                        0.0,
                        0.0,
                        n.state.name()
                    ));
                }
            }
        }
        if mem.nodes > 0 {
            o.push_str(&format!(
                "Summary:  {:3} {:4}MB Nodes  {}\n",
                mem.nodes,
                c.memory,
                mem.figures()
            ));
            if !summary {
                o.push('\n');
            }
        }
        sys.merge(&mem);
    }
    if sys.total != 0 {
        o.push_str(&format!(
            "System Summary:  {:3} Nodes  {}\n",
            sys.nodes,
            sys.figures()
        ));
    }
    o.push('\n');
    o
}

/// `showstats -n --json`.
pub fn json(cfg: &Config, last: &LastIteration, stats: &NodeStats) -> Value {
    let nodes = stats.nodes();
    let classes = memory_classes(cfg, last, nodes);
    let rows: Vec<Value> = (nodes.iter())
        .map(|n| {
            json!({
                "node": n.node,
                "memory": n.memory,
                "state": n.state.name(),
                "total": n.total,
                "up": n.up,
                "busy": n.busy,
                "available_percent": pct(n.up as f64, n.total as f64),
                "busy_percent": pct(n.busy as f64, n.up as f64),
            })
        })
        .collect();
    json!({"memory_classes": classes, "nodes": rows})
}

/// Totals of a memory class or of the system.
#[derive(Default)]
struct Summary {
    nodes: u64,
    total: Secs,
    up: Secs,
    busy: Secs,
    up_now: u64,
    busy_now: u64,
}

impl Summary {
    fn add(&mut self, n: &NodeTimes) {
        self.nodes += 1;
        self.total += n.total;
        self.up += n.up;
        self.busy += n.busy;
        if matches!(
            n.state,
            NodeState::Idle | NodeState::Running | NodeState::Busy
        ) {
            self.up_now += 1;
        }
        if n.state == NodeState::Busy {
            self.busy_now += 1;
        }
    }

    fn merge(&mut self, o: &Summary) {
        self.nodes += o.nodes;
        self.total += o.total;
        self.up += o.up;
        self.busy += o.busy;
        self.up_now += o.up_now;
        self.busy_now += o.busy_now;
    }

    /// Maui's `%6.2f% Avail  %6.2f% Busy  (Current: ...)`; busy time is
    /// over the total here, as in Maui's summaries.
    fn figures(&self) -> String {
        format!(
            "{:6.2}% Avail  {:6.2}% Busy  (Current: {:6.2}% Avail  {:6.2}% Busy)",
            pct(self.up as f64, self.total as f64),
            pct(self.busy as f64, self.total as f64),
            pct(self.up_now as f64, self.nodes as f64),
            pct(self.busy_now as f64, self.nodes as f64)
        )
    }
}
