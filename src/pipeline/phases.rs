//! Cost per phase as the paper reports it (§5.3.2 RQ4, Tables 12 and 13): Source Analysis
//! (Ph-A), single-operation generation (Ph-B-SO), multi-operation generation (Ph-B-MO) and
//! ChallengerAgent review (Ph-B-R), each with calls, input and output tokens, cost, the
//! sum of its call durations and its real wall-clock time.
//!
//! Which agent belongs where follows Table 13's columns and notes: Endpoint Discovery and
//! Source Extraction are Ph-A; Single-Operation Generation (generation and the targeted
//! regeneration: Table 13 counts two generation calls per challenger call) is Ph-B-SO;
//! Multi-Operation Generation includes "semantic association extraction", so grouping is
//! Ph-B-MO with the multi-op generation and regeneration; both challengers are Ph-B-R.
//! Calls of other agents (the baselines, metamorphic tests) are reported under their own
//! names so that every call is counted once.
//!
//! Two times are kept apart on purpose: calls run concurrently, so the sum of call
//! durations (what Table 12 reports for Direct Prompting) exceeds the wall-clock time a
//! phase took (what it reports for MASTOR). A phase's wall-clock time is the span from its
//! first call's start to its last call's end; the run's is the span the command recorded
//! in the manifest (its start and end), or the calls' span when it recorded none.

use crate::llm::CallRecord;
use crate::store::Manifest;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use std::fmt::Write as _;

/// Source Analysis: discovery and extraction.
pub const PH_A: &str = "Ph-A";
/// Single-operation oracle generation and regeneration.
pub const PH_B_SO: &str = "Ph-B-SO";
/// Semantic grouping, multi-operation oracle generation and regeneration.
pub const PH_B_MO: &str = "Ph-B-MO";
/// Challenger review, single- and multi-operation.
pub const PH_B_R: &str = "Ph-B-R";
/// The paper's phases, in its order.
pub const PAPER_PHASES: [&str; 4] = [PH_A, PH_B_SO, PH_B_MO, PH_B_R];

/// Manifest phase entry holding the run's own start and end.
pub const RUN_PHASE: &str = "pipeline";
/// Manifest phase entries whose start and end bound a run (the pipeline's or a
/// baseline's).
const RUN_PHASES: [&str; 3] = [RUN_PHASE, "baseline_dp", "baseline_spec"];

/// The paper phase of an agent; other agents are their own phase.
pub fn paper_phase(agent: &str) -> &str {
    match agent.parse::<crate::agents::Agent>() {
        Ok(a) => a.paper_phase(),
        Err(_) => agent,
    }
}

/// Sums over the calls of one phase (or of the run).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct PhaseCost {
    pub phase: String,
    pub calls: u64,
    pub failures: u64,
    pub tokens_in: u64,
    /// Of `tokens_in`, those the provider served from its prefix cache.
    #[serde(default)]
    pub tokens_cached: u64,
    pub tokens_out: u64,
    /// `tokens_in` in millions, as the paper's tables give them.
    pub tokens_in_m: f64,
    pub tokens_out_m: f64,
    pub cost_usd: f64,
    /// Sum of the calls' durations (concurrent calls overlap, so this exceeds wall time).
    pub call_ms: u64,
    /// Real time from the first call's start to the last call's end (for the run: the
    /// run's recorded start and end).
    pub wall_ms: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub started_at: Option<DateTime<Utc>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finished_at: Option<DateTime<Utc>>,
}

impl PhaseCost {
    fn named(phase: &str) -> Self {
        PhaseCost {
            phase: phase.to_string(),
            ..PhaseCost::default()
        }
    }

    fn add(&mut self, r: &CallRecord) {
        self.calls += 1;
        self.failures += u64::from(r.error.is_some());
        self.tokens_in += r.usage.prompt_tokens;
        self.tokens_cached += r.usage.cached_tokens.min(r.usage.prompt_tokens);
        self.tokens_out += r.usage.completion_tokens;
        self.cost_usd += r.cost_usd;
        self.call_ms += r.wall_ms;
        if let Ok(start) = DateTime::parse_from_rfc3339(&r.started_at) {
            let start = start.with_timezone(&Utc);
            let end = start + chrono::Duration::milliseconds(r.wall_ms as i64);
            self.started_at = Some(self.started_at.map_or(start, |s| s.min(start)));
            self.finished_at = Some(self.finished_at.map_or(end, |e| e.max(end)));
        }
    }

    fn finish(&mut self) {
        self.tokens_in_m = self.tokens_in as f64 / 1e6;
        self.tokens_out_m = self.tokens_out as f64 / 1e6;
        self.wall_ms = span_ms(self.started_at, self.finished_at);
    }
}

fn span_ms(start: Option<DateTime<Utc>>, end: Option<DateTime<Utc>>) -> u64 {
    match (start, end) {
        (Some(s), Some(e)) => (e - s).num_milliseconds().max(0) as u64,
        _ => 0,
    }
}

/// The cost report of a session: paper phases (always all four, in order), then other
/// agents' phases, the run's total and the cost per operation.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct PhaseCosts {
    pub phases: Vec<PhaseCost>,
    pub run: PhaseCost,
    /// Operations the run covered (the divisor of the per-operation figures).
    pub operations: usize,
    /// Run cost / operations (0 without operations).
    pub cost_per_operation: f64,
}

impl PhaseCosts {
    /// Rolls `calls` up per phase; the run's wall-clock time comes from the manifest's
    /// recorded start and end when there are any (see the module doc).
    pub fn from_calls(
        calls: &[CallRecord],
        manifest: Option<&Manifest>,
        operations: usize,
    ) -> Self {
        let mut phases: Vec<PhaseCost> = PAPER_PHASES.iter().map(|p| PhaseCost::named(p)).collect();
        let mut run = PhaseCost::named("run");
        for r in calls {
            let name = paper_phase(&r.agent);
            let i = match phases.iter().position(|p| p.phase == name) {
                Some(i) => i,
                None => {
                    phases.push(PhaseCost::named(name));
                    phases.len() - 1
                }
            };
            phases[i].add(r);
            run.add(r);
        }
        for p in &mut phases {
            p.finish();
        }
        run.finish();
        if let Some(m) = manifest {
            let recorded = m
                .phases
                .iter()
                .filter(|(k, _)| RUN_PHASES.contains(&k.as_str()));
            let starts = recorded.clone().filter_map(|(_, s)| s.started_at).min();
            let ends = recorded.filter_map(|(_, s)| s.finished_at).max();
            if let (Some(s), Some(e)) = (starts, ends)
                && e >= s
            {
                run.started_at = Some(s);
                run.finished_at = Some(e);
                run.wall_ms = span_ms(Some(s), Some(e));
            }
        }
        let cost_per_operation = if operations == 0 {
            0.0
        } else {
            run.cost_usd / operations as f64
        };
        PhaseCosts {
            phases,
            run,
            operations,
            cost_per_operation,
        }
    }

    /// The text table (appended to the run summary).
    pub fn render(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "{:<16} {:>5} {:>15} {:>9} {:>15} {:>10} {:>8} {:>9} {:>7}",
            "Cost by phase:",
            "calls",
            "in tokens (M)",
            "cached",
            "out tokens (M)",
            "cost USD",
            "calls s",
            "wall s",
            "USD/op"
        );
        let per_op = |c: f64| {
            if self.operations == 0 {
                0.0
            } else {
                c / self.operations as f64
            }
        };
        for p in self.phases.iter().chain(std::iter::once(&self.run)) {
            let name = if p.phase == "run" { "TOTAL" } else { &p.phase };
            let _ = writeln!(
                out,
                "  {name:<14} {:>5} {:>9} {:>5.3} {:>9} {:>9} {:>5.3} {:>10.4} {:>8.1} {:>9.1} {:>7.4}",
                p.calls,
                p.tokens_in,
                p.tokens_in_m,
                p.tokens_cached,
                p.tokens_out,
                p.tokens_out_m,
                p.cost_usd,
                p.call_ms as f64 / 1000.0,
                p.wall_ms as f64 / 1000.0,
                per_op(p.cost_usd)
            );
        }
        let _ = writeln!(
            out,
            "  per operation ({} ops): {:.4} USD",
            self.operations, self.cost_per_operation
        );
        out
    }
}

/// Reads every call record of a session and rolls them up (see [`PhaseCosts::from_calls`]).
pub fn from_session(
    session: &crate::store::Session,
    operations: usize,
) -> Result<PhaseCosts, crate::store::StoreError> {
    let mut calls = Vec::new();
    for name in session.list("calls")? {
        if let Some(record) = session.read_json::<CallRecord>(&format!("calls/{name}"))? {
            calls.push(record);
        }
    }
    Ok(PhaseCosts::from_calls(
        &calls,
        Some(&session.manifest()),
        operations,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llm::{Role, Usage, config::Provider};

    fn call(agent: &str, start: &str, ms: u64, cost: f64) -> CallRecord {
        CallRecord {
            id: "x".into(),
            agent: agent.into(),
            phase: String::new(),
            op_id: None,
            role: Role::Primary,
            provider: Provider::Deepseek,
            model: "m".into(),
            base_url: "u".into(),
            messages: vec![],
            raw_answer: None,
            rejected_answers: vec![],
            finish_reason: None,
            parse_error: None,
            repairs: vec![],
            reasked: false,
            notes: vec![],
            attempts: 1,
            retries: vec![],
            usage: Usage {
                prompt_tokens: 1_000_000,
                completion_tokens: 500_000,
                cached_tokens: 0,
            },
            wall_ms: ms,
            cache_hit: false,
            cost_usd: cost,
            started_at: start.into(),
            error: None,
        }
    }

    #[test]
    fn agents_fall_into_the_papers_phases() {
        assert_eq!(paper_phase("extraction"), PH_A);
        assert_eq!(paper_phase("discovery"), PH_A);
        assert_eq!(paper_phase("semantic"), PH_B_MO);
        assert_eq!(paper_phase("single_op_regenerate"), PH_B_SO);
        assert_eq!(paper_phase("multi_op_challenger"), PH_B_R);
        assert_eq!(paper_phase("baseline_dp"), "baseline_dp");
    }

    #[test]
    fn wall_time_is_a_span_and_call_time_a_sum() {
        let calls = [
            call("single_op", "2026-01-01T00:00:00Z", 4000, 1.0),
            call("single_op", "2026-01-01T00:00:01Z", 4000, 1.0),
            call("extraction", "2026-01-01T00:00:10Z", 1000, 0.5),
        ];
        let c = PhaseCosts::from_calls(&calls, None, 5);
        let so = &c.phases[1];
        assert_eq!(so.phase, PH_B_SO);
        assert_eq!((so.calls, so.call_ms, so.wall_ms), (2, 8000, 5000));
        assert!((so.tokens_in_m - 2.0).abs() < 1e-9);
        assert_eq!(c.phases[2].calls, 0, "Ph-B-MO listed even when empty");
        assert_eq!(c.run.wall_ms, 11_000);
        assert!((c.cost_per_operation - 0.5).abs() < 1e-9);
        let text = c.render();
        assert!(text.contains("Ph-B-R") && text.contains("TOTAL"), "{text}");
    }

    #[test]
    fn cached_input_is_counted_apart() {
        let mut hit = call("single_op", "2026-01-01T00:00:00Z", 10, 0.1);
        hit.usage.cached_tokens = 600_000;
        let miss = call("extraction", "2026-01-01T00:00:00Z", 10, 0.3);
        let c = PhaseCosts::from_calls(&[hit, miss], None, 1);
        assert_eq!(c.phases[1].tokens_cached, 600_000);
        assert_eq!(c.phases[0].tokens_cached, 0);
        assert_eq!((c.run.tokens_in, c.run.tokens_cached), (2_000_000, 600_000));
        assert!(c.render().contains(" 600000 "), "{}", c.render());
    }

    #[test]
    fn the_runs_recorded_span_wins_over_the_calls() {
        let calls = [call("single_op", "2026-01-01T00:00:00Z", 1000, 0.0)];
        let mut m = Manifest::new("p", "s");
        let at = |s: &str| Some(DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&Utc));
        m.phases.insert(
            RUN_PHASE.into(),
            crate::store::PhaseState {
                status: crate::store::PhaseStatus::Done,
                started_at: at("2025-12-31T23:59:58Z"),
                finished_at: at("2026-01-01T00:00:05Z"),
                message: None,
            },
        );
        let c = PhaseCosts::from_calls(&calls, Some(&m), 1);
        assert_eq!(c.run.wall_ms, 7000);
    }
}
