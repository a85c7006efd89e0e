//! The reference placer: each question of the passes answered by asking
//! the availability profile directly, node by node, with nothing cached.
//!
//! Production runs the accelerated placer (`engine::accel`);
//! `engine::tests::the_reference_decides_alike` demands the same plans of
//! both. Read with `engine::passes`, this is the whole of Maui's rules.

use super::build::View;
use super::passes::{AdmitAll, Ctx, Placer};
use super::plan::Reason;
use crate::allocation::{allocate_checked, effective_policy, Candidate};
use crate::model::{NodeIdx, Resources, Time};
use crate::profile::{Admits, Fit, FitRequest, Profile};
use std::collections::BTreeSet;

/// The plain [`Placer`].
pub(super) struct Plain<'a> {
    cx: Ctx<'a>,
}

impl<'a> Plain<'a> {
    pub(super) fn new(cx: Ctx<'a>) -> Self {
        Plain { cx }
    }

    /// The world after the passes.
    pub(super) fn into_view(self) -> View {
        self.cx.view
    }

    /// Node `n` is up and usable and meets job `i`'s requirements.
    fn suitable(&self, i: usize, n: NodeIdx) -> bool {
        let node = &self.cx.view.cluster.nodes[n as usize];
        node.usable && self.cx.idle[i].req.check_node_any_state(node).is_ok()
    }

    /// The nodes job `i` may use (its host list, else every node; those of
    /// the reservation it asks for) that hold at least one of its tasks
    /// over `window`: how many, and what is free there. `None` when the
    /// reservation it asks for does not exist.
    fn room(&self, i: usize, (start, end): (Time, Time)) -> Option<Vec<(NodeIdx, u32, Resources)>> {
        let cx = &self.cx;
        let it = &cx.idle[i];
        let advres = cx.advres_nodes(&cx.jobs[it.j]).transpose().ok()?;
        let adm = cx.adm(it.j);
        let nodes: Vec<NodeIdx> = match &it.req.hosts {
            Some(h) => h.clone(),
            None => (0..cx.view.cluster.nodes.len() as NodeIdx).collect(),
        };
        let room = nodes
            .into_iter()
            .filter(|&n| self.suitable(i, n) && advres.as_ref().is_none_or(|a| a.contains(&n)))
            .filter_map(|n| {
                let free = cx.view.profile.free(n, start, end, &adm);
                let tasks = it.req.task.times_fits_in(&free);
                (tasks > 0).then_some((n, tasks, free))
            });
        Some(room.collect())
    }

    /// Tasks of job `i` that `base` holds over [now, now + wall) on the
    /// nodes it may use, under `admits`.
    fn tasks_in(&self, i: usize, base: &Profile, admits: &dyn Admits) -> u64 {
        let it = &self.cx.idle[i];
        let (start, end) = (self.cx.now, self.cx.now.saturating_add(it.wall));
        (0..self.cx.view.cluster.nodes.len() as NodeIdx)
            .filter(|&n| self.suitable(i, n))
            .map(|n| base.tasks_fit(n, start, end, &it.req.task, admits) as u64)
            .sum()
    }
}

impl<'a> Placer<'a> for Plain<'a> {
    fn cx(&self) -> &Ctx<'a> {
        &self.cx
    }

    fn cx_mut(&mut self) -> &mut Ctx<'a> {
        &mut self.cx
    }

    fn fits_now(&self, i: usize) -> bool {
        let now = self.cx.now;
        let window = (now, now.saturating_add(self.cx.idle[i].wall));
        let room = self.room(i, window).unwrap_or_default();
        room.iter().map(|&(_, t, _)| t as u64).sum::<u64>() >= self.cx.idle[i].req.tasks as u64
    }

    fn start_now(&mut self, i: usize) -> Option<Vec<(NodeIdx, u32)>> {
        self.place(i, self.cx.now, None)
    }

    fn earliest(
        &mut self,
        i: usize,
        req: &FitRequest,
        advres: Option<&BTreeSet<NodeIdx>>,
    ) -> Option<Fit> {
        let adm = self.cx.adm(self.cx.idle[i].j);
        let may_use = |n| self.suitable(i, n) && advres.is_none_or(|a| a.contains(&n));
        self.cx.view.profile.earliest_start(req, &adm, may_use)
    }

    /// Every node with room (among `only`) is a candidate; the
    /// allocation policy chooses among them.
    fn place(
        &mut self,
        i: usize,
        start: Time,
        only: Option<&[NodeIdx]>,
    ) -> Option<Vec<(NodeIdx, u32)>> {
        let cx = &self.cx;
        let it = &cx.idle[i];
        let window = (start, start.saturating_add(it.wall));
        let need = it.req.tasks as u64;
        let room = self.room(i, window).map(|mut r| {
            if let Some(o) = only {
                r.retain(|x| o.contains(&x.0));
            }
            r
        });
        let cands: Vec<Candidate> = match room {
            None if need == 0 => Vec::new(),
            None => return None,
            Some(room) => {
                if room.iter().map(|&(_, t, _)| t as u64).sum::<u64>() < need {
                    return None;
                }
                let adm = cx.adm(it.j);
                let gap = cx.needs_gap(&cx.jobs[it.j]);
                room.into_iter()
                    .map(|(n, t, free)| cx.candidate(i, n, (t, free), window, &adm, gap, true))
                    .collect()
            }
        };
        let policy = effective_policy(&cx.jobs[it.j], &cx.cfg.params);
        let immediate = start == cx.now;
        let alloc = allocate_checked(
            it.req,
            &cands,
            &cx.view.cluster,
            policy,
            immediate,
            cx.local,
        )?;
        self.commit(i, window, &alloc.nodes).then_some(alloc.nodes)
    }

    fn commit(&mut self, i: usize, window: (Time, Time), nodes: &[(NodeIdx, u32)]) -> bool {
        self.cx.commit(i, window, nodes)
    }

    fn capacity(&mut self, i: usize) -> u64 {
        let req = self.cx.idle[i].req;
        let nodes = &self.cx.view.cluster.nodes;
        nodes
            .iter()
            .filter(|n| req.check_node_any_state(n).is_ok())
            .map(|n| req.task.times_fits_in(&n.configured) as u64)
            .sum()
    }

    fn why_waiting(&mut self, i: usize, base: &Profile) -> Reason {
        let cx = &self.cx;
        let it = &cx.idle[i];
        if let Some(Err(e)) = cx.advres_nodes(&cx.jobs[it.j]) {
            return Reason::NoFit { detail: e };
        }
        let need = it.req.tasks as u64;
        if self.tasks_in(i, base, &AdmitAll) < need {
            return Reason::Resources;
        }
        if self.tasks_in(i, base, &cx.adm(it.j)) < need {
            return cx.reserved_against(i, base, |n| self.suitable(i, n));
        }
        Reason::PRIORITY
    }
}

thread_local! {
    static ON: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// True while [`with_reference`] runs on this thread.
pub(super) fn on() -> bool {
    ON.with(|m| m.get())
}

/// Runs `f` with the iteration's passes asking the reference placer on
/// this thread.
pub(crate) fn with_reference<T>(f: impl FnOnce() -> T) -> T {
    ON.with(|m| m.set(true));
    let out = f();
    ON.with(|m| m.set(false));
    out
}
