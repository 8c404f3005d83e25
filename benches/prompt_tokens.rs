//! What the pipeline sends, counted by a real tokenizer: the full pipeline on the
//! petstore-jdk fixture, answered by the recorded strong model (`scripts/replay-llm.py`
//! serving `tests/data/recorded/petstore-jdk-strong`), every request the run made read
//! back from the session's `calls/` and counted with OpenAI's `cl100k_base` encoding.
//!
//! Printed per agent, per operation: characters, the run plan's estimate (3 characters a
//! token, what `--dry-run` and the budget checks use) and the cl100k count, beside the same
//! counts for the requests as they were recorded (the prompts of the recording's time).
//! Below the table: the oracles the run kept and how the replay matched the requests, so a
//! change that costs oracles, or stops the recorded answers from matching, shows here too.
//! Other providers' tokenizers differ; cl100k stands for "a real BPE tokenizer".
//!
//! Run with `cargo bench --profile dev --bench prompt_tokens` (needs python3).

use serde_json::Value;
use std::collections::BTreeMap;
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};
use tiktoken_rs::CoreBPE;

const OPERATIONS: usize = 10;

/// Characters and cl100k tokens per agent.
#[derive(Default)]
struct Counts(BTreeMap<String, (usize, usize)>);

impl Counts {
    fn add(&mut self, agent: &str, text: &str, bpe: &CoreBPE) {
        let e = self.0.entry(agent.to_string()).or_default();
        e.0 += text.len();
        e.1 += bpe.encode_with_special_tokens(text).len();
    }
    fn total(&self) -> (usize, usize) {
        self.0
            .values()
            .fold((0, 0), |(c, t), (c2, t2)| (c + c2, t + t2))
    }
}

/// Kills the replay server when the bench ends, however it ends.
struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let recorded = root.join("tests/data/recorded/petstore-jdk-strong");
    let bpe = tiktoken_rs::cl100k_base().expect("cl100k_base");
    let work = tempfile::tempdir().expect("temp dir");
    let port = TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("free port")
        .port();
    let log = work.path().join("replay.log");
    let _server = Server(
        Command::new("python3")
            .arg(root.join("scripts/replay-llm.py"))
            .arg(port.to_string())
            .arg(&recorded)
            .arg("--log")
            .arg(&log)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("python3 scripts/replay-llm.py"),
    );
    let started = Instant::now();
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "the replay server did not start"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    let session = work.path().join("session");
    let out = Command::new(env!("CARGO_BIN_EXE_mastor"))
        .arg("run")
        .arg(root.join("tests/fixtures/petstore-jdk"))
        .arg("--out")
        .arg(&session)
        .args(["--concurrency", "4", "--json"])
        .env_remove("MASTOR_CONFIG")
        .env_remove("MASTOR_API_KEY")
        .env("MASTOR_BASE_URL", format!("http://127.0.0.1:{port}/v1"))
        .env("MASTOR_MODEL", "replay")
        .env("MASTOR_PROVIDER", "custom")
        .env("HOME", work.path())
        .env("XDG_CONFIG_HOME", work.path().join("config"))
        .env("XDG_CACHE_HOME", work.path().join("cache"))
        .output()
        .expect("mastor run");
    assert!(
        out.status.success(),
        "mastor run failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let run: Value = serde_json::from_slice(&out.stdout).expect("run --json");

    let mut now = Counts::default();
    for entry in std::fs::read_dir(session.join("calls")).expect("calls/") {
        let call: Value = read_json(&entry.expect("entry").path());
        let agent = call["agent"].as_str().unwrap_or("?");
        for m in call["messages"].as_array().into_iter().flatten() {
            now.add(agent, m["content"].as_str().unwrap_or(""), &bpe);
        }
    }
    let mut then = Counts::default();
    for entry in std::fs::read_dir(&recorded).expect("recording") {
        let path = entry.expect("entry").path();
        let name = path.file_name().unwrap_or_default().to_string_lossy();
        if name.starts_with("req-") && name.ends_with(".json") {
            let req: Value = read_json(&path);
            for m in req["messages"].as_array().into_iter().flatten() {
                then.add("(all agents)", m["content"].as_str().unwrap_or(""), &bpe);
            }
        }
    }

    println!(
        "prompt tokens per operation, petstore-jdk, recorded strong model ({OPERATIONS} operations)"
    );
    println!(
        "{:<22} {:>9} {:>11} {:>9}",
        "agent", "chars", "chars / 3", "cl100k"
    );
    let row = |name: &str, (c, t): (usize, usize)| {
        println!(
            "{:<22} {:>9} {:>11} {:>9}",
            name,
            c / OPERATIONS,
            c / 3 / OPERATIONS,
            t / OPERATIONS
        );
    };
    for (agent, counts) in &now.0 {
        row(agent, *counts);
    }
    row("all agents", now.total());
    row("as recorded", then.total());
    let matches = std::fs::read_to_string(&log).unwrap_or_default();
    let exact = matches.matches("\"exact\"").count();
    let nearest = matches.matches("\"nearest\"").count();
    println!();
    println!(
        "oracles kept {}, set aside {}; requests answered from an exact recorded match {exact}, by the nearest {nearest}",
        run["keeping"]["kept"], run["set_aside"]
    );
}

fn read_json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}
