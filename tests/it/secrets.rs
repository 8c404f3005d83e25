//! No secret leaves the machine: key material, credentials and passwords in a project
//! are redacted before any prompt is built, seed data is an allowlist by content,
//! `mastor scan` lists what was redacted, and a session keeps its model traffic out of
//! version control.

use crate::support;

use mastor::llm::scripted::ScriptedServer;
use std::path::Path;
use support::*;

const PEM_BODY: &str = "MIIEowIBAAKCAQEAsecretkeymaterial";
const JAVA_PASSWORD: &str = "hunter2-in-source";
const SEED_JWT: &str = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJzZWNyZXQtdXNlciJ9.c2lnbmF0dXJlc2lnbmF0dXJl";
const SA_KEY: &str = "sa-private-key-material";

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// The petstore fixture with secrets planted in a handler, a seed file and a
/// service-account file.
fn project_with_secrets(dir: &Path) -> std::path::PathBuf {
    let root = dir.join("petstore");
    copy_dir(&fixture("petstore-jdk"), &root);
    let handler = root.join(PET_HANDLER);
    let text = std::fs::read_to_string(&handler).unwrap();
    let planted = text.replacen(
        "public class PetHandler",
        &format!(
            "/*\n-----BEGIN RSA PRIVATE KEY-----\n{PEM_BODY}\n-----END RSA PRIVATE KEY-----\n*/\n\
             public class PetHandler"
        ),
        1,
    );
    let planted = planted.replacen(
        "{",
        &format!("{{\n    private static final String DB_PASSWORD = \"{JAVA_PASSWORD}\";"),
        1,
    );
    assert_ne!(planted, text, "secrets planted");
    std::fs::write(&handler, planted).unwrap();
    let resources = root.join("src/main/resources");
    std::fs::create_dir_all(&resources).unwrap();
    std::fs::write(
        resources.join("data.sql"),
        format!(
            "CREATE TABLE users (id int, token text);\n\
             INSERT INTO users VALUES (1, '{SEED_JWT}');\n\
             INSERT INTO pets VALUES (7, 'Rex');\n"
        ),
    )
    .unwrap();
    std::fs::write(
        resources.join("service-account.json"),
        format!(r#"{{"type": "service_account", "private_key": "{SA_KEY}"}}"#),
    )
    .unwrap();
    root
}

fn all_request_text(server: &ScriptedServer) -> String {
    server
        .requests()
        .iter()
        .map(|r| r.body.to_string())
        .collect::<Vec<_>>()
        .join("\n")
}

fn files_containing(dir: &Path, needle: &str) -> Vec<String> {
    let mut hits = Vec::new();
    for entry in walk(dir) {
        if let Ok(text) = std::fs::read_to_string(&entry)
            && text.contains(needle)
        {
            hits.push(entry.display().to_string());
        }
    }
    hits
}

fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    if let Ok(rd) = std::fs::read_dir(dir) {
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                out.extend(walk(&p));
            } else {
                out.push(p);
            }
        }
    }
    out
}

/// Runs the pipeline on the planted project against `server`; returns the session dir.
fn run_planted(server: &ScriptedServer, dir: &Path, extra: &[&str]) -> std::path::PathBuf {
    let project = project_with_secrets(dir);
    let out = dir.join("session");
    let mut args = vec![
        "run",
        project.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--op",
        GET,
    ];
    args.extend_from_slice(extra);
    let output = mastor(&server.base_url(), dir, &args);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn secrets_never_reach_the_model_or_the_session() {
    let dir = tempfile::tempdir().unwrap();
    let server = ScriptedServer::start(petstore_script()).await.unwrap();
    let out = tokio::task::block_in_place(|| run_planted(&server, dir.path(), &["--op", POST]));
    let sent = all_request_text(&server);
    assert!(sent.contains("PetHandler"), "the handler was sent");
    assert!(
        sent.contains("INSERT INTO pets VALUES (7, 'Rex')"),
        "seed rows are sent"
    );
    assert!(sent.contains("«redacted: private key»"));
    for secret in [PEM_BODY, JAVA_PASSWORD, SEED_JWT, SA_KEY] {
        assert!(!sent.contains(secret), "{secret} reached the model");
        assert!(
            files_containing(&out, secret).is_empty(),
            "{secret} is on disk in the session: {:?}",
            files_containing(&out, secret)
        );
    }
    assert!(!sent.contains("CREATE TABLE"), "only INSERTs are seed data");
    let ignore = std::fs::read_to_string(out.join(".gitignore")).unwrap();
    assert!(
        ignore.contains("calls/") && ignore.contains("cache/"),
        "{ignore}"
    );
}

#[test]
fn scan_lists_what_was_redacted_and_the_refused_seed_files() {
    let dir = tempfile::tempdir().unwrap();
    let project = project_with_secrets(dir.path());
    let output = mastor(
        "http://127.0.0.1:9/v1",
        dir.path(),
        &["scan", project.to_str().unwrap()],
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        stdout.contains("redacted before anything reaches a model"),
        "{stdout}"
    );
    let handler_lines: Vec<&str> = stdout
        .lines()
        .filter(|l| l.trim_start().starts_with(&format!("{PET_HANDLER}:")))
        .collect();
    assert!(
        handler_lines.iter().any(|l| l.ends_with(": private key")),
        "{stdout}"
    );
    assert!(
        handler_lines.iter().any(|l| l.ends_with(": password")),
        "{stdout}"
    );
    assert!(
        stdout.contains("src/main/resources/data.sql:2: jwt"),
        "{stdout}"
    );
    assert!(
        stdout.contains("src/main/resources/service-account.json: looks like credentials"),
        "{stdout}"
    );
    for secret in [PEM_BODY, JAVA_PASSWORD, SEED_JWT, SA_KEY] {
        assert!(!stdout.contains(secret), "scan printed {secret}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_seed_data_sends_none() {
    let dir = tempfile::tempdir().unwrap();
    let server = ScriptedServer::start(petstore_script()).await.unwrap();
    tokio::task::block_in_place(|| {
        run_planted(&server, dir.path(), &["--no-seed-data", "--no-multi-op"])
    });
    let sent = all_request_text(&server);
    assert!(!sent.contains("INSERT INTO"), "seed data was sent");
}
