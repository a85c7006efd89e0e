use super::*;
use crate::model::NodeAmount;

/// The guide's sample resource trace line (section 16.2).
const RESOURCE_SAMPLE: &str = "COMPUTENODE AVAILABLE 0 cluster008 PBS1 423132 256 7140 2 -1 -1 1 LINUX62 AthlonK7 [s950][compute] [batch:2]  [ethernet][atm] 1.67 [NONE] [NONE] [NONE]";

/// The guide's sample workload trace line (section 16.3).
const WORKLOAD_SAMPLE: &str = "SP02.2343.0 20 20 570 519 86400 Removed [batch:1] 887343658 889585185 889585185 889585411 ethernet R6000 AIX43 >= 256 >= 0 [NONE] 889584538 20 0 0 2 0 test.cmd 1001 6 678.08 0 1 0 0 0 0 0 [NONE] 0 [NONE] [NONE] [NONE] [NONE] [NONE]";

#[test]
fn the_guides_resource_sample_reads_field_by_field() {
    let r = ResourceRecord::parse(RESOURCE_SAMPLE.as_bytes()).unwrap();
    assert_eq!(r.event, ResourceEvent::Available);
    assert_eq!(r.event_time, 0);
    assert_eq!(r.name, "cluster008");
    assert_eq!(r.rm.as_deref(), Some("PBS1"));
    assert_eq!((r.swap, r.mem, r.disk, r.procs), (423_132, 256, 7140, 2));
    assert_eq!((r.frame, r.slot, r.slot_count), (-1, -1, 1));
    assert_eq!(r.os.as_deref(), Some("LINUX62"));
    assert_eq!(r.arch.as_deref(), Some("AthlonK7"));
    assert_eq!(r.features, vec!["s950", "compute"]);
    assert_eq!(r.classes, vec![("batch".to_string(), 2)]);
    assert_eq!(r.networks, vec!["ethernet", "atm"]);
    assert_eq!(r.speed, 1.67);
    assert_eq!(r.reserved, [None, None, None]);
    let n = r.to_node();
    assert_eq!(n.name, "cluster008");
    assert_eq!(n.state, NodeState::Idle);
    assert_eq!(
        n.configured,
        Resources {
            procs: 2,
            mem: 256,
            swap: 423_132,
            disk: 7140,
            ..Resources::ZERO
        }
    );
    // Architecture, operating system and network adapters become features
    // a job's requirements of them meet.
    assert_eq!(
        n.features,
        vec![
            "s950",
            "compute",
            "arch:AthlonK7",
            "os:LINUX62",
            "network:ethernet",
            "network:atm"
        ]
    );
    assert_eq!(n.speed, Some(1.67));
}

#[test]
fn resource_events_set_the_starting_state_and_later_lines_update() {
    let text = format!(
        "# nodes\n{RESOURCE_SAMPLE}\n{}\n\n{}\n",
        RESOURCE_SAMPLE
            .replace("cluster008", "cluster009")
            .replace("AVAILABLE", "DEFINED"),
        RESOURCE_SAMPLE.replace("AVAILABLE", "DRAINED")
    );
    let (recs, stats) = read_resources(text.as_bytes(), "r", ReadOptions::default()).unwrap();
    assert_eq!((stats.records, stats.comments), (3, 2));
    let nodes = resource_nodes(&recs);
    assert_eq!(nodes.len(), 2);
    assert_eq!(
        (nodes[0].name.as_str(), nodes[0].state),
        ("cluster008", NodeState::Drained)
    );
    assert_eq!(
        (nodes[1].name.as_str(), nodes[1].state),
        ("cluster009", NodeState::Down)
    );
    assert_eq!((nodes[0].index, nodes[1].index), (0, 1));
}

#[test]
fn resource_errors_have_positions() {
    let cases = [
        (
            RESOURCE_SAMPLE.replace("COMPUTENODE", "SWITCH"),
            1,
            "field 1 (resource type): expected COMPUTENODE, got \"SWITCH\"",
        ),
        (
            RESOURCE_SAMPLE.replace("AVAILABLE", "UP"),
            13,
            "field 2 (event type): expected AVAILABLE, DEFINED or DRAINED, got \"UP\"",
        ),
        (
            RESOURCE_SAMPLE.replace(" 256 ", " lots "),
            48,
            "field 7 (configured memory): expected an integer, got \"lots\"",
        ),
        (
            RESOURCE_SAMPLE.replace("[s950][compute]", "s950,compute"),
            84,
            "field 15 (node features): expected a list like [a][b] or [NONE], got \"s950,compute\"",
        ),
        (
            RESOURCE_SAMPLE.replace("[batch:2]", "[batch:x]"),
            100,
            "field 16 (run classes): expected NAME:COUNT, got \"batch:x\"",
        ),
        (
            RESOURCE_SAMPLE.replace("1.67", "0"),
            127,
            "field 18 (relative speed): speed must be positive, got 0",
        ),
        (
            RESOURCE_SAMPLE.replace(" [NONE] [NONE] [NONE]", " [NONE] [NONE]"),
            145,
            "expected 21 fields, found 20 (missing field 21, reserved field 3)",
        ),
    ];
    for (line, col, msg) in cases {
        let text = format!("# header\n{line}\n");
        let err = read_resources(text.as_bytes(), "r.trace", ReadOptions::default()).unwrap_err();
        assert_eq!(err.to_string(), format!("r.trace:2:{col}: {msg}"), "{line}");
    }
}

#[test]
fn the_guides_workload_sample_reads_field_by_field() {
    let r = WorkloadRecord::parse(WORKLOAD_SAMPLE.as_bytes()).unwrap();
    assert_eq!(r.id, "SP02.2343.0");
    assert_eq!((r.nodes, r.tasks), (20, 20));
    assert_eq!((r.user.as_str(), r.group.as_str()), ("570", "519"));
    assert_eq!(r.walltime, 86_400);
    assert_eq!(r.state, CompletionState::Removed);
    assert_eq!(r.classes, vec![("batch".to_string(), 1)]);
    assert_eq!(
        (r.submit, r.dispatch, r.start, r.completion),
        (887_343_658, 889_585_185, 889_585_185, 889_585_411)
    );
    assert_eq!(r.network.as_deref(), Some("ethernet"));
    assert_eq!(r.arch.as_deref(), Some("R6000"));
    assert_eq!(r.os.as_deref(), Some("AIX43"));
    assert_eq!(r.node_mem, (Cmp::Ge, 256));
    assert_eq!(r.node_disk, (Cmp::Ge, 0));
    assert!(r.features.is_empty());
    assert_eq!(r.system_queue_time, 889_584_538);
    assert_eq!(r.tasks_allocated, 20);
    assert_eq!(r.tasks_per_node, None, "0 is no requirement");
    assert_eq!(
        (r.qos_requested.clone(), r.qos_delivered.clone()),
        (None, None)
    );
    assert!(r.flags.is_empty(), "numeric flag word of old traces");
    assert_eq!(r.account, None);
    assert_eq!(r.executable.as_deref(), Some("test.cmd"));
    // Mapped, the requirements stay: a node of at least 256 MB with an
    // ethernet adapter, R6000 architecture and AIX43.
    let job = map_workload_record(&r, &MapOptions::default()).unwrap().job;
    assert_eq!(
        job.node_mem,
        Some(NodeAmount {
            cmp: Cmp::Ge,
            mb: 256
        })
    );
    assert_eq!(job.node_disk, None, ">= 0 holds for every node");
    assert_eq!(
        job.features,
        vec!["arch:R6000", "os:AIX43", "network:ethernet"]
    );
    assert_eq!(r.comment.as_deref(), Some("1001"));
    assert_eq!(r.bypass, Some(6));
    assert_eq!(r.proc_seconds, 678.08);
    assert_eq!(r.partition, None);
    assert_eq!(r.procs_per_task, 1);
    assert_eq!(
        (r.mem_per_task, r.disk_per_task, r.swap_per_task),
        (0, 0, 0)
    );
    assert_eq!((r.start_date, r.end_date), (0, 0));
    assert!(r.alloc_hosts.is_empty());
    assert_eq!(r.rm, None);
    assert!(r.host_mask.is_empty());
    assert_eq!(
        (
            r.reservation.clone(),
            r.set_description.clone(),
            r.app_sim.clone(),
            r.reserved.clone()
        ),
        (None, None, None, None)
    );
    // Mapped: a Removed job that ran 226 s after waiting 2241527 s.
    let j = map_workload_record(&r, &MapOptions::default()).unwrap();
    assert_eq!(j.job.id, "SP02.2343.0");
    assert_eq!((j.job.user.as_str(), j.job.group.as_str()), ("570", "519"));
    assert_eq!(j.job.class.as_deref(), Some("batch"));
    assert_eq!((j.job.tasks, j.job.nodes), (20, Some(20)));
    assert_eq!(j.job.task, Resources::procs(1));
    assert_eq!(j.job.walltime, Some(86_400));
    assert_eq!(j.job.submit_time, 887_343_658);
    assert_eq!(j.runtime, 889_585_411 - 889_585_185);
    assert_eq!(j.trace_wait, Some(889_585_185 - 887_343_658));
}

/// A fully populated modern line: every mapped field set.
fn full_line() -> String {
    [
        "job.42",
        "2",
        "8",
        "alice",
        "physics",
        "3600",
        "Completed",
        "[fast:1][batch:1]",
        "1000000",
        "1000100",
        "1000100",
        "1003000",
        "[NONE]",
        "[NONE]",
        "[NONE]",
        ">",
        "1024",
        "<=",
        "500",
        "[ib][bigmem]",
        "1000050",
        "8",
        "4",
        "high:normal",
        "[BACKFILL][PREEMPTEE]",
        "proj7",
        "a.out",
        "[NONE]",
        "-1",
        "23200.5",
        "batchpart",
        "2",
        "2048",
        "100",
        "512",
        "1000090",
        "2000000",
        "n01:n02",
        "PBS",
        "[n01][n02][n03]",
        "resA",
        "ONEOF:FEATURE:ib",
        "[NONE]",
        "[NONE]",
    ]
    .join(" ")
}

#[test]
fn a_full_workload_line_maps_every_engine_field() {
    let r = WorkloadRecord::parse(full_line().as_bytes()).unwrap();
    assert_eq!(
        r.classes,
        vec![("fast".to_string(), 1), ("batch".to_string(), 1)]
    );
    assert_eq!(r.node_mem, (Cmp::Gt, 1024));
    assert_eq!(r.node_disk, (Cmp::Le, 500));
    assert_eq!(r.qos_requested.as_deref(), Some("high"));
    assert_eq!(r.qos_delivered.as_deref(), Some("normal"));
    assert_eq!(r.bypass, None);
    assert_eq!(r.alloc_hosts, vec!["n01", "n02"]);
    assert_eq!(r.set_description.as_deref(), Some("ONEOF:FEATURE:ib"));
    let j = map_workload_record(&r, &MapOptions::default()).unwrap();
    let job = &j.job;
    assert_eq!(job.class.as_deref(), Some("fast"));
    assert_eq!(job.qos.as_deref(), Some("high"));
    assert_eq!(job.account.as_deref(), Some("proj7"));
    assert_eq!(job.partition, None, "partitions off by default");
    assert_eq!(
        (job.tasks, job.nodes, job.tasks_per_node),
        (8, Some(2), Some(4))
    );
    assert_eq!(
        job.task,
        Resources {
            procs: 2,
            mem: 2048,
            disk: 100,
            swap: 512,
            ..Resources::ZERO
        }
    );
    assert_eq!(job.procs(), 16);
    assert_eq!(job.features, vec!["ib", "bigmem"]);
    // Node memory and disk comparisons are kept as requirements.
    assert_eq!(
        (job.node_mem, job.node_disk),
        (
            Some(NodeAmount {
                cmp: Cmp::Gt,
                mb: 1024
            }),
            Some(NodeAmount {
                cmp: Cmp::Le,
                mb: 500
            })
        )
    );
    assert_eq!(job.hostlist, vec!["n01", "n02", "n03"]);
    assert_eq!(job.advres.as_deref(), Some("resA"));
    assert_eq!(job.attributes, vec!["BACKFILL", "PREEMPTEE"]);
    assert_eq!(job.earliest_start, Some(1_000_090));
    assert_eq!((j.runtime, j.trace_wait), (2900, Some(100)));
    let with_p = MapOptions {
        partitions: true,
        ..MapOptions::default()
    };
    assert_eq!(
        map_workload_record(&r, &with_p)
            .unwrap()
            .job
            .partition
            .as_deref(),
        Some("batchpart")
    );
    // DEFAULT class and partition mean none.
    let l = full_line()
        .replace("[fast:1][batch:1]", "[DEFAULT:1]")
        .replace("batchpart", "DEFAULT");
    let r = WorkloadRecord::parse(l.as_bytes()).unwrap();
    let j = map_workload_record(&r, &with_p).unwrap();
    assert_eq!((j.job.class.clone(), j.job.partition.clone()), (None, None));
}

#[test]
fn workload_skips_and_no_limit_convention() {
    let parse = |l: String| WorkloadRecord::parse(l.as_bytes()).unwrap();
    let m = MapOptions::default();
    let notrun = parse(full_line().replace("Completed", "NotRun"));
    assert_eq!(map_workload_record(&notrun, &m), Err(SkipReason::NotRun));
    let never = parse(
        full_line()
            .replace("Completed", "Removed")
            .replace(" 1000100 1000100 1003000 ", " 0 0 1003000 "),
    );
    assert_eq!(
        map_workload_record(&never, &m),
        Err(SkipReason::CancelledBeforeStart)
    );
    let backwards = parse(full_line().replace(" 1003000 ", " 1000000 "));
    assert_eq!(
        map_workload_record(&backwards, &m),
        Err(SkipReason::NoRuntime)
    );
    let no_tasks = parse(
        full_line()
            .replace(" 2 8 alice", " 2 0 alice")
            .replace(" 1000050 8 4 ", " 1000050 0 4 "),
    );
    assert_eq!(map_workload_record(&no_tasks, &m), Err(SkipReason::NoProcs));
    let big = MapOptions {
        max_procs: Some(15),
        ..MapOptions::default()
    };
    let full = parse(full_line());
    assert_eq!(map_workload_record(&full, &big), Err(SkipReason::TooLarge));
    let nolimit = parse(full_line().replace(" 3600 Completed", " 0 Completed"));
    assert_eq!(
        map_workload_record(&nolimit, &m).unwrap().job.walltime,
        Some(2900)
    );
    let sysdef = MapOptions {
        no_request: NoRequest::SystemDefault,
        ..MapOptions::default()
    };
    assert_eq!(
        map_workload_record(&nolimit, &sysdef).unwrap().job.walltime,
        None
    );
}

#[test]
fn workload_errors_have_positions_and_lenient_mode_counts() {
    let cases = [
        (
            WORKLOAD_SAMPLE.replace("Removed", "Gone"),
            33,
            "field 7 (job completion state): expected Completed, Removed or NotRun, got \"Gone\"",
        ),
        (
            WORKLOAD_SAMPLE.replace(" 86400 ", " 1day "),
            27,
            "field 6 (wallclock limit): expected an integer, got \"1day\"",
        ),
        (
            WORKLOAD_SAMPLE.replace("AIX43 >= 256", "AIX43 ~ 256"),
            112,
            "field 16 (required node memory comparison): expected one of >, >=, =, <=, <, got \"~\"",
        ),
        (
            WORKLOAD_SAMPLE.replace(" 20 0 0 2 ", " 20 -2 0 2 "),
            144,
            "field 23 (required tasks per node): -2 is below the smallest allowed value -1",
        ),
        (
            format!("{WORKLOAD_SAMPLE} extra"),
            233,
            "expected 44 fields, found 45 (extra field \"extra\")",
        ),
    ];
    for (line, col, msg) in &cases {
        let text = format!("# Maui workload trace\n\n{line}\n");
        let mut stats = ReadStats::default();
        let err = read_workload(
            text.as_bytes(),
            "w.trace",
            ReadOptions::default(),
            &mut stats,
            |_| {},
        )
        .unwrap_err();
        assert_eq!(err.to_string(), format!("w.trace:3:{col}: {msg}"), "{line}");
    }
    let text: String = std::iter::once(WORKLOAD_SAMPLE.to_string())
        .chain(cases.iter().map(|c| c.0.clone()))
        .chain(std::iter::once(full_line()))
        .map(|l| l + "\n")
        .collect();
    let mut stats = ReadStats::default();
    let mut n = 0;
    read_workload(
        text.as_bytes(),
        "w",
        ReadOptions { lenient: true },
        &mut stats,
        |_| n += 1,
    )
    .unwrap();
    assert_eq!((n, stats.records, stats.malformed), (2, 2, 5));
    let lines: Vec<u64> = stats.examples.iter().filter_map(|e| e.line()).collect();
    assert_eq!(lines, vec![2, 3, 4, 5, 6]);
}

#[test]
fn a_maui_workload_file_loads_through_format_detection() {
    let dir = std::env::temp_dir().join(format!("mauisched-mauitrace-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join("workload.trace");
    crate::util::atomic_write(
        &p,
        format!("# trace\n{WORKLOAD_SAMPLE}\n{}\n", full_line()).as_bytes(),
    )
    .unwrap();
    assert_eq!(
        crate::sim::workload::detect_format(&p).unwrap(),
        crate::sim::workload::TraceFormat::MauiWorkload
    );
    let w = crate::sim::workload::load_path(&p, ReadOptions::default(), &MapOptions::default())
        .unwrap();
    let ids: Vec<&str> = w.jobs.iter().map(|j| j.job.id.as_str()).collect();
    assert_eq!(ids, vec!["job.42", "SP02.2343.0"], "sorted by submit time");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn the_guides_gres_extension_is_per_task() {
    // Section 13.3's example, and the colon-separated form Maui's reader
    // splits on.
    for ext in [
        "GRES:tape,matlab@2",
        "GRES:tape:matlab@2",
        "x=GRES:tape,matlab@2",
    ] {
        let g = rm_extension_gres(ext).unwrap();
        assert_eq!(g.to_string(), "tape:1,matlab:2", "{ext}");
    }
    let g = rm_extension_gres("QOS:high;GRES=tape:2;DMEM:512").unwrap();
    assert_eq!(g.to_string(), "tape:2");
    assert!(rm_extension_gres("QOS:high").unwrap().is_empty());
    assert!(rm_extension_gres("GRESFOO").unwrap().is_empty());
    for (ext, want) in [
        ("GRES:tape@0", "not a positive whole number"),
        ("GRES:tape@x", "not a positive whole number"),
        ("GRES:3", "without a resource name"),
        ("GRES:tape,,gpu", "empty item"),
        ("GRES:ta pe", "bad name part"),
    ] {
        let e = rm_extension_gres(ext).unwrap_err();
        assert!(e.contains(want), "{ext}: {e}");
    }

    let line = full_line().replacen(" a.out [NONE] ", " a.out GRES:gpu@2 ", 1);
    let r = WorkloadRecord::parse(line.as_bytes()).unwrap();
    assert_eq!(r.gres.to_string(), "gpu:2");
    let j = map_workload_record(&r, &MapOptions::default()).unwrap();
    assert_eq!(j.job.gres_per_task.to_string(), "gpu:2");
    assert!(j.job.gres_per_node.is_empty() && j.job.gres_per_job.is_empty());
    let plain = WorkloadRecord::parse(full_line().as_bytes()).unwrap();
    assert!(map_workload_record(&plain, &MapOptions::default())
        .unwrap()
        .job
        .gres_per_task
        .is_empty());

    let bad = full_line().replacen(" a.out [NONE] ", " a.out GRES:gpu@0 ", 1);
    let e = WorkloadRecord::parse(bad.as_bytes()).unwrap_err();
    assert!(
        e.message.starts_with("field 28 (comment): GRES \"gpu@0\""),
        "{}",
        e.message
    );
}

#[test]
fn resource_field_18_may_list_generic_resources() {
    // Maui 3.3's reader takes field 18 as the node's generic resources.
    let line = RESOURCE_SAMPLE.replace(" 1.67 ", " [gpu:4][tape] ");
    let r = ResourceRecord::parse(line.as_bytes()).unwrap();
    assert_eq!(r.speed, 1.0);
    assert_eq!(r.gres.to_string(), "gpu:4,tape:1");
    assert_eq!(r.to_node().gres.to_string(), "gpu:4,tape:1");
    let none = RESOURCE_SAMPLE.replace(" 1.67 ", " [NONE] ");
    let r = ResourceRecord::parse(none.as_bytes()).unwrap();
    assert!(r.gres.is_empty());
    assert_eq!(r.speed, 1.0);
    let bad = RESOURCE_SAMPLE.replace(" 1.67 ", " [gpu:x:y:2] ");
    let e = ResourceRecord::parse(bad.as_bytes()).unwrap_err();
    assert!(
        e.message.contains("field 18") && e.message.contains("more than one type"),
        "{}",
        e.message
    );
}

#[test]
fn traces_as_maui_writes_them_with_the_version_line_and_comments_anywhere() {
    // Maui 3.3 writes `VERSION 230` first (MStats.c) and ends a line at
    // its first `#` (MTrace.c); both readers take that.
    let text = format!(
        "VERSION 230\n{WORKLOAD_SAMPLE}   # the guide's sample\n  # a comment\n{}\n",
        full_line()
    );
    let mut stats = ReadStats::default();
    let mut ids = Vec::new();
    read_workload(
        text.as_bytes(),
        "w",
        ReadOptions::default(),
        &mut stats,
        |r| ids.push(r.id.clone()),
    )
    .unwrap();
    assert_eq!(ids, vec!["SP02.2343.0", "job.42"]);
    assert_eq!((stats.lines, stats.records, stats.comments), (4, 2, 2));

    // strtol's bases, as Maui reads the number.
    for v in [
        "VERSION 230",
        "VERSION 0xE6",
        "VERSION 0346",
        "  VERSION 230 # x",
    ] {
        let text = format!("{v}\n{WORKLOAD_SAMPLE}\n");
        let mut stats = ReadStats::default();
        read_workload(
            text.as_bytes(),
            "w",
            ReadOptions::default(),
            &mut stats,
            |_| {},
        )
        .unwrap_or_else(|e| panic!("{v}: {e}"));
        assert_eq!(stats.records, 1, "{v}");
    }

    // Another version: Maui skips every record after it; here it is an
    // error naming the line, with --lenient too.
    for (v, col, msg) in [
        (
            "VERSION 231",
            1,
            "trace version 231: Maui 3.3 reads only version 230 records, and so does mauisched",
        ),
        (
            "VERSION",
            1,
            "a version line without a version: Maui's traces begin with VERSION 230",
        ),
        (
            "  VERSION x",
            3,
            "version \"x\" is not a trace version: Maui's traces begin with VERSION 230",
        ),
    ] {
        let text = format!("# workload\n{v}\n{WORKLOAD_SAMPLE}\n");
        for lenient in [false, true] {
            let mut stats = ReadStats::default();
            let err = read_workload(
                text.as_bytes(),
                "w.trace",
                ReadOptions { lenient },
                &mut stats,
                |_| {},
            )
            .unwrap_err();
            assert_eq!(err.to_string(), format!("w.trace:2:{col}: {msg}"));
        }
    }

    // A resource trace: the version line, and `[NONE]` in field 18 (no
    // generic resources; Maui 3.3 reads that field as the node's list).
    let node = RESOURCE_SAMPLE.replace(" 1.67 [NONE]", " [NONE] [NONE]");
    let text = format!("VERSION 230\n{node} # node 8\n");
    let (recs, stats) = read_resources(text.as_bytes(), "r", ReadOptions::default()).unwrap();
    assert_eq!((stats.records, stats.comments), (1, 1));
    assert_eq!(recs[0].speed, 1.0);
    assert!(recs[0].gres.is_empty());
    let nodes = crate::sim::cluster::parse_any(&text, "r").unwrap();
    assert_eq!(nodes.len(), 1);
    assert_eq!(nodes[0].name, "cluster008");
    assert_eq!(nodes[0].configured.procs, 2);
}

#[test]
fn a_workload_file_with_the_version_line_is_detected_as_maui_s() {
    let dir = std::env::temp_dir().join(format!("mauisched-mauiversion-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join("workload.trace");
    crate::util::atomic_write(&p, format!("VERSION 230\n{WORKLOAD_SAMPLE}\n").as_bytes()).unwrap();
    assert_eq!(
        crate::sim::workload::detect_format(&p).unwrap(),
        crate::sim::workload::TraceFormat::MauiWorkload
    );
    let w = crate::sim::workload::load_path(&p, ReadOptions::default(), &MapOptions::default())
        .unwrap();
    assert_eq!(w.jobs.len(), 1);
    let bad = dir.join("v231.trace");
    crate::util::atomic_write(&bad, format!("VERSION 231\n{WORKLOAD_SAMPLE}\n").as_bytes())
        .unwrap();
    let err = crate::sim::workload::load_path(
        &bad,
        ReadOptions { lenient: true },
        &MapOptions::default(),
    )
    .unwrap_err()
    .to_string();
    assert!(err.contains("v231.trace:1:1: trace version 231"), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_workload_record_writes_the_line_it_reads_back() {
    // The guide's sample (with its `0` for none and numeric flags), a line
    // with every field set, and the forms convert writes.
    let gres = full_line().replace(" [NONE] -1 23200.5", " GRES:gpu@2 -1 23200.5");
    for line in [WORKLOAD_SAMPLE.to_string(), full_line(), gres] {
        let r = WorkloadRecord::parse(line.as_bytes()).unwrap();
        let back = WorkloadRecord::parse(r.to_line().as_bytes()).unwrap();
        assert_eq!(back, r, "{line}\n{}", r.to_line());
    }
    let r = WorkloadRecord::parse(full_line().as_bytes()).unwrap();
    let mut delivered_only = r.clone();
    delivered_only.qos_requested = None;
    let back = WorkloadRecord::parse(delivered_only.to_line().as_bytes()).unwrap();
    assert_eq!(back.qos_delivered.as_deref(), Some("normal"));
    assert_eq!(back.qos_requested, None);
}
