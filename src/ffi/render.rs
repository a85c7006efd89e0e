//! Operator commands rendered as text into caller buffers.

use super::handle::{mauisched_t, with_handle};
use super::status::*;
use crate::commands::CommandError;
use std::ffi::c_char;

/// Renders an operator command from the handle's last iteration into
/// `buf` as NUL-terminated text, in Maui's layout.
///
/// `command` is one of `showq`, `checkjob`, `showstart`, `showbf`,
/// `showres`, `checknode`, `diagnose`, `showconfig`; `args` (NULL or ""
/// for none) holds its arguments separated by blanks, as on Maui's command
/// line: `showq [-r|-i|-b] [-p PARTITION] [-w user=NAME]`,
/// `checkjob [-v] JOBID`, `showstart JOBID`,
/// `showbf [-d DURATION] [-p PARTITION] [-n NODES]`, `showres [-n] [RESID]`,
/// `checknode NODE`, `diagnose -p | -f | -r [RESID] | -j [JOBID] | -n [NODE] | -q`.
///
/// `*written` (if `written` is not NULL) receives the bytes the text needs
/// including the NUL, also with `MAUISCHED_BUFFER_TOO_SMALL`, so the caller
/// can retry with a larger buffer. Other errors: `MAUISCHED_BAD_VALUE` for
/// an unknown command or bad arguments, `MAUISCHED_NOT_FOUND` for an
/// unknown job, node or reservation, `MAUISCHED_NO_ITERATION` when the command
/// reads an iteration and none has run (`diagnose -f` needs none).
///
/// # Safety
/// `h` is a live handle; `command` is a valid string; `args` is NULL or a
/// valid string; `buf` is valid for `len` bytes; `written` is NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn mauisched_render(
    h: *mut mauisched_t,
    command: *const c_char,
    args: *const c_char,
    buf: *mut c_char,
    len: usize,
    written: *mut usize,
) -> mauisched_status_t {
    with_handle(h, |hd| {
        let cmd = req_str(command, "command")?;
        let args: Vec<&str> = opt_str(args, "args")?
            .map(|a| a.split_whitespace().collect())
            .unwrap_or_default();
        let text = hd.svc.render(cmd, &args).map_err(|e| {
            let status = match e {
                CommandError::Unknown(_) | CommandError::Usage(_) => MAUISCHED_BAD_VALUE,
                CommandError::NotFound(_) => MAUISCHED_NOT_FOUND,
                CommandError::Denied(_) => MAUISCHED_REFUSED,
                CommandError::NoIteration(_) => MAUISCHED_NO_ITERATION,
            };
            FfiError::new(status, e.to_string())
        })?;
        copy_out(&text, buf, len, written)
    })
}
