//! Fairshare: historical usage per credential in FSINTERVAL windows.
//!
//! Every iteration the caller accrues the usage of running jobs (FSPOLICY:
//! dedicated processor-seconds, dedicated processor-equivalent-seconds, or
//! utilized processor-seconds as the RM reports them) into the current
//! window, per USER, GROUP, ACCOUNT, QOS and CLASS and in TOTAL (suspended
//! jobs hold no processors and accrue nothing). Windows are
//! aligned to multiples of FSINTERVAL since the epoch, so a restart, a
//! second scheduler or the simulator all cut time at the same boundaries and
//! a window's file name (`FS.<start>`) is predictable. Accrual over a span
//! that crosses a boundary is split at it; every interval the span covers
//! gets its window, empty or not.
//!
//! A credential's usage is the decay-weighted share of the most recent
//! FSDEPTH windows (guide 6.3.2.3), window 0 being the current one:
//!
//! ```text
//! Usage = Σ decay^i · cred[i] / Σ decay^i · total[i]      (i < FSDEPTH)
//! ```
//!
//! Windows are indexed in order of recency, not by elapsed time: intervals
//! during which no scheduler ran have no window, as in Maui, and windows
//! loaded from files written under another FSINTERVAL are used as they are
//! until they roll out. At most [`MAX_FSDEPTH`] windows are kept.
//!
//! FSCAP turns fairshare into a feasibility test ([`Fairshare::fs_cap_exceeded`]).
//! Window files are read with [`Fairshare::load_dir`] and written with
//! [`Fairshare::save_dir`] (format in [`crate::persist::fairshare`]).

pub mod diagnose;
#[cfg(test)]
mod tests;

pub use diagnose::{diagnose_f_report, render_diagnose_f};

use crate::config::{Config, FsCap, FsMetric};
use crate::model::{CredKind, Job, JobState, Resources, Secs, Time};
use crate::priority::{cred_attr, cred_name, processor_equivalents, FairshareView};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Most windows kept and considered (Maui 3.2.7's MAX_FSDEPTH).
pub const MAX_FSDEPTH: usize = 32;

/// Usage recorded during one fairshare window.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Window {
    /// Start of the window (epoch seconds): a multiple of `duration` for
    /// windows mauisched opened.
    pub start: Time,
    /// FSINTERVAL in force when the window was opened (seconds).
    pub duration: Secs,
    /// Usage per credential, in the FSPOLICY metric.
    pub usage: BTreeMap<CredKind, BTreeMap<String, f64>>,
    /// Usage of all jobs.
    pub total: f64,
    /// Changed since last written.
    #[serde(skip)]
    pub(crate) dirty: bool,
}

impl Window {
    /// A credential's usage in this window (0 when it has none).
    pub fn get(&self, kind: CredKind, name: &str) -> f64 {
        self.usage
            .get(&kind)
            .and_then(|m| m.get(name))
            .copied()
            .unwrap_or(0.0)
    }

    /// A credential's usage, 0 when it had none yet.
    fn slot(&mut self, kind: CredKind, name: &str) -> &mut f64 {
        let m = self.usage.entry(kind).or_default();
        if !m.contains_key(name) {
            m.insert(name.to_string(), 0.0);
        }
        m.get_mut(name).expect("inserted above")
    }
}

/// Fairshare state: the windows, most recent first.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Fairshare {
    pub(crate) windows: Vec<Window>,
}

/// A job kept from starting by a fairshare cap (FSCAP).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FsCapViolation {
    /// Credential kind whose cap is reached.
    pub kind: CredKind,
    /// Credential name.
    pub name: String,
    /// Its usage: percent of delivered usage for a percentage cap, else the
    /// decay-weighted amount in the FSPOLICY metric.
    pub usage: f64,
    /// The cap in force.
    pub cap: FsCap,
}

impl std::fmt::Display for FsCapViolation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.cap.percent {
            write!(
                f,
                "fairshare cap reached: {} {} has used {:.2}% of delivered usage (FSCAP {}%)",
                self.kind, self.name, self.usage, self.cap.value
            )
        } else {
            write!(
                f,
                "fairshare cap reached: {} {} has used {:.1} (FSCAP {})",
                self.kind, self.name, self.usage, self.cap.value
            )
        }
    }
}

/// Start of the FSINTERVAL window containing `t`.
pub fn window_start(t: Time, interval: Secs) -> Time {
    let i = interval.max(1);
    t.div_euclid(i) * i
}

fn interval(cfg: &Config) -> Secs {
    cfg.params.fs_interval.0.max(1)
}

/// FSDEPTH bounded to 1..=[`MAX_FSDEPTH`].
pub fn depth(cfg: &Config) -> usize {
    (cfg.params.fs_depth as usize).clamp(1, MAX_FSDEPTH)
}

/// Processors a running job has dedicated: what its allocation holds, or
/// its request when the RM gave no placement.
fn dedicated(job: &Job) -> Resources {
    let tasks: u32 = job.allocation.iter().map(|a| a.tasks).sum();
    if tasks > 0 {
        job.task.checked_mul(tasks).unwrap_or_else(|| job.total())
    } else {
        job.total()
    }
}

/// Usage per second of a running job under FSPOLICY (0 when fairshare
/// tracking is off): dedicated processors (DEDICATEDPS), dedicated processor
/// equivalents (DEDICATEDPES) or the processors the RM measures in use
/// (UTILIZEDPS; dedicated ones when the RM does not report it).
pub fn job_rate(cfg: &Config, job: &Job, total: &Resources) -> f64 {
    let d = dedicated(job);
    match cfg.params.fs_policy.metric {
        None => 0.0,
        Some(FsMetric::DedicatedPs) => d.procs as f64,
        Some(FsMetric::DedicatedPes) => processor_equivalents(&d, total),
        Some(FsMetric::UtilizedPs) => job
            .utilized_procs
            .filter(|u| u.is_finite() && *u >= 0.0)
            .unwrap_or(d.procs as f64),
    }
}

impl Fairshare {
    /// No history.
    pub fn new() -> Fairshare {
        Fairshare::default()
    }

    /// Builds the state from windows in any order (newest kept first).
    pub fn from_windows(mut windows: Vec<Window>) -> Fairshare {
        windows.sort_by_key(|w| std::cmp::Reverse(w.start));
        windows.dedup_by_key(|w| w.start);
        windows.truncate(MAX_FSDEPTH);
        Fairshare { windows }
    }

    /// The windows, most recent first (index 0 is the current window).
    pub fn windows(&self) -> &[Window] {
        &self.windows
    }

    /// Makes the window holding `t` the current one, opening it if `t` is
    /// past the current window's interval.
    fn roll_to(&mut self, cfg: &Config, t: Time) {
        let i = interval(cfg);
        let ws = window_start(t, i);
        if self.windows.first().is_none_or(|w| ws > w.start) {
            self.windows.insert(
                0,
                Window {
                    start: ws,
                    duration: i,
                    dirty: true,
                    ..Window::default()
                },
            );
            self.windows.truncate(MAX_FSDEPTH);
        }
    }

    /// Accrues the usage of the running jobs among `jobs` over `[since, now)`,
    /// splitting it at window boundaries; `total` is the cluster's configured
    /// resources (for DEDICATEDPES). Rolls the window even when nothing runs.
    /// Does nothing under FSPOLICY NONE: usage is not tracked at all then.
    pub fn accrue(
        &mut self,
        cfg: &Config,
        jobs: &[Job],
        total: &Resources,
        since: Time,
        now: Time,
    ) {
        if cfg.params.fs_policy.metric.is_none() {
            return;
        }
        let i = interval(cfg);
        // Anything older than MAX_FSDEPTH windows would be dropped anyway.
        let mut t = since.max(window_start(now, i) - (MAX_FSDEPTH as Secs) * i);
        let running: Vec<(&Job, f64, Time)> = jobs
            .iter()
            .filter(|j| j.state == JobState::Running)
            .map(|j| (j, job_rate(cfg, j, total), j.start_time.unwrap_or(since)))
            .filter(|(_, r, _)| *r > 0.0)
            .collect();
        while t < now {
            let end = now.min(window_start(t, i) + i);
            self.roll_to(cfg, t);
            let w = &mut self.windows[0];
            let amounts: Vec<Option<f64>> = running
                .iter()
                .map(|(_, rate, start)| {
                    let from = t.max(*start);
                    (from < end).then(|| rate * (end - from) as f64)
                })
                .collect();
            // Kind by kind, in job order: each credential's usage takes its
            // jobs' amounts in the order it would job by job (the same
            // sums), and consecutive jobs of one credential (a user's
            // batch, the one class) share a look-up.
            for kind in CredKind::ALL {
                let mut last: Option<(&str, &mut f64)> = None;
                for ((job, _, _), amount) in running.iter().zip(&amounts) {
                    let (Some(amount), Some(name)) = (amount, cred_name(job, kind)) else {
                        continue;
                    };
                    match &mut last {
                        Some((n, v)) if *n == name => **v += amount,
                        _ => {
                            let v = w.slot(kind, name);
                            *v += amount;
                            last = Some((name, v));
                        }
                    }
                }
            }
            for amount in amounts.iter().flatten() {
                w.total += amount;
                w.dirty = true;
            }
            t = end;
        }
        self.roll_to(cfg, now);
    }

    /// Decay-weighted sums `(Σ decay^i · cred[i], Σ decay^i · total[i])` over
    /// the FSDEPTH most recent windows.
    pub fn decayed(&self, cfg: &Config, kind: CredKind, name: &str) -> (f64, f64) {
        let decay = cfg.params.fs_decay.0;
        let mut w = 1.0;
        let (mut num, mut den) = (0.0, 0.0);
        for win in self.windows.iter().take(depth(cfg)) {
            num += w * win.get(kind, name);
            den += w * win.total;
            w *= decay;
        }
        (num, den)
    }

    /// A credential's decayed usage in percent of delivered usage, or `None`
    /// when nothing was delivered in the windows considered.
    pub fn usage(&self, cfg: &Config, kind: CredKind, name: &str) -> Option<f64> {
        let (num, den) = self.decayed(cfg, kind, name);
        (den > 0.0).then(|| 100.0 * num / den)
    }

    /// The first of the job's credentials (USER, GROUP, ACCOUNT, QOS, CLASS)
    /// whose FSCAP is reached: a percentage cap compares with the decayed
    /// usage percentage, an absolute cap with the decay-weighted amount.
    /// Such a job must not start even if resources are free (guide 6.3.3.2).
    pub fn fs_cap_exceeded(&self, cfg: &Config, job: &Job) -> Option<FsCapViolation> {
        CredKind::ALL.iter().find_map(|&kind| {
            let name = cred_name(job, kind)?;
            let cap = cred_attr(cfg, kind, name, |c| c.fs_cap)?;
            let usage = if cap.percent {
                self.usage(cfg, kind, name).unwrap_or(0.0)
            } else {
                self.decayed(cfg, kind, name).0
            };
            (usage >= cap.value).then(|| FsCapViolation {
                kind,
                name: name.to_string(),
                usage,
                cap,
            })
        })
    }
}

impl FairshareView for Fairshare {
    fn usage(&self, cfg: &Config, kind: CredKind, name: &str) -> Option<f64> {
        Fairshare::usage(self, cfg, kind, name)
    }
}
