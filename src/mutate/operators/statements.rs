//! Operators on statements: return values, removed calls and field writes, removed
//! validation throws.

use super::{Cx, Operator, Site};
use tree_sitter::Node;

/// Return values, by the enclosing method's declared type: booleans flip, numbers
/// become 0 (0 becomes 1), strings become "", collections and `Optional` become empty,
/// other objects become `null`. Returns inside lambdas are left alone (their type is not
/// written down).
pub(super) fn return_value(cx: &Cx, node: Node, out: &mut Vec<Site>) {
    let Some(expr) = node.named_child(0) else {
        return;
    };
    let Some(ty) = enclosing_return_type(cx, node) else {
        return;
    };
    let text = cx.text(expr).trim();
    let base = ty.split('<').next().unwrap_or(ty).trim();
    let base = base.rsplit('.').next().unwrap_or(base);
    let replacement = match base {
        "void" => return,
        "boolean" | "Boolean" => match text {
            "true" => "false".to_string(),
            "false" => "true".to_string(),
            _ => format!("!({text})"),
        },
        "int" | "long" | "short" | "byte" | "Integer" | "Long" | "Short" | "Byte" => {
            if text == "0" { "1" } else { "0" }.to_string()
        }
        "double" | "float" | "Double" | "Float" => {
            if text == "0.0" { "1.0" } else { "0.0" }.to_string()
        }
        "char" | "Character" => return,
        "String" | "CharSequence" => if text == "\"\"" { "null" } else { "\"\"" }.to_string(),
        "Optional" => "java.util.Optional.empty()".to_string(),
        "List" | "Collection" | "Iterable" => "java.util.Collections.emptyList()".to_string(),
        "Set" => "java.util.Collections.emptySet()".to_string(),
        "Map" => "java.util.Collections.emptyMap()".to_string(),
        _ => {
            if text == "null" {
                return;
            }
            "null".to_string()
        }
    };
    out.push(cx.site(Operator::ReturnValues, expr, replacement));
}

/// The declared return type of the method a `return` belongs to; `None` inside a lambda
/// or outside a method.
fn enclosing_return_type<'a>(cx: &'a Cx, node: Node) -> Option<&'a str> {
    let mut cur = node.parent();
    while let Some(n) = cur {
        match n.kind() {
            "lambda_expression" | "constructor_declaration" | "class_body" => return None,
            "method_declaration" => return n.child_by_field_name("type").map(|t| cx.text(t)),
            _ => cur = n.parent(),
        }
    }
    None
}

/// A method whose discarded call writes into a response or object: `put`, `set…`,
/// `add…`, `append`, `header`.
fn writes_a_field(name: &str) -> bool {
    matches!(name, "put" | "putAll" | "append" | "header" | "addProperty")
        || ["set", "add", "with"].iter().any(|p| {
            name.strip_prefix(p)
                .is_some_and(|rest| rest.chars().next().is_some_and(char::is_uppercase))
        })
        || name == "add"
        || name == "set"
}

/// Removes a statement that is a call whose result is discarded: a response field's
/// write (`put`, setters, `add`) or, for other calls, PITest's void method call removal.
pub(super) fn call_statement(cx: &Cx, node: Node, out: &mut Vec<Site>) {
    let Some(expr) = node.named_child(0) else {
        return;
    };
    if expr.kind() != "method_invocation" {
        return;
    }
    let name = expr
        .child_by_field_name("name")
        .map(|n| cx.text(n))
        .unwrap_or_default();
    let operator = if writes_a_field(name) {
        Operator::RemoveFieldWrite
    } else {
        Operator::VoidCall
    };
    out.push(cx.site(operator, node, ";"));
}

/// Removes a `throw` that guards an `if` branch (a validation or not-found check), so the
/// code goes on as if the check had passed.
pub(super) fn throw_in_guard(cx: &Cx, node: Node, out: &mut Vec<Site>) {
    let Some(parent) = node.parent() else {
        return;
    };
    let guarded = match parent.kind() {
        "if_statement" => true,
        "block" => parent.parent().is_some_and(|g| g.kind() == "if_statement"),
        _ => false,
    };
    if guarded {
        out.push(cx.site(Operator::RemoveThrow, node, ";"));
    }
}

/// Removes one step of a builder chain that ends in `.build()`:
/// `Pet.builder().name(n).age(a).build()` loses `.age(a)`.
pub(super) fn builder_step(cx: &Cx, node: Node, out: &mut Vec<Site>) {
    let name = node
        .child_by_field_name("name")
        .map(|n| cx.text(n))
        .unwrap_or_default();
    if name == "build" {
        return;
    }
    let Some(object) = node.child_by_field_name("object") else {
        return;
    };
    if object.kind() != "method_invocation" {
        return;
    }
    let mut top = node;
    while let Some(p) = top.parent() {
        let continues = p.kind() == "method_invocation"
            && p.child_by_field_name("object")
                .is_some_and(|o| o.id() == top.id());
        if !continues {
            break;
        }
        top = p;
    }
    let top_name = top
        .child_by_field_name("name")
        .map(|n| cx.text(n))
        .unwrap_or_default();
    if top.id() != node.id() && top_name == "build" {
        out.push(cx.site(Operator::RemoveFieldWrite, node, cx.text(object)));
    }
}
