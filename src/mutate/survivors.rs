//! Survivors as regeneration hints (mutation-guided regeneration): which operation each
//! surviving mutant is given to, and the hint that asks for an oracle to kill it.
//!
//! A survivor is a proven weakness: a concrete change no oracle notices. The hint uses
//! the challenger's format (a `suite` hint), so the existing targeted regeneration and
//! its mechanical merge do the work and existing oracles stay byte for byte.

use super::matrix::{Matrix, Status};
use super::mutants::Mutant;
use crate::model::{Hint, HintDimension, HintOrigin};
use std::collections::{BTreeMap, BTreeSet};

/// The mutants the matrix lists as missed (equivalent ones are counted apart there and
/// so never come back as targets), in list order.
pub fn survivors<'a>(mutants: &'a [Mutant], matrix: &Matrix) -> Vec<&'a Mutant> {
    let missed: BTreeSet<&str> = matrix
        .mutants
        .iter()
        .filter(|r| r.status == Status::Missed)
        .map(|r| r.id.as_str())
        .collect();
    mutants
        .iter()
        .filter(|m| missed.contains(m.id.as_str()))
        .collect()
}

/// Gives each survivor to one operation that can be asked about it: one of its `ops`
/// that is in `candidates` (operations with a context and a suite, within `--op`),
/// preferring the operation whose handler file is the mutant's file, else the one with
/// the fewest survivors so far (a shared helper's survivors are spread, not piled on
/// the first operation).
pub fn assign<'a>(
    survivors: &[&'a Mutant],
    candidates: &BTreeSet<String>,
    entry_files: &BTreeMap<String, String>,
) -> BTreeMap<String, Vec<&'a Mutant>> {
    let mut out: BTreeMap<String, Vec<&Mutant>> = BTreeMap::new();
    for m in survivors {
        let ops: Vec<&String> = m.ops.iter().filter(|o| candidates.contains(*o)).collect();
        let chosen = ops
            .iter()
            .find(|o| entry_files.get(o.as_str()) == Some(&m.file))
            .or_else(|| {
                ops.iter()
                    .min_by_key(|o| out.get(o.as_str()).map_or(0, Vec::len))
            });
        if let Some(op) = chosen {
            out.entry(op.to_string()).or_default().push(m);
        }
    }
    out
}

/// The hint for one survivor: its diff with file:line, the operator, and the oracles
/// that already exist (which must stay as they are).
pub fn hint(m: &Mutant, source: &str, existing: &[String]) -> Hint {
    let (before, after) = if source.get(m.start..m.end) == Some(m.before.as_str()) {
        m.line_diff(source)
    } else {
        (m.before.clone(), m.after.clone())
    };
    Hint {
        test_id: crate::agents::challenge::SUITE.to_string(),
        dimension: HintDimension::CoverageGaps,
        text: format!(
            "Mutant {id} ({op}) at {file}:{line} survives: every oracle passes on this \
             changed code.\n- {before}\n+ {after}\nWrite NEW oracles, with new test_ids, \
             that pass on the original code and fail on this change. Keep these existing \
             oracles unchanged: {existing}.",
            id = m.id,
            op = m.operator,
            file = m.file,
            line = m.line,
            before = before.trim(),
            after = after.trim(),
            existing = if existing.is_empty() {
                "(none)".to_string()
            } else {
                existing.join(", ")
            }
        ),
        origin: HintOrigin::Mutation,
        affects: Vec::new(),
    }
}

/// Most survivors one challenger note lists (the rest are counted).
pub const NOTE_SURVIVORS: usize = 8;

/// Per operation, what the challenger is told when it may see the matrix: oracles of
/// that operation that kill nothing, redundant ones, and the survivors in files its
/// bundle holds, as diffs (`read` gives a project file's text).
pub fn challenger_notes(
    mutants: &[Mutant],
    matrix: &Matrix,
    summary: &super::Summary,
    read: &dyn Fn(&str) -> String,
) -> BTreeMap<String, String> {
    let mut ops: BTreeSet<&str> = BTreeSet::new();
    for m in mutants {
        ops.extend(m.ops.iter().map(String::as_str));
    }
    let alive = survivors(mutants, matrix);
    let mut sources: BTreeMap<&str, String> = BTreeMap::new();
    let mut out = BTreeMap::new();
    for op in ops {
        let mine = |o_id: &&String| o_id.starts_with(&format!("{op}#"));
        let nothing: Vec<&String> = summary.kills_nothing.iter().filter(mine).collect();
        let redundant: Vec<&String> = summary.redundant.iter().filter(mine).collect();
        let here: Vec<&&Mutant> = alive
            .iter()
            .filter(|m| m.ops.iter().any(|o| o == op))
            .collect();
        let mut text = String::from(
            "MUTATION ANALYSIS (faults seeded into the code above; which oracles notice them):\n",
        );
        let list = |v: &[&String]| -> String {
            let ids: Vec<&str> = v
                .iter()
                .map(|o| o.rsplit('#').next().unwrap_or(o))
                .collect();
            if ids.is_empty() {
                "(none)".into()
            } else {
                ids.join(", ")
            }
        };
        text.push_str(&format!(
            "- oracles that kill no mutant: {}\n",
            list(&nothing)
        ));
        text.push_str(&format!(
            "- redundant oracles (another kills every mutant they kill): {}\n",
            list(&redundant)
        ));
        text.push_str(&format!(
            "- surviving mutants (every oracle passes on these changes): {}\n",
            here.len()
        ));
        for m in here.iter().take(NOTE_SURVIVORS) {
            let source = sources
                .entry(m.file.as_str())
                .or_insert_with(|| read(&m.file));
            let (before, after) = if source.get(m.start..m.end) == Some(m.before.as_str()) {
                m.line_diff(source)
            } else {
                (m.before.clone(), m.after.clone())
            };
            text.push_str(&format!(
                "  {}:{} {}\n  - {}\n  + {}\n",
                m.file,
                m.line,
                m.operator,
                before.trim(),
                after.trim()
            ));
        }
        if here.len() > NOTE_SURVIVORS {
            text.push_str(&format!("  ... and {} more\n", here.len() - NOTE_SURVIVORS));
        }
        text.push_str("Point at the coverage gaps these show, with the evidence.\n");
        out.insert(op.to_string(), text);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mutate::matrix::MatrixRow;
    use crate::mutate::operators::Operator;

    fn m(id: &str, file: &str, ops: &[&str]) -> Mutant {
        Mutant {
            id: id.into(),
            operator: Operator::StatusSwap,
            file: file.into(),
            line: 2,
            column: 5,
            start: 19,
            end: 22,
            before: "201".into(),
            after: "200".into(),
            ops: ops.iter().map(|s| s.to_string()).collect(),
        }
    }

    #[test]
    fn survivors_go_to_their_handler_or_are_spread_and_hints_carry_the_diff() {
        let list = vec![
            m("m1", "H.java", &["GET /a", "POST /a"]),
            m("m2", "Json.java", &["GET /a", "POST /a"]),
            m("m3", "Json.java", &["GET /a", "POST /a"]),
            m("m4", "H.java", &["GET /a"]),
        ];
        let row = |id: &str, status| MatrixRow {
            id: id.into(),
            status,
            killed_by: vec![],
            detail: String::new(),
        };
        let matrix = Matrix {
            oracles: vec![],
            excluded: vec![],
            mutants: vec![
                row("m1", Status::Missed),
                row("m2", Status::Missed),
                row("m3", Status::Missed),
                row("m4", Status::Equivalent),
            ],
        };
        let s = survivors(&list, &matrix);
        assert_eq!(s.len(), 3);
        let candidates = BTreeSet::from(["GET /a".to_string(), "POST /a".to_string()]);
        let entries = BTreeMap::from([("POST /a".to_string(), "H.java".to_string())]);
        let by_op = assign(&s, &candidates, &entries);
        let ids = |op: &str| -> Vec<&str> { by_op[op].iter().map(|m| m.id.as_str()).collect() };
        // m1 goes to its handler's operation; the shared file's m2 and m3 go where fewer
        // survivors are (ties: the first operation).
        assert_eq!(ids("POST /a"), vec!["m1"]);
        assert_eq!(ids("GET /a"), vec!["m2", "m3"]);

        let source = "class H {\n    send(201);\n}\n";
        let h = hint(&list[0], source, &["fv_create".into()]);
        assert_eq!(h.test_id, "suite");
        assert_eq!(h.origin, HintOrigin::Mutation);
        assert!(h.text.contains("H.java:2"), "{}", h.text);
        assert!(h.text.contains("- send(201);\n+ send(200);"), "{}", h.text);
        assert!(
            h.text
                .contains("Keep these existing oracles unchanged: fv_create")
        );
    }
}
