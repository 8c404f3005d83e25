//! Workbench cost on a large session: 10,000 oracles over 300 operations.
//! Prints open time, one render cycle on a 250x80 terminal per screen, and peak memory;
//! then accept-all on a 100,000-oracle session.
//! Targets: open < 0.5 s, frame < 16 ms, < 200 MB; accept-all of 100,000 < 2 s.
//! Then background tasks as a reviewer starts them, keys in, end to end through the
//! message stream with the inline executor: an oracle run against a local API, the
//! triage run (every oracle, failures isolated), a re-run of one operation, and a
//! mutation analysis of the petstore fixture (`tasks-only` runs these alone).

#[path = "../tests/it/tui_common/mod.rs"]
mod tui_common;

use mastor::tui::driver::{Options, open_session};
use mastor::tui::state::{CostsScreen, MetamorphicScreen, OperationScreen, Screen};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use std::time::Instant;

fn vm_hwm_mb() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024.0)
}

/// `n` metamorphic tests (create, change status, read back) in the session, as the
/// metamorphic loop writes them.
fn write_metamorphic(session: &mastor::store::Session, n: usize) {
    for i in 0..n {
        let t: mastor::model::MetamorphicTest = serde_json::from_value(serde_json::json!({
            "test_id": format!("mr_{i:04}"),
            "scenario": format!("Updating pet {i}'s status is visible on read"),
            "given": "a pet created with status available",
            "when": "its status is changed to sold and the pet is read again",
            "then": "the read shows status sold",
            "seed": [{"op_id": "POST /pets", "input": {"body": {"name": format!("P{i}")}},
                      "captures": {"id": "id"}}],
            "follow_up": [
                {"op_id": "POST /pets/{petId}/status",
                 "input": {"path": {"petId": "$captures.id"}, "body": {"status": "sold"}}},
                {"op_id": "GET /pets/{petId}", "input": {"path": {"petId": "$captures.id"}}}],
            "relations": [{"left": "follow_up[1].body.status", "op": "equals",
                           "right": "follow_up[0].request.body.status"}],
            "slug": format!("status-{i}")
        }))
        .expect("test");
        session
            .write_json(&mastor::metamorphic::store::file_rel(&t.test_id), &t)
            .expect("write test");
    }
}

fn main() {
    // `cargo bench --bench tui_render -- accept-only` times the bulk accepts alone.
    if std::env::args().any(|a| a == "accept-only") {
        accept_alls();
        return;
    }
    if std::env::args().any(|a| a == "tasks-only") {
        tasks::run();
        return;
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let sdir = dir.path().join("session");
    let t = Instant::now();
    let session = tui_common::synthetic_session(&sdir, 300, 10_000);
    write_metamorphic(&session, 1_000);
    println!(
        "write synthetic session: {:>8.1} ms",
        t.elapsed().as_secs_f64() * 1e3
    );

    let opts = Options {
        theme: Some("dark".into()),
        keymap: Some(dir.path().join("none.toml")),
        settings: Some(dir.path().join("no-settings.toml")),
        mouse: false,
    };
    let t = Instant::now();
    let s = mastor::store::Session::open(&sdir).expect("session");
    let view = mastor::tui::loader::load(&s).expect("load");
    println!(
        "  of which loading the view: {:>8.1} ms",
        t.elapsed().as_secs_f64() * 1e3
    );
    drop(view);
    let t = Instant::now();
    let (_session, mut app) = open_session(&sdir, &opts).expect("open");
    let open_ms = t.elapsed().as_secs_f64() * 1e3;
    let n: usize = app.view.ops.iter().map(|o| o.oracles.len()).sum();
    println!(
        "open ({} ops, {n} oracles, {} metamorphic tests): {open_ms:>8.1} ms (target < 500)",
        app.view.ops.len(),
        app.view.metamorphic.len()
    );

    let mut terminal = Terminal::new(TestBackend::new(250, 80)).expect("terminal");
    let mut frame = |app: &mut mastor::tui::state::App, label: &str| {
        app.prepare_frame(); // first call highlights the file; time it apart
        let runs = 20;
        let t = Instant::now();
        for _ in 0..runs {
            app.prepare_frame();
            terminal
                .draw(|f| f.render_widget(&*app, f.area()))
                .expect("draw");
        }
        let ms = t.elapsed().as_secs_f64() * 1e3 / runs as f64;
        println!("frame {label:<24} {ms:>8.2} ms (target < 16)");
    };
    frame(&mut app, "operations");
    if let Some(list) = app.operations_mut() {
        list.cursor = 150;
    }
    app.cover(Screen::Operation(OperationScreen::new(150)));
    let t = Instant::now();
    app.prepare_frame();
    println!(
        "first highlight of a file: {:>8.1} ms",
        t.elapsed().as_secs_f64() * 1e3
    );
    frame(&mut app, "operation/oracles");
    app.whole_file = true;
    frame(&mut app, "oracles, whole file");
    app.show(Screen::Costs(CostsScreen));
    frame(&mut app, "costs");
    app.whole_file = false;
    app.show(Screen::Metamorphic(MetamorphicScreen::default()));
    app.refresh_lists();
    app.refresh_items();
    frame(&mut app, "metamorphic");
    match vm_hwm_mb() {
        Some(mb) => println!("peak memory (VmHWM): {mb:>8.1} MB (target < 200)"),
        None => println!("peak memory: /proc/self/status not available"),
    }
    accept_alls();
    tasks::run();
}

fn accept_alls() {
    accept_all(100_000, 300, "synthetic, 300 operations");
    // An imported file puts many oracles on few operations (one entry per operation):
    // the shape where per-decision work that scans an operation's oracles shows.
    accept_all(100_000, 4, "imported, 4 operations");
}

/// Accept-all on `n` oracles over `n_ops` operations, the way the workbench does it: the
/// key, the confirm, then every chunk written (one write and one fsync each) and drawn,
/// as the driver does between chunks. Target: < 2 s.
fn accept_all(n: usize, n_ops: usize, label: &str) {
    use mastor::tui::update::{Effect, handle_key};
    use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
    let dir = tempfile::tempdir().expect("temp dir");
    let sdir = dir.path().join("session");
    tui_common::synthetic_session(&sdir, n_ops, n);
    let opts = Options {
        theme: Some("dark".into()),
        keymap: Some(dir.path().join("no-keymap.toml")),
        settings: Some(dir.path().join("no-settings.toml")),
        mouse: false,
    };
    let (session, mut app) = open_session(&sdir, &opts).expect("open");
    let mut editor = |_: &str| -> Result<String, String> { Err("none".into()) };
    let press = |app: &mut mastor::tui::state::App, code| {
        handle_key(app, KeyEvent::new(code, KeyModifiers::NONE))
    };
    let t = Instant::now();
    // The keys a reviewer types: `A`, Enter on the (empty) note, `y` to confirm.
    let mut chunks = 0;
    for code in [KeyCode::Char('A'), KeyCode::Enter, KeyCode::Char('y')] {
        for e in press(&mut app, code) {
            mastor::tui::msg::settle(&session, &mut app, e, &mut editor);
            chunks += 1;
        }
    }
    let mut terminal = Terminal::new(TestBackend::new(250, 80)).expect("terminal");
    let mut draw = |app: &mut mastor::tui::state::App| {
        app.prepare_frame();
        terminal
            .draw(|f| f.render_widget(&*app, f.area()))
            .expect("draw");
    };
    draw(&mut app);
    while let Some(chunk) = app.next_bulk_chunk() {
        mastor::tui::msg::settle(&session, &mut app, Effect::RecordBatch(chunk), &mut editor);
        draw(&mut app);
        chunks += 1;
    }
    let saved = session.read_decisions().map(|d| d.len()).unwrap_or(0);
    // A bench that wrote nothing measured nothing: the keys above must reach the journal.
    assert_eq!(saved, n, "accept-all wrote {saved} of {n} decisions");
    println!(
        "accept-all of {n} oracles ({label}): {:>8.1} ms in {chunks} chunks, {saved} decisions in the journal (target < 2 s)",
        t.elapsed().as_secs_f64() * 1e3
    );
}

mod tasks {
    //! Key sequences that start background work, carried out end to end.
    use super::tui_common;
    use mastor::store::{Event, EventKind};
    use mastor::tui::executor::{Executor, Launchers, Reporter};
    use mastor::tui::msg::{self, Msg};
    use mastor::tui::state::App;
    use mastor::tui::tasks::TaskKind;
    use std::sync::Arc;
    use std::time::Instant;
    use tui_common::bench::{Bench, key, tokens};

    /// Types `keys` into the workbench as the event loop delivers them.
    fn type_keys(b: &mut Bench, exec: &mut Executor, keys: &str) {
        let mut editor = |t: &str| Ok(t.to_string());
        for t in tokens(keys) {
            let msg = Msg::Key(key(&t));
            msg::dispatch(&b.session, &mut b.app, exec, &mut editor, msg);
        }
    }

    fn status(app: &App) -> String {
        app.status.clone().map(|s| s.0).unwrap_or_default()
    }

    /// Times `keys`, which start a task of `kind`; checks the task ended.
    fn timed(b: &mut Bench, exec: &mut Executor, label: &str, kind: TaskKind, keys: &str) {
        let t = Instant::now();
        type_keys(b, exec, keys);
        let ms = t.elapsed().as_secs_f64() * 1e3;
        assert!(b.app.tasks.get(kind).is_none(), "{label}: still registered");
        println!("{label:<44} {ms:>9.1} ms  · {}", status(&b.app));
    }

    /// A re-run that reports `n` agent events per operation agent, then ends.
    fn rerun_launcher(n: usize) -> Launchers {
        let rerun = Arc::new(move |op: &str, _: Option<&str>, r: &Reporter| {
            for _ in 0..n {
                for kind in [EventKind::AgentStarted, EventKind::AgentFinished] {
                    r.event(&Event::new(kind, "extraction").op(op.to_string()));
                }
            }
            Ok(())
        });
        Launchers {
            rerun: Some(rerun),
            survivors: None,
            plan: None,
        }
    }

    pub fn run() {
        let api = tui_common::tiny_api();
        let mut b = Bench::new();
        let mut exec = Executor::inline(b.session.dir(), rerun_launcher(50));
        type_keys(&mut b, &mut exec, "<enter>A<enter>y<esc>");
        let url = format!("<C-t>{}<enter>", clear_then(&api));
        timed(
            &mut b,
            &mut exec,
            "oracle run (accepted, ctrl-t)",
            TaskKind::Oracles,
            &url,
        );
        assert!(
            status(&b.app).starts_with("oracles run:"),
            "{}",
            status(&b.app)
        );
        timed(
            &mut b,
            &mut exec,
            "one oracle again (!)",
            TaskKind::Oracles,
            "<enter>!<esc>",
        );
        let triage = format!("<C-t><down>{}<tab>true<enter>", clear_then(&api));
        timed(
            &mut b,
            &mut exec,
            "triage run (all, reset, isolation)",
            TaskKind::Triage,
            &triage,
        );
        assert!(b.app.filters.verdict.is_some(), "triage shows the failures");
        b.app.filters.verdict = None;
        b.app.refresh_lists();
        timed(
            &mut b,
            &mut exec,
            "re-run of one operation (100 events)",
            TaskKind::Rerun,
            "<C-r><enter>",
        );
        assert!(status(&b.app).contains("finished"), "{}", status(&b.app));
        // A real analysis of the petstore fixture, two mutants (javac and the server).
        timed(
            &mut b,
            &mut exec,
            "mutation analysis (ctrl-k, 2 mutants)",
            TaskKind::Mutate,
            "<C-k><tab><tab><bs><bs>2<enter>",
        );
        let summary = b.session.dir().join("mutation/summary.json");
        println!("  mutation/summary.json written: {}", summary.is_file());
    }

    /// Clears a prefilled URL field (80 backspaces), then types `text`.
    fn clear_then(text: &str) -> String {
        format!("{}{text}", "<bs>".repeat(80))
    }
}
