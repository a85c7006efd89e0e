//! The live admin endpoint: Maui's commands against the running scheduler.
//!
//! Wherever the library is hosted (inside slurmctld through the plugin,
//! inside the PBS scheduler daemon), the running service serves a local
//! Unix socket ([`server`], started by `crate::service::Shared`). `mauictl`
//! and its Maui-named links (`showq`, `setres`, ...) send one request per
//! connection in a small versioned JSON-lines protocol ([`protocol`]); the
//! server identifies the caller from the kernel (`SO_PEERCRED`) and
//! authorises the command by Maui's admin levels ([`auth`]).
//!
//! Reading commands render from the latest completed iteration, published
//! by the service after every iteration as an immutable [`Published`]
//! value: a client never holds the engine while it is being served. One
//! asked while an iteration runs waits for that iteration's view, as
//! Maui's commands waited for its scheduling cycle ([`PublishedSlot`]).
//! Commands that change something ([`ops`]) are parsed first, then handed
//! to the [`Backend`] (the service), which checks the caller's level again
//! and carries them out under its lock, validated in full before anything
//! changes, and logged with who made them; what the resource manager must
//! do (holds, releases, forced starts) goes out with the next plan.

pub mod auth;
pub mod client;
pub mod nodestats;
pub mod ops;
pub mod protocol;
pub mod server;
pub mod stats;
#[allow(unsafe_code)]
pub(crate) mod sys;

pub use auth::{Caller, Level};
pub use ops::{HoldTypes, Mutation, SchedCtl};
pub use protocol::{ErrorCode, Request, Response};
pub use server::Server;
pub use stats::SchedStats;

use crate::commands::{self, spec, CommandError, Context, Output, Viewer};
use crate::config::Config;
use crate::engine::{LastIteration, StopInfo};
use crate::fairshare::Fairshare;
use crate::model::Time;
use serde_json::Value;
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

/// What reading commands render from: one consistent view of the scheduler
/// as of its last iteration (or last change).
#[derive(Clone)]
pub struct Published {
    /// The configuration in force.
    pub cfg: Arc<Config>,
    /// The last completed iteration.
    pub last: Option<Arc<LastIteration>>,
    /// Fairshare usage.
    pub fairshare: Arc<Fairshare>,
    /// Scheduling stopped by an operator, if so.
    pub stopped: Option<StopInfo>,
    /// Statistics since the handle was created.
    pub stats: Arc<SchedStats>,
    /// The scheduler's clock (the latest time the host gave).
    pub clock: Time,
    /// The uid the scheduler runs as (the resource manager's own user).
    pub host_uid: u32,
    /// What the last iteration was given and the memory it started from
    /// (`mauictl snapshot`).
    pub snapshot: Option<Arc<crate::service::KeptSnapshot>>,
    /// An iteration is under way: `last` and `snapshot` are let go of
    /// until it publishes its own (see [`PublishedSlot`]).
    pub iterating: bool,
}

impl Published {
    /// A view before any iteration.
    pub fn empty(cfg: Arc<Config>) -> Published {
        Published {
            cfg,
            last: None,
            fairshare: Arc::new(Fairshare::default()),
            stopped: None,
            stats: Arc::new(SchedStats::default()),
            clock: 0,
            host_uid: auth::own_uid(),
            snapshot: None,
            iterating: false,
        }
    }
}

/// How long a reading command waits for the iteration under way to publish
/// its view before it is answered [`ErrorCode::Busy`].
pub const ITERATION_WAIT: Duration = Duration::from_secs(10);

/// The published view, shared by the service and the admin socket's
/// threads.
///
/// An iteration lets go of the last one's view before it starts
/// ([`PublishedSlot::begin_iteration`]): the view holds the last
/// iteration's profiles, plan and jobs, and holding them while the next is
/// made would double the scheduler's memory at its peak (inside slurmctld
/// or the PBS scheduler daemon) and keep the engine from reusing the jobs'
/// buffers. Reading commands asked meanwhile wait for the new view
/// ([`PublishedSlot::settled`]), as Maui's commands waited for the
/// scheduler to finish its iteration; the socket's own bookkeeping (the
/// configuration, who is an administrator) reads the view at once.
pub struct PublishedSlot {
    view: Mutex<Arc<Published>>,
    changed: Condvar,
}

impl PublishedSlot {
    /// A slot holding `view`.
    pub fn new(view: Published) -> PublishedSlot {
        PublishedSlot {
            view: Mutex::new(Arc::new(view)),
            changed: Condvar::new(),
        }
    }

    /// The view as it is now (during an iteration, without the last
    /// iteration).
    pub fn now(&self) -> Arc<Published> {
        crate::service::lock(&self.view).clone()
    }

    /// The view to render from: the current one, or while an iteration is
    /// under way the one it publishes, waited for at most `wait` (after
    /// which the view still says `iterating`).
    pub fn settled(&self, wait: Duration) -> Arc<Published> {
        let deadline = Instant::now() + wait;
        let mut g = crate::service::lock(&self.view);
        while g.iterating {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                break;
            }
            g = match self.changed.wait_timeout(g, left) {
                Ok((g, _)) => g,
                Err(p) => p.into_inner().0,
            };
        }
        g.clone()
    }

    /// Publishes `view`, waking the readers waiting for it.
    pub fn set(&self, view: Published) {
        *crate::service::lock(&self.view) = Arc::new(view);
        self.changed.notify_all();
    }

    /// An iteration starts: the view keeps everything but the last
    /// iteration and the snapshot kept with it, and says one is under way.
    /// Should the iteration panic, readers are answered busy after their
    /// wait until the front end opens the library again.
    pub fn begin_iteration(&self) {
        let mut g = crate::service::lock(&self.view);
        let view = Published {
            last: None,
            snapshot: None,
            iterating: true,
            ..Published::clone(&g)
        };
        *g = Arc::new(view);
    }
}

/// A change that was made: text for people, data for `--json`.
#[derive(Clone, Debug, PartialEq)]
pub struct Done {
    /// Maui-style confirmation.
    pub text: String,
    /// The same for scripts.
    pub data: Value,
}

/// A change that could not be made (nothing changed).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failed {
    /// Error code.
    pub code: ErrorCode,
    /// Why.
    pub message: String,
}

impl Failed {
    /// A failure with a code and a message.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Failed {
        Failed {
            code,
            message: message.into(),
        }
    }
}

/// The scheduler behind the socket.
pub trait Backend: Send + Sync {
    /// The current published view (cheap: an `Arc`), without waiting for
    /// an iteration under way (see [`PublishedSlot`]).
    fn published(&self) -> Arc<Published>;
    /// The view a reading command renders from: while an iteration is
    /// under way, the one it publishes, waited for at most
    /// [`ITERATION_WAIT`].
    fn settled(&self) -> Arc<Published> {
        self.published()
    }
    /// Carries out a change under the engine's lock: validates it in full
    /// first, changes nothing on error, logs who made it.
    fn mutate(&self, caller: &Caller, m: Mutation) -> Result<Done, Failed>;
    /// Sends a message to the host's log (queued; delivered by the host's
    /// next call into the library).
    fn note(&self, level: crate::service::LogLevel, message: String);
}

/// Every command the socket serves.
pub fn all_commands() -> Vec<&'static str> {
    let mut v: Vec<&str> = commands::COMMANDS.to_vec();
    v.push("showstats");
    v.push("snapshot");
    v.extend(ops::MUTATIONS);
    v
}

fn command_error(e: CommandError) -> Response {
    let code = match &e {
        CommandError::Unknown(_) => ErrorCode::UnknownCommand,
        CommandError::Usage(_) => ErrorCode::Usage,
        CommandError::NotFound(_) => ErrorCode::NotFound,
        CommandError::NoIteration(_) => ErrorCode::NoIteration,
        CommandError::Denied(_) => ErrorCode::PermissionDenied,
    };
    let mut r = Response::error(code, e.to_string());
    if code == ErrorCode::PermissionDenied {
        if let Some(b) = r.error.as_mut() {
            b.needs = Some(Level::Admin3.name().into());
        }
    }
    r
}

/// The arguments checked against the command's table (refused flags and
/// unknown ones are named), with Torque's short job ids made whole from
/// the last iteration's jobs.
fn spelled(cmd: &str, args: &[String], view: &Published) -> Result<Vec<String>, Box<Response>> {
    let Some(sp) = spec::find(cmd) else {
        return Ok(args.to_vec());
    };
    let strs: Vec<&str> = args.iter().map(String::as_str).collect();
    sp.check_args(&strs)
        .map_err(|e| Box::new(Response::error(ErrorCode::Usage, e)))?;
    let mut out = args.to_vec();
    if let Some(last) = view.last.as_deref() {
        for i in sp.job_operands(&strs) {
            out[i] = commands::resolve_job_id(last.jobs.iter().map(|j| j.id.as_str()), &args[i])
                .map_err(|e| {
                    Box::new(Response::error(ErrorCode::NotFound, format!("{cmd}: {e}")))
                })?;
        }
    }
    Ok(out)
}

/// showstats: the scheduler's statistics (`-s`, the default), or per
/// credential (`-u`, `-g`, `-a`, `-c`, `-q`, each with an optional name).
fn showstats(view: &Published, args: &[&str], json: bool) -> Response {
    let mut kind = None;
    let mut name = None;
    let (mut verbose, mut nodes, mut summary) = (false, false, false);
    let mut it = args.iter().peekable();
    while let Some(a) = it.next() {
        let k = match (*a, commands::cred_flag(a)) {
            (_, Some(k)) => k,
            ("-v", _) => {
                verbose = true;
                continue;
            }
            ("-n", _) => {
                nodes = true;
                continue;
            }
            ("-S", _) => {
                summary = true;
                continue;
            }
            ("-s", _) => continue,
            (x, _) => {
                return Response::error(
                    ErrorCode::Usage,
                    format!(
                        "showstats: unexpected argument \"{x}\" (`showstats -h` lists the options)"
                    ),
                )
            }
        };
        if kind.replace(k).is_some() {
            return Response::error(
                ErrorCode::Usage,
                "showstats: give one of -u, -g, -a, -c and -q",
            );
        }
        name = it.next_if(|n| !n.starts_with('-')).copied();
    }
    let zone = &view.cfg.zone;
    if nodes {
        if kind.is_some() {
            return Response::error(
                ErrorCode::Usage,
                "showstats: give one of -n, -u, -g, -a, -c and -q",
            );
        }
        let Some(last) = view.last.as_deref() else {
            return Response::error(
                ErrorCode::NoIteration,
                "showstats -n: no scheduling iteration has run yet",
            );
        };
        return if json {
            Response::data(nodestats::json(&view.cfg, last, &view.stats.nodes))
        } else {
            Response::text(nodestats::render(
                &view.cfg,
                last,
                &view.stats.nodes,
                summary,
            ))
        };
    }
    let Some(kind) = kind else {
        return if json {
            let mut v = view.stats.json();
            commands::with_local_times(&mut v, zone);
            Response::data(v)
        } else {
            Response::text(view.stats.render(zone))
        };
    };
    match view
        .stats
        .cred_rows(&view.cfg, view.last.as_deref(), kind, name, verbose)
    {
        Err(e) => Response::error(ErrorCode::NotFound, format!("showstats: {e}")),
        Ok(rows) if json => {
            let mut v = serde_json::json!({
                "credential": kind.name().to_lowercase(),
                "started_at": view.stats.started_at,
                "rows": rows,
            });
            commands::with_local_times(&mut v, zone);
            Response::data(v)
        }
        Ok(rows) => Response::text(view.stats.render_creds(kind, &rows, zone)),
    }
}

/// `mauictl snapshot`: the snapshot the last iteration was given, with the
/// memory it started from, as one JSON document (docs/snapshot.md). It is
/// JSON already: `--json` changes nothing.
fn snapshot(view: &Published, args: &[String]) -> Response {
    if let Some(a) = args.first() {
        return Response::error(
            ErrorCode::Usage,
            format!("snapshot: unexpected argument \"{a}\" (it takes none)"),
        );
    }
    match &view.snapshot {
        Some(k) => Response::text(k.document()),
        None => Response::error(
            ErrorCode::NoIteration,
            "snapshot: no scheduling iteration has run yet",
        ),
    }
}

/// Answers one request from `caller`: authorises it, then renders from the
/// published view or hands a change to the backend.
pub fn dispatch(backend: &dyn Backend, caller: &Caller, req: &Request) -> Response {
    let mut resp = answer(backend, caller, req);
    resp.user = Some(caller.user.clone());
    resp.level = Some(caller.level.name().into());
    resp
}

fn answer(backend: &dyn Backend, caller: &Caller, req: &Request) -> Response {
    let cmd = req.cmd.as_str();
    if !all_commands().contains(&cmd) {
        return Response::error(
            ErrorCode::UnknownCommand,
            format!(
                "unknown command \"{cmd}\" (known: {})",
                all_commands().join(", ")
            ),
        );
    }
    let needs = auth::required(cmd);
    if caller.level < needs {
        backend.note(
            crate::service::LogLevel::Info,
            format!(
                "admin socket: {cmd} refused to {}: needs {}",
                caller.describe(),
                needs.name()
            ),
        );
        let mut r = Response::error(
            ErrorCode::PermissionDenied,
            format!(
                "{cmd}: permission denied: this command needs {} (you are {}, {})",
                needs.name(),
                caller.user,
                match caller.level {
                    Level::User => "not an administrator".to_string(),
                    l => format!("{} only", l.name()),
                }
            ),
        );
        if let Some(b) = r.error.as_mut() {
            b.needs = Some(needs.name().into());
        }
        return r;
    }
    let view = backend.settled();
    if view.iterating {
        return Response::error(
            ErrorCode::Busy,
            format!(
                "{cmd}: the scheduler is still in an iteration after {} s: try again",
                ITERATION_WAIT.as_secs()
            ),
        );
    }
    if cmd == "snapshot" {
        return snapshot(&view, &req.args);
    }
    let args = match spelled(cmd, &req.args, &view) {
        Ok(a) => a,
        Err(r) => return *r,
    };
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    if ops::MUTATIONS.contains(&cmd) {
        let m = match ops::parse(cmd, &args, view.clock, &view.cfg.zone) {
            Ok(m) => m,
            Err(e) => return Response::error(ErrorCode::Usage, e),
        };
        drop(view);
        return match backend.mutate(caller, m) {
            Ok(done) if req.json => Response::data(done.data),
            Ok(done) => Response::text(done.text),
            Err(f) => Response::error(f.code, f.message),
        };
    }
    if cmd == "showstats" {
        return showstats(&view, &args, req.json);
    }
    let viewer = Viewer {
        user: caller.user.clone(),
        admin: caller.level >= Level::Admin3,
    };
    let ctx = Context {
        cfg: &view.cfg,
        last: view.last.as_deref(),
        fairshare: &view.fairshare,
        stopped: view.stopped.as_ref(),
        viewer: Some(&viewer),
    };
    match commands::execute(&ctx, cmd, &args, req.json) {
        Ok(Output::Text(t)) => Response::text(t),
        Ok(Output::Json(v)) => Response::data(v),
        Err(e) => command_error(e),
    }
}
