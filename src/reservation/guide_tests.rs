//! The reservation scenarios of Maui's guide (seed 7.1.5 and the node
//! allocation figure of seed 5.2.1.3), with the documents' numbers.

use super::acl::{may_preempt, JobAdmission};
use super::place::{self, Candidate, ChooseCtx};
use super::{AdminRequest, AdminStore, PlaceOutcome, Reservation, RmOrder, StandingSet};
use crate::commands::showres;
use crate::config::{Affinity, Config};
use crate::model::time::{Zone, DAY, HOUR};

fn fmt_time(t: crate::model::Time) -> String {
    Zone::utc().fmt(t)
}
use crate::model::{Cluster, Job, Node, NodeIdx, Resources, Time};
use crate::profile::{Admits, FitRequest, JobIdx, Occupant, Profile, Unreserved};

/// Fri Aug 18 2000 12:00:00 UTC.
const FRI_NOON: Time = 966_600_000;
/// Mon Aug 14 2000 04:00:00 UTC.
const MON_4AM: Time = 966_225_600;

fn config(text: &str) -> Config {
    let l = Config::parse(text, "maui.cfg");
    assert!(l.is_ok(), "{:?}", l.diagnostics);
    l.config
}

fn node(name: &str, procs: u32, mem: u64, features: &[&str]) -> Node {
    Node {
        name: name.into(),
        configured: Resources::procs_mem(procs, mem),
        features: features.iter().map(|f| f.to_string()).collect(),
        ..Node::default()
    }
}

fn job(id: &str, user: &str, class: &str, tasks: u32, walltime: i64) -> Job {
    Job {
        id: id.into(),
        user: user.into(),
        group: "users".into(),
        class: Some(class.into()),
        tasks,
        walltime: Some(walltime),
        ..Job::default()
    }
}

fn no_jobs(_: &Reservation, _: JobIdx) -> bool {
    false
}

/// Rolls and places the standing reservations; returns them and the outcomes.
fn standing(
    cfg: &Config,
    cluster: &Cluster,
    profile: &mut Profile,
    now: Time,
) -> (Vec<Reservation>, Vec<PlaceOutcome>) {
    let mut set = StandingSet::new();
    set.roll(&cfg.standing, &cfg.zone, now);
    let out = set.place(0, cluster, profile, &RmOrder, &no_jobs, &mut ());
    (set.instances().to_vec(), out)
}

fn claims(r: &Reservation, c: &Cluster) -> Vec<(String, u32)> {
    r.claims
        .iter()
        .map(|x| (c.nodes[x.node as usize].name.clone(), x.tasks))
        .collect()
}

fn named(v: &[(&str, u32)]) -> Vec<(String, u32)> {
    v.iter().map(|(n, t)| (n.to_string(), *t)).collect()
}

fn earliest<A: Admits>(p: &Profile, j: &Job, adm: &A, from: Time) -> Option<Time> {
    let req = FitRequest::new(j.tasks, j.task, j.walltime.unwrap(), from);
    p.earliest_start(&req, adm, |_| true).map(|f| f.start)
}

#[test]
fn example_1_business_hours_interactive_reservation() {
    let cfg = config(
        "SRCFG[interactive] TASKCOUNT=6 RESOURCES=PROCS:1,MEM:512\n\
         SRCFG[interactive] PERIOD=DAY DAYS=MON,TUE,WED,THU,FRI\n\
         SRCFG[interactive] STARTTIME=9:00:00 ENDTIME=17:00:00\n\
         SRCFG[interactive] CLASSLIST=interactive\n",
    );
    let nodes: Vec<Node> = (1..=4)
        .map(|i| node(&format!("node00{i}"), 2, 1024, &[]))
        .collect();
    let c = Cluster::build(&nodes, &cfg);
    let mut p = Profile::from_cluster(&c, FRI_NOON);
    let (rs, out) = standing(&cfg, &c, &mut p, FRI_NOON);
    assert_eq!(rs.len(), 1);
    let r = &rs[0];
    assert_eq!(fmt_time(r.start), "Fri Aug 18 09:00:00");
    assert_eq!(fmt_time(r.end), "Fri Aug 18 17:00:00");
    // 6 tasks of 1 processor and 512 MB: two per 2-proc, 1 GB node.
    assert!(!out[0].is_partial());
    assert_eq!(
        claims(r, &c),
        named(&[("node001", 2), ("node002", 2), ("node003", 2)])
    );
    let interactive = job("i1", "ann", "interactive", 4, HOUR);
    let batch = job("b1", "bob", "batch", 4, HOUR);
    let a = JobAdmission::new(&rs, &interactive);
    assert_eq!(earliest(&p, &interactive, &a, FRI_NOON), Some(FRI_NOON));
    let b = JobAdmission::new(&rs, &batch);
    let t = earliest(&p, &batch, &b, FRI_NOON).unwrap();
    assert_eq!(
        fmt_time(t),
        "Fri Aug 18 17:00:00",
        "batch waits for the end of business hours"
    );
    let small = job("b2", "bob", "batch", 2, HOUR);
    assert_eq!(
        earliest(&p, &small, &JobAdmission::new(&rs, &small), FRI_NOON),
        Some(FRI_NOON)
    );
}

fn example_2_cfg(hosts: &str, tasks: u32) -> Config {
    config(&format!(
        "SRCFG[interactive] DAYS=MON,TUE,WED,THU,FRI\n\
         SRCFG[interactive] PERIOD=DAY\n\
         SRCFG[interactive] STARTTIME=10:00:00 ENDTIME=15:00:00\n\
         SRCFG[interactive] RESOURCES=PROCS:2,MEM:256\n\
         SRCFG[interactive] HOSTLIST={hosts}\n\
         SRCFG[interactive] TASKCOUNT={tasks}\n\
         SRCFG[interactive] CLASSLIST=interactive\n"
    ))
}

fn quads(big: &[&str]) -> Vec<Node> {
    (1..=20)
        .map(|i| {
            let n = format!("node{i:03}");
            let procs = if big.contains(&n.as_str()) { 8 } else { 4 };
            node(&n, procs, 1024, &[])
        })
        .collect()
}

#[test]
fn example_2_host_constrained_reservation() {
    // 6 tasks on node001, node002, node005, node020, quad-processor hosts
    // with 1 GB: two tasks per host, the last host unused.
    let cfg = example_2_cfg("node001,node002,node005,node020", 6);
    let c = Cluster::build(&quads(&[]), &cfg);
    let mut p = Profile::from_cluster(&c, FRI_NOON);
    let (rs, _) = standing(&cfg, &c, &mut p, FRI_NOON);
    assert_eq!(
        claims(&rs[0], &c),
        named(&[("node001", 2), ("node002", 2), ("node005", 2)])
    );
    assert_eq!(rs[0].claims[0].resources, Resources::procs_mem(4, 512));
    // node001 and node002 with 8 processors: four tasks on the first.
    let c = Cluster::build(&quads(&["node001", "node002"]), &cfg);
    let mut p = Profile::from_cluster(&c, FRI_NOON);
    let (rs, _) = standing(&cfg, &c, &mut p, FRI_NOON);
    assert_eq!(claims(&rs[0], &c), named(&[("node001", 4), ("node002", 2)]));
    // A busy listed host: the reservation stays within the host list.
    let c = Cluster::build(&quads(&[]), &cfg);
    let mut p = Profile::from_cluster(&c, FRI_NOON);
    let busy = Occupant {
        job: 0,
        start: FRI_NOON - HOUR,
        end: FRI_NOON + DAY,
        task: Resources::procs(1),
        tasks: 4,
    };
    p.add_running_job(0, busy, &Unreserved);
    let (rs, _) = standing(&cfg, &c, &mut p, FRI_NOON);
    assert_eq!(
        claims(&rs[0], &c),
        named(&[("node002", 2), ("node005", 2), ("node020", 2)])
    );
    // TASKCOUNT above what the host list holds: the hosts first, then elsewhere.
    let cfg = example_2_cfg("node001,node002", 6);
    let c = Cluster::build(&quads(&[]), &cfg);
    let mut p = Profile::from_cluster(&c, FRI_NOON);
    let (rs, _) = standing(&cfg, &c, &mut p, FRI_NOON);
    assert_eq!(
        claims(&rs[0], &c),
        named(&[("node001", 2), ("node002", 2), ("node003", 2)])
    );
}

#[test]
fn example_3_stacked_reservations_need_both_acls() {
    let text = "SRCFG[interactive] DAYS=MON,TUE,WED,THU,FRI\n\
        SRCFG[interactive] PERIOD=DAY\n\
        SRCFG[interactive] STARTTIME=10:00:00 ENDTIME=15:00:00\n\
        SRCFG[interactive] RESOURCES=PROCS:2,MEM:256\n\
        SRCFG[interactive] HOSTLIST=node001,node002,node005,node020\n\
        SRCFG[interactive] TASKCOUNT=6\n\
        SRCFG[interactive] CLASSLIST=interactive\n\
        SRCFG[debug]       HOSTLIST=node001,node002,node003,node004\n\
        SRCFG[debug]       USERLIST=helpdesk\n\
        SRCFG[debug]       GROUPLIST=operations,sysadmin\n\
        SRCFG[debug]       PERIOD=INFINITY\n";
    let cfg = config(text);
    let c = Cluster::build(&quads(&[]), &cfg);

    // By default the scheduler does not stack unless it has to: debug (a
    // non-floating reservation) takes node001-node004 whole, and the
    // dedicated interactive reservation keeps to its free listed hosts.
    let mut p = Profile::from_cluster(&c, FRI_NOON);
    let (rs, out) = standing(&cfg, &c, &mut p, FRI_NOON);
    assert_eq!(rs[0].id, "debug.0");
    assert_eq!(claims(&rs[0], &c).len(), 4);
    assert_eq!(claims(&rs[1], &c), named(&[("node005", 2), ("node020", 2)]));
    assert!(
        out[1].is_partial(),
        "4 of 6 tasks: node001 and node002 are debug's"
    );
    assert_eq!(p.claims_at(0, FRI_NOON).len(), 1);

    // Both in place on node001 (interactive first, then debug on top).
    let mut set = StandingSet::new();
    set.roll(&cfg.standing, &cfg.zone, FRI_NOON);
    let mut rs = set.instances().to_vec();
    rs.reverse();
    assert_eq!(rs[0].id, "interactive.11187");
    let mut p = Profile::from_cluster(&c, FRI_NOON);
    for (i, r) in rs.iter_mut().enumerate() {
        place::ensure(r, i as u32, &c, &mut p, &RmOrder, &no_jobs);
    }
    assert_eq!(
        claims(&rs[0], &c),
        named(&[("node001", 2), ("node002", 2), ("node005", 2)])
    );
    assert_eq!(
        p.claims_at(0, FRI_NOON).len(),
        2,
        "node001 is doubly reserved"
    );
    let t = FRI_NOON;
    let free = |j: &Job, n: NodeIdx| p.free(n, t, t + HOUR, &JobAdmission::new(&rs, j)).procs;
    let bob_i = job("1", "bob", "interactive", 1, HOUR);
    let help_i = job("2", "helpdesk", "interactive", 1, HOUR);
    let help_b = job("3", "helpdesk", "batch", 1, HOUR);
    let mut ops_b = job("4", "carl", "batch", 1, HOUR);
    ops_b.group = "operations".into();
    assert_eq!(
        free(&bob_i, 0),
        0,
        "interactive class alone does not reach node001"
    );
    assert_eq!(free(&bob_i, 4), 4, "but it reaches node005");
    assert_eq!(free(&help_i, 0), 4, "class interactive AND user helpdesk");
    assert_eq!(
        free(&help_b, 0),
        0,
        "helpdesk alone does not reach node001's processors"
    );
    assert_eq!(free(&help_b, 2), 4, "but reaches node003 (debug only)");
    assert_eq!(free(&ops_b, 2), 4);
    assert_eq!(free(&job("5", "eve", "batch", 1, HOUR), 2), 0);
}

#[test]
fn example_4_weekly_special_reservation_with_timelimit() {
    let cfg = config(
        "SRCFG[special] TASKCOUNT=32\n\
         SRCFG[special] PERIOD=WEEK\n\
         SRCFG[special] STARTTIME=1:08:00:00\n\
         SRCFG[special] ENDTIME=5:17:00:00\n\
         SRCFG[special] NODEFEATURES=largememory\n\
         SRCFG[special] TIMELIMIT=1:00:00*\n\
         SRCFG[special] QOSLIST=high low special-\n\
         SRCFG[special] ACCCOUNTLIST=!projectX,!projectY\n",
    );
    // 40 nodes, 34 of them with largememory.
    let nodes: Vec<Node> = (1..=40)
        .map(|i| {
            let f: &[&str] = if i <= 34 { &["largememory"] } else { &[] };
            node(&format!("n{i:02}"), 1, 0, f)
        })
        .collect();
    let c = Cluster::build(&nodes, &cfg);
    let mut p = Profile::from_cluster(&c, MON_4AM);
    let (rs, out) = standing(&cfg, &c, &mut p, MON_4AM);
    assert_eq!(rs.len(), 2, "DEPTH 2: this week and next");
    assert_eq!(fmt_time(rs[0].start), "Mon Aug 14 08:00:00");
    assert_eq!(fmt_time(rs[0].end), "Fri Aug 18 17:00:00");
    // 32 tasks, one per node (PROCS=-1), all with largememory.
    assert!(!out[0].is_partial());
    assert_eq!(rs[0].claims.len(), 32);
    assert!(rs[0]
        .claims
        .iter()
        .all(|x| c.nodes[x.node as usize].features == ["largememory"]));
    let mut high = job("h", "u", "batch", 20, 4 * HOUR);
    high.qos = Some("high".into());
    high.account = Some("ops".into());
    let a = JobAdmission::new(&rs, &high);
    // Jobs may overlap the reservation by one hour: a 4-hour job fits from
    // 04:00 (no overlap) and 05:00 (one hour) ...
    assert_eq!(earliest(&p, &high, &a, MON_4AM), Some(MON_4AM));
    assert_eq!(
        earliest(&p, &high, &a, MON_4AM + HOUR),
        Some(MON_4AM + HOUR)
    );
    // ... but from 05:30 it needs the reserved nodes for too long until it
    // can start on Friday at 16:00, overlapping the last hour.
    let t = earliest(&p, &high, &a, MON_4AM + 90 * 60).unwrap();
    assert_eq!(fmt_time(t), "Fri Aug 18 16:00:00");
    // QOS special: admitted with negative affinity (a last resort).
    let mut special = job("s", "u", "batch", 4, HOUR);
    special.qos = Some("special".into());
    let s = JobAdmission::new(&rs, &special);
    let mon9 = MON_4AM + 5 * HOUR;
    assert_eq!(
        p.reserved_affinity(0, mon9, mon9 + HOUR, &s),
        Some(Affinity::Negative)
    );
    assert_eq!(
        p.reserved_affinity(0, mon9, mon9 + HOUR, &a),
        Some(Affinity::Positive)
    );
    // projectX is excluded even with QOS high: 10 nodes only after Friday 17:00.
    let mut x = job("x", "u", "batch", 10, HOUR);
    x.qos = Some("high".into());
    x.account = Some("projectX".into());
    let t = earliest(&p, &x, &JobAdmission::new(&rs, &x), mon9).unwrap();
    assert_eq!(fmt_time(t), "Fri Aug 18 17:00:00");
}

#[test]
fn example_5_jupiter_shares_with_saturn_as_a_last_resort() {
    let cfg = config(
        "ACCTCFG[jupiter] PRIORITY=10000\n\
         SRCFG[jupiter] HOSTLIST=node0[1-9]\n\
         SRCFG[jupiter] PERIOD=INFINITY\n\
         SRCFG[jupiter] ACCOUNTLIST=jupiter,saturn-\n\
         SRCFG[jupiter] OWNER=ACCOUNT:jupiter\n\
         SRCFG[jupiter] FLAGS=OWNERPREEMPT\n\
         SRCFG[jupiter] PERIOD=INFINITY\n",
    );
    let nodes: Vec<Node> = (1..=12)
        .map(|i| node(&format!("node{i:02}"), 2, 0, &[]))
        .collect();
    let c = Cluster::build(&nodes, &cfg);
    let mut p = Profile::from_cluster(&c, FRI_NOON);
    let (rs, _) = standing(&cfg, &c, &mut p, FRI_NOON);
    let got: Vec<String> = claims(&rs[0], &c).into_iter().map(|x| x.0).collect();
    assert_eq!(
        got,
        (1..=9).map(|i| format!("node{i:02}")).collect::<Vec<_>>()
    );
    let acct = |a: &str, tasks: u32| Job {
        account: Some(a.into()),
        ..job(a, a, "batch", tasks, HOUR)
    };
    let (jup, sat, mars) = (acct("jupiter", 1), acct("saturn", 1), acct("mars", 1));
    let t = FRI_NOON;
    let aff = |j: &Job, n: NodeIdx| p.reserved_affinity(n, t, t + HOUR, &JobAdmission::new(&rs, j));
    assert_eq!(aff(&jup, 0), Some(Affinity::Positive));
    assert_eq!(aff(&sat, 0), Some(Affinity::Negative));
    assert_eq!(aff(&sat, 9), None, "node10 is unreserved");
    assert_eq!(
        p.free(0, t, t + HOUR, &JobAdmission::new(&rs, &mars)).procs,
        0
    );
    // Mars fits on the three unreserved nodes only; saturn everywhere.
    let m6 = acct("mars", 6);
    assert_eq!(earliest(&p, &m6, &JobAdmission::new(&rs, &m6), t), Some(t));
    let m7 = acct("mars", 7);
    assert_eq!(earliest(&p, &m7, &JobAdmission::new(&rs, &m7), t), None);
    let s24 = acct("saturn", 24);
    assert_eq!(
        earliest(&p, &s24, &JobAdmission::new(&rs, &s24), t),
        Some(t)
    );
    // OWNERPREEMPT: jupiter's jobs may preempt saturn's, not the reverse.
    assert!(may_preempt(&rs[0], &jup, &sat));
    assert!(!may_preempt(&rs[0], &sat, &jup));
    assert!(!may_preempt(&rs[0], &jup, &jup));
}

#[test]
fn reservation_x_and_jobs_c_and_d() {
    // Seed 5.2.1.3: A (2 h) and B (3 h) run; X is reserved later on the node
    // "below" B; C needs 3 h, D 5 h, one processor each.
    let nodes = vec![
        node("nA", 1, 0, &[]),
        node("nB", 1, 0, &[]),
        node("nUp", 1, 0, &[]),
        node("nDown", 1, 0, &[]),
    ];
    let c = Cluster::build(&nodes, &Config::default());
    let now = FRI_NOON;
    let base = || {
        let mut p = Profile::from_cluster(&c, now);
        for (i, h) in [(0u32, 2), (1, 3)] {
            let o = Occupant {
                job: 100 + i,
                start: now,
                end: now + h * HOUR,
                task: Resources::procs(1),
                tasks: 1,
            };
            p.add_running_job(i, o, &Unreserved);
        }
        let mut store = AdminStore::new();
        let x = store
            .create(
                AdminRequest {
                    name: Some("X".into()),
                    hosts: Some("nDown".into()),
                    start: Some(now + 3 * HOUR),
                    duration: Some(4 * HOUR),
                    ..AdminRequest::default()
                },
                now,
                &c,
                &mut p,
                0,
                &RmOrder,
                &no_jobs,
            )
            .unwrap();
        (p, x)
    };
    let (mut p, _x) = base();
    let one = Resources::procs(1);
    // LASTAVAILABLE: of the nodes where C can start now, the one whose hole
    // after C is shortest; C just fits before X on nDown.
    let fit = p
        .earliest_start(&FitRequest::new(1, one, 3 * HOUR, now), &Unreserved, |_| {
            true
        })
        .unwrap();
    assert_eq!(fit.start, now);
    let holes: Vec<(NodeIdx, Option<i64>)> = fit
        .nodes
        .iter()
        .map(|&(n, _)| (n, p.gap_after(n, now, now + 3 * HOUR, &one, &Unreserved)))
        .collect();
    assert_eq!(holes, [(2, None), (3, Some(0))]);
    let best = holes
        .iter()
        .min_by_key(|(n, g)| (g.unwrap_or(i64::MAX), *n))
        .unwrap()
        .0;
    assert_eq!(best, 3);
    let cjob = || Occupant {
        job: 1,
        start: now,
        end: now + 3 * HOUR,
        task: one,
        tasks: 1,
    };
    p.add_job(best, cjob(), &Unreserved).unwrap();
    let d = FitRequest::new(1, one, 5 * HOUR, now);
    assert_eq!(
        p.earliest_start(&d, &Unreserved, |_| true).unwrap().start,
        now,
        "D starts above A at once"
    );
    // Had C gone above A, X would block D until A ends.
    let (mut p, _) = base();
    p.add_job(2, cjob(), &Unreserved).unwrap();
    let f = p.earliest_start(&d, &Unreserved, |_| true).unwrap();
    assert_eq!((f.start, f.nodes), (now + 2 * HOUR, vec![(0, 1)]));
}

#[test]
fn depth_rolls_across_midnight_and_repairs_partial_instances() {
    let thu_2300 = FRI_NOON - 13 * HOUR;
    let nodes: Vec<Node> = (1..=4).map(|i| node(&format!("n{i}"), 1, 0, &[])).collect();
    let one = Resources::procs(1);
    let run = |depth: u32| {
        let cfg = config(&format!(
            "SRCFG[daily] TASKCOUNT=4 PERIOD=DAY DEPTH={depth} USERLIST=ops\n"
        ));
        let c = Cluster::build(&nodes, &cfg);
        let mut set = StandingSet::new();
        // Thursday 23:00: instances for the coming DEPTH days, then a job
        // reservation for bob's 2-task, 4-hour job at its earliest start.
        let mut p = Profile::from_cluster(&c, thu_2300);
        set.roll(&cfg.standing, &cfg.zone, thu_2300);
        set.place(0, &c, &mut p, &RmOrder, &no_jobs, &mut ());
        let bob = job("j", "bob", "batch", 2, 4 * HOUR);
        let rs = set.instances().to_vec();
        let fit = p
            .earliest_start(
                &FitRequest::new(2, one, 4 * HOUR, thu_2300),
                &JobAdmission::new(&rs, &bob),
                |_| true,
            )
            .unwrap();
        (cfg, c, set, fit)
    };

    // DEPTH 2: bob's job is reserved at Saturday 00:00, before Saturday's
    // instance exists.
    let (cfg, c, mut set, fit) = run(2);
    assert_eq!(fmt_time(fit.start), "Sat Aug 19 00:00:00");
    let held: Vec<NodeIdx> = fit.nodes.iter().take(2).map(|x| x.0).collect();
    assert_eq!(held, [0, 1]);
    let place_job = |p: &mut Profile| {
        for &n in &held {
            let o = Occupant {
                job: 7,
                start: fit.start,
                end: fit.start + 4 * HOUR,
                task: one,
                tasks: 1,
            };
            p.add_job(n, o, &Unreserved).unwrap();
        }
    };
    // Midnight: Thursday's instance expires, Saturday's is created, but the
    // job holds two of its nodes: it gets what it can.
    let midnight = thu_2300 + HOUR;
    let mut p = Profile::from_cluster(&c, midnight);
    place_job(&mut p);
    let roll = set.roll(&cfg.standing, &cfg.zone, midnight);
    assert_eq!(
        (roll.created, roll.removed),
        (vec!["daily.11188".into()], vec!["daily.11186".into()])
    );
    let out = set.place(0, &c, &mut p, &RmOrder, &no_jobs, &mut ());
    assert_eq!(
        (out[0].tasks, out[0].wanted),
        (4, 4),
        "Friday stays complete"
    );
    assert_eq!((out[1].tasks, out[1].wanted), (2, 4), "Saturday is partial");
    let text = showres::showres(set.instances(), &c, midnight, &cfg.zone, None);
    assert!(
        text.contains("daily.11188         User -  1:00:00:00  2:00:00:00  1:00:00:00    2/2 "),
        "{text}"
    );
    // Next iteration, still held: nothing to add.
    let mut p = Profile::from_cluster(&c, midnight + 60);
    place_job(&mut p);
    let out = set.place(0, &c, &mut p, &RmOrder, &no_jobs, &mut ());
    assert!(out[1].is_partial() && out[1].added.is_empty());
    // When the job is gone, the partial instance is repaired.
    let mut p = Profile::from_cluster(&c, midnight + 120);
    let out = set.place(0, &c, &mut p, &RmOrder, &no_jobs, &mut ());
    assert_eq!((out[1].tasks, out[1].added.len()), (4, 2));
    assert_eq!(set.instances()[1].claims.len(), 4);

    // DEPTH 3: Saturday is reserved before the job, which must wait until
    // Sunday instead, and no instance is ever partial.
    let (_, _, set, fit) = run(3);
    assert_eq!(set.instances().len(), 3);
    assert!(set.instances().iter().all(|r| r.tasks() == 4));
    assert_eq!(fmt_time(fit.start), "Sun Aug 20 00:00:00");
}

#[test]
fn two_standing_reservations_side_by_side_on_a_16_processor_host() {
    let cfg = config(
        "SRCFG[a] TASKCOUNT=1 RESOURCES=PROCS:8 USERLIST=john PERIOD=INFINITY\n\
         SRCFG[b] TASKCOUNT=1 RESOURCES=PROCS:8 GROUPLIST=staff PERIOD=INFINITY\n",
    );
    let c = Cluster::build(&[node("smp", 16, 0, &[])], &cfg);
    let mut p = Profile::from_cluster(&c, FRI_NOON);
    let (rs, _) = standing(&cfg, &c, &mut p, FRI_NOON);
    let eight = Resources::procs(8);
    assert_eq!(
        p.claims_at(0, FRI_NOON),
        vec![(0, eight), (1, eight)],
        "side by side, not stacked"
    );
    let t = FRI_NOON;
    let free = |j: &Job| p.free(0, t, t + HOUR, &JobAdmission::new(&rs, j)).procs;
    let mut john = job("1", "john", "batch", 1, HOUR);
    assert_eq!(free(&john), 8);
    let mut staff = job("2", "sue", "batch", 1, HOUR);
    staff.group = "staff".into();
    assert_eq!(free(&staff), 8);
    john.group = "staff".into();
    assert_eq!(free(&john), 16);
    assert_eq!(free(&job("3", "eve", "batch", 1, HOUR)), 0);

    // "4 processors reserved for user John, 10 for group Staff, with the
    // remaining 2 available for use by any job."
    let cfg = config(
        "SRCFG[a] TASKCOUNT=4 RESOURCES=PROCS:1 USERLIST=john PERIOD=INFINITY\n\
         SRCFG[b] TASKCOUNT=10 RESOURCES=PROCS:1 GROUPLIST=staff PERIOD=INFINITY\n",
    );
    let mut p = Profile::from_cluster(&c, FRI_NOON);
    let (rs, _) = standing(&cfg, &c, &mut p, FRI_NOON);
    let free = |j: &Job| p.free(0, t, t + HOUR, &JobAdmission::new(&rs, j)).procs;
    assert_eq!(free(&job("3", "eve", "batch", 1, HOUR)), 2);
    assert_eq!(free(&job("4", "john", "batch", 1, HOUR)), 6);
    assert_eq!(free(&staff), 12);
}

#[test]
fn chooser_hook_orders_candidate_nodes() {
    // A node-choice hook (here: last node first) decides where a floating
    // reservation goes, as NODEALLOCATIONPOLICY will.
    let cfg = config("SRCFG[r] TASKCOUNT=2 PERIOD=INFINITY USERLIST=bob\n");
    let nodes: Vec<Node> = (1..=4).map(|i| node(&format!("n{i}"), 1, 0, &[])).collect();
    let c = Cluster::build(&nodes, &cfg);
    let mut p = Profile::from_cluster(&c, FRI_NOON);
    let mut set = StandingSet::new();
    set.roll(&cfg.standing, &cfg.zone, FRI_NOON);
    let last_first =
        |_: &ChooseCtx, cands: &mut [Candidate]| cands.sort_by_key(|c| std::cmp::Reverse(c.node));
    set.place(0, &c, &mut p, &last_first, &no_jobs, &mut ());
    assert_eq!(
        claims(&set.instances()[0], &c),
        named(&[("n3", 1), ("n4", 1)])
    );
}
