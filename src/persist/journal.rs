//! The fairshare journal: what fairshare accrued since the last
//! checkpoint, so that a crash loses at most the iteration it interrupts.
//!
//! The `FS.<epoch>` files and the checkpoint are written every
//! CHECKPOINTINTERVAL (five minutes by default). In between, each iteration
//! that changed a window appends one record to `fairshare.journal` in the
//! state directory and syncs it before the iteration returns its plan:
//!
//! ```text
//! {"to":1764316800,"windows":[{"start":1764288000,"duration":43200,"usage":{"User":{"alice":1234.0}},"total":5678.0}]}
//! ```
//!
//! `to` is the iteration's time, up to which usage is accrued; each window
//! holds the credentials whose usage changed since the previous record,
//! with their values (not differences) and the window's TOTAL. Replaying a
//! record is therefore idempotent, which is what makes the order of writes
//! safe: at a checkpoint the FS files are written, then the checkpoint, then
//! the journal is emptied; at start the FS files are read, then the
//! checkpoint, and the records with a `to` after the checkpoint's last
//! iteration are applied in order. A crash between any two of those steps
//! leaves records that either are older than the checkpoint (skipped) or
//! hold values at least as recent as the files (applied over them).
//!
//! A record is one line, appended whole and synced (`fdatasync`). A last
//! line without its newline is a record the crash cut short: it is left
//! out with a note (its iteration is the one the crash interrupted). Any
//! other line that cannot be read makes the whole journal untrusted: it is
//! reported and moved aside as `fairshare.journal.corrupt-<epoch>`, and
//! nothing of it is applied.

use super::fairshare::plausible;
use crate::fairshare::{Fairshare, Window};
use crate::model::Time;
use serde::{Deserialize, Serialize};
use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// The journal's file name in the state directory.
pub const JOURNAL_FILE: &str = "fairshare.journal";

/// One iteration's changes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Record {
    /// The iteration's time: usage is accrued up to here.
    pub to: Time,
    /// The windows that changed, with the credentials that changed.
    pub windows: Vec<Window>,
}

/// An open journal, appended to by each iteration.
#[derive(Debug)]
pub struct Journal {
    file: File,
    path: PathBuf,
}

impl Journal {
    /// Opens (creating if missing) the journal for appending.
    pub fn open(path: &Path) -> io::Result<Journal> {
        let file = OpenOptions::new().create(true).append(true).open(path)?;
        Ok(Journal {
            file,
            path: path.to_path_buf(),
        })
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Appends `rec` as one line and syncs it; returns the bytes written.
    pub fn append(&mut self, rec: &Record) -> io::Result<usize> {
        let mut line = serde_json::to_vec(rec).map_err(io::Error::other)?;
        line.push(b'\n');
        self.file.write_all(&line)?;
        self.file.sync_data()?;
        Ok(line.len())
    }

    /// Empties the journal (after a checkpoint holds everything it did).
    pub fn reset(&mut self) -> io::Result<()> {
        self.file.set_len(0)?;
        self.file.sync_all()
    }
}

/// Appends what `fs` accrued since the last call
/// ([`Fairshare::journal_changes`]) as one record accrued up to `to`, and
/// syncs it; returns the bytes written, `None` when nothing changed (no
/// record is needed then: replaying from an older `to` charges nothing
/// that did not change).
pub fn append_changes(j: &mut Journal, fs: &mut Fairshare, to: Time) -> io::Result<Option<usize>> {
    let windows = fs.journal_changes();
    if windows.is_empty() {
        return Ok(None);
    }
    j.append(&Record { to, windows }).map(Some)
}

/// What reading the journal found.
#[derive(Debug, Default, PartialEq)]
pub struct Read {
    /// The records, in the order written.
    pub records: Vec<Record>,
    /// A note about a record cut short by a crash (left out).
    pub torn: Option<String>,
    /// Why the journal cannot be trusted (nothing of it is used); the
    /// caller moves it aside.
    pub corrupt: Option<String>,
}

/// Reads the journal at `path` (missing: no records). `now` is the clock:
/// a record from more than [`super::fairshare::FUTURE_SLACK`] after it,
/// or one whose windows no cluster could have recorded, makes the journal
/// untrusted, as a line that cannot be parsed does.
pub fn read(path: &Path, now: Time) -> io::Result<Read> {
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Read::default()),
        Err(e) => return Err(e),
    };
    let mut out = Read::default();
    let mut rest = &bytes[..];
    let mut line_no = 0u32;
    while !rest.is_empty() {
        line_no += 1;
        let Some(end) = rest.iter().position(|b| *b == b'\n') else {
            out.torn = Some(format!(
                "{}:{line_no}: the last record ({} bytes) was cut short by a crash and is left out",
                path.display(),
                rest.len()
            ));
            break;
        };
        let (line, next) = (&rest[..end], &rest[end + 1..]);
        rest = next;
        let checked = serde_json::from_slice::<Record>(line)
            .map_err(|e| e.to_string())
            .and_then(|r| check(&r, now).map(|()| r));
        match checked {
            Ok(r) => out.records.push(r),
            Err(why) => {
                out.records.clear();
                out.corrupt = Some(format!("{}:{line_no}: {why}", path.display()));
                break;
            }
        }
    }
    Ok(out)
}

fn check(r: &Record, now: Time) -> Result<(), String> {
    if r.to > now.saturating_add(super::fairshare::FUTURE_SLACK) {
        return Err(format!(
            "a record of {} is more than a day after the clock ({now})",
            r.to
        ));
    }
    for w in &r.windows {
        if w.duration <= 0 {
            return Err(format!("window {}: duration {}", w.start, w.duration));
        }
        let bad = |v: f64| !v.is_finite() || v < 0.0;
        if bad(w.total) || w.usage.values().flat_map(|m| m.values()).any(|v| bad(*v)) {
            return Err(format!(
                "window {}: a usage that is not a number >= 0",
                w.start
            ));
        }
        plausible(w).map_err(|m| format!("window {}: {m}", w.start))?;
    }
    Ok(())
}
