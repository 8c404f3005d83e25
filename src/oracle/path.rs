//! Field paths into a JSON response body: `name`, `owner.email`, `[0].id`, `items[*].tag`.
//!
//! Grammar: segments separated by `.`; a segment is a key followed by any number of
//! `[n]` (index) or `[*]` (every element). `""` and `$` denote the whole body, and a
//! leading `$.` is accepted and ignored (JSONPath habit). A key that contains dots or
//! brackets is written quoted inside brackets, JSON-string style: `["a.b"]`.
//!
//! Resolution of a `[*]` path yields one match per element. Callers decide what a match
//! list means; `runner::assert` requires every match to hold and the list to be non-empty.
//! This module does not evaluate assertions and never modifies the body.

use serde_json::Value;
use std::fmt;

/// One step of a field path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Segment {
    /// Object member by name.
    Key(String),
    /// Array element by position (0-based).
    Index(usize),
    /// Every element of an array.
    Each,
}

/// A parsed field path; keeps its source text for messages.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldPath {
    raw: String,
    segments: Vec<Segment>,
}

/// Why a field path string could not be parsed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("field path `{path}`: {reason} (at character {at})")]
pub struct PathError {
    pub path: String,
    pub at: usize,
    pub reason: String,
}

/// One value a path reached (or did not: `value` is `None` when the member is missing).
#[derive(Debug, Clone, PartialEq)]
pub struct Match<'a> {
    /// The concrete path of this match, e.g. `items[2].tag`.
    pub at: String,
    pub value: Option<&'a Value>,
}

impl FieldPath {
    /// Parses a field path; the error names the position and what was expected.
    pub fn parse(text: &str) -> Result<Self, PathError> {
        let raw = text.to_string();
        let trimmed = text.trim();
        let body = if trimmed == "$" {
            ""
        } else {
            trimmed.strip_prefix("$.").unwrap_or(trimmed)
        };
        let offset = text.len() - body.len();
        let err = |at: usize, reason: &str| PathError {
            path: raw.clone(),
            at: at + offset,
            reason: reason.to_string(),
        };
        let chars: Vec<(usize, char)> = body.char_indices().collect();
        let mut segments = Vec::new();
        let mut i = 0;
        let mut expect_key = true;
        while i < chars.len() {
            let (pos, c) = chars[i];
            match c {
                '.' => {
                    if expect_key || i + 1 == chars.len() {
                        return Err(err(pos, "empty segment"));
                    }
                    expect_key = true;
                    i += 1;
                }
                '[' => {
                    let close = chars[i..]
                        .iter()
                        .position(|&(_, ch)| ch == ']')
                        .map(|p| p + i);
                    let inner_start = i + 1;
                    if chars.get(inner_start).map(|&(_, ch)| ch) == Some('"') {
                        let (key, next) = parse_quoted(&chars, inner_start)
                            .ok_or_else(|| err(pos, "unterminated quoted key"))?;
                        if chars.get(next).map(|&(_, ch)| ch) != Some(']') {
                            return Err(err(pos, "expected `]` after quoted key"));
                        }
                        segments.push(Segment::Key(key));
                        i = next + 1;
                    } else {
                        let close = close.ok_or_else(|| err(pos, "missing `]`"))?;
                        let inner: String = chars[inner_start..close]
                            .iter()
                            .map(|&(_, ch)| ch)
                            .collect();
                        if inner == "*" {
                            segments.push(Segment::Each);
                        } else {
                            let n = inner.parse::<usize>().map_err(|_| {
                                err(pos, "expected a non-negative index, `*` or a quoted key inside `[]`")
                            })?;
                            segments.push(Segment::Index(n));
                        }
                        i = close + 1;
                    }
                    expect_key = false;
                }
                ']' => return Err(err(pos, "unexpected `]`")),
                _ => {
                    if !expect_key {
                        return Err(err(pos, "expected `.` or `[` before a key"));
                    }
                    let start = i;
                    while i < chars.len() && !matches!(chars[i].1, '.' | '[' | ']') {
                        i += 1;
                    }
                    let key: String = chars[start..i].iter().map(|&(_, ch)| ch).collect();
                    segments.push(Segment::Key(key));
                    expect_key = false;
                }
            }
        }
        Ok(Self { raw, segments })
    }

    /// The path as written.
    pub fn as_str(&self) -> &str {
        &self.raw
    }

    /// The parsed segments.
    pub fn segments(&self) -> &[Segment] {
        &self.segments
    }

    /// True for `""`: the assertion is about the whole body.
    pub fn is_root(&self) -> bool {
        self.segments.is_empty()
    }

    /// True when the path contains `[*]`, so it can reach many values.
    pub fn has_wildcard(&self) -> bool {
        self.segments.contains(&Segment::Each)
    }

    /// Resolves the path in `root`. A missing member or index gives a match with `None`;
    /// `[*]` on something that is not an array is an error naming where, because "every
    /// element" of a non-list has no sensible meaning.
    pub fn resolve<'a>(&self, root: &'a Value) -> Result<Vec<Match<'a>>, String> {
        let mut current = vec![Match {
            at: String::new(),
            value: Some(root),
        }];
        for seg in &self.segments {
            let mut next = Vec::with_capacity(current.len());
            for m in current {
                let here = m.at;
                match (seg, m.value) {
                    (Segment::Key(k), v) => next.push(Match {
                        at: join_key(&here, k),
                        value: v.and_then(|v| v.as_object()).and_then(|o| o.get(k)),
                    }),
                    (Segment::Index(n), v) => next.push(Match {
                        at: format!("{here}[{n}]"),
                        value: v.and_then(|v| v.as_array()).and_then(|a| a.get(*n)),
                    }),
                    (Segment::Each, Some(Value::Array(items))) => {
                        for (n, item) in items.iter().enumerate() {
                            next.push(Match {
                                at: format!("{here}[{n}]"),
                                value: Some(item),
                            });
                        }
                    }
                    (Segment::Each, other) => {
                        let shown = if here.is_empty() {
                            "the body"
                        } else {
                            here.as_str()
                        };
                        return Err(match other {
                            None => format!("`{shown}` is missing, so `[*]` has no elements"),
                            Some(v) => format!("`{shown}` is {}, not an array", kind(v)),
                        });
                    }
                }
            }
            current = next;
        }
        Ok(current)
    }
}

impl fmt::Display for FieldPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.raw.is_empty() {
            f.write_str("body")
        } else {
            f.write_str(&self.raw)
        }
    }
}

/// A JSON type name in words, for messages.
pub fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn join_key(prefix: &str, key: &str) -> String {
    let plain = !key.is_empty() && !key.contains(['.', '[', ']', '"']);
    match (prefix.is_empty(), plain) {
        (true, true) => key.to_string(),
        (false, true) => format!("{prefix}.{key}"),
        (_, false) => format!("{prefix}[{}]", Value::from(key)),
    }
}

/// Parses a JSON string literal starting at `chars[start]` (a `"`); returns the decoded
/// key and the index just after the closing quote.
fn parse_quoted(chars: &[(usize, char)], start: usize) -> Option<(String, usize)> {
    let mut literal = String::from('"');
    let mut i = start + 1;
    let mut escaped = false;
    while i < chars.len() {
        let c = chars[i].1;
        literal.push(c);
        if escaped {
            escaped = false;
        } else if c == '\\' {
            escaped = true;
        } else if c == '"' {
            let key: String = serde_json::from_str(&literal).ok()?;
            return Some((key, i + 1));
        }
        i += 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn values(path: &str, body: &Value) -> Vec<Option<Value>> {
        FieldPath::parse(path)
            .unwrap()
            .resolve(body)
            .unwrap()
            .into_iter()
            .map(|m| m.value.cloned())
            .collect()
    }

    #[test]
    fn parses_keys_indices_wildcards_and_quoted_keys() {
        let p = FieldPath::parse(r#"items[*].tags[0]["a.b"]"#).unwrap();
        assert_eq!(
            p.segments(),
            &[
                Segment::Key("items".into()),
                Segment::Each,
                Segment::Key("tags".into()),
                Segment::Index(0),
                Segment::Key("a.b".into()),
            ]
        );
        assert!(p.has_wildcard());
        assert!(FieldPath::parse("").unwrap().is_root());
        assert!(FieldPath::parse("$").unwrap().is_root());
        assert_eq!(
            FieldPath::parse("$.a").unwrap().segments(),
            &[Segment::Key("a".into())]
        );
    }

    #[test]
    fn rejects_malformed_paths_with_position() {
        for bad in ["a..b", "a.", ".a", "a[x]", "a[1", "a]", r#"a["b]"#, "a[0]b"] {
            let e = FieldPath::parse(bad).unwrap_err();
            assert_eq!(e.path, bad);
        }
    }

    #[test]
    fn resolves_index_missing_and_every_element() {
        let body = json!({"items": [{"n": 1}, {"n": 2}, {}], "a.b": 7});
        assert_eq!(values("items[1].n", &body), vec![Some(json!(2))]);
        assert_eq!(values("items[5].n", &body), vec![None]);
        assert_eq!(
            values("items[*].n", &body),
            vec![Some(json!(1)), Some(json!(2)), None]
        );
        assert_eq!(values(r#"["a.b"]"#, &body), vec![Some(json!(7))]);
        assert_eq!(values("", &body), vec![Some(body.clone())]);
        let at: Vec<String> = FieldPath::parse("items[*].n")
            .unwrap()
            .resolve(&body)
            .unwrap()
            .into_iter()
            .map(|m| m.at)
            .collect();
        assert_eq!(at, ["items[0].n", "items[1].n", "items[2].n"]);
    }

    #[test]
    fn wildcard_on_non_array_is_an_error() {
        let body = json!({"items": {"x": 1}});
        let e = FieldPath::parse("items[*]")
            .unwrap()
            .resolve(&body)
            .unwrap_err();
        assert!(e.contains("not an array"), "{e}");
        let e = FieldPath::parse("nope[*]")
            .unwrap()
            .resolve(&body)
            .unwrap_err();
        assert!(e.contains("missing"), "{e}");
    }
}
