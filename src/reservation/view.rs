//! The reservations of a snapshot at its `now`: what `mauictl showres`
//! shows, and the order in which an iteration builds its profile.
//!
//! 1. Running (and suspended) jobs hold their nodes until start + walltime
//!    (job reservations, state R/S). They go into the profile first, so
//!    every claim is placed around them.
//! 2. Administrative reservations re-apply the claims they got at creation.
//! 3. Standing reservation instances are rolled to `now`, re-applied and
//!    topped up (non-floating first, then by priority).

use super::{
    acl, place::NodeChooser, AdminStore, NodeClaim, ResKind, ResRequest, Reservation, StandingSet,
};
use crate::config::{Acl, Config};
use crate::model::{Cluster, Job, Snapshot, Time};
use crate::profile::{running_window, JobIdx, Occupant, Profile, ResIdx, Unreserved};

/// A snapshot's cluster, profile and reservations.
#[derive(Clone, Debug)]
pub struct SnapshotView {
    /// The snapshot's time.
    pub now: Time,
    /// Nodes with NODECFG applied.
    pub cluster: Cluster,
    /// Running jobs and every reservation's claims.
    pub profile: Profile,
    /// Job, admin and standing reservations; index = profile `ResIdx`.
    pub reservations: Vec<Reservation>,
    /// Standing reservations that could not get all their tasks.
    pub partial: Vec<String>,
}

/// The window an active job holds its nodes for.
pub fn job_window(job: &Job, cfg: &Config, now: Time) -> (Time, Time) {
    let wall = job
        .walltime
        .unwrap_or(cfg.params.system_default_job_walltime.0);
    running_window(job.start_time.unwrap_or(now), wall, now)
}

/// Builds the view. Fails when the snapshot has no `now`.
pub fn build(
    cfg: &Config,
    snap: &Snapshot,
    admin: Option<&AdminStore>,
    chooser: &dyn NodeChooser,
) -> Result<SnapshotView, String> {
    let now = snap
        .now
        .ok_or_else(|| "the snapshot has no \"now\"".to_string())?;
    let cluster = Cluster::build(&snap.nodes, cfg);
    let mut profile = Profile::from_cluster(&cluster, now);
    let mut table: Vec<Reservation> = Vec::new();
    let mut windows: Vec<(Time, Time)> = Vec::with_capacity(snap.jobs.len());
    for (j, job) in snap.jobs.iter().enumerate() {
        let w = job_window(job, cfg, now);
        windows.push(w);
        if !job.state.is_active() || job.allocation.is_empty() {
            continue;
        }
        // Generic resources resolved as the engine does: per task, plus
        // what the job asked per node (or per job, shared out) on each node.
        let resolved;
        let job = if job.wants_gres() {
            let mut r = job.clone();
            crate::engine::gres::resolve(&mut r, &cluster);
            resolved = r;
            &resolved
        } else {
            job
        };
        let task = job.held_task();
        let extra = crate::model::Resources {
            gres: job.node_gres,
            ..crate::model::Resources::ZERO
        };
        let mut claims = Vec::new();
        for a in &job.allocation {
            let Some(node) = cluster.index(&a.node) else {
                continue;
            };
            let mut o = Occupant {
                job: j as JobIdx,
                start: w.0,
                end: w.1,
                task,
                tasks: a.tasks,
            };
            if !extra.is_zero() {
                // One occupant holding all of it, as the engine places it.
                o.task = o.total().saturating_add(&extra);
                o.tasks = 1;
            }
            claims.push(NodeClaim {
                node,
                tasks: a.tasks,
                resources: o.total(),
            });
            profile.add_running_job(node, o, &Unreserved);
        }
        let mut r = Reservation::new(
            job.id.clone(),
            ResKind::Job {
                job: job.id.clone(),
                state: job.state,
            },
            w.0,
            w.1,
            Acl::default(),
            ResRequest {
                task_count: job.tasks,
                ..ResRequest::default()
            },
        );
        r.claims = claims;
        table.push(r);
    }
    let admits = |r: &Reservation, j: JobIdx| -> bool {
        let job = &snap.jobs[j as usize];
        let (s, e) = windows[j as usize];
        acl::access(r, job, s, e).is_granted()
    };
    if let Some(store) = admin {
        for r in store.reservations(&cluster) {
            let idx = table.len() as ResIdx;
            super::place::reapply(&r, idx, &mut profile, &|j| admits(&r, j));
            table.push(r);
        }
    }
    let mut standing = StandingSet::new();
    standing.roll(&cfg.standing, &cfg.zone, now);
    let first = table.len() as ResIdx;
    let outcomes = standing.place(first, &cluster, &mut profile, chooser, &admits, &mut ());
    let mut partial = Vec::new();
    for (r, o) in standing.instances().iter().zip(&outcomes) {
        if o.is_partial() {
            partial.push(r.id.clone());
        }
    }
    table.extend(standing.instances().iter().cloned());
    Ok(SnapshotView {
        now,
        cluster,
        profile,
        reservations: table,
        partial,
    })
}
