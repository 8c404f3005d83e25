//! The project's error envelopes, read from the code: the places every error response is
//! rendered through, with the body fields each writes.
//!
//! Three shapes are recognised, each a method whose body we read line by line:
//! - a Spring `@ExceptionHandler` method (in a `@ControllerAdvice` or a controller);
//! - a JAX-RS `ExceptionMapper`'s `toResponse`;
//! - a renderer: a method whose name says error (`sendError`, `writeError`, `error`) and
//!   that writes the body as a map.
//!
//! Fields come from `map.put("name", value)` calls in the body, or from the declared fields
//! of the project class the method returns or builds (`ResponseEntity<ErrorBody>`,
//! `new ErrorBody(..)`). A string or number literal is a value the code fixes. What is not
//! seen this way is left to the extraction model, which may add envelopes of its own.

use super::java::{JavaFile, Method, TypeDecl};
use crate::model::{EnvelopeOrigin, ErrorEnvelope, ErrorField, EvidenceRef};
use regex::Regex;
use serde_json::Value;
use std::collections::BTreeMap;
use std::sync::LazyLock;

/// Methods longer than this are not read as renderers (a renderer is short; a long
/// method that happens to be named `error` is something else).
const MAX_RENDERER_LINES: usize = 80;

/// The envelopes of a project; `texts[i]` is the text of `files[i]`.
pub fn find(files: &[JavaFile], texts: &[&str]) -> Vec<ErrorEnvelope> {
    let classes: BTreeMap<&str, &TypeDecl> = files
        .iter()
        .flat_map(|f| f.types.iter())
        .map(|t| (t.name.as_str(), t))
        .collect();
    let mut out: Vec<ErrorEnvelope> = Vec::new();
    for (file, text) in files.iter().zip(texts) {
        let lines: Vec<&str> = text.lines().collect();
        for ty in &file.types {
            for m in &ty.methods {
                let Some(kind) = renderer_kind(ty, m) else {
                    continue;
                };
                let Some(body) = method_lines(&lines, m) else {
                    continue;
                };
                let fields = fields_of(m, &body, &classes);
                if fields.is_empty() {
                    continue;
                }
                let name = format!("{}.{}", ty.name, m.name);
                if out.iter().any(|e| e.name == name) {
                    continue;
                }
                out.push(ErrorEnvelope {
                    name,
                    kind: kind.to_string(),
                    fields,
                    origin: EnvelopeOrigin::Static,
                    evidence_refs: vec![EvidenceRef {
                        file: file.path.clone(),
                        start_line: m.start_line,
                        end_line: m.end_line,
                    }],
                });
            }
        }
    }
    out
}

/// Which renderer shape `m` has, if any.
fn renderer_kind(ty: &TypeDecl, m: &Method) -> Option<&'static str> {
    if m.is_abstract || m.is_constructor {
        return None;
    }
    if m.annotation("ExceptionHandler").is_some() {
        return Some("exception_handler");
    }
    let mapper = ty
        .interfaces
        .iter()
        .any(|i| i.name.rsplit('.').next() == Some("ExceptionMapper"));
    if mapper && m.name == "toResponse" {
        return Some("exception_mapper");
    }
    let lower = m.name.to_ascii_lowercase();
    (lower.contains("error") && !lower.starts_with("is") && !lower.starts_with("get"))
        .then_some("renderer")
}

fn method_lines<'a>(lines: &[&'a str], m: &Method) -> Option<Vec<&'a str>> {
    let (start, end) = (m.start_line.max(1), m.end_line.min(lines.len()));
    if end < start || end - start > MAX_RENDERER_LINES {
        return None;
    }
    Some(lines[start - 1..end].to_vec())
}

static PUT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"\b\w+\s*\.\s*put\s*\(\s*"((?:[^"\\]|\\.)+)"\s*,\s*([^;]+?)\)\s*;"#)
        .expect("static regex is valid")
});
static NEW_TYPE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\bnew\s+([A-Z]\w*)\s*[(<]").expect("static regex is valid"));

/// The body fields `m` writes: map puts first, else the fields of the project class it
/// returns or constructs.
fn fields_of(m: &Method, body: &[&str], classes: &BTreeMap<&str, &TypeDecl>) -> Vec<ErrorField> {
    let text = body.join("\n");
    let mut out: Vec<ErrorField> = Vec::new();
    for c in PUT.captures_iter(&text) {
        let name = c[1].to_string();
        if out.iter().any(|f| f.name == name) {
            continue;
        }
        let (ty, value) = value_type(c[2].trim(), m);
        out.push(ErrorField {
            name,
            ty,
            value,
            template: None,
        });
    }
    if !out.is_empty() {
        return out;
    }
    let mut candidates: Vec<&str> = Vec::new();
    if let Some(ret) = &m.return_type {
        candidates.push(ret.as_str());
    }
    candidates.extend(
        NEW_TYPE
            .captures_iter(&text)
            .map(|c| c.get(1).map_or("", |g| g.as_str())),
    );
    for name in candidates {
        let Some(ty) = classes.get(name) else {
            continue;
        };
        let fields: Vec<ErrorField> = ty
            .fields
            .iter()
            .filter(|f| !f.is_static)
            .map(|f| ErrorField {
                name: f.name.clone(),
                ty: json_type(&f.ty).to_string(),
                value: None,
                template: None,
            })
            .collect();
        if !fields.is_empty() {
            return fields;
        }
    }
    out
}

/// JSON type and fixed value of a `put` value expression.
fn value_type(expr: &str, m: &Method) -> (String, Option<Value>) {
    if let Some(s) = expr.strip_prefix('"').and_then(|e| e.strip_suffix('"')) {
        if !s.contains('"') {
            return (
                "string".into(),
                Some(Value::String(s.replace("\\\"", "\""))),
            );
        }
        return ("string".into(), None);
    }
    if let Ok(n) = expr.parse::<i64>() {
        return ("integer".into(), Some(Value::from(n)));
    }
    if expr == "true" || expr == "false" {
        return ("boolean".into(), Some(Value::Bool(expr == "true")));
    }
    if let Some(p) = m.params.iter().find(|p| p.name == expr) {
        return (json_type(&p.ty).into(), None);
    }
    if expr.contains('"') || expr.ends_with(".getMessage()") || expr.ends_with("toString()") {
        return ("string".into(), None);
    }
    (String::new(), None)
}

/// The JSON type a Java type serializes to; empty when it is not obvious.
pub fn json_type(java: &str) -> &'static str {
    let base = java.split('<').next().unwrap_or(java).trim();
    match base {
        "String" | "CharSequence" | "char" | "Character" | "UUID" | "LocalDate"
        | "LocalDateTime" | "Instant" | "OffsetDateTime" => "string",
        "int" | "long" | "short" | "byte" | "Integer" | "Long" | "Short" | "Byte"
        | "BigInteger" => "integer",
        "double" | "float" | "Double" | "Float" | "BigDecimal" => "number",
        "boolean" | "Boolean" => "boolean",
        _ if base.ends_with("[]") || base.ends_with("List") || base.ends_with("Set") => "array",
        "Map" | "HashMap" | "LinkedHashMap" | "TreeMap" => "object",
        _ => "",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::java::parse_file;

    fn typed_fields(e: &ErrorEnvelope) -> Vec<(&str, &str)> {
        e.fields
            .iter()
            .map(|f| (f.name.as_str(), f.ty.as_str()))
            .collect()
    }

    fn envelopes(path: &str, text: &str) -> Vec<ErrorEnvelope> {
        find(&[parse_file(path, text)], &[text])
    }

    #[test]
    fn a_jdk_renderer_writes_its_map_keys() {
        let text = r#"class Http {
    static void sendError(Object ex, int status, String message) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("error", message);
        body.put("status", status);
        body.put("kind", "API");
        send(ex, status, body);
    }
    static void send(Object ex, int status, Object body) {}
}"#;
        let e = envelopes("Http.java", text);
        assert_eq!(e.len(), 1, "{e:?}");
        assert_eq!(e[0].name, "Http.sendError");
        assert_eq!(e[0].kind, "renderer");
        let names = typed_fields(&e[0]);
        assert_eq!(
            names,
            [
                ("error", "string"),
                ("status", "integer"),
                ("kind", "string")
            ]
        );
        assert_eq!(e[0].fields[2].value, Some(Value::from("API")));
        assert_eq!(e[0].evidence_refs[0].start_line, 2);
        assert!(e[0].complete());
    }

    #[test]
    fn a_spring_advice_returns_its_body_class() {
        let text = r#"@ControllerAdvice
class Advice {
    @ExceptionHandler(NotFound.class)
    ResponseEntity<ErrorBody> notFound(NotFound e) {
        return ResponseEntity.status(404).body(new ErrorBody("NOT_FOUND", e.getMessage()));
    }
}
class ErrorBody {
    private static final long serialVersionUID = 1L;
    private String code;
    private String message;
    private List<String> details;
}"#;
        let e = envelopes("Advice.java", text);
        assert_eq!(e.len(), 1, "{e:?}");
        assert_eq!(e[0].kind, "exception_handler");
        let names = typed_fields(&e[0]);
        assert_eq!(
            names,
            [
                ("code", "string"),
                ("message", "string"),
                ("details", "array")
            ]
        );
    }

    #[test]
    fn a_jaxrs_mapper_and_unrelated_methods() {
        let text = r#"class Mapper implements ExceptionMapper<ApiError> {
    public Response toResponse(ApiError e) {
        Map<String, Object> m = new HashMap<>();
        m.put("reason", e.getMessage());
        return Response.status(e.code).entity(m).build();
    }
}
class Pets {
    boolean isError(int s) { cache.put("x", 1); return s > 399; }
    void list() { cache.put("y", 2); }
}"#;
        let e = envelopes("Mapper.java", text);
        assert_eq!(e.len(), 1, "{e:?}");
        assert_eq!(e[0].name, "Mapper.toResponse");
        assert_eq!(e[0].fields[0].name, "reason");
        assert_eq!(e[0].fields[0].ty, "string");
    }
}
