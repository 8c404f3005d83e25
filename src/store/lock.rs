//! One writer per session: an advisory lock on `<session>/.lock`.
//!
//! Two workbenches (or a workbench and `mastor check`) writing one session would each
//! keep their own view of the review journal, and an undo in one could take back a
//! decision made in the other. Every command that writes a session holds a
//! [`SessionLock`] while it does; a second one is told who holds it.
//!
//! The lock is `flock(2)` (through `std::fs::File::try_lock`), so the kernel releases it
//! when the holder exits, however it exits: a session left behind by a killed process is
//! never stuck. The file also holds the holder's pid and command, but only to name them
//! in messages; whether the session is locked is decided by the kernel alone. The file is
//! never deleted (deleting a lock file races with a process about to lock it).
//!
//! Within one process the lock is shared: a re-run started from the workbench locks the
//! session the workbench already holds, and gets the same lock back.
//!
//! Not every command writes the session. `mastor check` only adds a verdict file
//! (`verdicts/<time>.json`) and merges `verdicts/latest.json`, and `mastor handler` without
//! a pick only reads: neither takes the session lock, so both work beside an open
//! workbench. The one file two processes could then both write, `verdicts/latest.json`,
//! is merged under its own short lock ([`FileLock`] on [`VERDICTS_LOCK_FILE`]), held by
//! every verdict writer (`check`, the workbench's own runs) for the read-merge-write.

use super::StoreError;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::fs::{File, OpenOptions, TryLockError};
use std::io::{Read, Seek, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

/// Name of the lock file inside the session directory.
pub const LOCK_FILE: &str = ".lock";

/// Who holds a session's lock, as the holder wrote it in the lock file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LockHolder {
    /// Process id of the holder (0 when the file could not be read).
    pub pid: u32,
    /// The holder's command, e.g. `mastor tui`.
    pub command: String,
}

/// Why a session could not be locked.
#[derive(Debug, thiserror::Error)]
pub enum LockError {
    /// Another process holds the lock.
    #[error(
        "session {} is in use by pid {} ({}); wait for it to finish or close it, then retry",
        dir.display(), holder.pid, holder.command
    )]
    Held { dir: PathBuf, holder: LockHolder },
    /// The lock file could not be created or locked.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Lock file of the verdicts' read-merge-write (see the module documentation).
pub const VERDICTS_LOCK_FILE: &str = ".verdicts.lock";

/// An exclusive lock held for moments (one file's read-modify-write), waited for up
/// to a bound; released on drop. Two file descriptions exclude each other whether they
/// are in one process or two.
#[derive(Debug)]
pub struct FileLock {
    _file: File,
}

impl FileLock {
    /// Locks `path` (created if missing), waiting at most `wait` for another holder.
    pub fn acquire(path: &Path, wait: Duration) -> Result<FileLock, StoreError> {
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(path)
            .map_err(|e| StoreError::io("open lock file", path, e))?;
        let deadline = std::time::Instant::now() + wait;
        loop {
            match file.try_lock() {
                Ok(()) => return Ok(FileLock { _file: file }),
                Err(TryLockError::WouldBlock) if std::time::Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(20));
                }
                Err(TryLockError::WouldBlock) => {
                    let why = format!(
                        "another process kept it locked for {} s",
                        wait.as_secs_f64()
                    );
                    let e = std::io::Error::new(std::io::ErrorKind::WouldBlock, why);
                    return Err(StoreError::io("lock", path, e));
                }
                Err(TryLockError::Error(e)) => return Err(StoreError::io("lock", path, e)),
            }
        }
    }
}

/// The held lock of one session; released when the last clone drops.
#[derive(Debug, Clone)]
pub struct SessionLock {
    inner: Arc<Held>,
}

#[derive(Debug)]
struct Held {
    // Kept open: closing the file releases the lock.
    _file: File,
    path: PathBuf,
}

/// Locks held by this process, by canonical session directory.
static HELD: Mutex<Option<HashMap<PathBuf, Weak<Held>>>> = Mutex::new(None);

impl SessionLock {
    /// Locks the session in `dir` (created if missing) for `command`, without waiting:
    /// when another process holds it, says which one.
    pub fn acquire(dir: impl AsRef<Path>, command: &str) -> Result<SessionLock, LockError> {
        let dir = dir.as_ref();
        std::fs::create_dir_all(dir).map_err(|e| StoreError::io("create directory", dir, e))?;
        let key = dir
            .canonicalize()
            .map_err(|e| StoreError::io("resolve", dir, e))?;
        let mut held = HELD.lock().unwrap_or_else(|p| p.into_inner());
        let held = held.get_or_insert_with(HashMap::new);
        if let Some(inner) = held.get(&key).and_then(Weak::upgrade) {
            return Ok(SessionLock { inner });
        }
        let path = key.join(LOCK_FILE);
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(|e| StoreError::io("open lock file", &path, e))?;
        match file.try_lock() {
            Ok(()) => {}
            Err(TryLockError::WouldBlock) => {
                return Err(LockError::Held {
                    dir: dir.to_path_buf(),
                    holder: read_holder(&mut file),
                });
            }
            Err(TryLockError::Error(e)) => {
                return Err(StoreError::io("lock", &path, e).into());
            }
        }
        let me = LockHolder {
            pid: std::process::id(),
            command: command.to_string(),
        };
        let text = serde_json::to_string(&me).unwrap_or_default();
        file.set_len(0)
            .and_then(|_| file.rewind())
            .and_then(|_| file.write_all(format!("{text}\n").as_bytes()))
            .and_then(|_| file.sync_all())
            .map_err(|e| StoreError::io("write", &path, e))?;
        let inner = Arc::new(Held { _file: file, path });
        held.retain(|_, w| w.strong_count() > 0);
        held.insert(key, Arc::downgrade(&inner));
        Ok(SessionLock { inner })
    }

    /// The lock file (for messages).
    pub fn path(&self) -> &Path {
        &self.inner.path
    }

    /// Who holds the lock on `dir` right now, if anyone else does; `None` when it is
    /// free or held by this process. Does not take the lock.
    pub fn holder(dir: impl AsRef<Path>) -> Option<LockHolder> {
        let path = dir.as_ref().join(LOCK_FILE);
        let mut file = File::open(&path).ok()?;
        match file.try_lock_shared() {
            Ok(()) => {
                let _ = file.unlock();
                None
            }
            Err(TryLockError::WouldBlock) => {
                let holder = read_holder(&mut file);
                (holder.pid != std::process::id()).then_some(holder)
            }
            Err(TryLockError::Error(_)) => None,
        }
    }
}

/// The holder as written in the lock file. The holder writes right after locking, so an
/// empty file is read again a few times before giving up.
fn read_holder(file: &mut File) -> LockHolder {
    for _ in 0..10 {
        let mut text = String::new();
        if file.rewind().is_ok()
            && file.read_to_string(&mut text).is_ok()
            && let Ok(holder) = serde_json::from_str::<LockHolder>(text.trim())
        {
            return holder;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    LockHolder {
        pid: 0,
        command: "unknown".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_process_shares_its_lock_and_releases_it_on_drop() {
        let dir = tempfile::tempdir().unwrap();
        let a = SessionLock::acquire(dir.path(), "one").unwrap();
        let b = SessionLock::acquire(dir.path(), "two").unwrap();
        assert_eq!(a.path(), b.path());
        let text = std::fs::read_to_string(a.path()).unwrap();
        assert!(text.contains(&std::process::id().to_string()), "{text}");
        assert!(text.contains("\"one\""), "{text}");
        drop((a, b));
        // Another open file description can lock it now.
        let file = File::open(dir.path().join(LOCK_FILE)).unwrap();
        file.try_lock().expect("released");
    }

    #[test]
    fn a_second_file_description_sees_the_holder() {
        let dir = tempfile::tempdir().unwrap();
        let _held = SessionLock::acquire(dir.path(), "mastor tui").unwrap();
        let mut file = File::open(dir.path().join(LOCK_FILE)).unwrap();
        assert!(matches!(file.try_lock(), Err(TryLockError::WouldBlock)));
        let holder = read_holder(&mut file);
        assert_eq!(holder.pid, std::process::id());
        assert_eq!(holder.command, "mastor tui");
    }
}
