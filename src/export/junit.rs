//! JUnit 5 export (the paper's ToJUnit, runnable on a plain JDK 17 and in any Maven or
//! Gradle project).
//!
//! Writes package `mastor.suite` (or `--package`) under `<out>/<package path>/`, so `--out
//! src/test/java` drops it into a project. The classes follow the execution model
//! (`crate::execution`, laid out by `order`): one class per block of one stage and one
//! operation (read-only oracles, then `fresh_state` writers, then the other writers, then
//! one class per sequence group), each with `@Order` for its place in the run and every
//! test with `@Order` for its place in the whole run; `junit-platform.properties` (beside
//! the package directory; it belongs on the test class path, `src/test/resources`) makes
//! JUnit order classes by `@Order`. `fresh_state` tests are tagged `fresh-state`, tests that
//! may write `writes`; every class calls the reset hook (`MastorReset`), which runs only
//! when the project configures one. Metamorphic tests go into `MetamorphicTests`, last, with
//! the `MastorRelations` support class (see `junit_mr`). The base URL comes from the system
//! property `mastor.baseUrl`.
//!
//! It does not compile or run anything and writes no build file: the README written beside
//! the sources shows the Maven and Gradle dependencies and the console launcher command.

pub(super) use super::junit_code::{assertion_code, input_json};
use super::junit_code::{method_stem, sequence_test, single_test};
pub use super::junit_names::{MAX_CLASS_NAME, camel, check_package, class_name, java_str};
pub(super) use super::junit_names::{comment, snake, unique};
use super::order::{Block, Entry, blocks};
use super::{ExportError, ExportInput, ExportReport, ExportedItem, create_dir, write_file};
use crate::execution::Stage;
use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// Default Java package of the generated sources.
pub const PACKAGE: &str = "mastor.suite";

/// The support classes, verbatim but for their package line.
const SUPPORT: [(&str, &str); 4] = [
    (
        "MastorAssert",
        include_str!("assets/java/MastorAssert.java"),
    ),
    ("MastorJson", include_str!("assets/java/MastorJson.java")),
    (
        "MastorRequest",
        include_str!("assets/java/MastorRequest.java"),
    ),
    ("MastorReset", include_str!("assets/java/MastorReset.java")),
];

/// The JUnit configuration that orders classes by their `@Order` (JUnit's default order
/// of classes is deliberately unspecified).
pub const PROPERTIES_FILE: &str = "junit-platform.properties";
const PROPERTIES: &str = "\
# Written by mastor export: run the test classes in mastor's execution order (their @Order).
junit.jupiter.testclass.order.default=org.junit.jupiter.api.ClassOrderer$OrderAnnotation
";

const README: &str = include_str!("assets/java/README-junit.txt");

/// The package the export writes (`--package` or [`PACKAGE`]), checked.
pub fn package_of(input: &ExportInput) -> Result<&str, ExportError> {
    let package = input.options.package.as_deref().unwrap_or(PACKAGE);
    check_package(package)?;
    Ok(package)
}

/// A support source with its package line set to `package`.
pub(super) fn in_package(source: &str, package: &str) -> String {
    source.replacen(
        &format!("package {PACKAGE};"),
        &format!("package {package};"),
        1,
    )
}

/// Writes the JUnit sources; see the module docs for the layout.
pub fn export(input: &ExportInput, out_dir: &Path) -> Result<ExportReport, ExportError> {
    let package = package_of(input)?;
    let pkg_dir: PathBuf = package
        .split('.')
        .fold(out_dir.to_path_buf(), |d, s| d.join(s));
    create_dir(&pkg_dir)?;
    remove_stale_classes(&pkg_dir)?;
    let mut report = ExportReport::default();
    let mut class_names = BTreeSet::new();

    for (name, source) in SUPPORT {
        class_names.insert(name.to_string());
        let file = pkg_dir.join(format!("{name}.java"));
        write_file(&file, &in_package(source, package))?;
        report.files.push(file);
    }
    for (name, text) in [
        (PROPERTIES_FILE, PROPERTIES.to_string()),
        ("README-junit.txt", README.replace("{package}", package)),
    ] {
        let file = out_dir.join(name);
        write_file(&file, &text)?;
        report.files.push(file);
    }

    let all = blocks(input);
    for (n, block) in all.iter().enumerate() {
        let (prefix, suffix) = match block.stage {
            Stage::Sequence => ("Group", ""),
            Stage::Fresh => ("", "FreshState"),
            _ => ("", ""),
        };
        let base = class_name(prefix, &format!("{}{suffix}", block.key));
        let class = unique(&mut class_names, base);
        let mut methods = BTreeSet::new();
        let mut body = String::new();
        for placed in &block.entries {
            let method = unique(&mut methods, method_stem(&placed.entry));
            let (code, op_id) = match placed.entry {
                Entry::Single(o) => (single_test(input, o, placed, &method)?, o.op_id.clone()),
                Entry::Sequence(m) => {
                    let op_ids: Vec<&str> = m.steps.iter().map(|s| s.op_id.as_str()).collect();
                    (
                        sequence_test(input, m, placed, &method)?,
                        op_ids.join(" -> "),
                    )
                }
            };
            body.push_str(&code);
            report.items.push(ExportedItem {
                o_id: placed.entry.o_id(),
                op_id,
                location: format!("{package}.{class}#{method}"),
            });
        }
        let file = pkg_dir.join(format!("{class}.java"));
        let spec = ClassSpec {
            package,
            class: &class,
            display: &block.key,
            what: what(block),
            constant: if block.stage == Stage::Sequence {
                "GROUP_ID"
            } else {
                "OP_ID"
            },
            order: n + 1,
        };
        write_file(&file, &class_source(&spec, &body))?;
        report.files.push(file);
    }
    super::junit_mr::export(
        input,
        package,
        &pkg_dir,
        all.len() + 1,
        &mut class_names,
        &mut report,
    )?;
    Ok(report)
}

/// The class comment: what its tests are and where they run.
fn what(block: &Block<'_>) -> String {
    match block.stage {
        Stage::Reader => format!(
            "Oracles of operation {} that only read: they run first, on the seed data",
            block.key
        ),
        Stage::Fresh => format!(
            "Oracles of operation {} that need the seed data (fresh_state): they run before the \
             other writers, each right after the reset when one is configured",
            block.key
        ),
        Stage::Writer => format!(
            "Oracles of operation {} that write: one at a time, after the read-only and \
             fresh-state ones, each seeing what earlier writers left",
            block.key
        ),
        Stage::Sequence => format!(
            "Multi-operation sequences of group {}: after every single-operation oracle",
            block.key
        ),
    }
}

/// Marker in every generated test class, so a re-export can remove the classes of
/// operations that are no longer exported (and only those; older exports carried it too).
const MARKER: &str = "generated by mastor export";

fn remove_stale_classes(pkg_dir: &Path) -> Result<(), ExportError> {
    let io = |source| ExportError::Io {
        path: pkg_dir.to_path_buf(),
        source,
    };
    for entry in std::fs::read_dir(pkg_dir).map_err(io)? {
        let path = entry.map_err(io)?.path();
        if path.extension().is_some_and(|e| e == "java")
            && std::fs::read_to_string(&path).is_ok_and(|text| text.contains(MARKER))
        {
            std::fs::remove_file(&path).map_err(|source| ExportError::Io {
                path: path.clone(),
                source,
            })?;
        }
    }
    Ok(())
}

/// One generated class.
pub(super) struct ClassSpec<'a> {
    pub package: &'a str,
    pub class: &'a str,
    /// Its display name: the op_id, group id or kind.
    pub display: &'a str,
    /// The class comment.
    pub what: String,
    /// `OP_ID`, `GROUP_ID` or `KIND`: the constant holding `display`.
    pub constant: &'a str,
    /// Its place among the classes (`@Order`).
    pub order: usize,
}

pub(super) fn class_source(spec: &ClassSpec<'_>, body: &str) -> String {
    let ClassSpec {
        package,
        class,
        display,
        constant,
        order,
        ..
    } = spec;
    let mut out = String::new();
    let _ = write!(
        out,
        "package {package};\n\n\
         import static {package}.MastorAssert.json;\n\
         import static {package}.MastorRequest.request;\n\n\
         import org.junit.jupiter.api.BeforeAll;\n\
         import org.junit.jupiter.api.BeforeEach;\n\
         import org.junit.jupiter.api.DisplayName;\n\
         import org.junit.jupiter.api.MethodOrderer;\n\
         import org.junit.jupiter.api.Order;\n\
         import org.junit.jupiter.api.Tag;\n\
         import org.junit.jupiter.api.Test;\n\
         import org.junit.jupiter.api.TestInfo;\n\
         import org.junit.jupiter.api.TestMethodOrder;\n\n\
         /** {}; {MARKER}. */\n\
         @DisplayName({})\n\
         @Order({order})\n\
         @TestMethodOrder(MethodOrderer.OrderAnnotation.class)\n\
         class {class} {{\n    \
         static final String {constant} = {};\n\n    \
         @BeforeAll\n    \
         static void resetAtStart() throws Exception {{\n        \
         MastorReset.atStart();\n    \
         }}\n\n    \
         @BeforeEach\n    \
         void resetIfDue(TestInfo test) throws Exception {{\n        \
         MastorReset.before(test.getTags(), test.getDisplayName());\n    \
         }}\n\n{}\n}}\n",
        comment(&spec.what),
        java_str(display),
        java_str(display),
        body.trim_end_matches('\n'),
    );
    out
}
