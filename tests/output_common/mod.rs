//! Reading a child process's output in the integration tests that run
//! programs (packaging, slurm_e2e).

use std::process::Output;

/// Bytes as trimmed text (lossy).
pub fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).trim().to_string()
}

/// The stdout of a command that must have succeeded; else a failure naming
/// `what`, its status, stdout and stderr.
pub fn ok(out: Output, what: &str) -> String {
    assert!(
        out.status.success(),
        "{what} failed ({}):\nstdout: {}\nstderr: {}",
        out.status,
        text(&out.stdout),
        text(&out.stderr)
    );
    text(&out.stdout)
}
