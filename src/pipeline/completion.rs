//! What "completed" means for an operation: every agent answered *and* the answers hold
//! something. A model that answers `{}` to every call leaves each operation with an
//! empty source context and no oracle; calling that "ok" would make `run` exit 0 on a
//! session with nothing in it. After the run, an operation that finished its path with
//! an empty context, or with no oracle although the spec documents responses for it, is
//! marked failed with the reason, so `state.json`, the summary and the exit code agree.

use crate::agents::runtime::AgentCtx;
use crate::model::SourceContext;
use crate::pipeline::orchestrator::{OpState, Orchestrator};

/// Whether a source context says nothing at all: no parameter, field, error case or
/// success status (what junk model answers normalize to). The framework's statuses are
/// added to every context of its operations, so they do not count.
pub fn context_is_empty(c: &SourceContext) -> bool {
    let r = &c.response_schema;
    c.request_params.is_empty() && r.fields.is_empty() && !r.names_code_status()
}

/// Why an operation whose agents all answered has still not completed, as
/// `(agent, reason)`; `None` when it has. `context` is the stored source context,
/// `oracles` the oracles its suite kept (a multi-op sequence with a step on it counts), `set_aside` those normalization set aside, and
/// `documented` the number of responses the spec documents for it.
pub fn hollow_reason(
    context: Option<&SourceContext>,
    oracles: usize,
    set_aside: usize,
    documented: usize,
) -> Option<(&'static str, String)> {
    match context {
        None => {
            return Some((
                "extraction",
                "no source context was stored for this operation".to_string(),
            ));
        }
        Some(c) if context_is_empty(c) => {
            return Some((
                "extraction",
                "the source context is empty: the model's answer named no parameter, \
                 field, error case or success status (see the operation's calls)"
                    .to_string(),
            ));
        }
        Some(_) => {}
    }
    if oracles == 0 && documented > 0 {
        let aside = if set_aside > 0 {
            format!(" ({set_aside} set aside by normalization)")
        } else {
            String::new()
        };
        return Some((
            "single_op",
            format!(
                "no oracle was kept{aside} although the spec documents {documented} \
                 response(s) for this operation"
            ),
        ));
    }
    None
}

/// Marks every operation that reached `Done` without substance as failed (see the module
/// doc). A session that cannot be read leaves the state as it is, with a warning.
pub fn fail_hollow_ops(ctx: &AgentCtx, orch: &mut Orchestrator) {
    let done: Vec<String> = orch
        .ops
        .iter()
        .filter(|(_, s)| **s == OpState::Done)
        .map(|(op, _)| op.clone())
        .collect();
    // A sequence step is an oracle on its operation too.
    let mut in_sequences = std::collections::BTreeSet::new();
    for gid in orch.groups.keys() {
        if let Ok(Some(g)) = ctx.session.read_group(gid) {
            for o in &g.oracles {
                in_sequences.extend(o.steps.iter().map(|s| s.op_id.clone()));
            }
        }
    }
    for op_id in done {
        let context = match ctx.session.read_context(&op_id) {
            Ok(c) => c,
            Err(e) => {
                tracing::warn!("cannot read the context of {op_id}: {e}");
                continue;
            }
        };
        let (oracles, set_aside) = match ctx.session.read_suite(&op_id) {
            Ok(Some(s)) => (
                s.oracles.len() + usize::from(in_sequences.contains(&op_id)),
                s.set_aside.len(),
            ),
            Ok(None) => (usize::from(in_sequences.contains(&op_id)), 0),
            Err(e) => {
                tracing::warn!("cannot read the suite of {op_id}: {e}");
                continue;
            }
        };
        let documented = ctx
            .project
            .spec
            .operations
            .iter()
            .find(|o| o.op_id == op_id)
            .map_or(0, |o| o.responses.len());
        if let Some((agent, reason)) =
            hollow_reason(context.as_ref(), oracles, set_aside, documented)
        {
            orch.ops.insert(
                op_id,
                OpState::Failed {
                    agent: agent.to_string(),
                    reason,
                },
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn context() -> SourceContext {
        serde_json::from_value(serde_json::json!({"op_id": "GET /x"})).expect("context")
    }

    #[test]
    fn an_empty_context_is_not_complete() {
        let empty = context();
        let (agent, why) = hollow_reason(Some(&empty), 3, 0, 2).expect("hollow");
        assert_eq!(agent, "extraction");
        assert!(why.contains("empty"), "{why}");
        assert!(hollow_reason(None, 3, 0, 2).is_some());
    }

    #[test]
    fn framework_facts_alone_leave_a_context_empty() {
        let mut c = context();
        c.response_schema.error_cases.push(crate::model::ErrorCase {
            status: 405,
            framework: Some("Spring MVC".into()),
            ..Default::default()
        });
        assert!(context_is_empty(&c), "the model's answer held nothing");
        c.response_schema.error_cases.push(crate::model::ErrorCase {
            status: 404,
            ..Default::default()
        });
        assert!(!context_is_empty(&c));
    }

    #[test]
    fn no_oracle_where_the_spec_documents_responses_is_not_complete() {
        let mut c = context();
        c.response_schema.success_status = Some(200);
        let (agent, why) = hollow_reason(Some(&c), 0, 2, 1).expect("hollow");
        assert_eq!(agent, "single_op");
        assert!(
            why.contains("2 set aside") && why.contains("1 response"),
            "{why}"
        );
        assert_eq!(hollow_reason(Some(&c), 1, 0, 1), None);
        assert_eq!(hollow_reason(Some(&c), 0, 0, 0), None, "nothing documented");
    }
}
