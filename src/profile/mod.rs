//! The availability profile: per node, resources as a step function of time.
//!
//! Maui views the cluster as node × time space (seed 5.2.1.3): running jobs
//! hold resources until start + walltime, reservations claim resources over
//! their timeframe, and every scheduling question ("can this job start now?",
//! "when is the earliest start?", "how long is the hole after this job?") is
//! a query on that space. This module answers them without knowing about
//! jobs' credentials or reservations' ACLs: callers pass the job's
//! *admission* ([`Admits`]: which reservations admit it, with which affinity)
//! and the profile does the arithmetic.
//!
//! # Model
//!
//! Each node has a capacity and a sorted list of *segments* (a segment holds
//! from its start to the next segment's start; the last one holds forever;
//! the first holds from the profile's origin, whatever earlier start it
//! keeps until its line next changes).
//! Within a segment the capacity is split into *cells*, each keyed by the set
//! of reservations that claim it (its *stack*):
//!
//! - the unclaimed cell (empty stack) is usable by every job;
//! - a cell claimed by reservation `r` is usable only by jobs `r` admits;
//! - a cell claimed by `r` and `s` (stacked) only by jobs both admit: access
//!   is the AND across stacked reservations (seed 7.1.5.2.3, example 3).
//!
//! A new claim goes side by side onto unclaimed capacity before it stacks
//! onto claimed capacity, and only stacks when its [`ClaimMode`] allows it
//! (ACCESS=SHARED or a non-floating reservation). Resources a running job
//! holds are never taken by a claim that does not admit that job: a
//! non-floating reservation placed over a busy node gets the job's share when
//! the job ends. A job the claim admits counts against the claim first.
//!
//! Jobs consume from the cells they may use, by affinity: cells whose
//! reservations give positive affinity first, then unclaimed capacity, then
//! neutral, then negative ("last resort") cells. Each cell records which job
//! uses how much of it, so claims and jobs can be removed again.
//!
//! A task is atomic: all its resources come from one node; within a node a
//! job may use any mix of the cells it is admitted to (seed 7.1.5.1.3: "a job
//! can use the resources covered by an accessible reservation in whatever
//! way it needs").
//!
//! # Complexity
//!
//! With `s` segments on a node (at most two per job placement and claim on
//! it), `c` cells per segment (1 + distinct stacks there), `k` reservations
//! per stack (admission calls, usually 1) and `j` job entries per cell:
//!
//! | operation | cost |
//! |-----------|------|
//! | [`Profile::free`], [`Profile::tasks_fit`] on one node | `O(log s + w·c·k)`, `w` = segments in the window |
//! | [`Profile::gap_after`], [`Profile::next_change`] | `O(log s + w·c·k)` / `O(log s)` |
//! | [`Profile::earliest_start`] over `n` filtered nodes | `O(Σ s·c·k + E log E)`, `E ≤ 3·Σ s` events, plus an exact check `O(n·w·c·k)` of the start found; nodes with TIMELIMIT reservations evaluate each of their `e` candidate starts exactly, `O(e·w·c·k)` |
//! | [`Profile::add_job`], [`Profile::add_claim`] | `O(s + w·c·(j + k))` (split, update, coalesce) |
//! | [`Profile::remove_job`], [`Profile::remove_claim`] | `O(s·c·j)` |
//! | memory | `O(Σ s·c + job entries)` |
//!
//! No query costs `O(nodes × reservations)`: a reservation only shows up in
//! the segments of the nodes it claims. Sized for 10,000 nodes and tens of
//! thousands of reservations, where `s` and `c` stay small per node.

use crate::config::Affinity;
use crate::model::{Cluster, NodeIdx, Resources, Secs, Time};
use smallvec::SmallVec;
use std::collections::BTreeMap;

mod lines;
mod maui;
#[cfg(test)]
mod tests;

/// Index of a reservation, assigned by the caller (its position in the
/// iteration's reservation table).
pub type ResIdx = u32;

/// Index of a job, assigned by the caller.
pub type JobIdx = u32;

/// End time of something that never ends (PERIOD=INFINITY reservations).
pub const INFINITY: Time = Time::MAX;

/// What remains of a running job that is already past its walltime.
///
/// The RM has not killed it yet, so it still holds its resources; we assume
/// it ends within one default RM poll interval (60 s) rather than treating
/// it as gone (which would double-book its nodes) or as running forever
/// (which would block every reservation behind it).
pub const OVERRUN_REMAINDER: Secs = 60;

/// The window a running job holds its node for: from its start until
/// start + walltime, or until `now` + [`OVERRUN_REMAINDER`] when it is past
/// its walltime.
pub fn running_window(start: Time, walltime: Secs, now: Time) -> (Time, Time) {
    let end = start.saturating_add(walltime.max(0));
    let end = if end <= now {
        now.saturating_add(OVERRUN_REMAINDER)
    } else {
        end
    };
    (start, end)
}

/// Which reservations admit one job, and with which affinity.
///
/// Computed by the caller from the reservations' ACLs (see
/// `reservation::acl`); the window is the job's `[start, end)`, since a
/// reservation's TIMELIMIT depends on how much the job overlaps it.
pub trait Admits {
    /// `Some(affinity)` when reservation `res` admits the job running over
    /// `[start, end)`, `None` when it does not.
    fn admits(&self, res: ResIdx, start: Time, end: Time) -> Option<Affinity>;

    /// Job start times (for a job lasting `duration`) at which the answer
    /// for `res` may change: where a TIMELIMIT overlap crosses its limit.
    /// Empty (the default) when admission does not depend on the window.
    fn critical_starts(&self, res: ResIdx, duration: Secs) -> Vec<Time> {
        let _ = (res, duration);
        Vec::new()
    }
}

impl<F> Admits for F
where
    F: Fn(ResIdx, Time, Time) -> Option<Affinity>,
{
    fn admits(&self, res: ResIdx, start: Time, end: Time) -> Option<Affinity> {
        self(res, start, end)
    }
}

/// Admission of a job no reservation admits: it sees unclaimed resources only.
#[derive(Clone, Copy, Debug, Default)]
pub struct Unreserved;

impl Admits for Unreserved {
    fn admits(&self, _: ResIdx, _: Time, _: Time) -> Option<Affinity> {
        None
    }
}

/// Admission as an explicit set of reservations (window-independent).
#[cfg(test)]
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AdmitSet(pub BTreeMap<ResIdx, Affinity>);

#[cfg(test)]
impl Admits for AdmitSet {
    fn admits(&self, res: ResIdx, _: Time, _: Time) -> Option<Affinity> {
        self.0.get(&res).copied()
    }
}

/// Whether a new claim may stack onto capacity other reservations claim.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClaimMode {
    /// Only unclaimed capacity (ACCESS=DEDICATED floating reservations).
    SideBySide,
    /// Unclaimed capacity first, then on top of other claims
    /// (ACCESS=SHARED, or non-floating reservations that take their hosts
    /// "no matter what").
    MayStack,
}

/// A job's placement on one node.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Occupant {
    /// The job.
    pub job: JobIdx,
    /// Start of the placement.
    pub start: Time,
    /// End of the placement ([`INFINITY`] for none).
    pub end: Time,
    /// Resources of one task.
    pub task: Resources,
    /// Tasks on this node.
    pub tasks: u32,
}

impl Occupant {
    /// Resources of all its tasks on the node (saturating).
    pub fn total(&self) -> Resources {
        self.task.checked_mul(self.tasks).unwrap_or(Resources::MAX)
    }
}

/// A job shape to find room for in [`Profile::earliest_start`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FitRequest {
    /// Tasks wanted in total.
    pub tasks: u32,
    /// Resources of one (atomic) task.
    pub task: Resources,
    /// How long the job runs (its walltime).
    pub duration: Secs,
    /// Earliest start considered (now, or the job's release time).
    pub earliest: Time,
    /// A node counts only if at least this many tasks fit on it (TPN,
    /// `ppn`); 0 and 1 mean any.
    pub min_per_node: u32,
    /// At most this many tasks are counted per node.
    pub max_per_node: Option<u32>,
    /// Exactly this many nodes, each with at least one task, if requested.
    pub nodes: Option<u32>,
}

impl FitRequest {
    /// `tasks` tasks of `task` for `duration`, from `earliest`, no per-node rules.
    pub fn new(tasks: u32, task: Resources, duration: Secs, earliest: Time) -> FitRequest {
        FitRequest {
            tasks,
            task,
            duration,
            earliest,
            min_per_node: 0,
            max_per_node: None,
            nodes: None,
        }
    }

    /// Tasks a node contributes when `fit` tasks fit on it.
    fn contribution(&self, fit: u32) -> u32 {
        if fit < self.min_per_node.max(1) {
            return 0;
        }
        match self.max_per_node {
            Some(m) => fit.min(m),
            None => fit,
        }
    }
}

/// Where and when a request fits.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fit {
    /// The earliest start.
    pub start: Time,
    /// Every filtered node that can take tasks at that start, with how many
    /// (after the per-node rules), in node order. Together they hold at
    /// least the requested tasks; the node allocation policy chooses among them.
    pub nodes: Vec<(NodeIdx, u32)>,
}

/// A profile operation that could not be done.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ProfileError {
    /// The node index is outside the profile.
    #[error("node {0} is not in the profile")]
    NoSuchNode(NodeIdx),
    /// The job's tasks do not fit on the node over its window.
    #[error("job {job} does not fit on node {node} between {start} and {end}")]
    NoFit {
        /// Job.
        job: JobIdx,
        /// Node.
        node: NodeIdx,
        /// Window start.
        start: Time,
        /// Window end.
        end: Time,
    },
}

type StackId = u32;
const UNCLAIMED: StackId = 0;

/// Interned reservation sets (stacks); id 0 is the empty set.
#[derive(Clone, Debug, PartialEq)]
struct Stacks {
    sets: Vec<Vec<ResIdx>>,
    index: BTreeMap<Vec<ResIdx>, StackId>,
}

impl Default for Stacks {
    fn default() -> Self {
        Stacks {
            sets: vec![Vec::new()],
            index: BTreeMap::from([(Vec::new(), UNCLAIMED)]),
        }
    }
}

impl Stacks {
    fn get(&self, id: StackId) -> &[ResIdx] {
        &self.sets[id as usize]
    }

    fn intern(&mut self, set: Vec<ResIdx>) -> StackId {
        if let Some(&id) = self.index.get(&set) {
            return id;
        }
        let id = self.sets.len() as StackId;
        self.sets.push(set.clone());
        self.index.insert(set, id);
        id
    }

    fn contains(&self, id: StackId, r: ResIdx) -> bool {
        self.get(id).binary_search(&r).is_ok()
    }

    fn with(&mut self, id: StackId, r: ResIdx) -> StackId {
        let mut s = self.get(id).to_vec();
        match s.binary_search(&r) {
            Ok(_) => id,
            Err(i) => {
                s.insert(i, r);
                self.intern(s)
            }
        }
    }

    fn without(&mut self, id: StackId, r: ResIdx) -> StackId {
        let mut s = self.get(id).to_vec();
        match s.binary_search(&r) {
            Ok(i) => {
                s.remove(i);
                self.intern(s)
            }
            Err(_) => id,
        }
    }
}

/// Capacity claimed by one stack of reservations within a segment, and the
/// jobs using it.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Cell {
    stack: StackId,
    cap: Resources,
    used: Resources,
    /// Sorted by job, one entry per job.
    jobs: CellJobs,
}

/// A cell's jobs. (Kept inline, one or two, they made copying cheaper but
/// every other access dearer: more instructions on the HPC2N log.)
type CellJobs = Vec<(JobIdx, Resources)>;

/// A segment's cells: nearly always the unclaimed one alone, kept inline
/// so that copying a line (each iteration copies the lines it changes)
/// allocates one vector less per segment.
type Cells = SmallVec<[Cell; 1]>;

impl Cell {
    fn new(stack: StackId) -> Cell {
        Cell {
            stack,
            cap: Resources::ZERO,
            used: Resources::ZERO,
            jobs: CellJobs::new(),
        }
    }

    fn free(&self) -> Resources {
        self.cap.saturating_sub(&self.used)
    }

    fn add_job(&mut self, job: JobIdx, r: &Resources) {
        if r.is_zero() {
            return;
        }
        self.used = self.used.saturating_add(r);
        match self.jobs.binary_search_by_key(&job, |e| e.0) {
            Ok(i) => self.jobs[i].1 = self.jobs[i].1.saturating_add(r),
            Err(i) => self.jobs.insert(i, (job, *r)),
        }
    }

    fn sub_job(&mut self, job: JobIdx, r: &Resources) {
        if let Ok(i) = self.jobs.binary_search_by_key(&job, |e| e.0) {
            let left = self.jobs[i].1.saturating_sub(r);
            let taken = self.jobs[i].1.saturating_sub(&left);
            self.used = self.used.saturating_sub(&taken);
            if left.is_zero() {
                self.jobs.remove(i);
            } else {
                self.jobs[i].1 = left;
            }
        }
    }
}

/// The node's state from `start` until the next segment's start.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Seg {
    start: Time,
    /// Sorted by stack; `cells[0]` is always the unclaimed cell.
    cells: Cells,
}

impl Seg {
    fn cell_mut(&mut self, stack: StackId) -> &mut Cell {
        let i = match self.cells.binary_search_by_key(&stack, |c| c.stack) {
            Ok(i) => i,
            Err(i) => {
                self.cells.insert(i, Cell::new(stack));
                i
            }
        };
        &mut self.cells[i]
    }

    /// A copy whose cells have room for one more job each (copies are made
    /// to be changed: a plain clone has no spare capacity, and the first
    /// job added would move each vector).
    fn clone_with_room(&self) -> Seg {
        Seg {
            start: self.start,
            cells: self
                .cells
                .iter()
                .map(|c| {
                    // An empty list stays unallocated (the first push
                    // allocates anyway).
                    let mut jobs = match c.jobs.len() {
                        0 => CellJobs::new(),
                        n => CellJobs::with_capacity(n + 1),
                    };
                    jobs.extend_from_slice(&c.jobs);
                    Cell {
                        stack: c.stack,
                        cap: c.cap,
                        used: c.used,
                        jobs,
                    }
                })
                .collect(),
        }
    }

    /// Drops empty claimed cells so equal states compare equal.
    fn normalize(&mut self) {
        self.cells
            .retain(|c| c.stack == UNCLAIMED || !c.cap.is_zero() || !c.jobs.is_empty());
    }
}

/// One node's timeline.
#[derive(Clone, Debug, Default, PartialEq)]
struct Line {
    cap: Resources,
    segs: Vec<Seg>,
    jobs: Vec<Occupant>,
}

/// Order in which a job consumes the cells it may use.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Rank {
    Positive,
    Open,
    Neutral,
    Negative,
}

/// Buffers reused across nodes by [`Profile::earliest_start`].
#[derive(Default)]
struct Scratch {
    seen: Vec<ResIdx>,
    critical: Vec<Time>,
    g: Vec<u32>,
    cands: Vec<Time>,
    dq: std::collections::VecDeque<usize>,
}

/// What each node offers jobs of a task shape and duration, kept between
/// calls of [`Profile::earliest_start_cached`]. Only ever a shortcut: its
/// answers are those of [`Profile::earliest_start`].
#[derive(Default)]
pub struct FitCache {
    /// By (task, duration), the most recently used last; per node.
    entries: Vec<(FitShape, Vec<Option<NodeFits>>)>,
    reuse: Reuse,
}

/// Node offers reused and not found (or no longer holding), halved now and
/// then: where offers are hardly ever reused (a reservation for every job,
/// each changing the lines the next one searches), making and keeping
/// them costs more than it saves.
#[derive(Default)]
struct Reuse {
    reused: u32,
    missed: u32,
}

impl Reuse {
    /// Counts a reuse (`hit`) or a miss; whether to keep the offer made
    /// on this miss: while offers are reused once for every eight missed,
    /// and on one miss in sixteen besides, so that reuse can show again.
    fn note(&mut self, hit: bool) -> bool {
        if self.missed >= 1 << 16 {
            self.missed /= 2;
            self.reused /= 2;
        }
        if hit {
            self.reused += 1;
            return true;
        }
        self.missed += 1;
        self.missed < 1024 || self.reused.saturating_mul(8) >= self.missed || self.missed % 16 == 0
    }
}

/// A task and a duration: what a node's offer depends on besides its line.
type FitShape = (Resources, Secs);

/// Shapes a [`FitCache`] keeps (the engine reserves for a few jobs per
/// iteration, RESERVATIONDEPTH per stack).
const FIT_CACHE_SHAPES: usize = 16;

/// Segments from the earliest start on beyond which a node's offer is not
/// kept and its events are made only up to the search's horizon.
const LONG_LINE: usize = 16;

/// The search's first horizon after the earliest start (at least the
/// job's duration); each further one is four times as far.
const HORIZON: Secs = 3600;

impl FitCache {
    /// The per-node entries of a shape, `nodes` long.
    fn entry(
        &mut self,
        task: Resources,
        d: Secs,
        nodes: usize,
    ) -> (&mut Vec<Option<NodeFits>>, &mut Reuse) {
        let key = (task, d);
        match self.entries.iter().position(|e| e.0 == key) {
            Some(i) => {
                let e = self.entries.remove(i);
                self.entries.push(e);
            }
            None => {
                if self.entries.len() >= FIT_CACHE_SHAPES {
                    self.entries.remove(0);
                }
                self.entries.push((key, Vec::new()));
            }
        }
        let v = &mut self.entries.last_mut().expect("pushed above").1;
        v.resize_with(nodes, || None);
        (v, &mut self.reuse)
    }
}

/// One node's offer for a task shape and duration on a line without
/// claims: `steps`, `(t, tasks fitting for a start at t or later, until
/// the next step)` from `from`, computed on the segments `shape`
/// (start, free resources) from the one holding `from`.
struct NodeFits {
    from: Time,
    shape: Vec<(Time, Resources)>,
    steps: Vec<(Time, u32)>,
}

impl NodeFits {
    /// The offer of segments `segs` (from the one holding `from`, none
    /// with a claim).
    fn new(segs: &[Seg], task: &Resources, from: Time, d: Secs, scratch: &mut Scratch) -> NodeFits {
        let shape: Vec<(Time, Resources)> =
            segs.iter().map(|s| (s.start, s.cells[0].free())).collect();
        let g = &mut scratch.g;
        g.clear();
        g.extend(shape.iter().map(|(_, f)| task.times_fits_in(f)));
        start_candidates(segs, from, d, &[], &mut scratch.cands);
        let mut steps: Vec<(Time, u32)> = Vec::new();
        window_minima(segs, from, d, g, &scratch.cands, &mut scratch.dq, |t, f| {
            if steps.last().is_none_or(|l| l.1 != f) {
                steps.push((t, f));
            }
        });
        NodeFits { from, shape, steps }
    }

    /// Whether the offer holds for segments `segs` from the one holding
    /// `from` (the same time or later): no claim, and the same segments
    /// with the same free resources from there on. What a start at or
    /// after `from` can get depends on nothing else (the first segment's
    /// own start lies at or before `from` in both).
    fn holds(&self, segs: &[Seg], from: Time) -> bool {
        if from < self.from {
            return false;
        }
        let k = self.shape.partition_point(|&(t, _)| t <= from).max(1) - 1;
        let shape = &self.shape[k..];
        shape.len() == segs.len()
            && shape.iter().zip(segs).enumerate().all(|(j, (&(t, f), s))| {
                s.cells.len() == 1 && s.cells[0].free() == f && (j == 0 || s.start == t)
            })
    }

    /// Appends the node's events for `req` from `from` on, as
    /// [`Profile::node_events`] would.
    fn events(&self, req: &FitRequest, from: Time, pos: u32, out: &mut Vec<(Time, u32, u32)>) {
        let at = self.steps.partition_point(|&(t, _)| t <= from).max(1) - 1;
        let mut last = req.contribution(self.steps[at].1);
        out.push((from, pos, last));
        for &(t, f) in &self.steps[at + 1..] {
            let c = req.contribution(f);
            if c != last {
                out.push((t, pos, c));
                last = c;
            }
        }
    }
}

/// The node × time availability profile (equal: the same placements and
/// claims, node by node, segment by segment).
#[derive(Clone, Debug)]
pub struct Profile {
    origin: Time,
    /// Shared between copies and copied on first change, in chunks
    /// ([`lines::Lines`]): the iteration keeps the profile before its
    /// passes beside the one they change, and the passes touch few nodes.
    lines: lines::Lines<Line>,
    /// Per node, the start of its second segment (`INFINITY` for none):
    /// the first time what is there changes. Moving the origin touches
    /// only the lines it passes a boundary of: a line's first segment
    /// starts at or before the origin, and is taken to start at it (its
    /// own start is brought up to the origin when the line is changed).
    boundaries: Vec<Time>,
    stacks: Stacks,
    /// What the jobs use on all nodes together, over time: made from the
    /// lines when a search first needs it, then kept up to date change by
    /// change (a profile nobody searches never pays for it).
    load: std::sync::OnceLock<Load>,
    /// Nodes of a reservation that ended since the last iteration (sorted):
    /// see [`Profile::set_just_ended`].
    just_ended: Vec<NodeIdx>,
}

impl PartialEq for Profile {
    /// The load is derived from the lines, made or not; a first segment
    /// starts at the origin, whatever start it keeps.
    fn eq(&self, other: &Profile) -> bool {
        let same_line =
            |(a, b): (&std::sync::Arc<Line>, &std::sync::Arc<Line>)| {
                std::sync::Arc::ptr_eq(a, b)
                    || (a.cap == b.cap
                        && a.jobs == b.jobs
                        && a.segs.len() == b.segs.len()
                        && a.segs.iter().zip(&b.segs).enumerate().all(|(k, (x, y))| {
                            (k == 0 || x.start == y.start) && x.cells == y.cells
                        }))
            };
        self.origin == other.origin
            && self.lines.len() == other.lines.len()
            && self.lines.iter().zip(other.lines.iter()).all(same_line)
            && self.stacks == other.stacks
    }
}

/// The processors and memory every node's jobs use together, as a step
/// function of time kept by its changes: `deltas[t]` is what the use
/// changes by at `t` (the use at `t` is the sum of the changes up to it),
/// none at zero, so equal profiles have equal loads. With the nodes' total
/// capacity it bounds the earliest start of any job from below: where the
/// whole cluster lacks a job's processors or memory, no set of nodes has
/// them ([`Profile::earliest_start`] skips to the first time that could fit).
#[derive(Clone, Debug, PartialEq, Eq)]
struct Load {
    origin: Time,
    cap_procs: i64,
    cap_mem: i64,
    deltas: BTreeMap<Time, (i64, i64)>,
}

impl Load {
    fn new(origin: Time, lines: &lines::Lines<Line>) -> Load {
        Load {
            origin,
            cap_procs: lines.iter().map(|l| l.cap.procs as i64).sum(),
            cap_mem: lines.iter().map(|l| l.cap.mem as i64).sum(),
            deltas: BTreeMap::new(),
        }
    }

    fn bump(&mut self, t: Time, p: i64, m: i64) {
        let e = self.deltas.entry(t).or_insert((0, 0));
        e.0 += p;
        e.1 += m;
        if *e == (0, 0) {
            self.deltas.remove(&t);
        }
    }

    /// Adds (or, `add` false, takes away) a use of `r` over `[start, end)`.
    fn change(&mut self, start: Time, end: Time, r: &Resources, add: bool) {
        let start = start.max(self.origin);
        if end <= start || (r.procs == 0 && r.mem == 0) {
            return;
        }
        let sign = if add { 1 } else { -1 };
        let (p, m) = (sign * r.procs as i64, sign * r.mem as i64);
        self.bump(start, p, m);
        if end != INFINITY {
            self.bump(end, -p, -m);
        }
    }

    /// The changes of one placement or removal, segment by segment in time
    /// order: `(start, end, amount)`, equal neighbours merged first.
    fn change_runs(&mut self, runs: impl Iterator<Item = (Time, Time, Resources)>, add: bool) {
        let mut run: Option<(Time, Time, Resources)> = None;
        for (s, e, r) in runs {
            match &mut run {
                Some(cur) if cur.1 == s && cur.2.procs == r.procs && cur.2.mem == r.mem => {
                    cur.1 = e
                }
                _ => {
                    if let Some((a, b, x)) = run.take() {
                        self.change(a, b, &x, add);
                    }
                    run = Some((s, e, r));
                }
            }
        }
        if let Some((a, b, x)) = run {
            self.change(a, b, &x, add);
        }
    }

    /// Folds what lies before `t` into `t` (a later origin).
    fn advance(&mut self, t: Time) {
        if t <= self.origin {
            return;
        }
        self.origin = t;
        let later = self.deltas.split_off(&t.saturating_add(1));
        let (p, m) = self
            .deltas
            .values()
            .fold((0, 0), |(p, m), &(dp, dm)| (p + dp, m + dm));
        self.deltas = later;
        self.bump(t, p, m);
    }

    /// The first time from `from` on at which the whole cluster has `procs`
    /// processors and `mem` memory free for `d`; `None` when it never has.
    fn first_room(&self, from: Time, d: Secs, procs: u64, mem: u64) -> Option<Time> {
        let lp = self.cap_procs.checked_sub(i64::try_from(procs).ok()?)?;
        let lm = self.cap_mem.checked_sub(i64::try_from(mem).ok()?)?;
        if lp < 0 || lm < 0 {
            return None;
        }
        let mut it = self.deltas.iter().peekable();
        let (mut p, mut m) = (0i64, 0i64);
        while let Some((_, &(dp, dm))) = it.next_if(|(&k, _)| k <= from) {
            p += dp;
            m += dm;
        }
        // The step from `from` (or from each change after it) until the
        // next change: one the job cannot overlap moves its start past it.
        let mut t = from;
        loop {
            if p > lp || m > lm {
                t = *it.peek()?.0;
            }
            match it.next() {
                Some((&k, &(dp, dm))) if k < t.saturating_add(d) => {
                    p += dp;
                    m += dm;
                }
                _ => return Some(t),
            }
        }
    }
}

/// Dimension-wise minimum (`Resources` is `Ord`, so `.min` would pick the
/// lexicographically smaller vector instead).
fn dmin(a: &Resources, b: &Resources) -> Resources {
    Resources::min_each(a, b)
}

/// The starts from `from` on at which a window `[t, t + d)` changes the
/// segments it covers (a segment leaves at its start; one enters when
/// `t + d` passes its start), plus `critical`, in order and distinct,
/// into `out`. `segs[0]` is the segment holding `from`.
fn start_candidates(segs: &[Seg], from: Time, d: Secs, critical: &[Time], out: &mut Vec<Time>) {
    out.clear();
    out.push(from);
    // The segments' starts (all after `from`) and the times a window
    // reaches them are each in order: merged, not sorted.
    let starts = segs.get(1..).unwrap_or(&[]).iter().map(|s| s.start);
    let mut enters = starts
        .clone()
        .map(|t| t.saturating_sub(d).saturating_add(1))
        .filter(|&t| t > from)
        .peekable();
    let mut starts = starts.peekable();
    let mut push = |t: Time| {
        if out.last() != Some(&t) {
            out.push(t);
        }
    };
    loop {
        let t = match (starts.peek(), enters.peek()) {
            (Some(&a), Some(&b)) if b < a => enters.next(),
            (Some(_), _) => starts.next(),
            (None, Some(_)) => enters.next(),
            (None, None) => break,
        };
        push(t.expect("peeked"));
    }
    if !critical.is_empty() {
        out.extend(critical.iter().copied());
        out.sort_unstable();
        out.dedup();
    }
}

/// For each candidate start `t` (in order, from `from`), the minimum of
/// `g` (a value per segment) over the segments `[t, t + d)` covers, by a
/// sliding-window minimum: `emit(t, minimum)`.
fn window_minima(
    segs: &[Seg],
    from: Time,
    d: Secs,
    g: &[u32],
    cands: &[Time],
    dq: &mut std::collections::VecDeque<usize>,
    mut emit: impl FnMut(Time, u32),
) {
    let st = |i: usize| if i == 0 { from } else { segs[i].start };
    dq.clear();
    let (mut lo, mut hi) = (0usize, 0usize);
    for &t in cands {
        let tend = t.saturating_add(d);
        while hi < segs.len() && st(hi) < tend {
            while dq.back().is_some_and(|&b| g[b] >= g[hi]) {
                dq.pop_back();
            }
            dq.push_back(hi);
            hi += 1;
        }
        while lo + 1 < segs.len() && segs[lo + 1].start <= t {
            lo += 1;
        }
        while dq.front().is_some_and(|&f| f < lo) {
            dq.pop_front();
        }
        emit(t, dq.front().map(|&i| g[i]).unwrap_or(0));
    }
}

fn overlaps(a0: Time, a1: Time, b0: Time, b1: Time) -> bool {
    a0 < b1 && b0 < a1
}

impl Profile {
    /// An empty profile from `origin` (now) with one node per capacity, in order.
    pub fn new(origin: Time, capacities: impl IntoIterator<Item = Resources>) -> Profile {
        let lines = lines::Lines::new(capacities.into_iter().map(|cap| Line {
            cap,
            segs: vec![Seg {
                start: origin,
                cells: smallvec::smallvec![Cell {
                    stack: UNCLAIMED,
                    cap,
                    used: Resources::ZERO,
                    jobs: CellJobs::new(),
                }],
            }],
            jobs: Vec::new(),
        }));
        Profile {
            origin,
            boundaries: vec![INFINITY; lines.len()],
            lines,
            stacks: Stacks::default(),
            load: std::sync::OnceLock::new(),
            just_ended: Vec::new(),
        }
    }

    /// The load computed from the lines (what [`Profile::load`] keeps up
    /// to date change by change), for checks.
    fn load_from_lines(&self) -> Load {
        let mut l = Load::new(self.origin, &self.lines);
        for line in self.lines.iter() {
            for (k, seg) in line.segs.iter().enumerate() {
                let end = line.segs.get(k + 1).map_or(INFINITY, |s| s.start);
                let used = seg
                    .cells
                    .iter()
                    .fold(Resources::ZERO, |a, c| a.saturating_add(&c.used));
                l.change(seg.start, end, &used, true);
            }
        }
        l
    }

    /// A lower bound of the earliest start from `from` of `tasks` tasks of
    /// `task` for `d` (see [`Load`]); `None` when they never fit.
    fn load_bound(&self, from: Time, d: Secs, tasks: u32, task: &Resources) -> Option<Time> {
        let load = self.load.get_or_init(|| self.load_from_lines());
        debug_assert_eq!(load, &self.load_from_lines());
        load.first_room(
            from,
            d,
            (task.procs as u64).saturating_mul(tasks as u64),
            task.mem.saturating_mul(tasks as u64),
        )
    }

    /// An empty profile of the cluster's nodes (configured resources, every
    /// node whatever its state: callers filter unusable nodes for jobs, and
    /// non-floating reservations claim nodes whatever their state).
    pub fn from_cluster(cluster: &Cluster, origin: Time) -> Profile {
        Profile::new(origin, cluster.nodes.iter().map(|n| n.configured))
    }

    /// Marks the nodes of reservations that ended since the last
    /// iteration. Maui keeps such a reservation on its nodes' event lists
    /// for one more iteration, its start clamped to now and listed after
    /// the jobs started now, and its range search skips it
    /// (`MJobGetSNRange`, MJob.c): the jobs started now on those nodes are
    /// then not checked at now, and the next change counts as a taking
    /// ([`Profile::maui_range`]).
    pub fn set_just_ended(&mut self, mut nodes: Vec<NodeIdx>) {
        nodes.sort_unstable();
        nodes.dedup();
        self.just_ended = nodes;
    }

    /// The nodes [`Profile::set_just_ended`] marked.
    pub fn just_ended(&self) -> &[NodeIdx] {
        &self.just_ended
    }

    /// The profile's start (nothing before it is represented).
    pub fn origin(&self) -> Time {
        self.origin
    }

    /// Number of nodes.
    pub fn node_count(&self) -> usize {
        self.lines.len()
    }

    /// A node's capacity.
    pub fn capacity(&self, node: NodeIdx) -> Resources {
        self.lines
            .get(node as usize)
            .map(|l| l.cap)
            .unwrap_or_default()
    }

    /// Number of segments on a node (for sizing and benchmarks).
    pub fn segment_count(&self, node: NodeIdx) -> usize {
        self.lines
            .get(node as usize)
            .map(|l| l.segs.len())
            .unwrap_or(0)
    }

    fn line(&self, node: NodeIdx) -> Option<&Line> {
        self.lines.get(node as usize).map(|l| &**l)
    }

    /// A node's line taken out for changing (copied first if shared); put
    /// it back with [`Profile::put_line`].
    /// The nodes whose line is not the one `other` holds: every line
    /// changed since this profile was cloned from `other` (or `other` from
    /// it), and maybe some changed back.
    pub(crate) fn lines_apart(&self, other: &Profile) -> Vec<NodeIdx> {
        self.lines
            .apart(&other.lines)
            .into_iter()
            .map(|n| n as NodeIdx)
            .collect()
    }

    fn take_line(&mut self, node: NodeIdx) -> Line {
        let mut line = self.take_line_as_kept(node);
        // Changes split segments at the origin or later.
        if let Some(first) = line.segs.first_mut() {
            first.start = first.start.max(self.origin);
        }
        line
    }

    fn take_line_as_kept(&mut self, node: NodeIdx) -> Line {
        let slot = self.lines.slot_mut(node as usize);
        if let Some(l) = std::sync::Arc::get_mut(slot) {
            return std::mem::take(l);
        }
        // A copy with room to grow: the change is about to split a segment
        // and add a job (a plain clone has no spare capacity, and every
        // first insert would move the whole vector).
        let l: &Line = slot;
        let mut segs = Vec::with_capacity(l.segs.len() + 4);
        segs.extend(l.segs.iter().map(Seg::clone_with_room));
        let mut jobs = Vec::with_capacity(l.jobs.len() + 2);
        jobs.extend(l.jobs.iter().cloned());
        Line {
            cap: l.cap,
            segs,
            jobs,
        }
    }

    fn put_line(&mut self, node: NodeIdx, line: Line) {
        self.boundaries[node as usize] = Self::boundary(&line);
        let slot = self.lines.slot_mut(node as usize);
        match std::sync::Arc::get_mut(slot) {
            Some(l) => *l = line,
            None => *slot = std::sync::Arc::new(line),
        }
    }

    /// When a line's second segment starts (see `boundaries`).
    fn boundary(line: &Line) -> Time {
        line.segs.get(1).map_or(INFINITY, |s| s.start)
    }

    /// Index of the segment holding time `t` (clamped to the origin).
    fn seg_at(line: &Line, t: Time) -> usize {
        line.segs
            .partition_point(|s| s.start <= t)
            .saturating_sub(1)
    }

    /// Segment indexes intersecting `[start, end)`.
    fn seg_range(line: &Line, start: Time, end: Time) -> std::ops::Range<usize> {
        let lo = Self::seg_at(line, start);
        let hi = line.segs.partition_point(|s| s.start < end).max(lo + 1);
        lo..hi
    }

    /// Rank of a stack for the job, `None` when the job may not use it.
    fn rank<A: Admits + ?Sized>(
        &self,
        stack: StackId,
        adm: &A,
        start: Time,
        end: Time,
    ) -> Option<Rank> {
        if stack == UNCLAIMED {
            return Some(Rank::Open);
        }
        let mut neg = false;
        let mut neutral = false;
        for &r in self.stacks.get(stack) {
            match adm.admits(r, start, end)? {
                Affinity::Negative => neg = true,
                Affinity::Neutral => neutral = true,
                Affinity::Positive => {}
            }
        }
        Some(if neg {
            Rank::Negative
        } else if neutral {
            Rank::Neutral
        } else {
            Rank::Positive
        })
    }

    /// Free resources the job may use in one segment.
    fn seg_free<A: Admits + ?Sized>(
        &self,
        seg: &Seg,
        adm: &A,
        start: Time,
        end: Time,
    ) -> Resources {
        seg.cells
            .iter()
            .filter(|c| self.rank(c.stack, adm, start, end).is_some())
            .fold(Resources::ZERO, |acc, c| acc.saturating_add(&c.free()))
    }

    /// Free resources a job admitted as `adm` may use on `node` throughout
    /// `[start, end)` (dimension-wise minimum over the window).
    pub fn free<A: Admits + ?Sized>(
        &self,
        node: NodeIdx,
        start: Time,
        end: Time,
        adm: &A,
    ) -> Resources {
        let Some(line) = self.line(node) else {
            return Resources::ZERO;
        };
        let start = start.max(self.origin);
        let end = end.max(start.saturating_add(1));
        let mut out: Option<Resources> = None;
        for i in Self::seg_range(line, start, end) {
            let f = self.seg_free(&line.segs[i], adm, start, end);
            out = Some(match out {
                Some(o) => dmin(&o, &f),
                None => f,
            });
        }
        out.unwrap_or_default()
    }

    /// How many whole tasks of `task` the job may place on `node` over `[start, end)`.
    pub fn tasks_fit<A: Admits + ?Sized>(
        &self,
        node: NodeIdx,
        start: Time,
        end: Time,
        task: &Resources,
        adm: &A,
    ) -> u32 {
        task.times_fits_in(&self.free(node, start, end, adm))
    }

    /// What a job admitted as `adm` may use on `node` at `from` and at each
    /// later segment boundary, in time order: `(from, free)`, then
    /// `(boundary, free)` — what [`Profile::free`] gives for the instant
    /// `[t, t + 1)` at each of those times, found by walking the node's
    /// segments once. Admission must not depend on the window (the
    /// instant's bounds are not passed on).
    pub fn free_steps<'p, A: Admits + ?Sized>(
        &'p self,
        node: NodeIdx,
        from: Time,
        adm: &'p A,
    ) -> impl Iterator<Item = (Time, Resources)> + 'p {
        let from = from.max(self.origin);
        let segs: &[Seg] = self
            .line(node)
            .map_or(&[][..], |l| &l.segs[Self::seg_at(l, from)..]);
        segs.iter().enumerate().map(move |(k, seg)| {
            let t = if k == 0 { from } else { seg.start };
            (t, self.seg_free(seg, adm, t, t.saturating_add(1)))
        })
    }

    /// Maui's range search (`MJobGetSNRange`, MJob.c) counts resources as
    /// taken on `node` at `t` for a job admitted as `adm` (its
    /// `ResourcesRemoved`), and then splits a range on a drop only: when a
    /// placement starts then, a reservation the job may not use begins, one
    /// it may use ends, or a reservation's share of the node changes while
    /// it goes on. Maui cuts a reservation into an end and a start wherever
    /// the jobs inside it start or end (`MNodeBuildRE`, MRes.c), and one
    /// of the two is of that kind whether the job may use it or not.
    pub fn takes_at<A: Admits + ?Sized>(&self, node: NodeIdx, t: Time, adm: &A) -> bool {
        let Some(line) = self.line(node) else {
            return false;
        };
        if line.jobs.iter().any(|o| o.start == t) {
            return true;
        }
        let (i, before) = (Self::seg_at(line, t), Self::seg_at(line, t - 1));
        if i == before {
            return false;
        }
        // Each reservation's claim and use on either side of `t`.
        let shares = |seg: &Seg| -> Vec<(ResIdx, Resources, Resources)> {
            let mut v: Vec<(ResIdx, Resources, Resources)> = Vec::new();
            for c in seg.cells.iter().filter(|c| c.stack != UNCLAIMED) {
                for &r in self.stacks.get(c.stack) {
                    match v.iter_mut().find(|e| e.0 == r) {
                        Some(e) => {
                            e.1 = e.1.saturating_add(&c.cap);
                            e.2 = e.2.saturating_add(&c.used);
                        }
                        None => v.push((r, c.cap, c.used)),
                    }
                }
            }
            v.retain(|e| !e.1.is_zero() || !e.2.is_zero());
            v
        };
        let (after, prior) = (shares(&line.segs[i]), shares(&line.segs[before]));
        let admitted = |r: ResIdx| adm.admits(r, t, t.saturating_add(1)).is_some();
        after
            .iter()
            .any(|a| match prior.iter().find(|b| b.0 == a.0) {
                None => !admitted(a.0),
                Some(b) => a.1 != b.1 || a.2 != b.2,
            })
            || prior
                .iter()
                .any(|b| admitted(b.0) && !after.iter().any(|a| a.0 == b.0))
    }

    /// The first segment boundary after `after` on `node`: the next time a
    /// claim or job usage changes there. `None` if nothing changes any more.
    pub fn next_change(&self, node: NodeIdx, after: Time) -> Option<Time> {
        let line = self.line(node)?;
        let i = line.segs.partition_point(|s| s.start <= after);
        line.segs.get(i).map(|s| s.start)
    }

    /// How long after `end` a footprint of `need` would still fit on `node`
    /// for the job (its hole's trailing slack, for LASTAVAILABLE's best fit in
    /// time): `Some(0)` when something it cannot use starts right at `end`,
    /// `None` when the room never closes. Admission is evaluated for a job
    /// running over `[start, end)`.
    pub fn gap_after<A: Admits + ?Sized>(
        &self,
        node: NodeIdx,
        start: Time,
        end: Time,
        need: &Resources,
        adm: &A,
    ) -> Option<Secs> {
        let line = self.line(node)?;
        let end = end.max(self.origin);
        for i in Self::seg_at(line, end)..line.segs.len() {
            let seg = &line.segs[i];
            if !need.fits_in(&self.seg_free(seg, adm, start, end)) {
                return Some(seg.start.max(end) - end);
            }
        }
        None
    }

    /// When `node` frees up for a job that would run over `[start, end)`:
    /// the last segment boundary in `(from, start]` at which what the job
    /// may use there grows in processors or memory, else `from` (free all
    /// along). For RESERVATIONNODEPOLICY LATESTFREED.
    pub fn freed_at<A: Admits + ?Sized>(
        &self,
        node: NodeIdx,
        from: Time,
        (start, end): (Time, Time),
        adm: &A,
    ) -> Time {
        let Some(line) = self.line(node) else {
            return from;
        };
        let from = from.max(self.origin);
        let (mut last, mut prev) = (from, None::<Resources>);
        for seg in &line.segs[Self::seg_at(line, from)..] {
            let t = seg.start.max(from);
            if t > start {
                break;
            }
            let f = self.seg_free(seg, adm, start, end);
            if prev.is_some_and(|p| f.procs > p.procs || f.mem > p.mem) {
                last = t;
            }
            prev = Some(f);
        }
        last
    }

    /// The jobs placed on `node` whose placement overlaps `[start, end)`, in
    /// placement order (for SINGLEJOB, SINGLEUSER, SINGLETASK and JOBCOUNT).
    pub fn occupants(&self, node: NodeIdx, start: Time, end: Time) -> Vec<&Occupant> {
        match self.line(node) {
            Some(l) => l
                .jobs
                .iter()
                .filter(|o| overlaps(o.start, o.end, start, end))
                .collect(),
            None => Vec::new(),
        }
    }

    /// How many placements on `node` overlap `[start, end)` (the length of
    /// [`Profile::occupants`], without collecting them).
    pub fn occupant_count(&self, node: NodeIdx, start: Time, end: Time) -> usize {
        self.line(node).map_or(0, |l| {
            l.jobs
                .iter()
                .filter(|o| overlaps(o.start, o.end, start, end))
                .count()
        })
    }

    /// The nodes on which some reservation claims resources at some time,
    /// in node order: elsewhere no job has a reservation affinity.
    pub fn claimed_nodes(&self) -> Vec<NodeIdx> {
        // A claimed cell's stack is interned first: with none but the
        // unclaimed one (no reservation claimed anything in this profile, as
        // in most iterations of a cluster without standing reservations),
        // no line need be looked at.
        if self.stacks.sets.len() == 1 {
            return Vec::new();
        }
        (0..self.lines.len() as NodeIdx)
            .filter(|&n| {
                self.lines[n as usize]
                    .segs
                    .iter()
                    .any(|s| s.cells.iter().any(|c| c.stack != UNCLAIMED))
            })
            .collect()
    }

    /// Resources each reservation claims on `node` at time `t`, by reservation.
    /// Stacked capacity counts for every reservation of the stack.
    pub fn claims_at(&self, node: NodeIdx, t: Time) -> Vec<(ResIdx, Resources)> {
        let Some(line) = self.line(node) else {
            return Vec::new();
        };
        let mut m: BTreeMap<ResIdx, Resources> = BTreeMap::new();
        for c in &line.segs[Self::seg_at(line, t.max(self.origin))].cells {
            for &r in self.stacks.get(c.stack) {
                let e = m.entry(r).or_default();
                *e = e.saturating_add(&c.cap);
            }
        }
        m.into_iter().collect()
    }

    /// Resources `res` claims on `node` throughout `[start, end)` (minimum over the window).
    pub fn claimed(&self, node: NodeIdx, res: ResIdx, start: Time, end: Time) -> Resources {
        let Some(line) = self.line(node) else {
            return Resources::ZERO;
        };
        let start = start.max(self.origin);
        let end = end.max(start.saturating_add(1));
        Self::seg_range(line, start, end)
            .map(|i| {
                line.segs[i]
                    .cells
                    .iter()
                    .filter(|c| self.stacks.contains(c.stack, res))
                    .fold(Resources::ZERO, |a, c| a.saturating_add(&c.cap))
            })
            .reduce(|a, b| dmin(&a, &b))
            .unwrap_or_default()
    }

    /// The affinity the job has for the reserved resources it may use on
    /// `node` over `[start, end)`: `Negative` if any of them is a last
    /// resort, else `Positive` if any attracts it, else `Neutral`; `None`
    /// when it can reach no reserved resources there. For node allocation:
    /// positive nodes first, negative last.
    pub fn reserved_affinity<A: Admits + ?Sized>(
        &self,
        node: NodeIdx,
        start: Time,
        end: Time,
        adm: &A,
    ) -> Option<Affinity> {
        let line = self.line(node)?;
        let start = start.max(self.origin);
        let end = end.max(start.saturating_add(1));
        let mut best: Option<Rank> = None;
        for i in Self::seg_range(line, start, end) {
            for c in &line.segs[i].cells {
                if c.stack == UNCLAIMED || c.free().is_zero() {
                    continue;
                }
                if let Some(r) = self.rank(c.stack, adm, start, end) {
                    best = Some(match best {
                        None => r,
                        Some(b) if r == Rank::Negative || b == Rank::Negative => Rank::Negative,
                        Some(b) => b.min(r),
                    });
                }
            }
        }
        best.map(|r| match r {
            Rank::Positive => Affinity::Positive,
            Rank::Negative => Affinity::Negative,
            _ => Affinity::Neutral,
        })
    }

    /// What a claim by `res` in `mode` could get on `node` throughout
    /// `[start, end)`: unclaimed free capacity, plus what jobs `res` admits
    /// use there, plus (when it may stack) free capacity of other claims.
    pub fn claimable(
        &self,
        node: NodeIdx,
        res: ResIdx,
        start: Time,
        end: Time,
        mode: ClaimMode,
        admits_job: &dyn Fn(JobIdx) -> bool,
    ) -> Resources {
        let Some(line) = self.line(node) else {
            return Resources::ZERO;
        };
        let start = start.max(self.origin);
        let end = end.max(start.saturating_add(1));
        Self::seg_range(line, start, end)
            .map(|i| {
                let mut sum = Resources::ZERO;
                for c in &line.segs[i].cells {
                    if self.stacks.contains(c.stack, res) {
                        continue;
                    }
                    if c.stack != UNCLAIMED && mode == ClaimMode::SideBySide {
                        continue;
                    }
                    sum = sum.saturating_add(&c.free());
                    for (j, u) in &c.jobs {
                        if admits_job(*j) {
                            sum = sum.saturating_add(u);
                        }
                    }
                }
                sum
            })
            .reduce(|a, b| dmin(&a, &b))
            .unwrap_or_default()
    }

    /// The earliest start at or after `req.earliest` at which `req.tasks`
    /// tasks fit, for `req.duration`, across the nodes `filter` accepts, with
    /// the per-node rules of `req`. `None` if they never fit.
    ///
    /// Each filtered node's contribution is a step function of the start
    /// time that changes only where a segment leaves or enters the window
    /// `[t, t + duration)`, or where a reservation's admission changes
    /// (`Admits::critical_starts`); a sweep over those points, in time
    /// order, finds the first start where the sum suffices (exactly: the
    /// contributions are exact at each point); with a node count that start
    /// is then checked for the rule.
    pub fn earliest_start<A, F>(&self, req: &FitRequest, adm: &A, filter: F) -> Option<Fit>
    where
        A: Admits + ?Sized,
        F: FnMut(NodeIdx) -> bool,
    {
        self.search(req, adm, filter, None)
    }

    /// [`Profile::earliest_start`], with what each node offers a job of
    /// the request's task and duration kept in `cache` between calls. A
    /// node's offer is reused while its line holds no reservation's claim
    /// and, from the earliest start on, the same segments with the same
    /// free resources (its occupants may have changed); the answer is the
    /// same. The engine keeps the cache between iterations, where most
    /// lines keep their shape.
    pub fn earliest_start_cached<A, F>(
        &self,
        req: &FitRequest,
        adm: &A,
        filter: F,
        cache: &mut FitCache,
    ) -> Option<Fit>
    where
        A: Admits + ?Sized,
        F: FnMut(NodeIdx) -> bool,
    {
        self.search(req, adm, filter, Some(cache))
    }

    /// The search of both: the sweep over the filtered nodes' events from
    /// the first time the whole cluster could hold the job ([`Load`]). On
    /// a long timeline (a reservation for every job, conservative
    /// backfill) the events are made up to a horizon only, which grows
    /// until the sweep finds the start or every event is in: the start
    /// found before the horizon is exact, as each node's contribution at a
    /// time depends only on its events up to it.
    fn search<A, F>(
        &self,
        req: &FitRequest,
        adm: &A,
        mut filter: F,
        mut cache: Option<&mut FitCache>,
    ) -> Option<Fit>
    where
        A: Admits + ?Sized,
        F: FnMut(NodeIdx) -> bool,
    {
        if req.tasks == 0 {
            return Some(Fit {
                start: req.earliest.max(self.origin),
                nodes: Vec::new(),
            });
        }
        let d = req.duration.max(1);
        let nodes: Vec<NodeIdx> = (0..self.lines.len() as NodeIdx)
            .filter(|&n| filter(n))
            .collect();
        // Nothing starts before the whole cluster could hold the job. The
        // load is made for the first long timeline met, and kept from then
        // on: on short ones the search is cheap without it.
        let mut from = req.earliest.max(self.origin);
        let mut bounded = self.load.get().is_some();
        if bounded {
            from = self.load_bound(from, d, req.tasks, &req.task)?;
        }
        // No horizon until a long timeline is met: the nodes before it
        // give all their events, which the sweep reads up to the horizon.
        let mut until = INFINITY;
        let mut scratch = Scratch::default();
        'search: loop {
            // No exact check at `from` first: the sweep's first point is
            // `from`, where it makes the same check (the engine asks about
            // jobs that have just failed to start, so it rarely succeeds).
            let mut events: Vec<(Time, u32, u32)> = Vec::new();
            let mut cut = false;
            let mut slots = cache
                .as_deref_mut()
                .map(|c| c.entry(req.task, d, self.lines.len()));
            for (pos, &n) in nodes.iter().enumerate() {
                let pos = pos as u32;
                let line = &self.lines[n as usize];
                let segs = &line.segs[Self::seg_at(line, from)..];
                if segs.len() > LONG_LINE && until == INFINITY {
                    if !bounded {
                        bounded = true;
                        from = self.load_bound(from, d, req.tasks, &req.task)?;
                        until = from.saturating_add(d.max(HORIZON));
                        continue 'search;
                    }
                    until = from.saturating_add(d.max(HORIZON));
                }
                // The node's offer, from the cache or made for it; none
                // where nothing is kept: without a cache, where offers are
                // hardly ever reused, on a long line, or with claims
                // (admission decides).
                let fits = slots.as_mut().and_then(|(v, reuse)| {
                    let slot = &mut v[n as usize];
                    let holds = slot.as_ref().is_some_and(|f| f.holds(segs, from));
                    if !reuse.note(holds)
                        || (!holds
                            && (segs.len() > LONG_LINE || segs.iter().any(|s| s.cells.len() != 1)))
                    {
                        *slot = None;
                    } else if !holds {
                        *slot = Some(NodeFits::new(segs, &req.task, from, d, &mut scratch));
                    }
                    slot.as_ref()
                });
                let Some(fits) = fits else {
                    cut |= self.node_events(
                        n,
                        pos,
                        req,
                        adm,
                        from,
                        d,
                        until,
                        &mut scratch,
                        &mut events,
                    );
                    continue;
                };
                let before = events.len();
                fits.events(req, from, pos, &mut events);
                if cfg!(debug_assertions) {
                    let mut fresh = Vec::new();
                    self.node_events(n, pos, req, adm, from, d, until, &mut scratch, &mut fresh);
                    let kept: Vec<_> = events[before..]
                        .iter()
                        .filter(|e| e.0 < until)
                        .copied()
                        .collect();
                    debug_assert_eq!(kept, fresh, "node {n} from {from}");
                }
            }
            match self.sweep(&nodes, events, from, d, until, req, adm) {
                Ok(None) if cut => {}
                Ok(fit) => return fit,
                Err(()) => {}
            }
            // Events from the horizon on were left out or not read.
            until = from.saturating_add((until - from).saturating_mul(4));
        }
    }

    /// The sweep of [`Profile::earliest_start`] over the nodes' events
    /// `(t, position in nodes, contribution from t on)`, from `from` on.
    /// Events from `until` on are not read: `Err` when the sweep reached
    /// one before finding the start.
    #[allow(clippy::too_many_arguments)]
    fn sweep<A: Admits + ?Sized>(
        &self,
        nodes: &[NodeIdx],
        mut events: Vec<(Time, u32, u32)>,
        from: Time,
        d: Secs,
        until: Time,
        req: &FitRequest,
        adm: &A,
    ) -> Result<Option<Fit>, ()> {
        // Each node gives its contribution at `from` first and nodes come
        // by position: those events are in order already (checked), and
        // only the later ones need sorting, about half on a busy cluster.
        let mut k = 0;
        for i in 0..events.len() {
            if events[i].0 <= from {
                events.swap(k, i);
                k += 1;
            }
        }
        if !events[..k].is_sorted() {
            events[..k].sort_unstable();
        }
        events[k..].sort_unstable();
        let mut cur = vec![0u32; nodes.len()];
        let mut sum: u64 = 0;
        let mut count: u64 = 0;
        let mut i = 0;
        while i < events.len() {
            let t = events[i].0;
            if t >= until {
                return Err(());
            }
            while i < events.len() && events[i].0 == t {
                let (_, pos, c) = events[i];
                let old = cur[pos as usize];
                sum = sum - old as u64 + c as u64;
                count = count - (old > 0) as u64 + (c > 0) as u64;
                cur[pos as usize] = c;
                i += 1;
            }
            if sum >= req.tasks as u64 && count >= req.nodes.unwrap_or(0) as u64 {
                // Each node's contribution is exact at `t` (it only changes
                // at its own events), so without a node count the sum
                // decides: the fit is what `check_at` would list.
                if req.nodes.is_none() {
                    let list = nodes
                        .iter()
                        .zip(&cur)
                        .filter(|&(_, &c)| c > 0)
                        .map(|(&n, &c)| (n, c))
                        .collect();
                    let fit = Fit {
                        start: t,
                        nodes: list,
                    };
                    debug_assert_eq!(Some(&fit), self.check_at(nodes, t, d, req, adm).as_ref());
                    return Ok(Some(fit));
                }
                if let Some(fit) = self.check_at(nodes, t, d, req, adm) {
                    return Ok(Some(fit));
                }
            }
        }
        Ok(None)
    }

    /// Exact check of a candidate start.
    fn check_at<A: Admits + ?Sized>(
        &self,
        nodes: &[NodeIdx],
        t: Time,
        d: Secs,
        req: &FitRequest,
        adm: &A,
    ) -> Option<Fit> {
        let end = t.saturating_add(d);
        let list: Vec<(NodeIdx, u32)> = nodes
            .iter()
            .map(|&n| {
                (
                    n,
                    req.contribution(self.tasks_fit(n, t, end, &req.task, adm)),
                )
            })
            .filter(|&(_, c)| c > 0)
            .collect();
        let ok = match req.nodes {
            None => list.iter().map(|&(_, c)| c as u64).sum::<u64>() >= req.tasks as u64,
            Some(m) => {
                let mut cs: Vec<u32> = list.iter().map(|&(_, c)| c).collect();
                cs.sort_unstable_by(|a, b| b.cmp(a));
                cs.len() >= m as usize
                    && cs.iter().take(m as usize).map(|&c| c as u64).sum::<u64>()
                        >= req.tasks as u64
            }
        };
        ok.then_some(Fit {
            start: t,
            nodes: list,
        })
    }

    /// Appends `(t, pos, contribution)` whenever the node's contribution for
    /// a job starting at `t` changes, from `from` on, before `until`; true
    /// when the node has events from `until` on that were left out.
    #[allow(clippy::too_many_arguments)]
    fn node_events<A: Admits + ?Sized>(
        &self,
        node: NodeIdx,
        pos: u32,
        req: &FitRequest,
        adm: &A,
        from: Time,
        d: Secs,
        until: Time,
        scratch: &mut Scratch,
        out: &mut Vec<(Time, u32, u32)>,
    ) -> bool {
        let Some(line) = self.line(node) else {
            return false;
        };
        let first = Self::seg_at(line, from);
        let segs = &line.segs[first..];
        // A start before `until` covers no segment from `until + d` on.
        let within = segs
            .partition_point(|s| s.start < until.saturating_add(d))
            .max(1);
        let mut cut = within < segs.len();
        let segs = &segs[..within];
        let st = |i: usize| if i == 0 { from } else { segs[i].start };
        // Reservations whose admission depends on the job's window.
        let seen = &mut scratch.seen;
        seen.clear();
        for c in segs.iter().flat_map(|s| &s.cells) {
            // Most segments only have the unclaimed cell.
            if c.stack != UNCLAIMED {
                seen.extend_from_slice(self.stacks.get(c.stack));
            }
        }
        if !seen.is_empty() {
            seen.sort_unstable();
            seen.dedup();
        }
        let critical = &mut scratch.critical;
        critical.clear();
        for &r in seen.iter() {
            critical.extend(adm.critical_starts(r, d).into_iter().filter(|&t| t > from));
        }
        // Tasks fitting in each segment on its own.
        let g = &mut scratch.g;
        g.clear();
        g.extend(
            segs.iter()
                .enumerate()
                .map(|(i, seg)| match &seg.cells[..] {
                    // Most segments: the unclaimed cell alone, free to every job.
                    [only] if only.stack == UNCLAIMED => req.task.times_fits_in(&only.free()),
                    _ => {
                        let s = st(i);
                        req.task
                            .times_fits_in(&self.seg_free(seg, adm, s, s.saturating_add(d)))
                    }
                }),
        );
        let slow = !critical.is_empty();
        start_candidates(segs, from, d, critical, &mut scratch.cands);
        let keep = scratch.cands.partition_point(|&t| t < until);
        cut |= keep < scratch.cands.len();
        scratch.cands.truncate(keep);
        let mut last: Option<u32> = None;
        let mut emit = |t: Time, f: u32| {
            let c = req.contribution(f);
            if last != Some(c) {
                out.push((t, pos, c));
                last = Some(c);
            }
        };
        if slow {
            // Admission varies with the start: evaluate each candidate exactly.
            for &t in scratch.cands.iter() {
                emit(
                    t,
                    self.tasks_fit(node, t, t.saturating_add(d), &req.task, adm),
                );
            }
            return cut;
        }
        window_minima(segs, from, d, g, &scratch.cands, &mut scratch.dq, emit);
        cut
    }

    /// Splits the node's timeline at `t` and returns the index of the segment starting there.
    fn split(line: &mut Line, t: Time) -> usize {
        if t == INFINITY {
            return line.segs.len();
        }
        let i = Self::seg_at(line, t);
        if line.segs[i].start >= t {
            return i;
        }
        let mut s = line.segs[i].clone_with_room();
        s.start = t;
        line.segs.insert(i + 1, s);
        i + 1
    }

    fn coalesce(line: &mut Line) {
        line.segs.dedup_by(|b, a| a.cells == b.cells);
    }

    /// Places a job's tasks on `node` over `[o.start, o.end)`, consuming the
    /// cells the job may use by affinity (positive reservations first, then
    /// unclaimed, neutral, and negative ones last). Fails, changing nothing,
    /// when the tasks do not fit throughout the window.
    pub fn add_job<A: Admits + ?Sized>(
        &mut self,
        node: NodeIdx,
        o: Occupant,
        adm: &A,
    ) -> Result<(), ProfileError> {
        let need = o.total();
        if !need.fits_in(&self.free(node, o.start, o.end, adm)) {
            return Err(ProfileError::NoFit {
                job: o.job,
                node,
                start: o.start,
                end: o.end,
            });
        }
        self.place_job(node, o, adm, false);
        Ok(())
    }

    /// Records a job the RM reports running on `node`, whether or not it
    /// fits: it takes what it may use by affinity, then any other free
    /// capacity (a running job is a fact, even inside a reservation that
    /// would not admit it), and returns what exceeded the node's free
    /// capacity (zero unless the node is oversubscribed). Add running jobs
    /// before claims so that claims are placed around them.
    pub fn add_running_job<A: Admits + ?Sized>(
        &mut self,
        node: NodeIdx,
        o: Occupant,
        adm: &A,
    ) -> Resources {
        if self.line(node).is_none() {
            return o.total();
        }
        self.place_job(node, o, adm, true)
    }

    fn place_job<A: Admits + ?Sized>(
        &mut self,
        node: NodeIdx,
        o: Occupant,
        adm: &A,
        force: bool,
    ) -> Resources {
        let need = o.total();
        let start = o.start.max(self.origin);
        let end = o.end;
        let mut overflow = Resources::ZERO;
        if end > start && !need.is_zero() {
            let (wstart, wend) = (o.start, o.end);
            // Ranks are computed before taking the line mutably.
            let mut line = self.take_line(node);
            let i0 = Self::split(&mut line, start);
            let i1 = Self::split(&mut line, end);
            // What each segment took, for the load (when it is kept).
            let mut took: Vec<(Time, Resources)> = Vec::new();
            let keep = self.load.get().is_some();
            for seg in &mut line.segs[i0..i1] {
                let mut left = need;
                if let [only] = &mut seg.cells[..] {
                    // The common case: one cell, the unclaimed one (always
                    // usable), so no ranking is needed.
                    if only.stack == UNCLAIMED {
                        let x = dmin(&left, &only.free());
                        only.add_job(o.job, &x);
                        if keep {
                            took.push((seg.start, x));
                        }
                        left = left.saturating_sub(&x);
                        overflow = Resources::max_each(&overflow, &left);
                        continue;
                    }
                }
                let mut order: Vec<(Rank, usize)> = Vec::new();
                let mut rest: Vec<usize> = Vec::new();
                for (ci, c) in seg.cells.iter().enumerate() {
                    match self.rank(c.stack, adm, wstart, wend) {
                        Some(r) => order.push((r, ci)),
                        None => rest.push(ci),
                    }
                }
                order.sort();
                let cells = order.into_iter().map(|(_, ci)| ci).chain(if force {
                    rest
                } else {
                    Vec::new()
                });
                for ci in cells {
                    if left.is_zero() {
                        break;
                    }
                    let c = &mut seg.cells[ci];
                    let x = dmin(&left, &c.free());
                    c.add_job(o.job, &x);
                    left = left.saturating_sub(&x);
                }
                if keep {
                    took.push((seg.start, need.saturating_sub(&left)));
                }
                overflow = Resources::max_each(&overflow, &left);
            }
            if let Some(load) = self.load.get_mut() {
                let ends = took.iter().skip(1).map(|n| n.0).chain([end]);
                load.change_runs(took.iter().zip(ends).map(|(&(t, x), e)| (t, e, x)), true);
            }
            Self::coalesce(&mut line);
            self.put_line(node, line);
        }
        self.lines.make_mut(node as usize).jobs.push(o);
        overflow
    }

    /// Moves the origin forward to `t`: what lies before `t` is dropped, so
    /// the profile is the one built from `t` with the same placements (a
    /// placement is clipped to the origin, and a segment that now begins
    /// before it begins at it). Nothing happens for `t` at or before the
    /// origin. Lines are changed in place when not shared. Returns the
    /// nodes where a segment boundary was passed (elsewhere what is free
    /// from `t` on is what was free from the old origin on).
    pub fn advance(&mut self, t: Time) -> Vec<NodeIdx> {
        let mut passed = Vec::new();
        if t <= self.origin {
            return passed;
        }
        self.origin = t;
        if let Some(load) = self.load.get_mut() {
            load.advance(t);
        }
        debug_assert!(
            (0..self.lines.len()).all(|n| self.boundaries[n] == Self::boundary(&self.lines[n]))
        );
        // Only the lines with a boundary at or before `t` change: the
        // others' first segments hold on from before the old origin past
        // `t`, and are taken to start at the origin.
        for (node, b) in self.boundaries.iter_mut().enumerate() {
            if *b > t {
                continue;
            }
            passed.push(node as NodeIdx);
            let line = self.lines.make_mut(node);
            let k = Self::seg_at(line, t);
            line.segs.drain(..k);
            if let Some(first) = line.segs.first_mut() {
                first.start = first.start.max(t);
            }
            *b = Self::boundary(line);
        }
        passed
    }

    /// Renumbers jobs by `map`, pairs (old, new) sorted by old, on every
    /// node; a job not in it keeps its number. The new numbers must keep
    /// the order of the old ones among the jobs on a node (a monotone map:
    /// the per-segment lists stay sorted, the occupants keep their order).
    /// Only lines holding a job whose number changes are touched.
    pub fn renumber_jobs(&mut self, map: &[(JobIdx, JobIdx)]) {
        if map.iter().all(|&(old, new)| old == new) {
            return;
        }
        // Looked up once per occupant of every line and per job of every
        // cell: a table by old number rather than a search of `map`.
        let mut table: Vec<JobIdx> = (0..=map.last().map_or(0, |m| m.0)).collect();
        for &(old, new) in map {
            table[old as usize] = new;
        }
        let new = |j: JobIdx| table.get(j as usize).copied().unwrap_or(j);
        for n in 0..self.lines.len() {
            if self.lines[n].jobs.iter().all(|o| new(o.job) == o.job) {
                continue;
            }
            let line = self.lines.make_mut(n);
            for o in &mut line.jobs {
                o.job = new(o.job);
            }
            for seg in &mut line.segs {
                for c in &mut seg.cells {
                    for e in &mut c.jobs {
                        e.0 = new(e.0);
                    }
                }
            }
        }
    }

    /// Puts a node's occupants in job order (stable: a job's placements
    /// keep theirs), the order they have when added in job order.
    pub fn sort_occupants(&mut self, node: NodeIdx) {
        if let Some(line) = self.line(node) {
            if !line.jobs.is_sorted_by_key(|o| o.job) {
                self.lines
                    .make_mut(node as usize)
                    .jobs
                    .sort_by_key(|o| o.job);
            }
        }
    }

    /// Removes every placement of `job` on `node`; true if there was one.
    pub fn remove_job(&mut self, node: NodeIdx, job: JobIdx) -> bool {
        // Looked at shared first: a line without the job is not copied.
        if !self
            .line(node)
            .is_some_and(|l| l.jobs.iter().any(|o| o.job == job))
        {
            return false;
        }
        let line = self.lines.make_mut(node as usize);
        let before = line.jobs.len();
        line.jobs.retain(|o| o.job != job);
        if line.jobs.len() == before {
            return false;
        }
        let mut took: Vec<(Time, Time, Resources)> = Vec::new();
        let keep = self.load.get().is_some();
        let n = line.segs.len();
        for k in 0..n {
            let end = line.segs.get(k + 1).map_or(INFINITY, |s| s.start);
            let seg = &mut line.segs[k];
            let mut x = Resources::ZERO;
            for c in &mut seg.cells {
                if let Ok(i) = c.jobs.binary_search_by_key(&job, |e| e.0) {
                    let u = c.jobs.remove(i).1;
                    c.used = c.used.saturating_sub(&u);
                    x = x.saturating_add(&u);
                }
            }
            if keep && !x.is_zero() {
                took.push((seg.start, end, x));
            }
        }
        Self::coalesce(line);
        self.boundaries[node as usize] = Self::boundary(line);
        if let Some(load) = self.load.get_mut() {
            load.change_runs(took.into_iter(), false);
        }
        true
    }

    /// Claims `amount` on `node` for reservation `res` over `[start, end)`.
    ///
    /// In each segment the claim first covers what jobs it admits
    /// (`admits_job`) already use, then unclaimed free capacity (side by
    /// side), then, in `ClaimMode::MayStack`, free capacity of other
    /// claims (stacking, fewest reservations first). It never takes what a
    /// job it does not admit holds. Returns what it got throughout the
    /// window (its minimum over the segments); less than `amount` means the
    /// claim is partial somewhere.
    #[allow(clippy::too_many_arguments)]
    pub fn add_claim(
        &mut self,
        node: NodeIdx,
        res: ResIdx,
        start: Time,
        end: Time,
        amount: Resources,
        mode: ClaimMode,
        admits_job: &dyn Fn(JobIdx) -> bool,
    ) -> Resources {
        let start = start.max(self.origin);
        if end <= start || amount.is_zero() || self.line(node).is_none() {
            return Resources::ZERO;
        }
        let mut line = self.take_line(node);
        let i0 = Self::split(&mut line, start);
        let i1 = Self::split(&mut line, end);
        let mut got: Option<Resources> = None;
        for seg in &mut line.segs[i0..i1] {
            let g = self.claim_seg(seg, res, amount, mode, admits_job);
            got = Some(got.map_or(g, |x| dmin(&x, &g)));
        }
        Self::coalesce(&mut line);
        self.put_line(node, line);
        got.unwrap_or_default()
    }

    fn claim_seg(
        &mut self,
        seg: &mut Seg,
        res: ResIdx,
        amount: Resources,
        mode: ClaimMode,
        admits_job: &dyn Fn(JobIdx) -> bool,
    ) -> Resources {
        // (from cell index, capacity moved, job usage moved with it)
        type Move = (usize, Resources, Vec<(JobIdx, Resources)>);
        let mut moves: Vec<Move> = Vec::new();
        let mut left = amount;
        let mut order: Vec<usize> = (0..seg.cells.len())
            .filter(|&i| !self.stacks.contains(seg.cells[i].stack, res))
            .filter(|&i| mode == ClaimMode::MayStack || seg.cells[i].stack == UNCLAIMED)
            .collect();
        order.sort_by_key(|&i| {
            (
                self.stacks.get(seg.cells[i].stack).len(),
                seg.cells[i].stack,
            )
        });
        let mut free: Vec<Resources> = seg.cells.iter().map(|c| c.free()).collect();
        // Jobs the reservation admits count against it first.
        for &ci in &order {
            let mut jobs = Vec::new();
            let mut cap = Resources::ZERO;
            for (j, u) in &seg.cells[ci].jobs {
                if left.is_zero() {
                    break;
                }
                if admits_job(*j) {
                    let x = dmin(&left, u);
                    if !x.is_zero() {
                        jobs.push((*j, x));
                        cap = cap.saturating_add(&x);
                        left = left.saturating_sub(&x);
                    }
                }
            }
            if !cap.is_zero() {
                moves.push((ci, cap, jobs));
            }
        }
        // Then free capacity: unclaimed first (side by side), then stacked.
        for &ci in &order {
            if left.is_zero() {
                break;
            }
            let x = dmin(&left, &free[ci]);
            if !x.is_zero() {
                free[ci] = free[ci].saturating_sub(&x);
                left = left.saturating_sub(&x);
                moves.push((ci, x, Vec::new()));
            }
        }
        let got = amount.saturating_sub(&left);
        let targets: Vec<(StackId, StackId)> = moves
            .iter()
            .map(|(ci, _, _)| {
                let s = seg.cells[*ci].stack;
                (s, self.stacks.with(s, res))
            })
            .collect();
        for ((_, cap, jobs), (from, to)) in moves.into_iter().zip(targets) {
            {
                let c = seg.cell_mut(from);
                c.cap = c.cap.saturating_sub(&cap);
                for (j, u) in &jobs {
                    c.sub_job(*j, u);
                }
            }
            let c = seg.cell_mut(to);
            c.cap = c.cap.saturating_add(&cap);
            for (j, u) in &jobs {
                c.add_job(*j, u);
            }
        }
        seg.normalize();
        got
    }

    /// Removes every claim of `res` on `node`: its capacity returns to the
    /// stacks beneath it (unclaimed when it was alone). True if it had any.
    pub fn remove_claim(&mut self, node: NodeIdx, res: ResIdx) -> bool {
        if self.line(node).is_none() {
            return false;
        }
        let mut any = false;
        let mut line = self.take_line(node);
        for seg in &mut line.segs {
            let hit: Vec<usize> = (0..seg.cells.len())
                .filter(|&i| self.stacks.contains(seg.cells[i].stack, res))
                .collect();
            if hit.is_empty() {
                continue;
            }
            any = true;
            let moved: Vec<Cell> = hit.iter().rev().map(|&i| seg.cells.remove(i)).collect();
            for c in moved {
                let to = self.stacks.without(c.stack, res);
                let t = seg.cell_mut(to);
                t.cap = t.cap.saturating_add(&c.cap);
                for (j, u) in &c.jobs {
                    t.add_job(*j, u);
                }
            }
            seg.normalize();
        }
        Self::coalesce(&mut line);
        self.put_line(node, line);
        any
    }
}
