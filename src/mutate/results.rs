//! The `mutation/` directory of a session (or `--out`): what each file holds, reuse of
//! earlier runs, and the merge of shards.
//!
//! ```text
//! mutants.jsonl   the mutant list (after --files, --in-diff, --max-mutants; before --shard)
//! baseline.json   the oracles the matrix counts, and the baseline's timings
//! runs.jsonl      one run per mutant, keyed by its inputs (reused while they match)
//! matrix.json     which oracle killed which mutant, with the failing assertion
//! summary.json    score, per operation, per operator, per oracle, redundant oracles
//! equivalent.jsonl survivors the reviewer marked equivalent, with a note (append-only;
//!                 the latest line per mutant wins)
//! work/           builds and server logs (scratch)
//! ```

use super::matrix::{self, Baseline, Matrix, MutantOutcome, Summary};
use super::mutants::Mutant;
use crate::mutate::error::MutateError;
use crate::store::journal;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

pub const MUTANTS_FILE: &str = "mutants.jsonl";
pub const BASELINE_FILE: &str = "baseline.json";
pub const RUNS_FILE: &str = "runs.jsonl";
pub const MATRIX_FILE: &str = "matrix.json";
pub const SUMMARY_FILE: &str = "summary.json";
pub const EQUIVALENT_FILE: &str = "equivalent.jsonl";
/// Regeneration rounds (`run --from-survivors`), appended one per round.
pub const ROUNDS_FILE: &str = "rounds.jsonl";

/// One line of `equivalent.jsonl`: a reviewer's mark (or its withdrawal).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EquivalentMark {
    pub mutant: String,
    #[serde(default)]
    pub note: String,
    /// RFC 3339.
    pub at: String,
    /// Withdraws an earlier mark.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub undo: bool,
}

/// `baseline.json`: the baseline, the key it was computed for, and its timings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BaselineFile {
    pub key: String,
    pub suite_ms: u64,
    pub start_ms: u64,
    pub baseline: Baseline,
}

/// A results directory.
pub struct Results {
    pub dir: PathBuf,
}

impl Results {
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        Results { dir: dir.into() }
    }

    pub fn work_dir(&self) -> PathBuf {
        self.dir.join("work")
    }

    /// Runs stored earlier, by mutant id (the latest line per mutant wins: runs are
    /// appended as they finish, so an interrupted analysis keeps them).
    pub fn read_runs(&self) -> Result<BTreeMap<String, MutantOutcome>, MutateError> {
        Ok(read_journal::<MutantOutcome>(&self.dir.join(RUNS_FILE))?
            .into_iter()
            .map(|r| (r.mutant.clone(), r))
            .collect())
    }

    pub fn read_mutants(&self) -> Result<Vec<Mutant>, MutateError> {
        read_jsonl(&self.dir.join(MUTANTS_FILE))
    }

    pub fn read_baseline(&self) -> Result<Option<BaselineFile>, MutateError> {
        let path = self.dir.join(BASELINE_FILE);
        if !path.exists() {
            return Ok(None);
        }
        read_json(&path).map(Some)
    }

    pub fn read_matrix(&self) -> Result<Matrix, MutateError> {
        read_json(&self.dir.join(MATRIX_FILE))
    }

    pub fn read_summary(&self) -> Result<Summary, MutateError> {
        read_json(&self.dir.join(SUMMARY_FILE))
    }

    /// Every mark ever made, in order.
    pub fn read_marks(&self) -> Result<Vec<EquivalentMark>, MutateError> {
        read_journal(&self.dir.join(EQUIVALENT_FILE))
    }

    /// The torn last lines (interrupted appends) of the directory's journals, each
    /// named; `Err` for a journal damaged before its last line.
    pub fn journal_notes(&self) -> Result<Vec<String>, MutateError> {
        let mut notes = Vec::new();
        for f in [RUNS_FILE, EQUIVALENT_FILE, ROUNDS_FILE] {
            let (_, torn) = journal::read_reporting::<serde_json::Value>(&self.dir.join(f))?;
            notes.extend(torn.map(|t| t.to_string()));
        }
        Ok(notes)
    }

    /// Appends one finished run to `runs.jsonl`, synced, as soon as it lands.
    pub fn append_run(&self, run: &MutantOutcome) -> Result<(), MutateError> {
        std::fs::create_dir_all(&self.dir).map_err(|e| MutateError::io("create", &self.dir, e))?;
        Ok(journal::append_to(&self.dir.join(RUNS_FILE), run, true)?)
    }

    /// The mutants marked equivalent now (the latest mark per mutant wins).
    pub fn equivalent(&self) -> Result<BTreeSet<String>, MutateError> {
        let mut out = BTreeSet::new();
        for m in self.read_marks()? {
            if m.undo {
                out.remove(&m.mutant);
            } else {
                out.insert(m.mutant);
            }
        }
        Ok(out)
    }

    /// Appends a mark (synced: a reviewer's decision is not lost; a torn tail left by
    /// a crash is repaired first, so the mark is never glued onto a fragment).
    pub fn append_mark(&self, mark: &EquivalentMark) -> Result<(), MutateError> {
        Ok(journal::append_to(
            &self.dir.join(EQUIVALENT_FILE),
            mark,
            true,
        )?)
    }

    /// Recomputes the matrix and summary from the stored runs (after a mark changed).
    pub fn reanalyse(&self) -> Result<(Matrix, Summary), MutateError> {
        let mutants = self.read_mutants()?;
        let baseline = self.read_baseline()?.ok_or_else(|| {
            MutateError::Results(format!(
                "{} has no {BASELINE_FILE}: run mutate first",
                self.dir.display()
            ))
        })?;
        let runs = self.read_runs()?;
        self.write_all(&mutants, &baseline, &runs)
    }

    /// Writes every file from the mutant list, the baseline and the runs (runs of
    /// mutants no longer listed are dropped), and returns the matrix and summary.
    pub fn write_all(
        &self,
        mutants: &[Mutant],
        baseline: &BaselineFile,
        runs: &BTreeMap<String, MutantOutcome>,
    ) -> Result<(Matrix, Summary), MutateError> {
        std::fs::create_dir_all(&self.dir).map_err(|e| MutateError::io("create", &self.dir, e))?;
        // Builds under work/ hold copies of the sources: keep them out of source walks
        // (the `ignore` crate reads `.ignore`) and out of version control.
        atomic_write(&self.dir.join(".ignore"), "work/\n")?;
        atomic_write(&self.dir.join(".gitignore"), "work/\n")?;
        write_jsonl(&self.dir.join(MUTANTS_FILE), mutants)?;
        let kept: Vec<&MutantOutcome> = mutants.iter().filter_map(|m| runs.get(&m.id)).collect();
        write_jsonl(&self.dir.join(RUNS_FILE), &kept)?;
        write_json(&self.dir.join(BASELINE_FILE), baseline)?;
        let equivalent = self.equivalent()?;
        let (matrix, summary) = matrix::analyse(mutants, &baseline.baseline, runs, &equivalent);
        write_json(&self.dir.join(MATRIX_FILE), &matrix)?;
        write_json(&self.dir.join(SUMMARY_FILE), &summary)?;
        Ok((matrix, summary))
    }
}

fn read_json<T: DeserializeOwned>(path: &Path) -> Result<T, MutateError> {
    let text = std::fs::read_to_string(path).map_err(|e| MutateError::io("read", path, e))?;
    serde_json::from_str(&text).map_err(|e| MutateError::parse(path, None, e))
}

/// An append-only file, by the store's one journal reader (a torn last line skipped).
fn read_journal<T: DeserializeOwned>(path: &Path) -> Result<Vec<T>, MutateError> {
    Ok(journal::read_reporting(path).map(|(records, _)| records)?)
}

fn read_jsonl<T: DeserializeOwned>(path: &Path) -> Result<Vec<T>, MutateError> {
    if !path.exists() {
        return Ok(Vec::new());
    }
    let text = std::fs::read_to_string(path).map_err(|e| MutateError::io("read", path, e))?;
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(n, l)| serde_json::from_str(l).map_err(|e| MutateError::parse(path, Some(n + 1), e)))
        .collect()
}

fn write_json<T: Serialize + ?Sized>(path: &Path, value: &T) -> Result<(), MutateError> {
    let mut text = serde_json::to_string_pretty(value).map_err(|e| serialize(path, e))?;
    text.push('\n');
    atomic_write(path, &text)
}

fn write_jsonl<T: Serialize>(path: &Path, items: &[T]) -> Result<(), MutateError> {
    let mut text = String::new();
    for i in items {
        text.push_str(&serde_json::to_string(i).map_err(|e| serialize(path, e))?);
        text.push('\n');
    }
    atomic_write(path, &text)
}

/// What could not be serialized: the file it was for.
fn serialize(path: &Path, source: serde_json::Error) -> MutateError {
    MutateError::Serialize {
        what: path.display().to_string(),
        source,
    }
}

fn atomic_write(path: &Path, text: &str) -> Result<(), MutateError> {
    let tmp = path.with_extension("tmp");
    std::fs::write(&tmp, text).map_err(|e| MutateError::io("write", &tmp, e))?;
    std::fs::rename(&tmp, path).map_err(|e| MutateError::io("write", path, e))
}
