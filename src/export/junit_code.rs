//! The Java code of one exported test: its Javadoc (what it expects now, what a reviewer
//! changed), its annotations (place in the run, tags), the request as a builder a reviewer
//! reads (method, path template, parameters, a body literal) and one line per assertion.
//!
//! The request builder (`MastorRequest`) produces exactly the input JSON the runner sends,
//! so the readable form changes nothing about what goes over the wire.

use super::junit_names::{comment, java_str};
use super::order::{Entry, Placed};
use super::request::{check_path_params, step_o_id};
use super::{ExportError, ExportInput, split_op_id};
use crate::model::{Assertion, FieldOp, MultiOpOracle, Oracle, OracleInput, Step};
use serde_json::Value;
use std::fmt::Write as _;

/// Tag of tests that need the seed data (`fresh_state`): a reset runs before each when
/// one is configured, and a team without one can run them in a job of their own.
pub const FRESH_TAG: &str = "fresh-state";
/// Tag of tests that may write (a reset scope of `writers` resets before each).
pub const WRITES_TAG: &str = "writes";

/// One `@Test` method for a single-operation oracle.
pub(super) fn single_test(
    input: &ExportInput,
    oracle: &Oracle,
    placed: &Placed<'_>,
    method: &str,
) -> Result<String, ExportError> {
    let o_id = oracle.o_id();
    let (http_method, template) = split_op_id(&o_id, &oracle.op_id)?;
    check_path_params(&o_id, template, &oracle.input)?;
    let mut out = String::new();
    let _ = writeln!(out, "    /**\n     * {}", comment(&oracle.description));
    expects_line(&mut out, &oracle.assertions);
    edited_line(&mut out, input, &o_id);
    if let Some(strategy) = oracle.oracle_strategy {
        let _ = writeln!(
            out,
            "     * <p>Strategy: {}",
            comment(&format!("{strategy:?}").to_ascii_uppercase())
        );
    }
    evidence_lines(&mut out, &oracle.evidence, &oracle.evidence_refs);
    out.push_str("     */\n");
    annotations(&mut out, placed, &o_id);
    let _ = writeln!(
        out,
        "    void {method}() throws Exception {{\n        \
         MastorAssert.Checks c = new MastorAssert.Checks({});\n        \
         MastorAssert.Response r = c.send({});",
        java_str(&o_id),
        request_code(http_method, template, &oracle.input),
    );
    out.push_str(&assertion_code(&oracle.assertions));
    out.push_str("        c.done();\n    }\n\n");
    Ok(out)
}

/// One `@Test` method running a sequence's steps in order.
pub(super) fn sequence_test(
    input: &ExportInput,
    m: &MultiOpOracle,
    placed: &Placed<'_>,
    method: &str,
) -> Result<String, ExportError> {
    let o_id = m.o_id();
    let mut out = String::new();
    let _ = writeln!(out, "    /**\n     * {}", comment(&m.description));
    edited_line(&mut out, input, &o_id);
    evidence_lines(&mut out, &m.evidence, &m.evidence_refs);
    out.push_str("     */\n");
    annotations(&mut out, placed, &o_id);
    let _ = writeln!(
        out,
        "    void {method}() throws Exception {{\n        \
         MastorAssert.Checks c = new MastorAssert.Checks({}, true);\n        \
         MastorAssert.Response r;",
        java_str(&o_id),
    );
    for (index, step) in m.steps.iter().enumerate() {
        out.push_str(&step_code(&step_o_id(m, index), index + 1, step)?);
    }
    out.push_str("        c.done();\n    }\n\n");
    Ok(out)
}

/// `@Test`, `@Order` (the place in the whole run), tags, `@DisplayName` (the o_id).
fn annotations(out: &mut String, placed: &Placed<'_>, o_id: &str) {
    let _ = writeln!(out, "    @Test\n    @Order({})", placed.position);
    if placed.fresh_state {
        let _ = writeln!(out, "    @Tag({})", java_str(FRESH_TAG));
    }
    if placed.entry.writes() {
        let _ = writeln!(out, "    @Tag({})", java_str(WRITES_TAG));
    }
    let _ = writeln!(out, "    @DisplayName({})", java_str(o_id));
}

/// What the test checks, from its assertions as exported: always current, also after an
/// edit that the generated description does not mention.
fn expects_line(out: &mut String, assertions: &[Assertion]) {
    if assertions.is_empty() {
        return;
    }
    let sentences: Vec<String> = assertions.iter().map(super::readable::sentence).collect();
    let _ = writeln!(
        out,
        "     * <p>Expects: {}.",
        comment(&sentences.join("; "))
    );
}

/// Most changed fields named in the Javadoc of an edited oracle; the rest are counted.
const MAX_EDITS: usize = 8;

/// `Edited in review: assertions[0].expected 404 -> 400`, when a reviewer changed it.
fn edited_line(out: &mut String, input: &ExportInput, o_id: &str) {
    let Some(original) = input.originals.get(o_id) else {
        return;
    };
    let edited = input
        .oracles
        .iter()
        .find(|o| o.o_id() == o_id)
        .and_then(|o| serde_json::to_value(o).ok())
        .or_else(|| {
            let m = input.multi_op.iter().find(|m| m.o_id() == o_id)?;
            serde_json::to_value(m).ok()
        });
    let Some(edited) = edited else { return };
    let changes = super::diff::changes(original, &edited);
    if changes.is_empty() {
        return;
    }
    let shown = |v: &Option<Value>| v.as_ref().map_or("(none)".into(), Value::to_string);
    let mut parts: Vec<String> = changes
        .iter()
        .take(MAX_EDITS)
        .map(|c| format!("{} {} -> {}", c.path, shown(&c.before), shown(&c.after)))
        .collect();
    if changes.len() > MAX_EDITS {
        parts.push(format!("and {} more", changes.len() - MAX_EDITS));
    }
    let _ = writeln!(
        out,
        "     * <p>Edited in review: {}.",
        comment(&parts.join("; "))
    );
}

fn evidence_lines(out: &mut String, evidence: &str, refs: &[crate::model::EvidenceRef]) {
    if !evidence.is_empty() {
        let _ = writeln!(out, "     * <p>Evidence: {}", comment(evidence));
    }
    for r in refs {
        let _ = writeln!(
            out,
            "     * <p>See {}:{}-{}",
            comment(&r.file),
            r.start_line,
            r.end_line
        );
    }
}

fn step_code(step_o_id: &str, number: usize, step: &Step) -> Result<String, ExportError> {
    let (http_method, template) = split_op_id(step_o_id, &step.op_id)?;
    check_path_params(step_o_id, template, &step.input)?;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "        // step {number}: {}\n        c.step({number}, {});\n        r = c.send({});",
        comment(&step.op_id),
        java_str(&step.op_id),
        request_code(http_method, template, &step.input),
    );
    out.push_str(&assertion_code(&step.assertions));
    for (name, path) in &step.captures {
        let _ = writeln!(
            out,
            "        c.capture(r, {}, {});",
            java_str(name),
            java_str(path)
        );
    }
    Ok(out)
}

/// The request as a `MastorRequest` builder: one line per parameter, the body a literal.
pub(super) fn request_code(method: &str, template: &str, input: &OracleInput) -> String {
    let mut out = format!("request({}, {})", java_str(method), java_str(template));
    let mut line = |call: String| {
        let _ = write!(out, "\n                .{call}");
    };
    for (name, value) in &input.path {
        line(format!("path({}, {})", java_str(name), java_value(value)));
    }
    for (name, raw) in &input.path_raw {
        line(format!("pathRaw({}, {})", java_str(name), java_str(raw)));
    }
    for (name, value) in &input.query {
        line(format!("query({}, {})", java_str(name), java_value(value)));
    }
    if let Some(raw) = &input.query_raw {
        line(format!("queryRaw({})", java_str(raw)));
    }
    for (name, value) in &input.headers {
        line(format!("header({}, {})", java_str(name), java_value(value)));
    }
    if let Some(body) = &input.body {
        line(format!("body({})", body_literal(body)));
    }
    if let Some(raw) = &input.raw_body {
        line(format!(
            "rawBody({}, {})",
            java_str(&raw.content_type),
            java_str(&raw.text)
        ));
    }
    if let Some(other) = &input.method {
        line(format!("method({})", java_str(other)));
    }
    out
}

/// A JSON body as a Java text block of its pretty-printed JSON, so a reviewer reads it as
/// JSON; one line when it is short.
fn body_literal(body: &Value) -> String {
    let compact = body.to_string();
    if compact.len() <= 60 {
        return java_str(&compact);
    }
    let pretty = serde_json::to_string_pretty(body).unwrap_or(compact);
    let mut out = String::from("\"\"\"\n");
    for line in pretty.lines() {
        let _ = writeln!(out, "                    {}", text_block_line(line));
    }
    out.push_str("                    \"\"\"");
    out
}

/// One line inside a text block: backslashes doubled, a third quote in a row (which would
/// close the block) escaped, non-ASCII as `\uXXXX` (as [`java_str`] does), trailing
/// blanks kept.
fn text_block_line(line: &str) -> String {
    let mut out = String::new();
    let mut quotes = 0;
    for c in line.chars() {
        quotes = if c == '"' { quotes + 1 } else { 0 };
        match c {
            '\\' => out.push_str("\\\\"),
            '"' if quotes == 3 => {
                out.push_str("\\\"");
                quotes = 0;
            }
            '\t' => out.push_str("\\t"),
            c if c.is_ascii() && !c.is_ascii_control() => out.push(c),
            c => {
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    let _ = write!(out, "\\u{unit:04x}");
                }
            }
        }
    }
    if out.ends_with(' ') {
        // A text block strips trailing blanks; `\s` keeps one.
        out.pop();
        out.push_str("\\s");
    }
    out
}

/// A JSON value as a Java argument: text, whole numbers and booleans as literals, anything
/// else (decimals, null, objects, arrays) as `json("...")` so nothing changes on the way.
pub(super) fn java_value(value: &Value) -> String {
    match value {
        Value::String(s) => java_str(s),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) if n.is_i64() => match n.as_i64() {
            Some(i) if i32::try_from(i).is_ok() => i.to_string(),
            Some(i) => format!("{i}L"),
            None => format!("json({})", java_str(&n.to_string())),
        },
        other => format!("json({})", java_str(&other.to_string())),
    }
}

/// One line per assertion: `c.status(r, 200);`, `c.field(r, "name").equalTo("Rex");`.
pub(super) fn assertion_code(assertions: &[Assertion]) -> String {
    let mut out = String::new();
    for assertion in assertions {
        match assertion {
            Assertion::Status { expected } => {
                let _ = writeln!(out, "        c.status(r, {expected});");
            }
            Assertion::Field {
                field_path,
                op,
                expected,
            } => {
                let (method, takes_value) = match op {
                    FieldOp::Equals => ("equalTo", true),
                    FieldOp::NotEquals => ("notEqualTo", true),
                    FieldOp::IsNull => ("isNull", false),
                    FieldOp::NotNull => ("notNull", false),
                    FieldOp::Gt => ("greaterThan", true),
                    FieldOp::Gte => ("atLeast", true),
                    FieldOp::Lt => ("lessThan", true),
                    FieldOp::Lte => ("atMost", true),
                    FieldOp::Matches => ("matches", true),
                    FieldOp::Type => ("hasType", true),
                    FieldOp::Contains => ("contains", true),
                    FieldOp::Length => ("hasLength", true),
                };
                let arg = if takes_value {
                    java_value(expected)
                } else {
                    String::new()
                };
                let _ = writeln!(
                    out,
                    "        c.field(r, {}).{method}({arg});",
                    java_str(field_path)
                );
            }
        }
    }
    out
}

/// The input as the compact JSON `MastorRelations` reads (metamorphic steps).
pub(super) fn input_json(input: &OracleInput) -> String {
    serde_json::to_value(input)
        .unwrap_or(Value::Null)
        .to_string()
}

/// The entry's o_id-based method stem.
pub(super) fn method_stem(entry: &Entry<'_>) -> String {
    let test_id = match entry {
        Entry::Single(o) => &o.test_id,
        Entry::Sequence(m) => &m.test_id,
    };
    format!("test_{}", super::junit_names::snake(test_id))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn values_become_java_literals_or_exact_json() {
        assert_eq!(java_value(&json!("Rex")), "\"Rex\"");
        assert_eq!(java_value(&json!(3)), "3");
        assert_eq!(java_value(&json!(5_000_000_000_i64)), "5000000000L");
        assert_eq!(java_value(&json!(true)), "true");
        assert_eq!(java_value(&json!(3.0)), "json(\"3.0\")");
        assert_eq!(java_value(&Value::Null), "json(\"null\")");
        assert_eq!(
            java_value(&json!({"op": "gte", "value": 1})),
            "json(\"{\\\"op\\\":\\\"gte\\\",\\\"value\\\":1}\")"
        );
    }

    #[test]
    fn long_bodies_are_text_blocks_of_json() {
        let body = json!({"name": "Bo \"the\" dog", "tag": "dog", "note": "a\\b ✓", "age": 5});
        let text = body_literal(&body);
        assert!(text.starts_with("\"\"\"\n"), "{text}");
        assert!(text.contains(r#""name": "Bo \\"the\\" dog","#), "{text}");
        assert!(text.contains(r#""note": "a\\\\b \u2713""#), "{text}");
        assert_eq!(body_literal(&json!({"a": 1})), "\"{\\\"a\\\":1}\"");
    }
}
