//! REST-specific operators: HTTP status swaps and swaps of same-typed arguments.

use super::{Cx, Operator, Site};
use std::collections::BTreeMap;
use tree_sitter::Node;

/// The status a swap turns `code` into: the neighbour a real bug would produce (200 and
/// 201 trade places, 400 and 404, 401 and 403; a 5xx becomes 400).
pub fn swapped_status(code: u16) -> u16 {
    match code {
        200 => 201,
        201 => 200,
        202 | 204 => 200,
        400 => 404,
        404 => 400,
        401 => 403,
        403 => 401,
        405 | 410 => 404,
        409 | 415 | 422 => 400,
        500 => 400,
        503 => 500,
        c if (200..300).contains(&c) => 200,
        c if (300..400).contains(&c) => 200,
        c if (400..500).contains(&c) => 400,
        _ => 500,
    }
}

/// The same swap on Spring's `HttpStatus` and JAX-RS's `Response.Status` names.
fn swapped_status_name(name: &str) -> Option<&'static str> {
    Some(match name {
        "OK" => "CREATED",
        "CREATED" => "OK",
        "ACCEPTED" | "NO_CONTENT" => "OK",
        "BAD_REQUEST" => "NOT_FOUND",
        "NOT_FOUND" => "BAD_REQUEST",
        "UNAUTHORIZED" => "FORBIDDEN",
        "FORBIDDEN" => "UNAUTHORIZED",
        "METHOD_NOT_ALLOWED" | "GONE" => "NOT_FOUND",
        "CONFLICT" | "UNPROCESSABLE_ENTITY" | "UNSUPPORTED_MEDIA_TYPE" => "BAD_REQUEST",
        "INTERNAL_SERVER_ERROR" => "BAD_REQUEST",
        "SERVICE_UNAVAILABLE" => "INTERNAL_SERVER_ERROR",
        _ => return None,
    })
}

/// `HttpStatus.NOT_FOUND`, `Status.CREATED`, `Response.Status.OK`: swapped by name.
pub(super) fn status_name(cx: &Cx, node: Node, out: &mut Vec<Site>) {
    let (Some(object), Some(field)) = (
        node.child_by_field_name("object"),
        node.child_by_field_name("field"),
    ) else {
        return;
    };
    let owner = cx.text(object);
    let owner = owner.rsplit('.').next().unwrap_or(owner);
    if !matches!(owner, "HttpStatus" | "Status") {
        return;
    }
    if let Some(to) = swapped_status_name(cx.text(field)) {
        out.push(cx.site(Operator::StatusSwap, field, to));
    }
}

/// Whether the integer literal `node` is an HTTP status given to a call that sends or
/// sets one (`sendResponseHeaders(404, …)`, `ResponseEntity.status(201)`,
/// `Http.sendJson(ex, 200, …)`) or to an exception's constructor
/// (`new ApiException(409, …)`); if so, the status swap is pushed and `true` returned.
pub(super) fn status_literal(cx: &Cx, node: Node, out: &mut Vec<Site>) -> bool {
    let Ok(code) = cx.text(node).parse::<u16>() else {
        return false;
    };
    if !(100..600).contains(&code) {
        return false;
    }
    let Some(args) = node.parent().filter(|p| p.kind() == "argument_list") else {
        return false;
    };
    let Some(call) = args.parent() else {
        return false;
    };
    let sends_status = match call.kind() {
        "method_invocation" => call.child_by_field_name("name").is_some_and(|n| {
            let name = cx.text(n).to_ascii_lowercase();
            [
                "status", "send", "respond", "response", "error", "reply", "code",
            ]
            .iter()
            .any(|k| name.contains(k))
        }),
        "object_creation_expression" => call.child_by_field_name("type").is_some_and(|t| {
            let ty = cx.text(t);
            ty.ends_with("Exception") || ty.ends_with("Error") || ty.ends_with("Response")
        }),
        _ => false,
    };
    if sends_status {
        out.push(cx.site(Operator::StatusSwap, node, swapped_status(code).to_string()));
    }
    sends_status
}

/// Swaps the first two adjacent arguments of a call that have the same type and differ:
/// two string literals, two integer literals, or two names declared with the same type
/// in the enclosing method or class (`new Pet(name, tag)` with both `String`).
pub(super) fn swap_arguments(cx: &Cx, node: Node, out: &mut Vec<Site>) {
    let Some(args) = node.child_by_field_name("arguments") else {
        return;
    };
    let mut cursor = args.walk();
    let list: Vec<Node> = args.named_children(&mut cursor).collect();
    if list.len() < 2 {
        return;
    }
    let types = declared_types(cx, node);
    let type_of = |n: Node| -> Option<String> {
        match n.kind() {
            "string_literal" => Some("String".into()),
            "decimal_integer_literal" => Some("int".into()),
            "identifier" => types.get(cx.text(n)).cloned(),
            _ => None,
        }
    };
    for pair in list.windows(2) {
        let (a, b) = (pair[0], pair[1]);
        if cx.text(a) == cx.text(b) {
            continue;
        }
        if let (Some(ta), Some(tb)) = (type_of(a), type_of(b))
            && ta == tb
        {
            let between = &cx.src[a.end_byte()..b.start_byte()];
            let replacement = format!("{}{between}{}", cx.text(b), cx.text(a));
            out.push(cx.site_range(
                Operator::SwapArguments,
                a.start_byte(),
                b.end_byte(),
                replacement,
            ));
            return;
        }
    }
}

/// Names declared in the method around `node` (parameters and locals) and in its class
/// (fields), with their declared type's text; a name declared twice with different
/// types is left out.
fn declared_types(cx: &Cx, node: Node) -> BTreeMap<String, String> {
    let mut out: BTreeMap<String, Option<String>> = BTreeMap::new();
    let mut scope = node.parent();
    while let Some(s) = scope {
        if matches!(s.kind(), "method_declaration" | "constructor_declaration") {
            collect_declarations(cx, s, &mut out);
        }
        if s.kind() == "class_body" {
            let mut c = s.walk();
            for field in s
                .children(&mut c)
                .filter(|f| f.kind() == "field_declaration")
            {
                collect_declarations(cx, field, &mut out);
            }
            break;
        }
        scope = s.parent();
    }
    out.into_iter()
        .filter_map(|(k, v)| v.map(|t| (k, t)))
        .collect()
}

fn collect_declarations(cx: &Cx, scope: Node, out: &mut BTreeMap<String, Option<String>>) {
    let mut stack = vec![scope];
    while let Some(n) = stack.pop() {
        let declares = matches!(
            n.kind(),
            "formal_parameter" | "local_variable_declaration" | "field_declaration"
        );
        if declares && let Some(ty) = n.child_by_field_name("type") {
            let ty = cx.text(ty).to_string();
            let mut names = Vec::new();
            if n.kind() == "formal_parameter" {
                names.extend(n.child_by_field_name("name"));
            } else {
                let mut c = n.walk();
                for d in n.children_by_field_name("declarator", &mut c) {
                    names.extend(d.child_by_field_name("name"));
                }
            }
            for name in names {
                let entry = out
                    .entry(cx.text(name).to_string())
                    .or_insert(Some(ty.clone()));
                if entry.as_deref() != Some(ty.as_str()) {
                    *entry = None;
                }
            }
        }
        // Local and anonymous classes declare their own names.
        if n.id() != scope.id() && n.kind() == "class_body" {
            continue;
        }
        let mut c = n.walk();
        stack.extend(n.children(&mut c));
    }
}
