//! Loader behaviour on small hand-written specs: errors, refs, cycles, parameter
//! merging, Swagger 2.0 bodies and forms, and garbage input.

use mastor::model::{ParamLocation, SpecOperation};
use mastor::spec::{LoadOptions, LoadedSpec, SpecError, load, load_with};
use pretty_assertions::assert_eq;
use serde_json::json;
use std::path::PathBuf;

fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/specs")
        .join(name)
}

fn ok(name: &str) -> LoadedSpec {
    load(&data(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn op<'a>(spec: &'a LoadedSpec, id: &str) -> &'a SpecOperation {
    spec.operations
        .iter()
        .find(|o| o.op_id == id)
        .unwrap_or_else(|| panic!("{id} not listed"))
}

const STRICT: LoadOptions = LoadOptions { strict_refs: true };

#[test]
fn missing_file_is_io_error_naming_the_file() {
    let err = load(&data("does_not_exist.yaml")).unwrap_err();
    assert!(matches!(err, SpecError::Io { .. }), "{err:?}");
    assert!(err.to_string().contains("does_not_exist.yaml"), "{err}");
}

#[test]
fn broken_json_names_file_line_and_column() {
    let err = load(&data("broken.json")).unwrap_err();
    let SpecError::Parse { line, format, .. } = &err else {
        panic!("{err:?}")
    };
    assert_eq!((*format, *line), ("JSON", 4));
    assert!(err.to_string().contains("broken.json:4:"), "{err}");
}

#[test]
fn broken_yaml_names_file_and_line() {
    let err = load(&data("broken.yaml")).unwrap_err();
    let SpecError::Parse { line, format, .. } = &err else {
        panic!("{err:?}")
    };
    assert_eq!(*format, "YAML");
    assert!(*line >= 5, "line {line}");
    assert!(
        err.to_string().contains(&format!("broken.yaml:{line}:")),
        "{err}"
    );
}

#[test]
fn json_without_version_key_is_not_a_spec() {
    let err = load(&data("not_a_spec.json")).unwrap_err();
    assert!(matches!(err, SpecError::NotASpec { .. }), "{err:?}");
    assert!(err.to_string().contains("not_a_spec.json"), "{err}");
    assert!(err.to_string().contains("swagger"), "{err}");
}

#[test]
fn spec_without_paths_is_not_a_spec() {
    let err = load(&data("no_paths.yaml")).unwrap_err();
    let SpecError::NotASpec { reason, .. } = &err else {
        panic!("{err:?}")
    };
    assert!(reason.contains("paths"), "{reason}");
}

#[test]
fn swagger_1_2_is_unsupported() {
    let err = load(&data("swagger12.json")).unwrap_err();
    let SpecError::UnsupportedVersion { version, .. } = &err else {
        panic!("{err:?}")
    };
    assert_eq!(version, "1.2");
    assert!(err.to_string().contains("swagger12.json"), "{err}");
}

#[test]
fn dangling_schema_ref_is_a_warning_by_default_and_an_error_when_strict() {
    let spec = ok("dangling_schema_ref.yaml");
    let schema = &op(&spec, "GET /things").responses["200"].schema;
    assert_eq!(schema["x-mastor-unresolved"], json!(true));
    assert_eq!(spec.warnings.len(), 1, "{:?}", spec.warnings);
    assert!(spec.warnings[0].contains("#/components/schemas/Missing"));

    let err = load_with(&data("dangling_schema_ref.yaml"), STRICT).unwrap_err();
    let SpecError::UnresolvedRef {
        reference,
        used_at,
        file,
    } = &err
    else {
        panic!("{err:?}")
    };
    assert_eq!(reference, "#/components/schemas/Missing");
    assert_eq!(
        used_at,
        "/paths/~1things/get/responses/200/content/application~1json/schema"
    );
    assert!(file.ends_with("dangling_schema_ref.yaml"));
}

#[test]
fn dangling_parameter_ref_is_always_an_error() {
    let err = load(&data("dangling_param_ref.json")).unwrap_err();
    let SpecError::UnresolvedRef {
        reference, used_at, ..
    } = &err
    else {
        panic!("{err:?}")
    };
    assert_eq!(reference, "#/parameters/NoSuchParam");
    assert_eq!(used_at, "/paths/~1things~1{id}/get/parameters/0");
    assert!(err.to_string().contains("dangling_param_ref.json"), "{err}");
}

#[test]
fn self_referencing_schema_terminates_with_cycle_marker() {
    let spec = ok("cycles.yaml");
    let schema = &op(&spec, "GET /tree").responses["200"].schema;
    assert_eq!(schema["title"], "Tree node");
    let inner = &schema["properties"]["children"]["items"];
    assert_eq!(
        inner,
        &json!({"$ref": "#/components/schemas/Node", "x-mastor-cycle": true, "title": "Tree node"})
    );
}

#[test]
fn mutually_recursive_schemas_terminate() {
    let spec = ok("cycles.yaml");
    let schema = &op(&spec, "GET /pair").responses["200"].schema;
    // A → B → (A again: marker)
    let back = &schema["properties"]["b"]["properties"]["a"];
    assert_eq!(back["$ref"], "#/components/schemas/A");
    assert_eq!(back["x-mastor-cycle"], json!(true));
}

#[test]
fn path_level_parameters_merge_and_operation_wins_on_name_and_location() {
    let spec = ok("merge.yaml");
    let get = op(&spec, "GET /pets/{petId}");
    let names: Vec<(&str, ParamLocation)> = get
        .parameters
        .iter()
        .map(|p| (p.name.as_str(), p.location))
        .collect();
    assert_eq!(
        names,
        vec![
            ("petId", ParamLocation::Path),
            ("X-Trace", ParamLocation::Header),
            ("petId", ParamLocation::Query),
        ]
    );
    assert_eq!(
        get.parameters[0].description.as_deref(),
        Some("operation-level")
    );
    assert_eq!(
        get.parameters[0].schema,
        json!({"type": "integer", "format": "int64"})
    );
    // Same name, other location: kept apart.
    assert_eq!(get.parameters[2].schema, json!({"type": "boolean"}));
    // An operation without its own parameters gets the path-level ones.
    let delete = op(&spec, "DELETE /pets/{petId}");
    assert_eq!(delete.parameters.len(), 2);
    assert_eq!(
        delete.parameters[0].description.as_deref(),
        Some("path-level")
    );
    assert_eq!(spec.base_path.as_deref(), Some("/v1"));
}

#[test]
fn extensions_come_from_operation_and_path_item() {
    let spec = ok("merge.yaml");
    let get = op(&spec, "GET /pets/{petId}");
    assert_eq!(
        get.extensions["x-swagger-router-controller"],
        json!("PetController")
    );
    assert_eq!(get.extensions["x-rate-limit"], json!(10));
    assert_eq!(get.operation_id.as_deref(), Some("getPet"));
}

#[test]
fn openapi3_request_body_and_response_refs_resolve_preferring_json() {
    let spec = ok("merge.yaml");
    let post = op(&spec, "POST /pets");
    let body = post.request_body.as_ref().expect("request body");
    assert_eq!(body.media_type, "application/json;charset=UTF-8");
    assert!(body.required);
    // 3.1 style nullable type list kept as written.
    assert_eq!(
        body.schema["properties"]["nickname"]["type"],
        json!(["string", "null"])
    );
    let created = &post.responses["201"];
    assert_eq!(created.description, "created");
    assert_eq!(created.media_type.as_deref(), Some("application/json"));
    assert_eq!(created.schema["type"], "object");
}

#[test]
fn swagger2_form_data_becomes_form_params_and_multipart_body() {
    let spec = ok("form.json");
    let upload = op(&spec, "POST /upload");
    assert!(
        upload
            .parameters
            .iter()
            .all(|p| p.location == ParamLocation::Form)
    );
    assert_eq!(
        upload.parameters[1].schema,
        json!({"type": "string", "maxLength": 20})
    );
    let body = upload.request_body.as_ref().expect("form body");
    assert_eq!(body.media_type, "multipart/form-data");
    assert!(body.required);
    assert_eq!(body.schema["properties"]["file"], json!({"type": "file"}));
    assert_eq!(body.schema["required"], json!(["file"]));
    // `produces` lists xml first; json is preferred.
    let ok200 = &upload.responses["200"];
    assert_eq!(ok200.media_type.as_deref(), Some("application/json"));
    assert_eq!(ok200.schema["properties"]["ok"]["type"], "boolean");

    let login = op(&spec, "POST /login");
    let body = login.request_body.as_ref().expect("form body");
    assert_eq!(body.media_type, "application/x-www-form-urlencoded");
    let age = login
        .parameters
        .iter()
        .find(|p| p.name == "age")
        .expect("age");
    assert_eq!(age.location, ParamLocation::Query);
    assert_eq!(
        age.schema,
        json!({"type": "integer", "maximum": 150, "minimum": 0, "enum": [1, 2]})
    );
}

#[test]
fn swagger2_body_param_uses_global_consumes_and_pointer_escapes() {
    let spec = ok("form.json");
    let put = op(&spec, "PUT /items");
    assert!(put.parameters.is_empty());
    let body = put.request_body.as_ref().expect("body");
    assert_eq!(body.media_type, "application/json");
    // `Weird~1Name~0x` → definition `Weird/Name~x`; `Pct%7Bx%7D` → `Pct{x}`.
    assert_eq!(body.schema["properties"]["pct"], json!({"type": "integer"}));
    assert_eq!(put.responses["200"].description, "fine");
    assert_eq!(put.responses["200"].schema, json!({"type": "string"}));
    assert_eq!(spec.base_path.as_deref(), Some("/api"));
    assert_eq!(spec.version, "2.0");
}

#[test]
fn external_file_refs_resolve_relative_to_the_referring_file() {
    let spec = ok("external/main.yaml");
    assert_eq!(spec.operations.len(), 2);
    let pets = op(&spec, "GET /pets");
    assert_eq!(pets.operation_id.as_deref(), Some("listPets"));
    let item = &pets.responses["200"].schema["items"];
    assert_eq!(
        item["properties"]["owner"]["properties"]["name"]["type"],
        "string"
    );
    let owners = op(&spec, "GET /owners");
    assert_eq!(
        owners.responses["200"].schema["properties"]["name"]["type"],
        "string"
    );
}

#[test]
fn missing_external_file_is_unresolved_ref_when_strict() {
    let err = load_with(&data("external_missing.yaml"), STRICT).unwrap_err();
    let SpecError::UnresolvedRef { reference, .. } = &err else {
        panic!("{err:?}")
    };
    assert_eq!(reference, "no_such_file.yaml#/Thing");
}

#[test]
fn garbage_inputs_give_errors_not_panics() {
    let dir = tempfile::tempdir().expect("tempdir");
    let cases: [(&str, &[u8]); 12] = [
        ("empty.json", b""),
        ("empty.yaml", b""),
        ("null.yaml", b"~\n"),
        ("list.json", b"[1, 2, 3]"),
        ("binary.yaml", &[0xff, 0xfe, 0x00, 0x41, 0x80]),
        ("string.yaml", b"just a sentence"),
        ("paths_list.yaml", b"openapi: 3.0.0\npaths: [1, 2]\n"),
        (
            "version_obj.json",
            b"{\"swagger\": {\"x\": 1}, \"paths\": {}}",
        ),
        ("nested.json", &[b'['; 10_000]),
        ("tabs.yaml", b"openapi: 3.0.0\npaths:\n\t/a: 1\n"),
        ("dup.yaml", b"openapi: 3.0.0\nopenapi: 3.0.1\npaths: {}\n"),
        ("alias.yaml", b"a: &x [*x]\n"),
    ];
    for (name, bytes) in cases {
        let path = dir.path().join(name);
        std::fs::write(&path, bytes).expect("write");
        let err = load(&path).expect_err(name);
        assert!(err.to_string().contains(name), "{name}: {err}");
    }
}

#[test]
fn odd_but_valid_pieces_are_skipped_with_warnings() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("odd.yaml");
    let text = "openapi: 3.0.0\npaths:\n  /a:\n    get: 5\n    post:\n      parameters:\n        - in: query\n        - name: q\n          in: matrix\n      responses:\n        200: {description: ok}\n  x-ext: {}\n";
    std::fs::write(&path, text).expect("write");
    let spec = load(&path).expect("loads");
    assert_eq!(spec.operations.len(), 1);
    let post = &spec.operations[0];
    assert!(post.parameters.is_empty());
    // YAML integer status key read as "200".
    assert_eq!(post.responses["200"].description, "ok");
    assert_eq!(spec.warnings.len(), 3, "{:?}", spec.warnings);
}

#[test]
fn exponential_schema_fan_out_is_bounded() {
    // S0 has 8 properties referring to S1, S1 eight to S2, ... : 8^10 nodes if inlined.
    let mut schemas = serde_json::Map::new();
    for level in 0..10 {
        let mut props = serde_json::Map::new();
        for i in 0..8 {
            let target = if level == 9 {
                json!({"type": "string"})
            } else {
                json!({"$ref": format!("#/definitions/S{}", level + 1)})
            };
            props.insert(format!("p{i}"), target);
        }
        schemas.insert(
            format!("S{level}"),
            json!({"type": "object", "properties": props}),
        );
    }
    let doc = json!({
        "swagger": "2.0",
        "paths": {"/big": {"get": {"responses": {"200": {
            "description": "big", "schema": {"$ref": "#/definitions/S0"}}}}}},
        "definitions": schemas,
    });
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("big.json");
    std::fs::write(&path, doc.to_string()).expect("write");
    let started = std::time::Instant::now();
    let spec = load(&path).expect("loads");
    let size = serde_json::to_string(&spec.operations).expect("json").len();
    assert!(size < 5_000_000, "inlined output is {size} bytes");
    assert!(
        started.elapsed().as_secs() < 5,
        "took {:?}",
        started.elapsed()
    );
    assert!(
        spec.warnings.iter().any(|w| w.contains("unexpanded")),
        "{:?}",
        spec.warnings
    );
    let text = serde_json::to_string(&spec.operations[0].responses["200"].schema).expect("json");
    assert!(text.contains("x-mastor-truncated"));
}

#[test]
fn error_messages_read_well() {
    for (name, expected) in [
        ("broken.json", "broken.json:4:"),
        ("broken.yaml", "not valid YAML"),
        ("not_a_spec.json", "is not an OpenAPI/Swagger spec"),
        ("swagger12.json", "spec version 1.2 is not supported"),
        (
            "dangling_param_ref.json",
            "unresolved $ref \"#/parameters/NoSuchParam\"",
        ),
    ] {
        let err = load(&data(name)).expect_err(name);
        let text = err.to_string();
        assert!(text.contains(expected), "{name}: {text}");
        assert!(!text.contains("at line"), "position given twice: {text}");
    }
}

#[test]
fn a_shared_schema_inlines_the_same_everywhere() {
    let spec = ok("merge.yaml");
    let post = op(&spec, "POST /pets");
    let body = &post.request_body.as_ref().expect("body").schema;
    assert_eq!(body, &post.responses["201"].schema);
    let spec = ok("cycles.yaml");
    let tree = &op(&spec, "GET /tree").responses["200"].schema;
    let again = ok("cycles.yaml");
    assert_eq!(tree, &op(&again, "GET /tree").responses["200"].schema);
}
