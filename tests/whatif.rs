//! `mauictl whatif`: one iteration under the configuration in force and
//! one under a candidate, on the same snapshot, and what differs.
//!
//! The hand-checked case (issue 33's acceptance test): only
//! RESERVATIONDEPTH changes, from 1 to 3, on this cluster and queue, at
//! `NOW` (every job asks one processor per task unless said):
//!
//! ```text
//! n1  4 procs   r1 (4 procs) runs until NOW+100
//! n2  1 proc    r2 runs until NOW+200
//! n3  1 proc    free
//!
//! idle, in priority order (system priorities 400, 300, 200, 100):
//!   A  1 task of 4 procs, walltime 1000   fits n1 only
//!   B  2 tasks,            walltime 1000
//!   C  1 task,             walltime  500
//!   D  1 task,             walltime  150
//! ```
//!
//! Neither A (n1 is busy) nor B (one processor is free, on n3) can start
//! now. A gets the first reservation, on n1 from NOW+100 to NOW+1100, under
//! both depths.
//!
//! - RESERVATIONDEPTH 1: B gets no reservation. C fits on n3 now and
//!   nothing reserves n3: C starts. D finds no free processor and waits.
//! - RESERVATIONDEPTH 3: B is reserved at its earliest start, n2 (free at
//!   NOW+200) and n3, from NOW+200 to NOW+1200 (n1 is A's until NOW+1100).
//!   C (500 s) would overrun B's reservation on n3, so it waits and gets
//!   the third reservation, at its earliest start: n1 at NOW+1100, when A's
//!   ends. D (150 s) ends on n3 before B's reservation begins: D starts.
//!
//! So the candidate starts D and no longer starts C; B and C gain a job
//! reservation; A's stays where it is. Priorities do not depend on the
//! depth: no job moves in the order, no credential shifts, and A and B,
//! which wait under both, wait for the same reason.

use mauisched::sim::whatif::{self, Report};
use mauisched::{Config, Snapshot};
use std::path::PathBuf;
use std::process::Command;

const NOW: i64 = 1_800_000_000;

fn snapshot() -> Snapshot {
    let text = format!(
        r#"{{"now": {NOW},
  "nodes": [
    {{"name": "n1", "configured": {{"procs": 4}}}},
    {{"name": "n2", "configured": {{"procs": 1}}}},
    {{"name": "n3", "configured": {{"procs": 1}}}}],
  "jobs": [
    {{"id": "r1", "user": "ann", "group": "g", "state": "running", "start_time": {r1},
      "walltime": 3600, "task": {{"procs": 4}}, "allocation": [{{"node": "n1", "tasks": 1}}]}},
    {{"id": "r2", "user": "ann", "group": "g", "state": "running", "start_time": {r2},
      "walltime": 3600, "allocation": [{{"node": "n2", "tasks": 1}}]}},
    {{"id": "A", "user": "bob", "group": "g", "submit_time": {sub}, "walltime": 1000,
      "task": {{"procs": 4}}, "system_priority": 400}},
    {{"id": "B", "user": "bob", "group": "g", "submit_time": {sub}, "walltime": 1000,
      "tasks": 2, "system_priority": 300}},
    {{"id": "C", "user": "cat", "group": "g", "submit_time": {sub}, "walltime": 500,
      "system_priority": 200}},
    {{"id": "D", "user": "dan", "group": "g", "submit_time": {sub}, "walltime": 150,
      "system_priority": 100}}]}}"#,
        r1 = NOW - 3500,
        r2 = NOW - 3400,
        sub = NOW - 1000,
    );
    Snapshot::from_json(&text).unwrap()
}

fn config(text: &str, name: &str) -> Config {
    let l = Config::parse(text, name);
    assert!(l.is_ok(), "{:?}", l.diagnostics);
    l.config
}

fn depth(n: u32) -> Config {
    config(&format!("RESERVATIONDEPTH {n}\n"), &format!("depth{n}.cfg"))
}

fn jobs<T>(rows: &[T], id: impl Fn(&T) -> &str) -> Vec<String> {
    rows.iter().map(|r| id(r).to_string()).collect()
}

#[test]
fn reservation_depth_changes_exactly_the_jobs_a_hand_check_finds() {
    let r = whatif::compare(&depth(1), &depth(3), &snapshot(), 20).unwrap();
    assert!(!r.identical);
    assert_eq!(jobs(&r.starts.added, |s| &s.job), ["D"]);
    assert_eq!(r.starts.added[0].allocation[0].node, "n3");
    assert_eq!(jobs(&r.starts.removed, |s| &s.job), ["C"]);
    assert_eq!(r.starts.removed[0].allocation[0].node, "n3");
    let moved: Vec<(String, String)> = r
        .reservations
        .iter()
        .map(|m| (m.kind.clone(), m.name.clone()))
        .collect();
    assert_eq!(
        moved,
        [
            ("Job".to_string(), "B".to_string()),
            ("Job".into(), "C".into())
        ]
    );
    let b = r.reservations[0].candidate.as_ref().unwrap();
    assert!(r.reservations[0].current.is_none());
    assert_eq!((b.start, b.end), (NOW + 200, NOW + 1200));
    assert_eq!(b.nodes, ["n2:1", "n3:1"]);
    let c = r.reservations[1].candidate.as_ref().unwrap();
    assert!(r.reservations[1].current.is_none());
    assert_eq!(
        (c.start, c.nodes.as_slice()),
        (NOW + 1100, &["n1:1".to_string()][..])
    );
    assert!(r.order.changes.is_empty(), "{:?}", r.order.changes);
    assert!(r.credentials.is_empty(), "{:?}", r.credentials);
    assert!(r.reasons.is_empty(), "{:?}", r.reasons);
    // Both orders are listed, the same.
    assert_eq!(jobs(&r.order.current, |x| &x.job), ["A", "B", "C", "D"]);
    assert_eq!(r.order.current, r.order.candidate);
}

/// The same configuration twice: nothing to report.
#[test]
fn an_identical_configuration_changes_nothing() {
    let r = whatif::compare(&depth(1), &depth(1), &snapshot(), 20).unwrap();
    assert!(r.identical, "{r:?}");
    assert!(r.starts.added.is_empty() && r.starts.removed.is_empty());
    assert!(r.order.changes.is_empty() && r.reservations.is_empty());
    assert!(r.reasons.is_empty() && r.credentials.is_empty());
    let text = r.render(&mauisched::time::Zone::utc());
    assert!(
        text.contains("no difference: the candidate makes the same decisions on this snapshot"),
        "{text}"
    );
}

/// Priorities that change move jobs in the order and shift the
/// credentials whose jobs move. Here the order comes from user
/// priorities (no system priorities): bob 400 (A, B), cat 200 (C),
/// dan 100 (D); the candidate gives dan 300, so D passes C.
#[test]
fn priority_changes_move_jobs_and_credentials() {
    let mut snap = snapshot();
    for j in &mut snap.jobs {
        j.system_priority = None;
    }
    let base = "RESERVATIONDEPTH 3\nCREDWEIGHT 1\nUSERWEIGHT 1\nUSERCFG[bob] PRIORITY=400\nUSERCFG[cat] PRIORITY=200\n";
    let cur = config(&format!("{base}USERCFG[dan] PRIORITY=100\n"), "cur.cfg");
    let cand = config(&format!("{base}USERCFG[dan] PRIORITY=300\n"), "cand.cfg");
    let r = whatif::compare(&cur, &cand, &snap, 20).unwrap();
    assert!(!r.identical);
    assert_eq!(jobs(&r.order.current, |x| &x.job), ["A", "B", "C", "D"]);
    assert_eq!(jobs(&r.order.candidate, |x| &x.job), ["A", "B", "D", "C"]);
    let moved: Vec<(&str, usize, usize)> = r
        .order
        .changes
        .iter()
        .map(|c| (c.job.as_str(), c.current_rank, c.candidate_rank))
        .collect();
    assert_eq!(moved, [("C", 3, 4), ("D", 4, 3)]);
    let shifts: Vec<(&str, &str, f64, f64)> = r
        .credentials
        .iter()
        .map(|c| {
            let (k, n) = (c.credential.as_str(), c.name.as_str());
            (k, n, c.mean_priority_change, c.mean_rank_change)
        })
        .collect();
    // dan's one job gains 200 and one place; cat's loses the place; the
    // group (all four jobs) and QOS DEFAULT gain 50 on average and keep
    // their mean rank.
    assert_eq!(
        shifts,
        [
            ("user", "cat", 0.0, 1.0),
            ("user", "dan", 200.0, -1.0),
            ("group", "g", 50.0, 0.0),
            ("qos", "DEFAULT", 50.0, 0.0),
        ]
    );
    // Only the first two of each order compared: A and B do not move.
    let r = whatif::compare(&cur, &cand, &snap, 2).unwrap();
    assert!(r.order.changes.is_empty(), "{:?}", r.order.changes);
    assert_eq!(r.order.current.len(), 2);
}

fn mauictl(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_mauictl"))
        .args(args)
        .env("TZ", "UTC")
        .env("MAUISCHED_SOCKET", "/nonexistent/mauisched-whatif.sock")
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

struct Files(PathBuf);

impl Files {
    fn new(name: &str) -> Files {
        let d =
            std::env::temp_dir().join(format!("mauisched-whatif-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        let s = snapshot();
        std::fs::write(d.join("s.json"), serde_json::to_string(&s).unwrap()).unwrap();
        std::fs::write(d.join("cur.cfg"), "RESERVATIONDEPTH 1\n").unwrap();
        std::fs::write(d.join("new.cfg"), "RESERVATIONDEPTH 3\n").unwrap();
        Files(d)
    }

    fn path(&self, name: &str) -> String {
        self.0.join(name).to_str().unwrap().to_string()
    }

    /// `mauictl whatif --snapshot s.json --current cur.cfg -C CAND ARGS`.
    fn run(&self, cand: &str, extra: &[&str]) -> (i32, String, String) {
        let (s, cur, cand) = (self.path("s.json"), self.path("cur.cfg"), self.path(cand));
        let mut a = vec!["whatif", "--snapshot", &s, "--current", &cur, "-C", &cand];
        a.extend_from_slice(extra);
        mauictl(&a)
    }
}

impl Drop for Files {
    fn drop(&mut self) {
        std::fs::remove_dir_all(&self.0).ok();
    }
}

/// The text report names the same jobs as the library's.
#[test]
fn the_text_report_names_the_jobs() {
    let f = Files::new("text");
    let (code, out, err) = f.run("new.cfg", &[]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("starts: 1 more, 1 fewer\n  + D "), "{out}");
    assert!(out.contains("\n  - C "), "{out}");
    assert!(
        out.contains("reservations: 2 change(s)\n  job B\n"),
        "{out}"
    );
    assert!(out.contains("reasons: 0 change(s)"), "{out}");
    let (code, out, err) = f.run("cur.cfg", &[]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("no difference"), "{out}");
}

/// `--json`: the report's fields, for scripts.
#[test]
fn the_json_report_has_its_schema() {
    let f = Files::new("json");
    let (code, out, err) = f.run("new.cfg", &["--json", "--top", "3"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(
        keys,
        [
            "now",
            "current",
            "candidate",
            "top",
            "identical",
            "starts",
            "order",
            "reservations",
            "reasons",
            "credentials",
            "now_iso",
            "time_zone"
        ]
    );
    assert_eq!(v["now"], NOW);
    assert_eq!(v["top"], 3);
    assert_eq!(v["identical"], false);
    assert_eq!(v["starts"]["added"][0]["job"], "D");
    assert!(v["starts"]["added"][0]["backfill"].is_boolean());
    assert_eq!(v["starts"]["added"][0]["allocation"][0]["node"], "n3");
    assert_eq!(v["starts"]["removed"][0]["job"], "C");
    assert_eq!(v["order"]["current"].as_array().unwrap().len(), 3);
    for k in ["rank", "job", "priority", "moved"] {
        assert!(v["order"]["candidate"][0].get(k).is_some(), "{k}");
    }
    assert!(v["order"]["changes"].as_array().unwrap().is_empty());
    let m = &v["reservations"][0];
    assert_eq!(
        (m["kind"].as_str(), m["name"].as_str()),
        (Some("Job"), Some("B"))
    );
    assert!(m["current"].is_null());
    for k in ["id", "start", "end", "nodes", "start_iso"] {
        assert!(m["candidate"].get(k).is_some(), "{k}: {m}");
    }
    assert!(v["reasons"].as_array().unwrap().is_empty());
    assert!(v["credentials"].as_array().unwrap().is_empty());
    // The report the library gives, in JSON.
    let r: Report = whatif::compare(&depth(1), &depth(3), &snapshot(), 3).unwrap();
    assert_eq!(v["starts"], serde_json::to_value(&r.starts).unwrap());
}

/// `--html FILE`: one self-contained page with both orders side by side.
#[test]
fn the_html_page_holds_both_orders() {
    let f = Files::new("html");
    let page = f.path("report.html");
    let (code, _, err) = f.run("new.cfg", &["--html", &page]);
    assert_eq!(code, 0, "{err}");
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.starts_with("<!DOCTYPE html>\n<html lang=\"en\">"));
    assert!(html.trim_end().ends_with("</html>"));
    assert!(html.contains("<h3>Current</h3>") && html.contains("<h3>Candidate</h3>"));
    // Both orders: every job twice in the order tables, and the starts.
    for job in ["A", "B", "C", "D"] {
        assert!(html.contains(&format!("<td>{job}</td>")), "{job}");
    }
    assert!(html.contains("<tr class=\"added\"><td>starts under the candidate only</td><td>D</td>"));
    assert!(html.contains("<tr class=\"removed\"><td>starts under the current only</td><td>C</td>"));
    // Self-contained: nothing fetched from elsewhere.
    for outside in ["http:", "https:", "src=", "<link", "@import"] {
        assert!(!html.contains(outside), "{outside}");
    }
    // Tags balance.
    for tag in ["html", "head", "body", "table", "tr", "div", "style"] {
        let open =
            html.matches(&format!("<{tag}>")).count() + html.matches(&format!("<{tag} ")).count();
        let close = html.matches(&format!("</{tag}>")).count();
        assert_eq!(open, close, "<{tag}>");
    }
}

/// A candidate with errors is refused, naming file and line; so is a
/// snapshot whose memory has a wrong field, naming the field's path.
#[test]
fn broken_inputs_are_refused_with_where() {
    let f = Files::new("broken");
    std::fs::write(
        f.0.join("bad.cfg"),
        "RESERVATIONDEPTH 3\nBACKFILLPOLICY SOMETIMES\n",
    )
    .unwrap();
    let (code, out, err) = f.run("bad.cfg", &[]);
    assert_eq!(code, 1, "{out}");
    assert!(err.contains(&format!("{}:2:", f.path("bad.cfg"))), "{err}");
    assert!(err.contains("has errors"), "{err}");
    std::fs::write(
        f.0.join("s.json"),
        r#"{"now": 5, "state": {"preempted": {"9": {"how": "explode"}}}}"#,
    )
    .unwrap();
    let (code, _, err) = f.run("new.cfg", &[]);
    assert_eq!(code, 2);
    assert!(
        err.contains(&format!(
            "{}: state.preempted.9.how: unknown variant `explode`",
            f.path("s.json")
        )),
        "{err}"
    );
    // Offline, the configuration in force must be named.
    let s = f.path("s.json");
    let cand = f.path("new.cfg");
    let (code, _, err) = mauictl(&["whatif", "--snapshot", &s, "-C", &cand]);
    assert_eq!(code, 2);
    assert!(
        err.contains("--snapshot FILE needs --current FILE"),
        "{err}"
    );
}
