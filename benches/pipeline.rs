//! Pipeline benchmark: a synthetic Spring API of 68 operations (the size of the paper's
//! largest subject) run through the whole pipeline in-process, against the scripted
//! server answering every call after a fixed delay with valid generic answers, so every
//! phase runs (discovery, extraction, single-op, challenger, regeneration, grouping,
//! multi-op and its challenger and regeneration).
//!
//! Prints the wall time against two lower bounds:
//! - critical path = rounds × delay, where rounds is the longest chain of dependent calls:
//!   discovery → extraction → grouping (after the last extraction) → multi-op →
//!   challenger → regeneration = 6 (the single-op chain discovery → extraction →
//!   single-op → challenger → regeneration is 5);
//! - throughput bound = calls × delay / concurrency (no schedule beats the call limit).
//!
//! The bound is the larger of the two. It also prints the token reduction of the
//! grouping's context compression (`groups.json`) and of bundle de-duplication.
//! Run with `cargo bench --bench pipeline`.

use mastor::agents::runtime::{AgentCtx, Board};
use mastor::agents::semantic::GroupingRecord;
use mastor::llm::scripted::{Reply, Rule, Script, ScriptedServer};
use mastor::llm::{LlmClient, LlmConfig, Provider};
use mastor::pipeline::driver;
use mastor::pipeline::orchestrator::{GroupState, OpState, PipelineOptions};
use mastor::pipeline::prepare::Prepared;
use mastor::prompts::Prompts;
use mastor::spec::Exclusions;
use mastor::store::{Manifest, Session};
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Resources; each has list, create, read and delete: 17 × 4 = 68 operations.
const RESOURCES: usize = 17;
const DELAY_MS: u64 = 200;
/// Longest chain of dependent calls (see the module docs).
const ROUNDS: u64 = 6;

fn main() {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path().join("project");
    generate(&root);
    // The same runtime `mastor run` uses (one worker per core).
    let runtime = tokio::runtime::Runtime::new().expect("tokio runtime");
    println!(
        "synthetic Spring API: {} operations in {RESOURCES} controllers, reply delay {DELAY_MS} ms",
        RESOURCES * 4
    );
    for concurrency in [16, 512] {
        let out = dir.path().join(format!("session-{concurrency}"));
        runtime.block_on(run_once(&root, &out, concurrency));
    }
}

async fn run_once(root: &Path, out: &Path, concurrency: usize) {
    let server = ScriptedServer::start(script())
        .await
        .expect("scripted server");
    let project = Prepared::load(
        root,
        Some(&root.join("openapi.json")),
        &Exclusions::default(),
        &[],
    )
    .expect("prepare");
    let matched = project.static_matched().len();
    assert_eq!(matched, RESOURCES * 4, "every operation statically matched");
    let (per_op, distinct, distinct_n) = bundle_tokens(&project);
    let distinct_texts: Vec<(String, usize)> = {
        let mut m = BTreeMap::new();
        for b in project.analysis.bundles.values() {
            m.insert(b.hash.clone(), (b.text.clone(), b.tokens_est));
        }
        m.into_values().collect()
    };
    let files_tokens = mastor::agents::baseline::dp_source(&project, usize::MAX)
        .text
        .len()
        .div_ceil(4);
    let session = Session::create(
        out,
        Manifest::new(root.display().to_string(), "openapi.json"),
    )
    .expect("session");
    let mut config = LlmConfig::for_base_url(Provider::Custom, server.base_url(), "scripted");
    config.concurrency = concurrency;
    config.max_attempts = 1;
    let ctx = AgentCtx {
        mutation_notes: Default::default(),
        client: LlmClient::new(config).expect("client"),
        prompts: Arc::new(Prompts::embedded()),
        session: Arc::new(session),
        project: Arc::new(project),
        board: Arc::new(Mutex::new(Board::default())),
        sink: None,
        max_tokens: None,
        fresh_agents: Default::default(),
        normalize: Default::default(),
    };
    let session = Arc::clone(&ctx.session);
    let started = Instant::now();
    let state = driver::run(ctx, PipelineOptions::default(), None).await;
    let wall = started.elapsed();

    let done = state.ops.values().filter(|s| **s == OpState::Done).count();
    let groups_done = state
        .groups
        .values()
        .filter(|s| **s == GroupState::Done)
        .count();
    assert_eq!(
        done,
        RESOURCES * 4,
        "every operation done: {:?}",
        state.notes
    );
    assert_eq!(
        groups_done, RESOURCES,
        "every group done: {:?}",
        state.notes
    );
    let calls = server.calls() as u64;
    let mut by_agent: BTreeMap<String, usize> = BTreeMap::new();
    for r in server.requests() {
        *by_agent.entry(r.agent.unwrap_or_default()).or_default() += 1;
    }
    assert_eq!(by_agent.get("single_op_regenerate"), Some(&(RESOURCES * 4)));
    assert_eq!(by_agent.get("multi_op_regenerate"), Some(&RESOURCES));

    let delay = Duration::from_millis(DELAY_MS);
    let critical = delay * ROUNDS as u32;
    let throughput =
        Duration::from_secs_f64(delay.as_secs_f64() * calls as f64 / concurrency as f64);
    let bound = critical.max(throughput);
    let ratio = wall.as_secs_f64() / bound.as_secs_f64();
    let mut s = String::new();
    let _ = writeln!(s, "\n== concurrency {concurrency} ==");
    let _ = writeln!(
        s,
        "calls: {calls} ({}), peak in flight {}",
        by_agent
            .iter()
            .map(|(a, n)| format!("{a} {n}"))
            .collect::<Vec<_>>()
            .join(", "),
        server.peak_in_flight()
    );
    let _ = writeln!(s, "wall time       : {:>7.3} s", wall.as_secs_f64());
    let _ = writeln!(
        s,
        "critical path   : {:>7.3} s  = {ROUNDS} rounds × {DELAY_MS} ms",
        critical.as_secs_f64()
    );
    let _ = writeln!(
        s,
        "throughput bound: {:>7.3} s  = {calls} calls × {DELAY_MS} ms / {concurrency}",
        throughput.as_secs_f64()
    );
    let _ = writeln!(
        s,
        "wall / max(bounds) = {ratio:.2}x (target ≤ 1.30x){}",
        if ratio <= 1.3 { "" } else { "  ABOVE TARGET" }
    );
    let grouping: GroupingRecord = session
        .read_json("groups.json")
        .expect("groups.json readable")
        .expect("groups.json written");
    let _ = writeln!(
        s,
        "compression     : {} contexts JSON chars → {} compressed chars ({:.1}% fewer tokens sent to grouping)",
        grouping.contexts_json_chars, grouping.compressed_chars, grouping.reduction_percent
    );
    let _ = writeln!(
        s,
        "bundle dedup    : {per_op} tokens over {} per-operation bundles → {distinct} tokens in {distinct_n} distinct bundles ({:.1}% fewer); {files_tokens} tokens of distinct files",
        RESOURCES * 4,
        100.0 * (1.0 - distinct as f64 / per_op as f64)
    );
    let sent = bundle_tokens_sent(&server, &distinct_texts);
    let _ = writeln!(
        s,
        "bundle tokens actually sent, by agent: {}",
        sent.iter()
            .map(|(a, (n, t))| format!("{a} {t} in {n} calls"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    print!("{s}");
}

/// (sum of per-operation bundle tokens, tokens of the distinct bundles, distinct count).
fn bundle_tokens(p: &Prepared) -> (usize, usize, usize) {
    let per_op: usize = p.analysis.bundles.values().map(|b| b.tokens_est).sum();
    let mut distinct = BTreeMap::new();
    for b in p.analysis.bundles.values() {
        distinct.insert(b.hash.clone(), b.tokens_est);
    }
    (per_op, distinct.values().sum(), distinct.len())
}

/// Per agent: (calls that carried a bundle, bundle tokens they carried), found by looking
/// for each distinct bundle's text in the request bodies the server received.
fn bundle_tokens_sent(
    server: &ScriptedServer,
    bundles: &[(String, usize)],
) -> BTreeMap<String, (usize, usize)> {
    let mut out: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    for r in server.requests() {
        let text: String = r.body["messages"]
            .as_array()
            .map(|ms| ms.iter().filter_map(|m| m["content"].as_str()).collect())
            .unwrap_or_default();
        let tokens: usize = bundles
            .iter()
            .filter(|(b, _)| text.contains(b.as_str()))
            .map(|(_, t)| t)
            .sum();
        if tokens > 0 {
            let e = out.entry(r.agent.unwrap_or_default()).or_default();
            e.0 += 1;
            e.1 += tokens;
        }
    }
    out
}

fn op_ids(i: usize) -> [String; 4] {
    [
        format!("GET /res{i}"),
        format!("POST /res{i}"),
        format!("GET /res{i}/{{id}}"),
        format!("DELETE /res{i}/{{id}}"),
    ]
}

fn rule(agent: &str, contains: Option<String>, value: Value) -> Rule {
    Rule {
        agent: Some(agent.into()),
        contains,
        replies: vec![Reply::json(value)],
        delay_ms: DELAY_MS,
        ..Rule::default()
    }
}

/// Valid generic answers for every agent; per-group answers name the group's operations.
fn script() -> Script {
    let context = json!({
        "request_params": [],
        "response_schema": {"success_status": 200,
            "fields": [{"name": "id", "type": "long", "nullable": false},
                       {"name": "name", "type": "String", "nullable": false}],
            "error_cases": [{"status": 404, "condition": "no resource with id"}]},
        "request_params_pending": [], "response_schema_pending": []});
    let fv = |name: &str| {
        json!({"test_id": "fv_ok", "description": "the resource reads back", "oracle_strategy": "fv",
            "input": {}, "assertions": [{"type": "status", "expected": 200},
            {"type": "field", "field_path": "name", "op": "equals", "expected": name}]})
    };
    let fi = json!({"test_id": "fi_missing", "description": "unknown id", "oracle_strategy": "fi",
        "input": {}, "assertions": [{"type": "status", "expected": 404}]});
    let mut rules = vec![
        rule("discovery", None, json!({"matches": []})),
        rule("extraction", None, context),
        rule("single_op", None, json!({"oracles": [fv("a"), fi]})),
        rule(
            "single_op_challenger",
            None,
            json!({"hints": [{"test_id": "fv_ok", "dimension": "assertion_correctness",
                "text": "the seeded name is b"}]}),
        ),
        rule("single_op_regenerate", None, json!({"oracles": [fv("b")]})),
    ];
    let groups: Vec<Value> = (0..RESOURCES)
        .map(|i| {
            let [_, create, read, _] = op_ids(i);
            json!({"group_id": format!("res{i}_lifecycle"), "pattern": "resource_lifecycle",
                "rationale": "create then read",
                "sequence": [{"op_id": create, "captures": {"rid": "id"}},
                             {"op_id": read, "binds": {"path.id": "rid"}}]})
        })
        .collect();
    rules.push(rule("semantic", None, json!({"groups": groups})));
    for i in 0..RESOURCES {
        let [_, create, read, _] = op_ids(i);
        let oracle = |name: &str| {
            json!({"oracles": [{"test_id": "create_read", "description": "created reads back",
                "steps": [
                    {"op_id": create, "input": {"body": {"name": name}}, "captures": {"rid": "id"},
                     "assertions": [{"type": "status", "expected": 200}]},
                    {"op_id": read, "input": {"path": {"id": "$captures.rid"}},
                     "assertions": [{"type": "status", "expected": 200},
                        {"type": "field", "field_path": "name", "op": "equals", "expected": name}]}]}]})
        };
        let marker = || Some(format!("GROUP: res{i}_lifecycle"));
        rules.push(rule("multi_op", marker(), oracle("x")));
        rules.push(rule(
            "multi_op_challenger",
            marker(),
            json!({"hints": [{"test_id": "create_read", "dimension": "sequence_logic",
                "text": "read the name that was sent"}]}),
        ));
        rules.push(rule("multi_op_regenerate", marker(), oracle("y")));
    }
    Script {
        rules,
        fallback: Vec::new(),
        n_ctx: None,
    }
}

/// Writes the Spring project: shared support classes (in every bundle), one DTO and one
/// controller per resource, and the OpenAPI 3.0 spec.
fn generate(root: &Path) {
    let base = root.join("src/main/java/com/example/bench");
    for sub in ["web", "dto", "common"] {
        std::fs::create_dir_all(base.join(sub)).expect("mkdir");
    }
    let write = |rel: &str, text: String| std::fs::write(base.join(rel), text).expect("write");
    write("common/ApiError.java", api_error());
    write("common/Store.java", store());
    let mut paths = serde_json::Map::new();
    for i in 0..RESOURCES {
        write(&format!("dto/Res{i}Dto.java"), dto(i));
        write(&format!("web/Res{i}Controller.java"), controller(i));
        let ok = json!({"200": {"description": "ok"}, "404": {"description": "not found"}});
        let id =
            json!([{"name": "id", "in": "path", "required": true, "schema": {"type": "integer"}}]);
        paths.insert(
            format!("/res{i}"),
            json!({"get": {"operationId": format!("list{i}"), "responses": ok},
                   "post": {"operationId": format!("create{i}"), "responses": ok,
                     "requestBody": {"content": {"application/json": {"schema": {"type": "object"}}}}}}),
        );
        paths.insert(
            format!("/res{i}/{{id}}"),
            json!({"get": {"operationId": format!("get{i}"), "parameters": id, "responses": ok},
                   "delete": {"operationId": format!("delete{i}"), "parameters": id, "responses": ok}}),
        );
    }
    let spec = json!({"openapi": "3.0.3", "info": {"title": "bench", "version": "1"},
        "paths": paths});
    std::fs::write(
        root.join("openapi.json"),
        serde_json::to_string_pretty(&spec).expect("spec json"),
    )
    .expect("write spec");
}

fn api_error() -> String {
    let mut s = String::from(
        "package com.example.bench.common;\n\n/** An error with an HTTP status. */\npublic class ApiError extends RuntimeException {\n    private final int status;\n\n    public ApiError(int status, String message) {\n        super(message);\n        this.status = status;\n    }\n\n    public int status() {\n        return status;\n    }\n",
    );
    for n in 0..20 {
        let _ = writeln!(
            s,
            "\n    public static ApiError code{n}() {{\n        return new ApiError(4{n:02}, \"error {n}\");\n    }}"
        );
    }
    s.push_str("}\n");
    s
}

fn store() -> String {
    let mut s = String::from(
        "package com.example.bench.common;\n\nimport java.util.*;\n\n/** In-memory storage shared by every resource. */\npublic class Store<T> {\n    private final Map<Long, T> items = new LinkedHashMap<>();\n    private long next = 1;\n\n    public List<T> all() {\n        return new ArrayList<>(items.values());\n    }\n\n    public long put(T item) {\n        items.put(next, item);\n        return next++;\n    }\n\n    public T get(long id) {\n        T t = items.get(id);\n        if (t == null) {\n            throw new ApiError(404, \"no item \" + id);\n        }\n        return t;\n    }\n\n    public void remove(long id) {\n        if (items.remove(id) == null) {\n            throw new ApiError(404, \"no item \" + id);\n        }\n    }\n",
    );
    for n in 0..30 {
        let _ = writeln!(
            s,
            "\n    /** Helper {n}. */\n    public int helper{n}(int x) {{\n        return x * {n} + items.size();\n    }}"
        );
    }
    s.push_str("}\n");
    s
}

fn dto(i: usize) -> String {
    format!(
        "package com.example.bench.dto;\n\n/** Resource {i}. */\npublic class Res{i}Dto {{\n    public long id;\n    public String name;\n\n    public Res{i}Dto() {{}}\n\n    public Res{i}Dto(long id, String name) {{\n        this.id = id;\n        this.name = name;\n    }}\n}}\n"
    )
}

fn controller(i: usize) -> String {
    format!(
        r#"package com.example.bench.web;

import com.example.bench.common.ApiError;
import com.example.bench.common.Store;
import com.example.bench.dto.Res{i}Dto;
import java.util.List;
import org.springframework.web.bind.annotation.*;

@RestController
@RequestMapping("/res{i}")
public class Res{i}Controller {{
    private final Store<Res{i}Dto> store = new Store<>();

    @GetMapping
    public List<Res{i}Dto> list{i}() {{
        return store.all();
    }}

    @PostMapping
    public Res{i}Dto create{i}(@RequestBody Res{i}Dto body) {{
        if (body.name == null || body.name.isBlank()) {{
            throw new ApiError(400, "name is required");
        }}
        body.id = store.put(body);
        return body;
    }}

    @GetMapping("/{{id}}")
    public Res{i}Dto get{i}(@PathVariable long id) {{
        return store.get(id);
    }}

    @DeleteMapping("/{{id}}")
    public void delete{i}(@PathVariable long id) {{
        store.remove(id);
    }}
}}
"#
    )
}
