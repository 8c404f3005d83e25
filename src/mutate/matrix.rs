//! From runs to answers: each mutant's outcome, the kill matrix, the mutation score, and
//! per operation and per oracle figures (kills, unique kills, redundant oracles).
//!
//! Everything here is a pure function of the mutant list, the baseline and the runs, and
//! holds no timings, so a merge of shards gives byte for byte the files one machine
//! would have written.

use super::mutants::Mutant;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

/// A mutant's outcome, named as cargo-mutants names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// An oracle failed (killed, in the paper's words).
    Caught,
    /// Every oracle passed (survived).
    Missed,
    /// The suite run exceeded the timeout (killed, as PITest counts it).
    Timeout,
    /// It does not compile; out of the denominator.
    Unviable,
    /// No selected oracle's operation reaches its file (the paper's no_coverage).
    NotCovered,
    /// A survivor the reviewer marked equivalent (no oracle could tell it from the
    /// original); out of the denominator, never targeted again.
    Equivalent,
}

impl Status {
    pub fn name(self) -> &'static str {
        match self {
            Status::Caught => "caught",
            Status::Missed => "missed",
            Status::Timeout => "timeout",
            Status::Unviable => "unviable",
            Status::NotCovered => "not_covered",
            Status::Equivalent => "equivalent",
        }
    }

    /// Killed in the paper's sense: caught or timed out.
    pub fn killed(self) -> bool {
        matches!(self, Status::Caught | Status::Timeout)
    }
}

/// One oracle's failure on a mutant: the oracle and its first failing assertion.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Kill {
    pub o_id: String,
    pub assertion: String,
}

/// The run of one mutant, as stored (`runs.jsonl`), keyed for reuse.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MutantOutcome {
    pub mutant: String,
    /// Hash of the mutant, the suite and the commands: a stored run is reused only when
    /// it matches.
    pub key: String,
    pub status: Status,
    /// Every oracle that failed on it (before the baseline's exclusions).
    #[serde(default)]
    pub failed: Vec<Kill>,
    /// Why it is unviable, timed out, or was caught without an oracle (no start).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub detail: String,
}

impl MutantOutcome {
    /// The status the matrix counts: a mutant "caught" only by oracles the baseline
    /// excluded (`included` lacks them) is a survivor, since the original explains those
    /// failures. Progress reports use the same rule, so they never disagree with the
    /// summary.
    pub fn counted_status(&self, included: &BTreeSet<&str>) -> Status {
        let kills = self
            .failed
            .iter()
            .any(|k| included.contains(k.o_id.as_str()));
        match self.status {
            Status::Caught if !self.failed.is_empty() && !kills => Status::Missed,
            s => s,
        }
    }
}

/// Why an oracle is left out of the matrix.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ExcludeReason {
    /// It failed on both runs of the unmutated program.
    FailsOnOriginal,
    /// It passed on one run of the unmutated program and failed on the other.
    Unstable,
}

/// An oracle left out of the matrix, and what the reviewer should know about it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Excluded {
    pub o_id: String,
    pub reason: ExcludeReason,
    /// Re-run alone on a fresh server: `wrong` (it still fails) or `order_dependent`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub isolation: Option<String>,
    pub message: String,
}

/// The baseline: which oracles the matrix counts.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Baseline {
    /// Oracles that passed on both runs of the original, by o_id.
    pub included: Vec<String>,
    pub excluded: Vec<Excluded>,
}

/// `matrix.json`: which oracle killed which mutant, with the failing assertion.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Matrix {
    pub oracles: Vec<String>,
    pub excluded: Vec<Excluded>,
    pub mutants: Vec<MatrixRow>,
}

/// One mutant's row of the matrix.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MatrixRow {
    pub id: String,
    pub status: Status,
    #[serde(default)]
    pub killed_by: Vec<Kill>,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub detail: String,
}

/// Counts of mutants by outcome, with the paper's names beside cargo-mutants'.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Counts {
    pub mutants: usize,
    pub caught: usize,
    pub missed: usize,
    pub timeout: usize,
    pub unviable: usize,
    pub not_covered: usize,
    /// Survivors the reviewer marked equivalent.
    #[serde(default)]
    pub equivalent: usize,
    /// caught + timeout.
    pub killed: usize,
    /// = missed.
    pub survived: usize,
    /// = not_covered.
    pub no_coverage: usize,
    /// killed / (viable − not covered); `None` when that is zero.
    pub score: Option<f64>,
}

impl Counts {
    fn add(&mut self, s: Status) {
        self.mutants += 1;
        match s {
            Status::Caught => self.caught += 1,
            Status::Missed => self.missed += 1,
            Status::Timeout => self.timeout += 1,
            Status::Unviable => self.unviable += 1,
            Status::NotCovered => self.not_covered += 1,
            Status::Equivalent => self.equivalent += 1,
        }
    }

    fn finish(&mut self) {
        self.killed = self.caught + self.timeout;
        self.survived = self.missed;
        self.no_coverage = self.not_covered;
        let denom = self.killed + self.missed;
        self.score = (denom > 0).then(|| round4(self.killed as f64 / denom as f64));
    }
}

fn round4(x: f64) -> f64 {
    (x * 10_000.0).round() / 10_000.0
}

/// One oracle's figures.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OracleFigures {
    pub o_id: String,
    pub kills: usize,
    /// Mutants only this oracle kills.
    pub unique_kills: usize,
    /// Set when its kills are a subset of another oracle's: that oracle.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subsumed_by: Option<String>,
}

/// `summary.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Summary {
    pub total: Counts,
    pub per_operation: BTreeMap<String, Counts>,
    pub per_operator: BTreeMap<String, Counts>,
    pub per_oracle: Vec<OracleFigures>,
    /// Oracles that kill no mutant.
    pub kills_nothing: Vec<String>,
    /// Oracles whose kills another oracle's kills include.
    pub redundant: Vec<String>,
    pub excluded: Vec<Excluded>,
}

/// Builds the matrix and the summary. Mutants without a run are left out (a shard's
/// share of the list); kills by excluded oracles do not count; a survivor in
/// `equivalent` is counted as equivalent (a killed one stays killed: the kill shows it
/// was not).
pub fn analyse(
    mutants: &[Mutant],
    baseline: &Baseline,
    runs: &BTreeMap<String, MutantOutcome>,
    equivalent: &BTreeSet<String>,
) -> (Matrix, Summary) {
    let included: BTreeSet<&str> = baseline.included.iter().map(String::as_str).collect();
    let mut rows = Vec::new();
    let mut total = Counts::default();
    let mut per_op: BTreeMap<String, Counts> = BTreeMap::new();
    let mut per_operator: BTreeMap<String, Counts> = BTreeMap::new();
    let mut kills: BTreeMap<&str, BTreeSet<&str>> =
        included.iter().map(|o| (*o, BTreeSet::new())).collect();
    for m in mutants {
        let Some(run) = runs.get(&m.id) else {
            continue;
        };
        let killed_by: Vec<Kill> = run
            .failed
            .iter()
            .filter(|k| included.contains(k.o_id.as_str()))
            .cloned()
            .collect();
        let status = run.counted_status(&included);
        let status = if status == Status::Missed && equivalent.contains(&m.id) {
            Status::Equivalent
        } else {
            status
        };
        for k in &killed_by {
            if let Some(set) = kills.get_mut(k.o_id.as_str()) {
                set.insert(m.id.as_str());
            }
        }
        total.add(status);
        per_operator
            .entry(m.operator.name().to_string())
            .or_default()
            .add(status);
        for op in &m.ops {
            per_op.entry(op.clone()).or_default().add(status);
        }
        rows.push(MatrixRow {
            id: m.id.clone(),
            status,
            killed_by,
            detail: run.detail.clone(),
        });
    }
    total.finish();
    per_op.values_mut().for_each(Counts::finish);
    per_operator.values_mut().for_each(Counts::finish);
    let per_oracle = oracle_figures(&kills);
    let kills_nothing = per_oracle
        .iter()
        .filter(|f| f.kills == 0)
        .map(|f| f.o_id.clone())
        .collect();
    let redundant = per_oracle
        .iter()
        .filter(|f| f.subsumed_by.is_some())
        .map(|f| f.o_id.clone())
        .collect();
    let matrix = Matrix {
        oracles: baseline.included.clone(),
        excluded: baseline.excluded.clone(),
        mutants: rows,
    };
    let summary = Summary {
        total,
        per_operation: per_op,
        per_operator,
        per_oracle,
        kills_nothing,
        redundant,
        excluded: baseline.excluded.clone(),
    };
    (matrix, summary)
}

/// Kills, unique kills and subsumption per oracle. An oracle is redundant when another
/// kills a strict superset of its mutants, or the same set and comes first by o_id (so
/// of two equal oracles one is kept). Oracles that kill nothing are not "redundant":
/// they are listed apart.
fn oracle_figures(kills: &BTreeMap<&str, BTreeSet<&str>>) -> Vec<OracleFigures> {
    let mut killers_of: BTreeMap<&str, usize> = BTreeMap::new();
    for set in kills.values() {
        for m in set {
            *killers_of.entry(m).or_default() += 1;
        }
    }
    kills
        .iter()
        .map(|(o, set)| {
            let unique = set.iter().filter(|m| killers_of[*m] == 1).count();
            let subsumed_by = if set.is_empty() {
                None
            } else {
                kills
                    .iter()
                    .find(|(other, oset)| {
                        other != &o && set.is_subset(oset) && (oset.len() > set.len() || other < &o)
                    })
                    .map(|(other, _)| other.to_string())
            };
            OracleFigures {
                o_id: o.to_string(),
                kills: set.len(),
                unique_kills: unique,
                subsumed_by,
            }
        })
        .collect()
}

/// The score after removing `removed` oracles (those rejected in review), computed from
/// the matrix without running anything: mutants only they killed become survivors.
pub fn score_without(matrix: &Matrix, removed: &BTreeSet<String>) -> Option<f64> {
    let mut c = Counts::default();
    for row in &matrix.mutants {
        let status = match row.status {
            Status::Caught
                if !row.killed_by.is_empty()
                    && row.killed_by.iter().all(|k| removed.contains(&k.o_id)) =>
            {
                Status::Missed
            }
            s => s,
        };
        c.add(status);
    }
    c.finish();
    c.score
}

#[cfg(test)]
mod tests;
