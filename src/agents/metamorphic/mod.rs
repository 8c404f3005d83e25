//! The MR generator and MR refiner (ARMeta's generation and refinement layers) as model
//! calls: render the prompt, call the model, keep the call record in the session.
//!
//! Only the model calls live here. What a candidate must satisfy is decided in Rust
//! (`metamorphic::check`); the refiner is asked only about candidates that failed those
//! checks, with the problems found, and its repairs are checked again by the caller.
//! The loop that decides when to stop is `metamorphic::iterate`.

use crate::agents::error::AgentError;
use crate::agents::runtime::call_file_name;
use crate::agents::schemas::{self, CallSchema};
use crate::llm::{CallRecord, CallRequest, LlmClient, Message};
use crate::model::{MetamorphicTest, SpecOperation, SpecParameter, SpecResponse};
use crate::prompts::Prompts;
use crate::store::{Event, EventKind, Session};
use serde_json::{Value, json};
use std::sync::Arc;

/// What the generator is given besides the spec (empty strings when unknown: spec-only).
#[derive(Debug, Clone, Default)]
pub struct Grounding {
    /// Compressed source contexts of the operations.
    pub contexts: String,
    /// Semantic groups (related operation sequences).
    pub groups: String,
}

/// The refiner's answer: repaired candidates and dropped ones with reasons.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Refined {
    pub tests: Vec<Value>,
    /// (test_id, reason)
    pub dropped: Vec<(String, String)>,
}

/// The two model-backed agents of the metamorphic loop. A trait so the loop can be driven
/// by anything that answers like them (the real model, a scripted server behind it).
pub trait MrAgents {
    /// Asks for up to `batch` new candidates given the earlier tests.
    fn generate(
        &self,
        history: &[MetamorphicTest],
        uncovered: &[String],
        batch: usize,
    ) -> impl Future<Output = Result<Vec<Value>, AgentError>> + Send;
    /// Asks for repairs of candidates that failed the spec checks.
    fn refine(
        &self,
        failing: &[(Value, Vec<String>)],
    ) -> impl Future<Output = Result<Refined, AgentError>> + Send;
}

/// The agents on an LLM client.
#[derive(Clone)]
pub struct ModelAgents {
    pub client: LlmClient,
    pub prompts: Arc<Prompts>,
    pub session: Option<Arc<Session>>,
    /// The spec's operations as prompt text.
    pub spec_text: String,
    pub grounding: Grounding,
}

/// The operations as compact prompt JSON: op_id, parameters, request body, responses.
pub fn spec_text(ops: &[SpecOperation]) -> String {
    let list: Vec<Value> = ops
        .iter()
        .filter(|o| o.excluded.is_none())
        .map(|o| {
            json!({
                "op_id": o.op_id,
                "summary": o.summary,
                "parameters": o.parameters.iter().map(|p| json!({
                    "name": p.name, "in": p.location, "required": p.required, "schema": p.schema
                })).collect::<Vec<_>>(),
                "requestBody": o.request_body.as_ref().map(|b| &b.schema),
                "responses": o.responses.iter().map(|(k, r)| (k.clone(), r.schema.clone()))
                    .collect::<serde_json::Map<String, Value>>(),
            })
        })
        .collect();
    serde_json::to_string_pretty(&list).unwrap_or_default()
}

/// Earlier tests as the generator sees them: id, scenario, operations, relation ops.
pub fn history_text(history: &[MetamorphicTest]) -> String {
    if history.is_empty() {
        return "(none)".to_string();
    }
    history
        .iter()
        .map(|t| {
            let ops: Vec<&str> = t
                .seed
                .iter()
                .chain(&t.follow_up)
                .map(|s| s.op_id.as_str())
                .collect();
            format!("- {}: {} [{}]", t.test_id, t.scenario, ops.join(" -> "))
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The operations back from [`spec_text`] (op_id, parameters, response schemas): what
/// the answer schemas enumerate. Entries that do not read back are skipped.
pub fn spec_ops(spec_text: &str) -> Vec<SpecOperation> {
    let list: Vec<Value> = serde_json::from_str(spec_text).unwrap_or_default();
    list.iter()
        .filter_map(|o| {
            let op_id = o.get("op_id")?.as_str()?.to_string();
            let (method, path) = op_id.split_once(' ')?;
            let parameters = o
                .get("parameters")
                .and_then(Value::as_array)
                .map(|ps| {
                    ps.iter()
                        .filter_map(|p| {
                            let mut p = p.clone();
                            let loc = p.get_mut("in").map(Value::take)?;
                            p["location"] = loc;
                            serde_json::from_value::<SpecParameter>(p).ok()
                        })
                        .collect()
                })
                .unwrap_or_default();
            let responses = o
                .get("responses")
                .and_then(Value::as_object)
                .map(|rs| {
                    rs.iter()
                        .map(|(code, schema)| {
                            let r = SpecResponse {
                                description: String::new(),
                                media_type: None,
                                schema: schema.clone(),
                            };
                            (code.clone(), r)
                        })
                        .collect()
                })
                .unwrap_or_default();
            Some(SpecOperation {
                op_id: op_id.clone(),
                method: method.to_string(),
                path: path.to_string(),
                operation_id: None,
                tags: Vec::new(),
                summary: None,
                parameters,
                request_body: None,
                responses,
                extensions: Default::default(),
                excluded: None,
            })
        })
        .collect()
}

/// The list under `tests` (or the answer itself when it is an array).
fn test_list(v: &Value) -> Vec<Value> {
    match v {
        Value::Array(a) => a.clone(),
        Value::Object(m) => m
            .get("tests")
            .or_else(|| m.get("metamorphic_tests"))
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default(),
        _ => Vec::new(),
    }
}

impl ModelAgents {
    /// The generator's (`batch`: `Some`) or refiner's schema over the spec's operations;
    /// a fallback to the static schema is noted in the session's events.
    fn schema(&self, batch: Option<usize>) -> Value {
        let built: CallSchema = schemas::for_mr_generator(&spec_ops(&self.spec_text), batch);
        if let (Some(reason), Some(session)) = (&built.fallback, &self.session) {
            let agent = if batch.is_some() {
                "mr_generator"
            } else {
                "mr_refiner"
            };
            let event = Event::new(EventKind::Note, agent)
                .phase("metamorphic")
                .message(format!("static response schema used: {reason}"));
            if let Err(e) = session.append_event(&event) {
                tracing::warn!("cannot append event: {e}");
            }
        }
        built.schema
    }

    /// One model call of a layer: the generator and the refiner each have their own
    /// model (ARMeta), configured as the `generator` and `refiner` roles.
    async fn call(
        &self,
        agent: crate::agents::Agent,
        vars: &[(&str, &str)],
        schema: Value,
    ) -> Result<Value, AgentError> {
        let rendered = self
            .prompts
            .render(agent.name(), vars)
            .map_err(|e| AgentError::Prompt(e.to_string()))?;
        let req = CallRequest::new(
            agent.name(),
            agent.phase(),
            vec![
                Message::system(rendered.system),
                Message::user(rendered.user),
            ],
        )
        .role(agent.role())
        .schema(schema);
        match self.client.call_json::<Value>(req).await {
            Ok((value, record)) => {
                self.file(&record);
                Ok(value)
            }
            Err(failure) => {
                self.file(&failure.record);
                Err(AgentError::Call {
                    agent: agent.to_string(),
                    error: failure.error,
                })
            }
        }
    }

    fn file(&self, record: &CallRecord) {
        let Some(session) = &self.session else {
            return;
        };
        let name = call_file_name(record);
        if let Err(e) = session.write_call(&name, record) {
            tracing::warn!("cannot write call record {name}: {e}");
        }
        let event = Event::new(EventKind::Note, record.agent.clone())
            .phase("metamorphic")
            .tokens(record.usage.prompt_tokens, record.usage.completion_tokens)
            .cost(record.cost_usd)
            .wall_ms(record.wall_ms)
            .message(format!("call {name}"));
        if let Err(e) = session.append_event(&event) {
            tracing::warn!("cannot append event: {e}");
        }
    }
}

impl MrAgents for ModelAgents {
    async fn generate(
        &self,
        history: &[MetamorphicTest],
        uncovered: &[String],
        batch: usize,
    ) -> Result<Vec<Value>, AgentError> {
        let history = history_text(history);
        let uncovered = if uncovered.is_empty() {
            "(none)".to_string()
        } else {
            uncovered.join("\n")
        };
        let schema = self.schema(Some(batch));
        let batch = batch.to_string();
        let or_none = |s: &str| {
            if s.trim().is_empty() {
                "(none)".to_string()
            } else {
                s.to_string()
            }
        };
        let contexts = or_none(&self.grounding.contexts);
        let groups = or_none(&self.grounding.groups);
        let answer = self
            .call(
                crate::agents::Agent::MrGenerator,
                &[
                    ("spec", &self.spec_text),
                    ("contexts", &contexts),
                    ("groups", &groups),
                    ("history", &history),
                    ("uncovered", &uncovered),
                    ("batch", &batch),
                ],
                schema,
            )
            .await?;
        Ok(test_list(&answer))
    }

    async fn refine(&self, failing: &[(Value, Vec<String>)]) -> Result<Refined, AgentError> {
        let candidates: Vec<Value> = failing
            .iter()
            .map(|(c, problems)| json!({"candidate": c, "problems": problems}))
            .collect();
        let candidates = serde_json::to_string_pretty(&candidates).unwrap_or_default();
        let answer = self
            .call(
                crate::agents::Agent::MrRefiner,
                &[("spec", &self.spec_text), ("candidates", &candidates)],
                self.schema(None),
            )
            .await?;
        let dropped = answer
            .get("dropped")
            .and_then(Value::as_array)
            .map(|list| {
                list.iter()
                    .map(|d| {
                        let id = d
                            .get("test_id")
                            .and_then(Value::as_str)
                            .unwrap_or_default()
                            .to_string();
                        let reason = d
                            .get("reason")
                            .and_then(Value::as_str)
                            .unwrap_or("no reason given")
                            .to_string();
                        (id, reason)
                    })
                    .collect()
            })
            .unwrap_or_default();
        Ok(Refined {
            tests: test_list(&answer),
            dropped,
        })
    }
}
