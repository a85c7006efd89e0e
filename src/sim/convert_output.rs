//! What a [`Conversion`] writes: the SWF file, Maui's workload trace, the
//! `--map` table, and the report of what was left out or changed.

use super::{date, Conversion, Source};
use crate::model::{Cmp, GresList};
use crate::sim::mauitrace::{self, CompletionState, WorkloadRecord};
use crate::sim::swf::{SwfRecord, SwfStatus};
use crate::sim::workload::{
    self, JobCreds, MapOptions, SkipReason, SwfNames, UNKNOWN_GROUP, UNKNOWN_USER,
};
use std::collections::{BTreeMap, HashSet};
use std::fmt::Write;

/// The trace format written.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Target {
    /// Standard Workload Format, with the names (and each job's account
    /// and QOS) as header comments.
    #[default]
    Swf,
    /// Maui's workload trace (44 fields, version 230).
    Maui,
}

impl Target {
    /// The name in reports (`SWF`, `Maui workload trace`).
    pub fn name(self) -> &'static str {
        match self {
            Target::Swf => "SWF",
            Target::Maui => "Maui workload trace",
        }
    }
}

/// A credential name as one word of a Maui trace, and whether it had to be
/// changed: blanks and `#` (a comment) cannot be in a field, a `:` in a QOS
/// or class would split it, and a name Maui reads as "none" (`NONE`, `0`)
/// is prefixed with `_`.
fn maui_word(name: &str, colon: bool) -> (String, bool) {
    let mut w: String = name
        .chars()
        .map(|c| {
            if c.is_whitespace() || c == '#' || (colon && (c == ':' || c == '[' || c == ']')) {
                '_'
            } else {
                c
            }
        })
        .collect();
    if w.is_empty()
        || w == "0"
        || w.eq_ignore_ascii_case("NONE")
        || w.eq_ignore_ascii_case("[NONE]")
        || w.starts_with('[')
    {
        w.insert(0, '_');
    }
    let changed = w != name;
    (w, changed)
}

/// The Maui trace's records with what writing them had to change.
struct MauiRecords {
    records: Vec<WorkloadRecord>,
    /// Names changed to fit the format, by credential kind.
    renamed: BTreeMap<&'static str, u64>,
    /// Job ids met again, given a `~2`, `~3` suffix.
    duplicate_ids: u64,
}

impl Conversion {
    /// The SWF file: header, then one line per job.
    pub fn swf(&self) -> String {
        let mut h = String::new();
        let mut put = |s: &str| {
            h.push_str("; ");
            h.push_str(s);
            h.push('\n');
        };
        put("Version: 2.2");
        for l in self.provenance("Installation: converted from", "") {
            put(&l);
        }
        let n = self.records.len();
        put(&format!("MaxJobs: {n}"));
        put(&format!("MaxRecords: {n}"));
        put("Preemption: No");
        put(&format!("UnixStartTime: {}", self.origin));
        put(&format!("TimeZoneString: {}", self.zone.name()));
        if let (Some(f), Some(l)) = (self.records.first(), self.records.last()) {
            put(&format!(
                "StartTime: {}",
                date(self.origin + f.submit.unwrap_or(0), &self.zone)
            ));
            put(&format!(
                "EndTime: {}",
                date(self.origin + l.submit.unwrap_or(0), &self.zone)
            ));
        }
        if let Some(x) = self.max_nodes {
            put(&format!("MaxNodes: {x}"));
        }
        if let Some(x) = self.max_procs {
            put(&format!("MaxProcs: {x}"));
        }
        put(&format!("MaxQueues: {}", self.names.queues.len()));
        for (i, q) in self.names.queues.iter().enumerate() {
            put(&format!("Queue: {} {q}", i + 1));
        }
        if !self.names.partitions.is_empty() {
            put(&format!("MaxPartitions: {}", self.names.partitions.len()));
            for (i, p) in self.names.partitions.iter().enumerate() {
                put(&format!("Partition: {} {p}", i + 1));
            }
        }
        put("Note: fields the source does not record are -1 (unknown); here always");
        put(match self.source {
            Source::Sacct => {
                "      6 (average CPU time), 7 (used memory), 14 (executable), 17 (preceding job), 18 (think time)."
            }
            Source::TorqueAcct => {
                "      14 (executable), 16 (partition), 17 (preceding job), 18 (think time)."
            }
        });
        put(match self.source {
            Source::Sacct => {
                "Note: queue and partition numbers are Slurm partitions (the first, for a job submitted to several)."
            }
            Source::TorqueAcct => "Note: queue numbers are Torque queues.",
        });
        put("Note: SWF has no field for a job's account and QOS: a line `job N account NAME qos NAME`");
        put("      below gives them for job N (mauictl simulate reads it; other SWF readers do not).");
        put("Note: jobs are numbered in submission order; users, groups, queues and partitions by");
        put("      first appearance in that order (the lines below; mauictl convert --map lists");
        put("      every job's original id). Times are seconds from UnixStartTime.");
        put(&format!(
            "Note: the accounting's local times are read in {}.",
            self.zone.name()
        ));
        for (kind, i, n) in self.numbered_names() {
            put(&format!("{kind} {i} = {n}"));
        }
        for (r, x) in self.records.iter().zip(&self.extra) {
            if x.account.is_none() && x.qos.is_none() {
                continue;
            }
            let mut l = format!("job {}", r.job);
            if let Some(a) = &x.account {
                let _ = write!(l, " account {a}");
            }
            if let Some(q) = &x.qos {
                let _ = write!(l, " qos {q}");
            }
            put(&l);
        }
        for r in &self.records {
            h.push_str(&r.to_line());
            h.push('\n');
        }
        h
    }

    fn installation(&self) -> &'static str {
        match self.source {
            Source::Sacct => "Slurm accounting (sacct -P)",
            Source::TorqueAcct => "Torque accounting files",
        }
    }

    /// The header's first lines: where the records came from (`what`
    /// then the installation), the command (`flags` after its source)
    /// and each input file.
    fn provenance(&self, what: &str, flags: &str) -> Vec<String> {
        let mut v = vec![
            format!("{what} {}", self.installation()),
            format!(
                "Conversion: mauictl convert {}{flags} (mauisched {})",
                self.source.name(),
                env!("CARGO_PKG_VERSION")
            ),
        ];
        v.extend(self.inputs.iter().map(|i| format!("            from {i}")));
        v
    }

    /// Maui's workload trace: `VERSION 230`, a header of `#` comments, then
    /// one line per job in submission order, with the original job id and
    /// every credential by name.
    pub fn maui_trace(&self) -> String {
        let m = self.maui_records();
        let mut o = String::from("VERSION 230\n");
        let mut put = |s: &str| {
            o.push_str("# ");
            o.push_str(s);
            o.push('\n');
        };
        for l in self.provenance("Maui workload trace converted from", " --to maui") {
            put(&l);
        }
        put(&format!("MaxJobs: {}", self.records.len()));
        // Read back by mauictl simulate, as from an SWF header, for a
        // cluster without --cluster.
        if let Some(x) = self.max_nodes {
            put(&format!("MaxNodes: {x}"));
        }
        if let Some(x) = self.max_procs {
            put(&format!("MaxProcs: {x}"));
        }
        put(&format!("TimeZoneString: {}", self.zone.name()));
        if let (Some(f), Some(l)) = (m.records.first(), m.records.last()) {
            put(&format!("StartTime: {}", date(f.submit, &self.zone)));
            put(&format!("EndTime: {}", date(l.submit, &self.zone)));
        }
        put("Note: times are epoch seconds; a job is its processors as one-processor tasks");
        put("      (field 3), memory per processor (field 33), walltime the time limit (field 6,");
        put(match self.source {
            Source::Sacct => {
                "      0: none); class (field 8) and partition (field 31) the Slurm partition."
            }
            Source::TorqueAcct => "      0: none); class (field 8) the Torque queue.",
        });
        for r in &m.records {
            o.push_str(&r.to_line());
            o.push('\n');
        }
        o
    }

    fn maui_records(&self) -> MauiRecords {
        let mut renamed: BTreeMap<&'static str, u64> = BTreeMap::new();
        let mut word = |kind: &'static str, n: &str, colon: bool| {
            let (w, changed) = maui_word(n, colon);
            if changed {
                *renamed.entry(kind).or_insert(0) += 1;
            }
            w
        };
        let mut seen = HashSet::new();
        let mut duplicate_ids = 0;
        fn name(tab: &[String], n: Option<u32>) -> Option<&str> {
            n.map(|n| tab[n as usize - 1].as_str())
        }
        let mut records = Vec::with_capacity(self.records.len());
        for ((r, id), x) in self.records.iter().zip(&self.ids).zip(&self.extra) {
            let mut id = word("job id", id, false);
            if !seen.insert(id.clone()) {
                duplicate_ids += 1;
                let base = id.clone();
                let mut k = 2;
                while !seen.insert(format!("{base}~{k}")) {
                    k += 1;
                }
                id = format!("{base}~{k}");
            }
            let submit = self.origin + r.submit.unwrap_or(0);
            // As the simulator reads SWF: a cancelled job ran only if it
            // held processors for some time.
            let ran = r.run.is_some_and(|x| x > 0) && r.alloc_procs.is_some_and(|p| p > 0);
            let start = r
                .wait
                .filter(|_| ran || r.status != Some(SwfStatus::Cancelled))
                .map(|w| submit + w);
            let end = match (start, r.run) {
                (Some(s), Some(run)) => s + run,
                _ => 0,
            };
            let state = match (r.status, start) {
                (Some(SwfStatus::Cancelled), _) => CompletionState::Removed,
                (_, None) => CompletionState::NotRun,
                _ => CompletionState::Completed,
            };
            let procs = r.req_procs.or(r.alloc_procs).unwrap_or(0);
            records.push(WorkloadRecord {
                id,
                nodes: 0,
                tasks: procs,
                user: name(&self.names.users, r.user)
                    .map_or(UNKNOWN_USER.to_string(), |u| word("user", u, false)),
                group: name(&self.names.groups, r.group)
                    .map_or(UNKNOWN_GROUP.to_string(), |g| word("group", g, false)),
                walltime: r.req_time.filter(|&t| t > 0).unwrap_or(0),
                state,
                classes: name(&self.names.queues, r.queue)
                    .map(|q| vec![(word("class", q, true), 1)])
                    .unwrap_or_default(),
                submit,
                dispatch: start.unwrap_or(0),
                start: start.unwrap_or(0),
                completion: end,
                network: None,
                arch: None,
                os: None,
                node_mem: (Cmp::Ge, 0),
                node_disk: (Cmp::Ge, 0),
                features: Vec::new(),
                system_queue_time: submit,
                tasks_allocated: r.alloc_procs.unwrap_or(0),
                tasks_per_node: None,
                qos_requested: x.qos.as_deref().map(|q| word("QOS", q, true)),
                qos_delivered: None,
                flags: Vec::new(),
                account: x.account.as_deref().map(|a| word("account", a, false)),
                executable: None,
                comment: None,
                gres: GresList::default(),
                bypass: None,
                proc_seconds: match (r.avg_cpu, r.alloc_procs) {
                    (Some(c), Some(p)) => (c * p as i64) as f64,
                    _ => 0.0,
                },
                partition: name(&self.names.partitions, r.partition)
                    .map(|p| word("partition", p, false)),
                procs_per_task: 1,
                mem_per_task: r.req_mem_kb.map_or(0, |kb| kb.div_ceil(1024)),
                disk_per_task: 0,
                swap_per_task: 0,
                start_date: 0,
                end_date: 0,
                alloc_hosts: Vec::new(),
                rm: None,
                host_mask: Vec::new(),
                reservation: None,
                set_description: None,
                app_sim: None,
                reserved: None,
            });
        }
        MauiRecords {
            records,
            renamed,
            duplicate_ids,
        }
    }

    /// Each user, group, queue and partition with its SWF number (from 1).
    fn numbered_names(&self) -> impl Iterator<Item = (&'static str, usize, &String)> {
        [
            ("user", &self.names.users),
            ("group", &self.names.groups),
            ("queue", &self.names.queues),
            ("partition", &self.names.partitions),
        ]
        .into_iter()
        .flat_map(|(kind, tab)| tab.iter().enumerate().map(move |(i, n)| (kind, i + 1, n)))
    }

    /// The mapping as tab-separated lines: `user N NAME`, `group N NAME`,
    /// `queue N NAME`, `partition N NAME`, `job N ID`.
    pub fn map_text(&self) -> String {
        let mut out = String::from("# kind\tswf-number\tname (mauictl convert)\n");
        for (kind, i, n) in self.numbered_names() {
            out.push_str(&format!("{kind}\t{i}\t{n}\n"));
        }
        for (i, id) in self.ids.iter().enumerate() {
            out.push_str(&format!("job\t{}\t{id}\n", i + 1));
        }
        out
    }

    /// Why the simulator will skip jobs written to `target`, by reason: the
    /// simulator's own mapping of each written record.
    pub fn simulate_skips(&self, target: Target) -> BTreeMap<SkipReason, u64> {
        let mut out = BTreeMap::new();
        let opts = MapOptions::default();
        let mut count = |r: Result<workload::SimJob, SkipReason>| {
            if let Err(why) = r {
                *out.entry(why).or_insert(0) += 1;
            }
        };
        match target {
            Target::Swf => {
                let names = self.swf_names();
                for r in &self.records {
                    count(workload::map_swf_named(r, self.origin, &opts, &names));
                }
            }
            Target::Maui => {
                for r in &self.maui_records().records {
                    count(mauitrace::map_workload_record(r, &opts));
                }
            }
        }
        out
    }

    /// The names the SWF header gives, as the simulator reads them back.
    pub(crate) fn swf_names(&self) -> SwfNames {
        let tab = |v: &[String]| {
            v.iter()
                .enumerate()
                .map(|(i, n)| (i as u32 + 1, n.clone()))
                .collect()
        };
        SwfNames {
            users: tab(&self.names.users),
            groups: tab(&self.names.groups),
            queues: tab(&self.names.queues),
            partitions: tab(&self.names.partitions),
            jobs: self
                .records
                .iter()
                .zip(&self.extra)
                .filter(|(_, x)| x.account.is_some() || x.qos.is_some())
                .map(|(r, x)| {
                    (
                        r.job,
                        JobCreds {
                            account: x.account.clone(),
                            qos: x.qos.clone(),
                        },
                    )
                })
                .collect(),
        }
    }

    /// For stderr: what was converted to `target`, and, with precise
    /// counts, what was left out and why, which fields changed and into
    /// what, which written jobs the simulator will skip, and what the
    /// format cannot hold. `map` is the `--map` file, if one is written.
    pub fn report(&self, target: Target, map: Option<&str>) -> String {
        let mut o = String::new();
        let n = self.records.len();
        let distinct = |f: &dyn Fn(&super::ExtraCreds) -> Option<&String>| {
            self.extra
                .iter()
                .filter_map(f)
                .collect::<HashSet<_>>()
                .len()
        };
        let _ = writeln!(
            o,
            "convert {} -> {}: {n} job(s) written, from {} line(s) in {} file(s)",
            self.source.name(),
            target.name(),
            self.read.lines,
            self.inputs.len()
        );
        let _ = writeln!(
            o,
            "  credentials: {} user(s), {} group(s), {} account(s), {} QOS, {} class(es){}",
            self.names.users.len(),
            self.names.groups.len(),
            distinct(&|x| x.account.as_ref()),
            distinct(&|x| x.qos.as_ref()),
            self.names.queues.len(),
            match self.source {
                Source::Sacct => format!(
                    " and {} partition(s) (Slurm partitions)",
                    self.names.partitions.len()
                ),
                Source::TorqueAcct => " (Torque queues)".to_string(),
            }
        );
        let line = |o: &mut String, count: u64, what: &str| {
            let _ = writeln!(o, "    {count:>5}  {what}");
        };

        let not_converted: u64 = self.skipped.values().sum::<u64>() + self.read.malformed;
        if not_converted > 0 {
            let _ = writeln!(o, "  not converted:");
            for (why, c) in &self.skipped {
                line(&mut o, *c, why);
            }
            if self.read.malformed > 0 {
                let by: Vec<String> = self
                    .malformed
                    .iter()
                    .map(|(f, c)| format!("{c} {f}"))
                    .collect();
                line(
                    &mut o,
                    self.read.malformed,
                    &format!(
                        "malformed line(s) skipped (--lenient), at fault: {}; first: {}",
                        by.join(", "),
                        self.read
                            .examples
                            .first()
                            .map(|e| e.to_string())
                            .unwrap_or_default()
                    ),
                );
            }
        }

        if !self.changes.is_empty() {
            let _ = writeln!(o, "  written with a field changed (jobs):");
            for (ch, c) in &self.changes {
                line(&mut o, *c, ch.describe(self.source));
            }
        }

        let skips = self.simulate_skips(target);
        if !skips.is_empty() {
            let _ = writeln!(o, "  written, but mauictl simulate skips them:");
            for (why, c) in &skips {
                line(
                    &mut o,
                    *c,
                    &format!("{} ({})", why.describe(), self.why_skip(*why)),
                );
            }
        }

        let mut cannot = Vec::new();
        let with = |f: &dyn Fn(&SwfRecord, &super::ExtraCreds) -> bool| {
            self.records
                .iter()
                .zip(&self.extra)
                .filter(|(r, x)| f(r, x))
                .count() as u64
        };
        match target {
            Target::Swf => {
                let accounts = with(&|_, x| x.account.is_some());
                let qos = with(&|_, x| x.qos.is_some());
                if accounts > 0 {
                    cannot.push((accounts, "accounts: no SWF field; on the header's `job N account NAME` lines (mauictl simulate reads them, other SWF readers do not)".to_string()));
                }
                if qos > 0 {
                    cannot.push((qos, "QOS: no SWF field; on the header's `job N ... qos NAME` lines (mauictl simulate reads them, other SWF readers do not)".to_string()));
                }
                if n > 0 {
                    cannot.push((
                        n as u64,
                        match map {
                            Some(m) => format!("job ids: SWF numbers jobs 1..{n}; the original ids are in {m}"),
                            None => format!("job ids: SWF numbers jobs 1..{n}; the original ids are not kept (--map FILE keeps them)"),
                        },
                    ));
                }
            }
            Target::Maui => {
                let failed = with(&|r, _| r.status == Some(SwfStatus::Failed));
                if failed > 0 {
                    cannot.push((
                        failed,
                        format!(
                            "{}: Completed (the trace's states are Completed, Removed and NotRun)",
                            match self.source {
                                Source::Sacct =>
                                    "State FAILED, TIMEOUT, NODE_FAIL, OUT_OF_MEMORY...",
                                Source::TorqueAcct => "Exit_status other than 0",
                            }
                        ),
                    ));
                }
                let used_mem = with(&|r, _| r.used_mem_kb.is_some());
                if used_mem > 0 {
                    cannot.push((
                        used_mem,
                        "resources_used.mem: no field for the memory a job used".to_string(),
                    ));
                }
                let m = self.maui_records();
                for (kind, c) in &m.renamed {
                    cannot.push((*c, format!("{kind} names with a blank or `#`{}, or read as none (NONE, 0): `_` instead", if matches!(*kind, "QOS" | "class") { ", `:`, `[` or `]`" } else { "" })));
                }
                if m.duplicate_ids > 0 {
                    cannot.push((m.duplicate_ids, "job ids met before: written with a ~2, ~3... suffix (the trace needs them unique)".to_string()));
                }
            }
        }
        if !cannot.is_empty() {
            let _ = writeln!(o, "  {} cannot hold (jobs):", target.name());
            for (c, what) in &cannot {
                line(&mut o, *c, what);
            }
        }
        o
    }

    /// What a simulator skip of a converted job comes from.
    fn why_skip(&self, why: SkipReason) -> &'static str {
        match (why, self.source) {
            (SkipReason::CancelledBeforeStart, Source::Sacct) => "CANCELLED with Start Unknown",
            (SkipReason::CancelledBeforeStart, Source::TorqueAcct) => {
                "a D or A record and no start"
            }
            (SkipReason::NoRuntime | SkipReason::NotRun, Source::Sacct) => {
                "never started: Start Unknown or None"
            }
            (SkipReason::NoRuntime | SkipReason::NotRun, Source::TorqueAcct) => {
                "no start= or end= in the E record"
            }
            (SkipReason::NoProcs, Source::Sacct) => "AllocCPUS and ReqCPUS 0 or empty",
            (SkipReason::NoProcs, Source::TorqueAcct) => {
                "no exec_host, Resource_List.procs, nodes or ncpus"
            }
            _ => "as the simulator reads the trace",
        }
    }
}
