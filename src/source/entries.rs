//! Entry detection: which files are where requests come in, by framework.
//!
//! Matching is by annotation and interface names from a configurable [`EntryPatterns`]
//! (paper 4.3.1: extending to a new framework means adding patterns, not code paths).
//! Entry detection does not compose routes; that is `routes`.

use super::index::{TypeId, TypeIndex};
use crate::model::{EntryRef, SpecOperation};
use serde::Serialize;
use std::collections::BTreeSet;

/// The framework an entry file belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub enum Framework {
    #[serde(rename = "spring")]
    Spring,
    #[serde(rename = "jaxrs")]
    Jaxrs,
    #[serde(rename = "jdk")]
    Jdk,
    #[serde(rename = "spec-first")]
    SpecFirst,
    /// Routes registered in code by method reference or lambda (`router.add`, `app.get`).
    #[serde(rename = "router")]
    Router,
}

impl Framework {
    /// The tag used in reports (`spring`, `jaxrs`, `jdk`, `spec-first`, `router`).
    pub fn tag(self) -> &'static str {
        match self {
            Framework::Spring => "spring",
            Framework::Jaxrs => "jaxrs",
            Framework::Jdk => "jdk",
            Framework::SpecFirst => "spec-first",
            Framework::Router => "router",
        }
    }
}

/// Annotation and interface names (simple names) that mark entry points.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EntryPatterns {
    /// Class annotations that make a Spring REST controller on their own.
    pub spring_rest_controller: Vec<String>,
    /// Class annotations that make a controller an entry only with a response-body marker.
    pub spring_controller: Vec<String>,
    /// Response-body markers (on the class or any method).
    pub spring_response_body: Vec<String>,
    /// Class annotations of JAX-RS root resources.
    pub jaxrs_resource: Vec<String>,
    /// Class annotations of the JAX-RS application.
    pub jaxrs_application: Vec<String>,
    /// Interfaces whose implementations are JDK handlers.
    pub jdk_handler_interfaces: Vec<String>,
    /// Suffixes tried after a spec tag for spec-first controllers.
    pub spec_first_suffixes: Vec<String>,
}

impl Default for EntryPatterns {
    fn default() -> Self {
        let v = |xs: &[&str]| xs.iter().map(|s| s.to_string()).collect();
        EntryPatterns {
            spring_rest_controller: v(&["RestController"]),
            spring_controller: v(&["Controller"]),
            spring_response_body: v(&["ResponseBody"]),
            jaxrs_resource: v(&["Path"]),
            jaxrs_application: v(&["ApplicationPath"]),
            jdk_handler_interfaces: v(&["HttpHandler"]),
            spec_first_suffixes: v(&["Controller", "Api"]),
        }
    }
}

/// One entry file and its framework.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct EntryFile {
    pub file: String,
    pub framework: Framework,
}

/// Return types that are the HTTP response itself: a plain `@Controller` method returning
/// one answers a body without `@ResponseBody` (it never names a view).
const RESPONSE_TYPES: [&str; 2] = ["ResponseEntity", "HttpEntity"];

/// Whether `m` returns the response itself rather than a view name.
pub fn returns_response(m: &super::java::Method) -> bool {
    m.return_type
        .as_deref()
        .map(|t| t.rsplit('.').next().unwrap_or(t))
        .is_some_and(|t| RESPONSE_TYPES.contains(&t))
}

fn has_any(names: &[String], ann: &[super::java::Annotation]) -> bool {
    ann.iter()
        .any(|a| names.iter().any(|n| n == a.simple_name()))
}

impl EntryPatterns {
    /// Whether `id` is a Spring controller serving response bodies.
    pub fn is_spring_controller(&self, index: &TypeIndex, id: TypeId) -> bool {
        let t = index.decl(id);
        if has_any(&self.spring_rest_controller, &t.annotations) {
            return true;
        }
        has_any(&self.spring_controller, &t.annotations)
            && (has_any(&self.spring_response_body, &t.annotations)
                || t.methods.iter().any(|m| {
                    has_any(&self.spring_response_body, &m.annotations) || returns_response(m)
                }))
    }

    /// Whether `id` is a JAX-RS root resource (class-level `@Path`).
    pub fn is_jaxrs_root(&self, index: &TypeIndex, id: TypeId) -> bool {
        has_any(&self.jaxrs_resource, &index.decl(id).annotations)
    }

    /// Whether `id` is the JAX-RS application class.
    pub fn is_jaxrs_application(&self, index: &TypeIndex, id: TypeId) -> bool {
        has_any(&self.jaxrs_application, &index.decl(id).annotations)
    }

    /// Whether `id` implements a JDK handler interface.
    pub fn is_jdk_handler(&self, index: &TypeIndex, id: TypeId) -> bool {
        index.decl(id).interfaces.iter().any(|i| {
            let simple = i.name.rsplit('.').next().unwrap_or(&i.name);
            self.jdk_handler_interfaces.iter().any(|n| n == simple)
        })
    }
}

/// `pet store` → `PetStore`: the class-name stem of a spec tag.
pub fn tag_stem(tag: &str) -> String {
    tag.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(|w| {
            let mut cs = w.chars();
            cs.next()
                .map(|c| c.to_uppercase().chain(cs).collect::<String>())
                .unwrap_or_default()
        })
        .collect()
}

/// The spec-first controller of `op`: the class named by `x-swagger-router-controller`, or
/// else `<Tag>Controller`/`<Tag>Api` with a method named like the `operationId`.
pub fn spec_first_controller(
    index: &TypeIndex,
    patterns: &EntryPatterns,
    op: &SpecOperation,
) -> Option<TypeId> {
    if let Some(name) = op
        .extensions
        .get("x-swagger-router-controller")
        .and_then(|v| v.as_str())
    {
        return index.by_fqn(name).or_else(|| {
            let simple = name.rsplit('.').next().unwrap_or(name);
            index.types_named(simple).first().copied()
        });
    }
    let op_id = op.operation_id.as_deref()?;
    op.tags.iter().find_map(|tag| {
        let stem = tag_stem(tag);
        patterns.spec_first_suffixes.iter().find_map(|suffix| {
            index
                .types_named(&format!("{stem}{suffix}"))
                .iter()
                .copied()
                .find(|id| index.decl(*id).methods.iter().any(|m| m.name == op_id))
        })
    })
}

/// The spec-first handler of `op` as (handler, entry file), or why there is none: `Err(Some)`
/// when a controller was named but lacks the `operationId` method, `Err(None)` when no
/// controller applies.
pub fn spec_first_match(
    index: &TypeIndex,
    patterns: &EntryPatterns,
    op: &SpecOperation,
) -> Result<(EntryRef, String), Option<String>> {
    let id = spec_first_controller(index, patterns, op).ok_or(None)?;
    let decl = index.decl(id);
    let file = index.files[id.file].path.clone();
    let Some(op_id) = op.operation_id.as_deref() else {
        return Err(Some(format!(
            "spec-first controller {} found but the operation has no operationId",
            decl.nested_name
        )));
    };
    let Some(m) = decl.methods.iter().find(|m| m.name == op_id) else {
        return Err(Some(format!(
            "spec-first controller {} ({file}) has no method {op_id}",
            decl.nested_name
        )));
    };
    Ok((
        EntryRef {
            file: file.clone(),
            class: decl.nested_name.clone(),
            method: m.name.clone(),
            line: m.line,
        },
        file,
    ))
}

/// All entry files, once per framework tag, sorted by path then tag.
pub fn detect(
    index: &TypeIndex,
    patterns: &EntryPatterns,
    ops: &[SpecOperation],
) -> Vec<EntryFile> {
    let mut out = BTreeSet::new();
    let mut add = |file: usize, framework| {
        out.insert(EntryFile {
            file: index.files[file].path.clone(),
            framework,
        });
    };
    for id in index.all_types() {
        if patterns.is_spring_controller(index, id) {
            add(id.file, Framework::Spring);
        }
        if patterns.is_jaxrs_root(index, id) || patterns.is_jaxrs_application(index, id) {
            add(id.file, Framework::Jaxrs);
        }
        if patterns.is_jdk_handler(index, id) {
            add(id.file, Framework::Jdk);
        }
    }
    for (fi, f) in index.files.iter().enumerate() {
        if f.creates_http_server || !f.contexts.is_empty() {
            add(fi, Framework::Jdk);
        }
        if !f.registered.is_empty() {
            add(fi, Framework::Router);
        }
    }
    for op in ops {
        if let Some(id) = spec_first_controller(index, patterns, op) {
            add(id.file, Framework::SpecFirst);
        }
    }
    let mut v: Vec<EntryFile> = out.into_iter().collect();
    v.sort_by(|a, b| (&a.file, a.framework).cmp(&(&b.file, b.framework)));
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::testutil::{op, parsed};

    #[test]
    fn detects_each_framework_once_per_tag() {
        let files = parsed(&[
            ("a/Rest.java", "@RestController class Rest {}"),
            (
                "a/Page.java",
                "@Controller class Page { String p() { return null; } }",
            ),
            (
                "a/Body.java",
                "@Controller class Body { @ResponseBody String p() { return null; } }",
            ),
            ("b/Res.java", "@Path(\"/x\") class Res {}"),
            (
                "b/Sub.java",
                "class Sub { @GET String g() { return null; } }",
            ),
            (
                "b/App.java",
                "@ApplicationPath(\"rest\") class App extends Application {}",
            ),
            (
                "c/H.java",
                "class H implements com.sun.net.httpserver.HttpHandler {}",
            ),
            (
                "c/Main.java",
                "class Main { void m() { s.createContext(\"/x\", e -> {}); } }",
            ),
            (
                "d/PetController.java",
                "class PetController { void addPet() {} }",
            ),
            ("d/StoreApi.java", "class StoreApi { void order() {} }"),
            ("d/Routed.java", "class Routed { void any() {} }"),
        ]);
        let index = TypeIndex::new(&files);
        let mut tagged = op("POST", "/pet");
        tagged.tags = vec!["pet".into()];
        tagged.operation_id = Some("addPet".into());
        let mut wrong_method = op("GET", "/store");
        wrong_method.tags = vec!["store".into()];
        wrong_method.operation_id = Some("missing".into());
        let mut routed = op("GET", "/r");
        routed
            .extensions
            .insert("x-swagger-router-controller".into(), "x.y.Routed".into());
        let got: Vec<(String, &str)> = detect(
            &index,
            &EntryPatterns::default(),
            &[tagged, wrong_method, routed],
        )
        .into_iter()
        .map(|e| (e.file, e.framework.tag()))
        .collect();
        let expected: Vec<(String, &str)> = [
            ("a/Body.java", "spring"),
            ("a/Rest.java", "spring"),
            ("b/App.java", "jaxrs"),
            ("b/Res.java", "jaxrs"),
            ("c/H.java", "jdk"),
            ("c/Main.java", "jdk"),
            ("d/PetController.java", "spec-first"),
            ("d/Routed.java", "spec-first"),
        ]
        .iter()
        .map(|(f, t)| (f.to_string(), *t))
        .collect();
        assert_eq!(got, expected);
    }

    #[test]
    fn spec_first_match_names_the_missing_method() {
        let files = parsed(&[(
            "c/Users.java",
            "package c; class Users { void listUsers() {} }",
        )]);
        let index = TypeIndex::new(&files);
        let mut op = op("DELETE", "/users/{id}");
        op.extensions
            .insert("x-swagger-router-controller".into(), "c.Users".into());
        op.operation_id = Some("listUsers".into());
        let (entry, file) = spec_first_match(&index, &EntryPatterns::default(), &op).unwrap();
        assert_eq!(
            (entry.class.as_str(), entry.method.as_str(), file.as_str()),
            ("Users", "listUsers", "c/Users.java")
        );
        op.operation_id = Some("deleteUser".into());
        let err = spec_first_match(&index, &EntryPatterns::default(), &op).unwrap_err();
        assert_eq!(
            err.as_deref(),
            Some("spec-first controller Users (c/Users.java) has no method deleteUser")
        );
        op.extensions.clear();
        assert_eq!(
            spec_first_match(&index, &EntryPatterns::default(), &op).unwrap_err(),
            None
        );
    }

    #[test]
    fn tag_stems() {
        assert_eq!(tag_stem("pet"), "Pet");
        assert_eq!(tag_stem("pet store"), "PetStore");
    }
}
