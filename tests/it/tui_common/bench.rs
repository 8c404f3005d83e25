//! A workbench in process over a session directory: open it, press keys (performing
//! their effects against the session), render it on a `TestBackend`.

use mastor::store::Session;
use mastor::tui::driver::{Options, open_session};
use mastor::tui::msg::settle;
use mastor::tui::state::App;
use mastor::tui::update::{Effect, handle_key};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use std::path::Path;

/// A workbench and the session under it.
pub struct Bench {
    pub dir: tempfile::TempDir,
    pub session: Session,
    pub app: App,
}

/// Built-in theme and keymap, whatever the user running the tests has configured.
pub fn options(dir: &Path) -> Options {
    Options {
        theme: Some("dark".into()),
        keymap: Some(dir.join("no-keymap.toml")),
        settings: Some(dir.join("no-settings.toml")),
        mouse: false,
    }
}

/// Opens the session `make` writes into a fresh directory, at a fixed "now".
pub fn open_with(make: impl FnOnce(&Path)) -> Bench {
    let dir = tempfile::tempdir().unwrap();
    make(dir.path());
    let (session, mut app) = open_session(dir.path(), &options(dir.path())).unwrap();
    app.now = super::t0() + chrono::Duration::seconds(125);
    Bench { dir, session, app }
}

/// One key token: `<enter>`, `<esc>`, `<tab>`, `<bs>`, `<down>`, `<up>`, `<C-x>`, or a
/// character.
pub fn key(token: &str) -> KeyEvent {
    let code = match token {
        "<enter>" => KeyCode::Enter,
        "<esc>" => KeyCode::Esc,
        "<tab>" => KeyCode::Tab,
        "<bs>" => KeyCode::Backspace,
        "<down>" => KeyCode::Down,
        "<up>" => KeyCode::Up,
        t if t.starts_with("<C-") => {
            let c = t.chars().nth(3).unwrap();
            return KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL);
        }
        t => KeyCode::Char(t.chars().next().unwrap()),
    };
    KeyEvent::new(code, KeyModifiers::NONE)
}

/// Splits `keys` into tokens: `<name>` is one key, any other character another.
pub fn tokens(keys: &str) -> Vec<String> {
    let mut tokens = Vec::new();
    let mut rest = keys;
    while let Some(c) = rest.chars().next() {
        if c == '<'
            && let Some(end) = rest.find('>')
        {
            tokens.push(rest[..=end].to_string());
            rest = &rest[end + 1..];
            continue;
        }
        tokens.push(c.to_string());
        rest = &rest[c.len_utf8()..];
    }
    tokens
}

impl Bench {
    /// The petstore review session.
    pub fn new() -> Bench {
        open_with(|dir| {
            super::petstore_session(dir);
        })
    }

    /// Closes the workbench and opens the session again (a relaunch).
    pub fn relaunch(self) -> Bench {
        let Bench { dir, session, app } = self;
        let now = app.now;
        drop((session, app));
        let (session, mut app) = open_session(dir.path(), &options(dir.path())).unwrap();
        app.now = now;
        Bench { dir, session, app }
    }

    /// Presses `keys` and performs the effects the driver would, bulk chunks included
    /// (returned too, so a test can see what background work or copy was asked for).
    pub fn press(&mut self, keys: &str) -> Vec<Effect> {
        let mut all = Vec::new();
        for t in tokens(keys) {
            for e in handle_key(&mut self.app, key(&t)) {
                all.push(e.clone());
                settle(&self.session, &mut self.app, e, &mut |text: &str| {
                    Ok(text.to_string())
                });
            }
            while let Some(chunk) = self.app.next_bulk_chunk() {
                let e = Effect::RecordBatch(chunk);
                settle(&self.session, &mut self.app, e, &mut |t: &str| Ok(t.into()));
            }
        }
        all
    }

    /// The review state of `o_id`.
    pub fn state(&self, o_id: &str) -> mastor::model::ReviewState {
        self.app.view.review_state(o_id)
    }

    /// The status line's text (empty when there is none).
    pub fn status(&self) -> String {
        self.app.status.clone().map(|s| s.0).unwrap_or_default()
    }

    /// The bulk accept of what is shown, as a reviewer types it (no note).
    pub fn bulk_accept(&mut self) {
        self.press("A<enter>y");
    }

    /// Draws one frame at `w` x `h`.
    pub fn render(&mut self, w: u16, h: u16) -> Terminal<TestBackend> {
        super::draw(&mut self.app, w, h)
    }

    /// The frame at `w` x `h` as text, one line per row.
    pub fn text(&mut self, w: u16, h: u16) -> String {
        let t = self.render(w, h);
        super::buffer_text(t.backend().buffer())
    }
}
