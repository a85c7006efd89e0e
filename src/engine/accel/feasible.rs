//! Nodes that could ever satisfy a job's hard requirements, by
//! requirement signature.

use crate::allocation::TaskRequest;
use crate::model::{Bits, Cluster, NodeAmount, NodeIdx, Resources};

/// The request fields `Feasible` depends on (those `check_node` reads),
/// all ids: features, partition, host list, exclude list, EXACTPROC and
/// the processors per node it compares.
type FeasibleKey = (
    Bits,
    (Option<NodeAmount>, Option<NodeAmount>),
    Option<u32>,
    Option<Vec<NodeIdx>>,
    Vec<NodeIdx>,
    bool,
    Option<u64>,
);

/// (nodes meeting the requirements whatever their state, largest node,
/// total processors of those nodes).
pub(in crate::engine) type FeasibleNodes = (Vec<NodeIdx>, Resources, u64);

/// The same nodes as a bit set by node index, for the per-node test of
/// candidate scans (one bit where `check_node` makes five tests).
pub(in crate::engine) type NodeSet = Bits;

/// Nodes that could ever satisfy a job's hard requirements, summarised by
/// requirement signature (most jobs share one), each given an id.
#[derive(Default)]
pub(in crate::engine) struct Feasible {
    ids: rustc_hash::FxHashMap<FeasibleKey, u32>,
    /// By id.
    nodes: Vec<FeasibleNodes>,
    /// Node sets by id.
    pub(super) sets: Vec<NodeSet>,
}

impl Feasible {
    /// The id of the requirements of `req` (its node set's), given on
    /// first sight.
    pub(in crate::engine) fn id_of(&mut self, req: &TaskRequest, cluster: &Cluster) -> u32 {
        let key = (
            req.features.clone(),
            (req.node_mem, req.node_disk),
            req.partition_id,
            req.hosts.clone(),
            req.excluded.clone(),
            req.exact_proc,
            req.procs_per_node(),
        );
        if let Some(&id) = self.ids.get(&key) {
            return id;
        }
        let mut nodes = Vec::new();
        let mut max = Resources::ZERO;
        let mut procs = 0u64;
        let mut set = NodeSet::default();
        for n in &cluster.nodes {
            if req.check_node_any_state(n).is_ok() {
                set.insert(n.index);
                nodes.push(n.index);
                max = max.max_each(&n.configured);
                procs += n.configured.procs as u64;
            }
        }
        let id = self.sets.len() as u32;
        self.ids.insert(key, id);
        self.nodes.push((nodes, max, procs));
        self.sets.push(set);
        id
    }

    /// The nodes of requirements `id` (see [`FeasibleNodes`]).
    pub(in crate::engine) fn nodes(&self, id: u32) -> &FeasibleNodes {
        &self.nodes[id as usize]
    }

    /// The node set of requirements `id`.
    pub(in crate::engine) fn set(&self, id: u32) -> &NodeSet {
        &self.sets[id as usize]
    }

    /// The largest node (each resource's most) of requirements `id`.
    pub(in crate::engine) fn largest(&self, id: u32) -> Resources {
        self.nodes[id as usize].1
    }
}
