//! The Mutants screen: the filtered mutant list (survivors first), the selected
//! mutant's killers or why it has none, and its source around the mutated line with
//! that line shown as a diff (`-` original, `+` mutated), in the evidence pane's style.

use super::{block, window_start};
use crate::mutate::matrix::Status;
use crate::text::escape_controls;
use crate::tui::mutation::MutantView;
use crate::tui::screens::MutantsScreen;
use crate::tui::state::App;
use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Widget, Wrap};

/// Longest `before` / `after` text shown in a list row, in characters.
const ROW_TEXT: usize = 40;

/// Draws the Mutants screen.
pub(crate) fn draw(app: &App, scr: &MutantsScreen, area: Rect, buf: &mut Buffer) {
    let Some(results) = &app.view.mutation else {
        let key = app
            .keymap
            .hint(&["global"], crate::tui::action::Action::RunMutate)
            .unwrap_or_default();
        Paragraph::new(vec![
            Line::styled("No mutation results in this session.", app.theme.text),
            Line::styled(
                format!(
                    "A mutation analysis seeds small faults into the Java source (a \
                     swapped status, a removed field write) and counts those the \
                     accepted oracles catch. {key} runs it here (it asks for the build \
                     and start commands), or `mastor mutate` from a shell."
                ),
                app.theme.muted,
            ),
        ])
        .wrap(ratatui::widgets::Wrap { trim: false })
        .block(block(app, "Mutants", true))
        .render(area, buf);
        return;
    };
    let [list, bottom] =
        Layout::vertical([Constraint::Percentage(40), Constraint::Percentage(60)]).areas(area);
    let [detail, source] =
        Layout::horizontal([Constraint::Percentage(40), Constraint::Percentage(60)]).areas(bottom);
    let mut title = list_title(scr, results.mutants.len());
    title.push_str(&scope_words(results));
    draw_list(app, scr, list, buf, title);
    let selected = scr.selected(&app.view);
    let lines = selected.map(|m| detail_lines(app, m)).unwrap_or_default();
    Paragraph::new(lines)
        .wrap(Wrap { trim: false })
        .block(block(app, "Mutant", false))
        .render(detail, buf);
    draw_source(app, scr, selected, source, buf);
}

fn list_title(scr: &MutantsScreen, total: usize) -> String {
    let f = &scr.filter;
    let mut title = format!("Mutants ({}/{total})", scr.visible.len());
    if let Some(o) = f.operator {
        title.push_str(&format!(" operator:{}", o.name()));
    }
    if let Some(file) = &f.file {
        title.push_str(&format!(" file:{}", basename(file)));
    }
    if let Some(op) = &f.op {
        title.push_str(&format!(" op:{op}"));
    }
    escape_controls(&title).into_owned()
}

/// What the score stands on, from the recorded options: ` · score of a 20-mutant
/// sample, accepted oracles only` (empty when the run recorded no options).
fn scope_words(results: &crate::tui::mutation::MutationView) -> String {
    let Some(o) = &results.options else {
        return String::new();
    };
    let sample = match o.max_mutants {
        Some(n) => format!("a {n}-mutant sample"),
        None => "every mutant".to_string(),
    };
    let oracles = if o.all {
        "every oracle"
    } else {
        "accepted oracles only"
    };
    format!(" · score of {sample}, {oracles}")
}

fn basename(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// A mutant text on one line: escaped, line breaks shown as `⏎`, cut to `ROW_TEXT`.
pub(crate) fn one_line(s: &str) -> String {
    let flat = escape_controls(s).replace('\n', "⏎").replace('\t', " ");
    if flat.chars().count() <= ROW_TEXT {
        flat
    } else {
        let cut: String = flat.chars().take(ROW_TEXT - 1).collect();
        format!("{cut}…")
    }
}

fn status_style(app: &App, s: Status) -> Style {
    let t = &app.theme;
    match s {
        Status::Missed => t.fail,
        Status::Caught => t.pass,
        Status::Timeout => t.warning,
        Status::Unviable | Status::NotCovered | Status::Equivalent => t.muted,
    }
}

fn draw_list(app: &App, scr: &MutantsScreen, area: Rect, buf: &mut Buffer, title: String) {
    let t = &app.theme;
    let Some(results) = &app.view.mutation else {
        return;
    };
    let h = area.height.saturating_sub(2) as usize;
    let start = window_start(scr.cursor, h);
    let lines: Vec<Line> = scr
        .visible
        .iter()
        .enumerate()
        .skip(start)
        .take(h)
        .filter_map(|(row, &i)| {
            let m = results.mutants.get(i)?;
            let mm = &m.mutant;
            let mut spans = vec![
                Span::styled(
                    format!("{:<11} ", m.status.name()),
                    status_style(app, m.status),
                ),
                Span::styled(format!("{:<21} ", mm.operator.name()), t.accent),
                Span::raw(
                    escape_controls(&format!("{}:{}  ", basename(&mm.file), mm.line)).into_owned(),
                ),
                Span::styled(one_line(&mm.before), t.rejected),
                Span::styled(" -> ", t.muted),
                Span::styled(one_line(&mm.after), t.accepted),
            ];
            if row == scr.cursor {
                spans = spans.into_iter().map(|s| s.style(t.selected)).collect();
            }
            Some(Line::from(spans))
        })
        .collect();
    Paragraph::new(lines)
        .block(block(app, title, true))
        .render(area, buf);
}

/// Status, position and operations of a mutant, then who killed it (o_id and failing
/// assertion) or why it has no killer.
fn detail_lines<'a>(app: &App, m: &MutantView) -> Vec<Line<'a>> {
    let t = &app.theme;
    let mm = &m.mutant;
    let mut lines = vec![
        Line::from(vec![
            Span::styled(m.status.name().to_string(), status_style(app, m.status)),
            Span::styled(format!("  {}  ", mm.operator.name()), t.accent),
            Span::styled(mm.id.clone(), t.muted),
        ]),
        Line::raw(escape_controls(&format!("{}:{}:{}", mm.file, mm.line, mm.column)).into_owned()),
    ];
    // A survivor says what would kill it (below) instead: the operation whose handler
    // holds the line, not every operation that reaches the file.
    let kill_line = matches!(m.status, Status::Missed | Status::NotCovered)
        .then(|| what_would_kill(app, m))
        .flatten();
    if !mm.ops.is_empty() && kill_line.is_none() {
        let ops = escape_controls(&mm.ops.join(", ")).into_owned();
        lines.push(Line::styled(format!("reached by {ops}"), t.muted));
    }
    if !m.killed_by.is_empty() {
        lines.push(Line::styled(
            format!("killed by {} oracle(s):", m.killed_by.len()),
            t.title,
        ));
        for k in &m.killed_by {
            lines.push(Line::from(vec![
                Span::styled(format!("  {}", k.o_id), t.pass),
                Span::styled(format!("  {}", k.assertion), t.muted),
            ]));
        }
    }
    let why = match m.status {
        Status::Missed => Some("no oracle noticed it: every oracle passed".to_string()),
        Status::NotCovered => Some("no selected oracle's operation reaches the file".into()),
        _ => None,
    };
    lines.extend(why.map(|w| Line::styled(w, t.warning)));
    lines.extend(kill_line.map(|w| Line::styled(w, t.title)));
    if !m.detail.is_empty() {
        lines.push(Line::styled(format!("why: {}", m.detail), t.warning));
    }
    lines
}

/// For a survivor: the operation whose handler holds the mutated line (the handler
/// entry in that file starting nearest before the line, among the operations that
/// reach it), and how many of its oracles are accepted or still to review, so the
/// reviewer knows where a killing oracle has to come from.
fn what_would_kill(app: &App, m: &MutantView) -> Option<String> {
    use crate::model::ReviewState;
    let mm = &m.mutant;
    let op = app
        .view
        .ops
        .iter()
        .filter(|o| mm.ops.is_empty() || mm.ops.contains(&o.op_id))
        .filter_map(|o| {
            let e = o.entry.as_ref()?;
            (e.file == mm.file && e.start_line <= mm.line).then_some((e.start_line, o))
        })
        .max_by_key(|(line, _)| *line)
        .map(|(_, o)| o)?;
    let count = |want: &[ReviewState]| {
        op.oracles
            .iter()
            .filter(|x| want.contains(&app.view.review_state(&x.o_id())))
            .count()
    };
    let accepted = count(&[ReviewState::Accepted, ReviewState::Edited]);
    let to_review = count(&[ReviewState::Proposed]);
    let op_id = escape_controls(&op.op_id).into_owned();
    Some(format!(
        "to kill it: {op_id} holds the line; {accepted} accepted oracle(s) reach it, \
         {to_review} still to review"
    ))
}

/// The source around the mutated line, highlighted, with the line shown as `-` (as
/// it is) and `+` (as mutated).
fn draw_source(
    app: &App,
    scr: &MutantsScreen,
    m: Option<&MutantView>,
    area: Rect,
    buf: &mut Buffer,
) {
    let t = &app.theme;
    let Some(m) = m else {
        Paragraph::new(Span::styled("no mutant selected", t.muted))
            .block(block(app, "Source", false))
            .render(area, buf);
        return;
    };
    let file = &m.mutant.file;
    let Some(src) = app.view.sources.get(file) else {
        let msg = escape_controls(&format!("{file} is not in the project")).into_owned();
        Paragraph::new(Span::styled(msg, t.warning))
            .block(block(app, "Source", false))
            .render(area, buf);
        return;
    };
    let n = src.lines.len();
    let at = m.mutant.line.clamp(1, n.max(1)) - 1;
    // The file, scrolled so the mutated line sits a third of the way down.
    let h = area.height.saturating_sub(2) as usize;
    let base = at.saturating_sub(h / 3) as i64;
    let max_start = n.saturating_sub(h.saturating_sub(1)) as i64;
    let start = (base + scr.detail.scroll).clamp(0, max_start.max(0)) as usize;
    let num_w = n.to_string().len();
    let mut lines = Vec::new();
    for i in start..n {
        if lines.len() >= h {
            break;
        }
        lines.extend(source_lines(app, m, src, i, num_w));
    }
    let title =
        escape_controls(&format!("{}:{} (diff)", basename(file), m.mutant.line)).into_owned();
    Paragraph::new(lines)
        .block(block(app, title, false))
        .render(area, buf);
}

/// Line `i` of the file: as it is, or, on the mutated line, its `-` and `+` lines.
fn source_lines<'a>(
    app: &App,
    m: &MutantView,
    src: &crate::tui::view::SourceFile,
    i: usize,
    num_w: usize,
) -> Vec<Line<'a>> {
    let t = &app.theme;
    let highlighted = || -> Vec<Span<'a>> {
        match app.highlighter.lines(&m.mutant.file).and_then(|h| h.get(i)) {
            Some(l) => l
                .spans
                .iter()
                .map(|s| Span::styled(escape_controls(&s.content).into_owned(), s.style))
                .collect(),
            None => vec![Span::raw(escape_controls(&src.lines[i]).into_owned())],
        }
    };
    let no = Span::styled(format!("{:>num_w$}", i + 1), t.line_number);
    if i + 1 != m.mutant.line {
        let mut spans = vec![no, Span::raw(" ")];
        spans.extend(highlighted());
        return vec![Line::from(spans)];
    }
    let mut minus = vec![no, Span::styled("-", t.rejected)];
    let plus_text = match &m.diff {
        Some((_, after)) => after.clone(),
        None => format!(
            "(source changed since the run) {} -> {}",
            one_line(&m.mutant.before),
            one_line(&m.mutant.after)
        ),
    };
    minus.extend(highlighted());
    let pad = " ".repeat(num_w);
    vec![
        Line::from(minus).style(t.evidence),
        Line::from(vec![
            Span::raw(pad),
            Span::styled("+", t.accepted),
            Span::styled(plus_text, t.accepted),
        ])
        .style(t.evidence),
    ]
}
