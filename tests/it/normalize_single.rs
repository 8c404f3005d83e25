//! Single-operation normalization: one test per rule, the paper's format, garbage.

use mastor::agents::normalize::{
    BundleIndex, NormalizeOptions, NormalizeOutcome, normalize_single, normalize_single_with, rule,
};
use mastor::model::{
    Assertion, ContextField, ErrorCase, Oracle, ResponseSchema, SourceContext, Strategy,
};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

const OP: &str = "GET /pets/{id}";

fn ctx(fields: &[&str], success: Option<u16>, errors: &[u16]) -> SourceContext {
    SourceContext {
        op_id: OP.into(),
        error_envelopes: vec![],
        request_params: vec![],
        response_schema: ResponseSchema {
            success_status: success,
            fields: fields
                .iter()
                .map(|f| ContextField {
                    name: f.to_string(),
                    ty: "string".into(),
                    nullable: false,
                })
                .collect(),
            error_cases: errors
                .iter()
                .map(|s| ErrorCase {
                    status: *s,
                    condition: "c".into(),
                    ..Default::default()
                })
                .collect(),
        },
        request_params_pending: vec![],
        response_schema_pending: vec![],
    }
}

fn bundle() -> BundleIndex {
    BundleIndex::from_files([("src/Pet.java", 50), ("src/PetController.java", 120)])
}

/// Normalization with `--keep-unreferenced`: unknown fields and statuses are flags.
fn keep(
    op: &str,
    raw: &Value,
    context: Option<&SourceContext>,
    bundle: &BundleIndex,
) -> NormalizeOutcome<Oracle> {
    let opts = NormalizeOptions {
        keep_unreferenced: true,
    };
    normalize_single_with(op, raw, context, bundle, opts)
}

fn run(raw: Value) -> NormalizeOutcome<Oracle> {
    normalize_single(OP, &raw, None, &BundleIndex::default())
}

/// A valid fv oracle with the given test_id.
fn fv(test_id: &str) -> Value {
    json!({
        "test_id": test_id, "op_id": OP, "oracle_strategy": "fv",
        "input": {"path": {"id": 1}},
        "assertions": [{"type": "status", "expected": 200},
                       {"type": "field", "field_path": "name", "op": "not_null"}]
    })
}

/// Counts that are not zero, for exact comparisons.
fn fired(o: &NormalizeOutcome<Oracle>) -> Vec<(String, usize)> {
    o.counts
        .iter()
        .filter(|(_, n)| **n > 0)
        .map(|(k, n)| (k.clone(), *n))
        .collect()
}

fn rules_of_flags(o: &NormalizeOutcome<Oracle>) -> Vec<(&str, &str)> {
    o.flags
        .iter()
        .map(|f| (f.test_id.as_str(), f.rule.as_str()))
        .filter(|(_, r)| *r != rule::UNVERIFIED_ERROR_FIELD)
        .collect()
}

/// The flags of `rule` only.
fn flags_of<'a>(o: &'a NormalizeOutcome<Oracle>, rule: &str) -> Vec<&'a str> {
    o.flags
        .iter()
        .filter(|f| f.rule == rule)
        .map(|f| f.test_id.as_str())
        .collect()
}

const LISTING4: &str = r#"[
 {"test_id": "fi_i_not_integer", "description": "FI: i is not an integer triggers 400",
  "input": {"path": {"i": "abc", "s": "test"}, "query": {}},
  "assertions": [{"type": "status", "expected": 400}],
  "evidence": "Spring cannot convert 'abc' to Integer for path variable i, resulting in 400 Bad Request.",
  "oracle_strategy": "fi"},
 {"test_id": "fv_i_5_s_baab", "description": "FV: i=5, s='baab' exercises sequential branch logic",
  "input": {"path": {"i": "5", "s": "baab"}, "query": {}},
  "assertions": [{"type": "status", "expected": 200},
                 {"type": "field", "field_path": "", "op": "not_null", "expected": null},
                 {"type": "field", "field_path": "", "op": "equals", "expected": "10"}],
  "evidence": "Costfuns.subject: i==5 sets result=1; sequential ifs overwrite.",
  "oracle_strategy": "fv"}
]"#;

#[test]
fn paper_listing4_passes_untouched() {
    let raw: Value = serde_json::from_str(LISTING4).unwrap();
    let context = ctx(&[], Some(200), &[]);
    let out = normalize_single(OP, &raw, Some(&context), &bundle());
    let mut expected: Vec<Oracle> = serde_json::from_value(raw).unwrap();
    for o in &mut expected {
        o.op_id = OP.into();
    }
    assert_eq!(out.kept, expected);
    assert!(out.dropped.is_empty() && out.flags.is_empty(), "{out:?}");
    assert_eq!(fired(&out), vec![(rule::MISSING_OP_ID.to_string(), 2)]);
    for r in rule::SINGLE {
        assert!(out.counts.contains_key(*r), "count for {r} missing");
    }
}

#[test]
fn accepts_wrapped_and_single_object_answers() {
    for raw in [
        json!({"oracles": [fv("a")]}),
        json!({"path_oracles": [fv("a")]}),
        fv("a"),
    ] {
        let out = run(raw.clone());
        assert_eq!(out.kept.len(), 1, "{raw}");
        assert_eq!(out.kept[0].test_id, "a");
    }
}

#[test]
fn malformed_entries_and_assertions() {
    let raw = json!([
        "just a string",
        {"test_id": "no_list", "assertions": "status 200"},
        {"test_id": "all_bad", "oracle_strategy": "fi",
         "assertions": [{"type": "weird"}, {"type": "field", "op": "equals"}]},
        {"test_id": "some_bad", "oracle_strategy": "fi",
         "assertions": [{"type": "status", "expected": "404"},
                        {"type": "field", "field_path": "a", "op": "bogus"},
                        {"type": "status", "expected": 42},
                        {"type": "field", "field_path": "a", "op": "matches", "expected": "(["},
                        {"type": "field", "field_path": "name", "op": "NOT_NULL"}]}
    ]);
    let out = run(raw);
    assert_eq!(out.kept.len(), 1);
    assert_eq!(
        out.kept[0].assertions,
        vec![
            Assertion::Status { expected: 404 },
            Assertion::Field {
                field_path: "name".into(),
                op: mastor::model::FieldOp::NotNull,
                expected: Value::Null
            }
        ]
    );
    let dropped: Vec<(&str, &str)> = out
        .dropped
        .iter()
        .map(|d| (d.test_id.as_str(), d.rule.as_str()))
        .collect();
    assert_eq!(
        dropped,
        vec![
            ("", "malformed"),
            ("no_list", "malformed"),
            ("all_bad", "malformed")
        ]
    );
    assert!(
        out.dropped[0].reason.contains("a string"),
        "{}",
        out.dropped[0].reason
    );
    assert_eq!(out.dropped[0].raw, json!("just a string"));
    // 3 dropped oracles + 2 bad assertions of all_bad + 3 of some_bad.
    assert_eq!(out.count(rule::MALFORMED), 8);
    let details: Vec<&str> = out
        .flags
        .iter()
        .filter(|f| f.test_id == "some_bad")
        .map(|f| f.detail.as_str())
        .collect();
    assert_eq!(details.len(), 3);
    assert!(details[0].contains("#2") && details[0].contains("unknown op `bogus`"));
    assert!(details[1].contains("#3") && details[1].contains("100-599"));
    assert!(details[2].contains("#4") && details[2].contains("does not compile"));
}

#[test]
fn strip_input_keys() {
    let mut o = fv("s");
    o["input"] = json!({"path": {"id": 1}, "cookies": {"a": 1}, "foo": 2, "query": "x=1",
                        "body": {"n": 1}, "headers": {"X-A": "1"}});
    let out = run(json!([o]));
    assert_eq!(out.kept.len(), 1);
    let input = serde_json::to_value(&out.kept[0].input).unwrap();
    assert_eq!(
        input,
        json!({"path": {"id": 1}, "body": {"n": 1}, "headers": {"X-A": "1"}})
    );
    assert_eq!(out.count(rule::STRIP_INPUT_KEYS), 3);
    let details: Vec<&str> = out.flags.iter().map(|f| f.detail.as_str()).collect();
    assert!(details.iter().any(|d| d.contains("`cookies`")));
    assert!(details.iter().any(|d| d.contains("`foo`")));
    assert!(
        details
            .iter()
            .any(|d| d.contains("`query`") && d.contains("not an object"))
    );
}

#[test]
fn input_aliases_and_flat_form() {
    let mut aliased = fv("a");
    aliased["input"] = json!({"path_params": {"id": 7}, "queryParams": {"q": "x"}});
    let mut flat = fv("b");
    flat.as_object_mut().unwrap().remove("input");
    flat["path"] = json!({"id": 8});
    let out = run(json!([aliased, flat]));
    assert_eq!(out.kept[0].input.path["id"], json!(7));
    assert_eq!(out.kept[0].input.query["q"], json!("x"));
    assert_eq!(out.kept[1].input.path["id"], json!(8));
    assert_eq!(out.count(rule::INPUT_ALIAS), 3);
    assert_eq!(out.count(rule::STRIP_INPUT_KEYS), 0);
}

#[test]
fn no_status_drops() {
    let raw = json!([{"test_id": "f", "oracle_strategy": "fv",
        "assertions": [{"type": "field", "field_path": "name", "op": "not_null"}]}]);
    let out = run(raw);
    assert!(out.kept.is_empty());
    assert_eq!(out.dropped.len(), 1);
    assert_eq!(
        (
            out.dropped[0].test_id.as_str(),
            out.dropped[0].rule.as_str()
        ),
        ("f", "no_status")
    );
    assert_eq!(out.count(rule::NO_STATUS), 1);
}

#[test]
fn no_field_fv_bv_drops_only_valid_strategies() {
    let status_only = |id: &str, s: &str| {
        json!({"test_id": id, "oracle_strategy": s, "input": {"query": {"case": id}},
               "assertions": [{"type": "status", "expected": 200}]})
    };
    let out = run(json!([
        status_only("fv1", "fv"),
        status_only("bv1", "BV"),
        status_only("fi1", "fi"),
        status_only("bi1", "bi")
    ]));
    let kept: Vec<&str> = out.kept.iter().map(|o| o.test_id.as_str()).collect();
    assert_eq!(kept, vec!["fi1", "bi1"]);
    assert_eq!(out.count(rule::NO_FIELD_FV_BV), 2);
    assert!(out.dropped.iter().all(|d| d.rule == "no_field_fv_bv"));
}

#[test]
fn unknown_field_flags_when_unreferenced_oracles_are_kept() {
    let raw = json!([{"test_id": "u", "oracle_strategy": "fv",
        "assertions": [{"type": "status", "expected": 200},
                       {"type": "field", "field_path": "owner.name", "op": "not_null"},
                       {"type": "field", "field_path": "name", "op": "not_null"},
                       {"type": "field", "field_path": "tags[0].label", "op": "not_null"},
                       {"type": "field", "field_path": "[*].id", "op": "not_null"},
                       {"type": "field", "field_path": "", "op": "not_null"}]}]);
    let context = ctx(&["id", "name", "tags"], Some(200), &[]);
    let out = keep(OP, &raw, Some(&context), &BundleIndex::default());
    assert_eq!(out.kept.len(), 1);
    assert_eq!(rules_of_flags(&out), vec![("u", "unknown_field")]);
    assert!(out.flags[0].detail.contains("owner.name"));
    // No fields in the context, or no context: no check.
    let none = keep(
        OP,
        &raw,
        Some(&ctx(&[], Some(200), &[])),
        &BundleIndex::default(),
    );
    assert_eq!(none.count(rule::UNKNOWN_FIELD), 0);
    assert_eq!(
        keep(OP, &raw, None, &BundleIndex::default()).count(rule::UNKNOWN_FIELD),
        0
    );
}

#[test]
fn unknown_status_flags_with_documented_exceptions_when_kept() {
    let o = |id: &str, s: &str, status: u16| {
        json!({"test_id": id, "oracle_strategy": s,
               "assertions": [{"type": "status", "expected": status},
                              {"type": "field", "field_path": "name", "op": "not_null"}]})
    };
    let raw = json!([
        o("ok", "fv", 200),
        o("nf", "fi", 404),
        o("boom", "fi", 500),
        o("fi400", "fi", 400)
    ]);
    let with_errors = ctx(&[], Some(200), &[404]);
    let out = keep(OP, &raw, Some(&with_errors), &BundleIndex::default());
    assert_eq!(out.kept.len(), 4);
    assert_eq!(
        rules_of_flags(&out),
        vec![("boom", "unknown_status"), ("fi400", "unknown_status")]
    );

    // No error cases: a 400 from an invalid-input strategy is the framework's own.
    let raw = json!([
        o("fi400", "fi", 400),
        o("bi400", "bi", 400),
        o("fv400", "fv", 400)
    ]);
    let no_errors = ctx(&[], Some(200), &[]);
    let out = keep(OP, &raw, Some(&no_errors), &BundleIndex::default());
    assert_eq!(rules_of_flags(&out), vec![("fv400", "unknown_status")]);

    // Unknown success status: any 2xx passes.
    let raw = json!([o("created", "fv", 201), o("gone", "fi", 410)]);
    let out = keep(
        OP,
        &raw,
        Some(&ctx(&[], None, &[404])),
        &BundleIndex::default(),
    );
    assert_eq!(rules_of_flags(&out), vec![("gone", "unknown_status")]);
}

#[test]
fn oracles_referencing_what_the_context_lacks_are_set_aside_with_reasons() {
    let o = |id: &str, s: &str, status: u16, field: &str| {
        json!({"test_id": id, "oracle_strategy": s,
               "assertions": [{"type": "status", "expected": status},
                              {"type": "field", "field_path": field, "op": "not_null"}]})
    };
    let raw = json!([
        o("ok", "fv", 200, "name"),
        o("boom", "fi", 500, "name"),
        o("owner", "fv", 200, "owner.name"),
        o("both", "fv", 418, "owner"),
        // Same id as a kept oracle: renamed so restoring it cannot collide.
        o("ok", "fi", 503, "name"),
        o("nf", "fi", 404, "name")
    ]);
    let context = ctx(&["id", "name"], Some(200), &[404]);
    let out = normalize_single(OP, &raw, Some(&context), &BundleIndex::default());
    let kept: Vec<&str> = out.kept.iter().map(|o| o.test_id.as_str()).collect();
    assert_eq!(kept, vec!["ok", "nf"]);
    let aside: Vec<&str> = out.set_aside.iter().map(|o| o.test_id.as_str()).collect();
    assert_eq!(aside, vec!["boom", "owner", "both", "ok_dropped"]);
    assert!(out.set_aside.iter().all(|o| o.op_id == OP));
    let dropped: Vec<(&str, &str)> = out
        .dropped
        .iter()
        .map(|d| (d.test_id.as_str(), d.rule.as_str()))
        .collect();
    assert_eq!(
        dropped,
        vec![
            ("boom", "unknown_status"),
            ("owner", "unknown_field"),
            // An error status: its fields are the error body's, which nothing here
            // describes, so only the status contradicts the context.
            ("both", "unknown_status"),
            ("ok", "unknown_status"),
        ]
    );
    assert!(out.dropped[0].reason.contains("status 500"));
    assert!(
        out.dropped[2].reason.contains("`owner`") && out.dropped[2].reason.contains("418"),
        "one entry lists every reason: {}",
        out.dropped[2].reason
    );
    // Counted once per oracle set aside, under its first problem's rule.
    assert_eq!(out.count(rule::UNKNOWN_STATUS), 3);
    assert_eq!(out.count(rule::UNKNOWN_FIELD), 1);
    // `nf` (a 404 the context lists) asserts an error-body field nothing describes: kept,
    // flagged.
    assert_eq!(flags_of(&out, rule::UNVERIFIED_ERROR_FIELD), vec!["nf"]);
    assert_eq!(rules_of_flags(&out), Vec::<(&str, &str)>::new());
    // Kept oracles pass again untouched; set-aside ones are set aside again.
    let again = normalize_single(
        OP,
        &serde_json::to_value(&out.kept).unwrap(),
        Some(&context),
        &BundleIndex::default(),
    );
    assert_eq!(again.kept, out.kept);
    let aside_again = normalize_single(
        OP,
        &serde_json::to_value(&out.set_aside).unwrap(),
        Some(&context),
        &BundleIndex::default(),
    );
    assert_eq!(aside_again.set_aside, out.set_aside);
}

#[test]
fn evidence_out_of_bundle_removes_refs_keeps_oracle() {
    let mut o = fv("e");
    o["evidence_refs"] = json!([
        {"file": "src/Pet.java", "start_line": 3, "end_line": 9},
        {"file": "./src/PetController.java", "start_line": 120, "end_line": 120},
        {"file": "src/Other.java", "start_line": 1, "end_line": 2},
        {"file": "src/Pet.java", "start_line": 40, "end_line": 51},
        {"file": "src/Pet.java", "start_line": 9, "end_line": 3},
        {"file": "src/Pet.java", "start_line": 0, "end_line": 3},
        "line 12"
    ]);
    let out = normalize_single(OP, &json!([o.clone()]), None, &bundle());
    assert_eq!(out.kept.len(), 1);
    let refs = serde_json::to_value(&out.kept[0].evidence_refs).unwrap();
    assert_eq!(
        refs,
        json!([{"file": "src/Pet.java", "start_line": 3, "end_line": 9},
               {"file": "src/PetController.java", "start_line": 120, "end_line": 120}])
    );
    assert_eq!(out.count(rule::EVIDENCE_OUT_OF_BUNDLE), 5);
    // Unknown bundle: refs are kept as written (paths tidied).
    let out = run(json!([o]));
    assert_eq!(out.kept[0].evidence_refs.len(), 6);
    assert_eq!(out.count(rule::EVIDENCE_OUT_OF_BUNDLE), 1);
}

#[test]
fn duplicates_merge_and_repeated_ids_are_renamed() {
    let a = fv("a");
    // Same content, keys and assertions in another order, different id.
    let b = json!({"oracle_strategy": "fv", "test_id": "b",
        "assertions": [{"op": "not_null", "field_path": "name", "type": "field"},
                       {"expected": 200, "type": "status"}],
        "input": {"path": {"id": 1}}});
    let mut a_other = fv("a");
    a_other["input"]["path"]["id"] = json!(2);
    let mut a_third = fv("a");
    a_third["input"]["path"]["id"] = json!(3);
    let a2 = {
        let mut x = fv("a_2");
        x["input"]["path"]["id"] = json!(4);
        x
    };
    let out = run(json!([a, b, a_other, a_third, a2]));
    let ids: Vec<&str> = out.kept.iter().map(|o| o.test_id.as_str()).collect();
    assert_eq!(ids, vec!["a", "a_3", "a_4", "a_2"]);
    assert_eq!(out.dropped.len(), 1);
    assert_eq!(out.dropped[0].test_id, "b");
    assert_eq!(out.dropped[0].rule, "duplicate");
    assert!(out.dropped[0].reason.contains("`a`"));
    assert_eq!(out.count(rule::DUPLICATE), 1);
    assert_eq!(out.count(rule::DUPLICATE_TEST_ID), 2);
    assert_eq!(
        out.summary(),
        "kept 4, dropped 1, flags 2 (duplicate 1, duplicate_test_id 2, missing_op_id 1)"
    );
}

#[test]
fn missing_ids_and_strategies() {
    let raw = json!([
        {"oracle_strategy": "Forward-Valid", "op_id": "GET /elsewhere",
         "assertions": [{"type": "status", "expected": 200},
                        {"type": "field", "field_path": "name", "op": "not_null"}]},
        {"oracle_strategy": "sideways", "assertions": [{"type": "status", "expected": 200}]},
        {"test_id": 7, "assertions": [{"type": "status", "expected": 201}]}
    ]);
    let out = run(raw);
    let ids: Vec<&str> = out.kept.iter().map(|o| o.test_id.as_str()).collect();
    assert_eq!(ids, vec!["fv_1", "oracle_2", "7"]);
    assert_eq!(out.kept[0].oracle_strategy, Some(Strategy::Fv));
    assert_eq!(out.kept[1].oracle_strategy, None);
    assert!(out.kept.iter().all(|o| o.op_id == OP));
    assert_eq!(
        rules_of_flags(&out),
        vec![
            ("fv_1", "missing_test_id"),
            ("fv_1", "op_id_mismatch"),
            ("oracle_2", "missing_test_id"),
            ("oracle_2", "unknown_strategy"),
            ("7", "unknown_strategy"),
        ]
    );
    assert_eq!(out.count(rule::MISSING_OP_ID), 2);
}

#[test]
fn garbage_never_panics() {
    let garbage = [
        json!("oracles"),
        json!(42),
        json!(null),
        json!(true),
        json!({}),
        json!({"oracles": "none"}),
        json!([[[[]]], {}, null, 1.5, {"assertions": [null, [], {"type": null}]}]),
        json!([{"test_id": {"x": 1}, "input": [1, 2], "assertions": [{"type": "status", "expected": -1},
              {"type": "status", "expected": 1e300}, {"type": "field", "field_path": 3, "op": "equals"}],
              "evidence": {"a": [1]}, "evidence_refs": {"file": 1}, "oracle_strategy": 5}]),
        json!([{"assertions": [{"type": "status", "expected": 200}], "input": {"path": [1], "body": null},
              "evidence_refs": [{"file": "a", "start_line": -1, "end_line": "x"}]}]),
    ];
    for g in garbage {
        let out = normalize_single(OP, &g, Some(&ctx(&["id"], Some(200), &[])), &bundle());
        let again = normalize_single(
            OP,
            &serde_json::to_value(&out.kept).unwrap(),
            Some(&ctx(&["id"], Some(200), &[])),
            &bundle(),
        );
        assert_eq!(again.kept, out.kept, "{g}");
        if !g.is_array() && g.get("oracles").is_none_or(|v| !v.is_array()) {
            assert!(out.kept.is_empty());
            assert_eq!(out.count(rule::MALFORMED), 1, "{g}");
        }
    }
}

#[test]
fn normalizing_kept_output_again_changes_nothing() {
    let mut messy = vec![serde_json::from_str::<Value>(LISTING4).unwrap()[1].clone()];
    let mut x = fv("a");
    x["input"]["junk"] = json!(1);
    x["evidence_refs"] = json!([{"file": "./src/Pet.java", "start_line": 1, "end_line": 2},
                                 {"file": "nope", "start_line": 1, "end_line": 2}]);
    messy.push(x);
    messy.push(fv("a"));
    let mut y = fv("a");
    y["input"]["path"]["id"] = json!(9);
    messy.push(y);
    messy.push(
        json!({"oracle_strategy": "fi", "assertions": [{"type": "status", "expected": "404"},
                      {"type": "nope"}]}),
    );
    let context = ctx(&["name"], Some(200), &[404]);
    let first = normalize_single(OP, &Value::Array(messy), Some(&context), &bundle());
    assert_eq!(first.kept.len(), 4, "{first:?}");
    let second = normalize_single(
        OP,
        &serde_json::to_value(&first.kept).unwrap(),
        Some(&context),
        &bundle(),
    );
    assert_eq!(second.kept, first.kept);
    assert!(second.dropped.is_empty());
    assert_eq!(
        second.count(rule::STRIP_INPUT_KEYS) + second.count(rule::EVIDENCE_OUT_OF_BUNDLE),
        0
    );
}

#[test]
fn the_short_form_a_revision_reads_is_read_back_as_the_full_form() {
    let full = json!({
        "test_id": "fi_a", "op_id": OP, "oracle_strategy": "fi",
        "input": {"path": {"id": "x"}},
        "assertions": [{"type": "status", "expected": 400},
                       {"type": "field", "field_path": "error", "op": "equals", "expected": "bad id"},
                       {"type": "field", "field_path": "", "op": "not_null", "expected": null}],
        "evidence_refs": [{"file": "src/Pet.java", "start_line": 3, "end_line": 9},
                          {"file": "src/PetController.java", "start_line": 120, "end_line": 120}]
    });
    let short: Vec<Value> = serde_json::from_str(&mastor::agents::oracle_view::review_lines(
        std::slice::from_ref(&full),
    ))
    .unwrap();
    assert_eq!(
        short[0]["assertions"][0],
        json!(["status", 400]),
        "read short"
    );
    let from_full = normalize_single(OP, &json!([full]), None, &bundle());
    let from_short = normalize_single(OP, &json!(short), None, &bundle());
    assert_eq!(from_short.kept, from_full.kept);
    assert!(from_short.flags.is_empty(), "{:?}", from_short.flags);

    // Short shapes it cannot read are flagged as any malformed assertion is; a file name
    // two sent files share, or no sent file has, is not guessed.
    let mut o = fv("g");
    o["assertions"] = json!([["status", 200], ["name"], ["name", "not_null"], 7]);
    o["evidence_refs"] = json!(["Pet.java:2-3", "Ghost.java:1", "Pet.java:x"]);
    let two = BundleIndex::from_files([("src/a/Pet.java", 50), ("src/b/Pet.java", 50)]);
    let out = normalize_single(OP, &json!([o.clone()]), None, &two);
    assert_eq!(out.kept[0].assertions.len(), 2);
    assert!(out.kept[0].evidence_refs.is_empty());
    assert_eq!(out.count(rule::MALFORMED), 2);
    assert_eq!(out.count(rule::EVIDENCE_OUT_OF_BUNDLE), 3);
    let out = normalize_single(OP, &json!([o]), None, &bundle());
    let refs = serde_json::to_value(&out.kept[0].evidence_refs).unwrap();
    assert_eq!(
        refs,
        json!([{"file": "src/Pet.java", "start_line": 2, "end_line": 3}])
    );
}
