//! The reviewer's context edits in a run: an operation whose edited context stands is
//! not extracted again (not even from the response cache), so a run, `--refresh-from
//! single_op` included, generates from the edit and never overwrites it. Only
//! `--drop-context-edits` withdraws the edits of the run's operations first, and the
//! extraction runs as usual (see `store::context_edits`).

use crate::agents::runtime::AgentCtx;
use crate::store::{Event, EventKind, Session, StoreError};

/// What `--drop-context-edits` journals as the reason of the withdrawal.
pub const DROPPED_BY_RUN: &str = "dropped by `mastor run --drop-context-edits`";

/// Puts `op_id`'s edited context on the board in place of an extraction, when one
/// stands; true when it did (the extraction task is then done).
pub fn use_edit(ctx: &AgentCtx, op_id: &str) -> Result<bool, String> {
    let edit = ctx
        .session
        .read_context_edits()
        .map_err(|e| format!("{op_id}: cannot read the context edits: {e}"))?
        .remove(op_id)
        .and_then(|e| e.context);
    let Some(mut context) = edit else {
        return Ok(false);
    };
    context.op_id = op_id.to_string();
    ctx.board().contexts.insert(op_id.to_string(), context);
    ctx.emit(
        Event::new(EventKind::Note, crate::agents::Agent::Extraction.name())
            .op(op_id.to_string())
            .message(format!(
                "{op_id}: the reviewer's edited context is used, no extraction \
                 (--drop-context-edits extracts again)"
            )),
    );
    Ok(true)
}

/// Withdraws the standing edits of `ops` (`--drop-context-edits`); returns the
/// operations whose edit was withdrawn.
pub fn drop_edits(session: &Session, ops: &[String]) -> Result<Vec<String>, StoreError> {
    let standing = session.read_context_edits()?;
    let mut dropped = Vec::new();
    for op in ops.iter().filter(|o| standing.contains_key(*o)) {
        session.withdraw_context_edit(op, DROPPED_BY_RUN)?;
        dropped.push(op.clone());
    }
    Ok(dropped)
}
