//! `mauictl sweep --pbs`: a sweep's points as a Torque job array, submitted
//! through Torque's IFL client library, and the job that gathers them.
//!
//! What qsub would send for `qsub -t 0-N-1 -N mauictl-sweep -j oe -o
//! host:DIR/logs/ point.sh` and then `qsub -W depend=afteranyarray:ID -N
//! mauictl-sweep-gather ... gather.sh`, mauictl sends with `pbs_submit`:
//! the array request (`job_array_request`), the name, the output path with
//! Torque's own file naming (a path ending in `/` gets `NAME.oSEQ`, and
//! each array job `-INDEX` after it: `DIR/logs/mauictl-sweep.o12-3`), the
//! join, the working directory and the `PBS_O_*` variables, and the
//! options of `--submit-arg` that map to attributes (`-q`, `-l`, `-A`,
//! `-W`, `-p`, `-m`, `-M`). The scripts are files in DIR. `--wait` polls
//! the gathering job with `pbs_statjob` until it has completed (or been
//! purged), at most `--wait-timeout`.

use crate::ifl::{Attr, Conn, Ifl, IflError, Status, PBSE_UNKARRAYID, PBSE_UNKJOBID};
use crate::SweepArgs;
use mauisched::sim::sweep::{self, Manifest};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The array's job name (and its logs' prefix).
pub const ARRAY_NAME: &str = "mauictl-sweep";
/// The gathering job's name.
pub const GATHER_NAME: &str = "mauictl-sweep-gather";

/// What `--submit-arg` asks of the jobs: the queue and attributes.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct QsubOptions {
    /// `-q QUEUE`: the destination (else the server's default queue).
    pub queue: Option<String>,
    /// The attributes the other options set.
    pub attrs: Vec<Attr>,
}

const MAPPED: &str = "-q QUEUE, -l RESOURCE=VALUE[,...], -A ACCOUNT, -W NAME=VALUE, -p PRIORITY, \
                      -m MAIL_OPTIONS, -M MAIL_USERS";

/// Reads `--submit-arg` values as qsub options, each as qsub would set the
/// job's attribute: `-l walltime=1:00:00,mem=2gb` is `Resource_List`'s
/// resources, `-W group_list=g` the attribute named. The value follows the
/// letter (`-lwalltime=...`), after blanks (`-l walltime=...`), or in the
/// next `--submit-arg`.
pub fn qsub_options(args: &[String]) -> Result<QsubOptions, String> {
    let mut o = QsubOptions::default();
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        let t = arg.trim();
        let mut chars = t.strip_prefix('-').unwrap_or("").chars();
        let Some(opt) = chars.next().filter(|c| c.is_ascii_alphabetic()) else {
            return Err(format!(
                "--submit-arg {arg}: with --pbs, a qsub option: {MAPPED}"
            ));
        };
        let set_by_mauictl = |what: &str| {
            Err(format!(
                "--submit-arg {arg}: mauictl sets the jobs' {what} itself"
            ))
        };
        match opt {
            'q' | 'l' | 'A' | 'W' | 'p' | 'm' | 'M' => {}
            'N' => return set_by_mauictl("names"),
            't' => return set_by_mauictl("array request"),
            'o' | 'e' | 'j' => return set_by_mauictl("output files (DIR/logs)"),
            _ => {
                return Err(format!(
                    "--submit-arg {arg}: qsub's -{opt} is not mapped by mauictl; it maps {MAPPED}"
                ))
            }
        }
        let attached = chars.as_str().trim();
        let value = if attached.is_empty() {
            match it.next() {
                Some(v) => v.trim().to_string(),
                None => return Err(format!("--submit-arg {arg}: -{opt} needs a value")),
            }
        } else {
            attached.to_string()
        };
        if value.is_empty() {
            return Err(format!("--submit-arg {arg}: -{opt} needs a value"));
        }
        match opt {
            'q' => o.queue = Some(value),
            'l' => {
                for item in value.split(',').map(str::trim).filter(|s| !s.is_empty()) {
                    let Some((r, v)) = item.split_once('=').filter(|(r, _)| !r.is_empty()) else {
                        return Err(format!(
                            "--submit-arg {arg}: expected RESOURCE=VALUE, got \"{item}\""
                        ));
                    };
                    o.attrs.push(Attr {
                        name: "Resource_List".into(),
                        resource: Some(r.trim().to_string()),
                        value: v.trim().to_string(),
                    });
                }
            }
            'W' => {
                let Some((n, v)) = value.split_once('=').filter(|(n, _)| !n.trim().is_empty())
                else {
                    return Err(format!(
                        "--submit-arg {arg}: expected -W NAME=VALUE, got \"{value}\""
                    ));
                };
                if n.trim() == "depend" {
                    return set_by_mauictl("dependency (the gathering job's on the array)");
                }
                o.attrs.push(Attr::new(n.trim(), v.trim()));
            }
            'A' => o.attrs.push(Attr::new("Account_Name", &value)),
            'p' => o.attrs.push(Attr::new("Priority", &value)),
            'm' => o.attrs.push(Attr::new("Mail_Points", &value)),
            _ => o.attrs.push(Attr::new("Mail_Users", &value)), // 'M'
        }
    }
    Ok(o)
}

/// Quotes a word for sh.
fn sh_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}

/// The array's job script: point `$PBS_ARRAYID` of the sweep in `dir`.
pub fn point_script(exe: &Path, dir: &Path, points: usize) -> String {
    format!(
        "#!/bin/sh\n\
         # One point of the sweep in {d}: `mauictl sweep --pbs` submits this script\n\
         # as a Torque job array of {points} jobs (as `qsub -t 0-{last}` would), and\n\
         # pbs_mom sets PBS_ARRAYID to each job's index.\n\
         exec {exe} sweep-point {dq} \"$PBS_ARRAYID\"\n",
        d = dir.display(),
        last = points.saturating_sub(1),
        exe = sh_quote(&exe.display().to_string()),
        dq = sh_quote(&dir.display().to_string()),
    )
}

/// The gathering job's script.
pub fn gather_script(exe: &Path, dir: &Path) -> String {
    format!(
        "#!/bin/sh\n\
         # Gathers the sweep in {d} once its job array has ended\n\
         # (depend=afteranyarray): sweep.csv, ranking.csv, report.html.\n\
         exec {exe} sweep-gather {dq}\n",
        d = dir.display(),
        exe = sh_quote(&exe.display().to_string()),
        dq = sh_quote(&dir.display().to_string()),
    )
}

/// `Variable_List` as qsub sends it: the submitter's `PBS_O_*` variables
/// (those set), the working directory and host; commas in values escaped.
pub fn variable_list(env: &dyn Fn(&str) -> Option<String>, workdir: &Path, host: &str) -> String {
    let mut vars = Vec::new();
    for name in ["HOME", "LANG", "LOGNAME", "PATH", "MAIL", "SHELL", "TZ"] {
        if let Some(v) = env(name) {
            vars.push((format!("PBS_O_{name}"), v));
        }
    }
    vars.push(("PBS_O_WORKDIR".into(), workdir.display().to_string()));
    vars.push(("PBS_O_HOST".into(), host.to_string()));
    vars.iter()
        .map(|(n, v)| format!("{n}={}", v.replace(',', "\\,")))
        .collect::<Vec<_>>()
        .join(",")
}

/// The attributes of one of the two jobs (`array`: `Some(points)`).
pub fn job_attrs(
    name: &str,
    array: Option<usize>,
    depend: Option<&str>,
    dir: &Path,
    host: &str,
    vars: &str,
    extra: &[Attr],
) -> Vec<Attr> {
    // A path ending in '/' is a directory: pbs_server names the file in it
    // (NAME.oSEQ, NAME.oSEQ-INDEX for an array's jobs); joined, stderr goes
    // there too (qsub copies the output path to the error path for -j oe).
    let logs = format!("{host}:{}/", dir.join("logs").display());
    let mut v = vec![Attr::new("Job_Name", name)];
    if let Some(n) = array {
        v.push(Attr::new("job_array_request", &format!("0-{}", n - 1)));
    }
    if let Some(d) = depend {
        v.push(Attr::new("depend", d));
    }
    v.extend([
        Attr::new("Output_Path", &logs),
        Attr::new("Error_Path", &logs),
        Attr::new("Join_Path", "oe"),
        Attr::new("Keep_Files", "n"),
        Attr::new("init_work_dir", &dir.display().to_string()),
        Attr::new("Variable_List", vars),
    ]);
    v.extend(extra.iter().cloned());
    v
}

/// The job number of an id (`12[].vm` -> `12`).
fn seq(id: &str) -> &str {
    let end = id.find(|c: char| !c.is_ascii_digit()).unwrap_or(id.len());
    &id[..end]
}

/// Where pbs_server puts a job's output: `DIR/logs/NAME.oSEQ[-INDEX]`.
pub fn log_file(dir: &Path, name: &str, id: &str, index: Option<usize>) -> PathBuf {
    dir.join("logs").join(match index {
        Some(i) => format!("{name}.o{}-{i}", seq(id)),
        None => format!("{name}.o{}", seq(id)),
    })
}

fn hms(d: Duration) -> String {
    let s = d.as_secs();
    format!("{:02}:{:02}:{:02}", s / 3600, (s / 60) % 60, s % 60)
}

/// Writes the two scripts into `dir`, submits the array and the job that
/// gathers it, and with `--wait` waits for that one.
pub fn submit(dir: &Path, m: &Manifest, a: &SweepArgs) -> Result<String, String> {
    let opts = qsub_options(&a.submit_arg)?;
    let timeout = match a.wait_timeout.as_deref() {
        None => Duration::from_secs(24 * 3600),
        Some(s) => match mauisched::time::parse_duration(s) {
            Ok(Some(d)) if d > 0 => Duration::from_secs(d as u64),
            _ => {
                return Err(format!(
                    "--wait-timeout: expected [[DD:]HH:]MM:SS, got \"{s}\""
                ))
            }
        },
    };
    let ifl = Ifl::load(a.libtorque.as_deref())?;
    let exe = std::env::current_exe().map_err(|e| format!("mauictl's own path: {e}"))?;
    let logs = dir.join("logs");
    std::fs::create_dir_all(&logs).map_err(|e| format!("{}: {e}", logs.display()))?;
    let scripts = [
        (
            dir.join("pbs-point.sh"),
            point_script(&exe, dir, m.points()),
        ),
        (dir.join("pbs-gather.sh"), gather_script(&exe, dir)),
    ];
    for (p, text) in &scripts {
        use std::os::unix::fs::PermissionsExt;
        std::fs::write(p, text)
            .and_then(|_| std::fs::set_permissions(p, std::fs::Permissions::from_mode(0o755)))
            .map_err(|e| format!("{}: {e}", p.display()))?;
    }
    let host = crate::ifl::hostname();
    let vars = variable_list(&|n| std::env::var(n).ok(), dir, &host);
    let conn = ifl.connect(a.server.as_deref())?;
    let queue = opts.queue.as_deref();
    let array_attrs = job_attrs(
        ARRAY_NAME,
        Some(m.points()),
        None,
        dir,
        &host,
        &vars,
        &opts.attrs,
    );
    let array = conn
        .submit(&array_attrs, &scripts[0].0, queue)
        .map_err(|e| {
            format!(
                "the job array of {} points was not submitted to {} (through {}): {e}",
                m.points(),
                conn.server(),
                ifl.path()
            )
        })?;
    let depend = format!("afteranyarray:{array}");
    let gather_attrs = job_attrs(
        GATHER_NAME,
        None,
        Some(&depend),
        dir,
        &host,
        &vars,
        &opts.attrs,
    );
    let gather = conn
        .submit(&gather_attrs, &scripts[1].0, queue)
        .map_err(|e| {
            format!(
                "job array {array} ({} points) was submitted, but not the job that gathers it: {e}; \
                 once the array has ended, `mauictl sweep-gather {}` gathers it",
                m.points(),
                dir.display()
            )
        })?;
    let mut out = format!(
        "submitted {} points as Torque job array {array}, gathered by job {gather} \
         ({depend}); logs in {}/ ({ARRAY_NAME}.o{}-N), results in {}\n",
        m.points(),
        logs.display(),
        seq(&array),
        dir.display()
    );
    if !a.wait {
        out.push_str(&format!("then {}/report.html\n", dir.display()));
        return Ok(out);
    }
    drop(conn);
    let waited =
        wait(&ifl, a, m, &array, &gather, timeout, dir).map_err(|e| format!("{out}{e}"))?;
    let g = sweep::gather(dir, m).map_err(|e| format!("{out}{waited}{e}"))?;
    out.push_str(&waited);
    out.push_str(&sweep::ranking_text(m, &g, a.top));
    Ok(out)
}

/// What the array's jobs are: done (and which failed, by index) of all.
struct Progress {
    done: usize,
    failed: Vec<usize>,
}

fn array_progress(conn: &Conn, array: &str, points: usize) -> Result<Progress, IflError> {
    match conn.statjob(array, &["job_state", "exit_status", "job_array_id"]) {
        Ok(jobs) => {
            let mut p = Progress {
                done: 0,
                failed: Vec::new(),
            };
            let listed = jobs.len();
            for j in &jobs {
                if j.get("job_state") == Some("C") {
                    p.done += 1;
                    if j.get("exit_status").is_some_and(|e| e.trim() != "0") {
                        p.failed.extend(
                            j.get("job_array_id")
                                .and_then(|i| i.trim().parse::<usize>().ok()),
                        );
                    }
                }
            }
            // jobs no longer listed have completed and been purged (or
            // pbs_server has not cloned them yet: only the bar counts
            // this, the wait ends with the gathering job)
            p.done += points.saturating_sub(listed);
            Ok(p)
        }
        // all purged: the array is gone
        Err(e) if e.code == PBSE_UNKARRAYID => Ok(Progress {
            done: points,
            failed: Vec::new(),
        }),
        Err(e) => Err(e),
    }
}

/// The gathering job's state: `None` while it has not ended, else its
/// exit status (`None` inside when unknown: purged).
fn gather_state(conn: &Conn, gather: &str) -> Result<(String, Option<Option<String>>), IflError> {
    match conn.statjob(gather, &["job_state", "exit_status"]) {
        Ok(v) => {
            let s: Option<&Status> = v.first();
            let state = s
                .and_then(|s| s.get("job_state"))
                .unwrap_or("?")
                .to_string();
            let exit = s.and_then(|s| s.get("exit_status")).map(String::from);
            let ended = state == "C";
            Ok((state, ended.then_some(exit)))
        }
        Err(e) if e.code == PBSE_UNKJOBID => Ok(("gone".into(), Some(None))),
        Err(e) => Err(e),
    }
}

/// Polls until the gathering job has ended: every second while the array
/// moves, backing off to 30 s while nothing does; reconnects when the
/// server or the connection goes away, and gives up when it has had no
/// answer for 5 minutes. Returns the line saying how long it waited.
fn wait(
    ifl: &Ifl,
    a: &SweepArgs,
    m: &Manifest,
    array: &str,
    gather: &str,
    timeout: Duration,
    dir: &Path,
) -> Result<String, String> {
    let start = Instant::now();
    let bar = crate::jobs_bar(m.points() as u64, a.quiet);
    bar.set_message("points");
    let mut conn: Option<Conn> = None;
    let mut interval = Duration::from_secs(1);
    let mut last_done = usize::MAX;
    let mut failed: Vec<usize> = Vec::new();
    let mut last_error = String::new();
    let mut state = String::from("unknown");
    let mut answered = Instant::now();
    let silence = Duration::from_secs(300);
    loop {
        if conn.is_none() {
            match ifl.connect(a.server.as_deref()) {
                Ok(c) => conn = Some(c),
                Err(e) => last_error = e,
            }
        }
        if let Some(c) = &conn {
            let polled = array_progress(c, array, m.points())
                .and_then(|p| gather_state(c, gather).map(|g| (p, g)));
            match polled {
                Ok((p, (st, ended))) => {
                    answered = Instant::now();
                    state = st;
                    for i in p.failed {
                        if !failed.contains(&i) {
                            failed.push(i);
                        }
                    }
                    bar.set_position(p.done as u64);
                    if p.done != last_done {
                        last_done = p.done;
                        interval = Duration::from_secs(1);
                    }
                    if let Some(exit) = ended {
                        bar.finish_and_clear();
                        let mut text = format!(
                            "waited {} for the array and the gathering job\n",
                            hms(start.elapsed())
                        );
                        failed.sort_unstable();
                        for i in &failed {
                            text.push_str(&format!(
                                "point {i} failed: see {}\n",
                                log_file(dir, ARRAY_NAME, array, Some(*i)).display()
                            ));
                        }
                        if let Some(x) = exit.filter(|x| x.trim() != "0") {
                            text.push_str(&format!(
                                "the gathering job {gather} exited with status {x}: see {}\n",
                                log_file(dir, GATHER_NAME, gather, None).display()
                            ));
                        }
                        return Ok(text);
                    }
                }
                Err(e) => {
                    // the server went away, or the connection did: again
                    last_error = e.to_string();
                    conn = None;
                }
            }
        }
        let timed_out = start.elapsed() >= timeout;
        if timed_out || answered.elapsed() >= silence {
            bar.finish_and_clear();
            return Err(format!(
                "gave up waiting after {} ({}): {} of {} points done, the gathering job \
                 {gather} in state {state}{}; the jobs stay queued, and once they have run \
                 `mauictl sweep-gather {}` gathers them (logs in {}/)",
                hms(start.elapsed()),
                if timed_out {
                    "--wait-timeout".to_string()
                } else {
                    format!("no answer from pbs_server for {}", hms(silence))
                },
                if last_done == usize::MAX {
                    0
                } else {
                    last_done
                },
                m.points(),
                if last_error.is_empty() {
                    String::new()
                } else {
                    format!(" (last error: {last_error})")
                },
                dir.display(),
                dir.join("logs").display()
            ));
        }
        std::thread::sleep(interval.min(timeout.saturating_sub(start.elapsed())));
        interval = (interval * 3 / 2).min(Duration::from_secs(30));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn qsub_options_map_to_attributes_as_qsub_sets_them() {
        let o = qsub_options(&args(&[
            "-q short",
            "-lwalltime=00:30:00,mem=2gb",
            "-l",
            "nodes=1:ppn=2",
            "-A proj",
            "-W group_list=hpc",
            "-p 10",
        ]))
        .unwrap();
        assert_eq!(o.queue.as_deref(), Some("short"));
        let res = |r: &str, v: &str| Attr {
            name: "Resource_List".into(),
            resource: Some(r.into()),
            value: v.into(),
        };
        assert_eq!(
            o.attrs,
            vec![
                res("walltime", "00:30:00"),
                res("mem", "2gb"),
                res("nodes", "1:ppn=2"),
                Attr::new("Account_Name", "proj"),
                Attr::new("group_list", "hpc"),
                Attr::new("Priority", "10"),
            ]
        );
    }

    #[test]
    fn qsub_options_refuse_what_mauictl_sets_and_what_it_does_not_map() {
        for (a, says) in [
            (&["--partition=short"][..], "a qsub option"),
            (&["-N x"][..], "names"),
            (&["-t 0-3"][..], "array request"),
            (&["-o /tmp"][..], "output files"),
            (&["-W depend=afterok:1"][..], "dependency"),
            (&["-V"][..], "not mapped"),
            (&["-l"][..], "needs a value"),
            (&["-l walltime"][..], "RESOURCE=VALUE"),
        ] {
            let e = qsub_options(&args(a)).unwrap_err();
            assert!(e.contains(says), "{a:?}: {e}");
        }
    }

    #[test]
    fn jobs_write_their_output_where_torque_names_it() {
        let dir = Path::new("/shared/sw");
        let v = job_attrs(ARRAY_NAME, Some(9), None, dir, "h1", "V=1", &[]);
        assert!(v.contains(&Attr::new("job_array_request", "0-8")));
        assert!(v.contains(&Attr::new("Output_Path", "h1:/shared/sw/logs/")));
        assert!(v.contains(&Attr::new("Join_Path", "oe")));
        assert_eq!(
            log_file(dir, ARRAY_NAME, "12[].vm", Some(3)),
            Path::new("/shared/sw/logs/mauictl-sweep.o12-3")
        );
        assert_eq!(
            log_file(dir, GATHER_NAME, "13.vm", None),
            Path::new("/shared/sw/logs/mauictl-sweep-gather.o13")
        );
        let g = job_attrs(
            GATHER_NAME,
            None,
            Some("afteranyarray:12[].vm"),
            dir,
            "h1",
            "",
            &[],
        );
        assert!(g.contains(&Attr::new("depend", "afteranyarray:12[].vm")));
        assert!(!g.iter().any(|a| a.name == "job_array_request"));
    }

    #[test]
    fn scripts_run_mauictl_on_the_directory_quoted() {
        let s = point_script(Path::new("/usr/bin/mauictl"), Path::new("/x/it's"), 9);
        assert!(s.starts_with("#!/bin/sh\n"));
        assert!(s.ends_with("exec '/usr/bin/mauictl' sweep-point '/x/it'\\''s' \"$PBS_ARRAYID\"\n"));
        assert!(s.contains("qsub -t 0-8"));
        let g = gather_script(Path::new("/usr/bin/mauictl"), Path::new("/x/d"));
        assert!(g.ends_with("exec '/usr/bin/mauictl' sweep-gather '/x/d'\n"));
    }

    #[test]
    fn the_variable_list_escapes_commas() {
        let env = |n: &str| match n {
            "HOME" => Some("/home/a".to_string()),
            "PATH" => Some("/bin,/usr/bin".to_string()),
            _ => None,
        };
        assert_eq!(
            variable_list(&env, Path::new("/w"), "h"),
            "PBS_O_HOME=/home/a,PBS_O_PATH=/bin\\,/usr/bin,PBS_O_WORKDIR=/w,PBS_O_HOST=h"
        );
    }
}
