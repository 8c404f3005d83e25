//! Routes registered in code by method reference or lambda: a hand-written router on the
//! JDK server (`router.add("GET", "/api/events/{id}", this::get)`) or Javalin/Spark-style
//! `app.get("/path", ctx -> ..)` / `get("/path", Handlers::list)`.
//!
//! Without this, every operation of such a project maps to the router's own `handle`, and
//! the bundle is the router's closure instead of the handler's. The handler of a method
//! reference is that method (bundle: its class's closure); a lambda's handler is the method
//! registering it, at the lambda's line (bundle: the registering file's closure).

use super::jdk::{find_method, type_at};
use super::{PathMatcher, Route, segments};
use crate::model::EntryRef;
use crate::source::entries::Framework;
use crate::source::index::{TypeId, TypeIndex};
use crate::source::java::HandlerExpr;

/// `:id` (Javalin 3, Spark) and `<id>` (Javalin 4+) segments as `{id}` templates.
fn template(path: &str) -> String {
    path.split('/')
        .map(|s| {
            if let Some(v) = s.strip_prefix(':') {
                format!("{{{v}}}")
            } else if s.starts_with('<') && s.ends_with('>') && s.len() > 2 {
                format!("{{{}}}", &s[1..s.len() - 1])
            } else {
                s.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("/")
}

/// The class a method reference's target names: `this`, a type, or a field/local of a
/// known type (`handlers::list` with `private final EventHandlers handlers`).
fn target_type(index: &TypeIndex, ctx: TypeId, target: &str) -> Option<TypeId> {
    if target == "this" {
        return Some(ctx);
    }
    index.resolve_type(ctx.file, target).or_else(|| {
        let field = index.decl(ctx).fields.iter().find(|f| f.name == target)?;
        index.resolve_type(ctx.file, &field.ty)
    })
}

/// All routes registered by method reference or lambda.
pub(super) fn routes(index: &TypeIndex, warnings: &mut Vec<String>) -> Vec<Route> {
    let mut out = Vec::new();
    for (fi, file) in index.files.iter().enumerate() {
        for reg in &file.registered {
            let Some(ctx) = type_at(index, fi, reg.line) else {
                continue;
            };
            // Not a route unless the path is a string starting with `/`.
            let Some(path) = index
                .resolve_string(ctx, &reg.path)
                .filter(|p| p.starts_with('/'))
            else {
                continue;
            };
            let path = template(&path);
            let (handler, entry_file) = match &reg.handler {
                HandlerExpr::MethodRef { target, method } => {
                    let found = target_type(index, ctx, target)
                        .and_then(|owner| find_method(index, owner, method).map(|m| (owner, m)));
                    let Some((owner, (declared, m))) = found else {
                        warnings.push(format!(
                            "{}:{}: handler {target}::{method} for {} {path} not found",
                            file.path, reg.line, reg.method
                        ));
                        continue;
                    };
                    let handler = EntryRef {
                        file: index.files[declared.file].path.clone(),
                        class: index.decl(owner).nested_name.clone(),
                        method: m.name.clone(),
                        line: m.line,
                    };
                    (handler, index.files[owner.file].path.clone())
                }
                HandlerExpr::Lambda { .. } => {
                    let handler = EntryRef {
                        file: file.path.clone(),
                        class: index.decl(ctx).nested_name.clone(),
                        method: reg.enclosing.clone().unwrap_or_else(|| "<init>".into()),
                        line: reg.line,
                    };
                    (handler, file.path.clone())
                }
                _ => continue,
            };
            out.push(Route {
                method: Some(reg.method.clone()),
                matcher: PathMatcher::Template(segments(&path)),
                path,
                handler,
                entry_file,
                framework: Framework::Router,
                dispatcher: None,
            });
        }
    }
    out
}
