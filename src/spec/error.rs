//! Errors of the spec loader. Every variant names the file it is about, so a message
//! printed on its own tells the user where to look.

use std::path::PathBuf;

/// Why a spec could not be found or loaded.
///
/// Typed (not a string) so the CLI can map each case to its own hint and exit code.
#[derive(Debug, thiserror::Error)]
pub enum SpecError {
    /// The file (or project folder) is missing or cannot be read.
    #[error("cannot read {}: {source}", file.display())]
    Io {
        file: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// The file is neither valid JSON nor valid YAML.
    #[error("{}:{line}:{column}: not valid {format}: {message}", file.display())]
    Parse {
        file: PathBuf,
        /// "JSON" or "YAML", whichever parser was used.
        format: &'static str,
        /// 1-based; 0 when the parser gave no position.
        line: usize,
        /// 1-based; 0 when the parser gave no position.
        column: usize,
        message: String,
    },
    /// Valid JSON/YAML, but not a Swagger/OpenAPI document.
    #[error("{} is not an OpenAPI/Swagger spec: {reason}", file.display())]
    NotASpec { file: PathBuf, reason: String },
    /// A Swagger/OpenAPI version this loader does not read (e.g. Swagger 1.2).
    #[error(
        "{}: spec version {version} is not supported (supported: Swagger 2.0, OpenAPI 3.0 and 3.1)",
        file.display()
    )]
    UnsupportedVersion { file: PathBuf, version: String },
    /// A `$ref` that points nowhere.
    #[error("{}: unresolved $ref \"{reference}\" used at {used_at}", file.display())]
    UnresolvedRef {
        file: PathBuf,
        reference: String,
        /// JSON pointer of the place the reference was used, e.g. `/paths/~1pets/get/...`.
        used_at: String,
    },
    /// No spec file under the project root.
    #[error(
        "no OpenAPI/Swagger spec found under {}; searched: {}",
        root.display(),
        searched.join(", ")
    )]
    NotFound {
        root: PathBuf,
        searched: Vec<String>,
    },
}
