//! The C ABI: the only place with `extern "C"` and `unsafe`.
//!
//! The header `include/mauisched.h` is generated from this module by
//! cbindgen (see build.rs) and checked in. Conventions, stated once here and
//! in the header:
//!
//! - Every function returns a [`mauisched_status_t`] (except the version
//!   and status-name queries and the `_free` functions). `MAUISCHED_OK` is
//!   0; every other code lives in 7000–7999 and a number, once given, is
//!   never reused.
//! - Outputs are written only on success. A NULL argument gives
//!   `MAUISCHED_NULL_ARG` and is never dereferenced (the `written`
//!   out-parameter of the text functions may be NULL).
//! - Every exported body runs inside [`boundary`]: a panic never crosses into
//!   the host (slurmctld, the PBS daemon); it returns `MAUISCHED_PANIC` and
//!   poisons the handle, whose later calls return `MAUISCHED_POISONED`.
//! - Strings are UTF-8, NUL-terminated, borrowed for the duration of the call.
//!   Strings the library returns belong to the object that returned them
//!   (a plan, a list) and live until it is freed with its own `_free`
//!   function; nothing the library returns is freed with `free()`.
//! - Input structs start with their `size` (set it to `sizeof`): later
//!   minor versions only append fields, and a smaller, older struct gets
//!   defaults for the rest.
//! - A handle is used by one thread at a time; it may move between threads
//!   between calls, and different handles are independent. Plans and lists
//!   are read-only and may be read from several threads at once. A handle
//!   serves its admin socket (`mauictl`, `showq`, ...) on threads of its
//!   own, which never call the host's callbacks (see `mauisched_new`).
//! - Callbacks (log, LOCAL allocator) run on the calling thread during the
//!   call; they must not unwind, and a call back into the same handle
//!   returns `MAUISCHED_BUSY` (except `mauisched_last_error`).
//!
//! One iteration: `mauisched_snapshot_begin(h, now)`, then
//! `mauisched_snapshot_add_node` for every node and
//! `mauisched_snapshot_add_job` for every job, then `mauisched_run(h,
//! &plan)`; read the plan through the `mauisched_plan_*` accessors and free
//! it with `mauisched_plan_free`.
//!
//! State: the handle resumes from the state directory's checkpoint and
//! fairshare files when created, and writes them atomically at most once
//! per iteration (see `mauisched_run`), on `mauisched_checkpoint` and on
//! `mauisched_free`.
//!
//! Testing the panic boundary: in a debug build (never in a release
//! build, where the check is not compiled), `mauisched_run` panics when the
//! environment variable `MAUISCHED_TEST_PANIC` is `mauisched_run`. The C
//! tests use it to reach `MAUISCHED_PANIC` and `MAUISCHED_POISONED`.

#![allow(non_camel_case_types)]
#![allow(unsafe_code)]

// The header lists items in this order: keep it the order a host uses them.
pub mod status;

pub mod handle;

pub mod input;

pub mod plan;

pub mod admin;

pub mod render;

pub mod local;

mod trim;

pub use admin::*;
pub use handle::*;
pub use input::*;
pub use local::*;
pub use plan::*;
pub use render::*;
pub use status::*;

/// ABI major version: a front end refuses a library with another major.
pub const MAUISCHED_ABI_MAJOR: u32 = parse_u32(env!("MAUISCHED_ABI_MAJOR"));
/// ABI minor version: additions only.
pub const MAUISCHED_ABI_MINOR: u32 = parse_u32(env!("MAUISCHED_ABI_MINOR"));

const fn parse_u32(s: &str) -> u32 {
    let b = s.as_bytes();
    let mut i = 0;
    let mut v = 0u32;
    while i < b.len() {
        v = v * 10 + (b[i] - b'0') as u32;
        i += 1;
    }
    v
}

/// The library's ABI version as `(MAJOR << 16) | MINOR`.
///
/// Front ends compare the major with `MAUISCHED_ABI_MAJOR` from the header
/// they were built against and refuse to run on a mismatch.
#[no_mangle]
pub extern "C" fn mauisched_abi_version() -> u32 {
    (MAUISCHED_ABI_MAJOR << 16) | MAUISCHED_ABI_MINOR
}
