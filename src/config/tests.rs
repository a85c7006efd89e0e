//! maui.cfg reader tests: the seeds' examples with the values their text
//! describes, real site files, malformed input with exact positions, and
//! robustness against arbitrary bytes.

use super::*;
use crate::model::time::{DAY, HOUR};
use crate::model::CredKind;
use proptest::prelude::*;

fn parse_ok(text: &str) -> Config {
    let l = Config::parse(text, "maui.cfg");
    let errs: Vec<String> = l.errors().map(|d| d.to_string()).collect();
    assert!(errs.is_empty(), "unexpected errors:\n{}", errs.join("\n"));
    l.config
}

/// The only error of `text`, rendered.
fn the_error(text: &str) -> String {
    let l = Config::parse(text, "maui.cfg");
    let errs: Vec<String> = l.errors().map(|d| d.to_string()).collect();
    assert_eq!(errs.len(), 1, "expected exactly one error, got {errs:#?}");
    errs[0].clone()
}

fn warnings(text: &str) -> Vec<String> {
    Config::parse(text, "maui.cfg")
        .diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Warning)
        .map(|d| d.to_string())
        .collect()
}

fn user(c: &Config, n: &str) -> CredCfg {
    c.cred(CredKind::User, n).cloned().unwrap_or_default()
}

// ---- 5.1.2 job priority factors ----------------------------------------------

#[test]
fn seed_priority_credential_example() {
    let c = parse_ok("USERCFG[paul]   PRIORITY=-1000\n");
    assert_eq!(user(&c, "paul").priority, Some(-1000));
}

#[test]
fn seed_priority_qos_weights() {
    let c = parse_ok("QOSCFG[special] QTWEIGHT=5000\nQOSCFG[special] XFWEIGHT=5000\n");
    let q = c.cred(CredKind::Qos, "special").unwrap();
    assert_eq!(
        (q.qt_weight, q.xf_weight),
        (Some(5000), Some(5000)),
        "several lines accumulate"
    );
}

#[test]
fn seed_priority_fairshare_weights() {
    let c = parse_ok(
        "FSWEIGHT 100\nFSUSERWEIGHT 10\nFSGROUPWEIGHT 20\nFSQOSWEIGHT 40\nFSCLASSWEIGHT 0\n",
    );
    let p = &c.params;
    assert_eq!(
        (
            p.fs_weight,
            p.fs_user_weight,
            p.fs_group_weight,
            p.fs_qos_weight,
            p.fs_class_weight
        ),
        (100, 10, 20, 40, 0)
    );
}

#[test]
fn seed_priority_qos_targets_old_and_new_forms() {
    let c = parse_ok(
        "QOSXFTARGET[3] 5.0\nQOSQTTARGET[3] 2:00:00\nQOSCFG[hi] XFTARGET=2.5 QTTARGET=30:00\n",
    );
    let q3 = c.cred(CredKind::Qos, "3").unwrap();
    assert_eq!((q3.xf_target, q3.qt_target), (Some(5.0), Some(2 * HOUR)));
    let hi = c.cred(CredKind::Qos, "hi").unwrap();
    assert_eq!((hi.xf_target, hi.qt_target), (Some(2.5), Some(1800)));
}

#[test]
fn defaults_follow_the_parameter_reference() {
    let p = Config::parse("", "maui.cfg").config.params;
    // Maui 3.3's code (MParSetDefaults, MPar.c): every component weight
    // 1, every subcomponent weight 0 but QUEUETIMEWEIGHT. Its guide says 0
    // for FSWEIGHT, RESWEIGHT, TARGWEIGHT and USAGEWEIGHT.
    assert_eq!(
        (
            p.cred_weight,
            p.fs_weight,
            p.res_weight,
            p.serv_weight,
            p.targ_weight,
            p.usage_weight,
        ),
        (1, 1, 1, 1, 1, 1)
    );
    assert_eq!(p.queuetime_weight, 1);
    assert_eq!(
        (
            p.user_weight,
            p.fs_user_weight,
            p.proc_weight,
            p.xfactor_weight,
            p.target_queuetime_weight,
            p.usage_consumed_weight,
        ),
        (0, 0, 0, 0, 0, 0)
    );
    assert_eq!(p.backfill_policy, BackfillPolicy::FirstFit);
    assert_eq!(p.backfill_metric, BackfillMetric::Procs);
    assert_eq!(p.reservation_policy, ReservationPolicy::CurrentHighest);
    assert_eq!(
        p.node_allocation_policy,
        NodeAllocationPolicy::LastAvailable
    );
    assert_eq!(p.node_access_policy, NodeAccessPolicy::Shared);
    assert_eq!(p.job_prio_accrual_policy, JobPrioAccrualPolicy::QueuePolicy);
    // Maui 3.3's DEFAULT_FSINTERVAL and DEFAULT_FSDEPTH (include/msched.h);
    // its guide says 24 hours and 7.
    assert_eq!(
        (p.fs_interval.0, p.fs_depth, p.fs_decay.0),
        (DAY / 2, 8, 1.0)
    );
    assert_eq!((p.res_depth, p.backfill_depth), (24, 0));
    // Maui 3.3's code (include/moab.h): both FALSE; its guide says TRUE
    // for REJECTNEGPRIOJOBS.
    assert!(!p.enable_neg_job_priority && !p.reject_neg_prio_jobs);
    assert_eq!(
        p.xf_min_wclimit.0,
        Some(120),
        "Maui 3.3's DEFAULT_XFMINWCLIMIT"
    );
    // Maui 3.3 has no SYSTEMDEFAULTJOBWALLTIME: a job without a walltime
    // gets MDEF_SYSJOBWCLIMIT (include/msched.h), 99:23:59:59.
    assert_eq!(p.system_default_job_walltime.0, 100 * DAY - 1);
    assert_eq!(p.rm_poll_interval.0, 60);
    assert_eq!(p.admin1.0, vec!["root".to_string()]);
    assert_eq!(p.stat_dir, "stats");
    assert_eq!(p.checkpoint_file, "maui.ck");
    let c = Config::default();
    let stacks = c.reservation_stacks();
    assert_eq!(stacks.len(), 1);
    assert_eq!(stacks[0].1.depth, 1);
}

// ---- 6.3 fairshare ---------------------------------------------------------------

#[test]
fn fsdepth_is_cut_to_mauis_24_windows_and_unused_settings_are_reported() {
    // Maui 3.3 keeps MAX_MFSDEPTH (24) windows and cuts a larger FSDEPTH
    // to it (MFS.c); mauisched does the same and says so.
    let l = Config::parse(
        "FSDEPTH 30\nNODEDOWNSTATEDELAYTIME 0:30:00\nCHECKPOINTEXPIRATIONTIME 1:00:00:00\nLOGFILEMAXSIZE 100000\nLOGFILEROLLDEPTH 4\n",
        "maui.cfg",
    );
    assert!(l.is_ok());
    assert_eq!(crate::fairshare::depth(&l.config), 24);
    let shown: Vec<String> = l.diagnostics.iter().map(|d| d.to_string()).collect();
    assert_eq!(
        shown[0],
        "maui.cfg:1:9: note: FSDEPTH: 30 windows asked for; Maui's limit, 24, is used"
    );
    // Read and not acted on: a warning where Maui would have decided
    // differently, a note where the RM's tools do the job.
    assert!(shown[1].starts_with("maui.cfg:2:1: warning: NODEDOWNSTATEDELAYTIME: not supported by mauisched (down and drained nodes are never planned on"), "{shown:?}");
    assert!(
        shown[2].starts_with("maui.cfg:3:1: warning: CHECKPOINTEXPIRATIONTIME: not supported"),
        "{shown:?}"
    );
    assert!(
        shown[3].starts_with("maui.cfg:4:1: note: LOGFILEMAXSIZE: not applicable"),
        "{shown:?}"
    );
    assert!(
        shown[4].starts_with("maui.cfg:5:1: note: LOGFILEROLLDEPTH: not applicable"),
        "{shown:?}"
    );
}

#[test]
fn seed_fairshare_john_parameters() {
    let c = parse_ok("FSINTERVAL 12:00:00\nFSDEPTH 4\nFSDECAY 0.5\n");
    assert_eq!(
        (
            c.params.fs_interval.0,
            c.params.fs_depth,
            c.params.fs_decay.0
        ),
        (12 * HOUR, 4, 0.5)
    );
}

#[test]
fn fairshare_policies_targets_and_long_intervals() {
    let c = parse_ok(
        "FSPOLICY DEDICATEDPS%\nFSINTERVAL 168:00:00\nUSERCFG[john] PRIORITY=100 FSTARGET=10.0-\n\
         GROUPCFG[staff] FSTARGET=25+\nACCOUNTCFG[DEFAULT] FSTARGET=100\nUSERCFG[bob] FSCAP=20%\n",
    );
    assert_eq!(c.params.fs_policy.metric, Some(FsMetric::DedicatedPs));
    assert!(c.params.fs_policy.percent);
    assert_eq!(c.params.fs_interval.0, 7 * DAY);
    assert_eq!(
        user(&c, "john").fs_target,
        Some(FsTarget {
            percent: 10.0,
            mode: FsTargetMode::Cap
        })
    );
    assert_eq!(
        c.cred(CredKind::Group, "staff")
            .unwrap()
            .fs_target
            .unwrap()
            .mode,
        FsTargetMode::Floor
    );
    assert_eq!(
        c.cred_default(CredKind::Account)
            .unwrap()
            .fs_target
            .unwrap()
            .percent,
        100.0
    );
    assert_eq!(
        user(&c, "bob").fs_cap,
        Some(FsCap {
            value: 20.0,
            percent: true
        })
    );
}

// ---- 5.2 node allocation -------------------------------------------------------------

#[test]
fn seed_node_allocation_examples() {
    let c = parse_ok("NODEALLOCATIONPOLICY PRIORITY\nNODECFG[DEFAULT] PRIORITYF='SPEED+ .01 * AMEM - 10 * JOBCOUNT'\n");
    assert_eq!(
        c.params.node_allocation_policy,
        NodeAllocationPolicy::Priority
    );
    assert_eq!(
        c.node_cfg("any").priorityf.unwrap().source,
        "SPEED+ .01 * AMEM - 10 * JOBCOUNT"
    );

    let c = parse_ok(
        "NODEALLOCATIONPOLICY PRIORITY\nNODECFG[DEFAULT] PRIORITYF='-LOAD - 5*USAGE'\n\n\
         NODECFG[batch1] PRIORITY=1000 PRIORITYF='PRIORITY + APROCS'\n\
         NODECFG[batch2] PRIORITY=1000 PRIORITYF='PRIORITY + APROCS'\n",
    );
    let b1 = c.node_cfg("batch1");
    assert_eq!(
        (b1.priority, b1.priorityf.unwrap().source.as_str()),
        (Some(1000), "PRIORITY + APROCS")
    );
    assert_eq!(
        c.node_cfg("desktop7").priorityf.unwrap().source,
        "-LOAD - 5*USAGE",
        "DEFAULT applies elsewhere"
    );

    let c = parse_ok("NODEALLOCATIONPOLICY PRIORITY\nNODECFG[DEFAULT] PRIORITYF=JOBCOUNT\n");
    assert!(c
        .node_cfg("x")
        .priorityf
        .unwrap()
        .uses(priorityf::Term::JobCount));
    let c =
        parse_ok("NODEALLOCATIONPOLICY PRIORITY\nNODECFG[DEFAULT] PRIORITYF='5 * PREF - LOAD'\n");
    assert!(c
        .node_cfg("x")
        .priorityf
        .unwrap()
        .uses(priorityf::Term::Pref));
}

#[test]
fn node_attributes() {
    let c = parse_ok("NODECFG[nodeA] MAXJOB=2 SPEED=1.2 PROCSPEED=950 PARTITION=old FEATURES=fast,tape ACCESS=SINGLEUSER\n");
    let n = c.node_cfg("nodeA");
    assert_eq!(
        (n.max_job, n.speed, n.procspeed),
        (Some(2), Some(1.2), Some(950))
    );
    assert_eq!(n.partition.as_deref(), Some("old"));
    assert_eq!(n.features.unwrap().0, vec!["fast", "tape"]);
    assert_eq!(n.access, Some(NodeAccessPolicy::SingleUser));
}

/// The guide's 12.4: NODECFG GRES, a repeated line keeping the names it
/// does not repeat, NODECFG[DEFAULT] for every node, shown by showconfig.
#[test]
fn node_gres_as_in_the_guide() {
    let c = parse_ok("NODECFG[titan001]  GRES=tape:4\nNODECFG[login32]   GRES=matlab:2,prime:4\nNODECFG[login32]   GRES=matlab:3\nNODECFG[DEFAULT] GRES=gpu:a100:2\n");
    assert_eq!(c.node_cfg("titan001").gres.unwrap().to_string(), "tape:4");
    assert_eq!(
        c.node_cfg("login32").gres.unwrap().to_string(),
        "matlab:3,prime:4"
    );
    assert_eq!(c.node_cfg("other").gres.unwrap().to_string(), "gpu:a100:2");
    let shown = super::render::showconfig(&c);
    assert!(shown.contains("GRES=matlab:3,prime:4"), "{shown}");
}

// ---- 7.1.5 reservations ---------------------------------------------------------------

const SR_EXAMPLE_1: &str = "
SRCFG[interactive] TASKCOUNT=6 RESOURCES=PROCS:1,MEM:512
SRCFG[interactive] PERIOD=DAY DAYS=MON,TUE,WED,THU,FRI
SRCFG[interactive] STARTTIME=9:00:00 ENDTIME=17:00:00
SRCFG[interactive] CLASSLIST=interactive
";

#[test]
fn seed_reservation_example_1_business_hours() {
    let c = parse_ok(SR_EXAMPLE_1);
    let sr = &c.standing["interactive"];
    assert_eq!(sr.task_count, 6);
    assert_eq!((sr.resources.procs, sr.resources.mem), (Some(1), 512));
    assert_eq!(sr.period, SrPeriod::Day);
    assert_eq!(
        sr.days.as_deref(),
        Some(
            &[
                WeekDay::Mon,
                WeekDay::Tue,
                WeekDay::Wed,
                WeekDay::Thu,
                WeekDay::Fri
            ][..]
        )
    );
    assert_eq!((sr.start, sr.end), (9 * HOUR, Some(17 * HOUR)));
    assert_eq!(sr.acl.classes.entries[0].name, "interactive");
    assert_eq!(sr.depth, 2, "DEPTH defaults to 2");
    assert_eq!(sr.access, ResAccess::Dedicated);
}

const SR_EXAMPLE_3: &str = "
SRCFG[interactive] DAYS=MON,TUE,WED,THU,FRI
SRCFG[interactive] PERIOD=DAY
SRCFG[interactive] STARTTIME=10:00:00 ENDTIME=15:00:00
SRCFG[interactive] RESOURCES=PROCS:2,MEM:256
SRCFG[interactive] HOSTLIST=node001,node002,node005,node020
SRCFG[interactive] TASKCOUNT=6
SRCFG[interactive] CLASSLIST=interactive

SRCFG[debug]       HOSTLIST=node001,node002,node003,node004
SRCFG[debug]       USERLIST=helpdesk
SRCFG[debug]       GROUPLIST=operations,sysadmin
SRCFG[debug]       PERIOD=INFINITY
";

#[test]
fn seed_reservation_examples_2_and_3_hosts_and_stacking() {
    let c = parse_ok(SR_EXAMPLE_3);
    let i = &c.standing["interactive"];
    let hosts = i.hostlist.as_ref().unwrap().expand().unwrap();
    assert_eq!(hosts, vec!["node001", "node002", "node005", "node020"]);
    assert_eq!(
        (i.task_count, i.resources.procs, i.resources.mem),
        (6, Some(2), 256)
    );
    let d = &c.standing["debug"];
    assert_eq!(d.period, SrPeriod::Infinity);
    assert_eq!(
        d.resources.procs, None,
        "no RESOURCES: all processors of each host"
    );
    assert_eq!(d.task_count, 0, "no TASKCOUNT: every listed host");
    assert_eq!(d.acl.users.entries[0].name, "helpdesk");
    let groups: Vec<&str> = d
        .acl
        .groups
        .entries
        .iter()
        .map(|e| e.name.as_str())
        .collect();
    assert_eq!(groups, vec!["operations", "sysadmin"]);
}

const SR_EXAMPLE_4: &str = "
SRCFG[special] TASKCOUNT=32
SRCFG[special] PERIOD=WEEK
SRCFG[special] STARTTIME=1:08:00:00
SRCFG[special] ENDTIME=5:17:00:00
SRCFG[special] NODEFEATURES=largememory
SRCFG[special] TIMELIMIT=1:00:00*
SRCFG[special] QOSLIST=high low special-
SRCFG[special] ACCCOUNTLIST=!projectX,!projectY
";

#[test]
fn seed_reservation_example_4_required_acl_affinity_and_not() {
    let l = Config::parse(SR_EXAMPLE_4, "maui.cfg");
    assert!(l.is_ok(), "{:#?}", l.diagnostics);
    // The guide spells ACCOUNTLIST with three Cs here; it is read, with a note.
    assert!(l
        .diagnostics
        .iter()
        .any(|d| d.severity == Severity::Note && d.message.contains("ACCCOUNTLIST")));
    let sr = &l.config.standing["special"];
    assert_eq!((sr.task_count, sr.period), (32, SrPeriod::Week));
    assert_eq!(
        (sr.start, sr.end),
        (DAY + 8 * HOUR, Some(5 * DAY + 17 * HOUR)),
        "Monday 8:00 to Friday 17:00"
    );
    assert_eq!(sr.node_features, vec!["largememory"]);
    assert_eq!(sr.acl.time_limit, Some((HOUR, true)));
    let q: Vec<(&str, Affinity)> = sr
        .acl
        .qos
        .entries
        .iter()
        .map(|e| (e.name.as_str(), e.affinity))
        .collect();
    assert_eq!(
        q,
        vec![
            ("high", Affinity::Positive),
            ("low", Affinity::Positive),
            ("special", Affinity::Negative)
        ]
    );
    assert!(sr.acl.accounts.entries.iter().all(|e| e.not));
    assert_eq!(sr.acl.accounts.entries.len(), 2);
}

#[test]
fn seed_reservation_example_5_owner_preempt() {
    let c = parse_ok(
        "ACCTCFG[jupiter] PRIORITY=10000\n\nSRCFG[jupiter] HOSTLIST=node0[1-9]\nSRCFG[jupiter] PERIOD=INFINITY\n\
         SRCFG[jupiter] ACCOUNTLIST=jupiter,saturn-\nSRCFG[jupiter] OWNER=ACCOUNT:jupiter\n\
         SRCFG[jupiter] FLAGS=OWNERPREEMPT\nSRCFG[jupiter] PERIOD=INFINITY\n",
    );
    assert_eq!(
        c.cred(CredKind::Account, "jupiter").unwrap().priority,
        Some(10000),
        "ACCTCFG is ACCOUNTCFG"
    );
    let sr = &c.standing["jupiter"];
    assert_eq!(sr.hostlist.as_ref().unwrap().expand().unwrap().len(), 9);
    assert_eq!(sr.owner, Some((CredKind::Account, "jupiter".into())));
    assert!(sr.has_flag(ResFlag::OwnerPreempt));
    assert_eq!(sr.acl.accounts.entries[1].affinity, Affinity::Negative);
}

#[test]
fn seed_reservation_attribute_table_examples() {
    let c = parse_ok(
        "SRCFG[test] ACCESS=SHARED\nSRCFG[test] CHARGEACCOUNT=jupiter\nSRCFG[test] FLAGS=BYNAME\n\
         SRCFG[test] HOSTLIST=node001,node002,node003\nSRCFG[test] RESOURCES=PROCS:2;MEM:512\nSRCFG[test] TASKCOUNT=2\n\
         SRCFG[test] JOBATTRLIST=PREEMPTEE\nSRCFG[test] OWNER=USER:tom\nSRCFG[test] PARTITION=OLD\n\
         SRCFG[test] USERLIST=bob,joe,mary\nSRCFG[2] TPN=4\nSRCFG[2] RESOURCES=PROCS:2;MEM:256\nSRCFG[2] TASKCOUNT=8\n",
    );
    let t = &c.standing["test"];
    assert_eq!(t.access, ResAccess::Shared);
    assert!(t.has_flag(ResFlag::ByName));
    assert_eq!(
        (t.task_count, t.resources.procs, t.resources.mem),
        (2, Some(2), 512)
    );
    assert_eq!(t.acl.job_attrs.entries[0].name, "PREEMPTEE");
    assert_eq!(t.partition.as_deref(), Some("OLD"));
    assert_eq!(t.acl.users.entries.len(), 3);
    assert_eq!(c.standing["2"].tpn, 4);
}

#[test]
fn old_standing_reservation_parameters_translate() {
    let l = Config::parse("SRSTARTTIME[1] 8:00:00\nSRENDTIME[1] 17:00:00\nSRDAYS[1] Mon Tue Wed\nSRTASKCOUNT[1] 20\nSRMAXTIME[1] 0:30:00\n", "maui.cfg");
    assert!(l.is_ok(), "{:#?}", l.diagnostics);
    let sr = &l.config.standing["1"];
    assert_eq!(
        (sr.start, sr.end, sr.task_count),
        (8 * HOUR, Some(17 * HOUR), 20)
    );
    assert_eq!(sr.days.as_ref().unwrap().len(), 3);
    assert_eq!(sr.acl.time_limit, Some((1800, false)));
}

// ---- throttling ---------------------------------------------------------------------

#[test]
fn throttling_limits_in_every_form() {
    let c = parse_ok(
        "USERCFG[steve] MAXJOB=2 MAXNODE=30\nUSERCFG[DEFAULT] MAXJOB=2,4 MAXPROC=16,32 MAXWC=10:00:00\n\
         GROUPCFG[staff] MAXJOB=5 MAXIJOB=10\nCLASSCFG[batch] MAXJOB[USER]=3 MAXPROC[USER:bob]=4\n\
         CLASSCFG[qexp] MAXNODE=32 MAXNODEPERUSER=8\nQOSCFG[hiprio] MAXJOB=3 MAXPROCS=80\nSYSCFG MAXJOB[CLASS,USER]=2 MAXPS=86400\n",
    );
    let find = |c: &CredCfg, n: &str| {
        c.limits
            .iter()
            .find(|l| l.attr_name() == n)
            .map(|l| l.value)
    };
    let steve = user(&c, "steve");
    assert_eq!(find(&steve, "MAXJOB"), Some(SoftHard { soft: 2, hard: 2 }));
    let d = c.cred_default(CredKind::User).unwrap();
    assert_eq!(find(d, "MAXJOB"), Some(SoftHard { soft: 2, hard: 4 }));
    assert_eq!(
        find(d, "MAXWC"),
        Some(SoftHard {
            soft: 36000,
            hard: 36000
        })
    );
    let batch = c.cred(CredKind::Class, "batch").unwrap();
    assert_eq!(
        find(batch, "MAXJOB[USER]"),
        Some(SoftHard { soft: 3, hard: 3 })
    );
    assert_eq!(
        find(batch, "MAXPROC[USER:bob]"),
        Some(SoftHard { soft: 4, hard: 4 })
    );
    assert_eq!(
        find(c.cred(CredKind::Class, "qexp").unwrap(), "MAXNODE[USER]"),
        Some(SoftHard { soft: 8, hard: 8 })
    );
    assert_eq!(
        find(c.cred(CredKind::Qos, "hiprio").unwrap(), "MAXPROC"),
        Some(SoftHard { soft: 80, hard: 80 })
    );
    assert_eq!(
        find(&c.system, "MAXJOB[CLASS,USER]"),
        Some(SoftHard { soft: 2, hard: 2 })
    );
    assert_eq!(
        find(&c.system, "MAXPS"),
        Some(SoftHard {
            soft: 86400,
            hard: 86400
        })
    );
}

#[test]
fn partition_indexed_and_stacked_parameters() {
    let c = parse_ok(
        "QUEUETIMEWEIGHT[0] 20\nRESWEIGHT[0] 5\nRESERVATIONDEPTH[0] 4\nRESERVATIONQOSLIST[0] 1 3 5\n\
         RESERVATIONDEPTH[1] 2\nRESERVATIONQOSLIST[1] high\nENABLENEGJOBPRIORITY[0] TRUE\n",
    );
    assert_eq!((c.params.queuetime_weight, c.params.res_weight), (20, 5));
    assert!(c.params.enable_neg_job_priority);
    let s = c.reservation_stacks();
    assert_eq!(s[0].1.depth, 4);
    assert_eq!(s[0].1.qos.0, vec!["1", "3", "5"]);
    assert_eq!((s[1].0.as_str(), s[1].1.depth), ("1", 2));
    let w = warnings("QUEUETIMEWEIGHT[2] 20\n");
    assert!(
        w[0].contains("partition-specific values are not supported"),
        "{w:?}"
    );
}

#[test]
fn syntax_details() {
    let c = parse_ok(
        "  fsdepth 5   # lower case names, comment after a value\nBACKFILLPOLICY\tBESTFIT\nFSDECAY .80\n\
         ENABLENEGJOBPRIORITY on\nREJECTNEGPRIOJOBS 0\nADMIN1 root e0joakim jo\nNODEAVAILABILITYPOLICY DEDICATED:PROCS COMBINED:MEM UTILIZED:SWAP\n\
         JOBNODEMATCHPOLICY EXACTNODE\nXFMINWCLIMIT 0:01:00\nSYSTEMDEFAULTJOBWALLTIME 1:00:00:00\n",
    );
    let p = &c.params;
    assert_eq!(
        (p.fs_depth, p.backfill_policy, p.fs_decay.0),
        (5, BackfillPolicy::BestFit, 0.8)
    );
    assert!(p.enable_neg_job_priority && !p.reject_neg_prio_jobs);
    assert_eq!(p.admin1.0.len(), 3);
    assert_eq!(
        p.node_availability_policy.procs,
        AvailabilityMode::Dedicated
    );
    assert_eq!(p.node_availability_policy.swap, AvailabilityMode::Utilized);
    assert!(p.job_node_match_policy.exact_node);
    assert_eq!(
        (p.xf_min_wclimit.0, p.system_default_job_walltime.0),
        (Some(60), DAY)
    );
}

// ---- real site files ------------------------------------------------------------------

fn shared_configs() -> Option<std::path::PathBuf> {
    let d = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/configs");
    if d.is_dir() {
        Some(d)
    } else {
        eprintln!("skipped: ../shared/configs is absent (the project's shared folder is not beside the checkout)");
        None
    }
}

#[test]
fn every_shared_site_config_reads_without_error() {
    let Some(dir) = shared_configs() else { return };
    let mut n = 0;
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "cfg") {
            let l = Config::load(&p).unwrap();
            let errs: Vec<String> = l.errors().map(|d| d.to_string()).collect();
            assert!(errs.is_empty(), "{}:\n{}", p.display(), errs.join("\n"));
            n += 1;
        }
    }
    assert!(n >= 6, "expected the six shared site configs, read {n}");
}

#[test]
fn it4i_salomon_reads_with_sim_lines_not_applicable() {
    let Some(dir) = shared_configs() else { return };
    let l = Config::load(&dir.join("it4i-salomon.cfg")).unwrap();
    assert!(l.is_ok());
    let sim: Vec<&Diagnostic> = l
        .diagnostics
        .iter()
        .filter(|d| d.param.as_deref().is_some_and(|p| p.starts_with("SIM")))
        .collect();
    assert_eq!(sim.len(), 6, "{sim:#?}");
    assert!(sim
        .iter()
        .all(|d| d.severity == Severity::Note && d.message.contains("not applicable")));
    let c = l.config;
    assert_eq!(
        (
            c.params.cred_weight,
            c.params.class_weight,
            c.params.fs_weight
        ),
        (864000, 1000, 8640000)
    );
    assert_eq!(c.params.node_access_policy, NodeAccessPolicy::SingleTask);
    assert_eq!(
        (
            c.params.fs_interval.0,
            c.params.fs_depth,
            c.params.fs_decay.0
        ),
        (168 * HOUR, 1, 0.5)
    );
    assert_eq!(
        c.params.rm_poll_interval.0, 5,
        "the comment after the value is ignored"
    );
    assert_eq!((c.params.backfill_depth, c.params.res_depth), (3, 3));
    assert_eq!(
        c.cred(CredKind::Class, "qfree").unwrap().priority,
        Some(-1024)
    );
    assert_eq!(
        c.cred_default(CredKind::Account)
            .unwrap()
            .fs_target
            .unwrap()
            .percent,
        100.0
    );
    assert_eq!(
        c.plumbing["SIMRESOURCETRACEFILE"],
        vec!["/home/userx/workdir/Resource.Trace1"]
    );
}

#[test]
fn seed_example_blocks_read_without_error() {
    let d = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/seeds");
    if !d.is_dir() {
        eprintln!("skipped: ../shared/seeds is absent");
        return;
    }
    // Blocks between "-----" lines are maui.cfg excerpts in the seeds.
    let mut blocks = 0;
    for e in std::fs::read_dir(d).unwrap() {
        let text = std::fs::read_to_string(e.unwrap().path()).unwrap();
        let mut inside: Option<String> = None;
        for line in text.lines() {
            if line.trim_start().starts_with("-----") {
                match inside.take() {
                    Some(block)
                        if block.contains("maui.cfg")
                            || block.contains("CFG[")
                            || block.contains("POLICY") =>
                    {
                        let l = Config::parse(&block, "seed");
                        assert!(l.is_ok(), "{block}\n{:#?}", l.errors().collect::<Vec<_>>());
                        blocks += 1;
                    }
                    Some(_) => {}
                    None => inside = Some(String::new()),
                }
            } else if let Some(b) = inside.as_mut() {
                b.push_str(line);
                b.push('\n');
            }
        }
    }
    assert!(blocks >= 6, "found {blocks} example blocks");
}

// ---- malformed input: exact line, column and message ------------------------------------

#[test]
fn malformed_inputs_are_pinpointed() {
    let cases: &[(&str, &str)] = &[
        ("FSDECAY x\n", "maui.cfg:1:9: FSDECAY: expected a number in [0,1], got \"x\""),
        ("# c\nFSDECAY    1.5\n", "maui.cfg:2:12: FSDECAY: expected a number in [0,1], got \"1.5\""),
        ("RMPOLLINTERVAL 1h\n", "maui.cfg:1:16: RMPOLLINTERVAL: expected a duration [[[DD:]HH:]MM:]SS, got \"1h\""),
        ("FSDEPTH 0\n", "maui.cfg:1:9: FSDEPTH: expected at least 1 fairshare window, got 0"),
        ("BACKFILLPOLICY FASTFIT\n", "maui.cfg:1:16: BACKFILLPOLICY: expected one of FIRSTFIT, BESTFIT, GREEDY, PREEMPT, NONE, got \"FASTFIT\""),
        ("USERCFG[john] PRIORITY=high\n", "maui.cfg:1:24: USERCFG[john] PRIORITY: expected an integer, got \"high\""),
        ("USERCFG[john] MAXJOB=5,4\n", "maui.cfg:1:22: USERCFG[john] MAXJOB: soft limit 5 is above hard limit 4"),
        ("USERCFG[john] MAXJOB=2,x\n", "maui.cfg:1:24: USERCFG[john] MAXJOB: expected a limit as <hard> or <soft>,<hard>, got \"2,x\""),
        ("USERCFG PRIORITY=1\n", "maui.cfg:1:1: USERCFG: USERCFG needs an index, e.g. USERCFG[<name>]"),
        ("USERCFG[john PRIORITY=1\n", "maui.cfg:1:8: missing ] after index"),
        ("SRCFG[x] PERIOD=MONTH TASKCOUNT=1\n", "maui.cfg:1:17: SRCFG[x] PERIOD: expected one of DAY, WEEK, INFINITY, got \"MONTH\""),
        ("SRCFG[x] TASKCOUNT=1 DAYS=MON,FUNDAY\n", "maui.cfg:1:31: SRCFG[x] DAYS: expected MON, TUE, WED, THU, FRI, SAT, SUN or [ALL], got \"FUNDAY\""),
        ("SRCFG[x] TASKCOUNT=1 STARTTIME=17:00:00 ENDTIME=8:00:00\n", "maui.cfg:1:41: SRCFG[x]: ENDTIME must be after STARTTIME; for a window across midnight configure two standing reservations"),
        ("SRCFG[x] TASKCOUNT=1 RESOURCES=CPUS:2\n", "maui.cfg:1:32: SRCFG[x] RESOURCES: expected PROCS, MEM, SWAP, DISK, GPUS or GRES=<name>[:<type>]:<count>, got \"CPUS\""),
        ("SRCFG[x] HOSTLIST=node[\n", "maui.cfg:1:19: SRCFG[x] HOSTLIST: invalid host expression \"node[\": unclosed character class"),
        ("SRCFG[x] TASKCOUNT=1 OWNER=tom\n", "maui.cfg:1:28: SRCFG[x] OWNER: expected <CREDTYPE>:<CREDID> such as USER:tom, got \"tom\""),
        ("NODECFG[n1] PRIORITYF='SPEED + FOO'\n", "maui.cfg:1:32: NODECFG[n1] PRIORITYF: unknown term \"FOO\" (terms: ADISK, AGRES, AMEM, APROCS, ASWAP, CDISK, CGRES, CMEM, CPROCS, CSWAP, JOBCOUNT, LOAD, PREF, PRIORITY, RESAFFINITY, SPEED, USAGE)"),
        ("NODECFG[n1] GRES=tape:-1\n", "maui.cfg:1:18: NODECFG[n1] GRES: \"tape:-1\" is not name[:type]:count (bad name part \"-1\")"),
        ("NODECFG[n1] GRES=gpu:2x\n", "maui.cfg:1:18: NODECFG[n1] GRES: \"gpu:2x\": the count \"2x\" is not a whole number"),
        ("NODECFG[n1] SPEED=fast\n", "maui.cfg:1:19: NODECFG[n1] SPEED: expected a positive relative speed such as 1.0, got \"fast\""),
        ("LOGLEVEL 12\n", "maui.cfg:1:10: LOGLEVEL: expected a level from 0 to 9, got 12"),
        ("ENABLENEGJOBPRIORITY maybe\n", "maui.cfg:1:22: ENABLENEGJOBPRIORITY: expected TRUE or FALSE (also ON/OFF, YES/NO, 1/0), got \"maybe\""),
        ("QUEUETIMEWEIGHT 1 2\n", "maui.cfg:1:19: QUEUETIMEWEIGHT: expected a single value, got 2 (quote a value that contains blanks)"),
        ("NODECFG[a] PRIORITYF='SPEED\n", "maui.cfg:1:22: unterminated quote '"),
        ("USERCFG[bob] PRIORITY\n", "maui.cfg:1:14: USERCFG[bob]: expected <ATTRIBUTE>=<VALUE>, got \"PRIORITY\""),
        ("SRCFG[x] TASKCOUNT=1 TIMELIMIT=soon\n", "maui.cfg:1:32: SRCFG[x] TIMELIMIT: expected a duration [[[DD:]HH:]MM:]SS optionally followed by *, got \"soon\""),
        ("XFMINWCLIMIT -5\n", "maui.cfg:1:14: XFMINWCLIMIT: expected a duration, -1 or INFINITY, got \"-5\""),
        ("FSPOLICY DEDICATED\n", "maui.cfg:1:10: FSPOLICY: expected one of DEDICATEDPS, DEDICATEDPES, UTILIZEDPS (optionally with %), or [NONE], got \"DEDICATED\""),
        ("FSINTERVAL\n", "maui.cfg:1:11: FSINTERVAL: missing value"),
        ("QOSCFG[hi] XFTARGET=0.5\n", "maui.cfg:1:21: QOSCFG[hi] XFTARGET: expected an expansion factor of at least 1.0, got \"0.5\""),
        ("MAXJOB[x\u{7}] 1\n", "maui.cfg:1:9: unexpected control character U+0007"),
        ("=FOO 1\n", "maui.cfg:1:1: expected a parameter name, got \"=FOO\""),
        ("NODECFG[n1] 'PRIORITYF=SPEED $'\n", "maui.cfg:1:30: NODECFG[n1] PRIORITYF: unexpected \"$\""),
        ("SRDAYS[1] MON XDAY\n", "maui.cfg:1:15: SRCFG[1] DAYS: expected MON, TUE, WED, THU, FRI, SAT, SUN or [ALL], got \"XDAY\""),
    ];
    for (input, expected) in cases {
        assert_eq!(&the_error(input), expected, "input: {input:?}");
    }
    assert!(cases.len() >= 20);
}

#[test]
fn maxgres_is_read_shown_and_pinpointed() {
    let c = Config::parse(
        "USERCFG[DEFAULT] MAXGRES[gpu]=2\nUSERCFG[bob] MAXGRES[gpu]=1,3 MAXGRES[tape]=1\nQOSCFG[hi] OMAXGRES[gpu]=8\n",
        "maui.cfg",
    );
    assert!(c.is_ok(), "{:?}", c.diagnostics);
    let text = crate::config::render::showconfig(&c.config);
    assert!(text.contains("MAXGRES[gpu]=1,3"), "{text}");
    assert!(text.contains("MAXGRES[tape]=1"), "{text}");
    assert!(text.contains("OMAXGRES[gpu]=8"), "{text}");
    for (input, at, want) in [
        (
            "USERCFG[bob] MAXGRES=gpu:2\n",
            "maui.cfg:1:22:",
            "needs the generic resource it limits",
        ),
        (
            "USERCFG[bob] MAXGRES[gpu]=x\n",
            "maui.cfg:1:27:",
            "expected a limit",
        ),
        (
            "\nUSERCFG[bob] MAXGRES[gpu:2]=1\n",
            "maui.cfg:2:",
            "expected one generic resource name",
        ),
    ] {
        let e = the_error(input);
        assert!(e.starts_with(at) && e.contains(want), "{input:?}: {e}");
    }
}

#[test]
fn one_bad_line_does_not_hide_others() {
    let l = Config::parse("FSDECAY x\nFSDEPTH 3\nBACKFILLPOLICY NOPE\n", "site.cfg");
    let lines: Vec<u32> = l.errors().map(|d| d.line).collect();
    assert_eq!(lines, vec![1, 3]);
    assert_eq!(l.config.params.fs_depth, 3, "good lines still apply");
}

/// A name of any length is answered at once and named, not echoed: the
/// message cuts it to its start and its length. Hints are the nearest
/// names within a few edits, transpositions counting as one, whatever
/// the filters that skip the far ones.
#[test]
fn long_unknown_names_are_cut_and_hints_stay_exact() {
    let long = "X".repeat(300_000);
    let w = warnings(&format!("{long} 1\nUSERCFG[bob] {long}=1\n"));
    assert_eq!(
        w,
        vec![
            format!(
                "maui.cfg:1:1: warning: unknown parameter {}... (300000 characters); ignored",
                "X".repeat(32)
            ),
            format!(
                "maui.cfg:2:14: warning: USERCFG[bob]: unknown attribute {}... (300000 characters); ignored",
                "X".repeat(32)
            ),
        ]
    );
    let hint = |n: &str| super::diag::did_you_mean(n, known_names());
    assert_eq!(hint("RESERVATIONDEPHT"), Some("RESERVATIONDEPTH"));
    assert_eq!(hint("reservationdepth2"), Some("RESERVATIONDEPTH"));
    assert_eq!(hint("XRESERVATIONDEPTHXY"), Some("RESERVATIONDEPTH"));
    assert_eq!(hint("RESERVATIONDEPTHXYZW"), None);
    assert_eq!(hint("FSWEIGTH"), Some("FSWEIGHT"));
    assert_eq!(hint(&long), None);
}

#[test]
fn unknown_names_warn_with_a_hint() {
    let w = warnings("FSDECAYY 0.5\n");
    assert_eq!(
        w,
        vec!["maui.cfg:1:1: warning: unknown parameter FSDECAYY (did you mean FSDECAY?); ignored"]
    );
    let w = warnings("USERCFG[bob] PRIORTY=5\n");
    assert_eq!(w, vec!["maui.cfg:1:14: warning: USERCFG[bob]: unknown attribute PRIORTY (did you mean PRIORITY?); ignored"]);
    let w = warnings("COMPLETELYUNRELATED 1\n");
    assert_eq!(
        w,
        vec!["maui.cfg:1:1: warning: unknown parameter COMPLETELYUNRELATED; ignored"]
    );
    let w = warnings("USERCFG[bob] QTWEIGHT=5\n");
    assert!(w[0].contains("QTWEIGHT applies to QOSCFG only"), "{w:?}");
}

#[test]
fn not_applicable_and_moab_parameters_are_reported_not_rejected() {
    let l = Config::parse("SERVERHOST torquehost\nRMCFG[base] TYPE=PBS HOST=pbs1\nADMINCFG[1] USERS=root\nNODESETPOLICY ONEOF\n", "maui.cfg");
    assert!(l.is_ok());
    let sev: Vec<Severity> = l.diagnostics.iter().map(|d| d.severity).collect();
    assert_eq!(
        sev,
        vec![
            Severity::Note,
            Severity::Note,
            Severity::Warning,
            Severity::Warning
        ]
    );
    assert_eq!(
        l.config.plumbing["RMCFG[base]"],
        vec!["TYPE=PBS", "HOST=pbs1"]
    );
    // The PBS front end reads these two: the notes say so, not "ignored".
    let shown: Vec<String> = l.diagnostics.iter().map(|d| d.to_string()).collect();
    assert!(
        shown[0].starts_with(
            "maui.cfg:1:1: note: SERVERHOST: read by mauisched-pbs, the PBS/Torque front end \
             (the pbs_server to connect to"
        ),
        "{shown:?}"
    );
    assert!(
        shown[1].starts_with(
            "maui.cfg:2:1: note: RMCFG: read by mauisched-pbs, the PBS/Torque front end \
             (the first RMCFG of TYPE=PBS"
        ),
        "{shown:?}"
    );
    for s in &shown[..2] {
        assert!(s.ends_with(", and with Slurm it does nothing"), "{s}");
        assert!(!s.contains("ignored;") && !s.ends_with("ignored"), "{s}");
    }
}

/// The names of Maui 3.3's own parameter tables, MCfg[] and MCredCfgParm[]
/// of its src/MConst.c (tests/data/maui33-params.txt says where from).
fn maui33_names() -> Vec<String> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/maui33-params.txt");
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(str::to_string)
        .collect()
}

#[test]
fn every_name_of_maui_33s_parameter_table_is_known_and_none_is_called_moabs() {
    let names = maui33_names();
    // 354 distinct names in MCfg[], 10 in MCredCfgParm[].
    assert_eq!(names.len(), 364);
    let mut unknown = Vec::new();
    let mut moab = Vec::new();
    for n in &names {
        // `mauictl check` on a file holding only this name: whatever it says
        // about the value, it must not call the name unknown or Moab's.
        let l = Config::parse(&format!("{n} 1\n"), "maui.cfg");
        for d in &l.diagnostics {
            if d.message.starts_with("unknown parameter") {
                unknown.push(n.as_str());
            }
            if d.message.contains("Moab parameter") {
                moab.push(n.as_str());
            }
        }
        assert!(
            !matches!(params::not_used(n), Some(NotUsed::MoabOnly)),
            "{n} is Maui 3.3's, not Moab's"
        );
    }
    assert!(unknown.is_empty(), "unknown to mauisched: {unknown:?}");
    assert!(moab.is_empty(), "called Moab's: {moab:?}");
}

#[test]
fn adminhosts_is_maui_33s_name_and_not_applicable() {
    let l = Config::parse("ADMINHOSTS head1 head2\nADMINHOST head1\n", "maui.cfg");
    let shown: Vec<String> = l.diagnostics.iter().map(|d| d.to_string()).collect();
    assert!(
        l.diagnostics.iter().all(|d| d.severity == Severity::Note),
        "{shown:?}"
    );
    assert!(
        shown[0].contains("ADMINHOSTS: not applicable to mauisched (commands are authorised by the admin socket's peer credentials)"),
        "{shown:?}"
    );
    // ADMINHOST is accepted, and said to be neither Maui's nor Moab's name.
    assert!(shown[1].contains("ADMINHOSTS"), "{shown:?}");
}

#[test]
fn maui_33_spellings_of_supported_parameters_are_read() {
    let c = parse_ok(
        "DIRECTSPECWEIGHT 7\nSERVICETARGETWEIGHT 3\nSERVICEWCAP 500\nCONSUMEDWEIGHT 2\n\
         REMAININGWEIGHT 4\nPERCENTWEIGHT 6\nBACKFILLTYPE BESTFIT\nADMINS tom ann\n\
         QOSTARGETQT[high] 2:00:00\nQOSTARGETXF[high] 3.5\nSRPRIORITY[night] 50\n\
         SRSTARTTIME[night] 18:00:00\n",
    );
    let p = &c.params;
    assert_eq!(p.cred_weight, 7);
    assert_eq!(p.serv_weight, 3);
    assert_eq!(p.serv_cap, 500.0);
    assert_eq!(
        (
            p.usage_consumed_weight,
            p.usage_remaining_weight,
            p.usage_percent_weight
        ),
        (2, 4, 6)
    );
    assert_eq!(p.backfill_policy, BackfillPolicy::BestFit);
    assert_eq!(p.admin1, Names(vec!["tom".into(), "ann".into()]));
    let high = c.cred(CredKind::Qos, "high").cloned().unwrap_or_default();
    let want = parse_ok("QOSCFG[high] QTTARGET=2:00:00 XFTARGET=3.5\n");
    assert_eq!(Some(&high), want.cred(CredKind::Qos, "high"));
    assert_eq!(c.standing["night"].priority, 50);
}

#[test]
fn aliases_are_read_with_a_note() {
    let l = Config::parse(
        "BACKFILLPOLICY ON\nFSPOLICY PSDEDICATED\nNODEACCESSPOLICY DEDICATED\n",
        "maui.cfg",
    );
    assert!(l.is_ok());
    assert_eq!(l.config.params.backfill_policy, BackfillPolicy::FirstFit);
    assert_eq!(
        l.config.params.node_access_policy,
        NodeAccessPolicy::SingleJob
    );
    assert_eq!(
        l.diagnostics
            .iter()
            .filter(|d| d.severity == Severity::Note)
            .count(),
        3
    );
}

#[test]
fn strict_loading_refuses_a_broken_file() {
    let dir = std::env::temp_dir().join(format!("mauisched-cfg-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let good = dir.join("good.cfg");
    let bad = dir.join("bad.cfg");
    std::fs::write(&good, "FSDEPTH 3\n").unwrap();
    std::fs::write(&bad, "FSDEPTH 3\nFSDECAY 2\n").unwrap();
    assert_eq!(Config::load_strict(&good).unwrap().0.params.fs_depth, 3);
    let e = Config::load_strict(&bad).unwrap_err().to_string();
    assert!(
        e.ends_with("bad.cfg:2:9: FSDECAY: expected a number in [0,1], got \"2\""),
        "{e}"
    );
    let e = Config::load_strict(&dir.join("missing.cfg"))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("missing.cfg") && e.contains("No such file"),
        "{e}"
    );
    std::fs::write(&bad, b"FSDEPTH 3\nUSERCFG[\xff] PRIORITY=1\n").unwrap();
    let l = Config::load(&bad).unwrap();
    assert!(l
        .diagnostics
        .iter()
        .any(|d| d.line == 2 && d.message.contains("not valid UTF-8")));
    std::fs::remove_dir_all(&dir).ok();
}

// ---- showconfig --------------------------------------------------------------------------------

#[test]
fn showconfig_lists_every_parameter_with_defaults() {
    let c = parse_ok("FSDECAY 0.8\nUSERCFG[john] PRIORITY=100 FSTARGET=10.0-\nSRCFG[i] TASKCOUNT=6 CLASSLIST=interactive\n");
    let text = render::showconfig(&c);
    for d in SCALARS {
        assert!(
            text.lines().any(|l| l.starts_with(d.name())),
            "{} missing",
            d.name()
        );
    }
    assert!(text.contains("\nFSDECAY                         0.8\n"));
    assert!(text.contains("\nBACKFILLPOLICY                  FIRSTFIT\n"));
    assert!(text.contains("\nUSERCFG[john]                   PRIORITY=100 FSTARGET=10.0-\n"));
    assert!(text.contains("SRCFG[i]                        PERIOD=DAY DAYS=[ALL] STARTTIME=00:00:00 ENDTIME=1:00:00:00 DEPTH=2"));
    let json = render::showconfig_json(&c);
    assert_eq!(json["parameters"]["FSDECAY"], "0.8");
    assert_eq!(json["USERCFG"]["john"]["FSTARGET"], "10.0-");
    assert_eq!(json["SRCFG"]["i"]["TASKCOUNT"], "6");
}

#[test]
fn showconfig_output_reads_back_to_the_same_configuration() {
    let Some(dir) = shared_configs() else { return };
    for name in [
        "it4i-salomon.cfg",
        "unsw-fyrhead.cfg",
        "chalmers-hermod.cfg",
        "partitions-throttling.cfg",
    ] {
        let c = Config::load(&dir.join(name)).unwrap().config;
        let again = Config::parse(&render::showconfig(&c), "again");
        assert!(
            again.is_ok(),
            "{name}: {:#?}",
            again.errors().collect::<Vec<_>>()
        );
        let mut a = again.config;
        a.source = c.source.clone();
        a.plumbing = c.plumbing.clone();
        assert_eq!(a, c, "{name}");
    }
}

#[test]
fn embedded_default_is_clean() {
    let l = Config::parse(DEFAULT_CONFIG, DEFAULT_CONFIG_LABEL);
    assert!(l.diagnostics.is_empty(), "{:#?}", l.diagnostics);
    assert_eq!(
        l.config.params.fs_policy.metric,
        Some(FsMetric::DedicatedPs)
    );
}

// ---- robustness -----------------------------------------------------------------------------------

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, .. ProptestConfig::default() })]

    #[test]
    fn never_panics_on_arbitrary_text(s in "\\PC*") {
        let _ = Config::parse(&s, "fuzz");
    }

    #[test]
    fn never_panics_on_arbitrary_bytes(b in proptest::collection::vec(any::<u8>(), 0..400)) {
        let _ = Config::parse(&String::from_utf8_lossy(&b), "fuzz");
    }

    #[test]
    fn never_panics_on_plausible_lines(
        lines in proptest::collection::vec(
            (
                prop::sample::select(known_names()),
                proptest::option::of("[A-Za-z0-9:]{0,6}"),
                proptest::collection::vec("[A-Z]{1,10}=[-+*!=A-Za-z0-9:,;.|%\\[\\]'\" ]{0,12}|[-0-9:.%,]{0,10}|'[^']{0,10}", 0..4),
            ),
            0..12,
        )
    ) {
        let text: String = lines
            .iter()
            .map(|(n, i, v)| format!("{n}{} {}\n", i.as_ref().map(|i| format!("[{i}]")).unwrap_or_default(), v.join(" ")))
            .collect();
        let l = Config::parse(&text, "fuzz");
        for d in &l.diagnostics {
            prop_assert!(d.line >= 1 && d.col >= 1);
        }
    }
}

// ---- SRCFG RESOURCES with generic resources ---------------------------------

#[test]
fn srcfg_resources_reserve_generic_resources() {
    let text = "NODECFG[g1] GRES=gpu:a100:4\n\
                SRCFG[gpu] RESOURCES=PROCS:2;MEM:512;GPU:1 TASKCOUNT=2\n\
                SRCFG[typed] RESOURCES=PROCS:1;GRES=gpu:a100:2 TASKCOUNT=1\n";
    let l = Config::parse(text, "maui.cfg");
    assert!(
        l.diagnostics.iter().all(|d| d.severity == Severity::Note),
        "{:#?}",
        l.diagnostics
    );
    let sr = &l.config.standing["gpu"];
    assert_eq!((sr.resources.procs, sr.resources.mem), (Some(2), 512));
    assert_eq!(sr.resources.gres.get("gpu"), Some(1));
    assert_eq!(
        l.config.standing["typed"].resources.gres.get("gpu:a100"),
        Some(2)
    );
    // showconfig renders it back, and the rendering reads the same.
    let shown = render::showconfig(&l.config);
    assert!(
        shown.contains("RESOURCES=PROCS:2;MEM:512;GRES=gpu:1"),
        "{shown}"
    );
    let again =
        parse_ok("SRCFG[gpu] RESOURCES=PROCS:2;MEM:512;GRES=gpu:1\nNODECFG[g1] GRES=gpu:4\n");
    assert_eq!(again.standing["gpu"].resources, sr.resources);
}

#[test]
fn srcfg_generic_resources_no_node_configures_are_warned_about() {
    let w = warnings(
        "NODECFG[g1] GRES=gpu:4\n\
         SRCFG[a] TASKCOUNT=1 RESOURCES=PROCS:1;GRES=fpga:1\n\
         SRCFG[b] TASKCOUNT=1 RESOURCES=PROCS:1;gpu:5\n\
         SRCFG[c] TASKCOUNT=1 RESOURCES=PROCS:1;gpu:4\n",
    );
    assert_eq!(w.len(), 2, "{w:#?}");
    assert!(
        w[0].starts_with("maui.cfg:2:22: warning: SRCFG[a] RESOURCES: no NODECFG GRES configures generic resource fpga"),
        "{}",
        w[0]
    );
    assert!(
        w[1].starts_with("maui.cfg:3:22: warning: SRCFG[b] RESOURCES: a task needs gpu:5, more than any NODECFG GRES configures (at most gpu:4)"),
        "{}",
        w[1]
    );
}

#[test]
fn srcfg_malformed_generic_resources_are_errors() {
    let e = the_error("SRCFG[a] TASKCOUNT=1 RESOURCES=PROCS:1;gpu:2x\n");
    assert!(
        e.starts_with("maui.cfg:1:32: SRCFG[a] RESOURCES:") && e.contains("not a whole number"),
        "{e}"
    );
    let e = the_error("SRCFG[a] TASKCOUNT=1 RESOURCES=PROCS:1;GRES=\n");
    assert!(e.contains("GRES needs a generic resource"), "{e}");
}

#[test]
fn credential_flags_not_acted_on_are_warned_about() {
    let w = warnings(
        "USERCFG[amy] FLAGS=ADVRES:r1\n\
         USERCFG[bob] FLAGS=PREEMPTEE,ADVRES:r1,NOSUCH,BACKFILL\n\
         GROUPCFG[g] FLAGS=ADVRES\n\
         QOSCFG[hi] QFLAGS=IGNUSER:IGNPROCPERGROUP,NOBF,PREEMPTOR FLAGS=DEDICATED\n\
         QOSCFG[lo] QFLAGS=PREEMPTEE,FOOBAR FLAGS=ADVRES:r2\n\
         CLASSCFG[batch] FLAGS=PREEMPTEE\n\
         SYSCFG FLAGS=PREEMPTEE\n",
    );
    assert_eq!(
        w,
        [
            "maui.cfg:2:14: warning: USERCFG[bob] FLAGS: BACKFILL not acted on: a credential's FLAGS act on PREEMPTOR, PREEMPTEE and ADVRES:<reservation> only (ADVRES alone would confine jobs to any reservation, which mauisched does not do); NOSUCH not a Maui job flag; ignored",
            "maui.cfg:3:13: warning: GROUPCFG[g] FLAGS: ADVRES not acted on: a credential's FLAGS act on PREEMPTOR, PREEMPTEE and ADVRES:<reservation> only (ADVRES alone would confine jobs to any reservation, which mauisched does not do); ignored",
            "maui.cfg:4:12: warning: QOSCFG[hi] QFLAGS: NOBF not acted on: mauisched acts on DEDICATED, PREEMPTOR, PREEMPTEE, the IGN* limit exemptions and ADVRES:<reservation> only; ignored",
            "maui.cfg:5:12: warning: QOSCFG[lo] QFLAGS: FOOBAR not a Maui QOS or job flag; ignored",
            "maui.cfg:7:8: warning: SYSCFG FLAGS: PREEMPTEE not acted on: SYSCFG flags are not acted on; ignored",
        ]
    );
    let c = Config::parse("USERCFG[amy] FLAGS=ADVRES:r1,BACKFILL\n", "maui.cfg").config;
    let flags = user(&c, "amy").flags.unwrap();
    assert_eq!(flags.0, ["ADVRES:r1", "BACKFILL"]);
    assert_eq!(crate::config::sections::advres_flag(&flags), Some("r1"));
}

#[test]
fn reservation_flags_not_acted_on_are_warned_about() {
    assert_eq!(
        warnings("SRCFG[a] TASKCOUNT=1 FLAGS=BYNAME,OWNERPREEMPT USERLIST=bob\n"),
        ["maui.cfg:1:22: warning: SRCFG[a] FLAGS: OWNERPREEMPT not acted on: of the reservation flags mauisched acts on BYNAME only; ignored"]
    );
    assert!(warnings("SRCFG[a] TASKCOUNT=1 FLAGS=BYNAME USERLIST=bob\n").is_empty());
}

#[test]
fn preemption_backfill_warns_about_chunking() {
    let p = Config::parse("BACKFILLPOLICY PREEMPT\n", "maui.cfg")
        .config
        .params;
    assert_eq!(p.backfill_policy, BackfillPolicy::Preempt);
    assert_eq!(
        warnings("RESERVATIONDEPTH 4\nBACKFILLPOLICY PREEMPT\nBFCHUNKSIZE 8\n"),
        ["maui.cfg:3:13: warning: BFCHUNKSIZE: not acted on under BACKFILLPOLICY PREEMPT (backfill chunking is FIRSTFIT's); ignored"]
    );
    assert!(warnings("BFCHUNKSIZE 8\nBACKFILLPOLICY FIRSTFIT\n").is_empty());
}

#[test]
fn nodeloadpolicy_adjustprocs_is_warned_about() {
    assert_eq!(
        warnings("NODEMAXLOAD 4.0\nNODELOADPOLICY ADJUSTPROCS\n"),
        ["maui.cfg:2:16: warning: NODELOADPOLICY: ADJUSTPROCS is not supported by mauisched (a node's load does not reduce its processors): load is ignored; ADJUSTSTATE marks a node at MAXLOAD busy"]
    );
    assert!(warnings("NODELOADPOLICY ADJUSTSTATE\n").is_empty());
}
