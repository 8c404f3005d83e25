//! The `--base-url`-style flags every model-calling subcommand shares; merged over the
//! environment and the config file by [`super::LlmConfig::resolve`].

use super::Provider;

/// LLM flags shared by every subcommand that calls a model; use with
/// `#[command(flatten)]`.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct LlmArgs {
    /// Base URL of the OpenAI-compatible API (the `/v1` root) [env: MASTOR_BASE_URL]
    #[arg(long, value_name = "URL")]
    pub base_url: Option<String>,
    /// Model name [env: MASTOR_MODEL]
    #[arg(long, value_name = "NAME")]
    pub model: Option<String>,
    /// Name of the environment variable holding the API key [default: MASTOR_API_KEY]
    #[arg(long, value_name = "VAR")]
    pub api_key_env: Option<String>,
    /// Provider preset [env: MASTOR_PROVIDER]
    #[arg(long, value_enum)]
    pub provider: Option<Provider>,
    /// Base URL of the challenger model [env: MASTOR_CHALLENGER_BASE_URL]
    #[arg(long, value_name = "URL")]
    pub challenger_base_url: Option<String>,
    /// Challenger model name [env: MASTOR_CHALLENGER_MODEL]
    #[arg(long, value_name = "NAME")]
    pub challenger_model: Option<String>,
    /// Environment variable holding the challenger's API key
    #[arg(long, value_name = "VAR")]
    pub challenger_api_key_env: Option<String>,
    /// Challenger provider preset [env: MASTOR_CHALLENGER_PROVIDER]
    #[arg(long, value_enum)]
    pub challenger_provider: Option<Provider>,
    #[command(flatten)]
    pub layers: LayerArgs,
    /// Model calls in flight at once
    #[arg(long, value_name = "N")]
    pub concurrency: Option<usize>,
    /// Attempts per model call, first try included
    #[arg(long, value_name = "N")]
    pub max_attempts: Option<u32>,
    /// Per-attempt timeout of a model call, in seconds
    #[arg(long, value_name = "SECS")]
    pub timeout: Option<u64>,
    /// Largest model answer read, in bytes; a larger one fails the call [default: 4 MiB]
    #[arg(long, value_name = "BYTES")]
    pub max_response_bytes: Option<u64>,
    /// Longest Retry-After waited for, in seconds; a longer one fails the call [default: 60]
    #[arg(long, value_name = "SECS")]
    pub max_retry_after: Option<u64>,
    /// Neither read nor write the response cache
    #[arg(long)]
    pub no_cache: bool,
    /// Ignore cached answers, ask the model again and cache the new answers
    #[arg(long, conflicts_with = "no_cache")]
    pub refresh: bool,
    /// The model's context window in tokens; larger prompts are shrunk before sending
    /// (default: asked of the server) [env: MASTOR_CONTEXT_WINDOW]
    #[arg(long, value_name = "TOKENS")]
    pub context_window: Option<u32>,
    /// The challenger model's context window in tokens [env: MASTOR_CHALLENGER_CONTEXT_WINDOW]
    #[arg(long, value_name = "TOKENS")]
    pub challenger_context_window: Option<u32>,
}

/// The models of ARMeta's two layers (metamorphic tests), shared by `mastor run
/// --metamorphic` (through [`LlmArgs`]) and `mastor metamorphic`, whose own `--base-url`
/// names the API under test.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct LayerArgs {
    /// Provider of ARMeta's generator layer (metamorphic tests; default: the primary's)
    /// [env: MASTOR_GENERATOR_PROVIDER]
    #[arg(long, value_enum)]
    pub generator_provider: Option<Provider>,
    /// Base URL of the generator layer's model [env: MASTOR_GENERATOR_BASE_URL]
    #[arg(long, value_name = "URL")]
    pub generator_base_url: Option<String>,
    /// Generator layer's model name [env: MASTOR_GENERATOR_MODEL]
    #[arg(long, value_name = "NAME")]
    pub generator_model: Option<String>,
    /// Provider of ARMeta's refiner layer (default: the challenger's)
    /// [env: MASTOR_REFINER_PROVIDER]
    #[arg(long, value_enum)]
    pub refiner_provider: Option<Provider>,
    /// Base URL of the refiner layer's model [env: MASTOR_REFINER_BASE_URL]
    #[arg(long, value_name = "URL")]
    pub refiner_base_url: Option<String>,
    /// Refiner layer's model name [env: MASTOR_REFINER_MODEL]
    #[arg(long, value_name = "NAME")]
    pub refiner_model: Option<String>,
}
