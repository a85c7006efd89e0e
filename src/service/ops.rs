//! Operator changes: reservations (setres, releaseres), system priorities
//! (setspri), holds (sethold, releasehold), forced starts (runjob) and
//! schedctl. Each is validated in full before anything changes, logged
//! with who asked, made through the engine's typed methods, and written by
//! the next iteration; what the RM must do goes out with the next plan.

use super::{Error, ErrorKind, LogLevel, Result, Service};
use crate::admin::auth::{self, Caller};
use crate::admin::{Done, ErrorCode, Failed, HoldTypes, Level, Mutation, SchedCtl};
use crate::engine::build::{self, PolicyChooser};
use crate::engine::{ActionKind, ForcedStart, StartOutcome, StopInfo};
use crate::model::{HoldKind, Job, JobState, Time};
use crate::priority::MAX_PRIO_VAL;
use crate::profile::{JobIdx, ResIdx};
use crate::reservation::{acl, AdminError, AdminRequest, Reservation};
use serde_json::json;

/// A reservation request's failure as the service reports it.
fn admin_error(e: AdminError) -> Error {
    let kind = match e {
        AdminError::Invalid { .. } | AdminError::NoSuchHost(_) | AdminError::NoMatchingHost(_) => {
            ErrorKind::BadValue
        }
        AdminError::NoResources { .. } | AdminError::Exists(_) => ErrorKind::Refused,
        AdminError::NotFound(_) => ErrorKind::NotFound,
        AdminError::Io(_) => ErrorKind::Io,
    };
    Error::new(kind, e.to_string())
}

/// A service error as the admin socket answers it.
pub(super) fn failed(e: Error) -> Failed {
    let code = match e.kind {
        ErrorKind::BadValue => ErrorCode::Usage,
        ErrorKind::Refused | ErrorKind::Config | ErrorKind::Io => ErrorCode::Refused,
        ErrorKind::NotFound => ErrorCode::NotFound,
        ErrorKind::NoIteration => ErrorCode::NoIteration,
        ErrorKind::State | ErrorKind::BadSnapshot => ErrorCode::Internal,
    };
    Failed::new(code, e.message)
}

fn done(text: String, data: serde_json::Value) -> Result<Done, Failed> {
    Ok(Done { text, data })
}

/// Hold kinds as words: `user`, `system`, `batch`.
fn hold_names(kinds: &[HoldKind]) -> Vec<&'static str> {
    (kinds.iter())
        .map(|k| match k {
            HoldKind::User => "user",
            HoldKind::System => "system",
            HoldKind::Batch => "batch",
        })
        .collect()
}

fn by_whom(by: Option<&str>, before: &str) -> String {
    by.map(|b| format!("{before}{b}")).unwrap_or_default()
}

/// The command a mutation is.
fn command(m: &Mutation) -> &'static str {
    match m {
        Mutation::SetRes(_) => "setres",
        Mutation::ReleaseRes(_) => "releaseres",
        Mutation::RunJob { .. } => "runjob",
        Mutation::SetHold(..) => "sethold",
        Mutation::ReleaseHold(..) => "releasehold",
        Mutation::CancelJob(_) => "canceljob",
        Mutation::SetSpri { .. } | Mutation::SetSpriRelative { .. } => "setspri",
        Mutation::Sched(_) => "schedctl",
        Mutation::ResetStats => "resetstats",
    }
}

pub(super) fn no_iteration() -> Failed {
    Failed::new(
        ErrorCode::NoIteration,
        "no scheduling iteration has run yet: the scheduler knows no jobs",
    )
}

impl Service {
    /// Creates an administrative reservation at `now` on the nodes of the
    /// last iteration (setres): validates the whole request and places it
    /// around the running jobs and the reservations in force, on a scratch
    /// copy of the state; nothing changes on any error, nor when `dry_run`.
    /// Returns the reservation and its `node:tasks` list; `by` names who
    /// asked, for the log.
    pub fn create_reservation(
        &mut self,
        request: AdminRequest,
        now: Time,
        by: Option<&str>,
        dry_run: bool,
    ) -> Result<(Reservation, Vec<String>)> {
        let engine = &self.engine;
        let last = engine.last.as_ref().ok_or_else(|| {
            Error::new(
                ErrorKind::NoIteration,
                "no iteration has run yet: a reservation is placed on the nodes the RM last reported",
            )
        })?;
        let cfg = &engine.cfg;
        // A throw-away copy: building the view expires and re-places
        // reservations in the state it is given.
        let mut scratch = engine.remembered().clone();
        let mut view = build::build(cfg, self.last_nodes(), &last.jobs, now, &mut scratch);
        let jobs = &last.jobs;
        let windows = &view.windows;
        let admits = |r: &Reservation, j: JobIdx| -> bool {
            let (s, e) = windows[j as usize];
            jobs.get(j as usize)
                .is_some_and(|job| acl::access(r, job, s, e).is_granted())
        };
        let mut store = engine.admin_reservations().clone();
        let idx = view.table.len() as ResIdx;
        let created = store
            .create(
                request,
                now,
                &view.cluster,
                &mut view.profile,
                idx,
                &PolicyChooser(cfg.params.node_allocation_policy),
                &admits,
            )
            .map_err(admin_error)?;
        let nodes: Vec<String> = created
            .claims
            .iter()
            .map(|c| format!("{}:{}", view.cluster.nodes[c.node as usize].name, c.tasks))
            .collect();
        if dry_run {
            return Ok((created, nodes));
        }
        self.engine.set_admin_reservations(store);
        self.clock = self.clock.max(now);
        self.changed();
        self.log(
            LogLevel::Info,
            format!(
                "reservation {} created{} ({} to {}) on {}",
                created.id,
                by_whom(by, " by "),
                created.start,
                created.end,
                nodes.join(",")
            ),
        );
        Ok((created, nodes))
    }

    /// Releases an administrative reservation (releaseres).
    pub fn release_reservation(&mut self, id: &str, by: Option<&str>) -> Result {
        self.engine
            .release_admin_reservation(id)
            .map_err(admin_error)?;
        self.changed();
        self.log(
            LogLevel::Info,
            format!("reservation {id} released{}", by_whom(by, " by ")),
        );
        Ok(())
    }

    /// Sets (1 to MAX_PRIO_VAL) or clears (0) a job's system priority
    /// (setspri).
    pub fn set_system_priority(&mut self, id: &str, priority: i64, by: Option<&str>) -> Result {
        if id.is_empty() {
            return Err(Error::new(ErrorKind::BadValue, "job_id is empty"));
        }
        if !(0..=MAX_PRIO_VAL).contains(&priority) {
            return Err(Error::new(
                ErrorKind::BadValue,
                format!(
                    "system priority {priority} is out of range (0 clears, 1 to {MAX_PRIO_VAL} set)"
                ),
            ));
        }
        if priority == 0 {
            self.engine.clear_system_priority(id);
        } else {
            self.engine.set_system_priority(id, priority);
        }
        self.changed();
        self.log(
            LogLevel::Info,
            format!(
                "job {id}: system priority {priority}{}",
                by.map(|b| format!(" (set by {b})")).unwrap_or_default()
            ),
        );
        Ok(())
    }

    /// Clears a job's system priority ([`ErrorKind::NotFound`] when it has
    /// none).
    pub fn clear_system_priority(&mut self, id: &str) -> Result {
        if self.engine.clear_system_priority(id).is_none() {
            return Err(Error::new(
                ErrorKind::NotFound,
                format!("job {id} has no system priority"),
            ));
        }
        self.changed();
        self.log(LogLevel::Info, format!("job {id}: system priority cleared"));
        Ok(())
    }

    /// A job of the last iteration.
    pub(super) fn known_job(&self, id: &str) -> Result<Job, Failed> {
        let last = self.engine.last.as_ref().ok_or_else(no_iteration)?;
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

    /// Notes what became of the last plan's start of job `id`, as the
    /// resource manager answered the front end: the views show the job
    /// running (or waiting again, with the refusal) until the next
    /// snapshot says. [`ErrorKind::NotFound`] when that plan does not
    /// start the job.
    pub fn start_result(&mut self, id: &str, outcome: StartOutcome) -> Result {
        let last = self
            .engine
            .last
            .as_ref()
            .ok_or_else(|| Error::new(ErrorKind::NoIteration, "no iteration has run yet"))?;
        if !last.record_start(id, outcome) {
            return Err(Error::new(
                ErrorKind::NotFound,
                format!("job {id} is not a start of the last plan"),
            ));
        }
        Ok(())
    }

    /// A job of the last iteration that is still queued.
    pub(super) fn queued_job(&self, id: &str, cmd: &str) -> Result<Job, Failed> {
        let job = self.known_job(id)?;
        let started = self.engine.last.as_ref().is_some_and(|l| l.started(id));
        let only = if cmd == "runjob" {
            "only queued jobs can be started"
        } else {
            "only queued jobs can be held or released"
        };
        if started {
            let at = self.engine.last.as_ref().map_or(0, |l| l.plan.now);
            return Err(Failed::new(
                ErrorCode::Refused,
                format!(
                    "{cmd}: job {id} was started at {} by mauisched: {only}",
                    self.engine.cfg.zone.fmt(at)
                ),
            ));
        }
        if job.state != JobState::Idle {
            return Err(Failed::new(
                ErrorCode::Refused,
                format!("{cmd}: job {id} is {}: {only}", job.state.name()),
            ));
        }
        Ok(job)
    }

    /// Carries out an operator's change for `caller`, refused unless the
    /// caller's admin level allows the command: validated in full before
    /// anything changes, logged with who asked.
    pub fn apply(&mut self, caller: &Caller, m: Mutation) -> Result<Done, Failed> {
        let cmd = command(&m);
        let needs = auth::required(cmd);
        if caller.level < needs {
            return Err(Failed::new(
                ErrorCode::PermissionDenied,
                format!(
                    "{cmd}: permission denied: this command needs {} (you are {}, {})",
                    needs.name(),
                    caller.user,
                    caller.level.name()
                ),
            ));
        }
        let who = caller.describe();
        let r = match m {
            Mutation::SetRes(req) => self.setres(*req, &who),
            Mutation::ReleaseRes(ids) => self.releaseres(&ids, &who),
            Mutation::SetSpri { job, priority } => {
                self.known_job(&job)?;
                self.set_system_priority(&job, priority, Some(&who))
                    .map_err(failed)?;
                done(
                    "job system priority adjusted\n".into(),
                    json!({"job": job, "system_priority": priority}),
                )
            }
            Mutation::SetSpriRelative { job, delta } => {
                self.known_job(&job)?;
                let had = self
                    .engine
                    .remembered()
                    .system_priority
                    .get(&job)
                    .copied()
                    .unwrap_or(0);
                let priority = had.saturating_add(delta).clamp(0, MAX_PRIO_VAL);
                self.set_system_priority(&job, priority, Some(&who))
                    .map_err(failed)?;
                done(
                    "job system priority adjusted\n".into(),
                    json!({"job": job, "system_priority": priority}),
                )
            }
            Mutation::SetHold(jobs, types) => self.sethold(&jobs, types, caller),
            Mutation::ReleaseHold(jobs, types) => self.releasehold(&jobs, types, caller),
            Mutation::CancelJob(jobs) => self.canceljob(&jobs, caller),
            Mutation::RunJob { job, nodes } => self.runjob(&job, nodes.as_deref(), caller),
            Mutation::Sched(SchedCtl::Reconfigure) => self.schedctl_reconfigure(&who),
            Mutation::Sched(SchedCtl::Stop { at }) => self.schedctl_stop(caller, at),
            Mutation::Sched(SchedCtl::Step(n)) => self.schedctl_step(caller, n),
            Mutation::Sched(SchedCtl::Resume) => self.schedctl_resume(&who),
            Mutation::Sched(SchedCtl::Kill) => self.schedctl_kill(caller),
            Mutation::Sched(SchedCtl::NodeTable) => self.schedctl_node_table(),
            Mutation::ResetStats => self.resetstats(&who),
        };
        if r.is_ok() {
            self.publish(false);
            if let Some(w) = &self.wakeup {
                w.notify();
            }
        }
        r
    }

    fn setres(&mut self, req: AdminRequest, who: &str) -> Result<Done, Failed> {
        let now = self.clock;
        let (r, nodes) = self
            .create_reservation(req, now, Some(who), false)
            .map_err(failed)?;
        let plural = |n: usize| if n == 1 { "" } else { "s" };
        let mut text = format!(
            "reservation '{}' created on {} node{} ({} task{})\n\n",
            r.id,
            nodes.len(),
            plural(nodes.len()),
            r.tasks(),
            plural(r.tasks() as usize)
        );
        for n in &nodes {
            text.push_str(n);
            text.push('\n');
        }
        text.push_str(&format!("\n(in force {})\n", self.when_applied()));
        done(
            text,
            json!({"reservation": r.id, "start": r.start, "end": r.end, "nodes": nodes}),
        )
    }

    /// Why releaseres refuses a name that is no administrative reservation.
    fn not_releasable(&self, id: &str) -> Failed {
        let what = self.engine.last.as_ref().and_then(|l| {
            crate::commands::showres::table(l)
                .into_iter()
                .find(|r| r.id == id)
                .map(|r| r.type_name())
        });
        let message = match what {
            Some("Job") => format!(
                "releaseres: {id} is a job reservation: the scheduler makes it again at every iteration"
            ),
            Some(_) => {
                format!("releaseres: {id} is a standing reservation: change its SRCFG in maui.cfg")
            }
            None => format!("releaseres: no reservation \"{id}\""),
        };
        let code = match what {
            Some(_) => ErrorCode::Refused,
            None => ErrorCode::NotFound,
        };
        Failed::new(code, message)
    }

    fn releaseres(&mut self, ids: &[String], who: &str) -> Result<Done, Failed> {
        // Maui's `releaseres ALL`: every administrative reservation.
        let all: Vec<String>;
        let ids = if ids.iter().any(|i| i == "ALL") {
            all = self
                .engine
                .admin_reservations()
                .records
                .iter()
                .map(|r| r.id.clone())
                .collect();
            if all.is_empty() {
                return Err(Failed::new(
                    ErrorCode::NotFound,
                    "releaseres ALL: there is no administrative reservation to release",
                ));
            }
            &all[..]
        } else {
            ids
        };
        // Maui names the type showres shows (User, Group, System, ...).
        let types: Vec<&'static str> = {
            let table = self
                .engine
                .last
                .as_ref()
                .map(|l| crate::commands::showres::table(l))
                .unwrap_or_default();
            ids.iter()
                .map(|id| {
                    table
                        .iter()
                        .find(|r| &r.id == id)
                        .map_or("User", |r| r.type_name())
                })
                .collect()
        };
        if let Some(id) = ids
            .iter()
            .find(|id| self.engine.admin_reservations().get(id).is_none())
        {
            return Err(self.not_releasable(id));
        }
        let mut text = String::new();
        for (id, kind) in ids.iter().zip(types) {
            self.release_reservation(id, Some(who)).map_err(failed)?;
            text.push_str(&format!("released {kind} reservation '{id}'\n"));
        }
        done(text, json!({"released": ids}))
    }

    fn sethold(
        &mut self,
        jobs: &[String],
        types: HoldTypes,
        caller: &Caller,
    ) -> Result<Done, Failed> {
        for j in jobs {
            self.queued_job(j, "sethold")?;
        }
        for j in jobs {
            for &k in types.kinds() {
                self.engine.queue_hold(j, k, &caller.user);
            }
        }
        self.persist.admin_pending = true;
        let (what, title) = match types {
            HoldTypes::System => ("system hold", "System Hold"),
            HoldTypes::User => ("user hold", "User Hold"),
            HoldTypes::All => ("user and system holds", "User and System Holds"),
        };
        self.log(
            LogLevel::Info,
            format!(
                "sethold by {}: {what} on {}",
                caller.describe(),
                jobs.join(", ")
            ),
        );
        done(
            format!(
                "{title} Placed on All Specified Jobs\n(the resource manager applies it {}, if the job is still queued then)\n",
                self.when_applied()
            ),
            json!({"held": jobs, "holds": hold_names(types.kinds())}),
        )
    }

    fn releasehold(
        &mut self,
        jobs: &[String],
        types: HoldTypes,
        caller: &Caller,
    ) -> Result<Done, Failed> {
        // Each job's holds to release: those of the types asked for that it
        // has, or that a sethold not sent yet is placing.
        let mut release: Vec<(&String, Vec<HoldKind>)> = Vec::new();
        for j in jobs {
            let job = self.queued_job(j, "releasehold")?;
            let kinds: Vec<HoldKind> = (types.kinds().iter().copied())
                .filter(|&k| {
                    job.holds.contains(&k)
                        || ActionKind::for_hold(k, true)
                            .is_some_and(|a| self.engine.action_pending(j, a))
                })
                .collect();
            if kinds.is_empty() {
                let asked = match types {
                    HoldTypes::System => "no system hold",
                    HoldTypes::User => "no user hold",
                    HoldTypes::All => "no hold",
                };
                let others = match job.holds.first() {
                    None => String::new(),
                    Some(HoldKind::Batch) => {
                        " (its batch hold is the resource manager's to release)".into()
                    }
                    Some(h) => {
                        let (name, flag) = if *h == HoldKind::User {
                            ("user", "-u")
                        } else {
                            ("system", "-s")
                        };
                        format!(" (it has a {name} hold: releasehold {flag} releases that)")
                    }
                };
                return Err(Failed::new(
                    ErrorCode::Refused,
                    format!("releasehold: job {j} has {asked}{others}"),
                ));
            }
            release.push((j, kinds));
        }
        let mut text = String::new();
        for (j, kinds) in &release {
            for &k in kinds {
                self.engine.queue_release(j, k, &caller.user);
            }
            text.push_str(&format!("holds modified for job {j}\n"));
        }
        text.push_str(&format!(
            "(the resource manager applies this {})\n",
            self.when_applied()
        ));
        self.persist.admin_pending = true;
        let described: Vec<String> = (release.iter())
            .map(|(j, k)| format!("{j} ({})", hold_names(k).join(", ")))
            .collect();
        self.log(
            LogLevel::Info,
            format!(
                "releasehold by {}: {}",
                caller.describe(),
                described.join(", ")
            ),
        );
        let data: Vec<serde_json::Value> = (release.iter())
            .map(|(j, k)| json!({"job": j, "holds": hold_names(k)}))
            .collect();
        done(text, json!({"released": jobs, "holds": data}))
    }

    /// canceljob: Maui's rules (`UIJobCancel`): an administrator (ADMIN1 or
    /// ADMIN2) cancels any job, anyone else only their own; every job is
    /// checked before any is cancelled.
    fn canceljob(&mut self, jobs: &[String], caller: &Caller) -> Result<Done, Failed> {
        for j in jobs {
            let job = self.known_job(j)?;
            if !(job.state == JobState::Idle || job.state.is_active()) {
                return Err(Failed::new(
                    ErrorCode::Refused,
                    format!(
                        "canceljob: job {j} is {}: only queued or running jobs can be cancelled",
                        job.state.name()
                    ),
                ));
            }
            if caller.level < Level::Admin2 && job.user != caller.user {
                return Err(Failed::new(
                    ErrorCode::PermissionDenied,
                    format!("user {} is not authorized to cancel job '{j}'", caller.user),
                ));
            }
        }
        let mut text = String::new();
        for j in jobs {
            self.engine.queue_cancel(j, &caller.user);
            text.push_str(&format!("job '{j}' cancelled\n"));
        }
        text.push_str(&format!(
            "(the resource manager ends the jobs {})\n",
            self.when_applied()
        ));
        self.persist.admin_pending = true;
        self.log(
            LogLevel::Info,
            format!("canceljob by {}: {}", caller.describe(), jobs.join(", ")),
        );
        done(text, json!({"cancelled": jobs}))
    }

    fn runjob(
        &mut self,
        job: &str,
        nodes: Option<&[(String, Option<u32>)]>,
        caller: &Caller,
    ) -> Result<Done, Failed> {
        let allocation = self.runjob_allocation(job, nodes)?;
        let list: Vec<String> = allocation
            .iter()
            .map(|a| format!("{}:{}", a.node, a.tasks))
            .collect();
        self.engine.force_start(ForcedStart {
            job: job.to_string(),
            allocation: allocation.clone(),
            by: caller.user.clone(),
        });
        self.persist.admin_pending = true;
        self.log(
            LogLevel::Info,
            format!(
                "runjob by {}: job {job} starts on {} at the next iteration (priority, policies and reservations bypassed)",
                caller.describe(),
                list.join(",")
            ),
        );
        done(
            format!(
                "job {job} will be started on {} {}\n",
                list.join(","),
                self.when_applied()
            ),
            json!({"job": job, "allocation": allocation}),
        )
    }

    fn schedctl_reconfigure(&mut self, who: &str) -> Result<Done, Failed> {
        let diags = match self.reconfigure(None) {
            Ok(diags) => diags,
            Err(e) => {
                return Err(Failed::new(
                    ErrorCode::Refused,
                    format!(
                        "{} not reloaded; the previous configuration stays in force:\n{}",
                        self.config_path.display(),
                        e.message
                    ),
                ))
            }
        };
        let warnings: Vec<_> = diags
            .iter()
            .filter(|d| d.severity == crate::config::Severity::Warning)
            .collect();
        self.log(
            LogLevel::Info,
            format!("schedctl -R by {who}: configuration reloaded"),
        );
        let warn = warnings.len();
        let mut text = format!(
            "{} reloaded ({warn} warning{})\n",
            self.config_path.display(),
            if warn == 1 { "" } else { "s" }
        );
        for d in warnings {
            text.push_str(&format!("{d}\n"));
        }
        if let Some(s) = self.engine.stopped() {
            text.push_str(&format!(
                "NOTE:  scheduling is stopped (schedctl -s by {}): schedctl -r resumes it\n",
                s.by
            ));
        }
        done(text, json!({"config": self.config_path, "warnings": warn}))
    }

    /// Iterations run so far: Maui's iteration number.
    fn iteration(&self) -> u64 {
        self.iterations
    }

    /// `schedctl -s [ITERATION]`: stop now, or once that iteration has run.
    fn schedctl_stop(&mut self, caller: &Caller, at: Option<u64>) -> Result<Done, Failed> {
        let now_it = self.iteration();
        if let Some(n) = at.filter(|n| *n > now_it) {
            return self.stop_later(caller, n, "-s");
        }
        if let Some(s) = self.engine.stopped() {
            return done(
                format!(
                    "scheduling is already stopped (by {} at {})\n",
                    s.by,
                    self.engine.config().zone.fmt_named(s.at)
                ),
                json!({"stopped": s, "iteration": now_it}),
            );
        }
        let s = self.stop_now(caller, "-s");
        done(
            format!(
                "scheduling will stop immediately at iteration {now_it}\n(no job is started until schedctl -r)\n"
            ),
            json!({"stopped": s, "iteration": now_it}),
        )
    }

    /// `schedctl -S COUNT`: run COUNT more iterations, then stop.
    fn schedctl_step(&mut self, caller: &Caller, count: u64) -> Result<Done, Failed> {
        let n = self.iteration() + count;
        if self.engine.resume().is_some() {
            self.persist.admin_pending = true;
        }
        self.stop_later(caller, n, "-S")
    }

    /// Stops scheduling now; returns who and when.
    fn stop_now(&mut self, caller: &Caller, flag: &str) -> StopInfo {
        let s = StopInfo {
            by: caller.user.clone(),
            at: self.clock,
        };
        self.engine.stop(s.clone());
        self.stop_at = None;
        self.persist.admin_pending = true;
        self.log(
            LogLevel::Info,
            format!(
                "schedctl {flag} by {}: scheduling stopped: plans carry no job starts until schedctl -r",
                caller.describe()
            ),
        );
        s
    }

    /// Stops scheduling once iteration `n` has run.
    fn stop_later(&mut self, caller: &Caller, n: u64, flag: &str) -> Result<Done, Failed> {
        let left = n.saturating_sub(self.iteration());
        let poll = self.engine.config().params.rm_poll_interval.0.max(1) as u64;
        let s = StopInfo {
            by: caller.user.clone(),
            at: self.clock,
        };
        self.stop_at = Some((n, s));
        let when = crate::model::time::fmt_duration(left.saturating_mul(poll) as i64);
        self.log(
            LogLevel::Info,
            format!(
                "schedctl {flag} by {}: scheduling stops at iteration {n}",
                caller.describe()
            ),
        );
        done(
            format!("scheduling will stop in {when} at iteration {n}\n"),
            json!({"stop_at_iteration": n, "iteration": self.iteration()}),
        )
    }

    /// Stops scheduling when the iteration `schedctl -s N` or `-S` named
    /// has run (called after each iteration).
    pub(super) fn stop_when_due(&mut self) {
        if let Some((n, s)) = self.stop_at.clone() {
            if self.iteration() >= n {
                self.stop_at = None;
                self.engine.stop(s.clone());
                self.persist.admin_pending = true;
                self.log(
                    LogLevel::Info,
                    format!(
                        "scheduling stopped at iteration {n} (schedctl by {}); schedctl -r resumes it",
                        s.by
                    ),
                );
            }
        }
    }

    /// `schedctl -k`: Maui shuts itself down. mauisched lives in the
    /// resource manager's daemon, which keeps running: scheduling stops.
    fn schedctl_kill(&mut self, caller: &Caller) -> Result<Done, Failed> {
        let s = match self.engine.stopped() {
            Some(s) => s.clone(),
            None => self.stop_now(caller, "-k"),
        };
        done(
            "scheduling stopped: mauisched runs inside the resource manager's daemon, which keeps running; no job is started until schedctl -r or a restart\n".into(),
            json!({"stopped": s}),
        )
    }

    /// `schedctl -n`: each node of the last iteration as a Maui resource
    /// trace line.
    fn schedctl_node_table(&mut self) -> Result<Done, Failed> {
        let Some(last) = self.engine.last.clone() else {
            return Err(Failed::new(
                ErrorCode::NoIteration,
                "schedctl -n: no scheduling iteration has run yet",
            ));
        };
        let now = last.plan.now;
        // The RM's nodes as the last iteration got them.
        let lines: Vec<String> = self
            .last_nodes()
            .iter()
            .map(|n| crate::sim::mauitrace::resource_line(n, now))
            .collect();
        let mut text = lines.join("\n");
        text.push('\n');
        done(text, json!({"nodes": lines}))
    }

    /// resetstats: the statistics start afresh now.
    fn resetstats(&mut self, who: &str) -> Result<Done, Failed> {
        self.stats = crate::admin::SchedStats::default();
        self.stats.started_at = Some(self.clock);
        self.publish(true);
        self.log(
            LogLevel::Info,
            format!("resetstats by {who}: statistics reset"),
        );
        done(
            format!(
                "statistics reset on {}\n",
                self.engine.config().zone.fmt(self.clock)
            ),
            json!({"reset_at": self.clock}),
        )
    }

    fn schedctl_resume(&mut self, who: &str) -> Result<Done, Failed> {
        let pending = self.stop_at.take().is_some();
        let Some(s) = self.engine.resume() else {
            return done(
                format!(
                    "scheduling will resume immediately\n{}",
                    if pending {
                        "(the stop planned by schedctl -s or -S is cancelled)\n"
                    } else {
                        "(it was not stopped)\n"
                    }
                ),
                json!({"stopped": null}),
            );
        };
        self.persist.admin_pending = true;
        self.log(
            LogLevel::Info,
            format!(
                "schedctl -r by {who}: scheduling resumed (stopped by {} at {})",
                s.by,
                self.engine.config().zone.fmt_named(s.at)
            ),
        );
        done(
            "scheduling will resume immediately\n".into(),
            json!({"stopped": null}),
        )
    }
}
