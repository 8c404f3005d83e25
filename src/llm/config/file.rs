//! The `[llm]` part of mastor's TOML config file: its serde model, where the file is
//! found, how parse errors name the file, line and key, and the commented default file
//! that `mastor config init` writes. Other top-level tables belong to other parts of
//! mastor and are ignored here; unknown keys inside `[llm]` are errors (typos fail loudly).

use super::{ConfigError, JsonMode, Provider};
use crate::llm::record::Price;
use serde::Deserialize;
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

/// The whole file as far as the LLM layer is concerned.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct FileRoot {
    #[serde(default)]
    pub llm: FileLlm,
}

/// `[llm]`: settings shared by both roles.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct FileLlm {
    pub concurrency: Option<usize>,
    pub max_attempts: Option<u32>,
    pub timeout_secs: Option<u64>,
    pub backoff_base_ms: Option<u64>,
    pub backoff_max_ms: Option<u64>,
    pub max_response_bytes: Option<u64>,
    pub max_retry_after_secs: Option<u64>,
    pub cache: Option<bool>,
    pub cache_dir: Option<PathBuf>,
    #[serde(default)]
    pub primary: FileRole,
    #[serde(default)]
    pub challenger: FileRole,
    /// ARMeta's generator layer (`mastor metamorphic`); falls back to the primary.
    #[serde(default)]
    pub generator: FileRole,
    /// ARMeta's refiner layer; falls back to the challenger.
    #[serde(default)]
    pub refiner: FileRole,
    #[serde(default)]
    pub prices: BTreeMap<String, Price>,
}

/// `[llm.primary]`, `[llm.challenger]`, `[llm.generator]`, `[llm.refiner]`.
#[derive(Debug, Default, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct FileRole {
    pub provider: Option<Provider>,
    pub base_url: Option<String>,
    pub model: Option<String>,
    pub api_key_env: Option<String>,
    pub api_key_file: Option<PathBuf>,
    pub thinking: Option<bool>,
    pub stream: Option<bool>,
    pub json_mode: Option<JsonMode>,
    pub seed: Option<u64>,
    pub temperature: Option<f32>,
    pub context_window: Option<u32>,
}

/// Where the config file is looked for, in order: `MASTOR_CONFIG`,
/// `$XDG_CONFIG_HOME/mastor/config.toml`, then the platform config dir from
/// `directories`. The bool says whether the path was named explicitly (a missing
/// explicit file is an error; a missing default file just means defaults).
pub fn locate(env: &HashMap<String, String>) -> Option<(PathBuf, bool)> {
    if let Some(p) = env.get("MASTOR_CONFIG").filter(|p| !p.is_empty()) {
        return Some((PathBuf::from(p), true));
    }
    if let Some(x) = env.get("XDG_CONFIG_HOME").filter(|p| !p.is_empty()) {
        return Some((Path::new(x).join("mastor").join("config.toml"), false));
    }
    directories::ProjectDirs::from("", "", "mastor")
        .map(|d| (d.config_dir().join("config.toml"), false))
}

/// Reads and parses the file; `Ok(None)` when `explicit` is false and it does not exist.
pub(crate) fn load(path: &Path, explicit: bool) -> Result<Option<FileRoot>, ConfigError> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound && !explicit => return Ok(None),
        Err(e) => {
            return Err(ConfigError::Read {
                file: path.to_path_buf(),
                reason: e.to_string(),
            });
        }
    };
    parse(path, &text).map(Some)
}

/// Parses file text; errors carry the file, 1-based line and column, and the dotted key.
pub(crate) fn parse(path: &Path, text: &str) -> Result<FileRoot, ConfigError> {
    toml::from_str::<FileRoot>(text).map_err(|e| {
        let start = e.span().map(|s| s.start).unwrap_or(0).min(text.len());
        let before = &text[..start];
        let line = before.matches('\n').count() + 1;
        let column = before.len() - before.rfind('\n').map(|i| i + 1).unwrap_or(0) + 1;
        let key = key_at(text, line, e.message());
        ConfigError::Parse {
            file: path.to_path_buf(),
            line,
            column,
            key,
            message: e.message().trim().to_string(),
        }
    })
}

/// The dotted key an error points at: the key on the error's line (or the one named in
/// an "unknown field" message), prefixed with the enclosing `[table]`.
fn key_at(text: &str, line: usize, message: &str) -> Option<String> {
    let lines: Vec<&str> = text.lines().collect();
    let here = lines.get(line.saturating_sub(1)).copied().unwrap_or("");
    let named = message
        .split('`')
        .nth(1)
        .filter(|_| message.starts_with("unknown field"))
        .map(str::to_string);
    let local = named.or_else(|| {
        here.split_once('=')
            .map(|(k, _)| k.trim().trim_matches('"').to_string())
            .filter(|k| !k.is_empty() && !k.starts_with('['))
    });
    let table = lines[..line.saturating_sub(1).min(lines.len())]
        .iter()
        .rev()
        .chain(std::iter::once(&here))
        .find_map(|l| {
            let t = l.trim();
            (t.starts_with('[') && t.ends_with(']'))
                .then(|| t.trim_matches(|c| c == '[' || c == ']').trim().to_string())
        });
    match (table, local) {
        (Some(t), Some(k)) => Some(format!("{t}.{k}")),
        (None, Some(k)) => Some(k),
        (Some(t), None) => Some(t),
        (None, None) => None,
    }
}

/// The commented default file written by `mastor config init`.
pub fn default_file_text() -> String {
    let providers: Vec<&str> = Provider::ALL.iter().map(|p| p.as_str()).collect();
    format!(
        r#"# mastor configuration.
# Precedence: command-line flags > environment variables > this file > provider presets.
# API keys are never stored here in clear: name an environment variable (api_key_env)
# or a file holding the key (api_key_file). MASTOR_API_KEY always works too.

[llm]
# Calls in flight at once, across all agents.
concurrency = 4
# Attempts per call (first try included) on 408/409/429/5xx, timeouts and connect errors.
max_attempts = 4
# Per-attempt timeout in seconds.
timeout_secs = 120
# Exponential backoff with jitter between attempts (Retry-After wins when sent).
backoff_base_ms = 500
backoff_max_ms = 30000
# Largest answer (plain body or whole stream) read from a server; a larger one fails
# the call. Error bodies are read up to 8 KiB only.
max_response_bytes = 4194304
# Longest Retry-After honoured; a server asking for a longer wait fails the call.
max_retry_after_secs = 60
# Response cache: a rerun of an unchanged prompt costs nothing.
cache = true
# cache_dir = "/path/to/cache"   # default: the session's, else the user cache dir

# The generating model. Providers: {providers}.
[llm.primary]
provider = "deepseek"
model = "deepseek-chat"
# base_url = "https://api.deepseek.com/v1"
api_key_env = "DEEPSEEK_API_KEY"
# api_key_file = "~/.config/mastor/deepseek.key"
# thinking = false          # reasoning mode; off for generation
# stream = true             # stream answers for live token counts
# json_mode = "object"      # schema | object_schema | object | none (default: provider's)
# seed = 42
# temperature = 0.0
# context_window = 8192     # tokens; larger prompts are shrunk (default: asked of the server)

# The reviewing model; every key left out falls back to the primary's.
[llm.challenger]
# provider = "qwen"
# model = "qwen-plus"
# api_key_env = "DASHSCOPE_API_KEY"

# Metamorphic tests (ARMeta): the generator layer falls back to the primary, the refiner
# layer to the challenger.
[llm.generator]
# model = "deepseek-chat"
[llm.refiner]
# model = "qwen-plus"

# Prices in USD per million tokens (input cache hit / input cache miss / output).
[llm.prices.deepseek-chat]
input_cache_hit = 0.028
input_cache_miss = 0.28
output = 0.42

[llm.prices.qwen-plus]
input_cache_hit = 0.08
input_cache_miss = 0.4
output = 1.2
"#,
        providers = providers.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_file_parses() {
        let root = parse(Path::new("d.toml"), &default_file_text()).unwrap();
        assert_eq!(root.llm.primary.provider, Some(Provider::Deepseek));
        assert_eq!(root.llm.prices["qwen-plus"].output, 1.2);
    }

    #[test]
    fn bad_type_names_file_line_and_key() {
        let text = "[llm]\nconcurrency = 4\n\n[llm.primary]\nmodel = 7\n";
        let err = parse(Path::new("/x/c.toml"), text).unwrap_err();
        let ConfigError::Parse {
            file, line, key, ..
        } = &err
        else {
            panic!("{err:?}")
        };
        assert_eq!(file, Path::new("/x/c.toml"));
        assert_eq!(*line, 5);
        assert_eq!(key.as_deref(), Some("llm.primary.model"));
        let shown = err.to_string();
        assert!(shown.contains("/x/c.toml:5"), "{shown}");
    }

    #[test]
    fn unknown_key_is_named() {
        let text = "[llm]\nconcurrency = 2\nmax_atempts = 3\n";
        let err = parse(Path::new("c.toml"), text).unwrap_err();
        let ConfigError::Parse { line, key, .. } = &err else {
            panic!("{err:?}")
        };
        assert_eq!(*line, 3);
        assert_eq!(key.as_deref(), Some("llm.max_atempts"));
    }

    #[test]
    fn syntax_error_has_line() {
        let err = parse(Path::new("c.toml"), "[llm]\nconcurrency = = 2\n").unwrap_err();
        let ConfigError::Parse { line, .. } = err else {
            panic!()
        };
        assert_eq!(line, 2);
    }

    #[test]
    fn other_tables_are_ignored() {
        let root = parse(Path::new("c.toml"), "[tui]\ntheme = \"dark\"\n").unwrap();
        assert!(root.llm.primary.provider.is_none());
    }
}
