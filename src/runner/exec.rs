//! Sending one oracle request: URL building, the HTTP call, and the `Exchange` record with
//! a `curl` line that reproduces the request.
//!
//! Path parameters are substituted into the operation's path template and URL-encoded as
//! one path segment each, except those in `path_raw`, which go in verbatim (an oracle that
//! means `%2B` says so there, and it is not encoded again); query values that are arrays
//! become repeated keys; the body is sent as JSON (`Content-Type: application/json`)
//! exactly as the oracle gives it, so a string body is sent as a JSON string, while a
//! `raw_body` is sent byte for byte with its own content type (malformed JSON, form data). Header and parameter values that are not strings
//! are sent as their JSON text. The base URL may carry a path prefix (`http://h:p/api`).
//! Redirects are not followed: a `302` is an answer an oracle can assert on. A response
//! body is read as a stream with a running count and abandoned past `max_body` bytes.
//!
//! This module does not evaluate assertions, enforce budgets or decide what to run next.

use crate::model::{Exchange, OracleInput};
use crate::oracle::assert::string_form;
use futures_util::StreamExt;
use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};
use reqwest::{Client, Method, Url};
use serde_json::Value;
use std::collections::BTreeMap;
use std::time::{Duration, Instant};

/// Characters kept verbatim in a path segment (RFC 3986 unreserved).
const SEGMENT: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

/// Splits `GET /pets/{id}` into an upper-case method and the path template.
pub fn split_op_id(op_id: &str) -> Result<(Method, &str), String> {
    let (method, path) = crate::oracle::op::split(op_id)?;
    let method = Method::from_bytes(method.as_bytes())
        .map_err(|_| format!("op_id `{op_id}`: `{method}` is not an HTTP method"))?;
    Ok((method, path))
}

/// Text of a parameter value: strings as is, the rest as JSON.
fn param_text(v: &Value) -> String {
    string_form(v)
}

/// Checks what the JSON form of an input cannot: `body` and `raw_body` together, a name
/// in both `path` and `path_raw`, and a verbatim segment that would not stay one path
/// segment. Suite loading reports it against the oracle; the runner checks again before
/// sending, for plans built by hand.
pub fn check_input(input: &OracleInput) -> Result<(), String> {
    if input.body.is_some() && input.raw_body.is_some() {
        return Err("input has both `body` and `raw_body`; give one of them".into());
    }
    if let Some(name) = input.path_raw.keys().find(|k| input.path.contains_key(*k)) {
        return Err(format!(
            "path parameter `{name}` is in both input.path and input.path_raw; give one of them"
        ));
    }
    if let Some(m) = &input.method
        && (m.is_empty() || !m.bytes().all(|b| b.is_ascii_uppercase()))
    {
        return Err(format!(
            "input.method `{}` is not an upper-case HTTP method name",
            crate::text::escape_controls(m)
        ));
    }
    if let Some(q) = &input.query_raw
        && let Some(c) = q
            .chars()
            .find(|c| *c == '#' || c.is_whitespace() || c.is_control())
    {
        return Err(format!(
            "input.query_raw contains {c:?}, which cannot travel in a query string; \
             percent-encode it"
        ));
    }
    for (name, value) in &input.path_raw {
        if let Some(c) = value
            .chars()
            .find(|c| matches!(c, '/' | '?' | '#') || c.is_whitespace() || c.is_control())
        {
            return Err(format!(
                "input.path_raw `{name}` contains {c:?}, which would not stay one path \
                 segment; percent-encode it"
            ));
        }
    }
    Ok(())
}

/// Builds the full request URL from the base URL, the path template and the input.
pub fn build_url(base: &Url, template: &str, input: &OracleInput) -> Result<Url, String> {
    let mut path = String::new();
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        let close = rest[open..]
            .find('}')
            .map(|c| c + open)
            .ok_or_else(|| format!("unclosed `{{` in path template `{template}`"))?;
        let name = &rest[open + 1..close];
        path.push_str(&rest[..open]);
        match (input.path.get(name), input.path_raw.get(name)) {
            (Some(value), _) => path.extend(utf8_percent_encode(&param_text(value), SEGMENT)),
            (None, Some(raw)) => path.push_str(raw),
            (None, None) => {
                return Err(format!(
                    "path parameter `{name}` has no value in input.path or input.path_raw"
                ));
            }
        }
        rest = &rest[close + 1..];
    }
    path.push_str(rest);
    let prefix = base.as_str().trim_end_matches('/');
    let base_no_query = prefix.split(['?', '#']).next().unwrap_or(prefix);
    let mut url = Url::parse(&format!("{base_no_query}{path}"))
        .map_err(|e| format!("cannot build a URL from `{base_no_query}{path}`: {e}"))?;
    if !input.query.is_empty() {
        let mut pairs = url.query_pairs_mut();
        for (k, v) in &input.query {
            match v {
                Value::Array(items) => {
                    for item in items {
                        pairs.append_pair(k, &param_text(item));
                    }
                }
                Value::Null => {}
                other => {
                    pairs.append_pair(k, &param_text(other));
                }
            }
        }
    }
    if let Some(raw) = input.query_raw.as_deref().filter(|r| !r.is_empty()) {
        let query = match url.query().filter(|q| !q.is_empty()) {
            Some(pairs) => format!("{pairs}&{raw}"),
            None => raw.to_string(),
        };
        url.set_query(Some(&query));
    }
    Ok(url)
}

/// The request headers (with the body's `Content-Type` unless the input sets one) and
/// the body text: a JSON `body` serialized, a `raw_body` exactly as written.
pub fn headers_and_body(input: &OracleInput) -> (BTreeMap<String, String>, Option<String>) {
    let mut headers: BTreeMap<String, String> = input
        .headers
        .iter()
        .map(|(k, v)| (k.clone(), param_text(v)))
        .collect();
    let (body_text, content_type) = match (&input.body, &input.raw_body) {
        (Some(json), _) => (Some(json.to_string()), "application/json"),
        (None, Some(raw)) => (Some(raw.text.clone()), raw.content_type.as_str()),
        (None, None) => (None, ""),
    };
    if body_text.is_some()
        && !content_type.is_empty()
        && !headers
            .keys()
            .any(|k| k.eq_ignore_ascii_case("content-type"))
    {
        headers.insert("Content-Type".into(), content_type.to_string());
    }
    (headers, body_text)
}

/// The response as received, or why there is none.
#[derive(Debug, Clone)]
pub struct Received {
    pub status: u16,
    pub headers: BTreeMap<String, String>,
    pub text: String,
}

/// Why a response could not be used.
enum Failure {
    Http(reqwest::Error),
    /// The body passed `max_body` bytes; nothing more was read.
    TooLarge(usize),
}

impl From<reqwest::Error> for Failure {
    fn from(e: reqwest::Error) -> Self {
        Failure::Http(e)
    }
}

/// Reads a body chunk by chunk with a running count, stopping once it passes `max`
/// bytes: an oversized answer never sits in memory whole.
async fn read_body(resp: reqwest::Response, max: usize) -> Result<Vec<u8>, Failure> {
    if resp.content_length().is_some_and(|n| n > max as u64) {
        return Err(Failure::TooLarge(max));
    }
    let mut body = Vec::new();
    let mut stream = resp.bytes_stream();
    while let Some(chunk) = stream.next().await {
        let chunk = chunk?;
        if body.len() + chunk.len() > max {
            return Err(Failure::TooLarge(max));
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}

/// Sends one request and returns the exchange record plus the response (Err: why no
/// usable answer, e.g. timeout, connection refused, or a body over `max_body` bytes).
pub async fn send(
    client: &Client,
    base: &Url,
    op_id: &str,
    input: &OracleInput,
    timeout: Duration,
    max_body: usize,
) -> (Exchange, Result<Received, String>) {
    let mut exchange = Exchange::default();
    let (method, template) = match split_op_id(op_id) {
        Ok(x) => x,
        Err(e) => return (exchange, Err(e)),
    };
    if let Err(e) = check_input(input) {
        return (exchange, Err(e));
    }
    let method = match input
        .method
        .as_deref()
        .map(|m| Method::from_bytes(m.as_bytes()))
    {
        Some(Ok(m)) => m,
        Some(Err(_)) => return (exchange, Err("input.method is not an HTTP method".into())),
        None => method,
    };
    exchange.method = method.to_string();
    let url = match build_url(base, template, input) {
        Ok(u) => u,
        Err(e) => return (exchange, Err(e)),
    };
    exchange.url = url.to_string();
    let (headers, body_text) = headers_and_body(input);
    exchange.request_headers = headers.clone();
    exchange.request_body = input.body.clone();
    exchange.request_raw_body = input.raw_body.as_ref().map(|r| r.text.clone());
    exchange.curl = curl_line(
        &exchange.method,
        &exchange.url,
        &headers,
        body_text.as_deref(),
    );

    let mut req = client.request(method, url).timeout(timeout);
    for (k, v) in &headers {
        req = req.header(k.as_str(), v.as_str());
    }
    if let Some(body) = body_text {
        req = req.body(body);
    }
    let started = Instant::now();
    let result = async {
        let resp = req.send().await?;
        let status = resp.status().as_u16();
        let mut headers = BTreeMap::new();
        for (name, value) in resp.headers() {
            let v = String::from_utf8_lossy(value.as_bytes()).into_owned();
            headers
                .entry(name.as_str().to_string())
                .and_modify(|old: &mut String| {
                    old.push_str(", ");
                    old.push_str(&v);
                })
                .or_insert(v);
        }
        let text = String::from_utf8_lossy(&read_body(resp, max_body).await?).into_owned();
        Ok::<_, Failure>(Received {
            status,
            headers,
            text,
        })
    }
    .await;
    exchange.elapsed_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
    match result {
        Ok(r) => {
            exchange.status = Some(r.status);
            exchange.response_headers = r.headers.clone();
            exchange.response_body = r.text.clone();
            (exchange, Ok(r))
        }
        Err(Failure::TooLarge(max)) => (
            exchange,
            Err(format!(
                "response body larger than {max} bytes (raise --max-body to read it)"
            )),
        ),
        Err(Failure::Http(e)) => {
            let why = if e.is_timeout() {
                format!("timed out after {} s", timeout.as_secs_f64())
            } else if e.is_connect() {
                format!("cannot connect to {}: {}", exchange.url, root_cause(&e))
            } else {
                format!("request failed: {}", root_cause(&e))
            };
            (exchange, Err(why))
        }
    }
}

fn root_cause(e: &(dyn std::error::Error + 'static)) -> String {
    let mut cur = e;
    while let Some(next) = cur.source() {
        cur = next;
    }
    cur.to_string()
}

/// Quotes a word for a POSIX shell: single quotes, with `'` written as `'\''`.
pub fn sh_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// A `curl` command line that sends the same request (method, URL, headers, body bytes).
pub fn curl_line(
    method: &str,
    url: &str,
    headers: &BTreeMap<String, String>,
    body: Option<&str>,
) -> String {
    let mut parts = vec!["curl".to_string(), "-sS".to_string(), "-i".to_string()];
    match method {
        "GET" => {}
        "HEAD" => parts.push("--head".to_string()),
        other => {
            parts.push("-X".to_string());
            parts.push(other.to_string());
        }
    }
    parts.push(sh_quote(url));
    for (k, v) in headers {
        parts.push("-H".to_string());
        parts.push(sh_quote(&format!("{k}: {v}")));
    }
    if let Some(b) = body {
        parts.push("--data-raw".to_string());
        parts.push(sh_quote(b));
    }
    parts.join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn input(v: Value) -> OracleInput {
        serde_json::from_value(v).unwrap()
    }

    #[test]
    fn builds_urls_with_prefix_encoded_path_params_and_query() {
        let base = Url::parse("http://127.0.0.1:8080/api/").unwrap();
        let i = input(
            json!({"path": {"id": "a b/c", "n": 5}, "query": {"tag": ["x", "y&z"], "limit": 2}}),
        );
        let url = build_url(&base, "/pets/{id}/n/{n}", &i).unwrap();
        assert_eq!(
            url.as_str(),
            "http://127.0.0.1:8080/api/pets/a%20b%2Fc/n/5?limit=2&tag=x&tag=y%26z"
        );
        let e = build_url(&base, "/pets/{missing}", &i).unwrap_err();
        assert!(e.contains("missing"), "{e}");
    }

    #[test]
    fn verbatim_path_segments_are_not_encoded_again() {
        let base = Url::parse("http://127.0.0.1:8080").unwrap();
        let i = input(json!({"path": {"id": "a+b"}, "path_raw": {"name": "a%2Bb"}}));
        let url = build_url(&base, "/p/{id}/n/{name}", &i).unwrap();
        assert_eq!(url.as_str(), "http://127.0.0.1:8080/p/a%2Bb/n/a%2Bb");
        let e = build_url(&base, "/p/{other}", &i).unwrap_err();
        assert!(e.contains("input.path or input.path_raw"), "{e}");
    }

    #[test]
    fn raw_body_goes_verbatim_with_its_content_type_and_curl_line() {
        let i = input(json!({"raw_body": {"content_type": "application/json",
            "text": "{\"name\": 'Rex',"}}));
        let (headers, body) = headers_and_body(&i);
        assert_eq!(body.as_deref(), Some("{\"name\": 'Rex',"));
        assert_eq!(headers["Content-Type"], "application/json");
        let line = curl_line("POST", "http://h/pets", &headers, body.as_deref());
        assert_eq!(
            line,
            r#"curl -sS -i -X POST 'http://h/pets' -H 'Content-Type: application/json' --data-raw '{"name": '\''Rex'\'','"#
        );
        // An explicit header wins; a JSON body still gets application/json.
        let i = input(
            json!({"raw_body": {"content_type": "text/plain", "text": "a=1"},
            "headers": {"content-type": "application/x-www-form-urlencoded"}}),
        );
        let (headers, body) = headers_and_body(&i);
        assert_eq!(headers.len(), 1, "{headers:?}");
        assert_eq!(body.as_deref(), Some("a=1"));
        let (headers, body) = headers_and_body(&input(json!({"body": "x"})));
        assert_eq!(
            (headers["Content-Type"].as_str(), body.as_deref()),
            ("application/json", Some("\"x\""))
        );
    }

    #[test]
    fn check_input_names_each_conflict() {
        let both =
            input(json!({"body": {}, "raw_body": {"content_type": "text/plain", "text": ""}}));
        assert!(
            check_input(&both)
                .unwrap_err()
                .contains("both `body` and `raw_body`")
        );
        let twice = input(json!({"path": {"id": 1}, "path_raw": {"id": "1"}}));
        assert!(check_input(&twice).unwrap_err().contains("`id` is in both"));
        for bad in ["a/b", "a?b", "a#b", "a b"] {
            let i = input(json!({"path_raw": {"id": bad}}));
            assert!(
                check_input(&i).unwrap_err().contains("one path segment"),
                "{bad}"
            );
        }
        assert!(check_input(&input(json!({"path_raw": {"id": "%2F%20"}}))).is_ok());
    }

    #[test]
    fn splits_op_ids() {
        let (m, p) = split_op_id("post /pets").unwrap();
        assert_eq!((m, p), (Method::POST, "/pets"));
        assert!(split_op_id("GET pets").is_err());
        assert!(split_op_id("/pets").is_err());
    }

    #[test]
    fn curl_line_quotes_single_quotes_and_keeps_body_bytes() {
        let headers: BTreeMap<String, String> =
            [("Content-Type".to_string(), "application/json".to_string())]
                .into_iter()
                .collect();
        let line = curl_line(
            "POST",
            "http://h/p?a=1&b=2",
            &headers,
            Some(r#"{"name":"O'Neil"}"#),
        );
        assert_eq!(
            line,
            r#"curl -sS -i -X POST 'http://h/p?a=1&b=2' -H 'Content-Type: application/json' --data-raw '{"name":"O'\''Neil"}'"#
        );
    }
}
