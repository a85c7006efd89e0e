//! `mauictl plan|showbf|showstart|checkjob|showres --snapshot FILE`: one
//! iteration on the seed's backfill scenario (8.2.1), rendered as
//! operators see it, and generic resources (GPUs) in `plan`, `checkjob`,
//! `showbf` and `showres`.

use std::process::Command;

const SNAP: &str = r#"{"now": 1000000,
 "nodes": [{"name": "n1", "configured": {"procs": 1}}, {"name": "n2", "configured": {"procs": 1}},
           {"name": "n3", "configured": {"procs": 1}, "partition": "debug"}],
 "jobs": [
  {"id": "A", "user": "u1", "group": "g", "state": "running", "start_time": 996400, "walltime": 14400, "allocation": [{"node": "n1", "tasks": 1}]},
  {"id": "D", "user": "u4", "group": "g", "state": "running", "start_time": 996400, "walltime": 86400, "allocation": [{"node": "n3", "tasks": 1}]},
  {"id": "B", "user": "u2", "group": "g", "submit_time": 998200, "tasks": 2, "walltime": 3600},
  {"id": "C", "user": "u3", "group": "g", "submit_time": 998800, "tasks": 1, "walltime": 7200}
 ]}"#;

/// A small GPU cluster: typed and untyped GPUs, per-task, per-node and
/// per-job requests, and requests no node can hold.
const GPU_SNAP: &str = include_str!("data/gpu/snapshot.json");

fn run(args: &[&str]) -> (i32, String, String) {
    run_with(SNAP, args)
}

fn run_gpu(args: &[&str]) -> (i32, String, String) {
    run_with(GPU_SNAP, args)
}

fn run_with(snapshot: &str, args: &[&str]) -> (i32, String, String) {
    let dir = std::env::temp_dir().join(format!("mauictl-engine-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let snap = dir.join(format!(
        "snap{}.json",
        N.fetch_add(1, std::sync::atomic::Ordering::SeqCst)
    ));
    // n3 (partition "debug") is busy for a day with D: the seed's scenario
    // plays on n1 and n2.
    std::fs::write(&snap, snapshot).unwrap();
    let mut a: Vec<&str> = args.to_vec();
    let s = snap.to_str().unwrap().to_string();
    a.push("--snapshot");
    a.push(&s);
    let out = Command::new(env!("CARGO_BIN_EXE_mauictl"))
        .args(&a)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn plan_shows_starts_and_reasons() {
    let (code, out, err) = run(&["plan"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("C                n2:1  (backfill)"), "{out}");
    assert!(out.contains("Resources  start"), "{out}");
    let (code, out, _) = run(&["plan", "--json"]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["starts"][0]["job"], "C");
    assert_eq!(v["jobs"][0]["job"], "B");
    assert_eq!(v["jobs"][0]["reason"]["code"], "Resources");
    assert_eq!(v["jobs"][0]["estimated_start"], 1000000 + 3 * 3600);
}

#[test]
fn showbf_lists_windows_per_partition() {
    let (code, out, _) = run(&["showbf"]);
    assert_eq!(code, 0);
    assert!(
        out.starts_with("backfill window (user: 'ALL' group: 'ALL' partition: ALL)"),
        "{out}"
    );
    assert!(out.contains("partition debug:"), "{out}");
    let (_, out, _) = run(&["showbf", "--json"]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["partitions"][0]["partition"], "ALL");
}

#[test]
fn showstart_gives_the_reservation_time() {
    let (code, out, _) = run(&["showstart", "B"]);
    assert_eq!(code, 0);
    assert!(out.contains("job B requires 2 procs for 01:00:00"), "{out}");
    assert!(out.contains("Earliest start in          03:00:00"), "{out}");
    let (code, _, err) = run(&["showstart", "nope"]);
    assert_eq!(code, 1);
    assert!(err.contains("job nope is not known"), "{err}");
}

#[test]
fn checkjob_explains_a_blocked_job() {
    let (code, out, _) = run(&["checkjob", "B", "-v"]);
    assert_eq!(code, 0);
    for want in [
        "job B",
        "State: Idle",
        "StartPriority:",
        "Reservation 'B'",
        "Reason: Resources",
        "insufficient idle procs",
        "Node availability:",
    ] {
        assert!(out.contains(want), "missing {want:?} in\n{out}");
    }
    let (_, out, _) = run(&["checkjob", "A"]);
    assert!(
        out.contains("State: Running") && out.contains("Allocated Nodes:"),
        "{out}"
    );
}

// ---- generic resources --------------------------------------------------

/// GPU jobs start where their GPUs are; the one asking a name no node
/// has, and the typed one no node has, can never run and say why; the
/// CPU job goes anywhere.
#[test]
fn plan_places_gpu_jobs_and_refuses_what_cannot_run() {
    let (code, out, err) = run_gpu(&["plan"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("3                g1:2"), "{out}");
    assert!(out.contains("4                g2:1"), "{out}");
    assert!(
        out.contains("NoFit no node has generic resource tape"),
        "{out}"
    );
    assert!(
        out.contains("NoFit no node has generic resource gpu:v100"),
        "{out}"
    );
    let (_, out, _) = run_gpu(&["plan", "--json"]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let starts: Vec<&str> = v["starts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["job"].as_str().unwrap())
        .collect();
    assert!(
        starts.contains(&"7") && !starts.contains(&"5"),
        "{starts:?}"
    );
}

/// checkjob shows the request as the RM gave it, the RM's task count of
/// a bundled job, and the generic resources a running job holds per node.
#[test]
fn checkjob_shows_request_and_allocation() {
    let (code, out, err) = run_gpu(&["checkjob", "5"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("Total Tasks: 8"), "{out}");
    assert!(out.contains("GRES: gpu:2 (per node)"), "{out}");
    assert!(out.contains("scheduled as 2 bundles of 4 tasks"), "{out}");
    let (_, out, _) = run_gpu(&["checkjob", "1"]);
    assert!(out.contains("Allocated GRES:\n[g1:gpu:2]"), "{out}");
    let (_, out, _) = run_gpu(&["checkjob", "1", "--json"]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["gres"]["per_node"], "gpu:2");
    assert_eq!(v["gres"]["allocated"][0]["gres"]["gpu"], 2);
}

/// showbf lists the GPUs free in each window: on g1 the running job and
/// job 3 hold all four GPUs (two of them a100 by type), on g2 job 4 holds
/// one; a typed count is never shown above its total.
#[test]
fn showbf_lists_free_gpus_per_window() {
    let (code, out, err) = run_gpu(&["showbf"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("with gpu:1\n"), "{out}");
    assert!(!out.contains("gpu:a100"), "{out}");
    let (_, out, _) = run_gpu(&["showbf", "--json"]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let w = &v["partitions"][0]["windows"];
    assert!(
        w.as_array().unwrap().iter().any(|w| w["gres"]["gpu"] == 1),
        "{w}"
    );
}

/// `showres --snapshot`: the GPUs a running job holds, in all and on each
/// node, in text and JSON.
#[test]
fn showres_shows_the_gpus_reservations_hold() {
    let (code, out, err) = run_gpu(&["showres"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("StartTime            GRES\n"), "{out}");
    let one = out.lines().find(|l| l.starts_with("1 ")).unwrap();
    assert!(one.ends_with("Thu Jan  1 00:15:00  gpu:2"), "{out}");
    let (_, out, _) = run_with(PER_JOB_SNAP, &["showres", "-n"]);
    for node in ["g1 ", "g2 "] {
        let l = out.lines().find(|l| l.starts_with(node)).unwrap();
        assert!(l.contains(" R ") && l.ends_with("  gpu:4"), "{out}");
    }
    let (_, out, _) = run_with(PER_JOB_SNAP, &["showres", "--json"]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["reservations"][0]["gres"]["gpu"], 8, "{v}");
    assert_eq!(v["reservations"][0]["claims"][1]["gres"]["gpu"], 4, "{v}");
    // Without generic resources: Maui's columns only.
    let (_, out, _) = run(&["showres", "-n"]);
    assert!(!out.contains("GRES"), "{out}");
}

/// Two GPU nodes held by R (gpu:4 per node); P asks for gpu:3 per job
/// over 2 tasks, which does not divide: its tasks are bundled onto one
/// node, where it is reserved when R ends.
const PER_JOB_SNAP: &str = r#"{"now": 1000,
 "nodes": [
  {"name": "g1", "configured": {"procs": 8}, "gres": "gpu:4"},
  {"name": "g2", "configured": {"procs": 8}, "gres": "gpu:4"}
 ],
 "jobs": [
  {"id": "R", "user": "u", "group": "g", "state": "running", "start_time": 900, "walltime": 3600, "tasks": 2, "nodes": 2, "gres_per_node": "gpu:4", "allocation": [{"node": "g1", "tasks": 1}, {"node": "g2", "tasks": 1}]},
  {"id": "P", "user": "u", "group": "g", "submit_time": 950, "walltime": 600, "tasks": 2, "gres_per_job": "gpu:3"}
 ]}"#;

/// checkjob of a reserved GPU job says what the reservation holds: the
/// RM's tasks on each node (not the engine's bundles) and the GPUs.
#[test]
fn checkjob_shows_what_a_reservation_holds() {
    let (code, out, err) = run_gpu(&["checkjob", "5"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("Reserved Nodes:\n[g1:4][g2:4]\nReserved GRES:\n[g1:gpu:2][g2:gpu:2]\n"),
        "{out}"
    );
    let (code, out, err) = run_with(PER_JOB_SNAP, &["checkjob", "P"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("Reservation 'P'"), "{out}");
    assert!(
        out.contains("Reserved Nodes:\n[g1:2]\nReserved GRES:\n[g1:gpu:3]\n")
            || out.contains("Reserved Nodes:\n[g2:2]\nReserved GRES:\n[g2:gpu:3]\n"),
        "{out}"
    );
    let (_, out, _) = run_with(PER_JOB_SNAP, &["checkjob", "P", "--json"]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let r = &v["gres"]["reserved"];
    assert_eq!(r.as_array().unwrap().len(), 1, "{r}");
    assert_eq!(r[0]["tasks"], 2, "{r}");
    assert_eq!(r[0]["gres"]["gpu"], 3, "{r}");
    // A job without generic resources: Maui's reservation line alone.
    let (_, out, _) = run(&["checkjob", "B"]);
    assert!(
        out.contains("Reservation 'B'") && !out.contains("Reserved"),
        "{out}"
    );
}

/// Moab's MAXGRES through the command line: with MAXGRES[gpu]=3 for
/// user u, who holds two GPUs already, the two-GPU job 3 and the
/// two-node job 5 wait with the limit named, the one-GPU job 4 starts, and
/// checkjob gives Maui's policy line with request and use. check accepts
/// the line and showconfig shows it.
#[test]
fn maxgres_holds_jobs_over_a_users_gpu_limit() {
    let dir = std::env::temp_dir().join(format!("mauictl-maxgres-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let cfg = dir.join("maui.cfg");
    std::fs::write(&cfg, "USERCFG[u] MAXGRES[gpu]=3\n").unwrap();
    let cfg = cfg.to_str().unwrap();
    let (code, out, err) = run_gpu(&["plan", "-C", cfg]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("3                           1  Policy MAXGRES[gpu] user u"),
        "{out}"
    );
    assert!(
        out.contains("5                           1  Policy MAXGRES[gpu] user u"),
        "{out}"
    );
    assert!(out.contains("  4                g2:1"), "{out}");
    let (_, out, _) = run_gpu(&["checkjob", "-C", cfg, "3"]);
    assert!(
        out.contains(
            "job violates active HARD MAXGRES[gpu] limit of 3 for user u (Req: 2, InUse: 2)"
        ),
        "{out}"
    );
    let (_, out, _) = run_gpu(&["checkjob", "-C", cfg, "3", "--json"]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["plan"]["reason"]["limit"], "MAXGRES", "{v}");
    assert_eq!(v["plan"]["reason"]["gres"], "gpu", "{v}");
    // Without the limit job 3 starts.
    let (_, out, _) = run_gpu(&["plan"]);
    assert!(!out.contains("MAXGRES"), "{out}");
    let out = Command::new(env!("CARGO_BIN_EXE_mauictl"))
        .args(["showconfig", "-C", cfg])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("MAXGRES[gpu]=3"), "{text}");
    let out = Command::new(env!("CARGO_BIN_EXE_mauictl"))
        .args(["check", "-C", cfg])
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("0 warning(s)"));
}
