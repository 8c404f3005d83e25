//! Operation-specific response schemas: the enums they carry, that every value they allow
//! survives normalization, the fallback above the size limits, and that the schema reaches
//! the provider in a real pipeline run (scripted server, llama.cpp request shape).

use crate::support;

use mastor::agents::groups::Group;
use mastor::agents::normalize::{BundleIndex, normalize_single};
use mastor::agents::schemas::{self, MAX_ENUM, MAX_SCHEMA_BYTES, fixed};
use mastor::llm::scripted::ScriptedServer;
use mastor::metamorphic::check::parse_candidate;
use mastor::model::{SourceContext, SpecOperation};
use serde_json::{Value, json};
use std::collections::HashMap;
use support::*;

fn spec_op(method: &str, path: &str, params: Value, responses: Value) -> SpecOperation {
    serde_json::from_value(
        json!({"op_id": format!("{method} {path}"), "method": method,
        "path": path, "parameters": params, "responses": responses}),
    )
    .unwrap()
}

fn get_pet() -> SpecOperation {
    spec_op(
        "GET",
        "/pets/{petId}",
        json!([{"name": "petId", "location": "path", "required": true},
               {"name": "verbose", "location": "query"}]),
        json!({"200": {"schema": {"type": "object", "properties": {"id": {}, "name": {}}}},
               "404": {}, "default": {}}),
    )
}

fn list_pets() -> SpecOperation {
    spec_op(
        "GET",
        "/pets",
        json!([{"name": "limit", "location": "query"}]),
        json!({"200": {"schema": {"type": "array", "items": {"type": "object",
            "properties": {"id": {}, "name": {}}}}}}),
    )
}

fn pet_context(op_id: &str, fields: &[&str], success: u16, errors: &[u16]) -> SourceContext {
    serde_json::from_value(json!({"op_id": op_id,
        "request_params": [
            {"name": "petId", "location": "path", "type": "long", "required": true},
            {"name": "verbose", "location": "query", "type": "boolean"},
            {"name": "X-Trace", "location": "header", "type": "String"}],
        "response_schema": {"success_status": success,
            "fields": fields.iter().map(|f| json!({"name": f, "type": "String"})).collect::<Vec<_>>(),
            "error_cases": errors.iter().map(|s| json!({"status": s, "condition": "c"})).collect::<Vec<_>>()}}))
    .unwrap()
}

/// The oracle item schema and the branches of its assertion `anyOf`.
fn oracle_item(schema: &Value) -> (&Value, &Vec<Value>) {
    let item = &schema["properties"]["oracles"]["items"];
    let branches = item["properties"]["assertions"]["items"]["anyOf"]
        .as_array()
        .expect("assertions are a union");
    (item, branches)
}

fn status_enum(schema: &Value) -> Vec<u64> {
    let (_, branches) = oracle_item(schema);
    branches[0]["properties"]["expected"]["enum"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap())
        .collect()
}

fn path_enum(schema: &Value) -> Vec<String> {
    let (_, branches) = oracle_item(schema);
    let paths = branches[1]["properties"]["field_path"]["enum"]
        .as_array()
        .expect("field_path is an enum");
    for b in &branches[2..] {
        assert_eq!(
            b["properties"]["field_path"],
            branches[1]["properties"]["field_path"]
        );
    }
    paths
        .iter()
        .map(|v| v.as_str().unwrap().to_string())
        .collect()
}

#[test]
fn single_op_schema_enumerates_statuses_fields_and_params() {
    let op = get_pet();
    let ctx = pet_context(&op.op_id, &["id", "name", "owner.email"], 200, &[400, 404]);
    let built = schemas::for_single_op(Some(&op), Some(&ctx));
    assert_eq!(built.fallback, None);
    let s = &built.schema;
    assert_eq!(status_enum(s), vec![200, 400, 404]);
    assert_eq!(path_enum(s), vec!["", "id", "name", "owner.email"]);
    let (item, _) = oracle_item(s);
    let input = &item["properties"]["input"];
    assert_eq!(input["required"], json!(["path"]));
    assert_eq!(input["additionalProperties"], json!(false));
    let path = &input["properties"]["path"];
    assert_eq!(path["required"], json!(["petId"]));
    assert_eq!(path["additionalProperties"], json!(false));
    let keys = |v: &Value| {
        v["properties"]
            .as_object()
            .unwrap()
            .keys()
            .cloned()
            .collect::<Vec<_>>()
    };
    assert_eq!(keys(path), vec!["petId"]);
    assert_eq!(keys(&input["properties"]["query"]), vec!["verbose"]);
    assert_eq!(
        input["properties"]["query"]["additionalProperties"],
        json!(false)
    );
    assert_eq!(keys(&input["properties"]["headers"]), vec!["X-Trace"]);
    assert_eq!(
        item["properties"]["oracle_strategy"]["enum"],
        json!(["fv", "fi", "bv", "bi"])
    );
    assert_eq!(s["properties"]["oracles"]["minItems"], json!(1));
    assert_eq!(item["properties"]["assertions"]["minItems"], json!(1));
}

#[test]
fn statuses_follow_normalization_exceptions_and_spec_without_context() {
    let op = get_pet();
    // No error case: the framework's 400 is allowed, as `unknown_status` allows it.
    let ctx = pet_context(&op.op_id, &["id"], 200, &[]);
    let s = schemas::for_single_op(Some(&op), Some(&ctx)).schema;
    assert_eq!(status_enum(&s), vec![200, 400]);
    // No context: the spec's numeric codes ("default" ignored), field paths free.
    let s = schemas::for_single_op(Some(&op), None).schema;
    assert_eq!(status_enum(&s), vec![200, 404]);
    let (_, branches) = oracle_item(&s);
    assert_eq!(
        branches[1]["properties"]["field_path"],
        json!({"type": "string"})
    );
    // Nothing known at all: integer statuses, free objects.
    let s = schemas::for_single_op(None, None).schema;
    let (item, branches) = oracle_item(&s);
    assert_eq!(
        branches[0]["properties"]["expected"],
        json!({"type": "integer"})
    );
    assert_eq!(
        item["properties"]["input"]["properties"]["path"],
        json!({"type": "object"})
    );
}

#[test]
fn array_bodies_get_element_paths() {
    let op = list_pets();
    let mut ctx = pet_context(&op.op_id, &["id", "name"], 200, &[]);
    ctx.request_params.retain(|p| p.location == "query");
    let s = schemas::for_single_op(Some(&op), Some(&ctx)).schema;
    assert_eq!(
        path_enum(&s),
        vec!["", "[*].id", "[0].id", "[*].name", "[0].name"]
    );
    let (item, _) = oracle_item(&s);
    let input = &item["properties"]["input"];
    assert_eq!(input.get("required"), None, "no path parameter to require");
    assert_eq!(input["properties"]["path"]["properties"], json!({}));
}

/// Every status and field path the schema allows, written as an oracle, is kept by
/// normalization with no `unknown_status` or `unknown_field` flag.
#[test]
fn every_allowed_value_survives_normalization() {
    for (op, fields) in [
        (get_pet(), vec!["id", "name", "owner.email"]),
        (list_pets(), vec!["id", "name"]),
    ] {
        for errors in [vec![400, 404], vec![]] {
            let ctx = pet_context(&op.op_id, &fields, 200, &errors);
            let s = schemas::for_single_op(Some(&op), Some(&ctx)).schema;
            let mut oracles = Vec::new();
            for (i, status) in status_enum(&s).into_iter().enumerate() {
                oracles.push(
                    json!({"test_id": format!("st_{i}"), "oracle_strategy": "fi",
                    "input": {"path": {"petId": "x"}, "query": {"verbose": "q"}},
                    "assertions": [{"type": "status", "expected": status}]}),
                );
            }
            for (i, path) in path_enum(&s).into_iter().enumerate() {
                oracles.push(json!({"test_id": format!("fp_{i}"), "oracle_strategy": "fv",
                    "input": {"path": {"petId": "1"}},
                    "assertions": [{"type": "status", "expected": 200},
                        {"type": "field", "field_path": path, "op": "not_null", "expected": null},
                        {"type": "field", "field_path": path, "op": "type", "expected": "string"},
                        {"type": "field", "field_path": path, "op": "matches", "expected": "^.+$"}]}));
            }
            let n = oracles.len();
            let out = normalize_single(
                &op.op_id,
                &json!({"oracles": oracles}),
                Some(&ctx),
                &BundleIndex::default(),
            );
            assert_eq!(out.kept.len(), n, "{}: dropped {:?}", op.op_id, out.dropped);
            assert!(out.flags.is_empty(), "{}: flags {:?}", op.op_id, out.flags);
        }
    }
}

#[test]
fn oversized_schemas_fall_back_to_the_static_one() {
    let op = get_pet();
    let many: Vec<String> = (0..MAX_ENUM + 1).map(|i| format!("f{i}")).collect();
    let refs: Vec<&str> = many.iter().map(String::as_str).collect();
    let ctx = pet_context(&op.op_id, &refs, 200, &[404]);
    let built = schemas::for_single_op(Some(&op), Some(&ctx));
    assert_eq!(built.schema, fixed::oracles());
    assert!(built.fallback.unwrap().contains("enum limit"));

    // Under the enum limit but long names: over the byte limit.
    let long: Vec<String> = (0..MAX_ENUM / 2)
        .map(|i| format!("{}_{i}", "x".repeat(90)))
        .collect();
    let refs: Vec<&str> = long.iter().map(String::as_str).collect();
    let ctx = pet_context(&op.op_id, &refs, 200, &[404]);
    let built = schemas::for_single_op(Some(&op), Some(&ctx));
    assert_eq!(built.schema, fixed::oracles());
    assert!(
        built
            .fallback
            .unwrap()
            .contains(&MAX_SCHEMA_BYTES.to_string())
    );

    // Just under both limits: tailored.
    let ok: Vec<String> = (0..40).map(|i| format!("field_{i}")).collect();
    let refs: Vec<&str> = ok.iter().map(String::as_str).collect();
    let ctx = pet_context(&op.op_id, &refs, 200, &[404]);
    assert_eq!(schemas::for_single_op(Some(&op), Some(&ctx)).fallback, None);
}

#[test]
fn list_agents_enumerate_their_names() {
    let ids = ["fv_1", "fi_2"];
    let s = schemas::for_hints(&ids, false).schema;
    let item = &s["properties"]["hints"]["items"]["properties"];
    assert_eq!(item["test_id"]["enum"], json!(["fv_1", "fi_2", "suite"]));
    assert!(
        !item["dimension"]["enum"]
            .as_array()
            .unwrap()
            .contains(&json!("sequence_logic"))
    );
    let s = schemas::for_hints(&ids, true).schema;
    assert!(
        s["properties"]["hints"]["items"]["properties"]["dimension"]["enum"]
            .as_array()
            .unwrap()
            .contains(&json!("sequence_logic"))
    );

    let ops = vec![POST.to_string(), GET.to_string()];
    let s = schemas::for_discovery(&ops).schema;
    assert_eq!(
        s["properties"]["matches"]["items"]["properties"]["op_id"]["enum"],
        json!([POST, GET])
    );
    let s = schemas::for_groups(&ops).schema;
    let step = &s["properties"]["groups"]["items"]["properties"]["sequence"]["items"];
    assert_eq!(step["properties"]["op_id"]["enum"], json!([POST, GET]));
    // Nothing to enumerate: static.
    assert_eq!(schemas::for_discovery(&[]).schema, fixed::discovery());
}

#[test]
fn multi_op_steps_are_the_group_operations() {
    let (get, list) = (get_pet(), list_pets());
    let group: Group =
        serde_json::from_value(json!({"group_id": "g", "pattern": "identifier_flow",
        "sequence": [{"op_id": list.op_id, "captures": {"pid": "[0].id"}},
                     {"op_id": get.op_id, "binds": {"path.petId": "pid"}}]}))
        .unwrap();
    let mut contexts = HashMap::new();
    contexts.insert(
        get.op_id.clone(),
        pet_context(&get.op_id, &["id", "name"], 200, &[404]),
    );
    let ops = [get.clone(), list.clone()];
    let built = schemas::for_multi_op(&group, &contexts, |id| ops.iter().find(|o| o.op_id == id));
    assert_eq!(built.fallback, None);
    let steps =
        built.schema["properties"]["oracles"]["items"]["properties"]["steps"]["items"]["anyOf"]
            .as_array()
            .unwrap()
            .clone();
    let ids: Vec<&Value> = steps
        .iter()
        .map(|s| &s["properties"]["op_id"]["const"])
        .collect();
    assert_eq!(
        ids,
        vec![&json!(list.op_id), &json!(get.op_id)],
        "in sequence order"
    );
    let get_step = &steps[1]["properties"];
    assert_eq!(
        get_step["input"]["properties"]["path"]["required"],
        json!(["petId"])
    );
    assert_eq!(
        get_step["captures"]["additionalProperties"]["enum"],
        json!(["", "id", "name"])
    );
    // The list operation has no context: spec statuses, free field paths.
    let list_step = &steps[0]["properties"];
    assert_eq!(
        list_step["captures"]["additionalProperties"],
        json!({"type": "string"})
    );
    assert_eq!(
        list_step["assertions"]["items"]["anyOf"][0]["properties"]["expected"]["enum"],
        json!([200])
    );
}

#[test]
fn metamorphic_schema_names_spec_operations_and_operands() {
    let ops = [get_pet(), list_pets()];
    let built = schemas::for_mr_generator(&ops, Some(3));
    assert_eq!(built.fallback, None);
    let s = &built.schema;
    assert_eq!(s["properties"]["tests"]["maxItems"], json!(3));
    let test = &s["properties"]["tests"]["items"]["properties"];
    let steps = test["seed"]["items"]["anyOf"].as_array().unwrap();
    assert_eq!(
        steps[0]["properties"]["op_id"]["const"],
        json!("GET /pets/{petId}")
    );
    assert_eq!(steps[0]["required"], json!(["op_id", "input"]));
    assert_eq!(steps[1]["required"], json!(["op_id"]));
    let rel = &test["relations"]["items"]["properties"];
    assert!(
        rel["op"]["enum"]
            .as_array()
            .unwrap()
            .contains(&json!("count_diff"))
    );
    let pattern = regex::Regex::new(rel["left"]["pattern"].as_str().unwrap()).unwrap();
    for ok in [
        "seed[0].status",
        "follow_up[2].body",
        "seed[1].body.name",
        "follow_up[0].body[*].id",
    ] {
        assert!(pattern.is_match(ok), "{ok}");
    }
    for bad in ["seed[2].body", "follow_up[0].body.colour", "output.status"] {
        assert!(!pattern.is_match(bad), "{bad}");
    }
    // A candidate written in the schema's shape parses as an executable test.
    let candidate = json!({"test_id": "t", "scenario": "s", "given": "g", "when": "w", "then": "t",
        "seed": [{"op_id": "GET /pets"}],
        "follow_up": [{"op_id": "GET /pets/{petId}", "input": {"path": {"petId": 1}},
                       "assertions": [{"type": "status", "expected": 200}]}],
        "relations": [{"left": "seed[0].body[*].id", "op": "contains", "right": "follow_up[0].body.id"}]});
    parse_candidate(&candidate, "t").unwrap();
    // The generator reads the operations back from its prompt text.
    let text = mastor::agents::metamorphic::spec_text(&ops);
    let back = schemas::for_mr_generator(&mastor::agents::metamorphic::spec_ops(&text), Some(3));
    assert_eq!(&back.schema, s);
    // The refiner's variant also lists drops; no spec operation: static.
    let refiner = schemas::for_mr_generator(&ops, None).schema;
    assert!(refiner["properties"].get("dropped").is_some());
    assert_eq!(
        schemas::for_mr_generator(&[], Some(2)).schema,
        schemas::mr_generator()
    );
    if let Ok(dir) = std::env::var("OP_SCHEMAS_DUMP") {
        let ctx = pet_context(&ops[0].op_id, &["id", "name", "tag"], 200, &[400, 404]);
        let single = schemas::for_single_op(Some(&ops[0]), Some(&ctx)).schema;
        for (name, v) in [("single", &single), ("mr", s)] {
            std::fs::write(format!("{dir}/{name}.json"), v.to_string()).unwrap();
        }
    }
}

/// A pipeline run with the llama.cpp provider sends the tailored schema of GET
/// /pets/{petId} with its single_op request.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pipeline_sends_operation_schema_to_llamacpp() {
    let server = ScriptedServer::start(petstore_script()).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("session");
    let out_s = out.to_str().unwrap().to_string();
    let mut args = vec![
        "run",
        "tests/fixtures/petstore-jdk",
        "--out",
        &out_s,
        "--json",
    ];
    for op in [POST, GET, DELETE] {
        args.extend(["--op", op]);
    }
    let mut cmd = mastor_cmd(&server.base_url(), dir.path(), &args);
    cmd.current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("MASTOR_PROVIDER", "llamacpp");
    let output = tokio::task::block_in_place(|| cmd.output().unwrap());
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let requests = server.requests();
    let get = requests
        .iter()
        .find(|r| r.agent.as_deref() == Some("single_op") && r.op.as_deref() == Some(GET))
        .expect("a single_op request for GET");
    let format = &get.body["response_format"];
    assert_eq!(format["type"], json!("json_object"));
    let schema = &format["schema"];
    assert_eq!(status_enum(schema), vec![200, 400, 404]);
    assert_eq!(path_enum(schema), vec!["", "id", "name", "status"]);
    let (item, _) = oracle_item(schema);
    assert_eq!(
        item["properties"]["input"]["properties"]["path"]["required"],
        json!(["petId"])
    );
    let hints = requests
        .iter()
        .find(|r| {
            r.agent.as_deref() == Some("single_op_challenger") && r.op.as_deref() == Some(GET)
        })
        .expect("a challenger request for GET");
    let ids = &hints.body["response_format"]["schema"]["properties"]["hints"]["items"]["properties"]
        ["test_id"]["enum"];
    assert_eq!(
        ids,
        &json!(["fv_get_rex", "fi_bad_id", "bi_missing", "suite"])
    );
}
