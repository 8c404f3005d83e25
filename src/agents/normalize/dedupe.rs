//! The last rule of both paths: merge identical oracles, then make `test_id`s unique.

use super::parse::Recorder;
use super::rule;
use serde_json::Value;
use std::collections::{HashMap, HashSet};

/// What deduplication needs to know about an oracle.
pub(super) trait Dedup {
    fn test_id(&self) -> &str;
    fn set_test_id(&mut self, id: String);
    /// Identity of the oracle's content (ids excluded).
    fn content_key(&self) -> String;
}

/// Keeps the first of each set of identical oracles (the others are dropped naming it),
/// then renames repeated `test_id`s among the survivors to `<id>_2`, `<id>_3`...
pub(super) fn dedupe<T: Dedup>(candidates: Vec<(T, Value)>, rec: &mut Recorder) -> Vec<T> {
    let mut kept: Vec<T> = Vec::with_capacity(candidates.len());
    let mut by_key: HashMap<String, usize> = HashMap::new();
    for (item, raw) in candidates {
        let key = item.content_key();
        if let Some(&first) = by_key.get(&key) {
            let first_id = kept[first].test_id().to_string();
            rec.drop(
                item.test_id(),
                rule::DUPLICATE,
                format!("merged into `{first_id}`: same operation(s), input and assertions"),
                &raw,
            );
        } else {
            by_key.insert(key, kept.len());
            kept.push(item);
        }
    }
    let all_ids: HashSet<String> = kept.iter().map(|k| k.test_id().to_string()).collect();
    let mut taken: HashSet<String> = HashSet::new();
    for item in &mut kept {
        let id = item.test_id().to_string();
        if taken.insert(id.clone()) {
            continue;
        }
        let mut n = 2;
        let new_id = loop {
            let candidate = format!("{id}_{n}");
            if !all_ids.contains(&candidate) && !taken.contains(&candidate) {
                break candidate;
            }
            n += 1;
        };
        rec.flag(
            &new_id,
            rule::DUPLICATE_TEST_ID,
            format!("renamed `{id}` to `{new_id}`: same test_id as an earlier, different oracle"),
        );
        taken.insert(new_id.clone());
        item.set_test_id(new_id);
    }
    kept
}
