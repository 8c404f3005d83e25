//! Path templates: normalisation and segment splitting shared by code and spec paths.

/// One path segment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Seg {
    Lit(String),
    /// A template variable; names and regexes do not matter for matching.
    Var(String),
}

/// Splits on `/` outside `{...}` (regexes may contain `/` or braces).
fn split_raw(path: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut depth = 0usize;
    for c in path.chars() {
        match c {
            '{' => {
                depth += 1;
                cur.push(c);
            }
            '}' => {
                depth = depth.saturating_sub(1);
                cur.push(c);
            }
            '/' if depth == 0 => {
                if !cur.is_empty() {
                    out.push(std::mem::take(&mut cur));
                }
            }
            _ => cur.push(c),
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// Segments of a path: `{name: regex}` → `Var(name)`, everything else literal.
pub fn segments(path: &str) -> Vec<Seg> {
    split_raw(path)
        .into_iter()
        .map(|s| {
            if s.starts_with('{') && s.ends_with('}') {
                let inner = &s[1..s.len() - 1];
                let name = inner.split(':').next().unwrap_or(inner).trim();
                Seg::Var(name.to_string())
            } else {
                Seg::Lit(s)
            }
        })
        .collect()
}

/// Leading slash, no doubled or trailing slashes, `{v:regex}` shortened to `{v}`.
pub fn normalize(path: &str) -> String {
    let segs = segments(path);
    if segs.is_empty() {
        return "/".to_string();
    }
    segs.iter()
        .map(|s| match s {
            Seg::Lit(l) => format!("/{l}"),
            Seg::Var(v) => format!("/{{{v}}}"),
        })
        .collect()
}

/// Joins path pieces (`/rest` + `v1/` + `/alpha`) and normalises the result.
pub fn join(parts: &[&str]) -> String {
    normalize(&parts.join("/"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalises_slashes_and_regex_vars() {
        assert_eq!(normalize("products//{variant:.+}/"), "/products/{variant}");
        assert_eq!(normalize(""), "/");
        assert_eq!(
            join(&["rest", "/v1/", "region/{region: [a-z]{2,}}"]),
            "/rest/v1/region/{region}"
        );
    }

    #[test]
    fn segments_keep_literals() {
        assert_eq!(
            segments("/a/{id:\\d+}"),
            vec![Seg::Lit("a".into()), Seg::Var("id".into())]
        );
    }
}
