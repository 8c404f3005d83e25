//! The data model: the contract between every part of mastor (docs/ARCHITECTURE.md section 3).
//!
//! Field names follow the MASTOR paper's listings so that oracle files written in the
//! paper's format load as they are. Everything here is plain serde data: no I/O, no
//! behaviour beyond small helpers that keep ids consistent.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;

/// Version of the on-disk session and suite format; bump on incompatible change.
pub const SCHEMA_VERSION: u32 = 1;

/// HTTP methods an OpenAPI path item can carry, in the spec's own order.
pub const HTTP_METHODS: [&str; 8] = [
    "get", "put", "post", "delete", "options", "head", "patch", "trace",
];

/// Builds the canonical operation id, e.g. `GET /v2/alpha/{alphacode}`.
pub fn op_id(method: &str, path: &str) -> String {
    format!("{} {}", method.to_ascii_uppercase(), path)
}

/// Where a parameter travels in the request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, PartialOrd, Ord)]
#[serde(rename_all = "lowercase")]
pub enum ParamLocation {
    Path,
    Query,
    Header,
    Cookie,
    Body,
    /// `formData` (Swagger 2.0) and form-encoded bodies.
    Form,
}

/// One parameter as the spec declares it ($refs already resolved).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SpecParameter {
    pub name: String,
    pub location: ParamLocation,
    #[serde(default)]
    pub required: bool,
    /// JSON schema of the parameter, resolved; `null` when the spec gives none.
    #[serde(default)]
    pub schema: Value,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
}

/// One operation (path x method) from the spec.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SpecOperation {
    /// `METHOD /path` as in the spec (path templates kept verbatim).
    pub op_id: String,
    /// Upper-case HTTP method.
    pub method: String,
    pub path: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub operation_id: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tags: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Option<String>,
    /// Path-level and operation-level parameters merged (operation wins on name+location).
    #[serde(default)]
    pub parameters: Vec<SpecParameter>,
    /// Request body schema (resolved), with its media type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_body: Option<SpecBody>,
    /// Status code (or `default`, `2XX`) → response.
    #[serde(default)]
    pub responses: BTreeMap<String, SpecResponse>,
    /// Vendor extensions that matter downstream, e.g. `x-swagger-router-controller`.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub extensions: BTreeMap<String, Value>,
    /// Set when the operation matches the framework-endpoint exclusion list.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub excluded: Option<String>,
}

/// A request body: media type and schema.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SpecBody {
    pub media_type: String,
    #[serde(default)]
    pub required: bool,
    #[serde(default)]
    pub schema: Value,
}

/// A documented response.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SpecResponse {
    #[serde(default)]
    pub description: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub media_type: Option<String>,
    #[serde(default)]
    pub schema: Value,
}

/// Where in the Java source an operation is handled.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EntryRef {
    /// Path relative to the project root, `/`-separated.
    pub file: String,
    pub class: String,
    pub method: String,
    /// 1-based line of the handler method declaration.
    pub line: usize,
}

/// A reference into a bundle: the tool checks it against the bundle's files.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct EvidenceRef {
    pub file: String,
    pub start_line: usize,
    pub end_line: usize,
}

/// One parameter as the source code shows it (paper Listing 3).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ContextParam {
    pub name: String,
    pub location: String,
    #[serde(rename = "type", default)]
    pub ty: String,
    #[serde(default)]
    pub required: bool,
    #[serde(default)]
    pub constraints: Vec<String>,
    #[serde(default)]
    pub oas_match: bool,
}

/// One response field the code is seen to produce.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ContextField {
    pub name: String,
    #[serde(rename = "type", default)]
    pub ty: String,
    #[serde(default)]
    pub nullable: bool,
}

/// A status the code returns, under which condition, and what its body holds.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ErrorCase {
    pub status: u16,
    #[serde(default)]
    pub condition: String,
    /// The envelope ([`ErrorEnvelope::name`]) that renders this case's body; absent when
    /// the context has one envelope (it is that one) or none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub envelope: Option<String>,
    /// The case's own body fields and the values the code fixes for them (the message
    /// template, an error code), beside the envelope's.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub body: Vec<ErrorField>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub evidence_refs: Vec<EvidenceRef>,
    /// Set when the framework itself returns this status (`Spring MVC`, `JAX-RS`), before
    /// or around the handler: the framework is the evidence, its body is the framework's
    /// (no envelope of the project), and the case is not the code's. Only the table in
    /// `source::framework_facts` sets it; a model's answer cannot.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub framework: Option<String>,
}

impl ErrorCase {
    /// Whether the framework, not the project's code, returns this status.
    pub fn is_framework(&self) -> bool {
        self.framework.is_some()
    }
}

/// The verified response schema.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ResponseSchema {
    #[serde(default)]
    pub success_status: Option<u16>,
    #[serde(default)]
    pub fields: Vec<ContextField>,
    #[serde(default)]
    pub error_cases: Vec<ErrorCase>,
}

impl ResponseSchema {
    /// The error cases the project's code returns (the framework's left out).
    pub fn code_cases(&self) -> impl Iterator<Item = &ErrorCase> {
        self.error_cases.iter().filter(|e| !e.is_framework())
    }

    /// Whether the code shows any status: a success status or an error case of its own.
    pub fn names_code_status(&self) -> bool {
        self.success_status.is_some() || self.code_cases().next().is_some()
    }
}

/// A spec claim the code does not show.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PendingClaim {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<u16>,
    #[serde(default)]
    pub oas_claim: Value,
    #[serde(default)]
    pub reason: String,
}

/// Source context of one operation (paper Listing 3). Downstream agents read only the
/// verified part; the `*_pending` lists are for the reviewer.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct SourceContext {
    pub op_id: String,
    #[serde(default)]
    pub request_params: Vec<ContextParam>,
    #[serde(default)]
    pub response_schema: ResponseSchema,
    /// How the project renders errors (a project-level fact found by the scan, plus what
    /// extraction added); absent in contexts written before error bodies were modelled.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub error_envelopes: Vec<ErrorEnvelope>,
    #[serde(default)]
    pub request_params_pending: Vec<PendingClaim>,
    #[serde(default)]
    pub response_schema_pending: Vec<PendingClaim>,
}

/// The part of a [`SourceContext`] the oracle generators and challengers may read: the
/// source-verified parameters and response schema, never the pending claims (paper
/// 4.2: "oracle-generation agents read only the source-verified fields"). A pending
/// claim is the spec's word the code did not confirm; shown to a generator as a fact, it
/// turns into oracles that fail on a correct program.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct VerifiedContext<'a> {
    pub op_id: &'a str,
    pub request_params: &'a [ContextParam],
    pub response_schema: &'a ResponseSchema,
    #[serde(skip_serializing_if = "<[ErrorEnvelope]>::is_empty")]
    pub error_envelopes: &'a [ErrorEnvelope],
}

impl SourceContext {
    /// The lines its error cases and error envelopes cite: what a reviewer or a revision
    /// is shown of the code, besides the lines the oracles cite.
    pub fn error_refs(&self) -> impl Iterator<Item = &EvidenceRef> {
        self.response_schema
            .error_cases
            .iter()
            .flat_map(|e| &e.evidence_refs)
            .chain(self.error_envelopes.iter().flat_map(|e| &e.evidence_refs))
    }

    /// The verified part, for prompts.
    pub fn verified(&self) -> VerifiedContext<'_> {
        VerifiedContext {
            op_id: &self.op_id,
            request_params: &self.request_params,
            response_schema: &self.response_schema,
            error_envelopes: &self.error_envelopes,
        }
    }
}

/// The request an oracle sends. Keys outside these eight are stripped by normalization.
///
/// `path_raw` and `raw_body` exist because some oracles mean bytes the JSON form cannot
/// say: a path segment already percent-encoded (`%2B`) would be encoded again from
/// `path`, and a deliberately malformed JSON body written in `body` is sent as a JSON
/// string. Both are absent from the JSON when unused, so older files are unchanged.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct OracleInput {
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub path: BTreeMap<String, Value>,
    /// Path parameters inserted into the URL verbatim (not percent-encoded again), e.g.
    /// `{"name": "a%2Bb"}`. A name is in `path` or here, never in both; a value stays one
    /// segment (no `/`, `?`, `#`, whitespace).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub path_raw: BTreeMap<String, String>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub query: BTreeMap<String, Value>,
    /// A JSON body, serialized by the runner (`Content-Type: application/json`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub body: Option<Value>,
    /// A body sent byte for byte with its own content type (malformed JSON, form data,
    /// plain text); never together with `body`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub raw_body: Option<RawBody>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub headers: BTreeMap<String, Value>,
    /// The HTTP method to send instead of the operation's own (`"DELETE"` on a route that
    /// only serves GET): without it a 405 cannot be asked for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub method: Option<String>,
    /// A query string appended as written after the `query` pairs (`"limit=1e3&"`,
    /// `"tag=%ZZ"`): query-string error cases the pairs cannot say.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub query_raw: Option<String>,
}

/// A request body sent verbatim, for inputs JSON cannot express (see [`OracleInput`]).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct RawBody {
    /// Sent as `Content-Type` unless the input's headers set one.
    pub content_type: String,
    /// The body text, exactly as sent.
    pub text: String,
}

/// Assertion operators on a response field.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FieldOp {
    Equals,
    NotEquals,
    NotNull,
    IsNull,
    Gt,
    Gte,
    Lt,
    Lte,
    Matches,
    Type,
    Contains,
    Length,
}

/// One check on a response.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum Assertion {
    Status {
        expected: u16,
    },
    Field {
        /// Dotted path with `[n]` and `[*]`; `""` is the whole body.
        field_path: String,
        op: FieldOp,
        #[serde(default)]
        expected: Value,
    },
}

/// The four generation strategies of paper Table 4.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, PartialOrd, Ord)]
#[serde(rename_all = "lowercase")]
pub enum Strategy {
    Fv,
    Fi,
    Bv,
    Bi,
}

/// A single-operation oracle (paper Listing 4, plus structured evidence refs).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Oracle {
    pub test_id: String,
    #[serde(default)]
    pub op_id: String,
    #[serde(default)]
    pub description: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub oracle_strategy: Option<Strategy>,
    #[serde(default)]
    pub input: OracleInput,
    #[serde(default)]
    pub assertions: Vec<Assertion>,
    #[serde(default)]
    pub evidence: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub evidence_refs: Vec<EvidenceRef>,
    /// Precondition: the oracle needs the seed data as it was at start-up. The runner runs
    /// it before any oracle that writes (after `check --reset` when one is given), so
    /// another oracle's delete or update cannot make it fail.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub fresh_state: bool,
}

impl Oracle {
    /// Stable review id: `op_id` + `test_id`.
    pub fn o_id(&self) -> String {
        format!("{}#{}", self.op_id, self.test_id)
    }
}

impl MultiOpOracle {
    /// Stable review id of the whole sequence: `group_id` + `test_id`; a step adds `#<n>`.
    pub fn o_id(&self) -> String {
        format!("{}#{}", self.group_id, self.test_id)
    }
}

/// A suite file: what `mastor export --format json` writes and `mastor check` reads.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct SuiteFile {
    pub schema_version: u32,
    #[serde(default)]
    pub oracles: Vec<Oracle>,
    #[serde(default)]
    pub multi_op: Vec<MultiOpOracle>,
    /// Metamorphic tests (review id `mr#<test_id>`); absent in suites written before they
    /// joined suites, and left out of the JSON when there are none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub metamorphic: Vec<MetamorphicTest>,
    /// o_id → review state (absent: proposed).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub review: BTreeMap<String, ReviewState>,
}

/// One step of a multi-operation oracle.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Step {
    pub op_id: String,
    #[serde(default)]
    pub input: OracleInput,
    /// capture name → field path in this step's response.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub captures: BTreeMap<String, String>,
    #[serde(default)]
    pub assertions: Vec<Assertion>,
}

/// A sequence of calls whose later steps bind earlier captures as `$captures.<name>`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MultiOpOracle {
    pub test_id: String,
    #[serde(default)]
    pub group_id: String,
    #[serde(default)]
    pub description: String,
    pub steps: Vec<Step>,
    #[serde(default)]
    pub evidence: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub evidence_refs: Vec<EvidenceRef>,
}

/// Paper Table 5 review dimensions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HintDimension {
    StructuralCompleteness,
    CoverageGaps,
    AssertionCorrectness,
    SequenceLogic,
}

/// One challenger hint; `test_id` is `"suite"` for suite-level hints.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Hint {
    pub test_id: String,
    pub dimension: HintDimension,
    pub text: String,
    /// Other oracles this hint says must change (beyond `test_id`): a `suite` hint that
    /// asks to fix "all the 400 oracles" lists them here. Only these and `test_id` are
    /// flagged for revision; an id merely mentioned in `text` is not.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub affects: Vec<String>,
    /// Who wrote it: the challenger model, or our own deterministic quadrant check
    /// (counted apart, so the model's review can be measured on its own).
    #[serde(default, skip_serializing_if = "HintOrigin::is_challenger")]
    pub origin: HintOrigin,
}

/// Where a hint comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HintOrigin {
    /// The challenger model.
    #[default]
    Challenger,
    /// The quadrant check: a strategy (FV, FI, BV, BI) the context has material for but
    /// the suite lacks (paper Table 4: every quadrant is intentionally populated).
    Quadrant,
    /// A mutant no oracle killed (`mastor run --from-survivors`): a proven gap, given as
    /// the mutant's diff.
    Mutation,
}

impl HintOrigin {
    fn is_challenger(&self) -> bool {
        *self == HintOrigin::Challenger
    }
}

/// The challenger's review of one suite.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ChallengerReview {
    #[serde(default)]
    pub hints: Vec<Hint>,
}

/// What the reviewer decided about one oracle.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Decision {
    Accepted,
    Rejected,
    Edited,
}

/// One entry of the append-only review journal.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReviewDecision {
    pub o_id: String,
    pub decision: Decision,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub edited: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// RFC 3339 timestamp.
    pub at: String,
    /// The user action this decision belongs to (one id for every decision of a bulk
    /// action), so undo and redo work on whole actions. Absent in older journals and in
    /// decisions written outside the workbench: each is then its own step.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub step: Option<String>,
}

/// Where an oracle stands in review: no decision yet is `Proposed`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ReviewState {
    #[default]
    Proposed,
    Accepted,
    Edited,
    Rejected,
    /// Set aside by normalization (it references a status or field the verified context
    /// lacks) and not reviewed yet; accepting or editing it restores it.
    Dropped,
}

mod errors;
mod metamorphic;
mod normalize;
mod verdict;

pub use errors::*;
pub use metamorphic::*;
pub use normalize::*;
pub use verdict::*;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paper_listing4_oracle_loads() {
        let text = r#"{
          "test_id": "fv_i_5_s_baab",
          "description": "FV: i=5",
          "input": {"path": {"i": "5", "s": "baab"}, "query": {}},
          "assertions": [
            {"type": "status", "expected": 200},
            {"type": "field", "field_path": "", "op": "not_null", "expected": null},
            {"type": "field", "field_path": "", "op": "equals", "expected": "10"}
          ],
          "evidence": "sequential ifs",
          "oracle_strategy": "fv"
        }"#;
        let o: Oracle = serde_json::from_str(text).unwrap();
        assert_eq!(o.oracle_strategy, Some(Strategy::Fv));
        assert_eq!(o.assertions.len(), 3);
        assert_eq!(o.assertions[0], Assertion::Status { expected: 200 });
        assert_eq!(o.input.path["i"], Value::from("5"));
    }

    #[test]
    fn op_id_uppercases_method() {
        assert_eq!(op_id("get", "/a/{b}"), "GET /a/{b}");
    }

    #[test]
    fn relation_op_all_lists_every_operator_once() {
        // The match is exhaustive: a new operator fails to compile here until listed.
        let position = |op: RelationOp| match op {
            RelationOp::Equals => 0,
            RelationOp::NotEquals => 1,
            RelationOp::Contains => 2,
            RelationOp::NotContains => 3,
            RelationOp::Subset => 4,
            RelationOp::CountDiff => 5,
            RelationOp::Greater => 6,
            RelationOp::GreaterOrEqual => 7,
            RelationOp::Less => 8,
            RelationOp::LessOrEqual => 9,
            RelationOp::SameShape => 10,
        };
        for (i, op) in RelationOp::ALL.iter().enumerate() {
            assert_eq!(position(*op), i);
        }
    }
}
