//! What ranking derives from an idle job alone, carried from one iteration
//! to the next.
//!
//! A job's request resolved against the cluster ([`TaskRequest`]), its
//! walltime, the nodes that could ever hold it and whether they can, and
//! its requirement signature (for [`Iter::dominated`]) depend only on the
//! job's own fields, the nodes' configuration and a few parameters. From
//! one iteration to the next almost every queued job is unchanged, so
//! these are kept per job ([`JobMemo`]) and derived again only for jobs
//! that are new or whose fields changed: a queue of 50,000 jobs is not
//! re-resolved, re-allocated and re-hashed in every iteration.
//!
//! An entry is used only when every field its derivation reads is equal to
//! the job's (compared in full, not by a hash), under the same cluster and
//! parameters; debug builds check each entry used against a fresh
//! derivation. The decisions are those of an engine that keeps nothing
//! (`engine::tests::carrying_the_running_profile_decides_the_same`).

use super::*;
use crate::allocation::TaskRequest;
use crate::model::{Bits, Job, JobState};
use std::collections::BTreeMap;
use thin_vec::ThinVec;

/// A hash map with the Fx hash (lookups only, never iterated).
type FxMap<K, V> = rustc_hash::FxHashMap<K, V>;
use crate::config::CredCfg;
use crate::engine::names::{CredIds, Names, NAMES_KEPT};
use crate::model::CredKind;

/// Signatures, and slots no job holds, the memo keeps beyond its entries
/// before it starts afresh (jobs come and go; their signatures would
/// accumulate, and a queue that shrank would keep its slots).
const SPARE: usize = 4096;

/// A job's requirements and credentials as ids: what makes two jobs
/// comparable for [`Iter::dominated`] (at least as fine as the request
/// they resolve to, so jobs sharing one share their placement rules and
/// reservation access).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Signature {
    /// Required features and partition by id ([`Cluster::feature_ids`]).
    features: Bits,
    partition: Option<u32>,
    /// Host and exclude lists as node indices.
    hosts: Option<Vec<NodeIdx>>,
    excluded: Vec<NodeIdx>,
    tasks_per_node: Option<u32>,
    nodes: Option<u32>,
    creds: CredIds,
    advres: Option<String>,
}

impl Signature {
    /// True when `job`'s fields besides its requirements are these
    /// (credential names compared with those of `names`).
    fn is_of(&self, job: &Job, names: &Names) -> bool {
        self.tasks_per_node == job.tasks_per_node
            && self.nodes == job.nodes
            && self.advres == job.advres
            && names.are(&self.creds, job)
    }
}

/// What ranking derives from one job ([`JobMemo::derive`]).
pub(in crate::engine) struct Derived {
    pub req: TaskRequest,
    pub wall: Secs,
    /// The [`NodeSet`] id of the nodes meeting its requirements.
    pub nodes: u32,
    /// Its signature's id (index into `Iter::failed`).
    pub sig: u32,
    /// Why no node could ever hold it, if so.
    pub fit: Option<Reason>,
    /// The fields read besides the request's and the signature's.
    extra: Extra,
}

/// The job fields a derivation reads that neither its [`TaskRequest`] nor
/// its [`Signature`] keeps as given: the requirements are kept by id
/// there, and these names tell a job whose requirements changed without
/// resolving them again (host lists match patterns against every node).
/// The partition and the node memory and disk requirements are compared
/// through the request, which keeps them as given. The lists are nearly
/// always empty: one pointer each.
#[derive(Clone, Debug, PartialEq)]
struct Extra {
    walltime: Option<Secs>,
    features: ThinVec<String>,
    pref_features: ThinVec<String>,
    hostlist: ThinVec<String>,
    exclude_hosts: ThinVec<String>,
}

impl Extra {
    fn of(job: &Job) -> Extra {
        Extra {
            walltime: job.walltime,
            features: job.features.clone(),
            pref_features: job.pref_features.clone(),
            hostlist: job.hostlist.clone(),
            exclude_hosts: job.exclude_hosts.clone(),
        }
    }

    /// True when these are `job`'s fields (no copy made).
    fn is_of(&self, job: &Job) -> bool {
        self.walltime == job.walltime
            && self.features == job.features
            && self.pref_features == job.pref_features
            && self.hostlist == job.hostlist
            && self.exclude_hosts == job.exclude_hosts
    }
}

/// The parameters a derivation reads besides the cluster.
#[derive(Clone, Debug, PartialEq)]
struct Params {
    match_policy: crate::config::JobNodeMatch,
    multi_node: bool,
    default_wall: Secs,
    /// QOSCFG (DEDICATED and the other flags of `QosFlags`).
    qos: Option<BTreeMap<String, CredCfg>>,
}

impl Params {
    fn of(cfg: &Config) -> Params {
        let p = &cfg.params;
        Params {
            match_policy: p.job_node_match_policy,
            multi_node: p.enable_multi_node_jobs,
            default_wall: p.system_default_job_walltime.0,
            qos: cfg.creds.get(&CredKind::Qos).cloned(),
        }
    }
}

/// No slot (a job that is not idle).
pub(in crate::engine) const NO_SLOT: u32 = u32::MAX;

/// The derivations of the idle jobs, for one cluster and one set of
/// parameters, each in a slot that stays its job's while the job is
/// unchanged.
pub(in crate::engine) struct JobMemo {
    cluster: std::sync::Arc<Cluster>,
    params: Params,
    /// Derivations by slot.
    slots: Vec<Derived>,
    /// Slots no job holds (their contents are stale).
    free: Vec<u32>,
    /// The slots of the last iteration's idle jobs, in job order
    /// ([`crate::engine::job_id_cmp`]).
    order: Vec<u32>,
    /// Signatures by id, and ids by signature.
    sigs: Vec<Signature>,
    sig_ids: FxMap<Signature, u32>,
    /// The credential names the signatures' ids stand for, kept when the
    /// memo starts afresh.
    names: Names,
    /// Jobs whose derivation the last [`JobMemo::refresh`] kept.
    reused: usize,
}

impl JobMemo {
    /// The memo carried (`carried`) if it was made for `cluster` and the
    /// parameters of `cfg` and the node sets its entries name still exist
    /// (`sets_kept`), else an empty one.
    pub(in crate::engine) fn carried_or_new(
        carried: Option<JobMemo>,
        cluster: &std::sync::Arc<Cluster>,
        cfg: &Config,
        sets_kept: bool,
    ) -> JobMemo {
        let params = Params::of(cfg);
        match carried {
            Some(m)
                if sets_kept
                    && std::sync::Arc::ptr_eq(&m.cluster, cluster)
                    && m.params == params
                    && m.sigs.len() <= m.order.len() + SPARE
                    && m.free.len() <= m.order.len() + SPARE
                    && m.names.len() <= NAMES_KEPT =>
            {
                m
            }
            m => JobMemo {
                cluster: std::sync::Arc::clone(cluster),
                params,
                slots: Vec::new(),
                free: Vec::new(),
                order: Vec::new(),
                sigs: Vec::new(),
                sig_ids: FxMap::default(),
                names: m
                    .map(|m| m.names)
                    .filter(|n| n.len() <= NAMES_KEPT)
                    .unwrap_or_default(),
                reused: 0,
            },
        }
    }

    /// Number of signature ids given so far (bounds every [`Derived::sig`]).
    pub(in crate::engine) fn signatures(&self) -> usize {
        self.sigs.len()
    }

    /// The credentials of the jobs of signature `sig`.
    pub(in crate::engine) fn creds(&self, sig: u32) -> &CredIds {
        &self.sigs[sig as usize].creds
    }

    /// The credential names the ids stand for.
    pub(in crate::engine) fn names(&self) -> &Names {
        &self.names
    }

    /// The signature of each job of `idle` (indices into `jobs`), when
    /// they are the idle jobs of the last [`JobMemo::refresh`] in job
    /// order (their ids are compared), else `None`.
    pub(in crate::engine) fn signatures_of(
        &self,
        jobs: &[Job],
        idle: impl ExactSizeIterator<Item = usize>,
    ) -> Option<Vec<u32>> {
        if idle.len() != self.order.len() {
            return None;
        }
        idle.zip(&self.order)
            .map(|(j, &s)| {
                let d = &self.slots[s as usize];
                debug_assert!(d.req.job != jobs[j].id || self.derived_from(d, &jobs[j]));
                (d.req.job == jobs[j].id).then_some(d.sig)
            })
            .collect()
    }

    /// Jobs whose derivation the last [`JobMemo::refresh`] kept.
    #[cfg(test)]
    pub(in crate::engine) fn reused(&self) -> usize {
        self.reused
    }

    /// The derivation in `slot`.
    pub(in crate::engine) fn get(&self, slot: u32) -> &Derived {
        &self.slots[slot as usize]
    }

    /// Brings the memo to `jobs` (in job order): each idle job keeps the
    /// slot of the last iteration's job of its id when its fields are
    /// unchanged, is derived again in that slot when they changed, and is
    /// derived into a free slot when it is new. The slot of each job
    /// ([`NO_SLOT`] for jobs that are not idle).
    pub(in crate::engine) fn refresh(
        &mut self,
        jobs: &[Job],
        cfg: &Config,
        feasible: &mut Feasible,
    ) -> Vec<u32> {
        let mut slot_of = vec![NO_SLOT; jobs.len()];
        let order = std::mem::take(&mut self.order);
        let mut old = order.iter().copied().peekable();
        let mut new_jobs: Vec<usize> = Vec::new();
        self.reused = 0;
        for (j, job) in jobs.iter().enumerate() {
            if job.state != JobState::Idle {
                continue;
            }
            while let Some(&s) = old.peek() {
                match crate::engine::job_id_cmp(&self.slots[s as usize].req.job, &job.id) {
                    std::cmp::Ordering::Less => {
                        self.free.push(s);
                        old.next();
                    }
                    std::cmp::Ordering::Equal => {
                        old.next();
                        if self.derived_from(&self.slots[s as usize], job) {
                            #[cfg(debug_assertions)]
                            self.check(s, job, cfg, feasible);
                            self.reused += 1;
                        } else {
                            self.slots[s as usize] = self.derive(job, cfg, feasible);
                        }
                        slot_of[j] = s;
                        break;
                    }
                    std::cmp::Ordering::Greater => break,
                }
            }
            if slot_of[j] == NO_SLOT {
                new_jobs.push(j);
            }
        }
        self.free.extend(old);
        // Sized once: a first iteration over a large queue would otherwise
        // double the slots while holding both copies.
        self.slots
            .reserve(new_jobs.len().saturating_sub(self.free.len()));
        for j in new_jobs {
            let d = self.derive(&jobs[j], cfg, feasible);
            slot_of[j] = match self.free.pop() {
                Some(s) => {
                    self.slots[s as usize] = d;
                    s
                }
                None => {
                    self.slots.push(d);
                    self.slots.len() as u32 - 1
                }
            };
        }
        let mut order = order;
        order.clear();
        order.extend(slot_of.iter().copied().filter(|&s| s != NO_SLOT));
        self.order = order;
        slot_of
    }

    /// True when `d` was derived from a job with `job`'s fields (the
    /// cluster and parameters are the memo's).
    fn derived_from(&self, d: &Derived, job: &Job) -> bool {
        d.req.tasks == job.tasks
            && d.req.task == job.task
            && d.req.job == job.id
            && d.req.partition == job.partition
            && (d.req.node_mem, d.req.node_disk) == (job.node_mem, job.node_disk)
            && d.extra.is_of(job)
            && self.sigs[d.sig as usize].is_of(job, &self.names)
    }

    /// Derives what ranking needs of `job`.
    fn derive(&mut self, job: &Job, cfg: &Config, feasible: &mut Feasible) -> Derived {
        let cluster = &*self.cluster;
        let req = TaskRequest::from_job(job, cluster, cfg);
        let nodes = feasible.id_of(&req, cluster);
        let (nodes_ok, max, procs) = feasible.nodes(nodes);
        let fit = if let Some(e) = super::super::gres::request_error(job, cluster) {
            Some(Reason::NoFit { detail: e })
        } else if nodes_ok.is_empty() {
            let mut what = String::from("features, partition, host list");
            if let Some(m) = job.node_mem {
                what.push_str(&format!(", node memory {m}"));
            }
            if let Some(d) = job.node_disk {
                what.push_str(&format!(", node disk {d}"));
            }
            Some(Reason::NoFit {
                detail: format!("no node meets its requirements ({what})"),
            })
        } else if !req.task.gres.fits_in(&max.gres) {
            Some(Reason::NoFit {
                detail: gres_too_large(job, &req.task, max, cluster),
            })
        } else if !req.task.fits_in(max) {
            Some(Reason::NoFit {
                detail: format!("one task ({}) is larger than any suitable node", req.task),
            })
        } else if let Some(e) = gres_capacity_short(job, &req.task, nodes_ok, cluster) {
            Some(Reason::NoFit { detail: e })
        } else if job.procs() > *procs {
            Some(Reason::NoFit {
                detail: format!(
                    "{} processors requested, {} exist on suitable nodes",
                    job.procs(),
                    procs
                ),
            })
        } else {
            match req.node_count {
                Some(n) if n as usize > nodes_ok.len() => Some(Reason::NoFit {
                    detail: format!(
                        "{n} nodes requested, {} suitable nodes exist",
                        nodes_ok.len()
                    ),
                }),
                _ => None,
            }
        };
        Derived {
            wall: build::walltime(cfg, job),
            nodes,
            sig: self.sig_id(job, &req),
            fit,
            extra: Extra::of(job),
            req,
        }
    }

    /// The id of the signature of `job`, whose request is `req`, given on
    /// first sight.
    fn sig_id(&mut self, job: &Job, req: &TaskRequest) -> u32 {
        let sig = Signature {
            features: req.features.clone(),
            partition: req.partition_id,
            hosts: req.hosts.clone(),
            excluded: req.excluded.clone(),
            tasks_per_node: job.tasks_per_node,
            nodes: job.nodes,
            creds: self.names.ids(job),
            advres: job.advres.clone(),
        };
        if let Some(&id) = self.sig_ids.get(&sig) {
            return id;
        }
        let id = self.sigs.len() as u32;
        self.sigs.push(sig.clone());
        self.sig_ids.insert(sig, id);
        id
    }

    /// Debug builds: the derivation kept in `slot` is what a fresh one
    /// of `job` gives.
    #[cfg(debug_assertions)]
    fn check(&mut self, slot: u32, job: &Job, cfg: &Config, feasible: &mut Feasible) {
        let fresh = self.derive(job, cfg, feasible);
        let d = &self.slots[slot as usize];
        assert_eq!(d.req, fresh.req, "memo: request of {}", job.id);
        assert_eq!(d.wall, fresh.wall, "memo: walltime of {}", job.id);
        assert_eq!(d.nodes, fresh.nodes, "memo: node set of {}", job.id);
        assert_eq!(d.sig, fresh.sig, "memo: signature of {}", job.id);
        assert_eq!(d.fit, fresh.fit, "memo: fit of {}", job.id);
    }
}

/// Why a task's generic resources fit no suitable node, by name.
fn gres_too_large(job: &Job, task: &Resources, max: &Resources, cluster: &Cluster) -> String {
    let what = if job.bundle > 1 {
        format!("{} tasks together need", job.bundle)
    } else {
        "one task needs".to_string()
    };
    let most = cluster.gres_text(&max.gres);
    format!(
        "{what} {}, more than any suitable node has ({})",
        cluster.gres_text(&task.gres),
        if most.is_empty() {
            "none".to_string()
        } else {
            format!("at most {most}")
        }
    )
}

/// Why the suitable nodes' generic resources can never hold all of the
/// job's tasks at once, if they cannot.
fn gres_capacity_short(
    job: &Job,
    task: &Resources,
    nodes: &[NodeIdx],
    cluster: &Cluster,
) -> Option<String> {
    if task.gres.is_zero() {
        return None;
    }
    let hold: u64 = nodes
        .iter()
        .map(|&n| {
            task.gres
                .times_fits_in(&cluster.nodes[n as usize].configured.gres)
                .min(job.tasks as u64)
        })
        .sum();
    (hold < job.tasks as u64).then(|| {
        format!(
            "{} tasks of {} each, the suitable nodes' generic resources hold {hold}",
            job.tasks,
            cluster.gres_text(&task.gres)
        )
    })
}
