//! Fixture sessions for the workbench tests and bench: a small review session over the
//! petstore-jdk fixture (evidence refs point at real lines of its Java sources) and a
//! large synthetic one.
#![allow(dead_code)]

pub mod bench;
pub mod tmux;

use chrono::{DateTime, TimeZone, Utc};
use mastor::model::{
    Assertion, ChallengerReview, ContextField, ContextParam, ErrorCase, EvidenceRef, FieldOp, Hint,
    HintDimension, MultiOpOracle, Oracle, OracleInput, PendingClaim, ResponseSchema, SourceContext,
    Step, Strategy,
};
use mastor::store::{Event, EventKind, GroupRecord, Manifest, Session, SuiteRecord};
use serde_json::json;
use std::path::{Path, PathBuf};

pub const PET_HANDLER: &str = "src/main/java/petstore/handlers/PetHandler.java";
pub const PET_REQUEST: &str = "src/main/java/petstore/handlers/PetRequest.java";

/// The petstore-jdk fixture project.
pub fn petstore_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/petstore-jdk")
}

/// A fixed time, so snapshots never depend on the clock.
pub fn t0() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 12, 2, 12, 0, 0).unwrap()
}

fn ev(kind: EventKind, agent: &str, op: &str, secs: i64) -> Event {
    let mut e = Event::new(kind, agent).op(op).phase(match agent {
        "source_extraction" => "source_analysis",
        "challenger" => "challenge",
        _ => "oracle_generation",
    });
    e.at = t0() + chrono::Duration::seconds(secs);
    e
}

/// Appends `e` the way the pipeline does: an agent's tokens and cost arrive on a
/// per-call `note` event, and the finish event carries only the agent's wall time.
fn emit(session: &Session, e: Event) {
    if e.kind == EventKind::AgentFinished && e.tokens_in.is_some() {
        let mut call = e.clone();
        call.kind = EventKind::Note;
        call.message = Some("call".into());
        session.append_event(&call).unwrap();
        let mut fin = e;
        fin.tokens_in = None;
        fin.tokens_out = None;
        fin.cost_usd = None;
        fin.wall_ms = fin.wall_ms.map(|w| w + 100);
        session.append_event(&fin).unwrap();
    } else {
        session.append_event(&e).unwrap();
    }
}

fn r(file: &str, a: usize, b: usize) -> EvidenceRef {
    EvidenceRef {
        file: file.into(),
        start_line: a,
        end_line: b,
    }
}

fn oracle(
    op: &str,
    id: &str,
    s: Strategy,
    desc: &str,
    q: &[(&str, &str)],
    status: u16,
    refs: Vec<EvidenceRef>,
) -> Oracle {
    let mut assertions = vec![Assertion::Status { expected: status }];
    if status == 200 {
        assertions.push(Assertion::Field {
            field_path: "[*].id".into(),
            op: FieldOp::NotNull,
            expected: serde_json::Value::Null,
        });
    }
    Oracle {
        test_id: id.into(),
        op_id: op.into(),
        description: desc.into(),
        oracle_strategy: Some(s),
        input: OracleInput {
            query: q.iter().map(|(k, v)| (k.to_string(), json!(v))).collect(),
            ..OracleInput::default()
        },
        assertions,
        evidence: format!("{desc}: see the handler's checks"),
        evidence_refs: refs,
        fresh_state: false,
    }
}

/// Writes the petstore review session into `<dir>/.mastor` and returns it.
pub fn petstore_session(dir: &Path) -> Session {
    let sdir = dir.join(".mastor");
    let root = petstore_root();
    let session = Session::create(
        &sdir,
        Manifest::new(root.display().to_string(), "openapi.json"),
    )
    .unwrap();
    // Shaped like the scan report the pipeline writes (`operations` plus other keys).
    let ops = json!({"spec": {"file": "openapi.json"}, "operations": [
        {"op_id": "GET /pets", "method": "GET", "path": "/pets", "summary": "List pets",
         "entry": {"file": PET_HANDLER, "class": "PetHandler", "method": "listPets", "line": 65},
         "bundle": {"files": [PET_HANDLER, PET_REQUEST, "src/main/java/petstore/http/Http.java"], "lines": 300, "bytes": 9000, "tokens_est": 2500, "hash": "ab12"}},
        {"op_id": "POST /pets", "method": "POST", "path": "/pets", "summary": "Create a pet",
         "entry": {"file": PET_HANDLER, "class": "PetHandler", "method": "createPet", "line": 89},
         "bundle": {"files": [PET_HANDLER, PET_REQUEST]}},
        {"op_id": "GET /pets/{id}", "method": "GET", "path": "/pets/{id}", "summary": "Get one pet",
         "entry": {"file": PET_HANDLER, "class": "PetHandler", "method": "getPet", "line": 96},
         "bundle": {"files": [PET_HANDLER]}},
        {"op_id": "DELETE /pets/{id}", "method": "DELETE", "path": "/pets/{id}", "summary": "Delete a pet",
         "entry": null, "unmatched_reason": "no route matches DELETE in PetHandler", "bundle": null}
    ]});
    session.write_operations(&ops).unwrap();
    session
        .write_context(&SourceContext {
            op_id: "GET /pets".into(),
            error_envelopes: vec![mastor::model::ErrorEnvelope {
                name: "Http.sendError".into(),
                kind: "renderer".into(),
                fields: vec![
                    mastor::model::ErrorField {
                        name: "error".into(),
                        ty: "string".into(),
                        ..Default::default()
                    },
                    mastor::model::ErrorField {
                        name: "status".into(),
                        ty: "integer".into(),
                        ..Default::default()
                    },
                ],
                origin: mastor::model::EnvelopeOrigin::Static,
                evidence_refs: vec![mastor::model::EvidenceRef {
                    file: "src/main/java/petstore/http/Http.java".into(),
                    start_line: 34,
                    end_line: 39,
                }],
            }],
            request_params: vec![
                ContextParam {
                    name: "limit".into(),
                    location: "query".into(),
                    ty: "integer".into(),
                    required: false,
                    constraints: vec![
                        "1 <= limit <= 100".into(),
                        "must parse as an integer".into(),
                    ],
                    oas_match: true,
                },
                ContextParam {
                    name: "status".into(),
                    location: "query".into(),
                    ty: "string".into(),
                    required: false,
                    constraints: vec!["one of available, pending, sold".into()],
                    oas_match: true,
                },
                ContextParam {
                    name: "tag".into(),
                    location: "query".into(),
                    ty: "string".into(),
                    required: false,
                    constraints: vec![],
                    oas_match: false,
                },
            ],
            response_schema: ResponseSchema {
                success_status: Some(200),
                fields: vec![
                    ContextField {
                        name: "id".into(),
                        ty: "integer".into(),
                        nullable: false,
                    },
                    ContextField {
                        name: "name".into(),
                        ty: "string".into(),
                        nullable: false,
                    },
                    ContextField {
                        name: "tag".into(),
                        ty: "string".into(),
                        nullable: true,
                    },
                ],
                error_cases: vec![ErrorCase {
                    status: 400,
                    condition: "limit not a number or outside 1..100".into(),
                    envelope: Some("Http.sendError".into()),
                    body: vec![mastor::model::ErrorField {
                        name: "error".into(),
                        ty: "string".into(),
                        template: Some("limit must be between 1 and 100".into()),
                        ..Default::default()
                    }],
                    ..Default::default()
                }],
            },
            request_params_pending: vec![PendingClaim {
                name: Some("offset".into()),
                status: None,
                oas_claim: json!({"in": "query", "type": "integer"}),
                reason: "the handler never reads offset".into(),
            }],
            response_schema_pending: vec![PendingClaim {
                name: None,
                status: Some(404),
                oas_claim: json!("Not found"),
                reason: "no code path returns 404 for the list".into(),
            }],
        })
        .unwrap();
    let get_pets = "GET /pets";
    let mut suite = SuiteRecord::new(get_pets);
    suite.oracles = vec![
        oracle(
            get_pets,
            "fv_limit_10",
            Strategy::Fv,
            "limit=10 lists at most 10 pets",
            &[("limit", "10")],
            200,
            vec![r(PET_HANDLER, 72, 80), r(PET_HANDLER, 82, 86)],
        ),
        oracle(
            get_pets,
            "bi_limit_0",
            Strategy::Bi,
            "limit=0 is below the range",
            &[("limit", "0")],
            400,
            vec![r(PET_HANDLER, 78, 80)],
        ),
        oracle(
            get_pets,
            "fi_limit_abc",
            Strategy::Fi,
            "limit=abc is not a number",
            &[("limit", "abc")],
            400,
            vec![r(PET_HANDLER, 73, 77)],
        ),
        oracle(
            get_pets,
            "bv_limit_100",
            Strategy::Bv,
            "limit=100 is the upper bound",
            &[("limit", "100")],
            200,
            vec![r(PET_HANDLER, 78, 80)],
        ),
    ];
    suite.review = Some(ChallengerReview {
        hints: vec![Hint {
            test_id: "bi_limit_0".into(),
            dimension: HintDimension::AssertionCorrectness,
            text: "also check limit=101 (upper bound + 1)".into(),
            origin: Default::default(),
            affects: vec![],
        }],
    });
    suite.regenerated = vec!["bi_limit_0".into()];
    // The targeted regeneration's merge, as the pipeline keeps it: (before, after) pairs.
    let mut before = suite.oracles[1].clone();
    before.assertions = vec![Assertion::Status { expected: 200 }];
    before.description = "limit=0 lists nothing".into();
    session
        .write_json(
            &format!("regen/{}.json", mastor::store::op_slug(get_pets)),
            &json!({"merge": {"replaced": [[before, suite.oracles[1].clone()]], "added": [], "ignored": []}}),
        )
        .unwrap();
    session.write_suite(&suite).unwrap();
    // A run of the runner, as `mastor check` stores it: one pass, one fail.
    session
        .write_json(
            "verdicts/latest.json",
            &json!({"at": "2026-12-02T12:30:00Z", "base_url": "http://127.0.0.1:8080",
                "summary": {"passed": 1, "failed": 1, "errors": 0, "skipped": 0},
                "verdicts": [
                {"o_id": "GET /pets#bv_limit_100", "outcome": "pass", "at": "2026-12-02T12:30:00Z",
                 "base_url": "http://127.0.0.1:8080", "steps": [{"op_id": get_pets, "outcome": "pass",
                 "assertions": [{"index": 0, "outcome": "pass", "expected": 200, "actual": 200}]}]},
                {"o_id": "GET /pets#fv_limit_10", "outcome": "fail", "at": "2026-12-02T12:30:00Z",
                 "base_url": "http://127.0.0.1:8080", "steps": [{"op_id": get_pets, "outcome": "fail",
                 "assertions": [{"index": 0, "outcome": "fail", "expected": 200, "actual": 500,
                                 "message": "status differs"}]}]}
            ]}),
        )
        .unwrap();
    let mut post = SuiteRecord::new("POST /pets");
    post.oracles = vec![
        oracle(
            "POST /pets",
            "fv_create",
            Strategy::Fv,
            "a valid pet is created",
            &[],
            201,
            vec![r(PET_HANDLER, 89, 94)],
        ),
        oracle(
            "POST /pets",
            "fi_no_name",
            Strategy::Fi,
            "a pet without name is refused",
            &[],
            400,
            vec![r(PET_REQUEST, 1, 20)],
        ),
    ];
    session.write_suite(&post).unwrap();
    let mut one = SuiteRecord::new("GET /pets/{id}");
    one.oracles = vec![oracle(
        "GET /pets/{id}",
        "fi_unknown_id",
        Strategy::Fi,
        "an unknown id is 404",
        &[],
        404,
        vec![r(PET_HANDLER, 96, 99)],
    )];
    session.write_suite(&one).unwrap();

    let mut group = GroupRecord::new("pet-lifecycle");
    group.group = json!({"operations": ["POST /pets", "GET /pets/{id}"]});
    group.oracles = vec![MultiOpOracle {
        test_id: "create_then_get".into(),
        group_id: "pet-lifecycle".into(),
        description: "a created pet can be read back".into(),
        steps: vec![
            Step {
                op_id: "POST /pets".into(),
                input: OracleInput {
                    body: Some(json!({"name": "rex"})),
                    ..OracleInput::default()
                },
                captures: [("id".to_string(), "id".to_string())].into(),
                assertions: vec![Assertion::Status { expected: 201 }],
            },
            Step {
                op_id: "GET /pets/{id}".into(),
                input: OracleInput {
                    path: [("id".to_string(), json!("$captures.id"))].into(),
                    ..OracleInput::default()
                },
                captures: Default::default(),
                assertions: vec![
                    Assertion::Status { expected: 200 },
                    Assertion::Field {
                        field_path: "name".into(),
                        op: FieldOp::Equals,
                        expected: json!("rex"),
                    },
                ],
            },
        ],
        evidence: "createPet stores the pet; getPet reads it".into(),
        evidence_refs: vec![r(PET_HANDLER, 89, 99)],
    }];
    session.write_group(&group).unwrap();

    session.write_call("call-1", &json!({"id": "call-1", "agent": "oracle_generation", "phase": "oracle_generation", "op_id": get_pets, "role": "primary", "provider": "deepseek", "model": "deepseek-chat", "base_url": "http://127.0.0.1:1/v1",
        "usage": {"prompt_tokens": 1800, "completion_tokens": 600, "cached_tokens": 0}, "wall_ms": 4200, "attempts": 1, "retries": [], "cost_usd": 0.0012,
        "cache_hit": false, "reasked": false, "finish_reason": "stop", "parse_error": null, "error": null, "started_at": "2026-12-02T12:00:04Z",
        "messages": [{"role": "system", "content": "You write test oracles."}, {"role": "user", "content": "Operation GET /pets ..."}],
        "raw_answer": "{\"oracles\": [ ... ]}"})).unwrap();
    session.write_call("call-2", &json!({"id": "call-2", "agent": "challenger", "phase": "challenge", "op_id": get_pets, "role": "challenger", "provider": "qwen", "model": "qwen-plus", "base_url": "http://127.0.0.1:1/v1",
        "usage": {"prompt_tokens": 900, "completion_tokens": 120, "cached_tokens": 0}, "wall_ms": 1500, "attempts": 2, "cost_usd": 0.0004,
        "retries": [{"attempt": 1, "reason": "HTTP 429", "wait_ms": 1000, "from_retry_after": true}], "repairs": ["code fence"], "reasked": true,
        "cache_hit": false, "finish_reason": "stop", "error": null, "started_at": "2026-12-02T12:00:10Z",
        "messages": [{"role": "user", "content": "Review this suite"}], "raw_answer": "not json", "parse_error": "expected value at line 1 column 1"})).unwrap();

    for e in [
        ev(
            EventKind::AgentStarted,
            "multi_op",
            "group:pet-lifecycle",
            30,
        ),
        ev(
            EventKind::AgentFinished,
            "multi_op",
            "group:pet-lifecycle",
            33,
        )
        .tokens(700, 200)
        .cost(0.0003)
        .wall_ms(2500),
        ev(EventKind::AgentStarted, "source_extraction", get_pets, 0),
        ev(EventKind::AgentFinished, "source_extraction", get_pets, 3)
            .tokens(2000, 400)
            .cost(0.001)
            .wall_ms(3000),
        ev(EventKind::AgentStarted, "oracle_generation", get_pets, 4),
        ev(EventKind::AgentFinished, "oracle_generation", get_pets, 9)
            .tokens(1800, 600)
            .cost(0.0012)
            .wall_ms(4200),
        ev(EventKind::AgentStarted, "challenger", get_pets, 10),
        ev(EventKind::AgentRetry, "challenger", get_pets, 11).message("HTTP 429"),
        ev(EventKind::AgentFinished, "challenger", get_pets, 12)
            .tokens(900, 120)
            .cost(0.0004)
            .wall_ms(1500),
        ev(
            EventKind::AgentStarted,
            "source_extraction",
            "POST /pets",
            1,
        ),
        ev(
            EventKind::AgentFinished,
            "source_extraction",
            "POST /pets",
            2,
        )
        .tokens(1500, 300)
        .cost(0.0008)
        .wall_ms(1000),
        ev(
            EventKind::AgentStarted,
            "oracle_generation",
            "POST /pets",
            5,
        ),
        ev(EventKind::AgentRetry, "oracle_generation", "POST /pets", 20).message("timeout"),
        ev(EventKind::AgentRetry, "oracle_generation", "POST /pets", 40).message("timeout"),
        ev(
            EventKind::AgentFailed,
            "oracle_generation",
            "POST /pets",
            60,
        )
        .message("timeout after 3 attempts"),
        ev(
            EventKind::AgentStarted,
            "source_extraction",
            "GET /pets/{id}",
            50,
        ),
    ] {
        emit(&session, e);
    }
    session
}

/// A synthetic session of `n_ops` operations and `n_oracles` oracles in `dir`.
pub fn synthetic_session(dir: &Path, n_ops: usize, n_oracles: usize) -> Session {
    let root = petstore_root();
    let session = Session::create(
        dir,
        Manifest::new(root.display().to_string(), "openapi.json"),
    )
    .unwrap();
    let methods = ["GET", "POST", "PUT", "DELETE"];
    let ops: Vec<_> = (0..n_ops)
        .map(|i| {
            let m = methods[i % 4];
            json!({"op_id": format!("{m} /r{}/{{id}}", i / 4), "method": m, "path": format!("/r{}/{{id}}", i / 4), "bundle": {"files": [PET_HANDLER]}})
        })
        .collect();
    session.write_operations(&ops).unwrap();
    let per = n_oracles / n_ops.max(1);
    let extra = n_oracles % n_ops.max(1);
    for (i, op) in ops.iter().enumerate() {
        let op_id = op["op_id"].as_str().unwrap().to_string();
        let mut s = SuiteRecord::new(&op_id);
        let n = per + usize::from(i < extra);
        s.oracles = (0..n)
            .map(|k| {
                oracle(
                    &op_id,
                    &format!("t{k}"),
                    Strategy::Fv,
                    "synthetic oracle with a description of usual length",
                    &[("limit", "10")],
                    200,
                    vec![r(PET_HANDLER, 72 + k % 10, 80)],
                )
            })
            .collect();
        session.write_suite(&s).unwrap();
        session
            .append_event(&ev(EventKind::AgentStarted, "oracle_generation", &op_id, 0))
            .unwrap();
        emit(
            &session,
            ev(EventKind::AgentFinished, "oracle_generation", &op_id, 2)
                .tokens(1000, 300)
                .cost(0.001)
                .wall_ms(2000),
        );
    }
    session
}

/// Hands each effect to `exec` (a task) or performs it and applies its outcome, as the
/// event loop does.
pub fn start_all(
    session: &mastor::store::Session,
    app: &mut mastor::tui::state::App,
    exec: &mut mastor::tui::executor::Executor,
    effects: Vec<mastor::tui::update::Effect>,
) {
    for e in effects {
        mastor::tui::msg::carry_out(session, app, exec, &mut |t: &str| Ok(t.to_string()), e);
    }
}

/// [`start_all`], then applies the tasks' messages until they end; false when `secs`
/// pass first.
pub fn start_and_wait(
    session: &mastor::store::Session,
    app: &mut mastor::tui::state::App,
    exec: &mut mastor::tui::executor::Executor,
    effects: Vec<mastor::tui::update::Effect>,
    secs: u64,
) -> bool {
    start_all(session, app, exec, effects);
    mastor::tui::msg::wait(session, app, exec, std::time::Duration::from_secs(secs))
}

/// The work of each task the effects start (effects that start none left out).
pub fn works(effects: &[mastor::tui::update::Effect]) -> Vec<mastor::tui::tasks::Work> {
    effects
        .iter()
        .filter_map(|e| match e {
            mastor::tui::update::Effect::Start { work, .. } => Some(work.clone()),
            _ => None,
        })
        .collect()
}

/// A drawn buffer as text, one line per row.
pub fn buffer_text(buf: &ratatui::buffer::Buffer) -> String {
    (0..buf.area.height)
        .map(|y| {
            (0..buf.area.width)
                .map(|x| buf[(x, y)].symbol())
                .collect::<String>()
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// An API that answers every request with `200 []`; returns its base URL.
pub fn tiny_api() -> String {
    use std::io::{Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a local port");
    let url = format!("http://{}", listener.local_addr().expect("a local port"));
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut s) = stream else { continue };
            std::thread::spawn(move || {
                let mut buf = [0u8; 4096];
                let _ = s.read(&mut buf);
                let _ = s.write_all(
                    b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\
                      Content-Length: 2\r\nConnection: close\r\n\r\n[]",
                );
            });
        }
    });
    url
}

/// One frame of `app` drawn at `w` x `h`, as the driver draws it.
pub fn draw(
    app: &mut mastor::tui::state::App,
    w: u16,
    h: u16,
) -> ratatui::Terminal<ratatui::backend::TestBackend> {
    app.prepare_frame();
    let mut terminal = ratatui::Terminal::new(ratatui::backend::TestBackend::new(w, h)).unwrap();
    terminal.draw(|f| f.render_widget(&*app, f.area())).unwrap();
    terminal
}
