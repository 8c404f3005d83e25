//! The layering of `src/lib.rs`'s module docs, enforced: every `crate::<module>` path in a
//! top-level module must name a module of a strictly lower layer.

use std::collections::BTreeMap;
use std::path::Path;

/// Module → layer, read from the numbered list at the top of `src/lib.rs`.
fn layers(lib: &str) -> BTreeMap<String, usize> {
    let mut out = BTreeMap::new();
    for line in lib.lines().take_while(|l| l.starts_with("//!")) {
        let text = line.trim_start_matches("//!").trim();
        let Some((n, rest)) = text.split_once(". ") else {
            continue;
        };
        let Ok(layer) = n.parse::<usize>() else {
            continue;
        };
        let names = rest.split(':').next().unwrap_or_default();
        for name in names.split('`').skip(1).step_by(2) {
            out.insert(name.to_string(), layer);
        }
    }
    out
}

/// Every `.rs` file under `dir`.
fn rust_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// `(from, to, file:line)` for every `crate::<to>` outside comments in `src/<from>`.
fn edges(src: &Path) -> Vec<(String, String, String)> {
    let re = regex::Regex::new(r"\bcrate::([a-z_]+)").unwrap();
    let mut files = Vec::new();
    rust_files(src, &mut files);
    let mut out = Vec::new();
    for f in files {
        let rel = f.strip_prefix(src).unwrap();
        let first = rel
            .components()
            .next()
            .unwrap()
            .as_os_str()
            .to_string_lossy();
        let from = first.trim_end_matches(".rs").to_string();
        if from == "lib" || from == "main" {
            continue;
        }
        let text = std::fs::read_to_string(&f).unwrap();
        for (n, line) in text.lines().enumerate() {
            if line.trim_start().starts_with("//") {
                continue;
            }
            for c in re.captures_iter(line) {
                if c[1] != from {
                    let at = format!("{}:{}", rel.display(), n + 1);
                    out.push((from.clone(), c[1].to_string(), at));
                }
            }
        }
    }
    out
}

#[test]
fn every_module_uses_only_lower_layers() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let lib = std::fs::read_to_string(root.join("src/lib.rs")).unwrap();
    let layers = layers(&lib);
    assert!(
        layers.len() >= 15,
        "the layer list was not found: {layers:?}"
    );
    let declared: Vec<&str> = lib
        .lines()
        .filter_map(|l| l.strip_prefix("pub mod "))
        .map(|l| l.trim_end_matches(';'))
        .collect();
    for m in &declared {
        assert!(
            layers.contains_key(*m),
            "module `{m}` has no layer in src/lib.rs"
        );
    }
    let mut bad = Vec::new();
    for (from, to, at) in edges(&root.join("src")) {
        let (Some(a), Some(b)) = (layers.get(&from), layers.get(&to)) else {
            continue;
        };
        if b >= a {
            bad.push(format!(
                "{at}: `{from}` (layer {a}) uses `{to}` (layer {b})"
            ));
        }
    }
    assert!(
        bad.is_empty(),
        "edges the layering forbids:\n{}",
        bad.join("\n")
    );
}

#[test]
fn the_check_sees_a_forbidden_edge() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("model")).unwrap();
    std::fs::write(
        dir.path().join("model/x.rs"),
        "use crate::tui::App;\n// crate::cli\n",
    )
    .unwrap();
    let e = edges(dir.path());
    assert_eq!(e.len(), 1, "comments do not count: {e:?}");
    assert_eq!((e[0].0.as_str(), e[0].1.as_str()), ("model", "tui"));
    let lib = "//! 1. `model`: data.\n//! 2. `tui`: screens.\npub mod model;\n";
    let l = layers(lib);
    assert!(l["tui"] > l["model"]);
}

/// The modules that dispatch keys, clicks, drawing and the source pane: they go
/// through `ScreenState` and never branch on which screen is on show.
const SCREEN_BLIND: [&str; 6] = [
    "src/tui/update.rs",
    "src/tui/mouse.rs",
    "src/tui/state.rs",
    "src/tui/keymap.rs",
    "src/tui/action.rs",
    "src/tui/ui",
];

/// `file:line` of every branch on a screen variant (a `match` arm, an `if let`, a
/// `matches!`) outside comments in `files` (relative to `root`, directories walked).
fn screen_branches(root: &Path, files: &[&str]) -> Vec<String> {
    let variant = regex::Regex::new(r"\bScreen(Kind)?::[A-Z][a-z]\w*").unwrap();
    let mut paths = Vec::new();
    for f in files {
        let p = root.join(f);
        if p.is_dir() {
            rust_files(&p, &mut paths);
        } else {
            paths.push(p);
        }
    }
    let mut out = Vec::new();
    for p in paths {
        let text = std::fs::read_to_string(&p).unwrap();
        for (n, line) in text.lines().enumerate() {
            let code = line.trim_start();
            if code.starts_with("//") || !variant.is_match(code) {
                continue;
            }
            if code.contains("=>") || code.contains("matches!(") || code.contains("let ") {
                let rel = p.strip_prefix(root).unwrap_or(&p);
                out.push(format!("{}:{}: {code}", rel.display(), n + 1));
            }
        }
    }
    out
}

#[test]
fn key_and_screen_dispatch_never_matches_on_a_screen() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let bad = screen_branches(root, &SCREEN_BLIND);
    assert!(
        bad.is_empty(),
        "branches on a screen outside src/tui/screens/ (give the screen a \
         `ScreenState` method instead):\n{}",
        bad.join("\n")
    );
}

#[test]
fn the_screen_rule_sees_a_match_on_a_screen() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("update.rs"),
        "fn f(app: &App) {\n    // Screen::Costs(_) => {}\n    app.show(Screen::Costs(CostsScreen));\n    match &app.screen {\n        Screen::Operation(s) => s.op,\n    }\n    if let Screen::Mutants(s) = &app.screen {}\n    matches!(k, ScreenKind::Groups);\n    let all = ScreenKind::ALL;\n}\n",
    )
    .unwrap();
    let bad = screen_branches(dir.path(), &["update.rs"]);
    let lines: Vec<&str> = bad.iter().map(|b| b.split(':').nth(1).unwrap()).collect();
    assert_eq!(lines, ["5", "7", "8"], "{bad:?}");
}

/// Where the workbench's old ways of reporting back would come back: `file:line: text`
/// for every line of `text` (a file under `src/tui/`, named `rel`) that applies an
/// outcome outside `msg.rs`, calls a removed apply function, or declares a `*_running`
/// flag. Outcomes are applied by `msg::update` only (see the checklist in `tui/mod.rs`).
fn old_callbacks(rel: &str, text: &str) -> Vec<String> {
    let callback = regex::Regex::new(
        r"\bapp\.(\w+_saved|export_done|external_edit_done|step_undone|step_redone)\(",
    )
    .unwrap();
    let apply = regex::Regex::new(r"\b(live|jobs|mutate_job|survivors_job)::apply\b").unwrap();
    let flag = regex::Regex::new(r"\b\w+_running\s*:\s*bool").unwrap();
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let code = line.trim_start();
        if code.starts_with("//") {
            continue;
        }
        let hit = (callback.is_match(code) && rel != "msg.rs")
            || apply.is_match(code)
            || flag.is_match(code);
        if hit {
            out.push(format!("{rel}:{}: {code}", n + 1));
        }
    }
    out
}

#[test]
fn outcomes_are_applied_by_update_only() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut found = Vec::new();
    for f in files {
        let rel = f.strip_prefix(src.join("tui")).map_or_else(
            |_| f.strip_prefix(&src).unwrap().display().to_string(),
            |r| r.display().to_string(),
        );
        found.extend(old_callbacks(&rel, &std::fs::read_to_string(&f).unwrap()));
    }
    assert!(
        found.is_empty(),
        "old ways of reporting back:\n{}",
        found.join("\n")
    );
}

#[test]
fn the_callback_check_sees_each_old_way() {
    for bad in [
        "        app.decision_saved(d);",
        "    Ok(record) => app.step_undone(record),",
        "    app.export_done(outcome);",
        "    app.judgements_saved(saved);",
        "    changed |= live::apply(session, app, msg);",
        "    super::mutate_job::apply(session, app, msg)",
        "    pub oracles_running: bool,",
    ] {
        assert_eq!(old_callbacks("driver.rs", bad).len(), 1, "not seen: {bad}");
    }
    // The one place that applies outcomes, comments, and the registry are fine.
    assert!(
        old_callbacks(
            "msg.rs",
            "        Saved::Decision(d) => app.decision_saved(d),"
        )
        .is_empty()
    );
    assert!(old_callbacks("driver.rs", "/// then `app.decision_saved(d)`").is_empty());
    assert!(old_callbacks("jobs.rs", "    app.tasks.busy()").is_empty());
}
