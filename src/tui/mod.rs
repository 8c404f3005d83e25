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
//! In live mode (`mastor tui --run`) a run sends pipeline [`store::Event`]s into the
//! loop ([`live`]), which applies them exactly as it applies `events.jsonl` on open,
//! and reloads the session when the run ends. Re-running one operation and running the
//! accepted oracles against a live API are started from the workbench but done in the
//! background by the pipeline and the runner ([`jobs`]); so is a mutation analysis
//! ([`mutate_job`]), whose results ([`mutation`]) feed the Mutants screen, the oracle
//! list's kills column and the header's score. Verdicts another process stores
//! (`mastor check` beside the workbench) are picked up by [`verdict_watch`]. The TUI
//! itself never computes oracles or talks to a model: it reads the store and appends
//! review decisions to it.

pub mod action;
pub mod clipboard;
pub mod config;
pub mod confine;
pub mod context_edit;
pub mod driver;
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
pub mod mutate_job;
pub mod mutation;
pub mod oracle_run;
pub mod popups;
pub mod review;
pub mod screens;
pub mod search;
pub mod state;
pub mod stderr_guard;
pub mod survivors_job;
pub mod theme;
pub mod ui;
pub mod undo;
pub mod update;
pub mod verdict_mark;
pub mod verdict_watch;
pub mod view;

use crate::store;

pub use driver::{TuiError, open_app, open_session, perform, run};
