//! Reservation access: may this job use this reservation's resources?
//!
//! The rules, from seed 7.1.5 and the SRCFG attribute table:
//!
//! - A job reservation admits its own job only.
//! - BYNAME: only jobs that request the reservation (ADVRES) are admitted,
//!   and they still have to meet the ACL.
//! - A `!` (NOT) entry that matches the job excludes it, whatever else matches.
//! - The reservation's OWNER is admitted (positive affinity).
//! - An empty ACL is a SYSTEM reservation: it admits no job.
//! - Lists are OR'ed: one satisfied list admits the job. A list is satisfied
//!   by a matching entry, or, when it has NOT entries, by any value they do
//!   not name. TIMELIMIT is satisfied when the job overlaps the reservation
//!   by at most that long.
//! - Lists marked required (`*`) must all be satisfied, plus at least one
//!   other list if any other is given.
//! - Affinity comes from the matching entries (`+` default, `-`, `=`); when
//!   several match, negative wins over neutral over positive (a "last
//!   resort" marking is never overridden). Lists satisfied only through NOT
//!   entries or TIMELIMIT, and the owner, give positive affinity.
//!
//! Across reservations access is AND'ed: the profile only lets a job use
//! capacity claimed by several reservations when each of them admits it.

use super::{ResKind, Reservation};
use crate::config::{AclList, Affinity, ResFlag};
use crate::model::{CredKind, Job, Secs, Time};
use crate::profile::{Admits, ResIdx, INFINITY};
use std::cell::RefCell;
use std::collections::HashMap;

/// The answer of [`access`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Access {
    /// The job may use the reserved resources, with this affinity.
    Granted(Affinity),
    /// It may not, and why.
    Denied(Denial),
}

impl Access {
    /// True when granted.
    pub fn is_granted(&self) -> bool {
        matches!(self, Access::Granted(_))
    }

    /// The affinity when granted.
    pub fn affinity(&self) -> Option<Affinity> {
        match self {
            Access::Granted(a) => Some(*a),
            Access::Denied(_) => None,
        }
    }
}

/// Why a job may not use a reservation.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Denial {
    /// The reservation belongs to another job.
    #[error("reserved for job {0}")]
    OtherJob(String),
    /// BYNAME and the job does not request it.
    #[error("reservation is BYNAME and the job does not request it (ADVRES)")]
    NotRequested,
    /// Empty ACL: a SYSTEM reservation.
    #[error("system reservation (empty ACL)")]
    System,
    /// The job matches a NOT entry.
    #[error("{list} {value} is excluded (!{value})")]
    Excluded {
        /// The list (`USERLIST`, ...).
        list: &'static str,
        /// The excluded value.
        value: String,
    },
    /// A required list is not satisfied.
    #[error("required {0} not satisfied")]
    RequiredNotMet(&'static str),
    /// The job would overlap the reservation longer than its TIMELIMIT
    /// (and nothing else admits it).
    #[error("overlap {overlap}s exceeds TIMELIMIT {limit}s")]
    TimeLimit {
        /// Overlap of the job with the reservation.
        overlap: Secs,
        /// The limit.
        limit: Secs,
    },
    /// No list admits the job.
    #[error("no ACL entry matches the job")]
    NoMatch,
}

/// Names of the lists in messages.
fn list_name(k: CredKind) -> &'static str {
    match k {
        CredKind::User => "USERLIST",
        CredKind::Group => "GROUPLIST",
        CredKind::Account => "ACCOUNTLIST",
        CredKind::Qos => "QOSLIST",
        CredKind::Class => "CLASSLIST",
    }
}

/// How one list judges the job.
enum ListResult {
    /// Satisfied; `Some` affinity when an entry named the job's value.
    Met(Option<Affinity>),
    Unmet,
}

/// The credential name Maui gives the pseudo-job of its backfill window
/// search (`MBFGetWindow`, MBF.c: user, group and account `[ALL]`);
/// `MACLCheckAccess` (MACL.c) takes it as naming every value of a list,
/// NOT entries included. No user, group or account of an RM can be called
/// so.
pub const ANY_CRED: &str = "[ALL]";

fn eval_list(list: &AclList, values: &[&str], fold_case: bool) -> Result<ListResult, String> {
    let eq = |a: &str, b: &str| {
        if a == ANY_CRED {
            true
        } else if fold_case {
            a.eq_ignore_ascii_case(b)
        } else {
            a == b
        }
    };
    for e in list.entries.iter().filter(|e| e.not) {
        if let Some(v) = values.iter().find(|v| eq(v, &e.name)) {
            return Err(v.to_string());
        }
    }
    let mut explicit: Option<Affinity> = None;
    for e in list.entries.iter().filter(|e| !e.not) {
        if values.iter().any(|v| eq(v, &e.name)) {
            explicit = Some(combine(explicit, e.affinity));
        }
    }
    if explicit.is_some() {
        return Ok(ListResult::Met(explicit));
    }
    if list.entries.iter().any(|e| e.not) {
        return Ok(ListResult::Met(None));
    }
    Ok(ListResult::Unmet)
}

/// Negative over neutral over positive.
fn combine(a: Option<Affinity>, b: Affinity) -> Affinity {
    let rank = |x: Affinity| match x {
        Affinity::Positive => 0,
        Affinity::Neutral => 1,
        Affinity::Negative => 2,
    };
    match a {
        Some(a) if rank(a) >= rank(b) => a,
        _ => b,
    }
}

/// Overlap of `[s0, e0)` with `[s1, e1)`.
pub fn overlap(s0: Time, e0: Time, s1: Time, e1: Time) -> Secs {
    (e0.min(e1).saturating_sub(s0.max(s1))).max(0)
}

/// True when the job belongs to the reservation's owner.
pub fn is_owner(res: &Reservation, job: &Job) -> bool {
    match &res.owner {
        Some((k, id)) => job.cred(*k) == Some(id.as_str()),
        None => false,
    }
}

/// True when the job asks for this reservation (ADVRES names it, or names
/// the standing reservation it is an instance of).
pub fn requests(res: &Reservation, job: &Job) -> bool {
    match &job.advres {
        Some(a) => a == &res.id || res.standing_name() == Some(a.as_str()),
        None => false,
    }
}

/// True when, under OWNERPREEMPT, `preemptor` (an owner's job) may preempt
/// `preemptee` (a non-owner's job using the reservation's resources).
#[cfg(test)]
pub fn may_preempt(res: &Reservation, preemptor: &Job, preemptee: &Job) -> bool {
    res.has_flag(ResFlag::OwnerPreempt) && is_owner(res, preemptor) && !is_owner(res, preemptee)
}

/// May `job`, running over `[job_start, job_end)`, use `res`'s resources?
pub fn access(res: &Reservation, job: &Job, job_start: Time, job_end: Time) -> Access {
    if let ResKind::Job { job: id, .. } = &res.kind {
        return if *id == job.id {
            Access::Granted(Affinity::Positive)
        } else {
            Access::Denied(Denial::OtherJob(id.clone()))
        };
    }
    if res.has_flag(ResFlag::ByName) && !requests(res, job) {
        return Access::Denied(Denial::NotRequested);
    }
    let acl = &res.acl;
    // Evaluate every list; NOT matches exclude at once.
    let mut results: Vec<(&'static str, bool, ListResult)> = Vec::new();
    for (kind, list) in acl.cred_lists() {
        if list.is_empty() {
            continue;
        }
        let values: Vec<&str> = job.cred(kind).into_iter().collect();
        match eval_list(list, &values, false) {
            Err(value) => {
                return Access::Denied(Denial::Excluded {
                    list: list_name(kind),
                    value,
                })
            }
            Ok(r) => results.push((list_name(kind), list.required, r)),
        }
    }
    if !acl.job_attrs.is_empty() {
        let values: Vec<&str> = job.attributes.iter().map(String::as_str).collect();
        match eval_list(&acl.job_attrs, &values, true) {
            Err(value) => {
                return Access::Denied(Denial::Excluded {
                    list: "JOBATTRLIST",
                    value,
                })
            }
            Ok(r) => results.push(("JOBATTRLIST", acl.job_attrs.required, r)),
        }
    }
    let mut time_denial = None;
    if let Some((limit, required)) = acl.time_limit {
        let ov = overlap(job_start, job_end, res.start, res.end);
        let r = if ov <= limit {
            ListResult::Met(None)
        } else {
            time_denial = Some(Denial::TimeLimit { overlap: ov, limit });
            ListResult::Unmet
        };
        results.push(("TIMELIMIT", required, r));
    }
    if is_owner(res, job) {
        return Access::Granted(Affinity::Positive);
    }
    if results.is_empty() {
        return Access::Denied(Denial::System);
    }
    for (name, required, r) in &results {
        if *required && matches!(r, ListResult::Unmet) {
            return Access::Denied(match (*name, time_denial.clone()) {
                ("TIMELIMIT", Some(d)) => d,
                _ => Denial::RequiredNotMet(name),
            });
        }
    }
    let optional: Vec<&ListResult> = results.iter().filter(|r| !r.1).map(|r| &r.2).collect();
    if !optional.is_empty() && !optional.iter().any(|r| matches!(r, ListResult::Met(_))) {
        return Access::Denied(time_denial.unwrap_or(Denial::NoMatch));
    }
    let mut aff: Option<Affinity> = None;
    for (_, _, r) in &results {
        if let ListResult::Met(Some(a)) = r {
            aff = Some(combine(aff, *a));
        }
    }
    Access::Granted(aff.unwrap_or(Affinity::Positive))
}

/// The pseudo-job whose admission bounds Maui's backfill windows
/// (`MBFGetWindow`): user, group and account [`ANY_CRED`], the QOS `qos`
/// (the default QOS of a user without USERCFG). So a reservation whose
/// USERLIST, GROUPLIST or ACCOUNTLIST names anyone leaves its resources in
/// the windows, for the jobs it admits to try; job reservations and those
/// open to QOS or classes only do not.
pub fn window_job(qos: Option<String>) -> Job {
    Job {
        id: "BFWindow".into(),
        user: ANY_CRED.into(),
        group: ANY_CRED.into(),
        account: Some(ANY_CRED.into()),
        qos,
        ..Job::default()
    }
}

/// One job's admission by the reservations of a table (index = [`ResIdx`]),
/// for the profile's queries. Answers that do not depend on the job's
/// window (no TIMELIMIT) are computed once.
pub struct JobAdmission<'a> {
    table: &'a [Reservation],
    job: &'a Job,
    memo: RefCell<HashMap<ResIdx, Option<Affinity>>>,
}

impl<'a> JobAdmission<'a> {
    /// The admission of `job` by the reservations of `table`.
    pub fn new(table: &'a [Reservation], job: &'a Job) -> JobAdmission<'a> {
        JobAdmission {
            table,
            job,
            memo: RefCell::new(HashMap::new()),
        }
    }
}

impl Admits for JobAdmission<'_> {
    fn admits(&self, res: ResIdx, start: Time, end: Time) -> Option<Affinity> {
        let r = self.table.get(res as usize)?;
        if r.acl.time_limit.is_some() {
            return access(r, self.job, start, end).affinity();
        }
        if let Some(a) = self.memo.borrow().get(&res) {
            return *a;
        }
        let a = access(r, self.job, start, end).affinity();
        self.memo.borrow_mut().insert(res, a);
        a
    }

    fn critical_starts(&self, res: ResIdx, duration: Secs) -> Vec<Time> {
        let Some(r) = self.table.get(res as usize) else {
            return Vec::new();
        };
        let Some((limit, _)) = r.acl.time_limit else {
            return Vec::new();
        };
        // Overlap rises while the job enters the reservation and falls while
        // it leaves: it crosses the limit once on each side.
        let mut v = vec![r
            .start
            .saturating_add(limit)
            .saturating_sub(duration)
            .saturating_add(1)];
        if r.end != INFINITY {
            v.push(r.end.saturating_sub(limit));
        }
        v
    }
}
