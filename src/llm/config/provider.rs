//! Named provider presets and the request quirks each one needs. The presets only fill
//! defaults (base URL, model, key variable, JSON mode, thinking switches); every value
//! can still be set in the config file, the environment or on the command line.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// A known OpenAI-compatible provider, or `custom` for any other base URL.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Provider {
    Deepseek,
    Qwen,
    Openai,
    Ollama,
    Vllm,
    Llamacpp,
    Custom,
}

/// How JSON output is requested in `response_format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum JsonMode {
    /// `{"type":"json_schema","json_schema":{...}}` (OpenAI, vLLM, Ollama).
    Schema,
    /// `{"type":"json_object","schema":{...}}`: the form both llama.cpp's own server and
    /// llama-cpp-python's accept (the latter rejects `json_schema`).
    ObjectSchema,
    /// `{"type":"json_object"}` (DeepSeek, DashScope).
    Object,
    /// No `response_format`; the answer is extracted from plain text.
    None,
}

/// Per-provider differences in the request body.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Quirks {
    pub json_mode: JsonMode,
    /// Send `"thinking": {"type": "disabled"}` (DeepSeek thinks by default).
    pub thinking_object: bool,
    /// Send `"enable_thinking": false` (DashScope requires it for non-streaming calls).
    pub enable_thinking_flag: bool,
    /// The word "JSON" must appear in the messages for JSON mode (DashScope, DeepSeek).
    pub needs_json_word: bool,
    /// The provider honours `seed`.
    pub seed: bool,
    /// Streaming answers carry a usage chunk when asked via `stream_options`.
    pub stream_usage: bool,
}

impl JsonMode {
    /// The name as written in config files.
    pub fn as_str(self) -> &'static str {
        match self {
            JsonMode::Schema => "schema",
            JsonMode::ObjectSchema => "object_schema",
            JsonMode::Object => "object",
            JsonMode::None => "none",
        }
    }
}

impl Provider {
    /// All presets, for help texts and the default config file.
    pub const ALL: [Provider; 7] = [
        Provider::Deepseek,
        Provider::Qwen,
        Provider::Openai,
        Provider::Ollama,
        Provider::Vllm,
        Provider::Llamacpp,
        Provider::Custom,
    ];

    /// Lower-case name as written in config files.
    pub fn as_str(self) -> &'static str {
        match self {
            Provider::Deepseek => "deepseek",
            Provider::Qwen => "qwen",
            Provider::Openai => "openai",
            Provider::Ollama => "ollama",
            Provider::Vllm => "vllm",
            Provider::Llamacpp => "llamacpp",
            Provider::Custom => "custom",
        }
    }

    /// Default base URL (the `/v1` root, without `/chat/completions`).
    pub fn default_base_url(self) -> Option<&'static str> {
        match self {
            Provider::Deepseek => Some("https://api.deepseek.com/v1"),
            Provider::Qwen => Some("https://dashscope-intl.aliyuncs.com/compatible-mode/v1"),
            Provider::Openai => Some("https://api.openai.com/v1"),
            Provider::Ollama => Some("http://127.0.0.1:11434/v1"),
            Provider::Vllm => Some("http://127.0.0.1:8000/v1"),
            Provider::Llamacpp => Some("http://127.0.0.1:8080/v1"),
            Provider::Custom => None,
        }
    }

    /// Default model name.
    pub fn default_model(self) -> &'static str {
        match self {
            Provider::Deepseek => "deepseek-chat",
            Provider::Qwen => "qwen-plus",
            Provider::Openai => "gpt-4o-mini",
            Provider::Ollama => "qwen2.5-coder:7b",
            Provider::Vllm | Provider::Llamacpp | Provider::Custom => "local",
        }
    }

    /// The environment variable the provider's own tools read the key from.
    pub fn default_key_env(self) -> Option<&'static str> {
        match self {
            Provider::Deepseek => Some("DEEPSEEK_API_KEY"),
            Provider::Qwen => Some("DASHSCOPE_API_KEY"),
            Provider::Openai => Some("OPENAI_API_KEY"),
            _ => None,
        }
    }

    /// Request-body differences of this provider.
    pub fn quirks(self) -> Quirks {
        let base = Quirks {
            json_mode: JsonMode::Schema,
            thinking_object: false,
            enable_thinking_flag: false,
            needs_json_word: false,
            seed: true,
            stream_usage: true,
        };
        match self {
            Provider::Deepseek => Quirks {
                json_mode: JsonMode::Object,
                thinking_object: true,
                needs_json_word: true,
                seed: false,
                ..base
            },
            Provider::Qwen => Quirks {
                json_mode: JsonMode::Object,
                enable_thinking_flag: true,
                needs_json_word: true,
                ..base
            },
            Provider::Openai | Provider::Ollama | Provider::Vllm => base,
            // llama-cpp-python's server sends no usage chunk when streaming.
            Provider::Llamacpp => Quirks {
                json_mode: JsonMode::ObjectSchema,
                stream_usage: false,
                ..base
            },
            Provider::Custom => Quirks {
                json_mode: JsonMode::Object,
                ..base
            },
        }
    }

    /// Whether answers are streamed by default (live token counts); off where the
    /// server would not report usage when streaming.
    pub fn default_stream(self) -> bool {
        self.quirks().stream_usage
    }

    /// Whether the provider is billed; local servers cost nothing.
    pub fn is_local(self) -> bool {
        matches!(self, Provider::Ollama | Provider::Vllm | Provider::Llamacpp)
    }
}

impl fmt::Display for Provider {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Provider {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let lower = s.trim().to_ascii_lowercase();
        let alias = match lower.as_str() {
            "dashscope" => "qwen",
            "llama.cpp" | "llama-cpp" | "llama_cpp" => "llamacpp",
            other => other,
        };
        Provider::ALL
            .into_iter()
            .find(|p| p.as_str() == alias)
            .ok_or_else(|| {
                let names: Vec<&str> = Provider::ALL.iter().map(|p| p.as_str()).collect();
                format!("unknown provider `{s}` (known: {})", names.join(", "))
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for p in Provider::ALL {
            assert_eq!(p.as_str().parse::<Provider>().unwrap(), p);
        }
        assert_eq!("DashScope".parse::<Provider>().unwrap(), Provider::Qwen);
        assert!("nope".parse::<Provider>().unwrap_err().contains("deepseek"));
    }

    #[test]
    fn json_mode_names_match_serde() {
        for m in [
            JsonMode::Schema,
            JsonMode::ObjectSchema,
            JsonMode::Object,
            JsonMode::None,
        ] {
            assert_eq!(
                serde_json::to_string(&m).unwrap(),
                format!("\"{}\"", m.as_str())
            );
        }
    }

    #[test]
    fn quirks_match_providers() {
        assert_eq!(Provider::Deepseek.quirks().json_mode, JsonMode::Object);
        assert!(Provider::Deepseek.quirks().thinking_object);
        assert!(Provider::Qwen.quirks().enable_thinking_flag);
        assert_eq!(
            Provider::Llamacpp.quirks().json_mode,
            JsonMode::ObjectSchema
        );
        assert_eq!(Provider::Vllm.quirks().json_mode, JsonMode::Schema);
        assert!(!Provider::Openai.quirks().thinking_object);
    }
}
