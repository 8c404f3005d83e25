//! The one writer of settings and preference files (`SESSION/tui.json`,
//! `SESSION/mutation/tui.json`, `mutation/options.json`, the model `config.toml`).
//!
//! A settings file is read at every launch, so a half-written one would cost the user
//! their settings (or, read strictly, refuse to start). Every writer therefore goes
//! through the session store's atomic write: a temporary file in the same directory,
//! fsynced, renamed over the target, then the directory synced. When any step fails the
//! old file is left as it was, the temporary file is removed, and the error names the
//! settings file (not only the step's own path).

use super::StoreError;
use super::fsio;
use serde::Serialize;
use std::path::{Path, PathBuf};

/// A settings file could not be written; the previous one, if any, is unchanged.
#[derive(Debug, thiserror::Error)]
#[error("cannot write settings file {}: {source}", path.display())]
pub struct SettingsWriteError {
    pub path: PathBuf,
    #[source]
    pub source: StoreError,
}

/// Writes `value` as pretty JSON (with a final newline) to `path`, atomically.
pub fn write_json<T: Serialize + ?Sized>(path: &Path, value: &T) -> Result<(), SettingsWriteError> {
    fsio::write_json_atomic(path, value).map_err(|source| SettingsWriteError {
        path: path.to_path_buf(),
        source,
    })
}

/// Writes `text` (a TOML file, say) to `path`, atomically.
pub fn write_text(path: &Path, text: &str) -> Result<(), SettingsWriteError> {
    fsio::write_bytes_atomic(path, text.as_bytes()).map_err(|source| SettingsWriteError {
        path: path.to_path_buf(),
        source,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_and_replaces() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sub/tui.json");
        write_json(&path, &serde_json::json!({"a": 1})).unwrap();
        write_json(&path, &serde_json::json!({"a": 2})).unwrap();
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "{\n  \"a\": 2\n}\n"
        );
        let names: Vec<_> = std::fs::read_dir(dir.path().join("sub"))
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        assert_eq!(names, ["tui.json"], "no temporary file is left");
    }

    #[test]
    fn a_failed_rename_leaves_the_directory_as_it_was_and_names_the_file() {
        let dir = tempfile::tempdir().unwrap();
        // The rename target is a directory (with a file in it): the rename fails.
        let path = dir.path().join("tui.json");
        std::fs::create_dir(&path).unwrap();
        std::fs::write(path.join("keep"), "old").unwrap();
        let err = write_text(&path, "{}").unwrap_err();
        let msg = err.to_string();
        assert!(msg.contains(&path.display().to_string()), "{msg}");
        assert!(msg.starts_with("cannot write settings file"), "{msg}");
        assert_eq!(std::fs::read_to_string(path.join("keep")).unwrap(), "old");
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        assert_eq!(names, ["tui.json"], "the temporary file is removed");
    }

    #[test]
    fn an_interrupted_write_keeps_the_old_file_and_removes_its_temporary() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("tui.json");
        std::fs::write(&path, "old").unwrap();
        let mut seen = None;
        let err = fsio::write_bytes_atomic_with(&path, b"new", |tmp| {
            seen = Some(tmp.to_path_buf());
            Err(std::io::Error::other("interrupted"))
        })
        .map_err(|source| SettingsWriteError {
            path: path.clone(),
            source,
        })
        .unwrap_err();
        let tmp = seen.expect("the write got as far as its temporary file");
        assert_eq!(
            tmp.parent(),
            Some(dir.path()),
            "the temporary is beside the target"
        );
        assert!(!tmp.exists(), "the temporary file is removed");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "old");
        let msg = err.to_string();
        assert!(
            msg.contains(&path.display().to_string()) && msg.contains("interrupted"),
            "{msg}"
        );
    }

    #[test]
    fn a_write_that_cannot_make_its_directory_keeps_the_old_file() {
        let dir = tempfile::tempdir().unwrap();
        let old = dir.path().join("tui.json");
        std::fs::write(&old, "{\"api_url\": \"old\"}").unwrap();
        // The temporary file would go under `tui.json/`, a regular file: refused before
        // anything is written, whoever runs the test (root ignores read-only modes).
        let path = old.join("tui.json");
        let err = write_json(&path, &serde_json::json!({"api_url": "new"})).unwrap_err();
        assert!(
            err.to_string().contains(&path.display().to_string()),
            "{err}"
        );
        assert_eq!(
            std::fs::read_to_string(&old).unwrap(),
            "{\"api_url\": \"old\"}"
        );
    }
}
