//! The scheduling iteration: `Engine::iterate(snapshot, now) -> Plan`.
//!
//! One pure function over (configuration, remembered state, snapshot, now),
//! in Maui's order (DESIGN.md):
//!
//! 1. reconcile: fairshare accrues the running jobs' usage since the last
//!    iteration (windows roll at FSINTERVAL boundaries), state of jobs that
//!    left is forgotten, admin reservations expire, standing reservations
//!    roll and are repaired;
//! 2. eligibility: holds, RM dependencies, begin times, system job limits
//!    and jobs that can never fit, idle-job (queue) limits, fairshare caps;
//! 3. priority of every idle job, with effective queue time accrued by
//!    JOBPRIOACCRUALPOLICY;
//! 4. the availability profile (built in step 1's view);
//! 5. priority pass: jobs start in priority order while they fit; blocked
//!    jobs get a reservation at their earliest start, up to RESERVATIONDEPTH
//!    per reservation stack;
//! 6. backfill around those reservations (BACKFILLPOLICY), soft throttling
//!    limits first, then hard;
//! 7. the plan: starts with nodes and tasks per node, every idle job's
//!    priority and reason, the reservations.
//!
//! Operators act through the state: a job an operator forced (`runjob`,
//! [`ForcedStart`]) is presented to the passes as running on the nodes
//! chosen and heads the plan's starts; while scheduling is stopped
//! (`schedctl -s`, [`StopInfo`]) the starts the passes choose are withdrawn
//! (reason [`Reason::Stopped`]); holds and releases (`pending_actions`) go
//! out with the plan for the front end to apply through the RM.
//!
//! No clock, no I/O: the caller persists [`EngineState`] (the checkpoint)
//! and the fairshare files.

mod accel;
mod avail;
pub mod build;
pub(crate) mod gres;
#[cfg(test)]
mod gres_tests;
mod names;
mod operator;
mod passes;
pub mod plan;
#[cfg(test)]
mod preempt_tests;
mod quiet;
#[cfg(test)]
mod reference;
pub mod state;
#[cfg(test)]
mod tests;

pub use plan::{
    Action, ActionKind, JobPlan, Plan, PlanReservation, PolicyBlock, Reason, Start, Stats,
};
pub use quiet::{idle_neutrality, IdleNeutrality};
pub use state::{EngineState, ForcedStart, StopInfo};

use crate::allocation::LocalAllocator;
use crate::config::Config;
use crate::model::{Cluster, Job, JobState, Snapshot, Time};
use crate::priority::PriorityBreakdown;
use crate::profile::Profile;
use std::sync::Arc;

/// What the last iteration saw and decided, for the renderers
/// (showq, showbf, showstart, checkjob).
pub struct LastIteration {
    /// Jobs in canonical order (idle, running, suspended).
    pub jobs: Vec<Job>,
    /// The world after the plan: starts and job reservations placed.
    pub view: build::View,
    /// The profile before the priority pass (running jobs and
    /// admin/standing reservations only).
    pub base: Profile,
    /// The plan (the one `iterate` returned, shared).
    pub plan: Arc<Plan>,
    /// Scheduling was stopped by an operator during this iteration
    /// (`schedctl -s`): the plan carries only `runjob` starts.
    pub stopped: Option<StopInfo>,
    /// Jobs started by an operator's `runjob` in this plan.
    pub forced: Vec<String>,
    /// Set when a poll over the same jobs may be answered without the
    /// passes ([`Engine::iterate_again`]).
    quiet: Option<quiet::Quiet>,
    /// What the priorities were computed from, when the engine keeps
    /// breakdowns ([`Engine::priority_breakdowns`]).
    priority_inputs: Option<Box<PriorityInputs>>,
    /// The site's time zone, for the times the commands print.
    pub zone: crate::model::time::Zone,
    /// The pseudo-job whose admission bounds the backfill windows
    /// ([`backfill_window_job`]), for `showbf`.
    pub window_job: Job,
    /// The jobs this scheduler preempted, as remembered after this
    /// iteration (`checkjob`).
    pub preempted: std::collections::BTreeMap<String, state::Preemption>,
    /// What became of the plan's starts, as the front end reported them
    /// once it had applied the plan ([`LastIteration::record_start`]):
    /// until the next snapshot says, the views show a started job
    /// running, a refused one waiting.
    outcomes: std::sync::Mutex<std::collections::BTreeMap<String, StartOutcome>>,
}

/// What became of one of a plan's starts, as the resource manager
/// answered the front end.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StartOutcome {
    /// The resource manager started the job where the plan said.
    Started,
    /// The resource manager refused, in its words.
    Refused(String),
}

/// What an iteration's priorities depend on besides the jobs, the time
/// and the cluster: the configuration and the fairshare usage as they
/// were (a reconfiguration or the next iteration's accrual changes the
/// engine's own).
struct PriorityInputs {
    cfg: Config,
    fairshare: crate::fairshare::Fairshare,
}

impl LastIteration {
    /// Notes what became of the plan's start of job `id`; false when the
    /// plan does not start it.
    pub fn record_start(&self, id: &str, outcome: StartOutcome) -> bool {
        if !self.plan.starts.iter().any(|s| s.job == id) {
            return false;
        }
        self.outcomes
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(id.to_string(), outcome);
        true
    }

    /// What the front end reported of the plan's start of job `id`, if
    /// anything.
    pub fn start_outcome(&self, id: &str) -> Option<StartOutcome> {
        let outcomes = self.outcomes.lock().unwrap_or_else(|e| e.into_inner());
        outcomes.get(id).cloned()
    }

    /// The plan's starts, less those the resource manager refused.
    pub fn starts(&self) -> impl Iterator<Item = &plan::Start> {
        let refused: Vec<String> = {
            let outcomes = self.outcomes.lock().unwrap_or_else(|e| e.into_inner());
            outcomes
                .iter()
                .filter(|(_, o)| matches!(o, StartOutcome::Refused(_)))
                .map(|(id, _)| id.clone())
                .collect()
        };
        self.plan
            .starts
            .iter()
            .filter(move |s| !refused.contains(&s.job))
    }

    /// True when the front end reported that the resource manager started
    /// the plan's start of job `id`.
    pub fn started(&self, id: &str) -> bool {
        self.start_outcome(id) == Some(StartOutcome::Started)
    }

    /// The whole priority breakdown of idle job `id` (`checkjob`), as this
    /// iteration computed its priority; `None` for a job the plan does
    /// not list as idle, or when the engine keeps no breakdowns.
    pub fn priority_breakdown(&self, id: &str) -> Option<PriorityBreakdown> {
        let jp = self.plan.job(id)?;
        let job = self
            .jobs
            .iter()
            .find(|j| j.id == id && j.state == JobState::Idle)?;
        self.breakdown_of(job, jp)
    }

    /// The whole priority breakdown of every idle job whose plan `keep`
    /// accepts, in the plan's (priority) order (`diagnose -p`); empty when
    /// the engine keeps no breakdowns.
    pub fn priority_breakdowns(&self, keep: impl Fn(&JobPlan) -> bool) -> Vec<PriorityBreakdown> {
        if self.priority_inputs.is_none() {
            return Vec::new();
        }
        let idle: rustc_hash::FxHashMap<&str, &Job> = self
            .jobs
            .iter()
            .filter(|j| j.state == JobState::Idle)
            .map(|j| (j.id.as_str(), j))
            .collect();
        self.plan
            .jobs
            .iter()
            .filter(|jp| keep(jp))
            .filter_map(|jp| self.breakdown_of(idle.get(jp.job.as_str())?, jp))
            .collect()
    }

    fn breakdown_of(&self, job: &Job, jp: &JobPlan) -> Option<PriorityBreakdown> {
        let inputs = self.priority_inputs.as_deref()?;
        let ctx = crate::priority::PriorityContext {
            now: self.plan.now,
            cfg: &inputs.cfg,
            total: self.view.cluster.total,
            fairshare: &inputs.fairshare,
        };
        Some(crate::priority::job_priority(&ctx, job, jp.eff_queue_time))
    }
}

/// A scheduling engine: configuration plus memory.
pub struct Engine {
    /// The configuration in force.
    pub(crate) cfg: Config,
    /// What is remembered between iterations (checkpointed).
    pub(crate) state: EngineState,
    /// Site allocator for NODEALLOCATIONPOLICY LOCAL.
    pub(crate) local: Option<Box<dyn LocalAllocator + Send>>,
    /// The last iteration, for the renderers. Shared (`Arc`) so that a
    /// reader (the admin socket) can keep rendering one iteration while the
    /// next one runs.
    pub(crate) last: Option<Arc<LastIteration>>,
    /// The cluster of the last iteration and what it was built from.
    cluster_cache: Option<ClusterCache>,
    /// The profile of running jobs and other shortcuts, carried between
    /// iterations.
    carried: accel::Carried,
    /// The last iteration can give every idle job's priority breakdown
    /// ([`LastIteration::priority_breakdowns`]: `diagnose -p`, `checkjob`):
    /// it keeps a copy of the configuration and fairshare usage the
    /// priorities were computed from. On by default; a caller that reads
    /// only the decisions (the simulator) turns it off: the priorities,
    /// and so the decisions, are the same.
    pub(crate) priority_breakdowns: bool,
    /// Each waiting job's reason in the plan is worked out in full (for
    /// `checkjob`, `showq` and the RM's views: the resources it lacks, the
    /// reservation in its way). On by default; a caller that reads only
    /// the decisions and the rejections (the simulator) turns it off, and
    /// its waiting jobs get the cheap reason that jobs past the detail
    /// budget get, or `NoFit` where their ADVRES names nothing usable. The
    /// decisions are the same.
    pub(crate) wait_reasons: bool,
}

/// A cluster (NODECFG applied to the RM's nodes) with its inputs: reused
/// while the snapshot's nodes and the node configuration are unchanged
/// (the usual case between two polls; always in the simulator).
struct ClusterCache {
    nodes: Vec<crate::model::Node>,
    node_cfg: std::collections::BTreeMap<String, crate::config::NodeCfg>,
    params: (
        crate::config::NodeAccessPolicy,
        crate::config::NodeLoadPolicy,
        f64,
    ),
    cluster: Arc<Cluster>,
}

/// What `Cluster::build` reads from the parameters.
fn cluster_params(
    cfg: &Config,
) -> (
    crate::config::NodeAccessPolicy,
    crate::config::NodeLoadPolicy,
    f64,
) {
    let p = &cfg.params;
    (p.node_access_policy, p.node_load_policy, p.node_max_load)
}

fn id_key(s: &str) -> (u8, u64, &str) {
    let digits = s.bytes().take_while(u8::is_ascii_digit).count();
    match s[..digits].parse::<u64>() {
        Ok(n) if digits > 0 => (0, n, &s[digits..]),
        _ => (1, 0, s),
    }
}

/// Compares job ids naturally: numeric ids by value, then text.
pub fn job_id_cmp(a: &str, b: &str) -> std::cmp::Ordering {
    // The merge walks between iterations mostly meet the same id on both
    // sides: equal text is equal order, without parsing either.
    if a == b {
        return std::cmp::Ordering::Equal;
    }
    id_key(a).cmp(&id_key(b)).then_with(|| a.cmp(b))
}

/// True for a finished job (Completed or Removed after it ran) that ended
/// after `since` (the last iteration): its use up to its end is still to
/// be charged.
fn ended_since(j: &Job, since: Option<Time>) -> bool {
    matches!(j.state, JobState::Completed | JobState::Removed)
        && j.start_time.is_some()
        && j.end_time.zip(since).is_some_and(|(end, s)| end > s)
}

/// The snapshot's jobs that [`ended_since`] the last iteration, cloned in
/// the order of [`job_id_cmp`], their generic resources resolved as where
/// they ran (what fairshare charges).
fn finished_jobs(all: &[Job], since: Option<Time>, cluster: &Cluster) -> Vec<Job> {
    let mut v: Vec<Job> = all
        .iter()
        .filter(|j| ended_since(j, since))
        .cloned()
        .collect();
    v.sort_by(|a, b| job_id_cmp(&a.id, &b.id));
    for j in &mut v {
        gres::resolve(j, cluster);
    }
    v
}

/// A credential's `FLAGS=ADVRES:<resid>` (USERCFG, GROUPCFG, ACCOUNTCFG,
/// CLASSCFG, QOSCFG: the section's own FLAGS, else its kind's DEFAULT)
/// confines the idle jobs of that credential to the reservation, as a job's
/// own ADVRES does. The job's own wins, then user, group, account, class
/// and QOS, in that order. Nothing is looked up when no credential has one.
fn credential_advres(cfg: &Config, jobs: &mut [Job]) {
    use crate::config::sections::advres_flag;
    use crate::model::CredKind;
    let any = cfg
        .creds
        .values()
        .flat_map(|m| m.values())
        .any(|c| c.flags.as_ref().and_then(advres_flag).is_some());
    if !any {
        return;
    }
    const ORDER: [CredKind; 5] = [
        CredKind::User,
        CredKind::Group,
        CredKind::Account,
        CredKind::Class,
        CredKind::Qos,
    ];
    for j in jobs
        .iter_mut()
        .filter(|j| j.advres.is_none() && j.state == JobState::Idle)
    {
        let found = ORDER.iter().find_map(|&kind| {
            let name = crate::priority::cred_name(j, kind)?;
            let flags = cfg
                .cred(kind, name)
                .and_then(|c| c.flags.as_ref())
                .or_else(|| cfg.cred_default(kind).and_then(|c| c.flags.as_ref()))?;
            advres_flag(flags)
        });
        if let Some(id) = found {
            j.advres = Some(id.to_string());
        }
    }
}

/// The jobs the passes see: idle, running and suspended.
pub(crate) fn seen_by_passes(j: &Job) -> bool {
    matches!(
        j.state,
        JobState::Idle | JobState::Running | JobState::Suspended
    )
}

/// The snapshot's jobs the passes see ([`seen_by_passes`]), cloned
/// in the order of [`job_id_cmp`]. Indices are sorted, each id parsed once,
/// so the (large) jobs are moved once instead of at every comparison.
#[cfg(test)]
fn jobs_by_id(all: &[Job]) -> Vec<Job> {
    jobs_by_id_into(all, Vec::new())
}

/// [`jobs_by_id`] copied into `reuse` (the jobs of an earlier iteration),
/// whose strings and vectors are reused: most jobs are the same from one
/// iteration to the next, and a running job's allocation names a string
/// per node.
fn jobs_by_id_into(all: &[Job], mut reuse: Vec<Job>) -> Vec<Job> {
    let mut keyed: Vec<((u8, u64), usize)> = all
        .iter()
        .enumerate()
        .filter(|(_, j)| seen_by_passes(j))
        .map(|(i, j)| {
            let k = id_key(&j.id);
            ((k.0, k.1), i)
        })
        .collect();
    // Stable, as sorting the jobs themselves was: equal ids keep the
    // snapshot's order.
    keyed.sort_by(|a, b| {
        a.0.cmp(&b.0)
            .then_with(|| job_id_cmp(&all[a.1].id, &all[b.1].id))
    });
    reuse.truncate(keyed.len());
    for (job, &(_, i)) in reuse.iter_mut().zip(&keyed) {
        job.clone_from(&all[i]);
    }
    let kept = reuse.len();
    reuse.extend(keyed[kept..].iter().map(|&(_, i)| all[i].clone()));
    reuse
}

impl Engine {
    /// An engine with no history.
    pub fn new(cfg: Config) -> Engine {
        Engine {
            cfg,
            state: EngineState::default(),
            local: None,
            last: None,
            cluster_cache: None,
            carried: accel::Carried::default(),
            priority_breakdowns: true,
            wait_reasons: true,
        }
    }

    /// The configuration in force.
    pub fn config(&self) -> &Config {
        &self.cfg
    }

    /// What the last iteration saw and decided, once one has run.
    pub fn last(&self) -> Option<&Arc<LastIteration>> {
        self.last.as_ref()
    }

    /// An engine resuming from remembered state.
    pub fn with_state(cfg: Config, state: EngineState) -> Engine {
        Engine {
            cfg,
            state,
            local: None,
            last: None,
            cluster_cache: None,
            carried: accel::Carried::default(),
            priority_breakdowns: true,
            wait_reasons: true,
        }
    }

    /// Runs one scheduling iteration at `now` over the RM's snapshot.
    ///
    /// The snapshot's order does not matter: jobs are taken in a canonical
    /// order (by id) and ties are broken by stable keys, so the same inputs
    /// give the same plan byte for byte. Nodes keep the RM's order, which is
    /// meaningful (FIRSTAVAILABLE, CONTIGUOUS).
    ///
    /// The plan is shared with [`Engine::last`] (for the renderers), hence
    /// the `Arc`: a plan of a large queue is not copied.
    pub fn iterate(&mut self, snap: &Snapshot, now: Time) -> Arc<Plan> {
        self.iterate_with(snap, now, false)
    }

    /// [`Engine::iterate`] for a caller that promises the snapshot's nodes
    /// are those of its previous call, unchanged (the simulator, whose
    /// cluster never changes): they are not compared with the nodes the
    /// engine's cluster was built from, a walk over every node's
    /// description in each iteration. Debug builds check the promise.
    pub fn iterate_same_nodes(&mut self, snap: &Snapshot, now: Time) -> Arc<Plan> {
        self.iterate_with(snap, now, true)
    }

    fn iterate_with(&mut self, snap: &Snapshot, now: Time, same_nodes: bool) -> Arc<Plan> {
        // The last iteration is let go of: its profiles share their lines
        // with the carried running-job profile, which is then brought up to
        // date in place, and its jobs lend their buffers to this one's
        // (unless a reader still holds it).
        let reuse = self
            .last
            .take()
            .and_then(|l| Arc::try_unwrap(l).ok())
            .map(|l| l.jobs)
            .unwrap_or_default();
        let mut jobs = jobs_by_id_into(&snap.jobs, reuse);
        let qdef = any_qdef(&self.cfg);
        for j in &mut jobs {
            if let Some(b) = self.state.bypass.get(&j.id) {
                j.bypass_count = j.bypass_count.max(*b);
            }
            if j.system_priority.is_none() {
                j.system_priority = self.state.system_priority.get(&j.id).copied();
            }
            if j.qos.is_none() && qdef {
                j.qos = default_qos(&self.cfg, j);
            }
        }
        if !self.state.preempted.is_empty() {
            requeued_queue_time(&self.cfg, &self.state, &mut jobs);
        }
        // Holds and releases apply to queued jobs: one asked for a job that
        // has started, ended or left the queue since is dropped, and the
        // plan says why (the RM would hold a running job, or refuse).
        let dropped = self.drop_stale_actions(&snap.jobs);
        // Holds and releases an operator asked for are in force in this
        // iteration already: the plan that carries them does not start a
        // job it holds.
        for a in &self.state.pending_actions {
            if let Some(j) = jobs.iter_mut().find(|j| j.id == a.job) {
                a.kind.apply_to(&mut j.holds);
            }
        }
        // A queued job being cancelled is not planned at all.
        let cancelled: Vec<&str> = (self.state.pending_actions.iter())
            .filter(|a| a.kind == ActionKind::Cancel)
            .map(|a| a.job.as_str())
            .collect();
        if !cancelled.is_empty() {
            jobs.retain(|j| j.state != JobState::Idle || !cancelled.contains(&j.id.as_str()));
        }
        // runjob: the job is presented to the passes as running on the
        // nodes the operator chose (so everything else plans around it),
        // and its start heads the plan.
        let forced_starts = std::mem::take(&mut self.state.forced_starts);
        let mut forced: Vec<(usize, ForcedStart)> = Vec::new();
        for f in forced_starts {
            let Some(i) = jobs.iter().position(|j| j.id == f.job) else {
                continue;
            };
            let on_known_nodes = !f.allocation.is_empty()
                && f.allocation
                    .iter()
                    .all(|a| snap.nodes.iter().any(|n| n.name == a.node));
            if jobs[i].state != JobState::Idle || !on_known_nodes {
                continue;
            }
            let j = &mut jobs[i];
            j.state = JobState::Running;
            j.start_time = Some(now);
            j.allocation = f.allocation.clone();
            forced.push((i, f));
        }
        let cluster = self.cluster(&snap.nodes, same_nodes);
        for j in &mut jobs {
            gres::resolve(j, &cluster);
        }
        credential_advres(&self.cfg, &mut jobs);
        let finished = finished_jobs(&snap.jobs, self.state.last_iteration, &cluster);
        let local = self.local.as_deref().map(|l| l as &dyn LocalAllocator);
        let mut out = passes::run(
            &self.cfg,
            &mut self.state,
            &jobs,
            &finished,
            cluster,
            now,
            local,
            &mut self.carried,
            self.wait_reasons,
        );
        // Starts name the RM's tasks: bundled jobs' allocations are
        // multiplied back (looked up once, not per start over every job).
        let bundled: rustc_hash::FxHashMap<&str, &Job> = jobs
            .iter()
            .filter(|j| j.bundle > 1)
            .map(|j| (j.id.as_str(), j))
            .collect();
        if !bundled.is_empty() {
            for s in &mut out.plan.starts {
                if let Some(j) = bundled.get(s.job.as_str()) {
                    gres::unbundle(j, &mut s.allocation);
                }
            }
        }
        let stopped = self.state.stopped.clone();
        if let Some(stop) = &stopped {
            strip_starts(&mut out, &jobs, stop);
        }
        for (i, f) in forced.iter().rev() {
            let j = &mut jobs[*i];
            j.state = JobState::Idle;
            j.start_time = None;
            j.allocation.clear();
            out.plan.starts.insert(
                0,
                Start {
                    job: f.job.clone(),
                    allocation: f.allocation.clone(),
                    backfill: false,
                    reservation: None,
                    after: Vec::new(),
                },
            );
        }
        // The operators' requests first, then the scheduler's own
        // (preemptions and resumptions).
        let own = std::mem::take(&mut out.plan.actions);
        out.plan.actions = std::mem::take(&mut self.state.pending_actions);
        out.plan.actions.extend(own);
        out.plan.dropped_actions = dropped;
        // Operators' starts, stops and holds make the next iteration differ.
        let quiet = out
            .quiet
            .filter(|_| forced.is_empty() && stopped.is_none() && out.plan.actions.is_empty());
        let plan = Arc::new(out.plan);
        let priority_inputs = self.priority_breakdowns.then(|| {
            Box::new(PriorityInputs {
                cfg: self.cfg.clone(),
                fairshare: self.state.fairshare.clone(),
            })
        });
        self.last = Some(Arc::new(LastIteration {
            jobs,
            view: out.view,
            base: out.base,
            plan: Arc::clone(&plan),
            stopped,
            forced: forced.into_iter().map(|(_, f)| f.job).collect(),
            quiet,
            priority_inputs,
            zone: self.cfg.zone.clone(),
            window_job: backfill_window_job(&self.cfg),
            preempted: self.state.preempted.clone(),
            outcomes: Default::default(),
        }));
        plan
    }

    /// Takes the pending holds and releases whose job is no longer queued
    /// out of the state: (the action, why), for the plan. `all` is the
    /// snapshot's jobs (actions are few: each is looked up by a walk).
    fn drop_stale_actions(&mut self, all: &[Job]) -> Vec<(Action, String)> {
        if self.state.pending_actions.is_empty() {
            return Vec::new();
        }
        let zone = &self.cfg.zone;
        let mut dropped = Vec::new();
        self.state.pending_actions.retain(|a| {
            let why = match all.iter().find(|j| j.id == a.job) {
                Some(j) if j.state == JobState::Idle => return true,
                // A running job is cancelled as well as a queued one.
                Some(j) if a.kind == ActionKind::Cancel && j.state.is_active() => return true,
                Some(j) if j.state.is_active() => match j.start_time {
                    Some(t) => format!(
                        "the job started at {} before it was applied",
                        zone.fmt_named(t)
                    ),
                    None => "the job started before it was applied".to_string(),
                },
                Some(j) => format!(
                    "the job is {} (it ended before it was applied)",
                    j.state.name().to_lowercase()
                ),
                None => "the job is no longer in the resource manager's queue".to_string(),
            };
            dropped.push((a.clone(), why));
            false
        });
        dropped
    }

    /// Until when the last iteration's decisions stand for polls over the
    /// same jobs, when it left a quiet poll ([`Engine::iterate_again`]):
    /// the first change of its profile, and with standing reservations no
    /// later than their instances' next change. Under
    /// [`IdleNeutrality::WhileQuiet`] the simulator skips polls before it
    /// when no job can start at all.
    pub fn quiet_until(&self) -> Option<Time> {
        self.last.as_ref()?.quiet.as_ref().map(|q| q.until)
    }

    /// A poll over the same snapshot as the last call, only time advanced:
    /// for a caller that knows nothing was submitted, completed, started,
    /// held or removed since, and that neither the nodes nor the
    /// configuration changed (the simulator). When the last iteration
    /// started nothing and the same jobs still come first in priority order
    /// (see `quiet::still_quiet` for why that decides it), this iteration
    /// would start nothing and reserve the same: `None` is returned, with
    /// fairshare and queue-time accrual brought to `now` as the iteration
    /// would, and [`Engine::last`] left as the earlier iteration's.
    /// Otherwise it is [`Engine::iterate`].
    pub fn iterate_again(&mut self, snap: &Snapshot, now: Time) -> Option<Arc<Plan>> {
        let operators_idle = self.state.pending_actions.is_empty()
            && self.state.forced_starts.is_empty()
            && self.state.stopped.is_none();
        if let Some(last) = self.last.clone().filter(|_| operators_idle) {
            // The same jobs, and none that ended since (its use is still to
            // be charged): one walk over the snapshot.
            let since = self.state.last_iteration;
            let (seen, ended) = snap.jobs.iter().fold((0, false), |(n, e), j| {
                (n + seen_by_passes(j) as usize, e || ended_since(j, since))
            });
            if let Some(q) = last
                .quiet
                .as_ref()
                .filter(|_| !ended && seen == last.jobs.len())
            {
                // The nodes are the last iteration's too.
                let cluster = &last.view.cluster;
                let (cfg, state, memo) = (&self.cfg, &mut self.state, self.carried.memo());
                if quiet::still_quiet(cfg, state, &last.jobs, cluster, now, q, memo) {
                    return None;
                }
            }
        }
        Some(self.iterate_same_nodes(snap, now))
    }
}

impl Engine {
    /// The cluster of `nodes` under the configuration: the last one when
    /// nothing it depends on changed, else built anew. `same_nodes`: the
    /// caller promises `nodes` are those of its previous call.
    fn cluster(&mut self, nodes: &[crate::model::Node], same_nodes: bool) -> Arc<Cluster> {
        let params = cluster_params(&self.cfg);
        if let Some(c) = &self.cluster_cache {
            let nodes_same = if same_nodes {
                debug_assert!(c.nodes == nodes, "iterate_same_nodes: the nodes changed");
                true
            } else {
                c.nodes == nodes
            };
            if c.params == params && nodes_same && c.node_cfg == self.cfg.nodes {
                return Arc::clone(&c.cluster);
            }
        }
        let cluster = Arc::new(Cluster::build(nodes, &self.cfg));
        self.cluster_cache = Some(ClusterCache {
            nodes: nodes.to_vec(),
            node_cfg: self.cfg.nodes.clone(),
            params,
            cluster: Arc::clone(&cluster),
        });
        cluster
    }
}

/// While scheduling is stopped: the starts the passes chose are withdrawn
/// (their jobs wait with reason `Stopped`) and taken out of the view, so
/// showbf and showq show the cluster as it stays.
fn strip_starts(out: &mut passes::Outcome, jobs: &[Job], stop: &StopInfo) {
    let starts = std::mem::take(&mut out.plan.starts);
    for s in &starts {
        if let Some(j) = jobs.iter().position(|j| j.id == s.job) {
            for a in &s.allocation {
                if let Some(n) = out.view.cluster.index(&a.node) {
                    out.view.profile.remove_job(n, j as crate::profile::JobIdx);
                }
            }
        }
        if let Some(jp) = out.plan.jobs.iter_mut().find(|jp| jp.job == s.job) {
            jp.started = false;
            jp.reason = Some(Reason::Stopped {
                by: stop.by.clone(),
            });
            jp.estimated_start = None;
        }
    }
    out.plan.stats.started_priority = 0;
    out.plan.stats.started_backfill = 0;
}

/// The queue time of a job this scheduler requeued, as Maui's accrual
/// policy has it: under JOBPRIOACCRUALPOLICY ALWAYS it counts from the
/// job's first submission (whatever submission time the resource manager
/// reports after the requeue: Slurm resets it); otherwise it starts again
/// at the requeue, as Maui resets its system queue time.
fn requeued_queue_time(cfg: &Config, state: &EngineState, jobs: &mut [Job]) {
    let always = cfg.params.job_prio_accrual_policy == crate::config::JobPrioAccrualPolicy::Always;
    for j in jobs.iter_mut().filter(|j| j.state == JobState::Idle) {
        let Some(rec) = state.preempted.get(&j.id) else {
            continue;
        };
        if !rec.how.preempts() || rec.how == ActionKind::Suspend {
            continue;
        }
        j.submit_time = if always {
            j.submit_time.min(rec.submitted)
        } else {
            j.submit_time.max(rec.at)
        };
    }
}

/// True when some credential or SYSCFG names a default QOS (QDEF): else
/// [`default_qos`] is `None` for every job.
fn any_qdef(cfg: &Config) -> bool {
    cfg.system.qdef.is_some()
        || cfg
            .creds
            .values()
            .any(|m| m.values().any(|c| c.qdef.is_some()))
}

/// The pseudo-job whose admission bounds the backfill windows, as Maui's
/// `MBFGetWindow` (MBF.c) makes it ([`crate::reservation::acl::window_job`]),
/// with the default QOS of a user without USERCFG: a reservation open to
/// users, groups or accounts stays in the windows, for the jobs it admits
/// to try.
pub(crate) fn backfill_window_job(cfg: &Config) -> Job {
    let mut j = crate::reservation::acl::window_job(None);
    j.qos = default_qos(cfg, &j);
    j
}

/// QDEF: the default QOS of a job that asks for none (user, group, account,
/// class, then SYSCFG).
fn default_qos(cfg: &Config, job: &Job) -> Option<String> {
    use crate::model::CredKind;
    for kind in [
        CredKind::User,
        CredKind::Group,
        CredKind::Account,
        CredKind::Class,
    ] {
        if let Some(name) = job.cred(kind) {
            let q = cfg
                .cred(kind, name)
                .and_then(|c| c.qdef.clone())
                .or_else(|| cfg.cred_default(kind).and_then(|c| c.qdef.clone()));
            if q.is_some() {
                return q;
            }
        }
    }
    cfg.system.qdef.clone()
}
