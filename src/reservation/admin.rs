//! Administrative reservations: what `setres` creates and `releaseres`
//! removes, kept in a store that survives restarts.
//!
//! A request is validated as a whole (times, ACL lists, host expressions,
//! resources, flags, owner) before anything changes; a floating request
//! that cannot get all its tasks is refused (Maui's setres reserves what it
//! was asked for or nothing). The store keeps each reservation's request in
//! setres syntax, its resolved timeframe and the nodes it got by name, so a
//! restart rebuilds the same reservations even if node order changed.

use super::{place, NodeChooser, NodeClaim, ResKind, ResRequest, Reservation};
use crate::config::value::{split_list, Scalar};
use crate::config::{Acl, AclList, ResAccess, ResFlag, TaskSpec};
pub use crate::model::memory::{AdminRecord, AdminRequest, AdminStore};
use crate::model::time::parse_duration;
use crate::model::{Cluster, CredKind, HostList, Time};
use crate::profile::{JobIdx, Profile, ResIdx, INFINITY};

/// An administrative request or store operation that failed. Nothing was
/// changed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum AdminError {
    /// A field of the request is wrong.
    #[error("{field}: {message}")]
    Invalid {
        /// The field.
        field: &'static str,
        /// What is wrong.
        message: String,
    },
    /// A host the request names does not exist.
    #[error("hosts: no node named \"{0}\"")]
    NoSuchHost(String),
    /// A host expression matches no node.
    #[error("hosts: \"{0}\" matches no node")]
    NoMatchingHost(String),
    /// Not enough resources for the requested tasks.
    #[error("only {available} of {wanted} tasks are available in that timeframe")]
    NoResources {
        /// Tasks asked for.
        wanted: u32,
        /// Tasks found.
        available: u32,
    },
    /// A reservation with that name exists.
    #[error("reservation \"{0}\" already exists")]
    Exists(String),
    /// No administrative reservation with that name.
    #[error("no reservation \"{0}\"")]
    NotFound(String),
    /// The store file could not be read or written.
    #[error("{0}")]
    Io(String),
}

fn invalid(field: &'static str, message: impl Into<String>) -> AdminError {
    AdminError::Invalid {
        field,
        message: message.into(),
    }
}

fn opt_acl(field: &'static str, v: &Option<String>) -> Result<AclList, AdminError> {
    match v {
        Some(s) => AclList::parse(s).map_err(|m| invalid(field, m)),
        None => Ok(AclList::default()),
    }
}

/// Builds the (unplaced, unnamed) reservation a request describes,
/// checking every field.
pub fn validate(
    req: &AdminRequest,
    now: Time,
    cluster: &Cluster,
) -> Result<Reservation, AdminError> {
    build(req, now, cluster, true)
}

/// [`validate`]; `strict` false skips the checks against the cluster's
/// current nodes (for reservations that already exist).
fn build(
    req: &AdminRequest,
    now: Time,
    cluster: &Cluster,
    strict: bool,
) -> Result<Reservation, AdminError> {
    let start = req.start.unwrap_or(now);
    let end = match (req.end, req.duration) {
        (Some(_), Some(_)) => {
            return Err(invalid("end", "give an end time or a duration, not both"))
        }
        (Some(e), None) => e,
        (None, Some(d)) if d <= 0 => {
            return Err(invalid("duration", format!("must be positive, got {d}")))
        }
        (None, Some(d)) => start.saturating_add(d),
        (None, None) => INFINITY,
    };
    if end <= start {
        return Err(invalid("end", "must be after the start"));
    }
    if end <= now {
        return Err(invalid("end", "the reservation would already be over"));
    }
    let mut acl = Acl {
        users: opt_acl("users", &req.users)?,
        groups: opt_acl("groups", &req.groups)?,
        accounts: opt_acl("accounts", &req.accounts)?,
        classes: opt_acl("classes", &req.classes)?,
        qos: opt_acl("qos", &req.qos)?,
        job_attrs: opt_acl("job_attrs", &req.job_attrs)?,
        time_limit: None,
    };
    if let Some(tl) = &req.time_limit {
        let (body, required) = match tl.strip_suffix('*') {
            Some(b) => (b, true),
            None => (tl.as_str(), false),
        };
        match parse_duration(body) {
            Ok(Some(s)) if s >= 0 => acl.time_limit = Some((s, required)),
            Ok(Some(-1)) | Ok(None) => {}
            _ => {
                return Err(invalid(
                    "time_limit",
                    format!("expected [[[DD:]HH:]MM:]SS[*], got \"{tl}\""),
                ))
            }
        }
    }
    let resources = match &req.resources {
        None => TaskSpec::default(),
        Some(r) => {
            let t = TaskSpec::parse_str(&setres_pairs(r)).map_err(|m| invalid("resources", m))?;
            if t.is_empty() {
                return Err(invalid("resources", "a task must reserve something"));
            }
            t
        }
    };
    if req.tasks.is_none() && req.hosts.is_none() {
        return Err(invalid("tasks", "give a task count and/or a host list"));
    }
    if req.tasks == Some(0) {
        return Err(invalid("tasks", "must be at least 1"));
    }
    let hostlist = match req.hosts.as_deref() {
        None => None,
        Some(h) if h.eq_ignore_ascii_case("ALL") || h.eq_ignore_ascii_case("[ALL]") => {
            Some(HostList::parse("^").map_err(|m| invalid("hosts", m))?)
        }
        Some(h) => {
            let list = HostList::parse(h).map_err(|m| invalid("hosts", m))?;
            for pat in list.0.iter().filter(|_| strict) {
                match pat.expand() {
                    Some(names) => {
                        if let Some(missing) = names.iter().find(|n| cluster.index(n).is_none()) {
                            return Err(AdminError::NoSuchHost(missing.clone()));
                        }
                    }
                    None => {
                        if !cluster.nodes.iter().any(|n| pat.matches(&n.name)) {
                            return Err(AdminError::NoMatchingHost(pat.as_str().to_string()));
                        }
                    }
                }
            }
            Some(list)
        }
    };
    let mut flags = Vec::new();
    for f in split_list(req.flags.as_deref().unwrap_or("")) {
        flags.push(ResFlag::from_keyword(f).ok_or_else(|| {
            invalid(
                "flags",
                format!(
                    "expected one of {}, got \"{f}\"",
                    ResFlag::KEYWORDS.join(", ")
                ),
            )
        })?);
    }
    let owner = match &req.owner {
        None => None,
        Some(o) => match o.split_once(':') {
            Some((k, id)) if !id.is_empty() => Some((
                CredKind::parse(k).ok_or_else(|| {
                    invalid(
                        "owner",
                        format!("expected USER, GROUP, ACCOUNT, QOS or CLASS, got \"{k}\""),
                    )
                })?,
                id.to_string(),
            )),
            _ => {
                return Err(invalid(
                    "owner",
                    format!("expected <CREDTYPE>:<CREDID>, got \"{o}\""),
                ))
            }
        },
    };
    let access = match &req.access {
        None => ResAccess::Dedicated,
        Some(a) => ResAccess::from_keyword(a).ok_or_else(|| {
            invalid(
                "access",
                format!("expected DEDICATED or SHARED, got \"{a}\""),
            )
        })?,
    };
    if let Some(n) = &req.name {
        if n.is_empty()
            || !n
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "._-".contains(c))
        {
            return Err(invalid(
                "name",
                format!("use letters, digits, '.', '_' or '-', got \"{n}\""),
            ));
        }
    }
    let request = ResRequest {
        resources,
        task_count: req.tasks.unwrap_or(0),
        hostlist,
        tpn: req.tpn.unwrap_or(0),
        node_features: split_list(req.features.as_deref().unwrap_or(""))
            .map(str::to_string)
            .collect(),
        partition: req.partition.clone(),
    };
    if strict {
        if let Some(why) = request.gres_shortfall(cluster) {
            return Err(invalid("resources", why));
        }
    }
    if strict && !request.is_floating() && request.listed_nodes(cluster).is_empty() {
        return Err(invalid(
            "hosts",
            "no listed host has the requested features and partition",
        ));
    }
    let mut r = Reservation::new(String::new(), ResKind::Admin, start, end, acl, request);
    r.flags = flags;
    r.owner = owner;
    r.access = access;
    r.priority = req.priority.unwrap_or(0);
    r.charge_account = req.charge_account.clone();
    Ok(r)
}

impl AdminStore {
    /// An empty store.
    pub fn new() -> AdminStore {
        AdminStore::default()
    }

    /// Creates a reservation: validates the request, places its tasks in
    /// the profile as reservation `idx`, and records it. On error nothing
    /// changes (neither the store nor the profile).
    #[allow(clippy::too_many_arguments)]
    pub fn create(
        &mut self,
        req: AdminRequest,
        now: Time,
        cluster: &Cluster,
        profile: &mut Profile,
        idx: ResIdx,
        chooser: &dyn NodeChooser,
        admits_job: &dyn Fn(&Reservation, JobIdx) -> bool,
    ) -> Result<Reservation, AdminError> {
        let mut r = validate(&req, now, cluster)?;
        let (id, base) = match &req.name {
            Some(n) => (n.clone(), None),
            None => {
                let base = default_base(&r);
                let n = self.sequence.get(&base).copied().unwrap_or(0) + 1;
                (format!("{base}.{n}"), Some((base, n)))
            }
        };
        if self.records.iter().any(|x| x.id == id) {
            return Err(AdminError::Exists(id));
        }
        r.id = id;
        let claims = {
            let rr = &r;
            let f = |j: JobIdx| admits_job(rr, j);
            let claims = place::plan(rr, idx, cluster, profile, chooser, &f);
            let got: u32 = claims.iter().map(|c| c.tasks).sum();
            let wanted = rr.request.wanted_tasks(cluster);
            if got < wanted {
                return Err(AdminError::NoResources {
                    wanted,
                    available: got,
                });
            }
            place::apply(rr, idx, &claims, profile, &f);
            claims
        };
        r.claims = claims;
        if let Some((base, n)) = base {
            self.sequence.insert(base, n);
        }
        let mut stored = req;
        stored.start = Some(r.start);
        self.records.push(AdminRecord {
            id: r.id.clone(),
            created: now,
            start: r.start,
            end: r.end,
            request: stored,
            nodes: r
                .claims
                .iter()
                .map(|c| (cluster.nodes[c.node as usize].name.clone(), c.tasks))
                .collect(),
        });
        Ok(r)
    }

    /// The stored reservations, in creation order.
    pub fn list(&self) -> &[AdminRecord] {
        &self.records
    }

    /// One stored reservation.
    pub fn get(&self, id: &str) -> Option<&AdminRecord> {
        self.records.iter().find(|r| r.id == id)
    }

    /// Releases a reservation (the caller removes its claims from the
    /// profile, or rebuilds the profile).
    pub fn release(&mut self, id: &str) -> Result<AdminRecord, AdminError> {
        match self.records.iter().position(|r| r.id == id) {
            Some(i) => Ok(self.records.remove(i)),
            None => Err(AdminError::NotFound(id.to_string())),
        }
    }

    /// Drops reservations whose active time is over; returns their names.
    pub fn expire(&mut self, now: Time) -> Vec<String> {
        let (gone, kept): (Vec<_>, Vec<_>) = std::mem::take(&mut self.records)
            .into_iter()
            .partition(|r| r.end <= now);
        self.records = kept;
        gone.into_iter().map(|r| r.id).collect()
    }

    /// The reservations as values, with their claims on this cluster's
    /// nodes (nodes that no longer exist are left out).
    pub fn reservations(&self, cluster: &Cluster) -> Vec<Reservation> {
        self.records
            .iter()
            .filter_map(|rec| {
                let mut req = rec.request.clone();
                req.start = Some(rec.start);
                req.end = Some(rec.end);
                req.duration = None;
                // As of creation, so a reservation that has started is not
                // refused for starting in the past, and without checking
                // hosts against today's cluster.
                let mut r = build(&req, rec.created.min(rec.start), cluster, false).ok()?;
                r.id = rec.id.clone();
                let gres = r.request.resolved_gres(cluster);
                r.claims = rec
                    .nodes
                    .iter()
                    .filter_map(|(name, tasks)| {
                        let i = cluster.index(name)?;
                        let task = r.request.task_with(gres?, &cluster.nodes[i as usize]);
                        Some(NodeClaim {
                            node: i,
                            tasks: *tasks,
                            resources: task.checked_mul(*tasks).unwrap_or(task),
                        })
                    })
                    .collect();
                Some(r)
            })
            .collect()
    }
}

/// setres's `-r` with its pairs separated by ';' for [`TaskSpec`]: setres
/// separates them with ':' (`PROCS=1:MEM=512:GRES=gpu:a100:2`), so a ':'
/// starts a new pair only before an `ATTR=`; the rest of a GRES value
/// stays with it. Text without '=' is already `ATTR:VALUE;...`.
fn setres_pairs(r: &str) -> String {
    if !r.contains('=') {
        return r.to_string();
    }
    let mut out = String::new();
    for (k, piece) in r.split(':').enumerate() {
        if k > 0 {
            out.push(if piece.contains('=') { ';' } else { ':' });
        }
        out.push_str(piece);
    }
    out
}

/// Default name base: the first name in the ACL, or `system`.
fn default_base(r: &Reservation) -> String {
    let a = &r.acl;
    [&a.users, &a.groups, &a.accounts, &a.classes, &a.qos]
        .iter()
        .flat_map(|l| l.entries.iter())
        .find(|e| !e.not)
        .map(|e| e.name.clone())
        .unwrap_or_else(|| "system".to_string())
}
