//! Which base URL an oracle run uses: the one typed (with `http://` added to a bare
//! host), or, for the run-again keys, the one remembered (last used here, then
//! `--api-url`, then the URL the oracle's or the session's latest verdict was run on).

use super::state::App;

/// The base URL to run `only` against again without asking, if one is known.
pub fn known(app: &App, only: &[String]) -> Option<String> {
    app.jobs
        .last_api_url
        .clone()
        .or_else(|| app.jobs.api_url.clone())
        .or_else(|| {
            only.iter()
                .find_map(|o| app.view.verdict_details.get(o).map(|v| v.base_url.clone()))
        })
        .or_else(|| {
            // The session's most recent run.
            app.view
                .verdict_details
                .values()
                .max_by(|a, b| a.at.cmp(&b.at))
                .map(|v| v.base_url.clone())
        })
}

/// `url` with `http://` in front when it names no scheme but a host (`127.0.0.1:8080`,
/// `api.local/v2`, `localhost`); whether it was added. A bare word is left alone, to be
/// refused with a hint rather than taken for a host name.
pub fn with_scheme(url: &str) -> (String, bool) {
    let url = url.trim();
    let host = url.split('/').next().unwrap_or("");
    let hostlike = host.contains(['.', ':']) || host.eq_ignore_ascii_case("localhost");
    if url.contains("://") || !hostlike {
        (url.to_string(), false)
    } else {
        (format!("http://{url}"), true)
    }
}

#[cfg(test)]
mod tests {
    use super::with_scheme;

    #[test]
    fn a_host_without_a_scheme_gets_http() {
        assert_eq!(
            with_scheme(" 127.0.0.1:1 "),
            ("http://127.0.0.1:1".into(), true)
        );
        assert_eq!(with_scheme("localhost"), ("http://localhost".into(), true));
        assert_eq!(
            with_scheme("api.local/v2"),
            ("http://api.local/v2".into(), true)
        );
        assert_eq!(
            with_scheme("https://x.org"),
            ("https://x.org".into(), false)
        );
        assert_eq!(with_scheme("nope"), ("nope".into(), false));
        assert_eq!(with_scheme(""), (String::new(), false));
    }
}
