//! `mauictl diagnose -p|-f` on a snapshot, as an administrator runs them.

use mauisched::Snapshot;
use std::path::PathBuf;
use std::process::Command;

fn mauictl(args: &[&str]) -> (i32, String, String) {
    // Commands without an offline input ask the running scheduler: make
    // sure none answers.
    let out = Command::new(env!("CARGO_BIN_EXE_mauictl"))
        .args(args)
        .env("MAUISCHED_SOCKET", "/nonexistent/mauisched-test.sock")
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("mauictl-diag-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// The example of docs/snapshot.md, so the documentation stays true.
fn doc_example() -> String {
    let doc =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/snapshot.md")).unwrap();
    let start = doc.find("```json\n").unwrap() + 8;
    let end = start + doc[start..].find("```").unwrap();
    doc[start..end].to_string()
}

const CFG: &str = "\
QUEUETIMEWEIGHT 1
XFACTORWEIGHT 100
QOSWEIGHT 1
QOSCFG[high] PRIORITY=500
FSPOLICY DEDICATEDPS
FSINTERVAL 12:00:00
FSWEIGHT 10
FSUSERWEIGHT 10
USERCFG[john] FSTARGET=30
USERCFG[paul] FSTARGET=60
";

/// A site with the documented snapshot, its maui.cfg and one fairshare
/// window in which john used 75% and paul 25%.
fn site(name: &str) -> (PathBuf, String, String, String) {
    let d = dir(name);
    std::fs::write(d.join("snap.json"), doc_example()).unwrap();
    std::fs::write(d.join("maui.cfg"), CFG).unwrap();
    let fs = d.join("stats");
    std::fs::create_dir_all(&fs).unwrap();
    std::fs::write(
        fs.join("FS.1728000000"),
        "# Fairshare Data File (Duration: 43200 Seconds) Starting: Fri Oct  4 00:00:00\n\n\
         User john 300000.000\nUser paul 100000.000\nTOTAL 400000.000\n",
    )
    .unwrap();
    let s = |p: PathBuf| p.to_str().unwrap().to_string();
    (
        d.clone(),
        s(d.join("snap.json")),
        s(d.join("maui.cfg")),
        s(fs),
    )
}

#[test]
fn the_documented_example_is_a_valid_snapshot() {
    let s = Snapshot::from_json(&doc_example()).unwrap();
    assert_eq!(s.now, Some(1_728_007_200));
    assert_eq!(s.nodes.len(), 2);
    assert_eq!(s.jobs.len(), 4);
    assert_eq!(s.jobs[1].task.mem, 512);
}

#[test]
fn diagnose_p_prints_each_idle_jobs_components() {
    let (d, snap, cfg, fs) = site("p");
    let (code, out, err) = mauictl(&[
        "diagnose",
        "-p",
        "--snapshot",
        &snap,
        "-C",
        &cfg,
        "--fs-dir",
        &fs,
    ]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(err, "");
    // 103 (paul, QOS high, 8 procs, 4 h, queued 2 h):
    //   QOS 500 + FS 10*10*(60-25) = 3500 + 120 min + 100 * (1 + 2/4) = 4270.
    // 102 (john, queued 1 h, 1 h walltime):
    //   FS 10*10*(30-75) = -4500 + 60 + 100 * 2 = -4240, bounded to 1.
    // 104 is held; 101 runs.
    let want = "\
diagnosing job priority information (partition: ALL)

Job      PRIORITY*   Cred( QOS)      FS( User)   Serv(QTime:XFctr)
Weights   --------      1(   1)      10(   10)      1(    1:  100)

103          4270   11.71( 500)   81.97(   35)   6.32(  120: 1.50)
102             1    0.00(   0)  106.13(  -45)  -6.13(   60:    2)

Totals     100.00    5.85(5.85)   94.05(94.05)   0.10( 0.70:-0.60)

* indicates system prio set on job
";
    assert_eq!(out, want);

    let (code, out, _) = mauictl(&[
        "diagnose",
        "-p",
        "--json",
        "--snapshot",
        &snap,
        "-C",
        &cfg,
        "--fs-dir",
        &fs,
    ]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["jobs"][0]["job"], "103");
    assert_eq!(v["jobs"][0]["priority"], 4270);
    assert_eq!(v["jobs"][1]["raw"], -4240.0);
    assert_eq!(v["jobs"][1]["fs"][0]["usage"], 75.0);
    assert_eq!(v["weights"]["FS"]["subcomponents"]["FSUSER"], 10);
    std::fs::remove_dir_all(d).ok();
}

#[test]
fn diagnose_f_reports_usage_and_damaged_files() {
    let (d, _, cfg, fs) = site("f");
    std::fs::write(
        PathBuf::from(&fs).join("FS.1727956800"),
        "User john 10\nUser paul ten\nTOTAL 20\n",
    )
    .unwrap();
    let (code, out, err) = mauictl(&["diagnose", "-f", "-C", &cfg, "--fs-dir", &fs]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("/FS.1727956800:2: error: expected a usage amount (a number >= 0), got \"ten\" (file ignored)"),
        "{err}"
    );
    assert!(out.starts_with("FairShare Information\n"), "{out}");
    assert!(
        out.contains("\njohn          75.00    30.00   75.00\n"),
        "{out}"
    );
    assert!(
        out.contains("\npaul          25.00    60.00   25.00\n"),
        "{out}"
    );
    let (code, out, _) = mauictl(&["diagnose", "-f", "--json", "-C", &cfg, "--fs-dir", &fs]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["creds"][0]["name"], "john");
    assert_eq!(v["creds"][0]["usage"], 75.0);
    assert_eq!(v["windows"][0]["total"], 400000.0);
    std::fs::remove_dir_all(d).ok();
}

#[test]
fn diagnose_refuses_bad_input() {
    let (d, snap, cfg, _) = site("bad");
    let (code, _, err) = mauictl(&["diagnose", "--snapshot", &snap]);
    assert_eq!(code, 2, "a mode is required");
    assert!(
        err.contains("one of -a, -c, -f, -g, -j, -n, -p, -q, -Q, -r, -t or -u is needed"),
        "{err}"
    );
    // Without --snapshot, diagnose asks the running scheduler (none here).
    let (code, _, err) = mauictl(&["diagnose", "-p", "-C", &cfg]);
    assert_eq!(code, 3);
    assert!(err.contains("no scheduler is answering"), "{err}");
    let bad = d.join("bad.json");
    std::fs::write(&bad, r#"{"nodes": [{"name": "a", "procs": 4}]}"#).unwrap();
    let (code, _, err) = mauictl(&["diagnose", "-p", "--snapshot", bad.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(err.contains("unknown field `procs`"), "{err}");
    let broken_cfg = d.join("broken.cfg");
    std::fs::write(&broken_cfg, "FSDECAY 2\n").unwrap();
    let (code, _, err) = mauictl(&["diagnose", "-f", "-C", broken_cfg.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(err.contains("has errors"), "{err}");
    std::fs::remove_dir_all(d).ok();
}
