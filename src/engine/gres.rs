//! Generic resource requests resolved against the cluster: what each of
//! the engine's tasks holds, and what a running job holds on each node.
//!
//! The engine's unit is the task: its [`Resources`] carry generic
//! resources as they carry processors, so every fit, reservation, backfill
//! window and estimate counts them. Requests the RM makes per node
//! (Slurm `--gres`, `--gpus-per-node`, Torque `nodes=N:gpus=G`) or per job
//! (Slurm `--gpus`) become per task where they divide evenly over a layout
//! the RM fixes. Otherwise the tasks that share a node's (or the job's)
//! resources are scheduled as one bundle, a layout the RM accepts: the
//! tasks of each node together, or all of them on one node. A request
//! neither can express is refused with the reason, never approximated.

use crate::model::{Cluster, GresCounts, Job, JobState, Resources};

/// What a request comes to: per engine task, per node of a running job,
/// and how many RM tasks make one engine task.
#[derive(Debug, PartialEq)]
struct Shape {
    task: GresCounts,
    node: GresCounts,
    bundle: u32,
}

fn divide(g: &GresCounts, n: u32) -> Option<GresCounts> {
    (n > 0 && g.0.iter().all(|&c| c as u32 % n == 0))
        .then(|| g.map(&GresCounts::ZERO, |c, _| c / n))
}

fn times(g: &GresCounts, n: u32) -> Option<GresCounts> {
    g.zip(&GresCounts::ZERO, |c, _| c.checked_mul(n))
}

fn plus(a: &GresCounts, b: &GresCounts) -> Option<GresCounts> {
    a.zip(b, u32::checked_add)
}

const OVERFLOW: &str = "generic resource counts overflow";

/// Resolves `job`'s requests (its RM task layout, not yet bundled).
fn shape(job: &Job, cluster: &Cluster) -> Result<Shape, String> {
    let pt = cluster.gres_counts(&job.gres_per_task)?;
    let pn = cluster.gres_counts(&job.gres_per_node)?;
    let pj = cluster.gres_counts(&job.gres_per_job)?;
    let t = job.tasks.max(1);
    let plain = |task| Shape {
        task,
        node: GresCounts::ZERO,
        bundle: 1,
    };
    if job.state != JobState::Idle {
        // Where it runs (or, finished, ran) is known: the per-node request
        // on each node, a
        // per-job one per task where it divides, else shared out over its
        // nodes rounding up (the RM's own split is not reported).
        let (task, node) = match divide(&pj, t) {
            Some(share) => (plus(&pt, &share).ok_or(OVERFLOW)?, pn),
            None => {
                let nodes = job.allocation.len().max(1) as u32;
                let share = pj.map(&GresCounts::ZERO, |c, _| c.div_ceil(nodes));
                (pt, plus(&pn, &share).ok_or(OVERFLOW)?)
            }
        };
        return Ok(Shape {
            task,
            node,
            bundle: 1,
        });
    }
    if pn.is_zero() && pj.is_zero() {
        return Ok(plain(pt));
    }
    if !pn.is_zero() && !pj.is_zero() {
        return Err("generic resources asked both per node and per job".into());
    }
    let bundled = |k: u32, extra: &GresCounts| -> Result<Shape, String> {
        Ok(Shape {
            task: plus(&times(&pt, k).ok_or(OVERFLOW)?, extra).ok_or(OVERFLOW)?,
            node: GresCounts::ZERO,
            bundle: k,
        })
    };
    if !pn.is_zero() {
        // Exactly `tpn` tasks on each node: the request divides over them
        // or they go together. Without it, the tasks of each of its nodes
        // go together (evenly over a node count, else all on one node).
        let k = match (job.tasks_per_node, job.nodes) {
            (Some(k), _) if k > 0 => {
                if let Some(share) = divide(&pn, k) {
                    return Ok(plain(plus(&pt, &share).ok_or(OVERFLOW)?));
                }
                k
            }
            (_, Some(n)) if n > 0 => {
                if t % n != 0 {
                    return Err(format!(
                        "generic resources per node with {t} tasks on {n} nodes: the tasks do not divide evenly over the nodes (give tasks per node)"
                    ));
                }
                t / n
            }
            _ => t,
        };
        if t % k != 0 {
            return Err(format!(
                "generic resources per node with {t} tasks at {k} per node: the tasks do not fill whole nodes"
            ));
        }
        return bundled(k, &pn);
    }
    if let Some(share) = divide(&pj, t) {
        return Ok(plain(plus(&pt, &share).ok_or(OVERFLOW)?));
    }
    let one_node = job.nodes.unwrap_or(1) == 1 && job.tasks_per_node.is_none_or(|k| k == t);
    if one_node {
        return bundled(t, &pj);
    }
    Err(format!(
        "generic resources per job ({}) do not divide over its {t} tasks on more than one node: ask for them per node or per task",
        cluster.gres_text(&pj)
    ))
}

/// Resolves the job's generic resources against `cluster` in place:
/// fills `task.gres` and `node_gres`, bundles tasks where needed, and sets
/// `bundle` (at least 1). A request that cannot be resolved leaves the
/// job as it was, `bundle` 0: [`request_error`] says why and the job does
/// not start.
pub(crate) fn resolve(job: &mut Job, cluster: &Cluster) {
    if !job.wants_gres() {
        return;
    }
    let Ok(s) = shape(job, cluster) else {
        return;
    };
    if s.bundle > 1 {
        let base = Resources {
            gres: GresCounts::ZERO,
            ..job.task
        };
        let Some(task) = base.checked_mul(s.bundle) else {
            return;
        };
        job.task = task;
        job.tasks /= s.bundle;
        if job.tasks_per_node.is_some() {
            job.tasks_per_node = Some(1);
        }
    }
    job.task.gres = s.task;
    job.node_gres = s.node;
    job.bundle = s.bundle;
}

/// Why the job's generic resource request cannot be scheduled, if it
/// cannot (see [`resolve`]).
pub(crate) fn request_error(job: &Job, cluster: &Cluster) -> Option<String> {
    if !job.wants_gres() || job.bundle > 0 {
        return None;
    }
    Some(match shape(job, cluster) {
        Err(e) => e,
        Ok(_) => "its tasks are too large to bundle".into(),
    })
}

/// A start's allocation in the RM's tasks (the engine's times the bundle).
pub(crate) fn unbundle(job: &Job, allocation: &mut [crate::model::NodeTasks]) {
    if job.bundle > 1 {
        for a in allocation {
            a.tasks = a.tasks.saturating_mul(job.bundle);
        }
    }
}
