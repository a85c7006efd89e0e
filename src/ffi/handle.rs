//! The handle: lifecycle, errors, logging, reconfigure, persistence.

use super::status::*;
use crate::config::{Config, Diagnostic, Severity};
use crate::engine::{Engine, EngineState};
use crate::fairshare::Fairshare;
use crate::model::{Node, Snapshot, Time};
use crate::persist::{StateDir, StateNotice};
use std::cell::{Cell, RefCell};
use std::ffi::{c_char, c_void, CString};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

/// Log level: an error (the host should show it prominently).
pub const MAUISCHED_LOG_ERROR: u32 = 1;
/// Log level: a warning.
pub const MAUISCHED_LOG_WARN: u32 = 2;
/// Log level: information about decisions.
pub const MAUISCHED_LOG_INFO: u32 = 3;
/// Log level: detail for debugging.
pub const MAUISCHED_LOG_DEBUG: u32 = 4;

/// Receives the library's log messages: level (`MAUISCHED_LOG_*`), a
/// NUL-terminated UTF-8 message valid only during the call, and the
/// caller's userdata. Called on the thread that called into the library,
/// during that call. It must not unwind (throw, longjmp) into the library.
/// It may call `mauisched_last_error` on the handle; any other call on the
/// same handle returns `MAUISCHED_BUSY` and does nothing.
pub type mauisched_log_fn =
    Option<unsafe extern "C" fn(level: u32, message: *const c_char, userdata: *mut c_void)>;

/// Options for [`mauisched_new`]. Set `size` to `sizeof(mauisched_options_t)`.
#[repr(C)]
pub struct mauisched_options_t {
    /// `sizeof(mauisched_options_t)` as the caller compiled it.
    pub size: usize,
    /// maui.cfg to load (required).
    pub config_path: *const c_char,
    /// State directory: checkpoint and fairshare files; created if missing (required).
    pub state_dir: *const c_char,
    /// Log callback, or NULL to drop messages.
    pub log: mauisched_log_fn,
    /// Passed back to `log` unchanged.
    pub log_userdata: *mut c_void,
    /// The admin socket for `mauictl` and the Maui commands (ABI 1.1):
    /// NULL for maui.cfg's ADMINSOCKET, or `<state_dir>/run/mauisched.sock`
    /// when that is not set; a path to serve there; "" for no admin socket.
    /// A relative ADMINSOCKET is taken from the state directory.
    pub admin_socket: *const c_char,
}

/// Where log messages go: the host's callback and its userdata.
#[derive(Clone, Copy)]
pub(crate) struct Logger {
    f: mauisched_log_fn,
    userdata: *mut c_void,
}

impl Logger {
    /// Sends a message to the host's log callback, if any.
    pub(crate) fn log(&self, level: u32, msg: &str) {
        if let Some(f) = self.f {
            let c = CString::new(msg.replace('\0', " ")).unwrap_or_default();
            // SAFETY: the callback was given by the host for this purpose;
            // the string lives for the duration of the call.
            unsafe { f(level, c.as_ptr(), self.userdata) };
        }
    }

    fn log_diagnostics(&self, diags: &[Diagnostic]) {
        for d in diags {
            let level = match d.severity {
                Severity::Error => MAUISCHED_LOG_ERROR,
                Severity::Warning => MAUISCHED_LOG_WARN,
                Severity::Note => MAUISCHED_LOG_INFO,
            };
            self.log(level, &d.to_string());
        }
    }
}

/// When state was last written and whether something is waiting to be.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Persist {
    /// Iteration time of the last successful write by this handle.
    pub last_saved: Option<Time>,
    /// Something changed since then (an iteration ran, an admin call).
    pub unsaved: bool,
    /// An administrative change (reservation, system priority) waits:
    /// the next iteration writes whatever CHECKPOINTINTERVAL says.
    pub admin_pending: bool,
}

/// Messages queued where no logger is at hand (the LOCAL allocator runs
/// deep inside the engine; the admin socket runs on its own threads); the
/// handle delivers them during the host's next call.
pub(crate) type Notes = Arc<Mutex<Vec<(u32, String)>>>;

/// Locks a mutex whether or not a thread panicked while holding it: every
/// body that can panic runs inside [`boundary`], which reports the panic
/// and poisons the handle itself.
pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// Everything a handle owns, behind the busy flag of [`mauisched_t`].
pub(crate) struct Handle {
    /// The engine: configuration, remembered state, last iteration.
    pub engine: Engine,
    /// maui.cfg in force.
    pub config_path: PathBuf,
    /// The state directory.
    pub state: StateDir,
    /// The snapshot being built.
    pub snapshot: Option<Snapshot>,
    /// Nodes of the last iteration (admin reservations are placed on them).
    pub last_nodes: Vec<Node>,
    /// The latest time the host gave (iteration or admin call).
    pub clock: Time,
    /// Checkpoint bookkeeping.
    pub persist: Persist,
    /// Log sink.
    pub log: Logger,
    /// Queued messages (see [`Notes`]).
    pub notes: Notes,
    /// While set, messages are queued instead of sent: the admin socket's
    /// thread holds the handle and must never call the host's callback.
    pub log_deferred: bool,
    /// The configuration in force, shared with the admin socket.
    pub cfg_shared: Arc<Config>,
    /// What the admin socket renders from.
    pub published: Arc<Mutex<Arc<crate::admin::Published>>>,
    /// Scheduler statistics (showstats).
    pub stats: crate::admin::SchedStats,
    /// Holds the state directory's lock while the handle lives.
    _lock: std::fs::File,
}

// SAFETY: a handle moves between threads only inside its mutex. What is
// not thread-safe in it are the host's callbacks (log, LOCAL allocator)
// with their userdata: the log callback is only called on the host's
// thread during a host call (other threads set `log_deferred` and queue),
// and the LOCAL allocator only runs in `mauisched_run`, on the host's
// thread.
unsafe impl Send for Handle {}

impl Handle {
    /// Sends a message to the host's log callback, if any (or queues it,
    /// see [`Handle::log_deferred`]).
    pub(crate) fn log(&self, level: u32, msg: &str) {
        if self.log_deferred {
            lock(&self.notes).push((level, msg.to_string()));
        } else {
            self.log.log(level, msg);
        }
    }

    /// Sends configuration diagnostics to the log.
    pub(crate) fn log_diagnostics(&self, diags: &[Diagnostic]) {
        for d in diags {
            let level = match d.severity {
                Severity::Error => MAUISCHED_LOG_ERROR,
                Severity::Warning => MAUISCHED_LOG_WARN,
                Severity::Note => MAUISCHED_LOG_INFO,
            };
            self.log(level, &d.to_string());
        }
    }

    /// Publishes the handle's current view for the admin socket. `full`
    /// after an iteration (fairshare and statistics changed); otherwise
    /// those are kept from the previous view.
    pub(crate) fn publish(&mut self, full: bool) {
        let prev = lock(&self.published).clone();
        let view = crate::admin::Published {
            cfg: self.cfg_shared.clone(),
            last: self.engine.last.clone(),
            fairshare: if full {
                Arc::new(self.engine.state.fairshare.clone())
            } else {
                prev.fairshare.clone()
            },
            stopped: self.engine.state.stopped.clone(),
            stats: if full {
                Arc::new(self.stats.clone())
            } else {
                prev.stats.clone()
            },
            clock: self.clock,
            host_uid: prev.host_uid,
        };
        *lock(&self.published) = Arc::new(view);
    }

    /// Delivers queued messages.
    pub(crate) fn flush_notes(&self) {
        if self.log_deferred {
            return;
        }
        let queued = std::mem::take(&mut *lock(&self.notes));
        for (level, m) in queued {
            self.log(level, &m);
        }
    }

    /// True when an iteration at `now` should write the state: nothing
    /// written yet by this handle, an administrative change waiting, or
    /// CHECKPOINTINTERVAL elapsed (a clock that went back counts as elapsed).
    pub(crate) fn save_due(&self, now: Time) -> bool {
        let interval = self.engine.cfg.params.checkpoint_interval.0;
        self.persist.admin_pending
            || self
                .persist
                .last_saved
                .is_none_or(|t| now < t || now - t >= interval)
    }

    /// Writes the state: first the fairshare windows changed since they
    /// were last written (`FS.<epoch>` in STATDIR), then the checkpoint
    /// (everything else), each atomically. The checkpoint's
    /// `last_iteration` says up to when the FS files hold usage; writing
    /// them first means a crash between the two can at worst count one
    /// checkpoint interval of running jobs' usage twice, never lose the
    /// checkpoint.
    pub(crate) fn save_state(&mut self) -> FfiResult {
        let dir = self.state.stats_dir().to_path_buf();
        self.engine.state.fairshare.save_dir(&dir).map_err(|e| {
            FfiError::new(
                MAUISCHED_IO_ERROR,
                format!("writing fairshare files in {}: {e}", dir.display()),
            )
        })?;
        // The FS files are the source of truth for fairshare: the checkpoint
        // carries the rest only.
        let fs = std::mem::take(&mut self.engine.state.fairshare);
        let r = self.state.save_checkpoint(self.clock, &self.engine.state);
        self.engine.state.fairshare = fs;
        r.map_err(|e| FfiError::new(MAUISCHED_IO_ERROR, format!("writing the checkpoint: {e}")))?;
        self.persist = Persist {
            last_saved: Some(self.clock),
            unsaved: false,
            admin_pending: false,
        };
        Ok(())
    }
}

/// An engine instance.
///
/// Opaque to C. Created by [`mauisched_new`], freed by [`mauisched_free`].
/// A handle is used by one thread at a time (calls on different handles
/// may run concurrently); it may move between threads between calls.
pub struct mauisched_t {
    /// A call is in progress (a callback called back in).
    busy: Cell<bool>,
    /// A panic was caught; only `mauisched_free` and `mauisched_last_error`
    /// work (shared with the admin socket, which then refuses changes).
    poisoned: Arc<AtomicBool>,
    /// Message of the last failed call.
    last_error: RefCell<String>,
    /// Everything else, reached through [`with_handle`] (and by the admin
    /// socket's threads for the short time a change takes).
    inner: Arc<Mutex<Handle>>,
    /// The admin socket, if it runs.
    admin: Option<crate::admin::Server>,
}

/// Runs an ABI body against a handle: NULL, poisoned and busy handles are
/// refused, errors are stored for `mauisched_last_error`, panics poison
/// the handle.
///
/// # Safety
/// `h` is NULL or a live handle from [`mauisched_new`], used by one thread.
pub(crate) unsafe fn with_handle(
    h: *const mauisched_t,
    f: impl FnOnce(&mut Handle) -> FfiResult,
) -> mauisched_status_t {
    if h.is_null() {
        return MAUISCHED_NULL_ARG;
    }
    let outer = &*h;
    if outer.poisoned.load(Ordering::SeqCst) {
        return MAUISCHED_POISONED;
    }
    if outer.busy.replace(true) {
        // A callback called back into the handle: the outer call holds the
        // inner state, which must not be touched.
        set_error(
            outer,
            "the handle is busy: a callback may not call back into its own handle (except mauisched_last_error)",
        );
        return MAUISCHED_BUSY;
    }
    // `busy` refused nested calls above, so this thread does not hold the
    // lock already; another thread (the admin socket) holds it only for
    // the short time a change takes.
    let mut hd = lock(&outer.inner);
    let r = boundary(
        |_| {},
        || {
            // Messages the admin socket queued go out now, on this thread.
            hd.flush_notes();
            f(&mut hd)
        },
    );
    match r {
        Ok(()) => {
            drop(hd);
            outer.busy.set(false);
            MAUISCHED_OK
        }
        Err(e) => {
            if e.status == MAUISCHED_PANIC {
                outer.poisoned.store(true, Ordering::SeqCst);
                // The body unwound: its borrow of the inner state is over.
                let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    hd.log(MAUISCHED_LOG_ERROR, &e.message)
                }));
            }
            drop(hd);
            outer.busy.set(false);
            set_error(outer, &e.message);
            e.status
        }
    }
}

fn set_error(h: &mauisched_t, msg: &str) {
    if let Ok(mut s) = h.last_error.try_borrow_mut() {
        s.clear();
        s.push_str(msg);
    }
}

fn load_config(path: &std::path::Path) -> FfiResult<(Config, Vec<Diagnostic>)> {
    Config::load_strict(path).map_err(|e| {
        let status = match e {
            crate::config::ConfigError::Io { .. } => MAUISCHED_IO_ERROR,
            crate::config::ConfigError::Invalid(_) => MAUISCHED_CONFIG_ERROR,
        };
        FfiError::new(status, e.to_string())
    })
}

fn wall_clock() -> Time {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as Time)
}

/// Opens everything a handle needs; messages go to `log` as they arise.
fn open(o: &mauisched_options_t, log: Logger) -> FfiResult<Handle> {
    // SAFETY (both): the caller of mauisched_new vouches for the strings.
    let cfg_path = PathBuf::from(unsafe { req_str(o.config_path, "options.config_path") }?);
    let state_path = PathBuf::from(unsafe { req_str(o.state_dir, "options.state_dir") }?);
    let (config, diags) = load_config(&cfg_path)?;
    log.log_diagnostics(&diags);
    let (state, notices) = StateDir::open(&state_path, &config)
        .map_err(|e| FfiError::new(MAUISCHED_STATE_ERROR, e.to_string()))?;
    for n in notices {
        log.log(MAUISCHED_LOG_INFO, &n.to_string());
    }
    let lock = lock_state(&state)?;
    // The wall clock only names a corrupt checkpoint when moving it aside.
    let (envelope, notices) = state.load_checkpoint::<EngineState>(wall_clock());
    for n in notices {
        let level = match n {
            StateNotice::CorruptCheckpoint { .. } => MAUISCHED_LOG_ERROR,
            _ => MAUISCHED_LOG_INFO,
        };
        log.log(level, &n.to_string());
    }
    let resumed = envelope.is_some();
    let mut es = envelope.map(|e| e.state).unwrap_or_default();
    // The FS files are the source of truth for fairshare usage.
    let (fs, issues) = Fairshare::load_dir(state.stats_dir(), &config).map_err(|e| {
        FfiError::new(
            MAUISCHED_STATE_ERROR,
            format!("fairshare files in {}: {e}", state.stats_dir().display()),
        )
    })?;
    for i in issues {
        let level = if i.skipped {
            MAUISCHED_LOG_WARN
        } else {
            MAUISCHED_LOG_INFO
        };
        log.log(level, &i.to_string());
    }
    let windows = fs.windows().len();
    es.fairshare = fs;
    let clock = es.last_iteration.unwrap_or(0);
    log.log(
        MAUISCHED_LOG_INFO,
        &format!(
            "mauisched {} (ABI {}.{}) loaded {}; state in {} ({}, {windows} fairshare window(s))",
            crate::VERSION,
            super::MAUISCHED_ABI_MAJOR,
            super::MAUISCHED_ABI_MINOR,
            cfg_path.display(),
            state.root().display(),
            if resumed {
                "resumed from the checkpoint"
            } else {
                "no checkpoint used"
            }
        ),
    );
    if let Some(stop) = &es.stopped {
        log.log(
            MAUISCHED_LOG_WARN,
            &format!(
                "scheduling is stopped (schedctl -s by {} at {}): no job is started until schedctl -R",
                stop.by,
                crate::model::time::fmt_time(stop.at)
            ),
        );
    }
    let cfg_shared = Arc::new(config.clone());
    let published = Arc::new(Mutex::new(Arc::new(crate::admin::Published::empty(
        cfg_shared.clone(),
    ))));
    Ok(Handle {
        engine: Engine::with_state(config, es),
        config_path: cfg_path,
        state,
        snapshot: None,
        last_nodes: Vec::new(),
        clock,
        persist: Persist::default(),
        log,
        notes: Notes::default(),
        log_deferred: false,
        cfg_shared,
        published,
        stats: crate::admin::SchedStats::default(),
        _lock: lock,
    })
}

/// Takes the state directory's lock (`run/lock`, flock): two handles,
/// in one process or two, writing one checkpoint would undo each other's
/// work, so the second is refused. The lock goes with the handle.
fn lock_state(state: &StateDir) -> FfiResult<std::fs::File> {
    use std::os::unix::io::AsRawFd;
    let path = state.run_dir().join("lock");
    let err = |e: std::io::Error| {
        FfiError::new(
            MAUISCHED_STATE_ERROR,
            format!("state directory lock {}: {e}", path.display()),
        )
    };
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .map_err(err)?;
    // SAFETY: flock on a descriptor we own; no memory is involved.
    if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } != 0 {
        let e = std::io::Error::last_os_error();
        if e.kind() == std::io::ErrorKind::WouldBlock {
            return Err(FfiError::new(
                MAUISCHED_STATE_ERROR,
                format!(
                    "state directory {} is in use by another handle (lock {})",
                    state.root().display(),
                    path.display()
                ),
            ));
        }
        return Err(err(e));
    }
    Ok(file)
}

/// Creates a handle: loads maui.cfg (refusing a file with errors), opens
/// the state directory (created if missing), resumes from its checkpoint
/// and fairshare files, and reports what it found through the log callback.
///
/// A checkpoint that cannot be read is moved aside as
/// `<CHECKPOINTFILE>.corrupt-<time>` and reported at `MAUISCHED_LOG_ERROR`;
/// the handle then starts from the fairshare files alone. A state
/// directory is used by one handle at a time (it is locked): a second
/// handle on it, in this process or another, gets `MAUISCHED_STATE_ERROR`.
///
/// The handle also serves the admin socket for `mauictl` and the Maui
/// commands (`showq`, `setres`, ...) on threads of its own: at
/// `options.admin_socket`, else maui.cfg's ADMINSOCKET, else
/// `<state_dir>/run/mauisched.sock` (set `options.admin_socket` to "" to
/// serve none). Those threads never call the host's callbacks: the changes
/// operators make through the socket (with who made them) are logged
/// through the log callback during the host's next call on the handle,
/// and what the RM must do goes out with the next plan. A socket that
/// cannot be served is logged at `MAUISCHED_LOG_ERROR` and does not fail
/// this call.
///
/// On success `*out` receives the handle, owned by the caller until
/// [`mauisched_free`]. On failure nothing is written to `*out` and, if
/// `err` is not NULL, the reason is copied into `err` (at most `err_len`
/// bytes, always NUL-terminated when `err_len > 0`); it is also sent to
/// the log callback.
///
/// # Safety
/// `opts` points to an initialised `mauisched_options_t`; `out` is valid for
/// writing; `err` is NULL or valid for `err_len` bytes.
#[no_mangle]
pub unsafe extern "C" fn mauisched_new(
    opts: *const mauisched_options_t,
    out: *mut *mut mauisched_t,
    err: *mut c_char,
    err_len: usize,
) -> mauisched_status_t {
    let mut created: Option<Box<mauisched_t>> = None;
    let mut logger = None;
    let r = boundary(
        |_| {},
        || {
            if opts.is_null() || out.is_null() {
                return Err(FfiError::new(
                    MAUISCHED_NULL_ARG,
                    "opts and out must not be NULL",
                ));
            }
            let min = std::mem::offset_of!(mauisched_options_t, log_userdata)
                + std::mem::size_of::<*mut c_void>();
            if (*opts).size < min {
                return Err(FfiError::new(
                    MAUISCHED_BAD_STRUCT_SIZE,
                    format!("mauisched_options_t.size is {} (at least {min} expected): set it to sizeof(mauisched_options_t)", (*opts).size),
                ));
            }
            let o = &*opts;
            let log = Logger {
                f: o.log,
                userdata: o.log_userdata,
            };
            logger = Some(log);
            let inner = open(o, log)?;
            let socket = admin_socket_path(o, &inner)?;
            let poisoned = Arc::new(AtomicBool::new(false));
            let inner = Arc::new(Mutex::new(inner));
            let admin = socket
                .and_then(|path| super::server::start(&path, inner.clone(), poisoned.clone(), log));
            created = Some(Box::new(mauisched_t {
                busy: Cell::new(false),
                poisoned,
                last_error: RefCell::new(String::new()),
                inner,
                admin,
            }));
            Ok(())
        },
    );
    match r {
        Ok(()) => match created {
            Some(h) => {
                *out = Box::into_raw(h);
                MAUISCHED_OK
            }
            None => MAUISCHED_PANIC,
        },
        Err(e) => {
            if let Some(l) = logger {
                let _ = std::panic::catch_unwind(|| {
                    l.log(
                        MAUISCHED_LOG_ERROR,
                        &format!("mauisched_new failed: {}", e.message),
                    )
                });
            }
            if !err.is_null() && err_len > 0 {
                let bytes = e.message.as_bytes();
                let n = bytes.len().min(err_len - 1);
                std::ptr::copy_nonoverlapping(bytes.as_ptr(), err as *mut u8, n);
                *err.add(n) = 0;
            }
            e.status
        }
    }
}

/// Frees a handle and everything it owns. NULL is a no-op.
///
/// The admin socket stops first (its connections are closed, its threads
/// joined, its socket file removed).
///
/// State not yet written (iterations or administrative changes since the
/// last write) is written first, so a clean shutdown loses nothing; a
/// failure is reported through the log callback (there is no status to
/// return). A poisoned handle writes nothing: after a panic its state is
/// not trusted. Calling it from a callback on the same handle does nothing.
///
/// # Safety
/// `h` is NULL or a handle from [`mauisched_new`] not freed before; it is
/// not used again.
#[no_mangle]
pub unsafe extern "C" fn mauisched_free(h: *mut mauisched_t) {
    if h.is_null() || (*h).busy.get() {
        return;
    }
    // The admin socket first: no change can arrive after the last write.
    if let Some(mut server) = (*h).admin.take() {
        let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| server.shutdown()));
        drop(server);
    }
    if !(*h).poisoned.load(Ordering::SeqCst) {
        let mut guard = lock(&(*h).inner);
        let hd = &mut *guard;
        let _ = boundary(
            |_| {},
            || {
                hd.flush_notes();
                if hd.persist.unsaved || hd.persist.admin_pending {
                    if let Err(e) = hd.save_state() {
                        hd.log(
                            MAUISCHED_LOG_ERROR,
                            &format!("state not saved at shutdown: {}", e.message),
                        );
                    }
                }
                Ok(())
            },
        );
    }
    // Dropping cannot unwind across the boundary: catch it like any body.
    let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| drop(Box::from_raw(h))));
}

/// Copies the message of the last failed call on this handle into `buf`.
///
/// `*written` (if `written` is not NULL) receives the bytes needed
/// including the NUL, also when the buffer is too small
/// (`MAUISCHED_BUFFER_TOO_SMALL`), so the caller can retry. Works on a
/// poisoned handle (the panic's message is kept) and from inside a
/// callback. The message is empty when no call has failed yet.
///
/// # Safety
/// `h` is a live handle; `buf` is valid for `len` bytes; `written` is NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn mauisched_last_error(
    h: *const mauisched_t,
    buf: *mut c_char,
    len: usize,
    written: *mut usize,
) -> mauisched_status_t {
    if h.is_null() {
        return MAUISCHED_NULL_ARG;
    }
    let r = boundary(
        |_| {},
        || {
            let msg = (*h)
                .last_error
                .try_borrow()
                .map(|s| s.clone())
                .unwrap_or_default();
            copy_out(&msg, buf, len, written)
        },
    );
    match r {
        Ok(()) => MAUISCHED_OK,
        Err(e) => e.status,
    }
}

/// Replaces the log callback (NULL stops logging). `userdata` is passed
/// back unchanged and must stay valid while the callback is set.
///
/// # Safety
/// `h` is a live handle.
#[no_mangle]
pub unsafe extern "C" fn mauisched_set_log(
    h: *mut mauisched_t,
    log: mauisched_log_fn,
    userdata: *mut c_void,
) -> mauisched_status_t {
    with_handle(h, |hd| {
        hd.log = Logger { f: log, userdata };
        Ok(())
    })
}

/// Rereads maui.cfg: from `config_path`, or from the handle's current path
/// when NULL. A file with errors is refused: the old configuration stays in
/// force, the errors go to the log callback and `mauisched_last_error`, and
/// `MAUISCHED_CONFIG_ERROR` (or `MAUISCHED_IO_ERROR` for an unreadable
/// file) is returned. The remembered state is kept. CHECKPOINTFILE and
/// STATDIR keep the values the handle was created with (a warning says so
/// when they change).
///
/// # Safety
/// `h` is a live handle; `config_path` is NULL or a valid string.
#[no_mangle]
pub unsafe extern "C" fn mauisched_reconfigure(
    h: *mut mauisched_t,
    config_path: *const c_char,
) -> mauisched_status_t {
    with_handle(h, |hd| {
        let path = opt_str(config_path, "config_path")?.map(PathBuf::from);
        reconfigure(hd, path).map(|_| ())
    })
}

/// What a front end's own loop needs from the maui.cfg in force (ABI 1.2),
/// so that no front end reads maui.cfg beside the library. Set `size` to
/// `sizeof(mauisched_settings_t)`; the library fills the fields that fit in
/// it (later minor versions append fields).
#[repr(C)]
pub struct mauisched_settings_t {
    /// `sizeof(mauisched_settings_t)` as the caller compiled it.
    pub size: usize,
    /// RMPOLLINTERVAL in seconds (Maui's default 60): the longest time
    /// between iterations when nothing in the resource manager changes.
    pub rm_poll_interval_s: i64,
    /// JOBNODEMATCHPOLICY has EXACTNODE: node counts and tasks per node
    /// are exact, as Slurm reads `-N` and `--ntasks-per-node`.
    pub exact_node: bool,
    /// JOBNODEMATCHPOLICY has EXACTPROC.
    pub exact_proc: bool,
}

/// Fills `*out` from the configuration in force: the one given to
/// `mauisched_new`, or the last one `mauisched_reconfigure` accepted.
/// `out->size` must be set and cover at least `size` itself; fields beyond
/// it are left alone. Ask again after each successful reconfigure.
///
/// # Safety
/// `h` is a live handle; `out` is NULL or valid for `out->size` bytes.
#[no_mangle]
pub unsafe extern "C" fn mauisched_settings(
    h: *mut mauisched_t,
    out: *mut mauisched_settings_t,
) -> mauisched_status_t {
    with_handle(h, |hd| {
        if out.is_null() {
            return Err(FfiError::new(MAUISCHED_NULL_ARG, "out is NULL"));
        }
        let size = std::ptr::addr_of!((*out).size).read_unaligned();
        if size < std::mem::size_of::<usize>() {
            return Err(FfiError::new(
                MAUISCHED_BAD_STRUCT_SIZE,
                "out->size is smaller than the size field: set it to sizeof(mauisched_settings_t)",
            ));
        }
        let p = &hd.engine.cfg.params;
        // Write only what the caller's (possibly older, smaller) struct has.
        macro_rules! put {
            ($field:ident, $ty:ty, $v:expr) => {
                let end =
                    std::mem::offset_of!(mauisched_settings_t, $field) + std::mem::size_of::<$ty>();
                if size >= end {
                    std::ptr::addr_of_mut!((*out).$field).write($v);
                }
            };
        }
        put!(rm_poll_interval_s, i64, p.rm_poll_interval.0);
        put!(exact_node, bool, p.job_node_match_policy.exact_node);
        put!(exact_proc, bool, p.job_node_match_policy.exact_proc);
        Ok(())
    })
}

/// Rereads maui.cfg (from `path`, or the handle's current one): the one
/// path behind `mauisched_reconfigure` and the admin socket's
/// `schedctl -r`. A file with errors is refused and changes nothing;
/// on success the new configuration is published and its diagnostics
/// (warnings, notes) are returned.
pub(crate) fn reconfigure(hd: &mut Handle, path: Option<PathBuf>) -> FfiResult<Vec<Diagnostic>> {
    let path = path.unwrap_or_else(|| hd.config_path.clone());
    match load_config(&path) {
        Ok((config, diags)) => {
            hd.log_diagnostics(&diags);
            let old = &hd.engine.cfg.params;
            if old.checkpoint_file != config.params.checkpoint_file
                || old.stat_dir != config.params.stat_dir
                || old.admin_socket != config.params.admin_socket
            {
                hd.log(
                    MAUISCHED_LOG_WARN,
                    "CHECKPOINTFILE, STATDIR and ADMINSOCKET changes take effect when the handle is created again",
                );
            }
            hd.cfg_shared = Arc::new(config.clone());
            hd.engine.cfg = config;
            hd.config_path = path;
            hd.log(
                MAUISCHED_LOG_INFO,
                &format!("reconfigured from {}", hd.config_path.display()),
            );
            hd.publish(false);
            Ok(diags)
        }
        Err(e) => {
            hd.log(
                MAUISCHED_LOG_ERROR,
                &format!(
                    "reconfigure refused, the previous configuration stays in force:\n{}",
                    e.message
                ),
            );
            Err(e)
        }
    }
}

/// Where the admin socket goes: the options' `admin_socket` (ABI 1.1;
/// "" turns it off), else ADMINSOCKET (relative to the state directory),
/// else `<state_dir>/run/mauisched.sock`.
unsafe fn admin_socket_path(o: &mauisched_options_t, hd: &Handle) -> FfiResult<Option<PathBuf>> {
    let end = std::mem::offset_of!(mauisched_options_t, admin_socket)
        + std::mem::size_of::<*const c_char>();
    if o.size >= end && !o.admin_socket.is_null() {
        let p = req_str(o.admin_socket, "options.admin_socket")?;
        return Ok((!p.is_empty()).then(|| PathBuf::from(p)));
    }
    let cfg = &hd.engine.cfg.params.admin_socket;
    Ok(Some(if cfg.is_empty() {
        hd.state.run_dir().join("mauisched.sock")
    } else {
        hd.state.root().join(cfg)
    }))
}

/// Writes the state now (fairshare files, then the checkpoint), whatever
/// CHECKPOINTINTERVAL says. `mauisched_run` and `mauisched_free` write on
/// their own; this is for a host that wants to know the state is on disk
/// (before a planned restart, say). Returns `MAUISCHED_IO_ERROR` with the
/// file and the cause when a write fails; what was written stays valid.
///
/// # Safety
/// `h` is a live handle.
#[no_mangle]
pub unsafe extern "C" fn mauisched_checkpoint(h: *mut mauisched_t) -> mauisched_status_t {
    with_handle(h, |hd| {
        let r = hd.save_state();
        if let Err(e) = &r {
            hd.log(MAUISCHED_LOG_ERROR, &e.message);
        }
        r
    })
}
