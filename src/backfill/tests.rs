use super::*;
use crate::config::Config;
use crate::model::{Node, Resources};
use crate::profile::Unreserved;
use crate::profile::{ClaimMode, Occupant};

fn cluster(n: usize) -> Cluster {
    cluster_of(n, 1)
}

/// `n` nodes of `procs` processors each.
fn cluster_of(n: usize, procs: u32) -> Cluster {
    let nodes: Vec<Node> = (0..n)
        .map(|i| Node {
            name: format!("n{}", i + 1),
            configured: Resources::procs(procs),
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
    let w = windows(&c, &p, 0, &Unreserved);
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
    let w = windows(&c, &p, 0, &Unreserved);
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

/// Maui's window availability (`MBFGetWindow` on `MJobGetNRange`'s first
/// range): until the first change in free processors when it is a drop,
/// else until the second change. On 8-processor nodes at t = 0:
/// n1 idle; n2 with 1 free and jobs of 1, 2 and 4 processors ending at
/// 1740 s, 14280 s and 28680 s (the case seen in Maui's log: "supports 1
/// task for 3:58:00"); n3 with 2 free, jobs of 2 and 4 ending at 14400 s
/// and 28800 s ("2 tasks for 8:00:00"); n4 with 6 free (a job of 2 ends
/// at 7200 s) and a reservation taking 2 from 3600 s (the drop comes first:
/// 3600 s).
#[test]
fn maui_windows_end_at_a_drop_or_the_second_change() {
    let (c, mut p) = eight_processor_nodes(4);
    let occ = |job, e, tasks| Occupant {
        job,
        start: -60,
        end: e,
        task: Resources::procs(1),
        tasks,
    };
    for (job, e, t) in [(0, 1740, 1), (1, 14280, 2), (2, 28680, 4)] {
        p.add_running_job(1, occ(job, e, t), &Unreserved);
    }
    for (job, e, t) in [(3, 14400, 2), (4, 28800, 4)] {
        p.add_running_job(2, occ(job, e, t), &Unreserved);
    }
    p.add_running_job(3, occ(5, 7200, 2), &Unreserved);
    let r = Occupant {
        job: 6,
        start: 3600,
        end: 90_000,
        task: Resources::procs(1),
        tasks: 2,
    };
    p.add_job(3, r, &Unreserved).unwrap();
    let avail: Vec<(u32, Secs)> = (0..4)
        .map(|n| maui_available(&p, n, 0, &Unreserved))
        .collect();
    assert_eq!(
        avail,
        vec![(8, Secs::MAX), (1, 14280), (2, 28800), (6, 3600)]
    );
    // The windows one after the other: all four nodes for 3600 s, then
    // the three others for 14280 s, n1 and n3 for 28800 s, n1 alone.
    let w = maui_window(&c, &p, 0, 0, &Unreserved).unwrap();
    assert_eq!((w.nodes.len(), w.procs, w.duration), (4, 17, 3600));
    let w = maui_window(&c, &p, 0, 3600, &Unreserved).unwrap();
    assert_eq!((w.nodes, w.procs, w.duration), (vec![0, 1, 2], 11, 14280));
    let w = maui_window(&c, &p, 0, 14280, &Unreserved).unwrap();
    assert_eq!((w.nodes, w.procs, w.duration), (vec![0, 2], 10, 28800));
    let w = maui_window(&c, &p, 0, 28800, &Unreserved).unwrap();
    assert_eq!((w.nodes, w.duration), (vec![0], Secs::MAX));
    assert!(maui_window(&c, &p, 0, Secs::MAX, &Unreserved).is_none());
}

/// Maui's range search ignores a net gain at a time when something also
/// starts: on n1, a 5-processor job ends as a 3-processor reservation
/// begins, and the range of the 3 free processors goes on until the
/// reservation ends (a gain, joined with the range after it: no end). On
/// n2 the same is followed by two plain gains, and the second ends it.
#[test]
fn maui_availability_ignores_a_gain_when_something_starts() {
    let (_, mut p) = eight_processor_nodes(2);
    let occ = |job, start, end, tasks| Occupant {
        job,
        start,
        end,
        task: Resources::procs(1),
        tasks,
    };
    p.add_running_job(0, occ(0, -60, 480, 5), &Unreserved);
    p.add_job(0, occ(1, 480, 14_880, 3), &Unreserved).unwrap();
    p.add_running_job(1, occ(2, -60, 480, 4), &Unreserved);
    p.add_running_job(1, occ(3, -60, 5000, 1), &Unreserved);
    p.add_running_job(1, occ(4, -60, 9000, 1), &Unreserved);
    p.add_job(1, occ(5, 480, 20_000, 3), &Unreserved).unwrap();
    assert_eq!(maui_available(&p, 0, 0, &Unreserved), (3, Secs::MAX));
    assert_eq!(maui_available(&p, 1, 0, &Unreserved), (2, 9000));
}

/// `n` idle 8-processor nodes and their empty profile at time 0.
fn eight_processor_nodes(n: usize) -> (Cluster, Profile) {
    let c = cluster_of(n, 8);
    let p = Profile::from_cluster(&c, 0);
    (c, p)
}

#[test]
fn maui_windows_by_binary_search_are_those_of_a_pass_over_every_node() {
    // Random availability lists, windows taken one after the other (each
    // from the last one's duration) and entries refreshed as after starts:
    // the indexed windows are the plain pass's, field for field.
    let mut r = crate::sim::synth::Rng::new(11);
    for _ in 0..300 {
        let n = 1 + r.below(40) as usize;
        let mut avail: Vec<(NodeIdx, u32, Secs)> = (0..n as u32)
            .map(|k| {
                let d = match r.below(5) {
                    0 => Secs::MAX,
                    _ => r.range(1, 6) as Secs * 600,
                };
                (k, r.below(4) as u32, d)
            })
            .collect();
        let speed = |n: NodeIdx| 0.5 + (n % 3) as f64 * 0.25;
        let mut fast = MauiWindows::new(avail.clone(), speed);
        let mut longer_than: Secs = 0;
        loop {
            let plain = maui_window_of(&avail, longer_than);
            let size = fast.window(longer_than);
            assert_eq!(plain.is_some(), size.is_some(), "{avail:?} > {longer_than}");
            let (Some(w), Some(s)) = (plain, size) else {
                break;
            };
            assert_eq!((w.procs, w.duration), (s.procs, s.duration));
            let top = w.nodes.iter().map(|&n| speed(n)).fold(f64::MIN, f64::max);
            assert_eq!(top, s.speed);
            assert_eq!(fast.nodes(longer_than), w.nodes);
            // A start on some of the window's nodes shortens them.
            if r.below(2) == 0 {
                let placed: Vec<NodeIdx> = w
                    .nodes
                    .iter()
                    .copied()
                    .filter(|_| r.below(3) == 0)
                    .collect();
                let new: Vec<(u32, Secs)> =
                    placed.iter().map(|_| (r.below(2) as u32, 600)).collect();
                let of = |n: NodeIdx| new[placed.iter().position(|&p| p == n).unwrap()];
                for a in avail.iter_mut().filter(|a| placed.contains(&a.0)) {
                    (a.1, a.2) = of(a.0);
                }
                fast.refresh(&placed, of);
            }
            if w.duration == Secs::MAX {
                break;
            }
            longer_than = w.duration;
        }
    }
}
