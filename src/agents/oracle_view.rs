//! How a suite's oracles are shown to the agents that read them back: the challenger and
//! the revision. A suite is the largest part of a review prompt, and much of it repeats
//! what the prompt already says once: the operation every oracle of the suite belongs
//! to, and the full form of each evidence reference, whose lines the prompt shows under
//! their file's header anyway. Both are left out here; nothing the reader decides on is.
//!
//! Both readers see each assertion short (a list instead of an object with its key names;
//! `prompts/partials/review_form.md` says how). The revision, which writes oracles back,
//! may keep that form in its answer: normalization reads it as the full form it stands
//! for (`normalize::parse`), so reading short costs no oracle.
//!
//! A revision's hints are shown grouped: a challenger often gives many oracles the same
//! hint word for word, and the revision needs the text once with the ids it applies to.

use crate::model::Hint;
use serde::Serialize;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};

/// The oracles for a reviewer or a revision: one compact JSON item a line, without the
/// suite's operation, assertions and evidence references short (as the prompts describe
/// them: the part `review_form`).
pub fn review_lines<T: Serialize>(items: &[T]) -> String {
    if items.is_empty() {
        return "[]".into();
    }
    let mut values: Vec<Value> = items
        .iter()
        .map(|i| serde_json::to_value(i).unwrap_or(Value::Null))
        .collect();
    let names = file_names(&values);
    let lines: Vec<String> = values
        .iter_mut()
        .map(|v| {
            if let Value::Object(map) = v {
                map.remove("op_id");
                shorten(map, &names);
            }
            serde_json::to_string(&v).unwrap_or_default()
        })
        .collect();
    format!("[\n{}\n]", lines.join(",\n"))
}

/// A revision's hints, one compact JSON item a line; hints that differ only in the
/// oracle they name (same dimension and text, no `affects`) are one item with
/// `"test_ids"`, in the order their first member had.
pub fn hint_lines(hints: &[&Hint]) -> String {
    if hints.is_empty() {
        return "[]".into();
    }
    let mut items: Vec<Value> = Vec::new();
    let mut group_of: BTreeMap<(String, String), usize> = BTreeMap::new();
    for h in hints {
        let key = (
            serde_json::to_string(&h.dimension).unwrap_or_default(),
            h.text.trim().to_string(),
        );
        if h.affects.is_empty() && h.test_id != crate::agents::challenge::SUITE {
            if let Some(&i) = group_of.get(&key) {
                let item = &mut items[i];
                if let Some(id) = item.as_object_mut().and_then(|m| m.remove("test_id")) {
                    item["test_ids"] = Value::Array(vec![id]);
                }
                if let Some(Value::Array(ids)) = item.get_mut("test_ids") {
                    ids.push(Value::String(h.test_id.clone()));
                }
                continue;
            }
            group_of.insert(key, items.len());
        }
        let mut v = serde_json::to_value(h).unwrap_or(Value::Null);
        if let Value::Object(map) = &mut v {
            map.remove("origin");
        }
        items.push(v);
    }
    let lines: Vec<String> = items
        .iter()
        .map(|v| serde_json::to_string(v).unwrap_or_default())
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
    fn every_reader_of_short_oracles_is_told_the_short_form() {
        let form = crate::prompts::Prompts::embedded()
            .partial("review_form")
            .unwrap()
            .trim_end()
            .to_string();
        assert!(form.contains(r#"["status", 404]"#), "{form}");
        for name in [
            "single_op_challenger",
            "multi_op_challenger",
            "single_op_regenerate",
            "multi_op_regenerate",
        ] {
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
    fn a_revision_reads_one_item_per_distinct_hint() {
        use crate::model::{HintDimension, HintOrigin};
        let hint = |id: &str, text: &str, affects: &[&str]| Hint {
            test_id: id.into(),
            dimension: HintDimension::StructuralCompleteness,
            text: text.into(),
            affects: affects.iter().map(|a| a.to_string()).collect(),
            origin: HintOrigin::Challenger,
        };
        let hints = [
            hint("fv_a", "add a body not_null", &[]),
            hint("bv_b", "add the 404 body", &[]),
            hint("bv_c", " add a body not_null ", &[]),
            hint("suite", "add a body not_null", &[]),
            hint("fv_d", "add a body not_null", &["fv_e"]),
            hint("fv_f", "add a body not_null", &[]),
        ];
        let refs: Vec<&Hint> = hints.iter().collect();
        let back: Vec<Value> = serde_json::from_str(&hint_lines(&refs)).unwrap();
        assert_eq!(back.len(), 4, "{back:?}");
        assert_eq!(back[0]["test_ids"], json!(["fv_a", "bv_c", "fv_f"]));
        assert!(back[0].get("test_id").is_none());
        assert_eq!(back[1]["test_id"], "bv_b");
        // A suite hint and one with `affects` keep their own item and ids.
        assert_eq!(back[2]["test_id"], "suite");
        assert_eq!(back[3]["affects"], json!(["fv_e"]));
        assert_eq!(hint_lines(&[]), "[]");
    }
}
