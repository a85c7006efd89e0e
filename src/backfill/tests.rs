use super::*;
use crate::config::Config;
use crate::model::{Node, Resources};
use crate::profile::{ClaimMode, Occupant};

fn cluster(n: usize) -> Cluster {
    let nodes: Vec<Node> = (0..n)
        .map(|i| Node {
            name: format!("n{}", i + 1),
            configured: Resources::procs(1),
            ..Node::default()
        })
        .collect();
    Cluster::build(&nodes, &Config::default())
}

/// Seed 8.2.2's figure: 8 nodes over 2 hours, two running jobs and the
/// reservation of job C; two overlapping windows, 4 nodes for one hour and
/// 1 node without limit.
#[test]
fn seed_backfill_windows_figure() {
    let c = cluster(8);
    let mut p = Profile::from_cluster(&c, 0);
    let occ = |job, s, e| Occupant {
        job,
        start: s,
        end: e,
        task: Resources::procs(1),
        tasks: 1,
    };
    for n in 0..2 {
        p.add_running_job(n, occ(0, 0, 3 * 3600), &Unreserved); // job A
    }
    for n in 2..4 {
        p.add_running_job(n, occ(1, 0, 3 * 3600), &Unreserved); // job B
    }
    for n in 4..7 {
        p.add_job(n, occ(2, 3600, 3 * 3600), &Unreserved).unwrap(); // job C's reservation
    }
    let w = windows(&c, &p, 0);
    assert_eq!(w.len(), 2);
    assert_eq!(
        (w[0].nodes.len(), w[0].procs, w[0].duration),
        (4, 4, 3600),
        "window 1: 4 nodes for 1 hour"
    );
    assert_eq!(
        (w[1].nodes.clone(), w[1].duration),
        (vec![7], Secs::MAX),
        "window 2: 1 node, no limit"
    );
    assert!(
        w[1].nodes.iter().all(|n| w[0].nodes.contains(n)),
        "the windows overlap"
    );
}

#[test]
fn reserved_capacity_is_not_a_window() {
    let c = cluster(2);
    let mut p = Profile::from_cluster(&c, 0);
    p.add_claim(
        0,
        0,
        0,
        INFINITY,
        Resources::procs(1),
        ClaimMode::SideBySide,
        &|_| false,
    );
    let w = windows(&c, &p, 0);
    assert_eq!(w.len(), 1);
    assert_eq!(w[0].nodes, vec![1]);
}

#[test]
fn bestfit_orders_by_the_metric() {
    let jobs = [
        BfJob {
            key: 0,
            procs: 2,
            seconds: 100,
        },
        BfJob {
            key: 1,
            procs: 4,
            seconds: 10,
        },
        BfJob {
            key: 2,
            procs: 1,
            seconds: 1000,
        },
    ];
    assert_eq!(best_first(&jobs, BackfillMetric::Procs), vec![1, 0, 2]);
    assert_eq!(best_first(&jobs, BackfillMetric::Seconds), vec![2, 0, 1]);
    assert_eq!(
        best_first(&jobs, BackfillMetric::ProcSeconds),
        vec![2, 0, 1]
    );
}

#[test]
fn greedy_fills_the_window_best() {
    // Window of 10 procs: 6+4 fills it exactly; best-first on PROCS would
    // take 7 and then nothing else fits.
    let jobs = [
        BfJob {
            key: 0,
            procs: 7,
            seconds: 60,
        },
        BfJob {
            key: 1,
            procs: 6,
            seconds: 60,
        },
        BfJob {
            key: 2,
            procs: 4,
            seconds: 60,
        },
    ];
    let mut g = greedy(&jobs, 10, BackfillMetric::Procs);
    g.sort();
    assert_eq!(g, vec![1, 2]);
    assert_eq!(best_first(&jobs, BackfillMetric::Procs)[0], 0);
    assert!(greedy(&jobs, 0, BackfillMetric::Procs).is_empty());
}
