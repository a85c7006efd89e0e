//! A snapshot: what the RM reports at one moment (nodes and jobs).
//!
//! The JSON form is the one `mauictl --snapshot FILE`, the simulator and the
//! tests use; it is documented in `docs/snapshot.md`.

use super::{Job, Node};
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;

/// Nodes and jobs as the RM reports them.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Snapshot {
    /// Time of the snapshot (epoch seconds); commands use it as "now".
    pub now: Option<i64>,
    /// Nodes in RM order.
    pub nodes: Vec<Node>,
    /// Jobs in any order.
    pub jobs: Vec<Job>,
}

/// A snapshot that does not hang together.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum SnapshotError {
    /// The JSON could not be read.
    #[error("{0}")]
    Json(String),
    /// Two nodes share a name.
    #[error("node \"{0}\" appears twice")]
    DuplicateNode(String),
    /// Two jobs share an id.
    #[error("job \"{0}\" appears twice")]
    DuplicateJob(String),
    /// A job is placed on a node the snapshot does not list.
    #[error("job \"{job}\" is allocated on unknown node \"{node}\"")]
    UnknownNode {
        /// Job id.
        job: String,
        /// Node name.
        node: String,
    },
    /// A field is empty or zero where it must not be.
    #[error("{0}")]
    Invalid(String),
}

impl Snapshot {
    /// Reads and checks a JSON snapshot; node indexes follow list order.
    pub fn from_json(text: &str) -> Result<Snapshot, SnapshotError> {
        let mut s: Snapshot =
            serde_json::from_str(text).map_err(|e| SnapshotError::Json(e.to_string()))?;
        s.normalize()?;
        Ok(s)
    }

    /// Assigns node indexes from list order and checks consistency.
    pub fn normalize(&mut self) -> Result<(), SnapshotError> {
        let mut names = BTreeSet::new();
        for (i, n) in self.nodes.iter_mut().enumerate() {
            if n.name.is_empty() {
                return Err(SnapshotError::Invalid(format!(
                    "node #{} has no name",
                    i + 1
                )));
            }
            if !names.insert(n.name.clone()) {
                return Err(SnapshotError::DuplicateNode(n.name.clone()));
            }
            n.index = i as u32;
            n.features.sort();
            n.features.dedup();
        }
        let mut ids = BTreeSet::new();
        for (i, j) in self.jobs.iter().enumerate() {
            if j.id.is_empty() {
                return Err(SnapshotError::Invalid(format!("job #{} has no id", i + 1)));
            }
            if j.user.is_empty() {
                return Err(SnapshotError::Invalid(format!(
                    "job \"{}\" has no user",
                    j.id
                )));
            }
            if j.tasks == 0 {
                return Err(SnapshotError::Invalid(format!(
                    "job \"{}\" asks for 0 tasks",
                    j.id
                )));
            }
            if !ids.insert(j.id.as_str()) {
                return Err(SnapshotError::DuplicateJob(j.id.clone()));
            }
            for a in &j.allocation {
                if !names.contains(&a.node) {
                    return Err(SnapshotError::UnknownNode {
                        job: j.id.clone(),
                        node: a.node.clone(),
                    });
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_a_small_snapshot() {
        let s = Snapshot::from_json(
            r#"{"now": 1000,
                "nodes": [{"name": "a", "configured": {"procs": 2, "mem": 256}},
                          {"name": "b", "configured": {"procs": 2, "mem": 1024}, "features": ["fast"]}],
                "jobs": [{"id": "1", "user": "u", "group": "g", "state": "running", "start_time": 900,
                          "walltime": 3600, "allocation": [{"node": "b", "tasks": 1}]},
                         {"id": "2", "user": "u", "group": "g", "tasks": 2, "task": {"procs": 1, "mem": 128}}]}"#,
        )
        .unwrap();
        assert_eq!(s.nodes[1].index, 1);
        assert_eq!(s.jobs[1].task.mem, 128);
        assert_eq!(s.jobs[0].tasks, 1, "tasks default to 1");
        assert!(s.jobs[1].dependency_satisfied);
    }

    #[test]
    fn rejects_inconsistent_snapshots() {
        let dup = r#"{"nodes": [{"name": "a"}, {"name": "a"}]}"#;
        assert_eq!(
            Snapshot::from_json(dup),
            Err(SnapshotError::DuplicateNode("a".into()))
        );
        let unknown = r#"{"nodes": [{"name": "a"}], "jobs": [{"id": "1", "user": "u", "allocation": [{"node": "z", "tasks": 1}]}]}"#;
        assert!(matches!(
            Snapshot::from_json(unknown),
            Err(SnapshotError::UnknownNode { .. })
        ));
        let typo = r#"{"nodes": [{"name": "a", "procs": 4}]}"#;
        let e = Snapshot::from_json(typo).unwrap_err().to_string();
        assert!(
            e.contains("unknown field `procs`") && e.contains("line 1"),
            "{e}"
        );
    }
}
