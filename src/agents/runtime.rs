//! What every agent shares: the model client, the prompts, the session and the prepared
//! project, plus one call helper that renders a prompt, calls the model and files the call
//! record (prompt, raw answer, retries, tokens) in the session whatever the outcome.
//!
//! Agents are functions over this context. They never call each other; the blackboard
//! (`Board`) holds what earlier agents produced, and every change to it is also written
//! to the session so that a reviewer sees it and a resumed run can rely on it.

use crate::agents::error::AgentError;
use crate::agents::groups::Group;
use crate::llm::{CallRecord, CallRequest, LlmClient, Message};
use crate::model::{EntryRef, SourceContext};
use crate::project::Prepared;
use crate::prompts::Prompts;
use crate::store::{Event, EventKind};
use crate::store::{GroupRecord, Session, SuiteRecord};
use serde::de::DeserializeOwned;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, Mutex, MutexGuard};

/// Receives every pipeline event as it happens (the TUI's live view, progress bars).
pub type EventSink = Arc<dyn Fn(&Event) + Send + Sync>;

/// The blackboard: every agent's latest output, by operation or group.
#[derive(Debug, Default)]
pub struct Board {
    /// op_id → handler claimed by discovery, with the entry file whose bundle showed it.
    pub discovered: BTreeMap<String, (EntryRef, String)>,
    pub contexts: BTreeMap<String, SourceContext>,
    pub suites: BTreeMap<String, SuiteRecord>,
    pub groups: BTreeMap<String, (Group, GroupRecord)>,
}

/// Everything an agent needs; cheap to clone into tasks.
#[derive(Clone)]
pub struct AgentCtx {
    pub client: LlmClient,
    pub prompts: Arc<Prompts>,
    pub session: Arc<Session>,
    pub project: Arc<Prepared>,
    pub board: Arc<Mutex<Board>>,
    pub sink: Option<EventSink>,
    /// Cap on answer length per call (small local models otherwise ramble to the end of
    /// their context); `None` leaves it to the provider.
    pub max_tokens: Option<u32>,
    /// Agents whose calls skip the response cache (a re-run "from an agent on", see
    /// `pipeline::orchestrator::downstream_of`); the others replay cached answers.
    pub fresh_agents: Arc<BTreeSet<crate::agents::Agent>>,
    /// What normalization keeps (`--keep-unreferenced`).
    pub normalize: crate::agents::normalize::NormalizeOptions,
    /// Per operation, the mutation analysis' verdict on its suite (oracles that kill
    /// nothing, redundant ones, survivors as diffs) for the single-op challenger
    /// (`--challenger-mutation`); empty when off.
    pub mutation_notes: Arc<BTreeMap<String, String>>,
}

/// A model answer with the record of the call that produced it.
pub struct Answer<T> {
    pub value: T,
    pub record: CallRecord,
}

impl AgentCtx {
    /// Locks the blackboard; a poisoned lock (a panicked agent) still yields the data.
    pub fn board(&self) -> MutexGuard<'_, Board> {
        self.board.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Writes an event to the session journal and to the live sink.
    pub fn emit(&self, event: Event) {
        if let Err(e) = self.session.append_event(&event) {
            tracing::warn!("cannot append event: {e}");
        }
        if let Some(sink) = &self.sink {
            sink(&event);
        }
    }

    /// Runs a session write on tokio's blocking pool. Session writes are atomic and
    /// fsynced (milliseconds each); done on the async workers, a burst of agents finishing
    /// together would stall every other agent's task behind the disk.
    pub async fn write<F>(&self, f: F) -> Result<(), AgentError>
    where
        F: FnOnce(&Session) -> Result<(), crate::store::StoreError> + Send + 'static,
    {
        let session = Arc::clone(&self.session);
        match tokio::task::spawn_blocking(move || f(&session)).await {
            Ok(result) => Ok(result?),
            Err(e) => Err(AgentError::WriteIncomplete(e.to_string())),
        }
    }

    /// Renders the agent's prompt with `vars`, fits it into the model's context window
    /// (see [`crate::agents::fit`]), calls the model (the challenger role for the
    /// challenger agents, the primary otherwise), files the call record, and deserializes
    /// the answer. The error string names agent, operation and cause.
    pub async fn call<T: DeserializeOwned>(
        &self,
        agent: crate::agents::Agent,
        op: Option<&str>,
        vars: &[(&str, &str)],
        schema: Option<serde_json::Value>,
    ) -> Result<Answer<T>, AgentError> {
        let (phase, role) = (agent.phase(), agent.role());
        // The prompts tell the model its answer budget when we know it.
        let budget = output_budget(self.max_tokens);
        let mut with_budget = vars.to_vec();
        if let Some(b) = &budget {
            with_budget.push(("output_budget", b.as_str()));
        }
        let vars = with_budget.as_slice();
        let mut window = self.client.context_window(role).await;
        // A server whose tokenizer counts more than the estimate says so; the prompt is
        // then cut further, twice at most.
        let mut squeeze = 1.0;
        loop {
            let (rendered, mut notes) = self
                .fitted_prompt(agent, op, vars, window, squeeze)
                .map_err(AgentError::Prompt)?;
            // The record says what was scrubbed from the files this prompt shows.
            // (The bundle may stand in either message: see the shared source prefix.)
            notes.extend(crate::source::redact::prompt_note(
                &self.project.analysis.report.redactions,
                &format!("{}\n{}", rendered.system, rendered.user),
            ));
            // A prompt file with nothing above its user marker (the DP baseline's
            // zero-shot template, paper Listing A.1) is sent as one user message.
            let mut messages = Vec::with_capacity(2);
            if !rendered.system.is_empty() {
                messages.push(Message::system(rendered.system));
            }
            messages.push(Message::user(rendered.user));
            let mut req = CallRequest::new(agent.name(), phase, messages)
                .role(role)
                .fresh(self.fresh_agents.contains(&agent));
            req.notes = notes;
            if let Some(op) = op {
                req = req.op(op);
            }
            if let Some(schema) = &schema {
                req = req.schema(schema.clone());
            }
            req.max_tokens = self.max_tokens;
            match self.client.call_json::<T>(req).await {
                Ok((value, record)) => {
                    self.file_call(&record).await;
                    return Ok(Answer { value, record });
                }
                Err(failure) => {
                    self.file_call(&failure.record).await;
                    let error = failure.error.to_string();
                    if !is_context_overflow(&error) || squeeze <= 0.5 {
                        return Err(failure.error.into());
                    }
                    if window.is_none() {
                        // The server did not say its window beforehand; its error may.
                        window = self.client.learn_context_window(role, &error);
                        if window.is_none() {
                            return Err(failure.error.into());
                        }
                    } else {
                        squeeze *= 0.7;
                    }
                    continue;
                }
            }
        }
    }

    /// The rendered prompt of `agent`, its bundle (or DP source) cut by whole files when
    /// the estimate exceeds `squeeze` times the room the window leaves after the answer.
    /// Returns notes for the call record; an error when nothing can make it fit.
    fn fitted_prompt(
        &self,
        agent: crate::agents::Agent,
        op: Option<&str>,
        vars: &[(&str, &str)],
        window: Option<u32>,
        squeeze: f64,
    ) -> Result<(crate::prompts::Rendered, Vec<String>), String> {
        use crate::agents::fit;
        let render = |vars: &[(&str, &str)]| {
            self.prompts
                .render(agent.name(), vars)
                .map_err(|e| e.to_string())
        };
        let rendered = render(vars)?;
        let Some(window) = window else {
            return Ok((rendered, Vec::new()));
        };
        let answer_room = self
            .max_tokens
            .map_or(fit::DEFAULT_ANSWER_ROOM, |m| m as usize);
        let room = ((window as usize).saturating_sub(answer_room) as f64 * squeeze) as usize;
        let need = fit::estimate_prompt(&[&rendered.system, &rendered.user]);
        if need <= room {
            return Ok((rendered, Vec::new()));
        }
        let who = match op {
            Some(op) => format!("{agent} {op}"),
            None => agent.to_string(),
        };
        let too_big = format!(
            "{who}: the prompt needs about {need} tokens, but the model's context window is \
             {window} tokens with {answer_room} kept for the answer"
        );
        let Some(slot) = vars
            .iter()
            .position(|(k, _)| matches!(*k, "bundle" | "source" | "source_code"))
        else {
            return Err(format!("{too_big}; it has no source to shorten"));
        };
        let text = vars[slot].1;
        let others = need.saturating_sub(fit::estimate_tokens(text));
        let budget = (room.saturating_sub(others) as f64 * fit::CHARS_PER_TOKEN) as usize;
        let entry = self.entry_file_of(op, vars);
        let (_, chunks) = fit::split_bundle(text);
        let order: Vec<&str> = chunks.iter().map(|c| c.path).collect();
        let priority = fit::priority(entry.as_deref(), &order, self.project.file_deps());
        let Some(shrunk) = fit::shrink_bundle(text, &priority, budget) else {
            return Err(format!(
                "{too_big}; even {} alone does not fit (use a model with a larger window, \
                 or --context-window if the server's is larger)",
                priority.first().map_or("the first file", String::as_str)
            ));
        };
        let mut vars: Vec<(&str, &str)> = vars.to_vec();
        vars[slot].1 = &shrunk.text;
        let fitted = render(&vars)?;
        let note = format!(
            "context window {window} tokens: the prompt (about {need} tokens) was cut to about \
             {} by leaving out {} of {} files: {}",
            fit::estimate_prompt(&[&fitted.system, &fitted.user]),
            shrunk.dropped.len(),
            chunks.len(),
            shrunk.dropped.join(", ")
        );
        Ok((fitted, vec![note]))
    }

    /// The file a bundle is cut around: the operation's handler file, else discovery's
    /// entry file.
    fn entry_file_of(&self, op: Option<&str>, vars: &[(&str, &str)]) -> Option<String> {
        if let Some(op) = op {
            let discovered = self.board().discovered.get(op).map(|(e, _)| e.file.clone());
            if let Some(f) = self.project.handler_file(op, discovered.as_deref()) {
                return Some(f);
            }
        }
        vars.iter()
            .find(|(k, _)| *k == "entry_file")
            .map(|(_, v)| v.to_string())
    }

    /// Keeps the call record in the session and reports its retries as events.
    ///
    /// The file name is derived from the request, not the record's random id, so a resumed
    /// run that answers a call from the cache finds the original record (with its real
    /// tokens and cost) and keeps it instead of adding a second, free copy.
    async fn file_call(&self, record: &CallRecord) {
        let name = call_file_name(record);
        let exists = self
            .session
            .path(&crate::store::call_rel(&name))
            .map(|p| p.exists())
            .unwrap_or(false);
        if !(record.cache_hit && exists) {
            let (file, rec) = (name.clone(), record.clone());
            if let Err(e) = self.write(move |s| s.write_call(&file, &rec)).await {
                tracing::warn!("cannot write call record {name}: {e}");
            }
        }
        let mut note = Event::new(EventKind::Note, record.agent.clone())
            .phase(record.phase.clone())
            .tokens(record.usage.prompt_tokens, record.usage.completion_tokens)
            .cost(record.cost_usd)
            .wall_ms(record.wall_ms)
            .message(format!(
                "call {name}{}",
                if record.cache_hit { " (cache hit)" } else { "" }
            ));
        if let Some(op) = &record.op_id {
            note = note.op(op.clone());
        }
        self.emit(note);
    }
}

/// A retry sink that reports each wait as it starts (an `AgentRetry` event in the
/// session's journal and on the live sink), so a long Retry-After is visible while it
/// lasts, not only after the call: the CLI's progress line and the TUI's operation list
/// show it.
pub fn retry_events(session: Arc<Session>, sink: Option<EventSink>) -> crate::llm::RetrySink {
    Arc::new(move |w: &crate::llm::RetryWait| {
        let mut ev = Event::new(EventKind::AgentRetry, w.agent.clone()).message(format!(
            "attempt {}: {} (waiting {} s)",
            w.note.attempt,
            w.note.reason,
            w.note.wait_ms.div_ceil(1000)
        ));
        if let Some(op) = &w.op_id {
            ev = ev.op(op.clone());
        }
        if let Err(e) = session.append_event(&ev) {
            tracing::warn!("cannot append event: {e}");
        }
        if let Some(sink) = &sink {
            sink(&ev);
        }
    })
}

/// The `{{output_budget}}` a call with answer cap `max_tokens` tells the model (none: the
/// prompts' default wording).
pub fn output_budget(max_tokens: Option<u32>) -> Option<String> {
    max_tokens.map(|n| format!("about {n} output tokens"))
}

/// Whether a model error says the prompt did not fit its context window.
fn is_context_overflow(error: &str) -> bool {
    let e = error.to_ascii_lowercase();
    e.contains("context_length_exceeded")
        || (e.contains("context") && (e.contains("exceed") || e.contains("too long")))
}

/// A stable name for a call: agent, operation and a hash of the messages.
pub fn call_file_name(record: &CallRecord) -> String {
    use sha2::{Digest, Sha256};
    let mut h = Sha256::new();
    h.update(record.agent.as_bytes());
    h.update([0]);
    h.update(record.op_id.as_deref().unwrap_or("").as_bytes());
    for m in &record.messages {
        h.update([0]);
        h.update(m.role.as_bytes());
        h.update([0]);
        h.update(m.content.as_bytes());
    }
    let hash = hex::encode(h.finalize());
    format!("{}-{}", record.agent, &hash[..16])
}

/// A JSON array for prompts with one compact item per line: oracle lists are the
/// largest agent-specific part of a review or revision prompt, and pretty-printing them
/// doubled their tokens without telling the model anything more.
pub fn to_prompt_lines<T: serde::Serialize>(items: &[T]) -> String {
    if items.is_empty() {
        return "[]".into();
    }
    let lines: Vec<String> = items
        .iter()
        .map(|i| serde_json::to_string(i).unwrap_or_default())
        .collect();
    format!("[\n{}\n]", lines.join(",\n"))
}

/// JSON for prompts, laid out as [`crate::prompts::prompt_json`] lays it out.
/// Serialization of our own types cannot fail in practice, and an empty string is a
/// harmless fallback if it ever did.
pub fn to_prompt_json<T: serde::Serialize>(value: &T) -> String {
    serde_json::to_value(value)
        .map(|v| crate::prompts::prompt_json(&v))
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prompt_json_lays_out_two_levels_and_stays_json() {
        let v = serde_json::json!({"op_id": "GET /a", "request_params": [
            {"name": "id", "constraints": ["x", "y"]}, {"name": "q"}], "empty": []});
        let text = to_prompt_json(&v);
        assert_eq!(
            text,
            "{\n \"op_id\": \"GET /a\",\n \"request_params\": [\n  {\"name\":\"id\",\"constraints\":[\"x\",\"y\"]},\n  {\"name\":\"q\"}\n ],\n \"empty\": []\n}"
        );
        let back: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(back, v);
        assert!(text.len() < serde_json::to_string_pretty(&v).unwrap().len());
    }

    #[test]
    fn oracle_lists_are_one_compact_item_a_line_and_still_json() {
        let items = vec![
            serde_json::json!({"test_id": "a", "input": {"path": {"id": 1}}}),
            serde_json::json!({"test_id": "b"}),
        ];
        let text = to_prompt_lines(&items);
        assert_eq!(text.lines().count(), 4, "{text}");
        assert!(
            text.contains(r#"{"input":{"path":{"id":1}},"test_id":"a"}"#)
                || text.contains(r#"{"test_id":"a","input":{"path":{"id":1}}}"#),
            "{text}"
        );
        let back: Vec<serde_json::Value> = serde_json::from_str(&text).unwrap();
        assert_eq!(back, items);
        assert_eq!(to_prompt_lines::<serde_json::Value>(&[]), "[]");
        assert!(text.len() < serde_json::to_string_pretty(&items).unwrap().len());
    }
}
