//! Lenient readers for session files whose exact types belong to other layers: the
//! scan's `operations.json` entries (pipeline), call records (llm) and verdict files of
//! any age. Fields are looked for where any version put them, and what is missing
//! becomes a default, so an older or newer session still opens. Suites, groups and the
//! review journal are not read here: `suite::session` reads those, typed.

use super::view::{CallView, OpView};
use crate::model::{EvidenceRef, Verdict};
use serde_json::Value;

/// The first string found at one of `keys` (JSON pointers).
pub(crate) fn str_at<'a>(v: &'a Value, keys: &[&str]) -> Option<&'a str> {
    keys.iter()
        .find_map(|k| v.pointer(k).and_then(Value::as_str))
}

/// The first unsigned number found at one of `keys`, else 0.
fn u64_at(v: &Value, keys: &[&str]) -> u64 {
    keys.iter()
        .find_map(|k| v.pointer(k).and_then(Value::as_u64))
        .unwrap_or(0)
}

/// Reads one entry of `operations.json`. Its exact type belongs to the pipeline, so the
/// fields are looked for at the top level and under `spec`/`op`.
pub(crate) fn op_from_value(v: &Value) -> Option<OpView> {
    let method = str_at(v, &["/method", "/spec/method", "/op/method"]).unwrap_or("");
    let path = str_at(v, &["/path", "/spec/path", "/op/path"]).unwrap_or("");
    let op_id = match str_at(v, &["/op_id", "/spec/op_id", "/op/op_id"]) {
        Some(id) => id.to_string(),
        None if !method.is_empty() && !path.is_empty() => crate::model::op_id(method, path),
        None => return None,
    };
    let (m2, p2) = op_id.split_once(' ').unwrap_or(("", &op_id));
    let entry = v.get("entry").filter(|e| e.is_object()).and_then(|e| {
        let file = e.get("file")?.as_str()?.to_string();
        let line = e.get("line").and_then(Value::as_u64).unwrap_or(1) as usize;
        Some(EvidenceRef {
            file,
            start_line: line,
            end_line: line,
        })
    });
    let bundle = v
        .pointer("/bundle/files")
        .or_else(|| v.get("bundle"))
        .and_then(Value::as_array)
        .map(|files| {
            files
                .iter()
                .filter_map(|f| {
                    f.as_str()
                        .or_else(|| str_at(f, &["/path", "/file"]))
                        .map(str::to_string)
                })
                .collect()
        })
        .unwrap_or_default();
    let note = str_at(v, &["/excluded"])
        .map(|r| format!("excluded: {r}"))
        .or_else(|| str_at(v, &["/unmatched_reason"]).map(|r| format!("no handler found: {r}")));
    Some(OpView {
        note,
        method: if method.is_empty() { m2 } else { method }.to_ascii_uppercase(),
        path: if path.is_empty() { p2 } else { path }.to_string(),
        summary: str_at(v, &["/summary", "/spec/summary"]).map(str::to_string),
        op_id,
        entry,
        bundle,
        weak: str_at(v, &["/weak"]).map(str::to_string),
        ..OpView::default()
    })
}

/// Reads one call record leniently (its type belongs to the llm layer).
pub(crate) fn call_from_value(v: &Value, file_name: &str) -> CallView {
    let prompt = v
        .get("messages")
        .or_else(|| v.get("request_messages"))
        .and_then(Value::as_array)
        .map(|msgs| {
            msgs.iter()
                .map(|m| {
                    format!(
                        "── {} ──\n{}",
                        str_at(m, &["/role"]).unwrap_or("?"),
                        str_at(m, &["/content"]).unwrap_or("")
                    )
                })
                .collect::<Vec<_>>()
                .join("\n")
        })
        .unwrap_or_default();
    let attempts = match v.get("attempts") {
        Some(Value::Array(a)) => a.len() as u64,
        Some(n) => n.as_u64().unwrap_or(1),
        None => 1,
    };
    let drops = v
        .get("drops")
        .and_then(Value::as_array)
        .map(|d| {
            d.iter()
                .map(|x| {
                    (
                        str_at(x, &["/test_id"]).unwrap_or("?").to_string(),
                        str_at(x, &["/reason"]).unwrap_or("").to_string(),
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    CallView {
        id: str_at(v, &["/id", "/call_id"])
            .unwrap_or(file_name.trim_end_matches(".json"))
            .to_string(),
        agent: str_at(v, &["/agent"]).unwrap_or("?").to_string(),
        phase: str_at(v, &["/phase"]).unwrap_or("-").to_string(),
        op_id: str_at(v, &["/op_id"]).map(str::to_string),
        model: str_at(v, &["/model"]).unwrap_or("?").to_string(),
        tokens_in: u64_at(v, &["/usage/prompt_tokens", "/prompt_tokens", "/tokens_in"]),
        tokens_out: u64_at(
            v,
            &[
                "/completion_tokens",
                "/tokens_out",
                "/usage/completion_tokens",
            ],
        ),
        cost_usd: ["/cost_usd", "/cost"]
            .iter()
            .find_map(|k| v.pointer(k).and_then(Value::as_f64))
            .unwrap_or(0.0),
        wall_ms: u64_at(v, &["/wall_ms", "/elapsed_ms"]),
        attempts,
        prompt,
        answer: str_at(v, &["/raw_answer", "/answer", "/raw"])
            .unwrap_or("")
            .to_string(),
        parse_error: str_at(v, &["/parse_error"]).map(str::to_string),
        error: str_at(v, &["/error"]).map(str::to_string),
        cache_hit: v.get("cache_hit").and_then(Value::as_bool).unwrap_or(false),
        notes: call_notes(v),
        drops,
    }
}

/// Retries, repairs and rejected answers of a call record, one line each.
fn call_notes(v: &Value) -> Vec<String> {
    let mut notes = Vec::new();
    for r in v
        .get("retries")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        notes.push(format!(
            "retry after attempt {}: {} (waited {} ms)",
            r.get("attempt").and_then(Value::as_u64).unwrap_or(0),
            str_at(r, &["/reason"]).unwrap_or("?"),
            r.get("wait_ms").and_then(Value::as_u64).unwrap_or(0)
        ));
    }
    for r in v
        .get("repairs")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        notes.push(format!("JSON repaired: {}", r.as_str().unwrap_or("?")));
    }
    if v.get("reasked").and_then(Value::as_bool) == Some(true) {
        notes.push("corrective re-ask sent".to_string());
    }
    for a in v
        .get("rejected_answers")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        notes.push(format!("rejected answer: {}", a.as_str().unwrap_or("?")));
    }
    notes
}

/// Verdicts from a verdict file: a bare list, an object with `verdicts`, or one verdict.
pub(crate) fn verdicts_from_value(v: Value) -> Vec<Verdict> {
    match v {
        Value::Array(items) => items
            .into_iter()
            .filter_map(|i| serde_json::from_value(i).ok())
            .collect(),
        Value::Object(ref m) if m.contains_key("verdicts") => {
            verdicts_from_value(m.get("verdicts").cloned().unwrap_or(Value::Null))
        }
        other => serde_json::from_value(other).ok().into_iter().collect(),
    }
}
