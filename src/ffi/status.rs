//! Status codes and the panic boundary.

use std::ffi::{c_char, CStr};
use std::panic::{catch_unwind, AssertUnwindSafe};

/// Result of every call. `MAUISCHED_OK` is 0; the others are fixed numbers
/// in 7000–7999 that are never reused for another meaning.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum mauisched_status_t {
    /// Success; outputs were written.
    MAUISCHED_OK = 0,
    /// A required pointer argument was NULL.
    MAUISCHED_NULL_ARG = 7001,
    /// A struct's `size` field is smaller than this ABI's first version of it.
    MAUISCHED_BAD_STRUCT_SIZE = 7002,
    /// A string is not valid UTF-8.
    MAUISCHED_BAD_UTF8 = 7003,
    /// A value is out of range or malformed (the error text says which field).
    MAUISCHED_BAD_VALUE = 7004,
    /// The configuration file has errors (the previous one, if any, stays).
    MAUISCHED_CONFIG_ERROR = 7010,
    /// The state directory cannot be used.
    MAUISCHED_STATE_ERROR = 7011,
    /// A file could not be read or written.
    MAUISCHED_IO_ERROR = 7012,
    /// Nodes or jobs were added without `mauisched_snapshot_begin`.
    MAUISCHED_NO_SNAPSHOT = 7020,
    /// The snapshot is inconsistent (duplicate names, unknown nodes, ...).
    MAUISCHED_BAD_SNAPSHOT = 7021,
    /// The call reads the last iteration and none has run on this handle yet.
    MAUISCHED_NO_ITERATION = 7022,
    /// No such job, node or reservation.
    MAUISCHED_NOT_FOUND = 7030,
    /// An index is beyond the end of a list.
    MAUISCHED_OUT_OF_RANGE = 7031,
    /// The caller's buffer is too small; `written` holds the size needed.
    MAUISCHED_BUFFER_TOO_SMALL = 7040,
    /// The request was refused (e.g. a reservation conflicts).
    MAUISCHED_REFUSED = 7050,
    /// A callback called back into its own handle; the nested call did nothing.
    MAUISCHED_BUSY = 7060,
    /// A panic inside the library was caught; the handle is now poisoned.
    MAUISCHED_PANIC = 7090,
    /// The handle saw a panic earlier and can only be freed.
    MAUISCHED_POISONED = 7091,
}

pub use mauisched_status_t::*;

/// An error inside the ABI layer: a status code and a message for
/// `mauisched_last_error`.
#[derive(Debug)]
pub struct FfiError {
    /// Code returned to C.
    pub status: mauisched_status_t,
    /// Message kept in the handle.
    pub message: String,
}

impl FfiError {
    /// An error with a code and a message.
    pub fn new(status: mauisched_status_t, message: impl Into<String>) -> FfiError {
        FfiError {
            status,
            message: message.into(),
        }
    }
}

/// Result type of ABI bodies.
pub type FfiResult<T = ()> = Result<T, FfiError>;

/// Runs `body` so that no panic escapes; a panic becomes `MAUISCHED_PANIC`
/// with its message, and `on_panic` is told (to poison a handle).
pub fn boundary(
    on_panic: impl FnOnce(String),
    body: impl FnOnce() -> FfiResult,
) -> Result<(), FfiError> {
    match catch_unwind(AssertUnwindSafe(body)) {
        Ok(r) => r,
        Err(payload) => {
            let what = if let Some(s) = payload.downcast_ref::<&str>() {
                (*s).to_string()
            } else if let Some(s) = payload.downcast_ref::<String>() {
                s.clone()
            } else {
                "unknown panic".to_string()
            };
            let msg = format!(
                "internal error (panic: {what}); this handle is poisoned and can only be freed"
            );
            on_panic(msg.clone());
            Err(FfiError::new(MAUISCHED_PANIC, msg))
        }
    }
}

/// Reads a required C string argument or field.
///
/// # Safety
/// `p` is NULL or points to a NUL-terminated string valid for the call.
pub unsafe fn req_str<'a>(p: *const c_char, what: &str) -> FfiResult<&'a str> {
    if p.is_null() {
        return Err(FfiError::new(MAUISCHED_NULL_ARG, format!("{what} is NULL")));
    }
    CStr::from_ptr(p).to_str().map_err(|e| {
        FfiError::new(
            MAUISCHED_BAD_UTF8,
            format!("{what} is not valid UTF-8: {e}"),
        )
    })
}

/// Reads an optional C string field: NULL or empty is `None`.
///
/// # Safety
/// As [`req_str`].
pub unsafe fn opt_str<'a>(p: *const c_char, what: &str) -> FfiResult<Option<&'a str>> {
    if p.is_null() {
        return Ok(None);
    }
    let s = req_str(p, what)?;
    Ok((!s.is_empty()).then_some(s))
}

/// Splits an optional comma-separated C string field into owned items.
///
/// # Safety
/// As [`req_str`].
pub unsafe fn list_str(p: *const c_char, what: &str) -> FfiResult<Vec<String>> {
    Ok(opt_str(p, what)?
        .map(|s| {
            s.split(',')
                .map(str::trim)
                .filter(|x| !x.is_empty())
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default())
}

/// Copies `text` into a caller buffer as a NUL-terminated string.
///
/// `written` (if not NULL) always receives the number of bytes the full text
/// needs including the NUL, so a caller can retry with a larger buffer; the
/// buffer is written only when it is large enough.
///
/// # Safety
/// `buf` is NULL or valid for `len` bytes; `written` is NULL or valid.
pub unsafe fn copy_out(text: &str, buf: *mut c_char, len: usize, written: *mut usize) -> FfiResult {
    let need = text.len() + 1;
    if !written.is_null() {
        *written = need;
    }
    if buf.is_null() {
        return Err(FfiError::new(MAUISCHED_NULL_ARG, "buf is NULL"));
    }
    if len < need {
        return Err(FfiError::new(
            MAUISCHED_BUFFER_TOO_SMALL,
            format!("buffer of {len} bytes is too small: {need} needed"),
        ));
    }
    std::ptr::copy_nonoverlapping(text.as_ptr(), buf as *mut u8, text.len());
    *buf.add(text.len()) = 0;
    Ok(())
}

/// The name of a status code (`"MAUISCHED_OK"`, `"MAUISCHED_NULL_ARG"`, ...),
/// or `"MAUISCHED_UNKNOWN_STATUS"` for a number this library never returns.
/// The string is static: never freed, valid for the life of the process.
#[no_mangle]
pub extern "C" fn mauisched_status_name(code: i32) -> *const c_char {
    // NUL-terminated literals (cbindgen's parser predates c"" literals).
    let s: &'static str = match code {
        0 => "MAUISCHED_OK\0",
        7001 => "MAUISCHED_NULL_ARG\0",
        7002 => "MAUISCHED_BAD_STRUCT_SIZE\0",
        7003 => "MAUISCHED_BAD_UTF8\0",
        7004 => "MAUISCHED_BAD_VALUE\0",
        7010 => "MAUISCHED_CONFIG_ERROR\0",
        7011 => "MAUISCHED_STATE_ERROR\0",
        7012 => "MAUISCHED_IO_ERROR\0",
        7020 => "MAUISCHED_NO_SNAPSHOT\0",
        7021 => "MAUISCHED_BAD_SNAPSHOT\0",
        7022 => "MAUISCHED_NO_ITERATION\0",
        7030 => "MAUISCHED_NOT_FOUND\0",
        7031 => "MAUISCHED_OUT_OF_RANGE\0",
        7040 => "MAUISCHED_BUFFER_TOO_SMALL\0",
        7050 => "MAUISCHED_REFUSED\0",
        7060 => "MAUISCHED_BUSY\0",
        7090 => "MAUISCHED_PANIC\0",
        7091 => "MAUISCHED_POISONED\0",
        _ => "MAUISCHED_UNKNOWN_STATUS\0",
    };
    s.as_ptr() as *const c_char
}

impl From<crate::service::Error> for FfiError {
    fn from(e: crate::service::Error) -> FfiError {
        use crate::service::ErrorKind as K;
        let status = match e.kind {
            K::BadValue => MAUISCHED_BAD_VALUE,
            K::Config => MAUISCHED_CONFIG_ERROR,
            K::State => MAUISCHED_STATE_ERROR,
            K::Io => MAUISCHED_IO_ERROR,
            K::BadSnapshot => MAUISCHED_BAD_SNAPSHOT,
            K::NoIteration => MAUISCHED_NO_ITERATION,
            K::NotFound => MAUISCHED_NOT_FOUND,
            K::Refused => MAUISCHED_REFUSED,
        };
        FfiError::new(status, e.message)
    }
}
