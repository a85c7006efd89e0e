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
//! priority. Files are written atomically (temporary file, fsync, rename).

use crate::config::Config;
use crate::fairshare::{Fairshare, Window, MAX_FSDEPTH};
use crate::model::time::Zone;
use crate::model::{CredKind, Time};
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
}

impl std::fmt::Display for FsFileIssue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.path.display())?;
        if self.line > 0 {
            write!(f, ":{}", self.line)?;
        }
        let what = if self.skipped { "error" } else { "note" };
        write!(f, ": {what}: {}", self.message)?;
        if self.skipped {
            f.write_str(" (file ignored)")?;
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

impl Fairshare {
    /// Reads the `FS.<EPOCHTIME>` files of `dir` (the newest `MAX_FSDEPTH`
    /// are kept). A missing directory is an empty history. Files that cannot
    /// be used are reported and left out, never silently dropped; other
    /// names in the directory are not fairshare's business and are ignored.
    pub fn load_dir(dir: &Path, cfg: &Config) -> io::Result<(Fairshare, Vec<FsFileIssue>)> {
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
            let path = entry.path();
            match stamp.parse::<Time>() {
                Ok(t) if stamp.bytes().all(|b| b.is_ascii_digit()) => found.push((t, path)),
                _ => issues.push(FsFileIssue {
                    path,
                    line: 0,
                    message: format!(
                        "not a fairshare window file name (expected FS.<epoch seconds>, got {name})"
                    ),
                    skipped: true,
                }),
            }
        }
        found.sort_by_key(|f| std::cmp::Reverse(f.0));
        let interval = cfg.params.fs_interval.0;
        let mut windows = Vec::new();
        for (start, path) in found.into_iter().take(MAX_FSDEPTH) {
            let text = match std::fs::read(&path) {
                Ok(b) => match String::from_utf8(b) {
                    Ok(t) => t,
                    Err(_) => {
                        issues.push(FsFileIssue {
                            path,
                            line: 0,
                            message: "not a text file".into(),
                            skipped: true,
                        });
                        continue;
                    }
                },
                Err(e) => {
                    issues.push(FsFileIssue {
                        path,
                        line: 0,
                        message: e.to_string(),
                        skipped: true,
                    });
                    continue;
                }
            };
            match parse(&text, start, interval) {
                Ok(w) => {
                    if w.duration != interval {
                        issues.push(FsFileIssue {
                            path: path.clone(),
                            line: 0,
                            message: format!(
                                "window of {} seconds written under another FSINTERVAL (now {interval}); used as one window until it rolls out",
                                w.duration
                            ),
                            skipped: false,
                        });
                    }
                    windows.push(w);
                }
                Err((line, message)) => issues.push(FsFileIssue {
                    path,
                    line,
                    message,
                    skipped: true,
                }),
            }
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
