//! The scheduler a front end runs, in safe Rust: open a state directory
//! ([`Service::open`]), run an iteration on a snapshot
//! ([`Service::iterate`]), apply an operator's change as a typed mutation
//! checked against the caller's level ([`Service::apply`] and the methods
//! behind it), reconfigure ([`Service::reconfigure`]) and checkpoint
//! ([`Service::checkpoint`]).
//!
//! The C ABI (`ffi`) only translates C calls into it; the admin socket
//! serves a running service through [`Shared`]; tests and other front ends
//! drive it directly. It never calls a host: what it has to say is queued
//! as [`Notes`] (level and message), which the front end delivers on its
//! own thread when it likes (the C ABI: at the end of each call).
//!
//! A service opened with [`Service::in_memory`] has no state directory and
//! writes nothing: the simulator and `mauictl`'s offline views drive one.
//!
//! State files (see `persist` for the checkpoint and the fairshare
//! files): every maui.cfg that loads without errors is also kept as
//! [`LAST_GOOD_CONFIG`] in the state directory, and a service opened on a
//! maui.cfg with errors runs on that copy, reporting the errors.

mod config_file;
pub mod offline;
mod ops;
mod runjob;
mod socket;
#[cfg(test)]
mod tests;
mod wakeup;

pub use config_file::LAST_GOOD_CONFIG;
pub use socket::Shared;

use crate::admin::{Published, PublishedSlot, SchedStats};
use crate::commands::CommandError;
use crate::config::{Config, Diagnostic, Severity};
use crate::engine::{ActionKind, Engine, EngineState, Plan, StopInfo};
use crate::fairshare::Fairshare;
use crate::model::{Node, Snapshot, Time};
use crate::persist::journal::{self, Journal};
use crate::persist::{StateDir, StateNotice};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};

/// How much a message matters (the C ABI's `MAUISCHED_LOG_*` numbers).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
#[repr(u32)]
pub enum LogLevel {
    /// An error (the host should show it prominently).
    Error = 1,
    /// A warning.
    Warn = 2,
    /// Information about decisions.
    Info = 3,
    /// Detail for debugging.
    Debug = 4,
}

impl LogLevel {
    /// The level of a configuration diagnostic.
    pub fn of(severity: Severity) -> LogLevel {
        match severity {
            Severity::Error => LogLevel::Error,
            Severity::Warning => LogLevel::Warn,
            Severity::Note => LogLevel::Info,
        }
    }
}

/// Messages waiting for the front end to deliver them, oldest first.
pub type Notes = Arc<Mutex<Vec<(LogLevel, String)>>>;

/// Locks a mutex whether or not a thread panicked while holding it: the
/// front ends catch panics themselves and stop using what they poisoned.
pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// What kind of failure (the C ABI maps each to its status code).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    /// A value given is wrong.
    BadValue,
    /// maui.cfg has errors.
    Config,
    /// The state directory cannot be used.
    State,
    /// A file could not be read or written.
    Io,
    /// The snapshot is inconsistent.
    BadSnapshot,
    /// No iteration has run yet.
    NoIteration,
    /// No such job, node or reservation.
    NotFound,
    /// Understood, but not possible now.
    Refused,
}

/// A failure; nothing was changed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct Error {
    /// What kind.
    pub kind: ErrorKind,
    /// Why, for people.
    pub message: String,
}

impl Error {
    /// An error of a kind with a message.
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Error {
        Error {
            kind,
            message: message.into(),
        }
    }
}

/// Result of the service's calls.
pub type Result<T = (), E = Error> = std::result::Result<T, E>;

/// Where a service finds its configuration and keeps its state.
#[derive(Clone, Debug)]
pub struct Options {
    /// The site's maui.cfg.
    pub config_path: PathBuf,
    /// The state directory (created if missing).
    pub state_dir: PathBuf,
    /// The resource manager the front end drives (`slurm`, `pbs`), when it
    /// says: a configuration asking for what it cannot do is refused
    /// ([`rm_refusal`]).
    pub rm: Option<String>,
}

/// Why configuration `cfg` cannot run with resource manager `rm`: what
/// its front end could not apply, refused when maui.cfg is read rather
/// than when the policy first asks for it.
pub fn rm_refusal(cfg: &Config, rm: Option<&str>) -> Option<String> {
    let slurm = rm.is_some_and(|r| r.eq_ignore_ascii_case("slurm"));
    (slurm && cfg.params.preempt_policy == crate::config::PreemptPolicy::Checkpoint).then(|| {
        format!(
            "{}: PREEMPTPOLICY CHECKPOINT: Slurm cannot checkpoint jobs (its checkpoint support was removed in 20.11); use REQUEUE or SUSPEND",
            cfg.source
        )
    })
}

/// What an iteration was given: the resource manager's snapshot (nodes,
/// jobs, `now`) and the engine's memory as the iteration started.
/// [`KeptSnapshot::document`] is the snapshot document that carries both.
#[derive(Debug)]
pub struct KeptSnapshot {
    /// The snapshot as the front end gave it, `now` set.
    pub snapshot: Snapshot,
    /// The engine's memory before the iteration.
    pub state: EngineState,
}

impl KeptSnapshot {
    /// The snapshot with the memory ([`crate::model::memory`]), as JSON
    /// (`docs/snapshot.md`): reading it back and iterating decides the same.
    pub fn document(&self) -> String {
        use crate::model::{Job, Node};
        use serde::Serialize;
        /// [`Snapshot`]'s fields, borrowed: the jobs are not copied.
        #[derive(Serialize)]
        struct Doc<'a> {
            now: Option<Time>,
            nodes: &'a [Node],
            jobs: &'a [Job],
            admin_reservations: &'a crate::model::memory::AdminStore,
            fairshare: crate::model::memory::FairshareUsage,
            #[serde(skip_serializing_if = "crate::model::memory::Memory::is_empty")]
            state: crate::model::memory::Memory,
        }
        let (admin, fairshare, rest) = self.state.to_snapshot();
        let doc = Doc {
            now: self.snapshot.now,
            nodes: &self.snapshot.nodes,
            jobs: &self.snapshot.jobs,
            admin_reservations: &admin,
            fairshare,
            state: rest,
        };
        let mut text = serde_json::to_string_pretty(&doc).unwrap_or_default();
        text.push('\n');
        text
    }
}

/// When state was last written and whether something is waiting to be.
#[derive(Clone, Copy, Debug, Default)]
struct Persist {
    /// Iteration time of the last successful write.
    last_saved: Option<Time>,
    /// Something changed since then (an iteration ran, an operator change).
    unsaved: bool,
    /// An operator change waits: the next iteration writes, whatever
    /// CHECKPOINTINTERVAL says.
    admin_pending: bool,
}

/// What an iteration decided, and whether the state was written after it.
pub struct Ran {
    /// The plan.
    pub plan: Arc<Plan>,
    /// The state was written.
    pub saved: bool,
    /// Writing the state failed (the plan stands; the next iteration
    /// tries again).
    pub save_error: Option<Error>,
}

/// A state directory in use, with its lock.
struct Stored {
    dir: StateDir,
    /// Holds the state directory's lock while the service lives.
    _lock: std::fs::File,
    /// Fairshare accrued since the last checkpoint, one record per
    /// iteration ([`crate::persist::journal`]); `None` when it cannot be
    /// opened (reported; fairshare then falls back to the checkpoints).
    journal: Option<Journal>,
    /// The journal's last write failed (reported once until one succeeds).
    journal_failing: bool,
}

/// A running scheduler: engine, configuration, state directory.
pub struct Service {
    engine: Engine,
    config_path: PathBuf,
    /// `None` for a service in memory ([`Service::in_memory`]).
    state: Option<Stored>,
    /// The nodes of [`Service::iterate_same_nodes`], which never change
    /// (the simulator); [`Service::iterate`] keeps its in `kept`.
    last_nodes: Vec<Node>,
    /// What the last [`Service::iterate`] was given, and the memory it
    /// started from: one copy, replaced by each iteration.
    kept: Option<Arc<KeptSnapshot>>,
    clock: Time,
    persist: Persist,
    notes: Notes,
    cfg_shared: Arc<Config>,
    published: Arc<PublishedSlot>,
    stats: SchedStats,
    /// Why the site's maui.cfg was not used at open, when the service runs
    /// on the last good copy instead.
    config_fallback: Option<String>,
    /// The errors of the last maui.cfg refused (at open or on reconfigure),
    /// as logged: a reconfigure refused for the same errors does not log
    /// them again (24.11 reconfigures its scheduler plugin right after
    /// starting it; an operator may reconfigure twice).
    refusal_logged: Option<String>,
    /// The resource manager the front end drives ([`Options::rm`]).
    rm: Option<String>,
    /// Iteration on demand, once the front end asked for it
    /// ([`Service::wakeup_fd`]).
    wakeup: Option<wakeup::Wakeup>,
    /// `schedctl -s ITERATION` or `-S COUNT`: stop scheduling once this
    /// many iterations have run (held in memory; a restart forgets it).
    stop_at: Option<(u64, StopInfo)>,
    /// Iterations run by this service: Maui's iteration number.
    iterations: u64,
}

fn wall_clock() -> Time {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as Time)
}

impl Service {
    /// Opens a service: loads maui.cfg (or, when it has errors, the last
    /// good copy in the state directory: see [`LAST_GOOD_CONFIG`]), opens
    /// and locks the state directory (created if missing), resumes from its
    /// checkpoint and fairshare files. What it finds goes to `notes`, also
    /// when it fails.
    pub fn open(opts: &Options, notes: Notes) -> Result<Service> {
        let say = |level, m: String| lock(&notes).push((level, m));
        let loaded = config_file::load_at_open(&opts.config_path, &opts.state_dir)?;
        for d in &loaded.diagnostics {
            say(LogLevel::of(d.severity), d.to_string());
        }
        let config = loaded.config;
        if let Some(why) = rm_refusal(&config, opts.rm.as_deref()) {
            return Err(Error::new(ErrorKind::Config, why));
        }
        let (state, found) = StateDir::open(&opts.state_dir, &config)
            .map_err(|e| Error::new(ErrorKind::State, e.to_string()))?;
        for n in found {
            say(LogLevel::Info, n.to_string());
        }
        let lock_file = lock_state(&state)?;
        if let Some(e) = &loaded.fallback {
            say(LogLevel::Error, e.clone());
        } else if let Some(bytes) = &loaded.bytes {
            config_file::keep_last_good(state.root(), bytes, &notes);
        }
        let (es, resumed) = resume_state(&state, &config, &notes)?;
        say(
            LogLevel::Info,
            format!(
                "mauisched {} (ABI {}.{}) loaded {}; state in {} ({}, {} fairshare window(s))",
                crate::VERSION,
                env!("MAUISCHED_ABI_MAJOR"),
                env!("MAUISCHED_ABI_MINOR"),
                config.source,
                state.root().display(),
                if resumed {
                    "resumed from the checkpoint"
                } else {
                    "no checkpoint used"
                },
                es.fairshare.windows().len()
            ),
        );
        if let Some(stop) = &es.stopped {
            say(
                LogLevel::Warn,
                format!(
                    "scheduling is stopped (schedctl -s by {} at {}): no job is started until schedctl -r",
                    stop.by,
                    config.zone.fmt_named(stop.at)
                ),
            );
        }
        let clock = es.last_iteration.unwrap_or(0);
        let mut svc = Service::with_engine(
            Engine::with_state(config, es),
            opts.config_path.clone(),
            notes,
        );
        svc.rm = opts.rm.clone();
        let journal_path = state.root().join(journal::JOURNAL_FILE);
        let journal = Journal::open(&journal_path)
            .map_err(|e| {
                svc.log(
                    LogLevel::Error,
                    format!(
                        "fairshare journal {}: {e}; fairshare accrued since the last checkpoint is lost on a crash",
                        journal_path.display()
                    ),
                )
            })
            .ok();
        svc.state = Some(Stored {
            dir: state,
            _lock: lock_file,
            journal,
            journal_failing: false,
        });
        svc.clock = clock;
        svc.config_fallback = loaded.fallback;
        svc.refusal_logged = loaded.refused;
        Ok(svc)
    }

    /// A service without a state directory: it starts from no remembered
    /// state and writes nothing (checkpoints and fairshare files are
    /// skipped); the simulator and `mauictl`'s offline views run one.
    /// `schedctl -R` rereads the file the configuration came from
    /// (`config.source`).
    pub fn in_memory(config: Config, notes: Notes) -> Service {
        let path = PathBuf::from(&config.source);
        Service::with_engine(Engine::new(config), path, notes)
    }

    fn with_engine(engine: Engine, config_path: PathBuf, notes: Notes) -> Service {
        let cfg_shared = Arc::new(engine.cfg.clone());
        let published = Arc::new(PublishedSlot::new(Published::empty(cfg_shared.clone())));
        Service {
            engine,
            config_path,
            state: None,
            last_nodes: Vec::new(),
            kept: None,
            clock: 0,
            persist: Persist::default(),
            notes,
            cfg_shared,
            published,
            stats: SchedStats::default(),
            config_fallback: None,
            refusal_logged: None,
            rm: None,
            wakeup: None,
            stop_at: None,
            iterations: 0,
        }
    }

    /// A service in memory ([`Service::in_memory`]) whose engine starts
    /// from the memory `snap` carries (its `admin_reservations`,
    /// `fairshare` and `state`, taken out of it): an iteration over `snap`
    /// then decides as the scheduler that wrote it did.
    pub fn in_memory_from_snapshot(config: Config, snap: &mut Snapshot, notes: Notes) -> Service {
        let state = EngineState::from_snapshot(
            snap.admin_reservations.take(),
            snap.fairshare.take(),
            snap.state.take().map(|m| *m),
        );
        let path = PathBuf::from(&config.source);
        let clock = state.last_iteration.unwrap_or(0);
        let mut svc = Service::with_engine(Engine::with_state(config, state), path, notes);
        svc.clock = clock;
        svc
    }

    /// What the last [`Service::iterate`] was given and the memory it
    /// started from (`None` before the first, and for the simulator's
    /// [`Service::iterate_same_nodes`]).
    pub fn last_snapshot(&self) -> Option<&Arc<KeptSnapshot>> {
        self.kept.as_ref()
    }

    /// The nodes the resource manager last reported.
    fn last_nodes(&self) -> &[Node] {
        match &self.kept {
            Some(k) => &k.snapshot.nodes,
            None => &self.last_nodes,
        }
    }

    /// Queues a message for the front end.
    pub fn log(&self, level: LogLevel, message: impl Into<String>) {
        lock(&self.notes).push((level, message.into()));
    }

    fn log_diagnostics(&self, diags: &[Diagnostic]) {
        for d in diags {
            self.log(LogLevel::of(d.severity), d.to_string());
        }
    }

    /// The queue this service's messages go to.
    pub fn notes(&self) -> &Notes {
        &self.notes
    }

    /// The descriptor a front end polls to run an iteration as soon as an
    /// operator's change waits for one (made on the first call; the
    /// service owns it). From then on the commands say the change is
    /// applied now rather than within RMPOLLINTERVAL.
    pub fn wakeup_fd(&mut self) -> std::io::Result<std::os::fd::RawFd> {
        let w = match &mut self.wakeup {
            Some(w) => w,
            none => none.insert(wakeup::Wakeup::new()?),
        };
        Ok(w.fd())
    }

    /// Empties the wake-up pipe ([`Service::wakeup_fd`]); true when an
    /// operator's change was waiting.
    pub fn take_wakeup(&self) -> bool {
        self.wakeup.as_ref().is_some_and(|w| w.drain())
    }

    /// When an operator's change takes effect, for the commands' replies.
    fn when_applied(&self) -> String {
        match self.wakeup {
            Some(_) => "at the next scheduling iteration, which runs now".into(),
            None => format!(
                "at the next scheduling iteration, within the RMPOLLINTERVAL of {}",
                crate::model::time::fmt_duration(self.engine.config().params.rm_poll_interval.0)
            ),
        }
    }

    /// Takes the messages queued so far.
    pub fn take_notes(&self) -> Vec<(LogLevel, String)> {
        std::mem::take(&mut *lock(&self.notes))
    }

    /// The engine (configuration, remembered state, last iteration).
    pub fn engine(&self) -> &Engine {
        &self.engine
    }

    /// The configuration in force.
    pub fn config(&self) -> &Config {
        &self.engine.cfg
    }

    /// The configuration in force, shared (replaced, never changed, on
    /// reconfigure).
    pub(crate) fn config_shared(&self) -> Arc<Config> {
        Arc::clone(&self.cfg_shared)
    }

    /// The maui.cfg a reconfigure without a path rereads.
    pub fn config_path(&self) -> &Path {
        &self.config_path
    }

    /// The state directory (`None` in memory).
    pub fn state_dir(&self) -> Option<&StateDir> {
        self.state.as_ref().map(|s| &s.dir)
    }

    /// Why the site's maui.cfg was refused at open, when the service runs
    /// on the last good copy instead (until a reconfigure succeeds).
    pub fn config_fallback(&self) -> Option<&str> {
        self.config_fallback.as_deref()
    }

    /// The latest time the front end gave (iteration or operator change).
    pub fn clock(&self) -> Time {
        self.clock
    }

    /// Registers (or removes) the site's allocator for
    /// NODEALLOCATIONPOLICY LOCAL.
    pub fn set_local_allocator(
        &mut self,
        local: Option<Box<dyn crate::allocation::LocalAllocator + Send>>,
    ) {
        self.engine.set_local_allocator(local);
    }

    /// Renders a Maui command view from the last iteration.
    pub fn render(&self, command: &str, args: &[&str]) -> Result<String, CommandError> {
        crate::commands::run(&self.engine, command, args)
    }

    /// What the admin socket renders from, shared with its threads.
    pub(crate) fn published_handle(&self) -> Arc<PublishedSlot> {
        self.published.clone()
    }

    /// Publishes the current view for the admin socket. `full` after an
    /// iteration (fairshare and statistics changed); otherwise those are
    /// kept from the previous view.
    fn publish(&mut self, full: bool) {
        let prev = self.published.now();
        let view = Published {
            cfg: self.cfg_shared.clone(),
            last: self.engine.last.clone(),
            fairshare: if full {
                Arc::new(self.engine.remembered().fairshare.clone())
            } else {
                prev.fairshare.clone()
            },
            stopped: self.engine.stopped().cloned(),
            stats: if full {
                Arc::new(self.stats.clone())
            } else {
                prev.stats.clone()
            },
            clock: self.clock,
            host_uid: prev.host_uid,
            snapshot: self.kept.clone(),
            iterating: false,
        };
        self.published.set(view);
    }

    /// Runs one iteration over `snap` at its `now` (else the service's
    /// clock). The snapshot is checked first ([`Snapshot::normalize`]); an
    /// inconsistent one is refused ([`ErrorKind::BadSnapshot`]) and left
    /// as it is, a good one is consumed. Then the state is written when due
    /// ([`Service::save_due`]); a failed write does not fail the iteration.
    pub fn iterate(&mut self, snap: &mut Snapshot) -> Result<Ran> {
        snap.normalize()
            .map_err(|e| Error::new(ErrorKind::BadSnapshot, format!("snapshot: {e}")))?;
        let mut snap = std::mem::take(snap);
        let now = snap.now.unwrap_or(self.clock);
        self.clock = now;
        // The last iteration is let go of before this one is made (readers
        // of the admin socket wait for this one's view): see PublishedSlot.
        self.published.begin_iteration();
        self.kept = None;
        // The memory this iteration starts from, kept with the snapshot
        // (`mauictl snapshot`): what another scheduler needs to decide the
        // same.
        let before = self.engine.remembered().clone();
        let plan = self.engine.iterate(&snap, now);
        for (a, why) in &plan.dropped_actions {
            let what = match a.kind {
                ActionKind::Hold => "sethold",
                ActionKind::UserHold => "sethold -u",
                ActionKind::Release => "releasehold",
                ActionKind::UserRelease => "releasehold -u",
                ActionKind::Cancel => "canceljob",
                // Only operators' requests are dropped.
                other => other.name(),
            };
            self.log(
                LogLevel::Warn,
                format!("{what} of job {} by {} not applied: {why}", a.job, a.by),
            );
        }
        if let Some(last) = self.engine.last.clone() {
            self.stats.record(&self.engine.cfg, &snap.jobs, &last);
        }
        // A running scheduler's memory is its own, never a snapshot's.
        snap.now = Some(now);
        snap.admin_reservations = None;
        snap.fairshare = None;
        snap.state = None;
        self.kept = Some(Arc::new(KeptSnapshot {
            snapshot: snap,
            state: before,
        }));
        self.iterations += 1;
        self.stop_when_due();
        self.publish(true);
        self.persist.unsaved = true;
        self.journal_iteration();
        let (saved, save_error) = if self.save_due(now) {
            match self.save_state() {
                Ok(()) => (true, None),
                Err(e) => {
                    self.log(
                        LogLevel::Error,
                        format!(
                            "state not saved (the plan stands; the next iteration tries again): {}",
                            e.message
                        ),
                    );
                    (false, Some(e))
                }
            }
        } else {
            (false, None)
        };
        self.log(
            LogLevel::Info,
            format!(
                "iteration at {now}: {} job(s) to start ({} by backfill), {} idle, {} reservation(s)",
                plan.starts.len(),
                plan.stats.started_backfill,
                plan.jobs.iter().filter(|j| !j.started).count(),
                plan.reservations.len()
            ),
        );
        Ok(Ran {
            plan,
            saved,
            save_error,
        })
    }

    /// [`Service::iterate`] for a front end that keeps its snapshot between
    /// iterations and whose nodes never change (the simulator): the
    /// snapshot is taken as normalised and is not consumed, and nothing is
    /// published for an admin socket, counted for showstats or logged. The
    /// state is written when due, as by `iterate`, when the service has a
    /// state directory.
    pub fn iterate_same_nodes(&mut self, snap: &Snapshot, now: Time) -> Arc<Plan> {
        self.kept_snapshot(snap, now);
        let plan = self.engine.iterate_same_nodes(snap, now);
        self.iterations += 1;
        self.stop_when_due();
        self.saved_when_due(now);
        plan
    }

    /// A poll over the snapshot of the last [`Service::iterate_same_nodes`],
    /// only time advanced (see [`Engine::iterate_again`]): `None` when the
    /// iteration would start nothing and reserve the same. An operator's
    /// change since makes it a full iteration.
    pub fn iterate_again(&mut self, snap: &Snapshot, now: Time) -> Option<Arc<Plan>> {
        self.kept_snapshot(snap, now);
        let plan = self.engine.iterate_again(snap, now);
        self.iterations += 1;
        self.stop_when_due();
        self.saved_when_due(now);
        plan
    }

    /// The simulator keeps its own snapshot: only the nodes are kept here
    /// (for setres), and no memory, which it never asks for.
    fn kept_snapshot(&mut self, snap: &Snapshot, now: Time) {
        self.clock = now;
        if self.last_nodes.is_empty() {
            // setres places reservations on them; they never change.
            self.last_nodes = snap.nodes.clone();
        }
        self.persist.unsaved = true;
    }

    fn saved_when_due(&mut self, now: Time) {
        self.journal_iteration();
        if self.state.is_some() && self.save_due(now) {
            if let Err(e) = self.save_state() {
                self.log(
                    LogLevel::Error,
                    format!(
                        "state not saved (the next iteration tries again): {}",
                        e.message
                    ),
                );
            }
        }
    }

    /// The engine, taken out of the service (the simulator's summary reads
    /// its fairshare state).
    pub fn into_engine(self) -> Engine {
        self.engine
    }

    /// Keeps (or stops keeping) each idle job's priority breakdown for
    /// `diagnose -p` (see [`Engine::priority_breakdowns`]); a front end
    /// that reads only the decisions turns it off.
    pub fn set_priority_breakdowns(&mut self, keep: bool) {
        self.engine.priority_breakdowns = keep;
    }

    /// Works out each waiting job's reason in full, or (off) only what a
    /// reader of decisions and rejections needs (see
    /// [`Engine::wait_reasons`]).
    pub fn set_wait_reasons(&mut self, full: bool) {
        self.engine.wait_reasons = full;
    }

    /// True when an iteration at `now` should write the state: nothing
    /// written yet by this service, an operator change waiting, or
    /// CHECKPOINTINTERVAL elapsed (a clock that went back counts as elapsed).
    pub fn save_due(&self, now: Time) -> bool {
        let interval = self.engine.cfg.params.checkpoint_interval.0;
        self.persist.admin_pending
            || self
                .persist
                .last_saved
                .is_none_or(|t| now < t || now - t >= interval)
    }

    /// True when something changed since the state was last written.
    pub fn unsaved(&self) -> bool {
        self.persist.unsaved || self.persist.admin_pending
    }

    /// Marks an operator change: written by the next iteration.
    fn changed(&mut self) {
        self.persist.admin_pending = true;
        self.persist.unsaved = true;
    }

    /// Appends what fairshare accrued in the iteration just run to the
    /// journal and syncs it ([`crate::persist::journal`]): a crash from here
    /// on loses none of it. Runs before the state is saved, so the journal
    /// also covers a crash between the FS files and the checkpoint. A write
    /// that fails is reported, and the journal is not written again until
    /// the next checkpoint empties it (its records stay a consistent
    /// prefix).
    fn journal_iteration(&mut self) {
        let Some(stored) = self.state.as_mut() else {
            return;
        };
        let to = self.engine.remembered().last_iteration;
        let fs = self.engine.fairshare_mut();
        let (Some(j), false, Some(to)) = (stored.journal.as_mut(), stored.journal_failing, to)
        else {
            // Still taken, so the next record starts from here.
            fs.journal_changes();
            return;
        };
        if let Err(e) = journal::append_changes(j, fs, to) {
            stored.journal_failing = true;
            let m = format!(
                "writing the fairshare journal {}: {e}; until the next checkpoint a crash loses the fairshare accrued since its last record",
                j.path().display()
            );
            lock(&self.notes).push((LogLevel::Error, m));
        }
    }

    /// Writes the state: first the fairshare windows changed since they
    /// were last written (`FS.<epoch>` in STATDIR), then the checkpoint
    /// (everything else), each atomically, then empties the fairshare
    /// journal. The checkpoint's `last_iteration` says up to when the FS
    /// files hold usage; a crash between the two leaves the journal, whose
    /// records bring fairshare and `last_iteration` to this iteration.
    fn save_state(&mut self) -> Result {
        let Some(stored) = &self.state else {
            // In memory: nothing to write, nothing left unsaved.
            self.persist = Persist {
                last_saved: Some(self.clock),
                ..Persist::default()
            };
            return Ok(());
        };
        let dir = stored.dir.stats_dir().to_path_buf();
        let zone = self.engine.config().zone.clone();
        self.engine
            .fairshare_mut()
            .save_dir(&dir, &zone)
            .map_err(|e| {
                Error::new(
                    ErrorKind::Io,
                    format!("writing fairshare files in {}: {e}", dir.display()),
                )
            })?;
        let (state, clock) = (&stored.dir, self.clock);
        self.engine
            .with_checkpoint_state(|es| state.save_checkpoint(clock, es))
            .map_err(|e| Error::new(ErrorKind::Io, format!("writing the checkpoint: {e}")))?;
        if let Some(stored) = self.state.as_mut() {
            if let Some(j) = stored.journal.as_mut() {
                // Left as it is, its records are older than the checkpoint
                // and are skipped at start; emptied, it stays small, and a
                // journal whose writes failed is used again.
                match j.reset() {
                    Ok(()) => stored.journal_failing = false,
                    Err(e) => {
                        let m =
                            format!("emptying the fairshare journal {}: {e}", j.path().display());
                        lock(&self.notes).push((LogLevel::Warn, m));
                    }
                }
            }
        }
        self.persist = Persist {
            last_saved: Some(self.clock),
            unsaved: false,
            admin_pending: false,
        };
        Ok(())
    }

    /// Writes the state now, whatever CHECKPOINTINTERVAL says; a failure
    /// is also logged. What was written stays valid.
    pub fn checkpoint(&mut self) -> Result {
        let r = self.save_state();
        if let Err(e) = &r {
            self.log(LogLevel::Error, e.message.clone());
        }
        r
    }

    /// Writes what is not written yet (a clean shutdown loses nothing); a
    /// failure is logged.
    pub fn shutdown(&mut self) {
        if self.unsaved() {
            if let Err(e) = self.save_state() {
                self.log(
                    LogLevel::Error,
                    format!("state not saved at shutdown: {}", e.message),
                );
            }
        }
    }

    /// Rereads maui.cfg (from `path`, or the current one). A file with
    /// errors is refused and changes nothing (the previous configuration
    /// stays in force); on success the new configuration is published, kept
    /// as the last good copy, and its diagnostics (warnings, notes) are
    /// returned. CHECKPOINTFILE, STATDIR and ADMINSOCKET keep the values
    /// the service was opened with.
    pub fn reconfigure(&mut self, path: Option<PathBuf>) -> Result<Vec<Diagnostic>> {
        let path = path.unwrap_or_else(|| self.config_path.clone());
        let (config, diags, bytes) = match config_file::load(&path) {
            Ok(loaded) => loaded,
            Err(e) => {
                if self.refusal_logged.as_ref() == Some(&e.message) {
                    self.log(
                        LogLevel::Debug,
                        "reconfigure refused for the same errors as before (logged then); the previous configuration stays in force",
                    );
                } else {
                    self.log(
                        LogLevel::Error,
                        format!(
                            "reconfigure refused, the previous configuration stays in force:\n{}",
                            e.message
                        ),
                    );
                    self.refusal_logged = Some(e.message.clone());
                }
                return Err(e);
            }
        };
        if let Some(why) = rm_refusal(&config, self.rm.as_deref()) {
            self.log(
                LogLevel::Error,
                format!("reconfigure refused, the previous configuration stays in force:\n{why}"),
            );
            return Err(Error::new(ErrorKind::Config, why));
        }
        self.log_diagnostics(&diags);
        let old = &self.engine.cfg.params;
        if old.checkpoint_file != config.params.checkpoint_file
            || old.stat_dir != config.params.stat_dir
            || old.admin_socket != config.params.admin_socket
        {
            self.log(
                LogLevel::Warn,
                "CHECKPOINTFILE, STATDIR and ADMINSOCKET changes take effect when the handle is created again",
            );
        }
        if let Some(stored) = &self.state {
            config_file::keep_last_good(stored.dir.root(), &bytes, &self.notes);
        }
        self.cfg_shared = Arc::new(config.clone());
        self.engine.set_config(config);
        self.config_path = path;
        self.config_fallback = None;
        self.refusal_logged = None;
        self.log(
            LogLevel::Info,
            format!("reconfigured from {}", self.config_path.display()),
        );
        self.publish(false);
        Ok(diags)
    }
}

/// The remembered state from the checkpoint (if any, else empty) with the
/// fairshare usage of the FS files, and whether a checkpoint was used.
fn resume_state(state: &StateDir, config: &Config, notes: &Notes) -> Result<(EngineState, bool)> {
    let say = |level, m: String| lock(notes).push((level, m));
    // The wall clock only names a corrupt checkpoint or window when moving
    // it aside, and tells a fairshare window from the future.
    let now = wall_clock();
    let (envelope, found) = state.load_checkpoint::<EngineState>(now);
    for n in found {
        let level = match n {
            StateNotice::CorruptCheckpoint { .. } => LogLevel::Error,
            _ => LogLevel::Info,
        };
        say(level, n.to_string());
    }
    let resumed = envelope.is_some();
    let mut es = envelope.map(|e| e.state).unwrap_or_default();
    // The FS files are the source of truth for fairshare usage.
    let (fs, issues) = Fairshare::load_dir(state.stats_dir(), config, now).map_err(|e| {
        Error::new(
            ErrorKind::State,
            format!("fairshare files in {}: {e}", state.stats_dir().display()),
        )
    })?;
    for mut i in issues {
        // A refused window is moved aside, never overwritten by the next
        // save of a window with its start.
        crate::persist::fairshare::move_aside(&mut i, now);
        let level = if i.skipped {
            LogLevel::Error
        } else {
            LogLevel::Info
        };
        say(level, i.to_string());
    }
    es.fairshare = fs;
    replay_journal(state, &mut es, now, &say);
    Ok((es, resumed))
}

/// Applies the fairshare journal's records written after the checkpoint
/// (or all of them without one) to the windows read from the FS files, in
/// order, bringing `last_iteration` to the last one
/// ([`crate::persist::journal`]). A journal that cannot be trusted is
/// reported and moved aside, and nothing of it is applied.
fn replay_journal(
    state: &StateDir,
    es: &mut EngineState,
    now: Time,
    say: &dyn Fn(LogLevel, String),
) {
    let path = state.root().join(journal::JOURNAL_FILE);
    let read = match journal::read(&path, now) {
        Ok(r) => r,
        Err(e) => {
            say(
                LogLevel::Error,
                format!("fairshare journal {}: {e}; not applied", path.display()),
            );
            return;
        }
    };
    if let Some(why) = read.corrupt {
        let whereto = match crate::persist::rename_aside(&path, now) {
            Ok(to) => format!("moved aside to {}", to.display()),
            Err(e) => format!("moving it aside failed: {e}"),
        };
        say(
            LogLevel::Error,
            format!(
                "fairshare journal cannot be trusted ({why}); nothing of it applied; {whereto}"
            ),
        );
        return;
    }
    if let Some(torn) = read.torn {
        say(LogLevel::Info, torn);
    }
    let (mut applied, mut last) = (0, es.last_iteration);
    for r in read
        .records
        .iter()
        .filter(|r| es.last_iteration.is_none_or(|t| r.to > t))
    {
        es.fairshare.replay(&r.windows);
        last = Some(last.map_or(r.to, |t: Time| t.max(r.to)));
        applied += 1;
    }
    if applied > 0 {
        es.last_iteration = last;
        say(
            LogLevel::Info,
            format!(
                "fairshare journal {}: {applied} iteration(s) since the checkpoint applied, usage accrued up to {}",
                path.display(),
                last.unwrap_or_default()
            ),
        );
    }
}

/// Takes the state directory's lock (`run/lock`, flock): two services, in
/// one process or two, writing one checkpoint would undo each other's
/// work, so the second is refused. The lock goes with the service.
fn lock_state(state: &StateDir) -> Result<std::fs::File> {
    let path = state.run_dir().join("lock");
    let err = |e: std::io::Error| {
        Error::new(
            ErrorKind::State,
            format!("state directory lock {}: {e}", path.display()),
        )
    };
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .map_err(err)?;
    if !crate::admin::sys::try_lock_exclusive(&file).map_err(err)? {
        return Err(Error::new(
            ErrorKind::State,
            format!(
                "state directory {} is in use by another handle (lock {})",
                state.root().display(),
                path.display()
            ),
        ));
    }
    Ok(file)
}
