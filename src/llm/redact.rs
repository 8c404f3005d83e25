//! Scrubbing credentials out of text the client hands out. A provider may echo the API
//! key in an error body (`invalid key sk-…`, `Authorization: Bearer …`), and a base URL
//! may carry `user:password@`; error strings and raw answers end up in session files
//! (`state.json`, `events.jsonl`, `calls/`), so every such string passes through one
//! [`Redactor`] before a [`CallRecord`] or an [`LlmError`] leaves the client.

use super::config::LlmConfig;
use super::error::LlmError;
use super::record::CallRecord;
use regex::Regex;
use std::borrow::Cow;
use std::sync::LazyLock;

/// What replaces an API key or a bearer token.
pub const API_KEY_MARK: &str = "«redacted: api key»";
/// What replaces the `user:password` part of a URL.
pub const USERINFO_MARK: &str = "«redacted: userinfo»";

/// Secrets shorter than this are not searched for: scrubbing every `abc` in a prompt
/// would mangle text while protecting nothing a real provider issues.
const MIN_SECRET_CHARS: usize = 4;

static AUTH_HEADER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)\b(bearer\s+)[A-Za-z0-9\-._~+/]+=*|\b(authorization\s*:\s*basic\s+)[A-Za-z0-9+/]+=*",
    )
    .expect("valid regex")
});

/// Knows the configured secrets (the keys of both roles, userinfo of both base URLs)
/// and scrubs them, and any `Bearer …` / `Authorization: Basic …` token, from text.
#[derive(Debug, Clone, Default)]
pub struct Redactor {
    /// (secret, replacement), longest first so a key containing another is caught whole.
    secrets: Vec<(String, &'static str)>,
}

impl Redactor {
    /// A redactor for the given API keys.
    pub fn new<'a>(keys: impl IntoIterator<Item = &'a str>) -> Self {
        let mut r = Self::default();
        for k in keys {
            r.add(k, API_KEY_MARK);
        }
        r
    }

    /// A redactor for everything secret in `cfg`: both roles' keys and the userinfo of
    /// both base URLs.
    pub fn from_config(cfg: &LlmConfig) -> Self {
        let mut r = Self::default();
        for rc in [&cfg.primary, &cfg.challenger] {
            if let Some(k) = &rc.api_key {
                r.add(k.expose(), API_KEY_MARK);
            }
            if let Ok(url) = url::Url::parse(&rc.base_url) {
                let (user, pw) = (url.username(), url.password().unwrap_or(""));
                if !pw.is_empty() {
                    r.add(&format!("{user}:{pw}"), USERINFO_MARK);
                    r.add(pw, USERINFO_MARK);
                    let decoded = percent_encoding::percent_decode_str(pw).decode_utf8_lossy();
                    r.add(&decoded, USERINFO_MARK);
                } else if !user.is_empty() {
                    // A lone user name in a URL is usually a token.
                    r.add(user, USERINFO_MARK);
                }
            }
        }
        r
    }

    fn add(&mut self, secret: &str, mark: &'static str) {
        let secret = secret.trim();
        if secret.chars().count() < MIN_SECRET_CHARS
            || self.secrets.iter().any(|(s, _)| s == secret)
        {
            return;
        }
        self.secrets.push((secret.to_string(), mark));
        self.secrets
            .sort_by_key(|(s, _)| std::cmp::Reverse(s.len()));
    }

    /// `text` without the known secrets and bearer tokens; borrowed when clean.
    pub fn redact<'a>(&self, text: &'a str) -> Cow<'a, str> {
        let mut out = Cow::Borrowed(text);
        for (secret, mark) in &self.secrets {
            if out.contains(secret.as_str()) {
                out = Cow::Owned(out.replace(secret.as_str(), mark));
            }
        }
        if AUTH_HEADER.is_match(&out) {
            let replaced = AUTH_HEADER.replace_all(&out, |c: &regex::Captures<'_>| {
                let prefix = c.get(1).or_else(|| c.get(2)).map_or("", |m| m.as_str());
                format!("{prefix}{API_KEY_MARK}")
            });
            out = Cow::Owned(replaced.into_owned());
        }
        out
    }

    fn scrub(&self, s: &mut String) {
        if let Cow::Owned(clean) = self.redact(s) {
            *s = clean;
        }
    }

    /// The error with every text field (URLs, bodies, reasons) redacted.
    pub fn error(&self, e: LlmError) -> LlmError {
        let r = |mut s: String| {
            self.scrub(&mut s);
            s
        };
        match e {
            LlmError::Build(s) => LlmError::Build(r(s)),
            LlmError::Status { url, status, body } => LlmError::Status {
                url: r(url),
                status,
                body: r(body),
            },
            LlmError::Transport { url, reason } => LlmError::Transport {
                url: r(url),
                reason: r(reason),
            },
            LlmError::Timeout { url, secs } => LlmError::Timeout { url: r(url), secs },
            LlmError::EmptyContent { finish_reason } => LlmError::EmptyContent {
                finish_reason: r(finish_reason),
            },
            LlmError::Protocol { url, reason } => LlmError::Protocol {
                url: r(url),
                reason: r(reason),
            },
            LlmError::TooLarge { url, limit } => LlmError::TooLarge { url: r(url), limit },
            LlmError::RateLimited { url, secs, limit } => LlmError::RateLimited {
                url: r(url),
                secs,
                limit,
            },
            LlmError::Exhausted { attempts, last } => LlmError::Exhausted {
                attempts,
                last: Box::new(self.error(*last)),
            },
            LlmError::Parse { reason } => LlmError::Parse { reason: r(reason) },
        }
    }

    /// Redacts every text of a record that came from a server or quotes one: the error,
    /// raw and rejected answers, the parse error, retry reasons, the messages (a
    /// re-ask quotes the bad answer) and the base URL's userinfo.
    pub fn record(&self, rec: &mut CallRecord) {
        rec.base_url = mask_userinfo(&rec.base_url).into_owned();
        self.scrub(&mut rec.base_url);
        for s in rec
            .error
            .iter_mut()
            .chain(rec.raw_answer.iter_mut())
            .chain(rec.parse_error.iter_mut())
            .chain(rec.rejected_answers.iter_mut())
            .chain(rec.retries.iter_mut().map(|n| &mut n.reason))
            .chain(rec.messages.iter_mut().map(|m| &mut m.content))
        {
            self.scrub(s);
        }
    }
}

/// `url` with any `user:password@` replaced by [`USERINFO_MARK`], so a base URL can be
/// stored without its credentials.
pub fn mask_userinfo(url: &str) -> Cow<'_, str> {
    let Some(scheme_end) = url.find("://").map(|i| i + 3) else {
        return Cow::Borrowed(url);
    };
    let rest = &url[scheme_end..];
    let authority_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    match rest[..authority_end].rfind('@') {
        Some(at) => Cow::Owned(format!(
            "{}{USERINFO_MARK}{}",
            &url[..scheme_end],
            &rest[at..]
        )),
        None => Cow::Borrowed(url),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llm::{Provider, Secret};

    #[test]
    fn keys_and_bearer_tokens_are_scrubbed() {
        let r = Redactor::new(["sk-live-0123456789"]);
        let text = "bad key sk-live-0123456789; Authorization: Bearer other-token.x= end";
        let out = r.redact(text);
        assert_eq!(
            out,
            "bad key «redacted: api key»; Authorization: Bearer «redacted: api key» end"
        );
        assert!(matches!(r.redact("nothing here"), Cow::Borrowed(_)));
        assert_eq!(
            r.redact("authorization: Basic dXNlcjpwdw=="),
            "authorization: Basic «redacted: api key»"
        );
        // Too short to search for safely.
        assert_eq!(Redactor::new(["abc"]).redact("abcabc"), "abcabc");
    }

    #[test]
    fn userinfo_is_masked_and_known() {
        assert_eq!(
            mask_userinfo("http://u:p%40ss@host:1/v1?x=a@b"),
            "http://«redacted: userinfo»@host:1/v1?x=a@b"
        );
        assert_eq!(mask_userinfo("http://host/a@b"), "http://host/a@b");
        let mut cfg = LlmConfig::for_base_url(Provider::Custom, "http://me:pa%40ssword@h/v1", "m");
        cfg.challenger.api_key = Some(Secret::new("challenger-key-123"));
        let r = Redactor::from_config(&cfg);
        assert_eq!(
            r.redact("GET http://me:pa%40ssword@h/v1 pa@ssword challenger-key-123"),
            "GET http://«redacted: userinfo»@h/v1 «redacted: userinfo» «redacted: api key»"
        );
    }

    #[test]
    fn errors_are_redacted_to_the_last_field() {
        let r = Redactor::new(["sk-secret-value"]);
        let e = LlmError::Exhausted {
            attempts: 2,
            last: Box::new(LlmError::Status {
                url: "u".into(),
                status: 401,
                body: "sk-secret-value".into(),
            }),
        };
        let text = r.error(e).to_string();
        assert!(!text.contains("sk-secret"), "{text}");
        assert!(text.contains(API_KEY_MARK), "{text}");
    }
}
