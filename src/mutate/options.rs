//! The options of one mutation analysis, and their defaults, held once: `mastor mutate`'s
//! clap defaults are these constants, [`Options::for_session`] starts every caller from
//! them, the workbench's run popup converts its settings with [`Options::for_workbench`]
//! and `mutation/options.json` ([`super::settings::Settings`]) replays them.

use super::encoding::Encoding;
use super::mutants::Shard;
use crate::suite::Only;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Path requested until the API answers after a start (`--ready`).
pub const READY_PATH: &str = "/";
/// Longest wait for the API to answer after a start, in seconds (`--ready-timeout`).
pub const READY_TIMEOUT_SECS: f64 = 30.0;
/// Per-request timeout of the suite runs, in seconds (`--request-timeout`).
pub const REQUEST_TIMEOUT_SECS: f64 = 5.0;
/// Mutants run at once, each on its own server (`--jobs`): two fit a small machine.
pub const JOBS: usize = 2;
/// Longest wait for one build, in seconds (`--build-timeout`).
pub const BUILD_TIMEOUT_SECS: f64 = super::build::BUILD_TIMEOUT.as_secs_f64();
/// Seed of the `--max-mutants` sample (`--seed`).
pub const SEED: u64 = 0;
/// The Java sources' encoding (`--encoding`), as the flag spells it.
pub const ENCODING: &str = "UTF-8";

/// What to analyse and how; the CLI's flags, one to one.
#[derive(Debug, Clone)]
pub struct Options {
    /// A session directory or a suite file.
    pub input: PathBuf,
    /// The Java project (a session's own project when `None`).
    pub project: Option<PathBuf>,
    /// The spec, for a suite file's bundles (found in the project when `None`).
    pub spec: Option<PathBuf>,
    pub only: Option<Only>,
    pub ops: Vec<String>,
    /// Globs over project-relative paths choosing the files to mutate.
    pub files: Vec<String>,
    /// Only these operators (all when empty).
    pub operators: Vec<super::Operator>,
    pub max_mutants: Option<usize>,
    pub seed: u64,
    pub in_diff: Option<PathBuf>,
    pub shard: Option<Shard>,
    pub build: Option<String>,
    /// `--classpath`: the project's dependencies (entries joined by `:`, or `@FILE`).
    pub classpath: Option<String>,
    pub start: Option<String>,
    pub ready: String,
    pub ready_timeout: Duration,
    pub timeout: Option<Duration>,
    pub jobs: usize,
    pub request_timeout: Duration,
    /// Longest wait for one build (`--build-timeout`).
    pub build_timeout: Duration,
    /// The Java sources' encoding (`--encoding`).
    pub encoding: Encoding,
    /// Results directory (a session's `mutation/` when `None`).
    pub out: Option<PathBuf>,
    /// Run only these mutants (a regeneration round's targets); the others keep their
    /// stored runs. `None`: every mutant.
    pub only_mutants: Option<BTreeSet<String>>,
    /// Oracles (o_ids) counted besides those `only` selects: a round's new, not yet
    /// reviewed oracles.
    pub extra_oracles: BTreeSet<String>,
}

impl Options {
    /// The defaults for `input` (a session directory or a suite file): every mutant of
    /// the files the suite's operations reach, the review's default scope, the session's
    /// own project and results directory, and the timeouts and parallelism above.
    pub fn for_session(input: impl Into<PathBuf>) -> Options {
        Options {
            input: input.into(),
            project: None,
            spec: None,
            only: None,
            ops: Vec::new(),
            files: Vec::new(),
            operators: Vec::new(),
            max_mutants: None,
            seed: SEED,
            in_diff: None,
            shard: None,
            build: None,
            classpath: None,
            start: None,
            ready: READY_PATH.to_string(),
            ready_timeout: Duration::from_secs_f64(READY_TIMEOUT_SECS),
            timeout: None,
            jobs: JOBS,
            request_timeout: Duration::from_secs_f64(REQUEST_TIMEOUT_SECS),
            build_timeout: super::build::BUILD_TIMEOUT,
            encoding: Encoding::Utf8,
            out: None,
            only_mutants: None,
            extra_oracles: BTreeSet::new(),
        }
    }

    /// The options of a run started from the workbench: the defaults, on `project` (the
    /// one the workbench shows sources from; an imported session records none), with
    /// what its run popup asks for. A blank command means the default one.
    pub fn for_workbench(
        session_dir: &Path,
        project: &Path,
        start: &str,
        build: &str,
        max_mutants: Option<usize>,
        only: Only,
    ) -> Options {
        let cmd = |c: &str| (!c.trim().is_empty()).then(|| c.trim().to_string());
        Options {
            project: Some(project.to_path_buf()),
            only: Some(only),
            max_mutants,
            build: cmd(build),
            start: cmd(start),
            ..Options::for_session(session_dir)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_defaults_are_the_constants() {
        let o = Options::for_session("/s");
        assert_eq!(o.input, PathBuf::from("/s"));
        assert_eq!((o.ready.as_str(), o.jobs, o.seed), ("/", 2, 0));
        assert_eq!(o.ready_timeout, Duration::from_secs(30));
        assert_eq!(o.request_timeout, Duration::from_secs(5));
        assert_eq!(o.build_timeout, Duration::from_secs(600));
        assert_eq!(ENCODING.parse::<Encoding>().unwrap(), o.encoding);
        assert!(o.project.is_none() && o.only.is_none() && o.max_mutants.is_none());
    }

    #[test]
    fn workbench_settings_override_only_what_the_popup_asks() {
        let o = Options::for_workbench(
            Path::new("/s"),
            Path::new("/p"),
            "  java -jar app.jar {port} ",
            " ",
            Some(20),
            Only::All,
        );
        assert_eq!(o.start.as_deref(), Some("java -jar app.jar {port}"));
        assert_eq!(o.build, None, "a blank command means the default");
        assert_eq!((o.max_mutants, o.only), (Some(20), Some(Only::All)));
        assert_eq!(o.project.as_deref(), Some(Path::new("/p")));
        let d = Options::for_session("/s");
        assert_eq!((o.jobs, o.ready_timeout), (d.jobs, d.ready_timeout));
    }
}
