//! Bounded property tests of the readers of outside input: the spec loader, the suite
//! parser, field paths and captures. None may panic or hang on any input; each runs a
//! few hundred cases so the whole file stays within seconds. Inputs that once broke a
//! reader are kept below as regression cases.

use mastor::runner::binds::{Captures, capture, substitute};
use mastor::runner::path::FieldPath;
use proptest::prelude::*;
use serde_json::{Map, Value, json};
use std::collections::BTreeMap;
use std::path::Path;

/// Keys that make the loaders take their interesting branches.
const KEYS: &[&str] = &[
    "openapi",
    "swagger",
    "paths",
    "$ref",
    "components",
    "schemas",
    "parameters",
    "responses",
    "requestBody",
    "content",
    "application/json",
    "schema",
    "get",
    "post",
    "in",
    "name",
    "required",
    "basePath",
    "servers",
    "url",
    "definitions",
    "items",
    "properties",
    "allOf",
    "oneOf",
    "anyOf",
    "/pets",
    "/pets/{id}",
    "200",
    "default",
    "oracles",
    "sequences",
    "metamorphic",
    "test_id",
    "op_id",
    "assertions",
    "type",
    "status",
    "field",
    "field_path",
    "op",
    "expected",
    "input",
    "path",
    "query",
    "body",
    "steps",
    "captures",
    "relations",
    "seed",
    "follow_up",
    "left",
    "right",
];

fn scalar() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        "[ -~]{0,12}".prop_map(Value::from),
        prop::sample::select(KEYS).prop_map(|k| Value::from(k.to_string())),
        prop::sample::select(vec![
            "#/components/schemas/Pet",
            "#/paths/~1pets",
            "#/",
            "#",
            "other.yaml#/x",
            "$captures.id",
            "$captures.pet-id",
            "[*].id",
            "a[0].b",
        ])
        .prop_map(|s| Value::from(s.to_string())),
    ]
}

/// JSON documents built from the keys above, a few levels deep.
fn doc() -> impl Strategy<Value = Value> {
    scalar().prop_recursive(5, 64, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
            prop::collection::vec((prop::sample::select(KEYS), inner), 0..6).prop_map(|pairs| {
                let mut m = Map::new();
                for (k, v) in pairs {
                    m.insert(k.to_string(), v);
                }
                Value::Object(m)
            }),
        ]
    })
}

fn corpus_spec() -> Vec<u8> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/petstore-jdk/openapi.json");
    std::fs::read(p).expect("fixture spec")
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn spec_loader_takes_any_document(root in doc()) {
        let _ = mastor::spec::load_value(Path::new("fuzz.json"), root, Default::default());
    }

    #[test]
    fn spec_loader_takes_any_mutation_of_a_real_spec(
        cuts in prop::collection::vec((any::<prop::sample::Index>(), 0usize..40, any::<u8>()), 1..6)
    ) {
        let mut bytes = corpus_spec();
        for (at, len, byte) in cuts {
            let start = at.index(bytes.len().max(1));
            let end = (start + len).min(bytes.len());
            bytes.splice(start..end, [byte]);
        }
        let dir = tempfile::tempdir().unwrap();
        for name in ["openapi.json", "openapi.yaml"] {
            let path = dir.path().join(name);
            std::fs::write(&path, &bytes).unwrap();
            let _ = mastor::spec::load(&path);
        }
    }

    #[test]
    fn suite_parser_takes_any_document(root in doc()) {
        let _ = mastor::suite::from_value(root, Path::new("fuzz-suite.json"));
    }

    #[test]
    fn field_paths_parse_and_resolve_anything(text in "\\PC{0,40}", body in doc()) {
        if let Ok(path) = FieldPath::parse(&text) {
            let _ = path.resolve(&body);
        }
        let _ = capture(&text, Some(&body), "", &BTreeMap::new());
    }

    #[test]
    fn binds_substitute_anything(value in doc(), name in "[a-z_-]{0,8}", bound in scalar()) {
        let mut captures = Captures::new();
        captures.insert(name, bound);
        let _ = substitute(&value, &captures);
    }
}

/// Inputs kept because they once needed care: self-referencing refs, refs to the root,
/// paths with unbalanced brackets, captures inside captures.
#[test]
fn regression_cases() {
    let specs = [
        json!({"openapi": "3.0.0", "paths": {"/a": {"$ref": "#/paths/~1a"}}}),
        json!({"openapi": "3.0.0", "paths": {"$ref": "#"}}),
        json!({"openapi": "3.1.0", "paths": {"/a": {"get": {"responses": {"200": {"$ref": "#/paths/~1a/get/responses/200"}}}}}}),
        json!({"swagger": "2.0", "paths": {"/a": {"get": {"parameters": [{"$ref": "#/parameters/p"}]}}}, "parameters": {"p": {"$ref": "#/parameters/p"}}}),
    ];
    for s in specs {
        let _ = mastor::spec::load_value(Path::new("r.json"), s, Default::default());
    }
    for p in [
        "[",
        "]",
        "a[",
        "a[*",
        "a[-1]",
        "[99999999999999999999]",
        "..",
        "a..b",
        "\u{0}",
    ] {
        if let Ok(path) = FieldPath::parse(p) {
            let _ = path.resolve(&json!({"a": [1, 2]}));
        }
    }
    let mut captures = Captures::new();
    captures.insert("id".into(), json!("$captures.id"));
    let _ = substitute(&json!({"x": "$captures.id"}), &captures);
}
