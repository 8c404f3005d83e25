//! Filesystem-safe, stable names for operation, group and call ids.
//!
//! `GET /pets/{id}` becomes `get_pets_id-1a2b3c4d`: a readable part (lower-case ASCII
//! letters and digits, every other run of characters folded to `_`, cut at
//! [`MAX_READABLE`] bytes) plus the first 8 hex digits of the SHA-256 of the exact id.
//! The readable part lets a human find the file; the hash keeps ids that fold to the same
//! text (`/a-b` vs `/a_b`, `GET` vs `get`, very long paths) apart. The same id always gives
//! the same slug, on every platform and in every version with this schema.

use sha2::{Digest, Sha256};

/// Longest readable prefix kept, so names stay well under file-name limits.
pub const MAX_READABLE: usize = 64;

/// Longest readable part of an [`id_file_stem`], so a name with its hash suffix and
/// extension stays far below the usual 255-byte file-name limit.
pub const MAX_STEM_READABLE: usize = 80;

/// Slug of an operation id (works for any id: groups, calls).
pub fn op_slug(op_id: &str) -> String {
    let mut readable = String::with_capacity(op_id.len().min(MAX_READABLE));
    let mut pending_sep = false;
    for c in op_id.chars() {
        if c.is_ascii_alphanumeric() {
            if pending_sep && !readable.is_empty() {
                readable.push('_');
            }
            pending_sep = false;
            if readable.len() >= MAX_READABLE {
                break;
            }
            readable.push(c.to_ascii_lowercase());
        } else {
            pending_sep = true;
        }
    }
    if readable.is_empty() {
        readable.push_str("op");
    }
    let digest = Sha256::digest(op_id.as_bytes());
    format!("{readable}-{}", &hex::encode(digest)[..8])
}

/// File stem for any per-id file whose readable part should keep the id's case, `-` and
/// `_` (metamorphic tests: `x/y` → `x_y-<hash>`). The readable part is cut at
/// [`MAX_STEM_READABLE`] characters and the first 8 hex digits of the SHA-256 of the
/// exact id follow, so ids that fold to the same text, or share a long prefix, never
/// share a file, and no id is too long for the file system.
pub fn id_file_stem(id: &str) -> String {
    let readable: String = id
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .take(MAX_STEM_READABLE)
        .collect();
    let digest = Sha256::digest(id.as_bytes());
    format!("{readable}-{}", &hex::encode(digest)[..8])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn id_file_stems_are_distinct_and_capped() {
        assert_ne!(id_file_stem("x/y"), id_file_stem("x_y"));
        assert!(id_file_stem("x/y").starts_with("x_y-"));
        let long = "z".repeat(300);
        assert_eq!(id_file_stem(&long).len(), MAX_STEM_READABLE + 9);
        assert_ne!(id_file_stem(&long), id_file_stem(&"z".repeat(301)));
    }
}
