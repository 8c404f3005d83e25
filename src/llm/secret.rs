//! A secret string (API key) that never shows itself: Debug, Display and Serialize all
//! print a masked form such as `sk-…abcd`. Only [`Secret::expose`] gives the value, and
//! only the HTTP layer calls it. This module does not load keys; `config` does.

use serde::{Serialize, Serializer};
use std::fmt;

/// An API key. Masked everywhere it could be printed or written.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    /// Wraps a key (surrounding whitespace, e.g. a key file's newline, is dropped).
    pub fn new(value: impl Into<String>) -> Self {
        Self(value.into().trim().to_string())
    }

    /// The raw value, for the `Authorization` header only.
    pub fn expose(&self) -> &str {
        &self.0
    }

    /// The masked form: a short known prefix (`sk-`) and the last four characters, or
    /// only stars when the key is too short to show anything safely.
    pub fn masked(&self) -> String {
        let chars: Vec<char> = self.0.chars().collect();
        if chars.len() < 12 {
            return "****".to_string();
        }
        let prefix: String = if self.0.starts_with("sk-") {
            "sk-".into()
        } else {
            String::new()
        };
        let tail: String = chars[chars.len() - 4..].iter().collect();
        format!("{prefix}…{tail}")
    }

    /// True when the key is empty.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Secret({})", self.masked())
    }
}

impl fmt::Display for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.masked())
    }
}

impl Serialize for Secret {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.masked())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn masks_everywhere() {
        let s = Secret::new("sk-test-SECRET123abcd\n");
        assert_eq!(s.expose(), "sk-test-SECRET123abcd");
        assert_eq!(s.masked(), "sk-…abcd");
        assert_eq!(format!("{s}"), "sk-…abcd");
        assert!(!format!("{s:?}").contains("SECRET"));
        let json = serde_json::to_string(&s).unwrap();
        assert_eq!(json, "\"sk-…abcd\"");
    }

    #[test]
    fn short_keys_show_nothing() {
        assert_eq!(Secret::new("abc").masked(), "****");
        assert_eq!(Secret::new("plainkey0123456").masked(), "…3456");
    }
}
