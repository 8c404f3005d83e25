//! Names and literals for the generated Java: identifiers from operation ids, class names
//! that fit file-name limits and the launchers' patterns, string literals and comment text
//! that compile whatever the platform encoding, and the `--package` check.

use super::ExportError;
use std::collections::BTreeSet;
use std::fmt::Write as _;

/// Java's reserved words and literals, which no package segment may be.
const RESERVED: &str = "abstract assert boolean break byte case catch char class const \
    continue default do double else enum extends final finally float for goto if \
    implements import instanceof int interface long native new package private protected \
    public return short static strictfp super switch synchronized this throw throws \
    transient try void volatile while true false null";

/// Checks a `--package` value: dot-separated Java identifiers, none a reserved word.
pub fn check_package(package: &str) -> Result<(), ExportError> {
    let bad = |reason: String| ExportError::BadOption {
        option: "--package",
        reason,
    };
    for segment in package.split('.') {
        let valid = segment
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || c == '$')
            && segment
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$');
        if !valid {
            return Err(bad(format!(
                "'{}' is not a Java package name: '{}' is not an identifier (ASCII letters, \
                 digits, _ and $, not starting with a digit)",
                crate::text::escape_controls(package),
                crate::text::escape_controls(segment)
            )));
        }
        if RESERVED.split_whitespace().any(|w| w == segment) {
            return Err(bad(format!(
                "'{package}' is not a Java package name: '{segment}' is a reserved word"
            )));
        }
    }
    Ok(())
}

/// A Java string literal. Non-ASCII and control characters become `\uXXXX` escapes so the
/// source compiles whatever the platform encoding.
pub fn java_str(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c.is_ascii() && !c.is_ascii_control() => out.push(c),
            c => {
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    let _ = write!(out, "\\u{unit:04x}");
                }
            }
        }
    }
    out.push('"');
    out
}

/// Text safe inside a Java comment: one line, no `*/`, backslashes doubled (javac reads
/// `\u` escapes even in comments), non-ASCII escaped.
pub(super) fn comment(text: &str) -> String {
    let flat: String = text
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    let mut out = String::new();
    for c in flat.replace("*/", "* /").chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            c if c.is_ascii() => out.push(c),
            c => {
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    let _ = write!(out, "\\u{unit:04x}");
                }
            }
        }
    }
    out
}

/// `GET /pets/{petId}` → `GetPetsPetId`: a Java identifier from the words of a text.
pub fn camel(text: &str) -> String {
    let mut out = String::new();
    for word in text.split(|c: char| !c.is_ascii_alphanumeric()) {
        // `GET` reads as `Get`; `petId` keeps its inner capitals.
        let shouting = word.chars().all(|c| !c.is_ascii_lowercase());
        let mut chars = word.chars();
        if let Some(first) = chars.next() {
            out.push(first.to_ascii_uppercase());
            if shouting {
                out.extend(chars.map(|c| c.to_ascii_lowercase()));
            } else {
                out.extend(chars);
            }
        }
    }
    if out.is_empty() || out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert(0, 'X');
    }
    out
}

/// Longest generated class name: `<Class>.java` must fit file-name limits (255 bytes on
/// most file systems) however long the operation path is.
pub const MAX_CLASS_NAME: usize = 100;

/// `prefix` + [`camel`]`(id)` + `Test`; a name longer than [`MAX_CLASS_NAME`] is cut and
/// ends in `_` + 8 hex digits of the SHA-256 of `id`, so two long paths sharing a prefix
/// still get different classes.
pub fn class_name(prefix: &str, id: &str) -> String {
    use sha2::{Digest, Sha256};
    let name = format!("{prefix}{}Test", camel(id));
    if name.len() <= MAX_CLASS_NAME {
        return name;
    }
    let hash = &hex::encode(Sha256::digest(id.as_bytes()))[..8];
    // `camel` yields ASCII only, so any byte index is a character boundary.
    format!("{}_{hash}Test", &name[..MAX_CLASS_NAME - 13])
}

/// `fv-list all` → `fv_list_all`: a Java identifier fragment.
pub(super) fn snake(text: &str) -> String {
    let out: String = text
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    if out.is_empty() { "oracle".into() } else { out }
}

/// `base`, or `base2`, `base3`... whichever is not taken yet; records the result. The
/// number goes before a trailing `Test`/`Tests` (`GetPets2Test`), so the class still
/// matches the JUnit console launcher's and Surefire's default class-name patterns
/// (`GetPetsTest2` would be skipped silently by both).
pub(super) fn unique(taken: &mut BTreeSet<String>, base: String) -> String {
    let (stem, suffix) = ["Tests", "Test"]
        .iter()
        .find_map(|s| base.strip_suffix(s).map(|stem| (stem.to_string(), *s)))
        .unwrap_or((base.clone(), ""));
    let mut name = base.clone();
    let mut n = 2;
    while taken.contains(&name) {
        name = format!("{stem}{n}{suffix}");
        n += 1;
    }
    taken.insert(name.clone());
    name
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn class_names_are_identifiers() {
        assert_eq!(camel("GET /pets/{petId}/status"), "GetPetsPetIdStatus");
        assert_eq!(camel("1 thing"), "X1Thing");
        let mut taken = BTreeSet::new();
        assert_eq!(unique(&mut taken, "A".into()), "A");
        assert_eq!(unique(&mut taken, "A".into()), "A2");
        // Numbered classes keep the `Test`/`Tests` suffix the launchers look for.
        assert_eq!(unique(&mut taken, "GetPetsTest".into()), "GetPetsTest");
        assert_eq!(unique(&mut taken, "GetPetsTest".into()), "GetPets2Test");
        assert_eq!(unique(&mut taken, "GetPetsTest".into()), "GetPets3Test");
        assert_eq!(unique(&mut taken, "MrTests".into()), "MrTests");
        assert_eq!(unique(&mut taken, "MrTests".into()), "Mr2Tests");
        let long = format!("GET /{}", "x".repeat(300));
        let name = class_name("", &long);
        assert_eq!(name.len(), MAX_CLASS_NAME);
        assert!(
            name.starts_with("GetXxx") && name.ends_with("Test"),
            "{name}"
        );
        assert_ne!(name, class_name("", &format!("{long}y")));
        assert_eq!(class_name("Group", "pets"), "GroupPetsTest");
    }

    #[test]
    fn packages_must_be_java_names() {
        assert!(check_package("com.acme.api").is_ok());
        assert!(check_package("mastor.suite").is_ok());
        for bad in [
            "",
            "com..acme",
            "com.1acme",
            "com.acme-api",
            "com.new",
            "com.acme.",
        ] {
            let err = check_package(bad).expect_err(bad).to_string();
            assert!(err.starts_with("--package: "), "{err}");
        }
    }

    #[test]
    fn java_strings_escape_quotes_and_unicode() {
        assert_eq!(java_str("a\"b\\c\né"), "\"a\\\"b\\\\c\\n\\u00e9\"");
        assert_eq!(comment("x */ y \\u0022"), "x * / y \\\\u0022");
    }
}
