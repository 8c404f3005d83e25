//! Records of `judgements.jsonl`: the reviewer's word on a *verdict*, not on an oracle.
//!
//! ARMeta splits failing tests into true positives (TPFT: the API is wrong) and false
//! positives (FPFT: the test or oracle is wrong), found by reading the execution traces.
//! That is a judgement of one failed run, separate from accepting, rejecting or editing
//! the oracle itself, so it has its own append-only, fsynced journal beside
//! `review.jsonl` (which other tools read as a plain list of decisions). Each line is
//! either a [`Judgement`] (o_id, tp|fp, note, time, and the verdict it judged) or a
//! [`JudgementUndo`] that reverts the latest not-yet-undone judgement of its o_id, as
//! review undos do. Unknown keys are errors, as everywhere in the session.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// True or false positive.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Positive {
    /// The failure reveals a fault in the API (ARMeta's TPFT).
    Tp,
    /// The failure comes from a wrong oracle or test (ARMeta's FPFT).
    Fp,
}

impl Positive {
    /// Words for messages and the detail panes.
    pub fn words(self) -> &'static str {
        match self {
            Positive::Tp => "true positive",
            Positive::Fp => "false positive",
        }
    }

    /// Short mark for lists: `TP` / `FP`.
    pub fn mark(self) -> &'static str {
        match self {
            Positive::Tp => "TP",
            Positive::Fp => "FP",
        }
    }
}

/// The failed verdict a judgement is about: its outcome and the time of the run that
/// produced it (`None` when the run recorded no time).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JudgedVerdict {
    /// `fail` or `error` for an oracle; `relation_violated` or `execution_failed` for a
    /// metamorphic test.
    pub outcome: String,
    /// RFC 3339 time of the run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_at: Option<String>,
}

/// One judgement of a failed verdict.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Judgement {
    pub o_id: String,
    pub judgement: Positive,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// RFC 3339 time of the judgement.
    pub at: String,
    pub verdict: JudgedVerdict,
}

/// Reverts the latest judgement of `undo_judgement`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JudgementUndo {
    /// The o_id whose latest judgement is reverted.
    pub undo_judgement: String,
    /// RFC 3339 timestamp.
    pub at: String,
}

/// One line of `judgements.jsonl`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum JudgementEntry {
    Judged(Judgement),
    Undo(JudgementUndo),
}

/// Replays the journal: per o_id the last judgement not undone (absent when none).
pub fn replay_judgements(entries: &[JudgementEntry]) -> BTreeMap<String, Judgement> {
    let mut history: BTreeMap<&str, Vec<&Judgement>> = BTreeMap::new();
    for entry in entries {
        match entry {
            JudgementEntry::Judged(j) => history.entry(j.o_id.as_str()).or_default().push(j),
            JudgementEntry::Undo(u) => {
                let popped = history
                    .get_mut(u.undo_judgement.as_str())
                    .and_then(Vec::pop);
                if popped.is_none() {
                    tracing::warn!(o_id = %u.undo_judgement, "judgement undo with nothing to revert; ignored");
                }
            }
        }
    }
    history
        .into_iter()
        .filter_map(|(o_id, stack)| stack.last().map(|j| (o_id.to_string(), (*j).clone())))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_keys_are_errors_and_undo_walks_back() {
        let line =
            r#"{"o_id":"mr#a","judgement":"tp","at":"t","verdict":{"outcome":"fail"},"extra":1}"#;
        assert!(serde_json::from_str::<JudgementEntry>(line).is_err());
        let j = |p: Positive| {
            JudgementEntry::Judged(Judgement {
                o_id: "mr#a".into(),
                judgement: p,
                note: None,
                at: "t".into(),
                verdict: JudgedVerdict {
                    outcome: "relation_violated".into(),
                    run_at: None,
                },
            })
        };
        let undo = JudgementEntry::Undo(JudgementUndo {
            undo_judgement: "mr#a".into(),
            at: "t".into(),
        });
        let mut entries = vec![j(Positive::Tp), j(Positive::Fp)];
        assert_eq!(replay_judgements(&entries)["mr#a"].judgement, Positive::Fp);
        entries.push(undo.clone());
        assert_eq!(replay_judgements(&entries)["mr#a"].judgement, Positive::Tp);
        entries.push(undo);
        assert!(replay_judgements(&entries).is_empty());
    }
}
