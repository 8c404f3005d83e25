//! `mastor baseline`: the comparison baselines of the paper (§6.2), each written as a
//! session that `mastor check`, `export`, the TUI and `compare` use like any other:
//! - `dp`, Direct Prompting (appendix Listing A.1): one call with the operation list and
//!   the whole source, answers used as they come unless `--normalize`;
//! - `spec`, the spec-only (SATORI-style) baseline: one call per operation with its
//!   OpenAPI description and no source (see `cli::baseline_spec`).
//!
//! Exit codes of `dp`: 0 when the call answered in the expected shape (operations it left
//! without oracles are reported as `missing`, a result rather than a failure); 4 when it
//! did not (model unreachable, every attempt failed, an answer without an `operations`
//! list). `spec`: 0 when every call answered, 3 when some did, 4 when none did.

use crate::agents::baseline::{self, DEFAULT_SOURCE_CAP, DpRecord};
use crate::agents::runtime::{AgentCtx, Board};
use crate::cli::{EXIT_NOTHING, EXIT_OK};
use crate::llm::{LlmArgs, LlmClient, LlmConfig};
use crate::project::Prepared;
use crate::prompts::Prompts;
use crate::spec::Exclusions;
use crate::store::Manifest;
use clap::{Args, Subcommand};
use color_eyre::eyre::eyre;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

/// Arguments of `mastor baseline`.
#[derive(Debug, Args)]
pub struct BaselineArgs {
    #[command(subcommand)]
    pub which: Which,
}

/// The baselines.
#[derive(Debug, Subcommand)]
pub enum Which {
    /// Direct Prompting: one call with every operation and the concatenated source.
    #[command(
        after_help = "Example:\n  mastor baseline dp tests/fixtures/petstore-jdk --out /tmp/dp\n  mastor check /tmp/dp --base-url http://127.0.0.1:8080 --only all"
    )]
    Dp(Box<DpArgs>),
    /// Spec-only (SATORI-style): status and field oracles from each OpenAPI operation
    /// alone, no source code; one call per operation.
    #[command(
        after_help = "Example:\n  mastor baseline spec tests/fixtures/petstore-jdk --out /tmp/spec\n  mastor baseline spec api/openapi.yaml --out /tmp/spec\n  mastor compare .mastor /tmp/dp /tmp/spec"
    )]
    Spec(Box<super::baseline_spec::SpecArgs>),
}

/// Arguments of `mastor baseline dp`.
#[derive(Debug, Args)]
pub struct DpArgs {
    /// The Java project.
    pub project: PathBuf,
    /// The OpenAPI/Swagger file (found in the project when omitted).
    #[arg(long)]
    pub spec: Option<PathBuf>,
    /// Session directory (default: <project>/.mastor-dp).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Most characters of source sent; whole files beyond it are left out, with a note.
    #[arg(long, value_name = "CHARS", default_value_t = DEFAULT_SOURCE_CAP)]
    pub max_source_chars: usize,
    /// Directory with prompt overrides (baseline_dp.md).
    #[arg(long)]
    pub prompts: Option<PathBuf>,
    /// Run the answer through the pipeline's oracle normalization. Off by default: the
    /// paper's Direct Prompting has none (its answers are only parsed).
    #[arg(long)]
    pub normalize: bool,
    /// Print the record as JSON.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub llm: LlmArgs,
}

/// Runs `mastor baseline`.
pub fn run(args: BaselineArgs) -> color_eyre::Result<i32> {
    match args.which {
        Which::Dp(args) => run_dp(*args),
        Which::Spec(args) => super::baseline_spec::run(*args),
    }
}

/// The agent context a baseline runs in: its session in `out` (opened under the writer
/// lock, which the caller holds until done), the operation list written, the model
/// client with its cache in the session, and the prompts (with overrides from `prompts`).
pub(super) fn baseline_ctx(
    project: Prepared,
    project_label: String,
    out: &std::path::Path,
    llm: &LlmArgs,
    prompts: Option<&std::path::Path>,
) -> color_eyre::Result<(crate::store::SessionLock, AgentCtx)> {
    let mut config = LlmConfig::resolve(None, &LlmConfig::process_env(), llm)?;
    if config.cache_dir.is_none() {
        config.cache_dir = Some(out.join("cache"));
    }
    let manifest = Manifest::new(project_label, project.spec.file.display().to_string());
    // One writer per session: held until this command is done with it.
    let (lock, session) = crate::cli::open_model_session(out, manifest, "mastor baseline")?;
    session.write_operations(&project.analysis.report)?;
    let prompts = match prompts {
        Some(dir) => Prompts::with_overrides(dir)?,
        None => Prompts::embedded(),
    };
    let session = Arc::new(session);
    let client = LlmClient::new(config)
        .map_err(|e| eyre!("{e}"))?
        .with_retry_sink(crate::agents::runtime::retry_events(
            Arc::clone(&session),
            None,
        ));
    let ctx = AgentCtx {
        mutation_notes: Default::default(),
        client,
        prompts: Arc::new(prompts),
        session,
        project: Arc::new(project),
        board: Arc::new(Mutex::new(Board::default())),
        sink: None,
        max_tokens: None,
        fresh_agents: Default::default(),
        normalize: Default::default(),
    };
    Ok((lock, ctx))
}

fn run_dp(args: DpArgs) -> color_eyre::Result<i32> {
    let project = Prepared::load(
        &args.project,
        args.spec.as_deref(),
        &Exclusions::default(),
        &[],
    )?;
    let out = args
        .out
        .clone()
        .unwrap_or_else(|| args.project.join(".mastor-dp"));
    eprintln!(
        "mastor: direct prompting over {} operations, session {}",
        project.selected.len(),
        out.display()
    );
    let (_lock, ctx) = baseline_ctx(
        project,
        args.project.display().to_string(),
        &out,
        &args.llm,
        args.prompts.as_deref(),
    )?;
    let runtime = tokio::runtime::Runtime::new()?;
    let record = match runtime.block_on(baseline::run(&ctx, args.max_source_chars, args.normalize))
    {
        Ok(record) => record,
        Err(e @ (baseline::BaselineError::Call(_) | baseline::BaselineError::Shape(_))) => {
            eprintln!("error: {}", crate::text::escape_controls(&e.to_string()));
            eprintln!(
                "mastor: exit {EXIT_NOTHING}: {}",
                crate::cli::exit_meaning(EXIT_NOTHING)
            );
            return Ok(EXIT_NOTHING);
        }
        Err(e) => return Err(e.into()),
    };
    if args.json {
        println!("{}", serde_json::to_string_pretty(&record)?);
    } else {
        print!("{}", render(&record));
        println!("session: {}", ctx.session.dir().display());
    }
    // The one call answered: operations it left without oracles are the baseline's
    // result (counted in `missing`), not a failure of the command.
    Ok(EXIT_OK)
}

/// The short human summary.
fn render(r: &DpRecord) -> String {
    let kept = if r.normalized {
        format!("normalized, {} dropped", r.tally.dropped)
    } else {
        format!("not normalized, {} unparsable", r.tally.unparsed.len())
    };
    let mut s = format!(
        "direct prompting: {} operations, {} answered, {} missing\n\
         oracles: {} (#Status {}, #Field {}; assertions {} status, {} field), {kept}\n\
         tokens: {} in, {} out{}\n",
        r.operations,
        r.answered.len(),
        r.missing.len(),
        r.tally.oracles,
        r.tally.status_oracles,
        r.tally.field_oracles,
        r.tally.status_assertions,
        r.tally.field_assertions,
        r.tokens_in,
        r.tokens_out,
        if r.cache_hit {
            " (answered from cache)"
        } else {
            ""
        },
    );
    if !r.unknown_ops.is_empty() {
        s.push_str(&format!(
            "refused: oracles for operations not in the spec: {}\n",
            r.unknown_ops.join(", ")
        ));
    }
    if !r.tally.unparsed.is_empty() {
        s.push_str("unparsable entries (not normalized, so not repaired):\n");
        for u in &r.tally.unparsed {
            s.push_str(&format!("  {}\n", crate::text::escape_controls(u)));
        }
    }
    if !r.source_omitted.is_empty() {
        s.push_str(&format!(
            "source capped: {} of {} files left out (--max-source-chars)\n",
            r.source_omitted.len(),
            r.source_files
        ));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_names_counts_refusals_and_the_cap() {
        let r = DpRecord {
            operations: 3,
            answered: vec!["GET /a".into()],
            missing: vec!["GET /b".into(), "GET /c".into()],
            unknown_ops: vec!["GET /x".into()],
            normalized: true,
            tally: crate::agents::baseline::Tally {
                oracles: 4,
                status_oracles: 2,
                field_oracles: 2,
                status_assertions: 4,
                field_assertions: 2,
                dropped: 1,
                ..Default::default()
            },
            source_files: 9,
            source_omitted: vec!["A.java".into()],
            tokens_in: 1200,
            tokens_out: 300,
            ..DpRecord::default()
        };
        let s = render(&r);
        assert!(s.contains("3 operations, 1 answered, 2 missing"), "{s}");
        assert!(
            s.contains("oracles: 4 (#Status 2, #Field 2; assertions 4 status, 2 field), normalized, 1 dropped"),
            "{s}"
        );
        assert!(s.contains("tokens: 1200 in, 300 out\n"));
        assert!(s.contains("GET /x"));
        assert!(s.contains("1 of 9 files left out"));
    }
}
