//! One metamorphic session end to end: grounding read from the session (source contexts
//! and semantic groups, when an earlier `mastor run` left them), the loop, and the
//! results written back. Shared by `mastor metamorphic` and `mastor run --metamorphic`.
//! Printing is left to the CLI.

use crate::agents::metamorphic::{Grounding, ModelAgents, spec_text};
use crate::llm::LlmClient;
use crate::metamorphic::check::SpecView;
use crate::metamorphic::iterate::{LoopConfig, MrReport, run_loop};
use crate::model::{SourceContext, SpecOperation};
use crate::prompts::Prompts;
use crate::store::{GroupRecord, Session, StoreError};
use std::sync::Arc;

/// Contexts and groups the session holds (empty text when there are none: spec-only).
pub fn grounding(session: &Session, ops: &[SpecOperation]) -> Result<Grounding, StoreError> {
    let mut contexts: Vec<SourceContext> = Vec::new();
    for op in ops {
        if let Some(c) = session.read_context(&op.op_id)? {
            contexts.push(c);
        }
    }
    let mut groups = Vec::new();
    for name in session.list("groups")? {
        if let Some(g) = session.read_json::<GroupRecord>(&format!("groups/{name}"))? {
            groups.push(g.group);
        }
    }
    Ok(Grounding {
        contexts: if contexts.is_empty() {
            String::new()
        } else {
            crate::agents::compress::compress_all(&contexts).text
        },
        groups: if groups.is_empty() {
            String::new()
        } else {
            serde_json::to_string_pretty(&groups).unwrap_or_default()
        },
    })
}

/// Runs the loop with the model agents and saves tests and report in the session.
pub async fn run(
    client: LlmClient,
    prompts: Arc<Prompts>,
    session: Arc<Session>,
    ops: &[SpecOperation],
    cfg: &LoopConfig,
) -> Result<MrReport, StoreError> {
    let agents = ModelAgents {
        client,
        prompts,
        session: Some(Arc::clone(&session)),
        spec_text: spec_text(ops),
        grounding: grounding(&session, ops)?,
    };
    let spec = SpecView::new(ops);
    let report = run_loop(&agents, &spec, cfg).await;
    crate::metamorphic::store::save(&session, &report)?;
    Ok(report)
}
