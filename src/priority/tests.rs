use super::accrual::accrues;
use super::*;
use crate::config::JobPrioAccrualPolicy;
use crate::model::time::HOUR as HOUR_SECS;
use crate::model::{HoldKind, JobState, Node, Snapshot};
use proptest::prelude::*;

fn cfg(text: &str) -> Config {
    let l = Config::parse(text, "test.cfg");
    assert!(l.is_ok(), "{:?}", l.diagnostics);
    l.config
}

fn job(id: &str, user: &str) -> Job {
    Job {
        id: id.into(),
        user: user.into(),
        group: "staff".into(),
        submit_time: 1_000_000,
        walltime: Some(HOUR_SECS),
        ..Job::default()
    }
}

fn ctx<'a>(cfg: &'a Config, fs: &'a dyn FairshareView) -> PriorityContext<'a> {
    PriorityContext {
        now: 1_000_000,
        cfg,
        total: Resources::procs_mem(128, 128 * 1024),
        fairshare: fs,
    }
}

fn sub(b: &PriorityBreakdown, kind: ComponentKind, name: &str) -> Subcomponent {
    b.component(kind).sub(name).unwrap().clone()
}

/// Guide 5.1.2.2: job X of user A, group B, account C, QOS D, class E.
fn fairshare_example(extra: &str) -> (Config, BTreeMap<(CredKind, String), f64>, Job) {
    let c = cfg(&format!(
        "FSWEIGHT 100\nFSUSERWEIGHT 10\nFSGROUPWEIGHT 20\nFSACCOUNTWEIGHT 30\nFSQOSWEIGHT 40\nFSCLASSWEIGHT 0\n\
         USERCFG[A] FSTARGET=50.0\nACCOUNTCFG[C] FSTARGET=25.0\nQOSCFG[D] FSTARGET=10.0+\n{extra}"
    ));
    let usage: BTreeMap<(CredKind, String), f64> = [
        ((CredKind::User, "A".to_string()), 45.0),
        ((CredKind::Group, "B".to_string()), 65.0),
        ((CredKind::Account, "C".to_string()), 35.0),
        ((CredKind::Qos, "D".to_string()), 25.0),
        ((CredKind::Class, "E".to_string()), 20.0),
    ]
    .into_iter()
    .collect();
    let j = Job {
        group: "B".into(),
        account: Some("C".into()),
        qos: Some("D".into()),
        class: Some("E".into()),
        ..job("X", "A")
    };
    (c, usage, j)
}

#[test]
fn fairshare_component_follows_the_guide_example() {
    let (c, usage, j) = fairshare_example("ENABLENEGJOBPRIORITY TRUE\n");
    let b = job_priority(&ctx(&c, &usage), &j, 0);
    // User A is 5% below target, group B has none, account C is 10% above,
    // QOS D is above its floor (ignored), class E has no target.
    assert_eq!(sub(&b, ComponentKind::Fs, "FSUSER").value, 5.0);
    assert_eq!(sub(&b, ComponentKind::Fs, "FSGROUP").value, 0.0);
    assert_eq!(sub(&b, ComponentKind::Fs, "FSACCOUNT").value, -10.0);
    assert_eq!(sub(&b, ComponentKind::Fs, "FSQOS").value, 0.0);
    assert_eq!(sub(&b, ComponentKind::Fs, "FSCLASS").value, 0.0);
    // Priority += 100 * (10*5 + 20*0 + 30*(-10) + 40*0 + 0*0) = -25000
    assert_eq!(b.component(ComponentKind::Fs).contribution, -25_000.0);
    assert_eq!(b.raw, -25_000.0, "nothing else contributes");
    assert_eq!(b.priority, -25_000);
    assert!(
        !b.rejected_negative,
        "REJECTNEGPRIOJOBS defaults to FALSE, as in Maui 3.3's code"
    );
    let d = b.fs.iter().find(|d| d.kind == CredKind::Qos).unwrap();
    assert_eq!(d.usage, Some(25.0));
    assert_eq!(d.target.unwrap().mode, FsTargetMode::Floor);
}

#[test]
fn negative_priorities_follow_maui_3_3s_rule() {
    // MJobGetStartPriority (MPriority.c): the priority is at least 1 only
    // when both ENABLENEGJOBPRIORITY and REJECTNEGPRIOJOBS are FALSE; a
    // job is refused when REJECTNEGPRIOJOBS is TRUE and its priority
    // negative (MPolicy.c).
    let (c, usage, j) = fairshare_example("");
    let b = job_priority(&ctx(&c, &usage), &j, 0);
    assert_eq!(b.raw, -25_000.0);
    assert_eq!(b.priority, 1, "lower bound 1 by default");
    assert!(!b.rejected_negative);

    let (c, usage, j) = fairshare_example("REJECTNEGPRIOJOBS TRUE\n");
    let b = job_priority(&ctx(&c, &usage), &j, 0);
    assert_eq!(
        b.priority, -25_000,
        "no lower bound of 1 once jobs may be refused"
    );
    assert!(b.rejected_negative);

    let (c, usage, j) = fairshare_example("ENABLENEGJOBPRIORITY TRUE\nREJECTNEGPRIOJOBS TRUE\n");
    let b = job_priority(&ctx(&c, &usage), &j, 0);
    assert_eq!(b.priority, -25_000);
    assert!(b.rejected_negative);

    let (c, usage, j) = fairshare_example("ENABLENEGJOBPRIORITY TRUE\nREJECTNEGPRIOJOBS FALSE\n");
    let b = job_priority(&ctx(&c, &usage), &j, 0);
    assert_eq!(b.priority, -25_000);
    assert!(
        !b.rejected_negative,
        "REJECTNEGPRIOJOBS FALSE lets it start"
    );
}

#[test]
fn floor_and_cap_targets_and_ratio_policy() {
    let floor = Some(FsTarget {
        percent: 10.0,
        mode: FsTargetMode::Floor,
    });
    let cap = Some(FsTarget {
        percent: 10.0,
        mode: FsTargetMode::Cap,
    });
    let diff = FsPolicy {
        metric: None,
        percent: false,
    };
    assert_eq!(fs_delta(diff, floor, 25.0), 0.0);
    assert_eq!(fs_delta(diff, floor, 4.0), 6.0);
    assert_eq!(fs_delta(diff, cap, 4.0), 0.0);
    assert_eq!(fs_delta(diff, cap, 25.0), -15.0);
    assert_eq!(fs_delta(diff, None, 25.0), 0.0);
    let ratio = FsPolicy {
        metric: None,
        percent: true,
    };
    let t50 = Some(FsTarget {
        percent: 50.0,
        mode: FsTargetMode::Target,
    });
    // FSPOLICY ...%: 1 - usage/target.
    assert!((fs_delta(ratio, t50, 45.0) - 0.1).abs() < 1e-12);
    assert!((fs_delta(ratio, t50, 75.0) + 0.5).abs() < 1e-12);
}

#[test]
fn fscap_bounds_the_pre_weighted_fairshare_sum() {
    let (c, usage, j) = fairshare_example("ACCOUNTCFG[C] FSTARGET=35\nFSCAP 10\n");
    let b = job_priority(&ctx(&c, &usage), &j, 0);
    // 10*5 = 50 pre-weighted, capped at 10, times FSWEIGHT 100.
    assert_eq!(b.component(ComponentKind::Fs).sum, 50.0);
    assert_eq!(b.component(ComponentKind::Fs).contribution, 1000.0);
    assert_eq!(b.priority, 1000);
}

#[test]
fn credential_priorities_and_default_fallback() {
    // Guide 5.1.2.1's example, plus a DEFAULT for everyone else.
    let c = cfg("CREDWEIGHT 1\nUSERWEIGHT 1\nGROUPWEIGHT 1\nUSERCFG[john] PRIORITY=2000\n\
         USERCFG[paul] PRIORITY=-1000\nGROUPCFG[staff] PRIORITY=10000\nUSERCFG[DEFAULT] PRIORITY=5\n\
         QOSWEIGHT 3\nQOSCFG[DEFAULT] PRIORITY=7\n");
    let f = NoFairshare;
    let john = job_priority(&ctx(&c, &f), &job("1", "john"), 0);
    let paul = job_priority(&ctx(&c, &f), &job("2", "paul"), 0);
    let ann = job_priority(&ctx(&c, &f), &job("3", "ann"), 0);
    // A job without a QOS is in QOS DEFAULT: 3 * 7 = 21.
    assert_eq!(john.priority, 2000 + 10_000 + 21);
    assert_eq!(paul.priority, -1000 + 10_000 + 21);
    assert_eq!(ann.priority, 5 + 10_000 + 21);
    assert_eq!(sub(&paul, ComponentKind::Cred, "USER").value, -1000.0);
}

#[test]
fn xfactor_table_of_the_guide() {
    let c = cfg("XFACTORWEIGHT 100\nQUEUETIMEWEIGHT 0\n");
    let f = NoFairshare;
    let hours = [1, 2, 4, 8, 16];
    let one_hour_job = [2.00, 3.00, 5.00, 9.00, 17.0];
    let four_hour_job = [1.25, 1.50, 2.00, 3.00, 5.0];
    for (i, h) in hours.iter().enumerate() {
        for (wall, want) in [(1, one_hour_job[i]), (4, four_hour_job[i])] {
            let j = Job {
                walltime: Some(wall * HOUR_SECS),
                ..job("1", "u")
            };
            let b = job_priority(&ctx(&c, &f), &j, h * HOUR_SECS);
            assert_eq!(b.xfactor, want, "{wall}h job queued {h}h");
            assert_eq!(sub(&b, ComponentKind::Serv, "XFACTOR").value, want);
            assert_eq!(b.priority, (100.0 * want) as i64);
        }
    }
}

#[test]
fn xfminwclimit_and_xfactorcap() {
    // XFMINWCLIMIT 0:01:00: a 10 s job counts as a one-minute job, as
    // Maui 3.3 computes it: (queue time + walltime) / max(limit, walltime).
    assert_eq!(xfactor(600, 10, Some(60)), 610.0 / 60.0);
    assert_eq!(xfactor(0, 10, Some(60)), 10.0 / 60.0, "below 1 at first");
    assert_eq!(xfactor(600, 10, None), 61.0);
    assert_eq!(xfactor(600, 120, Some(60)), 6.0, "the limit only raises");
    let c = cfg("XFACTORWEIGHT 10\nXFACTORCAP 5\nQUEUETIMEWEIGHT 0\n");
    let b = job_priority(&ctx(&c, &NoFairshare), &job("1", "u"), 16 * HOUR_SECS);
    assert_eq!(b.xfactor, 17.0);
    assert_eq!(sub(&b, ComponentKind::Serv, "XFACTOR").value, 5.0);
    assert_eq!(b.priority, 50);
}

#[test]
fn queuetime_in_minutes_with_cap_and_qos_weight() {
    // QUEUETIMEWEIGHT[0] 20: queued 4:20:00 gives 20 * 260.
    let c = cfg("QUEUETIMEWEIGHT 20\n");
    let b = job_priority(
        &ctx(&c, &NoFairshare),
        &job("1", "u"),
        4 * HOUR_SECS + 20 * 60,
    );
    assert_eq!(b.priority, 20 * 260);
    // QUEUETIMECAP 10000 / QUEUETIMEWEIGHT 10: 40 minutes gives 10 * MIN(10000, 40).
    let c = cfg("QUEUETIMEWEIGHT 10\nQUEUETIMECAP 10000\n");
    assert_eq!(
        job_priority(&ctx(&c, &NoFairshare), &job("1", "u"), 2400).priority,
        400
    );
    let c = cfg("QUEUETIMEWEIGHT 10\nQUEUETIMECAP 100\n");
    assert_eq!(
        job_priority(&ctx(&c, &NoFairshare), &job("1", "u"), 260 * 60).priority,
        1000
    );
    // QOSCFG[special] QTWEIGHT=5000 raises the weight by 5000.
    let c =
        cfg("QOSCFG[special] QTWEIGHT=5000\nXFACTORWEIGHT 100\nQOSCFG[special] XFWEIGHT=1000\n");
    let j = Job {
        qos: Some("special".into()),
        ..job("1", "u")
    };
    let b = job_priority(&ctx(&c, &NoFairshare), &j, 600);
    assert_eq!(sub(&b, ComponentKind::Serv, "QUEUETIME").weight, 5001.0);
    assert_eq!(sub(&b, ComponentKind::Serv, "XFACTOR").weight, 1100.0);
}

#[test]
fn processor_equivalents_of_the_o2k_example() {
    // 25% of the processors and 50% of the memory of a 128-processor machine.
    let total = Resources::procs_mem(128, 64 * 1024);
    let req = Resources::procs_mem(32, 32 * 1024);
    assert_eq!(processor_equivalents(&req, &total), 64.0);
    let c = cfg("RESWEIGHT 1\nPEWEIGHT 10\nQUEUETIMEWEIGHT 0\n");
    let j = Job {
        tasks: 32,
        task: Resources::procs_mem(1, 1024),
        ..job("1", "u")
    };
    let ctx = PriorityContext {
        total,
        ..ctx(&c, &NoFairshare)
    };
    let b = job_priority(&ctx, &j, 0);
    assert_eq!(sub(&b, ComponentKind::Res, "PE").value, 64.0);
    assert_eq!(b.priority, 640);
}

/// 128 processors and 8 GPUs (one generic resource id).
fn gpu_cluster() -> Resources {
    let mut total = Resources::procs_mem(128, 64 * 1024);
    total.gres.set(0, 8);
    total
}

#[test]
fn processor_equivalents_count_generic_resources() {
    // One GPU of 8 is an eighth of the cluster: 16 of 128 processors.
    let total = gpu_cluster();
    let mut req = Resources::procs(1);
    req.gres.set(0, 1);
    assert_eq!(processor_equivalents(&req, &total), 16.0);
    // The largest share wins: 64 processors outweigh one GPU.
    let mut big = Resources::procs(64);
    big.gres.set(0, 1);
    assert_eq!(processor_equivalents(&big, &total), 64.0);
    // A typed request counts against its typed total too: of 2 a100
    // (id 1) among 8 GPUs, one a100 is half of them.
    let mut mixed = total;
    mixed.gres.set(1, 2);
    let mut typed = Resources::procs(1);
    typed.gres.set(0, 1);
    typed.gres.set(1, 1);
    assert_eq!(processor_equivalents(&typed, &mixed), 64.0);
    // Without generic resources in the cluster a request's are no share.
    assert_eq!(
        processor_equivalents(&req, &Resources::procs_mem(128, 64 * 1024)),
        1.0
    );
}

#[test]
fn pe_priority_counts_gpus() {
    let c = cfg("RESWEIGHT 1\nPEWEIGHT 10\nQUEUETIMEWEIGHT 0\n");
    let mut task = Resources::procs(1);
    task.gres.set(0, 1);
    let j = Job {
        tasks: 2,
        task,
        ..job("1", "u")
    };
    let ctx = PriorityContext {
        total: gpu_cluster(),
        ..ctx(&c, &NoFairshare)
    };
    // Two 1-proc 1-GPU tasks: 2 of 8 GPUs, 32 PE.
    let b = job_priority(&ctx, &j, 0);
    assert_eq!(sub(&b, ComponentKind::Res, "PE").value, 32.0);
    assert_eq!(b.priority, 320);
    // A running job's per-node GPUs count on each of its nodes.
    let r = Job {
        state: crate::model::JobState::Running,
        tasks: 2,
        task: Resources::procs(1),
        node_gres: j.task.gres,
        allocation: vec![
            crate::model::NodeTasks {
                node: "a".into(),
                tasks: 1,
            },
            crate::model::NodeTasks {
                node: "b".into(),
                tasks: 1,
            },
        ],
        ..job("2", "u")
    };
    let b = job_priority(&ctx, &r, 0);
    assert_eq!(sub(&b, ComponentKind::Res, "PE").value, 32.0);
}

#[test]
fn resource_subcomponents() {
    // DISKWEIGHT example: 12 tasks of 512 MB local disk, RESWEIGHT 10, DISKWEIGHT 100.
    let c = cfg("RESWEIGHT 10\nDISKWEIGHT 100\nQUEUETIMEWEIGHT 0\n");
    let j = Job {
        tasks: 12,
        task: Resources {
            procs: 1,
            mem: 0,
            swap: 0,
            disk: 512,
            ..Resources::ZERO
        },
        ..job("1", "u")
    };
    let b = job_priority(&ctx(&c, &NoFairshare), &j, 0);
    assert_eq!(b.priority, 10 * 100 * 12 * 512);
    // Node count only counts when asked for; PS is procs x walltime.
    let c = cfg("RESWEIGHT 1\nNODEWEIGHT 1000\nPSWEIGHT 1\nQUEUETIMEWEIGHT 0\n");
    let b = job_priority(&ctx(&c, &NoFairshare), &j, 0);
    assert_eq!(sub(&b, ComponentKind::Res, "NODE").value, 0.0);
    assert_eq!(sub(&b, ComponentKind::Res, "PS").value, 12.0 * 3600.0);
    let j = Job {
        nodes: Some(3),
        ..j
    };
    let b = job_priority(&ctx(&c, &NoFairshare), &j, 0);
    assert_eq!(b.priority, 3000 + 12 * 3600);
    // RESCAP bounds the pre-weighted sum.
    let c = cfg("RESWEIGHT 5\nPROCWEIGHT 100\nRESCAP 400\nQUEUETIMEWEIGHT 0\n");
    let b = job_priority(&ctx(&c, &NoFairshare), &j, 0);
    assert_eq!(b.component(ComponentKind::Res).sum, 1200.0);
    assert_eq!(b.priority, 5 * 400);
}

#[test]
fn usage_component_for_running_jobs() {
    let c = cfg("USAGEWEIGHT 1\nUSAGEPERCENTWEIGHT 1\nQUEUETIMEWEIGHT 0\n");
    let j = Job {
        state: JobState::Running,
        start_time: Some(1_000_000 - 1800),
        tasks: 4,
        ..job("1", "u")
    };
    let b = job_priority(&ctx(&c, &NoFairshare), &j, 0);
    assert_eq!(sub(&b, ComponentKind::Usage, "CONSUMED").value, 7200.0);
    assert_eq!(sub(&b, ComponentKind::Usage, "REMAINING").value, 7200.0);
    assert_eq!(sub(&b, ComponentKind::Usage, "PERCENT").value, 50.0);
    assert_eq!(sub(&b, ComponentKind::Usage, "EXECUTIONTIME").value, 1800.0);
    assert_eq!(b.priority, 50);
    // Idle jobs have no usage.
    let b = job_priority(&ctx(&c, &NoFairshare), &job("2", "u"), 0);
    assert_eq!(b.component(ComponentKind::Usage).sum, 0.0);
}

#[test]
fn target_curve_grows_steeply_then_linearly() {
    assert_eq!(target_value(0.0), 0.0);
    assert!((target_value(1.0) - 100.0).abs() < 1e-9);
    assert!((target_value(0.9) - 50.0).abs() < 0.1);
    assert!((target_value(0.8) - 25.0).abs() < 0.1);
    assert!(target_value(0.5) < 3.1);
    let step = |a: f64, b: f64| target_value(b) - target_value(a);
    // Before the target each tenth roughly doubles what the previous one added.
    assert!(step(0.8, 0.9) > 1.9 * step(0.7, 0.8));
    // Once missed: still growing, by the same amount per step (not exponential).
    assert!((step(1.5, 2.0) - step(2.0, 2.5)).abs() < 1e-6);
    assert!(step(1.0, 1.1) > 0.0);

    let c = cfg(
        "TARGWEIGHT 1\nTARGETQUEUETIMEWEIGHT 1\nTARGETXFACTORWEIGHT 1\nQUEUETIMEWEIGHT 0\n\
         QOSCFG[fast] QTTARGET=4:00:00 XFTARGET=3.0\n",
    );
    let j = Job {
        qos: Some("fast".into()),
        walltime: Some(2 * HOUR_SECS),
        ..job("1", "u")
    };
    let at = |h: f64| job_priority(&ctx(&c, &NoFairshare), &j, (h * 3600.0) as Secs);
    let b = at(3.6);
    // 3.6 h of a 4 h target (90%); XFactor 2.8 is 90% of the way from 1 to 3.
    assert!((sub(&b, ComponentKind::Targ, "TARGETQUEUETIME").value - 50.0).abs() < 0.1);
    assert!((sub(&b, ComponentKind::Targ, "TARGETXFACTOR").value - 50.0).abs() < 0.1);
    assert!(at(1.0).priority < 10);
    assert!(at(4.0).priority >= 200);
    assert!(at(8.0).priority > at(6.0).priority);
    // Other QOS: no target, no contribution.
    let other = job_priority(&ctx(&c, &NoFairshare), &job("2", "u"), 4 * HOUR_SECS);
    assert_eq!(other.component(ComponentKind::Targ).contribution, 0.0);
}

#[test]
fn system_priority_is_above_every_calculated_one() {
    let c = cfg("QUEUETIMEWEIGHT 100000000\n");
    let j = job("1", "u");
    let b = job_priority(&ctx(&c, &NoFairshare), &j, 100_000 * HOUR_SECS);
    assert_eq!(b.priority, MAX_PRIO_VAL, "bounded by MAX_PRIO_VAL");
    let j = Job {
        system_priority: Some(5),
        ..j
    };
    let b = job_priority(&ctx(&c, &NoFairshare), &j, 0);
    assert_eq!(b.priority, 1_000_000_005, "setspri 5 gives 1 billion + 5");
    assert_eq!(b.calculated, 1);
}

#[test]
fn held_job_does_not_accrue_under_queuepolicy() {
    let p = JobPrioAccrualPolicy::QueuePolicy;
    let mut j = Job {
        holds: thin_vec::thin_vec![HoldKind::User],
        submit_time: 0,
        ..job("1", "u")
    };
    let mut acc = QueueAccrual::new(&j);
    for t in [60, 120, 180] {
        acc.update(p, &j, t, true, true);
    }
    assert_eq!(acc.effective(), 0, "held: no queue time");
    j.holds.clear();
    acc.update(p, &j, 240, true, true);
    assert_eq!(
        acc.effective(),
        0,
        "released at 240: the held interval is not credited"
    );
    acc.update(p, &j, 300, true, true);
    acc.update(p, &j, 360, true, true);
    assert_eq!(acc.accrued, 120);
    assert_eq!(
        acc.effective(),
        60,
        "priority reads the queue time recorded at the previous iteration"
    );
    // Failing an idle limit (MAXIJOB) stops accrual too.
    acc.update(p, &j, 420, false, false);
    acc.update(p, &j, 480, false, false);
    assert_eq!((acc.accrued, acc.effective()), (180, 180));

    // The same held job under ALWAYS counts from submission.
    let held = Job {
        holds: thin_vec::thin_vec![HoldKind::System],
        submit_time: 0,
        ..job("2", "u")
    };
    let mut acc = QueueAccrual::new(&held);
    acc.update(JobPrioAccrualPolicy::Always, &held, 600, false, false);
    assert_eq!(acc.effective(), 600);

    // And what it does to priority: QUEUETIMEWEIGHT 1 counts minutes.
    let c = cfg("");
    let snap_q = snapshot_queue_time(p, &held, 3600);
    assert_eq!(snap_q, 0);
    let b = job_priority(&ctx(&c, &NoFairshare), &held, snap_q);
    assert_eq!(b.priority, 1, "no queue time, lower bound 1");
    let free = Job {
        holds: thin_vec::thin_vec![],
        ..held
    };
    assert_eq!(snapshot_queue_time(p, &free, 3600), 3600);
}

#[test]
fn fullpolicy_needs_every_limit_and_dependency() {
    let p = JobPrioAccrualPolicy::FullPolicy;
    let j = job("1", "u");
    let t = 1_000_000;
    assert!(accrues(p, &j, t, true, true));
    assert!(!accrues(p, &j, t, true, false), "an active limit blocks");
    assert!(accrues(
        JobPrioAccrualPolicy::QueuePolicy,
        &j,
        t,
        true,
        false
    ));
    let dep = Job {
        dependency_satisfied: false,
        ..j.clone()
    };
    assert!(!accrues(p, &dep, t, true, true));
    assert!(accrues(
        JobPrioAccrualPolicy::QueuePolicy,
        &dep,
        t,
        true,
        true
    ));
    let later = Job {
        earliest_start: Some(t + 10),
        ..j.clone()
    };
    assert!(!accrues(
        JobPrioAccrualPolicy::QueuePolicy,
        &later,
        t,
        true,
        true
    ));
    assert!(accrues(
        JobPrioAccrualPolicy::QueuePolicy,
        &later,
        t + 10,
        true,
        true
    ));
    let running = Job {
        state: JobState::Running,
        ..j
    };
    assert!(!accrues(
        JobPrioAccrualPolicy::Always,
        &running,
        t,
        true,
        true
    ));
}

#[test]
fn accrual_record_round_trips_through_json() {
    let j = job("1", "u");
    let mut acc = QueueAccrual::new(&j);
    acc.update(JobPrioAccrualPolicy::QueuePolicy, &j, 1_000_060, true, true);
    let s = serde_json::to_string(&acc).unwrap();
    let back: QueueAccrual = serde_json::from_str(&s).unwrap();
    assert_eq!(back, acc);
    assert_eq!(back.effective(), 60);
}

fn snapshot() -> Snapshot {
    let mut s = Snapshot {
        now: Some(1_000_000 + 2 * HOUR_SECS),
        nodes: vec![Node {
            name: "n1".into(),
            configured: Resources::procs_mem(8, 8192),
            ..Node::default()
        }],
        jobs: vec![
            Job {
                tasks: 2,
                ..job("short", "ann")
            },
            Job {
                walltime: Some(8 * HOUR_SECS),
                ..job("long", "bob")
            },
            Job {
                holds: thin_vec::thin_vec![HoldKind::User],
                ..job("held", "ann")
            },
            Job {
                system_priority: Some(3),
                ..job("vip", "bob")
            },
        ],
        ..Snapshot::default()
    };
    s.normalize().unwrap();
    s
}

#[test]
fn diagnose_p_lists_idle_jobs_best_first() {
    let c = cfg("XFACTORWEIGHT 10\nRESWEIGHT 1\nPROCWEIGHT 5\n");
    let s = snapshot();
    let rows = diagnose_p_rows(&c, &s, &NoFairshare, s.now.unwrap());
    let ids: Vec<&str> = rows.iter().map(|r| r.job.as_str()).collect();
    assert_eq!(ids, ["vip", "short", "long"], "held jobs are not listed");
    // short: 120 min + 10 * (1 + 2/1) + 1 * 5 * 2 = 160.
    assert_eq!(rows[1].priority, 160);
    // long: 120 + 10 * (1 + 2/8) + 5 = 137.5 -> 137 (cut, as Maui stores it).
    assert_eq!(rows[2].priority, 137);
    let text = render_diagnose_p(&c, &rows);
    // Percentages: short = 120 min + 30 XFactor + 10 Res of 160.
    let want = "\
diagnosing job priority information (partition: ALL)

Job        PRIORITY*   Res(Proc)   Serv(QTime:XFctr)
Weights     --------     1(   5)      1(    1:   10)

vip      1000000003*  3.23(   1)  96.77(  120:    3)
short           160   6.25(   2)  93.75(  120:    3)
long            137   3.64(   1)  96.36(  120: 1.25)

Totals       100.00   4.37(4.37)  95.63(79.90:15.73)

* indicates system prio set on job
";
    assert_eq!(text, want);
    let v = diagnose_p_json(&c, &rows);
    assert_eq!(v["weights"]["SERV"]["subcomponents"]["XFACTOR"], 10);
    assert_eq!(v["jobs"][1]["priority"], 160);
}

proptest! {
    #[test]
    fn priority_is_monotone_in_queue_time(
        w in 1i64..100_000,
        q1 in 0i64..10_000_000,
        dq in 0i64..10_000_000,
        tasks in 1u32..512,
        wall in 1i64..1_000_000,
        bypass in 0u32..100,
    ) {
        let c = cfg(&format!("QUEUETIMEWEIGHT {w}\n"));
        let j = Job { tasks, walltime: Some(wall), bypass_count: bypass, ..job("1", "u") };
        let a = job_priority(&ctx(&c, &NoFairshare), &j, q1);
        let b = job_priority(&ctx(&c, &NoFairshare), &j, q1 + dq);
        prop_assert!(a.priority <= b.priority, "{} > {}", a.priority, b.priority);
        prop_assert!(a.raw <= b.raw);
    }
}

proptest! {
    /// `job_priority_value` gives `job_priority`'s priority and rejection
    /// for every mix of weights, caps, fairshare, negative priorities and
    /// system priorities (the quiet-poll check orders jobs by it).
    #[test]
    fn the_value_alone_is_the_breakdowns_priority(
        qt in -50i64..50,
        xf in -50i64..50,
        fs_w in 0i64..20,
        cap in prop::sample::select(vec![0i64, 5, 1000]),
        eff in 0i64..10_000_000,
        tasks in 1u32..512,
        wall in 1i64..1_000_000,
        bypass in 0u32..100,
        neg in any::<bool>(),
        sprio in prop::option::of(-5i64..5),
        // Zero weights hide values the value alone does not look up.
        cred_w in prop::sample::select(vec![0i64, 1]),
        user_w in prop::sample::select(vec![0i64, 3]),
        serv_w in prop::sample::select(vec![0i64, 1]),
        targ_w in prop::sample::select(vec![0i64, 1]),
        tqt_w in prop::sample::select(vec![0i64, 2]),
    ) {
        let c = cfg(&format!(
            "QUEUETIMEWEIGHT {qt}\nXFACTORWEIGHT {xf}\nSERVCAP {cap}\nBYPASSWEIGHT 3\n\
             PROCWEIGHT 2\nRESWEIGHT -1\nFSWEIGHT {fs_w}\nFSUSERWEIGHT 10\nFSGROUPWEIGHT 20\n\
             USERCFG[DEFAULT] FSTARGET=10\nGROUPCFG[staff] FSTARGET=30-\n\
             CREDWEIGHT {cred_w}\nUSERWEIGHT {user_w}\nUSERCFG[u] PRIORITY=40\n\
             SERVWEIGHT {serv_w}\nTARGWEIGHT {targ_w}\nTARGETQUEUETIMEWEIGHT {tqt_w}\n\
             QOSCFG[DEFAULT] QTTARGET=1:00:00 QTWEIGHT=4 XFWEIGHT=-2\n{}",
            if neg { "ENABLENEGJOBPRIORITY TRUE\nREJECTNEGPRIOJOBS TRUE\n" } else { "" }
        ));
        let usage: BTreeMap<(CredKind, String), f64> = [
            ((CredKind::User, "u".to_string()), 12.5),
            ((CredKind::Group, "staff".to_string()), 40.0),
        ]
        .into_iter()
        .collect();
        let j = Job {
            tasks,
            walltime: Some(wall),
            bypass_count: bypass,
            system_priority: sprio,
            ..job("1", "u")
        };
        let b = job_priority(&ctx(&c, &usage), &j, eff);
        let v = job_priority_value(&ctx(&c, &usage), &j, eff);
        prop_assert_eq!(v, (b.priority, b.rejected_negative));
        let parts = job_priority_parts(&ctx(&c, &usage), &j, eff);
        prop_assert_eq!(parts.priority, b.priority);
        let points: Vec<f64> = b.components.iter().map(|c| c.contribution).collect();
        prop_assert_eq!(parts.contributions.to_vec(), points);
    }
}

/// `job_priority_parts` files each component's points under its position
/// in `ComponentKind::ALL` (its discriminant).
#[test]
fn component_discriminants_are_positions() {
    for (k, kind) in ComponentKind::ALL.iter().enumerate() {
        assert_eq!(*kind as usize, k);
    }
}

#[test]
fn subcomponent_weights_count_without_their_component_weight_as_in_maui() {
    // Maui 3.3's code gives every component weight 1 by default
    // (MParSetDefaults): PROCWEIGHT alone ranks by processors, as a site's
    // maui.cfg with no RESWEIGHT line expects.
    let c = cfg("QUEUETIMEWEIGHT 0\nPROCWEIGHT 10\n");
    let mut j = job("1", "u");
    j.tasks = 4;
    let b = job_priority(&ctx(&c, &NoFairshare), &j, 0);
    assert_eq!(b.component(ComponentKind::Res).contribution, 40.0);
    assert_eq!(b.priority, 40);
    // RESWEIGHT 0 turns it off, as in Maui.
    let c = cfg("QUEUETIMEWEIGHT 0\nPROCWEIGHT 10\nRESWEIGHT 0\n");
    let b = job_priority(&ctx(&c, &NoFairshare), &j, 0);
    assert_eq!(b.component(ComponentKind::Res).contribution, 0.0);
}
