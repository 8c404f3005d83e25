//! JUnit 5 export of metamorphic tests: one class `MetamorphicTests` with one `@Test` per
//! test (`@DisplayName` = `mr#<test_id>`), plus the `MastorRelations` support class.
//!
//! A test sends its seed and follow-up steps in order through `MastorAssert.Checks` (so
//! inputs, step assertions, captures and binds behave exactly as in exported sequences),
//! and then checks every relation. A relation that does not hold is an `AssertionError`
//! starting `relation violated` (a JUnit failure); anything that stops the relations from
//! being checked (transport error, timeout, 5xx, undocumented status, failed step assertion
//! or capture, an operand without value) is `MastorRelations.ExecutionFailed`, starting
//! `execution failed` (a JUnit error), as `mastor check` reports them.
//!
//! Without metamorphic tests nothing is written here and an earlier `MastorRelations.java`
//! is removed, so such an export is the same as before metamorphic tests existed.

use super::junit::{
    ClassSpec, assertion_code, class_source, comment, in_package, input_json, java_str, snake,
    unique,
};
use super::mr::{check, documented_json, relations_json, steps};
use super::{ExportError, ExportInput, ExportReport, ExportedItem, split_op_id, write_file};
use crate::export::request::check_path_params;
use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::Path;

/// The relations support class, verbatim.
const RELATIONS: &str = include_str!("assets/java/MastorRelations.java");

/// Writes `MetamorphicTests.java` and `MastorRelations.java` when the input selects any
/// metamorphic test; records files and items in `report`.
pub(super) fn export(
    input: &ExportInput,
    package: &str,
    pkg_dir: &Path,
    order: usize,
    class_names: &mut BTreeSet<String>,
    report: &mut ExportReport,
) -> Result<(), ExportError> {
    let support = pkg_dir.join("MastorRelations.java");
    let tests = input.selected_metamorphic();
    if tests.is_empty() {
        if support.is_file() {
            std::fs::remove_file(&support).map_err(|source| ExportError::Io {
                path: support.clone(),
                source,
            })?;
        }
        return Ok(());
    }
    class_names.insert("MastorRelations".to_string());
    write_file(&support, &in_package(RELATIONS, package))?;
    report.files.push(support);
    let class = unique(class_names, "MetamorphicTests".to_string());
    let mut methods = BTreeSet::new();
    let mut body = String::new();
    for (n, t) in tests.into_iter().enumerate() {
        check(t)?;
        let o_id = t.o_id();
        let method = unique(&mut methods, format!("test_{}", snake(&t.test_id)));
        let _ = writeln!(body, "    /**\n     * {}", comment(&t.scenario));
        for (word, text) in [("Given", &t.given), ("When", &t.when), ("Then", &t.then)] {
            if !text.is_empty() {
                let _ = writeln!(body, "     * <p>{word} {}", comment(text));
            }
        }
        let _ = writeln!(
            body,
            "     */\n    @Test\n    @Order({})\n    @DisplayName({o})\n    void {method}() throws Exception {{\n        \
             MastorAssert.Checks c = new MastorAssert.Checks({o}, true);\n        \
             MastorRelations.Run m = new MastorRelations.Run({o}, c, {d});\n        \
             MastorAssert.Response r;",
            n + 1,
            o = java_str(&o_id),
            d = java_str(&documented_json(t, &input.documented).to_string()),
        );
        for (n, s) in steps(t).iter().enumerate() {
            body.push_str(&mr_step_code(&o_id, n + 1, s)?);
        }
        let _ = writeln!(
            body,
            "        m.relations({});\n    }}\n",
            java_str(&relations_json(t)?.to_string())
        );
        report.items.push(ExportedItem {
            o_id,
            op_id: super::mr_op_ids(t),
            location: format!("{package}.{class}#{method}"),
        });
    }
    let file = pkg_dir.join(format!("{class}.java"));
    let spec = ClassSpec {
        package,
        class: &class,
        display: "metamorphic",
        what: "Metamorphic tests (metamorphic): after every oracle and sequence".to_string(),
        constant: "KIND",
        order,
    };
    write_file(&file, &class_source(&spec, &body))?;
    report.files.push(file);
    Ok(())
}

/// One step: sent through `MastorRelations.Run.send` (5xx and documented-status checks),
/// then its assertions and captures as exported sequence steps have them, then `checked()`.
fn mr_step_code(
    o_id: &str,
    number: usize,
    s: &super::mr::MrStep<'_>,
) -> Result<String, ExportError> {
    let step_id = format!("{o_id}#{number}");
    let (http_method, template) = split_op_id(&step_id, &s.step.op_id)?;
    check_path_params(&step_id, template, &s.step.input)?;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "        // {}: {}\n        c.step({number}, {});\n        \
         r = m.send({}, {}, {}, {}, {}, {});",
        s.label,
        comment(&s.step.op_id),
        java_str(&format!("{} {}", s.label, s.step.op_id)),
        java_str(&s.label),
        java_str(s.side),
        java_str(&s.step.op_id),
        java_str(http_method),
        java_str(template),
        java_str(&input_json(&s.step.input)),
    );
    out.push_str(&assertion_code(&s.step.assertions));
    for (name, path) in &s.step.captures {
        let _ = writeln!(
            out,
            "        c.capture(r, {}, {});",
            java_str(name),
            java_str(path)
        );
    }
    out.push_str("        m.checked();\n");
    Ok(out)
}
