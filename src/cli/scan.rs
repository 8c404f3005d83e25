//! `mastor scan`: the rule-based source analysis of a project against its spec, printed
//! as a table or as one JSON object.
//!
//! All analysis lives in `source` and `spec`; this file only resolves the inputs, maps
//! input errors to exit code 2 and formats the report.

use crate::cli::{EXIT_INPUT, EXIT_OK};
use crate::source::report::ScanReport;
use crate::source::{AnalyseOptions, analyse};
use crate::spec;
use clap::Args;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::PathBuf;

/// Arguments of `mastor scan`.
#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  mastor scan ./countries\n  mastor scan ./shop --spec api/openapi.yaml --json\n  mastor scan ./shop --exclude '/internal/**'"
)]
pub struct ScanArgs {
    /// The Java project directory.
    pub project: PathBuf,
    /// The OpenAPI/Swagger file (JSON or YAML); searched in the project when omitted.
    #[arg(long, value_name = "FILE")]
    pub spec: Option<PathBuf>,
    /// Print one JSON object instead of tables.
    #[arg(long)]
    pub json: bool,
    /// Extra path globs of operations to exclude (`*` one segment, `**` the rest), on top
    /// of the built-in framework endpoints (actuator, /error).
    #[arg(long = "exclude", value_name = "PATTERN")]
    pub exclude: Vec<String>,
    /// Which bundle the per-operation figures (files, lines, tokens) describe: the
    /// handler's import `closure` or the operation's `slice` (see `mastor run --bundle`).
    #[arg(long, value_enum, value_name = "MODE", default_value = "slice")]
    pub bundle: crate::source::bundle::BundleMode,
}

/// Runs the scan; input problems print a message and return exit code 2.
pub fn run(args: ScanArgs) -> color_eyre::Result<i32> {
    match scan(&args) {
        Ok(text) => {
            print!("{text}");
            Ok(EXIT_OK)
        }
        Err(message) => {
            eprintln!("error: {message}");
            Ok(EXIT_INPUT)
        }
    }
}

/// Everything but printing, so the output can be tested as a string.
fn scan(args: &ScanArgs) -> Result<String, String> {
    let root = &args.project;
    if !root.is_dir() {
        return Err(format!(
            "project directory {} does not exist or is not a directory",
            root.display()
        ));
    }
    let mut notes = Vec::new();
    let spec_path = match &args.spec {
        Some(p) => p.clone(),
        None => {
            let found = spec::find_spec(root).map_err(|e| {
                // A project without Java sources is the more basic problem: say that.
                match crate::source::scan::scan(root) {
                    Err(source_err) => source_err.to_string(),
                    Ok(_) => e.to_string(),
                }
            })?;
            let mut note = format!("using spec {}", found.path.display());
            let others: Vec<String> = found
                .candidates
                .iter()
                .filter(|c| **c != found.path)
                .map(|c| c.display().to_string())
                .collect();
            if !others.is_empty() {
                let _ = write!(note, " (also found: {})", others.join(", "));
            }
            notes.push(note);
            found.path
        }
    };
    let loaded = spec::load(&spec_path).map_err(|e| e.to_string())?;
    let options = AnalyseOptions {
        exclude: args.exclude.clone(),
        ..AnalyseOptions::default()
    };
    let analysis = analyse(root, &loaded, &options).map_err(|e| e.to_string())?;
    let mut report = analysis.report.clone();
    if args.bundle == crate::source::bundle::BundleMode::Slice {
        let slices = crate::source::slice::slice_bundles(root, &analysis);
        crate::source::slice::replace_summaries(&mut report, &slices);
    }
    report.warnings.extend(loaded.warnings.iter().cloned());
    if args.json {
        let mut text = serde_json::to_string_pretty(&report).map_err(|e| e.to_string())?;
        text.push('\n');
        // Which spec was picked goes to stderr so stdout stays one JSON object.
        for n in notes {
            eprintln!("{n}");
        }
        Ok(text)
    } else {
        Ok(human(&report, &notes))
    }
}

/// Left-aligned columns, two spaces apart.
fn table(rows: &[Vec<String>]) -> String {
    let cols = rows.iter().map(Vec::len).max().unwrap_or(0);
    let widths: Vec<usize> = (0..cols)
        .map(|c| {
            rows.iter()
                .filter_map(|r| r.get(c))
                .map(|s| s.chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    for r in rows {
        let mut line = String::new();
        for (c, cell) in r.iter().enumerate() {
            if c + 1 == r.len() {
                line.push_str(cell);
            } else {
                let _ = write!(line, "{cell:<w$}  ", w = widths[c]);
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

/// The human-readable report.
fn human(report: &ScanReport, notes: &[String]) -> String {
    let mut out = String::new();
    for n in notes {
        let _ = writeln!(out, "{n}");
    }
    let matched = report
        .operations
        .iter()
        .filter(|o| o.entry.is_some())
        .count();
    let excluded = report
        .operations
        .iter()
        .filter(|o| o.excluded.is_some())
        .count();
    let _ = writeln!(
        out,
        "spec {} (version {}): {} operations, {matched} matched to a handler, {excluded} excluded",
        report.spec.file, report.spec.version, report.spec.operations
    );
    let _ = writeln!(
        out,
        "java: {} files in {} source root(s)\n",
        report.java_files,
        report.source_roots.len().max(1)
    );
    // Handler last: it holds the long unmatched reasons.
    let mut rows = vec![vec![
        "OPERATION".to_string(),
        "FILES".to_string(),
        "LINES".to_string(),
        "TOKENS".to_string(),
        "HANDLER".to_string(),
    ]];
    for op in &report.operations {
        let handler = match (&op.entry, &op.unmatched_reason) {
            (Some(e), _) => format!("{}.{} ({}:{})", e.class, e.method, e.file, e.line),
            (None, Some(r)) => format!("- {r}"),
            (None, None) => "-".to_string(),
        };
        let (files, lines, tokens) = match &op.bundle {
            Some(b) => (
                b.files.len().to_string(),
                b.lines.to_string(),
                b.tokens_est.to_string(),
            ),
            None => ("-".into(), "-".into(), "-".into()),
        };
        rows.push(vec![op.op_id.clone(), files, lines, tokens, handler]);
    }
    out.push_str(&table(&rows));

    let mut by_framework: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for e in &report.entry_files {
        by_framework
            .entry(e.framework.tag())
            .or_default()
            .push(e.file.as_str());
    }
    let _ = writeln!(out, "\nentry files:");
    for (fw, files) in &by_framework {
        let _ = writeln!(out, "  {fw}:");
        for f in files {
            let _ = writeln!(out, "    {f}");
        }
    }
    if !report.shared_files.is_empty() {
        let _ = writeln!(out, "\nfiles shared across bundles:");
        let rows: Vec<Vec<String>> = report
            .shared_files
            .iter()
            .map(|s| vec![format!("  {}", s.bundles), s.file.clone()])
            .collect();
        out.push_str(&table(&rows));
    }
    if !report.routes_without_spec.is_empty() {
        let _ = writeln!(out, "\nroutes in the code with no spec operation:");
        let rows: Vec<Vec<String>> = report
            .routes_without_spec
            .iter()
            .map(|r| {
                vec![
                    format!("  {} {}", r.method.as_deref().unwrap_or("*"), r.path),
                    format!(
                        "{}.{} ({}:{})",
                        r.handler.class, r.handler.method, r.handler.file, r.handler.line
                    ),
                ]
            })
            .collect();
        out.push_str(&table(&rows));
    }
    if !report.seed_files.is_empty() {
        let _ = writeln!(out, "\nseed data files:");
        for f in &report.seed_files {
            let _ = writeln!(out, "  {f}");
        }
    }
    if !report.seed_java.is_empty() {
        let _ = writeln!(out, "\nseed data in start-up code:");
        let rows: Vec<Vec<String>> = report
            .seed_java
            .iter()
            .map(|s| {
                vec![
                    format!("  {}:{}", s.file, s.line),
                    format!("{} ({})", s.name, s.kind.describe()),
                ]
            })
            .collect();
        out.push_str(&table(&rows));
    }
    if !report.seed_refused.is_empty() {
        let _ = writeln!(out, "\nseed files never sent to a model:");
        for r in &report.seed_refused {
            let _ = writeln!(out, "  {}: {}", r.file, r.reason);
        }
    }
    if !report.redactions.is_empty() {
        let _ = writeln!(
            out,
            "\nredacted before anything reaches a model ({}):",
            report.redactions.len()
        );
        for r in &report.redactions {
            let _ = writeln!(out, "  {}:{}: {}", r.file, r.line, r.kind);
        }
    }
    if !report.warnings.is_empty() {
        let _ = writeln!(out, "\nwarnings:");
        for w in &report.warnings {
            let _ = writeln!(out, "  {w}");
        }
    }
    out
}
