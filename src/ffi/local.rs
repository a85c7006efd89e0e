//! NODEALLOCATIONPOLICY LOCAL: the site's node allocation in C.

use super::handle::{mauisched_t, with_handle};
use super::plan::cstring;
use super::status::*;
use crate::allocation::{is_valid_allocation, Candidate, LocalAllocator, TaskRequest};
use crate::model::{Cluster, NodeIdx};
use crate::service::{LogLevel, Notes};
use std::ffi::{c_char, c_void, CString};

/// What the job asks for, as given to a LOCAL allocator. `size` is
/// `sizeof` this struct as the library was built: a later minor version
/// may append fields, so read a field only if `size` covers it. Strings
/// are valid during the callback only.
#[repr(C)]
pub struct mauisched_local_request_t {
    /// Size of this struct in the library.
    pub size: usize,
    /// Job id.
    pub job_id: *const c_char,
    /// Job owner.
    pub user: *const c_char,
    /// Number of tasks to place.
    pub tasks: u32,
    /// Processors per task.
    pub task_procs: u32,
    /// Memory per task in MB.
    pub task_mem_mb: u64,
    /// Swap per task in MB.
    pub task_swap_mb: u64,
    /// Disk per task in MB.
    pub task_disk_mb: u64,
    /// Tasks per node asked; 0 = none.
    pub tasks_per_node: u32,
    /// True when every node used must get exactly `tasks_per_node` tasks.
    pub exact_tasks_per_node: bool,
    /// Exact number of distinct nodes; 0 = any.
    pub node_count: u32,
    /// True when the job would start now; false for a future reservation.
    pub immediate: bool,
}

/// One node that could host tasks of the job, as given to a LOCAL
/// allocator. `size` as in [`mauisched_local_request_t`]. Strings are
/// valid during the callback only.
#[repr(C)]
pub struct mauisched_local_candidate_t {
    /// Size of this struct in the library.
    pub size: usize,
    /// Node name.
    pub node: *const c_char,
    /// Most tasks of the job the node can take (resources, node access,
    /// exact tasks per node).
    pub max_tasks: u32,
    /// Processors free over the job's whole window.
    pub free_procs: u32,
    /// Memory free in MB.
    pub free_mem_mb: u64,
    /// Swap free in MB.
    pub free_swap_mb: u64,
    /// Disk free in MB.
    pub free_disk_mb: u64,
    /// Jobs on the node now.
    pub job_count: u32,
    /// Seconds from the job's end to the node's next reservation or usage
    /// change; -1 when nothing follows.
    pub gap: i64,
}

/// A site's node allocation for NODEALLOCATIONPOLICY LOCAL.
///
/// Called during `mauisched_run` (on the caller's thread) for each job
/// placed under LOCAL, with the job's request, `count` candidate nodes
/// (an array of pointers: index them as `candidates[i]->node` whatever
/// the struct's size) and `tasks_out`, an array of `count` zeros. To
/// answer, set `tasks_out[i]` to the number of tasks on candidate `i`
/// and return 0; return anything else to decline. A declined or invalid
/// answer (tasks beyond a candidate's `max_tasks`, a wrong total, a broken
/// shape) is logged and the library falls back to LASTAVAILABLE for that
/// job. The callback must not unwind (throw, longjmp) and must not call
/// the library on the same handle (such calls return `MAUISCHED_BUSY`).
pub type mauisched_local_alloc_fn = Option<
    unsafe extern "C" fn(
        request: *const mauisched_local_request_t,
        candidates: *const *const mauisched_local_candidate_t,
        count: usize,
        tasks_out: *mut u32,
        userdata: *mut c_void,
    ) -> i32,
>;

/// The C callback as the engine's [`LocalAllocator`].
struct CLocal {
    f: unsafe extern "C" fn(
        *const mauisched_local_request_t,
        *const *const mauisched_local_candidate_t,
        usize,
        *mut u32,
        *mut c_void,
    ) -> i32,
    userdata: *mut c_void,
    notes: Notes,
}

// SAFETY: the engine wants its allocator `Send` so an engine can move
// between threads. The only non-Send part is the host's `userdata`, which
// the library never dereferences; the header states that a handle is used
// by one thread at a time, so the callback is never called concurrently,
// and a host whose userdata is tied to one thread keeps the handle there.
unsafe impl Send for CLocal {}

impl CLocal {
    fn note(&self, level: LogLevel, msg: String) {
        crate::service::lock(&self.notes).push((level, msg));
    }
}

impl LocalAllocator for CLocal {
    fn allocate(
        &self,
        req: &TaskRequest,
        candidates: &[Candidate],
        cluster: &Cluster,
        immediate: bool,
    ) -> Option<Vec<(NodeIdx, u32)>> {
        let job = cstring(&req.job);
        let user = cstring(&req.user);
        let request = mauisched_local_request_t {
            size: std::mem::size_of::<mauisched_local_request_t>(),
            job_id: job.as_ptr(),
            user: user.as_ptr(),
            tasks: req.tasks,
            task_procs: req.task.procs,
            task_mem_mb: req.task.mem,
            task_swap_mb: req.task.swap,
            task_disk_mb: req.task.disk,
            tasks_per_node: req.tasks_per_node.unwrap_or(0),
            exact_tasks_per_node: req.exact_tpn,
            node_count: req.node_count.unwrap_or(0),
            immediate,
        };
        let names: Vec<CString> = candidates
            .iter()
            .map(|c| {
                cstring(
                    cluster
                        .nodes
                        .get(c.node as usize)
                        .map_or("", |n| n.name.as_str()),
                )
            })
            .collect();
        let structs: Vec<mauisched_local_candidate_t> = candidates
            .iter()
            .zip(&names)
            .map(|(c, name)| mauisched_local_candidate_t {
                size: std::mem::size_of::<mauisched_local_candidate_t>(),
                node: name.as_ptr(),
                max_tasks: c.tasks,
                free_procs: c.free.procs,
                free_mem_mb: c.free.mem,
                free_swap_mb: c.free.swap,
                free_disk_mb: c.free.disk,
                job_count: c.job_count,
                gap: c.gap.unwrap_or(-1),
            })
            .collect();
        let ptrs: Vec<*const mauisched_local_candidate_t> =
            structs.iter().map(|s| s as *const _).collect();
        let mut tasks = vec![0u32; candidates.len()];
        // SAFETY: every pointer handed over lives until the call returns;
        // `tasks` has `count` elements.
        let rc = unsafe {
            (self.f)(
                &request,
                ptrs.as_ptr(),
                ptrs.len(),
                tasks.as_mut_ptr(),
                self.userdata,
            )
        };
        if rc != 0 {
            self.note(
                LogLevel::Debug,
                format!(
                    "job {}: the LOCAL allocator declined ({rc}); LASTAVAILABLE decides",
                    req.job
                ),
            );
            return None;
        }
        let answer: Vec<(NodeIdx, u32)> = candidates
            .iter()
            .zip(&tasks)
            .filter(|(_, t)| **t > 0)
            .map(|(c, t)| (c.node, *t))
            .collect();
        if !is_valid_allocation(req, candidates, cluster, &answer) {
            let shown: Vec<String> = answer
                .iter()
                .map(|(n, t)| {
                    format!(
                        "{}:{t}",
                        cluster
                            .nodes
                            .get(*n as usize)
                            .map_or("?", |x| x.name.as_str())
                    )
                })
                .collect();
            self.note(
                LogLevel::Warn,
                format!(
                    "job {}: the LOCAL allocator's answer [{}] does not place the job's {} task(s) within the candidates' limits; LASTAVAILABLE decides",
                    req.job,
                    shown.join(","),
                    req.tasks
                ),
            );
            return None;
        }
        Some(answer)
    }
}

/// Registers the site's allocator for NODEALLOCATIONPOLICY LOCAL (the
/// parameter or a job's own policy); NULL removes it. Without one, LOCAL
/// jobs are placed by LASTAVAILABLE. `userdata` is passed back unchanged
/// and must stay valid while the allocator is registered.
///
/// # Safety
/// `h` is a live handle.
#[no_mangle]
pub unsafe extern "C" fn mauisched_set_local_allocator(
    h: *mut mauisched_t,
    allocate: mauisched_local_alloc_fn,
    userdata: *mut c_void,
) -> mauisched_status_t {
    with_handle(h, |hd| {
        let notes = hd.svc.notes().clone();
        hd.svc
            .set_local_allocator(allocate.map(|f| {
                Box::new(CLocal { f, userdata, notes }) as Box<dyn LocalAllocator + Send>
            }));
        Ok(())
    })
}
