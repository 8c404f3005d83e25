//! `$ref` resolution and schema inlining.
//!
//! Local refs (`#/definitions/X`, `#/components/...`, JSON-pointer escapes `~0 ~1` and
//! percent-encoding), OpenAPI 3.1 `$id`/`$anchor` refs, and refs into other files next to
//! the spec are followed. Schemas are inlined recursively; a reference already being
//! expanded higher up the same branch is left as
//! `{"$ref": .., "x-mastor-cycle": true}` so recursive models terminate, and expansion
//! stops at a depth and size bound (`x-mastor-truncated`) so giant specs stay fast.
//! Remote (`http://`) refs are not fetched: they are reported as unresolved.

use super::SpecError;
use super::parse::read_document;
use serde_json::{Map, Value};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::rc::Rc;

/// How many nested `$ref` expansions one inlined schema may contain.
pub(crate) const MAX_REF_DEPTH: usize = 12;
/// How many JSON nodes one top-level inlining may produce before refs stop expanding.
const NODE_BUDGET: usize = 20_000;
/// How many `$ref` hops a non-schema object (parameter, response, path item) may chain.
const MAX_DEREF_HOPS: usize = 32;

/// One loaded document: the spec itself (index 0) or a file it refers to.
struct Doc {
    path: PathBuf,
    value: Rc<Value>,
    /// `$id` → JSON pointer of the schema carrying it (OpenAPI 3.1).
    ids: HashMap<String, String>,
    /// `"<enclosing $id>#<anchor>"` → JSON pointer (OpenAPI 3.1 `$anchor`).
    anchors: HashMap<String, String>,
}

/// A place in one of the loaded documents.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Pos {
    pub doc: usize,
    pub ptr: String,
}

impl Pos {
    /// The position of `token` under this one.
    pub fn child(&self, token: &str) -> Pos {
        let mut ptr = self.ptr.clone();
        push_token(&mut ptr, token);
        Pos { doc: self.doc, ptr }
    }
}

/// Resolves references across the spec and the files it points to.
pub(crate) struct Resolver {
    docs: Vec<Doc>,
    /// Refs being expanded on the current branch (cycle detection).
    stack: Vec<(usize, String)>,
    nodes: usize,
    truncated: usize,
    /// Whether a dangling schema ref is an error (else a marker plus a warning).
    strict: bool,
    /// Dangling schema refs left as markers (lenient mode), as messages, deduplicated.
    unresolved: Vec<String>,
    /// Cycle and truncation markers emitted so far; an expansion that emitted none is
    /// the same wherever the ref is used, so it is cached.
    markers: usize,
    /// Context-free expansions: (doc, pointer) → (inlined value, node count).
    cache: HashMap<(usize, String), (Value, usize)>,
}

impl Resolver {
    pub fn new(file: &Path, root: Value, strict: bool) -> Self {
        let mut r = Resolver {
            docs: Vec::new(),
            stack: Vec::new(),
            nodes: 0,
            truncated: 0,
            strict,
            unresolved: Vec::new(),
            markers: 0,
            cache: HashMap::new(),
        };
        r.add_doc(file.to_path_buf(), root);
        r
    }

    /// The root document.
    pub fn root(&self) -> Rc<Value> {
        Rc::clone(&self.docs[0].value)
    }

    /// The file of document `doc`, for error messages.
    pub fn file(&self, doc: usize) -> PathBuf {
        self.docs
            .get(doc)
            .map_or_else(PathBuf::new, |d| d.path.clone())
    }

    /// How many refs were left unexpanded because of the depth/size bound.
    pub fn truncated(&self) -> usize {
        self.truncated
    }

    /// Dangling schema refs that were kept as `x-mastor-unresolved` markers.
    pub fn take_unresolved(&mut self) -> Vec<String> {
        std::mem::take(&mut self.unresolved)
    }

    fn add_doc(&mut self, path: PathBuf, value: Value) -> usize {
        let mut ids = HashMap::new();
        let mut anchors = HashMap::new();
        let mut ptr = String::new();
        index_ids(&value, &mut ptr, "", &mut ids, &mut anchors);
        self.docs.push(Doc {
            path,
            value: Rc::new(value),
            ids,
            anchors,
        });
        self.docs.len() - 1
    }

    /// Follows `$ref` on the top object only (chains allowed), merging sibling keys over
    /// the target. Used for parameters, responses, request bodies and path items, whose
    /// nested schemas are inlined separately. Returns the object and where it lives.
    pub fn deref(&mut self, v: &Value, at: &Pos) -> Result<(Value, Pos), SpecError> {
        let mut cur = v.clone();
        let mut pos = at.clone();
        let mut seen: Vec<(usize, String)> = Vec::new();
        for _ in 0..MAX_DEREF_HOPS {
            let Some(Value::String(reference)) = cur.get("$ref") else {
                return Ok((cur, pos));
            };
            let reference = reference.clone();
            let target = self.locate(&reference, &pos)?;
            if seen.contains(&(target.doc, target.ptr.clone())) {
                break;
            }
            seen.push((target.doc, target.ptr.clone()));
            let doc = Rc::clone(&self.docs[target.doc].value);
            let Some(found) = doc.pointer(&target.ptr) else {
                return Err(self.unresolved(&reference, &pos));
            };
            let mut next = found.clone();
            if let (Value::Object(dst), Value::Object(src)) = (&mut next, &cur) {
                for (k, val) in src.iter().filter(|(k, _)| *k != "$ref") {
                    dst.insert(k.clone(), val.clone());
                }
            }
            cur = next;
            pos = target;
        }
        Ok((cur, pos))
    }

    /// Inlines every `$ref` inside `v` (a schema or an object holding schemas), which sits
    /// at `at`. Cycles and the size bound leave marker objects instead of expanding.
    pub fn inline(&mut self, v: &Value, at: &Pos) -> Result<Value, SpecError> {
        self.nodes = 0;
        self.stack.clear();
        let mut ptr = at.ptr.clone();
        self.walk(v, at.doc, &mut ptr, 0)
    }

    fn walk(
        &mut self,
        v: &Value,
        doc: usize,
        ptr: &mut String,
        depth: usize,
    ) -> Result<Value, SpecError> {
        self.nodes += 1;
        match v {
            Value::Object(map) => {
                if let Some(Value::String(reference)) = map.get("$ref") {
                    return self.follow(map, reference, doc, ptr, depth);
                }
                let mut out = Map::with_capacity(map.len());
                for (k, child) in map {
                    let len = ptr.len();
                    push_token(ptr, k);
                    let c = self.walk(child, doc, ptr, depth);
                    ptr.truncate(len);
                    out.insert(k.clone(), c?);
                }
                Ok(Value::Object(out))
            }
            Value::Array(items) => {
                let mut out = Vec::with_capacity(items.len());
                for (i, child) in items.iter().enumerate() {
                    let len = ptr.len();
                    push_token(ptr, &i.to_string());
                    let c = self.walk(child, doc, ptr, depth);
                    ptr.truncate(len);
                    out.push(c?);
                }
                Ok(Value::Array(out))
            }
            other => Ok(other.clone()),
        }
    }

    fn follow(
        &mut self,
        map: &Map<String, Value>,
        reference: &str,
        doc: usize,
        ptr: &mut String,
        depth: usize,
    ) -> Result<Value, SpecError> {
        let here = Pos {
            doc,
            ptr: ptr.clone(),
        };
        let located = self.locate(reference, &here).and_then(|target| {
            let tdoc = Rc::clone(&self.docs[target.doc].value);
            if tdoc.pointer(&target.ptr).is_some() {
                Ok((target, tdoc))
            } else {
                Err(self.unresolved(reference, &here))
            }
        });
        let mut out = match located {
            Ok((target, tdoc)) => {
                // `located` checked the pointer; `Null` only if the document changed.
                let found = tdoc.pointer(&target.ptr).unwrap_or(&Value::Null);
                self.expand(reference, found, target, depth)?
            }
            Err(err @ SpecError::UnresolvedRef { .. }) if !self.strict => {
                let msg = err.to_string();
                if !self.unresolved.contains(&msg) {
                    self.unresolved.push(msg);
                }
                let mut m = Map::new();
                m.insert("$ref".into(), Value::from(reference));
                m.insert("x-mastor-unresolved".into(), Value::Bool(true));
                Value::Object(m)
            }
            Err(err) => return Err(err),
        };
        // Keys beside `$ref` (3.1 allows them; 3.0 tools keep `description`) win.
        if let Value::Object(dst) = &mut out {
            for (k, val) in map.iter().filter(|(k, _)| *k != "$ref") {
                let len = ptr.len();
                push_token(ptr, k);
                let c = self.walk(val, doc, ptr, depth);
                ptr.truncate(len);
                dst.insert(k.clone(), c?);
            }
        }
        Ok(out)
    }

    /// Expands the schema `found` at `target`, or leaves a cycle/truncation marker.
    fn expand(
        &mut self,
        reference: &str,
        found: &Value,
        target: Pos,
        depth: usize,
    ) -> Result<Value, SpecError> {
        let key = (target.doc, target.ptr);
        if self.stack.contains(&key) {
            self.markers += 1;
            return Ok(marker(reference, found, "x-mastor-cycle"));
        }
        if depth >= MAX_REF_DEPTH || self.nodes > NODE_BUDGET {
            self.truncated += 1;
            self.markers += 1;
            return Ok(marker(reference, found, "x-mastor-truncated"));
        }
        if let Some((cached, size)) = self.cache.get(&key) {
            self.nodes += size;
            return Ok(cached.clone());
        }
        let (markers_before, nodes_before) = (self.markers, self.nodes);
        self.stack.push(key.clone());
        let mut ptr = key.1.clone();
        let res = self.walk(found, key.0, &mut ptr, depth + 1);
        self.stack.pop();
        let res = res?;
        if self.markers == markers_before {
            self.cache
                .insert(key, (res.clone(), self.nodes - nodes_before));
        }
        Ok(res)
    }

    /// Finds the document and pointer `reference` names, as used at `at`.
    fn locate(&mut self, reference: &str, at: &Pos) -> Result<Pos, SpecError> {
        let (base, fragment) = match reference.split_once('#') {
            Some((b, f)) => (b, percent_decode(f)),
            None => (reference, String::new()),
        };
        let (doc, base_ptr, id) = if base.is_empty() {
            (at.doc, String::new(), String::new())
        } else if let Some((d, p)) = self.find_id(base, at.doc) {
            (d, p, base.to_string())
        } else if base.contains("://") {
            return Err(self.unresolved(reference, at));
        } else {
            let dir = self.docs[at.doc]
                .path
                .parent()
                .map(Path::to_path_buf)
                .unwrap_or_default();
            let file = dir.join(percent_decode(base));
            if !file.is_file() {
                return Err(self.unresolved(reference, at));
            }
            (self.load_external(file)?, String::new(), String::new())
        };
        let ptr = if fragment.is_empty() || fragment.starts_with('/') {
            format!("{base_ptr}{fragment}")
        } else {
            let key = format!("{id}#{fragment}");
            match self.docs[doc].anchors.get(&key) {
                Some(p) => p.clone(),
                None => return Err(self.unresolved(reference, at)),
            }
        };
        Ok(Pos { doc, ptr })
    }

    /// A 3.1 `$id` match, preferring the document the ref is used in.
    fn find_id(&self, id: &str, prefer: usize) -> Option<(usize, String)> {
        if let Some(p) = self.docs.get(prefer).and_then(|d| d.ids.get(id)) {
            return Some((prefer, p.clone()));
        }
        self.docs
            .iter()
            .enumerate()
            .find_map(|(i, d)| d.ids.get(id).map(|p| (i, p.clone())))
    }

    fn load_external(&mut self, file: PathBuf) -> Result<usize, SpecError> {
        let canonical = file.canonicalize().unwrap_or(file);
        if let Some(i) = self.docs.iter().position(|d| {
            d.path == canonical || d.path.canonicalize().is_ok_and(|p| p == canonical)
        }) {
            return Ok(i);
        }
        let value = read_document(&canonical)?;
        Ok(self.add_doc(canonical, value))
    }

    fn unresolved(&self, reference: &str, at: &Pos) -> SpecError {
        SpecError::UnresolvedRef {
            file: self.file(at.doc),
            reference: reference.to_string(),
            used_at: if at.ptr.is_empty() {
                "/".to_string()
            } else {
                at.ptr.clone()
            },
        }
    }
}

/// The object left where a ref is not expanded: the ref, a flag, and the target's title
/// (or its definition name) so readers still see what it was.
fn marker(reference: &str, target: &Value, flag: &str) -> Value {
    let mut m = Map::new();
    m.insert("$ref".into(), Value::from(reference));
    m.insert(flag.into(), Value::Bool(true));
    let title = target
        .get("title")
        .and_then(Value::as_str)
        .map(str::to_string)
        .or_else(|| reference.rsplit('/').next().map(str::to_string))
        .filter(|t| !t.is_empty());
    if let Some(t) = title {
        m.insert("title".into(), Value::from(t));
    }
    Value::Object(m)
}

/// Appends one escaped JSON-pointer token (`~` → `~0`, `/` → `~1`).
pub(crate) fn push_token(ptr: &mut String, token: &str) {
    ptr.push('/');
    for c in token.chars() {
        match c {
            '~' => ptr.push_str("~0"),
            '/' => ptr.push_str("~1"),
            c => ptr.push(c),
        }
    }
}

/// Decodes `%XX` escapes (URI fragments may carry them); invalid escapes stay as written.
fn percent_decode(s: &str) -> String {
    if !s.contains('%') {
        return s.to_string();
    }
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && let (Some(h), Some(l)) = (
                bytes.get(i + 1).and_then(|b| hex_val(*b)),
                bytes.get(i + 2).and_then(|b| hex_val(*b)),
            )
        {
            out.push(h * 16 + l);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn hex_val(b: u8) -> Option<u8> {
    (b as char).to_digit(16).and_then(|d| u8::try_from(d).ok())
}

/// Records every `$id` and `$anchor` with the pointer of the object carrying it.
fn index_ids(
    v: &Value,
    ptr: &mut String,
    base: &str,
    ids: &mut HashMap<String, String>,
    anchors: &mut HashMap<String, String>,
) {
    match v {
        Value::Object(map) => {
            let own_id = map.get("$id").and_then(Value::as_str);
            if let Some(id) = own_id {
                ids.entry(id.to_string()).or_insert_with(|| ptr.clone());
            }
            let base = own_id.unwrap_or(base).to_string();
            if let Some(anchor) = map.get("$anchor").and_then(Value::as_str) {
                anchors
                    .entry(format!("{base}#{anchor}"))
                    .or_insert_with(|| ptr.clone());
                anchors
                    .entry(format!("#{anchor}"))
                    .or_insert_with(|| ptr.clone());
            }
            for (k, child) in map {
                if matches!(child, Value::Object(_) | Value::Array(_)) {
                    let len = ptr.len();
                    push_token(ptr, k);
                    index_ids(child, ptr, &base, ids, anchors);
                    ptr.truncate(len);
                }
            }
        }
        Value::Array(items) => {
            for (i, child) in items.iter().enumerate() {
                let len = ptr.len();
                push_token(ptr, &i.to_string());
                index_ids(child, ptr, base, ids, anchors);
                ptr.truncate(len);
            }
        }
        _ => {}
    }
}
