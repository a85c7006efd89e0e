//! The admin socket end to end: a handle driven through the C ABI serves
//! every command over a real Unix socket; changes made there reach the
//! next plan; malformed, oversized and slow clients do not disturb the
//! iterations.

mod admin_common;

use admin_common::*;
use mauisched::ffi::{MAUISCHED_ACTION_HOLD, MAUISCHED_ACTION_RELEASE, MAUISCHED_REASON_STOPPED};
use mauisched::socket::ErrorCode;
use std::io::{Read, Write};
use std::os::unix::net::UnixStream;
use std::process::Command;
use std::time::Duration;

/// FIRSTAVAILABLE: the scenarios name the nodes jobs land on, in index
/// order (the default LASTAVAILABLE walks nodes available equally long
/// from the highest index, as Maui's code does).
const CFG: &str = "RESERVATIONDEPTH 2\nNODEALLOCATIONPOLICY FIRSTAVAILABLE\n";

/// The queue plus D, a one-task job after C.
fn queue_d() -> Vec<JobSpec> {
    let mut q = queue();
    q.push(JobSpec::idle("D", "alice", 1, H, T0 - 900));
    q
}

fn nodes_used(p: &PlanView) -> Vec<String> {
    let mut v: Vec<String> = p
        .starts
        .iter()
        .flat_map(|s| s.1.iter().map(|a| a.0.clone()))
        .collect();
    v.sort();
    v
}

#[test]
fn reading_commands_round_trip() {
    let s = Sched::start("read", CFG);
    let (code, msg) = s.fails("showq", &[]);
    assert_eq!(code, ErrorCode::NoIteration, "{msg}");
    assert!(
        s.text("diagnose", &["-f"])
            .starts_with("FairShare Information"),
        "needs no iteration"
    );

    let p = s.run_queue(T0);
    assert_eq!(
        p.starts,
        vec![("C".to_string(), vec![("n2".to_string(), 1)])]
    );

    // showq, as the engine renders it, with every option.
    let q = s.text("showq", &[]);
    assert!(q.starts_with("ACTIVE JOBS--------------------\n"), "{q}");
    assert!(
        q.lines()
            .any(|l| l.starts_with("C ") && l.contains("Starting")),
        "{q}"
    );
    assert!(
        q.lines()
            .any(|l| l.starts_with("H ") && l.contains("SystemHold")),
        "{q}"
    );
    assert!(
        q.contains("Total Jobs: 4   Active Jobs: 2   Idle Jobs: 1   Blocked Jobs: 1"),
        "{q}"
    );
    assert!(s.text("showq", &["-r"]).contains("MHOST"));
    assert!(s
        .text("showq", &["-i"])
        .lines()
        .any(|l| l.starts_with("B* ")));
    assert!(s.text("showq", &["-b"]).contains("1 Blocked Job "));
    let w = s.text("showq", &["-w", "user=alice"]);
    assert!(
        w.contains("Total Jobs: 2   Active Jobs: 2   Idle Jobs: 0"),
        "{w}"
    );
    let j = s.json("showq", &[]);
    assert_eq!(j["eligible"][0]["job"], "B");
    assert_eq!(j["blocked"][0]["job"], "H");

    assert!(s
        .text("showbf", &[])
        .starts_with("backfill window (user: 'ALL' group: 'ALL' partition: ALL)"));
    assert_eq!(s.json("showbf", &[])["partitions"][0]["partition"], "ALL");
    let st = s.text("showstart", &["B"]);
    assert!(st.contains("Earliest start in          03:00:00"), "{st}");
    assert_eq!(s.json("showstart", &["B"])["start"], T0 + 3 * H);
    let cj = s.text("checkjob", &["B"]);
    assert!(
        cj.starts_with("checking job B\n") && cj.contains("Reservation 'B'"),
        "{cj}"
    );
    assert!(s
        .text("checkjob", &["-v", "B"])
        .contains("Node availability:"));
    assert_eq!(s.json("checkjob", &["B"])["job"]["id"], "B");
    let cn = s.text("checknode", &["n1"]);
    assert!(
        cn.starts_with("checking node n1\n") && cn.contains("JobList:  A"),
        "{cn}"
    );
    assert_eq!(s.json("checknode", &["n2"])["jobs"][0], "C");
    assert!(s.text("showres", &[]).contains("reservations located"));
    assert!(s.text("showres", &["-n"]).contains("nodes reserved"));
    assert!(
        s.json("showres", &[])["reservations"][0]
            .get("acl")
            .is_some(),
        "root sees ACLs"
    );
    assert!(s.text("diagnose", &["-p"]).contains("PRIORITY"));
    assert!(s
        .text("diagnose", &["-r"])
        .starts_with("Diagnosing Reservations"));
    assert!(s
        .text("diagnose", &["-j"])
        .contains("WARNING:  job 'H' cannot run: job has hold in place (System)"));
    assert!(s
        .text("diagnose", &["-n"])
        .contains("Total Nodes: 4  (Active: 2  Idle: 2  Down: 0)"));
    assert!(s.text("diagnose", &["-q"]).contains("job H "));
    for flag in ["-p", "-f", "-r", "-j", "-n", "-q"] {
        assert!(
            s.json("diagnose", &[flag]).is_object(),
            "diagnose {flag} --json"
        );
    }
    let stats = s.text("showstats", &[]);
    assert!(stats.contains("statistics for iteration     1"), "{stats}");
    assert!(
        stats.contains("Current Active/Total Procs:         2/4      (50.0%)"),
        "{stats}"
    );
    assert_eq!(s.json("showstats", &["-s"])["iterations"], 1);
    assert!(s
        .text("showconfig", &[])
        .contains("RESERVATIONDEPTH[0]             2"));
    assert_eq!(
        s.json("showconfig", &[])["reservation_stacks"]["0"]["RESERVATIONDEPTH"],
        "2"
    );

    // Errors carry codes.
    assert_eq!(s.fails("showqq", &[]).0, ErrorCode::UnknownCommand);
    assert_eq!(s.fails("showq", &["-z"]).0, ErrorCode::Usage);
    assert_eq!(s.fails("checkjob", &[]).0, ErrorCode::Usage);
    assert_eq!(s.fails("checkjob", &["nope"]).0, ErrorCode::NotFound);
    assert_eq!(s.fails("checknode", &["n9"]).0, ErrorCode::NotFound);
    // A flag mauisched does not take is refused with its reason; -n and
    // -u answer.
    let (code, msg) = s.fails("showstats", &["-d", "2"]);
    assert_eq!(code, ErrorCode::Usage);
    assert!(
        msg.contains("showstats -d: not supported by mauisched"),
        "{msg}"
    );
    assert!(s
        .text("showstats", &["-n"])
        .starts_with("Memory Requirement Breakdown:\n"));
    assert!(s.text("showstats", &["-u"]).contains("\nalice "));
    assert_eq!(
        s.fails("showstats", &["-u", "nobody"]).0,
        ErrorCode::NotFound
    );
    // Torque's short ids name the whole id.
    assert_eq!(
        s.fails("checkjob", &["-l", "HARD", "B"]).0,
        ErrorCode::Usage
    );
    let r = s.ask("showq", &[], false);
    assert_eq!(r.user.as_deref(), Some(whoami().as_str()));
    assert_eq!(
        r.level.as_deref(),
        Some("ADMIN1"),
        "the scheduler's own user"
    );
}

fn whoami() -> String {
    mauisched::socket::user_name(mauisched::socket::own_uid()).unwrap()
}

#[test]
fn changes_reach_the_next_plan_and_the_log() {
    let s = Sched::start("change", CFG);
    let me = whoami();
    assert_eq!(s.fails("sethold", &["B"]).0, ErrorCode::NoIteration);
    let p0 = s.run_queue(T0);

    // setspri: B ranks first from the next iteration.
    assert_eq!(
        s.text("setspri", &["100", "B"]),
        "job system priority adjusted\n"
    );
    assert_eq!(s.json("setspri", &["100", "B"])["system_priority"], 100);
    assert_eq!(s.fails("setspri", &["100", "nope"]).0, ErrorCode::NotFound);
    let p1 = s.run_queue(T0 + 60);
    assert!(p1.jobs["B"].0 > p0.jobs["B"].0 && p1.jobs["B"].0 > p1.jobs["C"].0);

    // sethold / releasehold become RM actions of the next plan only.
    assert!(s
        .text("sethold", &["B"])
        .starts_with("System Hold Placed on All Specified Jobs\n"));
    assert_eq!(s.fails("sethold", &["A"]).0, ErrorCode::Refused, "A runs");
    assert_eq!(s.fails("sethold", &["B", "nope"]).0, ErrorCode::NotFound);
    assert_eq!(s.text("releasehold", &["H"]), "holds modified for job H\n(the resource manager applies this at the next scheduling iteration, within the RMPOLLINTERVAL of 00:01:00)\n");
    let (code, msg) = s.fails("releasehold", &["C"]);
    assert_eq!(code, ErrorCode::Refused);
    assert!(msg.contains("job C has no hold"), "{msg}");
    let p2 = s.run_queue(T0 + 120);
    assert_eq!(
        p2.actions,
        vec![
            (MAUISCHED_ACTION_HOLD, "B".to_string(), me.clone()),
            (MAUISCHED_ACTION_RELEASE, "H".to_string(), me.clone())
        ]
    );
    assert!(
        s.run_queue(T0 + 180).actions.is_empty(),
        "actions go out once"
    );
    // A release before the hold went out cancels it.
    s.text("sethold", &["C"]);
    s.text("releasehold", &["C"]);
    assert!(s.run_queue(T0 + 240).actions.is_empty());

    // The changes were logged, with who made them, at the host's next call.
    let logs = s.logs().join("\n");
    assert!(logs.contains(&format!("sethold by {me} (uid ")), "{logs}");
    assert!(
        logs.contains("job B: system priority 100 (set by "),
        "{logs}"
    );
}

#[test]
fn setres_keeps_jobs_off_its_nodes_until_releaseres() {
    let s = Sched::start("setres", CFG);
    let p = s.run(T0, &nodes(4), &queue_d());
    assert_eq!(nodes_used(&p), vec!["n2", "n3"], "C and D backfill");
    // Validated in full first: nothing is created by a bad request.
    let (code, msg) = s.fails("setres", &["-n", "maint", "n2", "n9"]);
    assert_eq!(code, ErrorCode::Usage);
    assert!(msg.contains("no node named \"n9\""), "{msg}");
    assert_eq!(
        s.fails("setres", &["-s", "25:00", "ALL"]).0,
        ErrorCode::Usage
    );
    assert_eq!(
        s.fails("setres", &["-x", "BOGUS", "n2"]).0,
        ErrorCode::Usage
    );
    assert_eq!(s.fails("setres", &["-u", "alice"]).0, ErrorCode::Usage);
    assert!(s.json("showres", &[])["reservations"]
        .as_array()
        .unwrap()
        .iter()
        .all(|r| r["type"] == "Job"));

    let out = s.text("setres", &["-n", "maint", "n2", "n3"]);
    assert_eq!(
        out,
        "reservation 'maint' created on 2 nodes (2 tasks)\n\nn2:1\nn3:1\n\n(in force at the next scheduling iteration, within the RMPOLLINTERVAL of 00:01:00)\n"
    );
    assert_eq!(
        s.fails("setres", &["-n", "maint", "n4"]).0,
        ErrorCode::Refused
    );
    for t in 1..=3 {
        let p = s.run(T0 + t * 60, &nodes(4), &queue_d());
        assert_eq!(
            nodes_used(&p),
            vec!["n4"],
            "only n4 is free of maint: {p:?}"
        );
        assert!(p.started("C") && !p.started("D"));
    }
    assert!(s
        .text("showres", &[])
        .lines()
        .any(|l| l.starts_with("maint ")));
    assert!(s
        .text("checknode", &["n2"])
        .contains("  System 'maint'(x1)"));

    let (code, msg) = s.fails("releaseres", &["A"]);
    assert_eq!(code, ErrorCode::Refused);
    assert!(msg.contains("A is a job reservation"), "{msg}");
    assert_eq!(
        s.fails("releaseres", &["maint", "nope"]).0,
        ErrorCode::NotFound
    );
    assert_eq!(
        s.text("releaseres", &["maint"]),
        "released System reservation 'maint'\n"
    );
    let p = s.run(T0 + 240, &nodes(4), &queue_d());
    assert_eq!(nodes_used(&p), vec!["n2", "n3"], "n2 and n3 are free again");
    let logs = s.logs().join("\n");
    assert!(logs.contains("reservation maint created by "), "{logs}");
    assert!(logs.contains("reservation maint released by "), "{logs}");
}

#[test]
fn schedctl_stops_resumes_and_reconfigures() {
    let s = Sched::start("schedctl", CFG);
    s.run(T0, &nodes(4), &queue_d());
    assert_eq!(
        s.text("schedctl", &["-s"]),
        "scheduling will stop immediately at iteration 1\n(no job is started until schedctl -r)\n"
    );
    assert!(s
        .text("schedctl", &["-s"])
        .starts_with("scheduling is already stopped (by "));
    let p = s.run(T0 + 60, &nodes(4), &queue_d());
    assert!(p.starts.is_empty(), "{p:?}");
    assert_eq!(p.jobs["C"].2, MAUISCHED_REASON_STOPPED);
    assert!(s
        .text("showq", &[])
        .contains("NOTE:  scheduling is stopped (schedctl -s by "));
    assert!(s.text("checkjob", &["C"]).contains("scheduling is stopped"));

    // runjob starts a job even now, where it fits (n2), and only it.
    assert_eq!(
        s.fails("runjob", &["B"]).0,
        ErrorCode::Refused,
        "B needs 4 nodes, 3 are free"
    );
    assert_eq!(s.fails("runjob", &["H"]).0, ErrorCode::Refused, "H is held");
    assert_eq!(s.fails("runjob", &["A"]).0, ErrorCode::Refused, "A runs");
    assert_eq!(s.fails("runjob", &["-n", "n9", "D"]).0, ErrorCode::NotFound);
    assert_eq!(
        s.fails("runjob", &["-n", "n1", "D"]).0,
        ErrorCode::Refused,
        "A fills n1"
    );
    assert_eq!(
        s.text("runjob", &["-n", "n4", "D"]),
        "job D will be started on n4:1 at the next scheduling iteration, within the RMPOLLINTERVAL of 00:01:00\n"
    );
    let p = s.run(T0 + 120, &nodes(4), &queue_d());
    assert_eq!(
        p.starts,
        vec![("D".to_string(), vec![("n4".to_string(), 1)])]
    );

    // Maui's meanings: -r resumes, -R reconfigures.
    assert_eq!(
        s.text("schedctl", &["-r"]),
        "scheduling will resume immediately\n"
    );
    assert_eq!(
        s.text("schedctl", &["-r", "30"]),
        "scheduling will resume immediately\n(it was not stopped)\n"
    );
    let p = s.run(T0 + 180, &nodes(4), &queue_d());
    assert_eq!(nodes_used(&p), vec!["n2", "n3"]);
    assert_eq!(s.fails("schedctl", &["-x"]).0, ErrorCode::Usage);
    assert_eq!(s.fails("schedctl", &["-m", "X"]).0, ErrorCode::Usage);

    // schedctl -R rereads maui.cfg: without backfill C and D wait.
    std::fs::write(&s.cfg, format!("{CFG}BACKFILLPOLICY NONE\n")).unwrap();
    assert!(s
        .text("schedctl", &["-R"])
        .contains("maui.cfg reloaded (0 warnings)"));
    let p = s.run(T0 + 240, &nodes(4), &queue_d());
    assert!(p.starts.is_empty(), "{p:?}");
    assert!(s
        .text("showconfig", &[])
        .contains("BACKFILLPOLICY                  NONE"));
    // A broken file is refused, says why, and the old one stays in force.
    std::fs::write(&s.cfg, "BACKFILLPOLICY NOPE\n").unwrap();
    let (code, msg) = s.fails("schedctl", &["-R"]);
    assert_eq!(code, ErrorCode::Refused);
    assert!(
        msg.contains("not reloaded; the previous configuration stays in force"),
        "{msg}"
    );
    assert!(
        msg.contains("maui.cfg:1:16: BACKFILLPOLICY: expected one of"),
        "{msg}"
    );
    assert!(s.run(T0 + 300, &nodes(4), &queue_d()).starts.is_empty());
    std::fs::write(&s.cfg, CFG).unwrap();
    s.text("schedctl", &["-R"]);
    assert_eq!(
        nodes_used(&s.run(T0 + 360, &nodes(4), &queue_d())),
        vec!["n2", "n3"]
    );
    let logs = s.logs().join("\n");
    assert!(logs.contains("schedctl -s by "), "{logs}");
    assert!(logs.contains("runjob by "), "{logs}");
    assert!(
        logs.contains("reconfigure refused, the previous configuration stays in force"),
        "{logs}"
    );
}

#[test]
fn stopped_scheduling_survives_a_restart() {
    let mut s = Sched::start("restart", CFG);
    s.run(T0, &nodes(4), &queue_d());
    s.text("schedctl", &["-s"]);
    s.cleanup = false;
    let dir = s.dir.clone();
    // Freed without another iteration: mauisched_free writes the state.
    drop(s);
    let s = Sched::open(dir, CFG);
    assert!(
        s.logs()
            .iter()
            .any(|l| l.starts_with("scheduling is stopped (schedctl -s by ")),
        "{:?}",
        s.logs()
    );
    assert!(s.run(T0 + 60, &nodes(4), &queue_d()).starts.is_empty());
    s.text("schedctl", &["-r"]);
    assert!(!s.run(T0 + 120, &nodes(4), &queue_d()).starts.is_empty());
}

/// Raw bytes to the socket; the response line, if any.
fn raw(path: &std::path::Path, bytes: &[u8]) -> String {
    let mut c = UnixStream::connect(path).unwrap();
    c.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    let _ = c.write_all(bytes);
    let mut out = String::new();
    let _ = c.read_to_string(&mut out);
    out
}

fn code_of(resp: &str) -> String {
    let v: serde_json::Value = serde_json::from_str(resp.lines().next().unwrap_or("{}"))
        .unwrap_or_else(|e| panic!("{e}: {resp:?}"));
    v["error"]["code"].as_str().unwrap_or("none").to_string()
}

#[test]
fn hostile_clients_do_not_disturb_scheduling() {
    // Clients get one second to send their request.
    let s = Sched::start("hostile", &format!("{CFG}CLIENTTIMEOUT 1\n"));
    let p0 = s.run(T0, &nodes(4), &queue_d());
    let path = s.socket.clone();

    // Garbage, wrong shapes, wrong versions.
    assert_eq!(code_of(&raw(&path, b"hello\n")), "bad_request");
    assert_eq!(code_of(&raw(&path, b"\xff\xfe\n")), "bad_request");
    assert_eq!(
        code_of(&raw(&path, b"{\"v\":1,\"cmd\":\"showq\",\"args\":[1]}\n")),
        "bad_request"
    );
    assert_eq!(
        code_of(&raw(&path, b"{\"v\":9,\"cmd\":\"showq\"}\n")),
        "version"
    );
    assert_eq!(code_of(&raw(&path, b"\n")), "bad_request");

    // A client sending 10 MB without a newline.
    let flood = {
        let path = path.clone();
        std::thread::spawn(move || {
            let mut c = UnixStream::connect(&path).unwrap();
            c.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
            let chunk = vec![b'a'; 1 << 20];
            for _ in 0..10 {
                if c.write_all(&chunk).is_err() {
                    break;
                }
            }
            let mut out = String::new();
            let _ = c.read_to_string(&mut out);
            out
        })
    };
    // A slow client: half a request, then nothing.
    let slow = {
        let path = path.clone();
        std::thread::spawn(move || raw_slow(&path))
    };
    // Silent clients take every slot (this test's user is ADMIN1: its
    // own user's share, then ADMIN1's own slots); the next ones are told to
    // come back at once (earlier clients may still hold a slot for a
    // moment).
    std::thread::sleep(Duration::from_millis(200));
    let max = mauisched::socket::MAX_CLIENTS + mauisched::socket::MAX_PER_USER;
    let silent: Vec<UnixStream> = (0..max + 4)
        .map(|_| UnixStream::connect(&path).unwrap())
        .collect();
    // Iterations go on meanwhile, with the same decisions.
    for i in 1..=5 {
        let p = s.run(T0 + i * 60, &nodes(4), &queue_d());
        assert_eq!(p.starts, p0.starts, "iteration {i}");
    }
    // Beyond the cap, clients were told to come back; the others are
    // dropped after CLIENTTIMEOUT, with the reason.
    let mut codes = std::collections::BTreeMap::new();
    for mut c in silent {
        c.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
        let mut out = String::new();
        let _ = c.read_to_string(&mut out);
        *codes.entry(code_of(&out)).or_insert(0) += 1;
    }
    assert!(codes.get("busy").copied().unwrap_or(0) >= 4, "{codes:?}");
    assert!(
        codes.get("timeout").copied().unwrap_or(0) >= max - 2,
        "{codes:?}"
    );
    assert_eq!(codes.values().sum::<usize>(), max + 4, "{codes:?}");
    let f = flood.join().unwrap();
    // The flood was cut off at the limit (busy if it came while the silent
    // clients held every slot).
    assert!(
        f.is_empty() || ["too_large", "busy"].contains(&code_of(&f).as_str()),
        "{f}"
    );
    assert_eq!(code_of(&slow.join().unwrap()), "timeout");
    // And the socket serves normally again.
    assert!(s.text("showq", &[]).contains("ACTIVE JOBS"));
    let big = format!(
        "{{\"v\":1,\"cmd\":\"showq\",\"args\":[\"{}\"]}}\n",
        "x".repeat(70_000)
    );
    assert_eq!(code_of(&raw(&path, big.as_bytes())), "too_large");
}

fn raw_slow(path: &std::path::Path) -> String {
    let mut c = UnixStream::connect(path).unwrap();
    c.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    c.write_all(b"{\"v\":1,").unwrap();
    let mut out = String::new();
    let _ = c.read_to_string(&mut out);
    out
}

fn mauictl(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_mauictl"))
        .args(args)
        .env_remove("MAUISCHED_SOCKET")
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn mauictl_and_the_maui_names_talk_to_the_socket() {
    let s = Sched::start("mauictl", CFG);
    s.run_queue(T0);
    let sock = s.socket.to_str().unwrap();
    let (code, out, err) = mauictl(&["--socket", sock, "showq"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, s.text("showq", &[]));
    let (code, out, _) = mauictl(&["showq", "-r", "--socket", sock, "--json"]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["active"].as_array().unwrap().len(), 2);
    // Through MAUISCHED_SOCKET and through ADMINSOCKET in maui.cfg.
    let o = Command::new(env!("CARGO_BIN_EXE_mauictl"))
        .args(["checkjob", "B"])
        .env("MAUISCHED_SOCKET", sock)
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&o.stdout).starts_with("checking job B\n"));
    let cfg = s.dir.join("client.cfg");
    std::fs::write(&cfg, format!("ADMINSOCKET {sock}\n")).unwrap();
    let (code, out, _) = mauictl(&["-c", cfg.to_str().unwrap(), "diagnose", "-q"]);
    assert_eq!(code, 0);
    assert!(out.contains("job H "), "{out}");
    let (code, out, _) = mauictl(&["diagnose", "-n", "-C", cfg.to_str().unwrap()]);
    assert_eq!(code, 0, "-C after the command too");
    assert!(out.starts_with("diagnosing node table ("));
    // There -c is Maui's: diagnose -c lists the classes.
    let (code, out, err) = mauictl(&["diagnose", "-c", "-C", cfg.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("Class/Queue Status"), "{out}");

    // mauictl showconfig shows a file unless asked for the live one.
    let (code, out, _) = mauictl(&["showconfig", "--socket", sock]);
    assert_eq!(code, 0);
    assert!(out.contains("RESERVATIONDEPTH[0]             2"), "{out}");
    let (code, out, _) = mauictl(&["-c", cfg.to_str().unwrap(), "showconfig", "--live"]);
    assert_eq!(code, 0);
    assert!(
        out.contains("RESERVATIONDEPTH[0]             2"),
        "live: {out}"
    );
    let (code, out, _) = mauictl(&["-c", cfg.to_str().unwrap(), "showconfig"]);
    assert_eq!(code, 0);
    assert!(
        out.contains(&format!("ADMINSOCKET                     {sock}")),
        "the file: {out}"
    );

    // Links named after Maui's commands run the same code.
    let bin = s.dir.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    for name in ["showq", "checknode", "setspri", "showconfig"] {
        std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_mauictl"), bin.join(name)).unwrap();
    }
    let o = Command::new(bin.join("showq"))
        .args(["-b", "--socket", sock])
        .output()
        .unwrap();
    assert!(o.status.success());
    assert!(String::from_utf8_lossy(&o.stdout).starts_with("BLOCKED JOBS"));
    let o = Command::new(bin.join("checknode"))
        .args(["n9", "--socket", sock])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr)
        .starts_with("checknode: node n9 is not known to the scheduler"));
    let o = Command::new(bin.join("setspri"))
        .args(["--socket", sock, "5", "B"])
        .output()
        .unwrap();
    assert!(o.status.success());
    assert_eq!(
        String::from_utf8_lossy(&o.stdout),
        "job system priority adjusted\n"
    );

    let o = Command::new(bin.join("showconfig"))
        .args(["--socket", sock])
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&o.stdout).contains("RESERVATIONDEPTH[0]             2"));

    // Usage errors exit 2; no scheduler exits 3 naming the socket tried.
    let (code, _, err) = mauictl(&["--socket", sock, "showq", "-z"]);
    assert_eq!(code, 2, "{err}");
    let (code, _, err) = mauictl(&["--socket", "/nonexistent/x.sock", "showq"]);
    assert_eq!(code, 3);
    assert!(
        err.starts_with(
            "mauictl: no scheduler is answering at /nonexistent/x.sock (socket from --socket): "
        ),
        "{err}"
    );
    let o = Command::new(env!("CARGO_BIN_EXE_mauictl"))
        .args(["showq"])
        .env_remove("MAUISCHED_SOCKET")
        .env("MAUISCHED_STATE_DIR", "/nonexistent/state")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(3));
    assert!(String::from_utf8_lossy(&o.stderr).contains(
        "/nonexistent/state/run/mauisched.sock (socket from run/mauisched.sock in $MAUISCHED_STATE_DIR)"
    ));
    // The offline forms still work without a scheduler.
    let (code, _, err) = mauictl(&["showq", "--snapshot", "/nonexistent.json"]);
    assert_eq!(code, 2, "no offline showq: {err}");
}

#[test]
fn no_admin_socket_when_disabled_or_taken() {
    use mauisched::ffi::*;
    use std::ffi::CString;
    let dir = scratch("nosock");
    let cfg = dir.join("maui.cfg");
    std::fs::write(&cfg, "").unwrap();
    let c_cfg = CString::new(cfg.to_str().unwrap()).unwrap();
    let c_state = CString::new(dir.join("state").to_str().unwrap()).unwrap();
    let empty = CString::new("").unwrap();
    let mut opts = mauisched_options_t {
        size: std::mem::size_of::<mauisched_options_t>(),
        config_path: c_cfg.as_ptr(),
        state_dir: c_state.as_ptr(),
        log: None,
        log_userdata: std::ptr::null_mut(),
        admin_socket: empty.as_ptr(),
        rm: std::ptr::null(),
    };
    let mut h = std::ptr::null_mut();
    unsafe {
        assert_eq!(
            mauisched_new(&opts, &mut h, std::ptr::null_mut(), 0),
            MAUISCHED_OK
        );
        assert!(!dir.join("state/run/mauisched.sock").exists());
        mauisched_free(h);
        // NULL: the default place under the state directory.
        opts.admin_socket = std::ptr::null();
        assert_eq!(
            mauisched_new(&opts, &mut h, std::ptr::null_mut(), 0),
            MAUISCHED_OK
        );
        let sock = dir.join("state/run/mauisched.sock");
        assert!(sock.exists());
        assert!(ask_at(&sock, "showconfig", &[], false).ok);
        // A second scheduler on the same socket (another state directory)
        // does not steal it; it runs without one.
        let c_state2 = CString::new(dir.join("state2").to_str().unwrap()).unwrap();
        let c_sock = CString::new(sock.to_str().unwrap()).unwrap();
        let mut opts2 = mauisched_options_t {
            state_dir: c_state2.as_ptr(),
            admin_socket: c_sock.as_ptr(),
            rm: std::ptr::null(),
            ..opts
        };
        opts2.size = std::mem::size_of::<mauisched_options_t>();
        let mut h2 = std::ptr::null_mut();
        assert_eq!(
            mauisched_new(&opts2, &mut h2, std::ptr::null_mut(), 0),
            MAUISCHED_OK
        );
        mauisched_free(h2);
        assert!(sock.exists(), "the first scheduler's socket stays");
        assert!(ask_at(&sock, "showstats", &[], false).ok);
        mauisched_free(h);
        assert!(!sock.exists());
        // A socket left by a scheduler that died is replaced.
        drop(std::os::unix::net::UnixListener::bind(&sock).unwrap());
        assert!(sock.exists());
        assert_eq!(
            mauisched_new(&opts, &mut h, std::ptr::null_mut(), 0),
            MAUISCHED_OK
        );
        assert!(ask_at(&sock, "showstats", &[], false).ok);
        mauisched_free(h);
        // An options struct of ABI 1.0 (without admin_socket) still works.
        opts.size = std::mem::offset_of!(mauisched_options_t, admin_socket);
        assert_eq!(
            mauisched_new(&opts, &mut h, std::ptr::null_mut(), 0),
            MAUISCHED_OK
        );
        assert!(sock.exists());
        mauisched_free(h);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A forked child, killed and reaped when dropped (also when the test
/// fails: it shares the test's output, which cargo waits on).
struct Forked(libc::pid_t);

impl Drop for Forked {
    fn drop(&mut self) {
        // SAFETY: killing and reaping our own child.
        unsafe {
            libc::kill(self.0, libc::SIGKILL);
            libc::waitpid(self.0, std::ptr::null_mut(), 0);
        }
    }
}

/// Opens `n` connections to `path` as uid/gid 65534 (nobody) in a forked
/// child, each with half a request, and keeps them open until killed.
/// Returns the child and what the last connection was answered. Only
/// async-signal-safe calls run in the child (the test is threaded).
fn hold_as_nobody(path: &std::path::Path, n: usize) -> (Forked, String) {
    use std::os::unix::ffi::OsStrExt;
    // SAFETY: plain C structures and system calls; the child touches only
    // memory prepared before fork and ends with _exit or a kill.
    unsafe {
        let mut addr: libc::sockaddr_un = std::mem::zeroed();
        addr.sun_family = libc::AF_UNIX as libc::sa_family_t;
        let bytes = path.as_os_str().as_bytes();
        assert!(bytes.len() < addr.sun_path.len());
        for (d, s) in addr.sun_path.iter_mut().zip(bytes) {
            *d = *s as libc::c_char;
        }
        let len = std::mem::size_of::<libc::sockaddr_un>() as libc::socklen_t;
        let mut pipe = [0; 2];
        assert_eq!(libc::pipe(pipe.as_mut_ptr()), 0);
        let half = b"{\"v\":1,";
        let pid = libc::fork();
        assert!(pid >= 0);
        if pid == 0 {
            libc::close(pipe[0]);
            if libc::setgroups(0, std::ptr::null()) != 0
                || libc::setgid(65534) != 0
                || libc::setuid(65534) != 0
            {
                libc::_exit(1);
            }
            let mut last = -1;
            for _ in 0..n {
                let fd = libc::socket(libc::AF_UNIX, libc::SOCK_STREAM, 0);
                if fd < 0 || libc::connect(fd, std::ptr::addr_of!(addr).cast(), len) != 0 {
                    libc::_exit(2);
                }
                libc::send(fd, half.as_ptr().cast(), half.len(), libc::MSG_NOSIGNAL);
                last = fd;
            }
            let mut buf = [0u8; 1024];
            let got = libc::read(last, buf.as_mut_ptr().cast(), buf.len());
            if got > 0 {
                libc::write(pipe[1], buf.as_ptr().cast(), got as usize);
            }
            libc::close(pipe[1]);
            loop {
                libc::pause();
            }
        }
        libc::close(pipe[1]);
        let child = Forked(pid);
        let mut answer = Vec::new();
        let mut f = std::fs::File::from_raw_fd(pipe[0]);
        use std::os::fd::FromRawFd;
        let _ = f.read_to_end(&mut answer);
        (child, String::from_utf8_lossy(&answer).into_owned())
    }
}

#[test]
fn one_user_holding_connections_does_not_lock_root_out() {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        eprintln!("skipped: connecting as another user needs root");
        return;
    }
    let s = Sched::start("lockout", CFG);
    s.run_queue(T0);
    // The clients of another user must reach the socket.
    let mut dir = s.socket.parent().map(|p| p.to_path_buf());
    while let Some(d) = dir {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&d).unwrap().permissions().mode();
        if mode & 0o001 == 0 {
            eprintln!("skipped: {} is not searchable by other users", d.display());
            return;
        }
        dir = d.parent().map(|p| p.to_path_buf());
    }
    let (child, answer) = hold_as_nobody(&s.socket, 100);
    // Beyond their limit the user's clients are answered, readably.
    let v: serde_json::Value = serde_json::from_str(answer.lines().next().unwrap_or("{}"))
        .unwrap_or_else(|e| panic!("{e}: {answer:?}"));
    assert_eq!(v["error"]["code"], "busy", "{answer}");
    assert!(
        v["error"]["message"].as_str().unwrap().contains(&format!(
            "you have {} requests being served already",
            mauisched::socket::MAX_PER_USER
        )),
        "{answer}"
    );
    // Root is answered at once, through the library's client and mauictl.
    let t = std::time::Instant::now();
    assert!(s.text("showq", &[]).contains("ACTIVE JOBS"));
    let took = t.elapsed();
    let t = std::time::Instant::now();
    let (code, out, err) = mauictl(&["--socket", s.socket.to_str().unwrap(), "showq"]);
    let took_cli = t.elapsed();
    drop(child);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("ACTIVE JOBS"), "{out}");
    assert!(
        took < Duration::from_secs(1) && took_cli < Duration::from_secs(1),
        "showq took {took:?} ({took_cli:?} with mauictl)"
    );
}

/// A front end that says it drives Slurm gets PREEMPTPOLICY CHECKPOINT
/// refused when the handle is created, with the reason; an older caller
/// (a `size` without `rm`) and the Torque front end get the handle.
#[test]
fn the_rm_type_refuses_what_its_front_end_cannot_apply() {
    use mauisched::ffi::*;
    use std::ffi::{CStr, CString};
    let dir = scratch("rmtype");
    let cfg = dir.join("maui.cfg");
    std::fs::write(&cfg, "PREEMPTPOLICY CHECKPOINT\n").unwrap();
    let c_cfg = CString::new(cfg.to_str().unwrap()).unwrap();
    let c_state = CString::new(dir.join("state").to_str().unwrap()).unwrap();
    let empty = CString::new("").unwrap();
    let slurm = CString::new("slurm").unwrap();
    let pbs = CString::new("pbs").unwrap();
    let mut opts = mauisched_options_t {
        size: std::mem::size_of::<mauisched_options_t>(),
        config_path: c_cfg.as_ptr(),
        state_dir: c_state.as_ptr(),
        log: None,
        log_userdata: std::ptr::null_mut(),
        admin_socket: empty.as_ptr(),
        rm: slurm.as_ptr(),
    };
    let mut h = std::ptr::null_mut();
    let mut err = [0 as std::ffi::c_char; 512];
    unsafe {
        assert_eq!(
            mauisched_new(&opts, &mut h, err.as_mut_ptr(), err.len()),
            MAUISCHED_CONFIG_ERROR
        );
        let msg = CStr::from_ptr(err.as_ptr()).to_string_lossy();
        assert!(msg.contains("Slurm cannot checkpoint jobs"), "{msg}");
        opts.rm = pbs.as_ptr();
        assert_eq!(
            mauisched_new(&opts, &mut h, std::ptr::null_mut(), 0),
            MAUISCHED_OK
        );
        mauisched_free(h);
        // ABI 1.6 callers do not pass `rm`: not read.
        opts.rm = slurm.as_ptr();
        opts.size = std::mem::offset_of!(mauisched_options_t, rm);
        assert_eq!(
            mauisched_new(&opts, &mut h, std::ptr::null_mut(), 0),
            MAUISCHED_OK
        );
        mauisched_free(h);
    }
}
