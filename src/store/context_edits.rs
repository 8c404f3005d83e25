//! A reviewer's edits of an operation's source context (`context_edits.jsonl`).
//!
//! Debugging extraction on one endpoint means correcting what the model read from the
//! code, then generating again from the corrected context. The edit is a reviewed input,
//! so it never shares a file with what a run writes: `contexts/<op-slug>.json` stays the
//! extraction's answer, and the edit is journalled here (append-only, fsynced; the latest
//! line per operation wins). A line whose `context` is `null` withdraws the edit, and the
//! extraction's context is used again. [`Session::read_context`] returns the edit while
//! one stands, so every reader (the pipeline, `--from-survivors`, metamorphic grounding,
//! the workbench) sees the same context.
//!
//! Unknown keys are errors, as everywhere in the session.

use super::journal::{Journal, read_lines};
use super::{Session, StoreError, context_rel};
use crate::model::SourceContext;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Append-only journal of the reviewer's context edits.
pub const CONTEXT_EDITS_FILE: &str = "context_edits.jsonl";

/// One line of `context_edits.jsonl`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ContextEdit {
    pub op_id: String,
    /// The reviewer's context; `None` withdraws the operation's edit.
    pub context: Option<SourceContext>,
    /// RFC 3339 time of the line.
    pub at: String,
    /// Why an edit was withdrawn (`run --drop-context-edits`, the workbench).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

impl Session {
    /// Journals `context` as the reviewer's context of its operation (fsynced): runs use
    /// it instead of extracting until it is withdrawn.
    pub fn record_context_edit(&self, context: &SourceContext) -> Result<ContextEdit, StoreError> {
        self.append_context_edit(ContextEdit {
            op_id: context.op_id.clone(),
            context: Some(context.clone()),
            at: chrono::Utc::now().to_rfc3339(),
            note: None,
        })
    }

    /// Withdraws the edit of `op_id` (fsynced); the journal keeps the edit itself.
    pub fn withdraw_context_edit(
        &self,
        op_id: &str,
        note: &str,
    ) -> Result<ContextEdit, StoreError> {
        self.append_context_edit(ContextEdit {
            op_id: op_id.to_string(),
            context: None,
            at: chrono::Utc::now().to_rfc3339(),
            note: Some(note.to_string()),
        })
    }

    fn append_context_edit(&self, line: ContextEdit) -> Result<ContextEdit, StoreError> {
        Journal::new(self.dir().join(CONTEXT_EDITS_FILE), true).append(&line)?;
        Ok(line)
    }

    /// The edits that stand, by op_id (the latest line of each operation, when it holds
    /// a context).
    pub fn read_context_edits(&self) -> Result<BTreeMap<String, ContextEdit>, StoreError> {
        let path = self.dir().join(CONTEXT_EDITS_FILE);
        let lines: Vec<ContextEdit> = read_lines(&path)?;
        let mut latest = BTreeMap::new();
        for line in lines {
            latest.insert(line.op_id.clone(), line);
        }
        latest.retain(|_, e: &mut ContextEdit| e.context.is_some());
        Ok(latest)
    }

    /// The context `op_id`'s oracles are generated from: the reviewer's edit while one
    /// stands, else the extraction's.
    pub fn read_context(&self, op_id: &str) -> Result<Option<SourceContext>, StoreError> {
        if let Some(edit) = self.read_context_edits()?.remove(op_id) {
            return Ok(edit.context);
        }
        self.read_extracted_context(op_id)
    }

    /// The extraction's context of `op_id` (`contexts/`), edit or not.
    pub fn read_extracted_context(&self, op_id: &str) -> Result<Option<SourceContext>, StoreError> {
        self.read_json(&context_rel(op_id))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::Manifest;

    fn ctx(op: &str, status: u16) -> SourceContext {
        let mut c = SourceContext {
            op_id: op.into(),
            ..Default::default()
        };
        c.response_schema.success_status = Some(status);
        c
    }

    #[test]
    fn the_latest_edit_wins_over_the_extraction_until_withdrawn() {
        let dir = tempfile::tempdir().unwrap();
        let s = Session::create(dir.path(), Manifest::new("p", "s")).unwrap();
        s.write_context(&ctx("GET /a", 200)).unwrap();
        assert_eq!(s.read_context("GET /a").unwrap(), Some(ctx("GET /a", 200)));
        s.record_context_edit(&ctx("GET /a", 201)).unwrap();
        s.record_context_edit(&ctx("GET /a", 202)).unwrap();
        assert_eq!(s.read_context("GET /a").unwrap(), Some(ctx("GET /a", 202)));
        assert_eq!(
            s.read_extracted_context("GET /a").unwrap(),
            Some(ctx("GET /a", 200))
        );
        s.withdraw_context_edit("GET /a", "test").unwrap();
        assert!(s.read_context_edits().unwrap().is_empty());
        assert_eq!(s.read_context("GET /a").unwrap(), Some(ctx("GET /a", 200)));
        let raw = std::fs::read_to_string(dir.path().join(CONTEXT_EDITS_FILE)).unwrap();
        assert_eq!(
            raw.lines().count(),
            3,
            "the journal keeps every edit: {raw}"
        );
    }

    #[test]
    fn unknown_keys_in_the_journal_are_errors() {
        let line = r#"{"op_id":"GET /a","context":null,"at":"t","extra":1}"#;
        assert!(serde_json::from_str::<ContextEdit>(line).is_err());
    }
}
