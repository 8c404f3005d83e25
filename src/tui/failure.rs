//! The failure view's content and the copy actions: what the selected oracle's latest
//! run sent and got back, as `check` prints it, and the pieces a tester pastes into a
//! terminal or a bug report (the curl line, the response body).
//!
//! Everything here comes from `verdicts/` (API bodies, headers, messages), so every
//! line is escaped before it reaches the terminal.

use super::popups::FailureView;
use super::state::{App, Popup};
use super::update::Effect;
use crate::model::{Exchange, Outcome, Verdict};
use crate::text::escape_controls;

/// Lines of a response body shown before `a` (all) is pressed.
pub const BODY_LINES: usize = 40;

/// The selected item's latest verdict, or why there is none (in words for the status
/// line).
fn selected_verdict(app: &App) -> Result<(String, Verdict), String> {
    let item = app
        .selected_item()
        .ok_or("select an oracle first (an operation's Oracles tab, a group)")?;
    let o_id = app.o_id(item).ok_or("the selected row has no oracle")?;
    let v = app
        .view
        .verdict_details
        .get(&o_id)
        .cloned()
        .ok_or_else(|| format!("{o_id} was never run: run it first"))?;
    Ok((o_id, v))
}

/// The `show_failure` action: opens the failure view of the selected oracle.
pub fn open(app: &mut App) {
    match selected_verdict(app) {
        Ok((o_id, _)) => app.popups.push(Popup::Failure(FailureView::new(o_id))),
        Err(why) => app.notify(why),
    }
}

/// The `copy_curl` / `copy_body` actions on the selected oracle.
pub fn copy(app: &mut App, curl: bool) -> Vec<Effect> {
    match selected_verdict(app) {
        Ok((_, v)) => copy_from(app, &v, curl),
        Err(why) => {
            app.notify(why);
            Vec::new()
        }
    }
}

/// Copies the curl line or the response body of the step that decided `v` (the first
/// that did not pass, else the last).
pub fn copy_from(app: &mut App, v: &Verdict, curl: bool) -> Vec<Effect> {
    let Some(ex) = deciding_exchange(v) else {
        app.notify(format!(
            "{}: the run sent no request (nothing to copy)",
            v.o_id
        ));
        return Vec::new();
    };
    let (text, what) = if curl {
        (ex.curl.clone(), "curl line")
    } else {
        (ex.response_body.clone(), "response body")
    };
    if text.is_empty() {
        app.notify(format!("{}: the {what} is empty", v.o_id));
        return Vec::new();
    }
    vec![Effect::Copy {
        text,
        what: what.to_string(),
    }]
}

fn deciding_exchange(v: &Verdict) -> Option<&Exchange> {
    v.steps
        .iter()
        .find(|s| s.outcome != Outcome::Pass && s.exchange.is_some())
        .or_else(|| v.steps.iter().rev().find(|s| s.exchange.is_some()))
        .and_then(|s| s.exchange.as_ref())
}

/// One line of the failure view and how it is drawn.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Row {
    Heading(String),
    Failure(String),
    Muted(String),
    Text(String),
}

/// The failure view of `v`: the failed assertions, then per step the request and the
/// response (headers, body pretty-printed; the body cut at [`BODY_LINES`] lines unless
/// `all`).
pub fn rows(v: &Verdict, all: bool) -> Vec<Row> {
    let esc = |s: &str| escape_controls(s).into_owned();
    let mut out = vec![Row::Muted(esc(&format!(
        "{} · run {} against {}",
        outcome_word(v.outcome),
        v.at,
        v.base_url
    )))];
    if let Some(i) = v.isolation {
        out.push(Row::Muted(format!(
            "isolation: {}",
            crate::runner::isolate::describe(i)
        )));
    }
    for line in crate::tui::ui::failure_lines(v) {
        out.push(Row::Failure(esc(&line)));
    }
    for (n, s) in v.steps.iter().enumerate() {
        out.push(Row::Heading(esc(&format!(
            "Step {} {} — {}",
            n + 1,
            s.op_id,
            outcome_word(s.outcome)
        ))));
        let Some(ex) = &s.exchange else {
            out.push(Row::Muted("no request was sent".into()));
            continue;
        };
        exchange_rows(ex, all, &mut out);
    }
    out
}

fn exchange_rows(ex: &Exchange, all: bool, out: &mut Vec<Row>) {
    let esc = |s: &str| escape_controls(s).into_owned();
    out.push(Row::Heading("Request".into()));
    out.push(Row::Text(esc(&format!("{} {}", ex.method, ex.url))));
    for (k, v) in &ex.request_headers {
        out.push(Row::Muted(esc(&format!("{k}: {v}"))));
    }
    if let Some(b) = &ex.request_body {
        let pretty = serde_json::to_string_pretty(b).unwrap_or_default();
        out.extend(pretty.lines().map(|l| Row::Text(esc(l))));
    }
    if let Some(raw) = &ex.request_raw_body {
        out.extend(raw.lines().map(|l| Row::Text(esc(l))));
    }
    let status = ex
        .status
        .map_or("no response".to_string(), |s| s.to_string());
    out.push(Row::Heading(format!(
        "Response {status} in {} ms",
        ex.elapsed_ms
    )));
    for (k, v) in &ex.response_headers {
        out.push(Row::Muted(esc(&format!("{k}: {v}"))));
    }
    let body = pretty_body(&ex.response_body);
    let lines: Vec<&str> = body.lines().collect();
    let shown = if all {
        lines.len()
    } else {
        lines.len().min(BODY_LINES)
    };
    out.extend(lines[..shown].iter().map(|l| Row::Text(esc(l))));
    if shown < lines.len() {
        out.push(Row::Muted(format!(
            "… {} more lines (a: show all · Y: copy the body)",
            lines.len() - shown
        )));
    }
    if !ex.curl.is_empty() {
        out.push(Row::Muted(esc(&format!("curl: {}", ex.curl))));
    }
}

/// A JSON body pretty-printed; anything else as it came.
fn pretty_body(body: &str) -> String {
    serde_json::from_str::<serde_json::Value>(body)
        .ok()
        .and_then(|v| serde_json::to_string_pretty(&v).ok())
        .unwrap_or_else(|| body.to_string())
}

fn outcome_word(o: Outcome) -> &'static str {
    match o {
        Outcome::Pass => "pass",
        Outcome::Fail => "FAIL",
        Outcome::Error => "ERROR",
        Outcome::Skipped => "skipped",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{AssertionVerdict, StepVerdict};
    use serde_json::json;

    fn verdict(body: &str) -> Verdict {
        Verdict {
            o_id: "GET /pets/{id}#t1".into(),
            outcome: Outcome::Fail,
            steps: vec![StepVerdict {
                op_id: "GET /pets/{id}".into(),
                outcome: Outcome::Fail,
                assertions: vec![AssertionVerdict {
                    index: 0,
                    outcome: Outcome::Fail,
                    expected: json!(200),
                    actual: json!(404),
                    message: "expected 200, got 404 at status".into(),
                    unstable: false,
                }],
                exchange: Some(Exchange {
                    method: "GET".into(),
                    url: "http://127.0.0.1:1/pets/7".into(),
                    status: Some(404),
                    response_body: body.into(),
                    curl: "curl -X GET 'http://127.0.0.1:1/pets/7'".into(),
                    ..Exchange::default()
                }),
                message: String::new(),
            }],
            at: "2026-01-01T00:00:00Z".into(),
            base_url: "http://127.0.0.1:1".into(),
            isolation: None,
            content_hash: None,
        }
    }

    #[test]
    fn the_view_shows_the_failure_request_and_pretty_response() {
        let rows = rows(&verdict(r#"{"error":"no pet 7"}"#), false);
        assert!(rows.contains(&Row::Failure("✗ #1 expected 200, got 404 at status".into())));
        assert!(rows.contains(&Row::Text("GET http://127.0.0.1:1/pets/7".into())));
        assert!(rows.contains(&Row::Heading("Response 404 in 0 ms".into())));
        assert!(rows.contains(&Row::Text(r#"  "error": "no pet 7""#.into())));
    }

    #[test]
    fn a_long_body_is_cut_until_all_is_asked_and_escapes_are_shown_not_sent() {
        let body: Vec<String> = (0..100).map(|i| format!("line {i}\u{1b}[2J")).collect();
        let v = verdict(&body.join("\n"));
        let cut = rows(&v, false);
        assert!(cut.contains(&Row::Muted(
            "… 60 more lines (a: show all · Y: copy the body)".into()
        )));
        let all = rows(&v, true);
        assert!(
            all.iter()
                .any(|r| matches!(r, Row::Text(t) if t.starts_with("line 99")))
        );
        assert!(all.iter().all(|r| !format!("{r:?}").contains('\u{1b}')));
    }
}
