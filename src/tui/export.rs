//! Export from the review: what the Export dialog writes.
//!
//! Every format reads the session as `mastor export` does (`export::load_session`, the
//! one session reader, with the same selection), so the dialog and the command write the
//! same files by construction: the review decisions are in the journal before an export
//! can start. JUnit 5, Postman and readable Markdown come from `crate::export` through the
//! same [`Exporter`] hook, so a new format there shows up in the dialog by being added to
//! [`formats`]. Only accepted and edited oracles are exported, edited ones in their
//! edited form. [`preview`] is what the dialog says before an export (counts per chosen
//! format, failing and stale verdicts), [`Exporter::would_replace`] what it asks about.
//! This module writes files; it never prints.

use super::view::SessionView;
use crate::export::guard::{self, Planned};
use crate::export::{ExportInput, Format, Selection};
use crate::model::{ReviewState, SCHEMA_VERSION, SuiteFile};
use std::path::{Path, PathBuf};

/// One export format the dialog can offer.
pub trait Exporter {
    /// Name shown in the dialog.
    fn name(&self) -> &'static str;
    /// Writes the reviewed suite to `dest`; returns a one-line summary. Files an earlier
    /// export did not write are refused (an error naming them), never overwritten.
    fn export(&self, view: &SessionView, dest: &Path) -> Result<String, String>;
    /// The export module's format this writes.
    fn format(&self) -> Format;
    /// Files already at `dest` that this format would replace (the dialog asks first).
    fn would_replace(&self, dest: &Path) -> Vec<PathBuf> {
        let name = self.format().to_string();
        guard::exported_files(&out_dir(dest), &[name.as_str()])
    }
}

/// What the dialog says an export of some formats will include, before it runs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Preview {
    /// Oracles, sequences and metamorphic tests the formats write (Gherkin: metamorphic
    /// tests only); the largest count over the chosen formats.
    pub items: usize,
    /// Of those, how many failed (or errored) in their latest run, still current.
    pub failing: usize,
    /// Of those, how many have a verdict of content that changed since (edited, undone).
    pub stale: usize,
}

/// The preview of exporting the reviewed suite in `formats` (indices into [`formats`]).
pub fn preview(view: &SessionView, formats: &[usize]) -> Preview {
    use super::verdict_mark::VerdictMark;
    let all = self::formats();
    let suite = reviewed_suite(view);
    let mr_only = formats
        .iter()
        .all(|&i| all.get(i).is_some_and(|f| f.format() == Format::Gherkin));
    let mut ids: Vec<String> = suite.metamorphic.iter().map(|t| t.o_id()).collect();
    if !mr_only {
        ids.extend(suite.oracles.iter().map(|o| o.o_id()));
        ids.extend(suite.multi_op.iter().map(|m| m.o_id()));
    }
    let mut p = Preview {
        items: ids.len(),
        ..Preview::default()
    };
    for id in &ids {
        match view.verdict_mark(id) {
            Some(VerdictMark::Fail | VerdictMark::Error) => p.failing += 1,
            Some(VerdictMark::Stale(_)) => p.stale += 1,
            _ => {}
        }
    }
    p
}

/// The formats offered, in dialog order.
pub fn formats() -> Vec<Box<dyn Exporter>> {
    vec![
        Box::new(JsonExporter),
        Box::new(LibraryExporter(Format::Junit, "junit 5 (java)")),
        Box::new(LibraryExporter(Format::Postman, "postman collection")),
        Box::new(LibraryExporter(Format::Readable, "readable markdown")),
        Box::new(LibraryExporter(
            Format::Gherkin,
            "gherkin + behave (metamorphic)",
        )),
    ]
}

/// Every oracle in its reviewed form, with its review state.
fn full_suite(view: &SessionView) -> SuiteFile {
    let mut suite = SuiteFile {
        schema_version: SCHEMA_VERSION,
        ..SuiteFile::default()
    };
    for op in &view.ops {
        for o in &op.oracles {
            suite.review.insert(o.o_id(), view.review_state(&o.o_id()));
            suite.oracles.push(view.effective_oracle(o));
        }
    }
    for g in &view.groups {
        for o in &g.oracles {
            suite.review.insert(o.o_id(), view.review_state(&o.o_id()));
            suite.multi_op.push(view.effective_multi(o));
        }
    }
    for t in &view.metamorphic {
        suite.review.insert(t.o_id(), view.review_state(&t.o_id()));
        suite.metamorphic.push(view.effective_mr(t));
    }
    suite
}

/// The session's accepted and edited oracles, read as `mastor export` reads them.
fn session_input(view: &SessionView) -> Result<ExportInput, String> {
    crate::export::load_session(&view.dir, Selection::Reviewed).map_err(|e| e.to_string())
}

/// The suite of accepted and edited oracles as the view holds them: the dialog's preview
/// of what an export will include (cheap enough to draw every frame; the export itself
/// reads the session).
pub fn reviewed_suite(view: &SessionView) -> SuiteFile {
    let keep = |s: &ReviewState| matches!(s, ReviewState::Accepted | ReviewState::Edited);
    let mut suite = full_suite(view);
    let state = |id: &str| suite.review.get(id).copied().unwrap_or_default();
    let oracles = suite
        .oracles
        .iter()
        .filter(|o| keep(&state(&o.o_id())))
        .cloned()
        .collect();
    let multi = suite
        .multi_op
        .iter()
        .filter(|o| keep(&state(&o.o_id())))
        .cloned()
        .collect();
    let metamorphic = suite
        .metamorphic
        .iter()
        .filter(|t| keep(&state(&t.o_id())))
        .cloned()
        .collect();
    suite.oracles = oracles;
    suite.multi_op = multi;
    suite.metamorphic = metamorphic;
    suite.review.retain(|_, s| keep(s));
    suite
}

/// `dest` as a file for the JSON suite: a directory (or a path without extension)
/// gets `suite.json` inside it.
fn json_file(dest: &Path) -> PathBuf {
    if dest.extension().is_some() && !dest.is_dir() {
        dest.to_path_buf()
    } else {
        dest.join("suite.json")
    }
}

/// `dest` as a directory for the multi-file formats: a file path means its directory.
fn out_dir(dest: &Path) -> PathBuf {
    if dest.extension().is_some() && !dest.is_dir() {
        dest.parent().map(Path::to_path_buf).unwrap_or_default()
    } else {
        dest.to_path_buf()
    }
}

/// `model::SuiteFile` as pretty JSON (what `mastor check` reads).
pub struct JsonExporter;

impl Exporter for JsonExporter {
    fn name(&self) -> &'static str {
        "json (suite file)"
    }

    fn format(&self) -> Format {
        Format::Json
    }

    fn would_replace(&self, dest: &Path) -> Vec<PathBuf> {
        let file = json_file(dest);
        if file.is_file() {
            vec![file]
        } else {
            Vec::new()
        }
    }

    fn export(&self, view: &SessionView, dest: &Path) -> Result<String, String> {
        let dest = json_file(dest);
        let suite = crate::export::json::suite(&session_input(view)?);
        let text = serde_json::to_vec_pretty(&suite).map_err(|e| e.to_string())?;
        // Through the export guard, as every other format: a file the export did not
        // write (or one edited since) is refused, not overwritten.
        let dir = dest
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        let name = dest
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "suite.json".into());
        let file = Planned {
            rel: name,
            bytes: text,
            format: "json".into(),
        };
        guard::commit(dir, &[file], &[], false).map_err(|e| e.to_string())?;
        Ok(format!(
            "wrote {} oracles, {} multi-op oracles and {} metamorphic tests to {}",
            suite.oracles.len(),
            suite.multi_op.len(),
            suite.metamorphic.len(),
            dest.display()
        ))
    }
}

/// A format of the export module, fed the reviewed suite and the latest verdicts.
pub struct LibraryExporter(pub Format, pub &'static str);

impl Exporter for LibraryExporter {
    fn name(&self) -> &'static str {
        self.1
    }

    fn format(&self) -> Format {
        self.0
    }

    fn export(&self, view: &SessionView, dest: &Path) -> Result<String, String> {
        let dir = out_dir(dest);
        let input = session_input(view)?;
        let report = crate::export::export(&input, self.0, &dir).map_err(|e| e.to_string())?;
        Ok(format!(
            "{}: {} tests in {} files under {} ({} left out)",
            self.0,
            report.items.len(),
            report.files.len(),
            dir.display(),
            report.skipped
        ))
    }
}
