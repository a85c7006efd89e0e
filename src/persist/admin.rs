//! The administrative reservation store as a file: what `setres` made,
//! read back after a restart (the checkpoint embeds the same JSON).

use crate::reservation::{AdminError, AdminStore};
use std::path::Path;

impl AdminStore {
    /// The store as JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    /// Reads a store from JSON.
    pub fn from_json(text: &str) -> Result<AdminStore, AdminError> {
        serde_json::from_str(text)
            .map_err(|e| AdminError::Io(format!("admin reservation store: {e}")))
    }

    /// Writes the store to `path` atomically (old or new file, never torn).
    pub fn save(&self, path: &Path) -> Result<(), AdminError> {
        let mut text = self.to_json();
        text.push('\n');
        crate::util::atomic_write(path, text.as_bytes())
            .map_err(|e| AdminError::Io(format!("{}: {e}", path.display())))
    }

    /// Reads the store at `path`; a missing file is an empty store.
    pub fn load(path: &Path) -> Result<AdminStore, AdminError> {
        match std::fs::read_to_string(path) {
            Ok(t) => {
                Self::from_json(&t).map_err(|e| AdminError::Io(format!("{}: {e}", path.display())))
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(AdminStore::new()),
            Err(e) => Err(AdminError::Io(format!("{}: {e}", path.display()))),
        }
    }
}
