//! Every spec of the shared corpus loads and lists exactly the documented number of
//! operations; a few real operations are checked field by field.
//!
//! The corpus lives in `shared/corpus/specs` beside the repository clone;
//! `MASTOR_CORPUS_DIR` overrides the location.

use mastor::model::ParamLocation;
use mastor::spec::{LoadedSpec, load};
use std::path::PathBuf;

/// (file, version, operations) from `shared/corpus/README.md`.
const EXPECTED: [(&str, &str, usize); 18] = [
    ("bibliothek.json", "3.0.1", 8),
    ("cwa-verification.json", "3.0.1", 5),
    ("familie-ba-sak.json", "3.0.1", 183),
    ("gestaohospital-rest.json", "2.0", 20),
    ("ocvn-rest.json", "2.0", 192),
    ("pay-publicapi.json", "3.0.1", 16),
    ("petstore31-code-first.json", "3.1.0", 3),
    ("petstore31-design-first.yaml", "3.1.1", 6),
    ("reservations-api.json", "3.0.1", 7),
    ("rest-news.json", "2.0", 7),
    ("restgo-erc20_openapi.yaml", "3.0.0", 13),
    ("restgo-news_openapi.yaml", "3.0.1", 7),
    ("restgo-problem_swagger.yaml", "2.0", 8),
    ("restgo-rest_swagger.yaml", "2.0", 68),
    ("restgo-springbatch_openapi.yaml", "3.0.1", 5),
    ("restgo-springboot_openapi.yaml", "3.0.1", 13),
    ("scout-api.json", "2.0", 49),
    ("session-service.json", "2.0", 8),
];

fn corpus_dir() -> PathBuf {
    let dir = std::env::var_os("MASTOR_CORPUS_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/specs")
        });
    assert!(
        dir.is_dir(),
        "spec corpus folder {} is missing: place `shared/` beside the repository clone \
         or set MASTOR_CORPUS_DIR to the folder holding the corpus specs",
        dir.display()
    );
    dir
}

fn load_corpus(name: &str) -> LoadedSpec {
    let path = corpus_dir().join(name);
    load(&path).unwrap_or_else(|e| panic!("{name} failed to load: {e}"))
}

#[test]
fn every_corpus_spec_lists_the_documented_operation_count() {
    let dir = corpus_dir();
    let mut on_disk: Vec<String> = std::fs::read_dir(&dir)
        .expect("corpus folder readable")
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().to_string())
        .collect();
    on_disk.sort();
    let mut listed: Vec<String> = EXPECTED.iter().map(|(f, _, _)| f.to_string()).collect();
    listed.sort();
    assert_eq!(
        on_disk, listed,
        "corpus files and the expected table differ"
    );

    let started = std::time::Instant::now();
    let mut failures = Vec::new();
    for (file, version, count) in EXPECTED {
        let spec = load_corpus(file);
        if spec.version != version {
            failures.push(format!("{file}: version {} != {version}", spec.version));
        }
        if spec.operations.len() != count {
            failures.push(format!(
                "{file}: {} operations, expected {count}",
                spec.operations.len()
            ));
        }
        let mut ids: Vec<&str> = spec.operations.iter().map(|o| o.op_id.as_str()).collect();
        ids.sort();
        ids.dedup();
        if ids.len() != spec.operations.len() {
            failures.push(format!("{file}: duplicate op_ids"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // Generous bound for slow CI machines; locally this is far below a second.
    assert!(
        started.elapsed().as_secs() < 10,
        "loading the corpus took {:?}",
        started.elapsed()
    );
}

#[test]
fn swagger2_body_param_becomes_request_body_with_resolved_definition() {
    let spec = load_corpus("gestaohospital-rest.json");
    let op = spec
        .operations
        .iter()
        .find(|o| o.op_id == "POST /v1/hospitais/")
        .expect("POST /v1/hospitais/ listed");
    let body = op
        .request_body
        .as_ref()
        .expect("body parameter → request_body");
    assert_eq!(body.media_type, "application/json");
    assert!(body.required);
    // `#/definitions/Hospital` inlined: its properties are here, no $ref left.
    assert!(
        body.schema["properties"]["availableBeds"].is_object(),
        "{}",
        body.schema
    );
    assert!(body.schema.get("$ref").is_none());
    assert!(
        op.parameters
            .iter()
            .all(|p| p.location != ParamLocation::Body)
    );
    assert_eq!(spec.base_path.as_deref(), Some("/"));
}

#[test]
fn openapi3_response_refs_are_inlined() {
    let spec = load_corpus("pay-publicapi.json");
    let op = spec
        .operations
        .iter()
        .find(|o| o.op_id == "GET /v1/agreements/{agreementId}")
        .expect("listed");
    assert_eq!(op.operation_id.as_deref(), Some("Get an agreement"));
    let path_param = &op.parameters[0];
    assert_eq!(
        (
            path_param.name.as_str(),
            path_param.location,
            path_param.required
        ),
        ("agreementId", ParamLocation::Path, true)
    );
    let ok = &op.responses["200"];
    assert_eq!(ok.media_type.as_deref(), Some("application/json"));
    let props = ok.schema["properties"]
        .as_object()
        .expect("Agreement inlined");
    assert!(props.contains_key("agreement_id") && props.contains_key("payment_instrument"));
    assert_eq!(
        op.responses["404"].schema["description"],
        "A Request Error response"
    );
    assert_eq!(op.responses["401"].schema, serde_json::Value::Null);
    assert_eq!(
        op.responses.keys().collect::<Vec<_>>(),
        vec!["200", "401", "404", "429", "500"]
    );
}

#[test]
fn recursive_swagger2_models_end_in_cycle_markers() {
    let spec = load_corpus("scout-api.json");
    assert_eq!(spec.base_path.as_deref(), Some("/api"));
    let op = spec
        .operations
        .iter()
        .find(|o| o.op_id == "PUT /v2/activities/{id}")
        .expect("listed");
    let body = op.request_body.as_ref().expect("body param");
    assert_eq!(body.media_type, "application/json");
    assert!(!body.required);
    let text = serde_json::to_string(&body.schema).expect("json");
    assert!(text.contains("\"x-mastor-cycle\":true"), "{text}");
}

#[test]
fn openapi31_specs_keep_3_1_features() {
    let code_first = load_corpus("petstore31-code-first.json");
    assert_eq!(code_first.base_path.as_deref(), Some("/api/v31"));
    let put = &code_first.operations[0];
    assert_eq!(put.op_id, "PUT /pet");
    let body = put.request_body.as_ref().expect("requestBody");
    // `$ref` siblings (3.1) are kept over the referenced schema.
    assert_eq!(body.schema["description"], "A Pet in JSON Format");
    assert_eq!(body.schema["writeOnly"], serde_json::json!(true));
    // `$id`-based ref resolved to the PetDetails schema.
    let details = &body.schema["properties"]["petDetails"];
    assert_eq!(details["$id"], "/api/v31/components/schemas/petdetails");
    // `$id#anchor` ref resolved to the anchored sub-schema.
    let id = &body.schema["properties"]["petDetailsId"];
    assert_eq!(id["$anchor"], "pet_details_id");

    let design_first = load_corpus("petstore31-design-first.yaml");
    assert_eq!(design_first.version, "3.1.1");
    let find = design_first
        .operations
        .iter()
        .find(|o| o.op_id == "GET /pet/findByStatus")
        .expect("listed");
    assert_eq!(find.parameters[0].name, "status");
    assert_eq!(find.parameters[0].schema["default"], "available");
}
