//! What a verdict says about an oracle as it is now: its outcome while the oracle's
//! content is the content that ran, `Stale` once the content changed (an edit, an undo
//! of one). A verdict vouches for the oracle that ran, never for a later version of it.
//!
//! Pure: the content hashes come from `SessionView` (cached there); drawing code asks
//! `SessionView::verdict_mark` and decides how a mark looks.

use crate::model::{Outcome, Verdict};

/// The verdict column's value for one oracle.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum VerdictMark {
    Pass,
    Fail,
    Error,
    Skipped,
    /// The oracle changed since this outcome was found: shown as stale until re-run.
    Stale(Outcome),
}

impl VerdictMark {
    /// The mark of `verdict` for an oracle whose content now hashes to `current`. A
    /// verdict stored without a hash (before hashes existed) or an oracle whose hash is
    /// unknown is taken at its word: never stale.
    pub fn of(verdict: &Verdict, current: Option<&str>) -> VerdictMark {
        match (verdict.content_hash.as_deref(), current) {
            (Some(ran), Some(now)) if ran != now => VerdictMark::Stale(verdict.outcome),
            _ => VerdictMark::from(verdict.outcome),
        }
    }

    /// The outcome the verdict found, stale or not.
    pub fn outcome(self) -> Outcome {
        match self {
            VerdictMark::Pass => Outcome::Pass,
            VerdictMark::Fail => Outcome::Fail,
            VerdictMark::Error => Outcome::Error,
            VerdictMark::Skipped => Outcome::Skipped,
            VerdictMark::Stale(o) => o,
        }
    }

    /// Whether the oracle changed since the verdict was found.
    pub fn is_stale(self) -> bool {
        matches!(self, VerdictMark::Stale(_))
    }

    /// A short word for lists: `pass`, `FAIL`, `error`, `skipped`, `stale`.
    pub fn label(self) -> &'static str {
        match self {
            VerdictMark::Pass => "pass",
            VerdictMark::Fail => "FAIL",
            VerdictMark::Error => "error",
            VerdictMark::Skipped => "skipped",
            VerdictMark::Stale(_) => "stale",
        }
    }
}

impl From<Outcome> for VerdictMark {
    fn from(o: Outcome) -> Self {
        match o {
            Outcome::Pass => VerdictMark::Pass,
            Outcome::Fail => VerdictMark::Fail,
            Outcome::Error => VerdictMark::Error,
            Outcome::Skipped => VerdictMark::Skipped,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn verdict(outcome: Outcome, hash: Option<&str>) -> Verdict {
        Verdict {
            o_id: "GET /a#x".into(),
            outcome,
            steps: Vec::new(),
            at: "t".into(),
            base_url: "http://h".into(),
            isolation: None,
            content_hash: hash.map(str::to_string),
        }
    }

    #[test]
    fn stale_only_when_both_hashes_are_known_and_differ() {
        let v = verdict(Outcome::Pass, Some("aa"));
        assert_eq!(VerdictMark::of(&v, Some("aa")), VerdictMark::Pass);
        assert_eq!(
            VerdictMark::of(&v, Some("bb")),
            VerdictMark::Stale(Outcome::Pass)
        );
        assert_eq!(VerdictMark::of(&v, None), VerdictMark::Pass);
        let old = verdict(Outcome::Fail, None);
        assert_eq!(VerdictMark::of(&old, Some("bb")), VerdictMark::Fail);
        assert_eq!(VerdictMark::Stale(Outcome::Fail).outcome(), Outcome::Fail);
        assert_eq!(VerdictMark::Stale(Outcome::Fail).label(), "stale");
    }
}
