//! `mastor metamorphic-unique SESSION...`: how many semantically unique metamorphic
//! tests the given sessions generated, grouped by ARMeta's title slug
//! (`metamorphic::unique`). `mastor compare` prints the same count under its table; this
//! command adds `--json` with the groups and `--groups` to list them.

use crate::cli::{EXIT_INPUT, EXIT_OK};
use crate::metamorphic::unique::{UniqueTests, count, session_titles};
use crate::store::{MANIFEST_FILE, Session};
use clap::Args;
use std::path::{Path, PathBuf};

/// Arguments of `mastor metamorphic-unique`.
#[derive(Debug, Args)]
#[command(
    after_help = "Example:\n  mastor metamorphic-unique run1/.mastor run2/.mastor run3/.mastor"
)]
pub struct UniqueArgs {
    /// Session directories whose metamorphic tests are grouped together.
    #[arg(required = true)]
    pub sessions: Vec<PathBuf>,
    /// Print the counts and groups as JSON.
    #[arg(long)]
    pub json: bool,
    /// List every slug group with its size.
    #[arg(long)]
    pub groups: bool,
}

/// Reads every session's titles and groups them.
pub fn of_dirs(dirs: &[PathBuf]) -> color_eyre::Result<UniqueTests> {
    let mut per_session = Vec::with_capacity(dirs.len());
    for dir in dirs {
        per_session.push(titles_of(dir)?);
    }
    Ok(count(&per_session))
}

fn titles_of(dir: &Path) -> color_eyre::Result<Vec<String>> {
    if !dir.join(MANIFEST_FILE).is_file() {
        color_eyre::eyre::bail!(
            "{} is not a mastor session (no {MANIFEST_FILE})",
            dir.display()
        );
    }
    Ok(session_titles(&Session::open(dir)?)?)
}

/// The one-line summary.
pub fn line(u: &UniqueTests) -> String {
    format!(
        "semantically unique metamorphic tests across these sessions: {} (of {} generated, \
         by title slug)",
        u.unique, u.titles
    )
}

/// Runs `mastor metamorphic-unique`.
pub fn run(args: UniqueArgs) -> color_eyre::Result<i32> {
    let u = match of_dirs(&args.sessions) {
        Ok(u) => u,
        Err(e) => {
            let text = format!("{e:#}");
            eprintln!(
                "mastor metamorphic-unique: {}",
                crate::text::escape_controls(&text)
            );
            return Ok(EXIT_INPUT);
        }
    };
    if args.json {
        println!("{}", serde_json::to_string_pretty(&u)?);
        return Ok(EXIT_OK);
    }
    println!("{}", line(&u));
    if args.groups {
        for (slug, n) in &u.groups {
            println!("  {n:>3}  {}", crate::text::escape_controls(slug));
        }
    }
    Ok(EXIT_OK)
}
