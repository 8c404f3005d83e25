//! Postman export of metamorphic tests: one folder per test (`metamorphic mr#<test_id>`)
//! with its seed and follow-up requests in order (named `mr#<test_id>#<n>`), captures
//! and binds exactly as exported sequences have them.
//!
//! Every request's test script runs the shared assertion library (defined once, by the
//! collection's test script) in collecting mode and then `mastorMrStep`
//! (`assets/js/mastor-relations.js`, defined there too), which records the exchange and adds
//! one test per step (`execution failed: ...` on 5xx, an undocumented status or a failed
//! step assertion or capture); the last request's script also adds `<o_id> :: relations`,
//! which fails with `relation violated: ...` or `execution failed: ...` as `mastor check`
//! would report the test.

use super::ExportError;
use super::mr::{check, documented_json, relations_json, steps};
use super::postman::{TestSpec, js_str, request_item, script};
use crate::model::MetamorphicTest;
use crate::runner::relations::Documented;
use serde_json::{Value, json};

/// The relations library, verbatim.
pub(super) const LIBRARY: &str = include_str!("assets/js/mastor-relations.js");

/// The folder of one metamorphic test.
pub(super) fn folder(t: &MetamorphicTest, documented: &Documented) -> Result<Value, ExportError> {
    check(t)?;
    let o_id = t.o_id();
    let relations = relations_json(t)?;
    let documented = documented_json(t, documented);
    let labelled = steps(t);
    let capture_names: Vec<&String> = labelled
        .iter()
        .flat_map(|s| s.step.captures.keys())
        .collect();
    let mut items = Vec::with_capacity(labelled.len());
    for (n, s) in labelled.iter().enumerate() {
        let step_id = format!("{o_id}#{}", n + 1);
        let index = match s.side {
            "seed" => n,
            _ => n - t.seed.len(),
        };
        let last = n + 1 == labelled.len();
        let mr = json!({
            "o_id": o_id,
            "label": s.label,
            "side": s.side,
            "step": index,
            "op_id": s.step.op_id,
            "first": n == 0,
            "documented": documented.get(&s.step.op_id),
            "relations": if last { relations.clone() } else { Value::Null },
        });
        let spec = TestSpec {
            o_id: &step_id,
            assertions: &s.step.assertions,
            captures: Some(&s.step.captures),
            bind: true,
            mr: Some(mr),
        };
        let mut item = request_item(&step_id, &s.step.op_id, &s.step.input, &spec, true)?;
        if n == 0 && !capture_names.is_empty() {
            // A test starts clean: no capture leaks in from an earlier run or test.
            let clear: Vec<String> = capture_names
                .iter()
                .flat_map(|c| {
                    [
                        format!("pm.collectionVariables.unset({});", js_str(c)),
                        format!(
                            "pm.collectionVariables.unset({});",
                            js_str(&format!("{c}__json"))
                        ),
                    ]
                })
                .collect();
            if let Some(events) = item.get_mut("event").and_then(Value::as_array_mut) {
                events.insert(0, script("prerequest", clear));
            }
        }
        items.push(item);
    }
    Ok(json!({
        "name": format!("metamorphic {o_id}"),
        "description": format!(
            "o_id: {o_id}\nScenario: {}\nGiven {}\nWhen {}\nThen {}",
            t.scenario, t.given, t.when, t.then
        ),
        "item": items,
    }))
}
