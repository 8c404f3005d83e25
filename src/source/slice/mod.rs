//! Per-operation slices: the part of a handler's code an extraction needs, instead of the
//! handler file's whole import closure (`--bundle slice`).
//!
//! A closure bundle gives every operation of a controller the same text, often larger
//! than a small local model's context. A slice keeps, per operation:
//! - the handler method with its class header (annotations, fields, constructors);
//! - the methods it reaches, transitively (calls on `this`, fields, locals, statics, the
//!   single implementation of an interface), and the dispatcher that calls it;
//! - the declarations of the types those methods name: header, fields, enum constants,
//!   constructors and initializers (initial state and seed data), not unrelated methods;
//! - the exception handlers that map its exceptions to statuses (`@ExceptionHandler` in
//!   `@ControllerAdvice` classes or the controller, JAX-RS `ExceptionMapper`s);
//! - what else decides the response ([`decides`]): the callers up to the framework's
//!   callback (argument parsing, catch blocks), constructors with what they call (seed
//!   data), the project's error renderers and the framework glue (filters, interceptors).
//!
//! Format: each file keeps the bundle's header `// ===== FILE: path (N lines) =====`,
//! where N is the ORIGINAL file's line count, and its kept lines keep their original
//! numbers (`42 text`, `source::numbered`). Each run of left-out lines is replaced by one
//! marker line, `... lines A-B left out` (`line A` for one; it starts with no digit, so it
//! can never be read as a source line). So
//! `project::bundle_index` and evidence-ref checks work unchanged, and a cited line number
//! is the original file's line. A left-out run of one line is shown instead of marked.
//!
//! The slice reads the same redacted text as the closure bundle and the scan's summaries,
//! plus one more tree-sitter parse per file ([`facts`]).

pub mod cited;
mod decides;
pub mod facts;
pub mod reach;

use super::Analysis;
use super::bundle::Bundle;
use super::numbered;
use crate::model::EntryRef;
use rayon::prelude::*;
use reach::{Ranges, Slicer};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

/// One operation's slice: kept line ranges per file, in bundle order (handler file first).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Slice {
    pub files: Vec<(String, Vec<(usize, usize)>)>,
}

impl Slice {
    /// `path: 1-3, 17-40` per line: the compact form tests and reports compare.
    pub fn outline(&self) -> String {
        self.files
            .iter()
            .map(|(p, r)| {
                let ranges: Vec<String> = r
                    .iter()
                    .map(|(a, b)| {
                        if a == b {
                            a.to_string()
                        } else {
                            format!("{a}-{b}")
                        }
                    })
                    .collect();
                format!("{p}: {}\n", ranges.join(", "))
            })
            .collect()
    }

    /// Whether line `line` of `file` is shown.
    pub fn shows(&self, file: &str, line: usize) -> bool {
        self.files
            .iter()
            .find(|(p, _)| p == file)
            .is_some_and(|(_, r)| r.iter().any(|&(a, b)| a <= line && line <= b))
    }
}

/// The line ranges actually shown once one-line gaps are filled in.
fn shown_ranges(ranges: &[(usize, usize)]) -> Vec<(usize, usize)> {
    let mut out: Vec<(usize, usize)> = Vec::with_capacity(ranges.len());
    for &(a, b) in ranges {
        match out.last_mut() {
            Some(last) if a <= last.1 + 2 => last.1 = last.1.max(b),
            _ => out.push((a, b)),
        }
    }
    out
}

/// Renders the kept lines of one file with original numbers and gap markers
/// (`source::numbered`).
pub fn render_slice_file(path: &str, text: &str, ranges: &[(usize, usize)]) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let n = lines.len();
    let mut out = format!("// ===== FILE: {path} ({n} lines) =====\n");
    let mut next = 1;
    for &(a, b) in ranges {
        let (a, b) = (a.max(1), b.min(n));
        if a > b {
            continue;
        }
        if a > next {
            out.push_str(&numbered::gap(next, a - 1));
        }
        for (i, line) in lines.iter().enumerate().take(b).skip(a - 1) {
            numbered::push_line(&mut out, i + 1, line);
        }
        next = b + 1;
    }
    if next <= n {
        out.push_str(&numbered::gap(next, n));
    }
    out
}

/// Builds the bundle of one slice from the files' (redacted) texts.
pub fn render(slice: &Slice, text_of: &dyn Fn(&str) -> Option<String>) -> Bundle {
    let mut text = String::new();
    let mut lines = 0;
    for (path, ranges) in &slice.files {
        let Some(t) = text_of(path) else { continue };
        text.push_str(&render_slice_file(path, &t, ranges));
        lines += ranges.iter().map(|(a, b)| b + 1 - a).sum::<usize>();
    }
    let bytes = text.len();
    Bundle {
        files: slice.files.iter().map(|(p, _)| p.clone()).collect(),
        lines,
        bytes,
        tokens_est: bytes.div_ceil(4),
        hash: hex::encode(Sha256::digest(text.as_bytes())),
        text,
    }
}

/// The slicer over a whole analysed project, with the texts the bundles are cut from.
pub struct ProjectSlicer<'a> {
    pub slicer: Slicer<'a>,
    texts: Vec<String>,
    analysis: &'a Analysis,
}

impl<'a> ProjectSlicer<'a> {
    /// Reads (and redacts, as the closure bundles are) every Java file of `analysis` under
    /// `root`, and parses each for the slicer.
    pub fn new(root: &Path, analysis: &'a Analysis) -> Self {
        let texts: Vec<String> = analysis
            .files
            .par_iter()
            .map(|f| {
                let raw = std::fs::read_to_string(root.join(&f.path)).unwrap_or_default();
                super::redact::redact(&f.path, &raw, true).0
            })
            .collect();
        let facts = texts.par_iter().map(|t| facts::file_facts(t)).collect();
        let mut slicer = Slicer::new(&analysis.files, facts);
        slicer.keep_renderers(&analysis.envelopes);
        ProjectSlicer {
            slicer,
            texts,
            analysis,
        }
    }

    /// The slice of operation `op_id`, `None` when it has no statically matched handler.
    pub fn slice(&self, op_id: &str) -> Option<Slice> {
        let report = &self.analysis.report;
        let entry = report
            .operations
            .iter()
            .find(|o| o.op_id == op_id)?
            .entry
            .as_ref()?;
        let others: Vec<EntryRef> = report
            .operations
            .iter()
            .filter_map(|o| o.entry.clone())
            .filter(|e| e != entry)
            .collect();
        let route = self.analysis.routes.iter().find(|r| &r.handler == entry);
        let ranges = self.slicer.slice(
            entry,
            route.map(|r| r.entry_file.as_str()),
            route.and_then(|r| r.dispatcher.as_ref()),
            &others,
        );
        Some(self.ordered(entry, ranges))
    }

    fn ordered(&self, entry: &EntryRef, ranges: Ranges) -> Slice {
        let paths = |fi: usize| self.analysis.files[fi].path.clone();
        let mut files: Vec<(String, Vec<(usize, usize)>)> = ranges
            .0
            .into_iter()
            .map(|(fi, r)| (paths(fi), shown_ranges(&r)))
            .collect();
        files.sort_by(|a, b| {
            (a.0 != entry.file)
                .cmp(&(b.0 != entry.file))
                .then(a.0.cmp(&b.0))
        });
        Slice { files }
    }

    /// The redacted text of `path`.
    pub fn text(&self, path: &str) -> Option<&str> {
        let fi = self.slicer.index.file_index(path)?;
        self.texts.get(fi).map(String::as_str)
    }

    /// The bundle of a slice.
    pub fn bundle(&self, slice: &Slice) -> Bundle {
        render(slice, &|p| self.text(p).map(str::to_string))
    }

    /// Slice bundles of every operation with a statically matched handler, by op id.
    pub fn bundles(&self) -> BTreeMap<String, Arc<Bundle>> {
        let ops: Vec<&str> = self
            .analysis
            .report
            .operations
            .iter()
            .filter(|o| o.entry.is_some())
            .map(|o| o.op_id.as_str())
            .collect();
        ops.par_iter()
            .filter_map(|op| {
                let slice = self.slice(op)?;
                Some((op.to_string(), Arc::new(self.bundle(&slice))))
            })
            .collect()
    }
}

/// Slice bundles for every statically matched operation of `analysis`.
pub fn slice_bundles(root: &Path, analysis: &Analysis) -> BTreeMap<String, Arc<Bundle>> {
    ProjectSlicer::new(root, analysis).bundles()
}

/// Puts the figures of `slices` in place of the closure bundles' in `report`, so the
/// scan table and the session's operations describe what the model reads.
pub fn replace_summaries(
    report: &mut super::report::ScanReport,
    slices: &BTreeMap<String, Arc<Bundle>>,
) {
    for op in &mut report.operations {
        if let Some(b) = slices.get(&op.op_id) {
            op.bundle = Some(super::report::BundleSummary {
                files: b.files.clone(),
                lines: b.lines,
                bytes: b.bytes,
                tokens_est: b.tokens_est,
                hash: b.hash.clone(),
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_kept_lines_with_original_numbers_and_markers() {
        let text = "a\nb\nc\nd\ne\nf\ng\n";
        let r = render_slice_file("x/A.java", text, &[(2, 3), (6, 6)]);
        assert_eq!(
            r,
            "// ===== FILE: x/A.java (7 lines) =====\n\
             ... line 1 left out\n2 b\n3 c\n\
             ... lines 4-5 left out\n6 f\n\
             ... line 7 left out\n"
        );
    }

    #[test]
    fn one_line_gaps_are_shown_rather_than_marked() {
        assert_eq!(shown_ranges(&[(1, 3), (5, 6), (9, 9)]), [(1, 6), (9, 9)]);
    }
}
