//! The cluster of a snapshot: the RM's nodes with NODECFG applied.

use super::{Config, NodeLoadPolicy};
use crate::model::{Cluster, EffNode, GresList, Node, NodeIdx, MAX_GRES};

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
            let mut gres = nc.gres.clone().unwrap_or_default();
            let mut gres_overridden = Vec::new();
            for (name, count) in n.gres.items() {
                if let Some(c) = gres.get(name).filter(|c| c != count) {
                    gres_overridden.push((name.clone(), c, *count));
                }
                gres.set(name, *count);
            }
            let e = EffNode {
                index: i as NodeIdx,
                name: n.name.clone(),
                state: n.state,
                configured: n.configured,
                reported_available: n.available,
                gres,
                gres_overridden,
                gres_untyped: 0,
                features,
                feature_ids: Default::default(),
                partition: nc.partition.clone().or_else(|| n.partition.clone()),
                partition_id: None,
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
            out.by_name.insert(e.name.clone(), e.index);
            out.nodes.push(e);
        }
        out.intern_names();
        out.intern_gres(nodes);
        for e in &out.nodes {
            out.total = out.total.saturating_add(&e.configured);
        }
        out
    }

    /// Gives generic resource names their ids and fills the nodes' counts
    /// (configured, and reported free where the RM measures them).
    fn intern_gres(&mut self, rm: &[Node]) {
        if self.nodes.iter().all(|n| n.gres.is_empty()) {
            return;
        }
        let mut names: Vec<String> = self
            .nodes
            .iter()
            .flat_map(|n| n.gres.with_totals().into_iter().map(|(name, _)| name))
            .collect();
        names.sort();
        names.dedup();
        if names.len() > MAX_GRES {
            self.gres_dropped = names.split_off(MAX_GRES);
        }
        let untyped = names
            .iter()
            .enumerate()
            .filter(|(_, n)| !n.contains(':'))
            .fold(0u32, |m, (k, _)| m | 1 << k);
        self.gres_names = names;
        for (k, rm_node) in rm.iter().enumerate().take(self.nodes.len()) {
            let keep = |l: &GresList| {
                GresList::from(
                    l.items()
                        .iter()
                        .filter(|(n, _)| {
                            !self
                                .gres_dropped
                                .iter()
                                .any(|d| d == n || n.starts_with(&format!("{d}:")))
                        })
                        .cloned()
                        .collect::<Vec<_>>(),
                )
            };
            let configured = self
                .gres_counts(&keep(&self.nodes[k].gres))
                .unwrap_or_default();
            let free = rm_node
                .available_gres
                .as_ref()
                .map(|g| self.gres_counts(&keep(g)).unwrap_or_default());
            let n = &mut self.nodes[k];
            n.gres_untyped = untyped;
            n.configured.gres = configured;
            if let Some(a) = &mut n.reported_available {
                a.gres = free.unwrap_or(configured);
            }
        }
    }

    /// Gives features and partitions their ids (see [`Cluster::feature_names`]).
    fn intern_names(&mut self) {
        let mut features: Vec<String> = self
            .nodes
            .iter()
            .flat_map(|n| n.features.iter().cloned())
            .collect();
        features.sort();
        features.dedup();
        self.feature_names = features;
        let mut partitions: Vec<String> = self
            .nodes
            .iter()
            .filter_map(|n| n.partition.clone())
            .collect();
        partitions.sort();
        partitions.dedup();
        self.partition_names = partitions;
        for k in 0..self.nodes.len() {
            let n = &self.nodes[k];
            let ids = self.feature_ids(&n.features);
            let part = n.partition.as_deref().map(|p| self.partition_id(p));
            self.nodes[k].feature_ids = ids;
            self.nodes[k].partition_id = part;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Resources;

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
        assert_eq!(c.feature_names, vec!["fast", "tape"]);
        assert_eq!(c.nodes[1].feature_ids, [0, 1].into_iter().collect());
        assert_eq!(
            c.feature_ids(&["tape".into(), "gpu".into()]),
            [1, 2].into_iter().collect()
        );
        assert_eq!(c.nodes[1].partition_id, Some(0));
        assert_eq!(c.partition_id("p1"), 1);
        assert_eq!(c.nodes[1].partition.as_deref(), Some("p2"));
        assert_eq!(c.nodes[1].priority, 7);
        assert!(c.nodes[1].priorityf.is_some());
        assert_eq!(c.total.procs, 12);
        assert_eq!(c.index("b"), Some(1));
    }
}
