//! Throttling policies: the examples of the guide's 6.2 (Throttling
//! Policies) and 7.3 (QOS policy exemptions).

use super::limits::Violation;
use super::{check_active, check_idle, check_job_size, Totals, Usage, Verdict};
use crate::config::{Config, LimitKind};
use crate::model::time::HOUR;
use crate::model::{CredKind, Job, JobState, NodeTasks, Resources};

const NOW: i64 = 1_000_000;

fn cfg(text: &str) -> Config {
    let l = Config::parse(text, "maui.cfg");
    assert!(l.is_ok(), "{:?}", l.diagnostics);
    l.config
}

struct J {
    job: Job,
}

impl J {
    fn new(id: &str, user: &str) -> J {
        J {
            job: Job {
                id: id.into(),
                user: user.into(),
                group: "staff".into(),
                walltime: Some(HOUR),
                ..Job::default()
            },
        }
    }
    fn group(mut self, g: &str) -> J {
        self.job.group = g.into();
        self
    }
    fn class(mut self, c: &str) -> J {
        self.job.class = Some(c.into());
        self
    }
    fn qos(mut self, q: &str) -> J {
        self.job.qos = Some(q.into());
        self
    }
    fn nodes(mut self, n: u32) -> J {
        self.job.nodes = Some(n);
        self.job.tasks = n;
        self
    }
    fn procs(mut self, p: u32) -> J {
        self.job.tasks = p;
        self
    }
    fn running(mut self) -> J {
        self.job.state = JobState::Running;
        self.job.start_time = Some(NOW);
        let n = self.job.nodes.unwrap_or(1);
        self.job.allocation = (0..n)
            .map(|i| NodeTasks {
                node: format!("{}-{i}", self.job.id),
                tasks: 1,
            })
            .collect();
        self
    }
}

fn totals(j: &Job) -> Totals {
    Totals::of_job(j, NOW, 10 * 86_400, &Resources::procs(1024))
}

fn usage(conf: &Config, running: &[J]) -> Usage {
    let jobs: Vec<Job> = running.iter().map(|j| j.job.clone()).collect();
    Usage::from_jobs(conf, &jobs, NOW, 10 * 86_400, &Resources::procs(1024))
}

fn active(conf: &Config, j: &J, u: &Usage) -> Verdict {
    check_active(conf, &j.job, &totals(&j.job), u)
}

fn blocked_by(v: &Verdict) -> (LimitKind, String, u64) {
    match v {
        Verdict::Blocked(x) => (x.limit, x.cred_label(), x.max),
        other => panic!("expected Blocked, got {other:?}"),
    }
}

#[test]
fn simple_limit_default_and_john() {
    // USERCFG[DEFAULT] MAXJOB=4, USERCFG[john] MAXJOB=8: john may run 8
    // jobs, every other user 4.
    let conf = cfg("USERCFG[DEFAULT] MAXJOB=4\nUSERCFG[john] MAXJOB=8\n");
    let john: Vec<J> = (0..7)
        .map(|i| J::new(&format!("j{i}"), "john").running())
        .collect();
    let u = usage(&conf, &john);
    assert_eq!(active(&conf, &J::new("x", "john"), &u), Verdict::FitsSoft);
    let john: Vec<J> = (0..8)
        .map(|i| J::new(&format!("j{i}"), "john").running())
        .collect();
    let u = usage(&conf, &john);
    assert_eq!(
        blocked_by(&active(&conf, &J::new("x", "john"), &u)),
        (LimitKind::Job, "user john".into(), 8)
    );
    let amy: Vec<J> = (0..4)
        .map(|i| J::new(&format!("a{i}"), "amy").running())
        .collect();
    let u = usage(&conf, &amy);
    assert_eq!(
        blocked_by(&active(&conf, &J::new("x", "amy"), &u)),
        (LimitKind::Job, "user amy".into(), 4)
    );
    assert_eq!(active(&conf, &J::new("x", "bob"), &u), Verdict::FitsSoft);
    // An explicit -1 lifts the DEFAULT limit for that user.
    let conf = cfg("USERCFG[DEFAULT] MAXJOB=4\nUSERCFG[amy] MAXJOB=-1\n");
    let amy: Vec<J> = (0..10)
        .map(|i| J::new(&format!("a{i}"), "amy").running())
        .collect();
    let u = usage(&conf, &amy);
    assert_eq!(active(&conf, &J::new("x", "amy"), &u), Verdict::FitsSoft);
    let amy_cfg = conf.cred(CredKind::User, "amy").unwrap();
    assert_eq!(
        amy_cfg.render(),
        vec![("MAXJOB".to_string(), "-1".to_string())]
    );
}

const STEVE: &str = "USERCFG[steve] MAXJOB=2 MAXNODE=30\nGROUPCFG[staff] MAXJOB=5\n\
                     CLASSCFG[DEFAULT] MAXNODE=16\nCLASSCFG[batch] MAXNODE=32\n";

#[test]
fn steves_limits() {
    let conf = cfg(STEVE);
    // Steve may run up to 2 simultaneous jobs...
    let two = [
        J::new("1", "steve").class("batch").nodes(4).running(),
        J::new("2", "steve").class("batch").nodes(4).running(),
    ];
    let u = usage(&conf, &two);
    let v = active(&conf, &J::new("3", "steve").class("batch").nodes(1), &u);
    assert_eq!(blocked_by(&v), (LimitKind::Job, "user steve".into(), 2));
    assert_eq!(
        v.to_string(),
        "job violates active HARD MAXJOB limit of 2 for user steve (Req: 1, InUse: 2)"
    );
    // ... with an aggregate node consumption of 30 nodes.
    let one = [J::new("1", "steve").class("batch").nodes(20).running()];
    let u = usage(&conf, &one);
    assert_eq!(
        active(&conf, &J::new("2", "steve").class("batch").nodes(10), &u),
        Verdict::FitsSoft
    );
    assert_eq!(
        blocked_by(&active(
            &conf,
            &J::new("2", "steve").class("batch").nodes(11),
            &u
        )),
        (LimitKind::Node, "user steve".into(), 30)
    );
    // Class interactive with 14 nodes in use by others: steve's job is
    // blocked unless it requests 2 or fewer nodes (16 per class by default).
    let others = [
        J::new("a", "amy")
            .group("bio")
            .class("interactive")
            .nodes(8)
            .running(),
        J::new("b", "bob")
            .group("bio")
            .class("interactive")
            .nodes(6)
            .running(),
    ];
    let u = usage(&conf, &others);
    assert_eq!(
        active(
            &conf,
            &J::new("s", "steve").class("interactive").nodes(2),
            &u
        ),
        Verdict::FitsSoft
    );
    assert_eq!(
        blocked_by(&active(
            &conf,
            &J::new("s", "steve").class("interactive").nodes(3),
            &u
        )),
        (LimitKind::Node, "class interactive".into(), 16)
    );
    // Class batch has its own 32.
    let others = [J::new("a", "amy")
        .group("bio")
        .class("batch")
        .nodes(20)
        .running()];
    let u = usage(&conf, &others);
    assert_eq!(
        active(&conf, &J::new("s", "steve").class("batch").nodes(12), &u),
        Verdict::FitsSoft
    );
    assert_eq!(
        blocked_by(&active(
            &conf,
            &J::new("s", "steve").class("batch").nodes(13),
            &u
        )),
        (LimitKind::Node, "class batch".into(), 32)
    );
    // Group staff: 5 jobs.
    let staff: Vec<J> = (0..5)
        .map(|i| J::new(&format!("g{i}"), &format!("u{i}")).running())
        .collect();
    let u = usage(&conf, &staff);
    assert_eq!(
        blocked_by(&active(&conf, &J::new("x", "zed"), &u)),
        (LimitKind::Job, "group staff".into(), 5)
    );
}

#[test]
fn multi_dimension_limits() {
    // CLASSCFG[fast] MAXJOB[GROUP]=12, MAXPROC[USER:steve]=50;
    // CLASSCFG[batch] MAXJOB=3 MAXNODE[USER]=8.
    let conf = cfg(
        "CLASSCFG[fast] MAXJOB[GROUP]=12\nCLASSCFG[fast] MAXPROC[USER:steve]=50\n\
                    CLASSCFG[batch] MAXJOB=3 MAXNODE[USER]=8\n",
    );
    // Any group may have 12 jobs in class fast.
    let twelve: Vec<J> = (0..12)
        .map(|i| {
            J::new(&format!("f{i}"), &format!("u{i}"))
                .group("chem")
                .class("fast")
                .running()
        })
        .collect();
    let u = usage(&conf, &twelve);
    assert_eq!(
        blocked_by(&active(
            &conf,
            &J::new("x", "new").group("chem").class("fast"),
            &u
        )),
        (LimitKind::Job, "group chem, class fast".into(), 12)
    );
    assert_eq!(
        active(&conf, &J::new("x", "new").group("phys").class("fast"), &u),
        Verdict::FitsSoft
    );
    // Steve: 50 processors in class fast; bob has no such limit.
    let s = [J::new("s1", "steve").class("fast").procs(45).running()];
    let u = usage(&conf, &s);
    assert_eq!(
        blocked_by(&active(
            &conf,
            &J::new("s2", "steve").class("fast").procs(6),
            &u
        )),
        (LimitKind::Proc, "user steve, class fast".into(), 50)
    );
    assert_eq!(
        active(&conf, &J::new("s2", "steve").class("fast").procs(5), &u),
        Verdict::FitsSoft
    );
    assert_eq!(
        active(&conf, &J::new("b", "bob").class("fast").procs(60), &u),
        Verdict::FitsSoft
    );
    // Batch: 3 jobs in the class, any user up to 8 nodes within it.
    let b = [J::new("1", "amy").class("batch").nodes(6).running()];
    let u = usage(&conf, &b);
    assert_eq!(
        blocked_by(&active(
            &conf,
            &J::new("2", "amy").class("batch").nodes(3),
            &u
        )),
        (LimitKind::Node, "user amy, class batch".into(), 8)
    );
    assert_eq!(
        active(&conf, &J::new("2", "bob").class("batch").nodes(8), &u),
        Verdict::FitsSoft
    );
    let three = [
        J::new("1", "a").class("batch").running(),
        J::new("2", "b").class("batch").running(),
        J::new("3", "c").class("batch").running(),
    ];
    let u = usage(&conf, &three);
    assert_eq!(
        blocked_by(&active(&conf, &J::new("4", "d").class("batch"), &u)),
        (LimitKind::Job, "class batch".into(), 3)
    );
}

#[test]
fn per_user_attribute_forms_and_per_user_limits_in_class() {
    // CLASSCFG[fast] MAXPROC[USER:steve]=3 MAXPROC[USER:bob]=4, and the
    // MAXNODEPERUSER form.
    let conf = cfg("CLASSCFG[fast] MAXPROC[USER:steve]=3 MAXPROC[USER:bob]=4\nCLASSCFG[qexp] MAXNODEPERUSER=2\n");
    let u = usage(&conf, &[]);
    assert!(matches!(
        active(&conf, &J::new("s", "steve").class("fast").procs(4), &u),
        Verdict::Blocked(_)
    ));
    assert_eq!(
        active(&conf, &J::new("b", "bob").class("fast").procs(4), &u),
        Verdict::FitsSoft
    );
    assert_eq!(
        blocked_by(&active(
            &conf,
            &J::new("q", "amy").class("qexp").nodes(3),
            &u
        )),
        (LimitKind::Node, "user amy, class qexp".into(), 2)
    );
}

#[test]
fn qos_override_limits() {
    // 6.2.2: QOSCFG[hiprio] OMAXJOB=3 OMAXNODE=64 on top of steve's example.
    let conf = cfg(&format!("{STEVE}QOSCFG[hiprio] OMAXJOB=3 OMAXNODE=64\n"));
    let q = conf.cred(CredKind::Qos, "hiprio").unwrap();
    assert_eq!(q.overrides.len(), 2);
    assert!(q.limits.is_empty());
    // Total nodes used by steve's jobs may reach 64 (not 30)...
    let s = [J::new("1", "steve")
        .class("batch")
        .qos("hiprio")
        .nodes(40)
        .running()];
    let u = usage(&conf, &s);
    let more = J::new("2", "steve").class("batch").qos("hiprio").nodes(20);
    assert_eq!(active(&conf, &more, &u), Verdict::FitsSoft);
    // ... and so may class batch (not 32).
    let over = J::new("2", "steve").class("batch").qos("hiprio").nodes(25);
    let v = active(&conf, &over, &u);
    let Verdict::Blocked(x) = &v else {
        panic!("{v:?}")
    };
    assert_eq!(
        (x.limit, x.max, x.qos_override.as_deref()),
        (LimitKind::Node, 64, Some("hiprio"))
    );
    assert!(v.to_string().ends_with("[QOS hiprio override]"), "{v}");
    // Without the QOS the normal limits hold.
    let plain = J::new("2", "steve").class("batch").nodes(20);
    assert!(matches!(active(&conf, &plain, &u), Verdict::Blocked(_)));
    // Only 3 hiprio jobs may run simultaneously.
    let three = [
        J::new("1", "a").group("g").qos("hiprio").running(),
        J::new("2", "b").group("g").qos("hiprio").running(),
        J::new("3", "c").group("g").qos("hiprio").running(),
    ];
    let u = usage(&conf, &three);
    assert_eq!(
        blocked_by(&active(
            &conf,
            &J::new("4", "d").group("g").qos("hiprio"),
            &u
        )),
        (LimitKind::Job, "qos hiprio".into(), 3)
    );
    // Override limits belong to QOSCFG only.
    let l = Config::parse("USERCFG[x] OMAXJOB=3\n", "maui.cfg");
    assert!(l
        .diagnostics
        .iter()
        .any(|d| d.to_string().contains("QOSCFG only")));
}

#[test]
fn idle_job_limits_take_the_hard_value_only() {
    // USERCFG[steve] MAXIJOB=2 MAXIPROC=30 ... (6.2.3).
    let conf = cfg("USERCFG[steve] MAXIJOB=2 MAXIPROC=30\nGROUPCFG[staff] MAXIJOB=5\n\
                    CLASSCFG[DEFAULT] MAXIPROC=16\nCLASSCFG[batch] MAXIPROC=32\nQOSCFG[hiprio] MAXIJOB=3 MAXIPROC=64\n");
    let mut u = Usage::new(&conf);
    // Jobs are made eligible one at a time in priority order.
    let queue = [
        J::new("1", "steve").class("batch").procs(10),
        J::new("2", "steve").class("batch").procs(10),
        J::new("3", "steve").class("batch").procs(1),
    ];
    let mut eligible = Vec::new();
    for j in &queue {
        let t = totals(&j.job);
        if check_idle(&conf, &j.job, &t, &u) == Verdict::FitsSoft {
            u.add_idle(&j.job, &t);
            eligible.push(j.job.id.clone());
        }
    }
    assert_eq!(eligible, vec!["1", "2"]);
    let v = check_idle(&conf, &queue[2].job, &totals(&queue[2].job), &u);
    assert_eq!(blocked_by(&v), (LimitKind::IJob, "user steve".into(), 2));
    assert!(v
        .to_string()
        .starts_with("job violates idle HARD MAXIJOB limit of 2"));
    // Class default: 16 idle processors in any other class.
    let big = J::new("x", "amy").class("debug").procs(17);
    assert_eq!(
        blocked_by(&check_idle(
            &conf,
            &big.job,
            &totals(&big.job),
            &Usage::new(&conf)
        )),
        (LimitKind::IProc, "class debug".into(), 16)
    );
    // A soft idle value is ignored: MAXIJOB=1,3 allows three.
    let conf = cfg("USERCFG[DEFAULT] MAXIJOB=1,3\n");
    let mut u = Usage::new(&conf);
    for i in 0..3 {
        let j = J::new(&i.to_string(), "amy");
        let t = totals(&j.job);
        assert_eq!(check_idle(&conf, &j.job, &t, &u), Verdict::FitsSoft);
        u.add_idle(&j.job, &t);
    }
    let j = J::new("4", "amy");
    assert!(matches!(
        check_idle(&conf, &j.job, &totals(&j.job), &u),
        Verdict::Blocked(_)
    ));
    // Idle limits do not touch active checks and vice versa.
    assert_eq!(active(&conf, &j, &u), Verdict::FitsSoft);
}

#[test]
fn soft_and_hard_limits() {
    // USERCFG[DEFAULT] MAXJOB=2,8: jobs within 2 go in the soft pass, up to
    // 8 only in the hard pass.
    let conf = cfg("USERCFG[DEFAULT] MAXJOB=2,8\n");
    let running = |n: usize| -> Vec<J> {
        (0..n)
            .map(|i| J::new(&format!("r{i}"), "amy").running())
            .collect()
    };
    let u = usage(&conf, &running(1));
    let v = active(&conf, &J::new("x", "amy"), &u);
    assert_eq!(v, Verdict::FitsSoft);
    assert!(v.allows(false));
    let u = usage(&conf, &running(2));
    let v = active(&conf, &J::new("x", "amy"), &u);
    let Verdict::FitsHardOnly(x) = &v else {
        panic!("{v:?}")
    };
    assert_eq!((x.limit, x.max, x.hard), (LimitKind::Job, 2, false));
    assert!(!v.allows(false) && v.allows(true));
    assert!(v.to_string().contains("SOFT MAXJOB limit of 2"));
    let u = usage(&conf, &running(8));
    let v = active(&conf, &J::new("x", "amy"), &u);
    assert!(matches!(&v, Verdict::Blocked(x) if x.max == 8 && x.hard));
    assert!(!v.allows(true));

    // The guide's second example.
    let conf = cfg("USERCFG[steve] MAXJOB=2,4 MAXNODE=15,30\nGROUPCFG[staff] MAXJOB=2,5\n\
                    CLASSCFG[DEFAULT] MAXNODE=16,32\nCLASSCFG[batch] MAXNODE=12,32\nQOSCFG[hiprio] MAXJOB=3,5 MAXNODE=32,64\n");
    let s = [J::new("1", "steve").class("batch").nodes(10).running()];
    let u = usage(&conf, &s);
    // 10 + 4 nodes: over batch's soft 12, within every hard limit.
    let v = active(&conf, &J::new("2", "steve").class("batch").nodes(4), &u);
    let Verdict::FitsHardOnly(x) = &v else {
        panic!("{v:?}")
    };
    assert_eq!(
        (x.limit, x.cred_label(), x.max),
        (LimitKind::Node, "class batch".into(), 12)
    );
    // 10 + 21: over steve's hard 30.
    let v = active(&conf, &J::new("2", "steve").class("batch").nodes(21), &u);
    assert_eq!(blocked_by(&v), (LimitKind::Node, "user steve".into(), 30));
}

#[test]
fn processor_seconds_and_walltime_outstanding() {
    // A 4-processor job completing in 1 hour and a 2-processor job
    // completing in 6 hours: 4*1*3600 + 2*6*3600 = 16*3600 outstanding.
    let conf = cfg("USERCFG[DEFAULT] MAXPS=72000 MAXWC=8:00:00\n");
    let mut a = J::new("a", "amy").procs(4).running();
    a.job.start_time = Some(NOW - 2 * HOUR);
    a.job.walltime = Some(3 * HOUR);
    let mut b = J::new("b", "amy").procs(2).running();
    b.job.walltime = Some(6 * HOUR);
    let u = usage(&conf, &[a, b]);
    let scope = vec![(CredKind::User, "amy".to_string())];
    assert_eq!(u.active(&scope).ps, 16 * 3600);
    assert_eq!(u.active(&scope).wc, 7 * 3600);
    // One more processor for one hour stays within 72000 ps and 8 h.
    assert_eq!(
        active(&conf, &J::new("c", "amy").procs(1), &u),
        Verdict::FitsSoft
    );
    let v = active(&conf, &J::new("c", "amy").procs(5), &u);
    assert_eq!(blocked_by(&v), (LimitKind::Ps, "user amy".into(), 72000));
    let mut long = J::new("c", "amy");
    long.job.walltime = Some(2 * HOUR);
    let v = active(&conf, &long, &u);
    assert_eq!(blocked_by(&v), (LimitKind::Wc, "user amy".into(), 8 * 3600));
    assert_eq!(
        v.to_string(),
        "job violates active HARD MAXWC limit of 08:00:00 for user amy (Req: 02:00:00, InUse: 07:00:00)"
    );
}

#[test]
fn memory_and_processor_equivalent_limits() {
    let conf = cfg("GROUPCFG[DEFAULT] MAXMEM=2048 MAXPE=8\n");
    let total = Resources::procs_mem(16, 16384);
    let mut j = J::new("m", "amy").procs(1);
    j.job.task = Resources::procs_mem(1, 4096);
    // 4096 MB of 16384: a quarter of the machine, 4 processor equivalents.
    let t = Totals::of_job(&j.job, NOW, HOUR, &total);
    assert_eq!((t.mem, t.pe), (4096, 4.0));
    let u = Usage::new(&conf);
    let v = check_active(&conf, &j.job, &t, &u);
    assert_eq!(blocked_by(&v), (LimitKind::Mem, "group staff".into(), 2048));
    let conf = cfg("GROUPCFG[DEFAULT] MAXPE=3\n");
    let v = check_active(&conf, &j.job, &t, &Usage::new(&conf));
    assert_eq!(blocked_by(&v), (LimitKind::Pe, "group staff".into(), 3));
}

#[test]
fn system_limits_apply_to_everyone() {
    let conf = cfg("SYSCFG MAXJOB=3 MAXJOB[CLASS,USER]=1\n");
    let u = usage(
        &conf,
        &[
            J::new("1", "amy").class("batch").running(),
            J::new("2", "bob").class("batch").running(),
        ],
    );
    assert_eq!(
        blocked_by(&active(&conf, &J::new("3", "amy").class("batch"), &u)),
        (LimitKind::Job, "user amy, class batch".into(), 1)
    );
    assert_eq!(
        active(&conf, &J::new("3", "amy").class("long"), &u),
        Verdict::FitsSoft
    );
    let u = usage(
        &conf,
        &[
            J::new("1", "amy").class("a").running(),
            J::new("2", "bob").class("b").running(),
            J::new("3", "cat").class("c").running(),
        ],
    );
    assert_eq!(
        blocked_by(&active(&conf, &J::new("4", "dan").class("d"), &u)),
        (LimitKind::Job, "system".into(), 3)
    );
}

#[test]
fn qos_flags_exempt_jobs() {
    let base = "USERCFG[DEFAULT] MAXJOB=1 MAXPROC=4\nGROUPCFG[DEFAULT] MAXJOB=1\nSYSCFG MAXJOB=1\n";
    let u = |conf: &Config| usage(conf, &[J::new("r", "amy").group("g").running()]);
    let job = |q: &str| J::new("x", "amy").group("g").qos(q);
    let check = |flags: &str| {
        let conf = cfg(&format!("{base}QOSCFG[q] QFLAGS={flags}\n"));
        let v = active(&conf, &job("q"), &u(&conf));
        v.violation().map(|x| x.cred_label())
    };
    assert_eq!(check("NOBF"), Some("user amy".into()));
    assert_eq!(check("IGNUSER"), Some("group g".into()));
    assert_eq!(check("IGNJOBPERUSER"), Some("group g".into()));
    assert_eq!(check("IGNALL"), Some("system".into()));
    assert_eq!(check("IGNALL:IGNSYSTEM"), None);
    // IGNJOBPERUSER waives MAXJOB only, not MAXPROC.
    let conf = cfg(&format!(
        "{base}QOSCFG[q] QFLAGS=IGNJOBPERUSER:IGNGROUP:IGNSYSTEM\n"
    ));
    let v = active(&conf, &job("q").procs(5), &u(&conf));
    assert_eq!(blocked_by(&v), (LimitKind::Proc, "user amy".into(), 4));
    // The FLAGS attribute works as well (7.3 names both).
    let conf = cfg(&format!("{base}QOSCFG[q] FLAGS=IGNALL,IGNSYSTEM\n"));
    assert_eq!(active(&conf, &job("q"), &u(&conf)), Verdict::FitsSoft);
}

#[test]
fn usage_is_incremental() {
    let conf = cfg("USERCFG[DEFAULT] MAXJOB=2\nCLASSCFG[batch] MAXPROC[USER]=8\n");
    let mut u = Usage::new(&conf);
    let a = J::new("a", "amy").class("batch").procs(4);
    for _ in 0..2 {
        assert_eq!(active(&conf, &a, &u), Verdict::FitsSoft);
        u.add_active(&a.job, &totals(&a.job));
    }
    assert!(matches!(active(&conf, &a, &u), Verdict::Blocked(_)));
    assert_eq!(
        u.active(&[
            (CredKind::User, "amy".into()),
            (CredKind::Class, "batch".into())
        ])
        .procs,
        8
    );
    // Scopes no limit uses are not tracked.
    assert_eq!(
        u.active(&[(CredKind::Group, "staff".into())]),
        Totals::default()
    );
    u.remove_active(&a.job, &totals(&a.job));
    assert_eq!(
        active(&conf, &J::new("b", "amy").class("batch").procs(4), &u),
        Verdict::FitsSoft
    );
}

#[test]
fn node_count_before_and_after_placement() {
    let conf = cfg("USERCFG[DEFAULT] MAXNODE=2\n");
    let u = Usage::new(&conf);
    // Ten tasks with no node count: at least one node...
    let j = J::new("a", "amy").procs(10);
    let mut t = totals(&j.job);
    assert_eq!(t.nodes, 1);
    assert_eq!(check_active(&conf, &j.job, &t, &u), Verdict::FitsSoft);
    // ... and once placed on three nodes the caller says so.
    t.nodes = 3;
    assert!(matches!(
        check_active(&conf, &j.job, &t, &u),
        Verdict::Blocked(_)
    ));
    // ppn: tasks / tasks-per-node.
    let mut k = J::new("b", "amy").procs(8);
    k.job.tasks_per_node = Some(2);
    assert_eq!(totals(&k.job).nodes, 4);
}

#[test]
fn system_job_size_limits() {
    let conf = cfg(
        "SYSTEMMAXPROCPERJOB 64\nSYSTEMMAXJOBWALLTIME 2:00:00\nQOSCFG[big] QFLAGS=IGNSYSMAXPROC\n",
    );
    assert!(check_job_size(&conf, &J::new("a", "amy").procs(64).job).is_ok());
    let e = check_job_size(&conf, &J::new("a", "amy").procs(65).job).unwrap_err();
    assert_eq!(
        e.to_string(),
        "job exceeds SYSTEMMAXPROCPERJOB (requested 65, limit 64)"
    );
    assert!(check_job_size(&conf, &J::new("a", "amy").qos("big").procs(65).job).is_ok());
    let mut long = J::new("l", "amy");
    long.job.walltime = Some(3 * HOUR);
    assert_eq!(
        check_job_size(&conf, &long.job).unwrap_err().param,
        "SYSTEMMAXJOBWALLTIME"
    );
}

#[test]
fn violation_display_names_the_scope() {
    let v = Violation {
        limit: LimitKind::Proc,
        scope: vec![],
        owner: None,
        qos_override: None,
        hard: true,
        current: 90.0,
        request: 20.0,
        max: 100,
        gres: None,
    };
    assert_eq!(
        v.to_string(),
        "job violates active HARD MAXPROC limit of 100 for system (Req: 20, InUse: 90)"
    );
}

/// Moab's MAXGRES (not a Maui 3 limit): a user with MAXGRES[gpu]=2 runs two
/// one-GPU jobs; the third is blocked by MAXGRES for that user.
#[test]
fn maxgres_blocks_the_third_gpu_job() {
    let c = cfg("USERCFG[steve] MAXGRES[gpu]=2\nUSERCFG[DEFAULT] MAXGRES[gpu]=1,3\n");
    let names = vec!["gpu".to_string(), "tape".to_string()];
    let gpu_job = |id: &str, user: &str| {
        let mut j = J::new(id, user).procs(1).job;
        j.task = Resources::procs(1);
        j.task.gres.set(0, 1);
        j
    };
    let mut usage = Usage::new(&c).with_gres_names(&names);
    for id in ["1", "2"] {
        let j = gpu_job(id, "steve");
        assert_eq!(check_active(&c, &j, &totals(&j), &usage), Verdict::FitsSoft);
        usage.add_active(&j, &totals(&j));
    }
    let third = gpu_job("3", "steve");
    let v = check_active(&c, &third, &totals(&third), &usage);
    let Verdict::Blocked(x) = &v else {
        panic!("{v:?}")
    };
    assert_eq!(
        (x.limit, x.gres.as_deref(), x.cred_label(), x.max),
        (LimitKind::Gres, Some("gpu"), "user steve".into(), 2)
    );
    assert_eq!(
        v.to_string(),
        "job violates active HARD MAXGRES[gpu] limit of 2 for user steve (Req: 1, InUse: 2)"
    );
    // A job without GPUs is not held back by it.
    let cpu = J::new("4", "steve").procs(4).job;
    assert_eq!(
        check_active(&c, &cpu, &totals(&cpu), &usage),
        Verdict::FitsSoft
    );
    // Soft and hard from USERCFG[DEFAULT]: the second GPU is over the soft
    // limit, the fourth over the hard one.
    let mut usage = Usage::new(&c).with_gres_names(&names);
    let j = gpu_job("5", "amy");
    usage.add_active(&j, &totals(&j));
    let v = check_active(&c, &j, &totals(&j), &usage);
    assert!(
        matches!(&v, Verdict::FitsHardOnly(x) if x.limit == LimitKind::Gres && !x.hard),
        "{v:?}"
    );
    usage.add_active(&j, &totals(&j));
    usage.add_active(&j, &totals(&j));
    assert!(matches!(
        check_active(&c, &j, &totals(&j), &usage),
        Verdict::Blocked(_)
    ));
    // A limit on a name no node offers never blocks.
    let c = cfg("USERCFG[steve] MAXGRES[fpga]=0\n");
    let usage = Usage::new(&c).with_gres_names(&names);
    assert_eq!(
        check_active(&c, &third, &totals(&third), &usage),
        Verdict::FitsSoft
    );
}
