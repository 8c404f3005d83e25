//! SingleOpOracleAgent and SingleOpChallengerAgent (paper 4.4.1): generate the four
//! strategies' oracles for one operation, normalize them, have the challenger review the
//! suite (plus our quadrant check), and regenerate only what it flagged. The steps are
//! [`crate::agents::generation`]'s; this module says what an operation brings to them.

use crate::agents::Agent;
use crate::agents::cited::cited_lines;
use crate::agents::error::AgentError;
use crate::agents::generation::{OracleOf, RecordOf, Target, Var};
use crate::agents::normalize::{NormalizeOutcome, normalize_single_with};
use crate::agents::runtime::{AgentCtx, to_prompt_json};
use crate::agents::schemas;
use crate::model::{Hint, SourceContext};
use crate::project::{Prepared, bundle_index};
use crate::source::bundle::Bundle;
use crate::store::{Session, StoreError, SuiteKind, SuiteRecord, op_slug};
use serde_json::Value;
use std::sync::Arc;

/// One operation as a generation target: its verified context and source bundle.
pub struct OpTarget {
    op_id: String,
    context: SourceContext,
    bundle: Arc<Bundle>,
    /// Seed data for the bundle's files.
    seed_data: String,
}

impl OpTarget {
    /// `op_id` with `context`, reading the bundle the project gives it (`discovered_in`:
    /// the entry file in which discovery found it, if it did). Also used to plan a run
    /// before any context exists, with a stand-in context.
    pub fn new(
        project: &Prepared,
        op_id: &str,
        context: SourceContext,
        discovered_in: Option<&str>,
    ) -> Result<Self, AgentError> {
        let bundle = project
            .bundle_for(op_id, discovered_in)
            .ok_or_else(|| AgentError::Missing(format!("{op_id}: no source bundle")))?;
        Ok(OpTarget {
            op_id: op_id.to_string(),
            context,
            seed_data: project.seed_data_for(&bundle.files),
            bundle,
        })
    }
}

impl OpTarget {
    /// The operation, its verified context, the seed data, and the bundle lines the
    /// context's error cases and envelopes and `oracles` cite.
    fn cited_vars<'a>(
        &'a self,
        oracles: impl Iterator<Item = &'a crate::model::Oracle>,
    ) -> Vec<Var> {
        let c = &self.context;
        let refs = c.error_refs().chain(oracles.flat_map(|o| &o.evidence_refs));
        vec![
            ("op_id", self.op_id.clone()),
            ("context", to_prompt_json(&c.verified())),
            ("seed_data", self.seed_data.clone()),
            ("cited", cited_lines(&self.bundle.text, refs)),
        ]
    }
}

impl Target for OpTarget {
    type Kind = SuiteKind;
    const GENERATOR: Agent = Agent::SingleOp;
    const CHALLENGER: Agent = Agent::SingleOpChallenger;
    const REGENERATOR: Agent = Agent::SingleOpRegenerate;
    const MULTI: bool = false;

    fn load(ctx: &AgentCtx, op_id: &str) -> Result<Self, AgentError> {
        let board = ctx.board();
        let context = board
            .contexts
            .get(op_id)
            .cloned()
            .ok_or_else(|| AgentError::Missing(format!("{op_id}: no source context")))?;
        let discovered = board.discovered.get(op_id).map(|(_, f)| f.clone());
        drop(board);
        OpTarget::new(&ctx.project, op_id, context, discovered.as_deref())
    }

    fn stem(op_id: &str) -> String {
        op_slug(op_id)
    }

    fn call_op(&self) -> Option<&str> {
        Some(&self.op_id)
    }

    /// The operation, its verified context (no pending claims), seed data and bundle.
    fn vars(&self) -> Vec<Var> {
        vec![
            ("op_id", self.op_id.clone()),
            ("context", to_prompt_json(&self.context.verified())),
            ("seed_data", self.seed_data.clone()),
            ("bundle", self.bundle.text.clone()),
        ]
    }

    fn generate_vars(&self) -> Vec<Var> {
        Vec::new()
    }

    /// The context, the seed data and the lines the context and the suite cite, not the
    /// bundle (see [`crate::agents::cited`]).
    fn review_vars(&self, oracles: &[OracleOf<Self>]) -> Vec<Var> {
        self.cited_vars(oracles.iter())
    }

    /// As the challenger reads: the verified context and the lines it and the flagged
    /// oracles cite. The revision reasons from the facts extraction checked; new oracles
    /// cite lines the context names, and normalization checks every reference against
    /// the whole bundle as for a first generation.
    fn revise_vars(&self, flagged: &[&OracleOf<Self>]) -> Vec<Var> {
        self.cited_vars(flagged.iter().copied())
    }

    /// Tailored to the operation's statuses and fields; noted under the generator for
    /// both generation and regeneration (as the prompts share it).
    fn schema(&self, ctx: &AgentCtx) -> Value {
        schemas::for_single_op(ctx.project.op(&self.op_id), Some(&self.context)).noted(
            ctx,
            Agent::SingleOp,
            Some(&self.op_id),
        )
    }

    /// Against the verified context and the bundle, with the run's options.
    fn normalize(&self, ctx: &AgentCtx, answer: &Value) -> NormalizeOutcome<OracleOf<Self>> {
        let index = bundle_index(&self.bundle);
        normalize_single_with(
            &self.op_id,
            answer,
            Some(&self.context),
            &index,
            ctx.normalize,
        )
    }

    /// A new suite: a first generation replaces whatever the operation had.
    fn fresh(&self) -> RecordOf<Self> {
        SuiteRecord::new(&self.op_id)
    }

    fn current(&self, ctx: &AgentCtx, purpose: &str) -> Result<RecordOf<Self>, AgentError> {
        ctx.board()
            .suites
            .get(&self.op_id)
            .cloned()
            .ok_or_else(|| AgentError::Missing(format!("{}: no suite to {purpose}", self.op_id)))
    }

    /// Hints for empty quadrants (paper Table 4).
    fn own_hints(&self, oracles: &[OracleOf<Self>]) -> Vec<Hint> {
        crate::agents::quadrants::hints(&self.context, oracles)
    }

    fn write(session: &Session, record: &RecordOf<Self>) -> Result<(), StoreError> {
        session.write_suite(record)
    }

    fn publish(&self, ctx: &AgentCtx, record: RecordOf<Self>) {
        ctx.board().suites.insert(self.op_id.clone(), record);
    }
}
