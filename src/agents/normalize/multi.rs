//! Normalization of multi-operation oracles (the multi-op rules of the module docs).

use super::dedupe::{Dedup, dedupe};
use super::parse::{
    Recorder, assertion_set, canonical, entries, first_name_segment, id_field, kind, object_and_id,
    parse_assertions, parse_input, parse_refs, text_field,
};
use super::unreferenced::{self, NormalizeOptions};
use super::{BundleIndex, KnownOps, NormalizeOutcome, find_captures, rule};
use crate::model::{Assertion, MultiOpOracle, SourceContext, Step};
use serde_json::{Map, Value};
use std::collections::{BTreeMap, BTreeSet, HashMap};

impl Dedup for MultiOpOracle {
    fn test_id(&self) -> &str {
        &self.test_id
    }

    fn set_test_id(&mut self, id: String) {
        self.test_id = id;
    }

    fn content_key(&self) -> String {
        self.steps
            .iter()
            .map(|s| {
                let input = serde_json::to_value(&s.input).unwrap_or(Value::Null);
                let captures = serde_json::to_value(&s.captures).unwrap_or(Value::Null);
                format!(
                    "{}\u{1}{}\u{1}{}\u{1}{}",
                    s.op_id,
                    canonical(&input),
                    canonical(&captures),
                    assertion_set(&s.assertions).join("\u{1}")
                )
            })
            .collect::<Vec<_>>()
            .join("\u{0}")
    }
}

/// Normalizes a model's answer for one operation group. `raw` is an array of oracles or
/// an object holding one under `oracles`, `multi_op_oracles` or `sequences` (or one
/// oracle object). `contexts` maps op_id → verified source context; `known_ops` are the
/// operations steps may call. Sequences whose steps reference a status or field their
/// operation's context lacks are set aside (see [`normalize_multi_with`] to keep them).
pub fn normalize_multi(
    group_id: &str,
    raw: &Value,
    contexts: &HashMap<String, SourceContext>,
    known_ops: &KnownOps,
    bundle: &BundleIndex,
) -> NormalizeOutcome<MultiOpOracle> {
    let opts = NormalizeOptions::default();
    normalize_multi_with(group_id, raw, contexts, known_ops, bundle, opts)
}

/// [`normalize_multi`] with explicit options.
pub fn normalize_multi_with(
    group_id: &str,
    raw: &Value,
    contexts: &HashMap<String, SourceContext>,
    known_ops: &KnownOps,
    bundle: &BundleIndex,
    opts: NormalizeOptions,
) -> NormalizeOutcome<MultiOpOracle> {
    let mut rec = Recorder::new(rule::MULTI);
    let list = match entries(raw, &["oracles", "multi_op_oracles", "sequences"], "steps") {
        Ok(list) => list,
        Err(why) => {
            rec.drop("", rule::MALFORMED, why, raw);
            Vec::new()
        }
    };
    let env = Env {
        group_id,
        contexts,
        known_ops,
        bundle,
    };
    let mut candidates = Vec::new();
    let mut set_aside = Vec::new();
    for (index, entry) in list.into_iter().enumerate() {
        let Some(oracle) = normalize_entry(&env, index, entry, &mut rec) else {
            continue;
        };
        let mut problems = unreferenced::Findings::default();
        for (i, s) in oracle.steps.iter().enumerate() {
            let Some(ctx) = contexts.get(&s.op_id) else {
                continue;
            };
            let prefix = format!("step #{}: ", i + 1);
            let mut found = unreferenced::problems(&s.assertions, ctx, true, &prefix);
            if s.input.method.is_some() {
                found.another_method();
            }
            problems.contradictions.extend(found.contradictions);
            problems.unverified.extend(found.unverified);
        }
        let test_id = oracle.test_id.clone();
        let sorted = (oracle, entry.clone());
        unreferenced::sort(
            sorted,
            &test_id,
            problems,
            opts,
            &mut rec,
            &mut candidates,
            &mut set_aside,
        );
    }
    let kept = dedupe(candidates, &mut rec);
    unreferenced::unique_ids(
        &mut set_aside,
        kept.iter().map(|o| o.test_id.clone()),
        |o| &mut o.test_id,
    );
    NormalizeOutcome {
        kept,
        set_aside,
        dropped: rec.dropped,
        flags: rec.flags,
        counts: rec.counts,
    }
}

/// What every entry is checked against.
struct Env<'a> {
    group_id: &'a str,
    contexts: &'a HashMap<String, SourceContext>,
    known_ops: &'a KnownOps,
    bundle: &'a BundleIndex,
}

fn normalize_entry(
    env: &Env<'_>,
    index: usize,
    entry: &Value,
    rec: &mut Recorder,
) -> Option<MultiOpOracle> {
    let (obj, test_id) = object_and_id(index, entry, rec, |_| "seq".to_string())?;
    let raw_steps = match obj.get("steps") {
        Some(Value::Array(s)) if !s.is_empty() => s,
        _ => {
            rec.drop(&test_id, rule::MALFORMED, "no `steps` list", entry);
            return None;
        }
    };
    let mut steps = Vec::with_capacity(raw_steps.len());
    for (i, raw_step) in raw_steps.iter().enumerate() {
        match parse_step(i, raw_step, &test_id, rec) {
            Ok(step) => steps.push(step),
            Err(why) => {
                rec.drop(&test_id, rule::MALFORMED, why, entry);
                return None;
            }
        }
    }
    match id_field(obj, "group_id") {
        None => rec.count(rule::MISSING_GROUP_ID),
        Some(given) if given != env.group_id => rec.flag(
            &test_id,
            rule::GROUP_ID_MISMATCH,
            format!("group_id `{given}` replaced by `{}`", env.group_id),
        ),
        Some(_) => {}
    }
    for (i, raw_step) in raw_steps.iter().enumerate() {
        if let (Value::Object(step_obj), Some(step)) = (raw_step, steps.get_mut(i)) {
            step.input = parse_input(step_obj, &test_id, &format!("step #{}: ", i + 1), rec);
        }
    }
    if let Err((rule_id, why)) = check_steps(env, &steps) {
        rec.drop(&test_id, rule_id, why, entry);
        return None;
    }
    let evidence_refs = parse_refs(obj.get("evidence_refs"), env.bundle, &test_id, rec);
    Some(MultiOpOracle {
        test_id,
        group_id: env.group_id.to_string(),
        description: text_field(obj, "description"),
        steps,
        evidence: text_field(obj, "evidence"),
        evidence_refs,
    })
}

/// Reads one step (input is read later, after the malformed checks of all steps).
fn parse_step(i: usize, raw: &Value, test_id: &str, rec: &mut Recorder) -> Result<Step, String> {
    let n = i + 1;
    let Value::Object(obj) = raw else {
        return Err(format!("step #{n} is {}, not an object", kind(raw)));
    };
    let op_id = match id_field(obj, "op_id") {
        Some(id) => id,
        None => match (obj.get("method"), obj.get("path")) {
            (Some(Value::String(m)), Some(Value::String(p))) => {
                crate::model::op_id(m.trim(), p.trim())
            }
            _ => return Err(format!("step #{n} has no op_id")),
        },
    };
    let prefix = format!("step #{n}: ");
    let assertions = parse_assertions(obj.get("assertions"), test_id, &prefix, rec)
        .ok_or_else(|| format!("step #{n} has no `assertions` list"))?;
    let captures = parse_captures(obj, test_id, &prefix, rec);
    Ok(Step {
        op_id,
        input: Default::default(),
        captures,
        assertions,
    })
}

/// Reads `captures` as name → field path, flagging entries that are not strings.
fn parse_captures(
    obj: &Map<String, Value>,
    test_id: &str,
    prefix: &str,
    rec: &mut Recorder,
) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    match obj.get("captures") {
        None | Some(Value::Null) => {}
        Some(Value::Object(map)) => {
            for (name, path) in map {
                match path {
                    Value::String(p) => {
                        out.insert(name.clone(), p.trim().to_string());
                    }
                    other => rec.flag(
                        test_id,
                        rule::MALFORMED,
                        format!(
                            "{prefix}capture `{name}` removed: field path is {}",
                            kind(other)
                        ),
                    ),
                }
            }
        }
        Some(other) => rec.flag(
            test_id,
            rule::MALFORMED,
            format!("{prefix}captures is {}, removed", kind(other)),
        ),
    }
    out
}

/// Rules `unknown_op`, `no_status`, `undeclared_capture`, `unbound_capture`,
/// `bad_path_bind`, in that order; the first that fails drops the oracle.
fn check_steps(env: &Env<'_>, steps: &[Step]) -> Result<(), (&'static str, String)> {
    for (i, s) in steps.iter().enumerate() {
        if !env.known_ops.ops.contains_key(&s.op_id) {
            return Err((
                rule::UNKNOWN_OP,
                format!("step #{}: `{}` is not a known operation", i + 1, s.op_id),
            ));
        }
    }
    for (i, s) in steps.iter().enumerate() {
        if !s
            .assertions
            .iter()
            .any(|a| matches!(a, Assertion::Status { .. }))
        {
            return Err((
                rule::NO_STATUS,
                format!("step #{} has no status assertion", i + 1),
            ));
        }
    }
    for (i, s) in steps.iter().enumerate() {
        let Some(ctx) = env.contexts.get(&s.op_id) else {
            continue;
        };
        let fields: BTreeSet<&str> = ctx
            .response_schema
            .fields
            .iter()
            .filter_map(|f| first_name_segment(&f.name))
            .collect();
        if fields.is_empty() {
            continue;
        }
        for (name, path) in &s.captures {
            if let Some(first) = first_name_segment(path)
                && !fields.contains(first)
            {
                return Err((
                    rule::UNDECLARED_CAPTURE,
                    format!(
                        "step #{} captures `{name}` from `{path}`, not a verified response field of {}",
                        i + 1,
                        s.op_id
                    ),
                ));
            }
        }
    }
    let mut defined: BTreeSet<&str> = BTreeSet::new();
    for (i, s) in steps.iter().enumerate() {
        let mut used = find_captures(&serde_json::to_value(&s.input).unwrap_or(Value::Null));
        for a in &s.assertions {
            if let Assertion::Field { expected, .. } = a {
                used.extend(find_captures(expected));
            }
        }
        if let Some(name) = used.iter().find(|n| !defined.contains(n.as_str())) {
            return Err((
                rule::UNBOUND_CAPTURE,
                format!(
                    "step #{} uses `$captures.{name}`, which no earlier step captures",
                    i + 1
                ),
            ));
        }
        defined.extend(s.captures.keys().map(String::as_str));
    }
    for (i, s) in steps.iter().enumerate() {
        let params = env.known_ops.path_params(&s.op_id).unwrap_or_default();
        for (key, value) in &s.input.path {
            if !find_captures(value).is_empty() && !params.iter().any(|p| p == key) {
                return Err((
                    rule::BAD_PATH_BIND,
                    format!(
                        "step #{} binds a capture into path parameter `{key}`, which `{}` does not have",
                        i + 1,
                        s.op_id
                    ),
                ));
            }
        }
    }
    Ok(())
}
