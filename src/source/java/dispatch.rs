//! Dispatch chains inside JDK `HttpHandler`s: the `if`/`else` and `switch` branches on
//! `exchange.getRequestMethod()` and the request path.
//!
//! Only conditions of a few well-known shapes are understood (`equals`, `matches`,
//! `startsWith`, `endsWith`, `split("/").length` comparisons, combined with `!`, `&&`,
//! `||`); any other condition is not a dispatch condition and its branches are read as
//! plain code. This is a static approximation, not an interpreter.

use super::expr::decode_string_literal;
use super::fields::FieldExt;
use super::{Cond, DispatchLeaf};
use std::collections::HashSet;
use tree_sitter::Node;

fn text<'a>(node: Node, src: &'a [u8]) -> &'a str {
    node.utf8_text(src).unwrap_or_default()
}

/// Unqualified (or `this.`) method calls in `node`, in source order.
pub(super) fn unqualified_calls(node: Node, src: &[u8]) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![node];
    while let Some(n) = stack.pop() {
        if n.kind() == "method_invocation" {
            let object = n.field("object");
            if object.is_none_or(|o| o.kind() == "this")
                && let Some(name) = n.field("name")
            {
                out.push(text(name, src).to_string());
            }
        }
        if matches!(n.kind(), "lambda_expression" | "class_body") && n.id() != node.id() {
            continue;
        }
        let mut c = n.walk();
        let children: Vec<Node> = n.named_children(&mut c).collect();
        stack.extend(children.into_iter().rev());
    }
    out
}

/// Variables holding the request method, the request path and the path's `split` parts.
#[derive(Default)]
struct Roles {
    method: HashSet<String>,
    path: HashSet<String>,
    parts: HashSet<String>,
}

/// The dispatch leaves of a method or lambda body.
pub(super) fn dispatch_of(body: Node, src: &[u8]) -> Vec<DispatchLeaf> {
    let mut roles = Roles::default();
    find_roles(body, src, &mut roles);
    let mut leaves = Vec::new();
    walk(body, src, &roles, &[], &mut leaves);
    leaves
}

fn find_roles(body: Node, src: &[u8], roles: &mut Roles) {
    let mut stack = vec![body];
    let mut decls = Vec::new();
    while let Some(n) = stack.pop() {
        if n.kind() == "variable_declarator"
            && let (Some(name), Some(value)) = (n.field("name"), n.field("value"))
        {
            decls.push((text(name, src).to_string(), value));
        }
        let mut c = n.walk();
        stack.extend(n.named_children(&mut c));
    }
    decls.sort_by_key(|(_, v)| v.start_byte());
    for (name, value) in decls {
        if is_method_expr(value, src, roles) {
            roles.method.insert(name);
        } else if value.kind() == "method_invocation"
            && value.field("name").is_some_and(|n| text(n, src) == "split")
            && value
                .field("object")
                .is_some_and(|o| is_path_expr(o, src, roles))
        {
            roles.parts.insert(name);
        } else if is_path_expr(value, src, roles) {
            roles.path.insert(name);
        }
    }
}

fn invocation_name<'a>(node: Node, src: &'a [u8]) -> Option<&'a str> {
    (node.kind() == "method_invocation")
        .then(|| node.field("name").map(|n| text(n, src)))
        .flatten()
}

fn is_method_expr(node: Node, src: &[u8], roles: &Roles) -> bool {
    match node.kind() {
        "identifier" => roles.method.contains(text(node, src)),
        "parenthesized_expression" => node
            .named_child(0)
            .is_some_and(|n| is_method_expr(n, src, roles)),
        "method_invocation" => match invocation_name(node, src) {
            Some("getRequestMethod") => true,
            Some("toUpperCase" | "toLowerCase" | "trim" | "strip") => node
                .field("object")
                .is_some_and(|o| is_method_expr(o, src, roles)),
            _ => false,
        },
        _ => false,
    }
}

fn is_path_expr(node: Node, src: &[u8], roles: &Roles) -> bool {
    match node.kind() {
        "identifier" => roles.path.contains(text(node, src)),
        "parenthesized_expression" => node
            .named_child(0)
            .is_some_and(|n| is_path_expr(n, src, roles)),
        "method_invocation" => match invocation_name(node, src) {
            Some("getPath" | "getRawPath") => true,
            Some("toString") => node
                .field("object")
                .is_some_and(|o| invocation_name(o, src) == Some("getRequestURI")),
            Some("toLowerCase" | "trim" | "strip") => node
                .field("object")
                .is_some_and(|o| is_path_expr(o, src, roles)),
            _ => false,
        },
        _ => false,
    }
}

/// `i` for `parts[i]` where `parts` holds the split path.
fn part_index(node: Node, src: &[u8], roles: &Roles) -> Option<usize> {
    if node.kind() != "array_access" {
        return None;
    }
    let array = node.field("array")?;
    if array.kind() != "identifier" || !roles.parts.contains(text(array, src)) {
        return None;
    }
    text(node.field("index")?, src).parse().ok()
}

fn string_value(node: Node, src: &[u8]) -> Option<String> {
    (node.kind() == "string_literal").then(|| decode_string_literal(text(node, src)))
}

/// The dispatch condition `node` expresses, if it is one.
fn cond_of(node: Node, src: &[u8], roles: &Roles) -> Option<Cond> {
    match node.kind() {
        "parenthesized_expression" => cond_of(node.named_child(0)?, src, roles),
        "unary_expression" => {
            let op = node.field("operator").map(|o| text(o, src));
            if op == Some("!") {
                let inner = cond_of(node.field("operand")?, src, roles)?;
                Some(negate(inner))
            } else {
                None
            }
        }
        "binary_expression" => {
            let op = text(node.field("operator")?, src);
            let left = node.field("left")?;
            let right = node.field("right")?;
            match op {
                "&&" => {
                    let parts: Vec<Cond> = [left, right]
                        .into_iter()
                        .filter_map(|n| cond_of(n, src, roles))
                        .collect();
                    match parts.len() {
                        0 => None,
                        1 => parts.into_iter().next(),
                        _ => Some(Cond::And(parts)),
                    }
                }
                "||" => {
                    let l = cond_of(left, src, roles)?;
                    let r = cond_of(right, src, roles)?;
                    Some(Cond::Or(vec![l, r]))
                }
                "==" | "!=" | ">" | ">=" | "<" | "<=" => {
                    if left.kind() == "field_access"
                        && left
                            .field("field")
                            .is_some_and(|f| text(f, src) == "length")
                        && left.field("object").is_some_and(|o| {
                            o.kind() == "identifier" && roles.parts.contains(text(o, src))
                        })
                    {
                        let n = text(right, src).replace('_', "").parse().ok()?;
                        Some(Cond::SegCount {
                            op: op.to_string(),
                            n,
                        })
                    } else {
                        None
                    }
                }
                _ => None,
            }
        }
        "method_invocation" => {
            let name = invocation_name(node, src)?;
            let object = node.field("object")?;
            let args = node.field("arguments")?;
            let arg = args.named_child(0)?;
            match name {
                "equals" | "equalsIgnoreCase" | "contentEquals" => {
                    let (lit, other) = match (string_value(object, src), string_value(arg, src)) {
                        (Some(l), None) => (l, arg),
                        (None, Some(l)) => (l, object),
                        _ => return None,
                    };
                    if is_method_expr(other, src, roles) {
                        Some(Cond::Method(lit.to_ascii_uppercase()))
                    } else if is_path_expr(other, src, roles) {
                        Some(Cond::PathEquals(lit))
                    } else {
                        part_index(other, src, roles)
                            .map(|index| Cond::SegmentEquals { index, value: lit })
                    }
                }
                "matches" | "startsWith" | "endsWith" if is_path_expr(object, src, roles) => {
                    let lit = string_value(arg, src)?;
                    Some(match name {
                        "matches" => Cond::PathMatches(lit),
                        "startsWith" => Cond::PathStartsWith(lit),
                        _ => Cond::PathEndsWith(lit),
                    })
                }
                _ => None,
            }
        }
        _ => None,
    }
}

fn push_leaf(node: Node, src: &[u8], conds: Vec<Cond>, leaves: &mut Vec<DispatchLeaf>) {
    leaves.push(DispatchLeaf {
        conds,
        calls: unqualified_calls(node, src),
        line: node.start_position().row + 1,
    });
}

/// Walks statements under `node`; returns whether any dispatch branch was found.
fn walk(
    node: Node,
    src: &[u8],
    roles: &Roles,
    conds: &[Cond],
    leaves: &mut Vec<DispatchLeaf>,
) -> bool {
    match node.kind() {
        "if_statement" => {
            let cond = node.field("condition").and_then(|c| cond_of(c, src, roles));
            let cons = node.field("consequence");
            let alt = node.field("alternative");
            let Some(cond) = cond else {
                let a = cons.is_some_and(|c| walk(c, src, roles, conds, leaves));
                let b = alt.is_some_and(|c| walk(c, src, roles, conds, leaves));
                return a || b;
            };
            for (branch, c) in [(cons, cond.clone()), (alt, negate(cond.clone()))] {
                let Some(branch) = branch else { continue };
                let mut inner = conds.to_vec();
                inner.push(c);
                if !walk(branch, src, roles, &inner, leaves) {
                    push_leaf(branch, src, inner, leaves);
                }
            }
            true
        }
        "switch_expression" => {
            let Some(subject) = node.field("condition").and_then(|c| c.named_child(0)) else {
                return false;
            };
            let on_method = is_method_expr(subject, src, roles);
            let on_path = is_path_expr(subject, src, roles);
            if !on_method && !on_path {
                let mut c = node.walk();
                let kids: Vec<Node> = node.named_children(&mut c).collect();
                return walk_all(&kids, src, roles, conds, leaves);
            }
            let Some(block) = node.field("body") else {
                return false;
            };
            let mut c = block.walk();
            for group in block.named_children(&mut c) {
                let mut labels = Vec::new();
                let mut is_default = false;
                let mut c2 = group.walk();
                for part in group.named_children(&mut c2) {
                    if part.kind() != "switch_label" {
                        continue;
                    }
                    let mut c3 = part.walk();
                    let values: Vec<String> = part
                        .named_children(&mut c3)
                        .filter_map(|v| string_value(v, src))
                        .collect();
                    if values.is_empty() {
                        is_default = true;
                    }
                    labels.extend(values.into_iter().map(|v| {
                        if on_method {
                            Cond::Method(v.to_ascii_uppercase())
                        } else {
                            Cond::PathEquals(v)
                        }
                    }));
                }
                if is_default || labels.is_empty() {
                    continue;
                }
                let cond = if labels.len() == 1 {
                    labels.remove(0)
                } else {
                    Cond::Or(labels)
                };
                let mut inner = conds.to_vec();
                inner.push(cond);
                if !walk(group, src, roles, &inner, leaves) {
                    push_leaf(group, src, inner, leaves);
                }
            }
            true
        }
        "lambda_expression" | "class_body" => false,
        "block" | "constructor_body" => {
            // Guard clauses: `if (!GET) { throw ...; }` constrains the statements after it.
            let mut acc = conds.to_vec();
            let mut found = false;
            let mut c = node.walk();
            let kids: Vec<Node> = node.named_children(&mut c).collect();
            for k in kids {
                found |= walk(k, src, roles, &acc, leaves);
                if let Some(guard) = guard_cond(k, src, roles) {
                    acc.push(negate(guard));
                }
            }
            found
        }
        _ => {
            let mut c = node.walk();
            let kids: Vec<Node> = node.named_children(&mut c).collect();
            walk_all(&kids, src, roles, conds, leaves)
        }
    }
}

/// The condition of `if (c) { ...; return|throw; }` without `else`, if `c` is a dispatch
/// condition: the statements after it only run when `c` is false.
fn guard_cond(node: Node, src: &[u8], roles: &Roles) -> Option<Cond> {
    if node.kind() != "if_statement" || node.field("alternative").is_some() {
        return None;
    }
    let cons = node.field("consequence")?;
    let last = if cons.kind() == "block" {
        let mut c = cons.walk();
        cons.named_children(&mut c)
            .filter(|n| n.kind() != "line_comment" && n.kind() != "block_comment")
            .last()?
    } else {
        cons
    };
    if !matches!(last.kind(), "return_statement" | "throw_statement") {
        return None;
    }
    cond_of(node.field("condition")?, src, roles)
}

/// `!c`, without double negation.
fn negate(c: Cond) -> Cond {
    match c {
        Cond::Not(inner) => *inner,
        other => Cond::Not(Box::new(other)),
    }
}

/// Walks every node (no short-circuit: each may add leaves).
fn walk_all(
    nodes: &[Node],
    src: &[u8],
    roles: &Roles,
    conds: &[Cond],
    leaves: &mut Vec<DispatchLeaf>,
) -> bool {
    let mut found = false;
    for n in nodes {
        found |= walk(*n, src, roles, conds, leaves);
    }
    found
}
