//! The bundled demo data behind `mauictl simulate --demo`: the first 3,000
//! jobs of the KTH SP2 log and a 100-node cluster shaped like that machine
//! (see `data/demo/README.md` for origin and acknowledgement).

use super::cluster;
use super::input::{self, ReadOptions};
use super::workload::{self, MapOptions, Workload};
use crate::model::Node;

/// The demo trace, gzip-compressed SWF.
pub const TRACE_GZ: &[u8] = include_bytes!("../../data/demo/kth-sp2-first3000.swf.gz");

/// Label of the demo trace in messages.
pub const TRACE_LABEL: &str = "<demo: KTH-SP2 first 3000 jobs>";

/// The demo cluster, in the cluster text format.
pub const CLUSTER_TEXT: &str = include_str!("../../data/demo/cluster.txt");

/// Label of the demo cluster in messages.
pub const CLUSTER_LABEL: &str = "<demo cluster>";

/// The demo cluster's nodes.
pub fn cluster() -> Vec<Node> {
    // Bundled at build time and checked by the tests below.
    cluster::parse_cluster(CLUSTER_TEXT, CLUSTER_LABEL).expect("bundled demo cluster parses")
}

/// The demo workload with the default mapping conventions.
pub fn workload() -> Workload {
    workload_with(&MapOptions::default())
}

/// The demo workload with other mapping conventions.
pub fn workload_with(map: &MapOptions) -> Workload {
    workload::load_swf(
        input::from_bytes(TRACE_GZ),
        TRACE_LABEL,
        ReadOptions::default(),
        map,
    )
    .expect("bundled demo trace parses")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn demo_data_loads_and_fits_together() {
        let nodes = cluster();
        assert_eq!(nodes.len(), 100);
        assert_eq!(cluster::totals(&nodes), (100, 100, 0));
        assert_eq!(nodes[0].name, "sp2n001");
        assert_eq!(nodes[99].name, "sp2n100");
        assert_eq!(nodes[50].features, vec!["frame2"]);

        let w = workload();
        assert_eq!(w.read.records, 3000);
        assert_eq!(w.jobs.len() as u64 + w.skipped_total(), 3000);
        assert_eq!(w.skipped_total(), 0, "{:?}", w.skipped);
        assert_eq!(w.origin, 843_480_031, "UnixStartTime of the KTH log");
        assert_eq!(w.header.max_procs, Some(100));
        assert!(w
            .header
            .notes
            .iter()
            .any(|n| n.contains("first 3000 job records")));
        // The first record is job 15, submitted 599850 s into the log.
        let j = &w.jobs[0];
        assert_eq!(j.job.id, "15");
        assert_eq!(j.job.submit_time, 843_480_031 + 599_850);
        assert_eq!(
            (j.job.tasks, j.job.walltime, j.runtime),
            (4, Some(53_940), 3477)
        );
        assert_eq!((j.job.user.as_str(), j.job.group.as_str()), ("u12", "g12"));
        // Every job fits the cluster.
        assert!(w.jobs.iter().all(|j| j.job.procs() <= 100));
    }
}
