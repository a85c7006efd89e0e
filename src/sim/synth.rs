//! The synthetic scenario behind `mauictl bench` and `benches/iteration.rs`:
//! a large heterogeneous cluster with a deep queue, for timing one
//! scheduling iteration.
//!
//! Everything comes from a seeded generator (splitmix64), so a seed gives
//! the same cluster, jobs and configuration on every machine.
//!
//! # The scenario (defaults: 10,000 nodes, 50,000 idle, 8,000 running)
//!
//! - **Nodes** `n00001`...: drawn per node from five types —
//!   50 % 32 procs / 128 GB `ib`; 25 % 64 procs / 256 GB `ib,fast`;
//!   15 % 16 procs / 64 GB (no features); 7 % 128 procs / 1 TB `bigmem,ib`;
//!   3 % 32 procs / 256 GB `gpu,ib` (about 44 processors per node).
//! - **Jobs**: 1 processor and 1–4 GB per task; queued sizes 35 % serial,
//!   25 % 2–16, 20 % 17–64, 15 % 65–512, 5 % 513–4096 processors; running
//!   sizes 35 % serial, 30 % 2–32, 25 % 33–96, 9 % 97–256, 1 % 257–1024
//!   (large jobs are the ones that wait); one multi-task job in
//!   ten asks for 8 or 16 tasks per node; 3 % need `gpu` (at most 64 tasks),
//!   5 % `bigmem`, 20 % `ib`; walltimes from 10 minutes to 48 hours
//!   (log-uniform); 400 users `u1`... (a few submit much more than the
//!   rest), 40 groups, classes `batch` (90 %), `debug` (5 %), `long` (5 %);
//!   idle jobs submitted over the last 7 days.
//! - **Running jobs** are placed first fit from a random node (whole tasks,
//!   processors and memory), started in the last 24 hours and ending after
//!   now; a job that finds no room is redrawn up to three times, then
//!   dropped. With the defaults the machine is about 80 % busy.
//! - **Configuration** ([`config_text`]): the default `packaging/maui.cfg`
//!   policy with RESERVATIONDEPTH 10, BACKFILLPOLICY FIRSTFIT over the whole
//!   queue (BACKFILLDEPTH 0), and three standing reservations: `debug`
//!   (256 processors, daily 08:00–20:00, class `debug`), `gpu` (every `gpu`
//!   node, groups `g1`–`g3`, permanent) and `maint` (64 nodes, weekly
//!   Tuesday 06:00–14:00, no access: a system reservation).
//! - **now** is 2023-11-14 22:13:20 UTC (1,700,000,000).
//! - **GPU mix** (`--gpus PERCENT`, [`add_gpus`]): off by default.

use crate::model::{Job, JobState, Node, NodeTasks, Resources, Snapshot, Time};

/// The iteration time of the scenario.
pub const NOW: Time = 1_700_000_000;

/// Size and seed of a synthetic scenario.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SynthSpec {
    /// Nodes.
    pub nodes: usize,
    /// Idle jobs.
    pub idle: usize,
    /// Running jobs attempted (those that find room are kept).
    pub running: usize,
    /// Generator seed.
    pub seed: u64,
    /// Percent of nodes with generic resources `gpu:4` (0: none; see
    /// [`add_gpus`]).
    pub gpus: u32,
}

impl Default for SynthSpec {
    fn default() -> Self {
        SynthSpec {
            nodes: 10_000,
            idle: 50_000,
            running: 8_000,
            seed: 1,
            gpus: 0,
        }
    }
}

/// A small deterministic generator (splitmix64).
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator from a seed.
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `[0, n)` (`n > 0`).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n.max(1)
    }

    /// Uniform in `[lo, hi]`.
    pub fn range(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.below(hi - lo + 1)
    }

    /// Uniform in `[0, 1)`.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// The scenario's maui.cfg.
pub fn config_text() -> String {
    let mut s = String::from(crate::config::DEFAULT_CONFIG);
    s.push_str(
        "\n# mauictl bench scenario\n\
         RESERVATIONDEPTH        10\n\
         BACKFILLPOLICY          FIRSTFIT\n\
         BACKFILLDEPTH           0\n\
         SRCFG[debug]  TASKCOUNT=256 RESOURCES=PROCS:1 PERIOD=DAY STARTTIME=08:00:00 ENDTIME=20:00:00 CLASSLIST=debug\n\
         SRCFG[gpu]    NODEFEATURES=gpu TASKCOUNT=1000 RESOURCES=PROCS:-1 PERIOD=INFINITY GROUPLIST=g1,g2,g3\n\
         SRCFG[maint]  HOSTLIST=n[00001-00064] PERIOD=WEEK STARTTIME=2:06:00:00 ENDTIME=2:14:00:00\n",
    );
    s
}

fn node_type(r: &mut Rng) -> (u32, u64, &'static [&'static str], f64) {
    match r.below(100) {
        0..=49 => (32, 128 * 1024, &["ib"], 1.0),
        50..=74 => (64, 256 * 1024, &["fast", "ib"], 1.5),
        75..=89 => (16, 64 * 1024, &[], 0.7),
        90..=96 => (128, 1024 * 1024, &["bigmem", "ib"], 1.2),
        _ => (32, 256 * 1024, &["gpu", "ib"], 1.0),
    }
}

/// A random job shape (not placed, not timed). Running jobs are drawn
/// smaller than queued ones: large jobs are the ones that wait.
pub(crate) fn job_shape(r: &mut Rng, id: usize, running: bool) -> Job {
    let procs: u32 = match (r.below(100), running) {
        (0..=34, _) => 1,
        (35..=64, true) => r.range(2, 32) as u32,
        (65..=89, true) => r.range(33, 96) as u32,
        (90..=98, true) => r.range(97, 256) as u32,
        (_, true) => r.range(257, 1024) as u32,
        (35..=59, false) => r.range(2, 16) as u32,
        (60..=79, false) => r.range(17, 64) as u32,
        (80..=94, false) => r.range(65, 512) as u32,
        (_, false) => r.range(513, 4096) as u32,
    };
    let mut features = Vec::new();
    let mut procs = procs;
    match r.below(100) {
        0..=2 => {
            features.push("gpu".to_string());
            procs = procs.min(64);
        }
        3..=7 => features.push("bigmem".to_string()),
        8..=27 => features.push("ib".to_string()),
        _ => {}
    }
    let tpn = (procs >= 16 && r.below(10) == 0).then(|| if r.below(2) == 0 { 8 } else { 16 });
    // Log-uniform walltime between 10 minutes and 48 hours.
    let lo = (600f64).ln();
    let hi = (48.0 * 3600.0f64).ln();
    let wall = (lo + (hi - lo) * r.unit()).exp().round() as i64;
    // A few heavy users: the square skews the draw towards low numbers.
    let u = (r.unit() * r.unit() * 400.0) as u64 + 1;
    let class = match r.below(100) {
        0..=89 => "batch",
        90..=94 => "debug",
        _ => "long",
    };
    Job {
        id: id.to_string(),
        user: format!("u{u}"),
        group: format!("g{}", u.div_ceil(10)),
        class: Some(class.into()),
        walltime: Some(wall.max(60)),
        tasks: procs,
        task: Resources::procs_mem(1, r.range(1, 4) * 1024),
        tasks_per_node: tpn,
        features: features.into(),
        ..Job::default()
    }
}

/// Free capacity per node while running jobs are laid out.
struct Room {
    free: Vec<Resources>,
}

impl Room {
    /// Places `job` first fit from node `from` (wrapping): whole tasks, at
    /// least `tasks_per_node` per node used. `None` when it does not fit.
    fn place(&mut self, nodes: &[Node], job: &Job, from: usize) -> Option<Vec<NodeTasks>> {
        let n = nodes.len();
        let min = job.tasks_per_node.unwrap_or(1).max(1);
        let mut left = job.tasks;
        let mut out: Vec<(usize, u32)> = Vec::new();
        for k in 0..n {
            let i = (from + k) % n;
            if !job.features.iter().all(|f| has_feature(&nodes[i], f)) {
                continue;
            }
            let fit = job.task.times_fits_in(&self.free[i]).min(left);
            if fit < min.min(left) {
                continue;
            }
            out.push((i, fit));
            left -= fit;
            if left == 0 {
                break;
            }
        }
        if left > 0 {
            return None;
        }
        for &(i, t) in &out {
            let used = job.task.checked_mul(t).unwrap_or(job.task);
            self.free[i] = self.free[i].saturating_sub(&used);
        }
        Some(
            out.into_iter()
                .map(|(i, t)| NodeTasks {
                    node: nodes[i].name.clone(),
                    tasks: t,
                })
                .collect(),
        )
    }
}

fn has_feature(node: &Node, f: &str) -> bool {
    node.features.iter().any(|x| x == f)
}

/// `n` nodes of the five types, named `n00001`... (at least five digits).
pub(crate) fn draw_nodes(r: &mut Rng, n: usize) -> Vec<Node> {
    let width = n.to_string().len().max(5);
    (0..n)
        .map(|i| {
            let (procs, mem, features, speed) = node_type(r);
            Node {
                name: format!("n{:0width$}", i + 1),
                index: i as u32,
                configured: Resources::procs_mem(procs, mem),
                features: features.iter().map(|f| f.to_string()).collect(),
                speed: Some(speed),
                ..Node::default()
            }
        })
        .collect()
}

/// The scenario's snapshot (nodes and jobs; `now` is [`NOW`]).
pub fn snapshot(spec: &SynthSpec) -> Snapshot {
    let mut r = Rng::new(spec.seed);
    let nodes = draw_nodes(&mut r, spec.nodes);
    let mut room = Room {
        free: nodes.iter().map(|n| n.configured).collect(),
    };
    let mut jobs: Vec<Job> = Vec::with_capacity(spec.idle + spec.running);
    let mut id = 1usize;
    for _ in 0..spec.running {
        // A few tries per running job, so the count is met until the
        // machine is nearly full.
        let mut placed = None;
        for _ in 0..4 {
            let j = job_shape(&mut r, id, true);
            let from = r.below(spec.nodes.max(1) as u64) as usize;
            if let Some(alloc) = room.place(&nodes, &j, from) {
                placed = Some((j, alloc));
                break;
            }
        }
        let Some((mut j, alloc)) = placed else {
            continue;
        };
        id += 1;
        let wall = j.walltime.unwrap_or(3600);
        let ran = r.below((wall as u64).min(24 * 3600)) as i64;
        j.state = JobState::Running;
        j.start_time = Some(NOW - ran);
        j.submit_time = NOW - ran - r.below(3600 * 12) as i64;
        j.allocation = alloc;
        jobs.push(j);
    }
    for _ in 0..spec.idle {
        let mut j = job_shape(&mut r, id, false);
        id += 1;
        j.submit_time = NOW - r.below(7 * 24 * 3600) as i64;
        jobs.push(j);
    }
    let mut s = Snapshot {
        now: Some(NOW),
        nodes,
        jobs,
        ..Snapshot::default()
    };
    if spec.gpus > 0 {
        add_gpus(&mut s, spec);
    }
    // Built to be consistent: unique names and ids, known nodes.
    s.normalize().expect("synthetic snapshot is consistent");
    s
}

/// GPUs per GPU node in the `--gpus` mix.
pub const GPUS_PER_NODE: u32 = 4;

/// The `--gpus PERCENT` mix, laid over the default scenario with a
/// generator of its own (seed `seed ^ 0x6770_7573`), so the nodes and jobs
/// drawn are those of the scenario without it:
///
/// - each node gets `gpu:4` with probability PERCENT %;
/// - each idle job asks GPUs with probability PERCENT %, at most 64 tasks
///   (as `gpu` feature jobs): half 1–4 `gpu` per node (`gres_per_node`),
///   half 1–4 per task (`gres_per_task`, its tasks-per-node requirement
///   dropped so a node's four GPUs can hold at least one task);
/// - each running job does too, where every node it runs on is a GPU node
///   with that many GPUs still free (per node), so nothing is
///   over-committed.
pub fn add_gpus(s: &mut Snapshot, spec: &SynthSpec) {
    let mut r = Rng::new(spec.seed ^ 0x6770_7573);
    let p = spec.gpus.min(100) as u64;
    let gpu = crate::model::GresList::from(vec![("gpu".to_string(), GPUS_PER_NODE)]);
    let mut free: std::collections::HashMap<String, u32> = std::collections::HashMap::new();
    for n in &mut s.nodes {
        if r.below(100) < p {
            n.gres = gpu.clone();
            free.insert(n.name.clone(), GPUS_PER_NODE);
        }
    }
    let ask = |n: u32| crate::model::GresList::from(vec![("gpu".to_string(), n)]);
    for j in &mut s.jobs {
        if r.below(100) >= p {
            continue;
        }
        let per_node = r.below(2) == 0;
        let g = r.range(1, GPUS_PER_NODE as u64) as u32;
        if j.state.is_active() {
            let fits = j.allocation.iter().all(|a| {
                let want = if per_node {
                    g
                } else {
                    g.saturating_mul(a.tasks)
                };
                free.get(&a.node).is_some_and(|&f| f >= want)
            });
            if !fits {
                continue;
            }
            for a in &j.allocation {
                let want = if per_node { g } else { g * a.tasks };
                if let Some(f) = free.get_mut(&a.node) {
                    *f -= want;
                }
            }
        } else {
            j.tasks = j.tasks.min(64);
        }
        if per_node {
            j.gres_per_node = ask(g);
        } else {
            j.tasks_per_node = None;
            j.gres_per_task = ask(g);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;

    #[test]
    fn the_scenario_is_deterministic_and_consistent() {
        let spec = SynthSpec {
            nodes: 200,
            idle: 500,
            running: 150,
            seed: 7,
            gpus: 0,
        };
        let a = snapshot(&spec);
        let b = snapshot(&spec);
        assert_eq!(a, b);
        let running = a
            .jobs
            .iter()
            .filter(|j| j.state == JobState::Running)
            .count();
        assert!(running > 50 && running <= 150, "{running}");
        assert_eq!(a.jobs.len() - running, 500);
        // No node is over-committed by the running jobs.
        let mut used = vec![Resources::ZERO; a.nodes.len()];
        for j in a.jobs.iter().filter(|j| j.state == JobState::Running) {
            for t in &j.allocation {
                let i = a.nodes.iter().position(|n| n.name == t.node).unwrap();
                used[i] = used[i].saturating_add(&j.task.checked_mul(t.tasks).unwrap());
            }
        }
        for (u, n) in used.iter().zip(&a.nodes) {
            assert!(u.fits_in(&n.configured), "{} {u:?}", n.name);
        }
        let l = Config::parse(&config_text(), "bench.cfg");
        assert!(l.is_ok(), "{:#?}", l.diagnostics);
        assert_eq!(l.config.standing.len(), 3);
    }

    #[test]
    fn the_gpu_mix_keeps_the_scenario_and_commits_no_gpu_twice() {
        let base = SynthSpec {
            nodes: 200,
            idle: 500,
            running: 150,
            seed: 7,
            gpus: 0,
        };
        let a = snapshot(&base);
        let g = snapshot(&SynthSpec { gpus: 20, ..base });
        assert_eq!(a.nodes.len(), g.nodes.len());
        assert_eq!(a.jobs.len(), g.jobs.len());
        let gpu_nodes = g.nodes.iter().filter(|n| !n.gres.is_empty()).count();
        assert!(gpu_nodes > 10 && gpu_nodes < 80, "{gpu_nodes}");
        assert!(a.nodes.iter().all(|n| n.gres.is_empty()));
        let asking = g.jobs.iter().filter(|j| j.wants_gres()).count();
        assert!(asking > 20, "{asking}");
        let mut used: std::collections::HashMap<&str, u32> = Default::default();
        for j in g.jobs.iter().filter(|j| j.state.is_active()) {
            for t in &j.allocation {
                let n = j.gres_per_node.get("gpu").unwrap_or(0)
                    + j.gres_per_task.get("gpu").unwrap_or(0) * t.tasks;
                *used.entry(t.node.as_str()).or_default() += n;
            }
        }
        for n in &g.nodes {
            let have = n.gres.get("gpu").unwrap_or(0);
            assert!(
                used.get(n.name.as_str()).copied().unwrap_or(0) <= have,
                "{}",
                n.name
            );
        }
    }
}
