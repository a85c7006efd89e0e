//! Compute nodes as the resource manager reports them.

use super::gres::GresList;
use super::resources::Resources;
use serde::{Deserialize, Serialize};

/// A node's state as reported by the RM, in Maui's terms.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum NodeState {
    /// Up, nothing running.
    #[default]
    Idle,
    /// Up, some jobs running, room may be left.
    Running,
    /// Up, fully used (or over its load limit).
    Busy,
    /// Up, finishing its jobs, takes no new work.
    Draining,
    /// Up but taken out of service by an administrator.
    Drained,
    /// Not reachable.
    Down,
    /// The RM does not know.
    Unknown,
}

impl NodeState {
    /// True when new work may be placed on the node (now or later).
    pub fn accepts_work(self) -> bool {
        matches!(self, NodeState::Idle | NodeState::Running | NodeState::Busy)
    }

    /// Maui's display name (`Idle`, `Running`, ...).
    pub fn name(self) -> &'static str {
        match self {
            NodeState::Idle => "Idle",
            NodeState::Running => "Running",
            NodeState::Busy => "Busy",
            NodeState::Draining => "Draining",
            NodeState::Drained => "Drained",
            NodeState::Down => "Down",
            NodeState::Unknown => "Unknown",
        }
    }
}

/// A compute node.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Node {
    /// Host name as the RM knows it.
    pub name: String,
    /// Position in the RM's node order (FIRSTAVAILABLE, CONTIGUOUS).
    /// Assigned from list order when a snapshot is loaded.
    pub index: u32,
    /// State as reported by the RM.
    pub state: NodeState,
    /// Configured resources.
    pub configured: Resources,
    /// Resources the RM reports free right now (utilized view), if it does.
    /// When absent, availability is configured minus what running jobs hold.
    pub available: Option<Resources>,
    /// Generic resources configured (`gpu:4`, `gpu:a100:4,tape:2`); a
    /// count given here wins over NODECFG GRES.
    #[serde(skip_serializing_if = "GresList::is_empty")]
    pub gres: GresList,
    /// Generic resources the RM reports free right now, if it does.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub available_gres: Option<GresList>,
    /// Node features (properties), e.g. `bigmem`, `fast`.
    pub features: Vec<String>,
    /// Partition the node belongs to (`NODECFG PARTITION` overrides).
    pub partition: Option<String>,
    /// Relative machine speed (1.0 = reference); `NODECFG SPEED` overrides.
    pub speed: Option<f64>,
    /// Processor speed in MHz; `NODECFG PROCSPEED` overrides.
    pub procspeed: Option<u32>,
    /// One-minute load average.
    pub load: f64,
    /// Administrative node priority; `NODECFG PRIORITY` overrides.
    pub priority: Option<i64>,
    /// Percentage of time the node ran batch work (PRIORITYF `USAGE`).
    pub usage: Option<f64>,
}
