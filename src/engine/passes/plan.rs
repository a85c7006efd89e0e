//! Step 7: the plan. Every idle job with its decision or the reason it
//! waits, the reservations, and what a later poll may reuse.

use super::{AdmitAll, JobMap, Passes, Placer};
use crate::engine::plan::{JobPlan, Plan, PlanReservation, Reason, ReservedFor, Start, Stats};
use crate::engine::quiet::{quiet_allowed, Quiet};
use crate::engine::state::{JobReservation, NamedClaim};
use crate::engine::{build, job_id_cmp};
use crate::model::{NodeIdx, NodeTasks, Resources, Time};
use crate::profile::Profile;
use crate::reservation::{standing, ResKind};

/// Waiting jobs beyond this many (in priority order) get their reason from
/// a cheap aggregate check instead of a per-node look.
const REASON_DETAIL: usize = 2000;

impl<'a, P: Placer<'a>> Passes<'_, P> {
    pub(super) fn plan(&mut self, base: &Profile) -> Plan {
        let jobs = self.plan_jobs(base);
        let mut reservations = self.job_reservations();
        let cx = self.p.cx();
        for r in &cx.view.table {
            let kind = match &r.kind {
                ResKind::Admin => "User",
                ResKind::Standing { .. } => "Standing",
                ResKind::Job { .. } => "Job",
            };
            reservations.push(PlanReservation {
                id: r.id.clone(),
                kind: kind.into(),
                job: None,
                start: r.start,
                end: r.end,
                allocation: r
                    .claims
                    .iter()
                    .map(|c| NodeTasks {
                        node: cx.view.cluster.nodes[c.node as usize].name.clone(),
                        tasks: c.tasks,
                    })
                    .collect(),
            });
        }
        let stats = Stats {
            idle: cx.idle.len(),
            eligible: cx.idle.iter().filter(|x| x.blocked.is_none()).count(),
            running: cx.jobs.iter().filter(|j| j.state.is_active()).count(),
            started_priority: self.started.values().filter(|s| !s.backfill).count(),
            started_backfill: self.started.values().filter(|s| s.backfill).count(),
            job_reservations: self.reserved.len(),
            preempted: self.preempt.as_ref().map_or(0, |p| p.made.len()),
            resumed: self.preempt.as_ref().map_or(0, |p| p.resumed.len()),
        };
        let mut starts: Vec<Start> = cx
            .idle
            .iter()
            .filter_map(|x| self.started.get(&x.j).cloned())
            .collect();
        let mut actions = Vec::new();
        if let Some(pre) = self.preempt.as_deref() {
            actions = pre.actions(cx.jobs);
            after_preemptions(&mut starts, cx.jobs, &pre.made);
        }
        Plan {
            now: cx.now,
            starts,
            jobs,
            reservations,
            actions,
            dropped_actions: Vec::new(),
            stats,
        }
    }

    /// Every idle job in priority order: started, or why it waits.
    fn plan_jobs(&mut self, base: &Profile) -> Vec<JobPlan> {
        let now = self.p.cx().now;
        // Only jobs past the detail budget need it: a walk over every node,
        // done at most once and only in iterations with such a queue.
        let mut total_free_now: Option<u64> = None;
        // What is free now after this plan's starts, for the jobs that
        // wait only for priority: found once, when one does.
        let mut free_after: Option<FreeNow> = None;
        let mut plan_jobs = Vec::with_capacity(self.idle().len());
        let mut detail_budget = REASON_DETAIL;
        let bypass = self.bypass_by_job();
        for i in 0..self.idle().len() {
            let (j, blocked) = (self.idle()[i].j, self.idle()[i].blocked.clone());
            let started = self.started.contains_key(&j);
            let reason = if started {
                None
            } else if let Some(r) = blocked {
                Some(r)
            } else if let Some(r) = self.soft_deferred.get(&i) {
                Some(r.clone())
            } else if detail_budget > 0 {
                detail_budget -= 1;
                if self.wait_reasons {
                    match self.p.why_waiting(i, base) {
                        Reason::Priority { reserved_for: None } => {
                            let free = free_after.get_or_insert_with(|| self.free_now());
                            Some(Reason::Priority {
                                reserved_for: self.reserved_for(i, free),
                            })
                        }
                        other => Some(other),
                    }
                } else {
                    // Where the full reason would be `NoFit` for an ADVRES
                    // naming nothing usable, the reader of rejections
                    // still gets it.
                    let no_fit = self.p.cx().advres_no_fit(self.idle()[i].j);
                    Some(no_fit.unwrap_or_else(|| self.cheap_reason(i, base, &mut total_free_now)))
                }
            } else {
                Some(self.cheap_reason(i, base, &mut total_free_now))
            };
            let x = &self.idle()[i];
            let res = self.reserved.get(&x.j);
            let preemption = match (&reason, self.preempt.as_deref()) {
                (Some(_), Some(p)) => (p.notes.iter()).find(|n| n.0 == x.j).map(|n| n.1.clone()),
                _ => None,
            };
            plan_jobs.push(JobPlan {
                job: x.id.to_string(),
                priority: x.priority,
                started,
                reason,
                estimated_start: if started { Some(now) } else { res.map(|r| r.0) },
                reservation: res.map(|_| x.id.to_string()),
                bypass_count: bypass.get(&x.j).copied().unwrap_or(x.bypass_count),
                eff_queue_time: x.eff_queue_time,
                components: x.contributions,
                preemption,
            });
        }
        plan_jobs
    }

    /// The reason of a waiting job past the detail budget: Resources when
    /// it asks for more processors than the cluster has free now
    /// (`total_free_now`, found on first use), else Priority.
    fn cheap_reason(&self, i: usize, base: &Profile, total_free_now: &mut Option<u64>) -> Reason {
        let cx = self.p.cx();
        let free =
            *total_free_now.get_or_insert_with(|| free_procs_now(base, &cx.view.cluster, cx.now));
        match self.idle()[i].procs > free {
            true => Reason::Resources,
            false => Reason::PRIORITY,
        }
    }

    /// What is free now after the plan's starts ([`FreeNow`]).
    fn free_now(&self) -> FreeNow {
        let cx = self.p.cx();
        let (profile, cluster, now) = (&cx.view.profile, &cx.view.cluster, cx.now);
        let open = |&(n, _): &(NodeIdx, u32)| {
            let free = profile.free(n, now, now + 1, &AdmitAll);
            (cluster.nodes[n as usize].usable && !free.is_zero()).then_some((n, free))
        };
        let mut reservations: Vec<LaterReservation> = self
            .reserved
            .iter()
            .filter(|(_, r)| r.0 > now)
            .map(|(&j, (start, _, nodes))| {
                (*start, j, nodes.iter().filter_map(open).collect::<Vec<_>>())
            })
            .filter(|r| !r.2.is_empty())
            .collect();
        reservations.sort_by_key(|r| (r.0, r.1));
        FreeNow {
            procs: std::cell::OnceCell::new(),
            reservations,
        }
    }

    /// The job reservation that keeps idle job `i` (waiting for priority)
    /// off resources free now: of the nodes it may use, one with room for
    /// its task now that a reservation made for another job takes before
    /// the job's walltime would end; the reservation beginning first. None
    /// when the processors free now are too few for the job anyway: the
    /// starts took them.
    fn reserved_for(&self, i: usize, free: &FreeNow) -> Option<ReservedFor> {
        let cx = self.p.cx();
        let it = &cx.idle[i];
        if free.reservations.is_empty() {
            return None;
        }
        let (now, end) = (cx.now, cx.now.saturating_add(it.wall));
        let (profile, cluster) = (&cx.view.profile, &cx.view.cluster);
        let adm = cx.adm(it.j);
        let task = &it.req.task;
        let (from, j, _) =
            free.reservations
                .iter()
                .take_while(|r| r.0 < end)
                .find(|(_, j, nodes)| {
                    *j != it.j
                        && nodes.iter().any(|&(n, ref free)| {
                            // What is free to anyone bounds what the job may use.
                            task.fits_in(free)
                                && it
                                    .req
                                    .check_node_any_state(&cluster.nodes[n as usize])
                                    .is_ok()
                                && profile.tasks_fit(n, now, now + 1, task, &adm)
                                    > profile.tasks_fit(n, now, end, task, &adm)
                        })
                })?;
        let procs = free
            .procs
            .get_or_init(|| free_procs_now(profile, cluster, now));
        if it.procs > *procs {
            return None;
        }
        Some(ReservedFor {
            job: cx.jobs[*j].id.clone(),
            from: *from,
        })
    }

    /// The bypass counts the state keeps, by job index. Few jobs have one:
    /// then each is found among the jobs (in job order) rather than every
    /// idle job looked up by its id.
    fn bypass_by_job(&self) -> JobMap<u32> {
        let (cx, kept) = (self.p.cx(), &self.state.bypass);
        let mut by_job = JobMap::with_keys(cx.jobs.len());
        if kept.len() * 16 > cx.idle.len() {
            for x in &cx.idle {
                if let Some(&n) = kept.get(x.id) {
                    by_job.insert(x.j, n);
                }
            }
            return by_job;
        }
        for (id, &n) in kept {
            let first = cx.jobs.partition_point(|j| job_id_cmp(&j.id, id).is_lt());
            for j in (first..cx.jobs.len()).take_while(|&j| cx.jobs[j].id == *id) {
                by_job.insert(j, n);
            }
        }
        by_job
    }

    /// The job reservations made, for the plan; the state keeps them.
    fn job_reservations(&mut self) -> Vec<PlanReservation> {
        let cx = self.p.cx();
        let mut reservations: Vec<PlanReservation> = Vec::new();
        let mut kept = Vec::with_capacity(self.reserved.len());
        for (j, (s, e, nodes)) in self.reserved.iter() {
            let job = &cx.jobs[*j];
            reservations.push(PlanReservation {
                id: job.id.clone(),
                kind: "Job".into(),
                job: Some(job.id.clone()),
                start: *s,
                end: *e,
                allocation: cx.named(nodes),
            });
            let task = cx
                .idle
                .iter()
                .find(|x| x.j == *j)
                .map(|x| x.req.task)
                .unwrap_or(job.task);
            kept.push(JobReservation {
                job: job.id.clone(),
                start: *s,
                end: *e,
                claims: nodes
                    .iter()
                    .map(|&(n, t)| {
                        let resources = task.checked_mul(t).unwrap_or(task);
                        NamedClaim {
                            node: cx.view.cluster.nodes[n as usize].name.clone(),
                            tasks: t,
                            gres: cx.view.cluster.gres_by_name(&resources.gres),
                            resources,
                        }
                    })
                    .collect(),
            });
        }
        self.reservations_carried = *self.state.job_reservations == kept;
        self.state.job_reservations = std::sync::Arc::new(kept);
        reservations
    }

    /// What a poll over the same jobs may reuse ([`Quiet`]), when this
    /// iteration started nothing. `eligible0`: eligibility before the
    /// passes.
    pub(super) fn quiet(&self, eligible0: &[bool], statics: Vec<(usize, bool)>) -> Option<Quiet> {
        let cx = self.p.cx();
        let (cfg, now) = (cx.cfg, cx.now);
        if !(self.started.is_empty() && quiet_allowed(cfg, self.state)) {
            return None;
        }
        // The profile's next change: a running job's window ends (those past
        // their walltime hold a window that moves with `now`: no memo) or a
        // reservation made now begins (one beginning now: no memo either).
        let until = cx
            .jobs
            .iter()
            .filter(|j| j.state.is_active())
            .map(|j| {
                j.start_time
                    .unwrap_or(now)
                    .saturating_add(build::walltime(cfg, j).max(0))
            })
            .chain(self.reserved.values().map(|r| r.0))
            .min()
            .unwrap_or(Time::MAX);
        // Standing reservations: their instances stay as they are until
        // one begins or ends or a new one is rolled in; the iteration
        // placed their floating instances around the job reservations it
        // was carrying, so a poll places them the same only when it made
        // the same ones; and Maui's search treats the nodes of an instance
        // that just ended apart, which a poll no longer does.
        let standing = &cfg.standing;
        let until = match standing::next_change(standing, &cfg.zone, now) {
            Some(t) => until.min(t),
            None => until,
        };
        let settled = standing.is_empty()
            || (self.reservations_carried && cx.view.profile.just_ended().is_empty());
        if !(until > now && settled) {
            return None;
        }
        let head_end = self.decisive.map_or(0, |d| d + 1);
        let eligible_at = |r: std::ops::Range<usize>| -> Vec<usize> {
            r.filter(|&i| eligible0[i]).map(|i| cx.idle[i].j).collect()
        };
        let mut eligible = eligible_at(0..cx.idle.len());
        eligible.sort_unstable();
        Some(Quiet {
            head: eligible_at(0..head_end),
            eligible,
            statics,
            until,
        })
    }
}

/// What is free now once the plan's starts are placed, for the reasons
/// of the jobs that wait for priority.
struct FreeNow {
    /// Processors free on the usable nodes (found when a job asks).
    procs: std::cell::OnceCell<u64>,
    /// The job reservations beginning later, by start.
    reservations: Vec<LaterReservation>,
}

/// A job reservation beginning after now: its start, its job, and its
/// nodes that have something free now, with what is free there to any job.
type LaterReservation = (Time, usize, Vec<(NodeIdx, Resources)>);

/// Processors free on the usable nodes over `[now, now + 1)` in `profile`.
fn free_procs_now(profile: &Profile, cluster: &crate::model::Cluster, now: Time) -> u64 {
    (0..cluster.nodes.len() as NodeIdx)
        .filter(|&n| cluster.nodes[n as usize].usable)
        .map(|n| profile.free(n, now, now + 1, &AdmitAll).procs as u64)
        .sum()
}

/// Every start on a node a preempted job frees waits for that preemption
/// (`Start::after`): where the resource manager refuses it, the resources
/// are not free. `made`: (preempted job, preemptor), job indices.
fn after_preemptions(starts: &mut [Start], jobs: &[crate::model::Job], made: &[(usize, usize)]) {
    for s in starts {
        for &(j, _) in made {
            let id = &jobs[j].id;
            let shares = jobs[j]
                .allocation
                .iter()
                .any(|a| s.allocation.iter().any(|b| b.node == a.node));
            if shares && !s.after.contains(id) {
                s.after.push(id.clone());
            }
        }
    }
}
