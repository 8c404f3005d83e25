//! Dispatch chains inside JDK `HttpHandler`s: the `if`/`else` and `switch` branches on
//! `exchange.getRequestMethod()` and the request path.
//!
//! Only conditions of a few well-known shapes are understood (`equals`, `matches`,
//! `startsWith`, `endsWith`, `split("/").length` comparisons, combined with `!`, `&&`,
//! `||`); any other condition is not a dispatch condition and its branches are read as
//! plain code. This is a static approximation, not an interpreter.

use super::expr::decode_string_literal;
use super::expr::expr_of;
use super::fields::FieldExt;
use super::{Cond, DispatchLeaf, Strip};
use std::collections::{HashMap, HashSet};
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

/// Variables holding the request method, the request path and the path's `split` parts;
/// path and parts remember the prefix cut off the request path first, if any. A local a
/// project helper fills from the exchange (`String[] seg = Http.segments(ex)`) is both,
/// cut by [`Strip::Helper`]: how it is used says which, the routes stage says what the
/// helper returns.
#[derive(Default)]
pub(super) struct Roles {
    method: HashSet<String>,
    pub(super) path: HashMap<String, Option<Strip>>,
    pub(super) parts: HashMap<String, Option<Strip>>,
}

/// `cond` as read on the path after `strip` (unchanged when nothing was cut off).
fn on_rest(strip: Option<Strip>, cond: Cond) -> Cond {
    match strip {
        None => cond,
        Some(strip) => Cond::Stripped {
            strip,
            cond: Box::new(cond),
        },
    }
}

/// The dispatch leaves of a method or lambda body.
pub(super) fn dispatch_of(body: Node, src: &[u8]) -> Vec<DispatchLeaf> {
    let mut roles = Roles::default();
    find_roles(body, src, &mut roles);
    let mut leaves = Vec::new();
    walk(body, src, &roles, &[], &mut leaves);
    leaves
}

pub(super) fn find_roles(body: Node, src: &[u8], roles: &mut Roles) {
    let exchanges = super::helper::exchanges(body, src);
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
        } else if let Some(strip) = split_of(value, src, roles) {
            roles.parts.insert(name, strip);
        } else if let Some(strip) = path_expr(value, src, roles) {
            roles.path.insert(name, strip);
        } else if let Some(call) = super::helper::helper_call(value, src, &exchanges) {
            let strip = Some(Strip::Helper(call));
            roles.path.insert(name.clone(), strip.clone());
            roles.parts.insert(name, strip);
        }
    }
}

pub(super) fn invocation_name<'a>(node: Node, src: &'a [u8]) -> Option<&'a str> {
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

/// `Some(strip)` when `node` is the request path, with the prefix cut off it if any.
pub(super) fn path_expr(node: Node, src: &[u8], roles: &Roles) -> Option<Option<Strip>> {
    match node.kind() {
        "identifier" => roles.path.get(text(node, src)).cloned(),
        "parenthesized_expression" => path_expr(node.named_child(0)?, src, roles),
        "method_invocation" => {
            let object = node.field("object");
            match invocation_name(node, src)? {
                "getPath" | "getRawPath" => Some(None),
                "toString" => {
                    (invocation_name(object?, src) == Some("getRequestURI")).then_some(None)
                }
                "toLowerCase" | "trim" | "strip" => path_expr(object?, src, roles),
                name @ ("substring" | "replace" | "replaceFirst") => {
                    // One cut only: a cut of an already cut path is not followed.
                    if path_expr(object?, src, roles)?.is_some() {
                        return None;
                    }
                    let args = node.field("arguments")?;
                    let mut c = args.walk();
                    let list: Vec<Node> = args.named_children(&mut c).collect();
                    if name == "substring" {
                        return (list.len() == 1).then(|| strip_len(list[0], src)).flatten();
                    }
                    let [from, to] = list.as_slice() else {
                        return None;
                    };
                    if string_value(*to, src).as_deref() != Some("") {
                        return None;
                    }
                    let lit = string_value(*from, src)?;
                    let lit = match name {
                        "replaceFirst" => lit.trim_start_matches('^').to_string(),
                        _ => lit,
                    };
                    Some(Some(Strip::Remove(lit)))
                }
                _ => None,
            }
        }
        _ => None,
    }
}

/// The cut made by `substring(arg)`: a number, a literal's or a constant's length, or the
/// handler's context path length.
fn strip_len(arg: Node, src: &[u8]) -> Option<Option<Strip>> {
    if arg.kind() == "decimal_integer_literal" {
        return Some(Some(Strip::Chars(text(arg, src).parse().ok()?)));
    }
    if invocation_name(arg, src) != Some("length") {
        return None;
    }
    let object = arg.field("object")?;
    if let Some(lit) = string_value(object, src) {
        return Some(Some(Strip::Chars(lit.chars().count())));
    }
    if invocation_name(object, src) == Some("getPath")
        && object
            .field("object")
            .is_some_and(|o| invocation_name(o, src) == Some("getHttpContext"))
    {
        return Some(Some(Strip::Context));
    }
    matches!(object.kind(), "identifier" | "field_access")
        .then(|| Some(Strip::Len(expr_of(object, src))))
}

/// `Some(strip)` when `node` is `path.split("/")` (of a possibly cut path).
pub(super) fn split_of(node: Node, src: &[u8], roles: &Roles) -> Option<Option<Strip>> {
    if invocation_name(node, src) != Some("split") {
        return None;
    }
    path_expr(node.field("object")?, src, roles)
}

/// `(i, strip)` for `parts[i]` where `parts` holds the split path.
fn part_index(node: Node, src: &[u8], roles: &Roles) -> Option<(usize, Option<Strip>)> {
    if node.kind() != "array_access" {
        return None;
    }
    let array = node.field("array")?;
    if array.kind() != "identifier" {
        return None;
    }
    let strip = roles.parts.get(text(array, src))?.clone();
    Some((text(node.field("index")?, src).parse().ok()?, strip))
}

/// `strip` when `node` is `parts.length` of split path parts.
fn parts_length(node: Node, src: &[u8], roles: &Roles) -> Option<Option<Strip>> {
    if node.kind() != "field_access" || node.field("field").map(|f| text(f, src)) != Some("length")
    {
        return None;
    }
    let o = node.field("object")?;
    if o.kind() != "identifier" {
        return None;
    }
    roles.parts.get(text(o, src)).cloned()
}

pub(super) fn string_value(node: Node, src: &[u8]) -> Option<String> {
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
                    let strip = parts_length(left, src, roles)?;
                    let n = text(right, src).replace('_', "").parse().ok()?;
                    let count = Cond::SegCount {
                        op: op.to_string(),
                        n,
                    };
                    Some(on_rest(strip, count))
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
                    } else if let Some(strip) = path_expr(other, src, roles) {
                        Some(on_rest(strip, Cond::PathEquals(lit)))
                    } else {
                        part_index(other, src, roles).map(|(index, strip)| {
                            on_rest(strip, Cond::SegmentEquals { index, value: lit })
                        })
                    }
                }
                "matches" | "startsWith" | "endsWith" => {
                    let strip = path_expr(object, src, roles)?;
                    let lit = string_value(arg, src)?;
                    let cond = match name {
                        "matches" => Cond::PathMatches(lit),
                        "startsWith" => Cond::PathStartsWith(lit),
                        _ => Cond::PathEndsWith(lit),
                    };
                    Some(on_rest(strip, cond))
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
            let Some(subject) = switch_subject(subject, src, roles) else {
                let mut c = node.walk();
                let kids: Vec<Node> = node.named_children(&mut c).collect();
                return walk_all(&kids, src, roles, conds, leaves);
            };
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
                    let values: Vec<Cond> = part
                        .named_children(&mut c3)
                        .filter_map(|v| subject.label(v, src))
                        .collect();
                    if values.is_empty() {
                        is_default = true;
                    }
                    labels.extend(values);
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
        "ternary_expression" => {
            // `method.equals("GET") ? get(ex) : notAllowed(ex)`: two branches.
            let Some(cond) = node.field("condition").and_then(|c| cond_of(c, src, roles)) else {
                let mut c = node.walk();
                let kids: Vec<Node> = node.named_children(&mut c).collect();
                return walk_all(&kids, src, roles, conds, leaves);
            };
            for (field, c) in [("consequence", cond.clone()), ("alternative", negate(cond))] {
                let Some(branch) = node.field(field) else {
                    continue;
                };
                let mut inner = conds.to_vec();
                inner.push(c);
                if !walk(branch, src, roles, &inner, leaves) {
                    push_leaf(branch, src, inner, leaves);
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

/// What a `switch` dispatches on, and so what its case labels mean.
enum Subject {
    Method,
    Path(Option<Strip>),
    /// `parts.length`: integer labels are segment counts.
    Count(Option<Strip>),
    /// `parts[i]`: string labels are segment values.
    Part(usize, Option<Strip>),
}

fn switch_subject(node: Node, src: &[u8], roles: &Roles) -> Option<Subject> {
    if is_method_expr(node, src, roles) {
        return Some(Subject::Method);
    }
    if let Some(strip) = path_expr(node, src, roles) {
        return Some(Subject::Path(strip));
    }
    if let Some(strip) = parts_length(node, src, roles) {
        return Some(Subject::Count(strip));
    }
    part_index(node, src, roles).map(|(i, strip)| Subject::Part(i, strip))
}

impl Subject {
    /// The condition a case label stands for; `None` for `default` and other labels.
    fn label(&self, v: Node, src: &[u8]) -> Option<Cond> {
        match self {
            Subject::Method => Some(Cond::Method(string_value(v, src)?.to_ascii_uppercase())),
            Subject::Path(strip) => Some(on_rest(
                strip.clone(),
                Cond::PathEquals(string_value(v, src)?),
            )),
            Subject::Count(strip) => {
                let n = (v.kind() == "decimal_integer_literal")
                    .then(|| text(v, src).parse().ok())
                    .flatten()?;
                let count = Cond::SegCount { op: "==".into(), n };
                Some(on_rest(strip.clone(), count))
            }
            Subject::Part(index, strip) => {
                let value = string_value(v, src)?;
                let seg = Cond::SegmentEquals {
                    index: *index,
                    value,
                };
                Some(on_rest(strip.clone(), seg))
            }
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
