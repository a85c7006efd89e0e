//! A scheduler handle on a temporary state directory, driven through the
//! C ABI exactly as a front end drives it, with its admin socket: the
//! harness of the admin socket tests.

#![allow(dead_code)]

use mauisched::ffi::*;
use mauisched::socket::{client, protocol};
use std::collections::BTreeMap;
use std::ffi::{c_char, c_void, CStr, CString};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

pub const H: i64 = 3600;
/// The scenario's clock: Fri Aug 18 18:00:00 2000 UTC.
pub const T0: i64 = 966_621_600;

/// A node of the snapshot.
#[derive(Clone, Debug)]
pub struct NodeSpec {
    pub name: String,
    pub procs: u32,
    pub state: u32,
}

/// A job of the snapshot.
#[derive(Clone, Debug)]
pub struct JobSpec {
    pub id: String,
    pub user: String,
    pub tasks: u32,
    pub walltime: i64,
    pub submit: i64,
    pub state: u32,
    pub start: i64,
    pub allocation: String,
    pub holds: u32,
}

impl JobSpec {
    pub fn idle(id: &str, user: &str, tasks: u32, walltime: i64, submit: i64) -> JobSpec {
        JobSpec {
            id: id.into(),
            user: user.into(),
            tasks,
            walltime,
            submit,
            state: MAUISCHED_JOB_IDLE,
            start: 0,
            allocation: String::new(),
            holds: 0,
        }
    }

    pub fn running(id: &str, user: &str, alloc: &str, walltime: i64, start: i64) -> JobSpec {
        let tasks = alloc
            .split(',')
            .map(|a| a.rsplit(':').next().unwrap().parse::<u32>().unwrap())
            .sum();
        JobSpec {
            id: id.into(),
            user: user.into(),
            tasks,
            walltime,
            submit: start - 600,
            state: MAUISCHED_JOB_RUNNING,
            start,
            allocation: alloc.into(),
            holds: 0,
        }
    }

    pub fn held(mut self, holds: u32) -> JobSpec {
        self.holds = holds;
        self
    }
}

/// `n` nodes `n1..n<n>` of one processor each.
pub fn nodes(n: u32) -> Vec<NodeSpec> {
    (1..=n)
        .map(|i| NodeSpec {
            name: format!("n{i}"),
            procs: 1,
            state: MAUISCHED_NODE_IDLE,
        })
        .collect()
}

/// The standard queue at T0 on four nodes: A runs on n1 until T0+3h; B
/// (mauiuser) needs all four nodes, so it waits for A with a job
/// reservation; C (alice) backfills; H (bob) has a system hold.
pub fn queue() -> Vec<JobSpec> {
    vec![
        JobSpec::running("A", "alice", "n1:1", 4 * H, T0 - H),
        JobSpec::idle("B", "mauiuser", 4, H, T0 - 1800),
        JobSpec::idle("C", "alice", 1, 2 * H, T0 - 1200),
        JobSpec::idle("H", "bob", 1, H, T0 - 600).held(MAUISCHED_HOLD_SYSTEM),
    ]
}

/// What a plan decided, copied out of the ABI's accessors.
#[derive(Clone, Debug, Default)]
pub struct PlanView {
    pub starts: Vec<(String, Vec<(String, u32)>)>,
    /// job -> (priority, started, reason code)
    pub jobs: BTreeMap<String, (i64, bool, u32)>,
    /// (kind, job, by)
    pub actions: Vec<(u32, String, String)>,
}

impl PlanView {
    pub fn started(&self, job: &str) -> bool {
        self.starts.iter().any(|s| s.0 == job)
    }
}

unsafe fn s(p: *const c_char) -> String {
    if p.is_null() {
        String::new()
    } else {
        CStr::from_ptr(p).to_string_lossy().into_owned()
    }
}

extern "C" fn log_cb(_level: u32, msg: *const c_char, ud: *mut c_void) {
    // SAFETY: ud is the harness's log buffer, alive while the handle is.
    let buf = unsafe { &*(ud as *const Mutex<Vec<String>>) };
    let m = unsafe { s(msg) };
    buf.lock().unwrap().push(m);
}

/// A handle with its admin socket.
pub struct Sched {
    h: *mut mauisched_t,
    pub dir: PathBuf,
    pub cfg: PathBuf,
    pub socket: PathBuf,
    log: Box<Mutex<Vec<String>>>,
    /// Remove the directory when dropped.
    pub cleanup: bool,
}

/// A short scratch directory (socket paths are limited to 108 bytes).
pub fn scratch(name: &str) -> PathBuf {
    let d = PathBuf::from(format!("/tmp/ms-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

impl Sched {
    /// A handle on a fresh state directory with `cfg` as maui.cfg.
    pub fn start(name: &str, cfg: &str) -> Sched {
        Sched::open(scratch(name), cfg)
    }

    /// A handle on the state directory under `dir` (kept from an earlier
    /// handle, or new).
    pub fn open(dir: PathBuf, cfg: &str) -> Sched {
        let cfg_path = dir.join("maui.cfg");
        std::fs::write(&cfg_path, cfg).unwrap();
        let socket = dir.join("admin.sock");
        let log: Box<Mutex<Vec<String>>> = Box::new(Mutex::new(Vec::new()));
        let c_cfg = CString::new(cfg_path.to_str().unwrap()).unwrap();
        let c_state = CString::new(dir.join("state").to_str().unwrap()).unwrap();
        let c_sock = CString::new(socket.to_str().unwrap()).unwrap();
        let opts = mauisched_options_t {
            size: std::mem::size_of::<mauisched_options_t>(),
            config_path: c_cfg.as_ptr(),
            state_dir: c_state.as_ptr(),
            log: Some(log_cb),
            log_userdata: &*log as *const Mutex<Vec<String>> as *mut c_void,
            admin_socket: c_sock.as_ptr(),
            rm: std::ptr::null(),
        };
        let mut h: *mut mauisched_t = std::ptr::null_mut();
        let mut err = [0 as c_char; 1024];
        // SAFETY: valid options, outputs and buffer.
        let st = unsafe { mauisched_new(&opts, &mut h, err.as_mut_ptr(), err.len()) };
        assert_eq!(st, mauisched_status_t::MAUISCHED_OK, "{}", unsafe {
            s(err.as_ptr())
        });
        assert!(socket.exists(), "the admin socket is served");
        Sched {
            h,
            dir,
            cfg: cfg_path,
            socket,
            log,
            cleanup: true,
        }
    }

    /// One iteration over `nodes` and `jobs` at `now`.
    pub fn run(&self, now: i64, nodes: &[NodeSpec], jobs: &[JobSpec]) -> PlanView {
        unsafe {
            assert_eq!(
                mauisched_snapshot_begin(self.h, now),
                mauisched_status_t::MAUISCHED_OK
            );
            for n in nodes {
                let name = CString::new(n.name.clone()).unwrap();
                let mut c: mauisched_node_t = std::mem::zeroed();
                c.size = std::mem::size_of::<mauisched_node_t>();
                c.name = name.as_ptr();
                c.state = n.state;
                c.procs = n.procs;
                c.mem_mb = 1000;
                assert_eq!(
                    mauisched_snapshot_add_node(self.h, &c),
                    mauisched_status_t::MAUISCHED_OK
                );
            }
            for j in jobs {
                let id = CString::new(j.id.clone()).unwrap();
                let user = CString::new(j.user.clone()).unwrap();
                let group = CString::new("users").unwrap();
                let alloc = CString::new(j.allocation.clone()).unwrap();
                let mut c: mauisched_job_t = std::mem::zeroed();
                c.size = std::mem::size_of::<mauisched_job_t>();
                c.id = id.as_ptr();
                c.user = user.as_ptr();
                c.group = group.as_ptr();
                c.state = j.state;
                c.holds = j.holds;
                c.submit_time = j.submit;
                c.start_time = j.start;
                c.walltime = j.walltime;
                c.tasks = j.tasks;
                c.task_procs = 1;
                c.allocation = alloc.as_ptr();
                let st = mauisched_snapshot_add_job(self.h, &c);
                assert_eq!(
                    st,
                    mauisched_status_t::MAUISCHED_OK,
                    "{}",
                    self.last_error()
                );
            }
            let mut plan: *mut mauisched_plan_t = std::ptr::null_mut();
            let st = mauisched_run(self.h, &mut plan);
            assert_eq!(
                st,
                mauisched_status_t::MAUISCHED_OK,
                "{}",
                self.last_error()
            );
            let mut v = PlanView::default();
            let mut n = 0usize;
            mauisched_plan_start_count(plan, &mut n);
            for i in 0..n {
                let (mut job, mut bf, mut res, mut nn) =
                    (std::ptr::null(), false, std::ptr::null(), 0usize);
                mauisched_plan_start(plan, i, &mut job, &mut bf, &mut res, &mut nn);
                let mut alloc = Vec::new();
                for k in 0..nn {
                    let (mut node, mut t) = (std::ptr::null(), 0u32);
                    mauisched_plan_start_node(plan, i, k, &mut node, &mut t);
                    alloc.push((s(node), t));
                }
                v.starts.push((s(job), alloc));
            }
            mauisched_plan_job_count(plan, &mut n);
            for i in 0..n {
                let (mut job, mut prio, mut started) = (std::ptr::null(), 0i64, false);
                mauisched_plan_job(plan, i, &mut job, &mut prio, &mut started);
                let (mut code, mut sum, mut det) = (0u32, std::ptr::null(), std::ptr::null());
                mauisched_plan_job_reason(plan, i, &mut code, &mut sum, &mut det);
                v.jobs.insert(s(job), (prio, started, code));
            }
            mauisched_plan_action_count(plan, &mut n);
            for i in 0..n {
                let (mut kind, mut job, mut by) = (0u32, std::ptr::null(), std::ptr::null());
                mauisched_plan_action(plan, i, &mut kind, &mut job, &mut by);
                v.actions.push((kind, s(job), s(by)));
            }
            mauisched_plan_free(plan);
            v
        }
    }

    /// The standard queue on four nodes at `now`.
    pub fn run_queue(&self, now: i64) -> PlanView {
        self.run(now, &nodes(4), &queue())
    }

    pub fn last_error(&self) -> String {
        let mut buf = vec![0 as c_char; 8192];
        let mut w = 0usize;
        unsafe {
            mauisched_last_error(self.h, buf.as_mut_ptr(), buf.len(), &mut w);
            s(buf.as_ptr())
        }
    }

    /// Asks the scheduler over its socket, as this process's user.
    pub fn ask(&self, cmd: &str, args: &[&str], json: bool) -> protocol::Response {
        ask_at(&self.socket, cmd, args, json)
    }

    /// Text output of a command that must succeed.
    pub fn text(&self, cmd: &str, args: &[&str]) -> String {
        let r = self.ask(cmd, args, false);
        assert!(r.ok, "{cmd} {args:?}: {:?}", r.error);
        r.output.unwrap()
    }

    /// JSON output of a command that must succeed.
    pub fn json(&self, cmd: &str, args: &[&str]) -> serde_json::Value {
        let r = self.ask(cmd, args, true);
        assert!(r.ok, "{cmd} {args:?}: {:?}", r.error);
        r.data.unwrap()
    }

    /// The error code of a command that must fail.
    pub fn fails(&self, cmd: &str, args: &[&str]) -> (protocol::ErrorCode, String) {
        let r = self.ask(cmd, args, false);
        assert!(!r.ok, "{cmd} {args:?} succeeded: {:?}", r.output);
        let e = r.error.unwrap();
        (e.code, e.message)
    }

    /// Log messages delivered so far (through the host's log callback).
    pub fn logs(&self) -> Vec<String> {
        self.log.lock().unwrap().clone()
    }

    /// Rereads maui.cfg through the ABI.
    pub fn reconfigure(&self) -> mauisched_status_t {
        unsafe { mauisched_reconfigure(self.h, std::ptr::null()) }
    }
}

impl Drop for Sched {
    fn drop(&mut self) {
        unsafe { mauisched_free(self.h) };
        assert!(!self.socket.exists(), "the socket goes with the handle");
        if self.cleanup {
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }
}

/// One request to the socket at `path`.
pub fn ask_at(path: &Path, cmd: &str, args: &[&str], json: bool) -> protocol::Response {
    let req = protocol::Request {
        v: protocol::VERSION,
        cmd: cmd.into(),
        args: args.iter().map(|a| a.to_string()).collect(),
        json,
    };
    client::call(path, &req, Duration::from_secs(30)).expect("the scheduler answers")
}
