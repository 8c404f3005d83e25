//! Source bundles: the files of a closure concatenated with their original line numbers,
//! the text the extraction step reads for one operation.
//!
//! Files that appear in more bundles come first, then by path, so parallel requests share
//! the longest possible prompt prefix (paper 4.3.1). Each file's numbered text is rendered
//! once and reused by every bundle that contains it. Bundles are not written to disk here.
//! With [`BundleMode::Slice`] the agents read `source::slice`'s per-operation slices
//! instead, rendered under the same file headers and original line numbers.

use super::numbered;
use rayon::prelude::*;
use serde::Serialize;
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::sync::Arc;

/// What the extraction step reads per operation: the handler file's whole import closure
/// (the paper's bundle) or the operation's slice (`source::slice`, the default): much
/// smaller, and on every fixture with hand-checked evidence it shows every cited line
/// (`source::slice::cited`). Recorded in the session so a resumed run reads the same text
/// (sessions from before it was recorded used `closure`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, clap::ValueEnum)]
pub enum BundleMode {
    Closure,
    #[default]
    Slice,
}

impl BundleMode {
    /// The name used on the command line and in the session's settings.
    pub fn as_str(self) -> &'static str {
        match self {
            BundleMode::Closure => "closure",
            BundleMode::Slice => "slice",
        }
    }

    /// The mode named `name` (`closure`, `slice`).
    pub fn parse(name: &str) -> Option<Self> {
        match name {
            "closure" => Some(BundleMode::Closure),
            "slice" => Some(BundleMode::Slice),
            _ => None,
        }
    }
}

/// One operation's source bundle.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Bundle {
    /// Relative paths in bundle order.
    pub files: Vec<String>,
    pub text: String,
    pub lines: usize,
    pub bytes: usize,
    /// Rough token estimate: bytes / 4, rounded up.
    pub tokens_est: usize,
    /// SHA-256 of `text`, hex.
    pub hash: String,
}

/// A file's text rendered with a header line and line numbers (`source::numbered`).
pub fn render_file(path: &str, text: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = String::with_capacity(text.len() + lines.len() * 6 + 64);
    out.push_str(&format!(
        "// ===== FILE: {path} ({} lines) =====\n",
        lines.len()
    ));
    for (i, line) in lines.iter().enumerate() {
        numbered::push_line(&mut out, i + 1, line);
    }
    out
}

/// Builds one bundle from rendered files, in the given order.
fn assemble(
    order: &[usize],
    paths: &[String],
    rendered: &[String],
    line_counts: &[usize],
) -> Bundle {
    let size: usize = order.iter().map(|&i| rendered[i].len()).sum();
    let mut text = String::with_capacity(size);
    for &i in order {
        text.push_str(&rendered[i]);
    }
    let bytes = text.len();
    let hash = hex::encode(Sha256::digest(text.as_bytes()));
    Bundle {
        files: order.iter().map(|&i| paths[i].clone()).collect(),
        lines: order.iter().map(|&i| line_counts[i]).sum(),
        bytes,
        tokens_est: bytes.div_ceil(4),
        hash,
        text,
    }
}

/// Builds the bundle of every closure in `closures` (file indices into `paths`/`texts`),
/// sharing the rendering of files. Returns bundles in the order of `closures`; identical
/// closures share one `Arc`.
pub fn build_all(paths: &[String], texts: &[&str], closures: &[Vec<usize>]) -> Vec<Arc<Bundle>> {
    let mut frequency: HashMap<usize, usize> = HashMap::new();
    let mut distinct: Vec<&Vec<usize>> = Vec::new();
    let mut slot_of: HashMap<&Vec<usize>, usize> = HashMap::new();
    let mut slots = Vec::with_capacity(closures.len());
    for c in closures {
        let slot = *slot_of.entry(c).or_insert_with(|| {
            distinct.push(c);
            for &f in c {
                *frequency.entry(f).or_default() += 1;
            }
            distinct.len() - 1
        });
        slots.push(slot);
    }
    let needed: Vec<usize> = {
        let mut v: Vec<usize> = frequency.keys().copied().collect();
        v.sort_unstable();
        v
    };
    let mut rendered = vec![String::new(); paths.len()];
    let mut line_counts = vec![0; paths.len()];
    let done: Vec<(usize, String, usize)> = needed
        .par_iter()
        .map(|&i| {
            (
                i,
                render_file(&paths[i], texts[i]),
                texts[i].lines().count(),
            )
        })
        .collect();
    for (i, r, n) in done {
        rendered[i] = r;
        line_counts[i] = n;
    }
    let built: Vec<Arc<Bundle>> = distinct
        .par_iter()
        .map(|c| {
            let mut order: Vec<usize> = (*c).clone();
            order.sort_by(|a, b| {
                frequency[b]
                    .cmp(&frequency[a])
                    .then_with(|| paths[*a].cmp(&paths[*b]))
            });
            Arc::new(assemble(&order, paths, &rendered, &line_counts))
        })
        .collect();
    slots.into_iter().map(|s| Arc::clone(&built[s])).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_header_and_numbers() {
        let r = render_file("a/B.java", "class B {\n}\n");
        assert_eq!(
            r,
            "// ===== FILE: a/B.java (2 lines) =====\n1 class B {\n2 }\n"
        );
    }

    #[test]
    fn shared_files_first_then_path_and_stats() {
        let paths: Vec<String> = ["z/Shared.java", "a/One.java", "b/Two.java"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let texts = ["class Shared {}", "class One {}\n//x", "class Two {}"];
        let closures = vec![vec![0, 1], vec![0, 2], vec![0, 1]];
        let b = build_all(&paths, &texts, &closures);
        assert_eq!(b[0].files, ["z/Shared.java", "a/One.java"]);
        assert_eq!(b[1].files, ["z/Shared.java", "b/Two.java"]);
        assert!(Arc::ptr_eq(&b[0], &b[2]));
        assert_eq!(b[0].lines, 3);
        assert_eq!(b[0].bytes, b[0].text.len());
        assert_eq!(b[0].tokens_est, b[0].bytes.div_ceil(4));
        assert_eq!(b[0].hash, hex::encode(Sha256::digest(b[0].text.as_bytes())));
        assert!(b[0].text.contains("\n2 //x\n"));
    }
}
