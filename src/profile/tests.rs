use super::*;
use crate::model::time::HOUR;

const T0: Time = 1_000_000;

fn p(n: u32) -> Resources {
    Resources::procs(n)
}

fn job(job: JobIdx, start: Time, end: Time, tasks: u32) -> Occupant {
    Occupant {
        job,
        start,
        end,
        task: p(1),
        tasks,
    }
}

fn admit(rs: &[(ResIdx, Affinity)]) -> AdmitSet {
    AdmitSet(rs.iter().copied().collect())
}

const NOBODY: &dyn Fn(JobIdx) -> bool = &|_| false;

#[test]
fn running_jobs_hold_until_walltime_or_a_short_overrun() {
    assert_eq!(running_window(100, 50, 120), (100, 150));
    assert_eq!(
        running_window(100, 50, 200),
        (100, 200 + OVERRUN_REMAINDER),
        "past its walltime: a small positive remainder"
    );
}

#[test]
fn jobs_consume_and_free_over_time() {
    let mut pr = Profile::new(T0, [p(4)]);
    pr.add_job(0, job(1, T0, T0 + HOUR, 3), &Unreserved)
        .unwrap();
    assert_eq!(pr.free(0, T0, T0 + 10, &Unreserved), p(1));
    assert_eq!(pr.free(0, T0 + HOUR, T0 + 2 * HOUR, &Unreserved), p(4));
    assert_eq!(
        pr.free(0, T0, T0 + 2 * HOUR, &Unreserved),
        p(1),
        "minimum over the window"
    );
    assert_eq!(pr.tasks_fit(0, T0, T0 + 1, &p(2), &Unreserved), 0);
    assert!(pr.add_job(0, job(2, T0, T0 + 1, 2), &Unreserved).is_err());
    assert_eq!(pr.next_change(0, T0), Some(T0 + HOUR));
    assert_eq!(pr.next_change(0, T0 + HOUR), None);
    assert_eq!(pr.occupants(0, T0 + HOUR - 1, T0 + HOUR).len(), 1);
    assert!(pr.occupants(0, T0 + HOUR, T0 + 2 * HOUR).is_empty());
    assert!(pr.remove_job(0, 1));
    assert_eq!(pr.free(0, T0, T0 + 2 * HOUR, &Unreserved), p(4));
    assert_eq!(pr.segment_count(0), 1, "segments coalesce back");
}

#[test]
fn claims_go_side_by_side_before_stacking() {
    // Seed 7.1.5.2.3: a 16-processor host, two 8-processor reservations.
    let mut pr = Profile::new(T0, [p(16)]);
    let a = pr.add_claim(0, 0, T0, INFINITY, p(8), ClaimMode::MayStack, NOBODY);
    let b = pr.add_claim(0, 1, T0, INFINITY, p(8), ClaimMode::MayStack, NOBODY);
    assert_eq!((a, b), (p(8), p(8)));
    assert_eq!(pr.claims_at(0, T0), vec![(0, p(8)), (1, p(8))]);
    assert_eq!(pr.free(0, T0, T0 + 1, &Unreserved), p(0));
    assert_eq!(
        pr.free(0, T0, T0 + 1, &admit(&[(0, Affinity::Positive)])),
        p(8)
    );
    assert_eq!(
        pr.free(
            0,
            T0,
            T0 + 1,
            &admit(&[(0, Affinity::Positive), (1, Affinity::Positive)])
        ),
        p(16)
    );
    // A third dedicated claim finds no unclaimed room; a shared one stacks.
    assert_eq!(
        pr.add_claim(0, 2, T0, INFINITY, p(4), ClaimMode::SideBySide, NOBODY),
        p(0)
    );
    assert_eq!(
        pr.add_claim(0, 2, T0, INFINITY, p(4), ClaimMode::MayStack, NOBODY),
        p(4)
    );
    // Stacked capacity needs admission by both reservations (AND).
    assert_eq!(
        pr.free(0, T0, T0 + 1, &admit(&[(0, Affinity::Positive)])),
        p(4)
    );
    assert_eq!(
        pr.free(
            0,
            T0,
            T0 + 1,
            &admit(&[(0, Affinity::Positive), (2, Affinity::Positive)])
        ),
        p(8)
    );
    assert!(pr.remove_claim(0, 2));
    assert_eq!(
        pr.free(0, T0, T0 + 1, &admit(&[(0, Affinity::Positive)])),
        p(8)
    );
    assert!(pr.remove_claim(0, 0) && pr.remove_claim(0, 1));
    assert_eq!(pr.free(0, T0, T0 + 1, &Unreserved), p(16));
    assert_eq!(pr.segment_count(0), 1);
}

#[test]
fn claims_take_admitted_jobs_and_wait_for_others() {
    let mut pr = Profile::new(T0, [p(4)]);
    pr.add_job(0, job(7, T0, T0 + HOUR, 2), &Unreserved)
        .unwrap();
    pr.add_job(0, job(8, T0, T0 + 2 * HOUR, 1), &Unreserved)
        .unwrap();
    // A whole-node claim admitting job 7 but not job 8: it covers job 7's
    // share, the free processor, and job 8's processor once job 8 ends.
    let got = pr.add_claim(0, 0, T0, T0 + 3 * HOUR, p(4), ClaimMode::MayStack, &|j| {
        j == 7
    });
    assert_eq!(got, p(3), "partial while job 8 runs");
    assert_eq!(pr.claimed(0, 0, T0, T0 + 2 * HOUR), p(3));
    assert_eq!(pr.claimed(0, 0, T0 + 2 * HOUR, T0 + 3 * HOUR), p(4));
    // Nobody outside the reservation can use the node while it holds.
    assert_eq!(pr.free(0, T0, T0 + 1, &Unreserved), p(0));
    assert_eq!(pr.free(0, T0 + 3 * HOUR, T0 + 4 * HOUR, &Unreserved), p(4));
    let inside = admit(&[(0, Affinity::Positive)]);
    assert_eq!(pr.free(0, T0, T0 + 1, &inside), p(1));
    assert_eq!(pr.free(0, T0 + 2 * HOUR, T0 + 3 * HOUR, &inside), p(4));
    // Removing job 7 returns its share to the reservation, not to everyone.
    assert!(pr.remove_job(0, 7));
    assert_eq!(pr.free(0, T0, T0 + 1, &Unreserved), p(0));
    assert_eq!(pr.free(0, T0, T0 + 1, &inside), p(3));
}

#[test]
fn affinity_orders_consumption() {
    // 8 procs: 4 claimed by reservation 0, 4 unclaimed.
    let mut pr = Profile::new(T0, [p(8)]);
    pr.add_claim(0, 0, T0, INFINITY, p(4), ClaimMode::SideBySide, NOBODY);
    let pos = admit(&[(0, Affinity::Positive)]);
    let neg = admit(&[(0, Affinity::Negative)]);
    assert_eq!(
        pr.reserved_affinity(0, T0, T0 + 1, &pos),
        Some(Affinity::Positive)
    );
    assert_eq!(pr.reserved_affinity(0, T0, T0 + 1, &Unreserved), None);
    // A negative-affinity job takes unclaimed processors first ...
    pr.add_job(0, job(1, T0, T0 + HOUR, 3), &neg).unwrap();
    assert_eq!(pr.free(0, T0, T0 + 1, &Unreserved), p(1));
    assert_eq!(pr.free(0, T0, T0 + 1, &pos), p(5));
    // ... a positive one reserved processors first.
    pr.add_job(0, job(2, T0, T0 + HOUR, 3), &pos).unwrap();
    assert_eq!(pr.free(0, T0, T0 + 1, &Unreserved), p(1));
    assert_eq!(pr.free(0, T0, T0 + 1, &pos), p(2));
    // The negative job spills into the reservation only as a last resort.
    pr.add_job(0, job(3, T0, T0 + HOUR, 2), &neg).unwrap();
    assert_eq!(pr.free(0, T0, T0 + 1, &pos), p(0));
}

#[test]
fn earliest_start_sweeps_boundaries() {
    // Two 4-proc nodes; node 0 busy 1 h, node 1 has 2 procs busy 2 h.
    let mut pr = Profile::new(T0, [p(4), p(4)]);
    pr.add_job(0, job(1, T0, T0 + HOUR, 4), &Unreserved)
        .unwrap();
    pr.add_job(1, job(2, T0, T0 + 2 * HOUR, 2), &Unreserved)
        .unwrap();
    let any = |_| true;
    let req = FitRequest::new(2, p(1), HOUR, T0);
    assert_eq!(pr.earliest_start(&req, &Unreserved, any).unwrap().start, T0);
    let req = FitRequest::new(4, p(1), HOUR, T0);
    let fit = pr.earliest_start(&req, &Unreserved, any).unwrap();
    assert_eq!(fit.start, T0 + HOUR);
    assert_eq!(fit.nodes, vec![(0, 4), (1, 2)]);
    let req = FitRequest::new(8, p(1), HOUR, T0);
    assert_eq!(
        pr.earliest_start(&req, &Unreserved, any).unwrap().start,
        T0 + 2 * HOUR
    );
    // Four tasks on exactly one node: node 0 after its job.
    let req = FitRequest {
        nodes: Some(1),
        ..FitRequest::new(4, p(1), HOUR, T0)
    };
    assert_eq!(
        pr.earliest_start(&req, &Unreserved, any).unwrap().start,
        T0 + HOUR
    );
    // TPN 3: node 1's two free procs do not count.
    let req = FitRequest {
        min_per_node: 3,
        ..FitRequest::new(3, p(1), HOUR, T0)
    };
    assert_eq!(
        pr.earliest_start(&req, &Unreserved, any).unwrap().start,
        T0 + HOUR
    );
    // At most 2 per node: 4 tasks at T0 + 1 h (2 + 2).
    let req = FitRequest {
        max_per_node: Some(2),
        ..FitRequest::new(4, p(1), HOUR, T0)
    };
    let fit = pr.earliest_start(&req, &Unreserved, any).unwrap();
    assert_eq!((fit.start, fit.nodes), (T0 + HOUR, vec![(0, 2), (1, 2)]));
    // Filter: node 1 only.
    let req = FitRequest::new(4, p(1), HOUR, T0);
    assert_eq!(
        pr.earliest_start(&req, &Unreserved, |n| n == 1)
            .unwrap()
            .start,
        T0 + 2 * HOUR
    );
    // Never fits.
    let req = FitRequest::new(1, p(5), HOUR, T0);
    assert_eq!(pr.earliest_start(&req, &Unreserved, any), None);
}

#[test]
fn earliest_start_respects_a_future_reservation() {
    // One 2-proc node, a system reservation [T0+2h, T0+3h).
    let mut pr = Profile::new(T0, [p(2)]);
    pr.add_claim(
        0,
        0,
        T0 + 2 * HOUR,
        T0 + 3 * HOUR,
        p(2),
        ClaimMode::MayStack,
        NOBODY,
    );
    let any = |_| true;
    let short = FitRequest::new(2, p(1), 2 * HOUR, T0);
    assert_eq!(
        pr.earliest_start(&short, &Unreserved, any).unwrap().start,
        T0
    );
    let long = FitRequest::new(2, p(1), 2 * HOUR + 1, T0);
    assert_eq!(
        pr.earliest_start(&long, &Unreserved, any).unwrap().start,
        T0 + 3 * HOUR
    );
    let inside = admit(&[(0, Affinity::Positive)]);
    assert_eq!(pr.earliest_start(&long, &inside, any).unwrap().start, T0);
    assert_eq!(
        pr.gap_after(0, T0, T0 + HOUR, &p(1), &Unreserved),
        Some(HOUR)
    );
    assert_eq!(
        pr.gap_after(0, T0, T0 + 2 * HOUR, &p(1), &Unreserved),
        Some(0)
    );
    assert_eq!(pr.gap_after(0, T0, T0 + 2 * HOUR, &p(1), &inside), None);
}

#[test]
fn window_dependent_admission_is_checked_exactly() {
    // Reservation 0 over [T0+1h, T0+5h) admits jobs overlapping it by at
    // most one hour (a TIMELIMIT). A 2-hour job fits from T0 (1 h overlap).
    let mut pr = Profile::new(T0, [p(1)]);
    pr.add_claim(
        0,
        0,
        T0 + HOUR,
        T0 + 5 * HOUR,
        p(1),
        ClaimMode::MayStack,
        NOBODY,
    );
    struct TimeLimit {
        rs: Time,
        re: Time,
        limit: Secs,
    }
    impl Admits for TimeLimit {
        fn admits(&self, _: ResIdx, s: Time, e: Time) -> Option<Affinity> {
            let ov = (e.min(self.re) - s.max(self.rs)).max(0);
            (ov <= self.limit).then_some(Affinity::Positive)
        }
        fn critical_starts(&self, _: ResIdx, d: Secs) -> Vec<Time> {
            vec![self.rs + self.limit - d + 1, self.re - self.limit]
        }
    }
    let tl = TimeLimit {
        rs: T0 + HOUR,
        re: T0 + 5 * HOUR,
        limit: HOUR,
    };
    let req = FitRequest::new(1, p(1), 2 * HOUR, T0);
    assert_eq!(pr.earliest_start(&req, &tl, |_| true).unwrap().start, T0);
    let req = FitRequest::new(1, p(1), 3 * HOUR, T0 + 1);
    let fit = pr.earliest_start(&req, &tl, |_| true).unwrap();
    assert_eq!(fit.start, T0 + 4 * HOUR, "overlaps the last hour only");
}

#[test]
fn running_jobs_are_facts() {
    let mut pr = Profile::new(T0, [p(2)]);
    pr.add_claim(0, 0, T0, INFINITY, p(2), ClaimMode::MayStack, NOBODY);
    let over = pr.add_running_job(0, job(1, T0 - HOUR, T0 + HOUR, 3), &Unreserved);
    assert_eq!(over, p(1), "a 3-task job on a 2-proc node overflows by one");
    assert_eq!(pr.occupants(0, T0, T0 + 1).len(), 1);
}

/// `free_steps` walks a node's boundaries giving what `free` gives for the
/// instant at each: jobs ending, a reservation's claim beginning, from a
/// time inside a segment.
#[test]
fn free_steps_are_free_at_each_boundary() {
    let mut pr = Profile::new(T0, [p(8)]);
    pr.add_job(0, job(1, T0, T0 + HOUR, 3), &Unreserved)
        .unwrap();
    pr.add_job(0, job(2, T0, T0 + 3 * HOUR, 1), &Unreserved)
        .unwrap();
    pr.add_claim(
        0,
        0,
        T0 + 2 * HOUR,
        T0 + 4 * HOUR,
        p(6),
        ClaimMode::MayStack,
        NOBODY,
    );
    let adm = admit(&[(0, Affinity::Neutral)]);
    for from in [T0, T0 + 10, T0 + HOUR, T0 + 2 * HOUR + 5] {
        for a in [&Unreserved as &dyn Admits, &adm] {
            let steps: Vec<(Time, Resources)> = pr.free_steps(0, from, a).collect();
            let mut want = vec![(from, pr.free(0, from, from + 1, a))];
            let mut t = from;
            while let Some(c) = pr.next_change(0, t) {
                want.push((c, pr.free(0, c, c + 1, a)));
                t = c;
            }
            assert_eq!(steps, want, "from {from}");
        }
    }
    let steps: Vec<_> = pr.free_steps(0, T0, &Unreserved).collect();
    assert_eq!(
        steps,
        vec![
            (T0, p(4)),
            (T0 + HOUR, p(7)),
            (T0 + 2 * HOUR, p(1)),
            (T0 + 3 * HOUR, p(2)),
            (T0 + 4 * HOUR, p(8)),
        ]
    );
}

/// One step of [`the_fit_cache_gives_the_answers_of_the_search`].
#[derive(Clone, Debug)]
enum Step {
    /// Place job `j` on `node` for `[now + at, now + at + len)`.
    Add {
        node: u32,
        j: JobIdx,
        at: i64,
        len: i64,
        tasks: u32,
    },
    /// Remove job `j` from `node`.
    Remove { node: u32, j: JobIdx },
    /// A claim on `node` over `[now + at, now + at + len)`.
    Claim { node: u32, at: i64, len: i64 },
    /// Time passes.
    Advance { by: i64 },
    /// Ask for `tasks` tasks of `procs` for `len`, from `now + after`.
    Ask {
        tasks: u32,
        procs: u32,
        len: i64,
        after: i64,
        per_node: u32,
        nodes: Option<u32>,
    },
}

fn step() -> impl Strategy<Value = Step> {
    use proptest::prelude::*;
    prop_oneof![
        (0u32..4, 0u32..6, 0i64..8, 1i64..8, 1u32..4).prop_map(|(node, j, at, len, tasks)| {
            Step::Add {
                node,
                j,
                at: at * 600,
                len: len * 600,
                tasks,
            }
        }),
        (0u32..4, 0u32..6).prop_map(|(node, j)| Step::Remove { node, j }),
        (0u32..4, 0i64..8, 1i64..4).prop_map(|(node, at, len)| Step::Claim {
            node,
            at: at * 600,
            len: len * 600
        }),
        (0i64..4).prop_map(|by| Step::Advance { by: by * 300 }),
        (
            1u32..10,
            1u32..3,
            1i64..8,
            0i64..3,
            0u32..3,
            prop::option::of(1u32..4)
        )
            .prop_map(|(tasks, procs, len, after, per_node, nodes)| Step::Ask {
                tasks,
                procs,
                len: len * 600,
                after: after * 600,
                per_node,
                nodes,
            }),
    ]
}

use proptest::prelude::*;

proptest! {
    /// Whatever happens to the lines between two questions (jobs placed
    /// and removed, claims, time passing), the search with the cache
    /// kept across them answers as the search without.
    #[test]
    fn the_fit_cache_gives_the_answers_of_the_search(steps in prop::collection::vec(step(), 1..60)) {
        let mut pr = Profile::new(T0, [p(4), p(4), p(2), p(8)]);
        let mut now = T0;
        let mut cache = FitCache::default();
        let mut asked = 0;
        for s in steps {
            match s {
                Step::Add { node, j, at, len, tasks } => {
                    let _ = pr.add_job(node, job(j, now + at, now + at + len, tasks), &Unreserved);
                }
                Step::Remove { node, j } => {
                    pr.remove_job(node, j);
                }
                Step::Claim { node, at, len } => {
                    pr.add_claim(node, 0, now + at, now + at + len, p(1), ClaimMode::MayStack, NOBODY);
                }
                Step::Advance { by } => {
                    now += by;
                    pr.advance(now);
                }
                Step::Ask { tasks, procs, len, after, per_node, nodes } => {
                    let req = FitRequest {
                        min_per_node: per_node,
                        nodes,
                        ..FitRequest::new(tasks, p(procs), len, now + after)
                    };
                    asked += 1;
                    prop_assert_eq!(
                        pr.earliest_start_cached(&req, &Unreserved, |n| n != 2 || asked % 2 == 0, &mut cache),
                        pr.earliest_start(&req, &Unreserved, |n| n != 2 || asked % 2 == 0)
                    );
                }
            }
        }
    }
}

/// The first start of `req` on `nodes` found by checking every time at
/// which a window of its duration changes the segments it covers, one by
/// one: what the search must answer, however it narrows the times down.
fn every_start_checked(pr: &Profile, req: &FitRequest, nodes: &[NodeIdx]) -> Option<Fit> {
    let from = req.earliest.max(pr.origin());
    let d = req.duration.max(1);
    let mut cands = vec![from];
    for &n in nodes {
        for s in &pr.lines[n as usize].segs {
            for t in [s.start, s.start.saturating_sub(d).saturating_add(1)] {
                if t > from {
                    cands.push(t);
                }
            }
        }
    }
    cands.sort_unstable();
    cands.dedup();
    cands
        .into_iter()
        .find_map(|t| pr.check_at(nodes, t, d, req, &Unreserved))
}

proptest! {
    /// On timelines long enough that the search works to a horizon (many
    /// jobs per node, as under a reservation for every job), from the
    /// first time the whole cluster has room ([`Load`]), it finds the
    /// start that checking every possible start finds; and the cluster's
    /// load, kept change by change, is the one the lines add up to.
    #[test]
    fn the_search_on_long_timelines_finds_the_first_start(
        jobs in prop::collection::vec((0u32..3, 0i64..96, 1i64..24, 1u32..9), 20..120),
        gone in prop::collection::vec(0u32..120, 0..10),
        claims in prop::collection::vec((0u32..3, 0i64..96, 1i64..24, 1u32..6), 0..6),
        advance in 0i64..24,
        asks in prop::collection::vec((1u32..40, 1u32..5, 1i64..48, 0i64..48, prop::option::of(1u32..4)), 1..8),
    ) {
        let mut pr = Profile::new(T0, [p(16), p(16), p(8)]);
        // The load made now is kept up to date by each change below.
        let _ = pr.load_bound(T0, 1, 1, &p(1));
        for (j, &(node, at, len, tasks)) in jobs.iter().enumerate() {
            let _ = pr.add_job(node, job(j as JobIdx, T0 + at * 600, T0 + (at + len) * 600, tasks), &Unreserved);
        }
        prop_assert_eq!(pr.load.get(), Some(&pr.load_from_lines()));
        // Claims move capacity and the jobs they admit between cells: the
        // load stays what it was.
        for &(node, at, len, procs) in &claims {
            pr.add_claim(node, 0, T0 + at * 600, T0 + (at + len) * 600, p(procs), ClaimMode::MayStack, &|j| j % 3 == 0);
        }
        prop_assert_eq!(pr.load.get(), Some(&pr.load_from_lines()));
        for &j in &gone {
            for n in 0..3 {
                pr.remove_job(n, j);
            }
        }
        pr.remove_claim(1, 0);
        prop_assert_eq!(pr.load.get(), Some(&pr.load_from_lines()));
        let now = T0 + advance * 600;
        pr.advance(now);
        prop_assert_eq!(pr.load.get(), Some(&pr.load_from_lines()));
        let mut cache = FitCache::default();
        for (tasks, procs, len, after, nodes) in asks {
            let req = FitRequest {
                nodes,
                ..FitRequest::new(tasks, p(procs), len * 600, now + after * 600)
            };
            let want = every_start_checked(&pr, &req, &[0, 1, 2]);
            prop_assert_eq!(&pr.earliest_start(&req, &Unreserved, |_| true), &want);
            prop_assert_eq!(&pr.earliest_start_cached(&req, &Unreserved, |_| true, &mut cache), &want);
        }
    }
}

#[test]
fn the_load_bounds_the_start_by_the_whole_clusters_room() {
    let mut pr = Profile::new(T0, [p(4), p(4)]);
    let one = p(1);
    assert_eq!(
        pr.load_bound(T0, HOUR, 8, &one),
        Some(T0),
        "made here, then kept"
    );
    // 6 of 8 processors busy for an hour, then 2 for another.
    pr.add_job(0, job(1, T0, T0 + 2 * HOUR, 2), &Unreserved)
        .unwrap();
    pr.add_job(1, job(2, T0, T0 + HOUR, 4), &Unreserved)
        .unwrap();
    assert_eq!(pr.load_bound(T0, HOUR, 2, &one), Some(T0));
    assert_eq!(pr.load_bound(T0, HOUR, 3, &one), Some(T0 + HOUR));
    assert_eq!(pr.load_bound(T0, HOUR, 8, &one), Some(T0 + 2 * HOUR));
    assert_eq!(
        pr.load_bound(T0, HOUR, 9, &one),
        None,
        "more than the cluster has"
    );
    // A job for ever from the third hour: 6 processors are free only
    // between the first and the third.
    pr.add_job(1, job(3, T0 + 3 * HOUR, INFINITY, 3), &Unreserved)
        .unwrap();
    assert_eq!(pr.load_bound(T0, HOUR, 6, &one), Some(T0 + HOUR));
    assert_eq!(pr.load_bound(T0, 3 * HOUR, 6, &one), None);
    assert_eq!(pr.load_bound(T0, 3 * HOUR, 5, &one), Some(T0 + HOUR));
    pr.remove_job(1, 3);
    assert_eq!(pr.load_bound(T0, 3 * HOUR, 6, &one), Some(T0 + HOUR));
    pr.advance(T0 + 90 * 60);
    assert_eq!(pr.load.get(), Some(&pr.load_from_lines()));
    assert_eq!(
        pr.load_bound(T0 + 90 * 60, HOUR, 6, &one),
        Some(T0 + 90 * 60)
    );
    assert_eq!(
        pr.load_bound(T0 + 90 * 60, HOUR, 7, &one),
        Some(T0 + 2 * HOUR)
    );
}

#[test]
fn node_offers_are_kept_only_while_they_are_reused() {
    let mut r = Reuse::default();
    // The first misses keep what they make.
    assert!((0..1023).all(|_| r.note(false)));
    // Never reused: one miss in sixteen keeps its offer, to look again.
    let kept = (0..1600).filter(|_| r.note(false)).count();
    assert_eq!(kept, 100);
    // Reused again: kept on every miss once reuse is one in eight.
    for _ in 0..400 {
        r.note(true);
    }
    assert!(r.note(false) && r.note(false));
    // The counts are halved before they overflow.
    for _ in 0..200_000 {
        r.note(false);
    }
    assert!(r.missed <= 1 << 16);
}

/// Maui's availability of an 8-processor node (`MJobGetNRange`): 4 free
/// now, 8 from t+1000 (a release: a new range), 2 from t+2000 (a
/// reservation of 6 starts: a drop), 8 again from t+5000. For a 4-task job
/// of 1,500 s the first range merges the gain and ends at the drop: 4 tasks
/// for 2,000 s. For 2,500 s, 3 tasks are not free that long (the range
/// ends for good at the drop to 2), so the bisection settles on 2, whose
/// range is merged on through the drop while shorter than the walltime:
/// 2 tasks for 5,000 s. A job of 4 tasks of 2 processors gets 2 of them.
#[test]
fn maui_availability_merges_and_bisects_as_maui() {
    let mut pr = Profile::new(T0, [p(8)]);
    pr.add_running_job(0, job(0, T0 - 60, T0 + 1000, 4), &Unreserved);
    pr.add_job(0, job(1, T0 + 2000, T0 + 5000, 6), &Unreserved)
        .unwrap();
    let avail =
        |task: Resources, wall| pr.maui_availability(0, T0, &task, 4, None, wall, &Unreserved);
    assert_eq!(avail(p(1), 1500), Some((4, 2000)));
    assert_eq!(avail(p(1), 2500), Some((2, 5000)));
    assert_eq!(avail(p(2), 1500), Some((2, 2000)));
    // Nothing is free for 6,000 s without a break but what the reservation
    // leaves: 2 processors, with no end.
    assert_eq!(avail(p(1), 6000), Some((2, Secs::MAX)));
    assert_eq!(avail(p(4), 6000), None);
}

/// Maui's range search on a node of a reservation that ended since the
/// last iteration (`Profile::set_just_ended`): 8 processors, one job
/// started now on 1, two running jobs releasing 2 at t+100 and 2 more at
/// t+200. For a 1-task job the release at t+100 opens a second range,
/// merged into the first, which ends at t+200: 3 tasks for 200 s. On a
/// node of a just-ended reservation the job started now goes unchecked
/// until t+100, which then counts as a taking: the gain there opens no
/// range, and the first range runs to t+200 and merges the next, which
/// the job started now ends at t+10,000.
#[test]
fn a_just_ended_reservation_leaves_the_first_change_a_taking_as_maui() {
    let mut pr = Profile::new(T0, [p(8)]);
    pr.add_running_job(0, job(0, T0 - 60, T0 + 100, 2), &Unreserved);
    pr.add_running_job(0, job(1, T0 - 60, T0 + 200, 2), &Unreserved);
    pr.add_job(0, job(2, T0, T0 + 10_000, 1), &Unreserved)
        .unwrap();
    let range = |pr: &Profile| pr.maui_range(0, T0, &p(1), 1, 1, 1, &Unreserved);
    assert_eq!(range(&pr), Some((3, 200)));
    pr.set_just_ended(vec![0]);
    assert_eq!(range(&pr), Some((3, 10_000)));
    // Without a job started now there is nothing left unchecked.
    pr.remove_job(0, 2);
    assert_eq!(range(&pr), Some((4, 200)));
}

/// Moving the origin changes only the lines it passes a boundary of; the
/// others keep their first segment, taken to begin at the origin, and
/// every change and answer there is the one a line begun at the origin
/// gives.
#[test]
fn a_line_the_origin_passes_no_boundary_of_behaves_as_begun_at_it() {
    let now = T0 + 2 * HOUR;
    let mut pr = Profile::new(T0, [p(4), p(4)]);
    pr.add_job(0, job(1, T0, T0 + HOUR, 2), &Unreserved)
        .unwrap();
    pr.add_job(1, job(2, T0, T0 + 3 * HOUR, 2), &Unreserved)
        .unwrap();
    assert_eq!(pr.advance(now), vec![0], "node 0's job ended");
    pr.remove_job(0, 1);
    let mut fresh = Profile::new(now, [p(4), p(4)]);
    fresh
        .add_job(1, job(2, T0, T0 + 3 * HOUR, 2), &Unreserved)
        .unwrap();
    assert_eq!(pr, fresh);
    assert_eq!(pr.next_change(1, now), Some(T0 + 3 * HOUR));
    // A job and a claim from the origin on node 1, both profiles alike.
    for q in [&mut pr, &mut fresh] {
        q.add_job(1, job(3, now, now + HOUR / 2, 1), &Unreserved)
            .unwrap();
        q.add_claim(1, 0, now, now + HOUR, p(1), ClaimMode::MayStack, NOBODY);
    }
    assert_eq!(pr, fresh);
    assert_eq!(pr.segment_count(1), fresh.segment_count(1));
    assert_eq!(
        pr.lines[1].segs[0].start, now,
        "a changed line begins at the origin"
    );
    for t in [now, now + HOUR / 2, now + HOUR, T0 + 3 * HOUR] {
        assert_eq!(
            pr.free(1, t, t + 1, &Unreserved),
            fresh.free(1, t, t + 1, &Unreserved)
        );
        assert_eq!(pr.next_change(1, t), fresh.next_change(1, t));
    }
    // Moving on past the job's end, as a profile begun later would.
    assert_eq!(pr.advance(T0 + 4 * HOUR), vec![1]);
    fresh.advance(T0 + 4 * HOUR);
    assert_eq!(pr, fresh);
}
