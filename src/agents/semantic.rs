//! SemanticExtractAgent (paper 4.3.4): compresses every verified context into one text,
//! asks the model once for operation groups, and keeps only groups that pass validation.

use crate::agents::compress::compress_all;
use crate::agents::error::AgentError;
use crate::agents::groups::validate;
use crate::agents::runtime::AgentCtx;
use crate::agents::schemas;
use crate::store::GroupRecord;
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;

/// `groups.json`: what grouping produced and what the compression saved.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GroupingRecord {
    pub group_ids: Vec<String>,
    pub rejected: Vec<(String, String)>,
    pub contexts_json_chars: usize,
    pub compressed_chars: usize,
    pub reduction_percent: f64,
}

/// Runs grouping; returns the ids of the kept groups.
pub async fn run(ctx: &AgentCtx) -> Result<Vec<String>, AgentError> {
    let (text, json_chars, compressed_chars, reduction, known) = {
        let board = ctx.board();
        let c = compress_all(board.contexts.values());
        let known: BTreeSet<String> = board.contexts.keys().cloned().collect();
        let reduction = c.reduction_percent();
        (c.text, c.json_chars, c.compressed_chars, reduction, known)
    };
    let answer = ctx
        .call::<serde_json::Value>(
            crate::agents::Agent::Semantic,
            None,
            &[("contexts", &text)],
            Some(
                schemas::for_groups(&known.iter().collect::<Vec<_>>()).noted(
                    ctx,
                    crate::agents::Agent::Semantic,
                    None,
                ),
            ),
        )
        .await?;
    let outcome = validate(&answer.value, &known);
    let record = GroupingRecord {
        group_ids: outcome.groups.iter().map(|g| g.group_id.clone()).collect(),
        rejected: outcome.rejected.clone(),
        contexts_json_chars: json_chars,
        compressed_chars,
        reduction_percent: (reduction * 10.0).round() / 10.0,
    };
    ctx.session.write_json("groups.json", &record)?;
    let mut board = ctx.board();
    for g in outcome.groups {
        let mut rec = GroupRecord::new(g.group_id.clone());
        rec.group = serde_json::to_value(&g).unwrap_or_default();
        ctx.session.write_group(&rec)?;
        board.groups.insert(g.group_id.clone(), (g, rec));
    }
    Ok(record.group_ids)
}
