//! Project helpers that hand a JDK handler the request path: `Http.segments(exchange)`
//! returning the parts after the context, `Http.rest(exchange)` returning the path after
//! it. Read from the helper's own body, one level deep, so that a handler branching on
//! `seg.length` and `seg[1].equals("cancel")` resolves as if it had split the path itself.
//!
//! Shapes understood, on every `return` of the body (an empty array literal, a guard for
//! the bare context, is compatible with any parts):
//! - the request path, possibly cut (`path.substring(CONTEXT.length())`): a path view;
//! - `path.split("/")` or a local holding it: parts as Java's `split` gives them;
//! - an expression built on such a split (`Arrays.stream(rest.split("/")).filter(..)`)
//!   in a body that drops empty parts (`filter`, `isEmpty`, `isBlank`): the non-empty
//!   parts. A list filled in a loop and returned is not read.

use super::dispatch::{Roles, find_roles, invocation_name, path_expr, split_of};
use super::fields::FieldExt;
use super::{PathView, Strip};
use std::collections::HashSet;
use tree_sitter::Node;

fn text<'a>(node: Node, src: &'a [u8]) -> &'a str {
    node.utf8_text(src).unwrap_or_default()
}

/// The view `body` returns, when it is such a helper.
pub(super) fn path_view_of(body: Node, src: &[u8]) -> Option<PathView> {
    let whole = body.utf8_text(src).ok()?;
    if !whole.contains("getPath") && !whole.contains("getRawPath") {
        return None;
    }
    let mut roles = Roles::default();
    find_roles(body, src, &mut roles);
    let drops_empty = any_node(body, &|n| {
        matches!(
            invocation_name(n, src),
            Some("filter" | "isEmpty" | "isBlank")
        )
    });
    let mut view: Option<PathView> = None;
    for r in returns(body) {
        let v = if let Some(strip) = path_expr(r, src, &roles) {
            PathView::Path(strip)
        } else if let Some(strip) = split_of(r, src, &roles) {
            PathView::Parts {
                strip,
                non_empty: false,
            }
        } else if let Some(strip) = (r.kind() == "identifier")
            .then(|| roles.parts.get(r.utf8_text(src).unwrap_or_default()))
            .flatten()
        {
            PathView::Parts {
                strip: strip.clone(),
                non_empty: false,
            }
        } else if r.kind() == "array_creation_expression" {
            continue;
        } else if drops_empty && let Some(strip) = first_split(r, src, &roles) {
            PathView::Parts {
                strip,
                non_empty: true,
            }
        } else {
            return None;
        };
        let strip = match &v {
            PathView::Path(s) | PathView::Parts { strip: s, .. } => s,
        };
        if matches!(strip, Some(Strip::Helper(_))) {
            return None;
        }
        if view.is_none() {
            view = Some(v);
        } else if view.as_ref() != Some(&v) {
            return None;
        }
    }
    view
}

/// The expressions of the body's `return` statements (not those of lambdas or nested
/// classes).
fn returns(body: Node) -> Vec<Node> {
    let mut out = Vec::new();
    let mut stack = vec![body];
    while let Some(n) = stack.pop() {
        if n.kind() == "return_statement" {
            if let Some(e) = n.named_child(0) {
                out.push(e);
            }
            continue;
        }
        if matches!(n.kind(), "lambda_expression" | "class_body") {
            continue;
        }
        let mut c = n.walk();
        stack.extend(n.named_children(&mut c));
    }
    out
}

/// The cut of the first `split("/")` of the request path in `expr`.
fn first_split(expr: Node, src: &[u8], roles: &Roles) -> Option<Option<Strip>> {
    let mut stack = vec![expr];
    while let Some(n) = stack.pop() {
        if let Some(strip) = split_of(n, src, roles) {
            let sep = n
                .field("arguments")
                .and_then(|a| a.named_child(0))
                .and_then(|a| a.utf8_text(src).ok());
            if sep == Some("\"/\"") {
                return Some(strip);
            }
        }
        let mut c = n.walk();
        let kids: Vec<Node> = n.named_children(&mut c).collect();
        stack.extend(kids.into_iter().rev());
    }
    None
}

fn any_node(node: Node, pred: &dyn Fn(Node) -> bool) -> bool {
    let mut stack = vec![node];
    while let Some(n) = stack.pop() {
        if pred(n) {
            return true;
        }
        let mut c = n.walk();
        stack.extend(n.named_children(&mut c));
    }
    false
}

/// Names the body knows the exchange by: parameters typed `HttpExchange` of the method or
/// lambda the body belongs to, a lambda's parameters, and receivers of request accessors.
pub(super) fn exchanges(body: Node, src: &[u8]) -> HashSet<String> {
    let mut out = HashSet::new();
    if let Some(parent) = body.parent()
        && let Some(params) = parent.field("parameters")
    {
        let mut c = params.walk();
        for p in params.named_children(&mut c) {
            let typed = p
                .field("type")
                .is_some_and(|t| text(t, src).ends_with("HttpExchange"));
            let untyped = parent.kind() == "lambda_expression" && p.kind() == "identifier";
            if untyped {
                out.insert(text(p, src).to_string());
            } else if let Some(n) = p.field("name").filter(|_| typed) {
                out.insert(text(n, src).to_string());
            }
        }
        if parent.kind() == "lambda_expression" && params.kind() == "identifier" {
            out.insert(text(params, src).to_string());
        }
    }
    let mut stack = vec![body];
    while let Some(n) = stack.pop() {
        if let Some(name) = invocation_name(n, src)
            && name.starts_with("getRequest")
            && let Some(o) = n.field("object").filter(|o| o.kind() == "identifier")
        {
            out.insert(text(o, src).to_string());
        }
        let mut c = n.walk();
        stack.extend(n.named_children(&mut c));
    }
    out
}

/// `Http.segments` for `Http.segments(exchange)`, `segments` for `segments(exchange)`: a
/// call of a static-looking project method given the exchange, which may return the path.
pub(super) fn helper_call(node: Node, src: &[u8], exchanges: &HashSet<String>) -> Option<String> {
    let name = invocation_name(node, src)?;
    let args = node.field("arguments")?;
    let mut c = args.walk();
    let given = args
        .named_children(&mut c)
        .any(|a| a.kind() == "identifier" && exchanges.contains(text(a, src)));
    if !given {
        return None;
    }
    match node.field("object") {
        None => Some(name.to_string()),
        Some(o) if o.kind() == "this" => Some(name.to_string()),
        Some(o)
            if o.kind() == "identifier"
                && text(o, src).starts_with(|c: char| c.is_ascii_uppercase()) =>
        {
            Some(format!("{}.{name}", text(o, src)))
        }
        _ => None,
    }
}
