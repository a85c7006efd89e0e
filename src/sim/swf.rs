//! The Standard Workload Format (SWF) of the Parallel Workloads Archive.
//!
//! An SWF file is text: header comments (`; Key: value`) first, then one line
//! per job with 18 whitespace-separated numeric fields, `-1` meaning
//! "unknown". The reader streams: the header is read when the reader is
//! created, then records come one at a time from a reused line buffer, so a
//! 200,000-job trace never sits in memory as text.
//!
//! Field rules the reader enforces (the format's own, not a simulator's):
//! exactly 18 fields; numbers only; identifier and count fields integers,
//! time and memory fields may be fractional ("it is permissible to use
//! floating point values for time fields") and are rounded to the nearest
//! whole unit; no negative value but `-1`; the job number known; status one
//! of 0-5 or -1. Whether a well-formed record is usable for simulation (it
//! may have no processors, no runtime...) is decided when mapping it, see
//! [`crate::sim::workload`].

use super::input::{self, InputError, LineReader, ReadOptions, ReadStats};
use crate::model::Secs;
use std::io::BufRead;
use std::path::Path;

/// Names of the 18 fields in file order (1-based field `i` is `FIELD_NAMES[i-1]`).
pub const FIELD_NAMES: [&str; 18] = [
    "job number",
    "submit time",
    "wait time",
    "run time",
    "allocated processors",
    "average CPU time",
    "used memory",
    "requested processors",
    "requested time",
    "requested memory",
    "status",
    "user id",
    "group id",
    "executable number",
    "queue number",
    "partition number",
    "preceding job number",
    "think time",
];

/// True for fields the format allows to be fractional (times, memory averages).
const FRACTIONAL: [bool; 18] = [
    false, true, true, true, false, true, true, false, true, true, false, false, false, false,
    false, false, false, true,
];

/// Field 11: how the job (or this part of it) ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SwfStatus {
    /// 0: the job failed.
    Failed,
    /// 1: the job completed normally.
    Completed,
    /// 2: last partial execution of a preempted job (completed).
    PartialLast,
    /// 3: a partial execution that is continued by a later record.
    PartialContinued,
    /// 4: last partial execution of a preempted job, which failed.
    PartialLastFailed,
    /// 5: the job was cancelled (before or while running).
    Cancelled,
}

impl SwfStatus {
    /// The status of a field value, `None` for an undefined value.
    pub fn from_code(code: i64) -> Option<SwfStatus> {
        Some(match code {
            0 => SwfStatus::Failed,
            1 => SwfStatus::Completed,
            2 => SwfStatus::PartialLast,
            3 => SwfStatus::PartialContinued,
            4 => SwfStatus::PartialLastFailed,
            5 => SwfStatus::Cancelled,
            _ => return None,
        })
    }

    /// The numeric code written in the file.
    pub fn code(self) -> i64 {
        self as i64
    }

    /// True for the records of a partial execution (checkpointed or preempted
    /// jobs); the job as a whole is described by its summary record.
    pub fn is_partial(self) -> bool {
        matches!(
            self,
            SwfStatus::PartialLast | SwfStatus::PartialContinued | SwfStatus::PartialLastFailed
        )
    }
}

/// One job line: the 18 fields, `None` where the file says `-1`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SwfRecord {
    /// 1: job number (a counter from 1).
    pub job: u64,
    /// 2: submit time, seconds from the start of the log.
    pub submit: Option<Secs>,
    /// 3: seconds between submission and start.
    pub wait: Option<Secs>,
    /// 4: wallclock run time in seconds (end minus start).
    pub run: Option<Secs>,
    /// 5: processors allocated.
    pub alloc_procs: Option<u32>,
    /// 6: average CPU time used per processor, seconds (user plus system).
    pub avg_cpu: Option<Secs>,
    /// 7: average memory used per processor, KB.
    pub used_mem_kb: Option<u64>,
    /// 8: processors requested.
    pub req_procs: Option<u32>,
    /// 9: requested time (runtime estimate or limit), seconds.
    pub req_time: Option<Secs>,
    /// 10: requested memory per processor, KB.
    pub req_mem_kb: Option<u64>,
    /// 11: completion status.
    pub status: Option<SwfStatus>,
    /// 12: user id (1..number of users).
    pub user: Option<u32>,
    /// 13: group id.
    pub group: Option<u32>,
    /// 14: executable (application) number.
    pub executable: Option<u32>,
    /// 15: queue number (0 conventionally marks interactive jobs).
    pub queue: Option<u32>,
    /// 16: partition number.
    pub partition: Option<u32>,
    /// 17: number of a job this one depends on.
    pub preceding_job: Option<u64>,
    /// 18: seconds between the preceding job's end and this job's submission.
    pub think_time: Option<Secs>,
}

/// A field-level parse failure: the 1-based column and the message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FieldError {
    /// 1-based column of the offending field (or end of line).
    pub col: u32,
    /// What is wrong.
    pub message: String,
}

impl SwfRecord {
    /// Parses one data line (no comment, not blank).
    pub fn parse(line: &[u8]) -> Result<SwfRecord, FieldError> {
        let mut v = [0i64; 18];
        let mut n = 0usize;
        for (col, f) in input::fields(line) {
            if n == 18 {
                return Err(FieldError {
                    col,
                    message: format!(
                        "expected 18 fields, found more (extra field \"{}\")",
                        input::show(f)
                    ),
                });
            }
            v[n] = parse_field(f, n).map_err(|message| FieldError { col, message })?;
            n += 1;
        }
        if n < 18 {
            return Err(FieldError {
                col: line.len() as u32 + 1,
                message: format!(
                    "expected 18 fields, found {n} (missing field {}, {})",
                    n + 1,
                    FIELD_NAMES[n]
                ),
            });
        }
        // Positions again for the semantic checks below (cheap: only on error).
        let col_of = |i: usize| input::fields(line).nth(i).map_or(1, |(c, _)| c);
        let err = |i: usize, message: String| FieldError {
            col: col_of(i),
            message: format!("field {} ({}): {message}", i + 1, FIELD_NAMES[i]),
        };
        if v[0] < 0 {
            return Err(err(0, "the job number must be known, got -1".into()));
        }
        let status = match v[10] {
            -1 => None,
            c => Some(
                SwfStatus::from_code(c)
                    .ok_or_else(|| err(10, format!("expected 0-5 or -1, got {c}")))?,
            ),
        };
        let u32f = |i: usize| -> Result<Option<u32>, FieldError> {
            match v[i] {
                -1 => Ok(None),
                x => u32::try_from(x)
                    .map(Some)
                    .map_err(|_| err(i, format!("{x} is too large"))),
            }
        };
        let opt = |i: usize| (v[i] >= 0).then_some(v[i]);
        let optu = |i: usize| (v[i] >= 0).then_some(v[i] as u64);
        Ok(SwfRecord {
            job: v[0] as u64,
            submit: opt(1),
            wait: opt(2),
            run: opt(3),
            alloc_procs: u32f(4)?,
            avg_cpu: opt(5),
            used_mem_kb: optu(6),
            req_procs: u32f(7)?,
            req_time: opt(8),
            req_mem_kb: optu(9),
            status,
            user: u32f(11)?,
            group: u32f(12)?,
            executable: u32f(13)?,
            queue: u32f(14)?,
            partition: u32f(15)?,
            preceding_job: optu(16),
            think_time: opt(17),
        })
    }

    /// The record as an SWF line (fields right-aligned like the archive's files).
    pub fn to_line(&self) -> String {
        fn o<T: Into<i64>>(x: Option<T>) -> i64 {
            x.map_or(-1, Into::into)
        }
        let u = |x: Option<u64>| x.map_or(-1, |v| v as i64);
        format!(
            "{:5} {:8} {:6} {:6} {:4} {:6} {:5} {:4} {:6} {:5} {:2} {:3} {:3} {:3} {:2} {:2} {:3} {:3}",
            self.job,
            o(self.submit),
            o(self.wait),
            o(self.run),
            o(self.alloc_procs),
            o(self.avg_cpu),
            u(self.used_mem_kb),
            o(self.req_procs),
            o(self.req_time),
            u(self.req_mem_kb),
            self.status.map_or(-1, SwfStatus::code),
            o(self.user),
            o(self.group),
            o(self.executable),
            o(self.queue),
            o(self.partition),
            u(self.preceding_job),
            o(self.think_time),
        )
    }
}

/// Parses field `i` (0-based): an integer, or for fractional fields a real
/// rounded to the nearest integer; `-1` is the only negative value allowed.
fn parse_field(f: &[u8], i: usize) -> Result<i64, String> {
    let what = || format!("field {} ({})", i + 1, FIELD_NAMES[i]);
    // Fast path: [+-]digits, by far the common case, without UTF-8 or float work.
    let (neg, digits) = match f.first() {
        Some(b'-') => (true, &f[1..]),
        Some(b'+') => (false, &f[1..]),
        _ => (false, f),
    };
    if !digits.is_empty() && digits.iter().all(u8::is_ascii_digit) {
        let mut x: i64 = 0;
        for d in digits {
            x = x
                .checked_mul(10)
                .and_then(|x| x.checked_add((d - b'0') as i64))
                .ok_or_else(|| format!("{}: {} is too large", what(), input::show(f)))?;
        }
        let x = if neg { -x } else { x };
        if x < -1 {
            return Err(format!(
                "{}: {x} is negative; the only negative value allowed is -1 (unknown)",
                what()
            ));
        }
        return Ok(x);
    }
    let text = std::str::from_utf8(f).unwrap_or("");
    let real: Option<f64> = text.parse().ok().filter(|r: &f64| r.is_finite());
    match real {
        Some(r) if FRACTIONAL[i] => {
            if r < 0.0 && r != -1.0 {
                return Err(format!(
                    "{}: {} is negative; the only negative value allowed is -1 (unknown)",
                    what(),
                    input::show(f)
                ));
            }
            let x = r.round();
            if x >= i64::MAX as f64 {
                return Err(format!("{}: {} is too large", what(), input::show(f)));
            }
            Ok(x as i64)
        }
        Some(_) => Err(format!(
            "{}: expected an integer, got \"{}\"",
            what(),
            input::show(f)
        )),
        None => Err(format!(
            "{}: expected a number, got \"{}\"",
            what(),
            input::show(f)
        )),
    }
}

/// The header's `Preemption:` value: how preempted jobs are recorded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Preemption {
    /// No preemption information: one record per job.
    No,
    /// Jobs may have several records (partial executions) after their summary.
    Yes,
    /// Both a summary record and per-part records.
    Double,
    /// Time-slicing (gang scheduling).
    TimeSlicing,
}

/// A `Queue:` or `Partition:` header line: number and description.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Segment {
    /// The queue or partition number used in the job records, if given.
    pub number: Option<u32>,
    /// The rest of the line (a name, a Maui class spec, a description).
    pub description: String,
}

/// A header entry kept as written (unknown keys, repeated keys' history).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HeaderEntry {
    /// 1-based line of the key.
    pub line: u64,
    /// Key as written.
    pub key: String,
    /// Value, continuation lines joined with `\n`.
    pub value: String,
}

/// A header value that could not be read; the header stays usable.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HeaderWarning {
    /// 1-based line.
    pub line: u64,
    /// What is wrong.
    pub message: String,
}

/// The header comments of an SWF file, typed.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SwfHeader {
    /// `Version:` of the format (`2`, `2.2`).
    pub version: Option<String>,
    /// `Computer:` brand and model.
    pub computer: Option<String>,
    /// `Installation:` site and machine name.
    pub installation: Option<String>,
    /// `Acknowledge:` people to thank, one per line.
    pub acknowledge: Vec<String>,
    /// `Information:` web sites or addresses, one per line.
    pub information: Vec<String>,
    /// `Conversion:` who converted the log, one per line.
    pub conversion: Vec<String>,
    /// `MaxJobs:` number of jobs in the log.
    pub max_jobs: Option<u64>,
    /// `MaxRecords:` number of records (differs from jobs with partial executions).
    pub max_records: Option<u64>,
    /// `Preemption:` how preempted jobs are recorded.
    pub preemption: Option<Preemption>,
    /// `UnixStartTime:` epoch of time 0 of the log.
    pub unix_start_time: Option<i64>,
    /// `TimeZone:` (deprecated) seconds to add to epoch times for local time.
    pub time_zone: Option<i64>,
    /// `TimeZoneString:` the site's zone name (`Europe/Stockholm`).
    pub time_zone_string: Option<String>,
    /// `StartTime:` start of the log, as `date` prints it.
    pub start_time: Option<String>,
    /// `EndTime:` end of the log, as `date` prints it.
    pub end_time: Option<String>,
    /// `MaxNodes:` nodes in the machine.
    pub max_nodes: Option<u64>,
    /// `MaxProcs:` processors in the machine (more than nodes on SMP nodes).
    pub max_procs: Option<u64>,
    /// `MaxRuntime:` longest runtime the system allowed, seconds.
    pub max_runtime: Option<Secs>,
    /// `MaxMemory:` most memory the system allowed, KB (per processor, like
    /// the job fields).
    pub max_memory: Option<u64>,
    /// `AllowOveruse:` whether jobs could use more than they requested.
    pub allow_overuse: Option<bool>,
    /// `MaxQueues:` number of queues.
    pub max_queues: Option<u64>,
    /// `Queues:` verbal description of the queues.
    pub queues: Vec<String>,
    /// `Queue:` lines, one per queue.
    pub queue: Vec<Segment>,
    /// `MaxPartitions:` number of partitions.
    pub max_partitions: Option<u64>,
    /// `Partitions:` verbal description of the partitions.
    pub partitions: Vec<String>,
    /// `Partition:` lines, one per partition.
    pub partition: Vec<Segment>,
    /// `Note:` remarks, continuation lines joined with `\n`.
    pub notes: Vec<String>,
    /// Keys the format does not define, in order, kept as written.
    pub other: Vec<HeaderEntry>,
    /// Comment lines that are neither a key nor a continuation.
    pub comments: Vec<String>,
    /// Values that could not be read (the key is then left unset).
    pub warnings: Vec<HeaderWarning>,
}

/// Which header field a continuation line extends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Cont {
    /// Adds an item to a list field.
    Item(ListKey),
    /// Extends the last text with a new line.
    Text(TextKey),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ListKey {
    Acknowledge,
    Information,
    Conversion,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum TextKey {
    Computer,
    Installation,
    Queues,
    Partitions,
    Note,
    Other,
    StartTime,
    EndTime,
}

/// Where a run of header comments read with [`SwfHeader::read_comment`]
/// stands: the field a continuation line would extend.
#[derive(Debug, Default)]
pub(crate) struct Continuation(Option<Cont>);

impl SwfHeader {
    /// Reads one header comment (the text after its comment mark) at
    /// `line`, in a run of comments that `cont` follows.
    pub(crate) fn read_comment(&mut self, text: &str, line: u64, cont: &mut Continuation) {
        self.comment(text, line, &mut cont.0);
    }

    /// Reads one header comment (the text after `;`) at `line`; `cont` is the
    /// field a continuation line would extend.
    fn comment(&mut self, text: &str, line: u64, cont: &mut Option<Cont>) {
        let body = text.trim_end();
        if body.trim().is_empty() {
            // A bare `;` separates header paragraphs: no continuation across it.
            *cont = None;
            return;
        }
        if let Some((key, value)) = split_key(body) {
            *cont = self.key(key, value, line);
            return;
        }
        let t = body.trim();
        // `; Key: value` has one blank after the `;`; continuation lines are
        // indented further (the archive aligns them under the value).
        let lead = &body[..body.len() - body.trim_start().len()];
        let indented = lead.len() >= 2 || lead.contains('\t');
        match (*cont, indented) {
            (Some(Cont::Item(k)), true) => self.list(k).push(t.to_string()),
            (Some(Cont::Text(k)), true) => {
                if let Some(last) = self.text(k) {
                    last.push('\n');
                    last.push_str(t);
                }
            }
            _ => {
                *cont = None;
                self.comments.push(t.to_string());
            }
        }
    }

    fn list(&mut self, k: ListKey) -> &mut Vec<String> {
        match k {
            ListKey::Acknowledge => &mut self.acknowledge,
            ListKey::Information => &mut self.information,
            ListKey::Conversion => &mut self.conversion,
        }
    }

    fn text(&mut self, k: TextKey) -> Option<&mut String> {
        match k {
            TextKey::Computer => self.computer.as_mut(),
            TextKey::Installation => self.installation.as_mut(),
            TextKey::StartTime => self.start_time.as_mut(),
            TextKey::EndTime => self.end_time.as_mut(),
            TextKey::Queues => self.queues.last_mut(),
            TextKey::Partitions => self.partitions.last_mut(),
            TextKey::Note => self.notes.last_mut(),
            TextKey::Other => self.other.last_mut().map(|e| &mut e.value),
        }
    }

    /// Stores one `Key: value`; returns what a continuation line would extend.
    fn key(&mut self, key: &str, value: &str, line: u64) -> Option<Cont> {
        let v = value.trim();
        let lower = key.to_ascii_lowercase();
        let warn = |h: &mut SwfHeader, what: &str| {
            h.warnings.push(HeaderWarning {
                line,
                message: format!(
                    "{}: expected {what}, got \"{}\"; ignored",
                    input::show_text(key),
                    input::show_text(v)
                ),
            });
        };
        macro_rules! num {
            ($field:ident, $ty:ty) => {{
                match leading_int(v).and_then(|x| <$ty>::try_from(x).ok()) {
                    Some(x) => self.$field = Some(x),
                    None => warn(self, "a number"),
                }
                None
            }};
        }
        match lower.as_str() {
            "version" => {
                self.version = Some(v.to_string());
                None
            }
            "computer" => {
                self.computer = Some(v.to_string());
                Some(Cont::Text(TextKey::Computer))
            }
            "installation" => {
                self.installation = Some(v.to_string());
                Some(Cont::Text(TextKey::Installation))
            }
            "acknowledge" => {
                self.acknowledge.push(v.to_string());
                Some(Cont::Item(ListKey::Acknowledge))
            }
            "information" => {
                self.information.push(v.to_string());
                Some(Cont::Item(ListKey::Information))
            }
            "conversion" => {
                self.conversion.push(v.to_string());
                Some(Cont::Item(ListKey::Conversion))
            }
            "maxjobs" => num!(max_jobs, u64),
            "maxrecords" => num!(max_records, u64),
            "preemption" => {
                match v.to_ascii_lowercase().as_str() {
                    "no" => self.preemption = Some(Preemption::No),
                    "yes" => self.preemption = Some(Preemption::Yes),
                    "double" => self.preemption = Some(Preemption::Double),
                    "ts" => self.preemption = Some(Preemption::TimeSlicing),
                    _ => warn(self, "No, Yes, Double or TS"),
                }
                None
            }
            "unixstarttime" => num!(unix_start_time, i64),
            "timezone" => num!(time_zone, i64),
            "timezonestring" => {
                self.time_zone_string = Some(v.to_string());
                None
            }
            "starttime" => {
                self.start_time = Some(v.to_string());
                Some(Cont::Text(TextKey::StartTime))
            }
            "endtime" => {
                self.end_time = Some(v.to_string());
                Some(Cont::Text(TextKey::EndTime))
            }
            "maxnodes" => num!(max_nodes, u64),
            "maxprocs" => num!(max_procs, u64),
            "maxruntime" => num!(max_runtime, i64),
            "maxmemory" => num!(max_memory, u64),
            "allowoveruse" => {
                match v.to_ascii_lowercase().as_str() {
                    "yes" | "true" | "1" => self.allow_overuse = Some(true),
                    "no" | "false" | "0" => self.allow_overuse = Some(false),
                    _ => warn(self, "Yes or No"),
                }
                None
            }
            "maxqueues" => num!(max_queues, u64),
            "queues" => {
                self.queues.push(v.to_string());
                Some(Cont::Text(TextKey::Queues))
            }
            "queue" => {
                self.queue.push(segment(v));
                None
            }
            "maxpartitions" => num!(max_partitions, u64),
            "partitions" => {
                self.partitions.push(v.to_string());
                Some(Cont::Text(TextKey::Partitions))
            }
            "partition" => {
                self.partition.push(segment(v));
                None
            }
            "note" => {
                self.notes.push(v.to_string());
                Some(Cont::Text(TextKey::Note))
            }
            _ => {
                self.other.push(HeaderEntry {
                    line,
                    key: key.to_string(),
                    value: v.to_string(),
                });
                Some(Cont::Text(TextKey::Other))
            }
        }
    }

    /// The name a header `Queue:` line gives queue `n`, if any.
    pub fn queue_name(&self, n: u32) -> Option<&str> {
        self.queue
            .iter()
            .find(|s| s.number == Some(n))
            .map(|s| s.description.as_str())
    }

    /// The name a header `Partition:` line gives partition `n`, if any.
    pub fn partition_name(&self, n: u32) -> Option<&str> {
        self.partition
            .iter()
            .find(|s| s.number == Some(n))
            .map(|s| s.description.as_str())
    }

    /// The header as `Key: value` lines, known keys first in the format's order.
    pub fn render(&self) -> String {
        let mut out = String::new();
        let mut put = |k: &str, v: &str| {
            for (i, l) in v.split('\n').enumerate() {
                if i == 0 {
                    out.push_str(&format!("{k}: {l}\n"));
                } else {
                    out.push_str(&format!("{:w$}  {l}\n", "", w = k.len()));
                }
            }
        };
        let s = |x: &Option<String>| x.clone();
        let n = |x: Option<u64>| x.map(|v| v.to_string());
        let i = |x: Option<i64>| x.map(|v| v.to_string());
        let singles: [(&str, Option<String>); 5] = [
            ("Version", s(&self.version)),
            ("Computer", s(&self.computer)),
            ("Installation", s(&self.installation)),
            ("MaxJobs", n(self.max_jobs)),
            ("MaxRecords", n(self.max_records)),
        ];
        for (k, v) in singles.iter().take(3) {
            if let Some(v) = v {
                put(k, v);
            }
        }
        for (k, list) in [
            ("Acknowledge", &self.acknowledge),
            ("Information", &self.information),
            ("Conversion", &self.conversion),
        ] {
            for v in list {
                put(k, v);
            }
        }
        for (k, v) in singles.iter().skip(3) {
            if let Some(v) = v {
                put(k, v);
            }
        }
        let pre = self.preemption.map(|p| {
            match p {
                Preemption::No => "No",
                Preemption::Yes => "Yes",
                Preemption::Double => "Double",
                Preemption::TimeSlicing => "TS",
            }
            .to_string()
        });
        let rest: [(&str, Option<String>); 13] = [
            ("Preemption", pre),
            ("UnixStartTime", i(self.unix_start_time)),
            ("TimeZone", i(self.time_zone)),
            ("TimeZoneString", s(&self.time_zone_string)),
            ("StartTime", s(&self.start_time)),
            ("EndTime", s(&self.end_time)),
            ("MaxNodes", n(self.max_nodes)),
            ("MaxProcs", n(self.max_procs)),
            ("MaxRuntime", i(self.max_runtime)),
            ("MaxMemory", n(self.max_memory)),
            (
                "AllowOveruse",
                self.allow_overuse
                    .map(|b| if b { "Yes" } else { "No" }.to_string()),
            ),
            ("MaxQueues", n(self.max_queues)),
            ("MaxPartitions", n(self.max_partitions)),
        ];
        for (k, v) in &rest {
            if let Some(v) = v {
                put(k, v);
            }
        }
        for v in &self.queues {
            put("Queues", v);
        }
        for q in &self.queue {
            put("Queue", &segment_text(q));
        }
        for v in &self.partitions {
            put("Partitions", v);
        }
        for p in &self.partition {
            put("Partition", &segment_text(p));
        }
        for v in &self.notes {
            put("Note", v);
        }
        for e in &self.other {
            put(&e.key, &e.value);
        }
        out
    }
}

fn segment_text(s: &Segment) -> String {
    match s.number {
        Some(n) => format!("{n} {}", s.description),
        None => s.description.clone(),
    }
}

/// `Key: value` when the comment starts with a word followed by a colon and
/// a blank (so `http://...` on a continuation line is not a key).
fn split_key(body: &str) -> Option<(&str, &str)> {
    let t = body.trim_start();
    let end = t
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(t.len());
    if end == 0 || !t.as_bytes()[0].is_ascii_alphabetic() {
        return None;
    }
    let rest = &t[end..];
    let after = rest.strip_prefix(':')?;
    (after.is_empty() || after.starts_with(char::is_whitespace)).then_some((&t[..end], after))
}

/// The integer a header value starts with (`MaxNodes: 128 (of 144)` is 128).
fn leading_int(v: &str) -> Option<i64> {
    let t = v.trim();
    let end = t
        .char_indices()
        .find(|&(i, c)| !(c.is_ascii_digit() || (i == 0 && (c == '-' || c == '+'))))
        .map_or(t.len(), |(i, _)| i);
    let rest = &t[end..];
    if !(rest.is_empty() || rest.starts_with(char::is_whitespace)) {
        return None;
    }
    t[..end].parse().ok()
}

/// Reads `1  [fque:1]` as number 1 and description `[fque:1]`.
fn segment(v: &str) -> Segment {
    let t = v.trim();
    let (first, rest) = t.split_once(char::is_whitespace).unwrap_or((t, ""));
    match first.parse::<u32>() {
        Ok(n) => Segment {
            number: Some(n),
            description: rest.trim().to_string(),
        },
        Err(_) => Segment {
            number: None,
            description: t.to_string(),
        },
    }
}

/// A streaming SWF reader: the header on creation, then one record at a time.
pub struct SwfReader<R> {
    lines: LineReader<R>,
    file: String,
    opts: ReadOptions,
    header: SwfHeader,
    /// The first data line, read while looking for the end of the header.
    pending: Option<(u64, Vec<u8>)>,
    stats: ReadStats,
    done: bool,
}

impl SwfReader<Box<dyn BufRead>> {
    /// Opens a plain or gzip-compressed SWF file.
    pub fn open(path: &Path, opts: ReadOptions) -> Result<Self, InputError> {
        let r = input::open(path)?;
        SwfReader::new(r, &path.display().to_string(), opts)
    }
}

impl<R: BufRead> SwfReader<R> {
    /// Reads the header; records follow with [`SwfReader::next_record`].
    pub fn new(r: R, file: &str, opts: ReadOptions) -> Result<Self, InputError> {
        let mut me = SwfReader {
            lines: LineReader::new(r),
            file: file.to_string(),
            opts,
            header: SwfHeader::default(),
            pending: None,
            stats: ReadStats::default(),
            done: false,
        };
        let mut cont = None;
        loop {
            let line = me.lines.line + 1;
            let Some(l) = me.lines.next_line().map_err(|e| InputError::io(file, e))? else {
                me.done = true;
                break;
            };
            let t = trim_start(l);
            if let Some(c) = t.strip_prefix(b";") {
                me.stats.lines += 1;
                me.stats.comments += 1;
                let text = String::from_utf8_lossy(c);
                me.header.comment(&text, line, &mut cont);
            } else if t.is_empty() {
                me.stats.lines += 1;
                me.stats.comments += 1;
            } else {
                me.pending = Some((line, l.to_vec()));
                break;
            }
        }
        Ok(me)
    }

    /// The header comments read before the first record.
    pub fn header(&self) -> &SwfHeader {
        &self.header
    }

    /// Counts so far (complete once the reader is exhausted).
    pub fn stats(&self) -> &ReadStats {
        &self.stats
    }

    /// Ends reading, returning the header and the counts.
    pub fn finish(self) -> (SwfHeader, ReadStats) {
        (self.header, self.stats)
    }

    /// The next record, `Ok(None)` at the end. Comments after the header are
    /// skipped; a malformed line is an error, or counted in lenient mode.
    pub fn next_record(&mut self) -> Result<Option<SwfRecord>, InputError> {
        if let Some((line, text)) = self.pending.take() {
            self.stats.lines += 1;
            if let Some(r) = self.data_line(line, &text)? {
                return Ok(Some(r));
            }
        }
        while !self.done {
            let line = self.lines.line + 1;
            let Some(l) = self
                .lines
                .next_line()
                .map_err(|e| InputError::io(&self.file, e))?
            else {
                self.done = true;
                break;
            };
            self.stats.lines += 1;
            let t = trim_start(l);
            if t.is_empty() || t[0] == b';' {
                self.stats.comments += 1;
                continue;
            }
            match SwfRecord::parse(l) {
                Ok(r) => {
                    self.stats.records += 1;
                    return Ok(Some(r));
                }
                Err(e) => {
                    let err = InputError::syntax(&self.file, line, e.col, e.message);
                    self.stats.malformed(err, self.opts)?;
                }
            }
        }
        Ok(None)
    }

    fn data_line(&mut self, line: u64, text: &[u8]) -> Result<Option<SwfRecord>, InputError> {
        match SwfRecord::parse(text) {
            Ok(r) => {
                self.stats.records += 1;
                Ok(Some(r))
            }
            Err(e) => {
                let err = InputError::syntax(&self.file, line, e.col, e.message);
                self.stats.malformed(err, self.opts)?;
                Ok(None)
            }
        }
    }
}

impl<R: BufRead> Iterator for SwfReader<R> {
    type Item = Result<SwfRecord, InputError>;

    fn next(&mut self) -> Option<Self::Item> {
        match self.next_record() {
            Ok(Some(r)) => Some(Ok(r)),
            Ok(None) => None,
            Err(e) => {
                self.done = true;
                Some(Err(e))
            }
        }
    }
}

fn trim_start(l: &[u8]) -> &[u8] {
    let i = l
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .unwrap_or(l.len());
    &l[i..]
}

#[cfg(test)]
#[path = "swf_tests.rs"]
mod tests;
