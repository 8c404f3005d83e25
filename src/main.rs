//! The `mastor` binary: parses the command line, runs one subcommand, maps errors to
//! exit code 2 with a message naming what is wrong.

use clap::Parser;
use mastor::cli::{Cli, EXIT_INPUT, dispatch};

fn main() {
    let _ = color_eyre::config::HookBuilder::default()
        .display_env_section(false)
        .install();
    let cli = Cli::parse();
    let code = match dispatch(cli) {
        Ok(code) => code,
        Err(err) => {
            let text = format!("{err:#}");
            eprintln!("error: {}", mastor::text::escape_controls(&text));
            EXIT_INPUT
        }
    };
    std::process::exit(code);
}
