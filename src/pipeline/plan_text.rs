//! The run plan as text: what `mastor run --dry-run` prints and what a run over its
//! budget shows before it asks. Names from the project and the spec are escaped.

use crate::pipeline::plan::Plan;
use crate::text::escape_controls as esc;
use std::fmt::Write as _;

/// The plan, call by call, then the totals, the cost and the files never sent.
pub fn render(plan: &Plan) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "Run plan (nothing has been sent). Bundle mode: {}.",
        plan.bundle_mode
    );
    for (role, model) in &plan.models {
        let _ = writeln!(out, "  {role} model: {}", esc(model));
    }
    let _ = writeln!(out, "Operations ({}):", plan.operations.len());
    for (op, handler) in &plan.operations {
        let _ = writeln!(out, "  {}  <- {}", esc(op), esc(handler));
    }
    for (op, why) in &plan.unmatched {
        let _ = writeln!(out, "  {}  (no calls planned: {})", esc(op), esc(why));
    }
    let agents: Vec<&str> = plan.agents_per_operation.iter().map(|a| a.name()).collect();
    let _ = writeln!(out, "Agents per operation: {}", agents.join(", "));
    let _ = writeln!(out, "Discovery: {}", plan.discovery.line(true));
    let _ = writeln!(out, "Calls ({}):", plan.calls.len());
    for (i, c) in plan.calls.iter().enumerate() {
        let _ = writeln!(
            out,
            "  {:>3}. {} [{}]: in ~{} tokens ({} a shared prefix), out ~{}",
            i + 1,
            c.agent,
            esc(&c.target),
            c.input_tokens,
            c.prefix_tokens,
            c.output_tokens
        );
        for s in &c.sends {
            let redacted = match s.redactions {
                0 => String::new(),
                n => format!(" ({n} secrets redacted)"),
            };
            let _ = writeln!(
                out,
                "         sends {}: {}{redacted}",
                esc(&s.file),
                s.lines
            );
        }
        if c.sends.is_empty() {
            let _ = writeln!(out, "         sends no project file");
        }
        for e in &c.estimated {
            let _ = writeln!(out, "         estimated: {e}");
        }
    }
    let _ = writeln!(
        out,
        "Tokens: ~{} in ({} of them a prefix an earlier call on the same model sent), ~{} \
         out, ~{} in all",
        plan.input_tokens,
        plan.prefix_tokens,
        plan.output_tokens,
        plan.total_tokens()
    );
    let _ = writeln!(
        out,
        "Estimated cost: {:.4} USD without prefix caching, {:.4} USD with it",
        plan.cost.without_cache, plan.cost.with_cache
    );
    let _ = writeln!(out, "Never sent ({} files):", plan.never_sent.len());
    for n in &plan.never_sent {
        let _ = writeln!(out, "  {}: {}", esc(&n.file), esc(&n.reason));
    }
    let _ = writeln!(
        out,
        "  (files outside the source roots, build output and .gitignore'd files are never read)"
    );
    let _ = writeln!(out, "Estimates assume:");
    for a in &plan.assumptions {
        let _ = writeln!(out, "  - {a}");
    }
    out
}
