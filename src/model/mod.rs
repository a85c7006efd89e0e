//! The domain model: nodes, jobs, credentials, resources and time.

pub mod bits;
pub mod cluster;
pub mod cred;
pub mod gres;
pub mod hostlist;
pub mod job;
mod keyword;
pub mod memory;
pub mod node;
pub mod policy;
pub mod resources;
pub mod snapshot;
pub mod time;

pub use bits::Bits;
pub use cluster::{Cluster, EffNode, NodeIdx};
pub use cred::CredKind;
pub use gres::{GresCounts, GresList, MAX_GRES};
pub use hostlist::{HostList, HostPattern};
pub use job::{Cmp, HoldKind, Job, JobState, NodeAmount, NodeTasks};
pub use node::{Node, NodeState};
pub use policy::{NodeAccessPolicy, NodeAllocationPolicy};
pub use resources::Resources;
pub use snapshot::{Snapshot, SnapshotError};
pub use time::{Secs, Time};
