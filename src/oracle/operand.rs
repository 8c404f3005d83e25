//! Operands of metamorphic relations: parsing the documented syntax (see
//! `runner::relations`, "Operand syntax") and reading an operand's value from the recorded
//! exchanges of the seed and follow-up steps. No evaluation of relations here.

use crate::model::Exchange;
use crate::oracle::path::FieldPath;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Which side of a metamorphic test an operand reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Side {
    Seed,
    FollowUp,
}

/// What an operand reads from a step's exchange.
#[derive(Debug, Clone, PartialEq)]
pub enum Source {
    Status,
    Body(FieldPath),
    Header(String),
    RequestBody(FieldPath),
}

/// A parsed operand such as `follow_up[1].body.items`.
#[derive(Debug, Clone, PartialEq)]
pub struct Operand {
    pub side: Side,
    pub step: usize,
    pub source: Source,
}

impl Operand {
    /// Parses the documented operand syntax; Err says what is wrong with `text`.
    pub fn parse(text: &str) -> Result<Operand, String> {
        let t = text.trim();
        let bad = |why: &str| format!("operand `{text}`: {why}");
        let (side, rest) = if let Some(r) = t.strip_prefix("follow_up") {
            (Side::FollowUp, r)
        } else if let Some(r) = t.strip_prefix("seed") {
            (Side::Seed, r)
        } else {
            return Err(bad("must start with `seed` or `follow_up`"));
        };
        let (step, rest) = if let Some(r) = rest.strip_prefix('[') {
            let close = r.find(']').ok_or_else(|| bad("unclosed `[`"))?;
            let n = r[..close]
                .trim()
                .parse::<usize>()
                .map_err(|_| bad("the step index must be a number"))?;
            (n, &r[close + 1..])
        } else if let Some(r) = rest.strip_prefix('.') {
            let end = r.find(['.', '[']).unwrap_or(r.len());
            let n = r[..end]
                .parse::<usize>()
                .map_err(|_| bad("expected a step index after the side, e.g. `seed[0]`"))?;
            (n, &r[end..])
        } else {
            return Err(bad("expected a step index after the side, e.g. `seed[0]`"));
        };
        let rest = rest.strip_prefix('.').unwrap_or(rest);
        let path = |p: &str| FieldPath::parse(p).map_err(|e| bad(&e.to_string()));
        let source = if rest.is_empty() || rest == "body" {
            Source::Body(path("")?)
        } else if rest == "status" {
            Source::Status
        } else if let Some(h) = rest
            .strip_prefix("header.")
            .or_else(|| rest.strip_prefix("headers."))
        {
            if h.trim().is_empty() {
                return Err(bad("names no header"));
            }
            Source::Header(h.trim().to_ascii_lowercase())
        } else if let Some(r) = rest.strip_prefix("request.body") {
            Source::RequestBody(path(r.strip_prefix('.').unwrap_or(r))?)
        } else if let Some(r) = rest.strip_prefix("body") {
            if !(r.starts_with('.') || r.starts_with('[')) {
                Source::Body(path(rest)?)
            } else {
                Source::Body(path(r.strip_prefix('.').unwrap_or(r))?)
            }
        } else {
            Source::Body(path(rest)?)
        };
        Ok(Operand { side, step, source })
    }

    /// Reads the operand from the seed and follow-up exchanges; Err says why it has no value.
    pub fn read(
        &self,
        seed: &[Option<&Exchange>],
        follow: &[Option<&Exchange>],
    ) -> Result<Value, String> {
        let (list, name) = match self.side {
            Side::Seed => (seed, "seed"),
            Side::FollowUp => (follow, "follow_up"),
        };
        let ex = list
            .get(self.step)
            .ok_or_else(|| format!("{name}[{}] does not exist", self.step))?
            .ok_or_else(|| format!("{name}[{}] was not sent", self.step))?;
        match &self.source {
            Source::Status => ex
                .status
                .map(Value::from)
                .ok_or_else(|| format!("{name}[{}] has no status", self.step)),
            Source::Header(h) => ex
                .response_headers
                .iter()
                .find(|(k, _)| k.eq_ignore_ascii_case(h))
                .map(|(_, v)| Value::String(v.clone()))
                .ok_or_else(|| format!("{name}[{}] has no header `{h}`", self.step)),
            Source::Body(p) => {
                let body = if ex.response_body.trim().is_empty() {
                    Value::Null
                } else {
                    serde_json::from_str(&ex.response_body)
                        .unwrap_or_else(|_| Value::String(ex.response_body.clone()))
                };
                resolve(p, &body)
                    .ok_or_else(|| format!("{name}[{}] body has no `{}`", self.step, p.as_str()))
            }
            Source::RequestBody(p) => {
                let body = ex.request_body.clone().unwrap_or(Value::Null);
                resolve(p, &body).ok_or_else(|| {
                    format!("{name}[{}] request body has no `{}`", self.step, p.as_str())
                })
            }
        }
    }
}

fn resolve(p: &FieldPath, body: &Value) -> Option<Value> {
    if p.is_root() {
        return (!body.is_null()).then(|| body.clone());
    }
    let matches = p.resolve(body).ok()?;
    if p.has_wildcard() {
        Some(Value::Array(
            matches.iter().filter_map(|m| m.value.cloned()).collect(),
        ))
    } else {
        matches.first().and_then(|m| m.value.cloned())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn operands_parse_in_every_documented_form() {
        let o = Operand::parse("seed[0].body.items[*].id").unwrap();
        assert_eq!((o.side, o.step), (Side::Seed, 0));
        assert!(matches!(o.source, Source::Body(ref p) if p.as_str() == "items[*].id"));
        assert_eq!(
            Operand::parse("follow_up.1.status").unwrap().source,
            Source::Status
        );
        assert_eq!(
            Operand::parse("follow_up[0].header.X-Rate").unwrap().source,
            Source::Header("x-rate".into())
        );
        assert!(
            matches!(Operand::parse("seed[2]").unwrap().source, Source::Body(ref p) if p.is_root())
        );
        assert!(
            matches!(Operand::parse("seed[0].name").unwrap().source, Source::Body(ref p) if p.as_str() == "name")
        );
        assert!(
            matches!(Operand::parse("seed[0].bodyCount").unwrap().source, Source::Body(ref p) if p.as_str() == "bodyCount")
        );
        assert!(Operand::parse("other[0].x").is_err());
        assert!(Operand::parse("seed[x].x").is_err());
        assert!(Operand::parse("seed.name").is_err());
    }
}
