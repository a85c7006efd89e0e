//! The C ABI: the only place with `extern "C"` and `unsafe`.
//!
//! The header `include/mauisched.h` is generated from this module by
//! cbindgen (see build.rs) and checked in.

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
