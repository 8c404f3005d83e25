//! Where a value sits in an edited JSON text, so an editor error names the line the
//! reviewer typed it on.
//!
//! serde reports a data error (a bad value inside an assertion, an unknown op) at the
//! position where it *noticed* it, which for internally tagged values is the end of the
//! enclosing object, often lines below the typo. The path of the bad value
//! (`serde_path_to_error`) is exact, so the line is found by walking the text to that
//! path instead.

use serde::de::DeserializeOwned;

/// One step of a path: an object key or an array index.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Part {
    Key(String),
    Index(usize),
}

/// Parses `text` as `T`. Syntax errors keep serde's own position (exact); data errors
/// name the path of the offending value and the line it starts on.
pub fn parse<T: DeserializeOwned>(text: &str) -> Result<T, String> {
    let mut de = serde_json::Deserializer::from_str(text);
    match serde_path_to_error::deserialize::<_, T>(&mut de) {
        Ok(v) => Ok(v),
        Err(e) => {
            let path = parts(e.path());
            let inner = e.into_inner();
            if inner.classify() != serde_json::error::Category::Data || path.is_empty() {
                return Err(inner.to_string());
            }
            let shown: String = path
                .iter()
                .enumerate()
                .map(|(i, p)| match p {
                    Part::Key(k) if i == 0 => k.clone(),
                    Part::Key(k) => format!(".{k}"),
                    Part::Index(n) => format!("[{n}]"),
                })
                .collect();
            let why = strip_position(&inner.to_string());
            Err(match line_of(text, &path) {
                Some(line) => format!("{why} at `{shown}` (line {line})"),
                None => format!("{why} at `{shown}`"),
            })
        }
    }
}

/// [`parse`], and a key the type does not know is an error too (serde ignores it), named
/// with its path and line: an edited file must not lose what the reviewer typed without
/// a word. A key is the type's when it survives a round trip, or when a value of the
/// wrong type under it makes the parse fail (a field left out because it is empty).
pub fn parse_strict<T: DeserializeOwned + serde::Serialize>(text: &str) -> Result<T, String> {
    let value: T = parse(text)?;
    let raw: serde_json::Value = serde_json::from_str(text).map_err(|e| e.to_string())?;
    let kept = serde_json::to_value(&value).map_err(|e| e.to_string())?;
    let mut path = Vec::new();
    let mut probes = MAX_PROBES;
    if let Some(bad) = unknown_key::<T>(&raw, &raw, Some(&kept), &mut path, &mut probes) {
        let Some(Part::Key(key)) = bad.last() else {
            return Err("too many keys the type does not keep".into());
        };
        let shown = shown_path(&bad);
        return Err(match line_of(text, &bad) {
            Some(line) => format!("unknown key `{key}` at `{shown}` (line {line})"),
            None => format!("unknown key `{key}` at `{shown}`"),
        });
    }
    Ok(value)
}

/// Most keys probed for one parse (each probe is one more parse of the text).
const MAX_PROBES: usize = 500;

/// The path of the first key of `raw` that neither survives in `kept` nor is the
/// type's (see [`parse_strict`]); an empty path when the probes ran out.
fn unknown_key<T: DeserializeOwned + serde::Serialize>(
    root: &serde_json::Value,
    raw: &serde_json::Value,
    kept: Option<&serde_json::Value>,
    path: &mut Vec<Part>,
    probes: &mut usize,
) -> Option<Vec<Part>> {
    use serde_json::Value;
    match raw {
        Value::Object(map) => {
            for (k, v) in map {
                path.push(Part::Key(k.clone()));
                let found = match kept.and_then(|o| o.get(k)) {
                    Some(kv) => unknown_key::<T>(root, v, Some(kv), path, probes),
                    None if *probes == 0 => Some(Vec::new()),
                    None => {
                        *probes -= 1;
                        (!known_by_probe::<T>(root, path)).then(|| path.clone())
                    }
                };
                path.pop();
                if found.is_some() {
                    return found;
                }
            }
            None
        }
        Value::Array(items) => {
            for (i, v) in items.iter().enumerate() {
                path.push(Part::Index(i));
                let found = unknown_key::<T>(root, v, kept.and_then(|a| a.get(i)), path, probes);
                path.pop();
                if found.is_some() {
                    return found;
                }
            }
            None
        }
        _ => None,
    }
}

/// Whether the key at `path` is the type's: a wrong-typed value under it fails the
/// parse, or a value the type keeps as it is survives the round trip.
fn known_by_probe<T: DeserializeOwned + serde::Serialize>(
    root: &serde_json::Value,
    path: &[Part],
) -> bool {
    let pointer = pointer_of(path);
    let mut probed = root.clone();
    match probed.pointer_mut(&pointer) {
        Some(slot) => *slot = serde_json::json!(0.5),
        None => return false,
    }
    match serde_json::from_value::<T>(probed) {
        Err(_) => true,
        Ok(v) => serde_json::to_value(&v)
            .ok()
            .is_some_and(|v| v.pointer(&pointer).is_some()),
    }
}

/// `a.b[2]` as the JSON pointer `/a/b/2`.
fn pointer_of(path: &[Part]) -> String {
    path.iter()
        .map(|p| match p {
            Part::Key(k) => format!("/{}", k.replace('~', "~0").replace('/', "~1")),
            Part::Index(i) => format!("/{i}"),
        })
        .collect()
}

/// `a.b[2].c`, as error messages name a place.
fn shown_path(path: &[Part]) -> String {
    path.iter()
        .enumerate()
        .map(|(i, p)| match p {
            Part::Key(k) if i == 0 => k.clone(),
            Part::Key(k) => format!(".{k}"),
            Part::Index(n) => format!("[{n}]"),
        })
        .collect()
}

fn parts(path: &serde_path_to_error::Path) -> Vec<Part> {
    use serde_path_to_error::Segment;
    path.iter()
        .filter_map(|s| match s {
            Segment::Seq { index } => Some(Part::Index(*index)),
            Segment::Map { key } => Some(Part::Key(key.clone())),
            _ => None,
        })
        .collect()
}

/// `msg at line 22 column 5` → `msg`.
fn strip_position(msg: &str) -> String {
    match msg.rfind(" at line ") {
        Some(i) => msg[..i].to_string(),
        None => msg.to_string(),
    }
}

/// A container being walked: an object (with the key of the value being read) or an
/// array (with the index of the value being read).
enum Frame {
    Object { key: Option<String> },
    Array { index: usize },
}

/// The 1-based line where the value at `path` starts in `text` (a key's line for an
/// object member), or `None` when the text has no such value.
fn line_of(text: &str, path: &[Part]) -> Option<usize> {
    let mut stack: Vec<Frame> = Vec::new();
    let mut line = 1;
    let mut chars = text.chars().peekable();
    let mut expect_key = false;
    let here = |stack: &[Frame]| -> Vec<Part> {
        stack
            .iter()
            .filter_map(|f| match f {
                Frame::Object { key } => key.clone().map(Part::Key),
                Frame::Array { index } => Some(Part::Index(*index)),
            })
            .collect()
    };
    while let Some(c) = chars.next() {
        match c {
            '\n' => line += 1,
            '"' => {
                let mut s = String::new();
                while let Some(c) = chars.next() {
                    match c {
                        '\\' => {
                            chars.next();
                        }
                        '"' => break,
                        '\n' => line += 1,
                        c => s.push(c),
                    }
                }
                if expect_key {
                    if let Some(Frame::Object { key }) = stack.last_mut() {
                        *key = Some(s);
                    }
                    expect_key = false;
                    if here(&stack) == path {
                        return Some(line);
                    }
                } else if here(&stack) == path {
                    return Some(line);
                }
            }
            '{' | '[' => {
                if here(&stack) == path {
                    return Some(line);
                }
                if c == '{' {
                    stack.push(Frame::Object { key: None });
                    expect_key = true;
                } else {
                    stack.push(Frame::Array { index: 0 });
                }
            }
            '}' | ']' => {
                stack.pop();
            }
            ',' => match stack.last_mut() {
                Some(Frame::Array { index }) => *index += 1,
                Some(Frame::Object { key }) => {
                    *key = None;
                    expect_key = true;
                }
                None => {}
            },
            c if !c.is_whitespace() && c != ':' => {
                if here(&stack) == path {
                    return Some(line);
                }
                // The rest of a number or literal.
                while chars
                    .peek()
                    .is_some_and(|n| !matches!(n, ',' | '}' | ']' | '\n') && !n.is_whitespace())
                {
                    chars.next();
                }
            }
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Oracle;

    const EDITED: &str = r#"{
  "test_id": "t1",
  "op_id": "GET /pets",
  "description": "d",
  "assertions": [
    {
      "type": "status",
      "expected": 200
    },
    {
      "type": "field",
      "field_path": "name",
      "op": "equalz",
      "expected": "rex"
    }
  ],
  "evidence": "e"
}"#;

    #[test]
    fn a_bad_value_inside_a_tagged_assertion_is_reported_where_the_assertion_starts() {
        let err = parse::<Oracle>(EDITED).unwrap_err();
        assert!(err.contains("`assertions[1]` (line 10)"), "{err}");
        assert!(err.contains("equalz"), "{err}");
        assert!(!err.contains("line 15"), "{err}");
    }

    #[test]
    fn a_bad_plain_value_is_reported_on_its_own_line() {
        let text = EDITED.replace("\"description\": \"d\"", "\"description\": 7");
        let err = parse::<Oracle>(&text).unwrap_err();
        assert!(err.contains("`description` (line 4)"), "{err}");
    }

    #[test]
    fn strict_parsing_names_an_unknown_key_and_accepts_empty_known_ones() {
        use crate::model::SourceContext;
        let ok = r#"{"op_id": "GET /a", "error_envelopes": [],
  "response_schema": {"error_cases": [{"status": 404, "body": [], "envelope": null}]}}"#;
        assert!(parse_strict::<SourceContext>(ok).is_ok());
        let bad = r#"{"op_id": "GET /a",
  "response_schema": {"error_cases": [
    {"status": 404,
     "conditon": "no pet"}]}}"#;
        let err = parse_strict::<SourceContext>(bad).unwrap_err();
        assert!(
            err.contains(
                "unknown key `conditon` at `response_schema.error_cases[0].conditon` (line 4)"
            ),
            "{err}"
        );
    }

    #[test]
    fn a_syntax_error_keeps_serdes_exact_position() {
        let text = EDITED.replace("\"op\": \"equalz\",", "\"op\": \"equals\"");
        let err = parse::<Oracle>(&text).unwrap_err();
        assert!(err.contains("line 14"), "{err}");
    }
}
