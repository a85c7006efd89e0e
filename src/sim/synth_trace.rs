//! Synthetic workloads for the simulator (`mauictl simulate --synthetic
//! NODES[,JOBS[,SEED]]`): a cluster of any size and a trace that keeps it
//! busy, drawn from a seed, so that the simulator's cost on a large
//! machine can be measured (and tested) without downloading a log.
//!
//! - **Nodes**: those of `mauictl bench` ([`super::synth`]): five types,
//!   about 44 processors per node, features `ib`, `fast`, `bigmem`, `gpu`.
//! - **Jobs**: the queued shapes of `bench` (35 % serial up to 5 % of
//!   513–4,096 processors, feature requests, tasks per node, 400 users in
//!   40 groups, classes `batch`, `debug`, `long`, walltimes 10 minutes to
//!   48 hours). A job never asks for more than half of the processors of
//!   the nodes that have its features, so every job can run.
//! - **Runtimes**: 5–100 % of the walltime (uniform).
//! - **Arrivals**: a Poisson process whose rate offers [`LOAD`] of the
//!   cluster's processors over the trace: the mean interarrival time is
//!   the jobs' total work (processors × runtime) divided by the cluster's
//!   processors, [`LOAD`] and the number of jobs. A queue forms and drains
//!   as on a busy production machine.
//! - **Time 0** is [`super::synth::NOW`] (2023-11-14 22:13:20 UTC).

use super::input::ReadStats;
use super::swf::SwfHeader;
use super::synth::{self, Rng};
use super::workload::{SimJob, TraceFormat, Workload};
use crate::model::{Node, Secs};
use std::str::FromStr;

/// The share of the cluster's processors the trace's work asks for.
pub const LOAD: f64 = 0.9;

/// Size and seed of a synthetic trace.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TraceSpec {
    /// Nodes in the cluster.
    pub nodes: usize,
    /// Jobs in the trace.
    pub jobs: usize,
    /// Generator seed.
    pub seed: u64,
}

impl TraceSpec {
    /// Jobs when `--synthetic` names only the nodes.
    pub const DEFAULT_JOBS: usize = 10_000;

    /// The label of the trace in reports.
    pub fn label(&self) -> String {
        format!(
            "<synthetic: {} nodes, {} jobs, seed {}>",
            self.nodes, self.jobs, self.seed
        )
    }
}

impl FromStr for TraceSpec {
    type Err = String;

    /// `NODES[,JOBS[,SEED]]`, each a positive integer (SEED may be 0).
    fn from_str(s: &str) -> Result<Self, String> {
        let parts: Vec<&str> = s.split(',').map(str::trim).collect();
        if parts.len() > 3 {
            return Err(format!("expected NODES[,JOBS[,SEED]], got \"{s}\""));
        }
        let num = |i: usize, what: &str| -> Result<Option<u64>, String> {
            parts
                .get(i)
                .map(|p| {
                    p.replace('_', "")
                        .parse::<u64>()
                        .map_err(|_| format!("{what} must be a whole number, got \"{p}\""))
                })
                .transpose()
        };
        let nodes = num(0, "NODES")?.unwrap_or(0) as usize;
        let jobs = num(1, "JOBS")?.map_or(Self::DEFAULT_JOBS, |j| j as usize);
        let seed = num(2, "SEED")?.unwrap_or(1);
        if nodes == 0 || jobs == 0 {
            return Err(format!(
                "NODES and JOBS must be at least 1, got \"{s}\" (NODES[,JOBS[,SEED]])"
            ));
        }
        if nodes > 1_000_000 {
            return Err(format!("at most 1,000,000 nodes, got {nodes}"));
        }
        Ok(TraceSpec { nodes, jobs, seed })
    }
}

/// Processors on the nodes that have every one of `features`.
fn procs_with(nodes: &[Node], features: &[String]) -> u64 {
    nodes
        .iter()
        .filter(|n| features.iter().all(|f| n.features.contains(f)))
        .map(|n| n.configured.procs as u64)
        .sum()
}

/// The cluster and workload of `spec`.
pub fn trace(spec: &TraceSpec) -> (Vec<Node>, Workload) {
    let mut r = Rng::new(spec.seed);
    let nodes = synth::draw_nodes(&mut r, spec.nodes);
    let total: u64 = procs_with(&nodes, &[]);
    // The cap per feature set, computed once per set.
    let mut caps: std::collections::HashMap<Vec<String>, u32> = Default::default();
    let mut jobs: Vec<SimJob> = Vec::with_capacity(spec.jobs);
    let mut work = 0f64;
    for k in 0..spec.jobs {
        let mut job = synth::job_shape(&mut r, k + 1, false);
        let mut cap = *caps
            .entry(job.features.to_vec())
            .or_insert_with(|| (procs_with(&nodes, &job.features) / 2).min(u32::MAX as u64) as u32);
        if cap == 0 {
            // No node has the features (a small cluster): drop the
            // request rather than strand the job.
            job.features.clear();
            cap = (total / 2).clamp(1, u32::MAX as u64) as u32;
        }
        job.tasks = job.tasks.min(cap).max(1);
        if job.tasks_per_node.is_some_and(|t| t > job.tasks) {
            job.tasks_per_node = None;
        }
        let wall = job.walltime.unwrap_or(3600);
        let runtime = ((wall as f64) * (0.05 + 0.95 * r.unit())).round().max(1.0) as Secs;
        work += runtime as f64 * job.tasks as f64;
        jobs.push(SimJob {
            job,
            runtime,
            trace_wait: None,
        });
    }
    let mean_gap = work / (total.max(1) as f64 * LOAD) / spec.jobs as f64;
    let mut t = synth::NOW as f64;
    for j in &mut jobs {
        t += -mean_gap * (1.0 - r.unit()).ln();
        j.job.submit_time = t.round() as i64;
    }
    let header = SwfHeader {
        max_jobs: Some(spec.jobs as u64),
        max_nodes: Some(spec.nodes as u64),
        max_procs: Some(total),
        unix_start_time: Some(synth::NOW),
        ..SwfHeader::default()
    };
    let w = Workload {
        source: spec.label(),
        // Its jobs follow the SWF mapping's conventions (users `u<N>`).
        format: TraceFormat::Swf,
        header,
        origin: synth::NOW,
        jobs,
        read: ReadStats {
            records: spec.jobs as u64,
            ..ReadStats::default()
        },
        skipped: Default::default(),
    };
    (nodes, w)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_spec_reads_nodes_jobs_and_seed() {
        assert_eq!(
            "5000".parse::<TraceSpec>().unwrap(),
            TraceSpec {
                nodes: 5000,
                jobs: TraceSpec::DEFAULT_JOBS,
                seed: 1
            }
        );
        assert_eq!(
            "5_000, 20000,7".parse::<TraceSpec>().unwrap(),
            TraceSpec {
                nodes: 5000,
                jobs: 20_000,
                seed: 7
            }
        );
        for bad in ["", "0", "10,0", "x", "1,2,3,4", "-5", "2000000"] {
            assert!(bad.parse::<TraceSpec>().is_err(), "{bad}");
        }
        assert!("10,x"
            .parse::<TraceSpec>()
            .unwrap_err()
            .contains("JOBS must be a whole number"));
    }

    #[test]
    fn the_trace_is_deterministic_fits_its_cluster_and_offers_its_load() {
        let spec = TraceSpec {
            nodes: 60,
            jobs: 2000,
            seed: 3,
        };
        let (nodes, w) = trace(&spec);
        let (nodes2, w2) = trace(&spec);
        assert_eq!(nodes, nodes2);
        assert_eq!(w.jobs, w2.jobs);
        assert_eq!(nodes.len(), 60);
        assert_eq!(w.jobs.len(), 2000);
        assert_eq!(w.source, "<synthetic: 60 nodes, 2000 jobs, seed 3>");
        // Submit times rise from time 0; ids are unique.
        assert!(w.jobs[0].job.submit_time >= synth::NOW);
        assert!(w
            .jobs
            .windows(2)
            .all(|p| p[0].job.submit_time <= p[1].job.submit_time));
        let ids: std::collections::HashSet<_> = w.jobs.iter().map(|j| &j.job.id).collect();
        assert_eq!(ids.len(), 2000);
        // Every job fits the nodes with its features, with room to spare.
        for j in &w.jobs {
            let have = procs_with(&nodes, &j.job.features);
            assert!(2 * j.job.tasks as u64 <= have.max(1), "{:?}", j.job);
            assert!(j.runtime >= 1 && j.runtime <= j.job.walltime.unwrap());
        }
        // The work offered over the span is LOAD of the processors, within
        // the noise of 2,000 arrivals.
        let total = procs_with(&nodes, &[]) as f64;
        let work: f64 = w
            .jobs
            .iter()
            .map(|j| j.runtime as f64 * j.job.tasks as f64)
            .sum();
        let span = (w.jobs.last().unwrap().job.submit_time - synth::NOW) as f64;
        let load = work / (total * span);
        assert!((load - LOAD).abs() < 0.1, "{load}");
        // Another seed, another trace.
        let (_, w3) = trace(&TraceSpec { seed: 4, ..spec });
        assert_ne!(w.jobs, w3.jobs);
    }
}
