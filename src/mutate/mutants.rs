//! The mutant list of a project: which files, which edits, in a deterministic order, and
//! the selections on it (`--in-diff`, `--max-mutants`, `--shard`).
//!
//! The list depends only on the sources and the options, never on the machine or the
//! run, so shards of it made on different runners merge into the same analysis.

use super::operators::{self, Operator, Site};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::collections::{BTreeMap, BTreeSet};

/// One seeded fault.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Mutant {
    /// Stable over runs: a hash of the file, the position and the edit.
    pub id: String,
    pub operator: Operator,
    /// Project-relative, `/`-separated.
    pub file: String,
    pub line: usize,
    pub column: usize,
    /// Byte range of the edit in the original file.
    pub start: usize,
    pub end: usize,
    /// The text replaced, and what replaces it.
    pub before: String,
    pub after: String,
    /// Operations whose bundle contains the file (empty: no operation reaches it).
    #[serde(default)]
    pub ops: Vec<String>,
}

impl Mutant {
    /// The whole line before and after the edit, for diffs in reports and the TUI.
    pub fn line_diff(&self, original: &str) -> (String, String) {
        let start = original[..self.start].rfind('\n').map_or(0, |i| i + 1);
        let end = original[self.end..]
            .find('\n')
            .map_or(original.len(), |i| self.end + i);
        let before = original[start..end].to_string();
        let after = format!(
            "{}{}{}",
            &original[start..self.start],
            self.after,
            &original[self.end..end]
        );
        (before, after)
    }

    /// The mutated text of the file.
    pub fn apply(&self, original: &str) -> String {
        operators::apply(
            original,
            &Site {
                operator: self.operator,
                start: self.start,
                end: self.end,
                line: self.line,
                column: self.column,
                replacement: self.after.clone(),
            },
        )
    }
}

/// A file offered for mutation, with the operations that reach it.
pub struct SourceFile {
    pub path: String,
    pub text: String,
    pub ops: Vec<String>,
}

/// The mutants of `files`, in (file, position, operator) order; files that do not parse
/// are returned apart with the reason.
pub fn generate(files: &[SourceFile]) -> (Vec<Mutant>, Vec<(String, String)>) {
    let mut out = Vec::new();
    let mut skipped = Vec::new();
    let mut sorted: Vec<&SourceFile> = files.iter().collect();
    sorted.sort_by(|a, b| a.path.cmp(&b.path));
    for f in sorted {
        match operators::sites(&f.text) {
            Ok(sites) => out.extend(sites.into_iter().map(|s| mutant(f, s))),
            Err(why) => skipped.push((f.path.clone(), why)),
        }
    }
    (out, skipped)
}

fn mutant(f: &SourceFile, s: Site) -> Mutant {
    let mut h = Sha256::new();
    h.update(f.path.as_bytes());
    h.update(s.start.to_le_bytes());
    h.update(s.end.to_le_bytes());
    h.update(s.operator.name().as_bytes());
    h.update(s.replacement.as_bytes());
    h.update(&f.text.as_bytes()[s.start..s.end]);
    Mutant {
        id: format!("m{}", &hex::encode(h.finalize())[..10]),
        operator: s.operator,
        file: f.path.clone(),
        line: s.line,
        column: s.column,
        start: s.start,
        end: s.end,
        before: f.text[s.start..s.end].to_string(),
        after: s.replacement,
        ops: f.ops.clone(),
    }
}

/// Keeps mutants whose line a diff changed (`changed`: file → lines). A diff path
/// matches a mutant's file when one ends with the other (the diff may be rooted above
/// the project).
pub fn keep_in_diff(mutants: &mut Vec<Mutant>, changed: &BTreeMap<String, BTreeSet<usize>>) {
    mutants.retain(|m| {
        changed.iter().any(|(path, lines)| {
            (path.ends_with(&m.file) || m.file.ends_with(path.as_str())) && lines.contains(&m.line)
        })
    });
}

/// At most `max` mutants, spread over operators: each operator's mutants are ordered by
/// a hash of `seed` and their id, and operators take turns. The same inputs give the
/// same sample on every machine; the result keeps the list order.
pub fn sample(mutants: Vec<Mutant>, max: usize, seed: u64) -> Vec<Mutant> {
    if mutants.len() <= max {
        return mutants;
    }
    let mut by_op: BTreeMap<Operator, Vec<(String, usize)>> = BTreeMap::new();
    for (i, m) in mutants.iter().enumerate() {
        let mut h = Sha256::new();
        h.update(seed.to_le_bytes());
        h.update(m.id.as_bytes());
        by_op
            .entry(m.operator)
            .or_default()
            .push((hex::encode(h.finalize()), i));
    }
    for list in by_op.values_mut() {
        list.sort();
        list.reverse(); // popped from the end
    }
    let mut chosen = BTreeSet::new();
    while chosen.len() < max {
        let mut took = false;
        for list in by_op.values_mut() {
            if chosen.len() < max
                && let Some((_, i)) = list.pop()
            {
                chosen.insert(i);
                took = true;
            }
        }
        if !took {
            break;
        }
    }
    mutants
        .into_iter()
        .enumerate()
        .filter(|(i, _)| chosen.contains(i))
        .map(|(_, m)| m)
        .collect()
}

/// A `--shard k/n` value: the k-th (0-based, as cargo-mutants counts) of n slices.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    pub k: usize,
    pub n: usize,
}

impl std::str::FromStr for Shard {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let bad = || format!("`{s}` is not a shard: write k/n with 0 <= k < n, e.g. 0/4");
        let (k, n) = s.split_once('/').ok_or_else(bad)?;
        let (k, n): (usize, usize) = (
            k.trim().parse().map_err(|_| bad())?,
            n.trim().parse().map_err(|_| bad())?,
        );
        if n == 0 || k >= n {
            return Err(bad());
        }
        Ok(Shard { k, n })
    }
}

impl Shard {
    /// Whether the mutant at `index` of the full list belongs to this shard (round
    /// robin, so every shard gets a mix of files and operators).
    pub fn contains(self, index: usize) -> bool {
        index % self.n == self.k
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn files() -> Vec<SourceFile> {
        vec![SourceFile {
            path: "src/A.java".into(),
            text: "class A {\n  int f(int x) {\n    if (x < 10) { return x + 1; }\n    return 0;\n  }\n}\n"
                .into(),
            ops: vec!["GET /a".into()],
        }]
    }

    #[test]
    fn ids_are_stable_and_unique_and_edits_apply() {
        let (a, skipped) = generate(&files());
        let (b, _) = generate(&files());
        assert!(skipped.is_empty());
        assert_eq!(a, b);
        let ids: BTreeSet<&str> = a.iter().map(|m| m.id.as_str()).collect();
        assert_eq!(ids.len(), a.len());
        let text = &files()[0].text;
        let boundary = a
            .iter()
            .find(|m| m.operator == Operator::ConditionalsBoundary)
            .unwrap();
        assert_eq!((boundary.line, boundary.before.as_str()), (3, "<"));
        assert!(boundary.apply(text).contains("if (x <= 10)"));
        let (before, after) = boundary.line_diff(text);
        assert_eq!(before, "    if (x < 10) { return x + 1; }");
        assert_eq!(after, "    if (x <= 10) { return x + 1; }");
    }

    #[test]
    fn sampling_is_deterministic_and_spreads_over_operators() {
        let (all, _) = generate(&files());
        let ops: BTreeSet<Operator> = all.iter().map(|m| m.operator).collect();
        let s1 = sample(all.clone(), ops.len(), 7);
        let s2 = sample(all.clone(), ops.len(), 7);
        assert_eq!(s1, s2);
        let got: BTreeSet<Operator> = s1.iter().map(|m| m.operator).collect();
        assert_eq!(got, ops, "one of each operator first");
    }

    #[test]
    fn shards_partition_the_list() {
        let shards: Vec<Shard> = (0..3).map(|k| format!("{k}/3").parse().unwrap()).collect();
        for i in 0..10 {
            assert_eq!(shards.iter().filter(|s| s.contains(i)).count(), 1);
        }
        assert!("3/3".parse::<Shard>().is_err());
        assert!("x".parse::<Shard>().is_err());
    }
}
