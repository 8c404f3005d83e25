//! Evidence coverage: of the lines a correct oracle cites, how many a closure bundle and a
//! slice show. The cited lines are hand-checked per fixture project, from two sources:
//! - `evidence.json`: `{"operations": {"GET /x/{id}": [{"file", "start_line", "end_line",
//!   "why"}]}}`, every line that decides the operation's responses (handler branches,
//!   argument parsing in the caller, error rendering, advice, seed data);
//! - `suites/reference.json`: the `evidence_refs` of a reference suite's oracles.
//!
//! Slices replace closures only where they keep every such line (the slice bench prints
//! both; a test holds the fixtures to it).

use super::ProjectSlicer;
use crate::source::Analysis;
use serde::Deserialize;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The file name of a fixture's hand-checked evidence.
pub const EVIDENCE_FILE: &str = "evidence.json";

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct EvidenceFile {
    operations: BTreeMap<String, Vec<CitedRange>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CitedRange {
    file: String,
    start_line: usize,
    end_line: usize,
    /// Why a correct oracle cites these lines: for the reader who checks them.
    #[allow(dead_code)]
    why: String,
}

/// One cited line of one operation.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Cite {
    pub op: String,
    pub file: String,
    pub line: usize,
}

/// Every line cited by `dir`'s `evidence.json` and `suites/reference.json` (either may
/// be absent), without repeats. An unreadable or malformed file is an error naming it.
pub fn hand_checked(dir: &Path) -> Result<Vec<Cite>, String> {
    let mut out = BTreeSet::new();
    let mut add = |op: &str, file: &str, a: usize, b: usize| {
        for line in a..=b {
            out.insert(Cite {
                op: op.to_string(),
                file: file.to_string(),
                line,
            });
        }
    };
    let evidence = dir.join(EVIDENCE_FILE);
    if evidence.is_file() {
        let text = std::fs::read_to_string(&evidence)
            .map_err(|e| format!("{}: {e}", evidence.display()))?;
        let parsed: EvidenceFile =
            serde_json::from_str(&text).map_err(|e| format!("{}: {e}", evidence.display()))?;
        for (op, ranges) in &parsed.operations {
            for r in ranges {
                if r.start_line == 0 || r.end_line < r.start_line {
                    return Err(format!(
                        "{}: {op}: {} lines {}-{} is not a line range",
                        evidence.display(),
                        r.file,
                        r.start_line,
                        r.end_line
                    ));
                }
                add(op, &r.file, r.start_line, r.end_line);
            }
        }
    }
    let suite = dir.join("suites/reference.json");
    if suite.is_file() {
        let text =
            std::fs::read_to_string(&suite).map_err(|e| format!("{}: {e}", suite.display()))?;
        let v: serde_json::Value =
            serde_json::from_str(&text).map_err(|e| format!("{}: {e}", suite.display()))?;
        for o in v["oracles"].as_array().into_iter().flatten() {
            let op = o["op_id"].as_str().unwrap_or_default();
            for r in o["evidence_refs"].as_array().into_iter().flatten() {
                let (Some(file), Some(a), Some(b)) = (
                    r["file"].as_str(),
                    r["start_line"].as_u64(),
                    r["end_line"].as_u64(),
                ) else {
                    return Err(format!(
                        "{}: {op}: malformed evidence ref {r}",
                        suite.display()
                    ));
                };
                add(op, file, a as usize, b as usize);
            }
        }
    }
    Ok(out.into_iter().collect())
}

/// How many cited lines each mode shows, and the cited lines the slice left out.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Coverage {
    pub cited: usize,
    pub in_closure: usize,
    pub in_slice: usize,
    /// Cited lines the slice does not show (the closure may or may not).
    pub missing: Vec<Cite>,
}

/// The coverage of `cites` by the closure bundles of `analysis` and by `slicer`'s slices.
pub fn coverage(analysis: &Analysis, slicer: &ProjectSlicer, cites: &[Cite]) -> Coverage {
    let mut out = Coverage {
        cited: cites.len(),
        ..Coverage::default()
    };
    let ops: BTreeSet<&str> = cites.iter().map(|c| c.op.as_str()).collect();
    for op in ops {
        let slice = slicer.slice(op);
        let bundle = analysis.bundles.get(op);
        for c in cites.iter().filter(|c| c.op == op) {
            let lines = analysis
                .files
                .iter()
                .find(|f| f.path == c.file)
                .map_or(0, |f| f.line_count);
            if bundle.is_some_and(|b| b.files.contains(&c.file)) && c.line <= lines {
                out.in_closure += 1;
            }
            if slice.as_ref().is_some_and(|s| s.shows(&c.file, c.line)) {
                out.in_slice += 1;
            } else {
                out.missing.push(c.clone());
            }
        }
    }
    out
}
