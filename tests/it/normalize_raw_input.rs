//! Normalization keeps the verbatim input forms a generator may write (`path_raw` for an
//! already-encoded path segment, `raw_body` for a deliberately malformed body), and strips
//! a malformed one with a flag like any other unusable input key.

use mastor::agents::normalize::{BundleIndex, normalize_single, rule};
use serde_json::json;

const OP: &str = "POST /pets/{id}";

#[test]
fn normalize_keeps_path_raw_and_raw_body() {
    let raw = json!({"oracles": [
        {"test_id": "fi_malformed", "op_id": OP, "oracle_strategy": "fi",
         "input": {"path_raw": {"id": "a%2Bb"},
                   "raw_body": {"content_type": "application/json", "text": "{\"name\": "}},
         "assertions": [{"type": "status", "expected": 400}]},
        {"test_id": "fi_bad_raw", "op_id": OP, "oracle_strategy": "fi",
         "input": {"path": {"id": 1}, "raw_body": "{oops"},
         "assertions": [{"type": "status", "expected": 400}]}
    ]});
    let out = normalize_single(OP, &raw, None, &BundleIndex::default());
    assert_eq!(out.kept.len(), 2, "{:?} {:?}", out.dropped, out.flags);
    let first = &out.kept[0].input;
    assert_eq!(first.path_raw["id"], "a%2Bb");
    let body = first.raw_body.as_ref().expect("raw body kept");
    assert_eq!(
        (body.content_type.as_str(), body.text.as_str()),
        ("application/json", "{\"name\": ")
    );
    let second = &out.kept[1];
    assert!(second.input.raw_body.is_none());
    assert!(
        out.flags.iter().any(|f| f.test_id == second.test_id
            && f.rule == rule::STRIP_INPUT_KEYS
            && f.detail.contains("`raw_body` is malformed")),
        "{:?}",
        out.flags
    );
}
