//! The cluster as the engine sees it: RM nodes with NODECFG applied
//! (`Cluster::build`, beside the configuration in `config::cluster`).

use super::policy::{NodeAccessPolicy, PriorityF};
use super::{Bits, GresCounts, GresList, NodeState, Resources, MAX_GRES};

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
    /// Generic resources: NODECFG GRES with the RM's counts over it, as
    /// listed (the counts by id, implied totals included, are in
    /// `configured.gres`).
    pub gres: GresList,
    /// Bit `k` set when generic resource id `k` is an untyped name (`gpu`,
    /// not `gpu:a100`): the ids whose counts are the node's devices.
    pub gres_untyped: u32,
    /// Names whose NODECFG GRES count the RM's replaced: (name, NODECFG
    /// count, RM count).
    pub gres_overridden: Vec<(String, u32, u32)>,
    /// Features, sorted, RM's plus NODECFG FEATURES.
    pub features: Vec<String>,
    /// The same features by id ([`Cluster::feature_names`]).
    pub feature_ids: Bits,
    /// Partition.
    pub partition: Option<String>,
    /// The partition's id ([`Cluster::partition_names`]).
    pub partition_id: Option<u32>,
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
    /// Generic resources in `counts` (of this node's cluster), each device
    /// once: the untyped names' counts summed (CGRES, AGRES).
    pub fn gres_devices(&self, counts: &GresCounts) -> u64 {
        counts
            .0
            .iter()
            .enumerate()
            .filter(|(k, _)| self.gres_untyped & (1 << k) != 0)
            .map(|(_, &c)| c as u64)
            .sum()
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
    /// Every node feature, sorted: a feature's id is its position.
    pub feature_names: Vec<String>,
    /// Every node partition, sorted: a partition's id is its position.
    pub partition_names: Vec<String>,
    /// Every generic resource name nodes offer (typed ones and their
    /// untyped totals), sorted: a name's id is its position, its count in
    /// [`Resources::gres`] at that index. At most [`MAX_GRES`].
    pub gres_names: Vec<String>,
    /// Names past the first [`MAX_GRES`], not scheduled.
    pub gres_dropped: Vec<String>,
}

impl Cluster {
    /// Index of a node by name.
    pub fn index(&self, name: &str) -> Option<NodeIdx> {
        self.by_name.get(name).copied()
    }

    /// The ids of features `names`; a name no node has is the id past
    /// the last (no node's set holds it).
    pub fn feature_ids(&self, names: &[String]) -> Bits {
        let unknown = self.feature_names.len() as u32;
        names
            .iter()
            .map(|f| id_in(&self.feature_names, f).unwrap_or(unknown))
            .collect()
    }

    /// The id of partition `name`; one no node is in is the id past the
    /// last.
    pub fn partition_id(&self, name: &str) -> u32 {
        id_in(&self.partition_names, name).unwrap_or(self.partition_names.len() as u32)
    }
}

impl Cluster {
    /// The id of generic resource `name`, if a node offers it.
    pub fn gres_id(&self, name: &str) -> Option<usize> {
        id_in(&self.gres_names, name).map(|k| k as usize)
    }

    /// `counts` by name, the ids' non-zero counts (for what is saved:
    /// ids change with the cluster, names do not); `None` when all are
    /// zero, as they are without generic resources.
    pub fn gres_by_name(
        &self,
        counts: &GresCounts,
    ) -> Option<std::collections::BTreeMap<String, u32>> {
        if counts.is_zero() {
            return None;
        }
        Some(
            self.gres_names
                .iter()
                .enumerate()
                .filter(|&(k, _)| counts.get(k) > 0)
                .map(|(k, n)| (n.clone(), counts.get(k)))
                .collect(),
        )
    }

    /// Counts by id from [`Cluster::gres_by_name`]'s map; a name no node
    /// offers now counts nothing.
    pub fn gres_from_names(
        &self,
        names: Option<&std::collections::BTreeMap<String, u32>>,
    ) -> GresCounts {
        let mut out = GresCounts::ZERO;
        for (name, &count) in names.into_iter().flatten() {
            if let Some(k) = self.gres_id(name) {
                out.set(k, count);
            }
        }
        out
    }

    /// Counts by id of the names in `list` with their untyped totals;
    /// the error names the first name no node offers.
    pub fn gres_counts(&self, list: &GresList) -> Result<GresCounts, String> {
        let mut out = GresCounts::ZERO;
        for (name, count) in list.with_totals() {
            match self.gres_id(&name) {
                Some(_) if count > super::gres::MAX_GRES_COUNT => {
                    return Err(over_max(&name, count))
                }
                Some(k) => out.set(k, count),
                None if count == 0 => {}
                None if self.gres_dropped.contains(&name) => {
                    return Err(format!(
                        "generic resource {name} is past the {MAX_GRES} names mauisched schedules"
                    ))
                }
                None => return Err(format!("no node has generic resource {name}")),
            }
        }
        Ok(out)
    }

    /// Free counts as a request can use them: a typed name's count is at
    /// most its untyped total's (an untyped job may have taken a GPU of
    /// that type).
    pub fn gres_usable(&self, counts: &GresCounts) -> GresCounts {
        let mut out = *counts;
        for (k, name) in self.gres_names.iter().enumerate() {
            if let Some(base) = name.split_once(':').and_then(|(b, _)| self.gres_id(b)) {
                out.set(k, out.get(k).min(counts.get(base)));
            }
        }
        out
    }

    /// `counts` by name (`gpu:2,tape:1`), zero counts left out.
    pub fn gres_text(&self, counts: &GresCounts) -> String {
        let mut out = String::new();
        for (k, name) in self.gres_names.iter().enumerate() {
            let c = counts.get(k);
            if c > 0 {
                if !out.is_empty() {
                    out.push(',');
                }
                out.push_str(&format!("{name}:{c}"));
            }
        }
        out
    }
}

/// A count above what one generic resource count holds.
fn over_max(name: &str, count: u32) -> String {
    let max = super::gres::MAX_GRES_COUNT;
    format!("{name}:{count} is above {max}, the most of one generic resource mauisched counts")
}

/// The position of `name` in `sorted`.
fn id_in(sorted: &[String], name: &str) -> Option<u32> {
    sorted
        .binary_search_by(|x| x.as_str().cmp(name))
        .ok()
        .map(|k| k as u32)
}
