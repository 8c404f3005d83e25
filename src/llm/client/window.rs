//! The model's context window: configured, else asked of the server once per role.
//!
//! llama.cpp's server tells it in `GET /props` (`default_generation_settings.n_ctx`),
//! vLLM in `GET /v1/models` (`data[].max_model_len`). Hosted providers are not asked
//! (their windows are large and their servers have no such endpoint); a server that does
//! not answer within a few seconds, or answers something else, leaves the window unknown,
//! and prompts are then sent as they are.

use super::LlmClient;
use crate::llm::{Provider, Role, RoleConfig};
use serde_json::Value;
use std::time::Duration;

/// Bound on one probe request.
const PROBE_TIMEOUT: Duration = Duration::from_secs(5);
/// Bound on a probe answer's size; the answers we read are a few KB.
const PROBE_MAX_BYTES: usize = 256 * 1024;

impl LlmClient {
    /// The context window of `role`'s model in tokens, or `None` when unknown.
    pub async fn context_window(&self, role: Role) -> Option<u32> {
        let rc = self.inner.cfg.role(role);
        if let Some(w) = rc.context_window {
            return Some(w);
        }
        if let Some(w) = self.learned_window(role) {
            return Some(w);
        }
        let cell = &self.inner.windows[slot(role)];
        *cell.get_or_init(|| probe(&self.inner.http, rc)).await
    }

    /// Remembers the window a server named in a "context length exceeded" error, for
    /// every later call of `role`; returns it. `None` when the message names none.
    pub fn learn_context_window(&self, role: Role, error: &str) -> Option<u32> {
        let n = window_from_error(error)?;
        if let Ok(mut learned) = self.inner.learned.lock() {
            learned[slot(role)] = Some(n);
        }
        Some(n)
    }

    fn learned_window(&self, role: Role) -> Option<u32> {
        self.inner.learned.lock().ok()?[slot(role)]
    }
}

fn slot(role: Role) -> usize {
    match role {
        Role::Primary => 0,
        Role::Challenger => 1,
        Role::Generator => 2,
        Role::Refiner => 3,
    }
}

/// The window named in an overflow error: OpenAI-style "maximum context length is N
/// tokens" (llama-cpp-python, vLLM) or llama.cpp's "context window of N" / "n_ctx: N".
pub fn window_from_error(error: &str) -> Option<u32> {
    static RE: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(
            r"(?i)(?:maximum context length is|context window of|context length of|n_ctx\W{0,3})\s*(\d{3,7})",
        )
        .expect("pattern compiles")
    });
    RE.captures(error)?.get(1)?.as_str().parse().ok()
}

async fn probe(http: &reqwest::Client, rc: &RoleConfig) -> Option<u32> {
    if matches!(
        rc.provider,
        Provider::Deepseek | Provider::Qwen | Provider::Openai
    ) {
        return None;
    }
    let root = rc.base_url.trim_end_matches('/');
    let server = root.strip_suffix("/v1").unwrap_or(root);
    if let Some(v) = get_json(http, &format!("{server}/props")).await
        && let Some(n) = window_from_props(&v)
    {
        return Some(n);
    }
    let v = get_json(http, &format!("{root}/models")).await?;
    window_from_models(&v)
}

async fn get_json(http: &reqwest::Client, url: &str) -> Option<Value> {
    let mut resp = http
        .get(url)
        .timeout(PROBE_TIMEOUT)
        .send()
        .await
        .ok()?
        .error_for_status()
        .ok()?;
    let mut body = Vec::new();
    let read = async {
        while let Some(chunk) = resp.chunk().await.ok()? {
            body.extend_from_slice(&chunk);
            if body.len() > PROBE_MAX_BYTES {
                return None;
            }
        }
        Some(())
    };
    tokio::time::timeout(PROBE_TIMEOUT, read).await.ok()??;
    serde_json::from_slice(&body).ok()
}

/// `n_ctx` from llama.cpp's `/props`.
pub fn window_from_props(v: &Value) -> Option<u32> {
    let n = v
        .pointer("/default_generation_settings/n_ctx")
        .or_else(|| v.get("n_ctx"))?
        .as_u64()?;
    u32::try_from(n).ok().filter(|n| *n > 0)
}

/// `max_model_len` of the first model in `/v1/models` (vLLM).
pub fn window_from_models(v: &Value) -> Option<u32> {
    let n = v
        .get("data")?
        .as_array()?
        .iter()
        .find_map(|m| m.get("max_model_len").and_then(Value::as_u64))?;
    u32::try_from(n).ok().filter(|n| *n > 0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reads_the_window_from_overflow_errors() {
        let python = "This model's maximum context length is 8192 tokens. However, you \
                      requested 12039 tokens (12031 in the messages, 8 in the completion).";
        assert_eq!(window_from_error(python), Some(8192));
        let cpp = "request (9000 tokens) exceeds the available context size (n_ctx: 4096)";
        assert_eq!(window_from_error(cpp), Some(4096));
        assert_eq!(
            window_from_error("Requested tokens exceed context window of 2048"),
            Some(2048)
        );
        assert_eq!(window_from_error("500 internal error"), None);
    }

    #[test]
    fn reads_llama_cpp_props_and_vllm_models() {
        let props = json!({"default_generation_settings": {"n_ctx": 8192}});
        assert_eq!(window_from_props(&props), Some(8192));
        assert_eq!(window_from_props(&json!({"n_ctx": 4096})), Some(4096));
        assert_eq!(window_from_props(&json!({"other": 1})), None);
        let models = json!({"data": [{"id": "m", "max_model_len": 32768}]});
        assert_eq!(window_from_models(&models), Some(32768));
        assert_eq!(window_from_models(&json!({"data": [{"id": "m"}]})), None);
    }
}
