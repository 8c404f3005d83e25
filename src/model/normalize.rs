//! Normalization reports: written by `agents::normalize`, read by the store, the run
//! summary and the workbench.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;

/// The files of a bundle and their line counts, to check evidence refs against.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct BundleIndex {
    /// Project-relative `/`-separated path → number of lines.
    pub files: BTreeMap<String, usize>,
    /// Files of which only some lines were sent (a slice), with the line ranges that were
    /// (1-based, inclusive, sorted). A file absent here was sent whole.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub shown: BTreeMap<String, Vec<(usize, usize)>>,
}

impl BundleIndex {
    /// Builds an index from `(path, line count)` pairs.
    pub fn from_files<I, S>(files: I) -> Self
    where
        I: IntoIterator<Item = (S, usize)>,
        S: Into<String>,
    {
        BundleIndex {
            files: files.into_iter().map(|(p, n)| (p.into(), n)).collect(),
            shown: BTreeMap::new(),
        }
    }

    /// The first line of `start..=end` of `file` that was left out of what was sent, if
    /// any (`None` for a file sent whole). The first and the last line of a longer range
    /// may be left out when the line next to them inside the range was shown: the blank
    /// line or brace a citation of a whole method often takes in.
    pub fn left_out(&self, file: &str, start: usize, end: usize) -> Option<usize> {
        let ranges = self.shown.get(file)?;
        let shown = |l: usize| ranges.iter().any(|&(a, b)| a <= l && l <= b);
        let (mut from, mut to) = (start, end);
        if to > from && !shown(from) && shown(from + 1) {
            from += 1;
        }
        if to > from && !shown(to) && shown(to - 1) {
            to -= 1;
        }
        (from..=to).find(|&l| !shown(l))
    }
}

/// An oracle normalization removed, and why.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Dropped {
    /// The oracle's `test_id` as the model wrote it (empty when it had none).
    pub test_id: String,
    pub rule: String,
    pub reason: String,
    /// The entry exactly as the model produced it, for the "why was this dropped" view.
    pub raw: Value,
}

/// Something normalization changed or noticed on an oracle it kept.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Flag {
    pub test_id: String,
    pub rule: String,
    pub detail: String,
}

/// Everything a normalization pass reports besides the kept oracles; stored with a suite.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct NormalizeReport {
    #[serde(default)]
    pub dropped: Vec<Dropped>,
    #[serde(default)]
    pub flags: Vec<Flag>,
    /// Rule id → how many times it fired.
    #[serde(default)]
    pub counts: BTreeMap<String, usize>,
}

impl NormalizeReport {
    /// One line for logs and the CLI, e.g. `dropped 2, flags 3 (duplicate 1, no_status 1,
    /// unknown_field 3)`: only the rules that fired.
    pub fn summary(&self) -> String {
        let fired: Vec<String> = self
            .counts
            .iter()
            .filter(|(_, n)| **n > 0)
            .map(|(rule, n)| format!("{rule} {n}"))
            .collect();
        let mut line = format!("dropped {}, flags {}", self.dropped.len(), self.flags.len());
        if !fired.is_empty() {
            line.push_str(&format!(" ({})", fired.join(", ")));
        }
        line
    }
}
