//! Popup layers drawn over the screen: help, confirm, quit during a run, note, JSON editor,
//! re-run, oracle run, export.

use super::block;
use crate::tui::state::{App, Popup};
use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph, Widget, Wrap};

fn centered(area: Rect, w: u16, h: u16) -> Rect {
    let w = w.min(area.width);
    let h = h.min(area.height);
    Rect {
        x: area.x + (area.width - w) / 2,
        y: area.y + (area.height - h) / 2,
        width: w,
        height: h,
    }
}

/// Draws every open popup, bottom first.
pub(super) fn draw(app: &App, area: Rect, buf: &mut Buffer) {
    for p in &app.popups {
        match p {
            Popup::Help => help(app, area, buf),
            Popup::Confirm { accept, o_ids } => {
                let r = centered(area, 60, 7);
                Clear.render(r, buf);
                let verb = if *accept { "Accept" } else { "Reject" };
                let lines = vec![
                    Line::raw(format!(
                        "{verb} {} oracles of the filtered list?",
                        o_ids.len()
                    )),
                    Line::raw(""),
                    Line::from(vec![
                        Span::styled("y", app.theme.key),
                        Span::raw(" / enter: yes    "),
                        Span::styled("n", app.theme.key),
                        Span::raw(" / esc: no"),
                    ]),
                ];
                Paragraph::new(lines)
                    .style(app.theme.popup)
                    .wrap(Wrap { trim: false })
                    .block(block(app, format!("{verb} all"), true))
                    .render(r, buf);
            }
            Popup::ConfirmQuit => {
                let r = centered(area, 60, 7);
                Clear.render(r, buf);
                let lines = vec![
                    Line::raw("The run is still in progress. Stop it and quit?"),
                    Line::styled(
                        "(completed calls are cached: `mastor run` resumes it)",
                        app.theme.muted,
                    ),
                    Line::from(vec![
                        Span::styled("y", app.theme.key),
                        Span::raw(" / enter: stop and quit    "),
                        Span::styled("n", app.theme.key),
                        Span::raw(" / esc: keep watching"),
                    ]),
                ];
                Paragraph::new(lines)
                    .style(app.theme.popup)
                    .wrap(Wrap { trim: false })
                    .block(block(app, "Quit", true))
                    .render(r, buf);
            }
            Popup::Note { o_ids, text } => {
                let r = centered(area, 70, 7);
                Clear.render(r, buf);
                let what = if o_ids.len() == 1 {
                    o_ids[0].clone()
                } else {
                    format!("{} oracles", o_ids.len())
                };
                let lines = vec![
                    Line::raw(format!("Reject {what}")),
                    Line::from(vec![
                        Span::styled("note: ", app.theme.muted),
                        Span::raw(text.clone()),
                        Span::styled("▏", app.theme.accent),
                    ]),
                    Line::from(Span::styled(
                        "enter: reject (note optional) · esc: cancel",
                        app.theme.muted,
                    )),
                ];
                Paragraph::new(lines)
                    .style(app.theme.popup)
                    .wrap(Wrap { trim: false })
                    .block(block(app, "Reject", true))
                    .render(r, buf);
            }
            Popup::Judge {
                o_id,
                judgement,
                verdict,
                text,
            } => {
                let r = centered(area, 70, 8);
                Clear.render(r, buf);
                let run = verdict.run_at.as_deref().unwrap_or("time not recorded");
                let lines = vec![
                    Line::raw(format!("Judge {o_id} a {}", judgement.words())),
                    Line::styled(
                        format!("latest verdict: {} (run {run})", verdict.outcome),
                        app.theme.muted,
                    ),
                    Line::from(vec![
                        Span::styled("note: ", app.theme.muted),
                        Span::raw(text.clone()),
                        Span::styled("▏", app.theme.accent),
                    ]),
                    Line::from(Span::styled(
                        "enter: judge (note optional) · esc: cancel",
                        app.theme.muted,
                    )),
                ];
                Paragraph::new(lines)
                    .style(app.theme.popup)
                    .wrap(Wrap { trim: false })
                    .block(block(app, judgement.mark(), true))
                    .render(r, buf);
            }
            Popup::Editor {
                o_id,
                textarea,
                error,
                ..
            } => {
                let r = centered(
                    area,
                    area.width.saturating_sub(4).max(40),
                    area.height.saturating_sub(2),
                );
                Clear.render(r, buf);
                let title = format!("Edit {o_id} · ctrl-s: validate and keep · esc: cancel");
                let b = block(app, title, true).style(app.theme.popup);
                let inner = b.inner(r);
                b.render(r, buf);
                let err_h = if error.is_some() { 3 } else { 0 };
                let [edit, err] =
                    Layout::vertical([Constraint::Min(1), Constraint::Length(err_h)]).areas(inner);
                textarea.as_ref().render(edit, buf);
                if let Some(e) = error {
                    Paragraph::new(Span::styled(format!("✗ {e}"), app.theme.error))
                        .wrap(Wrap { trim: false })
                        .render(err, buf);
                }
            }
            Popup::Rerun { op_id, choice } => rerun(app, op_id, *choice, area, buf),
            Popup::RunOracles { url } => {
                let r = centered(area, 76, 7);
                Clear.render(r, buf);
                let lines = vec![
                    Line::raw("Run the accepted and edited oracles against:"),
                    Line::from(vec![
                        Span::styled("base URL: ", app.theme.muted),
                        Span::raw(url.clone()),
                        Span::styled("▏", app.theme.accent),
                    ]),
                    Line::from(Span::styled(
                        "enter: run (verdicts are saved to the session) · esc: cancel",
                        app.theme.muted,
                    )),
                ];
                Paragraph::new(lines)
                    .style(app.theme.popup)
                    .wrap(Wrap { trim: false })
                    .block(block(app, "Run oracles", true))
                    .render(r, buf);
            }
            Popup::Export {
                dest,
                format,
                result,
            } => {
                let r = centered(area, 76, 9);
                Clear.render(r, buf);
                let formats = crate::tui::export::formats();
                let fname = formats.get(*format).map(|f| f.name()).unwrap_or("?");
                let suite = crate::tui::export::reviewed_suite(&app.view);
                let mut lines = vec![
                    Line::from(vec![
                        Span::styled("format: ", app.theme.muted),
                        Span::styled(fname.to_string(), app.theme.accent),
                        Span::styled("  (tab: next format)", app.theme.muted),
                    ]),
                    Line::from(vec![
                        Span::styled("to: ", app.theme.muted),
                        Span::raw(dest.clone()),
                        Span::styled("▏", app.theme.accent),
                    ]),
                    Line::raw(format!(
                        "includes {} accepted/edited oracles, {} multi-op, {} metamorphic",
                        suite.oracles.len(),
                        suite.multi_op.len(),
                        suite.metamorphic.len()
                    )),
                ];
                match result {
                    None => lines.push(Line::from(Span::styled(
                        "enter: export · esc: cancel",
                        app.theme.muted,
                    ))),
                    Some(Ok(msg)) => {
                        lines.push(Line::from(Span::styled(format!("✓ {msg}"), app.theme.done)))
                    }
                    Some(Err(msg)) => lines.push(Line::from(Span::styled(
                        format!("✗ {msg}"),
                        app.theme.error,
                    ))),
                }
                Paragraph::new(lines)
                    .style(app.theme.popup)
                    .wrap(Wrap { trim: false })
                    .block(block(app, "Export", true))
                    .render(r, buf);
            }
        }
    }
}

/// The re-run popup: one line per starting agent, the chosen one marked. Where the
/// descriptions do not fit beside the names, only the chosen one's is shown, below.
fn rerun(app: &App, op_id: &str, choice: usize, area: Rect, buf: &mut Buffer) {
    let choices = crate::tui::jobs::RERUN_FROM;
    const NAME_W: usize = 22;
    let widest = choices
        .iter()
        .map(|(_, w)| w.chars().count())
        .max()
        .unwrap_or(0);
    let inline = usize::from(area.width) >= NAME_W + widest + 5;
    let h = choices.len() as u16 + if inline { 6 } else { 8 };
    let r = centered(area, (NAME_W + widest + 5) as u16, h);
    Clear.render(r, buf);
    let mut lines = vec![Line::raw(format!("Re-run {op_id} from:"))];
    for (i, (agent, what)) in choices.iter().enumerate() {
        let (mark, style) = if i == choice {
            ("▶ ", app.theme.selected)
        } else {
            ("  ", app.theme.popup)
        };
        let name = agent.unwrap_or("all agents");
        let mut spans = vec![Span::styled(format!("{mark}{name:<NAME_W$}"), style)];
        if inline {
            spans.push(Span::styled(format!(" {what}"), app.theme.muted));
        }
        lines.push(Line::from(spans));
    }
    if !inline && let Some((_, what)) = choices.get(choice) {
        lines.push(Line::styled(format!("→ {what}"), app.theme.accent));
    }
    lines.push(Line::from(Span::styled(
        "earlier agents replay their cached answers · the old result stays until it finishes",
        app.theme.muted,
    )));
    lines.push(Line::from(Span::styled(
        "↑/↓: choose · enter: re-run · esc: cancel",
        app.theme.muted,
    )));
    Paragraph::new(lines)
        .style(app.theme.popup)
        .wrap(Wrap { trim: false })
        .block(block(app, "Re-run", true))
        .render(r, buf);
}

fn help(app: &App, area: Rect, buf: &mut Buffer) {
    let r = centered(area, 72, area.height.saturating_sub(2));
    Clear.render(r, buf);
    let rows = app.keymap.help_rows();
    let mut lines = Vec::new();
    let mut last = "";
    for (section, keys, desc) in rows {
        if section != last {
            lines.push(Line::from(Span::styled(
                format!("[{section}]"),
                app.theme.title,
            )));
            last = section;
        }
        lines.push(Line::from(vec![
            Span::styled(format!("  {keys:<11}"), app.theme.key),
            Span::raw(desc),
        ]));
    }
    lines.push(Line::from(Span::styled(
        format!("theme: {} · keys from keymap.toml", app.theme.name),
        app.theme.muted,
    )));
    // Two columns when the terminal is tall enough to need fewer rows than it has.
    let inner_h = r.height.saturating_sub(2) as usize;
    let b = block(app, "Keys (? or esc to close)", true).style(app.theme.popup);
    let inner = b.inner(r);
    b.render(r, buf);
    if lines.len() > inner_h {
        let [a, c] = Layout::horizontal([Constraint::Percentage(50), Constraint::Percentage(50)])
            .areas(inner);
        let right = lines.split_off(lines.len().div_ceil(2));
        Paragraph::new(lines).render(a, buf);
        Paragraph::new(right).render(c, buf);
    } else {
        Paragraph::new(lines).render(inner, buf);
    }
}
