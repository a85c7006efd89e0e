//! Nodes that could ever satisfy a job's hard requirements, by
//! requirement signature.

use crate::allocation::TaskRequest;
use crate::model::{Bits, Cluster, NodeIdx, Resources};

/// A hash map with the Fx hash (lookups only, never iterated).
type FxMap<K, V> = rustc_hash::FxHashMap<K, V>;

/// The request fields `Feasible` depends on (those `check_node` reads),
/// all ids.
type FeasibleKey = (
    Bits,
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
/// requirement signature (most jobs share one). Looked up by a hash of the
/// fields, compared in full, so a hit allocates nothing.
#[derive(Default)]
pub(in crate::engine) struct Feasible {
    memo: FxMap<u64, Vec<(FeasibleKey, FeasibleNodes, u32)>>,
    /// Node sets by id (the third field of a memo entry).
    pub(super) sets: Vec<NodeSet>,
    /// The largest node of each set, by id (as in its [`FeasibleNodes`]).
    largest: Vec<Resources>,
}

impl Feasible {
    fn hash(req: &TaskRequest) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut h = rustc_hash::FxHasher::default();
        req.features.hash(&mut h);
        req.partition_id.hash(&mut h);
        req.hosts.hash(&mut h);
        req.excluded.hash(&mut h);
        req.exact_proc.hash(&mut h);
        req.procs_per_node().hash(&mut h);
        h.finish()
    }

    fn same(k: &FeasibleKey, req: &TaskRequest) -> bool {
        k.0 == req.features
            && k.1 == req.partition_id
            && k.2 == req.hosts
            && k.3 == req.excluded
            && k.4 == req.exact_proc
            && k.5 == req.procs_per_node()
    }

    /// See [`FeasibleNodes`].
    pub(in crate::engine) fn of(&mut self, req: &TaskRequest, cluster: &Cluster) -> &FeasibleNodes {
        let (bucket, pos) = self.entry(req, cluster);
        &self.memo[&bucket][pos].1
    }

    /// Id of the [`NodeSet`] of the nodes meeting the request's
    /// requirements whatever their state.
    pub(in crate::engine) fn set_of(&mut self, req: &TaskRequest, cluster: &Cluster) -> u32 {
        let (bucket, pos) = self.entry(req, cluster);
        self.memo[&bucket][pos].2
    }

    pub(in crate::engine) fn set(&self, id: u32) -> &NodeSet {
        &self.sets[id as usize]
    }

    /// The largest node (each resource's most) of set `id`.
    pub(in crate::engine) fn largest(&self, id: u32) -> Resources {
        self.largest[id as usize]
    }

    fn entry(&mut self, req: &TaskRequest, cluster: &Cluster) -> (u64, usize) {
        let h = Self::hash(req);
        let bucket = self.memo.entry(h).or_default();
        let pos = match bucket.iter().position(|(k, _, _)| Self::same(k, req)) {
            Some(p) => p,
            None => {
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
                let key = (
                    req.features.clone(),
                    req.partition_id,
                    req.hosts.clone(),
                    req.excluded.clone(),
                    req.exact_proc,
                    req.procs_per_node(),
                );
                bucket.push((key, (nodes, max, procs), self.sets.len() as u32));
                self.sets.push(set);
                self.largest.push(max);
                bucket.len() - 1
            }
        };
        (h, pos)
    }
}
