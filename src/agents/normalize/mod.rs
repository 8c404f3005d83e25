//! Deterministic oracle normalization (paper section 4.4.1, plus our own checks).
//!
//! Input is the raw JSON a model produced, because models produce garbage: wrong shapes,
//! unknown operators, hallucinated parameters. Output is typed oracles plus a report in
//! which every rule has a count and every dropped oracle a reason, so a reviewer can see
//! why an oracle is missing. The same input always gives the same output, and
//! normalizing the kept oracles again changes nothing.
//!
//! Single-operation rules, in order ([`rule`] holds the stable ids):
//! 1. `malformed` — entry not an object, no assertions list, or no assertion that parses
//!    as [`Assertion`] (bad assertions are removed one by one and flagged); missing
//!    `test_id` → generated as `<strategy>_<n>` (`missing_test_id`, flagged); missing
//!    `op_id` → the suite's (`missing_op_id`, counted only), a different one → replaced
//!    (`op_id_mismatch`, flagged); unknown or missing `oracle_strategy` → kept as `None`
//!    (`unknown_strategy`, flagged) and exempt from `no_field_fv_bv`.
//! 2. `strip_input_keys` — input keys other than path/query/body/headers are removed
//!    (one flag per key); common spellings (`path_params`, `queryParams`, `header`,
//!    `request_body`...) and top-level path/query/body/headers beside a missing `input`
//!    are read as the canonical keys instead (`input_alias`, flagged).
//! 3. `no_status` — no status assertion → dropped (paper rule 1).
//! 4. `no_field_fv_bv` — strategy fv or bv without a field assertion → dropped (rule 2),
//!    except when its expected status has no body (204, 205, 304): the no-body assertion
//!    (`""` `is_null`, the one form the prompts name) is added and flagged
//!    (`no_body_added`).
//! 5. `unknown_field` (set aside) — a field assertion checked against the body of the
//!    status the oracle expects (its first status assertion):
//!    - a success status: the first name segment must be a verified response field;
//!      skipped when the context lists no fields, and for `""` (or index-only paths) which
//!      address the whole body;
//!    - an error status (>= 400): the fields of the envelope(s) its error cases use
//!      (`error_envelopes`, or all of them) plus the cases' own `body` fields. A field
//!      outside them is a contradiction only when the code returns that status itself and
//!      every envelope of it was read from the code (complete); otherwise the oracle is
//!      kept and flagged `unverified_error_field` (a framework error, no envelope found,
//!      an envelope only the model claimed).
//!
//!    `is_null` never contradicts an absent field.
//! 6. `unknown_status` (set aside) — an expected status that is neither the context's
//!    `success_status` nor one of its `error_cases`. Exceptions: a 400 expected by an fi/bi
//!    oracle when the context lists no error case (the framework's own type-conversion
//!    400, as in paper Listing 4); any 2xx when the context has no `success_status`; no
//!    check without a context or when it names no status at all; an input sent with
//!    another method (`input.method`: the router answers, not the handler). The
//!    framework's own statuses (error cases marked `framework`, from
//!    `source::framework_facts`: Spring's 400/415/405/406, JAX-RS's 404/415/405/406) are
//!    known statuses; they do not count as the code's error cases for these exceptions,
//!    and rule 5 reads their bodies as the framework's (unverified), not the envelope's.
//!
//!    Rules 5 and 6 remove only what contradicts the context (we depart from paper
//!    §7.3.2, which removes every oracle naming what the context lacks: measured with a
//!    strong model, that removed 70% of the oracles, nearly all correct error cases). A
//!    removed oracle is kept, normalized, in [`NormalizeOutcome::set_aside`] with its
//!    reasons in `dropped`, so a reviewer can restore it; with
//!    [`NormalizeOptions::keep_unreferenced`] it is kept with a flag.
//! 7. `evidence_out_of_bundle` — evidence refs that are not `{file, start_line, end_line}`,
//!    whose file is not in the bundle, or whose lines fall outside it are removed (the
//!    oracle stays). Skipped when the [`BundleIndex`] is empty (bundle unknown).
//! 8. `duplicate` — same op_id, input and assertions (assertion order ignored) → the first
//!    is kept, later ones are dropped naming it; `duplicate_test_id` — same `test_id` with
//!    different content → the later one is renamed `<id>_2` (`_3`...), flagged.
//!
//! Multi-operation rules: `malformed` (no steps, step not an object or without op_id /
//! assertions list), `missing_test_id` (`seq_<n>`), `missing_group_id` /
//! `group_id_mismatch`, `strip_input_keys`/`input_alias` per step, `unknown_op` (step
//! op_id not among the known operations → drop), `no_status` (a step without a status
//! assertion → drop), `unknown_field` / `unknown_status` (a step's field or status
//! absent from its operation's context → set aside, as rules 5 and 6; a 400 counts as
//! the framework's when that context lists no error case), `undeclared_capture` (a capture whose field is not a verified
//! response field of that step's operation → drop; skipped when the context lists no
//! fields), `unbound_capture` (`$captures.<name>` in a step's input or expected values
//! that no EARLIER step captures → drop), `bad_path_bind` (a capture bound into a path
//! parameter the step's path template does not have → drop), `evidence_out_of_bundle`,
//! `duplicate` (same ordered steps) and `duplicate_test_id`.
//!
//! Counts: each rule counts every time it fires (one per dropped oracle, removed
//! assertion, stripped key, removed evidence ref, flag). Every rule id of the path
//! appears in `counts`, with 0 when it never fired.
//!
//! Normalization does not judge semantics (that is the challenger's job), does no I/O and
//! never calls a model.

mod dedupe;
mod multi;
mod parse;
mod single;
mod unreferenced;

/// The report types are data every layer reads (sessions, the workbench): they live in
/// the model; kept here under their old path.
pub use crate::model::{BundleIndex, Dropped, Flag, NormalizeReport};
pub use multi::{normalize_multi, normalize_multi_with};
pub use single::{normalize_single, normalize_single_with};
pub use unreferenced::NormalizeOptions;

#[cfg(doc)]
use crate::model::Assertion;
use crate::model::SpecOperation;
use regex::Regex;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::sync::LazyLock;

/// Stable rule ids, used in reports, the TUI and tests.
pub mod rule {
    pub const MALFORMED: &str = "malformed";
    pub const MISSING_TEST_ID: &str = "missing_test_id";
    pub const MISSING_OP_ID: &str = "missing_op_id";
    pub const OP_ID_MISMATCH: &str = "op_id_mismatch";
    pub const MISSING_GROUP_ID: &str = "missing_group_id";
    pub const GROUP_ID_MISMATCH: &str = "group_id_mismatch";
    pub const UNKNOWN_STRATEGY: &str = "unknown_strategy";
    pub const STRIP_INPUT_KEYS: &str = "strip_input_keys";
    pub const INPUT_ALIAS: &str = "input_alias";
    pub const NO_STATUS: &str = "no_status";
    pub const NO_FIELD_FV_BV: &str = "no_field_fv_bv";
    pub const UNKNOWN_FIELD: &str = "unknown_field";
    pub const UNKNOWN_STATUS: &str = "unknown_status";
    /// Flag only: a field of an error body the context cannot confirm or refute.
    pub const UNVERIFIED_ERROR_FIELD: &str = "unverified_error_field";
    /// Flag only: an fv/bv oracle expecting a bodiless status (204, 205, 304) without a
    /// field assertion gets the no-body assertion (`""` `is_null`) instead of being dropped.
    pub const NO_BODY_ADDED: &str = "no_body_added";
    pub const UNKNOWN_OP: &str = "unknown_op";
    pub const UNDECLARED_CAPTURE: &str = "undeclared_capture";
    pub const UNBOUND_CAPTURE: &str = "unbound_capture";
    pub const BAD_PATH_BIND: &str = "bad_path_bind";
    pub const EVIDENCE_OUT_OF_BUNDLE: &str = "evidence_out_of_bundle";
    pub const DUPLICATE: &str = "duplicate";
    pub const DUPLICATE_TEST_ID: &str = "duplicate_test_id";

    /// Rules of the single-operation path, in application order.
    pub const SINGLE: &[&str] = &[
        MALFORMED,
        MISSING_TEST_ID,
        MISSING_OP_ID,
        OP_ID_MISMATCH,
        UNKNOWN_STRATEGY,
        STRIP_INPUT_KEYS,
        INPUT_ALIAS,
        NO_STATUS,
        NO_BODY_ADDED,
        NO_FIELD_FV_BV,
        UNKNOWN_FIELD,
        UNKNOWN_STATUS,
        UNVERIFIED_ERROR_FIELD,
        EVIDENCE_OUT_OF_BUNDLE,
        DUPLICATE,
        DUPLICATE_TEST_ID,
    ];

    /// Rules of the multi-operation path, in application order.
    pub const MULTI: &[&str] = &[
        MALFORMED,
        MISSING_TEST_ID,
        MISSING_GROUP_ID,
        GROUP_ID_MISMATCH,
        STRIP_INPUT_KEYS,
        INPUT_ALIAS,
        UNKNOWN_OP,
        NO_STATUS,
        UNKNOWN_FIELD,
        UNKNOWN_STATUS,
        UNVERIFIED_ERROR_FIELD,
        UNDECLARED_CAPTURE,
        UNBOUND_CAPTURE,
        BAD_PATH_BIND,
        EVIDENCE_OUT_OF_BUNDLE,
        DUPLICATE,
        DUPLICATE_TEST_ID,
    ];
}

/// The operations a multi-op step may name, with their path templates.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct KnownOps {
    /// op_id → path template (`/pets/{id}`).
    pub ops: BTreeMap<String, String>,
}

impl KnownOps {
    /// From the loaded spec.
    pub fn from_spec(ops: &[SpecOperation]) -> Self {
        KnownOps {
            ops: ops
                .iter()
                .map(|o| (o.op_id.clone(), o.path.clone()))
                .collect(),
        }
    }

    /// From op ids alone (`GET /pets/{id}`): the path template is what follows the method.
    pub fn from_op_ids<I, S>(ids: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        KnownOps {
            ops: ids
                .into_iter()
                .map(|id| {
                    let id = id.as_ref();
                    let path = id.split_once(' ').map(|(_, p)| p).unwrap_or(id);
                    (id.to_string(), path.trim().to_string())
                })
                .collect(),
        }
    }

    /// Names of the `{param}` placeholders in `op_id`'s path template.
    pub fn path_params(&self, op_id: &str) -> Option<Vec<String>> {
        static PARAM: LazyLock<Regex> =
            LazyLock::new(|| Regex::new(r"\{([^{}]+)\}").expect("static regex is valid"));
        let template = self.ops.get(op_id)?;
        Some(
            PARAM
                .captures_iter(template)
                .map(|c| c[1].trim().to_string())
                .collect(),
        )
    }
}

/// Result of one normalization pass.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NormalizeOutcome<T> {
    pub kept: Vec<T>,
    /// Oracles removed only because they reference a status or field the verified
    /// context lacks (`unknown_status`, `unknown_field`), in normalized form with ids
    /// unique against `kept`, so a reviewer can restore them. Their reasons are in
    /// `dropped`.
    #[serde(default)]
    pub set_aside: Vec<T>,
    pub dropped: Vec<Dropped>,
    pub flags: Vec<Flag>,
    pub counts: BTreeMap<String, usize>,
}

impl<T> NormalizeOutcome<T> {
    /// The report without the kept oracles (to store beside them).
    pub fn report(&self) -> NormalizeReport {
        NormalizeReport {
            dropped: self.dropped.clone(),
            flags: self.flags.clone(),
            counts: self.counts.clone(),
        }
    }

    /// `kept N, ` followed by [`NormalizeReport::summary`].
    pub fn summary(&self) -> String {
        format!("kept {}, {}", self.kept.len(), self.report().summary())
    }

    /// How many times `rule` fired (0 for rules of the other path).
    pub fn count(&self, rule: &str) -> usize {
        self.counts.get(rule).copied().unwrap_or(0)
    }
}

/// The bind grammar is the oracle language's, shared with the runner and the exporters.
pub use crate::oracle::binds::find_captures;
