//! `mauictl showres --snapshot FILE` as an administrator runs it.

use mauisched::views::offline::{AdminRequest, AdminStore, Profile, RmOrder};
use mauisched::Config;
use mauisched::{Cluster, Snapshot};
use std::path::PathBuf;
use std::process::Command;

fn mauictl(args: &[&str]) -> (i32, String, String) {
    mauictl_in("UTC", args)
}

/// mauictl run on a host in time zone `tz`.
fn mauictl_in(tz: &str, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_mauictl"))
        .args(args)
        .env("TZ", tz)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn dir() -> PathBuf {
    let d = std::env::temp_dir().join(format!("mauictl-showres-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

const CFG: &str = "SRCFG[interactive] TASKCOUNT=6 RESOURCES=PROCS:1,MEM:512\n\
SRCFG[interactive] PERIOD=DAY DAYS=MON,TUE,WED,THU,FRI\n\
SRCFG[interactive] STARTTIME=9:00:00 ENDTIME=17:00:00\n\
SRCFG[interactive] CLASSLIST=interactive\n\
SRCFG[debug] HOSTLIST=node003,node004 USERLIST=helpdesk PERIOD=INFINITY\n";

// Fri Aug 18 2000 12:00:00; job 12941 started 5:01 ago for 2:46:40.
const SNAP: &str = r#"{"now": 966600000,
 "nodes": [{"name":"node001","configured":{"procs":2,"mem":1024}},
           {"name":"node002","configured":{"procs":2,"mem":1024}},
           {"name":"node003","configured":{"procs":2,"mem":1024}},
           {"name":"node004","configured":{"procs":2,"mem":1024}},
           {"name":"node005","configured":{"procs":2,"mem":1024}}],
 "jobs": [{"id":"12941","user":"u","group":"g","state":"running","start_time":966599699,
           "walltime":10000,"tasks":2,"allocation":[{"node":"node005","tasks":2}]}]}"#;

/// Chicago by name where the system's time zone database has it (CI
/// installs tzdata), else by POSIX rule: the same in August 2000 (CDT).
fn chicago() -> &'static str {
    if std::path::Path::new("/usr/share/zoneinfo/America/Chicago").is_file() {
        "America/Chicago"
    } else {
        eprintln!("no /usr/share/zoneinfo/America/Chicago (tzdata): using the POSIX rule");
        "CST6CDT,M3.2.0,M11.1.0"
    }
}

#[test]
fn standing_reservations_and_times_follow_the_hosts_zone() {
    // Its own directory: the other test removes dir() when it ends.
    let d = std::env::temp_dir().join(format!("mauictl-showres-zone-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    let cfg = d.join("maui.cfg");
    let snap = d.join("snap.json");
    std::fs::write(&cfg, CFG).unwrap();
    std::fs::write(&snap, SNAP).unwrap();
    let (c, s) = (cfg.to_str().unwrap(), snap.to_str().unwrap());
    let tz = chicago();
    // 12:00 UTC is 07:00 CDT: the 09:00-17:00 reservation is local, two
    // hours ahead (in UTC it had begun three hours before).
    let (code, out, err) = mauictl_in(tz, &["showres", "-C", c, "--snapshot", s]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("\n12941                Job R   -00:05:01    02:41:39    02:46:40    1/2    Fri Aug 18 06:54:59\n"), "{out}");
    assert!(out.contains("\ninteractive.11187  Class -    02:00:00    10:00:00    08:00:00    2/4    Fri Aug 18 09:00:00\n"), "{out}");
    let (code, out, _) = mauictl_in(tz, &["showres", "--json", "-C", c, "--snapshot", s]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["time_zone"], tz);
    assert_eq!(v["now"], 966_600_000);
    assert_eq!(v["now_iso"], "2000-08-18T07:00:00-05:00");
    let inter = &v["reservations"][2];
    assert_eq!(inter["start"], 966_607_200);
    assert_eq!(inter["start_iso"], "2000-08-18T09:00:00-05:00");
    // mauictl check names the zone it will use, and warns about a bad TZ.
    let (code, out, err) = mauictl_in(tz, &["check", "-C", c]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains(&format!(": note: times are local to {tz} ")),
        "{out}"
    );
    let (code, out, err) = mauictl_in("Nowhere/Land", &["check", "-C", c]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains(": warning: time zone: TZ=Nowhere/Land: unknown time zone \"Nowhere/Land\""),
        "{out}"
    );
    assert!(out.contains("0 error(s), 1 warning(s)"), "{out}");
    std::fs::remove_dir_all(&d).ok();
}

#[test]
fn showres_lists_job_standing_and_admin_reservations() {
    let d = dir();
    let cfg = d.join("maui.cfg");
    let snap = d.join("snap.json");
    std::fs::write(&cfg, CFG).unwrap();
    std::fs::write(&snap, SNAP).unwrap();
    let (c, s) = (cfg.to_str().unwrap(), snap.to_str().unwrap());

    let (code, out, err) = mauictl(&["showres", "-C", c, "--snapshot", s]);
    assert_eq!(code, 0, "{err}");
    let want = "\
ReservationID       Type S       Start         End    Duration    N/P    StartTime

12941                Job R   -00:05:01    02:41:39    02:46:40    1/2    Fri Aug 18 11:54:59
debug.0             User -    00:00:00    INFINITY    INFINITY    2/4    Fri Aug 18 12:00:00
interactive.11187  Class -   -03:00:00    05:00:00    08:00:00    2/4    Fri Aug 18 09:00:00

3 reservations located
";
    assert_eq!(out, want);

    let (code, out, _) = mauictl(&["showres", "-n", "-C", c, "--snapshot", s, "debug.0"]);
    assert_eq!(code, 0);
    assert!(
        out.starts_with("reservations on Fri Aug 18 12:00:00\n"),
        "{out}"
    );
    assert!(out.contains("\nnode003         User            debug.0          -    1    00:00:00    INFINITY  Fri Aug 18 12:00:00\n"), "{out}");
    assert!(out.ends_with("\n2 nodes reserved\n"), "{out}");

    let (code, out, _) = mauictl(&["showres", "--json", "-C", c, "--snapshot", s]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        v["reservations"][2]["tasks"], 4,
        "4 of 6 interactive tasks fit"
    );

    // An admin reservation from the store.
    let loaded = Config::parse(CFG, "t").config;
    let snapshot = Snapshot::from_json(SNAP).unwrap();
    let cluster = Cluster::build(&snapshot.nodes, &loaded);
    let mut p = Profile::from_cluster(&cluster, 966_600_000);
    let mut store = AdminStore::new();
    store
        .create(
            AdminRequest {
                users: Some("john:mary".into()),
                hosts: Some("node001".into()),
                duration: Some(3600),
                ..AdminRequest::default()
            },
            966_600_000,
            &cluster,
            &mut p,
            0,
            &RmOrder,
            &|_, _| false,
        )
        .unwrap();
    let st = d.join("admin.json");
    store.save(&st).unwrap();
    let (code, out, err) = mauictl(&[
        "showres",
        "-C",
        c,
        "--snapshot",
        s,
        "--store",
        st.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("\njohn.1              User -    00:00:00    01:00:00    01:00:00    1/2    Fri Aug 18 12:00:00\n"), "{out}");
    assert!(out.ends_with("\n4 reservations located\n"));

    let (code, _, err) = mauictl(&["showres", "-C", c, "--snapshot", s, "nosuch"]);
    assert_eq!(code, 1);
    assert!(err.contains("no reservation \"nosuch\""), "{err}");
    // A snapshot without "now" describes the present, as for every
    // offline form.
    std::fs::write(&snap, r#"{"nodes": []}"#).unwrap();
    let (code, out, err) = mauictl(&["showres", "-C", c, "--snapshot", s]);
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("ReservationID"), "{out}");
    std::fs::remove_dir_all(&d).ok();
}
