//! Extraction and repair of JSON that a model wrapped or broke: code fences, prose
//! before or after the value, `<think>` blocks, trailing commas, simple single-quoted
//! strings, Python literals (`True`/`False`/`None`), raw newlines inside strings and a
//! truncated tail (open strings, arrays and objects closed, a dangling key or value
//! completed with `null`).
//!
//! It does not guess at meaning: anything it cannot turn into valid JSON by these
//! mechanical steps is reported as an error, and the client then re-asks the model once.

use serde_json::Value;

/// A successfully extracted value and what had to be changed to get it.
#[derive(Debug, Clone, PartialEq)]
pub struct Extracted {
    pub value: Value,
    /// Human-readable names of the repairs applied, in order; empty for clean JSON.
    pub repairs: Vec<String>,
}

/// Extraction failed; `reason` quotes the JSON parser's error on the best candidate.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{reason}")]
pub struct RepairError {
    pub reason: String,
}

/// Finds and repairs the JSON value in a model answer.
pub fn extract_json(text: &str) -> Result<Extracted, RepairError> {
    let mut repairs = Vec::new();
    let mut body = text.trim().to_string();
    if let Some(stripped) = strip_think(&body) {
        body = stripped;
        repairs.push("reasoning block removed".to_string());
    }
    if body.is_empty() {
        return Err(RepairError {
            reason: "the answer is empty".into(),
        });
    }
    if let Ok(value) = serde_json::from_str::<Value>(&body) {
        return Ok(Extracted { value, repairs });
    }
    let mut candidates: Vec<(String, Vec<String>)> = Vec::new();
    if let Some(inner) = fenced(&body) {
        candidates.push((inner, vec!["code fence".to_string()]));
    }
    candidates.push((body.clone(), Vec::new()));

    let mut first_error: Option<String> = None;
    for (cand, cand_repairs) in candidates {
        if let Ok(value) = serde_json::from_str::<Value>(cand.trim()) {
            repairs.extend(cand_repairs);
            return Ok(Extracted { value, repairs });
        }
        // Try each opening bracket as the start of the value, first one first.
        let starts: Vec<usize> = cand
            .char_indices()
            .filter(|(_, c)| *c == '{' || *c == '[')
            .map(|(i, _)| i)
            .take(8)
            .collect();
        for start in starts {
            let mut r = cand_repairs.clone();
            if !cand[..start].trim().is_empty() {
                r.push("leading prose".to_string());
            }
            let fixed = repair_from(&cand[start..], &mut r);
            match serde_json::from_str::<Value>(&fixed) {
                Ok(value) => {
                    repairs.extend(r);
                    return Ok(Extracted { value, repairs });
                }
                Err(e) => {
                    first_error.get_or_insert_with(|| {
                        format!("{e} (in the repaired text `{}`)", excerpt(&fixed))
                    });
                }
            }
        }
    }
    Err(RepairError {
        reason: first_error.unwrap_or_else(|| {
            format!(
                "no JSON object or array found in the answer `{}`",
                excerpt(&body)
            )
        }),
    })
}

fn excerpt(s: &str) -> String {
    let chars: Vec<char> = s.chars().collect();
    if chars.len() <= 200 {
        s.to_string()
    } else {
        format!("{}…", chars[..200].iter().collect::<String>())
    }
}

/// Removes `<think>…</think>` blocks (reasoning models); an unclosed block removes
/// everything after its opening tag.
fn strip_think(s: &str) -> Option<String> {
    if !s.contains("<think>") {
        return None;
    }
    let mut out = String::new();
    let mut rest = s;
    while let Some(i) = rest.find("<think>") {
        out.push_str(&rest[..i]);
        match rest[i..].find("</think>") {
            Some(j) => rest = &rest[i + j + "</think>".len()..],
            None => {
                rest = "";
                break;
            }
        }
    }
    out.push_str(rest);
    Some(out.trim().to_string())
}

/// The content of the first ``` fence (language tag dropped); an unclosed fence runs to
/// the end (truncated answers).
fn fenced(s: &str) -> Option<String> {
    let open = s.find("```")?;
    let after = &s[open + 3..];
    let body_start = after.find('\n').map(|i| i + 1).unwrap_or(after.len());
    let body = &after[body_start..];
    let end = body.find("```").unwrap_or(body.len());
    Some(body[..end].to_string())
}

#[derive(Clone, Copy, PartialEq, Debug)]
enum Expect {
    Key,
    Colon,
    Value,
    CommaOrEnd,
}

#[derive(Clone, Copy, PartialEq, Debug)]
enum Kind {
    Obj,
    Arr,
}

/// Re-writes `s` (starting at an opening bracket) into JSON text, stopping after the
/// matching close bracket and closing whatever is left open at the end.
fn repair_from(s: &str, repairs: &mut Vec<String>) -> String {
    let note = |r: &str, repairs: &mut Vec<String>| {
        if !repairs.iter().any(|x| x == r) {
            repairs.push(r.to_string());
        }
    };
    let chars: Vec<char> = s.chars().collect();
    let mut out = String::with_capacity(s.len() + 8);
    let mut stack: Vec<(Kind, Expect)> = Vec::new();
    let mut in_str: Option<char> = None;
    let mut escaped = false;
    let mut i = 0;
    let mut done_at: Option<usize> = None;
    // Start of the last bare literal in `out`, to drop it if cut short.
    let mut literal_start: Option<usize> = None;

    let after_value = |stack: &mut Vec<(Kind, Expect)>| {
        if let Some(top) = stack.last_mut() {
            top.1 = if top.0 == Kind::Obj && top.1 == Expect::Key {
                Expect::Colon
            } else {
                Expect::CommaOrEnd
            };
        }
    };

    while i < chars.len() {
        let c = chars[i];
        if let Some(q) = in_str {
            if escaped {
                escaped = false;
                out.push(c);
            } else if c == '\\' {
                escaped = true;
                out.push(c);
            } else if c == q {
                in_str = None;
                out.push('"');
                after_value(&mut stack);
            } else if c == '"' {
                out.push_str("\\\"");
            } else if c == '\n' {
                out.push_str("\\n");
                note("raw newline in string", repairs);
            } else if c == '\r' {
                out.push_str("\\r");
            } else if c == '\t' {
                out.push_str("\\t");
            } else {
                out.push(c);
            }
            i += 1;
            continue;
        }
        match c {
            '"' | '\'' => {
                if c == '\'' {
                    note("single quotes", repairs);
                }
                in_str = Some(c);
                literal_start = None;
                out.push('"');
            }
            '{' | '[' => {
                literal_start = None;
                out.push(c);
                stack.push(if c == '{' {
                    (Kind::Obj, Expect::Key)
                } else {
                    (Kind::Arr, Expect::Value)
                });
            }
            '}' | ']' => {
                literal_start = None;
                if drop_trailing_comma(&mut out) {
                    note("trailing comma", repairs);
                }
                let Some((kind, expect)) = stack.pop() else {
                    break;
                };
                if kind == Kind::Obj && matches!(expect, Expect::Colon | Expect::Value) {
                    close_dangling(&mut out, expect);
                    note("dangling key", repairs);
                }
                out.push(if kind == Kind::Obj { '}' } else { ']' });
                if stack.is_empty() {
                    done_at = Some(i + 1);
                    break;
                }
                after_value(&mut stack);
            }
            ',' => {
                literal_start = None;
                out.push(c);
                if let Some(top) = stack.last_mut() {
                    top.1 = if top.0 == Kind::Obj {
                        Expect::Key
                    } else {
                        Expect::Value
                    };
                }
            }
            ':' => {
                literal_start = None;
                out.push(c);
                if let Some(top) = stack.last_mut() {
                    top.1 = Expect::Value;
                }
            }
            c if c.is_whitespace() => out.push(c),
            '/' if chars.get(i + 1) == Some(&'/') => {
                while i < chars.len() && chars[i] != '\n' {
                    i += 1;
                }
                note("comment", repairs);
                continue;
            }
            _ => {
                // A bare token: number, true/false/null, or a Python literal.
                let start = i;
                while i < chars.len()
                    && (chars[i].is_alphanumeric() || matches!(chars[i], '-' | '+' | '.' | '_'))
                {
                    i += 1;
                }
                if i == start {
                    out.push(c);
                    i += 1;
                    continue;
                }
                let tok: String = chars[start..i].iter().collect();
                let mapped = match tok.as_str() {
                    "True" => Some("true"),
                    "False" => Some("false"),
                    "None" => Some("null"),
                    _ => None,
                };
                literal_start = Some(out.len());
                if let Some(m) = mapped {
                    note("python literal", repairs);
                    out.push_str(m);
                } else {
                    out.push_str(&tok);
                }
                // An unquoted object key is taken as a key.
                if let Some(top) = stack.last()
                    && top.0 == Kind::Obj
                    && top.1 == Expect::Key
                {
                    let lit_at = literal_start.unwrap_or(out.len());
                    out.truncate(lit_at);
                    out.push('"');
                    out.push_str(&tok);
                    out.push('"');
                    note("unquoted key", repairs);
                    literal_start = None;
                }
                after_value(&mut stack);
                continue;
            }
        }
        i += 1;
    }

    if let Some(end) = done_at {
        if chars[end..].iter().any(|c| !c.is_whitespace()) {
            note("trailing prose", repairs);
        }
        return out;
    }
    if stack.is_empty() && in_str.is_none() {
        return out;
    }
    note("closed truncated tail", repairs);
    if in_str.is_some() {
        if escaped {
            out.pop();
        }
        out.push('"');
        after_value(&mut stack);
    } else if let Some(ls) = literal_start {
        let lit = out[ls..].trim().to_string();
        if serde_json::from_str::<Value>(&lit).is_err() {
            // A literal cut short (`tru`, `1.`): replace it by null.
            out.truncate(ls);
            out.push_str("null");
        }
    }
    while let Some((kind, expect)) = stack.pop() {
        let trimmed = out.trim_end().len();
        out.truncate(trimmed);
        match (kind, expect) {
            (Kind::Obj, Expect::Colon) | (Kind::Obj, Expect::Value) => {
                close_dangling(&mut out, expect)
            }
            _ => {
                drop_trailing_comma(&mut out);
            }
        }
        out.push(if kind == Kind::Obj { '}' } else { ']' });
        if let Some(top) = stack.last_mut() {
            top.1 = Expect::CommaOrEnd;
        }
    }
    out
}

/// Completes a key without value: `"k"` → `"k":null`, `"k":` → `"k":null`.
fn close_dangling(out: &mut String, expect: Expect) {
    let trimmed = out.trim_end().len();
    out.truncate(trimmed);
    if expect == Expect::Colon {
        out.push(':');
    }
    out.push_str("null");
}

fn drop_trailing_comma(out: &mut String) -> bool {
    let trimmed = out.trim_end();
    if trimmed.ends_with(',') {
        let len = trimmed.len() - 1;
        out.truncate(len);
        true
    } else {
        false
    }
}

#[cfg(test)]
mod tests;
