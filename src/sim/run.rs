//! The simulation loop: trace jobs arrive, the engine schedules them, they
//! run for their traced runtime and leave.
//!
//! The simulator is a resource manager for the [`Service`], exactly as
//! the Slurm and PBS front ends are: it keeps a [`Snapshot`] of the nodes
//! and of the jobs in the system (queued and running), runs an iteration
//! at each iteration time, and applies the plan's starts and its holds and
//! releases. There is no scheduling code here; the `EngineState`
//! (fairshare, queue-time accrual, bypass counts, reservations) lives on in
//! the service's engine from one iteration to the next. The service is in
//! memory ([`Service::in_memory`]): a simulation writes no state files.
//!
//! # Operators
//!
//! [`simulate_with_operators`] also takes operators' commands at simulated
//! times ([`OperatorEvent`]: runjob, sethold, releasehold, setres,
//! releaseres, setspri, schedctl), applied through [`Service::apply`]
//! after that time's completions and submissions and before its
//! iteration, as an admin socket would between two iterations. They refer
//! to jobs as the last iteration saw them, as a live operator does.
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
//!   the first step at or after its end (runtimes round up to a step). With
//!   an initial queue depth ([`SimOptions::initial_queue_depth`], Maui's
//!   SIMINITIALQUEUEDEPTH) the first jobs are queued together and scheduled
//!   alone in iteration 0; iteration 1, at the same time, adds the jobs
//!   submitted by then.
//!
//! # Polls that cannot change anything
//!
//! Most poll iterations of a long trace find the machine as the last
//! iteration left it. Such a poll is skipped (and counted in
//! [`SimResult::skipped_polls`]) when it provably changes nothing:
//!
//! - nothing happened since the last iteration (no submission, completion
//!   or start), and either no job waits, or every waiting job asks for more
//!   processors than are free at all, reservations ignored: no job can
//!   start, whatever the priority order;
//! - the poll is not the last one before the next event while jobs wait,
//!   or while jobs run and fairshare tracks usage: priority reads the queue
//!   time recorded at a job's previous iteration, and the engine accrues a
//!   running job's usage up to each iteration (a finished one's, under
//!   [`Clock::Grid`], up to the last that saw it running), so that
//!   poll still runs; nor, while fairshare tracks usage, the first poll at
//!   or after a window boundary, where the window opens;
//! - and an iteration that starts nothing leaves no trace in the engine's
//!   state that a later iteration would see differently
//!   (`IdleNeutrality::Always`); with standing reservations, while
//!   the last iteration left their instances settled and until they next
//!   change (`Engine::quiet_until`): the first poll at or
//!   after an instance begins or ends, or a new one is rolled in, runs.
//!
//! Any other poll that follows an iteration that started nothing, with
//! nothing submitted or completed since, goes to
//! [`Engine::iterate_again`]: the engine ranks the waiting jobs at the poll
//! and, when the same jobs come first, answers that the iteration would
//! decide the same (counted in [`SimResult::quiet_polls`]).
//!
//! [`SimOptions::every_poll`] turns both off; the tests check that runs
//! with and without it give the same `jobs.csv` and fairshare state.
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
//! A finished job is reported to the next iteration with its end time (as
//! Completed), as an RM reports one, and then leaves the snapshot: so
//! fairshare charges it its exact use up to its end. Under
//! [`Clock::Grid`] it leaves at once, as in Maui's simulator, which
//! charges a job's usage up to the last iteration that saw it running.
//!
//! Bookkeeping is proportional to the jobs in the system, never to the
//! whole trace: the snapshot holds only queued, running and just finished
//! jobs, and a completion heap orders the running ones.

use super::workload::SimJob;
use crate::admin::auth::Caller;
use crate::admin::{Done, Failed, Mutation};
use crate::config::Config;
use crate::engine::{idle_neutrality, ActionKind, Engine, IdleNeutrality, Reason};
use crate::model::{JobState, Node, NodeTasks, Secs, Snapshot, Time};
use crate::service::Service;
use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap, HashMap};
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
    /// Seconds it spent suspended by a preemption (its processors free).
    pub suspended: Secs,
}

/// One preemption the simulated resource manager applied.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SimPreemption {
    /// The preempted job (workload index).
    pub job: usize,
    /// The preemptor (workload index).
    pub by: usize,
    /// When.
    pub at: Time,
    /// How: requeue, suspend or checkpoint.
    pub kind: ActionKind,
    /// Processor-seconds of work lost: the whole run so far for a requeue,
    /// none for a suspension or a checkpoint.
    pub lost: u64,
    /// Processor-seconds the run ended by a requeue or a checkpoint held
    /// (the job's record keeps only its last run); none for a suspension,
    /// whose run goes on.
    pub held: u64,
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
    /// Why and when each of `rejected` was taken out (same order).
    pub rejections: Vec<Rejection>,
    /// Jobs an operator cancelled (canceljob), by workload index: those
    /// that ran have a record ending at the cancel.
    pub cancelled: Vec<usize>,
    /// Every preemption the plans made, in time order.
    pub preemptions: Vec<SimPreemption>,
    /// Jobs still waiting when the simulation ended (it ends when nothing is
    /// queued, running or to come; see [`simulate`]).
    pub unfinished: Vec<usize>,
    /// Iterations run.
    pub iterations: u64,
    /// Poll iterations skipped because they could not change anything.
    pub skipped_polls: u64,
    /// Of `iterations`, polls answered by the priority order alone
    /// ([`Engine::iterate_again`]): nothing happened since an iteration
    /// that started nothing, and the same jobs still came first.
    pub quiet_polls: u64,
    /// Total wall time spent in `Engine::iterate`.
    pub iterate_time: Duration,
    /// Longest single iteration.
    pub max_iterate_time: Duration,
    /// The engine at the end (fairshare state for the summary).
    pub engine: Engine,
    /// The service's answer to each [`OperatorEvent`], in time order (the
    /// order given for events of one time).
    pub operator_replies: Vec<Result<Done, Failed>>,
    /// Iteration interval used (RMPOLLINTERVAL).
    pub poll: Secs,
}

/// A job taken out of the queue as one that can never run here.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Rejection {
    /// When (the iteration that found it).
    pub at: Time,
    /// The plan's reason, as `checkjob` words it (`NoFit ...`).
    pub reason: String,
}

/// Simulation settings beyond the configuration.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SimOptions {
    /// The clock.
    pub clock: Clock,
    /// Run every poll iteration, even those that cannot change anything.
    pub every_poll: bool,
    /// Under [`Clock::Grid`], Maui's SIMINITIALQUEUEDEPTH with
    /// SIMJOBSUBMISSIONPOLICY NORMAL (`MSimGetWorkload` in `MSim.c`): the
    /// first this many jobs are queued before the first iteration, all
    /// submitted at the latest of their submit times, and the grid starts
    /// there; iteration 0 schedules them alone, iteration 1 (at the same
    /// time) adds the jobs submitted by then. 0: no initial queue, the
    /// grid starts at the first submission.
    pub initial_queue_depth: usize,
}

/// An operator's command at a simulated time (see the module's
/// Operators section).
#[derive(Clone, Debug)]
pub struct OperatorEvent {
    /// When it is applied.
    pub at: Time,
    /// Who asks: their admin level decides what is allowed.
    pub caller: Caller,
    /// The change.
    pub mutation: Mutation,
}

/// Maui's initial queue depth for [`Clock::Grid`]: SIMINITIALQUEUEDEPTH
/// from maui.cfg, 16 when unset (`DEFAULT_MSIMINITIALQUEUEDEPTH`,
/// `include/moab.h`). SIMJOBSUBMISSIONPOLICY, when set, must be NORMAL
/// (jobs arrive at their trace times): Maui's CONSTANTJOBDEPTH and
/// CONSTANTPSDEPTH, which keep the queue at a depth whatever the trace
/// says, are not simulated.
pub fn grid_initial_queue_depth(cfg: &Config) -> Result<usize, String> {
    let value = |name: &str| cfg.plumbing.get(name).map(|v| v.join(" "));
    if let Some(p) = value("SIMJOBSUBMISSIONPOLICY") {
        if !p.eq_ignore_ascii_case("NORMAL") {
            return Err(format!(
                "{}: SIMJOBSUBMISSIONPOLICY {p}: mauictl simulate replays the trace's submit times, Maui's NORMAL policy, only",
                cfg.source
            ));
        }
    }
    match value("SIMINITIALQUEUEDEPTH") {
        None => Ok(16),
        Some(v) => v.trim().parse().map_err(|_| {
            format!(
                "{}: SIMINITIALQUEUEDEPTH: expected a number of jobs, got \"{v}\"",
                cfg.source
            )
        }),
    }
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
    /// Why each rejected job was rejected, by workload index.
    rejections: HashMap<usize, Rejection>,
    /// Jobs an operator cancelled (canceljob).
    cancelled: Vec<usize>,
    /// Processors not held by running jobs (all nodes, whatever their state).
    free_procs: u64,
    /// Processors asked by the waiting jobs, as a multiset.
    idle_procs: BTreeMap<u64, usize>,
    /// Finished jobs still in the snapshot for the next iteration.
    reported: Vec<usize>,
    /// The completion of each running job that stands (an entry of
    /// `completions` for another time is stale: the job was preempted).
    planned_end: HashMap<usize, Time>,
    /// Runtime left to a suspended or checkpointed job.
    left: HashMap<usize, Secs>,
    /// When each suspended job was suspended.
    suspended_at: HashMap<usize, Time>,
    preemptions: Vec<SimPreemption>,
}

impl Sim<'_> {
    /// Queues job `i`; `at` replaces its submit time (Maui's initial queue).
    fn submit(&mut self, i: usize, at: Option<Time>) {
        let mut job = self.jobs[i].job.clone();
        if let Some(t) = at {
            job.submit_time = t;
        }
        self.by_id.insert(job.id.clone(), i);
        self.pos.insert(i, self.snap.jobs.len());
        self.count_idle(job.procs());
        self.snap.jobs.push(job);
        self.owner.push(i);
    }

    /// One more job waits, asking for `procs` processors.
    fn count_idle(&mut self, procs: u64) {
        self.idle += 1;
        *self.idle_procs.entry(procs).or_default() += 1;
    }

    /// Takes waiting job `i` out of the queue for good (rejected or
    /// cancelled): it counts as finished.
    fn withdraw(&mut self, i: usize) {
        self.remove(i);
        self.idle -= 1;
        self.forget_idle(self.jobs[i].job.procs());
        self.finished += 1;
    }

    fn forget_idle(&mut self, procs: u64) {
        if let Some(c) = self.idle_procs.get_mut(&procs) {
            *c -= 1;
            if *c == 0 {
                self.idle_procs.remove(&procs);
            }
        }
    }

    /// No waiting job can start: none waits, or each asks for more
    /// processors than are free.
    fn nothing_fits(&self) -> bool {
        self.idle_procs
            .keys()
            .next()
            .is_none_or(|&min| min > self.free_procs)
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
        let procs = j.procs();
        self.idle -= 1;
        self.forget_idle(procs);
        self.free_procs = self.free_procs.saturating_sub(procs);
        let run = match self.left.remove(&i) {
            Some(left) => left,
            None => self.jobs[i].sim_runtime(self.default_wall).max(1),
        };
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
            suspended: 0,
        });
        end
    }

    /// Applies a hold, a release or a cancel the plan asked the RM for at
    /// `now`. A cancelled job leaves the queue, or ends now if it runs (its
    /// planned end stays in the completions and is skipped then).
    fn act(&mut self, job: &str, kind: ActionKind, by: &str, now: Time) {
        let Some(&i) = self.by_id.get(job) else {
            return;
        };
        let Some(&p) = self.pos.get(&i) else {
            return;
        };
        if kind.preempts() || kind == ActionKind::Resume {
            self.preempt(i, kind, by, now);
            return;
        }
        if kind != ActionKind::Cancel {
            kind.apply_to(&mut self.snap.jobs[p].holds);
            return;
        }
        match self.snap.jobs[p].state {
            JobState::Idle => {
                self.withdraw(i);
                self.cancelled.push(i);
            }
            s if s.is_active() => {
                self.complete(i, now, true);
                self.cancelled.push(i);
            }
            _ => {}
        }
    }

    /// Preempts running job `i` for the job `by` names (a requeue ends it
    /// and queues it again, its work lost; a checkpoint too, keeping its
    /// work; a suspension stops it on its nodes), or resumes it. Its
    /// planned completion is skipped; a resumed or restarted job gets a
    /// new one from the runtime it has left.
    fn preempt(&mut self, i: usize, kind: ActionKind, by: &str, now: Time) {
        let p = self.pos[&i];
        let procs = self.jobs[i].job.procs();
        let state = self.snap.jobs[p].state;
        if kind == ActionKind::Resume {
            if state == JobState::Suspended {
                self.snap.jobs[p].state = JobState::Running;
                self.free_procs = self.free_procs.saturating_sub(procs);
                let end = now.saturating_add(self.left.remove(&i).unwrap_or(1));
                self.planned_end.insert(i, end);
                self.completions.push(Reverse((end, i)));
                let since = self.suspended_at.remove(&i).unwrap_or(now);
                if let Some(r) = self.records[i].as_mut() {
                    r.suspended += (now - since).max(0);
                }
            }
            return;
        }
        if state != JobState::Running {
            return;
        }
        let start = self.snap.jobs[p].start_time.unwrap_or(now);
        let end = self.planned_end.remove(&i).unwrap_or(now);
        let left = (end - now).max(1);
        self.free_procs += procs;
        let ran = procs.saturating_mul((now - start).max(0) as u64);
        let lost = match kind {
            ActionKind::Suspend => {
                self.snap.jobs[p].state = JobState::Suspended;
                self.left.insert(i, left);
                self.suspended_at.insert(i, now);
                0
            }
            _ => {
                let j = &mut self.snap.jobs[p];
                j.state = JobState::Idle;
                j.start_time = None;
                j.allocation.clear();
                self.count_idle(procs);
                self.records[i] = None;
                if kind == ActionKind::Checkpoint {
                    self.left.insert(i, left);
                    0
                } else {
                    ran
                }
            }
        };
        let held = if kind == ActionKind::Suspend { 0 } else { ran };
        let by = self.by_id.get(by).copied().unwrap_or(i);
        self.preemptions.push(SimPreemption {
            job: i,
            by,
            at: now,
            kind,
            lost,
            held,
        });
    }

    /// Job `i` ended at `at`. `report`: it stays in the snapshot, finished,
    /// until after the next iteration ([`Sim::forget_finished`]), as an RM
    /// reports a finished job, so fairshare charges it up to its end.
    fn complete(&mut self, i: usize, at: Time, report: bool) {
        self.planned_end.remove(&i);
        if let Some(r) = self.records[i].as_mut() {
            r.end = at;
        }
        self.free_procs += self.jobs[i].job.procs();
        match self.pos.get(&i) {
            Some(&p) if report => {
                let j = &mut self.snap.jobs[p];
                j.state = JobState::Completed;
                j.end_time = Some(at);
                self.reported.push(i);
            }
            _ => self.remove(i),
        }
        self.finished += 1;
    }

    /// Takes the finished jobs the last iteration was told of out of the
    /// snapshot.
    fn forget_finished(&mut self) {
        for i in std::mem::take(&mut self.reported) {
            self.remove(i);
        }
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
    progress: impl FnMut(&Progress),
) -> Result<SimResult, SimError> {
    simulate_with_operators(cfg, nodes, jobs, &[], opts, progress)
}

/// [`simulate`] with operators' commands at simulated times. A
/// `schedctl -R` rereads `cfg.source`; the new configuration's
/// RMPOLLINTERVAL and SYSTEMDEFAULTJOBWALLTIME are not taken up.
pub fn simulate_with_operators(
    cfg: &Config,
    nodes: &[Node],
    jobs: &[SimJob],
    operators: &[OperatorEvent],
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
        ..Snapshot::default()
    };
    snap.normalize()
        .map_err(|e| SimError::Snapshot(e.to_string()))?;
    let poll = cfg.params.rm_poll_interval.0.max(1);
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
        rejections: HashMap::new(),
        cancelled: Vec::new(),
        free_procs: nodes.iter().map(|n| n.configured.procs as u64).sum(),
        idle_procs: BTreeMap::new(),
        reported: Vec::new(),
        planned_end: HashMap::new(),
        left: HashMap::new(),
        suspended_at: HashMap::new(),
        preemptions: Vec::new(),
    };
    let neutrality = |c: &Config| match opts.every_poll {
        true => IdleNeutrality::Never,
        false => idle_neutrality(c),
    };
    let mut neutral = neutrality(cfg);
    let mut ops: Vec<&OperatorEvent> = operators.iter().collect();
    ops.sort_by_key(|o| o.at);
    let mut next_op = 0usize;
    let mut operator_replies = Vec::with_capacity(ops.len());
    // The last iteration started a job or dropped one (or none ran yet);
    // events between iterations always lead to an iteration.
    let mut changed = true;
    let mut svc = Service::in_memory(cfg.clone(), Default::default());
    // Nothing here reads priority breakdowns: only the decisions.
    svc.set_priority_breakdowns(false);
    // Nor the reasons jobs wait, but for the rejections (NoFit).
    svc.set_wait_reasons(false);
    let mut next = 0usize; // next job to submit
    let mut last_iter: Option<Time> = None;
    let mut last_activity: Time = jobs.first().map_or(0, |j| j.job.submit_time);
    let mut iterations = 0u64;
    let mut skipped_polls = 0u64;
    let mut quiet_polls = 0u64;
    let mut iterate_time = Duration::ZERO;
    let mut max_iterate_time = Duration::ZERO;
    // Maui's initial queue (grid only): the first `depth` jobs, submitted
    // together at the latest of their times, which is where the grid starts.
    let depth = match opts.clock {
        Clock::Grid => opts.initial_queue_depth.min(jobs.len()),
        Clock::Events => 0,
    };
    let first_submit = match depth {
        0 => jobs.first().map(|j| j.job.submit_time),
        d => jobs[..d].iter().map(|j| j.job.submit_time).max(),
    };
    // Iteration 0 (the initial queue alone) is still to run; then
    // iteration 1 runs at its time.
    let mut initial_pending = depth > 0;
    let mut repeat_now = false;
    let grid_at = |t: Time| -> Time {
        // The first grid step at or after t (steps are first_submit + k·poll, k ≥ 1).
        let t0 = first_submit.unwrap_or(0);
        let k = ((t - t0).max(1) + poll - 1) / poll;
        t0 + k.max(1) * poll
    };
    // FSINTERVAL when fairshare tracks usage.
    let fs_windows = |c: &Config| {
        c.params
            .fs_policy
            .metric
            .map(|_| crate::fairshare::interval(c))
    };
    let mut fs_interval = fs_windows(cfg);
    loop {
        let next_submit = jobs.get(next).map(|j| j.job.submit_time);
        let next_completion = sim.completions.peek().map(|Reverse((t, _))| *t);
        let next_operator = ops.get(next_op).map(|o| o.at);
        let next_event = [next_submit, next_completion, next_operator]
            .into_iter()
            .flatten()
            .min();
        // Polls until the next event would start nothing and leave no
        // trace; with standing reservations, only until their instances
        // change (`neutral_until`).
        let neutral_until = match neutral {
            IdleNeutrality::Always => Some(Time::MAX),
            IdleNeutrality::WhileQuiet => svc.engine().quiet_until(),
            IdleNeutrality::Never => None,
        };
        let skip = neutral_until.is_some_and(|u| last_iter.is_none_or(|t0| u > t0 + poll))
            && !changed
            && sim.nothing_fits();
        if next_event.is_none() {
            let stalled = last_iter.is_some_and(|t| t - last_activity >= STALL_LIMIT);
            if sim.idle == 0 || skip || stalled {
                break;
            }
        }
        // Fairshare accrues a running job's usage up to the last iteration
        // that saw it running, so the last poll before an event still runs
        // while jobs run: usage then adds up as if every poll had run. So
        // it does while jobs wait: priority reads the queue time recorded
        // at the previous iteration (`QueueAccrual::effective`). And a
        // fairshare window opens at the first iteration at or after its
        // boundary (`Fairshare::accrue`), so that poll runs too.
        let catch_up = |e: Time| -> Option<Time> {
            let t0 = last_iter?;
            let boundary = fs_interval.map(|i| {
                let b = crate::fairshare::window_start(t0, i) + i;
                t0 + (b - t0 + poll - 1).div_euclid(poll) * poll
            });
            let waits = (fs_interval.is_some() && !sim.completions.is_empty()) || sim.idle > 0;
            let before = waits
                .then(|| t0 + (e - 1 - t0).div_euclid(poll) * poll)
                .filter(|&c| c > t0);
            // The first poll at or after the standing reservations' next
            // change runs.
            let standing = neutral_until
                .filter(|&u| u < e)
                .map(|u| t0 + (u - t0 + poll - 1).div_euclid(poll) * poll)
                .filter(|&s| s < e);
            [boundary.filter(|&b| b < e), before, standing]
                .into_iter()
                .flatten()
                .min()
        };
        let now = match (opts.clock, last_iter) {
            (_, None) => match opts.clock {
                Clock::Events => next_event.unwrap_or(0),
                Clock::Grid => grid_at(first_submit.unwrap_or(0)),
            },
            (Clock::Events, Some(t0)) => match next_event {
                Some(e) if skip => catch_up(e).unwrap_or(e),
                Some(e) => e.min(t0 + poll),
                None => t0 + poll,
            },
            (Clock::Grid, Some(t0)) if repeat_now => t0,
            (Clock::Grid, Some(t0)) => match next_event {
                Some(e) if skip => {
                    let e = grid_at(e).max(t0 + poll);
                    catch_up(e).unwrap_or(e)
                }
                _ => t0 + poll,
            },
        };
        if let Some(t0) = last_iter {
            skipped_polls += ((now - 1 - t0).div_euclid(poll)).max(0) as u64;
        }
        // Completions, then submissions, of this second (or grid step).
        let mut events = false;
        while let Some(&Reverse((t, i))) = sim.completions.peek() {
            if t > now {
                break;
            }
            sim.completions.pop();
            // A job cancelled while it ran has ended already; one preempted
            // has another completion, or none yet.
            if sim.pos.get(&i).map(|&p| sim.snap.jobs[p].state) != Some(JobState::Running)
                || sim.planned_end.get(&i) != Some(&t)
            {
                continue;
            }
            sim.planned_end.remove(&i);
            // Maui's simulator charges a job's usage up to the last
            // iteration that saw it running; an RM reports the end.
            let (at, report) = match opts.clock {
                Clock::Grid => (now, false),
                Clock::Events => (t, true),
            };
            sim.complete(i, at, report);
            last_activity = now;
            events = true;
        }
        repeat_now = false;
        if initial_pending {
            while next < depth {
                sim.submit(next, first_submit);
                next += 1;
            }
            initial_pending = false;
            repeat_now = true;
            last_activity = now;
            events = true;
        } else {
            while next < jobs.len() && jobs[next].job.submit_time <= now {
                sim.submit(next, None);
                next += 1;
                last_activity = now;
                events = true;
            }
        }
        if ops.get(next_op).is_some_and(|o| o.at <= now) {
            while let Some(o) = ops.get(next_op).filter(|o| o.at <= now) {
                operator_replies.push(svc.apply(&o.caller, o.mutation.clone()));
                next_op += 1;
            }
            // What the service logs goes nowhere (its replies are kept); a
            // reconfigure may change which polls are neutral.
            svc.take_notes();
            last_activity = now;
            neutral = neutrality(svc.config());
            fs_interval = fs_windows(svc.config());
            events = true;
        }
        let t = Instant::now();
        // The snapshot is the last iteration's when nothing happened since.
        let plan = if changed || events || opts.every_poll {
            // The simulated cluster's nodes never change.
            Some(svc.iterate_same_nodes(&sim.snap, now))
        } else {
            svc.iterate_again(&sim.snap, now)
        };
        let dt = t.elapsed();
        sim.forget_finished();
        iterate_time += dt;
        max_iterate_time = max_iterate_time.max(dt);
        iterations += 1;
        last_iter = Some(now);
        // A poll answered by the priority order started and rejected
        // nothing (and came after an iteration that changed nothing).
        quiet_polls += plan.is_none() as u64;
        let (starts, waiting) = plan
            .as_deref()
            .map_or((&[][..], &[][..]), |p| (&p.starts[..], &p.jobs[..]));
        changed = !starts.is_empty();
        for a in plan.as_deref().map_or(&[][..], |p| &p.actions[..]) {
            // The RM holds or releases the job: the next snapshot differs.
            sim.act(&a.job, a.kind, &a.by, now);
            changed = true;
        }
        for s in starts {
            let Some(&i) = sim.by_id.get(&s.job) else {
                continue;
            };
            let end = sim.start(i, now, &s.allocation, s.backfill);
            let end = if opts.clock == Clock::Grid {
                grid_at(end)
            } else {
                end
            };
            sim.planned_end.insert(i, end);
            sim.completions.push(Reverse((end, i)));
            last_activity = now;
        }
        for jp in waiting {
            if let Some(why @ Reason::NoFit { .. }) = &jp.reason {
                if let Some(&i) = sim.by_id.get(&jp.job) {
                    sim.withdraw(i);
                    sim.rejected.push(i);
                    let reason = why.to_string();
                    sim.rejections.insert(i, Rejection { at: now, reason });
                    changed = true;
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
    let rejections = sim
        .rejected
        .iter()
        .map(|i| sim.rejections.remove(i).unwrap_or_default())
        .collect();
    Ok(SimResult {
        records: sim.records,
        rejected: sim.rejected,
        rejections,
        cancelled: sim.cancelled,
        preemptions: sim.preemptions,
        unfinished,
        iterations,
        skipped_polls,
        quiet_polls,
        iterate_time,
        max_iterate_time,
        engine: svc.into_engine(),
        operator_replies,
        poll,
    })
}

#[cfg(test)]
#[path = "run_tests.rs"]
pub(crate) mod tests;
