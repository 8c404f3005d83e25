//! Operators on expressions: comparisons, arithmetic, increments, conditions, constants.

use super::rest::status_literal;
use super::{Cx, Operator, Site};
use tree_sitter::Node;

/// Conditionals boundary, negate conditionals and math on a binary expression.
pub(super) fn binary(cx: &Cx, node: Node, out: &mut Vec<Site>) {
    let Some(op) = node.child_by_field_name("operator") else {
        return;
    };
    let boundary = match op.kind() {
        "<" => Some("<="),
        "<=" => Some("<"),
        ">" => Some(">="),
        ">=" => Some(">"),
        _ => None,
    };
    if let Some(b) = boundary {
        out.push(cx.site(Operator::ConditionalsBoundary, op, b));
    }
    let negated = match op.kind() {
        "<" => Some(">="),
        "<=" => Some(">"),
        ">" => Some("<="),
        ">=" => Some("<"),
        "==" => Some("!="),
        "!=" => Some("=="),
        _ => None,
    };
    if let Some(n) = negated {
        out.push(cx.site(Operator::NegateConditionals, op, n));
    }
    let math = match op.kind() {
        "+" if !concatenates(node) => Some("-"),
        "-" => Some("+"),
        "*" => Some("/"),
        "/" => Some("*"),
        "%" => Some("*"),
        "&" => Some("|"),
        "|" => Some("&"),
        "^" => Some("&"),
        "<<" => Some(">>"),
        ">>" | ">>>" => Some("<<"),
        _ => None,
    };
    if let Some(m) = math {
        out.push(cx.site(Operator::Math, op, m));
    }
}

/// True when a `+` joins strings: a literal string or another concatenation on either
/// side (its `-` would never compile, so it is not offered).
fn concatenates(node: Node) -> bool {
    ["left", "right"].iter().any(|f| {
        node.child_by_field_name(f).is_some_and(|side| {
            side.kind() == "string_literal"
                || (side.kind() == "binary_expression" && concatenates(side))
        })
    })
}

/// `i++` ↔ `i--`, `++i` ↔ `--i`.
pub(super) fn update(cx: &Cx, node: Node, out: &mut Vec<Site>) {
    let mut cursor = node.walk();
    for child in node.children(&mut cursor) {
        let swapped = match child.kind() {
            "++" => "--",
            "--" => "++",
            _ => continue,
        };
        out.push(cx.site(Operator::Increments, child, swapped));
    }
}

/// `+=` ↔ `-=`, `*=` ↔ `/=` (math).
pub(super) fn compound_assignment(cx: &Cx, node: Node, out: &mut Vec<Site>) {
    let Some(op) = node.child_by_field_name("operator") else {
        return;
    };
    let appends_text = node
        .child_by_field_name("right")
        .is_some_and(|r| r.kind() == "string_literal");
    let swapped = match op.kind() {
        "+=" if !appends_text => "-=",
        "-=" => "+=",
        "*=" => "/=",
        "/=" => "*=",
        _ => return,
    };
    out.push(cx.site(Operator::Math, op, swapped));
}

/// Negates the condition of an `if`, `while` or `?:` that is not a comparison (those are
/// negated at their operator): `method.equals("GET")` becomes `!(method.equals("GET"))`
/// and `!x` becomes `x`.
pub(super) fn condition(cx: &Cx, node: Node, out: &mut Vec<Site>) {
    let Some(mut cond) = node.child_by_field_name("condition") else {
        return;
    };
    while cond.kind() == "parenthesized_expression" {
        match cond.named_child(0) {
            Some(inner) => cond = inner,
            None => return,
        }
    }
    if cond.kind() == "binary_expression"
        && cond
            .child_by_field_name("operator")
            .is_some_and(|op| matches!(op.kind(), "<" | "<=" | ">" | ">=" | "==" | "!="))
    {
        return;
    }
    let text = cx.text(cond);
    let negated = if cond.kind() == "unary_expression" && text.starts_with('!') {
        match cond.child_by_field_name("operand") {
            Some(operand) => cx.text(operand).to_string(),
            None => return,
        }
    } else {
        format!("!({text})")
    };
    out.push(cx.site(Operator::NegateConditionals, cond, negated));
}

/// Inline constant: integers become n+1 (1 becomes 0), booleans flip. An integer that is
/// an HTTP status argument is left to the status swap.
pub(super) fn constant(cx: &Cx, node: Node, out: &mut Vec<Site>) {
    let text = cx.text(node);
    let replacement = match node.kind() {
        "true" => "false".to_string(),
        "false" => "true".to_string(),
        _ => {
            if status_literal(cx, node, out) {
                return;
            }
            let (digits, suffix) = match text.strip_suffix(['L', 'l']) {
                Some(d) => (d, &text[d.len()..]),
                None => (text, ""),
            };
            let clean = digits.replace('_', "");
            let Ok(n) = clean.parse::<i64>() else {
                return;
            };
            let m = if n == 1 { 0 } else { n.saturating_add(1) };
            format!("{m}{suffix}")
        }
    };
    out.push(cx.site(Operator::InlineConstant, node, replacement));
}
