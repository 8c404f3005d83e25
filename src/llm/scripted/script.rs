//! The script a [`super::ScriptedServer`] answers from: ordered rules that match a
//! request by agent header, op header, prompt substring or regex, each with a sequence
//! of replies (content or an injected fault), and a fallback. Serde (de)serializable,
//! so a script can be kept in a JSON file.

use regex::Regex;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Ordered rules (first match wins) and a fallback reply sequence.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Script {
    #[serde(default)]
    pub rules: Vec<Rule>,
    /// Replies when no rule matches; empty means HTTP 400 "no rule matches".
    #[serde(default)]
    pub fallback: Vec<Reply>,
    /// The context window `GET /props` reports, as llama.cpp's server does
    /// (`default_generation_settings.n_ctx`); `None`: `/props` answers 404.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub n_ctx: Option<u32>,
}

/// One rule: all given conditions must match. Replies are used in order; the last one
/// repeats once the sequence is used up.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Rule {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Exact value of the `X-Mastor-Agent` header.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
    /// Exact value of the `X-Mastor-Op` header.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub op: Option<String>,
    /// Substring of any message's content.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub contains: Option<String>,
    /// Regex over all message contents joined by newlines.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub regex: Option<String>,
    pub replies: Vec<Reply>,
    /// Wait before answering (keeps requests in flight, for concurrency tests).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub delay_ms: u64,
}

fn is_zero(v: &u64) -> bool {
    *v == 0
}

/// One scripted reply.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Reply {
    /// The value serialized as the answer content.
    Json { value: Value },
    /// The content verbatim.
    Text { content: String },
    /// The first half of the serialized value, `finish_reason: length`.
    TruncatedJson { value: Value },
    /// The value in a ```json fence between two sentences of prose.
    ProseWrapped { value: Value },
    /// Empty content with `finish_reason: stop` (DeepSeek JSON mode does this).
    Empty,
    /// An HTTP error, optionally with `Retry-After` / `retry-after-ms`.
    Status {
        status: u16,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        retry_after: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        retry_after_ms: Option<u64>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        body: Option<String>,
    },
    /// Hold the request for `ms` milliseconds, then answer 504.
    Hang { ms: u64 },
    /// HTTP 200 `text/event-stream` that never sends `[DONE]`: valid content chunks
    /// (or, with `newlines: false`, bytes without a single newline) until `total_bytes`
    /// were sent (0: until the client hangs up), waiting `pace_ms` between 16 KiB
    /// pieces. A hostile or broken server, for the client's size and time limits.
    Flood {
        #[serde(default = "yes")]
        newlines: bool,
        #[serde(default)]
        total_bytes: u64,
        #[serde(default)]
        pace_ms: u64,
    },
    /// HTTP `status` with a filler body of `bytes` bytes, streamed (never held in memory).
    Huge { status: u16, bytes: u64 },
}

fn yes() -> bool {
    true
}

impl Reply {
    /// A JSON answer.
    pub fn json(value: Value) -> Self {
        Reply::Json { value }
    }
    /// A text answer.
    pub fn text(content: impl Into<String>) -> Self {
        Reply::Text {
            content: content.into(),
        }
    }
    /// An HTTP error without Retry-After.
    pub fn status(status: u16) -> Self {
        Reply::Status {
            status,
            retry_after: None,
            retry_after_ms: None,
            body: None,
        }
    }
    /// 429 with `Retry-After: secs`.
    pub fn rate_limited(secs: u64) -> Self {
        Reply::Status {
            status: 429,
            retry_after: Some(secs.to_string()),
            retry_after_ms: None,
            body: None,
        }
    }

    /// The answer content and finish reason, for replies that answer 200.
    pub(crate) fn content(&self) -> Option<(String, &'static str)> {
        match self {
            Reply::Json { value } => Some((value.to_string(), "stop")),
            Reply::Text { content } => Some((content.clone(), "stop")),
            Reply::TruncatedJson { value } => {
                let full = serde_json::to_string_pretty(value).unwrap_or_default();
                let chars: Vec<char> = full.chars().collect();
                Some((chars[..chars.len() / 2].iter().collect(), "length"))
            }
            Reply::ProseWrapped { value } => Some((
                format!(
                    "Sure, here is the result you asked for:\n```json\n{}\n```\nLet me know if you need anything else.",
                    serde_json::to_string_pretty(value).unwrap_or_default()
                ),
                "stop",
            )),
            Reply::Empty => Some((String::new(), "stop")),
            Reply::Status { .. }
            | Reply::Hang { .. }
            | Reply::Flood { .. }
            | Reply::Huge { .. } => None,
        }
    }
}

impl Rule {
    /// A rule matching the `X-Mastor-Agent` header.
    pub fn agent(agent: impl Into<String>, replies: Vec<Reply>) -> Self {
        Self {
            agent: Some(agent.into()),
            replies,
            ..Self::default()
        }
    }
    /// A rule matching a substring of the prompt.
    pub fn contains(text: impl Into<String>, replies: Vec<Reply>) -> Self {
        Self {
            contains: Some(text.into()),
            replies,
            ..Self::default()
        }
    }
    /// Sets the name (for per-rule counts).
    pub fn named(mut self, name: impl Into<String>) -> Self {
        self.name = Some(name.into());
        self
    }
    /// Sets the answer delay.
    pub fn delay(mut self, ms: u64) -> Self {
        self.delay_ms = ms;
        self
    }
}

/// A request as the matcher sees it.
pub(crate) struct Probe<'a> {
    pub agent: Option<&'a str>,
    pub op: Option<&'a str>,
    pub text: &'a str,
    pub contents: &'a [String],
}

/// A rule with its regex compiled once.
pub(crate) struct Compiled {
    pub rule: Rule,
    regex: Option<Regex>,
}

impl Compiled {
    pub(crate) fn new(rule: Rule) -> Result<Self, regex::Error> {
        let regex = rule.regex.as_deref().map(Regex::new).transpose()?;
        Ok(Self { rule, regex })
    }

    pub(crate) fn matches(&self, p: &Probe<'_>) -> bool {
        let r = &self.rule;
        r.agent.as_deref().is_none_or(|a| p.agent == Some(a))
            && r.op.as_deref().is_none_or(|o| p.op == Some(o))
            && r.contains
                .as_deref()
                .is_none_or(|c| p.contents.iter().any(|m| m.contains(c)))
            && self.regex.as_ref().is_none_or(|re| re.is_match(p.text))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn script_round_trips_through_json() {
        let s = Script {
            rules: vec![
                Rule::agent(
                    "extraction",
                    vec![Reply::rate_limited(1), Reply::json(json!({"a": 1}))],
                )
                .named("x")
                .delay(5),
                Rule::contains("hello", vec![Reply::Empty, Reply::Hang { ms: 10 }]),
                Rule::contains(
                    "flood",
                    vec![
                        Reply::Flood {
                            newlines: false,
                            total_bytes: 10,
                            pace_ms: 1,
                        },
                        Reply::Huge {
                            status: 500,
                            bytes: 1 << 20,
                        },
                    ],
                ),
            ],
            fallback: vec![Reply::text("fallback")],
            n_ctx: None,
        };
        let text = serde_json::to_string(&s).unwrap();
        assert!(text.contains("\"kind\":\"status\""), "{text}");
        assert_eq!(serde_json::from_str::<Script>(&text).unwrap(), s);
        // Optional fields of the fault replies default (older script files still load).
        let flood: Reply = serde_json::from_str(r#"{"kind":"flood"}"#).unwrap();
        assert_eq!(
            flood,
            Reply::Flood {
                newlines: true,
                total_bytes: 0,
                pace_ms: 0
            }
        );
    }

    #[test]
    fn fault_contents() {
        let (t, f) = Reply::TruncatedJson {
            value: json!({"answer": "long text here"}),
        }
        .content()
        .unwrap();
        assert_eq!(f, "length");
        assert!(serde_json::from_str::<Value>(&t).is_err());
        let (p, _) = Reply::ProseWrapped {
            value: json!({"a": 1}),
        }
        .content()
        .unwrap();
        assert!(p.starts_with("Sure") && p.contains("```json"));
        assert!(Reply::status(500).content().is_none());
    }

    #[test]
    fn matching_needs_every_condition() {
        let c = Compiled::new(Rule {
            agent: Some("a".into()),
            regex: Some("op=\\d+".into()),
            replies: vec![],
            ..Rule::default()
        })
        .unwrap();
        let contents = vec!["op=12".to_string()];
        let probe = |agent| Probe {
            agent,
            op: None,
            text: "op=12",
            contents: &contents,
        };
        assert!(c.matches(&probe(Some("a"))));
        assert!(!c.matches(&probe(Some("b"))));
        assert!(!c.matches(&probe(None)));
        assert!(
            Compiled::new(Rule {
                regex: Some("(".into()),
                ..Rule::default()
            })
            .is_err()
        );
    }
}
