//! Node allocation (5.2): choosing nodes and tasks per node for a job.
//!
//! [`allocate`] is a pure function. The caller (the scheduling iteration)
//! has worked out, from its node × time availability profile, which nodes
//! could host the job at a chosen start time for its whole duration and
//! describes each as a [`Candidate`]. `allocate` drops candidates that break
//! the job's hard requirements ([`TaskRequest::check_node`]) or node access
//! rules ([`access::access_limit`]), orders the rest by the
//! NODEALLOCATIONPOLICY and places whole tasks node by node, honouring the
//! request's shape (tasks per node, node count, JOBNODEMATCHPOLICY). Ties are
//! always broken by node index, so the same input gives the same allocation
//! whatever the order of the candidates.

pub mod access;
#[cfg(test)]
mod guide_tests;
mod order;
mod place;
#[cfg(test)]
mod tests;

use crate::config::{Affinity, Config, NodeAccessPolicy, NodeAllocationPolicy, Params};
use crate::model::{Bits, Cluster, EffNode, HostPattern, Job, NodeIdx, Resources, Secs};
use crate::throttle::QosFlags;

pub use access::{access_limit, AccessRequest, Occupant};
pub(crate) use order::node_rank;

/// What a job asks of the nodes, resolved against one cluster.
#[derive(Clone, Debug, PartialEq)]
pub struct TaskRequest {
    /// Job id.
    pub job: String,
    /// Owner (node access).
    pub user: String,
    /// Number of tasks.
    pub tasks: u32,
    /// Resources of one task (a task never spans nodes).
    pub task: Resources,
    /// Tasks per node: every node used takes a multiple of this many (one
    /// may take the remainder of the task count), or exactly this many
    /// when `exact_tpn` is set.
    pub tasks_per_node: Option<u32>,
    /// Tasks per node are exact (JOBNODEMATCHPOLICY EXACTNODE; Maui otherwise
    /// reads `nodes=N:ppn=X` as "blocks of X tasks per node").
    pub exact_tpn: bool,
    /// Exact number of distinct nodes (EXACTNODE with a node count).
    pub node_count: Option<u32>,
    /// EXACTPROC: only nodes whose configured processors equal the
    /// processors asked per node.
    pub exact_proc: bool,
    /// All tasks on one node (ENABLEMULTINODEJOBS FALSE).
    pub single_node: bool,
    /// Required features (all of them), by id ([`Cluster::feature_ids`]).
    pub features: Bits,
    /// Required configured node memory.
    pub node_mem: Option<crate::model::NodeAmount>,
    /// Required configured node disk.
    pub node_disk: Option<crate::model::NodeAmount>,
    /// Preferred features (PREF), by id: satisfied as well as possible.
    pub pref_features: Bits,
    /// Required partition.
    pub partition: Option<String>,
    /// Its id ([`Cluster::partition_id`]).
    pub partition_id: Option<u32>,
    /// Nodes allowed by the job's host list, sorted; `None`: any node.
    pub hosts: Option<Vec<NodeIdx>>,
    /// Nodes the job must not use, sorted.
    pub excluded: Vec<NodeIdx>,
    /// The job's own node access policy (QOS flag DEDICATED: SINGLEJOB).
    pub access: Option<NodeAccessPolicy>,
}

/// Why a node cannot host a job at all.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Mismatch {
    /// Down, drained, or over its load limit.
    #[error("node is not usable")]
    Unusable,
    /// In another partition.
    #[error("node is not in partition {0}")]
    Partition(String),
    /// Lacks a required feature.
    #[error("node lacks required features")]
    Features,
    /// Not in the job's host list.
    #[error("node is not in the job's host list")]
    HostList,
    /// In the job's exclude list.
    #[error("node is excluded by the job")]
    Excluded,
    /// The node's configured memory does not meet the job's requirement.
    #[error("node has {have} MB of memory, the job needs {want}")]
    NodeMemory {
        /// Configured memory of the node, MB.
        have: u64,
        /// The requirement.
        want: crate::model::NodeAmount,
    },
    /// The node's configured disk does not meet the job's requirement.
    #[error("node has {have} MB of disk, the job needs {want}")]
    NodeDisk {
        /// Configured disk of the node, MB.
        have: u64,
        /// The requirement.
        want: crate::model::NodeAmount,
    },
    /// EXACTPROC and the node's processors differ from the request per node.
    #[error("node has {have} processors, EXACTPROC needs {want}")]
    ExactProc {
        /// Configured processors of the node.
        have: u32,
        /// Processors per node asked.
        want: u64,
    },
}

impl TaskRequest {
    /// Reads a job's request against the cluster and configuration:
    /// JOBNODEMATCHPOLICY, ENABLEMULTINODEJOBS, the QOS flag DEDICATED, host
    /// and exclude lists (names, ranges or host expressions; entries naming no
    /// known node select nothing).
    pub fn from_job(job: &Job, cluster: &Cluster, cfg: &Config) -> TaskRequest {
        let p = &cfg.params;
        let m = p.job_node_match_policy;
        let resolve = |list: &[String]| -> Vec<NodeIdx> {
            if list.is_empty() {
                return Vec::new();
            }
            let pats: Vec<HostPattern> = list
                .iter()
                .map(|e| HostPattern::parse(e).unwrap_or_else(|_| HostPattern::Exact(e.clone())))
                .collect();
            cluster
                .nodes
                .iter()
                .filter(|n| pats.iter().any(|p| p.matches(&n.name)))
                .map(|n| n.index)
                .collect()
        };
        let dedicated = QosFlags::of(cfg, job).has("DEDICATED");
        TaskRequest {
            job: job.id.clone(),
            user: job.user.clone(),
            tasks: job.tasks,
            task: job.task,
            tasks_per_node: job.tasks_per_node.filter(|t| *t > 0),
            exact_tpn: m.exact_node && job.tasks_per_node.is_some_and(|t| t > 0),
            node_count: job.nodes.filter(|n| m.exact_node && *n > 0),
            exact_proc: m.exact_proc,
            single_node: !p.enable_multi_node_jobs,
            features: cluster.feature_ids(&job.features),
            node_mem: job.node_mem,
            node_disk: job.node_disk,
            pref_features: cluster.feature_ids(&job.pref_features),
            partition: job.partition.clone(),
            partition_id: job.partition.as_deref().map(|p| cluster.partition_id(p)),
            hosts: (!job.hostlist.is_empty()).then(|| resolve(&job.hostlist)),
            excluded: resolve(&job.exclude_hosts),
            access: dedicated.then_some(NodeAccessPolicy::SingleJob),
        }
    }

    /// The block of tasks a node of a plain placement takes multiples of:
    /// the tasks per node asked for, at least one and at most the job's
    /// tasks.
    pub(crate) fn min_tasks_per_node(&self) -> u32 {
        self.tasks_per_node.unwrap_or(1).clamp(1, self.tasks.max(1))
    }

    /// True when the allocator places this request whenever its candidates
    /// hold it: then a request of this shape that does not fit does not
    /// fit either with more tasks, larger tasks or less free (the
    /// accelerated placer's dominance rests on it). Not so with a fixed
    /// node count, where the nodes first in order may not add up; blocks of
    /// tasks per node above one are left out too (the dominance is kept to
    /// the shapes it was shown for).
    pub(crate) fn fit_is_monotone(&self) -> bool {
        self.node_count.is_none() && (self.exact_tpn || self.min_tasks_per_node() == 1)
    }

    /// Processors per node the request fixes, if any (for EXACTPROC).
    pub fn procs_per_node(&self) -> Option<u64> {
        self.tasks_per_node
            .map(|t| t as u64 * self.task.procs as u64)
    }

    /// Checks the hard requirements a node must meet before resources are
    /// even looked at: usable, partition, features, host and exclude lists,
    /// EXACTPROC.
    pub fn check_node(&self, node: &EffNode) -> Result<(), Mismatch> {
        if !node.usable {
            return Err(Mismatch::Unusable);
        }
        self.check_node_any_state(node)
    }

    /// [`TaskRequest::check_node`] without the state check: could the node
    /// ever host the job, were it up?
    pub fn check_node_any_state(&self, node: &EffNode) -> Result<(), Mismatch> {
        if self.partition_id.is_some() && node.partition_id != self.partition_id {
            let name = self.partition.clone().unwrap_or_default();
            return Err(Mismatch::Partition(name));
        }
        if !self.features.is_subset(&node.feature_ids) {
            return Err(Mismatch::Features);
        }
        if let Some(want) = self.node_mem {
            let have = node.configured.mem;
            if !want.cmp.holds(have, want.mb) {
                return Err(Mismatch::NodeMemory { have, want });
            }
        }
        if let Some(want) = self.node_disk {
            let have = node.configured.disk;
            if !want.cmp.holds(have, want.mb) {
                return Err(Mismatch::NodeDisk { have, want });
            }
        }
        if let Some(h) = &self.hosts {
            if h.binary_search(&node.index).is_err() {
                return Err(Mismatch::HostList);
            }
        }
        if self.excluded.binary_search(&node.index).is_ok() {
            return Err(Mismatch::Excluded);
        }
        if self.exact_proc {
            if let Some(want) = self.procs_per_node() {
                if node.configured.procs as u64 != want {
                    return Err(Mismatch::ExactProc {
                        have: node.configured.procs,
                        want,
                    });
                }
            }
        }
        Ok(())
    }

    /// Number of the job's preferred features the node has.
    pub fn pref_count(&self, node: &EffNode) -> usize {
        self.pref_features.common(&node.feature_ids)
    }

    /// The node access view of this request.
    pub fn access_request(&self) -> AccessRequest<'_> {
        AccessRequest {
            job: &self.job,
            user: &self.user,
            access: self.access,
        }
    }
}

/// One node that could host the job at the chosen start time for its whole
/// duration, as the caller's availability profile sees it.
#[derive(Clone, Debug, PartialEq)]
pub struct Candidate {
    /// The node.
    pub node: NodeIdx,
    /// How many of the job's tasks fit in the node's free resources over the
    /// whole window (authoritative; access rules and requirements are applied
    /// on top by [`allocate`]).
    pub tasks: u32,
    /// Resources free over the whole window (AMEM, APROCS, ... and best fit).
    pub free: Resources,
    /// The job's affinity for a reservation covering the node in the window;
    /// `None` when no reservation is involved.
    pub affinity: Option<Affinity>,
    /// Time from the job's end to the next reservation or usage change on
    /// the node (LASTAVAILABLE under LASTAVAILABLEORDER BESTFIT); `None`
    /// when nothing follows.
    pub gap: Option<Secs>,
    /// LASTAVAILABLE in Maui's order (LASTAVAILABLEORDER LONGESTFIRST):
    /// how long the node stays available to the job from now, as Maui
    /// measures it ([`crate::profile::Profile::maui_availability`];
    /// `Secs::MAX` for no end), for a start now; 0 for a future start,
    /// where only the node index orders. When set, LASTAVAILABLE orders by
    /// it, longest first, then the highest index, instead of by `gap`.
    pub maui_avail: Option<Secs>,
    /// When the node frees up for the job, for a future start under
    /// RESERVATIONNODEPOLICY LATESTFREED: the nodes freed last come first
    /// (after reservation affinity); `None` otherwise.
    pub freed_at: Option<crate::model::Time>,
    /// Jobs on the node now (PRIORITYF JOBCOUNT).
    pub job_count: u32,
    /// Other jobs holding resources on the node during the window.
    pub occupants: Vec<Occupant>,
}

impl Candidate {
    /// A candidate with no reservation, nothing following and no occupants.
    pub fn new(node: NodeIdx, tasks: u32, free: Resources) -> Candidate {
        Candidate {
            node,
            tasks,
            free,
            affinity: None,
            gap: None,
            maui_avail: None,
            freed_at: None,
            job_count: 0,
            occupants: Vec::new(),
        }
    }
}

/// The chosen nodes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Allocation {
    /// Nodes and the number of the job's tasks on each, by node index.
    pub nodes: Vec<(NodeIdx, u32)>,
    /// The policy actually applied (CPULOAD for a future start and a
    /// declined LOCAL fall back, see [`allocate`]).
    pub policy: NodeAllocationPolicy,
}

/// A site's own allocation algorithm (NODEALLOCATIONPOLICY LOCAL), reached
/// through the C ABI.
pub trait LocalAllocator {
    /// Chooses nodes and tasks per node among `candidates` (already filtered
    /// by requirements and node access, `tasks` capped accordingly), or
    /// `None` to decline. An answer that breaks the request is treated as a
    /// refusal.
    fn allocate(
        &self,
        req: &TaskRequest,
        candidates: &[Candidate],
        cluster: &Cluster,
        immediate: bool,
    ) -> Option<Vec<(NodeIdx, u32)>>;
}

/// The policy for a job: its own override, else NODEALLOCATIONPOLICY.
pub fn effective_policy(job: &Job, params: &Params) -> NodeAllocationPolicy {
    job.node_allocation_policy
        .unwrap_or(params.node_allocation_policy)
}

/// A candidate that passed requirements and access, with its usable tasks.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Slot<'a> {
    pub cand: &'a Candidate,
    pub node: &'a EffNode,
    pub cap: u32,
}

/// Candidates that may host tasks of the job, each capped by node access,
/// in node index order (later duplicates of a node are ignored).
/// `checked`: the caller vouches that every candidate passes
/// [`TaskRequest::check_node`] (see [`allocate_checked`]).
fn eligible<'a>(
    req: &TaskRequest,
    candidates: &'a [Candidate],
    cluster: &'a Cluster,
    checked: bool,
) -> Vec<Slot<'a>> {
    // Nodes seen, one bit each (nodes outside the cluster are skipped below).
    let mut seen = vec![0u64; cluster.nodes.len().div_ceil(64)];
    let mut out: Vec<Slot<'a>> = Vec::with_capacity(candidates.len());
    for c in candidates {
        let Some(node) = cluster.nodes.get(c.node as usize) else {
            continue;
        };
        let (w, b) = (c.node as usize / 64, 1u64 << (c.node % 64));
        if seen[w] & b != 0 {
            continue;
        }
        seen[w] |= b;
        if !checked && req.check_node(node).is_err() {
            continue;
        }
        let cap = usable_tasks(req, node, c);
        if cap > 0 {
            out.push(Slot { cand: c, node, cap });
        }
    }
    out.sort_by_key(|s| s.node.index);
    out
}

/// How many of the candidate's tasks the job may place on its node (0:
/// none): its room, capped by node access and an exact tasks-per-node
/// count. A candidate is a slot of the allocation when this is positive.
pub(crate) fn usable_tasks(req: &TaskRequest, node: &EffNode, c: &Candidate) -> u32 {
    let Ok(limit) = access_limit(node, &req.access_request(), &c.occupants) else {
        return 0;
    };
    let mut cap = c.tasks.min(limit);
    if req.exact_tpn {
        // No node ever takes more than the exact count.
        cap = cap.min(req.tasks_per_node.unwrap_or(u32::MAX));
    }
    cap
}

/// The fewest slots [`first_slots`] tries first.
pub(crate) const FIRST_SLOTS_MIN: usize = 32;

/// How many slots, first in the policy's order, an allocation tries
/// before it orders them all, or `None` when it orders them all at once.
/// Plain and single-node placements take the ordered slots first come,
/// first served and stop when the job is placed: when the first few slots
/// suffice, the answer is the one the whole order gives.
pub(crate) fn first_slots(req: &TaskRequest, policy: NodeAllocationPolicy) -> Option<usize> {
    use NodeAllocationPolicy as P;
    let plain = req.node_count.is_none() && !(req.exact_tpn && req.tasks_per_node.is_some());
    let ordered_by_key = !matches!(
        policy,
        P::Priority | P::Contiguous | P::MaxBalance | P::Local
    );
    (plain && ordered_by_key).then(|| (req.tasks as usize).saturating_mul(2).max(FIRST_SLOTS_MIN))
}

/// What a slot with room for `cap` of the job's tasks counts toward its
/// tasks in a plain placement ([`first_slots`]), so that slots first in
/// the order whose counts add up to the job's tasks certainly hold it: a
/// single-node job's slot counts all its tasks when it holds them all;
/// where a node takes one task or more, a slot counts its room; where a
/// node must take several, slots may be passed over and none counts.
pub(crate) fn counts_toward(req: &TaskRequest, cap: u32) -> u32 {
    if req.single_node {
        return if cap >= req.tasks { req.tasks } else { 0 };
    }
    match req.min_tasks_per_node() {
        1 => cap,
        _ => 0,
    }
}

/// The allocation of a job starting now from `candidates` that hold the
/// first `k` ([`first_slots`]) slots of the whole order of the candidates
/// [`allocate_checked`] would be given (and maybe others), or `None` when
/// those slots do not hold the job: then only the whole order decides.
/// Where it answers, it answers as [`allocate_checked`] does.
pub(crate) fn allocate_from_first(
    req: &TaskRequest,
    candidates: &[Candidate],
    cluster: &Cluster,
    policy: NodeAllocationPolicy,
    k: usize,
) -> Option<Allocation> {
    debug_assert_eq!(first_slots(req, policy), Some(k));
    if req.tasks == 0 {
        return None;
    }
    let slots = eligible(req, candidates, cluster, true);
    let first = if k < slots.len() {
        order::ordered_prefix(req, &slots, policy, k)
    } else {
        order::ordered(req, &slots, policy)
    };
    let mut nodes = place::place(req, &first, false)?;
    nodes.sort_unstable();
    Some(Allocation { nodes, policy })
}

/// Chooses nodes and tasks per node for a job by `policy`, or `None` when
/// the candidates cannot hold it.
///
/// `immediate` says the job would start now (CPULOAD applies only then; a
/// future reservation uses MINRESOURCE, as the guide says). For LOCAL the
/// site's allocator is asked first; when there is none, it declines or its
/// answer breaks the request, LASTAVAILABLE (Maui's default) decides and the
/// returned [`Allocation::policy`] says so.
#[cfg(test)]
pub fn allocate(
    req: &TaskRequest,
    candidates: &[Candidate],
    cluster: &Cluster,
    policy: NodeAllocationPolicy,
    immediate: bool,
    local: Option<&dyn LocalAllocator>,
) -> Option<Allocation> {
    allocate_with(req, candidates, cluster, policy, immediate, local, false)
}

/// [`allocate`] for candidates the caller has already tested with
/// [`TaskRequest::check_node`] (the scheduling iteration builds them so):
/// the same answer without testing every node's features again.
pub fn allocate_checked(
    req: &TaskRequest,
    candidates: &[Candidate],
    cluster: &Cluster,
    policy: NodeAllocationPolicy,
    immediate: bool,
    local: Option<&dyn LocalAllocator>,
) -> Option<Allocation> {
    allocate_with(req, candidates, cluster, policy, immediate, local, true)
}

fn allocate_with(
    req: &TaskRequest,
    candidates: &[Candidate],
    cluster: &Cluster,
    policy: NodeAllocationPolicy,
    immediate: bool,
    local: Option<&dyn LocalAllocator>,
    checked: bool,
) -> Option<Allocation> {
    if req.tasks == 0 {
        return None;
    }
    let slots = eligible(req, candidates, cluster, checked);
    let mut policy = match policy {
        NodeAllocationPolicy::CpuLoad if !immediate => NodeAllocationPolicy::MinResource,
        p => p,
    };
    if policy == NodeAllocationPolicy::Local {
        if let Some(l) = local {
            let offered: Vec<Candidate> = slots
                .iter()
                .map(|s| Candidate {
                    tasks: s.cap,
                    ..s.cand.clone()
                })
                .collect();
            if let Some(mut answer) = l.allocate(req, &offered, cluster, immediate) {
                answer.sort_unstable();
                if place::valid(req, &slots, &answer) {
                    return Some(Allocation {
                        nodes: answer,
                        policy,
                    });
                }
            }
        }
        policy = NodeAllocationPolicy::LastAvailable;
    }
    let chosen = match policy {
        NodeAllocationPolicy::Contiguous => place::contiguous(req, &slots),
        NodeAllocationPolicy::MaxBalance => place::max_balance(req, &slots),
        p if !immediate && slots.iter().any(|s| s.cand.freed_at.is_some()) => {
            place::place(req, &order::latest_freed_first(req, &slots, p), false)
        }
        p => {
            // The first slots in order, without sorting every candidate,
            // when they suffice.
            let first = first_slots(req, p)
                .filter(|&k| k < slots.len())
                .and_then(|k| place::place(req, &order::ordered_prefix(req, &slots, p, k), false));
            match first {
                Some(x) => Some(x),
                None => {
                    let ordered = order::ordered(req, &slots, p);
                    place::place(req, &ordered, false)
                }
            }
        }
    }?;
    let mut nodes = chosen;
    nodes.sort_unstable();
    Some(Allocation { nodes, policy })
}

/// True when `nodes` is a correct allocation of the request among the
/// candidates: every node eligible and used once, within its access and
/// resource bounds, the task count and shape honoured. For tests and for
/// callers that want to check a placement they were given.
pub fn is_valid_allocation(
    req: &TaskRequest,
    candidates: &[Candidate],
    cluster: &Cluster,
    nodes: &[(NodeIdx, u32)],
) -> bool {
    let slots = eligible(req, candidates, cluster, false);
    let mut sorted = nodes.to_vec();
    sorted.sort_unstable();
    place::valid(req, &slots, &sorted)
}
