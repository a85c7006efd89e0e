//! Jobs as the resource manager reports them.

use super::gres::GresList;
use super::policy::NodeAllocationPolicy;
use super::resources::Resources;
use super::time::{Secs, Time};
use serde::{Deserialize, Serialize};
use thin_vec::ThinVec;

/// A job's state as reported by the RM.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum JobState {
    /// Queued, waiting to be started (possibly held: see [`Job::holds`]).
    #[default]
    Idle,
    /// Started and holding resources.
    Running,
    /// Stopped on its nodes; still holds memory but not processors.
    Suspended,
    /// Finished (reported once so usage can be closed).
    Completed,
    /// Cancelled before or while running.
    Removed,
}

impl JobState {
    /// True for a job that holds resources on nodes.
    pub fn is_active(self) -> bool {
        matches!(self, JobState::Running | JobState::Suspended)
    }

    /// Maui's display name.
    pub fn name(self) -> &'static str {
        match self {
            JobState::Idle => "Idle",
            JobState::Running => "Running",
            JobState::Suspended => "Suspended",
            JobState::Completed => "Completed",
            JobState::Removed => "Removed",
        }
    }
}

/// A hold placed on a job.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum HoldKind {
    /// Placed (and releasable) by the job's owner.
    User,
    /// Placed by an administrator.
    System,
    /// Placed by the scheduler after repeated start failures.
    Batch,
}

/// Tasks of a job placed on one node.
#[derive(Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NodeTasks {
    /// Node name.
    pub node: String,
    /// Number of the job's tasks on that node.
    pub tasks: u32,
}

impl Clone for NodeTasks {
    fn clone(&self) -> Self {
        NodeTasks {
            node: self.node.clone(),
            tasks: self.tasks,
        }
    }

    /// Reuses the name's buffer (see [`Job::clone_from`]).
    fn clone_from(&mut self, src: &Self) {
        copy_str(&mut self.node, &src.node);
        self.tasks = src.tasks;
    }
}

/// `dst.clone_from(src)`, writing nothing when they are equal already (the
/// engine copies each job over its own copy of the iteration before, where
/// the names nearly always are).
#[inline]
fn copy_str(dst: &mut String, src: &str) {
    if dst != src {
        dst.clear();
        dst.push_str(src);
    }
}

/// How a node's configured amount must compare with a requirement (Maui's
/// workload trace fields 16-19: `>=`, `>`, `=`, `<=`, `<`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Cmp {
    /// `>`
    #[serde(rename = ">")]
    Gt,
    /// `>=`
    #[serde(rename = ">=")]
    Ge,
    /// `=`
    #[serde(rename = "=")]
    Eq,
    /// `<=`
    #[serde(rename = "<=")]
    Le,
    /// `<`
    #[serde(rename = "<")]
    Lt,
}

impl Cmp {
    /// True when `have` compares with `want` as this says (`have >= want`...).
    pub fn holds(self, have: u64, want: u64) -> bool {
        match self {
            Cmp::Gt => have > want,
            Cmp::Ge => have >= want,
            Cmp::Eq => have == want,
            Cmp::Le => have <= want,
            Cmp::Lt => have < want,
        }
    }

    /// As Maui writes it.
    pub fn symbol(self) -> &'static str {
        match self {
            Cmp::Gt => ">",
            Cmp::Ge => ">=",
            Cmp::Eq => "=",
            Cmp::Le => "<=",
            Cmp::Lt => "<",
        }
    }
}

/// A requirement on a node's configured memory or disk, in MB: the node
/// qualifies when its amount compares with `mb` as `cmp` says.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct NodeAmount {
    /// The comparison.
    pub cmp: Cmp,
    /// The amount, MB.
    pub mb: u64,
}

impl std::fmt::Display for NodeAmount {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {} MB", self.cmp.symbol(), self.mb)
    }
}

/// A job.
#[derive(Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Job {
    /// RM job id.
    pub id: String,
    /// Submitting user.
    pub user: String,
    /// Group (the user's primary group unless the RM says otherwise).
    pub group: String,
    /// Account (project) charged.
    pub account: Option<String>,
    /// Class (queue; a Slurm partition).
    pub class: Option<String>,
    /// Quality of service requested or assigned.
    pub qos: Option<String>,
    /// Partition the job must run in, if constrained.
    pub partition: Option<String>,
    /// State.
    pub state: JobState,
    /// Holds in place (a held idle job is in Maui's `Hold` state).
    pub holds: ThinVec<HoldKind>,
    /// False while an RM-level dependency is unmet.
    pub dependency_satisfied: bool,
    /// Submission time.
    pub submit_time: Time,
    /// Earliest time the job may start (PBS `Execution_Time`, Slurm `--begin`).
    pub earliest_start: Option<Time>,
    /// Start time of an active job (and of a finished one that ran).
    pub start_time: Option<Time>,
    /// End time of a finished job (Completed or Removed after it ran), as
    /// the RM reports it: fairshare charges the job up to it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub end_time: Option<Time>,
    /// Requested wallclock limit; `None` means SYSTEMDEFAULTJOBWALLTIME.
    pub walltime: Option<Secs>,
    /// Number of tasks.
    pub tasks: u32,
    /// Resources of one task (atomic: a task never spans nodes).
    pub task: Resources,
    /// Generic resources each task needs (Maui's `GRES=` RM extension,
    /// Slurm's `--gpus-per-task`).
    #[serde(skip_serializing_if = "GresList::is_empty")]
    pub gres_per_task: GresList,
    /// Generic resources each of its nodes needs (Slurm's `--gres`,
    /// `--gpus-per-node`; Torque's `nodes=N:gpus=G`).
    #[serde(skip_serializing_if = "GresList::is_empty")]
    pub gres_per_node: GresList,
    /// Generic resources for the whole job (Slurm's `--gpus`).
    #[serde(skip_serializing_if = "GresList::is_empty")]
    pub gres_per_job: GresList,
    /// Generic resources by the cluster's ids it holds on each of its
    /// nodes beyond what its tasks hold (filled by the engine from the
    /// requests for a running job).
    #[serde(skip)]
    pub node_gres: super::GresCounts,
    /// How many of the RM's tasks make one of the engine's (filled by the
    /// engine: per-node and per-job generic resources that do not divide
    /// over the tasks are scheduled as bundles of tasks); 0 or 1: none.
    #[serde(skip)]
    pub bundle: u32,
    /// Requested node count, if the job asked for nodes.
    pub nodes: Option<u32>,
    /// Exact tasks per node, if requested (PBS `ppn`, Slurm `--ntasks-per-node`).
    pub tasks_per_node: Option<u32>,
    /// Required node features (all must be present).
    pub features: ThinVec<String>,
    /// Required configured node memory (Maui's workload trace fields
    /// 16-17): a node qualifies only when its memory compares so.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub node_mem: Option<NodeAmount>,
    /// Required configured node disk (fields 18-19).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub node_disk: Option<NodeAmount>,
    /// Preferred node features (PREF): satisfied as well as possible.
    pub pref_features: ThinVec<String>,
    /// Required hosts: the job runs on (a subset of) these nodes only.
    pub hostlist: ThinVec<String>,
    /// Hosts the job must not use.
    pub exclude_hosts: ThinVec<String>,
    /// Reservation the job asks to run in (ADVRES).
    pub advres: Option<String>,
    /// Job attributes for reservation JOBATTRLIST ACLs (e.g. `PREEMPTEE`).
    pub attributes: ThinVec<String>,
    /// Times the job was bypassed by backfill (kept in the checkpoint).
    pub bypass_count: u32,
    /// System priority set by an administrator (setspri).
    pub system_priority: Option<i64>,
    /// Per-job NODEALLOCATIONPOLICY override.
    pub node_allocation_policy: Option<NodeAllocationPolicy>,
    /// Where an active job runs.
    pub allocation: Vec<NodeTasks>,
    /// Processors the job actually uses now, as the RM measures (consumed
    /// fairshare, UTILIZEDPS); `None` when the RM does not report it.
    pub utilized_procs: Option<f64>,
}

/// Written out (not derived) for `clone_from`: every field is listed in
/// both, so a new field that is left out does not compile.
impl Clone for Job {
    fn clone(&self) -> Self {
        Job {
            id: self.id.clone(),
            user: self.user.clone(),
            group: self.group.clone(),
            account: self.account.clone(),
            class: self.class.clone(),
            qos: self.qos.clone(),
            partition: self.partition.clone(),
            state: self.state,
            holds: self.holds.clone(),
            dependency_satisfied: self.dependency_satisfied,
            submit_time: self.submit_time,
            earliest_start: self.earliest_start,
            start_time: self.start_time,
            end_time: self.end_time,
            walltime: self.walltime,
            tasks: self.tasks,
            task: self.task,
            gres_per_task: self.gres_per_task.clone(),
            gres_per_node: self.gres_per_node.clone(),
            gres_per_job: self.gres_per_job.clone(),
            node_gres: self.node_gres,
            bundle: self.bundle,
            nodes: self.nodes,
            tasks_per_node: self.tasks_per_node,
            features: self.features.clone(),
            node_mem: self.node_mem,
            node_disk: self.node_disk,
            pref_features: self.pref_features.clone(),
            hostlist: self.hostlist.clone(),
            exclude_hosts: self.exclude_hosts.clone(),
            advres: self.advres.clone(),
            attributes: self.attributes.clone(),
            bypass_count: self.bypass_count,
            system_priority: self.system_priority,
            node_allocation_policy: self.node_allocation_policy,
            allocation: self.allocation.clone(),
            utilized_procs: self.utilized_procs,
        }
    }

    /// Copies `src` into this job reusing its strings' and vectors'
    /// buffers: the engine copies every job of the snapshot in each
    /// iteration, into the jobs of the iteration before.
    fn clone_from(&mut self, src: &Self) {
        let Job {
            id,
            user,
            group,
            account,
            class,
            qos,
            partition,
            state,
            holds,
            dependency_satisfied,
            submit_time,
            earliest_start,
            start_time,
            end_time,
            walltime,
            tasks,
            task,
            gres_per_task,
            gres_per_node,
            gres_per_job,
            node_gres,
            bundle,
            nodes,
            tasks_per_node,
            features,
            node_mem,
            node_disk,
            pref_features,
            hostlist,
            exclude_hosts,
            advres,
            attributes,
            bypass_count,
            system_priority,
            node_allocation_policy,
            allocation,
            utilized_procs,
        } = self;
        copy_str(id, &src.id);
        copy_str(user, &src.user);
        copy_str(group, &src.group);
        account.clone_from(&src.account);
        class.clone_from(&src.class);
        qos.clone_from(&src.qos);
        partition.clone_from(&src.partition);
        state.clone_from(&src.state);
        holds.clone_from(&src.holds);
        dependency_satisfied.clone_from(&src.dependency_satisfied);
        submit_time.clone_from(&src.submit_time);
        earliest_start.clone_from(&src.earliest_start);
        start_time.clone_from(&src.start_time);
        end_time.clone_from(&src.end_time);
        walltime.clone_from(&src.walltime);
        tasks.clone_from(&src.tasks);
        task.clone_from(&src.task);
        gres_per_task.clone_from(&src.gres_per_task);
        gres_per_node.clone_from(&src.gres_per_node);
        gres_per_job.clone_from(&src.gres_per_job);
        *node_gres = src.node_gres;
        *bundle = src.bundle;
        nodes.clone_from(&src.nodes);
        tasks_per_node.clone_from(&src.tasks_per_node);
        features.clone_from(&src.features);
        *node_mem = src.node_mem;
        *node_disk = src.node_disk;
        pref_features.clone_from(&src.pref_features);
        hostlist.clone_from(&src.hostlist);
        exclude_hosts.clone_from(&src.exclude_hosts);
        advres.clone_from(&src.advres);
        attributes.clone_from(&src.attributes);
        bypass_count.clone_from(&src.bypass_count);
        system_priority.clone_from(&src.system_priority);
        node_allocation_policy.clone_from(&src.node_allocation_policy);
        allocation.clone_from(&src.allocation);
        utilized_procs.clone_from(&src.utilized_procs);
    }
}

impl Default for Job {
    fn default() -> Self {
        Job {
            id: String::new(),
            user: String::new(),
            group: String::new(),
            account: None,
            class: None,
            qos: None,
            partition: None,
            state: JobState::Idle,
            holds: ThinVec::new(),
            dependency_satisfied: true,
            submit_time: 0,
            earliest_start: None,
            start_time: None,
            end_time: None,
            walltime: None,
            tasks: 1,
            task: Resources::procs(1),
            gres_per_task: GresList::default(),
            gres_per_node: GresList::default(),
            gres_per_job: GresList::default(),
            node_gres: super::GresCounts::ZERO,
            bundle: 0,
            nodes: None,
            tasks_per_node: None,
            features: ThinVec::new(),
            node_mem: None,
            node_disk: None,
            pref_features: ThinVec::new(),
            hostlist: ThinVec::new(),
            exclude_hosts: ThinVec::new(),
            advres: None,
            attributes: ThinVec::new(),
            bypass_count: 0,
            system_priority: None,
            node_allocation_policy: None,
            allocation: Vec::new(),
            utilized_procs: None,
        }
    }
}

impl Job {
    /// Total resources over all tasks, saturating (a job can never ask for
    /// more than exists, so saturation only turns absurd requests into NoFit).
    pub fn total(&self) -> Resources {
        self.task.checked_mul(self.tasks).unwrap_or(Resources::MAX)
    }

    /// Total processors requested.
    pub fn procs(&self) -> u64 {
        self.task.procs as u64 * self.tasks as u64
    }

    /// What each of its tasks holds on its nodes while it is active: a
    /// suspended job keeps its memory but not its processors.
    pub fn held_task(&self) -> Resources {
        if self.state == JobState::Suspended {
            Resources {
                procs: 0,
                ..self.task
            }
        } else {
            self.task
        }
    }

    /// Generic resources the job holds beyond its tasks' (its per-node
    /// request, [`Job::node_gres`], on each distinct node of its
    /// allocation); zero for a job not placed or asking for none.
    pub fn node_gres_total(&self) -> super::GresCounts {
        if self.node_gres.is_zero() || self.allocation.is_empty() {
            return super::GresCounts::ZERO;
        }
        let mut names: Vec<&str> = self.allocation.iter().map(|a| a.node.as_str()).collect();
        names.sort_unstable();
        names.dedup();
        let n = names.len() as u32;
        self.node_gres
            .map(&super::GresCounts::ZERO, |c, _| c.saturating_mul(n))
    }

    /// Total resources with what it holds per node ([`Job::total`] plus
    /// [`Job::node_gres_total`]): what processor equivalents measure.
    pub fn total_held(&self) -> Resources {
        let mut r = self.total();
        r.gres = r
            .gres
            .map(&self.node_gres_total(), |a, b| a.saturating_add(b));
        r
    }

    /// True when the job asks for any generic resource.
    pub fn wants_gres(&self) -> bool {
        !(self.gres_per_task.is_empty()
            && self.gres_per_node.is_empty()
            && self.gres_per_job.is_empty())
    }

    /// True when a hold is in place.
    pub fn is_held(&self) -> bool {
        !self.holds.is_empty()
    }

    /// The credential value of a kind, if the job has one.
    pub fn cred(&self, kind: super::CredKind) -> Option<&str> {
        match kind {
            super::CredKind::User => Some(self.user.as_str()),
            super::CredKind::Group => Some(self.group.as_str()),
            super::CredKind::Account => self.account.as_deref(),
            super::CredKind::Qos => self.qos.as_deref(),
            super::CredKind::Class => self.class.as_deref(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Copying a job over another gives the source, whether its names and
    /// allocation equal the old copy's, differ at the same lengths, or
    /// differ in length.
    #[test]
    fn copying_over_an_earlier_copy_gives_the_source() {
        let job = |id: &str, user: &str, nodes: &[&str]| Job {
            id: id.into(),
            user: user.into(),
            group: "g".into(),
            allocation: (nodes.iter())
                .map(|n| NodeTasks {
                    node: n.to_string(),
                    tasks: 2,
                })
                .collect(),
            ..Job::default()
        };
        let sources = [
            job("101", "ann", &["n01", "n02"]),
            job("102", "bob", &["n01", "n03"]),
            job("1000", "carol", &["n010"]),
            job("7", "", &[]),
        ];
        for old in &sources {
            for src in &sources {
                let mut copy = old.clone();
                copy.clone_from(src);
                assert_eq!(&copy, src);
            }
        }
    }
}
