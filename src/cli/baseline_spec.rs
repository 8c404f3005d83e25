//! `mastor baseline spec PROJECT_OR_SPEC`: the spec-only (SATORI-style) baseline. Given a
//! project directory, its spec is found as `run` finds it, but no Java file is read;
//! given a spec file, that file is used. The session goes to `--out` (default
//! `.mastor-spec` beside the spec's project, or beside the spec file).
//!
//! Exit codes as for the pipeline's operations: 0 when every operation's call answered in
//! the expected shape, 3 when some did (the failed ones are named on stderr), 4 when none
//! did (model unreachable, every answer malformed).

use crate::agents::baseline_spec::{self, SpecRecord};
use crate::cli::{EXIT_OK, completion_code, exit_meaning};
use crate::llm::LlmArgs;
use crate::project::Prepared;
use crate::spec::Exclusions;
use clap::Args;
use std::path::PathBuf;

/// Arguments of `mastor baseline spec`.
#[derive(Debug, Args)]
pub struct SpecArgs {
    /// A project directory (its OpenAPI/Swagger file is found in it; no source is read)
    /// or the spec file itself.
    pub project_or_spec: PathBuf,
    /// Session directory (default: .mastor-spec in the project, or beside the spec file).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Directory with prompt overrides (baseline_spec.md).
    #[arg(long)]
    pub prompts: Option<PathBuf>,
    /// Run the answers through the pipeline's oracle normalization (off by default, as
    /// for `baseline dp`).
    #[arg(long)]
    pub normalize: bool,
    /// Print the record as JSON.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub llm: LlmArgs,
}

/// Runs `mastor baseline spec`.
pub fn run(args: SpecArgs) -> color_eyre::Result<i32> {
    let given = &args.project_or_spec;
    let (root, spec_path) = if given.is_dir() {
        (given.clone(), crate::spec::find_spec(given)?.path)
    } else if given.is_file() {
        let parent = given
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .map_or_else(|| PathBuf::from("."), PathBuf::from);
        (parent, given.clone())
    } else {
        color_eyre::eyre::bail!(
            "{} is neither a project directory nor a spec file",
            given.display()
        );
    };
    let project = Prepared::from_spec(&root, &spec_path, &Exclusions::default())?;
    let out = args
        .out
        .clone()
        .unwrap_or_else(|| root.join(".mastor-spec"));
    eprintln!(
        "mastor: spec-only baseline over {} operations of {}, session {}",
        project.selected.len(),
        spec_path.display(),
        out.display()
    );
    let total = project.selected.len();
    let (_lock, ctx) = super::baseline::baseline_ctx(
        project,
        root.display().to_string(),
        &out,
        &args.llm,
        args.prompts.as_deref(),
    )?;
    let runtime = tokio::runtime::Runtime::new()?;
    let record = runtime.block_on(baseline_spec::run(&ctx, args.normalize))?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&record)?);
    } else {
        print!("{}", render(&record));
        println!("session: {}", ctx.session.dir().display());
    }
    for (op, why) in &record.failed {
        eprintln!("mastor: {op} failed: {}", crate::text::escape_controls(why));
    }
    let code = completion_code(total, record.completed);
    if code != EXIT_OK {
        eprintln!("mastor: exit {code}: {}", exit_meaning(code));
    }
    Ok(code)
}

/// The short human summary.
fn render(r: &SpecRecord) -> String {
    let kept = if r.normalized {
        format!("normalized, {} dropped", r.tally.dropped)
    } else {
        format!("not normalized, {} unparsable", r.tally.unparsed.len())
    };
    let mut s = format!(
        "spec-only: {} operations, {} answered, {} without oracles, {} failed\n\
         oracles: {} (#Status {}, #Field {}; assertions {} status, {} field), {kept}\n\
         tokens: {} in, {} out\n",
        r.operations,
        r.answered.len(),
        r.missing.len(),
        r.failed.len(),
        r.tally.oracles,
        r.tally.status_oracles,
        r.tally.field_oracles,
        r.tally.status_assertions,
        r.tally.field_assertions,
        r.tokens_in,
        r.tokens_out,
    );
    for u in &r.tally.unparsed {
        s.push_str(&format!(
            "  unparsable: {}\n",
            crate::text::escape_controls(u)
        ));
    }
    s
}
