//! The Slurm front end's C unit tests (`tests/slurm/unit`, `make check`
//! there): the AdminComment marker protocol, the Slurm → engine mapping of
//! `c-shim/slurm` and its reading of Slurm 22.05's and 24.11's generic
//! resource strings, on hand-made Slurm structs, built with ASan/UBSan
//! against the installed Slurm headers and libslurm (for its hostlist
//! calls). No Slurm daemon runs.
//!
//! Without the Slurm headers or libslurm (`libslurm-dev`; `scripts/deps.sh
//! test` installs it) each test says so and passes, unless
//! MAUISCHED_REQUIRE_SLURM=1 (CI) makes that a failure.

mod c_unit_common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Why the unit tests cannot be built here, if they cannot.
fn missing() -> Option<String> {
    let inc = std::env::var("SLURM_INCLUDE").unwrap_or_else(|_| "/usr/include".into());
    let header = Path::new(&inc).join("slurm/slurm.h");
    if !header.is_file() {
        return Some(format!(
            "{} not found (install libslurm-dev, or set SLURM_INCLUDE)",
            header.display()
        ));
    }
    let probe = Command::new("cc")
        .args(["-x", "c", "-", "-o", "/dev/null", "-lslurm"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .and_then(|mut c| {
            use std::io::Write;
            c.stdin
                .take()
                .unwrap()
                .write_all(b"int main(void){return 0;}\n")?;
            c.wait()
        });
    match probe {
        Ok(s) if s.success() => None,
        _ => Some("cannot link -lslurm (install libslurm-dev)".into()),
    }
}

/// The directory with the built tests, or None when they cannot be built.
fn built() -> Option<&'static PathBuf> {
    static B: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    let b = B.get_or_init(|| {
        if let Some(why) = missing() {
            return Err(why);
        }
        let out = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("slurm_unit");
        let _ = std::fs::remove_dir_all(&out);
        let o = Command::new("make")
            .arg("-C")
            .arg(root().join("tests/slurm/unit"))
            .arg(format!("O={}", out.display()))
            .arg("all")
            .output()
            .expect("make");
        assert!(
            o.status.success(),
            "make -C tests/slurm/unit failed:\n{}{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        );
        Ok(out)
    });
    match b {
        Ok(p) => Some(p),
        Err(why) => {
            if std::env::var("MAUISCHED_REQUIRE_SLURM").as_deref() == Ok("1") {
                panic!("MAUISCHED_REQUIRE_SLURM=1 but the Slurm unit tests cannot be built: {why}");
            }
            use std::io::Write;
            let _ = writeln!(std::io::stderr(), "SKIPPED slurm_unit: {why}");
            None
        }
    }
}

fn run_unit(name: &str) {
    let Some(dir) = built() else { return };
    c_unit_common::run_c_unit(&dir.join(name));
}

#[test]
fn c_unit_tests_of_the_admin_comment_marker_pass() {
    run_unit("test_marker");
}

#[test]
fn c_unit_tests_of_the_slurm_to_engine_mapping_pass() {
    run_unit("test_gather");
}

#[test]
fn c_unit_tests_of_the_engine_reason_to_slurm_reason_mapping_pass() {
    run_unit("test_reason");
}

#[test]
fn c_unit_tests_of_the_generic_resource_strings_of_both_slurm_releases_pass() {
    run_unit("test_gres");
}
