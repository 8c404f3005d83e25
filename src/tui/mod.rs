//! `mastor tui`: the review workbench for a session (DESIGN.md section 5).
//!
//! Model-update-view: [`view::SessionView`] is the session as plain data (loaded once by
//! [`loader`]), [`state::App`] is the UI state, [`update`] turns keys into
//! [`action::Action`]s and actions into state changes plus [`update::Effect`]s, and
//! `ui` draws `&App` without I/O. [`driver`] owns the terminal, the event loop and the
//! effects (journal writes, export, `$EDITOR`).
//!
//! In live mode (`mastor tui --run`) a run sends pipeline [`store::Event`]s into the
//! loop ([`live`]), which applies them exactly as it applies `events.jsonl` on open,
//! and reloads the session when the run ends. Re-running one operation and running the
//! accepted oracles against a live API are started from the workbench but done in the
//! background by the pipeline and the runner ([`jobs`]). The TUI itself never computes
//! oracles or talks to a model: it reads the store and appends review decisions to it.

pub mod action;
pub mod config;
pub mod confine;
pub mod driver;
pub mod export;
pub mod filters;
pub mod highlight;
pub mod jobs;
pub mod judge;
pub mod keymap;
pub mod line_edit;
pub mod live;
pub mod loader;
pub mod metamorphic;
pub mod popups;
pub mod review;
pub mod state;
pub mod theme;
pub mod ui;
pub mod update;
pub mod view;

use crate::store;

pub use driver::{TuiError, open_app, open_session, perform, run};
