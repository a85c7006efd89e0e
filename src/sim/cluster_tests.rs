use super::*;
use crate::model::Job;

#[test]
fn groups_expand_to_nodes_in_order() {
    let text = "\
# a small cluster
n[001-004] procs=8 mem=16G swap=2048 disk=1T features=ib,fast speed=1.5 procspeed=2400 partition=batch
big1,big2  PROCS=32 Memory=262144 features=bigmem priority=10   # two fat nodes
old01 state=down
";
    let nodes = parse_cluster(text, "c.txt").unwrap();
    let names: Vec<&str> = nodes.iter().map(|n| n.name.as_str()).collect();
    assert_eq!(
        names,
        vec!["n001", "n002", "n003", "n004", "big1", "big2", "old01"]
    );
    assert!(nodes.iter().enumerate().all(|(i, n)| n.index == i as u32));
    let n = &nodes[3];
    assert_eq!(
        n.configured,
        Resources {
            procs: 8,
            mem: 16 * 1024,
            swap: 2048,
            disk: 1024 * 1024,
            ..Resources::ZERO
        }
    );
    assert_eq!(n.features, vec!["ib", "fast"]);
    assert_eq!(n.speed, Some(1.5));
    assert_eq!(n.procspeed, Some(2400));
    assert_eq!(n.partition.as_deref(), Some("batch"));
    assert_eq!(n.state, NodeState::Idle);
    let b = &nodes[5];
    assert_eq!(b.configured, Resources::procs_mem(32, 262_144));
    assert_eq!(b.priority, Some(10));
    assert_eq!(b.partition, None);
    let o = &nodes[6];
    assert_eq!(
        (o.configured, o.state),
        (Resources::procs(1), NodeState::Down)
    );
    assert_eq!(totals(&nodes), (7, 4 * 8 + 64 + 1, 4 * 16384 + 2 * 262_144));
}

#[test]
fn errors_carry_file_line_and_column() {
    let cases: &[(&str, &str)] = &[
        ("n[1-4] procs=x", "c.txt:2:14: procs: expected a positive integer, got \"x\""),
        ("n[1-4] procs=0", "c.txt:2:14: procs: expected a positive integer, got \"0\""),
        ("n[1-4]   mem=16Q", "c.txt:2:14: mem: expected a size in MB such as 16384, 512M or 16G, got \"16Q\""),
        ("n[1-4] prcs=4", "c.txt:2:8: unknown attribute \"prcs\" (did you mean procs?); known: procs, mem, swap, disk, features, speed, procspeed, partition, state, priority, gres"),
        ("n[1-4] procs", "c.txt:2:8: expected KEY=VALUE, got \"procs\""),
        ("n[1-4] procs=2 procs=4", "c.txt:2:16: procs given twice"),
        ("n[1-4] speed=-1", "c.txt:2:14: speed: expected a positive number, got \"-1\""),
        ("n[1-4] state=busy", "c.txt:2:14: state: expected idle, down or drained, got \"busy\""),
        ("n[1-4] partition=a,b", "c.txt:2:18: partition: expected one partition name, got \"a,b\""),
        ("n[1-4] features=", "c.txt:2:17: features: expected a comma-separated list of features"),
        ("n[1-4] gres=gpu:x:y:2", "c.txt:2:13: gres: \"gpu:x:y:2\" is not name[:type]:count (more than one type)"),
        ("n[1-4] gres=gpu:2x", "c.txt:2:13: gres: \"gpu:2x\": the count \"2x\" is not a whole number"),
        ("n[1-4] gres=", "c.txt:2:13: gres: expected name[:type]:count[,...] such as gpu:4"),
        ("  ^node.*", "c.txt:2:3: \"^node.*\" is a host regular expression; a cluster file lists names or ranges such as n[001-064]"),
        ("n[4-1]", "c.txt:2:1: invalid host expression \"n[4-1]\": invalid character class range, the start must be <= the end"),
        ("a n[001-002]", "c.txt:2:3: expected KEY=VALUE, got \"n[001-002]\""),
        ("m1\nm2 procs=2\nn[3-5] procs=1", "c.txt:4:1: node n3 is already defined on line 1"),
    ];
    for (line, want) in cases {
        let text = format!("n[1-3] procs=2\n{line}\n");
        let err = parse_cluster(&text, "c.txt").unwrap_err();
        assert_eq!(&err.to_string(), want, "{line}");
    }
    let err = parse_cluster("# nothing\n\n", "empty.txt").unwrap_err();
    assert_eq!(err.to_string(), "empty.txt: defines no nodes");
}

#[test]
fn every_name_form_of_the_documentation() {
    let nodes = parse_cluster(
        "node07\nc[1-2]-[01-02]\nn[1,3,5-7] procs=2\nbig1,big2\nx[8-10]\n",
        "c",
    )
    .unwrap();
    let names: Vec<&str> = nodes.iter().map(|n| n.name.as_str()).collect();
    assert_eq!(
        names,
        vec![
            "node07", "c1-01", "c1-02", "c2-01", "c2-02", "n1", "n3", "n5", "n6", "n7", "big1",
            "big2", "x8", "x9", "x10"
        ]
    );
}

#[test]
fn sizes_take_unit_suffixes() {
    assert_eq!(size_mb("512"), Ok(512));
    assert_eq!(size_mb("512M"), Ok(512));
    assert_eq!(size_mb("512mb"), Ok(512));
    assert_eq!(size_mb("16G"), Ok(16_384));
    assert_eq!(size_mb("2TB"), Ok(2 * 1024 * 1024));
    for bad in ["", "G", "1.5G", "512B", "-1", "99999999999999999999T"] {
        assert!(size_mb(bad).is_err(), "{bad}");
    }
}

#[test]
fn resource_traces_are_recognised() {
    let text = "# from Maui\nCOMPUTENODE AVAILABLE 0 node01 PBS1 0 2048 0 4 -1 -1 1 [NONE] [NONE] [fast] [batch:4] [NONE] 1.0 [NONE] [NONE] [NONE]\n";
    let nodes = parse_any(text, "r").unwrap();
    assert_eq!(nodes.len(), 1);
    assert_eq!(nodes[0].configured, Resources::procs_mem(4, 2048));
    assert_eq!(nodes[0].features, vec!["fast"]);
    let nodes = parse_any("x[1-2] procs=3\n", "c").unwrap();
    assert_eq!(nodes.len(), 2);
}

fn header(nodes: Option<u64>, procs: Option<u64>, mem_kb: Option<u64>) -> SwfHeader {
    SwfHeader {
        max_nodes: nodes,
        max_procs: procs,
        max_memory: mem_kb,
        ..SwfHeader::default()
    }
}

#[test]
fn clusters_are_synthesised_from_the_header() {
    // KTH SP2: 100 nodes, 100 processors.
    let nodes = synthesize(&header(Some(100), Some(100), None), &[]).unwrap();
    assert_eq!(totals(&nodes), (100, 100, 0));
    assert_eq!(
        (nodes[0].name.as_str(), nodes[99].name.as_str()),
        ("n001", "n100")
    );
    // SMP nodes: 128 processors on 32 nodes, 256 MB (262144 KB) per processor.
    let nodes = synthesize(&header(Some(32), Some(128), Some(262_144)), &[]).unwrap();
    assert_eq!(totals(&nodes), (32, 128, 128 * 256));
    assert_eq!(nodes[0].configured, Resources::procs_mem(4, 1024));
    // Uneven: 10 processors on 4 nodes: 3, 3, 2, 2.
    let nodes = synthesize(&header(Some(4), Some(10), None), &[]).unwrap();
    let p: Vec<u32> = nodes.iter().map(|n| n.configured.procs).collect();
    assert_eq!(p, vec![3, 3, 2, 2]);
    // Only MaxNodes (the Lublin model: 256) or only MaxProcs: one processor per node.
    assert_eq!(
        totals(&synthesize(&header(Some(256), None, None), &[]).unwrap()),
        (256, 256, 0)
    );
    assert_eq!(
        totals(&synthesize(&header(None, Some(8), None), &[]).unwrap()),
        (8, 8, 0)
    );
    // Fewer processors than nodes: one node per processor.
    assert_eq!(
        totals(&synthesize(&header(Some(8), Some(4), None), &[]).unwrap()),
        (4, 4, 0)
    );
    assert!(synthesize(&header(None, None, Some(1)), &[]).is_none());
    // Memory is raised to the largest per-processor request, so every job fits.
    let job = SimJob {
        job: Job {
            tasks: 2,
            task: Resources::procs_mem(2, 3000),
            ..Job::default()
        },
        runtime: 1,
        trace_wait: None,
    };
    let nodes = synthesize(&header(Some(2), Some(4), Some(1024)), &[job]).unwrap();
    assert_eq!(nodes[0].configured, Resources::procs_mem(2, 3000));
    let spec = synth_spec(&header(Some(1000), Some(1000), None), &[]).unwrap();
    assert!(spec.contains("\nn[0001-1000] procs=1\n"), "{spec}");
}

#[test]
fn generic_resources_by_name_type_and_count() {
    let text = "\
g[1-2] procs=32 gres=gpu:4
a1     procs=32 GRES=gpu:a100:4
t1     procs=8  gres=gpu:2,tape:1
c1     procs=16
";
    let nodes = parse_cluster(text, "c.txt").unwrap();
    assert_eq!(nodes[0].gres.to_string(), "gpu:4");
    assert_eq!(nodes[1].gres, nodes[0].gres);
    assert_eq!(nodes[2].gres.get("gpu:a100"), Some(4));
    assert_eq!(nodes[3].gres.to_string(), "gpu:2,tape:1");
    assert!(nodes[4].gres.is_empty());
}
