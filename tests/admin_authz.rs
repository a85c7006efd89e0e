//! The admin socket's authorisation matrix with real peer credentials:
//! test users are created (`useradd`, idempotent) and `mauictl` runs as
//! each of them (`setpriv`), against a scheduler whose maui.cfg names
//! them ADMIN3, ADMIN2 and ADMIN1; root and an unnamed uid complete the
//! matrix.
//!
//! Creating users needs root. Without root the test says so and passes
//! without checking anything, except where the test suite must run in
//! full (`CI` or `MAUISCHED_REQUIRE_SLURM` set, as `.ci/run` does): there
//! it fails.

mod admin_common;

use admin_common::*;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;

/// (name, level the configuration gives it: 0 user, 3, 2, 1 = ADMINn)
const USERS: [(&str, u8); 4] = [
    ("mauiuser", 0),
    ("mauiadm3", 3),
    ("mauiadm2", 2),
    ("mauiadm1", 1),
];

const CFG: &str = "ADMIN1 root mauiadm1\nADMIN2 mauiadm2\nADMIN3 mauiadm3\n";

fn must_run() -> bool {
    ["CI", "MAUISCHED_REQUIRE_SLURM"]
        .iter()
        .any(|v| std::env::var_os(v).is_some_and(|x| !x.is_empty()))
}

fn is_root() -> bool {
    mauisched::socket::own_uid() == 0
}

fn id(flag: &str, user: &str) -> Option<u32> {
    let o = Command::new("id").args([flag, user]).output().ok()?;
    String::from_utf8_lossy(&o.stdout).trim().parse().ok()
}

/// Creates the test users if missing (under a lock: parallel test runs
/// must not race useradd); returns (name, uid, gid) of each.
fn ensure_users() -> Vec<(String, u32, u32)> {
    let lock = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open("/tmp/mauisched-test-users.lock")
        .unwrap();
    use std::os::unix::io::AsRawFd;
    // SAFETY: flock on a descriptor we own.
    assert_eq!(unsafe { libc::flock(lock.as_raw_fd(), libc::LOCK_EX) }, 0);
    let mut out = Vec::new();
    for (u, _) in USERS {
        if id("-u", u).is_none() {
            let st = Command::new("useradd")
                .args([
                    "--system",
                    "--user-group",
                    "--no-create-home",
                    "--home-dir",
                    "/nonexistent",
                    "--shell",
                    "/usr/sbin/nologin",
                    "--comment",
                    "mauisched admin socket test user",
                    u,
                ])
                .status()
                .expect("useradd (passwd package)");
            assert!(st.success(), "useradd {u}");
        }
        out.push((u.to_string(), id("-u", u).unwrap(), id("-g", u).unwrap()));
    }
    out
}

/// mauictl, copied where every user may run it.
fn client_binary(dir: &Path) -> PathBuf {
    let bin = dir.join("mauictl");
    std::fs::copy(env!("CARGO_BIN_EXE_mauictl"), &bin).unwrap();
    std::fs::set_permissions(&bin, std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o755)).unwrap();
    bin
}

/// Runs `mauictl --socket SOCK ARGS` as uid/gid (None: as this process).
fn run_as(
    bin: &Path,
    who: Option<(u32, u32)>,
    sock: &Path,
    args: &[&str],
) -> (i32, String, String) {
    let mut cmd = match who {
        Some((uid, gid)) => {
            let mut c = Command::new("setpriv");
            c.args([
                "--reuid",
                &uid.to_string(),
                "--regid",
                &gid.to_string(),
                "--clear-groups",
                "--",
            ])
            .arg(bin);
            c
        }
        None => Command::new(bin),
    };
    let o = cmd
        .arg("--socket")
        .arg(sock)
        .args(args)
        .env_remove("MAUISCHED_SOCKET")
        .output()
        .expect("setpriv (util-linux)");
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// A client: name, uid/gid to run as (None: this process), its level.
type Client = (String, Option<(u32, u32)>, u8);

/// Every command with the level it needs (0 anyone, 3, 2, 1 = ADMINn).
/// `{u}` is replaced by the user's name (reservation names).
fn matrix() -> Vec<(Vec<&'static str>, u8)> {
    vec![
        (vec!["showq"], 0),
        (vec!["showq", "-r"], 0),
        (vec!["showq", "-i"], 0),
        (vec!["showbf"], 0),
        (vec!["showstart", "C"], 0),
        (vec!["showres"], 0),
        (vec!["checkjob", "B"], 0),
        (vec!["checkjob", "C"], 3),
        (vec!["checknode", "n1"], 3),
        (vec!["diagnose", "-p"], 3),
        (vec!["diagnose", "-q"], 3),
        (vec!["diagnose", "-n"], 3),
        (vec!["showstats"], 3),
        (vec!["showconfig"], 3),
        (vec!["snapshot"], 3),
        (vec!["setspri", "5", "B"], 2),
        (vec!["sethold", "B"], 2),
        (vec!["releasehold", "H"], 2),
        (vec!["setres", "-n", "res-{u}", "n4"], 2),
        (vec!["releaseres", "res-{u}"], 2),
        (vec!["runjob", "-n", "n2", "C"], 1),
        (vec!["schedctl", "-s"], 1),
        (vec!["schedctl", "-R"], 1),
        (vec!["schedctl", "-r"], 1),
    ]
}

fn level_name(l: u8) -> &'static str {
    match l {
        1 => "ADMIN1",
        2 => "ADMIN2",
        _ => "ADMIN3",
    }
}

/// Allowed when the user's level (0 none, else ADMINn) reaches the need.
fn allowed(has: u8, needs: u8) -> bool {
    needs == 0 || (has != 0 && has <= needs)
}

#[test]
fn authorisation_matrix_with_real_peer_credentials() {
    if !is_root() {
        assert!(
            !must_run(),
            "the authorisation tests need root (test users, clients run as them); CI runs as root"
        );
        eprintln!(
            "admin_authz: not root: users cannot be created; the authorisation matrix is skipped"
        );
        return;
    }
    let users = ensure_users();
    let s = Sched::start("authz", CFG);
    let bin = client_binary(&s.dir);
    s.run_queue(T0);
    let sock = s.socket.clone();

    let mut who: Vec<Client> = users
        .iter()
        .zip(USERS)
        .map(|((n, uid, gid), (_, lvl))| (n.clone(), Some((*uid, *gid)), lvl))
        .collect();
    who.push(("root".into(), None, 1));
    // A uid without a name is an ordinary user called #<uid>.
    who.push(("#54321".into(), Some((54321, 54321)), 0));

    for (name, cred, lvl) in &who {
        for (args, needs) in matrix() {
            let args: Vec<String> = args.iter().map(|a| a.replace("{u}", name)).collect();
            let a: Vec<&str> = args.iter().map(String::as_str).collect();
            let (code, out, err) = run_as(&bin, *cred, &sock, &a);
            // checkjob B is mauiuser's own job: allowed to its owner only,
            // unless ADMIN3.
            let needs = if a == ["checkjob", "B"] && name != "mauiuser" {
                3
            } else {
                needs
            };
            if allowed(*lvl, needs) {
                assert_eq!(code, 0, "{name}: {a:?} should be allowed: {err}");
                assert!(!out.is_empty(), "{name}: {a:?}");
            } else {
                assert_eq!(code, 1, "{name}: {a:?} should be refused: {out}{err}");
                let want = format!("needs {}", level_name(needs));
                assert!(err.contains(&want), "{name}: {a:?}: {err}");
                assert!(
                    err.contains("permission denied") || err.contains("checking other users' jobs"),
                    "{err}"
                );
            }
        }
    }

    // Reservation ACLs are for administrators only.
    let plain = who.iter().find(|w| w.0 == "mauiuser").unwrap().1;
    let adm3 = who.iter().find(|w| w.0 == "mauiadm3").unwrap().1;
    let (_, out, _) = run_as(&bin, plain, &sock, &["showres", "--json"]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert!(v["reservations"][0].get("acl").is_none(), "{v}");
    let (_, out, _) = run_as(&bin, adm3, &sock, &["showres", "--json"]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert!(v["reservations"][0].get("acl").is_some(), "{v}");

    // Refusals and changes are logged with who asked, delivered at the
    // host's next call.
    let p = s.run_queue(T0 + 60);
    assert!(
        p.actions.iter().any(|a| a.1 == "B" && a.2 == "mauiadm2"),
        "sethold by mauiadm2 reaches the plan, with its author: {:?}",
        p.actions
    );
    let logs = s.logs().join("\n");
    let (_, uid1, _) = users.iter().find(|u| u.0 == "mauiuser").unwrap();
    assert!(
        logs.contains(&format!(
            "admin socket: setres refused to mauiuser (uid {uid1}, pid "
        )),
        "{logs}"
    );
    assert!(logs.contains("sethold by mauiadm2 (uid "), "{logs}");
    assert!(logs.contains("runjob by mauiadm1 (uid "), "{logs}");
    assert!(
        logs.contains("reservation res-mauiadm2 created by mauiadm2 (uid "),
        "{logs}"
    );
}
