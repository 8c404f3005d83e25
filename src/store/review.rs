//! Records of `review.jsonl` and their replay into the current review state and the
//! undo / redo stacks.
//!
//! The journal holds these kinds of line, told apart by their keys:
//! - a [`ReviewDecision`] (`{"o_id", "decision", ..., "step"}`), exactly the shared model
//!   type, so other tools can read the journal as a list of decisions. `step` names the
//!   user action the decision belongs to: every decision of one bulk accept shares it.
//!   A decision without `step` (older journals, decisions written by `check`/`import`)
//!   is a step of its own, named `@<line index>` (the journal is append-only, so the
//!   index of a complete line never changes);
//! - `{"undo_step": "<step>", "at"}` ([`UndoStep`]): reverts every decision of that step
//!   and moves it onto the redo stack;
//! - `{"redo_step": "<step>", "at"}` ([`RedoStep`]): applies the step's decisions again
//!   and moves it back onto the undo stack;
//! - the older undo record `{"undo": "<o_id>", "at"}` ([`Undo`]) that reverts the most
//!   recent not-yet-undone decision for that `o_id` (repeated undos walk further back; an
//!   undo with nothing left to revert is ignored with a warning). It is still replayed
//!   exactly as before, but no longer written, and it cannot be redone.
//!
//! A new step clears the redo stack, as in any editor. Undo and redo are records rather
//! than `Decision` variants so that the state after replay only ever holds real decisions
//! (accepted, rejected, edited), and so that both stacks survive a relaunch: they are a
//! pure function of the journal ([`replay_steps`]).

use crate::model::ReviewDecision;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};

/// Reverts the latest decision for `o_id` (journals written before steps existed).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Undo {
    /// The `o_id` whose latest decision is reverted.
    pub undo: String,
    /// RFC 3339 timestamp.
    pub at: String,
}

/// Reverts every decision of one step.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UndoStep {
    /// The step undone.
    pub undo_step: String,
    /// RFC 3339 timestamp.
    pub at: String,
}

/// Applies an undone step's decisions again.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RedoStep {
    /// The step redone.
    pub redo_step: String,
    /// RFC 3339 timestamp.
    pub at: String,
}

/// One line of the review journal.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum JournalEntry {
    Decision(ReviewDecision),
    Undo(Undo),
    UndoStep(UndoStep),
    RedoStep(RedoStep),
}

/// One user action on a stack: its id and where its decisions are in the journal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Step {
    /// The id `undo_step` / `redo_step` records name.
    pub id: String,
    /// Indices of the step's decisions in the replayed entries, in journal order.
    pub entries: Vec<usize>,
}

/// The journal replayed: what stands per `o_id`, and both stacks (most recent last).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Replayed {
    /// Per `o_id`, the last decision not undone.
    pub decisions: BTreeMap<String, ReviewDecision>,
    /// Steps that `undo` reverts, the next one last.
    pub undo: Vec<Step>,
    /// Steps that `redo` applies again, the next one last.
    pub redo: Vec<Step>,
}

/// The step id of the decision at `index`: its own, or `@<index>` when it has none.
pub fn step_id(index: usize, d: &ReviewDecision) -> String {
    d.step.clone().unwrap_or_else(|| format!("@{index}"))
}

/// A fresh step id: unique within a session (time in nanoseconds plus a counter for
/// steps made in the same nanosecond).
pub fn new_step_id() -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let t = chrono::Utc::now().timestamp_nanos_opt().unwrap_or_default();
    format!("s{t:x}-{n}")
}

/// Replays journal entries in order: per `o_id` the last decision not undone wins.
/// `o_id`s whose every decision was undone are absent (back to "pending").
pub fn replay(entries: &[JournalEntry]) -> BTreeMap<String, ReviewDecision> {
    replay_steps(entries).decisions
}

/// Replays journal entries into the review state and the undo / redo stacks.
pub fn replay_steps(entries: &[JournalEntry]) -> Replayed {
    let mut history: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    let mut members: HashMap<String, Vec<usize>> = HashMap::new();
    let mut undo: Vec<String> = Vec::new();
    let mut redo: Vec<String> = Vec::new();
    let o_id_at = |i: usize| match &entries[i] {
        JournalEntry::Decision(d) => d.o_id.as_str(),
        _ => "",
    };
    for (i, entry) in entries.iter().enumerate() {
        match entry {
            JournalEntry::Decision(d) => {
                history.entry(d.o_id.as_str()).or_default().push(i);
                let id = step_id(i, d);
                let m = members.entry(id.clone()).or_default();
                if m.is_empty() {
                    redo.clear();
                    undo.push(id);
                }
                m.push(i);
            }
            JournalEntry::Undo(u) => {
                let popped = history.get_mut(u.undo.as_str()).and_then(Vec::pop);
                let Some(i) = popped else {
                    tracing::warn!(o_id = %u.undo, "undo with no decision to revert; ignored");
                    continue;
                };
                // The reverted decision leaves its step; an emptied step leaves the stack.
                if let JournalEntry::Decision(d) = &entries[i] {
                    let id = step_id(i, d);
                    if let Some(m) = members.get_mut(&id) {
                        m.retain(|&x| x != i);
                        if m.is_empty() {
                            undo.retain(|s| *s != id);
                            redo.retain(|s| *s != id);
                        }
                    }
                }
            }
            JournalEntry::UndoStep(u) => {
                let Some(pos) = undo.iter().rposition(|s| *s == u.undo_step) else {
                    tracing::warn!(step = %u.undo_step, "undo of a step not done; ignored");
                    continue;
                };
                let id = undo.remove(pos);
                for &i in members.get(&id).into_iter().flatten().rev() {
                    if let Some(h) = history.get_mut(o_id_at(i))
                        && let Some(p) = h.iter().rposition(|&x| x == i)
                    {
                        h.remove(p);
                    }
                }
                redo.push(id);
            }
            JournalEntry::RedoStep(r) => {
                let Some(pos) = redo.iter().rposition(|s| *s == r.redo_step) else {
                    tracing::warn!(step = %r.redo_step, "redo of a step not undone; ignored");
                    continue;
                };
                let id = redo.remove(pos);
                for &i in members.get(&id).into_iter().flatten() {
                    history.entry(o_id_at(i)).or_default().push(i);
                }
                undo.push(id);
            }
        }
    }
    let decisions = history
        .into_iter()
        .filter_map(|(o_id, stack)| {
            let d = match &entries[*stack.last()?] {
                JournalEntry::Decision(d) => d.clone(),
                _ => return None,
            };
            Some((o_id.to_string(), d))
        })
        .collect();
    let step = |id: String| Step {
        entries: members.get(&id).cloned().unwrap_or_default(),
        id,
    };
    Replayed {
        decisions,
        undo: undo.into_iter().map(step).collect(),
        redo: redo.into_iter().map(step).collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Decision;

    fn d(o_id: &str, step: Option<&str>) -> JournalEntry {
        JournalEntry::Decision(ReviewDecision {
            o_id: o_id.into(),
            decision: Decision::Accepted,
            edited: None,
            note: None,
            at: "t".into(),
            step: step.map(str::to_string),
        })
    }

    fn undo(s: &str) -> JournalEntry {
        JournalEntry::UndoStep(UndoStep {
            undo_step: s.into(),
            at: "t".into(),
        })
    }

    fn redo(s: &str) -> JournalEntry {
        JournalEntry::RedoStep(RedoStep {
            redo_step: s.into(),
            at: "t".into(),
        })
    }

    fn ids(steps: &[Step]) -> Vec<&str> {
        steps.iter().map(|s| s.id.as_str()).collect()
    }

    #[test]
    fn a_step_undoes_and_redoes_as_one() {
        let mut j = vec![d("a", Some("s1")), d("b", Some("s1")), d("c", Some("s2"))];
        let r = replay_steps(&j);
        assert_eq!(ids(&r.undo), ["s1", "s2"]);
        assert_eq!(r.undo[0].entries, [0, 1]);
        j.push(undo("s2"));
        j.push(undo("s1"));
        let r = replay_steps(&j);
        assert!(r.decisions.is_empty());
        assert_eq!(ids(&r.redo), ["s2", "s1"]);
        j.push(redo("s1"));
        let r = replay_steps(&j);
        assert_eq!(r.decisions.keys().collect::<Vec<_>>(), ["a", "b"]);
        assert_eq!((ids(&r.undo), ids(&r.redo)), (vec!["s1"], vec!["s2"]));
        // A new action forgets what could be redone.
        j.push(d("d", Some("s3")));
        let r = replay_steps(&j);
        assert!(r.redo.is_empty());
        assert_eq!(ids(&r.undo), ["s1", "s3"]);
    }

    #[test]
    fn stepless_decisions_are_steps_of_their_own_and_old_undos_still_apply() {
        let j = vec![
            d("a", None),
            d("a", None),
            JournalEntry::Undo(Undo {
                undo: "a".into(),
                at: "t".into(),
            }),
        ];
        let r = replay_steps(&j);
        assert_eq!(ids(&r.undo), ["@0"]);
        assert!(r.decisions.contains_key("a"));
        let line = serde_json::to_string(&undo("@0")).unwrap();
        assert_eq!(line, r#"{"undo_step":"@0","at":"t"}"#);
        let back: JournalEntry = serde_json::from_str(&line).unwrap();
        assert_eq!(back, undo("@0"));
    }

    #[test]
    fn unknown_steps_are_ignored() {
        let r = replay_steps(&[d("a", Some("s")), undo("zz"), redo("s")]);
        assert_eq!(ids(&r.undo), ["s"]);
        assert!(r.redo.is_empty());
    }
}
