//! The operation screen: a tab bar and one tab body (Context, Pending, Oracles, Hints,
//! Bundle, Calls).

use super::{block, fmt_cost, fmt_ms, fmt_tokens, scrolled, window_start};
use crate::model::PendingClaim;
use crate::tui::state::{App, OperationScreen, Tab};
use crate::tui::view::OpView;
use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Tabs, Widget, Wrap};

/// Draws the operation screen.
pub(crate) fn draw(app: &App, scr: &OperationScreen, area: Rect, buf: &mut Buffer) {
    let Some(op) = app.view.ops.get(scr.op) else {
        return;
    };
    let t = &app.theme;
    let [title, tabs, body] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Length(1),
        Constraint::Min(0),
    ])
    .areas(area);
    let mut head = vec![
        Span::styled(format!(" {} ", op.method), t.method(&op.method)),
        Span::styled(op.path.clone(), t.title),
    ];
    if let Some(s) = &op.summary {
        head.push(Span::styled(format!("  {s}"), t.muted));
    }
    Line::from(head).render(title, buf);
    let titles: Vec<String> = Tab::ALL
        .iter()
        .map(|tab| {
            let n = match tab {
                Tab::Oracles => format!(" {}", op.oracles.len()),
                Tab::Hints => format!(" {}", op.hints.len()),
                Tab::Calls => format!(" {}", op.calls.len()),
                Tab::Pending => {
                    let n = op.context.as_ref().map_or(0, |c| {
                        c.request_params_pending.len() + c.response_schema_pending.len()
                    });
                    format!(" {n}")
                }
                _ => String::new(),
            };
            format!("{}{n}", tab.title())
        })
        .collect();
    let selected = Tab::ALL.iter().position(|x| *x == scr.tab).unwrap_or(0);
    // `Tabs` pads each title with a space on both sides and divides them with one cell.
    let mut x = tabs.x;
    for (tab, title) in Tab::ALL.iter().zip(&titles) {
        let w = title.chars().count() as u16 + 2;
        app.hits.add(
            Rect {
                x,
                y: tabs.y,
                width: w,
                height: 1,
            },
            crate::tui::mouse::Hit::Tab(*tab),
        );
        x += w + 1;
    }
    Tabs::new(titles)
        .select(selected)
        .style(t.muted)
        .highlight_style(t.tab_active)
        .render(tabs, buf);
    match scr.tab {
        Tab::Context => draw_context(app, scr, op, body, buf),
        Tab::Pending => draw_pending(app, scr, op, body, buf),
        Tab::Oracles => super::panes::draw_oracles(app, scr, body, buf),
        Tab::Hints => draw_hints(app, scr, op, body, buf),
        Tab::Bundle => draw_bundle(app, scr, op, body, buf),
        Tab::Calls => draw_calls(app, scr, op, body, buf),
    }
}

fn dimension(d: crate::model::HintDimension) -> String {
    serde_json::to_value(d)
        .ok()
        .and_then(|v| v.as_str().map(|s| s.replace('_', " ")))
        .unwrap_or_default()
}

/// The scan's and the model's answers for the operation's handler when they differed,
/// which one the run used and why, the reviewer's pick, and the keys to pick.
fn conflict_lines<'a>(app: &App, op: &OpView, lines: &mut Vec<Line<'a>>) {
    let t = &app.theme;
    let Some(c) = app.view.conflicts.get(&op.op_id) else {
        // No second opinion, but the scan itself was unsure: the handler line every
        // prompt carried may be the wrong one, and this is where a reviewer looks first.
        if let Some(w) = &op.weak {
            let entry = op
                .entry
                .as_ref()
                .map(|e| format!(" {}:{}", e.file, e.start_line))
                .unwrap_or_default();
            lines.push(Line::styled(
                crate::text::escape_controls(&format!(
                    "Handler: the scan's match{entry} is weak ({w}); the prompts carried it \
                     as the handler, and no model discovery overruled it"
                ))
                .into_owned(),
                t.warning,
            ));
            lines.push(Line::raw(""));
        }
        return;
    };
    let esc = |s: String| crate::text::escape_controls(&s).into_owned();
    let entry = |e: &crate::model::EntryRef| {
        esc(format!("{}.{} ({}:{})", e.class, e.method, e.file, e.line))
    };
    let used = match c.won {
        crate::store::HandlerSide::Static => "the scan's",
        crate::store::HandlerSide::Discovered => "the model's",
        crate::store::HandlerSide::Picked => "the reviewer's",
    };
    let head = match c.won {
        crate::store::HandlerSide::Discovered => {
            "Handler: the model overruled the scan's match; the prompts carried the model's"
        }
        _ => "Handler: the scan and the model disagree",
    };
    lines.push(Line::styled(head, t.warning));
    let weak = c
        .static_weak
        .as_ref()
        .map(|w| esc(format!("  (weak: {w})")))
        .unwrap_or_default();
    lines.push(Line::from(vec![
        Span::styled("  scan   ", t.muted),
        Span::raw(entry(&c.static_entry)),
        Span::styled(weak, t.warning),
    ]));
    lines.push(Line::from(vec![
        Span::styled("  model  ", t.muted),
        Span::raw(entry(&c.discovered)),
    ]));
    lines.push(Line::styled(
        esc(format!("  this run used {used}: {}", c.why)),
        t.muted,
    ));
    if let Some(p) = app.view.handler_choices.get(&op.op_id) {
        lines.push(Line::styled(
            esc(format!(
                "  picked: {}.{} (used from the next run on)",
                p.handler.file, p.handler.method
            )),
            t.accent,
        ));
    }
    let keys = |a| app.keymap.hint(&["operation"], a).unwrap_or_default();
    lines.push(Line::styled(
        format!(
            "  {}: use the scan's · {}: use the model's",
            keys(crate::tui::action::Action::PickStaticHandler),
            keys(crate::tui::action::Action::PickDiscoveredHandler)
        ),
        t.muted,
    ));
    lines.push(Line::raw(""));
}

fn draw_context(app: &App, scr: &OperationScreen, op: &OpView, area: Rect, buf: &mut Buffer) {
    let t = &app.theme;
    let mut lines = Vec::new();
    if let Some(k) = app
        .keymap
        .hint(&["operation"], crate::tui::action::Action::ShowModelInput)
    {
        lines.push(Line::styled(
            format!("{k}: what the model saw (the extraction call's prompt and raw answer)"),
            t.muted,
        ));
    }
    conflict_lines(app, op, &mut lines);
    super::context_edit::lines(app, op, &mut lines);
    let Some(ctx) = &op.context else {
        lines.push(Line::styled("no source context extracted yet", t.muted));
        Paragraph::new(lines)
            .wrap(Wrap { trim: false })
            .block(block(app, "Source context", true))
            .render(area, buf);
        return;
    };
    if crate::tui::loader::context_is_empty(ctx) {
        lines.push(Line::styled(
            "⚠ This context is empty: the model found no parameter, field, status or \
             error case in the source. Its oracles rest on the spec alone; see the \
             Calls tab for the model's answers, ctrl-r to ask again.",
            t.warning,
        ));
        lines.push(Line::raw(""));
    }
    lines.push(Line::from(Span::styled("Request parameters", t.title)));
    if ctx.request_params.is_empty() {
        lines.push(Line::from(Span::styled("  (none)", t.muted)));
    }
    for p in &ctx.request_params {
        let mut spans = vec![
            Span::styled(format!("  {:<16}", p.name), t.accent),
            Span::raw(format!("{:<7} {:<10}", p.location, p.ty)),
            Span::styled(
                if p.required { " required" } else { " optional" },
                if p.required { t.text } else { t.muted },
            ),
        ];
        if !p.oas_match {
            spans.push(Span::styled("  ≠ spec", t.warning));
        }
        lines.push(Line::from(spans));
        for c in &p.constraints {
            lines.push(Line::from(Span::styled(format!("      • {c}"), t.muted)));
        }
    }
    lines.push(Line::raw(""));
    let rs = &ctx.response_schema;
    lines.push(Line::from(vec![
        Span::styled("Response", t.title),
        Span::raw(match rs.success_status {
            Some(s) => format!("  success {s}"),
            None => "  success status unknown".into(),
        }),
    ]));
    for f in &rs.fields {
        lines.push(Line::from(vec![
            Span::styled(format!("  {:<20}", f.name), t.accent),
            Span::raw(f.ty.clone()),
            Span::styled(if f.nullable { "  nullable" } else { "" }, t.muted),
        ]));
    }
    lines.push(Line::raw(""));
    lines.push(Line::from(Span::styled("Error cases", t.title)));
    if rs.error_cases.is_empty() {
        lines.push(Line::from(Span::styled("  (none)", t.muted)));
    }
    for e in &rs.error_cases {
        super::error_body::case_lines(t, e, &mut lines);
    }
    super::error_body::envelope_lines(t, &ctx.error_envelopes, &mut lines);
    scrolled(lines, scr.detail.scroll)
        .wrap(Wrap { trim: false })
        .block(block(app, "Source context (verified)", true))
        .render(area, buf);
}

fn pending_lines<'a>(app: &App, title: &str, claims: &[PendingClaim], out: &mut Vec<Line<'a>>) {
    let t = &app.theme;
    out.push(Line::from(Span::styled(title.to_string(), t.title)));
    if claims.is_empty() {
        out.push(Line::from(Span::styled("  (none)", t.muted)));
    }
    for c in claims {
        let what = match (&c.name, c.status) {
            (Some(n), _) => n.clone(),
            (None, Some(s)) => s.to_string(),
            _ => "?".into(),
        };
        out.push(Line::from(vec![
            Span::styled(format!("  {what}: "), t.accent),
            Span::raw(c.oas_claim.to_string()),
        ]));
        out.push(Line::from(Span::styled(
            format!("      why unverified: {}", c.reason),
            t.warning,
        )));
    }
    out.push(Line::raw(""));
}

fn draw_pending(app: &App, scr: &OperationScreen, op: &OpView, area: Rect, buf: &mut Buffer) {
    let mut lines = Vec::new();
    if let Some(ctx) = &op.context {
        pending_lines(
            app,
            "Request parameters the code does not show",
            &ctx.request_params_pending,
            &mut lines,
        );
        pending_lines(
            app,
            "Response claims the code does not show",
            &ctx.response_schema_pending,
            &mut lines,
        );
    }
    scrolled(lines, scr.detail.scroll)
        .wrap(Wrap { trim: false })
        .block(block(
            app,
            "Unverified claims: the spec says so, the code does not show it",
            true,
        ))
        .render(area, buf);
}

fn draw_hints(app: &App, scr: &OperationScreen, op: &OpView, area: Rect, buf: &mut Buffer) {
    let t = &app.theme;
    let mut lines = Vec::new();
    if op.hints.is_empty() {
        lines.push(Line::from(Span::styled("no challenger hints", t.muted)));
    }
    for h in &op.hints {
        let origin = match h.origin {
            crate::model::HintOrigin::Challenger => "",
            crate::model::HintOrigin::Quadrant => "  (quadrant check, not the model)",
            crate::model::HintOrigin::Mutation => "  (a mutant no oracle killed)",
        };
        lines.push(Line::from(vec![
            Span::styled(dimension(h.dimension), t.accent),
            Span::styled(format!("  on {}{origin}", h.test_id), t.muted),
        ]));
        lines.push(Line::raw(format!("  {}", h.text)));
        if let Some(o) = op.oracles.iter().find(|o| o.test_id == h.test_id) {
            lines.push(Line::from(vec![
                Span::styled("  flagged oracle: ", t.muted),
                Span::raw(o.description.clone()),
            ]));
        }
        if let Some((before, after)) = op.replaced.iter().find(|(b, _)| b.test_id == h.test_id) {
            regeneration_lines(app, before, after, &mut lines);
        } else if op.regenerated.contains(&h.test_id) {
            lines.push(Line::from(Span::styled(
                "  regenerated (no before version kept)",
                t.edited,
            )));
        }
        lines.push(Line::raw(""));
    }
    if !op.added.is_empty() {
        lines.push(Line::from(Span::styled(
            format!("added by regeneration: {}", op.added.join(", ")),
            t.edited,
        )));
    }
    if !op.regenerated.is_empty() {
        lines.push(Line::from(Span::styled(
            format!("regenerated: {}", op.regenerated.join(", ")),
            t.edited,
        )));
    }
    normalization_lines(app, op, &mut lines);
    scrolled(lines, scr.detail.scroll)
        .wrap(Wrap { trim: false })
        .block(block(app, "Challenger hints", true))
        .render(area, buf);
}

/// Before and after of an oracle the targeted regeneration replaced: the description,
/// then the assertions removed (-), kept and added (+).
fn regeneration_lines<'a>(
    app: &App,
    before: &crate::model::Oracle,
    after: &crate::model::Oracle,
    lines: &mut Vec<Line<'a>>,
) {
    let t = &app.theme;
    lines.push(Line::from(Span::styled("  regenerated:", t.edited)));
    if before.description != after.description {
        lines.push(Line::from(Span::styled(
            format!("   - {}", before.description),
            t.rejected,
        )));
        lines.push(Line::from(Span::styled(
            format!("   + {}", after.description),
            t.accepted,
        )));
    }
    let show = |a: &crate::model::Assertion| super::oracles::assertion_text(a);
    for a in &before.assertions {
        if !after.assertions.contains(a) {
            lines.push(Line::from(Span::styled(
                format!("   - {}", show(a)),
                t.rejected,
            )));
        }
    }
    for a in &after.assertions {
        let style = if before.assertions.contains(a) {
            t.muted
        } else {
            t.accepted
        };
        let mark = if before.assertions.contains(a) {
            ' '
        } else {
            '+'
        };
        lines.push(Line::from(Span::styled(
            format!("   {mark} {}", show(a)),
            style,
        )));
    }
    if before.input != after.input {
        lines.push(Line::from(Span::styled("   input changed", t.warning)));
    }
}

/// Every normalization pass: its summary, then what it dropped and flagged.
fn normalization_lines<'a>(app: &App, op: &OpView, lines: &mut Vec<Line<'a>>) {
    let t = &app.theme;
    for (pass, n) in op.normalization.iter().enumerate() {
        lines.push(Line::raw(""));
        lines.push(Line::from(vec![
            Span::styled(format!("Normalization pass {}: ", pass + 1), t.title),
            Span::raw(n.summary()),
        ]));
        for d in &n.dropped {
            let id = if d.test_id.is_empty() {
                "(no id)"
            } else {
                &d.test_id
            };
            lines.push(Line::from(Span::styled(
                format!("  dropped {id} [{}]: {}", d.rule, d.reason),
                t.warning,
            )));
        }
        for f in &n.flags {
            lines.push(Line::from(Span::styled(
                format!("  flag {} [{}]: {}", f.test_id, f.rule, f.detail),
                t.muted,
            )));
        }
    }
}

fn draw_bundle(app: &App, scr: &OperationScreen, op: &OpView, area: Rect, buf: &mut Buffer) {
    let t = &app.theme;
    let list_w = (area.width / 3).clamp(20, 50);
    let [list, source] =
        Layout::horizontal([Constraint::Length(list_w), Constraint::Min(0)]).areas(area);
    let h = list.height.saturating_sub(2) as usize;
    let start = window_start(scr.bundle_cursor, h);
    let lines: Vec<Line> = op
        .bundle
        .iter()
        .enumerate()
        .skip(start)
        .take(h)
        .map(|(i, f)| {
            let name = f.rsplit('/').next().unwrap_or(f).to_string();
            let hit = app.bundle_match_line(f, &scr.bundle_search).is_some();
            let style = if i == scr.bundle_cursor {
                t.selected
            } else if hit {
                t.accent
            } else {
                t.text
            };
            Line::from(Span::styled(name, style))
        })
        .collect();
    let title = if scr.bundle_search.is_empty() {
        format!("Bundle ({})", op.bundle.len())
    } else {
        format!("Bundle /{}", scr.bundle_search)
    };
    Paragraph::new(lines)
        .block(block(app, title, true))
        .render(list, buf);
    super::panes::draw_source(app, source, buf);
}

/// One call in full: id and phase, cache, errors, retries and drops, then the prompt
/// and the raw answer.
fn call_lines<'a>(app: &App, c: &crate::tui::view::CallView) -> Vec<Line<'a>> {
    let t = &app.theme;
    let mut lines = Vec::new();
    lines.push(Line::from(Span::styled(
        format!("call {} · phase {}", c.id, c.phase),
        t.muted,
    )));
    if c.cache_hit {
        lines.push(Line::from(Span::styled(
            "answered from the response cache",
            t.muted,
        )));
    }
    if let Some(e) = &c.error {
        lines.push(Line::from(Span::styled(format!("failed: {e}"), t.error)));
    }
    if let Some(e) = &c.parse_error {
        lines.push(Line::from(Span::styled(
            format!("parse error: {e}"),
            t.error,
        )));
    }
    for n in &c.notes {
        lines.push(Line::from(Span::styled(n.clone(), t.warning)));
    }
    for (id, why) in &c.drops {
        lines.push(Line::from(Span::styled(
            format!("dropped {id}: {why}"),
            t.warning,
        )));
    }
    lines.push(Line::from(Span::styled("Prompt", t.title)));
    lines.extend(c.prompt.lines().map(|l| Line::raw(l.to_string())));
    lines.push(Line::from(Span::styled("Raw answer", t.title)));
    lines.extend(c.answer.lines().map(|l| Line::raw(l.to_string())));
    lines
}

fn draw_calls(app: &App, scr: &OperationScreen, op: &OpView, area: Rect, buf: &mut Buffer) {
    let t = &app.theme;
    let [list, detail] = Layout::vertical([
        Constraint::Length(7.min(area.height / 3).max(3)),
        Constraint::Min(0),
    ])
    .areas(area);
    let h = list.height.saturating_sub(2) as usize;
    let start = window_start(scr.calls_cursor, h);
    let rows: Vec<Line> = op
        .calls
        .iter()
        .enumerate()
        .skip(start)
        .take(h)
        .filter_map(|(i, &c)| {
            let c = app.view.calls.get(c)?;
            let text = format!(
                "{:<20} {:<16} {:>7}/{:<7} {:>7} ×{} {}",
                c.agent,
                c.model,
                fmt_tokens(c.tokens_in),
                fmt_tokens(c.tokens_out),
                fmt_ms(c.wall_ms),
                c.attempts,
                fmt_cost(c.cost_usd),
            );
            let style = if i == scr.calls_cursor {
                t.selected
            } else if c.parse_error.is_some() || c.error.is_some() {
                t.error
            } else {
                t.text
            };
            Some(Line::from(Span::styled(text, style)))
        })
        .collect();
    Paragraph::new(rows)
        .block(block(app, format!("LLM calls ({})", op.calls.len()), true))
        .render(list, buf);
    let lines = match op
        .calls
        .get(scr.calls_cursor)
        .and_then(|&i| app.view.calls.get(i))
    {
        Some(c) => call_lines(app, c),
        None => vec![Line::from(Span::styled(
            "no LLM calls recorded for this operation",
            app.theme.muted,
        ))],
    };
    scrolled(lines, scr.detail.scroll)
        .wrap(Wrap { trim: false })
        .block(block(app, "Call", false))
        .render(detail, buf);
}
