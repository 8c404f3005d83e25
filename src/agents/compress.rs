//! Source context compression (SemanticExtractAgent's rule-based half, paper 4.3.4).
//!
//! All contexts of an API must fit one grouping call, so each is written as a few
//! delimited lines instead of JSON: the same facts, far fewer characters. Pending claims
//! are left out on purpose: the grouping agent reasons from verified facts only.

use crate::model::SourceContext;
use std::fmt::Write;

/// Compressed text of one context, e.g.
/// `OP POST /pets | P body:name:String! [not blank] | S 201 | F id:long,name:String? | E 400 name blank`.
pub fn compress_one(ctx: &SourceContext) -> String {
    let mut out = format!("OP {}", ctx.op_id);
    if !ctx.request_params.is_empty() {
        out.push_str(" | P ");
        let params: Vec<String> = ctx
            .request_params
            .iter()
            .map(|p| {
                let mut s = format!(
                    "{}:{}:{}{}",
                    short_location(&p.location),
                    p.name,
                    p.ty,
                    if p.required { "!" } else { "" }
                );
                if !p.constraints.is_empty() {
                    let _ = write!(s, " [{}]", p.constraints.join("; "));
                }
                s
            })
            .collect();
        out.push_str(&params.join(", "));
    }
    if let Some(status) = ctx.response_schema.success_status {
        let _ = write!(out, " | S {status}");
    }
    if !ctx.response_schema.fields.is_empty() {
        let fields: Vec<String> = ctx
            .response_schema
            .fields
            .iter()
            .map(|f| format!("{}:{}{}", f.name, f.ty, if f.nullable { "?" } else { "" }))
            .collect();
        let _ = write!(out, " | F {}", fields.join(","));
    }
    for e in &ctx.response_schema.error_cases {
        let _ = write!(out, " | E {} {}", e.status, e.condition.replace('\n', " "));
    }
    out
}

/// All contexts, one line each, sorted by op_id so the text (and its cache key) is stable.
pub fn compress_all<'a>(contexts: impl IntoIterator<Item = &'a SourceContext>) -> Compressed {
    let mut list: Vec<&SourceContext> = contexts.into_iter().collect();
    list.sort_by(|a, b| a.op_id.cmp(&b.op_id));
    let json_chars = list
        .iter()
        .map(|c| serde_json::to_string_pretty(c).map_or(0, |s| s.chars().count()))
        .sum();
    let text: Vec<String> = list.iter().map(|c| compress_one(c)).collect();
    let text = text.join("\n");
    Compressed {
        compressed_chars: text.chars().count(),
        text,
        json_chars,
    }
}

/// The compressed text with the figures for the size-reduction report.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Compressed {
    pub text: String,
    /// Characters of the same contexts as pretty JSON (what a prompt would carry otherwise).
    pub json_chars: usize,
    pub compressed_chars: usize,
}

impl Compressed {
    /// Size reduction in percent (0 when there was nothing to compress).
    pub fn reduction_percent(&self) -> f64 {
        if self.json_chars == 0 {
            return 0.0;
        }
        100.0 * (1.0 - self.compressed_chars as f64 / self.json_chars as f64)
    }
}

fn short_location(location: &str) -> &str {
    match location {
        "path" => "path",
        "query" => "q",
        "header" => "h",
        "body" => "body",
        "cookie" => "c",
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{ContextField, ContextParam, ErrorCase, PendingClaim, ResponseSchema};

    fn ctx(op: &str) -> SourceContext {
        SourceContext {
            op_id: op.into(),
            error_envelopes: vec![],
            request_params: vec![ContextParam {
                name: "name".into(),
                location: "body".into(),
                ty: "String".into(),
                required: true,
                constraints: vec!["not blank".into()],
                oas_match: true,
            }],
            response_schema: ResponseSchema {
                success_status: Some(201),
                fields: vec![
                    ContextField {
                        name: "id".into(),
                        ty: "long".into(),
                        nullable: false,
                    },
                    ContextField {
                        name: "tag".into(),
                        ty: "String".into(),
                        nullable: true,
                    },
                ],
                error_cases: vec![ErrorCase {
                    status: 400,
                    condition: "name blank".into(),
                    ..Default::default()
                }],
            },
            request_params_pending: vec![],
            response_schema_pending: vec![PendingClaim {
                name: None,
                status: Some(401),
                oas_claim: "Unauthorized".into(),
                reason: "framework".into(),
            }],
        }
    }

    #[test]
    fn one_context_keeps_every_verified_fact() {
        assert_eq!(
            compress_one(&ctx("POST /pets")),
            "OP POST /pets | P body:name:String! [not blank] | S 201 | F id:long,tag:String? | E 400 name blank"
        );
    }

    #[test]
    fn pending_claims_are_left_out_and_size_drops() {
        let c = compress_all([&ctx("POST /pets"), &ctx("GET /pets")]);
        assert!(!c.text.contains("Unauthorized"));
        assert!(c.text.starts_with("OP GET /pets"), "sorted by op_id");
        assert!(c.reduction_percent() > 50.0, "{}", c.reduction_percent());
    }
}
