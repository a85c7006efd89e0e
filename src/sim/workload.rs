//! From trace records to simulator jobs, and the workload selections
//! (`--jobs`, `--start-at`, `--scale-load`).
//!
//! # SWF conventions
//!
//! [`map_swf`] turns one SWF record into a [`SimJob`]:
//!
//! - **id**: the job number, as text (`"15"`).
//! - **credentials**: user `u<N>`, group `g<N>`, class `q<N>` from the user,
//!   group and queue numbers, so `USERCFG[u12]`, `GROUPCFG[g3]` and
//!   `CLASSCFG[q1]` (and fairshare on them) apply. An unknown user or group
//!   (`-1`, e.g. every job of the Lublin model) becomes [`UNKNOWN_USER`] /
//!   [`UNKNOWN_GROUP`]; an unknown queue, no class. SWF suggests queue 0 for
//!   interactive jobs, so `q0` is the interactive class when a log follows it.
//!   A header that names them (`; user 3 = alice`, `; group 2 = physics`,
//!   `; queue 1 = batch`, as `mauictl convert` writes) gives the names
//!   instead, so a site's own `USERCFG[alice]` applies to its converted
//!   accounting data; numbers without a name keep the `u<N>` form.
//! - **account and QOS**: SWF has no field for them; a header line
//!   `; job 12 account proj1 qos high` (what `mauictl convert` writes for
//!   every job that has either) gives job 12 its account and QOS, so
//!   `ACCOUNTCFG`, `QOSCFG` and fairshare on them apply. Without such a
//!   line a job has neither.
//! - **partition**: `p<N>` (or the name a `; partition 2 = gpu` header line
//!   gives it) only with [`MapOptions::partitions`]. It is off by
//!   default: the field says where a job *ran* (HPC2N's are Maui's `DEFAULT`
//!   and `ALL`), and as a hard constraint it strands every job on a cluster
//!   whose nodes do not carry those partitions (a synthesised one never does).
//! - **submit time**: origin + field 2. The origin is [`MapOptions::origin`],
//!   else the header's `UnixStartTime`, else 0, so calendar-based policy
//!   (standing reservations, FSINTERVAL boundaries) sees the log's real dates
//!   when the log has them.
//! - **processors and tasks**: requested processors (field 8), else allocated
//!   (field 5). SWF counts processors, not nodes or tasks, so a job of P
//!   processors is P tasks of one processor each with no node count: the
//!   allocator may pack them on SMP nodes or spread them, as Maui does for a
//!   plain processor-count request.
//! - **memory**: field 10 is KB per processor; one task is one processor, so
//!   the task's memory is that figure in MB, rounded up. Used memory (field 7)
//!   is a measurement, not a request, and is not turned into one.
//! - **walltime**: requested time (field 9), read as wallclock seconds. A job
//!   without one (`-1` or 0) gets [`MapOptions::no_request`]: by default its
//!   actual runtime ([`NoRequest::Runtime`], the exact-estimate convention of
//!   studies on models such as Lublin's, whose header documents no estimate
//!   at all), or Maui's SYSTEMDEFAULTJOBWALLTIME, or a fixed limit.
//! - **runtime**: field 4, kept in [`SimJob::runtime`]; the simulator runs a
//!   job for [`SimJob::sim_runtime`], its runtime cut at its walltime, since
//!   Maui's resource manager would have ended it there.
//!
//! Records that cannot be simulated are skipped and counted by
//! [`SkipReason`], never dropped silently: partial-execution records (the
//! job's summary record stands for it), unknown submit time, no processors,
//! unknown runtime, jobs cancelled before they started (status 5 with no
//! runtime or no processors: they never held resources), duplicate ids, and
//! jobs larger than [`MapOptions::max_procs`].

use super::input::{self, InputError, LineReader, ReadOptions, ReadStats};
use super::mauitrace::{self, WorkloadRecord};
use super::swf::{SwfHeader, SwfReader, SwfRecord, SwfStatus};
use crate::model::{time::parse_duration, Job, Resources, Secs, Time};
use std::collections::{BTreeMap, HashSet};
use std::io::BufRead;
use std::path::Path;
use std::str::FromStr;

/// User name for records whose user is unknown.
pub const UNKNOWN_USER: &str = "nobody";
/// Group name for records whose group is unknown.
pub const UNKNOWN_GROUP: &str = "nogroup";

/// A job as the simulator replays it: the engine's view plus what happened.
#[derive(Clone, Debug, PartialEq)]
pub struct SimJob {
    /// The job as the RM would report it at submission.
    pub job: Job,
    /// The runtime the trace recorded, seconds (may exceed the walltime).
    pub runtime: Secs,
    /// How long the job waited on the traced system, if recorded (for
    /// comparing the simulated schedule with the real one).
    pub trace_wait: Option<Secs>,
}

impl SimJob {
    /// How long the job runs in the simulation: its traced runtime, cut at
    /// its walltime (`default_walltime` for a job without one).
    pub fn sim_runtime(&self, default_walltime: Secs) -> Secs {
        self.runtime
            .min(self.job.walltime.unwrap_or(default_walltime))
            .max(0)
    }
}

/// The walltime given to a job whose trace record has no requested time.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum NoRequest {
    /// The job's actual runtime (an exact estimate).
    #[default]
    Runtime,
    /// No walltime: Maui's SYSTEMDEFAULTJOBWALLTIME applies, as for a job
    /// submitted without a limit.
    SystemDefault,
    /// This many seconds.
    Fixed(Secs),
}

impl FromStr for NoRequest {
    type Err = String;

    /// `runtime`, `default`, or a duration `[[[DD:]HH:]MM:]SS`.
    fn from_str(s: &str) -> Result<Self, String> {
        match s.to_ascii_lowercase().as_str() {
            "runtime" => Ok(NoRequest::Runtime),
            "default" | "systemdefault" => Ok(NoRequest::SystemDefault),
            _ => match parse_duration(s) {
                Ok(Some(d)) if d > 0 => Ok(NoRequest::Fixed(d)),
                _ => Err(format!(
                    "expected runtime, default or a positive duration, got \"{s}\""
                )),
            },
        }
    }
}

/// How trace records become jobs.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MapOptions {
    /// Epoch of the trace's time 0 (default: header `UnixStartTime`, else 0).
    pub origin: Option<Time>,
    /// Walltime of jobs with no requested time.
    pub no_request: NoRequest,
    /// Turn SWF partition numbers into required partitions `p<N>`.
    pub partitions: bool,
    /// Skip jobs asking for more processors than this (the cluster's size).
    pub max_procs: Option<u32>,
}

/// Why a trace record was not turned into a job.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SkipReason {
    /// A partial-execution record; the job's summary record stands for it.
    PartialExecution,
    /// The submit time is unknown.
    NoSubmitTime,
    /// Neither requested nor allocated processors (nor tasks) are positive.
    NoProcs,
    /// The runtime is unknown or negative.
    NoRuntime,
    /// Cancelled before it started: it never held resources.
    CancelledBeforeStart,
    /// A Maui trace record of a job that never ran (`NotRun`).
    NotRun,
    /// Another record already used this job id.
    DuplicateId,
    /// More processors than [`MapOptions::max_procs`].
    TooLarge,
}

impl SkipReason {
    /// Short description for reports.
    pub fn describe(self) -> &'static str {
        match self {
            SkipReason::PartialExecution => "partial-execution records",
            SkipReason::NoSubmitTime => "unknown submit time",
            SkipReason::NoProcs => "no processors",
            SkipReason::NoRuntime => "unknown or negative runtime",
            SkipReason::CancelledBeforeStart => "cancelled before starting",
            SkipReason::NotRun => "never ran (NotRun)",
            SkipReason::DuplicateId => "duplicate job id",
            SkipReason::TooLarge => "larger than the cluster",
        }
    }
}

/// Which trace format a workload came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TraceFormat {
    /// Standard Workload Format (18 fields).
    Swf,
    /// Maui's workload trace (44 fields).
    MauiWorkload,
}

impl TraceFormat {
    /// Name for reports.
    pub fn name(self) -> &'static str {
        match self {
            TraceFormat::Swf => "SWF",
            TraceFormat::MauiWorkload => "Maui workload trace",
        }
    }
}

/// A loaded workload: jobs in submission order, and what was left out.
#[derive(Debug)]
pub struct Workload {
    /// File name as given.
    pub source: String,
    /// Format read.
    pub format: TraceFormat,
    /// SWF header (of a Maui trace: its `# Key: value` comments).
    pub header: SwfHeader,
    /// Epoch of the trace's time 0 (submit times already include it).
    pub origin: Time,
    /// Jobs sorted by submit time (ties in file order).
    pub jobs: Vec<SimJob>,
    /// Line counts and malformed lines (lenient mode).
    pub read: ReadStats,
    /// Records not turned into jobs, by reason.
    pub skipped: BTreeMap<SkipReason, u64>,
}

impl Workload {
    /// Records skipped for any reason.
    pub fn skipped_total(&self) -> u64 {
        self.skipped.values().sum()
    }

    /// Applies `--start-at`, then `--jobs`, then `--scale-load`.
    pub fn select(&mut self, sel: &Selection) -> Result<(), String> {
        if let Some(at) = &sel.start_at {
            start_at(&mut self.jobs, self.origin, at)?;
        }
        if let Some(n) = sel.jobs {
            first_n(&mut self.jobs, n);
        }
        if let Some(f) = sel.scale_load {
            scale_load(&mut self.jobs, f);
        }
        Ok(())
    }
}

/// The epoch a trace's relative times are counted from.
pub fn swf_origin(header: &SwfHeader, opts: &MapOptions) -> Time {
    opts.origin.or(header.unix_start_time).unwrap_or(0)
}

fn walltime(requested: Option<Secs>, runtime: Secs, opts: &MapOptions) -> Option<Secs> {
    match requested.filter(|&t| t > 0) {
        Some(t) => Some(t),
        None => match opts.no_request {
            // A job that ran 0 s still needs a positive limit to be schedulable.
            NoRequest::Runtime => Some(runtime.max(1)),
            NoRequest::SystemDefault => None,
            NoRequest::Fixed(t) => Some(t),
        },
    }
}

/// Credential names an SWF header gives to user, group, queue and partition
/// numbers (`; user 3 = alice`), and the accounts and QOS of jobs (`; job
/// 12 account proj1 qos high`): what `mauictl convert` writes beside its
/// records.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SwfNames {
    /// User number to name.
    pub users: BTreeMap<u32, String>,
    /// Group number to name.
    pub groups: BTreeMap<u32, String>,
    /// Queue number to class name.
    pub queues: BTreeMap<u32, String>,
    /// Partition number to partition name.
    pub partitions: BTreeMap<u32, String>,
    /// Job number to its account and QOS.
    pub jobs: BTreeMap<u64, JobCreds>,
}

/// What an SWF job record cannot say about a job's credentials.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct JobCreds {
    /// Account.
    pub account: Option<String>,
    /// QOS.
    pub qos: Option<String>,
}

impl SwfNames {
    /// The `user|group|queue|partition N = NAME` and `job N account NAME
    /// qos NAME` comment lines of a header; other comments are left alone,
    /// and a name must be one word (it becomes a credential name in
    /// maui.cfg's `USERCFG[NAME]`).
    pub fn from_header(h: &SwfHeader) -> SwfNames {
        let mut names = SwfNames::default();
        for c in &h.comments {
            let w: Vec<&str> = c.split_whitespace().collect();
            if let ["job", n, rest @ ..] = w.as_slice() {
                if let Some(creds) = job_creds(rest) {
                    if let Ok(n) = n.parse::<u64>() {
                        names.jobs.insert(n, creds);
                    }
                }
                continue;
            }
            let [kind, n, "=", name] = w.as_slice() else {
                continue;
            };
            let Ok(n) = n.parse::<u32>() else { continue };
            let table = match *kind {
                "user" => &mut names.users,
                "group" => &mut names.groups,
                "queue" => &mut names.queues,
                "partition" => &mut names.partitions,
                _ => continue,
            };
            table.insert(n, name.to_string());
        }
        names
    }

    fn name(table: &BTreeMap<u32, String>, n: u32, prefix: char) -> String {
        table
            .get(&n)
            .cloned()
            .unwrap_or_else(|| format!("{prefix}{n}"))
    }
}

/// `account NAME`, `qos NAME` or both (in that order, each at most once):
/// the rest of a `; job N ...` header line.
fn job_creds(words: &[&str]) -> Option<JobCreds> {
    let mut c = JobCreds::default();
    let mut rest = words;
    if let ["account", a, tail @ ..] = rest {
        c.account = Some(a.to_string());
        rest = tail;
    }
    if let ["qos", q, tail @ ..] = rest {
        c.qos = Some(q.to_string());
        rest = tail;
    }
    (rest.is_empty() && (c.account.is_some() || c.qos.is_some())).then_some(c)
}

/// Turns one SWF record into a job, following the conventions in the module
/// documentation, or says why it cannot be simulated.
pub fn map_swf(rec: &SwfRecord, origin: Time, opts: &MapOptions) -> Result<SimJob, SkipReason> {
    map_swf_named(rec, origin, opts, &SwfNames::default())
}

/// [`map_swf`] with the credential names the trace's header gives.
pub fn map_swf_named(
    rec: &SwfRecord,
    origin: Time,
    opts: &MapOptions,
    names: &SwfNames,
) -> Result<SimJob, SkipReason> {
    if rec.status.is_some_and(SwfStatus::is_partial) {
        return Err(SkipReason::PartialExecution);
    }
    let submit = rec.submit.ok_or(SkipReason::NoSubmitTime)?;
    let cancelled = rec.status == Some(SwfStatus::Cancelled);
    let ran = rec.run.is_some_and(|r| r > 0) && rec.alloc_procs.is_some_and(|p| p > 0);
    if cancelled && !ran {
        return Err(SkipReason::CancelledBeforeStart);
    }
    let procs = rec
        .req_procs
        .filter(|&p| p > 0)
        .or(rec.alloc_procs.filter(|&p| p > 0))
        .ok_or(SkipReason::NoProcs)?;
    let runtime = rec.run.ok_or(SkipReason::NoRuntime)?;
    if opts.max_procs.is_some_and(|m| procs > m) {
        return Err(SkipReason::TooLarge);
    }
    let mem_mb = rec.req_mem_kb.map_or(0, |kb| kb.div_ceil(1024));
    let creds = names.jobs.get(&rec.job);
    let job = Job {
        id: rec.job.to_string(),
        user: rec.user.map_or_else(
            || UNKNOWN_USER.to_string(),
            |u| SwfNames::name(&names.users, u, 'u'),
        ),
        group: rec.group.map_or_else(
            || UNKNOWN_GROUP.to_string(),
            |g| SwfNames::name(&names.groups, g, 'g'),
        ),
        class: rec.queue.map(|q| SwfNames::name(&names.queues, q, 'q')),
        account: creds.and_then(|c| c.account.clone()),
        qos: creds.and_then(|c| c.qos.clone()),
        partition: if opts.partitions {
            rec.partition
                .map(|p| SwfNames::name(&names.partitions, p, 'p'))
        } else {
            None
        },
        submit_time: origin.saturating_add(submit),
        walltime: walltime(rec.req_time, runtime, opts),
        tasks: procs,
        task: Resources::procs_mem(1, mem_mb),
        ..Job::default()
    };
    Ok(SimJob {
        job,
        runtime,
        trace_wait: rec.wait,
    })
}

/// Job ids already used. SWF job numbers are dense small integers, so a
/// bit set serves them without hashing; text ids (Maui traces) use a set.
#[derive(Default)]
struct SeenIds {
    bits: Vec<u64>,
    big: HashSet<u64>,
    text: HashSet<String>,
}

/// Numbers below this go into the bit set (at most 32 MB of bits).
const BITSET_LIMIT: u64 = 1 << 28;

impl SeenIds {
    /// Marks a number as used; false when it already was.
    fn insert_num(&mut self, n: u64) -> bool {
        if n >= BITSET_LIMIT {
            return self.big.insert(n);
        }
        let (w, b) = ((n / 64) as usize, n % 64);
        if w >= self.bits.len() {
            self.bits.resize((w + 1).next_power_of_two(), 0);
        }
        let fresh = self.bits[w] & (1 << b) == 0;
        self.bits[w] |= 1 << b;
        fresh
    }
}

/// Collects mapped jobs: duplicate check, skip counts, submission order.
struct Collector {
    jobs: Vec<SimJob>,
    skipped: BTreeMap<SkipReason, u64>,
    seen: SeenIds,
}

impl Collector {
    fn with_capacity(n: usize) -> Self {
        Collector {
            jobs: Vec::with_capacity(n),
            skipped: BTreeMap::new(),
            seen: SeenIds::default(),
        }
    }

    fn skip(&mut self, why: SkipReason) {
        *self.skipped.entry(why).or_default() += 1;
    }

    /// Adds an SWF job (its id is the record's job number).
    fn push_numbered(&mut self, number: u64, r: Result<SimJob, SkipReason>) {
        match r {
            Ok(j) if self.seen.insert_num(number) => self.jobs.push(j),
            Ok(_) => self.skip(SkipReason::DuplicateId),
            Err(why) => self.skip(why),
        }
    }

    /// Adds a job with a text id.
    fn push(&mut self, r: Result<SimJob, SkipReason>) {
        match r {
            Ok(j) if self.seen.text.insert(j.job.id.clone()) => self.jobs.push(j),
            Ok(_) => self.skip(SkipReason::DuplicateId),
            Err(why) => self.skip(why),
        }
    }

    fn finish(mut self) -> (Vec<SimJob>, BTreeMap<SkipReason, u64>) {
        // Archive logs are sorted by submission; sort (stably) in case one is not.
        if !self
            .jobs
            .windows(2)
            .all(|w| w[0].job.submit_time <= w[1].job.submit_time)
        {
            self.jobs.sort_by_key(|j| j.job.submit_time);
        }
        (self.jobs, self.skipped)
    }
}

/// Reads an SWF stream and maps every record.
pub fn load_swf<R: BufRead>(
    r: R,
    file: &str,
    read: ReadOptions,
    map: &MapOptions,
) -> Result<Workload, InputError> {
    let mut reader = SwfReader::new(r, file, read)?;
    let origin = swf_origin(reader.header(), map);
    // Reserve what the header announces (bounded: a header may lie) so the
    // job vector is not copied as it grows.
    let expect = reader.header().max_records.unwrap_or(0).min(1 << 22) as usize;
    let mut c = Collector::with_capacity(expect);
    let names = SwfNames::from_header(reader.header());
    while let Some(rec) = reader.next_record()? {
        c.push_numbered(rec.job, map_swf_named(&rec, origin, map, &names));
    }
    let (header, stats) = reader.finish();
    let (jobs, skipped) = c.finish();
    Ok(Workload {
        source: file.to_string(),
        format: TraceFormat::Swf,
        header,
        origin,
        jobs,
        read: stats,
        skipped,
    })
}

/// Reads a Maui workload trace and maps every record (see
/// [`mauitrace::map_workload_record`] for the conventions).
pub fn load_maui_workload<R: BufRead>(
    r: R,
    file: &str,
    read: ReadOptions,
    map: &MapOptions,
) -> Result<Workload, InputError> {
    let mut c = Collector::with_capacity(0);
    let mut stats = ReadStats::default();
    let mut header = SwfHeader::default();
    mauitrace::read_workload_with_header(
        r,
        file,
        read,
        &mut stats,
        &mut header,
        |rec: WorkloadRecord| {
            c.push(mauitrace::map_workload_record(&rec, map));
        },
    )?;
    let (jobs, skipped) = c.finish();
    Ok(Workload {
        source: file.to_string(),
        format: TraceFormat::MauiWorkload,
        header,
        origin: map.origin.unwrap_or(0),
        jobs,
        read: stats,
        skipped,
    })
}

/// The format of a workload file, from its first data line: 18 fields is
/// SWF, 44 a Maui workload trace (whose `VERSION 230` line, and comments
/// from a `#` to the end of a line, are skipped).
pub fn detect_format(path: &Path) -> Result<TraceFormat, InputError> {
    let name = path.display().to_string();
    let mut lines = LineReader::new(input::open(path)?);
    while let Some(l) = lines.next_line().map_err(|e| InputError::io(&name, e))? {
        let l = mauitrace::uncommented(l);
        let t = l.trim_ascii_start();
        if t.is_empty() || t[0] == b';' {
            continue;
        }
        if mauitrace::version_line(t).is_some() {
            // Read (and refused if need be) with the records.
            return Ok(TraceFormat::MauiWorkload);
        }
        return match input::fields(l).count() {
            18 => Ok(TraceFormat::Swf),
            44 => Ok(TraceFormat::MauiWorkload),
            n => Err(InputError::syntax(
                &name,
                lines.line,
                1,
                format!(
                    "{n} fields: neither SWF (18 fields) nor a Maui workload trace (44 fields)"
                ),
            )),
        };
    }
    Err(InputError::Invalid {
        file: name,
        message: "no job records".into(),
    })
}

/// Loads a workload file of either format (plain or gzip).
pub fn load_path(path: &Path, read: ReadOptions, map: &MapOptions) -> Result<Workload, InputError> {
    let name = path.display().to_string();
    match detect_format(path)? {
        TraceFormat::Swf => load_swf(input::open(path)?, &name, read, map),
        TraceFormat::MauiWorkload => load_maui_workload(input::open(path)?, &name, read, map),
    }
}

/// Where a simulation starts in the trace (`--start-at`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StartAt {
    /// Seconds after the trace's time 0: earlier jobs are dropped.
    Offset(Secs),
    /// At this job: jobs submitted before it are dropped.
    Job(String),
}

impl FromStr for StartAt {
    type Err = String;

    /// `job:ID`, or a duration `[[[DD:]HH:]MM:]SS` after the trace start.
    fn from_str(s: &str) -> Result<Self, String> {
        if let Some(id) = s.strip_prefix("job:") {
            if id.is_empty() {
                return Err("job: needs a job id".into());
            }
            return Ok(StartAt::Job(id.to_string()));
        }
        match parse_duration(s) {
            Ok(Some(d)) if d >= 0 => Ok(StartAt::Offset(d)),
            _ => Err(format!(
                "expected job:ID or a duration [[[DD:]HH:]MM:]SS, got \"{s}\""
            )),
        }
    }
}

/// Drops the jobs before the starting point (`--start-at`).
pub fn start_at(jobs: &mut Vec<SimJob>, origin: Time, at: &StartAt) -> Result<(), String> {
    let first = match at {
        StartAt::Offset(d) => {
            let t = origin.saturating_add(*d);
            jobs.partition_point(|j| j.job.submit_time < t)
        }
        StartAt::Job(id) => jobs
            .iter()
            .position(|j| &j.job.id == id)
            .ok_or_else(|| format!("job {id} is not in the workload"))?,
    };
    jobs.drain(..first);
    Ok(())
}

/// Keeps the first `n` jobs (`--jobs N`).
pub fn first_n(jobs: &mut Vec<SimJob>, n: usize) {
    jobs.truncate(n);
}

/// A load factor `F` for `--scale-load`, kept as an exact fraction so
/// scaled submit times are whole seconds computed without floating point.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LoadScale {
    num: u64,
    den: u64,
}

impl LoadScale {
    /// The factor `num/den` (both positive).
    pub fn new(num: u64, den: u64) -> Option<LoadScale> {
        if num == 0 || den == 0 {
            return None;
        }
        let g = gcd(num, den);
        Some(LoadScale {
            num: num / g,
            den: den / g,
        })
    }

    /// The factor as a real number, for display.
    pub fn as_f64(self) -> f64 {
        self.num as f64 / self.den as f64
    }
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

impl FromStr for LoadScale {
    type Err = String;

    /// `2`, `1.25` or `5/4`.
    fn from_str(s: &str) -> Result<Self, String> {
        let bad = || format!("expected a positive factor such as 1.5 or 3/2, got \"{s}\"");
        let t = s.trim();
        let (num, den) = if let Some((a, b)) = t.split_once('/') {
            (
                a.trim().parse::<u64>().map_err(|_| bad())?,
                b.trim().parse::<u64>().map_err(|_| bad())?,
            )
        } else {
            let (int, frac) = t.split_once('.').unwrap_or((t, ""));
            if frac.len() > 9
                || !(int.bytes().all(|b| b.is_ascii_digit())
                    && frac.bytes().all(|b| b.is_ascii_digit()))
                || (int.is_empty() && frac.is_empty())
            {
                return Err(bad());
            }
            let den = 10u64.pow(frac.len() as u32);
            let int: u64 = if int.is_empty() {
                0
            } else {
                int.parse().map_err(|_| bad())?
            };
            let frac: u64 = if frac.is_empty() {
                0
            } else {
                frac.parse().map_err(|_| bad())?
            };
            (
                int.checked_mul(den)
                    .and_then(|x| x.checked_add(frac))
                    .ok_or_else(bad)?,
                den,
            )
        };
        LoadScale::new(num, den).ok_or_else(bad)
    }
}

impl std::fmt::Display for LoadScale {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.den == 1 {
            write!(f, "{}", self.num)
        } else {
            write!(f, "{}/{}", self.num, self.den)
        }
    }
}

/// Divides every interarrival time by `f` (`--scale-load F`): `F > 1` packs
/// the same jobs into less time, raising the offered load by `F`. The first
/// job keeps its submit time; times are rounded to the nearest second.
pub fn scale_load(jobs: &mut [SimJob], f: LoadScale) {
    let Some(t0) = jobs.first().map(|j| j.job.submit_time) else {
        return;
    };
    let (num, den) = (f.num as i128, f.den as i128);
    for j in jobs.iter_mut() {
        let d = (j.job.submit_time - t0) as i128;
        // Round half up: (d * den + num/2) / num, in exact integers.
        let scaled = (2 * d * den + num).div_euclid(2 * num);
        j.job.submit_time = t0 + scaled.clamp(0, i64::MAX as i128) as i64;
    }
}

/// `--start-at`, `--jobs` and `--scale-load` together.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Selection {
    /// Where to start (`--start-at`).
    pub start_at: Option<StartAt>,
    /// How many jobs to keep (`--jobs N`).
    pub jobs: Option<usize>,
    /// Load factor (`--scale-load F`).
    pub scale_load: Option<LoadScale>,
}

#[cfg(test)]
#[path = "workload_tests.rs"]
mod tests;
