//! Popups as a stack of layers drawn over the screen.
//!
//! Each popup is its own type in its own file, with the keys it understands
//! ([`Layer::handle_key`]) next to how it looks ([`Layer::render`]), so a new dialog is
//! one file plus one [`Popup`] variant instead of arms spread over `update` and `ui`.
//! As in helix's compositor, the top layer sees a key first and says whether it used
//! it, closes, or ignores it; an ignored key goes to the layer below. Popups are modal:
//! a key no layer wants is dropped rather than reaching the screen underneath.

mod confirm;
mod editor;
mod equivalent;
mod export;
mod failure;
mod help;
mod judge;
mod mutate;
mod note;
mod plan_text;
mod quit;
mod rerun;
mod run_oracles;

pub use confirm::Confirm;
pub use editor::Editor;
pub use equivalent::Equivalent;
pub use export::Export;
pub use failure::FailureView;
pub use help::Help;
pub use judge::Judge;
pub use mutate::{RunMutate, open_mutate_popup};
pub use note::Note;
pub use plan_text::PlanText;
pub use quit::ConfirmQuit;
pub use rerun::Rerun;
pub use run_oracles::RunOracles;

use super::action::Action;
use super::keymap::Key;
use super::state::App;
use super::update::Effect;
use ratatui::buffer::Buffer;
use ratatui::crossterm::event::KeyEvent;
use ratatui::layout::Rect;

/// What a layer did with a key.
#[derive(Debug, PartialEq)]
pub enum KeyResult {
    /// The layer used the key and stays open; the effects go to the driver.
    Consumed(Vec<Effect>),
    /// The layer used the key and closes; the effects go to the driver.
    Close(Vec<Effect>),
    /// Not a key for this layer: the layer below gets it.
    Ignored,
}

/// One popup: its keys and its drawing.
pub trait Layer {
    /// Handles a key. `app` is the workbench without this layer (it is taken off the
    /// stack while it handles the key), so the layer may open another one on top.
    fn handle_key(&mut self, app: &mut App, key: KeyEvent) -> KeyResult;
    /// Draws the layer over `area` (the whole terminal).
    fn render(&self, app: &App, area: Rect, buf: &mut Buffer);
}

/// Layers drawn over the screen; the top one gets the keys first.
#[derive(Debug)]
pub enum Popup {
    /// Key reference.
    Help(Help),
    /// Asks before a bulk decision.
    Confirm(Confirm),
    /// Optional note for a rejection.
    Note(Note),
    /// Optional note for a true / false positive judgement.
    Judge(Judge),
    /// Inline JSON editor.
    Editor(Editor),
    /// Asks before quitting while a live run is in progress.
    ConfirmQuit(ConfirmQuit),
    /// Which agent a re-run starts from.
    Rerun(Rerun),
    /// Base URL of the API to run the accepted oracles against.
    RunOracles(Box<RunOracles>),
    /// Commands of a mutation analysis.
    RunMutate(Box<RunMutate>),
    /// Note of an equivalent-mutant mark.
    Equivalent(Equivalent),
    /// Export dialog.
    Export(Export),
    /// Request and response of the selected oracle's latest run.
    Failure(FailureView),
    /// The whole plan of a re-run.
    PlanText(PlanText),
}

impl Popup {
    fn layer(&mut self) -> &mut dyn Layer {
        match self {
            Popup::Help(p) => p,
            Popup::Confirm(p) => p,
            Popup::Note(p) => p,
            Popup::Judge(p) => p,
            Popup::Editor(p) => p,
            Popup::ConfirmQuit(p) => p,
            Popup::Rerun(p) => p,
            Popup::RunOracles(p) => p.as_mut(),
            Popup::RunMutate(p) => p.as_mut(),
            Popup::Equivalent(p) => p,
            Popup::Export(p) => p,
            Popup::Failure(p) => p,
            Popup::PlanText(p) => p,
        }
    }

    fn layer_ref(&self) -> &dyn Layer {
        match self {
            Popup::Help(p) => p,
            Popup::Confirm(p) => p,
            Popup::Note(p) => p,
            Popup::Judge(p) => p,
            Popup::Editor(p) => p,
            Popup::ConfirmQuit(p) => p,
            Popup::Rerun(p) => p,
            Popup::RunOracles(p) => p.as_ref(),
            Popup::RunMutate(p) => p.as_ref(),
            Popup::Equivalent(p) => p,
            Popup::Export(p) => p,
            Popup::Failure(p) => p,
            Popup::PlanText(p) => p,
        }
    }
}

/// The scrolling keys of a modal text view (the failure view, the plan text): moves
/// `scroll`, the first line shown, within `lines`; false for any other key.
pub(crate) fn scroll_by_key(
    code: ratatui::crossterm::event::KeyCode,
    scroll: &mut usize,
    lines: usize,
    page: usize,
) -> bool {
    use ratatui::crossterm::event::KeyCode;
    match code {
        KeyCode::Down | KeyCode::Char('j') => *scroll += 1,
        KeyCode::Up | KeyCode::Char('k') => *scroll = scroll.saturating_sub(1),
        KeyCode::PageDown | KeyCode::Char(' ') => *scroll += page,
        KeyCode::PageUp => *scroll = scroll.saturating_sub(page),
        KeyCode::Home | KeyCode::Char('g') => *scroll = 0,
        KeyCode::End | KeyCode::Char('G') => *scroll = lines.saturating_sub(1),
        _ => return false,
    }
    *scroll = (*scroll).min(lines.saturating_sub(1));
    true
}

/// Gives `key` to the popup stack, top first. `None` when no popup is open (the key
/// is for the screen); otherwise the effects of the layer that took it, if any did.
pub fn handle_key(app: &mut App, key: KeyEvent) -> Option<Vec<Effect>> {
    if app.popups.is_empty() {
        return None;
    }
    let mut i = app.popups.len();
    while i > 0 {
        i -= 1;
        let mut popup = app.popups.remove(i);
        let result = popup.layer().handle_key(app, key);
        let at = i.min(app.popups.len());
        match result {
            KeyResult::Ignored => app.popups.insert(at, popup),
            KeyResult::Consumed(effects) => {
                app.popups.insert(at, popup);
                return Some(effects);
            }
            KeyResult::Close(effects) => return Some(effects),
        }
    }
    Some(Vec::new())
}

/// Draws every open popup, bottom first.
pub fn render(app: &App, area: Rect, buf: &mut Buffer) {
    for p in &app.popups {
        p.layer_ref().render(app, area, buf);
    }
}

/// The `[popup]` keymap action bound to `key`, if any.
pub(crate) fn action(app: &App, key: &KeyEvent) -> Option<Action> {
    app.keymap.lookup(&["popup"], Key::from_event(key))
}

/// The first key of a `[popup]` action, as hints show it.
pub(crate) fn key_label(app: &App, action: Action) -> String {
    app.keymap.hint(&["popup"], action).unwrap_or_default()
}

/// The `y / enter: {yes}    n / esc: {no}` line of a yes / no question.
pub(crate) fn yes_no_line(app: &App, yes: &str, no: &str) -> ratatui::text::Line<'static> {
    use ratatui::text::{Line, Span};
    Line::from(vec![
        Span::styled(key_label(app, Action::Yes), app.theme.key),
        Span::raw(format!(" / {}: {yes}    ", key_label(app, Action::Confirm))),
        Span::styled(key_label(app, Action::No), app.theme.key),
        Span::raw(format!(" / {}: {no}", key_label(app, Action::Cancel))),
    ])
}

/// The `enter: {confirm} · esc: cancel` hint line of a dialog.
pub(crate) fn confirm_cancel_hint(app: &App, confirm: &str) -> ratatui::text::Line<'static> {
    ratatui::text::Line::styled(
        format!(
            "{}: {confirm} · {}: cancel",
            key_label(app, Action::Confirm),
            key_label(app, Action::Cancel)
        ),
        app.theme.muted,
    )
}

/// A `label` then the line being typed, with its cursor.
pub(crate) fn input_line(
    app: &App,
    label: &str,
    edit: &super::line_edit::LineEdit,
) -> ratatui::text::Line<'static> {
    use ratatui::text::{Line, Span};
    let mut spans = vec![Span::styled(label.to_string(), app.theme.muted)];
    spans.extend(edit.spans(app.theme.accent));
    Line::from(spans)
}

/// A `w` x `h` rectangle centred in `area` (clipped to it).
pub(crate) fn centered(area: Rect, w: u16, h: u16) -> Rect {
    let w = w.min(area.width);
    let h = h.min(area.height);
    Rect {
        x: area.x + (area.width - w) / 2,
        y: area.y + (area.height - h) / 2,
        width: w,
        height: h,
    }
}

/// The usual popup body: `lines` in a bordered, titled box centred in `area`.
pub(crate) fn dialog(
    app: &App,
    title: impl Into<String>,
    lines: Vec<ratatui::text::Line<'_>>,
    (area, w, h): (Rect, u16, u16),
    buf: &mut Buffer,
) {
    use ratatui::widgets::{Clear, Paragraph, Widget, Wrap};
    let r = centered(area, w, h);
    Clear.render(r, buf);
    Paragraph::new(lines)
        .style(app.theme.popup)
        .wrap(Wrap { trim: false })
        .block(crate::tui::ui::block(app, title, true))
        .render(r, buf);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tui::keymap::Keymap;
    use crate::tui::theme::Theme;
    use crate::tui::view::SessionView;
    use ratatui::crossterm::event::{KeyCode, KeyModifiers};

    fn app() -> App {
        App::new(
            SessionView::default(),
            Keymap::default_keymap(),
            Theme::dark(),
        )
    }

    fn key(code: KeyCode) -> KeyEvent {
        KeyEvent::new(code, KeyModifiers::NONE)
    }

    #[test]
    fn no_popup_leaves_the_key_to_the_screen() {
        let mut app = app();
        assert_eq!(handle_key(&mut app, key(KeyCode::Char('a'))), None);
    }

    #[test]
    fn top_layer_consumes_a_key_and_esc_pops_it() {
        let mut app = app();
        app.popups.push(Popup::Note(Note::new(vec!["o".into()])));
        assert_eq!(
            handle_key(&mut app, key(KeyCode::Char('x'))),
            Some(Vec::new())
        );
        match app.popups.last() {
            Some(Popup::Note(n)) => assert_eq!(n.text.text(), "x"),
            other => panic!("the note stays open, got {other:?}"),
        }
        handle_key(&mut app, key(KeyCode::Esc));
        assert!(app.popups.is_empty());
        assert_eq!(app.status, Some(("rejection cancelled".into(), false)));
    }

    #[test]
    fn ignored_key_goes_to_the_layer_below_and_only_the_top_closes() {
        let mut app = app();
        app.popups.push(Popup::Note(Note::new(vec!["o".into()])));
        app.popups.push(Popup::Help(Help::default()));
        // Help ignores a letter; the note below types it.
        handle_key(&mut app, key(KeyCode::Char('x')));
        assert_eq!(app.popups.len(), 2);
        match app.popups.first() {
            Some(Popup::Note(n)) => assert_eq!(n.text.text(), "x"),
            other => panic!("expected the note, got {other:?}"),
        }
        handle_key(&mut app, key(KeyCode::Esc));
        assert!(matches!(app.popups.as_slice(), [Popup::Note(_)]));
    }

    #[test]
    fn a_layer_may_open_another_on_top_of_itself() {
        let mut app = app();
        app.popups
            .push(Popup::Note(Note::bulk(false, vec!["a".into(), "b".into()])));
        for c in "no".chars() {
            handle_key(&mut app, key(KeyCode::Char(c)));
        }
        handle_key(&mut app, key(KeyCode::Enter));
        match app.popups.as_slice() {
            [Popup::Confirm(c)] => {
                assert_eq!(c.o_ids, ["a", "b"]);
                assert_eq!(c.note.as_deref(), Some("no"));
            }
            other => panic!("the note closes and the confirm opens, got {other:?}"),
        }
        // The confirm takes every key: a stray letter neither answers nor leaks.
        assert_eq!(
            handle_key(&mut app, key(KeyCode::Char('s'))),
            Some(Vec::new())
        );
        assert_eq!(app.popups.len(), 1);
    }

    #[test]
    fn popup_keys_and_hints_come_from_the_keymap() {
        let keymap = Keymap::with_overrides("[popup]\ncancel = [\"ctrl-g\"]\n", "k.toml").unwrap();
        let mut app = App::new(SessionView::default(), keymap, Theme::dark());
        assert_eq!(
            confirm_cancel_hint(&app, "reject").to_string(),
            "enter: reject · ^g: cancel"
        );
        app.popups.push(Popup::Note(Note::new(vec!["o".into()])));
        handle_key(&mut app, key(KeyCode::Esc));
        assert_eq!(app.popups.len(), 1, "esc is no longer cancel");
        handle_key(
            &mut app,
            KeyEvent::new(KeyCode::Char('g'), KeyModifiers::CONTROL),
        );
        assert!(app.popups.is_empty());
    }
}
