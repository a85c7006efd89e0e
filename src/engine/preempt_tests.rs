//! Preemption (`passes::preempt`): the guide's QOS example, the rule that
//! chooses the preemptees, SUSPEND keeping memory and resuming, queue time
//! after a requeue, and the three conditions as a property.

use super::state::Preemption;
use super::tests::{cfg, idle, nodes, running, snap};
use super::*;
use crate::model::{Node, Resources};
use proptest::prelude::*;

const H: i64 = 3600;

/// The guide's example (8.4 "QOS Based Preemption"), with priorities by
/// QOS so that the order is plain.
const GUIDE: &str = "PREEMPTPOLICY REQUEUE\n\
    QOSWEIGHT 1\nQUEUETIMEWEIGHT 0\n\
    QOSCFG[high] QFLAGS=PREEMPTOR PRIORITY=1000\n\
    QOSCFG[med] PRIORITY=500\n\
    QOSCFG[low] QFLAGS=PREEMPTEE PRIORITY=10\n";

fn with_qos(mut j: Job, qos: &str) -> Job {
    j.qos = Some(qos.into());
    j
}

/// A low-QOS job of `procs` processors running on `node` since `start`.
fn low(id: &str, procs: u32, node: &str, start: i64) -> Job {
    running(
        with_qos(idle(id, "cyc", procs, 10 * H, start), "low"),
        start,
        &[(node, procs)],
    )
}

fn actions(p: &Plan) -> Vec<(ActionKind, &str, &str)> {
    p.actions
        .iter()
        .map(|a| (a.kind, a.job.as_str(), a.by.as_str()))
        .collect()
}

#[test]
fn guide_example_high_preempts_low_and_starts_on_its_nodes() {
    let c = cfg(GUIDE);
    let mut jobs: Vec<Job> = (1..=4)
        .map(|k| low(&format!("L{k}"), 4, &format!("n{k}"), -(k as i64) * H))
        .collect();
    // A medium job waits too: it is no preemptor, nothing is preempted for it.
    jobs.push(with_qos(idle("M", "bob", 4, H, -600), "med"));
    let mut e = Engine::new(c.clone());
    let p = e.iterate(&snap(nodes(4, 4), jobs.clone()), 0);
    assert!(
        p.starts.is_empty() && p.actions.is_empty(),
        "{:?}",
        p.actions
    );

    jobs.push(with_qos(idle("X", "amy", 8, H, -60), "high"));
    let p = e.iterate(&snap(nodes(4, 4), jobs), 60);
    // Two jobs are needed; the least work lost is that of the latest
    // started (L1 started an hour ago, L2 two hours ago).
    assert_eq!(
        actions(&p),
        [
            (ActionKind::Requeue, "L1", "X"),
            (ActionKind::Requeue, "L2", "X")
        ]
    );
    let s = &p.starts[0];
    assert_eq!(s.job, "X");
    let mut on: Vec<&str> = s.allocation.iter().map(|a| a.node.as_str()).collect();
    on.sort();
    assert_eq!(on, ["n1", "n2"]);
    assert_eq!(s.after, ["L1", "L2"]);
    assert_eq!(p.stats.preempted, 2);
    assert!(!p.job("M").unwrap().started);
    let rec = &e.state.preempted["L1"];
    assert_eq!((rec.by.as_str(), rec.at, rec.count), ("X", 60, 1));
    assert_eq!(rec.lost, 4 * (H as u64 + 60), "4 processors for 1 h 1 min");
}

#[test]
fn only_preemptees_of_lower_priority_are_touched() {
    // M runs at medium QOS (no PREEMPTEE); a PREEMPTEE job of higher
    // priority than the preemptor is not touched either.
    let c = cfg(&format!(
        "{GUIDE}QOSCFG[vip] QFLAGS=PREEMPTEE PRIORITY=5000\n"
    ));
    let jobs = vec![
        running(
            with_qos(idle("M", "bob", 4, 10 * H, -H), "med"),
            -H,
            &[("n1", 4)],
        ),
        running(
            with_qos(idle("V", "eve", 4, 10 * H, -H), "vip"),
            -H,
            &[("n2", 4)],
        ),
        with_qos(idle("X", "amy", 4, H, -60), "high"),
    ];
    let mut e = Engine::new(c);
    let p = e.iterate(&snap(nodes(2, 4), jobs), 0);
    assert!(p.actions.is_empty() && p.starts.is_empty());
    let why = p.job("X").unwrap().preemption.clone().unwrap();
    assert_eq!(why, "no running PREEMPTEE job has a lower priority");
}

#[test]
fn preemptees_chosen_fewest_then_lowest_priority_then_least_work() {
    let c = cfg(&format!(
        "{GUIDE}QOSCFG[low2] QFLAGS=PREEMPTEE PRIORITY=5\n"
    ));
    // n1 runs two 2-processor low2 jobs (the lowest priority), n2 one
    // 4-processor low job: one job frees a whole node, and wins.
    let jobs = vec![
        running(
            with_qos(idle("A", "u", 2, 10 * H, -H), "low2"),
            -H,
            &[("n1", 2)],
        ),
        running(
            with_qos(idle("B", "u", 2, 10 * H, -H), "low2"),
            -H,
            &[("n1", 2)],
        ),
        low("C", 4, "n2", -3 * H),
        with_qos(idle("X", "amy", 4, H, -60), "high"),
    ];
    let p = Engine::new(c.clone()).iterate(&snap(nodes(2, 4), jobs.clone()), 0);
    assert_eq!(actions(&p), [(ActionKind::Requeue, "C", "X")]);

    // With a 2-processor preemptor one low2 job does: the one that ran
    // the least (B started later).
    let mut jobs = jobs;
    jobs[1].start_time = Some(-H / 2);
    jobs[3] = with_qos(idle("X", "amy", 2, H, -60), "high");
    let p = Engine::new(c.clone()).iterate(&snap(nodes(2, 4), jobs.clone()), 0);
    assert_eq!(actions(&p), [(ActionKind::Requeue, "B", "X")]);

    // Never more than needed: a preemptor that fits on what is free
    // preempts nothing.
    let mut ns = nodes(3, 4);
    ns[2].name = "n3".into();
    let p = Engine::new(c).iterate(&snap(ns, jobs), 0);
    assert!(p.actions.is_empty());
    assert_eq!(p.starts[0].job, "X");
    assert!(p.starts[0].after.is_empty());
}

#[test]
fn preemption_that_cannot_free_enough_preempts_nothing() {
    let c = cfg(GUIDE);
    let jobs = vec![
        low("L1", 4, "n1", -H),
        running(
            with_qos(idle("M", "bob", 4, 10 * H, -H), "med"),
            -H,
            &[("n2", 4)],
        ),
        with_qos(idle("X", "amy", 8, H, -60), "high"),
    ];
    let p = Engine::new(c).iterate(&snap(nodes(2, 4), jobs), 0);
    assert!(p.actions.is_empty() && p.starts.is_empty());
    assert!(p
        .job("X")
        .unwrap()
        .preemption
        .as_deref()
        .unwrap()
        .contains("would not free enough"));
}

fn mem_nodes(n: usize) -> Vec<Node> {
    (1..=n)
        .map(|k| Node {
            name: format!("n{k}"),
            configured: Resources::procs_mem(4, 4000),
            ..Node::default()
        })
        .collect()
}

fn with_mem(mut j: Job, mb: u64) -> Job {
    j.task.mem = mb;
    j
}

#[test]
fn suspend_keeps_memory_and_resumes_before_new_starts() {
    let c = cfg(&GUIDE.replace("REQUEUE", "SUSPEND"));
    // L holds 4 processors and 3000 MB (750 MB a task) of n1's 4000.
    let l = with_mem(low("L", 4, "n1", -H), 750);
    // X needs 4 processors and 1000 MB: suspending L frees the processors
    // and leaves 1000 MB.
    let x = with_mem(with_qos(idle("X", "amy", 4, H, -60), "high"), 250);
    let mut e = Engine::new(c.clone());
    let p = e.iterate(&snap(mem_nodes(1), vec![l.clone(), x.clone()]), 0);
    assert_eq!(actions(&p), [(ActionKind::Suspend, "L", "X")]);
    assert_eq!(p.starts[0].job, "X");
    assert!(e.state.preempted["L"].suspended);
    assert_eq!(e.state.preempted["L"].lost, 0, "a suspension loses no work");

    // A preemptor needing 2000 MB cannot use n1 while L keeps its memory:
    // nothing is suspended for it (REQUEUE would free it).
    let big = with_mem(with_qos(idle("X", "amy", 4, H, -60), "high"), 500);
    let p2 = Engine::new(c.clone()).iterate(&snap(mem_nodes(1), vec![l.clone(), big.clone()]), 0);
    assert!(p2.actions.is_empty() && p2.starts.is_empty());
    let p3 = Engine::new(cfg(GUIDE)).iterate(&snap(mem_nodes(1), vec![l.clone(), big]), 0);
    assert_eq!(actions(&p3), [(ActionKind::Requeue, "L", "X")]);

    // The RM suspended L and started X. L stays suspended while X runs,
    // and a low job submitted since does not take L's processors.
    let mut ls = l.clone();
    ls.state = JobState::Suspended;
    let xr = running(x, 60, &[("n1", 4)]);
    let other = with_mem(with_qos(idle("O", "cyc", 4, H, 100), "low"), 250);
    let p = e.iterate(
        &snap(mem_nodes(1), vec![ls.clone(), xr, other.clone()]),
        120,
    );
    assert!(
        p.actions.is_empty() && p.starts.is_empty(),
        "{:?}",
        p.actions
    );

    // X ends: L is resumed, ahead of O.
    let p = e.iterate(&snap(mem_nodes(1), vec![ls, other]), 3000);
    assert_eq!(actions(&p), [(ActionKind::Resume, "L", "")]);
    assert!(p.starts.is_empty(), "{:?}", p.starts);
    assert_eq!(p.stats.resumed, 1);
    assert!(!e.state.preempted["L"].suspended);
    // Its record says it ran an hour before the suspension.
    assert_eq!(e.state.preempted["L"].ran, H);
}

#[test]
fn a_checkpoint_loses_no_work() {
    let c = cfg(&GUIDE.replace("REQUEUE", "CHECKPOINT"));
    let jobs = vec![
        low("L", 4, "n1", -H),
        with_qos(idle("X", "amy", 4, H, -60), "high"),
    ];
    let mut e = Engine::new(c);
    let p = e.iterate(&snap(nodes(1, 4), jobs), 0);
    assert_eq!(actions(&p), [(ActionKind::Checkpoint, "L", "X")]);
    let rec = &e.state.preempted["L"];
    assert_eq!((rec.lost, rec.ran), (0, H));
}

#[test]
fn requeued_queue_time_follows_the_accrual_policy() {
    // (policy, submission time the RM reports after the requeue, queue
    // time at 1200): Slurm reports the requeue's time, Torque the first.
    for (policy, rm_submit, want) in [
        ("QUEUEPOLICY", 61, 539),
        ("QUEUEPOLICY", -5 * H, 540),
        ("ALWAYS", 61, 18_600),
        ("ALWAYS", -5 * H, 18_600),
    ] {
        let c = cfg(&format!(
            "{GUIDE}JOBPRIOACCRUALPOLICY {policy}\nQUEUETIMEWEIGHT 1\n"
        ));
        let mut l = low("L", 4, "n1", -H);
        l.submit_time = -5 * H;
        let x = with_qos(idle("X", "amy", 4, H, -60), "high");
        let mut e = Engine::new(c);
        let p = e.iterate(&snap(nodes(1, 4), vec![l, x.clone()]), 60);
        assert_eq!(actions(&p), [(ActionKind::Requeue, "L", "X")]);
        let lq = with_qos(idle("L", "cyc", 4, 10 * H, rm_submit), "low");
        let xr = running(x, 60, &[("n1", 4)]);
        e.iterate(&snap(nodes(1, 4), vec![lq.clone(), xr.clone()]), 600);
        let p = e.iterate(&snap(nodes(1, 4), vec![lq, xr]), 1200);
        let eff = p.job("L").unwrap().eff_queue_time;
        assert_eq!(eff, want, "{policy}, submitted {rm_submit}");
    }
}

#[test]
fn a_resumed_job_holds_its_nodes_for_its_walltime_left() {
    // S started at 0 with a 1000 s walltime, ran 300 s, stood suspended,
    // and was resumed at 500: it may run until 1200, and W's reservation
    // is made for then, not for 1000.
    let s = running(idle("S", "sam", 4, 1000, 0), 0, &[("n1", 4)]);
    let w = idle("W", "wes", 4, 100, 550);
    let mut e = Engine::new(cfg("PREEMPTPOLICY SUSPEND\n"));
    let p = e.iterate(&snap(nodes(1, 4), vec![s.clone(), w.clone()]), 600);
    assert_eq!(p.reservations[0].start, 1000);
    let mut rec = Preemption::first(&s);
    rec.how = ActionKind::Suspend;
    rec.ran = 300;
    rec.resumed_at = Some(500);
    let mut e = Engine::new(cfg("PREEMPTPOLICY SUSPEND\n"));
    e.state.preempted.insert("S".into(), rec);
    let p = e.iterate(&snap(nodes(1, 4), vec![s, w]), 600);
    assert_eq!(p.reservations[0].start, 1200);
}

/// BACKFILLPOLICY PREEMPT, priorities by QOS alone.
const BFP: &str = "BACKFILLPOLICY PREEMPT\n\
    QOSWEIGHT 1\nQUEUETIMEWEIGHT 0\n\
    QOSCFG[top] PRIORITY=100\nQOSCFG[mid] PRIORITY=10\n";

#[test]
fn preemption_backfill_runs_into_the_top_jobs_start_and_is_preempted_then() {
    // R (no preemptee) holds n1 for another hour; A needs both nodes; B,
    // ten hours long, fits on n2 now.
    let r = running(idle("R", "rob", 4, 2 * H, -2 * H), -H, &[("n1", 4)]);
    let a = with_qos(idle("A", "amy", 8, H, -1800), "top");
    let b = with_qos(idle("B", "bob", 4, 10 * H, -60), "mid");
    let jobs = vec![r.clone(), a.clone(), b.clone()];

    // FIRSTFIT reserves n1 and n2 for A in an hour: B would run into it.
    let mut ff = Engine::new(cfg("QOSWEIGHT 1\nQUEUETIMEWEIGHT 0\n\
        QOSCFG[top] PRIORITY=100\nQOSCFG[mid] PRIORITY=10\n"));
    let p = ff.iterate(&snap(nodes(2, 4), jobs.clone()), 0);
    assert!(p.starts.is_empty(), "{:?}", p.starts);

    // PREEMPT reserves the same timeslot for A, and backfills B into
    // it: B is preemptible.
    let mut e = Engine::new(cfg(BFP));
    let p = e.iterate(&snap(nodes(2, 4), jobs), 0);
    assert_eq!(p.starts.len(), 1);
    assert_eq!(
        (p.starts[0].job.as_str(), p.starts[0].backfill),
        ("B", true)
    );
    assert_eq!(p.reservations.len(), 1, "{:?}", p.reservations);
    assert_eq!(p.reservations[0].job.as_deref(), Some("A"));
    assert_eq!(p.reservations[0].start, H);
    assert!(p.actions.is_empty());
    assert_eq!(e.state.preemptible.get("B"), Some(&10));
    let why = p.job("A").unwrap().preemption.clone().unwrap();
    assert!(why.starts_with("no running preemptible job"), "{why}");

    // Half an hour on, R still runs: A could take B's node but not R's,
    // and nothing is preempted.
    let b_run = running(b, 0, &[("n2", 4)]);
    let p = e.iterate(&snap(nodes(2, 4), vec![r, a.clone(), b_run.clone()]), 1800);
    assert!(p.actions.is_empty() && p.starts.is_empty());
    let why = p.job("A").unwrap().preemption.clone().unwrap();
    assert!(why.contains("would not free enough"), "{why}");

    // R has ended at A's would-be start: B is requeued and A starts.
    let p = e.iterate(&snap(nodes(2, 4), vec![a, b_run]), H);
    assert_eq!(actions(&p), [(ActionKind::Requeue, "B", "A")]);
    assert_eq!(p.starts.len(), 1);
    assert_eq!(p.starts[0].job, "A");
    assert!(!p.starts[0].backfill, "A started in priority order");
    assert_eq!(p.starts[0].after, ["B"]);
    assert_eq!(e.state.preempted["B"].lost, 4 * H as u64);
    // Only jobs started out of order are preemptible.
    assert!(!e.state.preemptible.contains_key("A"));
}

#[test]
fn preemption_backfill_preempts_only_for_jobs_given_a_timeslot() {
    // RESERVATIONDEPTH 1: A holds the timeslot; C, of higher priority
    // than B but behind A, preempts nothing though it would then fit.
    let c = cfg(&format!(
        "{BFP}RESERVATIONDEPTH 1\nQOSCFG[hi] PRIORITY=50\n"
    ));
    let r = running(idle("R", "rob", 4, 2 * H, -2 * H), -H, &[("n1", 4)]);
    let a = with_qos(idle("A", "amy", 8, H, -1800), "top");
    let b = with_qos(idle("B", "bob", 4, 10 * H, -60), "mid");
    let mut e = Engine::new(c);
    let p = e.iterate(&snap(nodes(2, 4), vec![r.clone(), a.clone(), b.clone()]), 0);
    assert_eq!(p.starts[0].job, "B");
    let b_run = running(b, 0, &[("n2", 4)]);
    let cj = with_qos(idle("C", "cat", 4, H, 30), "hi");
    let p = e.iterate(&snap(nodes(2, 4), vec![r, a, b_run, cj]), 60);
    assert!(
        p.actions.is_empty() && p.starts.is_empty(),
        "{:?}",
        p.actions
    );
    assert_eq!(p.job("C").unwrap().preemption, None);
}

#[test]
fn preemption_backfill_keeps_in_order_starts_and_ends_preemptibility() {
    // B starts in priority order: a job of higher priority that comes
    // later does not preempt it.
    let b = with_qos(idle("B", "bob", 4, 10 * H, -60), "mid");
    let mut e = Engine::new(cfg(BFP));
    let p = e.iterate(&snap(nodes(1, 4), vec![b.clone()]), 0);
    assert_eq!(p.starts.len(), 1);
    assert!(!p.starts[0].backfill);
    assert!(e.state.preemptible.is_empty());
    let b_run = running(b.clone(), 0, &[("n1", 4)]);
    let late = with_qos(idle("T", "tom", 4, H, 60), "top");
    let p = e.iterate(&snap(nodes(1, 4), vec![b_run, late]), 120);
    assert!(p.actions.is_empty() && p.starts.is_empty());

    // B backfilled past A is preemptible; once A leaves and only jobs of
    // lower priority than B's wait, it no longer is: a later job of
    // higher priority does not preempt it.
    let r = running(idle("R", "rob", 4, 2 * H, -2 * H), -H, &[("n1", 4)]);
    let a = with_qos(idle("A", "amy", 8, H, -1800), "top");
    let mut e = Engine::new(cfg(BFP));
    let p = e.iterate(&snap(nodes(2, 4), vec![r.clone(), a, b.clone()]), 0);
    assert_eq!(p.starts[0].job, "B");
    assert!(e.state.preemptible.contains_key("B"));
    let b_run = running(b, 0, &[("n2", 4)]);
    let low = idle("C", "cat", 4, H, 30);
    let p = e.iterate(
        &snap(nodes(2, 4), vec![r.clone(), b_run.clone(), low.clone()]),
        60,
    );
    assert!(p.starts.is_empty());
    assert!(e.state.preemptible.is_empty(), "{:?}", e.state.preemptible);
    let t = with_qos(idle("T", "tom", 4, H, 90), "top");
    let p = e.iterate(&snap(nodes(2, 4), vec![r, b_run, low, t]), 120);
    assert!(
        p.actions.is_empty() && p.starts.is_empty(),
        "{:?}",
        p.actions
    );
}

/// Applies `p` to `jobs` as a resource manager would at `now`: starts
/// run, preempted jobs are queued again (REQUEUE) or suspended.
fn apply(jobs: &mut [Job], p: &Plan, now: i64) {
    for a in &p.actions {
        let j = jobs.iter_mut().find(|j| j.id == a.job).unwrap();
        match a.kind {
            ActionKind::Suspend => j.state = JobState::Suspended,
            ActionKind::Resume => j.state = JobState::Running,
            _ => {
                j.state = JobState::Idle;
                j.start_time = None;
                j.allocation.clear();
            }
        }
    }
    for s in &p.starts {
        let j = jobs.iter_mut().find(|j| j.id == s.job).unwrap();
        j.state = JobState::Running;
        j.start_time = Some(now);
        j.allocation = s.allocation.clone();
    }
}

/// Three conditions, and the preemptor starts in the same plan, on
/// random clusters; both placers decide alike.
mod props {
    use super::*;

    fn plan_of(c: &Config, s: &Snapshot, reference: bool) -> Arc<Plan> {
        let mut e = Engine::new(c.clone());
        if reference {
            super::super::reference::with_reference(|| e.iterate(s, 0))
        } else {
            e.iterate(s, 0)
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 64, .. ProptestConfig::default() })]
        #[test]
        fn preemption_keeps_the_three_conditions(
            run in proptest::collection::vec((0u8..8, 1u32..5, 0u8..4, 1i64..20), 8..40),
            wait in proptest::collection::vec((1u32..12, 0u8..4, 1i64..8), 1..8),
            suspend in any::<bool>(),
        ) {
            let qos = ["high", "med", "low", "low2"];
            let c = cfg(&format!(
                "{GUIDE}QOSCFG[low2] QFLAGS=PREEMPTEE PRIORITY=600\nPREEMPTPOLICY {}\n",
                if suspend { "SUSPEND" } else { "REQUEUE" }
            ));
            let ns = nodes(8, 4);
            let mut used = [0u32; 8];
            let mut jobs = Vec::new();
            for (k, &(node, procs, q, age)) in run.iter().enumerate() {
                let n = node as usize;
                if used[n] + procs > 4 {
                    continue;
                }
                used[n] += procs;
                let j = with_qos(idle(&format!("R{k}"), "u", procs, 10 * H, -age * H), qos[q as usize]);
                jobs.push(running(j, -age * H, &[(&format!("n{}", n + 1), procs)]));
            }
            for (k, &(procs, q, age)) in wait.iter().enumerate() {
                let q = ["high", "high", "med", "low"][q as usize];
                jobs.push(with_qos(idle(&format!("W{k}"), "v", procs, 2 * H, -age * 60), q));
            }
            let s = snap(ns, jobs.clone());
            let p = plan_of(&c, &s, false);
            prop_assert_eq!(
                serde_json::to_string(&*p).unwrap(),
                serde_json::to_string(&*plan_of(&c, &s, true)).unwrap()
            );
            let prio = |id: &str| -> i64 {
                let j = jobs.iter().find(|j| j.id == id).unwrap();
                c.cred(crate::model::CredKind::Qos, j.qos.as_deref().unwrap())
                    .and_then(|q| q.priority)
                    .unwrap_or(0)
            };
            for a in p.actions.iter().filter(|a| a.kind.preempts()) {
                let victim = jobs.iter().find(|j| j.id == a.job).unwrap();
                let by = jobs.iter().find(|j| j.id == a.by).unwrap();
                prop_assert_eq!(victim.state, JobState::Running);
                prop_assert!(matches!(victim.qos.as_deref(), Some("low" | "low2")));
                prop_assert_eq!(by.qos.as_deref(), Some("high"));
                prop_assert!(prio(&a.job) < prio(&a.by));
                let start = p.starts.iter().find(|s| s.job == a.by);
                prop_assert!(start.is_some(), "the preemptor starts in the same plan");
                prop_assert!(start.unwrap().after.contains(&a.job));
            }
            // Nothing over-committed once the preemptions are applied.
            let mut load = [0u32; 8];
            for j in jobs.iter().filter(|j| j.state == JobState::Running) {
                let gone = p.actions.iter().any(|a| a.job == j.id && a.kind.preempts());
                if !gone {
                    for a in &j.allocation {
                        load[a.node[1..].parse::<usize>().unwrap() - 1] += a.tasks;
                    }
                }
            }
            for s in &p.starts {
                for a in &s.allocation {
                    load[a.node[1..].parse::<usize>().unwrap() - 1] += a.tasks;
                }
            }
            prop_assert!(load.iter().all(|&l| l <= 4), "{:?}", load);
        }

        /// Under BACKFILLPOLICY PREEMPT, over a few iterations: only jobs
        /// that were preemptible (started out of order, or PREEMPTEE) are
        /// preempted, by a job of higher priority that starts in the same
        /// plan, nothing is over-committed, and both placers agree.
        #[test]
        fn preemption_backfill_preempts_only_out_of_order_starts(
            first in proptest::collection::vec((1u32..9, 0u8..3, 1i64..6, 1i64..30), 4..24),
            later in proptest::collection::vec((1u32..9, 0u8..3, 1i64..6), 0..8),
            ends in proptest::collection::vec(any::<bool>(), 24),
            suspend in any::<bool>(),
        ) {
            let c = cfg(&format!(
                "{BFP}QOSCFG[low] QFLAGS=PREEMPTEE PRIORITY=1\nPREEMPTPOLICY {}\n",
                if suspend { "SUSPEND" } else { "REQUEUE" }
            ));
            let qos = ["top", "mid", "low"];
            let mut jobs: Vec<Job> = first
                .iter()
                .enumerate()
                .map(|(k, &(procs, q, hours, age))| {
                    with_qos(idle(&format!("F{k:02}"), "u", procs, hours * H, -age * 60), qos[q as usize])
                })
                .collect();
            let mut e = Engine::new(c.clone());
            let mut r = Engine::new(c.clone());
            let prio = |j: &Job| -> i64 {
                c.cred(crate::model::CredKind::Qos, j.qos.as_deref().unwrap())
                    .and_then(|q| q.priority)
                    .unwrap_or(0)
            };
            for (step, now) in [0i64, 1800, 3600, 7200].into_iter().enumerate() {
                if step == 1 {
                    for (k, &(procs, q, hours)) in later.iter().enumerate() {
                        jobs.push(with_qos(idle(&format!("L{k:02}"), "v", procs, hours * H, now - 60), qos[q as usize]));
                    }
                }
                if step >= 2 {
                    // Some running jobs end.
                    let mut k = 0;
                    jobs.retain(|j| {
                        k += 1;
                        !(j.state == JobState::Running && ends[k % ends.len()])
                    });
                }
                let before = e.state.preemptible.clone();
                let s = snap(nodes(4, 4), jobs.clone());
                let p = e.iterate(&s, now);
                let q = super::super::reference::with_reference(|| r.iterate(&s, now));
                prop_assert_eq!(
                    serde_json::to_string(&*p).unwrap(),
                    serde_json::to_string(&*q).unwrap()
                );
                for a in p.actions.iter().filter(|a| a.kind.preempts()) {
                    let victim = jobs.iter().find(|j| j.id == a.job).unwrap();
                    let by = jobs.iter().find(|j| j.id == a.by).unwrap();
                    prop_assert_eq!(victim.state, JobState::Running);
                    prop_assert!(
                        before.contains_key(&a.job) || victim.qos.as_deref() == Some("low"),
                        "{} was not preemptible", a.job
                    );
                    // Equal priority only for a job backfilled past the
                    // preemptor.
                    prop_assert!(
                        prio(victim) < prio(by)
                            || (prio(victim) == prio(by) && before.contains_key(&a.job))
                    );
                    let start = p.starts.iter().find(|s| s.job == a.by);
                    prop_assert!(start.is_some(), "the preemptor starts in the same plan");
                }
                for s in p.starts.iter().filter(|s| s.backfill) {
                    prop_assert!(e.state.preemptible.contains_key(&s.job));
                }
                apply(&mut jobs, &p, now);
                let mut load = [0u32; 4];
                for j in jobs.iter().filter(|j| j.state == JobState::Running) {
                    for a in &j.allocation {
                        load[a.node[1..].parse::<usize>().unwrap() - 1] += a.tasks;
                    }
                }
                prop_assert!(load.iter().all(|&l| l <= 4), "{:?}", load);
            }
        }
    }
}
