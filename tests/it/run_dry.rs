//! `mastor run --dry-run` and the run budget: the plan is printed before anything is
//! sent, the scripted server counts no call, and a run over its budget is refused when
//! nobody can be asked.

use crate::support::*;
use mastor::llm::scripted::ScriptedServer;
use serde_json::Value;
use std::path::Path;
use std::process::Output;

fn run(server: &ScriptedServer, home: &Path, extra: &[&str]) -> Output {
    run_petstore(&server.base_url(), home, false, extra)
}

const DEEPSEEK: [&str; 4] = ["--provider", "deepseek", "--model", "deepseek-chat"];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dry_run_prints_the_plan_and_sends_nothing() {
    let server = ScriptedServer::start(petstore_script()).await.unwrap();
    let home = tempfile::tempdir().unwrap();
    // The mode named, so the snapshot does not change with the default.
    let mut extra = vec!["--dry-run", "--bundle", "closure"];
    extra.extend(DEEPSEEK);
    let output = run(&server, home.path(), &extra);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert_eq!(server.calls(), 0, "a dry run sends no request");
    assert!(
        !home.path().join("session").exists(),
        "a dry run writes no session"
    );
    let text = String::from_utf8(output.stdout).unwrap();
    insta::assert_snapshot!("dry_run_petstore", text);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_plan_shares_the_bundle_prefix_and_prices_it() {
    let server = ScriptedServer::start(petstore_script()).await.unwrap();
    let home = tempfile::tempdir().unwrap();
    // Closures: the bundle is then the largest part of a prompt, so a reviewer or a
    // revision that is not sent it must cost less than the extraction that is. (With a
    // slice, the suite and rules can outweigh the small bundle; the "not sent" checks
    // below hold.)
    let mut extra = vec![
        "--dry-run",
        "--json",
        "--no-multi-op",
        "--no-discovery",
        "--bundle",
        "closure",
    ];
    extra.extend(DEEPSEEK);
    let output = run(&server, home.path(), &extra);
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(server.calls(), 0);
    let plan: Value = serde_json::from_slice(&output.stdout).unwrap();
    let calls = plan["calls"].as_array().unwrap();
    assert_eq!(calls.len(), 12, "four agents for each of three operations");
    let of = |agent: &str| -> &Value {
        calls
            .iter()
            .find(|c| c["agent"] == agent && c["target"] == GET)
            .unwrap_or_else(|| panic!("no {agent} call for {GET}"))
    };
    let n = |v: &Value, k: &str| v[k].as_u64().unwrap();
    let first = calls.iter().find(|c| c["agent"] == "extraction").unwrap();
    assert!(
        n(first, "prefix_tokens") < 100,
        "the first call pays for its bundle: {first}"
    );
    let extraction = of("extraction");
    let sends = extraction["sends"].as_array().unwrap();
    assert!(
        sends.iter().any(|s| s["file"] == PET_HANDLER),
        "the handler file is listed with its lines: {sends:?}"
    );
    let generator = of("single_op");
    assert!(
        n(generator, "prefix_tokens") * 2 > n(extraction, "input_tokens"),
        "the generator shares the bundle prefix: {generator}"
    );
    // The review and the revision read the context and the cited lines, not the bundle.
    for agent in ["single_op_challenger", "single_op_regenerate"] {
        let c = of(agent);
        assert!(n(c, "input_tokens") < n(extraction, "input_tokens"), "{c}");
        assert!(
            !c["sends"]
                .as_array()
                .unwrap()
                .iter()
                .any(|s| s["file"] == PET_HANDLER),
            "{agent} is not sent the bundle"
        );
    }
    // Their instructions come first and are the same for every operation: after the
    // first review, a cache serves them.
    let reviews: Vec<&Value> = calls
        .iter()
        .filter(|c| c["agent"] == "single_op_challenger")
        .collect();
    assert_eq!(reviews.len(), 3);
    assert_eq!(n(reviews[0], "prefix_tokens"), 0);
    assert!(n(reviews[1], "prefix_tokens") > 500, "{}", reviews[1]);
    assert_eq!(
        n(reviews[1], "prefix_tokens"),
        n(reviews[2], "prefix_tokens")
    );
    let cost = &plan["cost"];
    let (without, with) = (
        cost["without_cache"].as_f64().unwrap(),
        cost["with_cache"].as_f64().unwrap(),
    );
    assert!(without > 0.0 && with < without, "{cost}");
    // Without discovery, the entry files no selected operation uses are never sent.
    let never = plan["never_sent"].as_array().unwrap();
    let owner = never
        .iter()
        .find(|f| f["file"] == "src/main/java/petstore/handlers/OwnerHandler.java")
        .unwrap_or_else(|| panic!("OwnerHandler.java is never sent: {never:?}"));
    assert!(
        owner["reason"].as_str().unwrap().contains("does not cover"),
        "{owner}"
    );
    assert!(
        !never.iter().any(|f| f["file"] == PET_HANDLER),
        "the handler is sent"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_over_its_budget_is_refused_when_nobody_can_be_asked() {
    let server = ScriptedServer::start(petstore_script()).await.unwrap();
    let home = tempfile::tempdir().unwrap();
    let output = run(&server, home.path(), &["--max-tokens-total", "1000"]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(4), "{stderr}");
    assert!(stderr.contains("over its budget"), "{stderr}");
    assert!(
        stderr.contains("Run plan (nothing has been sent)"),
        "{stderr}"
    );
    assert!(stderr.contains("not interactive"), "{stderr}");
    assert_eq!(server.calls(), 0, "a refused run sends nothing");

    let home = tempfile::tempdir().unwrap();
    let mut extra = vec!["--max-cost", "0.0001"];
    extra.extend(DEEPSEEK);
    let output = run(&server, home.path(), &extra);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(4), "{stderr}");
    assert!(stderr.contains("--max-cost 0.0001"), "{stderr}");
    assert_eq!(server.calls(), 0);

    // Within the budget, the run goes on as without one.
    let home = tempfile::tempdir().unwrap();
    let output = run(
        &server,
        home.path(),
        &[
            "--max-tokens-total",
            "10000000",
            "--no-multi-op",
            "--no-discovery",
            "--no-challenger",
        ],
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert_eq!(server.calls(), 6);
}

/// `mastor tui --run` checks the same budget as `mastor run`, before the workbench asks
/// for a terminal: over the budget and not interactive, it is refused with exit 4 and
/// nothing is sent; a dry run prints the plan; within the budget, the workbench is what
/// needs the terminal, and still nothing was sent.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_live_workbench_checks_the_budget_before_it_opens() {
    let server = ScriptedServer::start(petstore_script()).await.unwrap();
    let tui = |home: &Path, extra: &[&str]| -> Output {
        let out = home.join("session");
        let mut args = vec![
            "tui",
            "tests/fixtures/petstore-jdk",
            "--run",
            "--out",
            out.to_str().unwrap(),
            "--op",
            GET,
        ];
        args.extend_from_slice(extra);
        let mut cmd = mastor_cmd(&server.base_url(), home, &args);
        cmd.current_dir(env!("CARGO_MANIFEST_DIR"))
            .stdin(std::process::Stdio::null());
        tokio::task::block_in_place(|| cmd.output().unwrap())
    };

    let home = tempfile::tempdir().unwrap();
    let output = tui(home.path(), &["--max-tokens-total", "1000"]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(4), "{stderr}");
    assert!(stderr.contains("over its budget"), "{stderr}");
    assert!(stderr.contains("--max-tokens-total 1000"), "{stderr}");
    assert!(
        stderr.contains("Run plan (nothing has been sent)"),
        "{stderr}"
    );
    assert!(stderr.contains("not interactive"), "{stderr}");
    assert!(!stderr.contains("needs a terminal"), "{stderr}");
    assert!(!home.path().join("session").exists(), "nothing written");
    assert_eq!(server.calls(), 0, "a refused run sends nothing");

    let home = tempfile::tempdir().unwrap();
    let mut extra = vec!["--max-cost", "0.0001"];
    extra.extend(DEEPSEEK);
    let output = tui(home.path(), &extra);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(4), "{stderr}");
    assert!(stderr.contains("--max-cost 0.0001"), "{stderr}");
    assert_eq!(server.calls(), 0);

    let home = tempfile::tempdir().unwrap();
    let output = tui(home.path(), &["--dry-run"]);
    assert_eq!(output.status.code(), Some(0));
    let plan = String::from_utf8_lossy(&output.stdout);
    assert!(
        plan.starts_with("Run plan (nothing has been sent)"),
        "{plan}"
    );
    assert!(plan.contains(GET), "{plan}");
    assert_eq!(server.calls(), 0);

    // Within the budget the check lets the run go on; the workbench then needs a
    // terminal, which a test does not have, and nothing has been sent.
    let home = tempfile::tempdir().unwrap();
    let output = tui(home.path(), &["--max-tokens-total", "10000000"]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("needs a terminal"), "{stderr}");
    assert!(!stderr.contains("over its budget"), "{stderr}");
    assert_eq!(server.calls(), 0);
}

/// The plan lists what would be sent after redaction: a planted secret is counted on its
/// file, and its text appears nowhere in the plan.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_plan_counts_redacted_secrets_and_never_shows_them() {
    const SECRET: &str = "hunter2-planted-secret";
    const STORE: &str = "src/main/java/petstore/store/PetStore.java";
    let server = ScriptedServer::start(petstore_script()).await.unwrap();
    let home = tempfile::tempdir().unwrap();
    let root = home.path().join("petstore");
    let status = std::process::Command::new("cp")
        .arg("-r")
        .arg(fixture("petstore-jdk"))
        .arg(&root)
        .status()
        .unwrap();
    assert!(status.success());
    let file = root.join(STORE);
    let text = std::fs::read_to_string(&file).unwrap();
    let planted = text.replacen(
        "    private final Map<Long, Pet> pets",
        &format!("    private static final String PASSWORD = \"{SECRET}\";\n    private final Map<Long, Pet> pets"),
        1,
    );
    assert_ne!(planted, text, "secret planted");
    std::fs::write(&file, planted).unwrap();
    let out = home.path().join("session");
    let args = [
        "run",
        root.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--op",
        GET,
        "--dry-run",
        "--json",
        "--no-discovery",
    ];
    let mut cmd = mastor_cmd(&server.base_url(), home.path(), &args);
    let output = tokio::task::block_in_place(|| cmd.output().unwrap());
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(!stdout.contains(SECRET), "the secret is in the plan");
    let plan: Value = serde_json::from_str(&stdout).unwrap();
    let extraction = plan["calls"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["agent"] == "extraction")
        .unwrap();
    let store = extraction["sends"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["file"] == STORE)
        .unwrap_or_else(|| panic!("the store is sent: {extraction}"));
    assert!(store["redactions"].as_u64().unwrap() >= 1, "{store}");
    assert_eq!(server.calls(), 0);
}
