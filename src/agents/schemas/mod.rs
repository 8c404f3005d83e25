//! JSON schemas sent with each agent's request where the provider accepts one
//! (llama.cpp compiles them into a grammar, vLLM into guided decoding). A schema keeps a
//! small model on a shape that survives normalization; the parsers downstream stay
//! lenient, since providers without schema support answer free-form JSON.
//!
//! Each call gets a schema built from what is known at that point: the spec operation
//! and its verified source context (statuses, response fields, parameters), the group's
//! operations, the suite's test ids. Where that information is missing the static shape
//! of [`fixed`] is used for that part. A tailored schema that grows past [`MAX_ENUM`]
//! values in one enum or [`MAX_SCHEMA_BYTES`] serialized falls back to the static schema
//! for the whole call, because a grammar that large is slow to compile and to sample.

pub mod fixed;
mod lists;
mod metamorphic;
mod oracles;

pub use fixed::{context, discovery, groups, hints, multi_oracles, oracles};
pub use lists::{for_discovery, for_groups, for_hints};
pub use metamorphic::{for_mr_generator, mr_generator};
pub use oracles::{OpShape, for_multi_op, for_single_op};

use crate::agents::runtime::AgentCtx;
use crate::store::{Event, EventKind};
use serde_json::{Value, json};

/// Most values one enum may list before the call falls back to the static schema.
pub const MAX_ENUM: usize = 200;

/// Largest serialized tailored schema, in bytes, before the call falls back.
pub const MAX_SCHEMA_BYTES: usize = 16 * 1024;

/// The schema for one call, and why it is the static one when tailoring was given up.
#[derive(Debug, Clone, PartialEq)]
pub struct CallSchema {
    pub schema: Value,
    /// `Some(reason)` when the static schema replaced a tailored one.
    pub fallback: Option<String>,
}

impl CallSchema {
    /// Checks a tailored schema against the size limit; `built` is `Err(reason)` when an
    /// enum was over [`MAX_ENUM`]. Either failure gives `fixed` with the reason, logged.
    pub fn bounded(agent: &str, built: Result<Value, String>, fixed: fn() -> Value) -> Self {
        let reason = match built {
            Ok(schema) => {
                let size = schema.to_string().len();
                if size <= MAX_SCHEMA_BYTES {
                    return CallSchema {
                        schema,
                        fallback: None,
                    };
                }
                format!("tailored schema is {size} bytes, over the {MAX_SCHEMA_BYTES}-byte limit")
            }
            Err(reason) => reason,
        };
        tracing::warn!("{agent}: static response schema used: {reason}");
        CallSchema {
            schema: fixed(),
            fallback: Some(reason),
        }
    }

    /// The schema to send; a fallback is noted in the session's event journal first, so
    /// the reviewer of a weak answer can see the model was less constrained.
    pub fn noted(self, ctx: &AgentCtx, agent: crate::agents::Agent, op: Option<&str>) -> Value {
        if let Some(reason) = &self.fallback {
            let mut event = Event::new(EventKind::Note, agent.name())
                .message(format!("static response schema used: {reason}"));
            if let Some(op) = op {
                event = event.op(op);
            }
            ctx.emit(event);
        }
        self.schema
    }
}

/// `{"enum": values}`, or `Err` naming `what` when there are more than [`MAX_ENUM`].
pub(crate) fn enum_of<T: Into<Value> + Clone>(what: &str, values: &[T]) -> Result<Value, String> {
    if values.len() > MAX_ENUM {
        return Err(format!(
            "{what}: {} values, over the {MAX_ENUM}-value enum limit",
            values.len()
        ));
    }
    Ok(json!({"enum": values.iter().cloned().map(Into::into).collect::<Vec<Value>>()}))
}

pub(crate) fn string() -> Value {
    json!({"type": "string"})
}

/// An object with exactly `props` (each `value`), `required` of them required.
pub(crate) fn closed_object(props: &[String], value: &Value, required: bool) -> Value {
    let properties: serde_json::Map<String, Value> =
        props.iter().map(|p| (p.clone(), value.clone())).collect();
    let mut obj = json!({"type": "object", "properties": properties,
        "additionalProperties": false});
    if required && !props.is_empty() {
        obj["required"] = json!(props);
    }
    obj
}
