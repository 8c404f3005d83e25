//! Mutation results as the workbench shows them: the mutants of `SESSION/mutation/`
//! joined with their matrix rows (survivors first), each oracle's kills, and the scores.
//!
//! Read once by the loader (and again after a `mutate` run started here); a missing
//! results directory is no results, a broken file is a warning naming it, never a
//! failed open. Every text that came from a file (source lines, mutant text,
//! assertions, details) is escaped here, before it can reach the terminal.

use crate::model::ReviewState;
use crate::mutate::matrix::{self, Kill, Matrix, Status, Summary};
use crate::mutate::results::{MATRIX_FILE, MUTANTS_FILE, Results, SUMMARY_FILE};
use crate::mutate::{Mutant, Operator};
use crate::text::escape_controls;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The results directory of a session, relative to it.
pub const MUTATION_DIR: &str = "mutation";

/// One mutant with its outcome, as the Mutants screen lists it.
#[derive(Debug, Clone, PartialEq)]
pub struct MutantView {
    /// The mutant as listed (`mutants.jsonl`); `before` and `after` are escaped for
    /// display, `file` is kept as listed (it keys the sources) and escaped when drawn.
    pub mutant: Mutant,
    /// Its outcome in the matrix.
    pub status: Status,
    /// Oracles that failed on it, with their first failing assertion (escaped).
    pub killed_by: Vec<Kill>,
    /// Why it is unviable or timed out (escaped).
    pub detail: String,
    /// The whole mutated line before and after the edit (escaped, tabs expanded), when
    /// the source still matches the mutant's byte range.
    pub diff: Option<(String, String)>,
}

/// The mutation results of a session.
#[derive(Debug, Clone, PartialEq)]
pub struct MutationView {
    /// Mutants with a matrix row, survivors first (see [`order`]).
    pub mutants: Vec<MutantView>,
    /// The matrix as read, for scores without some oracles.
    pub matrix: Matrix,
    /// The summary, when `summary.json` could be read.
    pub summary: Option<Summary>,
    /// The options the run recorded (`options.json`): whether the score is of a sample
    /// (`--max-mutants`) and of the accepted oracles only.
    pub options: Option<crate::mutate::analysis::Settings>,
    /// o_id → (kills, unique kills), from the summary.
    pub figures: BTreeMap<String, (usize, usize)>,
    /// Oracles that kill no mutant.
    pub kills_nothing: BTreeSet<String>,
    /// Oracles whose kills another oracle's kills include.
    pub redundant: BTreeSet<String>,
}

impl MutationView {
    /// The suite's score as computed by the run (`None`: nothing viable was covered).
    pub fn score(&self) -> Option<f64> {
        match &self.summary {
            Some(s) => s.total.score,
            None => matrix::score_without(&self.matrix, &BTreeSet::new()),
        }
    }

    /// The oracles of the matrix `state_of` calls rejected (in this review).
    pub fn rejected(&self, state_of: impl Fn(&str) -> ReviewState) -> BTreeSet<String> {
        self.matrix
            .oracles
            .iter()
            .filter(|o| state_of(o) == ReviewState::Rejected)
            .cloned()
            .collect()
    }

    /// The score if `removed` were taken out of the suite, from the matrix (no re-run).
    pub fn score_without(&self, removed: &BTreeSet<String>) -> Option<f64> {
        matrix::score_without(&self.matrix, removed)
    }

    /// What the analysis found of `o_id`, in words, for the oracle detail pane (`None`:
    /// the analysis did not count it).
    pub fn words(&self, o_id: &str) -> Option<String> {
        let (kills, unique) = self.figures.get(o_id)?;
        let mut text = format!("mutation: kills {kills} mutant(s), {unique} only it kills");
        if self.kills_nothing.contains(o_id) {
            text = "mutation: kills no mutant".into();
        }
        let by = self.summary.as_ref().and_then(|s| {
            let f = s.per_oracle.iter().find(|f| f.o_id == o_id)?;
            f.subsumed_by.clone()
        });
        if let Some(by) = by {
            text.push_str(&format!("; redundant: {by} kills all of them"));
        }
        Some(escape_controls(&text).into_owned())
    }

    /// Files with mutants, for loading their sources.
    pub fn files(&self) -> BTreeSet<String> {
        self.mutants.iter().map(|m| m.mutant.file.clone()).collect()
    }
}

/// Where a status sorts: survivors first, then what the suite caught, then the rest.
fn rank(s: Status) -> u8 {
    match s {
        Status::Missed => 0,
        Status::Caught => 1,
        Status::Timeout => 2,
        Status::NotCovered => 3,
        Status::Unviable => 4,
        Status::Equivalent => 5,
    }
}

/// Sorts mutants survivors first, then by file and position, so a curator meets
/// the faults nothing noticed before anything else.
pub fn order(mutants: &mut [MutantView]) {
    mutants.sort_by(|a, b| {
        let key = |m: &MutantView| {
            (
                rank(m.status),
                m.mutant.file.clone(),
                m.mutant.line,
                m.mutant.column,
                m.mutant.id.clone(),
            )
        };
        key(a).cmp(&key(b))
    });
}

/// What the Mutants screen shows of the list: each filter `None` lets everything by.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MutantFilter {
    /// Only mutants made by this operator (what kind of fault the suite misses).
    pub operator: Option<Operator>,
    /// Only mutants of this project file (where the suite is blind).
    pub file: Option<String>,
    /// An operation whose bundle holds the mutated file.
    pub op: Option<String>,
}

impl MutantFilter {
    /// Whether `m` passes every filter set.
    pub fn keeps(&self, m: &MutantView) -> bool {
        self.operator.is_none_or(|o| m.mutant.operator == o)
            && self.file.as_ref().is_none_or(|f| &m.mutant.file == f)
            && self.op.as_ref().is_none_or(|o| m.mutant.ops.contains(o))
    }

    /// Rows of `mutants` passing the filters, in list order.
    pub fn visible(&self, mutants: &[MutantView]) -> Vec<usize> {
        (0..mutants.len())
            .filter(|&i| self.keeps(&mutants[i]))
            .collect()
    }
}

/// Reads `SESSION/mutation/` if it has a matrix. Warnings name the broken file; the
/// sources under `project_root` give the diffs (a file that changed since is shown
/// without one).
pub fn load(session_dir: &Path, project_root: &Path) -> (Option<MutationView>, Vec<String>) {
    let dir = session_dir.join(MUTATION_DIR);
    let mut warnings = Vec::new();
    if !dir.join(MATRIX_FILE).is_file() {
        return (None, warnings);
    }
    let results = Results::new(&dir);
    let matrix = match results.read_matrix() {
        Ok(m) => m,
        Err(e) => {
            warnings.push(format!(
                "{MUTATION_DIR}/{MATRIX_FILE} cannot be read, mutation results not shown: {}",
                escape_controls(&e.to_string())
            ));
            return (None, warnings);
        }
    };
    let listed = results.read_mutants().unwrap_or_else(|e| {
        warnings.push(format!(
            "{MUTATION_DIR}/{MUTANTS_FILE} cannot be read: {}",
            escape_controls(&e.to_string())
        ));
        Vec::new()
    });
    let summary = if dir.join(SUMMARY_FILE).is_file() {
        results
            .read_summary()
            .map_err(|e| {
                warnings.push(format!(
                    "{MUTATION_DIR}/{SUMMARY_FILE} cannot be read: {}",
                    escape_controls(&e.to_string())
                ))
            })
            .ok()
    } else {
        None
    };
    let mutants = join(&matrix, listed, project_root);
    let options = crate::mutate::analysis::Settings::read(&dir)
        .map_err(|e| warnings.push(escape_controls(&e.to_string()).into_owned()))
        .ok()
        .flatten();
    let view = MutationView {
        options,
        figures: figures(summary.as_ref()),
        kills_nothing: summary
            .iter()
            .flat_map(|s| s.kills_nothing.iter().cloned())
            .collect(),
        redundant: summary
            .iter()
            .flat_map(|s| s.redundant.iter().cloned())
            .collect(),
        mutants,
        matrix,
        summary,
    };
    (Some(view), warnings)
}

fn figures(summary: Option<&Summary>) -> BTreeMap<String, (usize, usize)> {
    summary
        .iter()
        .flat_map(|s| &s.per_oracle)
        .map(|f| (f.o_id.clone(), (f.kills, f.unique_kills)))
        .collect()
}

/// The matrix rows with their mutants (rows of mutants not listed are left out), in
/// [`order`], every text escaped.
fn join(matrix: &Matrix, listed: Vec<Mutant>, root: &Path) -> Vec<MutantView> {
    let mut by_id: BTreeMap<String, Mutant> =
        listed.into_iter().map(|m| (m.id.clone(), m)).collect();
    let mut texts: BTreeMap<String, Option<String>> = BTreeMap::new();
    let mut out = Vec::new();
    for row in &matrix.mutants {
        let Some(mut m) = by_id.remove(&row.id) else {
            continue;
        };
        let text = texts
            .entry(m.file.clone())
            .or_insert_with(|| read_source(root, &m.file));
        let diff = text.as_deref().and_then(|t| line_diff(&m, t));
        m.before = escape_controls(&m.before).into_owned();
        m.after = escape_controls(&m.after).into_owned();
        out.push(MutantView {
            mutant: m,
            status: row.status,
            killed_by: row
                .killed_by
                .iter()
                .map(|k| Kill {
                    o_id: escape_controls(&k.o_id).into_owned(),
                    assertion: escape_controls(&k.assertion).into_owned(),
                })
                .collect(),
            detail: escape_controls(&row.detail).into_owned(),
            diff,
        });
    }
    order(&mut out);
    out
}

/// A project file, if it lies inside the project and can be read.
fn read_source(root: &Path, rel: &str) -> Option<String> {
    let root = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
    let path = super::confine::confined(&root, rel).ok()?;
    let bytes = std::fs::read(path).ok()?;
    Some(String::from_utf8_lossy(&bytes).into_owned())
}

/// The mutated line before and after, when the mutant's byte range still fits `text`
/// and holds what the mutant replaced.
fn line_diff(m: &Mutant, text: &str) -> Option<(String, String)> {
    let fits = m.start <= m.end
        && m.end <= text.len()
        && text.is_char_boundary(m.start)
        && text.is_char_boundary(m.end)
        && text[m.start..m.end] == m.before;
    if !fits {
        return None;
    }
    let (before, after) = m.line_diff(text);
    let clean = |s: &str| escape_controls(&s.replace('\t', "    ")).into_owned();
    Some((clean(&before), clean(&after)))
}

/// A score as a percentage (`-` when there is none).
pub fn percent(score: Option<f64>) -> String {
    score.map_or_else(|| "-".to_string(), |s| format!("{:.1}%", s * 100.0))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mv(id: &str, status: Status, op: Operator, file: &str, line: usize) -> MutantView {
        MutantView {
            mutant: Mutant {
                id: id.into(),
                operator: op,
                file: file.into(),
                line,
                column: 1,
                start: 0,
                end: 0,
                before: String::new(),
                after: String::new(),
                ops: vec![format!("GET /{file}")],
            },
            status,
            killed_by: vec![],
            detail: String::new(),
            diff: None,
        }
    }

    #[test]
    fn survivors_come_first_then_caught_then_the_rest() {
        let mut list = vec![
            mv("u", Status::Unviable, Operator::Math, "a", 1),
            mv("c", Status::Caught, Operator::Math, "a", 2),
            mv("m2", Status::Missed, Operator::Math, "b", 1),
            mv("n", Status::NotCovered, Operator::Math, "a", 3),
            mv("m1", Status::Missed, Operator::Math, "a", 9),
            mv("t", Status::Timeout, Operator::Math, "a", 4),
        ];
        order(&mut list);
        let ids: Vec<&str> = list.iter().map(|m| m.mutant.id.as_str()).collect();
        assert_eq!(ids, ["m1", "m2", "c", "t", "n", "u"]);
    }

    #[test]
    fn filters_by_operator_file_and_operation_combine() {
        let list = vec![
            mv("a", Status::Missed, Operator::Math, "A.java", 1),
            mv("b", Status::Missed, Operator::ReturnValues, "A.java", 2),
            mv("c", Status::Caught, Operator::Math, "B.java", 3),
        ];
        let mut f = MutantFilter::default();
        assert_eq!(f.visible(&list), [0, 1, 2]);
        f.operator = Some(Operator::Math);
        assert_eq!(f.visible(&list), [0, 2]);
        f.file = Some("B.java".into());
        assert_eq!(f.visible(&list), [2]);
        f = MutantFilter {
            op: Some("GET /A.java".into()),
            ..MutantFilter::default()
        };
        assert_eq!(f.visible(&list), [0, 1]);
    }

    #[test]
    fn a_diff_needs_the_source_to_still_match() {
        let text = "int a;\n\treturn x + y;\n";
        let start = text.find('+').unwrap();
        let mut m = mv("a", Status::Missed, Operator::Math, "A.java", 2).mutant;
        (m.start, m.end, m.before, m.after) = (start, start + 1, "+".into(), "-\x1b".into());
        let (before, after) = line_diff(&m, text).unwrap();
        assert_eq!(before, "    return x + y;");
        assert_eq!(after, "    return x -\\u{1b} y;");
        m.before = "*".into();
        assert_eq!(line_diff(&m, text), None);
        m.end = 999;
        assert_eq!(line_diff(&m, text), None);
    }
}
