//! Append-only journals: replay with undo, torn tails, damage, concurrency; slugs.

use mastor::model::{Decision, ReviewDecision};
use mastor::store::{
    Event, EventKind, JournalEntry, Manifest, Session, StoreError, Undo, op_slug, replay,
};
use std::collections::HashSet;
use std::io::Write;
use std::sync::Arc;

fn new_session() -> (tempfile::TempDir, Session) {
    let tmp = tempfile::tempdir().unwrap();
    let s = Session::create(tmp.path(), Manifest::new("/p", "")).unwrap();
    (tmp, s)
}

fn decision(o_id: &str, d: Decision, note: &str) -> ReviewDecision {
    ReviewDecision {
        o_id: o_id.into(),
        decision: d,
        edited: None,
        note: Some(note.into()),
        at: "2026-12-02T10:00:00Z".into(),
        step: None,
    }
}

fn append_raw(path: &std::path::Path, bytes: &[u8]) {
    let mut f = std::fs::OpenOptions::new().append(true).open(path).unwrap();
    f.write_all(bytes).unwrap();
}

#[test]
fn replay_last_decision_wins_and_undo_walks_back() {
    let undo = |o: &str| {
        JournalEntry::Undo(Undo {
            undo: o.into(),
            at: "2026-12-02T10:00:01Z".into(),
        })
    };
    let d = |o: &str, k, n: &str| JournalEntry::Decision(decision(o, k, n));
    let entries = vec![
        d("A#1", Decision::Accepted, "first"),
        d("A#1", Decision::Rejected, "second"),
        d("B#1", Decision::Edited, "b"),
        undo("A#1"),
        undo("C#1"), // nothing to undo: ignored
        d("C#1", Decision::Rejected, "c"),
        undo("C#1"),
    ];
    let state = replay(&entries);
    assert_eq!(state.len(), 2, "{state:?}");
    assert_eq!(state["A#1"].decision, Decision::Accepted);
    assert_eq!(state["A#1"].note.as_deref(), Some("first"));
    assert_eq!(state["B#1"].decision, Decision::Edited);
    let mut more = entries.clone();
    more.push(undo("A#1"));
    assert!(
        !replay(&more).contains_key("A#1"),
        "all decisions undone → pending"
    );
}

#[test]
fn decisions_and_undos_persist_across_reopen() {
    let (tmp, s) = new_session();
    s.append_decision(&decision("op#t1", Decision::Accepted, "ok"))
        .unwrap();
    s.append_decision(&decision("op#t1", Decision::Rejected, "no"))
        .unwrap();
    s.append_decision(&decision("op#t2", Decision::Accepted, "ok"))
        .unwrap();
    s.append_undo("op#t1").unwrap();
    drop(s);
    let s = Session::open(tmp.path()).unwrap();
    assert_eq!(s.read_review_journal().unwrap().len(), 4);
    let state = s.read_decisions().unwrap();
    assert_eq!(state["op#t1"].decision, Decision::Accepted);
    assert_eq!(state["op#t2"].decision, Decision::Accepted);
    // Decision lines are plain ReviewDecision objects, readable without our enum.
    let text = std::fs::read_to_string(s.review_journal_path()).unwrap();
    let first: ReviewDecision = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    assert_eq!(first.o_id, "op#t1");
}

#[test]
fn torn_last_line_is_skipped_then_repaired_on_next_append() {
    let (tmp, s) = new_session();
    s.append_event(&Event::new(EventKind::AgentStarted, "extraction").op("GET /a"))
        .unwrap();
    s.append_event(&Event::new(EventKind::AgentFinished, "extraction").tokens(10, 5))
        .unwrap();
    drop(s);
    let events = tmp.path().join("events.jsonl");
    append_raw(&events, br#"{"at":"2026-12-02T10:00:00Z","kind":"agent_fa"#);
    let s = Session::open(tmp.path()).unwrap();
    let read = s.read_events().unwrap();
    assert_eq!(read.len(), 2);
    assert_eq!(read[1].tokens_out, Some(5));
    s.append_event(&Event::new(EventKind::Note, "x").message("after crash"))
        .unwrap();
    let read = s.read_events().unwrap();
    assert_eq!(
        read.len(),
        3,
        "the torn fragment must not swallow the new record"
    );
    assert_eq!(read[2].message.as_deref(), Some("after crash"));
}

#[test]
fn complete_record_missing_only_its_newline_is_kept() {
    let (tmp, s) = new_session();
    s.append_decision(&decision("a", Decision::Accepted, "1"))
        .unwrap();
    drop(s);
    let line = serde_json::to_string(&decision("b", Decision::Rejected, "2")).unwrap();
    append_raw(&tmp.path().join("review.jsonl"), line.as_bytes());
    let s = Session::open(tmp.path()).unwrap();
    s.append_decision(&decision("c", Decision::Edited, "3"))
        .unwrap();
    let state = s.read_decisions().unwrap();
    let ids: Vec<&str> = state.keys().map(String::as_str).collect();
    assert_eq!(ids, vec!["a", "b", "c"]);
}

#[test]
fn damaged_middle_line_is_an_error_naming_file_and_line() {
    let (tmp, s) = new_session();
    s.append_decision(&decision("a", Decision::Accepted, "1"))
        .unwrap();
    drop(s);
    let path = tmp.path().join("review.jsonl");
    append_raw(&path, b"garbage\n");
    let line = serde_json::to_string(&decision("b", Decision::Accepted, "2")).unwrap();
    append_raw(&path, format!("{line}\n").as_bytes());
    let s = Session::open(tmp.path()).unwrap();
    let err = s.read_decisions().unwrap_err();
    match &err {
        StoreError::CorruptJournal { line, .. } => assert_eq!(*line, 2),
        other => panic!("expected CorruptJournal, got {other}"),
    }
    assert!(err.to_string().contains("review.jsonl"), "{err}");
}

#[test]
fn concurrent_appends_produce_whole_lines() {
    let (tmp, s) = new_session();
    let s = Arc::new(s);
    let threads: Vec<_> = (0..8)
        .map(|t| {
            let s = Arc::clone(&s);
            std::thread::spawn(move || {
                for i in 0..150 {
                    let e = Event::new(EventKind::AgentRetry, format!("agent{t}"))
                        .message(format!("{t}:{i}:{}", "y".repeat(i * 7)));
                    s.append_event(&e).unwrap();
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    let text = std::fs::read_to_string(tmp.path().join("events.jsonl")).unwrap();
    assert!(text.ends_with('\n'));
    let mut seen = HashSet::new();
    for line in text.lines() {
        let e: Event = serde_json::from_str(line).expect("every line is a whole record");
        let msg = e.message.unwrap();
        let key: Vec<&str> = msg.splitn(3, ':').take(2).collect();
        assert!(seen.insert(key.join(":")), "duplicate {msg}");
    }
    assert_eq!(seen.len(), 8 * 150);
    assert_eq!(s.read_events().unwrap().len(), 8 * 150);
}

#[test]
fn event_lines_omit_unknown_fields_and_use_snake_case_kinds() {
    let e = Event::new(EventKind::PhaseStarted, "").phase("single_op");
    let v = serde_json::to_value(&e).unwrap();
    assert_eq!(v["kind"], "phase_started");
    assert_eq!(v["phase"], "single_op");
    assert!(
        v.get("tokens_in").is_none() && v.get("op_id").is_none(),
        "{v}"
    );
}

#[test]
fn slugs_are_readable_safe_stable_and_unique() {
    let s = op_slug("GET /pets/{id}");
    assert!(s.starts_with("get_pets_id-"), "{s}");
    assert_eq!(s.len(), "get_pets_id-".len() + 8);
    assert_eq!(s, op_slug("GET /pets/{id}"), "stable");
    let long = format!("GET /{}", "segment/".repeat(60));
    let tricky = [
        "GET /pets/{id}",
        "get /pets/{id}",
        "GET /pets/{id}/",
        "GET /pets/id",
        "GET /pets/{Id}",
        "DELETE /pets/{id}",
        "GET /a-b",
        "GET /a_b",
        "GET /a.b",
        "GET /a/b",
        "GET /",
        "",
        "   ",
        "GET /ünïcödé/{ß}",
        "GET /ÜNÏCÖDÉ/{ß}",
        "GET /../../etc/passwd",
        "GET /con",
        "GET /a\\b",
        "GET /a:b*c?d\"e<f>g|h",
        long.as_str(),
        &format!("{long}x"),
    ];
    let slugs: HashSet<String> = tricky.iter().map(|t| op_slug(t)).collect();
    assert_eq!(slugs.len(), tricky.len(), "{slugs:?}");
    for slug in &slugs {
        assert!(slug.len() <= 64 + 9, "{slug}");
        assert!(
            slug.chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_' || c == '-'),
            "{slug}"
        );
        assert!(!slug.starts_with(['-', '_', '.']), "{slug}");
    }
}
