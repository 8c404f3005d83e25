//! Builds the Chat Completions request body for one role, applying the provider's
//! quirks (JSON mode, thinking switches, seed, streaming usage, the "JSON" word that
//! DashScope and DeepSeek require in JSON mode). Pure functions, no I/O.

use super::Message;
use super::config::{JsonMode, RoleConfig};
use serde_json::{Value, json};

/// The sentence appended when JSON mode needs the word "JSON" in the prompt.
const JSON_WORD_NOTE: &str = "Answer with a single JSON value only.";

/// The messages as they will be sent: for providers that require the word "JSON" in
/// JSON mode, a short instruction is added to the system message when it is missing.
pub(crate) fn prepare_messages(rc: &RoleConfig, messages: &[Message], json: bool) -> Vec<Message> {
    let mut out = messages.to_vec();
    let needs = json
        && rc.json_mode != JsonMode::None
        && rc.provider.quirks().needs_json_word
        && !out
            .iter()
            .any(|m| m.content.to_ascii_lowercase().contains("json"));
    if needs {
        match out.iter_mut().find(|m| m.role == "system") {
            Some(sys) => {
                sys.content.push_str("\n\n");
                sys.content.push_str(JSON_WORD_NOTE);
            }
            None => out.insert(0, Message::system(JSON_WORD_NOTE)),
        }
    }
    out
}

/// The request body. `json` asks for JSON output in the provider's way; `schema` is
/// used only where the provider accepts a JSON schema.
pub(crate) fn build_body(
    rc: &RoleConfig,
    messages: &[Message],
    json: bool,
    schema: Option<&Value>,
    max_tokens: Option<u32>,
) -> Value {
    let quirks = rc.provider.quirks();
    let mut body = json!({
        "model": rc.model,
        "messages": messages,
        "temperature": rc.temperature,
    });
    let obj = body.as_object_mut().expect("json! object literal");
    if quirks.seed
        && let Some(seed) = rc.seed
    {
        obj.insert("seed".into(), json!(seed));
    }
    if let Some(n) = max_tokens {
        obj.insert("max_tokens".into(), json!(n));
    }
    if json {
        let format = match (rc.json_mode, schema) {
            (JsonMode::Schema, Some(s)) => Some(json!({
                "type": "json_schema",
                "json_schema": {"name": "answer", "schema": s, "strict": true},
            })),
            (JsonMode::ObjectSchema, Some(s)) => Some(json!({"type": "json_object", "schema": s})),
            (JsonMode::Schema | JsonMode::ObjectSchema, None) | (JsonMode::Object, _) => {
                Some(json!({"type": "json_object"}))
            }
            (JsonMode::None, _) => None,
        };
        if let Some(f) = format {
            obj.insert("response_format".into(), f);
        }
    }
    if quirks.thinking_object {
        let kind = if rc.thinking { "enabled" } else { "disabled" };
        obj.insert("thinking".into(), json!({"type": kind}));
    }
    if quirks.enable_thinking_flag {
        // DashScope rejects thinking on non-streaming calls.
        obj.insert("enable_thinking".into(), json!(rc.thinking && rc.stream));
    }
    if rc.stream {
        obj.insert("stream".into(), json!(true));
        if quirks.stream_usage {
            obj.insert("stream_options".into(), json!({"include_usage": true}));
        }
    }
    body
}

/// The body without transport-only fields, for the cache key: streaming or not, the
/// answer is the same.
pub(crate) fn cache_params(body: &Value) -> Value {
    let mut b = body.clone();
    if let Some(o) = b.as_object_mut() {
        o.remove("stream");
        o.remove("stream_options");
    }
    b
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llm::config::Provider;

    fn rc(p: Provider) -> RoleConfig {
        RoleConfig::preset(p, "http://x/v1")
    }

    #[test]
    fn deepseek_disables_thinking_and_uses_json_object() {
        let r = rc(Provider::Deepseek);
        let msgs = prepare_messages(&r, &[Message::user("give me data")], true);
        let b = build_body(&r, &msgs, true, Some(&json!({"type": "object"})), None);
        assert_eq!(b["thinking"], json!({"type": "disabled"}));
        assert_eq!(b["response_format"], json!({"type": "json_object"}));
        assert!(b.get("seed").is_none());
        assert!(msgs[0].content.contains("JSON"));
    }

    #[test]
    fn llamacpp_gets_schema_in_json_object() {
        let r = rc(Provider::Llamacpp);
        let b = build_body(
            &r,
            &[Message::user("x")],
            true,
            Some(&json!({"type": "object"})),
            None,
        );
        assert_eq!(
            b["response_format"],
            json!({"type": "json_object", "schema": {"type": "object"}})
        );
        assert!(
            b.get("stream").is_none(),
            "llama-cpp-python streams no usage"
        );
    }

    #[test]
    fn vllm_gets_json_schema_and_seed() {
        let r = rc(Provider::Vllm);
        let b = build_body(
            &r,
            &[Message::user("x")],
            true,
            Some(&json!({"type": "object"})),
            Some(64),
        );
        assert_eq!(b["response_format"]["type"], "json_schema");
        assert_eq!(
            b["response_format"]["json_schema"]["schema"],
            json!({"type": "object"})
        );
        assert_eq!(b["seed"], 42);
        assert_eq!(b["max_tokens"], 64);
        assert_eq!(b["temperature"], 0.0);
        assert!(b.get("thinking").is_none());
    }

    #[test]
    fn qwen_sends_enable_thinking_false_and_json_word() {
        let mut r = rc(Provider::Qwen);
        r.stream = false;
        let msgs = prepare_messages(&r, &[Message::system("be terse"), Message::user("x")], true);
        assert!(msgs[0].content.ends_with(JSON_WORD_NOTE));
        let b = build_body(&r, &msgs, true, None, None);
        assert_eq!(b["enable_thinking"], false);
        assert!(b.get("stream").is_none());
    }

    #[test]
    fn json_word_not_added_twice_or_for_text() {
        let r = rc(Provider::Qwen);
        let m = [Message::user("reply in json please")];
        assert_eq!(prepare_messages(&r, &m, true), m.to_vec());
        let m2 = [Message::user("hello")];
        assert_eq!(prepare_messages(&r, &m2, false), m2.to_vec());
    }

    #[test]
    fn stream_fields_left_out_of_cache_params() {
        let r = rc(Provider::Openai);
        let b = build_body(&r, &[Message::user("x")], false, None, None);
        assert_eq!(b["stream"], true);
        assert_eq!(b["stream_options"]["include_usage"], true);
        let p = cache_params(&b);
        assert!(p.get("stream").is_none() && p.get("stream_options").is_none());
    }
}
