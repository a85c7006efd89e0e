//! Maui's commands as a site runs them, on one 16-node site
//! (tests/data/commands/: maui.cfg and an RM snapshot with running, idle,
//! held, dependent and deferred jobs, GPUs, two partitions and a standing
//! reservation for a class):
//!
//! - every reading command's output, text and JSON, is kept as a golden
//!   file (tests/golden/commands/), compared with Maui 3.3's layouts when
//!   written (`MAUISCHED_BLESS=1` rewrites them);
//! - the offline form (`--snapshot`) answers exactly as the running
//!   scheduler does on the same state, through its admin socket;
//! - every flag of every Maui command is either taken (a case below uses
//!   it and succeeds) or refused with the reason from its table;
//! - each command's manual page, read with `man -l`, lists the flags its
//!   `-h` lists.

use mauisched::service::{Service, Shared};
use mauisched::views::spec::{self, Support};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/commands")
        .join(name)
}

fn golden_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/golden/commands")
}

/// The reading cases: a name (the golden file's), the command, its
/// arguments as Maui spells them.
const CASES: &[(&str, &str, &[&str])] = &[
    ("showq", "showq", &[]),
    ("showq-r", "showq", &["-r"]),
    ("showq-i", "showq", &["-i"]),
    ("showq-b", "showq", &["-b"]),
    ("showq-p-gpu", "showq", &["-p", "gpu"]),
    ("showq-u-alice", "showq", &["-u", "alice", "-v"]),
    ("showq-w-class", "showq", &["-w", "class=gpu"]),
    ("showbf", "showbf", &[]),
    ("showbf-A", "showbf", &["-A", "-v"]),
    ("showbf-c-gpu", "showbf", &["-c", "gpu"]),
    (
        "showbf-creds",
        "showbf",
        &["-u", "alice", "-g", "physics", "-a", "astro", "-q", "high"],
    ),
    (
        "showbf-filters",
        "showbf",
        &[
            "-f", "ib", "-m", ">=32000", "-r", "8", "-n", "1", "-d", "00:10:00",
        ],
    ),
    ("showbf-p-batch", "showbf", &["-p", "batch"]),
    ("showstart", "showstart", &["5115"]),
    ("showstart-procs", "showstart", &["16@2:00:00"]),
    ("checkjob", "checkjob", &["5111"]),
    ("checkjob-held", "checkjob", &["5109.head"]),
    ("checkjob-v", "checkjob", &["-v", "5113"]),
    (
        "checkjob-n-r",
        "checkjob",
        &["-A", "-n", "gpu01", "-r", "gpuq.0,nosuch", "5115"],
    ),
    ("checknode", "checknode", &["gpu03"]),
    ("checknode-v", "checknode", &["-v", "-A", "gpu01"]),
    ("showres", "showres", &[]),
    ("showres-n", "showres", &["-n", "-g", "-r"]),
    ("showres-p", "showres", &["-p", "gpu", "gpuq.0"]),
    ("diagnose-p", "diagnose", &["-p"]),
    ("diagnose-f", "diagnose", &["-f"]),
    ("diagnose-j", "diagnose", &["-j", "-v"]),
    ("diagnose-j-one", "diagnose", &["-j", "5111"]),
    ("diagnose-n", "diagnose", &["-n"]),
    ("diagnose-q", "diagnose", &["-q"]),
    ("diagnose-r", "diagnose", &["-r"]),
    ("diagnose-u", "diagnose", &["-u"]),
    ("diagnose-g", "diagnose", &["-g", "physics"]),
    ("diagnose-a", "diagnose", &["-a"]),
    ("diagnose-c", "diagnose", &["-c", "-v"]),
    ("diagnose-Q", "diagnose", &["-Q"]),
    ("diagnose-t", "diagnose", &["-t"]),
    ("showhold", "showhold", &[]),
    ("showstate", "showstate", &[]),
    ("showstats", "showstats", &["-s", "-S"]),
    ("showstats-u", "showstats", &["-u"]),
    ("showstats-g", "showstats", &["-g", "physics"]),
    ("showstats-a", "showstats", &["-a", "-v"]),
    ("showstats-c", "showstats", &["-c"]),
    ("showstats-q", "showstats", &["-q", "normal"]),
    ("showstats-n", "showstats", &["-n"]),
    ("showstats-nS", "showstats", &["-n", "-S"]),
    ("showconfig", "showconfig", &["-v"]),
];

/// Cases for the commands that change something, run on the live
/// scheduler in this order: every flag they take is used once.
const CHANGES: &[(&str, &[&str])] = &[
    (
        "setres",
        &[
            "-n",
            "maint",
            "-u",
            "alice",
            "-g",
            "physics",
            "-a",
            "astro",
            "-q",
            "batch",
            "-Q",
            "high",
            "-s",
            "+1:00:00",
            "-d",
            "1:00:00",
            "-f",
            "ib",
            "-p",
            "batch",
            "-r",
            "PROCS=1",
            "-x",
            "BYNAME",
            "-o",
            "USER:alice",
            "-c",
            "astro",
            "-E",
            "cpu07",
        ],
    ),
    (
        "setres",
        &["-n", "later", "-s", "+2:00:00", "-e", "+3:00:00", "cpu08"],
    ),
    ("releaseres", &["maint"]),
    ("releaseres", &["ALL"]),
    ("setspri", &["100", "5107"]),
    ("setspri", &["-r", "-40", "5107.head"]),
    ("sethold", &["-s", "5113"]),
    ("releasehold", &["-s", "5113"]),
    ("releasehold", &["-a", "5110"]),
    ("runjob", &["-c", "-f", "-x", "-n", "cpu09:1", "5114"]),
    ("schedctl", &["-s", "100"]),
    ("schedctl", &["-S", "2", "-v"]),
    ("schedctl", &["-s"]),
    ("schedctl", &["-k"]),
    ("schedctl", &["-r", "30"]),
    ("schedctl", &["-n"]),
    ("schedctl", &["-R"]),
    ("resetstats", &[]),
    ("sethold", &["-u", "5113"]),
    ("releasehold", &["-u", "5113"]),
    ("sethold", &["-a", "5112"]),
    ("releasehold", &["5112", "5109"]),
    ("canceljob", &["5116", "5104.head"]),
];

/// mauictl in the tests' zone (UTC), with no scheduler but the one named.
fn mauictl(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_mauictl"))
        .args(args)
        .env("TZ", "UTC")
        .env("MAUISCHED_SOCKET", "/nonexistent/mauisched-commands.sock")
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn offline(cmd: &str, args: &[&str], json: bool) -> (i32, String, String) {
    let snap = data("snapshot.json");
    let cfg = data("maui.cfg");
    let mut a = vec![cmd];
    a.extend_from_slice(args);
    a.extend([
        "--snapshot",
        snap.to_str().unwrap(),
        "-C",
        cfg.to_str().unwrap(),
    ]);
    if json {
        a.push("--json");
    }
    mauictl(&a)
}

/// The same scheduler, running, with its admin socket.
struct Live {
    shared: Shared,
    socket: PathBuf,
    dir: PathBuf,
    server: Option<mauisched::socket::Server>,
}

impl Drop for Live {
    fn drop(&mut self) {
        drop(self.server.take());
        std::fs::remove_dir_all(&self.dir).ok();
    }
}

fn live(name: &str) -> Live {
    let dir =
        std::env::temp_dir().join(format!("mauisched-commands-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut loaded = mauisched::Config::load(&data("maui.cfg")).unwrap();
    assert!(loaded.is_ok());
    loaded.config.zone = mauisched::time::Zone::utc();
    let mut svc = Service::in_memory(loaded.config, Default::default());
    let text = std::fs::read_to_string(data("snapshot.json")).unwrap();
    let mut snap = mauisched::Snapshot::from_json(&text).unwrap();
    svc.iterate(&mut snap).unwrap();
    let shared = Shared::new(svc);
    let socket = dir.join("sock");
    let server = shared.serve_admin(&socket).unwrap();
    Live {
        shared,
        socket,
        dir,
        server: Some(server),
    }
}

impl Live {
    fn ask(&self, cmd: &str, args: &[&str], json: bool) -> (i32, String, String) {
        let mut a = vec![cmd];
        a.extend_from_slice(args);
        a.extend(["--socket", self.socket.to_str().unwrap()]);
        if json {
            a.push("--json");
        }
        mauictl(&a)
    }
}

fn bless() -> bool {
    std::env::var_os("MAUISCHED_BLESS").is_some()
}

fn check_golden(file: &Path, got: &str) {
    if bless() {
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(file, got).unwrap();
        return;
    }
    let want = std::fs::read_to_string(file).unwrap_or_else(|e| {
        panic!(
            "{}: {e}; write it with MAUISCHED_BLESS=1 cargo test --test commands",
            file.display()
        )
    });
    if got != want {
        panic!(
            "{} differs (MAUISCHED_BLESS=1 rewrites it after a deliberate change): {}",
            file.display(),
            first_difference(got, &want)
        );
    }
}

/// The first line where two outputs differ, both ways.
fn first_difference(a: &str, b: &str) -> String {
    let (la, lb): (Vec<&str>, Vec<&str>) = (a.lines().collect(), b.lines().collect());
    let i = la
        .iter()
        .zip(&lb)
        .position(|(x, y)| x != y)
        .unwrap_or(la.len().min(lb.len()));
    format!(
        "line {}: {:?} against {:?}",
        i + 1,
        la.get(i).unwrap_or(&"<end>"),
        lb.get(i).unwrap_or(&"<end>")
    )
}

/// Every reading case, offline, as its golden file; and the running
/// scheduler answers the same, byte for byte.
#[test]
fn reading_commands_match_their_golden_output_offline_and_live() {
    let l = live("golden");
    for (name, cmd, args) in CASES {
        for json in [false, true] {
            let (code, out, err) = offline(cmd, args, json);
            assert_eq!(code, 0, "{cmd} {args:?} (json {json}): {err}");
            let ext = if json { "json" } else { "txt" };
            let portable = out.replace(env!("CARGO_MANIFEST_DIR"), "$SRC");
            check_golden(&golden_dir().join(format!("{name}.{ext}")), &portable);
            let (lcode, lout, lerr) = l.ask(cmd, args, json);
            assert_eq!(lcode, 0, "live {cmd} {args:?}: {lerr}");
            if out != lout {
                panic!(
                    "{cmd} {args:?} (json {json}): offline and live differ: {}",
                    first_difference(&out, &lout)
                );
            }
        }
    }
}

/// The changing commands' answers, text and JSON, as golden files: each
/// sequence runs on a fresh scheduler. Machine-dependent words (this
/// checkout's path, the user running the tests) are replaced first.
#[test]
fn changing_commands_match_their_golden_output() {
    let root = env!("CARGO_MANIFEST_DIR");
    let me = mauisched::socket::user_name(mauisched::socket::own_uid()).unwrap_or_default();
    for json in [false, true] {
        let l = live(if json { "changes-json" } else { "changes-text" });
        for (i, (cmd, args)) in CHANGES.iter().enumerate() {
            let (code, out, err) = l.ask(cmd, args, json);
            assert_eq!(code, 0, "{cmd} {args:?}: {err}");
            let mut out = out.replace(root, "$SRC");
            if !me.is_empty() {
                out = out.replace(&format!("\"{me}\""), "\"$USER\"");
                out = out.replace(&format!(" {me} "), " $USER ");
                out = out.replace(&format!(" {me})"), " $USER)");
            }
            let ext = if json { "json" } else { "txt" };
            check_golden(
                &golden_dir().join(format!("change-{i:02}-{cmd}.{ext}")),
                &out,
            );
        }
    }
}

/// Every flag mauisched takes is used by a case that succeeds; every flag
/// it refuses is refused, live and offline, with the reason its table gives.
#[test]
fn every_flag_is_taken_or_refused_with_its_reason() {
    let l = live("flags");
    let mut used: BTreeSet<(String, String)> = BTreeSet::new();
    for (_, cmd, args) in CASES {
        for a in args.iter().filter(|a| a.starts_with('-')) {
            used.insert((cmd.to_string(), a.to_string()));
        }
    }
    for (cmd, args) in CHANGES {
        let (code, out, err) = l.ask(cmd, args, false);
        assert_eq!(code, 0, "{cmd} {args:?}: {err}");
        assert!(!out.is_empty(), "{cmd} {args:?} says nothing");
        for a in args.iter().filter(|a| a.starts_with('-') && a.len() == 2) {
            used.insert((cmd.to_string(), a.to_string()));
        }
    }
    for sp in spec::SPECS {
        if let Support::No(why) = sp.support {
            let (code, _, err) = mauictl(&[sp.name]);
            assert_eq!(code, 1, "{}: {err}", sp.name);
            assert!(
                err.contains(&format!("{}: not supported by mauisched: {why}", sp.name)),
                "{}: {err}",
                sp.name
            );
            continue;
        }
        for f in sp.flags {
            let key = (sp.name.to_string(), f.name.to_string());
            match f.support {
                Support::No(why) => {
                    let mut args = vec![f.name];
                    if f.value.is_some_and(|v| !v.starts_with('[')) {
                        args.push("x");
                    }
                    let want = format!("{} {}: not supported by mauisched: {why}", sp.name, f.name);
                    let (code, _, err) = l.ask(sp.name, &args, false);
                    assert_eq!(code, 2, "{} {}: {err}", sp.name, f.name);
                    assert!(err.contains(&want), "{} {}: {err}", sp.name, f.name);
                    if sp.reads {
                        let (code, _, err) = offline(sp.name, &args, false);
                        assert_eq!(code, 2, "offline {} {}: {err}", sp.name, f.name);
                        assert!(err.contains(&want), "offline {} {}: {err}", sp.name, f.name);
                    }
                }
                _ => assert!(
                    used.contains(&key),
                    "{} {} is taken but no case uses it",
                    sp.name,
                    f.name
                ),
            }
        }
        // An unknown flag is named, with where to read the list.
        let (code, _, err) = l.ask(sp.name, &["-Z"], false);
        assert_eq!(code, 2, "{}: {err}", sp.name);
        assert!(
            err.contains(&format!("{}: unknown option \"-Z\"", sp.name))
                && err.contains(&format!("`{} -h` lists the options", sp.name)),
            "{}: {err}",
            sp.name
        );
    }
}

/// Ids, partitions and credentials that do not exist are named; Torque's
/// short ids are whole ones; `-c` after a command is Maui's.
#[test]
fn errors_name_what_is_wrong_and_short_ids_work() {
    let (code, _, err) = offline("showq", &["-p", "nope"], false);
    assert_eq!(code, 1);
    assert!(
        err.contains("showq -p nope: no partition \"nope\" (partitions: ALL, batch, gpu)"),
        "{err}"
    );
    let (code, _, err) = offline("checkjob", &["9999"], false);
    assert_eq!(code, 1);
    assert!(
        err.contains("job 9999 is not known to the scheduler"),
        "{err}"
    );
    let (code, _, err) = offline("diagnose", &["-u", "mallory"], false);
    assert_eq!(code, 1);
    assert!(err.contains("no user \"mallory\""), "{err}");
    let (code, _, err) = offline("showstats", &["-c", "nosuch"], false);
    assert_eq!(code, 1);
    assert!(err.contains("cannot locate class 'nosuch'"), "{err}");
    let (code, _, err) = offline("showres", &["nosuch"], false);
    assert_eq!(code, 1);
    assert!(err.contains("no reservation \"nosuch\""), "{err}");
    // 5111 is 5111.head, in every command that takes a job.
    for (cmd, args) in [
        ("checkjob", vec!["5111"]),
        ("showstart", vec!["5111"]),
        ("diagnose", vec!["-j", "5111"]),
    ] {
        let (code, out, err) = offline(cmd, &args, false);
        assert_eq!(code, 0, "{cmd}: {err}");
        assert!(out.contains("5111.head"), "{cmd}: {out}");
    }
    // showbf -c CLASS asks as that class: the gpu nodes its standing
    // reservation keeps for it are open.
    let (_, all, _) = offline("showbf", &[], false);
    let (_, gpu, _) = offline("showbf", &["-c", "gpu"], false);
    assert_ne!(all, gpu);
    // Offline, a changing command is refused; --fs-dir must exist.
    let (code, _, err) = offline("setres", &["cpu01"], false);
    assert_eq!(code, 2);
    assert!(
        err.contains("setres changes the running scheduler"),
        "{err}"
    );
    let (code, _, err) = mauictl(&["diagnose", "-f", "--fs-dir", "/nonexistent/fs"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("--fs-dir /nonexistent/fs: no such directory"),
        "{err}"
    );
    let (code, out, err) = mauictl(&[
        "diagnose",
        "-f",
        "--fs-dir",
        std::env::temp_dir().to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "diagnose -f offline needs no snapshot: {err}");
    assert!(out.starts_with("FairShare Information"), "{out}");
}

/// A socket the caller may not open is named as a permission problem
/// (as root, the client runs as nobody: root opens any socket).
#[test]
fn a_socket_the_caller_may_not_open_is_a_permission_error() {
    use std::os::unix::fs::PermissionsExt;
    use std::os::unix::process::CommandExt;
    let l = live("perm");
    std::fs::set_permissions(&l.socket, std::fs::Permissions::from_mode(0o000)).unwrap();
    let mut c = Command::new(env!("CARGO_BIN_EXE_mauictl"));
    c.args(["showq", "--socket", l.socket.to_str().unwrap()]);
    if mauisched::socket::own_uid() == 0 {
        std::fs::set_permissions(&l.dir, std::fs::Permissions::from_mode(0o755)).unwrap();
        c.uid(65534).gid(65534);
    }
    let out = c.output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("permission denied on the scheduler's socket"),
        "{err}"
    );
    assert!(!err.contains("no scheduler is answering"), "{err}");
}

/// Maui's states: a held job gets no estimate, a job waiting on a
/// dependency or its begin time is Idle (blocked), not Deferred (a defer
/// hold); checkjob --json gives one estimate and one bypass count.
#[test]
fn states_and_estimates_say_what_maui_says() {
    let (_, held, _) = offline("checkjob", &["5109"], false);
    assert!(held.contains("State: Hold"), "{held}");
    assert!(!held.contains("Estimated start"), "{held}");
    let (_, q, _) = offline("showq", &["-b"], false);
    assert!(!q.contains("Deferred"), "{q}");
    for id in ["5111.head", "5112.head"] {
        let row = q.lines().find(|l| l.starts_with(id)).unwrap_or_default();
        assert!(row.contains(" Idle "), "{id}: {q}");
    }
    for id in ["5115", "5113", "5107"] {
        let (_, j, _) = offline("checkjob", &[id], true);
        let v: serde_json::Value = serde_json::from_str(&j).unwrap();
        assert_eq!(v["plan"]["estimated_start"], v["estimated_start"], "{id}");
        assert_eq!(v["plan"]["bypass_count"], v["job"]["bypass_count"], "{id}");
    }
}

/// `-h` lists each command's flags, and its manual page (read with
/// `man -l`) lists the same.
#[test]
fn help_and_manual_pages_list_every_flag() {
    let dir = std::env::temp_dir().join(format!("mauisched-commands-man-{}", std::process::id()));
    let (code, _, err) = mauictl(&["man", dir.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let have_man = Command::new("man").arg("--version").output().is_ok();
    assert!(
        have_man,
        "man is not installed: scripts/deps.sh test installs man-db"
    );
    for sp in spec::SPECS {
        let (code, help, err) = mauictl(&[sp.name, "-h"]);
        assert_eq!(code, 0, "{} -h: {err}", sp.name);
        assert!(
            help.contains(&format!("Usage: {}", sp.synopsis())),
            "{help}"
        );
        for f in sp.flags {
            assert!(
                help.contains(&format!("  {}", f.name)),
                "{} -h lacks {}:\n{help}",
                sp.name,
                f.name
            );
        }
        // How mauisched's command differs from Maui's is said in both.
        let differs = match sp.support {
            Support::Differs(d) => Some(format!("In mauisched: {d}.")),
            _ => None,
        };
        if let Some(d) = &differs {
            assert!(
                help.contains(d.as_str()),
                "{} -h lacks {d:?}:\n{help}",
                sp.name
            );
        }
        let page = dir.join(format!("{}.1", sp.name));
        if matches!(sp.support, Support::No(_)) {
            assert!(!page.exists(), "{} is not installed", sp.name);
            continue;
        }
        let out = Command::new("man")
            .arg("-l")
            .arg(&page)
            .env("MANWIDTH", "200")
            .env("MAN_KEEP_FORMATTING", "0")
            .env("TERM", "dumb")
            .output()
            .unwrap();
        assert!(out.status.success(), "man -l {}", page.display());
        // Bold and underline come as overstrikes when not a terminal.
        let text: String = String::from_utf8_lossy(&out.stdout)
            .split('\u{8}')
            .enumerate()
            .map(|(i, s)| if i == 0 { s } else { s.get(1..).unwrap_or("") })
            .collect();
        for f in sp.flags {
            assert!(
                text.contains(f.name),
                "man {}: lacks {}:\n{text}",
                sp.name,
                f.name
            );
        }
        assert!(
            text.contains(&format!("{} - {}", sp.name, sp.summary)),
            "{text}"
        );
        if let Some(d) = &differs {
            let flat: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
            assert!(
                flat.contains(d.as_str()),
                "man {} lacks {d:?}:\n{text}",
                sp.name
            );
        }
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// docs/commands.md is the table itself.
#[test]
fn the_commands_page_is_the_table() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("docs/commands.md");
    check_golden(&path, &spec::markdown());
}

/// The plan `mauictl plan --json` prints for a plan: its JSON with each
/// time's local (UTC) form beside it.
fn plan_json(plan: &mauisched::Plan) -> serde_json::Value {
    let mut v = serde_json::to_value(plan).unwrap();
    mauisched::views::with_local_times(&mut v, &mauisched::time::Zone::utc());
    v
}

/// `mauictl snapshot` writes what the running scheduler's last iteration
/// was given with the memory it started from; `plan --snapshot` on that
/// file, under the same maui.cfg, gives the running scheduler's plan,
/// byte for byte, after operators' changes (a reservation, a system
/// priority, a hold waiting to go out) and a second iteration that
/// accrued fairshare and queue time.
#[test]
fn a_live_snapshot_plans_offline_as_the_scheduler_did() {
    let l = live("snapshot");
    let change = |cmd: &str, args: &[&str]| {
        let (code, _, err) = l.ask(cmd, args, false);
        assert_eq!(code, 0, "{cmd}: {err}");
    };
    let text = std::fs::read_to_string(data("snapshot.json")).unwrap();
    let at = |dt: i64| {
        let mut snap = mauisched::Snapshot::from_json(&text).unwrap();
        snap.now = Some(snap.now.unwrap() + dt);
        snap
    };
    change("setres", &["-n", "maint", "-d", "2:00:00", "cpu07"]);
    change("setspri", &["50", "5115"]);
    l.shared.lock().iterate(&mut at(600)).unwrap();
    change("sethold", &["5113"]);
    let mut snap = at(1200);
    let now = snap.now.unwrap();
    let live_plan = l.shared.lock().iterate(&mut snap).unwrap().plan;
    assert!(!live_plan.actions.is_empty(), "the hold goes out");

    let file = l.dir.join("s.json");
    let (code, out, err) = l.ask("snapshot", &["-o", file.to_str().unwrap()], false);
    assert_eq!((code, out.as_str()), (0, ""), "{err}");
    let (code, out, err) = l.ask("snapshot", &[], false);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, std::fs::read_to_string(&file).unwrap());
    let doc: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(doc["now"], now);
    let res = doc["admin_reservations"]["records"][0]["id"]
        .as_str()
        .unwrap();
    assert!(res.starts_with("maint"), "{res}");
    assert_eq!(doc["state"]["system_priority"]["5115.head"], 50);
    assert_eq!(doc["state"]["pending_actions"][0]["job"], "5113.head");
    assert!(doc["fairshare"]["windows"][0]["usage"]["USER"].is_object());

    let cfg = data("maui.cfg");
    let (code, out, err) = mauictl(&[
        "plan",
        "--snapshot",
        file.to_str().unwrap(),
        "-C",
        cfg.to_str().unwrap(),
        "--json",
    ]);
    assert_eq!(code, 0, "{err}");
    let offline: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(offline, plan_json(&live_plan));
    // The reading commands use the memory too: the reservation and the
    // hold are there offline.
    let (code, out, err) = mauictl(&[
        "showres",
        "--snapshot",
        file.to_str().unwrap(),
        "-C",
        cfg.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("maint"), "{out}");
}

/// `schedctl -n FILE` writes the node table (Maui's resource trace) into
/// FILE, and `simulate --cluster FILE` reads it back as the same nodes.
#[test]
fn schedctl_n_writes_a_resource_trace_that_simulate_reads() {
    let l = live("nodetable");
    let file = l.dir.join("nodes.trace");
    let (code, out, err) = l.ask("schedctl", &["-n", file.to_str().unwrap()], false);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        out,
        format!("node table (16 node(s)) written to {}\n", file.display())
    );
    let (_, table, _) = l.ask("schedctl", &["-n"], false);
    assert_eq!(std::fs::read_to_string(&file).unwrap(), table);
    let nodes = mauisched::sim::cluster::load_cluster(&file).unwrap();
    let text = std::fs::read_to_string(data("snapshot.json")).unwrap();
    let snap = mauisched::Snapshot::from_json(&text).unwrap();
    let names = |v: &[mauisched::snapshot::Node]| -> Vec<String> {
        v.iter().map(|n| n.name.clone()).collect()
    };
    assert_eq!(names(&nodes), names(&snap.nodes));
    for (a, b) in nodes.iter().zip(&snap.nodes) {
        assert_eq!(a.configured, b.configured, "{}", a.name);
    }
    let (code, out, err) = mauictl(&[
        "simulate",
        "--demo",
        "--jobs",
        "20",
        "--cluster",
        file.to_str().unwrap(),
        "-q",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains(&format!("cluster      {} (16 nodes", file.display())),
        "{out}"
    );
}

/// `whatif live` compares the running configuration (read back from
/// showconfig) with a candidate on the running scheduler's snapshot:
/// the same file is no difference; a candidate without reservations
/// changes them.
#[test]
fn whatif_live_compares_with_the_running_scheduler() {
    let l = live("whatif");
    let cfg = data("maui.cfg");
    let socket = l.socket.to_str().unwrap().to_string();
    let (code, out, err) = mauictl(&[
        "whatif",
        "live",
        "-C",
        cfg.to_str().unwrap(),
        "--socket",
        &socket,
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("no difference: the candidate makes the same decisions"),
        "{out}"
    );
    assert!(
        out.contains("current    the running configuration (showconfig)"),
        "{out}"
    );
    let cand = l.dir.join("cand.cfg");
    let text = std::fs::read_to_string(&cfg)
        .unwrap()
        .replace("RESERVATIONDEPTH    2", "RESERVATIONDEPTH    0");
    std::fs::write(&cand, text).unwrap();
    let (code, out, err) = mauictl(&[
        "whatif",
        "live",
        "-C",
        cand.to_str().unwrap(),
        "--socket",
        &socket,
        "--json",
    ]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["identical"], false);
    let moved = v["reservations"].as_array().unwrap();
    assert!(
        moved
            .iter()
            .any(|m| m["kind"] == "Job" && m["candidate"].is_null()),
        "{out}"
    );
}
