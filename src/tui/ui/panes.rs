//! The panes beside an oracle list: the oracle's detail (scrolled, or given the whole
//! width when there is no source to show) and the Java source marked at the evidence.
//! Shared by an operation's Oracles tab and a group's screen.

use super::block;
use super::oracles::{basename, detail_lines, draw_item_list};
use crate::tui::state::{App, Detail, GroupScreen, ItemList, OperationScreen};
use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Widget, Wrap};

fn review_panes(
    app: &App,
    items: &ItemList,
    detail_at: Detail,
    area: Rect,
    buf: &mut Buffer,
    title: String,
) {
    // Without any source to show (imported suites), the oracle gets the source's room.
    let with_source = app.source_target().is_some();
    if with_source && app.source_zoom {
        // Zoomed: the source over the whole width, evidence lines still marked.
        draw_source(app, area, buf);
        return;
    }
    let wide = area.width >= 110;
    let (list, detail, source) = if wide {
        let [left, right] =
            Layout::horizontal([Constraint::Percentage(45), Constraint::Percentage(55)])
                .areas(area);
        let [list, detail] =
            Layout::vertical([Constraint::Percentage(40), Constraint::Percentage(60)]).areas(left);
        if with_source {
            (list, detail, Some(right))
        } else {
            let [list, detail] =
                Layout::horizontal([Constraint::Percentage(45), Constraint::Percentage(55)])
                    .areas(area);
            (list, detail, None)
        }
    } else {
        let [list, bottom] = Layout::vertical([
            Constraint::Length((area.height / 3).max(4)),
            Constraint::Min(0),
        ])
        .areas(area);
        if with_source {
            let [detail, source] =
                Layout::horizontal([Constraint::Percentage(50), Constraint::Percentage(50)])
                    .areas(bottom);
            (list, detail, Some(source))
        } else {
            (list, bottom, None)
        }
    };
    draw_item_list(app, items, list, buf, title);
    let lines = items
        .visible
        .get(items.cursor)
        .map(|i| detail_lines(app, *i, detail_at.ref_idx))
        .unwrap_or_else(|| empty_list_lines(app, items));
    draw_oracle_pane(app, lines, detail_at.pane, detail, buf);
    if let Some(source) = source {
        draw_source(app, source, buf);
    }
}

/// The oracle pane, scrolled by `pane` lines (kept within the text); the title says
/// how to scroll when the text does not fit.
fn draw_oracle_pane(app: &App, lines: Vec<Line<'_>>, pane: i64, area: Rect, buf: &mut Buffer) {
    let inner_w = area.width.saturating_sub(2).max(1) as usize;
    let inner_h = area.height.saturating_sub(2) as usize;
    let rows: usize = lines
        .iter()
        .map(|l| l.width().max(1).div_ceil(inner_w))
        .sum();
    let max = rows.saturating_sub(inner_h) as i64;
    let y = pane.clamp(0, max.max(0));
    let title = if max > 0 {
        let down = app
            .keymap
            .hint(
                app.active_sections(),
                crate::tui::action::Action::ScrollDetailDown,
            )
            .unwrap_or_default();
        let up = app
            .keymap
            .hint(
                app.active_sections(),
                crate::tui::action::Action::ScrollDetailUp,
            )
            .unwrap_or_default();
        let below = (max - y).max(0);
        if below == 0 {
            format!("Oracle (end · {up} scrolls up)")
        } else {
            format!("Oracle ({down}/{up} scroll · {below} more lines)")
        }
    } else {
        "Oracle".to_string()
    };
    Paragraph::new(lines)
        .wrap(Wrap { trim: false })
        .scroll((y as u16, 0))
        .block(block(app, title, false))
        .render(area, buf);
}

/// What an empty oracle list says: why it is empty and what would fill it.
fn empty_list_lines<'a>(app: &App, items: &ItemList) -> Vec<Line<'a>> {
    let t = &app.theme;
    let filtered = !items.filter.is_empty() || !app.filters.is_empty();
    let text = if filtered {
        "No oracle passes the filters. c clears them."
    } else {
        "No oracles for this yet. They appear when the pipeline has generated them \
         (mastor run, or ctrl-r to re-run this operation)."
    };
    vec![Line::styled(text, t.muted)]
}

/// Every filter narrowing `items`, for the list's title: a list that looks short
/// says why (` /text [review: accepted] [verdict: failing]`).
fn filter_tags(app: &App, items: &ItemList) -> String {
    let f = &app.filters;
    let mut tags = String::new();
    if !items.filter.is_empty() {
        tags.push_str(&format!(" /{}", items.filter));
    }
    if let Some(s) = f.state {
        tags.push_str(&format!(" [review: {}]", super::state_label(s)));
    }
    if let Some(v) = f.verdict {
        tags.push_str(&format!(" [verdict: {}]", v.label()));
    }
    if let Some(j) = f.judged {
        tags.push_str(&format!(" [{}]", j.label()));
    }
    if let Some(m) = f.mutation {
        tags.push_str(&format!(" [{}]", m.label()));
    }
    tags
}

/// Oracles tab of the operation screen.
pub(super) fn draw_oracles(app: &App, scr: &OperationScreen, area: Rect, buf: &mut Buffer) {
    let items = &scr.items;
    let mut title = format!("Oracles ({})", items.visible.len());
    title.push_str(&filter_tags(app, items));
    if app.view.mutation.is_some() {
        title.push_str(" · kills/unique");
    }
    review_panes(app, items, scr.detail, area, buf, title);
}

/// Group screen: the multi-op oracles of one group, reviewed like single-op ones.
pub(crate) fn draw_group(app: &App, scr: &GroupScreen, area: Rect, buf: &mut Buffer) {
    let items = &scr.items;
    let Some(g) = app.view.groups.get(scr.group) else {
        return;
    };
    let title = format!(
        "Group {} ({}){}",
        g.group_id,
        items.visible.len(),
        filter_tags(app, items)
    );
    review_panes(app, items, scr.detail, area, buf, title);
}

/// The source pane: the file of the current evidence ref (or bundle file), highlighted,
/// with evidence lines marked; an excerpt around them, or the whole file.
pub(crate) fn draw_source(app: &App, area: Rect, buf: &mut Buffer) {
    let t = &app.theme;
    let Some(target) = app.source_target() else {
        Paragraph::new(Span::styled("no evidence reference", t.muted))
            .block(block(app, "Source", false))
            .render(area, buf);
        return;
    };
    let Some(src) = app.view.sources.get(&target.file) else {
        Paragraph::new(Span::styled(
            format!("{} is not in the project", target.file),
            t.warning,
        ))
        .block(block(app, "Source", false))
        .render(area, buf);
        return;
    };
    let n = src.lines.len();
    let (lo, hi) = if app.whole_file {
        (0, n)
    } else {
        (
            target.start_line.saturating_sub(6),
            (target.end_line + 5).min(n),
        )
    };
    let h = area.height.saturating_sub(2) as usize;
    let anchor = target.start_line.saturating_sub(1);
    let base = anchor.saturating_sub(h / 3).max(lo) as i64;
    let max_start = hi.saturating_sub(h).max(lo) as i64;
    let scroll = app.screen.state().detail().scroll;
    let start = (base + scroll).clamp(lo as i64, max_start.max(lo as i64)) as usize;
    let highlighted = app.highlighter.lines(&target.file);
    let num_w = n.to_string().len();
    let lines: Vec<Line> = (start..hi.min(start + h))
        .map(|i| {
            let no = i + 1;
            let is_ev = no >= target.start_line && no <= target.end_line;
            let mut spans = vec![
                Span::styled(format!("{no:>num_w$}"), t.line_number),
                if is_ev {
                    Span::styled("▶", t.evidence_marker)
                } else {
                    Span::raw(" ")
                },
            ];
            match highlighted.and_then(|h| h.get(i)) {
                Some(l) => spans.extend(l.spans.iter().cloned()),
                None => spans.push(Span::raw(src.lines[i].clone())),
            }
            let line = Line::from(spans);
            if is_ev { line.style(t.evidence) } else { line }
        })
        .collect();
    let mut mode = if app.whole_file {
        "whole file"
    } else {
        "excerpt"
    }
    .to_string();
    if app.source_wrap {
        mode.push_str(", wrapped");
    }
    if app.source_zoom {
        mode.push_str(", zoomed: z");
    }
    let title = format!(
        "{}:{}-{} ({mode})",
        basename(&target.file),
        target.start_line,
        target.end_line
    );
    let para = Paragraph::new(lines).block(block(app, title, false));
    if app.source_wrap {
        para.wrap(Wrap { trim: false }).render(area, buf);
    } else {
        para.render(area, buf);
    }
}
