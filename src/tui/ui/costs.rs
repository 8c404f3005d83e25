//! The costs screen: tokens, money and time per agent and per phase, or why there
//! are none.

use super::{block, fmt_cost, fmt_ms, fmt_tokens};
use crate::tui::state::App;
use crate::tui::view::Usage;
use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::Line;
use ratatui::widgets::{Cell, Paragraph, Row, Table, Widget, Wrap};

fn usage_row<'a>(name: &str, u: &Usage) -> Row<'a> {
    Row::new(vec![
        Cell::from(name.to_string()),
        Cell::from(u.calls.to_string()),
        Cell::from(fmt_tokens(u.tokens_in)),
        Cell::from(fmt_tokens(u.tokens_out)),
        Cell::from(fmt_cost(u.cost_usd)),
        Cell::from(fmt_ms(u.wall_ms)),
    ])
}

/// Costs screen: per agent and per phase, from events and call records.
pub(crate) fn draw_costs(app: &App, area: Rect, buf: &mut Buffer) {
    let t = &app.theme;
    if app.view.agent_usage.is_empty()
        && app.view.phase_usage.is_empty()
        && app.view.calls.is_empty()
    {
        // A blank table reads as "free"; say where costs come from instead.
        Paragraph::new(vec![
            Line::styled(
                "No model calls are recorded in this session, so nothing cost anything yet.",
                t.text,
            ),
            Line::styled(
                "Costs come from the calls `mastor run` makes (tokens, money and time per \
                 agent and phase, from events.jsonl and calls/). A session made by \
                 `mastor import` has none.",
                t.muted,
            ),
        ])
        .wrap(Wrap { trim: false })
        .block(block(app, "Costs", true))
        .render(area, buf);
        return;
    }
    let [agents_area, phases_area] =
        Layout::vertical([Constraint::Percentage(55), Constraint::Percentage(45)]).areas(area);
    let widths = [
        Constraint::Min(18),
        Constraint::Length(6),
        Constraint::Length(10),
        Constraint::Length(10),
        Constraint::Length(10),
        Constraint::Length(9),
    ];
    let header = Row::new(["", "Calls", "Tokens in", "Tokens out", "Cost", "Time"]).style(t.title);
    let mut rows: Vec<Row> = app
        .view
        .agent_usage
        .iter()
        .map(|(a, u)| {
            let records = app.view.calls.iter().filter(|c| &c.agent == a).count();
            let mut u = *u;
            u.calls = u.calls.max(records as u64);
            usage_row(a, &u)
        })
        .collect();
    rows.push(usage_row("total", &app.view.totals()).style(t.accent));
    Table::new(rows, widths)
        .header(header.clone())
        .block(block(app, "Cost per agent", true))
        .render(agents_area, buf);
    let rows: Vec<Row> = app
        .view
        .phase_usage
        .iter()
        .map(|(p, u)| usage_row(p, u))
        .collect();
    Table::new(rows, widths)
        .header(header)
        .block(block(app, "Cost per phase", false))
        .render(phases_area, buf);
}
