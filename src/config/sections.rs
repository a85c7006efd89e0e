//! Indexed sections: USERCFG & co., NODECFG and SRCFG, with their attributes.

use super::priorityf::PriorityF;
use super::types::*;
use super::value::{parse_f64, render_f64, Names, Scalar};
use crate::model::time::{fmt_duration, parse_duration};
use crate::model::{CredKind, HostList, Secs};
use serde::Serialize;

/// Result of setting one `ATTR=VALUE`.
pub enum AttrOutcome {
    /// Set.
    Ok,
    /// Set, with a remark about the value (alias, deprecated form).
    Note(String),
    /// Not an attribute of this section.
    Unknown,
    /// A known attribute that does nothing here, with the reason.
    Ignored(String),
    /// Bad value: byte offset into the value and message.
    Bad(usize, String),
    /// Set, but part of the value does nothing: a warning, as written.
    Partly(String),
}

/// Flags of a QOS (QFLAGS, and FLAGS of QOSCFG) that mauisched acts on
/// ([`crate::throttle::QosFlags`]); `IGN<limit>PER<cred>` is matched by
/// [`qos_flag_acted_on`].
const QOS_FLAGS_ACTED_ON: &[&str] = &[
    "DEDICATED",
    "IGNUSER",
    "IGNGROUP",
    "IGNACCOUNT",
    "IGNSYSTEM",
    "IGNALL",
    "IGNSYSMAXPROC",
    "IGNSYSMAXTIME",
    "IGNSYSMAXPS",
    "PREEMPTOR",
    "PREEMPTEE",
];

/// Job flags a credential's FLAGS give its jobs that mauisched acts on
/// (besides `ADVRES:<resid>`): the preemption roles, as Maui's
/// `MJobUpdateFlags` takes them from the user, group, account and class.
const CRED_FLAGS_ACTED_ON: &[&str] = &["PREEMPTOR", "PREEMPTEE"];

/// Maui 3.3's QOS flags (`MQOSFlags`, src/MConst.c).
const MAUI_QOS_FLAGS: &[&str] = &[
    "IGNJOBPERUSER",
    "IGNPROCPERUSER",
    "IGNNODEPERUSER",
    "IGNPSPERUSER",
    "IGNJOBQUEUEDPERUSER",
    "IGNSYSMAXPROC",
    "IGNSYSMAXTIME",
    "IGNSYSMAXPS",
    "IGNSRMAXTIME",
    "IGNUSER",
    "IGNSYSTEM",
    "IGNALL",
    "PREEMPTOR",
    "PREEMPTEE",
    "DEDICATED",
    "RESERVEALWAYS",
    "USERESERVED",
    "NOBF",
    "NORESERVATION",
    "RESTARTPREEMPT",
    "NTR",
    "RUNNOW",
    "PREEMPTSPV",
    "IGNHOSTLIST",
];

/// Maui 3.3's job flags (`MJobFlags`, src/MConst.c): what a credential's
/// FLAGS may give its jobs.
const MAUI_JOB_FLAGS: &[&str] = &[
    "BENCHMARK",
    "BACKFILL",
    "SPAN",
    "ADVRES",
    "NOQUEUE",
    "HOSTLIST",
    "RESMAP",
    "SHAREDRESOURCES",
    "BYNAME",
    "BESTEFFORT",
    "RESTARTABLE",
    "PREEMPTEE",
    "PREEMPTOR",
    "DEDICATEDNODE",
    "PRESTART",
    "REMOTE",
    "NASINGLETASK",
    "SPVIOLATION",
    "IGNNODEPOLICIES",
    "NORMSTART",
    "GLOBALQUEUE",
];

fn qos_flag_acted_on(f: &str) -> bool {
    QOS_FLAGS_ACTED_ON.contains(&f)
        || f.strip_prefix("IGN")
            .and_then(|r| r.split_once("PER"))
            .is_some_and(|(what, who)| {
                matches!(what, "JOB" | "PROC" | "PS" | "JOBQUEUED")
                    && matches!(who, "USER" | "GROUP" | "ACCOUNT")
            })
}

/// A FLAGS (or QFLAGS) value as a list: items separated by `,`, `|` or
/// blanks, and by `:` except after ADVRES, where `:` introduces the
/// reservation (`ADVRES:<resid>`, kept as one item).
pub fn split_flags(v: &str) -> Vec<String> {
    let mut out = Vec::new();
    for item in v.split([',', '|', ' ', '\t']).filter(|x| !x.is_empty()) {
        match item.split_once(':') {
            Some((f, id)) if f.eq_ignore_ascii_case("ADVRES") => {
                out.push(format!("ADVRES:{id}"));
            }
            _ => out.extend(
                item.split(':')
                    .filter(|x| !x.is_empty())
                    .map(str::to_string),
            ),
        }
    }
    out
}

/// The reservation a credential's FLAGS confine its jobs to
/// (`ADVRES:<resid>`), if any.
pub fn advres_flag(flags: &Names) -> Option<&str> {
    flags.0.iter().find_map(|f| {
        f.split_once(':')
            .filter(|(a, id)| a.eq_ignore_ascii_case("ADVRES") && !id.is_empty())
            .map(|(_, id)| id)
    })
}

/// Checks the flags of a credential section's FLAGS or QFLAGS: every flag
/// mauisched does not act on is warned about (`Partly`). On QOSCFG the
/// QOS flags of [`crate::throttle::QosFlags`] and ADVRES:<resid> take
/// effect; on USERCFG, GROUPCFG, ACCOUNTCFG and CLASSCFG ADVRES:<resid>
/// does; on SYSCFG none.
fn check_flags(kind: Option<CredKind>, flags: &[String]) -> AttrOutcome {
    let (mut unacted, mut unknown) = (Vec::new(), Vec::new());
    let qos = kind == Some(CredKind::Qos);
    for f in flags {
        let up = f.to_ascii_uppercase();
        let advres = up.split_once(':').map(|(a, _)| a) == Some("ADVRES") || up == "ADVRES";
        let acted = match kind {
            None => false,
            Some(_) if advres => advres_flag(&Names(vec![f.clone()])).is_some(),
            Some(_) => {
                (qos && qos_flag_acted_on(&up)) || CRED_FLAGS_ACTED_ON.contains(&up.as_str())
            }
        };
        if acted {
            continue;
        }
        let maui = MAUI_JOB_FLAGS.contains(&up.as_str())
            || advres
            || (qos && MAUI_QOS_FLAGS.contains(&up.as_str()))
            || (qos && qos_flag_acted_on(&up));
        if maui {
            unacted.push(f.as_str());
        } else {
            unknown.push(f.as_str());
        }
    }
    let mut parts = Vec::new();
    if !unacted.is_empty() {
        let what = match kind {
            None => "SYSCFG flags are not acted on".to_string(),
            Some(CredKind::Qos) => {
                "mauisched acts on DEDICATED, PREEMPTOR, PREEMPTEE, the IGN* limit exemptions and ADVRES:<reservation> only"
                    .to_string()
            }
            Some(_) => {
                "a credential's FLAGS act on PREEMPTOR, PREEMPTEE and ADVRES:<reservation> only (ADVRES alone would confine jobs to any reservation, which mauisched does not do)"
                    .to_string()
            }
        };
        parts.push(format!("{} not acted on: {what}", unacted.join(", ")));
    }
    if !unknown.is_empty() {
        parts.push(format!(
            "{} not a Maui {} flag",
            unknown.join(", "),
            if qos { "QOS or job" } else { "job" }
        ));
    }
    if parts.is_empty() {
        AttrOutcome::Ok
    } else {
        AttrOutcome::Partly(format!("{}; ignored", parts.join("; ")))
    }
}

fn scalar<T: Scalar>(v: &str) -> Result<T, AttrOutcome> {
    T::parse_str(v).map_err(|m| AttrOutcome::Bad(0, m))
}

fn noted<T: Scalar>(v: &str, set: impl FnOnce(T)) -> AttrOutcome {
    match T::parse_str(v) {
        Ok(x) => {
            set(x);
            match T::alias_note(v) {
                Some(n) => AttrOutcome::Note(n),
                None => AttrOutcome::Ok,
            }
        }
        Err(m) => AttrOutcome::Bad(0, m),
    }
}

fn done<T>(r: Result<T, AttrOutcome>, set: impl FnOnce(T)) -> AttrOutcome {
    match r {
        Ok(v) => {
            set(v);
            AttrOutcome::Ok
        }
        Err(e) => e,
    }
}

/// Attributes of one credential (USERCFG[x], ..., SYSCFG).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct CredCfg {
    /// PRIORITY: credential priority (may be negative).
    pub priority: Option<i64>,
    /// FSTARGET: fairshare target, floor (+) or cap (-).
    pub fs_target: Option<FsTarget>,
    /// FSCAP: feasibility cap on fairshare usage.
    pub fs_cap: Option<FsCap>,
    /// Throttling limits.
    pub limits: Vec<LimitSpec>,
    /// QOS override limits (`OMAXJOB`, `OMAXNODE`, ...): they supersede the
    /// same limits of the job's user, group, account and class.
    pub overrides: Vec<LimitSpec>,
    /// QLIST: QOS the credential may use.
    pub qlist: Option<Names>,
    /// QDEF: default QOS.
    pub qdef: Option<String>,
    /// PLIST: partitions the credential may use.
    pub plist: Option<Names>,
    /// PDEF: default partition.
    pub pdef: Option<String>,
    /// FLAGS.
    pub flags: Option<Names>,
    /// QTWEIGHT (QOS only): added to QUEUETIMEWEIGHT.
    pub qt_weight: Option<i64>,
    /// XFWEIGHT (QOS only): added to XFACTORWEIGHT.
    pub xf_weight: Option<i64>,
    /// QTTARGET (QOS only): target queue time.
    pub qt_target: Option<Secs>,
    /// XFTARGET (QOS only): target expansion factor.
    pub xf_target: Option<f64>,
    /// QFLAGS (QOS only).
    pub qflags: Option<Names>,
}

/// Attribute names of credential sections (for hints).
pub const CRED_ATTRS: &[&str] = &[
    "PRIORITY", "FSTARGET", "FSCAP", "QLIST", "QDEF", "PLIST", "PDEF", "FLAGS", "QTWEIGHT",
    "XFWEIGHT", "QTTARGET", "XFTARGET", "QFLAGS", "MAXJOB", "MAXNODE", "MAXPROC", "MAXPE", "MAXPS",
    "MAXWC", "MAXMEM", "MAXGRES", "MAXIJOB", "MAXINODE", "MAXIPROC", "MAXIPE", "MAXIPS", "MAXIWC",
    "MAXIMEM", "OMAXJOB", "OMAXNODE", "OMAXPROC", "OMAXPE", "OMAXPS", "OMAXWC", "OMAXMEM",
    "OMAXGRES",
];

impl CredCfg {
    /// Sets one attribute. `kind` is `None` for SYSCFG.
    pub fn set(&mut self, kind: Option<CredKind>, attr: &str, v: &str) -> AttrOutcome {
        let up = attr.to_ascii_uppercase();
        let qos_only = |this: &str| -> Option<AttrOutcome> {
            (kind != Some(CredKind::Qos))
                .then(|| AttrOutcome::Ignored(format!("{this} applies to QOSCFG only")))
        };
        match up.as_str() {
            "PRIORITY" => done(scalar::<i64>(v), |x| self.priority = Some(x)),
            "FSTARGET" => noted::<FsTarget>(v, |x| self.fs_target = Some(x)),
            "FSCAP" => done(scalar::<FsCap>(v), |x| self.fs_cap = Some(x)),
            "QLIST" => {
                self.qlist = Some(Names(
                    super::value::split_list(v).map(str::to_string).collect(),
                ));
                AttrOutcome::Ok
            }
            "QDEF" => {
                self.qdef = Some(v.to_string());
                AttrOutcome::Ok
            }
            "PLIST" => {
                self.plist = Some(Names(
                    super::value::split_list(v).map(str::to_string).collect(),
                ));
                AttrOutcome::Ok
            }
            "PDEF" => {
                self.pdef = Some(v.to_string());
                AttrOutcome::Ok
            }
            "FLAGS" => {
                let flags = split_flags(v);
                let checked = check_flags(kind, &flags);
                self.flags = Some(Names(flags));
                checked
            }
            "QTWEIGHT" => qos_only("QTWEIGHT")
                .unwrap_or_else(|| done(scalar::<i64>(v), |x| self.qt_weight = Some(x))),
            "XFWEIGHT" => qos_only("XFWEIGHT")
                .unwrap_or_else(|| done(scalar::<i64>(v), |x| self.xf_weight = Some(x))),
            "QTTARGET" => qos_only("QTTARGET").unwrap_or_else(|| match parse_duration(v) {
                Ok(Some(s)) if s > 0 => {
                    self.qt_target = Some(s);
                    AttrOutcome::Ok
                }
                _ => AttrOutcome::Bad(
                    0,
                    format!("expected a positive duration [[[DD:]HH:]MM:]SS, got \"{v}\""),
                ),
            }),
            "XFTARGET" => qos_only("XFTARGET").unwrap_or_else(|| match parse_f64(v) {
                Some(x) if x >= 1.0 => {
                    self.xf_target = Some(x);
                    AttrOutcome::Ok
                }
                _ => AttrOutcome::Bad(
                    0,
                    format!("expected an expansion factor of at least 1.0, got \"{v}\""),
                ),
            }),
            "QFLAGS" => qos_only("QFLAGS").unwrap_or_else(|| {
                let flags = split_flags(v);
                let checked = check_flags(kind, &flags);
                self.qflags = Some(Names(flags));
                checked
            }),
            _ if up.starts_with("OMAX") => match qos_only(&up) {
                Some(ignored) => ignored,
                None => match LimitSpec::parse(&attr[1..], v) {
                    Ok(Some(l)) => {
                        let name = l.attr_name();
                        self.overrides.retain(|o| o.attr_name() != name);
                        self.overrides.push(l);
                        AttrOutcome::Ok
                    }
                    Ok(None) => AttrOutcome::Ok,
                    Err((None, m)) if m.starts_with("unknown limit") => AttrOutcome::Unknown,
                    Err((None, m)) => AttrOutcome::Bad(0, m),
                    Err((Some(off), m)) => AttrOutcome::Bad(off, m),
                },
            },
            _ if up.starts_with("MAX") => match LimitSpec::parse(attr, v) {
                Ok(Some(l)) => {
                    let name = l.attr_name();
                    self.limits.retain(|o| o.attr_name() != name);
                    self.limits.push(l);
                    AttrOutcome::Ok
                }
                Ok(None) => {
                    // Kept as an explicit "no limit" so that it overrides
                    // a *CFG[DEFAULT] limit of the same name.
                    if let Ok(Some(mut p)) = LimitSpec::parse(attr, "1") {
                        let name = p.attr_name();
                        p.value = SoftHard {
                            soft: u64::MAX,
                            hard: u64::MAX,
                        };
                        self.limits.retain(|o| o.attr_name() != name);
                        self.limits.push(p);
                    }
                    AttrOutcome::Ok
                }
                Err((None, m)) if m.starts_with("unknown limit") => AttrOutcome::Unknown,
                Err((None, m)) => AttrOutcome::Bad(0, m),
                Err((Some(off), m)) => AttrOutcome::Bad(off, m),
            },
            _ => AttrOutcome::Unknown,
        }
    }

    /// `ATTR=VALUE` pairs for showconfig, in a stable order.
    pub fn render(&self) -> Vec<(String, String)> {
        let mut out = Vec::new();
        let mut push = |k: &str, v: String| out.push((k.to_string(), v));
        if let Some(v) = self.priority {
            push("PRIORITY", v.to_string());
        }
        if let Some(v) = &self.fs_target {
            push("FSTARGET", v.render());
        }
        if let Some(v) = &self.fs_cap {
            push("FSCAP", v.render());
        }
        for (k, v) in [
            ("QLIST", &self.qlist),
            ("PLIST", &self.plist),
            ("FLAGS", &self.flags),
            ("QFLAGS", &self.qflags),
        ] {
            if let Some(v) = v {
                push(k, v.0.join(":"));
            }
        }
        for (k, v) in [("QDEF", &self.qdef), ("PDEF", &self.pdef)] {
            if let Some(v) = v {
                push(k, v.clone());
            }
        }
        if let Some(v) = self.qt_weight {
            push("QTWEIGHT", v.to_string());
        }
        if let Some(v) = self.xf_weight {
            push("XFWEIGHT", v.to_string());
        }
        if let Some(v) = self.qt_target {
            push("QTTARGET", fmt_duration(v));
        }
        if let Some(v) = self.xf_target {
            push("XFTARGET", render_f64(v));
        }
        for l in &self.limits {
            push(&l.attr_name(), l.render());
        }
        for l in &self.overrides {
            push(&format!("O{}", l.attr_name()), l.render());
        }
        out
    }
}

/// Attributes of one node (NODECFG[x]; `NODECFG[DEFAULT]` for all nodes).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct NodeCfg {
    /// SPEED: relative machine speed.
    pub speed: Option<f64>,
    /// PROCSPEED: processor speed in MHz.
    pub procspeed: Option<u32>,
    /// PRIORITY: admin node priority.
    pub priority: Option<i64>,
    /// PRIORITYF: allocation priority function.
    #[serde(serialize_with = "ser_priorityf")]
    pub priorityf: Option<PriorityF>,
    /// PARTITION.
    pub partition: Option<String>,
    /// FEATURES added to what the RM reports.
    pub features: Option<Names>,
    /// GRES: node-locked consumable generic resources (`tape:4`,
    /// `gpu:a100:4`); the RM's count of a name wins.
    pub gres: Option<crate::model::GresList>,
    /// MAXJOB: most jobs at once on the node.
    pub max_job: Option<u32>,
    /// MAXJOBPERUSER: most jobs of one user at once on the node.
    pub max_job_per_user: Option<u32>,
    /// MAXLOAD: load at which the node counts as busy.
    pub max_load: Option<f64>,
    /// ACCESS: node access policy override.
    pub access: Option<NodeAccessPolicy>,
    /// FRAME, SLOT, NODETYPE: descriptive.
    pub frame: Option<String>,
    /// SLOT.
    pub slot: Option<String>,
    /// NODETYPE.
    pub node_type: Option<String>,
}

fn ser_priorityf<S: serde::Serializer>(p: &Option<PriorityF>, s: S) -> Result<S::Ok, S::Error> {
    match p {
        Some(p) => s.serialize_some(&p.source),
        None => s.serialize_none(),
    }
}

/// Attribute names of NODECFG (for hints).
pub const NODE_ATTRS: &[&str] = &[
    "SPEED",
    "PROCSPEED",
    "PRIORITY",
    "PRIORITYF",
    "PARTITION",
    "FEATURES",
    "GRES",
    "MAXJOB",
    "MAXJOBPERUSER",
    "MAXLOAD",
    "ACCESS",
    "FRAME",
    "SLOT",
    "NODETYPE",
];

impl NodeCfg {
    /// Sets one attribute.
    pub fn set(&mut self, attr: &str, v: &str) -> AttrOutcome {
        match attr.to_ascii_uppercase().as_str() {
            "SPEED" => match parse_f64(v) {
                Some(x) if x > 0.0 => {
                    self.speed = Some(x);
                    AttrOutcome::Ok
                }
                _ => AttrOutcome::Bad(
                    0,
                    format!("expected a positive relative speed such as 1.0, got \"{v}\""),
                ),
            },
            "PROCSPEED" => done(scalar::<u32>(v), |x| self.procspeed = Some(x)),
            "PRIORITY" => done(scalar::<i64>(v), |x| self.priority = Some(x)),
            "PRIORITYF" => match PriorityF::parse(v) {
                Ok(p) => {
                    self.priorityf = Some(p);
                    AttrOutcome::Ok
                }
                Err((off, m)) => {
                    let byte = v.char_indices().nth(off).map_or(v.len(), |(b, _)| b);
                    AttrOutcome::Bad(byte, m)
                }
            },
            "PARTITION" => {
                self.partition = Some(v.to_string());
                AttrOutcome::Ok
            }
            "FEATURES" | "FEATURE" => {
                self.features = Some(Names(
                    super::value::split_list(v).map(str::to_string).collect(),
                ));
                AttrOutcome::Ok
            }
            "GRES" => match crate::model::GresList::parse(v) {
                // A repeated GRES keeps the names it does not repeat, as
                // Maui's does.
                Ok(g) => {
                    let all = self.gres.get_or_insert_with(Default::default);
                    for (name, count) in g.items() {
                        all.set(name, *count);
                    }
                    AttrOutcome::Ok
                }
                Err(m) => AttrOutcome::Bad(0, m),
            },
            "MAXJOB" => done(scalar::<u32>(v), |x| self.max_job = Some(x)),
            "MAXJOBPERUSER" => done(scalar::<u32>(v), |x| self.max_job_per_user = Some(x)),
            "MAXLOAD" => done(scalar::<f64>(v), |x| self.max_load = Some(x)),
            "ACCESS" => noted::<NodeAccessPolicy>(v, |x| self.access = Some(x)),
            "FRAME" => {
                self.frame = Some(v.to_string());
                AttrOutcome::Ok
            }
            "SLOT" => {
                self.slot = Some(v.to_string());
                AttrOutcome::Ok
            }
            "NODETYPE" => {
                self.node_type = Some(v.to_string());
                AttrOutcome::Ok
            }
            _ => AttrOutcome::Unknown,
        }
    }

    /// `ATTR=VALUE` pairs for showconfig.
    pub fn render(&self) -> Vec<(String, String)> {
        let mut out: Vec<(String, String)> = Vec::new();
        let mut push = |k: &str, v: Option<String>| {
            if let Some(v) = v {
                out.push((k.to_string(), v));
            }
        };
        push("SPEED", self.speed.map(render_f64));
        push("PROCSPEED", self.procspeed.map(|x| x.to_string()));
        push("PRIORITY", self.priority.map(|x| x.to_string()));
        push(
            "PRIORITYF",
            self.priorityf.as_ref().map(|p| format!("'{}'", p.source)),
        );
        push("PARTITION", self.partition.clone());
        push("FEATURES", self.features.as_ref().map(|f| f.0.join(":")));
        push("GRES", self.gres.as_ref().map(|g| g.to_string()));
        push("MAXJOB", self.max_job.map(|x| x.to_string()));
        push(
            "MAXJOBPERUSER",
            self.max_job_per_user.map(|x| x.to_string()),
        );
        push("MAXLOAD", self.max_load.map(render_f64));
        push("ACCESS", self.access.map(|a| a.keyword().to_string()));
        push("FRAME", self.frame.clone());
        push("SLOT", self.slot.clone());
        push("NODETYPE", self.node_type.clone());
        out
    }

    /// This node's settings laid over the DEFAULT ones.
    pub fn over(&self, default: &NodeCfg) -> NodeCfg {
        NodeCfg {
            speed: self.speed.or(default.speed),
            procspeed: self.procspeed.or(default.procspeed),
            priority: self.priority.or(default.priority),
            priorityf: self.priorityf.clone().or_else(|| default.priorityf.clone()),
            partition: self.partition.clone().or_else(|| default.partition.clone()),
            features: self.features.clone().or_else(|| default.features.clone()),
            gres: self.gres.clone().or_else(|| default.gres.clone()),
            max_job: self.max_job.or(default.max_job),
            max_job_per_user: self.max_job_per_user.or(default.max_job_per_user),
            max_load: self.max_load.or(default.max_load),
            access: self.access.or(default.access),
            frame: self.frame.clone().or_else(|| default.frame.clone()),
            slot: self.slot.clone().or_else(|| default.slot.clone()),
            node_type: self.node_type.clone().or_else(|| default.node_type.clone()),
        }
    }
}

/// A standing reservation (SRCFG[x]).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SrCfg {
    /// ACCESS: DEDICATED (default) or SHARED.
    pub access: ResAccess,
    /// ACL lists and TIMELIMIT.
    pub acl: Acl,
    /// CHARGEACCOUNT.
    pub charge_account: Option<String>,
    /// DAYS the reservation exists on (`None`: all).
    pub days: Option<Vec<WeekDay>>,
    /// DEPTH: instances created ahead.
    pub depth: u32,
    /// STARTTIME: offset into the day or week.
    pub start: Secs,
    /// ENDTIME: offset into the day or week (`None`: end of the period).
    pub end: Option<Secs>,
    /// FLAGS.
    pub flags: Vec<ResFlag>,
    /// HOSTLIST.
    #[serde(serialize_with = "ser_hostlist")]
    pub hostlist: Option<HostList>,
    /// NODEFEATURES: every reserved node must have all of these.
    pub node_features: Vec<String>,
    /// OWNER.
    pub owner: Option<(CredKind, String)>,
    /// PARTITION.
    pub partition: Option<String>,
    /// PERIOD.
    pub period: SrPeriod,
    /// PRIORITY.
    pub priority: i64,
    /// RESOURCES of one task (default: all processors of a node).
    pub resources: TaskSpec,
    /// TASKCOUNT (0: one task per host of the host list).
    pub task_count: u32,
    /// TPN: minimum tasks per node.
    pub tpn: u32,
}

fn ser_hostlist<S: serde::Serializer>(h: &Option<HostList>, s: S) -> Result<S::Ok, S::Error> {
    match h {
        Some(h) => s.serialize_some(&h.to_string()),
        None => s.serialize_none(),
    }
}

impl Default for SrCfg {
    fn default() -> Self {
        SrCfg {
            access: ResAccess::Dedicated,
            acl: Acl::default(),
            charge_account: None,
            days: None,
            depth: 2,
            start: 0,
            end: None,
            flags: Vec::new(),
            hostlist: None,
            node_features: Vec::new(),
            owner: None,
            partition: None,
            period: SrPeriod::Day,
            priority: 0,
            resources: TaskSpec::default(),
            task_count: 0,
            tpn: 0,
        }
    }
}

/// Attribute names of SRCFG (for hints).
pub const SR_ATTRS: &[&str] = &[
    "ACCESS",
    "ACCOUNTLIST",
    "CHARGEACCOUNT",
    "CLASSLIST",
    "DAYS",
    "DEPTH",
    "ENDTIME",
    "FLAGS",
    "GROUPLIST",
    "HOSTLIST",
    "JOBATTRLIST",
    "NODEFEATURES",
    "OWNER",
    "PARTITION",
    "PERIOD",
    "PRIORITY",
    "QOSLIST",
    "RESOURCES",
    "STARTTIME",
    "TASKCOUNT",
    "TIMELIMIT",
    "TIMELOGIC",
    "TPN",
    "TRIGGER",
    "USERLIST",
];

fn acl(v: &str) -> Result<AclList, AttrOutcome> {
    AclList::parse(v).map_err(|m| AttrOutcome::Bad(0, m))
}

impl SrCfg {
    /// Sets one attribute.
    pub fn set(&mut self, attr: &str, v: &str) -> AttrOutcome {
        match attr.to_ascii_uppercase().as_str() {
            "ACCESS" => noted::<ResAccess>(v, |x| self.access = x),
            "USERLIST" => done(acl(v), |x| self.acl.users = x),
            "GROUPLIST" => done(acl(v), |x| self.acl.groups = x),
            "ACCOUNTLIST" | "ACCTLIST" => done(acl(v), |x| self.acl.accounts = x),
            "ACCCOUNTLIST" => match acl(v) {
                Ok(x) => {
                    self.acl.accounts = x;
                    AttrOutcome::Note(
                        "ACCCOUNTLIST (as misspelt in Maui's own guide) read as ACCOUNTLIST".into(),
                    )
                }
                Err(e) => e,
            },
            "CLASSLIST" => done(acl(v), |x| self.acl.classes = x),
            "QOSLIST" => done(acl(v), |x| self.acl.qos = x),
            "JOBATTRLIST" => done(acl(v), |x| self.acl.job_attrs = x),
            "TIMELIMIT" => {
                let (body, required) = match v.strip_suffix('*') {
                    Some(b) => (b, true),
                    None => (v, false),
                };
                match parse_duration(body) {
                    Ok(Some(-1)) | Ok(None) => {
                        self.acl.time_limit = None;
                        AttrOutcome::Ok
                    }
                    Ok(Some(s)) if s >= 0 => {
                        self.acl.time_limit = Some((s, required));
                        AttrOutcome::Ok
                    }
                    _ => AttrOutcome::Bad(0, format!("expected a duration [[[DD:]HH:]MM:]SS optionally followed by *, got \"{v}\"")),
                }
            }
            "TIMELOGIC" => match v.to_ascii_uppercase().as_str() {
                "AND" => match &mut self.acl.time_limit {
                    Some((_, req)) => {
                        *req = true;
                        AttrOutcome::Note("TIMELOGIC is deprecated; read as the required marker TIMELIMIT=<time>*".into())
                    }
                    None => {
                        AttrOutcome::Bad(0, "TIMELOGIC=AND needs a TIMELIMIT set before it".into())
                    }
                },
                "OR" => AttrOutcome::Note("TIMELOGIC is deprecated; OR is the default".into()),
                _ => AttrOutcome::Bad(0, format!("expected AND or OR, got \"{v}\"")),
            },
            "CHARGEACCOUNT" => {
                self.charge_account = Some(v.to_string());
                AttrOutcome::Ok
            }
            "DAYS" => {
                let mut days = Vec::new();
                for d in super::value::split_list(v) {
                    if d.eq_ignore_ascii_case("[ALL]") || d.eq_ignore_ascii_case("ALL") {
                        self.days = None;
                        return AttrOutcome::Ok;
                    }
                    match WeekDay::from_keyword(d) {
                        Some(w) if !days.contains(&w) => days.push(w),
                        Some(_) => {}
                        None => {
                            let off = v.find(d).unwrap_or(0);
                            return AttrOutcome::Bad(off, format!("expected MON, TUE, WED, THU, FRI, SAT, SUN or [ALL], got \"{d}\""));
                        }
                    }
                }
                days.sort();
                self.days = Some(days);
                AttrOutcome::Ok
            }
            "DEPTH" => match scalar::<u32>(v) {
                Ok(0) => AttrOutcome::Bad(0, "DEPTH must be at least 1".into()),
                Ok(x) if x > 366 => {
                    AttrOutcome::Bad(0, format!("DEPTH {x} is too large (at most 366)"))
                }
                r => done(r, |x| self.depth = x),
            },
            "STARTTIME" => match parse_duration(v) {
                Ok(Some(s)) if s >= 0 => {
                    self.start = s;
                    AttrOutcome::Ok
                }
                _ => AttrOutcome::Bad(
                    0,
                    format!(
                        "expected a time of day HH:MM:SS or week offset DD:HH:MM:SS, got \"{v}\""
                    ),
                ),
            },
            "ENDTIME" => match parse_duration(v) {
                Ok(Some(s)) if s >= 0 => {
                    self.end = Some(s);
                    AttrOutcome::Ok
                }
                _ => AttrOutcome::Bad(
                    0,
                    format!(
                        "expected a time of day HH:MM:SS or week offset DD:HH:MM:SS, got \"{v}\""
                    ),
                ),
            },
            "FLAGS" => {
                let mut flags = Vec::new();
                for f in super::value::split_list(v) {
                    match ResFlag::from_keyword(f) {
                        Some(x) => flags.push(x),
                        None => {
                            let off = v.find(f).unwrap_or(0);
                            return AttrOutcome::Bad(
                                off,
                                format!(
                                    "expected one of {}, got \"{f}\"",
                                    ResFlag::KEYWORDS.join(", ")
                                ),
                            );
                        }
                    }
                }
                let unacted: Vec<&str> = (flags.iter())
                    .filter(|f| **f != ResFlag::ByName)
                    .map(|f| f.keyword())
                    .collect();
                self.flags = flags;
                if unacted.is_empty() {
                    AttrOutcome::Ok
                } else {
                    AttrOutcome::Partly(format!(
                        "{} not acted on: of the reservation flags mauisched acts on BYNAME only; ignored",
                        unacted.join(", ")
                    ))
                }
            }
            "HOSTLIST" => {
                if v.eq_ignore_ascii_case("[ALL]") || v.eq_ignore_ascii_case("ALL") {
                    self.hostlist = None;
                    return AttrOutcome::Ok;
                }
                match HostList::parse(v) {
                    Ok(h) => {
                        self.hostlist = Some(h);
                        AttrOutcome::Ok
                    }
                    Err(m) => AttrOutcome::Bad(0, m),
                }
            }
            "NODEFEATURES" => {
                self.node_features = super::value::split_list(v).map(str::to_string).collect();
                AttrOutcome::Ok
            }
            "OWNER" => match v.split_once(':') {
                Some((k, id)) if !id.is_empty() => match CredKind::parse(k) {
                    Some(kind) => {
                        self.owner = Some((kind, id.to_string()));
                        AttrOutcome::Ok
                    }
                    None => AttrOutcome::Bad(
                        0,
                        format!(
                            "expected USER, GROUP, ACCOUNT, QOS or CLASS before :, got \"{k}\""
                        ),
                    ),
                },
                _ => AttrOutcome::Bad(
                    0,
                    format!("expected <CREDTYPE>:<CREDID> such as USER:tom, got \"{v}\""),
                ),
            },
            "PARTITION" => {
                self.partition = Some(v.to_string());
                AttrOutcome::Ok
            }
            "PERIOD" => noted::<SrPeriod>(v, |x| self.period = x),
            "PRIORITY" => done(scalar::<i64>(v), |x| self.priority = x),
            "RESOURCES" => done(scalar::<TaskSpec>(v), |x| self.resources = x),
            "TASKCOUNT" => done(scalar::<u32>(v), |x| self.task_count = x),
            "TPN" => done(scalar::<u32>(v), |x| self.tpn = x),
            "TRIGGER" => AttrOutcome::Ignored("reservation triggers are a Moab feature".into()),
            _ => AttrOutcome::Unknown,
        }
    }

    /// `ATTR=VALUE` pairs for showconfig, defaults included.
    pub fn render(&self) -> Vec<(String, String)> {
        let mut out: Vec<(String, String)> = Vec::new();
        let mut push = |k: &str, v: String| out.push((k.to_string(), v));
        push("PERIOD", self.period.keyword().into());
        if self.period != SrPeriod::Infinity {
            push(
                "DAYS",
                match &self.days {
                    None => "[ALL]".into(),
                    Some(d) => d.iter().map(|d| d.keyword()).collect::<Vec<_>>().join(","),
                },
            );
            push("STARTTIME", fmt_duration(self.start));
            let end = self.end.unwrap_or(if self.period == SrPeriod::Week {
                7 * 86_400
            } else {
                86_400
            });
            push("ENDTIME", fmt_duration(end));
            push("DEPTH", self.depth.to_string());
        }
        push("ACCESS", self.access.keyword().into());
        push("RESOURCES", self.resources.render());
        push("TASKCOUNT", self.task_count.to_string());
        if self.tpn > 0 {
            push("TPN", self.tpn.to_string());
        }
        if let Some(h) = &self.hostlist {
            push("HOSTLIST", h.to_string());
        }
        if !self.node_features.is_empty() {
            push("NODEFEATURES", self.node_features.join(","));
        }
        if let Some(p) = &self.partition {
            push("PARTITION", p.clone());
        }
        for (k, l) in [
            ("USERLIST", &self.acl.users),
            ("GROUPLIST", &self.acl.groups),
            ("ACCOUNTLIST", &self.acl.accounts),
            ("CLASSLIST", &self.acl.classes),
            ("QOSLIST", &self.acl.qos),
            ("JOBATTRLIST", &self.acl.job_attrs),
        ] {
            if !l.is_empty() {
                push(k, l.render());
            }
        }
        if let Some((t, req)) = self.acl.time_limit {
            push(
                "TIMELIMIT",
                format!("{}{}", fmt_duration(t), if req { "*" } else { "" }),
            );
        }
        if !self.flags.is_empty() {
            push(
                "FLAGS",
                self.flags
                    .iter()
                    .map(|f| f.keyword())
                    .collect::<Vec<_>>()
                    .join(","),
            );
        }
        if let Some((k, id)) = &self.owner {
            push("OWNER", format!("{}:{id}", k.name()));
        }
        if let Some(a) = &self.charge_account {
            push("CHARGEACCOUNT", a.clone());
        }
        if self.priority != 0 {
            push("PRIORITY", self.priority.to_string());
        }
        out
    }

    /// True when the reservation has the flag.
    pub fn has_flag(&self, f: ResFlag) -> bool {
        self.flags.contains(&f)
    }
}
