//! Policy keywords and composite values of maui.cfg.

use super::value::{parse_f64, render_f64, split_list, Scalar};
use crate::keywords;
use crate::model::time::{fmt_duration, parse_duration};
use crate::model::{CredKind, Secs};
use serde::Serialize;

keywords!(
    /// BACKFILLPOLICY.
    BackfillPolicy { FirstFit = "FIRSTFIT", BestFit = "BESTFIT", Greedy = "GREEDY", Preempt = "PREEMPT", None = "NONE" }
    aliases { "ON" => FirstFit, "OFF" => None, "TRUE" => FirstFit, "FALSE" => None }
);

keywords!(
    /// PREEMPTPOLICY: how a preempted job gives up its resources.
    PreemptPolicy { Requeue = "REQUEUE", Suspend = "SUSPEND", Checkpoint = "CHECKPOINT" }
);

keywords!(
    /// BACKFILLMETRIC: the degree of fit for BESTFIT and GREEDY.
    BackfillMetric { Procs = "PROCS", ProcSeconds = "PROCSECONDS", Seconds = "SECONDS", Pe = "PE", PeSeconds = "PESECONDS", Nodes = "NODES" }
);

keywords!(
    /// RESERVATIONNODEPOLICY (a mauisched addition): which nodes a job's
    /// future reservation takes first.
    ReservationNodePolicy { Allocation = "ALLOCATIONPOLICY", LatestFreed = "LATESTFREED" }
);

keywords!(
    /// LASTAVAILABLEORDER (a mauisched addition): how NODEALLOCATIONPOLICY
    /// LASTAVAILABLE orders the nodes. LONGESTFIRST is Maui 3.3's code
    /// (`MNodeSelectIdleTasks`, `MJobAllocMNL`): for a start now, the nodes
    /// available longest first; for a future start, the highest node
    /// index first. BESTFIT is the guide's reading: the nodes whose free
    /// time ends soonest after the job first (best fit in time).
    LastAvailableOrder { LongestFirst = "LONGESTFIRST", BestFit = "BESTFIT" }
);

keywords!(
    /// RESERVATIONPOLICY.
    ReservationPolicy { CurrentHighest = "CURRENTHIGHEST", Highest = "HIGHEST", Never = "NEVER" }
);

pub use crate::model::{NodeAccessPolicy, NodeAllocationPolicy};
crate::keyword_scalar!(NodeAllocationPolicy);
crate::keyword_scalar!(NodeAccessPolicy);

keywords!(
    /// JOBPRIOACCRUALPOLICY.
    JobPrioAccrualPolicy { Always = "ALWAYS", QueuePolicy = "QUEUEPOLICY", FullPolicy = "FULLPOLICY" }
);

keywords!(
    /// NODELOADPOLICY.
    NodeLoadPolicy { AdjustState = "ADJUSTSTATE", AdjustProcs = "ADJUSTPROCS" }
);

keywords!(
    /// RESCTLPOLICY: who may create admin reservations.
    ResCtlPolicy { AdminOnly = "ADMINONLY", Any = "ANY" }
);

keywords!(
    /// Standing reservation PERIOD.
    SrPeriod { Day = "DAY", Week = "WEEK", Infinity = "INFINITY" }
    aliases { "INFINITE" => Infinity, "DAYS" => Day }
);

keywords!(
    /// Reservation ACCESS mode.
    ResAccess { Dedicated = "DEDICATED", Shared = "SHARED" }
);

keywords!(
    /// Reservation flags.
    ResFlag {
        ByName = "BYNAME",
        OwnerPreempt = "OWNERPREEMPT",
        SpaceFlex = "SPACEFLEX",
        SingleUse = "SINGLEUSE",
        Preemptee = "PREEMPTEE",
        TimeFlex = "TIMEFLEX",
        Force = "FORCE",
        BestEffort = "BESTEFFORT",
    }
);

keywords!(
    /// Fairshare usage metric (FSPOLICY).
    FsMetric { DedicatedPs = "DEDICATEDPS", DedicatedPes = "DEDICATEDPES", UtilizedPs = "UTILIZEDPS" }
    aliases { "PSDEDICATED" => DedicatedPs, "PEDEDICATED" => DedicatedPes, "PSUTILIZED" => UtilizedPs }
);

keywords!(
    /// Days of the week for standing reservations.
    WeekDay { Sun = "SUN", Mon = "MON", Tue = "TUE", Wed = "WED", Thu = "THU", Fri = "FRI", Sat = "SAT" }
);

impl WeekDay {
    /// 0 = Sunday … 6 = Saturday.
    pub fn number(self) -> u32 {
        self as u32
    }
}

/// FSPOLICY: the metric, and `%` for ratio-based priority (1 - usage/target).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct FsPolicy {
    /// Metric tracked; `None` disables fairshare usage tracking.
    pub metric: Option<FsMetric>,
    /// `%` suffix: priority from the ratio rather than the difference.
    pub percent: bool,
}

impl Scalar for FsPolicy {
    fn parse_str(s: &str) -> Result<Self, String> {
        let (body, percent) = match s.strip_suffix('%') {
            Some(b) => (b, true),
            None => (s, false),
        };
        let up = body.to_ascii_uppercase();
        if up == "[NONE]" || up == "NONE" {
            return Ok(FsPolicy {
                metric: None,
                percent,
            });
        }
        FsMetric::from_keyword(body)
            .map(|m| FsPolicy { metric: Some(m), percent })
            .ok_or_else(|| {
                format!(
                    "expected one of DEDICATEDPS, DEDICATEDPES, UTILIZEDPS (optionally with %), or [NONE], got \"{s}\""
                )
            })
    }
    fn render(&self) -> String {
        match self.metric {
            None => "[NONE]".into(),
            Some(m) => format!("{}{}", m.keyword(), if self.percent { "%" } else { "" }),
        }
    }
    fn alias_note(s: &str) -> Option<String> {
        let body = s.strip_suffix('%').unwrap_or(s);
        FsMetric::alias_note(body)
    }
}

/// How a fairshare target steers priority.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum FsTargetMode {
    /// Plain target: priority up below it, down above it.
    Target,
    /// `+`: floor, only raises priority while usage is below it.
    Floor,
    /// `-`: cap, only lowers priority while usage is above it.
    Cap,
}

/// FSTARGET=<percent>[+|-].
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct FsTarget {
    /// Target share of delivered usage, in percent.
    pub percent: f64,
    /// Target, floor or cap.
    pub mode: FsTargetMode,
}

impl Scalar for FsTarget {
    fn parse_str(s: &str) -> Result<Self, String> {
        let (body, mode) = if let Some(b) = s.strip_suffix('+') {
            (b, FsTargetMode::Floor)
        } else if let Some(b) = s.strip_suffix('-') {
            (b, FsTargetMode::Cap)
        } else {
            (s, FsTargetMode::Target)
        };
        match parse_f64(body) {
            Some(v) if v >= 0.0 => Ok(FsTarget { percent: v, mode }),
            _ => Err(format!(
                "expected a percentage optionally followed by + (floor) or - (cap), got \"{s}\""
            )),
        }
    }
    fn render(&self) -> String {
        let m = match self.mode {
            FsTargetMode::Target => "",
            FsTargetMode::Floor => "+",
            FsTargetMode::Cap => "-",
        };
        format!("{}{m}", render_f64(self.percent))
    }
    fn alias_note(s: &str) -> Option<String> {
        let v = parse_f64(s.trim_end_matches(['+', '-']))?;
        (v > 100.0).then(|| {
            format!(
                "a target of {v}% can never be reached (usage is a share of what was delivered)"
            )
        })
    }
}

/// FSCAP=<usage>[%]: feasibility-based fairshare; jobs do not start while
/// the credential's decayed usage is at or above the cap.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct FsCap {
    /// Absolute usage (in the FSPOLICY metric) or percent of delivered usage.
    pub value: f64,
    /// True for the percentage form.
    pub percent: bool,
}

impl Scalar for FsCap {
    fn parse_str(s: &str) -> Result<Self, String> {
        let (body, percent) = match s.strip_suffix('%') {
            Some(b) => (b, true),
            None => (s, false),
        };
        match parse_f64(body) {
            Some(v) if v >= 0.0 && (!percent || v <= 100.0) => Ok(FsCap { value: v, percent }),
            _ => Err(format!(
                "expected a usage amount or a percentage such as 20%, got \"{s}\""
            )),
        }
    }
    fn render(&self) -> String {
        format!(
            "{}{}",
            render_f64(self.value),
            if self.percent { "%" } else { "" }
        )
    }
}

keywords!(
    /// Throttling limit kinds (active and idle).
    LimitKind {
        Job = "MAXJOB",
        Node = "MAXNODE",
        Proc = "MAXPROC",
        Pe = "MAXPE",
        Ps = "MAXPS",
        Wc = "MAXWC",
        Mem = "MAXMEM",
        Gres = "MAXGRES",
        IJob = "MAXIJOB",
        INode = "MAXINODE",
        IProc = "MAXIPROC",
        IPe = "MAXIPE",
        IPs = "MAXIPS",
        IWc = "MAXIWC",
        IMem = "MAXIMEM",
    }
    aliases { "MAXJOBS" => Job, "MAXNODES" => Node, "MAXPROCS" => Proc, "MAXIJOBS" => IJob, "MAXINODES" => INode, "MAXIPROCS" => IProc }
);

impl LimitKind {
    /// True for idle-job limits (MAXI*).
    pub fn is_idle(self) -> bool {
        matches!(
            self,
            LimitKind::IJob
                | LimitKind::INode
                | LimitKind::IProc
                | LimitKind::IPe
                | LimitKind::IPs
                | LimitKind::IWc
                | LimitKind::IMem
        )
    }

    /// True for limits written as durations.
    pub fn is_duration(self) -> bool {
        matches!(self, LimitKind::Wc | LimitKind::IWc)
    }
}

/// A soft and a hard limit (`MAXJOB=2,4`; a single value sets both).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct SoftHard {
    /// Applies in the first (soft) scheduling pass.
    pub soft: u64,
    /// Never exceeded.
    pub hard: u64,
}

/// One throttling limit of a credential, possibly per another credential
/// (`MAXJOB[USER]=2` in CLASSCFG: each user may run 2 jobs in this class).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LimitSpec {
    /// What is limited.
    pub kind: LimitKind,
    /// Empty: the credential as a whole. Otherwise each distinct value of
    /// these credentials (or just the named one) separately.
    pub per: Vec<(CredKind, Option<String>)>,
    /// The values.
    pub value: SoftHard,
    /// The generic resource a MAXGRES limit counts (`MAXGRES[gpu]`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gres: Option<String>,
}

impl LimitSpec {
    /// Attribute name as written back (`MAXJOB`, `MAXPROC[USER]`, `MAXJOB[CLASS,USER:bob]`).
    pub fn attr_name(&self) -> String {
        if let Some(g) = &self.gres {
            return format!("{}[{g}]", self.kind.keyword());
        }
        if self.per.is_empty() {
            return self.kind.keyword().to_string();
        }
        let scope: Vec<String> = self
            .per
            .iter()
            .map(|(k, n)| match n {
                Some(n) => format!("{}:{n}", k.name()),
                None => k.name().to_string(),
            })
            .collect();
        format!("{}[{}]", self.kind.keyword(), scope.join(","))
    }

    /// Value as written back.
    pub fn render(&self) -> String {
        let one = |v: u64| {
            if v == u64::MAX {
                "-1".to_string()
            } else if self.kind.is_duration() {
                fmt_duration(v as Secs)
            } else {
                v.to_string()
            }
        };
        if self.value.soft == self.value.hard {
            one(self.value.hard)
        } else {
            format!("{},{}", one(self.value.soft), one(self.value.hard))
        }
    }

    /// Reads a limit attribute: name like `MAXJOB`, `MAXJOB[USER]`,
    /// `MAXNODEPERUSER`, value like `4` or `2,4`. `Ok(None)` for `-1`
    /// (unlimited). `Err` carries the byte offset into the value when the
    /// value is at fault, or `None` when the name is.
    pub fn parse(name: &str, value: &str) -> Result<Option<LimitSpec>, (Option<usize>, String)> {
        let up = name.to_ascii_uppercase();
        // Moab's MAXGRES[<name>]: the brackets hold a generic resource.
        let mut gres = None;
        if up == "MAXGRES" || up.starts_with("MAXGRES[") {
            let g = name[7..]
                .strip_prefix('[')
                .and_then(|r| r.strip_suffix(']'))
                .ok_or((
                    None,
                    format!("{name} needs the generic resource it limits, as MAXGRES[gpu]=2"),
                ))?;
            let list = crate::model::GresList::parse(g)
                .map_err(|e| (None, format!("bad generic resource name in {name}: {e}")))?;
            match list.items() {
                [(n, 1)] if n == g => gres = Some(g.to_string()),
                _ => {
                    return Err((
                        None,
                        format!(
                        "{name}: expected one generic resource name (gpu or gpu:a100) inside []"
                    ),
                    ))
                }
            }
        }
        let (base, per) = match name.find('[').filter(|_| gres.is_none()) {
            Some(i) => {
                let Some(inner) = name[i + 1..].strip_suffix(']') else {
                    return Err((None, format!("missing ] in {name}")));
                };
                let mut per = Vec::new();
                for part in inner.split(',') {
                    let (k, n) = match part.split_once(':') {
                        Some((k, n)) => (k, Some(n.trim().to_string())),
                        None => (part, None),
                    };
                    let kind = CredKind::parse(k.trim()).ok_or_else(|| {
                        (None, format!("expected USER, GROUP, ACCOUNT, QOS or CLASS inside [], got \"{k}\""))
                    })?;
                    per.push((kind, n));
                }
                (up[..i].to_string(), per)
            }
            None if gres.is_some() => ("MAXGRES".to_string(), Vec::new()),
            None => {
                // MAXNODEPERUSER, MAXJOBPERGROUP, ...
                match up
                    .find("PER")
                    .and_then(|i| Some((i, CredKind::parse(&up[i + 3..])?)))
                {
                    Some((i, kind)) if i > 3 => (up[..i].to_string(), vec![(kind, None)]),
                    _ => (up.clone(), Vec::new()),
                }
            }
        };
        let kind = LimitKind::from_keyword(&base).ok_or((None, format!("unknown limit {name}")))?;
        let parse_one = |s: &str, off: usize| -> Result<Option<u64>, (Option<usize>, String)> {
            let t = s.trim();
            if t == "-1"
                || t.eq_ignore_ascii_case("INFINITY")
                || t.eq_ignore_ascii_case("UNLIMITED")
            {
                return Ok(None);
            }
            if kind.is_duration() {
                match parse_duration(t) {
                    Ok(Some(v)) if v >= 0 => Ok(Some(v as u64)),
                    _ => Err((
                        Some(off),
                        format!("expected a duration limit [[[DD:]HH:]MM:]SS, got \"{t}\""),
                    )),
                }
            } else {
                t.parse::<u64>().map(Some).map_err(|_| {
                    (
                        Some(off),
                        format!("expected a limit as <hard> or <soft>,<hard>, got \"{value}\""),
                    )
                })
            }
        };
        let (soft, hard) = match value.split_once(',') {
            Some((s, h)) => (parse_one(s, 0)?, parse_one(h, s.len() + 1)?),
            None => {
                let v = parse_one(value, 0)?;
                (v, v)
            }
        };
        let (soft, hard) = match (soft, hard) {
            (None, None) => return Ok(None),
            (Some(s), None) => (s, u64::MAX),
            (None, Some(h)) => (h, h),
            (Some(s), Some(h)) => (s, h),
        };
        if soft > hard {
            return Err((
                Some(0),
                format!("soft limit {soft} is above hard limit {hard}"),
            ));
        }
        Ok(Some(LimitSpec {
            kind,
            per,
            value: SoftHard { soft, hard },
            gres,
        }))
    }
}

/// Reservation affinity of an ACL entry.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Affinity {
    /// Use reserved resources first (default, or `+`).
    #[default]
    Positive,
    /// Use reserved resources only as a last resort (`-`).
    Negative,
    /// No preference (`=`).
    Neutral,
}

/// One ACL entry: `name`, `!name`, `name-`, `name=`, `name+`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct AclEntry {
    /// Credential value (or job attribute).
    pub name: String,
    /// `!`: matches every value except this one, and excludes this one.
    pub not: bool,
    /// Affinity for jobs admitted by this entry.
    pub affinity: Affinity,
}

/// One ACL list (e.g. USERLIST) with its `*` required marker.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct AclList {
    /// Entries.
    pub entries: Vec<AclEntry>,
    /// `*`: the job must satisfy this list (and at least one other).
    pub required: bool,
}

impl AclList {
    /// Reads a list value such as `high,low,special-` or `!projectX,!projectY*`.
    pub fn parse(s: &str) -> Result<AclList, String> {
        let mut out = AclList::default();
        for raw in split_list(s) {
            let mut e = raw;
            if let Some(x) = e.strip_suffix('*') {
                out.required = true;
                e = x;
            }
            let (not, body) = match e.strip_prefix('!') {
                Some(b) => (true, b),
                None => (false, e),
            };
            let (name, affinity) = if let Some(n) = body.strip_suffix('-') {
                (n, Affinity::Negative)
            } else if let Some(n) = body.strip_suffix('=') {
                (n, Affinity::Neutral)
            } else if let Some(n) = body.strip_suffix('+') {
                (n, Affinity::Positive)
            } else {
                (body, Affinity::Positive)
            };
            if name.is_empty() {
                if e.is_empty() {
                    continue; // a lone '*'
                }
                return Err(format!("empty name in ACL entry \"{raw}\""));
            }
            out.entries.push(AclEntry {
                name: name.to_string(),
                not,
                affinity,
            });
        }
        Ok(out)
    }

    /// True when the list has no entries.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Renders back in maui.cfg syntax.
    pub fn render(&self) -> String {
        let mut parts: Vec<String> = self
            .entries
            .iter()
            .map(|e| {
                let aff = match e.affinity {
                    Affinity::Positive => "",
                    Affinity::Negative => "-",
                    Affinity::Neutral => "=",
                };
                format!("{}{}{aff}", if e.not { "!" } else { "" }, e.name)
            })
            .collect();
        if self.required {
            if let Some(last) = parts.last_mut() {
                last.push('*');
            }
        }
        parts.join(",")
    }
}

/// The complete access control list of a reservation.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Acl {
    /// USERLIST.
    pub users: AclList,
    /// GROUPLIST.
    pub groups: AclList,
    /// ACCOUNTLIST.
    pub accounts: AclList,
    /// CLASSLIST.
    pub classes: AclList,
    /// QOSLIST.
    pub qos: AclList,
    /// JOBATTRLIST.
    pub job_attrs: AclList,
    /// TIMELIMIT: maximum overlap of a job with the reservation, and
    /// whether it is required (`*`).
    pub time_limit: Option<(Secs, bool)>,
}

impl Acl {
    /// True when nothing is listed: a SYSTEM reservation that admits no job.
    pub fn is_empty(&self) -> bool {
        self.users.is_empty()
            && self.groups.is_empty()
            && self.accounts.is_empty()
            && self.classes.is_empty()
            && self.qos.is_empty()
            && self.job_attrs.is_empty()
            && self.time_limit.is_none()
    }

    /// The credential lists with their kinds.
    pub fn cred_lists(&self) -> [(CredKind, &AclList); 5] {
        [
            (CredKind::User, &self.users),
            (CredKind::Group, &self.groups),
            (CredKind::Account, &self.accounts),
            (CredKind::Qos, &self.qos),
            (CredKind::Class, &self.classes),
        ]
    }
}

/// RESOURCES of one reservation task: `PROCS:2;MEM:512`, `PROCS=1,MEM=256`,
/// with generic resources as `GRES=gpu:2,tape:1` (Moab's setres form) and
/// GPUs also as `GPUS:2`, `GPU:a100:1`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct TaskSpec {
    /// Processors per task; `None` (PROCS=-1) means all processors of the node.
    pub procs: Option<u32>,
    /// Memory per task in MB.
    pub mem: u64,
    /// Swap per task in MB.
    pub swap: u64,
    /// Disk per task in MB.
    pub disk: u64,
    /// Generic resources per task, names as written (matched to the
    /// cluster's names exactly, else regardless of case).
    pub gres: crate::model::GresList,
}

impl TaskSpec {
    /// True when a task reserves nothing at all.
    pub fn is_empty(&self) -> bool {
        self.procs == Some(0)
            && self.mem == 0
            && self.swap == 0
            && self.disk == 0
            && self.gres.items().iter().all(|(_, c)| *c == 0)
    }
}

/// Adds the generic resource `item` (`name[:type][:count]`) to `t`.
fn task_gres(t: &mut TaskSpec, item: &str) -> Result<(), String> {
    if item.trim().is_empty() {
        return Err("GRES needs a generic resource, expected name[:type]:count".into());
    }
    let g = crate::model::GresList::parse(item)
        .map_err(|m| format!("generic resource {m} (expected name[:type]:count)"))?;
    for (name, count) in g.items() {
        t.gres.set(name, *count);
    }
    Ok(())
}

impl Scalar for TaskSpec {
    fn parse_str(s: &str) -> Result<Self, String> {
        let mut t = TaskSpec {
            procs: Some(0),
            ..TaskSpec::default()
        };
        let mut any = false;
        // A bare name continues a GRES= list (`GRES=tape:1,matlab`).
        let mut in_gres = false;
        for part in s.split([';', ',']).filter(|p| !p.is_empty()) {
            let Some((k, v)) = part.split_once([':', '=']) else {
                if in_gres {
                    task_gres(&mut t, part)?;
                    continue;
                }
                return Err(format!(
                    "expected <RESOURCE>:<AMOUNT> pairs such as PROCS:2;MEM:512, got \"{part}\""
                ));
            };
            let key = k.to_ascii_uppercase();
            let amount = |v: &str| -> Result<u64, String> {
                v.parse()
                    .map_err(|_| format!("expected a whole amount for {key}, got \"{v}\""))
            };
            let continuing = std::mem::take(&mut in_gres);
            match key.as_str() {
                "PROCS" | "PROC" => {
                    t.procs = if v == "-1" {
                        None
                    } else {
                        Some(
                            u32::try_from(amount(v)?)
                                .map_err(|_| format!("PROCS {v} is too large"))?,
                        )
                    }
                }
                "MEM" => t.mem = amount(v)?,
                "SWAP" => t.swap = amount(v)?,
                "DISK" => t.disk = amount(v)?,
                "GRES" => {
                    task_gres(&mut t, v)?;
                    in_gres = true;
                }
                // Slurm's and Moab's GPUS: `GPU:1`, `gpus=2`, `gpu:a100:1`.
                "GPU" | "GPUS" => {
                    task_gres(&mut t, &format!("gpu:{v}"))?;
                    in_gres = true;
                }
                // The GRES= list goes on: `GRES=gpu:2,tape:1`.
                _ if continuing => {
                    task_gres(&mut t, part)?;
                    in_gres = true;
                }
                _ => {
                    return Err(format!(
                        "expected PROCS, MEM, SWAP, DISK, GPUS or GRES=<name>[:<type>]:<count>, got \"{k}\""
                    ))
                }
            }
            any = true;
        }
        if !any {
            return Err("expected <RESOURCE>:<AMOUNT> pairs such as PROCS:2;MEM:512".into());
        }
        Ok(t)
    }
    fn render(&self) -> String {
        let mut parts = vec![match self.procs {
            None => "PROCS:-1".to_string(),
            Some(p) => format!("PROCS:{p}"),
        }];
        for (k, v) in [("MEM", self.mem), ("SWAP", self.swap), ("DISK", self.disk)] {
            if v > 0 {
                parts.push(format!("{k}:{v}"));
            }
        }
        if !self.gres.is_empty() {
            let list: Vec<String> = self
                .gres
                .items()
                .iter()
                .map(|(n, c)| format!("{n}:{c}"))
                .collect();
            parts.push(format!("GRES={}", list.join(",")));
        }
        parts.join(";")
    }
}

keywords!(
    /// NODEAVAILABILITYPOLICY modes.
    AvailabilityMode { Combined = "COMBINED", Dedicated = "DEDICATED", Utilized = "UTILIZED" }
);

/// NODEAVAILABILITYPOLICY: how availability is judged per resource.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct NodeAvailability {
    /// Processors.
    pub procs: AvailabilityMode,
    /// Memory.
    pub mem: AvailabilityMode,
    /// Swap.
    pub swap: AvailabilityMode,
    /// Disk.
    pub disk: AvailabilityMode,
}

impl Default for NodeAvailability {
    fn default() -> Self {
        let c = AvailabilityMode::Combined;
        NodeAvailability {
            procs: c,
            mem: c,
            swap: c,
            disk: c,
        }
    }
}

impl super::value::ParamValue for NodeAvailability {
    fn parse_tokens(
        toks: &[super::lexer::Token],
        _: &mut Vec<(u32, String)>,
    ) -> Result<Self, (u32, String)> {
        if toks.is_empty() {
            return Err((0, "missing value".into()));
        }
        let mut out = NodeAvailability::default();
        for t in toks {
            let (m, r) = match t.text.split_once(':') {
                Some((m, r)) => (m, Some(r)),
                None => (t.text.as_str(), None),
            };
            let mode = AvailabilityMode::from_keyword(m).ok_or_else(|| {
                (
                    t.col,
                    format!(
                        "expected COMBINED, DEDICATED or UTILIZED[:<RESOURCE>], got \"{}\"",
                        t.text
                    ),
                )
            })?;
            match r.map(|r| r.to_ascii_uppercase()) {
                None => {
                    out = NodeAvailability {
                        procs: mode,
                        mem: mode,
                        swap: mode,
                        disk: mode,
                    }
                }
                Some(r) => match r.as_str() {
                    "PROC" | "PROCS" => out.procs = mode,
                    "MEM" => out.mem = mode,
                    "SWAP" => out.swap = mode,
                    "DISK" => out.disk = mode,
                    _ => {
                        return Err((
                            t.col + m.chars().count() as u32 + 1,
                            format!("expected PROCS, MEM, SWAP or DISK, got \"{r}\""),
                        ))
                    }
                },
            }
        }
        Ok(out)
    }
    fn render_value(&self) -> String {
        format!(
            "{}:PROCS {}:MEM {}:SWAP {}:DISK",
            self.procs, self.mem, self.swap, self.disk
        )
    }
}

/// JOBNODEMATCHPOLICY flags.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct JobNodeMatch {
    /// EXACTNODE: one node per requested node, even if tasks could pack.
    pub exact_node: bool,
    /// EXACTPROC: only nodes whose configured procs equal the request per node.
    pub exact_proc: bool,
}

impl super::value::ParamValue for JobNodeMatch {
    fn parse_tokens(
        toks: &[super::lexer::Token],
        _: &mut Vec<(u32, String)>,
    ) -> Result<Self, (u32, String)> {
        let mut out = JobNodeMatch::default();
        for t in toks {
            for w in split_list(&t.text) {
                match w.to_ascii_uppercase().as_str() {
                    "EXACTNODE" => out.exact_node = true,
                    "EXACTPROC" => out.exact_proc = true,
                    "[NONE]" | "NONE" => {}
                    _ => {
                        return Err((
                            t.col,
                            format!("expected EXACTNODE or EXACTPROC, got \"{w}\""),
                        ))
                    }
                }
            }
        }
        Ok(out)
    }
    fn render_value(&self) -> String {
        match (self.exact_node, self.exact_proc) {
            (false, false) => "[NONE]".into(),
            (true, false) => "EXACTNODE".into(),
            (false, true) => "EXACTPROC".into(),
            (true, true) => "EXACTNODE EXACTPROC".into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fairshare_targets_and_policies() {
        assert_eq!(
            FsTarget::parse_str("10.0+").unwrap(),
            FsTarget {
                percent: 10.0,
                mode: FsTargetMode::Floor
            }
        );
        assert_eq!(
            FsTarget::parse_str("10.0-").unwrap().mode,
            FsTargetMode::Cap
        );
        assert_eq!(
            FsTarget::parse_str("25").unwrap().mode,
            FsTargetMode::Target
        );
        assert!(FsTarget::parse_str("150").is_ok());
        assert!(FsTarget::alias_note("150").is_some());
        assert!(FsTarget::parse_str("-5").is_err());
        let p = FsPolicy::parse_str("DEDICATEDPS%").unwrap();
        assert_eq!((p.metric, p.percent), (Some(FsMetric::DedicatedPs), true));
        assert_eq!(
            FsPolicy::parse_str("PSDEDICATED").unwrap().metric,
            Some(FsMetric::DedicatedPs)
        );
        assert_eq!(FsPolicy::parse_str("[NONE]").unwrap().metric, None);
    }

    #[test]
    fn maxgres_names_its_generic_resource() {
        let l = LimitSpec::parse("MAXGRES[gpu]", "2,4").unwrap().unwrap();
        assert_eq!(
            (l.kind, l.gres.as_deref(), l.value),
            (LimitKind::Gres, Some("gpu"), SoftHard { soft: 2, hard: 4 })
        );
        assert!(l.per.is_empty());
        assert_eq!(
            (l.attr_name(), l.render()),
            ("MAXGRES[gpu]".into(), "2,4".into())
        );
        let l = LimitSpec::parse("maxgres[gpu:a100]", "1").unwrap().unwrap();
        assert_eq!(l.attr_name(), "MAXGRES[gpu:a100]");
        assert!(LimitSpec::parse("MAXGRES[gpu]", "-1").unwrap().is_none());
        for (name, value, want) in [
            ("MAXGRES", "2", "needs the generic resource"),
            ("MAXGRES[gpu:2]", "1", "expected one generic resource name"),
            (
                "MAXGRES[gpu,tape]",
                "1",
                "expected one generic resource name",
            ),
            ("MAXGRES[g pu]", "1", "bad generic resource name"),
            ("MAXGRES[gpu]", "x", "expected a limit"),
        ] {
            let e = LimitSpec::parse(name, value).unwrap_err().1;
            assert!(e.contains(want), "{name}={value}: {e}");
        }
    }

    #[test]
    fn limits_soft_hard_and_scoped() {
        let l = LimitSpec::parse("MAXJOB", "2,4").unwrap().unwrap();
        assert_eq!(l.value, SoftHard { soft: 2, hard: 4 });
        let l = LimitSpec::parse("MAXNODES", "40").unwrap().unwrap();
        assert_eq!(
            (l.kind, l.value.soft, l.value.hard),
            (LimitKind::Node, 40, 40)
        );
        let l = LimitSpec::parse("MAXNODEPERUSER", "8").unwrap().unwrap();
        assert_eq!(l.per, vec![(CredKind::User, None)]);
        let l = LimitSpec::parse("MAXJOB[Class,User]", "3")
            .unwrap()
            .unwrap();
        assert_eq!(l.per, vec![(CredKind::Class, None), (CredKind::User, None)]);
        assert_eq!(l.attr_name(), "MAXJOB[CLASS,USER]");
        let l = LimitSpec::parse("MAXPROC[USER:bob]", "4").unwrap().unwrap();
        assert_eq!(l.per, vec![(CredKind::User, Some("bob".into()))]);
        let l = LimitSpec::parse("MAXWC", "1:00:00,2:00:00")
            .unwrap()
            .unwrap();
        assert_eq!(
            l.value,
            SoftHard {
                soft: 3600,
                hard: 7200
            }
        );
        assert!(LimitSpec::parse("MAXJOB", "5,4").is_err());
        assert!(LimitSpec::parse("MAXJOB", "x").is_err());
        assert_eq!(LimitSpec::parse("MAXJOB", "-1"), Ok(None));
    }

    #[test]
    fn acl_markers() {
        let a = AclList::parse("high:low:special-").unwrap();
        assert_eq!(a.entries.len(), 3);
        assert_eq!(a.entries[2].affinity, Affinity::Negative);
        let a = AclList::parse("!projectX,!projectY").unwrap();
        assert!(a.entries.iter().all(|e| e.not));
        let a = AclList::parse("normal= high debug= low-").unwrap();
        assert_eq!(a.entries[0].affinity, Affinity::Neutral);
        let a = AclList::parse("batch*").unwrap();
        assert!(a.required);
        assert_eq!(a.render(), "batch*");
    }

    #[test]
    fn task_specs() {
        let t = TaskSpec::parse_str("PROCS:2;MEM:512").unwrap();
        assert_eq!((t.procs, t.mem), (Some(2), 512));
        let t = TaskSpec::parse_str("PROCS:2,MEM:256").unwrap();
        assert_eq!((t.procs, t.mem), (Some(2), 256));
        let t = TaskSpec::parse_str("PROCS=-1").unwrap();
        assert_eq!(t.procs, None);
        assert!(TaskSpec::parse_str("PROCS:x").is_err());
    }

    #[test]
    fn task_specs_take_generic_resources() {
        let t = TaskSpec::parse_str("PROCS:2;MEM:512;GPU:1").unwrap();
        assert_eq!((t.procs, t.mem), (Some(2), 512));
        assert_eq!(t.gres.get("gpu"), Some(1));
        // setres's GRES=<STRING>, typed names, a GRES= list going on.
        let t = TaskSpec::parse_str("PROCS=1;GRES=gpu:a100:2").unwrap();
        assert_eq!(t.gres.get("gpu:a100"), Some(2));
        let t = TaskSpec::parse_str("PROCS:1;GRES=tape:1,matlab;MEM:64").unwrap();
        assert_eq!(
            (t.gres.get("tape"), t.gres.get("matlab")),
            (Some(1), Some(1))
        );
        assert_eq!(t.mem, 64);
        let t = TaskSpec::parse_str("gpu=2").unwrap();
        assert_eq!((t.procs, t.gres.get("gpu")), (Some(0), Some(2)));
        assert!(!t.is_empty());
        assert!(TaskSpec::parse_str("PROCS:0").unwrap().is_empty());
        // Rendered back, it parses to the same spec.
        for s in ["PROCS:2;MEM:512;gpu:1", "PROCS=-1;GRES=gpu:a100:2,tape:1"] {
            let t = TaskSpec::parse_str(s).unwrap();
            assert_eq!(
                TaskSpec::parse_str(&t.render()).unwrap(),
                t,
                "{}",
                t.render()
            );
        }
        assert_eq!(
            TaskSpec::parse_str("PROCS:2;gpu:1").unwrap().render(),
            "PROCS:2;GRES=gpu:1"
        );
        for (s, want) in [
            ("PROCS:1;gpu:x:y:1", "more than one type"),
            ("PROCS:1;gpu:2x", "not a whole number"),
            ("PROCS:1;GRES=", "expected name[:type]:count"),
            ("PROCS:1;matlab", "expected <RESOURCE>:<AMOUNT>"),
            (
                "PROCS:1;CPUS:2",
                "expected PROCS, MEM, SWAP, DISK, GPUS or GRES=",
            ),
            ("PROCS:1;matlab:1", "got \"matlab\""),
        ] {
            let e = TaskSpec::parse_str(s).unwrap_err();
            assert!(e.contains(want), "{s}: {e}");
        }
    }
}
