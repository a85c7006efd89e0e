//! `mauictl trace-info` as a user runs it.

use std::process::Command;

fn mauictl(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_mauictl"))
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn temp(name: &str, text: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("mauictl-trace-info-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

#[test]
fn demo_selection_and_cluster() {
    let (code, out, err) = mauictl(&[
        "trace-info",
        "--demo",
        "--start-at",
        "job:100",
        "--jobs",
        "500",
        "--scale-load",
        "2",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("Jobs: 500 (0 records skipped)\n"), "{out}");
    assert!(
        out.contains("Cluster: <demo cluster>: 100 nodes, 100 processors, 0 MB\n"),
        "{out}"
    );
}

#[test]
fn a_file_with_a_synthesised_cluster_and_lenient_mode() {
    let swf = temp(
        "t.swf",
        "; MaxNodes: 4\n; MaxProcs: 8\n\
         1 0 0 10 2 -1 -1 2 60 2048 1 1 1 -1 1 -1 -1 -1\n\
         2 10 0 10 2 -1 -1 2 60 -1 1 2 1 -1 1 -1 -1 -1\n\
         3 20 0 10 x -1 -1 2 60 -1 1 2 1 -1 1 -1 -1 -1\n",
    );
    let (code, _, err) = mauictl(&["trace-info", swf.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(
        err.contains("t.swf:5:11: field 5 (allocated processors): expected a number, got \"x\""),
        "{err}"
    );
    let (code, out, err) = mauictl(&["trace-info", "--lenient", swf.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("1 malformed skipped"), "{out}");
    assert!(out.contains("Jobs: 2 (0 records skipped)\n"), "{out}");
    assert!(
        out.contains("Credentials: 2 users, 1 groups, 1 classes\n"),
        "{out}"
    );
    // 4 nodes of 2 processors; 2 MB per processor from job 1's request.
    assert!(
        out.contains("Cluster (synthesised): 4 nodes, 8 processors, 16 MB\n"),
        "{out}"
    );
    assert!(out.contains("  n[001-004] procs=2 mem=4\n"), "{out}");
    let cluster = temp("c.txt", "a[1-2] procs=4 mem=8G\n");
    let (code, out, _) = mauictl(&[
        "trace-info",
        "--lenient",
        "--cluster",
        cluster.to_str().unwrap(),
        swf.to_str().unwrap(),
    ]);
    assert_eq!(code, 0);
    assert!(out.contains("2 nodes, 8 processors, 16384 MB\n"), "{out}");
    let bad = temp("bad.txt", "a[1-2] procs=4 mem=lots\n");
    let (code, _, err) = mauictl(&[
        "trace-info",
        "--lenient",
        "--cluster",
        bad.to_str().unwrap(),
        swf.to_str().unwrap(),
    ]);
    assert_eq!(code, 1);
    assert!(
        err.contains("bad.txt:1:20: mem: expected a size in MB"),
        "{err}"
    );
}

#[test]
fn bad_option_values_are_refused() {
    let (code, _, err) = mauictl(&["trace-info", "--demo", "--scale-load", "0"]);
    assert_eq!(code, 2);
    assert!(err.contains("expected a positive factor"), "{err}");
    let (code, _, err) = mauictl(&["trace-info", "--demo", "--start-at", "job:nope"]);
    assert_eq!(code, 1);
    assert!(err.contains("job nope is not in the workload"), "{err}");
}
