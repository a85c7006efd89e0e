//! Cluster descriptions for the simulator.
//!
//! Three sources, one result (`Vec<model::Node>` in file order):
//!
//! - the cluster text format, one line per group of identical nodes
//!   (`n[001-064] procs=8 mem=16G features=ib partition=batch`, generic
//!   resources as `gres=gpu:4`, `gres=gpu:a100:4` or `gres=gpu:2,tape:1`), specified in
//!   `docs/cluster-format.md` and read by [`parse_cluster`];
//! - Maui's resource traces ([`crate::sim::mauitrace`]), recognised by their
//!   first word: `COMPUTENODE`, or `VERSION` of the `VERSION 230` line
//!   Maui writes first;
//! - a cluster synthesised from an SWF header's `MaxNodes`/`MaxProcs` when no
//!   file is given ([`synthesize`]).

use super::input::{self, InputError, ReadOptions};
use super::mauitrace;
use super::swf::SwfHeader;
use super::workload::SimJob;
use crate::model::{HostList, Node, NodeState, Resources};
use std::collections::BTreeMap;
use std::path::Path;

/// Attribute names of the cluster format, as written (lower case).
pub const KEYS: [&str; 11] = [
    "procs",
    "mem",
    "swap",
    "disk",
    "features",
    "speed",
    "procspeed",
    "partition",
    "state",
    "priority",
    "gres",
];

/// Reads the cluster text format.
pub fn parse_cluster(text: &str, file: &str) -> Result<Vec<Node>, InputError> {
    let mut nodes: Vec<Node> = Vec::new();
    // Name -> line that defined it, for duplicate messages.
    let mut defined: BTreeMap<String, u64> = BTreeMap::new();
    for (i, raw) in text.lines().enumerate() {
        let line = i as u64 + 1;
        let body = raw.split('#').next().unwrap_or("");
        let mut toks = input::fields(body.as_bytes()).map(|(c, t)| (c, String::from_utf8_lossy(t)));
        let Some((ncol, names)) = toks.next() else {
            continue;
        };
        let err = |col: u32, msg: String| InputError::syntax(file, line, col, msg);
        let list = HostList::parse(&names).map_err(|e| err(ncol, e))?;
        let expanded = list.expand().ok_or_else(|| {
            err(
                ncol,
                format!("\"{names}\" is a host regular expression; a cluster file lists names or ranges such as n[001-064]"),
            )
        })?;
        let mut proto = Node {
            configured: Resources::procs(1),
            ..Node::default()
        };
        let mut seen: Vec<&str> = Vec::new();
        for (col, tok) in toks {
            let Some((k, v)) = tok.split_once('=') else {
                return Err(err(col, format!("expected KEY=VALUE, got \"{tok}\"")));
            };
            let key = k.to_ascii_lowercase();
            let Some(&known) = KEYS
                .iter()
                .find(|&&x| x == key || (x == "mem" && key == "memory"))
            else {
                let upper: Vec<String> = KEYS.iter().map(|k| k.to_ascii_uppercase()).collect();
                let hint = crate::config::diag::did_you_mean(k, upper.iter().map(String::as_str))
                    .map(|s| format!(" (did you mean {}?)", s.to_ascii_lowercase()))
                    .unwrap_or_default();
                return Err(err(
                    col,
                    format!(
                        "unknown attribute \"{k}\"{hint}; known: {}",
                        KEYS.join(", ")
                    ),
                ));
            };
            if seen.contains(&known) {
                return Err(err(col, format!("{known} given twice")));
            }
            seen.push(known);
            let vcol = col + k.len() as u32 + 1;
            set_attr(&mut proto, known, v).map_err(|m| err(vcol, format!("{known}: {m}")))?;
        }
        for name in expanded {
            if let Some(first) = defined.get(&name) {
                return Err(err(
                    ncol,
                    format!("node {name} is already defined on line {first}"),
                ));
            }
            defined.insert(name.clone(), line);
            nodes.push(Node {
                name,
                index: nodes.len() as u32,
                ..proto.clone()
            });
        }
    }
    if nodes.is_empty() {
        return Err(InputError::Invalid {
            file: file.to_string(),
            message: "defines no nodes".into(),
        });
    }
    Ok(nodes)
}

fn set_attr(n: &mut Node, key: &str, v: &str) -> Result<(), String> {
    match key {
        "procs" => {
            n.configured.procs = match v.parse::<u32>() {
                Ok(p) if p > 0 => p,
                _ => return Err(format!("expected a positive integer, got \"{v}\"")),
            }
        }
        "mem" => n.configured.mem = size_mb(v)?,
        "swap" => n.configured.swap = size_mb(v)?,
        "disk" => n.configured.disk = size_mb(v)?,
        "features" => {
            let f: Vec<String> = v
                .split(',')
                .filter(|s| !s.is_empty())
                .map(String::from)
                .collect();
            if f.is_empty() {
                return Err("expected a comma-separated list of features".into());
            }
            n.features = f;
        }
        "speed" => match v.parse::<f64>() {
            Ok(s) if s.is_finite() && s > 0.0 => n.speed = Some(s),
            _ => return Err(format!("expected a positive number, got \"{v}\"")),
        },
        "procspeed" => match v.parse::<u32>() {
            Ok(s) if s > 0 => n.procspeed = Some(s),
            _ => return Err(format!("expected a positive integer (MHz), got \"{v}\"")),
        },
        "partition" => {
            if v.is_empty() || v.contains(',') {
                return Err(format!("expected one partition name, got \"{v}\""));
            }
            n.partition = Some(v.to_string());
        }
        "state" => {
            n.state = match v.to_ascii_lowercase().as_str() {
                "idle" | "up" => NodeState::Idle,
                "down" => NodeState::Down,
                "drained" => NodeState::Drained,
                _ => return Err(format!("expected idle, down or drained, got \"{v}\"")),
            }
        }
        "priority" => {
            n.priority = Some(
                v.parse::<i64>()
                    .map_err(|_| format!("expected an integer, got \"{v}\""))?,
            )
        }
        "gres" => {
            let g = crate::model::GresList::parse(v)?;
            if g.is_empty() {
                return Err("expected name[:type]:count[,...] such as gpu:4".into());
            }
            n.gres = g;
        }
        _ => unreachable!("key checked against KEYS"),
    }
    Ok(())
}

/// A size in MB: a bare number is MB; `M`, `G`, `T` (or `MB`, `GB`, `TB`)
/// suffixes in powers of 1024.
pub fn size_mb(v: &str) -> Result<u64, String> {
    let bad = || format!("expected a size in MB such as 16384, 512M or 16G, got \"{v}\"");
    let up = v.to_ascii_uppercase();
    let t = up.strip_suffix('B').unwrap_or(&up);
    let (digits, mult) = match t.as_bytes().last() {
        Some(b'M') => (&t[..t.len() - 1], 1u64),
        Some(b'G') => (&t[..t.len() - 1], 1024),
        Some(b'T') => (&t[..t.len() - 1], 1024 * 1024),
        _ if t.len() == up.len() => (t, 1),
        _ => return Err(bad()),
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(bad());
    }
    digits
        .parse::<u64>()
        .ok()
        .and_then(|x| x.checked_mul(mult))
        .ok_or_else(bad)
}

/// Reads a cluster file (plain or gzip): Maui resource trace when its first
/// word is `COMPUTENODE` or `VERSION` (Maui's `VERSION 230` line), the
/// cluster text format otherwise.
pub fn load_cluster(path: &Path) -> Result<Vec<Node>, InputError> {
    let name = path.display().to_string();
    let text = input::read_to_string(input::open(path)?, &name)?;
    parse_any(&text, &name)
}

/// Reads cluster text of either kind (see [`load_cluster`]).
pub fn parse_any(text: &str, file: &str) -> Result<Vec<Node>, InputError> {
    let first = text
        .lines()
        .map(str::trim_start)
        .find(|l| !l.is_empty() && !l.starts_with('#'));
    let is_trace = first.is_some_and(|l| {
        l.split_whitespace()
            .next()
            .is_some_and(|w| w.eq_ignore_ascii_case("COMPUTENODE") || w.starts_with("VERSION"))
    });
    if !is_trace {
        return parse_cluster(text, file);
    }
    let (recs, _) = mauitrace::read_resources(text.as_bytes(), file, ReadOptions::default())?;
    let nodes = mauitrace::resource_nodes(&recs);
    if nodes.is_empty() {
        return Err(InputError::Invalid {
            file: file.to_string(),
            message: "defines no nodes".into(),
        });
    }
    Ok(nodes)
}

/// The cluster an SWF header describes, in the cluster text format, or
/// `None` when the header gives neither `MaxNodes` nor `MaxProcs`.
///
/// - `MaxNodes` nodes holding `MaxProcs` processors between them, as evenly
///   as possible (the first `MaxProcs mod MaxNodes` nodes get one more); with
///   only one of the two, one processor per node; with fewer processors than
///   nodes, one node per processor.
/// - Memory per processor: the larger of the header's `MaxMemory` (KB per
///   processor, like the job fields) and the largest per-processor request
///   among `jobs`, so every job's memory request can be met; none when both
///   are absent.
/// - Names `n001`, `n002`, ... (at least three digits); no features, no
///   partitions, speed 1.
pub fn synth_spec(header: &SwfHeader, jobs: &[SimJob]) -> Option<String> {
    let (nodes, procs) = match (header.max_nodes, header.max_procs) {
        (Some(n), Some(p)) if n > 0 && p > 0 => (n.min(p), p),
        (Some(n), _) if n > 0 => (n, n),
        (_, Some(p)) if p > 0 => (p, p),
        _ => return None,
    };
    let header_mem = header.max_memory.map_or(0, |kb| kb.div_ceil(1024));
    let job_mem = jobs
        .iter()
        .map(|j| j.job.task.mem.div_ceil(j.job.task.procs.max(1) as u64))
        .max()
        .unwrap_or(0);
    let mem_per_proc = header_mem.max(job_mem);
    let width = nodes.to_string().len().max(3);
    let (base, extra) = (procs / nodes, procs % nodes);
    let mut out = format!(
        "# synthesised from the SWF header: MaxNodes={}, MaxProcs={}, MaxMemory={}\n",
        header.max_nodes.map_or("-".into(), |v| v.to_string()),
        header.max_procs.map_or("-".into(), |v| v.to_string()),
        header.max_memory.map_or("-".into(), |v| format!("{v}KB")),
    );
    let mut line = |first: u64, last: u64, ppn: u64| {
        let names = if first == last {
            format!("n{first:0width$}")
        } else {
            format!("n[{first:0width$}-{last:0width$}]")
        };
        out.push_str(&format!("{names} procs={ppn}"));
        if mem_per_proc > 0 {
            out.push_str(&format!(" mem={}", mem_per_proc * ppn));
        }
        out.push('\n');
    };
    if extra > 0 {
        line(1, extra, base + 1);
        line(extra + 1, nodes, base);
    } else {
        line(1, nodes, base);
    }
    Some(out)
}

/// The nodes of [`synth_spec`].
pub fn synthesize(header: &SwfHeader, jobs: &[SimJob]) -> Option<Vec<Node>> {
    // The spec is generated above from numbers only; it always parses.
    parse_cluster(&synth_spec(header, jobs)?, "<synthesised>").ok()
}

/// Totals for a cluster summary: nodes, processors, memory (MB).
pub fn totals(nodes: &[Node]) -> (usize, u64, u64) {
    nodes.iter().fold((0, 0, 0), |(n, p, m), x| {
        (n + 1, p + x.configured.procs as u64, m + x.configured.mem)
    })
}

#[cfg(test)]
#[path = "cluster_tests.rs"]
mod tests;
