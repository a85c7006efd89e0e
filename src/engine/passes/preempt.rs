//! Preemption, as Maui's guide describes it ("Preemption Policies", 8.4).
//!
//! A job preempts at its turn in the priority pass, as Maui's
//! `MJobAllocMNL` does: when it cannot start now on what is free, running
//! jobs may be preempted to free what it needs. Maui's three conditions
//! must all hold:
//! - the preemptor's QOS (or one of its credentials' FLAGS) has PREEMPTOR;
//! - the preemptee's has PREEMPTEE;
//! - the preemptor's priority is higher than the preemptee's (the
//!   preemptee's computed by the same formula, its queue time as it stood
//!   when it started).
//!
//! Which jobs are preempted: the fewest, then those of the lowest
//! priority, then those that lose the least work (processor-seconds run
//! so far). Sets of one and of two jobs are searched exhaustively among
//! the first candidates in that order; beyond, candidates are added in
//! that order until the preemptor fits, and each one not needed is then
//! dropped (last added first). Nothing is preempted unless the preemptor
//! then starts, in the same plan, on the resources the preemption frees
//! (its placement follows NODEALLOCATIONPOLICY, node access policies and
//! reservations' ACLs as any start; throttling policies were met before
//! its turn).
//!
//! PREEMPTPOLICY decides how: REQUEUE ends the job and queues it again,
//! CHECKPOINT does the same after a checkpoint, SUSPEND stops it on its
//! nodes, which keep its memory, swap, disk and generic resources (only
//! its processors are freed). A job this scheduler suspended is resumed
//! before any new start, as Maui's `MQueueScheduleSJobs` does, once its
//! processors on its nodes are free again for the rest of its walltime.

use super::{Passes, Placer};
use crate::config::{BackfillPolicy, Config};
use crate::engine::build;
use crate::engine::plan::{Action, ActionKind};
use crate::engine::state::Preemption;
use crate::model::{CredKind, Job, JobState, NodeIdx, Secs, Time};
use crate::profile::{JobIdx, Profile};
use crate::throttle::{QosFlags, Totals};

/// A job's preemption roles (Maui's `MJobUpdateFlags`): from its QOS's
/// QFLAGS or FLAGS, the FLAGS of its user, group, account or class (each
/// its own, else its kind's DEFAULT), or its own attributes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(in crate::engine) struct Roles {
    pub preemptor: bool,
    pub preemptee: bool,
}

impl Roles {
    pub fn of(cfg: &Config, job: &Job) -> Roles {
        let qos = QosFlags::of(cfg, job);
        let mut r = Roles {
            preemptor: qos.has("PREEMPTOR"),
            preemptee: qos.has("PREEMPTEE"),
        };
        let mut note = |flag: &str| {
            if flag.eq_ignore_ascii_case("PREEMPTOR") {
                r.preemptor = true;
            } else if flag.eq_ignore_ascii_case("PREEMPTEE") {
                r.preemptee = true;
            }
        };
        for kind in [
            CredKind::User,
            CredKind::Group,
            CredKind::Account,
            CredKind::Class,
        ] {
            let Some(name) = crate::priority::cred_name(job, kind) else {
                continue;
            };
            let flags = cfg
                .cred(kind, name)
                .and_then(|c| c.flags.as_ref())
                .or_else(|| cfg.cred_default(kind).and_then(|c| c.flags.as_ref()));
            for f in flags.iter().flat_map(|f| f.0.iter()) {
                note(f);
            }
        }
        for a in &job.attributes {
            note(a);
        }
        r
    }
}

/// True when some QOS or credential makes its jobs preemptors, or
/// BACKFILLPOLICY PREEMPT makes the jobs given reservations ones: else no
/// job can preempt, and nothing here runs.
pub(in crate::engine) fn preemption_configured(cfg: &Config) -> bool {
    if cfg.params.backfill_policy == BackfillPolicy::Preempt {
        return true;
    }
    let has = |n: &Option<crate::config::value::Names>| {
        n.as_ref()
            .is_some_and(|n| n.0.iter().any(|f| f.eq_ignore_ascii_case("PREEMPTOR")))
    };
    cfg.creds
        .values()
        .flat_map(|m| m.values())
        .any(|c| has(&c.flags) || has(&c.qflags))
}

/// A running job that may be preempted.
struct Candidate {
    j: usize,
    priority: i64,
    /// Preemptible for having started out of order under BACKFILLPOLICY
    /// PREEMPT (else for being PREEMPTEE).
    backfilled: bool,
    /// Processor-seconds run so far: what a requeue loses.
    work: u64,
    nodes: Vec<NodeIdx>,
}

/// What preemption keeps during the passes.
pub(in crate::engine) struct Preempting {
    how: ActionKind,
    /// BACKFILLPOLICY PREEMPT: a job that would be given a reservation
    /// preempts, and jobs started out of priority order are preemptible.
    pub backfill: bool,
    /// Running PREEMPTEE jobs in the order preemption takes them, found
    /// when a preemptor first needs them.
    candidates: Option<Vec<Candidate>>,
    /// Preemptions made: (preempted job, preemptor job), job indices.
    pub made: Vec<(usize, usize)>,
    /// Suspended jobs resumed (job indices).
    pub resumed: Vec<usize>,
    /// Why a preemptor could not preempt, by job index.
    pub notes: Vec<(usize, String)>,
}

/// A profile with some jobs preempted, and where the preemptor goes in it.
type Trial = (Profile, Vec<(NodeIdx, u32)>);

/// Sets of one job are tried among this many candidates at most, pairs
/// among the first [`PAIRS`].
const SINGLES: usize = 64;
const PAIRS: usize = 16;

impl Preempting {
    /// Preemption for an iteration, when some job can preempt and
    /// scheduling is not stopped.
    pub fn new(cfg: &Config, stopped: bool) -> Option<Box<Preempting>> {
        (!stopped && preemption_configured(cfg)).then(|| {
            Box::new(Preempting {
                how: ActionKind::preemption(cfg.params.preempt_policy),
                backfill: cfg.params.backfill_policy == BackfillPolicy::Preempt,
                candidates: None,
                made: Vec::new(),
                resumed: Vec::new(),
                notes: Vec::new(),
            })
        })
    }

    /// The plan's actions: the preemptions, then the resumptions.
    pub fn actions(&self, jobs: &[Job]) -> Vec<Action> {
        let pre = self.made.iter().map(|&(j, by)| Action {
            kind: self.how,
            job: jobs[j].id.clone(),
            by: jobs[by].id.clone(),
        });
        let res = self.resumed.iter().map(|&j| Action {
            kind: ActionKind::Resume,
            job: jobs[j].id.clone(),
            by: String::new(),
        });
        pre.chain(res).collect()
    }
}

/// The walltime left to a job this scheduler suspended, from its record.
fn remaining(cfg: &Config, job: &Job, rec: &Preemption) -> Secs {
    (build::walltime(cfg, job) - rec.ran).max(crate::profile::OVERRUN_REMAINDER)
}

impl<'a, P: Placer<'a>> Passes<'_, P> {
    /// Resumes, in job order, the jobs this scheduler suspended whose
    /// processors are free on their nodes for the rest of their walltime
    /// (reservations that exclude them respected).
    pub(super) fn resume_suspended(&mut self) {
        let Some(mut pre) = self.preempt.take() else {
            return;
        };
        let cx = self.p.cx();
        let (cfg, now) = (cx.cfg, cx.now);
        let ours: Vec<(usize, Secs)> = (0..cx.jobs.len())
            .filter(|&j| cx.jobs[j].state == JobState::Suspended)
            .filter_map(|j| {
                let rec = self.state.preempted.get(&cx.jobs[j].id)?;
                rec.suspended.then(|| (j, remaining(cfg, &cx.jobs[j], rec)))
            })
            .collect();
        for (j, rest) in ours {
            let cx = self.p.cx();
            let job = &cx.jobs[j];
            let Some(nodes) = job_nodes(cx, job) else {
                continue;
            };
            let end = now.saturating_add(rest);
            let adm = crate::reservation::acl::JobAdmission::new(&cx.view.table, job);
            let free = nodes.iter().all(|&(n, tasks)| {
                let f = cx.view.profile.free(n, now, end, &adm);
                f.procs as u64 >= job.task.procs as u64 * tasks as u64
            });
            drop(adm);
            if !free {
                continue;
            }
            let cx = self.p.cx_mut();
            let mut profile = cx.view.profile.clone();
            let placed = replace(&mut profile, cx, j, JobState::Running, (now, end));
            if !placed {
                continue;
            }
            cx.view.profile = profile;
            let touched: Vec<NodeIdx> = nodes.iter().map(|a| a.0).collect();
            self.p.freed(&touched);
            pre.resumed.push(j);
        }
        self.preempt = Some(pre);
    }

    /// Job `i` (an idle index) cannot start now: when it is a preemptor
    /// (or, under BACKFILLPOLICY PREEMPT, `slot`: it would be given a
    /// reservation), preempts what it needs and starts it on the freed
    /// resources (`out_of_order`: a job of higher priority waits). True
    /// when it started.
    pub(super) fn preempt_for(&mut self, i: usize, out_of_order: bool, slot: bool) -> bool {
        let Some(mut pre) = self.preempt.take() else {
            return false;
        };
        let started = self.try_preempt(&mut pre, i, out_of_order, slot);
        self.preempt = Some(pre);
        started
    }

    fn try_preempt(
        &mut self,
        pre: &mut Preempting,
        i: usize,
        out_of_order: bool,
        slot: bool,
    ) -> bool {
        let cx = self.p.cx();
        let pj = cx.idle[i].j;
        let preemptor = (pre.backfill && slot) || Roles::of(cx.cfg, &cx.jobs[pj]).preemptor;
        if !preemptor || self.p.fits_now(i) {
            return false;
        }
        if pre.candidates.is_none() {
            pre.candidates = Some(self.candidates());
        }
        let prio = self.p.cx().idle[i].priority;
        // (Jobs resumed in this iteration are not candidates: they were
        // suspended when the candidates were taken.)
        let taken = |j: usize| pre.made.iter().any(|m| m.0 == j);
        let all = pre.candidates.as_deref().unwrap_or_default();
        // A job backfilled past the holder of a timeslot yields it at equal
        // priority too: it was passed, and priorities tie often.
        let lower =
            |c: &Candidate| c.priority < prio || (slot && c.backfilled && c.priority == prio);
        let eligible: Vec<&Candidate> = all.iter().filter(|c| lower(c) && !taken(c.j)).collect();
        if eligible.is_empty() {
            let what = if pre.backfill {
                "no running preemptible job (PREEMPTEE, or started out of order under BACKFILLPOLICY PREEMPT) has a lower priority"
            } else {
                "no running PREEMPTEE job has a lower priority"
            };
            pre.notes.push((pj, what.to_string()));
            return false;
        }
        // All of them at once first: when even that frees too little, no
        // set does.
        if self.trial(pre.how, i, &eligible).is_none() {
            pre.notes.push((
                pj,
                format!(
                    "preempting every preemptible running job of lower priority ({}) would not free enough",
                    eligible.len()
                ),
            ));
            return false;
        }
        let chosen = self.choose(pre.how, i, &eligible);
        let Some((set, (profile, alloc))) = chosen else {
            return false;
        };
        let (how, now) = (pre.how, self.p.cx().now);
        let nodes: Vec<NodeIdx> = set.iter().flat_map(|c| c.nodes.iter().copied()).collect();
        let cx = self.p.cx_mut();
        let before = std::mem::replace(&mut cx.view.profile, profile);
        self.p.freed(&nodes);
        let wall = self.p.cx().idle[i].wall;
        if !self.p.commit(i, (now, now.saturating_add(wall)), &alloc) {
            self.p.cx_mut().view.profile = before;
            self.p.freed(&nodes);
            return false;
        }
        let cx = self.p.cx();
        if self.throttled && how != ActionKind::Suspend {
            let default_wall = cx.cfg.params.system_default_job_walltime.0;
            for c in &set {
                let job = &cx.jobs[c.j];
                let t = Totals::of_job(job, now, default_wall, &cx.view.cluster.total);
                self.usage.remove_active(job, &t);
            }
        }
        let after: Vec<String> = set.iter().map(|c| cx.jobs[c.j].id.clone()).collect();
        pre.made.extend(set.iter().map(|c| (c.j, pj)));
        self.note_start(i, out_of_order, alloc);
        if let Some(mut s) = self.started.get(&pj).cloned() {
            s.after = after;
            self.started.insert(pj, s);
        }
        true
    }

    /// Running PREEMPTEE jobs (and, under BACKFILLPOLICY PREEMPT, those
    /// still preemptible for having started out of order), in the order
    /// preemption takes them: lowest priority first, then least work lost,
    /// then job order.
    fn candidates(&self) -> Vec<Candidate> {
        let cx = self.p.cx();
        let now = cx.now;
        let ctx = crate::priority::PriorityContext {
            now,
            cfg: cx.cfg,
            total: cx.view.cluster.total,
            fairshare: &self.state.fairshare,
        };
        let mut v: Vec<Candidate> = (0..cx.jobs.len())
            .filter_map(|j| {
                let job = &cx.jobs[j];
                // A job that starts in this very second (an operator's
                // runjob, or a start an iteration of the same second made)
                // is not preempted: it was placed just now, on purpose.
                let start = job.start_time.filter(|&s| s < now)?;
                let backfilled = self.state.preemptible.contains_key(&job.id);
                if job.state != JobState::Running
                    || !(backfilled || Roles::of(cx.cfg, job).preemptee)
                {
                    return None;
                }
                let nodes = job_nodes(cx, job)?;
                let waited = (start - job.submit_time).max(0);
                let (priority, _) = crate::priority::job_priority_value(&ctx, job, waited);
                Some(Candidate {
                    j,
                    priority,
                    backfilled,
                    work: job.procs().saturating_mul((now - start).max(0) as u64),
                    nodes: nodes.iter().map(|a| a.0).collect(),
                })
            })
            .collect();
        v.sort_by_key(|c| (c.priority, c.work, c.j));
        v
    }

    /// The set of `eligible` to preempt for job `i` (see the module
    /// notes), with its [`Passes::trial`].
    fn choose<'c>(
        &mut self,
        how: ActionKind,
        i: usize,
        eligible: &[&'c Candidate],
    ) -> Option<(Vec<&'c Candidate>, Trial)> {
        for c in eligible.iter().take(SINGLES) {
            if let Some(p) = self.trial(how, i, &[c]) {
                return Some((vec![*c], p));
            }
        }
        let k = eligible.len().min(PAIRS);
        for a in 0..k {
            for b in a + 1..k {
                let pair = [eligible[a], eligible[b]];
                if let Some(p) = self.trial(how, i, &pair) {
                    return Some((pair.to_vec(), p));
                }
            }
        }
        let mut set: Vec<&Candidate> = Vec::new();
        let mut fits = None;
        for c in eligible {
            set.push(c);
            fits = self.trial(how, i, &set);
            if fits.is_some() {
                break;
            }
        }
        // The last one added is needed (the set before it failed).
        for x in (0..set.len().saturating_sub(1)).rev() {
            let mut fewer = set.clone();
            fewer.remove(x);
            if let Some(t) = self.trial(how, i, &fewer) {
                set = fewer;
                fits = Some(t);
            }
        }
        Some((set, fits?))
    }

    /// The profile with `set` preempted and job `i`'s nodes there, when
    /// it then fits now.
    fn trial(&mut self, how: ActionKind, i: usize, set: &[&Candidate]) -> Option<Trial> {
        let cx = self.p.cx_mut();
        let mut profile = cx.view.profile.clone();
        for c in set {
            let job = &cx.jobs[c.j];
            if how == ActionKind::Suspend {
                let window = build::active_window(cx.cfg, job, cx.now, &self.state.preempted);
                replace(&mut profile, cx, c.j, JobState::Suspended, window);
            } else {
                for &n in &c.nodes {
                    profile.remove_job(n, c.j as JobIdx);
                }
            }
        }
        std::mem::swap(&mut cx.view.profile, &mut profile);
        let alloc = cx.allocation(i, cx.now, None);
        std::mem::swap(&mut cx.view.profile, &mut profile);
        Some((profile, alloc?))
    }

    /// Under BACKFILLPOLICY PREEMPT, before the priority pass: a job
    /// started out of order stays preemptible while it is active and some
    /// eligible waiting job has at least the priority it had when it
    /// started; once every one has less, it passed nobody who still waits
    /// (Maui's `MQueueScheduleIJobs`: "backfill job no longer
    /// preemptible"; priorities in whole units tie often, and a job of
    /// equal priority may have been passed). Without that policy no job
    /// is.
    pub(super) fn refresh_preemptible(&mut self) {
        if self.state.preemptible.is_empty() {
            return;
        }
        let cx = self.p.cx();
        if cx.cfg.params.backfill_policy != BackfillPolicy::Preempt {
            self.state.preemptible.clear();
            return;
        }
        let top = cx
            .idle
            .iter()
            .filter(|x| x.blocked.is_none())
            .map(|x| x.priority)
            .max();
        let jobs = cx.jobs;
        self.state.preemptible.retain(|id, at_start| {
            let active = jobs
                .binary_search_by(|j| crate::engine::job_id_cmp(&j.id, id))
                .is_ok_and(|k| jobs[k].state.is_active());
            active && top.is_some_and(|t| *at_start <= t)
        });
    }

    /// Brings the remembered preemptions up to date with this iteration:
    /// records of jobs the resource manager no longer has are forgotten,
    /// the preemptions and resumptions made are noted, and under
    /// BACKFILLPOLICY PREEMPT the jobs started out of order become
    /// preemptible.
    pub(super) fn record_preemptions(&mut self) {
        let cx = self.p.cx();
        let (jobs, now) = (cx.jobs, cx.now);
        if !self.state.preempted.is_empty() {
            self.state.preempted.retain(|id, _| {
                jobs.binary_search_by(|j| crate::engine::job_id_cmp(&j.id, id))
                    .is_ok()
            });
        }
        let Some(pre) = self.preempt.as_deref() else {
            return;
        };
        if pre.backfill {
            for x in &cx.idle {
                if self.started.get(&x.j).is_some_and(|s| s.backfill) {
                    self.state.preemptible.insert(x.id.to_string(), x.priority);
                }
            }
        }
        for &(j, by) in &pre.made {
            let job = &jobs[j];
            let start = job.start_time.unwrap_or(now);
            let rec = self
                .state
                .preempted
                .entry(job.id.clone())
                .or_insert_with(|| Preemption::first(job));
            let since = rec.resumed_at.map_or(start, |r| r.max(start));
            let ran = (now - since).max(0);
            rec.by = jobs[by].id.clone();
            rec.at = now;
            rec.how = pre.how;
            rec.count += 1;
            rec.suspended = pre.how == ActionKind::Suspend;
            rec.resumed_at = None;
            match pre.how {
                // A suspended job resumes, a checkpointed one restarts,
                // where it stopped.
                ActionKind::Suspend | ActionKind::Checkpoint => rec.ran += ran,
                _ => {
                    rec.ran = 0;
                    rec.lost = rec
                        .lost
                        .saturating_add(job.procs().saturating_mul((now - start).max(0) as u64));
                }
            }
        }
        for &j in &pre.resumed {
            if let Some(rec) = self.state.preempted.get_mut(&jobs[j].id) {
                rec.suspended = false;
                rec.resumed_at = Some(now);
            }
        }
    }
}

/// An active job's nodes by index with its tasks there; `None` when it
/// has none or one the cluster does not know.
fn job_nodes(cx: &super::Ctx<'_>, job: &Job) -> Option<Vec<(NodeIdx, u32)>> {
    if job.allocation.is_empty() {
        return None;
    }
    job.allocation
        .iter()
        .map(|a| Some((cx.view.cluster.index(&a.node)?, a.tasks)))
        .collect()
}

/// Places active job `j` again in `profile` as `state` over `window`
/// (what a suspension or a resumption changes of what it holds); false
/// when it does not fit whole.
fn replace(
    profile: &mut Profile,
    cx: &super::Ctx<'_>,
    j: usize,
    state: JobState,
    window: (Time, Time),
) -> bool {
    let job = &cx.jobs[j];
    for a in &job.allocation {
        if let Some(n) = cx.view.cluster.index(&a.node) {
            profile.remove_job(n, j as JobIdx);
        }
    }
    build::place_active(profile, &cx.view.cluster, j as JobIdx, job, state, window)
}
