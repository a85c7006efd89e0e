use super::*;
use crate::config::{Config, DEFAULT_CONFIG, DEFAULT_CONFIG_LABEL};
use crate::model::time::Zone;
use crate::sim::{cluster, run, workload, MapOptions, SkipReason};

/// 2024-03-04 09:00:00 UTC.
const T0: i64 = 1_709_542_800;

/// `sacct -a -X -P -S ... -E ... -o <SACCT_FIELDS>` as Slurm 22.05 prints
/// it (with its header line), plus step lines as without `-X`.
const SACCT: &str = "\
JobID|User|Group|Account|Partition|QOS|Submit|Start|End|Elapsed|Timelimit|AllocCPUS|ReqCPUS|ReqMem|NNodes|State
1001|alice|physics|proj1|batch|normal|2024-03-04T09:00:00|2024-03-04T09:00:30|2024-03-04T10:00:30|01:00:00|02:00:00|16|16|64G|1|COMPLETED
1001.batch|||proj1|||2024-03-04T09:00:30|2024-03-04T09:00:30|2024-03-04T10:00:30|01:00:00||16|16||1|COMPLETED
1001.extern|||proj1|||2024-03-04T09:00:30|2024-03-04T09:00:30|2024-03-04T10:00:30|01:00:00||16|16||1|COMPLETED
1002|bob|chem|proj2|batch|normal|2024-03-04T09:05:00|2024-03-04T09:30:00|2024-03-05T11:30:00|1-02:00:00|2-00:00:00|64|64|4000Mc|4|TIMEOUT
1003_1|alice|physics|proj1|short|normal|2024-03-04T09:10:00|2024-03-04T09:10:05|2024-03-04T09:15:05|05:00|30:00|1|1|2000Mn|1|FAILED
1004|carol|physics|proj1|batch|normal|2024-03-04T09:20:00|Unknown|2024-03-04T09:25:00|00:00:00|UNLIMITED|0|8|16G|1|CANCELLED by 1234
1005|bob|chem|proj2|batch|normal|2024-03-04T09:40:00|2024-03-04T09:41:00|2024-03-04T09:51:00|00:10:00|Partition_Limit|4|4|0|1|CANCELLED by 0
1006|alice|physics|proj1|batch|normal|2024-03-04T11:00:00|Unknown|Unknown|00:00:00|01:00:00|0|2|1G|1|PENDING
1007|dave|bio|proj3|batch|normal|2024-03-04T10:00:00|2024-03-04T10:00:00|Unknown|00:30:00|01:00:00|8|8|8G|1|RUNNING
";

/// The SWF job lines SACCT must give (jobs 1006, 1007 have not ended).
const SACCT_SWF: [&str; 5] = [
    "    1        0     30   3600   16     -1    -1   16   7200 4194304  1   1   1  -1  1 -1  -1  -1",
    "    2      300   1500  93600   64     -1    -1   64 172800 4096000  0   2   2  -1  1 -1  -1  -1",
    "    3      600      5    300    1     -1    -1    1   1800 2048000  0   1   1  -1  2 -1  -1  -1",
    "    4     1200     -1     -1   -1     -1    -1    8     -1 2097152  5   3   1  -1  1 -1  -1  -1",
    "    5     2400     60    600    4     -1    -1    4     -1    -1  5   2   2  -1  1 -1  -1  -1",
];

/// Torque accounting records of a site at UTC+1 (line times are local).
/// 101 ran; 102 was deleted while queued; 103 was deleted while running;
/// 104 is still queued; 105[1] (an array task) failed.
fn torque_day() -> String {
    format!(
        "\
03/04/2024 10:00:00;Q;101.srv;queue=batch
03/04/2024 10:00:05;S;101.srv;user=alice group=physics queue=batch ctime={t0} qtime={t0} etime={t0} start={s1} exec_host=n1/0+n1/1+n2/0-1
03/04/2024 10:10:00;Q;102.srv;queue=short
03/04/2024 10:20:00;D;102.srv;requestor=bob@login1
03/04/2024 10:30:00;Q;103.srv;queue=batch
03/04/2024 10:45:00;D;103.srv;requestor=bob@login1
03/04/2024 10:45:01;E;103.srv;user=bob group=chem account=p2 jobname=sim queue=batch ctime={q3} qtime={q3} etime={q3} start={s3} owner=bob@login1 exec_host=n3/0-3 Resource_List.nodes=1:ppn=4 Resource_List.walltime=01:00:00 session=77 end={e3} Exit_status=271 resources_used.cput=00:40:00 resources_used.mem=1024kb resources_used.vmem=2048kb resources_used.walltime=00:14:01
03/04/2024 11:00:05;E;101.srv;user=alice group=physics account=p1 jobname=my first job queue=batch ctime={t0} qtime={t0} etime={t0} start={s1} owner=alice@login1 exec_host=n1/0+n1/1+n2/0-1 Resource_List.nodes=2:ppn=2 Resource_List.walltime=02:00:00 Resource_List.mem=8gb session=42 end={e1} Exit_status=0 resources_used.cput=03:00:00 resources_used.mem=4194304kb resources_used.vmem=5000000kb resources_used.walltime=01:00:00
03/04/2024 11:00:30;Q;104.srv;queue=batch
",
        t0 = T0,
        s1 = T0 + 5,
        e1 = T0 + 3605,
        q3 = T0 + 1800,
        s3 = T0 + 1860,
        e3 = T0 + 2701,
    )
}

/// The next day's file: the array task.
fn torque_day2() -> String {
    format!(
        "03/04/2024 11:51:10;E;105[1].srv;user=carol group=physics queue=short ctime={q} qtime={q} etime={q} start={s} exec_host=n2/2 Resource_List.nodes=1 Resource_List.walltime=00:10:00 Resource_List.pmem=1gb end={e} Exit_status=1\n",
        q = T0 + 3000,
        s = T0 + 3010,
        e = T0 + 3070,
    )
}

const TORQUE_SWF: [&str; 4] = [
    "    1        0      5   3600    4   2700 1048576    4   7200 2097152  1   1   1  -1  1 -1  -1  -1",
    "    2      600     -1     -1   -1     -1    -1   -1     -1    -1  5  -1  -1  -1  2 -1  -1  -1",
    "    3     1800     60    841    4    600   256    4   3600    -1  5   2   2  -1  1 -1  -1  -1",
    "    4     3000     10     60    1     -1    -1    1    600 1048576  0   3   1  -1  2 -1  -1  -1",
];

fn inputs<'a>(files: &[(&str, &'a str)]) -> Vec<(String, Box<dyn BufRead + 'a>)> {
    files
        .iter()
        .map(|(n, t)| (n.to_string(), Box::new(t.as_bytes()) as Box<dyn BufRead>))
        .collect()
}

fn data_lines(swf: &str) -> Vec<&str> {
    swf.lines().filter(|l| !l.starts_with(';')).collect()
}

fn sacct_conv() -> Conversion {
    convert(
        Source::Sacct,
        inputs(&[("sacct.txt", SACCT)]),
        &ConvertOptions::default(),
    )
    .unwrap()
}

#[test]
fn sacct_records_names_and_skips() {
    let c = sacct_conv();
    let swf = c.swf();
    assert_eq!(data_lines(&swf), SACCT_SWF);
    assert_eq!(c.origin, T0);
    assert_eq!(c.names.users, ["alice", "bob", "carol"]);
    assert_eq!(c.names.groups, ["physics", "chem"]);
    assert_eq!(c.names.queues, ["batch", "short"]);
    assert_eq!(c.ids, ["1001", "1002", "1003_1", "1004", "1005"]);
    assert_eq!(c.skipped.get("job step line(s)"), Some(&2));
    assert_eq!(
        c.skipped.get("job(s) not finished (pending, running...)"),
        Some(&2)
    );
    for want in [
        "; Conversion: mauictl convert sacct (mauisched ",
        "; UnixStartTime: 1709542800\n",
        "; StartTime: 2024-03-04 09:00:00\n",
        "; Queue: 2 short\n",
        "; user 3 = carol\n",
        "; group 2 = chem\n",
        "; queue 2 = short\n",
        "are -1 (unknown)",
    ] {
        assert!(swf.contains(want), "{want:?} missing from\n{swf}");
    }
    assert!(!swf.contains("MaxNodes"), "sacct does not know the machine");
    let map = c.map_text();
    assert!(map.contains("user\t1\talice\n"));
    assert!(map.contains("queue\t2\tshort\n"));
    assert!(map.contains("job\t3\t1003_1\n"));
}

#[test]
fn sacct_without_header_uses_the_documented_order() {
    let body: String = SACCT.lines().skip(1).map(|l| format!("{l}\n")).collect();
    let c = convert(
        Source::Sacct,
        inputs(&[("s.txt", &body)]),
        &ConvertOptions::default(),
    )
    .unwrap();
    assert_eq!(data_lines(&c.swf()), SACCT_SWF);
}

#[test]
fn sacct_header_may_reorder_and_drop_columns_and_take_epochs() {
    // -p (trailing |), epoch times (SLURM_TIME_FORMAT=%s), no End/ReqMem.
    let text = format!(
        "State|JobID|Submit|Start|Elapsed|AllocCPUS|User|\nCOMPLETED|7|{}|{}|2:00|2|erin|\n",
        T0,
        T0 + 60
    );
    let c = convert(
        Source::Sacct,
        inputs(&[("s.txt", &text)]),
        &ConvertOptions::default(),
    )
    .unwrap();
    assert_eq!(
        data_lines(&c.swf()),
        ["    1        0     60    120    2     -1    -1   -1     -1    -1  1   1  -1  -1 -1 -1  -1  -1"]
    );
}

#[test]
fn clock_times_are_read_in_the_sites_zone() {
    // The same sacct output from a site in Stockholm (CET, UTC+1 in
    // March; by POSIX rule): every time is an hour earlier in UTC, the
    // header's dates stay the site's and name its zone.
    let zone = Zone::named("CET-1CEST,M3.5.0,M10.5.0/3").unwrap();
    let c = convert(
        Source::Sacct,
        inputs(&[("sacct.txt", SACCT)]),
        &ConvertOptions {
            zone: zone.clone(),
            ..ConvertOptions::default()
        },
    )
    .unwrap();
    assert_eq!(c.origin, T0 - 3600);
    assert_eq!(data_lines(&c.swf()), SACCT_SWF, "relative times unchanged");
    let swf = c.swf();
    for want in [
        "; UnixStartTime: 1709539200\n",
        "; TimeZoneString: CET-1CEST,M3.5.0,M10.5.0/3\n",
        "; StartTime: 2024-03-04 09:00:00\n",
    ] {
        assert!(swf.contains(want), "{want:?} missing from\n{swf}");
    }
    // Summer time from 31 March 2024: two hours ahead of UTC.
    assert_eq!(
        slurm_time("2024-04-02T09:00:00", &zone),
        Ok(Some(T0 + 29 * 86_400 - 2 * 3600))
    );
    assert_eq!(torque_stamp("03/04/2024 09:00:00", &zone), Some(T0 - 3600));
}

#[test]
fn sacct_time_and_memory_forms() {
    assert_eq!(slurm_duration("1-02:03:04"), Ok(Some(93_784)));
    assert_eq!(slurm_duration("02:03:04"), Ok(Some(7_384)));
    assert_eq!(slurm_duration("03:04"), Ok(Some(184)));
    assert_eq!(slurm_duration("03:04.512"), Ok(Some(184)));
    assert_eq!(slurm_duration("2-12"), Ok(Some(2 * 86_400 + 12 * 3600)));
    assert_eq!(slurm_duration("UNLIMITED"), Ok(None));
    assert_eq!(slurm_duration("Partition_Limit"), Ok(None));
    assert!(slurm_duration("1:2:3:4").is_err());
    assert_eq!(
        slurm_time("2024-03-04T09:00:00", &Zone::utc()),
        Ok(Some(T0))
    );
    assert_eq!(slurm_time("1709542800", &Zone::utc()), Ok(Some(T0)));
    assert_eq!(slurm_time("Unknown", &Zone::utc()), Ok(None));
    assert_eq!(slurm_time("None", &Zone::utc()), Ok(None));
    assert!(slurm_time("2024-02-30T09:00:00", &Zone::utc()).is_err());
    assert_eq!(slurm_mem("4000M"), Ok(Some((4000, MemPer::Job))));
    assert_eq!(slurm_mem("4G"), Ok(Some((4096, MemPer::Job))));
    assert_eq!(slurm_mem("4000Mn"), Ok(Some((4000, MemPer::Node))));
    assert_eq!(slurm_mem("2Gc"), Ok(Some((2048, MemPer::Cpu))));
    assert_eq!(slurm_mem("0"), Ok(None));
    assert!(slurm_mem("lots").is_err());
}

#[test]
fn sacct_malformed_lines_name_file_line_and_column() {
    let mut lines: Vec<String> = SACCT.lines().map(str::to_string).collect();
    lines[4] = lines[4].replace("2024-03-04T09:05:00", "yesterday");
    lines[5] = "1003_1|alice|physics".into();
    lines[8] = lines[8].replace("PENDING", "WAITING");
    let text = lines.join("\n");
    let err = convert(
        Source::Sacct,
        inputs(&[("acct.txt", &text)]),
        &ConvertOptions::default(),
    )
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        "acct.txt:5:34: Submit (yesterday): expected YYYY-MM-DDTHH:MM:SS or epoch seconds, got \"yesterday\""
    );
    let c = convert(
        Source::Sacct,
        inputs(&[("acct.txt", &text)]),
        &ConvertOptions {
            lenient: true,
            ..ConvertOptions::default()
        },
    )
    .unwrap();
    assert_eq!(c.read.malformed, 3);
    assert_eq!(
        c.read.examples[1].to_string(),
        "acct.txt:6:1: expected 16 |-separated fields, found 3"
    );
    assert!(c.read.examples[2].to_string().starts_with("acct.txt:9:"));
    assert!(c.read.examples[2]
        .to_string()
        .ends_with("unknown job state \"WAITING\""));
    assert_eq!(c.records.len(), 3);
    assert!(c
        .summary()
        .contains("skipped 3 malformed line(s) (--lenient)"));
}

#[test]
fn sacct_header_must_name_the_needed_columns() {
    let err = convert(
        Source::Sacct,
        inputs(&[("h.txt", "JobID|User|Start|State\n")]),
        &ConvertOptions::default(),
    )
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        "h.txt:1:1: the header line has no Submit column (see docs/testing-a-config.md)"
    );
}

fn torque_conv(opts: &ConvertOptions) -> Conversion {
    let (d1, d2) = (torque_day(), torque_day2());
    convert(
        Source::TorqueAcct,
        inputs(&[("20240304", &d1), ("20240305", &d2)]),
        opts,
    )
    .unwrap()
}

#[test]
fn torque_records_deleted_jobs_and_machine_size() {
    let c = torque_conv(&ConvertOptions::default());
    let swf = c.swf();
    assert_eq!(data_lines(&swf), TORQUE_SWF);
    assert_eq!(c.ids, ["101.srv", "102.srv", "103.srv", "105[1].srv"]);
    assert_eq!(c.names.users, ["alice", "bob", "carol"]);
    assert_eq!(c.names.queues, ["batch", "short"]);
    // n1 slots 0-1, n2 0-2, n3 0-3.
    assert_eq!((c.max_nodes, c.max_procs), (Some(3), Some(9)));
    assert!(swf.contains("; MaxNodes: 3\n; MaxProcs: 9\n"));
    assert_eq!(
        c.skipped
            .get("job(s) queued but not ended (no E, D or A record)"),
        Some(&1)
    );
    let given = torque_conv(&ConvertOptions {
        max_nodes: Some(4),
        max_procs: Some(16),
        ..ConvertOptions::default()
    });
    assert_eq!((given.max_nodes, given.max_procs), (Some(4), Some(16)));
}

#[test]
fn torque_field_forms() {
    let mut hosts = BTreeMap::new();
    assert_eq!(exec_host("a/0+a/1+b/0-3,6", &mut hosts), Some(7));
    assert_eq!(hosts.get("a"), Some(&2));
    assert_eq!(hosts.get("b"), Some(&7));
    assert_eq!(exec_host("a/x", &mut hosts), None);
    assert_eq!(torque_nodes("2:ppn=8"), Some(16));
    assert_eq!(torque_nodes("n1:ppn=2+n2"), Some(3));
    assert_eq!(torque_nodes("3:ppn=4:gpus=1"), Some(12));
    assert_eq!(torque_duration("36:00:00"), Some(129_600));
    assert_eq!(torque_duration("1:00:00:00"), Some(86_400));
    assert_eq!(torque_duration("600"), Some(600));
    assert_eq!(torque_size_kb("4gb"), Some(4 << 20));
    assert_eq!(torque_size_kb("1500b"), Some(2));
    assert_eq!(torque_size_kb("lots"), None);
    assert_eq!(torque_stamp("03/04/2024 09:00:00", &Zone::utc()), Some(T0));
    assert_eq!(torque_stamp("13/04/2024 09:00:00", &Zone::utc()), None);
}

#[test]
fn torque_malformed_lines() {
    let text = format!(
        "{}garbage without separators\n03/04/2024 12:00:00;E;106.srv;user=x queue=batch start=1 end=2\n03/04/2024 12:00:01;E;107.srv;user=x qtime={T0} exec_host=n1/zero\n",
        torque_day()
    );
    let err = convert(
        Source::TorqueAcct,
        inputs(&[("20240304", &text)]),
        &ConvertOptions::default(),
    )
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        "20240304:10:1: expected MM/DD/YYYY HH:MM:SS;TYPE;JOBID;ATTRIBUTES"
    );
    let c = convert(
        Source::TorqueAcct,
        inputs(&[("20240304", &text)]),
        &ConvertOptions {
            lenient: true,
            ..ConvertOptions::default()
        },
    )
    .unwrap();
    let msgs: Vec<String> = c.read.examples.iter().map(|e| e.to_string()).collect();
    assert_eq!(
        msgs,
        [
            "20240304:10:1: expected MM/DD/YYYY HH:MM:SS;TYPE;JOBID;ATTRIBUTES",
            "20240304:11:31: E record without qtime or ctime",
            "20240304:12:31: exec_host: expected host/N+host/N..., got \"n1/zero\"",
        ]
    );
    assert_eq!(c.records.len(), 3);
}

#[test]
fn the_output_reads_back_as_the_same_records() {
    for c in [sacct_conv(), torque_conv(&ConvertOptions::default())] {
        let swf = c.swf();
        let mut r =
            crate::sim::SwfReader::new(swf.as_bytes(), "out.swf", ReadOptions::default()).unwrap();
        let mut back = Vec::new();
        while let Some(rec) = r.next_record().unwrap() {
            back.push(rec);
        }
        assert_eq!(back, c.records);
        let h = r.header();
        assert!(h.warnings.is_empty(), "{:?}", h.warnings);
        assert_eq!(h.unix_start_time, Some(c.origin));
        assert_eq!(h.max_jobs, Some(c.records.len() as u64));
        assert_eq!(h.queue_name(1), Some("batch"));
        assert_eq!(h.max_nodes, c.max_nodes);
    }
}

#[test]
fn converted_sacct_simulates_on_a_small_cluster() {
    let swf = sacct_conv().swf();
    let w = workload::load_swf(
        swf.as_bytes(),
        "sacct.swf",
        ReadOptions::default(),
        &MapOptions::default(),
    )
    .unwrap();
    // 1004 was cancelled before it started: nothing to simulate.
    assert_eq!(w.skipped.get(&SkipReason::CancelledBeforeStart), Some(&1));
    let ids: Vec<&str> = w.jobs.iter().map(|j| j.job.id.as_str()).collect();
    assert_eq!(ids, ["1", "2", "3", "5"]);
    assert_eq!(w.jobs[0].job.submit_time, T0);
    // The header's names are the credentials: USERCFG[alice] applies.
    assert_eq!(w.jobs[0].job.user, "alice");
    assert_eq!(w.jobs[1].job.group, "chem");
    assert_eq!(w.jobs[2].job.class.as_deref(), Some("short"));
    let nodes = cluster::parse_cluster("n[1-4] procs=16 mem=64G\n", "c.txt").unwrap();
    let cfg = Config::parse(DEFAULT_CONFIG, DEFAULT_CONFIG_LABEL).config;
    let res = run::simulate(
        &cfg,
        &nodes,
        &w.jobs,
        &run::SimOptions {
            clock: run::Clock::Events,
            every_poll: false,
            initial_queue_depth: 0,
        },
        |_| {},
    )
    .unwrap();
    assert!(res.rejected.is_empty() && res.unfinished.is_empty());
    let runs: Vec<i64> = res
        .records
        .iter()
        .map(|r| r.as_ref().map(|r| r.end - r.start).unwrap())
        .collect();
    // Elapsed of 1001, 1002, 1003_1, 1005: each ran as long as it did.
    assert_eq!(runs, [3600, 93_600, 300, 600]);
    // 1001 starts at once; 1002 needs the whole machine and waits for it.
    let r = |i: usize| res.records[i].as_ref().unwrap();
    assert_eq!(r(0).start, T0);
    assert_eq!(r(1).start, r(0).end.max(T0 + 300));
}

#[test]
fn converted_torque_simulates_on_the_synthesised_cluster() {
    let swf = torque_conv(&ConvertOptions::default()).swf();
    let w = workload::load_swf(
        swf.as_bytes(),
        "torque.swf",
        ReadOptions::default(),
        &MapOptions::default(),
    )
    .unwrap();
    let nodes = cluster::synthesize(&w.header, &w.jobs).unwrap();
    // MaxNodes 3, MaxProcs 9: 3 nodes of 3 processors.
    assert_eq!(nodes.len(), 3);
    let cfg = Config::parse(DEFAULT_CONFIG, DEFAULT_CONFIG_LABEL).config;
    let res = run::simulate(
        &cfg,
        &nodes,
        &w.jobs,
        &run::SimOptions {
            clock: run::Clock::Events,
            every_poll: false,
            initial_queue_depth: 0,
        },
        |_| {},
    )
    .unwrap();
    assert_eq!(res.records.iter().filter(|r| r.is_some()).count(), 3);
}
