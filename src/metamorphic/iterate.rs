//! The generation loop (ARMeta's Test Manager): generate a batch, check and refine it,
//! group by slug, run the new tests, measure operation coverage, and stop on the first
//! criterion met.
//!
//! Stopping criteria, checked after every iteration in this order: target operation
//! coverage reached; request budget used up; time budget spent; maximum iterations done;
//! plateau (that many consecutive iterations without a new test and without coverage
//! gain). Coverage is the share of the spec's (non-excluded) operations that at least one
//! executed request reached. The loop does not write files; `store` does.

use crate::agents::metamorphic::MrAgents;
use crate::metamorphic::check::{SpecView, parse_candidate, spec_problems};
use crate::model::MetamorphicTest;
use crate::runner::RunConfig;
use crate::runner::relations::{MrOutcome, MrVerdict, run_metamorphic};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::time::{Duration, Instant};

/// When to stop (all configurable from the command line).
#[derive(Debug, Clone, PartialEq)]
pub struct StopCriteria {
    /// Target share of operations exercised, 0.0..=1.0.
    pub coverage: f64,
    /// Consecutive iterations without a new test or coverage gain.
    pub plateau: usize,
    /// Requests to the API under test for the whole session.
    pub request_budget: Option<usize>,
    /// Wall-clock limit of the session.
    pub time_budget: Option<Duration>,
    pub max_iterations: usize,
}

impl Default for StopCriteria {
    fn default() -> Self {
        Self {
            coverage: 1.0,
            plateau: 2,
            request_budget: Some(1000),
            time_budget: None,
            max_iterations: 5,
        }
    }
}

/// Which criterion ended the session.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StopReason {
    Coverage,
    RequestBudget,
    TimeBudget,
    MaxIterations,
    Plateau,
    /// The generator failed (the error is in the last iteration's record).
    GeneratorFailed,
}

/// A candidate that was not kept, and why.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DroppedCandidate {
    pub test_id: String,
    pub reason: String,
}

/// A candidate equivalent to an earlier test (same slug), counted once.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Duplicate {
    pub test_id: String,
    pub same_as: String,
    pub slug: String,
    /// The duplicate's scenario title (ARMeta's unique-HLMT count groups every title).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub scenario: String,
}

/// What one iteration did.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct IterationRecord {
    pub iteration: usize,
    pub candidates: usize,
    pub repaired: usize,
    pub new_tests: Vec<String>,
    pub dropped: Vec<DroppedCandidate>,
    pub duplicates: Vec<Duplicate>,
    pub requests: usize,
    pub coverage: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// Counts per outcome.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct OutcomeCounts {
    pub passed: usize,
    pub relation_violated: usize,
    pub execution_failed: usize,
}

/// The whole session's result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MrReport {
    pub iterations: Vec<IterationRecord>,
    pub tests: Vec<MetamorphicTest>,
    pub verdicts: Vec<MrVerdict>,
    pub stop: StopReason,
    pub coverage: f64,
    pub covered: Vec<String>,
    pub operations: usize,
    pub requests: usize,
    pub outcomes: OutcomeCounts,
    pub elapsed_ms: u64,
    /// RFC 3339 time the loop ended: the run time of its verdicts (absent in reports
    /// written before it was recorded).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finished_at: Option<String>,
}

/// Loop settings: criteria, batch size, and how to reach the API.
#[derive(Debug, Clone)]
pub struct LoopConfig {
    pub criteria: StopCriteria,
    pub batch: usize,
    pub run: RunConfig,
}

/// Candidates checked and refined: kept tests and dropped ones.
async fn admit<A: MrAgents>(
    agents: &A,
    raw: Vec<Value>,
    spec: &SpecView,
    rec: &mut IterationRecord,
) -> Vec<MetamorphicTest> {
    let mut kept = Vec::new();
    let mut failing: Vec<(Value, Vec<String>)> = Vec::new();
    for (i, c) in raw.into_iter().enumerate() {
        let fallback = format!("mr_{}_{}", rec.iteration, i + 1);
        match check_one(&c, &fallback, spec) {
            Ok(t) => kept.push(t),
            Err(problems) => {
                let mut c = c;
                if let Some(m) = c.as_object_mut() {
                    m.entry("test_id").or_insert(Value::String(fallback));
                }
                failing.push((c, problems));
            }
        }
    }
    if failing.is_empty() {
        return kept;
    }
    let original: BTreeMap<String, String> = failing
        .iter()
        .map(|(c, p)| (id_of(c), p.join("; ")))
        .collect();
    let mut settled: BTreeSet<String> = BTreeSet::new();
    match agents.refine(&failing).await {
        Ok(refined) => {
            for (id, reason) in refined.dropped {
                let before = original.get(&id).cloned().unwrap_or_default();
                settled.insert(id.clone());
                rec.dropped.push(DroppedCandidate {
                    test_id: id,
                    reason: format!("refiner: {reason} (checks: {before})"),
                });
            }
            for c in refined.tests {
                let id = id_of(&c);
                // Only repairs of the candidates sent count; a new id would be a new
                // candidate the generator never proposed.
                if settled.contains(&id) || !original.contains_key(&id) {
                    continue;
                }
                settled.insert(id.clone());
                match check_one(&c, &id, spec) {
                    Ok(t) => {
                        rec.repaired += 1;
                        kept.push(t);
                    }
                    Err(p) => rec.dropped.push(DroppedCandidate {
                        test_id: id.clone(),
                        reason: format!(
                            "{}; after repair: {}",
                            original.get(&id).cloned().unwrap_or_default(),
                            p.join("; ")
                        ),
                    }),
                }
            }
        }
        Err(e) => rec.error = Some(format!("refiner failed: {e}")),
    }
    for (id, reason) in original {
        if !settled.contains(&id) {
            rec.dropped.push(DroppedCandidate {
                test_id: id,
                reason,
            });
        }
    }
    kept
}

fn id_of(c: &Value) -> String {
    c.get("test_id")
        .or_else(|| c.get("id"))
        .map(|v| match v {
            Value::String(s) => s.clone(),
            other => format!("mr_{other}"),
        })
        .unwrap_or_default()
}

fn check_one(c: &Value, fallback: &str, spec: &SpecView) -> Result<MetamorphicTest, Vec<String>> {
    let t = parse_candidate(c, fallback).map_err(|e| vec![e])?;
    let problems = spec_problems(&t, spec);
    if problems.is_empty() {
        Ok(t)
    } else {
        Err(problems)
    }
}

/// Runs the loop until a stopping criterion holds.
pub async fn run_loop<A: MrAgents>(agents: &A, spec: &SpecView, cfg: &LoopConfig) -> MrReport {
    let started = Instant::now();
    let documented = spec.documented();
    let total_ops = spec.ops.len();
    let mut tests: Vec<MetamorphicTest> = Vec::new();
    let mut verdicts: Vec<MrVerdict> = Vec::new();
    let mut slugs: BTreeMap<String, String> = BTreeMap::new();
    let mut covered: BTreeSet<String> = BTreeSet::new();
    let mut iterations = Vec::new();
    let mut requests = 0usize;
    let mut quiet = 0usize;
    let c = &cfg.criteria;
    let stop = loop {
        let n = iterations.len() + 1;
        let mut rec = IterationRecord {
            iteration: n,
            ..IterationRecord::default()
        };
        let uncovered: Vec<String> = spec
            .ops
            .keys()
            .filter(|o| !covered.contains(*o))
            .cloned()
            .collect();
        let raw = match agents.generate(&tests, &uncovered, cfg.batch).await {
            Ok(raw) => raw,
            Err(e) => {
                rec.error = Some(e.to_string());
                iterations.push(rec);
                break StopReason::GeneratorFailed;
            }
        };
        rec.candidates = raw.len();
        let admitted = admit(agents, raw, spec, &mut rec).await;
        let mut fresh = Vec::new();
        for mut t in admitted {
            if let Some(first) = slugs.get(&t.slug) {
                rec.duplicates.push(Duplicate {
                    test_id: t.test_id.clone(),
                    same_as: first.clone(),
                    slug: t.slug.clone(),
                    scenario: t.scenario.clone(),
                });
                continue;
            }
            let base = t.test_id.clone();
            let mut k = 2;
            while tests
                .iter()
                .chain(&fresh)
                .any(|o: &MetamorphicTest| o.test_id == t.test_id)
            {
                t.test_id = format!("{base}_{k}");
                k += 1;
            }
            slugs.insert(t.slug.clone(), t.test_id.clone());
            fresh.push(t);
        }
        let before = covered.len();
        if !fresh.is_empty() {
            let mut run = cfg.run.clone();
            run.budget = c.request_budget.map(|b| b.saturating_sub(requests));
            match run_metamorphic(&fresh, &run, &documented).await {
                Ok(vs) => {
                    for v in &vs {
                        rec.requests += v.requests;
                        for s in v.steps.iter().filter(|s| s.exchange.is_some()) {
                            if spec.ops.contains_key(&s.op_id) {
                                covered.insert(s.op_id.clone());
                            }
                        }
                    }
                    verdicts.extend(vs);
                }
                Err(e) => rec.error = Some(format!("run failed: {e}")),
            }
        }
        requests += rec.requests;
        rec.new_tests = fresh.iter().map(|t| t.test_id.clone()).collect();
        let progressed = !fresh.is_empty() || covered.len() > before;
        tests.extend(fresh);
        rec.coverage = share(covered.len(), total_ops);
        iterations.push(rec);
        quiet = if progressed { 0 } else { quiet + 1 };
        if total_ops > 0 && share(covered.len(), total_ops) + 1e-9 >= c.coverage {
            break StopReason::Coverage;
        }
        if c.request_budget.is_some_and(|b| requests >= b) {
            break StopReason::RequestBudget;
        }
        if c.time_budget.is_some_and(|t| started.elapsed() >= t) {
            break StopReason::TimeBudget;
        }
        if iterations.len() >= c.max_iterations {
            break StopReason::MaxIterations;
        }
        if c.plateau > 0 && quiet >= c.plateau {
            break StopReason::Plateau;
        }
    };
    let mut outcomes = OutcomeCounts::default();
    for v in &verdicts {
        match v.outcome {
            MrOutcome::Passed => outcomes.passed += 1,
            MrOutcome::RelationViolated => outcomes.relation_violated += 1,
            MrOutcome::ExecutionFailed => outcomes.execution_failed += 1,
        }
    }
    MrReport {
        iterations,
        tests,
        verdicts,
        stop,
        coverage: share(covered.len(), total_ops),
        covered: covered.into_iter().collect(),
        operations: total_ops,
        requests,
        outcomes,
        elapsed_ms: started.elapsed().as_millis() as u64,
        finished_at: Some(chrono::Utc::now().to_rfc3339()),
    }
}

fn share(n: usize, total: usize) -> f64 {
    if total == 0 {
        0.0
    } else {
        n as f64 / total as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agents::metamorphic::Refined;
    use serde_json::json;

    struct Fake {
        refined: Refined,
    }

    impl MrAgents for Fake {
        async fn generate(
            &self,
            _: &[MetamorphicTest],
            _: &[String],
            _: usize,
        ) -> Result<Vec<Value>, crate::agents::AgentError> {
            Ok(Vec::new())
        }
        async fn refine(
            &self,
            _: &[(Value, Vec<String>)],
        ) -> Result<Refined, crate::agents::AgentError> {
            Ok(self.refined.clone())
        }
    }

    fn spec() -> SpecView {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/petstore-jdk/openapi.json");
        SpecView::new(&crate::spec::load(&path).unwrap().operations)
    }

    fn candidate(id: &str, op: &str, field: &str) -> Value {
        json!({"test_id": id, "scenario": id,
               "seed": [{"op_id": op}], "follow_up": [{"op_id": "GET /pets"}],
               "relations": [{"left": format!("seed[0].body.{field}"), "op": "equals", "value": 1}]})
    }

    #[tokio::test]
    async fn refiner_repairs_are_rechecked_and_every_candidate_is_accounted_for() {
        let fake = Fake {
            refined: Refined {
                tests: vec![
                    // a good repair of `bad_field`
                    candidate("bad_field", "GET /stats", "total"),
                    // a repair that is still wrong
                    candidate("still_bad", "GET /stats", "nope"),
                    // an id that was never sent: ignored
                    candidate("invented", "GET /stats", "total"),
                ],
                dropped: vec![("ghost".into(), "no such resource".into())],
            },
        };
        let raw = vec![
            candidate("fine", "GET /stats", "total"),
            candidate("bad_field", "GET /stats", "totl"),
            candidate("still_bad", "GET /stats", "nope"),
            candidate("ghost", "GET /ghosts", "x"),
            candidate("ignored", "GET /stats", "nope"),
            json!({"test_id": "shapeless", "seed": []}),
        ];
        let mut rec = IterationRecord::default();
        let kept = admit(&fake, raw, &spec(), &mut rec).await;
        let ids: Vec<&str> = kept.iter().map(|t| t.test_id.as_str()).collect();
        assert_eq!(ids, ["fine", "bad_field"]);
        assert_eq!(rec.repaired, 1);
        let reason = |id: &str| {
            rec.dropped
                .iter()
                .find(|d| d.test_id == id)
                .map(|d| d.reason.clone())
                .unwrap_or_else(|| panic!("{id} not dropped: {:?}", rec.dropped))
        };
        assert!(reason("ghost").contains("no such resource"));
        assert!(reason("ghost").contains("`GET /ghosts` is not in the spec"));
        assert!(reason("still_bad").contains("after repair"));
        assert!(reason("ignored").contains("`nope` is not a field of the GET /stats response"));
        assert!(reason("shapeless").contains("`seed` must be a non-empty array"));
        assert_eq!(rec.dropped.len(), 4);
    }
}
