//! The iteration on hand-made clusters: the seed's backfill scenario, each
//! backfill policy, reservation depth, soft/hard passes, chunking, bypass,
//! ADVRES, NoFit, determinism, and the no-delay property.

use super::accel::shortlist::{with_mode, Mode};
use super::*;
use crate::model::{Cluster, HoldKind, Node, NodeTasks, Resources};
use proptest::prelude::*;
use std::collections::BTreeSet;

const H: i64 = 3600;

pub(super) fn cfg(text: &str) -> Config {
    let l = Config::parse(text, "test.cfg");
    assert!(l.is_ok(), "{:#?}", l.diagnostics);
    l.config
}

pub(super) fn nodes(n: usize, procs: u32) -> Vec<Node> {
    (0..n)
        .map(|i| Node {
            name: format!("n{}", i + 1),
            configured: Resources::procs_mem(procs, 1000 * procs as u64),
            ..Node::default()
        })
        .collect()
}

pub(super) fn idle(id: &str, user: &str, procs: u32, wall: i64, submit: i64) -> Job {
    Job {
        id: id.into(),
        user: user.into(),
        group: "g".into(),
        tasks: procs,
        task: Resources::procs(1),
        walltime: Some(wall),
        submit_time: submit,
        ..Job::default()
    }
}

pub(super) fn running(mut j: Job, start: i64, on: &[(&str, u32)]) -> Job {
    j.state = JobState::Running;
    j.start_time = Some(start);
    j.allocation = on
        .iter()
        .map(|(n, t)| NodeTasks {
            node: n.to_string(),
            tasks: *t,
        })
        .collect();
    j
}

pub(super) fn snap(nodes: Vec<Node>, jobs: Vec<Job>) -> Snapshot {
    let mut s = Snapshot {
        now: None,
        nodes,
        jobs,
        ..Snapshot::default()
    };
    s.normalize().unwrap();
    s
}

/// The plan's starts with the nodes of each.
/// The start of `job`'s reservation in `p` and the nodes it holds, by node
/// number.
fn held_by(p: &Plan, job: &str) -> (Time, Vec<String>) {
    let r = p
        .reservations
        .iter()
        .find(|r| r.job.as_deref() == Some(job))
        .unwrap();
    let mut held: Vec<String> = r.allocation.iter().map(|a| a.node.clone()).collect();
    held.sort_by_key(|n| n[1..].parse::<u32>().unwrap());
    (r.start, held)
}

fn started_on(p: &Plan) -> Vec<(&str, Vec<&str>)> {
    p.starts
        .iter()
        .map(|s| {
            (
                s.job.as_str(),
                s.allocation.iter().map(|a| a.node.as_str()).collect(),
            )
        })
        .collect()
}

fn started(p: &Plan) -> Vec<(&str, bool)> {
    p.starts
        .iter()
        .map(|s| (s.job.as_str(), s.backfill))
        .collect()
}

/// Seed 8.2.1: a 2-processor cluster. A (1 proc, 4 h limit) has 3 h left; B
/// (2 procs, 1 h) is the highest-priority idle job, C (1 proc, 2 h) next.
/// B is reserved when A must end; C is backfilled because it ends before.
/// A ends an hour early: B's reservation slides forward an hour, to when C
/// ends, and B starts then.
#[test]
fn seed_backfill_scenario_a_b_c() {
    let c = cfg("");
    let a = running(idle("A", "u1", 1, 4 * H, -2 * H), -H, &[("n1", 1)]);
    let b = idle("B", "u2", 2, H, -30 * 60);
    let cj = idle("C", "u3", 1, 2 * H, -20 * 60);
    let mut e = Engine::new(c.clone());
    let p0 = e.iterate(&snap(nodes(2, 1), vec![a, b.clone(), cj.clone()]), 0);
    assert_eq!(started(&p0), vec![("C", true)], "C backfilled at time 0");
    let bp = p0.job("B").unwrap();
    assert_eq!(
        bp.estimated_start,
        Some(3 * H),
        "B reserved for when A's limit is reached"
    );
    assert_eq!(bp.reason, Some(Reason::Resources));
    assert!(p0
        .reservations
        .iter()
        .any(|r| r.job.as_deref() == Some("B") && r.start == 3 * H));
    assert!(p0.job("B").unwrap().priority > p0.job("C").unwrap().priority);

    // One hour later A has completed; C runs until time 2.
    let c_run = running(cj, 0, &[("n2", 1)]);
    let p1 = e.iterate(&snap(nodes(2, 1), vec![b.clone(), c_run]), H);
    assert!(p1.starts.is_empty(), "B cannot start: C holds a processor");
    assert_eq!(
        p1.job("B").unwrap().estimated_start,
        Some(2 * H),
        "B slides forward an hour"
    );

    // Time 2: C ends at its limit, B starts.
    let p2 = e.iterate(&snap(nodes(2, 1), vec![b.clone()]), 2 * H);
    assert_eq!(started(&p2), vec![("B", false)]);

    // Without backfill C waits, and B starts as soon as A ends (time 1).
    let mut nb = Engine::new(cfg("BACKFILLPOLICY NONE"));
    let a = running(idle("A", "u1", 1, 4 * H, -2 * H), -H, &[("n1", 1)]);
    let q0 = nb.iterate(
        &snap(
            nodes(2, 1),
            vec![a, b.clone(), idle("C", "u3", 1, 2 * H, -20 * 60)],
        ),
        0,
    );
    assert!(q0.starts.is_empty());
    let q1 = nb.iterate(
        &snap(nodes(2, 1), vec![b, idle("C", "u3", 1, 2 * H, -20 * 60)]),
        H,
    );
    assert_eq!(started(&q1), vec![("B", false)]);
}

/// Three single-processor nodes: R1 holds n1 for 2 h, R2 holds n2 for 1 h.
/// J1 (3 procs) can start at 2 h; J2 (2 procs) at 1 h on n2+n3; J3 (1 proc,
/// 90 min) fits now on n3 only if nothing protects J2.
#[test]
fn reservation_depth_changes_the_outcome() {
    let jobs = vec![
        running(idle("R1", "r", 1, 2 * H, -H), 0, &[("n1", 1)]),
        running(idle("R2", "r", 1, H, -H), 0, &[("n2", 1)]),
        idle("J1", "a", 3, H, -300),
        idle("J2", "b", 2, H, -200),
        idle("J3", "c", 1, 90 * 60, -100),
    ];
    let mut d1 = Engine::new(cfg("RESERVATIONDEPTH 1"));
    let p = d1.iterate(&snap(nodes(3, 1), jobs.clone()), 0);
    assert_eq!(started(&p), vec![("J3", true)], "depth 1 protects only J1");
    assert_eq!(p.job("J1").unwrap().estimated_start, Some(2 * H));
    assert_eq!(p.job("J2").unwrap().estimated_start, None);

    let mut d3 = Engine::new(cfg("RESERVATIONDEPTH 3"));
    let p = d3.iterate(&snap(nodes(3, 1), jobs), 0);
    assert!(
        p.starts.is_empty(),
        "J3 would delay J2, which now holds a reservation"
    );
    assert_eq!(p.job("J1").unwrap().estimated_start, Some(2 * H));
    assert_eq!(p.job("J2").unwrap().estimated_start, Some(H));
    let j2 = p
        .reservations
        .iter()
        .find(|r| r.job.as_deref() == Some("J2"))
        .unwrap();
    let on: Vec<&str> = j2.allocation.iter().map(|a| a.node.as_str()).collect();
    assert_eq!(on, vec!["n2", "n3"]);
    assert_eq!(p.stats.job_reservations, 3);
}

/// A 4-processor cluster with 4 processors free for 1 hour (a reservation
/// for a wide job follows). Queue in priority order: J1 3 procs, J2 2, J3 1,
/// J4 1 (all 1 h). FIRSTFIT takes jobs in priority order while they fit:
/// J1 then J3. BESTFIT by PROCS takes the largest first: J1, then J3. By
/// SECONDS the longest. GREEDY fills the window best: J2 + J3 + J4 or J1 + J3.
#[test]
fn each_backfill_policy_on_a_small_queue() {
    let base = |policy: &str, metric: &str| {
        let c = cfg(&format!(
            "BACKFILLPOLICY {policy}\nBACKFILLMETRIC {metric}\nRESERVATIONDEPTH 1\n"
        ));
        let jobs = vec![
            running(idle("R", "r", 4, 2 * H, -H), -H, &[("n1", 4)]),
            idle("W", "w", 8, H, -1000),
            idle("J1", "a", 3, 50 * 60, -900),
            idle("J2", "b", 2, 30 * 60, -800),
            idle("J3", "c", 1, 40 * 60, -700),
            idle("J4", "d", 1, 20 * 60, -600),
        ];
        let mut e = Engine::new(c);
        let p = e.iterate(&snap(nodes(2, 4), jobs), 0);
        assert_eq!(
            p.job("W").unwrap().estimated_start,
            Some(H),
            "W waits for R"
        );
        let mut s: Vec<&str> = p.starts.iter().map(|s| s.job.as_str()).collect();
        s.sort();
        s.into_iter().map(str::to_string).collect::<Vec<_>>()
    };
    assert_eq!(base("FIRSTFIT", "PROCS"), vec!["J1", "J3"]);
    assert_eq!(base("BESTFIT", "PROCS"), vec!["J1", "J3"]);
    assert_eq!(base("BESTFIT", "SECONDS"), vec!["J1", "J3"]);
    assert_eq!(base("BESTFIT", "PROCSECONDS"), vec!["J1", "J3"]);
    assert_eq!(base("NONE", "PROCS"), Vec::<String>::new());
    let g = base("GREEDY", "PROCS");
    let procs: u32 = g
        .iter()
        .map(|j| match j.as_str() {
            "J1" => 3,
            "J2" => 2,
            _ => 1,
        })
        .sum();
    assert_eq!(procs, 4, "GREEDY fills the 4 free processors: {g:?}");
}

/// BESTFIT and FIRSTFIT differ when a smaller high-priority job would leave
/// the window half used.
#[test]
fn bestfit_prefers_the_job_that_fills_the_window() {
    let run = |policy: &str| {
        let c = cfg(&format!("BACKFILLPOLICY {policy}\nBACKFILLMETRIC PROCS\n"));
        let jobs = vec![
            running(idle("R", "r", 2, 2 * H, -H), -H, &[("n1", 2)]),
            idle("W", "w", 4, H, -1000),
            idle("S", "a", 1, 30 * 60, -900),
            idle("L", "b", 2, 30 * 60, -800),
        ];
        let mut e = Engine::new(c);
        let p = e.iterate(&snap(nodes(1, 4), jobs), 0);
        p.starts.iter().map(|s| s.job.clone()).collect::<Vec<_>>()
    };
    assert_eq!(
        run("FIRSTFIT"),
        vec!["S"],
        "FIRSTFIT: S first, then L no longer fits"
    );
    assert_eq!(
        run("BESTFIT"),
        vec!["L"],
        "BESTFIT: L fills both free processors"
    );
}

#[test]
fn soft_limits_first_then_hard() {
    let c = cfg("USERCFG[DEFAULT] MAXJOB=1,2\n");
    let mk = |free_nodes: usize| {
        let mut jobs = vec![running(idle("R", "u1", 1, 10 * H, -H), -H, &[("n1", 1)])];
        jobs.push(idle("J1", "u1", 1, H, -500)); // higher priority, but u1 is at its soft limit
        jobs.push(idle("J2", "u2", 1, H, -100));
        Engine::new(c.clone()).iterate(&snap(nodes(1 + free_nodes, 1), jobs), 0)
    };
    let p = mk(1);
    assert_eq!(
        started(&p),
        vec![("J2", false)],
        "the soft pass serves u2 first"
    );
    match &p.job("J1").unwrap().reason {
        Some(Reason::Policy(p)) => {
            let (limit, credential, hard) = (&p.limit, &p.credential, &p.hard);
            assert_eq!(
                (limit.keyword(), credential.as_str(), *hard),
                ("MAXJOB", "user u1", false)
            );
        }
        other => panic!("{other:?}"),
    }
    let p = mk(2);
    assert_eq!(
        started(&p),
        vec![("J1", true), ("J2", false)],
        "the hard pass then starts J1"
    );
    // The hard limit (2) is never exceeded.
    let c = cfg("USERCFG[DEFAULT] MAXJOB=1,1\n");
    let jobs = vec![
        running(idle("R", "u1", 1, 10 * H, -H), -H, &[("n1", 1)]),
        idle("J1", "u1", 1, H, -500),
    ];
    let p = Engine::new(c).iterate(&snap(nodes(3, 1), jobs), 0);
    assert!(p.starts.is_empty());
    assert!(matches!(
        p.job("J1").unwrap().reason,
        Some(Reason::Policy(ref b)) if b.hard
    ));
}

#[test]
fn chunking_protects_freed_resources_for_large_jobs() {
    let c = cfg("BFCHUNKSIZE 4\nBFCHUNKDURATION 00:10:00\n");
    let jobs = |extra: Vec<Job>| {
        let mut v = vec![
            running(idle("R", "r", 2, 2 * H, -H), -H, &[("n1", 2)]),
            idle("L", "big", 4, H, -1000),
            idle("S", "small", 1, 5 * 60, -10),
        ];
        v.extend(extra);
        v
    };
    let mut e = Engine::new(c.clone());
    let p = e.iterate(&snap(nodes(1, 4), jobs(vec![])), 0);
    assert!(
        p.starts.is_empty(),
        "S is kept out while L is blocked and the chunk is young"
    );
    let p = e.iterate(&snap(nodes(1, 4), jobs(vec![])), 5 * 60);
    assert!(p.starts.is_empty());
    let p = e.iterate(&snap(nodes(1, 4), jobs(vec![])), 11 * 60);
    assert_eq!(
        started(&p),
        vec![("S", true)],
        "after BFCHUNKDURATION the resources go to smaller jobs"
    );
    // Without chunking S backfills at once.
    let p = Engine::new(cfg("")).iterate(&snap(nodes(1, 4), jobs(vec![])), 0);
    assert_eq!(started(&p), vec![("S", true)]);
}

#[test]
fn bypass_counts_and_priority() {
    let c = cfg("BYPASSWEIGHT 1000\n");
    let mk = |s: Vec<(&str, i64)>| {
        let mut v = vec![
            running(idle("R", "r", 1, 4 * H, -H), -H, &[("n1", 1)]),
            idle("BIG", "a", 2, H, -500),
        ];
        for (id, wall) in s {
            v.push(idle(id, "b", 1, wall, -100));
        }
        v
    };
    let mut e = Engine::new(c);
    let p = e.iterate(&snap(nodes(2, 1), mk(vec![("S1", 30 * 60)])), 0);
    assert_eq!(started(&p), vec![("S1", true)]);
    assert_eq!(p.job("BIG").unwrap().bypass_count, 1);
    let prio1 = p.job("BIG").unwrap().priority;
    let mut s1 = running(idle("S1", "b", 1, 30 * 60, -100), 0, &[("n2", 1)]);
    s1.state = JobState::Running;
    // BIG is now reserved for when S1 ends (30 min); S2 ends before that.
    let mut jobs = mk(vec![("S2", 10 * 60)]);
    jobs.push(s1);
    let p = e.iterate(&snap(nodes(3, 1), jobs), 60);
    assert_eq!(started(&p), vec![("S2", true)]);
    assert_eq!(p.job("BIG").unwrap().bypass_count, 2, "bypassed again");
    assert!(
        p.job("BIG").unwrap().priority >= prio1 + 1000,
        "BYPASSWEIGHT raises its priority"
    );
    assert_eq!(e.state.bypass["BIG"], 2, "remembered for the checkpoint");
}

#[test]
fn advres_job_runs_only_in_its_reservation() {
    let c = cfg("");
    let mut e = Engine::new(c);
    let cl = Cluster::build(&nodes(3, 1), &e.cfg);
    let mut profile = crate::profile::Profile::from_cluster(&cl, 0);
    let req = crate::reservation::AdminRequest {
        hosts: Some("n2".into()),
        users: Some("alice".into()),
        flags: Some("BYNAME".into()),
        name: Some("res1".into()),
        ..Default::default()
    };
    e.state
        .admin
        .create(
            req,
            0,
            &cl,
            &mut profile,
            0,
            &crate::reservation::place::RmOrder,
            &|_, _| false,
        )
        .unwrap();
    let id = e.state.admin.list()[0].id.clone();
    let mut a = idle("A", "alice", 1, H, -100);
    a.advres = Some(id.clone());
    let b = idle("B", "bob", 1, H, -50);
    let p = e.iterate(&snap(nodes(3, 1), vec![a, b]), 10);
    // B, outside it, on the highest index (LASTAVAILABLE as Maui's code
    // walks nodes available equally long).
    assert_eq!(started_on(&p), vec![("A", vec!["n2"]), ("B", vec!["n3"])]);
    assert_eq!(p.starts[0].reservation.as_deref(), Some(id.as_str()));
    // A job asking for a reservation that does not exist can never run.
    let mut x = idle("X", "alice", 1, H, 0);
    x.advres = Some("nope.1".into());
    let p = e.iterate(&snap(nodes(3, 1), vec![x]), 20);
    assert!(
        matches!(&p.job("X").unwrap().reason, Some(Reason::NoFit { detail }) if detail.contains("nope.1"))
    );
}

#[test]
fn a_credentials_advres_flag_confines_its_jobs_to_the_reservation() {
    // The reservation is open to both users: only the flag keeps alice's
    // jobs inside it, and her second job waits for it rather than running
    // on the free nodes outside.
    let text = "SRCFG[r1] HOSTLIST=n2 PERIOD=INFINITY USERLIST=alice,bob\n";
    let jobs = || {
        vec![
            idle("A", "alice", 1, H, -100),
            idle("A2", "alice", 1, H, -90),
            idle("B", "bob", 1, H, -50),
        ]
    };
    let p = Engine::new(cfg(text)).iterate(&snap(nodes(3, 1), jobs()), 10);
    assert_eq!(
        started(&p).len(),
        3,
        "without the flag all three run: {:?}",
        p.jobs
            .iter()
            .map(|j| (&j.job, &j.reason))
            .collect::<Vec<_>>()
    );
    for flags in [
        "USERCFG[alice] FLAGS=ADVRES:r1\n",
        "GROUPCFG[g] FLAGS=ADVRES:r1\nUSERCFG[bob] FLAGS=ADVRES:nope\n",
        "USERCFG[DEFAULT] FLAGS=ADVRES:r1\nUSERCFG[bob] FLAGS=BACKFILL\n",
    ] {
        let mut e = Engine::new(cfg(&format!("{text}{flags}")));
        let p = e.iterate(&snap(nodes(3, 1), jobs()), 10);
        let on = started_on(&p);
        let alice: Vec<_> = on.iter().filter(|(j, _)| j.starts_with('A')).collect();
        assert_eq!(alice.len(), 1, "{flags}: {on:?}");
        assert_eq!(alice[0].1, vec!["n2"], "{flags}");
        assert!(!p.job("A2").unwrap().started, "{flags}");
        // bob: an own FLAGS without ADVRES replaces the DEFAULT's; a
        // reservation that does not exist keeps him waiting.
        let bob = on.iter().any(|(j, _)| *j == "B");
        assert_eq!(bob, !flags.contains("nope"), "{flags}: {on:?}");
    }
}

#[test]
fn jobs_that_can_never_fit_say_so() {
    let c = cfg("");
    let mut huge = idle("HUGE", "u", 100, H, 0);
    huge.task = Resources::procs(1);
    let mut gpu = idle("GPU", "u", 1, H, 0);
    gpu.features = thin_vec::thin_vec!["gpu".into()];
    let mut fat = idle("FAT", "u", 1, H, 0);
    fat.task = Resources::procs_mem(1, 1_000_000);
    let ok = idle("OK", "u", 1, H, 0);
    let p = Engine::new(c).iterate(&snap(nodes(4, 1), vec![huge, gpu, fat, ok]), 0);
    for id in ["HUGE", "GPU", "FAT"] {
        assert!(
            matches!(p.job(id).unwrap().reason, Some(Reason::NoFit { .. })),
            "{id}: {:?}",
            p.job(id)
        );
        assert_eq!(p.job(id).unwrap().estimated_start, None);
    }
    assert_eq!(started(&p), vec![("OK", false)]);
}

/// Past the first REASON_DETAIL waiting jobs the reason is the cheap one:
/// Resources when the job is wider than everything free now, else
/// Priority.
#[test]
fn reasons_past_the_detail_budget() {
    let c = cfg("");
    let r = running(idle("R", "u", 1, 10 * H, -H), 0, &[("n1", 1)]);
    let mut jobs = vec![r, idle("T", "u", 4, H, 0)];
    for k in 0..2100 {
        let (procs, wall) = if k % 2 == 0 { (4, H) } else { (1, 20 * H) };
        jobs.push(idle(&format!("W{k:04}"), "u", procs, wall, 1 + k));
    }
    let p = Engine::new(c).iterate(&snap(nodes(4, 1), jobs), 0);
    assert!(p.starts.is_empty(), "{:?}", started(&p));
    assert_eq!(p.job("T").unwrap().estimated_start, Some(10 * H));
    // Ranked by submission: T first, then W0000...; W2050 and W2051 come
    // after the first 2,000.
    assert_eq!(p.job("W2050").unwrap().reason, Some(Reason::Resources));
    assert_eq!(p.job("W2051").unwrap().reason, Some(Reason::PRIORITY));
}

/// A job that the nodes free now would hold for its walltime, but for a
/// reservation made in this iteration for a job of higher priority, says
/// whose reservation keeps it off: W, two nodes wide, is reserved from
/// when R ends; S, as wide as n2 (free now) but longer than R's rest,
/// waits for W's reservation. Where the iteration's starts took the free
/// resources (T backfills on n2), the reason names none.
#[test]
fn a_job_kept_off_free_nodes_by_a_reservation_names_it() {
    let c = cfg("QUEUETIMEWEIGHT 1\nXFACTORWEIGHT 0\n");
    let r = running(idle("R", "r", 4, H, -60), -60, &[("n1", 4)]);
    let jobs = vec![
        r.clone(),
        idle("W", "u", 8, H, -3000),
        idle("S", "u", 4, 2 * H, -2000),
    ];
    for mode in [Mode::Normal, Mode::Off, Mode::Always] {
        let p = with_mode(mode, || {
            Engine::new(c.clone()).iterate(&snap(nodes(2, 4), jobs.clone()), 0)
        });
        assert!(p.starts.is_empty(), "{mode:?}");
        let w = p.job("W").unwrap();
        assert_eq!(w.reservation.as_deref(), Some("W"));
        assert_eq!(w.reason, Some(Reason::Resources), "{mode:?}");
        let held = Reason::Priority {
            reserved_for: Some(crate::engine::plan::ReservedFor {
                job: "W".into(),
                from: H - 60,
            }),
        };
        assert_eq!(p.job("S").unwrap().reason.as_ref(), Some(&held), "{mode:?}");
        let zone = crate::model::time::Zone::utc();
        assert_eq!(
            held.summary(&zone),
            "Priority: free nodes reserved for job W"
        );
        assert_eq!(
            crate::commands::render::reason_text(&held, &zone),
            "idle procs are reserved for job W from Thu Jan  1 00:59:00, \
             before this job's walltime would end"
        );
    }
    // T, short enough, backfills on n2: S waits for it, not for W.
    let jobs = vec![
        r,
        idle("T", "u", 2, H / 2, -3000),
        idle("W", "u", 8, H, -2000),
        idle("S", "u", 4, 2 * H, -1000),
    ];
    let p = Engine::new(c).iterate(&snap(nodes(2, 4), jobs), 0);
    assert_eq!(started_on(&p), vec![("T", vec!["n2"])]);
    assert_eq!(p.job("S").unwrap().reason, Some(Reason::PRIORITY));
}

/// A credential over its FSCAP waits with that reason while others start,
/// whether the cap is the credential's own or its kind's DEFAULT.
#[test]
fn fairshare_caps_hold_jobs_back_in_the_iteration() {
    for text in ["USERCFG[hog] FSCAP=30%\n", "USERCFG[DEFAULT] FSCAP=30%\n"] {
        let c = cfg(&format!("FSPOLICY DEDICATEDPS\nFSINTERVAL 1:00:00\n{text}"));
        let r = running(idle("R", "hog", 1, 10 * H, -H), 0, &[("n1", 1)]);
        let mut e = Engine::new(c);
        e.iterate(&snap(nodes(3, 1), vec![r.clone()]), 0);
        // An hour later hog has delivered all the usage.
        let jobs = vec![r, idle("HOG2", "hog", 1, H, 10), idle("OK", "ok", 1, H, 20)];
        let p = e.iterate(&snap(nodes(3, 1), jobs), H);
        assert_eq!(started(&p), vec![("OK", false)], "{text}");
        let reason = p.job("HOG2").unwrap().reason.clone();
        assert!(
            matches!(&reason, Some(Reason::FairshareCap { detail }) if detail.contains("USER hog")),
            "{text}: {reason:?}"
        );
    }
}

#[test]
fn held_dependent_and_future_jobs_wait_with_their_reason() {
    let mut h = idle("H", "u", 1, H, 0);
    h.holds = thin_vec::thin_vec![HoldKind::User];
    let mut d = idle("D", "u", 1, H, 0);
    d.dependency_satisfied = false;
    let mut f = idle("F", "u", 1, H, 0);
    f.earliest_start = Some(5 * H);
    let p = Engine::new(cfg("")).iterate(&snap(nodes(4, 1), vec![h, d, f]), 0);
    assert!(p.starts.is_empty());
    assert_eq!(
        p.job("H").unwrap().reason,
        Some(Reason::Hold {
            kind: HoldKind::User
        })
    );
    assert_eq!(p.job("D").unwrap().reason, Some(Reason::Dependency));
    assert_eq!(
        p.job("F").unwrap().reason,
        Some(Reason::BeginTime { at: 5 * H })
    );
}

#[test]
fn a_standing_reservation_keeps_other_classes_off_its_nodes() {
    let c = cfg("SRCFG[batch] HOSTLIST=n1,n2 PERIOD=INFINITY CLASSLIST=batch\n");
    let mut a = idle("A", "u", 2, H, -100);
    a.class = Some("interactive".into());
    let mut b = idle("B", "u", 1, H, -50);
    b.class = Some("batch".into());
    let p = Engine::new(c).iterate(&snap(nodes(3, 1), vec![a, b]), 0);
    assert_eq!(
        started(&p),
        vec![("B", true)],
        "B uses the reserved nodes, passing A, which needs 2 and only n3 is open to it"
    );
    assert!(
        matches!(&p.job("A").unwrap().reason, Some(Reason::Reservation { id }) if id.starts_with("batch")),
        "{:?}",
        p.job("A")
    );
    assert_eq!(
        p.job("A").unwrap().estimated_start,
        None,
        "never: the reservation is permanent"
    );
}

/// A HOSTLIST standing reservation takes its hosts "no matter what" (seed
/// 7.1.5.2.5): a job reservation made before the instance existed does
/// not keep part of the node out of it. At 23:59 only the day's ended
/// instance exists, and A, which the reservation will not admit, is
/// reserved for 09:00 tomorrow, when R frees the node. Tomorrow's
/// instance appears at midnight and holds the node from 08:00 to 17:00
/// (less what R holds until 09:00), so A's reservation moves to 17:00.
#[test]
fn a_hostlist_standing_reservation_takes_its_node_before_carried_job_reservations() {
    const DAY: i64 = 24 * H;
    let c = cfg(
        "SRCFG[day] HOSTLIST=n1 PERIOD=DAY DEPTH=1 STARTTIME=08:00:00 ENDTIME=17:00:00 USERLIST=u1\n",
    );
    let jobs = vec![
        running(
            idle("R", "u2", 7, DAY, DAY - 16 * H),
            DAY - 15 * H,
            &[("n1", 7)],
        ),
        idle("A", "u2", 8, H, DAY - H),
    ];
    let s = snap(nodes(1, 8), jobs);
    let mut e = Engine::new(c);
    let p = e.iterate(&s, DAY - 60);
    assert_eq!(
        held_by(&p, "A").0,
        DAY + 9 * H,
        "no instance for tomorrow yet"
    );
    let p = e.iterate(&s, DAY + 60);
    assert_eq!(
        held_by(&p, "A").0,
        DAY + 17 * H,
        "the new instance holds n1 from 09:00 to 17:00"
    );
}

#[test]
fn single_job_nodes_are_not_shared() {
    let c = cfg("NODEACCESSPOLICY SINGLEJOB\n");
    let jobs = vec![
        running(idle("R", "u", 1, 10 * H, -H), -H, &[("n1", 1)]),
        idle("J", "v", 2, H, 0),
    ];
    let p = Engine::new(c).iterate(&snap(nodes(2, 4), jobs), 0);
    let s = &p.starts[0];
    assert_eq!(
        s.allocation
            .iter()
            .map(|a| a.node.as_str())
            .collect::<Vec<_>>(),
        vec!["n2"],
        "n1 runs R: not shared"
    );
}

/// A running job of user `runner` on two of six 2-processor nodes, and 40
/// idle jobs of five users with assorted sizes, limits and submit times.
fn forty_jobs(runner: &str) -> Vec<Job> {
    let mut jobs = vec![running(
        idle("R1", runner, 3, 2 * H, -H),
        -H,
        &[("n1", 2), ("n2", 1)],
    )];
    for k in 0..40 {
        jobs.push(idle(
            &format!("{k}"),
            &format!("u{}", k % 5),
            1 + (k as u32 * 7) % 5,
            (1 + k % 4) * 1800,
            -(k * 37 % 500),
        ));
    }
    jobs
}

#[test]
fn the_plan_is_the_same_whatever_the_snapshot_order() {
    let jobs = forty_jobs("a");
    let ns = nodes(6, 2);
    let p1 = Engine::new(cfg("")).iterate(&snap(ns.clone(), jobs.clone()), 0);
    let mut shuffled = jobs.clone();
    shuffled.reverse();
    shuffled.rotate_left(17);
    let p2 = Engine::new(cfg("")).iterate(&snap(ns, shuffled), 0);
    assert_eq!(
        serde_json::to_string(&*p1).unwrap(),
        serde_json::to_string(&*p2).unwrap()
    );
}

/// Every plan respects capacity: running jobs, starts and reservations never
/// overcommit a node at any time.
fn assert_no_overcommit(s: &Snapshot, p: &Plan, c: &Config) {
    let mut events: BTreeMap<(String, i64), i64> = BTreeMap::new();
    let mut add = |node: &str, start: i64, end: i64, procs: i64| {
        *events.entry((node.to_string(), start)).or_default() += procs;
        *events.entry((node.to_string(), end)).or_default() -= procs;
    };
    let now = p.now;
    for j in &s.jobs {
        if j.state == JobState::Running {
            let (st, en) =
                crate::profile::running_window(j.start_time.unwrap(), j.walltime.unwrap(), now);
            for a in &j.allocation {
                add(&a.node, st, en, (a.tasks * j.task.procs) as i64);
            }
        }
    }
    for st in &p.starts {
        let j = s.jobs.iter().find(|j| j.id == st.job).unwrap();
        for a in &st.allocation {
            add(
                &a.node,
                now,
                now + build::walltime(c, j),
                (a.tasks * j.task.procs) as i64,
            );
        }
    }
    for r in p.reservations.iter().filter(|r| r.kind == "Job") {
        let j = s
            .jobs
            .iter()
            .find(|j| Some(&j.id) == r.job.as_ref())
            .unwrap();
        for a in &r.allocation {
            add(&a.node, r.start, r.end, (a.tasks * j.task.procs) as i64);
        }
    }
    let mut level: BTreeMap<String, i64> = BTreeMap::new();
    for ((node, t), d) in events {
        let l = level.entry(node.clone()).or_default();
        *l += d;
        let cap = s
            .nodes
            .iter()
            .find(|n| n.name == node)
            .unwrap()
            .configured
            .procs as i64;
        assert!(*l <= cap, "node {node} overcommitted at {t}: {l} > {cap}");
    }
}

use std::collections::BTreeMap;

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, .. ProptestConfig::default() })]

    /// With runtimes equal to walltimes and no new arrivals, the job at the
    /// head of the queue is never delayed by backfill: it starts no later
    /// than the reservation it first got. Every plan along the way respects
    /// node capacity.
    #[test]
    fn backfill_never_delays_the_reserved_job(
        n_nodes in 1usize..5,
        procs in 1u32..5,
        specs in proptest::collection::vec((1u32..6, 1i64..6), 3..14),
    ) {
        let c = cfg("XFACTORWEIGHT 0\nQUEUETIMEWEIGHT 1\n");
        let ns = nodes(n_nodes, procs);
        let cap = n_nodes as u32 * procs;
        let mut pending: Vec<Job> = specs
            .iter()
            .enumerate()
            // Submitted before the first iteration: a job first seen at its
            // submission counts its whole wait at the next iteration, where
            // the others count what they had waited at the last one (Maui's
            // EffQueueDuration, `QueueAccrual::effective`), and could pass
            // the head of the queue without backfill having a part in it.
            .map(|(k, &(p, w))| idle(&format!("{k}"), &format!("u{}", k % 3), p.min(cap), w * 600, -(k as i64) - 1))
            .collect();
        let mut run: Vec<Job> = Vec::new();
        let mut e = Engine::new(c.clone());
        let mut now = 0i64;
        let mut first_res: BTreeMap<String, i64> = BTreeMap::new();
        for _ in 0..200 {
            run.retain(|j| j.start_time.unwrap() + j.walltime.unwrap() > now);
            let mut jobs = run.clone();
            jobs.extend(pending.iter().cloned());
            let s = snap(ns.clone(), jobs);
            let p = e.iterate(&s, now);
            assert_no_overcommit(&s, &p, &c);
            // The head of the queue (first eligible, not started) and its reservation.
            if let Some(head) = p.jobs.iter().find(|j| !j.started && j.reason.as_ref().is_some_and(|r| !r.is_blocking())) {
                if let Some(t) = head.estimated_start {
                    first_res.entry(head.job.clone()).or_insert(t);
                }
            }
            for st in &p.starts {
                if let Some(t) = first_res.get(&st.job) {
                    prop_assert!(now <= *t, "job {} reserved for {} started at {}", st.job, t, now);
                }
                let k = pending.iter().position(|j| j.id == st.job).unwrap();
                let j = pending.remove(k);
                let alloc: Vec<(&str, u32)> = st.allocation.iter().map(|a| (a.node.as_str(), a.tasks)).collect();
                run.push(running(j, now, &alloc));
            }
            if pending.is_empty() {
                break;
            }
            // Next event: a completion (runtime = walltime).
            now = run.iter().map(|j| j.start_time.unwrap() + j.walltime.unwrap()).min().unwrap_or(now + 600);
        }
        prop_assert!(pending.is_empty(), "jobs never started: {:?}", pending.iter().map(|j| &j.id).collect::<Vec<_>>());
    }
}

/// A full cluster and three blocked jobs. RESERVATIONDEPTH[x] with
/// RESERVATIONQOSLIST[x] spreads reservations over QOS groups: the
/// low-priority `high`-QOS job gets the stack kept for its QOS even though a
/// `normal` job outranks it.
#[test]
fn reservation_stacks_by_qos() {
    let mk = || {
        let mut v = vec![running(
            idle("R", "r", 2, 2 * H, -H),
            -H,
            &[("n1", 1), ("n2", 1)],
        )];
        for (id, qos, submit) in [
            ("A", "normal", -900),
            ("B", "normal", -800),
            ("C", "high", -100),
        ] {
            let mut j = idle(id, "u", 2, H, submit);
            j.qos = Some(qos.into());
            v.push(j);
        }
        v
    };
    let p = Engine::new(cfg("RESERVATIONDEPTH 2\n")).iterate(&snap(nodes(2, 1), mk()), 0);
    let reserved: Vec<&str> = p
        .jobs
        .iter()
        .filter(|j| j.estimated_start.is_some())
        .map(|j| j.job.as_str())
        .collect();
    assert_eq!(
        reserved,
        vec!["A", "B"],
        "one stack of depth 2: the two highest"
    );
    let c = cfg("RESERVATIONDEPTH[0] 1\nRESERVATIONQOSLIST[0] high\nRESERVATIONDEPTH[1] 1\nRESERVATIONQOSLIST[1] normal\n");
    let p = Engine::new(c).iterate(&snap(nodes(2, 1), mk()), 0);
    let reserved: Vec<&str> = p
        .jobs
        .iter()
        .filter(|j| j.estimated_start.is_some())
        .map(|j| j.job.as_str())
        .collect();
    assert_eq!(reserved, vec!["A", "C"], "one per QOS group");
    assert_eq!(
        p.job("C").unwrap().estimated_start,
        Some(2 * H),
        "after A's reservation (R ends at 1 h)"
    );
}

/// RESERVATIONPOLICY: NEVER makes no reservations (pure backfill);
/// CURRENTHIGHEST gives the reservation to whoever is highest now; HIGHEST
/// lets a job that once held one keep it when a higher-priority job arrives.
#[test]
fn reservation_policies_never_currenthighest_highest() {
    let base = |extra: Vec<Job>| {
        let mut v = vec![
            running(idle("R", "r", 1, 2 * H, -H), -H, &[("n1", 1)]),
            idle("OLD", "u", 2, H, -500),
        ];
        v.extend(extra);
        v
    };
    let p =
        Engine::new(cfg("RESERVATIONPOLICY NEVER\n")).iterate(&snap(nodes(2, 1), base(vec![])), 0);
    assert!(p.reservations.iter().all(|r| r.kind != "Job"));
    assert_eq!(p.job("OLD").unwrap().estimated_start, None);

    let vip = |submit| {
        let mut j = idle("VIP", "boss", 2, H, submit);
        j.system_priority = Some(1);
        j
    };
    for (policy, old_keeps) in [("CURRENTHIGHEST", false), ("HIGHEST", true)] {
        let mut e = Engine::new(cfg(&format!(
            "RESERVATIONPOLICY {policy}\nRESERVATIONDEPTH 1\n"
        )));
        let p = e.iterate(&snap(nodes(2, 1), base(vec![])), 0);
        assert_eq!(p.job("OLD").unwrap().estimated_start, Some(H), "{policy}");
        let p = e.iterate(&snap(nodes(2, 1), base(vec![vip(50)])), 60);
        assert!(p.job("VIP").unwrap().priority > p.job("OLD").unwrap().priority);
        assert_eq!(
            p.job("VIP").unwrap().estimated_start,
            Some(H),
            "{policy}: VIP is highest now"
        );
        assert_eq!(
            p.job("OLD").unwrap().estimated_start.is_some(),
            old_keeps,
            "{policy}"
        );
    }
}

#[test]
fn operator_actions_ride_with_the_next_plan_once() {
    let mut e = Engine::new(cfg(""));
    e.state.pending_actions.push(Action {
        kind: ActionKind::Hold,
        job: "7".into(),
        by: "root".into(),
    });
    let p = e.iterate(&snap(nodes(1, 1), vec![idle("7", "u", 1, H, 0)]), 0);
    assert_eq!(
        p.actions,
        vec![Action {
            kind: ActionKind::Hold,
            job: "7".into(),
            by: "root".into()
        }]
    );
    let p = e.iterate(&snap(nodes(1, 1), vec![]), 10);
    assert!(p.actions.is_empty(), "handed over once");
}

/// `iterate_again` answers a poll over an unchanged snapshot from the
/// priority order alone while the same job comes first, leaving the state
/// as the full iteration would; it runs the iteration when the order
/// changes, when an operator acted, and once the running job's window ends.
#[test]
fn a_poll_over_the_same_jobs_is_answered_while_the_order_holds() {
    // Two 2-processor jobs wait behind R (ends at 3 h). By XFACTOR, A (10 h
    // limit, queued 10 h) comes first until B (1 h limit, submitted at 0)
    // overtakes it at 1 h 07 min.
    let text = "QUEUETIMEWEIGHT 0\nXFACTORWEIGHT 100\nRESERVATIONDEPTH 1\n";
    let r = running(
        idle("R", "u0", 2, 4 * H, -2 * H),
        -H,
        &[("n1", 1), ("n2", 1)],
    );
    let s = snap(
        nodes(2, 1),
        vec![
            r,
            idle("A", "u1", 2, 10 * H, -10 * H),
            idle("B", "u2", 2, H, 0),
        ],
    );
    let reserved = |p: &Plan| -> Vec<String> {
        p.reservations
            .iter()
            .filter_map(|r| r.job.clone())
            .collect()
    };
    let mut e = Engine::new(cfg(text));
    let mut full = Engine::new(cfg(text));
    let p = e.iterate(&s, 0);
    assert_eq!(reserved(&p), vec!["A"]);
    full.iterate(&s, 0);

    // 30 min: A 205, B 150. Nothing to decide again.
    assert!(e.iterate_again(&s, 30 * 60).is_none());
    let p = full.iterate(&s, 30 * 60);
    assert!(p.starts.is_empty() && reserved(&p) == vec!["A"]);
    assert_eq!(e.state, full.state, "state as after the full iteration");

    // An operator's hold makes the next poll a full iteration.
    let mut held = Engine::new(cfg(text));
    held.iterate(&s, 0);
    held.state.pending_actions.push(Action {
        kind: ActionKind::Hold,
        job: "A".into(),
        by: "root".into(),
    });
    let p = held.iterate_again(&s, 60).expect("an operator acted");
    assert_eq!(reserved(&p), vec!["B"]);

    // 2 h: priority reads the queue times recorded at the previous poll
    // (30 min), so the order holds; a minute later it reads those of 2 h:
    // A 220, B 300: B now holds the reservation.
    assert!(e.iterate_again(&s, 2 * H).is_none());
    full.iterate(&s, 2 * H);
    let p = e.iterate_again(&s, 2 * H + 60).expect("the order changed");
    assert_eq!(reserved(&p), vec!["B"]);
    let q = full.iterate(&s, 2 * H + 60);
    assert_eq!(reserved(&q), vec!["B"]);
    assert!(e.iterate_again(&s, 2 * H + 120).is_none());
    // R's window ends at 3 h: from then on the profile moves with time.
    assert!(e.iterate_again(&s, 3 * H).is_some());
}

/// Under FIRSTFIT the priority pass still starts jobs in order until one
/// can neither start nor get a reservation ("Idle Job Reached"); a later
/// job may only backfill. So that job decides the poll too: once a job
/// that fits passes it, the poll is a full iteration and starts it.
/// R holds n1 (8 procs) until 3 h; T (10 procs) is reserved from then on
/// n1 and 2 of n2's 4 processors; X (11 procs) can neither start nor be
/// reserved (RESERVATIONDEPTH 1). Y (1 proc, 10 h) fits on n2 beside T's
/// reservation, but the backfill window there ends at 3 h, where the
/// reservation takes processors. By XFACTOR, Y (180 + 10 per hour)
/// passes X (200 + 1 per hour) after 2 h 13 min; priority reads the
/// queue times recorded at the previous poll.
#[test]
fn a_poll_runs_when_a_job_passes_the_first_that_could_not_be_reserved() {
    let text = "QUEUETIMEWEIGHT 0\nXFACTORWEIGHT 100\nRESERVATIONDEPTH 1\n\
                BACKFILLPOLICY FIRSTFIT\nNODEALLOCATIONPOLICY FIRSTAVAILABLE\n";
    let mut cluster = nodes(2, 4);
    cluster[0].configured = Resources::procs_mem(8, 8000);
    let s = snap(
        cluster,
        vec![
            running(idle("R", "u0", 8, 4 * H, -2 * H), -H, &[("n1", 8)]),
            idle("T", "u1", 10, H, -5 * H),
            idle("X", "u2", 11, 100 * H, -100 * H),
            idle("Y", "u3", 1, 10 * H, -8 * H),
        ],
    );
    let mut e = Engine::new(cfg(text));
    let p = e.iterate(&s, 0);
    assert!(p.starts.is_empty(), "{:?}", p.starts);
    let t = p
        .reservations
        .iter()
        .find(|r| r.job.as_deref() == Some("T"));
    let held: Vec<(&str, u32)> = t
        .unwrap()
        .allocation
        .iter()
        .map(|a| (a.node.as_str(), a.tasks))
        .collect();
    assert_eq!(
        (t.unwrap().start, held),
        (3 * H, vec![("n1", 8), ("n2", 2)])
    );
    for t in [2 * H, 2 * H + 60, 150 * 60] {
        assert!(e.iterate_again(&s, t).is_none(), "X still before Y at {t}");
    }
    let p = e.iterate_again(&s, 150 * 60 + 60).expect("Y passed X");
    assert_eq!(
        started(&p),
        vec![("Y", true)],
        "out of order after T: a backfill"
    );
}

/// Without priority breakdowns (the simulator) the plan decides the same,
/// with the same priorities and components, and the last iteration gives
/// no breakdowns. With them, each idle job's breakdown is the one its
/// priority and components were computed as, also after the engine's own
/// fairshare and configuration have moved on.
#[test]
fn plans_without_breakdowns_decide_the_same() {
    let text = "QUEUETIMEWEIGHT 1\nXFACTORWEIGHT 10\nFSPOLICY DEDICATEDPS\nFSWEIGHT 1\n\
                FSUSERWEIGHT 10\nUSERCFG[DEFAULT] FSTARGET=10\nRESERVATIONDEPTH 2\n";
    let s = snap(nodes(6, 2), forty_jobs("u1"));
    let mut with = Engine::new(cfg(text));
    let mut without = Engine::new(cfg(text));
    without.priority_breakdowns = false;
    for now in [0, 600, 1200] {
        let a = with.iterate(&s, now);
        let b = without.iterate(&s, now);
        assert!(!a.starts.is_empty() || now > 0);
        let last = with.last.clone().unwrap();
        let all = last.priority_breakdowns(|_| true);
        assert_eq!(all.len(), a.jobs.len());
        for (bd, jp) in all.iter().zip(&a.jobs) {
            assert_eq!(bd.job, jp.job);
            assert_eq!(bd.priority, jp.priority);
            assert_eq!(bd.eff_queue_time, jp.eff_queue_time);
            let points: Vec<f64> = bd.components.iter().map(|c| c.contribution).collect();
            assert_eq!(points, jp.components);
            assert_eq!(last.priority_breakdown(&jp.job).as_ref(), Some(bd));
        }
        assert!(without
            .last
            .as_ref()
            .unwrap()
            .priority_breakdowns(|_| true)
            .is_empty());
        assert_eq!(
            a.jobs.iter().map(|j| j.components).collect::<Vec<_>>(),
            b.jobs.iter().map(|j| j.components).collect::<Vec<_>>()
        );
        assert_eq!(
            serde_json::to_string(&*a).unwrap(),
            serde_json::to_string(&*b).unwrap(),
            "at {now}"
        );
    }
    assert_eq!(with.state, without.state);
    // The engine's fairshare and weights change (reconfiguration, a new
    // fairshare window); the last iteration's breakdowns stay those its
    // priorities were computed from.
    let last = with.last.clone().unwrap();
    let before = last.priority_breakdowns(|_| true);
    with.cfg = cfg("QUEUETIMEWEIGHT 5\nFSWEIGHT 0\n");
    with.state.fairshare = crate::fairshare::Fairshare::new();
    assert_eq!(last.priority_breakdowns(|_| true), before);
    let fresh = crate::priority::PriorityContext {
        now: last.plan.now,
        cfg: &with.cfg,
        total: last.view.cluster.total,
        fairshare: &with.state.fairshare,
    };
    let job = last.jobs.iter().find(|j| j.id == before[0].job).unwrap();
    let now_computed = crate::priority::job_priority(&fresh, job, before[0].eff_queue_time);
    assert_ne!(now_computed.priority, before[0].priority);
}

/// The simulator turns full waiting reasons off (`wait_reasons`): the
/// starts, reservations, priorities, estimates, the state and the blocking
/// reasons (a missing ADVRES is NoFit) are those of full reasons; the other
/// waiting jobs get the cheap reason (Resources or Priority, naming no
/// reservation), where full reasons name the reservation in their way.
#[test]
fn plans_without_full_wait_reasons_decide_the_same() {
    // n3 is kept for u1: bob's B finds room there, but may not use it.
    let text = "RESERVATIONDEPTH 2\nSRCFG[r1] HOSTLIST=n3 PERIOD=INFINITY USERLIST=u1\n";
    let mut x = idle("X", "alice", 1, H, 0);
    x.advres = Some("nope.1".into());
    let jobs = vec![
        idle("A", "bob", 4, 4 * H, -600),
        idle("B", "bob", 2, 4 * H, -500),
        idle("C", "bob", 6, H, -400),
        x,
    ];
    let s = snap(nodes(3, 2), jobs);
    let mut full = Engine::new(cfg(text));
    let mut brief = Engine::new(cfg(text));
    brief.wait_reasons = false;
    let mut named = 0;
    for now in [0, 600, 1200] {
        let (a, b) = (full.iterate(&s, now), brief.iterate(&s, now));
        let json = |p: &Plan| {
            let starts = serde_json::to_string(&p.starts).unwrap();
            (starts, serde_json::to_string(&p.reservations).unwrap())
        };
        assert_eq!(json(&a), json(&b), "at {now}");
        assert_eq!(a.jobs.len(), b.jobs.len());
        for (x, y) in a.jobs.iter().zip(&b.jobs) {
            let same = |j: &JobPlan| {
                let r = j.reservation.clone();
                (j.job.clone(), j.priority, j.started, j.estimated_start, r)
            };
            assert_eq!(same(x), same(y));
            match &x.reason {
                Some(r) if r.is_blocking() => assert_eq!(y.reason.as_ref(), Some(r)),
                Some(r) => {
                    named += (*r != Reason::PRIORITY && *r != Reason::Resources) as usize;
                    assert!(
                        matches!(y.reason, Some(Reason::Resources | Reason::PRIORITY)),
                        "{} at {now}: {:?}",
                        y.job,
                        y.reason
                    );
                }
                None => assert!(y.reason.is_none()),
            }
        }
        assert!(matches!(
            b.job("X").unwrap().reason,
            Some(Reason::NoFit { .. })
        ));
    }
    assert!(named > 0, "full reasons named no reservation in the way");
    assert_eq!(full.state, brief.state);
}

/// An RM that runs the plans: the engine carrying its running-job profile
/// from one iteration to the next decides exactly as one that builds it
/// anew every time, with standing reservations placed over it, as jobs
/// start, end early, overrun their walltime and are submitted.
#[test]
fn carrying_the_running_profile_decides_the_same() {
    let text = "RESERVATIONDEPTH 3\nXFACTORWEIGHT 10\n\
                SRCFG[day] HOSTLIST=n5,n6 PERIOD=DAY STARTTIME=08:00:00 ENDTIME=18:00:00\n";
    let mut carrying = Engine::new(cfg(text));
    let mut anew = Engine::new(cfg(text));
    let ns = nodes(6, 2);
    let mut jobs = forty_jobs("u1");
    let mut carried = 0;
    for step in 0..40i64 {
        let now = step * 900;
        if step % 7 == 3 {
            jobs.push(idle(&format!("{}", 100 + step), "u2", 2, H, now));
        }
        anew.carried = Default::default();
        // The carrying engine is also told the nodes are the same.
        let a = carrying.iterate_same_nodes(&snap(ns.clone(), jobs.clone()), now);
        let b = anew.iterate(&snap(ns.clone(), jobs.clone()), now);
        carried += carrying
            .carried
            .running
            .as_ref()
            .is_some_and(|r| r.carried() > 0) as u32;
        assert_eq!(
            serde_json::to_string(&*a).unwrap(),
            serde_json::to_string(&*b).unwrap(),
            "at {now}"
        );
        let (la, lb) = (carrying.last.as_ref().unwrap(), anew.last.as_ref().unwrap());
        assert_eq!(la.base, lb.base, "at {now}");
        assert_eq!(la.view.profile, lb.view.profile, "at {now}");
        // The RM starts what was planned; a job runs for a third of its
        // walltime, or (every fifth) twice as long.
        for s in &a.starts {
            let j = jobs.iter_mut().find(|j| j.id == s.job).unwrap();
            j.state = JobState::Running;
            j.start_time = Some(now);
            j.allocation = s.allocation.clone();
        }
        jobs.retain(|j| {
            let (Some(start), Some(wall)) = (j.start_time, j.walltime) else {
                return true;
            };
            let overruns = j.id.bytes().map(usize::from).sum::<usize>() % 5 == 0;
            let runtime = if overruns { 2 * wall } else { wall / 3 };
            start + runtime > now + 900
        });
    }
    assert_eq!(carrying.state, anew.state);
    assert!(carried > 20, "carried in {carried} of 40 iterations");
}

/// Copying the snapshot's jobs into an earlier iteration's (reusing their
/// buffers) gives the jobs a fresh copy gives, whatever was there before:
/// more or fewer jobs, every field set or left at its default.
#[test]
fn jobs_copied_into_earlier_ones_are_the_snapshots() {
    let full = |id: &str, k: u32| Job {
        id: id.into(),
        user: format!("user{k}"),
        group: format!("group{k}"),
        account: Some(format!("acct{k}")),
        class: Some("batch".into()),
        qos: Some(format!("q{k}")),
        partition: Some("p".into()),
        state: JobState::Running,
        holds: thin_vec::thin_vec![HoldKind::User],
        dependency_satisfied: false,
        submit_time: 10 + k as i64,
        earliest_start: Some(20),
        start_time: Some(30),
        end_time: None,
        walltime: Some(H),
        tasks: 3 + k,
        task: Resources::procs_mem(2, 100),
        gres_per_task: crate::model::GresList::parse(&format!("gpu:{k}")).unwrap(),
        gres_per_node: crate::model::GresList::parse("tape:1,gpu:a100:2").unwrap(),
        gres_per_job: crate::model::GresList::parse(&format!("lic:{k}")).unwrap(),
        node_gres: crate::model::GresCounts([k as u16; crate::model::MAX_GRES]),
        bundle: k,
        nodes: Some(2),
        tasks_per_node: Some(2),
        features: thin_vec::thin_vec!["a".into(), format!("f{k}")],
        node_mem: Some(crate::model::NodeAmount {
            cmp: crate::model::Cmp::Ge,
            mb: 1,
        }),
        node_disk: None,
        pref_features: thin_vec::thin_vec!["fast".into()],
        hostlist: thin_vec::thin_vec!["n1".into(), "n2".into()],
        exclude_hosts: thin_vec::thin_vec!["n3".into()],
        advres: Some("r".into()),
        attributes: thin_vec::thin_vec!["PREEMPTEE".into()],
        bypass_count: k,
        system_priority: Some(-5),
        node_allocation_policy: Some(crate::config::NodeAllocationPolicy::Fastest),
        allocation: (0..=k)
            .map(|n| NodeTasks {
                node: format!("node-with-a-long-name-{n}"),
                tasks: n + 1,
            })
            .collect(),
        utilized_procs: Some(1.5),
    };
    let a = vec![full("3", 4), idle("1", "u", 1, H, 0), full("2", 1)];
    let b = vec![idle("2", "v", 2, 2 * H, 5), full("1", 7)];
    let cases = [
        (a.clone(), b.clone()),
        (b.clone(), a.clone()),
        (a.clone(), vec![]),
        (vec![], a.clone()),
    ];
    for (before, now) in cases {
        let fresh = jobs_by_id(&now);
        assert_eq!(jobs_by_id_into(&now, jobs_by_id(&before)), fresh);
    }
}

/// `iterate_same_nodes` is a promise: debug builds catch it broken.
#[cfg(debug_assertions)]
#[test]
#[should_panic(expected = "iterate_same_nodes: the nodes changed")]
fn a_broken_same_nodes_promise_is_caught() {
    let mut e = Engine::new(cfg(""));
    let job = idle("1", "u1", 1, 3600, 0);
    e.iterate_same_nodes(&snap(nodes(2, 2), vec![job.clone()]), 60);
    e.iterate_same_nodes(&snap(nodes(3, 2), vec![job]), 120);
}

/// The node sets of requirement signatures are carried between
/// iterations for the same cluster only: when a node gains the feature a
/// waiting job asks for, the next iteration starts the job there.
#[test]
fn requirement_node_sets_follow_the_nodes() {
    let mut e = Engine::new(cfg("RESERVATIONDEPTH 1\n"));
    let mut job = idle("1", "u1", 1, 3600, 0);
    job.features = thin_vec::thin_vec!["gpu".into()];
    let plain = nodes(2, 2);
    let p = e.iterate(&snap(plain.clone(), vec![job.clone()]), 60);
    assert!(p.starts.is_empty());
    assert!(
        matches!(p.jobs[0].reason, Some(Reason::NoFit { .. })),
        "{:?}",
        p.jobs[0].reason
    );
    // The same nodes again: the carried sets answer the same.
    let p = e.iterate(&snap(plain.clone(), vec![job.clone()]), 120);
    assert!(p.starts.is_empty());
    let mut gpu = plain;
    gpu[1].features = vec!["gpu".into()];
    let p = e.iterate(&snap(gpu, vec![job]), 180);
    assert_eq!(started(&p), vec![("1", false)]);
    assert_eq!(p.starts[0].allocation[0].node, "n2");
}

/// A random heterogeneous cluster for [`shortlist_places_as_scoring_every_node`]:
/// node types differ in processors, memory, features and speed; some
/// processors are busy until a random time.
fn mixed_cluster(types: &[u8], busy: &[(u8, u8)]) -> (Vec<Node>, Vec<Job>) {
    const TYPES: [(u32, u64, &[&str], f64); 4] = [
        (2, 4000, &[], 1.0),
        (4, 8000, &["a"], 1.5),
        (8, 16000, &["a", "b"], 0.8),
        (4, 16000, &["b"], 1.2),
    ];
    // Running jobs use some local disk: MINRESOURCE orders by free disk
    // after processors and memory (and nodes differ in it mostly by that).
    let disk = |k: usize| if k % 10 == 0 { 3000 } else { 2000 };
    let mut ns = Vec::new();
    let mut run = Vec::new();
    for (k, &t) in types.iter().enumerate() {
        let (procs, mem, feats, speed) = TYPES[t as usize % 4];
        let name = format!("n{}", k + 1);
        let (used, hours) = busy[k % busy.len()];
        let used = used as u32 % (procs + 1);
        if used > 0 {
            let mut j = idle(
                &format!("r{k}"),
                "r",
                used,
                (hours as i64 % 8 + 1) * H,
                -2 * H,
            );
            j.task = Resources {
                disk: 100 * (hours as u64 % 3),
                ..Resources::procs_mem(1, 500)
            };
            run.push(running(j, -H, &[(&name, used)]));
        }
        ns.push(Node {
            name,
            configured: Resources {
                disk: disk(k),
                ..Resources::procs_mem(procs, mem)
            },
            features: feats.iter().map(|f| f.to_string()).collect(),
            speed: Some(speed),
            ..Node::default()
        });
    }
    (ns, run)
}

/// An administrator reservation of `hosts` for `users` over [start,
/// start + hours) in engine `e`, on the cluster of `ns`.
fn admin_reservation(
    e: &mut Engine,
    ns: &[Node],
    hosts: &str,
    users: &str,
    start: i64,
    hours: i64,
) {
    let cl = Cluster::build(ns, &e.cfg);
    let mut profile = crate::profile::Profile::from_cluster(&cl, 0);
    let req = crate::reservation::AdminRequest {
        hosts: Some(hosts.into()),
        users: Some(users.into()),
        start: Some(start),
        duration: Some(hours * H),
        ..Default::default()
    };
    let order = crate::reservation::place::RmOrder;
    e.state
        .admin
        .create(req, 0, &cl, &mut profile, 0, &order, &|_, _| false)
        .unwrap();
}

/// Random idle jobs for [`the_reference_decides_alike`]: sizes, tasks
/// per node, features, local disk, credentials, ADVRES, host lists,
/// holds and begin times.
fn random_jobs(specs: &[(u32, u32, u64, u8, i64, u32)], extra: &[u8]) -> Vec<Job> {
    let mut jobs = Vec::new();
    for (k, &(tasks, procs, mem, feat, hours, tpn)) in specs.iter().enumerate() {
        let mut j = idle(
            &format!("j{k}"),
            &format!("u{}", k % 3),
            tasks,
            hours * H,
            -(k as i64) * 60,
        );
        // Tasks per node of 2 and 3 besides none (0, 1).
        j.tasks_per_node = (tpn >= 2).then_some(tpn);
        j.task = Resources {
            disk: if feat == 2 { 200 } else { 0 },
            ..Resources::procs_mem(procs, mem)
        };
        if feat == 1 {
            j.features = thin_vec::thin_vec!["a".into()];
        }
        match extra[k % extra.len()] {
            1 => j.qos = Some("high".into()),
            2 => j.advres = Some("day".into()),
            3 => j.hostlist = thin_vec::thin_vec!["n1".into(), "n3".into(), "n4".into()],
            4 => j.earliest_start = Some(2 * H),
            5 => j.holds = thin_vec::thin_vec![HoldKind::User],
            6 => j.group = "g2".into(),
            7 => {
                j.node_mem = Some(crate::model::NodeAmount {
                    cmp: crate::model::Cmp::Ge,
                    mb: 16000,
                })
            }
            _ => {}
        }
        jobs.push(j);
    }
    jobs
}

/// Generic resources for [`the_reference_decides_alike`]: some nodes get
/// GPUs (untyped, or typed two ways), some idle jobs ask for them per
/// task, per node or per job, typed or not; the first draw of each leaves
/// the whole case without any, as most sites' clusters are.
fn with_random_gres(ns: &mut [Node], jobs: &mut [Job], gpus: &[u8], greq: &[u8]) {
    if gpus[0] == 0 {
        return;
    }
    const NODE: [&str; 6] = ["", "", "gpu:2", "gpu:a100:2", "gpu:v100:4", "gpu:1,tape:2"];
    for (k, n) in ns.iter_mut().enumerate() {
        n.gres = crate::model::GresList::parse(NODE[gpus[k % gpus.len()] as usize]).unwrap();
    }
    for (k, j) in jobs
        .iter_mut()
        .filter(|j| j.state == JobState::Idle)
        .enumerate()
    {
        let list = |s: &str| crate::model::GresList::parse(s).unwrap();
        match greq[k % greq.len()] {
            4 => j.gres_per_task = list("gpu:1"),
            5 => j.gres_per_task = list("gpu:a100:1"),
            6 => j.gres_per_node = list("gpu:2"),
            7 => j.gres_per_job = list("gpu:3"),
            8 => j.gres_per_task = list("tape:1,gpu:1"),
            _ => {}
        }
    }
}

proptest! {
    // A fixed sample, so that CI does not fail by chance; the cases
    // proptest found failing before (proptest-regressions/engine/tests.txt)
    // run first. On 2026-11-26 a random seed found the accelerated placer
    // leaving a job with two tasks per node unbackfilled (dominance where
    // the fit is not monotone); after the fix, seven runs of 1,500 random
    // cases found no difference. With generic resources added, 4,000
    // random cases (five in six with GPUs, some 4,000 GPU jobs started)
    // found none either.
    #![proptest_config(ProptestConfig {
        cases: 256,
        rng_seed: proptest::test_runner::RngSeed::Fixed(26),
        .. ProptestConfig::default()
    })]

    /// The accelerated placer (`engine::accel`: node sets, now-indexes,
    /// shortlists, fit cache, dominance) decides as the reference, which
    /// asks the profile directly (`engine::reference`): the same plans,
    /// byte for byte, over two iterations, on random clusters and queues
    /// with standing, administrator and job reservations, node access
    /// policies, allocation and backfill policies, features, local disk,
    /// tasks per node, host lists, ADVRES, throttling and generic
    /// resources (per task, per node and per job, typed). The shortlist
    /// runs as in production and wherever it applies, however few the
    /// nodes with room.
    #[test]
    fn the_reference_decides_alike(
        types in proptest::collection::vec(0u8..4, 8..120),
        busy in proptest::collection::vec((0u8..9, 0u8..8), 1..30),
        specs in proptest::collection::vec((1u32..24, 1u32..3, 0u64..3000, 0u8..4, 1i64..10, 0u32..4), 5..60),
        extra in proptest::collection::vec(0u8..12, 1..20),
        policy in 0usize..6,
        access in 0usize..3,
        backfill in 0usize..4,
        depth in 0u32..4,
        shape in 0usize..3,
        limits in 0usize..5,
        admin in proptest::option::of((0i64..4, 1i64..6)),
        gpus in proptest::collection::vec(0u8..6, 1..12),
        greq in proptest::collection::vec(0u8..9, 1..16),
    ) {
        let policy = ["MINRESOURCE", "FIRSTAVAILABLE", "FASTEST", "CPULOAD", "LASTAVAILABLE", "PRIORITY"][policy];
        let access = ["SHARED", "SINGLEUSER", "SINGLEJOB"][access];
        let backfill = ["FIRSTFIT", "BESTFIT", "GREEDY", "NONE"][backfill];
        let shape = ["", "ENABLEMULTINODEJOBS FALSE", "JOBNODEMATCHPOLICY EXACTNODE"][shape];
        let limits = [
            "",
            "USERCFG[u1] MAXPROC=12\nGROUPCFG[g2] MAXJOB=2,4",
            "USERCFG[DEFAULT] MAXJOB=3\nQOSCFG[high] PRIORITY=1000",
            "QOSWEIGHT 1\nQOSCFG[high] PRIORITY=1000 QFLAGS=PREEMPTOR\nQOSCFG[DEFAULT] QFLAGS=PREEMPTEE\nUSERCFG[u1] MAXPROC=12",
            "QOSWEIGHT 1\nQOSCFG[high] PRIORITY=1000 QFLAGS=PREEMPTOR\nQOSCFG[DEFAULT] QFLAGS=PREEMPTEE\nPREEMPTPOLICY SUSPEND",
        ][limits];
        let c = cfg(&format!(
            "NODEALLOCATIONPOLICY {policy}\nNODEACCESSPOLICY {access}\nRESERVATIONDEPTH {depth}\n\
             BACKFILLPOLICY {backfill}\n{shape}\n{limits}\n\
             SRCFG[b] NODEFEATURES=b TASKCOUNT=3 RESOURCES=PROCS:-1 PERIOD=INFINITY USERLIST=u1\n\
             SRCFG[day] HOSTLIST=n2,n5,n9 PERIOD=DAY STARTTIME=03:00:00 ENDTIME=09:00:00\n"
        ));
        let (mut ns, mut jobs) = mixed_cluster(&types, &busy);
        jobs.extend(random_jobs(&specs, &extra));
        with_random_gres(&mut ns, &mut jobs, &gpus, &greq);
        let s = snap(ns.clone(), jobs);
        let plans = |reference: bool, mode| {
            let mut e = Engine::new(c.clone());
            if let Some((start, hours)) = admin {
                admin_reservation(&mut e, &ns, "n1,n2,n3,n4", "u2", start * H, hours);
            }
            let mut run = || (e.iterate(&s, 0), e.iterate(&s, 1800));
            with_mode(mode, || if reference { super::reference::with_reference(run) } else { run() })
        };
        let want = plans(true, Mode::Normal);
        for mode in [Mode::Normal, Mode::Always] {
            let got = plans(false, mode);
            for (g, w) in [(&got.0, &want.0), (&got.1, &want.1)] {
                prop_assert_eq!(
                    serde_json::to_string(&**g).unwrap(),
                    serde_json::to_string(&**w).unwrap(),
                    "{:?}", mode
                );
            }
        }
    }
}

/// MINRESOURCE takes the node with the least free, down to disk: 200 equal
/// nodes each run a job, the later the node the more disk its job uses,
/// so the one-task job goes to the last node, past the first 32 slots a
/// shortlist in node order would stop at.
#[test]
fn shortlist_orders_equal_nodes_by_free_disk() {
    let ns: Vec<Node> = (1..=200)
        .map(|k| Node {
            name: format!("n{k}"),
            configured: Resources {
                disk: 30_000,
                ..Resources::procs_mem(4, 8000)
            },
            ..Node::default()
        })
        .collect();
    let mut jobs: Vec<Job> = (1..=200)
        .map(|k| {
            let mut j = idle(&format!("r{k}"), "r", 1, 4 * H, -2 * H);
            j.task = Resources {
                disk: 100 * k,
                ..Resources::procs_mem(1, 1000)
            };
            running(j, -H, &[(&format!("n{k}"), 1)])
        })
        .collect();
    jobs.push(idle("J", "u", 1, H, -60));
    let s = snap(ns, jobs);
    let c = cfg("NODEALLOCATIONPOLICY MINRESOURCE\n");
    for mode in [Mode::Normal, Mode::Always, Mode::Off] {
        let p = with_mode(mode, || Engine::new(c.clone()).iterate(&s, 0));
        assert_eq!(started_on(&p), vec![("J", vec!["n200"])], "{mode:?}");
    }
}

/// MINRESOURCE as Maui walks it (MJobAllocMNL), through the shortlist and
/// through scoring every node alike: the smallest memory tier first (here
/// 4 GB for n1-n100, the 8 GB-and-over tier for n101-n200), within a tier
/// the highest index first, each node giving all the tasks it has room
/// for and the last only what is still needed.
#[test]
fn minresource_walks_memory_tiers_from_the_end() {
    let mut ns = nodes(200, 8);
    for n in &mut ns[..100] {
        n.configured.mem = 4000;
    }
    let a = idle("A", "t", 1, H, -900);
    let b = idle("B", "u", 10, H, -600);
    let mut c = idle("C", "v", 1, H, -300);
    c.task = Resources::procs_mem(1, 6000);
    let s = snap(ns, vec![a, b, c]);
    let conf = cfg("NODEALLOCATIONPOLICY MINRESOURCE\nXFACTORWEIGHT 0\nQUEUETIMEWEIGHT 1\n");
    for mode in [Mode::Normal, Mode::Always, Mode::Off] {
        let p = with_mode(mode, || Engine::new(conf.clone()).iterate(&s, 0));
        assert_eq!(
            started_on(&p),
            vec![
                ("A", vec!["n100"]),
                ("B", vec!["n99", "n100"]),
                ("C", vec!["n200"])
            ],
            "{mode:?}"
        );
        let b = &p.starts[1].allocation;
        assert_eq!(
            b.iter().map(|a| a.tasks).collect::<Vec<_>>(),
            vec![3, 7],
            "{mode:?}"
        );
    }
}

/// Issue 28's reproduction of plain EASY's first divergence: ten
/// one-processor nodes, J2 (8 processors) runs on n3-n10 until t = 1000,
/// n1 and n2 are idle. J3 (8 processors) is reserved for t = 1000. Under
/// the policy's order alone its reservation takes idle n1 and n2, and J4
/// (2 processors, 5000 s) waits; RESERVATIONNODEPOLICY LATESTFREED takes
/// the nodes freeing last before the start (J2's), and J4 backfills at
/// once onto n1 and n2, without delaying J3. LASTAVAILABLE as Maui's code
/// orders a future start (the highest index first) takes J2's nodes too.
#[test]
fn latest_freed_reservation_leaves_idle_nodes_to_backfill() {
    let ns = nodes(10, 1);
    let on: Vec<(String, u32)> = (3..=10).map(|k| (format!("n{k}"), 1)).collect();
    let on: Vec<(&str, u32)> = on.iter().map(|(n, t)| (n.as_str(), *t)).collect();
    let jobs = vec![
        running(idle("J2", "a", 8, 1030, -100), -30, &on),
        idle("J3", "b", 8, 1000, -60),
        idle("J4", "c", 2, 5000, 0),
    ];
    let s = snap(ns, jobs);
    let j2_nodes: Vec<String> = on.iter().map(|x| x.0.to_string()).collect();
    let maui = "NODEALLOCATIONPOLICY LASTAVAILABLE\nXFACTORWEIGHT 0\nQUEUETIMEWEIGHT 1\n";
    let p = Engine::new(cfg(maui)).iterate(&s, 0);
    assert_eq!(held_by(&p, "J3"), (1000, j2_nodes.clone()));
    assert_eq!(started_on(&p), vec![("J4", vec!["n1", "n2"])]);
    for policy in [
        "FIRSTAVAILABLE",
        "LASTAVAILABLE\nLASTAVAILABLEORDER BESTFIT",
    ] {
        let base = format!("NODEALLOCATIONPOLICY {policy}\nXFACTORWEIGHT 0\nQUEUETIMEWEIGHT 1\n");
        let p = Engine::new(cfg(&base)).iterate(&s, 0);
        let (start, held) = held_by(&p, "J3");
        assert_eq!(start, 1000, "{policy}");
        assert!(held.iter().any(|n| n == "n1"), "{policy}");
        assert!(started_on(&p).is_empty(), "{policy}: J4 waits");

        let p =
            Engine::new(cfg(&format!("{base}RESERVATIONNODEPOLICY LATESTFREED\n"))).iterate(&s, 0);
        assert_eq!(held_by(&p, "J3"), (1000, j2_nodes.clone()), "{policy}");
        assert_eq!(started_on(&p), vec![("J4", vec!["n1", "n2"])], "{policy}");
    }
}

/// FIRSTFIT as Maui runs it, in the case where mauisched first parted
/// from Maui 3.3 on a 1,000-job comparison. Four 8-processor nodes: n1
/// idle; n2 with 1 free and jobs of 1, 2 and 4 processors ending at 29 min,
/// 3:58 and 7:58; n3 and n4 full until 1 h. T (16 processors) is reserved
/// for 1 h on n3 and n4. U (32) can neither start nor get a reservation
/// (RESERVATIONDEPTH 1): from there Maui's priority pass starts nothing
/// ("Idle Job Reached"). Backfill's first window is n1 and n2, 9
/// processors for 3:58 (n2's availability ends at its second change): A
/// (8 processors, 8 h) does not fit its time, B (8, 2 h) does and takes
/// n2's processor and 7 of n1's (MINRESOURCE: the highest node first). The
/// next window, n1 alone, has 1 processor left: A waits, though it would
/// have fitted on n1 before B.
#[test]
fn maui_first_fit_goes_window_by_window() {
    let ns = nodes(4, 8);
    let m = 60;
    let jobs = vec![
        running(idle("r1", "r", 1, 31 * m, -2 * m), -2 * m, &[("n2", 1)]),
        running(idle("r2", "r", 2, 4 * H, -2 * m), -2 * m, &[("n2", 2)]),
        running(idle("r3", "r", 4, 8 * H, -2 * m), -2 * m, &[("n2", 4)]),
        running(idle("r4", "r", 8, H + 2 * m, -2 * m), -2 * m, &[("n3", 8)]),
        running(idle("r5", "r", 8, H + 2 * m, -2 * m), -2 * m, &[("n4", 8)]),
        idle("T", "t", 16, H, -4000),
        idle("U", "u", 32, H, -3000),
        idle("A", "a", 8, 8 * H, -2000),
        idle("B", "b", 8, 2 * H, -1000),
    ];
    let s = snap(ns, jobs);
    let c = cfg("NODEALLOCATIONPOLICY MINRESOURCE\nXFACTORWEIGHT 0\nQUEUETIMEWEIGHT 1\n");
    for mode in [Mode::Normal, Mode::Off] {
        let p = with_mode(mode, || Engine::new(c.clone()).iterate(&s, 0));
        assert_eq!(
            held_by(&p, "T"),
            (H, vec!["n3".to_string(), "n4".to_string()]),
            "{mode:?}"
        );
        assert_eq!(started_on(&p), vec![("B", vec!["n1", "n2"])], "{mode:?}");
        let b = &p.starts[0].allocation;
        assert_eq!(
            b.iter().map(|a| a.tasks).collect::<Vec<_>>(),
            vec![7, 1],
            "{mode:?}"
        );
        assert!(p.starts[0].backfill);
    }
}

/// LASTAVAILABLE as Maui 3.3's code runs it (`MNodeSelectIdleTasks` sorts
/// the idle nodes by how long they stay available to the job, and
/// `MJobAllocMNL` walks that list from its end) against the guide's best
/// fit in time (LASTAVAILABLEORDER BESTFIT). Four one-processor nodes;
/// administrative reservations take n3 from 2 h and n4 from 3 h. Four
/// one-hour jobs start now. Maui: n1 and n2 stay available for ever, so
/// they go first, the highest index first (n2, n1), then n4 (3 h), then
/// n3 (2 h). The guide: the least time left after the job first: n3
/// (1 h), n4 (2 h), then n1 and n2 (nothing follows), by index.
#[test]
fn last_available_walks_the_longest_available_first_as_maui() {
    let ns = nodes(4, 1);
    let jobs: Vec<Job> = (1..=4)
        .map(|k| idle(&format!("S{k}"), "u", 1, H, -100 + k as i64))
        .collect();
    let s = snap(ns.clone(), jobs);
    let order = |extra: &str| {
        let mut e = Engine::new(cfg(&format!(
            "NODEALLOCATIONPOLICY LASTAVAILABLE\nXFACTORWEIGHT 0\nQUEUETIMEWEIGHT 1\n{extra}"
        )));
        admin_reservation(&mut e, &ns, "n3", "x", 2 * H, 10);
        admin_reservation(&mut e, &ns, "n4", "x", 3 * H, 10);
        let p = e.iterate(&s, 0);
        let mut v = started_on(&p);
        v.sort();
        v.into_iter()
            .map(|(j, n)| (j.to_string(), n[0].to_string()))
            .collect::<Vec<_>>()
    };
    let pairs = |v: [(&str, &str); 4]| -> Vec<(String, String)> {
        v.iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect()
    };
    assert_eq!(
        order(""),
        pairs([("S1", "n2"), ("S2", "n1"), ("S3", "n4"), ("S4", "n3")])
    );
    assert_eq!(
        order("LASTAVAILABLEORDER BESTFIT\n"),
        pairs([("S1", "n3"), ("S2", "n4"), ("S3", "n1"), ("S4", "n2")])
    );
}

/// Maui 3.3 draws a job to the nodes of a reservation that admits it even
/// when the reservation begins only after the job would end
/// (`MJobGetSNRange` takes a non-overlapping reservation's whole length as
/// the overlap): between two periods of a daily standing reservation, its
/// users' jobs go to its nodes first. At 17:30, after the period (08:00 to
/// 17:00 on n3 and n4, for user a), A (user a) starts on n3 ahead of n1
/// under FIRSTAVAILABLE, and B, whom it does not admit, on n1.
#[test]
fn a_later_reservation_draws_its_users_to_its_nodes_as_maui() {
    let c = cfg(
        "NODEALLOCATIONPOLICY FIRSTAVAILABLE\nSRCFG[day] HOSTLIST=n3,n4 PERIOD=DAY \
                 STARTTIME=08:00:00 ENDTIME=17:00:00 USERLIST=a\n",
    );
    let now = 17 * H + H / 2;
    let jobs = vec![
        idle("A", "a", 1, H, now - 200),
        idle("B", "b", 1, H, now - 100),
    ];
    let p = Engine::new(c).iterate(&snap(nodes(4, 1), jobs), now);
    let mut got = started_on(&p);
    got.sort();
    assert_eq!(got, vec![("A", vec!["n3"]), ("B", vec!["n1"])]);
}

/// A job that failed to start says nothing of one that may use other
/// nodes: M needs a big-memory node (a trace's required node memory), all
/// of which are busy, and S, of the same user, no smaller and no shorter,
/// starts at once in the priority pass on the small nodes, as Maui starts
/// it. The accelerated placer took S for dominated by M; backfill does not
/// make up for it here, since two ends on each small node close Maui's
/// window there at 90 minutes, short of S's two hours.
#[test]
fn a_failed_start_does_not_hold_back_a_job_for_other_nodes() {
    let mut ns = nodes(4, 8);
    for n in &mut ns[2..] {
        n.configured.mem = 16384;
    }
    let mut m = idle("M", "u", 8, H, -2000);
    m.node_mem = Some(crate::model::NodeAmount {
        cmp: crate::model::Cmp::Ge,
        mb: 8192,
    });
    let mut jobs = vec![running(
        idle("r", "r", 16, 2 * H, -60),
        -60,
        &[("n3", 8), ("n4", 8)],
    )];
    for (k, node) in ["n1", "n2"].into_iter().enumerate() {
        for (l, wall) in [(0, H), (1, 3 * H / 2)] {
            let id = format!("r{k}{l}");
            jobs.push(running(
                idle(&id, "r", 1, wall + 60, -60),
                -60,
                &[(node, 1)],
            ));
        }
    }
    jobs.extend([m, idle("S", "u", 8, 2 * H, -1000)]);
    let s = snap(ns, jobs);
    let c = cfg("QUEUETIMEWEIGHT 1\nXFACTORWEIGHT 0\n");
    let want = super::reference::with_reference(|| Engine::new(c.clone()).iterate(&s, 0));
    assert_eq!(started_on(&want).len(), 1);
    for mode in [Mode::Normal, Mode::Off, Mode::Always] {
        let p = with_mode(mode, || Engine::new(c.clone()).iterate(&s, 0));
        assert_eq!(started_on(&p), started_on(&want), "{mode:?}");
        assert_eq!(p.job("M").unwrap().estimated_start, Some(2 * H - 60));
    }
}

/// What ranking derives from each idle job alone is carried between
/// iterations for jobs that did not change. Every field it reads changes
/// in turn, as do the parameters it reads and the nodes: the carrying
/// engine decides as one that derives everything anew (and debug builds
/// check each carried derivation against a fresh one).
#[test]
fn carried_job_derivations_follow_changed_jobs_and_configuration() {
    let base = "RESERVATIONDEPTH 2\nQOSCFG[hi] PRIORITY=10\n";
    let mut ns = nodes(4, 2);
    for n in &mut ns[..2] {
        n.features = vec!["fast".into()];
        n.partition = Some("p1".into());
    }
    for n in &mut ns[2..] {
        n.partition = Some("p2".into());
    }
    // Two nodes busy for long: most of the queue waits, so it is ranked
    // again in each iteration.
    let mut jobs = vec![
        running(idle("1", "r", 2, 100 * H, -H), -H, &[("n1", 2)]),
        running(idle("2", "r", 2, 100 * H, -H), -H, &[("n3", 2)]),
    ];
    for k in 0..8 {
        jobs.push(idle(
            &format!("{}", 10 + k),
            "u1",
            2 + k % 3,
            4 * H,
            k as i64 * 60,
        ));
    }
    // What changes, and how.
    type Change = (&'static str, fn(&mut Job));
    let steps: Vec<Change> = vec![
        ("features", |j| {
            j.features = thin_vec::thin_vec!["fast".into()]
        }),
        ("no such feature", |j| {
            j.features = thin_vec::thin_vec!["nosuch".into()]
        }),
        ("partition", |j| j.partition = Some("p2".into())),
        ("host list", |j| {
            j.hostlist = thin_vec::thin_vec!["n4".into()]
        }),
        ("excluded hosts", |j| {
            j.exclude_hosts = thin_vec::thin_vec!["n2".into(), "n4".into()]
        }),
        ("tasks", |j| j.tasks = 9),
        ("task", |j| j.task = Resources::procs_mem(2, 1500)),
        ("walltime", |j| j.walltime = Some(H / 2)),
        ("no walltime", |j| j.walltime = None),
        ("node count", |j| j.nodes = Some(2)),
        ("tasks per node", |j| j.tasks_per_node = Some(1)),
        ("qos", |j| j.qos = Some("hi".into())),
        ("preferred features", |j| {
            j.pref_features = thin_vec::thin_vec!["fast".into()]
        }),
        ("user", |j| j.user = "u2".into()),
        ("group", |j| j.group = "g2".into()),
        ("account", |j| j.account = Some("a".into())),
        ("class", |j| j.class = Some("c".into())),
        ("advres", |j| j.advres = Some("nosuch".into())),
        ("node memory", |j| {
            j.node_mem = Some(crate::model::NodeAmount {
                cmp: crate::model::Cmp::Ge,
                mb: 1500,
            })
        }),
        ("node disk", |j| {
            j.node_disk = Some(crate::model::NodeAmount {
                cmp: crate::model::Cmp::Ge,
                mb: 1,
            })
        }),
    ];
    let configs = [
        (3, "QOSCFG[hi] FLAGS=DEDICATED\n"),
        (6, "JOBNODEMATCHPOLICY EXACTNODE\n"),
        (9, "SYSTEMDEFAULTJOBWALLTIME 00:10:00\n"),
        (12, "ENABLEMULTINODEJOBS FALSE\n"),
        (15, "JOBNODEMATCHPOLICY EXACTPROC\n"),
    ];
    let mut carrying = Engine::new(cfg(base));
    let mut anew = Engine::new(cfg(base));
    let mut reused = 0;
    let mut text = base.to_string();
    for round in 0..3usize {
        for (k, (what, change)) in steps.iter().enumerate() {
            let step = round * steps.len() + k;
            let now = step as i64 * 600;
            // One idle job changes, a different one each time.
            let idle_jobs: Vec<usize> = (0..jobs.len())
                .filter(|&i| jobs[i].state == JobState::Idle)
                .collect();
            let i = idle_jobs[step % idle_jobs.len()];
            change(&mut jobs[i]);
            if let Some((_, more)) = configs.iter().find(|(at, _)| *at == k) {
                if round == 1 {
                    text.push_str(more);
                    carrying.cfg = cfg(&text);
                    anew.cfg = cfg(&text);
                }
            }
            if round == 2 && k == 0 {
                // The nodes change: a feature appears.
                ns[3].features = vec!["nosuch".into()];
            }
            // A job is submitted now and then, another leaves the queue.
            if k % 5 == 4 {
                jobs.push(idle(&format!("{}", 100 + step), "u3", 1, H, now));
                jobs.remove(idle_jobs[0]);
            }
            anew.carried = Default::default();
            let a = carrying.iterate(&snap(ns.clone(), jobs.clone()), now);
            let b = anew.iterate(&snap(ns.clone(), jobs.clone()), now);
            assert_eq!(
                serde_json::to_string(&*a).unwrap(),
                serde_json::to_string(&*b).unwrap(),
                "step {step}: {what} of job {}",
                jobs[i.min(jobs.len() - 1)].id
            );
            reused += carrying.carried.memo_reused();
        }
    }
    assert_eq!(carrying.state, anew.state);
    // Most jobs are unchanged in each iteration: their derivations are kept.
    let iterations = 3 * steps.len();
    assert!(
        reused > 4 * iterations,
        "{reused} kept in {iterations} iterations"
    );
    // The jobs that were made to fit nowhere say so.
    let last = carrying.last.as_ref().unwrap();
    assert!(last.plan.jobs.iter().any(|j| matches!(
        &j.reason,
        Some(Reason::NoFit { detail }) if detail.contains("no node meets")
    )));
}

/// An iteration looks up what priority reads of the credentials once per
/// set of credentials. Jobs of 32 sets (each credential kind with its own
/// PRIORITY, fairshare target and weight, a QOS with its own QUEUETIME and
/// XFACTOR weights), two jobs per set: every job's priority and component
/// points are those of its own full breakdown (`checkjob`).
#[test]
fn credential_lookups_shared_by_jobs_give_each_its_own_priority() {
    let c = cfg(
        "CREDWEIGHT 1\nUSERWEIGHT 1\nGROUPWEIGHT 2\nACCOUNTWEIGHT 3\n\
                 QOSWEIGHT 4\nCLASSWEIGHT 5\n\
                 FSWEIGHT 1\nFSUSERWEIGHT 1\nFSGROUPWEIGHT 2\nFSACCOUNTWEIGHT 3\n\
                 FSQOSWEIGHT 4\nFSCLASSWEIGHT 5\nFSPOLICY DEDICATEDPS\n\
                 QUEUETIMEWEIGHT 1\nXFACTORWEIGHT 10\n\
                 USERCFG[a] PRIORITY=10 FSTARGET=20\nUSERCFG[b] PRIORITY=20\n\
                 GROUPCFG[g1] PRIORITY=100 FSTARGET=30\n\
                 ACCOUNTCFG[x] PRIORITY=1000 FSTARGET=5\n\
                 CLASSCFG[c1] PRIORITY=7 FSTARGET=40\n\
                 QOSCFG[hi] PRIORITY=50 QTWEIGHT=3 XFWEIGHT=2 FSTARGET=50\n\
                 QOSCFG[DEFAULT] FSTARGET=10\n",
    );
    let mut e = Engine::new(c);
    // Usage for some credentials: a job of user a, group g1 and account x
    // ran on both nodes for a while.
    let mut ran = idle("0", "a", 2, 10 * H, -4 * H);
    ran.group = "g1".into();
    ran.account = Some("x".into());
    let mut jobs = vec![running(ran, -3 * H, &[("n1", 1), ("n2", 1)])];
    let mut k = 0;
    for user in ["a", "b"] {
        for group in ["g1", "g2"] {
            for account in [None, Some("x")] {
                for class in [None, Some("c1")] {
                    for qos in [None, Some("hi")] {
                        for copy in 0..2 {
                            k += 1;
                            let mut j =
                                idle(&k.to_string(), user, 1 + copy, (1 + k) * 600, -k * 300);
                            j.group = group.into();
                            j.account = account.map(String::from);
                            j.class = class.map(String::from);
                            j.qos = qos.map(String::from);
                            jobs.push(j);
                        }
                    }
                }
            }
        }
    }
    e.iterate(&snap(nodes(2, 2), jobs.clone()), 0);
    let p = e.iterate(&snap(nodes(2, 2), jobs), H);
    let last = e.last.as_ref().unwrap();
    let mut priorities = BTreeSet::new();
    for jp in p.jobs.iter().filter(|j| j.job != "0") {
        let b = last.priority_breakdown(&jp.job).unwrap();
        assert_eq!(jp.priority, b.priority, "job {}", jp.job);
        let points: Vec<f64> = b.components.iter().map(|c| c.contribution).collect();
        assert_eq!(jp.components.to_vec(), points, "job {}", jp.job);
        priorities.insert(jp.priority);
    }
    assert_eq!(p.jobs.len(), 64);
    assert!(
        priorities.len() > 32,
        "{} distinct priorities",
        priorities.len()
    );
}

/// Jobs of equal priority are ranked by submission, then id, whether the
/// queue is looked at in job order (no idle limits) or in submission order
/// (MAXIJOB counts the first jobs submitted). Here submission runs against
/// the ids, two jobs at each time.
#[test]
fn priority_ties_fall_to_submission_then_id() {
    let flat = "QUEUETIMEWEIGHT 0\nXFACTORWEIGHT 0\nFSWEIGHT 0\n";
    let blocker = running(idle("0", "r", 1, 100 * H, -H), -H, &[("n1", 1)]);
    let mut jobs = vec![blocker];
    for (id, submit) in [
        ("1", -100),
        ("2", -100),
        ("3", -300),
        ("4", -300),
        ("5", -600),
        ("6", -600),
    ] {
        jobs.push(idle(id, "u", 1, H, submit));
    }
    let order = |p: &Plan| p.jobs.iter().map(|j| j.job.clone()).collect::<Vec<_>>();
    let p = Engine::new(cfg(flat)).iterate(&snap(nodes(1, 1), jobs.clone()), 0);
    assert_eq!(order(&p), ["5", "6", "3", "4", "1", "2"]);
    assert!(p.jobs.windows(2).all(|w| w[0].priority == w[1].priority));
    let limited = format!("{flat}USERCFG[u] MAXIJOB=4\n");
    let p = Engine::new(cfg(&limited)).iterate(&snap(nodes(1, 1), jobs), 0);
    assert_eq!(order(&p), ["5", "6", "3", "4", "1", "2"]);
    let blocked: Vec<&str> = p
        .jobs
        .iter()
        .filter(|j| matches!(j.reason, Some(Reason::Policy(_))))
        .map(|j| j.job.as_str())
        .collect();
    assert_eq!(
        blocked,
        ["1", "2"],
        "MAXIJOB takes the first four submitted"
    );
}

/// What the engine remembers per job is forgotten once the job leaves:
/// accrual, bypass counts and held reservations when it is no longer idle,
/// a system priority (setspri) when the RM no longer lists it at all.
#[test]
fn what_is_remembered_of_jobs_that_left_is_forgotten() {
    let mut e = Engine::new(cfg("RESERVATIONPOLICY HIGHEST\n"));
    let run = running(idle("1", "u", 1, H, -H), -H, &[("n1", 1)]);
    let jobs = vec![run, idle("2", "u", 1, H, -H)];
    for id in ["1", "2", "gone"] {
        e.state.system_priority.insert(id.into(), 5);
        e.state.bypass.insert(id.into(), 3);
        e.state.ever_reserved.insert(id.into(), -H);
    }
    e.iterate(&snap(nodes(1, 1), jobs), 0);
    let keys = |m: Vec<&String>| m.into_iter().cloned().collect::<BTreeSet<String>>();
    let only = |ids: &[&str]| {
        ids.iter()
            .map(|s| s.to_string())
            .collect::<BTreeSet<String>>()
    };
    assert_eq!(
        keys(e.state.system_priority.keys().collect()),
        only(&["1", "2"])
    );
    assert_eq!(keys(e.state.bypass.keys().collect()), only(&["2"]));
    assert_eq!(keys(e.state.ever_reserved.keys().collect()), only(&["2"]));
    assert_eq!(keys(e.state.accrual.keys().collect()), only(&["2"]));
    // Without system priorities nothing else changes.
    e.state.system_priority.clear();
    e.iterate(&snap(nodes(1, 1), vec![idle("2", "u", 1, H, -H)]), 60);
    assert!(e.state.system_priority.is_empty());
    assert_eq!(keys(e.state.accrual.keys().collect()), only(&["2"]));
}

/// Maui stores a job's priority as an integer cut toward zero (`J->StartPriority =
/// (unsigned long)tmpD`, MQueue.c) and sorts on it, so jobs whose sums
/// differ by less than one tie and keep the queue order. As in Maui's
/// fairshare run of the synthetic trace (t = 1000613: job 22 at 1 after
/// the lower bound, checked before job 23 at 1.7).
#[test]
fn priority_is_cut_to_an_integer_and_ties_keep_the_queue_order() {
    let text = "QUEUETIMEWEIGHT 1\nXFACTORWEIGHT 0\nQOSWEIGHT 1\n\
                USERCFG[DEFAULT] QLIST=lo,hi QDEF=hi\nQOSCFG[lo] PRIORITY=-5\n";
    let r = running(idle("R", "u0", 1, 10 * H, -H), -H, &[("n1", 1)]);
    let with_qos = |mut j: Job, q: &str| {
        j.qos = Some(q.into());
        j
    };
    let jobs = vec![
        r,
        // 5 min - 5 = 0, raised to the lower bound of 1.
        with_qos(idle("P", "u1", 1, H, -300), "lo"),
        // 102 s: 1.7 min, cut to 1.
        with_qos(idle("Q", "u2", 1, H, -102), "hi"),
    ];
    let p = Engine::new(cfg(text)).iterate(&snap(nodes(1, 1), jobs.clone()), 0);
    let order: Vec<(&str, i64)> = p
        .jobs
        .iter()
        .map(|j| (j.job.as_str(), j.priority))
        .collect();
    assert_eq!(order, [("P", 1), ("Q", 1)], "a tie keeps submission order");
    // Allowed below zero, -6 + 1.3 = -4.7 is -4.
    let text = format!("{text}ENABLENEGJOBPRIORITY TRUE\nQOSCFG[lo] PRIORITY=-6\n");
    let jobs = vec![with_qos(idle("N", "u1", 1, H, -78), "lo")];
    let p = Engine::new(cfg(&text)).iterate(&snap(nodes(1, 1), jobs), 0);
    assert_eq!(p.jobs[0].priority, -4);
}

/// Maui's priority reads the queue time `MQueueSelectJobs` recorded at the
/// job's previous iteration (`EffQueueDuration`), and until that is above
/// zero the time since submission. As in Maui's QOS run of the synthetic
/// trace at t = 1026173: job 872 (submitted at 1026105, first seen at
/// 1026113) counts 8 s, job 873 (submitted at the iteration of 1026113)
/// counts its whole 60 s and comes first.
#[test]
fn priority_reads_the_queue_time_recorded_at_the_previous_iteration() {
    // QUEUETIMEWEIGHT 60: a second of queue time is a point.
    let text = "QUEUETIMEWEIGHT 60\nXFACTORWEIGHT 0\n";
    let r = running(idle("R", "u0", 1, 10 * H, -H), -H, &[("n1", 1)]);
    let jobs = vec![
        r,
        idle("872", "u1", 1, H, 105),
        idle("873", "u2", 1, H, 113),
    ];
    let s = snap(nodes(1, 1), jobs);
    let mut e = Engine::new(cfg(text));
    let seen = |p: &Plan| -> Vec<(String, crate::model::Secs)> {
        p.jobs
            .iter()
            .map(|j| (j.job.clone(), j.eff_queue_time))
            .collect()
    };
    let at = |e: &mut Engine, t| seen(&e.iterate(&s, t));
    assert_eq!(at(&mut e, 113), [("872".into(), 8), ("873".into(), 0)]);
    assert_eq!(at(&mut e, 173), [("873".into(), 60), ("872".into(), 8)]);
    // From then on both read the previous iteration's: 68 s and 60 s.
    assert_eq!(at(&mut e, 233), [("872".into(), 68), ("873".into(), 60)]);
}

/// Maui's backfill windows (`MBFGetWindow`) are measured for a pseudo-job
/// of user, group and account `[ALL]`, which every USERLIST admits, and
/// its range search (`MJobGetSNRange`) does not split a range on a gain
/// when a reservation it may use changes its share of the node: Maui cuts
/// the standing reservation in two where a job inside it ends. As in
/// Maui's run of the synthetic trace with QOS, fairshare and the daily
/// reservation (t = 1054252, node n007, job 1869 backfilled).
///
/// Node n1 (8 processors) is reserved from 02:00 to 10:00 for u1 and u2.
/// R2 (u9, 2 processors) ends there at 01:00, R1 (u2, 2 processors) at
/// 03:00, inside the reservation. B (u9, 8 processors), first in priority,
/// is reserved on n2 once R3 ends there; C, behind it, finds the depth of
/// one reservation used, so the priority pass ends. n1's window lasts from now on
/// (4, then 6, then 8 processors, the last gain inside the reservation
/// not splitting the range): u1's 8-hour job is backfilled at once; u3's,
/// which the reservation does not admit, is not.
#[test]
fn backfill_windows_hold_what_a_user_reservation_admits_as_maui() {
    let text = "BACKFILLPOLICY FIRSTFIT\nRESERVATIONDEPTH 1\n\
                SRCFG[day] HOSTLIST=n1 PERIOD=DAY STARTTIME=02:00:00 ENDTIME=10:00:00 USERLIST=u1,u2\n";
    let r1 = running(idle("R1", "u2", 2, 4 * H, -2 * H), -H, &[("n1", 2)]);
    let r2 = running(idle("R2", "u9", 2, 2 * H, -2 * H), -H, &[("n1", 2)]);
    let r3 = running(idle("R3", "u9", 8, 6 * H, -2 * H), -H, &[("n2", 8)]);
    let jobs = |user: &str| {
        vec![
            r1.clone(),
            r2.clone(),
            r3.clone(),
            idle("B", "u9", 8, H, -2 * H),
            idle("C", "u9", 8, H, -2 * H + 60),
            idle("J", user, 1, 8 * H, -60),
        ]
    };
    let plan = |user: &str| Engine::new(cfg(text)).iterate(&snap(nodes(2, 8), jobs(user)), 0);
    let p = plan("u1");
    assert_eq!(held_by(&p, "B"), (5 * H, vec!["n2".to_string()]));
    assert_eq!(started(&p), [("J", true)]);
    assert!(started(&plan("u3")).is_empty());
}

/// Fairshare charges a job its exact use whatever the poll interval: the
/// RM reports a finished job with its start and end, and the engine
/// charges it up to that end, once, even one that started and ended
/// between two iterations. A poll that would otherwise be answered by the
/// priority order runs as an iteration when a job ended since.
#[test]
fn finished_jobs_are_charged_up_to_their_end_once() {
    let text = "FSPOLICY DEDICATEDPS\nFSINTERVAL 24:00:00\n";
    let t = 1000 * 24 * H;
    let used = |e: &Engine, user: &str| -> f64 {
        e.state
            .fairshare
            .windows()
            .iter()
            .map(|w| w.get(crate::model::CredKind::User, user))
            .sum()
    };
    let finished = |j: Job, start: i64, end: i64, on: &[(&str, u32)]| {
        let mut j = running(j, start, on);
        j.state = JobState::Completed;
        j.end_time = Some(end);
        j
    };
    let mut e = Engine::new(cfg(text));
    let a = idle("A", "ua", 2, H, t - 10);
    let p = e.iterate(&snap(nodes(2, 2), vec![a.clone()]), t);
    assert_eq!(started(&p), vec![("A", false)]);
    // Iteration at t+30: A ran t..t+1 (it started and ended between the
    // two iterations); B ran t+2..t+3 and was never seen.
    let b = idle("B", "ub", 3, H, t);
    let gone = vec![
        finished(a.clone(), t, t + 1, &[("n1", 2)]),
        finished(b.clone(), t + 2, t + 3, &[("n1", 2), ("n2", 1)]),
    ];
    e.iterate(&snap(nodes(2, 2), gone.clone()), t + 30);
    assert_eq!((used(&e, "ua"), used(&e, "ub")), (2.0, 3.0));
    // Reported again at the next poll (the RM keeps them a while).
    assert!(e
        .iterate_again(&snap(nodes(2, 2), gone.clone()), t + 60)
        .is_none());
    e.iterate(&snap(nodes(2, 2), gone), t + 90);
    assert_eq!((used(&e, "ua"), used(&e, "ub")), (2.0, 3.0));
    // A poll after which a job ended is an iteration, and charges it.
    let c = running(idle("C", "uc", 1, H, t), t + 95, &[("n2", 1)]);
    e.iterate(&snap(nodes(2, 2), vec![c.clone()]), t + 100);
    let ended = vec![finished(c, t + 95, t + 107, &[("n2", 1)])];
    assert!(e
        .iterate_again(&snap(nodes(2, 2), ended), t + 130)
        .is_some());
    assert_eq!(used(&e, "uc"), 12.0);
}
