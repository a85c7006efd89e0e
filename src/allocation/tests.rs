//! Placement shapes and the request reader. The guide's worked examples and
//! the per-policy tests are in `guide_tests.rs`.

use super::*;
use crate::config::Config;
use crate::model::{Node, Resources};

fn cluster(procs: &[u32], cfg: &Config) -> Cluster {
    let nodes: Vec<Node> = procs
        .iter()
        .enumerate()
        .map(|(i, p)| Node {
            name: format!("n{i:02}"),
            configured: Resources::procs(*p),
            ..Node::default()
        })
        .collect();
    Cluster::build(&nodes, cfg)
}

fn free_candidates(c: &Cluster, per_proc_task: bool) -> Vec<Candidate> {
    c.nodes
        .iter()
        .map(|n| {
            let t = if per_proc_task { n.configured.procs } else { 1 };
            Candidate::new(n.index, t, n.configured)
        })
        .collect()
}

fn job(tasks: u32) -> Job {
    Job {
        id: "j".into(),
        user: "u".into(),
        tasks,
        ..Job::default()
    }
}

fn first(req: &TaskRequest, c: &Cluster, cands: &[Candidate]) -> Option<Vec<(NodeIdx, u32)>> {
    allocate(
        req,
        cands,
        c,
        NodeAllocationPolicy::FirstAvailable,
        true,
        None,
    )
    .map(|a| a.nodes)
}

#[test]
fn ppn_is_a_block_unless_exactnode() {
    // nodes=2:ppn=2 on 4-processor nodes: Maui by default packs all four
    // tasks on one node (blocks of X tasks per node).
    let cfg = Config::default();
    let c = cluster(&[4, 4, 4], &cfg);
    let cands = free_candidates(&c, true);
    let mut j = job(4);
    j.nodes = Some(2);
    j.tasks_per_node = Some(2);
    let req = TaskRequest::from_job(&j, &c, &cfg);
    assert_eq!(first(&req, &c, &cands), Some(vec![(0, 4)]));

    // EXACTNODE: two nodes with exactly two tasks each.
    let cfg = Config::parse("JOBNODEMATCHPOLICY EXACTNODE\n", "t").config;
    let req = TaskRequest::from_job(&j, &c, &cfg);
    assert!(req.exact_tpn && req.node_count == Some(2));
    assert_eq!(first(&req, &c, &cands), Some(vec![(0, 2), (1, 2)]));
}

#[test]
fn ppn_blocks_never_leave_a_short_node() {
    // 6 tasks in blocks of 3, node caps 4 and 4: 3 + 3, never 4 + 2.
    let cfg = Config::default();
    let c = cluster(&[4, 4], &cfg);
    let cands = free_candidates(&c, true);
    let mut j = job(6);
    j.tasks_per_node = Some(3);
    let req = TaskRequest::from_job(&j, &c, &cfg);
    assert_eq!(first(&req, &c, &cands), Some(vec![(0, 3), (1, 3)]));
}

#[test]
fn ppn_blocks_as_maui_distributes_them() {
    // 12 tasks, ppn=4, nodes with 6 and 8 free (MJobAllocMNL rounds each
    // node down to whole blocks, MJobDistributeTasks gives the last node
    // what is left): 4 + 8, not 6 + 6.
    let cfg = Config::default();
    let c = cluster(&[6, 8], &cfg);
    let cands = free_candidates(&c, true);
    let mut j = job(12);
    j.tasks_per_node = Some(4);
    let req = TaskRequest::from_job(&j, &c, &cfg);
    assert_eq!(first(&req, &c, &cands), Some(vec![(0, 4), (1, 8)]));
    // 10 tasks: 4 on the first node, what is left (6) on the second.
    j.tasks = 10;
    let req = TaskRequest::from_job(&j, &c, &cfg);
    assert_eq!(first(&req, &c, &cands), Some(vec![(0, 4), (1, 6)]));
}

#[test]
fn minresource_memory_tiers_are_mauis() {
    use super::order::memory_tier;
    for (mem, tier) in [
        (0, 64),
        (64, 64),
        (65, 128),
        (2000, 2048),
        (2048, 2048),
        (4096, 4096),
        (4097, 8192),
        (8192, 8192),
        (16384, 8192),
        (1 << 20, 8192),
    ] {
        assert_eq!(memory_tier(mem), tier, "{mem} MB");
    }
}

#[test]
fn exact_tpn_with_a_remainder() {
    // Slurm-like -n 5 --ntasks-per-node=2 read exactly: 2 + 2 + 1.
    let cfg = Config::parse("JOBNODEMATCHPOLICY EXACTNODE\n", "t").config;
    let c = cluster(&[8, 8, 8, 8], &cfg);
    let cands = free_candidates(&c, true);
    let mut j = job(5);
    j.tasks_per_node = Some(2);
    let req = TaskRequest::from_job(&j, &c, &cfg);
    assert_eq!(first(&req, &c, &cands), Some(vec![(0, 2), (1, 2), (2, 1)]));
}

#[test]
fn exact_node_count_looks_ahead() {
    // 3 nodes for 10 tasks; caps in order 1, 1, 4, 4, 4. Taking the first
    // three (6 tasks) cannot work; the placement keeps order where it can.
    let cfg = Config::parse("JOBNODEMATCHPOLICY EXACTNODE\n", "t").config;
    let c = cluster(&[1, 1, 4, 4, 4], &cfg);
    let cands = free_candidates(&c, true);
    let mut j = job(10);
    j.nodes = Some(3);
    let req = TaskRequest::from_job(&j, &c, &cfg);
    let got = first(&req, &c, &cands).unwrap();
    assert_eq!(got.len(), 3);
    assert_eq!(got.iter().map(|x| x.1).sum::<u32>(), 10);
    assert_eq!(got, vec![(2, 4), (3, 4), (4, 2)]);
    // 13 tasks cannot fit on any 3 of them.
    j.tasks = 13;
    let req = TaskRequest::from_job(&j, &c, &cfg);
    assert_eq!(first(&req, &c, &cands), None);
}

#[test]
fn exactproc_needs_matching_nodes() {
    let cfg = Config::parse("JOBNODEMATCHPOLICY EXACTPROC\n", "t").config;
    let c = cluster(&[8, 4, 4], &cfg);
    let cands = free_candidates(&c, true);
    let mut j = job(8);
    j.tasks_per_node = Some(4);
    let req = TaskRequest::from_job(&j, &c, &cfg);
    assert_eq!(
        req.check_node(&c.nodes[0]),
        Err(Mismatch::ExactProc { have: 8, want: 4 })
    );
    assert_eq!(first(&req, &c, &cands), Some(vec![(1, 4), (2, 4)]));
}

#[test]
fn single_node_jobs_when_multinode_is_off() {
    let cfg = Config::parse("ENABLEMULTINODEJOBS FALSE\n", "t").config;
    let c = cluster(&[2, 2, 4], &cfg);
    let cands = free_candidates(&c, true);
    let req = TaskRequest::from_job(&job(4), &c, &cfg);
    assert_eq!(first(&req, &c, &cands), Some(vec![(2, 4)]));
    let req = TaskRequest::from_job(&job(5), &c, &cfg);
    assert_eq!(first(&req, &c, &cands), None);
}

#[test]
fn host_and_exclude_lists_resolve_names_and_ranges() {
    let cfg = Config::default();
    let c = cluster(&[1, 1, 1, 1, 1], &cfg);
    let mut j = job(1);
    j.hostlist = thin_vec::thin_vec!["n0[1-3]".into(), "nosuch".into()];
    j.exclude_hosts = thin_vec::thin_vec!["n02".into()];
    let req = TaskRequest::from_job(&j, &c, &cfg);
    assert_eq!(req.hosts, Some(vec![1, 2, 3]));
    assert_eq!(req.excluded, vec![2]);
    assert_eq!(req.check_node(&c.nodes[0]), Err(Mismatch::HostList));
    assert_eq!(req.check_node(&c.nodes[2]), Err(Mismatch::Excluded));
    let cands = free_candidates(&c, true);
    assert_eq!(first(&req, &c, &cands), Some(vec![(1, 1)]));
}

#[test]
fn dedicated_qos_keeps_the_job_alone() {
    let cfg = Config::parse("QOSCFG[excl] QFLAGS=DEDICATED\n", "t").config;
    let c = cluster(&[8, 8], &cfg);
    let mut cands = free_candidates(&c, true);
    cands[0].occupants.push(Occupant {
        job: "other".into(),
        user: "x".into(),
        access: None,
    });
    let mut j = job(2);
    j.qos = Some("excl".into());
    let req = TaskRequest::from_job(&j, &c, &cfg);
    assert_eq!(req.access, Some(NodeAccessPolicy::SingleJob));
    assert_eq!(first(&req, &c, &cands), Some(vec![(1, 2)]));
}

#[test]
fn zero_tasks_and_empty_candidates() {
    let cfg = Config::default();
    let c = cluster(&[4], &cfg);
    let req = TaskRequest::from_job(&job(1), &c, &cfg);
    assert_eq!(first(&req, &c, &[]), None);
    let mut z = req.clone();
    z.tasks = 0;
    assert_eq!(first(&z, &c, &free_candidates(&c, true)), None);
    // A candidate for a node the cluster does not have is ignored.
    assert_eq!(
        first(&req, &c, &[Candidate::new(7, 4, Resources::procs(4))]),
        None
    );
}
