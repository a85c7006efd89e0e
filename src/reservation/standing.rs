//! Standing reservations: SRCFG turned into a series of reservations.
//!
//! Seed 7.1.5.2.3: a standing reservation is enforced by DEPTH reservations,
//! one per period (DAY or WEEK), starting with the current period; at each
//! period boundary the oldest expires and one more period is created ("at
//! midnight, the reservations will roll"). PERIOD=INFINITY is one permanent
//! reservation. A reservation smaller than it should be (resources already
//! held, for instance by a job reserved days ahead) is topped up at every
//! iteration until it is complete.
//!
//! Days and weeks are the site's local ones (the configuration's zone);
//! weeks start on Sunday 00:00, so a week offset `1:08:00:00` is Monday
//! 08:00 local time. DEPTH counts periods, not instances: with
//! DAYS=MON,...,FRI and DEPTH=2, on a Friday only Friday's instance exists
//! (Saturday is the second period).

use super::{place, NodeChooser, PlaceOutcome, ResKind, ResRequest, Reservation};
use crate::config::{SrCfg, SrPeriod};
use crate::model::time::{Zone, DAY, WEEK};
use crate::model::{Cluster, Time};
use crate::profile::{JobIdx, Profile, ResIdx, INFINITY};
use std::collections::BTreeMap;

/// One instance of a standing reservation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Instance {
    /// Period number (days or weeks since the epoch; 0 for INFINITY).
    pub number: i64,
    /// Start.
    pub start: Time,
    /// End ([`INFINITY`] for PERIOD=INFINITY).
    pub end: Time,
}

/// Start of the Sunday-based local week holding `t`.
#[cfg(test)]
pub fn week_start(t: Time, zone: &Zone) -> Time {
    let l = zone.local(t);
    zone.at(l.days - l.weekday as i64, 0)
}

/// The instances a standing reservation has at `now`: one per period of the
/// DEPTH periods starting with the current one, on the configured DAYS,
/// except those already over. PERIOD=INFINITY gives one instance from `now`.
///
/// Periods are local days and weeks in `zone`, and STARTTIME/ENDTIME are
/// local clock times: `STARTTIME=8:30:00` is 08:30 on the site's clocks,
/// on the days daylight saving starts and ends too (a day is then 23 or 25
/// hours long, and a default ENDTIME is the next local midnight).
pub fn instance_windows(sr: &SrCfg, now: Time, zone: &Zone) -> Vec<Instance> {
    let depth = sr.depth.max(1) as i64;
    let today = zone.local(now);
    match sr.period {
        SrPeriod::Infinity => vec![Instance {
            number: 0,
            start: now,
            end: INFINITY,
        }],
        SrPeriod::Day => (today.days..today.days + depth)
            .filter_map(|d| {
                let wd = (d + 4).rem_euclid(7) as u32;
                if let Some(days) = &sr.days {
                    if !days.iter().any(|x| x.number() == wd) {
                        return None;
                    }
                }
                let inst = Instance {
                    number: d,
                    start: zone.at(d, sr.start),
                    end: zone.at(d, sr.end.unwrap_or(DAY)),
                };
                (inst.end > now).then_some(inst)
            })
            .collect(),
        SrPeriod::Week => {
            let sunday = today.days - today.weekday as i64;
            (0..depth)
                .filter_map(|k| {
                    let base = sunday + 7 * k;
                    let inst = Instance {
                        number: (base + 4).div_euclid(7),
                        start: zone.at(base, sr.start),
                        end: zone.at(base, sr.end.unwrap_or(WEEK)),
                    };
                    (inst.end > now).then_some(inst)
                })
                .collect()
        }
    }
}

/// The first time after `t` at which the standing reservations' instances
/// change: one begins or ends, or a new local day (PERIOD=DAY) or week
/// (PERIOD=WEEK) brings a further instance within DEPTH. `None` when none
/// ever does (no standing reservations, or PERIOD=INFINITY only, whose one
/// instance runs from each iteration's `now` on). Between `t` and that
/// time every iteration rolls the same instances with the same windows.
pub fn next_change(standing: &BTreeMap<String, SrCfg>, zone: &Zone, t: Time) -> Option<Time> {
    let today = zone.local(t);
    let mut next: Option<Time> = None;
    let mut at = |x: Time| {
        if x > t {
            next = Some(next.map_or(x, |n| n.min(x)));
        }
    };
    for sr in standing.values() {
        match sr.period {
            SrPeriod::Infinity => continue,
            SrPeriod::Day => at(zone.at(today.days + 1, 0)),
            SrPeriod::Week => at(zone.at(today.days - today.weekday as i64 + 7, 0)),
        }
        for inst in instance_windows(sr, t, zone) {
            at(inst.start);
            at(inst.end);
        }
    }
    next
}

/// When the instance named `id` (`name.number`, as
/// [`instance_reservation`] names them) of a standing reservation in
/// `standing` ends; `None` for an unknown name or a PERIOD=INFINITY one.
pub fn instance_end(standing: &BTreeMap<String, SrCfg>, id: &str, zone: &Zone) -> Option<Time> {
    let (name, number) = id.rsplit_once('.')?;
    let (sr, number) = (standing.get(name)?, number.parse::<i64>().ok()?);
    match sr.period {
        SrPeriod::Infinity => None,
        SrPeriod::Day => Some(zone.at(number, sr.end.unwrap_or(DAY))),
        // Week `number` starts on Sunday, day 7 * number - 4 (day 0, the
        // epoch, was a Thursday).
        SrPeriod::Week => Some(zone.at(7 * number - 4, sr.end.unwrap_or(WEEK))),
    }
}

/// A fresh (unplaced) reservation for one instance of SRCFG[name].
pub fn instance_reservation(name: &str, sr: &SrCfg, inst: Instance) -> Reservation {
    let mut r = Reservation::new(
        format!("{name}.{}", inst.number),
        ResKind::Standing {
            name: name.to_string(),
            instance: inst.number,
        },
        inst.start,
        inst.end,
        sr.acl.clone(),
        ResRequest::from_sr(sr),
    );
    r.flags = sr.flags.clone();
    r.owner = sr.owner.clone();
    r.access = sr.access;
    r.priority = sr.priority;
    r.charge_account = sr.charge_account.clone();
    r
}

/// What [`StandingSet::roll`] changed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Roll {
    /// Instances created.
    pub created: Vec<String>,
    /// Instances removed (expired, or no longer configured as they were).
    pub removed: Vec<String>,
}

/// The live instances of every standing reservation, kept across
/// iterations so partial ones can be topped up.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct StandingSet {
    instances: Vec<Reservation>,
}

impl StandingSet {
    /// No instances.
    pub fn new() -> StandingSet {
        StandingSet::default()
    }

    /// The instances, in placement order: non-floating ones first (they take
    /// their hosts regardless, so floating ones can then avoid them rather
    /// than stack), then by PRIORITY (highest first), name and start.
    pub fn instances(&self) -> &[Reservation] {
        &self.instances
    }

    /// Brings the set to `now`: drops instances that are over or whose
    /// SRCFG changed or vanished, creates the missing ones (unplaced).
    pub fn roll(&mut self, standing: &BTreeMap<String, SrCfg>, zone: &Zone, now: Time) -> Roll {
        let mut want: BTreeMap<String, Reservation> = BTreeMap::new();
        for (name, sr) in standing {
            for inst in instance_windows(sr, now, zone) {
                let r = instance_reservation(name, sr, inst);
                want.insert(r.id.clone(), r);
            }
        }
        let mut out = Roll::default();
        let mut kept = Vec::new();
        for r in std::mem::take(&mut self.instances) {
            match want.get(&r.id) {
                // INFINITY instances keep their first start.
                Some(w) if same_definition(&r, w) => {
                    want.remove(&r.id);
                    kept.push(r);
                }
                _ => out.removed.push(r.id),
            }
        }
        for (id, r) in want {
            out.created.push(id);
            kept.push(r);
        }
        kept.sort_by(|a, b| {
            (
                a.request.is_floating(),
                -a.priority,
                a.standing_name(),
                a.start,
            )
                .cmp(&(
                    b.request.is_floating(),
                    -b.priority,
                    b.standing_name(),
                    b.start,
                ))
        });
        self.instances = kept;
        out
    }

    /// Sets each instance's claims from `claims_of(id)`: the claims it held
    /// before a restart or in the previous iteration (nodes by index of the
    /// current cluster). Newly created instances get nothing and are placed
    /// by [`StandingSet::place`]. Saved claims name no generic resources
    /// (state files carry resource vectors without them), so a claim's
    /// generic resources are its tasks' on `cluster`.
    pub fn set_claims(
        &mut self,
        cluster: &Cluster,
        mut claims_of: impl FnMut(&str) -> Vec<super::NodeClaim>,
    ) {
        for r in &mut self.instances {
            r.claims = claims_of(&r.id);
            if r.request.resources.gres.is_empty() {
                continue;
            }
            let gres = r.request.resolved_gres(cluster);
            for c in &mut r.claims {
                let node = &cluster.nodes[c.node as usize];
                c.resources.gres = gres
                    .map(|g| r.request.task_with(g, node))
                    .and_then(|t| t.checked_mul(c.tasks))
                    .map_or(crate::model::GresCounts::ZERO, |t| t.gres);
            }
        }
    }

    /// Re-applies every instance's claims to the profile and tops up the
    /// partial ones, in placement order. Instance `i` is reservation
    /// `first + i` in the profile (the caller's table must use the same
    /// indexes). `admits_job` tells whether a reservation admits a job of
    /// the profile (running jobs it admits count against its claim).
    ///
    /// `before_floating` adds to the profile once the non-floating
    /// instances hold their hosts and before the floating ones are placed.
    /// A non-floating instance takes its hosts "no matter what" (seed
    /// 7.1.5.2.5), so what the caller adds there (job reservations carried
    /// from the last iteration) keeps only the floating instances off. It
    /// is added only when an instance from the first floating one on could
    /// see it: one short of tasks (its top-up chooses nodes by what is
    /// free) or one whose claims it meets ([`BeforeFloating::meets`]).
    /// Claims it does not meet land the same with it or without, and the
    /// caller takes what it added out again, so where no instance could
    /// see it the profile is the same without adding it at all.
    pub fn place(
        &mut self,
        first: ResIdx,
        cluster: &Cluster,
        profile: &mut Profile,
        chooser: &dyn NodeChooser,
        admits_job: &dyn Fn(&Reservation, JobIdx) -> bool,
        before_floating: &mut dyn BeforeFloating,
    ) -> Vec<PlaceOutcome> {
        let mut outcomes = Vec::with_capacity(self.instances.len());
        let (mut floating, mut added) = (false, false);
        for (i, r) in self.instances.iter_mut().enumerate() {
            floating |= r.request.is_floating();
            if floating && !added && (r.is_partial(cluster) || before_floating.meets(r)) {
                added = true;
                before_floating.add(profile);
            }
            outcomes.push(place::ensure(
                r,
                first + i as ResIdx,
                cluster,
                profile,
                chooser,
                admits_job,
            ));
        }
        outcomes
    }
}

/// What [`StandingSet::place`] adds to the profile before the floating
/// instances, to be taken out again by the caller afterwards.
pub trait BeforeFloating {
    /// Adds it to the profile.
    fn add(&mut self, profile: &mut Profile);
    /// Whether it could change how `r`'s claims land: it holds something
    /// on a node of theirs over a time that overlaps `r`.
    fn meets(&self, r: &Reservation) -> bool;
}

/// Nothing to add.
impl BeforeFloating for () {
    fn add(&mut self, _: &mut Profile) {}
    fn meets(&self, _: &Reservation) -> bool {
        false
    }
}

/// True when an existing instance still matches its configuration.
fn same_definition(have: &Reservation, want: &Reservation) -> bool {
    have.kind == want.kind
        && have.end == want.end
        && (have.end == INFINITY || have.start == want.start)
        && have.acl == want.acl
        && have.request == want.request
        && have.flags == want.flags
        && have.owner == want.owner
        && have.access == want.access
        && have.priority == want.priority
        && have.charge_account == want.charge_account
}
