//! Agent prompts: embedded in the binary, overridable from a directory, rendered strictly.
//!
//! A tester tunes a prompt by copying it into a directory and passing `--prompts DIR`; any
//! prompt missing there falls back to the embedded one. Rendering fails on an unknown or
//! unfilled `{{placeholder}}`, so a typo in a tuned prompt is reported instead of sent.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Line that separates the system message from the user message in a prompt file.
pub const USER_MARKER: &str = "=== USER ===";

/// The embedded prompts, by agent name.
pub const EMBEDDED: &[(&str, &str)] = &[
    ("discovery", include_str!("../prompts/discovery.md")),
    ("extraction", include_str!("../prompts/extraction.md")),
    ("semantic", include_str!("../prompts/semantic.md")),
    ("single_op", include_str!("../prompts/single_op.md")),
    (
        "single_op_challenger",
        include_str!("../prompts/single_op_challenger.md"),
    ),
    (
        "single_op_regenerate",
        include_str!("../prompts/single_op_regenerate.md"),
    ),
    ("multi_op", include_str!("../prompts/multi_op.md")),
    (
        "multi_op_challenger",
        include_str!("../prompts/multi_op_challenger.md"),
    ),
    (
        "multi_op_regenerate",
        include_str!("../prompts/multi_op_regenerate.md"),
    ),
    ("baseline_dp", include_str!("../prompts/baseline_dp.md")),
    ("baseline_spec", include_str!("../prompts/baseline_spec.md")),
    ("mr_generator", include_str!("../prompts/mr_generator.md")),
    ("mr_refiner", include_str!("../prompts/mr_refiner.md")),
];

/// Parts several prompts share, by name: `{{name}}` in a prompt is replaced by the part's
/// text before the prompt's own placeholders are filled. A revision prompt then carries
/// the generator's rules in full (it is sent on its own, so "the same rules as before"
/// would point at nothing), and generator and challenger read one format. A part is
/// overridden like a prompt (`<dir>/<name>.md`).
pub const PARTIALS: &[(&str, &str)] = &[
    (
        "oracle_format",
        include_str!("../prompts/partials/oracle_format.md"),
    ),
    (
        "single_op_rules",
        include_str!("../prompts/partials/single_op_rules.md"),
    ),
    (
        "multi_op_rules",
        include_str!("../prompts/partials/multi_op_rules.md"),
    ),
    // How a reviewer reads the suite (`agents::oracle_view`).
    (
        "review_form",
        include_str!("../prompts/partials/review_form.md"),
    ),
    // First in the system message of every agent of one operation (or group) that reads
    // the bundle: the same bytes before anything agent-specific, so a provider's prefix
    // cache bills the bundle once per operation instead of once per agent.
    (
        "source_prefix",
        include_str!("../prompts/partials/source_prefix.md"),
    ),
];

/// Values every prompt may use without the agent passing them: the execution model is
/// the runner's (one text, [`crate::execution::PROMPT_TEXT`]); the output budget is
/// replaced by the call's own when the model's answer limit is known.
pub const DEFAULT_VARS: &[(&str, &str)] = &[
    ("execution_model", crate::execution::PROMPT_TEXT),
    ("output_budget", "your model's answer limit"),
];

/// Why a prompt could not be produced.
#[derive(Debug, thiserror::Error)]
pub enum PromptError {
    #[error("no prompt named '{0}'")]
    Unknown(String),
    #[error("cannot read prompt override {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("prompt '{name}' ({origin}) has no '{USER_MARKER}' line")]
    NoUserMarker { name: String, origin: String },
    #[error("prompt '{name}' ({origin}) uses {{{{{placeholder}}}}}, which the agent does not fill")]
    UnknownPlaceholder {
        name: String,
        origin: String,
        placeholder: String,
    },
}

/// A prompt rendered into its two messages.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rendered {
    pub system: String,
    pub user: String,
}

/// The prompt set in force: embedded, with optional overrides from a directory.
#[derive(Debug, Clone, Default)]
pub struct Prompts {
    overrides: BTreeMap<String, (PathBuf, String)>,
}

impl Prompts {
    /// Embedded prompts only.
    pub fn embedded() -> Self {
        Self::default()
    }

    /// Embedded prompts, with `<dir>/<name>.md` taking precedence where present.
    pub fn with_overrides(dir: &Path) -> Result<Self, PromptError> {
        let mut overrides = BTreeMap::new();
        for (name, _) in EMBEDDED.iter().chain(PARTIALS) {
            let path = dir.join(format!("{name}.md"));
            if path.is_file() {
                let text = std::fs::read_to_string(&path).map_err(|source| PromptError::Read {
                    path: path.clone(),
                    source,
                })?;
                overrides.insert((*name).to_string(), (path, text));
            }
        }
        Ok(Self { overrides })
    }

    /// Names of prompts loaded from the override directory (shown to the user).
    pub fn overridden(&self) -> Vec<&str> {
        self.overrides.keys().map(String::as_str).collect()
    }

    /// Renders prompt `name` with `vars`; every placeholder must be filled.
    pub fn render(&self, name: &str, vars: &[(&str, &str)]) -> Result<Rendered, PromptError> {
        let (origin, text) = match self.overrides.get(name) {
            Some((path, text)) => (path.display().to_string(), text.as_str()),
            None => {
                let text = EMBEDDED
                    .iter()
                    .find(|(n, _)| *n == name)
                    .map(|(_, t)| *t)
                    .ok_or_else(|| PromptError::Unknown(name.to_string()))?;
                ("embedded".to_string(), text)
            }
        };
        let expanded = self.expand(text);
        let (system, user) =
            expanded
                .split_once(USER_MARKER)
                .ok_or_else(|| PromptError::NoUserMarker {
                    name: name.to_string(),
                    origin: origin.clone(),
                })?;
        let mut all: Vec<(&str, &str)> = vars.to_vec();
        all.extend(
            DEFAULT_VARS
                .iter()
                .filter(|(k, _)| !vars.iter().any(|(v, _)| v == k)),
        );
        let fill = |part: &str| {
            fill(part, &all).map_err(|placeholder| PromptError::UnknownPlaceholder {
                name: name.to_string(),
                origin: origin.clone(),
                placeholder,
            })
        };
        Ok(Rendered {
            system: fill(system.trim())?,
            user: fill(user.trim())?,
        })
    }
}

impl Prompts {
    /// The text of shared part `name` (overridden or embedded).
    pub fn partial(&self, name: &str) -> Option<&str> {
        self.overrides
            .get(name)
            .map(|(_, t)| t.as_str())
            .or_else(|| PARTIALS.iter().find(|(n, _)| *n == name).map(|(_, t)| *t))
    }

    /// `text` with every `{{part}}` replaced by the part's text (one level: a part does
    /// not include another).
    fn expand(&self, text: &str) -> String {
        let mut out = text.to_string();
        for (name, _) in PARTIALS {
            let key = format!("{{{{{name}}}}}");
            if out.contains(&key)
                && let Some(part) = self.partial(name)
            {
                out = out.replace(&key, part.trim_end());
            }
        }
        out
    }
}

/// JSON for prompts, laid out in two levels: the value's keys (or items) and theirs each
/// on a line, anything deeper compact. Pretty printing's indentation cost a context a
/// quarter of its tokens, and a spec fragment nearly half, and told the model nothing.
pub fn prompt_json(value: &serde_json::Value) -> String {
    let mut out = String::new();
    layered(value, 0, &mut out);
    out
}

/// Levels laid out one entry a line by [`prompt_json`].
const LAID_OUT: usize = 2;

fn layered(value: &serde_json::Value, depth: usize, out: &mut String) {
    use serde_json::Value;
    let indent = |out: &mut String, d: usize| out.push_str(&" ".repeat(d));
    match value {
        Value::Object(map) if depth < LAID_OUT && !map.is_empty() => {
            out.push_str("{\n");
            for (i, (k, v)) in map.iter().enumerate() {
                indent(out, depth + 1);
                out.push_str(&serde_json::to_string(k).unwrap_or_default());
                out.push_str(": ");
                layered(v, depth + 1, out);
                out.push_str(if i + 1 < map.len() { ",\n" } else { "\n" });
            }
            indent(out, depth);
            out.push('}');
        }
        Value::Array(items) if depth < LAID_OUT && !items.is_empty() => {
            out.push_str("[\n");
            for (i, v) in items.iter().enumerate() {
                indent(out, depth + 1);
                layered(v, depth + 1, out);
                out.push_str(if i + 1 < items.len() { ",\n" } else { "\n" });
            }
            indent(out, depth);
            out.push(']');
        }
        v => out.push_str(&serde_json::to_string(v).unwrap_or_default()),
    }
}

/// Replaces `{{key}}` in one pass (values are never re-scanned, so a bundle containing
/// `{{` is safe); returns the first placeholder with no value.
fn fill(text: &str, vars: &[(&str, &str)]) -> Result<String, String> {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("{{") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let Some(end) = after.find("}}") else {
            out.push_str(&rest[start..]);
            return Ok(out);
        };
        let key = after[..end].trim();
        match vars.iter().find(|(k, _)| *k == key) {
            Some((_, value)) => out.push_str(value),
            None => return Err(key.to_string()),
        }
        rest = &after[end + 2..];
    }
    out.push_str(rest);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_grouping_rule_admits_the_papers_lifecycle_pattern() {
        let r = Prompts::embedded()
            .render("semantic", &[("contexts", "")])
            .unwrap();
        // The old rule ("removing any one step makes a later step fail") ruled out the
        // middle read of create → read → update → delete.
        assert!(!r.system.contains("removing any one step"), "{}", r.system);
        assert!(r.system.contains("read after a create, update or delete"));
        assert!(r.system.contains("lifecycle is valid"));
    }

    #[test]
    fn the_answer_format_is_specified_where_it_was_ambiguous() {
        let p = Prompts::embedded();
        let single = p
            .render(
                "single_op",
                &[
                    ("bundle", ""),
                    ("seed_data", ""),
                    ("op_id", "GET /a"),
                    ("context", ""),
                ],
            )
            .unwrap()
            .system;
        assert!(
            single.contains(r#""type": "field", "field_path""#),
            "a field assertion example"
        );
        assert!(single.contains("matches is a search"));
        assert!(single.contains("A response without a body (204, 205, 304)"));
        assert!(single.contains("a list repeats the key"));
        assert!(single.contains("One live server keeps its state"));
        let multi = p
            .render(
                "multi_op",
                &[
                    ("bundle", ""),
                    ("seed_data", ""),
                    ("group_id", "g"),
                    ("pattern", "p"),
                    ("sequence", ""),
                    ("contexts", ""),
                    ("cited", ""),
                ],
            )
            .unwrap()
            .system;
        assert!(multi.contains("inside a longer string"));
        assert!(multi.contains("numbered from 0"));
        let review = p
            .render(
                "multi_op_challenger",
                &[
                    ("cited", ""),
                    ("seed_data", ""),
                    ("group_id", "g"),
                    ("contexts", ""),
                    ("oracles", ""),
                ],
            )
            .unwrap()
            .system;
        assert!(review.contains("counting from 0"));
    }

    #[test]
    fn every_embedded_prompt_has_both_parts() {
        for (name, text) in EMBEDDED {
            let (system, user) = text.split_once(USER_MARKER).expect(name);
            // A one-message prompt (nothing above the marker) asks for JSON in its user part.
            let asks = if system.trim().is_empty() {
                user
            } else {
                system
            };
            assert!(
                asks.contains("JSON"),
                "{name}: the prompt must ask for JSON"
            );
            assert!(!user.trim().is_empty(), "{name}: empty user part");
        }
    }

    #[test]
    fn values_are_not_rescanned() {
        let out = fill("A {{x}} B", &[("x", "{{y}}")]).unwrap();
        assert_eq!(out, "A {{y}} B");
    }

    #[test]
    fn unknown_placeholder_is_named() {
        let err = fill("A {{ nope }}", &[]).unwrap_err();
        assert_eq!(err, "nope");
    }

    #[test]
    fn override_wins_and_typo_fails_loudly() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("semantic.md"),
            "sys JSON\n=== USER ===\nctx: {{contexs}}",
        )
        .unwrap();
        let p = Prompts::with_overrides(dir.path()).unwrap();
        assert_eq!(p.overridden(), vec!["semantic"]);
        let err = p.render("semantic", &[("contexts", "x")]).unwrap_err();
        let msg = err.to_string();
        assert!(
            msg.contains("contexs") && msg.contains("semantic.md"),
            "{msg}"
        );
        // other prompts still come from the binary
        let r = p
            .render(
                "baseline_dp",
                &[("oas_ops", "GET /a"), ("source_code", "class A {}")],
            )
            .unwrap();
        assert!(r.user.contains("GET /a") && r.user.contains("class A {}"));
    }
}
