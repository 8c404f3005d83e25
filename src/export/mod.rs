//! Exporters: turn a reviewed suite into artefacts that run or read outside mastor
//! (the paper's ToJUnit, ToPostmanAssertify and ToReadable converters, made runnable).
//!
//! Formats: JUnit 5 sources ([`junit`]), a Postman v2.1 collection for newman
//! ([`postman`]), readable Markdown ([`readable`]), the suite itself as JSON ([`json`]),
//! and for metamorphic tests alone a behave suite ([`gherkin`]). Metamorphic tests join
//! the first four as first-class members: a JUnit test, a Postman folder, a Markdown
//! section, a `metamorphic` array.
//! Every exported test carries its `op_id` and `o_id` so a result traces back to the oracle.
//!
//! The generated tests reproduce mastor's own runner semantics (field paths with `[n]` and
//! `[*]`, numeric equality, `$captures.<name>` bindings) in Java and JavaScript; the shared
//! rules are spelled out once in [`request`] for the parts decided at export time.
//!
//! This module does not run anything (compiling or launching the exported suites is the
//! user's or the test's business), never overwrites a file it did not write ([`guard`])
//! and never writes to a session: [`load_session`] and
//! [`ExportInput::from_suite_file`] only read, through the shared `suite` loaders.

pub mod diff;
pub mod gherkin;
pub mod guard;
pub mod json;
pub mod junit;
mod junit_code;
mod junit_mr;
mod junit_names;
pub mod mr;
mod order;
pub mod postman;
mod postman_mr;
pub mod readable;
pub mod request;
pub mod session;

pub use session::load_session;

use crate::model::{MetamorphicTest, MultiOpOracle, Oracle, ReviewState, SuiteFile, Verdict};
use crate::runner::relations::Documented;
use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;

/// Everything an exporter needs: the oracles, their review states, and optional verdicts.
#[derive(Debug, Clone, Default)]
pub struct ExportInput {
    pub oracles: Vec<Oracle>,
    pub multi_op: Vec<MultiOpOracle>,
    /// Metamorphic tests (o_id `mr#<test_id>`), selected by review state like oracles.
    pub metamorphic: Vec<MetamorphicTest>,
    /// Documented statuses per op_id (from the session's spec when it can be read), so
    /// exported metamorphic tests treat an undocumented status as an execution failure
    /// as `mastor check` does. Empty: only 5xx counts as one.
    pub documented: Documented,
    /// o_id → review state; an absent o_id is `Proposed`.
    pub review: BTreeMap<String, ReviewState>,
    /// o_id → latest verdict, shown by the readable export when present.
    pub verdicts: BTreeMap<String, Verdict>,
    /// o_id → the oracle as generated, for oracles exported in an edited form (the
    /// readable export shows what the reviewer changed). Empty for suite files.
    pub originals: BTreeMap<String, serde_json::Value>,
    /// Which review states are exported.
    pub selection: Selection,
    /// What the loader skipped or could not apply (malformed entries, edits that do not
    /// parse), one line each, for the caller to show: an export never hides them.
    pub problems: Vec<String>,
    /// Choices of the project the export goes into.
    pub options: ExportOptions,
}

/// Choices of the project an export goes into; the defaults suit a directory of its own.
#[derive(Debug, Clone, Default)]
pub struct ExportOptions {
    /// Java package of the JUnit sources (`--package com.acme.api`); default
    /// [`junit::PACKAGE`].
    pub package: Option<String>,
    /// The Postman collection's `baseUrl` (`--base-url`); default: the URL the latest
    /// verdicts were run against, when the input has any.
    pub base_url: Option<String>,
}

/// Which oracles an export includes. Rejected oracles are never exported.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Selection {
    /// Accepted and edited oracles only: what a reviewer signed off.
    #[default]
    Reviewed,
    /// Also proposed (not yet reviewed) oracles (`--all`).
    All,
}

impl Selection {
    /// Whether an oracle in `state` is exported under this selection.
    pub fn includes(self, state: ReviewState) -> bool {
        match state {
            ReviewState::Accepted | ReviewState::Edited => true,
            ReviewState::Proposed => self == Selection::All,
            ReviewState::Rejected | ReviewState::Dropped => false,
        }
    }
}

impl ExportInput {
    /// Builds an input from a suite already in memory (review states taken from it).
    pub fn from_suite(suite: SuiteFile, selection: Selection) -> Self {
        ExportInput {
            oracles: suite.oracles,
            multi_op: suite.multi_op,
            metamorphic: suite.metamorphic,
            documented: Documented::new(),
            review: suite.review,
            verdicts: BTreeMap::new(),
            originals: BTreeMap::new(),
            selection,
            problems: Vec::new(),
            options: ExportOptions::default(),
        }
    }

    /// Reads a suite file with the shared loader (`crate::suite`), so `export` accepts
    /// exactly what `check` and `import` accept: our `SuiteFile` (as `--format json`
    /// writes it), the paper's per-operation format, or a bare array of oracles. Entries
    /// the loader skips are listed in [`ExportInput::problems`].
    pub fn from_suite_file(path: &Path, selection: Selection) -> Result<Self, ExportError> {
        let loaded = crate::suite::load_file(path).map_err(|source| ExportError::BadSuite {
            path: path.to_path_buf(),
            reason: source.to_string(),
        })?;
        let mut input = ExportInput::from_suite(loaded.suite, selection);
        input.problems = loaded.problems.iter().map(ToString::to_string).collect();
        Ok(input)
    }

    /// Review state of an o_id (absent: proposed).
    pub fn state(&self, o_id: &str) -> ReviewState {
        self.review.get(o_id).copied().unwrap_or_default()
    }

    /// The single-op oracles this export includes, in input order.
    pub fn selected_oracles(&self) -> Vec<&Oracle> {
        self.oracles
            .iter()
            .filter(|o| self.selection.includes(self.state(&o.o_id())))
            .collect()
    }

    /// The multi-op oracles this export includes, in input order.
    pub fn selected_multi_op(&self) -> Vec<&MultiOpOracle> {
        self.multi_op
            .iter()
            .filter(|m| self.selection.includes(self.state(&m.o_id())))
            .collect()
    }

    /// The metamorphic tests this export includes, in input order.
    pub fn selected_metamorphic(&self) -> Vec<&MetamorphicTest> {
        self.metamorphic
            .iter()
            .filter(|t| self.selection.includes(self.state(&t.o_id())))
            .collect()
    }
}

/// Output formats. `Gherkin` exports the metamorphic tests only (a behave suite).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Junit,
    Postman,
    Readable,
    Json,
    Gherkin,
}

impl Format {
    /// All formats with their command-line names.
    pub const ALL: [(Format, &'static str); 5] = [
        (Format::Junit, "junit"),
        (Format::Postman, "postman"),
        (Format::Readable, "readable"),
        (Format::Json, "json"),
        (Format::Gherkin, "gherkin"),
    ];
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = Format::ALL
            .iter()
            .find(|(format, _)| format == self)
            .map_or("?", |(_, name)| name);
        f.write_str(name)
    }
}

impl FromStr for Format {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Format::ALL
            .iter()
            .find(|(_, name)| name.eq_ignore_ascii_case(s))
            .map(|(format, _)| *format)
            .ok_or_else(|| {
                format!("unknown format '{s}' (junit, postman, readable, json, gherkin)")
            })
    }
}

/// Where one exported oracle ended up, so a runner's result can be traced back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExportedItem {
    pub o_id: String,
    pub op_id: String,
    /// Format-specific location: `package.Class#method` (JUnit), `folder/request`
    /// (Postman), a Markdown anchor (readable), the array index (JSON).
    pub location: String,
}

/// What an export wrote.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ExportReport {
    /// Files written, in writing order.
    pub files: Vec<PathBuf>,
    /// One entry per exported oracle (multi-op sequences: one per sequence).
    pub items: Vec<ExportedItem>,
    /// Oracles left out by the selection (rejected, or proposed without `--all`).
    pub skipped: usize,
}

/// Why an export failed. Each variant names the file or oracle concerned.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    #[error("cannot read or write {path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{path}: {reason}")]
    BadSuite { path: PathBuf, reason: String },
    #[error("oracle {o_id}: {reason}")]
    BadOracle { o_id: String, reason: String },
    #[error("{option}: {reason}")]
    BadOption {
        option: &'static str,
        reason: String,
    },
    #[error(
        "refusing to overwrite {} file(s) that mastor export did not write (or that were \
         edited since): {}; pass --force to overwrite them, or choose another output directory",
        files.len(),
        files.iter().map(|f| f.display().to_string()).collect::<Vec<_>>().join(", ")
    )]
    WouldOverwrite { files: Vec<PathBuf> },
    #[error("cannot read session {dir}: {source}")]
    Session {
        dir: PathBuf,
        #[source]
        source: crate::store::StoreError,
    },
}

/// Writes the selected oracles of `input` in `format` into `out_dir` (created if needed),
/// refusing to overwrite files it did not write there (see [`guard`]).
///
/// The report lists every file written and where each oracle went, which is what
/// traceability tooling needs.
pub fn export(
    input: &ExportInput,
    format: Format,
    out_dir: &Path,
) -> Result<ExportReport, ExportError> {
    let mut reports = export_all(input, &[format], out_dir, false)?;
    Ok(reports.remove(0).1)
}

/// Writes several formats into `out_dir` as one step: every file is checked against the
/// directory's export manifest before any is written, so a refusal (a hand-written file
/// in the way, without `force`) leaves the directory exactly as it was.
pub fn export_all(
    input: &ExportInput,
    formats: &[Format],
    out_dir: &Path,
    force: bool,
) -> Result<Vec<(Format, ExportReport)>, ExportError> {
    let staging = tempfile::tempdir().map_err(|source| ExportError::Io {
        path: std::env::temp_dir(),
        source,
    })?;
    let mut planned = Vec::new();
    let mut reports = Vec::new();
    for (i, format) in formats.iter().enumerate() {
        let dir = staging.path().join(i.to_string());
        let mut report = export_to(input, *format, &dir)?;
        for rel in guard::files_under(&dir)? {
            let path = dir.join(&rel);
            let bytes = std::fs::read(&path).map_err(|source| ExportError::Io {
                path: path.clone(),
                source,
            })?;
            planned.push(guard::Planned {
                rel,
                bytes,
                format: format.to_string(),
            });
        }
        for f in &mut report.files {
            if let Ok(rel) = f.strip_prefix(&dir) {
                *f = out_dir.join(rel);
            }
        }
        reports.push((*format, report));
    }
    let names: Vec<String> = formats.iter().map(ToString::to_string).collect();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    guard::commit(out_dir, &planned, &names, force)?;
    Ok(reports)
}

/// Writes one format into a directory of its own (the staging directory).
fn export_to(
    input: &ExportInput,
    format: Format,
    out_dir: &Path,
) -> Result<ExportReport, ExportError> {
    create_dir(out_dir)?;
    let total = input.oracles.len() + input.multi_op.len() + input.metamorphic.len();
    let selected = input.selected_oracles().len()
        + input.selected_multi_op().len()
        + input.selected_metamorphic().len();
    let mut report = match format {
        Format::Junit => junit::export(input, out_dir)?,
        Format::Postman => postman::export(input, out_dir)?,
        Format::Readable => readable::export(input, out_dir)?,
        Format::Json => json::export(input, out_dir)?,
        Format::Gherkin => {
            let tests: Vec<MetamorphicTest> =
                input.selected_metamorphic().into_iter().cloned().collect();
            // Gherkin carries metamorphic tests only: the other oracles are left out.
            let report = gherkin::export_gherkin_with(&tests, &input.documented, out_dir)?;
            return Ok(ExportReport {
                skipped: input.metamorphic.len() - tests.len(),
                ..report
            });
        }
    };
    report.skipped = total - selected;
    Ok(report)
}

/// Creates a directory and its parents, naming it on failure.
pub(crate) fn create_dir(dir: &Path) -> Result<(), ExportError> {
    std::fs::create_dir_all(dir).map_err(|source| ExportError::Io {
        path: dir.to_path_buf(),
        source,
    })
}

/// Writes a file, naming it on failure.
pub(crate) fn write_file(path: &Path, text: &str) -> Result<(), ExportError> {
    std::fs::write(path, text).map_err(|source| ExportError::Io {
        path: path.to_path_buf(),
        source,
    })
}

/// Splits an `op_id` (`GET /pets/{id}`) into method and path template.
pub(crate) fn split_op_id<'a>(
    o_id: &str,
    op_id: &'a str,
) -> Result<(&'a str, &'a str), ExportError> {
    match op_id.split_once(' ') {
        Some((method, path))
            if !method.is_empty()
                && method.chars().all(|c| c.is_ascii_alphabetic())
                && path.starts_with('/') =>
        {
            Ok((method, path))
        }
        _ => Err(ExportError::BadOracle {
            o_id: o_id.to_string(),
            reason: format!("op_id '{op_id}' is not 'METHOD /path'"),
        }),
    }
}

/// The op_ids of a metamorphic test's steps, seed then follow-up: `A -> B -> C`.
pub(crate) fn mr_op_ids(t: &MetamorphicTest) -> String {
    t.seed
        .iter()
        .chain(&t.follow_up)
        .map(|s| s.op_id.as_str())
        .collect::<Vec<_>>()
        .join(" -> ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn selection_never_includes_rejected() {
        for sel in [Selection::Reviewed, Selection::All] {
            assert!(!sel.includes(ReviewState::Rejected));
            assert!(sel.includes(ReviewState::Accepted));
            assert!(sel.includes(ReviewState::Edited));
        }
        assert!(!Selection::Reviewed.includes(ReviewState::Proposed));
        assert!(Selection::All.includes(ReviewState::Proposed));
    }

    #[test]
    fn format_names_round_trip() {
        for (format, name) in Format::ALL {
            assert_eq!(name.parse::<Format>(), Ok(format));
            assert_eq!(format.to_string(), name);
        }
        assert!("cucumber".parse::<Format>().is_err());
    }

    #[test]
    fn split_op_id_rejects_malformed() {
        assert_eq!(split_op_id("x", "GET /a/{b}").ok(), Some(("GET", "/a/{b}")));
        assert!(split_op_id("x", "/a").is_err());
        assert!(split_op_id("x", "GET a").is_err());
    }
}
