//! `find_spec` on temporary project layouts.

use mastor::spec::{SpecError, find_spec};
use std::path::Path;

const OAS: &str = "openapi: 3.0.1\npaths: {}\n";
const SWAGGER_JSON: &str = "{\"swagger\": \"2.0\", \"paths\": {}}";

fn write(root: &Path, rel: &str, text: &str) {
    let path = root.join(rel);
    std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    std::fs::write(path, text).expect("write");
}

fn rel(root: &Path, p: &Path) -> String {
    p.strip_prefix(root)
        .expect("under root")
        .to_string_lossy()
        .replace('\\', "/")
}

#[test]
fn root_spec_wins_over_resources_and_others_are_listed() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    write(root, "src/main/resources/static/swagger.json", SWAGGER_JSON);
    write(root, "openapi.yaml", OAS);
    write(root, "docs/api.yml", OAS);
    let found = find_spec(root).expect("found");
    assert_eq!(rel(root, &found.path), "openapi.yaml");
    let others: Vec<String> = found.candidates.iter().map(|p| rel(root, p)).collect();
    assert_eq!(
        others,
        vec!["docs/api.yml", "src/main/resources/static/swagger.json"]
    );
}

#[test]
fn resources_of_nested_modules_are_searched_shallowest_first() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    write(
        root,
        "services/core/api-server/src/main/resources/openapi/petstore.yaml",
        OAS,
    );
    write(root, "web/src/main/resources/api-docs.json", SWAGGER_JSON);
    let found = find_spec(root).expect("found");
    assert_eq!(
        rel(root, &found.path),
        "web/src/main/resources/api-docs.json"
    );
    assert_eq!(found.candidates.len(), 1);
}

#[test]
fn build_output_dependencies_and_non_specs_are_skipped() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    write(root, "target/classes/openapi.yaml", OAS);
    write(root, "build/resources/main/openapi.yaml", OAS);
    write(root, "node_modules/x/swagger.json", SWAGGER_JSON);
    // Right name, but a Swagger UI config, not a spec.
    write(root, "swagger-config.yaml", "url: /v3/api-docs\n");
    // A spec in an unrelated folder is not a candidate.
    write(root, "src/test/java/openapi.yaml", OAS);
    let err = find_spec(root).unwrap_err();
    let SpecError::NotFound { searched, .. } = &err else {
        panic!("{err:?}")
    };
    assert!(searched.iter().any(|s| s.contains("src/main/resources")));
    assert!(
        err.to_string().contains(&root.display().to_string()),
        "{err}"
    );
}

#[test]
fn spec_named_after_the_service_is_found_under_specs() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    write(root, "specs/restgo-erc20_openapi.yaml", OAS);
    let found = find_spec(root).expect("found");
    assert_eq!(rel(root, &found.path), "specs/restgo-erc20_openapi.yaml");
    assert!(found.candidates.is_empty());
}

#[test]
fn missing_root_is_an_error() {
    let dir = tempfile::tempdir().expect("tempdir");
    let err = find_spec(&dir.path().join("nope")).unwrap_err();
    assert!(err.to_string().contains("nope"), "{err}");
}

#[cfg(unix)]
#[test]
fn symlinked_spec_file_is_found() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    write(root, "shared-specs/petstore.yaml", OAS);
    std::os::unix::fs::symlink(
        root.join("shared-specs/petstore.yaml"),
        root.join("openapi.yaml"),
    )
    .expect("symlink");
    let found = find_spec(root).expect("found");
    assert_eq!(rel(root, &found.path), "openapi.yaml");
}
