//! Administrative calls: reservations (setres, releaseres, listing) and
//! system priorities (setspri), translated into the service's operator
//! changes. Each takes effect at the next `mauisched_run` and is
//! checkpointed by that iteration.

use super::handle::{mauisched_t, with_handle};
use super::input::read_versioned;
use super::plan::{cstring, item};
use super::status::*;
use crate::model::Time;
use crate::reservation::AdminRequest;
use std::ffi::{c_char, CString};
use std::mem::{offset_of, size_of};

/// A setres request. Set `size` to `sizeof(mauisched_admin_res_request_t)`
/// and zero the struct first (`= {0}` or `memset`): zero and NULL mean
/// "not given". Lists use Maui's syntax (`john:mary`, `!projectX`,
/// `node00[3-6]`). Strings are borrowed for the call only. TASKS and/or
/// HOSTS must be given.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct mauisched_admin_res_request_t {
    /// `sizeof(mauisched_admin_res_request_t)` as the caller compiled it.
    pub size: usize,
    /// `-n`: name; NULL for the default (first ACL name or `system`, then `.N`).
    pub name: *const c_char,
    /// `-s`: start (seconds since the epoch); 0 = now.
    pub start: i64,
    /// `-e`: end; 0 = none.
    pub end: i64,
    /// `-d`: duration in seconds; 0 = none (no end and no duration: INFINITY).
    pub duration: i64,
    /// `-u`: USERLIST, or NULL.
    pub users: *const c_char,
    /// `-g`: GROUPLIST, or NULL.
    pub groups: *const c_char,
    /// `-a`: ACCOUNTLIST, or NULL.
    pub accounts: *const c_char,
    /// `-q`: CLASSLIST, or NULL.
    pub classes: *const c_char,
    /// `-Q`: QOSLIST, or NULL.
    pub qos: *const c_char,
    /// JOBATTRLIST, or NULL.
    pub job_attrs: *const c_char,
    /// TIMELIMIT, `[[[DD:]HH:]MM:]SS[*]`, or NULL.
    pub time_limit: *const c_char,
    /// `-r`: resources per task (`PROCS=1:MEM=512`), or NULL for whole nodes.
    pub resources: *const c_char,
    /// `TASKS==N`: task count; 0 = none.
    pub tasks: u32,
    /// Tasks per node (TPN); 0 = none.
    pub tpn: u32,
    /// Host names or expressions, or `ALL`; NULL = none.
    pub hosts: *const c_char,
    /// `-f`: required node features, or NULL.
    pub features: *const c_char,
    /// `-p`: partition, or NULL.
    pub partition: *const c_char,
    /// `-x`: flags, or NULL.
    pub flags: *const c_char,
    /// `-o`: owner, `USER:john`, or NULL.
    pub owner: *const c_char,
    /// `-c`: charge account, or NULL.
    pub charge_account: *const c_char,
    /// `DEDICATED` or `SHARED`, or NULL (DEDICATED).
    pub access: *const c_char,
    /// True when `priority` is given.
    pub has_priority: bool,
    /// PRIORITY.
    pub priority: i64,
}

/// Smallest `size` accepted for [`mauisched_admin_res_request_t`] (its
/// first ABI version).
pub const MAUISCHED_ADMIN_RES_REQUEST_T_MIN_SIZE: usize =
    offset_of!(mauisched_admin_res_request_t, priority) + size_of::<i64>();

unsafe fn request_from_c(p: *const mauisched_admin_res_request_t) -> FfiResult<AdminRequest> {
    let r = read_versioned(
        p,
        MAUISCHED_ADMIN_RES_REQUEST_T_MIN_SIZE,
        "mauisched_admin_res_request_t",
    )?;
    let s = |p: *const c_char, what: &str| -> FfiResult<Option<String>> {
        Ok(opt_str(p, what)?.map(str::to_string))
    };
    let t = |v: i64, what: &str| -> FfiResult<Option<i64>> {
        match v {
            0 => Ok(None),
            v if v < 0 => Err(FfiError::new(
                MAUISCHED_BAD_VALUE,
                format!("{what}: must not be negative, got {v}"),
            )),
            v => Ok(Some(v)),
        }
    };
    Ok(AdminRequest {
        name: s(r.name, "name")?,
        start: t(r.start, "start")?,
        end: t(r.end, "end")?,
        duration: t(r.duration, "duration")?,
        users: s(r.users, "users")?,
        groups: s(r.groups, "groups")?,
        accounts: s(r.accounts, "accounts")?,
        classes: s(r.classes, "classes")?,
        qos: s(r.qos, "qos")?,
        job_attrs: s(r.job_attrs, "job_attrs")?,
        time_limit: s(r.time_limit, "time_limit")?,
        resources: s(r.resources, "resources")?,
        tasks: (r.tasks > 0).then_some(r.tasks),
        hosts: s(r.hosts, "hosts")?,
        tpn: (r.tpn > 0).then_some(r.tpn),
        features: s(r.features, "features")?,
        partition: s(r.partition, "partition")?,
        flags: s(r.flags, "flags")?,
        owner: s(r.owner, "owner")?,
        charge_account: s(r.charge_account, "charge_account")?,
        access: s(r.access, "access")?,
        priority: r.has_priority.then_some(r.priority),
    })
}

/// Creates an administrative reservation, as `setres` does, at time `now`
/// (seconds since the epoch), and copies its name into `id_buf`.
///
/// It is placed on the nodes of the last iteration around its running jobs
/// and the reservations in force, so at least one `mauisched_run` must
/// have happened (`MAUISCHED_NO_ITERATION` otherwise). The request is
/// checked as a whole and nothing changes on any error: a bad field gives
/// `MAUISCHED_BAD_VALUE`, an existing name or too few free resources
/// `MAUISCHED_REFUSED`, a too small `id_buf` `MAUISCHED_BUFFER_TOO_SMALL`
/// (with `*id_written` set to the size needed; `id_written` may be NULL).
/// The reservation takes effect at the next `mauisched_run`, which also
/// checkpoints it.
///
/// # Safety
/// `h` is a live handle; `req` points to a request whose `size` bytes are
/// readable; `id_buf` is valid for `id_len` bytes; `id_written` is NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn mauisched_admin_res_create(
    h: *mut mauisched_t,
    req: *const mauisched_admin_res_request_t,
    now: i64,
    id_buf: *mut c_char,
    id_len: usize,
    id_written: *mut usize,
) -> mauisched_status_t {
    with_handle(h, |hd| {
        let request = request_from_c(req)?;
        if id_buf.is_null() {
            return Err(FfiError::new(MAUISCHED_NULL_ARG, "id_buf is NULL"));
        }
        // The name is checked to fit before anything changes.
        let probe = hd
            .svc
            .create_reservation(request.clone(), now, None, true)?;
        copy_out(&probe.0.id, id_buf, id_len, id_written)?;
        hd.svc.create_reservation(request, now, None, false)?;
        Ok(())
    })
}

/// Releases an administrative reservation, as `releaseres` does
/// (`MAUISCHED_NOT_FOUND` if there is none by that name). Its resources
/// are free from the next `mauisched_run`.
///
/// # Safety
/// `h` is a live handle; `id` is a valid string.
#[no_mangle]
pub unsafe extern "C" fn mauisched_admin_res_release(
    h: *mut mauisched_t,
    id: *const c_char,
) -> mauisched_status_t {
    with_handle(h, |hd| {
        let id = req_str(id, "id")?;
        Ok(hd.svc.release_reservation(id, None)?)
    })
}

struct ListItem {
    id: CString,
    created: Time,
    start: Time,
    end: Time,
    nodes: Vec<(CString, u32)>,
}

/// A copy of the administrative reservations at the time of the call.
///
/// Opaque to C. Returned by [`mauisched_admin_res_list`], owned by the
/// caller until [`mauisched_admin_res_list_free`]; independent of the
/// handle. Read-only: several threads may read one list at the same time.
pub struct mauisched_admin_res_list_t {
    items: Vec<ListItem>,
}

/// Lists the administrative reservations (in creation order, including
/// any created or released since the last iteration) into a new list
/// owned by the caller.
///
/// # Safety
/// `h` is a live handle; `list_out` is valid for writing.
#[no_mangle]
pub unsafe extern "C" fn mauisched_admin_res_list(
    h: *mut mauisched_t,
    list_out: *mut *mut mauisched_admin_res_list_t,
) -> mauisched_status_t {
    with_handle(h, |hd| {
        if list_out.is_null() {
            return Err(FfiError::new(MAUISCHED_NULL_ARG, "list_out is NULL"));
        }
        let items = hd
            .svc
            .engine()
            .admin_reservations()
            .list()
            .iter()
            .map(|r| ListItem {
                id: cstring(&r.id),
                created: r.created,
                start: r.start,
                end: r.end,
                nodes: r.nodes.iter().map(|(n, t)| (cstring(n), *t)).collect(),
            })
            .collect();
        *list_out = Box::into_raw(Box::new(mauisched_admin_res_list_t { items }));
        Ok(())
    })
}

unsafe fn with_list(
    l: *const mauisched_admin_res_list_t,
    f: impl FnOnce(&mauisched_admin_res_list_t) -> FfiResult,
) -> mauisched_status_t {
    if l.is_null() {
        return MAUISCHED_NULL_ARG;
    }
    match boundary(|_| {}, || f(&*l)) {
        Ok(()) => MAUISCHED_OK,
        Err(e) => e.status,
    }
}

/// Number of reservations in the list.
///
/// # Safety
/// `list` is a live list; `count` is valid for writing.
#[no_mangle]
pub unsafe extern "C" fn mauisched_admin_res_list_count(
    list: *const mauisched_admin_res_list_t,
    count: *mut usize,
) -> mauisched_status_t {
    with_list(list, |l| {
        if count.is_null() {
            return Err(FfiError::new(MAUISCHED_NULL_ARG, "count is NULL"));
        }
        *count = l.items.len();
        Ok(())
    })
}

/// Reservation number `index`: its name (owned by the list), when it was
/// created, its start and end (seconds since the epoch; an end far in the
/// future stands for INFINITY) and how many nodes it holds.
///
/// # Safety
/// `list` is a live list; the outputs are valid for writing.
#[no_mangle]
pub unsafe extern "C" fn mauisched_admin_res_list_get(
    list: *const mauisched_admin_res_list_t,
    index: usize,
    id: *mut *const c_char,
    created: *mut i64,
    start: *mut i64,
    end: *mut i64,
    node_count: *mut usize,
) -> mauisched_status_t {
    with_list(list, |l| {
        if id.is_null()
            || created.is_null()
            || start.is_null()
            || end.is_null()
            || node_count.is_null()
        {
            return Err(FfiError::new(MAUISCHED_NULL_ARG, "an output is NULL"));
        }
        let r = item(&l.items, index)?;
        *id = r.id.as_ptr();
        *created = r.created;
        *start = r.start;
        *end = r.end;
        *node_count = r.nodes.len();
        Ok(())
    })
}

/// Node `node_index` of reservation `index`: its name (owned by the list)
/// and the tasks held there.
///
/// # Safety
/// `list` is a live list; the outputs are valid for writing.
#[no_mangle]
pub unsafe extern "C" fn mauisched_admin_res_list_node(
    list: *const mauisched_admin_res_list_t,
    index: usize,
    node_index: usize,
    node: *mut *const c_char,
    tasks: *mut u32,
) -> mauisched_status_t {
    with_list(list, |l| {
        if node.is_null() || tasks.is_null() {
            return Err(FfiError::new(MAUISCHED_NULL_ARG, "an output is NULL"));
        }
        let r = item(&l.items, index)?;
        let n = item(&r.nodes, node_index)?;
        *node = n.0.as_ptr();
        *tasks = n.1;
        Ok(())
    })
}

/// Frees a list and its strings. NULL is a no-op.
///
/// # Safety
/// `list` is NULL or a list from [`mauisched_admin_res_list`] not freed before.
#[no_mangle]
pub unsafe extern "C" fn mauisched_admin_res_list_free(list: *mut mauisched_admin_res_list_t) {
    if !list.is_null() {
        let _ =
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| drop(Box::from_raw(list))));
    }
}

/// Sets a job's system priority, as `setspri PRIORITY JOBID` does: the job
/// then ranks above every job without one, higher values first. `priority`
/// 0 clears it (as [`mauisched_clear_system_priority`]); otherwise it must
/// be 1 to 1000000000 (`MAUISCHED_BAD_VALUE`). A priority the RM reports
/// in `mauisched_job_t.system_priority` wins over this one. Kept while the
/// job is reported, checkpointed, and used from the next `mauisched_run`.
///
/// # Safety
/// `h` is a live handle; `job_id` is a valid string.
#[no_mangle]
pub unsafe extern "C" fn mauisched_set_system_priority(
    h: *mut mauisched_t,
    job_id: *const c_char,
    priority: i64,
) -> mauisched_status_t {
    with_handle(h, |hd| {
        let id = req_str(job_id, "job_id")?;
        Ok(hd.svc.set_system_priority(id, priority, None)?)
    })
}

/// Clears a job's system priority (`MAUISCHED_NOT_FOUND` when it has none).
///
/// # Safety
/// `h` is a live handle; `job_id` is a valid string.
#[no_mangle]
pub unsafe extern "C" fn mauisched_clear_system_priority(
    h: *mut mauisched_t,
    job_id: *const c_char,
) -> mauisched_status_t {
    with_handle(h, |hd| {
        let id = req_str(job_id, "job_id")?;
        Ok(hd.svc.clear_system_priority(id)?)
    })
}
