//! Every file the scheduler writes or reads back: the state directory and
//! its checkpoint (here), the fairshare windows ([`fairshare`]) and the
//! administrative reservation store ([`admin`]).
//!
//! Layout under the state directory (Slurm: `<StateSaveLocation>/mauisched`):
//!
//! ```text
//! maui.ck            checkpoint (CHECKPOINTFILE), JSON, written atomically
//! stats/FS.<epoch>   fairshare windows (STATDIR)
//! fairshare.journal  fairshare accrued since the checkpoint ([`journal`])
//! maui.cfg.last-good the last maui.cfg that loaded without errors
//! run/               admin socket, the handle's lock, other runtime files
//! ```
//!
//! Every write goes through [`crate::util::atomic_write`], so a crash at any
//! point leaves the old or the new file. A checkpoint that cannot be read is
//! reported with its path and moved aside as `<name>.corrupt-<epoch>`, never
//! overwritten, and the engine starts from the fairshare files alone. A
//! fairshare window that cannot be used (damaged, from the future, absurd
//! values) is moved aside the same way, as `FS.<start>.corrupt-<epoch>`
//! ([`fairshare::move_aside`]).
//!
//! How the service uses it ([`crate::service`]): the checkpoint holds the
//! engine's [`crate::engine::EngineState`] without its fairshare windows
//! (admin reservations, standing reservation claims, job first-seen times
//! and accrued queue time, bypass counts, system priorities, the time of the
//! last iteration, up to which fairshare usage is accrued); the `FS.<epoch>`
//! files are the source of truth for fairshare, brought up to the last
//! iteration by the journal's records. Both are written at most once per
//! iteration (the service's first, after an administrative change, else
//! every CHECKPOINTINTERVAL), FS files first, then the journal is emptied,
//! and when the service shuts down; every other iteration appends to the
//! journal; the directory is locked (`run/lock`) while a service
//! uses it. The last good maui.cfg is the service's too
//! ([`crate::service::LAST_GOOD_CONFIG`]).

pub mod admin;
pub mod fairshare;
pub mod journal;

use crate::config::Config;
use crate::model::Time;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

/// Moves a state file that cannot be trusted aside as
/// `<path>.corrupt-<now>` (`.1`, `.2`... added when taken), never
/// overwriting anything; returns the new path.
pub(crate) fn rename_aside(path: &Path, now: Time) -> io::Result<PathBuf> {
    let base = format!("{}.corrupt-{now}", path.display());
    let mut to = PathBuf::from(&base);
    let mut n = 1;
    while to.exists() {
        to = PathBuf::from(format!("{base}.{n}"));
        n += 1;
    }
    fs::rename(path, &to)?;
    Ok(to)
}

/// Format version of the checkpoint envelope.
pub const CHECKPOINT_VERSION: u32 = 1;

/// Problems opening or writing the state directory.
#[derive(Debug, thiserror::Error)]
pub enum StateError {
    /// The directory cannot be created or used.
    #[error("state directory {path}: {source}")]
    Dir {
        /// Directory.
        path: String,
        /// Cause.
        source: io::Error,
    },
    /// A file cannot be written.
    #[error("{path}: {source}")]
    Write {
        /// File.
        path: String,
        /// Cause.
        source: io::Error,
    },
}

/// Something worth reporting that did not stop the start.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StateNotice {
    /// The directory did not exist and was created.
    Created(PathBuf),
    /// No checkpoint yet (first start).
    NoCheckpoint(PathBuf),
    /// The checkpoint could not be read; it was moved aside.
    CorruptCheckpoint {
        /// Where it was.
        path: PathBuf,
        /// Where it is now.
        moved_to: PathBuf,
        /// Why it could not be read.
        reason: String,
    },
}

impl std::fmt::Display for StateNotice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StateNotice::Created(p) => write!(f, "created state directory {}", p.display()),
            StateNotice::NoCheckpoint(p) => write!(f, "no checkpoint at {} (first start)", p.display()),
            StateNotice::CorruptCheckpoint { path, moved_to, reason } => write!(
                f,
                "checkpoint {} cannot be read ({reason}); moved aside to {}; starting from the fairshare files alone",
                path.display(),
                moved_to.display()
            ),
        }
    }
}

/// The checkpoint envelope: version and time around the engine's payload.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Envelope<T> {
    /// Format version.
    pub version: u32,
    /// When it was written.
    pub saved_at: Time,
    /// The engine state.
    pub state: T,
}

/// An opened state directory.
#[derive(Clone, Debug)]
pub struct StateDir {
    root: PathBuf,
    checkpoint: PathBuf,
    stats: PathBuf,
}

fn resolve(root: &Path, name: &str) -> PathBuf {
    let p = Path::new(name);
    if p.is_absolute() {
        p.to_path_buf()
    } else {
        root.join(p)
    }
}

impl StateDir {
    /// Opens (creating if needed) the state directory and its subdirectories.
    pub fn open(root: &Path, cfg: &Config) -> Result<(StateDir, Vec<StateNotice>), StateError> {
        let mut notices = Vec::new();
        let err = |path: &Path, source| StateError::Dir {
            path: path.display().to_string(),
            source,
        };
        if !root.exists() {
            fs::create_dir_all(root).map_err(|e| err(root, e))?;
            notices.push(StateNotice::Created(root.to_path_buf()));
        }
        if !root.is_dir() {
            return Err(err(root, io::Error::other("not a directory")));
        }
        let dir = StateDir {
            root: root.to_path_buf(),
            checkpoint: resolve(root, &cfg.params.checkpoint_file),
            stats: resolve(root, &cfg.params.stat_dir),
        };
        for d in [dir.stats.clone(), dir.run_dir()] {
            fs::create_dir_all(&d).map_err(|e| err(&d, e))?;
        }
        Ok((dir, notices))
    }

    /// The directory itself.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Fairshare and statistics files (STATDIR).
    pub fn stats_dir(&self) -> &Path {
        &self.stats
    }

    /// Runtime files (admin socket).
    pub fn run_dir(&self) -> PathBuf {
        self.root.join("run")
    }

    /// Path of the checkpoint file (CHECKPOINTFILE).
    #[cfg(test)]
    pub fn checkpoint_path(&self) -> &Path {
        &self.checkpoint
    }

    /// Reads the checkpoint. A missing file gives `None` with a notice; an
    /// unreadable one is moved aside (never overwritten) and reported.
    pub fn load_checkpoint<T: DeserializeOwned>(
        &self,
        now: Time,
    ) -> (Option<Envelope<T>>, Vec<StateNotice>) {
        let path = &self.checkpoint;
        let bytes = match fs::read(path) {
            Ok(b) => b,
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                return (None, vec![StateNotice::NoCheckpoint(path.clone())]);
            }
            Err(e) => return (None, vec![self.move_aside(now, e.to_string())]),
        };
        let parsed: Result<Envelope<T>, String> =
            serde_json::from_slice::<Envelope<serde_json::Value>>(&bytes)
                .map_err(|e| e.to_string())
                .and_then(|env| {
                    if env.version != CHECKPOINT_VERSION {
                        return Err(format!(
                            "checkpoint format version {} (this build reads {})",
                            env.version, CHECKPOINT_VERSION
                        ));
                    }
                    let state = serde_json::from_value(env.state).map_err(|e| e.to_string())?;
                    Ok(Envelope {
                        version: env.version,
                        saved_at: env.saved_at,
                        state,
                    })
                });
        match parsed {
            Ok(env) => (Some(env), Vec::new()),
            Err(reason) => (None, vec![self.move_aside(now, reason)]),
        }
    }

    fn move_aside(&self, now: Time, reason: String) -> StateNotice {
        match rename_aside(&self.checkpoint, now) {
            Ok(moved_to) => StateNotice::CorruptCheckpoint {
                path: self.checkpoint.clone(),
                moved_to,
                reason,
            },
            Err(e) => StateNotice::CorruptCheckpoint {
                path: self.checkpoint.clone(),
                moved_to: self.checkpoint.clone(),
                reason: format!("{reason}; moving it aside failed too: {e}"),
            },
        }
    }

    /// Writes the checkpoint atomically.
    pub fn save_checkpoint<T: Serialize>(&self, now: Time, state: &T) -> Result<(), StateError> {
        let env = Envelope {
            version: CHECKPOINT_VERSION,
            saved_at: now,
            state,
        };
        let bytes = serde_json::to_vec(&env).map_err(|e| StateError::Write {
            path: self.checkpoint.display().to_string(),
            source: io::Error::new(io::ErrorKind::InvalidData, e),
        })?;
        crate::util::atomic_write(&self.checkpoint, &bytes).map_err(|source| StateError::Write {
            path: self.checkpoint.display().to_string(),
            source,
        })
    }
}

#[cfg(test)]
mod tests;
