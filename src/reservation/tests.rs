use super::acl::{access, may_preempt, Access, Denial};
use super::admin::{AdminError, AdminRequest, AdminStore};
use super::standing::{instance_windows, week_start, StandingSet};
use super::*;
use crate::config::{Affinity, Config};
use crate::model::time::{Zone, DAY, HOUR};

fn fmt_time(t: crate::model::Time) -> String {
    Zone::utc().fmt(t)
}
use crate::model::{Job, Node};
use crate::profile::{Occupant, Profile, Unreserved};

/// Fri Aug 18 2000 12:00:00 UTC.
const FRI_NOON: Time = 966_600_000;

fn sr(text: &str) -> Config {
    let l = Config::parse(text, "test");
    assert!(l.is_ok(), "{:?}", l.diagnostics);
    l.config
}

fn res_from(cfg: &Config, name: &str, now: Time) -> Reservation {
    let s = &cfg.standing[name];
    standing::instance_reservation(name, s, instance_windows(s, now, &Zone::utc())[0])
}

fn job(user: &str) -> Job {
    Job {
        id: format!("{user}.job"),
        user: user.into(),
        group: "users".into(),
        ..Job::default()
    }
}

fn cluster(n: usize, procs: u32, mem: u64) -> Cluster {
    let nodes: Vec<Node> = (1..=n)
        .map(|i| Node {
            name: format!("node{i:03}"),
            configured: Resources::procs_mem(procs, mem),
            ..Node::default()
        })
        .collect();
    Cluster::build(&nodes, &Config::default())
}

#[test]
fn empty_acl_is_a_system_reservation() {
    let cfg = sr("SRCFG[maint] HOSTLIST=node001 PERIOD=INFINITY\n");
    let r = res_from(&cfg, "maint", FRI_NOON);
    assert_eq!(r.type_name(), "System");
    assert_eq!(
        access(&r, &job("root"), FRI_NOON, FRI_NOON + 1),
        Access::Denied(Denial::System)
    );
}

#[test]
fn lists_are_ored_within_a_reservation() {
    // Seed example 3's debug reservation.
    let cfg = sr("SRCFG[debug] HOSTLIST=node001 USERLIST=helpdesk GROUPLIST=operations,sysadmin PERIOD=INFINITY\n");
    let r = res_from(&cfg, "debug", FRI_NOON);
    let (s, e) = (FRI_NOON, FRI_NOON + HOUR);
    assert!(access(&r, &job("helpdesk"), s, e).is_granted());
    let mut j = job("alice");
    assert_eq!(access(&r, &j, s, e), Access::Denied(Denial::NoMatch));
    j.group = "sysadmin".into();
    assert_eq!(access(&r, &j, s, e), Access::Granted(Affinity::Positive));
}

#[test]
fn not_entries_exclude_and_required_lists_must_hold() {
    // Seed example 4.
    let cfg = sr("SRCFG[special] TASKCOUNT=32 PERIOD=WEEK STARTTIME=1:08:00:00 ENDTIME=5:17:00:00\n\
                  SRCFG[special] NODEFEATURES=largememory TIMELIMIT=1:00:00* QOSLIST=high low special-\n\
                  SRCFG[special] ACCCOUNTLIST=!projectX,!projectY\n");
    let r = res_from(&cfg, "special", FRI_NOON);
    // This week's instance: Monday 08:00 to Friday 17:00.
    assert_eq!(fmt_time(r.start), "Mon Aug 14 08:00:00");
    assert_eq!(fmt_time(r.end), "Fri Aug 18 17:00:00");
    let mon5 = r.start - 3 * HOUR;
    let q = |qos: &str, acct: Option<&str>| Job {
        qos: Some(qos.into()),
        account: acct.map(str::to_string),
        ..job("u")
    };
    // "a four hour job that starts on Monday at 5:00 AM" overlaps one hour.
    assert_eq!(
        access(&r, &q("high", Some("ops")), mon5, mon5 + 4 * HOUR),
        Access::Granted(Affinity::Positive)
    );
    assert_eq!(
        access(&r, &q("high", Some("ops")), mon5 + HOUR, mon5 + 5 * HOUR),
        Access::Denied(Denial::TimeLimit {
            overlap: 2 * HOUR,
            limit: HOUR
        })
    );
    // "or a 12 hour job which starts on Friday at 4:00 PM".
    let fri4 = r.end - HOUR;
    assert!(access(&r, &q("high", None), fri4, fri4 + 12 * HOUR).is_granted());
    // QOS special: admitted with negative affinity.
    assert_eq!(
        access(&r, &q("special", Some("ops")), r.start, r.start + HOUR),
        Access::Granted(Affinity::Negative)
    );
    // Any account but projectX/projectY satisfies the account list ...
    assert_eq!(
        access(&r, &q("normal", Some("ops")), r.start, r.start + HOUR),
        Access::Granted(Affinity::Positive)
    );
    // ... and projectX is excluded even though its QOS matches.
    assert_eq!(
        access(&r, &q("high", Some("projectX")), r.start, r.start + HOUR),
        Access::Denied(Denial::Excluded {
            list: "ACCOUNTLIST",
            value: "projectX".into()
        })
    );
}

#[test]
fn required_list_needs_another_list_too() {
    let mut cfg = sr("SRCFG[r] HOSTLIST=node001 PERIOD=INFINITY CLASSLIST=batch* USERLIST=bob\n");
    let r = res_from(&cfg, "r", FRI_NOON);
    let mut j = job("bob");
    assert_eq!(
        access(&r, &j, FRI_NOON, FRI_NOON + 1),
        Access::Denied(Denial::RequiredNotMet("CLASSLIST"))
    );
    j.class = Some("batch".into());
    assert!(access(&r, &j, FRI_NOON, FRI_NOON + 1).is_granted());
    j.user = "eve".into();
    assert_eq!(
        access(&r, &j, FRI_NOON, FRI_NOON + 1),
        Access::Denied(Denial::NoMatch)
    );
    // With only required lists, meeting them is enough.
    cfg.standing.get_mut("r").unwrap().acl.users = Default::default();
    let r = res_from(&cfg, "r", FRI_NOON);
    assert!(access(&r, &j, FRI_NOON, FRI_NOON + 1).is_granted());
}

#[test]
fn byname_owner_job_attributes_and_preemption() {
    // Seed example 5 with a BYNAME twin.
    let cfg = sr(
        "SRCFG[jupiter] HOSTLIST=node0[1-9] PERIOD=INFINITY ACCOUNTLIST=jupiter,saturn-\n\
                  SRCFG[jupiter] OWNER=ACCOUNT:jupiter FLAGS=OWNERPREEMPT\n\
                  SRCFG[named] HOSTLIST=node10 PERIOD=INFINITY USERLIST=bob FLAGS=BYNAME\n\
                  SRCFG[pre] HOSTLIST=node11 PERIOD=INFINITY JOBATTRLIST=PREEMPTEE\n",
    );
    let r = res_from(&cfg, "jupiter", FRI_NOON);
    let acct = |a: &str| Job {
        account: Some(a.into()),
        ..job(a)
    };
    let (s, e) = (FRI_NOON, FRI_NOON + HOUR);
    assert_eq!(
        access(&r, &acct("jupiter"), s, e),
        Access::Granted(Affinity::Positive)
    );
    assert_eq!(
        access(&r, &acct("saturn"), s, e),
        Access::Granted(Affinity::Negative)
    );
    assert_eq!(
        access(&r, &acct("mars"), s, e),
        Access::Denied(Denial::NoMatch)
    );
    assert!(may_preempt(&r, &acct("jupiter"), &acct("saturn")));
    assert!(!may_preempt(&r, &acct("saturn"), &acct("jupiter")));
    let named = res_from(&cfg, "named", FRI_NOON);
    let mut bob = job("bob");
    assert_eq!(
        access(&named, &bob, s, e),
        Access::Denied(Denial::NotRequested)
    );
    bob.advres = Some("named".into());
    assert!(access(&named, &bob, s, e).is_granted());
    let pre = res_from(&cfg, "pre", FRI_NOON);
    let mut j = job("x");
    assert!(!access(&pre, &j, s, e).is_granted());
    j.attributes = thin_vec::thin_vec!["preemptee".into()];
    assert!(access(&pre, &j, s, e).is_granted());
}

/// The instances' next change: each begins and ends, and a new local day
/// (or week) rolls one in; an INFINITY reservation never changes.
#[test]
fn standing_instances_change_at_their_bounds_and_at_midnight() {
    let cfg = sr("SRCFG[w] TASKCOUNT=6 PERIOD=DAY DAYS=MON,TUE,WED,THU,FRI\n\
                  SRCFG[w] STARTTIME=9:00:00 ENDTIME=17:00:00\n");
    let next = |t| {
        standing::next_change(&cfg.standing, &Zone::utc(), t)
            .map(fmt_time)
            .unwrap()
    };
    // Friday noon: today's instance ends at 17:00.
    assert_eq!(next(FRI_NOON), "Fri Aug 18 17:00:00");
    // Then midnight, though Saturday has no instance: the days roll on.
    assert_eq!(next(FRI_NOON + 5 * HOUR), "Sat Aug 19 00:00:00");
    // Monday 08:00: the instance begins at 09:00.
    assert_eq!(next(FRI_NOON + 2 * DAY + 20 * HOUR), "Mon Aug 21 09:00:00");
    let week = sr("SRCFG[m] TASKCOUNT=2 PERIOD=WEEK STARTTIME=1:00:00:00 ENDTIME=2:00:00:00\n");
    assert_eq!(
        standing::next_change(&week.standing, &Zone::utc(), FRI_NOON).map(fmt_time),
        Some("Sun Aug 20 00:00:00".to_string())
    );
    let always = sr("SRCFG[a] TASKCOUNT=2 PERIOD=INFINITY\n");
    assert_eq!(
        standing::next_change(&always.standing, &Zone::utc(), FRI_NOON),
        None
    );
    assert_eq!(
        standing::next_change(&Default::default(), &Zone::utc(), FRI_NOON),
        None
    );
}

#[test]
fn standing_windows_for_days_and_weeks() {
    // Seed example 1: business hours on weekdays, DEPTH 2 by default.
    let cfg = sr("SRCFG[interactive] TASKCOUNT=6 RESOURCES=PROCS:1,MEM:512\n\
                  SRCFG[interactive] PERIOD=DAY DAYS=MON,TUE,WED,THU,FRI\n\
                  SRCFG[interactive] STARTTIME=9:00:00 ENDTIME=17:00:00\n\
                  SRCFG[interactive] CLASSLIST=interactive\n");
    let s = &cfg.standing["interactive"];
    let w = instance_windows(s, FRI_NOON, &Zone::utc());
    assert_eq!(
        w.len(),
        1,
        "Saturday is the second period and has no instance"
    );
    assert_eq!(fmt_time(w[0].start), "Fri Aug 18 09:00:00");
    assert_eq!(fmt_time(w[0].end), "Fri Aug 18 17:00:00");
    let w = instance_windows(s, FRI_NOON + 3 * DAY, &Zone::utc());
    let shown: Vec<String> = w.iter().map(|i| fmt_time(i.start)).collect();
    assert_eq!(shown, ["Mon Aug 21 09:00:00", "Tue Aug 22 09:00:00"]);
    // After 17:00 today's instance is over.
    assert!(instance_windows(s, FRI_NOON + 5 * HOUR, &Zone::utc()).is_empty());
    assert_eq!(
        fmt_time(week_start(FRI_NOON, &Zone::utc())),
        "Sun Aug 13 00:00:00"
    );
}

#[test]
fn standing_set_rolls_at_midnight() {
    let cfg = sr("SRCFG[d] TASKCOUNT=1 PERIOD=DAY DEPTH=2 USERLIST=ops\n");
    let mut set = StandingSet::new();
    let thu_2300 = FRI_NOON - 13 * HOUR;
    let r = set.roll(&cfg.standing, &cfg.zone, thu_2300);
    assert_eq!(r.created, ["d.11186", "d.11187"]);
    let r = set.roll(&cfg.standing, &cfg.zone, thu_2300 + HOUR);
    assert_eq!(
        (r.created, r.removed),
        (vec!["d.11188".to_string()], vec!["d.11186".to_string()])
    );
    let ids: Vec<&str> = set.instances().iter().map(|r| r.id.as_str()).collect();
    assert_eq!(ids, ["d.11187", "d.11188"]);
    // A configuration change replaces the instances.
    let cfg2 = sr("SRCFG[d] TASKCOUNT=2 PERIOD=DAY DEPTH=2 USERLIST=ops\n");
    let r = set.roll(&cfg2.standing, &cfg2.zone, thu_2300 + HOUR);
    assert_eq!(r.removed.len(), 2);
    assert_eq!(r.created.len(), 2);
}

/// US Central time by POSIX rule (no time zone database needed); in 2026
/// daylight saving starts on Sunday 8 March and ends on Sunday 1 November.
fn chicago() -> Zone {
    Zone::named("CST6CDT,M3.2.0,M11.1.0").unwrap()
}

/// A UTC time from a civil date and clock, for expectations.
fn utc_at(y: i64, mo: u32, d: u32, h: i64, mi: i64) -> Time {
    crate::model::time::days_from_civil(y, mo, d) * DAY + h * HOUR + mi * 60
}

#[test]
fn standing_reservations_keep_local_clock_times_across_daylight_saving() {
    // Business hours 08:30-17:00 on weekdays, in Chicago: Maui took them
    // from localtime(), so 08:30 is 08:30 on the site's clocks, not UTC.
    let cfg = sr(
        "SRCFG[day] TASKCOUNT=1 PERIOD=DAY DEPTH=7 DAYS=MON,TUE,WED,THU,FRI,SAT,SUN\n\
                  SRCFG[day] STARTTIME=8:30:00 ENDTIME=17:00:00\n",
    );
    let s = &cfg.standing["day"];
    let z = chicago();
    // Thursday 5 March 2026 at 12:00 CST (18:00 UTC): this week's
    // instances run through the spring-forward Sunday.
    let now = utc_at(2026, 3, 5, 18, 0);
    let w = instance_windows(s, now, &z);
    let starts: Vec<String> = w.iter().map(|i| z.fmt_named(i.start)).collect();
    assert_eq!(
        starts,
        [
            "Thu Mar  5 08:30:00 CST",
            "Fri Mar  6 08:30:00 CST",
            "Sat Mar  7 08:30:00 CST",
            "Sun Mar  8 08:30:00 CDT",
            "Mon Mar  9 08:30:00 CDT",
            "Tue Mar 10 08:30:00 CDT",
            "Wed Mar 11 08:30:00 CDT",
        ]
    );
    // In UTC: 14:30 in winter, 13:30 from the day daylight saving starts.
    assert_eq!(w[2].start, utc_at(2026, 3, 7, 14, 30));
    assert_eq!(w[3].start, utc_at(2026, 3, 8, 13, 30));
    assert_eq!(w[3].end, utc_at(2026, 3, 8, 22, 0));
    // Periods are numbered by local date: Chicago's Thursday.
    assert_eq!(w[0].number, crate::model::time::days_from_civil(2026, 3, 5));
    // The autumn change: Sunday 1 November is 25 hours long; a default
    // ENDTIME is the next local midnight.
    let cfg = sr("SRCFG[all] TASKCOUNT=1 PERIOD=DAY DEPTH=2\n");
    let s = &cfg.standing["all"];
    let w = instance_windows(s, utc_at(2026, 11, 1, 5, 0), &z);
    assert_eq!(z.fmt_named(w[0].start), "Sun Nov  1 00:00:00 CDT");
    assert_eq!(z.fmt_named(w[0].end), "Mon Nov  2 00:00:00 CST");
    assert_eq!(w[0].end - w[0].start, 25 * HOUR);
    // Under UTC the same SRCFG is hours away (what mauisched did before):
    // Thursday's 08:30-17:00 UTC is over at 18:00 UTC.
    let cfg = sr("SRCFG[day] TASKCOUNT=1 PERIOD=DAY STARTTIME=8:30:00 ENDTIME=17:00:00\n");
    let w = instance_windows(&cfg.standing["day"], now, &Zone::utc());
    assert_eq!(w[0].start, utc_at(2026, 3, 6, 8, 30));
}

#[test]
fn weekly_standing_reservations_start_on_the_local_sunday() {
    // A weekly maintenance window Monday 08:00 to Tuesday 17:00 local.
    let cfg = sr("SRCFG[maint] TASKCOUNT=1 PERIOD=WEEK DEPTH=2\n\
                  SRCFG[maint] STARTTIME=1:08:00:00 ENDTIME=2:17:00:00\n");
    let s = &cfg.standing["maint"];
    let z = chicago();
    // Saturday 7 March 2026 23:00 CST is Sunday 05:00 UTC: still the
    // local week of 1 March, whose instance is over; DEPTH 2 reaches the
    // week of 8 March (the first in daylight saving time) alone.
    let sat_night = utc_at(2026, 3, 8, 5, 0);
    let w = instance_windows(s, sat_night, &z);
    let shown: Vec<(String, String)> = w
        .iter()
        .map(|i| (z.fmt_named(i.start), z.fmt_named(i.end)))
        .collect();
    assert_eq!(
        shown,
        [(
            "Mon Mar  9 08:00:00 CDT".to_string(),
            "Tue Mar 10 17:00:00 CDT".to_string()
        )]
    );
    // In UTC that moment is already Sunday: two weeks ahead.
    assert_eq!(instance_windows(s, sat_night, &Zone::utc()).len(), 2);
    assert_eq!(
        z.fmt_named(week_start(sat_night, &z)),
        "Sun Mar  1 00:00:00 CST"
    );
}

fn no_jobs(_: &Reservation, _: u32) -> bool {
    false
}

#[test]
fn setres_examples() {
    // setres Example 1: two nodes for john and mary, in 24 hours, for 8
    // hours; node002-node004 are busy then, so node001 and node005.
    let c = cluster(8, 1, 0);
    let mut pr = Profile::from_cluster(&c, FRI_NOON);
    for n in 1..4 {
        let o = Occupant {
            job: n,
            start: FRI_NOON,
            end: FRI_NOON + 30 * HOUR,
            task: Resources::procs(1),
            tasks: 1,
        };
        pr.add_running_job(n, o, &Unreserved);
    }
    let mut store = AdminStore::new();
    let req = AdminRequest {
        users: Some("john:mary".into()),
        start: Some(FRI_NOON + 24 * HOUR),
        duration: Some(8 * HOUR),
        tasks: Some(2),
        ..AdminRequest::default()
    };
    let r = store
        .create(req, FRI_NOON, &c, &mut pr, 0, &RmOrder, &no_jobs)
        .unwrap();
    assert_eq!(r.id, "john.1");
    let nodes: Vec<(&str, u32)> = r
        .claims
        .iter()
        .map(|cl| (c.nodes[cl.node as usize].name.as_str(), cl.tasks))
        .collect();
    assert_eq!(nodes, [("node001", 1), ("node005", 1)]);
    // Example 2: a system-wide maintenance reservation.
    let req = AdminRequest {
        start: Some(FRI_NOON + 2 * DAY),
        end: Some(FRI_NOON + 4 * DAY),
        hosts: Some("ALL".into()),
        ..AdminRequest::default()
    };
    let r = store
        .create(req, FRI_NOON, &c, &mut pr, 1, &RmOrder, &no_jobs)
        .unwrap();
    assert_eq!(
        (r.id.as_str(), r.claims.len(), r.tasks()),
        ("system.1", 8, 8)
    );
    assert_eq!(r.type_name(), "System");
    // Example 3: PROCS=1:MEM=512 on node003-node006 for group staff.
    let c = cluster(8, 2, 1024);
    let mut pr = Profile::from_cluster(&c, FRI_NOON);
    let req = AdminRequest {
        resources: Some("PROCS=1:MEM=512".into()),
        groups: Some("staff".into()),
        classes: Some("interactive".into()),
        hosts: Some("node00[3-6]".into()),
        ..AdminRequest::default()
    };
    let r = store
        .create(req, FRI_NOON, &c, &mut pr, 2, &RmOrder, &no_jobs)
        .unwrap();
    assert_eq!(r.id, "staff.1");
    assert_eq!(
        r.claims.iter().map(|x| x.tasks).collect::<Vec<_>>(),
        [1, 1, 1, 1]
    );
    assert_eq!(r.claims[0].resources, Resources::procs_mem(1, 512));
    assert_eq!(c.nodes[r.claims[0].node as usize].name, "node003");
    assert_eq!(store.list().len(), 3);
}

#[test]
fn setres_validates_everything_and_changes_nothing_on_error() {
    let c = cluster(4, 2, 0);
    let mut pr = Profile::from_cluster(&c, FRI_NOON);
    let mut store = AdminStore::new();
    let ok = AdminRequest {
        users: Some("bob".into()),
        duration: Some(HOUR),
        tasks: Some(2),
        ..AdminRequest::default()
    };
    store
        .create(ok.clone(), FRI_NOON, &c, &mut pr, 0, &RmOrder, &no_jobs)
        .unwrap();
    let before = (
        store.clone(),
        pr.free(0, FRI_NOON, FRI_NOON + 1, &Unreserved),
    );
    let bad = [
        AdminRequest {
            hosts: Some("node009".into()),
            tasks: None,
            ..ok.clone()
        },
        AdminRequest {
            hosts: Some("^gpu".into()),
            tasks: None,
            ..ok.clone()
        },
        AdminRequest {
            hosts: Some("node[".into()),
            ..ok.clone()
        },
        AdminRequest {
            end: Some(FRI_NOON + 5),
            ..ok.clone()
        },
        AdminRequest {
            duration: Some(-5),
            ..ok.clone()
        },
        AdminRequest {
            start: Some(FRI_NOON - 2 * HOUR),
            ..ok.clone()
        },
        AdminRequest {
            flags: Some("BYNAME,FAST".into()),
            ..ok.clone()
        },
        AdminRequest {
            owner: Some("bob".into()),
            ..ok.clone()
        },
        AdminRequest {
            resources: Some("CPUS=2".into()),
            ..ok.clone()
        },
        AdminRequest {
            time_limit: Some("1h".into()),
            ..ok.clone()
        },
        AdminRequest {
            tasks: None,
            ..ok.clone()
        },
        AdminRequest {
            users: Some("!".into()),
            ..ok.clone()
        },
        AdminRequest {
            tasks: Some(7),
            ..ok.clone()
        },
        AdminRequest {
            name: Some("bob.1".into()),
            ..ok.clone()
        },
    ];
    for req in bad {
        let e = store.create(req.clone(), FRI_NOON, &c, &mut pr, 1, &RmOrder, &no_jobs);
        assert!(e.is_err(), "{req:?} was accepted");
        assert_eq!(
            (
                store.clone(),
                pr.free(0, FRI_NOON, FRI_NOON + 1, &Unreserved)
            ),
            before,
            "{req:?} changed something"
        );
    }
    let e = store.create(
        AdminRequest {
            tasks: Some(7),
            ..ok
        },
        FRI_NOON,
        &c,
        &mut pr,
        1,
        &RmOrder,
        &no_jobs,
    );
    // PROCS=-1: one task is one node; bob.1 holds two of the four.
    assert_eq!(
        e.unwrap_err(),
        AdminError::NoResources {
            wanted: 7,
            available: 2
        }
    );
    assert_eq!(
        store.release("nope").unwrap_err(),
        AdminError::NotFound("nope".into())
    );
    assert_eq!(store.release("bob.1").unwrap().id, "bob.1");
    assert!(store.list().is_empty());
}

#[test]
fn admin_reservations_survive_a_restart() {
    let c = cluster(4, 2, 0);
    let mut pr = Profile::from_cluster(&c, FRI_NOON);
    let mut store = AdminStore::new();
    let a = store
        .create(
            AdminRequest {
                users: Some("bob".into()),
                qos: Some("high,low-".into()),
                time_limit: Some("1:00:00*".into()),
                duration: Some(DAY),
                tasks: Some(3),
                flags: Some("BYNAME".into()),
                owner: Some("USER:bob".into()),
                ..AdminRequest::default()
            },
            FRI_NOON,
            &c,
            &mut pr,
            0,
            &RmOrder,
            &no_jobs,
        )
        .unwrap();
    let b = store
        .create(
            AdminRequest {
                hosts: Some("node004".into()),
                start: Some(FRI_NOON + HOUR),
                ..AdminRequest::default()
            },
            FRI_NOON,
            &c,
            &mut pr,
            1,
            &RmOrder,
            &no_jobs,
        )
        .unwrap();
    let dir = std::env::temp_dir().join(format!("mauisched-admin-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("admin.json");
    store.save(&path).unwrap();
    // A new process: load, rebuild, re-apply.
    let loaded = AdminStore::load(&path).unwrap();
    assert_eq!(loaded, store);
    let later = FRI_NOON + 2 * HOUR;
    let rebuilt = loaded.reservations(&c);
    assert_eq!(rebuilt, vec![a, b]);
    let mut pr2 = Profile::from_cluster(&c, later);
    for (i, r) in rebuilt.iter().enumerate() {
        place::reapply(r, i as u32, &mut pr2, &|_| false);
    }
    for n in 0..4 {
        assert_eq!(
            pr2.free(n, later, later + 1, &Unreserved),
            pr.free(n, later, later + 1, &Unreserved)
        );
    }
    // The sequence survives too: the next bob reservation is bob.2.
    let mut again = loaded;
    let r = again
        .create(
            AdminRequest {
                users: Some("bob".into()),
                duration: Some(HOUR),
                hosts: Some("node003".into()),
                ..AdminRequest::default()
            },
            later,
            &c,
            &mut pr2,
            2,
            &RmOrder,
            &no_jobs,
        )
        .unwrap();
    assert_eq!(r.id, "bob.2");
    assert_eq!(again.expire(FRI_NOON + 2 * DAY), ["bob.1", "bob.2"]);
    assert!(AdminStore::load(&dir.join("missing.json"))
        .unwrap()
        .list()
        .is_empty());
    std::fs::write(&path, "{\"records\": 3}").unwrap();
    assert!(matches!(AdminStore::load(&path), Err(AdminError::Io(_))));
    std::fs::remove_dir_all(&dir).ok();
}

/// NODEFEATURES and PARTITION pick nodes by the cluster's ids: every
/// feature asked for, the partition named, and nothing for a feature or
/// partition no node has.
#[test]
fn node_features_and_partition_by_id() {
    let nodes: Vec<Node> = [
        ("n1", &["fast", "big"][..], "a"),
        ("n2", &["fast"], "b"),
        ("n3", &[], "a"),
    ]
    .iter()
    .map(|&(name, feats, part)| Node {
        name: name.into(),
        configured: Resources::procs(4),
        features: feats.iter().map(|f| f.to_string()).collect(),
        partition: Some(part.into()),
        ..Node::default()
    })
    .collect();
    let c = Cluster::build(&nodes, &Config::default());
    let admitted = |feats: &[&str], part: Option<&str>| -> Vec<&str> {
        let req = ResRequest {
            node_features: feats.iter().map(|f| f.to_string()).collect(),
            partition: part.map(str::to_string),
            ..res_from(&sr("SRCFG[x] TASKCOUNT=1\n"), "x", FRI_NOON).request
        };
        let f = req.node_filter(&c);
        c.nodes
            .iter()
            .filter(|n| f.admits(n))
            .map(|n| n.name.as_str())
            .collect()
    };
    assert_eq!(admitted(&[], None), ["n1", "n2", "n3"]);
    assert_eq!(admitted(&["fast"], None), ["n1", "n2"]);
    assert_eq!(admitted(&["big", "fast"], None), ["n1"]);
    assert_eq!(admitted(&["fast"], Some("b")), ["n2"]);
    assert_eq!(admitted(&[], Some("a")), ["n1", "n3"]);
    assert!(admitted(&["fast", "gpu"], None).is_empty());
    assert!(admitted(&[], Some("c")).is_empty());
}

/// setres -r with generic resources (Moab's `GRES=<STRING>` among the
/// ':'-separated pairs): tasks go only to nodes with the GPUs and hold
/// them; a name no node has, or more than any node has, is refused and
/// changes nothing; the claims come back with their GPUs after a restart.
#[test]
fn setres_reserves_generic_resources() {
    let nodes: Vec<Node> = [("c1", ""), ("g1", "gpu:4"), ("g2", "gpu:a100:2")]
        .iter()
        .map(|(name, gres)| Node {
            name: name.to_string(),
            configured: Resources::procs_mem(8, 8000),
            gres: crate::model::GresList::parse(gres).unwrap(),
            ..Node::default()
        })
        .collect();
    let c = Cluster::build(&nodes, &Config::default());
    let gpu = c.gres_names.iter().position(|n| n == "gpu").unwrap();
    let a100 = c.gres_names.iter().position(|n| n == "gpu:a100").unwrap();
    let mut pr = Profile::from_cluster(&c, FRI_NOON);
    let mut store = AdminStore::new();
    let req = AdminRequest {
        users: Some("alice".into()),
        resources: Some("PROCS=1:MEM=512:GRES=gpu:2".into()),
        tasks: Some(2),
        duration: Some(HOUR),
        ..AdminRequest::default()
    };
    let r1 = store
        .create(req, FRI_NOON, &c, &mut pr, 0, &RmOrder, &no_jobs)
        .unwrap();
    let r = &r1;
    let held: Vec<(&str, u32, u32)> = r
        .claims
        .iter()
        .map(|cl| {
            (
                c.nodes[cl.node as usize].name.as_str(),
                cl.tasks,
                cl.resources.gres.get(gpu),
            )
        })
        .collect();
    assert!(
        held.iter().all(|(n, _, _)| *n != "c1")
            && held.iter().map(|h| h.1).sum::<u32>() == 2
            && held.iter().map(|h| h.2).sum::<u32>() == 4,
        "{held:?}"
    );
    // Typed, one task: only g2 has A100s.
    let req = AdminRequest {
        resources: Some("PROCS=1:GRES=gpu:a100:1".into()),
        tasks: Some(1),
        duration: Some(HOUR),
        ..AdminRequest::default()
    };
    let r2 = store
        .create(req, FRI_NOON, &c, &mut pr, 1, &RmOrder, &no_jobs)
        .unwrap();
    let r = &r2;
    assert_eq!(c.nodes[r.claims[0].node as usize].name, "g2");
    assert_eq!(r.claims[0].resources.gres.get(a100), 1);
    let before = (
        store.clone(),
        pr.free(1, FRI_NOON, FRI_NOON + 1, &Unreserved),
    );
    for (resources, want) in [
        ("PROCS=1:GRES=fpga:1", "fpga"),
        ("PROCS=1:GRES=gpu:5", "more than any node has"),
        ("PROCS=1:GRES=gpu:a100:3", "more than any node has"),
        (
            "PROCS=1:CPUS=2",
            "expected PROCS, MEM, SWAP, DISK, GPUS or GRES=",
        ),
    ] {
        let req = AdminRequest {
            resources: Some(resources.into()),
            tasks: Some(1),
            duration: Some(HOUR),
            ..AdminRequest::default()
        };
        let e = store
            .create(req, FRI_NOON, &c, &mut pr, 2, &RmOrder, &no_jobs)
            .unwrap_err()
            .to_string();
        assert!(e.contains(want), "{resources}: {e}");
        assert_eq!(
            (
                store.clone(),
                pr.free(1, FRI_NOON, FRI_NOON + 1, &Unreserved)
            ),
            before,
            "{resources} changed something"
        );
    }
    // A restart: the saved records rebuild the same claims, GPUs included.
    let path =
        std::env::temp_dir().join(format!("mauisched-gres-admin-{}.json", std::process::id()));
    store.save(&path).unwrap();
    let loaded = AdminStore::load(&path).unwrap();
    std::fs::remove_file(&path).ok();
    assert_eq!(loaded.reservations(&c), vec![r1, r2]);
}

/// Maui's backfill window pseudo-job (`MBFGetWindow`: user, group and
/// account `[ALL]`) passes `MACLCheckAccess` for any name of a user, group
/// or account list, is excluded by any NOT entry of one, and is admitted
/// by neither a QOS-only reservation (unless it names the default QOS) nor
/// a job's.
#[test]
fn the_window_pseudo_job_matches_every_name_as_maui() {
    use super::acl::window_job;
    let at = |text: &str, qos: Option<&str>| {
        let cfg = sr(&format!(
            "SRCFG[r] HOSTLIST=node001 PERIOD=INFINITY {text}\n"
        ));
        let r = res_from(&cfg, "r", FRI_NOON);
        access(
            &r,
            &window_job(qos.map(String::from)),
            FRI_NOON,
            FRI_NOON + 1,
        )
    };
    assert!(at("USERLIST=u1,u2", None).is_granted());
    assert!(at("GROUPLIST=physics", None).is_granted());
    assert!(at("ACCOUNTLIST=projA", None).is_granted());
    assert_eq!(
        at("USERLIST=!u3", None),
        Access::Denied(Denial::Excluded {
            list: "USERLIST",
            value: "[ALL]".into()
        })
    );
    assert_eq!(
        at("QOSLIST=high", Some("normal")),
        Access::Denied(Denial::NoMatch)
    );
    assert!(at("QOSLIST=normal", Some("normal")).is_granted());
    // A real job of another user is still refused.
    assert!(!access(
        &res_from(
            &sr("SRCFG[r] HOSTLIST=node001 PERIOD=INFINITY USERLIST=u1\n"),
            "r",
            FRI_NOON
        ),
        &job("u3"),
        FRI_NOON,
        FRI_NOON + 1
    )
    .is_granted());
}
