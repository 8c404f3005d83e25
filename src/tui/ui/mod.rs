//! Drawing: `impl Widget for &App` (header, the screen on show through
//! `ScreenState::draw`, footer, popups), one module per screen, no I/O and no parsing.
//!
//! Lists draw only their visible window, so a session with thousands of oracles costs
//! the same per frame as a small one. Everything shown is derived from `App` and its
//! `SessionView`; expensive derived data (syntax highlighting) is prepared beforehand
//! by `App::prepare_frame`.

mod context_edit;
mod costs;
mod error_body;
mod fit;
mod metamorphic;
mod mutants;
mod operation;
mod operations;
mod oracles;
mod panes;
mod verdict;

use super::action::Action;
use super::screens::ScreenKind;
use super::state::App;

use super::view::{AgentState, AgentStatus};
use crate::model::ReviewState;
pub(crate) use costs::draw_costs;
pub(crate) use metamorphic::draw as draw_metamorphic;
pub(crate) use mutants::draw as draw_mutants;
pub(crate) use operation::draw as draw_operation;
pub(crate) use operations::{draw_groups, draw_operations};
pub(crate) use panes::draw_group;
use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph, Widget, Wrap};
pub(crate) use verdict::failure_lines;

const SPINNER: [&str; 10] = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

impl Widget for &App {
    fn render(self, area: Rect, buf: &mut Buffer) {
        self.hits.clear();
        buf.set_style(area, self.theme.text);
        let [header, body, footer] = Layout::vertical([
            Constraint::Length(1),
            Constraint::Min(0),
            Constraint::Length(footer_height(self, area.width)),
        ])
        .areas(area);
        draw_header(self, header, buf);
        self.screen.state().draw(self, body, buf);
        draw_footer(self, footer, buf);
        crate::tui::popups::render(self, area, buf);
    }
}

fn draw_header(app: &App, area: Rect, buf: &mut Buffer) {
    use fit::Item;
    let t = &app.theme;
    let mut items: Vec<Item<Action>> = vec![Item::new(
        2,
        vec![Span::styled(" mastor ", t.tab_active), Span::raw(" ")],
    )];
    let current = app
        .screen
        .state()
        .shown_by()
        .unwrap_or_else(|| app.screen.kind());
    // Every screen with a header entry is always listed: an empty one says why it is
    // empty and what would fill it, which a hidden tab cannot.
    for &kind in ScreenKind::ALL {
        let Some(tab) = kind.tab() else {
            continue;
        };
        let action = Action::Show(kind);
        let key = app.keymap.hint(&["global"], action).unwrap_or_default();
        let (style, keep) = if kind == current {
            (t.selected, 7)
        } else {
            (t.muted, 3)
        };
        // On a narrow terminal a tab keeps its key and loses its name.
        let mut k = Item::new(9, vec![Span::styled(format!(" {key} "), style)]);
        k.hit = Some(action);
        let mut name = Item::new(keep, vec![Span::styled(format!("{} ", tab.title), style)]);
        name.hit = Some(action);
        items.extend([k, name, Item::new(9, vec![Span::raw(" ")])]);
    }
    let name = app
        .view
        .dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    items.extend(score_items(app));
    items.push(Item::new(
        1,
        vec![Span::styled(format!("  {name}"), t.muted)],
    ));
    if let Some(h) = &app.read_only {
        items.push(Item::new(
            8,
            vec![Span::styled(
                format!("  READ-ONLY: locked by pid {} ({}) ", h.pid, h.command),
                t.error,
            )],
        ));
    }
    let mut x = area.x;
    let mut spans = Vec::new();
    for item in fit::fit(items, area.width as usize) {
        let w = item.width() as u16;
        if let Some(action) = item.hit {
            let r = Rect {
                x,
                y: area.y,
                width: w,
                height: 1,
            };
            app.hits.add(r, crate::tui::mouse::Hit::Screen(action));
        }
        x += w;
        spans.extend(item.spans);
    }
    Line::from(spans).render(area, buf);
}

/// The suite's mutation score, and what it would be without the oracles rejected in
/// this review (from the matrix, no re-run); progress while an analysis runs.
fn score_items(app: &App) -> Vec<fit::Item<Action>> {
    use fit::Item;
    let t = &app.theme;
    let mut items = Vec::new();
    if let Some(m) = &app.view.mutation {
        let pct = crate::tui::mutation::percent;
        items.push(Item::new(
            6,
            vec![Span::styled(
                format!("  mutation {}", pct(m.score())),
                t.accent,
            )],
        ));
        let rejected = m.rejected(|o| app.view.review_state(o));
        if !rejected.is_empty() {
            items.push(Item::new(
                4,
                vec![Span::styled(
                    format!(
                        " → {} without {} rejected",
                        pct(m.score_without(&rejected)),
                        rejected.len()
                    ),
                    t.warning,
                )],
            ));
        }
    }
    for task in app.tasks.iter() {
        if let Some(word) = task.kind.progress_word() {
            let (done, total) = task.progress.unwrap_or_default();
            items.push(Item::new(
                6,
                vec![Span::styled(format!("  {word} {done}/{total}"), t.running)],
            ));
        }
    }
    items
}

/// Rows the footer needs: one, or more for an error too long for one (an error is
/// never cut: it wraps, up to `MAX_ERROR_ROWS`).
fn footer_height(app: &App, width: u16) -> u16 {
    let Some((msg, true)) = &app.status else {
        return 1;
    };
    let always = always_hints(app).iter().map(|s| s.width()).sum::<usize>();
    let room = (width as usize).saturating_sub(always).max(1);
    let text = crate::text::escape_controls(msg);
    let w = Line::from(format!(" {text}")).width();
    (w.div_ceil(room) as u16).clamp(1, MAX_ERROR_ROWS)
}

/// The most rows an error in the footer takes from the screen.
const MAX_ERROR_ROWS: u16 = 5;

fn draw_footer(app: &App, area: Rect, buf: &mut Buffer) {
    let t = &app.theme;
    // Help and quit are always on screen, at the right, whatever else the line says.
    let always = always_hints(app);
    let always_w = always.iter().map(|s| s.width()).sum::<usize>() as u16;
    let [left, right] =
        Layout::horizontal([Constraint::Min(0), Constraint::Length(always_w)]).areas(area);
    let right = Rect { height: 1, ..right };
    Line::from(always).render(right, buf);
    let area = left;
    if let Some(input) = &app.input {
        let mut spans = vec![Span::styled(" / ", t.key)];
        spans.extend(input.edit.spans(t.accent));
        spans.push(Span::styled(
            format!(
                "   {} keep · {} clear",
                app.keymap
                    .hint(&["popup"], Action::Confirm)
                    .unwrap_or_default(),
                app.keymap
                    .hint(&["popup"], Action::Cancel)
                    .unwrap_or_default()
            ),
            t.muted,
        ));
        Line::from(spans).render(area, buf);
        return;
    }
    if let Some((msg, is_err)) = &app.status {
        let style = if *is_err { t.error } else { t.accent };
        let text = crate::text::escape_controls(msg).into_owned();
        Paragraph::new(Line::from(Span::styled(format!(" {text}"), style)))
            .wrap(Wrap { trim: false })
            .render(area, buf);
        return;
    }
    let active = app.active_sections();
    let wanted = app.screen.state().hints();
    let mut spans = vec![Span::raw(" ")];
    let mut used = 1;
    for &a in wanted {
        if matches!(a, Action::Help | Action::Quit) {
            continue;
        }
        if let Some(k) = app.keymap.hint(active, a) {
            let desc = format!(" {}  ", a.description());
            // A hint that does not fit whole is left out rather than cut.
            let w = k.chars().count() + desc.trim_end().chars().count();
            if used + w > area.width as usize {
                break;
            }
            used += w + 2;
            spans.push(Span::styled(k, t.key));
            spans.push(Span::styled(desc, t.muted));
        }
    }
    Line::from(spans).render(area, buf);
}

/// `? help  q quit`, from the keymap.
fn always_hints(app: &App) -> Vec<Span<'static>> {
    let t = &app.theme;
    let mut spans = Vec::new();
    for a in [Action::Help, Action::Quit] {
        if let Some(k) = app.keymap.hint(&["global"], a) {
            spans.push(Span::styled(format!(" {k}"), t.key));
            spans.push(Span::styled(format!(" {} ", a.description()), t.muted));
        }
    }
    spans
}

/// A bordered block with a title, focused or not.
pub(crate) fn block<'a>(app: &App, title: impl Into<String>, focused: bool) -> Block<'a> {
    let style = if focused {
        app.theme.border_focus
    } else {
        app.theme.border
    };
    Block::bordered()
        .border_style(style)
        .title(Span::styled(format!(" {} ", title.into()), app.theme.title))
}

/// First row of the visible window that keeps `cursor` on screen.
pub(crate) fn window_start(cursor: usize, height: usize) -> usize {
    if height == 0 {
        0
    } else {
        cursor.saturating_sub(height - 1)
    }
}

/// Style of a review state.
pub(crate) fn state_style(app: &App, s: ReviewState) -> Style {
    match s {
        ReviewState::Proposed => app.theme.proposed,
        ReviewState::Accepted => app.theme.accepted,
        ReviewState::Edited => app.theme.edited,
        ReviewState::Rejected => app.theme.rejected,
        ReviewState::Dropped => app.theme.dropped,
    }
}

/// Short label of a review state.
pub(crate) fn state_label(s: ReviewState) -> &'static str {
    match s {
        ReviewState::Proposed => "to review",
        ReviewState::Accepted => "accepted",
        ReviewState::Edited => "edited",
        ReviewState::Rejected => "rejected",
        ReviewState::Dropped => "dropped",
    }
}

/// One glyph for an agent's state (spinner while running).
pub(crate) fn agent_glyph<'a>(app: &App, s: Option<&AgentStatus>) -> Span<'a> {
    let t = &app.theme;
    match s.map(|s| &s.state) {
        None | Some(AgentState::Queued) => Span::styled("·", t.queued),
        Some(AgentState::Running { .. }) => {
            Span::styled(SPINNER[(app.tick % 10) as usize], t.running)
        }
        Some(AgentState::Done { .. }) => Span::styled("✓", t.done),
        Some(AgentState::Failed { .. }) => Span::styled("✗", t.failed),
    }
}

/// A longer description of an agent's state, with elapsed time, reason and retries.
pub(crate) fn agent_line<'a>(app: &App, name: &str, s: &AgentStatus) -> Line<'a> {
    let t = &app.theme;
    let mut spans = vec![
        agent_glyph(app, Some(s)),
        Span::styled(format!(" {name}: "), t.text),
    ];
    let text = match &s.state {
        AgentState::Queued => ("queued".to_string(), t.queued),
        AgentState::Running { since } => {
            let secs = (app.now - *since).num_seconds().max(0);
            (format!("running {}", fmt_secs(secs as u64)), t.running)
        }
        AgentState::Done { wall_ms } => (
            match wall_ms {
                Some(ms) => format!("done in {}", fmt_ms(*ms)),
                None => "done".to_string(),
            },
            t.done,
        ),
        AgentState::Failed { reason } => (format!("failed: {reason}"), t.failed),
    };
    spans.push(Span::styled(text.0, text.1));
    if s.retries > 0 {
        let why = s
            .last_retry
            .as_ref()
            .map(|r| format!(" (last: {r})"))
            .unwrap_or_default();
        spans.push(Span::styled(
            format!("  ↻{} retries{why}", s.retries),
            t.warning,
        ));
    }
    Line::from(spans)
}

/// `12.3k`-style token count.
pub(crate) fn fmt_tokens(n: u64) -> String {
    match n {
        0..1_000 => n.to_string(),
        1_000..1_000_000 => format!("{:.1}k", n as f64 / 1e3),
        _ => format!("{:.2}M", n as f64 / 1e6),
    }
}

/// Dollars with enough precision for cheap models.
pub(crate) fn fmt_cost(c: f64) -> String {
    if c == 0.0 {
        "$0".to_string()
    } else if c < 0.01 {
        format!("${c:.4}")
    } else {
        format!("${c:.2}")
    }
}

pub(crate) fn fmt_ms(ms: u64) -> String {
    if ms < 1_000 {
        format!("{ms}ms")
    } else {
        fmt_secs(ms / 1_000)
    }
}

pub(crate) fn fmt_secs(s: u64) -> String {
    if s < 60 {
        format!("{s}s")
    } else if s < 3600 {
        format!("{}m{:02}s", s / 60, s % 60)
    } else {
        format!("{}h{:02}m", s / 3600, (s % 3600) / 60)
    }
}

/// Paragraph of plain lines, scrolled.
pub(crate) fn scrolled<'a>(lines: Vec<Line<'a>>, scroll: i64) -> Paragraph<'a> {
    let max = lines.len().saturating_sub(1) as i64;
    let y = scroll.clamp(0, max.max(0)) as u16;
    Paragraph::new(lines).scroll((y, 0))
}
