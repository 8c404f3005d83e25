//! Configuration, provider quirks as the server receives them, the response cache, and
//! keys never written anywhere (cache, logs, `config show`).

use mastor::llm::scripted::{Reply, Rule, Script, ScriptedServer};
use mastor::llm::{
    CacheMode, CallRecord, CallRequest, LlmArgs, LlmClient, LlmConfig, Message, Provider,
};
use serde::Deserialize;
use serde_json::json;
use std::collections::HashMap;
use std::io::Write;
use std::path::Path;
use std::process::Command;
use std::sync::Arc;
use std::time::Duration;

#[derive(Debug, Deserialize)]
#[allow(dead_code)]
struct Answer {
    answer: String,
}

const KEY: &str = "sk-test-SECRET123abcd";

fn schema() -> serde_json::Value {
    json!({"type": "object", "properties": {"answer": {"type": "string"}}, "required": ["answer"]})
}

async fn echo_server() -> ScriptedServer {
    let script = Script {
        rules: vec![],
        fallback: vec![Reply::json(json!({"answer": "ok"}))],
        n_ctx: None,
    };
    ScriptedServer::start(script).await.unwrap()
}

fn env_for(base: &str, provider: &str, dir: &Path) -> HashMap<String, String> {
    [
        ("MASTOR_BASE_URL", base),
        ("MASTOR_PROVIDER", provider),
        ("MASTOR_API_KEY", KEY),
        ("XDG_CONFIG_HOME", dir.to_str().unwrap()),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect()
}

fn req(text: &str) -> CallRequest {
    CallRequest::new("extraction", "source_analysis", vec![Message::user(text)]).schema(schema())
}

#[tokio::test]
async fn provider_presets_shape_the_request_body() {
    let s = echo_server().await;
    let dir = tempfile::tempdir().unwrap();
    for provider in ["deepseek", "llamacpp", "qwen", "vllm"] {
        let mut cfg = LlmConfig::resolve(
            None,
            &env_for(&s.base_url(), provider, dir.path()),
            &LlmArgs::default(),
        )
        .unwrap();
        cfg.cache = CacheMode::Off;
        let client = LlmClient::new(cfg).unwrap();
        client
            .call_json::<Answer>(req(&format!("question for {provider}")))
            .await
            .unwrap();
    }
    let reqs = s.requests();
    assert_eq!(reqs.len(), 4);
    let deepseek = &reqs[0].body;
    assert_eq!(deepseek["thinking"], json!({"type": "disabled"}));
    assert_eq!(deepseek["response_format"], json!({"type": "json_object"}));
    assert!(deepseek["messages"].to_string().contains("JSON"));
    let llamacpp = &reqs[1].body;
    // llama.cpp's server and llama-cpp-python's both read the schema from json_object.
    assert_eq!(
        llamacpp["response_format"],
        json!({"type": "json_object", "schema": schema()})
    );
    assert_eq!(llamacpp["temperature"], 0.0);
    assert!(llamacpp.get("seed").is_some());
    let vllm = &reqs[3].body;
    assert_eq!(vllm["response_format"]["type"], "json_schema");
    assert_eq!(vllm["response_format"]["json_schema"]["schema"], schema());
    assert_eq!(vllm["response_format"]["json_schema"]["strict"], true);
    let qwen = &reqs[2].body;
    assert_eq!(qwen["enable_thinking"], false);
    assert_eq!(qwen["response_format"], json!({"type": "json_object"}));
    assert!(qwen["messages"].to_string().contains("JSON"));
    for r in &reqs {
        assert_eq!(
            r.authorization.as_ref().unwrap().expose(),
            KEY,
            "the key is sent"
        );
    }
}

#[tokio::test]
async fn cache_hits_make_no_request_and_refresh_makes_one() {
    let s = echo_server().await;
    let dir = tempfile::tempdir().unwrap();
    let mut cfg = LlmConfig::for_base_url(Provider::Openai, s.base_url(), "m");
    cfg.cache = CacheMode::Normal;
    cfg.cache_dir = Some(dir.path().join("cache"));
    cfg.prices.set(
        "m",
        mastor::llm::Price {
            input_cache_hit: 1.0,
            input_cache_miss: 1.0,
            output: 1.0,
        },
    );
    let client = LlmClient::new(cfg.clone()).unwrap();
    let (_, first) = client.call_json::<Answer>(req("q")).await.unwrap();
    assert!(!first.cache_hit);
    assert!(first.cost_usd > 0.0);
    let (_, second) = client.call_json::<Answer>(req("q")).await.unwrap();
    assert_eq!(s.calls(), 1, "a hit makes no HTTP request");
    assert!(second.cache_hit);
    assert_eq!(second.attempts, 0);
    assert_eq!(second.cost_usd, 0.0);
    assert_eq!(second.raw_answer, first.raw_answer);
    client
        .call_json::<Answer>(req("other question"))
        .await
        .unwrap();
    assert_eq!(s.calls(), 2, "a different prompt is a different key");

    let mut refresh = cfg.clone();
    refresh.cache = CacheMode::Refresh;
    let (_, r) = LlmClient::new(refresh)
        .unwrap()
        .call_json::<Answer>(req("q"))
        .await
        .unwrap();
    assert!(!r.cache_hit);
    assert_eq!(s.calls(), 3, "refresh asks again");

    let mut off = cfg;
    off.cache = CacheMode::Off;
    off.cache_dir = Some(dir.path().join("unused"));
    LlmClient::new(off)
        .unwrap()
        .call_json::<Answer>(req("q"))
        .await
        .unwrap();
    assert_eq!(s.calls(), 4);
    assert!(
        !dir.path().join("unused").exists(),
        "no_cache writes nothing"
    );
}

fn files_under(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            files_under(&p, out);
        } else {
            out.push(p);
        }
    }
}

#[tokio::test]
async fn the_key_is_never_written() {
    let s = ScriptedServer::start(Script {
        rules: vec![Rule::contains("fail", vec![Reply::status(401)])],
        fallback: vec![Reply::json(json!({"answer": "ok"}))],
        n_ctx: None,
    })
    .await
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let mut cfg = LlmConfig::resolve(
        None,
        &env_for(&s.base_url(), "openai", dir.path()),
        &LlmArgs::default(),
    )
    .unwrap();
    cfg.cache_dir = Some(dir.path().join("cache"));
    cfg.backoff_base = Duration::from_millis(1);
    let log_path = dir.path().join("logs/calls.jsonl");
    std::fs::create_dir_all(log_path.parent().unwrap()).unwrap();
    let log = Arc::new(std::sync::Mutex::new(
        std::fs::File::create(&log_path).unwrap(),
    ));
    let sink = log.clone();
    let client =
        LlmClient::new(cfg.clone())
            .unwrap()
            .with_observer(Arc::new(move |r: &CallRecord| {
                let mut f = sink.lock().unwrap();
                writeln!(f, "{}", serde_json::to_string(r).unwrap()).unwrap();
                writeln!(f, "{r:?}").unwrap();
            }));
    client.call_json::<Answer>(req("q")).await.unwrap();
    client.call_json::<Answer>(req("q")).await.unwrap();
    let err = client
        .call_json::<Answer>(req("please fail"))
        .await
        .unwrap_err();
    writeln!(
        log.lock().unwrap(),
        "{err} {err:?} {cfg:?} {}",
        cfg.render()
    )
    .unwrap();
    std::fs::write(
        dir.path().join("ledger.json"),
        serde_json::to_string(&client.ledger()).unwrap(),
    )
    .unwrap();
    assert_eq!(
        s.requests()[0].authorization.as_ref().unwrap().expose(),
        KEY
    );

    let mut files = Vec::new();
    files_under(dir.path(), &mut files);
    assert!(files.len() >= 3, "{files:?}");
    assert!(
        files
            .iter()
            .any(|f| f.starts_with(dir.path().join("cache"))),
        "cache written: {files:?}"
    );
    for f in files {
        let text = String::from_utf8_lossy(&std::fs::read(&f).unwrap()).to_string();
        assert!(!text.contains("SECRET123"), "key found in {}", f.display());
    }
}

fn mastor(args: &[&str], env: &[(&str, &str)]) -> std::process::Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_mastor"));
    cmd.args(args)
        .env_remove("MASTOR_CONFIG")
        .env_remove("MASTOR_BASE_URL")
        .env_remove("MASTOR_PROVIDER");
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().unwrap()
}

#[test]
fn config_init_and_show_mask_the_key() {
    let dir = tempfile::tempdir().unwrap();
    let xdg = dir.path().to_str().unwrap();
    let out = mastor(&["config", "init"], &[("XDG_CONFIG_HOME", xdg)]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let file = dir.path().join("mastor/config.toml");
    assert!(
        std::fs::read_to_string(&file)
            .unwrap()
            .contains("[llm.primary]")
    );
    let again = mastor(&["config", "init"], &[("XDG_CONFIG_HOME", xdg)]);
    assert_eq!(again.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&again.stderr).contains("--force"));
    assert!(
        mastor(&["config", "init", "--force"], &[("XDG_CONFIG_HOME", xdg)])
            .status
            .success()
    );

    let out = mastor(
        &["config", "show", "--model", "flag-model"],
        &[
            ("XDG_CONFIG_HOME", xdg),
            ("MASTOR_API_KEY", KEY),
            ("MASTOR_MODEL", "env-model"),
        ],
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!stdout.contains("SECRET123"), "{stdout}");
    assert!(stdout.contains("sk-…abcd"), "{stdout}");
    assert!(stdout.contains("model = \"flag-model\""), "{stdout}");
    assert!(stdout.contains(&file.display().to_string()), "{stdout}");
}

#[test]
fn invalid_toml_names_file_line_and_key() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("bad.toml");
    std::fs::write(
        &file,
        "[llm]\nconcurrency = 2\n[llm.primary]\nprovider = \"nosuch\"\n",
    )
    .unwrap();
    let out = mastor(
        &["config", "show"],
        &[("MASTOR_CONFIG", file.to_str().unwrap())],
    );
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&format!("{}:4", file.display())),
        "{stderr}"
    );
    assert!(stderr.contains("llm.primary.provider"), "{stderr}");
}
