//! Compile-time-constant expressions as the summary keeps them: enough to resolve
//! annotation values and `static final String` constants later, without the syntax tree.

use super::fields::FieldExt;
use serde::Serialize;
use tree_sitter::Node;

/// A constant-ish expression: annotation values and field initialisers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Expr {
    /// A string literal, escapes decoded.
    Str(String),
    /// A name: `X`, `Other.X`, `a.b.C.X`, `RequestMethod.GET`.
    Name(String),
    /// `a + b + ...` (string concatenation when any part is a string).
    Concat(Vec<Expr>),
    /// `{a, b}` in an annotation.
    Array(Vec<Expr>),
    /// Anything else, as written (numbers, calls, ...).
    Other(String),
}

impl Expr {
    /// The elements of an array value, or the value itself as a one-element list.
    pub fn elements(&self) -> Vec<&Expr> {
        match self {
            Expr::Array(items) => items.iter().collect(),
            other => vec![other],
        }
    }
}

/// Decodes a Java string literal (quotes included) into its value.
pub fn decode_string_literal(raw: &str) -> String {
    let inner = raw
        .strip_prefix("\"\"\"")
        .and_then(|s| s.strip_suffix("\"\"\""))
        .or_else(|| raw.strip_prefix('"').and_then(|s| s.strip_suffix('"')))
        .unwrap_or(raw);
    let mut out = String::with_capacity(inner.len());
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('r') => out.push('\r'),
            Some('b') => out.push('\u{8}'),
            Some('f') => out.push('\u{c}'),
            Some('s') => out.push(' '),
            Some('0') => out.push('\0'),
            Some('u') => {
                let hex: String = chars.by_ref().take(4).collect();
                match u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32) {
                    Some(ch) => out.push(ch),
                    None => {
                        out.push_str("\\u");
                        out.push_str(&hex);
                    }
                }
            }
            Some(other) => out.push(other),
            None => out.push('\\'),
        }
    }
    out
}

/// Converts an expression node into an [`Expr`].
pub(super) fn expr_of(node: Node, src: &[u8]) -> Expr {
    let text = || node.utf8_text(src).unwrap_or_default().to_string();
    match node.kind() {
        "string_literal" => Expr::Str(decode_string_literal(&text())),
        "identifier" | "scoped_identifier" => Expr::Name(text()),
        "field_access" => {
            let t = text();
            if t.chars()
                .all(|c| c.is_alphanumeric() || c == '_' || c == '.' || c == '$')
            {
                Expr::Name(t)
            } else {
                Expr::Other(t)
            }
        }
        "parenthesized_expression" => match node.named_child(0) {
            Some(inner) => expr_of(inner, src),
            None => Expr::Other(text()),
        },
        "binary_expression" => {
            let op = node
                .field("operator")
                .and_then(|o| o.utf8_text(src).ok())
                .unwrap_or_default();
            match (op, node.field("left"), node.field("right")) {
                ("+", Some(l), Some(r)) => {
                    let mut parts = Vec::new();
                    for side in [expr_of(l, src), expr_of(r, src)] {
                        match side {
                            Expr::Concat(inner) => parts.extend(inner),
                            other => parts.push(other),
                        }
                    }
                    Expr::Concat(parts)
                }
                _ => Expr::Other(text()),
            }
        }
        "element_value_array_initializer" | "array_initializer" => {
            let mut cursor = node.walk();
            Expr::Array(
                node.named_children(&mut cursor)
                    .filter(|c| c.kind() != "comment")
                    .map(|c| expr_of(c, src))
                    .collect(),
            )
        }
        _ => Expr::Other(text()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_escapes_used_in_regexes() {
        assert_eq!(decode_string_literal(r#""/pets/\\d+""#), r"/pets/\d+");
        assert_eq!(decode_string_literal(r#""a\"b\n""#), "a\"b\n");
        assert_eq!(decode_string_literal(r#""\u0041""#), "A");
    }

    #[test]
    fn elements_of_scalar_and_array() {
        let a = Expr::Array(vec![Expr::Str("".into()), Expr::Str("/save".into())]);
        assert_eq!(a.elements().len(), 2);
        assert_eq!(Expr::Str("x".into()).elements().len(), 1);
    }
}
