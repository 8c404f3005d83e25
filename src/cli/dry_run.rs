//! `mastor run --dry-run`, and the budget a run must stay within: before anything is
//! sent, the run's plan (`pipeline::plan`) says what would leave the machine and what it
//! would cost. A dry run prints it and stops; a run whose plan exceeds `--max-cost` or
//! `--max-tokens-total` shows it and asks on a terminal, and refuses otherwise (exit 4,
//! nothing sent), since an unattended run cannot consent to spending more.

use crate::cli::run::{Loaded, PipelineArgs};
use crate::cli::{EXIT_NOTHING, EXIT_OK};
use crate::pipeline::plan::{self, Plan, PlanInput};
use clap::Args;
use color_eyre::eyre::eyre;
use std::io::{BufRead, IsTerminal, Write};
use std::path::Path;

/// The flags of a plan before a run.
#[derive(Debug, Clone, Default, Args)]
pub struct PlanArgs {
    /// Print the run's plan and stop: operations, agents, every call with the files and
    /// lines it would send (after redaction), estimated tokens and cost with and without
    /// prefix caching, and the files never sent. Makes no network call and writes nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Most estimated cost in USD (configured prices) a run may spend without asking: over
    /// it, the plan is shown and the run asks on a terminal, or refuses when not
    /// interactive (exit 4, nothing sent).
    #[arg(long, value_name = "USD", value_parser = non_negative)]
    pub max_cost: Option<f64>,
    /// Most estimated tokens (input and output) a run may send and receive without
    /// asking; over it, as for --max-cost.
    #[arg(long, value_name = "N")]
    pub max_tokens_total: Option<u64>,
}

fn non_negative(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(v) if v.is_finite() && v >= 0.0 => Ok(v),
        _ => Err(format!(
            "`{s}` is not an amount in USD (a number, 0 or more)"
        )),
    }
}

/// Before a pipeline run (`mastor run`, `mastor tui --run`): the dry run's plan (and
/// `Some(0)`: stop), or the budget check (`Some(4)`: refused, nothing sent); `None` lets
/// the run go on. `json`: print a dry run's plan as JSON.
pub fn before_run(
    args: &PipelineArgs,
    json: bool,
    loaded: &Loaded,
) -> color_eyre::Result<Option<i32>> {
    let p = &args.plan;
    if !p.dry_run && p.max_cost.is_none() && p.max_tokens_total.is_none() {
        return Ok(None);
    }
    let plan = plan_of(loaded, args.max_tokens)?;
    if p.dry_run {
        if json {
            println!("{}", serde_json::to_string_pretty(&plan)?);
        } else {
            print!("{}", crate::pipeline::plan_text::render(&plan));
        }
        return Ok(Some(EXIT_OK));
    }
    let Some(over) = over_budget(&plan, p) else {
        return Ok(None);
    };
    eprint!("{}", crate::pipeline::plan_text::render(&plan));
    eprintln!("mastor: this run is over its budget: {over}");
    let interactive = std::io::stdin().is_terminal() && std::io::stderr().is_terminal();
    if interactive && ask("Send it anyway? [y/N] ")? {
        return Ok(None);
    }
    eprintln!(
        "mastor: refused{}: nothing was sent (raise --max-cost / --max-tokens-total, or \
         narrow the run with --op, --bundle slice, --no-multi-op)",
        if interactive {
            ""
        } else {
            " (not interactive)"
        }
    );
    Ok(Some(EXIT_NOTHING))
}

/// The plan of the run `args` describe on `project_dir`, and what of their budget it
/// exceeds: what `--dry-run` prints and what the budget check compares, for callers with
/// no loaded run (the workbench plans a re-run with the arguments the re-run gets).
pub fn plan_for(
    project_dir: &Path,
    args: &PipelineArgs,
) -> color_eyre::Result<(Plan, Option<String>)> {
    let loaded = crate::cli::run::load(project_dir, args)?;
    let plan = plan_of(&loaded, args.max_tokens)?;
    let over = over_budget(&plan, &args.plan);
    Ok((plan, over))
}

/// The plan of the run `loaded` describes.
pub fn plan_of(loaded: &Loaded, max_tokens: Option<u32>) -> color_eyre::Result<Plan> {
    plan::build(&PlanInput {
        project: &loaded.project,
        prompts: &loaded.prompts,
        options: loaded.options,
        discovery: loaded.discovery.clone(),
        config: &loaded.config,
        max_tokens,
        bundle_mode: loaded.mode.as_str().to_string(),
        edited_contexts: loaded.edited_contexts.clone(),
    })
    .map_err(|e| eyre!("cannot plan the run: {e}"))
}

/// What of the budget the plan exceeds, if anything. The cost compared is the one
/// without prefix caching: a cache hit is the provider's to give, not ours to promise.
pub fn over_budget(plan: &Plan, p: &PlanArgs) -> Option<String> {
    let mut over = Vec::new();
    if let Some(max) = p.max_cost
        && plan.cost.without_cache > max
    {
        over.push(format!(
            "estimated {:.4} USD (without prefix caching) > --max-cost {max}",
            plan.cost.without_cache
        ));
    }
    if let Some(max) = p.max_tokens_total
        && plan.total_tokens() > max
    {
        over.push(format!(
            "estimated {} tokens > --max-tokens-total {max}",
            plan.total_tokens()
        ));
    }
    (!over.is_empty()).then(|| over.join("; "))
}

/// Asks `question` on stderr; true for `y` or `yes`.
fn ask(question: &str) -> color_eyre::Result<bool> {
    eprint!("{question}");
    std::io::stderr().flush()?;
    let mut line = String::new();
    std::io::stdin().lock().read_line(&mut line)?;
    Ok(matches!(
        line.trim().to_ascii_lowercase().as_str(),
        "y" | "yes"
    ))
}
