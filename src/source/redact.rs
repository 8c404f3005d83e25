//! Secrets never leave the machine: text bound for a model (bundles, seed data) is
//! scrubbed of what looks like a credential, and seed data is an allowlist by content.
//!
//! Redaction replaces the secret with `«redacted: <kind>»` and keeps the line count, so
//! the line numbers the model cites still point at the right lines. The patterns aim at
//! values, not names: `String password = "hunter2";` loses its literal, while
//! `this.password = password;` (a variable, not a secret) is left alone. What was
//! redacted is reported (file, line, kind) by `mastor scan` and kept out of prompts.

use regex::Regex;
use serde::Serialize;
use std::sync::LazyLock;

/// One redacted secret: where it was and what it looked like.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Redaction {
    pub file: String,
    /// 1-based line where the secret starts.
    pub line: usize,
    pub kind: &'static str,
}

struct Pattern {
    kind: &'static str,
    re: Regex,
    /// Capture group holding the secret value (0: the whole match).
    group: usize,
    /// Only in files that are not Java source (properties, .env, YAML, JSON).
    config_only: bool,
    /// A further test of the value, for patterns whose name alone is a weak sign.
    looks_secret: fn(&str) -> bool,
}

/// Any value.
fn any(_: &str) -> bool {
    true
}

/// A value shaped like a token or an encoded credential rather than a word or a name:
/// at least 8 characters without spaces, and a digit, a `+`, `/`, `=` or both cases.
/// Names such as `KEY` and `TOKEN` hold field names and header names as often as keys
/// (`NAME_KEY = "name"`), which a model needs to see.
fn token_like(v: &str) -> bool {
    let has = |f: fn(char) -> bool| v.chars().any(f);
    v.chars().count() >= 8
        && !has(char::is_whitespace)
        && (has(|c| c.is_ascii_digit())
            || has(|c| matches!(c, '+' | '/' | '='))
            || (has(|c| c.is_ascii_uppercase()) && has(|c| c.is_ascii_lowercase())))
}

/// Names whose literal is a secret whatever it looks like (`DB_PASS`, `password`,
/// `clientSecret`, `pwd`).
const STRONG_NAME: &str = r"[A-Za-z0-9_.-]*(?:pass|pwd|secret|credential)[A-Za-z0-9_.-]*";
/// Names whose literal is a secret when it looks like one (`API_KEY`, `authToken`).
const WEAK_NAME: &str = r"[A-Za-z0-9_.-]*(?:key|token)[A-Za-z0-9_.-]*";

static PATTERNS: LazyLock<Vec<Pattern>> = LazyLock::new(|| {
    let p = |kind, re: &str, group, config_only| Pattern {
        kind,
        re: Regex::new(re).expect("redaction pattern compiles"),
        group,
        config_only,
        looks_secret: any,
    };
    let weak = |kind, re: &str, group| Pattern {
        looks_secret: token_like,
        ..p(kind, re, group, false)
    };
    // The default of a lookup assigned to a secret name:
    // `DB_PASS = System.getenv().getOrDefault("DB_PASS", "s3cret")`, `getProperty(k, "v")`,
    // `.orElse("v")`; the first argument (the variable's name) stays.
    let default_of = |name: &str| {
        format!(
            r#"(?i)\b{name}["']?\s*[=:]\s*[^;\n]*?(?:\b(?:getOrDefault|getProperty|getenv|get|optString|getString)\s*\(\s*[^,()\n]+,\s*|\borElse(?:Get)?\s*\(\s*)"([^"\n]{{1,400}})"\s*\)"#
        )
    };
    vec![
        p("password", &default_of(STRONG_NAME), 1, false),
        weak("token", &default_of(WEAK_NAME), 1),
        // A quoted literal assigned to a key- or token-named variable, when it looks like
        // a credential.
        weak(
            "token",
            &format!(r#"(?i)\b{WEAK_NAME}["']?\s*[=:]\s*"([^"\n]{{1,400}})""#),
            1,
        ),
        // `Basic <base64>` in a header value or a string literal.
        Pattern {
            looks_secret: token_like,
            ..p(
                "basic credentials",
                r#"(?i)(?:authorization["']?\s*[:=,]\s*["']?\s*|["'])basic\s+([A-Za-z0-9+/]{8,}={0,2})"#,
                1,
                false,
            )
        },
        p(
            "private key",
            r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z0-9 ]*PRIVATE KEY-----",
            0,
            false,
        ),
        p(
            "private key",
            r#""private_key(?:_id)?"\s*:\s*"([^"]*)""#,
            1,
            false,
        ),
        p(
            "aws access key",
            r"\b((?:AKIA|ASIA)[0-9A-Z]{16})\b",
            1,
            false,
        ),
        p(
            "aws secret key",
            r#"(?i)(?:aws_secret_access_key|secret_access_key)["']?\s*[=:]\s*["']?([A-Za-z0-9/+=]{40})"#,
            1,
            false,
        ),
        p(
            "jwt",
            r"\b(eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,})",
            1,
            false,
        ),
        p(
            "bearer token",
            r"(?i)\bbearer\s+([A-Za-z0-9._~+/-]{16,}=*)",
            1,
            false,
        ),
        // A quoted literal assigned to a secret-named key, in code or config.
        p(
            "password",
            r#"(?i)[A-Za-z0-9_.-]*(?:pass|pwd|secret|credential|api[_-]?key|access[_-]?token|auth[_-]?token)[A-Za-z0-9_.-]*["']?\s*[=:]\s*"([^"\n]{1,400})""#,
            1,
            false,
        ),
        // `key=value` / `key: value` lines of properties, .env and YAML files.
        p(
            "password",
            r#"(?im)^\s*[A-Za-z0-9_.-]*(?:password|passwd|pwd|secret|api[_-]?key|access[_-]?token|auth[_-]?token|client[_-]?secret)[A-Za-z0-9_.-]*\s*[=:]\s*([^\s"'#][^\n]{0,400})$"#,
            1,
            true,
        ),
        p(
            "url credentials",
            r"[a-z][a-z0-9+.-]*://[^\s/:@]+:([^\s/@]{1,200})@",
            1,
            false,
        ),
    ]
});

/// `text` with every secret replaced, and where each was. `file` names the source in
/// the reports; `java` selects the patterns for source code (quoted literals only).
pub fn redact(file: &str, text: &str, java: bool) -> (String, Vec<Redaction>) {
    let mut spans: Vec<(usize, usize, &'static str)> = Vec::new();
    for p in PATTERNS.iter().filter(|p| !(java && p.config_only)) {
        for caps in p.re.captures_iter(text) {
            if let Some(m) = caps.get(p.group) {
                if m.as_str().starts_with('«')
                    || m.as_str().is_empty()
                    || !(p.looks_secret)(m.as_str())
                {
                    continue;
                }
                spans.push((m.start(), m.end(), p.kind));
            }
        }
    }
    if spans.is_empty() {
        return (text.to_string(), Vec::new());
    }
    spans.sort();
    let mut out = String::with_capacity(text.len());
    let mut found = Vec::new();
    let mut at = 0;
    for (start, end, kind) in spans {
        if start < at {
            continue; // overlaps one already replaced
        }
        out.push_str(&text[at..start]);
        let secret = &text[start..end];
        out.push_str(&format!("«redacted: {kind}»"));
        // Keep the line count: a multi-line secret (a PEM block) leaves its newlines.
        for _ in 0..secret.matches('\n').count() {
            out.push('\n');
        }
        found.push(Redaction {
            file: file.to_string(),
            line: text[..start].matches('\n').count() + 1,
            kind,
        });
        at = end;
    }
    out.push_str(&text[at..]);
    (out, found)
}

/// Most redactions one call record names; the rest are counted.
const MAX_NOTED: usize = 20;

/// The call-record note naming what was redacted in the files `prompt` shows: kind and
/// `file:line`, never the value. `None` when the prompt holds no redaction.
pub fn prompt_note(redactions: &[Redaction], prompt: &str) -> Option<String> {
    if !prompt.contains("«redacted: ") {
        return None;
    }
    let shown: Vec<&Redaction> = redactions
        .iter()
        .filter(|r| prompt.contains(r.file.as_str()))
        .collect();
    if shown.is_empty() {
        return None;
    }
    let mut list: Vec<String> = shown
        .iter()
        .take(MAX_NOTED)
        .map(|r| format!("{} ({}:{})", r.kind, r.file, r.line))
        .collect();
    if shown.len() > MAX_NOTED {
        list.push(format!("and {} more", shown.len() - MAX_NOTED));
    }
    Some(format!(
        "redacted before the prompt was built: {}",
        list.join(", ")
    ))
}

/// Whether a file must never be offered as seed data, whatever its content: key
/// material, credentials files, service-account files.
pub fn is_credentials_file(path: &str, text: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path).to_ascii_lowercase();
    let named = [
        "credential",
        "secret",
        "service-account",
        "service_account",
        "serviceaccount",
        ".pem",
        ".key",
        ".p12",
        ".jks",
        "keystore",
        "token",
    ]
    .iter()
    .any(|w| name.contains(w));
    named
        || text.contains("PRIVATE KEY-----")
        || text.contains("\"private_key\"")
        || text.contains("\"client_secret\"")
}

/// The part of a seed file worth showing a model: a SQL file's `INSERT` statements, a
/// JSON file that is an array of records; `None` for anything else.
pub fn seed_content(path: &str, text: &str) -> Option<String> {
    if is_credentials_file(path, text) {
        return None;
    }
    if path.ends_with(".sql") {
        let inserts: Vec<&str> = text
            .split_inclusive(';')
            .map(str::trim)
            .filter(|s| s.len() > 7 && s[..7].eq_ignore_ascii_case("insert "))
            .collect();
        return (!inserts.is_empty()).then(|| inserts.join("\n"));
    }
    if path.ends_with(".json") {
        let v: serde_json::Value =
            serde_json::from_str(text.trim_start_matches('\u{feff}')).ok()?;
        let records = v.as_array()?;
        return (!records.is_empty() && records.iter().all(|r| r.is_object()))
            .then(|| text.to_string());
    }
    None
}

/// A seed file that was not offered to the model, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RefusedSeed {
    pub file: String,
    pub reason: String,
}

/// The seed data offered to agents: allowlisted content of each file, redacted, capped.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Seed {
    /// The concatenated text, or "(none)".
    pub text: String,
    pub redactions: Vec<Redaction>,
    pub refused: Vec<RefusedSeed>,
}

/// Reads the seed files (paths relative to `root`) into what a prompt may carry: only
/// SQL `INSERT`s and JSON arrays of records, never credentials files, every secret
/// redacted, at most `cap` bytes.
pub fn read_seed(root: &std::path::Path, files: &[String], cap: usize) -> Seed {
    let mut seed = Seed::default();
    let mut out = String::new();
    for f in files {
        let text = match std::fs::read_to_string(root.join(f)) {
            Ok(t) => t,
            Err(e) => {
                seed.refused.push(RefusedSeed {
                    file: f.clone(),
                    reason: format!("unreadable: {e}"),
                });
                continue;
            }
        };
        if seed_content(f, &text).is_none() {
            let reason = if is_credentials_file(f, &text) {
                "looks like credentials or key material"
            } else {
                "not seed data (only SQL INSERTs and JSON arrays of records are sent)"
            };
            seed.refused.push(RefusedSeed {
                file: f.clone(),
                reason: reason.into(),
            });
            continue;
        }
        // Redact the whole file (so lines are the file's), then take the allowed part.
        let (scrubbed, found) = redact(f, &text, false);
        seed.redactions.extend(found);
        let clean = seed_content(f, &scrubbed).unwrap_or_default();
        out.push_str(&format!("-- {f}\n{clean}\n"));
        if out.len() > cap {
            let mut cut = cap;
            while !out.is_char_boundary(cut) {
                cut -= 1;
            }
            out.truncate(cut);
            out.push_str("\n-- (seed data truncated)\n");
            break;
        }
    }
    seed.text = if out.is_empty() { "(none)".into() } else { out };
    seed
}

#[cfg(test)]
mod tests {
    use super::*;

    const PEM: &str =
        "-----BEGIN RSA PRIVATE KEY-----\nMIIEow\nAAAA\n-----END RSA PRIVATE KEY-----";

    #[test]
    fn pem_blocks_go_and_line_numbers_stay() {
        let text = format!("a\n{PEM}\nb\n");
        let (out, found) = redact("k.txt", &text, false);
        assert!(!out.contains("MIIEow"), "{out}");
        assert_eq!(out.lines().count(), text.lines().count());
        assert_eq!(out.lines().nth(5), Some("b"));
        assert_eq!(found[0].line, 2);
        assert_eq!(found[0].kind, "private key");
    }

    #[test]
    fn each_kind_is_caught() {
        let cases = [
            (r#"{"private_key": "abc123"}"#, "abc123", "private key"),
            (
                "id = AKIAABCDEFGHIJKLMNOP",
                "AKIAABCDEFGHIJKLMNOP",
                "aws access key",
            ),
            (
                "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEYab",
                "wJalrXUtnFEMI",
                "aws secret key",
            ),
            (
                "t = eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N",
                "eyJhbGciOiJIUzI1NiJ9",
                "jwt",
            ),
            (
                "Authorization: Bearer abcdefghijklmnop1234",
                "abcdefghijklmnop1234",
                "bearer token",
            ),
            (r#"String password = "hunter2";"#, "hunter2", "password"),
            (
                "db.url=jdbc:postgresql://app:s3cr3t@db/app",
                "s3cr3t",
                "url credentials",
            ),
        ];
        for (text, secret, kind) in cases {
            let (out, found) = redact("F.java", text, true);
            assert!(!out.contains(secret), "{kind}: {out}");
            assert!(found.iter().any(|r| r.kind == kind), "{kind}: {found:?}");
        }
        let (out, _) = redact(
            "application.properties",
            "spring.datasource.password=hunter2\n",
            false,
        );
        assert_eq!(out, "spring.datasource.password=«redacted: password»\n");
    }

    #[test]
    fn basic_tokens_lookup_defaults_and_token_shaped_keys_go() {
        let java = "class Db {\n\
            static final String DB_PASS = System.getenv().getOrDefault(\"DB_PASS\", \"hunterPASS42\");\n\
            String auth = \"Authorization: Basic dXNlcjpwYXNzd29yZA==\";\n\
            void send(Req r) { r.header(\"Authorization\", \"Basic YWRtaW46czNjcjN0\"); }\n\
            static final String API_KEY = \"k8Fz2LmQp0Rt\";\n\
            String token = props.getProperty(\"app.token\", \"Zx81Qw9Lk2Jh\");\n\
            String secret = opt.orElse(\"plainsecret\");\n\
            static final String NAME_KEY = \"name\";\n\
            String basic = \"Basic authentication required\";\n\
            }\n";
        let (out, found) = redact("src/Db.java", java, true);
        for secret in [
            "hunterPASS42",
            "dXNlcjpwYXNzd29yZA",
            "YWRtaW46czNjcjN0",
            "k8Fz2LmQp0Rt",
            "Zx81Qw9Lk2Jh",
            "plainsecret",
        ] {
            assert!(!out.contains(secret), "{secret}: {out}");
        }
        // The variable names, the lookup keys and plain words stay.
        for kept in [
            "getOrDefault(\"DB_PASS\", ",
            "getProperty(\"app.token\", ",
            "NAME_KEY = \"name\"",
            "Basic authentication required",
        ] {
            assert!(out.contains(kept), "{kept}: {out}");
        }
        assert_eq!(out.lines().count(), java.lines().count());
        let lines: Vec<usize> = found.iter().map(|r| r.line).collect();
        assert_eq!(lines, vec![2, 3, 4, 5, 6, 7], "{found:?}");
        let kinds: Vec<&str> = found.iter().map(|r| r.kind).collect();
        assert!(
            kinds.contains(&"basic credentials") && kinds.contains(&"password"),
            "{kinds:?}"
        );

        let note =
            prompt_note(&found, &format!("// ===== FILE: src/Db.java =====\n{out}")).unwrap();
        assert!(note.contains("basic credentials (src/Db.java:3)"), "{note}");
        assert!(!note.contains("hunter") && !note.contains("dXNl"), "{note}");
        assert_eq!(prompt_note(&found, "no secrets here"), None);
    }

    #[test]
    fn code_that_names_secrets_without_holding_one_is_left_alone() {
        let code = "this.password = password;\nif (apiKey == null) throw new X();\nString secret = cfg.get(\"k\");\n";
        let (out, found) = redact("User.java", code, true);
        assert_eq!(out, code);
        assert!(found.is_empty(), "{found:?}");
    }

    #[test]
    fn seed_data_is_an_allowlist_by_content() {
        let sql = "CREATE TABLE pet (id int);\nINSERT INTO pet VALUES (1);\nDROP TABLE x;";
        assert_eq!(
            seed_content("db/data.sql", sql).as_deref(),
            Some("INSERT INTO pet VALUES (1);")
        );
        assert_eq!(
            seed_content("db/schema.sql", "CREATE TABLE a (id int);"),
            None
        );
        let records = r#"[{"id": 1}, {"id": 2}]"#;
        assert_eq!(
            seed_content("src/main/resources/pets.json", records).as_deref(),
            Some(records)
        );
        assert_eq!(
            seed_content("src/main/resources/config.json", r#"{"a": 1}"#),
            None
        );
        let key = r#"[{"type": "service_account", "private_key": "x"}]"#;
        assert_eq!(seed_content("src/main/resources/sa.json", key), None);
        assert_eq!(
            seed_content("src/main/resources/credentials.json", records),
            None
        );
    }
}
