//! Small shared helpers: crash-safe file writes, serde's zero test.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::Path;

/// True for a zero (default) value: `#[serde(skip_serializing_if =
/// "crate::util::is_zero")]` leaves counters out of JSON until they count.
pub(crate) fn is_zero<T: Default + PartialEq>(x: &T) -> bool {
    *x == T::default()
}

/// Writes `data` to `path` so that a crash at any moment leaves either the
/// old file or the new one, never a torn one: write a temporary file in the
/// same directory, fsync it, rename it over `path`, fsync the directory.
pub fn atomic_write(path: &Path, data: &[u8]) -> io::Result<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let name = path
        .file_name()
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "path has no file name"))?;
    let tmp = dir.join(format!(
        ".{}.tmp.{}",
        name.to_string_lossy(),
        std::process::id()
    ));
    let result = (|| {
        let mut f = OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .open(&tmp)?;
        f.write_all(data)?;
        f.sync_all()?;
        drop(f);
        fs::rename(&tmp, path)?;
        File::open(dir)?.sync_all()
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replaces_the_file_and_leaves_no_temporary() {
        let dir = std::env::temp_dir().join(format!("mauisched-util-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let p = dir.join("state.json");
        atomic_write(&p, b"old").unwrap();
        atomic_write(&p, b"new").unwrap();
        assert_eq!(fs::read(&p).unwrap(), b"new");
        assert_eq!(fs::read_dir(&dir).unwrap().count(), 1);
        assert!(atomic_write(&dir.join("missing/x"), b"x").is_err());
        fs::remove_dir_all(&dir).ok();
    }
}
