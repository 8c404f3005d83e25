//! `mastor run PROJECT --from-survivors`: mutation-guided regeneration. Each surviving
//! mutant of the session's last `mastor mutate` becomes a hint (its diff, file:line,
//! operator and the existing oracles) for the operation that reaches it; the targeted
//! regeneration adds new oracles (proposed, existing ones untouched); then the analysis
//! runs again on the targeted mutants only, on the original first, so a new oracle that
//! fails on the original is reported as the model's false claim and kills nothing.
//!
//! Each round is reported (survivors targeted, new oracles, survivors killed, new
//! oracles failing on the original, score before and after) and appended to
//! `mutation/rounds.jsonl`. Exit codes: 0 the rounds ran; 1 some new oracle fails on
//! the original; 2 no mutation results, or nothing to target; 4 the model or the
//! analysis failed before anything was added.

use crate::agents::generation::regenerate_for;
use crate::agents::single_op::OpTarget;
use crate::cli::run::{PipelineArgs, RunArgs, prepare};
use crate::cli::{EXIT_FAILURES, EXIT_INPUT, EXIT_NOTHING, EXIT_OK};
use crate::mutate::analysis::{self, Settings};
use crate::mutate::results::Results;
use crate::mutate::survivors;
use crate::store::op_slug;
use crate::text::escape_controls;
use color_eyre::eyre::eyre;
use serde::Serialize;
use serde_json::{Value, json};
use std::collections::BTreeSet;
use std::path::Path;
use std::sync::Arc;

/// One round's report (a line of `mutation/rounds.jsonl`).
#[derive(Debug, Clone, Serialize)]
pub struct Round {
    pub round: u32,
    pub targeted: Vec<String>,
    /// o_ids of the oracles the round added.
    pub new_oracles: Vec<String>,
    /// Targeted survivors now killed.
    pub killed: Vec<String>,
    /// New oracles that fail (or flip) on the original: the model's false claims.
    pub fail_on_original: Vec<String>,
    pub score_before: Option<f64>,
    pub score_after: Option<f64>,
    /// Operations whose regeneration failed, with the reason.
    pub failed_ops: Vec<(String, String)>,
}

/// Runs `mastor run --from-survivors`: the rounds, each report printed.
pub fn run(args: &RunArgs) -> color_eyre::Result<i32> {
    let only: BTreeSet<String> = args.mutants.iter().cloned().collect();
    let (code, reports) = rounds(&args.project, &args.pipeline, args.rounds, &only)?;
    for r in &reports {
        print!("{}", render(r));
    }
    Ok(code)
}

/// The rounds on `project`'s session (`pipeline.out`), targeting only the survivors in
/// `only` when it is not empty; returns the exit code and each round's report. The
/// workbench calls this too, on its own thread.
pub fn rounds(
    project: &Path,
    pipeline: &PipelineArgs,
    rounds: u32,
    only: &BTreeSet<String>,
) -> color_eyre::Result<(i32, Vec<Round>)> {
    let mut reports = Vec::new();
    let out = pipeline
        .out
        .clone()
        .unwrap_or_else(|| project.join(".mastor"));
    let results = Results::new(out.join("mutation"));
    let settings = match Settings::read(&results.dir).map_err(|e| eyre!(e))? {
        Some(s) => s,
        None => {
            eprintln!(
                "error: {} has no mutation results to start from; run `mastor mutate {}` first",
                out.display(),
                out.display()
            );
            return Ok((EXIT_INPUT, reports));
        }
    };
    let sink: crate::agents::runtime::EventSink = Arc::new(|_| {});
    let prepared = prepare(project, pipeline, sink)?;
    let ctx = prepared.ctx;
    let operations: Option<Value> = ctx.session.read_operations()?;
    let entry_files = operations
        .as_ref()
        .map(analysis::session_entry_files)
        .unwrap_or_default();
    let rt = tokio::runtime::Runtime::new()?;
    let mut code = EXIT_OK;
    for round in 1..=rounds {
        let mutants = results.read_mutants().map_err(|e| eyre!(e))?;
        let matrix = results.read_matrix().map_err(|e| eyre!(e))?;
        let before = results.read_summary().map_err(|e| eyre!(e))?.total.score;
        // Operations that can be asked: a context and a suite in the session, within --op.
        let mut candidates = BTreeSet::new();
        for op in &ctx.project.selected {
            let (Some(c), Some(s)) = (ctx.session.read_context(op)?, ctx.session.read_suite(op)?)
            else {
                continue;
            };
            let mut board = ctx.board();
            board.contexts.insert(op.clone(), c);
            board.suites.insert(op.clone(), s);
            candidates.insert(op.clone());
        }
        let mut alive = survivors::survivors(&mutants, &matrix);
        if !only.is_empty() {
            alive.retain(|m| only.contains(&m.id));
        }
        let by_op = survivors::assign(&alive, &candidates, &entry_files);
        if by_op.is_empty() {
            eprintln!(
                "round {round}: no survivor to target ({} survivor(s); none reaches an operation \
                 with a context and a suite{})",
                alive.len(),
                if pipeline.ops.is_empty() && only.is_empty() {
                    ""
                } else {
                    " within --op and --mutant"
                }
            );
            return Ok((if round == 1 { EXIT_INPUT } else { code }, reports));
        }
        let mut report = Round {
            round,
            targeted: vec![],
            new_oracles: vec![],
            killed: vec![],
            fail_on_original: vec![],
            score_before: before,
            score_after: None,
            failed_ops: vec![],
        };
        for (op, list) in &by_op {
            let existing: Vec<String> = ctx
                .board()
                .suites
                .get(op)
                .map(|s| s.oracles.iter().map(|o| o.test_id.clone()).collect())
                .unwrap_or_default();
            let hints: Vec<_> = list
                .iter()
                .map(|m| {
                    let source = std::fs::read_to_string(project.join(&m.file)).unwrap_or_default();
                    survivors::hint(m, &source, &existing)
                })
                .collect();
            let ids: Vec<&str> = list.iter().map(|m| m.id.as_str()).collect();
            let rel = format!("regen/{}.survivors-{round}.json", op_slug(op));
            let note = json!({"round": round, "mutants": ids});
            match rt.block_on(regenerate_for::<OpTarget>(&ctx, op, &hints, rel, note)) {
                Ok(added) => {
                    report.targeted.extend(ids.iter().map(|s| s.to_string()));
                    report
                        .new_oracles
                        .extend(added.iter().map(|t| format!("{op}#{t}")));
                }
                Err(e) => report.failed_ops.push((op.clone(), e.to_string())),
            }
        }
        for (op, why) in &report.failed_ops {
            eprintln!(
                "mastor: {op}: regeneration failed: {}",
                escape_controls(why)
            );
        }
        if report.targeted.is_empty() {
            return Ok((EXIT_NOTHING, reports));
        }
        let mut opts = settings.options(out.clone());
        opts.only_mutants = Some(report.targeted.iter().cloned().collect());
        opts.extra_oracles = report.new_oracles.iter().cloned().collect();
        let target = analysis::load_target(&opts).map_err(|e| eyre!(e))?;
        let list = analysis::list_mutants(&target, &opts)
            .map_err(|e| eyre!(e))?
            .0;
        let quiet = |_: &crate::mutate::Mutant, _: &crate::mutate::MutantOutcome| {};
        let after = rt
            .block_on(analysis::execute(&target, &opts, list, &quiet))
            .map_err(|e| eyre!("round {round}: the mutation analysis failed: {e}"))?;
        let killed: BTreeSet<&str> = after
            .matrix
            .mutants
            .iter()
            .filter(|r| r.status.killed())
            .map(|r| r.id.as_str())
            .collect();
        report.killed = report
            .targeted
            .iter()
            .filter(|m| killed.contains(m.as_str()))
            .cloned()
            .collect();
        report.fail_on_original = after
            .summary
            .excluded
            .iter()
            .filter(|e| report.new_oracles.contains(&e.o_id))
            .map(|e| e.o_id.clone())
            .collect();
        report.score_after = after.summary.total.score;
        if !report.fail_on_original.is_empty() {
            code = EXIT_FAILURES;
        }
        append_round(&results.dir, &report)?;
        reports.push(report);
    }
    Ok((code, reports))
}

fn append_round(dir: &Path, r: &Round) -> color_eyre::Result<()> {
    let path = dir.join(crate::mutate::results::ROUNDS_FILE);
    crate::store::journal::append_to(&path, r, true)?;
    Ok(())
}

/// The round report as text.
pub fn render(r: &Round) -> String {
    let pct = |x: Option<f64>| x.map_or("n/a".to_string(), |v| format!("{:.1}%", v * 100.0));
    let mut out = format!(
        "round {}: {} survivor(s) targeted, {} new oracle(s), {} survivor(s) killed, {} new \
         oracle(s) fail on the original; score {} -> {}\n",
        r.round,
        r.targeted.len(),
        r.new_oracles.len(),
        r.killed.len(),
        r.fail_on_original.len(),
        pct(r.score_before),
        pct(r.score_after)
    );
    for o in &r.new_oracles {
        let mark = if r.fail_on_original.contains(o) {
            "  fails on the original (a false claim; counts for nothing)"
        } else {
            ""
        };
        out.push_str(&format!("  new: {}{mark}\n", escape_controls(o)));
    }
    for m in &r.targeted {
        let state = if r.killed.contains(m) {
            "killed"
        } else {
            "survives"
        };
        out.push_str(&format!("  {m}: {state}\n"));
    }
    out
}
