//! The handle: lifecycle, errors, logging, reconfigure.

use super::status::*;
use crate::config::{Config, Diagnostic, Severity};
use crate::model::Snapshot;
use crate::state::StateDir;
use std::ffi::{c_char, c_void, CString};
use std::path::PathBuf;

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
/// caller's userdata. Called on the thread that called into the library.
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
}

/// An engine instance.
///
/// Opaque to C. Created by [`mauisched_new`], freed by [`mauisched_free`].
/// A handle may be used by one thread at a time (calls on different handles
/// may run concurrently).
pub struct mauisched_t {
    pub(crate) config: Config,
    pub(crate) config_path: PathBuf,
    pub(crate) state: StateDir,
    pub(crate) snapshot: Option<Snapshot>,
    pub(crate) last_error: String,
    pub(crate) poisoned: bool,
    pub(crate) log: mauisched_log_fn,
    pub(crate) log_userdata: *mut c_void,
}

impl mauisched_t {
    /// Sends a message to the host's log callback, if any.
    pub(crate) fn log(&self, level: u32, msg: &str) {
        if let Some(f) = self.log {
            let c = CString::new(msg.replace('\0', " ")).unwrap_or_default();
            // SAFETY: the callback was given by the host for this purpose;
            // the string lives for the duration of the call.
            unsafe { f(level, c.as_ptr(), self.log_userdata) };
        }
    }

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
}

/// Runs an ABI body against a handle: NULL and poisoned handles are refused,
/// errors are stored for `mauisched_last_error`, panics poison the handle.
///
/// # Safety
/// `h` is NULL or a live handle from [`mauisched_new`], used by one thread.
pub(crate) unsafe fn with_handle(
    h: *mut mauisched_t,
    f: impl FnOnce(&mut mauisched_t) -> FfiResult,
) -> mauisched_status_t {
    if h.is_null() {
        return MAUISCHED_NULL_ARG;
    }
    if (*h).poisoned {
        return MAUISCHED_POISONED;
    }
    let on_panic = |msg: String| {
        // SAFETY: the body's borrow ended when it unwound.
        let hd = unsafe { &mut *h };
        hd.poisoned = true;
        hd.log(MAUISCHED_LOG_ERROR, &msg);
        hd.last_error = msg;
    };
    match boundary(on_panic, || f(unsafe { &mut *h })) {
        Ok(()) => MAUISCHED_OK,
        Err(e) => {
            if e.status != MAUISCHED_PANIC {
                (*h).last_error = e.message;
            }
            e.status
        }
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

/// Creates a handle: loads maui.cfg (refusing a file with errors), opens the
/// state directory (created if missing) and reports what it found through
/// the log callback.
///
/// On success `*out` receives the handle. On failure nothing is written to
/// `*out` and, if `err` is not NULL, the reason is copied into `err` (at
/// most `err_len` bytes, always NUL-terminated when `err_len > 0`).
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
            let cfg_path = PathBuf::from(req_str(o.config_path, "options.config_path")?);
            let state_path = PathBuf::from(req_str(o.state_dir, "options.state_dir")?);
            let (config, diags) = load_config(&cfg_path)?;
            let (state, notices) = StateDir::open(&state_path, &config)
                .map_err(|e| FfiError::new(MAUISCHED_STATE_ERROR, e.to_string()))?;
            let h = Box::new(mauisched_t {
                config,
                config_path: cfg_path,
                state,
                snapshot: None,
                last_error: String::new(),
                poisoned: false,
                log: o.log,
                log_userdata: o.log_userdata,
            });
            h.log_diagnostics(&diags);
            for n in notices {
                h.log(MAUISCHED_LOG_INFO, &n.to_string());
            }
            h.log(
                MAUISCHED_LOG_INFO,
                &format!(
                    "mauisched {} (ABI {}.{}) loaded {}; state in {}",
                    crate::VERSION,
                    super::MAUISCHED_ABI_MAJOR,
                    super::MAUISCHED_ABI_MINOR,
                    h.config_path.display(),
                    h.state.root().display()
                ),
            );
            created = Some(h);
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

/// Frees a handle and everything it owns. NULL is a no-op. Safe to call on
/// a poisoned handle.
///
/// # Safety
/// `h` is NULL or a handle from [`mauisched_new`] not freed before.
#[no_mangle]
pub unsafe extern "C" fn mauisched_free(h: *mut mauisched_t) {
    if !h.is_null() {
        // Dropping cannot unwind across the boundary: catch it like any body.
        let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| drop(Box::from_raw(h))));
    }
}

/// Copies the message of the last failed call on this handle into `buf`.
///
/// `*written` receives the bytes needed including the NUL, also when the
/// buffer is too small (`MAUISCHED_BUFFER_TOO_SMALL`), so the caller can
/// retry. Works on a poisoned handle (the panic's message is kept).
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
    let r = boundary(|_| {}, || copy_out(&(*h).last_error, buf, len, written));
    match r {
        Ok(()) => MAUISCHED_OK,
        Err(e) => e.status,
    }
}

/// Replaces the log callback (NULL stops logging).
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
        hd.log = log;
        hd.log_userdata = userdata;
        Ok(())
    })
}

/// Rereads maui.cfg: from `config_path`, or from the handle's current path
/// when NULL. A file with errors is refused: the old configuration stays in
/// force, the errors go to the log callback and `mauisched_last_error`, and
/// `MAUISCHED_CONFIG_ERROR` is returned.
///
/// # Safety
/// `h` is a live handle; `config_path` is NULL or a valid string.
#[no_mangle]
pub unsafe extern "C" fn mauisched_reconfigure(
    h: *mut mauisched_t,
    config_path: *const c_char,
) -> mauisched_status_t {
    with_handle(h, |hd| {
        let path = match opt_str(config_path, "config_path")? {
            Some(p) => PathBuf::from(p),
            None => hd.config_path.clone(),
        };
        match load_config(&path) {
            Ok((config, diags)) => {
                hd.log_diagnostics(&diags);
                hd.config = config;
                hd.config_path = path;
                hd.log(
                    MAUISCHED_LOG_INFO,
                    &format!("reconfigured from {}", hd.config_path.display()),
                );
                Ok(())
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
    })
}
