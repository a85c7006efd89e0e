use super::*;
use crate::sim::swf::SwfStatus;

fn rec(line: &str) -> SwfRecord {
    SwfRecord::parse(line.as_bytes()).unwrap()
}

#[test]
fn header_job_lines_give_accounts_and_qos_and_partition_names_apply() {
    // `; job N account A qos Q` as `mauictl convert` writes it; either part
    // alone; malformed forms are comments. Partition names apply only with
    // --partitions, as partition numbers do.
    let swf = "; UnixStartTime: 0\n; partition 2 = gpu\n\
               ; job 1 account proj1 qos high\n; job 2 qos low\n; job 3 account proj3\n\
               ; job 4 qos\n; job 5 qos a account b\n; job x account y\n\
               1 0 0 10 4 -1 -1 4 60 -1 1 1 1 -1 1 2 -1 -1\n\
               2 0 0 10 4 -1 -1 4 60 -1 1 1 1 -1 1 3 -1 -1\n\
               3 0 0 10 4 -1 -1 4 60 -1 1 1 1 -1 1 -1 -1 -1\n\
               4 0 0 10 4 -1 -1 4 60 -1 1 1 1 -1 1 -1 -1 -1\n\
               5 0 0 10 4 -1 -1 4 60 -1 1 1 1 -1 1 -1 -1 -1\n";
    let load = |partitions| {
        load_swf(
            swf.as_bytes(),
            "creds.swf",
            ReadOptions::default(),
            &MapOptions {
                partitions,
                ..MapOptions::default()
            },
        )
        .unwrap()
    };
    let w = load(true);
    let got: Vec<(Option<&str>, Option<&str>, Option<&str>)> = w
        .jobs
        .iter()
        .map(|j| {
            (
                j.job.account.as_deref(),
                j.job.qos.as_deref(),
                j.job.partition.as_deref(),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            (Some("proj1"), Some("high"), Some("gpu")),
            (None, Some("low"), Some("p3")),
            (Some("proj3"), None, None),
            (None, None, None),
            (None, None, None),
        ]
    );
    assert!(load(false).jobs.iter().all(|j| j.job.partition.is_none()));
}

#[test]
fn header_names_replace_the_numbers_they_name() {
    // Name lines as `mauictl convert` writes them; other comments (a
    // sentence with "=" in it, a two-word name) are not names.
    let swf = "; Version: 2.2\n; UnixStartTime: 0\n; user 12 = alice\n; group 7 = physics\n\
               ; queue 3 = batch\n; user 13 = two words\n; note = not a name\n\
               15 0 0 10 4 -1 -1 4 60 -1 1 12 7 -1 3 -1 -1 -1\n\
               16 0 0 10 4 -1 -1 4 60 -1 1 13 8 -1 4 -1 -1 -1\n";
    let w = load_swf(
        swf.as_bytes(),
        "named.swf",
        ReadOptions::default(),
        &MapOptions::default(),
    )
    .unwrap();
    let creds: Vec<(&str, &str, Option<&str>)> = w
        .jobs
        .iter()
        .map(|j| {
            (
                j.job.user.as_str(),
                j.job.group.as_str(),
                j.job.class.as_deref(),
            )
        })
        .collect();
    assert_eq!(
        creds,
        [
            ("alice", "physics", Some("batch")),
            ("u13", "g8", Some("q4"))
        ]
    );
}

#[test]
fn credentials_become_u_g_q_names() {
    let r = rec("15 599850 192180 3477 4 -1 -1 4 53940 -1 1 12 7 -1 3 2 -1 -1");
    let j = map_swf(&r, 1000, &MapOptions::default()).unwrap();
    assert_eq!(j.job.id, "15");
    assert_eq!(j.job.user, "u12");
    assert_eq!(j.job.group, "g7");
    assert_eq!(j.job.class.as_deref(), Some("q3"));
    assert_eq!(j.job.partition, None, "partitions are off by default");
    assert_eq!(j.job.account, None);
    assert_eq!(j.job.submit_time, 1000 + 599_850);
    assert_eq!(j.job.walltime, Some(53_940));
    assert_eq!(j.runtime, 3477);
    assert_eq!(j.trace_wait, Some(192_180));
    let with_p = MapOptions {
        partitions: true,
        ..MapOptions::default()
    };
    assert_eq!(
        map_swf(&r, 0, &with_p).unwrap().job.partition.as_deref(),
        Some("p2")
    );
    // Unknown user, group and queue (the Lublin model has none of them).
    let r = rec("2 5170 -1 2 1 -1 -1 -1 -1 -1 1 -1 -1 -1 -1 -1 -1 -1");
    let j = map_swf(&r, 0, &MapOptions::default()).unwrap();
    assert_eq!(
        (j.job.user.as_str(), j.job.group.as_str()),
        ("nobody", "nogroup")
    );
    assert_eq!(j.job.class, None);
}

#[test]
fn procs_are_one_processor_tasks_and_memory_is_mb_per_task() {
    // 16 requested, 8 allocated: the request wins. 409600 KB per processor = 400 MB.
    let r = rec("26226 6745127 385843 6 8 -1 409600 16 36000 409600 1 18 1 -1 -1 1 -1 -1");
    let j = map_swf(&r, 0, &MapOptions::default()).unwrap();
    assert_eq!(j.job.tasks, 16);
    assert_eq!(j.job.task, Resources::procs_mem(1, 400));
    assert_eq!(j.job.nodes, None);
    assert_eq!(j.job.procs(), 16);
    assert_eq!(j.job.total().mem, 16 * 400);
    // No request: allocated processors; 1000 KB rounds up to 1 MB; used
    // memory (field 7) is not a request.
    let r = rec("1 0 0 10 8 -1 999999 -1 60 1000 1 1 1 -1 -1 -1 -1 -1");
    let j = map_swf(&r, 0, &MapOptions::default()).unwrap();
    assert_eq!((j.job.tasks, j.job.task.mem), (8, 1));
    let r = rec("1 0 0 10 8 -1 999999 -1 60 -1 1 1 1 -1 -1 -1 -1 -1");
    assert_eq!(
        map_swf(&r, 0, &MapOptions::default()).unwrap().job.task.mem,
        0
    );
}

#[test]
fn no_requested_time_follows_the_chosen_convention() {
    // A Lublin-model record: runtime 12072 s, no requested time.
    let r = rec("1 5094 -1 12072 16 -1 -1 -1 -1 -1 1 -1 -1 -1 0 -1 -1 -1");
    let map = |no_request| {
        map_swf(
            &r,
            0,
            &MapOptions {
                no_request,
                ..MapOptions::default()
            },
        )
        .unwrap()
    };
    let j = map(NoRequest::Runtime);
    assert_eq!(j.job.walltime, Some(12_072));
    assert_eq!(j.job.class.as_deref(), Some("q0"));
    assert_eq!(j.sim_runtime(864_000), 12_072);
    let j = map(NoRequest::SystemDefault);
    assert_eq!(j.job.walltime, None);
    assert_eq!(j.sim_runtime(3600), 3600, "cut at SYSTEMDEFAULTJOBWALLTIME");
    assert_eq!(j.sim_runtime(864_000), 12_072);
    assert_eq!(map(NoRequest::Fixed(7200)).job.walltime, Some(7200));
    // A zero-second job still gets a positive limit; a zero request is no request.
    let r = rec("3 0 -1 0 1 -1 -1 1 0 -1 1 -1 -1 -1 0 -1 -1 -1");
    assert_eq!(
        map_swf(&r, 0, &MapOptions::default()).unwrap().job.walltime,
        Some(1)
    );
    assert_eq!("runtime".parse(), Ok(NoRequest::Runtime));
    assert_eq!("default".parse(), Ok(NoRequest::SystemDefault));
    assert_eq!("1:00:00".parse(), Ok(NoRequest::Fixed(3600)));
    assert!("soon".parse::<NoRequest>().is_err());
}

#[test]
fn runtime_is_cut_at_the_walltime() {
    // HPC2N has jobs that ran past their request; the RM would have ended them.
    let r = rec("9 0 0 5000 2 -1 -1 2 3600 -1 1 1 1 -1 -1 -1 -1 -1");
    let j = map_swf(&r, 0, &MapOptions::default()).unwrap();
    assert_eq!((j.runtime, j.sim_runtime(0)), (5000, 3600));
}

#[test]
fn unusable_records_are_skipped_with_a_reason() {
    let cases = [
        (
            "1 0 0 10 0 -1 -1 0 60 -1 1 1 1 -1 -1 -1 -1 -1",
            SkipReason::NoProcs,
        ),
        (
            "1 0 0 10 -1 -1 -1 -1 60 -1 1 1 1 -1 -1 -1 -1 -1",
            SkipReason::NoProcs,
        ),
        (
            "1 0 0 -1 4 -1 -1 4 60 -1 1 1 1 -1 -1 -1 -1 -1",
            SkipReason::NoRuntime,
        ),
        (
            "1 -1 0 10 4 -1 -1 4 60 -1 1 1 1 -1 -1 -1 -1 -1",
            SkipReason::NoSubmitTime,
        ),
        (
            "1 0 50 -1 -1 -1 -1 4 60 -1 5 1 1 -1 -1 -1 -1 -1",
            SkipReason::CancelledBeforeStart,
        ),
        (
            "1 0 50 0 4 -1 -1 4 60 -1 5 1 1 -1 -1 -1 -1 -1",
            SkipReason::CancelledBeforeStart,
        ),
        (
            "1 0 0 10 4 -1 -1 4 60 -1 3 1 1 -1 -1 -1 -1 -1",
            SkipReason::PartialExecution,
        ),
        (
            "1 0 0 10 4 -1 -1 4 60 -1 2 1 1 -1 -1 -1 -1 -1",
            SkipReason::PartialExecution,
        ),
    ];
    for (line, why) in cases {
        assert_eq!(
            map_swf(&rec(line), 0, &MapOptions::default()),
            Err(why),
            "{line}"
        );
    }
    // A cancelled job that ran holds resources for its runtime: kept.
    let r = rec("1 0 50 30 4 -1 -1 4 60 -1 5 1 1 -1 -1 -1 -1 -1");
    assert_eq!(r.status, Some(SwfStatus::Cancelled));
    assert_eq!(map_swf(&r, 0, &MapOptions::default()).unwrap().runtime, 30);
    // Too large for the cluster.
    let big = MapOptions {
        max_procs: Some(3),
        ..MapOptions::default()
    };
    assert_eq!(
        map_swf(
            &rec("1 0 0 10 4 -1 -1 4 60 -1 1 1 1 -1 -1 -1 -1 -1"),
            0,
            &big
        ),
        Err(SkipReason::TooLarge)
    );
}

const SMALL: &str = "\
; UnixStartTime: 1000
1 0 0 10 1 -1 -1 1 60 -1 1 1 1 -1 -1 -1 -1 -1
2 100 0 10 0 -1 -1 0 60 -1 1 1 1 -1 -1 -1 -1 -1
3 50 0 10 2 -1 -1 2 60 -1 1 2 1 -1 -1 -1 -1 -1
3 60 0 10 2 -1 -1 2 60 -1 1 2 1 -1 -1 -1 -1 -1
4 300 0 10 2 -1 -1 2 60 -1 5 2 1 -1 -1 -1 -1 -1
5 400 0 10 2 -1 -1 2 60 -1 1 3 1 -1 -1 -1 -1 -1
6 1000 0 10 2 -1 -1 2 60 -1 1 3 1 -1 -1 -1 -1 -1
";

fn small() -> Workload {
    load_swf(
        SMALL.as_bytes(),
        "s.swf",
        ReadOptions::default(),
        &MapOptions::default(),
    )
    .unwrap()
}

#[test]
fn loading_counts_skips_and_sorts_by_submit_time() {
    let w = small();
    assert_eq!(w.origin, 1000);
    let ids: Vec<&str> = w.jobs.iter().map(|j| j.job.id.as_str()).collect();
    assert_eq!(
        ids,
        vec!["1", "3", "4", "5", "6"],
        "job 3 (t=50) sorted before... its file position"
    );
    let times: Vec<i64> = w.jobs.iter().map(|j| j.job.submit_time - 1000).collect();
    assert_eq!(times, vec![0, 50, 300, 400, 1000]);
    assert_eq!(w.skipped.get(&SkipReason::NoProcs), Some(&1));
    assert_eq!(w.skipped.get(&SkipReason::DuplicateId), Some(&1));
    assert_eq!(w.skipped_total(), 2);
    assert_eq!(w.read.records, 7);
    // An explicit origin wins over UnixStartTime.
    let w = load_swf(
        SMALL.as_bytes(),
        "s.swf",
        ReadOptions::default(),
        &MapOptions {
            origin: Some(0),
            ..MapOptions::default()
        },
    )
    .unwrap();
    assert_eq!(w.jobs[0].job.submit_time, 0);
}

#[test]
fn unsorted_logs_are_sorted_stably() {
    let text = "\
1 500 0 10 1 -1 -1 1 60 -1 1 1 1 -1 -1 -1 -1 -1
2 100 0 10 1 -1 -1 1 60 -1 1 1 1 -1 -1 -1 -1 -1
3 500 0 10 1 -1 -1 1 60 -1 1 1 1 -1 -1 -1 -1 -1
4 100 0 10 1 -1 -1 1 60 -1 1 1 1 -1 -1 -1 -1 -1
";
    let w = load_swf(
        text.as_bytes(),
        "u",
        ReadOptions::default(),
        &MapOptions::default(),
    )
    .unwrap();
    let ids: Vec<&str> = w.jobs.iter().map(|j| j.job.id.as_str()).collect();
    assert_eq!(ids, vec!["2", "4", "1", "3"]);
}

#[test]
fn jobs_start_at_and_scale_load() {
    let mut w = small();
    w.select(&Selection {
        start_at: Some("00:05:00".parse().unwrap()),
        jobs: Some(2),
        scale_load: Some("2".parse().unwrap()),
    })
    .unwrap();
    // Jobs at or after t=300: 4 (300), 5 (400); interarrival 100 s halved.
    let got: Vec<(&str, i64)> = w
        .jobs
        .iter()
        .map(|j| (j.job.id.as_str(), j.job.submit_time - 1000))
        .collect();
    assert_eq!(got, vec![("4", 300), ("5", 350)]);

    let mut w = small();
    start_at(&mut w.jobs, w.origin, &"job:5".parse().unwrap()).unwrap();
    assert_eq!(w.jobs[0].job.id, "5");
    assert!(start_at(&mut w.jobs, w.origin, &StartAt::Job("99".into())).is_err());

    // 1.5 compresses 0, 50, 300, 400, 1000 to 0, 33, 200, 267, 667 (rounded).
    let mut w = small();
    scale_load(&mut w.jobs, "1.5".parse().unwrap());
    let t: Vec<i64> = w.jobs.iter().map(|j| j.job.submit_time - 1000).collect();
    assert_eq!(t, vec![0, 33, 200, 267, 667]);
    // F < 1 stretches.
    let mut w = small();
    scale_load(&mut w.jobs, "1/2".parse().unwrap());
    let t: Vec<i64> = w.jobs.iter().map(|j| j.job.submit_time - 1000).collect();
    assert_eq!(t, vec![0, 100, 600, 800, 2000]);
}

#[test]
fn option_values_parse_strictly() {
    assert_eq!(
        "1.25".parse::<LoadScale>().unwrap(),
        LoadScale::new(5, 4).unwrap()
    );
    assert_eq!("3/2".parse::<LoadScale>().unwrap().to_string(), "3/2");
    assert_eq!("2".parse::<LoadScale>().unwrap().as_f64(), 2.0);
    assert_eq!(
        ".5".parse::<LoadScale>().unwrap(),
        LoadScale::new(1, 2).unwrap()
    );
    for bad in ["0", "-1", "x", "1/0", "", ".", "1.2.3", "0.0000000001"] {
        assert!(bad.parse::<LoadScale>().is_err(), "{bad}");
    }
    assert_eq!("3600".parse(), Ok(StartAt::Offset(3600)));
    assert_eq!("1:00:00:00".parse(), Ok(StartAt::Offset(86_400)));
    assert!("job:".parse::<StartAt>().is_err());
    assert!("tomorrow".parse::<StartAt>().is_err());
}

#[test]
fn lenient_loading_reports_malformed_lines() {
    let text = format!("{SMALL}garbage\n7 2000 0 10 2 -1 -1 2 60 -1 1 3 1 -1 -1 -1 -1 -1\n");
    let err = load_swf(
        text.as_bytes(),
        "s.swf",
        ReadOptions::default(),
        &MapOptions::default(),
    )
    .unwrap_err();
    assert_eq!(err.line(), Some(9));
    let w = load_swf(
        text.as_bytes(),
        "s.swf",
        ReadOptions { lenient: true },
        &MapOptions::default(),
    )
    .unwrap();
    assert_eq!(w.read.malformed, 1);
    assert_eq!(w.jobs.len(), 6);
}

#[test]
fn real_traces_map_with_every_record_accounted_for() {
    if let Some(p) = crate::sim::shared_trace("KTH-SP2-1996-2.1-cln.swf.gz") {
        assert_eq!(detect_format(&p).unwrap(), TraceFormat::Swf);
        let w = load_path(&p, ReadOptions::default(), &MapOptions::default()).unwrap();
        assert_eq!(w.read.records, 27_992);
        assert_eq!(w.jobs.len() as u64 + w.skipped_total(), 27_992);
        assert!(w.jobs.iter().all(|j| j.job.procs() <= 100));
    }
    if let Some(p) = crate::sim::shared_trace("lublin_256.swf.gz") {
        let w = load_path(&p, ReadOptions::default(), &MapOptions::default()).unwrap();
        assert_eq!(w.jobs.len(), 10_000);
        assert_eq!(w.origin, 0, "the model has no UnixStartTime");
        // No requested times at all: every walltime is the runtime (at least 1 s).
        assert!(w
            .jobs
            .iter()
            .all(|j| j.job.walltime == Some(j.runtime.max(1))));
        assert!(w.jobs.iter().all(|j| j.job.user == UNKNOWN_USER));
    }
}

#[test]
fn a_maui_traces_header_comments_give_the_machine_size() {
    // As `mauictl convert --to maui` writes them; Maui itself skips them.
    let line = "j1 0 4 ann g 600 Completed [batch:1] 1000 1010 1010 1310 [NONE] [NONE] [NONE] >= 0 >= 0 [NONE] 1000 4 0 [NONE] [NONE] [NONE] [NONE] [NONE] -1 0 [NONE] 1 0 0 0 0 0 [NONE] [NONE] [NONE] [NONE] [NONE] [NONE] [NONE]";
    let text = format!(
        "VERSION 230\n# Converted by hand\n# MaxNodes: 4\n# MaxProcs: 64  # sixteen each\n{line}\n"
    );
    let w = load_maui_workload(
        text.as_bytes(),
        "w.trace",
        ReadOptions::default(),
        &MapOptions::default(),
    )
    .unwrap();
    assert_eq!(
        (w.header.max_nodes, w.header.max_procs),
        (Some(4), Some(64))
    );
    assert_eq!(w.jobs.len(), 1);
    assert_eq!(w.read.comments, 4);
    let nodes = crate::sim::cluster::synthesize(&w.header, &w.jobs).unwrap();
    assert_eq!(nodes.len(), 4);
    assert!(nodes.iter().all(|n| n.configured.procs == 16));
    // Without them, no machine: --cluster is needed, as before.
    let bare = format!("VERSION 230\n{line}\n");
    let w = load_maui_workload(
        bare.as_bytes(),
        "w.trace",
        ReadOptions::default(),
        &MapOptions::default(),
    )
    .unwrap();
    assert!(crate::sim::cluster::synthesize(&w.header, &w.jobs).is_none());
}
