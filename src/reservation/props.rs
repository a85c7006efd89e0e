//! Invariants of reservations and the availability profile, on random
//! clusters, reservations and jobs:
//!
//! - no node is ever over-committed by jobs;
//! - resources a reservation claims are used only by jobs it admits (a job
//!   the ACL excludes never overlaps the reservation's resources);
//! - what `earliest_start` answers can be placed, and nothing earlier fits.

use super::acl::{self, JobAdmission};
use super::{place, ResKind, ResRequest, Reservation, RmOrder};
use crate::config::{AclList, Config, ResAccess, TaskSpec};
use crate::model::time::HOUR;
use crate::model::{Cluster, HostList, Job, Node, Resources, Time};
use crate::profile::{FitRequest, JobIdx, Occupant, Profile, Unreserved};
use proptest::prelude::*;

const NOW: Time = 1_000_000_000 - 1_000_000_000 % HOUR;

#[derive(Clone, Debug)]
struct ResSpec {
    start_h: i64,
    dur_h: i64,
    users: u8,
    shared: bool,
    floating: bool,
    procs: u32,
    count: u32,
    hosts: u8,
}

#[derive(Clone, Debug)]
struct JobSpec {
    user: u8,
    tasks: u32,
    procs: u32,
    wall_h: i64,
}

fn res_spec() -> impl Strategy<Value = ResSpec> {
    (
        0i64..6,
        1i64..6,
        0u8..16,
        any::<bool>(),
        any::<bool>(),
        1u32..4,
        1u32..6,
        1u8..32,
    )
        .prop_map(
            |(start_h, dur_h, users, shared, floating, procs, count, hosts)| ResSpec {
                start_h,
                dur_h,
                users,
                shared,
                floating,
                procs,
                count,
                hosts,
            },
        )
}

fn job_spec() -> impl Strategy<Value = JobSpec> {
    (0u8..4, 1u32..6, 1u32..3, 1i64..5).prop_map(|(user, tasks, procs, wall_h)| JobSpec {
        user,
        tasks,
        procs,
        wall_h,
    })
}

fn users(mask: u8) -> AclList {
    let names: Vec<String> = (0..4)
        .filter(|b| mask & (1 << b) != 0)
        .map(|b| format!("u{b}"))
        .collect();
    AclList::parse(&names.join(",")).unwrap()
}

fn job_of(i: usize, s: &JobSpec) -> Job {
    Job {
        id: format!("j{i}"),
        user: format!("u{}", s.user),
        group: "g".into(),
        tasks: s.tasks,
        task: Resources::procs(s.procs),
        walltime: Some(s.wall_h * HOUR),
        ..Job::default()
    }
}

fn reservation(i: usize, s: &ResSpec, node_count: usize) -> Reservation {
    let start = NOW + s.start_h * HOUR;
    let hosts: Vec<String> = (0..node_count)
        .filter(|n| s.hosts & (1 << n) != 0)
        .map(|n| format!("n{n}"))
        .collect();
    let request = if s.floating || hosts.is_empty() {
        ResRequest {
            resources: TaskSpec {
                procs: Some(s.procs),
                ..TaskSpec::default()
            },
            task_count: s.count,
            ..ResRequest::default()
        }
    } else {
        ResRequest {
            hostlist: Some(HostList::parse(&hosts.join(",")).unwrap()),
            ..ResRequest::default()
        }
    };
    let acl = crate::config::Acl {
        users: users(s.users),
        ..Default::default()
    };
    let mut r = Reservation::new(
        format!("r{i}"),
        ResKind::Admin,
        start,
        start + s.dur_h * HOUR,
        acl,
        request,
    );
    if s.shared {
        r.access = ResAccess::Shared;
    }
    r
}

/// Every segment boundary of every node from `now` on.
fn boundaries(p: &Profile, now: Time) -> Vec<Time> {
    let mut v = vec![now];
    for n in 0..p.node_count() as u32 {
        let mut t = now;
        while let Some(x) = p.next_change(n, t) {
            v.push(x);
            t = x;
        }
    }
    v.sort_unstable();
    v.dedup();
    v
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn claims_and_jobs_never_overcommit_or_break_acls(
        caps in prop::collection::vec(1u32..9, 1..6),
        running in prop::collection::vec((0usize..6, 1u32..5, 1i64..6, job_spec()), 0..5),
        resv in prop::collection::vec(res_spec(), 0..5),
        idle in prop::collection::vec(job_spec(), 0..8),
    ) {
        let nodes: Vec<Node> = caps
            .iter()
            .enumerate()
            .map(|(i, &c)| Node { name: format!("n{i}"), configured: Resources::procs(c), ..Node::default() })
            .collect();
        let cluster = Cluster::build(&nodes, &Config::default());
        let mut p = Profile::from_cluster(&cluster, NOW);
        let mut jobs: Vec<Job> = Vec::new();
        let mut windows: Vec<(Time, Time)> = Vec::new();

        // Running jobs first: facts the reservations are placed around.
        for (node, tasks, end_h, spec) in &running {
            let node = (*node % caps.len()) as u32;
            let j = jobs.len();
            let mut job = job_of(j, spec);
            job.tasks = *tasks;
            job.task = Resources::procs(1);
            let w = (NOW - HOUR, NOW + end_h * HOUR);
            let o = Occupant { job: j as JobIdx, start: w.0, end: w.1, task: job.task, tasks: *tasks };
            if p.add_job(node, o, &Unreserved).is_ok() {
                jobs.push(job);
                windows.push(w);
            }
        }

        let mut table: Vec<Reservation> = resv.iter().enumerate().map(|(i, s)| reservation(i, s, caps.len())).collect();
        for (i, r) in table.iter_mut().enumerate() {
            let admits = |r: &Reservation, j: JobIdx| {
                let (s, e) = windows[j as usize];
                acl::access(r, &jobs[j as usize], s, e).is_granted()
            };
            place::ensure(r, i as u32, &cluster, &mut p, &RmOrder, &admits);
        }

        // Idle jobs at their earliest start, spread over the nodes offered.
        for spec in &idle {
            let j = jobs.len();
            let job = job_of(j, spec);
            let adm = JobAdmission::new(&table, &job);
            let wall = spec.wall_h * HOUR;
            let req = FitRequest::new(spec.tasks, job.task, wall, NOW);
            let Some(fit) = p.earliest_start(&req, &adm, |_| true) else { continue };
            prop_assert!(fit.start >= NOW);
            // Nothing earlier fits.
            for t in boundaries(&p, NOW).into_iter().filter(|&t| t < fit.start) {
                let n: u32 = (0..caps.len() as u32).map(|n| p.tasks_fit(n, t, t + wall, &job.task, &adm)).sum();
                prop_assert!(n < spec.tasks, "fits at {} before {}", t - NOW, fit.start - NOW);
            }
            let mut left = spec.tasks;
            let mut placed = Vec::new();
            for &(n, c) in &fit.nodes {
                if left == 0 { break; }
                let k = c.min(left);
                let o = Occupant { job: j as JobIdx, start: fit.start, end: fit.start + wall, task: job.task, tasks: k };
                placed.push((n, o));
                left -= k;
            }
            prop_assert_eq!(left, 0);
            for (n, o) in placed {
                let r = p.add_job(n, o, &adm);
                prop_assert!(r.is_ok(), "{:?}", r);
            }
            drop(adm);
            jobs.push(job);
            windows.push((fit.start, fit.start + wall));
        }

        // Check every node at every boundary.
        for t in boundaries(&p, NOW) {
            for n in 0..caps.len() as u32 {
                let cap = p.capacity(n).procs;
                let occ = p.occupants(n, t, t + 1);
                let used: u32 = occ.iter().map(|o| o.total().procs).sum();
                prop_assert!(used <= cap, "node {} over-committed at {}: {} > {}", n, t - NOW, used, cap);
                for (r, amt) in p.claims_at(n, t) {
                    prop_assert!(amt.procs <= cap);
                    let res = &table[r as usize];
                    let outsiders: u32 = occ
                        .iter()
                        .filter(|o| {
                            let (s, e) = windows[o.job as usize];
                            !acl::access(res, &jobs[o.job as usize], s, e).is_granted()
                        })
                        .map(|o| o.total().procs)
                        .sum();
                    prop_assert!(
                        outsiders + amt.procs <= cap,
                        "node {} at {}: {} procs of jobs {} excludes beside its claim of {} (cap {})",
                        n, t - NOW, outsiders, res.id, amt.procs, cap
                    );
                }
            }
        }
    }
}
