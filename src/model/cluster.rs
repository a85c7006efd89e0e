//! The cluster as the engine sees it: RM nodes with NODECFG applied.

use super::{Node, NodeState, Resources};
use crate::config::{Config, NodeAccessPolicy, NodeLoadPolicy, PriorityF};

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
    /// Applies the configuration to the RM's nodes (kept in their order).
    pub fn build(nodes: &[Node], cfg: &Config) -> Cluster {
        let p = &cfg.params;
        let mut out = Cluster::default();
        for (i, n) in nodes.iter().enumerate() {
            let nc = cfg.node_cfg(&n.name);
            let mut features = n.features.clone();
            if let Some(f) = &nc.features {
                features.extend(f.0.iter().cloned());
            }
            features.sort();
            features.dedup();
            let max_load = nc
                .max_load
                .or((p.node_max_load > 0.0).then_some(p.node_max_load));
            let overloaded = p.node_load_policy == NodeLoadPolicy::AdjustState
                && max_load.is_some_and(|m| n.load >= m);
            let e = EffNode {
                index: i as NodeIdx,
                name: n.name.clone(),
                state: n.state,
                configured: n.configured,
                reported_available: n.available,
                features,
                partition: nc.partition.clone().or_else(|| n.partition.clone()),
                speed: nc.speed.or(n.speed).unwrap_or(1.0),
                procspeed: nc.procspeed.or(n.procspeed),
                priority: nc.priority.or(n.priority).unwrap_or(0),
                priorityf: nc.priorityf.clone(),
                max_job: nc.max_job,
                max_job_per_user: nc.max_job_per_user,
                access: nc.access.unwrap_or(p.node_access_policy),
                load: n.load,
                usage: n.usage.unwrap_or(0.0),
                usable: n.state.accepts_work() && !overloaded,
            };
            out.total = out.total.saturating_add(&e.configured);
            out.by_name.insert(e.name.clone(), e.index);
            out.nodes.push(e);
        }
        out
    }

    /// Index of a node by name.
    pub fn index(&self, name: &str) -> Option<NodeIdx> {
        self.by_name.get(name).copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nodecfg_overrides_rm_values() {
        let cfg = Config::parse(
            "NODECFG[DEFAULT] SPEED=1.0 PRIORITYF=JOBCOUNT\nNODECFG[b] SPEED=2.5 FEATURES=fast PARTITION=p2 PRIORITY=7\nNODEMAXLOAD 3.0\n",
            "t",
        )
        .config;
        let nodes = vec![
            Node {
                name: "a".into(),
                speed: Some(0.5),
                load: 3.5,
                configured: Resources::procs(4),
                ..Node::default()
            },
            Node {
                name: "b".into(),
                features: vec!["tape".into()],
                configured: Resources::procs(8),
                ..Node::default()
            },
        ];
        let c = Cluster::build(&nodes, &cfg);
        assert_eq!(
            c.nodes[0].speed, 1.0,
            "NODECFG[DEFAULT] SPEED wins over the RM"
        );
        assert!(
            !c.nodes[0].usable,
            "load 3.5 >= NODEMAXLOAD 3.0 marks it busy"
        );
        assert_eq!(c.nodes[1].speed, 2.5);
        assert_eq!(c.nodes[1].features, vec!["fast", "tape"]);
        assert_eq!(c.nodes[1].partition.as_deref(), Some("p2"));
        assert_eq!(c.nodes[1].priority, 7);
        assert!(c.nodes[1].priorityf.is_some());
        assert_eq!(c.total.procs, 12);
        assert_eq!(c.index("b"), Some(1));
    }
}
