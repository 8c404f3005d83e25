//! The list screens: operations (with the summary bar) and groups.

use super::{
    agent_glyph, agent_line, block, fmt_cost, fmt_tokens, state_label, state_style, window_start,
};
use crate::model::ReviewState;
use crate::tui::screens::{GroupsScreen, OperationsScreen};
use crate::tui::state::{App, LiveState, state_index};
use crate::tui::view::AgentState;
use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Row, Table, Widget, Wrap};

/// The per-row count columns: set-aside oracles are counted in the summary line only.
const REVIEWED: [ReviewState; 4] = [
    ReviewState::Proposed,
    ReviewState::Accepted,
    ReviewState::Edited,
    ReviewState::Rejected,
];

const STATES: [ReviewState; 5] = [
    ReviewState::Proposed,
    ReviewState::Accepted,
    ReviewState::Edited,
    ReviewState::Rejected,
    ReviewState::Dropped,
];

/// The session's counts in one line; on a narrow terminal whole items are left out
/// (tokens and cost first, then zero counts), never a digit of a count.
fn summary_line<'a>(app: &App, width: u16) -> Line<'a> {
    use super::fit::{Item, fit};
    let t = &app.theme;
    let c = app.total_counts;
    let totals = c.states;
    let (pass, fail, err) = (c.pass, c.fail, c.error);
    let (mut running, mut failed) = (0, 0);
    for op in &app.view.ops {
        for a in op.agents.values() {
            match a.state {
                AgentState::Running { .. } => running += 1,
                AgentState::Failed { .. } => failed += 1,
                _ => {}
            }
        }
    }
    let u = app.view.totals();
    let mut items: Vec<Item<()>> = vec![Item::new(
        9,
        vec![Span::styled(
            format!(
                " {} ops · {} oracles: ",
                app.view.ops.len(),
                totals.iter().sum::<usize>() - totals[state_index(ReviewState::Dropped)]
            ),
            t.text,
        )],
    )];
    for (i, s) in STATES.iter().enumerate() {
        // Set-aside oracles are not part of the suite: shown only when there are some.
        if *s == ReviewState::Dropped && totals[i] == 0 {
            continue;
        }
        let keep = if totals[i] == 0 { 3 } else { 6 };
        items.push(Item::new(
            keep,
            vec![Span::styled(
                format!("{} {}  ", totals[i], state_label(*s)),
                state_style(app, *s),
            )],
        ));
    }
    let mr = app.view.metamorphic.len();
    if mr > 0 {
        items.push(Item::new(
            4,
            vec![Span::styled(format!("· {mr} metamorphic  "), t.accent)],
        ));
    }
    if pass + fail + err > 0 {
        let mut spans = vec![
            Span::styled(format!("✓{pass} "), t.pass),
            Span::styled(format!("✗{fail} "), t.fail),
        ];
        if err > 0 {
            spans.push(Span::styled(format!("!{err} "), t.error));
        }
        spans.push(Span::raw(" "));
        items.push(Item::new(8, spans));
    }
    items.push(Item::new(
        2,
        vec![Span::styled(
            format!(
                "· {}/{} tok · {} ",
                fmt_tokens(u.tokens_in),
                fmt_tokens(u.tokens_out),
                fmt_cost(u.cost_usd)
            ),
            t.muted,
        )],
    ));
    let live = match &app.live() {
        LiveState::Off => None,
        LiveState::Running => Some(Span::styled(" run in progress", t.running)),
        LiveState::Finished => Some(Span::styled(" run finished", t.done)),
        LiveState::Failed(why) => Some(Span::styled(format!(" run failed: {why}"), t.failed)),
    };
    items.extend(live.map(|s| Item::new(7, vec![s])));
    if running > 0 {
        items.push(Item::new(
            7,
            vec![Span::styled(format!(" {running} running"), t.running)],
        ));
    }
    if failed > 0 {
        items.push(Item::new(
            7,
            vec![Span::styled(format!(" {failed} failed"), t.failed)],
        ));
    }
    Line::from(
        fit(items, width as usize)
            .into_iter()
            .flat_map(|i| i.spans)
            .collect::<Vec<_>>(),
    )
}

fn filter_line<'a>(app: &App) -> Line<'a> {
    let t = &app.theme;
    let f = &app.filters;
    let mut parts = vec![format!("sort: {}", app.sort.label())];
    if !f.text.is_empty() {
        parts.push(format!("text: {}", f.text));
    }
    if let Some(m) = &f.method {
        parts.push(format!("method: {m}"));
    }
    if let Some(s) = f.status {
        parts.push(format!("agent: {}", s.label()));
    }
    if let Some(s) = f.state {
        parts.push(format!("review: {}", state_label(s)));
    }
    if let Some(v) = f.verdict {
        parts.push(format!("verdict: {}", v.label()));
    }
    Line::from(vec![
        Span::styled(
            format!(
                " {} of {} shown · ",
                app.visible_ops.len(),
                app.view.ops.len()
            ),
            t.muted,
        ),
        Span::styled(parts.join(" · "), t.accent),
    ])
}

/// One readable style across a selected row, whatever each cell's own colours.
fn selected_row(app: &App, cells: &mut [Line]) {
    for line in cells {
        for span in &mut line.spans {
            span.style = app.theme.selected;
        }
    }
}

/// The "Selected" pane's lines: the operation, its note, one line per agent that has
/// reported, and the session's warnings.
fn selected_lines<'a>(app: &App) -> Vec<Line<'a>> {
    let t = &app.theme;
    let mut lines = Vec::new();
    if let Some(op) = app.selected_op().and_then(|i| app.view.ops.get(i)) {
        let mut head = vec![Span::styled(op.op_id.clone(), t.method(&op.method))];
        if let Some(s) = &op.summary {
            head.push(Span::styled(format!("  {s}"), t.muted));
        }
        lines.push(Line::from(head));
        if let Some(n) = &op.note {
            lines.push(Line::from(Span::styled(n.clone(), t.warning)));
        }
        for a in &app.view.agents {
            if let Some(s) = op.agents.get(a) {
                lines.push(agent_line(app, a, s));
            }
        }
        if op.agents.is_empty() {
            lines.push(Line::from(Span::styled("no agent events yet", t.muted)));
        }
    }
    for w in &app.view.warnings {
        lines.push(Line::from(Span::styled(format!("⚠ {w}"), t.warning)));
    }
    lines
}

/// One row of the operations list: method, path, agent glyphs, review counts,
/// verdicts and (when wide) tokens and cost.
fn op_row<'a>(app: &App, i: usize, selected: bool, wide: bool) -> Row<'a> {
    let t = &app.theme;
    let agents = &app.view.agents;
    let op = &app.view.ops[i];
    let oc = app.counts.get(i).copied().unwrap_or_default();
    let c = oc.states;
    let mut glyphs: Vec<Span> = agents
        .iter()
        .map(|a| agent_glyph(app, op.agents.get(a)))
        .collect();
    let retries: u32 = op.agents.values().map(|a| a.retries).sum();
    if retries > 0 {
        glyphs.push(Span::styled(format!("↻{retries}"), t.warning));
    }
    let (p, f, e) = (oc.pass, oc.fail, oc.error);
    let verdict = if p + f + e == 0 {
        Line::from(Span::styled("-", t.muted))
    } else {
        let mut spans = vec![
            Span::styled(format!("✓{p}"), t.pass),
            Span::styled(format!(" ✗{f}"), t.fail),
        ];
        if e > 0 {
            spans.push(Span::styled(format!(" !{e}"), t.error));
        }
        Line::from(spans)
    };
    let counts = Line::from(
        c.iter()
            .zip(REVIEWED)
            .flat_map(|(n, s)| {
                [
                    Span::styled(format!("{n:>3}"), state_style(app, s)),
                    Span::raw(" "),
                ]
            })
            .collect::<Vec<_>>(),
    );
    let mut cells: Vec<Line> = vec![
        Line::from(Span::styled(op.method.clone(), t.method(&op.method))),
        Line::from(op.path.clone()),
        Line::from(glyphs),
        counts,
        verdict,
    ];
    if wide {
        cells.push(Line::from(format!(
            "{}/{}",
            fmt_tokens(op.usage.tokens_in),
            fmt_tokens(op.usage.tokens_out)
        )));
        cells.push(Line::from(fmt_cost(op.usage.cost_usd)));
    }
    if selected {
        selected_row(app, &mut cells);
        Row::new(cells).style(t.selected)
    } else {
        Row::new(cells)
    }
}

/// Operations screen.
pub(crate) fn draw_operations(app: &App, scr: &OperationsScreen, area: Rect, buf: &mut Buffer) {
    let t = &app.theme;
    let lines = selected_lines(app);
    // As tall as the selected operation needs (every agent line and warning), within a
    // third of the screen; never below the four rows an 80x24 terminal can spare.
    let wanted = lines.len() as u16 + 2;
    let detail_h = wanted.clamp(4, (area.height / 3).max(4));
    let [summary, filters, list, detail] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Length(1),
        Constraint::Min(3),
        Constraint::Length(detail_h),
    ])
    .areas(area);
    summary_line(app, summary.width).render(summary, buf);
    filter_line(app).render(filters, buf);

    let wide = area.width >= 100;
    let inner_h = list.height.saturating_sub(3) as usize;
    let start = window_start(scr.cursor, inner_h);
    // Rows start under the border and the table header.
    let rows_area = Rect {
        x: list.x + 1,
        y: list.y + 2,
        width: list.width.saturating_sub(2),
        height: inner_h as u16,
    };
    app.hits.rows(
        rows_area,
        start,
        app.visible_ops.len().saturating_sub(start),
    );
    let agents = &app.view.agents;
    let rows: Vec<Row> = app
        .visible_ops
        .iter()
        .enumerate()
        .skip(start)
        .take(inner_h)
        .map(|(row_i, &i)| op_row(app, i, row_i == scr.cursor, wide))
        .collect();
    let agents_w = (agents.len() + 3).max(6) as u16;
    let mut widths = vec![
        Constraint::Length(7),
        Constraint::Min(16),
        Constraint::Length(agents_w),
        Constraint::Length(16),
        Constraint::Length(8),
    ];
    // Agent column header: one initial per agent, in glyph order (names in "Selected").
    let initials: String = agents
        .iter()
        .map(|a| a.chars().next().unwrap_or('?').to_ascii_uppercase())
        .collect();
    let agents_head = if initials.is_empty() {
        "Agents".to_string()
    } else {
        initials
    };
    let mut header = vec![
        "Method",
        "Path",
        &agents_head,
        "Todo Acc Edt Rej",
        "Verdict",
    ];
    if wide {
        widths.push(Constraint::Length(13));
        widths.push(Constraint::Length(8));
        header.push("Tokens in/out");
        header.push("Cost");
    }
    let title = format!("Operations ({})", app.visible_ops.len());
    if app.visible_ops.is_empty() {
        let why = if app.view.ops.is_empty() {
            "No operations in this session yet: mastor run fills it from the spec \
             and the Java source (mastor import reads a suite file)."
        } else {
            "No operation passes the filters shown above: c clears them."
        };
        Paragraph::new(Line::styled(why, t.muted))
            .wrap(Wrap { trim: false })
            .block(block(app, title, true))
            .render(list, buf);
    } else {
        Table::new(rows, widths)
            .header(Row::new(header).style(t.title))
            .block(block(app, title, true))
            .render(list, buf);
    }

    Paragraph::new(lines)
        .wrap(Wrap { trim: false })
        .block(block(app, "Selected", false))
        .render(detail, buf);
}

/// Width of the groups list's verdict column (`✓123 ✗45 !6`).
const VERDICT_W: u16 = 12;

/// One row of the groups list: id, agents, oracle count, review counts, verdicts,
/// operations.
fn group_row<'a>(app: &App, g: &crate::tui::view::GroupView, selected: bool) -> Row<'a> {
    let t = &app.theme;
    let mut c = [0usize; 5];
    for o in &g.oracles {
        let s = app.view.review_state(&o.o_id());
        if let Some(k) = STATES.iter().position(|x| *x == s) {
            c[k] += 1;
        }
    }
    let mut ops: Vec<&str> = g
        .oracles
        .iter()
        .flat_map(|o| o.steps.iter().map(|s| s.op_id.as_str()))
        .collect();
    ops.sort();
    ops.dedup();
    let counts = Line::from(
        c.iter()
            .zip(REVIEWED)
            .flat_map(|(n, s)| {
                [
                    Span::styled(format!("{n:>3}"), state_style(app, s)),
                    Span::raw(" "),
                ]
            })
            .collect::<Vec<_>>(),
    );
    let glyphs: Vec<Span> = g
        .agents
        .values()
        .map(|a| agent_glyph(app, Some(a)))
        .collect();
    let mut cells: Vec<Line> = vec![
        Line::from(g.group_id.clone()),
        Line::from(glyphs),
        Line::from(g.oracles.len().to_string()),
        counts,
        group_verdicts(app, g),
        Line::from(ops.join(", ")),
    ];
    if selected {
        selected_row(app, &mut cells);
        Row::new(cells).style(t.selected)
    } else {
        Row::new(cells)
    }
}

/// The verdict column of a group: its sequences' latest outcomes, as the operations
/// list counts an operation's oracles (a stale verdict counts nowhere).
fn group_verdicts<'a>(app: &App, g: &crate::tui::view::GroupView) -> Line<'a> {
    use crate::tui::verdict_mark::VerdictMark;
    let t = &app.theme;
    let (mut p, mut f, mut e) = (0, 0, 0);
    for o in &g.oracles {
        match app.view.verdict_mark(&o.o_id()) {
            Some(VerdictMark::Pass) => p += 1,
            Some(VerdictMark::Fail) => f += 1,
            Some(VerdictMark::Error) => e += 1,
            _ => {}
        }
    }
    if p + f + e == 0 {
        return Line::from(Span::styled("-", t.muted));
    }
    let mut spans = vec![
        Span::styled(format!("✓{p}"), t.pass),
        Span::styled(format!(" ✗{f}"), t.fail),
    ];
    if e > 0 {
        spans.push(Span::styled(format!(" !{e}"), t.error));
    }
    Line::from(spans)
}

/// Groups screen.
pub(crate) fn draw_groups(app: &App, scr: &GroupsScreen, area: Rect, buf: &mut Buffer) {
    let t = &app.theme;
    let inner_h = area.height.saturating_sub(3) as usize;
    let start = window_start(scr.cursor, inner_h);
    let rows_area = Rect {
        x: area.x + 1,
        y: area.y + 2,
        width: area.width.saturating_sub(2),
        height: inner_h as u16,
    };
    app.hits.rows(
        rows_area,
        start,
        app.view.groups.len().saturating_sub(start),
    );
    let rows: Vec<Row> = app
        .view
        .groups
        .iter()
        .enumerate()
        .skip(start)
        .take(inner_h)
        .map(|(i, g)| group_row(app, g, i == scr.cursor))
        .collect();
    // Names as long as the longest needs, leaving the operations column ten columns:
    // a name is cut only when the terminal has no room for it.
    const FIXED: u16 = 7 + 7 + 16 + VERDICT_W + 5 + 2;
    let longest = app
        .view
        .groups
        .iter()
        .map(|g| Line::from(g.group_id.as_str()).width() as u16)
        .max()
        .unwrap_or(0);
    let name_w = longest
        .max(5)
        .min(area.width.saturating_sub(FIXED + 10).max(12));
    let widths = [
        Constraint::Length(name_w),
        Constraint::Length(7),
        Constraint::Length(7),
        Constraint::Length(16),
        Constraint::Length(VERDICT_W),
        Constraint::Min(10),
    ];
    if app.view.groups.is_empty() {
        Paragraph::new(vec![
            Line::styled(
                "No operation groups in this session, so no multi-operation oracles.",
                t.text,
            ),
            Line::styled(
                "Groups come from the grouping agent of `mastor run`: it pairs operations \
                 that share data (a create and the read that should reflect it). An \
                 imported or metamorphic-only session has none, and a run whose grouping \
                 failed or found no related operations says why on the Operations screen.",
                t.muted,
            ),
        ])
        .wrap(Wrap { trim: false })
        .block(block(app, "Groups (0)", true))
        .render(area, buf);
        return;
    }
    Table::new(rows, widths)
        .header(
            Row::new([
                "Group",
                "Agents",
                "Oracles",
                "Todo Acc Edt Rej",
                "Verdict",
                "Operations",
            ])
            .style(t.title),
        )
        .block(block(
            app,
            format!("Groups ({})", app.view.groups.len()),
            true,
        ))
        .render(area, buf);
}
