//! The `mastor` binary: parses the command line, runs one subcommand, maps errors to
//! exit code 2 with a message naming what is wrong.
//!
//! A closed stdout (`mastor scan --json | head`) ends the process quietly with code 0,
//! as it would for any Unix filter: Rust ignores SIGPIPE, so a write to a closed pipe
//! comes back as a `BrokenPipe` error, or a panic from the printing macros; both are
//! caught here.

use clap::Parser;
use mastor::cli::{Cli, EXIT_INPUT, EXIT_OK, dispatch};

fn main() {
    let _ = color_eyre::config::HookBuilder::default()
        .display_env_section(false)
        .install();
    quiet_on_broken_pipe();
    let cli = Cli::parse();
    let code = match dispatch(cli) {
        Ok(code) => code,
        Err(err) if is_broken_pipe(err.chain()) => EXIT_OK,
        Err(err) => {
            let text = format!("{err:#}");
            eprintln!("error: {}", mastor::text::escape_controls(&text));
            EXIT_INPUT
        }
    };
    std::process::exit(code);
}

/// True when an error chain holds an I/O error of kind `BrokenPipe`.
fn is_broken_pipe<'a>(
    mut chain: impl Iterator<Item = &'a (dyn std::error::Error + 'static)>,
) -> bool {
    chain.any(|e| {
        e.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

/// `print!`/`println!` panic when stdout is a closed pipe; that panic ends the process
/// with code 0 and no message instead of a crash report. Other panics go to the hook
/// installed before (color-eyre's).
fn quiet_on_broken_pipe() {
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let payload = info
            .payload()
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| info.payload().downcast_ref::<&str>().copied())
            .unwrap_or_default();
        if payload.starts_with("failed printing to stdout") && payload.contains("Broken pipe") {
            std::process::exit(EXIT_OK);
        }
        previous(info);
    }));
}
