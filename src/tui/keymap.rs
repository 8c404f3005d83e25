//! Key bindings: an embedded default TOML keymap, patched by the user's file.
//!
//! A bad user keymap fails loudly, naming the section, action or key that is wrong,
//! instead of silently losing a binding. The help overlay and the footer are generated
//! from the loaded keymap, and so are the popups' key hints. In text-entry modes (filter,
//! note, JSON editor) keys are text except those of the `[popup]` section (confirm,
//! cancel, save), which is looked up first.

use super::action::Action;
use super::screens::ScreenKind;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use std::collections::BTreeMap;

/// The default keymap, embedded in the binary.
pub const DEFAULT_KEYMAP: &str = include_str!("keymap.toml");

/// The keymap's shared sections, before the screens' own ones in lists (`popup` is
/// last, after every screen's).
const SHARED: [&str; 3] = ["global", "list", "review"];

/// Every section a keymap file may have: the shared ones, those the screens bring
/// (`ScreenType::SECTIONS`), and `popup`.
pub fn sections() -> Vec<&'static str> {
    let mut all: Vec<&'static str> = SHARED.to_vec();
    for s in screen_sections() {
        if !all.contains(&s) {
            all.push(s);
        }
    }
    all.push("popup");
    all
}

/// The sections the screens bring, in screen order (most specific first within one).
fn screen_sections() -> Vec<&'static str> {
    let mut out: Vec<&'static str> = Vec::new();
    for kind in ScreenKind::ALL {
        for s in kind.sections() {
            if !out.contains(s) {
                out.push(s);
            }
        }
    }
    out
}

/// Sections the help overlay lists, most specific first (it shows them reversed):
/// the screens' own, then the shared ones; popups show their own keys.
fn help_sections() -> Vec<&'static str> {
    let mut out = screen_sections();
    out.extend(SHARED.iter().rev());
    out
}

/// A keymap file that cannot be used, and exactly why.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum KeymapError {
    #[error("keymap {source_name}: not valid TOML: {reason}")]
    Toml { source_name: String, reason: String },
    #[error("keymap {source_name}: unknown section [{section}] (known: {known})")]
    UnknownSection {
        source_name: String,
        section: String,
        /// The sections a keymap may have, comma-separated.
        known: String,
    },
    #[error("keymap {source_name}: [{section}] unknown action `{action}`")]
    UnknownAction {
        source_name: String,
        section: String,
        action: String,
    },
    #[error("keymap {source_name}: [{section}] {action}: bad key `{key}`")]
    BadKey {
        source_name: String,
        section: String,
        action: String,
        key: String,
    },
    #[error(
        "keymap {source_name}: [{section}] key `{key}` is bound to both `{first}` and `{second}`"
    )]
    Conflict {
        source_name: String,
        section: String,
        key: String,
        first: String,
        second: String,
    },
}

/// A key as written in keymap files, normalized for lookup.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Key {
    pub code: KeyCode,
    pub ctrl: bool,
    pub alt: bool,
}

impl Key {
    /// Normalizes a terminal key event (shift is folded into the character).
    pub fn from_event(ev: &KeyEvent) -> Key {
        Key {
            code: ev.code,
            ctrl: ev.modifiers.contains(KeyModifiers::CONTROL),
            alt: ev.modifiers.contains(KeyModifiers::ALT),
        }
    }

    /// Parses `a`, `A`, `ctrl-c`, `esc`, `pageup`, `f1`...
    pub fn parse(text: &str) -> Option<Key> {
        let mut ctrl = false;
        let mut alt = false;
        let mut rest = text;
        loop {
            if let Some(r) = rest.strip_prefix("ctrl-").filter(|r| !r.is_empty()) {
                ctrl = true;
                rest = r;
            } else if let Some(r) = rest.strip_prefix("alt-").filter(|r| !r.is_empty()) {
                alt = true;
                rest = r;
            } else {
                break;
            }
        }
        let code = match rest {
            "esc" => KeyCode::Esc,
            "enter" => KeyCode::Enter,
            "tab" => KeyCode::Tab,
            "backtab" => KeyCode::BackTab,
            "up" => KeyCode::Up,
            "down" => KeyCode::Down,
            "left" => KeyCode::Left,
            "right" => KeyCode::Right,
            "pageup" => KeyCode::PageUp,
            "pagedown" => KeyCode::PageDown,
            "home" => KeyCode::Home,
            "end" => KeyCode::End,
            "space" => KeyCode::Char(' '),
            "backspace" => KeyCode::Backspace,
            "delete" => KeyCode::Delete,
            f if f.len() > 1 && f.starts_with('f') => {
                let n: u8 = f[1..].parse().ok().filter(|n| (1..=12).contains(n))?;
                KeyCode::F(n)
            }
            c => {
                let mut chars = c.chars();
                let ch = chars.next()?;
                if chars.next().is_some() {
                    return None;
                }
                KeyCode::Char(ch)
            }
        };
        Some(Key { code, ctrl, alt })
    }

    /// How the key is written in keymap files and shown in hints.
    pub fn label(&self) -> String {
        let base = match self.code {
            KeyCode::Esc => "esc".to_string(),
            KeyCode::Enter => "enter".to_string(),
            KeyCode::Tab => "tab".to_string(),
            KeyCode::BackTab => "S-tab".to_string(),
            KeyCode::Up => "↑".to_string(),
            KeyCode::Down => "↓".to_string(),
            KeyCode::Left => "←".to_string(),
            KeyCode::Right => "→".to_string(),
            KeyCode::PageUp => "pgup".to_string(),
            KeyCode::PageDown => "pgdn".to_string(),
            KeyCode::Home => "home".to_string(),
            KeyCode::End => "end".to_string(),
            KeyCode::Backspace => "bksp".to_string(),
            KeyCode::Delete => "del".to_string(),
            KeyCode::F(n) => format!("f{n}"),
            KeyCode::Char(' ') => "space".to_string(),
            KeyCode::Char(c) => c.to_string(),
            _ => "?".to_string(),
        };
        match (self.ctrl, self.alt) {
            (true, _) => format!("^{base}"),
            (false, true) => format!("M-{base}"),
            _ => base,
        }
    }
}

/// The loaded keymap: per section, action → keys (first key is the one hinted).
#[derive(Debug, Clone)]
pub struct Keymap {
    sections: BTreeMap<String, BTreeMap<Action, Vec<Key>>>,
}

type RawKeymap = BTreeMap<String, BTreeMap<String, Vec<String>>>;

impl Keymap {
    /// The embedded default keymap.
    pub fn default_keymap() -> Keymap {
        // The embedded file is checked by a unit test; an empty map is the fallback.
        Keymap::from_toml(DEFAULT_KEYMAP, "(built-in)").unwrap_or(Keymap {
            sections: BTreeMap::new(),
        })
    }

    /// The default keymap patched by a user keymap file's text.
    pub fn with_overrides(text: &str, source_name: &str) -> Result<Keymap, KeymapError> {
        let mut map = Keymap::default_keymap();
        let user = Keymap::from_toml(text, source_name)?;
        for (section, actions) in user.sections {
            let target = map.sections.entry(section.clone()).or_default();
            for (action, keys) in actions {
                target.insert(action, keys);
            }
            check_conflicts(target, source_name, &section)?;
        }
        Ok(map)
    }

    pub(crate) fn from_toml(text: &str, source_name: &str) -> Result<Keymap, KeymapError> {
        let raw: RawKeymap = toml::from_str(text).map_err(|e| KeymapError::Toml {
            source_name: source_name.to_string(),
            reason: e.message().to_string(),
        })?;
        let mut sections = BTreeMap::new();
        let known = self::sections();
        for (section, actions) in raw {
            if !known.contains(&section.as_str()) {
                return Err(KeymapError::UnknownSection {
                    source_name: source_name.to_string(),
                    section,
                    known: known.join(", "),
                });
            }
            let mut parsed = BTreeMap::new();
            for (name, keys) in actions {
                let action =
                    Action::from_name(&name).ok_or_else(|| KeymapError::UnknownAction {
                        source_name: source_name.to_string(),
                        section: section.clone(),
                        action: name.clone(),
                    })?;
                let keys = keys
                    .iter()
                    .map(|k| {
                        Key::parse(k).ok_or_else(|| KeymapError::BadKey {
                            source_name: source_name.to_string(),
                            section: section.clone(),
                            action: name.clone(),
                            key: k.clone(),
                        })
                    })
                    .collect::<Result<Vec<_>, _>>()?;
                parsed.insert(action, keys);
            }
            check_conflicts(&parsed, source_name, &section)?;
            sections.insert(section, parsed);
        }
        Ok(Keymap { sections })
    }

    /// The action bound to `key` in the first of `active` sections that binds it.
    pub fn lookup(&self, active: &[&str], key: Key) -> Option<Action> {
        active.iter().find_map(|section| {
            self.sections
                .get(*section)?
                .iter()
                .find(|(_, keys)| keys.contains(&key))
                .map(|(a, _)| *a)
        })
    }

    /// Keys of `action` in `section`, as labels.
    pub fn keys_for(&self, section: &str, action: Action) -> Vec<String> {
        self.sections
            .get(section)
            .and_then(|s| s.get(&action))
            .map(|keys| keys.iter().map(Key::label).collect())
            .unwrap_or_default()
    }

    /// First key label of `action` in whichever of `active` sections binds it.
    pub fn hint(&self, active: &[&str], action: Action) -> Option<String> {
        active
            .iter()
            .find_map(|s| self.keys_for(s, action).into_iter().next())
    }

    /// (section, key labels, description) rows for the help overlay, in action order.
    pub fn help_rows(&self) -> Vec<(&'static str, String, &'static str)> {
        let mut rows = Vec::new();
        for section in help_sections().into_iter().rev() {
            for action in Action::all() {
                let keys = self.keys_for(section, action);
                if !keys.is_empty() {
                    rows.push((section, keys.join(" "), action.description()));
                }
            }
        }
        rows
    }
}

fn check_conflicts(
    section_map: &BTreeMap<Action, Vec<Key>>,
    source_name: &str,
    section: &str,
) -> Result<(), KeymapError> {
    let mut seen: std::collections::HashMap<Key, Action> = std::collections::HashMap::new();
    for (action, keys) in section_map {
        for key in keys {
            if let Some(first) = seen.insert(*key, *action) {
                return Err(KeymapError::Conflict {
                    source_name: source_name.to_string(),
                    section: section.to_string(),
                    key: key.label(),
                    first: first.name().to_string(),
                    second: action.name().to_string(),
                });
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn embedded_keymap_parses_and_binds_every_review_action() {
        let map = Keymap::from_toml(DEFAULT_KEYMAP, "(built-in)").unwrap();
        for a in [Action::Accept, Action::Reject, Action::Edit, Action::Undo] {
            assert!(!map.keys_for("review", a).is_empty(), "{a:?} unbound");
        }
        let q = Key::parse("q").unwrap();
        assert_eq!(map.lookup(&["list", "global"], q), Some(Action::Quit));
    }

    #[test]
    fn popup_section_binds_dialog_keys_and_stays_out_of_help() {
        let map = Keymap::default_keymap();
        let enter = Key::parse("enter").unwrap();
        assert_eq!(map.lookup(&["popup"], enter), Some(Action::Confirm));
        assert_eq!(map.keys_for("popup", Action::Save), ["^s"]);
        assert!(map.help_rows().iter().all(|(s, _, _)| *s != "popup"));
    }

    #[test]
    fn user_override_replaces_only_named_action() {
        let map = Keymap::with_overrides("[review]\naccept = [\"z\"]\n", "user.toml").unwrap();
        let y = Key::parse("z").unwrap();
        let a = Key::parse("a").unwrap();
        assert_eq!(map.lookup(&["review"], y), Some(Action::Accept));
        assert_eq!(map.lookup(&["review"], a), None);
        assert_eq!(
            map.lookup(&["review"], Key::parse("r").unwrap()),
            Some(Action::Reject)
        );
    }

    #[test]
    fn bad_user_keymap_names_what_is_wrong() {
        let e = Keymap::with_overrides("[review]\naccept = [\"ctrl-\"]\n", "k.toml").unwrap_err();
        assert!(e.to_string().contains("bad key `ctrl-`"), "{e}");
        let e = Keymap::with_overrides("[review]\naccpet = [\"y\"]\n", "k.toml").unwrap_err();
        assert!(e.to_string().contains("unknown action `accpet`"), "{e}");
        let e = Keymap::with_overrides("[revue]\naccept = [\"y\"]\n", "k.toml").unwrap_err();
        assert!(e.to_string().contains("unknown section [revue]"), "{e}");
        let e = Keymap::with_overrides("[review]\naccept = [\"r\"]\n", "k.toml").unwrap_err();
        assert!(e.to_string().contains("key `r` is bound to both"), "{e}");
    }
}
