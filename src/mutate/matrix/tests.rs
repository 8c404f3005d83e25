//! The score, kills, unique kills and redundancy on a hand-made matrix.

use super::*;
use crate::mutate::operators::Operator;

fn mutant(id: &str, op: &str) -> Mutant {
    Mutant {
        id: id.into(),
        operator: Operator::StatusSwap,
        file: "A.java".into(),
        line: 1,
        column: 1,
        start: 0,
        end: 1,
        before: "a".into(),
        after: "b".into(),
        ops: vec![op.into()],
    }
}

fn run(id: &str, status: Status, failed: &[&str]) -> (String, MutantOutcome) {
    (
        id.into(),
        MutantOutcome {
            mutant: id.into(),
            key: "k".into(),
            status,
            failed: failed
                .iter()
                .map(|o| Kill {
                    o_id: o.to_string(),
                    assertion: "status".into(),
                })
                .collect(),
            detail: String::new(),
        },
    )
}

#[test]
fn score_counts_killed_over_covered_viable_and_oracles_get_kills() {
    let mutants: Vec<Mutant> = ["m1", "m2", "m3", "m4", "m5", "m6", "m7"]
        .iter()
        .map(|id| mutant(id, "GET /a"))
        .collect();
    let baseline = Baseline {
        included: vec!["a".into(), "b".into(), "c".into(), "d".into()],
        excluded: vec![Excluded {
            o_id: "x".into(),
            reason: ExcludeReason::FailsOnOriginal,
            isolation: Some("wrong".into()),
            message: "m".into(),
        }],
    };
    let runs: BTreeMap<String, MutantOutcome> = [
        run("m1", Status::Caught, &["a", "b"]),
        run("m2", Status::Caught, &["a"]),
        run("m3", Status::Timeout, &[]),
        run("m4", Status::Missed, &[]),
        run("m5", Status::Unviable, &[]),
        run("m6", Status::NotCovered, &[]),
        // Only the excluded oracle failed: a survivor.
        run("m7", Status::Caught, &["x"]),
    ]
    .into_iter()
    .collect();
    let (matrix, summary) = analyse(&mutants, &baseline, &runs, &BTreeSet::new());
    let t = &summary.total;
    assert_eq!(
        (t.caught, t.timeout, t.missed, t.unviable, t.not_covered),
        (2, 1, 2, 1, 1)
    );
    assert_eq!(t.killed, 3);
    assert_eq!(t.score, Some(0.6));
    let fig = |o: &str| {
        summary
            .per_oracle
            .iter()
            .find(|f| f.o_id == o)
            .unwrap()
            .clone()
    };
    assert_eq!((fig("a").kills, fig("a").unique_kills), (2, 1));
    assert_eq!((fig("b").kills, fig("b").unique_kills), (1, 0));
    assert_eq!(fig("b").subsumed_by.as_deref(), Some("a"));
    assert_eq!(summary.redundant, vec!["b".to_string()]);
    assert_eq!(
        summary.kills_nothing,
        vec!["c".to_string(), "d".to_string()]
    );
    assert_eq!(summary.per_operation["GET /a"].score, Some(0.6));
    let m7 = matrix.mutants.iter().find(|r| r.id == "m7").unwrap();
    assert_eq!(m7.status, Status::Missed);
    assert!(m7.killed_by.is_empty());
    // Rejecting `a` loses m2 (only `a` kills it); m1 is still killed by `b`.
    let removed = BTreeSet::from(["a".to_string()]);
    assert_eq!(score_without(&matrix, &removed), Some(0.4));
}

#[test]
fn of_two_equal_oracles_only_the_later_is_redundant() {
    let mutants = vec![mutant("m1", "GET /a")];
    let baseline = Baseline {
        included: vec!["a".into(), "b".into()],
        excluded: vec![],
    };
    let runs = [run("m1", Status::Caught, &["a", "b"])]
        .into_iter()
        .collect();
    let (_, summary) = analyse(&mutants, &baseline, &runs, &BTreeSet::new());
    assert_eq!(summary.redundant, vec!["b".to_string()]);
}

#[test]
fn survivors_marked_equivalent_leave_the_denominator_and_kills_overrule_the_mark() {
    let mutants = vec![
        mutant("m1", "GET /a"),
        mutant("m2", "GET /a"),
        mutant("m3", "GET /a"),
    ];
    let baseline = Baseline {
        included: vec!["a".into()],
        excluded: vec![],
    };
    let runs = [
        run("m1", Status::Caught, &["a"]),
        run("m2", Status::Missed, &[]),
        run("m3", Status::Missed, &[]),
    ]
    .into_iter()
    .collect();
    let marked = BTreeSet::from(["m1".to_string(), "m2".to_string()]);
    let (matrix, summary) = analyse(&mutants, &baseline, &runs, &marked);
    assert_eq!(summary.total.equivalent, 1);
    assert_eq!(summary.total.score, Some(0.5), "1 killed of m1 and m3");
    assert_eq!(matrix.mutants[0].status, Status::Caught);
    assert_eq!(matrix.mutants[1].status, Status::Equivalent);
}
