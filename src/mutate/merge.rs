//! Where a results directory came from (`provenance.json`), and the merge of shards.
//!
//! Every run records the shard it ran (if any) and hashes of what its runs depend on:
//! the suite, the project's sources and the build and start commands. `mutate merge`
//! combines shards only when they are one analysis cut in pieces: the same `n`, every
//! `k` of `0..n` exactly once, the same mutant list, and the same suite, sources and
//! commands. Otherwise it refuses, naming the shard and what differs, and writes
//! nothing: a score from an incomplete or mixed set would be a number about nothing.

use super::matrix::{Matrix, Summary};
use super::results::{BASELINE_FILE, EquivalentMark, Results};
use crate::mutate::error::MutateError;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// `provenance.json` in a results directory.
pub const PROVENANCE_FILE: &str = "provenance.json";

/// What a run's results depend on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Provenance {
    /// `k/n` of a `--shard` run; absent for a whole run or a merge.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<String>,
    /// SHA-256 of the selected oracles, as run.
    pub suite: String,
    /// SHA-256 of the project's Java sources.
    pub sources: String,
    /// SHA-256 of the build mode, the start command and the ready path.
    pub commands: String,
}

impl Provenance {
    fn shard(&self) -> Option<(usize, usize)> {
        let (k, n) = self.shard.as_deref()?.split_once('/')?;
        Some((k.parse().ok()?, n.parse().ok()?))
    }
}

impl Results {
    pub fn read_provenance(&self) -> Result<Option<Provenance>, MutateError> {
        let path = self.dir.join(PROVENANCE_FILE);
        if !path.exists() {
            return Ok(None);
        }
        let text = std::fs::read_to_string(&path).map_err(|e| MutateError::io("read", &path, e))?;
        serde_json::from_str(&text)
            .map(Some)
            .map_err(|e| MutateError::parse(&path, None, e))
    }

    pub fn write_provenance(&self, p: &Provenance) -> Result<(), MutateError> {
        let path = self.dir.join(PROVENANCE_FILE);
        let text = serde_json::to_string_pretty(p).map_err(|e| MutateError::Serialize {
            what: path.display().to_string(),
            source: e,
        })? + "\n";
        std::fs::write(&path, text).map_err(|e| MutateError::io("write", &path, e))
    }
}

/// Checks that `shards` are one analysis cut in `n` pieces, each once; `Err` names the
/// first problem.
pub fn check_shards(shards: &[(PathBuf, Provenance)]) -> Result<(), MutateError> {
    let Some((first_dir, first)) = shards.first() else {
        return Err(MutateError::Results(
            "name at least one shard directory".to_string(),
        ));
    };
    let mut seen: BTreeMap<usize, &Path> = BTreeMap::new();
    let mut total = None;
    for (dir, p) in shards {
        let Some((k, n)) = p.shard() else {
            return Err(MutateError::Results(format!(
                "{} is not a shard (it was not run with --shard k/n)",
                dir.display()
            )));
        };
        match total {
            None => total = Some(n),
            Some(t) if t != n => {
                return Err(MutateError::Results(format!(
                    "{} is shard {k}/{n}, but {} is one of {t}: shards must cut the list the \
                     same way",
                    dir.display(),
                    first_dir.display()
                )));
            }
            Some(_) => {}
        }
        if let Some(other) = seen.insert(k, dir) {
            return Err(MutateError::Results(format!(
                "shard {k}/{n} is given twice ({} and {})",
                other.display(),
                dir.display()
            )));
        }
        for (what, a, b) in [
            ("suite", &first.suite, &p.suite),
            ("project sources", &first.sources, &p.sources),
            ("build and start commands", &first.commands, &p.commands),
        ] {
            if a != b {
                return Err(MutateError::Results(format!(
                    "{} ran another {what} than {}: shards must come from one analysis",
                    dir.display(),
                    first_dir.display()
                )));
            }
        }
    }
    let n = total.unwrap_or(0);
    let missing: Vec<String> = (0..n)
        .filter(|k| !seen.contains_key(k))
        .map(|k| format!("{k}/{n}"))
        .collect();
    if !missing.is_empty() {
        return Err(MutateError::Results(format!(
            "incomplete shard set: shard(s) {} missing",
            missing.join(", ")
        )));
    }
    Ok(())
}

/// Merges shard directories into `out` after [`check_shards`]: the mutant lists and the
/// baselines must agree too, and every run is kept. The matrix and summary are computed
/// as a single run computes them.
pub fn merge(shards: &[PathBuf], out: &Path) -> Result<(Matrix, Summary), MutateError> {
    let mut provenance = Vec::new();
    for dir in shards {
        let p = Results::new(dir).read_provenance()?.ok_or_else(|| {
            MutateError::Results(format!(
                "{} has no {PROVENANCE_FILE}: not the results of a `mutate --shard` run",
                dir.display()
            ))
        })?;
        provenance.push((dir.clone(), p));
    }
    check_shards(&provenance)?;
    let first = Results::new(&shards[0]);
    let mutants = first.read_mutants()?;
    let baseline = first.read_baseline()?.ok_or_else(|| {
        MutateError::Results(format!("{} has no {BASELINE_FILE}", first.dir.display()))
    })?;
    let mut runs = BTreeMap::new();
    let mut marks: Vec<EquivalentMark> = Vec::new();
    for dir in shards {
        let r = Results::new(dir);
        if r.read_mutants()? != mutants {
            return Err(MutateError::Results(format!(
                "{} lists other mutants than {}: shards must come from the same sources and \
                 options",
                dir.display(),
                first.dir.display()
            )));
        }
        let b = r.read_baseline()?.ok_or_else(|| {
            MutateError::Results(format!("{} has no {BASELINE_FILE}", dir.display()))
        })?;
        if b.baseline != baseline.baseline {
            return Err(MutateError::Results(format!(
                "{} excluded other oracles on the original than {}; re-run the shards",
                dir.display(),
                first.dir.display()
            )));
        }
        runs.extend(r.read_runs()?);
        marks.extend(r.read_marks()?);
    }
    let merged = Results::new(out);
    std::fs::create_dir_all(out).map_err(|e| MutateError::io("create", out, e))?;
    let already: Vec<EquivalentMark> = merged.read_marks()?;
    for mark in marks {
        if !already.contains(&mark) {
            merged.append_mark(&mark)?;
        }
    }
    let result = merged.write_all(&mutants, &baseline, &runs)?;
    merged.write_provenance(&Provenance {
        shard: None,
        ..provenance[0].1.clone()
    })?;
    Ok(result)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(shard: &str, suite: &str) -> (PathBuf, Provenance) {
        (
            PathBuf::from(format!("sh{}", shard.replace('/', "of"))),
            Provenance {
                shard: Some(shard.into()),
                suite: suite.into(),
                sources: "s".into(),
                commands: "c".into(),
            },
        )
    }

    #[test]
    fn shards_must_cover_every_slice_once_from_one_analysis() {
        assert!(check_shards(&[p("0/2", "a"), p("1/2", "a")]).is_ok());
        let e = check_shards(&[p("0/2", "a")]).unwrap_err().to_string();
        assert!(e.contains("1/2 missing"), "{e}");
        let e = check_shards(&[p("0/2", "a"), p("0/2", "a")])
            .unwrap_err()
            .to_string();
        assert!(e.contains("given twice"), "{e}");
        let e = check_shards(&[p("0/2", "a"), p("1/3", "a")])
            .unwrap_err()
            .to_string();
        assert!(e.contains("one of 2"), "{e}");
        let e = check_shards(&[p("0/2", "a"), p("1/2", "b")])
            .unwrap_err()
            .to_string();
        assert!(e.contains("another suite"), "{e}");
        let mut whole = p("0/1", "a");
        whole.1.shard = None;
        assert!(
            check_shards(&[whole])
                .unwrap_err()
                .to_string()
                .contains("not a shard")
        );
    }
}
