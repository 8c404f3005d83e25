//! A new session built out of sight and moved into place whole.
//!
//! `mastor import` writes many files; if it stopped half-way (a full disk, a name the
//! file system refuses, a kill) a half-written session would look like a real one and
//! `check` would run part of the suite without saying so. A [`StagedSession`] is created
//! in a hidden sibling directory of the target and only [`StagedSession::commit`] makes
//! it appear, with one rename when the target does not exist yet (or is empty). Dropped
//! without commit, the staging directory is removed.

use super::{MANIFEST_FILE, Manifest, Session, StoreError, fsio};
use std::path::{Path, PathBuf};

/// A session being written in a staging directory next to its final place.
#[derive(Debug)]
pub struct StagedSession {
    session: Option<Session>,
    tmp: tempfile::TempDir,
    target: PathBuf,
}

impl StagedSession {
    /// Starts a session that will live in `target`. Refuses a `target` that already
    /// holds a session, as [`Session::create`] does.
    pub fn create(target: impl AsRef<Path>, manifest: Manifest) -> Result<Self, StoreError> {
        let target = target.as_ref().to_path_buf();
        if target.join(MANIFEST_FILE).exists() {
            return Err(StoreError::AlreadyExists { dir: target });
        }
        let parent = match target.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        std::fs::create_dir_all(&parent)
            .map_err(|e| StoreError::io("create directory", &parent, e))?;
        let tmp = tempfile::Builder::new()
            .prefix(".mastor-staging.")
            .tempdir_in(&parent)
            .map_err(|e| StoreError::io("create staging directory in", &parent, e))?;
        let session = Session::create(tmp.path(), manifest)?;
        Ok(StagedSession {
            session: Some(session),
            tmp,
            target,
        })
    }

    /// The session to write into (its directory is the staging directory).
    pub fn session(&self) -> &Session {
        self.session
            .as_ref()
            .expect("staged session is present until commit")
    }

    /// Moves the finished session into its target and opens it there. A missing or
    /// empty target is replaced in one rename; a target holding other files (but no
    /// session) receives the staged entries one by one, `manifest.json` last, so the
    /// directory only becomes a session once everything is in it.
    pub fn commit(mut self) -> Result<Session, StoreError> {
        drop(self.session.take());
        let target = self.target.clone();
        if target.join(MANIFEST_FILE).exists() {
            return Err(StoreError::AlreadyExists { dir: target });
        }
        let empty = match std::fs::read_dir(&target) {
            Ok(mut entries) => entries.next().is_none(),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => true,
            Err(e) => return Err(StoreError::io("list", &target, e)),
        };
        if empty {
            std::fs::rename(self.tmp.path(), &target)
                .map_err(|e| StoreError::io("move staged session to", &target, e))?;
        } else {
            move_entries(self.tmp.path(), &target)?;
        }
        if let Some(parent) = target.parent() {
            fsio::sync_dir(parent);
        }
        fsio::sync_dir(&target);
        Session::open(&target)
    }
}

/// Moves every entry of `from` into `to`, the manifest last.
fn move_entries(from: &Path, to: &Path) -> Result<(), StoreError> {
    let mut names: Vec<_> = std::fs::read_dir(from)
        .map_err(|e| StoreError::io("list", from, e))?
        .filter_map(|e| e.ok().map(|e| e.file_name()))
        .filter(|n| n != MANIFEST_FILE)
        .collect();
    names.sort();
    names.push(MANIFEST_FILE.into());
    for name in names {
        let dest = to.join(&name);
        std::fs::rename(from.join(&name), &dest)
            .map_err(|e| StoreError::io("move staged file to", &dest, e))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nothing_appears_before_commit_and_nothing_stays_after_a_drop() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("sess");
        let staged =
            StagedSession::create(&target, Manifest::new(String::new(), String::new())).unwrap();
        staged.session().write_json("suites/a.json", &1).unwrap();
        assert!(!target.exists());
        drop(staged);
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);

        let staged =
            StagedSession::create(&target, Manifest::new(String::new(), String::new())).unwrap();
        staged.session().write_json("suites/a.json", &1).unwrap();
        let session = staged.commit().unwrap();
        assert_eq!(session.read_json::<i32>("suites/a.json").unwrap(), Some(1));
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn a_target_with_other_files_receives_the_session() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("notes.txt"), "mine").unwrap();
        let staged =
            StagedSession::create(dir.path(), Manifest::new(String::new(), String::new())).unwrap();
        staged.session().write_json("suites/a.json", &2).unwrap();
        let session = staged.commit().unwrap();
        assert_eq!(session.read_json::<i32>("suites/a.json").unwrap(), Some(2));
        assert!(dir.path().join("notes.txt").is_file());
    }
}
