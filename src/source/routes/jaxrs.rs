//! JAX-RS routes: `@ApplicationPath` + class `@Path` + method `@Path`, with verb
//! annotations, and sub-resource locators followed through their return types.

use super::path::join;
use super::spring::{annotation_paths, served_methods};
use super::{PathMatcher, Route, segments};
use crate::model::EntryRef;
use crate::source::entries::{EntryPatterns, Framework};
use crate::source::index::{TypeId, TypeIndex};
use crate::source::java::Method;

const VERBS: [&str; 7] = ["GET", "POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS"];

/// Locator chains deeper than this are cut (they are cycles in practice).
const MAX_LOCATOR_DEPTH: usize = 8;

fn verb_of(m: &Method) -> Option<&'static str> {
    VERBS
        .iter()
        .copied()
        .find(|v| m.annotations.iter().any(|a| a.simple_name() == *v))
}

fn is_resource_method(m: &Method) -> bool {
    verb_of(m).is_some() || m.annotation("Path").is_some()
}

/// All JAX-RS routes of the project.
pub(super) fn routes(
    index: &TypeIndex,
    patterns: &EntryPatterns,
    warnings: &mut Vec<String>,
) -> Vec<Route> {
    let app_path = index
        .all_types()
        .find_map(|id| {
            let ann = patterns
                .jaxrs_application
                .iter()
                .find_map(|n| index.decl(id).annotation(n))?;
            annotation_paths(index, id, ann, &["value"], warnings)
                .into_iter()
                .next()
        })
        .unwrap_or_default();
    let mut out = Vec::new();
    for id in index.all_types() {
        let decl = index.decl(id);
        if decl.is_abstract {
            continue;
        }
        let Some(ann) = patterns
            .jaxrs_resource
            .iter()
            .find_map(|n| decl.annotation(n))
        else {
            continue;
        };
        let entry_file = index.files[id.file].path.clone();
        for class_path in annotation_paths(index, id, ann, &["value"], warnings) {
            let prefix = join(&[&app_path, &class_path]);
            let mut chain = vec![id];
            resource(
                index,
                id,
                &prefix,
                &entry_file,
                &mut chain,
                &mut out,
                warnings,
            );
        }
    }
    out
}

/// Routes of resource `id` mounted at `prefix`; `chain` guards against locator cycles.
fn resource(
    index: &TypeIndex,
    id: TypeId,
    prefix: &str,
    entry_file: &str,
    chain: &mut Vec<TypeId>,
    out: &mut Vec<Route>,
    warnings: &mut Vec<String>,
) {
    let decl = index.decl(id);
    for served in served_methods(index, id, is_resource_method) {
        let paths = match served.mapping.annotation("Path") {
            Some(a) => annotation_paths(index, served.declared_in, a, &["value"], warnings),
            None => vec![String::new()],
        };
        match verb_of(served.mapping) {
            Some(verb) => {
                for p in paths {
                    let path = join(&[prefix, &p]);
                    out.push(Route {
                        method: Some(verb.to_string()),
                        matcher: PathMatcher::Template(segments(&path)),
                        path,
                        handler: EntryRef {
                            file: index.files[served.implemented_in.file].path.clone(),
                            class: decl.nested_name.clone(),
                            method: served.implementation.name.clone(),
                            line: served.implementation.line,
                        },
                        entry_file: entry_file.to_string(),
                        framework: Framework::Jaxrs,
                        dispatcher: None,
                    });
                }
            }
            None => {
                let ret = served.mapping.return_type.as_deref().unwrap_or_default();
                let Some(sub) = index.resolve_type(served.declared_in.file, ret) else {
                    warnings.push(format!(
                        "{}: sub-resource locator {}.{} returns {ret}, not a project class",
                        index.files[served.declared_in.file].path,
                        index.decl(served.declared_in).nested_name,
                        served.mapping.name
                    ));
                    continue;
                };
                if chain.contains(&sub) || chain.len() > MAX_LOCATOR_DEPTH {
                    continue;
                }
                for p in paths {
                    chain.push(sub);
                    let path = join(&[prefix, &p]);
                    resource(index, sub, &path, entry_file, chain, out, warnings);
                    chain.pop();
                }
            }
        }
    }
}
