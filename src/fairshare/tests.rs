use super::*;
use crate::model::time::Zone;
use crate::model::NodeTasks;
use crate::persist::fairshare::{parse, render};
use std::path::PathBuf;

fn cfg(text: &str) -> Config {
    let l = Config::parse(text, "test.cfg");
    assert!(l.is_ok(), "{:?}", l.diagnostics);
    l.config
}

fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("mauisched-fs-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn running(id: &str, user: &str, procs: u32, start: Time) -> Job {
    Job {
        id: id.into(),
        user: user.into(),
        group: "g".into(),
        state: JobState::Running,
        start_time: Some(start),
        tasks: procs,
        task: Resources::procs(1),
        ..Job::default()
    }
}

const TWELVE_H: Secs = 12 * 3600;
/// A window boundary under FSINTERVAL 12:00:00.
const W: Time = 40_000 * TWELVE_H;
/// The clock the window files are read at.
const NOW: Time = W + TWELVE_H;

/// The guide's John: (60 + .5·0 + .25·10 + .125·50) / (110 + .5·125 + .25·100 + .125·150).
fn john_expected() -> f64 {
    100.0 * (60.0 + 0.5 * 0.0 + 0.25 * 10.0 + 0.125 * 50.0)
        / (110.0 + 0.5 * 125.0 + 0.25 * 100.0 + 0.125 * 150.0)
}

fn john_cfg() -> Config {
    cfg("FSPOLICY DEDICATEDPS\nFSINTERVAL 12:00:00\nFSDEPTH 4\nFSDECAY 0.5\n")
}

#[test]
fn john_example_from_window_files() {
    let c = john_cfg();
    let dir = temp_dir("john");
    // Window 0 is the most recent.
    for (i, (john, total)) in [(60.0, 110.0), (0.0, 125.0), (10.0, 100.0), (50.0, 150.0)]
        .iter()
        .enumerate()
    {
        let start = W - i as Time * TWELVE_H;
        let mut text =
            format!("# Fairshare Data File (Duration: {TWELVE_H} Seconds) Starting: x\n\n");
        if *john > 0.0 {
            text.push_str(&format!("User John {john:.3}\n"));
        }
        text.push_str(&format!(
            "User other {:.3}\nTOTAL {total:.3}\n",
            total - john
        ));
        std::fs::write(dir.join(format!("FS.{start}")), text).unwrap();
    }
    let (fs, issues) = Fairshare::load_dir(&dir, &c, NOW).unwrap();
    assert!(issues.is_empty(), "{issues:?}");
    assert_eq!(fs.windows().len(), 4);
    let u = fs.usage(&c, CredKind::User, "John").unwrap();
    assert!((u - john_expected()).abs() < 1e-9, "{u}");
    assert!((u - 31.79).abs() < 0.01, "68.75 / 216.25 = 31.79%: {u}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn john_example_from_accrued_usage() {
    let c = john_cfg();
    let total = Resources::procs(1000);
    let mut fs = Fairshare::new();
    // One second per window, usage in processor-seconds: oldest window first.
    for (i, (john, other)) in [(50, 100), (10, 90), (0, 125), (60, 50)].iter().enumerate() {
        let start = W - (3 - i as Time) * TWELVE_H;
        let mut jobs = vec![running("o", "other", *other, start)];
        if *john > 0 {
            jobs.push(running("j", "John", *john, start));
        }
        fs.accrue(&c, &jobs, &[], &total, start, start + 1);
    }
    assert_eq!(fs.windows().len(), 4);
    assert_eq!(fs.windows()[0].start, W);
    assert_eq!(fs.windows()[0].total, 110.0);
    assert_eq!(fs.windows()[3].get(CredKind::User, "John"), 50.0);
    let u = fs.usage(&c, CredKind::User, "John").unwrap();
    assert!((u - john_expected()).abs() < 1e-9, "{u}");
    // Every job counts for its group and the DEFAULT QOS too.
    assert_eq!(fs.windows()[0].get(CredKind::Group, "g"), 110.0);
    assert_eq!(fs.windows()[0].get(CredKind::Qos, "DEFAULT"), 110.0);
    // FSDEPTH 2 only sees the two newest windows.
    let c2 = cfg("FSPOLICY DEDICATEDPS\nFSINTERVAL 12:00:00\nFSDEPTH 2\nFSDECAY 0.5\n");
    let u2 = fs.usage(&c2, CredKind::User, "John").unwrap();
    assert!((u2 - 100.0 * 60.0 / (110.0 + 0.5 * 125.0)).abs() < 1e-9);
}

#[test]
fn decay_table_of_the_guide() {
    // Guide 6.3.2.2: contribution of windows 0..7 in percent.
    let table: [(f64, [f64; 8]); 3] = [
        (0.80, [100., 80., 64., 51., 41., 33., 26., 21.]),
        (0.75, [100., 75., 56., 42., 31., 23., 17., 12.]),
        (0.50, [100., 50., 25., 13., 6., 3., 2., 1.]),
    ];
    for (decay, row) in table {
        let c = cfg(&format!("FSDECAY {decay}\nFSINTERVAL 1:00:00\nFSDEPTH 8\n"));
        // Eight hourly windows, the newest first; only window i holds one
        // unit of u's usage, so the decayed sum is window i's weight.
        let weights: Vec<f64> = (0..8)
            .map(|i| {
                let ws = (0..8)
                    .map(|k| {
                        let mut w = Window {
                            start: (100 - k) * 3600,
                            duration: 3600,
                            ..Window::default()
                        };
                        if k == i {
                            w.usage
                                .entry(CredKind::User)
                                .or_default()
                                .insert("u".into(), 1.0);
                            w.total = 1.0;
                        }
                        w
                    })
                    .collect();
                Fairshare::from_windows(ws)
                    .decayed(&c, CredKind::User, "u")
                    .0
            })
            .collect();
        for i in 0..8 {
            let pct = 100.0 * weights[i];
            assert!((pct - 100.0 * decay.powi(i as i32)).abs() < 1e-9);
            if decay == 0.75 && i == 7 {
                // 0.75^7 = 13.35%; the guide's 12 comes from its own
                // arithmetic, each entry truncated from the previous one
                // (75, 56, 42, 31, 23, 17, 12) — checked below.
                assert!((pct - 13.35).abs() < 0.01);
                continue;
            }
            assert!(
                (pct - row[i]).abs() < 1.0,
                "decay {decay} window {i}: {pct:.2}% vs the guide's {}%",
                row[i]
            );
        }
        if decay == 0.75 {
            let mut v = 100.0f64;
            let mut trunc = vec![100.0];
            for _ in 1..8 {
                v = (v * 0.75).floor();
                trunc.push(v);
            }
            assert_eq!(trunc, row.to_vec());
        }
    }
}

#[test]
fn accrual_goes_to_the_window_current_at_the_last_iteration() {
    let c = cfg("FSPOLICY DEDICATEDPS\nFSINTERVAL 1:00:00\n");
    let total = Resources::procs(16);
    let mut fs = Fairshare::new();
    let b = 500 * 3600;
    // A 4-proc job from b-600 to b+900, accrued in one call: the window
    // holding b opens at the next iteration (Maui rotates its windows at
    // the end of an iteration), so all of it goes to the one before.
    fs.accrue(
        &c,
        &[running("1", "u", 4, b - 600)],
        &[],
        &total,
        b - 600,
        b + 900,
    );
    assert_eq!(fs.windows().len(), 1);
    assert_eq!(fs.windows()[0].start, b - 3600);
    assert_eq!(fs.windows()[0].total, 4.0 * 1500.0);
    // The next iteration opens it; a job that started mid-span only counts
    // from its start.
    fs.accrue(
        &c,
        &[running("2", "v", 2, b + 1000)],
        &[],
        &total,
        b + 900,
        b + 1100,
    );
    assert_eq!(fs.windows()[0].start, b);
    assert_eq!(fs.windows()[0].get(CredKind::User, "v"), 200.0);
    assert_eq!(fs.windows()[1].total, 4.0 * 1500.0);
    // Two idle hours without an iteration: each interval the span covers
    // gets its (empty) window, but for the last, opened at the next call.
    fs.accrue(&c, &[], &[], &total, b + 1100, b + 3 * 3600 + 5);
    let starts: Vec<Time> = fs.windows().iter().map(|w| w.start).collect();
    assert_eq!(starts, [b + 2 * 3600, b + 3600, b, b - 3600]);
    assert_eq!(fs.windows()[1].total, 0.0);
    fs.accrue(&c, &[], &[], &total, b + 3 * 3600 + 5, b + 3 * 3600 + 65);
    assert_eq!(fs.windows()[0].start, b + 3 * 3600);
}

#[test]
fn usage_metrics_of_fspolicy() {
    // Guide 6.3.2.1: a 4-proc /bin/sleep for 15 minutes is 1 proc-hour
    // dedicated and essentially nothing consumed.
    let total = Resources::procs_mem(16, 16_000);
    let mut sleep = running("1", "u", 4, 0);
    sleep.utilized_procs = Some(0.0);
    sleep.allocation = vec![NodeTasks {
        node: "n1".into(),
        tasks: 4,
    }];
    for (policy, want) in [
        ("DEDICATEDPS", 3600.0),
        ("UTILIZEDPS", 0.0),
        ("[NONE]", 0.0),
    ] {
        let c = cfg(&format!("FSPOLICY {policy}\n"));
        let mut fs = Fairshare::new();
        fs.accrue(&c, std::slice::from_ref(&sleep), &[], &total, 0, 900);
        let got = fs.windows().first().map_or(0.0, |w| w.total);
        assert_eq!(got, want, "{policy}");
        if policy == "[NONE]" {
            assert!(fs.windows().is_empty(), "no tracking, no windows");
        }
    }
    // DEDICATEDPES: 4 procs with half the memory of the cluster is 8 PE.
    let c = cfg("FSPOLICY DEDICATEDPES\n");
    let mut fat = running("2", "u", 4, 0);
    fat.task = Resources::procs_mem(1, 2000);
    assert_eq!(job_rate(&c, &fat, &total), 8.0);
    // UTILIZEDPS without an RM measure falls back to dedicated processors.
    let c = cfg("FSPOLICY UTILIZEDPS\n");
    assert_eq!(job_rate(&c, &running("3", "u", 4, 0), &total), 4.0);
}

#[test]
fn dedicated_pes_charge_gpus() {
    // 128 processors and 8 GPUs: a 1-processor 1-GPU job holds an eighth
    // of the cluster, 16 PE, so its GPU-hour is charged as 16 CPU-hours.
    let mut total = Resources::procs(128);
    total.gres.set(0, 8);
    let c = cfg("FSPOLICY DEDICATEDPES\nFSINTERVAL 12:00:00\n");
    let mut gpu = running("1", "u", 1, W);
    gpu.task.gres.set(0, 1);
    gpu.allocation = vec![NodeTasks {
        node: "n1".into(),
        tasks: 1,
    }];
    assert_eq!(job_rate(&c, &gpu, &total), 16.0);
    let mut fs = Fairshare::new();
    fs.accrue(&c, std::slice::from_ref(&gpu), &[], &total, W, W + 3600);
    assert_eq!(fs.windows()[0].total, 16.0 * 3600.0);
    // A per-node request (Slurm --gres) held on each of two nodes.
    let mut pn = running("2", "u", 2, W);
    pn.node_gres.set(0, 2);
    pn.allocation = vec![
        NodeTasks {
            node: "n1".into(),
            tasks: 1,
        },
        NodeTasks {
            node: "n2".into(),
            tasks: 1,
        },
    ];
    assert_eq!(job_rate(&c, &pn, &total), 64.0);
    // DEDICATEDPS still charges processors only.
    let c = cfg("FSPOLICY DEDICATEDPS\n");
    assert_eq!(job_rate(&c, &gpu, &total), 1.0);
    let c = cfg("FSPOLICY UTILIZEDPS\n");
    assert_eq!(job_rate(&c, &running("3", "u", 4, 0), &total), 4.0);
}

#[test]
fn fairshare_caps_make_jobs_ineligible() {
    let c = cfg("FSPOLICY DEDICATEDPS\nFSINTERVAL 1:00:00\nUSERCFG[hog] FSCAP=30%\nGROUPCFG[DEFAULT] FSCAP=5000\n");
    let total = Resources::procs(10);
    let mut fs = Fairshare::new();
    let t = 1000 * 3600;
    let mut hog = running("1", "hog", 4, t);
    hog.group = "a".into();
    let mut small = running("2", "small", 1, t);
    small.group = "b".into();
    let mut other = running("3", "other", 5, t);
    other.group = "c".into();
    fs.accrue(
        &c,
        &[hog.clone(), small.clone(), other],
        &[],
        &total,
        t,
        t + 100,
    );
    // hog: 400 of 1000 = 40% >= 30%.
    let v = fs.fs_cap_exceeded(&c, &hog).unwrap();
    assert_eq!((v.kind, v.name.as_str()), (CredKind::User, "hog"));
    assert_eq!(v.usage, 40.0);
    assert_eq!(
        v.to_string(),
        "fairshare cap reached: USER hog has used 40.00% of delivered usage (FSCAP 30%)"
    );
    assert!(fs.fs_cap_exceeded(&c, &small).is_none());
    // Absolute cap from GROUPCFG[DEFAULT]: group c has used 500 < 5000; then 5500.
    fs.accrue(
        &c,
        &[running("4", "x", 5, t)],
        &[],
        &total,
        t + 100,
        t + 1100,
    );
    let mut late = running("5", "new", 1, t);
    late.group = "g".into();
    let v = fs.fs_cap_exceeded(&c, &late).unwrap();
    assert_eq!(
        (v.kind, v.name.as_str(), v.usage),
        (CredKind::Group, "g", 5000.0)
    );
    assert_eq!(
        v.to_string(),
        "fairshare cap reached: GROUP g has used 5000.0 (FSCAP 5000)"
    );
}

const SEED_FILE: &str =
    "# Fairshare Data File (Duration: 172800 Seconds) Starting: Fri Aug 18 18:00:00

User USERA 150000.000
User USERB 150000.000
User USERC 200000.000
User USERD 100000.000
Group GROUPA 350000.000
Group GROUPB 250000.000
Account ACCTA 300000.000
Account ACCTB 200000.000
Account ACCTC 100000.000
QOS 0 50000.000
QOS 1 450000.000
QOS 2 100000.000
TOTAL 600000.00
";

#[test]
fn reads_the_guides_sample_file() {
    let w = parse(SEED_FILE, 966_621_600, 86_400).unwrap();
    assert_eq!(w.duration, 172_800);
    assert_eq!(w.total, 600_000.0);
    assert_eq!(w.get(CredKind::User, "USERC"), 200_000.0);
    assert_eq!(w.get(CredKind::Qos, "1"), 450_000.0);
    // Every category sums to the total, as the guide notes.
    for kind in [
        CredKind::User,
        CredKind::Group,
        CredKind::Account,
        CredKind::Qos,
    ] {
        let sum: f64 = w.usage[&kind].values().sum();
        assert_eq!(sum, w.total, "{kind}");
    }
    // What we write reads back the same, header included.
    let text = render(&w, &Zone::utc());
    assert!(text.starts_with(
        "# Fairshare Data File (Duration: 172800 Seconds) Starting: Fri Aug 18 18:00:00\n\nUser USERA 150000.000\n"
    ));
    assert!(text.ends_with("TOTAL 600000.000\n"));
    assert_eq!(parse(&text, w.start, 1).unwrap(), w);
}

#[test]
fn bad_files_are_reported_with_their_line() {
    assert_eq!(
        parse("User a 1.0\nUser b x\nTOTAL 2\n", 0, 60),
        Err((
            2,
            "expected a usage amount (a number >= 0), got \"x\"".into()
        ))
    );
    assert_eq!(
        parse("Frob a 1.0\nTOTAL 1\n", 0, 60).unwrap_err().0,
        1,
        "unknown kind"
    );
    assert_eq!(parse("User a 1\n", 0, 60).unwrap_err().1, "no TOTAL line");
    assert_eq!(
        parse("User a 1\nUSER a 2\nTOTAL 3\n", 0, 60).unwrap_err(),
        (2, "User a appears twice (first on line 1)".into())
    );

    let c = cfg("FSPOLICY DEDICATEDPS\nFSINTERVAL 1:00:00\n");
    let dir = temp_dir("bad");
    std::fs::write(dir.join("FS.7200"), "User a 10\nTOTAL 10\n").unwrap();
    std::fs::write(dir.join("FS.3600"), "User a 10\nUser b -1\nTOTAL 10\n").unwrap();
    std::fs::write(
        dir.join("FS.0"),
        "# Fairshare Data File (Duration: 7200 Seconds) Starting: x\nUser a 5\nTOTAL 10\n",
    )
    .unwrap();
    std::fs::write(dir.join("FS.old"), "junk").unwrap();
    std::fs::write(dir.join("stats.2024_01_01"), "not ours").unwrap();
    let (fs, issues) = Fairshare::load_dir(&dir, &c, NOW).unwrap();
    let starts: Vec<Time> = fs.windows().iter().map(|w| w.start).collect();
    assert_eq!(starts, [7200, 0], "the damaged window is left out");
    let msgs: Vec<String> = issues.iter().map(|i| i.to_string()).collect();
    let d = dir.display();
    assert_eq!(
        msgs,
        [
            format!("{d}/FS.0: note: window of 7200 seconds written under another FSINTERVAL (now 3600); used as one window until it rolls out"),
            format!("{d}/FS.3600:2: error: expected a usage amount (a number >= 0), got \"-1\" (file ignored)"),
            format!("{d}/FS.old: error: not a fairshare window file name (expected FS.<epoch seconds>, got FS.old) (file ignored)"),
        ]
    );
    // The older-interval window still counts, decayed as window 1.
    let u = fs
        .usage(
            &cfg("FSINTERVAL 1:00:00\nFSDECAY 0.5\n"),
            CredKind::User,
            "a",
        )
        .unwrap();
    assert!((u - 100.0 * 12.5 / 15.0).abs() < 1e-9);
    // Accrual continues the loaded current window, then rolls.
    let mut fs = fs;
    fs.accrue(
        &c,
        &[running("1", "a", 1, 7200)],
        &[],
        &Resources::procs(1),
        7200,
        7300,
    );
    assert_eq!(fs.windows()[0].total, 110.0);
    std::fs::remove_dir_all(&dir).ok();
    assert!(
        Fairshare::load_dir(&dir, &c, NOW)
            .unwrap()
            .0
            .windows()
            .is_empty(),
        "no directory yet"
    );
}

#[test]
fn saves_changed_windows_atomically_and_reads_them_back() {
    let c = cfg("FSPOLICY DEDICATEDPS\nFSINTERVAL 1:00:00\n");
    let dir = temp_dir("save").join("stats");
    let total = Resources::procs(4);
    let mut fs = Fairshare::new();
    let t = 10 * 3600;
    fs.accrue(&c, &[running("1", "u", 2, t)], &[], &total, t, t + 60);
    assert_eq!(fs.save_dir(&dir, &Zone::utc()).unwrap(), 1);
    assert_eq!(
        fs.save_dir(&dir, &Zone::utc()).unwrap(),
        0,
        "nothing changed"
    );
    // Crossing the boundary changes the old window; the next iteration
    // opens a new one.
    fs.accrue(
        &c,
        &[running("1", "u", 2, t)],
        &[],
        &total,
        t + 60,
        t + 3660,
    );
    fs.accrue(
        &c,
        &[running("1", "u", 2, t)],
        &[],
        &total,
        t + 3660,
        t + 3720,
    );
    assert_eq!(fs.save_dir(&dir, &Zone::utc()).unwrap(), 2);
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    assert_eq!(
        names,
        [format!("FS.{t}"), format!("FS.{}", t + 3600)],
        "no temporary left"
    );
    let (back, issues) = Fairshare::load_dir(&dir, &c, NOW).unwrap();
    assert!(issues.is_empty());
    assert_eq!(back.windows().len(), 2);
    assert_eq!(back.windows()[1].total, 2.0 * 3660.0);
    assert_eq!(back.windows()[0].get(CredKind::User, "u"), 120.0);
    assert_eq!(
        back.usage(&c, CredKind::User, "u"),
        fs.usage(&c, CredKind::User, "u")
    );
    std::fs::remove_dir_all(dir.parent().unwrap()).ok();
}

#[test]
fn diagnose_f_shows_targets_and_windows() {
    let c = cfg(
        "FSPOLICY DEDICATEDPS\nFSINTERVAL 12:00:00\nFSDEPTH 4\nFSDECAY 0.5\n\
         USERCFG[John] FSTARGET=25\nUSERCFG[idle] FSTARGET=10+\n",
    );
    let total = Resources::procs(1000);
    let mut fs = Fairshare::new();
    for (i, (john, other)) in [(50, 100), (10, 90), (0, 125), (60, 50)].iter().enumerate() {
        let start = W - (3 - i as Time) * TWELVE_H;
        let mut jobs = vec![running("o", "other", *other, start)];
        if *john > 0 {
            jobs.push(running("j", "John", *john, start));
        }
        fs.accrue(&c, &jobs, &[], &total, start, start + 3600);
    }
    let text = render_diagnose_f(&c, &fs);
    let want = "\
FairShare Information

Depth: 4 intervals   Interval Length: 12:00:00   Decay Rate: 0.50

FS Policy: DEDICATEDPS (usage is tracked by processor seconds dedicated to each job)
System FS Settings:  Target Usage: -------

FSInterval        %   Target       0       1       2       3
FSWeight    -------  -------  1.0000  0.5000  0.2500  0.1250
TotalUsage   100.00  -------   110.0   125.0   100.0   150.0

USER
-------------
John          31.79    25.00   54.55    0.00   10.00   33.33
idle           0.00   10.00+    0.00    0.00    0.00    0.00
other         68.21  -------   45.45  100.00   90.00   66.67

GROUP
-------------
g            100.00  -------  100.00  100.00  100.00  100.00

QOS
-------------
DEFAULT      100.00  -------  100.00  100.00  100.00  100.00

current window started Fri Oct  4 00:00:00 (epoch 1728000000)
";
    assert_eq!(text, want);
    let r = diagnose_f_report(&c, &fs);
    assert_eq!(r.windows.len(), 4);
    assert!((r.creds[0].usage.unwrap() - john_expected()).abs() < 1e-9);
}

proptest::proptest! {
    /// Polled at most an FSINTERVAL apart, a window holds the usage from
    /// the first poll at or after its start to the first poll at or after
    /// its end (Maui rotates its windows at the end of an iteration), and
    /// no usage is lost or counted twice, however often the scheduler
    /// polled.
    #[test]
    fn accrual_follows_the_polls(
        gaps in proptest::collection::vec(1i64..=3600, 1..24),
        procs in 1u32..64,
        offset in 0i64..3600,
    ) {
        let c = cfg("FSPOLICY DEDICATEDPS\nFSINTERVAL 1:00:00\n");
        let total = Resources::procs(64);
        let start = 1000 * 3600 + offset;
        let job = running("1", "u", procs, start);
        let mut polls = vec![start];
        for g in &gaps {
            polls.push(polls.last().unwrap() + g);
        }
        let end = *polls.last().unwrap();
        let mut fs = Fairshare::new();
        for w in polls.windows(2) {
            fs.accrue(&c, std::slice::from_ref(&job), &[], &total, w[0], w[1]);
        }
        let first_poll = |t: Time| polls.iter().copied().find(|&p| p >= t).unwrap_or(end);
        let mut want = Vec::new();
        let mut w = window_start(start, 3600);
        while w == window_start(start, 3600) || first_poll(w) < end {
            let from = if w <= start { start } else { first_poll(w) };
            want.push((w, procs as f64 * (first_poll(w + 3600) - from) as f64));
            w += 3600;
        }
        let got: Vec<(Time, f64)> = fs.windows().iter().rev().map(|w| (w.start, w.total)).collect();
        proptest::prop_assert_eq!(got.len(), want.len());
        for (g, w) in got.iter().zip(&want) {
            proptest::prop_assert_eq!(g.0, w.0);
            proptest::prop_assert!((g.1 - w.1).abs() < 1e-6, "{:?} vs {:?}", g, w);
        }
        let sum: f64 = got.iter().map(|w| w.1).sum();
        proptest::prop_assert_eq!(sum, procs as f64 * (end - start) as f64);
    }
}

/// A user's name is forgotten once the last window holding their usage
/// rolls out (after MAX_FSDEPTH windows), so the name tables do not grow
/// with every user who ever ran; the other users' usage is unchanged.
#[test]
fn names_roll_out_with_their_last_window() {
    let c = cfg("FSPOLICY DEDICATEDPS\nFSINTERVAL 12:00:00\nFSDEPTH 4\n");
    let total = Resources::procs(16);
    let mut fs = Fairshare::new();
    fs.accrue(&c, &[running("1", "gone", 2, W)], &[], &total, W, W + 3600);
    fs.accrue(
        &c,
        &[running("2", "stays", 2, W)],
        &[],
        &total,
        W + 3600,
        W + 7200,
    );
    assert_eq!(fs.names_known(CredKind::User), 2);
    let stays = fs.decayed(&c, CredKind::User, "stays");
    // "stays" keeps running, window after window.
    let mut t = W + 7200;
    // (A window opens at the iteration after the first past its start.)
    for k in 1..=MAX_FSDEPTH as i64 {
        let next = W + k * TWELVE_H + 60;
        fs.accrue(&c, &[running("2", "stays", 2, W)], &[], &total, t, next);
        t = next;
    }
    // The first window is still held (MAX_FSDEPTH of them), then it goes.
    assert_eq!(fs.windows().len(), MAX_FSDEPTH);
    assert_eq!(fs.names_known(CredKind::User), 2);
    let next = W + (MAX_FSDEPTH as i64 + 1) * TWELVE_H + 60;
    fs.accrue(&c, &[running("2", "stays", 2, W)], &[], &total, t, next);
    assert_eq!(fs.names_known(CredKind::User), 1);
    assert_eq!(fs.decayed(&c, CredKind::User, "gone").0, 0.0);
    // The groups ("g" for both) stay, and "stays" still has its usage.
    assert_eq!(fs.names_known(CredKind::Group), 1);
    assert!(fs.decayed(&c, CredKind::User, "stays").0 > 0.0);
    assert_ne!(fs.decayed(&c, CredKind::User, "stays"), stays);
    // The state written and read back is the same.
    let again = Fairshare::from_windows(fs.windows());
    assert_eq!(again, fs);
}

fn finished(id: &str, user: &str, procs: u32, start: Time, end: Time) -> Job {
    Job {
        state: JobState::Completed,
        end_time: Some(end),
        ..running(id, user, procs, start)
    }
}

/// Usage of `user` summed over every window.
fn user_total(fs: &Fairshare, user: &str) -> f64 {
    fs.windows()
        .iter()
        .filter_map(|w| w.usage.get(&CredKind::User)?.get(user).copied())
        .sum()
}

#[test]
fn a_finished_job_is_charged_from_its_start_to_its_end_once() {
    let c = cfg("FSPOLICY DEDICATEDPS\nFSINTERVAL 1:00:00\n");
    let total = Resources::procs(10);
    let t = 1000 * 3600;
    let mut fs = Fairshare::new();
    // Iterations at t, t+30, t+60, t+90. Job 1 (2 procs) runs t+5..t+40:
    // seen running at t+30, ended at t+60. Job 2 (3 procs) starts at t+61
    // and ends at t+62, both between two iterations. Job 3 was running at
    // t and is cancelled at t+70 (Removed).
    let j1 = running("1", "a", 2, t + 5);
    let j3 = running("3", "c", 1, t - 500);
    fs.accrue(&c, std::slice::from_ref(&j3), &[], &total, t - 30, t);
    let before = user_total(&fs, "c");
    fs.accrue(&c, &[j1, j3.clone()], &[], &total, t, t + 30);
    fs.accrue(
        &c,
        std::slice::from_ref(&j3),
        &[finished("1", "a", 2, t + 5, t + 40)],
        &total,
        t + 30,
        t + 60,
    );
    let mut gone = finished("3", "c", 1, t - 500, t + 70);
    gone.state = JobState::Removed;
    let ended = [finished("2", "b", 3, t + 61, t + 62), gone.clone()];
    fs.accrue(&c, &[], &ended, &total, t + 60, t + 90);
    assert_eq!(user_total(&fs, "a"), 2.0 * 35.0);
    assert_eq!(user_total(&fs, "b"), 3.0 * 1.0);
    assert_eq!(user_total(&fs, "c") - before, 70.0);
    // Reported again (the RM keeps finished jobs a while): nothing more.
    let ended = [
        finished("1", "a", 2, t + 5, t + 40),
        finished("2", "b", 3, t + 61, t + 62),
        gone,
    ];
    fs.accrue(&c, &[], &ended, &total, t + 90, t + 120);
    assert_eq!(user_total(&fs, "a"), 70.0);
    assert_eq!(user_total(&fs, "b"), 3.0);
    assert_eq!(user_total(&fs, "c") - before, 70.0);
    // A finished job without a start (cancelled while queued) or an end
    // is charged nothing.
    let mut unstarted = finished("4", "d", 1, t, t + 130);
    unstarted.start_time = None;
    let mut no_end = finished("5", "d", 1, t + 100, t + 130);
    no_end.end_time = None;
    fs.accrue(&c, &[], &[unstarted, no_end], &total, t + 120, t + 150);
    assert_eq!(user_total(&fs, "d"), 0.0);
}

#[test]
fn a_finished_job_is_charged_in_the_windows_it_ran_in() {
    // FSINTERVAL 1:00:00; iterations at W-10 and W+3700 (the scheduler did
    // not run for an hour): the job ran W-5..W+3605, so W-5..W goes to the
    // window before W, and the rest, which spans two windows, to W's
    // (the span up to the last iteration goes to the window current then).
    let c = cfg("FSPOLICY DEDICATEDPS\nFSINTERVAL 1:00:00\nFSDEPTH 8\n");
    let total = Resources::procs(10);
    let mut fs = Fairshare::new();
    fs.accrue(&c, &[], &[], &total, W - 20, W - 10);
    let job = running("1", "a", 1, W - 5);
    fs.accrue(&c, &[job], &[], &total, W - 10, W - 10);
    fs.accrue(
        &c,
        &[],
        &[finished("1", "a", 1, W - 5, W + 3605)],
        &total,
        W - 10,
        W + 3700,
    );
    let by_window: Vec<(Time, f64)> = fs
        .windows()
        .iter()
        .map(|w| {
            (
                w.start,
                w.usage
                    .get(&CredKind::User)
                    .and_then(|m| m.get("a"))
                    .copied()
                    .unwrap_or(0.0),
            )
        })
        .collect();
    assert!(by_window.contains(&(W - 3600, 5.0)), "{by_window:?}");
    assert!(by_window.contains(&(W, 3605.0)), "{by_window:?}");
    assert_eq!(user_total(&fs, "a"), 3610.0);
}

#[test]
fn windows_from_the_future_or_with_absurd_values_are_refused_and_moved_aside() {
    let c = cfg("FSPOLICY DEDICATEDPS\nFSINTERVAL 1:00:00\n");
    let dir = temp_dir("absurd");
    let hour = 3600;
    let good = W - hour;
    std::fs::write(dir.join(format!("FS.{good}")), "User a 10\nTOTAL 10\n").unwrap();
    // The issue's example: far in the future, one user at 1e300.
    std::fs::write(dir.join("FS.99999999999"), "User x 1e300\nTOTAL 1e300\n").unwrap();
    // Within a day of the clock (a clock stepped back): still read.
    let soon = NOW + 2 * hour;
    std::fs::write(dir.join(format!("FS.{soon}")), "User a 1\nTOTAL 1\n").unwrap();
    // A credential above TOTAL, and a TOTAL no cluster records in an hour.
    let (over, huge) = (W - 2 * hour, W - 3 * hour);
    std::fs::write(dir.join(format!("FS.{over}")), "User b 50\nTOTAL 10\n").unwrap();
    std::fs::write(
        dir.join(format!("FS.{huge}")),
        "User b 1e300\nTOTAL 1e300\n",
    )
    .unwrap();
    let long = W - 4 * hour;
    std::fs::write(
        dir.join(format!("FS.{long}")),
        "# Fairshare Data File (Duration: 99999999999 Seconds) Starting: x\nTOTAL 1\n",
    )
    .unwrap();
    let (fs, mut issues) = Fairshare::load_dir(&dir, &c, NOW).unwrap();
    let starts: Vec<Time> = fs.windows().iter().map(|w| w.start).collect();
    assert_eq!(starts, [soon, good], "only the plausible windows are used");
    let d = dir.display();
    let msgs: Vec<String> = issues.iter().map(|i| i.to_string()).collect();
    assert_eq!(
        msgs,
        [
            format!("{d}/FS.{long}: error: a window of 99999999999 seconds is longer than a year: not a window mauisched or Maui wrote (file ignored)"),
            format!("{d}/FS.{huge}: error: TOTAL 1e300 is more than 1e8 processors busy for the whole 3600-second window: not a usage record (file ignored)"),
            format!("{d}/FS.{over}: error: User b has usage 50, more than the window's TOTAL 10 (file ignored)"),
            format!("{d}/FS.99999999999: error: the window starts at 99999999999, more than a day after the clock ({NOW}): a window from the future is never adopted (file ignored)"),
        ]
    );
    // The owner of the directory moves them aside; they are not read again
    // and not reported again.
    for i in &mut issues {
        crate::persist::fairshare::move_aside(i, NOW);
    }
    assert_eq!(
        issues[3].to_string(),
        format!("{d}/FS.99999999999: error: the window starts at 99999999999, more than a day after the clock ({NOW}): a window from the future is never adopted (moved aside to {d}/FS.99999999999.corrupt-{NOW})")
    );
    assert_eq!(
        std::fs::read_to_string(dir.join(format!("FS.{over}.corrupt-{NOW}"))).unwrap(),
        "User b 50\nTOTAL 10\n",
        "kept as it was"
    );
    let (again, issues) = Fairshare::load_dir(&dir, &c, NOW).unwrap();
    assert!(issues.is_empty(), "{issues:?}");
    assert_eq!(again.windows().len(), 2);
    std::fs::remove_dir_all(&dir).ok();
}
