//! `mauictl convert` then `mauictl simulate`, as a site runs them on its own
//! accounting data (docs/testing-a-config.md), on the exports of
//! tests/data/convert.

use std::path::{Path, PathBuf};
use std::process::Command;

fn data(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/convert")
        .join(name)
        .display()
        .to_string()
}

/// Runs mauictl in UTC (the fixtures' local times are UTC).
fn mauictl(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_mauictl"))
        .args(args)
        .env("TZ", "UTC")
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("mauictl-convert-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn write(dir: &Path, name: &str, text: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p.display().to_string()
}

const BASE_CFG: &str =
    "RMPOLLINTERVAL 00:00:30\nQUEUETIMEWEIGHT 1\nBACKFILLPOLICY FIRSTFIT\nRESERVATIONDEPTH 1\n";

/// Job ids of jobs.csv in the order they started.
fn start_order(dir: &Path) -> Vec<String> {
    let csv = std::fs::read_to_string(dir.join("jobs.csv")).unwrap();
    let mut v: Vec<(i64, String)> = csv
        .lines()
        .skip(1)
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            (f[3].parse().unwrap(), f[0].to_string())
        })
        .collect();
    v.sort();
    v.into_iter().map(|(_, id)| id).collect()
}

fn summary(dir: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(dir.join("summary.json")).unwrap()).unwrap()
}

fn names(v: &serde_json::Value) -> Vec<String> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x["name"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn sacct_to_maui_trace_simulates_with_qos_and_account_policy() {
    let dir = temp_dir("maui");
    let trace = dir.join("site.trace").display().to_string();
    let (code, out, err) = mauictl(&[
        "convert",
        "sacct",
        &data("sacct-22.05.txt"),
        "--to",
        "maui",
        "-o",
        &trace,
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.is_empty());
    // The losses, counted, on stderr.
    for want in [
        "convert sacct -> Maui workload trace: 7 job(s) written, from 14 line(s) in 1 file(s)\n",
        "        3  job step lines (123.batch, 123.0; sacct -X leaves them out)\n",
        "        1  array remainder lines (123_[5-10]: tasks never started)\n",
        "        1  cancelled before starting (CANCELLED with Start Unknown)\n",
        "        2  State FAILED, TIMEOUT, NODE_FAIL, OUT_OF_MEMORY...: Completed",
    ] {
        assert!(err.contains(want), "{want:?} missing from\n{err}");
    }
    let cluster = write(&dir, "cluster.txt", "n[1-4] procs=16 mem=256G\n");
    let base = write(&dir, "base.cfg", BASE_CFG);
    let qos = write(
        &dir,
        "qos.cfg",
        &format!("{BASE_CFG}QOSWEIGHT 1\nQOSCFG[high] PRIORITY=100000\n"),
    );
    let fs = write(
        &dir,
        "fs.cfg",
        &format!(
            "{BASE_CFG}FSPOLICY DEDICATEDPS\nFSINTERVAL 24:00:00\nFSWEIGHT 1\nFSACCOUNTWEIGHT 1000\nACCOUNTCFG[physics] FSTARGET=50\nACCOUNTCFG[chem] FSTARGET=50\n"
        ),
    );
    let mut orders = Vec::new();
    for (cfg, name) in [(&base, "base"), (&qos, "qos"), (&fs, "fs")] {
        let out_dir = dir.join(name);
        let (code, out, err) = mauictl(&[
            "-C",
            cfg,
            "simulate",
            &trace,
            "--cluster",
            &cluster,
            "--out",
            out_dir.to_str().unwrap(),
        ]);
        assert_eq!(code, 0, "{err}");
        assert!(out.contains("fairshare    account      jobs"), "{out}");
        assert!(out.contains("fairshare    QOS          jobs"), "{out}");
        let s = summary(&out_dir);
        assert_eq!(names(&s["accounts"]), ["bio", "chem", "physics"]);
        assert_eq!(names(&s["qos"]), ["high", "normal"]);
        assert_eq!(s["completed"], 6);
        orders.push(start_order(&out_dir));
    }
    // The Maui trace keeps the site's job ids.
    assert_eq!(
        orders[0],
        ["2001", "2002", "2003", "2004", "2006_1", "2006_2"]
    );
    // QOSCFG[high]: carol's QOS-high job first.
    assert_eq!(
        orders[1],
        ["2001", "2004", "2002", "2003", "2006_1", "2006_2"]
    );
    // Account fairshare: chem before physics, which used the machine first.
    assert_eq!(
        orders[2],
        ["2001", "2003", "2002", "2004", "2006_1", "2006_2"]
    );
}

#[test]
fn sacct_to_swf_keeps_accounts_through_the_header_and_map() {
    let dir = temp_dir("swf");
    let swf = dir.join("site.swf").display().to_string();
    let map = dir.join("site.map").display().to_string();
    let (code, _, err) = mauictl(&[
        "convert",
        "sacct",
        &data("sacct-24.11-epoch.txt"),
        "-o",
        &swf,
        "--map",
        &map,
        "--max-nodes",
        "4",
        "--max-procs",
        "64",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.starts_with("convert sacct -> SWF: 7 job(s) written"),
        "{err}"
    );
    assert!(
        err.contains(&format!("the original ids are in {map}")),
        "{err}"
    );
    let text = std::fs::read_to_string(&swf).unwrap();
    assert!(text.contains("; job 4 account chem qos high\n"), "{text}");
    let m = std::fs::read_to_string(&map).unwrap();
    assert!(m.contains("job\t4\t2004\n"), "{m}");
    let (code, out, err) = mauictl(&["trace-info", &swf]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("Credentials: 4 users, 3 groups, 2 classes, 3 accounts, 2 QOS\n"),
        "{out}"
    );
    let out_dir = dir.join("out");
    let (code, _, err) = mauictl(&["simulate", &swf, "--out", out_dir.to_str().unwrap(), "-q"]);
    assert_eq!(code, 0, "{err}");
    let s = summary(&out_dir);
    assert_eq!(s["cluster"], "<synthesised from the SWF header>");
    assert_eq!(names(&s["accounts"]), ["bio", "chem", "physics"]);
    let users: Vec<&str> = s["users"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| u["user"].as_str().unwrap())
        .collect();
    assert_eq!(users, ["alice", "bob", "carol", "erin"]);
}

#[test]
fn torque_to_maui_trace_simulates_on_the_cluster_it_names() {
    let dir = temp_dir("torque");
    let trace = dir.join("site.trace").display().to_string();
    let (code, _, err) = mauictl(&[
        "convert",
        "torque-acct",
        &data("torque/20240304"),
        &data("torque/20240305"),
        "--to",
        "maui",
        "-o",
        &trace,
    ]);
    assert_eq!(code, 0, "{err}");
    for want in [
        "        1  array parents (123[].srv: its tasks are jobs of their own)\n",
        "        1  jobs queued but not ended (no E, D or A record)\n",
    ] {
        assert!(err.contains(want), "{want:?} missing from\n{err}");
    }
    // No --cluster: the trace's `# MaxNodes: 4` and `# MaxProcs: 64`.
    let out_dir = dir.join("out");
    let (code, out, err) = mauictl(&["simulate", &trace, "--out", out_dir.to_str().unwrap(), "-q"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("(4 nodes, 64 processors)"), "{out}");
    let s = summary(&out_dir);
    assert_eq!(names(&s["accounts"]), ["bio", "chem", "physics"]);
    assert_eq!(names(&s["qos"]), ["high", "normal"]);
    assert_eq!(s["completed"], 6);
    let csv = std::fs::read_to_string(out_dir.join("jobs.csv")).unwrap();
    assert!(csv.contains("\n3008.srv,frank,"), "{csv}");
}

#[test]
fn malformed_accounting_names_file_line_and_column() {
    let dir = temp_dir("bad");
    let text = std::fs::read_to_string(data("sacct-22.05.txt"))
        .unwrap()
        .replace("2024-03-04T09:02:00", "2024-13-04T09:02:00");
    let bad = write(&dir, "march.txt", &text);
    let (code, out, err) = mauictl(&["convert", "sacct", &bad, "--to", "maui"]);
    assert_eq!(code, 1);
    assert!(out.is_empty());
    assert_eq!(
        err,
        format!("mauictl: {bad}:7:33: Submit (2024-13-04T09:02:00): expected YYYY-MM-DDTHH:MM:SS or epoch seconds, got \"2024-13-04T09:02:00\"\n")
    );
    let (code, out, err) = mauictl(&["convert", "sacct", &bad, "--to", "maui", "--lenient"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("VERSION 230\n"));
    assert!(
        err.contains(
            "        1  malformed line(s) skipped (--lenient), at fault: 1 Submit; first: "
        ),
        "{err}"
    );
}

#[test]
fn map_is_for_swf_and_help_names_the_formats() {
    let (code, _, err) = mauictl(&[
        "convert",
        "sacct",
        &data("sacct-22.05.txt"),
        "--to",
        "maui",
        "--map",
        "x.map",
    ]);
    assert_eq!(code, 1);
    assert!(err.contains("--map"), "{err}");
    let (code, out, _) = mauictl(&["convert", "--help"]);
    assert_eq!(code, 0);
    for want in [
        "--to <TRACE_FORMAT>",
        "swf",
        "maui",
        "Account,Partition,QOS",
    ] {
        assert!(out.contains(want), "{want:?} missing from\n{out}");
    }
}
