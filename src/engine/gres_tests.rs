//! Generic resources in the iteration: the guide's NODECFG GRES, requests
//! per task, per node and per job, typed GPUs, the RM's counts over
//! maui.cfg's, requests that can never run, and a property: no node's
//! generic resources are ever over-committed, in the plan or in any
//! reservation.

use super::tests::{cfg, running};
use super::*;
use crate::model::{GresList, Node, Resources};
use proptest::prelude::*;
use std::collections::BTreeMap;

const H: i64 = 3600;

fn node(name: &str, procs: u32, gres: &str) -> Node {
    Node {
        name: name.into(),
        configured: Resources::procs_mem(procs, 1000 * procs as u64),
        gres: GresList::parse(gres).unwrap(),
        ..Node::default()
    }
}

fn job(id: &str, tasks: u32, per_task: &str) -> Job {
    Job {
        id: id.into(),
        user: "u".into(),
        group: "g".into(),
        tasks,
        task: Resources::procs(1),
        gres_per_task: GresList::parse(per_task).unwrap(),
        walltime: Some(H),
        submit_time: id.len() as i64,
        ..Job::default()
    }
}

fn plan(c: &str, nodes: Vec<Node>, jobs: Vec<Job>) -> Arc<Plan> {
    let mut s = Snapshot {
        now: None,
        nodes,
        jobs,
        ..Snapshot::default()
    };
    s.normalize().unwrap();
    Engine::new(cfg(c)).iterate(&s, 0)
}

fn starts(p: &Plan) -> Vec<(String, Vec<(String, u32)>)> {
    p.starts
        .iter()
        .map(|s| {
            (
                s.job.clone(),
                s.allocation
                    .iter()
                    .map(|a| (a.node.clone(), a.tasks))
                    .collect(),
            )
        })
        .collect()
}

fn reason(p: &Plan, id: &str) -> String {
    p.job(id)
        .and_then(|j| j.reason.as_ref())
        .map(|r| format!("{r}"))
        .unwrap_or_default()
}

/// Issue scenario 1: four one-GPU jobs fill a four-GPU node and a fifth
/// waits for Resources while the node's processors are free.
#[test]
fn one_gpu_jobs_fill_a_four_gpu_node_and_the_fifth_waits() {
    let jobs: Vec<Job> = (1..=5).map(|k| job(&format!("J{k}"), 1, "gpu:1")).collect();
    let p = plan("", vec![node("g1", 32, "gpu:4")], jobs.clone());
    assert_eq!(p.starts.len(), 4, "{:?}", starts(&p));
    // Next poll: the four run, the fifth waits for a GPU.
    let mut jobs: Vec<Job> = jobs[..4]
        .iter()
        .map(|j| running(j.clone(), 0, &[("g1", 1)]))
        .collect();
    jobs.push(job("J5", 1, "gpu:1"));
    let p = plan("", vec![node("g1", 32, "gpu:4")], jobs);
    assert!(p.starts.is_empty());
    assert_eq!(reason(&p, "J5"), "Resources");
    assert_eq!(p.job("J5").unwrap().estimated_start, Some(H));
}

/// The guide's example: NODECFG[titan001] GRES=tape:4; a job asking
/// two tape drives per task for three tasks can hold two tasks there.
/// Moab's MAXGRES per user: of three one-GPU jobs two start and the
/// third stays idle with a reason naming MAXGRES, the resource and the user.
#[test]
fn maxgres_holds_a_users_third_gpu_job() {
    let jobs: Vec<Job> = (1..=3).map(|k| job(&format!("J{k}"), 1, "gpu:1")).collect();
    let c = "USERCFG[u] MAXGRES[gpu]=2\n";
    let p = plan(c, vec![node("g1", 32, "gpu:4")], jobs.clone());
    assert_eq!(p.starts.len(), 2, "{:?}", starts(&p));
    assert_eq!(reason(&p, "J3"), "Policy MAXGRES[gpu] user u");
    // Next poll, two running: still held, by what they hold.
    let mut jobs: Vec<Job> = jobs[..2]
        .iter()
        .map(|j| running(j.clone(), 0, &[("g1", 1)]))
        .collect();
    jobs.push(job("J3", 1, "gpu:1"));
    let p = plan(c, vec![node("g1", 32, "gpu:4")], jobs);
    assert!(p.starts.is_empty(), "{:?}", starts(&p));
    assert_eq!(reason(&p, "J3"), "Policy MAXGRES[gpu] user u");
}

#[test]
fn nodecfg_gres_from_the_guide_is_consumed_per_task() {
    let c = "NODECFG[titan001] GRES=tape:4\nNODECFG[login32] GRES=matlab:2,prime:4\nNODECFG[login32] GRES=matlab:2\n";
    let nodes = vec![node("titan001", 8, ""), node("login32", 8, "")];
    let p = plan(
        c,
        nodes.clone(),
        vec![
            job("T", 2, "tape:2"),
            job("M", 1, "matlab:2,prime:4"),
            job("T2", 1, "tape:1"),
        ],
    );
    assert_eq!(
        starts(&p),
        vec![
            ("M".to_string(), vec![("login32".to_string(), 1)]),
            ("T".to_string(), vec![("titan001".to_string(), 2)]),
        ]
    );
    assert_eq!(
        reason(&p, "T2"),
        "Priority",
        "the drives went to jobs before it"
    );
    let e = Engine::new(cfg(c));
    let s = Snapshot {
        now: None,
        nodes,
        jobs: vec![],
        ..Snapshot::default()
    };
    let c = Cluster::build(&s.nodes, e.config());
    assert_eq!(c.gres_names, vec!["matlab", "prime", "tape"]);
    assert_eq!(
        c.nodes[1].gres.to_string(),
        "matlab:2,prime:4",
        "a repeated GRES keeps prime"
    );
}

/// A CPU-only job does not need a GPU node, and a GPU job never lands on a
/// node without GPUs, whatever the order.
#[test]
fn gpu_jobs_go_only_where_gpus_are() {
    let nodes = vec![node("c1", 8, ""), node("g1", 8, "gpu:2")];
    let p = plan("", nodes, vec![job("G", 4, "gpu:1")]);
    assert!(starts(&p).is_empty());
    // Four one-GPU tasks need four GPUs: two fit on g1, none on c1.
    let r = reason(&p, "G");
    assert!(
        r.contains("4 tasks of gpu:1 each") && r.contains("hold 2"),
        "{r}"
    );
    let p = plan(
        "",
        vec![node("c1", 8, ""), node("g1", 8, "gpu:2")],
        vec![job("G", 2, "gpu:1"), job("C", 8, "")],
    );
    let s = starts(&p);
    assert!(s.contains(&("G".into(), vec![("g1".into(), 2)])), "{s:?}");
    assert!(s.contains(&("C".into(), vec![("c1".into(), 8)])), "{s:?}");
}

/// Typed requests land only on nodes of that type; untyped ones on any.
#[test]
fn typed_gpus_match_their_type_only() {
    let nodes = vec![node("v1", 8, "gpu:v100:2"), node("a1", 8, "gpu:a100:2")];
    let p = plan(
        "",
        nodes,
        vec![
            job("A", 1, "gpu:a100:1"),
            job("A2", 1, "gpu:a100:1"),
            job("A3", 1, "gpu:a100:1"),
            job("ANY", 1, "gpu:1"),
        ],
    );
    let s = starts(&p);
    assert!(s.contains(&("A".into(), vec![("a1".into(), 1)])), "{s:?}");
    assert!(s.contains(&("A2".into(), vec![("a1".into(), 1)])), "{s:?}");
    assert_eq!(reason(&p, "A3"), "Priority");
    assert!(s.contains(&("ANY".into(), vec![("v1".into(), 1)])), "{s:?}");
}

/// Per-node requests with tasks per node: divided over the tasks where
/// they divide, else the node's tasks go together; the start names the
/// RM's task counts.
#[test]
fn per_node_requests_are_per_task_or_bundled() {
    let mut j = job("PN", 8, "");
    j.gres_per_node = GresList::parse("gpu:2").unwrap();
    j.tasks_per_node = Some(4);
    j.nodes = Some(2);
    let nodes = vec![
        node("g1", 4, "gpu:2"),
        node("g2", 4, "gpu:2"),
        node("g3", 4, "gpu:1"),
    ];
    let p = plan("", nodes.clone(), vec![j.clone()]);
    let s = starts(&p);
    assert_eq!(s.len(), 1);
    let mut on = s[0].1.clone();
    on.sort();
    assert_eq!(on, vec![("g1".into(), 4), ("g2".into(), 4)]);
    // Three GPUs per node of four tasks do not divide: bundled, still
    // four tasks on each node, and g3 (one GPU) never used.
    j.gres_per_node = GresList::parse("gpu:2,tape:1").unwrap();
    let nodes3 = vec![
        node("t1", 4, "gpu:2,tape:1"),
        node("t2", 4, "gpu:2,tape:1"),
        node("t3", 4, "gpu:2"),
    ];
    let p = plan("", nodes3, vec![j]);
    let mut on = starts(&p)[0].1.clone();
    on.sort();
    assert_eq!(on, vec![("t1".into(), 4), ("t2".into(), 4)]);
}

/// A running job holds its per-node generic resources on each of its
/// nodes however many tasks it has there.
#[test]
fn a_running_jobs_per_node_request_is_held_on_each_node() {
    let mut r = job("R", 6, "");
    r.gres_per_node = GresList::parse("gpu:2").unwrap();
    let r = running(r, 0, &[("g1", 4), ("g2", 2)]);
    let nodes = vec![node("g1", 8, "gpu:4"), node("g2", 8, "gpu:4")];
    let jobs = vec![
        r,
        job("A", 2, "gpu:1"),
        job("B", 2, "gpu:1"),
        job("C", 1, "gpu:1"),
    ];
    let p = plan("", nodes, jobs);
    // Two GPUs left on each node: A and B start, C waits.
    assert_eq!(p.starts.len(), 2, "{:?}", starts(&p));
    assert_eq!(reason(&p, "C"), "Priority");
}

/// Per-job requests: spread per task where they divide, all on one node
/// where the job has one; otherwise refused with the reason.
#[test]
fn per_job_requests() {
    let nodes = vec![node("g1", 8, "gpu:4"), node("g2", 8, "gpu:4")];
    let mut even = job("EVEN", 4, "");
    even.gres_per_job = GresList::parse("gpu:4").unwrap();
    let mut one = job("ONE", 2, "");
    one.gres_per_job = GresList::parse("gpu:3").unwrap();
    let mut odd = job("ODD", 2, "");
    odd.gres_per_job = GresList::parse("gpu:3").unwrap();
    odd.nodes = Some(2);
    let p = plan("", nodes, vec![even, one, odd]);
    assert!(p.starts.iter().any(|s| s.job == "EVEN"));
    let one = p
        .starts
        .iter()
        .find(|s| s.job == "ONE")
        .expect("ONE starts");
    assert_eq!(one.allocation.len(), 1);
    assert_eq!(one.allocation[0].tasks, 2, "the RM's task count");
    let r = reason(&p, "ODD");
    assert!(
        r.starts_with("NoFit") && r.contains("per node or per task"),
        "{r}"
    );
}

/// Bad requests: a name no node has, and more than any node has.
#[test]
fn requests_that_can_never_run_say_why() {
    let nodes = vec![node("g1", 8, "gpu:4"), node("c1", 8, "")];
    let p = plan(
        "",
        nodes,
        vec![
            job("X", 1, "fpga:1"),
            job("BIG", 1, "gpu:5"),
            job("OK", 1, "gpu:4"),
        ],
    );
    let r = reason(&p, "X");
    assert!(r.contains("no node has generic resource fpga"), "{r}");
    let r = reason(&p, "BIG");
    assert!(r.contains("gpu:5") && r.contains("at most gpu:4"), "{r}");
    assert_eq!(p.starts.len(), 1);
}

/// The RM's count of a name wins over NODECFG GRES, and the node
/// remembers both.
#[test]
fn the_rms_count_wins_over_maui_cfg() {
    let c = cfg("NODECFG[g1] GRES=gpu:8,tape:1\n");
    let nodes = vec![node("g1", 8, "gpu:2")];
    let cl = Cluster::build(&nodes, &c);
    let n = &cl.nodes[0];
    assert_eq!(n.gres.to_string(), "gpu:2,tape:1");
    assert_eq!(n.gres_overridden, vec![("gpu".to_string(), 8, 2)]);
    let p = plan(
        "NODECFG[g1] GRES=gpu:8,tape:1\n",
        nodes,
        (1..=3).map(|k| job(&format!("J{k}"), 1, "gpu:1")).collect(),
    );
    assert_eq!(p.starts.len(), 2);
}

/// GPU usage per node over time from the running jobs, the starts and the
/// job reservations; asserts no count is ever above the node's.
fn assert_gres_never_overcommitted(s: &Snapshot, p: &Plan, c: &Config) {
    let cluster = Cluster::build(&s.nodes, c);
    let mut events: BTreeMap<(String, i64), Vec<i64>> = BTreeMap::new();
    let mut add = |node: &str, start: i64, end: i64, g: &crate::model::GresCounts| {
        let e = events
            .entry((node.to_string(), start))
            .or_insert(vec![0; crate::model::MAX_GRES]);
        for (x, c) in e.iter_mut().zip(g.0) {
            *x += c as i64;
        }
        let e = events
            .entry((node.to_string(), end))
            .or_insert(vec![0; crate::model::MAX_GRES]);
        for (x, c) in e.iter_mut().zip(g.0) {
            *x -= c as i64;
        }
    };
    let per = |j: &Job, tasks: u32| {
        let t = cluster.gres_counts(&j.gres_per_task).unwrap();
        t.map(&crate::model::GresCounts::ZERO, |a, _| a * tasks)
    };
    for j in &s.jobs {
        if j.state == JobState::Running {
            for a in &j.allocation {
                add(&a.node, 0, j.walltime.unwrap(), &per(j, a.tasks));
            }
        }
    }
    for st in &p.starts {
        let j = s.jobs.iter().find(|j| j.id == st.job).unwrap();
        for a in &st.allocation {
            add(
                &a.node,
                p.now,
                p.now + build::walltime(c, j),
                &per(j, a.tasks),
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
            add(&a.node, r.start, r.end, &per(j, a.tasks));
        }
    }
    let mut level: BTreeMap<String, Vec<i64>> = BTreeMap::new();
    for ((node, t), d) in events {
        let l = level
            .entry(node.clone())
            .or_insert(vec![0; crate::model::MAX_GRES]);
        let n = &cluster.nodes[cluster.index(&node).unwrap() as usize];
        for k in 0..crate::model::MAX_GRES {
            l[k] += d[k];
            assert!(
                l[k] <= n.configured.gres.get(k) as i64,
                "node {node} over-committed in {} at {t}: {} > {}",
                cluster.gres_names[k],
                l[k],
                n.configured.gres.get(k)
            );
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, .. ProptestConfig::default() })]

    /// Random GPU and CPU nodes (typed and untyped), random GPU and CPU
    /// jobs over several iterations with completions: no node's generic
    /// resources are ever over-committed, in the plan or in a reservation,
    /// and every job the cluster can hold eventually starts.
    #[test]
    fn generic_resources_are_never_overcommitted(
        node_specs in proptest::collection::vec((1u32..9, 0u32..5, 0u8..3), 1..5),
        job_specs in proptest::collection::vec((1u32..4, 0u32..3, 0u8..3, 1i64..5), 1..16),
        depth in 1u32..4,
        policy in 0usize..3,
    ) {
        let kinds = ["gpu", "gpu:a100", "gpu:v100"];
        let nodes: Vec<Node> = node_specs.iter().enumerate().map(|(i, &(p, g, t))| {
            let gres = if g == 0 { String::new() } else { format!("{}:{g}", kinds[t as usize]) };
            node(&format!("n{i}"), p, &gres)
        }).collect();
        let policies = ["FIRSTAVAILABLE", "MINRESOURCE", "CPULOAD"];
        let c = cfg(&format!("RESERVATIONDEPTH {depth}\nNODEALLOCATIONPOLICY {}\n", policies[policy]));
        let mut pending: Vec<Job> = job_specs.iter().enumerate().map(|(k, &(tasks, g, t, w))| {
            let req = if g == 0 { String::new() } else { format!("{}:{g}", kinds[t as usize]) };
            let mut j = job(&format!("j{k:02}"), tasks, &req);
            j.walltime = Some(w * 600);
            j.submit_time = k as i64;
            j
        }).collect();
        let mut run: Vec<Job> = Vec::new();
        let mut e = Engine::new(c.clone());
        let mut now = 0i64;
        for _ in 0..60 {
            run.retain(|j| j.start_time.unwrap() + j.walltime.unwrap() > now);
            let mut jobs: Vec<Job> = run.iter().cloned().map(|mut j| {
                // Running windows relative to `now` for the checker.
                j.walltime = Some(j.start_time.unwrap() + j.walltime.unwrap() - now);
                j.start_time = Some(now);
                j
            }).collect();
            jobs.extend(pending.iter().cloned());
            let mut s = Snapshot { now: None, nodes: nodes.clone(), jobs, ..Snapshot::default() };
            s.normalize().unwrap();
            let p = e.iterate(&s, now);
            let mut rel = p.as_ref().clone();
            rel.now = 0;
            for r in &mut rel.reservations { r.start -= now; r.end -= now; }
            assert_gres_never_overcommitted(&s, &rel, &c);
            for st in &p.starts {
                let k = pending.iter().position(|j| j.id == st.job).unwrap();
                let mut j = pending.remove(k);
                j.state = JobState::Running;
                j.start_time = Some(now);
                j.allocation = st.allocation.clone();
                run.push(j);
            }
            pending.retain(|j| !matches!(p.job(&j.id).and_then(|x| x.reason.as_ref()), Some(Reason::NoFit { .. })));
            if pending.is_empty() { break; }
            now = run.iter().map(|j| j.start_time.unwrap() + j.walltime.unwrap()).min().unwrap_or(now + 600);
        }
        prop_assert!(pending.is_empty(), "never started: {:?}", pending.iter().map(|j| &j.id).collect::<Vec<_>>());
    }
}

/// Issue scenario 2: under MINRESOURCE a CPU-only job lands on a node
/// without GPUs while one is free, even a larger one; PRIORITYF's CGRES
/// and AGRES see a node's devices (a typed GPU counted once).
#[test]
fn cpu_jobs_keep_off_gpu_nodes_under_minresource() {
    let nodes = vec![node("g1", 8, "gpu:a100:4"), node("c1", 16, "")];
    let p = plan(
        "NODEALLOCATIONPOLICY MINRESOURCE\n",
        nodes.clone(),
        vec![job("CPU", 4, "")],
    );
    assert_eq!(
        starts(&p),
        vec![("CPU".to_string(), vec![("c1".to_string(), 4)])]
    );
    let p = plan(
        "NODEALLOCATIONPOLICY PRIORITY\nNODECFG[DEFAULT] PRIORITYF='-10 * CGRES + AGRES'\n",
        nodes.clone(),
        vec![job("CPU", 4, "")],
    );
    assert_eq!(
        starts(&p),
        vec![("CPU".to_string(), vec![("c1".to_string(), 4)])]
    );
    let c = Cluster::build(&nodes, &cfg(""));
    assert_eq!(c.nodes[0].gres_devices(&c.nodes[0].configured.gres), 4);
}

/// SRCFG RESOURCES with generic resources: a standing reservation of two
/// of g1's four GPUs (and one processor) for alice. Jobs of other users
/// get only the other two GPUs, CPU-only jobs still use g1's processors,
/// and alice's jobs use the reserved GPUs.
#[test]
fn a_standing_reservation_of_gpus_holds_them_for_its_users_only() {
    let c = "SRCFG[gpus] HOSTLIST=g1 TASKCOUNT=1 RESOURCES=PROCS:1;GRES=gpu:2 USERLIST=alice PERIOD=INFINITY\n";
    let alice = |id: &str| Job {
        user: "alice".into(),
        ..job(id, 1, "gpu:1")
    };
    let mut jobs: Vec<Job> = (1..=3).map(|k| job(&format!("U{k}"), 1, "gpu:1")).collect();
    jobs.push(job("C1", 16, ""));
    let p = plan(c, vec![node("g1", 32, "gpu:4")], jobs.clone());
    let mut started: Vec<String> = starts(&p).into_iter().map(|s| s.0).collect();
    started.sort();
    // Two of u's three GPU jobs fit beside the reservation; the CPU job
    // takes 16 of the 31 processors it leaves.
    assert_eq!(started, ["C1", "U1", "U2"], "{:?}", starts(&p));
    // U1 and U2 took the GPUs U3 could have had.
    assert_eq!(reason(&p, "U3"), "Priority");
    // Next poll, with those three running: the reservation keeps U3 out.
    let mut next: Vec<Job> = vec![
        running(jobs[0].clone(), 0, &[("g1", 1)]),
        running(jobs[1].clone(), 0, &[("g1", 1)]),
        running(jobs[3].clone(), 0, &[("g1", 16)]),
    ];
    next.push(jobs[2].clone());
    let p = plan(c, vec![node("g1", 32, "gpu:4")], next.clone());
    assert!(p.starts.is_empty(), "{:?}", starts(&p));
    assert!(
        reason(&p, "U3").starts_with("Reservation gpus"),
        "{}",
        reason(&p, "U3")
    );
    // ... while a CPU job still starts on g1's free processors, and
    // alice's GPU job on the reserved GPUs.
    next.push(job("C2", 8, ""));
    next.push(alice("A0"));
    let p = plan(c, vec![node("g1", 32, "gpu:4")], next);
    let mut started: Vec<String> = starts(&p).into_iter().map(|s| s.0).collect();
    started.sort();
    assert_eq!(started, ["A0", "C2"], "{:?}", starts(&p));
    // Without the reservation all three GPU jobs start.
    let p = plan("", vec![node("g1", 32, "gpu:4")], jobs.clone());
    assert_eq!(p.starts.len(), 4, "{:?}", starts(&p));
    // alice's two jobs start on the reserved GPUs while u's take the rest.
    jobs.push(alice("A1"));
    jobs.push(alice("A2"));
    let p = plan(c, vec![node("g1", 32, "gpu:4")], jobs.clone());
    let mut started: Vec<String> = starts(&p).into_iter().map(|s| s.0).collect();
    started.sort();
    assert_eq!(started, ["A1", "A2", "C1", "U1", "U2"], "{:?}", starts(&p));
    // A third of alice's jobs still fits nowhere: the node's four GPUs are
    // all held.
    jobs.push(alice("A3"));
    let p = plan(c, vec![node("g1", 32, "gpu:4")], jobs);
    assert_eq!(p.starts.len(), 5, "{:?}", starts(&p));
}

/// A GPU task goes only to nodes with the GPUs: TASKCOUNT=2 of gpu:1 and
/// no HOSTLIST lands on the GPU nodes, never on the CPU-only one, and a
/// task asking more than any node has reserves nothing.
#[test]
fn standing_gpu_tasks_go_to_nodes_that_have_them() {
    let nodes = || {
        vec![
            node("c1", 32, ""),
            node("g1", 32, "gpu:1"),
            node("g2", 32, "gpu:2"),
        ]
    };
    let c = "SRCFG[g] TASKCOUNT=2 RESOURCES=PROCS:1;GPUS:1 PERIOD=INFINITY USERLIST=alice\n";
    let p = plan(c, nodes(), vec![]);
    let r = p
        .reservations
        .iter()
        .find(|r| r.id.starts_with('g'))
        .unwrap();
    let on: Vec<&str> = r.allocation.iter().map(|c| c.node.as_str()).collect();
    assert!(!on.contains(&"c1") && on.len() == 2, "{r:?}");
    let c = "SRCFG[g] TASKCOUNT=1 RESOURCES=PROCS:1;GPUS:3 PERIOD=INFINITY USERLIST=alice\n";
    let p = plan(c, nodes(), vec![]);
    assert!(
        p.reservations
            .iter()
            .filter(|r| r.id.starts_with('g'))
            .all(|r| r.allocation.is_empty()),
        "{:?}",
        p.reservations
    );
}

/// A job reservation's generic resources are kept by name in the state
/// (the checkpoint saves resource vectors without them): after a JSON
/// round trip the claim still holds the job's GPUs on the cluster.
#[test]
fn job_reservation_gpus_survive_the_checkpoint() {
    let mut s = Snapshot {
        now: None,
        nodes: vec![node("c1", 8, ""), node("g1", 8, "gpu:2")],
        jobs: vec![
            running(job("R", 1, "gpu:2"), 0, &[("g1", 1)]),
            job("W", 1, "gpu:2"),
        ],
        ..Snapshot::default()
    };
    s.normalize().unwrap();
    let mut e = Engine::new(cfg(""));
    let p = e.iterate(&s, 0);
    assert!(p.starts.is_empty(), "{:?}", starts(&p));
    let jr = &e.state.job_reservations;
    assert_eq!(jr.len(), 1, "{jr:?}");
    assert_eq!(
        jr[0].claims[0].gres.as_ref().and_then(|g| g.get("gpu")),
        Some(&2),
        "{jr:?}"
    );
    let text = serde_json::to_string(&e.state.job_reservations).unwrap();
    let back: Vec<super::state::JobReservation> = serde_json::from_str(&text).unwrap();
    let cluster = crate::model::Cluster::build(&s.nodes, &cfg(""));
    let gpu = cluster.gres_id("gpu").unwrap();
    assert_eq!(
        back[0].claims[0].resources.gres.get(gpu),
        0,
        "saved without ids"
    );
    assert_eq!(back[0].claims[0].resources_on(&cluster).gres.get(gpu), 2);
}
