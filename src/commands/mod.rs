//! Operator commands over an engine's last iteration: the one dispatcher
//! behind `mauisched_render`, the admin socket and `mauictl`'s offline
//! forms. Every command renders as Maui's text layout or as JSON.
//!
//! Commands and arguments, as Maui spells them:
//!
//! ```text
//! showq [-r|-i|-b] [-p PARTITION] [-w user=|group=|acct=|class=|qos=NAME] [-u USER]
//! checkjob [-v] JOBID
//! showstart JOBID
//! showbf [-d DURATION] [-p PARTITION] [-n NODES]
//! showres [-n] [RESID]
//! checknode NODE
//! diagnose -p | -f | -r [RESID] | -j [JOBID] | -n [NODE] | -q
//! showconfig
//! ```
//!
//! A [`Viewer`] says who asks: without ADMIN3 a user sees only their own
//! jobs with checkjob and no reservation ACLs; the admin socket decides the
//! rest (which commands a level may run).

/// What Maui prints for an empty list or an unset value.
pub(crate) const NONE: &str = "[NONE]";

pub mod creds;
pub mod render;
pub mod showres;
pub mod spec;

/// What `mauictl` draws from files without a running engine: `diagnose -p`
/// and `-f` over a snapshot and the fairshare files, `showres` over a
/// snapshot and an admin reservation store.
pub mod offline {
    pub use crate::fairshare::{diagnose_f_report, render_diagnose_f, Fairshare};
    pub use crate::priority::{diagnose_p_json, diagnose_p_rows, render_diagnose_p};
    pub use crate::profile::Profile;
    pub use crate::reservation::{view, AdminRequest, AdminStore, RmOrder};
}

use crate::config::Config;
use crate::engine::{Engine, LastIteration, StopInfo};
use crate::fairshare::Fairshare;
use crate::model::CredKind;
use render::{ShowbfOpts, ShowqMode, ShowqOpts};
use serde_json::Value;

/// Why a command produced no output.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CommandError {
    /// No such command.
    #[error("unknown command \"{0}\" (known: {known})", known = COMMANDS.join(", "))]
    Unknown(String),
    /// The arguments are wrong.
    #[error("{0}")]
    Usage(String),
    /// The job, node or reservation named does not exist.
    #[error("{0}")]
    NotFound(String),
    /// The command reads an iteration and none has run yet.
    #[error("{0}: no scheduling iteration has run yet")]
    NoIteration(String),
    /// The viewer may not see this (another user's job).
    #[error("{0}")]
    Denied(String),
}

/// The commands [`execute`] knows.
pub const COMMANDS: [&str; 10] = [
    "showq",
    "showhold",
    "showstate",
    "checkjob",
    "showstart",
    "showbf",
    "showres",
    "checknode",
    "diagnose",
    "showconfig",
];

/// Who asks, for what a command shows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Viewer {
    /// User name.
    pub user: String,
    /// ADMIN3 or above: every job, reservation ACLs.
    pub admin: bool,
}

/// What a command renders from.
#[derive(Clone, Copy)]
pub struct Context<'a> {
    /// The configuration in force.
    pub cfg: &'a Config,
    /// The last completed iteration, if any.
    pub last: Option<&'a LastIteration>,
    /// Fairshare usage (diagnose -f).
    pub fairshare: &'a Fairshare,
    /// Scheduling stopped by an operator, as of now.
    pub stopped: Option<&'a StopInfo>,
    /// Who asks; `None` shows everything (local callers: the ABI, mauictl
    /// on a snapshot).
    pub viewer: Option<&'a Viewer>,
}

impl<'a> Context<'a> {
    /// Everything an engine knows, for a local caller.
    pub fn of(engine: &'a Engine) -> Context<'a> {
        Context {
            cfg: &engine.cfg,
            last: engine.last.as_deref(),
            fairshare: &engine.state.fairshare,
            stopped: engine.state.stopped.as_ref(),
            viewer: None,
        }
    }

    fn is_admin(&self) -> bool {
        self.viewer.is_none_or(|v| v.admin)
    }
}

/// A command's result: Maui's text or JSON.
#[derive(Clone, Debug, PartialEq)]
pub enum Output {
    /// Text in Maui's layout.
    Text(String),
    /// JSON for scripts.
    Json(Value),
}

impl Output {
    /// The output as text (JSON pretty-printed, with a final newline).
    pub fn into_text(self) -> String {
        match self {
            Output::Text(t) => t,
            Output::Json(v) => {
                format!("{}\n", serde_json::to_string_pretty(&v).unwrap_or_default())
            }
        }
    }
}

/// Maui's synopsis of a command.
pub fn synopsis(cmd: &str) -> &'static str {
    match cmd {
        "showq" => "showq [-r|-i|-b] [-p PARTITION] [-w user=|group=|acct=|class=|qos=NAME]",
        "checkjob" => "checkjob [-v] JOBID",
        "showstart" => "showstart JOBID",
        "showbf" => "showbf [-d DURATION] [-p PARTITION] [-n NODES]",
        "showres" => "showres [-n] [RESID]",
        "checknode" => "checknode NODE",
        "showconfig" => "showconfig",
        "showhold" => "showhold",
        "showstate" => "showstate",
        _ => "diagnose -p | -f | -r [RESID] | -j [JOBID] | -n [NODE] | -q",
    }
}

fn usage(cmd: &str, what: impl std::fmt::Display) -> CommandError {
    CommandError::Usage(format!("{cmd}: {what} (usage: {})", synopsis(cmd)))
}

/// Renders `command` with `args` as text from the engine's last iteration
/// (no viewer restrictions).
pub fn run(engine: &Engine, command: &str, args: &[&str]) -> Result<String, CommandError> {
    execute(&Context::of(engine), command, args, false).map(Output::into_text)
}

/// At most one positional argument (an id), with the flags `allowed`.
fn one_id<'a>(
    cmd: &str,
    args: &[&'a str],
    allowed: &[&str],
) -> Result<(Vec<&'a str>, Option<&'a str>), CommandError> {
    let mut flags = Vec::new();
    let mut id = None;
    for a in args {
        match *a {
            f if allowed.contains(&f) => flags.push(f),
            s if s.starts_with('-') && s.len() > 1 => {
                return Err(usage(cmd, format!("unknown option \"{s}\"")))
            }
            s if id.is_none() => id = Some(s),
            s => return Err(usage(cmd, format!("unexpected argument \"{s}\""))),
        }
    }
    Ok((flags, id))
}

fn showq_opts(args: &[&str]) -> Result<ShowqOpts, CommandError> {
    let cmd = "showq";
    let mut o = ShowqOpts::default();
    let mut it = args.iter();
    let set_mode = |o: &mut ShowqOpts, m: ShowqMode| {
        if o.mode != ShowqMode::All && o.mode != m {
            return Err(usage(cmd, "give at most one of -r, -i and -b"));
        }
        o.mode = m;
        Ok(())
    };
    while let Some(a) = it.next() {
        let mut value = || {
            it.next()
                .copied()
                .ok_or_else(|| usage(cmd, format!("{a} needs a value")))
        };
        match *a {
            "-r" => set_mode(&mut o, ShowqMode::Running)?,
            "-i" => set_mode(&mut o, ShowqMode::Idle)?,
            "-b" => set_mode(&mut o, ShowqMode::Blocked)?,
            // Maui's -v adds a start priority column to -r; mauisched
            // keeps no start priority of a running job.
            "-v" => {}
            "-p" => o.partition = Some(value()?.to_string()).filter(|p| p != "ALL"),
            "-u" => o.filter = Some((CredKind::User, value()?.to_string())),
            "-w" => {
                let v = value()?;
                let (k, name) = v
                    .split_once('=')
                    .filter(|(_, n)| !n.is_empty())
                    .ok_or_else(|| usage(cmd, format!("-w {v}: expected <TYPE>=<NAME>")))?;
                let kind = match k.to_ascii_lowercase().as_str() {
                    "user" => CredKind::User,
                    "group" => CredKind::Group,
                    "acct" | "account" => CredKind::Account,
                    "class" | "queue" => CredKind::Class,
                    "qos" => CredKind::Qos,
                    _ => {
                        return Err(usage(
                            cmd,
                            format!("-w {v}: the type is one of user, group, acct, class, qos"),
                        ))
                    }
                };
                o.filter = Some((kind, name.to_string()));
            }
            s => return Err(usage(cmd, format!("unknown argument \"{s}\""))),
        }
    }
    Ok(o)
}

fn showbf_opts(args: &[&str]) -> Result<ShowbfOpts, CommandError> {
    let cmd = "showbf";
    let mut opts = ShowbfOpts::default();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut value = || {
            it.next()
                .copied()
                .ok_or_else(|| usage(cmd, format!("{a} needs a value")))
        };
        if let Some(kind) = cred_flag(a) {
            let v = value()?.to_string();
            opts.creds.retain(|(k, _)| *k != kind);
            if v != "ALL" {
                opts.creds.push((kind, v));
            }
            continue;
        }
        match *a {
            "-d" => {
                let v = value()?;
                opts.duration = crate::model::time::parse_duration(v)
                    .map_err(|e| usage(cmd, format!("-d {v}: {e}")))?;
            }
            "-p" => opts.partition = Some(value()?.to_string()).filter(|p| p != "ALL"),
            // -A: every user, group and account (the default here); -v
            // changes nothing in the windows.
            "-A" => opts.creds.clear(),
            "-v" => {}
            "-f" => {
                let v = value()?;
                opts.features = v
                    .split([':', ','])
                    .filter(|f| !f.is_empty())
                    .map(str::to_string)
                    .collect();
            }
            "-m" => {
                let v = value()?;
                let (cmp, mb) = match v.find(|c: char| c.is_ascii_digit()) {
                    Some(i) => (&v[..i], &v[i..]),
                    None => (v, ""),
                };
                let cmp = match cmp {
                    "" | ">=" => crate::model::Cmp::Ge,
                    "==" | "=" => crate::model::Cmp::Eq,
                    ">" => crate::model::Cmp::Gt,
                    "<=" => crate::model::Cmp::Le,
                    "<" => crate::model::Cmp::Lt,
                    _ => return Err(usage(cmd, format!("-m {v}: expected [==|>=|>|<=|<]MB"))),
                };
                let mb: u64 = mb
                    .parse()
                    .map_err(|_| usage(cmd, format!("-m {v}: expected [==|>=|>|<=|<]MB")))?;
                opts.memory = Some((cmp, mb));
            }
            "-r" => {
                let v = value()?;
                opts.procs = Some(
                    v.parse()
                        .map_err(|_| usage(cmd, format!("-r {v}: not a processor count")))?,
                );
            }
            "-n" => {
                let v = value()?;
                opts.nodes = Some(
                    v.parse()
                        .map_err(|_| usage(cmd, format!("-n {v}: not a node count")))?,
                );
            }
            s => return Err(usage(cmd, format!("unknown argument \"{s}\""))),
        }
    }
    Ok(opts)
}

/// The credential Maui's `-u`, `-g`, `-a`, `-c` and `-q` name (showbf,
/// showstats; diagnose, whose `-q` is the queue, asks `-Q` for QOS).
pub(crate) fn cred_flag(flag: &str) -> Option<CredKind> {
    Some(match flag {
        "-u" => CredKind::User,
        "-g" => CredKind::Group,
        "-a" => CredKind::Account,
        "-c" => CredKind::Class,
        "-q" => CredKind::Qos,
        _ => return None,
    })
}

/// Refuses `-p NAME` when no node is in partition NAME and no job asks
/// for it (Maui's `ALL` means every partition).
fn known_partition(
    cmd: &str,
    last: &LastIteration,
    name: Option<&str>,
) -> Result<(), CommandError> {
    let Some(p) = name.filter(|p| *p != "ALL") else {
        return Ok(());
    };
    let mut names: Vec<&str> = last
        .view
        .cluster
        .partition_names
        .iter()
        .map(String::as_str)
        .chain(last.jobs.iter().filter_map(|j| j.partition.as_deref()))
        .collect();
    names.sort_unstable();
    names.dedup();
    if names.contains(&p) {
        return Ok(());
    }
    Err(CommandError::NotFound(format!(
        "{cmd} -p {p}: no partition \"{p}\" ({})",
        if names.is_empty() {
            "no node is in a partition: leave -p out".to_string()
        } else {
            format!("partitions: ALL, {}", names.join(", "))
        }
    )))
}

/// A job id as the user typed it, made the RM's: Torque's `5104` is
/// `5104.head` when exactly one job's id has `5104` before its first dot,
/// as Maui matches it. Several such jobs are refused by name; an id that
/// matches nothing is left for the command to report.
pub fn resolve_job_id<'a>(
    ids: impl Iterator<Item = &'a str>,
    typed: &str,
) -> Result<String, String> {
    let mut found: Vec<&str> = Vec::new();
    for id in ids {
        if id == typed {
            return Ok(typed.to_string());
        }
        if !typed.contains('.') && id.split('.').next() == Some(typed) {
            found.push(id);
        }
    }
    match found.as_slice() {
        [one] => Ok(one.to_string()),
        [] => Ok(typed.to_string()),
        many => Err(format!(
            "job id \"{typed}\" is ambiguous: it names {}; give the full id",
            many.join(", ")
        )),
    }
}

/// Renders `command` with `args` (Maui's syntax) as text or JSON. Times
/// in JSON are epoch seconds, each with its local ISO 8601 form beside it
/// ([`with_local_times`]).
pub fn execute(
    ctx: &Context,
    command: &str,
    args: &[&str],
    json: bool,
) -> Result<Output, CommandError> {
    Ok(match execute_raw(ctx, command, args, json)? {
        Output::Json(mut v) => {
            with_local_times(&mut v, &ctx.cfg.zone);
            Output::Json(v)
        }
        text => text,
    })
}

/// The JSON keys whose integer values are epoch times.
const TIME_KEYS: &[&str] = &[
    "now",
    "start",
    "end",
    "at",
    "start_time",
    "started_at",
    "submit_time",
    "estimated_start",
    "earliest_start",
    "system_queue_time",
    "start_date",
    "end_date",
    "saved_at",
    "last_iteration",
    "created",
    "completion",
    "event_time",
    "last_update",
];

/// Adds beside every epoch time in `v` (keys of [`TIME_KEYS`], at any
/// depth) its local ISO 8601 form with the offset, as `<key>_iso`
/// (`"start": 1764148689, "start_iso": "2026-11-26T03:18:09-06:00"`), and
/// names the zone at the top (`"time_zone": "America/Chicago"`). Values
/// that are not times (null, an object) are left alone.
pub fn with_local_times(v: &mut Value, zone: &crate::model::time::Zone) {
    fn walk(v: &mut Value, zone: &crate::model::time::Zone) {
        match v {
            Value::Object(m) => {
                let add: Vec<(String, String)> = m
                    .iter()
                    .filter(|(k, _)| TIME_KEYS.contains(&k.as_str()))
                    .filter_map(|(k, x)| x.as_i64().map(|t| (k, t)))
                    // Far-future sentinels (no end) have no date.
                    .filter(|(_, t)| (-62_135_596_800..253_402_300_800).contains(t))
                    .map(|(k, t)| (format!("{k}_iso"), zone.iso(t)))
                    .collect();
                for x in m.values_mut() {
                    walk(x, zone);
                }
                for (k, s) in add {
                    m.insert(k, Value::String(s));
                }
            }
            Value::Array(a) => a.iter_mut().for_each(|x| walk(x, zone)),
            _ => {}
        }
    }
    walk(v, zone);
    if let Value::Object(m) = v {
        m.insert("time_zone".into(), Value::String(zone.name().to_string()));
    }
}

fn execute_raw(
    ctx: &Context,
    command: &str,
    args: &[&str],
    json: bool,
) -> Result<Output, CommandError> {
    if !COMMANDS.contains(&command) {
        return Err(CommandError::Unknown(command.to_string()));
    }
    let cfg = ctx.cfg;
    let last = || {
        ctx.last
            .ok_or_else(|| CommandError::NoIteration(command.to_string()))
    };
    let out = |text: String, v: Value| {
        if json {
            Output::Json(v)
        } else {
            Output::Text(text)
        }
    };
    let found = |r: Result<String, String>| r.map_err(CommandError::NotFound);
    let found_json = |r: Result<Value, String>| r.map_err(CommandError::NotFound);
    match command {
        "showq" => {
            let o = showq_opts(args)?;
            let last = last()?;
            known_partition(command, last, o.partition.as_deref())?;
            Ok(if json {
                Output::Json(render::showq_json(cfg, last, &o, ctx.stopped))
            } else {
                Output::Text(render::showq(cfg, last, &o, ctx.stopped))
            })
        }
        "checkjob" | "showstart" => {
            // checkjob's -n NODE and -r RESID[,RESID]: taken out first.
            let mut node = None;
            let mut res: Vec<String> = Vec::new();
            let mut rest: Vec<&str> = Vec::new();
            let mut it = args.iter();
            while let Some(a) = it.next() {
                match *a {
                    "-n" | "-r" if command == "checkjob" => {
                        let v = it
                            .next()
                            .ok_or_else(|| usage(command, format!("{a} needs a value")))?;
                        if *a == "-n" {
                            node = Some(*v);
                        } else {
                            res.extend(v.split(',').filter(|r| !r.is_empty()).map(String::from));
                        }
                    }
                    // -A: attribute-value pairs; --json gives them.
                    "-A" if command == "checkjob" => {}
                    x => rest.push(x),
                }
            }
            let args = &rest[..];
            let allowed: &[&str] = if command == "checkjob" { &["-v"] } else { &[] };
            let (flags, id) = one_id(command, args, allowed)?;
            let id = id.ok_or_else(|| usage(command, "a job id is needed"))?;
            let last = last()?;
            if command == "checkjob" {
                if let Some(v) = ctx.viewer.filter(|v| !v.admin) {
                    if let Some(j) = last.jobs.iter().find(|j| j.id == id) {
                        if j.user != v.user {
                            return Err(CommandError::Denied(format!(
                                "checkjob {id}: the job belongs to {}; checking other users' jobs needs ADMIN3 (you are {})",
                                j.user, v.user
                            )));
                        }
                    }
                }
                if let Some(n) = node {
                    if last.view.cluster.index(n).is_none() {
                        return Err(CommandError::NotFound(format!(
                            "checkjob -n {n}: no node \"{n}\""
                        )));
                    }
                }
                let job = last.jobs.iter().find(|j| j.id == id);
                if json {
                    let mut v = found_json(render::checkjob_json(cfg, last, id))?;
                    if let (Some(job), false) = (job, res.is_empty()) {
                        let (_, access) = render::reservation_access(cfg, last, job, &res);
                        v["reservation_access"] = access
                            .into_iter()
                            .map(|(r, g)| serde_json::json!({"reservation": r, "granted": g}))
                            .collect();
                    }
                    return Ok(Output::Json(v));
                }
                let mut text = found(render::checkjob(cfg, last, id, flags.contains(&"-v")))?;
                if let Some(job) = job {
                    if let Some(n) = node {
                        text.push_str(&render::node_availability(cfg, last, job, Some(n)));
                    }
                    text.push_str(&render::reservation_access(cfg, last, job, &res).0);
                }
                if let Some(s) = ctx.stopped {
                    if last.jobs.iter().any(|j| j.id == id && !j.state.is_active()) {
                        text.push_str(&format!(
                            "NOTE:  scheduling is stopped (schedctl -s by {}): the job is not started until schedctl -r\n",
                            s.by
                        ));
                    }
                }
                Ok(Output::Text(text))
            } else if json {
                Ok(Output::Json(found_json(render::showstart_json(
                    cfg, last, id,
                ))?))
            } else {
                Ok(Output::Text(found(render::showstart(cfg, last, id))?))
            }
        }
        "showbf" => {
            let opts = showbf_opts(args)?;
            let last = last()?;
            known_partition(command, last, opts.partition.as_deref())?;
            Ok(out(
                render::showbf(last, &opts),
                render::showbf_json(last, &opts),
            ))
        }
        "showres" => {
            // -p PARTITION: taken out first.
            let mut part = None;
            let mut rest: Vec<&str> = Vec::new();
            let mut it = args.iter();
            while let Some(a) = it.next() {
                if *a == "-p" {
                    part = Some(
                        *it.next()
                            .ok_or_else(|| usage(command, "-p needs a value"))?,
                    );
                } else {
                    rest.push(a);
                }
            }
            let (flags, id) = one_id(command, &rest, &["-n", "-g", "-r"])?;
            let last = last()?;
            known_partition(command, last, part)?;
            let mut table = showres::table(last);
            if let Some(p) = part.filter(|p| *p != "ALL") {
                let c = &last.view.cluster;
                table.retain(|r| {
                    r.claims
                        .iter()
                        .any(|k| c.nodes[k.node as usize].partition.as_deref() == Some(p))
                });
            }
            if let Some(i) = id {
                if !table.iter().any(|r| r.id == i) {
                    return Err(CommandError::NotFound(format!("no reservation \"{i}\"")));
                }
            }
            let now = last.plan.now;
            if json {
                let mut v = showres::showres_json(&table, &last.view.cluster, now, id);
                if !ctx.is_admin() {
                    // ACLs say who may use what: for administrators only.
                    if let Some(rows) = v["reservations"].as_array_mut() {
                        for r in rows {
                            if let Some(o) = r.as_object_mut() {
                                o.remove("acl");
                            }
                        }
                    }
                }
                return Ok(Output::Json(v));
            }
            Ok(Output::Text(if flags.contains(&"-n") {
                showres::showres_nodes(&table, &last.view.cluster, now, &last.zone, id)
            } else {
                showres::showres(&table, &last.view.cluster, now, &last.zone, id)
            }))
        }
        "checknode" => {
            let (flags, node) = one_id(command, args, &["-v", "-A"])?;
            let node = node.ok_or_else(|| usage(command, "a node name is needed"))?;
            let last = last()?;
            if json {
                Ok(Output::Json(found_json(render::checknode_json(
                    last, node,
                ))?))
            } else {
                Ok(Output::Text(found(render::checknode(
                    last,
                    node,
                    flags.contains(&"-v"),
                ))?))
            }
        }
        "showhold" | "showstate" => {
            if let Some(a) = args.first() {
                return Err(usage(command, format!("unexpected argument \"{a}\"")));
            }
            let last = last()?;
            Ok(match (command, json) {
                ("showhold", false) => Output::Text(creds::showhold(last)),
                ("showhold", true) => Output::Json(creds::showhold_json(last)),
                (_, false) => Output::Text(creds::showstate(cfg, last)),
                (_, true) => Output::Json(creds::showstate_json(last)),
            })
        }
        "showconfig" => {
            if let Some(a) = args.iter().find(|a| **a != "-v") {
                return Err(usage(command, format!("unexpected argument \"{a}\"")));
            }
            Ok(out(
                crate::config::render::showconfig(cfg),
                crate::config::render::showconfig_json(cfg),
            ))
        }
        _ => diagnose(ctx, args, json),
    }
}

fn diagnose(ctx: &Context, args: &[&str], json: bool) -> Result<Output, CommandError> {
    let cmd = "diagnose";
    let cfg = ctx.cfg;
    // One mode flag, -v anywhere, and at most one operand (the id).
    let mut mode = None;
    let mut verbose = false;
    let mut id = None;
    for a in args {
        match *a {
            "-v" => verbose = true,
            m if m.starts_with('-') && m.len() > 1 => {
                if let Some(first) = mode.replace(m) {
                    return Err(usage(cmd, format!("give one of {first} and {m}")));
                }
            }
            x if id.is_none() => id = Some(x),
            x => return Err(usage(cmd, format!("unexpected argument \"{x}\""))),
        }
    }
    let Some(mode) = mode else {
        return Err(usage(
            cmd,
            "one of -a, -c, -f, -g, -j, -n, -p, -q, -Q, -r, -t or -u is needed",
        ));
    };
    if id.is_some() && matches!(mode, "-p" | "-f" | "-q") {
        return Err(usage(
            cmd,
            format!(
                "{mode} takes no id (unexpected \"{}\")",
                id.unwrap_or_default()
            ),
        ));
    }
    // diagnose's -q is the queue; its QOS view is -Q.
    if let Some(kind) = cred_flag(mode).filter(|_| mode != "-q") {
        return Ok(if json {
            Output::Json(
                creds::diagnose_cred_json(cfg, ctx.last, kind, id)
                    .map_err(CommandError::NotFound)?,
            )
        } else {
            Output::Text(
                creds::diagnose_cred(cfg, ctx.last, kind, id, verbose)
                    .map_err(CommandError::NotFound)?,
            )
        });
    }
    let last = || {
        ctx.last
            .ok_or_else(|| CommandError::NoIteration(cmd.to_string()))
    };
    let nf = |r: Result<String, String>| r.map_err(CommandError::NotFound);
    let nfj = |r: Result<Value, String>| r.map_err(CommandError::NotFound);
    Ok(match mode {
        "-p" => {
            let last = last()?;
            // diagnose -p lists the jobs that are considered: no hold,
            // dependency met, begin time reached.
            let mut rows = last.priority_breakdowns(|j| {
                !matches!(
                    j.reason,
                    Some(crate::engine::Reason::Hold { .. })
                        | Some(crate::engine::Reason::Dependency)
                        | Some(crate::engine::Reason::BeginTime { .. })
                )
            });
            rows.sort_by(|a, b| b.priority.cmp(&a.priority).then_with(|| a.job.cmp(&b.job)));
            if json {
                Output::Json(crate::priority::diagnose_p_json(cfg, &rows))
            } else {
                Output::Text(crate::priority::render_diagnose_p(cfg, &rows))
            }
        }
        "-f" => {
            if json {
                Output::Json(
                    serde_json::to_value(crate::fairshare::diagnose_f_report(cfg, ctx.fairshare))
                        .unwrap_or_default(),
                )
            } else {
                Output::Text(crate::fairshare::render_diagnose_f(cfg, ctx.fairshare))
            }
        }
        "-r" => {
            let last = last()?;
            if json {
                let table = showres::table(last);
                if let Some(i) = id {
                    if !table.iter().any(|r| r.id == i) {
                        return Err(CommandError::NotFound(format!("no reservation \"{i}\"")));
                    }
                }
                Output::Json(showres::showres_json(
                    &table,
                    &last.view.cluster,
                    last.plan.now,
                    id,
                ))
            } else {
                Output::Text(nf(render::diagnose_r(last, id))?)
            }
        }
        "-j" => {
            let last = last()?;
            if json {
                Output::Json(nfj(render::diagnose_j_json(cfg, last, id))?)
            } else {
                Output::Text(nf(render::diagnose_j(cfg, last, id))?)
            }
        }
        "-n" => {
            let last = last()?;
            if json {
                Output::Json(nfj(render::diagnose_n_json(last, id))?)
            } else {
                Output::Text(nf(render::diagnose_n(last, id))?)
            }
        }
        "-q" => {
            let last = last()?;
            if json {
                Output::Json(render::diagnose_q_json(last))
            } else {
                Output::Text(render::diagnose_q(last))
            }
        }
        "-Q" => {
            if json {
                Output::Json(
                    creds::diagnose_cred_json(cfg, ctx.last, CredKind::Qos, id)
                        .map_err(CommandError::NotFound)?,
                )
            } else {
                Output::Text(
                    creds::diagnose_qos(cfg, ctx.last, id).map_err(CommandError::NotFound)?,
                )
            }
        }
        "-t" => {
            let last = last()?;
            known_partition(cmd, last, id)?;
            if json {
                Output::Json(creds::diagnose_t_json(last))
            } else {
                Output::Text(creds::diagnose_t(last))
            }
        }
        m => return Err(usage(cmd, format!("unknown option \"{m}\""))),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::StopInfo;
    use crate::model::{HoldKind, Job, JobState, Node, NodeTasks, Resources, Snapshot};

    const H: i64 = 3600;

    fn job(id: &str, user: &str, tasks: u32, wall: i64, submit: i64) -> Job {
        Job {
            id: id.into(),
            user: user.into(),
            group: "g".into(),
            tasks,
            task: Resources::procs(1),
            walltime: Some(wall),
            submit_time: submit,
            ..Job::default()
        }
    }

    /// checkjob says who preempts a job and how, and later who preempted
    /// it; the preemptor's start names the jobs it waits for; a preemptor
    /// that cannot preempt says why; showstats counts preemptions.
    #[test]
    fn preemption_shows_in_checkjob_and_showstats() {
        let cfg = Config::parse(
            "QOSWEIGHT 1\nQOSCFG[high] QFLAGS=PREEMPTOR PRIORITY=1000\nQOSCFG[low] QFLAGS=PREEMPTEE\n",
            "t.cfg",
        )
        .config;
        let node = Node {
            name: "n1".into(),
            configured: Resources::procs(4),
            ..Node::default()
        };
        let mut low = job("L", "u", 4, 10 * H, -2 * H);
        low.qos = Some("low".into());
        low.state = JobState::Running;
        low.start_time = Some(-H);
        low.allocation = vec![NodeTasks {
            node: "n1".into(),
            tasks: 4,
        }];
        let mut high = job("X", "v", 4, H, -60);
        high.qos = Some("high".into());
        let mut big = job("Y", "v", 8, H, -60);
        big.qos = Some("high".into());
        // n2 runs a job of no PREEMPTEE QOS: Y (8 processors) cannot have it.
        let node2 = Node {
            name: "n2".into(),
            ..node.clone()
        };
        let mut other = job("M", "w", 4, 10 * H, -2 * H);
        other.state = JobState::Running;
        other.start_time = Some(-H);
        other.allocation = vec![NodeTasks {
            node: "n2".into(),
            tasks: 4,
        }];
        let mut s = Snapshot {
            now: None,
            nodes: vec![node, node2],
            jobs: vec![low, high, big, other],
            ..Snapshot::default()
        };
        s.normalize().unwrap();
        let mut e = Engine::new(cfg.clone());
        e.iterate(&s, 0);
        let last = e.last().unwrap();
        let out = render::checkjob(&cfg, last, "L", false).unwrap();
        assert!(
            out.contains("Preempting now (requeue) for job X\n"),
            "{out}"
        );
        assert!(
            out.contains("Preempted: 1 time(s), last by job X at "),
            "{out}"
        );
        assert!(
            out.contains("(requeue), 4.00 processor-hours of work lost\n"),
            "{out}"
        );
        let out = render::checkjob(&cfg, last, "X", false).unwrap();
        assert!(
            out.contains("Starting now (after preempting job L) on n1:4"),
            "{out}"
        );
        let out = render::checkjob(&cfg, last, "Y", false).unwrap();
        assert!(
            out.contains(
                "Preemption: not possible: no running PREEMPTEE job has a lower priority\n"
            ),
            "{out}"
        );
        let v = render::checkjob_json(&cfg, last, "L").unwrap();
        assert_eq!(v["preempting"]["by"], "X");
        assert_eq!(v["preempted"]["how"], "requeue");
        let mut st = crate::admin::stats::SchedStats::default();
        st.record(&cfg, &s.jobs, last);
        assert_eq!((st.preempted, st.preempted_ph), (1, 4.0));
        assert!(st
            .render(&last.zone)
            .contains("Preempted Jobs/ProcHours:           1/4.00\n"));
    }

    /// checknode shows configured, dedicated and available generic
    /// resources as Maui's resource lines do (`gpu: 4`), and says when the
    /// RM's count replaced NODECFG GRES; JSON gives them by name.
    #[test]
    fn checknode_shows_generic_resources() {
        let node = Node {
            name: "g1".into(),
            configured: Resources::procs(8),
            gres: crate::model::GresList::parse("gpu:4").unwrap(),
            ..Node::default()
        };
        let mut r = job("R", "u", 2, H, -H);
        r.gres_per_task = crate::model::GresList::parse("gpu:1").unwrap();
        r.state = JobState::Running;
        r.start_time = Some(-60);
        r.allocation = vec![NodeTasks {
            node: "g1".into(),
            tasks: 2,
        }];
        let mut s = Snapshot {
            now: None,
            nodes: vec![node],
            jobs: vec![r],
            ..Snapshot::default()
        };
        s.normalize().unwrap();
        let cfg = Config::parse("NODECFG[g1] GRES=gpu:8,tape:2\n", "t.cfg").config;
        let mut e = Engine::new(cfg);
        e.iterate(&s, 0);
        let last = e.last().unwrap();
        let out = render::checknode(last, "g1", false).unwrap();
        assert!(
            out.contains(
                "Configured Resources: PROCS: 8  MEM: 0M  SWAP: 0M  DISK: 0M  gpu: 4  tape: 2"
            ),
            "{out}"
        );
        assert!(
            out.contains("Dedicated  Resources: PROCS: 2  MEM: 0M  SWAP: 0M  DISK: 0M  gpu: 2"),
            "{out}"
        );
        assert!(out.contains("Available GRES: gpu:2,tape:2"), "{out}");
        assert!(
            out.contains("the RM reports gpu: 4, NODECFG GRES says 8"),
            "{out}"
        );
        let v = render::checknode_json(last, "g1").unwrap();
        assert_eq!(v["gres"]["available"]["gpu"], 2);
        assert_eq!(v["gres"]["rm_over_nodecfg"][0]["nodecfg"], 8);
    }

    /// The seed's A/B/C scenario (8.2.1) plus a held job H.
    fn engine() -> Engine {
        let mut s = abc();
        let mut held = job("H", "u4", 1, H, -H);
        held.holds = thin_vec::thin_vec![HoldKind::User];
        s.jobs.push(held);
        s.normalize().unwrap();
        let mut e = Engine::new(Config::default());
        e.iterate(&s, 0);
        e
    }

    /// Maui's showq layout, column for column.
    const SHOWQ: &str = "\
ACTIVE JOBS--------------------
JOBNAME            USERNAME      STATE  PROC   REMAINING            STARTTIME

C                        u3   Starting     1    02:00:00  Thu Jan  1 00:00:00
A                        u1    Running     1    03:00:00  Wed Dec 31 23:00:00

     2 Active Jobs       2 of    2 Processors Active (100.00%)
                         2 of    2 Nodes Active      (100.00%)

IDLE JOBS----------------------
JOBNAME            USERNAME      STATE  PROC     WCLIMIT            QUEUETIME

B                        u2       Idle     2    01:00:00  Wed Dec 31 23:30:00

1 Idle Job 

BLOCKED JOBS----------------
JOBNAME            USERNAME      STATE  PROC     WCLIMIT            QUEUETIME

H                        u4   UserHold     1    01:00:00  Wed Dec 31 23:00:00

Total Jobs: 4   Active Jobs: 2   Idle Jobs: 1   Blocked Jobs: 1
";

    #[test]
    fn showq_puts_each_job_in_its_section() {
        assert_eq!(run(&engine(), "showq", &[]).unwrap(), SHOWQ);
    }

    #[test]
    fn showq_options() {
        let e = engine();
        let r = run(&e, "showq", &["-r"]).unwrap();
        assert!(r.starts_with("ACTIVE JOBS"), "{r}");
        assert!(r.contains(" MHOST PROCS   REMAINING"), "{r}");
        let a = r.lines().find(|l| l.starts_with("A ")).unwrap();
        assert!(
            a.contains(" R ") && a.contains(" n1 ") && a.contains(" g "),
            "{a}"
        );
        assert!(
            r.contains("Total Jobs: 2\n") && !r.contains("IDLE JOBS"),
            "{r}"
        );
        let i = run(&e, "showq", &["-i"]).unwrap();
        // B holds a job reservation: Maui marks it with '*'.
        assert!(i.lines().any(|l| l.starts_with("B* ")), "{i}");
        assert!(
            i.contains("SYSTEMQUEUETIME") && i.contains("1 Idle Job "),
            "{i}"
        );
        let b = run(&e, "showq", &["-b"]).unwrap();
        assert!(b.lines().any(|l| l.starts_with("H ")) && b.contains("1 Blocked Job "));
        assert!(!b.contains("\nB "), "{b}");
        let w = run(&e, "showq", &["-w", "user=u2"]).unwrap();
        assert!(
            w.contains("Total Jobs: 1   Active Jobs: 0   Idle Jobs: 1   Blocked Jobs: 0"),
            "{w}"
        );
        let u = run(&e, "showq", &["-u", "u4"]).unwrap();
        assert!(
            u.contains("Blocked Jobs: 1") && u.contains("Total Jobs: 1 "),
            "{u}"
        );
        // Processor totals stay cluster-wide when filtering, as Maui's do.
        assert!(w.contains("2 of    2 Processors Active"), "{w}");
        for bad in [
            &["-r", "-i"][..],
            &["-w", "nobody"],
            &["-w", "color=red"],
            &["-x"],
        ] {
            assert!(
                matches!(run(&e, "showq", bad), Err(CommandError::Usage(_))),
                "{bad:?}"
            );
        }
        let ctx = Context::of(&e);
        let Output::Json(v) = execute(&ctx, "showq", &[], true).unwrap() else {
            panic!("json")
        };
        assert_eq!(v["eligible"][0]["job"], "B");
        assert_eq!(v["blocked"][0]["job"], "H");
        assert_eq!(v["blocked"][0]["reason"]["code"], "Hold");
        assert_eq!(v["active"].as_array().unwrap().len(), 2);
        assert_eq!(v["summary"]["busy_procs"], 2);
    }

    #[test]
    fn times_are_shown_in_the_sites_zone_and_json_carries_both_forms() {
        // The same jobs with the site in Chicago (by POSIX rule): showq's
        // times move six hours, JSON keeps the epoch and adds local ISO.
        let mut s = abc();
        let mut held = job("H", "u4", 1, H, -H);
        held.holds = thin_vec::thin_vec![HoldKind::User];
        s.jobs.push(held);
        s.normalize().unwrap();
        let cfg = Config {
            zone: crate::model::time::Zone::named("CST6CDT,M3.2.0,M11.1.0").unwrap(),
            ..Config::default()
        };
        let mut e = Engine::new(cfg);
        e.iterate(&s, 0);
        let q = run(&e, "showq", &[]).unwrap();
        assert!(
            q.contains(
                "C                        u3   Starting     1    02:00:00  Wed Dec 31 18:00:00"
            ),
            "{q}"
        );
        assert!(
            q.contains(
                "B                        u2       Idle     2    01:00:00  Wed Dec 31 17:30:00"
            ),
            "{q}"
        );
        let Output::Json(v) = execute(&Context::of(&e), "showq", &[], true).unwrap() else {
            panic!("json")
        };
        assert_eq!(v["time_zone"], "CST6CDT,M3.2.0,M11.1.0");
        assert_eq!(v["now"], 0);
        assert_eq!(v["now_iso"], "1969-12-31T18:00:00-06:00");
        let b = &v["eligible"][0];
        assert_eq!(b["job"], "B");
        assert_eq!(b["submit_time"], -1800);
        assert_eq!(b["submit_time_iso"], "1969-12-31T17:30:00-06:00");
        // UTC sites get "+00:00".
        let Output::Json(u) = execute(&Context::of(&engine()), "showq", &[], true).unwrap() else {
            panic!("json")
        };
        assert_eq!(
            (u["time_zone"].as_str(), u["now_iso"].as_str()),
            (Some("UTC"), Some("1970-01-01T00:00:00+00:00"))
        );
    }

    #[test]
    fn nodes_jobs_and_reservations_for_admins() {
        let e = engine();
        let n1 = run(&e, "checknode", &["n1"]).unwrap();
        assert!(
            n1.starts_with("checking node n1\n\nState:      Busy\n"),
            "{n1}"
        );
        assert!(
            n1.contains("Configured Resources: PROCS: 1  MEM: 1000M"),
            "{n1}"
        );
        assert!(n1.contains("Dedicated  Resources: PROCS: 1"), "{n1}");
        assert!(
            n1.contains("  Job 'A'(x1)  -01:00:00 -> 03:00:00 (04:00:00)"),
            "{n1}"
        );
        assert!(
            n1.contains("  Job 'B'(x1)  03:00:00 -> 04:00:00 (01:00:00)"),
            "{n1}"
        );
        assert!(n1.ends_with("JobList:  A\n"), "{n1}");
        let n2 = run(&e, "checknode", &["n2"]).unwrap();
        assert!(n2.ends_with("JobList:  C\n"), "C starts there now: {n2}");
        assert!(matches!(
            run(&e, "checknode", &["n9"]),
            Err(CommandError::NotFound(_))
        ));
        let dn = run(&e, "diagnose", &["-n"]).unwrap();
        assert!(
            dn.contains("Total Nodes: 2  (Active: 2  Idle: 0  Down: 0)"),
            "{dn}"
        );
        assert!(
            dn.lines()
                .any(|l| l.starts_with("n1 ") && l.contains("Busy") && l.contains("0:1")),
            "{dn}"
        );
        let dj = run(&e, "diagnose", &["-j"]).unwrap();
        assert!(
            dj.contains("WARNING:  job 'H' cannot run: job has hold in place (User)"),
            "{dj}"
        );
        assert!(run(&e, "diagnose", &["-j", "B"]).unwrap().contains("\nB "));
        let dq = run(&e, "diagnose", &["-q"]).unwrap();
        assert!(
            dq.contains("job H                    has the following hold(s) in place:  User"),
            "{dq}"
        );
        let dr = run(&e, "diagnose", &["-r"]).unwrap();
        assert!(dr.starts_with("Diagnosing Reservations\n"), "{dr}");
        assert!(
            dr.lines().any(|l| l.starts_with("B ") && l.contains("Job")),
            "{dr}"
        );
        assert!(dr.contains("    ACL: [NONE]"), "{dr}");
        assert!(matches!(
            run(&e, "diagnose", &["-r", "nope"]),
            Err(CommandError::NotFound(_))
        ));
        assert!(matches!(
            run(&e, "diagnose", &["-q", "x"]),
            Err(CommandError::Usage(_))
        ));
        assert!(run(&e, "showconfig", &[])
            .unwrap()
            .contains("BACKFILLPOLICY"));
    }

    #[test]
    fn what_ordinary_users_see() {
        let e = engine();
        let user = Viewer {
            user: "u1".into(),
            admin: false,
        };
        let mut ctx = Context::of(&e);
        ctx.viewer = Some(&user);
        assert!(execute(&ctx, "checkjob", &["A"], false).is_ok());
        match execute(&ctx, "checkjob", &["B"], false) {
            Err(CommandError::Denied(m)) => assert!(m.contains("needs ADMIN3"), "{m}"),
            other => panic!("{other:?}"),
        }
        let Output::Json(v) = execute(&ctx, "showres", &[], true).unwrap() else {
            panic!("json")
        };
        assert!(v["reservations"][0].get("acl").is_none(), "{v}");
        let admin = Viewer {
            user: "boss".into(),
            admin: true,
        };
        ctx.viewer = Some(&admin);
        assert!(execute(&ctx, "checkjob", &["B"], false).is_ok());
        let Output::Json(v) = execute(&ctx, "showres", &[], true).unwrap() else {
            panic!("json")
        };
        assert!(v["reservations"][0].get("acl").is_some(), "{v}");
    }

    /// The seed's A/B/C scenario (8.2.1), normalised.
    fn snapshot() -> Snapshot {
        let mut s = abc();
        s.normalize().unwrap();
        s
    }

    /// The seed's A/B/C scenario (8.2.1): A runs on n1, B and C wait.
    fn abc() -> Snapshot {
        let nodes: Vec<Node> = (1..=2)
            .map(|i| Node {
                name: format!("n{i}"),
                configured: Resources::procs_mem(1, 1000),
                ..Node::default()
            })
            .collect();
        let mut a = job("A", "u1", 1, 4 * H, -2 * H);
        a.state = JobState::Running;
        a.start_time = Some(-H);
        a.allocation = vec![NodeTasks {
            node: "n1".into(),
            tasks: 1,
        }];
        Snapshot {
            now: Some(0),
            nodes,
            jobs: vec![
                a,
                job("B", "u2", 2, H, -1800),
                job("C", "u3", 1, 2 * H, -1200),
            ],
            ..Snapshot::default()
        }
    }

    #[test]
    fn diagnose_q_with_nothing_blocked_says_so_as_maui_does() {
        let mut e = Engine::new(Config::default());
        let mut snap = snapshot();
        snap.jobs.clear();
        e.iterate(&snap, 0);
        assert_eq!(
            run(&e, "diagnose", &["-q"]).unwrap(),
            "no blocked jobs found\n"
        );
    }

    #[test]
    fn stopped_scheduling_starts_nothing() {
        let mut e = Engine::new(Config::default());
        e.state.stopped = Some(StopInfo {
            by: "boss".into(),
            at: 0,
        });
        let plan = e.iterate(&snapshot(), 0);
        assert!(plan.starts.is_empty());
        let c = plan.job("C").unwrap();
        assert!(!c.started);
        assert_eq!(
            c.reason,
            Some(crate::engine::Reason::Stopped { by: "boss".into() })
        );
        assert_eq!(plan.stats.started_backfill, 0);
        let q = run(&e, "showq", &[]).unwrap();
        assert!(q.contains("1 Active Job "), "only A: {q}");
        assert!(
            q.lines().any(|l| l.starts_with("C ") && l.contains("Idle")),
            "{q}"
        );
        assert!(
            q.ends_with("NOTE:  scheduling is stopped (schedctl -s by boss at Thu Jan  1 00:00:00): no job is started until schedctl -r\n"),
            "{q}"
        );
        // n2 stays free: what C would have taken is not shown as taken.
        let last = e.last.as_ref().unwrap();
        let bf = render::showbf_json(last, &ShowbfOpts::default());
        assert_eq!(bf["partitions"][0]["windows"][0]["nodes"][0], "n2", "{bf}");
        assert!(run(&e, "checkjob", &["C"])
            .unwrap()
            .contains("NOTE:  job cannot run  (scheduling is stopped (schedctl -s by boss)"));
        e.state.stopped = None;
        let plan = e.iterate(&snapshot(), 60);
        assert_eq!(plan.starts.len(), 1, "resumed: C backfills again");
    }

    #[test]
    fn a_pending_hold_is_in_force_in_the_plan_that_carries_it() {
        let mut e = Engine::new(Config::default());
        e.state.pending_actions = vec![crate::engine::Action {
            kind: crate::engine::ActionKind::Hold,
            job: "C".into(),
            by: "boss".into(),
        }];
        let plan = e.iterate(&snapshot(), 0);
        assert!(plan.starts.is_empty(), "C is held: {:?}", plan.starts);
        assert_eq!(plan.actions.len(), 1);
        assert!(matches!(
            plan.job("C").unwrap().reason,
            Some(crate::engine::Reason::Hold {
                kind: HoldKind::System
            })
        ));
        // A release goes the other way: C's system hold is lifted now.
        let mut snap = snapshot();
        snap.jobs[2].holds = thin_vec::thin_vec![HoldKind::System];
        e.state.pending_actions = vec![crate::engine::Action {
            kind: crate::engine::ActionKind::Release,
            job: "C".into(),
            by: "boss".into(),
        }];
        let plan = e.iterate(&snap, 60);
        assert_eq!(plan.starts.len(), 1, "C starts as its hold goes");
    }

    #[test]
    fn runjob_starts_the_job_where_the_operator_said() {
        let mut e = Engine::new(Config::default());
        e.state.forced_starts = vec![crate::engine::ForcedStart {
            job: "B".into(),
            allocation: vec![
                NodeTasks {
                    node: "n1".into(),
                    tasks: 1,
                },
                NodeTasks {
                    node: "n2".into(),
                    tasks: 1,
                },
            ],
            by: "boss".into(),
        }];
        let plan = e.iterate(&snapshot(), 0);
        assert_eq!(plan.starts[0].job, "B");
        assert_eq!(plan.starts[0].allocation.len(), 2);
        assert!(!plan.starts[0].backfill);
        // B takes n2 as well: C cannot start beside it.
        assert_eq!(plan.starts.len(), 1, "{:?}", plan.starts);
        assert!(plan.job("B").is_none(), "B runs, it is not waiting");
        assert!(e.state.forced_starts.is_empty(), "a runjob is used once");
        let last = e.last.as_ref().unwrap();
        assert_eq!(last.forced, vec!["B".to_string()]);
        let q = run(&e, "showq", &[]).unwrap();
        assert!(
            q.lines()
                .any(|l| l.starts_with("B ") && l.contains("Starting")),
            "{q}"
        );
        // Still idle at the next iteration (the RM did not start it): it is
        // scheduled normally again.
        let plan = e.iterate(&snapshot(), 60);
        assert!(plan.job("B").is_some());
        // A forced start of a job that is not queued is dropped.
        e.state.forced_starts = vec![crate::engine::ForcedStart {
            job: "A".into(),
            allocation: vec![NodeTasks {
                node: "n2".into(),
                tasks: 1,
            }],
            by: "boss".into(),
        }];
        let plan = e.iterate(&snapshot(), 120);
        assert!(plan.starts.iter().all(|s| s.job != "A"));
    }

    proptest::proptest! {
        /// Whatever arguments a client sends, a command renders or refuses
        /// with a message; it never panics.
        #[test]
        fn any_arguments_render_or_refuse(
            cmd in proptest::sample::select(COMMANDS.to_vec()),
            args in proptest::collection::vec("(-[a-zA-Z]|[A-Za-z0-9:=_.-]{0,8})", 0..5),
            json in proptest::bool::ANY,
            admin in proptest::bool::ANY,
        ) {
            let e = engine();
            let viewer = Viewer { user: "u2".into(), admin };
            let mut ctx = Context::of(&e);
            ctx.viewer = Some(&viewer);
            let a: Vec<&str> = args.iter().map(String::as_str).collect();
            let _ = execute(&ctx, cmd, &a, json);
        }
    }

    #[test]
    fn commands_and_their_errors() {
        let e = engine();
        assert!(run(&e, "checkjob", &["-v", "B"])
            .unwrap()
            .contains("Node availability:"));
        assert!(run(&e, "showstart", &["B"])
            .unwrap()
            .contains("Earliest start in          03:00:00"));
        assert!(run(&e, "showres", &[])
            .unwrap()
            .contains("2 reservations located"));
        assert!(run(&e, "showbf", &["-d", "1:00:00", "-n", "1"]).is_ok());
        assert!(run(&e, "diagnose", &["-p"]).unwrap().contains("PRIORITY"));
        assert!(matches!(
            run(&e, "showqq", &[]),
            Err(CommandError::Unknown(_))
        ));
        assert!(matches!(
            run(&e, "checkjob", &["B", "C"]),
            Err(CommandError::Usage(_))
        ));
        assert!(matches!(
            run(&e, "showbf", &["-n"]),
            Err(CommandError::Usage(_))
        ));
        assert!(matches!(
            run(&e, "diagnose", &[]),
            Err(CommandError::Usage(_))
        ));
        assert!(matches!(
            run(&e, "showstart", &["Z"]),
            Err(CommandError::NotFound(_))
        ));
        assert!(matches!(
            run(&e, "showres", &["Z"]),
            Err(CommandError::NotFound(_))
        ));
        let fresh = Engine::new(Config::default());
        assert_eq!(
            run(&fresh, "showq", &[]),
            Err(CommandError::NoIteration("showq".into()))
        );
        assert!(run(&fresh, "diagnose", &["-f"]).is_ok());
    }

    // ---- generic resources ----------------------------------------------

    /// The GPU snapshot tests/engine_cli.rs uses too: g1 has four
    /// a100 GPUs, g2 two untyped ones, c1 none. Job 1 runs on g1 with
    /// gpu:2 per node; 3 (gpu:a100:1 per task, 2 tasks) starts on g1, 4
    /// (gpu:1) on g2, 7 (no GPUs) on c1; 5 (gpu:2 per node, 2 bundles of 4
    /// tasks) waits with a reservation; 2 and 6 ask for what no node has.
    const GPU_SNAP: &str = include_str!("../../tests/data/gpu/snapshot.json");

    fn gpu_engine() -> Engine {
        let s = Snapshot::from_json(GPU_SNAP).unwrap();
        let mut e = Engine::new(Config::default());
        e.iterate(&s, 1000);
        e
    }

    fn line<'a>(text: &'a str, id: &str) -> &'a str {
        let prefix = format!("{id} ");
        text.lines()
            .find(|l| l.starts_with(&prefix))
            .unwrap_or_else(|| panic!("no line for {id} in\n{text}"))
    }

    #[test]
    fn gres_compact_names_types_not_their_totals() {
        let c = crate::model::Cluster {
            gres_names: ["gpu", "gpu:a100", "gpu:v100", "tape"]
                .map(String::from)
                .to_vec(),
            ..Default::default()
        };
        let t = |s: [u64; 4]| render::gres_compact(&c, &s);
        assert_eq!(t([2, 2, 0, 0]), "gpu:a100:2");
        assert_eq!(t([3, 2, 0, 1]), "gpu:1,gpu:a100:2,tape:1");
        assert_eq!(t([4, 2, 2, 0]), "gpu:a100:2,gpu:v100:2");
        assert_eq!(t([100_000, 0, 0, 0]), "gpu:100000");
        assert_eq!(t([0; 4]), "");
    }

    /// showq: a GRES column (what an active job holds, what a waiting one
    /// asks for in all, the request as given where it cannot be resolved)
    /// and a line per untyped generic resource under the processors.
    #[test]
    fn showq_shows_generic_resources() {
        let e = gpu_engine();
        let q = run(&e, "showq", &[]).unwrap();
        assert!(q.contains("   STARTTIME  GRES\n\n"), "{q}");
        assert!(q.contains("   QUEUETIME  GRES\n\n"), "{q}");
        for (id, gres) in [
            ("1", "gpu:2"),
            ("3", "gpu:a100:2"),
            ("4", "gpu:1"),
            ("7", "-"),
            ("5", "gpu:4"),
            ("2", "gpu:2,tape:1/node"),
            ("6", "gpu:v100:1/task"),
        ] {
            let l = line(&q, id);
            assert!(l.ends_with(&format!("  {gres}")), "{id}: {l:?}");
        }
        assert!(
            q.contains("     4 Active Jobs      11 of   48 Processors Active (22.92%)\n"),
            "{q}"
        );
        assert!(
            q.contains("\n                         5 of    6 gpu Active        (83.33%)\n"),
            "{q}"
        );
        assert!(!q.contains("a100 Active"), "{q}");
        let r = run(&e, "showq", &["-r"]).unwrap();
        assert!(r.contains("STARTTIME  GRES\n"), "{r}");
        assert!(line(&r, "3").ends_with("  gpu:a100:2"), "{r}");
        assert!(r.contains("5 of    6 gpu Active"), "{r}");
        let i = run(&e, "showq", &["-i"]).unwrap();
        assert!(i.contains("SYSTEMQUEUETIME  GRES\n"), "{i}");
        assert!(line(&i, "5*").ends_with("  gpu:4"), "{i}");
        let ctx = Context::of(&e);
        let Output::Json(v) = execute(&ctx, "showq", &[], true).unwrap() else {
            panic!("json")
        };
        let sum = &v["summary"];
        assert_eq!(sum["busy_gres"]["gpu"], 5, "{sum}");
        assert_eq!(sum["busy_gres"]["gpu:a100"], 2, "{sum}");
        assert_eq!(sum["total_gres"]["gpu"], 6, "{sum}");
        assert_eq!(sum["total_gres"]["gpu:a100"], 4, "{sum}");
        let job = |sec: &str, id: &str| -> serde_json::Value {
            v[sec]
                .as_array()
                .unwrap()
                .iter()
                .find(|j| j["job"] == id)
                .cloned()
                .unwrap_or_else(|| panic!("{id} not in {sec}"))
        };
        let one = job("active", "1");
        assert_eq!(one["gres"]["per_node"], "gpu:2");
        assert_eq!(one["gres"]["allocated"][0]["node"], "g1");
        assert_eq!(one["gres"]["allocated"][0]["gres"]["gpu"], 2);
        let three = job("active", "3");
        assert_eq!(three["gres"]["total"]["gpu:a100"], 2, "{three}");
        let five = job("eligible", "5");
        assert_eq!(five["gres"]["total"]["gpu"], 4, "{five}");
        assert!(five["gres"].get("allocated").is_none(), "{five}");
    }

    /// Without generic resources showq, showres and diagnose -n have no
    /// GRES column or line, and their JSON no gres keys (Maui's layouts).
    #[test]
    fn no_gres_columns_without_generic_resources() {
        let e = engine();
        let ctx = Context::of(&e);
        for (cmd, args) in [
            ("showq", &[][..]),
            ("showq", &["-r"]),
            ("showq", &["-i"]),
            ("showres", &[]),
            ("showres", &["-n"]),
            ("diagnose", &["-n"]),
        ] {
            let t = run(&e, cmd, args).unwrap();
            assert!(!t.contains("GRES"), "{cmd} {args:?}:\n{t}");
        }
        let Output::Json(v) = execute(&ctx, "showq", &[], true).unwrap() else {
            panic!("json")
        };
        assert!(v["summary"].get("busy_gres").is_none(), "{v}");
        assert!(v["active"][0].get("gres").is_none(), "{v}");
        let Output::Json(v) = execute(&ctx, "showres", &[], true).unwrap() else {
            panic!("json")
        };
        assert!(v["reservations"][0].get("gres").is_none(), "{v}");
    }

    /// showres: what each reservation holds, in all and per node; a
    /// bundled job's reservation in the RM's tasks.
    #[test]
    fn showres_shows_generic_resources() {
        let e = gpu_engine();
        let r = run(&e, "showres", &[]).unwrap();
        assert!(r.contains("StartTime            GRES\n"), "{r}");
        assert!(line(&r, "1").ends_with("  gpu:2"), "{r}");
        let five = line(&r, "5");
        assert!(
            five.contains(" 2/8 ") && five.ends_with("  gpu:4"),
            "{five}"
        );
        let n = run(&e, "showres", &["-n"]).unwrap();
        let g2: Vec<&str> = n.lines().filter(|l| l.starts_with("g2 ")).collect();
        assert_eq!(g2.len(), 1, "{n}");
        assert!(
            g2[0].contains("  5       Idle    4 ") && g2[0].ends_with("  gpu:2"),
            "{n}"
        );
        let ctx = Context::of(&e);
        let Output::Json(v) = execute(&ctx, "showres", &[], true).unwrap() else {
            panic!("json")
        };
        let five = v["reservations"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["id"] == "5")
            .unwrap();
        assert_eq!(five["gres"]["gpu"], 4, "{five}");
        assert_eq!(five["tasks"], 8, "{five}");
        assert_eq!(five["claims"][1]["tasks"], 4, "{five}");
        assert_eq!(five["claims"][1]["gres"]["gpu"], 2, "{five}");
    }

    /// diagnose -n: configured, dedicated and available generic resources
    /// under each node that has some, and in all.
    #[test]
    fn diagnose_n_shows_generic_resources() {
        let e = gpu_engine();
        let d = run(&e, "diagnose", &["-n"]).unwrap();
        let after = |name: &str| -> &str {
            let mut it = d.lines().skip_while(|l| !l.starts_with(name));
            it.next();
            it.next().unwrap_or("")
        };
        assert_eq!(
            after("g1 "),
            "    GRES  Configured: gpu:a100:4  Dedicated: gpu:2,gpu:a100:2  Available: [NONE]",
            "{d}"
        );
        assert_eq!(
            after("g2 "),
            "    GRES  Configured: gpu:2  Dedicated: gpu:1  Available: gpu:1",
            "{d}"
        );
        assert!(after("c1 ").starts_with("-----"), "{d}");
        assert_eq!(
            after("----- "),
            "    GRES  Configured: gpu:2,gpu:a100:4  Dedicated: gpu:3,gpu:a100:2  Available: gpu:1",
            "{d}"
        );
        let one = run(&e, "diagnose", &["-n", "g2"]).unwrap();
        assert!(one.contains("    GRES  Configured: gpu:2  "), "{one}");
        let ctx = Context::of(&e);
        let Output::Json(v) = execute(&ctx, "diagnose", &["-n"], true).unwrap() else {
            panic!("json")
        };
        assert_eq!(v["gres_total"]["configured"]["gpu"], 6, "{v}");
        assert_eq!(v["gres_total"]["dedicated"]["gpu"], 5, "{v}");
        assert_eq!(v["gres_total"]["available"]["gpu"], 1, "{v}");
        assert_eq!(v["gres_total"]["available"]["gpu:a100"], 0, "{v}");
        assert_eq!(v["nodes"][0]["gres"]["dedicated"]["gpu:a100"], 2, "{v}");
    }
}
