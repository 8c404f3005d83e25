//! `mastor config`: write a commented default config file, show the effective LLM
//! configuration (keys masked), print where the config file is looked for.

use crate::llm::config::{default_file_text, locate};
use crate::llm::{LlmArgs, LlmConfig};
use clap::{Args, Subcommand};
use color_eyre::eyre::{WrapErr, eyre};
use std::path::PathBuf;

/// Arguments of `mastor config`.
#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  mastor config init\n  MASTOR_API_KEY=sk-... mastor config show --provider deepseek"
)]
pub struct ConfigArgs {
    #[command(subcommand)]
    pub command: ConfigCommand,
}

/// The `config` subcommands.
#[derive(Debug, Subcommand)]
pub enum ConfigCommand {
    /// Write a commented default config file
    Init {
        /// Overwrite an existing file
        #[arg(long)]
        force: bool,
        /// Where to write it [default: MASTOR_CONFIG, else the user config dir]
        #[arg(long, value_name = "FILE")]
        path: Option<PathBuf>,
    },
    /// Print the effective configuration (files, environment and flags merged; keys masked)
    Show {
        /// Config file to read [default: MASTOR_CONFIG, else the user config dir]
        #[arg(long, value_name = "FILE")]
        config: Option<PathBuf>,
        #[command(flatten)]
        llm: Box<LlmArgs>,
    },
    /// Print the path of the config file that would be read
    Path,
}

/// Runs `mastor config ...` and returns the exit code.
pub fn run(args: ConfigArgs) -> color_eyre::Result<i32> {
    let env = LlmConfig::process_env();
    match args.command {
        ConfigCommand::Init { force, path } => {
            let path = path
                .or_else(|| locate(&env).map(|(p, _)| p))
                .ok_or_else(|| eyre!("cannot determine a config directory; pass --path"))?;
            if path.exists() && !force {
                return Err(eyre!(
                    "{} already exists; pass --force to overwrite it",
                    path.display()
                ));
            }
            if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
                std::fs::create_dir_all(dir)
                    .wrap_err_with(|| format!("cannot create {}", dir.display()))?;
            }
            crate::store::settings_file::write_text(&path, &default_file_text())?;
            println!("wrote {}", path.display());
            Ok(super::EXIT_OK)
        }
        ConfigCommand::Show { config, llm } => {
            let cfg = LlmConfig::resolve(config.as_deref(), &env, &llm)?;
            print!("{}", cfg.render());
            Ok(super::EXIT_OK)
        }
        ConfigCommand::Path => {
            match locate(&env) {
                Some((p, _)) => println!("{}", p.display()),
                None => println!("(no config directory)"),
            }
            Ok(super::EXIT_OK)
        }
    }
}
