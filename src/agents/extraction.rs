//! SourceExtractionAgent (paper 4.3.3): one per operation, reads the operation's bundle
//! and the spec's claims, and writes a SourceContext whose verified part downstream agents
//! trust and whose pending part the reviewer sees.
//!
//! The model's answer is sanitised, not trusted: the op_id is ours, parameter locations
//! and status codes must be real, and whatever is removed is written down as pending with
//! the reason, so nothing disappears unexplained. The framework's own statuses for the
//! operation (`source::framework_facts`) are added as error cases naming the framework;
//! the model is shown them and cannot claim one itself.

use crate::agents::error::AgentError;
use crate::agents::generation::Var;
use crate::agents::runtime::AgentCtx;
use crate::agents::schemas;
use crate::model::{
    ContextParam, EntryRef, EnvelopeOrigin, ErrorCase, ErrorEnvelope, PendingClaim, ResponseSchema,
    SourceContext,
};
use crate::project::Prepared;
use serde::Deserialize;

/// The answer's shape: a SourceContext whose op_id the model may omit.
#[derive(Debug, Deserialize)]
struct Answer {
    #[serde(default)]
    request_params: Vec<ContextParam>,
    #[serde(default)]
    response_schema: ResponseSchema,
    #[serde(default)]
    request_params_pending: Vec<PendingClaim>,
    #[serde(default)]
    response_schema_pending: Vec<PendingClaim>,
    /// Envelopes the model saw that the scan did not (answers written before error
    /// bodies were asked for have none).
    #[serde(default)]
    error_envelopes: Vec<ErrorEnvelope>,
}

const LOCATIONS: [&str; 5] = ["path", "query", "header", "body", "cookie"];

/// Extracts the source context of `op_id`.
pub async fn run(ctx: &AgentCtx, op_id: &str) -> Result<(), AgentError> {
    let discovered = ctx.board().discovered.get(op_id).cloned();
    let vars = prompt_vars(&ctx.project, op_id, discovered.as_ref())?;
    let refs: Vec<(&str, &str)> = vars.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let facts = ctx.project.framework_facts(op_id);
    let answer = ctx
        .call::<Answer>(
            crate::agents::Agent::Extraction,
            Some(op_id),
            &refs,
            Some(schemas::context()),
        )
        .await?;
    let mut context = sanitise(op_id, answer.value, &ctx.project.analysis.envelopes);
    context.response_schema.error_cases.extend(facts);
    let record = context.clone();
    ctx.write(move |s| s.write_context(&record)).await?;
    ctx.board().contexts.insert(op_id.to_string(), context);
    Ok(())
}

/// The extraction prompt's variables for `op_id` (`discovered`: the handler discovery
/// claimed and the entry file it found it in). A run plan renders the same ones.
pub fn prompt_vars(
    project: &Prepared,
    op_id: &str,
    discovered: Option<&(EntryRef, String)>,
) -> Result<Vec<Var>, AgentError> {
    let bundle = project
        .bundle_for(op_id, discovered.map(|(_, f)| f.as_str()))
        .ok_or_else(|| {
            AgentError::Missing(format!("{op_id}: no source bundle (no handler found)"))
        })?;
    let handler = match (project.static_entry(op_id), discovered) {
        (Some(e), _) | (None, Some((e, _))) => {
            format!("{}.{} ({}:{})", e.class, e.method, e.file, e.line)
        }
        (None, None) => "unknown".into(),
    };
    Ok(vec![
        ("op_id", op_id.to_string()),
        ("handler", handler),
        ("spec_fragment", project.spec_fragment(op_id)),
        ("envelopes", envelopes_text(&project.analysis.envelopes)),
        (
            "framework_facts",
            facts_text(&project.framework_facts(op_id)),
        ),
        ("seed_data", project.seed_data_for(&bundle.files)),
        ("bundle", bundle.text.clone()),
    ])
}

/// The project's envelopes as the extraction prompt shows them.
fn envelopes_text(envelopes: &[ErrorEnvelope]) -> String {
    if envelopes.is_empty() {
        return "(none found in the code)".into();
    }
    serde_json::to_string_pretty(envelopes).unwrap_or_default()
}

/// The framework's statuses as the extraction prompt shows them.
fn facts_text(facts: &[ErrorCase]) -> String {
    if facts.is_empty() {
        return "(none)".into();
    }
    facts
        .iter()
        .map(|f| {
            let by = f.framework.as_deref().unwrap_or_default();
            format!("- {} ({by}): {}", f.status, f.condition)
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The context from the model's answer. `envelopes` are the project's, read by the scan:
/// every context carries them, and an envelope the model names the same way is the scan's
/// (the code is the proof); the model's other envelopes are added as its claims.
fn sanitise(op_id: &str, a: Answer, envelopes: &[ErrorEnvelope]) -> SourceContext {
    let mut error_envelopes = envelopes.to_vec();
    for mut e in a.error_envelopes {
        e.name = e.name.trim().to_string();
        e.fields.retain(|f| !f.name.trim().is_empty());
        if e.name.is_empty() || e.fields.is_empty() {
            continue;
        }
        if error_envelopes.iter().any(|s| s.name == e.name) {
            continue;
        }
        e.origin = EnvelopeOrigin::Extraction;
        error_envelopes.push(e);
    }
    let mut ctx = SourceContext {
        op_id: op_id.to_string(),
        error_envelopes,
        request_params: Vec::new(),
        response_schema: ResponseSchema {
            success_status: a
                .response_schema
                .success_status
                .filter(|s| (100..=599).contains(s)),
            fields: a
                .response_schema
                .fields
                .into_iter()
                .filter(|f| !f.name.trim().is_empty())
                .collect(),
            error_cases: Vec::new(),
        },
        request_params_pending: a.request_params_pending,
        response_schema_pending: a.response_schema_pending,
    };
    for mut p in a.request_params {
        p.location = p.location.to_ascii_lowercase();
        if p.name.trim().is_empty() || !LOCATIONS.contains(&p.location.as_str()) {
            ctx.request_params_pending.push(PendingClaim {
                name: Some(p.name.clone()),
                status: None,
                oas_claim: serde_json::to_value(&p).unwrap_or_default(),
                reason: format!("not a usable parameter (location '{}')", p.location),
            });
        } else {
            ctx.request_params.push(p);
        }
    }
    for e in a.response_schema.error_cases {
        if (100..=599).contains(&e.status) {
            let mut e = ErrorCase {
                framework: None,
                ..e
            };
            e.body.retain(|f| !f.name.trim().is_empty());
            let known = |n: &String| ctx.error_envelopes.iter().any(|v| &v.name == n);
            if e.envelope.as_ref().is_some_and(|n| !known(n)) {
                e.envelope = None;
            }
            ctx.response_schema.error_cases.push(e);
        } else {
            ctx.response_schema_pending.push(PendingClaim {
                name: None,
                status: None,
                oas_claim: serde_json::json!({"status": e.status, "condition": e.condition}),
                reason: format!("{} is not an HTTP status", e.status),
            });
        }
    }
    ctx
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sanitise_moves_impossible_claims_to_pending() {
        let a: Answer = serde_json::from_value(serde_json::json!({
            "op_id": "something else",
            "request_params": [
                {"name": "id", "location": "PATH", "type": "long", "required": true},
                {"name": "x", "location": "astral", "type": "int"}],
            "response_schema": {"success_status": 2000,
                "fields": [{"name": "id", "type": "long"}, {"name": " "}],
                "error_cases": [{"status": 404, "condition": "no pet"}, {"status": 42}]}
        }))
        .unwrap();
        let c = sanitise("GET /pets/{id}", a, &[]);
        assert_eq!(c.op_id, "GET /pets/{id}");
        assert_eq!(c.request_params.len(), 1);
        assert_eq!(c.request_params[0].location, "path");
        assert_eq!(c.response_schema.success_status, None);
        assert_eq!(c.response_schema.fields.len(), 1);
        assert_eq!(c.response_schema.error_cases.len(), 1);
        assert_eq!(c.request_params_pending.len(), 1);
        assert!(c.response_schema_pending[0].reason.contains("42"));
    }
}
