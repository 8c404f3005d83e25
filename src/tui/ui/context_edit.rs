//! The Context tab's account of a reviewer's context edit: that the context on show is
//! the edit, what changed against the extraction (as an edited oracle shows it), and the
//! keys to edit, drop or regenerate from it.

use crate::tui::state::App;
use crate::tui::view::OpView;
use ratatui::text::Line;

/// Whether the context on show is the reviewer's edit (with what changed against the
/// extraction, as an edited oracle shows it), and the keys to edit or drop it.
pub(super) fn lines<'a>(app: &App, op: &OpView, lines: &mut Vec<Line<'a>>) {
    use crate::tui::action::Action;
    let t = &app.theme;
    let key = |a| app.keymap.hint(&["context"], a).unwrap_or_default();
    let Some(edit) = &op.context_edit else {
        lines.push(Line::styled(
            format!(
                "{}: edit this context (runs then generate from the edit)",
                key(Action::EditContext)
            ),
            t.muted,
        ));
        return;
    };
    lines.push(Line::styled(
        crate::text::escape_controls(&format!(
            "✎ Edited by the reviewer ({}): runs generate from this edit and never extract over it",
            edit.at
        ))
        .into_owned(),
        t.edited,
    ));
    let rerun = app
        .keymap
        .hint(&["global"], Action::Rerun)
        .unwrap_or_default();
    lines.push(Line::styled(
        format!(
            "  {}: edit again · {}: drop the edit · {rerun} from single_op: regenerate the oracles from it",
            key(Action::EditContext),
            key(Action::DropContextEdit)
        ),
        t.muted,
    ));
    let empty = crate::model::SourceContext {
        op_id: op.op_id.clone(),
        ..Default::default()
    };
    let extracted = edit.extracted.as_ref().unwrap_or(&empty);
    if let Some(now) = &op.context {
        super::oracles::edit_lines(app, extracted, now, lines);
    }
    lines.push(Line::raw(""));
}
