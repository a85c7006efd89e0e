//! The handle: lifecycle, errors, logging, reconfigure, persistence, as
//! C calls into the service (`crate::service`), which does the work.

use super::status::*;
use crate::model::Snapshot;
use crate::service::{Options, Service, Shared};
use std::cell::{Cell, RefCell};
use std::ffi::{c_char, c_int, c_void, CString};
use std::path::{Path, PathBuf};

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
    /// The resource manager the front end drives (ABI 1.7): "slurm",
    /// "pbs", or NULL. A maui.cfg asking for what that RM cannot do
    /// (PREEMPTPOLICY CHECKPOINT on Slurm) is refused when it is read, at
    /// creation and on reconfigure, rather than when first used.
    pub rm: *const c_char,
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
}

impl Logger {
    /// Delivers the messages the service queued (the admin socket's
    /// threads and the LOCAL allocator queue theirs there too), on the
    /// host's thread.
    pub(crate) fn deliver(&self, svc: &Service) {
        for (level, m) in svc.take_notes() {
            self.log(level as u32, &m);
        }
    }
}

/// What the C front end keeps beside the service: the snapshot being built
/// and where log messages go.
struct Front {
    snapshot: Option<Snapshot>,
    log: Logger,
    trim: super::trim::Trim,
}

/// What an ABI body works on, for the duration of one call.
pub(crate) struct Handle<'a> {
    /// The service.
    pub svc: &'a mut Service,
    /// The snapshot being built.
    pub snapshot: &'a mut Option<Snapshot>,
    /// Log sink.
    pub log: &'a mut Logger,
    /// When to hand the memory iterations freed back to the system.
    pub trim: &'a mut super::trim::Trim,
}

/// An engine instance.
///
/// Opaque to C. Created by [`mauisched_new`], freed by [`mauisched_free`].
/// A handle is used by one thread at a time (calls on different handles
/// may run concurrently); it may move between threads between calls.
pub struct mauisched_t {
    /// A call is in progress (a callback called back in).
    busy: Cell<bool>,
    /// Message of the last failed call.
    last_error: RefCell<String>,
    /// The service, shared with the admin socket's threads (for the short
    /// time a change takes); a panic poisons it: then only `mauisched_free`
    /// and `mauisched_last_error` work, and the admin socket refuses
    /// changes.
    shared: Shared,
    /// Reached only inside a call, which `busy` makes exclusive.
    front: RefCell<Front>,
    /// The admin socket, if it runs.
    admin: Option<crate::admin::Server>,
}

/// Runs an ABI body against a handle: NULL, poisoned and busy handles are
/// refused, errors are stored for `mauisched_last_error`, panics poison
/// the handle. Messages the service queued go to the log callback before
/// and after the body, on this thread.
///
/// # Safety
/// `h` is NULL or a live handle from [`mauisched_new`], used by one thread.
pub(crate) unsafe fn with_handle(
    h: *const mauisched_t,
    f: impl FnOnce(&mut Handle<'_>) -> FfiResult,
) -> mauisched_status_t {
    if h.is_null() {
        return MAUISCHED_NULL_ARG;
    }
    let outer = &*h;
    if outer.shared.is_poisoned() {
        return MAUISCHED_POISONED;
    }
    if outer.busy.replace(true) {
        // A callback called back into the handle: the outer call holds the
        // service, which must not be touched.
        set_error(
            outer,
            "the handle is busy: a callback may not call back into its own handle (except mauisched_last_error)",
        );
        return MAUISCHED_BUSY;
    }
    // `busy` refused nested calls above, so this thread holds neither the
    // lock nor the front already; another thread (the admin socket) holds
    // the lock only for the short time a change takes.
    let mut svc = outer.shared.lock();
    let mut front = outer.front.borrow_mut();
    let Front {
        snapshot,
        log,
        trim,
    } = &mut *front;
    let r = boundary(
        |_| {},
        || {
            log.deliver(&svc);
            let r = f(&mut Handle {
                svc: &mut svc,
                snapshot,
                log,
                trim,
            });
            log.deliver(&svc);
            r
        },
    );
    let log = *log;
    drop(front);
    drop(svc);
    outer.busy.set(false);
    match r {
        Ok(()) => MAUISCHED_OK,
        Err(e) => {
            if e.status == MAUISCHED_PANIC {
                outer.shared.poison();
                // The body unwound: its borrow of the service is over.
                let _ = std::panic::catch_unwind(|| log.log(MAUISCHED_LOG_ERROR, &e.message));
            }
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

/// Opens the service the options name; everything it says goes to `log`
/// as it returns, also when it fails.
unsafe fn open(o: &mauisched_options_t, log: Logger) -> FfiResult<Service> {
    // SAFETY (both): the caller of mauisched_new vouches for the strings.
    let rm_given = o.size
        >= std::mem::offset_of!(mauisched_options_t, rm) + std::mem::size_of::<*const c_char>();
    let rm = match rm_given && !o.rm.is_null() {
        true => Some(req_str(o.rm, "options.rm")?.to_string()),
        false => None,
    };
    let opts = Options {
        config_path: PathBuf::from(req_str(o.config_path, "options.config_path")?),
        state_dir: PathBuf::from(req_str(o.state_dir, "options.state_dir")?),
        rm,
    };
    let notes = crate::service::Notes::default();
    let opened = Service::open(&opts, notes.clone());
    for (level, m) in std::mem::take(&mut *crate::service::lock(&notes)) {
        log.log(level as u32, &m);
    }
    Ok(opened?)
}

/// Starts the admin socket for a handle; a failure is logged and the
/// handle runs without one (scheduling matters more than commands).
fn start_admin(shared: &Shared, path: &Path, log: Logger) -> Option<crate::admin::Server> {
    match shared.serve_admin(path) {
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

/// Creates a handle: loads maui.cfg (refusing a file with errors), opens
/// the state directory (created if missing), resumes from its checkpoint
/// and fairshare files, and reports what it found through the log callback.
///
/// Every maui.cfg that loads without errors (here or on reconfigure) is
/// kept in the state directory as `maui.cfg.last-good`. When maui.cfg has
/// errors and that copy exists, the handle is created on the copy: the
/// errors (file, line, what is wrong) go to the log callback at
/// `MAUISCHED_LOG_ERROR` and to `mauisched_last_error`, as for a refused
/// reconfigure, and a reconfigure once the file is fixed brings it in.
/// Without a copy, a maui.cfg with errors fails this call.
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
            let svc = open(o, log)?;
            let socket = admin_socket_path(o, &svc)?;
            // Running on the last good maui.cfg is reported as a reconfigure
            // refusal is: in the log (done) and as the last error.
            let fallback = svc.config_fallback().unwrap_or_default().to_string();
            let shared = Shared::new(svc);
            let admin = socket.and_then(|path| start_admin(&shared, &path, log));
            created = Some(Box::new(mauisched_t {
                busy: Cell::new(false),
                last_error: RefCell::new(fallback),
                shared,
                front: RefCell::new(Front {
                    snapshot: None,
                    log,
                    trim: Default::default(),
                }),
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
    if !(*h).shared.is_poisoned() {
        let mut svc = (*h).shared.lock();
        let log = (*h).front.borrow().log;
        let _ = boundary(
            |_| {},
            || {
                log.deliver(&svc);
                svc.shutdown();
                log.deliver(&svc);
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
        *hd.log = Logger { f: log, userdata };
        Ok(())
    })
}

/// Rereads maui.cfg: from `config_path`, or from the handle's current path
/// when NULL. A file with errors is refused: the old configuration stays in
/// force, the errors go to the log callback and `mauisched_last_error`, and
/// `MAUISCHED_CONFIG_ERROR` (or `MAUISCHED_IO_ERROR` for an unreadable
/// file) is returned. A file accepted becomes the last good copy (see
/// [`mauisched_new`]). The remembered state is kept. CHECKPOINTFILE and
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
        hd.svc.reconfigure(path)?;
        Ok(())
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
        let p = &hd.svc.config().params;
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

/// Where the admin socket goes: the options' `admin_socket` (ABI 1.1;
/// "" turns it off), else ADMINSOCKET (relative to the state directory),
/// else `<state_dir>/run/mauisched.sock`.
unsafe fn admin_socket_path(o: &mauisched_options_t, svc: &Service) -> FfiResult<Option<PathBuf>> {
    let end = std::mem::offset_of!(mauisched_options_t, admin_socket)
        + std::mem::size_of::<*const c_char>();
    if o.size >= end && !o.admin_socket.is_null() {
        let p = req_str(o.admin_socket, "options.admin_socket")?;
        return Ok((!p.is_empty()).then(|| PathBuf::from(p)));
    }
    let cfg = &svc.config().params.admin_socket;
    // A handle's service is always opened on a state directory.
    let Some(state) = svc.state_dir() else {
        return Ok(None);
    };
    Ok(Some(if cfg.is_empty() {
        state.run_dir().join("mauisched.sock")
    } else {
        state.root().join(cfg)
    }))
}

/// Since ABI 1.4. A file descriptor that becomes readable when an
/// operator's change waits for the next iteration (sethold, releasehold,
/// runjob, setspri, setres, releaseres, schedctl through the admin
/// socket): poll it beside the RM's events and run an iteration then, so
/// the change is applied at once. Read it empty before that iteration
/// (`mauisched_wakeup_take`). The handle owns the descriptor (closed by
/// `mauisched_free`); once asked for, the commands tell operators their
/// change is applied now rather than within RMPOLLINTERVAL.
///
/// # Safety
/// `h` is a live handle; `fd` points to writable memory.
#[no_mangle]
pub unsafe extern "C" fn mauisched_wakeup_fd(
    h: *mut mauisched_t,
    fd: *mut c_int,
) -> mauisched_status_t {
    with_handle(h, |hd| {
        if fd.is_null() {
            return Err(FfiError::new(MAUISCHED_NULL_ARG, "fd is NULL"));
        }
        let got = hd.svc.wakeup_fd().map_err(|e| {
            FfiError::new(
                MAUISCHED_IO_ERROR,
                format!("creating the wake-up pipe: {e}"),
            )
        })?;
        *fd = got;
        Ok(())
    })
}

/// Since ABI 1.4. Empties the descriptor of `mauisched_wakeup_fd`; sets
/// `*pending` (when not NULL) to whether an operator's change was waiting.
///
/// # Safety
/// `h` is a live handle; `pending` is NULL or points to writable memory.
#[no_mangle]
pub unsafe extern "C" fn mauisched_wakeup_take(
    h: *mut mauisched_t,
    pending: *mut bool,
) -> mauisched_status_t {
    with_handle(h, |hd| {
        let any = hd.svc.take_wakeup();
        if !pending.is_null() {
            *pending = any;
        }
        Ok(())
    })
}

/// Since ABI 1.5. Tells the library what became of a start of the last
/// plan (`mauisched_run`'s): `started` when the resource manager started
/// job `job_id` where the plan said, else false with the manager's words
/// in `message` (NULL for none). Until the next `mauisched_run`, the views
/// (`showq`, `checkjob`, `diagnose -j`) show a started job running rather
/// than "Starting", and a refused one waiting again with the refusal;
/// holds and `runjob` on a started job are refused at once. Returns
/// `MAUISCHED_NOT_FOUND` when the last plan does not start that job,
/// `MAUISCHED_NO_ITERATION` before the first plan. Optional: without it
/// the views say "Starting" until the next snapshot shows the job.
///
/// # Safety
/// `h` is a live handle; `job_id` is a valid string; `message` is NULL or
/// a valid string.
#[no_mangle]
pub unsafe extern "C" fn mauisched_start_result(
    h: *mut mauisched_t,
    job_id: *const c_char,
    started: bool,
    message: *const c_char,
) -> mauisched_status_t {
    with_handle(h, |hd| {
        let id = req_str(job_id, "job_id")?;
        let outcome = if started {
            crate::engine::StartOutcome::Started
        } else {
            let why = opt_str(message, "message")?.unwrap_or("");
            crate::engine::StartOutcome::Refused(if why.is_empty() {
                "no reason given".into()
            } else {
                why.into()
            })
        };
        Ok(hd.svc.start_result(id, outcome)?)
    })
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
    with_handle(h, |hd| Ok(hd.svc.checkpoint()?))
}
