//! A small Server-Sent Events reader for streamed Chat Completions: splits the byte
//! stream into events, skips comments (`: keep-alive`) and other fields, and folds
//! `data:` chunks into the answer text, finish reason and usage. It does not reconnect
//! (a broken stream is an attempt that failed and is retried whole).

use super::record::Usage;
use serde_json::Value;

/// Incremental event splitter; feed it byte chunks as they arrive.
#[derive(Debug, Default)]
pub(crate) struct SseParser {
    buf: Vec<u8>,
    data: Vec<String>,
}

impl SseParser {
    /// Adds bytes; returns the `data` payloads of every event completed by them.
    pub(crate) fn push(&mut self, chunk: &[u8]) -> Vec<String> {
        self.buf.extend_from_slice(chunk);
        let mut events = Vec::new();
        while let Some(nl) = self.buf.iter().position(|b| *b == b'\n') {
            let line_bytes: Vec<u8> = self.buf.drain(..=nl).collect();
            let line = String::from_utf8_lossy(&line_bytes);
            let line = line.trim_end_matches(['\n', '\r']);
            self.line(line, &mut events);
        }
        events
    }

    /// Ends the stream; returns a last event not followed by a blank line.
    pub(crate) fn finish(&mut self) -> Vec<String> {
        let mut events = Vec::new();
        if !self.buf.is_empty() {
            let rest = String::from_utf8_lossy(&std::mem::take(&mut self.buf)).to_string();
            self.line(rest.trim_end_matches('\r'), &mut events);
        }
        if !self.data.is_empty() {
            events.push(self.data.join("\n"));
            self.data.clear();
        }
        events
    }

    fn line(&mut self, line: &str, events: &mut Vec<String>) {
        if line.is_empty() {
            if !self.data.is_empty() {
                events.push(self.data.join("\n"));
                self.data.clear();
            }
        } else if line.starts_with(':') {
            // comment / keep-alive
        } else if let Some(rest) = line.strip_prefix("data:") {
            self.data
                .push(rest.strip_prefix(' ').unwrap_or(rest).to_string());
        }
    }
}

/// The answer assembled from streamed chunks.
#[derive(Debug, Default)]
pub(crate) struct StreamAnswer {
    pub content: String,
    pub finish_reason: Option<String>,
    pub usage: Option<Usage>,
    pub done: bool,
}

impl StreamAnswer {
    /// Applies one event payload; an error object in the stream is returned as Err.
    pub(crate) fn apply(&mut self, data: &str) -> Result<(), String> {
        let data = data.trim();
        if data == "[DONE]" {
            self.done = true;
            return Ok(());
        }
        if data.is_empty() {
            return Ok(());
        }
        let v: Value = serde_json::from_str(data).map_err(|e| {
            format!(
                "bad stream chunk ({e}): {}",
                data.chars().take(200).collect::<String>()
            )
        })?;
        if let Some(err) = v.get("error") {
            return Err(format!("error in stream: {err}"));
        }
        if let Some(choice) = v.get("choices").and_then(|c| c.get(0)) {
            if let Some(t) = choice.pointer("/delta/content").and_then(Value::as_str) {
                self.content.push_str(t);
            }
            if let Some(f) = choice.get("finish_reason").and_then(Value::as_str) {
                self.finish_reason = Some(f.to_string());
            }
        }
        if let Some(u) = v.get("usage").and_then(Usage::from_json) {
            self.usage = Some(u);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_events_across_chunks_and_skips_comments() {
        let mut p = SseParser::default();
        let mut ev = p.push(b": keep-alive\n\ndata: {\"a\"");
        assert!(ev.is_empty());
        ev.extend(p.push(b":1}\r\n\r\nevent: x\ndata: [DONE]\n\n"));
        assert_eq!(ev, vec!["{\"a\":1}".to_string(), "[DONE]".to_string()]);
        assert!(p.finish().is_empty());
    }

    #[test]
    fn multibyte_split_survives() {
        let mut p = SseParser::default();
        let bytes = "data: é\n\n".as_bytes();
        let mut ev = p.push(&bytes[..7]);
        ev.extend(p.push(&bytes[7..]));
        assert_eq!(ev, vec!["é".to_string()]);
    }

    #[test]
    fn folds_chunks() {
        let mut a = StreamAnswer::default();
        a.apply(r#"{"choices":[{"delta":{"role":"assistant","content":""}}]}"#)
            .unwrap();
        a.apply(r#"{"choices":[{"delta":{"content":"{\"x\":"}}]}"#)
            .unwrap();
        a.apply(r#"{"choices":[{"delta":{"content":"1}"},"finish_reason":"stop"}]}"#)
            .unwrap();
        a.apply(r#"{"choices":[],"usage":{"prompt_tokens":3,"completion_tokens":2}}"#)
            .unwrap();
        a.apply("[DONE]").unwrap();
        assert_eq!(a.content, "{\"x\":1}");
        assert_eq!(a.finish_reason.as_deref(), Some("stop"));
        assert_eq!(a.usage.unwrap().completion_tokens, 2);
        assert!(a.done);
        assert!(a.apply(r#"{"error":{"message":"overloaded"}}"#).is_err());
        assert!(a.apply("not json").is_err());
    }
}
