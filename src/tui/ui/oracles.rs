//! The oracle list and the lines of the selected oracle's detail (status, verdict,
//! failures, edits, input, assertions, evidence); `panes` lays them out beside the
//! source. Shared by single-op oracles (operation screen) and multi-op oracles (groups).

use super::{block, state_label, state_style, window_start};
use crate::model::{Assertion, FieldOp, Oracle, OracleInput, Outcome, Strategy};
use crate::tui::state::{App, ItemList, ItemRef};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Widget};

pub(super) fn basename(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// An assertion in words: `status == 200`, `name equals "rex"`.
pub(crate) fn assertion_text(a: &Assertion) -> String {
    match a {
        Assertion::Status { expected } => format!("status == {expected}"),
        Assertion::Field {
            field_path,
            op,
            expected,
        } => {
            let path = if field_path.is_empty() {
                "<body>"
            } else {
                field_path
            };
            let op_s = serde_json::to_value(op)
                .ok()
                .and_then(|v| v.as_str().map(str::to_string))
                .unwrap_or_default();
            match op {
                FieldOp::NotNull | FieldOp::IsNull => format!("{path} {op_s}"),
                _ => format!("{path} {op_s} {expected}"),
            }
        }
    }
}

fn strategy(s: Option<Strategy>) -> &'static str {
    match s {
        Some(Strategy::Fv) => "FV",
        Some(Strategy::Fi) => "FI",
        Some(Strategy::Bv) => "BV",
        Some(Strategy::Bi) => "BI",
        None => "--",
    }
}

pub(crate) fn input_lines<'a>(
    app: &App,
    input: &OracleInput,
    indent: &str,
    out: &mut Vec<Line<'a>>,
) {
    let t = &app.theme;
    let maps = [
        ("path", &input.path),
        ("query", &input.query),
        ("headers", &input.headers),
    ];
    for (name, m) in maps {
        if !m.is_empty() {
            let parts: Vec<String> = m.iter().map(|(k, v)| format!("{k}={v}")).collect();
            out.push(Line::from(vec![
                Span::styled(format!("{indent}{name}: "), t.muted),
                Span::raw(parts.join("  ")),
            ]));
        }
    }
    if let Some(b) = &input.body {
        out.push(Line::from(vec![
            Span::styled(format!("{indent}body: "), t.muted),
            Span::raw(b.to_string()),
        ]));
    }
}

fn verdict_span<'a>(app: &App, o_id: &str) -> Span<'a> {
    let t = &app.theme;
    use crate::tui::verdict_mark::VerdictMark;
    match app.view.verdict_mark(o_id) {
        Some(VerdictMark::Pass) => Span::styled(" pass", t.pass),
        Some(VerdictMark::Fail) => Span::styled(" FAIL", t.fail),
        Some(VerdictMark::Error) => Span::styled(" error", t.error),
        Some(VerdictMark::Skipped) => Span::styled(" skipped", t.muted),
        // The oracle changed since it ran: its old outcome no longer vouches for it.
        Some(VerdictMark::Stale(_)) => Span::styled(" stale", t.warning),
        None => Span::raw(""),
    }
}

/// ` TP` / ` FP` for an item whose latest failure was judged; with `unjudged`, ` ?` for
/// a failure nobody judged yet; else nothing.
pub(crate) fn judgement_span<'a>(app: &App, o_id: &str, unjudged: bool) -> Span<'a> {
    let t = &app.theme;
    match app.view.judged(o_id) {
        Some(j) => Span::styled(
            format!(" {}", j.judgement.mark()),
            match j.judgement {
                crate::store::Positive::Tp => t.fail,
                crate::store::Positive::Fp => t.muted,
            },
        ),
        None if unjudged && app.view.failure(o_id).is_some() => Span::styled(" ?", t.warning),
        None => Span::raw(""),
    }
}

/// The judgement of the item's latest failure in words, with its note, for detail panes;
/// with `hint`, a short reminder for a failure nobody judged yet.
pub(crate) fn judgement_line<'a>(app: &App, o_id: &str, hint: bool) -> Option<Line<'a>> {
    let t = &app.theme;
    if let Some(j) = app.view.judged(o_id) {
        let note = j
            .note
            .as_ref()
            .map(|n| format!(": {n}"))
            .unwrap_or_default();
        return Some(Line::styled(
            format!("judged a {}{note}", j.judgement.words()),
            t.accent,
        ));
    }
    if !hint {
        return None;
    }
    app.view
        .failure(o_id)
        .map(|_| Line::styled("not judged (T / F: true / false positive)", t.muted))
}

pub(super) fn detail_lines<'a>(app: &App, item: ItemRef, ref_idx: usize) -> Vec<Line<'a>> {
    let mut lines = Vec::new();
    let Some(o_id) = app.o_id(item) else {
        return lines;
    };
    status_lines(app, &o_id, &mut lines);
    let shown = match item {
        ItemRef::Single { op, oracle } => app
            .view
            .ops
            .get(op)
            .and_then(|op| op.oracles.get(oracle))
            .map(|o| single_lines(app, o, &mut lines)),
        ItemRef::Multi { group, oracle } => app
            .view
            .groups
            .get(group)
            .and_then(|g| g.oracles.get(oracle))
            .map(|o| multi_lines(app, o, &mut lines)),
        // Drawn by `ui::metamorphic`, never through this pane.
        ItemRef::Meta { .. } => None,
    };
    if let Some((description, evidence, refs)) = shown {
        evidence_lines(app, description, evidence, &refs, ref_idx, &mut lines);
    }
    lines
}

/// Review state, verdict, judgement and note of `o_id`, why normalization set it aside,
/// and what its last run found.
fn status_lines<'a>(app: &App, o_id: &str, lines: &mut Vec<Line<'a>>) {
    let t = &app.theme;
    let state = app.view.review_state(o_id);
    let mut head = vec![
        Span::styled(state_label(state).to_string(), state_style(app, state)),
        verdict_span(app, o_id),
        judgement_span(app, o_id, false),
    ];
    if let Some(note) = app.view.decisions.get(o_id).and_then(|d| d.note.clone()) {
        head.push(Span::styled(format!("  note: {note}"), t.muted));
    }
    lines.push(Line::from(head));
    lines.extend(judgement_line(app, o_id, false));
    lines.extend(app.view.mutation.as_ref().and_then(|m| {
        let text = m.words(o_id)?;
        let style = if m.kills_nothing.contains(o_id) || m.redundant.contains(o_id) {
            t.warning
        } else {
            t.muted
        };
        Some(Line::styled(text, style))
    }));
    if let Some(why) = app.view.set_aside.get(o_id) {
        let restored = state != crate::model::ReviewState::Dropped;
        let what = if restored {
            "restored by the reviewer; normalization had set it aside"
        } else {
            "set aside by normalization; accept or edit to restore it"
        };
        lines.push(Line::from(Span::styled(
            format!("{what}: {why}"),
            t.warning,
        )));
    }
    if let Some(v) = app.view.verdict_details.get(o_id) {
        lines.push(Line::from(Span::styled(
            format!("run {} against {}", v.at, v.base_url),
            t.muted,
        )));
        for line in super::verdict::failure_lines(v) {
            lines.push(Line::styled(line, t.fail));
        }
        if v.outcome != Outcome::Pass {
            let key = app
                .keymap
                .hint(
                    app.active_sections(),
                    crate::tui::action::Action::ShowFailure,
                )
                .unwrap_or_default();
            lines.push(Line::styled(
                format!("{key}: request and response"),
                t.muted,
            ));
        }
    }
}

/// The pieces every oracle kind ends with: description, evidence text and refs.
type Described = (String, String, Vec<crate::model::EvidenceRef>);

/// A single-operation oracle as the reviewer left it: strategy, id, input, assertions.
fn single_lines<'a>(app: &App, original: &Oracle, lines: &mut Vec<Line<'a>>) -> Described {
    let t = &app.theme;
    let o: Oracle = app.view.effective_oracle(original);
    lines.push(Line::from(vec![
        Span::styled(format!("{} ", strategy(o.oracle_strategy)), t.accent),
        Span::styled(o.test_id.clone(), t.title),
    ]));
    edit_lines(app, original, &o, lines);
    lines.push(Line::from(Span::styled("Input", t.title)));
    input_lines(app, &o.input, "  ", lines);
    lines.push(Line::from(Span::styled("Assertions", t.title)));
    for a in &o.assertions {
        lines.push(Line::raw(format!("  • {}", assertion_text(a))));
    }
    (o.description, o.evidence, o.evidence_refs)
}

/// A multi-operation oracle as the reviewer left it: each step with its input, binds,
/// captures and assertions.
fn multi_lines<'a>(
    app: &App,
    o: &crate::model::MultiOpOracle,
    lines: &mut Vec<Line<'a>>,
) -> Described {
    let t = &app.theme;
    let original = o;
    let o = app.view.effective_multi(o);
    lines.push(Line::from(Span::styled(o.test_id.clone(), t.title)));
    edit_lines(app, original, &o, lines);
    for (i, s) in o.steps.iter().enumerate() {
        lines.push(Line::from(vec![
            Span::styled(format!("Step {} ", i + 1), t.title),
            Span::styled(s.op_id.clone(), t.accent),
        ]));
        input_lines(app, &s.input, "  ", lines);
        let binds =
            crate::tui::view::find_binds(&serde_json::to_value(&s.input).unwrap_or_default());
        if !binds.is_empty() {
            lines.push(Line::from(Span::styled(
                format!("  binds: {}", binds.join(", ")),
                t.edited,
            )));
        }
        for (name, path) in &s.captures {
            lines.push(Line::from(Span::styled(
                format!("  capture {name} ← {path}"),
                t.edited,
            )));
        }
        for a in &s.assertions {
            lines.push(Line::raw(format!("  • {}", assertion_text(a))));
        }
    }
    (o.description, o.evidence, o.evidence_refs)
}

/// Most changed fields listed for an edited oracle; the rest are counted.
const EDIT_LINES: usize = 8;

/// What the reviewer changed, field by field (`assertions[0].expected: 200 → 404`), for
/// an edited oracle; nothing for one shown as generated.
pub(super) fn edit_lines<'a, T: serde::Serialize>(
    app: &App,
    original: &T,
    edited: &T,
    lines: &mut Vec<Line<'a>>,
) {
    let (Ok(before), Ok(after)) = (serde_json::to_value(original), serde_json::to_value(edited))
    else {
        return;
    };
    let changes = crate::export::diff::changes(&before, &after);
    if changes.is_empty() {
        return;
    }
    let t = &app.theme;
    lines.push(Line::styled("Edited (original → edited)", t.edited));
    let show = |v: &Option<serde_json::Value>| {
        v.as_ref()
            .map_or("(absent)".to_string(), crate::oracle::assert::short)
    };
    for c in changes.iter().take(EDIT_LINES) {
        let change = format!("  {}: {} → {}", c.path, show(&c.before), show(&c.after));
        lines.push(Line::styled(
            crate::text::escape_controls(&change).into_owned(),
            t.edited,
        ));
    }
    if changes.len() > EDIT_LINES {
        lines.push(Line::styled(
            format!("  … {} more changes", changes.len() - EDIT_LINES),
            t.muted,
        ));
    }
}

/// The description (second line, under the status), then the evidence and its refs,
/// the one the source pane shows marked.
fn evidence_lines<'a>(
    app: &App,
    description: String,
    evidence: String,
    refs: &[crate::model::EvidenceRef],
    ref_idx: usize,
    lines: &mut Vec<Line<'a>>,
) {
    let t = &app.theme;
    lines.insert(1, Line::raw(description));
    lines.push(Line::from(Span::styled("Evidence", t.title)));
    lines.push(Line::raw(evidence));
    for (i, r) in refs.iter().enumerate() {
        let mark = if i == ref_idx { "▶ " } else { "  " };
        lines.push(Line::from(Span::styled(
            format!(
                "{mark}{}:{}-{}",
                basename(&r.file),
                r.start_line,
                r.end_line
            ),
            if i == ref_idx {
                t.evidence_marker
            } else {
                t.muted
            },
        )));
    }
}

/// The kills column (`kills/unique`, `-` for an oracle the analysis did not count),
/// shown once the session has mutation results.
fn kills_span<'a>(app: &App, o_id: &str) -> Option<Span<'a>> {
    let m = app.view.mutation.as_ref()?;
    let text = match m.figures.get(o_id) {
        Some((kills, unique)) => format!("{kills:>3}/{unique:<2} "),
        None => "  -    ".to_string(),
    };
    let style = if m.kills_nothing.contains(o_id) || m.redundant.contains(o_id) {
        app.theme.warning
    } else {
        app.theme.muted
    };
    Some(Span::styled(text, style))
}

pub(super) fn draw_item_list(
    app: &App,
    items: &ItemList,
    area: Rect,
    buf: &mut Buffer,
    title: String,
) {
    let t = &app.theme;
    let h = area.height.saturating_sub(2) as usize;
    let start = window_start(items.cursor, h);
    app.hits.rows(
        block(app, "", true).inner(area),
        start,
        items.visible.len().saturating_sub(start),
    );
    let lines: Vec<Line> = items
        .visible
        .iter()
        .enumerate()
        .skip(start)
        .take(h)
        .filter_map(|(i, item)| {
            let o_id = app.o_id(*item)?;
            let state = app.view.review_state(&o_id);
            let (strat, id, desc) = match *item {
                ItemRef::Single { op, oracle } => {
                    let o = app.view.ops.get(op)?.oracles.get(oracle)?;
                    let desc = if state == crate::model::ReviewState::Edited {
                        app.view.effective_oracle(o).description
                    } else {
                        o.description.clone()
                    };
                    (strategy(o.oracle_strategy), o.test_id.clone(), desc)
                }
                ItemRef::Multi { group, oracle } => {
                    let o = app.view.groups.get(group)?.oracles.get(oracle)?;
                    ("MO", o.test_id.clone(), o.description.clone())
                }
                ItemRef::Meta { .. } => return None,
            };
            let glyph = match state {
                crate::model::ReviewState::Proposed => "○",
                crate::model::ReviewState::Accepted => "✓",
                crate::model::ReviewState::Edited => "✎",
                crate::model::ReviewState::Rejected => "✗",
                crate::model::ReviewState::Dropped => "⊘",
            };
            let failing = super::verdict::failing(app, &o_id);
            let mut spans = vec![
                Span::styled(format!("{glyph} "), state_style(app, state)),
                super::verdict::column(app, &o_id),
                Span::styled(format!("{strat} "), t.accent),
            ];
            spans.extend(kills_span(app, &o_id));
            let (id_style, desc_style) = if failing {
                (t.fail, t.fail)
            } else {
                (t.text, t.muted)
            };
            spans.extend([
                Span::styled(format!("{id}  "), id_style),
                Span::styled(desc, desc_style),
                judgement_span(app, &o_id, false),
            ]);
            if i == items.cursor {
                // The verdict keeps its colour on the selected row: a failure stays red.
                spans = spans
                    .into_iter()
                    .enumerate()
                    .map(|(k, s)| {
                        let style = if k == 1 {
                            t.selected.patch(ratatui::style::Style {
                                fg: s.style.fg,
                                ..Default::default()
                            })
                        } else {
                            t.selected
                        };
                        s.style(style)
                    })
                    .collect();
            }
            Some(Line::from(spans))
        })
        .collect();
    Paragraph::new(lines)
        .block(block(app, title, true))
        .render(area, buf);
}
