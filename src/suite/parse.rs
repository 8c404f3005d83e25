//! Entry-by-entry parsing of suite files into model types, collecting problems.

use super::{LoadProblem, LoadedSuite, SuiteFormat};
use crate::model::{
    Assertion, MetamorphicTest, MultiOpOracle, Oracle, ReviewState, Step, SuiteFile,
};
use crate::runner::{assert, binds, exec};
use serde_json::{Map, Value};
use std::collections::{BTreeMap, HashSet};

#[derive(Default)]
pub(super) struct Parser {
    next_index: usize,
    suite: SuiteFile,
    problems: Vec<LoadProblem>,
    seen: HashSet<String>,
    pub(super) keys: KeyCheck,
}

/// Keys accepted in each hand-read object (a key outside its list is a typo or a feature
/// this reader does not have: never dropped silently).
pub(super) const SUITE_KEYS: &[&str] = &[
    "schema_version",
    "oracles",
    "multi_op",
    "metamorphic",
    "review",
];
pub(super) const PAPER_KEYS: &[&str] = &["operations", "multi_op", "metamorphic"];
const OPERATION_KEYS: &[&str] = &["op_id", "path_oracles", "oracles"];
const ORACLE_KEYS: &[&str] = &[
    "test_id",
    "op_id",
    "description",
    "oracle_strategy",
    "input",
    "assertions",
    "evidence",
    "evidence_refs",
    "path_index",
    "fresh_state",
];
const SEQUENCE_KEYS: &[&str] = &[
    "test_id",
    "group_id",
    "description",
    "steps",
    "evidence",
    "evidence_refs",
];
const STEP_KEYS: &[&str] = &["op_id", "input", "captures", "assertions"];
const STATUS_KEYS: &[&str] = &["type", "expected"];
const FIELD_KEYS: &[&str] = &["type", "field_path", "op", "expected"];
const METAMORPHIC_KEYS: &[&str] = &[
    "test_id",
    "scenario",
    "given",
    "when",
    "then",
    "seed",
    "follow_up",
    "relations",
    "slug",
];

/// Unknown-key policy: an error for the object (strict), or a warning (lenient).
#[derive(Default)]
pub(super) struct KeyCheck {
    pub(super) lenient: bool,
    pub(super) warnings: Vec<String>,
    /// Where the entry being read sits, for warnings.
    pub(super) location: String,
}

impl KeyCheck {
    /// Checks `map`'s keys against `accepted`; `what` names the object in messages.
    pub(super) fn check(
        &mut self,
        map: &Map<String, Value>,
        accepted: &[&str],
        what: &str,
    ) -> Result<(), String> {
        for key in map.keys().filter(|k| !accepted.contains(&k.as_str())) {
            let msg = format!(
                "{what}: unknown key `{key}` (accepted: {})",
                accepted.join(", ")
            );
            if self.lenient {
                self.warnings
                    .push(format!("{}: {msg}; ignored", self.location));
            } else {
                return Err(msg);
            }
        }
        Ok(())
    }
}

/// A problem in progress: what we know of the entry so far.
struct Entry {
    test_id: Option<String>,
    op_id: Option<String>,
}

impl Parser {
    pub(super) fn finish(self, format: SuiteFormat) -> LoadedSuite {
        LoadedSuite {
            suite: SuiteFile {
                schema_version: crate::model::SCHEMA_VERSION,
                ..self.suite
            },
            format,
            problems: self.problems,
            warnings: self.keys.warnings,
        }
    }

    fn problem(&mut self, index: usize, location: &str, e: Entry, message: String) {
        self.problems.push(LoadProblem {
            index,
            location: location.to_string(),
            test_id: e.test_id,
            op_id: e.op_id,
            message,
        });
    }

    /// One operation of the paper format.
    pub(super) fn operation(&mut self, op: &Value, i: usize) {
        let location = format!("operations[{i}]");
        let Some(map) = op.as_object() else {
            let index = self.take_index();
            let e = Entry {
                test_id: None,
                op_id: None,
            };
            self.problem(index, &location, e, "an operation must be an object".into());
            return;
        };
        let op_id = map.get("op_id").and_then(Value::as_str).map(str::to_string);
        self.keys.location = location.clone();
        if let Err(msg) = self.keys.check(map, OPERATION_KEYS, "operation") {
            let index = self.take_index();
            let e = Entry {
                test_id: None,
                op_id,
            };
            self.problem(index, &location, e, msg);
            return;
        }
        let (key, list) = match (map.get("path_oracles"), map.get("oracles")) {
            (Some(l), _) => ("path_oracles", l),
            (None, Some(l)) => ("oracles", l),
            (None, None) => return,
        };
        let Some(items) = list.as_array() else {
            let index = self.take_index();
            let e = Entry {
                test_id: None,
                op_id,
            };
            self.problem(
                index,
                &format!("{location}.{key}"),
                e,
                format!("`{key}` must be an array"),
            );
            return;
        };
        for (j, item) in items.iter().enumerate() {
            self.entry(item, &format!("{location}.{key}[{j}]"), op_id.as_deref());
        }
    }

    pub(super) fn single_list(&mut self, list: Option<&Value>, key: &str) {
        self.list(list, key, |p, v, loc| p.entry(v, loc, None));
    }

    pub(super) fn multi_list(&mut self, list: Option<&Value>, key: &str) {
        self.list(list, key, |p, v, loc| p.multi(v, loc));
    }

    pub(super) fn metamorphic_list(&mut self, list: Option<&Value>) {
        self.list(list, "metamorphic", |p, v, loc| p.metamorphic(v, loc));
    }

    fn list(&mut self, list: Option<&Value>, key: &str, f: impl Fn(&mut Self, &Value, &str)) {
        match list {
            None | Some(Value::Null) => {}
            Some(Value::Array(items)) => {
                for (i, item) in items.iter().enumerate() {
                    f(self, item, &format!("{key}[{i}]"));
                }
            }
            Some(_) => {
                let index = self.take_index();
                let e = Entry {
                    test_id: None,
                    op_id: None,
                };
                self.problem(index, key, e, format!("`{key}` must be an array"));
            }
        }
    }

    pub(super) fn review(&mut self, review: Option<&Value>) {
        let Some(Value::Object(map)) = review else {
            return;
        };
        for (o_id, state) in map {
            match serde_json::from_value::<ReviewState>(state.clone()) {
                Ok(s) => {
                    self.suite.review.insert(o_id.clone(), s);
                }
                Err(e) => {
                    let index = self.take_index();
                    let entry = Entry {
                        test_id: None,
                        op_id: Some(o_id.clone()),
                    };
                    self.problem(index, &format!("review[{o_id:?}]"), entry, e.to_string());
                }
            }
        }
    }

    fn take_index(&mut self) -> usize {
        self.next_index += 1;
        self.next_index - 1
    }

    /// A single-op oracle, or a sequence when it has `steps`.
    pub(super) fn entry(&mut self, v: &Value, location: &str, default_op: Option<&str>) {
        if v.get("steps").is_some() {
            return self.multi(v, location);
        }
        let index = self.take_index();
        let test_id = id_text(v.get("test_id"));
        let op_id = id_text(v.get("op_id")).or(default_op.map(str::to_string));
        let entry = || Entry {
            test_id: test_id.clone(),
            op_id: op_id.clone(),
        };
        self.keys.location = location.to_string();
        match single(v, index, default_op, &mut self.keys) {
            Ok(o) if !self.seen.insert(o.o_id()) => {
                let msg = format!("duplicate o_id `{}` (an earlier entry has it)", o.o_id());
                self.problem(index, location, entry(), msg);
            }
            Ok(o) => self.suite.oracles.push(o),
            Err(msg) => self.problem(index, location, entry(), msg),
        }
    }

    fn multi(&mut self, v: &Value, location: &str) {
        let index = self.take_index();
        let test_id = id_text(v.get("test_id"));
        let group = id_text(v.get("group_id"));
        let entry = || Entry {
            test_id: test_id.clone(),
            op_id: group.clone(),
        };
        self.keys.location = location.to_string();
        match multi(v, index, &mut self.keys) {
            Ok(m) if !self.seen.insert(m.o_id()) => {
                let msg = format!("duplicate o_id `{}` (an earlier entry has it)", m.o_id());
                self.problem(index, location, entry(), msg);
            }
            Ok(m) => self.suite.multi_op.push(m),
            Err(msg) => self.problem(index, location, entry(), msg),
        }
    }
}

impl Parser {
    /// A metamorphic test: its serde form, then `metamorphic::check::validate_structure`.
    fn metamorphic(&mut self, v: &Value, location: &str) {
        let index = self.take_index();
        let entry = || Entry {
            test_id: id_text(v.get("test_id")),
            op_id: None,
        };
        self.keys.location = location.to_string();
        let parsed = match v.as_object() {
            Some(map) => self.keys.check(map, METAMORPHIC_KEYS, "metamorphic test"),
            None => Ok(()),
        }
        .and_then(|()| {
            serde_json::from_value::<MetamorphicTest>(v.clone())
                .map_err(|e| format!("not a metamorphic test: {e}"))
        })
        .and_then(|t| {
            crate::suite::mr_check::validate_structure(&t)?;
            Ok(t)
        });
        match parsed {
            Ok(t) if !self.seen.insert(t.o_id()) => {
                let msg = format!("duplicate o_id `{}` (an earlier entry has it)", t.o_id());
                self.problem(index, location, entry(), msg);
            }
            Ok(t) => self.suite.metamorphic.push(t),
            Err(msg) => self.problem(index, location, entry(), msg),
        }
    }
}

/// An id given as a string or a number.
fn id_text(v: Option<&Value>) -> Option<String> {
    match v? {
        Value::String(s) if !s.trim().is_empty() => Some(s.trim().to_string()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

fn single(
    v: &Value,
    index: usize,
    default_op: Option<&str>,
    keys: &mut KeyCheck,
) -> Result<Oracle, String> {
    let map = v.as_object().ok_or("an oracle must be an object")?;
    keys.check(map, ORACLE_KEYS, "oracle")?;
    let mut map = map.clone();
    map.remove("path_index");
    let test_id = id_text(map.get("test_id")).unwrap_or_else(|| format!("t{}", index + 1));
    let op_id = id_text(map.get("op_id"))
        .or(default_op.map(str::to_string))
        .ok_or("no op_id (and no enclosing operation)")?;
    let (_, template) = exec::split_op_id(&op_id)?;
    map.insert("test_id".into(), Value::String(test_id));
    map.insert("op_id".into(), Value::String(op_id.clone()));
    normalize_input(&mut map, template)?;
    let assertions = assertions(map.get("assertions"), keys)?;
    map.remove("assertions");
    map.retain(|k, _| ORACLE_KEYS.contains(&k.as_str()));
    lowercase_strategy(&mut map);
    map.retain(|_, v| !v.is_null());
    let mut oracle: Oracle =
        serde_json::from_value(Value::Object(map)).map_err(|e| e.to_string())?;
    let mut refs = Vec::new();
    for key in ["input", "assertions"] {
        if let Some(part) = v.get(key) {
            binds::references(part, &mut refs);
        }
    }
    if let Some(name) = refs.first() {
        return Err(format!(
            "refers to `$captures.{name}`, but a single-operation oracle has no earlier step \
             to capture it (write a multi-op sequence)"
        ));
    }
    oracle.assertions = assertions;
    check_input(template, &oracle.input)?;
    Ok(oracle)
}

fn multi(v: &Value, index: usize, keys: &mut KeyCheck) -> Result<MultiOpOracle, String> {
    let map = v.as_object().ok_or("a sequence must be an object")?;
    keys.check(map, SEQUENCE_KEYS, "sequence")?;
    let test_id = id_text(map.get("test_id")).unwrap_or_else(|| format!("t{}", index + 1));
    let group_id = id_text(map.get("group_id")).unwrap_or_else(|| "multi".to_string());
    let raw_steps = map
        .get("steps")
        .and_then(Value::as_array)
        .ok_or("`steps` must be an array")?;
    if raw_steps.is_empty() {
        return Err("a sequence needs at least one step".into());
    }
    let mut declared: HashSet<String> = HashSet::new();
    let mut steps = Vec::with_capacity(raw_steps.len());
    for (n, raw) in raw_steps.iter().enumerate() {
        let step = step(raw, &declared, keys).map_err(|e| format!("step {}: {e}", n + 1))?;
        declared.extend(step.captures.keys().cloned());
        steps.push(step);
    }
    let text = |k: &str| {
        map.get(k)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string()
    };
    let evidence_refs = match map.get("evidence_refs") {
        Some(v) if !v.is_null() => {
            serde_json::from_value(v.clone()).map_err(|e| format!("evidence_refs: {e}"))?
        }
        _ => Vec::new(),
    };
    Ok(MultiOpOracle {
        test_id,
        group_id,
        description: text("description"),
        steps,
        evidence: text("evidence"),
        evidence_refs,
    })
}

fn step(v: &Value, declared: &HashSet<String>, keys: &mut KeyCheck) -> Result<Step, String> {
    let mut map = v.as_object().ok_or("a step must be an object")?.clone();
    keys.check(&map, STEP_KEYS, "step")?;
    let op_id = id_text(map.get("op_id")).ok_or("no op_id")?;
    let template = exec::split_op_id(&op_id)?.1.to_string();
    let template = template.as_str();
    normalize_input(&mut map, template)?;
    let assertions = assertions(map.get("assertions"), keys)?;
    let input = match map.get("input") {
        Some(i) => serde_json::from_value(i.clone()).map_err(|e| format!("input: {e}"))?,
        None => Default::default(),
    };
    let captures: BTreeMap<String, String> = match map.get("captures") {
        None | Some(Value::Null) => BTreeMap::new(),
        Some(c) => serde_json::from_value(c.clone())
            .map_err(|e| format!("captures must map names to field paths: {e}"))?,
    };
    for path in captures.values() {
        if let Some(p) = path.strip_prefix("header:") {
            if p.trim().is_empty() {
                return Err("capture `header:` names no header".into());
            }
        } else {
            crate::runner::path::FieldPath::parse(path).map_err(|e| format!("capture: {e}"))?;
        }
    }
    let s = Step {
        op_id,
        input,
        captures,
        assertions,
    };
    let mut refs = Vec::new();
    let input_value = serde_json::to_value(&s.input).unwrap_or_default();
    binds::references(&input_value, &mut refs);
    for a in &s.assertions {
        if let Assertion::Field { expected, .. } = a {
            binds::references(expected, &mut refs);
        }
    }
    if let Some(name) = refs.iter().find(|r| !declared.contains(*r)) {
        return Err(format!(
            "binds `$captures.{name}`, which no earlier step captures"
        ));
    }
    check_input(template, &s.input)?;
    Ok(s)
}

/// Drops null members of `input`, moves flat keys naming path parameters into `path`,
/// and rejects other unknown keys.
fn normalize_input(map: &mut Map<String, Value>, template: &str) -> Result<(), String> {
    let input = match map.get_mut("input") {
        None => return Ok(()),
        Some(Value::Null) => {
            map.remove("input");
            return Ok(());
        }
        Some(Value::Object(i)) => i,
        Some(_) => return Err("`input` must be an object".into()),
    };
    input.retain(|_, v| !v.is_null());
    let params = path_params(template);
    let flat: Vec<String> = input
        .keys()
        .filter(|k| !INPUT_KEYS.contains(&k.as_str()))
        .cloned()
        .collect();
    for key in flat {
        if !params.contains(&key.as_str()) {
            return Err(format!(
                "input key `{key}` is not path, path_raw, query, query_raw, body, raw_body, headers or method \
                 (nor a path parameter of the operation)"
            ));
        }
        let value = input.remove(&key).unwrap_or_default();
        let path = input
            .entry("path")
            .or_insert_with(|| Value::Object(Map::new()));
        if let Some(p) = path.as_object_mut() {
            p.insert(key, value);
        }
    }
    Ok(())
}

fn path_params(template: &str) -> Vec<&str> {
    template
        .split('{')
        .skip(1)
        .filter_map(|rest| rest.split_once('}').map(|(name, _)| name))
        .collect()
}

/// The keys an oracle's `input` may have.
const INPUT_KEYS: [&str; 8] = [
    "path",
    "path_raw",
    "query",
    "query_raw",
    "body",
    "raw_body",
    "headers",
    "method",
];

/// Every path parameter has a value (in `path` or, verbatim, in `path_raw`), and the
/// input says what it means once: not `body` and `raw_body` together, not one parameter
/// in both maps (`exec::check_input`).
fn check_input(template: &str, input: &crate::model::OracleInput) -> Result<(), String> {
    exec::check_input(input)?;
    match path_params(template)
        .into_iter()
        .find(|p| !input.path.contains_key(*p) && !input.path_raw.contains_key(*p))
    {
        Some(p) => Err(format!(
            "path parameter `{p}` has no value in input.path or input.path_raw"
        )),
        None => Ok(()),
    }
}

/// Parses and validates each assertion, naming the first bad one by index.
fn assertions(v: Option<&Value>, keys: &mut KeyCheck) -> Result<Vec<Assertion>, String> {
    let items = match v {
        Some(Value::Array(items)) if !items.is_empty() => items,
        _ => return Err("no assertions (an oracle needs at least one check)".into()),
    };
    items
        .iter()
        .enumerate()
        .map(|(i, raw)| {
            if let Some(map) = raw.as_object() {
                let accepted = match map.get("type").and_then(Value::as_str) {
                    Some("status") => STATUS_KEYS,
                    _ => FIELD_KEYS,
                };
                keys.check(map, accepted, &format!("assertion {i}"))?;
            }
            let mut raw = raw.clone();
            // `"expected": "200"` on a status assertion means 200.
            if raw.get("type").and_then(Value::as_str) == Some("status")
                && let Some(s) = raw.get("expected").and_then(Value::as_str)
                && let Ok(n) = s.trim().parse::<u16>()
                && let Some(obj) = raw.as_object_mut()
            {
                obj.insert("expected".into(), Value::from(n));
            }
            let a: Assertion = serde_json::from_value(raw)
                .map_err(|e| format!("assertion {i}: {}", friendly(&e.to_string())))?;
            assert::validate(&a).map_err(|e| format!("assertion {i}: {e}"))?;
            Ok(a)
        })
        .collect()
}

/// serde's "unknown variant" message, said in the oracle author's terms.
fn friendly(msg: &str) -> String {
    msg.replace("unknown variant", "unknown op or type")
}

fn lowercase_strategy(map: &mut Map<String, Value>) {
    if let Some(Value::String(s)) = map.get_mut("oracle_strategy") {
        *s = s.to_ascii_lowercase();
    }
    if map.get("oracle_strategy").is_some_and(Value::is_null) {
        map.remove("oracle_strategy");
    }
}
