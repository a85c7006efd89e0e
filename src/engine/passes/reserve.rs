//! Job reservations: a blocked job's turn in the priority pass reserves
//! its earliest feasible start.

use super::{Passes, Placer, Reserved};
use crate::model::NodeIdx;
use crate::profile::FitRequest;

/// What [`Passes::reserve`] did.
pub(super) enum Reserve {
    /// A reservation was made.
    Made(Reserved),
    /// The job fits now; no reservation (the backfill phase decides).
    FitsNow,
    /// No time was found now, though the job's nodes could hold it.
    Later,
    /// No time was found, and its nodes could never hold it.
    Never,
}

impl<'a, P: Placer<'a>> Passes<'_, P> {
    /// A reservation at job `i`'s earliest feasible start. When the job
    /// could start now but may not (`allow_now` false: it would be backfill
    /// outside the backfill policy), nothing is reserved.
    pub(super) fn reserve(&mut self, i: usize, allow_now: bool) -> Reserve {
        let cx = self.p.cx();
        let (it, now) = (&cx.idle[i], cx.now);
        let job = &cx.jobs[it.j];
        let earliest = now.max(job.earliest_start.unwrap_or(now));
        let req = FitRequest {
            tasks: it.req.tasks,
            task: it.req.task,
            duration: it.wall,
            earliest,
            min_per_node: it.req.tasks_per_node.unwrap_or(0),
            max_per_node: if it.req.exact_tpn {
                it.req.tasks_per_node
            } else {
                None
            },
            nodes: it.req.node_count,
        };
        let wall = it.wall;
        let advres = match cx.advres_nodes(job) {
            Some(Ok(n)) => Some(n),
            Some(Err(_)) => return Reserve::Never,
            None => None,
        };
        let Some(fit) = self.p.earliest(i, &req, advres.as_ref()) else {
            return self.no_time(i);
        };
        if fit.start == now && !allow_now {
            return Reserve::FitsNow;
        }
        let end = fit.start.saturating_add(wall);
        // Nodes chosen by the allocation policy at that time (CPULOAD uses
        // MINRESOURCE for the future); the profile's own fit if it declines.
        // The nodes with room at the fit's start are those the fit counts
        // (each holds at least one task then), unless per-node rules made
        // it skip some. In node order, as the fit lists them.
        let counted: Option<Vec<NodeIdx>> = (req.min_per_node <= 1 && req.max_per_node.is_none())
            .then(|| fit.nodes.iter().map(|&(n, _)| n).collect());
        let nodes = match self.p.place(i, fit.start, counted.as_deref()) {
            Some(n) => n,
            None => {
                if !self.p.commit(i, (fit.start, end), &fit.nodes) {
                    return self.no_time(i);
                }
                fit.nodes
            }
        };
        Reserve::Made((fit.start, end, nodes))
    }

    /// No reservation for job `i`: could it ever fit, given the
    /// reservations that never end? Its nodes (whatever their state) must
    /// hold its tasks, empty.
    fn no_time(&mut self, i: usize) -> Reserve {
        let cx = self.p.cx();
        let it = &cx.idle[i];
        let advres_ok = cx.advres_nodes(&cx.jobs[it.j]).is_none_or(|r| r.is_ok());
        let tasks = it.req.tasks as u64;
        if self.p.capacity(i) >= tasks && advres_ok {
            Reserve::Later
        } else {
            Reserve::Never
        }
    }
}
