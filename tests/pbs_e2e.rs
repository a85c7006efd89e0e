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
//! Decisions come from the daemon's TEMPORARY FIFO first-fit placeholder (the
//! library's C ABI is another issue): these tests check the plumbing —
//! location strings, comments, per-job errors, reconnects, event merging —
//! not the scheduling policy. Priority order, backfill beside a reserved wide
//! job and standing reservations are tested once the library decides.
//!
//! Every wait is bounded; a daemon is killed when its test ends or fails.

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
        };

        let mut args: Vec<String> = strict.iter().chain(&san).map(|s| s.to_string()).collect();
        args.extend(c_files(&shim));
        args.extend([
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
        ] {
            let mut args: Vec<String> = strict.iter().chain(&san).map(|s| s.to_string()).collect();
            args.push(inc.clone());
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
        let b = built();
        let dir = build_dir().join(format!("{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
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
            .args(args)
            .env("FAKE_IFL_FIXTURE", dir.join("fixture.txt"))
            .env("FAKE_IFL_LOG", dir.join("calls.log"))
            .env("FAKE_IFL_CONTROL", dir.join("control.txt"))
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

    /// (job, comment, result) of every pbs_alterjob, in order.
    fn alterjobs(&self) -> Vec<(String, String, i32)> {
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

fn run_unit(path: &Path) {
    let out = Command::new(path).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && text.contains(", 0 failed"),
        "{}:\n{text}\n{}",
        path.display(),
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn c_unit_tests_of_the_torque_attribute_parsers_pass() {
    run_unit(&built().unit_map);
}

#[test]
fn c_unit_tests_of_the_scheduler_port_filter_pass() {
    run_unit(&built().unit_filter);
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
    let d = Daemon::start("packing", &fixture, &["--allow-unprivileged", "-v"]);
    d.wait_iterations(1);

    // 20 and 21 share n1; 22 needs bigmem (n2); 23 names its hosts; 24 wants
    // two bigmem nodes (only n2 has it); procs=3 takes n3's 3 free slots;
    // 26 needs a whole node and none is left.
    assert_eq!(
        started(&d),
        pairs(&[
            ("20.vm", "n1:ppn=2"),
            ("21.vm", "n1:ppn=2"),
            ("22.vm", "n2:ppn=3"),
            ("23.vm", "n3+n2"),
            ("25.vm", "n3:ppn=3"),
        ])
    );
    let comments = d.alterjobs();
    let waiting: Vec<&str> = comments.iter().map(|c| c.0.as_str()).collect();
    assert_eq!(waiting, ["24.vm", "26.vm"]);
    assert!(comments.iter().all(|c| c.2 == 0
        && c.1
            .starts_with("mauisched: [placeholder FIFO first-fit] waiting for")));
    assert!(comments[1].1.contains("1 node(s) with 4 free processor(s)"));

    // the fake now shows the running jobs in the nodes' jobs/state: a second
    // iteration starts nothing twice and leaves unchanged comments alone
    d.send(NEW);
    d.wait_iterations(2);
    let it = d.iterations();
    assert_eq!(
        (it[1].started, it[1].comments, it[1].unchanged),
        (0, 0, 2),
        "{it:?}"
    );
    assert_eq!(d.runjobs().len(), 5);

    // two jobs end on n1: the whole-node job starts there
    d.control(&["complete 20.vm", "complete 21.vm"]);
    d.send(TERM);
    d.wait("26.vm started", || {
        started(&d).contains(&("26.vm".into(), "n1:ppn=4".into()))
    });
    assert_eq!(
        d.alterjobs().len(),
        2,
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

    fs::write(d.dir.join("maui.cfg"), "RMPOLLINTERVAL soon\n").unwrap();
    d.signal(libc::SIGHUP);
    d.wait("broken file refused", || {
        d.log().contains("keeping the current settings")
    });
    assert!(d.log().contains("maui.cfg:1: RMPOLLINTERVAL"));
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
