//! Command-line interface: argument types per subcommand and their dispatch.
//!
//! Each subcommand lives in its own file and returns the process exit code:
//! 0 ok, 1 oracle failures, 2 usage or input error (bad spec, missing project, ...),
//! 3 some operations failed (the others completed), 4 nothing completed (model
//! unreachable, every operation failed, the generator failed before any test).

mod config;

use clap::{Parser, Subcommand};

mod baseline;
mod baseline_spec;
pub mod check;
pub mod compare;
pub mod dry_run;
pub mod export;
pub mod handler;
mod handler_check;
pub mod import;
pub mod metamorphic;
pub mod mutate;
mod prompts_cmd;
pub mod report;
mod run;
pub use run::PipelineArgs;
mod scan;
mod survivors;
pub mod tui;
pub mod unique;

/// Exit code for success.
pub const EXIT_OK: i32 = 0;
/// Exit code when oracles ran and some failed.
pub const EXIT_FAILURES: i32 = 1;
/// Exit code for usage and input errors.
pub const EXIT_INPUT: i32 = 2;
/// Exit code when some selected operations failed and the others completed: the
/// session holds real work, but not all of it. Each reason is printed on stderr.
pub const EXIT_PARTIAL: i32 = 3;
/// Exit code when nothing completed: the model was unreachable, every operation failed,
/// or a generator failed before producing anything. Each reason is printed on stderr.
pub const EXIT_NOTHING: i32 = 4;

/// The exit code of a command that worked over `total` units (operations, groups,
/// iterations) of which `completed` finished: 0 only when all did.
pub fn completion_code(total: usize, completed: usize) -> i32 {
    if completed >= total {
        EXIT_OK
    } else if completed == 0 {
        EXIT_NOTHING
    } else {
        EXIT_PARTIAL
    }
}

/// One line on what an exit code means, for the message printed beside it.
pub fn exit_meaning(code: i32) -> &'static str {
    match code {
        EXIT_OK => "ok",
        EXIT_FAILURES => "oracles or relations failed against the API",
        EXIT_INPUT => "usage or input error",
        EXIT_PARTIAL => "partly failed: some operations did not complete (reasons above)",
        EXIT_NOTHING => "nothing completed (reasons above)",
        _ => "unexpected exit code",
    }
}

/// Opens (or creates) the session a model-calling command writes to: takes the writer
/// lock first (held by the returned guard), then writes a `.gitignore` (once) so the
/// model traffic (`calls/`: every prompt and answer) and the response cache are not
/// committed with the reviewed suites by accident.
pub fn open_model_session(
    out: &std::path::Path,
    manifest: crate::store::Manifest,
    command: &str,
) -> color_eyre::Result<(crate::store::SessionLock, crate::store::Session)> {
    use color_eyre::eyre::WrapErr;
    let lock = crate::store::SessionLock::acquire(out, command)?;
    let session = crate::store::Session::open_or_create(out, manifest)
        .wrap_err_with(|| format!("cannot open session {}", out.display()))?;
    let ignore = out.join(".gitignore");
    if !ignore.exists() {
        std::fs::write(
            &ignore,
            "# Model traffic (prompts, answers) and the response cache stay out of version control.\ncalls/\ncache/\n",
        )
        .wrap_err_with(|| format!("cannot write {}", ignore.display()))?;
    }
    Ok((lock, session))
}

/// Top-level command line.
#[derive(Debug, Parser)]
#[command(
    name = "mastor",
    version,
    about = "Generate, review and run semantic test oracles for Java REST APIs",
    long_about = "mastor reads a Java REST API project (Spring, JAX-RS/Jersey or the JDK HTTP \
server) and its OpenAPI/Swagger spec, and builds source-grounded test oracles."
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// List, show or export the agent prompts (to tune them with --prompts DIR).
    Prompts(prompts_cmd::PromptsArgs),
    /// Run oracles (a session's accepted ones, or a suite file) against a live API.
    Check(check::CheckArgs),
    /// Turn an oracle file (suite, paper format or array) into a session for review.
    Import(import::ImportArgs),
    /// Create or show the configuration (models, keys, limits)
    Config(config::ConfigArgs),
    /// Analyse a project's Java source against its spec: entry files, handlers per
    /// operation, bundles (no LLM).
    Scan(scan::ScanArgs),
    /// Run the whole oracle pipeline on a project into a session directory.
    Run(Box<run::RunArgs>),
    /// Generate metamorphic tests (seed, follow-up, relations) from the spec and run
    /// them against a live API until a stopping criterion holds.
    Metamorphic(Box<metamorphic::MetamorphicArgs>),
    /// Export reviewed oracles as JUnit 5, Postman (newman), readable Markdown or JSON.
    Export(export::ExportArgs),
    /// Review a session: operations, oracles beside their Java evidence, decisions
    /// (with --run: start the pipeline and watch it live).
    Tui(Box<tui::TuiArgs>),
    /// Run a comparison baseline (Direct Prompting, spec-only) into a session directory.
    Baseline(baseline::BaselineArgs),
    /// Compare sessions (MASTOR, DP, spec-only): oracle counts by type and the verdicts
    /// of each one's last check and its last mutation score.
    Compare(compare::CompareArgs),
    /// Semantically unique metamorphic tests across sessions (ARMeta's title slug).
    MetamorphicUnique(unique::UniqueArgs),
    /// Mutation analysis: seed faults into the project's Java source and measure which
    /// the suite catches (score per operation, kills per oracle, survivors).
    Mutate(Box<mutate::MutateArgs>),
    /// Cost table in the style of the paper's Tables 12-13 (calls, tokens, cost, time,
    /// cost per operation), one row per session plus median and mean; Markdown or CSV.
    Report(report::ReportArgs),
    /// Pick an operation's handler where the scan and the model disagree (journalled;
    /// the next run uses it), or show the recorded conflict.
    Handler(handler::HandlerArgs),
}

/// Runs the parsed command and returns the exit code.
pub fn dispatch(cli: Cli) -> color_eyre::Result<i32> {
    match cli.command {
        Command::Prompts(args) => prompts_cmd::run(args),
        Command::Check(args) => check::run(args),
        Command::Import(args) => import::run(args),
        Command::Config(args) => config::run(args),
        Command::Scan(args) => scan::run(args),
        Command::Run(args) => run::run(*args),
        Command::Metamorphic(args) => metamorphic::run(*args),
        Command::Export(args) => export::run(args),
        Command::Tui(args) => tui::run(*args),
        Command::Baseline(args) => baseline::run(args),
        Command::Compare(args) => compare::run(args),
        Command::MetamorphicUnique(args) => unique::run(args),
        Command::Report(args) => report::run(args),
        Command::Handler(args) => handler::run(args),
        Command::Mutate(args) => mutate::run(*args),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn completion_code_is_zero_only_when_everything_completed() {
        assert_eq!(completion_code(3, 3), EXIT_OK);
        assert_eq!(completion_code(0, 0), EXIT_OK);
        assert_eq!(completion_code(3, 2), EXIT_PARTIAL);
        assert_eq!(completion_code(3, 0), EXIT_NOTHING);
    }
}
