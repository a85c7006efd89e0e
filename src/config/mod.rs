//! maui.cfg: reading, typed parameters and diagnostics.
//!
//! [`Config::parse`] never fails and never panics: it returns the
//! configuration it could build and every diagnostic. Callers that must not
//! run with a broken file (start-up, reconfigure) use [`Config::load_strict`],
//! which refuses a file with any error so the previous configuration stays.

pub mod cluster;
pub mod diag;
pub mod doc;
pub mod lexer;
pub mod params;
pub mod priorityf;
pub mod render;
pub mod sections;
pub mod types;
pub mod value;

pub use diag::{Diagnostic, Severity};
pub use params::{Params, SCALARS};
pub use sections::{CredCfg, NodeCfg, SrCfg};
pub use types::*;

use crate::model::time::Zone;
use crate::model::CredKind;
use lexer::{Line, Token};
use params::NotUsed;
use sections::AttrOutcome;
use std::collections::BTreeMap;
use std::path::Path;
use value::{Names, ParamValue};

/// The configuration used when no file is given (documented in the README).
pub const DEFAULT_CONFIG: &str = include_str!("../../packaging/maui.cfg");

/// Label of the embedded default in messages.
pub const DEFAULT_CONFIG_LABEL: &str = "<embedded default maui.cfg>";

/// One reservation stack: RESERVATIONDEPTH[x] with RESERVATIONQOSLIST[x].
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct ResStack {
    /// Priority reservations the stack may hold.
    pub depth: u32,
    /// QOS admitted to the stack (empty or ALL: every QOS).
    pub qos: Names,
}

impl Default for ResStack {
    fn default() -> Self {
        ResStack {
            depth: 1,
            qos: Names(vec!["[ALL]".into()]),
        }
    }
}

/// A complete, typed maui.cfg.
#[derive(Clone, Debug, PartialEq)]
pub struct Config {
    /// Scalar parameters.
    pub params: Params,
    /// USERCFG, GROUPCFG, ACCOUNTCFG, QOSCFG, CLASSCFG by name (`DEFAULT` included).
    pub creds: BTreeMap<CredKind, BTreeMap<String, CredCfg>>,
    /// SYSCFG.
    pub system: CredCfg,
    /// NODECFG by node name (`DEFAULT` included).
    pub nodes: BTreeMap<String, NodeCfg>,
    /// SRCFG by name.
    pub standing: BTreeMap<String, SrCfg>,
    /// Reservation stacks by index (`0` is the default stack).
    pub res_stacks: BTreeMap<String, ResStack>,
    /// Values of parameters mauisched does not act on, as written
    /// (`SERVERHOST`, `RMCFG[base]`, ...), for front ends that want them.
    pub plumbing: BTreeMap<String, Vec<String>>,
    /// Where the configuration came from.
    pub source: String,
    /// The site's time zone: standing-reservation days and clocks, and
    /// every time the commands print or read. Not a maui.cfg parameter:
    /// front ends set the scheduler host's zone ([`Zone::host`]); UTC
    /// until they do.
    pub zone: Zone,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            params: Params::default(),
            creds: BTreeMap::new(),
            system: CredCfg::default(),
            nodes: BTreeMap::new(),
            standing: BTreeMap::new(),
            res_stacks: BTreeMap::from([("0".to_string(), ResStack::default())]),
            plumbing: BTreeMap::new(),
            source: String::new(),
            zone: Zone::utc(),
        }
    }
}

/// What reading a file produced.
#[derive(Clone, Debug)]
pub struct Loaded {
    /// The configuration built from every line that could be read.
    pub config: Config,
    /// Errors, warnings and notes in file order.
    pub diagnostics: Vec<Diagnostic>,
}

impl Loaded {
    /// Only the errors.
    pub fn errors(&self) -> impl Iterator<Item = &Diagnostic> {
        self.diagnostics
            .iter()
            .filter(|d| d.severity == Severity::Error)
    }

    /// True when there is no error.
    pub fn is_ok(&self) -> bool {
        self.errors().next().is_none()
    }

    /// Sets the site's zone to the scheduler host's ([`Zone::host`]: `TZ`,
    /// else the system's): for front ends (the command line, the RM
    /// plugins), never the core. The first diagnostic then names the zone
    /// the times will follow, about the file as a whole (line 0); a warning
    /// when the host's zone could not be used and UTC is.
    pub fn use_host_zone(&mut self) {
        let (zone, problem) = Zone::host();
        self.config.zone = zone;
        let (severity, message) = match problem {
            Some(p) => (Severity::Warning, format!("time zone: {p}")),
            None => (
                Severity::Note,
                format!(
                    "times are local to {} (SRCFG days and clocks, setres, every time shown); set TZ to use another zone",
                    self.config.zone.name()
                ),
            ),
        };
        let d = Diagnostic {
            severity,
            file: self.config.source.clone(),
            line: 0,
            col: 0,
            param: None,
            message,
        };
        self.diagnostics.insert(0, d);
    }
}

/// A configuration that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The file could not be read.
    #[error("{path}: {source}")]
    Io {
        /// File.
        path: String,
        /// Cause.
        source: std::io::Error,
    },
    /// The file has errors (the first is shown; all are kept).
    #[error("{}", .0.iter().map(|d| d.to_string()).collect::<Vec<_>>().join("\n"))]
    Invalid(Vec<Diagnostic>),
}

const CRED_FAMILIES: &[(&str, CredKind)] = &[
    ("USERCFG", CredKind::User),
    ("GROUPCFG", CredKind::Group),
    ("ACCOUNTCFG", CredKind::Account),
    ("ACCTCFG", CredKind::Account),
    ("CLASSCFG", CredKind::Class),
    ("QOSCFG", CredKind::Qos),
];

/// Maui 3.0 QOS parameters and the QOSCFG attribute they map to
/// (QOSTARGETQT and QOSTARGETXF are Maui 3.3's spellings, in its MConst.c).
const OLD_QOS: &[(&str, &str)] = &[
    ("QOSPRIORITY", "PRIORITY"),
    ("QOSQTTARGET", "QTTARGET"),
    ("QOSTARGETQT", "QTTARGET"),
    ("QOSXFTARGET", "XFTARGET"),
    ("QOSTARGETXF", "XFTARGET"),
    ("QOSQTWEIGHT", "QTWEIGHT"),
    ("QOSXFWEIGHT", "XFWEIGHT"),
    ("QOSFLAGS", "QFLAGS"),
];

/// Maui 3.0 standing reservation parameters and the SRCFG attribute they map to.
const OLD_SR: &[(&str, &str)] = &[
    ("SRACCESS", "ACCESS"),
    ("SRACCOUNTLIST", "ACCOUNTLIST"),
    ("SRCHARGEACCOUNT", "CHARGEACCOUNT"),
    ("SRCLASSLIST", "CLASSLIST"),
    ("SRDAYS", "DAYS"),
    ("SRDEPTH", "DEPTH"),
    ("SRENDTIME", "ENDTIME"),
    ("SRFEATURES", "NODEFEATURES"),
    ("SRFLAGS", "FLAGS"),
    ("SRGROUPLIST", "GROUPLIST"),
    ("SRHOSTLIST", "HOSTLIST"),
    ("SRMAXTIME", "TIMELIMIT"),
    ("SRPARTITION", "PARTITION"),
    ("SRPERIOD", "PERIOD"),
    ("SRPRIORITY", "PRIORITY"),
    ("SRQOSLIST", "QOSLIST"),
    ("SRRESOURCES", "RESOURCES"),
    ("SRSTARTTIME", "STARTTIME"),
    ("SRTASKCOUNT", "TASKCOUNT"),
    ("SRTIMELOGIC", "TIMELOGIC"),
    ("SRTPN", "TPN"),
    ("SRUSERLIST", "USERLIST"),
    ("SRWSTARTTIME", "STARTTIME"),
    ("SRWENDTIME", "ENDTIME"),
];

/// Every parameter name mauisched knows, for "did you mean" hints.
pub fn known_names() -> Vec<&'static str> {
    let mut v: Vec<&'static str> = SCALARS
        .iter()
        .flat_map(|d| d.names.iter().copied())
        .collect();
    v.extend(CRED_FAMILIES.iter().map(|(n, _)| *n));
    v.extend([
        "SYSCFG",
        "SYSTEMCFG",
        "NODECFG",
        "SRCFG",
        "RESERVATIONDEPTH",
        "RESERVATIONQOSLIST",
    ]);
    v.extend(OLD_QOS.iter().map(|(n, _)| *n));
    v.extend(OLD_SR.iter().map(|(n, _)| *n));
    v.extend(
        params::NOT_USED
            .iter()
            .filter(|(n, _)| !n.ends_with('*'))
            .map(|(n, _)| *n),
    );
    v
}

struct Builder<'a> {
    file: &'a str,
    cfg: Config,
    diags: Vec<Diagnostic>,
    /// Where each scalar was last set: canonical name -> (line, col of value).
    set_at: BTreeMap<&'static str, (u32, u32)>,
    /// Where each SRCFG was last given STARTTIME/ENDTIME.
    sr_time_at: BTreeMap<String, (u32, u32)>,
    /// Where each SRCFG was last given RESOURCES.
    sr_res_at: BTreeMap<String, (u32, u32)>,
}

impl Builder<'_> {
    fn diag(
        &mut self,
        severity: Severity,
        line: u32,
        col: u32,
        param: Option<String>,
        message: String,
    ) {
        self.diags.push(Diagnostic {
            severity,
            file: self.file.to_string(),
            line,
            col: col.max(1),
            param: param.map(diag::clip_tokens),
            message: diag::clip_tokens(message),
        });
    }

    fn line(&mut self, l: &Line) {
        let up = l.name.to_ascii_uppercase();
        if let Some((_, kind)) = CRED_FAMILIES.iter().find(|(n, _)| *n == up) {
            let Some((idx, _)) = &l.index else {
                let hint = format!("{} needs an index, e.g. {}[<name>]", up, kind.cfg_param());
                self.diag(Severity::Error, l.line, l.col, Some(up.clone()), hint);
                return;
            };
            let idx = norm_default(idx);
            let kind = *kind;
            self.attrs(
                l,
                &format!("{}[{idx}]", kind.cfg_param()),
                sections::CRED_ATTRS,
                |b, a, v| {
                    b.cfg
                        .creds
                        .entry(kind)
                        .or_default()
                        .entry(idx.clone())
                        .or_default()
                        .set(Some(kind), a, v)
                },
            );
            return;
        }
        match up.as_str() {
            "SYSCFG" | "SYSTEMCFG" => {
                self.attrs(l, "SYSCFG", sections::CRED_ATTRS, |b, a, v| {
                    b.cfg.system.set(None, a, v)
                });
            }
            "NODECFG" => {
                let Some((idx, _)) = &l.index else {
                    self.diag(
                        Severity::Error,
                        l.line,
                        l.col,
                        Some(up),
                        "NODECFG needs a node name or DEFAULT as index, e.g. NODECFG[node001]"
                            .into(),
                    );
                    return;
                };
                let idx = norm_default(idx);
                self.attrs(
                    l,
                    &format!("NODECFG[{idx}]"),
                    sections::NODE_ATTRS,
                    |b, a, v| b.cfg.nodes.entry(idx.clone()).or_default().set(a, v),
                );
            }
            "SRCFG" => {
                let Some((idx, _)) = &l.index else {
                    self.diag(
                        Severity::Error,
                        l.line,
                        l.col,
                        Some(up),
                        "SRCFG needs a reservation name as index, e.g. SRCFG[interactive]".into(),
                    );
                    return;
                };
                let idx = idx.clone();
                for t in &l.tokens {
                    let a = t.text.split('=').next().unwrap_or("").to_ascii_uppercase();
                    if a == "STARTTIME" || a == "ENDTIME" {
                        self.sr_time_at.insert(idx.clone(), (l.line, t.col));
                    }
                    if a == "RESOURCES" {
                        self.sr_res_at.insert(idx.clone(), (l.line, t.col));
                    }
                }
                self.attrs(
                    l,
                    &format!("SRCFG[{idx}]"),
                    sections::SR_ATTRS,
                    |b, a, v| b.cfg.standing.entry(idx.clone()).or_default().set(a, v),
                );
            }
            "RESERVATIONDEPTH" | "RESERVATIONQOSLIST" => {
                let idx = l
                    .index
                    .as_ref()
                    .map_or("0".to_string(), |(i, _)| norm_default(i));
                let idx = if idx == "DEFAULT" {
                    "0".to_string()
                } else {
                    idx
                };
                let mut notes = Vec::new();
                let stack = self.cfg.res_stacks.entry(idx).or_default();
                let r = if up == "RESERVATIONDEPTH" {
                    <u32 as ParamValue>::parse_tokens(&l.tokens, &mut notes)
                        .map(|d| stack.depth = d)
                } else {
                    <Names as ParamValue>::parse_tokens(&l.tokens, &mut notes)
                        .map(|q| stack.qos = q)
                };
                if let Err((col, m)) = r {
                    self.diag(
                        Severity::Error,
                        l.line,
                        if col == 0 { l.col } else { col },
                        Some(up),
                        m,
                    );
                }
            }
            _ => self.other(l, &up),
        }
    }

    fn other(&mut self, l: &Line, up: &str) {
        if let Some((_, attr)) = OLD_QOS.iter().find(|(n, _)| *n == up) {
            return self.translate(l, up, "QOSCFG", attr);
        }
        if let Some((_, attr)) = OLD_SR.iter().find(|(n, _)| *n == up) {
            return self.translate(l, up, "SRCFG", attr);
        }
        if let Some(def) = params::scalar(up) {
            if let Some((idx, icol)) = &l.index {
                let zero = idx == "0" || idx.eq_ignore_ascii_case("DEFAULT");
                if !(def.partition_indexed && zero) {
                    let why = if def.partition_indexed {
                        format!("partition-specific values are not supported; {}[{idx}] ignored (use {}[0] or no index)", def.name(), def.name())
                    } else {
                        format!("{} takes no index; [{idx}] ignored", def.name())
                    };
                    self.diag(
                        Severity::Warning,
                        l.line,
                        *icol,
                        Some(def.name().into()),
                        why,
                    );
                    if def.partition_indexed {
                        return;
                    }
                }
            }
            let mut notes = Vec::new();
            match (def.set)(&mut self.cfg.params, &l.tokens, &mut notes) {
                Ok(()) => {
                    let vcol = l.tokens.first().map_or(l.col, |t| t.col);
                    if def.name() == "NODELOADPOLICY"
                        && self.cfg.params.node_load_policy == NodeLoadPolicy::AdjustProcs
                    {
                        self.diag(
                            Severity::Warning,
                            l.line,
                            vcol,
                            Some(def.name().into()),
                            "ADJUSTPROCS is not supported by mauisched (a node's load does not \
                             reduce its processors): load is ignored; ADJUSTSTATE marks a node \
                             at MAXLOAD busy"
                                .into(),
                        );
                    }
                    if let Some((prev, _)) = self.set_at.insert(def.name(), (l.line, vcol)) {
                        self.diag(
                            Severity::Note,
                            l.line,
                            l.col,
                            Some(def.name().into()),
                            format!("also set on line {prev}; this later value is used"),
                        );
                    }
                }
                Err((col, m)) => {
                    let col = if col == 0 {
                        l.col + l.name.chars().count() as u32
                    } else {
                        col
                    };
                    self.diag(Severity::Error, l.line, col, Some(def.name().into()), m);
                }
            }
            for (col, n) in notes {
                self.diag(Severity::Note, l.line, col, Some(def.name().into()), n);
            }
            return;
        }
        let key = match &l.index {
            Some((i, _)) => format!("{up}[{i}]"),
            None => up.to_string(),
        };
        if let Some(why) = params::not_used(up) {
            self.cfg
                .plumbing
                .insert(key, l.tokens.iter().map(|t| t.text.clone()).collect());
            let (sev, msg) = match why {
                NotUsed::NotApplicable(r) => (
                    Severity::Note,
                    format!("not applicable to mauisched ({r}); ignored"),
                ),
                NotUsed::PbsFrontEnd(r) => (
                    Severity::Note,
                    format!(
                        "read by mauisched-pbs, the PBS/Torque front end ({r}); the scheduling \
                         policy does not use it, and with Slurm it does nothing"
                    ),
                ),
                NotUsed::Unsupported(r) => (
                    Severity::Warning,
                    format!("not supported by mauisched ({r}); ignored"),
                ),
                NotUsed::MoabOnly => (
                    Severity::Warning,
                    "a Moab parameter, not Maui's; ignored".to_string(),
                ),
            };
            self.diag(sev, l.line, l.col, Some(up.into()), msg);
            return;
        }
        let known = known_names();
        let hint = match diag::did_you_mean(up, known.iter().copied()) {
            Some(k) => format!(" (did you mean {k}?)"),
            None => String::new(),
        };
        self.diag(
            Severity::Warning,
            l.line,
            l.col,
            None,
            format!("unknown parameter {}{hint}; ignored", l.name),
        );
    }

    /// `QOSPRIORITY[x] 100` → `QOSCFG[x] PRIORITY=100` and the like.
    fn translate(&mut self, l: &Line, up: &str, family: &str, attr: &str) {
        let Some((idx, _)) = &l.index else {
            let msg = format!("{up} needs an index, e.g. {up}[<name>]; better, use {family}[<name>] {attr}=<value>");
            self.diag(Severity::Error, l.line, l.col, Some(up.into()), msg);
            return;
        };
        let Some(first) = l.tokens.first() else {
            self.diag(
                Severity::Error,
                l.line,
                l.col,
                Some(up.into()),
                "missing value".into(),
            );
            return;
        };
        let value = l
            .tokens
            .iter()
            .map(|t| t.text.as_str())
            .collect::<Vec<_>>()
            .join(",");
        // Columns of the value characters point back at the original tokens.
        let mut token = Token::plain(format!("{attr}="), first.col);
        token.cols.iter_mut().for_each(|c| *c = first.col);
        token.text.push_str(&value);
        for (i, t) in l.tokens.iter().enumerate() {
            if i > 0 {
                token.cols.push(t.col.saturating_sub(1).max(1));
            }
            token.cols.extend(&t.cols);
        }
        let line = Line {
            line: l.line,
            name: family.into(),
            col: l.col,
            index: l.index.clone(),
            tokens: vec![token],
        };
        self.diag(
            Severity::Note,
            l.line,
            l.col,
            Some(up.into()),
            format!("deprecated; read as {family}[{idx}] {attr}={value}"),
        );
        self.line(&line);
    }

    /// Handles the `ATTR=VALUE` tokens of an indexed section.
    fn attrs(
        &mut self,
        l: &Line,
        section: &str,
        known: &[&str],
        mut set: impl FnMut(&mut Self, &str, &str) -> AttrOutcome,
    ) {
        // Maui's guide itself writes `QOSLIST=high low special-`: blank-separated
        // items after a list attribute continue that list.
        let mut tokens: Vec<Token> = Vec::new();
        for t in &l.tokens {
            let is_list = |a: &str| {
                let a = a.to_ascii_uppercase();
                a.ends_with("LIST")
                    || matches!(
                        a.as_str(),
                        "DAYS" | "FLAGS" | "NODEFEATURES" | "FEATURES" | "QFLAGS"
                    )
            };
            match tokens.last_mut() {
                Some(prev)
                    if !t.text.contains('=')
                        && prev.text.split_once('=').is_some_and(|(a, _)| is_list(a)) =>
                {
                    let attr = prev
                        .text
                        .split_once('=')
                        .map(|(a, _)| a.to_ascii_uppercase())
                        .unwrap_or_default();
                    prev.text.push(',');
                    prev.cols.push(t.col.saturating_sub(1).max(1));
                    prev.text.push_str(&t.text);
                    prev.cols.extend(&t.cols);
                    let msg = format!(
                        "list items separated by blanks; read as {attr}={} (Maui lists use ',', '|' or ':')",
                        prev.text.split_once('=').map_or("", |(_, v)| v)
                    );
                    self.diags.retain(|d| {
                        !(d.line == l.line && d.col == prev.col && d.severity == Severity::Note)
                    });
                    self.diag(
                        Severity::Note,
                        l.line,
                        prev.col,
                        Some(format!("{section} {attr}")),
                        msg,
                    );
                }
                _ => tokens.push(t.clone()),
            }
        }
        for t in &tokens {
            let Some((attr, v)) = t.text.split_once('=') else {
                self.diag(
                    Severity::Error,
                    l.line,
                    t.col,
                    Some(section.into()),
                    format!("expected <ATTRIBUTE>=<VALUE>, got \"{}\"", t.text),
                );
                continue;
            };
            let param = Some(format!("{section} {}", attr.to_ascii_uppercase()));
            match set(self, attr, v) {
                AttrOutcome::Ok => {}
                AttrOutcome::Note(n) => self.diag(Severity::Note, l.line, t.col, param, n),
                AttrOutcome::Partly(w) => self.diag(Severity::Warning, l.line, t.col, param, w),
                AttrOutcome::Ignored(why) => self.diag(
                    Severity::Warning,
                    l.line,
                    t.col,
                    param,
                    format!("{why}; ignored"),
                ),
                AttrOutcome::Bad(off, m) => {
                    let col = t.col_at(attr.len() + 1 + off);
                    self.diag(Severity::Error, l.line, col, param, m)
                }
                AttrOutcome::Unknown => {
                    let hint = match diag::did_you_mean(attr, known.iter().copied()) {
                        Some(k) => format!(" (did you mean {k}?)"),
                        None => String::new(),
                    };
                    self.diag(
                        Severity::Warning,
                        l.line,
                        t.col,
                        Some(section.into()),
                        format!("unknown attribute {attr}{hint}; ignored"),
                    );
                }
            }
        }
        if l.tokens.is_empty() {
            self.diag(
                Severity::Warning,
                l.line,
                l.col,
                Some(section.into()),
                "no attributes given".into(),
            );
        }
    }

    /// Why a standing reservation's generic resources may not be found:
    /// a name, or a count per task, that no NODECFG GRES configures (the
    /// RM may still report them, hence a warning).
    fn sr_gres_unmet(&self, sr: &SrCfg) -> Option<String> {
        if sr.resources.gres.is_empty() {
            return None;
        }
        let offered: Vec<(String, u32)> = self
            .cfg
            .nodes
            .values()
            .filter_map(|n| n.gres.as_ref())
            .flat_map(|g| g.with_totals())
            .collect();
        let rm = "; unless the resource manager reports it, no node can hold a task";
        for (name, count) in sr.resources.gres.with_totals() {
            let same: Vec<u32> = offered
                .iter()
                .filter(|(n, _)| n.eq_ignore_ascii_case(&name))
                .map(|(_, c)| *c)
                .collect();
            match same.iter().max() {
                None => {
                    return Some(format!(
                        "no NODECFG GRES configures generic resource {name}{rm}"
                    ))
                }
                Some(&most) if most < count => {
                    return Some(format!(
                        "a task needs {name}:{count}, more than any NODECFG GRES configures (at most {name}:{most}){rm}"
                    ))
                }
                _ => {}
            }
        }
        None
    }

    fn finish(mut self) -> Loaded {
        let p = &self.cfg.params;
        let bf_preempt = p.backfill_policy == BackfillPolicy::Preempt;
        let mut checks: Vec<(&'static str, String)> = Vec::new();
        if p.fs_depth == 0 {
            checks.push((
                "FSDEPTH",
                "expected at least 1 fairshare window, got 0".into(),
            ));
        }
        let deep = (p.fs_depth as usize > crate::fairshare::MAX_FSDEPTH).then(|| {
            format!(
                "{} windows asked for; Maui's limit, {}, is used",
                p.fs_depth,
                crate::fairshare::MAX_FSDEPTH
            )
        });
        if p.log_level > 9 {
            checks.push((
                "LOGLEVEL",
                format!("expected a level from 0 to 9, got {}", p.log_level),
            ));
        }
        if p.rm_poll_interval.0 == 0 {
            checks.push((
                "RMPOLLINTERVAL",
                "the poll interval must be at least 1 second".into(),
            ));
        }
        if p.fs_interval.0 == 0 {
            checks.push((
                "FSINTERVAL",
                "the fairshare interval must be at least 1 second".into(),
            ));
        }
        for (name, msg) in checks {
            let (line, col) = self.set_at.get(name).copied().unwrap_or((1, 1));
            self.diag(Severity::Error, line, col, Some(name.into()), msg);
        }
        if bf_preempt {
            for name in ["BFCHUNKSIZE", "BFCHUNKDURATION"] {
                if let Some(&(line, col)) = self.set_at.get(name) {
                    self.diag(
                        Severity::Warning,
                        line,
                        col,
                        Some(name.into()),
                        "not acted on under BACKFILLPOLICY PREEMPT (backfill chunking is FIRSTFIT's); ignored".into(),
                    );
                }
            }
        }
        if let Some(msg) = deep {
            // Maui takes MIN(FSDEPTH, MAX_MFSDEPTH) without a word (MFS.c).
            let (line, col) = self.set_at.get("FSDEPTH").copied().unwrap_or((1, 1));
            self.diag(Severity::Note, line, col, Some("FSDEPTH".into()), msg);
        }
        let srs: Vec<(String, SrCfg)> = self
            .cfg
            .standing
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        for (name, sr) in srs {
            let (line, col) = self.sr_time_at.get(&name).copied().unwrap_or((1, 1));
            let period_len = match sr.period {
                SrPeriod::Day => Some(86_400),
                SrPeriod::Week => Some(7 * 86_400),
                SrPeriod::Infinity => None,
            };
            let param = Some(format!("SRCFG[{name}]"));
            if let Some(len) = period_len {
                let end = sr.end.unwrap_or(len);
                if sr.start >= len || end > len {
                    let what = if sr.period == SrPeriod::Day {
                        "a time of day (at most 24:00:00)"
                    } else {
                        "a week offset (at most 7:00:00:00)"
                    };
                    self.diag(
                        Severity::Error,
                        line,
                        col,
                        param.clone(),
                        format!("STARTTIME/ENDTIME must be {what} for PERIOD={}", sr.period),
                    );
                } else if end <= sr.start {
                    self.diag(
                        Severity::Error,
                        line,
                        col,
                        param.clone(),
                        "ENDTIME must be after STARTTIME; for a window across midnight configure two standing reservations".into(),
                    );
                }
            }
            if let Some(why) = self.sr_gres_unmet(&sr) {
                let (line, col) = self.sr_res_at.get(&name).copied().unwrap_or((line, col));
                self.diag(
                    Severity::Warning,
                    line,
                    col,
                    Some(format!("SRCFG[{name}] RESOURCES")),
                    why,
                );
            }
            if sr.task_count == 0 && sr.hostlist.is_none() {
                let at = self
                    .diags
                    .iter()
                    .find(|d| {
                        d.param
                            .as_deref()
                            .is_some_and(|p| p.starts_with(&format!("SRCFG[{name}]")))
                    })
                    .map(|d| (d.line, d.col));
                let (line, col) = at
                    .or(self.sr_time_at.get(&name).copied())
                    .unwrap_or((line, col));
                self.diag(
                    Severity::Warning,
                    line,
                    col,
                    param,
                    "neither TASKCOUNT nor HOSTLIST is set: the reservation reserves nothing"
                        .into(),
                );
            }
        }
        self.diags.sort_by_key(|d| (d.line, d.col));
        Loaded {
            config: self.cfg,
            diagnostics: self.diags,
        }
    }
}

fn norm_default(idx: &str) -> String {
    if idx.eq_ignore_ascii_case("DEFAULT") {
        "DEFAULT".into()
    } else {
        idx.to_string()
    }
}

impl Config {
    /// Reads maui.cfg text. `file` labels messages. Never fails or panics.
    pub fn parse(text: &str, file: &str) -> Loaded {
        let (lines, lex_errors) = lexer::lex(text);
        let mut b = Builder {
            file,
            cfg: Config {
                source: file.to_string(),
                ..Config::default()
            },
            diags: Vec::new(),
            set_at: BTreeMap::new(),
            sr_time_at: BTreeMap::new(),
            sr_res_at: BTreeMap::new(),
        };
        for e in lex_errors {
            b.diag(Severity::Error, e.line, e.col, None, e.message);
        }
        for l in &lines {
            b.line(l);
        }
        b.finish()
    }

    /// Reads a file (bytes that are not UTF-8 are reported, not fatal).
    pub fn load(path: &Path) -> Result<Loaded, ConfigError> {
        let label = path.display().to_string();
        let bytes = std::fs::read(path).map_err(|source| ConfigError::Io {
            path: label.clone(),
            source,
        })?;
        Ok(Config::parse_bytes(&bytes, &label))
    }

    /// Parses a file's bytes read already, `label` naming it in
    /// diagnostics (bytes that are not UTF-8 are reported, not fatal).
    pub fn parse_bytes(bytes: &[u8], label: &str) -> Loaded {
        let text = String::from_utf8_lossy(bytes);
        let mut loaded = Config::parse(&text, label);
        if let std::borrow::Cow::Owned(_) = text {
            let line = text
                .lines()
                .position(|l| l.contains('\u{FFFD}'))
                .unwrap_or(0) as u32
                + 1;
            loaded.diagnostics.insert(
                0,
                Diagnostic {
                    severity: Severity::Warning,
                    file: label.to_string(),
                    line,
                    col: 1,
                    param: None,
                    message: "the file is not valid UTF-8; bad bytes were replaced".into(),
                },
            );
        }
        loaded
    }

    /// Reads a file and refuses it if it has any error.
    pub fn load_strict(path: &Path) -> Result<(Config, Vec<Diagnostic>), ConfigError> {
        let loaded = Config::load(path)?;
        if loaded.is_ok() {
            Ok((loaded.config, loaded.diagnostics))
        } else {
            Err(ConfigError::Invalid(loaded.errors().cloned().collect()))
        }
    }

    /// The embedded default configuration.
    pub fn embedded_default() -> Config {
        Config::parse(DEFAULT_CONFIG, DEFAULT_CONFIG_LABEL).config
    }

    /// The settings of one credential, if configured.
    pub fn cred(&self, kind: CredKind, name: &str) -> Option<&CredCfg> {
        self.creds.get(&kind).and_then(|m| m.get(name))
    }

    /// The `*CFG[DEFAULT]` settings of a kind, if configured.
    pub fn cred_default(&self, kind: CredKind) -> Option<&CredCfg> {
        self.cred(kind, "DEFAULT")
    }

    /// NODECFG for a node laid over NODECFG\[DEFAULT\].
    pub fn node_cfg(&self, name: &str) -> NodeCfg {
        let default = self.nodes.get("DEFAULT").cloned().unwrap_or_default();
        match self.nodes.get(name) {
            Some(n) => n.over(&default),
            None => default,
        }
    }

    /// Reservation stacks in index order; the default stack `0` always exists.
    pub fn reservation_stacks(&self) -> Vec<(String, ResStack)> {
        let mut m = self.res_stacks.clone();
        m.entry("0".into()).or_default();
        m.into_iter().collect()
    }
}

#[cfg(test)]
mod tests;
