//! One iteration, step by step (see the module documentation of `engine`).

use super::avail::{NowIndex, Scope};
use super::build::{self, dedicated, place_job, View};
use super::plan::*;
use super::state::{AccrualMap, EngineState, JobReservation, NamedClaim};
use crate::allocation::{
    allocate_checked, effective_policy, Candidate, LocalAllocator, TaskRequest,
};
use crate::backfill::{self, BfJob};
use crate::config::{BackfillPolicy, Config, ReservationPolicy};
use crate::model::{Cluster, Job, JobState, NodeIdx, NodeTasks, Resources, Secs, Time};
use crate::priority::{self, PriorityContext, QueueAccrual};
use crate::profile::{Admits, FitRequest, JobIdx, Occupant, Profile, ResIdx};
use crate::reservation::acl::JobAdmission;
use crate::reservation::ResKind;
use crate::throttle::{self, Totals, Usage, Verdict};
use std::collections::{BTreeMap, BTreeSet};

mod memo;
pub(super) mod shortlist;

/// Waiting jobs beyond this many (in priority order) get their reason from
/// a cheap aggregate check instead of a per-node look.
const REASON_DETAIL: usize = 2000;

/// What `run` hands back.
pub struct Outcome {
    pub plan: Plan,
    pub view: View,
    pub base: Profile,
    /// Set when this iteration started nothing and a poll over the same
    /// jobs may be answered by [`still_quiet`].
    pub quiet: Option<Quiet>,
}

/// What an iteration that started nothing leaves for a later poll over the
/// same jobs ([`still_quiet`]): the jobs its decisions depended on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Quiet {
    /// Eligible idle jobs (indices into the iteration's jobs) in priority
    /// order, up to the last one the priority pass found blocked or tried
    /// to reserve for: these decide the reservations.
    head: Vec<usize>,
    /// Every eligible idle job, in job order.
    eligible: Vec<usize>,
    /// [`Ranked::statics`] of the iteration.
    statics: Vec<(usize, bool)>,
    /// The first time the availability profile changes after the
    /// iteration: the first end of a running job's window or start of a
    /// reservation made. A later poll must come before it.
    until: Time,
}

/// True when an iteration that starts nothing leaves the engine's state as
/// if it had not run: no standing reservations (their placement follows
/// what runs at each iteration), RESERVATIONPOLICY other than HIGHEST
/// (which remembers every job ever reserved), no backfill chunking (which
/// remembers when it began), and FSPOLICY DEDICATEDPS or none (usage summed
/// in whole processor-seconds, so accruing over one span or several gives
/// the same numbers; queue-time accrual is additive over spans already).
pub fn idle_iterations_are_neutral(cfg: &Config) -> bool {
    use crate::config::FsMetric;
    let p = &cfg.params;
    cfg.standing.is_empty()
        && p.reservation_policy != ReservationPolicy::Highest
        && !(p.bf_chunk_size > 0 && p.bf_chunk_duration.0 > 0)
        && matches!(p.fs_policy.metric, None | Some(FsMetric::DedicatedPs))
}

/// Whether [`still_quiet`] may answer for an iteration: idle iterations
/// are neutral, no throttling limit is configured (their verdicts follow
/// the order of the jobs tried) and there is no administrator reservation
/// (they begin and end at times of their own). Without standing and admin
/// reservations the reservation table is empty.
fn quiet_allowed(cfg: &Config, state: &EngineState) -> bool {
    idle_iterations_are_neutral(cfg) && !has_limits(cfg) && state.admin.list().is_empty()
}

/// A poll at `now` over the same jobs as the iteration that left `quiet`,
/// only time advanced (the caller's promise: nothing submitted, completed,
/// started or removed since, so no running job's window ended either).
/// True when that iteration's decisions stand: the same jobs are eligible
/// and the priority order puts the same jobs first, in the same order.
///
/// Why that is enough: the running jobs are the same and none of their
/// windows ended, so the availability profile from `now` on is the earlier
/// one cut at `now`, and nothing in it changed between the two times. The
/// head jobs get the same reservations (their earliest starts lay at the
/// ends of running jobs' windows, after `now`). Every other eligible job
/// was tried for a start then and failed; a job that fits over
/// [now, now + walltime) would have fitted over [then, then + walltime),
/// where the part before `now` has what is free at `now`, so it fails
/// again, whatever order the others come in. No start, no bypass, the same
/// reservations: the iteration would leave the state as it is, apart from
/// fairshare and queue-time accrual, which this brings to `now` as the
/// iteration would (when the answer is false the caller runs the iteration,
/// which repeats them at no cost).
pub fn still_quiet(
    cfg: &Config,
    state: &mut EngineState,
    jobs: &[Job],
    cluster: &Cluster,
    now: Time,
    quiet: &Quiet,
) -> bool {
    if now >= quiet.until || !quiet_allowed(cfg, state) {
        return false;
    }
    // The same jobs as the iteration that left `quiet`: what it forgot
    // stays forgotten, and what does not depend on time stands.
    accrue_usage(cfg, state, jobs, &cluster.total, now);
    let items: Vec<(usize, bool, bool)> = quiet
        .statics
        .iter()
        .map(|&(j, _)| (j, true, true))
        .collect();
    let eff = queue_times(cfg, &mut state.accrual, jobs, &items, now);
    let fs = CachedFairshare::new(&state.fairshare);
    let fs_caps = any_fs_cap(cfg);
    let ctx = PriorityContext {
        now,
        cfg,
        total: cluster.total,
        fairshare: &fs,
    };
    // As `rank` orders: priority, then submission, then position.
    let mut keys: Vec<(std::cmp::Reverse<i64>, Time, usize)> = Vec::with_capacity(items.len());
    for (k, &(j, ok)) in quiet.statics.iter().enumerate() {
        let job = &jobs[j];
        if !ok || time_block(cfg, &state.fairshare, fs_caps, job, now).is_some() {
            continue;
        }
        let (prio, rejected) = priority::job_priority_value(&ctx, job, eff[k]);
        if !rejected {
            keys.push((std::cmp::Reverse(prio), job.submit_time, k));
        }
    }
    keys.sort_unstable();
    let order: Vec<usize> = keys.iter().map(|&(_, _, k)| quiet.statics[k].0).collect();
    if order.len() != quiet.eligible.len() || !order.starts_with(&quiet.head) {
        return false;
    }
    let mut eligible = order;
    eligible.sort_unstable();
    eligible == quiet.eligible
}

/// True when some credential (or a `*CFG[DEFAULT]`) sets FSCAP.
fn any_fs_cap(cfg: &Config) -> bool {
    cfg.creds
        .values()
        .flat_map(|m| m.values())
        .any(|c| c.fs_cap.is_some())
}

/// True when some throttling limit is configured: without one,
/// `check_active` and `check_idle` find nothing that applies and always
/// answer `FitsSoft`.
fn has_limits(cfg: &Config) -> bool {
    !cfg.system.limits.is_empty()
        || cfg
            .creds
            .values()
            .flat_map(|m| m.values())
            .any(|c| !c.limits.is_empty() || !c.overrides.is_empty())
}

/// Fairshare usage looked up once per credential per iteration (priority
/// asks for every credential of every idle job).
struct CachedFairshare<'a> {
    fs: &'a crate::fairshare::Fairshare,
    memo: std::cell::RefCell<FxMap<crate::model::CredKind, FxMap<String, Option<f64>>>>,
}

/// A hash map with the Fx hash: fast for in-memory keys, used for lookups
/// only, never for iteration order, so output does not depend on it.
type FxMap<K, V> = rustc_hash::FxHashMap<K, V>;

/// A hash set with the Fx hash (see [`FxMap`]).
type FxSet<K> = rustc_hash::FxHashSet<K>;

impl<'a> CachedFairshare<'a> {
    fn new(fs: &'a crate::fairshare::Fairshare) -> Self {
        CachedFairshare {
            fs,
            memo: std::cell::RefCell::new(FxMap::default()),
        }
    }
}

impl crate::priority::FairshareView for CachedFairshare<'_> {
    fn usage(&self, cfg: &Config, kind: crate::model::CredKind, name: &str) -> Option<f64> {
        if let Some(v) = self.memo.borrow().get(&kind).and_then(|m| m.get(name)) {
            return *v;
        }
        let v = self.fs.usage(cfg, kind, name);
        self.memo
            .borrow_mut()
            .entry(kind)
            .or_default()
            .insert(name.to_string(), v);
        v
    }
}

/// A job reservation: start, end, nodes and tasks.
type Reserved = (Time, Time, Vec<(NodeIdx, u32)>);

/// What [`Iter::reserve`] did.
enum Reserve {
    /// A reservation was made.
    Made,
    /// The job fits now; no reservation (the backfill phase decides).
    FitsNow,
    /// No time was found.
    Never,
}

/// Per idle job.
struct Idle<'a> {
    j: usize,
    /// Its request (kept in the [`memo::JobMemo`]).
    req: &'a TaskRequest,
    wall: Secs,
    /// Final priority.
    priority: i64,
    /// Effective queue time used for it.
    eff_queue_time: Secs,
    /// Each component's contribution ([`priority::PriorityParts`]).
    contributions: [f64; 6],
    /// The [`NodeSet`] of nodes meeting its requirements (`Feasible`).
    nodes: u32,
    /// Its requirement signature's id ([`Iter::dominated`]).
    sig: u32,
    /// Processors it asks for (`Job::procs`), its id and its bypass count
    /// as the RM gave them: at hand where the passes and the plan walk the
    /// queue in priority order, without a look into the (large) job.
    procs: u64,
    id: &'a str,
    bypass_count: u32,
    /// Set when the job cannot be started in this iteration whatever the resources.
    blocked: Option<Reason>,
}

/// Admission that grants every reservation: "would it fit if nothing were reserved?"
struct AdmitAll;
impl Admits for AdmitAll {
    fn admits(&self, _: ResIdx, _: Time, _: Time) -> Option<crate::config::Affinity> {
        Some(crate::config::Affinity::Neutral)
    }
}

/// The request fields `Feasible` depends on (those `check_node` reads).
type FeasibleKey = (
    Vec<String>,
    Option<String>,
    Option<Vec<NodeIdx>>,
    Vec<NodeIdx>,
    bool,
    Option<u64>,
);

/// (nodes meeting the requirements whatever their state, largest node,
/// total processors of those nodes).
type FeasibleNodes = (Vec<NodeIdx>, Resources, u64);

/// The same nodes as a bit set by node index, for the per-node test of
/// candidate scans (`check_node` compares feature names, this one bit).
#[derive(Default)]
struct NodeSet(Vec<u64>);

impl NodeSet {
    fn contains(&self, n: NodeIdx) -> bool {
        self.0
            .get(n as usize / 64)
            .is_some_and(|w| w & (1 << (n % 64)) != 0)
    }
}

/// Nodes that could ever satisfy a job's hard requirements, summarised by
/// requirement signature (most jobs share one). Looked up by a hash of the
/// fields, compared in full, so a hit allocates nothing.
#[derive(Default)]
struct Feasible {
    memo: FxMap<u64, Vec<(FeasibleKey, FeasibleNodes, u32)>>,
    /// Node sets by id (the third field of a memo entry).
    sets: Vec<NodeSet>,
    /// The largest node of each set, by id (as in its [`FeasibleNodes`]).
    largest: Vec<Resources>,
}

impl Feasible {
    fn hash(req: &TaskRequest) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut h = rustc_hash::FxHasher::default();
        req.features.hash(&mut h);
        req.partition.hash(&mut h);
        req.hosts.hash(&mut h);
        req.excluded.hash(&mut h);
        req.exact_proc.hash(&mut h);
        req.procs_per_node().hash(&mut h);
        h.finish()
    }

    fn same(k: &FeasibleKey, req: &TaskRequest) -> bool {
        k.0 == req.features
            && k.1 == req.partition
            && k.2 == req.hosts
            && k.3 == req.excluded
            && k.4 == req.exact_proc
            && k.5 == req.procs_per_node()
    }

    /// See [`FeasibleNodes`].
    fn of(&mut self, req: &TaskRequest, cluster: &Cluster) -> &FeasibleNodes {
        let (bucket, pos) = self.entry(req, cluster);
        &self.memo[&bucket][pos].1
    }

    /// Id of the [`NodeSet`] of the nodes meeting the request's
    /// requirements whatever their state.
    fn set_of(&mut self, req: &TaskRequest, cluster: &Cluster) -> u32 {
        let (bucket, pos) = self.entry(req, cluster);
        self.memo[&bucket][pos].2
    }

    fn set(&self, id: u32) -> &NodeSet {
        &self.sets[id as usize]
    }

    /// The largest node (each resource's most) of set `id`.
    fn largest(&self, id: u32) -> Resources {
        self.largest[id as usize]
    }

    fn entry(&mut self, req: &TaskRequest, cluster: &Cluster) -> (u64, usize) {
        let h = Self::hash(req);
        let bucket = self.memo.entry(h).or_default();
        let pos = match bucket.iter().position(|(k, _, _)| Self::same(k, req)) {
            Some(p) => p,
            None => {
                let mut nodes = Vec::new();
                let mut max = Resources::ZERO;
                let mut procs = 0u64;
                let mut set = NodeSet(vec![0; cluster.nodes.len().div_ceil(64)]);
                for (k, n) in cluster.nodes.iter().enumerate() {
                    if req.check_node_any_state(n).is_ok() {
                        set.0[k / 64] |= 1 << (k % 64);
                        nodes.push(n.index);
                        max = max.max_each(&n.configured);
                        procs += n.configured.procs as u64;
                    }
                }
                let key = (
                    req.features.clone(),
                    req.partition.clone(),
                    req.hosts.clone(),
                    req.excluded.clone(),
                    req.exact_proc,
                    req.procs_per_node(),
                );
                bucket.push((key, (nodes, max, procs), self.sets.len() as u32));
                self.sets.push(set);
                self.largest.push(max);
                bucket.len() - 1
            }
        };
        (h, pos)
    }
}

struct Iter<'a> {
    cfg: &'a Config,
    jobs: &'a [Job],
    now: Time,
    view: View,
    usage: Usage,
    idle: Vec<Idle<'a>>,
    started: BTreeMap<usize, Start>,
    /// Job index -> (start, end, nodes) of reservations made now.
    reserved: BTreeMap<usize, Reserved>,
    local: Option<&'a dyn LocalAllocator>,
    feasible: Feasible,
    /// Smallest failed request per requirement signature id (backfill): a
    /// job needing at least as much as a failed one cannot fit either,
    /// since resources only shrink during the passes.
    failed: Vec<Vec<(u64, Resources, Secs)>>,
    /// Some request failed (some entry of `failed` is not empty).
    any_failed: bool,
    /// Some throttling limit is configured (else every check passes).
    throttled: bool,
    /// Bounds on what can start now, kept up to date as jobs are placed:
    /// for any job, and for jobs no reservation admits.
    now_ix: NowIndex,
    open_ix: NowIndex,
    /// Per idle job: 1 when no reservation of the table admits it over
    /// [now, now + walltime), 2 when one may, 0 not yet known.
    unreserved: Vec<std::cell::Cell<u8>>,
    /// The same for the profile before the passes (reasons).
    base_ix: NowIndex,
    /// The engine's [`Carried::fits`], for the iteration.
    fits: crate::profile::FitCache,
    /// Node orders for shortlists, carried with the cluster.
    orders: shortlist::NodeOrders,
    /// Nodes reservations claim anything on, once a shortlist needs them.
    claimed: Option<shortlist::Claimed>,
    /// Nodes the passes placed a job on later than now (the indexes are
    /// not refreshed for those).
    later: shortlist::NodeBits,
    /// The shortlists' node orders, per policy, once one needs them.
    walks: Vec<shortlist::Walk>,
}

impl<'a> Iter<'a> {
    fn adm<'b>(&'b self, j: usize) -> JobAdmission<'b> {
        JobAdmission::new(&self.view.table, &self.jobs[j])
    }

    /// Nodes of the reservation a job asks for (ADVRES), or `None`.
    fn advres_nodes(&self, job: &Job) -> Option<Result<BTreeSet<NodeIdx>, String>> {
        let want = job.advres.as_deref()?;
        Some(
            self.view
                .table
                .iter()
                .find(|r| r.id == want || r.standing_name() == Some(want))
                .map(|r| {
                    self.view
                        .table
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

    /// Candidate nodes for job `i` over [start, end), or `None` when they
    /// hold fewer than `need` tasks in all. The tasks each node can hold are
    /// counted first, and the rest of a candidate (affinity, gap,
    /// occupants) is looked up only when the count reaches `need`: most
    /// attempts fail it.
    fn candidates(
        &self,
        i: usize,
        (start, end): (Time, Time),
        need: u64,
        only: Option<&[NodeIdx]>,
    ) -> Option<Vec<Candidate>> {
        let it = &self.idle[i];
        let job = &self.jobs[it.j];
        let adm = self.adm(it.j);
        let Some(nodes) = self.nodes_with_room(i, (start, end), &adm, only) else {
            return (need == 0).then(Vec::new);
        };
        // Only LASTAVAILABLE orders by the gap after the job (LOCAL offers
        // the candidates to the site, and falls back to LASTAVAILABLE).
        let need_gap = matches!(
            effective_policy(job, &self.cfg.params),
            crate::config::NodeAllocationPolicy::LastAvailable
                | crate::config::NodeAllocationPolicy::Local
        );
        let mut fits: Vec<(NodeIdx, u32, Resources)> = Vec::new();
        let mut sum = 0u64;
        for (node, tasks, free) in nodes {
            sum += tasks as u64;
            fits.push((node, tasks, free));
        }
        if sum < need {
            return None;
        }
        let window = (start, end);
        Some(
            fits.into_iter()
                .map(|(node, tasks, free)| {
                    self.candidate(i, node, (tasks, free), window, &adm, need_gap, true)
                })
                .collect(),
        )
    }

    /// Job `i`'s candidate on `node`, which holds `tasks` of its tasks
    /// with `free` free over `window`: its affinity for the reservations
    /// there (none when `claimed` is false: the caller knows no
    /// reservation claims anything on the node), the gap after it when
    /// `need_gap`, and the jobs there when node access counts them.
    #[allow(clippy::too_many_arguments)]
    fn candidate(
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
        let mut c = Candidate::new(node, tasks, free);
        if claimed {
            c.affinity = self.view.profile.reserved_affinity(node, start, end, adm);
        }
        if need_gap {
            c.gap = self
                .view
                .profile
                .gap_after(node, start, end, &it.req.task, adm);
        }
        if occupants_matter(n, it.req.access) {
            let occ = self.view.profile.occupants(node, start, end);
            c.job_count = occ.len() as u32;
            c.occupants = occ
                .iter()
                .map(|o| {
                    let (job, user, access) = match self.jobs.get(o.job as usize) {
                        Some(oj) => (oj.id.clone(), oj.user.clone(), None),
                        None => (format!("#{}", o.job), String::new(), None),
                    };
                    crate::throttle::Occupant { job, user, access }
                })
                .collect();
        } else {
            c.job_count = self.view.profile.occupant_count(node, start, end) as u32;
        }
        c
    }

    /// `check_node` of job `i` on `node`, by the job's node set: up and
    /// usable, and meeting the requirements.
    fn suitable(&self, i: usize, node: NodeIdx) -> bool {
        self.view.cluster.nodes[node as usize].usable
            && self.feasible.set(self.idle[i].nodes).contains(node)
    }

    /// Σ tasks of job `i` over the nodes [`Iter::candidates`] would offer
    /// for [start, end), counted up to `need` (the same filters, without
    /// building the candidates): most attempts fail this count, and it
    /// spares them the affinity and occupant look-ups.
    fn tasks_available(&self, i: usize, start: Time, end: Time, need: u64) -> u64 {
        let adm = self.adm(self.idle[i].j);
        let Some(nodes) = self.nodes_with_room(i, (start, end), &adm, None) else {
            return 0;
        };
        let mut sum = 0u64;
        for (_, tasks, _) in nodes {
            sum += tasks as u64;
            if sum >= need {
                break;
            }
        }
        sum
    }

    /// The nodes job `i` may use over [start, end) that hold at least one
    /// of its tasks then, with how many and their free resources, in node
    /// order; `None` when the reservation it asks for (ADVRES) does not
    /// exist. What [`Iter::candidates`] and [`Iter::tasks_available`] both
    /// walk. `only`: the caller knows that the nodes with room are among
    /// these (sorted).
    fn nodes_with_room<'b>(
        &'b self,
        i: usize,
        (start, end): (Time, Time),
        adm: &'b JobAdmission<'b>,
        only: Option<&'b [NodeIdx]>,
    ) -> Option<impl Iterator<Item = (NodeIdx, u32, Resources)> + 'b> {
        let it = &self.idle[i];
        let advres = match self.advres_nodes(&self.jobs[it.j]) {
            Some(Ok(n)) => Some(n),
            Some(Err(_)) => return None,
            None => None,
        };
        // A job starting now can only use nodes with room for a task now.
        let now = start == self.now;
        let ix = self.index_for(i);
        let all = 0..self.view.cluster.nodes.len() as NodeIdx;
        let nodes: Box<dyn Iterator<Item = NodeIdx> + 'b> = match (only, &it.req.hosts, now) {
            (Some(o), _, _) => Box::new(o.iter().copied()),
            (None, Some(h), _) => Box::new(h.iter().copied()),
            (None, None, true) => Box::new(ix.open(&it.req.task).iter().copied()),
            (None, None, false) => Box::new(all),
        };
        Some(nodes.filter_map(move |node| {
            if now && !it.req.task.fits_in(&ix.free_now(node)) {
                return None;
            }
            if !self.suitable(i, node) || advres.as_ref().is_some_and(|a| !a.contains(&node)) {
                return None;
            }
            let free = self.view.profile.free(node, start, end, adm);
            let tasks = it.req.task.times_fits_in(&free);
            (tasks > 0).then_some((node, tasks, free))
        }))
    }

    /// Tries to place job `i` over [start, start + wall) and commits it.
    /// `only`: as for [`Iter::nodes_with_room`].
    fn try_place(
        &mut self,
        i: usize,
        start: Time,
        immediate: bool,
        only: Option<&[NodeIdx]>,
    ) -> Option<Vec<(NodeIdx, u32)>> {
        let (j, wall) = (self.idle[i].j, self.idle[i].wall);
        let end = start.saturating_add(wall);
        let shortlisted = match (start == self.now && immediate, only) {
            (true, None) => self.allocate_now_shortlisted(i),
            _ => shortlist::Shortlisted::Undecided,
        };
        let alloc = match shortlisted {
            shortlist::Shortlisted::Placed(a) => a,
            shortlist::Shortlisted::Fails => return None,
            shortlist::Shortlisted::Undecided => {
                let cands =
                    self.candidates(i, (start, end), self.idle[i].req.tasks as u64, only)?;
                let policy = effective_policy(&self.jobs[j], &self.cfg.params);
                allocate_checked(
                    self.idle[i].req,
                    &cands,
                    &self.view.cluster,
                    policy,
                    immediate,
                    self.local,
                )?
            }
        };
        self.commit(i, (start, end), &alloc.nodes)
            .then_some(alloc.nodes)
    }

    /// Adds a placement to the profile; all or nothing.
    fn commit(&mut self, i: usize, (start, end): (Time, Time), nodes: &[(NodeIdx, u32)]) -> bool {
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
        // What is free now only changes with a start now; later
        // placements would only tighten the bounds, which stay bounds.
        if ok && start != self.now {
            for &(node, _) in nodes {
                self.later.insert(node);
            }
            self.update_walks(nodes);
        }
        if ok && start == self.now {
            for &(node, _) in nodes {
                self.now_ix.refresh(&self.view.profile, node);
                self.open_ix.refresh(&self.view.profile, node);
            }
            self.now_ix.maybe_resort();
            self.open_ix.maybe_resort();
            self.update_walks(nodes);
        }
        ok
    }

    /// The index bounding what job `i` may use from now: unclaimed
    /// capacity only when no reservation admits it.
    fn index_for(&self, i: usize) -> &NowIndex {
        let c = &self.unreserved[i];
        if c.get() == 0 {
            let it = &self.idle[i];
            let job = &self.jobs[it.j];
            let end = self.now.saturating_add(it.wall);
            let any = self
                .view
                .table
                .iter()
                .any(|r| crate::reservation::access(r, job, self.now, end).is_granted());
            c.set(if any { 2 } else { 1 });
        }
        if c.get() == 1 {
            &self.open_ix
        } else {
            &self.now_ix
        }
    }

    /// False when job `i` certainly cannot start now (aggregate bound).
    fn may_fit_now(&self, i: usize) -> bool {
        let it = &self.idle[i];
        self.index_for(i)
            .may_fit(it.req.tasks, &it.req.task, self.now.saturating_add(it.wall))
    }

    fn start_now(&mut self, i: usize, backfill: bool) -> bool {
        if !self.may_fit_now(i) {
            return false;
        }
        let Some(nodes) = self.try_place(i, self.now, true, None) else {
            return false;
        };
        let j = self.idle[i].j;
        let job = &self.jobs[j];
        if self.throttled {
            let mut t = Totals::of_job(
                job,
                self.now,
                self.cfg.params.system_default_job_walltime.0,
                &self.view.cluster.total,
            );
            t.nodes = nodes.len() as u64;
            self.usage.add_active(job, &t);
        }
        let reservation = job.advres.clone().or_else(|| {
            let adm = self.adm(j);
            nodes.iter().find_map(|&(n, _)| {
                self.view
                    .profile
                    .claims_at(n, self.now)
                    .into_iter()
                    .find(|(r, _)| {
                        adm.admits(*r, self.now, self.now + self.idle[i].wall)
                            .is_some()
                    })
                    .map(|(r, _)| self.view.table[r as usize].id.clone())
            })
        });
        self.started.insert(
            j,
            Start {
                job: job.id.clone(),
                allocation: self.named(&nodes),
                backfill,
                reservation,
            },
        );
        true
    }

    fn named(&self, nodes: &[(NodeIdx, u32)]) -> Vec<NodeTasks> {
        nodes
            .iter()
            .map(|&(n, t)| NodeTasks {
                node: self.view.cluster.nodes[n as usize].name.clone(),
                tasks: t,
            })
            .collect()
    }

    /// A reservation at job `i`'s earliest feasible start. When the job
    /// could start now but may not (`allow_now` false: it would be backfill
    /// outside the backfill policy), nothing is reserved.
    fn reserve(&mut self, i: usize, allow_now: bool) -> Reserve {
        let it = &self.idle[i];
        let job = &self.jobs[it.j];
        let earliest = self.now.max(job.earliest_start.unwrap_or(self.now));
        let req = FitRequest {
            tasks: it.req.tasks,
            task: it.req.task,
            duration: it.wall,
            earliest,
            min_per_node: it.req.tasks_per_node.unwrap_or(0),
            max_per_node: if it.req.exact_tpn {
                it.req.tasks_per_node
            } else {
                None
            },
            nodes: it.req.node_count,
        };
        let advres = match self.advres_nodes(job) {
            Some(Ok(n)) => Some(n),
            Some(Err(_)) => return Reserve::Never,
            None => None,
        };
        let mut fits = std::mem::take(&mut self.fits);
        let fit = {
            let adm = self.adm(it.j);
            self.view.profile.earliest_start_cached(
                &req,
                &adm,
                |n| self.suitable(i, n) && advres.as_ref().is_none_or(|a| a.contains(&n)),
                &mut fits,
            )
        };
        self.fits = fits;
        let Some(fit) = fit else {
            return Reserve::Never;
        };
        if fit.start == self.now && !allow_now {
            return Reserve::FitsNow;
        }
        let end = fit.start.saturating_add(it.wall);
        // Nodes chosen by the allocation policy at that time (CPULOAD uses
        // MINRESOURCE for the future); the profile's own fit if it declines.
        // The nodes with room at the fit's start are those the fit counts
        // (each holds at least one task then), unless per-node rules made
        // it skip some.
        let counted: Option<Vec<NodeIdx>> = (req.min_per_node <= 1 && req.max_per_node.is_none())
            .then(|| fit.nodes.iter().map(|&(n, _)| n).collect());
        let nodes = match self.try_place(i, fit.start, fit.start == self.now, counted.as_deref()) {
            Some(n) => n,
            None => {
                if !self.commit(i, (fit.start, end), &fit.nodes) {
                    return Reserve::Never;
                }
                fit.nodes.clone()
            }
        };
        self.reserved
            .insert(self.idle[i].j, (fit.start, end, nodes));
        Reserve::Made
    }

    /// Could job `i` start now if it were its turn (enough free resources
    /// for it, reservations respected)?
    fn fits_now(&self, i: usize) -> bool {
        if !self.may_fit_now(i) {
            return false;
        }
        let end = self.now.saturating_add(self.idle[i].wall);
        let need = self.idle[i].req.tasks as u64;
        self.tasks_available(i, self.now, end, need) >= need
    }

    /// Fast necessary check for backfill: did a job asking for no more
    /// already fail?
    fn dominated(&self, i: usize) -> bool {
        if !self.any_failed {
            return false;
        }
        let it = &self.idle[i];
        self.failed[it.sig as usize]
            .iter()
            .any(|(tasks, task, wall)| {
                it.req.tasks as u64 >= *tasks && task.fits_in(&it.req.task) && it.wall >= *wall
            })
    }

    fn note_failure(&mut self, i: usize) {
        let it = &self.idle[i];
        let entry = (it.req.tasks as u64, it.req.task, it.wall);
        let v = &mut self.failed[it.sig as usize];
        if v.len() < 64 {
            v.push(entry);
            self.any_failed = true;
        }
    }
}

fn verdict_reason(v: &Verdict) -> Option<Reason> {
    let viol = v.violation()?;
    Some(Reason::Policy {
        limit: viol.limit,
        credential: viol.cred_label(),
        hard: viol.hard,
        detail: viol.to_string(),
    })
}

/// Step 1's bookkeeping: fairshare accrues the running jobs' usage since
/// the last iteration, and what is remembered of jobs that left is
/// forgotten. Running it twice at the same `now` changes nothing more.
fn reconcile(cfg: &Config, state: &mut EngineState, jobs: &[Job], total: &Resources, now: Time) {
    accrue_usage(cfg, state, jobs, total, now);
    // Fx-hashed: built over every job in each iteration.
    let idle_ids: FxSet<&str> = jobs
        .iter()
        .filter(|j| j.state == JobState::Idle)
        .map(|j| j.id.as_str())
        .collect();
    // Queue-time accrual of jobs no longer idle is forgotten as `rank`
    // rebuilds the table.
    state.bypass.retain(|k, _| idle_ids.contains(k.as_str()));
    // System priorities (setspri) are few: every job's id is hashed only
    // when there are some.
    if !state.system_priority.is_empty() {
        let present: FxSet<&str> = jobs.iter().map(|j| j.id.as_str()).collect();
        state
            .system_priority
            .retain(|k, _| present.contains(k.as_str()));
    }
    state
        .ever_reserved
        .retain(|k, _| idle_ids.contains(k.as_str()));
}

/// Fairshare accrues the running jobs' usage since the last iteration.
fn accrue_usage(cfg: &Config, state: &mut EngineState, jobs: &[Job], total: &Resources, now: Time) {
    let since = state.last_iteration.unwrap_or(now).min(now);
    state.fairshare.accrue(cfg, jobs, total, since, now);
    state.last_iteration = Some(now);
}

/// What keeps an otherwise eligible job from starting at `now` that time
/// alone can change: a fairshare cap reached, a begin time not reached.
/// `fs_caps` is [`any_fs_cap`]: without a cap no credential is looked up.
fn time_block(
    cfg: &Config,
    fs: &crate::fairshare::Fairshare,
    fs_caps: bool,
    job: &Job,
    now: Time,
) -> Option<Reason> {
    if let Some(v) = fs_caps.then(|| fs.fs_cap_exceeded(cfg, job)).flatten() {
        return Some(Reason::FairshareCap {
            detail: v.to_string(),
        });
    }
    job.earliest_start
        .filter(|t| *t > now)
        .map(|at| Reason::BeginTime { at })
}

/// Effective queue times of idle jobs given as (job, within idle limits,
/// within active limits), their accrual brought up to `now`. Each job's
/// update is its own, so the order of updates does not matter, except
/// between jobs with the same id, which keep the given order.
fn queue_times(
    cfg: &Config,
    accrual: &mut AccrualMap,
    jobs: &[Job],
    items: &[(usize, bool, bool)],
    now: Time,
) -> Vec<Secs> {
    let policy = cfg.params.job_prio_accrual_policy;
    // Items come in job order (those of `still_quiet`): each record is
    // looked for after the last one found.
    let mut next = 0;
    items
        .iter()
        .map(|&(j, meets_idle, active_ok)| {
            let job = &jobs[j];
            if let Some(acc) = accrual.get_mut_next(&mut next, &job.id) {
                acc.update(policy, job, now, meets_idle, active_ok);
                return acc.effective();
            }
            let mut acc = QueueAccrual::new(job);
            acc.update(policy, job, now, meets_idle, active_ok);
            accrual.insert(job.id.clone(), acc);
            acc.effective()
        })
        .collect()
}

/// What [`rank`] found.
struct Ranked<'a> {
    /// Every idle job, in priority order.
    idle: Vec<Idle<'a>>,
    /// Every idle job in the order `rank` looked at them (job order, or
    /// submission then job order under idle limits), with whether it is
    /// eligible but for what time alone can change ([`time_block`]),
    /// priority aside. Ties of priority and submission fall to this order
    /// as to the id ([`still_quiet`]).
    statics: Vec<(usize, bool)>,
}

/// Steps 2-3: every idle job with its request, walltime, priority and
/// eligibility, in priority order (priority, then submission, then id).
/// Queue-time accrual is brought up to `now` (again at the same `now`, a
/// no-op). `usage` is given when throttling limits are configured;
/// `memo` holds what is derived from each idle job alone, in the slot
/// `slots` gives by job index ([`memo::JobMemo::refresh`]).
#[allow(clippy::too_many_arguments)]
fn rank<'a>(
    cfg: &Config,
    state: &mut EngineState,
    jobs: &'a [Job],
    view: &View,
    usage: Option<&Usage>,
    now: Time,
    memo: &'a memo::JobMemo,
    slots: &[u32],
) -> Ranked<'a> {
    let (cluster, table) = (&*view.cluster, &view.table);
    let p = &cfg.params;
    let default_wall = p.system_default_job_walltime.0;
    let mut idle: Vec<Idle<'a>> = Vec::with_capacity(jobs.len());
    let mut queue_usage = Usage::new(cfg);
    // The idle jobs in the order they are looked at. Idle (queue) limits
    // count jobs in order of submission, then id: `jobs` is in id order
    // (`job_id_cmp`), so submission time then position gives that order
    // (sorted as keys: a look-up into a large `Job` at each comparison
    // misses the cache). Without limits each job is looked at on its own,
    // so in job order: the order of `jobs` in memory. Either way `idle`
    // breaks ties of priority and submission by id (below).
    let mut order: Vec<(Time, usize)> = (0..jobs.len())
        .filter(|&j| jobs[j].state == JobState::Idle)
        .map(|j| (jobs[j].submit_time, j))
        .collect();
    if usage.is_some() {
        order.sort_unstable();
    }
    let fs = &state.fairshare;
    // Every idle job's accrual, brought to `now`; what is kept of jobs no
    // longer idle is forgotten.
    let mut accrual = state.accrual.rebuild();
    let policy = p.job_prio_accrual_policy;
    let cached_fs = CachedFairshare::new(fs);
    let fs_caps = any_fs_cap(cfg);
    let ctx = PriorityContext {
        now,
        cfg,
        total: cluster.total,
        fairshare: &cached_fs,
    };
    // What priority reads of the credentials, per credential set.
    let mut cred_terms: Vec<Option<priority::CredTerms>> = vec![None; memo.credential_sets()];
    // Per idle job, in that order: eligible but for `time_block`.
    let mut statics: Vec<(usize, bool)> = Vec::with_capacity(order.len());
    for (_, j) in order {
        let job = &jobs[j];
        // What is derived from the job alone (see `memo`).
        let d = memo.get(slots[j]);
        // Idle (queue) limits in order of submission: the first MAXIJOB jobs
        // of a credential are considered, the rest wait. Without any limit
        // configured every check passes.
        let (idle_verdict, active_verdict) = match usage {
            Some(usage) => {
                let demand = Totals::of_job(job, now, default_wall, &cluster.total);
                let idle_verdict = throttle::check_idle(cfg, job, &demand, &queue_usage);
                if idle_verdict.allows(true) {
                    queue_usage.add_idle(job, &demand);
                }
                (
                    idle_verdict,
                    throttle::check_active(cfg, job, &demand, usage),
                )
            }
            None => (Verdict::FitsSoft, Verdict::FitsSoft),
        };
        let meets_idle = idle_verdict.allows(true);
        let mut blocked = if let Some(h) = job.holds.first() {
            Some(Reason::Hold { kind: *h })
        } else if !job.dependency_satisfied {
            Some(Reason::Dependency)
        } else if let Err(e) = throttle::check_job_size(cfg, job) {
            Some(Reason::NoFit {
                detail: e.to_string(),
            })
        } else {
            None
        };
        if blocked.is_none() {
            blocked = d.fit.clone();
        }
        if blocked.is_none() {
            if let Some(want) = &job.advres {
                if !table
                    .iter()
                    .any(|r| &r.id == want || r.standing_name() == Some(want.as_str()))
                {
                    blocked = Some(Reason::NoFit {
                        detail: format!("reservation {want} (ADVRES) does not exist"),
                    });
                }
            }
        }
        if blocked.is_none() && !meets_idle {
            blocked = verdict_reason(&idle_verdict);
        }
        statics.push((j, blocked.is_none()));
        if blocked.is_none() {
            blocked = time_block(cfg, fs, fs_caps, job, now);
        }
        if blocked.is_none() && matches!(active_verdict, Verdict::Blocked(_)) {
            blocked = verdict_reason(&active_verdict);
        }
        let active_ok = active_verdict.allows(true);
        let eff = accrual.record(j, job, |acc| {
            acc.update(policy, job, now, meets_idle, active_ok)
        });
        let terms = cred_terms[memo.creds_of(d.sig) as usize]
            .get_or_insert_with(|| priority::cred_terms(&ctx, job, None));
        debug_assert_eq!(
            format!("{terms:?}"),
            format!("{:?}", priority::cred_terms(&ctx, job, None))
        );
        let parts = priority::job_priority_parts_with(&ctx, job, eff, terms);
        if blocked.is_none() && parts.rejected_negative {
            blocked = Some(Reason::NegativePriority);
        }
        idle.push(Idle {
            j,
            req: &d.req,
            wall: d.wall,
            priority: parts.priority,
            eff_queue_time: eff.max(0),
            contributions: parts.contributions,
            nodes: d.nodes,
            sig: d.sig,
            procs: job.procs(),
            id: &job.id,
            bypass_count: job.bypass_count,
            blocked,
        });
    }
    state.accrual.finish(accrual, jobs);
    // Priority order: priority, then submission, then id. Sorted as keys
    // with positions, then moved once. `idle` is in id order, or in
    // submission then id order, so either way its position breaks the
    // remaining ties as the id would.
    let mut keys: Vec<(std::cmp::Reverse<i64>, Time, usize)> = idle
        .iter()
        .enumerate()
        .map(|(k, x)| (std::cmp::Reverse(x.priority), jobs[x.j].submit_time, k))
        .collect();
    keys.sort_unstable();
    // Apply the permutation in place, cycle by cycle: no second vector of
    // 50,000 large entries. The entry ranked `r` is the one at `keys[r].2`.
    let mut done = vec![false; keys.len()];
    for first in 0..keys.len() {
        let mut r = first;
        while !done[r] {
            done[r] = true;
            let from = keys[r].2;
            if from == first {
                break;
            }
            idle.swap(r, from);
            r = from;
        }
    }
    Ranked { idle, statics }
}

/// What the engine carries from one iteration to the next besides its
/// state: shortcuts only, the decisions are those of an engine that keeps
/// none (`engine::tests::carrying_the_running_profile_decides_the_same`).
#[derive(Default)]
pub struct Carried {
    /// The profile of running jobs ([`build::RunningProfile`]).
    pub running: Option<build::RunningProfile>,
    /// What each node offers the jobs reserved for
    /// ([`crate::profile::Profile::earliest_start_cached`]).
    pub fits: crate::profile::FitCache,
    /// The node sets of requirement signatures, for the cluster they were
    /// found on (they depend on the nodes' configuration only).
    feasible: Option<(std::sync::Arc<Cluster>, Feasible)>,
    /// What ranking derived from each idle job (see `memo`).
    memo: Option<memo::JobMemo>,
    /// The node orders of start shortlists, for the cluster they were
    /// found on (they depend on the nodes' configuration only).
    orders: Option<(std::sync::Arc<Cluster>, shortlist::NodeOrders)>,
}

/// Requirement signatures [`Carried`] keeps at most (a site's distinct
/// host lists could otherwise accumulate for months).
const FEASIBLE_KEPT: usize = 4096;

impl Carried {
    /// The node sets carried for `cluster` (the same one), else none.
    fn feasible_for(&mut self, cluster: &std::sync::Arc<Cluster>) -> Feasible {
        match self.feasible.take() {
            Some((c, f))
                if std::sync::Arc::ptr_eq(&c, cluster) && f.sets.len() <= FEASIBLE_KEPT =>
            {
                f
            }
            _ => Feasible::default(),
        }
    }

    /// Idle jobs whose derivations the last iteration took from the
    /// memo, not derived again.
    #[cfg(test)]
    pub fn memo_reused(&self) -> usize {
        self.memo.as_ref().map_or(0, |m| m.reused())
    }

    /// The node orders carried for `cluster` (the same one), else none.
    fn orders_for(&mut self, cluster: &std::sync::Arc<Cluster>) -> shortlist::NodeOrders {
        match self.orders.take() {
            Some((c, o)) if std::sync::Arc::ptr_eq(&c, cluster) => o,
            _ => shortlist::NodeOrders::default(),
        }
    }
}

/// Runs one iteration; `carried`: what the engine carries between
/// iterations.
pub fn run(
    cfg: &Config,
    state: &mut EngineState,
    jobs: &[Job],
    cluster: std::sync::Arc<crate::model::Cluster>,
    now: Time,
    local: Option<&dyn LocalAllocator>,
    carried: &mut Carried,
) -> Outcome {
    let p = &cfg.params;
    let default_wall = p.system_default_job_walltime.0;

    // 1. Reconcile.
    let mut view = build::build_with(cfg, cluster, jobs, now, state, &mut carried.running);
    reconcile(cfg, state, jobs, &view.cluster.total, now);

    // Usage only feeds throttling checks; without limits none are made.
    let throttled = has_limits(cfg);
    let usage = if throttled {
        Usage::from_jobs(cfg, jobs, now, default_wall, &view.cluster.total)
    } else {
        Usage::new(cfg)
    };

    // 2-3. Eligibility and priority.
    let mut feasible = carried.feasible_for(&view.cluster);
    let mut memo = memo::JobMemo::carried_or_new(
        carried.memo.take(),
        &view.cluster,
        cfg,
        !feasible.sets.is_empty(),
    );
    let slots = memo.refresh(jobs, cfg, &mut feasible);
    let Ranked { idle, statics } = rank(
        cfg,
        state,
        jobs,
        &view,
        throttled.then_some(&usage),
        now,
        &memo,
        &slots,
    );
    let base = view.profile.clone();
    let now_ix = match view.now_ix.take() {
        Some(ix) => ix,
        None => NowIndex::new(&view.cluster, &view.profile, now, Scope::All),
    };
    let base_ix = now_ix.clone();
    let open_ix = if view.table.is_empty() {
        now_ix.clone()
    } else {
        NowIndex::new(&view.cluster, &view.profile, now, Scope::Unclaimed)
    };
    let unreserved = vec![std::cell::Cell::new(0u8); idle.len()];
    let orders = carried.orders_for(&view.cluster);
    let mut it = Iter {
        cfg,
        jobs,
        now,
        view,
        usage,
        idle,
        started: BTreeMap::new(),
        reserved: BTreeMap::new(),
        local,
        feasible,
        failed: vec![Vec::new(); memo.signatures()],
        any_failed: false,
        throttled,
        now_ix,
        open_ix,
        unreserved,
        base_ix,
        fits: std::mem::take(&mut carried.fits),
        orders,
        claimed: None,
        later: shortlist::NodeBits::default(),
        walks: Vec::new(),
    };

    // 5. Priority pass with job reservations. Jobs start in priority order
    // while they fit. From the first job that cannot start, every later
    // start is out of order, that is backfill: it follows BACKFILLPOLICY
    // (FIRSTFIT continues in order here; BESTFIT and GREEDY choose in the
    // backfill phase) and chunking, while blocked jobs keep getting
    // reservations until RESERVATIONDEPTH is used.
    let stacks = cfg.reservation_stacks();
    let mut stack_left: Vec<u32> = stacks.iter().map(|(_, s)| s.depth).collect();
    let mut soft_deferred: BTreeMap<usize, Reason> = BTreeMap::new();
    let mut blocked_seen = false;
    let chunking = p.bf_chunk_size > 0
        && p.bf_chunk_duration.0 > 0
        && p.backfill_policy == BackfillPolicy::FirstFit;
    let mut chunk_on = false;
    let mut chunk_triggered = false;
    // Eligibility before the pass, and the last job whose turn decided a
    // reservation or the first blocked one (see `Quiet`).
    let eligible0: Vec<bool> = it.idle.iter().map(|x| x.blocked.is_none()).collect();
    let mut decisive: Option<usize> = None;
    for i in 0..it.idle.len() {
        if it.idle[i].blocked.is_some() {
            continue;
        }
        let j = it.idle[i].j;
        let job = &jobs[j];
        let verdict = if throttled {
            let demand = Totals::of_job(job, now, default_wall, &it.view.cluster.total);
            throttle::check_active(cfg, job, &demand, &it.usage)
        } else {
            Verdict::FitsSoft
        };
        match verdict {
            Verdict::FitsSoft => {}
            v @ Verdict::FitsHardOnly(_) => {
                if let Some(r) = verdict_reason(&v) {
                    soft_deferred.insert(i, r);
                }
                continue;
            }
            v @ Verdict::Blocked(_) => {
                it.idle[i].blocked = verdict_reason(&v);
                continue;
            }
        }
        let small = chunk_on && it.idle[i].procs < p.bf_chunk_size as u64;
        let may_start = !blocked_seen || (p.backfill_policy == BackfillPolicy::FirstFit && !small);
        if may_start && !(blocked_seen && it.dominated(i)) {
            if it.start_now(i, blocked_seen) {
                continue;
            }
            if blocked_seen {
                it.note_failure(i);
            }
        }
        if !blocked_seen && !it.fits_now(i) {
            blocked_seen = true;
            decisive = Some(i);
        }
        if chunking && !chunk_triggered && it.idle[i].procs >= p.bf_chunk_size as u64 {
            // A large job is blocked: freed resources are kept for large jobs
            // for BFCHUNKDURATION.
            chunk_triggered = true;
            let since = *state.chunk_since.get_or_insert(now);
            chunk_on = now < since + p.bf_chunk_duration.0;
        }
        if p.reservation_policy == ReservationPolicy::Never {
            continue;
        }
        // The first stack admitting the job's QOS that still has room (a
        // job that ever held one keeps it under RESERVATIONPOLICY HIGHEST).
        // Once the stacks are used, most jobs end here: the job itself is
        // looked at only where needed.
        let keep = p.reservation_policy == ReservationPolicy::Highest
            && state.ever_reserved.contains_key(&job.id);
        let admits = |k: usize| {
            stacks[k].1.qos.0.is_empty()
                || stacks[k]
                    .1
                    .qos
                    .contains(job.qos.as_deref().unwrap_or("DEFAULT"))
        };
        let stack = (0..stacks.len())
            .find(|&k| stack_left[k] > 0 && admits(k))
            .or_else(|| {
                keep.then(|| (0..stacks.len()).find(|&k| admits(k)))
                    .flatten()
            });
        if let Some(k) = stack {
            decisive = Some(i);
            match it.reserve(i, may_start) {
                Reserve::Made => {
                    stack_left[k] = stack_left[k].saturating_sub(1);
                    state.ever_reserved.entry(job.id.clone()).or_insert(now);
                }
                Reserve::FitsNow => {}
                Reserve::Never => {
                    if !it.feasible_now_or_later(i) {
                        it.idle[i].blocked = Some(Reason::NoFit {
                            detail: "no time at which its nodes could hold it (reservations and node limits)".into(),
                        });
                    }
                }
            }
        }
    }
    if !chunk_triggered {
        state.chunk_since = None;
    }

    // 6. Backfill: soft limits first, then hard.
    let mut bypassed: BTreeSet<usize> = BTreeSet::new();
    if p.backfill_policy != BackfillPolicy::None {
        for hard in [false, true] {
            let order: Vec<usize> = (0..it.idle.len())
                .filter(|&i| {
                    let x = &it.idle[i];
                    x.blocked.is_none()
                        && !it.started.contains_key(&x.j)
                        && !it.reserved.contains_key(&x.j)
                        && (hard || !soft_deferred.contains_key(&i))
                        && (!chunk_on || x.procs >= p.bf_chunk_size as u64)
                })
                .take(if p.backfill_depth == 0 {
                    usize::MAX
                } else {
                    p.backfill_depth as usize
                })
                .collect();
            match p.backfill_policy {
                BackfillPolicy::FirstFit => {
                    for i in order {
                        if !it.admissible(i, hard) || it.dominated(i) {
                            continue;
                        }
                        if !it.start_now(i, true) {
                            it.note_failure(i);
                        }
                    }
                }
                policy => {
                    // BESTFIT / GREEDY: traverse the backfill windows widest
                    // first; choose among the jobs that fit each window.
                    let mut pool: Vec<usize> = order;
                    loop {
                        let windows = backfill::windows(&it.view.cluster, &it.view.profile, now);
                        let mut progress = false;
                        for w in &windows {
                            let fits: Vec<BfJob> = pool
                                .iter()
                                .filter(|&&i| {
                                    it.idle[i].wall <= w.duration && it.idle[i].procs <= w.procs
                                })
                                .map(|&i| BfJob {
                                    key: i,
                                    procs: it.idle[i].procs,
                                    seconds: it.idle[i].wall,
                                })
                                .collect();
                            let chosen = match policy {
                                BackfillPolicy::Greedy => {
                                    backfill::greedy(&fits, w.procs, p.backfill_metric)
                                }
                                _ => backfill::best_first(&fits, p.backfill_metric),
                            };
                            for i in chosen {
                                if !it.admissible(i, hard) {
                                    pool.retain(|&x| x != i);
                                    continue;
                                }
                                if it.start_now(i, true) {
                                    pool.retain(|&x| x != i);
                                    progress = true;
                                    break;
                                } else {
                                    pool.retain(|&x| x != i);
                                }
                            }
                            if progress {
                                break;
                            }
                        }
                        if !progress || pool.is_empty() {
                            break;
                        }
                    }
                }
            }
        }
    }
    // A job passed over by a lower-priority backfilled job is bypassed (once
    // per iteration, however many jobs passed it).
    let last_backfilled = (0..it.idle.len())
        .filter(|&i| it.started.get(&it.idle[i].j).is_some_and(|s| s.backfill))
        .max();
    if let Some(last) = last_backfilled {
        for x in &it.idle[..last] {
            if x.blocked.is_none() && !it.started.contains_key(&x.j) {
                bypassed.insert(x.j);
            }
        }
    }
    for j in &bypassed {
        *state
            .bypass
            .entry(jobs[*j].id.clone())
            .or_insert(jobs[*j].bypass_count) += 1;
    }

    // 7. The plan.
    // Only jobs past the detail budget need it: a walk over every node,
    // done at most once and only in iterations with such a queue.
    let mut total_free_now: Option<u64> = None;
    let mut plan_jobs = Vec::with_capacity(it.idle.len());
    let mut detail_budget = REASON_DETAIL;
    for i in 0..it.idle.len() {
        let (j, blocked) = (it.idle[i].j, it.idle[i].blocked.clone());
        let started = it.started.contains_key(&j);
        let reason = if started {
            None
        } else if let Some(r) = blocked {
            Some(r)
        } else if let Some(r) = soft_deferred.get(&i) {
            Some(r.clone())
        } else if detail_budget > 0 {
            detail_budget -= 1;
            Some(it.why_waiting(i, &base))
        } else if it.idle[i].procs
            > *total_free_now.get_or_insert_with(|| {
                (0..it.view.cluster.nodes.len() as NodeIdx)
                    .filter(|&n| it.view.cluster.nodes[n as usize].usable)
                    .map(|n| base.free(n, now, now + 1, &AdmitAll).procs as u64)
                    .sum()
            })
        {
            Some(Reason::Resources)
        } else {
            Some(Reason::Priority)
        };
        let x = &it.idle[i];
        let res = it.reserved.get(&x.j);
        plan_jobs.push(JobPlan {
            job: x.id.to_string(),
            priority: x.priority,
            started,
            reason,
            estimated_start: if started { Some(now) } else { res.map(|r| r.0) },
            reservation: res.map(|_| x.id.to_string()),
            bypass_count: state.bypass.get(x.id).copied().unwrap_or(x.bypass_count),
            eff_queue_time: x.eff_queue_time,
            components: x.contributions,
        });
    }
    let mut reservations: Vec<PlanReservation> = Vec::new();
    state.job_reservations.clear();
    for (j, (s, e, nodes)) in &it.reserved {
        let job = &jobs[*j];
        reservations.push(PlanReservation {
            id: job.id.clone(),
            kind: "Job".into(),
            job: Some(job.id.clone()),
            start: *s,
            end: *e,
            allocation: it.named(nodes),
        });
        let task = it
            .idle
            .iter()
            .find(|x| x.j == *j)
            .map(|x| x.req.task)
            .unwrap_or(job.task);
        state.job_reservations.push(JobReservation {
            job: job.id.clone(),
            start: *s,
            end: *e,
            claims: nodes
                .iter()
                .map(|&(n, t)| NamedClaim {
                    node: it.view.cluster.nodes[n as usize].name.clone(),
                    tasks: t,
                    resources: task.checked_mul(t).unwrap_or(task),
                })
                .collect(),
        });
    }
    for r in &it.view.table {
        let kind = match &r.kind {
            ResKind::Admin => "User",
            ResKind::Standing { .. } => "Standing",
            ResKind::Job { .. } => "Job",
        };
        reservations.push(PlanReservation {
            id: r.id.clone(),
            kind: kind.into(),
            job: None,
            start: r.start,
            end: r.end,
            allocation: r
                .claims
                .iter()
                .map(|c| NodeTasks {
                    node: it.view.cluster.nodes[c.node as usize].name.clone(),
                    tasks: c.tasks,
                })
                .collect(),
        });
    }
    let stats = Stats {
        idle: it.idle.len(),
        eligible: it.idle.iter().filter(|x| x.blocked.is_none()).count(),
        running: jobs.iter().filter(|j| j.state.is_active()).count(),
        started_priority: it.started.values().filter(|s| !s.backfill).count(),
        started_backfill: it.started.values().filter(|s| s.backfill).count(),
        job_reservations: it.reserved.len(),
    };
    let mut starts: Vec<Start> = Vec::new();
    for x in &it.idle {
        if let Some(s) = it.started.get(&x.j) {
            starts.push(s.clone());
        }
    }
    // The profile's next change: a running job's window ends (those past
    // their walltime hold a window that moves with `now`: no memo) or a
    // reservation made now begins (one beginning now: no memo either).
    let until = jobs
        .iter()
        .filter(|j| j.state.is_active())
        .map(|j| {
            j.start_time
                .unwrap_or(now)
                .saturating_add(build::walltime(cfg, j).max(0))
        })
        .chain(it.reserved.values().map(|r| r.0))
        .min()
        .unwrap_or(Time::MAX);
    let quiet = (it.started.is_empty() && until > now && quiet_allowed(cfg, state)).then(|| {
        let head_end = decisive.map_or(0, |d| d + 1);
        let eligible_at = |r: std::ops::Range<usize>| -> Vec<usize> {
            r.filter(|&i| eligible0[i]).map(|i| it.idle[i].j).collect()
        };
        let mut eligible = eligible_at(0..it.idle.len());
        eligible.sort_unstable();
        Quiet {
            head: eligible_at(0..head_end),
            eligible,
            statics,
            until,
        }
    });
    let plan = Plan {
        now,
        starts,
        jobs: plan_jobs,
        reservations,
        actions: Vec::new(),
        stats,
    };
    carried.fits = it.fits;
    carried.orders = Some((std::sync::Arc::clone(&it.view.cluster), it.orders));
    carried.feasible = Some((std::sync::Arc::clone(&it.view.cluster), it.feasible));
    let out = Outcome {
        plan,
        view: it.view,
        base,
        quiet,
    };
    drop(it.idle);
    carried.memo = Some(memo);
    out
}

impl Iter<'_> {
    /// Throttling admits the job in this backfill pass.
    fn admissible(&self, i: usize, hard: bool) -> bool {
        if !self.throttled {
            return true;
        }
        let job = &self.jobs[self.idle[i].j];
        let demand = Totals::of_job(
            job,
            self.now,
            self.cfg.params.system_default_job_walltime.0,
            &self.view.cluster.total,
        );
        throttle::check_active(self.cfg, job, &demand, &self.usage).allows(hard)
    }

    /// Could the job ever fit, given the reservations that never end?
    fn feasible_now_or_later(&mut self, i: usize) -> bool {
        let it = &self.idle[i];
        let (nodes, _, _) = self.feasible.of(it.req, &self.view.cluster).clone();
        let cap: u64 = nodes
            .iter()
            .map(|&n| {
                it.req
                    .task
                    .times_fits_in(&self.view.cluster.nodes[n as usize].configured)
                    as u64
            })
            .sum();
        cap >= it.req.tasks as u64
            && self
                .advres_nodes(&self.jobs[it.j])
                .is_none_or(|r| r.is_ok())
    }

    /// Why an eligible job waits: not enough resources at all, a
    /// reservation that excludes it, or higher-priority jobs.
    fn why_waiting(&mut self, i: usize, base: &Profile) -> Reason {
        let it = &self.idle[i];
        let job = &self.jobs[it.j];
        if let Some(Err(e)) = self.advres_nodes(job) {
            return Reason::NoFit { detail: e };
        }
        let (start, end) = (self.now, self.now.saturating_add(it.wall));
        let adm = self.adm(it.j);
        let need = it.req.tasks as u64;
        let task = it.req.task;
        let cluster = &self.view.cluster;
        let suitable = |n: NodeIdx| self.suitable(i, n);
        // Tasks that fit over the window, counted up to `need`: only nodes
        // with something free now can hold any (a task asks for something).
        let count = |admits: &dyn Admits| -> u64 {
            let mut sum = 0u64;
            if task.is_zero() {
                for n in (0..cluster.nodes.len() as NodeIdx).filter(|&n| suitable(n)) {
                    sum += base.tasks_fit(n, start, end, &task, admits) as u64;
                }
                return sum;
            }
            for &n in self.base_ix.open(&task) {
                if !task.fits_in(&self.base_ix.free_now(n)) || !suitable(n) {
                    continue;
                }
                sum += base.tasks_fit(n, start, end, &task, admits) as u64;
                if sum >= need {
                    break;
                }
            }
            sum
        };
        if !self.base_ix.may_fit(it.req.tasks, &task, end) || count(&AdmitAll) < need {
            return Reason::Resources;
        }
        if count(&adm) < need {
            // Name a reservation on a suitable node that the job may not use.
            for n in (0..cluster.nodes.len() as NodeIdx).filter(|&n| suitable(n)) {
                for (r, _) in base.claims_at(n, start) {
                    if adm.admits(r, start, end).is_none() {
                        return Reason::Reservation {
                            id: self.view.table[r as usize].id.clone(),
                        };
                    }
                }
            }
            return Reason::Resources;
        }
        Reason::Priority
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
