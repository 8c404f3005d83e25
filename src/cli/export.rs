//! `mastor export`: write the reviewed oracles of a session or suite file as JUnit 5
//! sources, a Postman collection, readable Markdown or JSON.
//!
//! Files an earlier export did not write are never overwritten without `--force`
//! (`export::guard`). Loading and writing are the `export` module's work; this file only parses arguments,
//! reports what was written, and maps errors to exit codes.

use crate::cli::{EXIT_INPUT, EXIT_OK};
use crate::export::{self, ExportInput, Format, Selection};
use clap::Args;
use std::path::PathBuf;

/// Arguments of `mastor export`.
#[derive(Debug, Args)]
#[command(after_help = "Examples:\n  \
    mastor export .mastor --format junit --out build/junit\n  \
    mastor export suite.json --format postman,readable --all --out build/export\n  \
    mastor export .mastor --format gherkin --out build/behave")]
pub struct ExportArgs {
    /// A session directory (e.g. `.mastor`) or a suite file (ours as written by
    /// `--format json`, the paper's per-operation format, or an array of oracles).
    pub source: PathBuf,
    /// Output formats: junit, postman, readable, json, gherkin (comma-separated or
    /// repeated; gherkin writes the metamorphic tests only, as a behave suite).
    #[arg(long, short, value_delimiter = ',', required = true, value_parser = parse_format)]
    pub format: Vec<Format>,
    /// Include proposed (not yet reviewed) oracles; rejected ones are never exported.
    #[arg(long)]
    pub all: bool,
    /// Output directory (created if needed).
    #[arg(long, short)]
    pub out: PathBuf,
    /// Overwrite files in the output directory that an earlier export did not write (or
    /// that were edited since); without it such files stop the export, untouched.
    #[arg(long)]
    pub force: bool,
}

fn parse_format(text: &str) -> Result<Format, String> {
    text.parse()
}

/// Runs `mastor export`.
pub fn run(args: ExportArgs) -> color_eyre::Result<i32> {
    let selection = if args.all {
        Selection::All
    } else {
        Selection::Reviewed
    };
    let loaded = if args.source.is_dir() {
        export::load_session(&args.source, selection)
    } else {
        ExportInput::from_suite_file(&args.source, selection)
    };
    let input = match loaded {
        Ok(input) => input,
        Err(e) => {
            eprintln!("mastor export: {e}");
            return Ok(EXIT_INPUT);
        }
    };
    for problem in &input.problems {
        eprintln!("mastor export: warning: {problem}");
    }
    match export::export_all(&input, &args.format, &args.out, args.force) {
        Ok(reports) => {
            for (format, report) in reports {
                println!(
                    "{format}: {} tests, {} files in {} ({} left out by review state)",
                    report.items.len(),
                    report.files.len(),
                    args.out.display(),
                    report.skipped
                );
            }
        }
        Err(e) => {
            eprintln!("mastor export: {e}");
            return Ok(EXIT_INPUT);
        }
    }
    Ok(EXIT_OK)
}
