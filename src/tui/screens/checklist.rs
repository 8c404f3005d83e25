//! The "Adding a screen" checklist of the `tui` module documentation, checked: a screen
//! listed in `screens!` without its keymap section, its header key or footer keys that
//! resolve fails here, naming the screen and what it lacks.

use super::{ScreenKind, Tab};
use crate::tui::action::Action;
use crate::tui::keymap::{DEFAULT_KEYMAP, Keymap, sections};
use crate::tui::view::{GroupView, OpView, SessionView};

/// A session with one operation and one group, so every screen has a row to stand on.
fn view() -> SessionView {
    let mut view = SessionView::default();
    view.op_index.insert("GET /a".into(), 0);
    view.ops.push(OpView {
        op_id: "GET /a".into(),
        method: "GET".into(),
        path: "/a".into(),
        ..OpView::default()
    });
    view.groups.push(GroupView {
        group_id: "g".into(),
        ..GroupView::default()
    });
    view
}

/// Whether `keymap` binds any action in `section`.
fn binds_any(keymap: &Keymap, section: &str) -> bool {
    Action::all().any(|a| !keymap.keys_for(section, a).is_empty())
}

/// What each screen lacks under `keymap`, one line per gap (empty: the checklist holds).
fn screen_problems(keymap: &Keymap) -> Vec<String> {
    let view = view();
    let known = sections();
    let help: Vec<&str> = keymap.help_rows().iter().map(|(s, _, _)| *s).collect();
    let mut out = Vec::new();
    for &kind in ScreenKind::ALL {
        let mut screen = kind.fresh(&view);
        if screen.kind() != kind {
            out.push(format!("{kind:?}: `fresh` builds a {:?}", screen.kind()));
        }
        // The header: its own entry with a [global] key, or the entry it belongs to.
        match (kind.tab(), screen.state().shown_by()) {
            (Some(tab), None) => {
                if Action::from_name(tab.action) != Some(Action::Show(kind)) {
                    out.push(format!("{kind:?}: `{}` names no action", tab.action));
                }
                if keymap.keys_for("global", Action::Show(kind)).is_empty() {
                    out.push(format!("{kind:?}: no [global] key for `{}`", tab.action));
                }
            }
            (None, Some(by)) if by.tab().is_some() => {}
            (tab, by) => out.push(format!(
                "{kind:?}: no header entry (TAB {tab:?}, shown_by {by:?})"
            )),
        }
        // The sections it brings: in the keymap, bound, and in the help overlay.
        for section in kind.sections() {
            if !known.contains(section) || !binds_any(keymap, section) {
                out.push(format!(
                    "{kind:?}: keymap section [{section}] binds nothing"
                ));
            }
            if !help.contains(section) {
                out.push(format!("{kind:?}: [{section}] is not in the help overlay"));
            }
        }
        // On every tab (screens without tabs ignore the switch): active sections are
        // known and every footer hint has a key in them.
        for tab in Tab::ALL {
            screen.state_mut().select_tab(tab);
            let state = screen.state();
            let active = state.sections();
            for section in active {
                if !known.contains(section) {
                    out.push(format!("{kind:?}: active section [{section}] is unknown"));
                }
            }
            for &hint in state.hints() {
                if keymap.hint(active, hint).is_none() {
                    out.push(format!(
                        "{kind:?} ({tab:?}): footer hint `{}` has no key",
                        hint.name()
                    ));
                }
            }
        }
    }
    out
}

#[test]
fn every_screen_has_its_keymap_section_header_entry_and_keys() {
    let problems = screen_problems(&Keymap::default_keymap());
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    // Both shapes are checked: screens with a header entry and screens entered from a
    // row.
    assert!(ScreenKind::ALL.iter().any(|k| k.tab().is_some()));
    assert!(ScreenKind::ALL.iter().any(|k| k.tab().is_none()));
}

#[test]
fn a_screen_without_its_section_or_header_key_is_named() {
    // The default keymap without [mutants] and without the Mutants screen's header key.
    let mut text = String::new();
    let mut skipping = false;
    for line in DEFAULT_KEYMAP.lines() {
        if line.starts_with('[') {
            skipping = line == "[mutants]";
        }
        if !skipping && !line.starts_with("show_mutants") {
            text.push_str(line);
            text.push('\n');
        }
    }
    let keymap = Keymap::from_toml(&text, "test").unwrap();
    let problems = screen_problems(&keymap).join("\n");
    for gap in [
        "Mutants: no [global] key for `show_mutants`",
        "Mutants: keymap section [mutants] binds nothing",
        "Mutants: [mutants] is not in the help overlay",
        "Mutants (Context): footer hint `cycle_operator` has no key",
    ] {
        assert!(problems.contains(gap), "{gap} not found in:\n{problems}");
    }
    assert!(!problems.contains("Operations:"), "{problems}");
}
