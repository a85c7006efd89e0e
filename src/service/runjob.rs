//! runjob: where an operator's forced start goes.

use super::Service;
use crate::admin::{ErrorCode, Failed};
use crate::allocation::TaskRequest;
use crate::config::Affinity;
use crate::engine::ActionKind;
use crate::model::NodeTasks;

impl Service {
    /// Where runjob starts a job: on the nodes given (as many tasks as asked,
    /// or as fit), or wherever it fits, using what is free now regardless of
    /// reservations; the whole job must fit.
    pub(super) fn runjob_allocation(
        &self,
        id: &str,
        nodes: Option<&[(String, Option<u32>)]>,
    ) -> Result<Vec<NodeTasks>, Failed> {
        let job = self.queued_job(id, "runjob")?;
        let hold_pending = self.engine.action_pending(id, ActionKind::Hold);
        if job.is_held() || hold_pending {
            return Err(Failed::new(
                ErrorCode::Refused,
                format!("runjob: job {id} has a hold in place: release it first"),
            ));
        }
        let last = self
            .engine
            .last
            .as_ref()
            .ok_or_else(super::ops::no_iteration)?;
        let cluster = &last.view.cluster;
        let now = last.plan.now;
        let admit_all = |_: u32, _: i64, _: i64| Some(Affinity::Neutral);
        let room = |n: u32| {
            last.view
                .profile
                .tasks_fit(n, now, now + 1, &job.task, &admit_all)
        };
        let refused = |m: String| Failed::new(ErrorCode::Refused, format!("runjob: {m}"));
        let mut left = job.tasks;
        let mut out = Vec::new();
        match nodes {
            Some(list) => {
                for (name, want) in list {
                    let i = cluster.index(name).ok_or_else(|| {
                        Failed::new(
                            ErrorCode::NotFound,
                            format!("runjob: node {name} is not known to the scheduler"),
                        )
                    })?;
                    let n = &cluster.nodes[i as usize];
                    if !n.usable {
                        return Err(refused(format!(
                            "node {name} takes no new work ({})",
                            n.state.name()
                        )));
                    }
                    let fit = room(i);
                    let t = match want {
                        Some(w) if *w > fit => {
                            return Err(refused(format!(
                                "node {name} has room for {fit} task(s) of job {id} now, not {w}"
                            )))
                        }
                        Some(w) => *w,
                        None => fit.min(left),
                    };
                    if t > 0 {
                        out.push(NodeTasks {
                            node: name.clone(),
                            tasks: t,
                        });
                    }
                    left = left.saturating_sub(t);
                }
                let given: u32 = out.iter().map(|a| a.tasks).sum();
                if given > job.tasks {
                    return Err(Failed::new(
                        ErrorCode::Usage,
                        format!(
                            "runjob: the node list holds {given} tasks; job {id} has {}",
                            job.tasks
                        ),
                    ));
                }
            }
            None => {
                let req = TaskRequest::from_job(&job, cluster, &self.engine.cfg);
                for n in cluster.nodes.iter().filter(|n| n.usable) {
                    if left == 0 {
                        break;
                    }
                    if req.check_node(n).is_err() {
                        continue;
                    }
                    let t = room(n.index).min(left);
                    if t > 0 {
                        out.push(NodeTasks {
                            node: n.name.clone(),
                            tasks: t,
                        });
                        left -= t;
                    }
                }
            }
        }
        if left > 0 {
            return Err(refused(format!(
                "job {id} needs {} task(s); only {} fit on {} now",
                job.tasks,
                job.tasks - left,
                if nodes.is_some() {
                    "the nodes given"
                } else {
                    "the cluster"
                }
            )));
        }
        Ok(out)
    }
}
