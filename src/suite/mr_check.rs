//! Turning a model's candidate into a `MetamorphicTest`, and the deterministic spec
//! alignment checks the refiner relies on (ARMeta's refinement step, done in Rust).
//!
//! Steps go through the same suite loader as multi-op oracles (`suite::from_value`): op_id
//! shape, input keys, path parameters, capture paths, binds to earlier captures and
//! assertions are checked exactly as for a hand-written sequence. On top of that the
//! candidate must name operations the spec has, query and header parameters it declares,
//! and response fields its schemas show, and its relations must parse and point at steps
//! that exist. This module does not call the model or send requests.

use crate::model::{MetamorphicTest, Relation, SpecOperation, Step};
use crate::oracle::path::Segment;
use crate::oracle::relations::{Side, Source, validate_relation};
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::path::Path;

/// The spec as the checks see it: operations by op_id.
#[derive(Debug, Clone, Default)]
pub struct SpecView {
    pub ops: BTreeMap<String, SpecOperation>,
}

impl SpecView {
    /// From the loaded spec's operations (excluded ones left out).
    pub fn new(ops: &[SpecOperation]) -> Self {
        SpecView {
            ops: ops
                .iter()
                .filter(|o| o.excluded.is_none())
                .map(|o| (o.op_id.clone(), o.clone()))
                .collect(),
        }
    }

    /// Documented statuses per operation, for the runner's contract check.
    pub fn documented(&self) -> crate::oracle::relations::Documented {
        self.ops
            .iter()
            .filter(|(_, o)| !o.responses.is_empty())
            .map(|(id, o)| (id.clone(), o.responses.keys().cloned().collect()))
            .collect()
    }
}

/// Status `0` never comes back from HTTP: a safe marker for "no assertion given".
fn placeholder() -> crate::model::Assertion {
    crate::model::Assertion::Status { expected: 0 }
}

/// Parses one candidate (as the generator or refiner wrote it) into a test. Err says
/// what is wrong, naming the step or relation.
pub fn parse_candidate(raw: &Value, fallback_id: &str) -> Result<MetamorphicTest, String> {
    let map = raw.as_object().ok_or("a candidate must be a JSON object")?;
    let text = |k: &str| match map.get(k) {
        Some(Value::String(s)) => s.trim().to_string(),
        Some(Value::Array(lines)) => lines
            .iter()
            .filter_map(Value::as_str)
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    };
    let test_id = match map.get("test_id").or_else(|| map.get("id")) {
        Some(Value::String(s)) if !s.trim().is_empty() => s.trim().to_string(),
        Some(Value::Number(n)) => format!("mr_{n}"),
        _ => fallback_id.to_string(),
    };
    let list = |k: &str| -> Result<Vec<Value>, String> {
        match map.get(k) {
            Some(Value::Array(a)) if !a.is_empty() => Ok(a.clone()),
            _ => Err(format!("`{k}` must be a non-empty array")),
        }
    };
    let seed_raw = list("seed")?;
    let follow_raw = list("follow_up")?;
    let relations_raw = list("relations")?;
    let mut all = load_steps(&test_id, &seed_raw, &follow_raw)?;
    let follow_up = all.split_off(seed_raw.len());
    let mut relations = Vec::with_capacity(relations_raw.len());
    for (i, r) in relations_raw.into_iter().enumerate() {
        let r: Relation =
            serde_json::from_value(r).map_err(|e| format!("relation {}: {e}", i + 1))?;
        relations.push(r);
    }
    let mut t = MetamorphicTest {
        test_id,
        scenario: text("scenario"),
        given: text("given"),
        when: text("when"),
        then: text("then"),
        seed: all,
        follow_up,
        relations,
        slug: String::new(),
    };
    check_relations(&t)?;
    if t.scenario.is_empty() {
        t.scenario = t.test_id.clone();
    }
    t.slug = crate::oracle::slug::semantic_slug(&t);
    Ok(t)
}

/// Loads seed and follow-up steps (in that order) through the suite loader, as one
/// sequence, so binds to later captures and bad inputs are refused as for any sequence.
fn load_steps(
    test_id: &str,
    seed_raw: &[Value],
    follow_raw: &[Value],
) -> Result<Vec<Step>, String> {
    // A metamorphic step may carry no assertion (the relation is the oracle), which the
    // loader refuses for plain sequences: mark such steps with a placeholder, removed below.
    let steps: Vec<Value> = seed_raw
        .iter()
        .chain(follow_raw)
        .map(|s| {
            let mut s = s.clone();
            if let Some(m) = s.as_object_mut()
                && m.get("assertions")
                    .is_none_or(|a| a.as_array().is_none_or(Vec::is_empty))
            {
                m.insert(
                    "assertions".into(),
                    json!([{"type": "status", "expected": 0}]),
                );
            }
            s
        })
        .collect();
    let doc = json!({"multi_op": [{"test_id": test_id, "group_id": "mr", "steps": steps}]});
    let loaded = crate::suite::from_value(doc, Path::new("metamorphic candidate"))
        .map_err(|e| e.to_string())?;
    if let Some(p) = loaded.problems.first() {
        return Err(rename_steps(&p.message, seed_raw.len()));
    }
    let mut all: Vec<Step> = loaded
        .suite
        .multi_op
        .into_iter()
        .next()
        .map(|m| m.steps)
        .ok_or("the candidate's steps did not load")?;
    for step in &mut all {
        step.assertions.retain(|a| a != &placeholder());
    }
    Ok(all)
}

/// Structural validation of a whole test, as a reviewer's edit or an imported suite must
/// pass before it replaces or joins anything: seed and follow-up are non-empty, every step
/// loads as a sequence step would (op_id shape, path parameters, binds to earlier
/// captures, assertions), and every relation passes `validate_relation` and names steps
/// that exist. Err says what is wrong, naming the step or relation. Spec alignment is
/// separate (`spec_problems`): a test can be well formed and still not match the spec.
pub fn validate_structure(t: &MetamorphicTest) -> Result<(), String> {
    if t.test_id.trim().is_empty() {
        return Err("`test_id` must not be empty".into());
    }
    if t.seed.is_empty() {
        return Err("`seed` must have at least one step".into());
    }
    if t.follow_up.is_empty() {
        return Err("`follow_up` must have at least one step".into());
    }
    if t.relations.is_empty() {
        return Err("`relations` must have at least one relation".into());
    }
    let as_values = |steps: &[Step]| -> Result<Vec<Value>, String> {
        steps
            .iter()
            .map(|s| serde_json::to_value(s).map_err(|e| e.to_string()))
            .collect()
    };
    load_steps(&t.test_id, &as_values(&t.seed)?, &as_values(&t.follow_up)?)?;
    check_relations(t)
}

/// The loader counts steps over seed and follow-up together; name them by side instead.
fn rename_steps(message: &str, seeds: usize) -> String {
    let Some(rest) = message.strip_prefix("step ") else {
        return message.to_string();
    };
    let end = rest.find(':').unwrap_or(rest.len());
    match rest[..end].parse::<usize>() {
        Ok(n) if n >= 1 && n <= seeds => format!("seed[{}]{}", n - 1, &rest[end..]),
        Ok(n) if n > seeds => format!("follow_up[{}]{}", n - 1 - seeds, &rest[end..]),
        _ => message.to_string(),
    }
}

fn check_relations(t: &MetamorphicTest) -> Result<(), String> {
    for (i, r) in t.relations.iter().enumerate() {
        let (l, rr) = validate_relation(r).map_err(|e| format!("relation {}: {e}", i + 1))?;
        for o in std::iter::once(&l).chain(rr.as_ref()) {
            let (len, name) = match o.side {
                Side::Seed => (t.seed.len(), "seed"),
                Side::FollowUp => (t.follow_up.len(), "follow_up"),
            };
            if o.step >= len {
                return Err(format!(
                    "relation {}: {name}[{}] does not exist ({len} {name} steps)",
                    i + 1,
                    o.step
                ));
            }
        }
    }
    Ok(())
}

/// Spec alignment: every problem found (empty: aligned). Operations must exist; query and
/// header parameters must be declared; body operands must name a property the success
/// response schema shows (checked only where the schema lists properties).
pub fn spec_problems(t: &MetamorphicTest, spec: &SpecView) -> Vec<String> {
    let mut problems = Vec::new();
    let steps: Vec<(String, &Step)> = t
        .seed
        .iter()
        .enumerate()
        .map(|(i, s)| (format!("seed[{i}]"), s))
        .chain(
            t.follow_up
                .iter()
                .enumerate()
                .map(|(i, s)| (format!("follow_up[{i}]"), s)),
        )
        .collect();
    for (label, step) in &steps {
        let Some(op) = spec.ops.get(&step.op_id) else {
            problems.push(format!(
                "{label}: operation `{}` is not in the spec",
                step.op_id
            ));
            continue;
        };
        for (name, loc) in step
            .input
            .query
            .keys()
            .map(|k| (k, crate::model::ParamLocation::Query))
        {
            if !op
                .parameters
                .iter()
                .any(|p| p.location == loc && &p.name == name)
            {
                problems.push(format!(
                    "{label}: query parameter `{name}` is not declared for {}",
                    op.op_id
                ));
            }
        }
    }
    for (i, r) in t.relations.iter().enumerate() {
        let Ok((l, rr)) = validate_relation(r) else {
            continue;
        };
        for o in std::iter::once(&l).chain(rr.as_ref()) {
            let list = match o.side {
                Side::Seed => &t.seed,
                Side::FollowUp => &t.follow_up,
            };
            let (Some(step), Source::Body(path)) = (list.get(o.step), &o.source) else {
                continue;
            };
            let Some(op) = spec.ops.get(&step.op_id) else {
                continue;
            };
            if let Some(field) = first_key(path.segments())
                && let Some(props) = success_properties(op)
                && !props.iter().any(|p| p == field)
            {
                problems.push(format!(
                    "relation {}: `{field}` is not a field of the {} response (fields: {})",
                    i + 1,
                    op.op_id,
                    props.join(", ")
                ));
            }
        }
    }
    problems
}

/// The first key of a body path, skipping leading indexes (`[0].name` → `name`).
fn first_key(segments: &[Segment]) -> Option<&str> {
    segments.iter().find_map(|s| match s {
        Segment::Key(k) => Some(k.as_str()),
        _ => None,
    })
}

/// Property names of the first 2xx response schema that lists any (through `items`).
fn success_properties(op: &SpecOperation) -> Option<Vec<String>> {
    op.responses
        .iter()
        .filter(|(k, _)| k.starts_with('2'))
        .find_map(|(_, r)| properties(&r.schema))
}

fn properties(schema: &Value) -> Option<Vec<String>> {
    if let Some(p) = schema.get("properties").and_then(Value::as_object)
        && !p.is_empty()
    {
        return Some(p.keys().cloned().collect());
    }
    if let Some(items) = schema.get("items") {
        return properties(items);
    }
    for key in ["allOf", "oneOf", "anyOf"] {
        if let Some(list) = schema.get(key).and_then(Value::as_array) {
            let all: Vec<String> = list.iter().filter_map(properties).flatten().collect();
            if !all.is_empty() {
                return Some(all);
            }
        }
    }
    None
}
