//! Append-only JSON Lines files: the one writer and reader of every journal mastor keeps
//! (`events.jsonl`, `review.jsonl`, `judgements.jsonl`, `handler_choices.jsonl`, and a
//! mutation analysis' `runs.jsonl`, `equivalent.jsonl`, `rounds.jsonl`).
//!
//! One record per line, written with a single `write` on a file opened in append mode
//! while holding a per-journal lock, so concurrent writers in one process never
//! interleave. A process killed mid-write can leave a torn last line: reading skips it
//! with a warning, and the next append first repairs the tail (a complete record only
//! missing its newline gets one; a fragment is cut off) so later records stay readable.
//! Any other damaged line is reported as [`StoreError::CorruptJournal`]: it was once
//! complete, so losing it silently would lose a decision.
//!
//! Lines from several `Session` values on one file are still whole (each is one
//! `O_APPEND` write), but the design assumes one writing process per session; this
//! module takes no file lock.

use super::StoreError;
use serde::Serialize;
use serde::de::DeserializeOwned;
use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// One append-only journal file.
#[derive(Debug)]
pub(crate) struct Journal {
    path: PathBuf,
    /// fsync after every record (the review journal) or leave it to the OS (events).
    durable: bool,
    file: Mutex<Option<File>>,
}

impl Journal {
    pub(crate) fn new(path: PathBuf, durable: bool) -> Self {
        Journal {
            path,
            durable,
            file: Mutex::new(None),
        }
    }

    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// Appends one record as one line.
    pub(crate) fn append<T: Serialize + ?Sized>(&self, record: &T) -> Result<(), StoreError> {
        let mut line = serde_json::to_vec(record).map_err(|source| StoreError::Serialize {
            path: self.path.clone(),
            source,
        })?;
        line.push(b'\n');
        self.write_lines(&line)
    }

    /// Appends many records as lines with one write (and one fsync for a durable
    /// journal): a bulk review of 100,000 oracles costs one sync, not 100,000.
    pub(crate) fn append_all<T: Serialize>(&self, records: &[T]) -> Result<(), StoreError> {
        let mut lines = Vec::with_capacity(records.len() * 128);
        for record in records {
            serde_json::to_writer(&mut lines, record).map_err(|source| StoreError::Serialize {
                path: self.path.clone(),
                source,
            })?;
            lines.push(b'\n');
        }
        if lines.is_empty() {
            return Ok(());
        }
        self.write_lines(&lines)
    }

    /// Writes whole lines with one `write` (and one fsync for a durable journal),
    /// repairing a torn tail first on the first write.
    fn write_lines(&self, lines: &[u8]) -> Result<(), StoreError> {
        // A panic in another appender cannot leave the file handle half-used: every
        // write is a single call, so the poisoned state carries no broken invariant.
        let mut guard = self.file.lock().unwrap_or_else(|p| p.into_inner());
        if guard.is_none() {
            repair_tail(&self.path)?;
            let file = OpenOptions::new()
                .create(true)
                .append(true)
                .open(&self.path)
                .map_err(|e| StoreError::io("open", &self.path, e))?;
            *guard = Some(file);
        }
        let Some(file) = guard.as_mut() else {
            return Ok(());
        };
        file.write_all(lines)
            .map_err(|e| StoreError::io("append to", &self.path, e))?;
        if self.durable {
            file.sync_data()
                .map_err(|e| StoreError::io("sync", &self.path, e))?;
        }
        Ok(())
    }

    /// Reads every record; see the module docs for how damage is handled.
    pub(crate) fn read<T: DeserializeOwned>(&self) -> Result<Vec<T>, StoreError> {
        read_lines(&self.path)
    }
}

/// Appends one record to the journal at `path` (repairing a torn tail first), synced
/// when `durable`: the writer for journals outside a session's own files.
pub fn append_to<T: Serialize + ?Sized>(
    path: &Path,
    record: &T,
    durable: bool,
) -> Result<(), StoreError> {
    Journal::new(path.to_path_buf(), durable).append(record)
}

/// A torn last line that a read skipped: an append was cut short (a crash mid-write).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TornTail {
    pub path: PathBuf,
    pub line: usize,
    pub bytes: usize,
}

impl std::fmt::Display for TornTail {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}:{}: skipped a torn last line ({} bytes; a write was interrupted); the next \
             append repairs it",
            self.path.display(),
            self.line,
            self.bytes
        )
    }
}

/// Parses a JSON Lines file. Missing file → empty.
pub(crate) fn read_lines<T: DeserializeOwned>(path: &Path) -> Result<Vec<T>, StoreError> {
    read_reporting(path).map(|(records, _)| records)
}

/// Parses a JSON Lines file and says whether a torn last line was skipped (any other
/// damaged line is [`StoreError::CorruptJournal`]). Missing file → empty.
pub fn read_reporting<T: DeserializeOwned>(
    path: &Path,
) -> Result<(Vec<T>, Option<TornTail>), StoreError> {
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok((Vec::new(), None)),
        Err(e) => return Err(StoreError::io("read", path, e)),
    };
    let lines: Vec<(usize, &[u8])> = bytes
        .split(|b| *b == b'\n')
        .enumerate()
        .map(|(i, l)| (i + 1, l))
        .filter(|(_, l)| !l.iter().all(u8::is_ascii_whitespace))
        .collect();
    let last = lines.last().map(|(n, _)| *n);
    let mut out = Vec::with_capacity(lines.len());
    let mut torn = None;
    for (line_no, line) in lines {
        match serde_json::from_slice::<T>(line) {
            Ok(v) => out.push(v),
            Err(err) if Some(line_no) == last => {
                tracing::warn!(
                    path = %path.display(),
                    line = line_no,
                    error = %err,
                    "skipping torn last line of journal"
                );
                torn = Some(TornTail {
                    path: path.to_path_buf(),
                    line: line_no,
                    bytes: line.len(),
                });
            }
            Err(err) => {
                return Err(StoreError::CorruptJournal {
                    path: path.to_path_buf(),
                    line: line_no,
                    reason: err.to_string(),
                });
            }
        }
    }
    Ok((out, torn))
}

/// Makes sure the file ends with a newline before anything is appended to it.
fn repair_tail(path: &Path) -> Result<(), StoreError> {
    let mut file = match OpenOptions::new().read(true).write(true).open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(StoreError::io("open", path, e)),
    };
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes)
        .map_err(|e| StoreError::io("read", path, e))?;
    if bytes.is_empty() || bytes.ends_with(b"\n") {
        return Ok(());
    }
    let cut = bytes
        .iter()
        .rposition(|b| *b == b'\n')
        .map(|i| i + 1)
        .unwrap_or(0);
    let tail = &bytes[cut..];
    if serde_json::from_slice::<serde_json::Value>(tail).is_ok() {
        file.seek(SeekFrom::End(0))
            .and_then(|_| file.write_all(b"\n"))
            .map_err(|e| StoreError::io("repair", path, e))?;
    } else {
        tracing::warn!(
            path = %path.display(),
            bytes = tail.len(),
            "cutting torn record off the end of journal"
        );
        file.set_len(cut as u64)
            .map_err(|e| StoreError::io("truncate", path, e))?;
    }
    file.sync_data()
        .map_err(|e| StoreError::io("sync", path, e))?;
    Ok(())
}
