//! Framework-endpoint exclusions: default list, custom patterns, base paths.

use mastor::model::{SpecOperation, op_id};
use mastor::spec::{Exclusions, load};
use std::path::PathBuf;

fn op(method: &str, path: &str) -> SpecOperation {
    SpecOperation {
        op_id: op_id(method, path),
        method: method.to_ascii_uppercase(),
        path: path.to_string(),
        operation_id: None,
        tags: Vec::new(),
        summary: None,
        parameters: Vec::new(),
        request_body: None,
        responses: Default::default(),
        extensions: Default::default(),
        excluded: None,
    }
}

fn excluded(ops: &[SpecOperation]) -> Vec<&str> {
    ops.iter()
        .filter(|o| o.excluded.is_some())
        .map(|o| o.path.as_str())
        .collect()
}

#[test]
fn default_list_marks_actuator_and_error_but_keeps_everything() {
    let mut ops = vec![
        op("get", "/actuator"),
        op("get", "/actuator/health/{component}"),
        op("get", "/health"),
        op("post", "/loggers/{name}"),
        op("get", "/error"),
        op("get", "/jolokia/read/x"),
        op("get", "/errors"),
        op("get", "/pets/health"),
        op("get", "/information"),
    ];
    let n = Exclusions::default().apply(&mut ops);
    assert_eq!(n, 6);
    assert_eq!(ops.len(), 9);
    assert_eq!(
        excluded(&ops),
        vec![
            "/actuator",
            "/actuator/health/{component}",
            "/health",
            "/loggers/{name}",
            "/error",
            "/jolokia/read/x"
        ]
    );
    let reason = ops[1].excluded.as_deref().expect("reason");
    assert!(reason.contains("/actuator/**"), "{reason}");
}

#[test]
fn custom_patterns_with_single_and_multi_segment_globs() {
    let mut ops = vec![
        op("get", "/internal/a/status"),
        op("get", "/internal/a/b/status"),
        op("get", "/admin/x/y/z"),
        op("get", "/public"),
    ];
    let ex = Exclusions::from_patterns(vec!["/internal/*/status".into(), "admin/**".into()]);
    assert_eq!(ex.apply(&mut ops), 2);
    assert_eq!(excluded(&ops), vec!["/internal/a/status", "/admin/x/y/z"]);
    assert!(
        ops[2]
            .excluded
            .as_deref()
            .expect("reason")
            .contains("/admin/**")
    );
    // Applying again does not count the already-excluded ones twice.
    assert_eq!(ex.apply(&mut ops), 0);
}

#[test]
fn base_path_is_stripped_before_matching() {
    let mut ops = vec![op("get", "/api/actuator/info"), op("get", "/api/pets")];
    assert_eq!(Exclusions::default().apply(&mut ops), 0);
    let ex = Exclusions::default().with_base_path(Some("/api/"));
    assert_eq!(ex.apply(&mut ops), 1);
    assert_eq!(excluded(&ops), vec!["/api/actuator/info"]);
}

#[test]
fn loaded_spec_applies_exclusions_with_its_base_path() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/specs/form.json");
    let mut spec = load(&path).expect("loads");
    // basePath is /api: `/api/error` is `/error` under it; `/actuator/health` matches as is.
    assert_eq!(spec.apply_exclusions(&Exclusions::default()), 2);
    assert_eq!(
        excluded(&spec.operations),
        vec!["/actuator/health", "/api/error"]
    );
}
