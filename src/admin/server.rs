//! The socket server: one accepting thread, one short-lived thread per
//! client, none of them ever holding the engine while talking to a client.
//!
//! Hostile or broken clients cost little, and no user can lock others out:
//! - a client has [`REQUEST_SECS`] (or CLIENTTIMEOUT when shorter) to send
//!   its request line, which may be at most
//!   [`MAX_REQUEST_BYTES`](super::protocol::MAX_REQUEST_BYTES) long; the
//!   answer then has CLIENTTIMEOUT (clamped to 1–60 s) to be written;
//! - a user has at most [`MAX_PER_USER`] connections served at once, and
//!   all users together [`MAX_CLIENTS`];
//! - ADMIN1 (root, the resource manager's user, the ADMIN1 list) has
//!   [`MAX_CLIENTS`] slots of its own, which no other user can take;
//! - a client over a limit is answered `busy` at once, with what it
//!   reached, and its request is drained so that it reads that answer
//!   rather than a reset connection.
//!
//! Answers are written with `MSG_NOSIGNAL` (a client that went away never
//! raises SIGPIPE in the host).
//! The socket is created mode 0666: every request is authorised from the
//! peer's credentials, not by file permissions.

use super::auth::{self, Caller};
use super::protocol::{self, ErrorCode, Response, MAX_REQUEST_BYTES};
use super::Backend;
use std::collections::BTreeMap;
use std::io::{self, Read};
use std::os::unix::fs::{FileTypeExt, MetadataExt, PermissionsExt};
use std::os::unix::io::AsRawFd;
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// Clients served at the same time, all users but ADMIN1 together (and
/// ADMIN1 on its own); more are answered `busy`.
pub const MAX_CLIENTS: usize = 16;

/// Connections of one user (other than ADMIN1) served at the same time.
pub const MAX_PER_USER: usize = 4;

/// Seconds a client has to send its request in full (CLIENTTIMEOUT when
/// that is shorter), apart from the time its answer may take.
pub const REQUEST_SECS: u64 = 3;

/// A running admin socket. Stops (and removes its socket) when dropped.
pub struct Server {
    path: PathBuf,
    ident: (u64, u64),
    stop: Arc<AtomicBool>,
    wake: UnixStream,
    thread: Option<JoinHandle<()>>,
}

/// State shared by the accepting thread and the client threads.
struct Shared {
    backend: Arc<dyn Backend>,
    stop: Arc<AtomicBool>,
    /// Connections served, all users but ADMIN1.
    active: AtomicUsize,
    /// Connections of ADMIN1 served.
    admin_active: AtomicUsize,
    /// Connections served per uid (ADMIN1 not counted).
    per_user: Mutex<BTreeMap<u32, usize>>,
    next_id: AtomicU64,
    /// Open client connections, shut down when the server stops.
    conns: Mutex<BTreeMap<u64, UnixStream>>,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl Server {
    /// Binds `path` (creating its directory if needed, replacing a stale
    /// socket that nobody answers on) and starts serving.
    pub fn start(path: &Path, backend: Arc<dyn Backend>) -> io::Result<Server> {
        if let Ok(meta) = std::fs::symlink_metadata(path) {
            if !meta.file_type().is_socket() {
                return Err(io::Error::new(
                    io::ErrorKind::AlreadyExists,
                    format!("{} exists and is not a socket", path.display()),
                ));
            }
            match UnixStream::connect(path) {
                // Nobody listens: a socket left by a scheduler that died.
                Err(e) if e.kind() == io::ErrorKind::ConnectionRefused => {
                    std::fs::remove_file(path)?
                }
                Err(e) if e.kind() == io::ErrorKind::NotFound => {}
                _ => {
                    return Err(io::Error::new(
                        io::ErrorKind::AddrInUse,
                        format!("another scheduler is serving {}", path.display()),
                    ))
                }
            }
        }
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            if !dir.exists() {
                std::fs::create_dir_all(dir)?;
                // Clients of every user must reach the socket.
                std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o755))?;
            }
        }
        let listener = UnixListener::bind(path)?;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o666))?;
        let meta = std::fs::metadata(path)?;
        listener.set_nonblocking(true)?;
        let (wake_rx, wake) = UnixStream::pair()?;
        let stop = Arc::new(AtomicBool::new(false));
        let shared = Arc::new(Shared {
            backend,
            stop: stop.clone(),
            active: AtomicUsize::new(0),
            admin_active: AtomicUsize::new(0),
            per_user: Mutex::new(BTreeMap::new()),
            next_id: AtomicU64::new(0),
            conns: Mutex::new(BTreeMap::new()),
        });
        let thread = std::thread::Builder::new()
            .name("mauisched-admin".into())
            .spawn(move || accept_loop(listener, wake_rx, shared))?;
        Ok(Server {
            path: path.to_path_buf(),
            ident: (meta.dev(), meta.ino()),
            stop,
            wake,
            thread: Some(thread),
        })
    }

    /// The socket's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Stops accepting, ends every connection, waits for the threads and
    /// removes the socket (if it is still the one this server made).
    pub fn shutdown(&mut self) {
        let Some(t) = self.thread.take() else {
            return;
        };
        self.stop.store(true, Ordering::SeqCst);
        let _ = send_all(&self.wake, b"x", Instant::now() + Duration::from_secs(1));
        let _ = t.join();
        if let Ok(m) = std::fs::symlink_metadata(&self.path) {
            if (m.dev(), m.ino()) == self.ident {
                let _ = std::fs::remove_file(&self.path);
            }
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.shutdown();
    }
}

fn accept_loop(listener: UnixListener, wake: UnixStream, shared: Arc<Shared>) {
    let mut threads: Vec<JoinHandle<()>> = Vec::new();
    let _ = wake.set_nonblocking(true);
    while !shared.stop.load(Ordering::SeqCst) {
        let mut fds = [
            libc::pollfd {
                fd: listener.as_raw_fd(),
                events: libc::POLLIN,
                revents: 0,
            },
            libc::pollfd {
                fd: wake.as_raw_fd(),
                events: libc::POLLIN,
                revents: 0,
            },
        ];
        let rc = super::sys::poll(&mut fds);
        if rc < 0 {
            if io::Error::last_os_error().kind() == io::ErrorKind::Interrupted {
                continue;
            }
            // poll itself failing is not expected; do not spin.
            std::thread::sleep(Duration::from_millis(100));
            continue;
        }
        if fds[1].revents != 0 {
            let mut b = [0u8; 16];
            let _ = (&wake).read(&mut b);
        }
        if shared.stop.load(Ordering::SeqCst) {
            break;
        }
        loop {
            match listener.accept() {
                Ok((stream, _)) => admit(stream, &shared, &mut threads),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                // WouldBlock: drained. Other errors (EMFILE, ...): try
                // again at the next wake-up rather than spin.
                Err(_) => break,
            }
        }
        threads.retain(|t| !t.is_finished());
    }
    for s in lock(&shared.conns).values() {
        let _ = s.shutdown(std::net::Shutdown::Both);
    }
    for t in threads {
        let _ = t.join();
    }
}

/// Releases a client slot when the client thread ends, however it ends.
struct Slot {
    shared: Arc<Shared>,
    id: u64,
    /// `None`: an ADMIN1 slot; else the uid counted in `per_user`.
    uid: Option<u32>,
}

impl Drop for Slot {
    fn drop(&mut self) {
        lock(&self.shared.conns).remove(&self.id);
        match self.uid {
            None => {
                self.shared.admin_active.fetch_sub(1, Ordering::SeqCst);
            }
            Some(uid) => {
                let mut per = lock(&self.shared.per_user);
                if let Some(n) = per.get_mut(&uid) {
                    *n -= 1;
                    if *n == 0 {
                        per.remove(&uid);
                    }
                }
                drop(per);
                self.shared.active.fetch_sub(1, Ordering::SeqCst);
            }
        }
    }
}

/// Takes a slot for a client of `uid`: ADMIN1's own, else one within the
/// user's and everyone's limits; `Err` says which limit was reached.
fn take_slot(shared: &Arc<Shared>, uid: u32) -> Result<Option<u32>, String> {
    let view = shared.backend.published();
    // Root and the RM's user need no name; ADMIN1 by name is looked up
    // only when a limit would refuse the client (a name service may be
    // slow, and this is the accepting thread).
    let admin1 = || {
        uid == 0
            || uid == view.host_uid
            || auth::user_name(uid).is_some_and(|u| view.cfg.params.admin1.contains(&u))
    };
    let mut per = lock(&shared.per_user);
    let mine = per.get(&uid).copied().unwrap_or(0);
    let limited = if mine >= MAX_PER_USER {
        Some(format!(
            "you have {MAX_PER_USER} requests being served already (the most one user may have)"
        ))
    } else if shared.active.load(Ordering::SeqCst) >= MAX_CLIENTS {
        Some(format!(
            "the scheduler is serving {MAX_CLIENTS} clients already"
        ))
    } else {
        None
    };
    match limited {
        None => {
            *per.entry(uid).or_insert(0) += 1;
            shared.active.fetch_add(1, Ordering::SeqCst);
            Ok(Some(uid))
        }
        Some(why) => {
            drop(per);
            if admin1() {
                if shared.admin_active.fetch_add(1, Ordering::SeqCst) < MAX_CLIENTS {
                    return Ok(None);
                }
                shared.admin_active.fetch_sub(1, Ordering::SeqCst);
                return Err(format!(
                    "the scheduler is serving {MAX_CLIENTS} ADMIN1 clients already"
                ));
            }
            Err(why)
        }
    }
}

/// Answers `busy` without waiting on the client (the accepting thread
/// serves everyone): the answer is queued, the request the client may
/// have sent already is drained and the connection closed, so the client
/// reads the answer instead of a reset.
fn refuse_busy(stream: &UnixStream, why: &str) {
    let r = Response::error(ErrorCode::Busy, format!("{why}: try again in a moment"));
    let bytes = r.encode();
    super::sys::send(stream, &bytes, libc::MSG_DONTWAIT | libc::MSG_NOSIGNAL);
    let _ = stream.shutdown(std::net::Shutdown::Write);
    let mut sink = [0u8; 4096];
    for _ in 0..16 {
        if super::sys::recv(stream, &mut sink, libc::MSG_DONTWAIT) <= 0 {
            break;
        }
    }
}

fn admit(stream: UnixStream, shared: &Arc<Shared>, threads: &mut Vec<JoinHandle<()>>) {
    let _ = stream.set_nonblocking(false);
    let Ok((_, uid, _)) = auth::peer_credentials(&stream) else {
        return;
    };
    let uid = match take_slot(shared, uid) {
        Ok(u) => u,
        Err(why) => return refuse_busy(&stream, &why),
    };
    let id = shared.next_id.fetch_add(1, Ordering::SeqCst);
    if let Ok(c) = stream.try_clone() {
        lock(&shared.conns).insert(id, c);
    }
    let slot = Slot {
        shared: shared.clone(),
        id,
        uid,
    };
    let spawned = std::thread::Builder::new()
        .name("mauisched-admin-client".into())
        .spawn(move || {
            let slot = slot;
            serve(stream, &slot.shared);
        });
    // On failure the closure (and its Slot) was dropped: the slot is free.
    if let Ok(t) = spawned {
        threads.push(t);
    }
}

/// Why a request line could not be read.
enum ReadFail {
    TooLarge,
    Timeout,
    Closed,
}

fn read_line(stream: &UnixStream, deadline: Instant) -> Result<Vec<u8>, ReadFail> {
    let mut buf: Vec<u8> = Vec::new();
    let mut chunk = [0u8; 8192];
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(ReadFail::Timeout);
        }
        let _ = stream.set_read_timeout(Some(left));
        match (&*stream).read(&mut chunk) {
            Ok(0) if buf.is_empty() => return Err(ReadFail::Closed),
            // A client may end its request by closing its side.
            Ok(0) => return Ok(buf),
            Ok(n) => {
                if let Some(i) = chunk[..n].iter().position(|b| *b == b'\n') {
                    buf.extend_from_slice(&chunk[..i]);
                    if buf.len() > MAX_REQUEST_BYTES {
                        return Err(ReadFail::TooLarge);
                    }
                    return Ok(buf);
                }
                buf.extend_from_slice(&chunk[..n]);
                if buf.len() > MAX_REQUEST_BYTES {
                    return Err(ReadFail::TooLarge);
                }
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
                ) =>
            {
                return Err(ReadFail::Timeout)
            }
            Err(_) => return Err(ReadFail::Closed),
        }
    }
}

/// Writes everything or gives up at `deadline`; never raises SIGPIPE.
fn send_all(stream: &UnixStream, mut bytes: &[u8], deadline: Instant) -> io::Result<()> {
    while !bytes.is_empty() {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(io::ErrorKind::TimedOut.into());
        }
        stream.set_write_timeout(Some(left))?;
        let n = super::sys::send(stream, bytes, libc::MSG_NOSIGNAL);
        if n < 0 {
            let e = io::Error::last_os_error();
            if e.kind() == io::ErrorKind::Interrupted {
                continue;
            }
            return Err(e);
        }
        bytes = &bytes[n as usize..];
    }
    Ok(())
}

/// The caller behind a connection.
fn caller(stream: &UnixStream, shared: &Shared) -> Option<Caller> {
    let (pid, uid, _) = auth::peer_credentials(stream).ok()?;
    let user = auth::name_of(uid);
    let view = shared.backend.published();
    let level = auth::level_of(&view.cfg, uid, &user, view.host_uid);
    Some(Caller {
        uid,
        pid,
        user,
        level,
    })
}

fn serve(stream: UnixStream, shared: &Shared) {
    let secs = shared
        .backend
        .published()
        .cfg
        .params
        .client_timeout
        .0
        .clamp(1, 60) as u64;
    let limit = Duration::from_secs(secs);
    let request_secs = secs.min(REQUEST_SECS);
    let deadline = Instant::now() + Duration::from_secs(request_secs);
    let Some(who) = caller(&stream, shared) else {
        return;
    };
    let resp = match read_line(&stream, deadline) {
        Ok(line) => match protocol::parse_request(&line) {
            Ok(req) => super::dispatch(shared.backend.as_ref(), &who, &req),
            Err(e) => Response::error(e.code, e.message),
        },
        Err(ReadFail::Closed) => return,
        Err(ReadFail::TooLarge) => Response::error(
            ErrorCode::TooLarge,
            format!("the request line is longer than {MAX_REQUEST_BYTES} bytes"),
        ),
        Err(ReadFail::Timeout) => Response::error(
            ErrorCode::Timeout,
            format!("no complete request within {request_secs} s"),
        ),
    };
    let mut resp = resp;
    resp.user.get_or_insert_with(|| who.user.clone());
    resp.level.get_or_insert_with(|| who.level.name().into());
    let _ = send_all(&stream, &resp.encode(), Instant::now() + limit);
    let _ = stream.shutdown(std::net::Shutdown::Both);
}
