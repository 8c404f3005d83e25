//! The framework-facts table (`source::framework_facts::FACTS`) against the running
//! fixtures, one test per row: the operation whose shape reaches the row gets it as an
//! error case naming the framework, an operation whose shape cannot reach it does not,
//! and the live server (Spring MVC 4.3 on Jetty, Jersey 1.19 on the JDK server) answers
//! the row's status with a body that is not the project's error envelope. Then the facts
//! in use: a project handler that takes the framework's exception removes the rows, and a
//! scripted `mastor run` keeps the oracles that expect the framework's statuses (they were
//! "a status the code does not return" before) and they pass against the live server.
//! Needs the Debian jars of scripts/setup.sh.

use crate::framework_support::{LiveFixture, check, failing, project};
use crate::support::mastor_cmd;
use mastor::llm::scripted::{Reply, Rule, Script, ScriptedServer};
use mastor::project::Prepared;
use mastor::source::framework_facts::{FACTS, Found, for_operation, framework_name};
use mastor::spec::Exclusions;
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::{Arc, Mutex, Weak};

const SPRING: &str = "shop-spring-run";
const JERSEY: &str = "library-jersey";

/// One live server per fixture, shared by the row tests that run at the same time and
/// stopped when the last of them drops it (the rows' requests change no state).
fn shared(fixture: &'static str) -> Arc<LiveFixture> {
    static LIVE: Mutex<BTreeMap<&'static str, Weak<LiveFixture>>> = Mutex::new(BTreeMap::new());
    let mut live = LIVE.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(api) = live.get(fixture).and_then(Weak::upgrade) {
        return api;
    }
    let api = Arc::new(LiveFixture::start(fixture));
    live.insert(fixture, Arc::downgrade(&api));
    api
}

/// The framework facts the table gives `op_id` of the fixture in `dir`.
fn facts_of(dir: &Path, op_id: &str) -> Vec<Found> {
    let p = Prepared::load(dir, None, &Exclusions::default(), &[]).expect("fixture loads");
    let entry = p.static_entry(op_id).expect("a handler").clone();
    let method = p.op(op_id).expect("a spec operation").method.clone();
    for_operation(
        &p.analysis.files,
        &p.analysis.routes,
        &p.root,
        &entry,
        &method,
    )
}

/// A request that should meet a row.
struct Probe {
    method: &'static str,
    path: &'static str,
    headers: &'static [(&'static str, &'static str)],
    body: Option<&'static str>,
}

/// Sends `probe`; the status and the body.
fn send(base: &str, probe: &Probe) -> (u16, String) {
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        let client = reqwest::Client::new();
        let method = reqwest::Method::from_bytes(probe.method.as_bytes()).unwrap();
        let mut req = client
            .request(method, format!("{base}{}", probe.path))
            .timeout(std::time::Duration::from_secs(10));
        for (k, v) in probe.headers {
            req = req.header(*k, *v);
        }
        if let Some(b) = probe.body {
            req = req.body(b.to_string());
        }
        let resp = req.send().await.expect("the fixture answers");
        let status = resp.status().as_u16();
        (status, resp.text().await.unwrap_or_default())
    })
}

/// Row `id`: given to `reached` (its condition naming `names`), not to `unreached`, and
/// the live fixture answers `probe` with its status and a body that is not an envelope.
fn row(
    id: &str,
    (dir, fixture): (&str, &'static str),
    reached: &str,
    names: &str,
    unreached: Option<&str>,
    probe: Probe,
) {
    let fact = FACTS
        .iter()
        .find(|f| f.id == id)
        .expect("a row of the table");
    let root = project(dir);
    let found = facts_of(&root, reached);
    let case = &found
        .iter()
        .find(|f| f.fact.id == id)
        .unwrap_or_else(|| panic!("{id} not given to {reached}: {found:#?}"))
        .case;
    assert_eq!(case.status, fact.status);
    assert_eq!(
        case.framework.as_deref(),
        Some(framework_name(fact.framework))
    );
    assert!(case.condition.contains(names), "{}", case.condition);
    if let Some(op) = unreached {
        let other = facts_of(&root, op);
        assert!(
            !other.iter().any(|f| f.fact.id == id),
            "{id} given to {op}, whose shape cannot reach it"
        );
    }
    let api = shared(fixture);
    let (status, body) = send(&api.base_url, &probe);
    assert_eq!(
        status, fact.status,
        "{id}: {} {} answered {status}: {body}",
        probe.method, probe.path
    );
    let envelope = serde_json::from_str::<Value>(&body).is_ok_and(|v| v.is_object());
    assert!(
        !envelope,
        "{id}: the framework's body, not an envelope: {body}"
    );
}

const PLAIN: &[(&str, &str)] = &[("Content-Type", "text/plain")];
const JSON: &[(&str, &str)] = &[("Content-Type", "application/json")];
const PNG: &[(&str, &str)] = &[("Accept", "image/png")];

#[test]
fn spring_path_type_mismatch() {
    row(
        "spring.path_type_mismatch",
        (SPRING, "spring"),
        "GET /api/products/{id}",
        "`id` (long)",
        Some("GET /api/products"),
        Probe {
            method: "GET",
            path: "/api/products/abc",
            headers: &[],
            body: None,
        },
    );
}

#[test]
fn spring_unreadable_body() {
    row(
        "spring.unreadable_body",
        (SPRING, "spring"),
        "POST /api/products",
        "`ProductRequest`",
        Some("POST /api/orders/{id}/pay"),
        Probe {
            method: "POST",
            path: "/api/products",
            headers: JSON,
            body: Some("{\"name\": "),
        },
    );
}

#[test]
fn spring_unsupported_media_type() {
    // POST /api/orders declares no `consumes`: its object body is what makes it 415.
    row(
        "spring.unsupported_media_type",
        (SPRING, "spring"),
        "POST /api/orders",
        "`OrderRequest`",
        Some("POST /api/orders/{id}/pay"),
        Probe {
            method: "POST",
            path: "/api/orders",
            headers: PLAIN,
            body: Some("x"),
        },
    );
}

#[test]
fn spring_method_not_allowed() {
    row(
        "spring.method_not_allowed",
        (SPRING, "spring"),
        "GET /api/products/{id}",
        "e.g. PUT; it serves DELETE, GET",
        None,
        Probe {
            method: "PUT",
            path: "/api/products/1",
            headers: JSON,
            body: Some("{}"),
        },
    );
}

#[test]
fn spring_not_acceptable() {
    // DELETE answers ResponseEntity<Void>: no body to convert, so no 406 (it answers 204).
    row(
        "spring.not_acceptable",
        (SPRING, "spring"),
        "GET /api/products/{id}",
        "`Product`",
        Some("DELETE /api/products/{id}"),
        Probe {
            method: "GET",
            path: "/api/products/1",
            headers: PNG,
            body: None,
        },
    );
}

#[test]
fn jaxrs_path_param_conversion() {
    row(
        "jaxrs.path_param_conversion",
        (JERSEY, "jaxrs"),
        "GET /api/books/{id}",
        "`id` (int)",
        Some("GET /api/books"),
        Probe {
            method: "GET",
            path: "/api/books/abc",
            headers: &[],
            body: None,
        },
    );
}

#[test]
fn jaxrs_query_param_conversion() {
    row(
        "jaxrs.query_param_conversion",
        (JERSEY, "jaxrs"),
        "GET /api/books",
        "`limit` (Integer)",
        Some("GET /api/books/{id}"),
        Probe {
            method: "GET",
            path: "/api/books?limit=ten",
            headers: &[],
            body: None,
        },
    );
}

#[test]
fn jaxrs_unsupported_media_type() {
    // giveBack takes no entity and declares no @Consumes: a text/plain request reaches it.
    row(
        "jaxrs.unsupported_media_type",
        (JERSEY, "jaxrs"),
        "POST /api/books",
        "`BookRequest`",
        Some("POST /api/books/{id}/return"),
        Probe {
            method: "POST",
            path: "/api/books",
            headers: PLAIN,
            body: Some("x"),
        },
    );
}

#[test]
fn jaxrs_method_not_allowed() {
    row(
        "jaxrs.method_not_allowed",
        (JERSEY, "jaxrs"),
        "GET /api/books/{id}",
        "e.g. PUT; it serves DELETE, GET",
        None,
        Probe {
            method: "PUT",
            path: "/api/books/1",
            headers: JSON,
            body: Some("{}"),
        },
    );
}

#[test]
fn jaxrs_not_acceptable() {
    row(
        "jaxrs.not_acceptable",
        (JERSEY, "jaxrs"),
        "GET /api/books/{id}",
        "MediaType.APPLICATION_JSON",
        None,
        Probe {
            method: "GET",
            path: "/api/books/1",
            headers: PNG,
            body: None,
        },
    );
}

/// The rows this file tests live; a row added to the table without a test fails here.
const TESTED: &[&str] = &[
    "spring.path_type_mismatch",
    "spring.unreadable_body",
    "spring.unsupported_media_type",
    "spring.method_not_allowed",
    "spring.not_acceptable",
    "jaxrs.path_param_conversion",
    "jaxrs.query_param_conversion",
    "jaxrs.unsupported_media_type",
    "jaxrs.method_not_allowed",
    "jaxrs.not_acceptable",
];

#[test]
fn every_row_of_the_table_has_a_live_test() {
    let ids: Vec<&str> = FACTS.iter().map(|f| f.id).collect();
    assert_eq!(ids, TESTED);
}

#[test]
fn a_project_handler_for_the_frameworks_exception_takes_its_rows_over() {
    let tmp = tempfile::tempdir().unwrap();
    let copy = tmp.path().join("shop");
    let ok = std::process::Command::new("cp")
        .arg("-r")
        .arg(project(SPRING))
        .arg(&copy)
        .status()
        .unwrap();
    assert!(ok.success());
    let before: Vec<&str> = facts_of(&copy, "GET /api/products/{id}")
        .iter()
        .map(|f| f.fact.id)
        .collect();
    assert_eq!(
        before,
        vec![
            "spring.path_type_mismatch",
            "spring.method_not_allowed",
            "spring.not_acceptable"
        ]
    );
    // An advice method for every Exception answers the type mismatch, the wrong method
    // and the unacceptable type itself: its status, not Spring's.
    let advice = copy.join("src/main/java/shop/web/ApiErrorAdvice.java");
    let text = std::fs::read_to_string(&advice).unwrap();
    let text = text.replacen(
        "    @ExceptionHandler(ConflictException.class)",
        "    @ExceptionHandler(Exception.class)\n    @ResponseBody\n    public ResponseEntity<ApiError> any(Exception e) {\n        return ResponseEntity.status(HttpStatus.INTERNAL_SERVER_ERROR).body(null);\n    }\n\n    @ExceptionHandler(ConflictException.class)",
        1,
    );
    std::fs::write(&advice, text).unwrap();
    assert!(facts_of(&copy, "GET /api/products/{id}").is_empty());
    // The JDK fixture's server answers nothing on its own.
    assert!(facts_of(&project("petstore-jdk"), "GET /pets/{petId}").is_empty());
}

/// A scripted model that knows only the code's statuses of GET /api/products/{id}
/// (200, 404) and POST /api/orders (201, 400, 404, 409), and writes oracles that expect
/// Spring's own 400, 406 and 415, plus the classic mistake (404 for `abc`).
fn facts_script() -> Script {
    let get = "GET /api/products/{id}";
    let place = "POST /api/orders";
    let rule = |agent: &str, op: &str, reply: Value| Rule {
        agent: Some(agent.into()),
        op: Some(op.into()),
        replies: vec![Reply::json(reply)],
        ..Rule::default()
    };
    let context = |success: u16, errors: &[(u16, &str)]| {
        json!({
            "request_params": [],
            "response_schema": {"success_status": success, "fields": [
                {"name": "id", "type": "long"}, {"name": "name", "type": "String"},
                {"name": "status", "type": "String"}],
                "error_cases": errors.iter().map(|(s, c)| json!({"status": s, "condition": c,
                    "framework": "claimed by the model"})).collect::<Vec<_>>()},
            "request_params_pending": [], "response_schema_pending": []
        })
    };
    let get_oracles = json!({"oracles": [
        {"test_id": "fv_get_dune", "oracle_strategy": "fv", "input": {"path": {"id": "1"}},
         "assertions": [{"type": "status", "expected": 200},
                        {"type": "field", "field_path": "name", "op": "equals", "expected": "Dune"}]},
        {"test_id": "fi_get_abc", "oracle_strategy": "fi", "input": {"path": {"id": "abc"}},
         "assertions": [{"type": "status", "expected": 400}]},
        {"test_id": "fi_get_abc_missing", "oracle_strategy": "fi", "input": {"path": {"id": "abc"}},
         "assertions": [{"type": "status", "expected": 404}]},
        {"test_id": "fi_get_png", "oracle_strategy": "fi",
         "input": {"path": {"id": "1"}, "headers": {"Accept": "image/png"}},
         "assertions": [{"type": "status", "expected": 406}]}]});
    let place_oracles = json!({"oracles": [
        {"test_id": "fv_place", "oracle_strategy": "fv",
         "input": {"body": {"productId": 1, "quantity": 1}},
         "assertions": [{"type": "status", "expected": 201},
                        {"type": "field", "field_path": "status", "op": "equals", "expected": "NEW"}]},
        {"test_id": "fi_place_text", "oracle_strategy": "fi",
         "input": {"raw_body": {"content_type": "text/plain", "text": "one please"}},
         "assertions": [{"type": "status", "expected": 415}]}]});
    Script {
        rules: vec![
            rule(
                "extraction",
                get,
                context(200, &[(404, "no product with id")]),
            ),
            rule(
                "extraction",
                place,
                context(
                    201,
                    &[
                        (400, "invalid order"),
                        (404, "no product"),
                        (409, "not enough stock"),
                    ],
                ),
            ),
            rule("single_op", get, get_oracles),
            rule("single_op", place, place_oracles),
            rule("single_op_challenger", get, json!({"hints": []})),
            rule("single_op_challenger", place, json!({"hints": []})),
        ],
        fallback: vec![Reply::json(
            json!({"matches": [], "oracles": [], "hints": [], "groups": []}),
        )],
        n_ctx: None,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn oracles_expecting_the_frameworks_statuses_are_kept_and_pass_live() {
    let server = ScriptedServer::start(facts_script()).await.unwrap();
    let url = server.base_url();
    tokio::task::block_in_place(|| {
        let tmp = tempfile::tempdir().unwrap();
        let session = tmp.path().join("session");
        let shop = project(SPRING);
        let out = mastor_cmd(
            &url,
            tmp.path(),
            &[
                "run",
                shop.to_str().unwrap(),
                "--op",
                "GET /api/products/{id}",
                "--op",
                "POST /api/orders",
                "--no-multi-op",
                "--out",
                session.to_str().unwrap(),
            ],
        )
        .output()
        .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "mastor run: {stderr}");

        // The contexts carry Spring's statuses as framework facts; the model's claim to
        // be one is not taken.
        let store = mastor::store::Session::open(&session).unwrap();
        let ctx = store
            .read_context("GET /api/products/{id}")
            .unwrap()
            .unwrap();
        let marked: Vec<(u16, Option<&str>)> = ctx
            .response_schema
            .error_cases
            .iter()
            .map(|e| (e.status, e.framework.as_deref()))
            .collect();
        assert_eq!(
            marked,
            vec![
                (404, None),
                (400, Some("Spring MVC")),
                (405, Some("Spring MVC")),
                (406, Some("Spring MVC")),
            ]
        );

        let api = LiveFixture::start("spring");
        let (code, verdicts, stderr) = check(&session, &api.base_url);
        let mut all: Vec<(String, String)> = verdicts;
        all.sort();
        let expected: Vec<(String, String)> = [
            ("GET /api/products/{id}#fi_get_abc", "pass"),
            ("GET /api/products/{id}#fi_get_abc_missing", "fail"),
            ("GET /api/products/{id}#fi_get_png", "pass"),
            ("GET /api/products/{id}#fv_get_dune", "pass"),
            ("POST /api/orders#fi_place_text", "pass"),
            ("POST /api/orders#fv_place", "pass"),
        ]
        .iter()
        .map(|(o, v)| (o.to_string(), v.to_string()))
        .collect();
        assert_eq!(all, expected, "{stderr}");
        assert_eq!(
            failing(&all),
            vec!["GET /api/products/{id}#fi_get_abc_missing"]
        );
        assert_eq!(code, 1);
    });
}

/// The Context tab marks a framework's status as a framework fact, naming the framework,
/// beside the code's error cases (what a reviewer needs to tell who answers a 405).
#[test]
fn the_context_tab_marks_framework_facts() {
    use crate::tui_common::{bench::key, petstore_session, t0};
    use mastor::model::ErrorCase;
    use mastor::tui::driver::{Options, open_session};
    use mastor::tui::msg::settle;
    use mastor::tui::state::Tab;
    use mastor::tui::update::handle_key;
    use ratatui::Terminal;
    use ratatui::backend::TestBackend;

    let dir = tempfile::tempdir().unwrap();
    let session = petstore_session(dir.path());
    let mut ctx = session.read_context("GET /pets").unwrap().unwrap();
    ctx.response_schema.error_cases.push(ErrorCase {
        status: 405,
        condition: "the path is requested with a method no resource method of it serves \
                    (e.g. PUT; it serves GET, POST; send it with `input.method`): JAX-RS \
                    answers 405 with an Allow header"
            .into(),
        framework: Some("JAX-RS".into()),
        ..Default::default()
    });
    session.write_context(&ctx).unwrap();
    let options = Options {
        theme: Some("dark".into()),
        keymap: Some(dir.path().join("no-keymap.toml")),
        settings: Some(dir.path().join("no-settings.toml")),
        mouse: false,
    };
    let (session, mut app) = open_session(dir.path(), &options).unwrap();
    app.now = t0() + chrono::Duration::seconds(125);
    for k in ["g", "<enter>"] {
        for e in handle_key(&mut app, key(k)) {
            settle(&session, &mut app, e, &mut |t: &str| Ok(t.to_string()));
        }
    }
    app.operation_mut().expect("the operation screen").tab = Tab::Context;
    app.refresh_items();
    app.prepare_frame();
    let mut terminal = Terminal::new(TestBackend::new(100, 30)).unwrap();
    terminal.draw(|f| f.render_widget(&app, f.area())).unwrap();
    let text = format!("{:?}", terminal.backend());
    assert!(text.contains("405 [framework fact: JAX-RS]"), "{text}");
    insta::assert_snapshot!("context_tab_framework_fact_100x30", terminal.backend());
}
