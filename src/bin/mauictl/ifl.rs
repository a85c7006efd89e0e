//! Torque's IFL client library, loaded at run time, for `mauictl sweep
//! --pbs`: the only `unsafe` code of mauictl, behind safe calls.
//!
//! As mauisched-pbs does (`c-shim/pbs/ifl.h`, `ifl_load.c`), mauictl
//! neither includes Torque's headers nor links libtorque: the few public
//! structs are declared here as `pbs_ifl.h` lays them out, the library is
//! opened with `dlopen` (`libtorque.so.2`, the client library's SONAME in
//! Torque 4 to 6, or the path given) and its functions looked up by name.
//! One mauictl then works wherever some Torque is installed, and builds
//! and runs everywhere else. The library is never closed: it stays until
//! mauictl exits, as in the daemon.

use std::ffi::{c_char, c_int, c_void, CStr, CString};
use std::fmt;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::ptr::{null, null_mut};

/// The client library's SONAME in Torque 4, 5 and 6.
pub const DEFAULT_LIBRARY: &str = "libtorque.so.2";

/// Torque's `PBSE_UNKJOBID`: no such job (or purged).
pub const PBSE_UNKJOBID: i32 = 15001;
/// Torque's `PBSE_UNKARRAYID`: no such array (or all its jobs purged).
pub const PBSE_UNKARRAYID: i32 = 15082;

/// `struct attrl` and `struct attropl` (same layout): one attribute of a
/// request or a status reply.
#[repr(C)]
struct Attrl {
    next: *mut Attrl,
    name: *mut c_char,
    resource: *mut c_char,
    value: *mut c_char,
    /// `enum batch_op`; SET is 0 (pbs_submit sets it anyway).
    op: c_int,
}

/// `struct batch_status`: one object of a status reply.
#[repr(C)]
struct BatchStatus {
    next: *mut BatchStatus,
    name: *mut c_char,
    attribs: *mut Attrl,
    text: *mut c_char,
}

// Torque's prototypes take `char *` where they do not write.
type ConnectFn = unsafe extern "C" fn(*mut c_char) -> c_int;
type DisconnectFn = unsafe extern "C" fn(c_int) -> c_int;
type SubmitFn =
    unsafe extern "C" fn(c_int, *mut Attrl, *mut c_char, *mut c_char, *mut c_char) -> *mut c_char;
type StatjobFn =
    unsafe extern "C" fn(c_int, *mut c_char, *mut Attrl, *mut c_char) -> *mut BatchStatus;
type StatfreeFn = unsafe extern "C" fn(*mut BatchStatus);
type GeterrmsgFn = unsafe extern "C" fn(c_int) -> *mut c_char;
type StrerrorFn = unsafe extern "C" fn(c_int) -> *mut c_char;
type ErrnoLocationFn = unsafe extern "C" fn() -> *mut c_int;

/// One attribute: `name[.resource] = value`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Attr {
    /// `Job_Name`, `Resource_List`, ...
    pub name: String,
    /// The resource of `Resource_List` (`walltime`), else `None`.
    pub resource: Option<String>,
    /// The value, in Torque's own format.
    pub value: String,
}

impl Attr {
    /// An attribute without resource.
    pub fn new(name: &str, value: &str) -> Attr {
        Attr {
            name: name.to_string(),
            resource: None,
            value: value.to_string(),
        }
    }
}

/// One job of a status reply.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Status {
    /// Its id (`12[3].vm`).
    pub name: String,
    /// Its attributes, as the server sent them.
    pub attrs: Vec<Attr>,
}

impl Status {
    /// The value of an attribute without resource.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.attrs
            .iter()
            .find(|a| a.name == name && a.resource.is_none())
            .map(|a| a.value.as_str())
    }
}

/// A call that failed: `pbs_errno`, its text and the server's message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IflError {
    /// The call (`pbs_submit`).
    pub call: &'static str,
    /// `pbs_errno` after it (0 when the library set none).
    pub code: i32,
    /// `pbs_strerror(code)`, when the library has it.
    pub text: String,
    /// `pbs_geterrmsg(conn)`: the server's own words, when it sent any.
    pub msg: Option<String>,
}

impl fmt::Display for IflError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} failed: pbs_errno {}", self.call, self.code)?;
        if !self.text.is_empty() {
            write!(f, " ({})", self.text)?;
        }
        match &self.msg {
            Some(m) if !m.is_empty() && *m != self.text => write!(f, ": {m}"),
            _ => Ok(()),
        }
    }
}

/// The IFL functions `sweep --pbs` calls, looked up in the library.
pub struct Ifl {
    path: String,
    connect: ConnectFn,
    disconnect: DisconnectFn,
    submit: SubmitFn,
    statjob: StatjobFn,
    statfree: StatfreeFn,
    geterrmsg: GeterrmsgFn,
    strerror: Option<StrerrorFn>,
    // libtorque exports `int pbs_errno`; OpenPBS-style libraries a
    // function returning its address. Exactly one is set.
    errno_var: *mut c_int,
    errno_location: Option<ErrnoLocationFn>,
}

fn dlerror_text() -> String {
    // SAFETY: dlerror returns NULL or a NUL-terminated string that stays
    // valid until the next dl* call of this thread; it is copied at once.
    let e = unsafe { libc::dlerror() };
    if e.is_null() {
        "unknown error".into()
    } else {
        // SAFETY: not NULL, NUL-terminated (above).
        unsafe { CStr::from_ptr(e) }.to_string_lossy().into_owned()
    }
}

/// A C string of a string given by the user (a NUL byte is refused).
fn c_string(what: &str, s: &[u8]) -> Result<CString, String> {
    CString::new(s).map_err(|_| format!("{what}: contains a NUL byte"))
}

/// Copies a C string the library owns (NULL: `None`).
fn owned(p: *const c_char) -> Option<String> {
    if p.is_null() {
        None
    } else {
        // SAFETY: the library's strings are NUL-terminated; copied at once.
        Some(unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned())
    }
}

impl Ifl {
    /// Opens the library (`None`: libtorque.so.2, found by the dynamic
    /// linker) and looks up every function; an error names the library and
    /// the first missing symbol.
    pub fn load(path: Option<&Path>) -> Result<Ifl, String> {
        let shown = path.map_or(DEFAULT_LIBRARY.to_string(), |p| p.display().to_string());
        let name = c_string(
            &shown,
            path.map_or(DEFAULT_LIBRARY.as_bytes(), |p| p.as_os_str().as_bytes()),
        )?;
        // SAFETY: dlopen with a NUL-terminated name. RTLD_LOCAL: libtorque's
        // symbols resolve nothing else in the process; RTLD_NOW: a library
        // that cannot be bound fails here, not in the middle of a call.
        let handle = unsafe {
            libc::dlerror();
            libc::dlopen(name.as_ptr(), libc::RTLD_NOW | libc::RTLD_LOCAL)
        };
        if handle.is_null() {
            return Err(format!(
                "cannot load the IFL client library {shown}: {} (--libtorque PATH names another)",
                dlerror_text()
            ));
        }
        let sym = |n: &str| -> *mut c_void {
            let c = CString::new(n).unwrap_or_default();
            // SAFETY: a handle dlopen returned and a NUL-terminated name.
            unsafe { libc::dlsym(handle, c.as_ptr()) }
        };
        let need = |n: &str| -> Result<*mut c_void, String> {
            let p = sym(n);
            if p.is_null() {
                Err(format!(
                    "{shown}: missing symbol {n} (not an IFL client library, or too old)"
                ))
            } else {
                Ok(p)
            }
        };
        let resolve = || -> Result<Ifl, String> {
            let errno_var = sym("pbs_errno").cast::<c_int>();
            let errno_location = sym("__pbs_errno_location");
            if errno_var.is_null() && errno_location.is_null() {
                return Err(format!(
                    "{shown}: missing symbol pbs_errno (neither the variable nor \
                     __pbs_errno_location is exported)"
                ));
            }
            let strerror = sym("pbs_strerror");
            // SAFETY: each symbol is the IFL function of that name, whose C
            // prototype (Torque's pbs_ifl.h) the function type repeats; a
            // function pointer and a data pointer have one size here.
            unsafe {
                Ok(Ifl {
                    path: shown.clone(),
                    connect: std::mem::transmute::<*mut c_void, ConnectFn>(need("pbs_connect")?),
                    disconnect: std::mem::transmute::<*mut c_void, DisconnectFn>(need(
                        "pbs_disconnect",
                    )?),
                    submit: std::mem::transmute::<*mut c_void, SubmitFn>(need("pbs_submit")?),
                    statjob: std::mem::transmute::<*mut c_void, StatjobFn>(need("pbs_statjob")?),
                    statfree: std::mem::transmute::<*mut c_void, StatfreeFn>(need("pbs_statfree")?),
                    geterrmsg: std::mem::transmute::<*mut c_void, GeterrmsgFn>(need(
                        "pbs_geterrmsg",
                    )?),
                    strerror: (!strerror.is_null())
                        .then(|| std::mem::transmute::<*mut c_void, StrerrorFn>(strerror)),
                    errno_var,
                    errno_location: (!errno_location.is_null()).then(|| {
                        std::mem::transmute::<*mut c_void, ErrnoLocationFn>(errno_location)
                    }),
                })
            }
        };
        resolve().inspect_err(|_| {
            // SAFETY: nothing of the library is in use.
            unsafe { libc::dlclose(handle) };
        })
    }

    /// The library, as given.
    pub fn path(&self) -> &str {
        &self.path
    }

    fn errno_ptr(&self) -> *mut c_int {
        if !self.errno_var.is_null() {
            self.errno_var
        } else if let Some(f) = self.errno_location {
            // SAFETY: the library's own accessor of its pbs_errno.
            unsafe { f() }
        } else {
            null_mut()
        }
    }

    fn errno(&self) -> i32 {
        let p = self.errno_ptr();
        if p.is_null() {
            0
        } else {
            // SAFETY: the library's pbs_errno, an int; one thread.
            unsafe { *p }
        }
    }

    fn clear_errno(&self) {
        let p = self.errno_ptr();
        if !p.is_null() {
            // SAFETY: as above.
            unsafe { *p = 0 };
        }
    }

    /// `pbs_strerror(code)`, or "" when the library has none for it.
    pub fn strerror(&self, code: i32) -> String {
        match self.strerror {
            // SAFETY: returns NULL or a static string of the library.
            Some(f) => owned(unsafe { f(code) }).unwrap_or_default(),
            None => String::new(),
        }
    }

    /// Connects to `server` (`HOST[:PORT]`; `None`: the library's default
    /// server, `$PBS_DEFAULT` or its `server_name` file, as Torque's own
    /// commands do).
    pub fn connect(&self, server: Option<&str>) -> Result<Conn<'_>, String> {
        let name = server
            .map(|s| c_string("--server", s.as_bytes()))
            .transpose()?;
        let shown = server.unwrap_or("libtorque's default server");
        self.clear_errno();
        // SAFETY: NULL or a NUL-terminated name that outlives the call.
        let fd = unsafe { (self.connect)(name.as_ref().map_or(null(), |c| c.as_ptr()).cast_mut()) };
        if fd >= 0 {
            return Ok(Conn {
                ifl: self,
                fd,
                server: shown.to_string(),
            });
        }
        let e = self.errno();
        // Torque 6 returns the socket error negated (-111) and leaves
        // pbs_errno 0; older releases -1 with pbs_errno set.
        Err(if e == 0 && fd < -1 {
            format!(
                "pbs_connect to {shown} failed: {} (it returned {fd})",
                std::io::Error::from_raw_os_error(-fd)
            )
        } else if e == 0 {
            format!("pbs_connect to {shown} failed: it returned {fd} and no reason")
        } else {
            let t = self.strerror(e);
            format!(
                "pbs_connect to {shown} failed: pbs_errno {e}{}",
                if t.is_empty() {
                    String::new()
                } else {
                    format!(" ({t})")
                }
            )
        })
    }
}

/// A connection to pbs_server, closed when dropped.
pub struct Conn<'a> {
    ifl: &'a Ifl,
    fd: c_int,
    server: String,
}

impl Drop for Conn<'_> {
    fn drop(&mut self) {
        // SAFETY: a connection pbs_connect opened, closed once.
        unsafe { (self.ifl.disconnect)(self.fd) };
    }
}

/// Attributes as the library takes them: the C strings, owned here, and
/// the linked list pointing into them.
struct AttrList {
    _strings: Vec<CString>,
    list: Vec<Attrl>,
}

impl AttrList {
    fn new(attrs: &[Attr]) -> Result<AttrList, String> {
        let mut strings = Vec::new();
        let mut list = Vec::with_capacity(attrs.len());
        for a in attrs {
            let name = c_string(&a.name, a.name.as_bytes())?;
            let resource = a
                .resource
                .as_ref()
                .map(|r| c_string(r, r.as_bytes()))
                .transpose()?;
            let value = c_string(&a.name, a.value.as_bytes())?;
            // A CString's buffer does not move when the CString does.
            list.push(Attrl {
                next: null_mut(),
                name: name.as_ptr().cast_mut(),
                resource: resource
                    .as_ref()
                    .map_or(null_mut(), |r| r.as_ptr().cast_mut()),
                value: value.as_ptr().cast_mut(),
                op: 0,
            });
            strings.push(name);
            strings.extend(resource);
            strings.push(value);
        }
        let base = list.as_mut_ptr();
        for i in 1..list.len() {
            // SAFETY: i - 1 and i are in bounds; the Vec is not resized
            // afterwards, so the pointers stay valid.
            unsafe { (*base.add(i - 1)).next = base.add(i) };
        }
        Ok(AttrList {
            _strings: strings,
            list,
        })
    }

    fn head(&mut self) -> *mut Attrl {
        if self.list.is_empty() {
            null_mut()
        } else {
            self.list.as_mut_ptr()
        }
    }
}

impl Conn<'_> {
    /// The server, as given (or the default's description).
    pub fn server(&self) -> &str {
        &self.server
    }

    fn error(&self, call: &'static str) -> IflError {
        let code = self.ifl.errno();
        // SAFETY: a connection of this library; NULL or its own string.
        let msg = owned(unsafe { (self.ifl.geterrmsg)(self.fd) });
        IflError {
            call,
            code,
            text: self.ifl.strerror(code),
            msg,
        }
    }

    fn local(call: &'static str, msg: String) -> IflError {
        IflError {
            call,
            code: 0,
            text: String::new(),
            msg: Some(msg),
        }
    }

    /// `pbs_submit`: queues a job running `script` (the library sends the
    /// file's content) with `attrs`, in `queue` (`None`: the server's
    /// default queue); returns its id.
    pub fn submit(
        &self,
        attrs: &[Attr],
        script: &Path,
        queue: Option<&str>,
    ) -> Result<String, IflError> {
        let mut list = AttrList::new(attrs).map_err(|m| Self::local("pbs_submit", m))?;
        let script = c_string("the job script", script.as_os_str().as_bytes())
            .map_err(|m| Self::local("pbs_submit", m))?;
        let queue = queue
            .map(|q| c_string("the queue", q.as_bytes()))
            .transpose()
            .map_err(|m| Self::local("pbs_submit", m))?;
        self.ifl.clear_errno();
        // SAFETY: the list and strings live until the call returns; the
        // library may write the attributes' `op` (it forces SET), nothing
        // else.
        let id = unsafe {
            (self.ifl.submit)(
                self.fd,
                list.head(),
                script.as_ptr().cast_mut(),
                queue.as_ref().map_or(null(), |q| q.as_ptr()).cast_mut(),
                null_mut(),
            )
        };
        if id.is_null() {
            return Err(self.error("pbs_submit"));
        }
        let text = owned(id).unwrap_or_default();
        // SAFETY: the id is the library's malloc'ed copy, the caller's to
        // free (with the C library's free, as Torque's qsub does).
        unsafe { libc::free(id.cast()) };
        Ok(text)
    }

    /// `pbs_statjob`: the job `id` (an array's id, `12[].vm`: its jobs),
    /// with only the attributes named.
    pub fn statjob(&self, id: &str, names: &[&str]) -> Result<Vec<Status>, IflError> {
        let mut strings = Vec::new();
        for n in names {
            strings.push(c_string(n, n.as_bytes()).map_err(|m| Self::local("pbs_statjob", m))?);
        }
        let mut filter: Vec<Attrl> = strings
            .iter()
            .map(|s| Attrl {
                next: null_mut(),
                name: s.as_ptr().cast_mut(),
                resource: null_mut(),
                value: null_mut(),
                op: 0,
            })
            .collect();
        let base = filter.as_mut_ptr();
        for i in 1..filter.len() {
            // SAFETY: as in AttrList::new.
            unsafe { (*base.add(i - 1)).next = base.add(i) };
        }
        let id_c =
            c_string("the job id", id.as_bytes()).map_err(|m| Self::local("pbs_statjob", m))?;
        self.ifl.clear_errno();
        // SAFETY: the filter and id live until the call returns.
        let reply = unsafe {
            (self.ifl.statjob)(
                self.fd,
                id_c.as_ptr().cast_mut(),
                if filter.is_empty() { null_mut() } else { base },
                null_mut(),
            )
        };
        if reply.is_null() {
            return if self.ifl.errno() != 0 {
                Err(self.error("pbs_statjob"))
            } else {
                Ok(Vec::new())
            };
        }
        let mut out = Vec::new();
        let mut p = reply;
        while !p.is_null() {
            // SAFETY: a reply list of the library, read before pbs_statfree.
            let b = unsafe { &*p };
            let mut attrs = Vec::new();
            let mut a = b.attribs;
            while !a.is_null() {
                // SAFETY: as above.
                let at = unsafe { &*a };
                attrs.push(Attr {
                    name: owned(at.name).unwrap_or_default(),
                    resource: owned(at.resource).filter(|r| !r.is_empty()),
                    value: owned(at.value).unwrap_or_default(),
                });
                a = at.next;
            }
            out.push(Status {
                name: owned(b.name).unwrap_or_default(),
                attrs,
            });
            p = b.next;
        }
        // SAFETY: the reply, freed once, not used afterwards.
        unsafe { (self.ifl.statfree)(reply) };
        Ok(out)
    }
}

/// This host's name, as qsub puts it in the jobs' output paths
/// (`host:/path`).
pub fn hostname() -> String {
    let mut buf = [0u8; 256];
    // SAFETY: the buffer and its length; gethostname NUL-terminates within
    // it on success (the last byte is kept 0 in any case).
    let rc = unsafe { libc::gethostname(buf.as_mut_ptr().cast(), buf.len() - 1) };
    if rc != 0 {
        return "localhost".into();
    }
    let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
    String::from_utf8_lossy(&buf[..end]).into_owned()
}
