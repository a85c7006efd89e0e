//! The libc calls the admin socket needs (and the state directory's lock,
//! [`try_lock_exclusive`]), behind safe functions: the only `unsafe` code
//! outside the C ABI.

use std::os::fd::AsRawFd;

/// The peer's (pid, uid, gid) from the kernel.
pub fn peer_credentials(sock: &impl AsRawFd) -> std::io::Result<(i32, u32, u32)> {
    let mut cred = libc::ucred {
        pid: 0,
        uid: 0,
        gid: 0,
    };
    let mut len = std::mem::size_of::<libc::ucred>() as libc::socklen_t;
    // SAFETY: getsockopt writes at most `len` bytes into `cred`, which is
    // a properly sized and aligned ucred.
    let rc = unsafe {
        libc::getsockopt(
            sock.as_raw_fd(),
            libc::SOL_SOCKET,
            libc::SO_PEERCRED,
            (&mut cred as *mut libc::ucred).cast(),
            &mut len,
        )
    };
    if rc != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok((cred.pid, cred.uid, cred.gid))
}

/// The name of a uid from the password database (NSS), if it has one.
pub fn user_name(uid: u32) -> Option<String> {
    let mut buf: Vec<u8> = vec![0; 1024];
    loop {
        // SAFETY: passwd is plain data; getpwuid_r fills it with pointers
        // into `buf`, which outlives every use below.
        let mut pwd: libc::passwd = unsafe { std::mem::zeroed() };
        let mut result: *mut libc::passwd = std::ptr::null_mut();
        let rc = unsafe {
            libc::getpwuid_r(
                uid,
                &mut pwd,
                buf.as_mut_ptr().cast(),
                buf.len(),
                &mut result,
            )
        };
        if rc == libc::ERANGE && buf.len() < 1 << 20 {
            buf.resize(buf.len() * 4, 0);
            continue;
        }
        if rc != 0 || result.is_null() || pwd.pw_name.is_null() {
            return None;
        }
        // SAFETY: pw_name points to a NUL-terminated string inside `buf`.
        let name = unsafe { std::ffi::CStr::from_ptr(pwd.pw_name) };
        return Some(name.to_string_lossy().into_owned());
    }
}

/// The uid this process runs as (effective).
pub fn own_uid() -> u32 {
    // SAFETY: geteuid has no preconditions and cannot fail.
    unsafe { libc::geteuid() }
}

/// Waits until one of `fds` is ready (`poll(2)` without a timeout); returns
/// poll's result (negative on error, with `errno` set).
pub fn poll(fds: &mut [libc::pollfd]) -> i32 {
    // SAFETY: fds is a valid, exclusively borrowed slice of pollfd for the
    // call, and its length is passed with it.
    unsafe { libc::poll(fds.as_mut_ptr(), fds.len() as libc::nfds_t, -1) }
}

/// `send(2)` of `bytes` on `sock` with `flags`; returns the bytes sent, or
/// a negative value with `errno` set.
pub fn send(sock: &impl AsRawFd, bytes: &[u8], flags: i32) -> isize {
    // SAFETY: sending from a valid buffer of `bytes.len()` bytes on a
    // socket the caller owns.
    unsafe { libc::send(sock.as_raw_fd(), bytes.as_ptr().cast(), bytes.len(), flags) }
}

/// `recv(2)` into `buf` with `flags`; the byte count, or -1 (errno set).
pub fn recv(sock: &impl AsRawFd, buf: &mut [u8], flags: i32) -> isize {
    // SAFETY: receiving into a valid buffer of `buf.len()` bytes on a
    // socket the caller owns.
    unsafe { libc::recv(sock.as_raw_fd(), buf.as_mut_ptr().cast(), buf.len(), flags) }
}

/// Takes an exclusive `flock(2)` on `file` without waiting: `Ok(false)`
/// when another open file description holds it (this process or another).
/// The lock goes when the file is closed.
pub fn try_lock_exclusive(file: &impl AsRawFd) -> std::io::Result<bool> {
    // SAFETY: flock on a descriptor the caller owns; no memory is involved.
    if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } == 0 {
        return Ok(true);
    }
    let e = std::io::Error::last_os_error();
    if e.kind() == std::io::ErrorKind::WouldBlock {
        Ok(false)
    } else {
        Err(e)
    }
}

/// A pipe, both ends non-blocking and closed on exec: (read, write).
pub fn nonblocking_pipe() -> std::io::Result<(std::os::fd::OwnedFd, std::os::fd::OwnedFd)> {
    use std::os::fd::FromRawFd;
    let mut fds = [0 as libc::c_int; 2];
    // SAFETY: pipe2 writes two descriptors into the two-int array.
    let rc = unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_NONBLOCK | libc::O_CLOEXEC) };
    if rc != 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: both are fresh descriptors nobody else owns.
    Ok(unsafe {
        (
            std::os::fd::OwnedFd::from_raw_fd(fds[0]),
            std::os::fd::OwnedFd::from_raw_fd(fds[1]),
        )
    })
}
