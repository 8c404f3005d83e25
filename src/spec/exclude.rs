//! Marks framework endpoints (Spring actuator, `/error`) so they are reported but not
//! sent to the oracle generators: they test the framework, not the API.
//!
//! Patterns are path globs: `*` matches one segment, `**` any number of segments
//! (including none). Operations are marked, never removed.

use crate::model::SpecOperation;

/// The framework endpoints excluded by default.
pub const DEFAULT_EXCLUSIONS: [&str; 22] = [
    "/actuator",
    "/actuator/**",
    "/health",
    "/health/**",
    "/metrics",
    "/metrics/**",
    "/env",
    "/env/**",
    "/mappings",
    "/beans",
    "/info",
    "/configprops",
    "/dump",
    "/trace",
    "/autoconfig",
    "/heapdump",
    "/loggers",
    "/loggers/**",
    "/threaddump",
    "/auditevents",
    "/jolokia/**",
    "/error",
];

/// A set of path-glob exclusions, optionally relative to a base path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Exclusions {
    patterns: Vec<(String, Vec<String>)>,
    base_path: Option<String>,
}

impl Default for Exclusions {
    /// The framework endpoints of [`DEFAULT_EXCLUSIONS`].
    fn default() -> Self {
        Self::from_patterns(DEFAULT_EXCLUSIONS.iter().map(|s| s.to_string()).collect())
    }
}

impl Exclusions {
    /// Exclusions from user patterns (e.g. a config file); a missing leading `/` is
    /// implied and empty patterns are ignored.
    pub fn from_patterns(patterns: Vec<String>) -> Self {
        let patterns = patterns
            .into_iter()
            .map(|p| p.trim().to_string())
            .filter(|p| !p.is_empty())
            .map(|p| {
                let segs = segments(&p).into_iter().map(str::to_string).collect();
                let shown = if p.starts_with('/') {
                    p
                } else {
                    format!("/{p}")
                };
                (shown, segs)
            })
            .collect();
        Exclusions {
            patterns,
            base_path: None,
        }
    }

    /// Also matches operation paths with this prefix stripped (Swagger `basePath`, server
    /// URL path), so `/api/actuator/health` is caught by `/actuator/**` under `/api`.
    pub fn with_base_path(mut self, base_path: Option<&str>) -> Self {
        self.base_path = base_path
            .map(|b| b.trim_end_matches('/').to_string())
            .filter(|b| !b.is_empty());
        self
    }

    /// The patterns as written (with a leading `/`).
    pub fn patterns(&self) -> impl Iterator<Item = &str> {
        self.patterns.iter().map(|(p, _)| p.as_str())
    }

    /// The first pattern matching `path`, if any.
    pub fn matching(&self, path: &str) -> Option<&str> {
        let full = segments(path);
        let stripped = self.base_path.as_deref().and_then(|b| {
            let base = segments(b);
            full.starts_with(&base).then(|| full[base.len()..].to_vec())
        });
        self.patterns
            .iter()
            .find(|(_, pat)| {
                glob_match(pat, &full) || stripped.as_ref().is_some_and(|s| glob_match(pat, s))
            })
            .map(|(p, _)| p.as_str())
    }

    /// Sets `excluded` on every matching operation not already excluded, with the
    /// pattern as the reason. Returns how many were newly marked.
    pub fn apply(&self, ops: &mut [SpecOperation]) -> usize {
        let mut count = 0;
        for op in ops.iter_mut().filter(|o| o.excluded.is_none()) {
            if let Some(pat) = self.matching(&op.path) {
                op.excluded = Some(format!(
                    "framework endpoint: matches exclusion pattern {pat}"
                ));
                count += 1;
            }
        }
        count
    }
}

fn segments(path: &str) -> Vec<&str> {
    path.split('/').filter(|s| !s.is_empty()).collect()
}

fn glob_match<S: AsRef<str>, T: AsRef<str>>(pat: &[S], path: &[T]) -> bool {
    match pat.split_first() {
        None => path.is_empty(),
        Some((first, rest)) if first.as_ref() == "**" => {
            (0..=path.len()).any(|i| glob_match(rest, &path[i..]))
        }
        Some((first, rest)) => match path.split_first() {
            Some((seg, prest)) => {
                (first.as_ref() == "*" || first.as_ref() == seg.as_ref()) && glob_match(rest, prest)
            }
            None => false,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(pat: &str, path: &str) -> bool {
        glob_match(&segments(pat), &segments(path))
    }

    #[test]
    fn globs() {
        assert!(m("/actuator/**", "/actuator"));
        assert!(m("/actuator/**", "/actuator/health/liveness"));
        assert!(!m("/actuator/**", "/actuators"));
        assert!(m("/a/*/c", "/a/{id}/c"));
        assert!(!m("/a/*/c", "/a/b/d/c"));
        assert!(m("/**/health", "/x/y/health"));
        assert!(!m("/error", "/errors"));
    }
}
