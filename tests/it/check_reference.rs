//! The fixture's reference suite passes in full against a fresh petstore-jdk, and every
//! oracle of its wrong twin fails on exactly its one wrong expectation.

use crate::runner_support;

use mastor::model::Outcome;
use mastor::runner::RunReport;
use runner_support::{fixture_url, mastor, repo_root};

fn check_json(suite: &str) -> (i32, RunReport, String) {
    let path = repo_root()
        .join("tests/fixtures/petstore-jdk/suites")
        .join(suite);
    let (code, out, err) = mastor(&[
        "check",
        path.to_str().unwrap(),
        "--base-url",
        fixture_url(),
        "--json",
    ]);
    let report: RunReport = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {err}"));
    (code, report, err)
}

#[test]
fn reference_passes_and_wrong_fails_every_oracle_once() {
    // One test, run in order: the reference suite expects the fixture's seed state.
    let (code, reference, err) = check_json("reference.json");
    assert!(
        !err.contains("skipped:"),
        "every reference oracle loads: {err}"
    );
    let not_passing: Vec<&str> = reference
        .verdicts
        .iter()
        .filter(|v| v.outcome != Outcome::Pass)
        .map(|v| v.o_id.as_str())
        .collect();
    assert!(
        not_passing.is_empty(),
        "reference oracles not passing: {not_passing:?}"
    );
    assert!(
        reference.verdicts.len() >= 30,
        "{}",
        reference.verdicts.len()
    );
    assert_eq!(code, 0);

    let (code, wrong, err) = check_json("wrong.json");
    assert!(!err.contains("skipped:"), "every wrong oracle loads: {err}");
    assert_eq!(code, 1);
    assert_eq!(wrong.verdicts.len(), reference.verdicts.len());
    for v in &wrong.verdicts {
        assert_eq!(
            v.outcome,
            Outcome::Fail,
            "{} should fail: {:?}",
            v.o_id,
            v.steps
        );
        let failing = v
            .steps
            .iter()
            .flat_map(|s| &s.assertions)
            .filter(|a| a.outcome != Outcome::Pass)
            .count();
        assert_eq!(failing, 1, "{} fails on its one wrong expectation", v.o_id);
    }
    assert_eq!(wrong.summary.failed, wrong.verdicts.len());
}
