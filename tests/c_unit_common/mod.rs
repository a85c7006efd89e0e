//! Running the C unit-test programs (tests/pbs/unit, tests/slurm/unit)
//! from `cargo test`: shared by the integration tests that build them.

use std::path::Path;
use std::process::Command;

/// Runs one C unit-test program; it passes when it exits 0 and its
/// summary line reports no failed check.
pub fn run_c_unit(path: &Path) {
    let out = Command::new(path).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && text.contains(", 0 failed"),
        "{}:\n{text}\n{}",
        path.display(),
        String::from_utf8_lossy(&out.stderr)
    );
}
