//! Export formats without external tools: readable Markdown (sections, sentences, refs,
//! review states, verdicts), JSON round trip, selection by review state, the shape of the
//! Postman collection and JUnit sources, typed errors for bad oracles, and the CLI.

use crate::export_common;

use export_common::*;
use mastor::export::{self, ExportError, ExportInput, Format, Selection};
use mastor::model::{AssertionVerdict, Outcome, ReviewState, StepVerdict, SuiteFile, Verdict};
use serde_json::{Value, json};
use std::process::Command;

/// The small suite with a mix of review states: one rejected, one proposed, one edited.
fn mixed_suite() -> SuiteFile {
    let mut suite = petstore_suite(false);
    let ids = o_ids(&suite);
    suite.review.insert(ids[1].clone(), ReviewState::Rejected);
    suite.review.insert(ids[2].clone(), ReviewState::Proposed);
    suite.review.insert(ids[3].clone(), ReviewState::Edited);
    suite
}

#[test]
fn selection_follows_review_states() {
    let suite = mixed_suite();
    let ids = o_ids(&suite);
    let dir = tempfile::tempdir().expect("tempdir");

    let reviewed = ExportInput::from_suite(suite.clone(), Selection::Reviewed);
    let report = export::export(&reviewed, Format::Json, dir.path()).expect("export");
    let exported: Vec<&str> = report.items.iter().map(|i| i.o_id.as_str()).collect();
    assert_eq!(exported.len(), ids.len() - 2);
    assert_eq!(report.skipped, 2);
    assert!(!exported.contains(&ids[1].as_str()), "rejected exported");
    assert!(
        !exported.contains(&ids[2].as_str()),
        "proposed exported without --all"
    );
    assert!(exported.contains(&ids[3].as_str()), "edited left out");

    let all = ExportInput::from_suite(suite, Selection::All);
    let report = export::export(&all, Format::Json, dir.path()).expect("export");
    let exported: Vec<&str> = report.items.iter().map(|i| i.o_id.as_str()).collect();
    assert_eq!(exported.len(), ids.len() - 1);
    assert!(
        !exported.contains(&ids[1].as_str()),
        "rejected exported with --all"
    );
    assert!(
        exported.contains(&ids[2].as_str()),
        "proposed left out with --all"
    );
}

/// The small suite plus the metamorphic tests: one accepted, one edited, one rejected.
fn suite_with_metamorphic() -> SuiteFile {
    let mut suite = petstore_suite(false);
    let states = [
        ReviewState::Accepted,
        ReviewState::Edited,
        ReviewState::Rejected,
    ];
    for (t, state) in petstore_metamorphic().into_iter().zip(states) {
        suite.review.insert(t.o_id(), state);
        suite.metamorphic.push(t);
    }
    suite
}

#[test]
fn json_round_trips() {
    let mut suite = suite_with_metamorphic();
    // Only exported tests come back: drop the rejected one from the expectation.
    let rejected = suite.metamorphic.pop().expect("three tests");
    suite.review.remove(&rejected.o_id());
    let dir = tempfile::tempdir().expect("tempdir");
    let input = ExportInput::from_suite(suite.clone(), Selection::Reviewed);
    let report = export::export(&input, Format::Json, dir.path()).expect("export");
    let reloaded =
        ExportInput::from_suite_file(&report.files[0], Selection::Reviewed).expect("reload");
    assert!(reloaded.problems.is_empty(), "{:?}", reloaded.problems);
    let loaded = SuiteFile {
        schema_version: mastor::model::SCHEMA_VERSION,
        oracles: reloaded.oracles,
        multi_op: reloaded.multi_op,
        metamorphic: reloaded.metamorphic,
        review: reloaded.review,
    };
    pretty_assertions::assert_eq!(loaded, suite);
    let text = std::fs::read_to_string(&report.files[0]).expect("read");
    assert!(text.contains("\"metamorphic\""), "{text}");
    let plain = ExportInput::from_suite(petstore_suite(false), Selection::Reviewed);
    let dir_plain = tempfile::tempdir().expect("tempdir");
    let r = export::export(&plain, Format::Json, dir_plain.path()).expect("export");
    let text = std::fs::read_to_string(&r.files[0]).expect("read");
    assert!(
        !text.contains("metamorphic"),
        "no key without tests: {text}"
    );

    // Exporting the reloaded suite again gives the same bytes.
    let again = tempfile::tempdir().expect("tempdir");
    let input = ExportInput::from_suite(loaded, Selection::Reviewed);
    let second = export::export(&input, Format::Json, again.path()).expect("export");
    let a = std::fs::read_to_string(&report.files[0]).expect("read");
    let b = std::fs::read_to_string(&second.files[0]).expect("read");
    assert_eq!(a, b);
}

#[test]
fn bad_suite_files_are_named_in_the_error() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("broken.json");
    std::fs::write(&path, "{\"schema_version\": 1, \"oracles\": [").expect("write");
    let err = ExportInput::from_suite_file(&path, Selection::All).expect_err("must fail");
    assert!(matches!(err, ExportError::BadSuite { .. }), "{err}");
    assert!(err.to_string().contains("broken.json"), "{err}");

    std::fs::write(&path, "{\"schema_version\": 99}").expect("write");
    let err = ExportInput::from_suite_file(&path, Selection::All).expect_err("must fail");
    assert!(err.to_string().contains("schema_version 99"), "{err}");

    // One malformed entry is skipped and reported; the rest still export.
    let mut suite = serde_json::to_value(petstore_suite(false)).expect("json");
    suite["oracles"][1]["op_id"] = json!(3);
    std::fs::write(&path, suite.to_string()).expect("write");
    let input = ExportInput::from_suite_file(&path, Selection::All).expect("loads");
    assert_eq!(input.problems.len(), 1, "{:?}", input.problems);
    assert!(
        input.problems[0].contains("oracles[1]"),
        "{:?}",
        input.problems
    );
    assert_eq!(input.oracles.len(), petstore_suite(false).oracles.len() - 1);
}

#[test]
fn bad_oracles_give_typed_errors_naming_the_oracle() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut suite = petstore_suite(false);
    suite.multi_op.clear();
    let rex = suite
        .oracles
        .iter()
        .position(|o| o.test_id == "fv_rex")
        .expect("fv_rex");
    // GET /pets/{petId} without a petId value.
    suite.oracles[rex].input.path.clear();
    let input = ExportInput::from_suite(suite.clone(), Selection::Reviewed);
    for format in [Format::Junit, Format::Postman] {
        let err = export::export(&input, format, dir.path()).expect_err("must fail");
        let text = err.to_string();
        assert!(text.contains("GET /pets/{petId}#fv_rex"), "{text}");
        assert!(text.contains("petId"), "{text}");
    }
    suite.oracles[rex]
        .input
        .path
        .insert("petId".into(), json!(1));
    suite.oracles[0].op_id = "pets".into();
    suite
        .review
        .insert(suite.oracles[0].o_id(), ReviewState::Accepted);
    let input = ExportInput::from_suite(suite, Selection::Reviewed);
    let err = export::export(&input, Format::Junit, dir.path()).expect_err("must fail");
    assert!(err.to_string().contains("not 'METHOD /path'"), "{err}");
}

#[test]
fn readable_has_contents_sections_sentences_and_refs() {
    let mut input = ExportInput::from_suite(mixed_suite(), Selection::All);
    input.verdicts.insert(
        "GET /pets#fv_list".into(),
        Verdict {
            o_id: "GET /pets#fv_list".into(),
            outcome: Outcome::Fail,
            steps: vec![StepVerdict {
                op_id: "GET /pets".into(),
                outcome: Outcome::Fail,
                assertions: vec![AssertionVerdict {
                    index: 3,
                    outcome: Outcome::Fail,
                    expected: json!("Rex"),
                    actual: json!("Tom"),
                    message: "not equal".into(),
                    unstable: false,
                }],
                exchange: None,
                message: String::new(),
            }],
            at: "2026-12-02T10:00:00Z".into(),
            base_url: "http://127.0.0.1:1".into(),
            isolation: None,
            content_hash: None,
        },
    );
    let dir = tempfile::tempdir().expect("tempdir");
    let report = export::export(&input, Format::Readable, dir.path()).expect("export");
    let md = std::fs::read_to_string(&report.files[0]).expect("read");

    // Table of contents links to one section per block of the run order: one per
    // operation here, then one per sequence group.
    let contents = md
        .split("## Contents")
        .nth(1)
        .expect("contents")
        .split("\n## ")
        .next()
        .expect("toc");
    for op in [
        "GET /pets",
        "GET /pets/{petId}",
        "GET /stats",
        "GET /owners/{ownerId}/pets",
    ] {
        assert!(
            contents.contains(&format!(". read-only: {op}](#run-")),
            "toc misses {op}:\n{contents}"
        );
        assert!(
            md.contains(&format!(". read-only: {op}\n")),
            "no section for {op}"
        );
    }
    assert!(contents.contains(". sequences: pet-lifecycle](#run-"));
    assert!(md.contains(". sequences: pet-lifecycle\n"));
    // Read-only sections come before every writer's.
    let headings: Vec<&str> = md.lines().filter(|l| l.starts_with("## ")).collect();
    let last_reader = headings.iter().rposition(|h| h.contains(". read-only: "));
    let first_writer = headings.iter().position(|h| h.contains(". writers: "));
    assert!(
        first_writer.is_some() && last_reader < first_writer,
        "{headings:?}"
    );
    // The rejected oracle is not there; the proposed one is, marked as such.
    assert!(
        !md.contains("GET /pets#fi_bad_limit"),
        "rejected oracle exported"
    );
    let sold = md
        .split("### `GET /pets#fv_sold`")
        .nth(1)
        .expect("proposed oracle section");
    assert!(
        sold.split("\n### ")
            .next()
            .expect("section")
            .contains("- **Review:** proposed")
    );
    // Assertions as sentences.
    for sentence in [
        "1. status is 200",
        "`[*].id` is not null",
        "`[0].name` equals `\"Rex\"`",
        "`[1].age` is greater than `10`",
        "the body is of type array",
        "`name` has length 3",
        "`[0].ownerId` is null or missing",
        "`[*].ageCategory` matches `/^(young|adult|senior)$/`",
        "captures `pet_id` from `id`",
        "path `petId` = `\"$captures.pet_id\"`",
    ] {
        assert!(md.contains(sentence), "missing sentence {sentence:?}");
    }
    // Evidence, refs, strategy and the verdict with its failing assertion.
    assert!(
        md.contains("- **Evidence refs:** `src/main/java/petstore/handlers/PetHandler.java:30-60`")
    );
    assert!(md.contains("- **Strategy:** FV (functional, valid input)"));
    assert!(md.contains("- **Verdict:** fail (2026-12-02T10:00:00Z against http://127.0.0.1:1)"));
    assert!(md.contains("assertion 4: fail (expected `\"Rex\"`, actual `\"Tom\"`) not equal"));
    assert_eq!(report.items.len(), o_ids(&input_suite()).len() - 1);
}

fn input_suite() -> SuiteFile {
    petstore_suite(false)
}

#[test]
fn postman_collection_shape() {
    let input = ExportInput::from_suite(petstore_suite(false), Selection::Reviewed);
    let dir = tempfile::tempdir().expect("tempdir");
    let report = export::export(&input, Format::Postman, dir.path()).expect("export");
    let text = std::fs::read_to_string(&report.files[0]).expect("read");
    let c: Value = serde_json::from_str(&text).expect("collection JSON");
    assert_eq!(
        c["info"]["schema"],
        "https://schema.getpostman.com/json/collection/v2.1.0/collection.json"
    );
    assert_eq!(c["variable"][0]["key"], "baseUrl");
    let folders = c["item"].as_array().expect("folders");
    let names: Vec<&str> = folders.iter().filter_map(|f| f["name"].as_str()).collect();
    // Folders in the execution order: readers, writers, then the sequence groups.
    assert_eq!(names[0], "1. read-only: GET /pets");
    assert!(
        names[names.len() - 2].ends_with(". sequences: pet-lifecycle"),
        "{names:?}"
    );
    assert!(
        names[names.len() - 1].ends_with(". sequences: owner-pets"),
        "{names:?}"
    );
    let first_writer = names.iter().position(|n| n.contains(". writers: "));
    let last_reader = names.iter().rposition(|n| n.contains(". read-only: "));
    assert!(
        first_writer.is_some() && last_reader < first_writer,
        "{names:?}"
    );
    let get_pets = folders[0]["item"].as_array().expect("requests");
    assert_eq!(get_pets.len(), 5);
    assert_eq!(get_pets[1]["name"], "GET /pets#fi_bad_limit");
    assert_eq!(get_pets[1]["request"]["url"], "{{baseUrl}}/pets?limit=abc");
    let sequences: Vec<&Value> = folders
        .iter()
        .flat_map(|f| f["item"].as_array().into_iter().flatten())
        .collect();
    assert!(
        sequences
            .iter()
            .any(|f| f["name"] == "sequence pet-lifecycle#create_read_delete")
    );
    let seq = sequences
        .iter()
        .find(|f| f["name"] == "sequence owner-pets#create_for_owner")
        .expect("sequence");
    let steps = seq["item"].as_array().expect("steps");
    assert_eq!(steps.len(), 4);
    assert_eq!(steps[1]["name"], "owner-pets#create_for_owner#2");
    let raw = steps[1]["request"]["body"]["raw"]
        .as_str()
        .expect("raw body");
    assert!(raw.contains("\"ownerId\": {{owner_id__json}}"), "{raw}");
    assert_eq!(steps[2]["request"]["url"], "{{baseUrl}}/pets/{{kit_id}}");
    // The first step clears the sequence's captures before it runs.
    let pre = &steps[0]["event"][0];
    assert_eq!(pre["listen"], "prerequest");
    assert!(
        pre["script"]["exec"]
            .to_string()
            .contains("unset(\\\"kit_id\\\")")
    );
}

#[test]
fn junit_sources_trace_back_to_oracles() {
    let input = ExportInput::from_suite(petstore_suite(false), Selection::Reviewed);
    let dir = tempfile::tempdir().expect("tempdir");
    let report = export::export(&input, Format::Junit, dir.path()).expect("export");
    let class = dir.path().join("mastor/suite/GetPetsPetIdTest.java");
    let src = std::fs::read_to_string(&class).expect("class per operation");
    assert!(src.contains("@DisplayName(\"GET /pets/{petId}\")"));
    assert!(src.contains("static final String OP_ID = \"GET /pets/{petId}\";"));
    assert!(src.contains("@DisplayName(\"GET /pets/{petId}#fv_rex\")"));
    assert!(src.contains("void test_fv_rex()"));
    let group = std::fs::read_to_string(dir.path().join("mastor/suite/GroupPetLifecycleTest.java"))
        .expect("class per group");
    assert!(group.contains("c.step(4, \"GET /pets/{petId}\");"));
    assert!(group.contains("c.capture(r, \"pet_id\", \"id\");"));
    let item = report
        .items
        .iter()
        .find(|i| i.o_id == "GET /pets/{petId}#fv_rex")
        .expect("item");
    assert_eq!(item.location, "mastor.suite.GetPetsPetIdTest#test_fv_rex");
    assert_eq!(item.op_id, "GET /pets/{petId}");

    // Re-exporting fewer operations removes the classes of the others, keeps user files.
    let user_file = dir.path().join("mastor/suite/Handwritten.java");
    std::fs::write(&user_file, "package mastor.suite; class Handwritten {}").expect("write");
    let mut fewer = petstore_suite(false);
    fewer.oracles.retain(|o| o.op_id == "GET /stats");
    fewer.multi_op.clear();
    let input = ExportInput::from_suite(fewer, Selection::Reviewed);
    export::export(&input, Format::Junit, dir.path()).expect("export");
    assert!(!class.exists(), "stale class kept");
    assert!(dir.path().join("mastor/suite/GetStatsTest.java").is_file());
    assert!(user_file.is_file(), "user file removed");
}

#[test]
fn cli_exports_a_suite_file_and_rejects_bad_input() {
    let dir = tempfile::tempdir().expect("tempdir");
    let suite_path = dir.path().join("suite.json");
    let text = serde_json::to_string(&mixed_suite()).expect("json");
    std::fs::write(&suite_path, text).expect("write");
    let out = dir.path().join("out");
    let (code, text) = run(Command::new(env!("CARGO_BIN_EXE_mastor"))
        .arg("export")
        .arg(&suite_path)
        .args(["--format", "junit,postman,readable,json", "--out"])
        .arg(&out));
    assert_eq!(code, 0, "{text}");
    assert!(text.contains("left out by review state"), "{text}");
    for file in [
        "suite.md",
        "suite.json",
        "mastor.postman_collection.json",
        "mastor/suite/MastorAssert.java",
    ] {
        assert!(out.join(file).is_file(), "{file} not written");
    }

    let (code, text) = run(Command::new(env!("CARGO_BIN_EXE_mastor"))
        .arg("export")
        .arg(dir.path().join("missing.json"))
        .args(["--format", "json", "--out"])
        .arg(&out));
    assert_eq!(code, 2, "{text}");
    assert!(text.contains("missing.json"), "{text}");

    let (code, text) = run(Command::new(env!("CARGO_BIN_EXE_mastor"))
        .arg("export")
        .arg(&suite_path)
        .args(["--format", "cucumber", "--out"])
        .arg(&out));
    assert_eq!(code, 2, "{text}");
    assert!(text.contains("unknown format 'cucumber'"), "{text}");

    // Gherkin exports the selected metamorphic tests (rejected ones left out).
    let suite_path = dir.path().join("suite-mr.json");
    let text = serde_json::to_string(&suite_with_metamorphic()).expect("json");
    std::fs::write(&suite_path, text).expect("write");
    let behave = dir.path().join("behave");
    let (code, text) = run(Command::new(env!("CARGO_BIN_EXE_mastor"))
        .arg("export")
        .arg(&suite_path)
        .args(["--format", "gherkin", "--out"])
        .arg(&behave));
    assert_eq!(code, 0, "{text}");
    assert!(text.contains("gherkin: 2 tests"), "{text}");
    let feature =
        std::fs::read_to_string(behave.join("features/metamorphic.feature")).expect("feature");
    assert!(feature.contains("status_change_visible"), "{feature}");
    assert!(feature.contains("limit_is_a_prefix"), "{feature}");
    assert!(
        !feature.contains("missing_pet"),
        "rejected test exported: {feature}"
    );
}

#[test]
fn metamorphic_tests_in_junit_postman_and_markdown() {
    let input = ExportInput::from_suite(suite_with_metamorphic(), Selection::Reviewed);
    let dir = tempfile::tempdir().expect("tempdir");

    let report = export::export(&input, Format::Junit, dir.path()).expect("junit");
    let class = std::fs::read_to_string(dir.path().join("mastor/suite/MetamorphicTests.java"))
        .expect("metamorphic class");
    assert!(
        class.contains("@DisplayName(\"mr#status_change_visible\")"),
        "{class}"
    );
    assert!(class.contains("r = m.send(\"follow_up[1]\", \"follow_up\", \"GET /pets/{petId}\""));
    assert!(class.contains("c.capture(r, \"id\", \"id\");"), "{class}");
    assert!(class.contains("m.relations("), "{class}");
    assert!(!class.contains("missing_pet"), "rejected test exported");
    assert!(
        dir.path()
            .join("mastor/suite/MastorRelations.java")
            .is_file()
    );
    let item = report
        .items
        .iter()
        .find(|i| i.o_id == "mr#limit_is_a_prefix")
        .expect("item");
    assert_eq!(
        item.location,
        "mastor.suite.MetamorphicTests#test_limit_is_a_prefix"
    );
    assert_eq!(item.op_id, "GET /pets -> GET /pets -> GET /pets");
    assert_eq!(report.skipped, 1);

    let report = export::export(&input, Format::Postman, dir.path()).expect("postman");
    let c: Value = serde_json::from_str(&std::fs::read_to_string(&report.files[0]).expect("read"))
        .expect("collection JSON");
    let folder = c["item"]
        .as_array()
        .expect("folders")
        .iter()
        .find(|f| f["name"] == "metamorphic mr#status_change_visible")
        .expect("folder per test");
    let steps = folder["item"].as_array().expect("requests");
    assert_eq!(steps.len(), 3);
    assert_eq!(steps[2]["request"]["url"], "{{baseUrl}}/pets/{{id}}");
    let last = steps[2]["event"][0]["script"]["exec"].to_string();
    assert!(last.contains("m.mrStep("), "{last}");
    assert!(last.contains("follow_up[0].request.body.status"), "{last}");
    let first = steps[0]["event"].to_string();
    assert!(
        first.contains("prerequest"),
        "captures cleared first: {first}"
    );

    let report = export::export(&input, Format::Readable, dir.path()).expect("readable");
    let md = std::fs::read_to_string(&report.files[0]).expect("read");
    assert!(
        md.contains("- [Metamorphic tests](#metamorphic) (2)"),
        "{md}"
    );
    assert!(md.contains("## Metamorphic tests"), "{md}");
    assert!(md.contains("### `mr#status_change_visible`"), "{md}");
    assert!(
        md.contains("- **Given** a pet created with status available"),
        "{md}"
    );
    assert!(
        md.contains("- **Follow-up** `POST /pets/{petId}/status`"),
        "{md}"
    );
    assert!(
        md.contains("1. `follow_up[1].body.status` equals `follow_up[0].request.body.status`"),
        "{md}"
    );
    assert!(
        md.contains("`follow_up[0].body` has 1 more than `seed[0].body`"),
        "{md}"
    );
    assert!(md.contains("- **Review:** edited"), "{md}");
    assert!(!md.contains("missing_pet"), "rejected test in Markdown");

    // Without metamorphic tests an export is as before: no support class, no section.
    let plain = ExportInput::from_suite(petstore_suite(false), Selection::Reviewed);
    export::export(&plain, Format::Junit, dir.path()).expect("junit");
    assert!(
        !dir.path()
            .join("mastor/suite/MastorRelations.java")
            .exists()
    );
    assert!(
        !dir.path()
            .join("mastor/suite/MetamorphicTests.java")
            .exists()
    );
    let report = export::export(&plain, Format::Readable, dir.path()).expect("readable");
    let md = std::fs::read_to_string(&report.files[0]).expect("read");
    assert!(!md.contains("Metamorphic"), "{md}");
}
