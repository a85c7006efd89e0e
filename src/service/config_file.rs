//! Loading maui.cfg, and keeping the last one that loaded cleanly.
//!
//! A maui.cfg with errors is refused on reconfigure and the configuration
//! in force stays. That needs one in memory: when the host restarts the
//! scheduler (Slurm 24.11 restarts slurmctld on `scontrol reconfigure`) a
//! broken file would leave none. So every maui.cfg that loads without
//! errors is copied, byte for byte and atomically, to
//! [`LAST_GOOD_CONFIG`] in the state directory, and a service opened on a
//! broken maui.cfg runs on that copy, reporting the site file's errors.

use super::{lock, Error, ErrorKind, LogLevel, Notes};
use crate::config::{Config, ConfigError, Diagnostic};
use std::path::Path;

/// The last maui.cfg that loaded without errors, in the state directory.
pub const LAST_GOOD_CONFIG: &str = "maui.cfg.last-good";

/// A configuration error as the service reports it.
fn config_error(e: ConfigError) -> Error {
    let kind = match e {
        ConfigError::Io { .. } => ErrorKind::Io,
        ConfigError::Invalid(_) => ErrorKind::Config,
    };
    Error::new(kind, e.to_string())
}

/// Reads and parses maui.cfg, refusing a file with errors: the
/// configuration, its warnings and notes, and the bytes it was read from.
pub(super) fn load(path: &Path) -> Result<(Config, Vec<Diagnostic>, Vec<u8>), Error> {
    let bytes = std::fs::read(path).map_err(|source| {
        config_error(ConfigError::Io {
            path: path.display().to_string(),
            source,
        })
    })?;
    let mut loaded = Config::parse_bytes(&bytes, &path.display().to_string());
    if !loaded.is_ok() {
        let errors = loaded.errors().cloned().collect();
        return Err(config_error(ConfigError::Invalid(errors)));
    }
    loaded.use_host_zone();
    Ok((loaded.config, loaded.diagnostics, bytes))
}

/// The configuration a service opens with.
pub(super) struct AtOpen {
    /// The configuration.
    pub config: Config,
    /// Its warnings and notes.
    pub diagnostics: Vec<Diagnostic>,
    /// The site's maui.cfg as read, when it is the one in force (to be
    /// kept as the last good copy).
    pub bytes: Option<Vec<u8>>,
    /// Why the site's maui.cfg is not in force, when the last good copy
    /// is.
    pub fallback: Option<String>,
    /// Then also the site file's errors alone (as a refused reconfigure
    /// of the same file reports them).
    pub refused: Option<String>,
}

/// The site's maui.cfg; when it has errors and the
/// state directory holds a last good copy that loads, that copy, with the
/// site file's errors in `fallback`. Without a usable copy the site file's
/// error is returned.
pub(super) fn load_at_open(path: &Path, state_dir: &Path) -> Result<AtOpen, Error> {
    let refused = match load(path) {
        Ok((config, diagnostics, bytes)) => {
            return Ok(AtOpen {
                config,
                diagnostics,
                bytes: Some(bytes),
                fallback: None,
                refused: None,
            })
        }
        Err(e) => e,
    };
    let copy = state_dir.join(LAST_GOOD_CONFIG);
    // Only a file with errors: an unreadable one (a wrong path, say) is
    // reported as it always was.
    if refused.kind != ErrorKind::Config || !copy.is_file() {
        return Err(refused);
    }
    let Ok((config, diagnostics, _)) = load(&copy) else {
        // A copy that does not load (edited by hand?) is no fallback.
        return Err(refused);
    };
    let fallback = format!(
        "{} refused, running on the last good configuration {} until it is fixed (schedctl -R or a reconfigure loads it then):\n{}",
        path.display(),
        copy.display(),
        refused.message
    );
    Ok(AtOpen {
        config,
        diagnostics,
        bytes: None,
        fallback: Some(fallback),
        refused: Some(refused.message),
    })
}

/// Keeps `bytes` (a maui.cfg that loaded without errors) as the last good
/// copy in `state_dir`, atomically, unless the copy there is the same. A
/// failure is logged: it costs the fallback, not the scheduler.
pub(super) fn keep_last_good(state_dir: &Path, bytes: &[u8], notes: &Notes) {
    let copy = state_dir.join(LAST_GOOD_CONFIG);
    if std::fs::read(&copy).is_ok_and(|old| old == bytes) {
        return;
    }
    if let Err(e) = crate::util::atomic_write(&copy, bytes) {
        lock(notes).push((
            LogLevel::Warn,
            format!(
                "{}: the last good configuration could not be kept ({e}); a maui.cfg with errors at the next start will not start the scheduler",
                copy.display()
            ),
        ));
    }
}
