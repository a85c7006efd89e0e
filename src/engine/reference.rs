//! The reference placer: each question of the passes answered by asking
//! the availability profile directly, node by node, with nothing cached.
//!
//! Production runs the accelerated placer (`engine::accel`);
//! `engine::tests::the_reference_decides_alike` demands the same plans of
//! both. Read with `engine::passes`, this is the whole of Maui's rules.

use super::build::View;
use super::passes::{AdmitAll, Ctx, Placer};
use super::plan::Reason;
use crate::model::{NodeIdx, Time};
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
        self.cx.suitable_plain(i, n)
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
        let room = self.cx.room(i, window).unwrap_or_default();
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
        let nodes = self.cx.allocation(i, start, only)?;
        let window = (start, start.saturating_add(self.cx.idle[i].wall));
        self.commit(i, window, &nodes).then_some(nodes)
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

    fn freed(&mut self, _nodes: &[NodeIdx]) {}

    fn why_waiting(&mut self, i: usize, base: &Profile) -> Reason {
        let cx = &self.cx;
        let it = &cx.idle[i];
        if let Some(no_fit) = cx.advres_no_fit(it.j) {
            return no_fit;
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
