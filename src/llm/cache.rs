//! Content-addressed response cache on disk. The key is the SHA-256 of the base URL,
//! the model and the full request parameters (messages, schema, temperature, ...), and
//! never includes the API key. Entries are written atomically (temp file + rename), so
//! a crash leaves either the old entry or the new one.
//!
//! It does not expire entries: a changed prompt is a different key, and `--refresh`
//! replaces answers on purpose.

use super::record::Usage;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};

/// One cached answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CacheEntry {
    pub key: String,
    pub model: String,
    pub content: String,
    pub finish_reason: Option<String>,
    /// Usage of the original call (a hit itself costs nothing).
    pub usage: Usage,
    pub created_at: String,
}

/// A cache directory. Cheap to clone.
#[derive(Debug, Clone)]
pub struct ResponseCache {
    dir: PathBuf,
}

impl ResponseCache {
    /// A cache rooted at `dir` (created on first write).
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        Self { dir: dir.into() }
    }

    /// The user cache dir from `directories` (`~/.cache/mastor/responses` on Linux).
    pub fn default_dir() -> Option<PathBuf> {
        directories::ProjectDirs::from("", "", "mastor").map(|d| d.cache_dir().join("responses"))
    }

    /// The root directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The cache key of a request: hex SHA-256 over base URL, model and parameters.
    pub fn key(base_url: &str, model: &str, params: &serde_json::Value) -> String {
        let mut h = Sha256::new();
        for part in [base_url, "\n", model, "\n"] {
            h.update(part.as_bytes());
        }
        h.update(params.to_string().as_bytes());
        hex::encode(h.finalize())
    }

    fn path(&self, key: &str) -> PathBuf {
        let shard = key.get(..2).unwrap_or("xx");
        self.dir.join(shard).join(format!("{key}.json"))
    }

    /// The entry for `key`, if present and readable (a corrupt entry is a miss).
    pub fn get(&self, key: &str) -> Option<CacheEntry> {
        let text = std::fs::read_to_string(self.path(key)).ok()?;
        serde_json::from_str::<CacheEntry>(&text)
            .ok()
            .filter(|e| e.key == key)
    }

    /// Stores an entry atomically.
    pub fn put(&self, entry: &CacheEntry) -> std::io::Result<()> {
        let path = self.path(&entry.key);
        let parent = path.parent().unwrap_or(&self.dir);
        std::fs::create_dir_all(parent)?;
        let tmp = parent.join(format!(".{}.{}.tmp", entry.key, rand::random::<u64>()));
        let text = serde_json::to_vec_pretty(entry).map_err(std::io::Error::other)?;
        std::fs::write(&tmp, text)?;
        std::fs::rename(&tmp, &path).inspect_err(|_| {
            let _ = std::fs::remove_file(&tmp);
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn round_trip_and_key_sensitivity() {
        let dir = tempfile::tempdir().unwrap();
        let c = ResponseCache::new(dir.path());
        let k1 = ResponseCache::key("u", "m", &json!({"messages": [1]}));
        assert_eq!(k1, ResponseCache::key("u", "m", &json!({"messages": [1]})));
        assert_ne!(k1, ResponseCache::key("u", "m2", &json!({"messages": [1]})));
        assert_ne!(k1, ResponseCache::key("u2", "m", &json!({"messages": [1]})));
        assert_ne!(k1, ResponseCache::key("u", "m", &json!({"messages": [2]})));
        assert!(c.get(&k1).is_none());
        let e = CacheEntry {
            key: k1.clone(),
            model: "m".into(),
            content: "{}".into(),
            finish_reason: Some("stop".into()),
            usage: Usage::default(),
            created_at: "now".into(),
        };
        c.put(&e).unwrap();
        assert_eq!(c.get(&k1), Some(e));
        let leftovers: Vec<_> = walk(dir.path())
            .into_iter()
            .filter(|p| p.ends_with(".tmp"))
            .collect();
        assert!(leftovers.is_empty(), "{leftovers:?}");
    }

    #[test]
    fn corrupt_entry_is_a_miss() {
        let dir = tempfile::tempdir().unwrap();
        let c = ResponseCache::new(dir.path());
        let k = ResponseCache::key("u", "m", &json!(1));
        std::fs::create_dir_all(dir.path().join(&k[..2])).unwrap();
        std::fs::write(dir.path().join(&k[..2]).join(format!("{k}.json")), "{oops").unwrap();
        assert!(c.get(&k).is_none());
    }

    fn walk(p: &Path) -> Vec<String> {
        let mut out = vec![];
        for e in std::fs::read_dir(p).unwrap() {
            let e = e.unwrap().path();
            if e.is_dir() {
                out.extend(walk(&e));
            } else {
                out.push(e.display().to_string());
            }
        }
        out
    }
}
