//! Which files the workbench may show: only the project's own. A suite file can name any
//! path in `evidence_refs`, so a path is resolved (symlinks included) and kept only when
//! it stays under the project root.

use std::path::{Path, PathBuf};

/// `rel` resolved under the (canonical) project `root`, or why it may not be read: a
/// suite file can name any path in `evidence_refs`, and the workbench must show only the
/// project's own files (no `../../etc/passwd`, no absolute paths, no symlinks out).
pub fn confined(root: &Path, rel: &str) -> Result<PathBuf, String> {
    let joined = root.join(rel);
    let real = match joined.canonicalize() {
        Ok(p) => p,
        // Missing files are reported by the read; only their spelling is checked here.
        Err(_) if !rel.contains("..") && Path::new(rel).is_relative() => return Ok(joined),
        Err(_) => return Err("points outside the project root".into()),
    };
    if real.starts_with(root) {
        Ok(real)
    } else {
        Err(format!(
            "points outside the project root {} (to {})",
            root.display(),
            real.display()
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn evidence_paths_stay_inside_the_project() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("proj");
        std::fs::create_dir_all(root.join("src")).unwrap();
        std::fs::write(root.join("src/A.java"), "class A {}").unwrap();
        std::fs::write(dir.path().join("secret.txt"), "s").unwrap();
        let root = root.canonicalize().unwrap();
        assert_eq!(
            confined(&root, "src/A.java").unwrap(),
            root.join("src/A.java")
        );
        assert!(
            confined(&root, "src/Missing.java").is_ok(),
            "missing is the reader's error"
        );
        assert!(confined(&root, "../secret.txt").is_err());
        assert!(confined(&root, "../../../../etc/passwd").is_err());
        assert!(confined(&root, "/etc/passwd").is_err());
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(dir.path().join("secret.txt"), root.join("src/link"))
                .unwrap();
            assert!(
                confined(&root, "src/link").is_err(),
                "a symlink out is refused"
            );
        }
    }
}
