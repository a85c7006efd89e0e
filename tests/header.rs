//! The checked-in C header is exactly what cbindgen generates from src/ffi.

#[test]
fn checked_in_header_is_fresh() {
    let generated = include_str!(concat!(env!("OUT_DIR"), "/mauisched.h"));
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/include/mauisched.h");
    let checked_in = std::fs::read_to_string(path).unwrap();
    assert!(
        generated == checked_in,
        "include/mauisched.h is stale: regenerate it with `MAUISCHED_BLESS_HEADER=1 cargo build` and commit it"
    );
}
