use super::*;
use crate::model::{Assertion, FieldOp};
use serde_json::json;

fn load(v: Value) -> LoadedSuite {
    from_value(v, Path::new("t.json")).unwrap()
}

#[test]
fn paper_format_loads_with_generated_ids_and_null_inputs() {
    let s = load(json!({"operations": [{
    "op_id": "GET /pets/{id}",
    "path_oracles": [
        {"path_index": 0, "description": "found",
         "input": {"path": {"id": 1}, "query": null, "body": null, "headers": null},
         "assertions": [{"type": "status", "expected": "200"},
                        {"type": "field", "field_path": "name", "op": "equals", "expected": "Rex"}],
         "evidence": "seed data", "oracle_strategy": "FV"},
        {"test_id": "flat", "input": {"id": "abc"},
         "assertions": [{"type": "status", "expected": 400}]}
    ]}]}));
    assert_eq!(s.format, SuiteFormat::Paper);
    assert!(s.problems.is_empty(), "{:?}", s.problems);
    let o = &s.suite.oracles;
    assert_eq!(o.len(), 2);
    assert_eq!(o[0].o_id(), "GET /pets/{id}#t1");
    assert_eq!(o[0].assertions[0], Assertion::Status { expected: 200 });
    assert_eq!(o[0].oracle_strategy, Some(crate::model::Strategy::Fv));
    assert_eq!(o[1].input.path["id"], json!("abc"));
}

#[test]
fn malformed_entries_are_reported_one_by_one_and_skipped() {
    let s = load(json!([
        {"op_id": "GET /pets", "test_id": "ok", "assertions": [{"type": "status", "expected": 200}]},
        {"op_id": "GET /pets", "test_id": "badop",
         "assertions": [{"type": "status", "expected": 200},
                        {"type": "field", "field_path": "x", "op": "frobnicate", "expected": 1}]},
        {"test_id": "noop", "assertions": [{"type": "status", "expected": 200}]},
        {"op_id": "GET /pets/{id}", "test_id": "noparam", "assertions": [{"type": "status", "expected": 200}]},
        {"op_id": "GET /pets", "test_id": "ok", "assertions": [{"type": "status", "expected": 200}]},
        {"op_id": "GET /pets", "test_id": "regex",
         "assertions": [{"type": "field", "field_path": "a", "op": "matches", "expected": "("}]},
        {"op_id": "GET /pets", "test_id": "empty", "assertions": []},
        {"op_id": "GET /pets", "test_id": "bind", "input": {"query": {"tag": "$captures.t"}},
         "assertions": [{"type": "status", "expected": 200}]}
    ]));
    assert_eq!(s.suite.oracles.len(), 1);
    let by_id: Vec<(usize, Option<&str>, &str)> = s
        .problems
        .iter()
        .map(|p| (p.index, p.test_id.as_deref(), p.message.as_str()))
        .collect();
    assert_eq!(by_id.len(), 7, "{by_id:?}");
    assert_eq!(by_id[0].0, 1);
    assert!(
        by_id[0].2.contains("assertion 1") && by_id[0].2.contains("frobnicate"),
        "{by_id:?}"
    );
    assert!(by_id[1].2.contains("op_id"));
    assert!(by_id[2].2.contains("`id`"));
    assert!(by_id[3].2.contains("duplicate"));
    assert!(by_id[4].2.contains("regex"));
    assert!(by_id[5].2.contains("no assertions"));
    assert!(by_id[6].2.contains("$captures.t"), "{by_id:?}");
    assert!(s.problems[0].to_string().contains("GET /pets#badop"));
}

#[test]
fn suite_file_and_sequences_with_undeclared_binds() {
    let s = load(json!({
        "schema_version": 1,
        "oracles": [],
        "multi_op": [
            {"test_id": "crud", "group_id": "pets", "steps": [
                {"op_id": "POST /pets", "input": {"body": {"name": "Bo"}}, "captures": {"id": "id"},
                 "assertions": [{"type": "status", "expected": 201}]},
                {"op_id": "GET /pets/{id}", "input": {"path": {"id": "$captures.id"}},
                 "assertions": [{"type": "field", "field_path": "id", "op": "equals", "expected": "$captures.id"},
                                {"type": "field", "field_path": "id", "op": "gte", "expected": "$captures.id"}]}
            ]},
            {"test_id": "bad", "group_id": "pets", "steps": [
                {"op_id": "GET /pets/{id}", "input": {"path": {"id": "$captures.nope"}},
                 "assertions": [{"type": "status", "expected": 200}]}
            ]}
        ],
        "review": {"pets#crud": "accepted", "x": "maybe"}
    }));
    assert_eq!(s.format, SuiteFormat::Suite);
    assert_eq!(s.suite.multi_op.len(), 1);
    assert_eq!(s.problems.len(), 2, "{:?}", s.problems);
    assert!(s.problems[0].message.contains("$captures.nope"));
    assert_eq!(s.suite.review["pets#crud"], ReviewState::Accepted);
}

#[test]
fn select_filters_by_state_and_op_and_rejects_unknown_ops() {
    let mut suite = load(json!([
        {"op_id": "GET /pets", "test_id": "a", "assertions": [{"type": "status", "expected": 200}]},
        {"op_id": "GET /stats", "test_id": "b",
         "assertions": [{"type": "field", "field_path": "total", "op": "gte", "expected": 0}]}
    ]))
    .suite;
    suite
        .review
        .insert("GET /pets#a".into(), ReviewState::Accepted);
    assert_eq!(select(&suite, Only::All, &[]).unwrap().oracles.len(), 2);
    let acc = select(&suite, Only::Accepted, &[]).unwrap();
    assert_eq!(acc.oracles.len(), 1);
    assert_eq!(acc.oracles[0].test_id, "a");
    let by_op = select(&suite, Only::All, &["get /stats".to_string()]).unwrap();
    assert_eq!(by_op.oracles.len(), 1);
    assert!(matches!(
        &by_op.oracles[0].assertions[0],
        Assertion::Field {
            op: FieldOp::Gte,
            ..
        }
    ));
    let e = select(&suite, Only::All, &["GET /nope".to_string()]).unwrap_err();
    assert!(e.contains("GET /nope"), "{e}");
}

#[test]
fn unknown_shapes_are_file_errors() {
    assert!(from_value(json!({"foo": 1}), Path::new("x.json")).is_err());
    assert!(from_value(json!({"schema_version": 99}), Path::new("x.json")).is_err());
}

#[test]
fn raw_body_and_verbatim_path_load_and_conflicts_name_the_oracle() {
    let s = load(json!([
        {"op_id": "POST /pets/{id}", "test_id": "raw",
         "input": {"path_raw": {"id": "a%2Bb"},
                   "raw_body": {"content_type": "application/json", "text": "{\"name\": "}},
         "assertions": [{"type": "status", "expected": 400}]},
        {"op_id": "POST /pets", "test_id": "both",
         "input": {"body": {"a": 1}, "raw_body": {"content_type": "text/plain", "text": "x"}},
         "assertions": [{"type": "status", "expected": 400}]},
        {"op_id": "GET /pets/{id}", "test_id": "twice",
         "input": {"path": {"id": 1}, "path_raw": {"id": "1"}},
         "assertions": [{"type": "status", "expected": 200}]},
        {"op_id": "GET /pets/{id}", "test_id": "slash", "input": {"path_raw": {"id": "a/b"}},
         "assertions": [{"type": "status", "expected": 200}]}
    ]));
    assert_eq!(s.suite.oracles.len(), 1, "{:?}", s.problems);
    let o = &s.suite.oracles[0];
    assert_eq!(o.input.path_raw["id"], "a%2Bb");
    assert_eq!(o.input.raw_body.as_ref().unwrap().text, "{\"name\": ");
    let problems: Vec<String> = s.problems.iter().map(ToString::to_string).collect();
    assert_eq!(problems.len(), 3, "{problems:?}");
    assert!(
        problems[0].contains("POST /pets#both") && problems[0].contains("`raw_body`"),
        "{problems:?}"
    );
    assert!(
        problems[1].contains("#twice") && problems[1].contains("`id` is in both"),
        "{problems:?}"
    );
    assert!(
        problems[2].contains("#slash") && problems[2].contains("one path segment"),
        "{problems:?}"
    );
    // Absent, the new keys leave the JSON as it was.
    let text = serde_json::to_string(&s.suite.oracles[0].input).unwrap();
    assert!(
        text.contains("path_raw") && text.contains("raw_body"),
        "{text}"
    );
    let plain = crate::model::OracleInput::default();
    assert_eq!(serde_json::to_string(&plain).unwrap(), "{}");
}
