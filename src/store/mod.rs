//! The session store: the pipeline's blackboard, kept as a directory on disk.
//!
//! Agents never talk to each other; they read and write here, so a killed run resumes
//! where it stopped and every intermediate result can be inspected. A session directory
//! (default `<project>/.mastor/`) looks like this:
//!
//! ```text
//! manifest.json            schema_version, created_at, updated_at, project_root, spec_file,
//!                          tool_version, config summary (models, never keys), phase states
//! operations.json          the operation list (spec operation + entry + bundle summary)
//! contexts/<op-slug>.json  SourceContext of one operation
//! suites/<op-slug>.json    SuiteRecord: single-op oracles, normalization report,
//!                          challenger review, regenerated test_ids
//! groups/<group-slug>.json GroupRecord: one operation group and its multi-op oracles
//! calls/<call-slug>.json   one LLM call record (prompt, raw answer, usage)
//! verdicts/...             runner results
//! .lock                    advisory lock of the one process writing the session (see
//!                          `SessionLock`): holder's pid and command
//! events.jsonl             append-only: agent start/finish/retry/failure, tokens, cost, time
//! review.jsonl             append-only review journal, fsynced per entry (see `review`)
//! judgements.jsonl         append-only true / false positive judgements of failed
//!                          verdicts, fsynced per entry (see `judgement`)
//! handler_choices.jsonl    append-only reviewer's handler picks {op_id, handler {file,
//!                          method, line}, at}, fsynced; applied before discovery on the
//!                          next run, the pick wins over scan and model (see `handlers`)
//! conflicts/<op-slug>.json HandlerConflict: static and discovered handler of one
//!                          operation, which won (static|discovered|picked) and why
//! context_edits.jsonl      append-only reviewer's edits of source contexts {op_id,
//!                          context (null: withdrawn), at, note}, fsynced; an edit that
//!                          stands replaces the extraction's context (see `context_edits`)
//! ```
//!
//! Slugs come from [`op_slug`]. Challenger reviews live inside the suite and group
//! records rather than in a separate `reviews/` directory, so one file explains a suite.
//! Every JSON file is written atomically (temporary file + fsync + rename); journals are
//! appended line by line and tolerate a torn last line.
//!
//! The store deliberately knows nothing about how results are produced: it does no
//! scheduling, no normalization and no network I/O, and it never prints.

mod context_edits;
mod error;
mod events;
mod fsio;
mod handlers;
pub mod journal;
mod judgement;
mod lock;
mod manifest;
pub mod mr_files;
mod records;
mod review;
pub mod settings_file;
mod slug;
mod staging;

pub use context_edits::{CONTEXT_EDITS_FILE, ContextEdit};
pub use error::StoreError;
pub use events::{Event, EventKind};
pub use handlers::{
    CONFLICTS_DIR, HANDLER_CHOICES_FILE, HandlerChoice, HandlerConflict, HandlerPick, HandlerSide,
    conflict_rel,
};
pub use judgement::{
    JudgedVerdict, Judgement, JudgementEntry, JudgementUndo, Positive, replay_judgements,
};
pub use lock::{FileLock, LOCK_FILE, LockError, LockHolder, SessionLock, VERDICTS_LOCK_FILE};
pub use manifest::{ConfigSummary, Manifest, PhaseState, PhaseStatus, looks_secret};
pub use records::{
    Absent, GroupKind, GroupRecord, KeyField, Record, RecordKind, SuiteKind, SuiteRecord, TestId,
};
pub use review::{
    JournalEntry, RedoStep, Replayed, Step, Undo, UndoStep, new_step_id, replay, replay_steps,
    step_id,
};
pub use slug::{MAX_READABLE, MAX_STEM_READABLE, id_file_stem, op_slug};
pub use staging::StagedSession;

use crate::model::{ReviewDecision, SCHEMA_VERSION, SourceContext};
use journal::Journal;
use serde::Serialize;
use serde::de::DeserializeOwned;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// Name of the file that marks a directory as a session.
pub const MANIFEST_FILE: &str = "manifest.json";
/// Append-only agent event log.
pub const EVENTS_FILE: &str = "events.jsonl";
/// Append-only review journal.
pub const REVIEW_FILE: &str = "review.jsonl";
/// Append-only journal of true / false positive judgements.
pub const JUDGEMENTS_FILE: &str = "judgements.jsonl";
/// The operation list.
pub const OPERATIONS_FILE: &str = "operations.json";

/// Relative path of an operation's source context.
pub fn context_rel(op_id: &str) -> String {
    format!("contexts/{}.json", op_slug(op_id))
}

/// Relative path of an operation's single-op suite.
pub fn suite_rel(op_id: &str) -> String {
    format!("suites/{}.json", op_slug(op_id))
}

/// Relative path of a group record.
pub fn group_rel(group_id: &str) -> String {
    format!("groups/{}.json", op_slug(group_id))
}

/// Relative path of an LLM call record.
pub fn call_rel(call_id: &str) -> String {
    format!("calls/{}.json", op_slug(call_id))
}

/// An open session directory. `Sync`: share it behind an `Arc` between tasks.
#[derive(Debug)]
pub struct Session {
    dir: PathBuf,
    manifest: Mutex<Manifest>,
    events: Journal,
    review: Journal,
    judgements: Journal,
}

impl Session {
    /// Creates a new session in `dir` (created if missing). Refuses a directory that
    /// already holds a session, so a second run never clobbers reviewed work; use
    /// [`Session::open_or_create`] to resume. The manifest's `schema_version` is set to
    /// this build's version.
    pub fn create(dir: impl AsRef<Path>, mut manifest: Manifest) -> Result<Session, StoreError> {
        let dir = dir.as_ref().to_path_buf();
        let manifest_path = dir.join(MANIFEST_FILE);
        if manifest_path.exists() {
            return Err(StoreError::AlreadyExists { dir });
        }
        std::fs::create_dir_all(&dir).map_err(|e| StoreError::io("create directory", &dir, e))?;
        manifest.schema_version = SCHEMA_VERSION;
        fsio::write_json_atomic(&manifest_path, &manifest)?;
        Ok(Session::assemble(dir, manifest))
    }

    /// Opens an existing session, checking that this build understands its format.
    pub fn open(dir: impl AsRef<Path>) -> Result<Session, StoreError> {
        let dir = dir.as_ref().to_path_buf();
        let manifest_path = dir.join(MANIFEST_FILE);
        // Check the version before the shape: a newer format may not parse as ours.
        let raw: serde_json::Value = fsio::read_json_file(&manifest_path)?
            .ok_or_else(|| StoreError::NotASession { dir: dir.clone() })?;
        let found = raw
            .get("schema_version")
            .and_then(serde_json::Value::as_u64)
            .map(|v| u32::try_from(v).unwrap_or(u32::MAX));
        if let Some(found) = found
            && found > SCHEMA_VERSION
        {
            return Err(StoreError::NewerSchema {
                dir,
                found,
                supported: SCHEMA_VERSION,
            });
        }
        let manifest: Manifest =
            serde_json::from_value(raw).map_err(|source| StoreError::Parse {
                path: manifest_path,
                source,
            })?;
        Ok(Session::assemble(dir, manifest))
    }

    /// Opens the session in `dir`, or creates it with `manifest` when there is none.
    pub fn open_or_create(
        dir: impl AsRef<Path>,
        manifest: Manifest,
    ) -> Result<Session, StoreError> {
        let dir = dir.as_ref();
        if dir.join(MANIFEST_FILE).exists() {
            Session::open(dir)
        } else {
            Session::create(dir, manifest)
        }
    }

    fn assemble(dir: PathBuf, manifest: Manifest) -> Session {
        Session {
            events: Journal::new(dir.join(EVENTS_FILE), false),
            review: Journal::new(dir.join(REVIEW_FILE), true),
            judgements: Journal::new(dir.join(JUDGEMENTS_FILE), true),
            manifest: Mutex::new(manifest),
            dir,
        }
    }

    /// The session directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// A copy of the current manifest.
    pub fn manifest(&self) -> Manifest {
        self.manifest
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// Changes the manifest, stamps `updated_at` and writes it atomically. The in-memory
    /// copy changes only if the write succeeded.
    pub fn update_manifest(&self, change: impl FnOnce(&mut Manifest)) -> Result<(), StoreError> {
        let mut guard = self.manifest.lock().unwrap_or_else(|p| p.into_inner());
        let mut next = guard.clone();
        change(&mut next);
        next.updated_at = chrono::Utc::now();
        fsio::write_json_atomic(&self.dir.join(MANIFEST_FILE), &next)?;
        *guard = next;
        Ok(())
    }

    /// Records `dir`, made absolute, as the project root (what a suite imported without
    /// `--project` lacks), so evidence resolves whatever directory the workbench starts
    /// from; returns it. A path that is not a directory is refused, named.
    pub fn record_project_root(&self, dir: &Path) -> Result<String, String> {
        let root = dir
            .canonicalize()
            .ok()
            .filter(|r| r.is_dir())
            .ok_or_else(|| {
                format!(
                    "--project {} is not a directory",
                    crate::text::escape_controls(&dir.display().to_string())
                )
            })?
            .display()
            .to_string();
        self.update_manifest(|m| m.project_root = root.clone())
            .map_err(|e| format!("cannot record the project root: {e}"))?;
        Ok(root)
    }

    /// Records the state of one phase in the manifest.
    pub fn set_phase(&self, phase: &str, state: PhaseState) -> Result<(), StoreError> {
        self.update_manifest(|m| {
            m.phases.insert(phase.to_string(), state);
        })
    }

    /// Absolute path of a session-relative path; refuses paths leaving the session.
    pub fn path(&self, rel_path: &str) -> Result<PathBuf, StoreError> {
        fsio::resolve(&self.dir, rel_path)
    }

    /// Writes `value` as JSON at `rel_path`, atomically (no reader ever sees a partial
    /// file, and no temporary file is left behind on success or error).
    pub fn write_json<T: Serialize + ?Sized>(
        &self,
        rel_path: &str,
        value: &T,
    ) -> Result<(), StoreError> {
        fsio::write_json_atomic(&self.path(rel_path)?, value)
    }

    /// Reads JSON at `rel_path`; `Ok(None)` when the file does not exist yet.
    pub fn read_json<T: DeserializeOwned>(&self, rel_path: &str) -> Result<Option<T>, StoreError> {
        fsio::read_json_file(&self.path(rel_path)?)
    }

    /// Sorted file names in a session-relative directory (temporary files excluded);
    /// empty when the directory does not exist.
    pub fn list(&self, rel_dir: &str) -> Result<Vec<String>, StoreError> {
        fsio::list_dir(&self.path(rel_dir)?)
    }

    /// Appends one agent event to `events.jsonl`.
    pub fn append_event(&self, event: &Event) -> Result<(), StoreError> {
        self.events.append(event)
    }

    /// All events, oldest first (a torn last line is skipped with a warning).
    pub fn read_events(&self) -> Result<Vec<Event>, StoreError> {
        self.events.read()
    }

    /// Appends a review decision and fsyncs it before returning.
    pub fn append_decision(&self, decision: &ReviewDecision) -> Result<(), StoreError> {
        self.review.append(decision)
    }

    /// Appends many review decisions with one write and one fsync (bulk actions).
    pub fn append_decisions(&self, decisions: &[ReviewDecision]) -> Result<(), StoreError> {
        self.review.append_all(decisions)
    }

    /// Appends an undo of the latest decision on `o_id` (fsynced).
    pub fn append_undo(&self, o_id: &str) -> Result<(), StoreError> {
        self.review.append(&Undo {
            undo: o_id.to_string(),
            at: chrono::Utc::now().to_rfc3339(),
        })
    }

    /// Appends an undo of every decision of `step` (fsynced); returns the record.
    pub fn append_undo_step(&self, step: &str) -> Result<UndoStep, StoreError> {
        let record = UndoStep {
            undo_step: step.to_string(),
            at: chrono::Utc::now().to_rfc3339(),
        };
        self.review.append(&record)?;
        Ok(record)
    }

    /// Appends a redo of the undone `step` (fsynced); returns the record.
    pub fn append_redo_step(&self, step: &str) -> Result<RedoStep, StoreError> {
        let record = RedoStep {
            redo_step: step.to_string(),
            at: chrono::Utc::now().to_rfc3339(),
        };
        self.review.append(&record)?;
        Ok(record)
    }

    /// The raw review journal, oldest first.
    pub fn read_review_journal(&self) -> Result<Vec<JournalEntry>, StoreError> {
        self.review.read()
    }

    /// The current review state: per `o_id`, the last decision not undone.
    pub fn read_decisions(&self) -> Result<BTreeMap<String, ReviewDecision>, StoreError> {
        Ok(replay(&self.read_review_journal()?))
    }

    /// Appends a true / false positive judgement and fsyncs it before returning.
    pub fn append_judgement(&self, judgement: &Judgement) -> Result<(), StoreError> {
        self.judgements.append(judgement)
    }

    /// Appends an undo of the latest judgement of `o_id` (fsynced).
    pub fn append_judgement_undo(&self, o_id: &str) -> Result<(), StoreError> {
        self.judgements.append(&JudgementUndo {
            undo_judgement: o_id.to_string(),
            at: chrono::Utc::now().to_rfc3339(),
        })
    }

    /// The raw judgement journal, oldest first.
    pub fn read_judgement_journal(&self) -> Result<Vec<JudgementEntry>, StoreError> {
        self.judgements.read()
    }

    /// Per o_id, the latest judgement not undone.
    pub fn read_judgements(&self) -> Result<BTreeMap<String, Judgement>, StoreError> {
        Ok(replay_judgements(&self.read_judgement_journal()?))
    }

    /// Path of the review journal (for messages).
    pub fn review_journal_path(&self) -> &Path {
        self.review.path()
    }

    /// Writes the operation list (its type belongs to the pipeline).
    pub fn write_operations<T: Serialize + ?Sized>(&self, ops: &T) -> Result<(), StoreError> {
        self.write_json(OPERATIONS_FILE, ops)
    }

    /// Reads the operation list, if written.
    pub fn read_operations<T: DeserializeOwned>(&self) -> Result<Option<T>, StoreError> {
        self.read_json(OPERATIONS_FILE)
    }

    /// Writes the source context of `ctx.op_id`.
    pub fn write_context(&self, ctx: &SourceContext) -> Result<(), StoreError> {
        self.write_json(&context_rel(&ctx.op_id), ctx)
    }

    /// Writes the single-op suite of `suite.op_id`.
    pub fn write_suite(&self, suite: &SuiteRecord) -> Result<(), StoreError> {
        self.write_json(&suite_rel(&suite.op_id), suite)
    }

    /// Reads the single-op suite of `op_id`, if generated.
    pub fn read_suite(&self, op_id: &str) -> Result<Option<SuiteRecord>, StoreError> {
        self.read_json(&suite_rel(op_id))
    }

    /// Writes a group record.
    pub fn write_group(&self, group: &GroupRecord) -> Result<(), StoreError> {
        self.write_json(&group_rel(&group.group_id), group)
    }

    /// Reads a group record, if generated.
    pub fn read_group(&self, group_id: &str) -> Result<Option<GroupRecord>, StoreError> {
        self.read_json(&group_rel(group_id))
    }

    /// Reads one LLM call record, if written.
    pub fn read_call<T: DeserializeOwned>(&self, call_id: &str) -> Result<Option<T>, StoreError> {
        self.read_json(&call_rel(call_id))
    }

    /// Writes one LLM call record (its type belongs to the llm module).
    pub fn write_call<T: Serialize + ?Sized>(
        &self,
        call_id: &str,
        call: &T,
    ) -> Result<(), StoreError> {
        self.write_json(&call_rel(call_id), call)
    }
}
