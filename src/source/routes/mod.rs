//! Static route pre-match: full routes composed from the code, matched to spec operations.
//!
//! Each framework module (`spring`, `jaxrs`, `jdk`) turns annotations or dispatch chains
//! into [`Route`]s; [`match_operations`] then assigns each spec operation its handler or a
//! reason why none was found. In the pipeline this is a hint and a cross-check for the
//! LLM's OAS matching (docs/ARCHITECTURE.md section 2), not a replacement for it.

mod jaxrs;
mod jdk;
mod matching;
mod path;
mod registered;
mod spring;

pub use matching::{OpMatch, match_operations};
pub use path::{Seg, normalize, segments};

use super::entries::{EntryPatterns, Framework};
use super::index::TypeIndex;
use super::java::Cond;
use crate::model::EntryRef;

/// How a route decides whether it serves a request path.
#[derive(Debug, Clone, PartialEq)]
pub enum PathMatcher {
    /// An annotation-composed template, segment by segment.
    Template(Vec<Seg>),
    /// A JDK context plus the dispatch conditions of one branch.
    Jdk { context: String, conds: Vec<Cond> },
}

/// One route found in the code.
#[derive(Debug, Clone, PartialEq)]
pub struct Route {
    /// Upper-case HTTP method; `None` serves every method.
    pub method: Option<String>,
    /// Normalised display path (`/rest/v1/alpha/{}` style templates keep their names).
    pub path: String,
    pub matcher: PathMatcher,
    /// Where the serving method is declared, and the concrete class serving it.
    pub handler: EntryRef,
    /// The file whose closure is the bundle: concrete controller, root resource, handler.
    pub entry_file: String,
    pub framework: Framework,
    /// The method the framework calls for every request of a JDK context (`handle`, the
    /// registered method or lambda), which dispatches further: where an operation falls
    /// back to when its branch cannot be resolved. `None` for annotation routes.
    pub dispatcher: Option<EntryRef>,
}

impl Route {
    /// `GET /x` for messages (`*` when the route serves every method).
    pub fn display(&self) -> String {
        format!("{} {}", self.method.as_deref().unwrap_or("*"), self.path)
    }
}

/// Every route of the project, plus warnings about mappings that could not be resolved.
pub fn compose_routes(index: &TypeIndex, patterns: &EntryPatterns) -> (Vec<Route>, Vec<String>) {
    let mut warnings = Vec::new();
    let mut routes = spring::routes(index, patterns, &mut warnings);
    routes.extend(jaxrs::routes(index, patterns, &mut warnings));
    routes.extend(registered::routes(index, &mut warnings));
    routes.extend(jdk::routes(index, &mut warnings));
    // An unresolvable value on a base class repeats for every subclass: say it once.
    let mut seen = std::collections::HashSet::new();
    warnings.retain(|w| seen.insert(w.clone()));
    (routes, warnings)
}

#[cfg(test)]
mod tests;
