//! Steps 1-3: reconcile the state with the snapshot, then every idle job's
//! eligibility and priority, in priority order.

use super::Idle;
use crate::config::Config;
use crate::engine::accel::memo;
use crate::engine::build::View;
use crate::engine::names::CredTable;
use crate::engine::plan::Reason;
use crate::engine::state::{AccrualMap, EngineState};
use crate::model::{Job, JobState, Resources, Secs, Time};
use crate::priority::{self, PriorityContext, QueueAccrual};
use crate::throttle::{self, Totals, Usage, Verdict};

/// A hash set with the Fx hash: fast for in-memory keys, used for lookups
/// only, never for iteration order, so output does not depend on it.
type FxSet<K> = rustc_hash::FxHashSet<K>;

/// The priority order's key of a job: priority (highest first), then
/// submission, then `pos`, the job's position in an order that breaks the
/// remaining ties as its id would. [`rank`] and the quiet poll
/// (`engine::quiet`) both sort by it.
pub(in crate::engine) type OrderKey = (std::cmp::Reverse<i64>, Time, usize);

/// See [`OrderKey`].
pub(in crate::engine) fn order_key(priority: i64, submit: Time, pos: usize) -> OrderKey {
    (std::cmp::Reverse(priority), submit, pos)
}

/// True when some credential (or a `*CFG[DEFAULT]`) sets FSCAP.
pub(in crate::engine) fn any_fs_cap(cfg: &Config) -> bool {
    cfg.creds
        .values()
        .flat_map(|m| m.values())
        .any(|c| c.fs_cap.is_some())
}

/// True when some throttling limit is configured: without one,
/// `check_active` and `check_idle` find nothing that applies and always
/// answer `FitsSoft`.
pub(in crate::engine) fn has_limits(cfg: &Config) -> bool {
    !cfg.system.limits.is_empty()
        || cfg
            .creds
            .values()
            .flat_map(|m| m.values())
            .any(|c| !c.limits.is_empty() || !c.overrides.is_empty())
}

pub(in crate::engine) fn verdict_reason(v: &Verdict) -> Option<Reason> {
    let viol = v.violation()?;
    Some(Reason::Policy(Box::new(crate::engine::plan::PolicyBlock {
        limit: viol.limit,
        credential: viol.cred_label(),
        hard: viol.hard,
        detail: viol.to_string(),
        gres: viol.gres.clone(),
    })))
}

/// Step 1's bookkeeping: fairshare accrues the running jobs' usage since
/// the last iteration, and the `finished` jobs' up to their end, and what
/// is remembered of jobs that left is forgotten. Running it twice at the
/// same `now` changes nothing more.
pub(in crate::engine) fn reconcile(
    cfg: &Config,
    state: &mut EngineState,
    jobs: &[Job],
    finished: &[Job],
    total: &Resources,
    now: Time,
) {
    accrue_usage(cfg, state, jobs, finished, total, now);
    // Fx-hashed: built over every job in each iteration.
    let idle_ids: FxSet<&str> = jobs
        .iter()
        .filter(|j| j.state == JobState::Idle)
        .map(|j| j.id.as_str())
        .collect();
    // Queue-time accrual of jobs no longer idle is forgotten as `rank`
    // rebuilds the table.
    state.bypass.retain(|k, _| idle_ids.contains(k.as_str()));
    // System priorities (setspri) are few: every job's id is hashed only
    // when there are some.
    if !state.system_priority.is_empty() {
        let present: FxSet<&str> = jobs.iter().map(|j| j.id.as_str()).collect();
        state
            .system_priority
            .retain(|k, _| present.contains(k.as_str()));
    }
    state
        .ever_reserved
        .retain(|k, _| idle_ids.contains(k.as_str()));
}

/// Fairshare accrues the running jobs' usage since the last iteration, and
/// the `finished` jobs' up to their end ([`crate::fairshare::Fairshare::accrue`]).
pub(in crate::engine) fn accrue_usage(
    cfg: &Config,
    state: &mut EngineState,
    jobs: &[Job],
    finished: &[Job],
    total: &Resources,
    now: Time,
) {
    let since = state.last_iteration.unwrap_or(now).min(now);
    state
        .fairshare
        .accrue(cfg, jobs, finished, total, since, now);
    state.last_iteration = Some(now);
}

/// What keeps an otherwise eligible job from starting at `now` that time
/// alone can change: a fairshare cap reached, a begin time not reached.
/// `fs_caps` is [`any_fs_cap`]: without a cap no credential is looked up.
pub(in crate::engine) fn time_block(
    cfg: &Config,
    fs: &crate::fairshare::Fairshare,
    fs_caps: bool,
    job: &Job,
    now: Time,
) -> Option<Reason> {
    if let Some(v) = fs_caps.then(|| fs.fs_cap_exceeded(cfg, job)).flatten() {
        return Some(Reason::FairshareCap {
            detail: v.to_string(),
        });
    }
    job.earliest_start
        .filter(|t| *t > now)
        .map(|at| Reason::BeginTime { at })
}

/// Effective queue times of idle jobs given as (job, within idle limits,
/// within active limits), their accrual brought up to `now`. Each job's
/// update is its own, so the order of updates does not matter, except
/// between jobs with the same id, which keep the given order.
pub(in crate::engine) fn queue_times(
    cfg: &Config,
    accrual: &mut AccrualMap,
    jobs: &[Job],
    items: &[(usize, bool, bool)],
    now: Time,
) -> Vec<Secs> {
    let policy = cfg.params.job_prio_accrual_policy;
    // Items come in job order (those of `still_quiet`): each record is
    // looked for after the last one found.
    let mut next = 0;
    items
        .iter()
        .map(|&(j, meets_idle, active_ok)| {
            let job = &jobs[j];
            if let Some(acc) = accrual.get_mut_next(&mut next, &job.id) {
                acc.update(policy, job, now, meets_idle, active_ok);
                return acc.effective();
            }
            let mut acc = QueueAccrual::new(job);
            acc.update(policy, job, now, meets_idle, active_ok);
            accrual.insert(job.id.clone(), acc);
            acc.effective()
        })
        .collect()
}

/// What [`rank`] found.
pub(in crate::engine) struct Ranked<'a> {
    /// Every idle job, in priority order.
    pub idle: Vec<Idle<'a>>,
    /// Every idle job in the order `rank` looked at them (job order, or
    /// submission then job order under idle limits), with whether it is
    /// eligible but for what time alone can change ([`time_block`]),
    /// priority aside. Ties of priority and submission fall to this order
    /// as to the id (`engine::quiet::still_quiet`).
    pub statics: Vec<(usize, bool)>,
}

/// Steps 2-3: every idle job with its request, walltime, priority and
/// eligibility, in priority order (priority, then submission, then id).
/// Queue-time accrual is brought up to `now` (again at the same `now`, a
/// no-op). `usage` is given when throttling limits are configured;
/// `memo` holds what is derived from each idle job alone, in the slot
/// `slots` gives by job index ([`memo::JobMemo::refresh`]).
#[allow(clippy::too_many_arguments)]
pub(in crate::engine) fn rank<'a>(
    cfg: &Config,
    state: &mut EngineState,
    jobs: &'a [Job],
    view: &View,
    usage: Option<&Usage>,
    now: Time,
    memo: &'a memo::JobMemo,
    slots: &[u32],
) -> Ranked<'a> {
    let (cluster, table) = (&*view.cluster, &view.table);
    let p = &cfg.params;
    let default_wall = p.system_default_job_walltime.0;
    let mut idle: Vec<Idle<'a>> = Vec::with_capacity(jobs.len());
    let mut queue_usage = Usage::new(cfg);
    // The idle jobs in the order they are looked at. Idle (queue) limits
    // count jobs in order of submission, then id: `jobs` is in id order
    // (`job_id_cmp`), so submission time then position gives that order
    // (sorted as keys: a look-up into a large `Job` at each comparison
    // misses the cache). Without limits each job is looked at on its own,
    // so in job order: the order of `jobs` in memory. Either way `idle`
    // breaks ties of priority and submission by id (below).
    let mut order: Vec<(Time, usize)> = (0..jobs.len())
        .filter(|&j| jobs[j].state == JobState::Idle)
        .map(|j| (jobs[j].submit_time, j))
        .collect();
    if usage.is_some() {
        order.sort_unstable();
    }
    let fs = &state.fairshare;
    // Every idle job's accrual, brought to `now`; what is kept of jobs no
    // longer idle is forgotten.
    let mut accrual = state.accrual.rebuild();
    let policy = p.job_prio_accrual_policy;
    let fs_caps = any_fs_cap(cfg);
    let ctx = PriorityContext {
        now,
        cfg,
        total: cluster.total,
        fairshare: fs,
    };
    // What priority reads of the credentials, by id.
    let names = memo.names();
    let mut creds = CredTable::new(names, memo.signatures());
    // Per idle job, in that order: eligible but for `time_block`.
    let mut statics: Vec<(usize, bool)> = Vec::with_capacity(order.len());
    for (_, j) in order {
        let job = &jobs[j];
        // What is derived from the job alone (see `memo`).
        let d = memo.get(slots[j]);
        // Idle (queue) limits in order of submission: the first MAXIJOB jobs
        // of a credential are considered, the rest wait. Without any limit
        // configured every check passes.
        let (idle_verdict, active_verdict) = match usage {
            Some(usage) => {
                let demand = Totals::of_job(job, now, default_wall, &cluster.total);
                let idle_verdict = throttle::check_idle(cfg, job, &demand, &queue_usage);
                if idle_verdict.allows(true) {
                    queue_usage.add_idle(job, &demand);
                }
                (
                    idle_verdict,
                    throttle::check_active(cfg, job, &demand, usage),
                )
            }
            None => (Verdict::FitsSoft, Verdict::FitsSoft),
        };
        let meets_idle = idle_verdict.allows(true);
        let mut blocked = static_block(cfg, job, d, table, &idle_verdict);
        statics.push((j, blocked.is_none()));
        if blocked.is_none() {
            blocked = time_block(cfg, fs, fs_caps, job, now);
        }
        if blocked.is_none() && matches!(active_verdict, Verdict::Blocked(_)) {
            blocked = verdict_reason(&active_verdict);
        }
        let active_ok = active_verdict.allows(true);
        let eff = accrual.record(j, job, |acc| {
            acc.update(policy, job, now, meets_idle, active_ok)
        });
        let terms = creds.of_signature(&ctx, names, d.sig, memo.creds(d.sig));
        debug_assert_eq!(
            format!("{terms:?}"),
            format!("{:?}", priority::cred_terms(&ctx, job, None))
        );
        let parts = priority::job_priority_parts_with(&ctx, job, eff, terms);
        if blocked.is_none() && parts.rejected_negative {
            blocked = Some(Reason::NegativePriority);
        }
        idle.push(Idle {
            j,
            req: &d.req,
            wall: d.wall,
            priority: parts.priority,
            eff_queue_time: eff.max(0),
            contributions: parts.contributions,
            nodes: d.nodes,
            sig: d.sig,
            procs: job.procs(),
            id: &job.id,
            bypass_count: job.bypass_count,
            blocked,
        });
    }
    state.accrual.finish(accrual, jobs);
    by_priority(&mut idle, jobs);
    Ranked { idle, statics }
}

/// What keeps job `job` (`d`: what is derived from it alone) from starting
/// in this iteration whatever the resources and the time: a hold, a
/// dependency, its size, nodes that can never hold it, a reservation it
/// asks for that does not exist, or idle limits (`idle_verdict`).
fn static_block(
    cfg: &Config,
    job: &Job,
    d: &memo::Derived,
    table: &[crate::reservation::Reservation],
    idle_verdict: &Verdict,
) -> Option<Reason> {
    let mut blocked = if let Some(h) = job.holds.first() {
        Some(Reason::Hold { kind: *h })
    } else if !job.dependency_satisfied {
        Some(Reason::Dependency)
    } else if let Err(e) = throttle::check_job_size(cfg, job) {
        Some(Reason::NoFit {
            detail: e.to_string(),
        })
    } else {
        None
    };
    if blocked.is_none() {
        blocked = d.fit.clone();
    }
    if blocked.is_none() {
        if let Some(want) = &job.advres {
            if !table
                .iter()
                .any(|r| &r.id == want || r.standing_name() == Some(want.as_str()))
            {
                blocked = Some(Reason::NoFit {
                    detail: format!("reservation {want} (ADVRES) does not exist"),
                });
            }
        }
    }
    if blocked.is_none() && !idle_verdict.allows(true) {
        blocked = verdict_reason(idle_verdict);
    }
    blocked
}

/// Puts `idle` in priority order: priority, then submission, then id.
fn by_priority(idle: &mut [Idle<'_>], jobs: &[Job]) {
    // Priority order: priority, then submission, then id. Sorted as keys
    // with positions, then moved once. `idle` is in id order, or in
    // submission then id order, so either way its position breaks the
    // remaining ties as the id would.
    let mut keys: Vec<OrderKey> = idle
        .iter()
        .enumerate()
        .map(|(k, x)| order_key(x.priority, jobs[x.j].submit_time, k))
        .collect();
    keys.sort_unstable();
    // Apply the permutation in place, cycle by cycle: no second vector of
    // 50,000 large entries. The entry ranked `r` is the one at `keys[r].2`.
    let mut done = vec![false; keys.len()];
    for first in 0..keys.len() {
        let mut r = first;
        while !done[r] {
            done[r] = true;
            let from = keys[r].2;
            if from == first {
                break;
            }
            idle.swap(r, from);
            r = from;
        }
    }
}
