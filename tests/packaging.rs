//! Packaging: the manual pages, the RPMs (packaging/mauisched.spec.in,
//! scripts/rpm.sh) and `make install`.
//!
//! The RPMs: scripts/test.sh builds them before `cargo test` and passes
//! their rpmbuild tree in MAUISCHED_RPM_TOPDIR; without it, when rpmbuild
//! is installed, this test binary runs scripts/rpm.sh once itself. Without
//! rpmbuild the RPM tests say why and pass, unless MAUISCHED_REQUIRE_RPM=1
//! (CI) makes that a failure.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

mod output_common;
use output_common::{ok, text};

/// The commands installed as links to mauictl, named after Maui's.
const MAUI_COMMANDS: [&str; 20] = [
    "canceljob",
    "checkjob",
    "checknode",
    "diagnose",
    "releasehold",
    "releaseres",
    "resetstats",
    "runjob",
    "schedctl",
    "sethold",
    "setres",
    "setspri",
    "showbf",
    "showconfig",
    "showhold",
    "showq",
    "showres",
    "showstart",
    "showstate",
    "showstats",
];
const VERSION: &str = env!("CARGO_PKG_VERSION");
const ABI_MAJOR: &str = env!("MAUISCHED_ABI_MAJOR");
const ABI_MINOR: &str = env!("MAUISCHED_ABI_MINOR");

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A fresh scratch directory for one test.
fn scratch(name: &str) -> PathBuf {
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("packaging")
        .join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn run(program: &str, args: &[&str]) -> String {
    let out = Command::new(program)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {program}: {e}"));
    ok(out, &format!("{program} {}", args.join(" ")))
}

/// Whether `program` is on PATH (not every tool has a --version).
fn have(program: &str) -> bool {
    std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).any(|d| d.join(program).is_file()))
        .unwrap_or(false)
}

/// The Slurm version of the installed headers, as Slurm's packages spell
/// it, read here independently of packaging/slurm-version.sh.
fn slurm_header_version() -> Option<String> {
    let h = std::fs::read_to_string("/usr/include/slurm/slurm_version.h").ok()?;
    for line in h.lines() {
        let w: Vec<&str> = line.split_whitespace().collect();
        if w.len() >= 3 && w[0] == "#define" && w[1] == "SLURM_VERSION_STRING" {
            return Some(w[2].trim_matches('"').to_string());
        }
    }
    for line in h.lines() {
        let w: Vec<&str> = line.split_whitespace().collect();
        if w.len() >= 3 && w[0] == "#define" && w[1] == "SLURM_VERSION_NUMBER" {
            let n = u32::from_str_radix(w[2].trim_start_matches("0x"), 16).ok()?;
            return Some(format!("{}.{:02}.{}", n >> 16, (n >> 8) & 0xff, n & 0xff));
        }
    }
    None
}

// ---------------------------------------------------------- man pages

/// The file names `mauictl man` writes.
fn generated_man_pages(scratch_name: &str) -> BTreeSet<String> {
    let dir = scratch(scratch_name);
    ok(
        Command::new(env!("CARGO_BIN_EXE_mauictl"))
            .arg("man")
            .arg(&dir)
            .output()
            .unwrap(),
        "mauictl man",
    );
    std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect()
}

#[test]
fn man_pages_are_generated_for_mauictl_and_every_maui_command() {
    let names = generated_man_pages("man");
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("packaging/man");
    for page in ["mauictl.1", "mauictl-simulate.1", "mauictl-check.1"] {
        assert!(names.contains(page), "{page} missing: {names:?}");
    }
    // The hidden generator itself has no page.
    assert!(!names.contains("mauictl-man.1"), "{names:?}");
    let maui: BTreeSet<String> = names
        .iter()
        .filter(|n| !n.starts_with("mauictl"))
        .map(|n| n.trim_end_matches(".1").to_string())
        .collect();
    let want: BTreeSet<String> = MAUI_COMMANDS.iter().map(|s| s.to_string()).collect();
    assert_eq!(maui, want, "one page per Maui-named command, no other");
    for cmd in MAUI_COMMANDS {
        let page = std::fs::read_to_string(dir.join(format!("{cmd}.1"))).unwrap();
        assert!(
            page.contains(&format!(".TH {cmd} 1")),
            "{cmd}.1: title\n{page}"
        );
        assert!(
            page.contains(&format!("{cmd} \\- ")),
            "{cmd}.1: NAME line\n{page}"
        );
        assert!(
            page.contains(&format!("mauisched {VERSION}")),
            "{cmd}.1: source"
        );
        assert!(page.contains("mauictl(1)"), "{cmd}.1: see also");
    }
    // Maui's own synopsis where the scheduler parses the arguments.
    let setres = std::fs::read_to_string(dir.join("setres.1")).unwrap();
    assert!(setres.contains("TASKS==N"), "{setres}");
    let top = std::fs::read_to_string(dir.join("mauictl.1")).unwrap();
    assert!(top.contains(".TH mauictl 1"), "{top}");
    assert!(top.contains("simulate"), "subcommands listed");
}

// ---------------------------------------------------------------- RPMs

/// The rpmbuild tree holding the built RPMs (RPMS/, BUILD/), or why not.
fn rpm_top() -> Option<&'static PathBuf> {
    static TOP: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    let top = TOP.get_or_init(|| {
        if let Some(t) = std::env::var_os("MAUISCHED_RPM_TOPDIR") {
            let t = PathBuf::from(t);
            eprintln!("packaging: RPMs of MAUISCHED_RPM_TOPDIR={}", t.display());
            return Ok(t);
        }
        for tool in ["rpmbuild", "rpm2cpio", "cpio"] {
            if !have(tool) {
                return Err(format!(
                    "{tool} is not installed (Debian: scripts/deps.sh test)"
                ));
            }
        }
        eprintln!("packaging: building the RPMs (scripts/rpm.sh)");
        ok(
            Command::new("bash")
                .arg(repo().join("scripts/rpm.sh"))
                .output()
                .unwrap(),
            "scripts/rpm.sh",
        );
        Ok(repo().join("target/rpm"))
    });
    match top {
        Ok(t) => Some(t),
        Err(why) => {
            if std::env::var("MAUISCHED_REQUIRE_RPM").as_deref() == Ok("1") {
                panic!("MAUISCHED_REQUIRE_RPM=1 but the RPMs cannot be built: {why}");
            }
            use std::io::Write;
            let _ = writeln!(std::io::stderr(), "SKIPPED packaging (RPM): {why}");
            None
        }
    }
}

/// The binary RPM of package `name` (mauisched, mauisched-slurm, ...).
fn rpm(top: &Path, name: &str) -> PathBuf {
    let mut found = Vec::new();
    let rpms = top.join("RPMS");
    for arch in std::fs::read_dir(&rpms).unwrap_or_else(|e| panic!("{}: {e}", rpms.display())) {
        for f in std::fs::read_dir(arch.unwrap().path()).unwrap() {
            let p = f.unwrap().path();
            let n = run("rpm", &["-qp", "--qf", "%{NAME}", p.to_str().unwrap()]);
            if n == name {
                found.push(p);
            }
        }
    }
    assert_eq!(found.len(), 1, "{name}: {found:?}");
    found.pop().unwrap()
}

fn rpm_query(top: &Path, name: &str, args: &[&str]) -> Vec<String> {
    let p = rpm(top, name);
    let mut a = vec!["-qp"];
    a.extend(args);
    a.push(p.to_str().unwrap());
    run("rpm", &a)
        .lines()
        .map(|l| l.trim().to_string())
        .collect()
}

fn rpm_eval(expr: &str) -> String {
    run("rpm", &["--eval", expr])
}

/// Man pages are compressed by rpm's brp-compress where it can.
fn strip_gz(f: &str) -> String {
    f.strip_suffix(".gz").unwrap_or(f).to_string()
}

#[test]
fn rpms_hold_their_files_and_only_theirs() {
    let Some(top) = rpm_top() else { return };
    let libdir = rpm_eval("%{_libdir}");
    let soname = format!("libmauisched.so.{ABI_MAJOR}");
    let mut mauisched: BTreeSet<String> = [
        format!("{libdir}/{soname}"),
        format!("{libdir}/{soname}.{ABI_MINOR}"),
        "/usr/bin/mauictl".into(),
        "/usr/share/mauisched".into(),
        "/usr/share/mauisched/maui.cfg.example".into(),
        "/usr/lib/tmpfiles.d/mauisched.conf".into(),
        "/var/lib/mauisched".into(),
        "/var/lib/mauisched/run".into(),
    ]
    .into_iter()
    .collect();
    for c in MAUI_COMMANDS {
        mauisched.insert(format!("/usr/bin/{c}"));
    }
    // Every page `mauictl man` writes (its own test checks which).
    for page in generated_man_pages("man-for-rpm") {
        mauisched.insert(format!("/usr/share/man/man1/{page}"));
    }
    let devel: BTreeSet<String> = [
        "/usr/include/mauisched.h".to_string(),
        format!("{libdir}/libmauisched.so"),
        format!("{libdir}/pkgconfig/mauisched.pc"),
    ]
    .into_iter()
    .collect();
    let slurm: BTreeSet<String> = [
        format!("{libdir}/slurm/sched_maui.so"),
        format!("{libdir}/slurm/job_submit_maui.so"),
        format!("{libdir}/slurm/cli_filter_maui.so"),
    ]
    .into_iter()
    .collect();
    let torque: BTreeSet<String> = [
        "/usr/sbin/mauisched-pbs",
        "/usr/lib/systemd/system/mauisched-pbs.service",
        "/usr/share/man/man8/mauisched-pbs.8",
        "/etc/sysconfig/mauisched-pbs",
    ]
    .into_iter()
    .map(String::from)
    .collect();
    let mut all = BTreeSet::new();
    for (name, want) in [
        ("mauisched", &mauisched),
        ("mauisched-devel", &devel),
        ("mauisched-slurm", &slurm),
        ("mauisched-torque", &torque),
    ] {
        let got: BTreeSet<String> = rpm_query(top, name, &["-l"])
            .iter()
            .map(|f| strip_gz(f))
            .collect();
        // Each package has its files; the doc directory aside, no others
        // (so none of another package's, whose lists are all known here).
        let missing: Vec<_> = want.difference(&got).collect();
        assert!(missing.is_empty(), "{name} lacks {missing:?}; has {got:#?}");
        // rpm's own: build-id links where the distribution has them.
        let extra: Vec<_> = got
            .difference(want)
            .filter(|f| !f.starts_with("/usr/share/doc/") && !f.starts_with("/usr/lib/.build-id"))
            .collect();
        assert!(extra.is_empty(), "{name} has unexpected {extra:?}");
        for f in got.iter().filter(|f| !f.starts_with("/usr/lib/.build-id")) {
            assert!(all.insert(f.clone()), "{f} is in two packages");
        }
    }
    let docs = rpm_query(top, "mauisched", &["-d"]);
    assert!(
        docs.iter().any(|f| f.ends_with("/maui.cfg.example")),
        "maui.cfg.example is documentation: {docs:?}"
    );
    let cfg = rpm_query(top, "mauisched-torque", &["-c"]);
    assert_eq!(cfg, ["/etc/sysconfig/mauisched-pbs"]);
}

#[test]
fn rpm_dependencies_name_the_library_and_the_slurm_of_the_headers() {
    let Some(top) = rpm_top() else { return };
    let soname_dep = format!("libmauisched.so.{ABI_MAJOR}()(64bit)");
    let provides = rpm_query(top, "mauisched", &["--provides"]);
    assert!(provides.contains(&soname_dep), "{provides:?}");
    assert!(
        provides
            .iter()
            .any(|p| p.starts_with(&format!("mauisched = {VERSION}-"))),
        "{provides:?}"
    );
    let slurm = rpm_query(top, "mauisched-slurm", &["-R"]);
    let sv = slurm_header_version().expect("the Slurm headers (libslurm-dev) are installed");
    assert!(slurm.contains(&format!("slurm = {sv}")), "{slurm:?}");
    assert!(slurm.contains(&soname_dep), "{slurm:?}");
    assert!(
        slurm
            .iter()
            .any(|r| r.starts_with(&format!("mauisched = {VERSION}-"))
                || r.starts_with(&format!("mauisched(x86-64) = {VERSION}-"))),
        "{slurm:?}"
    );
    // The daemon links the library: rpm finds that dependency itself.
    let torque = rpm_query(top, "mauisched-torque", &["-R"]);
    assert!(torque.contains(&soname_dep), "{torque:?}");
    let devel = rpm_query(top, "mauisched-devel", &["-R"]);
    assert!(
        devel
            .iter()
            .any(|r| r.contains(&format!("mauisched(x86-64) = {VERSION}-"))
                || r.contains(&format!("mauisched = {VERSION}-"))),
        "{devel:?}"
    );
    // The Slurm plugins are built for that Slurm: its version number is
    // in the spec's build, and the summary says it.
    let desc = rpm_query(top, "mauisched-slurm", &["--qf", "%{DESCRIPTION}"]).join(" ");
    assert!(desc.contains(&sv), "{desc}");
}

/// Unpacks the payload of `names` into a fresh directory, as rpm would
/// install it.
fn extract(top: &Path, names: &[&str], into: &str) -> PathBuf {
    let root = scratch(into);
    for name in names {
        let p = rpm(top, name);
        let out = Command::new("sh")
            .arg("-c")
            .arg(format!(
                "rpm2cpio '{}' | cpio -idm --quiet",
                p.to_str().unwrap()
            ))
            .current_dir(&root)
            .output()
            .unwrap();
        ok(out, &format!("rpm2cpio {name} | cpio"));
    }
    root
}

#[test]
fn rpm_payload_runs_the_links_and_has_the_soname() {
    let Some(top) = rpm_top() else { return };
    let root = extract(top, &["mauisched", "mauisched-devel"], "payload");
    let libdir = rpm_eval("%{_libdir}");
    let lib = root.join(libdir.trim_start_matches('/'));
    let soname = format!("libmauisched.so.{ABI_MAJOR}");
    let real = format!("{soname}.{ABI_MINOR}");
    assert_eq!(
        std::fs::read_link(lib.join(&soname)).unwrap(),
        Path::new(&real)
    );
    assert_eq!(
        std::fs::read_link(lib.join("libmauisched.so")).unwrap(),
        Path::new(&soname)
    );
    let dynamic = run("readelf", &["-d", lib.join(&real).to_str().unwrap()]);
    assert!(
        dynamic.contains(&format!("Library soname: [{soname}]")),
        "{dynamic}"
    );
    let bin = root.join("usr/bin");
    for c in MAUI_COMMANDS {
        assert_eq!(
            std::fs::read_link(bin.join(c)).unwrap(),
            Path::new("mauictl"),
            "{c}"
        );
    }
    // A link runs as the command it is named after: showq asks the
    // scheduler (none here: exit 3, "no scheduler").
    let out = Command::new(bin.join("showq"))
        .args(["--socket", "/nonexistent/mauisched.sock"])
        .output()
        .unwrap();
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{err}");
    assert!(
        err.starts_with("showq: no scheduler is answering at /nonexistent/mauisched.sock"),
        "{err}"
    );
    // mauictl itself reads the example configuration.
    let example = root.join("usr/share/mauisched/maui.cfg.example");
    let checked = run(
        bin.join("mauictl").to_str().unwrap(),
        &["check", "-q", "-C", example.to_str().unwrap()],
    );
    // One note: the time zone the times follow; nothing about the file.
    assert!(
        checked.ends_with(": 0 error(s), 0 warning(s), 1 note(s)"),
        "{checked}"
    );
    let noted = run(
        bin.join("mauictl").to_str().unwrap(),
        &["check", "-c", example.to_str().unwrap()],
    );
    assert_eq!(
        noted.lines().filter(|l| l.contains(": note: ")).count(),
        1,
        "{noted}"
    );
    assert!(noted.contains(": note: times are local to "), "{noted}");
    let pc = std::fs::read_to_string(lib.join("pkgconfig/mauisched.pc")).unwrap();
    assert!(pc.contains(&format!("libdir={libdir}\n")), "{pc}");
    assert!(pc.contains(&format!("Version: {VERSION}\n")), "{pc}");
    assert_eq!(
        std::fs::read(root.join("usr/include/mauisched.h")).unwrap(),
        std::fs::read(repo().join("include/mauisched.h")).unwrap()
    );
}

// --------------------------------------------------------- make install

/// The tree `make install` runs in, built: with RPMs, their source
/// tarball unpacked where rpmbuild built it, with cargo's output of that
/// build (`TARGET_DIR`, scripts/rpm.sh): no second release build, and the
/// tarball is shown to be enough. Else this checkout, after `make`.
fn built_source() -> &'static (PathBuf, Option<PathBuf>) {
    static SRC: OnceLock<(PathBuf, Option<PathBuf>)> = OnceLock::new();
    SRC.get_or_init(|| match rpm_top() {
        Some(top) => {
            let build = top.join("BUILD");
            let tarball = top.join(format!("SOURCES/mauisched-{VERSION}.tar.gz"));
            let _ = std::fs::remove_dir_all(build.join(format!("mauisched-{VERSION}")));
            std::fs::create_dir_all(&build).unwrap();
            run(
                "tar",
                &[
                    "-xzf",
                    tarball.to_str().unwrap(),
                    "-C",
                    build.to_str().unwrap(),
                ],
            );
            (
                build.join(format!("mauisched-{VERSION}")),
                Some(top.join("cargo-target")).filter(|t| t.is_dir()),
            )
        }
        None => {
            // `make install` installs what `make` built.
            let out = Command::new("make").arg("-C").arg(repo()).output().unwrap();
            ok(out, "make");
            (repo(), None)
        }
    })
}

/// One `make install` at a time: they share the build's output directory
/// (the .pc file is written with each one's LIBDIR).
fn make_lock() -> std::sync::MutexGuard<'static, ()> {
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    LOCK.lock().unwrap_or_else(|e| e.into_inner())
}

#[test]
fn make_install_gives_the_tree_with_working_links() {
    let _serial = make_lock();
    let (src, target) = built_source();
    eprintln!("packaging: make install in {}", src.display());
    let dest = scratch("make-install");
    let mut make = Command::new("make");
    if let Some(t) = target {
        make.arg(format!("TARGET_DIR={}", t.display()))
            .arg("CARGO_FLAGS=--offline --locked");
    }
    // sched_maui.so is built against Slurm's configured source: the one
    // scripts/slurm-src.sh keeps for this checkout, not fetched again.
    let out = make
        .env("MAUISCHED_SLURM_SRC_DIR", repo().join("target/slurm-src"))
        .arg("-C")
        .arg(src)
        .arg("install")
        .arg(format!("DESTDIR={}", dest.display()))
        .arg("PREFIX=/usr")
        .output()
        .unwrap();
    ok(out, "make install");
    let usr = dest.join("usr");
    let soname = format!("libmauisched.so.{ABI_MAJOR}");
    let real = format!("{soname}.{ABI_MINOR}");
    let lib = usr.join("lib");
    assert!(lib.join(&real).is_file());
    assert_eq!(
        std::fs::read_link(lib.join(&soname)).unwrap(),
        Path::new(&real)
    );
    assert_eq!(
        std::fs::read_link(lib.join("libmauisched.so")).unwrap(),
        Path::new(&soname)
    );
    // Links resolve inside the tree (relative), to the real file.
    assert_eq!(
        std::fs::canonicalize(lib.join("libmauisched.so")).unwrap(),
        std::fs::canonicalize(lib.join(&real)).unwrap()
    );
    let mauictl = std::fs::canonicalize(usr.join("bin/mauictl")).unwrap();
    for c in MAUI_COMMANDS {
        let l = usr.join("bin").join(c);
        assert_eq!(std::fs::read_link(&l).unwrap(), Path::new("mauictl"), "{c}");
        assert_eq!(std::fs::canonicalize(&l).unwrap(), mauictl, "{c}");
        assert!(usr.join(format!("share/man/man1/{c}.1")).is_file(), "{c}.1");
    }
    assert!(usr.join("share/man/man1/mauictl.1").is_file());
    let pc = std::fs::read_to_string(lib.join("pkgconfig/mauisched.pc")).unwrap();
    assert!(pc.starts_with("prefix=/usr\n"), "{pc}");
    assert!(pc.contains("libdir=/usr/lib\n"), "{pc}");
    assert!(pc.contains("includedir=/usr/include\n"), "{pc}");
    assert!(pc.contains(&format!("Version: {VERSION}\n")), "{pc}");
    if have("pkg-config") {
        let pkg_config = |what: &str| {
            let out = Command::new("pkg-config")
                .args([what, "mauisched"])
                .env("PKG_CONFIG_PATH", lib.join("pkgconfig"))
                .env("PKG_CONFIG_SYSROOT_DIR", &dest)
                .output()
                .unwrap();
            ok(out, &format!("pkg-config {what} mauisched"))
        };
        assert_eq!(pkg_config("--modversion"), VERSION);
        let libs = pkg_config("--libs");
        assert!(libs.contains("-lmauisched"), "{libs}");
    }
    assert_eq!(
        std::fs::read(usr.join("include/mauisched.h")).unwrap(),
        std::fs::read(repo().join("include/mauisched.h")).unwrap()
    );
    assert_eq!(
        std::fs::read(usr.join("share/mauisched/maui.cfg.example")).unwrap(),
        std::fs::read(repo().join("packaging/maui.cfg")).unwrap()
    );
    assert!(usr.join("lib/tmpfiles.d/mauisched.conf").is_file());
    assert!(dest.join("var/lib/mauisched/run").is_dir());
    // The PBS/Torque daemon, linked to the installed library name, with no
    // path into the build tree.
    let pbs = usr.join("sbin/mauisched-pbs");
    let dynamic = run("readelf", &["-d", pbs.to_str().unwrap()]);
    assert!(
        dynamic.contains(&format!("Shared library: [{soname}]")),
        "{dynamic}"
    );
    assert!(
        !dynamic.contains("RPATH") && !dynamic.contains("RUNPATH"),
        "{dynamic}"
    );
    let unit =
        std::fs::read_to_string(usr.join("lib/systemd/system/mauisched-pbs.service")).unwrap();
    assert!(
        unit.contains("ExecStart=/usr/sbin/mauisched-pbs "),
        "{unit}"
    );
    assert!(dest.join("etc/sysconfig/mauisched-pbs").is_file());
    let page = std::fs::read_to_string(usr.join("share/man/man8/mauisched-pbs.8")).unwrap();
    assert!(
        page.contains(&format!("\"mauisched {VERSION}\"")),
        "version in .TH"
    );
    if Path::new("/usr/include/slurm/slurm.h").is_file() {
        for so in ["sched_maui.so", "job_submit_maui.so", "cli_filter_maui.so"] {
            assert!(lib.join("slurm").join(so).is_file(), "{so}");
        }
    }
}

#[test]
fn deb_has_the_files_at_debian_paths() {
    if !have("dpkg-deb") {
        eprintln!("SKIPPED deb: dpkg-deb is not installed");
        return;
    }
    let _serial = make_lock();
    let (src, target) = built_source();
    let out_dir = scratch("deb");
    let mut cmd = Command::new("bash");
    cmd.arg(src.join("scripts/deb.sh")).arg(&out_dir);
    if let Some(t) = target {
        cmd.env("TARGET_DIR", t)
            .env("CARGO_FLAGS", "--offline --locked");
    }
    let said = ok(cmd.output().unwrap(), "scripts/deb.sh");
    let arch = run("dpkg", &["--print-architecture"]);
    let deb = out_dir.join(format!("mauisched_{VERSION}-1_{arch}.deb"));
    assert!(said.ends_with(&format!("deb: {}", deb.display())), "{said}");
    let deb_s = deb.to_str().unwrap();
    assert_eq!(
        run("dpkg-deb", &["-f", deb_s, "Version"]),
        format!("{VERSION}-1")
    );
    if let Some(sv) = slurm_header_version() {
        let breaks = run("dpkg-deb", &["-f", deb_s, "Breaks"]);
        assert!(
            breaks.starts_with(&format!("slurmctld (<< {sv}), slurmctld (>= ")),
            "{breaks}"
        );
    }
    let root = scratch("deb-root");
    run("dpkg-deb", &["-x", deb_s, root.to_str().unwrap()]);
    let ma = run("gcc", &["-print-multiarch"]);
    let lib = root.join("usr/lib").join(&ma);
    let soname = format!("libmauisched.so.{ABI_MAJOR}");
    assert_eq!(
        std::fs::read_link(lib.join(&soname)).unwrap(),
        Path::new(&format!("{soname}.{ABI_MINOR}"))
    );
    let pc = std::fs::read_to_string(lib.join("pkgconfig/mauisched.pc")).unwrap();
    assert!(pc.contains(&format!("libdir=/usr/lib/{ma}\n")), "{pc}");
    if slurm_header_version().is_some() {
        for so in ["sched_maui.so", "job_submit_maui.so", "cli_filter_maui.so"] {
            assert!(lib.join("slurm-wlm").join(so).is_file(), "{so}");
        }
    }
    for c in MAUI_COMMANDS {
        assert_eq!(
            std::fs::read_link(root.join("usr/bin").join(c)).unwrap(),
            Path::new("mauictl")
        );
    }
    assert!(root.join("usr/sbin/mauisched-pbs").is_file());
    assert!(root.join("etc/default/mauisched-pbs").is_file());
    let conffiles = std::fs::read_to_string(out_dir.join("stage/DEBIAN/conffiles")).unwrap();
    assert_eq!(conffiles, "/etc/default/mauisched-pbs\n");
    // Stripped: no debug sections left.
    let sections = run("readelf", &["-S", lib.join(&soname).to_str().unwrap()]);
    assert!(
        !sections.contains(".debug_info"),
        "libmauisched is not stripped"
    );
}
