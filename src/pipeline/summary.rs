//! The run summary, computed from the session on disk (never from memory), so what the
//! command prints is exactly what the session holds: operations and why any failed,
//! oracles by type (paper Table 9), normalization drops by rule, grouping compression,
//! and calls, tokens, cost and time per agent and per paper phase (Ph-A, Ph-B-SO, Ph-B-MO,
//! Ph-B-R; paper Tables 12 and 13, see [`crate::pipeline::phases`]).

use crate::agents::semantic::GroupingRecord;
use crate::llm::{CallRecord, Ledger, Totals};
use crate::model::{Assertion, HintOrigin, Strategy};
use crate::pipeline::discovery_mode::DiscoveryDecision;
use crate::pipeline::driver::STATE_FILE;
use crate::pipeline::keeping::Keeping;
use crate::pipeline::orchestrator::{GroupState, OpState, Orchestrator};
use crate::pipeline::phases::PhaseCosts;
use crate::store::{Session, StoreError};
use crate::suite::filter::OracleType;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt::{self, Write as _};

/// Everything the summary reports.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Summary {
    pub operations: usize,
    pub ok: usize,
    pub unmatched: Vec<String>,
    /// op_id → "agent: reason".
    pub failed: BTreeMap<String, String>,
    /// Operations the run left in a non-final state (it was stopped before they finished).
    #[serde(default)]
    pub incomplete: Vec<String>,
    /// group_id → "agent: reason" for multi-op groups that failed.
    #[serde(default)]
    pub failed_groups: BTreeMap<String, String>,
    pub single_op_oracles: usize,
    pub by_strategy: BTreeMap<String, usize>,
    /// Single-op oracle entries whose primary assertion type is status: no field
    /// assertion (paper Table 9 #Status counts entries, not assertions).
    #[serde(default)]
    pub status_oracles: usize,
    /// Single-op oracle entries with at least one field assertion (Table 9 #Field).
    #[serde(default)]
    pub field_oracles: usize,
    /// Status assertions over all single-op oracles (an extra column beside Table 9).
    pub status_assertions: usize,
    /// Field assertions over all single-op oracles (an extra column beside Table 9).
    pub field_assertions: usize,
    /// Multi-op oracles by their number of steps: steps → oracles.
    #[serde(default)]
    pub multi_op_sizes: BTreeMap<usize, usize>,
    pub groups: usize,
    /// Multi-op oracles (#Multi-Op).
    pub multi_op_oracles: usize,
    /// Hints the challenger models gave.
    pub hints: usize,
    /// Hints our quadrant check added (empty FV/FI/BV/BI quadrants), counted apart.
    #[serde(default)]
    pub quadrant_hints: usize,
    pub regenerated: usize,
    /// Oracles set aside for referencing what the verified context lacks (restorable in
    /// the workbench); also counted in `dropped`.
    #[serde(default)]
    pub set_aside: usize,
    /// Rule id → dropped or changed count, over every normalization pass.
    pub normalization: BTreeMap<String, usize>,
    /// Kept, flagged, set aside and dropped oracles, by rule.
    #[serde(default)]
    pub keeping: Keeping,
    pub dropped: usize,
    pub compression: Option<(usize, usize, f64)>,
    pub ledger: Ledger,
    /// Calls, tokens, cost, summed call time and wall-clock time per paper phase and for
    /// the run, and the cost per operation.
    #[serde(default)]
    pub phases: PhaseCosts,
    pub notes: Vec<String>,
    /// Whether discovery ran and why (`--discovery`); absent for sessions from before.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub discovery: Option<DiscoveryDecision>,
}

/// Reads the session and builds its summary.
pub fn from_session(session: &Session) -> Result<Summary, StoreError> {
    let mut s = Summary::default();
    let state: Option<Orchestrator> = session.read_json(STATE_FILE)?;
    let Some(state) = state else {
        return Ok(s);
    };
    s.notes = state.notes.clone();
    s.discovery = state.discovery.clone();
    s.operations = state.ops.len();
    for (op_id, st) in &state.ops {
        match st {
            OpState::Done => s.ok += 1,
            OpState::Unmatched => s.unmatched.push(op_id.clone()),
            OpState::Failed { agent, reason } => {
                s.failed.insert(op_id.clone(), format!("{agent}: {reason}"));
            }
            _ => s.incomplete.push(op_id.clone()),
        }
        if let Some(suite) = session.read_suite(op_id)? {
            s.single_op_oracles += suite.oracles.len();
            s.regenerated += suite.regenerated.len();
            s.set_aside += suite.set_aside.len();
            for h in suite.review.iter().flat_map(|r| &r.hints) {
                match h.origin {
                    HintOrigin::Challenger => s.hints += 1,
                    HintOrigin::Quadrant | HintOrigin::Mutation => s.quadrant_hints += 1,
                }
            }
            for o in &suite.oracles {
                let strategy = o.oracle_strategy.map_or("none", strategy_name);
                *s.by_strategy.entry(strategy.to_string()).or_default() += 1;
                for a in &o.assertions {
                    match a {
                        Assertion::Status { .. } => s.status_assertions += 1,
                        Assertion::Field { .. } => s.field_assertions += 1,
                    }
                }
                match OracleType::of(o) {
                    OracleType::Field => s.field_oracles += 1,
                    _ => s.status_oracles += 1,
                }
            }
            s.keeping.add(
                suite.oracles.iter().map(|o| o.test_id.as_str()),
                &suite.normalization,
            );
            for n in suite.normalization {
                s.dropped += n.dropped.len();
                add_counts(&mut s.normalization, &n.counts);
            }
        }
    }
    for (gid, gstate) in &state.groups {
        if let GroupState::Failed { agent, reason } = gstate {
            s.failed_groups
                .insert(gid.clone(), format!("{agent}: {reason}"));
        }
        if let Some(g) = session.read_group(gid)? {
            s.groups += 1;
            s.multi_op_oracles += g.oracles.len();
            for o in &g.oracles {
                *s.multi_op_sizes.entry(o.steps.len()).or_default() += 1;
            }
            s.regenerated += g.regenerated.len();
            s.hints += g.review.map_or(0, |r| r.hints.len());
            s.set_aside += g.set_aside.len();
            s.keeping.add(
                g.oracles.iter().map(|o| o.test_id.as_str()),
                &g.normalization,
            );
            for n in g.normalization {
                s.dropped += n.dropped.len();
                add_counts(&mut s.normalization, &n.counts);
            }
        }
    }
    let grouping: Option<GroupingRecord> = session.read_json("groups.json")?;
    s.compression = grouping.map(|g| {
        (
            g.contexts_json_chars,
            g.compressed_chars,
            g.reduction_percent,
        )
    });
    let mut calls = Vec::new();
    for name in session.list("calls")? {
        let rel = format!("calls/{name}");
        if let Some(record) = session.read_json::<CallRecord>(&rel)? {
            s.ledger.add(&record);
            calls.push(record);
        }
    }
    s.phases = PhaseCosts::from_calls(&calls, Some(&session.manifest()), s.operations);
    Ok(s)
}

impl Summary {
    /// Every reason the run is not complete, one line each: failed or unfinished
    /// operations, operations without a handler, failed groups. Empty when all completed.
    pub fn problems(&self) -> Vec<String> {
        let mut out = Vec::new();
        for (op, why) in &self.failed {
            out.push(format!("{op} failed: {why}"));
        }
        for op in &self.unmatched {
            out.push(format!("{op}: no handler found, so no oracles"));
        }
        for op in &self.incomplete {
            out.push(format!("{op}: did not finish (the run stopped first)"));
        }
        for (g, why) in &self.failed_groups {
            out.push(format!("group {g} failed: {why}"));
        }
        out
    }
}

fn add_counts(into: &mut BTreeMap<String, usize>, counts: &BTreeMap<String, usize>) {
    for (rule, n) in counts {
        if *n > 0 {
            *into.entry(rule.clone()).or_default() += n;
        }
    }
}

fn strategy_name(s: Strategy) -> &'static str {
    match s {
        Strategy::Fv => "fv",
        Strategy::Fi => "fi",
        Strategy::Bv => "bv",
        Strategy::Bi => "bi",
    }
}

fn totals_row(out: &mut String, name: &str, t: &Totals) {
    let _ = writeln!(
        out,
        "  {name:<22} {:>5} {:>5} {:>10} {:>9} {:>9} {:>9} {:>10.4} {:>9.1}",
        t.calls,
        t.cache_hits,
        t.prompt_tokens,
        t.prompt_tokens.saturating_sub(t.cached_tokens),
        t.cached_tokens,
        t.completion_tokens,
        t.cost_usd,
        t.wall_ms as f64 / 1000.0
    );
}

impl fmt::Display for Summary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "Operations: {} ({} ok, {} failed, {} without handler)",
            self.operations,
            self.ok,
            self.failed.len(),
            self.unmatched.len()
        );
        for (op, why) in &self.failed {
            let _ = writeln!(out, "  FAILED {op}: {}", crate::text::escape_controls(why));
        }
        for op in &self.unmatched {
            let _ = writeln!(out, "  no handler: {op}");
        }
        for op in &self.incomplete {
            let _ = writeln!(out, "  not finished: {op}");
        }
        if let Some(d) = &self.discovery {
            let _ = writeln!(out, "Discovery: {}", d.line(false));
        }
        let strategies: Vec<String> = self
            .by_strategy
            .iter()
            .map(|(k, v)| format!("{k} {v}"))
            .collect();
        let _ = writeln!(
            out,
            "Oracles: {} single-op ({}), {} multi-op in {} groups",
            self.single_op_oracles,
            strategies.join(", "),
            self.multi_op_oracles,
            self.groups
        );
        let _ = writeln!(
            out,
            "  #Status {}  #Field {}  #Multi-Op {}  (oracle entries by primary assertion type)",
            self.status_oracles, self.field_oracles, self.multi_op_oracles
        );
        let _ = writeln!(
            out,
            "  assertions: {} status, {} field",
            self.status_assertions, self.field_assertions
        );
        if !self.multi_op_sizes.is_empty() {
            let sizes: Vec<String> = self
                .multi_op_sizes
                .iter()
                .map(|(steps, n)| format!("{n} of {steps} steps"))
                .collect();
            let _ = writeln!(out, "  multi-op sizes: {}", sizes.join(", "));
        }
        let _ = writeln!(
            out,
            "Challenger: {} hints, {} quadrant hints of our own, {} oracles regenerated",
            self.hints, self.quadrant_hints, self.regenerated
        );
        for (g, why) in &self.failed_groups {
            let _ = writeln!(
                out,
                "  FAILED group {g}: {}",
                crate::text::escape_controls(why)
            );
        }
        self.keeping.render(&mut out);
        let _ = writeln!(out, "  rule counts (every time a rule fired):");
        for (rule, n) in &self.normalization {
            let _ = writeln!(out, "    {rule:<28} {n}");
        }
        if let Some((json, compressed, pct)) = self.compression {
            let _ = writeln!(
                out,
                "Grouping input: {json} chars of JSON compressed to {compressed} ({pct:.1}% smaller)"
            );
        }
        let _ = writeln!(
            out,
            "LLM calls:               calls  hits     prompt  uncached    cached    output   cost USD    time s"
        );
        for (agent, t) in &self.ledger.by_agent {
            totals_row(&mut out, agent, t);
        }
        totals_row(&mut out, "TOTAL", &self.ledger.total);
        let _ = writeln!(
            out,
            "  (cached: prompt tokens the provider served from its prefix cache, billed at its \
             cache-hit price; hits: answers from mastor's own response cache)"
        );
        out.push_str(&self.phases.render());
        for n in &self.notes {
            let _ = writeln!(out, "note: {}", crate::text::escape_controls(n));
        }
        f.write_str(&out)
    }
}
