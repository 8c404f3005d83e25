//! The character encoding of the project's Java sources (`mutate --encoding`).
//!
//! A mutant is an edit at byte offsets of the decoded text, written back in the same
//! encoding so the compiler reads every other byte as before. UTF-8 (the default) and
//! ISO-8859-1 (Latin-1, every byte one character) are supported: they are what `javac
//! -encoding` is given in practice for a legacy project. A file that does not decode
//! in the chosen encoding is not mutated, and named with the reason.

use crate::mutate::error::MutateError;
use std::fmt;
use std::str::FromStr;

/// A source encoding.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Encoding {
    #[default]
    Utf8,
    Latin1,
}

impl Encoding {
    /// The name `javac -encoding` takes.
    pub fn javac_name(self) -> &'static str {
        match self {
            Encoding::Utf8 => "UTF-8",
            Encoding::Latin1 => "ISO-8859-1",
        }
    }

    /// Decodes a file's bytes; `Err` says where it is not valid.
    pub fn decode(self, bytes: Vec<u8>) -> Result<String, String> {
        match self {
            Encoding::Utf8 => String::from_utf8(bytes).map_err(|e| {
                format!(
                    "not valid UTF-8 (first bad byte at offset {}); pass --encoding ISO-8859-1 \
                     if the build reads it so",
                    e.utf8_error().valid_up_to()
                )
            }),
            Encoding::Latin1 => Ok(bytes.into_iter().map(char::from).collect()),
        }
    }

    /// Encodes text back; `Err` names a character the encoding cannot hold.
    pub fn encode(self, text: &str) -> Result<Vec<u8>, String> {
        match self {
            Encoding::Utf8 => Ok(text.as_bytes().to_vec()),
            Encoding::Latin1 => text
                .chars()
                .map(|c| {
                    u8::try_from(u32::from(c))
                        .map_err(|_| format!("{c:?} cannot be written in ISO-8859-1"))
                })
                .collect(),
        }
    }

    /// Reads and decodes a file.
    pub fn read(self, path: &std::path::Path) -> Result<String, MutateError> {
        let bytes = std::fs::read(path).map_err(|e| MutateError::io("read", path, e))?;
        self.decode(bytes).map_err(|reason| MutateError::Encoding {
            path: path.to_path_buf(),
            reason,
        })
    }
}

impl FromStr for Encoding {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s.to_ascii_lowercase().replace('_', "-").as_str() {
            "utf-8" | "utf8" => Ok(Encoding::Utf8),
            "iso-8859-1" | "iso8859-1" | "latin1" | "latin-1" => Ok(Encoding::Latin1),
            other => Err(format!(
                "unknown encoding `{other}`: UTF-8 and ISO-8859-1 (latin1) are supported"
            )),
        }
    }
}

impl fmt::Display for Encoding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.javac_name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn latin1_round_trips_every_byte_and_utf8_refuses_it() {
        let bytes: Vec<u8> = b"// caf\xe9\nclass A {}".to_vec();
        let text = Encoding::Latin1.decode(bytes.clone()).unwrap();
        assert!(text.contains('é'));
        assert_eq!(Encoding::Latin1.encode(&text).unwrap(), bytes);
        let err = Encoding::Utf8.decode(bytes).unwrap_err();
        assert!(err.contains("offset 6"), "{err}");
        assert!(Encoding::Latin1.encode("€").is_err());
        assert_eq!("latin1".parse::<Encoding>(), Ok(Encoding::Latin1));
        assert!("koi8-r".parse::<Encoding>().is_err());
    }
}
