//! A small Server-Sent Events reader for streamed Chat Completions: splits the byte
//! stream into events, skips comments (`: keep-alive`) and other fields, and folds
//! `data:` chunks into the answer text, finish reason and usage. It does not reconnect
//! (a broken stream is an attempt that failed and is retried whole).

use super::record::Usage;
use serde_json::Value;

/// The event splitter's bound was passed: an unfinished line plus the data lines of an
/// unfinished event held more than `limit` bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Overflow {
    pub limit: usize,
}

/// Incremental event splitter; feed it byte chunks as they arrive.
///
/// Work is linear in the bytes received: a chunk is searched for newlines once (`scan`
/// remembers how far the unfinished line was searched) and consumed lines are removed
/// once per chunk. Memory is bounded by `limit`: what is held between chunks (the
/// unfinished line and the unfinished event) never exceeds it.
#[derive(Debug)]
pub(crate) struct SseParser {
    buf: Vec<u8>,
    /// `buf[..scan]` holds no newline.
    scan: usize,
    data: Vec<String>,
    data_bytes: usize,
    limit: usize,
}

impl Default for SseParser {
    fn default() -> Self {
        Self::new(crate::llm::config::DEFAULT_MAX_RESPONSE_BYTES as usize)
    }
}

impl SseParser {
    /// A parser holding at most `limit` bytes between chunks.
    pub(crate) fn new(limit: usize) -> Self {
        Self {
            buf: Vec::new(),
            scan: 0,
            data: Vec::new(),
            data_bytes: 0,
            limit,
        }
    }

    /// Adds bytes; returns the `data` payloads of every event completed by them, or
    /// [`Overflow`] (after which the parser is empty and the stream should be dropped).
    pub(crate) fn push(&mut self, chunk: &[u8]) -> Result<Vec<String>, Overflow> {
        self.buf.extend_from_slice(chunk);
        let mut events = Vec::new();
        let mut start = 0;
        while let Some(off) = self.buf[self.scan..].iter().position(|b| *b == b'\n') {
            let nl = self.scan + off;
            let line = String::from_utf8_lossy(&self.buf[start..nl]).into_owned();
            self.line(line.trim_end_matches('\r'), &mut events);
            start = nl + 1;
            self.scan = start;
        }
        self.buf.drain(..start);
        self.scan = self.buf.len();
        if self.buf.len() + self.data_bytes > self.limit {
            *self = Self::new(self.limit);
            return Err(Overflow { limit: self.limit });
        }
        Ok(events)
    }

    /// Ends the stream; returns a last event not followed by a blank line.
    pub(crate) fn finish(&mut self) -> Vec<String> {
        let mut events = Vec::new();
        if !self.buf.is_empty() {
            let rest = String::from_utf8_lossy(&std::mem::take(&mut self.buf)).into_owned();
            self.line(rest.trim_end_matches('\r'), &mut events);
        }
        self.scan = 0;
        self.flush(&mut events);
        events
    }

    fn flush(&mut self, events: &mut Vec<String>) {
        if !self.data.is_empty() {
            events.push(self.data.join("\n"));
            self.data.clear();
        }
        self.data_bytes = 0;
    }

    fn line(&mut self, line: &str, events: &mut Vec<String>) {
        if line.is_empty() {
            self.flush(events);
        } else if line.starts_with(':') {
            // comment / keep-alive
        } else if let Some(rest) = line.strip_prefix("data:") {
            let rest = rest.strip_prefix(' ').unwrap_or(rest);
            self.data_bytes += rest.len() + 1;
            self.data.push(rest.to_string());
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
        let mut ev = p.push(b": keep-alive\n\ndata: {\"a\"").unwrap();
        assert!(ev.is_empty());
        ev.extend(p.push(b":1}\r\n\r\nevent: x\ndata: [DONE]\n\n").unwrap());
        assert_eq!(ev, vec!["{\"a\":1}".to_string(), "[DONE]".to_string()]);
        assert!(p.finish().is_empty());
    }

    #[test]
    fn multibyte_split_survives() {
        let mut p = SseParser::default();
        let bytes = "data: é\n\n".as_bytes();
        let mut ev = p.push(&bytes[..7]).unwrap();
        ev.extend(p.push(&bytes[7..]).unwrap());
        assert_eq!(ev, vec!["é".to_string()]);
    }

    #[test]
    fn a_line_longer_than_the_limit_overflows() {
        let mut p = SseParser::new(64);
        for _ in 0..3 {
            assert_eq!(p.push(&[b'x'; 20]).unwrap(), Vec::<String>::new());
        }
        assert_eq!(p.push(&[b'x'; 20]), Err(Overflow { limit: 64 }));
        // An event of many short data lines counts too.
        let mut p = SseParser::new(64);
        let mut res = Ok(Vec::new());
        for _ in 0..20 {
            res = p.push(b"data: 0123456789\n");
            if res.is_err() {
                break;
            }
        }
        assert_eq!(res, Err(Overflow { limit: 64 }));
        // Complete events do not accumulate.
        let mut p = SseParser::new(64);
        for _ in 0..1000 {
            assert_eq!(p.push(b"data: 0123456789\n\n").unwrap().len(), 1);
        }
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

    mod props {
        use super::super::*;
        use proptest::prelude::*;

        /// Events of 1–3 data lines each (no CR or LF inside a line).
        fn events() -> impl Strategy<Value = Vec<Vec<String>>> {
            prop::collection::vec(prop::collection::vec("[^\r\n]{0,40}", 1..4), 0..8)
        }

        /// The stream text: comments between events, LF or CRLF line ends.
        fn stream(events: &[Vec<String>], crlf: bool) -> Vec<u8> {
            let nl = if crlf { "\r\n" } else { "\n" };
            let mut s = format!(": keep-alive{nl}{nl}");
            for (i, lines) in events.iter().enumerate() {
                if i % 2 == 1 {
                    s.push_str(&format!("event: chunk{nl}"));
                }
                for l in lines {
                    s.push_str(&format!("data: {l}{nl}"));
                }
                s.push_str(nl);
            }
            s.into_bytes()
        }

        fn run(p: &mut SseParser, bytes: &[u8], cuts: &[usize]) -> Result<Vec<String>, Overflow> {
            let mut cuts: Vec<usize> = cuts.iter().map(|c| c % (bytes.len() + 1)).collect();
            cuts.sort_unstable();
            let mut out = Vec::new();
            let mut prev = 0;
            for c in cuts.into_iter().chain([bytes.len()]) {
                out.extend(p.push(&bytes[prev..c])?);
                prev = c;
            }
            out.extend(p.finish());
            Ok(out)
        }

        proptest! {
            #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

            #[test]
            fn any_chunking_gives_the_same_events(
                evs in events(),
                crlf in any::<bool>(),
                cuts in prop::collection::vec(any::<usize>(), 0..12),
            ) {
                let bytes = stream(&evs, crlf);
                let expected: Vec<String> = evs.iter().map(|l| l.join("\n")).collect();
                let whole = run(&mut SseParser::default(), &bytes, &[]).unwrap();
                prop_assert_eq!(&whole, &expected);
                let chunked = run(&mut SseParser::default(), &bytes, &cuts).unwrap();
                prop_assert_eq!(chunked, expected);
            }

            #[test]
            fn arbitrary_bytes_never_panic_and_stay_under_the_limit(
                chunks in prop::collection::vec(prop::collection::vec(any::<u8>(), 0..300), 0..20),
                limit in 16usize..512,
            ) {
                let mut p = SseParser::new(limit);
                for c in &chunks {
                    let res = p.push(c);
                    prop_assert!(p.buf.len() + p.data_bytes <= limit);
                    if let Err(o) = res {
                        prop_assert_eq!(o.limit, limit);
                        prop_assert!(p.buf.is_empty() && p.data.is_empty());
                    }
                }
                let _ = p.finish();
            }
        }
    }
}
