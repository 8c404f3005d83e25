//! `mastor prompts`: list the agent prompts, print one, or copy them all into a directory
//! so a tester can tune them and pass the directory back with `--prompts DIR`.

use crate::cli::EXIT_OK;
use crate::prompts::EMBEDDED;
use clap::{Args, Subcommand};
use color_eyre::eyre::{WrapErr, bail};
use std::path::PathBuf;

/// Arguments of `mastor prompts`.
#[derive(Debug, Args)]
#[command(
    after_help = "Example:\n  mastor prompts export my-prompts && $EDITOR my-prompts/single_op.md"
)]
pub struct PromptsArgs {
    #[command(subcommand)]
    pub action: PromptsAction,
}

/// What to do with the prompts.
#[derive(Debug, Subcommand)]
pub enum PromptsAction {
    /// List the agent prompts embedded in this binary.
    List,
    /// Print one prompt as embedded.
    Show { name: String },
    /// Write every embedded prompt into DIR (existing files are kept unless --force).
    Export {
        dir: PathBuf,
        #[arg(long)]
        force: bool,
    },
}

/// Runs `mastor prompts`.
pub fn run(args: PromptsArgs) -> color_eyre::Result<i32> {
    match args.action {
        PromptsAction::List => {
            for (name, text) in EMBEDDED {
                let first = text.lines().next().unwrap_or_default();
                println!("{name:<22} {first}");
            }
        }
        PromptsAction::Show { name } => match EMBEDDED.iter().find(|(n, _)| *n == name) {
            Some((_, text)) => print!("{text}"),
            None => {
                let names: Vec<&str> = EMBEDDED.iter().map(|(n, _)| *n).collect();
                bail!("no prompt named '{name}'; known: {}", names.join(", "));
            }
        },
        PromptsAction::Export { dir, force } => {
            std::fs::create_dir_all(&dir)
                .wrap_err_with(|| format!("cannot create {}", dir.display()))?;
            let (mut written, mut kept) = (0, 0);
            for (name, text) in EMBEDDED {
                let path = dir.join(format!("{name}.md"));
                if path.exists() && !force {
                    kept += 1;
                    continue;
                }
                std::fs::write(&path, text)
                    .wrap_err_with(|| format!("cannot write {}", path.display()))?;
                written += 1;
            }
            println!(
                "wrote {written} prompts to {} ({kept} existing kept; --force overwrites)",
                dir.display()
            );
        }
    }
    Ok(EXIT_OK)
}
