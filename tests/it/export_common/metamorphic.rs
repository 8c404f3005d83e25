//! Metamorphic tests on the petstore-jdk fixture, shared by the export tests.

use mastor::model::MetamorphicTest;
use serde_json::json;

/// Metamorphic tests on the petstore fixture: `status_change_visible` (a relation the
/// stale-status bug violates), `limit_is_a_prefix` (every relation op but equality on
/// whole bodies; holds on the fixture), `missing_pet` (its seed reads a pet that does not
/// exist: an execution failure, never a violation).
pub fn petstore_metamorphic() -> Vec<MetamorphicTest> {
    let tests = json!([
        {
            "test_id": "status_change_visible",
            "scenario": "Updating a pet's status is observable when reading that pet",
            "given": "a pet created with status available",
            "when": "its status is changed to sold and the pet is read again",
            "then": "the read shows status sold, as the status response did",
            "seed": [{"op_id": "POST /pets",
                      "input": {"body": {"name": "Mr Meta", "status": "available"}},
                      "captures": {"id": "id"},
                      "assertions": [{"type": "status", "expected": 201}]}],
            "follow_up": [
                {"op_id": "POST /pets/{petId}/status",
                 "input": {"path": {"petId": "$captures.id"}, "body": {"status": "sold"}},
                 "assertions": [{"type": "status", "expected": 200}]},
                {"op_id": "GET /pets/{petId}", "input": {"path": {"petId": "$captures.id"}}}
            ],
            "relations": [
                {"left": "follow_up[1].body.status", "op": "equals",
                 "right": "follow_up[0].request.body.status"},
                {"left": "follow_up[1].body.status", "op": "not_equals", "right": "seed[0].body.status"},
                {"left": "follow_up[1].body.id", "op": "equals", "right": "seed[0].body.id"}
            ]
        },
        {
            "test_id": "limit_is_a_prefix",
            "scenario": "Limited listings are prefixes of the full listing",
            "given": "the first pet, and the list of all pets",
            "when": "the list is read again with limit 2",
            "then": "it has one pet more than with limit 1, all of them in the full list",
            "seed": [{"op_id": "GET /pets", "input": {"query": {"limit": 1}}},
                     {"op_id": "GET /pets"}],
            "follow_up": [{"op_id": "GET /pets", "input": {"query": {"limit": 2}}}],
            "relations": [
                {"left": "seed[0].body[*].id", "op": "subset", "right": "follow_up[0].body[*].id"},
                {"left": "follow_up[0].body[*].id", "op": "subset", "right": "seed[1].body[*].id"},
                {"left": "seed[0].body", "op": "count_diff", "right": "follow_up[0].body", "value": 1},
                {"left": "seed[1].body[*].id", "op": "contains", "right": "follow_up[0].body[0].id"},
                {"left": "follow_up[0].body", "op": "less_or_equal", "right": "seed[1].body"},
                {"left": "follow_up[0].body[0]", "op": "same_shape", "right": "seed[1].body[0]"},
                {"left": "seed[0].status", "op": "equals", "value": 200},
                {"left": "follow_up[0].header.Content-Type", "op": "contains", "value": "json"},
                {"left": "seed[1].body[*].name", "op": "not_contains", "value": "no such pet"},
                {"left": "seed[1].body", "op": "greater", "value": 0},
                {"left": "seed[0].body", "op": "less", "value": "2"},
                {"left": "seed[1].body", "op": "greater_or_equal", "right": "follow_up[0].body"},
                {"left": "follow_up[0].body", "op": "not_equals", "right": "seed[0].body"}
            ]
        },
        {
            "test_id": "missing_pet",
            "scenario": "Reading a pet that does not exist cannot seed a relation",
            "seed": [{"op_id": "GET /pets/{petId}", "input": {"path": {"petId": 999999}},
                      "captures": {"id": "id"}}],
            "follow_up": [{"op_id": "GET /pets/{petId}", "input": {"path": {"petId": "$captures.id"}}}],
            "relations": [{"left": "follow_up[0].body.id", "op": "equals", "right": "seed[0].body.id"}]
        }
    ]);
    serde_json::from_value(tests).expect("tests parse")
}
