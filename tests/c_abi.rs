//! The C ABI from C: builds the programs in `tests/c/` with `cc` against
//! `include/mauisched.h` and the `libmauisched.so` this `cargo test` built,
//! and runs each of them plainly, under valgrind and built with
//! AddressSanitizer.
//!
//! Where the library comes from: cargo builds the crate's cdylib beside
//! the test binaries (`target/<profile>/deps/libmauisched.so`); it is
//! copied to `$CARGO_TARGET_TMPDIR/c_abi/lib/` under its SONAME
//! `libmauisched.so.1` (with a `libmauisched.so` link for the linker), and
//! the programs find it through an rpath.
//!
//! Every program is compiled as strict C99 (`-std=c99 -Wall -Wextra
//! -Werror -pedantic`, the header included twice); `lifecycle.c` is also
//! compiled as C++. valgrind runs with `--error-exitcode=1
//! --leak-check=full`; without valgrind the check says so and is skipped,
//! except in CI (`CI` set), where `scripts/deps.sh` installs it and its
//! absence fails. The same for AddressSanitizer when `-fsanitize=address`
//! does not link.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

/// Where the library copy and the build outputs live.
struct Setup {
    lib: PathBuf,
    work: PathBuf,
}

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn setup() -> &'static Setup {
    static S: OnceLock<Setup> = OnceLock::new();
    S.get_or_init(|| {
        let exe = std::env::current_exe().expect("test binary path");
        // The test binary is target/<profile>/deps/c_abi-<hash>; the cdylib
        // cargo built for this run sits beside it (cdylib names carry no
        // hash). `cargo build` also copies it up to target/<profile>/, but
        // `cargo test` does not, so that copy may be stale or missing.
        let deps = exe.parent().expect("target/<profile>/deps");
        let so = deps.join("libmauisched.so");
        assert!(
            so.is_file(),
            "{} is missing: cargo builds the cdylib with the tests",
            so.display()
        );
        let work = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("c_abi");
        let _ = std::fs::remove_dir_all(&work);
        let lib = work.join("lib");
        std::fs::create_dir_all(&lib).unwrap();
        std::fs::copy(&so, lib.join("libmauisched.so.1")).unwrap();
        std::os::unix::fs::symlink("libmauisched.so.1", lib.join("libmauisched.so")).unwrap();
        Setup { lib, work }
    })
}

#[derive(Clone, Copy, PartialEq)]
enum Build {
    C,
    Cxx,
    Asan,
}

impl Build {
    fn name(self) -> &'static str {
        match self {
            Build::C => "c",
            Build::Cxx => "cxx",
            Build::Asan => "asan",
        }
    }
}

fn show(o: &Output) -> String {
    format!(
        "status {}\n--- stdout\n{}--- stderr\n{}",
        o.status,
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// Compiles `tests/c/<name>.c`; `Err` carries the compiler's output.
fn compile(name: &str, build: Build) -> Result<PathBuf, String> {
    let s = setup();
    let src = root().join("tests/c").join(format!("{name}.c"));
    let out = s.work.join(format!("{name}-{}", build.name()));
    let mut cmd = Command::new("cc");
    match build {
        Build::Cxx => cmd.args(["-x", "c++", "-std=c++11"]),
        _ => cmd.arg("-std=c99"),
    };
    cmd.args(["-Wall", "-Wextra", "-Werror", "-pedantic", "-g"]);
    if build == Build::Asan {
        cmd.args(["-fsanitize=address", "-fno-omit-frame-pointer"]);
    }
    cmd.arg("-I").arg(root().join("include"));
    cmd.arg(&src);
    if build == Build::Cxx {
        cmd.args(["-x", "none"]);
    }
    cmd.arg("-o").arg(&out);
    cmd.arg("-L").arg(&s.lib).arg("-lmauisched");
    cmd.arg(format!("-Wl,-rpath,{}", s.lib.display()));
    let o = cmd
        .output()
        .map_err(|e| format!("cannot run cc: {e} (install gcc: scripts/deps.sh test)"))?;
    if !o.status.success() {
        return Err(format!(
            "cc {} ({}):\n{}",
            src.display(),
            build.name(),
            show(&o)
        ));
    }
    Ok(out)
}

/// Runs a built program in a fresh scratch directory (optionally through a
/// wrapper such as valgrind) and checks that every check passed.
fn run(exe: &Path, label: &str, wrapper: &[&str], env: &[(&str, &str)]) {
    let dir = setup().work.join(format!("run-{label}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let mut cmd = match wrapper.split_first() {
        Some((w, rest)) => {
            let mut c = Command::new(w);
            c.args(rest).arg(exe);
            c
        }
        None => Command::new(exe),
    };
    cmd.arg(&dir).env_remove("MAUISCHED_TEST_PANIC");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let o = cmd.output().unwrap();
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(
        o.status.success() && stdout.contains(" passed, 0 failed"),
        "{label}:\n{}",
        show(&o)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

fn in_ci() -> bool {
    std::env::var_os("CI").is_some_and(|v| !v.is_empty())
}

fn have(tool: &str) -> bool {
    Command::new(tool)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Builds and runs one program: as C, under valgrind, and with ASan.
fn check_program(name: &str, env: &[(&str, &str)]) {
    let exe = compile(name, Build::C).unwrap_or_else(|e| panic!("{e}"));
    run(&exe, &format!("{name}-c"), &[], env);

    if have("valgrind") {
        run(
            &exe,
            &format!("{name}-valgrind"),
            &[
                "valgrind",
                "-q",
                "--error-exitcode=1",
                "--leak-check=full",
                "--errors-for-leak-kinds=definite,possible",
            ],
            env,
        );
    } else {
        assert!(
            !in_ci(),
            "valgrind is missing in CI: scripts/deps.sh test installs it"
        );
        eprintln!("{name}: valgrind is not installed: the valgrind run is skipped");
    }

    match compile(name, Build::Asan) {
        Ok(asan) => {
            let mut env = env.to_vec();
            env.push(("ASAN_OPTIONS", "detect_leaks=1"));
            run(&asan, &format!("{name}-asan"), &[], &env);
        }
        Err(e) if !in_ci() && e.contains("asan") => {
            eprintln!(
                "{name}: -fsanitize=address does not link here; the ASan run is skipped:\n{e}"
            )
        }
        Err(e) => panic!("{e}"),
    }
}

#[test]
fn lifecycle() {
    check_program("lifecycle", &[]);
}

#[test]
fn lifecycle_compiles_and_runs_as_cxx() {
    let exe = compile("lifecycle", Build::Cxx).unwrap_or_else(|e| panic!("{e}"));
    run(&exe, "lifecycle-cxx", &[], &[]);
}

#[test]
fn iteration_and_renderers() {
    check_program("iteration", &[]);
}

#[test]
fn error_paths() {
    check_program("errors", &[]);
}

/// The library and this test share a profile: a debug library panics on
/// request, a release library must not.
#[test]
fn panic_poisons_the_handle() {
    let mut env = vec![("MAUISCHED_TEST_PANIC", "mauisched_run")];
    if !cfg!(debug_assertions) {
        env.push(("MAUISCHED_TEST_RELEASE", "1"));
    }
    check_program("poison", &env);
}

#[test]
fn admin_reservations_and_system_priority() {
    check_program("admin", &[]);
}

#[test]
fn state_survives_a_restart_and_a_corrupt_checkpoint() {
    check_program("state", &[]);
}

#[test]
fn admin_socket_actions_reach_the_plan() {
    check_program("admin_socket", &[]);
}

#[test]
fn local_allocation_callback() {
    check_program("local", &[]);
}

#[test]
fn settings_for_front_ends() {
    check_program("settings", &[]);
}

#[test]
fn the_library_carries_its_soname() {
    let so = setup().lib.join("libmauisched.so.1");
    let o = Command::new("readelf")
        .arg("-d")
        .arg(&so)
        .output()
        .expect("readelf (binutils, installed with gcc)");
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.contains("Library soname: [libmauisched.so.1]"),
        "{text}"
    );
}
