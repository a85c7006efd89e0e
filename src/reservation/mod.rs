//! Reservations: administrative, standing and job reservations, their
//! access control lists and their placement onto nodes (`showres` draws
//! them: [`crate::commands::showres`]).
//!
//! A reservation is a timeframe, an ACL and a set of resources (seed
//! 7.1.5.1). Its resources are TASKCOUNT tasks of a RESOURCES shape placed
//! on nodes, and recorded as per-node [`NodeClaim`]s; in the availability
//! [`Profile`](crate::profile::Profile) they become claims that only jobs the
//! ACL admits may use ([`acl::access`]).
//!
//! - [`place`]: where a reservation's tasks go (floating vs. non-floating,
//!   hostlist first, TPN, node-choice hook).
//! - [`standing`]: SRCFG instances for a `now`, rolled at period boundaries
//!   and topped up while partial.
//! - [`admin`]: setres/releaseres as library calls, with a persistent store.
//! - [`view`]: the reservations of a snapshot (what `mauictl showres` shows).

pub mod acl;
pub mod admin;
pub mod place;
pub mod standing;
pub mod view;

pub use acl::access;
pub use admin::{AdminError, AdminRequest, AdminStore};
pub use place::{NodeChooser, PlaceOutcome, RmOrder};
pub use standing::StandingSet;

use crate::config::{Acl, ResAccess, ResFlag, SrCfg, TaskSpec};
use crate::model::{
    Bits, Cluster, CredKind, EffNode, GresCounts, GresList, HostList, JobState, NodeIdx, Resources,
    Secs, Time,
};
use crate::profile::{ClaimMode, INFINITY};
use serde::Serialize;

#[cfg(test)]
mod guide_tests;
#[cfg(test)]
mod props;
#[cfg(test)]
mod tests;

/// What a reservation is for.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ResKind {
    /// Created by an administrator (setres).
    Admin,
    /// One instance of a standing reservation (SRCFG).
    Standing {
        /// The SRCFG name.
        name: String,
        /// Period number: days (PERIOD=DAY) or weeks (WEEK, Sunday-based)
        /// since the epoch, 0 for INFINITY.
        instance: i64,
    },
    /// Held for (or by) one job.
    Job {
        /// Job id.
        job: String,
        /// The job's state (showres S and JobState columns).
        state: JobState,
    },
}

/// The resources a reservation asks for: the spec it was built from.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct ResRequest {
    /// RESOURCES of one task (PROCS=-1: the whole node).
    pub resources: TaskSpec,
    /// TASKCOUNT (0: one task per host of the host list).
    pub task_count: u32,
    /// HOSTLIST.
    #[serde(serialize_with = "ser_hostlist")]
    pub hostlist: Option<HostList>,
    /// TPN: minimum tasks per node.
    pub tpn: u32,
    /// NODEFEATURES: every reserved node has all of them.
    pub node_features: Vec<String>,
    /// PARTITION.
    pub partition: Option<String>,
}

/// `name` as `cluster` spells it: the same name, else the one name that
/// differs only in case (`GPU` for a cluster's `gpu`), else `name`.
fn cluster_gres_name(cluster: &Cluster, name: &str) -> String {
    if cluster.gres_id(name).is_some() {
        return name.to_string();
    }
    let mut same = cluster
        .gres_names
        .iter()
        .filter(|n| n.eq_ignore_ascii_case(name));
    match (same.next(), same.next()) {
        (Some(n), None) => n.clone(),
        _ => name.to_string(),
    }
}

fn ser_hostlist<S: serde::Serializer>(h: &Option<HostList>, s: S) -> Result<S::Ok, S::Error> {
    match h {
        Some(h) => s.serialize_some(&h.to_string()),
        None => s.serialize_none(),
    }
}

impl ResRequest {
    /// The resource part of a standing reservation.
    pub fn from_sr(sr: &SrCfg) -> ResRequest {
        ResRequest {
            resources: sr.resources.clone(),
            task_count: sr.task_count,
            hostlist: sr.hostlist.clone(),
            tpn: sr.tpn,
            node_features: sr.node_features.clone(),
            partition: sr.partition.clone(),
        }
    }

    /// Floating (a TASKCOUNT to find anywhere, or within a host list) versus
    /// non-floating (a host list without TASKCOUNT: those exact hosts, no
    /// matter what; seed 7.1.5.2.5).
    pub fn is_floating(&self) -> bool {
        !(self.hostlist.is_some() && self.task_count == 0)
    }

    /// The task's generic resources as counts of `cluster`'s ids (zero
    /// when it asks for none); `None` when it names one no node has.
    pub fn resolved_gres(&self, cluster: &Cluster) -> Option<GresCounts> {
        if self.resources.gres.is_empty() {
            return Some(GresCounts::ZERO);
        }
        self.task_gres(cluster).ok()
    }

    /// One task on `node`, its generic resources `gres` resolved once for
    /// every node ([`ResRequest::resolved_gres`]). PROCS=-1 reserves all
    /// the node's processors; with no memory, swap, disk or generic
    /// resources given it reserves the whole node ("one task equals one
    /// node").
    pub fn task_with(&self, gres: GresCounts, node: &EffNode) -> Resources {
        let t = &self.resources;
        match t.procs {
            Some(p) => Resources {
                procs: p,
                mem: t.mem,
                swap: t.swap,
                disk: t.disk,
                gres,
            },
            None if t.mem == 0 && t.swap == 0 && t.disk == 0 && t.gres.is_empty() => {
                node.configured
            }
            None => Resources {
                procs: node.configured.procs,
                mem: t.mem,
                swap: t.swap,
                disk: t.disk,
                gres,
            },
        }
    }

    /// The generic resources of one task as counts of `cluster`'s names
    /// (a typed name also takes its untyped total). A name matches the
    /// cluster's exactly, else regardless of case when only one does; the
    /// error names one no node has.
    pub fn task_gres(&self, cluster: &Cluster) -> Result<GresCounts, String> {
        let mut list = GresList::default();
        for (name, count) in self.resources.gres.items() {
            list.set(&cluster_gres_name(cluster, name), *count);
        }
        cluster.gres_counts(&list)
    }

    /// Why no node of `cluster` can hold one task, when that is so for a
    /// generic resource: a name no node has, or more than any eligible
    /// node has.
    pub fn gres_shortfall(&self, cluster: &Cluster) -> Option<String> {
        if self.resources.gres.is_empty() {
            return None;
        }
        let want = match self.task_gres(cluster) {
            Ok(w) => w,
            Err(e) => return Some(e),
        };
        let mut most = GresCounts::ZERO;
        let filter = self.node_filter(cluster);
        for n in cluster.nodes.iter().filter(|n| filter.admits(n)) {
            if want.fits_in(&n.configured.gres) {
                return None;
            }
            most = most.map(&n.configured.gres, u32::max);
        }
        Some(format!(
            "one task needs {}, more than any node has (at most {})",
            cluster.gres_text(&want),
            match cluster.gres_text(&most) {
                t if t.is_empty() => "none".to_string(),
                t => t,
            }
        ))
    }

    /// The nodes' side of NODEFEATURES and PARTITION, by the cluster's
    /// ids: resolved once per placement, then asked of every node.
    pub fn node_filter(&self, cluster: &Cluster) -> NodeFilter {
        NodeFilter {
            features: cluster.feature_ids(&self.node_features),
            partition: self.partition.as_deref().map(|p| cluster.partition_id(p)),
        }
    }

    /// The hosts the host list names that exist in the cluster and are
    /// eligible, in host-list order for names and ranges, then RM order for
    /// regular expressions.
    pub fn listed_nodes(&self, cluster: &Cluster) -> Vec<NodeIdx> {
        let Some(h) = &self.hostlist else {
            return Vec::new();
        };
        let eligible = self.node_filter(cluster);
        let mut out: Vec<NodeIdx> = Vec::new();
        let mut seen = std::collections::BTreeSet::new();
        for pat in &h.0 {
            let found: Vec<NodeIdx> = match pat.expand() {
                Some(names) => names.iter().filter_map(|n| cluster.index(n)).collect(),
                None => cluster
                    .nodes
                    .iter()
                    .filter(|n| pat.matches(&n.name))
                    .map(|n| n.index)
                    .collect(),
            };
            for i in found {
                if eligible.admits(&cluster.nodes[i as usize]) && seen.insert(i) {
                    out.push(i);
                }
            }
        }
        out
    }

    /// Tasks the reservation wants: TASKCOUNT, or one per listed host.
    pub fn wanted_tasks(&self, cluster: &Cluster) -> u32 {
        if self.is_floating() {
            self.task_count
        } else {
            self.listed_nodes(cluster).len() as u32
        }
    }
}

/// Which nodes a reservation's NODEFEATURES and PARTITION admit
/// ([`ResRequest::node_filter`]).
pub struct NodeFilter {
    /// The features' ids; a feature no node has is an id no node holds.
    features: Bits,
    /// The partition's id, if one is asked for.
    partition: Option<u32>,
}

impl NodeFilter {
    /// True when the node has the features and is in the partition.
    pub fn admits(&self, node: &EffNode) -> bool {
        self.features.is_subset(&node.feature_ids)
            && self.partition.is_none_or(|p| node.partition_id == Some(p))
    }
}

/// Tasks and resources a reservation holds on one node.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct NodeClaim {
    /// The node.
    pub node: NodeIdx,
    /// Tasks placed there.
    pub tasks: u32,
    /// Their resources.
    pub resources: Resources,
}

/// A reservation.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Reservation {
    /// Name (`john.1`, `interactive.11187`, a job id).
    pub id: String,
    /// Admin, standing instance or job.
    pub kind: ResKind,
    /// Start of the active time.
    pub start: Time,
    /// End of the active time ([`INFINITY`] for never).
    pub end: Time,
    /// Who may use the reserved resources.
    pub acl: Acl,
    /// FLAGS.
    pub flags: Vec<ResFlag>,
    /// OWNER.
    pub owner: Option<(CredKind, String)>,
    /// ACCESS: DEDICATED or SHARED.
    pub access: ResAccess,
    /// PRIORITY.
    pub priority: i64,
    /// CHARGEACCOUNT.
    pub charge_account: Option<String>,
    /// The resources it asked for.
    pub request: ResRequest,
    /// Where it got them, one entry per node.
    pub claims: Vec<NodeClaim>,
}

impl Reservation {
    /// An unplaced reservation (no claims yet).
    pub fn new(
        id: String,
        kind: ResKind,
        start: Time,
        end: Time,
        acl: Acl,
        request: ResRequest,
    ) -> Reservation {
        Reservation {
            id,
            kind,
            start,
            end,
            acl,
            flags: Vec::new(),
            owner: None,
            access: ResAccess::Dedicated,
            priority: 0,
            charge_account: None,
            request,
            claims: Vec::new(),
        }
    }

    /// True when the reservation has the flag.
    pub fn has_flag(&self, f: ResFlag) -> bool {
        self.flags.contains(&f)
    }

    /// Length of the active time ([`INFINITY`] for never-ending ones).
    pub fn duration(&self) -> Secs {
        if self.end == INFINITY {
            INFINITY
        } else {
            self.end.saturating_sub(self.start)
        }
    }

    /// True when `[start, end)` overlaps the active time.
    pub fn overlaps(&self, start: Time, end: Time) -> bool {
        start < self.end && self.start < end
    }

    /// Tasks placed so far.
    pub fn tasks(&self) -> u32 {
        self.claims.iter().map(|c| c.tasks).sum()
    }

    /// Processors reserved (showres N/P).
    pub fn procs(&self) -> u64 {
        self.claims.iter().map(|c| c.resources.procs as u64).sum()
    }

    /// True when it holds fewer tasks than it wants.
    pub fn is_partial(&self, cluster: &Cluster) -> bool {
        self.tasks() < self.request.wanted_tasks(cluster)
    }

    /// How its claims sit in the profile: side by side only, unless it is
    /// ACCESS=SHARED or non-floating (which take their hosts regardless of
    /// other reservations).
    pub fn claim_mode(&self) -> ClaimMode {
        if self.access == ResAccess::Shared || !self.request.is_floating() {
            ClaimMode::MayStack
        } else {
            ClaimMode::SideBySide
        }
    }

    /// The showres Type: `Job` for job reservations, otherwise the kind of
    /// the first ACL list given (`User`, `Group`, `Account`, `Class`, `QOS`)
    /// and `System` for an empty ACL.
    pub fn type_name(&self) -> &'static str {
        if matches!(self.kind, ResKind::Job { .. }) {
            return "Job";
        }
        let a = &self.acl;
        for (k, l) in [
            ("User", &a.users),
            ("Group", &a.groups),
            ("Account", &a.accounts),
            ("Class", &a.classes),
            ("QOS", &a.qos),
        ] {
            if !l.is_empty() {
                return k;
            }
        }
        if a.is_empty() && self.owner.is_none() {
            "System"
        } else {
            "User"
        }
    }

    /// The standing reservation's SRCFG name, if it is an instance of one.
    pub fn standing_name(&self) -> Option<&str> {
        match &self.kind {
            ResKind::Standing { name, .. } => Some(name),
            _ => None,
        }
    }
}
