//! Atomic JSON files inside the session directory.
//!
//! A reader never sees a half-written file: data goes to a temporary file in the same
//! directory, is fsynced, then renamed over the target (rename is atomic on one file
//! system), and the directory itself is synced so the rename survives a power cut.
//! Temporary files are named `.<name>.<random>.tmp` and are ignored by [`list_dir`].
//! This module does not know what the files mean; `Session` does.

use super::StoreError;
use serde::Serialize;
use serde::de::DeserializeOwned;
use std::io::Write;
use std::path::{Component, Path, PathBuf};

/// Suffix of temporary files; anything ending like this is not part of the session.
pub(crate) const TEMP_SUFFIX: &str = ".tmp";

/// Joins a `/`-separated relative path onto `root`, refusing anything that could leave
/// the session directory (absolute paths, `..`, empty paths).
pub(crate) fn resolve(root: &Path, rel: &str) -> Result<PathBuf, StoreError> {
    let bad = |reason| StoreError::BadPath {
        path: rel.to_string(),
        reason,
    };
    if rel.trim().is_empty() {
        return Err(bad("empty path"));
    }
    let rel_path = Path::new(rel);
    let mut out = root.to_path_buf();
    for comp in rel_path.components() {
        match comp {
            Component::Normal(part) => out.push(part),
            Component::CurDir => {}
            Component::ParentDir => return Err(bad("`..` is not allowed")),
            Component::RootDir | Component::Prefix(_) => {
                return Err(bad("must be relative to the session directory"));
            }
        }
    }
    if out == root {
        return Err(bad("names the session directory itself"));
    }
    Ok(out)
}

/// Serializes `value` as pretty JSON and writes it atomically to `path`, creating parent
/// directories as needed.
pub(crate) fn write_json_atomic<T: Serialize + ?Sized>(
    path: &Path,
    value: &T,
) -> Result<(), StoreError> {
    let mut bytes = serde_json::to_vec_pretty(value).map_err(|source| StoreError::Serialize {
        path: path.to_path_buf(),
        source,
    })?;
    bytes.push(b'\n');
    write_bytes_atomic(path, &bytes)
}

/// Writes `bytes` atomically to `path` (temp file + fsync + rename + directory sync).
pub(crate) fn write_bytes_atomic(path: &Path, bytes: &[u8]) -> Result<(), StoreError> {
    write_bytes_atomic_with(path, bytes, |_| Ok(()))
}

/// [`write_bytes_atomic`], calling `before_rename(temporary file)` once the data is
/// synced: a test's way to interrupt the write at its last step (the target must then
/// be unchanged and the temporary file gone).
pub(crate) fn write_bytes_atomic_with(
    path: &Path,
    bytes: &[u8],
    before_rename: impl FnOnce(&Path) -> std::io::Result<()>,
) -> Result<(), StoreError> {
    let parent = path.parent().unwrap_or_else(|| Path::new("."));
    std::fs::create_dir_all(parent).map_err(|e| StoreError::io("create directory", parent, e))?;
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut tmp = tempfile::Builder::new()
        .prefix(&format!(".{name}."))
        .suffix(TEMP_SUFFIX)
        .tempfile_in(parent)
        .map_err(|e| StoreError::io("create temporary file in", parent, e))?;
    tmp.write_all(bytes)
        .map_err(|e| StoreError::io("write", tmp.path().to_path_buf(), e))?;
    tmp.as_file()
        .sync_all()
        .map_err(|e| StoreError::io("sync", tmp.path().to_path_buf(), e))?;
    before_rename(tmp.path()).map_err(|e| StoreError::io("write", path, e))?;
    // On failure the temporary file is removed when the error (which owns it) drops.
    tmp.persist(path)
        .map_err(|e| StoreError::io("rename temporary file onto", path, e.error))?;
    sync_dir(parent);
    Ok(())
}

/// Makes a rename or a file creation durable. Best effort: some platforms cannot open
/// a directory for syncing, and the data itself is already synced.
pub(crate) fn sync_dir(dir: &Path) {
    if let Ok(d) = std::fs::File::open(dir) {
        let _ = d.sync_all();
    }
}

/// Reads and parses a JSON file; a missing file is `Ok(None)`, not an error, because
/// "not produced yet" is the normal state of most session files.
pub(crate) fn read_json_file<T: DeserializeOwned>(path: &Path) -> Result<Option<T>, StoreError> {
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(StoreError::io("read", path, e)),
    };
    serde_json::from_slice(&bytes)
        .map(Some)
        .map_err(|source| StoreError::Parse {
            path: path.to_path_buf(),
            source,
        })
}

/// File names (not paths) of the regular files in `dir`, sorted, without temporary files.
/// A missing directory lists as empty.
pub(crate) fn list_dir(dir: &Path) -> Result<Vec<String>, StoreError> {
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(StoreError::io("list", dir, e)),
    };
    let mut names = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| StoreError::io("list", dir, e))?;
        let is_file = entry.file_type().map(|t| t.is_file()).unwrap_or(false);
        let name = entry.file_name().to_string_lossy().into_owned();
        if is_file && !is_temp_name(&name) {
            names.push(name);
        }
    }
    names.sort();
    Ok(names)
}

/// True for the names [`write_bytes_atomic`] gives its temporary files.
pub(crate) fn is_temp_name(name: &str) -> bool {
    name.starts_with('.') && name.ends_with(TEMP_SUFFIX)
}
