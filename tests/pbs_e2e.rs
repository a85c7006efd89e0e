//! `mauisched-pbs` end to end, against the IFL test double.
//!
//! No package registry reachable here has Torque, so these tests run the real
//! daemon (c-shim/pbs) with `--libtorque` pointing at `tests/pbs/fake-ifl`, a
//! shared library exporting the IFL functions over an in-memory cluster that
//! records every call. The scheduler port is real: commands are sent as 4-byte
//! big-endian integers over TCP, from a privileged source port where the test
//! is about that. Both C programs are built here with `cc`, so a fresh
//! checkout needs nothing but a C compiler.
//!
//! The daemon decides with the real engine: it is linked against the
//! `libmauisched.so` this `cargo test` built (cargo puts the cdylib beside
//! the test binaries, `target/<profile>/deps/`; it is copied under its SONAME
//! `libmauisched.so.1` and found through an rpath, as tests/c_abi.rs does),
//! and every daemon gets its own maui.cfg and state directory. The first
//! scenarios are about the plumbing (locations, comments, per-job errors,
//! reconnects, event merging); the policy scenarios (priority order,
//! backfill beside a reserved wide job, standing reservations, operator
//! holds) follow them.
//!
//! Every wait is bounded; a daemon is killed when its test ends or fails.

mod c_unit_common;

use std::fs;
use std::io::Write;
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU16, Ordering};
use std::sync::OnceLock;
use std::thread::sleep;
use std::time::{Duration, Instant};

const WAIT: Duration = Duration::from_secs(30);
const NEW: u32 = 1;
const TERM: u32 = 2;

// ---- building the C programs ------------------------------------------------

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn build_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("pbs")
}

struct Built {
    daemon: PathBuf,
    fake: PathBuf,
    unit_map: PathBuf,
    unit_filter: PathBuf,
    unit_abi: PathBuf,
}

/// Stages the cdylib this `cargo test` built as `<dir>/libmauisched.so.1`
/// (with the `libmauisched.so` link the linker looks for).
fn stage_library(dir: &Path) {
    let exe = std::env::current_exe().expect("test binary path");
    // target/<profile>/deps/pbs_e2e-<hash>: the cdylib sits beside it
    // (`cargo test` does not copy it up to target/<profile>/).
    let so = exe.parent().unwrap().join("libmauisched.so");
    assert!(
        so.is_file(),
        "{} is missing: cargo builds the cdylib with the tests",
        so.display()
    );
    fs::create_dir_all(dir).unwrap();
    let staged = dir.join("libmauisched.so.1");
    // a new file, never a rewrite of one a running process has mapped
    let _ = fs::remove_file(&staged);
    fs::copy(&so, &staged).unwrap();
    let link = dir.join("libmauisched.so");
    let _ = fs::remove_file(&link);
    std::os::unix::fs::symlink("libmauisched.so.1", &link).unwrap();
}

fn cc(args: &[&str], what: &str) {
    let compiler = std::env::var("CC").unwrap_or_else(|_| "cc".to_string());
    let out = Command::new(&compiler)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {compiler} to build {what}: {e}"));
    assert!(
        out.status.success(),
        "building {what} failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn c_files(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "c"))
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// Builds everything once per test binary, with the project's warning flags
/// and the sanitizers (a memory error or leak fails the test that hits it).
fn built() -> &'static Built {
    static B: OnceLock<Built> = OnceLock::new();
    B.get_or_init(|| {
        let dir = build_dir();
        fs::create_dir_all(&dir).unwrap();
        let shim = root().join("c-shim/pbs");
        let unit = root().join("tests/pbs/unit");
        let include = format!("-I{}", root().join("include").display());
        let lib = dir.join("lib");
        stage_library(&lib);
        let strict = ["-std=c99", "-Wall", "-Wextra", "-Werror", "-g"];
        let san = [
            "-O1",
            "-fsanitize=address,undefined",
            "-fno-sanitize-recover=undefined",
            "-fno-omit-frame-pointer",
        ];
        let b = Built {
            daemon: dir.join("mauisched-pbs"),
            fake: dir.join("libfakeifl.so"),
            unit_map: dir.join("test_torque_map"),
            unit_filter: dir.join("test_evsrc_filter"),
            unit_abi: dir.join("test_abi_map"),
        };

        let mut args: Vec<String> = strict.iter().chain(&san).map(|s| s.to_string()).collect();
        args.push(include.clone());
        args.extend(c_files(&shim));
        args.extend([
            format!("-L{}", lib.display()),
            "-lmauisched".into(),
            format!("-Wl,-rpath,{}", lib.display()),
            // RUNPATH, not RPATH: LD_LIBRARY_PATH may stand in another
            // library (the ABI version test does)
            "-Wl,--enable-new-dtags".into(),
            "-ldl".into(),
            "-o".into(),
            b.daemon.to_string_lossy().into(),
        ]);
        cc(
            &args.iter().map(String::as_str).collect::<Vec<_>>(),
            "mauisched-pbs",
        );

        let fake_src = root().join("tests/pbs/fake-ifl/fake_ifl.c");
        let mut args: Vec<String> = strict.iter().map(|s| s.to_string()).collect();
        args.extend(["-O1", "-fPIC", "-shared", "-o"].map(String::from));
        args.push(b.fake.to_string_lossy().into());
        args.push(fake_src.to_string_lossy().into());
        cc(
            &args.iter().map(String::as_str).collect::<Vec<_>>(),
            "libfakeifl.so",
        );

        let inc = format!("-I{}", shim.display());
        for (out, test, mods) in [
            (
                &b.unit_map,
                "test_torque_map.c",
                &["torque_map.c", "strutil.c"][..],
            ),
            (
                &b.unit_filter,
                "test_evsrc_filter.c",
                &["evsrc_pbs.c", "log.c", "strutil.c"][..],
            ),
            (
                &b.unit_abi,
                "test_abi_map.c",
                &["abi_map.c", "torque_map.c", "strutil.c"][..],
            ),
        ] {
            let mut args: Vec<String> = strict.iter().chain(&san).map(|s| s.to_string()).collect();
            args.push(inc.clone());
            args.push(include.clone());
            args.push(unit.join(test).to_string_lossy().into());
            args.extend(
                mods.iter()
                    .map(|m| shim.join(m).to_string_lossy().into_owned()),
            );
            args.extend(["-o".into(), out.to_string_lossy().into()]);
            cc(&args.iter().map(String::as_str).collect::<Vec<_>>(), test);
        }
        b
    })
}

// ---- the daemon under test --------------------------------------------------

fn wait_until(timeout: Duration, mut f: impl FnMut() -> bool) -> bool {
    let end = Instant::now() + timeout;
    loop {
        if f() {
            return true;
        }
        if Instant::now() >= end {
            return false;
        }
        sleep(Duration::from_millis(20));
    }
}

/// One line of the daemon's "iteration N ..." log.
#[derive(Debug, Clone)]
struct Iteration {
    trigger: String,
    commands: u64,
    started: u32,
    refused: u32,
    comments: u32,
    unchanged: u32,
    skipped: bool,
}

fn field<'a>(line: &'a str, key: &str) -> Option<&'a str> {
    let pat = format!(" {key}=");
    let i = line.find(&pat)? + pat.len();
    Some(line[i..].split(' ').next().unwrap_or(""))
}

/// A recorded call of the fake: monotonic ms and the rest of the line.
struct Call {
    ms: f64,
    text: String,
}

struct Daemon {
    child: Child,
    dir: PathBuf,
    port: u16,
}

impl Daemon {
    /// Starts the daemon on `fixture` with an empty maui.cfg, a free port on
    /// 127.0.0.1, short reconnect delays, and `args` on top.
    fn start(name: &str, fixture: &str, args: &[&str]) -> Daemon {
        Self::start_full(name, fixture, "", &[], args)
    }

    /// Same with a maui.cfg and control lines for the fake armed before the
    /// daemon's first call.
    fn start_full(name: &str, fixture: &str, cfg: &str, control: &[&str], args: &[&str]) -> Daemon {
        Self::start_with_state(name, fixture, cfg, control, args, None, &[])
    }

    /// Same, with a checkpoint (`state/maui.ck`) in place before the start
    /// and more environment variables.
    fn start_with_state(
        name: &str,
        fixture: &str,
        cfg: &str,
        control: &[&str],
        args: &[&str],
        checkpoint: Option<&str>,
        envs: &[(&str, &str)],
    ) -> Daemon {
        let b = built();
        let dir = build_dir().join(format!("{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        if let Some(ck) = checkpoint {
            fs::create_dir_all(dir.join("state")).unwrap();
            fs::write(dir.join("state/maui.ck"), ck).unwrap();
        }
        fs::write(dir.join("fixture.txt"), fixture).unwrap();
        let armed: String = control.iter().map(|l| format!("{l}\n")).collect();
        fs::write(dir.join("control.txt"), armed).unwrap();
        fs::write(dir.join("maui.cfg"), cfg).unwrap();
        let child = Command::new(&b.daemon)
            .args(["-f", "-p", "0", "--listen", "127.0.0.1"])
            .args(["--backoff-min", "0.2", "--backoff-max", "1.6"])
            .arg("-L")
            .arg(&b.fake)
            .arg("-c")
            .arg(dir.join("maui.cfg"))
            .arg("-l")
            .arg(dir.join("daemon.log"))
            .arg("--state-dir")
            .arg(dir.join("state"))
            .args(args)
            // estimated starts in comments are local time: make it UTC
            .env("TZ", "UTC")
            .env("FAKE_IFL_FIXTURE", dir.join("fixture.txt"))
            .env("FAKE_IFL_LOG", dir.join("calls.log"))
            .env("FAKE_IFL_CONTROL", dir.join("control.txt"))
            .env_remove("MAUISCHED_TEST_PANIC")
            .envs(envs.iter().copied())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::from(
                fs::File::create(dir.join("stderr.txt")).unwrap(),
            ))
            .spawn()
            .expect("start mauisched-pbs");
        let mut d = Daemon {
            child,
            dir,
            port: 0,
        };
        let marker = "listening for pbs_server commands on 127.0.0.1:";
        let ok = wait_until(WAIT, || d.log().contains(marker));
        d.check(ok, "the daemon never listened");
        let log = d.log();
        let rest = &log[log.find(marker).unwrap() + marker.len()..];
        d.port = rest.split(' ').next().unwrap().parse().unwrap();
        d
    }

    fn log(&self) -> String {
        fs::read_to_string(self.dir.join("daemon.log")).unwrap_or_default()
    }

    /// Fails the test with both logs when `ok` is false.
    fn check(&self, ok: bool, what: &str) {
        if !ok {
            panic!(
                "{what}\n--- daemon log ---\n{}\n--- stderr ---\n{}\n--- IFL calls ---\n{}",
                self.log(),
                fs::read_to_string(self.dir.join("stderr.txt")).unwrap_or_default(),
                fs::read_to_string(self.dir.join("calls.log")).unwrap_or_default()
            );
        }
    }

    fn wait(&self, what: &str, f: impl FnMut() -> bool) {
        let ok = wait_until(WAIT, f);
        self.check(ok, &format!("timed out waiting for: {what}"));
    }

    fn calls(&self) -> Vec<Call> {
        fs::read_to_string(self.dir.join("calls.log"))
            .unwrap_or_default()
            .lines()
            .filter_map(|l| {
                let (ms, text) = l.split_once(' ')?;
                Some(Call {
                    ms: ms.parse().ok()?,
                    text: text.to_string(),
                })
            })
            .collect()
    }

    /// (job, location, result) of every pbs_runjob, in order.
    fn runjobs(&self) -> Vec<(String, String, i32)> {
        self.calls()
            .iter()
            .filter(|c| c.text.starts_with("runjob "))
            .map(|c| {
                let w: Vec<&str> = c.text.split(' ').collect();
                (w[2].to_string(), w[3].to_string(), w[5].parse().unwrap())
            })
            .collect()
    }

    /// (job, comment, result) of every pbs_alterjob but the comments of
    /// jobs just started ("mauisched: started ..."), in order.
    fn alterjobs(&self) -> Vec<(String, String, i32)> {
        self.all_alterjobs()
            .into_iter()
            .filter(|c| !c.1.starts_with("mauisched: started "))
            .collect()
    }

    /// (job, comment, result) of every pbs_alterjob, in order.
    fn all_alterjobs(&self) -> Vec<(String, String, i32)> {
        self.calls()
            .iter()
            .filter(|c| c.text.starts_with("alterjob "))
            .map(|c| {
                let w: Vec<&str> = c.text.splitn(4, ' ').collect();
                let (what, rc) = w[3].rsplit_once(" -> ").unwrap();
                let rc = rc.split(' ').next().unwrap().parse().unwrap();
                let comment = what
                    .strip_prefix("comment=\"")
                    .and_then(|s| s.strip_suffix('"'))
                    .unwrap_or(what);
                (w[2].to_string(), comment.to_string(), rc)
            })
            .collect()
    }

    fn iterations(&self) -> Vec<Iteration> {
        self.log()
            .lines()
            .filter(|l| l.contains(" INFO iteration ") && l.contains(" trigger="))
            .filter(|l| !l.contains(" aborted: ") && !l.contains(" interrupted: "))
            .map(|l| Iteration {
                trigger: field(l, "trigger").unwrap().to_string(),
                commands: field(l, "commands").unwrap().parse().unwrap(),
                started: field(l, "started").map_or(0, |v| v.parse().unwrap()),
                refused: field(l, "refused").map_or(0, |v| v.parse().unwrap()),
                comments: field(l, "comments").map_or(0, |v| v.parse().unwrap()),
                unchanged: field(l, "unchanged").map_or(0, |v| v.parse().unwrap()),
                skipped: l.contains("skipped=scheduling-off"),
            })
            .collect()
    }

    fn wait_iterations(&self, n: usize) {
        self.wait(&format!("{n} completed iteration(s)"), || {
            self.iterations().len() >= n
        });
    }

    /// Appends commands for the fake (applied at its next call).
    fn control(&self, lines: &[&str]) {
        let mut f = fs::OpenOptions::new()
            .append(true)
            .open(self.dir.join("control.txt"))
            .unwrap();
        for l in lines {
            writeln!(f, "{l}").unwrap();
        }
    }

    /// Sends a command from an ordinary (unprivileged) source port.
    fn send(&self, cmd: u32) {
        let mut s = TcpStream::connect(("127.0.0.1", self.port)).unwrap();
        s.write_all(&cmd.to_be_bytes()).unwrap();
    }

    /// Sends a command from a privileged source port, as pbs_server does.
    fn send_privileged(&self, cmd: u32) {
        send_from_privileged_port(self.port, cmd);
    }

    fn signal(&self, sig: i32) {
        // SAFETY: kill(2) on our own child's pid.
        let rc = unsafe { libc::kill(self.child.id() as libc::pid_t, sig) };
        assert_eq!(rc, 0);
    }

    fn alive(&mut self) -> bool {
        self.child.try_wait().unwrap().is_none()
    }
}

impl Drop for Daemon {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        // a failed test leaves its logs behind for a look
        if !std::thread::panicking() {
            let _ = fs::remove_dir_all(&self.dir);
        }
    }
}

/// Connects to 127.0.0.1:port from a source port below 1024 (needs root or
/// CAP_NET_BIND_SERVICE, as pbs_server has), writes the command, closes.
fn send_from_privileged_port(port: u16, cmd: u32) {
    static NEXT: AtomicU16 = AtomicU16::new(700);
    for _ in 0..400 {
        let src = 600 + (NEXT.fetch_add(1, Ordering::Relaxed) - 600) % 424;
        // SAFETY: plain socket calls on a descriptor owned by this function.
        unsafe {
            let fd = libc::socket(libc::AF_INET, libc::SOCK_STREAM, 0);
            assert!(fd >= 0);
            let one: libc::c_int = 1;
            libc::setsockopt(
                fd,
                libc::SOL_SOCKET,
                libc::SO_REUSEADDR,
                &one as *const _ as *const libc::c_void,
                std::mem::size_of::<libc::c_int>() as libc::socklen_t,
            );
            let mut sa: libc::sockaddr_in = std::mem::zeroed();
            sa.sin_family = libc::AF_INET as libc::sa_family_t;
            sa.sin_addr.s_addr = u32::from_be_bytes([127, 0, 0, 1]).to_be();
            sa.sin_port = src.to_be();
            let len = std::mem::size_of::<libc::sockaddr_in>() as libc::socklen_t;
            if libc::bind(fd, &sa as *const _ as *const libc::sockaddr, len) != 0 {
                let e = std::io::Error::last_os_error();
                libc::close(fd);
                assert_ne!(
                    e.raw_os_error(),
                    Some(libc::EACCES),
                    "binding a privileged source port needs root or CAP_NET_BIND_SERVICE"
                );
                continue;
            }
            sa.sin_port = port.to_be();
            if libc::connect(fd, &sa as *const _ as *const libc::sockaddr, len) != 0 {
                libc::close(fd);
                continue;
            }
            let b = cmd.to_be_bytes();
            let w = libc::write(fd, b.as_ptr() as *const libc::c_void, 4);
            libc::close(fd);
            assert_eq!(w, 4);
            return;
        }
    }
    panic!("no free privileged source port");
}

fn job(id: &str, qtime: u64, attrs: &[&str]) -> String {
    let mut s = format!("job {id}\n    job_state = Q\n    queue = batch\n    euser = alice\n    egroup = users\n    qtime = {qtime}\n");
    for a in attrs {
        s.push_str(&format!("    {a}\n"));
    }
    s
}

fn node(name: &str, np: u32, extra: &[&str]) -> String {
    let mut s = format!("node {name}\n    state = free\n    np = {np}\n    status = opsys=linux,physmem=8388608kb,availmem=8000000kb,loadave=0.00,ncpus={np}\n");
    for a in extra {
        s.push_str(&format!("    {a}\n"));
    }
    s
}

const HEAD: &str = "server vm\n    server_state = Active\n    scheduling = True\nqueue batch\n    enabled = True\n    started = True\n";

fn started(d: &Daemon) -> Vec<(String, String)> {
    d.runjobs()
        .into_iter()
        .filter(|r| r.2 == 0)
        .map(|r| (r.0, r.1))
        .collect()
}

fn pairs(v: &[(&str, &str)]) -> Vec<(String, String)> {
    v.iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect()
}

// ---- the C unit tests -------------------------------------------------------

use c_unit_common::run_c_unit as run_unit;

#[test]
fn c_unit_tests_of_the_torque_attribute_parsers_pass() {
    run_unit(&built().unit_map);
}

#[test]
fn c_unit_tests_of_the_scheduler_port_filter_pass() {
    run_unit(&built().unit_filter);
}

#[test]
fn c_unit_tests_of_the_mapping_into_the_abi_structs_pass() {
    run_unit(&built().unit_abi);
}

// ---- scenarios --------------------------------------------------------------

#[test]
fn ppn_packing_host_ppn_locations_and_comments_written_once() {
    let fixture = format!(
        "{HEAD}{}{}{}{}{}{}{}{}{}",
        node("n1", 4, &[]),
        node("n2", 4, &["properties = bigmem"]),
        node("n3", 4, &[]),
        job("20.vm", 100, &["Resource_List.nodes = 1:ppn=2"]),
        job("21.vm", 101, &["Resource_List.nodes = 1:ppn=2"]),
        job("22.vm", 102, &["Resource_List.nodes = 1:ppn=3:bigmem"]),
        job("23.vm", 103, &["Resource_List.nodes = n3:ppn=1+n2:ppn=1"]),
        job("24.vm", 104, &["Resource_List.nodes = 2:bigmem"]),
        job("25.vm", 105, &["Resource_List.procs = 3"]),
    ) + &job("26.vm", 106, &["Resource_List.nodes = 1:ppn=4"]);
    let d = Daemon::start_full(
        "packing",
        &fixture,
        "LASTAVAILABLEORDER BESTFIT\n",
        &[],
        &["--allow-unprivileged", "-v"],
    );
    d.wait_iterations(1);

    // Maui's defaults but for the guide's LASTAVAILABLE (best fit in time,
    // then in space): queue time orders the jobs, and the best fit packs them.
    // 20 and 21 share n1; 22 needs bigmem (n2); 23 names its hosts (the
    // location lists them in the RM's node order, as the engine gives them;
    // the placeholder this replaced wrote the request's order); 24 wants two
    // bigmem tasks and n2 has none left; procs=3 takes n3's 3 free slots
    // (by backfill: 24 holds the priority reservation, see its comment); 26
    // needs a whole node and none is left.
    assert_eq!(
        started(&d),
        pairs(&[
            ("20.vm", "n1:ppn=2"),
            ("21.vm", "n1:ppn=2"),
            ("22.vm", "n2:ppn=3"),
            ("23.vm", "n2+n3"),
            ("25.vm", "n3:ppn=3"),
        ])
    );
    assert!(d.log().contains("started job 25.vm on n3:ppn=3 (backfill)"));
    // In this iteration the resources 24 and 26 need were free until jobs
    // of higher priority took them: Maui's reason is "Priority". 24, the
    // first one blocked, holds the reservation (RESERVATIONDEPTH 1); 26's
    // estimated start is showstart's (when its resources are free).
    let comments = d.alterjobs();
    let waiting: Vec<&str> = comments.iter().map(|c| c.0.as_str()).collect();
    assert_eq!(waiting, ["24.vm", "26.vm"]);
    assert!(comments.iter().all(|c| c.2 == 0), "{comments:?}");
    assert!(
        comments[0]
            .1
            .starts_with("mauisched: Priority; estimated start "),
        "{comments:?}"
    );
    assert!(
        comments[1]
            .1
            .starts_with("mauisched: Priority; estimated start "),
        "{comments:?}"
    );

    // The fake now shows the running jobs in the nodes' jobs/state: the next
    // iteration starts nothing twice, and the reasons are now "Resources"
    // (the nodes are taken by running jobs): both comments change once ...
    d.send(NEW);
    d.wait_iterations(2);
    let it = d.iterations();
    assert_eq!(
        (it[1].started, it[1].comments, it[1].unchanged),
        (0, 2, 0),
        "{it:?}"
    );
    let comments = d.alterjobs();
    assert!(
        comments[2]
            .1
            .starts_with("mauisched: Resources; estimated start "),
        "{comments:?}"
    );
    assert!(
        comments[3]
            .1
            .starts_with("mauisched: Resources; estimated start "),
        "{comments:?}"
    );
    // ... and are left alone while they stay the same
    d.send(NEW);
    d.wait_iterations(3);
    let it = d.iterations();
    assert_eq!(
        (it[2].started, it[2].comments, it[2].unchanged),
        (0, 0, 2),
        "{it:?}"
    );
    assert_eq!(d.runjobs().len(), 5);

    // two jobs end on n1: the whole-node job starts there (24 still waits
    // for n2, its reservation unchanged, its comment too)
    d.control(&["complete 20.vm", "complete 21.vm"]);
    d.send(TERM);
    d.wait("26.vm started", || {
        started(&d).contains(&("26.vm".into(), "n1:ppn=4".into()))
    });
    assert_eq!(
        d.alterjobs().len(),
        4,
        "comments are written only when they change"
    );
}

#[test]
fn node_going_down_mid_run_gets_no_new_work() {
    let fixture = format!(
        "{HEAD}{}{}{}",
        node("n1", 1, &[]),
        node("n2", 2, &[]),
        job(
            "30.vm",
            100,
            &["Resource_List.nodes = 1:ppn=1", "exec_host = n2/0"]
        )
        .replace("job_state = Q", "job_state = R"),
    );
    let d = Daemon::start("nodedown", &fixture, &["--allow-unprivileged", "-v"]);
    d.wait_iterations(1);
    assert!(d.runjobs().is_empty());

    // n2 fails while 30.vm runs on it; two one-slot jobs arrive
    d.control(&[
        "node n2 down",
        "submit 31.vm Resource_List.nodes=1:ppn=1 qtime=200",
        "submit 32.vm Resource_List.nodes=1:ppn=1 qtime=201",
    ]);
    d.send(NEW);
    d.wait_iterations(2);
    assert_eq!(started(&d), pairs(&[("31.vm", "n1")]));
    assert_eq!(
        d.alterjobs()
            .iter()
            .map(|c| c.0.as_str())
            .collect::<Vec<_>>(),
        ["32.vm"],
        "n2 still has a free slot but is down: 32.vm must wait"
    );

    // the job on the dead node ends, the node stays down: still nothing
    d.control(&["complete 30.vm"]);
    d.send(TERM);
    d.wait_iterations(3);
    assert_eq!(d.runjobs().len(), 1);

    // n2 comes back
    d.control(&["node n2 up"]);
    d.send(NEW);
    d.wait("32.vm started on n2", || {
        started(&d).contains(&("32.vm".into(), "n2".into()))
    });
}

#[test]
fn server_going_away_is_retried_with_capped_backoff_and_no_busy_loop() {
    let fixture = format!("{HEAD}{}", node("n1", 2, &[]));
    let mut d = Daemon::start("serverdown", &fixture, &["--allow-unprivileged"]);
    d.wait_iterations(1);

    d.control(&["server down"]);
    d.send(NEW);
    let failed_connects = |d: &Daemon| -> Vec<f64> {
        d.calls()
            .iter()
            .filter(|c| c.text.starts_with("connect ") && c.text.contains("-> -1"))
            .map(|c| c.ms)
            .collect()
    };
    d.wait("5 failed reconnect attempts", || {
        failed_connects(&d).len() >= 5
    });
    let t = failed_connects(&d);
    // backoff 0.2s doubling to the 1.6s cap: after the loss, attempts are at
    // least 0.4, 0.8, 1.6, 1.6 s apart (a slow machine only widens the gaps)
    let gaps: Vec<f64> = t.windows(2).map(|w| w[1] - w[0]).collect();
    for (i, want) in [400.0, 800.0, 1600.0, 1600.0].iter().enumerate() {
        d.check(
            gaps[i] >= want * 0.9,
            &format!(
                "retry {} came after {:.0} ms, expected >= {want} ms: {gaps:?}",
                i + 1,
                gaps[i]
            ),
        );
    }
    assert!(d.alive());
    let log = d.log();
    assert_eq!(log.matches("lost pbs_server").count(), 1, "{log}");
    assert_eq!(
        log.matches("cannot connect to pbs_server").count(),
        1,
        "one log line per state change, not per attempt:\n{log}"
    );
    // Torque 6's pbs_connect returns the socket error negated, pbs_errno 0
    assert!(
        log.contains(
            "cannot connect to pbs_server (default server): Connection refused (pbs_connect returned -111)"
        ),
        "{log}"
    );
    assert!(!log.contains("pbs_errno 0"), "{log}");

    // the server returns with a new job: reconnect, iterate, start it
    d.control(&[
        "server up",
        "submit 40.vm Resource_List.nodes=1:ppn=2 qtime=300",
    ]);
    d.wait("40.vm started after reconnecting", || {
        started(&d).contains(&("40.vm".into(), "n1:ppn=2".into()))
    });
    let failures = failed_connects(&d).len();
    let log = d.log();
    assert!(
        log.contains(&format!(
            "connected to pbs_server (default server) after {failures} failed attempt(s)"
        )),
        "{log}"
    );
    assert!(d
        .iterations()
        .iter()
        .any(|i| i.trigger == "connect" && i.started == 1));
}

#[test]
fn connection_lost_during_runjob_reconnects_and_finishes_the_work() {
    let fixture = format!(
        "{HEAD}{}{}{}",
        node("n1", 4, &[]),
        job("41.vm", 100, &["Resource_List.nodes = 1:ppn=1"]),
        job("42.vm", 101, &["Resource_List.nodes = 1:ppn=1"]),
    );
    // the first runjob of 41.vm drops the connection
    let d = Daemon::start_full(
        "lostconn",
        &fixture,
        "",
        &["fail runjob 41.vm lost"],
        &["--allow-unprivileged"],
    );
    d.wait("both jobs started", || started(&d).len() == 2);
    let runs = d.runjobs();
    assert_eq!(runs[0], ("41.vm".into(), "n1".into(), 15031));
    assert_eq!(
        started(&d),
        pairs(&[("41.vm", "n1"), ("42.vm", "n1")]),
        "{runs:?}"
    );
    let log = d.log();
    assert!(log.contains("lost pbs_server"), "{log}");
    let connects = d
        .calls()
        .iter()
        .filter(|c| c.text.starts_with("connect ") && !c.text.contains("-> -1"))
        .count();
    assert_eq!(connects, 2, "one reconnect");
}

#[test]
fn dropped_connections_failed_calls_and_a_short_outage_are_ridden_out() {
    let fixture = format!("{HEAD}{}", node("n1", 4, &[]));
    let d = Daemon::start("outages", &fixture, &["--allow-unprivileged"]);
    d.wait_iterations(1);
    let connects = |d: &Daemon, ok: bool| {
        d.calls()
            .iter()
            .filter(|c| c.text.starts_with("connect ") && c.text.contains("-> -1") != ok)
            .count()
    };

    // the server drops the (idle) connection: lost, reconnected, served
    d.control(&[
        "disconnect",
        "submit 90.vm Resource_List.nodes=1:ppn=1 qtime=100",
    ]);
    d.send(NEW);
    d.wait("90.vm started", || started(&d).len() == 1);
    assert_eq!((connects(&d, true), connects(&d, false)), (2, 0));

    // the next 3 calls fail (the status call, then two connects)
    d.control(&[
        "server fail-calls 3",
        "submit 91.vm Resource_List.nodes=1:ppn=1 qtime=101",
    ]);
    d.send(NEW);
    d.wait("91.vm started", || started(&d).len() == 2);
    assert_eq!((connects(&d, true), connects(&d, false)), (3, 2));

    // the server is gone for one second
    d.control(&[
        "server down 1",
        "submit 92.vm Resource_List.nodes=1:ppn=1 qtime=102",
    ]);
    d.send(NEW);
    d.wait("92.vm started", || started(&d).len() == 3);
    assert_eq!(connects(&d, true), 4);
    assert_eq!(d.log().matches("lost pbs_server").count(), 3);
}

#[test]
fn unknown_job_and_busy_allocation_are_handled_per_job() {
    let fixture = format!(
        "{HEAD}{}{}{}{}",
        node("n1", 4, &[]),
        job("50.vm", 100, &["Resource_List.nodes = 1:ppn=1"]),
        job("51.vm", 101, &["Resource_List.nodes = 1:ppn=1"]),
        job("52.vm", 102, &["Resource_List.nodes = 1:ppn=1"]),
    );
    // 50.vm vanishes between status and run (15001); n1 is "busy" for 51.vm
    // once (15046); the loop must go on to 52.vm and keep its connection
    let d = Daemon::start_full(
        "perjob",
        &fixture,
        "",
        &["fail runjob 50.vm 15001", "fail runjob 51.vm 15046"],
        &["--allow-unprivileged"],
    );
    d.wait_iterations(1);
    d.wait("52.vm started", || !started(&d).is_empty());
    let runs = d.runjobs();
    assert_eq!(
        runs,
        vec![
            ("50.vm".into(), "n1".into(), 15001),
            ("51.vm".into(), "n1".into(), 15046),
            ("52.vm".into(), "n1".into(), 0),
        ]
    );
    let it = d.iterations();
    assert_eq!((it[0].started, it[0].refused), (1, 2), "{it:?}");
    let log = d.log();
    assert!(
        log.contains("pbs_runjob(50.vm, n1) refused: pbs_errno 15001"),
        "{log}"
    );
    assert!(
        log.contains("pbs_runjob(51.vm, n1) refused: pbs_errno 15046"),
        "{log}"
    );
    assert!(!log.contains("lost pbs_server"), "{log}");

    // next iteration: 51.vm starts, 50.vm is gone from the server
    d.send(NEW);
    d.wait("51.vm started", || started(&d).len() == 2);
    assert_eq!(d.runjobs()[3], ("51.vm".into(), "n1".into(), 0));
    assert_eq!(
        d.calls()
            .iter()
            .filter(|c| c.text.starts_with("connect "))
            .count(),
        1,
        "per-job errors never cost the connection"
    );
}

#[test]
fn alterjob_refusal_is_per_job() {
    let fixture = format!(
        "{HEAD}{}{}{}",
        node("n1", 1, &[]),
        job("60.vm", 100, &["Resource_List.nodes = 1:ppn=2"]),
        job("61.vm", 101, &["Resource_List.nodes = 1:ppn=2"]),
    );
    let d = Daemon::start_full(
        "alterfail",
        &fixture,
        "",
        &["fail alterjob 60.vm 15001"],
        &["--allow-unprivileged"],
    );
    d.wait("both comments tried", || d.alterjobs().len() == 2);
    let alters = d.alterjobs();
    assert_eq!((alters[0].0.as_str(), alters[0].2), ("60.vm", 15001));
    assert_eq!((alters[1].0.as_str(), alters[1].2), ("61.vm", 0));
}

#[test]
fn a_burst_of_1000_new_commands_costs_a_bounded_number_of_iterations() {
    let fixture = format!(
        "{HEAD}{}{}",
        node("n1", 2, &[]),
        job("70.vm", 100, &["Resource_List.nodes = 1:ppn=4"]),
    );
    let minetime = 0.5;
    let d = Daemon::start(
        "burst",
        &fixture,
        &[
            "--allow-unprivileged",
            "--minetime",
            "0.5",
            "--quiet",
            "0.2",
        ],
    );
    d.wait_iterations(1);
    let before = d.iterations().len();
    let t0 = Instant::now();
    for _ in 0..1000 {
        d.send(NEW);
    }
    d.wait("all 1000 commands served", || {
        d.iterations()[before..]
            .iter()
            .map(|i| i.commands)
            .sum::<u64>()
            == 1000
    });
    let elapsed = t0.elapsed().as_secs_f64();
    let its = d.iterations()[before..].to_vec();
    // command-driven iterations are at least `minetime` apart, so however the
    // burst is spread out, it costs at most elapsed/minetime + 1 of them
    let bound = (elapsed / minetime).floor() as usize + 1;
    d.check(
        !its.is_empty() && its.len() <= bound && its.iter().all(|i| i.trigger == "commands"),
        &format!(
            "{} iterations for 1000 commands in {elapsed:.2}s (bound {bound}): {its:?}",
            its.len()
        ),
    );
    // and the comment of the job that cannot fit was written once
    assert_eq!(d.alterjobs().len(), 1);
}

#[test]
fn only_privileged_source_ports_are_accepted_unless_configured() {
    let fixture = format!("{HEAD}{}", node("n1", 2, &[]));
    let d = Daemon::start("privileged", &fixture, &["-v"]);
    d.wait_iterations(1);

    // an ordinary client is refused and does not cause an iteration ...
    d.send(NEW);
    d.wait("refusal logged", || {
        d.log().contains("source port is not privileged")
    });
    // ... pbs_server's way (privileged port) is accepted
    d.send_privileged(NEW);
    d.wait_iterations(2);
    let it = d.iterations();
    assert_eq!(
        it[1].commands, 1,
        "only the privileged command counts: {it:?}"
    );
    assert!(d.log().contains("command 1 (NEW) from 127.0.0.1:"));

    // --allow-unprivileged lifts the port rule
    let e = Daemon::start("unprivileged", &fixture, &["--allow-unprivileged"]);
    e.wait_iterations(1);
    e.send(TERM);
    e.wait_iterations(2);
    assert_eq!(e.iterations()[1].commands, 1);
    assert!(!e.log().contains("scheduler port: refused"));
}

#[test]
fn polls_every_interval_without_commands() {
    let fixture = format!("{HEAD}{}", node("n1", 2, &[]));
    let d = Daemon::start("poll", &fixture, &["--allow-unprivileged", "-P", "0.3"]);
    d.wait("three poll iterations", || {
        d.iterations()
            .iter()
            .filter(|i| i.trigger == "poll")
            .count()
            >= 3
    });
    assert!(d.iterations().iter().all(|i| i.commands == 0));
}

#[test]
fn scheduling_false_on_the_server_starts_nothing() {
    let fixture = format!(
        "{HEAD}{}{}",
        node("n1", 2, &[]),
        job("80.vm", 100, &["Resource_List.nodes = 1:ppn=1"]),
    )
    .replace("scheduling = True", "scheduling = False");
    let d = Daemon::start("schedoff", &fixture, &["--allow-unprivileged"]);
    d.wait_iterations(1);
    assert!(d.iterations()[0].skipped);
    assert!(d.runjobs().is_empty() && d.alterjobs().is_empty());
    d.control(&["set server scheduling True"]);
    d.send(5); // SCH_SCHEDULE_CMD, what `qmgr -c 'set server scheduling=true'` sends
    d.wait("80.vm started", || !started(&d).is_empty());
    assert!(d.log().contains("scheduling=True again"));
}

/// A dry run starts nothing anyway: with scheduling=False it still decides
/// and logs what it would do.
#[test]
fn scheduling_false_on_the_server_still_lets_a_dry_run_decide() {
    let fixture = format!(
        "{HEAD}{}{}",
        node("n1", 2, &[]),
        job("81.vm", 100, &["Resource_List.nodes = 1:ppn=1"]),
    )
    .replace("scheduling = True", "scheduling = False");
    let d = Daemon::start("schedoffdry", &fixture, &["--dry-run"]);
    d.wait_iterations(1);
    assert!(!d.iterations()[0].skipped, "{}", d.log());
    assert!(
        d.log().contains("dry run: would start job 81.vm on n1"),
        "{}",
        d.log()
    );
    assert!(d
        .log()
        .contains("scheduling=False: dry run, deciding anyway"));
    assert!(d.runjobs().is_empty() && d.alterjobs().is_empty());
}

#[test]
fn sighup_rereads_maui_cfg_keeps_it_when_broken_and_sigterm_exits_cleanly() {
    let fixture = format!("{HEAD}{}", node("n1", 2, &[]));
    let mut d = Daemon::start_full(
        "sighup",
        &fixture,
        "RMCFG[base] TYPE=PBS HOST=alpha\nRMPOLLINTERVAL 00:01:00\n",
        &[],
        &["--allow-unprivileged"],
    );
    d.wait_iterations(1);
    assert!(d
        .calls()
        .iter()
        .any(|c| c.text == "connect server=alpha -> 1"));

    fs::write(
        d.dir.join("maui.cfg"),
        "SERVERHOST beta # as in chalmers-hermod.cfg\nRMCFG[base] TYPE=PBS\n",
    )
    .unwrap();
    d.signal(libc::SIGHUP);
    d.wait("reconnected to beta", || {
        d.calls()
            .iter()
            .any(|c| c.text.starts_with("connect server=beta -> "))
    });
    d.wait_iterations(2);
    assert_eq!(d.iterations()[1].trigger, "reconfigure");
    assert!(d.log().contains("pbs_server changed from alpha to beta"));
    // the library reread the same file for the scheduling policy
    assert!(d.log().contains("engine: reconfigured from"), "{}", d.log());
    assert!(d
        .log()
        .contains("reconfigure: scheduling policy reread from"));

    fs::write(d.dir.join("maui.cfg"), "RMPOLLINTERVAL soon\n").unwrap();
    d.signal(libc::SIGHUP);
    d.wait("broken file refused", || {
        d.log().contains("keeping the current settings")
    });
    assert!(d.log().contains("maui.cfg:1: RMPOLLINTERVAL"));
    // ... and so does the library: the running policy stays
    d.wait("the library refused it too", || {
        d.log().contains("engine: reconfigure refused")
    });
    assert!(d.log().contains("the previous one stays in force"));
    d.send(NEW);
    d.wait_iterations(3);

    d.signal(libc::SIGTERM);
    let ok = wait_until(WAIT, || !d.alive());
    d.check(ok, "no exit after SIGTERM");
    let status = d.child.wait().unwrap();
    d.check(status.success(), &format!("exit status {status}"));
    assert!(d.log().contains("exiting on SIGTERM"));
    assert!(d
        .calls()
        .last()
        .is_some_and(|c| c.text.starts_with("disconnect ")));
}

/// `--once` against the site configurations in ../shared/configs: the
/// pbs_server named by RMCFG HOST=/PORT= or SERVERHOST is the one connected.
#[test]
fn site_configs_name_the_pbs_server() {
    let b = built();
    let dir = build_dir().join(format!("siteconfigs-{}", std::process::id()));
    fs::create_dir_all(&dir).unwrap();
    fs::write(
        dir.join("fixture.txt"),
        format!("{HEAD}{}", node("n1", 1, &[])),
    )
    .unwrap();
    let configs = root().join("../shared/configs");
    for (cfg, server) in [
        ("chalmers-hermod.cfg", "torquehost"),
        ("donders-dccn-moab.cfg", "pl-torque.dccn.nl:15001"),
        ("unsw-fyrhead.cfg", "FyrHead.ad.unsw.edu.au"),
        ("arctur-puppet.cfg", "hpc-master.example.com"),
        ("it4i-salomon.cfg", "(null)"),
    ] {
        let log = dir.join(format!("{cfg}.calls"));
        let _ = fs::remove_file(&log);
        let out = Command::new(&b.daemon)
            .args(["--once", "--dry-run", "-L"])
            .arg(&b.fake)
            .arg("-c")
            .arg(configs.join(cfg))
            .arg("--state-dir")
            .arg(dir.join(format!("{cfg}.state")))
            .env("FAKE_IFL_FIXTURE", dir.join("fixture.txt"))
            .env("FAKE_IFL_LOG", &log)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{cfg}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let calls = fs::read_to_string(&log).unwrap();
        assert!(
            calls.contains(&format!("connect server={server} -> 1")),
            "{cfg}:\n{calls}"
        );
    }
    let _ = fs::remove_dir_all(&dir);
}

#[test]
fn a_library_without_the_ifl_is_refused_with_the_missing_symbol_named() {
    let b = built();
    let dir = build_dir().join(format!("badlib-{}", std::process::id()));
    fs::create_dir_all(&dir).unwrap();
    let src = dir.join("partial.c");
    fs::write(&src, "int pbs_connect(char *s) { (void)s; return 1; }\n").unwrap();
    let lib = dir.join("libpartial.so");
    cc(
        &[
            "-fPIC",
            "-shared",
            "-o",
            lib.to_str().unwrap(),
            src.to_str().unwrap(),
        ],
        "a partial IFL library",
    );
    let run = |l: &Path| {
        let out = Command::new(&b.daemon)
            .args(["--once", "-c", "/dev/null", "-L"])
            .arg(l)
            .output()
            .unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let (code, err) = run(&lib);
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("missing symbol pbs_disconnect"), "{err}");
    let (code, err) = run(&dir.join("no-such-libtorque.so.2"));
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("cannot load IFL library"), "{err}");
    let _ = fs::remove_dir_all(&dir);
}

// ---- policy scenarios: the engine decides ------------------------------------

/// Seconds since the epoch now (fixture times are relative to it).
fn epoch_now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64
}

/// `t` as the daemon writes an estimated start with TZ=UTC:
/// "Fri Jul 15 12:53 UTC" (civil date from days since 1970-01-01).
fn comment_time(t: i64) -> String {
    let days = t.div_euclid(86_400);
    let secs = t.rem_euclid(86_400);
    let wday = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"][days.rem_euclid(7) as usize];
    // days -> (year, month, day), proleptic Gregorian
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let names = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    format!(
        "{wday} {} {day} {:02}:{:02} UTC",
        names[(month - 1) as usize],
        secs / 3600,
        secs % 3600 / 60
    )
}

#[test]
fn comment_time_matches_the_daemons_format() {
    // 2022-07-15 12:53:20 UTC was a Friday; 1970-01-01 a Thursday
    assert_eq!(comment_time(1_657_889_600), "Fri Jul 15 12:53 UTC");
    assert_eq!(comment_time(0), "Thu Jan 1 00:00 UTC");
    assert_eq!(comment_time(951_782_400), "Tue Feb 29 00:00 UTC");
}

/// A queued job of `user`, submitted at `qtime`.
fn job_by(id: &str, user: &str, qtime: i64, attrs: &[&str]) -> String {
    job(id, 0, attrs)
        .replace("euser = alice", &format!("euser = {user}"))
        .replace("qtime = 0", &format!("qtime = {qtime}"))
}

/// A job running on `exec_host` since `start`.
fn running(id: &str, start: i64, exec_host: &str, attrs: &[&str]) -> String {
    let mut a = vec![
        format!("exec_host = {exec_host}"),
        format!("start_time = {start}"),
    ];
    a.extend(attrs.iter().map(|s| s.to_string()));
    let a: Vec<&str> = a.iter().map(String::as_str).collect();
    job(id, (start - 60) as u64, &a).replace("job_state = Q", "job_state = R")
}

#[test]
fn priority_order_comes_from_usercfg_priority_or_queue_time() {
    let now = epoch_now();
    let one = [
        "Resource_List.nodes = 1:ppn=1",
        "Resource_List.walltime = 01:00:00",
    ];
    // room for two of the three: the order of pbs_runjob calls is the
    // priority order, the third waits
    let fixture = format!(
        "{HEAD}{}{}{}{}",
        node("n1", 2, &[]),
        job_by("31.vm", "alice", now - 3000, &one),
        job_by("32.vm", "bob", now - 600, &one),
        job_by("33.vm", "carol", now - 1800, &one),
    );

    // Maui's default weights: queue time (minutes) alone decides: 31 (50
    // minutes), 33 (30), then 32 (10)
    let d = Daemon::start("prio-qtime", &fixture, &["--allow-unprivileged"]);
    d.wait_iterations(1);
    assert_eq!(started(&d), pairs(&[("31.vm", "n1"), ("33.vm", "n1")]));
    let c = d.alterjobs();
    assert_eq!(c.len(), 1, "{c:?}");
    assert_eq!(c[0].0, "32.vm");
    // the slots were free before higher-priority jobs took them
    assert!(c[0].1.starts_with("mauisched: Priority"), "{c:?}");
    drop(d);

    // USERCFG[bob] PRIORITY=100 (weighted by USERWEIGHT, CREDWEIGHT 1)
    // outweighs 40 minutes of queue time: 32 (110) first, then 31 (50)
    let d = Daemon::start_full(
        "prio-usercfg",
        &fixture,
        "USERWEIGHT 1\nUSERCFG[bob] PRIORITY=100\n",
        &[],
        &["--allow-unprivileged"],
    );
    d.wait_iterations(1);
    assert_eq!(started(&d), pairs(&[("32.vm", "n1"), ("31.vm", "n1")]));
    let c = d.alterjobs();
    assert_eq!(c.len(), 1, "{c:?}");
    assert_eq!(c[0].0, "33.vm");
}

#[test]
fn backfill_runs_a_short_job_beside_a_reserved_wide_one() {
    let now = epoch_now();
    // n1 is busy with 40.vm for another 50 minutes; n2 is free
    let start40 = now - 600;
    let end40 = start40 + 3600;
    let fixture = format!(
        "{HEAD}{}{}{}{}{}{}",
        node("n1", 2, &[]),
        node("n2", 2, &[]),
        running(
            "40.vm",
            start40,
            "n1/0-1",
            &[
                "Resource_List.nodes = 1:ppn=2",
                "Resource_List.walltime = 01:00:00"
            ]
        ),
        // the wide job, first in priority: it needs both nodes
        job_by(
            "41.vm",
            "alice",
            now - 7200,
            &[
                "Resource_List.nodes = 2:ppn=2",
                "Resource_List.walltime = 01:00:00"
            ]
        ),
        // a long narrow job would still be running when 41 may start
        job_by(
            "42.vm",
            "bob",
            now - 3600,
            &[
                "Resource_List.nodes = 1:ppn=1",
                "Resource_List.walltime = 02:00:00"
            ]
        ),
        // a short narrow one ends before 40.vm does
        job_by(
            "43.vm",
            "carol",
            now - 1800,
            &[
                "Resource_List.nodes = 1:ppn=1",
                "Resource_List.walltime = 00:30:00"
            ]
        ),
    );
    let d = Daemon::start("backfill", &fixture, &["--allow-unprivileged", "-v"]);
    d.wait_iterations(1);

    assert_eq!(started(&d), pairs(&[("43.vm", "n2")]));
    assert!(d.log().contains("started job 43.vm on n2 (backfill)"));
    // 41 is reserved both nodes from 40.vm's end: its estimated start
    let c = d.alterjobs();
    let of = |c: &[(String, String, i32)], id: &str| -> Vec<String> {
        c.iter()
            .filter(|x| x.0 == id)
            .map(|x| x.1.clone())
            .collect()
    };
    assert_eq!(
        of(&c, "41.vm"),
        [format!(
            "mauisched: Resources; estimated start {}",
            comment_time(end40)
        )],
        "{c:?}"
    );
    // 42 is kept off n2 (free now) by 41's reservation, and says so;
    // showstart's estimate is 41's end
    assert_eq!(
        of(&c, "42.vm"),
        [format!(
            "mauisched: Priority: free nodes reserved for job 41.vm; estimated start {}",
            comment_time(end40 + 3600)
        )],
        "{c:?}"
    );
    // Between two iterations the views show what pbs_server did: 43 was
    // started (not "Starting"), and checkjob says when and where.
    let (ok, q) = mauictl(&d, &["showq"]);
    assert!(ok, "{q}");
    let row = q
        .lines()
        .find(|l| l.starts_with("43.vm"))
        .unwrap_or_default();
    assert!(row.contains("Running"), "{q}");
    assert!(!q.contains("Starting"), "{q}");
    let (ok, cj) = mauictl(&d, &["checkjob", "42.vm"]);
    assert!(ok, "{cj}");
    assert!(
        cj.contains("idle procs are reserved for job 41.vm from "),
        "{cj}"
    );
    let (ok, cj) = mauictl(&d, &["checkjob", "43.vm"]);
    assert!(ok, "{cj}");
    assert!(cj.contains("State: Running"), "{cj}");
    assert!(cj.contains("(backfill) on n2:1"), "{cj}");
    let (ok, out) = mauictl(&d, &["sethold", "43.vm"]);
    assert!(!ok && out.contains("was started at "), "{out}");

    // The policy lab on Torque: `snapshot` gives what that iteration was
    // given, on which `plan` decides offline as the daemon did; schedctl
    // -n writes the node table; whatif live compares a candidate.
    snapshot_plans_offline_as_the_daemon_did(&d);

    // nothing changed: no comment is rewritten
    d.send(NEW);
    d.wait_iterations(2);
    let it = d.iterations();
    assert_eq!((it[1].started, it[1].comments), (0, 0), "{it:?}");

    // 40.vm's limit is raised by 30 minutes: 41's estimate moves, and
    // 42's behind it; only those two comments are rewritten
    d.control(&["set 40.vm Resource_List.walltime 01:30:00"]);
    d.send(NEW);
    d.wait_iterations(3);
    let c = d.alterjobs();
    assert_eq!(c.len(), 4, "{c:?}");
    assert_eq!(
        c[2].1,
        format!(
            "mauisched: Resources; estimated start {}",
            comment_time(end40 + 1800)
        )
    );
    assert_eq!(
        c[3].1,
        format!(
            "mauisched: Priority: free nodes reserved for job 41.vm; estimated start {}",
            comment_time(end40 + 1800 + 3600)
        )
    );

    // the blocker and the backfilled job end: the wide job runs on both
    // nodes, the long narrow one still waits
    d.control(&["complete 40.vm", "complete 43.vm"]);
    d.send(TERM);
    d.wait("41.vm started", || started(&d).len() == 2);
    assert_eq!(
        started(&d)[1],
        ("41.vm".to_string(), "n1:ppn=2+n2:ppn=2".to_string())
    );
    assert!(!started(&d).iter().any(|s| s.0 == "42.vm"));
}

#[test]
fn a_standing_reservation_keeps_a_class_off_its_nodes() {
    let now = epoch_now();
    let one = [
        "Resource_List.nodes = 1:ppn=1",
        "Resource_List.walltime = 01:00:00",
    ];
    let fixture = format!(
        "{HEAD}queue special\n    enabled = True\n    started = True\n{}{}{}{}{}",
        node("n1", 4, &[]),
        node("n2", 2, &[]),
        job_by("50.vm", "alice", now - 3000, &one),
        job_by("51.vm", "alice", now - 2000, &one),
        job_by("52.vm", "alice", now - 1000, &one),
    );
    // n1 is reserved, for good, for the jobs of queue `special`
    let cfg = "SRCFG[special] HOSTLIST=n1 PERIOD=INFINITY CLASSLIST=special\n";
    let mut d = Daemon::start_full("standing", &fixture, cfg, &[], &["--allow-unprivileged"]);
    d.wait_iterations(1);
    // the batch jobs get n2 only
    assert_eq!(started(&d), pairs(&[("50.vm", "n2"), ("51.vm", "n2")]));

    // once n2 is full, n1's free processors are the reservation's: the
    // comment names it
    d.send(NEW);
    d.wait_iterations(2);
    let c = d.alterjobs();
    let last = &c.last().unwrap().1;
    assert!(last.starts_with("mauisched: Reservation special"), "{c:?}");

    // a job of the class the reservation admits runs on n1
    d.control(&[&format!(
        "submit 53.vm queue=special Resource_List.nodes=1:ppn=2 Resource_List.walltime=01:00:00 qtime={}",
        now - 10
    )]);
    d.send(NEW);
    d.wait("53.vm started", || started(&d).len() == 3);
    assert_eq!(
        started(&d)[2],
        ("53.vm".to_string(), "n1:ppn=2".to_string())
    );
    assert!(!started(&d).iter().any(|s| s.0 == "52.vm"));

    // SIGHUP without the reservation: the library rereads maui.cfg and
    // 52.vm gets n1's remaining processors
    fs::write(d.dir.join("maui.cfg"), "").unwrap();
    d.signal(libc::SIGHUP);
    d.wait("52.vm started", || started(&d).len() == 4);
    assert_eq!(started(&d)[3], ("52.vm".to_string(), "n1".to_string()));
    assert!(d.log().contains("engine: reconfigured from"));
    assert!(d.alive());
}

/// A daemon started on `fixture` with operator actions (JSON objects)
/// waiting in its checkpoint, as sethold, releasehold and canceljob leave
/// them for the next plan; after its first iteration.
fn with_pending_actions(name: &str, fixture: &str, actions: &str) -> Daemon {
    let checkpoint =
        format!(r#"{{"version":1,"saved_at":0,"state":{{"pending_actions":[{actions}]}}}}"#);
    let d = Daemon::start_with_state(
        name,
        fixture,
        "",
        &[],
        &["--allow-unprivileged"],
        Some(&checkpoint),
        &[],
    );
    d.wait_iterations(1);
    d
}

/// The pbs_holdjob, pbs_rlsjob and pbs_deljob calls the double recorded.
fn action_calls(d: &Daemon) -> Vec<String> {
    (d.calls().into_iter())
        .map(|c| c.text)
        .filter(|t| {
            ["holdjob ", "rlsjob ", "deljob "]
                .iter()
                .any(|p| t.starts_with(p))
        })
        .collect()
}

#[test]
fn operator_holds_and_releases_are_applied_through_pbs_holdjob_and_pbs_rlsjob() {
    let now = epoch_now();
    let one = [
        "Resource_List.nodes = 1:ppn=1",
        "Resource_List.walltime = 01:00:00",
    ];
    let fixture = format!(
        "{HEAD}{}{}{}{}",
        node("n1", 4, &[]),
        job_by("60.vm", "alice", now - 600, &one),
        job_by("61.vm", "bob", now - 500, &one)
            .replace("job_state = Q", "job_state = H\n    Hold_Types = s"),
        running("62.vm", now - 30, "n1/3", &one),
    );
    // sethold/releasehold leave their requests in the engine's state for
    // the next plan; a checkpoint holding four of them stands in for those
    // commands here. They are checked against the jobs' states when
    // applied: 99.vm is long gone, and 62.vm started after the hold was
    // asked, so neither reaches pbs_server (which would hold a running job).
    let d = with_pending_actions(
        "actions",
        &fixture,
        r#"{"kind":"hold","job":"99.vm","by":"root"},
        {"kind":"hold","job":"60.vm","by":"root"},
        {"kind":"hold","job":"62.vm","by":"root"},
        {"kind":"release","job":"61.vm","by":"operator1"}"#,
    );
    assert_eq!(
        action_calls(&d),
        [
            "holdjob 1 60.vm s -> 0 Hold_Types=s",
            "rlsjob 1 61.vm s -> 0 Hold_Types=n"
        ]
    );
    // The plan that carries the actions already counts them: 60.vm, held
    // now, is not started; 61.vm, released now, starts in the same plan
    // (after its pbs_rlsjob).
    assert_eq!(
        d.runjobs(),
        vec![("61.vm".to_string(), "n1".to_string(), 0)]
    );
    let log = d.log();
    assert!(
        log.contains("held job 60.vm (system hold), asked by root"),
        "{log}"
    );
    assert!(log.contains("released job 61.vm (system hold), asked by operator1"));
    // the gone and the started job's holds are dropped, saying why
    assert!(
        log.contains("sethold of job 99.vm by root not applied: the job is no longer in the resource manager's queue"),
        "{log}"
    );
    assert!(
        log.contains(&format!(
            "sethold of job 62.vm by root not applied: the job started at {} before it was applied",
            log_time(now - 30)
        )),
        "{log}"
    );
    assert!(
        log.contains(" held=1 released=1 cancelled=0 action_refused=0 "),
        "{log}"
    );

    // next iteration: the released job runs, the held one says why it waits
    d.send(NEW);
    d.wait("61.vm started", || !started(&d).is_empty());
    assert_eq!(started(&d), pairs(&[("61.vm", "n1")]));
    d.wait("60.vm's comment", || {
        d.alterjobs()
            .iter()
            .any(|c| c.0 == "60.vm" && c.1.starts_with("mauisched: Hold"))
    });
    // actions are handed over once
    assert_eq!(action_calls(&d).len(), 2);
}

#[test]
fn canceljob_and_user_holds_go_through_pbs_deljob_and_hold_type_u() {
    let now = epoch_now();
    let one = [
        "Resource_List.nodes = 1:ppn=1",
        "Resource_List.walltime = 01:00:00",
    ];
    let fixture = format!(
        "{HEAD}{}{}{}{}{}{}",
        node("n1", 2, &[]),
        job_by("70.vm", "alice", now - 600, &one),
        job_by("71.vm", "bob", now - 500, &one),
        job_by("72.vm", "carol", now - 400, &one)
            .replace("job_state = Q", "job_state = H\n    Hold_Types = u"),
        running("73.vm", now - 30, "n1/0", &one),
        job_by("74.vm", "dave", now - 300, &one),
    );
    // canceljob of a queued (70) and a running job (73), sethold -u (71)
    // and releasehold -u (72), left for the next plan as the commands
    // leave them; 99.vm is gone, so its cancel never reaches pbs_server.
    let d = with_pending_actions(
        "cancel",
        &fixture,
        r#"{"kind":"cancel","job":"70.vm","by":"root"},
        {"kind":"userhold","job":"71.vm","by":"operator1"},
        {"kind":"userrelease","job":"72.vm","by":"operator1"},
        {"kind":"cancel","job":"73.vm","by":"alice"},
        {"kind":"cancel","job":"99.vm","by":"root"}"#,
    );
    assert_eq!(
        action_calls(&d),
        [
            "deljob 1 70.vm -> 0 was=Q",
            "holdjob 1 71.vm u -> 0 Hold_Types=u",
            "rlsjob 1 72.vm u -> 0 Hold_Types=n",
            "deljob 1 73.vm -> 0 was=R",
        ]
    );
    // The same plan does not start the cancelled or the newly held job:
    // the one free slot goes to 72.vm, released now (74.vm comes after).
    assert_eq!(
        d.runjobs(),
        vec![("72.vm".to_string(), "n1".to_string(), 0)]
    );
    let log = d.log();
    assert!(log.contains("cancelled job 70.vm, asked by root"), "{log}");
    assert!(log.contains("cancelled job 73.vm, asked by alice"), "{log}");
    assert!(
        log.contains("held job 71.vm (user hold), asked by operator1"),
        "{log}"
    );
    assert!(
        log.contains("released job 72.vm (user hold), asked by operator1"),
        "{log}"
    );
    assert!(
        log.contains("canceljob of job 99.vm by root not applied: the job is no longer in the resource manager's queue"),
        "{log}"
    );
    assert!(
        log.contains(" held=1 released=1 cancelled=2 action_refused=0 "),
        "{log}"
    );

    // Next iteration: the cancelled jobs are completed in pbs_server and
    // 73.vm's slot is free again, so 74.vm starts; 71.vm stays held.
    d.send(NEW);
    d.wait("74.vm started", || {
        started(&d).iter().any(|(j, _)| j == "74.vm")
    });
    assert!(started(&d)
        .iter()
        .all(|(j, _)| j != "70.vm" && j != "71.vm"));
    // Actions are handed over once.
    assert_eq!(action_calls(&d).len(), 4);
}

#[test]
fn a_library_of_another_abi_major_version_is_refused() {
    let b = built();
    let dir = build_dir().join(format!("abimajor-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    // a stand-in libmauisched.so.1 exporting every function of the header,
    // reporting ABI 2.0
    let header = fs::read_to_string(root().join("include/mauisched.h")).unwrap();
    let mut src = String::from("unsigned mauisched_abi_version(void) { return 2u << 16; }\n");
    for line in header.lines() {
        let t = line.trim_start();
        if t.starts_with('*')
            || t.starts_with('/')
            || t.starts_with('#')
            || t.starts_with("typedef")
        {
            continue;
        }
        let Some(paren) = t.find('(') else { continue };
        let name = t[..paren].rsplit([' ', '*']).next().unwrap_or("");
        if name.starts_with("mauisched_") && name != "mauisched_abi_version" {
            src.push_str(&format!("int {name}(void) {{ return 7090; }}\n"));
        }
    }
    fs::write(dir.join("stub.c"), &src).unwrap();
    cc(
        &[
            "-fPIC",
            "-shared",
            "-Wl,-soname,libmauisched.so.1",
            "-o",
            dir.join("libmauisched.so.1").to_str().unwrap(),
            dir.join("stub.c").to_str().unwrap(),
        ],
        "a libmauisched of ABI 2.0",
    );
    let out = Command::new(&b.daemon)
        .args(["--once", "-c", "/dev/null", "-L"])
        .arg(&b.fake)
        .arg("--state-dir")
        .arg(dir.join("state"))
        .env("LD_LIBRARY_PATH", &dir)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("libmauisched has ABI version 2.0, this daemon was built for 1."),
        "{err}"
    );
    assert!(!dir.join("state").exists(), "nothing was created");
    let _ = fs::remove_dir_all(&dir);
}

#[test]
fn a_maui_cfg_the_engine_refuses_stops_the_start() {
    let b = built();
    let dir = build_dir().join(format!("badcfg-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    // the daemon's own reader has nothing to say about this line; the
    // library's has
    fs::write(dir.join("maui.cfg"), "RESERVATIONDEPTH lots\n").unwrap();
    fs::write(
        dir.join("fixture.txt"),
        format!("{HEAD}{}", node("n1", 1, &[])),
    )
    .unwrap();
    let out = Command::new(&b.daemon)
        .args(["--once", "-L"])
        .arg(&b.fake)
        .arg("-c")
        .arg(dir.join("maui.cfg"))
        .arg("--state-dir")
        .arg(dir.join("state"))
        .env("FAKE_IFL_FIXTURE", dir.join("fixture.txt"))
        .env("FAKE_IFL_LOG", dir.join("calls.log"))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("cannot start the mauisched engine (MAUISCHED_CONFIG_ERROR)"),
        "{err}"
    );
    assert!(err.contains("RESERVATIONDEPTH"), "{err}");
    assert!(
        !dir.join("calls.log").exists(),
        "the server was never contacted"
    );
    let _ = fs::remove_dir_all(&dir);
}

/// A panic inside the library (debug builds panic in `mauisched_run` on
/// request) is caught at its boundary: the iteration applies nothing, the
/// poisoned handle is dropped and a new one is made from the state
/// directory for the next iteration; the daemon itself carries on.
#[test]
fn a_panic_inside_the_engine_costs_the_iteration_not_the_daemon() {
    let fixture = format!(
        "{HEAD}{}{}",
        node("n1", 2, &[]),
        job("95.vm", 100, &["Resource_List.nodes = 1:ppn=1"]),
    );
    let mut d = Daemon::start_with_state(
        "panic",
        &fixture,
        "",
        &[],
        &["--allow-unprivileged"],
        None,
        &[("MAUISCHED_TEST_PANIC", "mauisched_run")],
    );
    if !cfg!(debug_assertions) {
        // a release library has no such hook: it just schedules
        d.wait("95.vm started", || !started(&d).is_empty());
        return;
    }
    let failures = |d: &Daemon| d.log().matches("decide failed").count();
    d.wait("a failed iteration", || failures(&d) >= 1);
    d.send(NEW);
    d.wait("a second failed iteration", || failures(&d) >= 2);
    let log = d.log();
    assert!(
        log.contains("the mauisched engine failed inside (MAUISCHED_PANIC)"),
        "{log}"
    );
    // the handle was made again from the state directory before the second
    let created = format!("engine: mauisched {} (ABI", env!("CARGO_PKG_VERSION"));
    assert!(log.matches(&created).count() >= 2, "{log}");
    assert!(d.runjobs().is_empty() && d.alterjobs().is_empty());
    assert!(d.alive());
}

// ---- generic resources (GPUs, tapes, licences) --------------------------------

/// (job, exec_gpus) of every successful pbs_runjob that was given GPUs.
fn exec_gpus(d: &Daemon) -> Vec<(String, String)> {
    d.calls()
        .iter()
        .filter(|c| c.text.starts_with("runjob ") && c.text.contains(" -> 0 "))
        .filter_map(|c| {
            let w: Vec<&str> = c.text.split(' ').collect();
            let eg = field(&c.text, "exec_gpus")?;
            Some((w[2].to_string(), eg.to_string()))
        })
        .collect()
}

#[test]
fn malformed_generic_resource_requests_name_the_job_and_the_field() {
    // three requests the daemon cannot describe, each for its own reason,
    // beside a plain job that must still run; nothing else of the bad jobs
    // is lost (they keep their place and get their reason as a comment)
    let fixture = format!(
        "{HEAD}{}{}{}{}{}",
        node("g1", 4, &["gpus = 2"]),
        job(
            "70.vm",
            100,
            &[
                "Resource_List.nodes = 1:ppn=1",
                "Resource_List.gres = tape:0"
            ]
        ),
        job(
            "71.vm",
            101,
            &["Resource_List.nodes = 1:ppn=1", "x = QOS:hi;GRES:tape@many"]
        ),
        job(
            "72.vm",
            102,
            &["Resource_List.nodes = 1:ppn=1:gpus=1+1:ppn=1"]
        ),
        job("73.vm", 103, &["Resource_List.nodes = 1:ppn=1"]),
    );
    let d = Daemon::start("gresbad", &fixture, &["--allow-unprivileged"]);
    d.wait("three comments", || d.alterjobs().len() == 3);
    assert_eq!(started(&d), pairs(&[("73.vm", "g1")]));
    let comments = d.alterjobs();
    let want = [
        (
            "70.vm",
            "mauisched: cannot read the request: Resource_List.gres: \"tape:0\": the count \
             must be a whole number from 1 to 4294967295",
        ),
        (
            "71.vm",
            "mauisched: cannot read the request: x: \"tape@many\": the count after '@' must \
             be a whole number from 1 to 4294967295",
        ),
        (
            "72.vm",
            "mauisched: cannot read the request: Resource_List.nodes: the parts ask for \
             different gpus per node (1 and 0); mauisched places a job with one gpus count \
             per node (or per processor), so this request cannot be described",
        ),
    ];
    for (id, text) in want {
        assert!(
            comments
                .iter()
                .any(|c| c.0 == id && c.1 == text && c.2 == 0),
            "{id}: {comments:?}"
        );
    }
    // the log names each job with what is wrong, once
    let log = d.log();
    for id in ["70.vm", "71.vm", "72.vm"] {
        assert_eq!(
            log.matches(&format!("job {id}: cannot read the request: "))
                .count(),
            1,
            "{log}"
        );
    }
    d.send(NEW);
    d.wait_iterations(2);
    let log = d.log();
    assert_eq!(
        log.matches("job 70.vm: cannot read the request: ").count(),
        1,
        "an unchanged reason is not logged again: {log}"
    );
}

#[test]
fn four_gpus_run_four_one_gpu_jobs_and_the_fifth_waits() {
    let mut fixture = format!("{HEAD}{}", node("g1", 8, &["gpus = 4"]));
    for k in 0..5 {
        fixture += &job(
            &format!("8{k}.vm"),
            100 + k,
            &["Resource_List.nodes = 1:ppn=1:gpus=1"],
        );
    }
    let d = Daemon::start("gpus4", &fixture, &["--allow-unprivileged", "-v"]);
    d.wait_iterations(1);
    // the location asks pbs_server for the GPU (it gives none otherwise);
    // eight processors are free, the GPUs are what stops the fifth job
    assert_eq!(
        d.runjobs(),
        (0..4)
            .map(|k| (format!("8{k}.vm"), "g1:gpus=1".to_string(), 0))
            .collect::<Vec<_>>()
    );
    assert_eq!(
        exec_gpus(&d),
        (0..4)
            .map(|k| (format!("8{k}.vm"), format!("g1-gpu/{k}")))
            .collect::<Vec<_>>()
    );
    let comments = d.alterjobs();
    assert_eq!(comments.len(), 1, "{comments:?}");
    assert_eq!(comments[0].0, "84.vm");
    assert!(
        comments[0].1.starts_with("mauisched: ") && comments[0].1.contains("estimated start"),
        "{comments:?}"
    );

    // the running jobs hold their GPUs in the next iteration too: nothing
    // starts; once one ends, the fifth gets its GPU
    d.send(NEW);
    d.wait_iterations(2);
    assert_eq!(d.runjobs().len(), 4);
    d.control(&["complete 82.vm"]);
    d.send(TERM);
    d.wait("84.vm started", || {
        started(&d).contains(&("84.vm".into(), "g1:gpus=1".into()))
    });
    assert_eq!(exec_gpus(&d)[4], ("84.vm".into(), "g1-gpu/2".into()));
    assert!(d.runjobs().iter().all(|r| r.2 == 0), "{:?}", d.runjobs());
}

#[test]
fn gpus_per_node_and_per_task_and_gpus_held_by_running_jobs() {
    // g1 has 2 of its 4 GPUs taken by a running job; g2 has 8 free
    let fixture = format!(
        "{HEAD}{}{}{}{}{}{}",
        node("g1", 8, &["gpus = 4"]),
        node("g2", 8, &["gpus = 8"]),
        running(
            "90.vm",
            epoch_now() - 60,
            "g1/0",
            &[
                "Resource_List.nodes = 1:ppn=1:gpus=2",
                "Resource_List.walltime = 01:00:00",
                "exec_gpus = g1-gpu/0+g1-gpu/1",
            ]
        ),
        // four GPUs on one node: only g2 has them free
        job("91.vm", 100, &["Resource_List.nodes = 1:ppn=2:gpus=4"]),
        // 2+1 processors with 2+1 GPUs: one GPU per processor, on two nodes
        job(
            "92.vm",
            101,
            &["Resource_List.nodes = 1:ppn=2:gpus=2+1:ppn=1:gpus=1"]
        ),
        // more than any node has free
        job("93.vm", 102, &["Resource_List.nodes = 1:ppn=1:gpus=5"]),
    );
    // EXACTNODE: the two parts of 92.vm on two nodes, as Torque reads them
    let d = Daemon::start_full(
        "gpumix",
        &fixture,
        "JOBNODEMATCHPOLICY EXACTNODE\n",
        &[],
        &["--allow-unprivileged", "-v"],
    );
    d.wait_iterations(1);
    let runs = started(&d);
    assert_eq!(runs.len(), 2, "{runs:?}");
    assert_eq!(runs[0], ("91.vm".into(), "g2:ppn=2:gpus=4".into()));
    assert_eq!(
        exec_gpus(&d)[0],
        ("91.vm".into(), "g2-gpu/0+g2-gpu/1+g2-gpu/2+g2-gpu/3".into())
    );
    // 92.vm: each host of its location asks for as many GPUs as it gets
    // processors, three of each on two hosts
    assert_eq!(runs[1].0, "92.vm");
    let parts: Vec<(String, u32, u32)> = runs[1]
        .1
        .split('+')
        .map(|p| {
            let mut w = p.split(':');
            let host = w.next().unwrap().to_string();
            let (mut ppn, mut gpus) = (1, 0);
            for o in w {
                if let Some(v) = o.strip_prefix("ppn=") {
                    ppn = v.parse().unwrap();
                } else if let Some(v) = o.strip_prefix("gpus=") {
                    gpus = v.parse().unwrap();
                }
            }
            (host, ppn, gpus)
        })
        .collect();
    assert_eq!(parts.len(), 2, "{runs:?}");
    assert!(parts.iter().all(|p| p.1 == p.2), "{runs:?}");
    assert_eq!(parts.iter().map(|p| p.1).sum::<u32>(), 3, "{runs:?}");
    assert_eq!(
        d.alterjobs()
            .iter()
            .map(|c| c.0.as_str())
            .collect::<Vec<_>>(),
        ["93.vm"]
    );
}

#[test]
fn a_gpu_job_on_a_cluster_without_gpus_is_told_why_it_waits() {
    let fixture = format!(
        "{HEAD}{}{}{}",
        node("n1", 8, &[]),
        job("95.vm", 100, &["Resource_List.nodes = 1:ppn=1:gpus=1"]),
        job("96.vm", 101, &["Resource_List.nodes = 1:ppn=1"]),
    );
    let d = Daemon::start("nogpus", &fixture, &["--allow-unprivileged"]);
    d.wait_iterations(1);
    assert_eq!(started(&d), pairs(&[("96.vm", "n1")]));
    let comments = d.alterjobs();
    assert_eq!(comments.len(), 1, "{comments:?}");
    assert_eq!(comments[0].0, "95.vm");
    // the engine's reason: it can never run here, and why
    assert!(
        comments[0].1.starts_with("mauisched: NoFit ") && comments[0].1.contains("gpu"),
        "{comments:?}"
    );
}

#[test]
fn tapes_from_the_moms_status_are_shared_by_gres_requests() {
    // the mom's static resources (mom_priv/config "tape 2"), asked for
    // per task with -l gres= and with Maui's -W x=GRES:
    let fixture = format!(
        "{HEAD}{}{}{}{}",
        node(
            "t1",
            8,
            &["status = opsys=linux,gres=tape:2+ostype:linux,physmem=8388608kb,ncpus=8"]
        ),
        job(
            "97.vm",
            100,
            &["Resource_List.nodes = 1:ppn=1", "Resource_List.gres = tape"]
        ),
        job(
            "98.vm",
            101,
            &["Resource_List.nodes = 1:ppn=1", "x = GRES:tape@1"]
        ),
        job(
            "99.vm",
            102,
            &["Resource_List.nodes = 1:ppn=1", "x = GRES:tape:1"]
        ),
    );
    let d = Daemon::start("tapes", &fixture, &["--allow-unprivileged", "-v"]);
    d.wait_iterations(1);
    assert_eq!(started(&d), pairs(&[("97.vm", "t1"), ("98.vm", "t1")]));
    let comments = d.alterjobs();
    assert_eq!(comments.len(), 1, "{comments:?}");
    assert_eq!(comments[0].0, "99.vm");
    assert!(
        d.log().contains("gres=tape:2 ") || d.log().contains("gres=tape:2"),
        "the node's tapes are read"
    );
}

#[test]
fn a_server_without_the_x_attribute_is_asked_without_it() {
    // Torque builds define the site attribute x by default; one without it
    // refuses a status filter naming it. The daemon says so once and reads
    // everything else.
    let fixture = format!(
        "{HEAD}{}{}",
        node("n1", 2, &[]),
        job("75.vm", 100, &["Resource_List.nodes = 1:ppn=1"]),
    );
    let d = Daemon::start_with_state(
        "nox",
        &fixture,
        "",
        &[],
        &["--allow-unprivileged"],
        None,
        &[("FAKE_IFL_UNDEFINED_JOB_ATTRS", "x")],
    );
    d.wait("75.vm started", || !started(&d).is_empty());
    d.send(NEW);
    d.wait_iterations(2);
    let log = d.log();
    assert_eq!(
        log.matches("pbs_server defines no job attribute \"x\"")
            .count(),
        1,
        "{log}"
    );
    let refused = d
        .calls()
        .iter()
        .filter(|c| c.text.starts_with("statjob ") && c.text.contains("errno=15002"))
        .count();
    assert_eq!(refused, 1, "asked with x once, never again");
    assert!(!log.contains("lost pbs_server"), "{log}");
}

/// Usage of each user in the fairshare files the daemon left in its state
/// directory (summed over the windows).
fn fairshare_usage(d: &Daemon) -> std::collections::BTreeMap<String, f64> {
    let mut usage = std::collections::BTreeMap::new();
    for e in fs::read_dir(d.dir.join("state/stats")).unwrap() {
        let e = e.unwrap();
        if !e.file_name().to_string_lossy().starts_with("FS.") {
            continue;
        }
        for line in fs::read_to_string(e.path()).unwrap().lines() {
            let w: Vec<&str> = line.split_whitespace().collect();
            if let ["User", name, v] = w[..] {
                *usage.entry(name.to_string()).or_insert(0.0) += v.parse::<f64>().unwrap();
            }
        }
    }
    usage
}

/// Fairshare charges every job its exact dedicated use, from its real
/// start to its real end as pbs_server reports them (`start_time`,
/// `comp_time`), whatever the poll interval: here 30 s, with jobs that
/// end between two iterations, one (51.vm, run by an operator's qrun) that
/// starts and ends between them, and completed jobs reported again (as
/// pbs_server keeps them for keep_completed seconds) charged once.
#[test]
fn fairshare_charges_each_job_its_exact_use_whatever_the_poll_interval() {
    let now = epoch_now();
    let fixture = format!(
        "{HEAD}{}{}",
        node("n1", 8, &[]),
        job_by(
            "50.vm",
            "alice",
            now - 60,
            &[
                "Resource_List.nodes = 1:ppn=2",
                "Resource_List.walltime = 01:00:00"
            ]
        ),
    );
    let cfg = "FSPOLICY DEDICATEDPS\nFSINTERVAL 24:00:00\nRMPOLLINTERVAL 0:00:30\n";
    let mut d = Daemon::start_full("fsexact", &fixture, cfg, &[], &["--allow-unprivileged"]);
    d.wait("50.vm started", || !started(&d).is_empty());
    let s50: i64 = d
        .calls()
        .iter()
        .find(|c| c.text.starts_with("runjob ") && c.text.contains(" 50.vm "))
        .and_then(|c| field(&c.text, "start_time").map(|v| v.parse().unwrap()))
        .expect("the fake logs start_time");
    let t1 = epoch_now() + 1;
    d.wait("two more seconds", || epoch_now() >= t1 + 2);
    let iterations = d.iterations().len();
    d.control(&[
        &format!(
            "submit 51.vm euser=bob Resource_List.nodes=1:ppn=3 exec_host=n1/2-4 start_time={t1}"
        ),
        &format!("complete 51.vm {}", t1 + 2),
        &format!("complete 50.vm {}", t1 + 2),
    ]);
    d.send(TERM);
    d.wait_iterations(iterations + 1);
    // Reported again at the next iteration: nothing more is charged.
    d.send(NEW);
    d.wait_iterations(iterations + 2);
    d.signal(libc::SIGTERM);
    let ok = wait_until(WAIT, || !d.alive());
    d.check(ok, "no exit after SIGTERM");
    let usage = fairshare_usage(&d);
    let expected = [
        ("alice".to_string(), 2.0 * (t1 + 2 - s50) as f64),
        ("bob".to_string(), 3.0 * 2.0),
    ];
    assert_eq!(usage, expected.into_iter().collect(), "{}", d.log());
    // keep_completed unset: Torque's 300 s outlast the 30-s poll.
    assert!(!d.log().contains("keep_completed"), "{}", d.log());
}

/// A pbs_server that purges completed jobs sooner than the next poll
/// would take their last interval from fairshare: the daemon says so
/// once, naming the qmgr setting, and again only when it changes.
#[test]
fn a_keep_completed_shorter_than_the_poll_is_warned_about_once() {
    let fixture = format!(
        "{}{}",
        HEAD.replacen(
            "scheduling = True\n",
            "scheduling = True\n    keep_completed = 10\n",
            1
        ),
        node("n1", 2, &[])
    );
    let cfg = "RMPOLLINTERVAL 0:00:30\n";
    let d = Daemon::start_full(
        "keepcompleted",
        &fixture,
        cfg,
        &[],
        &["--allow-unprivileged"],
    );
    d.wait_iterations(1);
    d.send(NEW);
    d.wait_iterations(2);
    let log = d.log();
    let warned: Vec<&str> = log
        .lines()
        .filter(|l| l.contains("keep_completed"))
        .collect();
    assert_eq!(warned.len(), 1, "{log}");
    assert!(
        warned[0].contains(
            "pbs_server keeps completed jobs 10 s (keep_completed), less than RMPOLLINTERVAL (30s)"
        ) && warned[0].contains("qmgr -c 'set server keep_completed = 300'"),
        "{}",
        warned[0]
    );
}

/// `t` as the engine writes times in log lines with TZ=UTC:
/// "Sat Nov 28 01:23:45 UTC" (the day padded to two places).
fn log_time(t: i64) -> String {
    let out = Command::new("date")
        .args(["-u", "-d", &format!("@{t}"), "+%a %b %e %H:%M:%S UTC"])
        .output()
        .expect("date");
    String::from_utf8(out.stdout)
        .unwrap()
        .trim_end()
        .to_string()
}

/// `mauictl ARGS` against the daemon's admin socket: (success, output).
fn mauictl(d: &Daemon, args: &[&str]) -> (bool, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_mauictl"))
        .arg("--socket")
        .arg(d.dir.join("state/run/mauisched.sock"))
        .args(args)
        .output()
        .expect("run mauictl");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.success(), text)
}

/// An operator's sethold is applied at once (an iteration on demand, not
/// the next 30-s poll), and the command says so; a hold asked for a job
/// that then started is checked against its state when applied and
/// dropped, never sent to pbs_server (which would hold the running job).
#[test]
fn an_operator_hold_is_applied_at_once_and_never_lands_on_a_running_job() {
    let now = epoch_now();
    let one = [
        "Resource_List.nodes = 1:ppn=1",
        "Resource_List.walltime = 01:00:00",
    ];
    let fixture = format!(
        "{HEAD}{}{}",
        node("n1", 1, &[]),
        running("70.vm", now - 60, "n1/0", &one),
    );
    let d = Daemon::start_full(
        "ondemand",
        &fixture,
        "RMPOLLINTERVAL 0:00:30\n",
        &[],
        &["--allow-unprivileged"],
    );
    d.wait_iterations(1);
    // 71.vm queued behind 70.vm: held at once.
    d.control(&["submit 71.vm Resource_List.nodes=1:ppn=1 Resource_List.walltime=00:10:00"]);
    d.send(NEW);
    d.wait_iterations(2);
    let (ok, out) = mauictl(&d, &["sethold", "71.vm"]);
    assert!(ok, "{out}");
    assert!(
        out.contains("at the next scheduling iteration, which runs now"),
        "{out}"
    );
    d.wait("71.vm held by pbs_holdjob", || {
        d.calls()
            .iter()
            .any(|c| c.text.starts_with("holdjob 1 71.vm s -> 0"))
    });
    assert!(
        d.iterations().iter().any(|i| i.trigger == "operator"),
        "{}",
        d.log()
    );
    // 72.vm is queued when the hold is asked, and started (by an
    // operator's qrun, here the fake) before the iteration applies it.
    d.control(&["submit 72.vm Resource_List.nodes=1:ppn=1 Resource_List.walltime=00:10:00"]);
    d.send(NEW);
    let before = d.iterations().len();
    d.wait_iterations(before + 1);
    d.control(&[
        "complete 70.vm",
        "set 72.vm job_state R",
        "set 72.vm exec_host n1/0",
        &format!("set 72.vm start_time {}", epoch_now()),
    ]);
    let (ok, out) = mauictl(&d, &["sethold", "72.vm"]);
    assert!(ok, "{out}");
    d.wait("the hold of 72.vm dropped", || {
        d.log().contains("sethold of job 72.vm by ")
    });
    assert!(
        d.log().contains("not applied: the job started at "),
        "{}",
        d.log()
    );
    assert!(
        !d.calls()
            .iter()
            .any(|c| c.text.starts_with("holdjob 1 72.vm")),
        "no pbs_holdjob on the running job"
    );
}

/// pbs_server sends command 0 (SCH_SCHEDULE_NULL) too: a schedule request
/// like any other.
#[test]
fn the_null_command_is_a_schedule_request() {
    let fixture = format!("{HEAD}{}", node("n1", 1, &[]));
    let d = Daemon::start_full(
        "nullcmd",
        &fixture,
        "RMPOLLINTERVAL 0:00:30\n",
        &[],
        &["--allow-unprivileged"],
    );
    d.wait_iterations(1);
    d.control(&["submit 95.vm Resource_List.nodes=1:ppn=1"]);
    d.send(0);
    d.wait("95.vm started after command 0", || !started(&d).is_empty());
    assert_eq!(d.iterations()[1].trigger, "commands");
}

/// After pbs_server restarts, its nodes are down without status until
/// their moms report, and it sends no command when they do: the daemon
/// looks again every few seconds meanwhile, so a waiting job starts soon
/// after, not at the next 30-s poll.
#[test]
fn nodes_coming_back_after_a_server_restart_are_seen_without_a_command() {
    let fixture = format!(
        "{HEAD}{}{}",
        node("n1", 1, &[]),
        job("96.vm", 100, &["Resource_List.nodes = 1:ppn=1"])
            .replace("job_state = Q", "job_state = H\n    Hold_Types = u"),
    );
    let d = Daemon::start_full(
        "momwait",
        &fixture,
        "RMPOLLINTERVAL 0:00:30\n",
        &[],
        &["--allow-unprivileged"],
    );
    d.wait_iterations(1);
    d.control(&[
        "server restart",
        "set 96.vm job_state Q",
        "set 96.vm Hold_Types n",
    ]);
    d.send(10); // SCH_SCHEDULE_FIRST, what a restarted pbs_server sends first
    d.wait("the daemon reconnected and found n1 down", || {
        d.log()
            .contains("1 node(s) down with no report from their pbs_mom yet")
    });
    assert!(started(&d).is_empty());
    let t = Instant::now();
    d.control(&["node n1 up"]);
    d.wait("96.vm started once n1's mom reported", || {
        !started(&d).is_empty()
    });
    let waited = t.elapsed();
    d.check(
        waited < Duration::from_secs(15),
        &format!("96.vm waited {waited:?}, as if for the next 30-s poll"),
    );
    assert!(d
        .calls()
        .iter()
        .all(|c| !c.text.starts_with("runjob") || c.text.contains("96.vm")));
}

/// A job mauisched starts gets a comment saying when and where (its wait
/// reason goes), which it keeps once finished; a job someone else started
/// (qrun) that still shows mauisched's wait reason is told it runs.
#[test]
fn started_jobs_say_when_and_where_and_stale_reasons_go() {
    let now = epoch_now();
    let one = [
        "Resource_List.nodes = 1:ppn=1",
        "Resource_List.walltime = 01:00:00",
    ];
    let mut stale = running("98.vm", now - 100, "n1/1", &one);
    stale.push_str("    comment = mauisched: Priority; estimated start Fri Jul 15 12:53 UTC\n");
    let fixture = format!(
        "{HEAD}{}{}{}",
        node("n1", 2, &[]),
        job_by("97.vm", "alice", now - 60, &one),
        stale,
    );
    let d = Daemon::start("startcomment", &fixture, &["--allow-unprivileged"]);
    d.wait_iterations(1);
    let comments = d.all_alterjobs();
    let c97: Vec<&String> = comments
        .iter()
        .filter(|c| c.0 == "97.vm")
        .map(|c| &c.1)
        .collect();
    assert_eq!(c97.len(), 1, "{comments:?}");
    assert!(
        c97[0].starts_with("mauisched: started ") && c97[0].ends_with(" on n1"),
        "{c97:?}"
    );
    assert!(
        comments.iter().any(|c| c.0 == "98.vm"
            && c.1
                == format!(
                    "mauisched: running since {} (not started by mauisched)",
                    comment_time(now - 100)
                )),
        "{comments:?}"
    );
    // finished: the started comment stays; nothing more is written
    d.control(&["complete 97.vm", "complete 98.vm"]);
    d.send(TERM);
    d.wait_iterations(2);
    assert_eq!(
        d.all_alterjobs().len(),
        comments.len(),
        "{:?}",
        d.all_alterjobs()
    );
}

/// The pbs_rerunjob and pbs_sigjob calls the double recorded.
fn preemption_calls(d: &Daemon) -> Vec<String> {
    (d.calls().into_iter())
        .map(|c| c.text)
        .filter(|t| t.starts_with("rerunjob ") || t.starts_with("sigjob "))
        .collect()
}

/// Queue `express` preempts queue `batch` (CLASSCFG FLAGS, as sites
/// write it): n1 runs 80.vm of queue `long` (no PREEMPTEE: never
/// touched, though it started last), n2 runs 81.vm of `batch`; 82.vm of
/// `express` needs a whole node.
fn preemption_fixture(now: i64) -> String {
    let node2 = [
        "Resource_List.nodes = 1:ppn=2",
        "Resource_List.walltime = 02:00:00",
    ];
    format!(
        "{HEAD}queue express\n    enabled = True\n    started = True\nqueue long\n    enabled = True\n    started = True\n{}{}{}{}{}",
        node("n1", 2, &[]),
        node("n2", 2, &[]),
        running("80.vm", now - 60, "n1/0-1", &node2).replace("queue = batch", "queue = long"),
        running("81.vm", now - 3600, "n2/0-1", &node2),
        job_by("82.vm", "bob", now - 30, &node2).replace("queue = batch", "queue = express"),
    )
}

const PREEMPTION_CFG: &str = "CLASSWEIGHT 1\nCLASSCFG[express] PRIORITY=1000 FLAGS=PREEMPTOR\nCLASSCFG[batch] FLAGS=PREEMPTEE\n";

#[test]
fn preemption_requeues_through_pbs_rerunjob_and_starts_the_preemptor() {
    let now = epoch_now();
    let d = Daemon::start_full(
        "preempt-requeue",
        &preemption_fixture(now),
        &format!("{PREEMPTION_CFG}PREEMPTPOLICY REQUEUE\n"),
        &[],
        &["--allow-unprivileged"],
    );
    d.wait_iterations(1);
    assert_eq!(preemption_calls(&d), ["rerunjob 1 81.vm -> 0 was=R"]);
    assert_eq!(started(&d), pairs(&[("82.vm", "n2:ppn=2")]));
    let log = d.log();
    assert!(
        log.contains("preempted job 81.vm (requeue) for job 82.vm"),
        "{log}"
    );
    assert!(
        log.contains(" preempted=1 resumed=0 preempt_refused=0 "),
        "{log}"
    );
    // 81.vm is queued again and waits: nothing else is preempted for it.
    d.send(NEW);
    d.wait_iterations(2);
    assert_eq!(preemption_calls(&d).len(), 1);
    assert_eq!(started(&d).len(), 1);
}

#[test]
fn preemption_suspends_through_pbs_sigjob_and_resumes_when_the_preemptor_ends() {
    let now = epoch_now();
    let d = Daemon::start_full(
        "preempt-suspend",
        &preemption_fixture(now),
        &format!("{PREEMPTION_CFG}PREEMPTPOLICY SUSPEND\n"),
        &[],
        &["--allow-unprivileged"],
    );
    d.wait_iterations(1);
    assert_eq!(preemption_calls(&d), ["sigjob 1 81.vm suspend -> 0 was=R"]);
    assert_eq!(started(&d), pairs(&[("82.vm", "n2:ppn=2")]));
    // While 82.vm runs 81.vm stays suspended.
    d.send(NEW);
    d.wait_iterations(2);
    assert_eq!(preemption_calls(&d).len(), 1);
    // 82.vm ends: 81.vm gets its processors back.
    d.control(&["complete 82.vm"]);
    d.send(NEW);
    d.wait("81.vm resumed", || preemption_calls(&d).len() == 2);
    assert_eq!(
        preemption_calls(&d)[1],
        "sigjob 1 81.vm resume -> 0 was=S busy=0"
    );
    assert!(d.log().contains("resumed job 81.vm"));
}

#[test]
fn a_refused_preemption_is_logged_and_the_preemptor_waits() {
    let now = epoch_now();
    // 81.vm was submitted not rerunnable (qsub -r n): pbs_server refuses
    // the requeue, so 82.vm is not started on n2.
    let fixture = preemption_fixture(now).replace(
        "    exec_host = n2/0-1\n",
        "    exec_host = n2/0-1\n    Rerunable = False\n",
    );
    let d = Daemon::start_full(
        "preempt-refused",
        &fixture,
        &format!("{PREEMPTION_CFG}PREEMPTPOLICY REQUEUE\n"),
        &[],
        &["--allow-unprivileged"],
    );
    d.wait_iterations(1);
    assert_eq!(
        preemption_calls(&d),
        ["rerunjob 1 81.vm -> 15040 Rerunable=False"]
    );
    assert!(d.runjobs().is_empty(), "{:?}", d.runjobs());
    let log = d.log();
    assert!(
        log.contains("pbs_rerunjob(81.vm) to requeue it for job 82.vm refused: pbs_errno 15040: job 81.vm not rerunnable"),
        "{log}"
    );
    assert!(
        log.contains("job 82.vm: not started: the preemption of job 81.vm was refused"),
        "{log}"
    );
    assert!(log.contains(" preempt_refused=1 "), "{log}");
}

/// The backfill scenario's first iteration, taken out of the running
/// daemon (`mauictl snapshot`) and decided again offline: 43.vm starts on
/// n2 and 41.vm is reserved, as pbs_server was told. `schedctl -n FILE`
/// writes the two nodes as Maui's resource trace, and `whatif live` with
/// RESERVATIONDEPTH 0 finds that 42.vm would start too, 41.vm unreserved.
fn snapshot_plans_offline_as_the_daemon_did(d: &Daemon) {
    let snap = d.dir.join("snap.json");
    let (ok, out) = mauictl(d, &["snapshot", "-o", snap.to_str().unwrap()]);
    assert!(ok, "{out}");
    let doc: serde_json::Value = serde_json::from_str(&fs::read_to_string(&snap).unwrap()).unwrap();
    let ids = |key: &str, field: &str| -> Vec<String> {
        doc[key]
            .as_array()
            .unwrap_or_else(|| panic!("no {key} in {doc}"))
            .iter()
            .map(|x| x[field].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(ids("nodes", "name"), ["n1", "n2"]);
    assert_eq!(ids("jobs", "id"), ["40.vm", "41.vm", "42.vm", "43.vm"]);
    let out = Command::new(env!("CARGO_BIN_EXE_mauictl"))
        .args(["plan", "--json", "--snapshot"])
        .arg(&snap)
        .arg("-C")
        .arg(d.dir.join("maui.cfg"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let plan: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let starts: Vec<(&str, &str)> = plan["starts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["job"].as_str().unwrap(),
                s["allocation"][0]["node"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(starts, [("43.vm", "n2")], "{plan}");
    assert!(
        plan["reservations"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["job"] == "41.vm"),
        "{plan}"
    );

    let trace = d.dir.join("nodes.trace");
    let (ok, out) = mauictl(d, &["schedctl", "-n", trace.to_str().unwrap()]);
    assert!(
        ok && out.contains("node table (2 node(s)) written"),
        "{out}"
    );
    let lines: Vec<String> = fs::read_to_string(&trace)
        .unwrap()
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(String::from)
        .collect();
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert!(
        lines.iter().all(|l| l.starts_with("COMPUTENODE")),
        "{lines:?}"
    );

    let cand = d.dir.join("cand.cfg");
    fs::write(&cand, "RESERVATIONDEPTH 0\n").unwrap();
    let (ok, out) = mauictl(
        d,
        &["whatif", "live", "-C", cand.to_str().unwrap(), "--json"],
    );
    assert!(ok, "{out}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let added: Vec<&str> = v["starts"]["added"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["job"].as_str().unwrap())
        .collect();
    assert_eq!(added, ["42.vm"], "{v}");
    assert!(
        v["reservations"]
            .as_array()
            .unwrap()
            .iter()
            .any(|m| m["name"] == "41.vm" && m["candidate"].is_null()),
        "{v}"
    );
}
