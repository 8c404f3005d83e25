//! `mastor import`: turn an oracle file (our suite, the paper's per-operation format, or
//! an array of oracles) into a session directory for review and `mastor check`.
//!
//! Malformed entries (an unknown key inside one included) and duplicate test ids are
//! listed on stderr, one line each, and fail the import (exit 2, nothing written): a
//! session that silently lacks entries would let `check SESSION` pass where `check FILE`
//! fails. `--lenient` keeps the old forgiving behaviour: such entries are left out
//! ("skipped") and unknown keys become warnings. With `--spec`, the spec's operations are stored
//! too and oracles on operations the spec does not declare are flagged. With `--project`,
//! the project root is recorded (absolute) so the workbench finds the evidence sources
//! from any directory.

use crate::cli::{EXIT_INPUT, EXIT_OK};
use crate::store::{Manifest, SessionLock, StagedSession};
use crate::suite::{self, session};
use crate::text::escape_controls;
use clap::Args;
use color_eyre::eyre::WrapErr;
use std::collections::HashSet;
use std::path::PathBuf;

/// Arguments of `mastor import`.
#[derive(Debug, Args)]
#[command(
    after_help = "Example:\n  mastor import oracles.json --spec openapi.json --project . --out .mastor \
&& mastor check .mastor --only all --base-url http://127.0.0.1:8080"
)]
pub struct ImportArgs {
    /// The oracle file to import.
    pub file: PathBuf,
    /// The API's OpenAPI/Swagger spec, stored with the session.
    #[arg(long, value_name = "FILE")]
    pub spec: Option<PathBuf>,
    /// Session directory to create (must not hold a session yet).
    #[arg(long, default_value = ".mastor", value_name = "DIR")]
    pub out: PathBuf,
    /// Import what loads: leave malformed entries and duplicate test ids out ("skipped")
    /// and ignore unknown keys (with a warning) instead of refusing the file.
    #[arg(long)]
    pub lenient: bool,
    /// The Java project the oracles are about: recorded (absolute) in the session, so
    /// evidence references resolve against it wherever the session is opened from.
    #[arg(long, value_name = "DIR")]
    pub project: Option<PathBuf>,
}

/// Runs `mastor import`.
pub fn run(args: ImportArgs) -> color_eyre::Result<i32> {
    let opts = suite::LoadOptions {
        lenient: args.lenient,
    };
    let loaded = suite::load_file_with(&args.file, opts)?;
    for w in &loaded.warnings {
        eprintln!("warning: {}", escape_controls(w));
    }
    if !loaded.problems.is_empty() && !args.lenient {
        for p in &loaded.problems {
            eprintln!("error: {}", escape_controls(&p.to_string()));
        }
        eprintln!(
            "error: {} has {} malformed or duplicate entr{} (named above); nothing imported \
             (--lenient imports the rest)",
            escape_controls(&args.file.display().to_string()),
            loaded.problems.len(),
            if loaded.problems.len() == 1 {
                "y"
            } else {
                "ies"
            }
        );
        return Ok(EXIT_INPUT);
    }
    for p in &loaded.problems {
        eprintln!("skipped: {}", escape_controls(&p.to_string()));
    }
    let total =
        loaded.suite.oracles.len() + loaded.suite.multi_op.len() + loaded.suite.metamorphic.len();
    if total == 0 {
        eprintln!(
            "error: {} holds no loadable oracle ({} problem(s) above)",
            args.file.display(),
            loaded.problems.len()
        );
        return Ok(EXIT_INPUT);
    }
    let spec = args.spec.as_deref().map(crate::spec::load).transpose()?;
    if let Some(spec) = &spec {
        let declared: HashSet<&str> = spec.operations.iter().map(|o| o.op_id.as_str()).collect();
        let mut unknown: Vec<&str> = loaded
            .suite
            .oracles
            .iter()
            .map(|o| o.op_id.as_str())
            .chain(
                loaded
                    .suite
                    .multi_op
                    .iter()
                    .flat_map(|m| m.steps.iter().map(|s| s.op_id.as_str())),
            )
            .chain(
                loaded
                    .suite
                    .metamorphic
                    .iter()
                    .flat_map(|t| t.seed.iter().chain(&t.follow_up).map(|s| s.op_id.as_str())),
            )
            .filter(|op| !declared.contains(op))
            .collect();
        unknown.sort_unstable();
        unknown.dedup();
        for op in unknown {
            eprintln!(
                "warning: {op} is not an operation of {}",
                spec.file.display()
            );
        }
    }
    let spec_file = args
        .spec
        .as_ref()
        .map(|p| p.display().to_string())
        .unwrap_or_default();
    let project_root = match &args.project {
        Some(dir) => match dir.canonicalize() {
            Ok(root) if root.is_dir() => root.display().to_string(),
            Ok(_) | Err(_) => {
                eprintln!(
                    "error: --project {} is not a directory",
                    escape_controls(&dir.display().to_string())
                );
                return Ok(EXIT_INPUT);
            }
        },
        None => String::new(),
    };
    let mut manifest = Manifest::new(project_root, spec_file);
    manifest.config.settings.insert(
        "imported_from".to_string(),
        serde_json::Value::String(args.file.display().to_string()),
    );
    // A writer already working in the target (a run creating it) keeps it to itself.
    let _lock = args
        .out
        .is_dir()
        .then(|| SessionLock::acquire(&args.out, "mastor import"))
        .transpose()?;
    // Written aside and moved into place whole: a failed import leaves no half session.
    let staged = StagedSession::create(&args.out, manifest)?;
    if let Some(spec) = &spec {
        staged.session().write_operations(&spec.operations)?;
    }
    session::write(staged.session(), &loaded.suite)
        .wrap_err_with(|| format!("cannot write the session in {}", args.out.display()))?;
    staged.commit()?;
    println!(
        "imported {} oracle(s), {} sequence(s) and {} metamorphic test(s) into {} ({} skipped)",
        loaded.suite.oracles.len(),
        loaded.suite.multi_op.len(),
        loaded.suite.metamorphic.len(),
        args.out.display(),
        loaded.problems.len()
    );
    Ok(EXIT_OK)
}
