//! The C ABI: the only place with `extern "C"` and `unsafe`.
//!
//! The header `include/mauisched.h` is generated from this module by
//! cbindgen (see build.rs) and checked in. Conventions, stated once here and
//! in the header:
//!
//! - Every function returns a [`mauisched_status_t`] (except the version
//!   query and the `_free` functions). `MAUISCHED_OK` is 0; every other code
//!   lives in 7000–7999 and a number, once given, is never reused.
//! - Outputs are written only on success. A NULL argument gives
//!   `MAUISCHED_NULL_ARG` and is never dereferenced.
//! - Every exported body runs inside [`boundary`]: a panic never crosses into
//!   the host (slurmctld, the PBS daemon); it returns `MAUISCHED_PANIC` and
//!   poisons the handle, whose later calls return `MAUISCHED_POISONED`.
//! - Strings are UTF-8, NUL-terminated, borrowed for the duration of the call.
//!   Nothing the library returns is freed with `free()`.
//! - A handle is used by one thread at a time.

#![allow(non_camel_case_types)]
#![allow(unsafe_code)]

pub mod handle;
pub mod input;
pub mod status;

pub use handle::*;
pub use input::*;
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
