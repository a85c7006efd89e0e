//! The simulation loop: trace jobs arrive, the engine schedules them, they
//! run for their traced runtime and leave.
//!
//! The simulator is a resource manager for [`Engine::iterate`], exactly as
//! the Slurm and PBS front ends are: it keeps a [`Snapshot`] of the nodes
//! and of the jobs in the system (queued and running), calls `iterate` at
//! each iteration time, and applies the plan's starts. There is no
//! scheduling code here; the [`EngineState`](crate::engine::EngineState)
//! (fairshare, queue-time accrual, bypass counts, reservations) lives on in
//! the engine from one iteration to the next.
//!
//! # Clocks
//!
//! - [`Clock::Events`] (default): an iteration at every second in which jobs
//!   are submitted or complete (events of one second are one batch), and
//!   RMPOLLINTERVAL after the last iteration when nothing happened before.
//!   Starts happen at submit and completion times.
//! - [`Clock::Grid`], Maui's own simulator: time advances in RMPOLLINTERVAL
//!   steps from the first submission, the first iteration one step after
//!   it. At each step completions are processed, then submissions, then one
//!   iteration, so starts fall on the grid and a job holds its nodes until
//!   the first step at or after its end (runtimes round up to a step).
//!
//! An iteration can change nothing while no job waits, so poll iterations
//! are skipped while the queue is empty, unless standing reservations are
//! configured (their placement depends on what runs at each iteration).
//! Skipped polls are counted in [`SimResult::skipped_polls`].
//!
//! # Jobs
//!
//! A job runs for its traced runtime cut at its walltime
//! ([`SimJob::sim_runtime`]), and at least one second (traces record jobs
//! that ran for 0 s; they still passed through a node). A job the plan
//! marks [`Reason::NoFit`] (it can never run on this cluster as configured)
//! is taken out of the queue and counted in [`SimResult::rejected`]: a real
//! RM would hold it forever, and here it would keep the simulation polling.
//!
//! Bookkeeping is proportional to the jobs in the system, never to the
//! whole trace: the snapshot holds only queued and running jobs, a
//! completion heap orders the running ones, and finished jobs leave the
//! snapshot at once.

use super::workload::SimJob;
use crate::config::Config;
use crate::engine::{Engine, Reason};
use crate::model::{JobState, Node, NodeTasks, Secs, Snapshot, Time};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};
use std::time::{Duration, Instant};

/// How simulated time advances.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Clock {
    /// Iterate at every submit/completion second and every RMPOLLINTERVAL.
    #[default]
    Events,
    /// Maui's simulator: fixed RMPOLLINTERVAL steps.
    Grid,
}

/// What happened to one job.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JobRecord {
    /// Start time.
    pub start: Time,
    /// Time its nodes were released (completion processed).
    pub end: Time,
    /// Where it ran: node index and tasks, in node order.
    pub nodes: Vec<(u32, u32)>,
    /// Started by backfill.
    pub backfill: bool,
}

/// Progress of a running simulation, for a progress bar.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Progress {
    /// Jobs submitted so far.
    pub submitted: usize,
    /// Jobs in the workload.
    pub total: usize,
    /// Jobs finished (completed or rejected).
    pub finished: usize,
    /// Simulated time.
    pub now: Time,
}

/// Everything a simulation produced.
pub struct SimResult {
    /// One record per workload job (`None`: never started).
    pub records: Vec<Option<JobRecord>>,
    /// Jobs taken out of the queue as impossible (NoFit), by workload index.
    pub rejected: Vec<usize>,
    /// Jobs still waiting when the simulation ended (it ends when nothing is
    /// queued, running or to come; see [`simulate`]).
    pub unfinished: Vec<usize>,
    /// Iterations run.
    pub iterations: u64,
    /// Poll iterations skipped because nothing was queued.
    pub skipped_polls: u64,
    /// Total wall time spent in `Engine::iterate`.
    pub iterate_time: Duration,
    /// Longest single iteration.
    pub max_iterate_time: Duration,
    /// The engine at the end (fairshare state for the summary).
    pub engine: Engine,
    /// Iteration interval used (RMPOLLINTERVAL).
    pub poll: Secs,
}

/// Simulation settings beyond the configuration.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SimOptions {
    /// The clock.
    pub clock: Clock,
}

/// A simulation that cannot run.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum SimError {
    /// No nodes.
    #[error("the cluster has no nodes")]
    NoNodes,
    /// Nodes with the same name, or a job id used twice.
    #[error("{0}")]
    Snapshot(String),
}

/// Simulated jobs that wait longer than this with nothing running and
/// nothing left to submit are given up on (a reservation or policy keeps
/// them out for good).
pub const STALL_LIMIT: Secs = 30 * 24 * 3600;

struct Sim<'a> {
    jobs: &'a [SimJob],
    default_wall: Secs,
    snap: Snapshot,
    /// Workload index of each snapshot job (parallel to `snap.jobs`).
    owner: Vec<usize>,
    /// Position in `snap.jobs` of each workload job in the system.
    pos: HashMap<usize, usize>,
    /// Job id to workload index, for jobs in the system.
    by_id: HashMap<String, usize>,
    node_index: HashMap<String, u32>,
    completions: BinaryHeap<Reverse<(Time, usize)>>,
    records: Vec<Option<JobRecord>>,
    idle: usize,
    finished: usize,
    rejected: Vec<usize>,
}

impl Sim<'_> {
    fn submit(&mut self, i: usize) {
        let job = self.jobs[i].job.clone();
        self.by_id.insert(job.id.clone(), i);
        self.pos.insert(i, self.snap.jobs.len());
        self.snap.jobs.push(job);
        self.owner.push(i);
        self.idle += 1;
    }

    /// Takes a job out of the snapshot (swap-remove, keeping `pos` right).
    fn remove(&mut self, i: usize) {
        let Some(p) = self.pos.remove(&i) else {
            return;
        };
        let job = self.snap.jobs.swap_remove(p);
        self.owner.swap_remove(p);
        if p < self.snap.jobs.len() {
            self.pos.insert(self.owner[p], p);
        }
        self.by_id.remove(&job.id);
    }

    fn start(&mut self, i: usize, now: Time, alloc: &[NodeTasks], backfill: bool) -> Time {
        let p = self.pos[&i];
        let j = &mut self.snap.jobs[p];
        j.state = JobState::Running;
        j.start_time = Some(now);
        j.allocation = alloc.to_vec();
        self.idle -= 1;
        let run = self.jobs[i].sim_runtime(self.default_wall).max(1);
        let end = now.saturating_add(run);
        let mut nodes: Vec<(u32, u32)> = alloc
            .iter()
            .filter_map(|a| self.node_index.get(&a.node).map(|&n| (n, a.tasks)))
            .collect();
        nodes.sort_unstable();
        self.records[i] = Some(JobRecord {
            start: now,
            end,
            nodes,
            backfill,
        });
        end
    }

    fn complete(&mut self, i: usize, at: Time) {
        if let Some(r) = self.records[i].as_mut() {
            r.end = at;
        }
        self.remove(i);
        self.finished += 1;
    }
}

/// Runs the simulation of `jobs` (in submission order) on `nodes` under
/// `cfg`. `progress` is called after every iteration.
///
/// The simulation ends when every job has been submitted and nothing runs
/// or waits, or when jobs are still waiting but nothing has run or been
/// submitted for [`STALL_LIMIT`] (they are reported as unfinished).
pub fn simulate(
    cfg: &Config,
    nodes: &[Node],
    jobs: &[SimJob],
    opts: &SimOptions,
    mut progress: impl FnMut(&Progress),
) -> Result<SimResult, SimError> {
    if nodes.is_empty() {
        return Err(SimError::NoNodes);
    }
    let mut snap = Snapshot {
        now: None,
        nodes: nodes.to_vec(),
        jobs: Vec::new(),
    };
    snap.normalize()
        .map_err(|e| SimError::Snapshot(e.to_string()))?;
    let poll = cfg.params.rm_poll_interval.0.max(1);
    let keep_polling = !cfg.standing.is_empty();
    let node_index = snap
        .nodes
        .iter()
        .map(|n| (n.name.clone(), n.index))
        .collect();
    let mut sim = Sim {
        jobs,
        default_wall: cfg.params.system_default_job_walltime.0,
        snap,
        owner: Vec::new(),
        pos: HashMap::new(),
        by_id: HashMap::new(),
        node_index,
        completions: BinaryHeap::new(),
        records: vec![None; jobs.len()],
        idle: 0,
        finished: 0,
        rejected: Vec::new(),
    };
    let mut engine = Engine::new(cfg.clone());
    let mut next = 0usize; // next job to submit
    let mut last_iter: Option<Time> = None;
    let mut last_activity: Time = jobs.first().map_or(0, |j| j.job.submit_time);
    let mut iterations = 0u64;
    let mut skipped_polls = 0u64;
    let mut iterate_time = Duration::ZERO;
    let mut max_iterate_time = Duration::ZERO;
    let first_submit = jobs.first().map(|j| j.job.submit_time);
    let grid_at = |t: Time| -> Time {
        // The first grid step at or after t (steps are first_submit + k·poll, k ≥ 1).
        let t0 = first_submit.unwrap_or(0);
        let k = ((t - t0).max(1) + poll - 1) / poll;
        t0 + k.max(1) * poll
    };
    loop {
        let next_submit = jobs.get(next).map(|j| j.job.submit_time);
        let next_completion = sim.completions.peek().map(|Reverse((t, _))| *t);
        let waiting = sim.idle > 0;
        if next_submit.is_none() && next_completion.is_none() {
            let stalled = last_iter.is_some_and(|t| t - last_activity >= STALL_LIMIT);
            if !waiting || stalled {
                break;
            }
        }
        let poll_due = last_iter.map(|t| t + poll);
        let now = match opts.clock {
            Clock::Events => {
                let event = [next_submit, next_completion].into_iter().flatten().min();
                let polled = if waiting || keep_polling {
                    poll_due
                } else {
                    None
                };
                match (event, polled) {
                    (Some(e), Some(p)) if p < e => p,
                    (Some(e), _) => e,
                    (None, Some(p)) => p,
                    (None, None) => break,
                }
            }
            Clock::Grid => {
                let event = [next_submit, next_completion]
                    .into_iter()
                    .flatten()
                    .min()
                    .map(grid_at);
                let step = match last_iter {
                    Some(t) => t + poll,
                    None => grid_at(first_submit.unwrap_or(0)),
                };
                if waiting || keep_polling {
                    step
                } else {
                    match event {
                        Some(e) => e.max(step),
                        None => break,
                    }
                }
            }
        };
        if let Some(p) = poll_due {
            if now > p {
                skipped_polls += ((now - p) / poll) as u64 + 1;
            }
        }
        // Completions, then submissions, of this second (or grid step).
        while let Some(&Reverse((t, i))) = sim.completions.peek() {
            if t > now {
                break;
            }
            sim.completions.pop();
            let at = if opts.clock == Clock::Grid { now } else { t };
            sim.complete(i, at);
            last_activity = now;
        }
        while next < jobs.len() && jobs[next].job.submit_time <= now {
            sim.submit(next);
            next += 1;
            last_activity = now;
        }
        let t = Instant::now();
        let plan = engine.iterate(&sim.snap, now);
        let dt = t.elapsed();
        iterate_time += dt;
        max_iterate_time = max_iterate_time.max(dt);
        iterations += 1;
        last_iter = Some(now);
        for s in &plan.starts {
            let Some(&i) = sim.by_id.get(&s.job) else {
                continue;
            };
            let end = sim.start(i, now, &s.allocation, s.backfill);
            let end = if opts.clock == Clock::Grid {
                grid_at(end)
            } else {
                end
            };
            sim.completions.push(Reverse((end, i)));
            last_activity = now;
        }
        for jp in &plan.jobs {
            if matches!(jp.reason, Some(Reason::NoFit { .. })) {
                if let Some(&i) = sim.by_id.get(&jp.job) {
                    sim.remove(i);
                    sim.idle -= 1;
                    sim.finished += 1;
                    sim.rejected.push(i);
                }
            }
        }
        progress(&Progress {
            submitted: next,
            total: jobs.len(),
            finished: sim.finished,
            now,
        });
    }
    let mut unfinished: Vec<usize> = sim
        .owner
        .iter()
        .copied()
        .filter(|&i| sim.records[i].is_none())
        .collect();
    unfinished.sort_unstable();
    sim.rejected.sort_unstable();
    Ok(SimResult {
        records: sim.records,
        rejected: sim.rejected,
        unfinished,
        iterations,
        skipped_polls,
        iterate_time,
        max_iterate_time,
        engine,
        poll,
    })
}
