//! The whole loop on a real framework: the Spring MVC 4.3 fixture
//! (tests/fixtures/shop-spring-run, embedded Jetty 9.4) started live. Its hand-checked
//! reference suite passes under `mastor check`, JUnit and newman, and a wrong copy fails
//! in each; a scripted-model `mastor run` whose oracles are checked against the live
//! server (the model's guess at Spring's own status for a bad path variable fails);
//! `mutate` building and starting copies with the fixture's scripts, with hand-checked
//! kills and survivors. Needs the Debian jars of scripts/setup.sh.

use crate::framework_support::*;
use serde_json::json;

const GET: &str = "GET /api/products/{id}";
const PAY: &str = "POST /api/orders/{id}/pay";
const PRODUCT_SERVICE: &str = "src/main/java/shop/service/ProductService.java";
const ADVICE: &str = "src/main/java/shop/web/ApiErrorAdvice.java";

const SPRING: Framework = Framework {
    fixture: "spring",
    dir: "shop-spring-run",
    get: GET,
    transition: PAY,
    runs: 48,
    runs_note: "45 oracles and 3 sequences ran",
    // Spring itself answers 400 for a @PathVariable long that is not a number; a suite
    // that expects 404 there (a plausible guess from the code alone) must fail.
    check_wrong: WrongStatus {
        test_id: "fi_get_not_a_number",
        status: 404,
        o_id: "GET /api/products/{id}#fi_get_not_a_number",
    },
    export_wrong: ("fi_create_text_plain", 400),
    // The scan maps both operations to their Spring handlers.
    scan_names: &["ProductController", "OrderController"],
    run_verdicts: &[
        ("GET /api/products/{id}#bi_get_zero", "pass"),
        ("GET /api/products/{id}#fi_get_abc", "fail"),
        ("GET /api/products/{id}#fv_get_dune", "pass"),
        ("POST /api/orders/{id}/pay#fi_pay_missing", "pass"),
        ("POST /api/orders/{id}/pay#fi_pay_shipped", "pass"),
        ("POST /api/orders/{id}/pay#fv_pay_new", "pass"),
    ],
    // ProductService.java:50 `throw new NotFoundException(..)` in get(): removed, the
    // controller returns null and Spring answers 200 with no body; fi_get_missing (404)
    // kills it. :60 `messages.add("name must be at most 40 characters")`: no oracle of
    // this suite creates a product, so it survives. ApiErrorAdvice.java:24/:39 (status
    // swaps in the @ControllerAdvice): no bundle's import closure holds the advice
    // (nothing imports it), so they are not covered.
    mutate: Mutate {
        suite: &["fv_get_dune", "fi_get_missing", "fi_pay_shipped"],
        lines: &[
            (PRODUCT_SERVICE, 50),
            (PRODUCT_SERVICE, 60),
            (ADVICE, 24),
            (ADVICE, 39),
        ],
        operators: "remove_throw,remove_field_write,status_swap",
        extra_args: &["--files", "src/main/java/shop/**/*.java"],
        outcomes: &[
            (PRODUCT_SERVICE, 50, "remove_throw", "caught"),
            (PRODUCT_SERVICE, 60, "remove_field_write", "missed"),
            (ADVICE, 24, "status_swap", "not_covered"),
            (ADVICE, 39, "status_swap", "not_covered"),
        ],
        killer: "GET /api/products/{id}#fi_get_missing",
        score: 0.5,
        score_line: "mutation score 50.0%",
    },
};

#[test]
fn reference_suite_passes_against_live_spring_and_a_wrong_status_fails() {
    reference_suite_passes_and_a_wrong_status_fails(&SPRING);
}

#[test]
fn junit_and_postman_exports_pass_against_live_spring_and_a_wrong_copy_fails() {
    junit_and_postman_exports_pass_and_a_wrong_copy_fails(&SPRING);
}

/// Extraction, generation and review of GET /api/products/{id} and the pay transition.
/// One oracle is the kind of mistake a model makes without the framework's facts: it
/// expects 404 for a non-numeric id, where Spring answers 400 before the handler runs.
fn spring_script() -> mastor::llm::scripted::Script {
    let get_oracles = json!({"oracles": [
        {"test_id": "fv_get_dune", "oracle_strategy": "fv", "input": {"path": {"id": "1"}},
         "assertions": [{"type": "status", "expected": 200},
                        {"type": "field", "field_path": "name", "op": "equals", "expected": "Dune"}]},
        {"test_id": "fi_get_abc", "oracle_strategy": "fi", "input": {"path": {"id": "abc"}},
         "assertions": [{"type": "status", "expected": 404}]},
        {"test_id": "bi_get_zero", "oracle_strategy": "bi", "input": {"path": {"id": "0"}},
         "assertions": [{"type": "status", "expected": 404}]}]});
    let pay_oracles = json!({"oracles": [
        {"test_id": "fv_pay_new", "oracle_strategy": "fv", "input": {"path": {"id": "1"}},
         "assertions": [{"type": "status", "expected": 200},
                        {"type": "field", "field_path": "status", "op": "equals", "expected": "PAID"}]},
        {"test_id": "fi_pay_shipped", "oracle_strategy": "fi", "input": {"path": {"id": "3"}},
         "assertions": [{"type": "status", "expected": 409}]},
        {"test_id": "fi_pay_missing", "oracle_strategy": "fi", "input": {"path": {"id": "99"}},
         "assertions": [{"type": "status", "expected": 404}]}]});
    model_script(
        &SPRING,
        (
            context(
                &["id", "name", "stock"],
                200,
                &[(404, "no product with id")],
            ),
            get_oracles,
        ),
        (
            context(
                &["id", "status"],
                200,
                &[(404, "no order with id"), (409, "order is not NEW")],
            ),
            pay_oracles,
        ),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn scripted_run_on_spring_then_check_against_the_live_server() {
    scripted_run_then_check_against_the_live_server(&SPRING, spring_script()).await;
}

#[test]
fn mutate_builds_and_starts_spring_copies_with_hand_checked_outcomes() {
    mutate_builds_and_starts_copies_with_hand_checked_outcomes(&SPRING);
}
