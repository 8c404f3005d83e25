//! How a suite's oracles are shown to the agents that read them back: the challenger and
//! the revision. A suite is the largest part of a review prompt, and much of it repeats
//! what the prompt already says once: the operation every oracle of the suite belongs
//! to, and the full form of each evidence reference, whose lines the prompt shows under
//! their file's header anyway. Both are left out here; nothing the reader decides on is.
//!
//! The challenger, which writes no oracle, also reads each assertion short (a list instead
//! of an object with its key names; `prompts/partials/review_form.md` says how). The revision keeps the
//! assertions and references in the form it must write them in, as it returns oracles.

use serde::Serialize;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};

/// The oracles for a reviewer: one compact JSON item a line, without the suite's
/// operation, assertions and evidence references short (as the reviewers' prompts
/// describe them: the part `review_form`).
pub fn review_lines<T: Serialize>(items: &[T]) -> String {
    lines(items, true)
}

/// The flagged oracles for a revision: one compact JSON item a line, without the
/// suite's operation (the prompt names it), references as written.
pub fn revision_lines<T: Serialize>(items: &[T]) -> String {
    lines(items, false)
}

fn lines<T: Serialize>(items: &[T], short_refs: bool) -> String {
    if items.is_empty() {
        return "[]".into();
    }
    let mut values: Vec<Value> = items
        .iter()
        .map(|i| serde_json::to_value(i).unwrap_or(Value::Null))
        .collect();
    let names = if short_refs {
        file_names(&values)
    } else {
        BTreeMap::new()
    };
    let lines: Vec<String> = values
        .iter_mut()
        .map(|v| {
            if let Value::Object(map) = v {
                map.remove("op_id");
                if short_refs {
                    shorten(map, &names);
                }
            }
            serde_json::to_string(&v).unwrap_or_default()
        })
        .collect();
    format!("[\n{}\n]", lines.join(",\n"))
}

/// The name each cited file is shown by: its file name where no other cited file has
/// that name, else its path.
fn file_names(values: &[Value]) -> BTreeMap<String, String> {
    fn collect(v: &Value, paths: &mut BTreeSet<String>) {
        let Value::Object(map) = v else { return };
        if let Some(Value::Array(refs)) = map.get("evidence_refs") {
            paths.extend(
                refs.iter()
                    .filter_map(|r| r.get("file")?.as_str().map(str::to_string)),
            );
        }
        if let Some(Value::Array(steps)) = map.get("steps") {
            steps.iter().for_each(|s| collect(s, paths));
        }
    }
    let mut paths: BTreeSet<String> = BTreeSet::new();
    values.iter().for_each(|v| collect(v, &mut paths));
    let name = |p: &str| p.rsplit('/').next().unwrap_or(p).to_string();
    let mut count: BTreeMap<String, usize> = BTreeMap::new();
    for p in &paths {
        *count.entry(name(p)).or_default() += 1;
    }
    paths
        .iter()
        .map(|p| {
            let n = name(p);
            let shown = if count[&n] == 1 { n } else { p.clone() };
            (p.clone(), shown)
        })
        .collect()
}

/// An oracle's (or a sequence step's) assertions and references in the short form.
fn shorten(map: &mut serde_json::Map<String, Value>, names: &BTreeMap<String, String>) {
    if let Some(Value::Array(refs)) = map.get_mut("evidence_refs") {
        for r in refs.iter_mut() {
            if let Some(short) = short_ref(r, names) {
                *r = Value::String(short);
            }
        }
    }
    if let Some(Value::Array(assertions)) = map.get_mut("assertions") {
        for a in assertions.iter_mut() {
            if let Some(short) = short_assertion(a) {
                *a = short;
            }
        }
    }
    if let Some(Value::Array(steps)) = map.get_mut("steps") {
        for step in steps.iter_mut() {
            if let Value::Object(step) = step {
                shorten(step, names);
            }
        }
    }
}

/// `["status", 404]`, or `[field_path, op]` / `[field_path, op, expected]`; `None` for
/// a shape it does not know (left as written).
fn short_assertion(a: &Value) -> Option<Value> {
    let obj = a.as_object()?;
    match obj.get("type")?.as_str()? {
        "status" if obj.len() == 2 => Some(Value::Array(vec![
            Value::String("status".into()),
            obj.get("expected")?.clone(),
        ])),
        "field" => {
            let path = obj.get("field_path")?.clone();
            let op = obj.get("op")?.clone();
            let mut out = vec![path, op.clone()];
            let known = ["type", "field_path", "op", "expected"];
            if obj.keys().any(|k| !known.contains(&k.as_str())) {
                return None;
            }
            let expected = obj.get("expected").cloned().unwrap_or(Value::Null);
            let bare = matches!(op.as_str(), Some("not_null" | "is_null")) && expected.is_null();
            if !bare {
                out.push(expected);
            }
            Some(Value::Array(out))
        }
        _ => None,
    }
}

/// `file:start-end` (`file:start` for one line) for a reference with those three keys,
/// the file by the name `names` gives it.
fn short_ref(r: &Value, names: &BTreeMap<String, String>) -> Option<String> {
    let path = r.get("file")?.as_str()?;
    let file = names.get(path).map_or(path, String::as_str);
    let a = r.get("start_line")?.as_u64()?;
    let b = r.get("end_line")?.as_u64()?;
    Some(if a == b {
        format!("{file}:{a}")
    } else {
        format!("{file}:{a}-{b}")
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn suite() -> Vec<Value> {
        vec![
            json!({"test_id": "fv_a", "op_id": "GET /pets/{id}", "description": "d",
                   "assertions": [{"type": "status", "expected": 200},
                       {"type": "field", "field_path": "name", "op": "equals", "expected": "Rex"},
                       {"type": "field", "field_path": "", "op": "is_null", "expected": null}],
                   "evidence_refs": [{"file": "src/A.java", "start_line": 3, "end_line": 9},
                                     {"file": "src/x/B.java", "start_line": 4, "end_line": 4},
                                     {"file": "src/y/B.java", "start_line": 1, "end_line": 2}]}),
            json!({"test_id": "seq", "steps": [{"op_id": "POST /pets", "input": {},
                "assertions": [
                    {"type": "field", "field_path": "id", "op": "not_equals", "expected": null},
                    {"type": "status", "expected": 201}]}]}),
        ]
    }

    #[test]
    fn a_reviewer_reads_no_repeated_operation_and_short_references() {
        let text = review_lines(&suite());
        assert_eq!(text.lines().count(), 4, "{text}");
        let back: Vec<Value> = serde_json::from_str(&text).unwrap();
        assert!(back[0].get("op_id").is_none(), "{text}");
        assert_eq!(
            back[0]["evidence_refs"],
            json!(["A.java:3-9", "src/x/B.java:4", "src/y/B.java:1-2"]),
            "a file by its name, unless two cited files share it"
        );
        assert_eq!(
            back[0]["assertions"],
            json!([["status", 200], ["name", "equals", "Rex"], ["", "is_null"]])
        );
        // A step's operation is the step's own and stays; its assertions are short too.
        assert_eq!(back[1]["steps"][0]["op_id"], "POST /pets");
        assert_eq!(
            back[1]["steps"][0]["assertions"],
            json!([["id", "not_equals", null], ["status", 201]])
        );
        assert!(text.len() < crate::agents::runtime::to_prompt_lines(&suite()).len());
    }

    #[test]
    fn every_reviewer_is_told_the_short_form() {
        let form = crate::prompts::Prompts::embedded()
            .partial("review_form")
            .unwrap()
            .trim_end()
            .to_string();
        assert!(form.contains(r#"["status", 404]"#), "{form}");
        for name in ["single_op_challenger", "multi_op_challenger"] {
            let (text, _) = crate::prompts::EMBEDDED
                .iter()
                .find(|(n, _)| *n == name)
                .unwrap()
                .1
                .split_once(crate::prompts::USER_MARKER)
                .unwrap();
            assert!(text.contains("{{review_form}}"), "{name}");
        }
    }

    #[test]
    fn a_revision_reads_references_in_the_form_it_writes() {
        let back: Vec<Value> = serde_json::from_str(&revision_lines(&suite())).unwrap();
        assert!(back[0].get("op_id").is_none());
        assert_eq!(back[0]["evidence_refs"], suite()[0]["evidence_refs"]);
        assert_eq!(revision_lines::<Value>(&[]), "[]");
    }
}
