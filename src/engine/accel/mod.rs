//! The accelerated placer: the answers of `engine::reference`, found
//! without walking every node at every question.
//!
//! Every cache, index and shortlist of the iteration lives here:
//! - [`Feasible`]: the nodes meeting a requirement signature, as a bit set;
//! - the now-indexes ([`NowIndex`]: bounds on what can start now, for any
//!   job and for jobs no reservation admits, and the base profile's for
//!   reasons) with `unreserved`, which of the two a job may use;
//! - the start shortlist ([`shortlist`]);
//! - the [`crate::profile::FitCache`] of earliest starts;
//! - dominance (`failed`): a job needing at least as much as one that
//!   failed to start cannot start either, for the request shapes whose fit
//!   is monotone ([`crate::allocation::TaskRequest::fit_is_monotone`]);
//! - [`Carried`]: what is kept from one iteration to the next, with the
//!   per-job derivations of [`memo`].
//!
//! Debug builds check many of these against plain recomputation, and
//! `engine::tests::the_reference_decides_alike` demands the plans of
//! `engine::reference`.

use super::avail::{NowIndex, Scope};
use super::build;
use super::passes::{AdmitAll, Ctx, Placer};
use super::plan::Reason;
use crate::allocation::{allocate_checked, effective_policy, Candidate};
use crate::config::Config;
use crate::model::{Cluster, NodeIdx, Resources, Secs, Time};
use crate::profile::{Admits, Fit, FitRequest, Profile};
use crate::reservation::acl::JobAdmission;
use std::collections::BTreeSet;
use std::sync::Arc;

mod feasible;
pub(super) mod memo;
pub(super) mod shortlist;

pub(super) use feasible::Feasible;

/// The accelerated [`Placer`].
pub(super) struct Iter<'a> {
    cx: Ctx<'a>,
    feasible: Feasible,
    /// Smallest failed request per requirement signature id, with the
    /// [`NodeSet`] id of the nodes it may use: a job needing at least as
    /// much as a failed one, on the same nodes, cannot start either, since
    /// resources only shrink during the passes. (The signature leaves out
    /// node minimums such as a trace's required node memory, which the
    /// node set holds.)
    failed: Vec<Vec<(u64, Resources, Secs, u32)>>,
    /// Some request failed (some entry of `failed` is not empty).
    any_failed: bool,
    /// Bounds on what can start now, kept up to date as jobs are placed:
    /// for any job, and for jobs no reservation admits (`None`: without
    /// reservations, the same as `now_ix`). Shared with `base_ix` (and the
    /// running profile) until a start now changes them: most iterations
    /// start nothing, and the copy is the size of the cluster.
    now_ix: Arc<NowIndex>,
    open_ix: Option<Arc<NowIndex>>,
    /// Per idle job: 1 when no reservation of the table admits it over
    /// [now, now + walltime), 2 when one may, 0 not yet known.
    unreserved: Vec<std::cell::Cell<u8>>,
    /// The same for the profile before the passes (reasons).
    base_ix: Arc<NowIndex>,
    /// The engine's [`Carried::fits`], for the iteration.
    fits: crate::profile::FitCache,
    /// Node orders for shortlists, carried with the cluster.
    orders: shortlist::NodeOrders,
    /// Nodes reservations claim anything on, once a shortlist needs them.
    claimed: Option<shortlist::Claimed>,
    /// The shortlists' node orders, per policy, once one needs them.
    walks: Vec<shortlist::Walk>,
}

impl<'a> Iter<'a> {
    /// The placer over `cx` (`now_ix`, `open_ix`: the profile's indexes
    /// over all and over unclaimed capacity, when they were carried), with
    /// what `carried` kept for its cluster.
    pub(super) fn new(
        cx: Ctx<'a>,
        (now_ix, open_ix): (Option<Arc<NowIndex>>, Option<Arc<NowIndex>>),
        feasible: Feasible,
        signatures: usize,
        carried: &mut Carried,
    ) -> Self {
        let view = &cx.view;
        let now_ix = match now_ix {
            Some(ix) => ix,
            None => Arc::new(NowIndex::new(
                &view.cluster,
                &view.profile,
                cx.now,
                Scope::All,
            )),
        };
        let base_ix = Arc::clone(&now_ix);
        let open_ix = (!view.table.is_empty()).then(|| {
            open_ix.unwrap_or_else(|| {
                Arc::new(NowIndex::new(
                    &view.cluster,
                    &view.profile,
                    cx.now,
                    Scope::Unclaimed,
                ))
            })
        });
        let unreserved = vec![std::cell::Cell::new(0u8); cx.idle.len()];
        let orders = carried.orders_for(&view.cluster);
        Iter {
            cx,
            feasible,
            failed: vec![Vec::new(); signatures],
            any_failed: false,
            now_ix,
            open_ix,
            unreserved,
            base_ix,
            fits: std::mem::take(&mut carried.fits),
            orders,
            claimed: None,
            walks: Vec::new(),
        }
    }

    /// Hands back what the engine carries to `carried`, with the world
    /// after the passes and the node sets.
    pub(super) fn finish(self, carried: &mut Carried) -> (build::View, Feasible) {
        carried.fits = self.fits;
        let cluster = std::sync::Arc::clone(&self.cx.view.cluster);
        carried.orders = Some((cluster, self.orders));
        (self.cx.view, self.feasible)
    }

    /// `check_node` of job `i` on `node`, by the job's node set: up and
    /// usable, and meeting the requirements.
    fn suitable(&self, i: usize, node: NodeIdx) -> bool {
        self.cx.view.cluster.nodes[node as usize].usable
            && self.feasible.set(self.cx.idle[i].nodes).contains(node)
    }

    /// Candidate nodes for job `i` over [start, end), or `None` when they
    /// hold fewer than `need` tasks in all. The tasks each node can hold are
    /// counted first, and the rest of a candidate (affinity, gap,
    /// occupants) is looked up only when the count reaches `need`: most
    /// attempts fail it.
    fn candidates(
        &self,
        i: usize,
        (start, end): (Time, Time),
        need: u64,
        only: Option<&[NodeIdx]>,
    ) -> Option<Vec<Candidate>> {
        let it = &self.cx.idle[i];
        let adm = self.cx.adm(it.j);
        let Some(nodes) = self.nodes_with_room(i, (start, end), &adm, only) else {
            return (need == 0).then(Vec::new);
        };
        let need_gap = self.cx.needs_gap(&self.cx.jobs[it.j]);
        let mut fits: Vec<(NodeIdx, u32, Resources)> = Vec::new();
        let mut sum = 0u64;
        for (node, tasks, free) in nodes {
            sum += tasks as u64;
            fits.push((node, tasks, free));
        }
        if sum < need {
            return None;
        }
        let window = (start, end);
        Some(
            fits.into_iter()
                .map(|(node, tasks, free)| {
                    self.cx
                        .candidate(i, node, (tasks, free), window, &adm, need_gap, true)
                })
                .collect(),
        )
    }

    /// Σ tasks of job `i` over the nodes [`Iter::candidates`] would offer
    /// for [start, end), counted up to `need` (the same filters, without
    /// building the candidates): most attempts fail this count, and it
    /// spares them the affinity and occupant look-ups.
    fn tasks_available(&self, i: usize, start: Time, end: Time, need: u64) -> u64 {
        let adm = self.cx.adm(self.cx.idle[i].j);
        let Some(nodes) = self.nodes_with_room(i, (start, end), &adm, None) else {
            return 0;
        };
        let mut sum = 0u64;
        for (_, tasks, _) in nodes {
            sum += tasks as u64;
            if sum >= need {
                break;
            }
        }
        sum
    }

    /// The nodes job `i` may use over [start, end) that hold at least one
    /// of its tasks then, with how many and their free resources, in node
    /// order; `None` when the reservation it asks for (ADVRES) does not
    /// exist. What [`Iter::candidates`] and [`Iter::tasks_available`] both
    /// walk. `only`: the caller knows that the nodes with room are among
    /// these (sorted).
    fn nodes_with_room<'b>(
        &'b self,
        i: usize,
        (start, end): (Time, Time),
        adm: &'b JobAdmission<'b>,
        only: Option<&'b [NodeIdx]>,
    ) -> Option<impl Iterator<Item = (NodeIdx, u32, Resources)> + 'b> {
        let it = &self.cx.idle[i];
        let advres = match self.cx.advres_nodes(&self.cx.jobs[it.j]) {
            Some(Ok(n)) => Some(n),
            Some(Err(_)) => return None,
            None => None,
        };
        // A job starting now can only use nodes with room for a task now.
        let now = start == self.cx.now;
        let ix = self.index_for(i);
        let all = 0..self.cx.view.cluster.nodes.len() as NodeIdx;
        let nodes: Box<dyn Iterator<Item = NodeIdx> + 'b> = match (only, &it.req.hosts, now) {
            (Some(o), _, _) => Box::new(o.iter().copied()),
            (None, Some(h), _) => Box::new(h.iter().copied()),
            (None, None, true) => Box::new(ix.open(&it.req.task).iter().copied()),
            (None, None, false) => Box::new(all),
        };
        Some(nodes.filter_map(move |node| {
            if now && !it.req.task.fits_in(&ix.free_now(node)) {
                return None;
            }
            if !self.suitable(i, node) || advres.as_ref().is_some_and(|a| !a.contains(&node)) {
                return None;
            }
            let free = self.cx.view.profile.free(node, start, end, adm);
            let tasks = it.req.task.times_fits_in(&free);
            (tasks > 0).then_some((node, tasks, free))
        }))
    }

    /// The index bounding what job `i` may use from now: unclaimed
    /// capacity only when no reservation admits it.
    fn index_for(&self, i: usize) -> &NowIndex {
        match &self.open_ix {
            Some(open) if !self.admitted_anywhere(i) => open,
            _ => &self.now_ix,
        }
    }

    /// Did a job asking for no more than job `i`, with the same
    /// requirement signature and the same usable nodes, already fail to
    /// start?
    fn dominated(&self, i: usize) -> bool {
        if !self.any_failed {
            return false;
        }
        let it = &self.cx.idle[i];
        it.req.fit_is_monotone()
            && self.failed[it.sig as usize]
                .iter()
                .any(|&(tasks, task, wall, nodes)| {
                    nodes == it.nodes
                        && it.req.tasks as u64 >= tasks
                        && task.fits_in(&it.req.task)
                        && it.wall >= wall
                })
    }

    fn note_failure(&mut self, i: usize) {
        let it = &self.cx.idle[i];
        if !it.req.fit_is_monotone() {
            return;
        }
        let entry = (it.req.tasks as u64, it.req.task, it.wall, it.nodes);
        let v = &mut self.failed[it.sig as usize];
        if v.len() < 64 {
            v.push(entry);
            self.any_failed = true;
        }
    }
}

impl<'a> Placer<'a> for Iter<'a> {
    fn cx(&self) -> &Ctx<'a> {
        &self.cx
    }

    fn cx_mut(&mut self) -> &mut Ctx<'a> {
        &mut self.cx
    }

    /// False when job `i` certainly cannot start now (aggregate bound).
    fn may_fit_now(&self, i: usize) -> bool {
        let it = &self.cx.idle[i];
        self.index_for(i).may_fit(
            it.req.tasks,
            &it.req.task,
            self.cx.now.saturating_add(it.wall),
        )
    }

    /// [`Ctx::admitted_anywhere`] for job `i`, asked once per iteration.
    fn admitted_anywhere(&self, i: usize) -> bool {
        let c = &self.unreserved[i];
        if c.get() == 0 {
            c.set(if self.cx.admitted_anywhere(i) { 2 } else { 1 });
        }
        c.get() == 2
    }

    fn with_free_procs(&self) -> Option<&[NodeIdx]> {
        Some(self.now_ix.open(&Resources::procs(1)))
    }

    fn fits_now(&self, i: usize) -> bool {
        if !self.may_fit_now(i) {
            return false;
        }
        let now = self.cx.now;
        let end = now.saturating_add(self.cx.idle[i].wall);
        let need = self.cx.idle[i].req.tasks as u64;
        self.tasks_available(i, now, end, need) >= need
    }

    fn start_now(&mut self, i: usize) -> Option<Vec<(NodeIdx, u32)>> {
        if self.dominated(i) {
            return None;
        }
        let nodes = if self.may_fit_now(i) {
            self.place(i, self.cx.now, None)
        } else {
            None
        };
        if nodes.is_none() {
            self.note_failure(i);
        }
        nodes
    }

    fn earliest(
        &mut self,
        i: usize,
        req: &FitRequest,
        advres: Option<&BTreeSet<NodeIdx>>,
    ) -> Option<Fit> {
        let mut fits = std::mem::take(&mut self.fits);
        let adm = self.cx.adm(self.cx.idle[i].j);
        let fit = self.cx.view.profile.earliest_start_cached(
            req,
            &adm,
            |n| self.suitable(i, n) && advres.is_none_or(|a| a.contains(&n)),
            &mut fits,
        );
        self.fits = fits;
        fit
    }

    /// From the shortlist for a start now, else scoring the nodes with
    /// room ([`Iter::nodes_with_room`]).
    fn place(
        &mut self,
        i: usize,
        start: Time,
        only: Option<&[NodeIdx]>,
    ) -> Option<Vec<(NodeIdx, u32)>> {
        let (j, wall) = (self.cx.idle[i].j, self.cx.idle[i].wall);
        let end = start.saturating_add(wall);
        let immediate = start == self.cx.now;
        // The shortlist looks nodes up in `only` by a binary search: the
        // callers give it in node order ([`Placer::place`]).
        debug_assert!(only.is_none_or(|o| o.is_sorted()));
        let shortlisted = match immediate {
            true => self.allocate_now_shortlisted(i, only),
            false => shortlist::Shortlisted::Undecided,
        };
        let alloc = match shortlisted {
            shortlist::Shortlisted::Placed(a) => a,
            shortlist::Shortlisted::Fails => return None,
            shortlist::Shortlisted::Undecided => {
                let need = self.cx.idle[i].req.tasks as u64;
                let cands = self.candidates(i, (start, end), need, only)?;
                let policy = effective_policy(&self.cx.jobs[j], &self.cx.cfg.params);
                let cluster = &self.cx.view.cluster;
                let req = self.cx.idle[i].req;
                allocate_checked(req, &cands, cluster, policy, immediate, self.cx.local)?
            }
        };
        Placer::commit(self, i, (start, end), &alloc.nodes).then_some(alloc.nodes)
    }

    fn commit(&mut self, i: usize, window: (Time, Time), nodes: &[(NodeIdx, u32)]) -> bool {
        if !self.cx.commit(i, window, nodes) {
            return false;
        }
        // What is free now only changes with a start now; later
        // placements would only tighten the bounds, which stay bounds.
        if window.0 == self.cx.now {
            let profile = &self.cx.view.profile;
            for ix in std::iter::once(&mut self.now_ix).chain(&mut self.open_ix) {
                let ix = Arc::make_mut(ix);
                for &(node, _) in nodes {
                    ix.refresh(profile, node);
                }
                ix.maybe_resort();
            }
            self.update_walks(nodes);
        }
        true
    }

    fn capacity(&mut self, i: usize) -> u64 {
        let it = &self.cx.idle[i];
        let cluster = &self.cx.view.cluster;
        let (nodes, _, _) = self.feasible.nodes(it.nodes);
        nodes
            .iter()
            .map(|&n| {
                it.req
                    .task
                    .times_fits_in(&cluster.nodes[n as usize].configured) as u64
            })
            .sum()
    }

    fn why_waiting(&mut self, i: usize, base: &Profile) -> Reason {
        self.why_waiting_in(i, base)
    }

    /// What is free now changed on `nodes`, both ways: their bounds are
    /// found again, and a failed start no longer says anything of jobs
    /// asking for more (resources no longer only shrink).
    fn freed(&mut self, nodes: &[NodeIdx]) {
        let profile = &self.cx.view.profile;
        for ix in std::iter::once(&mut self.now_ix).chain(&mut self.open_ix) {
            let ix = Arc::make_mut(ix);
            for &node in nodes {
                ix.refresh(profile, node);
            }
            ix.resort_now();
        }
        let tasks: Vec<(NodeIdx, u32)> = nodes.iter().map(|&n| (n, 0)).collect();
        self.update_walks(&tasks);
        for f in &mut self.failed {
            f.clear();
        }
        self.any_failed = false;
    }
}

impl Iter<'_> {
    /// Why an eligible job waits: not enough resources at all, a
    /// reservation that excludes it, or higher-priority jobs.
    fn why_waiting_in(&self, i: usize, base: &Profile) -> Reason {
        let it = &self.cx.idle[i];
        if let Some(no_fit) = self.cx.advres_no_fit(it.j) {
            return no_fit;
        }
        let (start, end) = (self.cx.now, self.cx.now.saturating_add(it.wall));
        let adm = self.cx.adm(it.j);
        let need = it.req.tasks as u64;
        let task = it.req.task;
        let cluster = &self.cx.view.cluster;
        let suitable = |n: NodeIdx| self.suitable(i, n);
        // Tasks that fit over the window, counted up to `need`: only nodes
        // with something free now can hold any (a task asks for something).
        let count = |admits: &dyn Admits| -> u64 {
            let mut sum = 0u64;
            if task.is_zero() {
                for n in (0..cluster.nodes.len() as NodeIdx).filter(|&n| suitable(n)) {
                    sum += base.tasks_fit(n, start, end, &task, admits) as u64;
                }
                return sum;
            }
            for &n in self.base_ix.open(&task) {
                if !task.fits_in(&self.base_ix.free_now(n)) || !suitable(n) {
                    continue;
                }
                sum += base.tasks_fit(n, start, end, &task, admits) as u64;
                if sum >= need {
                    break;
                }
            }
            sum
        };
        if !self.base_ix.may_fit(it.req.tasks, &task, end) || count(&AdmitAll) < need {
            return Reason::Resources;
        }
        if count(&adm) < need {
            return self.cx.reserved_against(i, base, suitable);
        }
        Reason::PRIORITY
    }
}

/// What the engine carries from one iteration to the next besides its
/// state: shortcuts only, the decisions are those of an engine that keeps
/// none (`engine::tests::carrying_the_running_profile_decides_the_same`).
#[derive(Default)]
pub struct Carried {
    /// The profile of running jobs ([`build::RunningProfile`]).
    pub running: Option<build::RunningProfile>,
    /// What each node offers the jobs reserved for
    /// ([`crate::profile::Profile::earliest_start_cached`]).
    pub fits: crate::profile::FitCache,
    /// The node sets of requirement signatures, for the cluster they were
    /// found on (they depend on the nodes' configuration only).
    feasible: Option<(std::sync::Arc<Cluster>, Feasible)>,
    /// What ranking derived from each idle job (see `memo`).
    memo: Option<memo::JobMemo>,
    /// The node orders of start shortlists, for the cluster they were
    /// found on (they depend on the nodes' configuration only).
    orders: Option<(std::sync::Arc<Cluster>, shortlist::NodeOrders)>,
}

/// Requirement signatures [`Carried`] keeps at most (a site's distinct
/// host lists could otherwise accumulate for months).
const FEASIBLE_KEPT: usize = 4096;

impl Carried {
    /// The node sets carried for `cluster` (the same one), else none.
    fn feasible_for(&mut self, cluster: &std::sync::Arc<Cluster>) -> Feasible {
        match self.feasible.take() {
            Some((c, f))
                if std::sync::Arc::ptr_eq(&c, cluster) && f.sets.len() <= FEASIBLE_KEPT =>
            {
                f
            }
            _ => Feasible::default(),
        }
    }

    /// The node sets and the job memo carried for `cluster`, for ranking.
    pub(super) fn prepare(
        &mut self,
        cluster: &std::sync::Arc<Cluster>,
        cfg: &Config,
    ) -> (Feasible, memo::JobMemo) {
        let feasible = self.feasible_for(cluster);
        let memo = memo::JobMemo::carried_or_new(
            self.memo.take(),
            cluster,
            cfg,
            !feasible.sets.is_empty(),
        );
        (feasible, memo)
    }

    /// Keeps the node sets (for `cluster`) and the job memo for the next
    /// iteration.
    pub(super) fn keep(
        &mut self,
        cluster: &std::sync::Arc<Cluster>,
        feasible: Feasible,
        memo: memo::JobMemo,
    ) {
        self.feasible = Some((std::sync::Arc::clone(cluster), feasible));
        self.memo = Some(memo);
    }

    /// The job memo, once there is one.
    pub(in crate::engine) fn memo(&self) -> Option<&memo::JobMemo> {
        self.memo.as_ref()
    }

    /// Idle jobs whose derivations the last iteration took from the
    /// memo, not derived again.
    #[cfg(test)]
    pub fn memo_reused(&self) -> usize {
        self.memo.as_ref().map_or(0, |m| m.reused())
    }

    /// The node orders carried for `cluster` (the same one), else none.
    fn orders_for(&mut self, cluster: &std::sync::Arc<Cluster>) -> shortlist::NodeOrders {
        match self.orders.take() {
            Some((c, o)) if std::sync::Arc::ptr_eq(&c, cluster) => o,
            _ => shortlist::NodeOrders::default(),
        }
    }
}
