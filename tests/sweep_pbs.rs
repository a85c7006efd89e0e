//! `mauictl sweep --pbs`: a sweep's points as a Torque job array, submitted
//! through the IFL, against the project's test double of libtorque
//! (tests/pbs/fake-ifl), with the test playing pbs_mom.
//!
//! No package registry reachable here has Torque. mauictl loads the double
//! with `--libtorque`, as it would load libtorque.so.2, and the double keeps
//! its server in a state file (FAKE_IFL_STATE) that outlives mauictl, as
//! pbs_server does; the test reads it for what was submitted (every job's
//! attributes and the script it runs), runs the jobs' scripts as pbs_mom
//! would (PBS_ARRAYID, PBS_JOBID, output to the job's Output_Path), tells
//! the server they ended through the control file (`complete ID exit=N`),
//! and asks the server with `fake-qstat`, one more IFL client. The double
//! and fake-qstat are built here with `cc`; without a C compiler the tests
//! say so and pass.

use std::collections::BTreeMap;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

const GRID: &str =
    "BACKFILLPOLICY FIRSTFIT\nSWEEP RESERVATIONDEPTH 1 4 16\nSWEEP XFACTORWEIGHT 0 10 1000\n";

/// The cluster the double serves: array ids start at 12.
const FIXTURE: &str =
    "server vm\n    next_job_number = 12\nqueue batch\n    enabled = True\nnode n1\n    np = 4\n";

fn mauictl() -> &'static str {
    env!("CARGO_BIN_EXE_mauictl")
}

struct Built {
    fake: PathBuf,
    qstat: PathBuf,
}

/// Builds the double and fake-qstat once; `None` (with a message) when no
/// C compiler can be run.
fn built() -> Option<&'static Built> {
    static B: OnceLock<Option<Built>> = OnceLock::new();
    B.get_or_init(|| {
        let cc = std::env::var("CC").unwrap_or_else(|_| "cc".to_string());
        if Command::new(&cc).arg("--version").output().is_err() {
            eprintln!("sweep_pbs: skipped: no C compiler ({cc}) to build the IFL test double");
            return None;
        }
        let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("sweep-pbs");
        fs::create_dir_all(&dir).unwrap();
        let src = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/pbs/fake-ifl");
        let b = Built {
            fake: dir.join("libfakeifl.so"),
            qstat: dir.join("fake-qstat"),
        };
        let strict = ["-std=c99", "-Wall", "-Wextra", "-Werror", "-g", "-O1"];
        for (out, extra) in [
            (&b.fake, &["-fPIC", "-shared"][..]),
            (&b.qstat, &[src.join("fake_qstat.c").to_str().unwrap()][..]),
        ] {
            let o = Command::new(&cc)
                .args(strict)
                .args(extra)
                .arg("-o")
                .arg(out)
                .arg(src.join("fake_ifl.c"))
                .output()
                .unwrap();
            assert!(
                o.status.success(),
                "building {}:\n{}",
                out.display(),
                String::from_utf8_lossy(&o.stderr)
            );
        }
        Some(b)
    })
    .as_ref()
}

/// One test's server: its fixture, state, call log and control file.
struct Server {
    dir: PathBuf,
}

impl Server {
    fn new(name: &str, fixture: &str, control: &[&str]) -> Server {
        let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
            .join("sweep-pbs")
            .join(format!("{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        fs::write(dir.join("fixture.txt"), fixture).unwrap();
        let armed: String = control.iter().map(|l| format!("{l}\n")).collect();
        fs::write(dir.join("control.txt"), armed).unwrap();
        fs::write(dir.join("grid.cfg"), GRID).unwrap();
        Server { dir }
    }

    fn env(&self, c: &mut Command) {
        c.env("FAKE_IFL_FIXTURE", self.dir.join("fixture.txt"))
            .env("FAKE_IFL_STATE", self.dir.join("state.txt"))
            .env("FAKE_IFL_LOG", self.dir.join("calls.log"))
            .env("FAKE_IFL_CONTROL", self.dir.join("control.txt"));
    }

    /// `mauictl sweep GRID demo --jobs 300 --out DIR --pbs --libtorque FAKE ARGS...`
    fn sweep(&self, out: &Path, args: &[&str]) -> Command {
        self.sweep_with(&built().unwrap().fake, out, args)
    }

    /// The same with another library.
    fn sweep_with(&self, libtorque: &Path, out: &Path, args: &[&str]) -> Command {
        let mut c = Command::new(mauictl());
        c.arg("sweep")
            .arg(self.dir.join("grid.cfg"))
            .args(["demo", "--jobs", "300", "--quiet", "--out"])
            .arg(out)
            .arg("--pbs")
            .arg("--libtorque")
            .arg(libtorque)
            .args(args);
        self.env(&mut c);
        c
    }

    fn control(&self, line: &str) {
        let mut f = fs::OpenOptions::new()
            .append(true)
            .open(self.dir.join("control.txt"))
            .unwrap();
        f.write_all(format!("{line}\n").as_bytes()).unwrap();
    }

    /// The server's jobs (and arrays) as its state file has them.
    fn state(&self) -> State {
        State::parse(&fs::read_to_string(self.dir.join("state.txt")).unwrap_or_default())
    }

    /// `fake-qstat ID`: the job as an IFL client sees it now (control lines
    /// appended since the last call apply first).
    fn qstat(&self, id: &str) -> BTreeMap<String, String> {
        let mut c = Command::new(&built().unwrap().qstat);
        c.arg(id);
        self.env(&mut c);
        let o = c.output().unwrap();
        assert!(
            o.status.success(),
            "fake-qstat {id}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        let s = State::parse(&String::from_utf8_lossy(&o.stdout));
        s.jobs.get(id).cloned().unwrap_or_default()
    }

    fn log(&self) -> String {
        fs::read_to_string(self.dir.join("calls.log")).unwrap_or_default()
    }
}

type Attrs = BTreeMap<String, String>;

/// Objects of the fixture format (a state file, fake-qstat's output).
#[derive(Default)]
struct State {
    jobs: BTreeMap<String, Attrs>,
    arrays: BTreeMap<String, Attrs>,
}

impl State {
    fn parse(text: &str) -> State {
        let mut s = State::default();
        let mut cur: Option<(String, String)> = None;
        for line in text.lines() {
            if line.starts_with('#') || line.trim().is_empty() {
                continue;
            }
            if !line.starts_with(' ') {
                let (kind, name) = line.split_once(' ').unwrap();
                cur = Some((kind.to_string(), name.to_string()));
                continue;
            }
            let Some((kind, name)) = &cur else { continue };
            let t = line.trim();
            let (k, v) = t
                .split_once(" = ")
                .unwrap_or((t.trim_end_matches(" ="), ""));
            let map = match kind.as_str() {
                "job" => s.jobs.entry(name.clone()).or_default(),
                "array" => s.arrays.entry(name.clone()).or_default(),
                _ => continue,
            };
            map.insert(k.to_string(), v.to_string());
        }
        s
    }
}

/// Runs a job's script as pbs_mom would: in its init_work_dir, with
/// PBS_JOBID (and PBS_ARRAYID for an array's job), stdout and stderr
/// (joined) into its Output_Path; returns the exit status.
fn play_mom(id: &str, job: &Attrs) -> i32 {
    let script = &job["fake_script"];
    let out = job["Output_Path"].split_once(':').unwrap().1;
    let log = fs::File::create(out).unwrap_or_else(|e| panic!("{out}: {e}"));
    let mut c = Command::new("/bin/sh");
    c.arg(script)
        .current_dir(&job["init_work_dir"])
        .env("PBS_JOBID", id)
        .env("PBS_JOBNAME", &job["Job_Name"])
        .stdin(Stdio::null())
        .stdout(log.try_clone().unwrap())
        .stderr(log);
    if let Some(i) = job.get("job_array_id") {
        c.env("PBS_ARRAYID", i);
    }
    c.status().unwrap().code().unwrap_or(-1)
}

/// The same sweep run here, in parallel: its sweep.csv and ranking.csv.
fn local_sweep(s: &Server) -> (String, String) {
    let out = s.dir.join("local");
    let o = Command::new(mauictl())
        .arg("sweep")
        .arg(s.dir.join("grid.cfg"))
        .args(["demo", "--jobs", "300", "--quiet", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    (
        fs::read_to_string(out.join("sweep.csv")).unwrap(),
        fs::read_to_string(out.join("ranking.csv")).unwrap(),
    )
}

fn run(c: &mut Command) -> (i32, String, String) {
    let o = c.output().unwrap();
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// `mauictl sweep --pbs`: a 3 x 3 grid on the demo's first 300 jobs is one
/// Torque array of 9 jobs and a gathering job held on it until the whole
/// array has ended; played by the test as pbs_mom, the sweep's results
/// equal the same sweep run here, byte for byte.
#[test]
fn a_sweep_as_a_torque_job_array_gives_the_results_of_a_local_run() {
    if built().is_none() {
        return;
    }
    let s = Server::new("array", FIXTURE, &[]);
    let out = s.dir.join("sweep");
    let (code, stdout, stderr) = run(&mut s.sweep(&out, &["--submit-arg=-l walltime=00:10:00"]));
    assert_eq!(code, 0, "{stderr}\n{}", s.log());
    let dir = fs::canonicalize(&out).unwrap();
    assert!(
        stdout.starts_with(
            "submitted 9 points as Torque job array 12[].vm, gathered by job 13.vm \
             (afteranyarray:12[].vm)"
        ),
        "{stdout}"
    );
    assert_eq!(s.log().matches(" submit ").count(), 2, "{}", s.log());

    // what the server holds: the array of 9 queued jobs, each as
    // pbs_server clones an array's jobs, and the gathering job, held
    let st = s.state();
    let array = &st.arrays["12[].vm"];
    assert_eq!(array["job_array_request"], "0-8");
    assert_eq!(array["num_jobs"], "9");
    let host = array["Output_Path"].split_once(':').unwrap().0.to_string();
    let point_script = dir.join("pbs-point.sh");
    let text = fs::read_to_string(&point_script).unwrap();
    assert!(text.starts_with("#!/bin/sh\n"), "{text}");
    assert!(
        text.ends_with(&format!(
            "exec '{}' sweep-point '{}' \"$PBS_ARRAYID\"\n",
            mauictl(),
            dir.display()
        )),
        "{text}"
    );
    let sub: Vec<(&String, &Attrs)> = st.jobs.iter().filter(|(id, _)| id.contains('[')).collect();
    assert_eq!(sub.len(), 9, "{:?}", st.jobs.keys());
    for i in 0..9 {
        let id = format!("12[{i}].vm");
        let j = &st.jobs[&id];
        assert_eq!(j["job_state"], "Q", "{id}");
        assert_eq!(j["job_array_id"], i.to_string());
        assert_eq!(j["Job_Name"], format!("mauictl-sweep-{i}"));
        assert_eq!(
            j["Output_Path"],
            format!("{host}:{}/logs/mauictl-sweep.o12-{i}", dir.display())
        );
        assert_eq!(j["Join_Path"], "oe");
        assert_eq!(j["Resource_List.walltime"], "00:10:00");
        assert_eq!(j["fake_script"], point_script.display().to_string());
        assert!(
            j["Variable_List"].ends_with(&format!(",PBS_ARRAYID={i}"))
                && j["Variable_List"].contains(&format!("PBS_O_WORKDIR={}", dir.display())),
            "{}",
            j["Variable_List"]
        );
    }
    let gather = &st.jobs["13.vm"];
    assert_eq!(gather["job_state"], "H");
    assert_eq!(gather["Hold_Types"], "s");
    assert_eq!(gather["depend"], "afteranyarray:12[].vm");
    assert_eq!(gather["Job_Name"], "mauictl-sweep-gather");
    assert_eq!(
        gather["fake_script"],
        dir.join("pbs-gather.sh").display().to_string()
    );

    // pbs_mom runs the array's jobs; the gathering job stays held until
    // the last one has ended
    for i in 0..9 {
        let id = format!("12[{i}].vm");
        let code = play_mom(&id, &st.jobs[&id]);
        assert_eq!(code, 0, "{id}");
        s.control(&format!("complete {id} exit={code}"));
        let g = s.qstat("13.vm");
        if i < 8 {
            assert_eq!(
                (g["job_state"].as_str(), g["Hold_Types"].as_str()),
                ("H", "s"),
                "after {id}"
            );
        } else {
            assert_eq!(
                (g["job_state"].as_str(), g["Hold_Types"].as_str()),
                ("Q", "n"),
                "after the last: {g:?}"
            );
            assert!(!g.contains_key("depend"), "{g:?}");
        }
    }
    let log0 = fs::read_to_string(dir.join("logs/mauictl-sweep.o12-0")).unwrap();
    assert!(
        log0.starts_with("point 0: RESERVATIONDEPTH=1 XFACTORWEIGHT=0 on demo: "),
        "{log0}"
    );
    let code = play_mom("13.vm", &s.state().jobs["13.vm"]);
    let glog = fs::read_to_string(dir.join("logs/mauictl-sweep-gather.o13")).unwrap();
    assert_eq!(code, 0, "{glog}");
    s.control("complete 13.vm exit=0");

    let (csv, ranking) = local_sweep(&s);
    assert_eq!(fs::read_to_string(dir.join("sweep.csv")).unwrap(), csv);
    assert_eq!(
        fs::read_to_string(dir.join("ranking.csv")).unwrap(),
        ranking
    );
    assert!(dir.join("report.html").is_file());
    assert_eq!(s.qstat("13.vm")["job_state"], "C");
}

/// `--wait`: mauictl polls the server until the gathering job has ended and
/// prints the ranking, while the test plays pbs_mom beside it.
#[test]
fn sweep_pbs_wait_polls_until_the_gathering_job_has_ended() {
    if built().is_none() {
        return;
    }
    let s = Server::new("wait", FIXTURE, &[]);
    let out = s.dir.join("sweep");
    let child = s
        .sweep(&out, &["--wait"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // pbs_mom: runs every queued job once, as the state file shows them
    let end = Instant::now() + Duration::from_secs(120);
    let mut ran: Vec<String> = Vec::new();
    let mut held_seen = false;
    while !ran.iter().any(|id| id == "13.vm") {
        assert!(Instant::now() < end, "pbs_mom gave up:\n{}", s.log());
        let st = s.state();
        if let (Some(a), Some(g)) = (st.arrays.get("12[].vm"), st.jobs.get("13.vm")) {
            if a["jobs_done"] != "9" {
                assert_eq!(g["job_state"], "H", "before the array ended");
                held_seen = true;
            }
        }
        for (id, j) in &st.jobs {
            if j["job_state"] == "Q" && !ran.contains(id) {
                let code = play_mom(id, j);
                s.control(&format!("complete {id} exit={code}"));
                ran.push(id.clone());
            }
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let o = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(
        o.status.success(),
        "{stdout}\n{}\n{}",
        String::from_utf8_lossy(&o.stderr),
        s.log()
    );
    assert!(held_seen);
    assert_eq!(ran.len(), 10, "{ran:?}");
    assert!(stdout.contains("\nwaited 00:00:"), "{stdout}");
    assert!(
        stdout
            .contains("9 configurations x 1 trace(s) = 9 points, ranked by mean_bounded_slowdown"),
        "{stdout}"
    );
    let (csv, _) = local_sweep(&s);
    assert_eq!(fs::read_to_string(out.join("sweep.csv")).unwrap(), csv);
}

/// What the server refuses, and a wait that runs out, are said with the
/// IFL's error and what was left behind.
#[test]
fn sweep_pbs_failures_say_what_torque_said() {
    if built().is_none() {
        return;
    }
    // --slurm and --pbs are two ways of one thing
    let s = Server::new("errors", FIXTURE, &[]);
    let out = s.dir.join("sweep");
    let (code, _, err) = run(&mut s.sweep(&out, &["--slurm"]));
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("cannot be used with"), "{err}");

    // no such library
    let (code, _, err) =
        run(&mut s.sweep_with(Path::new("/nonexistent/libtorque.so.2"), &out, &[]));
    assert_eq!(code, 1);
    assert!(
        err.contains("cannot load the IFL client library /nonexistent/libtorque.so.2"),
        "{err}"
    );

    // an option mauictl does not map, before anything is submitted
    let (code, _, err) = run(&mut s.sweep(&out, &["--submit-arg=-V"]));
    assert_eq!(code, 1);
    assert!(err.contains("qsub's -V is not mapped"), "{err}");

    // an unknown queue: Torque's 15020
    let (code, _, err) = run(&mut s.sweep(&out, &["--submit-arg=-q nosuch"]));
    assert_eq!(code, 1);
    assert!(
        err.contains("the job array of 9 points was not submitted")
            && err.contains("pbs_submit failed: pbs_errno 15020 (Unknown queue)"),
        "{err}"
    );

    // a server that refuses arrays of more than 4 jobs: 15083, its message
    let small = Server::new(
        "small",
        &FIXTURE.replace("server vm\n", "server vm\n    max_job_array_size = 4\n"),
        &[],
    );
    let (code, _, err) = run(&mut small.sweep(&small.dir.join("sweep"), &[]));
    assert_eq!(code, 1);
    assert!(
        err.contains(
            "pbs_errno 15083 (Bad Job Array Request): Requested array size too large, limit is 4"
        ),
        "{err}"
    );

    // no server: the socket error
    let down = Server::new("down", FIXTURE, &["server down"]);
    let (code, _, err) = run(&mut down.sweep(&down.dir.join("sweep"), &[]));
    assert_eq!(code, 1);
    assert!(
        err.contains("pbs_connect to libtorque's default server failed: Connection refused"),
        "{err}"
    );

    // nobody runs the jobs: --wait gives up when told, and says where
    // things are
    let idle = Server::new("idle", FIXTURE, &[]);
    let t0 = Instant::now();
    let (code, out, err) =
        run(&mut idle.sweep(&idle.dir.join("sweep"), &["--wait", "--wait-timeout", "2"]));
    assert_eq!(code, 1, "{out}");
    assert!(t0.elapsed() < Duration::from_secs(30));
    assert!(
        err.contains(
            "gave up waiting after 00:00:02 (--wait-timeout): 0 of 9 points done, the gathering \
             job 13.vm in state H; the jobs stay queued"
        ),
        "{err}"
    );
}
