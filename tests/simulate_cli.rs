//! `mauictl simulate` and `mauictl bench` as a user runs them.

use std::path::PathBuf;
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

fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("mauictl-sim-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn demo_writes_every_output_and_prints_the_summary() {
    let dir = temp_dir("demo");
    let out_dir = dir.join("out");
    let (code, out, err) = mauictl(&[
        "simulate",
        "--demo",
        "--jobs",
        "300",
        "--out",
        out_dir.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("jobs         300 completed of 300\n"), "{out}");
    for key in [
        "utilization",
        "wait         mean",
        "mean bounded slowdown",
        "started by backfill",
        "iterations",
        "fairshare    user",
    ] {
        assert!(out.contains(key), "{key} missing from\n{out}");
    }
    assert!(
        err.is_empty(),
        "no progress bar when stderr is not a terminal: {err}"
    );
    let csv = std::fs::read_to_string(out_dir.join("jobs.csv")).unwrap();
    assert_eq!(csv.lines().count(), 301);
    assert!(
        csv.starts_with("id,user,submit,start,end,procs,nodes,wait,bounded_slowdown,backfilled\n")
    );
    // The first KTH job: 4 processors, submitted when the machine is empty.
    assert!(
        csv.lines()
            .nth(1)
            .unwrap()
            .starts_with("15,u12,844079881,844079881,"),
        "{csv}"
    );
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out_dir.join("summary.json")).unwrap())
            .unwrap();
    assert_eq!(summary["completed"], 300);
    assert_eq!(summary["nodes"], 100);
    assert!(summary["utilization"].as_f64().unwrap() > 0.0);
    assert!(summary["users"].as_array().unwrap().len() > 5);
    for svg in ["utilization.svg", "nodes.svg"] {
        let t = std::fs::read_to_string(out_dir.join(svg)).unwrap();
        assert!(
            t.starts_with("<svg") && t.trim_end().ends_with("</svg>"),
            "{svg}"
        );
    }
    // The same run again: byte-identical jobs.csv.
    let again = dir.join("again");
    let (code, _, err) = mauictl(&[
        "simulate",
        "--demo",
        "--jobs",
        "300",
        "--out",
        again.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        csv,
        std::fs::read_to_string(again.join("jobs.csv")).unwrap()
    );
}

#[test]
fn json_summary_and_grid_clock() {
    let (code, out, err) = mauictl(&["simulate", "--demo", "--jobs", "100", "--grid", "--json"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["clock"], "grid");
    assert_eq!(v["poll_interval"], 30);
    assert_eq!(v["completed"], 100);
}

#[test]
fn a_synthetic_cluster_and_trace_of_any_size_run_the_same_from_a_seed() {
    let run = |spec: &str| {
        let (code, out, err) = mauictl(&["simulate", "--synthetic", spec, "--json"]);
        assert_eq!(code, 0, "{err}");
        serde_json::from_str::<serde_json::Value>(&out).unwrap()
    };
    let a = run("40,400,7");
    assert_eq!(a["workload"], "<synthetic: 40 nodes, 400 jobs, seed 7>");
    assert_eq!(a["cluster"], a["workload"]);
    assert_eq!(
        (a["nodes"].as_u64(), a["jobs"].as_u64()),
        (Some(40), Some(400))
    );
    // Every job fits the cluster and runs; the trace keeps it busy.
    assert_eq!(a["completed"], 400);
    assert!(a["utilization"].as_f64().unwrap() > 0.5, "{a}");
    // The same seed gives the same schedule; another seed another one.
    let same = |v: &serde_json::Value| (v["wait"].clone(), v["makespan"].clone());
    assert_eq!(same(&a), same(&run("40,400,7")));
    assert_ne!(same(&a), same(&run("40,400,8")));
    // trace-info describes the same cluster.
    let (code, out, err) = mauictl(&["trace-info", "--synthetic", "40,400,7"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("<synthetic: 40 nodes, 400 jobs, seed 7>"),
        "{out}"
    );
    // A bad spec says what is wrong; a file and --synthetic do not mix.
    let (code, _, err) = mauictl(&["simulate", "--synthetic", "40,x"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("JOBS must be a whole number, got \"x\""),
        "{err}"
    );
    let (code, _, err) = mauictl(&["simulate", "t.swf", "--synthetic", "40"]);
    assert_eq!(code, 2);
    assert!(err.contains("cannot be used with"), "{err}");
}

#[test]
fn malformed_traces_fail_with_the_line_or_are_skipped_when_lenient() {
    let dir = temp_dir("bad");
    let swf = dir.join("bad.swf");
    std::fs::write(
        &swf,
        "; MaxNodes: 4\n; MaxProcs: 4\n\
         1 0 -1 100 2 -1 -1 2 100 -1 1 1 1 -1 1 -1 -1 -1\n\
         2 5 -1 x 1 -1 -1 1 100 -1 1 1 1 -1 1 -1 -1 -1\n\
         3 9 -1 50 1 -1 -1 1 100 -1 1 2 1 -1 1 -1 -1 -1\n",
    )
    .unwrap();
    let path = swf.to_str().unwrap();
    let (code, _, err) = mauictl(&["simulate", path]);
    assert_eq!(code, 1);
    assert!(err.contains("bad.swf:4:"), "{err}");
    let (code, out, err) = mauictl(&["simulate", "--lenient", path]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("skipped 1 malformed line"), "{err}");
    assert!(out.contains("jobs         2 completed of 2\n"), "{out}");
    assert!(
        out.contains("<synthesised from the SWF header> (4 nodes, 4 processors)"),
        "{out}"
    );
}

#[test]
fn bench_runs_a_small_scenario() {
    let dir = temp_dir("bench");
    let plan = dir.join("plan.json");
    let (code, out, err) = mauictl(&[
        "bench",
        "--nodes",
        "60",
        "--idle",
        "200",
        "--running",
        "40",
        "--iterations",
        "2",
        "--plan-json",
        plan.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("scenario: 60 nodes, 200 idle jobs"), "{out}");
    assert!(out.contains("iterations: 2"), "{out}");
    assert!(out.contains("peak RSS:"), "{out}");
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(plan).unwrap()).unwrap();
    assert_eq!(v["jobs"].as_array().unwrap().len(), 200);
    // -c FILE replaces the scenario's configuration: RESERVATIONDEPTH 500
    // reserves far more than the scenario's 10; a broken file is refused.
    let cfg = dir.join("cons.cfg");
    std::fs::write(&cfg, "RESERVATIONDEPTH 500\n").unwrap();
    let small = [
        "--nodes",
        "32",
        "--idle",
        "200",
        "--running",
        "10",
        "--iterations",
        "1",
    ];
    let reservations = |out: &str| -> usize {
        let line = out
            .lines()
            .find(|l| l.starts_with("last iteration:"))
            .unwrap();
        line.split(", ")
            .nth(1)
            .unwrap()
            .split(' ')
            .next()
            .unwrap()
            .parse()
            .unwrap()
    };
    let (_, out, _) = mauictl(&[&["bench"][..], &small].concat());
    assert!(reservations(&out) <= 10, "{out}");
    let (code, out, err) = mauictl(&[&["-c", cfg.to_str().unwrap(), "bench"][..], &small].concat());
    assert_eq!(code, 0, "{err}");
    assert!(reservations(&out) > 50, "{out}");
    std::fs::write(&cfg, "RESERVATIONDEPTH x\n").unwrap();
    let (code, _, err) = mauictl(&[&["-c", cfg.to_str().unwrap(), "bench"][..], &small].concat());
    assert_ne!(code, 0);
    assert!(err.contains("cons.cfg:1"), "{err}");
}

/// tests/data/gpu: GPU jobs (Maui `GRES:gpu@N` per task) and CPU jobs on
/// four `gpu:4` nodes and six CPU nodes. Every job completes, GPU jobs
/// run on GPU nodes only, and no node's GPUs are over-committed at any
/// time (from jobs.csv's `gres` and `hosts` columns).
#[test]
fn a_gpu_trace_runs_gpu_jobs_on_gpu_nodes_without_overcommitting() {
    let data = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/gpu");
    let out_dir = temp_dir("gpu").join("out");
    let (code, out, err) = mauictl(&[
        "simulate",
        "-q",
        data.join("workload.trace").to_str().unwrap(),
        "--cluster",
        data.join("cluster.txt").to_str().unwrap(),
        "--out",
        out_dir.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{out}{err}");
    let csv = std::fs::read_to_string(out_dir.join("jobs.csv")).unwrap();
    let mut lines = csv.lines();
    assert_eq!(
        lines.next().unwrap(),
        "id,user,submit,start,end,procs,nodes,wait,bounded_slowdown,backfilled,gres,hosts"
    );
    let gpus_per_node = 4u32;
    // (time, +/- gpus, node)
    let mut events: Vec<(i64, i64, String)> = Vec::new();
    let (mut rows, mut gpu_jobs) = (0, 0);
    for line in lines {
        rows += 1;
        let f: Vec<&str> = line.split(',').collect();
        assert_eq!(f.len(), 12, "{line}");
        let (start, end): (i64, i64) = (f[3].parse().unwrap(), f[4].parse().unwrap());
        let per_task: u32 = match f[10] {
            "" => 0,
            g => g
                .strip_prefix("gpu:")
                .and_then(|s| s.strip_suffix("/task"))
                .unwrap()
                .parse()
                .unwrap(),
        };
        if per_task > 0 {
            gpu_jobs += 1;
        }
        for h in f[11].split('+') {
            let (node, tasks) = h.split_once(':').unwrap();
            let tasks: u32 = tasks.parse().unwrap();
            if per_task > 0 {
                assert!(node.starts_with('g'), "GPU job on CPU node: {line}");
                let n = (per_task * tasks) as i64;
                events.push((start, n, node.to_string()));
                events.push((end, -n, node.to_string()));
            }
        }
    }
    assert_eq!(rows, 40, "every job ran:\n{csv}");
    assert_eq!(gpu_jobs, 13);
    // Releases before starts at the same second.
    events.sort_by_key(|e| (e.0, e.1));
    let mut used: std::collections::HashMap<String, i64> = Default::default();
    for (t, d, node) in events {
        let u = used.entry(node.clone()).or_default();
        *u += d;
        assert!(
            *u <= gpus_per_node as i64,
            "{node} over-committed at {t}: {u} GPUs\n{csv}"
        );
    }
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out_dir.join("summary.json")).unwrap())
            .unwrap();
    assert_eq!(summary["completed"], 40, "{summary}");
}

/// `--operators`: a hold on KTH job 211 a minute after its submission
/// (without it, it waits 1,544 s) keeps it waiting until its release
/// hours later; a job the scheduler has not seen yet and a command above
/// the caller's level are refused and the run goes on; a malformed line
/// stops the run naming the file and line.
#[test]
fn operators_commands_apply_at_their_time() {
    let dir = temp_dir("operators");
    let ops = dir.join("ops.txt");
    std::fs::write(
        &ops,
        "# job 211 is submitted at 1:03:15:46\n1:03:16:46 sethold 211\n1:06:00:00 releasehold 211\n30:00 as nobody schedctl -s\n0 sethold 300\n",
    )
    .unwrap();
    let out_dir = dir.join("out");
    let (code, out, err) = mauictl(&[
        "simulate",
        "--demo",
        "--jobs",
        "300",
        "--operators",
        ops.to_str().unwrap(),
        "--out",
        out_dir.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("operators    4 command(s), 2 refused\n"),
        "{out}"
    );
    assert!(
        out.contains("30:00 as nobody schedctl -s  ->  refused: schedctl: permission denied"),
        "{out}"
    );
    let csv = std::fs::read_to_string(out_dir.join("jobs.csv")).unwrap();
    let held: Vec<i64> = csv
        .lines()
        .find(|l| l.starts_with("211,"))
        .unwrap()
        .split(',')
        .skip(2)
        .take(2)
        .map(|x| x.parse().unwrap())
        .collect();
    let released = held[0] - 98146 + 108000;
    assert!(held[1] >= released, "started before its release: {held:?}");
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out_dir.join("summary.json")).unwrap())
            .unwrap();
    let o = &summary["operators"];
    assert_eq!(o.as_array().unwrap().len(), 4, "{o}");
    // In time order: the unknown job, the level, the hold, the release.
    assert_eq!(o[0]["command"], "0 sethold 300");
    assert_eq!(o[0]["ok"], false);
    assert_eq!(o[1]["after"], 1800);
    assert_eq!(o[1]["ok"], false);
    assert_eq!(o[2]["after"], 98206);
    assert_eq!(o[2]["ok"], true, "{o}");
    assert_eq!(o[3]["ok"], true, "{o}");

    std::fs::write(&ops, "10 sethold 15\n20 sethold\n").unwrap();
    let (code, _, err) = mauictl(&[
        "simulate",
        "--demo",
        "--jobs",
        "30",
        "--operators",
        ops.to_str().unwrap(),
    ]);
    assert_eq!(code, 1);
    assert!(
        err.contains(&format!("{}:2: sethold: a job id is needed", ops.display())),
        "{err}"
    );
}

/// `--hosts` adds where each job ran to jobs.csv (to compare with Maui's
/// simulator, whose trace output lists the hosts): every job's tasks, on
/// as many distinct nodes as the `nodes` column says.
#[test]
fn hosts_column_on_request() {
    let dir = temp_dir("hosts");
    let out_dir = dir.join("out");
    let (code, _, err) = mauictl(&[
        "simulate",
        "--demo",
        "--jobs",
        "200",
        "--hosts",
        "-q",
        "--out",
        out_dir.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let csv = std::fs::read_to_string(out_dir.join("jobs.csv")).unwrap();
    let mut lines = csv.lines();
    assert_eq!(
        lines.next(),
        Some("id,user,submit,start,end,procs,nodes,wait,bounded_slowdown,backfilled,gres,hosts")
    );
    let mut rows = 0;
    for line in lines {
        let f: Vec<&str> = line.split(',').collect();
        let hosts: Vec<(&str, u64)> = f[11]
            .split('+')
            .map(|h| {
                let (n, t) = h.split_once(':').unwrap();
                (n, t.parse().unwrap())
            })
            .collect();
        let names: std::collections::BTreeSet<&str> = hosts.iter().map(|h| h.0).collect();
        assert_eq!(names.len().to_string(), f[6], "{line}");
        // The demo's jobs have one processor per task.
        assert_eq!(
            hosts.iter().map(|h| h.1).sum::<u64>().to_string(),
            f[5],
            "{line}"
        );
        rows += 1;
    }
    assert_eq!(rows, 200);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Two configurations that schedule the demo differently.
fn two_configs(dir: &std::path::Path) -> (String, String) {
    let a = dir.join("depth1.cfg");
    let b = dir.join("nobackfill.cfg");
    std::fs::write(&a, "RESERVATIONDEPTH 1\n").unwrap();
    std::fs::write(
        &b,
        "RESERVATIONDEPTH 1\nXFACTORWEIGHT 100\nBACKFILLPOLICY NONE\n",
    )
    .unwrap();
    (
        a.to_str().unwrap().to_string(),
        b.to_str().unwrap().to_string(),
    )
}

/// `simulate --demo --jobs N --compare` of [`two_configs`] into DIR/cmp:
/// (config a, config b, the output directory, the printed report).
fn compare_demo(dir: &std::path::Path, jobs: &str) -> (String, String, PathBuf, String) {
    let (a, b) = two_configs(dir);
    let cmp = dir.join("cmp");
    let (code, out, err) = mauictl(&[
        "simulate",
        "--demo",
        "--jobs",
        jobs,
        "--out",
        cmp.to_str().unwrap(),
        "--compare",
        &a,
        &b,
    ]);
    assert_eq!(code, 0, "{err}");
    (a, b, cmp, out)
}

/// A summary without what varies between runs (iteration times).
fn decisions(mut v: serde_json::Value) -> serde_json::Value {
    let o = v.as_object_mut().unwrap();
    o.remove("mean_iteration_ms");
    o.remove("max_iteration_ms");
    v
}

#[test]
fn compare_gives_each_configuration_the_numbers_of_its_own_run() {
    let dir = temp_dir("compare");
    let (a, b, cmp, out) = compare_demo(&dir, "600");
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(cmp.join("compare.json")).unwrap()).unwrap();
    let runs = report["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 2);
    let mut bsld = Vec::new();
    for (k, (cfg, label)) in [(&a, "depth1"), (&b, "nobackfill")].into_iter().enumerate() {
        let single = dir.join(label);
        let (code, _, err) = mauictl(&[
            "simulate",
            "--demo",
            "--jobs",
            "600",
            "-C",
            cfg,
            "--out",
            single.to_str().unwrap(),
        ]);
        assert_eq!(code, 0, "{err}");
        let read = |d: &std::path::Path, f: &str| std::fs::read_to_string(d.join(f)).unwrap();
        let alone: serde_json::Value =
            serde_json::from_str(&read(&single, "summary.json")).unwrap();
        assert_eq!(runs[k]["label"], label);
        assert_eq!(
            decisions(runs[k]["summary"].clone()),
            decisions(alone.clone())
        );
        // The run's own directory holds what the single run wrote.
        for f in [
            "jobs.csv",
            "credentials.csv",
            "showgrid.txt",
            "rejected.csv",
        ] {
            assert_eq!(read(&cmp.join(label), f), read(&single, f), "{label}/{f}");
        }
        bsld.push(format!(
            "{:.2}",
            alone["mean_bounded_slowdown"].as_f64().unwrap()
        ));
    }
    // The two runs differ, and the side-by-side line shows both.
    assert_ne!(bsld[0], bsld[1]);
    let line = out
        .lines()
        .find(|l| l.starts_with("mean bounded slowdown"))
        .unwrap();
    let cols: Vec<&str> = line.split_whitespace().skip(3).collect();
    assert_eq!(cols, bsld, "{out}");
    let html = std::fs::read_to_string(cmp.join("report.html")).unwrap();
    for want in [
        "<h2>Summary</h2>",
        "By account",
        "Average XFactor Grid",
        "class=\"plot\"",
    ] {
        assert!(html.contains(want), "{want}");
    }
    assert!(
        !html.contains("src=\"http") && !html.contains("href=\"http"),
        "self-contained"
    );
}

#[test]
fn compare_refuses_a_broken_configuration_and_minus_c() {
    let dir = temp_dir("compare-bad");
    let (a, _) = two_configs(&dir);
    let bad = dir.join("bad.cfg");
    std::fs::write(&bad, "RESERVATIONDEPTH 1\nBACKFILLPOLICY SOMETIMES\n").unwrap();
    let (code, _, err) = mauictl(&[
        "simulate",
        "--demo",
        "--jobs",
        "50",
        "--compare",
        &a,
        bad.to_str().unwrap(),
    ]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("bad.cfg:2"), "names the file and line: {err}");
    let (code, _, err) = mauictl(&[
        "simulate",
        "--demo",
        "--jobs",
        "50",
        "-C",
        &a,
        "--compare",
        &a,
        &a,
    ]);
    assert_ne!(code, 0);
    assert!(err.contains("not with -C"), "{err}");
}

#[test]
fn rejected_jobs_are_listed_with_their_reason() {
    let dir = temp_dir("rejected");
    let cluster = dir.join("small.txt");
    std::fs::write(&cluster, "n[1-16] procs=1\n").unwrap();
    let out_dir = dir.join("out");
    let (code, out, err) = mauictl(&[
        "simulate",
        "--demo",
        "--jobs",
        "300",
        "--cluster",
        cluster.to_str().unwrap(),
        "--out",
        out_dir.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let csv = std::fs::read_to_string(out_dir.join("rejected.csv")).unwrap();
    let rows: Vec<&str> = csv.lines().skip(1).collect();
    assert!(!rows.is_empty(), "jobs wider than 16 processors: {csv}");
    assert!(
        rows.iter()
            .all(|r| r.contains("processors requested, 16 exist on suitable nodes")),
        "{csv}"
    );
    let n = rows.len();
    assert!(
        out.contains(&format!(", {n} rejected (can never run here)")),
        "{out}"
    );
    let first_id = rows[0].split(',').next().unwrap();
    assert!(
        out.contains(&format!("             rejected job {first_id}: NoFit ")),
        "{out}"
    );
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out_dir.join("summary.json")).unwrap())
            .unwrap();
    assert_eq!(summary["rejected_jobs"].as_array().unwrap().len(), n);
}

/// A headless Chromium from Debian's packages (scripts/deps.sh test
/// installs chromium-headless-shell), if there is one.
fn chromium() -> Option<PathBuf> {
    ["chromium-headless-shell", "chromium", "chromium-browser"]
        .iter()
        .find_map(|b| {
            std::env::var_os("PATH")?
                .to_str()?
                .split(':')
                .map(|d| PathBuf::from(d).join(b))
                .find(|p| p.is_file())
        })
}

#[test]
fn the_compare_report_renders_in_a_real_browser() {
    let Some(browser) = chromium() else {
        let msg =
            "no chromium-headless-shell or chromium on PATH (scripts/deps.sh test installs it)";
        assert!(
            std::env::var_os("MAUISCHED_REQUIRE_BROWSER").is_none(),
            "MAUISCHED_REQUIRE_BROWSER is set: {msg}"
        );
        eprintln!("skipped: {msg}");
        return;
    };
    let dir = temp_dir("browser");
    let (_, _, cmp, _) = compare_demo(&dir, "300");
    let url = format!("file://{}", cmp.join("report.html").display());
    let browse = |extra: &[&str]| {
        let out = Command::new(&browser)
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--hide-scrollbars",
            ])
            .args(extra)
            .arg(&url)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    // The page's script ran once laid out, and counted three plots with a
    // line per configuration at least.
    let dom = browse(&["--dump-dom"]);
    let rendered = dom
        .split("data-rendered=\"")
        .nth(1)
        .and_then(|r| r.split('"').next())
        .unwrap_or_else(|| {
            panic!(
                "the page's script did not run:\n{}",
                &dom[..dom.len().min(2000)]
            )
        });
    let lines: usize = rendered
        .strip_prefix("plots=3 lines=")
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("rendered {rendered}"));
    assert!(lines >= 6, "rendered {rendered}");
    // A screenshot of the page as drawn.
    let png = dir.join("report.png");
    browse(&[
        &format!("--screenshot={}", png.display()),
        "--window-size=1300,2400",
    ]);
    let img = std::fs::read(&png).unwrap();
    assert_eq!(&img[..8], b"\x89PNG\r\n\x1a\n");
    let be = |o: usize| u32::from_be_bytes(img[o..o + 4].try_into().unwrap());
    assert_eq!((be(16), be(20)), (1300, 2400), "IHDR width and height");
    assert!(
        img.len() > 50_000,
        "a page of plots and tables, not a blank one: {} bytes",
        img.len()
    );
    eprintln!(
        "report.html rendered by {}: {rendered}, screenshot {} bytes",
        browser.display(),
        img.len()
    );
}

/// A 3 x 3 grid on the demo's first 300 jobs.
const SWEEP_GRID: &str = "BACKFILLPOLICY FIRSTFIT\n\
                          SWEEP RESERVATIONDEPTH 1 4 16\n\
                          SWEEP XFACTORWEIGHT 0 10 1000\n";

#[test]
fn a_sweep_gives_the_same_results_in_parallel_and_one_at_a_time() {
    let dir = temp_dir("sweep");
    let grid = dir.join("grid.cfg");
    std::fs::write(&grid, SWEEP_GRID).unwrap();
    let mut csvs = Vec::new();
    for threads in ["1", "2"] {
        let out = dir.join(format!("j{threads}"));
        let (code, text, err) = mauictl(&[
            "sweep",
            grid.to_str().unwrap(),
            "demo",
            "--jobs",
            "300",
            "-j",
            threads,
            "--out",
            out.to_str().unwrap(),
        ]);
        assert_eq!(code, 0, "{err}");
        assert!(
            text.starts_with("9 configurations x 1 trace(s) = 9 points, ranked by mean_bounded_slowdown (lower is better)\n"),
            "{text}"
        );
        for f in ["ranking.csv", "ranking.svg", "report.html", "sweep.json"] {
            assert!(out.join(f).is_file(), "{f}");
        }
        csvs.push(std::fs::read_to_string(out.join("sweep.csv")).unwrap());
    }
    assert_eq!(csvs[0], csvs[1]);
    assert_eq!(csvs[0].lines().count(), 10, "{}", csvs[0]);
    // Point 5 (RESERVATIONDEPTH 4, XFACTORWEIGHT 1000) is the run
    // `simulate -C` makes with that configuration: the embedded default,
    // the grid's fixed line, then the two values.
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("j1/sweep.json")).unwrap()).unwrap();
    let text = manifest["configs"][5]["text"].as_str().unwrap();
    assert!(
        text.starts_with(&std::fs::read_to_string("packaging/maui.cfg").unwrap())
            && text
                .ends_with("\nBACKFILLPOLICY FIRSTFIT\nRESERVATIONDEPTH 4\nXFACTORWEIGHT 1000\n"),
        "{text}"
    );
    let cfg = dir.join("p5.cfg");
    std::fs::write(&cfg, text).unwrap();
    let (code, out, err) = mauictl(&[
        "simulate",
        "--demo",
        "--jobs",
        "300",
        "-C",
        cfg.to_str().unwrap(),
        "--json",
    ]);
    assert_eq!(code, 0, "{err}");
    let alone: serde_json::Value = serde_json::from_str(&out).unwrap();
    let line = csvs[0].lines().nth(6).unwrap();
    assert!(line.starts_with("5,demo,4,1000,300,0,0,"), "{line}");
    let bsld: f64 = line.split(',').nth(7).unwrap().parse().unwrap();
    let want = alone["mean_bounded_slowdown"].as_f64().unwrap();
    assert!((bsld - want).abs() < 1e-6, "{bsld} against {want}");
}

#[test]
fn a_sweep_with_a_bad_value_names_the_grid_line_and_runs_nothing() {
    let dir = temp_dir("sweep-bad");
    let grid = dir.join("grid.cfg");
    std::fs::write(
        &grid,
        "SWEEP RESERVATIONDEPTH 1 2\nSWEEP BACKFILLPOLICY FIRSTFIT BESTEVER\n",
    )
    .unwrap();
    let out = dir.join("out");
    let (code, _, err) = mauictl(&[
        "sweep",
        grid.to_str().unwrap(),
        "demo",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 1);
    assert!(
        err.contains("grid.cfg:2: BACKFILLPOLICY BESTEVER: "),
        "{err}"
    );
    assert!(!out.exists(), "nothing written");
    let (code, _, err) = mauictl(&[
        "sweep",
        grid.to_str().unwrap(),
        "demo",
        "--metric",
        "happiness",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 1);
    assert!(
        err.contains("unknown metric \"happiness\": one of mean_bounded_slowdown,"),
        "{err}"
    );
}
