//! The quiet-poll shortcut: a poll over the same jobs as an iteration that
//! started nothing, only time advanced, is answered without the passes
//! while that iteration's decisions stand ([`still_quiet`]).

use super::accel::memo::JobMemo;
use super::names::CredTable;
use super::passes::rank::{
    accrue_usage, any_fs_cap, has_limits, order_key, queue_times, time_block, OrderKey,
};
use super::state::EngineState;
use crate::config::{Config, ReservationPolicy};
use crate::model::{Cluster, Job, Time};
use crate::priority::{self, PriorityContext};

/// What an iteration that started nothing leaves for a later poll over the
/// same jobs ([`still_quiet`]): the jobs its decisions depended on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Quiet {
    /// Eligible idle jobs (indices into the iteration's jobs) in priority
    /// order, up to the last one the priority pass found blocked, tried to
    /// reserve for, or found neither able to start nor to get a
    /// reservation: these decide the reservations, and which jobs may
    /// still start in priority order (FIRSTFIT).
    pub(super) head: Vec<usize>,
    /// Every eligible idle job, in job order.
    pub(super) eligible: Vec<usize>,
    /// `Ranked::statics` of the iteration.
    pub(super) statics: Vec<(usize, bool)>,
    /// The first time the availability profile changes after the
    /// iteration: the first end of a running job's window or start of a
    /// reservation made. A later poll must come before it.
    pub(super) until: Time,
}

/// Whether an iteration that starts nothing, over the same jobs, leaves
/// the engine's state as if it had not run. It may when
/// RESERVATIONPOLICY is other than HIGHEST (which remembers every job ever
/// reserved), there is no backfill chunking (which remembers when it
/// began), FSPOLICY is DEDICATEDPS or none (usage summed in whole
/// processor-seconds, so accruing over one span or several gives the same
/// numbers; queue-time accrual is additive over spans already), and there
/// is no preemption (whether a preemptor may preempt changes with
/// priorities, which time moves, so every poll runs the passes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IdleNeutrality {
    /// Always: no standing reservations either.
    Always,
    /// With standing reservations: while the conditions of the quiet poll
    /// the last iteration left hold, until their instances next change
    /// ([`crate::Engine::quiet_until`]; see `quiet_allowed`).
    WhileQuiet,
    /// Never.
    Never,
}

/// The configuration's [`IdleNeutrality`].
pub fn idle_neutrality(cfg: &Config) -> IdleNeutrality {
    match (neutral_but_standing(cfg), cfg.standing.is_empty()) {
        (false, _) => IdleNeutrality::Never,
        (true, true) => IdleNeutrality::Always,
        (true, false) => IdleNeutrality::WhileQuiet,
    }
}

/// [`IdleNeutrality`] but for standing reservations, which
/// [`Quiet::until`] and the conditions the plan sets on a quiet iteration
/// handle instead.
fn neutral_but_standing(cfg: &Config) -> bool {
    use crate::config::FsMetric;
    let p = &cfg.params;
    !super::passes::preemption_configured(cfg)
        && p.reservation_policy != ReservationPolicy::Highest
        && !(p.bf_chunk_size > 0 && p.bf_chunk_duration.0 > 0)
        && matches!(p.fs_policy.metric, None | Some(FsMetric::DedicatedPs))
}

/// Whether [`still_quiet`] may answer for an iteration: idle iterations
/// are neutral but for standing reservations, no throttling limit is
/// configured (their verdicts follow the order of the jobs tried) and
/// there is no administrator reservation (they begin and end at times of
/// their own).
///
/// Standing reservations are placed anew by every iteration, from the
/// claims the last one left: re-applied, and topped up where short. A
/// quiet iteration leaves `until` no later than the instances' next
/// change (one begins or ends, or one is rolled in), and only when the
/// job reservations it made are those it carried (the floating instances
/// were placed around them) and no instance had just ended (Maui's range
/// search treats those nodes apart). A poll before `until` then re-applies
/// the same claims to the same profile and tops up nothing more, since
/// the iteration found no more room on the same profile: the instances,
/// and so the job reservations made around them, come out the same.
pub(super) fn quiet_allowed(cfg: &Config, state: &EngineState) -> bool {
    neutral_but_standing(cfg) && !has_limits(cfg) && state.admin.list().is_empty()
}

/// A poll at `now` over the same jobs as the iteration that left `quiet`,
/// only time advanced (the caller's promise: nothing submitted, completed,
/// started or removed since, so no running job's window ended either).
/// True when that iteration's decisions stand: the same jobs are eligible
/// and the priority order puts the same jobs first, in the same order.
///
/// Why that is enough: the running jobs are the same and none of their
/// windows ended, so the availability profile from `now` on is the earlier
/// one cut at `now`, and nothing in it changed between the two times. The
/// head jobs get the same reservations (their earliest starts lay at the
/// ends of running jobs' windows, after `now`). Every other eligible job
/// was tried for a start then and failed; a job that fits over
/// [now, now + walltime) would have fitted over [then, then + walltime),
/// where the part before `now` has what is free at `now`, so it fails
/// again, whatever order the others come in. No start, no bypass, the same
/// reservations: the iteration would leave the state as it is, apart from
/// fairshare and queue-time accrual, which this brings to `now` as the
/// iteration would (when the answer is false the caller runs the iteration,
/// which repeats them at no cost).
/// `memo`: the job memo the iteration that left `quiet` brought to these
/// jobs (their signatures give their credentials); without it, or when
/// it is not these jobs', the answer is false.
pub fn still_quiet(
    cfg: &Config,
    state: &mut EngineState,
    jobs: &[Job],
    cluster: &Cluster,
    now: Time,
    quiet: &Quiet,
    memo: Option<&JobMemo>,
) -> bool {
    if now >= quiet.until || !quiet_allowed(cfg, state) {
        return false;
    }
    // Without limits `statics` lists every idle job in job order, as the
    // memo does.
    let idle = quiet.statics.iter().map(|&(j, _)| j);
    let Some((memo, sigs)) = memo.and_then(|m| Some((m, m.signatures_of(jobs, idle)?))) else {
        return false;
    };
    // The same jobs as the iteration that left `quiet`: what it forgot
    // stays forgotten, and what does not depend on time stands.
    accrue_usage(cfg, state, jobs, &[], &cluster.total, now);
    let items: Vec<(usize, bool, bool)> = quiet
        .statics
        .iter()
        .map(|&(j, _)| (j, true, true))
        .collect();
    let eff = queue_times(cfg, &mut state.accrual, jobs, &items, now);
    let fs_caps = any_fs_cap(cfg);
    let ctx = PriorityContext {
        now,
        cfg,
        total: cluster.total,
        fairshare: &state.fairshare,
    };
    // What priority reads of the credentials, by id.
    let mut creds = CredTable::new(memo.names(), memo.signatures());
    // As `rank` orders: priority, then submission, then position.
    let mut keys: Vec<OrderKey> = Vec::with_capacity(items.len());
    for (k, &(j, ok)) in quiet.statics.iter().enumerate() {
        let job = &jobs[j];
        if !ok || time_block(cfg, &state.fairshare, fs_caps, job, now).is_some() {
            continue;
        }
        let terms = creds.of_signature(&ctx, memo.names(), sigs[k], memo.creds(sigs[k]));
        let parts = priority::job_priority_parts_with(&ctx, job, eff[k], terms);
        if !parts.rejected_negative {
            keys.push(order_key(parts.priority, job.submit_time, k));
        }
    }
    keys.sort_unstable();
    let order: Vec<usize> = keys.iter().map(|&(_, _, k)| quiet.statics[k].0).collect();
    if order.len() != quiet.eligible.len() || !order.starts_with(&quiet.head) {
        return false;
    }
    let mut eligible = order;
    eligible.sort_unstable();
    eligible == quiet.eligible
}
