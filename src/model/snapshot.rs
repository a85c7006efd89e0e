//! A snapshot: what the RM reports at one moment (nodes and jobs).
//!
//! The JSON form is the one `mauictl --snapshot FILE`, the simulator and the
//! tests use; it is documented in `docs/snapshot.md`. It may also carry
//! the scheduler's memory ([`super::memory`]), so that an iteration can be
//! run again elsewhere exactly as it ran.

use super::memory::{AdminStore, FairshareUsage, Memory};
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
    /// The scheduler's administrative reservations, when the snapshot
    /// carries its memory (`mauictl snapshot`); a running scheduler keeps
    /// its own and ignores these.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub admin_reservations: Option<AdminStore>,
    /// Fairshare usage, when the snapshot carries the scheduler's memory.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fairshare: Option<FairshareUsage>,
    /// The rest of the scheduler's memory (queue time, system priorities,
    /// job reservations, operators' requests, preemptions...).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub state: Option<Box<Memory>>,
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

/// A JSON reader's message with its type names in words: `expected u32`
/// → `expected a whole number from 0 to 4294967295`, and the like.
fn in_words(message: &str) -> String {
    const WORDS: [(&str, &str); 10] = [
        (
            "expected u32",
            "expected a whole number from 0 to 4294967295",
        ),
        ("expected u64", "expected a whole number of 0 or more"),
        ("expected u16", "expected a whole number from 0 to 65535"),
        ("expected u8", "expected a whole number from 0 to 255"),
        ("expected i64", "expected a whole number"),
        ("expected i32", "expected a whole number"),
        ("expected f64", "expected a number"),
        ("expected a sequence", "expected a list [...]"),
        ("expected a map", "expected an object {...}"),
        ("expected a borrowed string", "expected a string"),
    ];
    let mut m = message.to_string();
    for (from, to) in WORDS {
        m = m.replace(from, to);
    }
    if let Some(at) = m.find("expected struct ") {
        let rest = &m[at + "expected struct ".len()..];
        let end = rest
            .find(|c: char| !c.is_alphanumeric())
            .unwrap_or(rest.len());
        m = format!("{}expected an object {{...}}{}", &m[..at], &rest[end..]);
    }
    m
}

impl Snapshot {
    /// Reads and checks a JSON snapshot; node indexes follow list order.
    /// A field that is wrong is named by its path (`nodes[3].state: ...`),
    /// in words rather than the reader's type names.
    pub fn from_json(text: &str) -> Result<Snapshot, SnapshotError> {
        if !text.trim_start().starts_with('{') {
            return Err(SnapshotError::Json(
                "a snapshot is a JSON object, {\"now\": ..., \"nodes\": [...], \"jobs\": [...]}"
                    .into(),
            ));
        }
        let mut de = serde_json::Deserializer::from_str(text);
        let read: Result<Snapshot, _> = serde_path_to_error::deserialize(&mut de);
        let mut s = read.map_err(|e| {
            let path = e.path().to_string();
            let why = in_words(&e.into_inner().to_string());
            SnapshotError::Json(if path == "." {
                why
            } else {
                format!("{path}: {why}")
            })
        })?;
        de.end()
            .map_err(|e| SnapshotError::Json(in_words(&e.to_string())))?;
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

    /// A wrong field is named by its path, in words; a document that is
    /// not an object is refused rather than read as an empty snapshot.
    #[test]
    fn errors_name_the_field_path_in_words() {
        let err = |t: &str| Snapshot::from_json(t).unwrap_err().to_string();
        let e =
            err(r#"{"nodes": [{"name": "a"}, {"name": "b", "configured": {"procs": "down"}}]}"#);
        assert!(
            e.starts_with("nodes[1].configured.procs: invalid type: string \"down\", expected a whole number from 0 to 4294967295 at line 1"),
            "{e}"
        );
        let e = err(r#"{"nodes": [{"name": "a", "state": "dwn"}]}"#);
        assert!(
            e.starts_with("nodes[0].state: unknown variant `dwn`, expected one of"),
            "{e}"
        );
        let e = err(r#"{"jobs": [{"id": "1", "user": "u", "task": 4}]}"#);
        assert!(
            e.starts_with("jobs[0].task: invalid type: integer `4`, expected an object {...}"),
            "{e}"
        );
        for not_an_object in ["[]", " [ ] ", "3", "\"x\""] {
            assert!(
                err(not_an_object).starts_with("a snapshot is a JSON object"),
                "{not_an_object}"
            );
        }
        assert!(
            err("{} x").contains("trailing characters"),
            "{}",
            err("{} x")
        );
    }

    /// The scheduler's memory travels in three optional top-level fields;
    /// written and read back, it is the same.
    #[test]
    fn a_snapshot_carries_the_schedulers_memory() {
        let text = r#"{"now": 1000,
            "nodes": [{"name": "a", "configured": {"procs": 2}}],
            "jobs": [{"id": "1", "user": "u"}],
            "admin_reservations": {"sequence": {"maint": 1}, "records": [
                {"id": "maint.1", "created": 900, "start": 950, "end": 2000,
                 "request": {"name": "maint", "hosts": "a", "tasks": 1}, "nodes": [["a", 1]]}]},
            "fairshare": {"windows": [{"start": 0, "duration": 86400,
                "usage": {"USER": {"u": 120.5}}, "total": 120.5}]},
            "state": {"last_iteration": 940, "system_priority": {"1": 7},
                "queue_time": {"1": {"accrued": 30, "last_update": 940, "accruing": true, "previous": 20}},
                "pending_actions": [{"kind": "hold", "job": "1", "by": "root"}],
                "preempted": {"1": {"by": "2", "at": 900, "how": "requeue", "count": 1, "submitted": 10}},
                "job_reservations": [{"job": "1", "start": 1100, "end": 1200,
                    "claims": [{"node": "a", "tasks": 1, "resources": {"procs": 1}}]}]}}"#;
        let s = Snapshot::from_json(text).unwrap();
        assert_eq!(
            s.admin_reservations.as_ref().unwrap().records[0].id,
            "maint.1"
        );
        let fs = s.fairshare.as_ref().unwrap();
        assert_eq!(
            fs.windows[0].usage[&super::super::CredKind::User]["u"],
            120.5
        );
        let m = s.state.as_deref().unwrap();
        assert_eq!(m.system_priority["1"], 7);
        assert_eq!(m.queue_time["1"].previous, 20);
        assert_eq!(
            m.pending_actions[0].kind,
            super::super::memory::ActionKind::Hold
        );
        let again = Snapshot::from_json(&serde_json::to_string(&s).unwrap()).unwrap();
        assert_eq!(again, s);
        // A snapshot without them writes none of them.
        let plain = Snapshot::from_json(r#"{"now": 5}"#).unwrap();
        assert_eq!(
            serde_json::to_string(&plain).unwrap(),
            r#"{"now":5,"nodes":[],"jobs":[]}"#
        );
    }

    /// A wrong or unknown field of the memory is named by its path, as
    /// the RM's fields are.
    #[test]
    fn a_broken_memory_field_names_its_path() {
        let err = |t: &str| Snapshot::from_json(t).unwrap_err().to_string();
        let e = err(r#"{"state": {"queue_time": {"7": {"acrued": 3}}}}"#);
        assert!(
            e.starts_with("state.queue_time.7.acrued: unknown field `acrued`, expected one of"),
            "{e}"
        );
        let e = err(r#"{"state": {"pending_actions": [{"kind": "hould", "job": "7"}]}}"#);
        assert!(
            e.starts_with("state.pending_actions[0].kind: unknown variant `hould`"),
            "{e}"
        );
        let e = err(r#"{"fairshare": {"windows": [{"start": 0, "total": "lots"}]}}"#);
        assert!(
            e.starts_with("fairshare.windows[0].total: invalid type: string \"lots\""),
            "{e}"
        );
        let e = err(r#"{"admin_reservations": {"records": [{"id": "r"}]}}"#);
        assert!(
            e.starts_with("admin_reservations.records[0]: missing field"),
            "{e}"
        );
        let e = err(r#"{"state": {"stoped": {"by": "x"}}}"#);
        assert!(e.starts_with("state.stoped: unknown field `stoped`"), "{e}");
    }
}
