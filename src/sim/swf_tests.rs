use super::*;
use proptest::prelude::*;

/// A header with every key the format defines, plus oddities.
const FULL_HEADER: &str = "\
; Version: 2.2
; Computer: IBM SP2
; Installation: Example site
;               second installation line
; Acknowledge: Ada Lovelace
; Acknowledge: Charles Babbage
; Information: http://example.org/a
;              http://example.org/b
; Conversion: Someone (someone@example.org) 01 Jan 2012
; MaxJobs: 28490
; MaxRecords: 28476
; Preemption: No
; UnixStartTime: 843480031
; TimeZone: 3600
; TimeZoneString: Europe/Stockholm
; StartTime: Mon Sep 23 14:00:31 CEST 1996
; EndTime:   Fri Aug 29 10:55:01 CEST 1997
; MaxNodes: 100
; MaxProcs: 128 (of which 4 for I/O)
; MaxRuntime: 162754
; MaxMemory: 262144
; AllowOveruse: Yes
; MaxQueues: 2
; Queues: queue 0 is interactive,
;         queue 1 is batch
; Queue:  1  [fque:1]
; Queue: interactive jobs only
; MaxPartitions: 2
; Partitions: two halves of the machine
; Partition:  1  DEFAULT
; Partition:  2  ALL
; Note: first note
;       continued here
; Note: second note
; Frobnicate: 7
;
; free text after a blank comment
; MaxJobs: lots
; Preemption: sometimes
";

fn read(
    text: &str,
    opts: ReadOptions,
) -> Result<(SwfHeader, Vec<SwfRecord>, ReadStats), InputError> {
    let mut r = SwfReader::new(text.as_bytes(), "t.swf", opts)?;
    let mut recs = Vec::new();
    while let Some(rec) = r.next_record()? {
        recs.push(rec);
    }
    let (h, s) = r.finish();
    Ok((h, recs, s))
}

#[test]
fn every_header_field_is_read() {
    let (h, recs, stats) = read(FULL_HEADER, ReadOptions::default()).unwrap();
    assert!(recs.is_empty());
    assert_eq!(stats.comments, 39);
    assert_eq!(h.version.as_deref(), Some("2.2"));
    assert_eq!(h.computer.as_deref(), Some("IBM SP2"));
    assert_eq!(
        h.installation.as_deref(),
        Some("Example site\nsecond installation line")
    );
    assert_eq!(h.acknowledge, vec!["Ada Lovelace", "Charles Babbage"]);
    assert_eq!(
        h.information,
        vec!["http://example.org/a", "http://example.org/b"],
        "an indented URL continues Information; `http:` is not a key"
    );
    assert_eq!(
        h.conversion,
        vec!["Someone (someone@example.org) 01 Jan 2012"]
    );
    assert_eq!(h.max_jobs, Some(28490), "the later bad MaxJobs is ignored");
    assert_eq!(h.max_records, Some(28476));
    assert_eq!(h.preemption, Some(Preemption::No));
    assert_eq!(h.unix_start_time, Some(843_480_031));
    assert_eq!(h.time_zone, Some(3600));
    assert_eq!(h.time_zone_string.as_deref(), Some("Europe/Stockholm"));
    assert_eq!(
        h.start_time.as_deref(),
        Some("Mon Sep 23 14:00:31 CEST 1996")
    );
    assert_eq!(h.end_time.as_deref(), Some("Fri Aug 29 10:55:01 CEST 1997"));
    assert_eq!(h.max_nodes, Some(100));
    assert_eq!(
        h.max_procs,
        Some(128),
        "a remark after the number is allowed"
    );
    assert_eq!(h.max_runtime, Some(162_754));
    assert_eq!(h.max_memory, Some(262_144));
    assert_eq!(h.allow_overuse, Some(true));
    assert_eq!(h.max_queues, Some(2));
    assert_eq!(h.queues, vec!["queue 0 is interactive,\nqueue 1 is batch"]);
    assert_eq!(
        h.queue,
        vec![
            Segment {
                number: Some(1),
                description: "[fque:1]".into()
            },
            Segment {
                number: None,
                description: "interactive jobs only".into()
            }
        ]
    );
    assert_eq!(h.queue_name(1), Some("[fque:1]"));
    assert_eq!(h.max_partitions, Some(2));
    assert_eq!(h.partitions, vec!["two halves of the machine"]);
    assert_eq!(h.partition_name(1), Some("DEFAULT"));
    assert_eq!(h.partition_name(2), Some("ALL"));
    assert_eq!(h.partition_name(3), None);
    assert_eq!(h.notes, vec!["first note\ncontinued here", "second note"]);
    assert_eq!(
        h.other,
        vec![HeaderEntry {
            line: 35,
            key: "Frobnicate".into(),
            value: "7".into()
        }]
    );
    assert_eq!(h.comments, vec!["free text after a blank comment"]);
    assert_eq!(
        h.warnings,
        vec![
            HeaderWarning {
                line: 38,
                message: "MaxJobs: expected a number, got \"lots\"; ignored".into()
            },
            HeaderWarning {
                line: 39,
                message: "Preemption: expected No, Yes, Double or TS, got \"sometimes\"; ignored"
                    .into()
            },
        ]
    );
    // Rendering lists every known value and the unknown key.
    let r = h.render();
    for needle in [
        "Version: 2.2\n",
        "Information: http://example.org/a\n",
        "MaxProcs: 128\n",
        "AllowOveruse: Yes\n",
        "Queue: 1 [fque:1]\n",
        "Partition: 2 ALL\n",
        "Note: first note\n      continued here\n",
        "Frobnicate: 7\n",
    ] {
        assert!(r.contains(needle), "{needle:?} missing from\n{r}");
    }
}

#[test]
fn header_variants_and_time_slicing() {
    let (h, _, _) = read(
        ";Preemption: TS\n;AllowOveruse: no\n; Version: 2\n\n  ; MaxNodes:256\n",
        ReadOptions::default(),
    )
    .unwrap();
    assert_eq!(h.preemption, Some(Preemption::TimeSlicing));
    assert_eq!(h.allow_overuse, Some(false));
    assert_eq!(h.version.as_deref(), Some("2"));
    // `MaxNodes:256` has no blank after the colon: not a key, a comment.
    assert_eq!(h.max_nodes, None);
    assert_eq!(h.comments, vec!["MaxNodes:256"]);
}

const KTH_LINE: &str =
    "   15   599850 192180   3477    4     -1    -1    4  53940    -1  1  12  12  -1 -1 -1 -1 -1";

#[test]
fn every_record_field_is_read() {
    let r =
        SwfRecord::parse(b"7 100 20 3600 16 3500.4 1024.5 32 7200 2048 5 3 4 9 0 2 6 30").unwrap();
    assert_eq!(
        r,
        SwfRecord {
            job: 7,
            submit: Some(100),
            wait: Some(20),
            run: Some(3600),
            alloc_procs: Some(16),
            avg_cpu: Some(3500),
            used_mem_kb: Some(1025),
            req_procs: Some(32),
            req_time: Some(7200),
            req_mem_kb: Some(2048),
            status: Some(SwfStatus::Cancelled),
            user: Some(3),
            group: Some(4),
            executable: Some(9),
            queue: Some(0),
            partition: Some(2),
            preceding_job: Some(6),
            think_time: Some(30),
        }
    );
    let k = SwfRecord::parse(KTH_LINE.as_bytes()).unwrap();
    assert_eq!(k.job, 15);
    assert_eq!(k.submit, Some(599_850));
    assert_eq!(k.run, Some(3477));
    assert_eq!(k.avg_cpu, None, "-1 is unknown");
    assert_eq!(k.req_time, Some(53_940));
    assert_eq!(k.status, Some(SwfStatus::Completed));
    assert_eq!((k.user, k.group, k.queue), (Some(12), Some(12), None));
    for code in 0..=5 {
        assert_eq!(SwfStatus::from_code(code).unwrap().code(), code);
    }
    assert!(SwfStatus::PartialContinued.is_partial());
    assert!(!SwfStatus::Cancelled.is_partial());
}

#[test]
fn malformed_lines_name_file_line_column_and_problem() {
    let cases: &[(&str, u32, &str)] = &[
        (
            "1 0 0 10 1 -1 -1 1 10 -1 1 1 1 -1 -1 -1 -1",
            43,
            "expected 18 fields, found 17 (missing field 18, think time)",
        ),
        (
            "1 0 0 10 1 -1 -1 1 10 -1 1 1 1 -1 -1 -1 -1 -1 9",
            47,
            "expected 18 fields, found more (extra field \"9\")",
        ),
        (
            "1 0 0 ten 1 -1 -1 1 10 -1 1 1 1 -1 -1 -1 -1 -1",
            7,
            "field 4 (run time): expected a number, got \"ten\"",
        ),
        // Control characters are shown escaped, never sent to the terminal.
        (
            "1 0 0 t\x1b[2J 1 -1 -1 1 10 -1 1 1 1 -1 -1 -1 -1 -1",
            7,
            "field 4 (run time): expected a number, got \"t\\u{1b}[2J\"",
        ),
        (
            "1 0 0 10 1.5 -1 -1 1 10 -1 1 1 1 -1 -1 -1 -1 -1",
            10,
            "field 5 (allocated processors): expected an integer, got \"1.5\"",
        ),
        (
            "1 0 -5 10 1 -1 -1 1 10 -1 1 1 1 -1 -1 -1 -1 -1",
            5,
            "field 3 (wait time): -5 is negative; the only negative value allowed is -1 (unknown)",
        ),
        (
            "1 0 0 -2.5 1 -1 -1 1 10 -1 1 1 1 -1 -1 -1 -1 -1",
            7,
            "field 4 (run time): -2.5 is negative; the only negative value allowed is -1 (unknown)",
        ),
        (
            "-1 0 0 10 1 -1 -1 1 10 -1 1 1 1 -1 -1 -1 -1 -1",
            1,
            "field 1 (job number): the job number must be known, got -1",
        ),
        (
            "1 0 0 10 1 -1 -1 1 10 -1 7 1 1 -1 -1 -1 -1 -1",
            26,
            "field 11 (status): expected 0-5 or -1, got 7",
        ),
        (
            "1 0 0 10 1 -1 -1 1 10 -1 1 4294967296 1 -1 -1 -1 -1 -1",
            28,
            "field 12 (user id): 4294967296 is too large",
        ),
        (
            "1 0 0 99999999999999999999 1 -1 -1 1 10 -1 1 1 1 -1 -1 -1 -1 -1",
            7,
            "field 4 (run time): 99999999999999999999 is too large",
        ),
    ];
    for (bad, col, msg) in cases {
        // The bad line is line 4: two header comments and one good line first.
        let text =
            format!("; Version: 2.2\n;\n1 0 0 10 1 -1 -1 1 10 -1 1 1 1 -1 -1 -1 -1 -1\n{bad}\n");
        let err = read(&text, ReadOptions::default()).unwrap_err();
        assert_eq!(err.to_string(), format!("t.swf:4:{col}: {msg}"), "{bad}");
        assert_eq!((err.line(), err.col()), (Some(4), Some(*col)));
    }
}

#[test]
fn the_first_data_line_is_checked_too_and_comments_count_as_lines() {
    let err = read("; a\nx\n", ReadOptions::default()).unwrap_err();
    assert_eq!(
        err.to_string(),
        "t.swf:2:1: field 1 (job number): expected a number, got \"x\""
    );
    let text = format!("; Version: 2\n{KTH_LINE}\n; mid-file comment\n\n1 2 3\n");
    let err = read(&text, ReadOptions::default()).unwrap_err();
    assert_eq!(err.line(), Some(5));
}

#[test]
fn lenient_mode_skips_and_counts() {
    let text = format!(
        "; Version: 2\n{KTH_LINE}\nbad line\n{KTH_LINE}\n1 2 3\n\r\n{KTH_LINE}\r\n1 0 0 10 1 -1 -1 1 10 -1 9 1 1 -1 -1 -1 -1 -1\n"
    );
    let (_, recs, stats) = read(&text, ReadOptions { lenient: true }).unwrap();
    assert_eq!(recs.len(), 3);
    assert_eq!(stats.records, 3);
    assert_eq!(stats.malformed, 3);
    assert_eq!(stats.lines, 8);
    assert_eq!(stats.comments, 2);
    let lines: Vec<u64> = stats.examples.iter().filter_map(|e| e.line()).collect();
    assert_eq!(lines, vec![3, 5, 8]);
    // Strict mode stops at the first.
    assert_eq!(
        read(&text, ReadOptions::default()).unwrap_err().line(),
        Some(3)
    );
}

#[test]
fn the_iterator_stops_after_an_error() {
    let text = format!("{KTH_LINE}\nbad\n{KTH_LINE}\n");
    let r = SwfReader::new(text.as_bytes(), "t", ReadOptions::default()).unwrap();
    let items: Vec<_> = r.collect();
    assert_eq!(items.len(), 2);
    assert!(items[0].is_ok() && items[1].is_err());
}

#[test]
fn gzip_input_reads_the_same() {
    use std::io::Write;
    let text = format!("; MaxProcs: 100\n{KTH_LINE}\n");
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    enc.write_all(text.as_bytes()).unwrap();
    let gz = enc.finish().unwrap();
    let (h, recs, _) = {
        let mut r = SwfReader::new(input::from_bytes(&gz), "t.gz", ReadOptions::default()).unwrap();
        let rec = r.next_record().unwrap().unwrap();
        assert!(r.next_record().unwrap().is_none());
        let (h, s) = r.finish();
        (h, vec![rec], s)
    };
    assert_eq!(h.max_procs, Some(100));
    assert_eq!(recs[0].job, 15);
}

#[test]
fn real_trace_headers() {
    if let Some(p) = crate::sim::shared_trace("KTH-SP2-1996-2.1-cln.swf.gz") {
        let r = SwfReader::open(&p, ReadOptions::default()).unwrap();
        let h = r.header();
        assert_eq!(h.version.as_deref(), Some("2.2"));
        assert_eq!(h.computer.as_deref(), Some("IBM SP2"));
        assert_eq!(
            h.installation.as_deref(),
            Some("Swedish Royal Institute of Technology (KTH)")
        );
        assert_eq!(h.acknowledge, vec!["Lars Malinowsky"]);
        assert_eq!(
            h.information,
            vec![
                "http://www.pdc.kth.se/",
                "http://www.cs.huji.ac.il/labs/parallel/workload/"
            ]
        );
        assert_eq!((h.max_jobs, h.max_records), (Some(28490), Some(28476)));
        assert_eq!(h.preemption, Some(Preemption::No));
        assert_eq!(h.unix_start_time, Some(843_480_031));
        assert_eq!(h.time_zone, Some(3600));
        assert_eq!(h.time_zone_string.as_deref(), Some("Europe/Stockholm"));
        assert_eq!(h.end_time.as_deref(), Some("Fri Aug 29 10:55:01 CEST 1997"));
        assert_eq!((h.max_nodes, h.max_procs), (Some(100), Some(100)));
        assert_eq!(h.notes.len(), 2);
        assert_eq!(h.notes[0], "uses the EASY scheduler");
        assert!(
            h.notes[1].ends_with("job<=14 (14 jobs removed)"),
            "{:?}",
            h.notes
        );
        assert!(h.other.is_empty() && h.warnings.is_empty() && h.comments.is_empty());
    }
    if let Some(p) = crate::sim::shared_trace("HPC2N-2002-2.1-cln.swf.gz") {
        let r = SwfReader::open(&p, ReadOptions::default()).unwrap();
        let h = r.header();
        assert_eq!(h.computer.as_deref(), Some("Linux cluster (Seth)"));
        assert_eq!((h.max_jobs, h.max_records), (Some(527_371), Some(527_371)));
        assert_eq!(h.unix_start_time, Some(1_027_839_845));
        assert_eq!((h.max_nodes, h.max_procs), (Some(240), Some(240)));
        assert_eq!(h.max_queues, Some(1));
        assert_eq!(h.queue_name(1), Some("[fque:1]"));
        assert_eq!(h.max_partitions, Some(2));
        assert_eq!(h.partition_name(1), Some("DEFAULT"));
        assert_eq!(h.partition_name(2), Some("ALL"));
        assert_eq!(h.notes[0], "uses MAUI scheduler");
        assert!(h.notes[1].contains("user=2 (305178 jobs removed)"));
        assert!(h.warnings.is_empty());
    }
    if let Some(p) = crate::sim::shared_trace("lublin_256.swf.gz") {
        let r = SwfReader::open(&p, ReadOptions::default()).unwrap();
        let h = r.header();
        assert_eq!(h.version.as_deref(), Some("2"));
        assert_eq!(h.acknowledge, vec!["Uri Lublin, Hebrew University"]);
        assert_eq!((h.max_jobs, h.max_records), (Some(10_000), Some(10_000)));
        assert_eq!(h.max_nodes, Some(256));
        assert_eq!(h.max_procs, None);
        assert_eq!(h.max_runtime, Some(162_754));
        assert_eq!(h.unix_start_time, None);
    }
}

#[test]
fn real_traces_read_completely() {
    for (name, records) in [
        ("KTH-SP2-1996-2.1-cln.swf.gz", 27_992u64),
        ("lublin_256.swf.gz", 10_000),
    ] {
        if let Some(p) = crate::sim::shared_trace(name) {
            let mut r = SwfReader::open(&p, ReadOptions::default()).unwrap();
            let mut n = 0;
            while r.next_record().unwrap().is_some() {
                n += 1;
            }
            assert_eq!(n, records, "{name}");
            assert_eq!(r.stats().malformed, 0);
        }
    }
}

fn opt_i64() -> impl Strategy<Value = Option<i64>> {
    prop_oneof![Just(None), (0i64..1 << 40).prop_map(Some)]
}
fn opt_u32() -> impl Strategy<Value = Option<u32>> {
    prop_oneof![Just(None), any::<u32>().prop_map(Some)]
}
fn opt_u64() -> impl Strategy<Value = Option<u64>> {
    prop_oneof![Just(None), (0u64..1 << 40).prop_map(Some)]
}

proptest! {
    #[test]
    fn records_round_trip_through_text(
        job in 0u64..1 << 40,
        t in proptest::array::uniform6(opt_i64()),
        u in proptest::array::uniform7(opt_u32()),
        m in proptest::array::uniform3(opt_u64()),
        status in -1i64..=5,
    ) {
        let r = SwfRecord {
            job,
            submit: t[0], wait: t[1], run: t[2], avg_cpu: t[3], req_time: t[4], think_time: t[5],
            alloc_procs: u[0], req_procs: u[1], user: u[2], group: u[3], executable: u[4],
            queue: u[5], partition: u[6],
            used_mem_kb: m[0], req_mem_kb: m[1], preceding_job: m[2],
            status: SwfStatus::from_code(status),
        };
        prop_assert_eq!(SwfRecord::parse(r.to_line().as_bytes()), Ok(r));
    }
}
