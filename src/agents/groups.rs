//! Operation groups from SemanticExtractAgent, and their validation.
//!
//! The model proposes groups; this module keeps only what the contract allows: known
//! op_ids, one of the five association patterns (paper Table 3), captures before binds.
//! Every group or step it refuses is reported with the reason.

use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

/// The five association patterns of paper Table 3.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Pattern {
    ResourceLifecycle,
    IdentifierFlow,
    FieldDataPassing,
    NestedResource,
    StatePropagation,
}

/// One step of a group's sequence: what it captures and what it binds from earlier steps.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GroupStep {
    pub op_id: String,
    /// capture name → field path in this step's response.
    #[serde(default)]
    pub captures: BTreeMap<String, String>,
    /// `location.param` (e.g. `path.id`, `body.ownerId`) → what it gets: a capture name,
    /// or a literal value (`{"value": "CANCELLED"}`) the step must send.
    #[serde(default)]
    pub binds: BTreeMap<String, Bind>,
}

/// What a step's input parameter is bound to.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Bind {
    /// The name of a value an earlier step captured.
    Capture(String),
    /// A value written as it is (`{"value": "CANCELLED"}`), next to the captures.
    Literal { value: serde_json::Value },
}

/// An operation group: ordered steps sharing server state.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Group {
    pub group_id: String,
    pub pattern: Pattern,
    #[serde(default)]
    pub rationale: String,
    pub sequence: Vec<GroupStep>,
}

/// What validation kept and what it refused.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct GroupsOutcome {
    pub groups: Vec<Group>,
    /// group id (or index) → reason it was refused.
    pub rejected: Vec<(String, String)>,
}

/// Validates raw grouping output (`{"groups": [...]}` or a bare list) against the op_ids
/// that have a verified context.
pub fn validate(raw: &serde_json::Value, known_ops: &BTreeSet<String>) -> GroupsOutcome {
    let list = raw
        .get("groups")
        .unwrap_or(raw)
        .as_array()
        .cloned()
        .unwrap_or_default();
    let mut out = GroupsOutcome::default();
    let mut seen_ids = BTreeSet::new();
    for (i, item) in list.into_iter().enumerate() {
        let label = item
            .get("group_id")
            .and_then(|v| v.as_str())
            .map_or_else(|| format!("#{i}"), str::to_string);
        let mut group: Group = match serde_json::from_value(item) {
            Ok(g) => g,
            Err(e) => {
                out.rejected.push((label, format!("malformed group: {e}")));
                continue;
            }
        };
        if let Err(reason) = check(&group, known_ops) {
            out.rejected.push((label, reason));
            continue;
        }
        group.group_id = unique_id(&group.group_id, &mut seen_ids);
        out.groups.push(group);
    }
    out
}

fn check(group: &Group, known: &BTreeSet<String>) -> Result<(), String> {
    if group.sequence.len() < 2 {
        return Err("a sequence needs at least two steps".into());
    }
    let mut captured = BTreeSet::new();
    for (i, step) in group.sequence.iter().enumerate() {
        if !known.contains(&step.op_id) {
            return Err(format!(
                "step {i} names {}, which has no verified source context",
                step.op_id
            ));
        }
        for (target, bind) in &step.binds {
            let Bind::Capture(capture) = bind else {
                continue;
            };
            if !captured.contains(capture) {
                return Err(format!(
                    "step {i} binds {target} to '{capture}', which no earlier step captures"
                ));
            }
        }
        captured.extend(step.captures.keys().cloned());
    }
    Ok(())
}

fn unique_id(id: &str, seen: &mut BTreeSet<String>) -> String {
    let base = if id.trim().is_empty() { "group" } else { id };
    let mut candidate = base.to_string();
    let mut n = 2;
    while !seen.insert(candidate.clone()) {
        candidate = format!("{base}_{n}");
        n += 1;
    }
    candidate
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn known() -> BTreeSet<String> {
        ["POST /pets", "GET /pets/{id}", "DELETE /pets/{id}"]
            .map(String::from)
            .into()
    }

    #[test]
    fn valid_group_is_kept() {
        let raw = json!({"groups": [{"group_id": "pets", "pattern": "resource_lifecycle",
            "sequence": [{"op_id": "POST /pets", "captures": {"pid": "id"}},
                         {"op_id": "GET /pets/{id}", "binds": {"path.id": "pid"}}]}]});
        let out = validate(&raw, &known());
        assert_eq!(out.groups.len(), 1, "{:?}", out.rejected);
        assert_eq!(out.groups[0].pattern, Pattern::ResourceLifecycle);
    }

    #[test]
    fn unknown_op_bind_before_capture_and_bad_pattern_are_refused_with_reasons() {
        let raw = json!([
            {"group_id": "a", "pattern": "resource_lifecycle",
             "sequence": [{"op_id": "POST /pets"}, {"op_id": "GET /owners"}]},
            {"group_id": "b", "pattern": "identifier_flow",
             "sequence": [{"op_id": "GET /pets/{id}", "binds": {"path.id": "pid"}},
                          {"op_id": "POST /pets", "captures": {"pid": "id"}}]},
            {"group_id": "c", "pattern": "vibes",
             "sequence": [{"op_id": "POST /pets"}, {"op_id": "GET /pets/{id}"}]},
            {"group_id": "d", "pattern": "state_propagation", "sequence": [{"op_id": "POST /pets"}]}
        ]);
        let out = validate(&raw, &known());
        assert!(out.groups.is_empty());
        let reasons: Vec<&str> = out.rejected.iter().map(|(_, r)| r.as_str()).collect();
        assert!(reasons[0].contains("GET /owners"));
        assert!(reasons[1].contains("no earlier step captures"));
        assert!(reasons[2].contains("malformed"));
        assert!(reasons[3].contains("two steps"));
    }

    #[test]
    fn duplicate_ids_are_made_unique() {
        let g = json!({"group_id": "g", "pattern": "state_propagation",
            "sequence": [{"op_id": "POST /pets"}, {"op_id": "DELETE /pets/{id}"}]});
        let out = validate(&json!([g.clone(), g]), &known());
        let ids: Vec<&str> = out.groups.iter().map(|g| g.group_id.as_str()).collect();
        assert_eq!(ids, vec!["g", "g_2"]);
    }

    #[test]
    fn a_bind_may_be_a_literal_value_beside_captures() {
        let raw = json!({"groups": [{"group_id": "g", "pattern": "state_propagation",
            "sequence": [{"op_id": "POST /pets", "captures": {"pid": "id"}},
                         {"op_id": "GET /pets/{id}", "binds": {"path.id": "pid",
                             "query.status": {"value": "CANCELLED"}}}]}]});
        let out = validate(&raw, &known());
        assert!(out.rejected.is_empty(), "{:?}", out.rejected);
        let binds = &out.groups[0].sequence[1].binds;
        assert_eq!(binds["path.id"], Bind::Capture("pid".into()));
        assert_eq!(
            binds["query.status"],
            Bind::Literal {
                value: json!("CANCELLED")
            }
        );
        // Written back as given, so the multi-op prompt shows the same form.
        let back = serde_json::to_value(binds).unwrap();
        assert_eq!(back["query.status"], json!({"value": "CANCELLED"}));
        // A literal is no capture: an unknown capture name still refuses the group.
        let bad = json!({"groups": [{"group_id": "g", "pattern": "state_propagation",
            "sequence": [{"op_id": "POST /pets"},
                         {"op_id": "GET /pets/{id}", "binds": {"path.id": "nope"}}]}]});
        assert_eq!(validate(&bad, &known()).rejected.len(), 1);
    }
}
