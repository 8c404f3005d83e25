//! `ctrl-t` run scopes (accepted and edited, all, failing, to review) and the reset
//! command that gives the run fresh state and isolates its failures, remembered in
//! `SESSION/tui.json` like the base URL.

use crate::tui_common::tiny_api;
use crate::tui_undo::{Bench, GET_PETS};
use mastor::model::Outcome;
use mastor::tui::executor::{Executor, Launchers};
use mastor::tui::filters::VerdictFilter;
use mastor::tui::oracle_run::RunScope;
use mastor::tui::state::Popup;
use mastor::tui::tasks::{TaskKind, Work};
use mastor::tui::update::{Effect, handle_key};

/// Types `text` into whatever has the keys, one character at a time.
fn type_text(b: &mut Bench, text: &str) {
    for c in text.chars() {
        handle_key(&mut b.app, crate::tui_undo::key(&c.to_string()));
    }
}

/// The o_ids an effect list asks to run, and its reset command.
fn asked(effects: &[Effect]) -> (Vec<String>, Option<String>) {
    match effects {
        [
            Effect::Start {
                work: Work::Oracles { only, reset, .. },
                ..
            },
        ] => (only.clone(), reset.clone()),
        other => panic!("expected one oracle run, got {other:?}"),
    }
}

#[test]
fn ctrl_t_offers_all_failing_and_to_review_scopes() {
    let mut b = Bench::new();
    // Accept the first oracle of GET /pets: it leaves "to review", stays in "all".
    b.press("<enter>a<esc>");
    let accepted = GET_PETS[0];
    // "all": down once.
    b.press("<C-t><down>");
    type_text(&mut b, "http://127.0.0.1:1");
    let (all, reset) = asked(&handle_key(&mut b.app, crate::tui_undo::key("<enter>")));
    assert_eq!(reset, None);
    assert!(all.contains(&accepted.to_string()), "{all:?}");
    assert!(
        GET_PETS.iter().all(|o| all.contains(&o.to_string())),
        "{all:?}"
    );
    b.app.tasks.end(TaskKind::Oracles);
    // "to review": up once from the default wraps to the last scope.
    b.press("<C-t><up>");
    let (to_review, _) = asked(&handle_key(&mut b.app, crate::tui_undo::key("<enter>")));
    assert!(!to_review.contains(&accepted.to_string()), "{to_review:?}");
    assert_eq!(to_review.len(), all.len() - 1, "{to_review:?} vs {all:?}");
    b.app.tasks.end(TaskKind::Oracles);
    // "failing": the oracles whose latest verdict failed or errored.
    let mut failing: Vec<String> = b
        .app
        .view
        .verdicts
        .iter()
        .filter(|(_, o)| matches!(o, Outcome::Fail | Outcome::Error))
        .map(|(id, _)| id.clone())
        .collect();
    failing.sort();
    assert!(!failing.is_empty(), "the fixture has failures");
    b.press("<C-t><down><down>");
    match b.app.popups.last() {
        Some(Popup::RunOracles(r)) => assert_eq!(r.scope.label(), "failing"),
        other => panic!("expected the run dialog, got {other:?}"),
    }
    let (only, _) = asked(&handle_key(&mut b.app, crate::tui_undo::key("<enter>")));
    assert_eq!(only, failing);
    b.app.tasks.end(TaskKind::Oracles);
    // Without any failing verdict: nothing to run, said so, nothing started.
    b.app.view.verdicts.clear();
    b.press("<C-t><down><down>");
    assert!(handle_key(&mut b.app, crate::tui_undo::key("<enter>")).is_empty());
    assert!(b.status().contains("no failing oracles"), "{}", b.status());
    assert!(b.app.tasks.get(TaskKind::Oracles).is_none());
}

#[test]
fn a_run_with_a_reset_command_isolates_failures_and_remembers_the_command() {
    let mut b = Bench::new();
    let url = tiny_api();
    let marker = b.dir.path().join("resets.txt");
    let cmd = format!("echo r >> '{}'", marker.display());
    // Every oracle, with the reset command typed after tab.
    b.press("<C-t><down>");
    for _ in 0..40 {
        handle_key(&mut b.app, crate::tui_undo::key("<bs>"));
    }
    type_text(&mut b, &url);
    b.press("<tab>");
    type_text(&mut b, &cmd);
    let effects = handle_key(&mut b.app, crate::tui_undo::key("<enter>"));
    // Every oracle with a reset command is the triage task: run, isolate, show failures.
    match effects.as_slice() {
        [
            Effect::Start {
                work: Work::Triage { all, reset, .. },
                ..
            },
        ] => {
            assert_eq!(reset, &cmd);
            assert_eq!(all, &RunScope::All.ids(&b.app.view));
        }
        other => panic!("expected the triage task, got {other:?}"),
    }
    assert!(b.app.tasks.get(TaskKind::Triage).is_some());
    // While it is registered, a second run is refused.
    b.press("<C-t>");
    assert!(
        b.status().contains("triage run is in progress"),
        "{}",
        b.status()
    );
    assert!(b.app.filters.verdict.is_none());
    let mut exec = Executor::threads(b.session.dir(), Launchers::default());
    assert!(crate::tui_common::start_and_wait(
        &b.session, &mut b.app, &mut exec, effects, 60
    ));
    let (status, error) = b.app.status.clone().unwrap();
    assert!(!error, "{status}");
    assert!(status.contains("isolated: "), "{status}");
    assert!(status.contains("showing the failures"), "{status}");
    assert!(b.app.tasks.busy().is_none());
    // Triage starts on the failures: the lists keep only failing oracles.
    assert_eq!(b.app.filters.verdict, Some(VerdictFilter::Failing));
    // Every failure carries its isolation label, and the command ran once per failure
    // at least (isolation), besides the one reset at the start of the run.
    let latest: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(b.session.dir().join("verdicts/latest.json")).unwrap(),
    )
    .unwrap();
    let verdicts = latest["verdicts"].as_array().unwrap();
    let failing: Vec<&serde_json::Value> = verdicts
        .iter()
        .filter(|v| matches!(v["outcome"].as_str(), Some("fail" | "error")))
        .collect();
    assert!(!failing.is_empty(), "{latest}");
    for v in &failing {
        assert!(v["isolation"].is_string(), "no isolation label: {v}");
    }
    let resets = std::fs::read_to_string(&marker).unwrap_or_default();
    assert!(resets.lines().count() >= failing.len(), "{resets:?}");
    // The failing scope now has exactly the failures; the command is offered again
    // after a relaunch.
    let ids: Vec<String> = failing
        .iter()
        .map(|v| v["o_id"].as_str().unwrap().to_string())
        .collect();
    let mut b = b.relaunch();
    b.press("<C-t>");
    match b.app.popups.last() {
        Some(Popup::RunOracles(r)) => assert_eq!(r.reset.text(), cmd),
        other => panic!("expected the run dialog, got {other:?}"),
    }
    b.press("<down><down>");
    let (only, reset) = asked(&handle_key(&mut b.app, crate::tui_undo::key("<enter>")));
    let mut want = ids.clone();
    want.sort();
    assert_eq!(only, want);
    assert_eq!(reset.as_deref(), Some(cmd.as_str()));
}
