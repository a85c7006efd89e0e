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

/// The SWF job lines SACCT must give (jobs 1006, 1007 have not ended);
/// queue (15) and partition (16) are both the Slurm partition.
const SACCT_SWF: [&str; 5] = [
    "    1        0     30   3600   16     -1    -1   16   7200 4194304  1   1   1  -1  1  1  -1  -1",
    "    2      300   1500  93600   64     -1    -1   64 172800 4096000  0   2   2  -1  1  1  -1  -1",
    "    3      600      5    300    1     -1    -1    1   1800 2048000  0   1   1  -1  2  2  -1  -1",
    "    4     1200     -1     -1   -1     -1    -1    8     -1 2097152  5   3   1  -1  1  1  -1  -1",
    "    5     2400     60    600    4     -1    -1    4     -1    -1  5   2   2  -1  1  1  -1  -1",
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
    assert_eq!(c.names.partitions, ["batch", "short"]);
    assert_eq!(c.ids, ["1001", "1002", "1003_1", "1004", "1005"]);
    let accounts: Vec<Option<&str>> = c.extra.iter().map(|x| x.account.as_deref()).collect();
    assert_eq!(
        accounts,
        [
            Some("proj1"),
            Some("proj2"),
            Some("proj1"),
            Some("proj1"),
            Some("proj2")
        ]
    );
    assert!(c.extra.iter().all(|x| x.qos.as_deref() == Some("normal")));
    assert_eq!(
        c.skipped
            .get("job step lines (123.batch, 123.0; sacct -X leaves them out)"),
        Some(&2)
    );
    assert_eq!(
        c.skipped.get("jobs not finished when sacct ran: PENDING"),
        Some(&1)
    );
    assert_eq!(
        c.skipped.get("jobs not finished when sacct ran: RUNNING"),
        Some(&1)
    );
    for want in [
        "; Conversion: mauictl convert sacct (mauisched ",
        "; UnixStartTime: 1709542800\n",
        "; StartTime: 2024-03-04 09:00:00\n",
        "; Queue: 2 short\n",
        "; user 3 = carol\n",
        "; group 2 = chem\n",
        "; queue 2 = short\n",
        "; partition 2 = short\n",
        "; Partition: 2 short\n",
        "; job 1 account proj1 qos normal\n",
        "; job 5 account proj2 qos normal\n",
        "are -1 (unknown)",
    ] {
        assert!(swf.contains(want), "{want:?} missing from\n{swf}");
    }
    assert!(!swf.contains("MaxNodes"), "sacct does not know the machine");
    let map = c.map_text();
    assert!(map.contains("user\t1\talice\n"));
    assert!(map.contains("queue\t2\tshort\n"));
    assert!(map.contains("partition\t2\tshort\n"));
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
    assert!(
        c.report(Target::Swf, None).contains(
            "      3  malformed line(s) skipped (--lenient), at fault: 1 State, 1 Submit, 1 field count; first: acct.txt:5:34: Submit"
        ),
        "{}",
        c.report(Target::Swf, None)
    );
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
            .get("jobs queued but not ended (no E, D or A record)"),
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
        // The names and every job's account and QOS come back as written.
        assert_eq!(workload::SwfNames::from_header(h), c.swf_names());
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
    assert_eq!(w.jobs[1].job.account.as_deref(), Some("proj2"));
    assert_eq!(w.jobs[1].job.qos.as_deref(), Some("normal"));
    assert_eq!(
        w.jobs[1].job.partition, None,
        "a partition only with --partitions"
    );
    let nodes = cluster::parse_cluster("n[1-4] procs=16 mem=64G\n", "c.txt").unwrap();
    let cfg = Config::parse(DEFAULT_CONFIG, DEFAULT_CONFIG_LABEL).config;
    let res = run::simulate(&cfg, &nodes, &w.jobs, &run::SimOptions::default(), |_| {}).unwrap();
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
    let res = run::simulate(&cfg, &nodes, &w.jobs, &run::SimOptions::default(), |_| {}).unwrap();
    assert_eq!(res.records.iter().filter(|r| r.is_some()).count(), 3);
}

// ---------------------------------------------------------------------
// Credentials kept, both outputs, the report, and scheduling with them,
// on the exports of tests/data/convert (sacct of Slurm 22.05 with local
// times, of 24.11 with SLURM_TIME_FORMAT=%s; a Torque server's files).

const SACCT_2205: &str = include_str!("../../tests/data/convert/sacct-22.05.txt");
const SACCT_2411: &str = include_str!("../../tests/data/convert/sacct-24.11-epoch.txt");
const TORQUE_0304: &str = include_str!("../../tests/data/convert/torque/20240304");
const TORQUE_0305: &str = include_str!("../../tests/data/convert/torque/20240305");

/// A 64-processor cluster: the fixtures' 64-processor jobs run one at a time.
const CLUSTER: &str = "n[1-4] procs=16 mem=256G\n";

/// Queue time alone orders the queue.
const BASE_CFG: &str =
    "RMPOLLINTERVAL 00:00:30\nQUEUETIMEWEIGHT 1\nBACKFILLPOLICY FIRSTFIT\nRESERVATIONDEPTH 1\n";

fn site(name: &str, text: &str) -> Conversion {
    convert(
        Source::Sacct,
        inputs(&[(name, text)]),
        &ConvertOptions::default(),
    )
    .unwrap()
}

fn torque_site() -> Conversion {
    convert(
        Source::TorqueAcct,
        inputs(&[("20240304", TORQUE_0304), ("20240305", TORQUE_0305)]),
        &ConvertOptions::default(),
    )
    .unwrap()
}

/// The workload `simulate` reads from the conversion written as `target`.
fn reload(c: &Conversion, target: Target, map: &MapOptions) -> workload::Workload {
    match target {
        Target::Swf => {
            workload::load_swf(c.swf().as_bytes(), "site.swf", ReadOptions::default(), map)
        }
        Target::Maui => workload::load_maui_workload(
            c.maui_trace().as_bytes(),
            "site.trace",
            ReadOptions::default(),
            map,
        ),
    }
    .unwrap()
}

fn sim(cfg_text: &str, w: &workload::Workload) -> run::SimResult {
    let cfg = Config::parse(cfg_text, "test.cfg").config;
    let nodes = cluster::parse_cluster(CLUSTER, "c.txt").unwrap();
    run::simulate(&cfg, &nodes, &w.jobs, &run::SimOptions::default(), |_| {}).unwrap()
}

/// Original job ids in the order the simulation started them.
fn start_order(
    c: &Conversion,
    target: Target,
    w: &workload::Workload,
    r: &run::SimResult,
) -> Vec<String> {
    let mut v: Vec<(i64, String)> = w
        .jobs
        .iter()
        .zip(&r.records)
        .map(|(j, rec)| {
            let id = match target {
                // SWF numbers jobs; the conversion knows their ids.
                Target::Swf => c.ids[j.job.id.parse::<usize>().unwrap() - 1].clone(),
                Target::Maui => j.job.id.clone(),
            };
            (rec.as_ref().expect("every job runs").start, id)
        })
        .collect();
    v.sort();
    v.into_iter().map(|(_, id)| id).collect()
}

/// `user group account qos class partition`, `-` for none.
fn creds_line(j: &crate::model::Job) -> String {
    let o = |x: &Option<String>| x.clone().unwrap_or_else(|| "-".into());
    format!(
        "{} {} {} {} {} {}",
        j.user,
        j.group,
        o(&j.account),
        o(&j.qos),
        o(&j.class),
        o(&j.partition)
    )
}

#[test]
fn sacct_exports_of_22_05_and_24_11_convert_alike() {
    // Local times read in UTC, or epoch seconds: the same jobs.
    let (a, b) = (site("22.05.txt", SACCT_2205), site("24.11.txt", SACCT_2411));
    assert_eq!(a.records, b.records);
    assert_eq!(a.extra, b.extra);
    assert_eq!(
        a.ids,
        ["2001", "2002", "2003", "2004", "2005", "2006_1", "2006_2"]
    );
    assert_eq!(a.skipped, b.skipped);
    assert_eq!(a.changes, b.changes);
}

#[test]
fn sacct_keeps_account_qos_class_and_partition_as_the_slurm_front_end() {
    let c = site("22.05.txt", SACCT_2205);
    for target in [Target::Swf, Target::Maui] {
        let w = reload(
            &c,
            target,
            &MapOptions {
                partitions: true,
                ..MapOptions::default()
            },
        );
        // 2005 never started: the simulator skips it.
        assert_eq!(w.jobs.len(), 6, "{target:?}");
        assert_eq!(w.skipped.values().sum::<u64>(), 1);
        let creds: Vec<String> = w.jobs.iter().map(|j| creds_line(&j.job)).collect();
        assert_eq!(
            creds,
            [
                "alice physics physics normal batch batch",
                "alice physics physics normal batch batch",
                "bob chem chem normal batch batch",
                "carol chem chem high batch batch",
                "erin bio bio normal debug debug",
                "erin bio bio normal debug debug",
            ],
            "{target:?}"
        );
    }
    // The never-started job submitted to two partitions: the first.
    assert_eq!(c.names.queues, ["batch", "debug"]);
    assert_eq!(c.records[4].queue, Some(1));
    assert_eq!(c.changes.get(&Change::PartitionList), Some(&1));
}

#[test]
fn both_outputs_give_the_simulator_the_same_jobs() {
    for c in [site("22.05.txt", SACCT_2205), torque_site()] {
        let (s, m) = (
            reload(&c, Target::Swf, &MapOptions::default()),
            reload(&c, Target::Maui, &MapOptions::default()),
        );
        assert_eq!(s.jobs.len(), m.jobs.len());
        assert_eq!(s.skipped, m.skipped);
        for (a, b) in s.jobs.iter().zip(&m.jobs) {
            let mut a = a.clone();
            // SWF numbers the jobs; the Maui trace keeps their ids.
            let n: usize = a.job.id.parse().unwrap();
            assert_eq!(c.ids[n - 1], b.job.id);
            a.job.id = b.job.id.clone();
            assert_eq!(&a, b);
        }
    }
}

#[test]
fn qos_priority_reorders_a_converted_sacct_workload() {
    // 2001 fills the machine at 09:00; 2002-2004 wait for it, each needing
    // the whole machine. Queue time alone runs them in submission order;
    // QOSCFG[high] (QOSWEIGHT) puts carol's 2004, QOS high, first.
    let qos_cfg = format!("{BASE_CFG}QOSWEIGHT 1\nQOSCFG[high] PRIORITY=100000\n");
    let c = site("22.05.txt", SACCT_2205);
    for target in [Target::Swf, Target::Maui] {
        let w = reload(&c, target, &MapOptions::default());
        let base = start_order(&c, target, &w, &sim(BASE_CFG, &w));
        let qos = start_order(&c, target, &w, &sim(&qos_cfg, &w));
        assert_eq!(
            base,
            ["2001", "2002", "2003", "2004", "2006_1", "2006_2"],
            "{target:?}"
        );
        assert_eq!(
            qos,
            ["2001", "2004", "2002", "2003", "2006_1", "2006_2"],
            "{target:?}"
        );
    }
}

#[test]
fn account_fairshare_reorders_a_converted_sacct_workload() {
    // Account physics used the whole machine from 09:00 to 10:00 (2001):
    // with account fairshare the chem jobs go before physics's 2002; then
    // each account has used half, and queue time decides (2002 before
    // 2004). ACCOUNTCFG[chem] PRIORITY with ACCOUNTWEIGHT does the same
    // through the credential component.
    let fs_cfg = format!(
        "{BASE_CFG}FSPOLICY DEDICATEDPS\nFSINTERVAL 24:00:00\nFSDEPTH 7\nFSDECAY 0.80\nFSWEIGHT 1\nFSACCOUNTWEIGHT 1000\nACCOUNTCFG[physics] FSTARGET=50\nACCOUNTCFG[chem] FSTARGET=50\n"
    );
    let acct_cfg = format!("{BASE_CFG}ACCOUNTWEIGHT 1\nACCOUNTCFG[chem] PRIORITY=100000\n");
    let c = site("24.11.txt", SACCT_2411);
    for target in [Target::Swf, Target::Maui] {
        let w = reload(&c, target, &MapOptions::default());
        let fs = sim(&fs_cfg, &w);
        assert_eq!(
            start_order(&c, target, &w, &fs),
            ["2001", "2003", "2002", "2004", "2006_1", "2006_2"],
            "{target:?}"
        );
        assert_eq!(
            start_order(&c, target, &w, &sim(&acct_cfg, &w)),
            ["2001", "2003", "2004", "2002", "2006_1", "2006_2"],
            "{target:?}"
        );
        // The summary reports fairshare per account by the site's names.
        let cfg = Config::parse(&fs_cfg, "fs.cfg").config;
        let nodes = cluster::parse_cluster(CLUSTER, "c.txt").unwrap();
        let s = crate::sim::report::summarize(
            &cfg,
            &nodes,
            &w.jobs,
            &fs,
            run::Clock::Events,
            &crate::sim::report::Labels {
                workload: "site".into(),
                cluster: "c.txt".into(),
                config: "fs.cfg".into(),
            },
        );
        let accounts: Vec<(&str, u64, Option<f64>)> = s
            .accounts
            .iter()
            .map(|a| (a.name.as_str(), a.jobs, a.fs_target))
            .collect();
        assert_eq!(
            accounts,
            [
                ("bio", 2, None),
                ("chem", 2, Some(50.0)),
                ("physics", 2, Some(50.0))
            ]
        );
        let qos: Vec<&str> = s.qos.iter().map(|q| q.name.as_str()).collect();
        assert_eq!(qos, ["high", "normal"]);
        let json = crate::sim::report::summary_json(&s);
        assert!(json.contains("\"accounts\": ["), "{json}");
        let text = crate::sim::report::render(&s, 10);
        assert!(text.contains("fairshare    account      jobs"), "{text}");
    }
}

#[test]
fn the_report_counts_every_loss() {
    let c = site("sacct-22.05.txt", SACCT_2205);
    let swf = c.report(Target::Swf, Some("site.map"));
    assert_eq!(
        swf,
        "\
convert sacct -> SWF: 7 job(s) written, from 14 line(s) in 1 file(s)
  credentials: 5 user(s), 3 group(s), 3 account(s), 2 QOS, 2 class(es) and 2 partition(s) (Slurm partitions)
  not converted:
        1  array remainder lines (123_[5-10]: tasks never started)
        3  job step lines (123.batch, 123.0; sacct -X leaves them out)
        1  jobs not finished when sacct ran: PENDING
        1  jobs not finished when sacct ran: RUNNING
  written with a field changed (jobs):
        1  Partition a list (batch,short; a job that never ran): the first is its class and partition
        4  NNodes above 1: not kept (sacct records where a job ran, not a node count it asked for); the job is its processors, placed by the simulator
  written, but mauictl simulate skips them:
        1  cancelled before starting (CANCELLED with Start Unknown)
  SWF cannot hold (jobs):
        7  accounts: no SWF field; on the header's `job N account NAME` lines (mauictl simulate reads them, other SWF readers do not)
        7  QOS: no SWF field; on the header's `job N ... qos NAME` lines (mauictl simulate reads them, other SWF readers do not)
        7  job ids: SWF numbers jobs 1..7; the original ids are in site.map
"
    );
    let maui = c.report(Target::Maui, None);
    assert!(maui.starts_with(
        "convert sacct -> Maui workload trace: 7 job(s) written, from 14 line(s) in 1 file(s)\n"
    ));
    assert!(maui.ends_with(
        "  Maui workload trace cannot hold (jobs):
        2  State FAILED, TIMEOUT, NODE_FAIL, OUT_OF_MEMORY...: Completed (the trace's states are Completed, Removed and NotRun)
"
    ), "{maui}");
    let t = torque_site().report(Target::Maui, None);
    for want in [
        "  credentials: 5 user(s), 3 group(s), 3 account(s), 2 QOS, 2 class(es) (Torque queues)\n",
        "        1  array parents (123[].srv: its tasks are jobs of their own)\n",
        "        1  jobs queued but not ended (no E, D or A record)\n",
        "        2  no account=: no account\n",
        "        3  no Resource_List.qos (nor x=QOS:NAME): no QOS\n",
        "        5  Resource_List.nodes of more than one node (2:ppn=4): processors (nodes x ppn); the node count and ppn are not kept\n",
        "        6  exec_host host names: not kept (the simulator places jobs itself)\n",
        "        2  cancelled before starting (a D or A record and no start)\n",
        "        2  Exit_status other than 0: Completed (the trace's states are Completed, Removed and NotRun)\n",
        "        6  resources_used.mem: no field for the memory a job used\n",
    ] {
        assert!(t.contains(want), "{want:?} missing from\n{t}");
    }
}

#[test]
fn torque_keeps_account_and_qos() {
    let c = torque_site();
    assert_eq!(
        c.ids,
        [
            "3001.srv",
            "3002.srv",
            "3003.srv",
            "3004.srv",
            "3005.srv",
            "3006[1].srv",
            "3006[2].srv",
            "3008.srv"
        ]
    );
    let extra: Vec<(Option<&str>, Option<&str>)> = c
        .extra
        .iter()
        .map(|x| (x.account.as_deref(), x.qos.as_deref()))
        .collect();
    assert_eq!(
        extra,
        [
            (Some("physics"), Some("normal")),
            (Some("physics"), Some("normal")),
            (Some("chem"), Some("normal")),
            (Some("chem"), Some("high")),
            // Deleted while queued: a D record names no one.
            (None, None),
            (Some("bio"), None),
            (None, None),
            // -W x=QOS:high, Maui's RM extension.
            (Some("physics"), Some("high")),
        ]
    );
    assert_eq!(c.names.queues, ["batch", "debug"]);
    assert!(c.names.partitions.is_empty(), "Torque has no partitions");
    assert_eq!((c.max_nodes, c.max_procs), (Some(4), Some(64)));
    let w = reload(&c, Target::Maui, &MapOptions::default());
    let j = &w.jobs[3].job;
    assert_eq!(
        (
            j.id.as_str(),
            j.user.as_str(),
            j.account.as_deref(),
            j.qos.as_deref(),
            j.class.as_deref()
        ),
        (
            "3004.srv",
            "carol",
            Some("chem"),
            Some("high"),
            Some("batch")
        )
    );
    // The trace's `# MaxNodes:` and `# MaxProcs:` give the cluster, as an
    // SWF header's do.
    assert_eq!(
        (w.header.max_nodes, w.header.max_procs),
        (Some(4), Some(64))
    );
    assert_eq!(cluster::synthesize(&w.header, &w.jobs).unwrap().len(), 4);
}

#[test]
fn maui_trace_names_that_do_not_fit_are_changed_and_counted() {
    // A Torque account with a blank (qsub -A "big proj"), a QOS with a
    // colon, an account Maui would read as none.
    let text = format!(
        "\
03/04/2024 10:00:00;E;7.srv;user=ann group=g account=big proj queue=batch qtime={T0} start={T0} end={e} exec_host=n1/0 Resource_List.qos=a:b Exit_status=0
03/04/2024 10:00:01;E;8.srv;user=ann group=g account=0 queue=batch qtime={T0} start={T0} end={e} exec_host=n1/0 Exit_status=0
",
        e = T0 + 60
    );
    let c = convert(
        Source::TorqueAcct,
        inputs(&[("a", &text)]),
        &ConvertOptions::default(),
    )
    .unwrap();
    let w = reload(&c, Target::Maui, &MapOptions::default());
    let got: Vec<(&str, Option<&str>, Option<&str>)> = w
        .jobs
        .iter()
        .map(|j| {
            (
                j.job.id.as_str(),
                j.job.account.as_deref(),
                j.job.qos.as_deref(),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            ("7.srv", Some("big_proj"), Some("a_b")),
            ("8.srv", Some("_0"), None)
        ]
    );
    let r = c.report(Target::Maui, None);
    for want in [
        "        1  QOS names with a blank or `#`, `:`, `[` or `]`, or read as none (NONE, 0): `_` instead\n",
        "        2  account names with a blank or `#`, or read as none (NONE, 0): `_` instead\n",
    ] {
        assert!(r.contains(want), "{want:?} missing from\n{r}");
    }
    // Slurm ids of two clusters' exports: both kept, the second renamed.
    let first = SACCT_2205.lines().take(2).collect::<Vec<_>>().join("\n");
    let c = site("two.txt", &format!("{first}\n{first}\n"));
    let w = reload(&c, Target::Maui, &MapOptions::default());
    let ids: Vec<&str> = w.jobs.iter().map(|j| j.job.id.as_str()).collect();
    assert_eq!(ids, ["2001", "2001~2"]);
    assert!(c.report(Target::Maui, None).contains(
        "        1  job ids met before: written with a ~2, ~3... suffix (the trace needs them unique)\n"
    ));
}

#[test]
fn concatenated_sacct_exports_skip_the_repeated_header() {
    // Two months' exports concatenated: the second header is not a job.
    let twice = format!("{SACCT_2205}{SACCT_2205}");
    let c = site("both.txt", &twice);
    assert_eq!(c.records.len(), 14);
    assert_eq!(c.read.malformed, 0);
}

/// `D-HH:MM:SS`, as sacct prints Elapsed and Timelimit.
fn slurm_dur(s: i64) -> String {
    format!(
        "{}-{:02}:{:02}:{:02}",
        s / 86_400,
        s / 3600 % 24,
        s / 60 % 60,
        s % 60
    )
}

/// The first `n` records of a real log as the sacct export of the site
/// that ran them (epoch times, every column of the documented command; an
/// account per user), the jobs `simulate` makes of those records, and
/// the log's header.
fn as_sacct(
    p: &std::path::Path,
    n: usize,
) -> (String, Vec<crate::sim::SimJob>, crate::sim::SwfHeader) {
    let mut r = crate::sim::SwfReader::open(p, ReadOptions::default()).unwrap();
    let origin = r.header().unix_start_time.unwrap_or(0);
    let mut text = format!("{}\n", SACCT_FIELDS.join("|"));
    let mut jobs = Vec::new();
    for _ in 0..n {
        let Some(rec) = r.next_record().unwrap() else {
            break;
        };
        if let Ok(j) = workload::map_swf(&rec, origin, &MapOptions::default()) {
            jobs.push(j);
        }
        let state = match rec.status {
            Some(SwfStatus::Completed) | None => "COMPLETED",
            Some(SwfStatus::Failed) => "FAILED",
            Some(SwfStatus::Cancelled) => "CANCELLED by 0",
            // Partial executions: the job's summary record stands for it.
            Some(_) => continue,
        };
        let num = |x: Option<u32>| x.map_or(String::new(), |v| v.to_string());
        let name = |pre: &str, x: Option<u32>| x.map_or(String::new(), |v| format!("{pre}{v}"));
        let submit = origin + rec.submit.unwrap();
        let ran = rec.run.is_some_and(|x| x > 0) && rec.alloc_procs.is_some_and(|x| x > 0);
        let started = rec.status != Some(SwfStatus::Cancelled) || ran;
        let start = started.then(|| submit + rec.wait.unwrap_or(0).max(0));
        let fields = [
            rec.job.to_string(),
            name("u", rec.user),
            name("g", rec.group),
            rec.user.map_or(String::new(), |u| format!("proj{}", u % 7)),
            name("q", rec.queue),
            "normal".into(),
            submit.to_string(),
            start.map_or("Unknown".into(), |s| s.to_string()),
            match (start, rec.run) {
                (Some(s), Some(run)) => (s + run).to_string(),
                _ => "Unknown".into(),
            },
            match (start, rec.run) {
                (Some(_), Some(run)) => slurm_dur(run),
                (None, _) => "00:00:00".into(),
                _ => String::new(),
            },
            rec.req_time
                .filter(|&t| t > 0)
                .map_or("UNLIMITED".into(), slurm_dur),
            start.map_or("0".into(), |_| num(rec.alloc_procs.filter(|&p| p > 0))),
            num(rec.req_procs.filter(|&p| p > 0)),
            rec.req_mem_kb.map_or("0".into(), |kb| format!("{kb}Kc")),
            "1".into(),
            state.into(),
        ];
        text.push_str(&fields.join("|"));
        text.push('\n');
    }
    let (header, _) = r.finish();
    (text, jobs, header)
}

#[test]
fn a_real_log_exported_by_sacct_simulates_as_the_log_itself() {
    // KTH-SP2's and HPC2N's first jobs, as their sacct exports would show
    // them, converted and simulated: the same schedule, job for job, as
    // simulating the log, with each job's account on top. (HPC2N ran
    // under Maui.)
    let cfg = Config::parse(DEFAULT_CONFIG, DEFAULT_CONFIG_LABEL).config;
    for name in ["KTH-SP2-1996-2.1-cln.swf.gz", "HPC2N-2002-2.1-cln.swf.gz"] {
        let Some(p) = crate::sim::shared_trace(name) else {
            continue;
        };
        let (text, direct, header) = as_sacct(&p, 1500);
        let c = site(name, &text);
        let nodes = cluster::synthesize(&header, &direct).unwrap();
        let opts = run::SimOptions::default();
        let want = run::simulate(&cfg, &nodes, &direct, &opts, |_| {}).unwrap();
        let w = reload(&c, Target::Maui, &MapOptions::default());
        assert_eq!(w.jobs.len(), direct.len(), "{name}");
        for (a, b) in w.jobs.iter().zip(&direct) {
            assert_eq!(
                a.job.account.as_deref().map(|x| x.starts_with("proj")),
                Some(true)
            );
            let mut a = a.clone();
            a.job.account = None;
            a.job.qos = None;
            a.job.partition = None;
            assert_eq!(&a, b, "{name}");
        }
        let got = run::simulate(&cfg, &nodes, &w.jobs, &opts, |_| {}).unwrap();
        assert_eq!(
            crate::sim::report::jobs_csv(&w.jobs, &got),
            crate::sim::report::jobs_csv(&direct, &want),
            "{name}"
        );
        // The SWF output gives the same jobs, numbered 1..N.
        let s = reload(&c, Target::Swf, &MapOptions::default());
        assert_eq!(s.jobs.len(), direct.len());
        for (a, b) in s.jobs.iter().zip(&w.jobs) {
            let mut a = a.clone();
            a.job.id = c.ids[a.job.id.parse::<usize>().unwrap() - 1].clone();
            assert_eq!(&a, b, "{name}");
        }
    }
}
