//! Throttling policies (6.2): active and idle job limits per credential and
//! system-wide, soft and hard, multi-dimensional, with QOS overrides.
//!
//! [`Usage`] accumulates what active (and eligible idle) jobs hold per
//! *scope*, a set of credential values such as `user steve` or
//! `class batch, user steve`; the empty scope is the whole system. Only the
//! scope shapes some configured limit refers to are kept, so adding a job
//! costs a handful of map updates. [`check_active`] and [`check_idle`] compare
//! one job's [`Totals`] plus current usage against every limit that applies
//! to it and return a [`Verdict`].
//!
//! Rules taken from the guide:
//! - a credential's own limit replaces the same limit of `*CFG[DEFAULT]`;
//! - `SYSCFG` limits apply to all jobs;
//! - `<LIMIT>[<CRED>]` (and `MAX<X>PER<CRED>`) counts usage per value of that
//!   credential inside the owning one; `<CRED>:<VALUE>` applies to that value
//!   only (6.2.1.2);
//! - QOS override limits (`OMAXJOB=3`) supersede the same limit of the job's
//!   user, group, account and class, and bound the QOS itself when it has no
//!   plain limit of that kind (6.2.2);
//! - idle limits support a hard limit only; a soft value is ignored (6.2.3);
//! - a job without a credential of some kind (no account, no QOS) is not
//!   subject to that kind's limits: resolve defaults (QDEF, ...) first;
//! - QOS flags `IGNUSER`, `IGNGROUP`, `IGNACCOUNT`, `IGNSYSTEM`, `IGNALL`,
//!   `IGN{JOB,PROC,PS,JOBQUEUED}PER{USER,GROUP,ACCOUNT}` and
//!   `IGNSYS{MAXPROC,MAXTIME,MAXPS}` exempt the job from those limits (7.3).

use crate::config::{Config, CredCfg, LimitKind, LimitSpec, SoftHard};
use crate::model::time::fmt_duration;
use crate::model::{CredKind, GresCounts, Job, Resources, Secs, Time};
use std::collections::BTreeMap;
use std::fmt;

/// Credential values usage is counted over, in [`CredKind`] order; empty
/// means the whole system.
pub type Scope = Vec<(CredKind, String)>;

/// Resource quantities of one job or summed over jobs, in the units of the
/// limits: processor-seconds and seconds still outstanding, memory in MB.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Totals {
    /// Jobs.
    pub jobs: u64,
    /// Dedicated processors.
    pub procs: u64,
    /// Nodes.
    pub nodes: u64,
    /// Processor equivalents.
    pub pe: f64,
    /// Outstanding processor-seconds (procs × remaining walltime).
    pub ps: u64,
    /// Outstanding walltime in seconds.
    pub wc: u64,
    /// Dedicated memory in MB.
    pub mem: u64,
    /// Generic resources held, by the cluster's ids (MAXGRES).
    pub gres: GresCounts,
}

impl Totals {
    /// What one job counts for.
    ///
    /// An active job counts its remaining walltime at `now` and the nodes of
    /// its allocation; an idle job its full walltime and the nodes it asked
    /// for (`nodes`, else tasks / tasks-per-node, else 1). Once a placement
    /// is chosen the caller may set `nodes` to the real count before the final
    /// check. `default_walltime` stands in for a job without one
    /// (SYSTEMDEFAULTJOBWALLTIME); `total` is the cluster's configured total,
    /// for processor equivalents.
    pub fn of_job(job: &Job, now: Time, default_walltime: Secs, total: &Resources) -> Totals {
        let walltime = job.walltime.unwrap_or(default_walltime).max(0);
        let remaining = match (job.state.is_active(), job.start_time) {
            (true, Some(start)) => start.saturating_add(walltime).saturating_sub(now).max(0),
            _ => walltime,
        } as u64;
        let procs = job.procs();
        let nodes = if job.state.is_active() && !job.allocation.is_empty() {
            let mut names: Vec<&str> = job.allocation.iter().map(|a| a.node.as_str()).collect();
            names.sort_unstable();
            names.dedup();
            names.len() as u64
        } else if let Some(n) = job.nodes {
            n.max(1) as u64
        } else if let Some(t) = job.tasks_per_node.filter(|t| *t > 0) {
            (job.tasks as u64).div_ceil(t as u64).max(1)
        } else {
            1
        };
        let mem = job.task.mem.saturating_mul(job.tasks as u64);
        Totals {
            jobs: 1,
            procs,
            nodes,
            pe: processor_equivalents(job, total),
            ps: procs.saturating_mul(remaining),
            wc: remaining,
            mem,
            gres: job.total_held().gres,
        }
    }

    /// The quantity a limit kind constrains; MAXGRES counts generic
    /// resource id `gres` (none: nothing).
    pub fn get(&self, kind: LimitKind, gres: Option<usize>) -> f64 {
        use LimitKind::*;
        match kind {
            Gres => gres.map_or(0.0, |k| self.gres.get(k) as f64),
            Job | IJob => self.jobs as f64,
            Node | INode => self.nodes as f64,
            Proc | IProc => self.procs as f64,
            Pe | IPe => self.pe,
            Ps | IPs => self.ps as f64,
            Wc | IWc => self.wc as f64,
            Mem | IMem => self.mem as f64,
        }
    }

    fn add(&mut self, o: &Totals) {
        self.jobs = self.jobs.saturating_add(o.jobs);
        self.procs = self.procs.saturating_add(o.procs);
        self.nodes = self.nodes.saturating_add(o.nodes);
        self.pe += o.pe;
        self.ps = self.ps.saturating_add(o.ps);
        self.wc = self.wc.saturating_add(o.wc);
        self.mem = self.mem.saturating_add(o.mem);
        self.gres = self.gres.map(&o.gres, |a, b| a.saturating_add(b));
    }

    fn sub(&mut self, o: &Totals) {
        self.jobs = self.jobs.saturating_sub(o.jobs);
        self.procs = self.procs.saturating_sub(o.procs);
        self.nodes = self.nodes.saturating_sub(o.nodes);
        self.pe = (self.pe - o.pe).max(0.0);
        self.ps = self.ps.saturating_sub(o.ps);
        self.wc = self.wc.saturating_sub(o.wc);
        self.mem = self.mem.saturating_sub(o.mem);
        self.gres = self.gres.map(&o.gres, |a, b| a.saturating_sub(b));
    }
}

/// Processor equivalents of everything the job holds (generic resources
/// included, with what a running job holds per node): Maui's rule,
/// [`crate::priority::processor_equivalents`], of [`Job::total_held`]; a
/// cluster without processors counts the job's processors.
pub fn processor_equivalents(job: &Job, total: &Resources) -> f64 {
    if total.procs == 0 {
        return job.procs() as f64;
    }
    crate::priority::processor_equivalents(&job.total_held(), total)
}

/// Credential kinds as a bit set (bit i = `CredKind::ALL[i]`).
type Shape = u8;

fn bit(k: CredKind) -> Shape {
    1 << CredKind::ALL.iter().position(|x| *x == k).unwrap_or(0)
}

fn shape_of(owner: Option<CredKind>, l: &LimitSpec) -> Shape {
    l.per
        .iter()
        .fold(owner.map_or(0, bit), |m, (k, _)| m | bit(*k))
}

/// The scope of a shape for a job; `None` when the job lacks one of the
/// credentials.
fn scope_for(job: &Job, shape: Shape) -> Option<Scope> {
    let mut out = Vec::new();
    for k in CredKind::ALL {
        if shape & bit(k) != 0 {
            out.push((k, job.cred(k)?.to_string()));
        }
    }
    Some(out)
}

/// What active and eligible idle jobs hold, per scope.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Usage {
    active_shapes: Vec<Shape>,
    idle_shapes: Vec<Shape>,
    active: BTreeMap<Scope, Totals>,
    idle: BTreeMap<Scope, Totals>,
    /// The cluster's generic resource names by id, which MAXGRES limits
    /// are looked up in ([`Usage::with_gres_names`]).
    gres_names: Vec<String>,
}

impl Usage {
    /// Empty usage tracking every scope the configuration's limits use.
    pub fn new(cfg: &Config) -> Usage {
        let mut active = Vec::new();
        let mut idle = Vec::new();
        let mut note = |owner: Option<CredKind>, l: &LimitSpec| {
            let s = shape_of(owner, l);
            if l.kind.is_idle() {
                idle.push(s)
            } else {
                active.push(s)
            }
        };
        for l in &cfg.system.limits {
            note(None, l);
        }
        for (kind, by_name) in &cfg.creds {
            for c in by_name.values() {
                for l in &c.limits {
                    note(Some(*kind), l);
                }
                // Overrides bound the QOS itself and the other credentials.
                for l in &c.overrides {
                    for k in CredKind::ALL {
                        note(Some(k), l);
                    }
                }
            }
        }
        active.sort_unstable();
        active.dedup();
        idle.sort_unstable();
        idle.dedup();
        Usage {
            active_shapes: active,
            idle_shapes: idle,
            ..Usage::default()
        }
    }

    /// Names MAXGRES limits by the cluster's generic resource ids
    /// ([`Cluster::gres_names`](crate::model::Cluster::gres_names)); a
    /// name no node offers is never held, so never over its limit.
    pub fn with_gres_names(mut self, names: &[String]) -> Usage {
        self.gres_names = names.to_vec();
        self
    }

    /// Usage of the active jobs among `jobs` (running or suspended) at `now`.
    pub fn from_jobs(
        cfg: &Config,
        jobs: &[Job],
        now: Time,
        default_walltime: Secs,
        total: &Resources,
    ) -> Usage {
        let mut u = Usage::new(cfg);
        for j in jobs.iter().filter(|j| j.state.is_active()) {
            u.add_active(j, &Totals::of_job(j, now, default_walltime, total));
        }
        u
    }

    /// Counts a job as active (also when the scheduler starts one).
    pub fn add_active(&mut self, job: &Job, t: &Totals) {
        for &s in &self.active_shapes {
            if let Some(scope) = scope_for(job, s) {
                self.active.entry(scope).or_default().add(t);
            }
        }
    }

    /// Stops counting an active job (preempted, finished within an iteration).
    pub fn remove_active(&mut self, job: &Job, t: &Totals) {
        for &s in &self.active_shapes {
            if let Some(scope) = scope_for(job, s) {
                if let Some(e) = self.active.get_mut(&scope) {
                    e.sub(t);
                }
            }
        }
    }

    /// Counts an idle job as eligible (after it passed [`check_idle`]).
    pub fn add_idle(&mut self, job: &Job, t: &Totals) {
        for &s in &self.idle_shapes {
            if let Some(scope) = scope_for(job, s) {
                self.idle.entry(scope).or_default().add(t);
            }
        }
    }

    /// Active usage of a scope (zero when nothing is counted there).
    #[cfg(test)]
    pub fn active(&self, scope: &[(CredKind, String)]) -> Totals {
        self.active.get(scope).copied().unwrap_or_default()
    }
}

/// A limit a job would break.
#[derive(Clone, Debug, PartialEq)]
pub struct Violation {
    /// The limit (MAXJOB, MAXIPROC, ...).
    pub limit: LimitKind,
    /// Where usage is counted; empty for the whole system.
    pub scope: Scope,
    /// The `*CFG` family the limit comes from; `None` for SYSCFG.
    pub owner: Option<CredKind>,
    /// The QOS whose override limit this is, if it is one.
    pub qos_override: Option<String>,
    /// True when the hard limit is broken, false for the soft one.
    pub hard: bool,
    /// Usage already counted in the scope.
    pub current: f64,
    /// What the job adds.
    pub request: f64,
    /// The limit broken (soft or hard value).
    pub max: u64,
    /// The generic resource of a MAXGRES limit.
    pub gres: Option<String>,
}

impl Violation {
    /// The credential as Maui names it: `user steve`, `class batch, user
    /// steve`, or `system`.
    pub fn cred_label(&self) -> String {
        if self.scope.is_empty() {
            return "system".into();
        }
        self.scope
            .iter()
            .map(|(k, v)| format!("{} {v}", k.name().to_ascii_lowercase()))
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// The limit as written: `MAXPROC`, `MAXGRES[gpu]`.
    pub fn limit_name(&self) -> String {
        match &self.gres {
            Some(g) => format!("{}[{g}]", self.limit.keyword()),
            None => self.limit.keyword().to_string(),
        }
    }

    fn amount(&self, v: f64) -> String {
        if self.limit.is_duration() {
            fmt_duration(v as Secs)
        } else if v.fract() == 0.0 {
            format!("{v:.0}")
        } else {
            format!("{v:.2}")
        }
    }
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "job violates {} {} {} limit of {} for {} (Req: {}, InUse: {})",
            if self.limit.is_idle() {
                "idle"
            } else {
                "active"
            },
            if self.hard { "HARD" } else { "SOFT" },
            self.limit_name(),
            self.amount(self.max as f64),
            self.cred_label(),
            self.amount(self.request),
            self.amount(self.current),
        )?;
        if let Some(q) = &self.qos_override {
            write!(f, " [QOS {q} override]")?;
        }
        Ok(())
    }
}

/// Outcome of a throttling check.
#[derive(Clone, Debug, PartialEq)]
pub enum Verdict {
    /// Within every soft limit: may run in the first (soft) pass.
    FitsSoft,
    /// Within every hard limit but over this soft one: second pass only.
    FitsHardOnly(Violation),
    /// Over this hard limit: may not run (or be eligible) now.
    Blocked(Violation),
}

impl Verdict {
    /// True when the job may go ahead in the given pass (`hard_pass` false
    /// for the soft pass).
    pub fn allows(&self, hard_pass: bool) -> bool {
        match self {
            Verdict::FitsSoft => true,
            Verdict::FitsHardOnly(_) => hard_pass,
            Verdict::Blocked(_) => false,
        }
    }

    /// The limit in the way, if any.
    pub fn violation(&self) -> Option<&Violation> {
        match self {
            Verdict::FitsSoft => None,
            Verdict::FitsHardOnly(v) | Verdict::Blocked(v) => Some(v),
        }
    }
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Verdict::FitsSoft => f.write_str("job meets all throttling policies"),
            Verdict::FitsHardOnly(v) | Verdict::Blocked(v) => v.fmt(f),
        }
    }
}

/// Flags of the job's QOS (QFLAGS and FLAGS): exemptions and DEDICATED.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct QosFlags {
    flags: Vec<String>,
}

impl QosFlags {
    /// The flags of the job's QOS (its own QFLAGS and FLAGS, else those of
    /// `QOSCFG[DEFAULT]`).
    pub fn of(cfg: &Config, job: &Job) -> QosFlags {
        let own = job.qos.as_deref().and_then(|q| cfg.cred(CredKind::Qos, q));
        let dflt = cfg.cred_default(CredKind::Qos);
        let pick = |f: fn(&CredCfg) -> Option<&crate::config::value::Names>| {
            own.and_then(f).or_else(|| dflt.and_then(f))
        };
        let mut flags: Vec<String> = [pick(|c| c.qflags.as_ref()), pick(|c| c.flags.as_ref())]
            .into_iter()
            .flatten()
            .flat_map(|n| n.0.iter().map(|s| s.to_ascii_uppercase()))
            .collect();
        flags.sort();
        flags.dedup();
        QosFlags { flags }
    }

    /// True when the flag is set (upper-case name, e.g. `IGNUSER`).
    pub fn has(&self, flag: &str) -> bool {
        self.flags
            .binary_search_by(|f| f.as_str().cmp(flag))
            .is_ok()
    }

    /// True when limits owned by `owner` (`None`: SYSCFG) of `kind` are waived.
    pub fn ignores(&self, owner: Option<CredKind>, kind: LimitKind) -> bool {
        let Some(owner) = owner else {
            return self.has("IGNSYSTEM");
        };
        let who = match owner {
            CredKind::User => "USER",
            CredKind::Group => "GROUP",
            CredKind::Account => "ACCOUNT",
            CredKind::Qos | CredKind::Class => return false,
        };
        if self.has(&format!("IGN{who}")) || self.has("IGNALL") {
            return true;
        }
        let what = match kind {
            LimitKind::Job => "JOB",
            LimitKind::Proc => "PROC",
            LimitKind::Ps => "PS",
            LimitKind::IJob => "JOBQUEUED",
            _ => return false,
        };
        self.has(&format!("IGN{what}PER{who}"))
    }
}

/// One limit as it applies to one job.
struct Applied<'a> {
    kind: LimitKind,
    gres: Option<&'a str>,
    value: SoftHard,
    owner: Option<CredKind>,
    scope: Scope,
    qos_override: Option<&'a str>,
}

/// Own limits of a credential followed by the DEFAULT ones it does not set.
fn merged<'a>(own: Option<&'a CredCfg>, dflt: Option<&'a CredCfg>) -> Vec<&'a LimitSpec> {
    let mut out: Vec<&LimitSpec> = own.map(|c| c.limits.iter().collect()).unwrap_or_default();
    if let Some(d) = dflt {
        for l in &d.limits {
            if !out.iter().any(|o| o.attr_name() == l.attr_name()) {
                out.push(l);
            }
        }
    }
    out
}

/// The scope of a limit for a job, or `None` when it does not apply (the job
/// lacks a credential, or the limit names another value).
fn limit_scope(job: &Job, owner: Option<(CredKind, &str)>, l: &LimitSpec) -> Option<Scope> {
    let mut shape = owner.map_or(0, |(k, _)| bit(k));
    for (k, name) in &l.per {
        let v = job.cred(*k)?;
        if name.as_deref().is_some_and(|n| n != v) {
            return None;
        }
        shape |= bit(*k);
    }
    scope_for(job, shape)
}

/// Every limit that applies to the job, in a fixed order: user, group,
/// account, QOS, class, then system; own limits before DEFAULT ones.
fn applicable<'a>(cfg: &'a Config, job: &'a Job) -> Vec<Applied<'a>> {
    let ex = QosFlags::of(cfg, job);
    let qos_name = job.qos.as_deref();
    let qos_own = qos_name.and_then(|q| cfg.cred(CredKind::Qos, q));
    let qos_dflt = cfg.cred_default(CredKind::Qos);
    // Override limits of the job's QOS (own over DEFAULT), plain ones only.
    let mut overrides: Vec<&LimitSpec> = Vec::new();
    for c in [qos_own, qos_dflt].into_iter().flatten() {
        for l in c.overrides.iter().filter(|l| l.per.is_empty()) {
            if !overrides.iter().any(|o| same(o, l)) {
                overrides.push(l);
            }
        }
    }
    let override_of = |l: &LimitSpec| overrides.iter().find(|o| same(o, l)).map(|o| o.value);
    let mut out = Vec::new();
    for kind in CredKind::ALL {
        let Some(v) = job.cred(kind) else { continue };
        let limits = merged(cfg.cred(kind, v), cfg.cred_default(kind));
        for l in &limits {
            if ex.ignores(Some(kind), l.kind) {
                continue;
            }
            let Some(scope) = limit_scope(job, Some((kind, v)), l) else {
                continue;
            };
            let ov = (kind != CredKind::Qos && l.per.is_empty())
                .then(|| override_of(l))
                .flatten();
            out.push(Applied {
                kind: l.kind,
                gres: l.gres.as_deref(),
                value: ov.unwrap_or(l.value),
                owner: Some(kind),
                scope,
                qos_override: ov.and(qos_name),
            });
        }
        if kind == CredKind::Qos {
            // "Only 3 hiprio QOS jobs may run simultaneously": an override
            // also bounds the QOS when it has no plain limit of that kind.
            for o in &overrides {
                if !limits.iter().any(|l| same(l, o) && l.per.is_empty()) {
                    out.push(Applied {
                        kind: o.kind,
                        gres: o.gres.as_deref(),
                        value: o.value,
                        owner: Some(kind),
                        scope: vec![(kind, v.to_string())],
                        qos_override: Some(v),
                    });
                }
            }
        }
    }
    for l in &cfg.system.limits {
        if ex.ignores(None, l.kind) {
            continue;
        }
        if let Some(scope) = limit_scope(job, None, l) {
            out.push(Applied {
                kind: l.kind,
                gres: l.gres.as_deref(),
                value: l.value,
                owner: None,
                scope,
                qos_override: None,
            });
        }
    }
    out
}

/// True when two limits constrain the same quantity (MAXGRES: of the same
/// generic resource).
fn same(a: &LimitSpec, b: &LimitSpec) -> bool {
    a.kind == b.kind && a.gres == b.gres
}

fn check(
    cfg: &Config,
    job: &Job,
    demand: &Totals,
    usage: &BTreeMap<Scope, Totals>,
    gres_names: &[String],
    idle: bool,
) -> Verdict {
    let mut soft: Option<Violation> = None;
    for a in applicable(cfg, job) {
        if a.kind.is_idle() != idle {
            continue;
        }
        let id = a
            .gres
            .and_then(|g| gres_names.iter().position(|n| n.as_str() == g));
        let current = usage.get(&a.scope).map_or(0.0, |t| t.get(a.kind, id));
        let request = demand.get(a.kind, id);
        let after = current + request;
        // A tiny tolerance keeps summed processor equivalents from failing
        // on rounding; every other quantity is a whole number.
        let over = |max: u64| after > max as f64 + 1e-9;
        let v = |hard: bool, max: u64| Violation {
            limit: a.kind,
            scope: a.scope.clone(),
            owner: a.owner,
            qos_override: a.qos_override.map(str::to_string),
            hard,
            current,
            request,
            max,
            gres: a.gres.map(str::to_string),
        };
        if over(a.value.hard) {
            return Verdict::Blocked(v(true, a.value.hard));
        }
        // Idle limits have a hard value only (6.2.3).
        if !idle && soft.is_none() && over(a.value.soft) {
            soft = Some(v(false, a.value.soft));
        }
    }
    match soft {
        Some(v) => Verdict::FitsHardOnly(v),
        None => Verdict::FitsSoft,
    }
}

/// Checks the active-job limits (MAXJOB, MAXNODE, MAXPROC, MAXPE, MAXPS,
/// MAXWC, MAXMEM, MAXGRES): may the job start now, given what is running?
pub fn check_active(cfg: &Config, job: &Job, demand: &Totals, usage: &Usage) -> Verdict {
    check(cfg, job, demand, &usage.active, &usage.gres_names, false)
}

/// Checks the idle-job limits (MAXIJOB, MAXIPROC, ...): may the job be
/// eligible, given the idle jobs already made eligible ([`Usage::add_idle`])?
/// Never returns [`Verdict::FitsHardOnly`].
pub fn check_idle(cfg: &Config, job: &Job, demand: &Totals, usage: &Usage) -> Verdict {
    check(cfg, job, demand, &usage.idle, &usage.gres_names, true)
}

/// A single job larger than the system per-job limits allow
/// (SYSTEMMAXPROCPERJOB, SYSTEMMAXJOBWALLTIME, SYSTEMMAXPROCSECONDPERJOB).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("job exceeds {param} (requested {requested}, limit {max})")]
pub struct SizeViolation {
    /// The parameter.
    pub param: &'static str,
    /// What the job asks for.
    pub requested: u64,
    /// The limit.
    pub max: u64,
}

/// Checks the system job limits (the maximum any single job may ask for),
/// honouring the QOS flags IGNSYSMAXPROC, IGNSYSMAXTIME and IGNSYSMAXPS.
pub fn check_job_size(cfg: &Config, job: &Job) -> Result<(), SizeViolation> {
    let p = &cfg.params;
    if p.system_max_proc_per_job.0.is_none()
        && p.system_max_job_walltime.0.is_none()
        && p.system_max_proc_second_per_job.0.is_none()
    {
        return Ok(());
    }
    let ex = QosFlags::of(cfg, job);
    let walltime = job
        .walltime
        .unwrap_or(p.system_default_job_walltime.0)
        .max(0) as u64;
    let procs = job.procs();
    if let (Some(max), false) = (p.system_max_proc_per_job.0, ex.has("IGNSYSMAXPROC")) {
        if procs > max {
            return Err(SizeViolation {
                param: "SYSTEMMAXPROCPERJOB",
                requested: procs,
                max,
            });
        }
    }
    if let (Some(max), false) = (p.system_max_job_walltime.0, ex.has("IGNSYSMAXTIME")) {
        let max = max.max(0) as u64;
        if walltime > max {
            return Err(SizeViolation {
                param: "SYSTEMMAXJOBWALLTIME",
                requested: walltime,
                max,
            });
        }
    }
    if let (Some(max), false) = (p.system_max_proc_second_per_job.0, ex.has("IGNSYSMAXPS")) {
        let ps = procs.saturating_mul(walltime);
        if ps > max {
            return Err(SizeViolation {
                param: "SYSTEMMAXPROCSECONDPERJOB",
                requested: ps,
                max,
            });
        }
    }
    Ok(())
}
