//! `mastor tui`: opens a session in the review workbench.

use crate::tui::driver::{self, Options};
use clap::Args;
use std::path::PathBuf;

/// Arguments of `mastor tui`.
#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  mastor tui                 # the session in ./.mastor\n  mastor tui path/to/project --theme light\n  mastor tui path/to/project/.mastor --mouse"
)]
pub struct TuiArgs {
    /// Session directory, or a project directory whose session is `<dir>/.mastor`.
    #[arg(default_value = ".")]
    pub dir: PathBuf,
    /// Theme: dark, light, a theme name from the config dir, or a TOML file.
    #[arg(long)]
    pub theme: Option<String>,
    /// Keymap TOML file (default: keymap.toml in the config dir, when present).
    #[arg(long)]
    pub keymap: Option<PathBuf>,
    /// Let the mouse wheel scroll lists (disables the terminal's own text selection).
    #[arg(long)]
    pub mouse: bool,
}

/// Runs the workbench; returns the exit code.
pub fn run(args: TuiArgs) -> color_eyre::Result<i32> {
    let opts = Options {
        theme: args.theme,
        keymap: args.keymap,
        mouse: args.mouse,
    };
    // Before opening, so warnings while loading (a torn journal line) reach the log.
    driver::init_logging();
    let (session, mut app) = driver::open_session(&args.dir, &opts)?;
    driver::run(&session, &mut app, None)?;
    Ok(super::EXIT_OK)
}
