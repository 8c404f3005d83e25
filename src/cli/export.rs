//! `mastor export`: write the reviewed oracles of a session or suite file as JUnit 5
//! sources, a Postman collection, readable Markdown or JSON.
//!
//! Files an earlier export did not write are never overwritten without `--force`
//! (`export::guard`). Loading and writing are the `export` module's work; this file only parses arguments,
//! reports what was written, and maps errors to exit codes.

use crate::cli::{EXIT_INPUT, EXIT_OK};
use crate::export::{self, ExportInput, Format, Selection};
use crate::suite::filter::{self, OracleType};
use clap::Args;
use std::path::PathBuf;

/// Arguments of `mastor export`.
#[derive(Debug, Args)]
#[command(after_help = "Examples:\n  \
    mastor export .mastor --format junit --out build/junit\n  \
    mastor export .mastor --format junit --package com.acme.api --out src/test/java\n  \
    mastor export suite.json --format postman,readable --all --out build/export\n  \
    mastor export .mastor --format gherkin --out build/behave\n  \
    mastor export .mastor-dp --format json --all --op 'GET /pets/{petId}' --types status,field --out build/rq2")]
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
    /// Export only oracles of this operation (`GET /pets/{id}`, as `run --op`) or group;
    /// repeatable. An operation the suite does not have is an error naming it.
    #[arg(long = "op", value_name = "OP")]
    pub ops: Vec<String>,
    /// Export only these oracle types: status, field (an oracle's primary assertion
    /// type, as the run summary counts them), multi (sequences), metamorphic.
    #[arg(long, value_delimiter = ',', value_name = "TYPES", value_parser = parse_type)]
    pub types: Vec<OracleType>,
    /// Overwrite files in the output directory that an earlier export did not write (or
    /// that were edited since); without it such files stop the export, untouched.
    #[arg(long)]
    pub force: bool,
    /// Java package of the JUnit sources (default `mastor.suite`), e.g. `com.acme.api`.
    #[arg(long, value_name = "NAME")]
    pub package: Option<String>,
    /// The Postman collection's `baseUrl` (default: the URL of the session's latest
    /// verdicts; newman's `--env-var baseUrl=...` still overrides it).
    #[arg(long, value_name = "URL")]
    pub base_url: Option<String>,
}

fn parse_format(text: &str) -> Result<Format, String> {
    text.parse()
}

/// A `--types` value (shared with `check` and `compare`).
pub fn parse_type(text: &str) -> Result<OracleType, String> {
    text.parse()
}

/// Narrows an export input to `ops` and `types` (see `suite::filter`).
fn narrow(input: &mut ExportInput, ops: &[String], types: &[OracleType]) -> Result<(), String> {
    filter::keep_ops(
        &mut input.oracles,
        &mut input.multi_op,
        &mut input.metamorphic,
        ops,
    )?;
    filter::keep_types(
        &mut input.oracles,
        &mut input.multi_op,
        &mut input.metamorphic,
        types,
    );
    Ok(())
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
    let mut input = match loaded {
        Ok(input) => input,
        Err(e) => {
            eprintln!("mastor export: {e}");
            return Ok(EXIT_INPUT);
        }
    };
    if let Err(e) = narrow(&mut input, &args.ops, &args.types) {
        eprintln!("mastor export: --op: {}", crate::text::escape_controls(&e));
        return Ok(EXIT_INPUT);
    }
    input.options.package = args.package;
    input.options.base_url = args.base_url;
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
