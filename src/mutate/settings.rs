//! `mutation/options.json`: the options a session's last `mastor mutate` ran with, so a
//! regeneration round (and the workbench) re-runs its mutants the same way.

use super::analysis::Options;
use super::build::BUILD_TIMEOUT;
use super::encoding::Encoding;
use crate::mutate::error::MutateError;
use crate::suite::Only;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The options a session's last `mastor mutate` ran with (`mutation/options.json`), so
/// a regeneration round re-runs its mutants the same way.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Settings {
    pub project: Option<PathBuf>,
    pub spec: Option<PathBuf>,
    /// `--only all` (else the default, accepted oracles).
    pub all: bool,
    pub ops: Vec<String>,
    pub files: Vec<String>,
    pub operators: Vec<super::Operator>,
    pub max_mutants: Option<usize>,
    pub seed: u64,
    pub in_diff: Option<PathBuf>,
    pub build: Option<String>,
    /// `--classpath`, resolved to absolute entries (absent in files written before it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub classpath: Option<String>,
    pub start: Option<String>,
    pub ready: String,
    pub ready_timeout_s: f64,
    pub timeout_s: Option<f64>,
    pub jobs: usize,
    pub request_timeout_s: f64,
    /// `--build-timeout` (absent in files written before it existed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub build_timeout_s: Option<f64>,
    /// `--encoding` (absent: UTF-8).
    #[serde(default, skip_serializing_if = "is_utf8")]
    pub encoding: Encoding,
}

fn is_utf8(e: &Encoding) -> bool {
    *e == Encoding::Utf8
}

/// `options.json` in a results directory.
pub const SETTINGS_FILE: &str = "options.json";

impl Settings {
    pub fn of(opts: &Options) -> Self {
        Settings {
            project: opts.project.clone(),
            spec: opts.spec.clone(),
            all: opts.only == Some(Only::All),
            ops: opts.ops.clone(),
            files: opts.files.clone(),
            operators: opts.operators.clone(),
            max_mutants: opts.max_mutants,
            seed: opts.seed,
            in_diff: opts.in_diff.clone(),
            build: opts.build.clone(),
            classpath: opts.classpath.clone(),
            start: opts.start.clone(),
            ready: opts.ready.clone(),
            ready_timeout_s: opts.ready_timeout.as_secs_f64(),
            timeout_s: opts.timeout.map(|t| t.as_secs_f64()),
            jobs: opts.jobs,
            request_timeout_s: opts.request_timeout.as_secs_f64(),
            build_timeout_s: Some(opts.build_timeout.as_secs_f64()),
            encoding: opts.encoding,
        }
    }

    /// The options for `input` (a session) with these settings.
    pub fn options(&self, input: PathBuf) -> Options {
        Options {
            project: self.project.clone(),
            spec: self.spec.clone(),
            only: self.all.then_some(Only::All),
            ops: self.ops.clone(),
            files: self.files.clone(),
            operators: self.operators.clone(),
            max_mutants: self.max_mutants,
            seed: self.seed,
            in_diff: self.in_diff.clone(),
            build: self.build.clone(),
            classpath: self.classpath.clone(),
            start: self.start.clone(),
            ready: self.ready.clone(),
            ready_timeout: Duration::from_secs_f64(self.ready_timeout_s),
            timeout: self.timeout_s.map(Duration::from_secs_f64),
            jobs: self.jobs,
            request_timeout: Duration::from_secs_f64(self.request_timeout_s),
            build_timeout: self
                .build_timeout_s
                .filter(|s| s.is_finite() && *s > 0.0)
                .map_or(BUILD_TIMEOUT, Duration::from_secs_f64),
            encoding: self.encoding,
            ..Options::for_session(input)
        }
    }

    /// Reads `dir/options.json`; `None` when absent.
    pub fn read(dir: &Path) -> Result<Option<Settings>, MutateError> {
        let path = dir.join(SETTINGS_FILE);
        if !path.exists() {
            return Ok(None);
        }
        let text = std::fs::read_to_string(&path).map_err(|e| MutateError::io("read", &path, e))?;
        serde_json::from_str(&text)
            .map(Some)
            .map_err(|e| MutateError::parse(&path, None, e))
    }

    /// Records the settings in `dir/options.json` (with the one settings writer:
    /// atomic, the old file kept when the write fails).
    pub fn write(&self, dir: &Path) -> Result<(), MutateError> {
        Ok(crate::store::settings_file::write_json(
            &dir.join(SETTINGS_FILE),
            self,
        )?)
    }
}
