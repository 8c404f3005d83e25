//! Readable export (the paper's ToReadable): one Markdown file for inspection by a person.
//!
//! A table of contents, then one section per operation with each oracle's description,
//! strategy, inputs, assertions as sentences, evidence and `file:line-line` references,
//! review state and (when known) verdict; multi-op sequences by group in their own section;
//! metamorphic tests in a last section with Given/When/Then, steps and relations.
//! It is for reading: nothing parses it back.

use super::request::step_o_id;
use super::{ExportError, ExportInput, ExportReport, ExportedItem, write_file};
use crate::model::content_hash_of;
use crate::model::{
    Assertion, EvidenceRef, FieldOp, MetamorphicTest, MultiOpOracle, Oracle, OracleInput, Outcome,
    Relation, RelationOp, Strategy,
};
use serde_json::Value;
use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::Path;

/// File name of the Markdown inside the output directory.
pub const FILE_NAME: &str = "suite.md";

/// Writes `suite.md`.
pub fn export(input: &ExportInput, out_dir: &Path) -> Result<ExportReport, ExportError> {
    let (text, items) = render(input);
    let path = out_dir.join(FILE_NAME);
    write_file(&path, &text)?;
    Ok(ExportReport {
        files: vec![path],
        items,
        skipped: 0,
    })
}

/// The Markdown text and where each oracle went (its anchor).
pub fn render(input: &ExportInput) -> (String, Vec<ExportedItem>) {
    let oracles = input.selected_oracles();
    let multi = input.selected_multi_op();
    let meta = input.selected_metamorphic();
    let blocks = super::order::blocks(input);
    let ops: BTreeSet<&str> = oracles.iter().map(|o| o.op_id.as_str()).collect();
    let mut items = Vec::new();
    let mut out = String::from("# mastor oracle suite\n\n");
    let _ = writeln!(
        out,
        "{} in {}, {}.\n",
        plural(oracles.len(), "single-operation oracle"),
        plural(ops.len(), "operation"),
        plural(multi.len(), "multi-operation sequence"),
    );
    if !meta.is_empty() {
        let _ = writeln!(out, "{}.\n", plural(meta.len(), "metamorphic test"));
    }
    out.push_str(
        "Sections are in the order `mastor check` and the JUnit and Postman exports run \
         them: read-only oracles, then those that need the seed data (fresh state: each \
         right after a reset when one is configured), then the other writers one at a \
         time, then sequences, then metamorphic tests.\n\n",
    );

    out.push_str("## Contents\n\n");
    let heading = |n: usize, block: &super::order::Block<'_>| {
        format!("{}. {}: {}", n + 1, block.stage.label(), block.key)
    };
    for (n, block) in blocks.iter().enumerate() {
        let _ = writeln!(
            out,
            "- [{}](#{}) ({})",
            md_text(&heading(n, block)),
            anchor("run", &(n + 1).to_string()),
            block.entries.len()
        );
    }
    if !meta.is_empty() {
        let _ = writeln!(out, "- [Metamorphic tests](#metamorphic) ({})", meta.len());
    }
    out.push('\n');

    for (n, block) in blocks.iter().enumerate() {
        let _ = writeln!(
            out,
            "<a id=\"{}\"></a>\n\n## {}\n",
            anchor("run", &(n + 1).to_string()),
            md_text(&heading(n, block))
        );
        for placed in &block.entries {
            match placed.entry {
                super::order::Entry::Single(oracle) => {
                    let id = anchor("oracle", &oracle.o_id());
                    oracle_section(&mut out, input, oracle, &id);
                    items.push(ExportedItem {
                        o_id: oracle.o_id(),
                        op_id: oracle.op_id.clone(),
                        location: format!("#{id}"),
                    });
                }
                super::order::Entry::Sequence(multi) => {
                    let id = anchor("sequence", &multi.o_id());
                    sequence_section(&mut out, input, multi, &id);
                    let op_ids: Vec<&str> = multi.steps.iter().map(|s| s.op_id.as_str()).collect();
                    items.push(ExportedItem {
                        o_id: multi.o_id(),
                        op_id: op_ids.join(" -> "),
                        location: format!("#{id}"),
                    });
                }
            }
        }
    }
    if !meta.is_empty() {
        out.push_str("<a id=\"metamorphic\"></a>\n\n## Metamorphic tests\n\n");
        for t in meta {
            let id = anchor("mr", &t.test_id);
            metamorphic_section(&mut out, input, t, &id);
            items.push(ExportedItem {
                o_id: t.o_id(),
                op_id: super::mr_op_ids(t),
                location: format!("#{id}"),
            });
        }
    }
    // Every field comes from outside (model answers, imported files, API bodies): control
    // characters (ESC, BEL, NUL, ...) are written escaped (`\u{1b}`), as the JSON, Postman
    // and JUnit exports do, so a viewer or `cat` of the file cannot be driven by them.
    (crate::text::escape_controls(&out).into_owned(), items)
}

/// Scenario with Given/When/Then, seed and follow-up steps, and relations as sentences.
fn metamorphic_section(out: &mut String, input: &ExportInput, t: &MetamorphicTest, id: &str) {
    let o_id = t.o_id();
    let _ = writeln!(out, "<a id=\"{id}\"></a>\n\n### `{}`\n", code(&o_id));
    if !t.scenario.is_empty() {
        let _ = writeln!(out, "**Scenario:** {}\n", md_text(&t.scenario));
    }
    for (word, text) in [("Given", &t.given), ("When", &t.when), ("Then", &t.then)] {
        if !text.is_empty() {
            let _ = writeln!(out, "- **{word}** {}", md_text(text));
        }
    }
    out.push('\n');
    for s in super::mr::steps(t) {
        let _ = writeln!(
            out,
            "- **{}** `{}`",
            if s.side == "seed" {
                "Seed"
            } else {
                "Follow-up"
            },
            code(&s.step.op_id)
        );
        let _ = writeln!(out, "  - step `{}`", code(&s.label));
        input_lines(out, &s.step.input, "  ");
        for a in &s.step.assertions {
            let _ = writeln!(out, "  - {}", sentence(a));
        }
        for (name, path) in &s.step.captures {
            let _ = writeln!(
                out,
                "  - captures `{}` from {}",
                code(name),
                path_words(path)
            );
        }
    }
    out.push_str("- **Relations:**\n");
    for (i, r) in t.relations.iter().enumerate() {
        let _ = writeln!(out, "  {}. {}", i + 1, relation_sentence(r));
    }
    review_lines(out, input, &o_id, content_hash_of(t));
    out.push('\n');
}

/// A relation in words, e.g. "`follow_up[0].body.status` equals `seed[0].body.status`".
pub fn relation_sentence(r: &Relation) -> String {
    let right = if r.right.trim().is_empty() {
        format!("`{}`", code(&r.value.to_string()))
    } else {
        format!("`{}`", code(&r.right))
    };
    let left = format!("`{}`", code(&r.left));
    match r.op {
        RelationOp::Equals => format!("{left} equals {right}"),
        RelationOp::NotEquals => format!("{left} does not equal {right}"),
        RelationOp::Contains => format!("{left} contains {right}"),
        RelationOp::NotContains => format!("{left} does not contain {right}"),
        RelationOp::Subset => format!("every element of {left} is in {right}"),
        RelationOp::CountDiff => format!(
            "{} has {} more than {left}",
            format_args!("`{}`", code(&r.right)),
            crate::runner::relations::diff_of(r)
        ),
        RelationOp::Greater => format!("{left} is greater than {right}"),
        RelationOp::GreaterOrEqual => format!("{left} is at least {right}"),
        RelationOp::Less => format!("{left} is less than {right}"),
        RelationOp::LessOrEqual => format!("{left} is at most {right}"),
        RelationOp::SameShape => format!("{left} has the same shape as {right}"),
    }
}

fn oracle_section(out: &mut String, input: &ExportInput, oracle: &Oracle, id: &str) {
    let o_id = oracle.o_id();
    let _ = writeln!(out, "<a id=\"{id}\"></a>\n\n### `{}`\n", code(&o_id));
    if !oracle.description.is_empty() {
        let _ = writeln!(out, "{}\n", md_text(&oracle.description));
    }
    if let Some(strategy) = oracle.oracle_strategy {
        let _ = writeln!(out, "- **Strategy:** {}", strategy_name(strategy));
    }
    let _ = writeln!(out, "- **Request:** `{}`", code(&oracle.op_id));
    if oracle.fresh_state {
        out.push_str(
            "- **Precondition (fresh state):** the seed data as it was at start-up (`mastor \
             check` and the exports run it before other writes, or right after the reset \
             when one is configured; JUnit tags it `fresh-state`)\n",
        );
    }
    input_lines(out, &oracle.input, "  ");
    out.push_str("- **Assertions:**\n");
    for (i, a) in oracle.assertions.iter().enumerate() {
        let _ = writeln!(out, "  {}. {}", i + 1, sentence(a));
    }
    evidence_lines(out, &oracle.evidence, &oracle.evidence_refs);
    review_lines(out, input, &o_id, content_hash_of(oracle));
    out.push('\n');
}

fn sequence_section(out: &mut String, input: &ExportInput, multi: &MultiOpOracle, id: &str) {
    let o_id = multi.o_id();
    let _ = writeln!(out, "<a id=\"{id}\"></a>\n\n### `{}`\n", code(&o_id));
    if !multi.description.is_empty() {
        let _ = writeln!(out, "{}\n", md_text(&multi.description));
    }
    for (index, step) in multi.steps.iter().enumerate() {
        let _ = writeln!(
            out,
            "{}. **Step** `{}`: `{}`",
            index + 1,
            code(&step_o_id(multi, index)),
            code(&step.op_id)
        );
        input_lines(out, &step.input, "   ");
        for a in &step.assertions {
            let _ = writeln!(out, "   - {}", sentence(a));
        }
        for (name, path) in &step.captures {
            let _ = writeln!(
                out,
                "   - captures `{}` from {}",
                code(name),
                path_words(path)
            );
        }
    }
    out.push('\n');
    evidence_lines(out, &multi.evidence, &multi.evidence_refs);
    review_lines(out, input, &o_id, content_hash_of(multi));
    out.push('\n');
}

fn input_lines(out: &mut String, input: &OracleInput, indent: &str) {
    for (label, map) in [
        ("path", &input.path),
        ("query", &input.query),
        ("header", &input.headers),
    ] {
        for (name, value) in map {
            let _ = writeln!(
                out,
                "{indent}- {label} `{}` = `{}`",
                code(name),
                code(&value.to_string())
            );
        }
    }
    if let Some(body) = &input.body {
        let pretty = serde_json::to_string_pretty(body).unwrap_or_default();
        let _ = writeln!(out, "{indent}- body:\n\n{indent}  ```json");
        for line in pretty.lines() {
            let _ = writeln!(out, "{indent}  {line}");
        }
        let _ = writeln!(out, "{indent}  ```\n");
    }
    raw_input_lines(out, input, indent);
}

/// The verbatim parts of an input, said to be verbatim: a reader must not mistake
/// `a%2Bb` for a value the runner encodes, nor a malformed body for a typo.
fn raw_input_lines(out: &mut String, input: &OracleInput, indent: &str) {
    if let Some(m) = &input.method {
        let _ = writeln!(
            out,
            "{indent}- method `{}` (sent instead of the operation's own)",
            code(m)
        );
    }
    if let Some(q) = &input.query_raw {
        let _ = writeln!(
            out,
            "{indent}- query `{}` (verbatim: appended as written)",
            code(q)
        );
    }
    for (name, raw) in &input.path_raw {
        let _ = writeln!(
            out,
            "{indent}- path `{}` = `{}` (verbatim: sent as written, not encoded again)",
            code(name),
            code(raw)
        );
    }
    if let Some(raw) = &input.raw_body {
        // A fence longer than any backtick run in the text, so the body cannot close it.
        let longest = raw
            .text
            .split(|c| c != '`')
            .map(str::len)
            .max()
            .unwrap_or(0);
        let fence = "`".repeat(longest.max(2) + 1);
        let _ = writeln!(
            out,
            "{indent}- raw body (`{}`, sent byte for byte):\n\n{indent}  {fence}text",
            code(&raw.content_type)
        );
        for line in raw.text.lines() {
            let _ = writeln!(out, "{indent}  {line}");
        }
        let _ = writeln!(out, "{indent}  {fence}\n");
    }
}

fn evidence_lines(out: &mut String, evidence: &str, refs: &[EvidenceRef]) {
    if !evidence.is_empty() {
        let _ = writeln!(out, "- **Evidence:** {}", md_text(evidence));
    }
    if !refs.is_empty() {
        let list: Vec<String> = refs
            .iter()
            .map(|r| format!("`{}:{}-{}`", code(&r.file), r.start_line, r.end_line))
            .collect();
        let _ = writeln!(out, "- **Evidence refs:** {}", list.join(", "));
    }
}

/// Review state, what an edit changed, and the latest verdict; `current` is the content
/// hash of the oracle as exported, to tell a verdict of other content (stale).
fn review_lines(out: &mut String, input: &ExportInput, o_id: &str, current: Option<String>) {
    let state = serde_json::to_value(input.state(o_id))
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default();
    let _ = writeln!(out, "- **Review:** {state}");
    edit_lines(out, input, o_id);
    if let Some(verdict) = input.verdicts.get(o_id) {
        let stale =
            matches!((&verdict.content_hash, &current), (Some(ran), Some(now)) if ran != now);
        let _ = writeln!(
            out,
            "- **Verdict:** {} ({} against {}){}",
            outcome_name(verdict.outcome),
            verdict.at,
            verdict.base_url,
            if stale {
                " (stale: the oracle changed since this run; re-run it)"
            } else {
                ""
            }
        );
        for step in &verdict.steps {
            for a in step
                .assertions
                .iter()
                .filter(|a| a.outcome != Outcome::Pass)
            {
                let _ = writeln!(
                    out,
                    "  - `{}` assertion {}: {} (expected `{}`, actual `{}`) {}",
                    code(&step.op_id),
                    a.index + 1,
                    outcome_name(a.outcome),
                    code(&a.expected.to_string()),
                    code(&a.actual.to_string()),
                    md_text(&a.message)
                );
            }
        }
    }
}

/// Most changed fields listed for one edit; the rest are counted.
const MAX_EDIT_LINES: usize = 20;

/// `original → edited` per changed field of an edited oracle.
fn edit_lines(out: &mut String, input: &ExportInput, o_id: &str) {
    let Some(original) = input.originals.get(o_id) else {
        return;
    };
    let Some(edited) = edited_value(input, o_id) else {
        return;
    };
    let changes = super::diff::changes(original, &edited);
    if changes.is_empty() {
        return;
    }
    out.push_str(
        "- **Edited** (original → edited):
",
    );
    let shown = |v: &Option<Value>| match v {
        Some(v) => format!("`{}`", code(&v.to_string())),
        None => "(none)".to_string(),
    };
    for c in changes.iter().take(MAX_EDIT_LINES) {
        let _ = writeln!(
            out,
            "  - `{}`: {} → {}",
            code(&c.path),
            shown(&c.before),
            shown(&c.after)
        );
    }
    if changes.len() > MAX_EDIT_LINES {
        let _ = writeln!(
            out,
            "  - and {} more changes",
            changes.len() - MAX_EDIT_LINES
        );
    }
}

/// The exported (edited) form of `o_id` as JSON.
fn edited_value(input: &ExportInput, o_id: &str) -> Option<Value> {
    if let Some(o) = input.oracles.iter().find(|o| o.o_id() == o_id) {
        return serde_json::to_value(o).ok();
    }
    if let Some(m) = input.multi_op.iter().find(|m| m.o_id() == o_id) {
        return serde_json::to_value(m).ok();
    }
    let t = input.metamorphic.iter().find(|t| t.o_id() == o_id)?;
    serde_json::to_value(t).ok()
}

/// An assertion as an English sentence, e.g. "status is 400", "`items[*].id` is not null".
pub fn sentence(assertion: &Assertion) -> String {
    match assertion {
        Assertion::Status { expected } => format!("status is {expected}"),
        Assertion::Field {
            field_path,
            op,
            expected,
        } => {
            let subject = path_words(field_path);
            let value = format!("`{}`", code(&expected.to_string()));
            let text = |v: &Value| match v {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            match op {
                FieldOp::Equals => format!("{subject} equals {value}"),
                FieldOp::NotEquals => format!("{subject} does not equal {value}"),
                FieldOp::NotNull => format!("{subject} is not null"),
                FieldOp::IsNull => format!("{subject} is null or missing"),
                FieldOp::Gt => format!("{subject} is greater than {value}"),
                FieldOp::Gte => format!("{subject} is at least {value}"),
                FieldOp::Lt => format!("{subject} is less than {value}"),
                FieldOp::Lte => format!("{subject} is at most {value}"),
                FieldOp::Matches => format!("{subject} matches `/{}/`", code(&text(expected))),
                FieldOp::Type => format!("{subject} is of type {}", text(expected)),
                FieldOp::Contains => format!("{subject} contains {value}"),
                FieldOp::Length => format!("{subject} has length {}", text(expected)),
            }
        }
    }
}

fn plural(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

fn path_words(path: &str) -> String {
    if path.is_empty() {
        "the body".to_string()
    } else {
        format!("`{}`", code(path))
    }
}

fn strategy_name(s: Strategy) -> &'static str {
    match s {
        Strategy::Fv => "FV (functional, valid input)",
        Strategy::Fi => "FI (functional, invalid input)",
        Strategy::Bv => "BV (boundary, valid input)",
        Strategy::Bi => "BI (boundary, invalid input)",
    }
}

fn outcome_name(o: Outcome) -> &'static str {
    match o {
        Outcome::Pass => "pass",
        Outcome::Fail => "fail",
        Outcome::Error => "error",
        Outcome::Skipped => "skipped",
    }
}

/// An HTML anchor id from a kind and a name (lower-case, `-` for anything else).
fn anchor(kind: &str, name: &str) -> String {
    let mut out = format!("{kind}-");
    let mut dash = false;
    for c in name.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_lowercase());
            dash = false;
        } else if !dash {
            out.push('-');
            dash = true;
        }
    }
    out.trim_end_matches('-').to_string()
}

/// Text inside a code span: backticks would end it, newlines would break the list item.
fn code(text: &str) -> String {
    text.replace('`', "'").replace(['\n', '\r'], " ")
}

/// Free text on one Markdown line.
fn md_text(text: &str) -> String {
    text.replace(['\n', '\r'], " ").replace('<', "&lt;")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn sentences_read_as_english() {
        assert_eq!(
            sentence(&Assertion::Status { expected: 400 }),
            "status is 400"
        );
        let a = Assertion::Field {
            field_path: "items[*].id".into(),
            op: FieldOp::NotNull,
            expected: Value::Null,
        };
        assert_eq!(sentence(&a), "`items[*].id` is not null");
        let b = Assertion::Field {
            field_path: String::new(),
            op: FieldOp::Length,
            expected: json!(3),
        };
        assert_eq!(sentence(&b), "the body has length 3");
    }

    #[test]
    fn relations_read_as_english() {
        let r = Relation {
            left: "seed[0].body".into(),
            op: RelationOp::CountDiff,
            right: "follow_up[0].body".into(),
            value: json!(2),
        };
        assert_eq!(
            relation_sentence(&r),
            "`follow_up[0].body` has 2 more than `seed[0].body`"
        );
        let r = Relation {
            left: "seed[0].status".into(),
            op: RelationOp::NotEquals,
            right: String::new(),
            value: json!(500),
        };
        assert_eq!(
            relation_sentence(&r),
            "`seed[0].status` does not equal `500`"
        );
    }

    #[test]
    fn verbatim_inputs_are_said_to_be_verbatim_and_fenced_safely() {
        let input: OracleInput = serde_json::from_value(json!({"path_raw": {"id": "a%2Bb"},
            "raw_body": {"content_type": "application/json", "text": "{\"a\": ```"}}))
        .unwrap();
        let mut out = String::new();
        input_lines(&mut out, &input, "");
        assert!(
            out.contains("- path `id` = `a%2Bb` (verbatim: sent as written, not encoded again)"),
            "{out}"
        );
        assert!(out.contains("- raw body (`application/json`, sent byte for byte):"));
        assert!(out.contains("  ````text\n  {\"a\": ```\n  ````\n"), "{out}");
    }

    #[test]
    fn anchors_are_stable_slugs() {
        assert_eq!(anchor("op", "GET /pets/{petId}"), "op-get-pets-petid");
    }
}
