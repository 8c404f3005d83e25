//! Property tests of the JSON repair of model answers: arbitrary text never panics or
//! hangs, and valid JSON wrapped the ways models wrap it is always recovered. Case
//! counts are modest so this runs in a few seconds; crashing inputs found are kept as
//! regression cases below.

use mastor::llm::repair::extract_json;
use proptest::prelude::*;
use serde_json::{Value, json};
use std::time::Duration;

/// Runs `f` on its own thread; a hang fails the test instead of stalling CI.
fn guarded(what: &str, f: impl FnOnce() + Send + 'static) {
    let (tx, rx) = std::sync::mpsc::channel();
    let handle = std::thread::spawn(move || {
        f();
        let _ = tx.send(());
    });
    match rx.recv_timeout(Duration::from_secs(60)) {
        Ok(()) => handle.join().unwrap(),
        // The sender was dropped: the closure panicked; show its message.
        Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => {
            if let Err(p) = handle.join() {
                std::panic::resume_unwind(p)
            }
        }
        Err(_) => panic!("{what} still running after 60 s"),
    }
}

/// Text made of what JSON repair reacts to, so cases hit its branches often.
fn jsonish() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop_oneof![
            Just("{".to_string()),
            Just("}".to_string()),
            Just("[".to_string()),
            Just("]".to_string()),
            Just("\"".to_string()),
            Just("'".to_string()),
            Just("\\".to_string()),
            Just(",".to_string()),
            Just(":".to_string()),
            Just("\n".to_string()),
            Just("```json\n".to_string()),
            Just("```".to_string()),
            Just("<think>".to_string()),
            Just("</think>".to_string()),
            Just("True".to_string()),
            Just("None".to_string()),
            Just("null".to_string()),
            "[a-z0-9 .é]{0,6}",
        ],
        0..60,
    )
    .prop_map(|parts| parts.concat())
}

fn small_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i32>().prop_map(|n| json!(n)),
        "[a-zA-Z0-9 \"'\\\\\n{}]{0,12}".prop_map(Value::String),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::btree_map("[a-z]{1,6}", inner, 0..4)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

#[test]
fn arbitrary_text_never_panics_or_hangs() {
    guarded("extract_json on arbitrary text", || {
        let mut runner = proptest::test_runner::TestRunner::new(ProptestConfig {
            cases: 512,
            ..ProptestConfig::default()
        });
        runner
            .run(&prop_oneof![any::<String>(), jsonish()], |text| {
                let _ = extract_json(&text);
                Ok(())
            })
            .unwrap();
    });
}

#[test]
fn wrapped_valid_json_is_recovered() {
    guarded("extract_json on wrapped JSON", || {
        let mut runner = proptest::test_runner::TestRunner::new(ProptestConfig {
            cases: 256,
            ..ProptestConfig::default()
        });
        let strategy = (small_value().prop_map(|v| json!({ "v": v })), 0usize..3);
        runner
            .run(&strategy, |(value, wrap)| {
                let text = value.to_string();
                let answer = match wrap {
                    0 => text,
                    1 => format!("Here you are:\n```json\n{text}\n```\nAnything else?"),
                    _ => format!("<think>{{ not this }}</think>\n{text}"),
                };
                let got = extract_json(&answer)
                    .map_err(|e| TestCaseError::fail(format!("{e} on {answer:?}")))?;
                prop_assert_eq!(got.value, value);
                Ok(())
            })
            .unwrap();
    });
}

/// Shapes that are cheap to write and costly to handle naively.
#[test]
fn pathological_answers_end_in_time() {
    guarded("extract_json on pathological answers", || {
        let cases = [
            "[".repeat(100_000),
            "{\"a\":".repeat(50_000),
            "\"".repeat(100_001),
            "```json\n".repeat(20_000),
            "<think>".repeat(20_000),
            format!("prose {}", "{[".repeat(30_000)),
            "\\".repeat(100_001),
            "'".repeat(100_001),
            ",".repeat(100_000),
        ];
        for text in cases {
            let _ = extract_json(&text);
        }
    });
}
