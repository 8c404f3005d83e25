//! Challenger hints and the one targeted regeneration they drive (paper 4.4.1).
//!
//! The challenger only points; it never writes oracles. The regeneration may revise only
//! the flagged oracles: this module enforces that mechanically, so an unflagged oracle is
//! kept byte-for-byte whatever the model sends back, and every replacement is recorded as
//! a before/after pair for the reviewer.

use crate::model::{Hint, HintDimension, HintOrigin};
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;

/// The id hints use for the suite as a whole.
pub const SUITE: &str = "suite";

/// Anything with a test id: single-op and multi-op oracles (the records' own trait, so
/// one bound serves the records and the merge).
pub use crate::store::TestId;

/// Hints kept and refused after checking them against the suite.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct HintCheck {
    pub hints: Vec<Hint>,
    pub refused: Vec<(serde_json::Value, String)>,
}

/// Parses raw challenger output; a hint must name an oracle of the suite or `suite`, and a
/// multi-op-only dimension is refused on single-op suites.
pub fn check_hints(raw: &serde_json::Value, test_ids: &BTreeSet<&str>, multi: bool) -> HintCheck {
    let list = raw
        .get("hints")
        .unwrap_or(raw)
        .as_array()
        .cloned()
        .unwrap_or_default();
    let mut out = HintCheck::default();
    for item in list {
        let hint: Hint = match serde_json::from_value(item.clone()) {
            // Only our own check writes quadrant hints; a model cannot claim to.
            Ok(h) => Hint {
                origin: HintOrigin::Challenger,
                ..h
            },
            Err(e) => {
                out.refused.push((item, format!("malformed hint: {e}")));
                continue;
            }
        };
        if hint.test_id != SUITE && !test_ids.contains(hint.test_id.as_str()) {
            let reason = format!("names {}, which is not in the suite", hint.test_id);
            out.refused.push((item, reason));
        } else if !multi && hint.dimension == HintDimension::SequenceLogic {
            let reason = "sequence_logic applies to multi-op suites only".to_string();
            out.refused.push((item, reason));
        } else if hint.text.trim().is_empty() {
            out.refused.push((item, "empty hint".into()));
        } else {
            out.hints.push(hint);
        }
    }
    out
}

/// Keeps the hints the check refused, with their reasons, at `rel` in the session, so a
/// reviewer can see what the challenger said that could not be acted on (single-op and
/// multi-op alike). Nothing is written when none was refused; a failed write is logged.
pub async fn keep_refused(
    ctx: &crate::agents::runtime::AgentCtx,
    rel: String,
    checked: &HintCheck,
) {
    if checked.refused.is_empty() {
        return;
    }
    let refused = checked.refused.clone();
    if let Err(e) = ctx.write(move |s| s.write_json(&rel, &refused)).await {
        tracing::warn!("cannot keep refused hints: {e}");
    }
}

/// The test ids the hints flag (without `suite`): each hint's target and the ids it lists
/// in `affects`.
pub fn flagged(hints: &[Hint]) -> BTreeSet<String> {
    hints
        .iter()
        .flat_map(|h| std::iter::once(&h.test_id).chain(&h.affects))
        .filter(|id| id.as_str() != SUITE)
        .cloned()
        .collect()
}

/// The oracles the regeneration may revise: exactly those a hint is about, its target
/// `test_id` plus the ids it lists in `affects`, that the suite holds. An id only
/// mentioned in a hint's text is not flagged: a suite hint that says "like fv_2, add a
/// boundary case" asks nothing of fv_2, and flagging by mention sent oracles for revision
/// that nothing asked to change while missing the "all 21 others" a hint meant.
pub fn targets<T: TestId>(original: &[T], hints: &[Hint]) -> BTreeSet<String> {
    let mut out = flagged(hints);
    out.retain(|id| original.iter().any(|o| o.test_id() == id));
    out
}

/// What the one targeted regeneration is sent: the oracles to revise, the hints, and the
/// ids already taken. Built in one place so every oracle a hint references is in it.
#[derive(Debug)]
pub struct RevisionRequest<'a, T> {
    pub flagged: Vec<&'a T>,
    /// Hints addressed to `suite` or to a flagged oracle; a hint naming an oracle the
    /// suite no longer has is left out (it could not be acted on).
    pub hints: Vec<&'a Hint>,
    pub existing: Vec<&'a str>,
}

/// Hints in the order a revision reads them, each once: the challenger's first, then our
/// quadrant check's, then mutation survivors' (a later hint of the same target and text
/// is a repeat).
fn ordered<'a>(hints: impl Iterator<Item = &'a Hint>) -> Vec<&'a Hint> {
    let rank = |o: HintOrigin| match o {
        HintOrigin::Challenger => 0,
        HintOrigin::Quadrant => 1,
        HintOrigin::Mutation => 2,
    };
    let mut seen = BTreeSet::new();
    let mut out: Vec<&Hint> = hints
        .filter(|h| seen.insert((h.test_id.clone(), h.text.trim().to_string())))
        .collect();
    out.sort_by_key(|h| rank(h.origin));
    out
}

/// Builds the [`RevisionRequest`] for `original` under `hints`.
pub fn revision_request<'a, T: TestId>(
    original: &'a [T],
    hints: &'a [Hint],
) -> RevisionRequest<'a, T> {
    let targets = targets(original, hints);
    RevisionRequest {
        flagged: original
            .iter()
            .filter(|o| targets.contains(o.test_id()))
            .collect(),
        hints: ordered(
            hints
                .iter()
                .filter(|h| h.test_id == SUITE || targets.contains(&h.test_id)),
        ),
        existing: original.iter().map(TestId::test_id).collect(),
    }
}

/// What the regeneration changed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Regeneration<T> {
    /// The suite after regeneration.
    pub suite: Vec<T>,
    /// (before, after) for each revised oracle.
    pub replaced: Vec<(T, T)>,
    /// New oracles accepted because a `suite` hint asked for more.
    pub added: Vec<T>,
    /// Regenerated oracles not taken, with the reason.
    pub ignored: Vec<(String, String)>,
}

impl<T: TestId> Regeneration<T> {
    /// Ids of the oracles the regeneration replaced or added: what a reviewer should
    /// look at again.
    pub fn changed_ids(&self) -> Vec<String> {
        self.replaced
            .iter()
            .map(|(_, after)| after.test_id().to_string())
            .chain(self.added.iter().map(|o| o.test_id().to_string()))
            .collect()
    }
}

/// Merges regenerated oracles into the suite. Only [`targets`] (oracles a hint names) are
/// replaced; an oracle with a new test_id is added only when a `suite` hint asked for
/// more; one that reuses the id of an oracle no hint names is ignored (that oracle stays
/// as it was). So a suite hint with an empty flagged list can only add.
pub fn merge<T: TestId + Clone + PartialEq>(
    original: &[T],
    hints: &[Hint],
    regenerated: Vec<T>,
) -> Regeneration<T> {
    let flagged = targets(original, hints);
    let suite_hint = hints.iter().any(|h| h.test_id == SUITE);
    let existing: BTreeSet<&str> = original.iter().map(TestId::test_id).collect();
    let mut suite = original.to_vec();
    let mut replaced = Vec::new();
    let mut added = Vec::new();
    let mut ignored = Vec::new();
    let mut taken = BTreeSet::new();
    for new in regenerated {
        let id = new.test_id().to_string();
        if !taken.insert(id.clone()) {
            ignored.push((id, "returned twice; the first was kept".into()));
        } else if flagged.contains(&id) {
            if let Some(slot) = suite.iter_mut().find(|o| o.test_id() == id)
                && *slot != new
            {
                replaced.push((slot.clone(), new.clone()));
                *slot = new;
            }
        } else if existing.contains(id.as_str()) {
            ignored.push((id, "not flagged by the challenger; kept unchanged".into()));
        } else if suite_hint {
            added.push(new.clone());
            suite.push(new);
        } else {
            ignored.push((id, "new oracle without a suite-level hint".into()));
        }
    }
    Regeneration {
        suite,
        replaced,
        added,
        ignored,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Assertion;
    use crate::model::Oracle;
    use serde_json::json;

    fn oracle(id: &str, status: u16) -> Oracle {
        Oracle {
            test_id: id.into(),
            op_id: "GET /a".into(),
            description: String::new(),
            oracle_strategy: None,
            input: Default::default(),
            assertions: vec![Assertion::Status { expected: status }],
            evidence: String::new(),
            evidence_refs: vec![],
            fresh_state: false,
        }
    }

    fn hint(id: &str) -> Hint {
        Hint {
            test_id: id.into(),
            dimension: HintDimension::AssertionCorrectness,
            text: "wrong status".into(),
            origin: Default::default(),
            affects: vec![],
        }
    }

    #[test]
    fn only_flagged_oracles_change() {
        let original = vec![oracle("a", 200), oracle("b", 400), oracle("c", 404)];
        let regen = vec![oracle("a", 201), oracle("b", 500), oracle("new", 200)];
        let r = merge(&original, &[hint("a")], regen);
        assert_eq!(
            r.suite,
            vec![oracle("a", 201), oracle("b", 400), oracle("c", 404)]
        );
        assert_eq!(r.replaced, vec![(oracle("a", 200), oracle("a", 201))]);
        assert_eq!(r.ignored.len(), 2);
        assert!(r.added.is_empty());
    }

    #[test]
    fn suite_hint_allows_additions() {
        let r = merge(
            &[oracle("a", 200)],
            &[hint(SUITE)],
            vec![oracle("b", 400), oracle("b", 401)],
        );
        assert_eq!(r.added, vec![oracle("b", 400)]);
        assert_eq!(r.suite.len(), 2);
        assert_eq!(r.ignored[0].0, "b");
    }

    fn suite_hint(text: &str) -> Hint {
        Hint {
            test_id: SUITE.into(),
            dimension: HintDimension::CoverageGaps,
            text: text.into(),
            origin: Default::default(),
            affects: vec![],
        }
    }

    #[test]
    fn a_hint_flags_its_target_and_what_it_affects_never_a_mere_mention() {
        let original = vec![
            oracle("fv_1", 200),
            oracle("fv_10", 200),
            oracle("fi_2", 400),
            oracle("fi_3", 400),
        ];
        // Named in the text only: nothing about fv_1 must change.
        let mention = [suite_hint("like fv_1, add a 404 case")];
        assert!(targets(&original, &mention).is_empty());
        // "fix all the 400 oracles": the hint lists them.
        let mut all = suite_hint("every 400 oracle should assert the error body");
        all.affects = vec!["fi_2".into(), "fi_3".into(), "gone".into()];
        let hints = [all];
        let t = targets(&original, &hints);
        assert_eq!(t, ["fi_2".to_string(), "fi_3".to_string()].into());
        let regen = vec![
            oracle("fi_2", 422),
            oracle("fv_10", 500),
            oracle("fi_404", 404),
        ];
        let r = merge(&original, &hints, regen);
        assert_eq!(
            r.suite,
            vec![
                oracle("fv_1", 200),
                oracle("fv_10", 200),
                oracle("fi_2", 422),
                oracle("fi_3", 400),
                oracle("fi_404", 404)
            ]
        );
        assert_eq!(
            r.ignored,
            vec![(
                "fv_10".to_string(),
                "not flagged by the challenger; kept unchanged".to_string()
            )]
        );
        // The request sends exactly the flagged ones.
        let req = revision_request(&original, &hints);
        let sent: Vec<&str> = req.flagged.iter().map(|o| o.test_id.as_str()).collect();
        assert_eq!(sent, ["fi_2", "fi_3"]);
    }

    #[test]
    fn revision_hints_come_once_ordered_by_origin() {
        let mut quadrant = suite_hint("no FI oracle for 404");
        quadrant.origin = HintOrigin::Quadrant;
        let challenger = suite_hint("add a 404 case");
        let hints = [quadrant.clone(), challenger.clone(), challenger.clone()];
        let suite = [oracle("a", 200)];
        let req = revision_request(&suite, &hints);
        let texts: Vec<&str> = req.hints.iter().map(|h| h.text.as_str()).collect();
        assert_eq!(texts, ["add a 404 case", "no FI oracle for 404"]);
    }

    #[test]
    fn a_suite_hint_with_nothing_flagged_only_adds() {
        let original = vec![oracle("a", 200)];
        let hints = [suite_hint("no oracle covers 404")];
        assert!(targets(&original, &hints).is_empty());
        let r = merge(&original, &hints, vec![oracle("a", 404), oracle("b", 404)]);
        assert_eq!(r.suite, vec![oracle("a", 200), oracle("b", 404)]);
        assert_eq!(r.ignored.len(), 1);
    }

    #[test]
    fn model_hints_cannot_claim_to_be_quadrant_hints() {
        let ids: BTreeSet<&str> = ["a"].into();
        let raw = json!({"hints": [{"test_id": "a", "dimension": "coverage_gaps",
            "text": "x", "origin": "quadrant"}]});
        let c = check_hints(&raw, &ids, false);
        assert_eq!(c.hints[0].origin, HintOrigin::Challenger);
    }

    #[test]
    fn hints_naming_unknown_oracles_are_refused() {
        let ids: BTreeSet<&str> = ["a"].into();
        let raw = json!({"hints": [
            {"test_id": "a", "dimension": "coverage_gaps", "text": "add c+1"},
            {"test_id": "zzz", "dimension": "coverage_gaps", "text": "x"},
            {"test_id": "a", "dimension": "sequence_logic", "text": "x"},
            {"test_id": "a", "dimension": "taste", "text": "x"},
            {"test_id": "suite", "dimension": "structural_completeness", "text": "not_null missing"}
        ]});
        let c = check_hints(&raw, &ids, false);
        assert_eq!(c.hints.len(), 2);
        assert_eq!(c.refused.len(), 3);
        assert!(c.refused[0].1.contains("zzz"));
        assert_eq!(flagged(&c.hints), ["a".to_string()].into());
    }
}
