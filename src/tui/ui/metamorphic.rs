//! Metamorphic screen: the session's metamorphic tests as a list (id, scenario, slug,
//! outcome, review state) and the selected test in full: Given / When / Then, seed and
//! follow-up steps, relations with their last values, the outcome and its slug group.
//!
//! Review keys act on the selected test exactly as on an oracle; this module only draws.

use super::oracles::{assertion_text, input_lines, judgement_line, judgement_span};
use super::{block, scrolled, state_label, state_style, window_start};
use crate::model::{MetamorphicTest, Relation, ReviewState, Step};
use crate::runner::relations::{RelationOutcome, op_text};
use crate::tui::metamorphic::{MrStatus, outcome};
use crate::tui::state::{App, ItemRef, MetamorphicScreen};
use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Row, Table, Widget, Wrap};

fn status_style(app: &App, s: MrStatus) -> Style {
    match s {
        MrStatus::Passed => app.theme.pass,
        MrStatus::RelationViolated => app.theme.fail,
        MrStatus::ExecutionFailed => app.theme.error,
        MrStatus::NotRun => app.theme.muted,
    }
}

fn state_glyph(s: ReviewState) -> &'static str {
    match s {
        ReviewState::Proposed => "○",
        ReviewState::Accepted => "✓",
        ReviewState::Edited => "✎",
        ReviewState::Rejected => "✗",
        ReviewState::Dropped => "⊘",
    }
}

/// The relation as written: `left op right`, or `left op value` when right is empty.
pub(crate) fn relation_text(r: &Relation) -> String {
    let op = op_text(r.op);
    match (r.right.trim().is_empty(), r.value.is_null()) {
        (true, _) => format!("{} {op} {}", r.left, r.value),
        (false, true) => format!("{} {op} {}", r.left, r.right),
        (false, false) => format!("{} {op} {} (value {})", r.left, r.right, r.value),
    }
}

/// Screen entry point: summary line, list, detail; an empty-state text when the session
/// has no metamorphic tests.
pub(crate) fn draw(app: &App, scr: &MetamorphicScreen, area: Rect, buf: &mut Buffer) {
    let t = &app.theme;
    if app.view.metamorphic.is_empty() {
        let lines = vec![
            Line::styled("This session has no metamorphic tests.", t.text),
            Line::raw(""),
            Line::styled(
                "Generate them with `mastor metamorphic SPEC --base-url URL --out SESSION`,",
                t.muted,
            ),
            Line::styled("or with `mastor run --metamorphic`.", t.muted),
        ];
        Paragraph::new(lines)
            .wrap(Wrap { trim: false })
            .block(block(app, "Metamorphic (0)", true))
            .render(area, buf);
        return;
    }
    let wide = area.width >= 110;
    // As tall as the list needs, up to a share of the screen that leaves the detail room.
    let cap = if wide {
        area.height * 2 / 5
    } else {
        area.height / 3
    };
    let list_h = (scr.items.visible.len() as u16 + 3).min(cap).max(5);
    let [summary, list, detail] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Length(list_h),
        Constraint::Min(0),
    ])
    .areas(area);
    summary_line(app, scr).render(summary, buf);
    draw_list(app, scr, list, buf, wide);
    let Some(test) = scr
        .items
        .visible
        .get(scr.items.cursor)
        .and_then(|i| match i {
            ItemRef::Meta { test } => app.view.metamorphic.get(*test),
            _ => None,
        })
    else {
        Paragraph::new(Span::styled("no test matches the filter", t.muted))
            .block(block(app, "Test", false))
            .render(detail, buf);
        return;
    };
    let test = app.view.effective_mr(test);
    if wide {
        let [left, right] =
            Layout::horizontal([Constraint::Percentage(55), Constraint::Percentage(45)])
                .areas(detail);
        let mut l = head_lines(app, &test);
        step_lines(app, &test, &mut l);
        scrolled(l, scr.detail.scroll)
            .wrap(Wrap { trim: false })
            .block(block(app, "Test", false))
            .render(left, buf);
        let r = outcome_lines(app, &test);
        Paragraph::new(r)
            .wrap(Wrap { trim: false })
            .block(block(app, "Relations and outcome", false))
            .render(right, buf);
    } else {
        let mut l = head_lines(app, &test);
        l.extend(outcome_lines(app, &test));
        step_lines(app, &test, &mut l);
        scrolled(l, scr.detail.scroll)
            .wrap(Wrap { trim: false })
            .block(block(app, "Test", false))
            .render(detail, buf);
    }
}

fn summary_line<'a>(app: &App, scr: &MetamorphicScreen) -> Line<'a> {
    let t = &app.theme;
    let mut counts = [0usize; 4];
    for test in &app.view.metamorphic {
        let i = match outcome(&app.view, test).status {
            MrStatus::Passed => 0,
            MrStatus::RelationViolated => 1,
            MrStatus::ExecutionFailed => 2,
            MrStatus::NotRun => 3,
        };
        counts[i] += 1;
    }
    let mut spans = vec![Span::styled(
        format!(" {} metamorphic tests: ", app.view.metamorphic.len()),
        t.text,
    )];
    for (n, s, word) in [
        (counts[0], MrStatus::Passed, "passed"),
        (counts[1], MrStatus::RelationViolated, "violated"),
        (counts[2], MrStatus::ExecutionFailed, "failed to run"),
        (counts[3], MrStatus::NotRun, "not run"),
    ] {
        spans.push(Span::styled(format!("{n} {word}  "), status_style(app, s)));
    }
    let mut filters = Vec::new();
    if !scr.items.filter.is_empty() {
        filters.push(format!("text: {}", scr.items.filter));
    }
    if let Some(s) = app.filters.state {
        filters.push(format!("review: {}", state_label(s)));
    }
    if let Some(j) = app.filters.judged {
        filters.push(j.label().to_string());
    }
    // Filters first: what hides rows matters more than counts when the line is cut.
    if !filters.is_empty() {
        spans.push(Span::styled(
            format!("· {}  ", filters.join(" · ")),
            t.accent,
        ));
    }
    let p = app.view.metamorphic_positives().metamorphic;
    if p.failed > 0 {
        spans.push(Span::styled(
            format!(
                "· TP {} FP {} unjudged {} TPR {}",
                p.tpft,
                p.fpft,
                p.unjudged,
                p.tpr_text()
            ),
            t.accent,
        ));
    }
    Line::from(spans)
}

fn draw_list(app: &App, scr: &MetamorphicScreen, area: Rect, buf: &mut Buffer, wide: bool) {
    let t = &app.theme;
    let inner_h = area.height.saturating_sub(3) as usize;
    let start = window_start(scr.items.cursor, inner_h);
    let id_w = app
        .view
        .metamorphic
        .iter()
        .map(|m| m.test_id.chars().count())
        .max()
        .unwrap_or(4)
        .clamp(4, if wide { 28 } else { 20 }) as u16;
    let rows: Vec<Row> = scr
        .items
        .visible
        .iter()
        .enumerate()
        .skip(start)
        .take(inner_h)
        .filter_map(|(i, item)| {
            let ItemRef::Meta { test } = *item else {
                return None;
            };
            let m = app.view.metamorphic.get(test)?;
            let state = app.view.review_state(&m.o_id());
            let shown = app.view.effective_mr(m);
            let out = outcome(&app.view, m);
            let mut cells = vec![
                Line::styled(state_glyph(state), state_style(app, state)),
                Line::raw(m.test_id.clone()),
                Line::styled(shown.scenario.clone(), t.muted),
            ];
            if wide {
                cells.push(Line::styled(shown.slug.clone(), t.muted));
            }
            cells.push(Line::styled(
                out.status.label(),
                status_style(app, out.status),
            ));
            cells.push(Line::from(judgement_span(app, &m.o_id(), true)));
            cells.push(Line::styled(state_label(state), state_style(app, state)));
            if i == scr.items.cursor {
                for c in &mut cells {
                    for s in &mut c.spans {
                        s.style = t.selected;
                    }
                }
                Some(Row::new(cells).style(t.selected))
            } else {
                Some(Row::new(cells))
            }
        })
        .collect();
    let mut widths = vec![
        Constraint::Length(1),
        Constraint::Length(id_w),
        Constraint::Min(12),
    ];
    let mut header = vec!["", "Test", "Scenario"];
    if wide {
        widths.push(Constraint::Length(26));
        header.push("Slug");
    }
    widths.extend([
        Constraint::Length(17),
        Constraint::Length(3),
        Constraint::Length(9),
    ]);
    header.extend(["Outcome", "Jdg", "Review"]);
    let mut title = format!("Metamorphic ({})", scr.items.visible.len());
    if !scr.items.filter.is_empty() {
        title.push_str(&format!(" /{}", scr.items.filter));
    }
    Table::new(rows, widths)
        .header(Row::new(header).style(t.title))
        .block(block(app, title, true))
        .render(area, buf);
}

/// Review state, id, slug group and the Gherkin text.
fn head_lines<'a>(app: &App, test: &MetamorphicTest) -> Vec<Line<'a>> {
    let t = &app.theme;
    let o_id = test.o_id();
    let state = app.view.review_state(&o_id);
    let mut head = vec![
        Span::styled(state_label(state).to_string(), state_style(app, state)),
        Span::styled(format!("  {}", test.test_id), t.title),
    ];
    if let Some(note) = app.view.decisions.get(&o_id).and_then(|d| d.note.clone()) {
        head.push(Span::styled(format!("  note: {note}"), t.muted));
    }
    let mut lines = vec![Line::from(head)];
    if !test.scenario.is_empty() {
        lines.push(Line::raw(test.scenario.clone()));
    }
    if !test.slug.is_empty() {
        let folded = app
            .view
            .mr_duplicates
            .get(&test.test_id)
            .map(|d| format!(" · {} equivalent folded in: {}", d.len(), d.join(", ")))
            .unwrap_or_default();
        lines.push(Line::styled(format!("slug {}{folded}", test.slug), t.muted));
    }
    for (word, text) in [
        ("Given ", &test.given),
        ("When ", &test.when),
        ("Then ", &test.then),
    ] {
        if !text.is_empty() {
            lines.push(Line::from(vec![
                Span::styled(word, t.accent),
                Span::raw(text.clone()),
            ]));
        }
    }
    lines
}

/// Seed and follow-up steps: method and path, inputs, captures, binds, assertions.
fn step_lines<'a>(app: &App, test: &MetamorphicTest, lines: &mut Vec<Line<'a>>) {
    for (title, side, steps) in [
        ("Seed", "seed", &test.seed),
        ("Follow-up", "follow_up", &test.follow_up),
    ] {
        lines.push(Line::styled(title, app.theme.title));
        for (i, s) in steps.iter().enumerate() {
            one_step(app, &format!("{side}[{i}]"), s, lines);
        }
    }
}

fn one_step<'a>(app: &App, label: &str, s: &Step, lines: &mut Vec<Line<'a>>) {
    let t = &app.theme;
    let method = s.op_id.split(' ').next().unwrap_or("");
    lines.push(Line::from(vec![
        Span::styled(format!("  {label} "), t.muted),
        Span::styled(s.op_id.clone(), t.method(method)),
    ]));
    input_lines(app, &s.input, "    ", lines);
    let binds = crate::tui::view::find_binds(&serde_json::to_value(&s.input).unwrap_or_default());
    if !binds.is_empty() {
        lines.push(Line::styled(
            format!("    binds: {}", binds.join(", ")),
            t.edited,
        ));
    }
    for (name, path) in &s.captures {
        lines.push(Line::styled(
            format!("    capture {name} ← {path}"),
            t.edited,
        ));
    }
    for a in &s.assertions {
        lines.push(Line::raw(format!("    • {}", assertion_text(a))));
    }
}

/// Relations (with the values of the last loop run) and the outcome with its reason.
fn outcome_lines<'a>(app: &App, test: &MetamorphicTest) -> Vec<Line<'a>> {
    let t = &app.theme;
    let mut lines = vec![Line::styled("Relations", t.title)];
    let verdict = app.view.mr_verdicts.get(&test.o_id());
    for (i, r) in test.relations.iter().enumerate() {
        lines.push(Line::raw(format!("  {}. {}", i + 1, relation_text(r))));
        if let Some(rv) = verdict.and_then(|v| v.relations.iter().find(|x| x.index == i)) {
            let (mark, style) = match rv.outcome {
                RelationOutcome::Holds => ("✓ holds", t.pass),
                RelationOutcome::Violated => ("✗ violated", t.fail),
                RelationOutcome::Unresolved => ("! unresolved", t.error),
            };
            let values = format!(
                " (left {}, right {})",
                crate::runner::assert::short(&rv.left),
                crate::runner::assert::short(&rv.right)
            );
            lines.push(Line::from(vec![
                Span::styled(format!("     {mark}"), style),
                Span::styled(values, t.muted),
            ]));
        }
    }
    let out = outcome(&app.view, test);
    lines.push(Line::styled("Outcome", t.title));
    lines.push(Line::styled(
        format!("  {}", out.status.label()),
        status_style(app, out.status),
    ));
    if !out.reason.is_empty() {
        lines.push(Line::raw(format!("  {}", out.reason)));
    }
    if !out.source.is_empty() {
        lines.push(Line::styled(format!("  from {}", out.source), t.muted));
    }
    if let Some(l) = judgement_line(app, &test.o_id(), true) {
        lines.push(
            Line::from(
                std::iter::once(Span::raw("  "))
                    .chain(l.spans)
                    .collect::<Vec<_>>(),
            )
            .style(l.style),
        );
    }
    lines
}
