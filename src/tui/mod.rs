//! `mastor tui`: the review workbench for a session (docs/ARCHITECTURE.md section 9).
//!
//! Model-update-view: [`view::SessionView`] is the session as plain data (loaded once by
//! [`loader`]), [`state::App`] is the UI state, [`update`] turns keys into
//! [`action::Action`]s and actions into state changes plus [`update::Effect`]s, and
//! `ui` draws `&App` without I/O. [`driver`] owns the terminal, the event loop and the
//! effects (journal writes, export, `$EDITOR`).
//!
//! Each screen owns its state ([`screens`]): an enum variant holding the screen's
//! cursors, scroll and selection, built when the screen is entered and dropped when it
//! is left, on a stack whose bottom is the operations list. Popups are layers over the
//! screen ([`popups`]), each with its own keys from the keymap's `[popup]` section.
//!
//! # Adding a screen
//!
//! A new screen (Mutants was the last one added) is one file plus one enum variant:
//! 1. `screens/mutants.rs`: `pub struct MutantsScreen { .. }` with the screen's own
//!    state, and `impl ScreenState for MutantsScreen`: keymap `sections`, footer
//!    `hints`, the header tab it belongs to (`shown_by`) and `draw`; override
//!    `move_cursor`, `open`, `item_list` / `reviewing` (if its rows are reviewed like
//!    oracles), `detail` as it needs. Drawing can sit in that file or in `ui/`.
//! 2. `Screen::Mutants(MutantsScreen)` in `screens/mod.rs`, plus its arm in
//!    `Screen::state` and `Screen::state_mut` (the compiler points at both).
//! 3. To reach it: an `Action::ShowMutants` (`action.rs`, with a default key in
//!    `keymap.toml`) handled in `update::navigate` by
//!    `app.show(Screen::Mutants(MutantsScreen::new(..)))`, and its header tab in
//!    `ui::draw_header`.
//!
//! Nothing else dispatches on the screen: key sections, footer hints, cursor movement,
//! review targets and drawing all go through [`screens::ScreenState`].
//!
//! # Messages, effects and tasks
//!
//! Everything the workbench reacts to is one [`msg::Msg`]: a key, a mouse event, a
//! background task's event, progress or end, or the outcome of an effect. One function,
//! [`msg::update`], applies a message and returns [`update::Effect`]s; the driver
//! performs an effect ([`driver::perform`]) and returns its outcome as a message again,
//! and an `Effect::Start` goes to the [`executor`], which only runs the task's body
//! and sends what it reports into the same stream. What runs is recorded in one place,
//! the registry [`tasks::Tasks`] (`App::tasks`), keyed by [`tasks::TaskKind`]: the busy
//! check, the quit guard, the header's progress, live mode's "run in progress" and the
//! dropping of stale messages (a task number no longer registered) all read it. Live
//! mode's pipeline run (`mastor tui --run`) is such a task too, started by the command
//! line ([`live`]). The executor is injected: threads in the workbench, inline in tests
//! and the key-sequence bench, so a key sequence runs oracles, re-runs and mutation
//! analyses end to end. Verdicts another process stores (`mastor check` beside the
//! workbench) are picked up by [`verdict_watch`]. The TUI itself never computes oracles
//! or talks to a model: it reads the store and appends review decisions to it.
//!
//! # Adding a kind of background work
//!
//! The "run every oracle, then isolate the failures" task (`TaskKind::Triage`) was
//! added this way:
//! 1. The variant: a [`tasks::TaskKind`] and a [`tasks::Work`] variant holding its
//!    inputs (plus its arm in `Work::kind`; the compiler points at it). The starter
//!    registers it and asks for it with `jobs::start(app, work, label)`, after the
//!    busy check (`jobs::busy`).
//! 2. The body: its arm in [`executor::body`], blocking, calling the library function
//!    the command line uses too, reporting through the `Reporter` (progress, events);
//!    its result is one line or the reason it failed.
//! 3. The apply arm: its arm in `msg::finished` (what its end changes; the session is
//!    reloaded after every task), and in `msg::progressed` if it reports progress.
//!
//! Nothing else changes: busy check, quit guard, header progress and stale filtering
//! come from the registry (`TaskKind::progress_word` names it in the header).

pub mod action;
pub mod base_url;
pub mod clipboard;
pub mod config;
pub mod confine;
pub mod context_edit;
pub mod driver;
pub mod executor;
pub mod export;
pub mod failure;
pub mod filters;
pub mod highlight;
pub mod jobs;
pub mod json_lines;
pub mod judge;
pub mod keymap;
pub mod lenient;
pub mod line_edit;
pub mod live;
pub mod loader;
pub mod metamorphic;
pub mod mouse;
pub mod msg;
pub mod mutate_job;
pub mod mutation;
pub mod oracle_run;
pub mod popups;
pub mod rerun;
pub mod review;
pub mod screens;
pub mod search;
pub mod state;
pub mod stderr_guard;
pub mod survivors_job;
pub mod tasks;
pub mod theme;
pub mod ui;
pub mod undo;
pub mod update;
pub mod verdict_mark;
pub mod verdict_watch;
pub mod view;

use crate::store;

pub use driver::{TuiError, open_app, open_session, perform, run};
