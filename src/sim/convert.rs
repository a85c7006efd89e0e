//! Site accounting data to a workload trace (`mauictl convert
//! sacct|torque-acct`), so a new maui.cfg can be simulated on the site's
//! own workload, with the credentials its jobs had
//! (docs/testing-a-config.md).
//!
//! Two sources:
//!
//! - **Slurm**: `sacct -P` output (`|`-separated), with a header line (`-P`
//!   without `-n`) naming the columns, or without one in the documented
//!   order [`SACCT_FIELDS`]. One line per job allocation (`-X`); job steps
//!   (`123.batch`, `123.0`) are skipped and counted.
//! - **Torque**: the server's accounting files
//!   (`server_priv/accounting/YYYYMMDD`): `E` records make the jobs; jobs
//!   with a `D` (deleted) or `A` (aborted) record and no `E` record become
//!   cancelled-before-start records.
//!
//! Credentials are those the front ends give a live job: user, group,
//! account and QOS as the resource manager names them; the class is the
//! Torque queue, or the Slurm partition (the first, for a job submitted to
//! several), and a Slurm job's partition is that partition too (Torque has
//! none). QOS: Slurm's `QOS`; Torque's `Resource_List.qos` (`qsub -l
//! qos=high`), else a `QOS:` item of Maui's RM extension (`-W x=QOS:high`).
//!
//! Two outputs ([`Target`]):
//!
//! - **SWF** ([`Conversion::swf`]): jobs are numbered 1..N in submission
//!   order (ties in input order); user, group, queue (class) and partition
//!   names become numbers in order of first appearance in that order, and
//!   the header names them (`; user 3 = alice`). SWF has no field for an
//!   account or a QOS: a header line per job gives them (`; job 12
//!   account proj1 qos high`), which the simulator reads
//!   ([`super::workload::SwfNames`]). [`Conversion::map_text`] lists every
//!   job's original id.
//! - **Maui's workload trace** ([`Conversion::maui_trace`]): one 44-field
//!   line per job, with the original job id and every credential by name.
//!
//! Times: epoch seconds are taken as they are; Slurm's
//! `YYYY-MM-DDTHH:MM:SS` and Torque's record stamps are local times, read
//! in the zone given ([`ConvertOptions::zone`], the site's). Runtimes come
//! from `Elapsed` (Slurm) or `end - start` (Torque), never from two local
//! times. Fields the source does not have are -1 (SWF) or none.
//!
//! Nothing is dropped silently: [`Conversion::report`] counts the lines
//! and jobs left out by reason, the fields changed on the way, the jobs the
//! simulator will skip, and what the chosen output cannot hold.
//!
//! Nothing here reads a clock: the same input gives the same bytes.

use super::input::{self, InputError, LineReader, ReadOptions, ReadStats};
use super::swf::{SwfRecord, SwfStatus};
use crate::model::time::{civil_from_days, days_from_civil, Zone, DAY};
use crate::model::{Secs, Time};
use std::collections::{BTreeMap, HashMap};
use std::io::BufRead;

#[path = "convert_output.rs"]
mod output;

pub use output::Target;

/// The accounting format read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// `sacct -P` output.
    Sacct,
    /// Torque / OpenPBS server accounting files.
    TorqueAcct,
}

impl Source {
    /// The subcommand name (`sacct`, `torque-acct`).
    pub fn name(self) -> &'static str {
        match self {
            Source::Sacct => "sacct",
            Source::TorqueAcct => "torque-acct",
        }
    }
}

/// Column order of `sacct` output without a header line (the `-o` list of
/// docs/testing-a-config.md).
pub const SACCT_FIELDS: [&str; 16] = [
    "JobID",
    "User",
    "Group",
    "Account",
    "Partition",
    "QOS",
    "Submit",
    "Start",
    "End",
    "Elapsed",
    "Timelimit",
    "AllocCPUS",
    "ReqCPUS",
    "ReqMem",
    "NNodes",
    "State",
];

/// How to convert.
#[derive(Clone, Debug, Default)]
pub struct ConvertOptions {
    /// Skip malformed lines and count them instead of stopping at the first.
    pub lenient: bool,
    /// `MaxNodes:` for the header (Torque: else counted from `exec_host`).
    pub max_nodes: Option<u64>,
    /// `MaxProcs:` for the header (Torque: else counted from `exec_host`).
    pub max_procs: Option<u64>,
    /// The zone the accounting's clock times are in (sacct's
    /// `YYYY-MM-DDTHH:MM:SS`, Torque's record stamps): the site's; UTC by
    /// default. Epoch seconds need none.
    pub zone: Zone,
}

/// Names behind the SWF numbers: number `n` is `names[n - 1]`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NameMap {
    /// SWF field 12.
    pub users: Vec<String>,
    /// SWF field 13.
    pub groups: Vec<String>,
    /// SWF field 15 (Slurm partitions, Torque queues): the class.
    pub queues: Vec<String>,
    /// SWF field 16 (Slurm partitions; Torque has none).
    pub partitions: Vec<String>,
}

/// A job's credentials that SWF has no field for.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ExtraCreds {
    /// Account (Slurm `Account`, Torque `account=`).
    pub account: Option<String>,
    /// QOS (Slurm `QOS`, Torque `Resource_List.qos`).
    pub qos: Option<String>,
}

/// A field changed on the way from the accounting data to the trace, in
/// either output (what only one output loses is [`Conversion::report`]'s).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Change {
    /// No user name.
    NoUser,
    /// No group name.
    NoGroup,
    /// No account.
    NoAccount,
    /// No QOS.
    NoQos,
    /// No partition or queue: no class.
    NoClass,
    /// No time limit: no requested time.
    NoTimeLimit,
    /// Slurm: a list of partitions (a job that never ran); the first taken.
    PartitionList,
    /// More than one node: only the processor count is kept.
    NodeCount,
    /// Torque: node properties in `Resource_List.nodes` (`gpus=1`, features).
    NodeProperties,
    /// Torque: the hosts of `exec_host`.
    ExecHosts,
}

impl Change {
    /// What the field was and what it became, for the report.
    pub fn describe(self, source: Source) -> &'static str {
        use Change::*;
        match (source, self) {
            (Source::Sacct, NoUser) => "User empty: no user (SWF -1; simulate and the Maui trace: nobody)",
            (Source::Sacct, NoGroup) => "Group empty: no group (SWF -1; simulate and the Maui trace: nogroup)",
            (Source::Sacct, NoAccount) => "Account empty: no account",
            (Source::Sacct, NoQos) => "QOS empty: no QOS",
            (Source::Sacct, NoClass) => "Partition empty: no class and no partition",
            (Source::Sacct, NoTimeLimit) => "Timelimit UNLIMITED, Partition_Limit or empty: no requested time (simulate's --no-request sets the walltime)",
            (_, PartitionList) => "Partition a list (batch,short; a job that never ran): the first is its class and partition",
            (Source::Sacct, NodeCount) => "NNodes above 1: not kept (sacct records where a job ran, not a node count it asked for); the job is its processors, placed by the simulator",
            (Source::TorqueAcct, NoUser) => "no user=: no user (SWF -1; simulate and the Maui trace: nobody)",
            (Source::TorqueAcct, NoGroup) => "no group=: no group (SWF -1; simulate and the Maui trace: nogroup)",
            (Source::TorqueAcct, NoAccount) => "no account=: no account",
            (Source::TorqueAcct, NoQos) => "no Resource_List.qos (nor x=QOS:NAME): no QOS",
            (Source::TorqueAcct, NoClass) => "no queue=: no class",
            (Source::TorqueAcct, NoTimeLimit) => "no Resource_List.walltime: no requested time (simulate's --no-request sets the walltime)",
            (Source::TorqueAcct, NodeCount) => "Resource_List.nodes of more than one node (2:ppn=4): processors (nodes x ppn); the node count and ppn are not kept",
            (_, NodeProperties) => "Resource_List.nodes properties (gpus=1, features): not kept",
            (_, ExecHosts) => "exec_host host names: not kept (the simulator places jobs itself)",
        }
    }
}

/// The result of a conversion.
#[derive(Debug)]
pub struct Conversion {
    /// What was read.
    pub source: Source,
    /// Input names as given.
    pub inputs: Vec<String>,
    /// Epoch of SWF time 0 (the first submission).
    pub origin: Time,
    /// The records, job `i + 1` at index `i`.
    pub records: Vec<SwfRecord>,
    /// Original job ids, by the same index.
    pub ids: Vec<String>,
    /// Accounts and QOS, by the same index.
    pub extra: Vec<ExtraCreds>,
    /// The number-to-name tables.
    pub names: NameMap,
    /// `MaxNodes:` written in the header, if known.
    pub max_nodes: Option<u64>,
    /// `MaxProcs:` written in the header, if known.
    pub max_procs: Option<u64>,
    /// Lines read, malformed lines skipped (lenient mode), examples.
    pub read: ReadStats,
    /// Malformed lines skipped (lenient mode), by the field at fault.
    pub malformed: BTreeMap<String, u64>,
    /// Lines or jobs left out on purpose, by reason.
    pub skipped: BTreeMap<String, u64>,
    /// Jobs written with a field changed, by change.
    pub changes: BTreeMap<Change, u64>,
    /// The zone of the header's dates (`TimeZoneString:`).
    pub zone: Zone,
}

/// One job as read, before numbering.
#[derive(Clone, Debug, Default)]
struct Acct {
    id: String,
    user: Option<String>,
    group: Option<String>,
    /// The class: Torque queue, Slurm (first) partition.
    queue: Option<String>,
    /// Slurm's (first) partition.
    partition: Option<String>,
    account: Option<String>,
    qos: Option<String>,
    submit: Time,
    start: Option<Time>,
    run: Option<Secs>,
    alloc: Option<u32>,
    req: Option<u32>,
    req_time: Option<Secs>,
    req_mem_kb: Option<u64>,
    used_mem_kb: Option<u64>,
    avg_cpu: Option<Secs>,
    status: Option<SwfStatus>,
    /// Fields changed on the way.
    changes: Vec<Change>,
}

impl Acct {
    /// Notes the credentials it lacks.
    fn note_missing(&mut self) {
        for (absent, c) in [
            (self.user.is_none(), Change::NoUser),
            (self.group.is_none(), Change::NoGroup),
            (self.account.is_none(), Change::NoAccount),
            (self.qos.is_none(), Change::NoQos),
            (self.queue.is_none(), Change::NoClass),
        ] {
            if absent {
                self.changes.push(c);
            }
        }
    }
}

/// What reading left out: lines or jobs by reason, malformed lines by field.
#[derive(Default)]
struct Left {
    skipped: BTreeMap<String, u64>,
    malformed: BTreeMap<String, u64>,
}

impl Left {
    fn skip(&mut self, why: impl Into<String>) {
        *self.skipped.entry(why.into()).or_insert(0) += 1;
    }

    /// A malformed line: an error in strict mode, counted by `field` in
    /// lenient mode.
    fn malformed(
        &mut self,
        st: &mut ReadStats,
        err: InputError,
        field: &str,
        opts: ReadOptions,
    ) -> Result<(), InputError> {
        st.malformed(err, opts)?;
        *self.malformed.entry(field.to_string()).or_insert(0) += 1;
        Ok(())
    }
}

/// Converts `inputs` (name, reader) of one format.
pub fn convert(
    source: Source,
    inputs: Vec<(String, Box<dyn BufRead + '_>)>,
    opts: &ConvertOptions,
) -> Result<Conversion, InputError> {
    let read_opts = ReadOptions {
        lenient: opts.lenient,
    };
    let names: Vec<String> = inputs.iter().map(|(n, _)| n.clone()).collect();
    let mut st = ReadStats::default();
    let mut left = Left::default();
    let mut hosts = BTreeMap::new();
    let jobs = match source {
        Source::Sacct => {
            let mut jobs = Vec::new();
            for (name, r) in inputs {
                sacct(
                    r,
                    &name,
                    (read_opts, &opts.zone),
                    &mut st,
                    &mut left,
                    &mut jobs,
                )?;
            }
            jobs
        }
        Source::TorqueAcct => {
            let mut t = Torque {
                zone: opts.zone.clone(),
                ..Torque::default()
            };
            for (name, r) in inputs {
                t.read(r, &name, read_opts, &mut st, &mut left)?;
            }
            hosts = std::mem::take(&mut t.hosts);
            t.finish(&mut left)
        }
    };
    let (max_nodes, max_procs) = match (opts.max_nodes, opts.max_procs) {
        (None, None) if !hosts.is_empty() => (
            Some(hosts.len() as u64),
            Some(hosts.values().map(|&p| p as u64).sum()),
        ),
        x => x,
    };
    let mut c = number(source, names, jobs);
    c.max_nodes = max_nodes;
    c.max_procs = max_procs;
    c.read = st;
    c.skipped = left.skipped;
    c.malformed = left.malformed;
    c.zone = opts.zone.clone();
    Ok(c)
}

/// Sorts by submission and numbers jobs and names.
fn number(source: Source, inputs: Vec<String>, mut jobs: Vec<Acct>) -> Conversion {
    // Stable: ties keep input order.
    jobs.sort_by_key(|j| j.submit);
    let origin = jobs.first().map_or(0, |j| j.submit);
    let mut names = NameMap::default();
    let mut idx: [HashMap<String, u32>; 4] = Default::default();
    fn num(
        tab: &mut Vec<String>,
        idx: &mut HashMap<String, u32>,
        n: &Option<String>,
    ) -> Option<u32> {
        let n = n.as_ref()?;
        Some(*idx.entry(n.clone()).or_insert_with(|| {
            tab.push(n.clone());
            tab.len() as u32
        }))
    }
    let mut records = Vec::with_capacity(jobs.len());
    let mut ids = Vec::with_capacity(jobs.len());
    let mut extra = Vec::with_capacity(jobs.len());
    let mut changes = BTreeMap::new();
    for (i, j) in jobs.into_iter().enumerate() {
        let [iu, ig, iq, ip] = &mut idx;
        records.push(SwfRecord {
            job: i as u64 + 1,
            submit: Some(j.submit - origin),
            wait: j.start.map(|s| (s - j.submit).max(0)),
            run: j.run,
            alloc_procs: j.alloc,
            avg_cpu: j.avg_cpu,
            used_mem_kb: j.used_mem_kb,
            req_procs: j.req,
            req_time: j.req_time,
            req_mem_kb: j.req_mem_kb,
            status: j.status,
            user: num(&mut names.users, iu, &j.user),
            group: num(&mut names.groups, ig, &j.group),
            executable: None,
            queue: num(&mut names.queues, iq, &j.queue),
            partition: num(&mut names.partitions, ip, &j.partition),
            preceding_job: None,
            think_time: None,
        });
        for c in j.changes {
            *changes.entry(c).or_insert(0) += 1;
        }
        ids.push(j.id);
        extra.push(ExtraCreds {
            account: j.account,
            qos: j.qos,
        });
    }
    Conversion {
        source,
        inputs,
        origin,
        records,
        ids,
        extra,
        names,
        max_nodes: None,
        max_procs: None,
        read: ReadStats::default(),
        malformed: BTreeMap::new(),
        skipped: BTreeMap::new(),
        changes,
        zone: Zone::utc(),
    }
}

/// `2024-03-01 10:00:00`, local time in `zone`.
fn date(t: Time, zone: &Zone) -> String {
    let l = zone.local(t);
    format!(
        "{:04}-{:02}-{:02} {:02}:{:02}:{:02}",
        l.year,
        l.month,
        l.day,
        l.secs / 3600,
        l.secs / 60 % 60,
        l.secs % 60
    )
}

/// Epoch of a civil date and clock time in `zone`, checking ranges.
fn civil(zone: &Zone, y: i64, mo: u32, d: u32, h: i64, mi: i64, s: i64) -> Option<Time> {
    let ok = (1..=12).contains(&mo)
        && (1..=31).contains(&d)
        && (0..24).contains(&h)
        && (0..60).contains(&mi)
        && (0..=60).contains(&s);
    let days = days_from_civil(y, mo, d);
    // Reject 31 February and friends: the date must come back unchanged.
    (ok && civil_from_days(days) == (y, mo, d)).then(|| zone.at(days, h * 3600 + mi * 60 + s))
}

fn digits(s: &str) -> Option<i64> {
    (!s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()))
        .then(|| s.parse().ok())
        .flatten()
}

/// A Slurm time stamp: epoch seconds (`SLURM_TIME_FORMAT=%s`) or
/// `YYYY-MM-DDTHH:MM:SS` read in `zone`. `Ok(None)` for `Unknown`, `None`, empty.
fn slurm_time(s: &str, zone: &Zone) -> Result<Option<Time>, String> {
    let t = s.trim();
    if t.is_empty() || t.eq_ignore_ascii_case("unknown") || t.eq_ignore_ascii_case("none") {
        return Ok(None);
    }
    if let Some(x) = digits(t) {
        return Ok(Some(x));
    }
    let bad = || format!("expected YYYY-MM-DDTHH:MM:SS or epoch seconds, got \"{t}\"");
    let (d, tm) = t.split_once('T').ok_or_else(bad)?;
    let dp: Vec<&str> = d.split('-').collect();
    let tp: Vec<&str> = tm.split(':').collect();
    if dp.len() != 3 || tp.len() != 3 {
        return Err(bad());
    }
    let n = |x: &str| digits(x).ok_or_else(bad);
    civil(
        zone,
        n(dp[0])?,
        n(dp[1])? as u32,
        n(dp[2])? as u32,
        n(tp[0])?,
        n(tp[1])?,
        n(tp[2])?,
    )
    .map(Some)
    .ok_or_else(bad)
}

/// A Slurm duration: `[D-]HH:MM:SS`, `MM:SS`, `[D-]HH` forms of
/// `Elapsed`/`Timelimit` (fractions of a second dropped). `Ok(None)` for
/// `UNLIMITED`, `Partition_Limit`, `INVALID`, empty.
fn slurm_duration(s: &str) -> Result<Option<Secs>, String> {
    let t = s.trim();
    if t.is_empty()
        || ["unlimited", "partition_limit", "invalid", "none", "unknown"]
            .iter()
            .any(|k| t.eq_ignore_ascii_case(k))
    {
        return Ok(None);
    }
    let bad = || format!("expected [D-]HH:MM:SS, MM:SS, UNLIMITED or Partition_Limit, got \"{t}\"");
    let (days, rest) = match t.split_once('-') {
        Some((d, r)) => (digits(d).ok_or_else(bad)?, r),
        None => (0, t),
    };
    let rest = rest.split('.').next().unwrap_or(rest);
    let p: Vec<i64> = rest
        .split(':')
        .map(|x| digits(x).ok_or_else(bad))
        .collect::<Result<_, _>>()?;
    let secs = match (p.as_slice(), t.contains('-')) {
        // `D-HH` and `D-HH:MM` count from hours, as Slurm writes them.
        ([h], true) => h * 3600,
        ([h, m], true) => h * 3600 + m * 60,
        ([m], false) => m * 60,
        ([m, s], false) => m * 60 + s,
        ([h, m, s], _) => h * 3600 + m * 60 + s,
        _ => return Err(bad()),
    };
    Ok(Some(days * DAY + secs))
}

/// How a Slurm `ReqMem` is counted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum MemPer {
    Node,
    Cpu,
    Job,
}

/// `ReqMem`: a number with an optional unit (K, M default, G, T) and an
/// optional `n` (per node) or `c` (per CPU), the forms before Slurm 21.08;
/// without them, the job's total. Returns MB.
fn slurm_mem(s: &str) -> Result<Option<(u64, MemPer)>, String> {
    let t = s.trim();
    if t.is_empty() || t == "0" {
        return Ok(None);
    }
    let bad = || format!("expected a memory size such as 4000M, 4G, 4000Mn or 2Gc, got \"{t}\"");
    let (t2, per) = match t.as_bytes()[t.len() - 1] {
        b'n' => (&t[..t.len() - 1], MemPer::Node),
        b'c' => (&t[..t.len() - 1], MemPer::Cpu),
        _ => (t, MemPer::Job),
    };
    let end = t2
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t2.len());
    let x: f64 = t2[..end].parse().map_err(|_| bad())?;
    let mult = match &t2[end..] {
        "K" | "k" => 1.0 / 1024.0,
        "" | "M" | "m" => 1.0,
        "G" | "g" => 1024.0,
        "T" | "t" => 1024.0 * 1024.0,
        _ => return Err(bad()),
    };
    let mb = (x * mult).ceil() as u64;
    Ok((mb > 0).then_some((mb, per)))
}

/// What a Slurm job state means for the SWF status; `None`: the job had not
/// ended when sacct ran.
fn slurm_state(s: &str) -> Result<Option<SwfStatus>, String> {
    let w = s.split_whitespace().next().unwrap_or("");
    let w = w.trim_end_matches('+').to_ascii_uppercase();
    Ok(Some(match w.as_str() {
        "COMPLETED" => SwfStatus::Completed,
        "CANCELLED" => SwfStatus::Cancelled,
        "FAILED" | "TIMEOUT" | "NODE_FAIL" | "OUT_OF_MEMORY" | "BOOT_FAIL" | "DEADLINE"
        | "PREEMPTED" | "SPECIAL_EXIT" => SwfStatus::Failed,
        "PENDING" | "RUNNING" | "SUSPENDED" | "REQUEUED" | "RESIZING" | "REVOKED"
        | "REQUEUE_FED" | "REQUEUE_HOLD" | "STOPPED" => return Ok(None),
        _ => return Err(format!("unknown job state \"{}\"", s.trim())),
    }))
}

/// Positions of the columns the converter uses.
struct Cols {
    idx: HashMap<String, usize>,
    count: usize,
    /// Named by a header line (else [`SACCT_FIELDS`]).
    header: bool,
}

impl Cols {
    fn new(names: &[&str], header: bool) -> Cols {
        Cols {
            idx: names
                .iter()
                .enumerate()
                .map(|(i, n)| (n.trim().to_ascii_lowercase(), i))
                .collect(),
            count: names.len(),
            header,
        }
    }
    fn get(&self, name: &str) -> Option<usize> {
        self.idx.get(&name.to_ascii_lowercase()).copied()
    }
}

/// Reads one `sacct -P` stream.
fn sacct(
    r: Box<dyn BufRead + '_>,
    file: &str,
    (opts, zone): (ReadOptions, &Zone),
    st: &mut ReadStats,
    left: &mut Left,
    jobs: &mut Vec<Acct>,
) -> Result<(), InputError> {
    let mut lr = LineReader::new(r);
    let mut cols: Option<Cols> = None;
    loop {
        let line = match lr.next_line() {
            Ok(Some(l)) => String::from_utf8_lossy(l).into_owned(),
            Ok(None) => break,
            Err(e) => return Err(InputError::io(file, e)),
        };
        st.lines += 1;
        let lno = lr.line;
        if line.trim().is_empty() {
            st.comments += 1;
            continue;
        }
        let mut fields: Vec<&str> = line.split('|').collect();
        // `-p` ends every line with a `|`; `-P` does not.
        if fields.len() > 1 && fields.last() == Some(&"") {
            fields.pop();
        }
        let is_header = fields
            .iter()
            .any(|f| f.trim().eq_ignore_ascii_case("jobid"));
        if is_header
            && cols
                .as_ref()
                .is_some_and(|c| c.header && c.count == fields.len())
        {
            // The header again: outputs of several sacct runs concatenated.
            st.comments += 1;
            continue;
        }
        if cols.is_none() {
            if is_header {
                let c = Cols::new(&fields, true);
                for need in ["JobID", "Submit", "Start", "State"] {
                    if c.get(need).is_none() {
                        return Err(InputError::syntax(
                            file,
                            lno,
                            1,
                            format!("the header line has no {need} column (see docs/testing-a-config.md)"),
                        ));
                    }
                }
                if c.get("Elapsed").is_none() && c.get("End").is_none() {
                    return Err(InputError::syntax(
                        file,
                        lno,
                        1,
                        "the header line has neither Elapsed nor End",
                    ));
                }
                if c.get("AllocCPUS").is_none() && c.get("ReqCPUS").is_none() {
                    return Err(InputError::syntax(
                        file,
                        lno,
                        1,
                        "the header line has neither AllocCPUS nor ReqCPUS",
                    ));
                }
                cols = Some(c);
                st.comments += 1;
                continue;
            }
            cols = Some(Cols::new(&SACCT_FIELDS, false));
        }
        let c = cols.as_ref().expect("set above");
        match sacct_line(&fields, c, zone) {
            Ok(Some(a)) => {
                st.records += 1;
                jobs.push(a);
            }
            Ok(None) => {}
            Err(SacctSkip::Skip(why)) => left.skip(why),
            Err(SacctSkip::Bad(col, field, msg)) => {
                left.malformed(st, InputError::syntax(file, lno, col, msg), &field, opts)?
            }
        }
    }
    Ok(())
}

enum SacctSkip {
    /// Left out on purpose, with the reason.
    Skip(String),
    /// Malformed: column, the field at fault, the message.
    Bad(u32, String, String),
}

/// One data line of sacct.
fn sacct_line(fields: &[&str], c: &Cols, zone: &Zone) -> Result<Option<Acct>, SacctSkip> {
    if fields.len() != c.count {
        return Err(SacctSkip::Bad(
            1,
            "field count".into(),
            format!(
                "expected {} |-separated fields{}, found {}",
                c.count,
                if !c.header {
                    format!(" ({})", SACCT_FIELDS.join(","))
                } else {
                    String::new()
                },
                fields.len()
            ),
        ));
    }
    // 1-based column of field i.
    let col =
        |i: usize| -> u32 { fields[..i].iter().map(|f| f.len() + 1).sum::<usize>() as u32 + 1 };
    let get = |name: &str| c.get(name).map(|i| (i, fields[i].trim()));
    let bad = |name: &str, msg: String| {
        let i = c.get(name).unwrap_or(0);
        SacctSkip::Bad(
            col(i),
            name.to_string(),
            format!("{} ({}): {msg}", name, fields[i].trim()),
        )
    };
    let (_, id) = get("JobID").expect("checked");
    if id.is_empty() {
        return Err(bad("JobID", "empty job id".into()));
    }
    if id.contains('.') {
        return Err(SacctSkip::Skip(
            "job step lines (123.batch, 123.0; sacct -X leaves them out)".into(),
        ));
    }
    if id.contains("_[") {
        // The tasks of an array that had not started when the array was
        // cancelled or sacct ran: one line for many tasks, none of them a
        // job that ran (a started task has a line of its own, 123_4).
        return Err(SacctSkip::Skip(
            "array remainder lines (123_[5-10]: tasks never started)".into(),
        ));
    }
    let (_, state) = get("State").expect("checked");
    let status = match slurm_state(state) {
        Ok(Some(s)) => s,
        Ok(None) => {
            let word = state.split_whitespace().next().unwrap_or("");
            let word = word.trim_end_matches('+').to_ascii_uppercase();
            return Err(SacctSkip::Skip(if word.starts_with("REQUEUE") {
                // `sacct -D` lists a requeued job's earlier runs; its last
                // record stands for the job.
                format!("earlier runs of requeued jobs: {word}")
            } else {
                format!("jobs not finished when sacct ran: {word}")
            }));
        }
        Err(m) => return Err(bad("State", m)),
    };
    let time = |name: &str| -> Result<Option<Time>, SacctSkip> {
        match get(name) {
            None => Ok(None),
            Some((_, v)) => slurm_time(v, zone).map_err(|m| bad(name, m)),
        }
    };
    let dur = |name: &str| -> Result<Option<Secs>, SacctSkip> {
        match get(name) {
            None => Ok(None),
            Some((_, v)) => slurm_duration(v).map_err(|m| bad(name, m)),
        }
    };
    let count = |name: &str| -> Result<Option<u32>, SacctSkip> {
        match get(name) {
            None => Ok(None),
            Some((_, "")) => Ok(None),
            Some((_, v)) => v
                .parse::<u32>()
                .map(|x| (x > 0).then_some(x))
                .map_err(|_| bad(name, "expected a whole number".into())),
        }
    };
    let Some(submit) = time("Submit")? else {
        return Err(bad("Submit", "a job always has a submit time".into()));
    };
    let start = time("Start")?;
    let end = time("End")?;
    let elapsed = dur("Elapsed")?;
    let req_time = dur("Timelimit")?;
    let alloc = count("AllocCPUS")?;
    let req = count("ReqCPUS")?;
    let nnodes = count("NNodes")?;
    let mem = match get("ReqMem") {
        None => None,
        Some((_, v)) => slurm_mem(v).map_err(|m| bad("ReqMem", m))?,
    };
    let name = |n: &str| {
        get(n)
            .map(|(_, v)| v)
            .filter(|v| !v.is_empty())
            .map(str::to_string)
    };
    // A job that never started (Start Unknown/None) never ran, whatever
    // Elapsed says.
    let (start, run, alloc) = match start {
        None => (None, None, None),
        Some(s) => {
            let run = elapsed.or(end.map(|e| (e - s).max(0)));
            (Some(s), run, alloc)
        }
    };
    let procs = req.or(alloc);
    let req_mem_kb = match (mem, procs) {
        (Some((mb, MemPer::Cpu)), _) => Some(mb * 1024),
        (Some((mb, MemPer::Node)), Some(p)) => {
            Some((mb * 1024 * nnodes.unwrap_or(1) as u64).div_ceil(p as u64))
        }
        (Some((mb, MemPer::Job)), Some(p)) => Some((mb * 1024).div_ceil(p as u64)),
        _ => None,
    };
    // A job submitted to several partitions that never ran shows them all;
    // as for the Slurm front end, the first is its class.
    let partitions = name("Partition");
    let partition = partitions
        .as_deref()
        .and_then(|p| p.split(',').map(str::trim).find(|p| !p.is_empty()))
        .map(str::to_string);
    let mut changes = Vec::new();
    if partitions.as_deref().is_some_and(|p| p.contains(',')) {
        changes.push(Change::PartitionList);
    }
    if req_time.is_none() {
        changes.push(Change::NoTimeLimit);
    }
    if nnodes.is_some_and(|n| n > 1) {
        changes.push(Change::NodeCount);
    }
    let mut a = Acct {
        id: id.to_string(),
        user: name("User"),
        group: name("Group"),
        queue: partition.clone(),
        partition,
        account: name("Account"),
        qos: name("QOS"),
        submit,
        start,
        run,
        alloc,
        req,
        req_time,
        req_mem_kb,
        used_mem_kb: None,
        avg_cpu: None,
        status: Some(status),
        changes,
    };
    a.note_missing();
    Ok(Some(a))
}

/// A malformed Torque record: column, the field at fault, the message.
type TorqueBad = (u32, &'static str, String);

/// A Torque job being assembled from its records.
#[derive(Default)]
struct Torque {
    /// `E` records by job id, in order of the id's first record.
    ended: BTreeMap<usize, Acct>,
    /// First-record order of every job id.
    order: HashMap<String, usize>,
    /// The zone of the record stamps.
    zone: Zone,
    /// `Q` record: time and queue.
    queued: HashMap<String, (Time, Option<String>)>,
    /// `D`/`A` records: time.
    deleted: HashMap<String, Time>,
    /// Line time minus epoch, learnt from the first `E` record with an end.
    offset: Option<Secs>,
    /// Processors seen per host in `exec_host`.
    hosts: BTreeMap<String, u32>,
    /// Array templates seen (`123[].srv`).
    array_parents: std::collections::BTreeSet<String>,
    ids: Vec<String>,
}

/// `MM/DD/YYYY HH:MM:SS` read in `zone`.
fn torque_stamp(s: &str, zone: &Zone) -> Option<Time> {
    let (d, t) = s.split_once(' ')?;
    let dp: Vec<&str> = d.split('/').collect();
    let tp: Vec<&str> = t.split(':').collect();
    if dp.len() != 3 || tp.len() != 3 {
        return None;
    }
    civil(
        zone,
        digits(dp[2])?,
        digits(dp[0])? as u32,
        digits(dp[1])? as u32,
        digits(tp[0])?,
        digits(tp[1])?,
        digits(tp[2])?,
    )
}

/// `HH:MM:SS` (hours may exceed 24), `D:HH:MM:SS` or seconds.
fn torque_duration(s: &str) -> Option<Secs> {
    let p: Vec<i64> = s.split(':').map(digits).collect::<Option<_>>()?;
    Some(match p.as_slice() {
        [s] => *s,
        [m, s] => m * 60 + s,
        [h, m, s] => h * 3600 + m * 60 + s,
        [d, h, m, s] => d * DAY + h * 3600 + m * 60 + s,
        _ => return None,
    })
}

/// Torque sizes: `4gb`, `500mb`, `1024kb`, `123b`, `2tb` (`w` words of 8
/// bytes). Returns KB, rounded up.
fn torque_size_kb(s: &str) -> Option<u64> {
    let t = s.to_ascii_lowercase();
    let end = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let x: u64 = t[..end].parse().ok()?;
    let bytes_per: u64 = match &t[end..] {
        "" | "b" => 1,
        "w" => 8,
        "kb" | "k" => 1 << 10,
        "kw" => 8 << 10,
        "mb" | "m" => 1 << 20,
        "mw" => 8 << 20,
        "gb" | "g" => 1 << 30,
        "gw" => 8 << 30,
        "tb" | "t" => 1 << 40,
        _ => return None,
    };
    Some((x as u128 * bytes_per as u128).div_ceil(1024) as u64)
}

/// Processors of `exec_host` (`n1/0+n1/1+n2/0`, Torque 5's `n1/0-3,5`),
/// with the hosts' processor numbers seen.
fn exec_host(s: &str, hosts: &mut BTreeMap<String, u32>) -> Option<u32> {
    let mut n = 0u32;
    for part in s.split('+') {
        let (host, slots) = part.split_once('/').unwrap_or((part, "0"));
        if host.is_empty() {
            return None;
        }
        let mut top = 0u32;
        for item in slots.split(',') {
            let (a, b) = match item.split_once('-') {
                Some((a, b)) => (digits(a)?, digits(b)?),
                None => {
                    let a = digits(item)?;
                    (a, a)
                }
            };
            if b < a {
                return None;
            }
            n += (b - a + 1) as u32;
            top = top.max(b as u32 + 1);
        }
        let e = hosts.entry(host.to_string()).or_insert(0);
        *e = (*e).max(top);
    }
    Some(n)
}

/// Processors a `Resource_List.nodes` asks for: `2:ppn=4`, `n1:ppn=2+n2`, `3`.
fn torque_nodes(s: &str) -> Option<u32> {
    let mut n = 0u32;
    for part in s.split('+') {
        let mut it = part.split(':');
        let first = it.next()?;
        let count = digits(first).map_or(1, |c| c as u32);
        let mut ppn = 1u32;
        for a in it {
            if let Some(v) = a.strip_prefix("ppn=") {
                ppn = digits(v)? as u32;
            }
        }
        n += count * ppn;
    }
    (n > 0).then_some(n)
}

/// Nodes a `Resource_List.nodes` asks for, and whether it names node
/// properties (`gpus=1`, a feature) besides `ppn`.
fn torque_nodes_shape(s: &str) -> (u32, bool) {
    let mut nodes = 0u32;
    let mut props = false;
    for part in s.split('+') {
        let mut it = part.split(':');
        let first = it.next().unwrap_or("");
        // `2:ppn=4` is two nodes; `n1:ppn=2` one named node.
        nodes += digits(first).map_or(1, |c| c as u32);
        props |= it.any(|a| !a.starts_with("ppn="));
    }
    (nodes, props)
}

/// The QOS of Maui's RM extension string (`x=QOS:high`, items separated by
/// `;`, section 13.3 of Maui's guide).
fn rm_extension_qos(x: &str) -> Option<String> {
    x.split(';').find_map(|item| {
        let (k, v) = item.trim().split_once([':', '='])?;
        (k.trim().eq_ignore_ascii_case("QOS") && !v.trim().is_empty()).then(|| v.trim().to_string())
    })
}

impl Torque {
    fn seen(&mut self, id: &str) -> usize {
        if let Some(&i) = self.order.get(id) {
            return i;
        }
        let i = self.ids.len();
        self.ids.push(id.to_string());
        self.order.insert(id.to_string(), i);
        i
    }

    fn read(
        &mut self,
        r: Box<dyn BufRead + '_>,
        file: &str,
        opts: ReadOptions,
        st: &mut ReadStats,
        left: &mut Left,
    ) -> Result<(), InputError> {
        let mut lr = LineReader::new(r);
        loop {
            let line = match lr.next_line() {
                Ok(Some(l)) => String::from_utf8_lossy(l).into_owned(),
                Ok(None) => break,
                Err(e) => return Err(InputError::io(file, e)),
            };
            st.lines += 1;
            if line.trim().is_empty() {
                st.comments += 1;
                continue;
            }
            if let Err((col, field, msg)) = self.line(&line) {
                left.malformed(st, InputError::syntax(file, lr.line, col, msg), field, opts)?;
            } else {
                st.records += 1;
            }
        }
        Ok(())
    }

    fn line(&mut self, line: &str) -> Result<(), TorqueBad> {
        let mut parts = line.splitn(4, ';');
        let (stamp, kind, id) = match (parts.next(), parts.next(), parts.next()) {
            (Some(a), Some(b), Some(c)) => (a, b, c),
            _ => {
                return Err((
                    1,
                    "record layout",
                    "expected MM/DD/YYYY HH:MM:SS;TYPE;JOBID;ATTRIBUTES".into(),
                ))
            }
        };
        let attrs = parts.next().unwrap_or("");
        let at = torque_stamp(stamp, &self.zone).ok_or_else(|| {
            (
                1,
                "record time",
                format!("expected a time MM/DD/YYYY HH:MM:SS, got \"{stamp}\""),
            )
        })?;
        let attr_col = (stamp.len() + kind.len() + id.len() + 3) as u32 + 1;
        if id.trim().is_empty() {
            return Err((
                (stamp.len() + kind.len() + 2) as u32 + 1,
                "job id",
                "empty job id".into(),
            ));
        }
        let id = id.trim();
        if id.contains("[]") {
            // Torque's array template (`123[].srv`) stands for its tasks,
            // each with records of its own; older servers log it too.
            self.array_parents.insert(id.to_string());
            return Ok(());
        }
        match kind {
            "Q" => {
                let a = attributes(attrs);
                self.seen(id);
                self.queued
                    .entry(id.to_string())
                    .or_insert((at, a.get("queue").map(|s| s.to_string())));
            }
            "D" | "A" => {
                self.seen(id);
                self.deleted.entry(id.to_string()).or_insert(at);
            }
            "E" => {
                let a = attributes(attrs);
                let num = |k: &'static str| -> Result<Option<i64>, TorqueBad> {
                    match a.get(k) {
                        None => Ok(None),
                        Some(v) => digits(v).map(Some).ok_or_else(|| {
                            (
                                attr_col,
                                k,
                                format!("{k}: expected epoch seconds, got \"{v}\""),
                            )
                        }),
                    }
                };
                let submit = match (num("qtime")?, num("ctime")?) {
                    (Some(q), _) if q > 0 => q,
                    (_, Some(c)) if c > 0 => c,
                    _ => return Err((attr_col, "qtime", "E record without qtime or ctime".into())),
                };
                let start = num("start")?.filter(|&s| s > 0);
                let end = num("end")?.filter(|&e| e > 0);
                if self.offset.is_none() {
                    if let Some(e) = end {
                        // Whole quarter hours: the record is written within
                        // seconds of the job's end.
                        self.offset = Some(((at - e) as f64 / 900.0).round() as i64 * 900);
                    }
                }
                let alloc = match a.get("exec_host") {
                    None => None,
                    Some(v) => Some(exec_host(v, &mut self.hosts).ok_or_else(|| {
                        (
                            attr_col,
                            "exec_host",
                            format!("exec_host: expected host/N+host/N..., got \"{v}\""),
                        )
                    })?),
                };
                let req = a
                    .get("Resource_List.procs")
                    .and_then(|v| digits(v))
                    .map(|v| v as u32)
                    .or_else(|| a.get("Resource_List.nodes").and_then(|v| torque_nodes(v)))
                    .or_else(|| {
                        a.get("Resource_List.ncpus")
                            .and_then(|v| digits(v))
                            .map(|v| v as u32)
                    })
                    .filter(|&p| p > 0);
                let req_time = match a.get("Resource_List.walltime") {
                    None => None,
                    Some(v) => Some(torque_duration(v).ok_or_else(|| {
                        (
                            attr_col,
                            "Resource_List.walltime",
                            format!("Resource_List.walltime: expected HH:MM:SS, got \"{v}\""),
                        )
                    })?),
                };
                let procs = req.or(alloc).unwrap_or(1) as u64;
                let size = |k: &'static str| -> Result<Option<u64>, TorqueBad> {
                    match a.get(k) {
                        None => Ok(None),
                        Some(v) => torque_size_kb(v).map(Some).ok_or_else(|| {
                            (
                                attr_col,
                                k,
                                format!("{k}: expected a size such as 4gb, got \"{v}\""),
                            )
                        }),
                    }
                };
                let req_mem_kb = match size("Resource_List.pmem")? {
                    Some(p) => Some(p),
                    None => size("Resource_List.mem")?.map(|m| m.div_ceil(procs)),
                }
                .filter(|&m| m > 0);
                let used_procs = alloc.unwrap_or(procs as u32).max(1) as u64;
                let used_mem_kb = size("resources_used.mem")?.map(|m| m / used_procs);
                let avg_cpu = a
                    .get("resources_used.cput")
                    .and_then(|v| torque_duration(v))
                    .map(|c| c / used_procs as i64);
                let exit = a.get("Exit_status").and_then(|v| v.parse::<i64>().ok());
                let run = match (start, end) {
                    (Some(s), Some(e)) => Some((e - s).max(0)),
                    _ => None,
                };
                let mut changes = Vec::new();
                if req_time.is_none() {
                    changes.push(Change::NoTimeLimit);
                }
                if let Some(v) = a.get("Resource_List.nodes") {
                    let (nodes, props) = torque_nodes_shape(v);
                    if nodes > 1 {
                        changes.push(Change::NodeCount);
                    }
                    if props {
                        changes.push(Change::NodeProperties);
                    }
                }
                if start.is_some() && alloc.is_some() {
                    changes.push(Change::ExecHosts);
                }
                let qos = a
                    .get("Resource_List.qos")
                    .filter(|q| !q.is_empty())
                    .cloned()
                    .or_else(|| a.get("x").and_then(|x| rm_extension_qos(x)));
                let i = self.seen(id);
                self.ended.insert(
                    i,
                    Acct {
                        id: id.to_string(),
                        user: a.get("user").map(|s| s.to_string()),
                        group: a.get("group").map(|s| s.to_string()),
                        queue: a.get("queue").map(|s| s.to_string()),
                        partition: None,
                        account: a.get("account").map(|s| s.to_string()),
                        qos,
                        submit,
                        start,
                        run: start.and(run),
                        alloc: start.and(alloc),
                        req,
                        req_time,
                        req_mem_kb,
                        used_mem_kb,
                        avg_cpu,
                        status: match exit {
                            Some(0) => Some(SwfStatus::Completed),
                            Some(_) => Some(SwfStatus::Failed),
                            None => None,
                        },
                        changes,
                    },
                );
            }
            _ => {}
        }
        Ok(())
    }

    /// The jobs: every `E` record, and cancelled records for deleted or
    /// aborted jobs that never ended.
    fn finish(mut self, left: &mut Left) -> Vec<Acct> {
        let off = self.offset.unwrap_or(0);
        let mut out = Vec::new();
        for _ in &self.array_parents {
            left.skip("array parents (123[].srv: its tasks are jobs of their own)");
        }
        for (i, id) in self.ids.iter().enumerate() {
            if let Some(mut a) = self.ended.remove(&i) {
                if self.deleted.contains_key(id) {
                    a.status = Some(SwfStatus::Cancelled);
                }
                out.push(a);
            } else if let Some(&d) = self.deleted.get(id) {
                let q = self.queued.get(id);
                out.push(Acct {
                    id: id.clone(),
                    queue: q.and_then(|q| q.1.clone()),
                    submit: q.map_or(d, |q| q.0) - off,
                    status: Some(SwfStatus::Cancelled),
                    ..Acct::default()
                });
            } else {
                left.skip("jobs queued but not ended (no E, D or A record)");
            }
        }
        for a in &mut out {
            a.note_missing();
        }
        out
    }
}

/// `key=value` pairs; a blank-separated word without `=` belongs to the
/// previous value (job names with blanks).
fn attributes(s: &str) -> BTreeMap<&str, String> {
    let mut m: BTreeMap<&str, String> = BTreeMap::new();
    let mut last: Option<&str> = None;
    for w in s.split_whitespace() {
        match w.split_once('=') {
            Some((k, v)) if !k.is_empty() => {
                m.insert(k, v.to_string());
                last = Some(k);
            }
            _ => {
                if let Some(v) = last.and_then(|k| m.get_mut(k)) {
                    v.push(' ');
                    v.push_str(w);
                }
            }
        }
    }
    m
}

/// Named input streams, as [`convert`] takes them.
pub type Inputs<'a> = Vec<(String, Box<dyn BufRead + 'a>)>;

/// Opens the inputs (`-` is standard input), plain or gzip.
pub fn open_inputs(paths: &[std::path::PathBuf]) -> Result<Inputs<'static>, InputError> {
    paths
        .iter()
        .map(|p| {
            if p.as_os_str() == "-" {
                let r = input::decompress(std::io::BufReader::new(std::io::stdin()))
                    .map_err(|e| InputError::io("<stdin>", e))?;
                Ok(("<stdin>".to_string(), r))
            } else {
                Ok((p.display().to_string(), input::open(p)?))
            }
        })
        .collect()
}

#[cfg(test)]
#[path = "convert_tests.rs"]
mod tests;
