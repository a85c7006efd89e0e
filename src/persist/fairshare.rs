//! Fairshare window files: `FS.<EPOCHTIME>` in Maui's format (guide 6.3.2.3).
//!
//! ```text
//! # Fairshare Data File (Duration: 172800 Seconds) Starting: Fri Aug 18 18:00:00
//!
//! User USERA 150000.000
//! Group GROUPA 350000.000
//! Account ACCTA 300000.000
//! QOS 0 50000.000
//! Class batch 20000.000
//! TOTAL 600000.000
//! ```
//!
//! `<EPOCHTIME>` is the window's start. Lines are `<Kind> <name> <usage>`
//! (kind in any case; `Acct`, `Queue` and the other spellings
//! [`CredKind::parse`] knows are read too) and one `TOTAL <usage>`; `#`
//! starts a comment, and the header's `Duration` gives the FSINTERVAL the
//! window was written with. A file written under another FSINTERVAL is used
//! as one window until it rolls out, and reported as a note. A file that
//! cannot be read (bad line, no TOTAL, name `FS.<not a number>`) is reported
//! with its line and left out: a damaged window must not skew everyone's
//! priority. So is a window from the future (more than a day ahead of the
//! clock) or one holding values no cluster records (a credential above
//! TOTAL, more than a hundred million processors' worth): the service moves
//! such files aside as `FS.<start>.corrupt-<now>`, as it does a corrupt
//! checkpoint, so the next save starts the window afresh and never
//! overwrites them. Files are written atomically (temporary file, fsync,
//! rename).

use crate::config::Config;
use crate::fairshare::{Fairshare, Window, MAX_FSDEPTH};
use crate::model::time::Zone;
use crate::model::{CredKind, Secs, Time};
use crate::util::atomic_write;
use std::collections::BTreeMap;
use std::io;
use std::path::{Path, PathBuf};

/// A problem found in a fairshare directory.
#[derive(Clone, Debug, PartialEq)]
pub struct FsFileIssue {
    /// The file.
    pub path: PathBuf,
    /// 1-based line, 0 for the file as a whole.
    pub line: u32,
    /// What is wrong.
    pub message: String,
    /// True when the file was left out; false for a note about a file used.
    pub skipped: bool,
    /// Where a refused window file was moved ([`move_aside`]).
    pub moved_to: Option<PathBuf>,
}

impl std::fmt::Display for FsFileIssue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.path.display())?;
        if self.line > 0 {
            write!(f, ":{}", self.line)?;
        }
        let what = if self.skipped { "error" } else { "note" };
        write!(f, ": {what}: {}", self.message)?;
        match (&self.moved_to, self.skipped) {
            (Some(to), _) => write!(f, " (moved aside to {})", to.display())?,
            (None, true) => f.write_str(" (file ignored)")?,
            (None, false) => {}
        }
        Ok(())
    }
}

/// The name Maui writes for a kind.
fn kind_word(kind: CredKind) -> &'static str {
    match kind {
        CredKind::User => "User",
        CredKind::Group => "Group",
        CredKind::Account => "Account",
        CredKind::Qos => "QOS",
        CredKind::Class => "Class",
    }
}

/// The file name of a window.
pub fn file_name(start: Time) -> String {
    format!("FS.{start}")
}

/// Renders a window in Maui's format (the start in local time).
pub fn render(w: &Window, zone: &Zone) -> String {
    let mut s = format!(
        "# Fairshare Data File (Duration: {} Seconds) Starting: {}\n\n",
        w.duration,
        zone.fmt(w.start)
    );
    for (kind, m) in &w.usage {
        for (name, v) in m {
            s.push_str(&format!("{} {} {:.3}\n", kind_word(*kind), name, v));
        }
    }
    s.push_str(&format!("TOTAL {:.3}\n", w.total));
    s
}

fn parse_amount(tok: &str) -> Result<f64, String> {
    match tok.parse::<f64>() {
        Ok(v) if v.is_finite() && v >= 0.0 => Ok(v),
        _ => Err(format!(
            "expected a usage amount (a number >= 0), got \"{tok}\""
        )),
    }
}

/// Reads one window file's text. `start` comes from the file name;
/// `default_duration` is used when the header gives none. Errors carry
/// the 1-based line.
pub fn parse(text: &str, start: Time, default_duration: i64) -> Result<Window, (u32, String)> {
    let mut w = Window {
        start,
        duration: default_duration,
        ..Window::default()
    };
    let mut total = None;
    let mut seen: BTreeMap<(CredKind, String), u32> = BTreeMap::new();
    for (i, raw) in text.lines().enumerate() {
        let ln = i as u32 + 1;
        let line = raw.trim();
        if let Some(c) = line.strip_prefix('#') {
            if let Some(rest) = c.split("Duration:").nth(1) {
                let tok = rest.split_whitespace().next().unwrap_or("");
                match tok.parse::<i64>() {
                    Ok(d) if d > 0 => w.duration = d,
                    _ => return Err((ln, format!("bad Duration \"{tok}\" in the header"))),
                }
            }
            continue;
        }
        if line.is_empty() {
            continue;
        }
        let toks: Vec<&str> = line.split_whitespace().collect();
        if toks[0].eq_ignore_ascii_case("TOTAL") {
            if toks.len() != 2 {
                return Err((ln, "expected \"TOTAL <usage>\"".into()));
            }
            if total.is_some() {
                return Err((ln, "a second TOTAL line".into()));
            }
            total = Some(parse_amount(toks[1]).map_err(|m| (ln, m))?);
            continue;
        }
        let kind = CredKind::parse(toks[0]).ok_or_else(|| {
            (
                ln,
                format!(
                    "unknown credential kind \"{}\" (expected User, Group, Account, QOS, Class or TOTAL)",
                    toks[0]
                ),
            )
        })?;
        if toks.len() < 3 {
            return Err((ln, format!("expected \"{} <name> <usage>\"", toks[0])));
        }
        let v = parse_amount(toks[toks.len() - 1]).map_err(|m| (ln, m))?;
        let name = toks[1..toks.len() - 1].join(" ");
        if let Some(first) = seen.insert((kind, name.clone()), ln) {
            return Err((
                ln,
                format!(
                    "{} {name} appears twice (first on line {first})",
                    kind_word(kind)
                ),
            ));
        }
        w.usage.entry(kind).or_default().insert(name, v);
    }
    w.total = total.ok_or((0, "no TOTAL line".to_string()))?;
    Ok(w)
}

/// How far ahead of the clock a window may start and still be read: a
/// clock stepped back a little must not throw the current window away,
/// while a window of another year (a file named by hand, a clock that was
/// wildly wrong) would take every later save and skew everyone's priority.
pub const FUTURE_SLACK: Secs = 86_400;

/// The longest window a file may claim (its header's Duration): a year.
pub const MAX_DURATION: Secs = 366 * 86_400;

/// The most usage a window may hold per second of its duration: a hundred
/// million processors busy the whole window. More is not a record of a
/// real cluster but damage (`1e300`), and is refused.
pub const MAX_RATE: f64 = 1e8;

/// The suffix a refused window file is moved aside with
/// (`FS.<start>.corrupt-<now>`); such files are not read again.
const CORRUPT_SUFFIX: &str = ".corrupt-";

fn refused(path: PathBuf, line: u32, message: String) -> FsFileIssue {
    FsFileIssue {
        path,
        line,
        message,
        skipped: true,
        moved_to: None,
    }
}

/// Checks a parsed window against what a real cluster can record: no
/// credential above the window's TOTAL, no TOTAL above [`MAX_RATE`] per
/// second of the window, no Duration above [`MAX_DURATION`].
pub(super) fn plausible(w: &Window) -> Result<(), String> {
    if w.duration > MAX_DURATION {
        return Err(format!(
            "a window of {} seconds is longer than a year: not a window mauisched or Maui wrote",
            w.duration
        ));
    }
    let most = MAX_RATE * w.duration as f64;
    if w.total > most {
        return Err(format!(
            "TOTAL {} is more than {MAX_RATE:e} processors busy for the whole {}-second window: not a usage record",
            amount(w.total),
            w.duration
        ));
    }
    // The file keeps three decimals: allow the rounding.
    let cap = w.total * (1.0 + 1e-9) + 0.001;
    for (kind, m) in &w.usage {
        if let Some((name, v)) = m.iter().find(|(_, v)| **v > cap) {
            return Err(format!(
                "{} {name} has usage {}, more than the window's TOTAL {}",
                kind_word(*kind),
                amount(*v),
                amount(w.total)
            ));
        }
    }
    Ok(())
}

/// A usage amount for a message: in full up to 1e15, else as `1e300`.
fn amount(v: f64) -> String {
    if v < 1e15 {
        format!("{v}")
    } else {
        format!("{v:e}")
    }
}

/// Moves a refused window file aside as `FS.<start>.corrupt-<now>` (a
/// number added when taken), so that the next save starts the window
/// afresh instead of overwriting what the file held, and records where in
/// the issue. Only files [`Fairshare::load_dir`] refused as windows are
/// moved; a failure to move is added to the message.
pub fn move_aside(issue: &mut FsFileIssue, now: Time) {
    if !issue.skipped || issue.moved_to.is_some() || !is_window_name(&issue.path) {
        return;
    }
    match super::rename_aside(&issue.path, now) {
        Ok(to) => issue.moved_to = Some(to),
        Err(e) => issue
            .message
            .push_str(&format!("; moving it aside failed: {e}")),
    }
}

/// `FS.<digits>`: a window file's name.
fn is_window_name(path: &Path) -> bool {
    path.file_name()
        .and_then(|n| n.to_str())
        .and_then(|n| n.strip_prefix("FS."))
        .is_some_and(|s| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()))
}

impl Fairshare {
    /// Reads the `FS.<EPOCHTIME>` files of `dir` (the newest `MAX_FSDEPTH`
    /// are kept). A missing directory is an empty history. Files that cannot
    /// be used are reported and left out, never silently dropped: a damaged
    /// file, one that starts more than [`FUTURE_SLACK`] after `now` (the
    /// wall clock of the caller), or one whose values no cluster could have
    /// recorded ([`MAX_RATE`], a credential above TOTAL). The caller that
    /// owns the directory moves them aside ([`move_aside`]); a read-only
    /// view leaves them. Files moved aside earlier
    /// (`FS.<epoch>.corrupt-<epoch>`) are skipped quietly; other names in
    /// the directory are not fairshare's business and are ignored.
    pub fn load_dir(
        dir: &Path,
        cfg: &Config,
        now: Time,
    ) -> io::Result<(Fairshare, Vec<FsFileIssue>)> {
        let mut issues = Vec::new();
        let entries = match std::fs::read_dir(dir) {
            Ok(e) => e,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok((Fairshare::new(), issues)),
            Err(e) => return Err(e),
        };
        let mut found: Vec<(Time, PathBuf)> = Vec::new();
        for entry in entries {
            let entry = entry?;
            let name = entry.file_name();
            let Some(name) = name.to_str() else { continue };
            let Some(stamp) = name.strip_prefix("FS.") else {
                continue;
            };
            if stamp
                .split_once(CORRUPT_SUFFIX)
                .is_some_and(|(t, _)| !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit()))
            {
                continue;
            }
            let path = entry.path();
            match stamp.parse::<Time>() {
                Ok(t) if stamp.bytes().all(|b| b.is_ascii_digit()) => found.push((t, path)),
                _ => issues.push(refused(
                    path,
                    0,
                    format!(
                        "not a fairshare window file name (expected FS.<epoch seconds>, got {name})"
                    ),
                )),
            }
        }
        found.sort_by_key(|f| std::cmp::Reverse(f.0));
        // Windows from the future are refused before the newest are kept,
        // so they cannot push real ones out.
        found.retain(|(start, path)| {
            let ahead = *start > now.saturating_add(FUTURE_SLACK);
            if ahead {
                issues.push(refused(
                    path.clone(),
                    0,
                    format!(
                        "the window starts at {start}, more than a day after the clock ({now}): a window from the future is never adopted"
                    ),
                ));
            }
            !ahead
        });
        let interval = cfg.params.fs_interval.0;
        let mut windows = Vec::new();
        for (start, path) in found.into_iter().take(MAX_FSDEPTH) {
            let text = match std::fs::read(&path) {
                Ok(b) => match String::from_utf8(b) {
                    Ok(t) => t,
                    Err(_) => {
                        issues.push(refused(path, 0, "not a text file".into()));
                        continue;
                    }
                },
                Err(e) => {
                    issues.push(refused(path, 0, e.to_string()));
                    continue;
                }
            };
            let w = match parse(&text, start, interval) {
                Ok(w) => w,
                Err((line, message)) => {
                    issues.push(refused(path, line, message));
                    continue;
                }
            };
            if let Err(message) = plausible(&w) {
                issues.push(refused(path, 0, message));
                continue;
            }
            if w.duration != interval {
                issues.push(FsFileIssue {
                    path: path.clone(),
                    line: 0,
                    message: format!(
                        "window of {} seconds written under another FSINTERVAL (now {interval}); used as one window until it rolls out",
                        w.duration
                    ),
                    skipped: false,
                    moved_to: None,
                });
            }
            windows.push(w);
        }
        issues.sort_by(|a, b| a.path.cmp(&b.path).then(a.line.cmp(&b.line)));
        Ok((Fairshare::from_windows(windows), issues))
    }

    /// Writes every window changed since it was last written (the current
    /// one, and the previous one after a roll) to `dir/FS.<start>`,
    /// atomically; creates `dir` if needed. Returns how many were written.
    /// The caller decides how often (every iteration, every checkpoint...).
    pub fn save_dir(&mut self, dir: &Path, zone: &Zone) -> io::Result<usize> {
        let dirty = self.dirty_windows();
        if dirty.is_empty() {
            return Ok(0);
        }
        std::fs::create_dir_all(dir)?;
        let mut n = 0;
        for w in dirty {
            atomic_write(&dir.join(file_name(w.start)), render(&w, zone).as_bytes())?;
            self.written(w.start);
            n += 1;
        }
        Ok(n)
    }
}
