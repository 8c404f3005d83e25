//! The workbench at 80x24 and its small things: header and summary bars leave whole
//! items out rather than cutting digits, `a` / `r` move on to the next oracle to review
//! (a setting), the list title names the active filters, `g` / `G` mean first / last on
//! every list, a long error wraps instead of being cut under the footer, help
//! descriptions are never cut, and the Costs screen of a session without calls says why.

use crate::tui_common;
use crate::tui_undo::GET_PETS;

use mastor::store::{Manifest, Session};
use mastor::tui::driver::{Options, open_session};
use mastor::tui::state::Screen;
use mastor::tui::tasks::Work;
use mastor::tui::update::{Effect, handle_key};
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use serde_json::json;
use std::path::Path;
use tui_common::bench::{Bench, open_with};

/// The petstore session with a failing run and mutation results (a score in the header).
fn with_score(dir: &Path) {
    crate::tui_curation::with_failures(dir);
    crate::tui_mutants::write_results(&dir.join(".mastor"));
}

/// Row `y` of the frame.
fn row(text: &str, y: usize) -> String {
    text.lines().nth(y).unwrap_or_default().to_string()
}

#[test]
fn narrow_bars_leave_whole_items_out_and_never_cut_a_number() {
    let mut b = open_with(with_score);
    let wide = b.text(160, 30);
    let header = row(&wide, 0);
    let start = header.find("mutation ").expect("a score") + "mutation ".len();
    let score: String = header[start..]
        .chars()
        .take_while(|c| !c.is_whitespace())
        .collect();
    assert!(score.ends_with('%'), "{header}");
    let summary = row(&wide, 1);
    assert!(summary.contains("✓1 ✗1 !1"), "{summary}");
    for w in [40u16, 50, 60, 70, 80, 90, 100, 120] {
        let t = b.text(w, 24);
        let (header, summary) = (row(&t, 0), row(&t, 1));
        if header.contains("mut") {
            assert!(
                header.contains(&format!("mutation {score}")),
                "{w} columns: the score is cut\n{header}"
            );
        }
        for (mark, whole) in [("✓", "✓1 "), ("✗", "✗1 "), ("!", "!1 ")] {
            if summary.contains(mark) {
                assert!(
                    summary.contains(whole),
                    "{w} columns: {mark} is cut\n{summary}"
                );
            }
        }
        // The tab on show keeps its name; the others at least their key.
        assert!(header.contains("1 Operations"), "{w}: {header}");
        for key in ["2", "3", "4", "5"] {
            assert!(header.contains(&format!(" {key} ")), "{w}: {header}");
        }
    }
    // At 80 columns the score and the verdict counts are there, whole.
    let t = b.text(80, 24);
    assert!(row(&t, 0).contains(&format!("mutation {score}")), "{t}");
    assert!(row(&t, 1).contains("✓1 ✗1 !1"), "{t}");
}

/// The selected oracle's review id.
fn selected(b: &Bench) -> Option<String> {
    b.app.selected_item().and_then(|i| b.app.o_id(i))
}

#[test]
fn accept_and_reject_move_on_to_the_next_oracle_to_review() {
    let mut b = Bench::new();
    b.press("<enter>");
    assert_eq!(selected(&b).as_deref(), Some(GET_PETS[0]));
    b.press("a");
    assert_eq!(selected(&b).as_deref(), Some(GET_PETS[1]));
    assert!(b.status().contains(&format!("accepted {}", GET_PETS[0])));
    // Reject with a note: the next one still to review is the third.
    b.press("rtoo strict<enter>");
    assert_eq!(selected(&b).as_deref(), Some(GET_PETS[2]));
    // An oracle already reviewed is skipped: accept the fourth first, then the third.
    b.press("<down>a");
    assert_eq!(
        selected(&b).as_deref(),
        Some(GET_PETS[2]),
        "back to the one left"
    );
    b.press("a");
    // GET /pets is done: the next operation with an oracle to review opens.
    let op = b.app.current_op().map(|i| b.app.view.ops[i].op_id.clone());
    assert_eq!(op.as_deref(), Some("POST /pets"), "{}", b.status());
    assert!(b.status().starts_with(&format!("accepted {}", GET_PETS[2])));
    assert_eq!(
        b.state(GET_PETS[2]),
        mastor::model::ReviewState::Accepted,
        "the decision is kept whatever the move"
    );
}

#[test]
fn the_setting_keeps_a_and_r_on_the_oracle_and_a_bad_settings_file_is_named() {
    let dir = tempfile::tempdir().unwrap();
    tui_common::petstore_session(dir.path());
    let settings = dir.path().join("settings.toml");
    std::fs::write(&settings, "[review]\nadvance = false\n").unwrap();
    let opts = |settings: &Path| Options {
        theme: Some("dark".into()),
        keymap: Some(dir.path().join("no-keymap.toml")),
        settings: Some(settings.to_path_buf()),
        mouse: false,
    };
    let (session, mut app) = open_session(dir.path(), &opts(&settings)).unwrap();
    let key = |c: char| KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE);
    handle_key(&mut app, KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE));
    for e in handle_key(&mut app, key('a')) {
        mastor::tui::msg::settle(&session, &mut app, e, &mut |t: &str| Ok(t.into()));
    }
    assert_eq!(
        app.view.review_state(GET_PETS[0]),
        mastor::model::ReviewState::Accepted
    );
    let here = app.selected_item().and_then(|i| app.o_id(i));
    assert_eq!(here.as_deref(), Some(GET_PETS[0]), "advance = false stays");
    // An unknown key is an error naming the file.
    std::fs::write(&settings, "[review]\nadvanse = false\n").unwrap();
    let err = open_session(dir.path(), &opts(&settings))
        .err()
        .expect("refused")
        .to_string();
    assert!(err.contains("settings.toml"), "{err}");
    assert!(err.contains("advanse"), "{err}");
}

#[test]
fn the_list_title_names_the_active_review_and_verdict_filters() {
    let mut b = open_with(crate::tui_curation::with_failures);
    b.press("<enter>");
    assert!(!b.text(120, 40).contains("[review:"));
    b.press("v");
    let t = b.text(120, 40);
    assert!(t.contains("Oracles (4) [review: to review]"), "{t}");
    b.press("V");
    let t = b.text(120, 40);
    assert!(
        t.contains("Oracles (1) [review: to review] [verdict: failing]"),
        "{t}"
    );
    // The wrap and zoom keys are offered in the footer.
    b.app.status = None;
    let footer = row(&b.text(120, 40), 39);
    assert!(
        footer.contains("w wrap source") && footer.contains("z zoom source"),
        "{footer}"
    );
}

#[test]
fn g_and_shift_g_are_first_and_last_on_the_mutants_screen_too() {
    let mut b = open_with(with_score);
    b.press("5");
    let cursor = |b: &Bench| match &b.app.screen {
        Screen::Mutants(s) => s.cursor,
        _ => panic!("not on the Mutants screen"),
    };
    let shift_g = KeyEvent::new(KeyCode::Char('G'), KeyModifiers::SHIFT);
    assert!(handle_key(&mut b.app, shift_g).is_empty(), "G asks nothing");
    assert_eq!(cursor(&b), 4, "G: the last of five mutants");
    assert!(b.press("g").is_empty(), "g asks nothing");
    assert_eq!(cursor(&b), 0);
    // Asking the model for this survivor is ctrl-g.
    let effects = handle_key(
        &mut b.app,
        KeyEvent::new(KeyCode::Char('g'), KeyModifiers::CONTROL),
    );
    assert!(
        matches!(effects.as_slice(), [Effect::Start { work: Work::Survivors { mutants, .. }, .. }] if mutants == &["m-missed"]),
        "{effects:?}"
    );
    // No key means two things on one screen (n / N: the next search match while a
    // search is set, else the next evidence reference, is one "next" by design).
    let km = &b.app.keymap;
    let screens: [&[&str]; 4] = [
        &["list", "global"],
        &["operation", "review", "list", "global"],
        &["mutants", "list", "global"],
        &["metamorphic", "review", "list", "global"],
    ];
    for sections in screens {
        let mut seen = std::collections::BTreeMap::new();
        for (section, keys, desc) in km.help_rows() {
            if !sections.contains(&section) {
                continue;
            }
            for key in keys.split(' ') {
                if let Some((first, other)) = seen.insert(key.to_string(), (desc, section))
                    && first != desc
                    && !["n", "N"].contains(&key)
                {
                    panic!("{key} is both `{first}` ({other}) and `{desc}` ({section})");
                }
            }
        }
    }
}

#[test]
fn a_long_error_wraps_above_the_footer_instead_of_being_cut() {
    let mut b = Bench::new();
    let message = "cannot re-run GET /pets: no model settings for provider deepseek at \
                   https://api.deepseek.com/v1: set DEEPSEEK_API_KEY or pass --provider";
    b.app.error(message);
    let t = b.text(80, 24);
    for word in message.split_whitespace() {
        assert!(t.contains(word), "`{word}` is cut\n{t}");
    }
    assert!(t.contains("? help"), "{t}");
    assert!(row(&t, 0).contains("1 Operations"), "the header stays\n{t}");
}

#[test]
fn help_descriptions_are_never_cut() {
    let mut b = Bench::new();
    b.press("?");
    // Tall enough for two unscrolled columns at 80 columns.
    let t = b.render(80, 80);
    let buf = t.backend().buffer();
    let (x0, w) = (5u16, 35u16);
    let column = |from: u16| -> Vec<String> {
        (0..buf.area.height)
            .map(|y| {
                (from..from + w)
                    .map(|x| buf[(x, y)].symbol())
                    .collect::<String>()
            })
            .collect()
    };
    let all: Vec<String> = column(x0).into_iter().chain(column(x0 + w)).collect();
    let text = all
        .iter()
        .map(|l| l.trim())
        .collect::<Vec<_>>()
        .join(" ")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    for (_, _, desc) in b.app.keymap.help_rows() {
        assert!(text.contains(desc), "`{desc}` is cut:\n{}", all.join("\n"));
    }
}

#[test]
fn costs_of_a_session_without_calls_say_why() {
    let mut b = open_with(|dir| {
        let s = Session::create(
            dir.join(".mastor"),
            Manifest::new(String::new(), String::new()),
        )
        .unwrap();
        s.write_operations(&json!({"operations": [
            {"op_id": "GET /a", "method": "GET", "path": "/a"}]}))
            .unwrap();
    });
    b.press("3");
    let t = b.text(80, 24);
    assert!(t.contains("No model calls are recorded"), "{t}");
    assert!(t.contains("mastor import"), "{t}");
}
