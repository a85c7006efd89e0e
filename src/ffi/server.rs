//! The handle behind the admin socket: publishes each iteration for the
//! reading commands, and carries out the changing ones under the handle's
//! lock with the same code paths as the ABI's admin calls.

use super::admin::{create_reservation, release_reservation, set_system_priority};
use super::handle::{
    lock, reconfigure, Handle, Logger, MAUISCHED_LOG_ERROR, MAUISCHED_LOG_INFO, MAUISCHED_LOG_WARN,
};
use super::status::*;
use crate::admin::{Backend, Caller, Done, ErrorCode, Failed, Mutation, Published, SchedCtl};
use crate::allocation::TaskRequest;
use crate::config::Affinity;
use crate::engine::{Action, ActionKind, ForcedStart, StopInfo};
use crate::model::time::fmt_time;
use crate::model::{HoldKind, JobState, NodeTasks};
use serde_json::json;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

/// Messages the admin socket's threads queue at most between two host calls.
const MAX_NOTES: usize = 1000;

/// The admin socket's view of a handle.
struct HandleBackend {
    handle: Arc<Mutex<Handle>>,
    published: Arc<Mutex<Arc<Published>>>,
    notes: super::handle::Notes,
    poisoned: Arc<AtomicBool>,
}

/// Starts the admin socket for a handle; a failure is logged and the
/// handle runs without one (scheduling matters more than commands).
pub(crate) fn start(
    path: &Path,
    handle: Arc<Mutex<Handle>>,
    poisoned: Arc<AtomicBool>,
    log: Logger,
) -> Option<crate::admin::Server> {
    let (published, notes) = {
        let hd = lock(&handle);
        (hd.published.clone(), hd.notes.clone())
    };
    let backend = Arc::new(HandleBackend {
        handle,
        published,
        notes,
        poisoned,
    });
    match crate::admin::Server::start(path, backend) {
        Ok(s) => {
            log.log(
                MAUISCHED_LOG_INFO,
                &format!("admin socket listening on {}", path.display()),
            );
            Some(s)
        }
        Err(e) => {
            log.log(
                MAUISCHED_LOG_ERROR,
                &format!(
                    "admin socket {} not started ({e}): mauictl and the Maui commands cannot reach this scheduler",
                    path.display()
                ),
            );
            None
        }
    }
}

fn failed(e: FfiError) -> Failed {
    let code = match e.status {
        MAUISCHED_BAD_VALUE => ErrorCode::Usage,
        MAUISCHED_REFUSED | MAUISCHED_CONFIG_ERROR | MAUISCHED_IO_ERROR => ErrorCode::Refused,
        MAUISCHED_NOT_FOUND => ErrorCode::NotFound,
        MAUISCHED_NO_ITERATION => ErrorCode::NoIteration,
        _ => ErrorCode::Internal,
    };
    Failed::new(code, e.message)
}

impl Backend for HandleBackend {
    fn published(&self) -> Arc<Published> {
        lock(&self.published).clone()
    }

    fn note(&self, level: u32, message: String) {
        // Refusals are noted per request: a client looping on them must not
        // fill memory (or the host's log) before the host's next call.
        let mut q = lock(&self.notes);
        match q.len() {
            n if n < MAX_NOTES => q.push((level, message)),
            MAX_NOTES => q.push((
                MAUISCHED_LOG_WARN,
                "admin socket: too many messages since the last call; further ones are dropped"
                    .into(),
            )),
            _ => {}
        }
    }

    fn mutate(&self, caller: &Caller, m: Mutation) -> Result<Done, Failed> {
        let poisoned = || {
            Failed::new(
                ErrorCode::Internal,
                "the scheduler's handle failed earlier (internal error) and takes no changes",
            )
        };
        if self.poisoned.load(Ordering::SeqCst) {
            return Err(poisoned());
        }
        let mut hd = lock(&self.handle);
        hd.log_deferred = true;
        let r =
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| apply(&mut hd, caller, m)));
        let r = match r {
            Ok(r) => r,
            Err(_) => {
                self.poisoned.store(true, Ordering::SeqCst);
                hd.log(
                    MAUISCHED_LOG_ERROR,
                    "internal error (panic) in an admin command; this handle is poisoned and can only be freed",
                );
                Err(poisoned())
            }
        };
        if r.is_ok() && !self.poisoned.load(Ordering::SeqCst) {
            hd.publish(false);
        }
        hd.log_deferred = false;
        r
    }
}

fn done(text: String, data: serde_json::Value) -> Result<Done, Failed> {
    Ok(Done { text, data })
}

/// Carries out one change, validating everything first.
fn apply(hd: &mut Handle, caller: &Caller, m: Mutation) -> Result<Done, Failed> {
    let who = caller.describe();
    let now = hd.clock;
    match m {
        Mutation::SetRes(req) => {
            let (r, nodes) =
                create_reservation(hd, *req, now, Some(&who), false).map_err(failed)?;
            let mut text = format!(
                "reservation '{}' created on {} node{} ({} task{})\n\n",
                r.id,
                nodes.len(),
                if nodes.len() == 1 { "" } else { "s" },
                r.tasks(),
                if r.tasks() == 1 { "" } else { "s" }
            );
            for n in &nodes {
                text.push_str(n);
                text.push('\n');
            }
            text.push_str("\n(in force from the next scheduling iteration)\n");
            done(
                text,
                json!({"reservation": r.id, "start": r.start, "end": r.end, "nodes": nodes}),
            )
        }
        Mutation::ReleaseRes(ids) => {
            for id in &ids {
                if hd.engine.state.admin.get(id).is_none() {
                    let what = hd.engine.last.as_ref().and_then(|l| {
                        crate::commands::showres::table(l)
                            .into_iter()
                            .find(|r| &r.id == id)
                            .map(|r| r.type_name())
                    });
                    return Err(Failed::new(
                        match what {
                            Some(_) => ErrorCode::Refused,
                            None => ErrorCode::NotFound,
                        },
                        match what {
                            Some("Job") => format!(
                                "releaseres: {id} is a job reservation: the scheduler makes it again at every iteration"
                            ),
                            Some(_) => format!(
                                "releaseres: {id} is a standing reservation: change its SRCFG in maui.cfg"
                            ),
                            None => format!("releaseres: no reservation \"{id}\""),
                        },
                    ));
                }
            }
            let mut text = String::new();
            for id in &ids {
                release_reservation(hd, id, Some(&who)).map_err(failed)?;
                text.push_str(&format!("released User reservation '{id}'\n"));
            }
            done(text, json!({"released": ids}))
        }
        Mutation::SetSpri { job, priority } => {
            known_job(hd, &job)?;
            set_system_priority(hd, &job, priority, Some(&who)).map_err(failed)?;
            done(
                "job system priority adjusted\n".into(),
                json!({"job": job, "system_priority": priority}),
            )
        }
        Mutation::SetHold(jobs) => {
            for j in &jobs {
                queued_job(hd, j, "sethold")?;
            }
            for j in &jobs {
                let pending = &mut hd.engine.state.pending_actions;
                pending.retain(|a| !(a.job == *j && a.kind == ActionKind::Release));
                if !pending
                    .iter()
                    .any(|a| a.job == *j && a.kind == ActionKind::Hold)
                {
                    pending.push(Action {
                        kind: ActionKind::Hold,
                        job: j.clone(),
                        by: caller.user.clone(),
                    });
                }
            }
            hd.persist.admin_pending = true;
            hd.log(
                MAUISCHED_LOG_INFO,
                &format!("sethold by {who}: system hold on {}", jobs.join(", ")),
            );
            done(
                "System Hold Placed on All Specified Jobs\n(the resource manager applies it at the next scheduling iteration)\n".into(),
                json!({"held": jobs}),
            )
        }
        Mutation::ReleaseHold(jobs) => {
            let mut cancel = Vec::new();
            for j in &jobs {
                let job = queued_job(hd, j, "releasehold")?;
                let pending_hold = hd
                    .engine
                    .state
                    .pending_actions
                    .iter()
                    .any(|a| a.job == *j && a.kind == ActionKind::Hold);
                if pending_hold {
                    cancel.push(j.clone());
                } else if !job.holds.contains(&HoldKind::System) {
                    return Err(Failed::new(
                        ErrorCode::Refused,
                        format!(
                            "releasehold: job {j} has no system hold{}",
                            if job.holds.is_empty() {
                                String::new()
                            } else {
                                format!(
                                    " (a {} hold is its owner's or the resource manager's)",
                                    job.holds
                                        .iter()
                                        .map(|h| format!("{h:?}").to_lowercase())
                                        .collect::<Vec<_>>()
                                        .join(", ")
                                )
                            }
                        ),
                    ));
                }
            }
            let mut text = String::new();
            for j in &jobs {
                let pending = &mut hd.engine.state.pending_actions;
                if cancel.contains(j) {
                    pending.retain(|a| !(a.job == *j && a.kind == ActionKind::Hold));
                } else if !pending
                    .iter()
                    .any(|a| a.job == *j && a.kind == ActionKind::Release)
                {
                    pending.push(Action {
                        kind: ActionKind::Release,
                        job: j.clone(),
                        by: caller.user.clone(),
                    });
                }
                text.push_str(&format!("holds modified for job {j}\n"));
            }
            hd.persist.admin_pending = true;
            hd.log(
                MAUISCHED_LOG_INFO,
                &format!("releasehold by {who}: {}", jobs.join(", ")),
            );
            done(text, json!({"released": jobs}))
        }
        Mutation::RunJob { job, nodes } => {
            let allocation = runjob_allocation(hd, &job, nodes.as_deref())?;
            let list: Vec<String> = allocation
                .iter()
                .map(|a| format!("{}:{}", a.node, a.tasks))
                .collect();
            let forced = &mut hd.engine.state.forced_starts;
            forced.retain(|f| f.job != job);
            forced.push(ForcedStart {
                job: job.clone(),
                allocation: allocation.clone(),
                by: caller.user.clone(),
            });
            hd.persist.admin_pending = true;
            hd.log(
                MAUISCHED_LOG_INFO,
                &format!(
                    "runjob by {who}: job {job} starts on {} at the next iteration (priority, policies and reservations bypassed)",
                    list.join(",")
                ),
            );
            done(
                format!(
                    "job {job} will be started on {} at the next scheduling iteration\n",
                    list.join(",")
                ),
                json!({"job": job, "allocation": allocation}),
            )
        }
        Mutation::Sched(SchedCtl::Reconfigure) => match reconfigure(hd, None) {
            Ok(diags) => {
                let warn = diags
                    .iter()
                    .filter(|d| d.severity == crate::config::Severity::Warning)
                    .count();
                hd.log(
                    MAUISCHED_LOG_INFO,
                    &format!("schedctl -r by {who}: configuration reloaded"),
                );
                let mut text = format!(
                    "{} reloaded ({warn} warning{})\n",
                    hd.config_path.display(),
                    if warn == 1 { "" } else { "s" }
                );
                for d in diags
                    .iter()
                    .filter(|d| d.severity == crate::config::Severity::Warning)
                {
                    text.push_str(&format!("{d}\n"));
                }
                if let Some(s) = &hd.engine.state.stopped {
                    text.push_str(&format!(
                        "NOTE:  scheduling is stopped (schedctl -s by {}): schedctl -R resumes it\n",
                        s.by
                    ));
                }
                done(text, json!({"config": hd.config_path, "warnings": warn}))
            }
            Err(e) => Err(Failed::new(
                ErrorCode::Refused,
                format!(
                    "{} not reloaded; the previous configuration stays in force:\n{}",
                    hd.config_path.display(),
                    e.message
                ),
            )),
        },
        Mutation::Sched(SchedCtl::Stop) => {
            if let Some(s) = &hd.engine.state.stopped {
                return done(
                    format!(
                        "scheduling is already stopped (by {} at {})\n",
                        s.by,
                        fmt_time(s.at)
                    ),
                    json!({"stopped": s}),
                );
            }
            let s = StopInfo {
                by: caller.user.clone(),
                at: now,
            };
            hd.engine.state.stopped = Some(s.clone());
            hd.persist.admin_pending = true;
            hd.log(
                MAUISCHED_LOG_INFO,
                &format!("schedctl -s by {who}: scheduling stopped: plans carry no job starts until schedctl -R"),
            );
            done(
                "scheduling stopped: no job is started until schedctl -R\n".into(),
                json!({"stopped": s}),
            )
        }
        Mutation::Sched(SchedCtl::Resume) => match hd.engine.state.stopped.take() {
            None => done(
                "scheduling was not stopped\n".into(),
                json!({"stopped": null}),
            ),
            Some(s) => {
                hd.persist.admin_pending = true;
                hd.log(
                    MAUISCHED_LOG_INFO,
                    &format!(
                        "schedctl -R by {who}: scheduling resumed (stopped by {} at {})",
                        s.by,
                        fmt_time(s.at)
                    ),
                );
                done("scheduling resumed\n".into(), json!({"stopped": null}))
            }
        },
    }
}

fn no_iteration() -> Failed {
    Failed::new(
        ErrorCode::NoIteration,
        "no scheduling iteration has run yet: the scheduler knows no jobs",
    )
}

/// A job of the last iteration.
fn known_job(hd: &Handle, id: &str) -> Result<crate::model::Job, Failed> {
    let last = hd.engine.last.as_ref().ok_or_else(no_iteration)?;
    last.jobs
        .iter()
        .find(|j| j.id == id)
        .cloned()
        .ok_or_else(|| {
            Failed::new(
                ErrorCode::NotFound,
                format!("job {id} is not known to the scheduler"),
            )
        })
}

/// A job of the last iteration that is still queued.
fn queued_job(hd: &Handle, id: &str, cmd: &str) -> Result<crate::model::Job, Failed> {
    let job = known_job(hd, id)?;
    if job.state != JobState::Idle {
        return Err(Failed::new(
            ErrorCode::Refused,
            format!(
                "{cmd}: job {id} is {}: only queued jobs can be held or released",
                job.state.name()
            ),
        ));
    }
    Ok(job)
}

/// Where runjob starts a job: on the nodes given (as many tasks as asked,
/// or as fit), or wherever it fits, using what is free now regardless of
/// reservations; the whole job must fit.
fn runjob_allocation(
    hd: &Handle,
    id: &str,
    nodes: Option<&[(String, Option<u32>)]>,
) -> Result<Vec<NodeTasks>, Failed> {
    let job = queued_job(hd, id, "runjob")?;
    let hold_pending = hd
        .engine
        .state
        .pending_actions
        .iter()
        .any(|a| a.job == id && a.kind == ActionKind::Hold);
    if job.is_held() || hold_pending {
        return Err(Failed::new(
            ErrorCode::Refused,
            format!("runjob: job {id} has a hold in place: release it first"),
        ));
    }
    let last = hd.engine.last.as_ref().ok_or_else(no_iteration)?;
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
            let req = TaskRequest::from_job(&job, cluster, &hd.engine.cfg);
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
