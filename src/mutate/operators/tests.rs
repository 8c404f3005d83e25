//! Each operator on a small snippet: the exact mutated text, and that it still parses.

use super::*;

/// Wraps a method body in a class, so snippets stay short.
fn class(body: &str) -> String {
    format!("class T {{\n{body}\n}}\n")
}

/// The mutated texts of `src` by `op`, each checked to parse.
fn mutants(src: &str, op: Operator) -> Vec<String> {
    let mut parser = java_parser();
    let all = sites(src).expect("snippet parses");
    let out: Vec<String> = all
        .iter()
        .filter(|s| s.operator == op)
        .map(|s| apply(src, s))
        .collect();
    for m in &out {
        assert!(
            parse(&mut parser, m).is_some(),
            "mutant does not parse:\n{m}"
        );
    }
    out
}

fn has(list: &[String], needle: &str) -> bool {
    list.iter().any(|m| m.contains(needle))
}

#[test]
fn conditionals_boundary_moves_the_bound() {
    let src = class("boolean f(int x) { return x < 10 && x >= 2; }");
    let got = mutants(&src, Operator::ConditionalsBoundary);
    assert_eq!(got.len(), 2);
    assert!(has(&got, "x <= 10 && x >= 2"));
    assert!(has(&got, "x < 10 && x > 2"));
}

#[test]
fn negate_conditionals_flips_comparisons_and_conditions() {
    let src = class(
        "void f(String m, int x) {\n  if (m.equals(\"GET\")) { g(); }\n  if (x == 1) { g(); }\n  if (!m.isEmpty()) { g(); }\n}",
    );
    let got = mutants(&src, Operator::NegateConditionals);
    assert!(has(&got, "if (!(m.equals(\"GET\")))"), "{got:?}");
    assert!(has(&got, "if (x != 1)"));
    assert!(has(&got, "if (m.isEmpty())"));
    assert_eq!(got.len(), 3);
}

#[test]
fn math_swaps_arithmetic_but_not_string_concatenation() {
    let src = class("int f(int a, int b) { String s = \"n=\" + a; return a * b - 1; }");
    let got = mutants(&src, Operator::Math);
    assert!(has(&got, "return a / b - 1;"));
    assert!(has(&got, "return a * b + 1;"));
    assert!(!has(&got, "\"n=\" - a"), "{got:?}");
    assert_eq!(got.len(), 2);
}

#[test]
fn increments_swap_direction() {
    let src = class("void f(int i) { i++; --i; }");
    let got = mutants(&src, Operator::Increments);
    assert!(has(&got, "i--; --i;"));
    assert!(has(&got, "i++; ++i;"));
}

#[test]
fn return_values_follow_the_declared_type() {
    let src = class(
        "boolean a() { return true; }\nint b(int x) { return x; }\nString c() { return \"x\"; }\n\
java.util.List<String> d() { return list; }\nObject e() { return o; }\nvoid f() { return; }\n\
Runnable g() { return () -> { return; }; }",
    );
    let got = mutants(&src, Operator::ReturnValues);
    assert!(has(&got, "boolean a() { return false; }"));
    assert!(has(&got, "int b(int x) { return 0; }"));
    assert!(has(&got, "String c() { return \"\"; }"));
    assert!(
        has(&got, "return java.util.Collections.emptyList(); }"),
        "{got:?}"
    );
    assert!(has(&got, "Object e() { return null; }"));
    // `void` and the lambda's return are left alone; `g`'s return becomes null.
    assert_eq!(got.len(), 6, "{got:?}");
}

#[test]
fn discarded_calls_are_removed_as_field_writes_or_void_calls() {
    let src = class("void f(java.util.Map<String,Object> m) {\n  m.put(\"id\", 1);\n  log();\n}");
    let writes = mutants(&src, Operator::RemoveFieldWrite);
    assert_eq!(writes.len(), 1);
    assert!(has(&writes, "{\n  ;\n  log();"));
    let calls = mutants(&src, Operator::VoidCall);
    assert_eq!(calls.len(), 1);
    assert!(has(&calls, "m.put(\"id\", 1);\n  ;\n}"));
}

#[test]
fn builder_steps_before_build_are_removed() {
    let src = class("Pet f() { return Pet.builder().name(n).age(a).build(); }");
    let got = mutants(&src, Operator::RemoveFieldWrite);
    assert!(has(&got, "Pet.builder().age(a).build()"), "{got:?}");
    assert!(has(&got, "Pet.builder().name(n).build()"));
    assert_eq!(got.len(), 2);
}

#[test]
fn inline_constants_move_by_one() {
    let src = class("int f() { int a = 0; long b = 41L; return a + 1; }");
    let got = mutants(&src, Operator::InlineConstant);
    assert!(has(&got, "int a = 1;"));
    assert!(has(&got, "long b = 42L;"));
    assert!(has(&got, "return a + 0;"));
}

#[test]
fn status_swaps_cover_each_style() {
    let src = class(
        "void f(HttpExchange ex) throws Exception {\n  ex.sendResponseHeaders(404, -1);\n  \
Http.sendJson(ex, 201, body);\n  ResponseEntity.status(HttpStatus.CREATED);\n  \
Response.status(Response.Status.NOT_FOUND);\n  throw new ApiException(409, \"taken\");\n}",
    );
    let got = mutants(&src, Operator::StatusSwap);
    assert!(has(&got, "ex.sendResponseHeaders(400, -1);"));
    assert!(has(&got, "Http.sendJson(ex, 200, body);"));
    assert!(has(&got, "ResponseEntity.status(HttpStatus.OK);"));
    assert!(has(&got, "Response.status(Response.Status.BAD_REQUEST);"));
    assert!(has(&got, "new ApiException(400, \"taken\")"));
    assert_eq!(got.len(), 5, "{got:?}");
    // Status literals are not also offered as inline constants.
    let consts = mutants(&src, Operator::InlineConstant);
    assert!(!has(&consts, "405") && !has(&consts, "202"), "{consts:?}");
}

#[test]
fn guarding_throws_are_removed_but_not_others() {
    let src = class(
        "int f(int x) {\n  if (x < 0) {\n    throw new IllegalArgumentException(\"x\");\n  }\n  \
if (x > 9) throw new IllegalStateException();\n  throw new RuntimeException();\n}",
    );
    let got = mutants(&src, Operator::RemoveThrow);
    assert_eq!(got.len(), 2, "{got:?}");
    assert!(has(&got, "if (x < 0) {\n    ;\n  }"));
    assert!(has(&got, "if (x > 9) ;"));
}

#[test]
fn same_typed_arguments_are_swapped() {
    let src = class(
        "void f(String name, String tag, int age) {\n  save(name, tag, age);\n  put(\"a\", \"b\");\n  \
mix(name, age);\n}",
    );
    let got = mutants(&src, Operator::SwapArguments);
    assert!(has(&got, "save(tag, name, age);"));
    assert!(has(&got, "put(\"b\", \"a\");"));
    assert!(!has(&got, "mix(age, name)"));
    assert_eq!(got.len(), 2, "{got:?}");
}

#[test]
fn annotations_are_not_mutated_and_broken_files_are_refused() {
    let src = class("@Size(max = 10) int f() { return 3; }");
    let consts = mutants(&src, Operator::InlineConstant);
    assert!(!has(&consts, "max = 11"), "{consts:?}");
    assert!(sites("class {").is_err());
}
