//! One iteration's passes: Maui's rules, written against [`Placer`].
//!
//! Step 1 reconciles the state (`rank::reconcile`); steps 2-3 find each
//! idle job's eligibility and priority ([`rank`]); step 5 is the priority
//! pass with job reservations ([`priority`], [`reserve`]); step 6 is
//! backfill ([`backfill`]); step 7 the plan ([`plan`]).
//!
//! The passes ask a [`Placer`] where jobs fit; they never look at a cache.
//! Two placers answer alike: the accelerated one of `engine::accel`, which
//! production runs, and the plain `engine::reference`, which asks the
//! availability profile directly (`engine::tests::the_reference_decides_alike`
//! demands the same plans of both). A reader who wants Maui's rules reads
//! this module and the reference.

use super::build::{self, View};
use super::plan::{Plan, Reason, Start};
use super::state::EngineState;
use crate::allocation::{LocalAllocator, TaskRequest};
use crate::config::Config;
use crate::model::{Job, NodeIdx, Secs, Time};
use crate::profile::{Fit, FitRequest, Profile};
use crate::throttle::Usage;
use jobmap::JobMap;

mod backfill;
mod ctx;
mod jobmap;
mod plan;
mod preempt;
mod priority;
pub(super) mod rank;
mod reserve;

pub(super) use ctx::{AdmitAll, Ctx};
pub(super) use preempt::preemption_configured;

/// What `run` hands back.
pub struct Outcome {
    pub plan: Plan,
    pub view: View,
    pub base: Profile,
    /// Set when this iteration started nothing and a poll over the same
    /// jobs may be answered by [`super::quiet::still_quiet`].
    pub quiet: Option<super::quiet::Quiet>,
}

/// A job reservation: start, end, nodes and tasks.
pub(super) type Reserved = (Time, Time, Vec<(NodeIdx, u32)>);

/// Per idle job.
pub(super) struct Idle<'a> {
    pub j: usize,
    /// Its request (kept in the job memo).
    pub req: &'a TaskRequest,
    pub wall: Secs,
    /// Final priority.
    pub priority: i64,
    /// Effective queue time used for it.
    pub eff_queue_time: Secs,
    /// Each component's contribution ([`crate::priority::PriorityParts`]).
    pub contributions: [f64; 6],
    /// The node set of nodes meeting its requirements (accelerators only).
    pub nodes: u32,
    /// Its requirement signature's id (accelerators only).
    pub sig: u32,
    /// Processors it asks for (`Job::procs`), its id and its bypass count
    /// as the RM gave them: at hand where the passes and the plan walk the
    /// queue in priority order, without a look into the (large) job.
    pub procs: u64,
    pub id: &'a str,
    pub bypass_count: u32,
    /// Set when the job cannot be started in this iteration whatever the resources.
    pub blocked: Option<Reason>,
}

/// The questions the passes ask about idle job `i` (an index into
/// [`Ctx::idle`], in priority order). Placements are committed to the
/// profile of [`Ctx::view`] as they are made.
pub(super) trait Placer<'a> {
    /// The iteration's inputs and profile.
    fn cx(&self) -> &Ctx<'a>;
    fn cx_mut(&mut self) -> &mut Ctx<'a>;
    /// Could job `i` start now if it were its turn (enough free resources
    /// for it, reservations respected)?
    fn fits_now(&self, i: usize) -> bool;
    /// False when job `i` certainly cannot start now on any nodes (a bound
    /// the accelerated placer keeps; true when there is none).
    fn may_fit_now(&self, _i: usize) -> bool {
        true
    }
    /// Some reservation admits job `i` over [now, now + wall)
    /// ([`Ctx::admitted_anywhere`]; the accelerated placer answers from the
    /// cache it keeps for its bounds).
    fn admitted_anywhere(&self, i: usize) -> bool {
        self.cx().admitted_anywhere(i)
    }
    /// In node order, every node with processors free now whatever the
    /// reservations, and maybe some without (a bound the accelerated
    /// placer keeps); `None`: every node may have.
    fn with_free_procs(&self) -> Option<&[NodeIdx]> {
        None
    }
    /// Starts job `i` now if the allocation policy finds it nodes: those
    /// nodes, committed.
    fn start_now(&mut self, i: usize) -> Option<Vec<(NodeIdx, u32)>>;
    /// The earliest fit of `req` for job `i` on the nodes it may use
    /// (`advres`: those of the reservation it asks for).
    fn earliest(
        &mut self,
        i: usize,
        req: &FitRequest,
        advres: Option<&std::collections::BTreeSet<NodeIdx>>,
    ) -> Option<Fit>;
    /// Places job `i` over [start, start + wall) by its allocation policy
    /// and commits it. `only`: on these nodes alone, in node order, which
    /// replace the job's host list (the caller intersects them).
    fn place(
        &mut self,
        i: usize,
        start: Time,
        only: Option<&[NodeIdx]>,
    ) -> Option<Vec<(NodeIdx, u32)>>;
    /// Commits job `i` on `nodes` over `window`; all or nothing.
    fn commit(&mut self, i: usize, window: (Time, Time), nodes: &[(NodeIdx, u32)]) -> bool;
    /// The tasks of job `i` that the nodes meeting its requirements
    /// (whatever their state) could hold, empty.
    fn capacity(&mut self, i: usize) -> u64;
    /// Why eligible job `i` waits, asked of `base` (the profile before the
    /// passes).
    fn why_waiting(&mut self, i: usize, base: &Profile) -> Reason;
    /// The profile of [`Ctx::view`] changed on `nodes` other than by a
    /// commit (a preemption freed them, a resumption took them): what the
    /// placer knows of them is to be found again.
    fn freed(&mut self, nodes: &[NodeIdx]);
}

/// What the passes keep while they run, besides the placer.
pub(super) struct Passes<'s, P> {
    pub p: P,
    pub state: &'s mut EngineState,
    /// Some throttling limit is configured (else every check passes).
    pub throttled: bool,
    pub usage: Usage,
    pub started: JobMap<Start>,
    /// Job index -> (start, end, nodes) of reservations made now.
    pub reserved: JobMap<Reserved>,
    /// Jobs only soft limits would let start: the backfill phase's second
    /// round, with the reason they wait otherwise.
    pub soft_deferred: JobMap<Reason>,
    /// Backfill chunking holds freed resources for large jobs.
    pub chunk_on: bool,
    /// The last job whose turn decided a reservation, the first blocked
    /// one, or the first that could neither start nor get a reservation
    /// (see [`super::quiet::Quiet`]).
    pub decisive: Option<usize>,
    /// The job reservations made are those the iteration carried from the
    /// last one (set by the plan).
    pub reservations_carried: bool,
    /// Preemption, when some job may preempt ([`preempt`]).
    pub preempt: Option<Box<preempt::Preempting>>,
    /// Waiting jobs' reasons in full ([`crate::engine::Engine`]'s
    /// `wait_reasons`).
    pub wait_reasons: bool,
}

/// Runs one iteration; `finished`: jobs the RM reports ended with usage
/// still to charge; `carried`: what the engine carries between iterations.
#[allow(clippy::too_many_arguments)]
pub fn run(
    cfg: &Config,
    state: &mut EngineState,
    jobs: &[Job],
    finished: &[Job],
    cluster: std::sync::Arc<crate::model::Cluster>,
    now: Time,
    local: Option<&dyn LocalAllocator>,
    carried: &mut super::accel::Carried,
    wait_reasons: bool,
) -> Outcome {
    // 1. Reconcile.
    let mut view = build::build_with(cfg, cluster, jobs, now, state, &mut carried.running);
    rank::reconcile(cfg, state, jobs, finished, &view.cluster.total, now);

    // Usage only feeds throttling checks; without limits none are made.
    let throttled = rank::has_limits(cfg);
    let usage = if throttled {
        let default_wall = cfg.params.system_default_job_walltime.0;
        Usage::from_jobs(cfg, jobs, now, default_wall, &view.cluster.total)
            .with_gres_names(&view.cluster.gres_names)
    } else {
        Usage::new(cfg)
    };

    // 2-3. Eligibility and priority.
    let (mut feasible, mut memo) = carried.prepare(&view.cluster, cfg);
    let slots = memo.refresh(jobs, cfg, &mut feasible);
    let usage_then = throttled.then_some(&usage);
    let ranked = rank::rank(cfg, state, jobs, &view, usage_then, now, &memo, &slots);
    let base = view.profile.clone();
    let now_ix = view.now_ix.take();
    let open_ix = view.open_ix.take();
    let cx = Ctx {
        cfg,
        jobs,
        now,
        view,
        idle: ranked.idle,
        local,
    };
    // 5-7. The passes and the plan.
    #[cfg(test)]
    if super::reference::on() {
        let p = super::reference::Plain::new(cx);
        let (plan, quiet, p) =
            Passes::new(p, state, throttled, usage, wait_reasons).decide(&base, ranked.statics);
        let view = p.into_view();
        carried.keep(&view.cluster, feasible, memo);
        return Outcome {
            plan,
            view,
            base,
            quiet,
        };
    }
    let it = super::accel::Iter::new(cx, (now_ix, open_ix), feasible, memo.signatures(), carried);
    let (plan, quiet, it) =
        Passes::new(it, state, throttled, usage, wait_reasons).decide(&base, ranked.statics);
    let (view, feasible) = it.finish(carried);
    carried.keep(&view.cluster, feasible, memo);
    Outcome {
        plan,
        view,
        base,
        quiet,
    }
}

impl<'s, 'a, P: Placer<'a>> Passes<'s, P> {
    fn new(
        p: P,
        state: &'s mut EngineState,
        throttled: bool,
        usage: Usage,
        wait_reasons: bool,
    ) -> Self {
        let (jobs, idle) = (p.cx().jobs.len(), p.cx().idle.len());
        let preempt = preempt::Preempting::new(p.cx().cfg, state.stopped.is_some());
        Passes {
            p,
            state,
            throttled,
            usage,
            started: JobMap::with_keys(jobs),
            reserved: JobMap::with_keys(jobs),
            soft_deferred: JobMap::with_keys(idle),
            chunk_on: false,
            decisive: None,
            reservations_carried: false,
            preempt,
            wait_reasons,
        }
    }

    /// Steps 5-7 over the ranked queue: the passes, then the plan.
    fn decide(
        mut self,
        base: &Profile,
        statics: Vec<(usize, bool)>,
    ) -> (Plan, Option<super::quiet::Quiet>, P) {
        // Eligibility before the passes (see `Quiet`).
        let eligible0: Vec<bool> = self.idle().iter().map(|x| x.blocked.is_none()).collect();
        self.priority_pass();
        self.backfill_pass();
        self.count_bypasses();
        self.record_preemptions();
        let plan = self.plan(base);
        let quiet = self.quiet(&eligible0, statics);
        (plan, quiet, self.p)
    }

    fn idle(&self) -> &[Idle<'a>] {
        &self.p.cx().idle
    }
}
