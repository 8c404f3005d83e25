//! The spec loader: Swagger 2.0, OpenAPI 3.0 and OpenAPI 3.1 documents, JSON or YAML,
//! read into one list of [`SpecOperation`]s with every `$ref` resolved.
//!
//! The document is parsed to a `serde_json::Value` and walked by one walker for all three
//! versions (typed OpenAPI crates read only one version each). Operations keep document
//! order. This module also finds the spec in a project ([`find_spec`]) and marks
//! framework endpoints ([`Exclusions`]). It does not validate the spec against the
//! OpenAPI schema, fetch remote refs, or compare the spec with the code.

mod error;
mod exclude;
mod find;
mod ops;
mod params;
mod parse;
mod resolve;

pub use error::SpecError;
pub use exclude::{DEFAULT_EXCLUSIONS, Exclusions};
pub use find::{SpecLocation, find_spec};

use crate::model::SpecOperation;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// A loaded spec: its operations plus what the rest of the tool needs to say about it.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct LoadedSpec {
    /// The file loaded, as given (external `$ref` files are not listed).
    pub file: PathBuf,
    /// The version as written: "2.0", "3.0.1", "3.1.0".
    pub version: String,
    /// `info.title`, for headings and reports.
    pub title: Option<String>,
    /// Swagger 2.0 `basePath`, or the path of the first OpenAPI 3.x server URL; operation
    /// paths are relative to it.
    pub base_path: Option<String>,
    /// Every path x method in document order; `excluded` is set only by
    /// [`LoadedSpec::apply_exclusions`] / [`Exclusions::apply`], never by loading.
    pub operations: Vec<SpecOperation>,
    /// Things skipped or bounded while loading (malformed parameters, truncated schemas).
    pub warnings: Vec<String>,
}

impl LoadedSpec {
    /// Marks excluded operations using this spec's base path; returns how many matched.
    pub fn apply_exclusions(&mut self, exclusions: &Exclusions) -> usize {
        exclusions
            .clone()
            .with_base_path(self.base_path.as_deref())
            .apply(&mut self.operations)
    }
}

/// How strictly to load.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LoadOptions {
    /// Make a dangling `$ref` inside a schema an error. By default it is kept as
    /// `{"$ref": .., "x-mastor-unresolved": true}` with a warning, because real specs
    /// ship with such refs (one corpus spec does) and the operation is still usable.
    /// A dangling ref to a parameter, response, request body or path item is always an
    /// error: the operation cannot be built without it.
    pub strict_refs: bool,
}

/// Loads the spec at `path` with default options. Every failure is a [`SpecError`]
/// naming the file.
pub fn load(path: &Path) -> Result<LoadedSpec, SpecError> {
    load_with(path, LoadOptions::default())
}

/// Loads the spec at `path` with explicit options.
pub fn load_with(path: &Path, options: LoadOptions) -> Result<LoadedSpec, SpecError> {
    let root = parse::read_document(path)?;
    load_value(path, root, options)
}

/// Loads a spec already parsed into a value; `path` names errors and anchors external refs.
pub fn load_value(path: &Path, root: Value, options: LoadOptions) -> Result<LoadedSpec, SpecError> {
    let not_a_spec = |reason: &str| SpecError::NotASpec {
        file: path.to_path_buf(),
        reason: reason.to_string(),
    };
    let Some(obj) = root.as_object() else {
        return Err(not_a_spec(&format!(
            "the top level is {}, not an object",
            kind(&root)
        )));
    };
    let unsupported = |version: String| SpecError::UnsupportedVersion {
        file: path.to_path_buf(),
        version,
    };
    let (version, swagger2) = if let Some(v) = obj.get("swagger") {
        let v = version_text(v);
        if v != "2.0" {
            return Err(unsupported(v));
        }
        (v, true)
    } else if let Some(v) = obj.get("openapi") {
        let v = version_text(v);
        if !v.starts_with("3.") {
            return Err(unsupported(v));
        }
        (v, false)
    } else if let Some(v) = obj.get("swaggerVersion") {
        return Err(unsupported(version_text(v)));
    } else {
        return Err(not_a_spec("no `swagger` or `openapi` version key"));
    };
    match obj.get("paths") {
        Some(Value::Object(_)) => {}
        Some(other) => {
            return Err(not_a_spec(&format!(
                "`paths` is {}, not an object",
                kind(other)
            )));
        }
        None => return Err(not_a_spec("no `paths`")),
    }
    let title = obj
        .get("info")
        .and_then(|i| i.get("title"))
        .and_then(Value::as_str)
        .map(str::to_string);
    let base_path = if swagger2 {
        obj.get("basePath")
            .and_then(Value::as_str)
            .map(str::to_string)
    } else {
        obj.get("servers")
            .and_then(Value::as_array)
            .and_then(|s| s.first())
            .and_then(|s| s.get("url"))
            .and_then(Value::as_str)
            .map(url_path)
    };
    let mut warnings = Vec::new();
    let mut resolver = resolve::Resolver::new(path, root, options.strict_refs);
    let operations = ops::walk_operations(&mut resolver, swagger2, &mut warnings)?;
    warnings.extend(
        resolver
            .take_unresolved()
            .into_iter()
            .map(|m| format!("{m} (kept as an unresolved marker)")),
    );
    if resolver.truncated() > 0 {
        warnings.push(format!(
            "{} schema references were left unexpanded (nesting deeper than {} or schema too large)",
            resolver.truncated(),
            resolve::MAX_REF_DEPTH
        ));
    }
    Ok(LoadedSpec {
        file: path.to_path_buf(),
        version,
        title,
        base_path,
        operations,
        warnings,
    })
}

/// The version as text; YAML may give `2.0` as a number.
fn version_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// The path part of a server URL: `http://h:1/api/` → `/api`, `/api/v31` → `/api/v31`,
/// `http://h:1` → `/`.
fn url_path(url: &str) -> String {
    let rest = match url.split_once("://") {
        Some((_, after)) => after.find('/').map_or("", |i| &after[i..]),
        None => url,
    };
    let rest = rest.split(['?', '#']).next().unwrap_or("");
    let trimmed = rest.trim_end_matches('/');
    if trimmed.is_empty() {
        "/".to_string()
    } else if trimmed.starts_with('/') {
        trimmed.to_string()
    } else {
        format!("/{trimmed}")
    }
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::url_path;

    #[test]
    fn server_url_paths() {
        assert_eq!(url_path("http://localhost:50109/"), "/");
        assert_eq!(url_path("http://localhost:8080"), "/");
        assert_eq!(url_path("/api/v31"), "/api/v31");
        assert_eq!(url_path("https://x.org/v1/?a=b"), "/v1");
        assert_eq!(url_path("{scheme}://{host}/base"), "/base");
    }
}
