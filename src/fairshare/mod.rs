//! Fairshare: historical usage per credential in FSINTERVAL windows.
//!
//! Every iteration the caller accrues the usage of running jobs (FSPOLICY:
//! dedicated processor-seconds, dedicated processor-equivalent-seconds, or
//! utilized processor-seconds as the RM reports them) into the current
//! window, per USER, GROUP, ACCOUNT, QOS and CLASS and in TOTAL (suspended
//! jobs hold no processors and accrue nothing). Windows are
//! aligned to multiples of FSINTERVAL since the epoch, so a restart, a
//! second scheduler or the simulator all cut time at the same boundaries and
//! a window's file name (`FS.<start>`) is predictable. A window opens at
//! the first iteration at or after its boundary, once that iteration has
//! decided, as in Maui: the span since the previous iteration is charged
//! to the window current then ([`Fairshare::accrue`]).
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
//!
//! The state keeps each credential name as a small id of its kind
//! ([`CredNames`]) and each window's usage as vectors indexed by id, so
//! accruing a job's usage and reading a credential's are indexing, not
//! string comparisons; names come back only where windows are written or
//! shown ([`Window`]: files, serde, `diagnose -f`).

pub mod diagnose;
#[cfg(test)]
mod tests;

pub use diagnose::{diagnose_f_report, render_diagnose_f};

use crate::config::{Config, FsCap, FsMetric};
use crate::model::cred::CredNames;
use crate::model::{CredKind, Job, JobState, Resources, Secs, Time};
use crate::priority::{cred_attr, cred_name, processor_equivalents, FairshareView};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Most windows kept and considered: Maui 3.3's MAX_MFSDEPTH
/// (`include/moab.h`); a larger FSDEPTH is cut to it, as Maui's `MFSProcessConfig` does.
pub const MAX_FSDEPTH: usize = 24;

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
}

/// One window as the state keeps it: a [`Window`] whose names are ids
/// of the state's tables ([`CredNames`]), so that accruing and reading a
/// credential's usage is indexing a vector.
#[derive(Clone, Debug, Default)]
struct Slots {
    start: Time,
    duration: Secs,
    /// Usage per kind (`CredKind as usize`) by id; `None`: no entry.
    usage: [Vec<Option<f64>>; 5],
    total: f64,
    dirty: bool,
    /// `usage` and `total` as the fairshare journal last recorded them
    /// ([`Fairshare::journal_changes`]).
    journaled: [Vec<Option<f64>>; 5],
    journaled_total: f64,
}

impl Slots {
    fn get(&self, k: usize, id: Option<u32>) -> f64 {
        id.and_then(|i| self.usage[k].get(i as usize).copied().flatten())
            .unwrap_or(0.0)
    }

    /// A credential's usage, 0 when it had none yet.
    fn slot(&mut self, k: usize, id: u32) -> &mut f64 {
        let v = &mut self.usage[k];
        if v.len() <= id as usize {
            v.resize(id as usize + 1, None);
        }
        v[id as usize].get_or_insert(0.0)
    }
}

/// Fairshare state: the windows, most recent first, by credential id;
/// read and written by name ([`Window`]: files, serde, reports).
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(from = "ByName", into = "ByName")]
pub struct Fairshare {
    /// Ids of the names in the windows, by kind (`CredKind as usize`).
    names: [CredNames; 5],
    windows: Vec<Slots>,
}

/// The state by name, as serde reads and writes it.
#[derive(Serialize, Deserialize)]
struct ByName {
    windows: Vec<Window>,
}

impl From<ByName> for Fairshare {
    fn from(b: ByName) -> Fairshare {
        Fairshare::from_windows(b.windows)
    }
}

impl From<Fairshare> for ByName {
    fn from(fs: Fairshare) -> ByName {
        ByName {
            windows: fs.windows(),
        }
    }
}

impl PartialEq for Fairshare {
    fn eq(&self, other: &Fairshare) -> bool {
        self.windows() == other.windows()
    }
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

/// FSINTERVAL in seconds (at least one).
pub(crate) fn interval(cfg: &Config) -> Secs {
    cfg.params.fs_interval.0.max(1)
}

/// FSDEPTH bounded to 1..=[`MAX_FSDEPTH`].
pub fn depth(cfg: &Config) -> usize {
    (cfg.params.fs_depth as usize).clamp(1, MAX_FSDEPTH)
}

/// Resources a running job has dedicated: what its allocation holds
/// (generic resources included), or its request when the RM gave no
/// placement.
fn dedicated(job: &Job) -> Resources {
    let tasks: u32 = job.allocation.iter().map(|a| a.tasks).sum();
    let mut d = if tasks > 0 {
        job.task.checked_mul(tasks).unwrap_or_else(|| job.total())
    } else {
        job.total()
    };
    // What it holds per node (a per-node GRES request) beyond its tasks.
    d.gres = d
        .gres
        .map(&job.node_gres_total(), |a, b| a.saturating_add(b));
    d
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
        let mut fs = Fairshare::default();
        let slots = windows.into_iter().map(|w| fs.slots(w)).collect();
        fs.windows = slots;
        fs
    }

    /// `w` with its names as ids (given to new names).
    fn slots(&mut self, w: Window) -> Slots {
        let mut s = Slots {
            start: w.start,
            duration: w.duration,
            total: w.total,
            dirty: w.dirty,
            ..Slots::default()
        };
        for (kind, m) in w.usage {
            let k = kind as usize;
            for (name, v) in m {
                *s.slot(k, self.names[k].id(Some(&name))) = v;
            }
        }
        s
    }

    /// `s` by name.
    fn named(&self, s: &Slots) -> Window {
        let mut usage: BTreeMap<CredKind, BTreeMap<String, f64>> = BTreeMap::new();
        for kind in CredKind::ALL {
            let k = kind as usize;
            for (id, v) in s.usage[k].iter().enumerate() {
                if let (Some(v), Some(name)) = (v, self.names[k].name(id as u32)) {
                    usage.entry(kind).or_default().insert(name.to_string(), *v);
                }
            }
        }
        Window {
            start: s.start,
            duration: s.duration,
            usage,
            total: s.total,
            dirty: s.dirty,
        }
    }

    /// The windows by name, most recent first (index 0 is the current
    /// window).
    pub fn windows(&self) -> Vec<Window> {
        self.windows.iter().map(|s| self.named(s)).collect()
    }

    /// Windows changed since last written, by name (see
    /// [`Fairshare::save_dir`]).
    pub(crate) fn dirty_windows(&self) -> Vec<Window> {
        self.windows
            .iter()
            .filter(|s| s.dirty)
            .map(|s| self.named(s))
            .collect()
    }

    /// What changed since the last call, for the fairshare journal
    /// ([`crate::persist::journal`]): for each window changed since it was
    /// last written to its file, the credentials whose usage changed since
    /// the last call, with their values (not the differences, so replaying
    /// a record twice does no harm), and the window's TOTAL. Windows with
    /// no change are left out. Reads only the changed windows.
    pub(crate) fn journal_changes(&mut self) -> Vec<Window> {
        let mut out = Vec::new();
        for s in self.windows.iter_mut().filter(|s| s.dirty) {
            let mut usage: BTreeMap<CredKind, BTreeMap<String, f64>> = BTreeMap::new();
            for kind in CredKind::ALL {
                let k = kind as usize;
                for (id, v) in s.usage[k].iter().enumerate() {
                    let Some(v) = *v else { continue };
                    if s.journaled[k].get(id).copied().flatten() == Some(v) {
                        continue;
                    }
                    if let Some(name) = self.names[k].name(id as u32) {
                        usage.entry(kind).or_default().insert(name.to_string(), v);
                    }
                }
            }
            if usage.is_empty() && s.total == s.journaled_total {
                continue;
            }
            s.journaled = s.usage.clone();
            s.journaled_total = s.total;
            out.push(Window {
                start: s.start,
                duration: s.duration,
                usage,
                total: s.total,
                dirty: false,
            });
        }
        out
    }

    /// Applies the windows of a journal record
    /// ([`Fairshare::journal_changes`]): each credential given takes its
    /// value, the window its TOTAL and duration; a window not held yet is
    /// added. Applied windows are marked to be written to their files.
    pub(crate) fn replay(&mut self, changes: &[Window]) {
        let mut ws = self.windows();
        for c in changes {
            match ws.iter_mut().find(|w| w.start == c.start) {
                Some(w) => {
                    w.duration = c.duration;
                    w.total = c.total;
                    for (kind, m) in &c.usage {
                        let into = w.usage.entry(*kind).or_default();
                        for (name, v) in m {
                            into.insert(name.clone(), *v);
                        }
                    }
                    w.dirty = true;
                }
                None => ws.push(Window {
                    dirty: true,
                    ..c.clone()
                }),
            }
        }
        *self = Fairshare::from_windows(ws);
    }

    /// Marks the window starting at `start` written.
    pub(crate) fn written(&mut self, start: Time) {
        for s in self.windows.iter_mut().filter(|s| s.start == start) {
            s.dirty = false;
        }
    }

    /// Makes the window holding `t` the current one, opening it if `t` is
    /// past the current window's interval.
    fn roll_to(&mut self, cfg: &Config, t: Time) {
        let i = interval(cfg);
        let ws = window_start(t, i);
        if self.windows.first().is_none_or(|w| ws > w.start) {
            self.windows.insert(
                0,
                Slots {
                    start: ws,
                    duration: i,
                    dirty: true,
                    ..Slots::default()
                },
            );
            self.windows.truncate(MAX_FSDEPTH);
        }
    }

    /// Names known per kind (`CredKind as usize`).
    #[cfg(test)]
    pub(crate) fn names_known(&self, kind: CredKind) -> usize {
        self.names[kind as usize].len()
    }

    /// Accrues the usage of the running jobs among `jobs` over `[since, now)`
    /// (`since`: the last iteration), and of `finished` jobs (those the RM
    /// reports ended, with their start and end times) over their part of
    /// `[since, end)`: so a job is charged its exact use from its real start
    /// to its real end, however long between iterations, even one that
    /// started and ended between two. A finished job reported again at a
    /// later iteration adds nothing (its end is before `since` then).
    /// `total` is the cluster's configured resources (for DEDICATEDPES).
    /// Does nothing under FSPOLICY NONE: usage is not tracked at all then.
    ///
    /// A window opens at the first iteration at or after its boundary, once
    /// that iteration has decided, as Maui 3.3 rotates its windows at the
    /// end of an iteration (`ServerProcessRequests`, Server.c): so the span
    /// since the last iteration goes to the window current then, and this
    /// iteration's priorities still read it as the current one. The window
    /// holding `now` opens at the next call, even when nothing runs. A span
    /// longer than that (the scheduler did not run for a while) is split at
    /// the boundaries before the last, so each interval it covers still
    /// gets its window.
    pub fn accrue(
        &mut self,
        cfg: &Config,
        jobs: &[Job],
        finished: &[Job],
        total: &Resources,
        since: Time,
        now: Time,
    ) {
        if cfg.params.fs_policy.metric.is_none() {
            return;
        }
        let i = interval(cfg);
        let last_window = window_start(now, i);
        // Anything older than MAX_FSDEPTH windows would be dropped anyway.
        let mut t = since.min(now).max(last_window - (MAX_FSDEPTH as Secs) * i);
        let oldest = self.windows.last().map(|w| w.start);
        self.roll_to(cfg, t);
        let mut last: [Option<(&str, u32)>; 5] = [None; 5];
        // (ids, rate, from, to): running jobs up to now, finished ones up
        // to their end.
        let running: Vec<([u32; 5], f64, Time, Time)> = jobs
            .iter()
            .filter(|j| j.state == JobState::Running)
            .map(|j| (j, now))
            .chain(finished.iter().filter_map(|j| {
                let to = j.end_time?.min(now);
                (j.start_time?.max(since) < to).then_some((j, to))
            }))
            .map(|(j, to)| {
                (
                    j,
                    job_rate(cfg, j, total),
                    j.start_time.unwrap_or(since),
                    to,
                )
            })
            .filter(|(_, r, _, _)| *r > 0.0)
            .map(|(j, r, from, to)| (self.job_ids(&mut last, j), r, from, to))
            .collect();
        while t < now {
            // The window before `now`'s keeps the span up to `now`.
            let end = match window_start(t, i) + i {
                e if e >= last_window => now,
                e => e,
            };
            self.roll_to(cfg, t);
            let w = &mut self.windows[0];
            // Each credential's usage takes its jobs' amounts in job order.
            for (ids, rate, start, stop) in &running {
                let (from, to) = (t.max(*start), end.min(*stop));
                if from >= to {
                    continue;
                }
                let amount = rate * (to - from) as f64;
                for (k, &id) in ids.iter().enumerate().filter(|(_, id)| **id > 0) {
                    *w.slot(k, id) += amount;
                }
                w.total += amount;
                w.dirty = true;
            }
            t = end;
        }
        if self.windows.len() == MAX_FSDEPTH && self.windows.last().map(|w| w.start) != oldest {
            // A window rolled out, and with it the names only it held: the
            // ids are given again, so the tables do not grow with every
            // user who ever ran. (Not in `roll_to`: the ids of `running`
            // must hold until the last window is accrued.)
            *self = Fairshare::from_windows(self.windows());
        }
    }

    /// A running job's credential ids (kind by kind, `CredKind as usize`;
    /// 0: none), given to new names; consecutive jobs of one credential (a
    /// user's batch, the one class) share a look-up through `last`.
    fn job_ids<'j>(&mut self, last: &mut [Option<(&'j str, u32)>; 5], job: &'j Job) -> [u32; 5] {
        std::array::from_fn(|k| {
            let Some(name) = cred_name(job, CredKind::ALL[k]) else {
                return 0;
            };
            match last[k] {
                Some((n, id)) if n == name => id,
                _ => {
                    let id = self.names[k].id(Some(name));
                    last[k] = Some((name, id));
                    id
                }
            }
        })
    }

    /// Decay-weighted sums `(Σ decay^i · cred[i], Σ decay^i · total[i])` over
    /// the FSDEPTH most recent windows.
    pub fn decayed(&self, cfg: &Config, kind: CredKind, name: &str) -> (f64, f64) {
        let k = kind as usize;
        let id = self.names[k].get(name);
        let decay = cfg.params.fs_decay.0;
        let mut w = 1.0;
        let (mut num, mut den) = (0.0, 0.0);
        for win in self.windows.iter().take(depth(cfg)) {
            num += w * win.get(k, id);
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
