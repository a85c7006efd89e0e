//! `mauictl trace-info`: what a workload file holds, before simulating it.

use super::cluster;
use super::workload::Workload;
use crate::model::time::{fmt_duration, Zone};
use crate::model::Node;
use std::collections::BTreeSet;
use std::fmt::Write;

/// Where the cluster shown beside a workload comes from.
#[derive(Clone, Debug, PartialEq)]
pub enum ClusterInfo {
    /// Read from a file (or the demo's).
    File {
        /// File name.
        source: String,
        /// Its nodes.
        nodes: Vec<Node>,
    },
    /// Synthesised from the header: the generated description and its nodes.
    Synthesised {
        /// The cluster-format text.
        spec: String,
        /// Its nodes.
        nodes: Vec<Node>,
    },
    /// Neither a file nor enough header information.
    None,
}

/// The report: header, record and job counts, skips, job shape, cluster.
pub fn render(w: &Workload, cluster: &ClusterInfo) -> String {
    let mut o = String::new();
    let _ = writeln!(o, "{}: {}", w.source, w.format.name());
    let header = w.header.render();
    if !header.is_empty() {
        let _ = writeln!(o, "Header:");
        for l in header.lines() {
            let _ = writeln!(o, "  {l}");
        }
    }
    for warn in &w.header.warnings {
        let _ = writeln!(o, "  warning: line {}: {}", warn.line, warn.message);
    }
    let r = &w.read;
    let _ = writeln!(
        o,
        "Lines: {} ({} records, {} comments or blank, {} malformed skipped)",
        r.lines, r.records, r.comments, r.malformed
    );
    for e in &r.examples {
        let _ = writeln!(o, "  malformed: {e}");
    }
    let _ = writeln!(
        o,
        "Jobs: {} ({} records skipped)",
        w.jobs.len(),
        w.skipped_total()
    );
    for (why, n) in &w.skipped {
        let _ = writeln!(o, "  skipped {n}: {}", why.describe());
    }
    if let (Some(first), Some(last)) = (w.jobs.first(), w.jobs.last()) {
        let (t0, t1) = (first.job.submit_time, last.job.submit_time);
        let _ = writeln!(
            o,
            "Submitted: {} .. {} UTC ({})",
            Zone::utc().fmt(t0),
            Zone::utc().fmt(t1),
            fmt_duration(t1 - t0)
        );
        let procs: Vec<u64> = w.jobs.iter().map(|j| j.job.procs()).collect();
        let run: Vec<i64> = w.jobs.iter().map(|j| j.runtime).collect();
        let _ = writeln!(
            o,
            "Processors per job: min {}, median {}, max {}",
            procs.iter().min().unwrap_or(&0),
            median(&procs),
            procs.iter().max().unwrap_or(&0)
        );
        let _ = writeln!(
            o,
            "Runtime: min {}, median {}, max {}",
            fmt_duration(*run.iter().min().unwrap_or(&0)),
            fmt_duration(median(&run)),
            fmt_duration(*run.iter().max().unwrap_or(&0))
        );
        let over = w
            .jobs
            .iter()
            .filter(|j| j.job.walltime.is_some_and(|wt| j.runtime > wt))
            .count();
        let none = w.jobs.iter().filter(|j| j.job.walltime.is_none()).count();
        let _ = writeln!(
            o,
            "Walltime: {over} jobs ran past it (cut there), {none} without one (SYSTEMDEFAULTJOBWALLTIME)"
        );
        let ps: u128 = w
            .jobs
            .iter()
            .map(|j| j.job.procs() as u128 * j.runtime.max(0) as u128)
            .sum();
        let count = |f: &dyn Fn(&crate::model::Job) -> Option<&str>| {
            w.jobs
                .iter()
                .filter_map(|j| f(&j.job))
                .collect::<BTreeSet<_>>()
                .len()
        };
        let _ = write!(
            o,
            "Credentials: {} users, {} groups, {} classes",
            count(&|j| Some(j.user.as_str())),
            count(&|j| Some(j.group.as_str())),
            count(&|j| j.class.as_deref())
        );
        // Only traces that carry them (Maui's, SWF from mauictl convert).
        let (accounts, qos) = (
            count(&|j| j.account.as_deref()),
            count(&|j| j.qos.as_deref()),
        );
        if accounts + qos > 0 {
            let _ = write!(o, ", {accounts} accounts, {qos} QOS");
        }
        let _ = writeln!(o);
        let procs_total = match cluster {
            ClusterInfo::File { nodes, .. } | ClusterInfo::Synthesised { nodes, .. } => {
                cluster::totals(nodes).1
            }
            ClusterInfo::None => 0,
        };
        if procs_total > 0 && t1 > t0 {
            // Offered load: work submitted over the submission span and the cluster.
            let permille = ps * 1000 / (procs_total as u128 * (t1 - t0) as u128);
            let _ = writeln!(
                o,
                "Offered load: {}.{}% of the cluster over the submission span",
                permille / 10,
                permille % 10
            );
        }
    }
    match cluster {
        ClusterInfo::File { source, nodes } => {
            let (n, p, m) = cluster::totals(nodes);
            let _ = writeln!(o, "Cluster: {source}: {n} nodes, {p} processors, {m} MB");
        }
        ClusterInfo::Synthesised { spec, nodes } => {
            let (n, p, m) = cluster::totals(nodes);
            let _ = writeln!(
                o,
                "Cluster (synthesised): {n} nodes, {p} processors, {m} MB"
            );
            for l in spec.lines() {
                let _ = writeln!(o, "  {l}");
            }
        }
        ClusterInfo::None => {
            let _ = writeln!(
                o,
                "Cluster: none (the header has neither MaxNodes nor MaxProcs; give --cluster FILE)"
            );
        }
    }
    o
}

fn median<T: Copy + Ord + Default>(v: &[T]) -> T {
    let mut s = v.to_vec();
    s.sort_unstable();
    s.get(s.len() / 2).copied().unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::demo;

    #[test]
    fn the_demo_report_counts_and_describes() {
        let w = demo::workload();
        let out = render(
            &w,
            &ClusterInfo::File {
                source: demo::CLUSTER_LABEL.into(),
                nodes: demo::cluster(),
            },
        );
        for needle in [
            "<demo: KTH-SP2 first 3000 jobs>: SWF\n",
            "  Computer: IBM SP2\n",
            "  MaxProcs: 100\n",
            "Lines: 3030 (3000 records, 30 comments or blank, 0 malformed skipped)\n",
            "Jobs: 3000 (0 records skipped)\n",
            "Processors per job: min 1, median ",
            ", max 100\n",
            "Cluster: <demo cluster>: 100 nodes, 100 processors, 0 MB\n",
            "Offered load: ",
        ] {
            assert!(out.contains(needle), "{needle:?} missing from\n{out}");
        }
    }
}
