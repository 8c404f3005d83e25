//! Postman collection v2.1 export (the paper's ToPostmanAssertify, runnable with newman).
//!
//! Folders in the execution model's order (`crate::execution`, laid out by `order`): one
//! per block of one stage and one operation (`1. read-only: GET /pets`, `2. fresh state:
//! POST /pets`, ...), then the sequence groups with a folder per sequence, its steps in
//! order. The shared assertion library is defined once, in the collection's test script
//! (Postman runs it before each request's own); each request's test script has one
//! `pm.test` per assertion that calls it; test names start with the o_id. The reset slot:
//! `resetUrl`, when set, is POSTed to before the first request and before each request
//! that needs the seed data (`resetScope` widens it). Captures become collection variables: `{{name}}` holds the text form
//! (for URLs, headers and text splices) and `{{name__json}}` the JSON value (for whole-value
//! bindings in raw JSON bodies, so a captured number stays a number). The base URL is the
//! collection variable `baseUrl`, the URL the suite was last run against (or `--base-url`);
//! override it with `newman run --env-var baseUrl=...`.
//!
//! Metamorphic tests get a folder each (`postman_mr`): requests in order, captures as in
//! sequences, the relations checked in the last request's test script.
//!
//! It does not run newman and does not cover Postman features mastor has no use for
//! (auth helpers, environments, examples).

use super::order::{Block, Entry, Placed, blocks};
use super::request::{
    CAPTURE_RE, check_path_params, encode_component, query_pairs, step_o_id, string_form,
    substitute_path, whole_capture,
};
use super::{ExportError, ExportInput, ExportReport, ExportedItem, split_op_id, write_file};
use crate::execution::Stage;
use crate::model::{Assertion, MultiOpOracle, OracleInput, Step};
use serde_json::{Map, Value, json};
use std::path::Path;

/// File name of the collection inside the output directory.
pub const FILE_NAME: &str = "mastor.postman_collection.json";

const LIBRARY: &str = include_str!("assets/js/mastor-assert.js");

/// Placeholder marking a whole-value capture in a body until the JSON text is written.
const JSON_MARK: &str = "\u{1}mastor-json:";

const BASE_URL_CHECK: &str = "if (!pm.variables.get('baseUrl')) { throw new Error('mastor: \
the variable baseUrl is not set; run newman with --env-var baseUrl=http://host:port'); }";

/// Writes the collection; see the module docs for its shape.
pub fn export(input: &ExportInput, out_dir: &Path) -> Result<ExportReport, ExportError> {
    let mut report = ExportReport::default();
    let mut folders = Vec::new();

    for (n, block) in blocks(input).iter().enumerate() {
        let mut items = Vec::new();
        for placed in &block.entries {
            match placed.entry {
                Entry::Single(oracle) => {
                    let o_id = oracle.o_id();
                    let spec = TestSpec {
                        o_id: &o_id,
                        assertions: &oracle.assertions,
                        captures: None,
                        bind: false,
                        mr: None,
                    };
                    let mut item = request_item(&o_id, &oracle.op_id, &oracle.input, &spec, false)?;
                    add_prerequest(&mut item, reset_line(&o_id, &tags(placed)));
                    items.push(item);
                    report.items.push(ExportedItem {
                        o_id: o_id.clone(),
                        op_id: oracle.op_id.clone(),
                        location: format!("{}/{o_id}", oracle.op_id),
                    });
                }
                Entry::Sequence(multi) => {
                    items.push(sequence_folder(multi, &tags(placed))?);
                    let op_ids: Vec<&str> = multi.steps.iter().map(|s| s.op_id.as_str()).collect();
                    report.items.push(ExportedItem {
                        o_id: multi.o_id(),
                        op_id: op_ids.join(" -> "),
                        location: format!("sequence {}", multi.o_id()),
                    });
                }
            }
        }
        folders.push(json!({
            "name": format!("{}. {}: {}", n + 1, block.stage.label(), block.key),
            "description": folder_description(block),
            "item": items,
        }));
    }

    for t in input.selected_metamorphic() {
        folders.push(super::postman_mr::folder(t, &input.documented)?);
        report.items.push(ExportedItem {
            o_id: t.o_id(),
            op_id: super::mr_op_ids(t),
            location: format!("metamorphic {}", t.o_id()),
        });
    }

    let collection = json!({
        "info": {
            "name": "mastor suite",
            "description": "Semantic test oracles exported by mastor, in mastor's execution \
                            order: read-only oracles, then those that need the seed data \
                            (fresh state), then the other writers, then sequences, then \
                            metamorphic tests. Test names start with the oracle's o_id. \
                            baseUrl is the API (override: newman run --env-var \
                            baseUrl=...); resetUrl, when set, is POSTed to before the first \
                            request and before each fresh-state request (resetScope: fresh, \
                            writers or each).",
            "schema": "https://schema.getpostman.com/json/collection/v2.1.0/collection.json",
        },
        "variable": [
            {"key": "baseUrl", "value": base_url(input), "type": "string"},
            {"key": "resetUrl", "value": "", "type": "string"},
            {"key": "resetScope", "value": "fresh", "type": "string"},
        ],
        "event": [
            script("prerequest", prerequest_script()),
            script("test", library_script(!input.selected_metamorphic().is_empty())),
        ],
        "item": folders,
    });
    let path = out_dir.join(FILE_NAME);
    let text = serde_json::to_string_pretty(&collection).map_err(|e| ExportError::BadOracle {
        o_id: "(collection)".into(),
        reason: e.to_string(),
    })?;
    write_file(&path, &text)?;
    report.files.push(path);
    Ok(report)
}

/// The collection's `baseUrl`: `--base-url`, else the URL of the latest verdict, else empty
/// (then every request stops with a message saying how to set it).
fn base_url(input: &ExportInput) -> String {
    let url = input.options.base_url.clone().or_else(|| {
        input
            .verdicts
            .values()
            .max_by(|a, b| a.at.cmp(&b.at))
            .map(|v| v.base_url.clone())
    });
    url.unwrap_or_default().trim_end_matches('/').to_string()
}

fn folder_description(block: &Block<'_>) -> String {
    let when = match block.stage {
        Stage::Reader => "only read: they run first, on the seed data",
        Stage::Fresh => {
            "need the seed data (fresh_state): before the other writers, each after the reset \
             when resetUrl is set"
        }
        Stage::Writer => "write: one at a time, each seeing what earlier writers left",
        Stage::Sequence => "sequences: after every single-operation request",
    };
    format!("{}: {when}", block.key)
}

/// The tags of a placed oracle, as the JUnit export has them.
fn tags(placed: &Placed<'_>) -> Vec<&'static str> {
    let mut tags = Vec::new();
    if placed.fresh_state {
        tags.push(super::junit_code::FRESH_TAG);
    }
    if placed.entry.writes() {
        tags.push(super::junit_code::WRITES_TAG);
    }
    tags
}

/// The reset slot of one request: `mastorReset` (defined by the collection's pre-request
/// script) POSTs to `resetUrl` when it is set and `resetScope` covers the tags.
fn reset_line(o_id: &str, tags: &[&str]) -> String {
    format!("mastorReset(pm, {}, {});", json!(tags), js_str(o_id))
}

fn add_prerequest(item: &mut Value, line: String) {
    if let Some(events) = item.get_mut("event").and_then(Value::as_array_mut) {
        match events
            .iter_mut()
            .find(|e| e["listen"] == "prerequest")
            .and_then(|e| e["script"]["exec"].as_array_mut())
        {
            Some(exec) => exec.push(Value::String(line)),
            None => events.insert(0, script("prerequest", vec![line])),
        }
    }
}

/// The collection's pre-request script: the `baseUrl` check, the reset slot, and the reset
/// before the first request.
fn prerequest_script() -> Vec<String> {
    let mut exec = vec![BASE_URL_CHECK.to_string()];
    exec.extend(RESET.lines().map(str::to_string));
    exec
}

const RESET: &str = "\
// mastor: the reset slot. resetUrl (a collection variable, or --env-var resetUrl=...) is a URL
// that puts the API back to its seed data. When set, it is POSTed to before the first request
// and before each request that needs the seed data (resetScope fresh, the default), also
// before each request that writes (writers), or before every request (each).
mastorReset = function (pm, tags, before) {
  var url = pm.variables.get('resetUrl');
  if (!url) return;
  var scope = pm.variables.get('resetScope') || 'fresh';
  var fresh = tags.indexOf('fresh-state') >= 0;
  var writes = fresh || tags.indexOf('writes') >= 0;
  var due = before === 'the start of the run' || scope === 'each' ||
    (scope === 'writers' ? writes : fresh);
  if (!due) return;
  pm.sendRequest({ url: url, method: 'POST' }, function (err, res) {
    pm.test('reset before ' + before, function () {
      if (err) throw new Error('reset URL ' + url + ' failed: ' + err);
      if (res.code < 200 || res.code > 299) throw new Error('reset URL ' + url + ' answered ' + res.code);
    });
  });
};
if (!pm.collectionVariables.get('mastorStarted')) {
  pm.collectionVariables.set('mastorStarted', 'yes');
  mastorReset(pm, [], 'the start of the run');
}";

/// What one request's test script checks.
pub(super) struct TestSpec<'a> {
    pub o_id: &'a str,
    pub assertions: &'a [Assertion],
    pub captures: Option<&'a std::collections::BTreeMap<String, String>>,
    pub bind: bool,
    /// A metamorphic step: `mastorMrStep`'s spec (see `postman_mr`); assertion failures
    /// are then collected for it instead of being tests of their own.
    pub mr: Option<Value>,
}

impl TestSpec<'_> {
    fn to_json(&self) -> Value {
        json!({
            "o_id": self.o_id,
            "bind": self.bind,
            "collect": self.mr.is_some(),
            "assertions": self.assertions,
            "captures": self.captures.cloned().unwrap_or_default(),
        })
    }
}

fn sequence_folder(multi: &MultiOpOracle, tags: &[&str]) -> Result<Value, ExportError> {
    let mut items = Vec::new();
    let capture_names: Vec<&String> = multi.steps.iter().flat_map(|s| s.captures.keys()).collect();
    for (index, step) in multi.steps.iter().enumerate() {
        let o_id = step_o_id(multi, index);
        let mut item = step_item(&o_id, step, index == 0, &capture_names)?;
        if index == 0 {
            add_prerequest(&mut item, reset_line(&multi.o_id(), tags));
        }
        items.push(item);
    }
    Ok(json!({
        "name": format!("sequence {}", multi.o_id()),
        "description": format!(
            "o_id: {}\ngroup: {}\n{}\n\nEvidence: {}",
            multi.o_id(), multi.group_id, multi.description, multi.evidence
        ),
        "item": items,
    }))
}

fn step_item(
    o_id: &str,
    step: &Step,
    first: bool,
    capture_names: &[&String],
) -> Result<Value, ExportError> {
    let spec = TestSpec {
        o_id,
        assertions: &step.assertions,
        captures: Some(&step.captures),
        bind: true,
        mr: None,
    };
    let mut item = request_item(o_id, &step.op_id, &step.input, &spec, true)?;
    if first && !capture_names.is_empty() {
        // A sequence starts clean: no capture leaks in from an earlier run or sequence.
        let clear: Vec<String> = capture_names
            .iter()
            .flat_map(|n| {
                [
                    format!("pm.collectionVariables.unset({});", js_str(n)),
                    format!(
                        "pm.collectionVariables.unset({});",
                        js_str(&format!("{n}__json"))
                    ),
                ]
            })
            .collect();
        if let Some(events) = item.get_mut("event").and_then(Value::as_array_mut) {
            events.insert(0, script("prerequest", clear));
        }
    }
    Ok(item)
}

pub(super) fn request_item(
    o_id: &str,
    op_id: &str,
    input: &OracleInput,
    spec: &TestSpec<'_>,
    bind: bool,
) -> Result<Value, ExportError> {
    let (method, template) = split_op_id(o_id, op_id)?;
    check_path_params(o_id, template, input)?;
    let text = |v: &Value| -> String {
        if bind {
            captures_as_vars(&string_form(v), encode_component)
        } else {
            encode_component(&string_form(v))
        }
    };
    let verbatim = |raw: &str| -> String {
        if bind {
            captures_as_vars(raw, str::to_string)
        } else {
            raw.to_string()
        }
    };
    let mut url = format!(
        "{{{{baseUrl}}}}{}",
        substitute_path(template, input, text, verbatim)
    );
    for (i, (name, value)) in query_pairs(input).into_iter().enumerate() {
        url.push(if i == 0 { '?' } else { '&' });
        url.push_str(&encode_component(name));
        url.push('=');
        url.push_str(&text(value));
    }
    if let Some(raw) = input.query_raw.as_deref().filter(|r| !r.is_empty()) {
        url.push(if url.contains('?') { '&' } else { '?' });
        url.push_str(&verbatim(raw));
    }
    let method = input.method.as_deref().unwrap_or(method);
    let mut headers: Vec<Value> = input
        .headers
        .iter()
        .map(|(k, v)| {
            let value = if bind {
                captures_as_vars(&string_form(v), str::to_string)
            } else {
                string_form(v)
            };
            json!({"key": k, "value": value})
        })
        .collect();
    let mut request = Map::new();
    request.insert("method".into(), json!(method));
    if let Some(body) = &input.body {
        if !input
            .headers
            .keys()
            .any(|k| k.eq_ignore_ascii_case("content-type"))
        {
            headers.push(json!({"key": "Content-Type", "value": "application/json"}));
        }
        request.insert(
            "body".into(),
            json!({
                "mode": "raw",
                "raw": raw_body(body, bind),
                "options": {"raw": {"language": "json"}},
            }),
        );
    } else if let Some(raw) = &input.raw_body {
        // Sent as written: a malformed JSON body stays malformed.
        if !raw.content_type.is_empty()
            && !input
                .headers
                .keys()
                .any(|k| k.eq_ignore_ascii_case("content-type"))
        {
            headers.push(json!({"key": "Content-Type", "value": raw.content_type}));
        }
        request.insert(
            "body".into(),
            json!({"mode": "raw", "raw": verbatim(&raw.text), "options": {"raw": {"language": "text"}}}),
        );
    }
    request.insert("header".into(), Value::Array(headers));
    request.insert("url".into(), json!(url));

    // The libraries are defined once, by the collection's test script (which runs
    // before every request's own); a request only calls them.
    let exec = match &spec.mr {
        None => readable_tests(spec),
        Some(mr) => vec![format!(
            "(function (m) {{ m.mrStep({mr}, m.run({})); }})(mastorLib(pm));",
            spec.to_json()
        )],
    };
    Ok(json!({
        "name": o_id,
        "description": format!("o_id: {o_id}\nop_id: {op_id}"),
        "request": Value::Object(request),
        "event": [script("test", exec)],
    }))
}

/// A request's test script as a Postman user reads and edits it: one `pm.test` per
/// assertion, the status with `pm.response.to.have.status`, fields through the collection's
/// library (`check.field(path, op, expected)`: mastor's field paths and operators), then
/// the captures.
fn readable_tests(spec: &TestSpec<'_>) -> Vec<String> {
    let mut exec = vec![format!(
        "var check = mastorLib(pm).check({});",
        json!({"o_id": spec.o_id, "bind": spec.bind})
    )];
    for assertion in spec.assertions {
        let name = js_str(&format!(
            "{} :: {}",
            spec.o_id,
            super::readable::sentence(assertion)
        ));
        exec.push(match assertion {
            Assertion::Status { expected } => format!(
                "pm.test({name}, function () {{ pm.response.to.have.status({expected}); }});"
            ),
            Assertion::Field {
                field_path,
                op,
                expected,
            } => format!(
                "pm.test({name}, function () {{ check.field({}, {}, {}); }});",
                js_str(field_path),
                serde_json::to_string(op).unwrap_or_default(),
                expected
            ),
        });
    }
    for (name, path) in spec.captures.into_iter().flatten() {
        exec.push(format!(
            "check.capture({}, {});",
            js_str(name),
            js_str(path)
        ));
    }
    exec
}

/// The raw JSON body; in sequences a whole-value capture becomes `{{name__json}}` (typed)
/// and a capture inside a string becomes `{{name}}` (text).
fn raw_body(body: &Value, bind: bool) -> String {
    if !bind {
        return serde_json::to_string_pretty(body).unwrap_or_default();
    }
    let marked = mark_whole_captures(body);
    let mut text = serde_json::to_string_pretty(&marked).unwrap_or_default();
    let mark = serde_json::to_string(JSON_MARK).unwrap_or_default();
    let mark_open = mark.trim_end_matches('"');
    while let Some(start) = text.find(mark_open) {
        let name_start = start + mark_open.len();
        let Some(len) = text[name_start..].find('"') else {
            break;
        };
        let name = text[name_start..name_start + len].to_string();
        text.replace_range(
            start..name_start + len + 1,
            &format!("{{{{{name}__json}}}}"),
        );
    }
    captures_as_vars(&text, str::to_string)
}

fn mark_whole_captures(value: &Value) -> Value {
    match value {
        Value::String(s) => match whole_capture(s) {
            Some(name) => Value::String(format!("{JSON_MARK}{name}")),
            None => value.clone(),
        },
        Value::Array(items) => Value::Array(items.iter().map(mark_whole_captures).collect()),
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| (k.clone(), mark_whole_captures(v)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// Replaces `$captures.name` with `{{name}}`, encoding the literal text around it.
fn captures_as_vars(text: &str, literal: impl Fn(&str) -> String) -> String {
    let mut out = String::new();
    let mut last = 0;
    for m in CAPTURE_RE.captures_iter(text) {
        let (Some(all), Some(name)) = (m.get(0), m.get(1)) else {
            continue;
        };
        out.push_str(&literal(&text[last..all.start()]));
        out.push_str(&format!("{{{{{}}}}}", name.as_str()));
        last = all.end();
    }
    out.push_str(&literal(&text[last..]));
    out
}

/// The collection-level test script: defines `mastorLib(pm)`, which returns the
/// assertion library (and, with metamorphic tests, the relations library) bound to the
/// `pm` it is given. Every request's test script, which Postman runs after the
/// collection's, calls it with its own `pm` (variables set through another script's `pm`
/// would be lost) instead of carrying its own copy of the library (about 10 KB each).
fn library_script(with_relations: bool) -> Vec<String> {
    let mut exec = vec![
        "// mastor: the assertion library, defined once for every request of the collection."
            .to_string(),
        "mastorLib = function (pm) {".to_string(),
    ];
    exec.extend(LIBRARY.lines().map(str::to_string));
    if with_relations {
        exec.extend(super::postman_mr::LIBRARY.lines().map(str::to_string));
        exec.push("return { check: mastorCheck, run: mastorRun, mrStep: mastorMrStep };".into());
    } else {
        exec.push("return { check: mastorCheck, run: mastorRun };".into());
    }
    exec.push("};".into());
    exec
}

pub(super) fn script(listen: &str, exec: Vec<String>) -> Value {
    json!({"listen": listen, "script": {"type": "text/javascript", "exec": exec}})
}

pub(super) fn js_str(text: &str) -> String {
    serde_json::to_string(text).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whole_capture_in_body_stays_typed() {
        let body = json!({"id": "$captures.pet_id", "name": "pet-$captures.pet_id", "n": 1});
        let raw = raw_body(&body, true);
        assert!(raw.contains(r#""id": {{pet_id__json}}"#), "{raw}");
        assert!(raw.contains(r#""name": "pet-{{pet_id}}""#), "{raw}");
        let literal = raw_body(&body, false);
        assert!(literal.contains("$captures.pet_id"), "{literal}");
    }

    #[test]
    fn captures_in_urls_become_variables() {
        assert_eq!(
            captures_as_vars("a b/$captures.id", encode_component),
            "a%20b%2F{{id}}"
        );
    }
}
