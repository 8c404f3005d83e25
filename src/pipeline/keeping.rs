//! What normalization did with the oracles the models wrote, for the run summary: how many
//! the tester gets (kept), how many of those carry a flag, how many were set aside for
//! contradicting the context and how many were dropped as structurally invalid, each by
//! rule.
//!
//! Setting aside is meant to be rare (only a contradiction removes an oracle), so a run
//! that sets aside more than [`SET_ASIDE_WARN_PERCENT`] of what was generated says so: the
//! context is then likely incomplete (an envelope the scan missed, fields extraction did
//! not see), and the workbench's set-aside list deserves a look.

use crate::agents::normalize::rule;
use crate::model::NormalizeReport;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

/// Above this share of generated oracles set aside, the summary warns.
pub const SET_ASIDE_WARN_PERCENT: f64 = 20.0;

/// The rules that set an oracle aside (restorable) rather than drop it.
const SET_ASIDE_RULES: [&str; 2] = [rule::UNKNOWN_FIELD, rule::UNKNOWN_STATUS];

/// Kept, flagged, set aside and dropped, by rule.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Keeping {
    /// Oracles in the final suites (single-op and multi-op).
    pub kept: usize,
    /// Of `kept`, those with at least one normalization flag.
    pub flagged: usize,
    /// Rule → kept oracles it flagged (an oracle counts once per rule).
    pub flagged_by_rule: BTreeMap<String, usize>,
    /// Rule → oracles set aside under it.
    pub set_aside_by_rule: BTreeMap<String, usize>,
    /// Rule → oracles dropped under it (not restorable).
    pub dropped_by_rule: BTreeMap<String, usize>,
}

impl Keeping {
    /// Adds one suite: the test ids it holds now and its normalization reports.
    pub fn add<'a>(
        &mut self,
        kept_ids: impl IntoIterator<Item = &'a str>,
        reports: &[NormalizeReport],
    ) {
        let kept: BTreeSet<&str> = kept_ids.into_iter().collect();
        self.kept += kept.len();
        let mut flagged: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
        for r in reports {
            for f in r.flags.iter().filter(|f| kept.contains(f.test_id.as_str())) {
                flagged
                    .entry(f.test_id.as_str())
                    .or_default()
                    .insert(f.rule.as_str());
            }
            for d in &r.dropped {
                let into = if SET_ASIDE_RULES.contains(&d.rule.as_str()) {
                    &mut self.set_aside_by_rule
                } else {
                    &mut self.dropped_by_rule
                };
                *into.entry(d.rule.clone()).or_default() += 1;
            }
        }
        self.flagged += flagged.len();
        for rule in flagged.values().flatten() {
            *self.flagged_by_rule.entry(rule.to_string()).or_default() += 1;
        }
    }

    pub fn set_aside(&self) -> usize {
        self.set_aside_by_rule.values().sum()
    }

    pub fn dropped(&self) -> usize {
        self.dropped_by_rule.values().sum()
    }

    /// Kept plus everything removed: what normalization was given, counted per pass.
    pub fn generated(&self) -> usize {
        self.kept + self.set_aside() + self.dropped()
    }

    /// The share of generated oracles set aside, in percent (0 when nothing was generated).
    pub fn set_aside_percent(&self) -> f64 {
        match self.generated() {
            0 => 0.0,
            n => 100.0 * self.set_aside() as f64 / n as f64,
        }
    }

    /// The warning, when more than [`SET_ASIDE_WARN_PERCENT`] was set aside.
    pub fn warning(&self) -> Option<String> {
        let pct = self.set_aside_percent();
        (pct > SET_ASIDE_WARN_PERCENT).then(|| {
            format!(
                "{} of {} generated oracles ({pct:.0}%) were set aside as contradicting the \
                 source context (more than {SET_ASIDE_WARN_PERCENT:.0}%): the contexts may be \
                 incomplete; review the set-aside oracles in the workbench (v: review state)",
                self.set_aside(),
                self.generated()
            )
        })
    }

    /// The summary's lines.
    pub fn render(&self, out: &mut String) {
        let _ = writeln!(
            out,
            "Normalization: {} oracles kept ({} flagged), {} set aside as contradicting the context (restorable in the workbench), {} dropped",
            self.kept,
            self.flagged,
            self.set_aside(),
            self.dropped()
        );
        for (label, by_rule) in [
            ("flagged", &self.flagged_by_rule),
            ("set aside", &self.set_aside_by_rule),
            ("dropped", &self.dropped_by_rule),
        ] {
            if by_rule.is_empty() {
                continue;
            }
            let parts: Vec<String> = by_rule.iter().map(|(r, n)| format!("{r} {n}")).collect();
            let _ = writeln!(out, "  {label:<10} {}", parts.join(", "));
        }
        if let Some(w) = self.warning() {
            let _ = writeln!(out, "warning: {w}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Dropped, Flag};

    fn report(flags: &[(&str, &str)], dropped: &[(&str, &str)]) -> NormalizeReport {
        NormalizeReport {
            dropped: dropped
                .iter()
                .map(|(id, r)| Dropped {
                    test_id: id.to_string(),
                    rule: r.to_string(),
                    reason: String::new(),
                    raw: serde_json::Value::Null,
                })
                .collect(),
            flags: flags
                .iter()
                .map(|(id, r)| Flag {
                    test_id: id.to_string(),
                    rule: r.to_string(),
                    detail: String::new(),
                })
                .collect(),
            counts: BTreeMap::new(),
        }
    }

    #[test]
    fn counts_kept_flagged_set_aside_and_dropped_by_rule() {
        let mut k = Keeping::default();
        let first = report(
            &[
                ("a", "unverified_error_field"),
                ("a", "unverified_error_field"),
                ("gone", "x"),
            ],
            &[
                ("s", "unknown_field"),
                ("t", "unknown_status"),
                ("u", "no_status"),
            ],
        );
        let second = report(&[("b", "no_body_added")], &[]);
        k.add(["a", "b", "c"], &[first, second]);
        assert_eq!((k.kept, k.flagged), (3, 2));
        assert_eq!(k.flagged_by_rule["unverified_error_field"], 1);
        assert!(
            !k.flagged_by_rule.contains_key("x"),
            "flags of oracles no longer kept"
        );
        assert_eq!((k.set_aside(), k.dropped(), k.generated()), (2, 1, 6));
        assert!(k.set_aside_percent() > 33.0 && k.set_aside_percent() < 34.0);
        let mut out = String::new();
        k.render(&mut out);
        assert!(
            out.contains("3 oracles kept (2 flagged), 2 set aside"),
            "{out}"
        );
        assert!(
            out.contains("set aside  unknown_field 1, unknown_status 1"),
            "{out}"
        );
        assert!(
            out.contains("warning: 2 of 6 generated oracles (33%)"),
            "{out}"
        );
    }

    #[test]
    fn no_warning_at_or_below_the_threshold() {
        let mut k = Keeping::default();
        let ids: Vec<String> = (0..8).map(|i| format!("o{i}")).collect();
        k.add(
            ids.iter().map(String::as_str),
            &[report(
                &[],
                &[("s", "unknown_field"), ("t", "unknown_field")],
            )],
        );
        assert_eq!(k.set_aside_percent(), 20.0);
        assert_eq!(k.warning(), None);
    }
}
