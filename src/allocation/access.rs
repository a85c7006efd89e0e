//! Node access: which jobs may share a node (5.3 Node Access Policies,
//! 12.3 Node Specific Policies).
//!
//! A job's access policy is its own override (QOS `DEDICATED`, a job
//! extension) or else the node's effective policy (NODECFG ACCESS, else
//! NODEACCESSPOLICY). The guide says later jobs "are bound to conform to the
//! access policies of all jobs currently running on a given node", so the
//! check is symmetric: the newcomer's policy and every occupant's policy must
//! all allow the sharing.

use crate::config::NodeAccessPolicy;
use crate::model::EffNode;

/// Another job holding resources on a node during the window considered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Occupant {
    /// Job id.
    pub job: String,
    /// Owner of the job.
    pub user: String,
    /// The job's own access policy, if it overrides the node's.
    pub access: Option<NodeAccessPolicy>,
}

/// The job asking for room on a node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AccessRequest<'a> {
    /// Job id (occupant entries with this id are the job itself and ignored).
    pub job: &'a str,
    /// Owner of the job.
    pub user: &'a str,
    /// The job's own access policy, if it overrides the node's.
    pub access: Option<NodeAccessPolicy>,
}

/// Why a job may not use a node at all.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum AccessDenial {
    /// The node holds another job and someone's policy forbids sharing.
    #[error("node access policy {0} forbids sharing the node with another job")]
    Dedicated(NodeAccessPolicy),
    /// SINGLEUSER and a job of another user is on the node.
    #[error("node access policy SINGLEUSER and another user's job is on the node")]
    OtherUser,
    /// NODECFG MAXJOB reached.
    #[error("node MAXJOB limit of {0} reached")]
    MaxJob(u32),
    /// NODECFG MAXJOBPERUSER reached.
    #[error("node MAXJOBPERUSER limit of {0} reached")]
    MaxJobPerUser(u32),
}

/// The most tasks of the job the node's access rules allow (`u32::MAX` when
/// they put no bound on it; 1 under SINGLETASK), or why none are allowed.
///
/// Resources are not looked at: the caller combines this with how many tasks
/// fit in the node's free resources.
pub fn access_limit(
    node: &EffNode,
    req: &AccessRequest<'_>,
    occupants: &[Occupant],
) -> Result<u32, AccessDenial> {
    let mine = req.access.unwrap_or(node.access);
    // The jobs there are only counted when the node caps them (most nodes
    // do not: no sets to build for each candidate).
    let counted = node.max_job.is_some() || node.max_job_per_user.is_some();
    let mut others: Vec<&str> = Vec::new();
    let mut same_user: Vec<&str> = Vec::new();
    for o in occupants.iter().filter(|o| o.job != req.job) {
        let theirs = o.access.unwrap_or(node.access);
        for p in [mine, theirs] {
            match p {
                NodeAccessPolicy::SingleJob | NodeAccessPolicy::SingleTask => {
                    return Err(AccessDenial::Dedicated(p))
                }
                NodeAccessPolicy::SingleUser if o.user != req.user => {
                    return Err(AccessDenial::OtherUser)
                }
                _ => {}
            }
        }
        if counted {
            others.push(&o.job);
            if o.user == req.user {
                same_user.push(&o.job);
            }
        }
    }
    // A job with several tasks there is one job.
    for set in [&mut others, &mut same_user] {
        set.sort_unstable();
        set.dedup();
    }
    if let Some(m) = node.max_job {
        if others.len() as u64 + 1 > m as u64 {
            return Err(AccessDenial::MaxJob(m));
        }
    }
    if let Some(m) = node.max_job_per_user {
        if same_user.len() as u64 + 1 > m as u64 {
            return Err(AccessDenial::MaxJobPerUser(m));
        }
    }
    Ok(if mine == NodeAccessPolicy::SingleTask {
        1
    } else {
        u32::MAX
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{NodeState, Resources};

    fn node(access: NodeAccessPolicy) -> EffNode {
        EffNode {
            index: 0,
            name: "n".into(),
            state: NodeState::Running,
            configured: Resources::procs(8),
            reported_available: None,
            gres: Default::default(),
            gres_overridden: vec![],
            gres_untyped: 0,
            features: vec![],
            feature_ids: Default::default(),
            partition: None,
            partition_id: None,
            speed: 1.0,
            procspeed: None,
            priority: 0,
            priorityf: None,
            max_job: None,
            max_job_per_user: None,
            access,
            load: 0.0,
            usage: 0.0,
            usable: true,
        }
    }

    fn occ(job: &str, user: &str, access: Option<NodeAccessPolicy>) -> Occupant {
        Occupant {
            job: job.into(),
            user: user.into(),
            access,
        }
    }

    fn req(user: &str, access: Option<NodeAccessPolicy>) -> AccessRequest<'_> {
        AccessRequest {
            job: "new",
            user,
            access,
        }
    }

    #[test]
    fn the_four_policies() {
        use NodeAccessPolicy::*;
        let busy = [occ("1", "amy", None)];
        assert_eq!(
            access_limit(&node(Shared), &req("bob", None), &busy),
            Ok(u32::MAX)
        );
        assert_eq!(
            access_limit(&node(SingleUser), &req("bob", None), &busy),
            Err(AccessDenial::OtherUser)
        );
        assert_eq!(
            access_limit(&node(SingleUser), &req("amy", None), &busy),
            Ok(u32::MAX)
        );
        assert_eq!(
            access_limit(&node(SingleJob), &req("amy", None), &busy),
            Err(AccessDenial::Dedicated(SingleJob))
        );
        assert_eq!(
            access_limit(&node(SingleJob), &req("amy", None), &[]),
            Ok(u32::MAX)
        );
        assert_eq!(
            access_limit(&node(SingleTask), &req("amy", None), &[]),
            Ok(1)
        );
        assert!(access_limit(&node(SingleTask), &req("amy", None), &busy).is_err());
    }

    #[test]
    fn occupants_bind_later_jobs() {
        use NodeAccessPolicy::*;
        // The guide's example: SHARED system, a SINGLEUSER job runs on the
        // node; only the same user's jobs may join until it ends.
        let busy = [occ("1", "amy", Some(SingleUser))];
        assert_eq!(
            access_limit(&node(Shared), &req("bob", None), &busy),
            Err(AccessDenial::OtherUser)
        );
        assert_eq!(
            access_limit(&node(Shared), &req("amy", None), &busy),
            Ok(u32::MAX)
        );
        // A dedicated newcomer cannot join anyone.
        let shared = [occ("1", "amy", None)];
        assert!(access_limit(&node(Shared), &req("amy", Some(SingleJob)), &shared).is_err());
        // The job itself listed among occupants is not "another job".
        let me = [occ("new", "amy", None)];
        assert!(access_limit(&node(SingleJob), &req("amy", None), &me).is_ok());
    }

    #[test]
    fn node_maxjob_and_maxjobperuser() {
        // NODECFG[node024] MAXJOB=4 MAXJOBPERUSER=2 (12.3).
        let mut n = node(NodeAccessPolicy::Shared);
        n.max_job = Some(4);
        n.max_job_per_user = Some(2);
        let two_amy = [occ("1", "amy", None), occ("2", "amy", None)];
        assert_eq!(
            access_limit(&n, &req("amy", None), &two_amy),
            Err(AccessDenial::MaxJobPerUser(2))
        );
        assert!(access_limit(&n, &req("bob", None), &two_amy).is_ok());
        let four = [
            occ("1", "amy", None),
            occ("2", "amy", None),
            occ("3", "cat", None),
            occ("4", "dan", None),
        ];
        assert_eq!(
            access_limit(&n, &req("bob", None), &four),
            Err(AccessDenial::MaxJob(4))
        );
    }
}
