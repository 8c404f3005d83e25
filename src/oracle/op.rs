//! The `METHOD /path` form of an operation id, checked without any HTTP library, so
//! suite files are validated without the runner.

/// Splits `op_id` into its upper-cased method and its path template; the method must be a
/// token of letters, the path must start with `/`.
pub fn split(op_id: &str) -> Result<(String, &str), String> {
    let (method, path) = op_id
        .trim()
        .split_once(char::is_whitespace)
        .ok_or_else(|| format!("op_id `{op_id}` is not `METHOD /path`"))?;
    let path = path.trim();
    if !path.starts_with('/') {
        return Err(format!("op_id `{op_id}`: the path must start with `/`"));
    }
    if method.is_empty() || !method.chars().all(|c| c.is_ascii_alphabetic()) {
        return Err(format!("op_id `{op_id}`: `{method}` is not an HTTP method"));
    }
    Ok((method.to_ascii_uppercase(), path))
}

#[cfg(test)]
mod tests {
    use super::split;

    #[test]
    fn method_and_template() {
        assert_eq!(
            split(" get  /pets/{id} ").unwrap(),
            ("GET".to_string(), "/pets/{id}")
        );
        assert!(
            split("GET pets")
                .unwrap_err()
                .contains("must start with `/`")
        );
        assert!(
            split("/pets")
                .unwrap_err()
                .contains("is not `METHOD /path`")
        );
        assert!(
            split("G3T /pets")
                .unwrap_err()
                .contains("not an HTTP method")
        );
    }
}
