//! Node allocation: the worked examples of the guide's 5.2 (seed
//! `5.2-node-allocation.txt`), one test per NODEALLOCATIONPOLICY on a
//! heterogeneous 16-node cluster, and property tests.

use super::order::priority_value;
use super::{
    allocate, effective_policy, Allocation, Candidate, LocalAllocator, Occupant, TaskRequest,
};
use crate::config::{Affinity, Config, NodeAccessPolicy, NodeAllocationPolicy as P};
use crate::model::time::HOUR;
use crate::model::{Cluster, Job, Node, NodeIdx, Resources, Secs};
use proptest::prelude::*;

fn cfg(text: &str) -> Config {
    let l = Config::parse(text, "maui.cfg");
    assert!(l.is_ok(), "{:?}", l.diagnostics);
    l.config
}

fn node(name: &str, procs: u32, mem: u64) -> Node {
    Node {
        name: name.into(),
        configured: Resources::procs_mem(procs, mem),
        ..Node::default()
    }
}

fn job(id: &str, tasks: u32, task: Resources) -> Job {
    Job {
        id: id.into(),
        user: "u".into(),
        tasks,
        task,
        ..Job::default()
    }
}

/// Candidates for a job on nodes whose free resources are given, the way
/// the scheduling iteration builds them from its profile.
fn candidates(c: &Cluster, job: &Job, free: &[(NodeIdx, Resources)]) -> Vec<Candidate> {
    free.iter()
        .map(|&(i, f)| Candidate::new(i, job.task.times_fits_in(&f), f))
        .filter(|c| c.tasks > 0)
        .filter(|x| (x.node as usize) < c.nodes.len())
        .collect()
}

fn run(
    c: &Cluster,
    conf: &Config,
    j: &Job,
    cands: &[Candidate],
    policy: P,
) -> Option<Vec<(NodeIdx, u32)>> {
    let req = TaskRequest::from_job(j, c, conf);
    allocate(&req, cands, c, policy, true, None).map(|a| a.nodes)
}

// ---- 5.2.1.1 heterogeneous resources ------------------------------------------

#[test]
fn seed_ram_best_fit_minresource() {
    // Nodes A (256 MB) and B (1 GB); job X needs 512 MB, job Y 128 MB.
    // B is listed first so that RM order alone would pick it.
    let conf = Config::default();
    let c = Cluster::build(&[node("B", 1, 1024), node("A", 1, 256)], &conf);
    let (a, b) = (c.index("A").unwrap(), c.index("B").unwrap());
    let x = job("X", 1, Resources::procs_mem(1, 512));
    let y = job("Y", 1, Resources::procs_mem(1, 128));
    let all = [
        (b, c.nodes[b as usize].configured),
        (a, c.nodes[a as usize].configured),
    ];

    // MINRESOURCE: Y gets A, the node with the fewest configured resources
    // that still meets its constraints; X can still run on B.
    let y_at = run(&c, &conf, &y, &candidates(&c, &y, &all), P::MinResource).unwrap();
    assert_eq!(y_at, vec![(a, 1)]);
    let left = [(b, c.nodes[b as usize].configured)];
    assert_eq!(
        run(&c, &conf, &x, &candidates(&c, &x, &left), P::MinResource),
        Some(vec![(b, 1)])
    );
    // X first: only B meets 512 MB.
    assert_eq!(
        run(&c, &conf, &x, &candidates(&c, &x, &all), P::MinResource),
        Some(vec![(b, 1)])
    );

    // FIRSTAVAILABLE puts Y on B, and X is then blocked.
    assert_eq!(
        run(&c, &conf, &y, &candidates(&c, &y, &all), P::FirstAvailable),
        Some(vec![(b, 1)])
    );
    let left = [(a, c.nodes[a as usize].configured)];
    assert_eq!(
        run(&c, &conf, &x, &candidates(&c, &x, &left), P::FirstAvailable),
        None
    );
}

// ---- 5.2.1.2 shared nodes ------------------------------------------------------

#[test]
fn seed_smp_fragmentation() {
    // Two 64-processor nodes with 24 (A) and 12 (B) processors free. Job X
    // asks for 10 processors, job Y for 20 (one task each: a task never
    // spans nodes).
    let conf = Config::default();
    let c = Cluster::build(&[node("A", 64, 0), node("B", 64, 0)], &conf);
    let x = job("X", 1, Resources::procs(10));
    let y = job("Y", 1, Resources::procs(20));
    let free = [(0, Resources::procs(24)), (1, Resources::procs(12))];
    for policy in [P::LastAvailable, P::MinResource] {
        // X goes to B, leaving A's 24 processors for Y.
        let x_at = run(&c, &conf, &x, &candidates(&c, &x, &free), policy).unwrap();
        assert_eq!(x_at, vec![(1, 1)], "{policy}");
        let after = [(0, Resources::procs(24)), (1, Resources::procs(2))];
        assert_eq!(
            run(&c, &conf, &y, &candidates(&c, &y, &after), policy),
            Some(vec![(0, 1)]),
            "{policy}"
        );
    }
    // Starting X on A (RM order) prevents Y from running.
    assert_eq!(
        run(&c, &conf, &x, &candidates(&c, &x, &free), P::FirstAvailable),
        Some(vec![(0, 1)])
    );
    let after = [(0, Resources::procs(14)), (1, Resources::procs(12))];
    assert_eq!(
        run(
            &c,
            &conf,
            &y,
            &candidates(&c, &y, &after),
            P::FirstAvailable
        ),
        None
    );
}

#[test]
fn smp_tasks_pack_into_the_tightest_node() {
    // The same nodes, X as ten one-processor tasks: all ten land on B.
    let conf = Config::default();
    let c = Cluster::build(&[node("A", 64, 0), node("B", 64, 0)], &conf);
    let x = job("X", 10, Resources::procs(1));
    let free = [(0, Resources::procs(24)), (1, Resources::procs(12))];
    assert_eq!(
        run(&c, &conf, &x, &candidates(&c, &x, &free), P::LastAvailable),
        Some(vec![(1, 10)])
    );
}

// ---- 5.2.1.3 reservations: node-time fragmentation -------------------------------

#[test]
fn seed_node_time_lastavailable() {
    // Free space "above job A" lasts until reservation X, 5 hours out; the
    // space "below job B" is bounded 3 hours out. Job C needs 3 hours, job
    // D 5 hours; both are single-processor jobs starting now.
    let conf = Config::default();
    let c = Cluster::build(&[node("aboveA", 1, 0), node("belowB", 1, 0)], &conf);
    let job_c = job("C", 1, Resources::procs(1));
    let job_d = job("D", 1, Resources::procs(1));
    let window_end = |free_until: Secs, walltime: Secs| free_until - walltime;
    let cand = |i: NodeIdx, free_until: Secs, walltime: Secs| Candidate {
        gap: Some(window_end(free_until, walltime)),
        ..Candidate::new(i, 1, Resources::procs(1))
    };
    // C fits both; LASTAVAILABLE picks the smaller gap after C's end: below B.
    let for_c = [cand(0, 5 * HOUR, 3 * HOUR), cand(1, 3 * HOUR, 3 * HOUR)];
    assert_eq!(
        run(&c, &conf, &job_c, &for_c, P::LastAvailable),
        Some(vec![(1, 1)])
    );
    // D (5 hours) then still starts immediately above A.
    let for_d = [cand(0, 5 * HOUR, 5 * HOUR)];
    assert_eq!(
        run(&c, &conf, &job_d, &for_d, P::LastAvailable),
        Some(vec![(0, 1)])
    );
    // Had C been placed above A (RM order), D would have nowhere to go.
    assert_eq!(
        run(&c, &conf, &job_c, &for_c, P::FirstAvailable),
        Some(vec![(0, 1)])
    );
    assert_eq!(run(&c, &conf, &job_d, &[], P::LastAvailable), None);
}

// ---- 5.2.2.4 PRIORITY ------------------------------------------------------------

fn prio_of(c: &Cluster, req: &TaskRequest, cands: &[Candidate]) -> Vec<f64> {
    cands
        .iter()
        .map(|x| priority_value(&c.nodes[x.node as usize], x, req))
        .collect()
}

#[test]
fn seed_priorityf_example_1_fast_big_memory_few_jobs() {
    let conf = cfg("NODEALLOCATIONPOLICY PRIORITY\nNODECFG[DEFAULT] PRIORITYF='SPEED+ .01 * AMEM - 10 * JOBCOUNT'\nNODECFG[n1] SPEED=2.0\nNODECFG[n2] SPEED=1.5\n");
    let c = Cluster::build(
        &[
            node("n0", 4, 4096),
            node("n1", 4, 4096),
            node("n2", 4, 4096),
        ],
        &conf,
    );
    let j = job("j", 1, Resources::procs(1));
    assert_eq!(effective_policy(&j, &conf.params), P::Priority);
    let req = TaskRequest::from_job(&j, &c, &conf);
    let mut cands = vec![
        Candidate::new(0, 4, Resources::procs_mem(4, 1000)),
        Candidate::new(1, 4, Resources::procs_mem(4, 1000)),
        Candidate::new(2, 4, Resources::procs_mem(4, 2000)),
    ];
    cands[1].job_count = 1;
    // 1 + 10 - 0, 2 + 10 - 10, 1.5 + 20 - 0
    assert_eq!(prio_of(&c, &req, &cands), vec![11.0, 2.0, 21.5]);
    assert_eq!(run(&c, &conf, &j, &cands, P::Priority), Some(vec![(2, 1)]));
    // Two single-task slots: n2 then n0.
    for x in &mut cands {
        x.tasks = 1;
    }
    let two = job("two", 2, Resources::procs(1));
    assert_eq!(
        run(&c, &conf, &two, &cands, P::Priority),
        Some(vec![(0, 1), (2, 1)])
    );
}

#[test]
fn seed_priorityf_example_2_batch_nodes_then_idle_desktops() {
    let conf = cfg(
        "NODEALLOCATIONPOLICY PRIORITY\nNODECFG[DEFAULT] PRIORITYF='-LOAD - 5*USAGE'\n\
                    NODECFG[batch1] PRIORITY=1000 PRIORITYF='PRIORITY + APROCS'\n\
                    NODECFG[batch2] PRIORITY=1000 PRIORITYF='PRIORITY + APROCS'\n",
    );
    let mut nodes = vec![
        node("desk1", 2, 0),
        node("desk2", 2, 0),
        node("batch1", 4, 0),
        node("batch2", 4, 0),
    ];
    nodes[0].load = 0.5;
    nodes[0].usage = Some(10.0);
    nodes[1].load = 0.1;
    nodes[1].usage = Some(2.0);
    let c = Cluster::build(&nodes, &conf);
    let j = job("j", 4, Resources::procs(1));
    let req = TaskRequest::from_job(&j, &c, &conf);
    let cands = vec![
        Candidate::new(0, 1, Resources::procs(1)),
        Candidate::new(1, 1, Resources::procs(1)),
        Candidate::new(2, 1, Resources::procs(2)),
        Candidate::new(3, 1, Resources::procs(4)),
    ];
    assert_eq!(
        prio_of(&c, &req, &cands),
        vec![-50.5, -10.1, 1002.0, 1004.0]
    );
    // Three tasks: both batch nodes, then the less loaded, less used desktop.
    let three = job("three", 3, Resources::procs(1));
    assert_eq!(
        run(&c, &conf, &three, &cands, P::Priority),
        Some(vec![(1, 1), (2, 1), (3, 1)])
    );
}

#[test]
fn seed_priorityf_example_3_pack_loaded_nodes() {
    let conf = cfg("NODEALLOCATIONPOLICY PRIORITY\nNODECFG[DEFAULT] PRIORITYF=JOBCOUNT\n");
    let c = Cluster::build(&[node("a", 8, 0), node("b", 8, 0), node("c", 8, 0)], &conf);
    let j = job("j", 2, Resources::procs(1));
    let mut cands: Vec<Candidate> = (0..3)
        .map(|i| Candidate::new(i, 1, Resources::procs(4)))
        .collect();
    cands[1].job_count = 3;
    cands[2].job_count = 1;
    assert_eq!(
        run(&c, &conf, &j, &cands, P::Priority),
        Some(vec![(1, 1), (2, 1)])
    );
}

#[test]
fn seed_resource_preferences_5_pref_minus_load() {
    // qsub -l nodes=4 -W x=PREF(FEATURE:FAST,FEATURE:TAPE), scored with
    // NODECFG[DEFAULT] PRIORITYF='5 * PREF - LOAD'.
    let conf = cfg("NODEALLOCATIONPOLICY PRIORITY\nNODECFG[DEFAULT] PRIORITYF='5 * PREF - LOAD'\n");
    let mut nodes = vec![
        node("n0", 1, 0),
        node("n1", 1, 0),
        node("n2", 1, 0),
        node("n3", 1, 0),
        node("n4", 1, 0),
        node("n5", 1, 0),
    ];
    let feats: [&[&str]; 6] = [&["FAST"], &["FAST", "TAPE"], &[], &["TAPE"], &[], &["FAST"]];
    let loads = [0.2, 1.0, 0.0, 3.0, 0.7, 5.5];
    for (n, (f, l)) in nodes.iter_mut().zip(feats.iter().zip(loads)) {
        n.features = f.iter().map(|s| s.to_string()).collect();
        n.load = l;
    }
    let c = Cluster::build(&nodes, &conf);
    let mut j = job("j", 4, Resources::procs(1));
    j.nodes = Some(4);
    j.pref_features = thin_vec::thin_vec!["FAST".into(), "TAPE".into()];
    let req = TaskRequest::from_job(&j, &c, &conf);
    let cands: Vec<Candidate> = (0..6)
        .map(|i| Candidate::new(i, 1, Resources::procs(1)))
        .collect();
    assert_eq!(
        prio_of(&c, &req, &cands),
        vec![4.8, 9.0, 0.0, 2.0, -0.7, -0.5]
    );
    // n1 (both), n0 (fast, idle), n3 (tape), n2 (no preference but idle);
    // n5 has FAST but a load of 5.5.
    assert_eq!(
        run(&c, &conf, &j, &cands, P::Priority),
        Some(vec![(0, 1), (1, 1), (2, 1), (3, 1)])
    );
    // Preferences are never requirements: without FAST/TAPE nodes the job
    // still runs.
    let plain: Vec<Candidate> = [2, 4]
        .iter()
        .map(|&i| Candidate::new(i, 2, Resources::procs(1)))
        .collect();
    assert_eq!(
        run(&c, &conf, &j, &plain, P::Priority),
        Some(vec![(2, 2), (4, 2)])
    );
}

#[test]
fn unparsable_priorityf_is_a_config_error_with_its_position() {
    let l = Config::parse("NODECFG[DEFAULT] PRIORITYF='SPEED + FEATURE'\n", "maui.cfg");
    let e: Vec<String> = l.errors().map(|d| d.to_string()).collect();
    assert_eq!(e.len(), 1, "{e:?}");
    assert!(e[0].starts_with("maui.cfg:1:"), "{}", e[0]);
    assert!(e[0].contains("unknown term \"FEATURE\""), "{}", e[0]);
}

// ---- one test per policy on a heterogeneous 16-node cluster ----------------------

/// n01-n04: 4 procs 4 GB speed 1.0; n05-n08: 8 procs 16 GB speed 1.5
/// PROCSPEED 2400 "fast"; n09-n12: 16 procs 64 GB speed 2.0 "bigmem";
/// n13-n16: 2 procs 2 GB speed 0.8 "old".
fn hetero(extra: &str) -> (Cluster, Config) {
    let text = format!(
        "NODECFG[n05] SPEED=1.5 PROCSPEED=2400\nNODECFG[n06] SPEED=1.5 PROCSPEED=2400\n\
         NODECFG[n07] SPEED=1.5 PROCSPEED=2400\nNODECFG[n08] SPEED=1.5 PROCSPEED=2400\n\
         NODECFG[n09] SPEED=2.0\nNODECFG[n10] SPEED=2.0\nNODECFG[n11] SPEED=2.0\nNODECFG[n12] SPEED=2.0\n\
         NODECFG[n13] SPEED=0.8\nNODECFG[n14] SPEED=0.8\nNODECFG[n15] SPEED=0.8\nNODECFG[n16] SPEED=0.8\n{extra}"
    );
    let conf = cfg(&text);
    let nodes: Vec<Node> = (1..=16)
        .map(|i| {
            let (procs, mem, feat) = match i {
                1..=4 => (4, 4096, None),
                5..=8 => (8, 16384, Some("fast")),
                9..=12 => (16, 65536, Some("bigmem")),
                _ => (2, 2048, Some("old")),
            };
            Node {
                name: format!("n{i:02}"),
                configured: Resources::procs_mem(procs, mem),
                features: feat.into_iter().map(String::from).collect(),
                load: (i % 5) as f64 * 0.5,
                ..Node::default()
            }
        })
        .collect();
    (Cluster::build(&nodes, &conf), conf)
}

/// Every node entirely free except those listed with what is left.
fn free_except(c: &Cluster, busy: &[(NodeIdx, Resources)]) -> Vec<(NodeIdx, Resources)> {
    c.nodes
        .iter()
        .map(|n| {
            let f = busy
                .iter()
                .find(|b| b.0 == n.index)
                .map_or(n.configured, |b| b.1);
            (n.index, f)
        })
        .collect()
}

#[test]
fn policy_firstavailable_takes_rm_order() {
    let (c, conf) = hetero("");
    let j = job("j", 4, Resources::procs_mem(2, 512));
    let cands = candidates(&c, &j, &free_except(&c, &[]));
    assert_eq!(
        run(&c, &conf, &j, &cands, P::FirstAvailable),
        Some(vec![(0, 2), (1, 2)])
    );
}

#[test]
fn policy_lastavailable_fits_before_the_next_reservation() {
    let (c, conf) = hetero("");
    let j = job("j", 2, Resources::procs(4));
    let mut cands = candidates(&c, &j, &free_except(&c, &[]));
    for x in &mut cands {
        x.gap = match x.node {
            6 => Some(600),
            10 => Some(60),
            3 => Some(7200),
            _ => None,
        };
    }
    // n11 (gap 60 s) takes both tasks: 16 processors free.
    assert_eq!(
        run(&c, &conf, &j, &cands, P::LastAvailable),
        Some(vec![(10, 2)])
    );
    // Without n11, n07 (600 s) holds both; without both, n04 (7200 s) one.
    cands.retain(|x| x.node != 10);
    assert_eq!(
        run(&c, &conf, &j, &cands, P::LastAvailable),
        Some(vec![(6, 2)])
    );
    cands.retain(|x| x.node != 6);
    // n04 (7200 s) takes one task; the other goes to the tightest of the
    // unbounded nodes, n01.
    assert_eq!(
        run(&c, &conf, &j, &cands, P::LastAvailable),
        Some(vec![(0, 1), (3, 1)])
    );
}

#[test]
fn policy_minresource_picks_the_smallest_sufficient_node() {
    let (c, conf) = hetero("");
    let all = free_except(&c, &[]);
    let small = job("small", 1, Resources::procs_mem(2, 1024));
    assert_eq!(
        run(
            &c,
            &conf,
            &small,
            &candidates(&c, &small, &all),
            P::MinResource
        ),
        Some(vec![(15, 1)]),
        "n16: the smallest memory tier (2 GB), walked from its end"
    );
    let mid = job("mid", 1, Resources::procs_mem(2, 3000));
    assert_eq!(
        run(&c, &conf, &mid, &candidates(&c, &mid, &all), P::MinResource),
        Some(vec![(3, 1)]),
        "n04: the 4 GB tier, walked from its end"
    );
    let big = job("big", 1, Resources::procs_mem(4, 20000));
    assert_eq!(
        run(&c, &conf, &big, &candidates(&c, &big, &all), P::MinResource),
        Some(vec![(11, 1)]),
        "n12: 16 and 64 GB nodes share the last tier (8 GB and over); n12 is its last that fits"
    );
}

#[test]
fn policy_cpuload_immediate_only() {
    let (c, conf) = hetero("");
    let j = job("j", 1, Resources::procs(8));
    let cands = candidates(&c, &j, &free_except(&c, &[]));
    // procs - load: n09 16-2.0, n10 16-0.0, n11 16-0.5, n12 16-1.0.
    let req = TaskRequest::from_job(&j, &c, &conf);
    let now = allocate(&req, &cands, &c, P::CpuLoad, true, None).unwrap();
    assert_eq!(now.nodes, vec![(9, 1)]);
    assert_eq!(now.policy, P::CpuLoad);
    // A future reservation uses MINRESOURCE: the 16 GB and 64 GB nodes
    // are one memory tier (8 GB and over), walked from its end: n12.
    let later = allocate(&req, &cands, &c, P::CpuLoad, false, None).unwrap();
    assert_eq!(later.nodes, vec![(11, 1)]);
    assert_eq!(later.policy, P::MinResource);
}

#[test]
fn policy_priority_uses_nodecfg_priorityf() {
    let (c, conf) =
        hetero("NODECFG[DEFAULT] PRIORITYF='CPROCS - 4*LOAD'\nNODECFG[n03] PRIORITYF='100'\n");
    let j = job("j", 3, Resources::procs(2));
    let mut cands = candidates(&c, &j, &free_except(&c, &[]));
    for x in &mut cands {
        x.tasks = x.tasks.min(1);
    }
    // n03 (fixed 100), then n10 (16 - 0) and n11 (16 - 2.0).
    assert_eq!(
        run(&c, &conf, &j, &cands, P::Priority),
        Some(vec![(2, 1), (9, 1), (10, 1)])
    );
}

#[test]
fn policy_contiguous_uses_consecutive_nodes() {
    let (c, conf) = hetero("");
    let j = job("j", 3, Resources::procs(4));
    // n02 is busy: the first block that can hold three 4-processor tasks
    // one per node... n01 alone cannot, so n03, n04, n05.
    let mut free = free_except(&c, &[(1, Resources::ZERO)]);
    free.retain(|f| f.0 != 1);
    let mut cands = candidates(&c, &j, &free);
    for x in &mut cands {
        x.tasks = x.tasks.min(1);
    }
    assert_eq!(
        run(&c, &conf, &j, &cands, P::Contiguous),
        Some(vec![(2, 1), (3, 1), (4, 1)])
    );
    assert_eq!(
        run(&c, &conf, &j, &cands, P::FirstAvailable),
        Some(vec![(0, 1), (2, 1), (3, 1)])
    );
}

#[test]
fn policy_maxbalance_prefers_identical_then_closest_speeds() {
    let (c, conf) = hetero("");
    let j = job("j", 10, Resources::procs(4));
    let cands = candidates(&c, &j, &free_except(&c, &[]));
    // Only the 2.0 group alone holds ten 4-processor tasks.
    assert_eq!(
        run(&c, &conf, &j, &cands, P::MaxBalance),
        Some(vec![(8, 4), (9, 4), (10, 2)])
    );
    // With n11 and n12 busy, no single speed holds 14 tasks; speeds 1.5 and
    // 2.0 (span 0.5) hold 16, while 1.0 and 1.5 (same span) hold only 12.
    let free = free_except(&c, &[(10, Resources::ZERO), (11, Resources::ZERO)]);
    let j = job("j", 14, Resources::procs(4));
    let got = run(&c, &conf, &j, &candidates(&c, &j, &free), P::MaxBalance).unwrap();
    assert!(got.iter().all(|(i, _)| (4..=9).contains(i)), "{got:?}");
    assert_eq!(got.iter().map(|x| x.1).sum::<u32>(), 14);
}

#[test]
fn policy_fastest_by_speed_then_procspeed_then_fixed_shuffle() {
    let (c, conf) = hetero("");
    let j = job("j", 6, Resources::procs(4));
    let cands = candidates(&c, &j, &free_except(&c, &[]));
    // Speed 2.0 (n09-n12) first; equal speeds fall to the fixed shuffle.
    let got = run(&c, &conf, &j, &cands, P::Fastest).unwrap();
    assert!(got.iter().all(|(i, _)| (8..=11).contains(i)), "{got:?}");
    assert_eq!(got.iter().map(|x| x.1).collect::<Vec<_>>().len(), 2);
    // Equal speeds: PROCSPEED decides.
    let conf =
        cfg("NODECFG[p0] PROCSPEED=1000\nNODECFG[p1] PROCSPEED=3000\nNODECFG[p2] PROCSPEED=2000\n");
    let c3 = Cluster::build(
        &[node("p0", 1, 0), node("p1", 1, 0), node("p2", 1, 0)],
        &conf,
    );
    let cands3: Vec<Candidate> = (0..3)
        .map(|i| Candidate::new(i, 1, Resources::procs(1)))
        .collect();
    let two = job("two", 2, Resources::procs(1));
    assert_eq!(
        run(&c3, &conf, &two, &cands3, P::Fastest),
        Some(vec![(1, 1), (2, 1)])
    );
    // Equal speeds and no PROCSPEED: a fixed pseudo-random order, the same
    // whatever the order of the candidates.
    let plain = Config::default();
    let c2 = Cluster::build(
        &(0..16)
            .map(|i| node(&format!("h{i:02}"), 1, 0))
            .collect::<Vec<_>>(),
        &plain,
    );
    let j = job("j", 4, Resources::procs(1));
    let mut cands: Vec<Candidate> = (0..16)
        .map(|i| Candidate::new(i, 1, Resources::procs(1)))
        .collect();
    let a = run(&c2, &plain, &j, &cands, P::Fastest).unwrap();
    cands.reverse();
    assert_eq!(run(&c2, &plain, &j, &cands, P::Fastest).unwrap(), a);
    assert_ne!(
        a,
        vec![(0, 1), (1, 1), (2, 1), (3, 1)],
        "not simply RM order"
    );
}

struct HighestFirst;
impl LocalAllocator for HighestFirst {
    fn allocate(
        &self,
        req: &TaskRequest,
        candidates: &[Candidate],
        _: &Cluster,
        _: bool,
    ) -> Option<Vec<(NodeIdx, u32)>> {
        let mut left = req.tasks;
        let mut out = Vec::new();
        for c in candidates.iter().rev() {
            let t = c.tasks.min(left);
            out.push((c.node, t));
            left -= t;
            if left == 0 {
                return Some(out);
            }
        }
        None
    }
}

struct Declines;
impl LocalAllocator for Declines {
    fn allocate(
        &self,
        _: &TaskRequest,
        _: &[Candidate],
        _: &Cluster,
        _: bool,
    ) -> Option<Vec<(NodeIdx, u32)>> {
        None
    }
}

struct Cheats;
impl LocalAllocator for Cheats {
    fn allocate(
        &self,
        req: &TaskRequest,
        _: &[Candidate],
        _: &Cluster,
        _: bool,
    ) -> Option<Vec<(NodeIdx, u32)>> {
        Some(vec![(0, req.tasks * 100)])
    }
}

#[test]
fn policy_local_calls_the_site_allocator_and_falls_back() {
    let (c, conf) = hetero("");
    let j = job("j", 3, Resources::procs(2));
    let req = TaskRequest::from_job(&j, &c, &conf);
    let cands = candidates(&c, &j, &free_except(&c, &[]));
    let got: Allocation = allocate(&req, &cands, &c, P::Local, true, Some(&HighestFirst)).unwrap();
    assert_eq!(got.nodes, vec![(13, 1), (14, 1), (15, 1)]);
    assert_eq!(got.policy, P::Local);
    let last = allocate(&req, &cands, &c, P::LastAvailable, true, None).unwrap();
    for l in [Some(&Declines as &dyn LocalAllocator), Some(&Cheats), None] {
        let got = allocate(&req, &cands, &c, P::Local, true, l).unwrap();
        assert_eq!(got.policy, P::LastAvailable);
        assert_eq!(got.nodes, last.nodes);
    }
}

#[test]
fn per_job_policy_override() {
    let (_, conf) = hetero("NODEALLOCATIONPOLICY MINRESOURCE\n");
    let mut j = job("j", 1, Resources::procs(1));
    assert_eq!(effective_policy(&j, &conf.params), P::MinResource);
    j.node_allocation_policy = Some(P::Fastest);
    assert_eq!(effective_policy(&j, &conf.params), P::Fastest);
}

#[test]
fn reservation_affinity_orders_nodes() {
    let (c, conf) = hetero("");
    let j = job("j", 1, Resources::procs(1));
    let mut cands = candidates(&c, &j, &free_except(&c, &[]));
    cands[0].affinity = Some(Affinity::Negative);
    cands[5].affinity = Some(Affinity::Positive);
    cands[1].affinity = Some(Affinity::Neutral);
    // Positive first for every policy but PRIORITY.
    for p in [
        P::FirstAvailable,
        P::LastAvailable,
        P::MinResource,
        P::Fastest,
    ] {
        assert_eq!(run(&c, &conf, &j, &cands, p), Some(vec![(5, 1)]), "{p}");
    }
    // Negative only as a last resort.
    let only = [cands[0].clone(), cands[1].clone()];
    assert_eq!(
        run(&c, &conf, &j, &only, P::FirstAvailable),
        Some(vec![(1, 1)])
    );
    // PRIORITY sees it through RESAFFINITY.
    let (c, conf) = hetero("NODECFG[DEFAULT] PRIORITYF='RESAFFINITY'\n");
    assert_eq!(run(&c, &conf, &j, &only, P::Priority), Some(vec![(1, 1)]));
}

#[test]
fn node_access_policies_cap_tasks() {
    // NODEACCESSPOLICY SINGLEUSER, with n02 overridden to SINGLETASK.
    let conf = cfg("NODEACCESSPOLICY SINGLEUSER\nNODECFG[n02] ACCESS=SINGLETASK\n");
    let c = Cluster::build(
        &[node("n01", 4, 0), node("n02", 4, 0), node("n03", 4, 0)],
        &conf,
    );
    assert_eq!(c.nodes[1].access, NodeAccessPolicy::SingleTask);
    let mut j = job("j", 6, Resources::procs(1));
    j.user = "amy".into();
    let mut cands: Vec<Candidate> = (0..3)
        .map(|i| Candidate::new(i, 4, Resources::procs(4)))
        .collect();
    cands[0].occupants.push(Occupant {
        job: "o".into(),
        user: "bob".into(),
        access: None,
    });
    // n01 has bob's job (SINGLEUSER), n02 takes a single task.
    assert_eq!(
        run(&c, &conf, &j, &cands, P::FirstAvailable),
        None,
        "only 1 + 4 tasks are allowed"
    );
    j.tasks = 5;
    assert_eq!(
        run(&c, &conf, &j, &cands, P::FirstAvailable),
        Some(vec![(1, 1), (2, 4)])
    );
}

// ---- properties --------------------------------------------------------------------

#[derive(Debug, Clone)]
struct World {
    procs: Vec<u32>,
    feats: Vec<u8>,
    access: Vec<u8>,
    cands: Vec<(u32, u32, u8, u8, Option<i64>, u8)>,
    tasks: u32,
    task_procs: u32,
    tpn: Option<u32>,
    nodes: Option<u32>,
    want: u8,
    hosts: Option<Vec<u32>>,
    excl: Vec<u32>,
    exact: u8,
    policy: usize,
}

const POLICIES: [P; 9] = [
    P::FirstAvailable,
    P::LastAvailable,
    P::MinResource,
    P::CpuLoad,
    P::Priority,
    P::Contiguous,
    P::MaxBalance,
    P::Fastest,
    P::Local,
];

fn world() -> impl Strategy<Value = World> {
    (2usize..10)
        .prop_flat_map(|n| {
            (
                prop::collection::vec(1u32..17, n),
                prop::collection::vec(0u8..8, n),
                prop::collection::vec(0u8..6, n),
                prop::collection::vec(
                    (
                        0u32..n as u32,
                        0u32..9,
                        0u8..4,
                        0u8..4,
                        prop::option::of(0i64..10_000),
                        0u8..4,
                    ),
                    0..3 * n,
                ),
                (
                    1u32..12,
                    1u32..4,
                    prop::option::of(1u32..5),
                    prop::option::of(1u32..6),
                    (0u8..24).prop_map(|w| if w < 8 { w } else { 0 }),
                ),
                (
                    prop::option::weighted(0.25, prop::collection::vec(0u32..n as u32, 0..n)),
                    prop::collection::vec(0u32..n as u32, 0..2),
                    0u8..4,
                    0usize..9,
                ),
            )
        })
        .prop_map(
            |(procs, feats, access, cands, r, (hosts, excl, exact, policy))| World {
                procs,
                feats,
                access,
                cands,
                tasks: r.0,
                task_procs: r.1,
                tpn: r.2,
                nodes: r.3,
                want: r.4,
                hosts,
                excl,
                exact,
                policy,
            },
        )
}

const FEATS: [&str; 3] = ["a", "b", "c"];

fn build(w: &World) -> (Cluster, Config, Job, Vec<Candidate>) {
    let mut text = String::from("NODECFG[DEFAULT] PRIORITYF='APROCS - LOAD + 2*PREF'\n");
    if w.exact & 1 != 0 {
        text.push_str("JOBNODEMATCHPOLICY EXACTNODE");
        if w.exact & 2 != 0 {
            text.push_str(" EXACTPROC");
        }
        text.push('\n');
    } else if w.exact & 2 != 0 {
        text.push_str("JOBNODEMATCHPOLICY EXACTPROC\n");
    }
    let access = ["SHARED", "SINGLEJOB", "SINGLETASK", "SINGLEUSER"];
    for (i, a) in w.access.iter().enumerate() {
        if let Some(a) = access.get(*a as usize) {
            text.push_str(&format!("NODECFG[n{i}] ACCESS={a}\n"));
        }
    }
    let conf = cfg(&text);
    let nodes: Vec<Node> = w
        .procs
        .iter()
        .enumerate()
        .map(|(i, p)| Node {
            name: format!("n{i}"),
            configured: Resources::procs(*p),
            features: FEATS
                .iter()
                .enumerate()
                .filter(|(b, _)| w.feats[i] & (1 << b) != 0)
                .map(|(_, f)| f.to_string())
                .collect(),
            speed: Some(1.0 + (p % 3) as f64),
            load: (i % 4) as f64,
            ..Node::default()
        })
        .collect();
    let c = Cluster::build(&nodes, &conf);
    let mut j = job("j", w.tasks, Resources::procs(w.task_procs));
    j.user = "amy".into();
    j.tasks_per_node = w.tpn;
    j.nodes = w.nodes;
    j.features = FEATS
        .iter()
        .enumerate()
        .filter(|(b, _)| w.want & (1 << b) != 0)
        .map(|(_, f)| f.to_string())
        .collect();
    j.pref_features = thin_vec::thin_vec!["c".into()];
    j.hostlist = w.hosts.iter().flatten().map(|h| format!("n{h}")).collect();
    j.exclude_hosts = w.excl.iter().map(|h| format!("n{h}")).collect();
    let cands = w
        .cands
        .iter()
        .map(|&(n, t, occ, aff, gap, jc)| Candidate {
            affinity: [
                None,
                Some(Affinity::Positive),
                Some(Affinity::Negative),
                Some(Affinity::Neutral),
            ][aff as usize],
            gap,
            job_count: jc as u32,
            occupants: match occ {
                1 => vec![Occupant {
                    job: "x".into(),
                    user: "amy".into(),
                    access: None,
                }],
                2 => vec![Occupant {
                    job: "y".into(),
                    user: "bob".into(),
                    access: None,
                }],
                3 => vec![Occupant {
                    job: "z".into(),
                    user: "amy".into(),
                    access: Some(NodeAccessPolicy::SingleUser),
                }],
                _ => vec![],
            },
            ..Candidate::new(n, t, Resources::procs(t * w.task_procs))
        })
        .collect();
    (c, conf, j, cands)
}

/// An independent reading of the rules, to check allocations against.
fn check_allocation(
    c: &Cluster,
    conf: &Config,
    j: &Job,
    cands: &[Candidate],
    got: &[(NodeIdx, u32)],
) {
    let m = conf.params.job_node_match_policy;
    assert_eq!(
        got.iter().map(|x| x.1 as u64).sum::<u64>(),
        j.tasks as u64,
        "task count"
    );
    let mut seen = std::collections::BTreeSet::new();
    for &(idx, t) in got {
        assert!(t > 0);
        assert!(seen.insert(idx), "node used twice");
        let n = &c.nodes[idx as usize];
        let cand = cands
            .iter()
            .find(|x| x.node == idx)
            .expect("not a candidate");
        assert!(t <= cand.tasks, "more tasks than fit");
        for f in &j.features {
            assert!(n.features.contains(f), "missing feature {f}");
        }
        if !j.hostlist.is_empty() {
            assert!(j.hostlist.contains(&n.name), "outside host list");
        }
        assert!(!j.exclude_hosts.contains(&n.name), "excluded host");
        // Node access, from the table in 5.3.
        let mine = n.access;
        for o in &cand.occupants {
            let theirs = o.access.unwrap_or(n.access);
            for p in [mine, theirs] {
                assert!(
                    !matches!(
                        p,
                        NodeAccessPolicy::SingleJob | NodeAccessPolicy::SingleTask
                    ),
                    "shared a dedicated node"
                );
                if p == NodeAccessPolicy::SingleUser {
                    assert_eq!(o.user, j.user, "shared a single-user node");
                }
            }
        }
        if mine == NodeAccessPolicy::SingleTask {
            assert_eq!(t, 1, "SINGLETASK");
        }
        if let (true, Some(x)) = (m.exact_proc, j.tasks_per_node) {
            assert_eq!(n.configured.procs, x * j.task.procs, "EXACTPROC");
        }
        if let (true, Some(x)) = (m.exact_node, j.tasks_per_node) {
            assert!(t == x || t == j.tasks % x, "exact tasks per node");
        }
    }
    if let (false, Some(x)) = (m.exact_node, j.tasks_per_node) {
        let x = x.clamp(1, j.tasks.max(1));
        let odd = got.iter().filter(|g| g.1 % x != 0).count();
        assert!(odd <= 1, "blocks of ppn tasks per node");
    }
    if let (true, Some(n)) = (m.exact_node, j.nodes) {
        assert_eq!(got.len(), n as usize, "EXACTNODE node count");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn allocations_respect_every_requirement(w in world()) {
        let (c, conf, j, cands) = build(&w);
        let req = TaskRequest::from_job(&j, &c, &conf);
        let policy = POLICIES[w.policy];
        let first = allocate(&req, &cands, &c, policy, w.tasks % 2 == 0, None);
        if let Some(a) = &first {
            // Duplicates: the first entry of a node counts.
            let mut uniq: Vec<Candidate> = Vec::new();
            for x in &cands {
                if !uniq.iter().any(|u| u.node == x.node) {
                    uniq.push(x.clone());
                }
            }
            check_allocation(&c, &conf, &j, &uniq, &a.nodes);
            prop_assert!(a.nodes.windows(2).all(|p| p[0].0 < p[1].0), "sorted by node");
        }
        // Same input, same answer.
        prop_assert_eq!(&allocate(&req, &cands, &c, policy, w.tasks % 2 == 0, None), &first);
    }

    #[test]
    fn candidate_order_does_not_matter(w in world(), seed in 0u64..1000) {
        let (c, conf, j, mut cands) = build(&w);
        // Without duplicate nodes the order of candidates is irrelevant.
        let mut seen = std::collections::BTreeSet::new();
        cands.retain(|x| seen.insert(x.node));
        let req = TaskRequest::from_job(&j, &c, &conf);
        let policy = POLICIES[w.policy];
        let a = allocate(&req, &cands, &c, policy, true, None);
        let len = cands.len().max(1);
        cands.rotate_left((seed as usize) % len);
        cands.reverse();
        prop_assert_eq!(allocate(&req, &cands, &c, policy, true, None), a);
    }

    #[test]
    fn firstavailable_finds_room_when_there_is_some(w in world()) {
        // Plain requests (no shape): enough room means an allocation.
        let mut w = w;
        w.tpn = None;
        w.nodes = None;
        w.exact = 0;
        let (c, conf, j, cands) = build(&w);
        let req = TaskRequest::from_job(&j, &c, &conf);
        let mut room = 0u64;
        let mut seen = std::collections::BTreeSet::new();
        for x in &cands {
            if !seen.insert(x.node) {
                continue;
            }
            let n = &c.nodes[x.node as usize];
            if req.check_node(n).is_err() {
                continue;
            }
            if let Ok(l) = crate::allocation::access_limit(n, &req.access_request(), &x.occupants) {
                room += x.tasks.min(l) as u64;
            }
        }
        let got = allocate(&req, &cands, &c, P::FirstAvailable, true, None);
        prop_assert_eq!(got.is_some(), room >= j.tasks as u64);
    }
}
