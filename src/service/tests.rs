//! The service driven from Rust, as a front end drives it: open, iterate,
//! operator changes checked against the caller's level, reconfigure,
//! checkpoint, and the last good maui.cfg.

use super::*;
use crate::admin::{Caller, ErrorCode, HoldTypes, Level, Mutation, SchedCtl};
use crate::config::BackfillPolicy;
use crate::engine::{ActionKind, Reason};
use crate::reservation::AdminRequest;

const T0: Time = 1_000_000;

/// Two nodes of two processors: R runs on n1 (one processor), I1 and I2
/// wait (one task each), BIG can never fit now (five tasks), U is held
/// by its owner.
const SNAP: &str = r#"{"nodes": [{"name": "n1", "configured": {"procs": 2}}, {"name": "n2", "configured": {"procs": 2}}],
 "jobs": [
  {"id": "R", "user": "u1", "group": "g", "state": "running", "start_time": 999000, "walltime": 7200, "allocation": [{"node": "n1", "tasks": 1}]},
  {"id": "I1", "user": "u2", "group": "g", "submit_time": 999100, "tasks": 1, "walltime": 3600},
  {"id": "I2", "user": "u3", "group": "g", "submit_time": 999200, "tasks": 1, "walltime": 3600},
  {"id": "BIG", "user": "u3", "group": "g", "submit_time": 999300, "tasks": 5, "walltime": 3600},
  {"id": "U", "user": "u4", "group": "g", "submit_time": 999400, "tasks": 1, "walltime": 3600, "holds": ["user"]}
 ]}"#;

struct Dir(PathBuf);

impl Dir {
    fn new(name: &str) -> Dir {
        let d = std::env::temp_dir().join(format!("mauisched-svc-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        Dir(d)
    }

    fn cfg(&self) -> PathBuf {
        self.0.join("maui.cfg")
    }

    fn state(&self) -> PathBuf {
        self.0.join("state")
    }

    fn write_cfg(&self, text: &str) {
        std::fs::write(self.cfg(), text).unwrap();
    }

    fn open(&self) -> Result<Service> {
        Service::open(
            &Options {
                config_path: self.cfg(),
                state_dir: self.state(),
                rm: None,
            },
            Notes::default(),
        )
    }
}

impl Drop for Dir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn snapshot(now: Time) -> Snapshot {
    let mut s = Snapshot::from_json(SNAP).unwrap();
    s.now = Some(now);
    s
}

fn iterate(svc: &mut Service, now: Time) -> Ran {
    svc.iterate(&mut snapshot(now)).unwrap()
}

/// A service on an empty maui.cfg in a fresh directory, after one
/// iteration at T0.
fn iterated(name: &str) -> (Dir, Service) {
    let d = Dir::new(name);
    d.write_cfg("");
    let mut svc = d.open().unwrap();
    iterate(&mut svc, T0);
    (d, svc)
}

fn caller(level: Level) -> Caller {
    Caller {
        uid: 1000,
        pid: 42,
        user: "op".into(),
        level,
    }
}

fn admin() -> Caller {
    caller(Level::Admin1)
}

fn apply(svc: &mut Service, m: Mutation) -> std::result::Result<String, (ErrorCode, String)> {
    svc.apply(&admin(), m)
        .map(|d| d.text)
        .map_err(|f| (f.code, f.message))
}

fn runjob(job: &str, nodes: Option<Vec<(&str, Option<u32>)>>) -> Mutation {
    Mutation::RunJob {
        job: job.into(),
        nodes: nodes.map(|l| l.into_iter().map(|(n, t)| (n.to_string(), t)).collect()),
    }
}

fn logged(svc: &Service, level: LogLevel, text: &str) -> bool {
    lock(svc.notes())
        .iter()
        .any(|(l, m)| *l == level && m.contains(text))
}

fn started(r: &Ran) -> Vec<&str> {
    r.plan.starts.iter().map(|s| s.job.as_str()).collect()
}

#[test]
fn runjob_is_validated_before_anything_changes() {
    let d = Dir::new("runjob");
    d.write_cfg("");
    let mut svc = d.open().unwrap();
    let code = |r: std::result::Result<String, (ErrorCode, String)>| r.unwrap_err().0;
    assert_eq!(
        code(apply(&mut svc, runjob("I1", None))),
        ErrorCode::NoIteration
    );
    iterate(&mut svc, T0);
    assert_eq!(
        code(apply(&mut svc, runjob("nope", None))),
        ErrorCode::NotFound
    );
    let (c, m) = apply(&mut svc, runjob("R", None)).unwrap_err();
    assert_eq!(c, ErrorCode::Refused);
    assert!(m.contains("only queued jobs"), "{m}");
    let (c, m) = apply(&mut svc, runjob("U", None)).unwrap_err();
    assert_eq!(c, ErrorCode::Refused);
    assert!(m.contains("hold in place"), "{m}");
    let (c, m) = apply(&mut svc, runjob("BIG", None)).unwrap_err();
    assert_eq!(c, ErrorCode::Refused);
    // The last plan started I1 and I2: one processor is left.
    assert!(m.contains("needs 5 task(s); only 1 fit"), "{m}");
    let nodes = Some(vec![("n9", None)]);
    assert_eq!(
        code(apply(&mut svc, runjob("I2", nodes))),
        ErrorCode::NotFound
    );
    let (c, m) = apply(&mut svc, runjob("I2", Some(vec![("n2", Some(3))]))).unwrap_err();
    assert_eq!(c, ErrorCode::Refused);
    assert!(m.contains("node n2 has room for"), "{m}");
    let (c, m) = apply(
        &mut svc,
        runjob("I2", Some(vec![("n2", Some(0)), ("n1", Some(0))])),
    )
    .unwrap_err();
    assert_eq!(c, ErrorCode::Refused);
    assert!(m.contains("only 0 fit on the nodes given"), "{m}");
    assert!(svc.engine().remembered().forced_starts.is_empty());

    let text = apply(&mut svc, runjob("I2", None)).unwrap();
    assert!(text.contains("job I2 will be started on n"), "{text}");
    assert!(logged(&svc, LogLevel::Info, "runjob by op"));
    let forced = &svc.engine().remembered().forced_starts;
    assert_eq!(forced.len(), 1);
    let node = forced[0].allocation[0].node.clone();
    let ran = iterate(&mut svc, T0 + 60);
    assert_eq!(started(&ran)[0], "I2", "a forced start heads the plan");
    assert_eq!(ran.plan.starts[0].allocation[0].node, node);
}

#[test]
fn holds_go_out_with_the_next_plan_and_release_cancels_a_pending_one() {
    let (_d, mut svc) = iterated("holds");
    let hold = |jobs: &[&str]| {
        Mutation::SetHold(
            jobs.iter().map(|j| j.to_string()).collect(),
            crate::admin::HoldTypes::System,
        )
    };
    let release = |jobs: &[&str]| {
        Mutation::ReleaseHold(
            jobs.iter().map(|j| j.to_string()).collect(),
            crate::admin::HoldTypes::System,
        )
    };
    // All or nothing: R runs, so I1 is not held either.
    let (c, _) = apply(&mut svc, hold(&["I1", "R"])).unwrap_err();
    assert_eq!(c, ErrorCode::Refused);
    assert!(!svc.engine().action_pending("I1", ActionKind::Hold));
    // A hold withdrawn before it went out sends nothing.
    apply(&mut svc, hold(&["I1"])).unwrap();
    assert!(svc.engine().action_pending("I1", ActionKind::Hold));
    apply(&mut svc, release(&["I1"])).unwrap();
    assert!(!svc.engine().action_pending("I1", ActionKind::Hold));
    assert!(!svc.engine().action_pending("I1", ActionKind::Release));
    // U has a user hold only: -s names the flag that releases it, -u
    // (or -a, the default) does.
    let (c, m) = apply(&mut svc, release(&["U"])).unwrap_err();
    assert_eq!(c, ErrorCode::Refused);
    assert!(
        m.contains("has no system hold (it has a user hold: releasehold -u"),
        "{m}"
    );
    let all =
        |jobs: &[&str], t| Mutation::ReleaseHold(jobs.iter().map(|j| j.to_string()).collect(), t);
    let (c, m) = apply(&mut svc, all(&["BIG"], HoldTypes::All)).unwrap_err();
    assert_eq!(c, ErrorCode::Refused);
    assert!(m.contains("job BIG has no hold"), "{m}");
    apply(&mut svc, all(&["U"], HoldTypes::All)).unwrap();
    assert!(svc.engine().action_pending("U", ActionKind::UserRelease));
    assert!(!svc.engine().action_pending("U", ActionKind::Release));
    // A user hold placed by an operator, withdrawn by releasehold -u.
    let uhold = Mutation::SetHold(vec!["BIG".into()], HoldTypes::User);
    apply(&mut svc, uhold).unwrap();
    assert!(svc.engine().action_pending("BIG", ActionKind::UserHold));
    apply(&mut svc, all(&["BIG"], HoldTypes::User)).unwrap();
    assert!(!svc.engine().action_pending("BIG", ActionKind::UserHold));
    assert!(!svc.engine().action_pending("BIG", ActionKind::UserRelease));

    apply(&mut svc, hold(&["I2"])).unwrap();
    // A held job is not forced.
    let (c, _) = apply(&mut svc, runjob("I2", None)).unwrap_err();
    assert_eq!(c, ErrorCode::Refused);
    let ran = iterate(&mut svc, T0 + 60);
    let actions: Vec<_> = ran
        .plan
        .actions
        .iter()
        .map(|a| (a.kind, a.job.as_str(), a.by.as_str()))
        .collect();
    assert_eq!(
        actions,
        vec![
            (ActionKind::UserRelease, "U", "op"),
            (ActionKind::Hold, "I2", "op")
        ]
    );
}

#[test]
fn canceljob_goes_out_with_the_next_plan_for_queued_and_running_jobs() {
    let (_d, mut svc) = iterated("cancel");
    let cancel = |jobs: &[&str]| Mutation::CancelJob(jobs.iter().map(|j| j.to_string()).collect());
    // Unknown jobs are named; nothing is cancelled.
    let (c, m) = apply(&mut svc, cancel(&["I1", "nope"])).unwrap_err();
    assert_eq!(c, ErrorCode::NotFound);
    assert!(m.contains("nope"), "{m}");
    assert!(!svc.engine().action_pending("I1", ActionKind::Cancel));
    // A user cancels only their own jobs, as in Maui.
    let user = Caller {
        uid: 4242,
        pid: 1,
        user: "mallory".into(),
        level: Level::User,
    };
    let f = svc.apply(&user, cancel(&["R"])).unwrap_err();
    assert_eq!(f.code, ErrorCode::PermissionDenied);
    assert_eq!(
        f.message,
        "user mallory is not authorized to cancel job 'R'"
    );
    // A hold waiting for I1 goes with it; the queued job is not planned.
    apply(
        &mut svc,
        Mutation::SetHold(vec!["I1".into()], HoldTypes::System),
    )
    .unwrap();
    let text = apply(&mut svc, cancel(&["I1", "R"])).unwrap();
    assert!(
        text.starts_with("job 'I1' cancelled\njob 'R' cancelled\n"),
        "{text}"
    );
    let ran = iterate(&mut svc, T0 + 60);
    let actions: Vec<_> = (ran.plan.actions.iter())
        .map(|a| (a.kind, a.job.as_str()))
        .collect();
    assert_eq!(
        actions,
        vec![(ActionKind::Cancel, "I1"), (ActionKind::Cancel, "R")]
    );
    assert!(ran.plan.job("I1").is_none());
    assert!(ran.plan.starts.iter().all(|s| s.job != "I1"));
}

#[test]
fn setres_is_placed_on_a_scratch_state() {
    let d = Dir::new("setres");
    d.write_cfg("");
    let mut svc = d.open().unwrap();
    let req = |tasks: u32| AdminRequest {
        tasks: Some(tasks),
        users: Some("u9".into()),
        resources: Some("PROCS=1".into()),
        duration: Some(7200),
        ..AdminRequest::default()
    };
    let e = svc.create_reservation(req(1), T0, None, false).unwrap_err();
    assert_eq!(e.kind, ErrorKind::NoIteration);
    iterate(&mut svc, T0);
    let before = serde_json::to_string(svc.engine().remembered()).unwrap();
    // A dry run and a refused request change nothing.
    let (probe, _) = svc.create_reservation(req(3), T0, None, true).unwrap();
    let e = svc.create_reservation(req(9), T0, None, false).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Refused, "{e}");
    assert_eq!(
        serde_json::to_string(svc.engine().remembered()).unwrap(),
        before
    );
    assert!(!svc.persist.admin_pending);

    let (r, nodes) = svc
        .create_reservation(req(3), T0, Some("op"), false)
        .unwrap();
    assert_eq!(r.id, probe.id);
    let mut nodes = nodes;
    nodes.sort();
    assert_eq!(nodes, ["n1:1", "n2:2"]);
    assert_eq!(svc.engine().admin_reservations().list().len(), 1);
    // The reservation holds every free processor: nothing starts.
    let ran = iterate(&mut svc, T0 + 60);
    assert!(
        ran.saved,
        "an operator change is written by the next iteration"
    );
    assert!(started(&ran).is_empty(), "{:?}", started(&ran));
    let (c, _) = apply(&mut svc, Mutation::ReleaseRes(vec!["nope".into()])).unwrap_err();
    assert_eq!(c, ErrorCode::NotFound);
    apply(&mut svc, Mutation::ReleaseRes(vec![r.id.clone()])).unwrap();
    assert!(svc.engine().admin_reservations().list().is_empty());
    assert_eq!(started(&iterate(&mut svc, T0 + 120)), ["I1", "I2"]);
}

#[test]
fn setspri_ranks_a_job_first_and_zero_clears() {
    let (_d, mut svc) = iterated("setspri");
    let spri = |job: &str, priority| Mutation::SetSpri {
        job: job.into(),
        priority,
    };
    assert_eq!(
        apply(&mut svc, spri("nope", 5)).unwrap_err().0,
        ErrorCode::NotFound
    );
    assert_eq!(
        apply(&mut svc, spri("I2", -1)).unwrap_err().0,
        ErrorCode::Usage
    );
    let e = svc
        .set_system_priority("I2", 2_000_000_000, None)
        .unwrap_err();
    assert_eq!(e.kind, ErrorKind::BadValue);
    apply(&mut svc, spri("I2", 5)).unwrap();
    assert_eq!(
        svc.engine().remembered().system_priority.get("I2"),
        Some(&5)
    );
    let ran = iterate(&mut svc, T0 + 60);
    let prio = |job| ran.plan.job(job).unwrap().priority;
    assert!(prio("I2") > prio("I1"), "system priority ranks first");
    apply(&mut svc, spri("I2", 0)).unwrap();
    assert!(svc.engine().remembered().system_priority.is_empty());
    assert_eq!(
        svc.clear_system_priority("I2").unwrap_err().kind,
        ErrorKind::NotFound
    );
}

#[test]
fn schedctl_stops_resumes_and_reconfigures() {
    let d = Dir::new("schedctl");
    d.write_cfg("RESERVATIONDEPTH 2\n");
    let mut svc = d.open().unwrap();
    iterate(&mut svc, T0);
    let text = apply(&mut svc, Mutation::Sched(SchedCtl::Stop { at: None })).unwrap();
    assert!(
        text.starts_with("scheduling will stop immediately at iteration 1\n"),
        "{text}"
    );
    let again = apply(&mut svc, Mutation::Sched(SchedCtl::Stop { at: None })).unwrap();
    assert!(again.contains("already stopped (by op"), "{again}");
    let ran = iterate(&mut svc, T0 + 60);
    assert!(started(&ran).is_empty());
    let i1 = ran.plan.job("I1").unwrap();
    assert!(
        matches!(i1.reason, Some(Reason::Stopped { .. })),
        "{:?}",
        i1.reason
    );
    // A forced start still goes out while stopped.
    apply(&mut svc, runjob("I1", None)).unwrap();
    assert_eq!(started(&iterate(&mut svc, T0 + 120)), ["I1"]);
    apply(&mut svc, Mutation::Sched(SchedCtl::Resume)).unwrap();
    assert!(svc.engine().stopped().is_none());
    let text = apply(&mut svc, Mutation::Sched(SchedCtl::Resume)).unwrap();
    assert!(text.contains("was not stopped"), "{text}");

    // -s N: scheduling goes on until iteration N has run, then stops.
    let it = 3; // iterations so far
    let text = apply(
        &mut svc,
        Mutation::Sched(SchedCtl::Stop { at: Some(it + 2) }),
    )
    .unwrap();
    assert_eq!(
        text,
        format!("scheduling will stop in 00:02:00 at iteration {}\n", it + 2)
    );
    iterate(&mut svc, T0 + 180);
    assert!(svc.engine().stopped().is_none());
    iterate(&mut svc, T0 + 240);
    assert!(
        svc.engine().stopped().is_some(),
        "stopped after iteration 5"
    );
    // -S 1 from a stop: one more iteration schedules, then it stops again.
    let text = apply(&mut svc, Mutation::Sched(SchedCtl::Step(1))).unwrap();
    assert!(text.contains("at iteration 6"), "{text}");
    assert!(svc.engine().stopped().is_none());
    iterate(&mut svc, T0 + 300);
    assert!(svc.engine().stopped().is_some());
    // -k stops (the host keeps running); -r resumes; -n lists the nodes as
    // resource trace lines that read back.
    apply(&mut svc, Mutation::Sched(SchedCtl::Resume)).unwrap();
    let text = apply(&mut svc, Mutation::Sched(SchedCtl::Kill)).unwrap();
    assert!(text.contains("keeps running"), "{text}");
    assert!(svc.engine().stopped().is_some());
    apply(&mut svc, Mutation::Sched(SchedCtl::Resume)).unwrap();
    let table = apply(&mut svc, Mutation::Sched(SchedCtl::NodeTable)).unwrap();
    let (recs, _) =
        crate::sim::mauitrace::read_resources(table.as_bytes(), "schedctl -n", Default::default())
            .unwrap();
    let nodes = crate::sim::mauitrace::resource_nodes(&recs);
    assert_eq!(
        nodes.len(),
        svc.engine().last().unwrap().view.cluster.nodes.len()
    );
    // resetstats starts the statistics afresh.
    let text = apply(&mut svc, Mutation::ResetStats).unwrap();
    assert!(text.starts_with("statistics reset on "), "{text}");

    d.write_cfg("BACKFILLPOLICY NONE\n");
    let text = apply(&mut svc, Mutation::Sched(SchedCtl::Reconfigure)).unwrap();
    assert!(text.contains("reloaded (0 warnings)"), "{text}");
    assert_eq!(svc.config().params.backfill_policy, BackfillPolicy::None);
    d.write_cfg("RESERVATIONDEPTH 2\nBACKFILLPOLICY NOPE\n");
    let (c, m) = apply(&mut svc, Mutation::Sched(SchedCtl::Reconfigure)).unwrap_err();
    assert_eq!(c, ErrorCode::Refused);
    assert!(m.contains("maui.cfg:2:"), "{m}");
    assert!(m.contains("previous configuration stays in force"), "{m}");
    assert_eq!(svc.config().params.backfill_policy, BackfillPolicy::None);
    assert!(logged(&svc, LogLevel::Error, "reconfigure refused"));
}

#[test]
fn changes_are_checked_against_the_callers_level() {
    let (_d, mut svc) = iterated("levels");
    let hold = Mutation::SetHold(vec!["I1".into()], crate::admin::HoldTypes::System);
    for level in [Level::User, Level::Admin3] {
        let f = svc.apply(&caller(level), hold.clone()).unwrap_err();
        assert_eq!(f.code, ErrorCode::PermissionDenied);
        assert!(f.message.contains("needs ADMIN2"), "{}", f.message);
    }
    assert!(!svc.engine().action_pending("I1", ActionKind::Hold));
    svc.apply(&caller(Level::Admin2), hold).unwrap();
    let stop = Mutation::Sched(SchedCtl::Stop { at: None });
    let f = svc.apply(&caller(Level::Admin2), stop.clone()).unwrap_err();
    assert_eq!(f.code, ErrorCode::PermissionDenied);
    assert!(svc.engine().stopped().is_none());
    svc.apply(&caller(Level::Admin1), stop).unwrap();
    assert!(svc.engine().stopped().is_some());
}

#[test]
fn checkpoints_follow_the_interval_and_operator_changes() {
    let d = Dir::new("checkpoint");
    d.write_cfg("CHECKPOINTINTERVAL 3600\n");
    let mut svc = d.open().unwrap();
    let ck = svc.state_dir().unwrap().checkpoint_path().to_path_buf();
    assert!(!ck.exists());
    assert!(iterate(&mut svc, T0).saved, "the first iteration writes");
    assert!(ck.exists());
    assert!(
        !iterate(&mut svc, T0 + 60).saved,
        "not before CHECKPOINTINTERVAL"
    );
    assert!(svc.unsaved());
    svc.set_system_priority("I1", 7, Some("op")).unwrap();
    assert!(
        iterate(&mut svc, T0 + 120).saved,
        "an operator change is written"
    );
    assert!(
        iterate(&mut svc, T0 + 120 + 3600).saved,
        "CHECKPOINTINTERVAL passed"
    );
    assert!(!iterate(&mut svc, T0 + 3780).saved);
    svc.checkpoint().unwrap();
    assert!(!svc.unsaved());
    svc.set_system_priority("I2", 9, None).unwrap();
    svc.shutdown();
    drop(svc);
    // A second service resumes what the first wrote, not before the first
    // lets go of the directory.
    let again = d.open().unwrap();
    let sp = &again.engine().remembered().system_priority;
    assert_eq!((sp.get("I1"), sp.get("I2")), (Some(&7), Some(&9)));
    assert_eq!(again.clock(), T0 + 3780);
    let e = d.open().err().unwrap();
    assert_eq!(e.kind, ErrorKind::State);
    assert!(e.message.contains("in use"), "{e}");
}

#[test]
fn a_bad_snapshot_is_refused_and_kept() {
    let d = Dir::new("badsnap");
    d.write_cfg("");
    let mut svc = d.open().unwrap();
    let mut snap = snapshot(T0);
    snap.jobs.push(snap.jobs[1].clone());
    let e = svc.iterate(&mut snap).err().unwrap();
    assert_eq!(e.kind, ErrorKind::BadSnapshot);
    assert_eq!(snap.jobs.len(), 6, "left as it was");
    assert!(svc.engine().last.is_none());
}

#[test]
fn every_clean_configuration_is_kept_as_the_last_good_copy() {
    let d = Dir::new("lastgood");
    d.write_cfg("RESERVATIONDEPTH 3\n");
    let copy = d.state().join(LAST_GOOD_CONFIG);
    let mut svc = d.open().unwrap();
    assert_eq!(
        std::fs::read_to_string(&copy).unwrap(),
        "RESERVATIONDEPTH 3\n"
    );
    assert!(svc.config_fallback().is_none());
    // A refused file leaves the copy alone; an accepted one replaces it.
    d.write_cfg("RESERVATIONDEPTH x\n");
    assert!(svc.reconfigure(None).is_err());
    assert_eq!(
        std::fs::read_to_string(&copy).unwrap(),
        "RESERVATIONDEPTH 3\n"
    );
    d.write_cfg("BACKFILLPOLICY NONE\n");
    svc.reconfigure(None).unwrap();
    assert_eq!(
        std::fs::read_to_string(&copy).unwrap(),
        "BACKFILLPOLICY NONE\n"
    );
    svc.shutdown();
    drop(svc);

    // The site's maui.cfg breaks while the scheduler is down: it starts on
    // the last good copy and says what is wrong, where.
    d.write_cfg("# site config\nBACKFILLPOLICY NOPE\n");
    let svc = d.open().unwrap();
    assert_eq!(svc.config().params.backfill_policy, BackfillPolicy::None);
    let why = svc.config_fallback().unwrap().to_string();
    let site = d.cfg().display().to_string();
    assert!(why.contains(&format!("{site}:2:")), "{why}");
    assert!(why.contains("BACKFILLPOLICY"), "{why}");
    assert!(why.contains(&copy.display().to_string()), "{why}");
    assert!(logged(&svc, LogLevel::Error, &why));
    assert_eq!(
        svc.config_path(),
        d.cfg(),
        "a reconfigure rereads the site's file"
    );
    // Running on the copy does not rewrite it.
    assert_eq!(
        std::fs::read_to_string(&copy).unwrap(),
        "BACKFILLPOLICY NONE\n"
    );
}

#[test]
fn a_refusal_for_the_same_errors_is_logged_once() {
    let d = Dir::new("refusedonce");
    d.write_cfg("RESERVATIONDEPTH 3\n");
    drop(d.open().unwrap());
    // Opened on the last good copy: the site file's errors are logged.
    d.write_cfg("RESERVATIONDEPTH banana\n");
    let mut svc = d.open().unwrap();
    let errors = |svc: &Service| {
        lock(svc.notes())
            .iter()
            .filter(|(l, m)| *l == LogLevel::Error && m.contains("banana"))
            .count()
    };
    assert_eq!(errors(&svc), 1);
    // Reconfigured on the same file (Slurm 24.11 does so right after
    // starting its scheduler): refused, not logged again.
    let e = svc.reconfigure(None).unwrap_err();
    assert!(e.message.contains("banana"), "{e}");
    assert_eq!(errors(&svc), 1);
    // Other errors are logged, once.
    d.write_cfg("RESERVATIONDEPTH banana\nBACKFILLPOLICY NOPE\n");
    assert!(svc.reconfigure(None).is_err());
    assert!(svc.reconfigure(None).is_err());
    assert_eq!(errors(&svc), 2);
    assert!(logged(&svc, LogLevel::Error, "NOPE"));
    // Accepted, then the first errors again: logged again.
    d.write_cfg("RESERVATIONDEPTH 2\n");
    svc.reconfigure(None).unwrap();
    d.write_cfg("RESERVATIONDEPTH banana\n");
    assert!(svc.reconfigure(None).is_err());
    assert_eq!(errors(&svc), 3);
}

#[test]
fn a_broken_configuration_without_a_last_good_copy_is_refused() {
    let d = Dir::new("nolastgood");
    d.write_cfg("BACKFILLPOLICY NOPE\n");
    let e = d.open().err().unwrap();
    assert_eq!(e.kind, ErrorKind::Config);
    assert!(e.message.contains("maui.cfg:1:"), "{e}");
    assert!(!d.state().join(LAST_GOOD_CONFIG).exists());
    // An unreadable maui.cfg is reported as it is, copy or not.
    d.write_cfg("");
    d.open().unwrap();
    std::fs::remove_file(d.cfg()).unwrap();
    assert_eq!(d.open().err().unwrap().kind, ErrorKind::Io);
}

#[test]
fn a_corrupt_or_future_fairshare_window_is_moved_aside_never_overwritten() {
    let d = Dir::new("fswindow");
    d.write_cfg("FSPOLICY DEDICATEDPS\nFSINTERVAL 1:00:00\n");
    let stats = d.state().join("stats");
    std::fs::create_dir_all(&stats).unwrap();
    // The current window at T0, damaged; and one from the far future that
    // would otherwise take every later save.
    let current = T0 - T0 % 3600;
    let damaged = "User u1 12.5\nUser u2 oops\nTOTAL 20\n";
    std::fs::write(stats.join(format!("FS.{current}")), damaged).unwrap();
    std::fs::write(stats.join("FS.99999999999"), "User x 1e300\nTOTAL 1e300\n").unwrap();
    let mut svc = d.open().unwrap();
    let errors: Vec<String> = lock(svc.notes())
        .iter()
        .filter(|(l, _)| *l == LogLevel::Error)
        .map(|(_, m)| m.clone())
        .collect();
    assert_eq!(errors.len(), 2, "{errors:?}");
    assert!(
        errors.iter().any(|m| m
            .contains(&format!("FS.{current}:2: error: expected a usage amount"))
            && m.contains(&format!(
                "(moved aside to {}/FS.{current}.corrupt-",
                stats.display()
            ))),
        "{errors:?}"
    );
    assert!(
        errors
            .iter()
            .any(|m| m.contains("a window from the future is never adopted (moved aside")),
        "{errors:?}"
    );
    assert!(svc.engine().remembered().fairshare.windows().is_empty());
    assert!(iterate(&mut svc, T0).saved);
    iterate(&mut svc, T0 + 60);
    svc.checkpoint().unwrap();
    // The window is written afresh; what the damaged file held is kept.
    let mut names: Vec<String> = std::fs::read_dir(&stats)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    assert_eq!(names.len(), 3, "{names:?}");
    assert_eq!(names[0], format!("FS.{current}"));
    assert!(
        names[1].starts_with(&format!("FS.{current}.corrupt-")),
        "{names:?}"
    );
    assert!(names[2].starts_with("FS.99999999999.corrupt-"), "{names:?}");
    assert_eq!(
        std::fs::read_to_string(stats.join(&names[1])).unwrap(),
        damaged
    );
    let fresh = std::fs::read_to_string(stats.join(&names[0])).unwrap();
    assert!(fresh.contains("User u1 60.000"), "{fresh}");
    assert!(!fresh.contains("u2"), "{fresh}");
    drop(svc);
    // Nothing is reported again at the next start.
    let again = d.open().unwrap();
    assert!(
        lock(again.notes())
            .iter()
            .all(|(l, _)| *l != LogLevel::Error),
        "{:?}",
        lock(again.notes())
    );
}

/// u1's usage in the current window (R runs one processor from 999000).
fn u1_usage(svc: &Service) -> f64 {
    svc.engine()
        .remembered()
        .fairshare
        .windows()
        .first()
        .map_or(0.0, |w| w.get(crate::model::CredKind::User, "u1"))
}

const FS_CFG: &str = "FSPOLICY DEDICATEDPS\nFSINTERVAL 12:00:00\nCHECKPOINTINTERVAL 1:00:00\n";

#[test]
fn a_crash_between_checkpoints_loses_no_fairshare() {
    let d = Dir::new("journal");
    d.write_cfg(FS_CFG);
    let mut svc = d.open().unwrap();
    assert!(iterate(&mut svc, T0).saved);
    for k in 1..=3 {
        assert!(!iterate(&mut svc, T0 + 60 * k).saved);
    }
    assert_eq!(u1_usage(&svc), 180.0);
    let journal = d.state().join(journal::JOURNAL_FILE);
    let lines = std::fs::read_to_string(&journal).unwrap();
    assert_eq!(
        lines.lines().count(),
        3,
        "one record per iteration:\n{lines}"
    );
    // A crash: nothing is written on the way out.
    drop(svc);
    let mut svc = d.open().unwrap();
    assert_eq!(u1_usage(&svc), 180.0, "the journal's records are applied");
    assert_eq!(svc.clock(), T0 + 180);
    assert!(
        lock(svc.notes())
            .iter()
            .any(|(_, m)| m.contains("3 iteration(s) since the checkpoint applied")),
        "{:?}",
        lock(svc.notes())
    );
    // Accrual goes on from there, counting nothing twice; the first
    // iteration's checkpoint empties the journal.
    assert!(iterate(&mut svc, T0 + 240).saved);
    assert_eq!(u1_usage(&svc), 240.0);
    assert_eq!(std::fs::read_to_string(&journal).unwrap(), "");
}

#[test]
fn a_crash_between_the_fs_files_and_the_checkpoint_counts_nothing_twice() {
    let d = Dir::new("journal-order");
    d.write_cfg(FS_CFG);
    let mut svc = d.open().unwrap();
    iterate(&mut svc, T0);
    let ck = svc.state_dir().unwrap().checkpoint_path().to_path_buf();
    let ck_before = std::fs::read(&ck).unwrap();
    iterate(&mut svc, T0 + 60);
    let journal = d.state().join(journal::JOURNAL_FILE);
    let records = std::fs::read(&journal).unwrap();
    // The checkpoint writes the FS files (u1 at 60), the checkpoint, then
    // empties the journal; the crash is put back to after the FS files.
    svc.checkpoint().unwrap();
    drop(svc);
    std::fs::write(&ck, ck_before).unwrap();
    std::fs::write(&journal, records).unwrap();
    let mut svc = d.open().unwrap();
    assert_eq!(u1_usage(&svc), 60.0);
    assert_eq!(svc.clock(), T0 + 60);
    iterate(&mut svc, T0 + 120);
    assert_eq!(u1_usage(&svc), 120.0, "not 180: (T0, T0+60] once");
}

#[test]
fn a_torn_journal_record_is_left_out_and_a_corrupt_journal_moved_aside() {
    let d = Dir::new("journal-torn");
    d.write_cfg(FS_CFG);
    let mut svc = d.open().unwrap();
    iterate(&mut svc, T0);
    iterate(&mut svc, T0 + 60);
    drop(svc);
    let journal = d.state().join(journal::JOURNAL_FILE);
    let good = std::fs::read_to_string(&journal).unwrap();
    // A record cut short by the crash: the complete ones are applied.
    std::fs::write(&journal, format!("{good}{{\"to\":{},\"wind", T0 + 120)).unwrap();
    let svc = d.open().unwrap();
    assert_eq!(u1_usage(&svc), 60.0);
    let notes = lock(svc.notes()).clone();
    assert!(
        notes.iter().any(|(l, m)| *l == LogLevel::Info
            && m.ends_with(
                ":2: the last record (19 bytes) was cut short by a crash and is left out"
            )),
        "{notes:?}"
    );
    drop(svc);
    // A damaged line before the end: nothing of it is trusted.
    let bad = format!("{{\"to\":{},\"windows\":[]}}\nnot json\n{good}", T0 + 30);
    std::fs::write(&journal, &bad).unwrap();
    let svc = d.open().unwrap();
    assert_eq!(
        u1_usage(&svc),
        0.0,
        "the checkpoint's state, no record applied"
    );
    let notes = lock(svc.notes()).clone();
    let e = notes
        .iter()
        .find(|(l, _)| *l == LogLevel::Error)
        .map(|(_, m)| m.clone())
        .unwrap_or_default();
    assert!(
        e.contains("fairshare journal cannot be trusted (")
            && e.contains(
                ":2: expected ident at line 1 column 2); nothing of it applied; moved aside to "
            ),
        "{e}"
    );
    let moved: Vec<_> = std::fs::read_dir(d.state())
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| {
            e.file_name()
                .to_string_lossy()
                .starts_with("fairshare.journal.corrupt-")
        })
        .collect();
    assert_eq!(moved.len(), 1);
    assert_eq!(std::fs::read_to_string(moved[0].path()).unwrap(), bad);
}

/// The kill test's iteration `k`: R runs throughout (u1, one processor),
/// and job F<k> of u2 ran one processor for 40 s before this iteration and
/// is reported finished only now, as an RM that forgets finished jobs
/// quickly does: its usage exists nowhere else once this iteration is gone.
fn kill_test_snapshot(k: i64) -> Snapshot {
    let now = T0 + 60 * k;
    let mut s = snapshot(now);
    s.jobs.retain(|j| j.id == "R");
    let mut f = s.jobs[0].clone();
    f.id = format!("F{k}");
    f.user = "u2".into();
    f.state = crate::model::JobState::Completed;
    f.start_time = Some(now - 50);
    f.end_time = Some(now - 10);
    f.allocation[0].node = "n2".into();
    s.jobs.push(f);
    s
}

const KILL_CFG: &str = "FSPOLICY DEDICATEDPS\nFSINTERVAL 1:00:00\nCHECKPOINTINTERVAL 0:10:00\n";

/// The child of [`a_kill_at_any_point_loses_at_most_the_interrupted_iteration`]:
/// does nothing unless that test runs it with MAUISCHED_KILL_TEST_DIR set.
/// Iterates as fast as it can, saying after each iteration which one it
/// finished, until it is killed.
#[test]
fn kill_test_child() {
    let Some(dir) = std::env::var_os("MAUISCHED_KILL_TEST_DIR") else {
        return;
    };
    let d = PathBuf::from(dir);
    let mut svc = Service::open(
        &Options {
            config_path: d.join("maui.cfg"),
            state_dir: d.join("state"),
            rm: None,
        },
        Notes::default(),
    )
    .unwrap();
    use std::io::Write;
    let mut out = std::io::stdout();
    for k in 0..100_000 {
        svc.iterate(&mut kill_test_snapshot(k)).unwrap();
        writeln!(out, "iteration-done {k}").unwrap();
        out.flush().unwrap();
    }
}

#[test]
fn a_kill_at_any_point_loses_at_most_the_interrupted_iteration() {
    use std::io::Read;
    use std::process::{Command, Stdio};
    // What u1 and u2 hold after each iteration, from an in-memory run.
    let cfg = Config::parse(KILL_CFG, "kill.cfg").config;
    let mut reference = Service::in_memory(cfg, Notes::default());
    let usage = |svc: &Service| -> (f64, f64) {
        let fs = &svc.engine().remembered().fairshare;
        let sum = |u: &str| -> f64 {
            fs.windows()
                .iter()
                .map(|w| w.get(crate::model::CredKind::User, u))
                .sum()
        };
        (sum("u1"), sum("u2"))
    };
    let mut expected = Vec::new();
    for k in 0..3000 {
        reference.iterate(&mut kill_test_snapshot(k)).unwrap();
        expected.push(usage(&reference));
    }
    let exe = std::env::current_exe().unwrap();
    let mut seed = std::process::id() as u64 ^ 0x9e37_79b9_7f4a_7c15;
    for trial in 0..16 {
        let d = Dir::new(&format!("kill{trial}"));
        d.write_cfg(KILL_CFG);
        let mut child = Command::new(&exe)
            .args([
                "--exact",
                "service::tests::kill_test_child",
                "--nocapture",
                "--test-threads=1",
            ])
            .env("MAUISCHED_KILL_TEST_DIR", &d.0)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        // A random moment, after the first few iterations (the child's start
        // is not what is tested), bounded so the test stays short.
        seed = seed
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        let mut stdout = child.stdout.take().unwrap();
        let mut seen = String::new();
        let mut buf = [0u8; 4096];
        let started = std::time::Instant::now();
        while !seen.contains("iteration-done 5\n") {
            let n = stdout.read(&mut buf).unwrap();
            assert!(n > 0, "the child ended early: {seen}");
            seen.push_str(&String::from_utf8_lossy(&buf[..n]));
            assert!(
                started.elapsed().as_secs() < 30,
                "the child is stuck: {seen}"
            );
        }
        std::thread::sleep(std::time::Duration::from_micros(seed >> 48));
        // SIGKILL: nothing runs on the way out.
        child.kill().unwrap();
        child.wait().unwrap();
        stdout.read_to_string(&mut seen).unwrap();
        let done: usize = seen
            .lines()
            .filter_map(|l| l.strip_prefix("iteration-done "))
            .filter_map(|n| n.parse().ok())
            .max()
            .unwrap();
        assert!(done + 1 < expected.len(), "the child ran too long");
        let notes = Notes::default();
        let svc = Service::open(
            &Options {
                config_path: d.cfg(),
                state_dir: d.state(),
                rm: None,
            },
            notes.clone(),
        )
        .unwrap();
        let got = usage(&svc);
        // The iteration the kill interrupted may have been journaled.
        assert!(
            got == expected[done] || got == expected[done + 1],
            "trial {trial} (seed {seed:x}): killed after iteration {done}: usage {got:?}, expected {:?} or {:?}",
            expected[done],
            expected[done + 1]
        );
        let errors: Vec<String> = lock(&notes)
            .iter()
            .filter(|(l, _)| matches!(l, LogLevel::Error | LogLevel::Warn))
            .map(|(_, m)| m.clone())
            .collect();
        assert!(errors.is_empty(), "no torn file: {errors:?}");
    }
}

#[test]
fn showstats_n_charges_each_interval_to_the_state_a_node_had() {
    let (_d, mut svc) = iterated("nodestats");
    // Nodes of 1000 MB; n2 goes down at T0 + 120.
    let mut at = |t: Time, down: bool| {
        let mut snap = snapshot(t);
        for n in &mut snap.nodes {
            n.configured.mem = 1000;
        }
        if down {
            snap.nodes[1].state = crate::model::NodeState::Down;
        }
        svc.iterate(&mut snap).unwrap();
    };
    // After T0: R and the jobs started then hold processors on both nodes.
    at(T0 + 60, false);
    at(T0 + 120, true);
    at(T0 + 150, true);
    let times: Vec<(&str, Time, Time, Time)> = (svc.stats.nodes.nodes().iter())
        .map(|n| (n.node.as_str(), n.total, n.up, n.busy))
        .collect();
    // n2 was down from T0 + 120 to T0 + 150: tracked, neither up nor busy.
    assert_eq!(times, [("n1", 150, 150, 150), ("n2", 150, 120, 120)]);
    let last = svc.engine.last.clone().unwrap();
    let text = crate::admin::nodestats::render(svc.engine.config(), &last, &svc.stats.nodes, false);
    assert!(
        text.contains(
            "Summary:    2 1000MB Nodes   90.00% Avail   90.00% Busy  (Current:  50.00% Avail"
        ),
        "{text}"
    );
    assert!(
        text.contains("                  n2    80.00%   100.00%      Down\n"),
        "{text}"
    );
}

/// PREEMPTPOLICY CHECKPOINT is refused for Slurm when maui.cfg is read (at
/// open, and on reconfigure, the previous configuration staying), not when
/// the first preemption comes; Torque's front end takes it.
#[test]
fn checkpoint_preemption_is_refused_for_slurm_when_maui_cfg_is_read() {
    let d = Dir::new("rm-checkpoint");
    d.write_cfg("PREEMPTPOLICY CHECKPOINT\n");
    let open = |rm: Option<&str>| {
        Service::open(
            &Options {
                config_path: d.cfg(),
                state_dir: d.state(),
                rm: rm.map(str::to_string),
            },
            Notes::default(),
        )
    };
    let e = open(Some("slurm")).err().unwrap();
    assert_eq!(e.kind, ErrorKind::Config);
    assert!(
        e.message
            .contains("PREEMPTPOLICY CHECKPOINT: Slurm cannot checkpoint jobs"),
        "{e}"
    );
    drop(open(Some("pbs")).unwrap());
    d.write_cfg("PREEMPTPOLICY SUSPEND\n");
    let mut svc = open(Some("slurm")).unwrap();
    d.write_cfg("PREEMPTPOLICY CHECKPOINT\n");
    assert!(svc.reconfigure(None).is_err());
    assert_eq!(
        svc.config().params.preempt_policy,
        crate::config::PreemptPolicy::Suspend
    );
}

/// `mauictl snapshot`'s document is the snapshot an iteration was given
/// with the memory it started from: a scheduler in memory started from it
/// decides exactly what the running one did, operators' changes (a
/// reservation, a system priority, a hold waiting to go out) and accrued
/// queue time included. One copy is kept, replaced by each iteration.
#[test]
fn the_kept_snapshot_replays_the_iteration() {
    let d = Dir::new("replay");
    d.write_cfg(
        "QUEUETIMEWEIGHT 1\nXFACTORWEIGHT 10\nRESERVATIONDEPTH 2\nFSPOLICY DEDICATEDPS\nFSWEIGHT 1\nFSUSERWEIGHT 10\nUSERCFG[u3] FSTARGET=50\n",
    );
    let mut svc = d.open().unwrap();
    assert!(svc.last_snapshot().is_none());
    iterate(&mut svc, T0);
    apply(
        &mut svc,
        Mutation::SetSpri {
            job: "I2".into(),
            priority: 5,
        },
    )
    .unwrap();
    apply(
        &mut svc,
        Mutation::SetHold(vec!["I1".into()], HoldTypes::System),
    )
    .unwrap();
    let req = AdminRequest {
        tasks: Some(1),
        users: Some("u9".into()),
        resources: Some("PROCS=1".into()),
        duration: Some(7200),
        ..AdminRequest::default()
    };
    svc.create_reservation(req, T0 + 10, Some("op"), false)
        .unwrap();
    let ran = iterate(&mut svc, T0 + 600);

    let doc = svc.last_snapshot().unwrap().document();
    let mut snap = Snapshot::from_json(&doc).unwrap();
    assert_eq!(snap.now, Some(T0 + 600));
    assert_eq!(snap.admin_reservations.as_ref().unwrap().records.len(), 1);
    let m = snap.state.as_deref().unwrap();
    assert_eq!(m.last_iteration, Some(T0));
    assert_eq!(m.system_priority.get("I2"), Some(&5));
    assert_eq!(m.pending_actions.len(), 1, "{m:?}");
    assert!(!m.queue_time.is_empty());
    assert!(!snap.fairshare.as_ref().unwrap().windows.is_empty());
    let mut replay =
        Service::in_memory_from_snapshot(svc.config().clone(), &mut snap, Notes::default());
    let again = replay.iterate(&mut snap).unwrap();
    assert_eq!(*again.plan, *ran.plan);
    assert!(
        !ran.plan.actions.is_empty() && !ran.plan.reservations.is_empty(),
        "{:?}",
        ran.plan
    );
    // Without the memory, the same snapshot decides otherwise.
    let mut bare = Snapshot::from_json(&doc).unwrap();
    bare.admin_reservations = None;
    bare.fairshare = None;
    bare.state = None;
    let mut fresh = Service::in_memory(svc.config().clone(), Notes::default());
    assert_ne!(*fresh.iterate(&mut bare).unwrap().plan, *ran.plan);

    // One copy is kept (the service's, shared with the admin socket's
    // view), the last iteration's: the one before is let go.
    let first = Arc::clone(svc.last_snapshot().unwrap());
    iterate(&mut svc, T0 + 1200);
    assert!(!Arc::ptr_eq(&first, svc.last_snapshot().unwrap()));
    assert_eq!(Arc::strong_count(&first), 1);
    assert_eq!(Arc::strong_count(svc.last_snapshot().unwrap()), 2);
}

/// `snapshot` on the admin socket needs ADMIN3, as Maui's reading views
/// of other users' work do; before any iteration there is none.
#[test]
fn the_snapshot_command_needs_admin3() {
    let d = Dir::new("snapshot-admin3");
    d.write_cfg("");
    let shared = Shared::new(d.open().unwrap());
    let backend = shared.backend();
    let req = crate::admin::Request {
        v: crate::admin::protocol::VERSION,
        cmd: "snapshot".into(),
        args: vec![],
        json: false,
    };
    let ask = |level| crate::admin::dispatch(&*backend, &caller(level), &req);
    let r = ask(Level::Admin3);
    assert_eq!(r.error.unwrap().code, ErrorCode::NoIteration);
    iterate(&mut shared.lock(), T0);
    let r = ask(Level::User);
    let e = r.error.unwrap();
    assert_eq!(e.code, ErrorCode::PermissionDenied);
    assert_eq!(e.needs.as_deref(), Some("ADMIN3"));
    assert!(
        e.message.starts_with("snapshot: permission denied"),
        "{}",
        e.message
    );
    for level in [Level::Admin3, Level::Admin1] {
        let r = ask(level);
        assert!(r.ok, "{:?}", r.error);
        let s = Snapshot::from_json(r.output.as_deref().unwrap()).unwrap();
        assert_eq!(s.now, Some(T0));
        assert_eq!(s.jobs.len(), 5);
    }
    let mut extra = req.clone();
    extra.args = vec!["-x".into()];
    let r = crate::admin::dispatch(&*backend, &caller(Level::Admin1), &extra);
    assert_eq!(r.error.unwrap().code, ErrorCode::Usage);
}

#[test]
fn an_iteration_lets_go_of_the_last_one_before_it_is_made() {
    // The published view shares the last iteration with the engine; were
    // it held while the next is made, two iterations (profiles, plan,
    // jobs) would be in memory at the peak, and the engine could not
    // reuse the last one's job buffers. Reused, the buffer is the same.
    let (_d, mut svc) = iterated("letgo");
    let socket_view = svc.published_handle();
    assert!(socket_view.now().last.is_some());
    let before = svc.engine().last().unwrap().jobs.as_ptr();
    iterate(&mut svc, T0 + 60);
    let after = svc.engine().last().unwrap();
    assert_eq!(
        after.jobs.as_ptr(),
        before,
        "the last iteration was still held"
    );
    let view = socket_view.now();
    assert!(!view.iterating);
    assert!(Arc::ptr_eq(view.last.as_ref().unwrap(), after));
    assert!(view.snapshot.is_some());
}

#[test]
fn readers_wait_for_the_view_of_the_iteration_under_way() {
    let (_d, svc) = iterated("settled");
    let slot = svc.published_handle();
    let done = Published::clone(&slot.now());
    slot.begin_iteration();
    let during = slot.now();
    assert!(during.iterating && during.last.is_none() && during.snapshot.is_none());
    // What the socket reads for itself (configuration, levels) is kept.
    assert!(Arc::ptr_eq(&during.cfg, &done.cfg));
    // A reader that gives up after its wait still sees the iteration.
    let t = std::time::Instant::now();
    assert!(slot.settled(std::time::Duration::from_millis(50)).iterating);
    assert!(t.elapsed() >= std::time::Duration::from_millis(50));
    let reader = {
        let slot = Arc::clone(&slot);
        std::thread::spawn(move || slot.settled(std::time::Duration::from_secs(60)))
    };
    std::thread::sleep(std::time::Duration::from_millis(100));
    slot.set(done);
    let seen = reader.join().unwrap();
    assert!(!seen.iterating && seen.last.is_some());
}

#[test]
fn a_reading_command_during_a_long_iteration_is_answered_busy() {
    use crate::admin::{Backend, Done, Failed, PublishedSlot, Request};
    /// The socket's backend with a short wait.
    struct Impatient(Arc<PublishedSlot>);
    impl Backend for Impatient {
        fn published(&self) -> Arc<Published> {
            self.0.now()
        }
        fn settled(&self) -> Arc<Published> {
            self.0.settled(std::time::Duration::from_millis(20))
        }
        fn mutate(&self, _: &Caller, _: Mutation) -> std::result::Result<Done, Failed> {
            unreachable!("reading commands only")
        }
        fn note(&self, _: LogLevel, _: String) {}
    }
    let (_d, svc) = iterated("busy");
    let backend = Impatient(svc.published_handle());
    let req = Request {
        v: crate::admin::protocol::VERSION,
        cmd: "showq".into(),
        args: Vec::new(),
        json: false,
    };
    let r = crate::admin::dispatch(&backend, &admin(), &req);
    assert!(r.error.is_none(), "{r:?}");
    backend.0.begin_iteration();
    let e = crate::admin::dispatch(&backend, &admin(), &req)
        .error
        .expect("busy");
    assert_eq!(e.code, ErrorCode::Busy, "{}", e.message);
    assert!(e.message.contains("still in an iteration"), "{}", e.message);
}
