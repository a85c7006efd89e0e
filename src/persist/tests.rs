use super::*;
use std::collections::BTreeMap;

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("mauisched-state-{}-{name}", std::process::id()));
    let _ = fs::remove_dir_all(&d);
    d
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct Payload {
    counter: u64,
    bypass: BTreeMap<String, u32>,
    filler: String,
}

fn payload(counter: u64, size: usize) -> Payload {
    Payload {
        counter,
        bypass: BTreeMap::from([("job1".to_string(), counter as u32)]),
        filler: "x".repeat(size),
    }
}

#[test]
fn opening_creates_the_layout_and_reports_first_start() {
    let root = tmp("open").join("mauisched");
    let (dir, notices) = StateDir::open(&root, &Config::default()).unwrap();
    assert_eq!(notices, vec![StateNotice::Created(root.clone())]);
    assert!(dir.stats_dir().ends_with("stats") && dir.stats_dir().is_dir());
    assert!(dir.run_dir().is_dir());
    let (cp, n) = dir.load_checkpoint::<Payload>(100);
    assert!(cp.is_none());
    assert_eq!(n, vec![StateNotice::NoCheckpoint(root.join("maui.ck"))]);
    fs::remove_dir_all(root.parent().unwrap()).ok();
}

#[test]
fn checkpoint_round_trips_and_honours_checkpointfile() {
    let root = tmp("roundtrip");
    let cfg = Config::parse("CHECKPOINTFILE state.ck\nSTATDIR fs\n", "t").config;
    let (dir, _) = StateDir::open(&root, &cfg).unwrap();
    dir.save_checkpoint(50, &payload(7, 10)).unwrap();
    assert!(root.join("state.ck").is_file() && root.join("fs").is_dir());
    let (cp, n) = dir.load_checkpoint::<Payload>(60);
    assert!(n.is_empty());
    let cp = cp.unwrap();
    assert_eq!((cp.saved_at, cp.state), (50, payload(7, 10)));
    fs::remove_dir_all(&root).ok();
}

#[test]
fn a_corrupt_or_truncated_checkpoint_is_moved_aside_not_overwritten() {
    let root = tmp("corrupt");
    let (dir, _) = StateDir::open(&root, &Config::default()).unwrap();
    dir.save_checkpoint(1, &payload(1, 100)).unwrap();
    let good = fs::read(dir.checkpoint_path()).unwrap();
    fs::write(dir.checkpoint_path(), &good[..good.len() / 2]).unwrap();
    let (cp, n) = dir.load_checkpoint::<Payload>(1234);
    assert!(cp.is_none());
    let moved = root.join("maui.ck.corrupt-1234");
    match &n[..] {
        [StateNotice::CorruptCheckpoint {
            path,
            moved_to,
            reason,
        }] => {
            assert_eq!(path, dir.checkpoint_path());
            assert_eq!(moved_to, &moved);
            assert!(reason.contains("EOF"), "{reason}");
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(
        fs::read(&moved).unwrap(),
        good[..good.len() / 2],
        "kept byte for byte"
    );
    assert!(!dir.checkpoint_path().exists());
    // A second corrupt file at the same second does not clobber the first.
    fs::write(dir.checkpoint_path(), b"{not json").unwrap();
    let (_, n) = dir.load_checkpoint::<Payload>(1234);
    assert!(
        n[0].to_string().contains("maui.ck.corrupt-1234.1"),
        "{}",
        n[0]
    );
    // A payload of another shape or version is not silently reset either.
    fs::write(
        dir.checkpoint_path(),
        br#"{"version":99,"saved_at":1,"state":{}}"#,
    )
    .unwrap();
    let (_, n) = dir.load_checkpoint::<Payload>(1300);
    assert!(n[0].to_string().contains("format version 99"), "{}", n[0]);
    fs::remove_dir_all(&root).ok();
}

#[test]
fn a_file_where_the_directory_should_be_is_an_error() {
    let root = tmp("notadir");
    fs::create_dir_all(root.parent().unwrap()).unwrap();
    fs::write(&root, b"x").unwrap();
    let e = StateDir::open(&root, &Config::default())
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("not a directory") || e.contains("File exists"),
        "{e}"
    );
    fs::remove_file(&root).ok();
}

/// Not a test of its own: the writer process that `kill_mid_write_*`
/// starts (it re-runs this test binary with MAUISCHED_CRASH_DIR set).
#[test]
fn helper_process_for_crash_test() {
    let Ok(root) = std::env::var("MAUISCHED_CRASH_DIR") else {
        return;
    };
    let (dir, _) = StateDir::open(Path::new(&root), &Config::default()).unwrap();
    for counter in 1.. {
        dir.save_checkpoint(counter as i64, &payload(counter, 1 << 16))
            .unwrap();
        crate::util::atomic_write(
            &Path::new(&root).join("last-complete"),
            counter.to_string().as_bytes(),
        )
        .unwrap();
    }
}

#[test]
fn kill_mid_write_leaves_the_old_or_the_new_checkpoint() {
    let root = tmp("crash");
    let (dir, _) = StateDir::open(&root, &Config::default()).unwrap();
    dir.save_checkpoint(0, &payload(0, 1 << 16)).unwrap();
    let exe = std::env::current_exe().unwrap();
    // Deterministic pseudo-random kill delays between 1 and 40 ms.
    let mut seed: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut kills_mid_run = 0;
    let mut killed_inside_write = 0;
    for _ in 0..40 {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let delay = (seed >> 33) % 30;
        let mut child = std::process::Command::new(&exe)
            .args([
                "persist::tests::helper_process_for_crash_test",
                "--exact",
                "--test-threads=1",
            ])
            .env("MAUISCHED_CRASH_DIR", &root)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        // Let the writer get going (process start-up varies), then kill it at
        // a pseudo-random point of its write loop.
        let t0 = std::time::Instant::now();
        while !root.join("last-complete").exists()
            && t0.elapsed() < std::time::Duration::from_secs(20)
        {
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        std::thread::sleep(std::time::Duration::from_millis(delay));
        child.kill().unwrap(); // SIGKILL
        child.wait().unwrap();
        let last: u64 = fs::read_to_string(root.join("last-complete"))
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(0);
        let (cp, notices) = dir.load_checkpoint::<Payload>(1);
        assert!(
            notices.is_empty(),
            "torn checkpoint after kill: {notices:?}"
        );
        let cp = cp.unwrap();
        // Old (the last completed write) or new (the one in flight).
        assert!(
            cp.state.counter == last || cp.state.counter == last + 1,
            "read {} after last complete {last}",
            cp.state.counter
        );
        assert_eq!(cp.state, payload(cp.state.counter, 1 << 16));
        if cp.state.counter > 0 {
            kills_mid_run += 1;
        }
        let leftovers: Vec<_> = fs::read_dir(&root)
            .unwrap()
            .filter_map(|e| e.ok())
            .filter(|e| e.file_name().to_string_lossy().contains(".tmp."))
            .collect();
        if !leftovers.is_empty() {
            killed_inside_write += 1;
        }
        for l in leftovers {
            fs::remove_file(l.path()).ok(); // a killed writer may leave its temporary; it is never read
        }
        fs::remove_file(root.join("last-complete")).ok();
    }
    assert!(
        kills_mid_run > 0,
        "the writer never got to write before being killed"
    );
    eprintln!("{killed_inside_write} of 40 kills landed inside a write (temporary file left)");
    fs::remove_dir_all(&root).ok();
}

#[test]
fn the_engine_state_round_trips_through_the_checkpoint() {
    use crate::engine::state::{EngineState, JobReservation, NamedClaim};
    use crate::model::Resources;
    use crate::priority::QueueAccrual;
    use crate::reservation::admin::AdminRecord;
    use crate::reservation::AdminRequest;
    let root = tmp("engine-state");
    let (dir, _) = StateDir::open(&root, &Config::default()).unwrap();
    let claim = NamedClaim {
        node: "n2".into(),
        tasks: 1,
        resources: Resources::procs(1),
        gres: Some([("gpu".to_string(), 2)].into_iter().collect()),
    };
    let mut s = EngineState {
        last_iteration: Some(1_700_000_600),
        ..EngineState::default()
    };
    s.accrual.insert(
        "H".into(),
        QueueAccrual {
            accrued: 600,
            last_update: 1_700_000_600,
            accruing: Some(true),
            previous: 540,
        },
    );
    s.bypass.insert("B".into(), 1);
    s.system_priority.insert("C".into(), 10);
    s.admin.sequence.insert("u9".into(), 2);
    s.admin.records.push(AdminRecord {
        id: "u9.2".into(),
        created: 1_700_000_000,
        start: 1_700_007_200,
        end: 1_700_010_800,
        request: AdminRequest {
            users: Some("u9".into()),
            tasks: Some(1),
            ..AdminRequest::default()
        },
        nodes: vec![("n2".into(), 1)],
    });
    s.standing_claims
        .insert("interactive.19675".into(), vec![claim.clone()]);
    std::sync::Arc::make_mut(&mut s.job_reservations).push(JobReservation {
        job: "B".into(),
        start: 1_700_010_800,
        end: 1_700_014_400,
        claims: vec![claim],
    });
    s.ever_reserved.insert("B".into(), 1_700_000_000);
    dir.save_checkpoint(1_700_000_600, &s).unwrap();
    let (cp, notices) = dir.load_checkpoint::<EngineState>(1_700_000_700);
    assert!(notices.is_empty(), "{notices:?}");
    let cp = cp.unwrap();
    assert_eq!(cp.saved_at, 1_700_000_600);
    assert_eq!(cp.state, s);
    fs::remove_dir_all(&root).ok();
}

/// The engine keeps queue-time accrual in a hash table, but writes it in
/// job id order: the same state gives the same checkpoint bytes whatever
/// order the jobs were added in.
#[test]
fn accrual_is_written_in_job_id_order() {
    use crate::engine::EngineState;
    use crate::priority::QueueAccrual;
    let ids: Vec<String> = (0..40).map(|k| format!("job{}", (k * 17) % 40)).collect();
    let state = |order: &mut dyn Iterator<Item = &String>| {
        let mut s = EngineState::default();
        for id in order {
            let acc = QueueAccrual {
                accrued: id.len() as i64,
                last_update: 1_700_000_000,
                accruing: Some(true),
                previous: 0,
            };
            s.accrual.insert(id.clone(), acc);
        }
        serde_json::to_string(&s).unwrap()
    };
    let forward = state(&mut ids.iter());
    assert_eq!(forward, state(&mut ids.iter().rev()));
    let mut sorted = ids.clone();
    sorted.sort();
    let at: Vec<usize> = sorted
        .iter()
        .map(|id| forward.find(&format!("\"{id}\":")).unwrap())
        .collect();
    assert!(at.windows(2).all(|w| w[0] < w[1]), "{forward}");
    let back: EngineState = serde_json::from_str(&forward).unwrap();
    assert_eq!(back.accrual.len(), 40);
}

/// The accrual table is rebuilt over each iteration's idle jobs: walked in
/// job order or in any other (submission order under idle limits), each
/// job gets its own record back or a fresh one, the records of jobs no
/// longer idle are gone, and the table reads back the same from its
/// checkpoint form, in job order ("9" before "10").
#[test]
fn accrual_table_is_rebuilt_over_the_idle_jobs() {
    use crate::engine::{job_id_cmp, state::AccrualMap};
    use crate::model::Job;
    use crate::priority::QueueAccrual;
    let job = |id: &str, submit: i64| Job {
        id: id.into(),
        user: "u".into(),
        submit_time: submit,
        tasks: 1,
        ..Job::default()
    };
    let rec = |accrued: i64| QueueAccrual {
        accrued,
        last_update: 100,
        accruing: Some(true),
        previous: 0,
    };
    let mut before = AccrualMap::default();
    for (id, a) in [("10", 10), ("9", 9), ("11", 11), ("gone", 1)] {
        before.insert(id.into(), rec(a));
    }
    assert_eq!(
        before.keys().map(String::as_str).collect::<Vec<_>>(),
        ["9", "10", "11", "gone"]
    );
    // This iteration's jobs, in job order: 9 and 11 stay, 10 left, 12 is new.
    let mut jobs = vec![job("9", 5), job("11", 1), job("12", 50)];
    jobs.sort_by(|a, b| job_id_cmp(&a.id, &b.id));
    let walk = |order: &[usize]| {
        let mut t = before.clone();
        let mut r = t.rebuild();
        let mut eff = Vec::new();
        for &j in order {
            eff.push((j, r.record(j, &jobs[j], |a| a.accrued += 1)));
        }
        t.finish(r, &jobs);
        eff.sort();
        (t, eff)
    };
    let (in_order, eff) = walk(&[0, 1, 2]);
    assert_eq!(walk(&[2, 0, 1]), (in_order.clone(), eff.clone()));
    assert_eq!(walk(&[1, 2, 0]).0, in_order);
    assert_eq!(
        in_order.keys().map(String::as_str).collect::<Vec<_>>(),
        ["9", "11", "12"]
    );
    assert_eq!(in_order.get("9").unwrap().accrued, 10);
    assert_eq!(in_order.get("11").unwrap().accrued, 12);
    // A new job starts from its submission.
    let fresh = in_order.get("12").unwrap();
    assert_eq!((fresh.accrued, fresh.last_update), (1, 50));
    assert!(in_order.get("10").is_none() && in_order.get("gone").is_none());
    let json = serde_json::to_string(&in_order).unwrap();
    assert!(
        json.find("\"11\"") < json.find("\"9\""),
        "string order: {json}"
    );
    let back: AccrualMap = serde_json::from_str(&json).unwrap();
    assert_eq!(back, in_order);
    // Look-ups in job order start after the last record found; any other
    // order finds the same records.
    let mut t = in_order.clone();
    for ids in [["9", "11", "12"], ["12", "9", "11"]] {
        let mut next = 0;
        for id in ids {
            let want = in_order.get(id).copied();
            assert_eq!(t.get_mut_next(&mut next, id).copied(), want, "{id}");
        }
        assert!(t.get_mut_next(&mut next, "10").is_none());
    }
}
