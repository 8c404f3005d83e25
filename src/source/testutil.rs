//! Helpers for unit tests over small inline Java projects.

use super::java::{JavaFile, SourceText, parse_all};
use crate::model::SpecOperation;

/// Parses `(path, text)` pairs.
pub fn parsed(files: &[(&str, &str)]) -> Vec<JavaFile> {
    let sources: Vec<SourceText> = files
        .iter()
        .map(|(p, t)| SourceText {
            path: p.to_string(),
            text: t.to_string(),
        })
        .collect();
    parse_all(&sources)
}

/// A bare spec operation.
pub fn op(method: &str, path: &str) -> SpecOperation {
    SpecOperation {
        op_id: crate::model::op_id(method, path),
        method: method.to_string(),
        path: path.to_string(),
        operation_id: None,
        tags: Vec::new(),
        summary: None,
        parameters: Vec::new(),
        request_body: None,
        responses: Default::default(),
        extensions: Default::default(),
        excluded: None,
    }
}
