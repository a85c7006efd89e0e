//! Iteration on demand: a pipe whose read end a front end polls beside the
//! RM's events. An operator's change that waits for the next iteration
//! (sethold, releasehold, runjob, setspri, setres, releaseres, schedctl)
//! writes a byte, so the front end runs that iteration at once instead of
//! at its next poll.

use std::fs::File;
use std::io::{self, Read, Write};
use std::os::fd::{AsRawFd, RawFd};

/// The pipe (both ends non-blocking, closed on exec).
#[derive(Debug)]
pub struct Wakeup {
    read: File,
    write: File,
}

impl Wakeup {
    /// A new pipe.
    pub fn new() -> io::Result<Wakeup> {
        let (read, write) = crate::admin::sys::nonblocking_pipe()?;
        Ok(Wakeup {
            read: File::from(read),
            write: File::from(write),
        })
    }

    /// The end the front end polls.
    pub fn fd(&self) -> RawFd {
        self.read.as_raw_fd()
    }

    /// Makes the read end readable (a full pipe already is: nothing lost).
    pub fn notify(&self) {
        let _ = (&self.write).write(&[1]);
    }

    /// Empties the pipe; true when it held anything.
    pub fn drain(&self) -> bool {
        let mut buf = [0u8; 64];
        let mut any = false;
        while let Ok(n) = (&self.read).read(&mut buf) {
            if n == 0 {
                break;
            }
            any = true;
        }
        any
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_notification_is_seen_once_and_many_do_not_block() {
        let w = Wakeup::new().unwrap();
        assert!(!w.drain());
        w.notify();
        assert!(w.drain());
        assert!(!w.drain());
        // More than a pipe holds: the writer never blocks.
        for _ in 0..100_000 {
            w.notify();
        }
        assert!(w.drain());
    }
}
