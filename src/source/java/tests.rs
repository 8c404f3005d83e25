//! Summary extraction on small inline Java files: declarations, constants, references,
//! syntax errors, JDK dispatch chains and registrations.

use super::*;

const CONTROLLER: &str = r#"package com.shop.web;

import com.shop.dto.ProductDto;
import com.shop.dto.*;
import static com.shop.web.ApiPaths.PRODUCTS;
import java.util.List;

@RestController
@RequestMapping(value = {"", "/save"}, produces = "application/json")
public class ProductController extends BaseController<ProductDto> implements Api, Other<String> {
    static final String A = "/a", B = A + "/b";
    private final ProductService service;

    @GetMapping(PRODUCTS + "/{id}")
    public ResponseEntity<ProductDto> get(@PathVariable("id") long id, @RequestParam(required = false) String q) {
        Helper.call();
        Object o = new com.shop.util.Money(1);
        if (o instanceof Price p) { return (Cast) null; }
        return ResponseEntity.ok(Mapper.INSTANCE.map(Audit.class));
    }

    static class Inner { interface Deep {} }
}
"#;

#[test]
fn summary_of_a_controller() {
    let f = parse_file("a/ProductController.java", CONTROLLER);
    assert_eq!(f.package.as_deref(), Some("com.shop.web"));
    assert_eq!(f.syntax_error_line, None);
    assert_eq!(
        f.imports,
        vec![
            Import {
                path: "com.shop.dto.ProductDto".into(),
                is_static: false,
                wildcard: false
            },
            Import {
                path: "com.shop.dto".into(),
                is_static: false,
                wildcard: true
            },
            Import {
                path: "com.shop.web.ApiPaths.PRODUCTS".into(),
                is_static: true,
                wildcard: false
            },
            Import {
                path: "java.util.List".into(),
                is_static: false,
                wildcard: false
            },
        ]
    );
    let names: Vec<(&str, TypeKind, Option<usize>)> = f
        .types
        .iter()
        .map(|t| (t.nested_name.as_str(), t.kind, t.outer))
        .collect();
    assert_eq!(
        names,
        [
            ("ProductController", TypeKind::Class, None),
            ("ProductController.Inner", TypeKind::Class, Some(0)),
            ("ProductController.Inner.Deep", TypeKind::Interface, Some(1)),
        ]
    );
    let c = &f.types[0];
    assert_eq!(c.superclass.as_ref().unwrap().name, "BaseController");
    assert_eq!(c.superclass.as_ref().unwrap().args, ["ProductDto"]);
    let ifaces: Vec<&str> = c.interfaces.iter().map(|i| i.name.as_str()).collect();
    assert_eq!(ifaces, ["Api", "Other"]);
    let rm = c.annotation("RequestMapping").unwrap();
    assert_eq!(
        rm.arg("value"),
        Some(&Expr::Array(vec![
            Expr::Str("".into()),
            Expr::Str("/save".into())
        ]))
    );
    // Several declarators in one declaration, with a concatenation.
    let consts: Vec<(&str, bool, bool, Option<&Expr>)> = c
        .fields
        .iter()
        .map(|fl| {
            (
                fl.name.as_str(),
                fl.is_static,
                fl.is_final,
                fl.value.as_ref(),
            )
        })
        .collect();
    assert_eq!(consts[0], ("A", true, true, Some(&Expr::Str("/a".into()))));
    assert_eq!(
        consts[1].3,
        Some(&Expr::Concat(vec![
            Expr::Name("A".into()),
            Expr::Str("/b".into())
        ]))
    );
    assert_eq!(consts[2].0, "service");
    let m = &c.methods[0];
    assert_eq!(m.name, "get");
    assert_eq!(m.line, 15);
    assert_eq!(m.start_line, 14);
    assert_eq!(m.return_type.as_deref(), Some("ResponseEntity"));
    assert_eq!(
        m.annotation("GetMapping").unwrap().arg("value"),
        Some(&Expr::Concat(vec![
            Expr::Name("PRODUCTS".into()),
            Expr::Str("/{id}".into())
        ]))
    );
    assert_eq!(m.params.len(), 2);
    assert_eq!(
        (m.params[0].name.as_str(), m.params[0].ty.as_str()),
        ("id", "long")
    );
    assert_eq!(m.params[0].annotations[0].simple_name(), "PathVariable");
    // References: types, X.call(), X.CONST, X.class, instanceof, casts, annotations.
    for name in [
        "Helper",
        "Mapper",
        "Audit",
        "Price",
        "Cast",
        "ProductService",
        "RestController",
        "PathVariable",
        "ResponseEntity",
    ] {
        assert!(
            f.refers_to(name),
            "missing reference {name}: {:?}",
            f.simple_refs
        );
    }
    assert!(!f.refers_to("List"), "imports are not references");
    assert!(
        f.qualified_refs
            .contains(&"com.shop.util.Money".to_string())
    );
}

#[test]
fn syntax_error_keeps_file_and_line() {
    let f = parse_file(
        "Broken.java",
        "package p;\n\npublic class Broken {\n  void x( {\n}\n",
    );
    assert_eq!(f.syntax_error_line, Some(4));
    assert_eq!(f.types.len(), 1);
}

#[test]
fn interface_constants_are_static_final() {
    let f = parse_file(
        "S.java",
        "interface S { String BASE = \"/v1\"; String X = BASE + \"/x\"; }",
    );
    let fields = &f.types[0].fields;
    assert!(fields.iter().all(|fl| fl.is_static && fl.is_final));
    assert_eq!(fields.len(), 2);
}

const HANDLER: &str = r#"package petstore;
import com.sun.net.httpserver.*;
public class PetHandler implements HttpHandler {
    public void handle(HttpExchange ex) throws IOException {
        String method = ex.getRequestMethod();
        String path = ex.getRequestURI().getPath();
        String[] parts = path.split("/");
        if (path.equals("/pets")) {
            if ("GET".equals(method)) { listPets(ex); }
            else if (method.equals("POST")) { createPet(ex); }
            else { send(ex, 405); }
        } else if (path.matches("/pets/\\d+") && parts.length == 3) {
            switch (method) {
                case "GET" -> getPet(ex);
                case "PUT", "PATCH" -> updatePet(ex);
                default -> send(ex, 405);
            }
        }
    }
}
"#;

#[test]
fn jdk_dispatch_leaves() {
    let f = parse_file("PetHandler.java", HANDLER);
    let handle = &f.types[0].methods[0];
    let leaves: Vec<(&[Cond], &str)> = handle
        .dispatch
        .iter()
        .map(|l| {
            (
                l.conds.as_slice(),
                l.calls.first().map_or("", String::as_str),
            )
        })
        .collect();
    assert_eq!(leaves.len(), 5, "{leaves:#?}");
    assert_eq!(
        leaves[0],
        (
            &[Cond::PathEquals("/pets".into()), Cond::Method("GET".into())][..],
            "listPets"
        )
    );
    assert_eq!(leaves[1].1, "createPet");
    assert!(matches!(leaves[2].0.last(), Some(Cond::Not(_))));
    assert_eq!(leaves[3].0.last(), Some(&Cond::Method("GET".into())));
    assert_eq!(
        leaves[3].0[1],
        Cond::And(vec![
            Cond::PathMatches(r"/pets/\d+".into()),
            Cond::SegCount {
                op: "==".into(),
                n: 3
            }
        ])
    );
    assert_eq!(
        leaves[4].0.last(),
        Some(&Cond::Or(vec![
            Cond::Method("PUT".into()),
            Cond::Method("PATCH".into())
        ]))
    );
}

#[test]
fn create_context_registrations() {
    let src = r#"package petstore;
public class Main {
    public static void main(String[] a) throws Exception {
        HttpServer server = HttpServer.create(new InetSocketAddress(8080), 0);
        OwnerHandler owners = new OwnerHandler();
        server.createContext("/pets", new PetHandler(store));
        server.createContext(Paths.OWNERS, owners);
        server.createContext("/stats", Main::stats);
        server.createContext("/health", ex -> { if ("GET".equals(ex.getRequestMethod())) ok(ex); });
    }
}
"#;
    let f = parse_file("Main.java", src);
    assert!(f.creates_http_server);
    let handlers: Vec<&HandlerExpr> = f.contexts.iter().map(|c| &c.handler).collect();
    assert_eq!(handlers[0], &HandlerExpr::Type("PetHandler".into()));
    assert_eq!(f.contexts[1].path, Expr::Name("Paths.OWNERS".into()));
    assert_eq!(handlers[1], &HandlerExpr::Type("OwnerHandler".into()));
    assert_eq!(
        handlers[2],
        &HandlerExpr::MethodRef {
            target: "Main".into(),
            method: "stats".into()
        }
    );
    match handlers[3] {
        HandlerExpr::Lambda { leaves, .. } => {
            assert_eq!(leaves[0].conds, vec![Cond::Method("GET".into())]);
            assert_eq!(leaves[0].calls, ["ok"]);
        }
        other => panic!("expected a lambda, got {other:?}"),
    }
}

#[test]
fn parse_all_keeps_order() {
    let files: Vec<SourceText> = (0..20)
        .map(|i| SourceText {
            path: format!("F{i}.java"),
            text: format!("class F{i} {{}}"),
        })
        .collect();
    let parsed = parse_all(&files);
    let names: Vec<String> = parsed.iter().map(|f| f.types[0].name.clone()).collect();
    let expected: Vec<String> = (0..20).map(|i| format!("F{i}")).collect();
    assert_eq!(names, expected);
}

#[test]
fn path_helpers_say_what_they_return_and_handlers_read_through_them() {
    let src = r#"import com.sun.net.httpserver.HttpExchange;
class Http {
    static String rest(HttpExchange ex) { return ex.getRequestURI().getPath().substring(4); }
    static String[] parts(HttpExchange ex) { String p = ex.getRequestURI().getPath(); return p.split("/"); }
    static String[] segs(HttpExchange ex) {
        String p = ex.getRequestURI().getPath().substring(ex.getHttpContext().getPath().length());
        if (p.isEmpty()) { return new String[0]; }
        return Arrays.stream(p.split("/")).filter(s -> !s.isEmpty()).toArray(String[]::new);
    }
    static String[] other(HttpExchange ex) { String p = ex.getRequestURI().getPath(); return segs(ex); }
    static String both(HttpExchange ex, boolean b) { if (b) { return ex.getRequestURI().getPath(); } return "x"; }
    static String body(HttpExchange ex) { return "b"; }
}
class H {
    public void handle(HttpExchange ex) {
        String[] seg = Http.segs(ex);
        String b = Http.body(ex);
        if (seg.length == 1 && seg[0].equals("x")) { one(ex); } else { two(ex); }
    }
}
"#;
    let f = parse_file("Http.java", src);
    let view = |name: &str| {
        f.types[0]
            .methods
            .iter()
            .find(|m| m.name == name)
            .unwrap()
            .path_view
            .clone()
    };
    assert_eq!(view("rest"), Some(PathView::Path(Some(Strip::Chars(4)))));
    assert_eq!(
        view("parts"),
        Some(PathView::Parts {
            strip: None,
            non_empty: false
        })
    );
    assert_eq!(
        view("segs"),
        Some(PathView::Parts {
            strip: Some(Strip::Context),
            non_empty: true
        })
    );
    // A helper calling a helper, a path on one return only, no path at all: no view.
    assert_eq!(view("other"), None);
    assert_eq!(view("both"), None);
    assert_eq!(view("body"), None);
    let handle = &f.types[1].methods[0];
    let helper = |cond: Cond| Cond::Stripped {
        strip: Strip::Helper("Http.segs".into()),
        cond: Box::new(cond),
    };
    assert_eq!(
        handle.dispatch[0].conds,
        vec![Cond::And(vec![
            helper(Cond::SegCount {
                op: "==".into(),
                n: 1
            }),
            helper(Cond::SegmentEquals {
                index: 0,
                value: "x".into()
            }),
        ])]
    );
}
