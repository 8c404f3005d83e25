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
//! A new screen (Mutants was the last one added) is one file, one line in the screen
//! list and its keys in `keymap.toml`:
//! 1. `screens/mutants.rs`: `pub struct MutantsScreen { .. }` with the screen's own
//!    state, and
//!    - `impl ScreenType for MutantsScreen`: its header entry (`TAB`: title, the
//!      `show_mutants` action name and its help text; `None` for a screen entered
//!      from another's row, which names the tab it belongs to in `shown_by`), the
//!      keymap sections it brings (`SECTIONS`) and `fresh`, the screen its header key
//!      shows;
//!    - `impl ScreenState for MutantsScreen`: `sections` (active, most specific
//!      first), footer `hints` and `draw`; override `handle` for its own actions
//!      (given its state and a [`screens::Ctx`]: the session, the footer, the popups),
//!      `move_cursor`, `current_row`, `source_target`, `open`, `refresh`,
//!      `item_list` / `reviewing` (if its rows are reviewed like oracles), `detail` as
//!      it needs. Drawing can sit in that file or in `ui/`.
//! 2. `screens/mod.rs`: `mod mutants;` (and its `pub use`), and the line
//!    `Mutants(MutantsScreen),` in the `screens!` list, which makes the `Screen`
//!    variant, its `ScreenKind` and the trait dispatch.
//! 3. `keymap.toml`: the `[mutants]` section of its own keys, and its header key
//!    (`show_mutants = ["5"]`) in `[global]`.
//!
//! Nothing else needs to know of the new screen: the header's tabs, `Action::Show`,
//! the keymap's known sections and the help overlay come from `ScreenType`; key
//! dispatch (`update`), clicks (`mouse`), the source pane (`App::source_target`),
//! footer hints and drawing go through [`screens::ScreenState`]. `screens/checklist.rs`
//! fails for a screen missing its section, header key or footer keys, and
//! `tests/it/layering.rs` for a `match` on a screen in the modules that dispatch.
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
pub mod rerun_plan;
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
