//! Records of `review.jsonl` and their replay into the current review state.
//!
//! The journal holds two kinds of line, told apart by their keys:
//! - a [`ReviewDecision`] (`{"o_id", "decision", ...}`), exactly the shared model type,
//!   so other tools can read the journal as a list of decisions;
//! - an undo record `{"undo": "<o_id>", "at": "..."}` that reverts the most recent
//!   not-yet-undone decision for that `o_id` (repeated undos walk further back; an undo
//!   with nothing left to revert is ignored with a warning).
//!
//! An undo is a separate record rather than a `Decision` variant so that the state
//! after replay only ever holds real decisions (accepted, rejected, edited).

use crate::model::ReviewDecision;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Reverts the latest decision for `o_id`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Undo {
    /// The `o_id` whose latest decision is reverted.
    pub undo: String,
    /// RFC 3339 timestamp.
    pub at: String,
}

/// One line of the review journal.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum JournalEntry {
    Decision(ReviewDecision),
    Undo(Undo),
}

/// Replays journal entries in order: per `o_id` the last decision not undone wins.
/// `o_id`s whose every decision was undone are absent (back to "pending").
pub fn replay(entries: &[JournalEntry]) -> BTreeMap<String, ReviewDecision> {
    let mut history: BTreeMap<&str, Vec<&ReviewDecision>> = BTreeMap::new();
    for entry in entries {
        match entry {
            JournalEntry::Decision(d) => history.entry(d.o_id.as_str()).or_default().push(d),
            JournalEntry::Undo(u) => {
                let popped = history.get_mut(u.undo.as_str()).and_then(Vec::pop);
                if popped.is_none() {
                    tracing::warn!(o_id = %u.undo, "undo with no decision to revert; ignored");
                }
            }
        }
    }
    history
        .into_iter()
        .filter_map(|(o_id, stack)| stack.last().map(|d| (o_id.to_string(), (*d).clone())))
        .collect()
}
