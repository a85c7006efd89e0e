//! Grid files, the configurations they make, and the ranking.

use super::*;

const GRID: &str = "# a comment\nBACKFILLPOLICY FIRSTFIT\n\
                    SWEEP RESERVATIONDEPTH 1 4\n\
                    sweep CLASSCFG[batch] PRIORITY=10 | PRIORITY=100 MAXJOB=4\n";

#[test]
fn a_grid_file_gives_every_combination_first_axis_slowest() {
    let g = parse_grid(GRID, "g.cfg").unwrap();
    assert_eq!(g.fixed, [(2, "BACKFILLPOLICY FIRSTFIT".to_string())]);
    assert_eq!(g.axes.len(), 2);
    assert_eq!(g.axes[1].values, ["PRIORITY=10", "PRIORITY=100 MAXJOB=4"]);
    let c = g.configs("RMPOLLINTERVAL 30", "g.cfg").unwrap();
    let values: Vec<Vec<&str>> = c
        .iter()
        .map(|c| c.values.iter().map(String::as_str).collect())
        .collect();
    assert_eq!(
        values,
        [
            ["1", "PRIORITY=10"],
            ["1", "PRIORITY=100 MAXJOB=4"],
            ["4", "PRIORITY=10"],
            ["4", "PRIORITY=100 MAXJOB=4"]
        ]
    );
    assert_eq!(
        c[3].text,
        "RMPOLLINTERVAL 30\nBACKFILLPOLICY FIRSTFIT\nRESERVATIONDEPTH 4\n\
         CLASSCFG[batch] PRIORITY=100 MAXJOB=4\n"
    );
}

#[test]
fn grid_errors_name_the_grid_file_and_line() {
    for (text, want) in [
        ("BACKFILLPOLICY FIRSTFIT\n", "g.cfg: no SWEEP line"),
        ("SWEEP XFACTORWEIGHT\n", "g.cfg:1: SWEEP needs a parameter"),
        ("SWEEP FSWEIGHT 1 | \n", "g.cfg:1: an empty value"),
        (
            "SWEEP FSWEIGHT 1 2\n\nSWEEP fsweight 3\n",
            "g.cfg:3: fsweight is already swept on line 1",
        ),
    ] {
        let e = parse_grid(text, "g.cfg").unwrap_err();
        assert!(e.starts_with(want), "{text:?}: {e}");
    }
    // A value the configuration parser refuses: the SWEEP line and value.
    let g = parse_grid(
        "RMPOLLINTERVAL 10\n\nSWEEP BACKFILLPOLICY FIRSTFIT SOMETIMES\n",
        "g.cfg",
    )
    .unwrap();
    let e = g.configs("", "g.cfg").unwrap_err();
    assert!(e.starts_with("g.cfg:3: BACKFILLPOLICY SOMETIMES: "), "{e}");
    // A broken fixed line: its own line.
    let g = parse_grid("RESERVATIONDEPTH many\nSWEEP FSWEIGHT 1\n", "g.cfg").unwrap();
    let e = g.configs("", "g.cfg").unwrap_err();
    assert!(e.starts_with("g.cfg:1: "), "{e}");
}

fn manifest(metric: &str) -> Manifest {
    let g = parse_grid("SWEEP RESERVATIONDEPTH 1 4 16\n", "g.cfg").unwrap();
    Manifest {
        grid_file: "g.cfg".into(),
        base: "<embedded>".into(),
        configs: g.configs("", "g.cfg").unwrap(),
        axes: g.axes,
        traces: vec!["a.swf".into(), "b.swf".into()],
        options: TraceOptions::default(),
        metric: metric.into(),
    }
}

fn fake_point(dir: &Path, m: &Manifest, i: usize, value: f64) {
    let (c, t) = m.point(i);
    let r = PointResult {
        point: i,
        config: c,
        trace: m.traces[t].clone(),
        completed: 10,
        rejected: 0,
        unfinished: 0,
        metrics: vec![(m.metric.clone(), value)],
    };
    std::fs::write(point_file(dir, i), serde_json::to_string(&r).unwrap()).unwrap();
}

fn temp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("sweep-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

#[test]
fn configurations_rank_by_their_mean_over_the_traces() {
    for (metric, want) in [("mean_wait", [2, 0, 1]), ("utilization", [1, 0, 2])] {
        let dir = temp(metric);
        let m = manifest(metric);
        prepare(&dir, &m).unwrap();
        // Per configuration (a, b): means 15, 20, 10.
        for (i, v) in [10.0, 20.0, 30.0, 10.0, 5.0, 15.0].into_iter().enumerate() {
            fake_point(&dir, &m, i, v);
        }
        let g = gather(&dir, &read_manifest(&dir).unwrap()).unwrap();
        assert_eq!(
            g.ranking.iter().map(|r| r.config).collect::<Vec<_>>(),
            want,
            "{metric}"
        );
        assert_eq!(g.ranking[0].rank, 1);
        let csv = ranking_csv(&m, &g);
        assert!(
            csv.starts_with(&format!(
                "rank,RESERVATIONDEPTH,{metric} a.swf,{metric} b.swf,{metric} mean\n"
            )),
            "{csv}"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}

#[test]
fn gathering_names_the_points_without_a_result() {
    let dir = temp("missing");
    let m = manifest("mean_wait");
    prepare(&dir, &m).unwrap();
    for i in [0, 1, 3, 5] {
        fake_point(&dir, &m, i, 1.0);
    }
    let e = gather(&dir, &m).unwrap_err();
    assert!(
        e.contains("2 of 6 points have no result (points 2, 4)"),
        "{e}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_point_out_of_range_is_refused() {
    let dir = temp("range");
    let m = manifest("mean_wait");
    prepare(&dir, &m).unwrap();
    let e = run_point(&dir, &m, 6).unwrap_err();
    assert!(
        e.ends_with("point 6 does not exist: the sweep has 6 (0 to 5)"),
        "{e}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
