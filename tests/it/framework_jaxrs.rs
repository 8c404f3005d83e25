//! The whole loop on JAX-RS: the Jersey 1.19 fixture (tests/fixtures/library-jersey, JDK
//! HTTP server container) started live. Its hand-checked reference suite passes under
//! `mastor check`, JUnit and newman, and a wrong copy fails in each; a scripted-model
//! `mastor run` whose oracles are checked against the live server (the model's guess of
//! 400 for a non-integer @PathParam fails: JAX-RS answers 404); `mutate` building and
//! starting copies with the fixture's scripts, with hand-checked kills and survivors.
//! Needs the Debian jars of scripts/setup.sh.

use crate::framework_support::*;
use serde_json::json;

const GET: &str = "GET /api/books/{id}";
const RETURN: &str = "POST /api/books/{id}/return";
const LOAN_SERVICE: &str = "src/main/java/library/service/LoanService.java";
const API_EXCEPTION: &str = "src/main/java/library/error/ApiException.java";

const JERSEY: Framework = Framework {
    fixture: "jaxrs",
    dir: "library-jersey",
    get: GET,
    transition: RETURN,
    runs: 37,
    runs_note: "35 oracles and 2 sequences ran",
    // JAX-RS answers 404 for a @PathParam int that does not convert; a suite that
    // expects 400 there (what Spring would answer) must fail.
    check_wrong: WrongStatus {
        test_id: "fi_get_not_an_int",
        status: 400,
        o_id: "GET /api/books/{id}#fi_get_not_an_int",
    },
    export_wrong: ("fi_add_text_plain", 400),
    // The scan maps both operations to their JAX-RS resource methods.
    scan_names: &["BookResource", "giveBack"],
    run_verdicts: &[
        ("GET /api/books/{id}#fi_get_abc", "fail"),
        ("GET /api/books/{id}#fi_get_missing", "pass"),
        ("GET /api/books/{id}#fv_get_dune", "pass"),
        ("POST /api/books/{id}/return#fi_return_missing", "pass"),
        ("POST /api/books/{id}/return#fi_return_on_shelf", "pass"),
    ],
    // LoanService.java:43 `throw ApiException.notFound(..)` in get(): removed, the
    // resource returns null and Jersey answers 204; fi_get_missing (404) kills it. :56
    // the year-range throw: no oracle of this suite adds a book, so it survives.
    // ApiException.java:19 `new ApiException(404, ..)` swapped to 400: fi_get_missing
    // kills it; :23 `new ApiException(400, ..)` swapped to 404: no oracle of this suite
    // sends invalid input, so it survives.
    mutate: Mutate {
        suite: &["fv_get_dune", "fi_get_missing", "fi_return_not_lent"],
        lines: &[
            (LOAN_SERVICE, 43),
            (LOAN_SERVICE, 56),
            (API_EXCEPTION, 19),
            (API_EXCEPTION, 23),
        ],
        operators: "remove_throw,status_swap",
        extra_args: &[],
        outcomes: &[
            (LOAN_SERVICE, 43, "remove_throw", "caught"),
            (LOAN_SERVICE, 56, "remove_throw", "missed"),
            (API_EXCEPTION, 19, "status_swap", "caught"),
            (API_EXCEPTION, 23, "status_swap", "missed"),
        ],
        killer: "GET /api/books/{id}#fi_get_missing",
        score: 0.5,
        score_line: "mutation score 50.0%",
    },
};

#[test]
fn reference_suite_passes_against_live_jersey_and_a_wrong_status_fails() {
    reference_suite_passes_and_a_wrong_status_fails(&JERSEY);
}

#[test]
fn junit_and_postman_exports_pass_against_live_jersey_and_a_wrong_copy_fails() {
    junit_and_postman_exports_pass_and_a_wrong_copy_fails(&JERSEY);
}

/// Extraction, generation and review of GET /api/books/{id} and the return transition.
/// One oracle is the kind of mistake a model makes without the framework's facts: it
/// expects 400 for a non-integer id, where JAX-RS answers 404 before the method runs.
fn jersey_script() -> mastor::llm::scripted::Script {
    let get_oracles = json!({"oracles": [
        {"test_id": "fv_get_dune", "oracle_strategy": "fv", "input": {"path": {"id": "1"}},
         "assertions": [{"type": "status", "expected": 200},
                        {"type": "field", "field_path": "title", "op": "equals", "expected": "Dune"}]},
        {"test_id": "fi_get_abc", "oracle_strategy": "fi", "input": {"path": {"id": "abc"}},
         "assertions": [{"type": "status", "expected": 400}]},
        {"test_id": "fi_get_missing", "oracle_strategy": "fi", "input": {"path": {"id": "99"}},
         "assertions": [{"type": "status", "expected": 404}]}]});
    let return_oracles = json!({"oracles": [
        {"test_id": "fi_return_on_shelf", "oracle_strategy": "fi", "input": {"path": {"id": "1"}},
         "assertions": [{"type": "status", "expected": 409}]},
        {"test_id": "fi_return_missing", "oracle_strategy": "fi", "input": {"path": {"id": "99"}},
         "assertions": [{"type": "status", "expected": 404}]}]});
    model_script(
        &JERSEY,
        (
            context(
                &["id", "title", "onLoan"],
                200,
                &[(404, "no book with id"), (400, "id is not an integer")],
            ),
            get_oracles,
        ),
        (
            context(
                &["id", "onLoan"],
                200,
                &[(404, "no book with id"), (409, "book is not on loan")],
            ),
            return_oracles,
        ),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn scripted_run_on_jersey_then_check_against_the_live_server() {
    scripted_run_then_check_against_the_live_server(&JERSEY, jersey_script()).await;
}

#[test]
fn mutate_builds_and_starts_jersey_copies_with_hand_checked_outcomes() {
    mutate_builds_and_starts_copies_with_hand_checked_outcomes(&JERSEY);
}

#[test]
fn fixture_api_script_stops_the_server_it_started_and_names_an_unknown_fixture() {
    let state = tempfile::tempdir().unwrap();
    let script = crate::export_common::repo_root().join("scripts/fixture-api.sh");
    let cmd = |args: &[&str]| {
        let mut c = std::process::Command::new("bash");
        c.arg(&script)
            .args(args)
            .env("FIXTURE_API_STATE", state.path())
            .env("FIXTURE_API_CLASSES", state.path().join("classes"));
        crate::export_common::run(&mut c)
    };
    let (code, text) = cmd(&["start", "jaxrs", "0"]);
    assert_eq!(code, 0, "{text}");
    let url = text
        .lines()
        .rev()
        .find(|l| l.starts_with("http://127.0.0.1:"))
        .unwrap_or_else(|| panic!("no base URL in {text}"))
        .to_string();
    let port: u16 = url.rsplit(':').next().unwrap().parse().unwrap();
    let addr = std::net::SocketAddr::from(([127, 0, 0, 1], port));
    assert!(std::net::TcpStream::connect(addr).is_ok(), "{url} answers");
    let (code, text) = cmd(&["start", "jaxrs", "0"]);
    assert_eq!(code, 1, "a second start is refused: {text}");
    assert!(text.contains("already running"), "{text}");
    let (code, text) = cmd(&["stop", "jaxrs"]);
    assert_eq!(code, 0, "{text}");
    assert!(text.contains("stopped pid"), "{text}");
    assert!(
        std::net::TcpStream::connect(addr).is_err(),
        "nothing listens on {url} after stop"
    );
    assert!(!state.path().join("server.pid").exists());

    let (code, text) = cmd(&["start", "struts", "0"]);
    assert_eq!(code, 1, "{text}");
    assert!(
        text.contains("unknown fixture 'struts' (petstore, spring or jaxrs)"),
        "{text}"
    );
}
