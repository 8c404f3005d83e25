//! Multi-operation normalization: one test per rule, captures and binds.

use mastor::agents::normalize::{
    BundleIndex, KnownOps, NormalizeOutcome, find_captures, normalize_multi, rule,
};
use mastor::model::{
    ContextField, MultiOpOracle, ParamLocation, ResponseSchema, SourceContext, SpecOperation,
};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use std::collections::{BTreeMap, HashMap};

const GROUP: &str = "pets_lifecycle";

fn context(op_id: &str, fields: &[&str]) -> SourceContext {
    SourceContext {
        op_id: op_id.into(),
        error_envelopes: vec![],
        request_params: vec![],
        response_schema: ResponseSchema {
            success_status: Some(200),
            fields: fields
                .iter()
                .map(|f| ContextField {
                    name: f.to_string(),
                    ty: "string".into(),
                    nullable: false,
                })
                .collect(),
            error_cases: vec![],
        },
        request_params_pending: vec![],
        response_schema_pending: vec![],
    }
}

fn contexts() -> HashMap<String, SourceContext> {
    let mut create = context("POST /pets", &["id", "name"]);
    create.response_schema.success_status = Some(201);
    [("POST /pets".to_string(), create)]
        .into_iter()
        .chain([(
            "GET /pets/{id}".to_string(),
            context("GET /pets/{id}", &["id", "name"]),
        )])
        .chain([("DELETE /pets/{id}".to_string(), {
            let mut delete = context("DELETE /pets/{id}", &[]);
            delete.response_schema.success_status = Some(204);
            delete
        })])
        .collect()
}

fn known() -> KnownOps {
    KnownOps::from_op_ids(["POST /pets", "GET /pets/{id}", "DELETE /pets/{id}"])
}

fn run(raw: Value) -> NormalizeOutcome<MultiOpOracle> {
    normalize_multi(GROUP, &raw, &contexts(), &known(), &BundleIndex::default())
}

/// Create a pet, then read it back through the captured id.
fn create_then_get(test_id: &str) -> Value {
    json!({
        "test_id": test_id,
        "description": "created pet is readable",
        "steps": [
            {"op_id": "POST /pets", "input": {"body": {"name": "rex"}},
             "captures": {"pet_id": "id"},
             "assertions": [{"type": "status", "expected": 201},
                            {"type": "field", "field_path": "id", "op": "not_null"}]},
            {"op_id": "GET /pets/{id}", "input": {"path": {"id": "$captures.pet_id"}},
             "assertions": [{"type": "status", "expected": 200},
                            {"type": "field", "field_path": "id", "op": "equals",
                             "expected": "$captures.pet_id"}]}
        ],
        "evidence": "PetController.create then get"
    })
}

fn dropped(o: &NormalizeOutcome<MultiOpOracle>) -> Vec<(&str, &str)> {
    o.dropped
        .iter()
        .map(|d| (d.test_id.as_str(), d.rule.as_str()))
        .collect()
}

#[test]
fn a_well_formed_sequence_passes_untouched() {
    let raw = json!({"oracles": [create_then_get("seq_a")]});
    let out = run(raw.clone());
    let mut expected: MultiOpOracle = serde_json::from_value(create_then_get("seq_a")).unwrap();
    expected.group_id = GROUP.into();
    assert_eq!(out.kept, vec![expected]);
    assert!(out.dropped.is_empty() && out.flags.is_empty(), "{out:?}");
    let fired: Vec<(&str, usize)> = out
        .counts
        .iter()
        .filter(|(_, n)| **n > 0)
        .map(|(k, n)| (k.as_str(), *n))
        .collect();
    assert_eq!(fired, vec![("missing_group_id", 1)]);
    for r in rule::MULTI {
        assert!(out.counts.contains_key(*r), "count for {r} missing");
    }
    // Idempotent.
    let again = run(serde_json::to_value(&out.kept).unwrap());
    assert_eq!(again.kept, out.kept);
    assert_eq!(again.count(rule::MISSING_GROUP_ID), 0);
}

#[test]
fn malformed_sequences() {
    let mut no_op = create_then_get("no_op");
    no_op["steps"][1].as_object_mut().unwrap().remove("op_id");
    let mut method_path = create_then_get("method_path");
    method_path["steps"][1] = json!({"method": "get", "path": "/pets/{id}",
        "input": {"path": {"id": "$captures.pet_id"}},
        "assertions": [{"type": "status", "expected": 200}]});
    let mut no_assertions = create_then_get("no_assertions");
    no_assertions["steps"][0]
        .as_object_mut()
        .unwrap()
        .remove("assertions");
    let out = run(json!([
        {"test_id": "no_steps", "steps": []},
        {"test_id": "step_str", "steps": ["POST /pets"]},
        no_op,
        method_path,
        no_assertions,
        7
    ]));
    assert_eq!(
        dropped(&out),
        vec![
            ("no_steps", "malformed"),
            ("step_str", "malformed"),
            ("no_op", "malformed"),
            ("no_assertions", "malformed"),
            ("", "malformed"),
        ]
    );
    assert_eq!(out.kept.len(), 1);
    assert_eq!(out.kept[0].steps[1].op_id, "GET /pets/{id}");
    assert!(out.dropped[2].reason.contains("step #2 has no op_id"));

    // `path` beside `method` names the operation; it is not read as an input.
    let mut delete = create_then_get("delete");
    delete["steps"][1] = json!({"method": "DELETE", "path": "/pets/{id}",
        "assertions": [{"type": "status", "expected": 204}]});
    let out = run(json!([delete]));
    assert_eq!(out.kept.len(), 1);
    assert_eq!(out.kept[0].steps[1].op_id, "DELETE /pets/{id}");
    assert!(out.flags.is_empty(), "{:?}", out.flags);
}

#[test]
fn unknown_op_drops() {
    let mut o = create_then_get("dogs");
    o["steps"][1]["op_id"] = json!("GET /dogs/{id}");
    let out = run(json!([o]));
    assert_eq!(dropped(&out), vec![("dogs", "unknown_op")]);
    assert!(out.dropped[0].reason.contains("GET /dogs/{id}"));
}

#[test]
fn step_without_status_drops() {
    let mut o = create_then_get("nostatus");
    o["steps"][1]["assertions"] = json!([{"type": "field", "field_path": "id", "op": "not_null"},
                                         {"type": "status", "expected": "x"}]);
    let out = run(json!([o]));
    assert_eq!(dropped(&out), vec![("nostatus", "no_status")]);
    assert!(out.dropped[0].reason.contains("step #2"));
    assert_eq!(
        out.count(rule::MALFORMED),
        1,
        "the bad status assertion is removed first"
    );
}

#[test]
fn capture_of_an_undeclared_field_drops() {
    let mut o = create_then_get("owner");
    o["steps"][0]["captures"] = json!({"pet_id": "id", "owner": "owner.id"});
    // DELETE has a context without fields: its captures are not checked.
    let mut unchecked = create_then_get("unchecked");
    unchecked["steps"][1] = json!({"op_id": "DELETE /pets/{id}",
        "input": {"path": {"id": "$captures.pet_id"}}, "captures": {"anything": "whatever"},
        "assertions": [{"type": "status", "expected": 204}]});
    let out = run(json!([o, unchecked]));
    assert_eq!(dropped(&out), vec![("owner", "undeclared_capture")]);
    assert!(out.dropped[0].reason.contains("owner.id"));
    assert_eq!(out.kept.len(), 1);
}

#[test]
fn binds_must_come_from_earlier_steps() {
    let mut unknown = create_then_get("unknown");
    unknown["steps"][1]["input"]["path"]["id"] = json!("$captures.other");
    let mut same_step = create_then_get("same_step");
    same_step["steps"][0]["input"]["body"]["name"] = json!("$captures.pet_id");
    let mut in_string = create_then_get("in_string");
    in_string["steps"][1]["input"]["headers"] = json!({"X-Ref": "/pets/$captures.nope/x"});
    let mut in_expected = create_then_get("in_expected");
    in_expected["steps"][1]["assertions"][1]["expected"] = json!({"a": ["$captures.later"]});
    let out = run(json!([unknown, same_step, in_string, in_expected]));
    assert_eq!(
        dropped(&out),
        vec![
            ("unknown", "unbound_capture"),
            ("same_step", "unbound_capture"),
            ("in_string", "unbound_capture"),
            ("in_expected", "unbound_capture"),
        ]
    );
    assert!(out.dropped[2].reason.contains("$captures.nope"));
}

#[test]
fn bind_into_a_missing_path_parameter_drops() {
    let mut o = create_then_get("petid");
    o["steps"][1]["input"]["path"] = json!({"petId": "$captures.pet_id"});
    let out = run(json!([o]));
    assert_eq!(dropped(&out), vec![("petid", "bad_path_bind")]);
    assert!(out.dropped[0].reason.contains("petId"));
}

#[test]
fn step_inputs_are_stripped_and_ids_fixed() {
    let mut o = create_then_get("x");
    o["steps"][1]["input"]["cookie"] = json!({"s": 1});
    o["group_id"] = json!("other_group");
    let mut unnamed = create_then_get("");
    unnamed["steps"][0]["input"]["body"]["name"] = json!("max");
    let out = run(json!([o, unnamed]));
    assert_eq!(out.kept.len(), 2);
    assert_eq!(out.kept[1].test_id, "seq_2");
    assert!(out.kept.iter().all(|k| k.group_id == GROUP));
    let flags: Vec<(&str, &str)> = out
        .flags
        .iter()
        .map(|f| (f.test_id.as_str(), f.rule.as_str()))
        .collect();
    assert_eq!(
        flags,
        vec![
            ("x", "group_id_mismatch"),
            ("x", "strip_input_keys"),
            ("seq_2", "missing_test_id"),
        ]
    );
    assert!(out.flags[1].detail.starts_with("step #2: "));
}

#[test]
fn duplicate_sequences_merge_and_ids_are_renamed() {
    let a = create_then_get("a");
    let b = create_then_get("b");
    let mut a_other = create_then_get("a");
    a_other["steps"][0]["input"]["body"]["name"] = json!("max");
    let out = run(json!([a, b, a_other]));
    let ids: Vec<&str> = out.kept.iter().map(|o| o.test_id.as_str()).collect();
    assert_eq!(ids, vec!["a", "a_2"]);
    assert_eq!(dropped(&out), vec![("b", "duplicate")]);
    assert_eq!(out.count(rule::DUPLICATE_TEST_ID), 1);
}

#[test]
fn evidence_refs_checked_against_the_bundle() {
    let mut o = create_then_get("ev");
    o["evidence_refs"] = json!([{"file": "A.java", "start_line": 1, "end_line": 5},
                                {"file": "A.java", "start_line": 1, "end_line": 6}]);
    let bundle = BundleIndex::from_files([("A.java", 5)]);
    let out = normalize_multi(GROUP, &json!([o]), &contexts(), &known(), &bundle);
    assert_eq!(out.kept[0].evidence_refs.len(), 1);
    assert_eq!(out.count(rule::EVIDENCE_OUT_OF_BUNDLE), 1);
}

#[test]
fn find_captures_finds_names_anywhere() {
    let v = json!({
        "path": {"id": "$captures.pet_id"},
        "body": {"owner": ["x", {"ref": "/owners/$captures.owner_id/pets/$captures.pet_id"}]},
        "n": 3,
        "deep": "$captures.pet.id and $capture.not and captures.nor",
        "$captures.key_is_not_searched": 1
    });
    assert_eq!(find_captures(&v), vec!["pet_id", "owner_id", "pet"]);
    assert!(find_captures(&json!("$captures.")).is_empty());
    assert!(find_captures(&json!(null)).is_empty());
}

#[test]
fn known_ops_from_spec_and_from_ids_agree() {
    let op = SpecOperation {
        op_id: "GET /owners/{ownerId}/pets/{ petId }".into(),
        method: "GET".into(),
        path: "/owners/{ownerId}/pets/{ petId }".into(),
        operation_id: None,
        tags: vec![],
        summary: None,
        parameters: vec![mastor::model::SpecParameter {
            name: "ownerId".into(),
            location: ParamLocation::Path,
            required: true,
            schema: Value::Null,
            description: None,
        }],
        request_body: None,
        responses: BTreeMap::new(),
        extensions: BTreeMap::new(),
        excluded: None,
    };
    let from_spec = KnownOps::from_spec(std::slice::from_ref(&op));
    let from_ids = KnownOps::from_op_ids([op.op_id.as_str()]);
    assert_eq!(from_spec, from_ids);
    assert_eq!(
        from_spec.path_params(&op.op_id),
        Some(vec!["ownerId".to_string(), "petId".to_string()])
    );
    assert_eq!(from_spec.path_params("GET /nope"), None);
}

#[test]
fn a_step_status_or_field_the_context_lacks_sets_the_sequence_aside() {
    let mut status = create_then_get("status");
    status["steps"][1]["assertions"][0]["expected"] = json!(404);
    let mut field = create_then_get("field");
    field["steps"][1]["assertions"][1]["field_path"] = json!("owner.name");
    let raw = json!([status, field, create_then_get("fine")]);
    let out = run(raw.clone());
    assert_eq!(
        dropped(&out),
        vec![("status", "unknown_status"), ("field", "unknown_field")]
    );
    assert!(
        out.dropped[0].reason.contains("step #2: status 404"),
        "{:?}",
        out.dropped
    );
    assert!(out.dropped[1].reason.contains("owner.name"));
    let kept: Vec<&str> = out.kept.iter().map(|m| m.test_id.as_str()).collect();
    assert_eq!(kept, vec!["fine"]);
    let aside: Vec<&str> = out.set_aside.iter().map(|m| m.test_id.as_str()).collect();
    assert_eq!(
        aside,
        vec!["status", "field"],
        "set aside in normalized form"
    );
    assert_eq!(out.set_aside[0].group_id, GROUP);

    // The old behaviour on request: kept, with flags.
    let opts = mastor::agents::normalize::NormalizeOptions {
        keep_unreferenced: true,
    };
    let keep = mastor::agents::normalize::normalize_multi_with(
        GROUP,
        &raw,
        &contexts(),
        &known(),
        &BundleIndex::default(),
        opts,
    );
    assert_eq!(keep.kept.len(), 3);
    assert!(keep.set_aside.is_empty() && keep.dropped.is_empty());
    let flagged: Vec<(&str, &str)> = keep
        .flags
        .iter()
        .map(|f| (f.test_id.as_str(), f.rule.as_str()))
        .collect();
    assert_eq!(
        flagged,
        vec![
            // Step 2 expects a 404 the context does not list: its `name` is an error-body
            // field nothing describes (flagged), the status a contradiction.
            ("status", "unverified_error_field"),
            ("status", "unknown_status"),
            ("field", "unknown_field")
        ]
    );
}

/// One bind grammar: a capture name with `-` runs in the runner and the exporters, so
/// normalization must accept it too (it used to call `$captures.pet-id` unbound).
#[test]
fn capture_names_follow_the_one_bind_grammar() {
    let mut o = create_then_get("dashed");
    o["steps"][0]["captures"] = json!({"pet-id": "id"});
    o["steps"][1]["input"]["path"]["id"] = json!("$captures.pet-id");
    o["steps"][1]["assertions"][1]["expected"] = json!("$captures.pet-id");
    let out = run(json!([o]));
    assert!(out.dropped.is_empty(), "{:?}", out.dropped);
    assert_eq!(out.kept.len(), 1);
    assert_eq!(
        find_captures(&json!({"a": "/pets/$captures.pet-id/x", "b": "$captures.pet.id"})),
        vec!["pet-id".to_string(), "pet".to_string()]
    );
}
