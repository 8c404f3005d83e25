//! Seed data that lives in code: the petstore fixture ships no SQL or JSON seed file, its
//! store's constructor creates the owners and pets every valid input needs. `mastor scan`
//! lists that constructor with file:line, the generator's prompt carries it as seed data
//! instead of "(none)", secrets in it are redacted, and `--no-seed-data` sends none.

use crate::support;

use mastor::llm::scripted::ScriptedServer;
use mastor::source::seed_java::JavaSeedKind;
use mastor::source::{AnalyseOptions, analyse};
use std::path::{Path, PathBuf};
use support::*;

const STORE: &str = "src/main/java/petstore/store/PetStore.java";
const STORE_HEAD: &str =
    "// ----- src/main/java/petstore/store/PetStore.java:25 (constructor: PetStore.PetStore) -----";
const SEEDED_OWNER: &str = r#"owners.put(1L, new Owner(1, "Alice", "alice@example.com"));"#;
const SECRET: &str = "hunter2-seed";

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

/// The petstore fixture with a password literal planted in the store's constructor.
fn project_with_seed_secret(dir: &Path) -> PathBuf {
    let root = dir.join("petstore");
    copy_dir(&fixture("petstore-jdk"), &root);
    let store = root.join(STORE);
    let text = std::fs::read_to_string(&store).unwrap();
    let planted = text.replacen(
        "        this.staleStatusBug = staleStatusBug;\n",
        &format!("        this.staleStatusBug = staleStatusBug;\n        String password = \"{SECRET}\";\n"),
        1,
    );
    assert_ne!(planted, text, "secret planted");
    std::fs::write(&store, planted).unwrap();
    root
}

/// The `SEED DATA:` section of every single-op generator prompt.
fn generator_seed_sections(server: &ScriptedServer) -> Vec<String> {
    let sections: Vec<String> = server
        .requests()
        .into_iter()
        .filter(|r| r.agent.as_deref() == Some("single_op"))
        .map(|r| {
            // The bundle and the seed data lead the system message (the shared prefix).
            let system = r.body["messages"]
                .as_array()
                .and_then(|m| m.iter().find(|m| m["role"] == "system"))
                .and_then(|m| m["content"].as_str())
                .unwrap_or_default()
                .to_string();
            system
                .split("SEED DATA:\n")
                .nth(1)
                .and_then(|rest| rest.split("\n\n=== YOUR TASK ===").next())
                .unwrap_or_default()
                .to_string()
        })
        .collect();
    assert!(!sections.is_empty(), "the generator did not run");
    sections
}

fn run(server: &ScriptedServer, project: &Path, home: &Path, extra: &[&str]) {
    let out = home.join("session");
    let mut args = vec![
        "run",
        project.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--op",
        GET,
        "--no-multi-op",
    ];
    args.extend_from_slice(extra);
    let output = mastor(&server.base_url(), home, &args);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

#[test]
fn the_analysis_finds_the_store_constructor_with_file_and_line() {
    let dir = fixture("petstore-jdk");
    let spec = mastor::spec::load(&dir.join("openapi.json")).unwrap();
    let analysis = analyse(&dir, &spec, &AnalyseOptions::default()).unwrap();
    let seeds = &analysis.report.seed_java;
    let store = seeds
        .iter()
        .find(|s| s.file == STORE)
        .unwrap_or_else(|| panic!("{seeds:?}"));
    assert_eq!((store.line, store.end_line), (25, 32));
    assert_eq!(store.kind, JavaSeedKind::Constructor);
    assert!(store.text.contains(SEEDED_OWNER), "{}", store.text);
    assert!(
        store
            .text
            .contains(r#"add("Rex", "available", "dog", 3, 1L);"#)
    );
    // The handlers wire routes but create no records.
    assert!(
        seeds.iter().all(|s| !s.file.contains("/handlers/")),
        "{seeds:?}"
    );
    let json = serde_json::to_value(&analysis.report).unwrap();
    let listed = json["seed_java"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["file"] == STORE)
        .cloned()
        .unwrap();
    assert_eq!(listed["line"], 25);
    assert_eq!(listed["kind"], "constructor");
    assert!(
        listed.get("text").is_none(),
        "the JSON report lists, not copies"
    );
}

#[test]
fn scan_lists_seed_data_in_start_up_code() {
    let home = tempfile::tempdir().unwrap();
    let output = mastor(
        "http://127.0.0.1:9/v1",
        home.path(),
        &["scan", fixture("petstore-jdk").to_str().unwrap()],
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let section = stdout
        .split("seed data in start-up code:\n")
        .nth(1)
        .unwrap_or_else(|| panic!("{stdout}"));
    let line = section
        .lines()
        .find(|l| l.trim_start().starts_with(&format!("{STORE}:25 ")))
        .unwrap_or_else(|| panic!("{stdout}"));
    assert!(line.ends_with("PetStore.PetStore (constructor)"), "{line}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_generator_prompt_carries_the_seeded_records() {
    let server = ScriptedServer::start(petstore_script()).await.unwrap();
    let home = tempfile::tempdir().unwrap();
    let project = fixture("petstore-jdk");
    tokio::task::block_in_place(|| run(&server, &project, home.path(), &[]));
    for seed in generator_seed_sections(&server) {
        assert_ne!(seed.trim(), "(none)");
        assert!(seed.contains(STORE_HEAD), "{seed}");
        assert!(seed.contains(SEEDED_OWNER), "{seed}");
        assert!(seed.contains(r#"add("Nemo", "sold", "fish", 1, null);"#));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_secret_in_a_seed_method_is_redacted() {
    let server = ScriptedServer::start(petstore_script()).await.unwrap();
    let home = tempfile::tempdir().unwrap();
    let project = project_with_seed_secret(home.path());
    tokio::task::block_in_place(|| run(&server, &project, home.path(), &[]));
    for seed in generator_seed_sections(&server) {
        assert!(seed.contains(STORE_HEAD), "{seed}");
        assert!(
            seed.contains("String password = \"«redacted: password»\";"),
            "{seed}"
        );
    }
    for r in server.requests() {
        assert!(!r.body.to_string().contains(SECRET), "the secret was sent");
    }
    let scan = mastor(
        "http://127.0.0.1:9/v1",
        home.path(),
        &["scan", project.to_str().unwrap()],
    );
    let stdout = String::from_utf8_lossy(&scan.stdout);
    assert!(
        stdout.contains(&format!("{STORE}:27: password")),
        "{stdout}"
    );
    assert!(!stdout.contains(SECRET), "{stdout}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_seed_data_leaves_start_up_code_out() {
    let server = ScriptedServer::start(petstore_script()).await.unwrap();
    let home = tempfile::tempdir().unwrap();
    let project = fixture("petstore-jdk");
    tokio::task::block_in_place(|| run(&server, &project, home.path(), &["--no-seed-data"]));
    for seed in generator_seed_sections(&server) {
        assert_eq!(seed.trim(), "(none)");
    }
}
