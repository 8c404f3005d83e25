//! Builds the original program and each mutant in a scratch overlay.
//!
//! A JDK-only project (no Maven or Gradle file), or one whose dependencies are jars
//! (`--classpath`, `classpath.txt`, `lib/`: see `classpath`), is built with `javac` alone:
//! the original once against those jars, then each mutant by compiling only the changed
//! file against the original classes plus the jars into its own directory, which comes
//! first on the class path. A mutant so builds in about one `javac` start. Constants
//! another class inlined at compile time keep their original value (the same limit as any
//! incremental Java build), and annotation processors do not run (`-proc:none`: a Lombok
//! project needs `--build`). Any other project is copied per mutant and built by the
//! user's `--build 'CMD {dir}'`.
//!
//! A mutant that does not compile is *unviable*, with the compiler's first lines as the
//! reason. Builds are kept and reused when the same mutant is asked for again.
//!
//! Every build runs in a process group of its own (`runner::shell`): past
//! `--build-timeout` the group is killed, and a background child that inherited the
//! build's output (`(sleep 15 &)`) neither holds the build nor outlives it. The copy for a
//! command build keeps symbolic links inside the project as links, and leaves out (and
//! names) links that lead out of it, by the rule `scan` applies.

use super::encoding::Encoding;
use super::mutants::Mutant;
use crate::mutate::error::MutateError;
use crate::runner::shell;
use crate::source::scan::{LinkKind, link_kind};
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::process::Command;

/// Default longest wait for one build (the original's or a mutant's); `--build-timeout`.
pub const BUILD_TIMEOUT: Duration = Duration::from_secs(600);

/// Bytes of a build's stdout and of its stderr kept for its log; the rest is discarded.
pub const BUILD_LOG_CAP: usize = 1024 * 1024;

/// How the program is built.
#[derive(Debug, Clone)]
pub enum BuildMode {
    /// `javac` of the sources under `src_root` (project-relative).
    Javac { src_root: PathBuf },
    /// A shell command with `{dir}` replaced by the copy of the project to build.
    Command { template: String },
}

/// A built program, ready to start.
#[derive(Debug, Clone)]
pub struct Built {
    /// The build directory (`{dir}` in the start command).
    pub dir: PathBuf,
    /// `{classpath}` in the start command: in `javac` mode the mutant's classes, the
    /// original classes, `src/main/resources` when there is one, then the dependencies;
    /// in command mode the dependencies alone (empty without `--classpath`).
    pub classpath: String,
}

/// What building a mutant gave.
#[derive(Debug, Clone)]
pub enum BuildOutcome {
    Built(Built),
    /// It does not compile; the compiler's first lines say why.
    Unviable(String),
}

/// The project, its scratch directory and how to build it.
#[derive(Debug, Clone)]
pub struct Workspace {
    pub project: PathBuf,
    pub work: PathBuf,
    pub mode: BuildMode,
    /// Longest wait for one build.
    pub build_timeout: Duration,
    /// The sources' encoding (read, mutated and written back in it; `javac -encoding`).
    pub encoding: Encoding,
    /// What the builds left out and why (links out of the project), once each.
    pub notes: Arc<Mutex<Vec<String>>>,
    /// The project's dependencies (jars, class directories), absolute, in order.
    pub classpath: Vec<PathBuf>,
}

impl Workspace {
    /// A workspace with the default build timeout and UTF-8 sources.
    pub fn new(project: PathBuf, work: PathBuf, mode: BuildMode) -> Self {
        Workspace {
            project,
            work,
            mode,
            build_timeout: BUILD_TIMEOUT,
            encoding: Encoding::Utf8,
            notes: Default::default(),
            classpath: Vec::new(),
        }
    }

    /// Whether the project names Maven or Gradle as its build.
    pub fn is_managed(project: &Path) -> bool {
        ["pom.xml", "build.gradle", "build.gradle.kts"]
            .iter()
            .any(|f| project.join(f).exists())
    }

    /// The `javac` build mode whatever the project's build tool (its dependencies come
    /// from a class path): sources under `src/main/java`, else the project root.
    pub fn javac_mode(project: &Path) -> BuildMode {
        let src = if project.join("src/main/java").is_dir() {
            PathBuf::from("src/main/java")
        } else {
            PathBuf::new()
        };
        BuildMode::Javac { src_root: src }
    }

    /// The build mode a project gets by default: `javac` when it has no Maven or Gradle
    /// file, with its sources under `src/main/java` (or the project root).
    pub fn default_mode(project: &Path) -> Option<BuildMode> {
        (!Self::is_managed(project)).then(|| Self::javac_mode(project))
    }

    /// Builds the unmutated program (reused while the sources are unchanged).
    pub async fn build_original(&self) -> Result<Built, MutateError> {
        let dir = self.work.join("original");
        match &self.mode {
            BuildMode::Javac { src_root } => {
                let root = self.project.join(src_root);
                let files = java_files(&root);
                if files.is_empty() {
                    return Err(MutateError::Build(format!(
                        "no .java files under {}",
                        root.display()
                    )));
                }
                let deps = super::classpath::join(&self.classpath);
                let hash = format!("{}\n{deps}", hash_files(&files)?);
                let classes = dir.join("classes");
                let marker = dir.join(".sources-hash");
                if std::fs::read_to_string(&marker).ok().as_deref() != Some(hash.as_str()) {
                    let _ = std::fs::remove_dir_all(&dir);
                    mkdir(&classes)?;
                    let cp = (!deps.is_empty()).then_some(deps.as_str());
                    let mut cmd = javac(&classes, cp, self.encoding);
                    cmd.args(&files);
                    if let Err(why) = self.run(cmd, &dir.join("build.log")).await {
                        return Err(MutateError::Build(format!(
                            "the original program does not compile: {why}"
                        )));
                    }
                    write(&marker, &hash)?;
                }
                let resources = self.project.join("src/main/resources");
                let mut start = vec![classes];
                if src_root == Path::new("src/main/java") && resources.is_dir() {
                    start.push(resources);
                }
                start.extend(self.classpath.iter().cloned());
                Ok(Built {
                    classpath: super::classpath::join(&start),
                    dir,
                })
            }
            BuildMode::Command { template } => {
                let copy = dir.join("project");
                let _ = std::fs::remove_dir_all(&dir);
                self.copy_project(&copy)?;
                let cmd = shell::sh(&command_line(template, &copy));
                self.run(cmd, &dir.join("build.log")).await.map_err(|why| {
                    MutateError::Build(format!("the original program does not build: {why}"))
                })?;
                Ok(Built {
                    dir: copy,
                    classpath: super::classpath::join(&self.classpath),
                })
            }
        }
    }

    /// Builds `mutant` (the original must be built first); a build kept from an earlier
    /// run of the same mutant is reused.
    pub async fn build_mutant(
        &self,
        mutant: &Mutant,
        original: &Built,
    ) -> Result<BuildOutcome, MutateError> {
        let dir = self.work.join("mutants").join(&mutant.id);
        let source = self
            .encoding
            .read(&self.project.join(&mutant.file))
            .map_err(|e| MutateError::Build(format!("{}: {e}", mutant.file)))?;
        if source.get(mutant.start..mutant.end) != Some(mutant.before.as_str()) {
            return Err(MutateError::Build(format!(
                "{} changed since the mutants were listed ({}:{} no longer reads `{}`)",
                mutant.file, mutant.line, mutant.column, mutant.before
            )));
        }
        let mutated = mutant.apply(&source);
        let key = format!(
            "{:x}",
            Sha256::digest(format!(
                "{}\n{}\n{mutated}",
                original.dir.display(),
                original.classpath
            ))
        );
        let built_marker = dir.join(".built");
        let unviable_marker = dir.join(".unviable");
        if std::fs::read_to_string(&built_marker).ok().as_deref() == Some(key.as_str()) {
            return Ok(BuildOutcome::Built(self.built(&dir, original)));
        }
        if let Ok(text) = std::fs::read_to_string(&unviable_marker)
            && let Some(why) = text.strip_prefix(&format!("{key}\n"))
        {
            return Ok(BuildOutcome::Unviable(why.to_string()));
        }
        let _ = std::fs::remove_dir_all(&dir);
        let result = match &self.mode {
            BuildMode::Javac { src_root } => {
                let rel = Path::new(&mutant.file)
                    .strip_prefix(src_root)
                    .unwrap_or(Path::new(&mutant.file));
                let file = dir.join("src").join(rel);
                if let Some(parent) = file.parent() {
                    mkdir(parent)?;
                }
                self.write_source(&file, &mutated)?;
                let classes = dir.join("classes");
                mkdir(&classes)?;
                let mut cmd = javac(&classes, Some(&original.classpath), self.encoding);
                cmd.arg(&file);
                self.run(cmd, &dir.join("build.log")).await
            }
            BuildMode::Command { template } => {
                let copy = dir.join("project");
                self.copy_project(&copy)?;
                self.write_source(&copy.join(&mutant.file), &mutated)?;
                self.run(
                    shell::sh(&command_line(template, &copy)),
                    &dir.join("build.log"),
                )
                .await
            }
        };
        match result {
            Ok(()) => {
                write(&built_marker, &key)?;
                Ok(BuildOutcome::Built(self.built(&dir, original)))
            }
            Err(why) => {
                let why = why.to_string();
                write(&unviable_marker, &format!("{key}\n{why}"))?;
                Ok(BuildOutcome::Unviable(why))
            }
        }
    }

    /// Writes mutated source in the project's encoding.
    fn write_source(&self, path: &Path, text: &str) -> Result<(), MutateError> {
        let bytes = self
            .encoding
            .encode(text)
            .map_err(|reason| MutateError::Encoding {
                path: path.to_path_buf(),
                reason,
            })?;
        std::fs::write(path, bytes).map_err(|e| MutateError::io("write", path, e))
    }

    /// Runs a build command, bounded by the build timeout, with its output in `log`;
    /// `Err` carries the first lines of the output.
    async fn run(&self, cmd: Command, log: &Path) -> Result<(), MutateError> {
        if let Some(parent) = log.parent() {
            mkdir(parent)?;
        }
        let limit = self.build_timeout;
        let done = match shell::run(cmd, limit, BUILD_LOG_CAP, false).await {
            Ok(done) => done,
            Err(shell::Failure::Timeout { stdout, stderr }) => {
                let mut text = String::from_utf8_lossy(&stdout).into_owned();
                text.push_str(&String::from_utf8_lossy(&stderr));
                let _ = std::fs::write(log, &text);
                return Err(MutateError::Build(format!(
                    "the build took longer than {} s (--build-timeout); its process group was \
                     killed",
                    limit.as_secs_f64()
                )));
            }
            Err(shell::Failure::Spawn(e) | shell::Failure::Wait(e)) => {
                return Err(MutateError::Build(format!("cannot run the build: {e}")));
            }
        };
        let mut text = String::from_utf8_lossy(&done.stdout).into_owned();
        text.push_str(&String::from_utf8_lossy(&done.stderr));
        let _ = std::fs::write(log, &text);
        if done.status.success() {
            Ok(())
        } else {
            let head: Vec<&str> = text
                .lines()
                .filter(|l| !l.trim().is_empty())
                .take(4)
                .collect();
            Err(MutateError::Build(format!(
                "{} ({})",
                crate::text::escape_controls(&head.join(" | ")),
                done.status
            )))
        }
    }

    /// Copies the project for a command build (see [`copy_project`]), noting the links
    /// it left out.
    fn copy_project(&self, to: &Path) -> Result<(), MutateError> {
        let skipped = copy_project(&self.project, to, &self.work)?;
        let mut notes = self.notes.lock().unwrap_or_else(|p| p.into_inner());
        for s in skipped {
            if !notes.contains(&s) {
                notes.push(s);
            }
        }
        Ok(())
    }

    fn built(&self, dir: &Path, original: &Built) -> Built {
        match self.mode {
            BuildMode::Javac { .. } => Built {
                dir: dir.to_path_buf(),
                classpath: format!("{}:{}", dir.join("classes").display(), original.classpath),
            },
            BuildMode::Command { .. } => Built {
                dir: dir.join("project"),
                classpath: original.classpath.clone(),
            },
        }
    }
}

/// The fully qualified name of the one class with a `main` method under `src_root`, for
/// the default start command; `None` when there is none or more than one.
pub fn main_class(src_root: &Path) -> Option<String> {
    let re = regex::Regex::new(r"static\s+void\s+main\s*\(").ok()?;
    let pkg = regex::Regex::new(r"(?m)^\s*package\s+([\w.]+)\s*;").ok()?;
    let mut found = Vec::new();
    for f in java_files(src_root) {
        let Ok(bytes) = std::fs::read(&f) else {
            continue;
        };
        let text = String::from_utf8_lossy(&bytes);
        if re.is_match(&text) {
            let stem = f.file_stem()?.to_string_lossy().into_owned();
            match pkg.captures(&text) {
                Some(c) => found.push(format!("{}.{stem}", &c[1])),
                None => found.push(stem),
            }
        }
    }
    (found.len() == 1).then(|| found.remove(0))
}

/// Every `.java` file under `root`, sorted (symbolic links are not followed: see
/// [`java_files_checked`]).
pub fn java_files(root: &Path) -> Vec<PathBuf> {
    java_files_checked(root).0
}

/// Every `.java` file under `root`, sorted, and the `.java` links left out with why (the
/// rule `scan` applies: a file is read at its own path, never through a link, and a
/// link out of the project is named).
pub fn java_files_checked(root: &Path) -> (Vec<PathBuf>, Vec<(String, String)>) {
    let mut out = Vec::new();
    let mut skipped = Vec::new();
    for e in ignore::WalkBuilder::new(root)
        .hidden(false)
        .build()
        .filter_map(Result::ok)
    {
        let p = e.path();
        if p.extension().is_none_or(|x| x != "java") {
            continue;
        }
        if e.path_is_symlink() {
            if let LinkKind::Outside(why) = link_kind(root, p) {
                let rel = p.strip_prefix(root).unwrap_or(p);
                skipped.push((rel.to_string_lossy().into_owned(), why));
            }
        } else if e.file_type().is_some_and(|t| t.is_file()) {
            out.push(e.into_path());
        }
    }
    out.sort();
    skipped.sort();
    (out, skipped)
}

/// `javac` as the fast path runs it. `-parameters` keeps parameter names in the class
/// files, as Spring Boot's and most framework builds do: a bare `@PathVariable long id`
/// or `@RequestParam String q` is resolved by that name at run time.
fn javac(out_dir: &Path, classpath: Option<&str>, encoding: Encoding) -> Command {
    let mut cmd = Command::new("javac");
    cmd.args([
        "-encoding",
        encoding.javac_name(),
        "-nowarn",
        "-parameters",
        "-proc:none",
        "-implicit:none",
        "-d",
    ])
    .arg(out_dir);
    if let Some(cp) = classpath {
        cmd.args(["-cp", cp]);
    }
    cmd
}

/// The build command line: `{dir}` replaced (once, quoted) by the copy to build.
pub fn command_line(template: &str, copy: &Path) -> String {
    shell::substitute(template, &[("dir", &copy.display().to_string())])
}

/// Copies the project for a command build, leaving out version control, build output
/// and the scratch directory itself. Symbolic links inside the project are recreated
/// as links to the same place in the copy; links that lead out of it are not copied,
/// and returned as `path: why`.
fn copy_project(from: &Path, to: &Path, work: &Path) -> Result<Vec<String>, MutateError> {
    let work = work.canonicalize().unwrap_or(work.to_path_buf());
    let root = from.canonicalize().unwrap_or(from.to_path_buf());
    let skip = [".git", "target", "build", "node_modules", ".gradle"];
    let walker = ignore::WalkBuilder::new(from)
        .hidden(false)
        .git_ignore(false)
        .filter_entry(move |e| {
            let name = e.file_name().to_string_lossy();
            let inside_work = e.path().canonicalize().is_ok_and(|p| p.starts_with(&work));
            !(e.depth() > 0 && (skip.contains(&name.as_ref()) || inside_work))
        })
        .build();
    let mut skipped = Vec::new();
    mkdir(to)?;
    for entry in walker.filter_map(Result::ok) {
        let rel = entry.path().strip_prefix(from).unwrap_or(entry.path());
        let dest = to.join(rel);
        if entry.path_is_symlink() {
            match link_kind(from, entry.path()) {
                LinkKind::Inside(target) => {
                    let inner = target.strip_prefix(&root).unwrap_or(&target);
                    std::os::unix::fs::symlink(to.join(inner), &dest)
                        .map_err(|e| MutateError::io("copy the link", entry.path(), e))?;
                }
                LinkKind::Outside(why) => skipped.push(format!("{}: {why}", rel.display())),
                LinkKind::NotALink => {}
            }
        } else if entry.file_type().is_some_and(|t| t.is_dir()) {
            mkdir(&dest)?;
        } else {
            std::fs::copy(entry.path(), &dest)
                .map_err(|e| MutateError::io("copy", entry.path(), e))?;
        }
    }
    Ok(skipped)
}

fn hash_files(files: &[PathBuf]) -> Result<String, MutateError> {
    let mut h = Sha256::new();
    for f in files {
        let bytes = std::fs::read(f).map_err(|e| MutateError::io("read", f, e))?;
        h.update(f.display().to_string().as_bytes());
        h.update((bytes.len() as u64).to_le_bytes());
        h.update(&bytes);
    }
    Ok(hex::encode(h.finalize()))
}

fn mkdir(p: &Path) -> Result<(), MutateError> {
    std::fs::create_dir_all(p).map_err(|e| MutateError::io("create", p, e))
}

fn write(p: &Path, text: &str) -> Result<(), MutateError> {
    std::fs::write(p, text).map_err(|e| MutateError::io("write", p, e))
}

/// Single-quotes a path for `sh`.
pub fn quote(p: &Path) -> String {
    shell::quote(&p.display().to_string())
}
