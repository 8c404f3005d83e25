//! Effective LLM configuration: provider presets, the TOML file, environment variables
//! and command-line flags merged into one [`LlmConfig`] (flags win over the
//! environment, the environment over the file, the file over presets).
//!
//! Keys are read here (from an environment variable or a key file) into a [`Secret`]
//! and never leave it unmasked. This module does no network I/O.

mod args;
mod file;
mod provider;

pub use args::{LayerArgs, LlmArgs};

pub use file::{default_file_text, locate};
pub use provider::{JsonMode, Provider, Quirks};

use crate::llm::Role;
use crate::llm::record::PriceTable;
use crate::llm::secret::Secret;
use file::FileRole;
use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Default of [`LlmConfig::max_response_bytes`]: far above any real answer (a long
/// suite is tens of KB), small enough that a runaway server cannot exhaust memory.
pub const DEFAULT_MAX_RESPONSE_BYTES: u64 = 4 * 1024 * 1024;
/// Default of [`LlmConfig::max_retry_after`], in seconds: providers' usual rate-limit
/// windows fit; an hour-long ban does not stall the run.
pub const DEFAULT_MAX_RETRY_AFTER_SECS: u64 = 60;

/// What went wrong while building the configuration.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("cannot read config file {}: {reason}", file.display())]
    Read { file: PathBuf, reason: String },
    #[error("invalid config file {}:{line}:{column}{}: {message}", file.display(),
        key.as_deref().map(|k| format!(" (key `{k}`)")).unwrap_or_default())]
    Parse {
        file: PathBuf,
        line: usize,
        column: usize,
        key: Option<String>,
        message: String,
    },
    #[error("invalid value for {source_name}: {reason}")]
    Invalid { source_name: String, reason: String },
    #[error("cannot read API key file {} for the {role} model: {reason}", file.display())]
    KeyFile {
        role: &'static str,
        file: PathBuf,
        reason: String,
    },
    #[error(
        "the {role} model has no base URL: provider `custom` needs --base-url, MASTOR_BASE_URL or base_url in the config file"
    )]
    NoBaseUrl { role: &'static str },
}

/// Settings of one role (primary or challenger).
#[derive(Debug, Clone, PartialEq)]
pub struct RoleConfig {
    pub provider: Provider,
    /// The `/v1` root; `/chat/completions` is appended.
    pub base_url: String,
    pub model: String,
    pub api_key: Option<Secret>,
    /// Where the key came from (e.g. `env MASTOR_API_KEY`), for `config show`.
    pub key_source: Option<String>,
    /// Reasoning ("thinking") mode; off by default for generation.
    pub thinking: bool,
    /// Stream answers (SSE) for live token counts.
    pub stream: bool,
    pub json_mode: JsonMode,
    pub seed: Option<u64>,
    pub temperature: f32,
    /// The model's context window in tokens (prompt + answer). Prompts that would not fit
    /// are shrunk before sending (see `agents::fit`), never truncated by the server.
    /// `None`: asked of the server (`/props`, `/v1/models`) on first use, else unknown.
    pub context_window: Option<u32>,
}

impl RoleConfig {
    /// Defaults of a provider preset (no key).
    pub fn preset(provider: Provider, base_url: impl Into<String>) -> Self {
        Self {
            provider,
            base_url: base_url.into(),
            model: provider.default_model().to_string(),
            api_key: None,
            key_source: None,
            thinking: false,
            stream: provider.default_stream(),
            json_mode: provider.quirks().json_mode,
            seed: provider.quirks().seed.then_some(42),
            temperature: 0.0,
            context_window: None,
        }
    }
}

/// Whether the response cache is read and written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CacheMode {
    /// Read hits, write new answers.
    #[default]
    Normal,
    /// Neither read nor write.
    Off,
    /// Do not read, but write (re-ask the model and replace cached answers).
    Refresh,
}

/// The effective configuration of the LLM layer.
#[derive(Debug, Clone, PartialEq)]
pub struct LlmConfig {
    pub primary: RoleConfig,
    pub challenger: RoleConfig,
    /// ARMeta's generator layer; by default the primary's settings.
    pub generator: RoleConfig,
    /// ARMeta's refiner layer; by default the challenger's settings.
    pub refiner: RoleConfig,
    /// Calls in flight at once across all clones of one client.
    pub concurrency: usize,
    /// Attempts per call, first try included.
    pub max_attempts: u32,
    /// Per-attempt timeout: a wall-clock deadline for the whole exchange, a streamed
    /// answer included, so a server that trickles bytes cannot hold a call forever.
    pub timeout: Duration,
    /// Largest answer read (plain body or whole stream, in bytes); a larger one fails the
    /// call instead of growing memory without bound.
    pub max_response_bytes: u64,
    /// Longest `Retry-After` waited for; a longer one fails the call at once rather than
    /// stalling the run silently.
    pub max_retry_after: Duration,
    pub backoff_base: Duration,
    pub backoff_max: Duration,
    pub cache: CacheMode,
    /// Cache directory; `None` uses the user cache dir from `directories`.
    pub cache_dir: Option<PathBuf>,
    pub prices: PriceTable,
    /// The config file that was read, if any.
    pub source_file: Option<PathBuf>,
}

impl LlmConfig {
    /// A configuration for one base URL used by both roles (tests, local servers).
    /// The response cache is off: set `cache` and `cache_dir` to use one, so that tests
    /// never write into the user's cache directory by accident.
    pub fn for_base_url(provider: Provider, base_url: impl Into<String>, model: &str) -> Self {
        let mut role = RoleConfig::preset(provider, base_url);
        role.model = model.to_string();
        Self {
            challenger: role.clone(),
            generator: role.clone(),
            refiner: role.clone(),
            primary: role,
            concurrency: 4,
            max_attempts: 4,
            timeout: Duration::from_secs(120),
            max_response_bytes: DEFAULT_MAX_RESPONSE_BYTES,
            max_retry_after: Duration::from_secs(DEFAULT_MAX_RETRY_AFTER_SECS),
            backoff_base: Duration::from_millis(500),
            backoff_max: Duration::from_secs(30),
            cache: CacheMode::Off,
            cache_dir: None,
            prices: PriceTable::default(),
            source_file: None,
        }
    }

    /// The settings of `role`.
    pub fn role(&self, role: Role) -> &RoleConfig {
        match role {
            Role::Primary => &self.primary,
            Role::Challenger => &self.challenger,
            Role::Generator => &self.generator,
            Role::Refiner => &self.refiner,
        }
    }

    /// The process environment as a map, for [`LlmConfig::resolve`].
    pub fn process_env() -> HashMap<String, String> {
        std::env::vars().collect()
    }

    /// Merges presets, the config file (`file`, else the located default), `env` and
    /// `args`. A missing default file is fine; a missing named file is an error.
    pub fn resolve(
        file: Option<&Path>,
        env: &HashMap<String, String>,
        args: &LlmArgs,
    ) -> Result<LlmConfig, ConfigError> {
        let located = match file {
            Some(p) => Some((p.to_path_buf(), true)),
            None => locate(env),
        };
        let (root, source_file) = match &located {
            Some((path, explicit)) => match file::load(path, *explicit)? {
                Some(root) => (root, Some(path.clone())),
                None => (file::FileRoot::default(), None),
            },
            None => (file::FileRoot::default(), None),
        };
        let f = root.llm;
        let get = |k: &str| env.get(k).filter(|v| !v.trim().is_empty()).cloned();

        let flags = |role: Role| match role {
            Role::Primary => RoleFlags {
                provider: args.provider,
                base_url: args.base_url.clone(),
                model: args.model.clone(),
                key_env: args.api_key_env.clone(),
                window: args.context_window,
            },
            Role::Challenger => RoleFlags {
                provider: args.challenger_provider,
                base_url: args.challenger_base_url.clone(),
                model: args.challenger_model.clone(),
                key_env: args.challenger_api_key_env.clone(),
                window: args.challenger_context_window,
            },
            Role::Generator => RoleFlags {
                provider: args.layers.generator_provider,
                base_url: args.layers.generator_base_url.clone(),
                model: args.layers.generator_model.clone(),
                key_env: None,
                window: None,
            },
            Role::Refiner => RoleFlags {
                provider: args.layers.refiner_provider,
                base_url: args.layers.refiner_base_url.clone(),
                model: args.layers.refiner_model.clone(),
                key_env: None,
                window: None,
            },
        };
        let inputs = |role: Role| role_inputs(role, flags(role), &get);
        let primary = resolve_role(Role::Primary, inputs(Role::Primary)?, &f.primary, None, env)?;
        let challenger = resolve_role(
            Role::Challenger,
            inputs(Role::Challenger)?,
            &f.challenger,
            Some(&primary),
            env,
        )?;
        let generator = resolve_role(
            Role::Generator,
            inputs(Role::Generator)?,
            &f.generator,
            Some(&primary),
            env,
        )?;
        let refiner = resolve_role(
            Role::Refiner,
            inputs(Role::Refiner)?,
            &f.refiner,
            Some(&challenger),
            env,
        )?;

        let mut prices = PriceTable::default();
        for (model, price) in f.prices {
            prices.set(model, price);
        }
        let cache = if args.no_cache || f.cache == Some(false) {
            CacheMode::Off
        } else if args.refresh {
            CacheMode::Refresh
        } else {
            CacheMode::Normal
        };
        let positive = |name: &str, v: u64| {
            if v == 0 {
                Err(ConfigError::Invalid {
                    source_name: name.to_string(),
                    reason: "must be at least 1".into(),
                })
            } else {
                Ok(v)
            }
        };
        Ok(LlmConfig {
            primary,
            challenger,
            generator,
            refiner,
            concurrency: positive(
                "concurrency",
                args.concurrency.or(f.concurrency).unwrap_or(4) as u64,
            )? as usize,
            max_attempts: positive(
                "max_attempts",
                u64::from(args.max_attempts.or(f.max_attempts).unwrap_or(4)),
            )? as u32,
            timeout: Duration::from_secs(positive(
                "timeout",
                args.timeout.or(f.timeout_secs).unwrap_or(120),
            )?),
            max_response_bytes: args
                .max_response_bytes
                .or(f.max_response_bytes)
                .map(|v| at_least("max_response_bytes", v, 1024))
                .transpose()?
                .unwrap_or(DEFAULT_MAX_RESPONSE_BYTES),
            max_retry_after: Duration::from_secs(
                args.max_retry_after
                    .or(f.max_retry_after_secs)
                    .unwrap_or(DEFAULT_MAX_RETRY_AFTER_SECS),
            ),
            backoff_base: Duration::from_millis(f.backoff_base_ms.unwrap_or(500)),
            backoff_max: Duration::from_millis(f.backoff_max_ms.unwrap_or(30_000)),
            cache,
            cache_dir: f.cache_dir,
            prices,
            source_file,
        })
    }

    /// The effective configuration as TOML-like text, keys masked (`mastor config show`).
    pub fn render(&self) -> String {
        let mut out = String::new();
        let src = self
            .source_file
            .as_ref()
            .map(|p| p.display().to_string())
            .unwrap_or_else(|| "(none: presets, environment and flags only)".into());
        let _ = writeln!(out, "# config file: {src}");
        let _ = writeln!(out, "[llm]");
        let _ = writeln!(out, "concurrency = {}", self.concurrency);
        let _ = writeln!(out, "max_attempts = {}", self.max_attempts);
        let _ = writeln!(out, "timeout_secs = {}", self.timeout.as_secs());
        let _ = writeln!(out, "max_response_bytes = {}", self.max_response_bytes);
        let _ = writeln!(
            out,
            "max_retry_after_secs = {}",
            self.max_retry_after.as_secs()
        );
        let _ = writeln!(out, "backoff_base_ms = {}", self.backoff_base.as_millis());
        let _ = writeln!(out, "backoff_max_ms = {}", self.backoff_max.as_millis());
        let cache = match self.cache {
            CacheMode::Normal => "on",
            CacheMode::Off => "off",
            CacheMode::Refresh => "refresh",
        };
        let _ = writeln!(out, "cache = \"{cache}\"");
        if let Some(d) = &self.cache_dir {
            let _ = writeln!(out, "cache_dir = \"{}\"", d.display());
        }
        for role in Role::ALL {
            let (name, r) = (role.as_str(), self.role(role));
            let _ = writeln!(out, "\n[llm.{name}]");
            let _ = writeln!(out, "provider = \"{}\"", r.provider);
            let _ = writeln!(out, "base_url = \"{}\"", r.base_url);
            let _ = writeln!(out, "model = \"{}\"", r.model);
            let key = match (&r.api_key, &r.key_source) {
                (Some(k), Some(s)) => format!("\"{k}\"   # from {s}"),
                (Some(k), None) => format!("\"{k}\""),
                (None, _) => {
                    "\"\"   # none set (MASTOR_API_KEY, api_key_env or api_key_file)".into()
                }
            };
            let _ = writeln!(out, "api_key = {key}");
            let _ = writeln!(out, "thinking = {}", r.thinking);
            let _ = writeln!(out, "stream = {}", r.stream);
            let _ = writeln!(out, "json_mode = \"{}\"", r.json_mode.as_str());
            if let Some(s) = r.seed {
                let _ = writeln!(out, "seed = {s}");
            }
            let _ = writeln!(out, "temperature = {}", r.temperature);
            if let Some(w) = r.context_window {
                let _ = writeln!(out, "context_window = {w}");
            }
        }
        for (model, p) in self.prices.iter() {
            let _ = writeln!(out, "\n[llm.prices.\"{model}\"]");
            let _ = writeln!(out, "input_cache_hit = {}", p.input_cache_hit);
            let _ = writeln!(out, "input_cache_miss = {}", p.input_cache_miss);
            let _ = writeln!(out, "output = {}", p.output);
        }
        out
    }
}

fn at_least(name: &str, v: u64, min: u64) -> Result<u64, ConfigError> {
    if v < min {
        return Err(ConfigError::Invalid {
            source_name: name.to_string(),
            reason: format!("must be at least {min}"),
        });
    }
    Ok(v)
}

fn parse_window(source: &str, v: &str) -> Result<u32, ConfigError> {
    match v.trim().parse::<u32>() {
        Ok(n) if n >= 256 => Ok(n),
        _ => Err(ConfigError::Invalid {
            source_name: source.to_string(),
            reason: format!("{v:?} is not a context window in tokens (a number, at least 256)"),
        }),
    }
}

fn parse_provider(source: &str, v: &str) -> Result<Provider, ConfigError> {
    v.parse().map_err(|reason| ConfigError::Invalid {
        source_name: source.to_string(),
        reason,
    })
}

/// The flags of one role, before the environment is consulted.
struct RoleFlags {
    provider: Option<Provider>,
    base_url: Option<String>,
    model: Option<String>,
    key_env: Option<String>,
    window: Option<u32>,
}

/// The environment variables of one role: `MASTOR_X`, `MASTOR_CHALLENGER_X`,
/// `MASTOR_GENERATOR_X`, `MASTOR_REFINER_X`.
fn env_names(role: Role) -> [&'static str; 5] {
    match role {
        Role::Primary => [
            "MASTOR_PROVIDER",
            "MASTOR_BASE_URL",
            "MASTOR_MODEL",
            "MASTOR_API_KEY",
            "MASTOR_CONTEXT_WINDOW",
        ],
        Role::Challenger => [
            "MASTOR_CHALLENGER_PROVIDER",
            "MASTOR_CHALLENGER_BASE_URL",
            "MASTOR_CHALLENGER_MODEL",
            "MASTOR_CHALLENGER_API_KEY",
            "MASTOR_CHALLENGER_CONTEXT_WINDOW",
        ],
        Role::Generator => [
            "MASTOR_GENERATOR_PROVIDER",
            "MASTOR_GENERATOR_BASE_URL",
            "MASTOR_GENERATOR_MODEL",
            "MASTOR_GENERATOR_API_KEY",
            "MASTOR_GENERATOR_CONTEXT_WINDOW",
        ],
        Role::Refiner => [
            "MASTOR_REFINER_PROVIDER",
            "MASTOR_REFINER_BASE_URL",
            "MASTOR_REFINER_MODEL",
            "MASTOR_REFINER_API_KEY",
            "MASTOR_REFINER_CONTEXT_WINDOW",
        ],
    }
}

/// Merges a role's flags over its environment variables.
fn role_inputs(
    role: Role,
    flags: RoleFlags,
    get: &impl Fn(&str) -> Option<String>,
) -> Result<RoleInputs, ConfigError> {
    let [provider, base_url, model, key, window] = env_names(role);
    Ok(RoleInputs {
        provider: flags
            .provider
            .map(Ok)
            .or_else(|| get(provider).map(|v| parse_provider(provider, &v)))
            .transpose()?,
        base_url: flags.base_url.or_else(|| get(base_url)),
        model: flags.model.or_else(|| get(model)),
        key_env_flag: flags.key_env,
        key_env_var: key,
        context_window: flags
            .window
            .map(Ok)
            .or_else(|| get(window).map(|v| parse_window(window, &v)))
            .transpose()?,
    })
}

/// Flag and environment values of one role, already merged (flag over env).
struct RoleInputs {
    provider: Option<Provider>,
    base_url: Option<String>,
    model: Option<String>,
    key_env_flag: Option<String>,
    key_env_var: &'static str,
    context_window: Option<u32>,
}

fn resolve_role(
    role: Role,
    inp: RoleInputs,
    f: &FileRole,
    fallback: Option<&RoleConfig>,
    env: &HashMap<String, String>,
) -> Result<RoleConfig, ConfigError> {
    let get = |k: &str| env.get(k).filter(|v| !v.trim().is_empty()).cloned();
    let provider = inp
        .provider
        .or(f.provider)
        .or(fallback.map(|p| p.provider))
        .unwrap_or(Provider::Deepseek);
    // The challenger inherits the primary's settings only while it uses the same provider.
    let inherit = fallback.filter(|p| p.provider == provider);
    let base_url = inp
        .base_url
        .or_else(|| f.base_url.clone())
        .or_else(|| inherit.map(|p| p.base_url.clone()))
        .or_else(|| provider.default_base_url().map(str::to_string))
        .ok_or(ConfigError::NoBaseUrl {
            role: role.as_str(),
        })?;
    let mut rc = RoleConfig::preset(provider, base_url.trim_end_matches('/'));
    if let Some(m) = inp
        .model
        .or_else(|| f.model.clone())
        .or_else(|| inherit.map(|p| p.model.clone()))
    {
        rc.model = m;
    }
    let from = |p: Option<&RoleConfig>, pick: fn(&RoleConfig) -> bool| p.map(pick);
    rc.thinking = f
        .thinking
        .or(from(inherit, |p| p.thinking))
        .unwrap_or(false);
    rc.stream = f
        .stream
        .or(from(inherit, |p| p.stream))
        .unwrap_or(rc.stream);
    rc.json_mode = f
        .json_mode
        .or(inherit.map(|p| p.json_mode))
        .unwrap_or(rc.json_mode);
    rc.seed = f.seed.or(inherit.and_then(|p| p.seed)).or(rc.seed);
    rc.temperature = f
        .temperature
        .or(inherit.map(|p| p.temperature))
        .unwrap_or(0.0);
    // The window belongs to a server: inherited only when the challenger uses the same one.
    rc.context_window = inp.context_window.or(f.context_window).or(inherit
        .filter(|p| p.base_url == rc.base_url)
        .and_then(|p| p.context_window));

    // Key precedence: --api-key-env NAME > MASTOR_[CHALLENGER_]API_KEY > file api_key_env
    // > file api_key_file > the provider's own variable > the primary's key.
    let mut key: Option<(Secret, String)> = None;
    if let Some(name) = &inp.key_env_flag {
        key = get(name).map(|v| (Secret::new(v), format!("env {name} (--api-key-env)")));
    }
    if key.is_none() {
        key = get(inp.key_env_var).map(|v| (Secret::new(v), format!("env {}", inp.key_env_var)));
    }
    if key.is_none()
        && let Some(name) = &f.api_key_env
    {
        key = get(name).map(|v| (Secret::new(v), format!("env {name}")));
    }
    if key.is_none()
        && let Some(path) = &f.api_key_file
    {
        let path = expand_home(path, env);
        let text = std::fs::read_to_string(&path).map_err(|e| ConfigError::KeyFile {
            role: role.as_str(),
            file: path.clone(),
            reason: e.to_string(),
        })?;
        key = Some((Secret::new(text), format!("file {}", path.display())));
    }
    if key.is_none()
        && let Some(name) = provider.default_key_env()
    {
        key = get(name).map(|v| (Secret::new(v), format!("env {name}")));
    }
    if key.is_none()
        && let Some(p) = inherit
    {
        key = p
            .api_key
            .clone()
            .map(|k| (k, "the primary's key".to_string()));
    }
    if let Some((k, src)) = key.filter(|(k, _)| !k.is_empty()) {
        rc.api_key = Some(k);
        rc.key_source = Some(src);
    }
    Ok(rc)
}

fn expand_home(path: &Path, env: &HashMap<String, String>) -> PathBuf {
    match (path.strip_prefix("~"), env.get("HOME")) {
        (Ok(rest), Some(home)) => Path::new(home).join(rest),
        _ => path.to_path_buf(),
    }
}

#[cfg(test)]
mod tests;
