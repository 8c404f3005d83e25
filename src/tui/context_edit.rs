//! Editing an operation's source context on its Context tab, to debug extraction on one
//! endpoint: the same inline editor as oracles, checked against the `SourceContext` type
//! on save (unknown keys and bad shapes are shown in the editor, nothing is lost), and
//! journalled as a reviewed input (`store::context_edits`). A run then generates from the
//! edit and never extracts over it; `ctrl-r` from `single_op` regenerates the oracles.

use super::popups::Editor;
use super::screens::Ctx;
use super::state::{App, Popup};
use super::update::Effect;
use crate::model::SourceContext;
use crate::store::ContextEdit;
use ratatui_textarea::TextArea;

/// Parameter locations a context may name (what extraction accepts).
const LOCATIONS: [&str; 5] = ["path", "query", "header", "body", "cookie"];

/// The `edit_context` action on operation `op`'s Context tab: the context on show (the
/// edit, when one stands) in the inline editor; an operation without one starts from an
/// empty context.
pub fn open(op: usize, ctx: &mut Ctx) {
    let Some(o) = ctx.view.ops.get(op) else {
        return;
    };
    let context = o.context.clone().unwrap_or_else(|| SourceContext {
        op_id: o.op_id.clone(),
        ..SourceContext::default()
    });
    let op_id = o.op_id.clone();
    let text = serde_json::to_string_pretty(&context).unwrap_or_default();
    let mut textarea = TextArea::new(text.lines().map(str::to_string).collect());
    textarea.set_line_number_style(ctx.theme.line_number);
    ctx.popups.push(Popup::Editor(Editor {
        o_id: op_id,
        multi: false,
        context: true,
        textarea: Box::new(textarea),
        error: None,
    }));
}

/// The `drop_context_edit` action on operation `op`'s Context tab: withdraws the
/// operation's edit (the journal keeps it), so the extraction's context is used again.
pub fn drop_edit(op: usize, ctx: &mut Ctx) -> Vec<Effect> {
    let Some(o) = ctx.view.ops.get(op) else {
        return Vec::new();
    };
    if o.context_edit.is_none() {
        ctx.notify(format!(
            "{}: its context is the extraction's (no edit to drop)",
            o.op_id
        ));
        return Vec::new();
    }
    vec![Effect::WithdrawContextEdit(o.op_id.clone())]
}

/// Checks edited JSON as the source context of `op_id`: the type's shape with no key it
/// does not know, the same op_id, real statuses and parameter locations, and envelopes
/// that error cases name present.
pub fn validate(op_id: &str, text: &str) -> Result<SourceContext, String> {
    let c: SourceContext =
        super::json_lines::parse_strict(text).map_err(|e| format!("not a source context: {e}"))?;
    if c.op_id != op_id {
        return Err(format!(
            "op_id changed ({}); keep it so the edit stays on {op_id}",
            c.op_id
        ));
    }
    let status = |s: u16| (100..=599).contains(&s);
    if let Some(s) = c.response_schema.success_status.filter(|s| !status(*s)) {
        return Err(format!(
            "response_schema.success_status {s} is not an HTTP status"
        ));
    }
    for (i, p) in c.request_params.iter().enumerate() {
        if p.name.trim().is_empty() {
            return Err(format!("request_params[{i}] has no name"));
        }
        if !LOCATIONS.contains(&p.location.as_str()) {
            return Err(format!(
                "request_params[{i}].location `{}`: expected one of {}",
                p.location,
                LOCATIONS.join(", ")
            ));
        }
    }
    for (i, e) in c.response_schema.error_cases.iter().enumerate() {
        if !status(e.status) {
            return Err(format!(
                "response_schema.error_cases[{i}].status {} is not an HTTP status",
                e.status
            ));
        }
        if let Some(n) = &e.envelope
            && !c.error_envelopes.iter().any(|v| &v.name == n)
        {
            return Err(format!(
                "response_schema.error_cases[{i}].envelope `{n}` is not in error_envelopes"
            ));
        }
    }
    Ok(c)
}

/// The command line that regenerates `op_id`'s oracles from its edited context outside
/// the workbench.
pub fn regenerate_command(op_id: &str) -> String {
    format!("mastor run PROJECT --out SESSION --op '{op_id}' --refresh-from single_op")
}

impl App {
    /// The journal now holds `edit`: the Context tab shows it (or, withdrawn, the
    /// extraction's context again).
    pub fn context_edit_saved(&mut self, edit: ContextEdit) {
        let Some(&i) = self.view.op_index.get(&edit.op_id) else {
            return;
        };
        let op = &mut self.view.ops[i];
        let key = |a| self.keymap.hint(&["global"], a).unwrap_or_default();
        let message = match edit.context {
            Some(context) => {
                let extracted = match op.context_edit.take() {
                    Some(before) => before.extracted,
                    None => op.context.take(),
                };
                op.context = Some(context);
                op.context_edit = Some(super::view::ContextEditView {
                    extracted,
                    at: edit.at,
                });
                format!(
                    "{}: edited context saved; runs use it. {} → single_op regenerates the \
                     oracles from it (or `{}`)",
                    edit.op_id,
                    key(super::action::Action::Rerun),
                    regenerate_command(&edit.op_id)
                )
            }
            None => {
                if let Some(before) = op.context_edit.take() {
                    op.context = before.extracted;
                }
                format!(
                    "{}: context edit dropped (still in context_edits.jsonl); the \
                     extraction's context is used again",
                    edit.op_id
                )
            }
        };
        self.notify(message);
    }
}

#[cfg(test)]
mod tests {
    use super::validate;

    #[test]
    fn an_edit_must_keep_real_locations_and_name_envelopes_it_has() {
        let ok = r#"{"op_id": "GET /a", "request_params": [{"name": "id", "location": "path"}],
            "error_envelopes": [{"name": "Http.send", "fields": [{"name": "error"}]}],
            "response_schema": {"error_cases": [{"status": 404, "envelope": "Http.send"}]}}"#;
        assert!(validate("GET /a", ok).is_ok());
        let e = validate("GET /a", &ok.replace("\"path\"", "\"astral\"")).unwrap_err();
        assert!(e.contains("request_params[0].location `astral`"), "{e}");
        let e = validate(
            "GET /a",
            &ok.replace("\"envelope\": \"Http.send\"", "\"envelope\": \"X.y\""),
        )
        .unwrap_err();
        assert!(
            e.contains("envelope `X.y` is not in error_envelopes"),
            "{e}"
        );
        let e = validate("GET /a", &ok.replace("404", "42")).unwrap_err();
        assert!(e.contains("error_cases[0].status 42"), "{e}");
        let e = validate("GET /a", "{\"op_id\": \"GET /a\", \"extra\": 1}").unwrap_err();
        assert!(e.contains("unknown key `extra`"), "{e}");
    }
}
