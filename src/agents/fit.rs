//! Fitting a prompt into the model's context window.
//!
//! A small local model has a small window (SmolLM2 behind llama.cpp: 8,192 tokens), and
//! one operation's bundle plus the prompt can exceed it; a server then rejects the call
//! (`context_length_exceeded`) or, worse, truncates it silently. Before sending, the
//! prompt's tokens are estimated; when it would not fit with room for the answer, the
//! bundle is shrunk deterministically by whole files: the handler's file first, then
//! the files it uses directly, then the rest by distance in the import graph, each tier
//! in bundle order. What was left out is named in the prompt and in the call record.
//! When even the handler's file does not fit, the call is refused with the figures,
//! rather than sent to be cut.

use std::collections::{BTreeMap, BTreeSet, VecDeque};

/// Characters per token assumed by the estimate. Java source with line numbers runs at
/// about 3.3 characters per token in SmolLM2's tokenizer (measured on the fixtures);
/// 3.0 errs on the side of a smaller prompt.
pub const CHARS_PER_TOKEN: f64 = 3.0;

/// Tokens kept free for the answer when the call sets no `max_tokens`.
pub const DEFAULT_ANSWER_ROOM: usize = 1024;

/// Tokens a chat template adds per message (role markers); a safe over-estimate.
const PER_MESSAGE_OVERHEAD: usize = 8;

/// The estimated token count of `text`.
pub fn estimate_tokens(text: &str) -> usize {
    (text.len() as f64 / CHARS_PER_TOKEN).ceil() as usize
}

/// The estimated token count of a whole chat prompt.
pub fn estimate_prompt(messages: &[&str]) -> usize {
    messages
        .iter()
        .map(|m| estimate_tokens(m) + PER_MESSAGE_OVERHEAD)
        .sum()
}

/// One file of a rendered bundle (see `source::bundle::render_file`).
#[derive(Debug, Clone, PartialEq)]
pub struct Chunk<'a> {
    pub path: &'a str,
    /// The file's rendered text, header line included.
    pub text: &'a str,
}

const HEADER: &str = "// ===== FILE: ";

/// Splits a rendered bundle into its files, in order. Text before the first header
/// (none in our bundles) is returned apart.
pub fn split_bundle(text: &str) -> (&str, Vec<Chunk<'_>>) {
    let mut starts: Vec<usize> = Vec::new();
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        if line.starts_with(HEADER) {
            starts.push(offset);
        }
        offset += line.len();
    }
    let preamble = &text[..starts.first().copied().unwrap_or(text.len())];
    let mut chunks = Vec::with_capacity(starts.len());
    for (i, &start) in starts.iter().enumerate() {
        let end = starts.get(i + 1).copied().unwrap_or(text.len());
        let chunk = &text[start..end];
        let first = chunk.lines().next().unwrap_or_default();
        let path = first
            .strip_prefix(HEADER)
            .and_then(|rest| rest.rsplit_once(" ("))
            .map_or(first, |(p, _)| p);
        chunks.push(Chunk { path, text: chunk });
    }
    (preamble, chunks)
}

/// The order in which files are kept: `entry` first, then files by breadth-first
/// distance from it over `deps` (direct dependencies per file); files of the same
/// distance keep `bundle_order`; files unreachable from the entry come last.
pub fn priority(
    entry: Option<&str>,
    bundle_order: &[&str],
    deps: &BTreeMap<String, Vec<String>>,
) -> Vec<String> {
    let in_bundle: BTreeSet<&str> = bundle_order.iter().copied().collect();
    let mut depth: BTreeMap<&str, usize> = BTreeMap::new();
    if let Some(entry) = entry.filter(|e| in_bundle.contains(e)) {
        let mut queue = VecDeque::from([(entry, 0usize)]);
        depth.insert(entry, 0);
        while let Some((file, d)) = queue.pop_front() {
            for next in deps.get(file).into_iter().flatten() {
                let next = next.as_str();
                if in_bundle.contains(next) && !depth.contains_key(next) {
                    depth.insert(next, d + 1);
                    queue.push_back((next, d + 1));
                }
            }
        }
    }
    let mut order: Vec<(usize, usize, &str)> = bundle_order
        .iter()
        .enumerate()
        .map(|(i, f)| (depth.get(f).copied().unwrap_or(usize::MAX), i, *f))
        .collect();
    order.sort();
    order.into_iter().map(|(_, _, f)| f.to_string()).collect()
}

/// A bundle cut down to a character budget.
#[derive(Debug, Clone, PartialEq)]
pub struct Shrunk {
    pub text: String,
    pub kept: Vec<String>,
    pub dropped: Vec<String>,
}

/// Keeps whole files in `priority` order while they fit in `budget_chars` (the note
/// naming the dropped files counted in), written back in bundle order. `None` when not
/// even the first file of `priority` fits.
pub fn shrink_bundle(text: &str, priority: &[String], budget_chars: usize) -> Option<Shrunk> {
    let (preamble, chunks) = split_bundle(text);
    let by_path: BTreeMap<&str, &Chunk> = chunks.iter().map(|c| (c.path, c)).collect();
    let note_room = 160 + chunks.iter().map(|c| c.path.len() + 2).sum::<usize>();
    let mut used = preamble.len() + note_room;
    let mut keep: BTreeSet<&str> = BTreeSet::new();
    for path in priority {
        let Some(chunk) = by_path.get(path.as_str()) else {
            continue;
        };
        if used + chunk.text.len() > budget_chars {
            if keep.is_empty() {
                return None;
            }
            continue;
        }
        used += chunk.text.len();
        keep.insert(chunk.path);
    }
    if keep.is_empty() {
        return None;
    }
    let mut out = String::with_capacity(used);
    out.push_str(preamble);
    let (mut kept, mut dropped) = (Vec::new(), Vec::new());
    for c in &chunks {
        if keep.contains(c.path) {
            out.push_str(c.text);
            kept.push(c.path.to_string());
        } else {
            dropped.push(c.path.to_string());
        }
    }
    if !dropped.is_empty() {
        out.push_str(&format!(
            "// ===== {} file(s) left out to fit the model's context window: {} =====\n",
            dropped.len(),
            dropped.join(", ")
        ));
    }
    Some(Shrunk {
        text: out,
        kept,
        dropped,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::bundle::render_file;

    fn bundle(files: &[(&str, usize)]) -> String {
        files
            .iter()
            .map(|(p, lines)| render_file(p, &"x = 1;\n".repeat(*lines)))
            .collect()
    }

    fn deps(pairs: &[(&str, &[&str])]) -> BTreeMap<String, Vec<String>> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.iter().map(|s| s.to_string()).collect()))
            .collect()
    }

    #[test]
    fn splits_a_rendered_bundle_into_its_files() {
        let text = bundle(&[("a/A.java", 2), ("b/B.java", 3)]);
        let (pre, chunks) = split_bundle(&text);
        assert_eq!(pre, "");
        let paths: Vec<&str> = chunks.iter().map(|c| c.path).collect();
        assert_eq!(paths, ["a/A.java", "b/B.java"]);
        assert_eq!(chunks.iter().map(|c| c.text).collect::<String>(), text);
    }

    #[test]
    fn priority_is_handler_then_direct_callees_then_the_rest() {
        let order = ["Shared.java", "Repo.java", "Handler.java", "Service.java"];
        let d = deps(&[
            ("Handler.java", &["Service.java"]),
            ("Service.java", &["Repo.java"]),
        ]);
        let p = priority(Some("Handler.java"), &order, &d);
        assert_eq!(
            p,
            ["Handler.java", "Service.java", "Repo.java", "Shared.java"]
        );
        // Without a known handler the bundle order stands.
        assert_eq!(priority(None, &order, &d), order);
    }

    #[test]
    fn shrinking_keeps_whole_files_by_priority_and_names_the_rest() {
        let text = bundle(&[
            ("Shared.java", 50),
            ("Handler.java", 10),
            ("Service.java", 10),
        ]);
        let p: Vec<String> = ["Handler.java", "Service.java", "Shared.java"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let (_, chunks) = split_bundle(&text);
        let small: usize = chunks[1].text.len() + chunks[2].text.len();
        let s = shrink_bundle(&text, &p, small + 400).unwrap();
        assert_eq!(s.kept, ["Handler.java", "Service.java"]);
        assert_eq!(s.dropped, ["Shared.java"]);
        assert!(s.text.starts_with("// ===== FILE: Handler.java"));
        assert!(
            s.text
                .contains("left out to fit the model's context window: Shared.java")
        );
        assert!(s.text.len() <= small + 400);
        // Everything fits: nothing dropped, no note.
        let all = shrink_bundle(&text, &p, text.len() + 400).unwrap();
        assert_eq!(all.text, text);
        // Not even the handler fits: refused.
        assert_eq!(shrink_bundle(&text, &p, 100), None);
    }

    #[test]
    fn estimate_errs_towards_more_tokens() {
        assert_eq!(estimate_tokens("abcdef"), 2);
        assert_eq!(estimate_tokens("abcdefg"), 3);
        assert!(estimate_prompt(&["abc", "def"]) > estimate_tokens("abcdef"));
    }
}
