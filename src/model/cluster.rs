//! The cluster as the engine sees it: RM nodes with NODECFG applied
//! (`Cluster::build`, beside the configuration in `config::cluster`).

use super::policy::{NodeAccessPolicy, PriorityF};
use super::{NodeState, Resources};

/// Index of a node in [`Cluster::nodes`] (the RM's order).
pub type NodeIdx = u32;

/// A node with its effective attributes: NODECFG[name] over NODECFG[DEFAULT]
/// over what the RM reports.
#[derive(Clone, Debug, PartialEq)]
pub struct EffNode {
    /// Position in RM order.
    pub index: NodeIdx,
    /// Host name.
    pub name: String,
    /// RM state.
    pub state: NodeState,
    /// Configured resources.
    pub configured: Resources,
    /// Free resources the RM reports (utilized view), if any.
    pub reported_available: Option<Resources>,
    /// Features, sorted, RM's plus NODECFG FEATURES.
    pub features: Vec<String>,
    /// Partition.
    pub partition: Option<String>,
    /// Relative speed (default 1.0).
    pub speed: f64,
    /// Processor speed in MHz, if known.
    pub procspeed: Option<u32>,
    /// Admin priority (default 0).
    pub priority: i64,
    /// Allocation priority function, if configured.
    pub priorityf: Option<PriorityF>,
    /// NODECFG MAXJOB.
    pub max_job: Option<u32>,
    /// NODECFG MAXJOBPERUSER.
    pub max_job_per_user: Option<u32>,
    /// Node access policy (NODECFG ACCESS or NODEACCESSPOLICY).
    pub access: NodeAccessPolicy,
    /// Load average.
    pub load: f64,
    /// Historical batch usage percentage.
    pub usage: f64,
    /// True when new work may be placed here: the RM state accepts work and,
    /// under NODELOADPOLICY ADJUSTSTATE, the load is below MAXLOAD.
    pub usable: bool,
}

impl EffNode {
    /// True when the node has every feature in `wanted`.
    pub fn has_features(&self, wanted: &[String]) -> bool {
        wanted
            .iter()
            .all(|f| self.features.binary_search(f).is_ok())
    }
}

/// All nodes of one snapshot with their effective attributes.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Cluster {
    /// Nodes in RM order (`nodes[i].index == i`).
    pub nodes: Vec<EffNode>,
    /// Name to index (the Fx hash: looked up for every allocation of every
    /// running job at each iteration).
    pub by_name: rustc_hash::FxHashMap<String, NodeIdx>,
    /// Sum of configured resources of all nodes (PE and percentages).
    pub total: Resources,
}

impl Cluster {
    /// Index of a node by name.
    pub fn index(&self, name: &str) -> Option<NodeIdx> {
        self.by_name.get(name).copied()
    }
}
