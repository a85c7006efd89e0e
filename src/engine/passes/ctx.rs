//! What both placers share: the iteration's inputs, the profile the passes
//! place jobs in, and Maui's rules of a placement (which nodes a job may
//! use, what a candidate node offers, how a placement is committed).

use super::Idle;
use crate::allocation::{Candidate, LocalAllocator};
use crate::config::{Affinity, Config};
use crate::engine::build::{dedicated, place_job, View};
use crate::engine::plan::Reason;
use crate::model::{Job, NodeIdx, NodeTasks, Resources, Time};
use crate::profile::{Admits, JobIdx, Occupant, Profile, ResIdx};
use crate::reservation::acl::JobAdmission;
use std::collections::BTreeSet;

/// The iteration's inputs and the world the passes place jobs in.
pub(in crate::engine) struct Ctx<'a> {
    pub cfg: &'a Config,
    pub jobs: &'a [Job],
    pub now: Time,
    /// The cluster, the reservation table and the profile, with every
    /// placement made so far.
    pub view: View,
    /// Every idle job, in priority order.
    pub idle: Vec<Idle<'a>>,
    pub local: Option<&'a dyn LocalAllocator>,
}

/// Admission that grants every reservation: "would it fit if nothing were reserved?"
pub(in crate::engine) struct AdmitAll;
impl Admits for AdmitAll {
    fn admits(&self, _: ResIdx, _: Time, _: Time) -> Option<Affinity> {
        Some(Affinity::Neutral)
    }
}

impl Ctx<'_> {
    /// Which reservations job `j` may use.
    pub fn adm(&self, j: usize) -> JobAdmission<'_> {
        JobAdmission::new(&self.view.table, &self.jobs[j])
    }

    /// Nodes of the reservation a job asks for (ADVRES), or `None`.
    pub fn advres_nodes(&self, job: &Job) -> Option<Result<BTreeSet<NodeIdx>, String>> {
        let want = job.advres.as_deref()?;
        let table = &self.view.table;
        Some(
            table
                .iter()
                .find(|r| r.id == want || r.standing_name() == Some(want))
                .map(|r| {
                    table
                        .iter()
                        .filter(|x| {
                            x.id == r.id
                                || (r.standing_name().is_some()
                                    && x.standing_name() == r.standing_name())
                        })
                        .flat_map(|x| x.claims.iter().map(|c| c.node))
                        .collect()
                })
                .ok_or_else(|| format!("reservation {want} does not exist")),
        )
    }

    /// `NoFit` for job `j` when its ADVRES names no reservation
    /// ([`Ctx::advres_nodes`]' error): the one reason waiting jobs get
    /// whether their reasons are worked out in full or not.
    pub fn advres_no_fit(&self, j: usize) -> Option<Reason> {
        match self.advres_nodes(&self.jobs[j])? {
            Err(detail) => Some(Reason::NoFit { detail }),
            Ok(_) => None,
        }
    }

    /// Job `i`'s candidate on `node`, which holds `tasks` of its tasks
    /// with `free` free over `window`: its affinity for the reservations
    /// there (none when `claimed` is false: the caller knows no
    /// reservation claims anything on the node), the gap after it when
    /// `need_gap`, and the jobs there when node access counts them.
    #[allow(clippy::too_many_arguments)]
    pub fn candidate(
        &self,
        i: usize,
        node: NodeIdx,
        (tasks, free): (u32, Resources),
        (start, end): (Time, Time),
        adm: &JobAdmission<'_>,
        need_gap: bool,
        claimed: bool,
    ) -> Candidate {
        let it = &self.idle[i];
        let n = &self.view.cluster.nodes[node as usize];
        let profile = &self.view.profile;
        let mut c = Candidate::new(node, tasks, free);
        if claimed {
            c.affinity = profile
                .reserved_affinity(node, start, end, adm)
                .or_else(|| profile.affinity_after(node, (start, end), &it.req.task, adm));
        }
        if need_gap {
            use crate::config::LastAvailableOrder as O;
            match self.cfg.params.last_available_order {
                O::BestFit => c.gap = profile.gap_after(node, start, end, &it.req.task, adm),
                O::LongestFirst if start > self.now => c.maui_avail = Some(0),
                O::LongestFirst => {
                    let (req, job) = (&it.req, &self.jobs[it.j]);
                    let avail = profile.maui_availability(
                        node,
                        start,
                        &req.task,
                        req.tasks,
                        job.tasks_per_node,
                        it.wall,
                        adm,
                    );
                    c.maui_avail = Some(avail.map_or(0, |a| a.1));
                }
            }
        }
        if start > self.now
            && self.cfg.params.reservation_node_policy
                == crate::config::ReservationNodePolicy::LatestFreed
        {
            c.freed_at = Some(profile.freed_at(node, self.now, (start, end), adm));
        }
        if occupants_matter(n, it.req.access) {
            let occ = profile.occupants(node, start, end);
            c.job_count = occ.len() as u32;
            c.occupants = occ
                .iter()
                .map(|o| {
                    let (job, user, access) = match self.jobs.get(o.job as usize) {
                        Some(oj) => (oj.id.clone(), oj.user.clone(), None),
                        None => (format!("#{}", o.job), String::new(), None),
                    };
                    crate::allocation::Occupant { job, user, access }
                })
                .collect();
        } else {
            c.job_count = profile.occupant_count(node, start, end) as u32;
        }
        c
    }

    /// Some reservation admits job `i` over [now, now + wall): then nodes
    /// whose free processors are all reserved may still hold it.
    pub fn admitted_anywhere(&self, i: usize) -> bool {
        let it = &self.idle[i];
        let job = &self.jobs[it.j];
        let end = self.now.saturating_add(it.wall);
        self.view
            .table
            .iter()
            .any(|r| crate::reservation::access(r, job, self.now, end).is_granted())
    }

    /// Only LASTAVAILABLE orders candidates by the gap after the job (LOCAL
    /// offers the candidates to the site, and falls back to LASTAVAILABLE).
    pub fn needs_gap(&self, job: &Job) -> bool {
        use crate::config::NodeAllocationPolicy as P;
        matches!(
            crate::allocation::effective_policy(job, &self.cfg.params),
            P::LastAvailable | P::Local
        )
    }

    /// Adds job `i`'s placement to the profile; all or nothing.
    pub fn commit(
        &mut self,
        i: usize,
        (start, end): (Time, Time),
        nodes: &[(NodeIdx, u32)],
    ) -> bool {
        let j = self.idle[i].j;
        let task = self.idle[i].req.task;
        let job_access = self.idle[i].req.access;
        let table = std::mem::take(&mut self.view.table);
        let adm = JobAdmission::new(&table, &self.jobs[j]);
        let mut done: Vec<NodeIdx> = Vec::new();
        let mut ok = true;
        for &(node, tasks) in nodes {
            let ded = dedicated(self.view.cluster.nodes[node as usize].access, job_access);
            let o = Occupant {
                job: j as JobIdx,
                start,
                end,
                task,
                tasks,
            };
            if place_job(&mut self.view.profile, node, o, ded, &adm).is_err() {
                ok = false;
                break;
            }
            done.push(node);
        }
        if !ok {
            for node in done {
                self.view.profile.remove_job(node, j as JobIdx);
            }
        }
        drop(adm);
        self.view.table = table;
        ok
    }

    /// Why job `i` waits when the nodes hold it over [now, now + wall)
    /// only with the reservations ignored: a reservation on a `suitable`
    /// node that the job may not use, named; else resources.
    pub fn reserved_against(
        &self,
        i: usize,
        base: &Profile,
        suitable: impl Fn(NodeIdx) -> bool,
    ) -> Reason {
        let it = &self.idle[i];
        let (start, end) = (self.now, self.now.saturating_add(it.wall));
        let adm = self.adm(it.j);
        let nodes = self.view.cluster.nodes.len() as NodeIdx;
        for n in (0..nodes).filter(|&n| suitable(n)) {
            for (r, _) in base.claims_at(n, start) {
                if adm.admits(r, start, end).is_none() {
                    return Reason::Reservation {
                        id: self.view.table[r as usize].id.clone(),
                    };
                }
            }
        }
        Reason::Resources
    }

    /// Node `n` is up and usable and meets job `i`'s requirements, asked
    /// of the node itself (the accelerated placer asks its node sets).
    pub fn suitable_plain(&self, i: usize, n: NodeIdx) -> bool {
        let node = &self.view.cluster.nodes[n as usize];
        node.usable && self.idle[i].req.check_node_any_state(node).is_ok()
    }

    /// The nodes job `i` may use (its host list, else every node; those of
    /// the reservation it asks for) that hold at least one of its tasks
    /// over `window`: how many, and what is free there. `None` when the
    /// reservation it asks for does not exist.
    pub fn room(
        &self,
        i: usize,
        (start, end): (Time, Time),
    ) -> Option<Vec<(NodeIdx, u32, Resources)>> {
        let it = &self.idle[i];
        let advres = self.advres_nodes(&self.jobs[it.j]).transpose().ok()?;
        let adm = self.adm(it.j);
        let nodes: Vec<NodeIdx> = match &it.req.hosts {
            Some(h) => h.clone(),
            None => (0..self.view.cluster.nodes.len() as NodeIdx).collect(),
        };
        let room = nodes
            .into_iter()
            .filter(|&n| {
                self.suitable_plain(i, n) && advres.as_ref().is_none_or(|a| a.contains(&n))
            })
            .filter_map(|n| {
                let free = self.view.profile.free(n, start, end, &adm);
                let tasks = it.req.task.times_fits_in(&free);
                (tasks > 0).then_some((n, tasks, free))
            });
        Some(room.collect())
    }

    /// The nodes the allocation policy gives job `i` over [start, start +
    /// wall) in the profile as it is, every node with room (among `only`)
    /// a candidate; not committed. What the reference placer places, and
    /// how preemption tries a profile without some jobs.
    pub fn allocation(
        &self,
        i: usize,
        start: Time,
        only: Option<&[NodeIdx]>,
    ) -> Option<Vec<(NodeIdx, u32)>> {
        let it = &self.idle[i];
        let window = (start, start.saturating_add(it.wall));
        let need = it.req.tasks as u64;
        let room = self.room(i, window).map(|mut r| {
            if let Some(o) = only {
                r.retain(|x| o.contains(&x.0));
            }
            r
        });
        let cands: Vec<Candidate> = match room {
            None if need == 0 => Vec::new(),
            None => return None,
            Some(room) => {
                if room.iter().map(|&(_, t, _)| t as u64).sum::<u64>() < need {
                    return None;
                }
                let adm = self.adm(it.j);
                let gap = self.needs_gap(&self.jobs[it.j]);
                room.into_iter()
                    .map(|(n, t, free)| self.candidate(i, n, (t, free), window, &adm, gap, true))
                    .collect()
            }
        };
        let policy = crate::allocation::effective_policy(&self.jobs[it.j], &self.cfg.params);
        let immediate = start == self.now;
        let alloc = crate::allocation::allocate_checked(
            it.req,
            &cands,
            &self.view.cluster,
            policy,
            immediate,
            self.local,
        )?;
        Some(alloc.nodes)
    }

    /// Nodes by name, with their tasks.
    pub fn named(&self, nodes: &[(NodeIdx, u32)]) -> Vec<NodeTasks> {
        nodes
            .iter()
            .map(|&(n, t)| NodeTasks {
                node: self.view.cluster.nodes[n as usize].name.clone(),
                tasks: t,
            })
            .collect()
    }
}

/// True when node access needs to know the jobs already on a node: a
/// policy that forbids or limits sharing (the job's or the node's), or a
/// per-node job limit. Otherwise `access_limit` allows any number of tasks
/// whoever is there, and only the count of jobs matters (PRIORITYF JOBCOUNT).
fn occupants_matter(
    n: &crate::model::EffNode,
    job: Option<crate::config::NodeAccessPolicy>,
) -> bool {
    use crate::config::NodeAccessPolicy as P;
    let limits = |p: P| matches!(p, P::SingleJob | P::SingleTask | P::SingleUser);
    limits(n.access)
        || job.is_some_and(limits)
        || n.max_job.is_some()
        || n.max_job_per_user.is_some()
}
