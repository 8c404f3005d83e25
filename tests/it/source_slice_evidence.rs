//! Slices keep what decides the response: every hand-checked cited line of every fixture
//! is in its operation's slice (the closure may miss some: files it does not import); JDK dispatch through a path helper
//! (`String[] seg = Http.segments(ex)`) resolves to exact handlers; a slice keeps the
//! inherited callback with its catch, the seed data and the error renderer; and an
//! evidence ref to a line a slice left out is removed by normalization.

use crate::support::fixture;
use mastor::agents::normalize::{BundleIndex, normalize_single, rule};
use mastor::project::bundle_index;
use mastor::source::slice::ProjectSlicer;
use mastor::source::slice::cited::{coverage, hand_checked};
use mastor::source::{AnalyseOptions, Analysis, analyse, weak_matches};
use pretty_assertions::assert_eq;
use serde_json::json;
use std::path::Path;

fn analysed(root: &Path) -> Analysis {
    let expected: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(root.join("expected.json")).unwrap())
            .unwrap();
    let spec = match expected["spec"].as_str() {
        Some(rel) => root.join(rel),
        None => mastor::spec::find_spec(root).unwrap().path,
    };
    let loaded = mastor::spec::load(&spec).unwrap();
    analyse(root, &loaded, &AnalyseOptions::default()).unwrap()
}

#[test]
fn every_hand_checked_citation_is_in_the_slice() {
    let root = fixture("");
    let mut dirs: Vec<_> = std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("expected.json").is_file())
        .collect();
    dirs.sort();
    let mut checked = Vec::new();
    for dir in dirs {
        let name = dir.file_name().unwrap().to_string_lossy().to_string();
        let cites = hand_checked(&dir).unwrap();
        if cites.is_empty() {
            continue;
        }
        let analysis = analysed(&dir);
        let slicer = ProjectSlicer::new(&dir, &analysis);
        let cov = coverage(&analysis, &slicer, &cites);
        let missing: Vec<String> = cov
            .missing
            .iter()
            .map(|c| format!("{} {}:{}", c.op, c.file, c.line))
            .collect();
        assert_eq!(
            missing,
            Vec::<String>::new(),
            "{name}: left out by the slice"
        );
        assert_eq!(cov.in_slice, cov.cited, "{name}");
        assert!(cov.in_closure <= cov.in_slice, "{name}: {cov:?}");
        checked.push(name);
    }
    assert_eq!(
        checked,
        [
            "jdk-helper-dispatch",
            "library-jersey",
            "petstore-jdk",
            "shop-spring-run"
        ]
    );
}

#[test]
fn a_malformed_evidence_file_is_an_error_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("evidence.json"),
        r#"{"operations": {"GET /x": [{"file": "A.java", "start_line": 1, "end_line": 2, "why": "w", "note": 1}]}}"#,
    )
    .unwrap();
    let err = hand_checked(dir.path()).unwrap_err();
    assert!(
        err.contains("evidence.json") && err.contains("note"),
        "{err}"
    );
    std::fs::write(
        dir.path().join("evidence.json"),
        r#"{"operations": {"GET /x": [{"file": "A.java", "start_line": 5, "end_line": 2, "why": "w"}]}}"#,
    )
    .unwrap();
    let err = hand_checked(dir.path()).unwrap_err();
    assert!(err.contains("5-2 is not a line range"), "{err}");
}

#[test]
fn helper_dispatch_resolves_to_exact_handlers_and_none_is_weak() {
    let analysis = analysed(&fixture("jdk-helper-dispatch"));
    let mut got: Vec<(String, String)> = analysis
        .report
        .operations
        .iter()
        .map(|o| {
            let e = o.entry.as_ref().expect("matched");
            (o.op_id.clone(), format!("{}.{}", e.class, e.method))
        })
        .collect();
    got.sort();
    let want = [
        ("DELETE /api/events/{id}", "EventHandler.delete"),
        ("GET /api/events", "EventHandler.list"),
        ("GET /api/events/{id}", "EventHandler.get"),
        ("GET /api/rooms", "RoomHandler.list"),
        ("GET /api/rooms/{id}", "RoomHandler.get"),
        ("POST /api/events", "EventHandler.create"),
        ("POST /api/events/{id}/cancel", "EventHandler.cancel"),
    ];
    let want: Vec<(String, String)> = want
        .iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect();
    assert_eq!(got, want);
    assert_eq!(weak_matches(&analysis.report), Vec::new());
}

#[test]
fn a_helper_the_scan_cannot_read_leaves_the_dispatch_weak() {
    // The same handler, but `segments` now delegates to another helper: one level deep
    // only, so the branches stay unresolved and the match falls back to `handle`.
    let dir = tempfile::tempdir().unwrap();
    let src = fixture("jdk-helper-dispatch");
    for entry in walk(&src) {
        let rel = entry.strip_prefix(&src).unwrap();
        let to = dir.path().join(rel);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(&entry, &to).unwrap();
    }
    let http = dir.path().join("src/main/java/agenda/Http.java");
    let text = std::fs::read_to_string(&http).unwrap().replace(
        "    public static String[] segments(HttpExchange exchange) {\n",
        "    public static String[] segments(HttpExchange exchange) {\n        if (exchange == null) {\n            return parts(exchange);\n        }\n",
    );
    let text = text.replacen(
        "    /** The path after the context",
        "    static String[] parts(HttpExchange exchange) {\n        return segments(exchange);\n    }\n\n    /** The path after the context",
        1,
    );
    std::fs::write(&http, text).unwrap();
    let analysis = analysed(dir.path());
    let weak: Vec<&str> = weak_matches(&analysis.report)
        .iter()
        .map(|(op, _)| *op)
        .collect();
    assert!(weak.contains(&"GET /api/events/{id}"), "{weak:?}");
    assert!(!weak.contains(&"GET /api/rooms/{id}"), "{weak:?}");
}

fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}

const AGENDA: &str = "src/main/java/agenda/";

#[test]
fn a_slice_keeps_the_inherited_callback_the_seed_and_the_renderer() {
    let root = fixture("jdk-helper-dispatch");
    let analysis = analysed(&root);
    let slicer = ProjectSlicer::new(&root, &analysis);
    let slice = slicer.slice("GET /api/rooms/{id}").unwrap();
    let shows = |file: &str, line: usize| slice.shows(&format!("{AGENDA}{file}"), line);
    // The caller parsing the id, the base class's catch rendering every error, the
    // renderer, the id parser's 400s, the seed the constructor calls.
    for (file, line) in [
        ("RoomHandler.java", 28),
        ("JsonHandler.java", 13),
        ("JsonHandler.java", 15),
        ("Http.java", 60),
        ("Http.java", 36),
        ("Store.java", 16),
        ("Store.java", 23),
        ("Store.java", 68),
    ] {
        assert!(shows(file, line), "{file}:{line}\n{}", slice.outline());
    }
    // Not the other operations' handlers.
    assert!(!shows("RoomHandler.java", 38), "{}", slice.outline());
    assert!(!shows("EventHandler.java", 63), "{}", slice.outline());
}

#[test]
fn an_evidence_ref_to_a_line_the_slice_left_out_is_removed() {
    let root = fixture("petstore-jdk");
    let analysis = analysed(&root);
    let slicer = ProjectSlicer::new(&root, &analysis);
    let op = "GET /pets/{petId}";
    let slice = slicer.bundle(&slicer.slice(op).unwrap());
    let h = "src/main/java/petstore/handlers/PetHandler.java";
    // getPet (96-99) is in the slice; listPets (65-87) is not.
    let oracle = json!({
        "test_id": "fv_get", "op_id": op, "oracle_strategy": "fv",
        "input": {"path": {"petId": 1}},
        "assertions": [{"type": "status", "expected": 200},
                       {"type": "field", "field_path": "name", "op": "not_null"}],
        "evidence_refs": [
            {"file": h, "start_line": 96, "end_line": 99},
            {"file": h, "start_line": 60, "end_line": 70},
            {"file": h, "start_line": 74, "end_line": 74}
        ]
    });
    let index = bundle_index(&slice);
    assert_eq!(index.left_out(h, 96, 99), None);
    assert_eq!(index.left_out(h, 60, 70), Some(64));
    // A blank line or brace at either end of a longer citation may be left out.
    assert_eq!(index.left_out(h, 96, 100), None);
    assert_eq!(index.left_out(h, 95, 100), None);
    assert_eq!(index.left_out(h, 100, 100), Some(100));
    assert_eq!(index.left_out(h, 96, 101), Some(100));
    let out = normalize_single(op, &json!([oracle.clone()]), None, &index);
    assert_eq!(
        serde_json::to_value(&out.kept[0].evidence_refs).unwrap(),
        json!([{"file": h, "start_line": 96, "end_line": 99}])
    );
    assert_eq!(out.count(rule::EVIDENCE_OUT_OF_BUNDLE), 2);
    let reason = out
        .flags
        .iter()
        .find(|f| f.detail.contains("60-70"))
        .map(|f| f.detail.clone());
    assert_eq!(
        reason.as_deref(),
        Some(
            "evidence ref `src/main/java/petstore/handlers/PetHandler.java` lines 60-70 removed: line 64 was left out of the slice sent"
        )
    );
    // The closure shows the whole file: every ref stays.
    let closure: BundleIndex = bundle_index(&analysis.bundles[op]);
    assert!(closure.shown.is_empty());
    let out = normalize_single(op, &json!([oracle]), None, &closure);
    assert_eq!(out.kept[0].evidence_refs.len(), 3);
    assert_eq!(out.count(rule::EVIDENCE_OUT_OF_BUNDLE), 0);
}

#[test]
fn a_slice_keeps_a_filter_that_answers_before_the_handler() {
    let dir = tempfile::tempdir().unwrap();
    let files = [
        (
            "openapi.json",
            r#"{"openapi": "3.0.1", "info": {"title": "t", "version": "1"}, "paths": {"/items": {"get": {"responses": {"200": {"description": "ok"}, "401": {"description": "no key"}}}}}}"#,
        ),
        (
            "src/main/java/app/Main.java",
            "package app;\n\nimport com.sun.net.httpserver.*;\nimport java.net.InetSocketAddress;\n\npublic class Main {\n    public static void main(String[] a) throws Exception {\n        HttpServer s = HttpServer.create(new InetSocketAddress(8080), 0);\n        HttpContext c = s.createContext(\"/items\", new ItemHandler());\n        c.getFilters().add(new KeyFilter());\n        s.start();\n    }\n}\n",
        ),
        (
            "src/main/java/app/ItemHandler.java",
            "package app;\n\nimport com.sun.net.httpserver.*;\n\npublic class ItemHandler implements HttpHandler {\n    public void handle(HttpExchange ex) throws java.io.IOException {\n        ex.sendResponseHeaders(200, -1);\n    }\n}\n",
        ),
        (
            "src/main/java/app/KeyFilter.java",
            "package app;\n\nimport com.sun.net.httpserver.*;\n\npublic class KeyFilter extends Filter {\n    public void doFilter(HttpExchange ex, Chain chain) throws java.io.IOException {\n        if (ex.getRequestHeaders().getFirst(\"X-Key\") == null) {\n            ex.sendResponseHeaders(401, -1);\n            return;\n        }\n        chain.doFilter(ex);\n    }\n\n    public String description() {\n        return \"key\";\n    }\n}\n",
        ),
    ];
    for (rel, text) in files {
        let p = dir.path().join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
    let loaded = mastor::spec::load(&dir.path().join("openapi.json")).unwrap();
    let analysis = analyse(dir.path(), &loaded, &AnalyseOptions::default()).unwrap();
    let slicer = ProjectSlicer::new(dir.path(), &analysis);
    let slice = slicer.slice("GET /items").unwrap();
    let filter = "src/main/java/app/KeyFilter.java";
    // `doFilter` (the 401) is kept, `description` is not.
    assert!(slice.shows(filter, 8), "{}", slice.outline());
    assert!(!slice.shows(filter, 15), "{}", slice.outline());
}
