//! Job priority as Maui computes it: a two-level weighted sum.
//!
//! ```text
//! Priority = Σ over components C of
//!              CWEIGHT × MIN(CCAP, Σ over subcomponents S of SWEIGHT × MIN(SCAP, S))
//! ```
//!
//! with the components of the guide's section 5.1.2 in its order: CRED
//! (credential priorities), FS (fairshare deltas), RES (requested resources),
//! SERV (effective queue time, expansion factor, bypass count), TARG (queue
//! time and expansion factor targets) and USAGE (active jobs only). A cap of 0
//! means "no cap"; caps bound from above only (`MIN`), as the guide writes them.
//!
//! The sum is cut toward zero to an integer (as Maui stores it) and bounded: at most [`MAX_PRIO_VAL`];
//! at least 1 unless ENABLENEGJOBPRIORITY or REJECTNEGPRIOJOBS is set (then at least
//! `-MAX_PRIO_VAL`, standing in for Maui's "-INFINITY" so the value stays an
//! integer and below every system priority). A system priority set with
//! `setspri` replaces the computed value by `MAX_PRIO_VAL + SPRIO`, which is
//! above any calculated priority (guide 5.1.1 and 5.1.5). REJECTNEGPRIOJOBS
//! (FALSE by default, as in Maui 3.3's code, though its guide says TRUE)
//! marks a job whose final priority is negative as not startable.
//!
//! Everything here is pure: time comes in as [`PriorityContext::now`], the
//! effective queue time as an argument (see [`accrual`] for how it accrues).

pub mod accrual;
pub mod diagnose;
#[cfg(test)]
mod tests;

pub use accrual::{snapshot_queue_time, QueueAccrual};
pub use diagnose::{diagnose_p_json, diagnose_p_rows, render_diagnose_p};

use crate::config::params::Params;
use crate::config::{Config, CredCfg, FsPolicy, FsTarget, FsTargetMode};
use crate::model::{CredKind, Job, Resources, Secs, Time};
use serde::Serialize;
use std::collections::BTreeMap;

/// Highest calculated priority (Maui's MAX_PRIO_VAL, one billion); system
/// priorities start above it.
pub const MAX_PRIO_VAL: i64 = 1_000_000_000;

/// Where a job's fairshare usage comes from.
///
/// [`crate::fairshare::Fairshare`] implements it from its windows; a map of
/// fixed percentages implements it for tests and what-if questions.
pub trait FairshareView {
    /// Decay-weighted usage of a credential in percent of all delivered
    /// usage, or `None` when nothing was delivered in the windows considered.
    fn usage(&self, cfg: &Config, kind: CredKind, name: &str) -> Option<f64>;
}

/// Fixed usage percentages by credential.
impl FairshareView for BTreeMap<(CredKind, String), f64> {
    fn usage(&self, _cfg: &Config, kind: CredKind, name: &str) -> Option<f64> {
        self.get(&(kind, name.to_string())).copied()
    }
}

/// No fairshare history at all: every usage is unknown (counts as 0%).
#[cfg(test)]
#[derive(Clone, Copy, Debug, Default)]
pub struct NoFairshare;

#[cfg(test)]
impl FairshareView for NoFairshare {
    fn usage(&self, _cfg: &Config, _kind: CredKind, _name: &str) -> Option<f64> {
        None
    }
}

/// What a priority calculation needs besides the job.
#[derive(Clone, Copy)]
pub struct PriorityContext<'a> {
    /// Current time (epoch seconds).
    pub now: Time,
    /// The configuration (weights, caps, credential settings).
    pub cfg: &'a Config,
    /// Configured resources of the whole cluster (processor equivalents).
    pub total: Resources,
    /// Fairshare usage by credential.
    pub fairshare: &'a dyn FairshareView,
}

/// The six priority components, in the guide's order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum ComponentKind {
    /// Credential priorities (USERCFG & co. PRIORITY).
    Cred = 0,
    /// Fairshare deltas.
    Fs,
    /// Requested resources.
    Res,
    /// Current service levels.
    Serv,
    /// Target service levels.
    Targ,
    /// Consumed resources (active jobs).
    Usage,
}

impl ComponentKind {
    /// All components in order.
    pub const ALL: [ComponentKind; 6] = [
        ComponentKind::Cred,
        ComponentKind::Fs,
        ComponentKind::Res,
        ComponentKind::Serv,
        ComponentKind::Targ,
        ComponentKind::Usage,
    ];

    /// Maui's name (`CRED`, `FS`, ...).
    pub fn name(self) -> &'static str {
        match self {
            ComponentKind::Cred => "CRED",
            ComponentKind::Fs => "FS",
            ComponentKind::Res => "RES",
            ComponentKind::Serv => "SERV",
            ComponentKind::Targ => "TARG",
            ComponentKind::Usage => "USAGE",
        }
    }
}

/// One subcomponent of a job's priority.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Subcomponent {
    /// Maui's name (`USER`, `FSUSER`, `QUEUETIME`, `PE`, ...).
    pub name: &'static str,
    /// Pre-weight value, after its own cap (QUEUETIMECAP, XFACTORCAP, BYPASSCAP).
    pub value: f64,
    /// Effective subcomponent weight (QOS QTWEIGHT/XFWEIGHT included).
    pub weight: f64,
    /// Points this subcomponent adds to the final (unbounded) priority: its
    /// share of the component's capped sum times the component weight.
    pub contribution: f64,
}

/// One component of a job's priority.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Component {
    /// Which component.
    pub kind: ComponentKind,
    /// Component weight (CREDWEIGHT, FSWEIGHT, ...).
    pub weight: f64,
    /// Component cap, if set.
    pub cap: Option<f64>,
    /// Σ weight × value of the subcomponents, before the component cap.
    pub sum: f64,
    /// weight × MIN(cap, sum): points added to the priority.
    pub contribution: f64,
    /// Subcomponents in the guide's order.
    pub subs: Vec<Subcomponent>,
}

impl Component {
    fn build(kind: ComponentKind, weight: i64, cap: f64, subs: Subs) -> Self {
        let (sum, cap, contribution) = component_points(weight, cap, subs);
        let weight = weight as f64;
        let subs = subs
            .iter()
            .map(|&(name, value, w)| Subcomponent {
                name,
                value,
                weight: w,
                contribution: if sum != 0.0 {
                    contribution * (value * w) / sum
                } else {
                    0.0
                },
            })
            .collect();
        Component {
            kind,
            weight,
            cap,
            sum,
            contribution,
            subs,
        }
    }

    /// A subcomponent by name.
    pub fn sub(&self, name: &str) -> Option<&Subcomponent> {
        self.subs.iter().find(|s| s.name == name)
    }
}

/// The fairshare inputs of one credential of a job.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FsDetail {
    /// Credential kind.
    pub kind: CredKind,
    /// Credential name.
    pub name: String,
    /// Decayed usage in percent (`None`: nothing delivered yet).
    pub usage: Option<f64>,
    /// Target in force (own or `*CFG[DEFAULT]`'s).
    pub target: Option<FsTarget>,
    /// Pre-weight delta used in the priority.
    pub delta: f64,
}

/// A job's priority with every component and subcomponent.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PriorityBreakdown {
    /// Job id.
    pub job: String,
    /// The components in the guide's order.
    pub components: Vec<Component>,
    /// Fairshare usage and targets per credential of the job.
    pub fs: Vec<FsDetail>,
    /// Effective queue time used (seconds).
    pub eff_queue_time: Secs,
    /// Expansion factor used.
    pub xfactor: f64,
    /// Σ component contributions, unrounded and unbounded.
    pub raw: f64,
    /// Calculated priority: cut to an integer toward zero and bounded by ENABLENEGJOBPRIORITY and
    /// [`MAX_PRIO_VAL`].
    pub calculated: i64,
    /// Administrator's absolute system priority (setspri), if any.
    pub system_priority: Option<i64>,
    /// Final priority: `MAX_PRIO_VAL + SPRIO` with a system priority, else
    /// the calculated priority.
    pub priority: i64,
    /// True when REJECTNEGPRIOJOBS forbids starting the job (negative priority).
    pub rejected_negative: bool,
}

impl PriorityBreakdown {
    /// A component by kind.
    pub fn component(&self, kind: ComponentKind) -> &Component {
        self.components
            .iter()
            .find(|c| c.kind == kind)
            .expect("every component is present")
    }

    /// Percentage of the raw priority a component contributes (0 when the
    /// raw priority is 0).
    pub fn percent(&self, kind: ComponentKind) -> f64 {
        percent_of(self.component(kind).contribution, self.raw)
    }
}

pub(crate) fn percent_of(part: f64, whole: f64) -> f64 {
    if whole != 0.0 {
        100.0 * part / whole
    } else {
        0.0
    }
}

/// The name of a job's credential of `kind` as priority and fairshare use it.
///
/// A job without a QOS runs in Maui's default QOS, named `DEFAULT` (so
/// `QOSCFG[DEFAULT]` applies to it); a job without an account or class (or
/// with an empty group) simply has no such credential.
pub fn cred_name(job: &Job, kind: CredKind) -> Option<&str> {
    cred_name_given(kind, job.cred(kind))
}

/// [`cred_name`] of a job whose field for `kind` is `given` ([`Job::cred`]).
pub fn cred_name_given(kind: CredKind, given: Option<&str>) -> Option<&str> {
    match (kind, given) {
        (CredKind::Qos, None) | (CredKind::Qos, Some("")) => Some("DEFAULT"),
        (_, Some("")) | (_, None) => None,
        (_, Some(s)) => Some(s),
    }
}

/// A credential attribute: the credential's own setting, else `*CFG[DEFAULT]`'s.
pub fn cred_attr<T>(
    cfg: &Config,
    kind: CredKind,
    name: &str,
    get: impl Fn(&CredCfg) -> Option<T>,
) -> Option<T> {
    cfg.cred(kind, name)
        .and_then(&get)
        .or_else(|| cfg.cred_default(kind).and_then(&get))
}

/// The fairshare delta of one credential: `target - usage` (percentage
/// points), or `1 - usage/target` under FSPOLICY `...%`. A floor (`+`) only
/// counts when usage is below it, a cap (`-`) only when usage is above it,
/// and no target means no contribution. A ratio against a 0% target is
/// undefined and contributes nothing.
pub fn fs_delta(policy: FsPolicy, target: Option<FsTarget>, usage: f64) -> f64 {
    let Some(t) = target else { return 0.0 };
    let d = if policy.percent {
        if t.percent <= 0.0 {
            return 0.0;
        }
        1.0 - usage / t.percent
    } else {
        t.percent - usage
    };
    match t.mode {
        FsTargetMode::Target => d,
        FsTargetMode::Floor => d.max(0.0),
        FsTargetMode::Cap => d.min(0.0),
    }
}

/// Processor equivalents: the largest share of any configured cluster
/// resource the request takes, times the cluster's processors (guide 5.1.2.3:
/// 25% of the processors and 50% of the memory of 128 processors is 64 PE).
///
/// Generic resources count as resources: each name's share is the request's
/// count over the cluster's configured total of that name, so with 128
/// processors and 8 GPUs one GPU is 16 PE. A typed request (`gpu:a100:1`)
/// also counts toward its untyped total (see [`crate::model::gres`]), and
/// the larger of the two shares, the typed one, is what it takes.
pub fn processor_equivalents(req: &Resources, total: &Resources) -> f64 {
    let share = |need: f64, have: f64| if have > 0.0 { need / have } else { 0.0 };
    let s = share(req.procs as f64, total.procs as f64)
        .max(share(req.mem as f64, total.mem as f64))
        .max(share(req.swap as f64, total.swap as f64))
        .max(share(req.disk as f64, total.disk as f64))
        .max(gres_share(&req.gres, &total.gres));
    s * total.procs as f64
}

/// The largest share of any generic resource `req` takes of `total` (0
/// without generic resources).
pub fn gres_share(req: &crate::model::GresCounts, total: &crate::model::GresCounts) -> f64 {
    req.0
        .iter()
        .zip(&total.0)
        .filter(|(_, &have)| have > 0)
        .fold(0.0, |s: f64, (&need, &have)| {
            s.max(need as f64 / have as f64)
        })
}

/// Expansion factor as Maui 3.3 computes it (`MJobGetStartPriority`,
/// MPriority.c): `(EFFQUEUETIME + WALLCLOCKLIMIT) / MAX(XFMINWCLIMIT,
/// WALLCLOCKLIMIT)` (a zero divisor counts as one second). A job shorter
/// than XFMINWCLIMIT counts as that long: its factor starts below 1 and
/// grows as a job of XFMINWCLIMIT's would.
pub fn xfactor(eff_queue_time: Secs, walltime: Secs, xf_min_wclimit: Option<Secs>) -> f64 {
    let div = walltime.max(xf_min_wclimit.unwrap_or(0)).max(1);
    (eff_queue_time.max(0) + walltime.max(0)) as f64 / div as f64
}

/// Growth rate of the target curve: it doubles every tenth of the target.
const TARGET_GROWTH: f64 = 10.0 * std::f64::consts::LN_2;

/// The target-service curve, `x` being the fraction of the target reached
/// (queue time over QTTARGET, or XFactor progress towards XFTARGET).
///
/// Exponential while the target approaches — small far from it, 100 at the
/// target, doubling every tenth of the way (3.0 at half-way, 25 at 80%, 50
/// at 90%) — then, once missed, linear with the slope it had at the target
/// (still growing, no longer exponentially), as guide 5.1.2.5 describes.
/// The guide gives no formula; this one is mauisched's and documented here.
pub fn target_value(x: f64) -> f64 {
    if x.is_nan() || x <= 0.0 {
        return 0.0;
    }
    let full = TARGET_GROWTH.exp() - 1.0;
    if x < 1.0 {
        100.0 * ((TARGET_GROWTH * x).exp() - 1.0) / full
    } else {
        let slope = 100.0 * TARGET_GROWTH * TARGET_GROWTH.exp() / full;
        100.0 + slope * (x - 1.0)
    }
}

/// The requested walltime of a job (SYSTEMDEFAULTJOBWALLTIME when it has none).
pub fn job_walltime(cfg: &Config, job: &Job) -> Secs {
    job.walltime
        .unwrap_or(cfg.params.system_default_job_walltime.0)
        .max(0)
}

fn opt_cap(v: f64, cap: f64) -> f64 {
    if cap > 0.0 {
        v.min(cap)
    } else {
        v
    }
}

/// The CRED subcomponent weight of a credential kind (USERWEIGHT,
/// GROUPWEIGHT, ...).
fn cred_sub_weight(cfg: &Config, kind: CredKind) -> i64 {
    let p = &cfg.params;
    match kind {
        CredKind::User => p.user_weight,
        CredKind::Group => p.group_weight,
        CredKind::Account => p.account_weight,
        CredKind::Qos => p.qos_weight,
        CredKind::Class => p.class_weight,
    }
}

/// The fairshare subcomponent weight of a credential kind (FSUSERWEIGHT,
/// FSGROUPWEIGHT, ...).
pub fn fs_sub_weight(cfg: &Config, kind: CredKind) -> i64 {
    let p = &cfg.params;
    match kind {
        CredKind::User => p.fs_user_weight,
        CredKind::Group => p.fs_group_weight,
        CredKind::Account => p.fs_account_weight,
        CredKind::Qos => p.fs_qos_weight,
        CredKind::Class => p.fs_class_weight,
    }
}

/// Computes a job's priority with its full breakdown.
///
/// `eff_queue_time` is the job's effective queue time under
/// JOBPRIOACCRUALPOLICY (see [`QueueAccrual`] and [`snapshot_queue_time`]).
pub fn job_priority(ctx: &PriorityContext, job: &Job, eff_queue_time: Secs) -> PriorityBreakdown {
    let mut components = Vec::with_capacity(6);
    let mut fs = Vec::with_capacity(CredKind::ALL.len());
    let terms = cred_terms(ctx, job, Some(&mut fs));
    let core = priority_core(
        ctx,
        job,
        eff_queue_time,
        &terms,
        |kind, weight, cap, subs| {
            let c = Component::build(kind, weight, cap, subs);
            let points = c.contribution;
            components.push(c);
            points
        },
    );
    PriorityBreakdown {
        job: job.id.clone(),
        components,
        fs,
        eff_queue_time: core.eff,
        xfactor: core.xf,
        raw: core.raw,
        calculated: core.calculated,
        system_priority: job.system_priority,
        priority: core.priority,
        rejected_negative: core.rejected_negative,
    }
}

/// A job's final priority and whether REJECTNEGPRIOJOBS keeps it from
/// starting: [`job_priority`]'s numbers, computed the same way, without
/// building the breakdown (for callers that only order jobs).
pub fn job_priority_value(ctx: &PriorityContext, job: &Job, eff_queue_time: Secs) -> (i64, bool) {
    let p = job_priority_parts(ctx, job, eff_queue_time);
    (p.priority, p.rejected_negative)
}

/// A job's priority with the points each component adds, without the
/// rest of the breakdown: what an iteration keeps for every idle job (the
/// C ABI's per-job components); [`job_priority`] builds the whole
/// breakdown for the few a command asks about.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PriorityParts {
    /// Final priority (as [`PriorityBreakdown::priority`]).
    pub priority: i64,
    /// REJECTNEGPRIOJOBS forbids starting the job.
    pub rejected_negative: bool,
    /// Each component's contribution, in the order of [`ComponentKind::ALL`].
    pub contributions: [f64; 6],
}

/// [`job_priority`]'s priority and component contributions, computed the
/// same way, with no allocation.
pub fn job_priority_parts(ctx: &PriorityContext, job: &Job, eff_queue_time: Secs) -> PriorityParts {
    job_priority_parts_with(ctx, job, eff_queue_time, &cred_terms(ctx, job, None))
}

/// [`job_priority_parts`] with the job's [`CredTerms`] at hand (`terms`
/// must be `cred_terms(ctx, job, None)`, or those of a job with the same
/// credentials under the same `ctx`).
pub fn job_priority_parts_with(
    ctx: &PriorityContext,
    job: &Job,
    eff_queue_time: Secs,
    terms: &CredTerms,
) -> PriorityParts {
    let mut contributions = [0.0; 6];
    let core = priority_core(
        ctx,
        job,
        eff_queue_time,
        terms,
        |kind, weight, cap, subs| {
            let points = component_points(weight, cap, subs).2;
            contributions[kind as usize] = points;
            points
        },
    );
    PriorityParts {
        priority: core.priority,
        rejected_negative: core.rejected_negative,
        contributions,
    }
}

/// A component's subcomponents: (name, pre-weight value, weight).
type Subs<'s> = &'s [(&'static str, f64, f64)];

/// The numbers of [`priority_core`].
struct Core {
    eff: Secs,
    xf: f64,
    raw: f64,
    calculated: i64,
    priority: i64,
    rejected_negative: bool,
}

/// Σ weight × value of the subcomponents, the component cap in force, and
/// the points the component adds: weight × MIN(cap, sum).
fn component_points(weight: i64, cap: f64, subs: Subs) -> (f64, Option<f64>, f64) {
    let sum: f64 = subs.iter().map(|(_, v, w)| v * w).sum();
    let cap = (cap > 0.0).then_some(cap);
    let capped = cap.map_or(sum, |c| sum.min(c));
    (sum, cap, weight as f64 * capped)
}

/// What a job's priority reads of its credentials: their settings under
/// the configuration and their fairshare usage. Jobs with the same
/// credentials share them, so an iteration looks them up once per set of
/// credentials ([`cred_terms`]) rather than once per job.
#[derive(Clone, Debug, PartialEq)]
pub struct CredTerms {
    /// PRIORITY of the USER, GROUP, ACCOUNT, QOS and CLASS credentials
    /// (the CRED subcomponents' values).
    cred: [f64; 5],
    /// Fairshare delta of each (the FS subcomponents' values).
    fs: [f64; 5],
    /// The QOS's QTWEIGHT and XFWEIGHT (added to the SERV weights).
    qt_weight: Option<i64>,
    xf_weight: Option<i64>,
    /// The QOS's QTTARGET and XFTARGET.
    qt_target: Option<Secs>,
    xf_target: Option<f64>,
}

/// The [`CredTerms`] of `job`'s credentials; each fairshare credential
/// looked at is described in `fs_detail` when given.
///
/// Without details only the points matter: a subcomponent whose weight
/// (or whose component's weight) is zero adds nothing whatever its value,
/// so its value is not looked up (credential settings, fairshare usage)
/// and counts as 0. The points are the same but for the sign of a zero.
pub fn cred_terms(
    ctx: &PriorityContext,
    job: &Job,
    mut fs_detail: Option<&mut Vec<FsDetail>>,
) -> CredTerms {
    let mut each = [CredTerm::default(); 5];
    for (k, kind) in SUB_KINDS.into_iter().enumerate() {
        each[k] = cred_term(ctx, kind, job.cred(kind), fs_detail.as_deref_mut());
    }
    let qos = qos_terms(ctx, job.qos.as_deref(), fs_detail.is_some());
    CredTerms::new(each, qos)
}

/// What priority reads of one credential: its PRIORITY (the CRED
/// subcomponent's value) and its fairshare delta (the FS subcomponent's).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct CredTerm {
    cred: f64,
    fs: f64,
}

/// What priority reads of a job's QOS besides its [`CredTerm`]: the
/// weights it adds to SERV's subcomponents and its targets.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct QosTerms {
    qt_weight: Option<i64>,
    xf_weight: Option<i64>,
    qt_target: Option<Secs>,
    xf_target: Option<f64>,
}

impl CredTerms {
    /// The terms of a job whose credentials (in the order of [`SUB_KINDS`])
    /// give `each`, and whose QOS gives `qos`.
    pub fn new(each: [CredTerm; 5], qos: QosTerms) -> CredTerms {
        CredTerms {
            cred: each.map(|t| t.cred),
            fs: each.map(|t| t.fs),
            qt_weight: qos.qt_weight,
            xf_weight: qos.xf_weight,
            qt_target: qos.qt_target,
            xf_target: qos.xf_target,
        }
    }
}

/// Whether a subcomponent's value can matter: details are wanted, or both
/// its weight and its component's are non-zero (see [`cred_terms`]).
fn counts(detail: bool, component_w: i64, w: i64) -> bool {
    detail || (component_w != 0 && w != 0)
}

/// The [`CredTerm`] of the credential of `kind` a job gives as `given`
/// (the job's field: [`Job::cred`]); described in `fs_detail` when given,
/// as in [`cred_terms`]. It depends on `kind` and `given` alone.
pub fn cred_term(
    ctx: &PriorityContext,
    kind: CredKind,
    given: Option<&str>,
    fs_detail: Option<&mut Vec<FsDetail>>,
) -> CredTerm {
    let cfg = ctx.cfg;
    let p = &cfg.params;
    let detail = fs_detail.is_some();
    let name = cred_name_given(kind, given);
    // CRED
    let cred = if counts(detail, p.cred_weight, cred_sub_weight(cfg, kind)) {
        name.and_then(|n| cred_attr(cfg, kind, n, |c| c.priority))
            .unwrap_or(0) as f64
    } else {
        0.0
    };
    // FS
    let fs = match name {
        Some(_) if !counts(detail, p.fs_weight, fs_sub_weight(cfg, kind)) => 0.0,
        Some(name) => {
            let target = cred_attr(cfg, kind, name, |c| c.fs_target);
            let usage = ctx.fairshare.usage(cfg, kind, name);
            let delta = fs_delta(p.fs_policy, target, usage.unwrap_or(0.0));
            if let Some(d) = fs_detail {
                d.push(FsDetail {
                    kind,
                    name: name.to_string(),
                    usage,
                    target,
                    delta,
                });
            }
            delta
        }
        None => 0.0,
    };
    CredTerm { cred, fs }
}

/// The [`QosTerms`] of a job whose QOS field is `given` (`detail`: as
/// for [`cred_terms`]). It depends on `given` alone.
pub fn qos_terms(ctx: &PriorityContext, given: Option<&str>, detail: bool) -> QosTerms {
    let cfg = ctx.cfg;
    let p = &cfg.params;
    let qos = cred_name_given(CredKind::Qos, given).unwrap_or("DEFAULT");
    // SERV (the QOS adds to the subcomponent weights) and TARG
    let qos_attr = |get: fn(&CredCfg) -> Option<i64>| {
        if counts(detail, p.serv_weight, 1) {
            cred_attr(cfg, CredKind::Qos, qos, get)
        } else {
            None
        }
    };
    QosTerms {
        qt_weight: qos_attr(|c| c.qt_weight),
        xf_weight: qos_attr(|c| c.xf_weight),
        qt_target: counts(detail, p.targ_weight, p.target_queuetime_weight)
            .then(|| cred_attr(cfg, CredKind::Qos, qos, |c| c.qt_target))
            .flatten(),
        xf_target: counts(detail, p.targ_weight, p.target_xfactor_weight)
            .then(|| cred_attr(cfg, CredKind::Qos, qos, |c| c.xf_target))
            .flatten(),
    }
}

/// The credential kinds of the CRED and of the FS subcomponents, in their
/// order.
pub const SUB_KINDS: [CredKind; 5] = [
    CredKind::User,
    CredKind::Group,
    CredKind::Account,
    CredKind::Qos,
    CredKind::Class,
];

/// What [`job_priority`] and [`job_priority_parts_with`] share: the
/// subcomponents of each component in the guide's order are handed to
/// `component`, which returns the points the component adds. What the job's
/// credentials give is in `terms` ([`cred_terms`]).
fn priority_core(
    ctx: &PriorityContext,
    job: &Job,
    eff_queue_time: Secs,
    terms: &CredTerms,
    mut component: impl FnMut(ComponentKind, i64, f64, Subs) -> f64,
) -> Core {
    let p = &ctx.cfg.params;
    let walltime = job_walltime(ctx.cfg, job);
    let eff = eff_queue_time.max(0);
    let xf = xfactor(eff, walltime, p.xf_min_wclimit.0);
    let raw: f64 = [
        cred_kinds_component(
            ctx.cfg,
            (ComponentKind::Cred, p.cred_weight, p.cred_cap),
            ["USER", "GROUP", "ACCOUNT", "QOS", "CLASS"],
            &terms.cred,
            cred_sub_weight,
            &mut component,
        ),
        cred_kinds_component(
            ctx.cfg,
            (ComponentKind::Fs, p.fs_weight, p.fs_cap),
            ["FSUSER", "FSGROUP", "FSACCOUNT", "FSQOS", "FSCLASS"],
            &terms.fs,
            fs_sub_weight,
            &mut component,
        ),
        res_component(ctx, job, walltime, &mut component),
        serv_component(p, job, terms, eff, xf, &mut component),
        targ_component(p, terms, eff, xf, &mut component),
        usage_component(ctx, job, walltime, &mut component),
    ]
    .iter()
    .sum();
    let (calculated, priority) = final_priority(p, job, raw);
    Core {
        eff,
        xf,
        raw,
        calculated,
        priority,
        rejected_negative: p.reject_neg_prio_jobs && priority < 0,
    }
}

/// CRED (the PRIORITY of each of the job's credentials) or FS (how far
/// each credential's usage is from its fairshare target): a subcomponent
/// per credential kind ([`SUB_KINDS`]), named `names`, of the job's
/// `values`, weighted by `weight`.
#[inline(always)]
fn cred_kinds_component(
    cfg: &Config,
    (kind, weight, cap): (ComponentKind, i64, f64),
    names: [&'static str; 5],
    values: &[f64; 5],
    sub_weight: fn(&Config, CredKind) -> i64,
    component: &mut impl FnMut(ComponentKind, i64, f64, Subs) -> f64,
) -> f64 {
    let subs: [(&'static str, f64, f64); 5] =
        std::array::from_fn(|k| (names[k], values[k], sub_weight(cfg, SUB_KINDS[k]) as f64));
    component(kind, weight, cap, &subs)
}

/// RES: what the job asks for.
#[inline(always)]
fn res_component(
    ctx: &PriorityContext,
    job: &Job,
    walltime: Secs,
    component: &mut impl FnMut(ComponentKind, i64, f64, Subs) -> f64,
) -> f64 {
    let p = &ctx.cfg.params;
    let total_req = job.total_held();
    let procs = job.procs() as f64;
    component(
        ComponentKind::Res,
        p.res_weight,
        p.res_cap,
        &[
            // NODEWEIGHT applies only when the job asked for a node count (guide, NODEWEIGHT).
            ("NODE", job.nodes.unwrap_or(0) as f64, p.node_weight as f64),
            ("PROC", procs, p.proc_weight as f64),
            ("MEM", total_req.mem as f64, p.mem_weight as f64),
            ("SWAP", total_req.swap as f64, p.swap_weight as f64),
            ("DISK", total_req.disk as f64, p.disk_weight as f64),
            ("PS", procs * walltime as f64, p.ps_weight as f64),
            (
                "PE",
                processor_equivalents(&total_req, &ctx.total),
                p.pe_weight as f64,
            ),
            ("WALLTIME", walltime as f64, p.walltime_weight as f64),
        ],
    )
}

/// SERV: the service the job has had (queue time, expansion factor,
/// bypasses); the QOS adds to the subcomponent weights.
#[inline(always)]
fn serv_component(
    p: &Params,
    job: &Job,
    terms: &CredTerms,
    eff: Secs,
    xf: f64,
    component: &mut impl FnMut(ComponentKind, i64, f64, Subs) -> f64,
) -> f64 {
    component(
        ComponentKind::Serv,
        p.serv_weight,
        p.serv_cap,
        &[
            (
                "QUEUETIME",
                opt_cap(eff as f64 / 60.0, p.queuetime_cap),
                (p.queuetime_weight + terms.qt_weight.unwrap_or(0)) as f64,
            ),
            (
                "XFACTOR",
                opt_cap(xf, p.xfactor_cap),
                (p.xfactor_weight + terms.xf_weight.unwrap_or(0)) as f64,
            ),
            (
                "BYPASS",
                opt_cap(job.bypass_count as f64, p.bypass_cap),
                p.bypass_weight as f64,
            ),
        ],
    )
}

/// TARG: how close the job is to its QOS's queue time and expansion
/// factor targets.
#[inline(always)]
fn targ_component(
    p: &Params,
    terms: &CredTerms,
    eff: Secs,
    xf: f64,
    component: &mut impl FnMut(ComponentKind, i64, f64, Subs) -> f64,
) -> f64 {
    let tq = terms
        .qt_target
        .filter(|t| *t > 0)
        .map_or(0.0, |t| target_value(eff as f64 / t as f64));
    let tx = terms.xf_target.map_or(0.0, |t| {
        if t > 1.0 {
            target_value((xf - 1.0) / (t - 1.0))
        } else {
            // A target of 1.0 is missed as soon as the job waits at all.
            target_value(1.0 + (xf - 1.0))
        }
    });
    component(
        ComponentKind::Targ,
        p.targ_weight,
        p.targ_cap,
        &[
            ("TARGETQUEUETIME", tq, p.target_queuetime_weight as f64),
            ("TARGETXFACTOR", tx, p.target_xfactor_weight as f64),
        ],
    )
}

/// USAGE: what an active job has used and has left (0 for others).
#[inline(always)]
fn usage_component(
    ctx: &PriorityContext,
    job: &Job,
    walltime: Secs,
    component: &mut impl FnMut(ComponentKind, i64, f64, Subs) -> f64,
) -> f64 {
    let p = &ctx.cfg.params;
    let procs = job.procs() as f64;
    let (consumed, remaining, percent, exec) = match job.start_time {
        Some(start) if job.state.is_active() => {
            let elapsed = (ctx.now - start).max(0) as f64;
            (
                procs * elapsed,
                procs * (walltime as f64 - elapsed).max(0.0),
                percent_of(elapsed, walltime as f64),
                elapsed,
            )
        }
        _ => (0.0, 0.0, 0.0, 0.0),
    };
    component(
        ComponentKind::Usage,
        p.usage_weight,
        p.usage_cap,
        &[
            ("CONSUMED", consumed, p.usage_consumed_weight as f64),
            ("REMAINING", remaining, p.usage_remaining_weight as f64),
            ("PERCENT", percent, p.usage_percent_weight as f64),
            ("EXECUTIONTIME", exec, p.usage_executiontime_weight as f64),
        ],
    )
}

/// The sum of the components bounded and cut to an integer, and the
/// priority that counts: a system priority (setspri) puts the job above
/// every calculated one. The lower bound is 1 unless ENABLENEGJOBPRIORITY or
/// REJECTNEGPRIOJOBS is set, as in Maui 3.3's `MJobGetStartPriority`
/// (MPriority.c): with REJECTNEGPRIOJOBS alone a priority may still go
/// negative, and the job is then refused. The cut is toward zero, as Maui's
/// `J->StartPriority = (unsigned long)tmpD` (MQueue.c) stores it: 1.9 and
/// 1.2 tie at 1, and -4.7 is -4. Jobs that tie keep their queue order.
#[inline(always)]
fn final_priority(p: &Params, job: &Job, raw: f64) -> (i64, i64) {
    let lower = if p.enable_neg_job_priority || p.reject_neg_prio_jobs {
        -MAX_PRIO_VAL
    } else {
        1
    };
    let calculated = if raw.is_nan() {
        lower.max(0)
    } else {
        // f64 -> i64 `as` cuts toward zero and saturates; the clamp then
        // bounds it.
        (raw as i64).clamp(lower, MAX_PRIO_VAL)
    };
    let priority = match job.system_priority {
        Some(sp) => MAX_PRIO_VAL.saturating_add(sp),
        None => calculated,
    };
    (calculated, priority)
}
