//! `--in-diff`: the lines a unified diff (`git diff main`) adds or changes, per file, so
//! a pull-request check mutates only what the change touched.

use std::collections::{BTreeMap, BTreeSet};

/// Changed lines (1-based, in the new file) per `/`-separated path as the diff names it
/// (`+++ b/src/Foo.java` gives `src/Foo.java`). Deleted files are left out.
pub fn changed_lines(diff: &str) -> Result<BTreeMap<String, BTreeSet<usize>>, String> {
    let mut out: BTreeMap<String, BTreeSet<usize>> = BTreeMap::new();
    let mut file: Option<String> = None;
    let mut line = 0usize;
    let mut in_hunk = false;
    for (n, text) in diff.lines().enumerate() {
        if let Some(path) = text.strip_prefix("+++ ") {
            let path = path.split('\t').next().unwrap_or(path).trim();
            file = match path {
                "/dev/null" => None,
                p => Some(p.strip_prefix("b/").unwrap_or(p).to_string()),
            };
            in_hunk = false;
        } else if text.starts_with("--- ") && !in_hunk {
            continue;
        } else if let Some(rest) = text.strip_prefix("@@ ") {
            let plus = rest
                .split_whitespace()
                .find(|w| w.starts_with('+'))
                .ok_or_else(|| format!("line {}: hunk header without a `+` range", n + 1))?;
            let start = plus[1..].split(',').next().unwrap_or_default();
            line = start
                .parse()
                .map_err(|_| format!("line {}: bad hunk start `{plus}`", n + 1))?;
            in_hunk = true;
        } else if text.starts_with("diff ") {
            in_hunk = false;
        } else if in_hunk {
            match text.chars().next() {
                Some('+') => {
                    if let Some(f) = &file {
                        out.entry(f.clone()).or_default().insert(line);
                    }
                    line += 1;
                }
                Some('-') | Some('\\') => {}
                _ => line += 1,
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn added_and_changed_lines_are_read_per_file() {
        let diff = "diff --git a/src/A.java b/src/A.java\n--- a/src/A.java\n+++ b/src/A.java\n\
@@ -1,4 +1,5 @@\n class A {\n-  int x = 1;\n+  int x = 2;\n+  int y = 3;\n   void f() {}\n }\n\
diff --git a/src/B.java b/src/B.java\n--- a/src/B.java\n+++ /dev/null\n@@ -1 +0,0 @@\n-class B {}\n\
--- /dev/null\n+++ b/src/C.java\n@@ -0,0 +1,2 @@\n+class C {\n+}\n";
        let got = changed_lines(diff).unwrap();
        assert_eq!(got["src/A.java"], BTreeSet::from([2, 3]));
        assert!(!got.contains_key("src/B.java"));
        assert_eq!(got["src/C.java"], BTreeSet::from([1, 2]));
    }

    #[test]
    fn a_broken_hunk_header_is_named() {
        let err = changed_lines("+++ b/x\n@@ nonsense @@\n").unwrap_err();
        assert!(err.contains("line 2"), "{err}");
    }
}
