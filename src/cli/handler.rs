//! `mastor handler SESSION --op ID ...`: the reviewer's pick of an operation's handler,
//! where the scan and the model disagree (or both are wrong). The pick is journalled in
//! the session (`handler_choices.jsonl`) and the next `mastor run` serves the operation
//! from it, before and over discovery. Without a pick option it lists the operation's
//! recorded conflict. A pick is checked before it is journalled (the operation is the
//! session's, the file is inside the project and declares the method; see
//! `handler_check`), so a wrong one fails now with exit 2 rather than on the next run.

use crate::cli::{EXIT_INPUT, EXIT_OK};
use crate::store::{HandlerPick, HandlerSide, Session, SessionLock};
use clap::{Args, ValueEnum};
use color_eyre::eyre::WrapErr;
use std::path::PathBuf;

/// Text from the session or the command line, safe for the terminal.
fn esc(s: &str) -> String {
    crate::text::escape_controls(s).into_owned()
}

/// Which recorded answer to take.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum PickSide {
    /// The static scan's handler.
    Static,
    /// The model's discovery answer.
    Discovered,
}

impl From<PickSide> for HandlerSide {
    fn from(side: PickSide) -> Self {
        match side {
            PickSide::Static => HandlerSide::Static,
            PickSide::Discovered => HandlerSide::Discovered,
        }
    }
}

/// Arguments of `mastor handler`.
#[derive(Debug, Args)]
#[command(after_help = "Examples:\n  \
    mastor handler .mastor --op 'GET /admin/v1/stats'                   # show the conflict\n  \
    mastor handler .mastor --op 'GET /admin/v1/stats' --pick discovered\n  \
    mastor handler .mastor --op 'GET /x' --file src/main/java/A.java --method list")]
pub struct HandlerArgs {
    /// The session directory.
    pub session: PathBuf,
    /// The operation (`METHOD /path` as the spec writes it).
    #[arg(long)]
    pub op: String,
    /// Take one side of the operation's recorded conflict.
    #[arg(long, value_enum, conflicts_with_all = ["file", "method"])]
    pub pick: Option<PickSide>,
    /// Name the handler directly: its file (relative to the project root) ...
    #[arg(long, requires = "method")]
    pub file: Option<String>,
    /// ... and method.
    #[arg(long, requires = "file")]
    pub method: Option<String>,
    /// The method's line, to tell overloads apart.
    #[arg(long, requires = "file")]
    pub line: Option<usize>,
}

/// Runs `mastor handler`.
pub fn run(args: HandlerArgs) -> color_eyre::Result<i32> {
    let picking = args.pick.is_some() || args.file.is_some();
    // Showing a conflict only reads, so it works beside an open workbench; a pick
    // appends to the session's journal and needs the writer lock.
    let _lock = if picking {
        Some(SessionLock::acquire(&args.session, "mastor handler")?)
    } else {
        None
    };
    let session = Session::open(&args.session)
        .wrap_err_with(|| format!("cannot open session {}", args.session.display()))?;
    let op = esc(&args.op);
    if picking && let Err(e) = super::handler_check::check_op(&session, &args.op) {
        eprintln!("error: {}", esc(&e));
        return Ok(EXIT_INPUT);
    }
    let pick = match (&args.pick, &args.file, &args.method) {
        (Some(side), _, _) => match session.pick_conflict_side(&args.op, (*side).into()) {
            Ok(c) => c.handler,
            Err(e) => {
                eprintln!("error: {}", esc(&e));
                return Ok(EXIT_INPUT);
            }
        },
        (None, Some(file), Some(method)) => {
            if args.line == Some(0) {
                eprintln!("error: --line 0: lines are numbered from 1");
                return Ok(EXIT_INPUT);
            }
            let pick = HandlerPick {
                file: file.clone(),
                method: method.clone(),
                line: args.line.unwrap_or(0),
            };
            let checked = super::handler_check::project_root(&session, file)
                .and_then(|root| super::handler_check::check_pick(&root, &pick));
            if let Err(e) = checked {
                eprintln!("error: {}: {}", op, esc(&e));
                return Ok(EXIT_INPUT);
            }
            session.choose_handler(&args.op, pick.clone())?;
            pick
        }
        _ => {
            let conflicts = session.read_conflicts()?;
            let choices = session.read_handler_choices()?;
            match conflicts.get(&args.op) {
                Some(c) => {
                    let show = |e: &crate::model::EntryRef| {
                        esc(&format!("{}.{} ({}:{})", e.class, e.method, e.file, e.line))
                    };
                    println!("{op}");
                    println!("  static:     {}", show(&c.static_entry));
                    println!("  discovered: {}", show(&c.discovered));
                    println!("  won:        {:?}", c.won);
                    println!("  why:        {}", esc(&c.why));
                }
                None => println!("{op}: no handler conflict recorded"),
            }
            if let Some(ch) = choices.get(&args.op) {
                let h = &ch.handler;
                let text = format!("{}.{} line {} at {}", h.file, h.method, h.line, ch.at);
                println!("  picked:     {}", esc(&text));
            }
            return Ok(EXIT_OK);
        }
    };
    let text = format!("{}.{} (line {})", pick.file, pick.method, pick.line);
    println!("{op}: handler picked: {}; the next run uses it", esc(&text));
    Ok(EXIT_OK)
}
