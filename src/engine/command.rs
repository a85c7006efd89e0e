//! Operator commands as text over an engine's last iteration: the one
//! dispatcher behind `mauisched_render` (and any other front end that
//! takes a command name and its arguments).
//!
//! Commands and arguments, as Maui spells them:
//!
//! ```text
//! showq
//! checkjob [-v] JOBID
//! showstart JOBID
//! showbf [-d DURATION] [-p PARTITION] [-n NODES]
//! showres [-n] [RESID]
//! diagnose -p | -f
//! ```

use super::render::{self, ShowbfOpts};
use super::{Engine, LastIteration};
use crate::model::{NodeTasks, Time};
use crate::reservation::{NodeClaim, ResKind, ResRequest, Reservation};

/// Why a command produced no text.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CommandError {
    /// No such command.
    #[error(
        "unknown command \"{0}\" (known: showq, checkjob, showstart, showbf, showres, diagnose)"
    )]
    Unknown(String),
    /// The arguments are wrong.
    #[error("{0}")]
    Usage(String),
    /// The job or reservation named does not exist.
    #[error("{0}")]
    NotFound(String),
    /// The command reads an iteration and none has run yet.
    #[error("{0}: no scheduling iteration has run yet")]
    NoIteration(String),
}

/// The commands [`run`] knows.
pub const COMMANDS: [&str; 6] = [
    "showq",
    "checkjob",
    "showstart",
    "showbf",
    "showres",
    "diagnose",
];

fn usage(cmd: &str, what: impl std::fmt::Display) -> CommandError {
    let syntax = match cmd {
        "showq" => "showq",
        "checkjob" => "checkjob [-v] JOBID",
        "showstart" => "showstart JOBID",
        "showbf" => "showbf [-d DURATION] [-p PARTITION] [-n NODES]",
        "showres" => "showres [-n] [RESID]",
        _ => "diagnose -p | -f",
    };
    CommandError::Usage(format!("{cmd}: {what} (usage: {syntax})"))
}

/// Renders `command` with `args` from the engine's last iteration.
pub fn run(engine: &Engine, command: &str, args: &[&str]) -> Result<String, CommandError> {
    if !COMMANDS.contains(&command) {
        return Err(CommandError::Unknown(command.to_string()));
    }
    let cfg = &engine.cfg;
    let last = || {
        engine
            .last
            .as_ref()
            .ok_or_else(|| CommandError::NoIteration(command.to_string()))
    };
    match command {
        "showq" => {
            if let Some(a) = args.first() {
                return Err(usage(command, format!("unexpected argument \"{a}\"")));
            }
            Ok(render::showq(cfg, last()?))
        }
        "checkjob" | "showstart" => {
            let mut verbose = false;
            let mut id = None;
            for a in args {
                match *a {
                    "-v" if command == "checkjob" => verbose = true,
                    s if s.starts_with('-') => {
                        return Err(usage(command, format!("unknown option \"{s}\"")))
                    }
                    s if id.is_none() => id = Some(s),
                    s => return Err(usage(command, format!("unexpected argument \"{s}\""))),
                }
            }
            let id = id.ok_or_else(|| usage(command, "a job id is needed"))?;
            let last = last()?;
            let r = if command == "checkjob" {
                render::checkjob(cfg, last, id, verbose)
            } else {
                render::showstart(cfg, last, id)
            };
            r.map_err(CommandError::NotFound)
        }
        "showbf" => {
            let mut opts = ShowbfOpts::default();
            let mut it = args.iter();
            while let Some(a) = it.next() {
                let mut value = || {
                    it.next()
                        .copied()
                        .ok_or_else(|| usage(command, format!("{a} needs a value")))
                };
                match *a {
                    "-d" => {
                        let v = value()?;
                        opts.duration = crate::model::time::parse_duration(v)
                            .map_err(|e| usage(command, format!("-d {v}: {e}")))?;
                    }
                    "-p" => opts.partition = Some(value()?.to_string()),
                    "-n" => {
                        let v = value()?;
                        opts.nodes =
                            Some(v.parse().map_err(|_| {
                                usage(command, format!("-n {v}: not a node count"))
                            })?);
                    }
                    s => return Err(usage(command, format!("unknown argument \"{s}\""))),
                }
            }
            Ok(render::showbf(last()?, &opts))
        }
        "showres" => {
            let mut per_node = false;
            let mut id = None;
            for a in args {
                match *a {
                    "-n" => per_node = true,
                    s if s.starts_with('-') => {
                        return Err(usage(command, format!("unknown option \"{s}\"")))
                    }
                    s if id.is_none() => id = Some(s),
                    s => return Err(usage(command, format!("unexpected argument \"{s}\""))),
                }
            }
            let last = last()?;
            let table = showres_table(last);
            if let Some(i) = id {
                if !table.iter().any(|r| r.id == i) {
                    return Err(CommandError::NotFound(format!("no reservation \"{i}\"")));
                }
            }
            let now = last.plan.now;
            Ok(if per_node {
                crate::reservation::showres::showres_nodes(&table, &last.view.cluster, now, id)
            } else {
                crate::reservation::showres::showres(&table, now, id)
            })
        }
        _ => match args {
            ["-p"] => {
                let last = last()?;
                let mut rows: Vec<_> = last
                    .plan
                    .priorities
                    .iter()
                    .filter(|p| {
                        // diagnose -p lists the jobs that are considered:
                        // no hold, dependency met, begin time reached.
                        last.plan.job(&p.job).is_some_and(|j| {
                            !matches!(
                                j.reason,
                                Some(super::Reason::Hold { .. })
                                    | Some(super::Reason::Dependency)
                                    | Some(super::Reason::BeginTime { .. })
                            )
                        })
                    })
                    .cloned()
                    .collect();
                rows.sort_by(|a, b| b.priority.cmp(&a.priority).then_with(|| a.job.cmp(&b.job)));
                Ok(crate::priority::render_diagnose_p(cfg, &rows))
            }
            ["-f"] => Ok(crate::fairshare::render_diagnose_f(
                cfg,
                &engine.state.fairshare,
            )),
            _ => Err(usage(command, "exactly one of -p or -f is needed")),
        },
    }
}

/// The reservations showres lists, in Maui's order: the jobs' (running
/// jobs, then the reservations this iteration made for idle jobs), then
/// the administrative and standing ones.
pub fn showres_table(last: &LastIteration) -> Vec<Reservation> {
    let cluster = &last.view.cluster;
    let claims = |alloc: &[NodeTasks], task: crate::model::Resources| -> Vec<NodeClaim> {
        alloc
            .iter()
            .filter_map(|a| {
                Some(NodeClaim {
                    node: cluster.index(&a.node)?,
                    tasks: a.tasks,
                    resources: task.checked_mul(a.tasks).unwrap_or(task),
                })
            })
            .collect()
    };
    let job_res = |job: &crate::model::Job, start: Time, end: Time, alloc: &[NodeTasks]| {
        let mut r = Reservation::new(
            job.id.clone(),
            ResKind::Job {
                job: job.id.clone(),
                state: job.state,
            },
            start,
            end,
            crate::config::Acl::default(),
            ResRequest {
                task_count: job.tasks,
                ..ResRequest::default()
            },
        );
        r.claims = claims(alloc, job.task);
        r
    };
    let mut out = Vec::new();
    for (j, job) in last.jobs.iter().enumerate() {
        if job.state.is_active() && !job.allocation.is_empty() {
            let (s, e) = last
                .view
                .windows
                .get(j)
                .copied()
                .unwrap_or((job.start_time.unwrap_or(last.plan.now), last.plan.now));
            out.push(job_res(job, s, e, &job.allocation));
        }
    }
    for pr in last.plan.reservations.iter().filter(|r| r.kind == "Job") {
        if let Some(job) = pr
            .job
            .as_deref()
            .and_then(|id| last.jobs.iter().find(|j| j.id == id))
        {
            out.push(job_res(job, pr.start, pr.end, &pr.allocation));
        }
    }
    out.extend(
        last.view
            .table
            .iter()
            .filter(|r| !matches!(r.kind, ResKind::Job { .. }))
            .cloned(),
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;
    use crate::model::{HoldKind, Job, JobState, Node, NodeTasks, Resources, Snapshot};

    const H: i64 = 3600;

    fn job(id: &str, user: &str, tasks: u32, wall: i64, submit: i64) -> Job {
        Job {
            id: id.into(),
            user: user.into(),
            group: "g".into(),
            tasks,
            task: Resources::procs(1),
            walltime: Some(wall),
            submit_time: submit,
            ..Job::default()
        }
    }

    /// The seed's A/B/C scenario (8.2.1) plus a held job H.
    fn engine() -> Engine {
        let nodes: Vec<Node> = (1..=2)
            .map(|i| Node {
                name: format!("n{i}"),
                configured: Resources::procs_mem(1, 1000),
                ..Node::default()
            })
            .collect();
        let mut a = job("A", "u1", 1, 4 * H, -2 * H);
        a.state = JobState::Running;
        a.start_time = Some(-H);
        a.allocation = vec![NodeTasks {
            node: "n1".into(),
            tasks: 1,
        }];
        let mut held = job("H", "u4", 1, H, -H);
        held.holds = vec![HoldKind::User];
        let mut s = Snapshot {
            now: Some(0),
            nodes,
            jobs: vec![
                a,
                job("B", "u2", 2, H, -1800),
                job("C", "u3", 1, 2 * H, -1200),
                held,
            ],
        };
        s.normalize().unwrap();
        let mut e = Engine::new(Config::default());
        e.iterate(&s, 0);
        e
    }

    #[test]
    fn showq_puts_each_job_in_its_section() {
        let text = run(&engine(), "showq", &[]).unwrap();
        let active = text.find("ACTIVE JOBS").unwrap();
        let idle = text.find("IDLE JOBS").unwrap();
        let blocked = text.find("BLOCKED JOBS").unwrap();
        let line = |id: &str| {
            text.lines()
                .position(|l| l.starts_with(&format!("{id} ")))
                .map(|i| text.lines().take(i).map(|l| l.len() + 1).sum::<usize>())
                .unwrap()
        };
        assert!((active..idle).contains(&line("A")), "{text}");
        assert!((active..idle).contains(&line("C")), "C starts now: {text}");
        assert!((idle..blocked).contains(&line("B")), "{text}");
        assert!(line("H") > blocked, "{text}");
        assert!(text.contains("UserHold"), "{text}");
        assert!(
            text.contains("2 of     2 Processors Active (100.00%)"),
            "{text}"
        );
        assert!(text.contains("Total Jobs: 4   Active Jobs: 2   Idle Jobs: 1   Blocked Jobs: 1"));
    }

    #[test]
    fn commands_and_their_errors() {
        let e = engine();
        assert!(run(&e, "checkjob", &["-v", "B"])
            .unwrap()
            .contains("Node availability:"));
        assert!(run(&e, "showstart", &["B"])
            .unwrap()
            .contains("Earliest start in          03:00:00"));
        assert!(run(&e, "showres", &[])
            .unwrap()
            .contains("2 reservations located"));
        assert!(run(&e, "showbf", &["-d", "1:00:00", "-n", "1"]).is_ok());
        assert!(run(&e, "diagnose", &["-p"]).unwrap().contains("PRIORITY"));
        assert!(matches!(
            run(&e, "showqq", &[]),
            Err(CommandError::Unknown(_))
        ));
        assert!(matches!(
            run(&e, "checkjob", &["B", "C"]),
            Err(CommandError::Usage(_))
        ));
        assert!(matches!(
            run(&e, "showbf", &["-n"]),
            Err(CommandError::Usage(_))
        ));
        assert!(matches!(
            run(&e, "diagnose", &[]),
            Err(CommandError::Usage(_))
        ));
        assert!(matches!(
            run(&e, "showstart", &["Z"]),
            Err(CommandError::NotFound(_))
        ));
        assert!(matches!(
            run(&e, "showres", &["Z"]),
            Err(CommandError::NotFound(_))
        ));
        let fresh = Engine::new(Config::default());
        assert_eq!(
            run(&fresh, "showq", &[]),
            Err(CommandError::NoIteration("showq".into()))
        );
        assert!(run(&fresh, "diagnose", &["-f"]).is_ok());
    }
}
