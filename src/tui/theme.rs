//! Themes: TOML files with semantic slots (what a colour means, not which colour).
//!
//! Two themes ship embedded (`dark`, `light`); a user theme names a `base` and patches
//! only the slots it lists. The syntax-highlighting theme is chosen separately (the
//! `syntax` key, a syntect theme name). Unknown slots and bad colours are errors that
//! name them. This module only builds styles; it draws nothing.

use ratatui::style::{Color, Modifier, Style};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::str::FromStr;

/// Embedded dark theme.
pub const DARK: &str = include_str!("../../themes/dark.toml");
/// Embedded light theme.
pub const LIGHT: &str = include_str!("../../themes/light.toml");

/// A theme file that cannot be used.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum ThemeError {
    #[error("theme {source_name}: not valid TOML: {reason}")]
    Toml { source_name: String, reason: String },
    #[error("theme {source_name}: unknown slot `{slot}`")]
    UnknownSlot { source_name: String, slot: String },
    #[error("theme {source_name}: slot `{slot}`: bad colour `{color}`")]
    BadColor {
        source_name: String,
        slot: String,
        color: String,
    },
    #[error("theme {source_name}: unknown base theme `{base}` (dark or light)")]
    UnknownBase { source_name: String, base: String },
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawTheme {
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    base: Option<String>,
    #[serde(default)]
    syntax: Option<String>,
    #[serde(default)]
    slots: BTreeMap<String, RawStyle>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawStyle {
    fg: Option<String>,
    bg: Option<String>,
    #[serde(default)]
    bold: bool,
    #[serde(default)]
    italic: bool,
    #[serde(default)]
    underline: bool,
}

macro_rules! slots {
    ($($slot:ident),* $(,)?) => {
        /// Resolved styles, one per semantic slot.
        #[derive(Debug, Clone, PartialEq)]
        pub struct Theme {
            /// Theme name, shown in the help overlay.
            pub name: String,
            /// syntect theme used for source code.
            pub syntax: String,
            $(pub $slot: Style,)*
        }

        impl Theme {
            fn slot_mut(&mut self, name: &str) -> Option<&mut Style> {
                match name {
                    $(stringify!($slot) => Some(&mut self.$slot),)*
                    _ => None,
                }
            }

            fn blank() -> Theme {
                Theme {
                    name: String::new(),
                    syntax: "base16-ocean.dark".into(),
                    $($slot: Style::new(),)*
                }
            }
        }
    };
}

slots!(
    text,
    muted,
    title,
    accent,
    border,
    border_focus,
    selected,
    tab_active,
    key,
    method_get,
    method_post,
    method_put,
    method_delete,
    method_other,
    proposed,
    accepted,
    edited,
    rejected,
    dropped,
    queued,
    running,
    done,
    failed,
    pass,
    fail,
    error,
    warning,
    evidence,
    evidence_marker,
    line_number,
    popup,
);

impl Theme {
    /// The embedded dark theme.
    pub fn dark() -> Theme {
        Theme::blank()
            .patched(DARK, "dark (built-in)")
            .unwrap_or_else(|_| Theme::blank())
    }

    /// The embedded light theme.
    pub fn light() -> Theme {
        Theme::blank()
            .patched(LIGHT, "light (built-in)")
            .unwrap_or_else(|_| Theme::blank())
    }

    /// A built-in theme by name.
    pub fn builtin(name: &str) -> Option<Theme> {
        match name {
            "dark" => Some(Theme::dark()),
            "light" => Some(Theme::light()),
            _ => None,
        }
    }

    /// A user theme: its `base` (default dark) patched with the slots it lists.
    pub fn from_user_toml(text: &str, source_name: &str) -> Result<Theme, ThemeError> {
        let raw: RawTheme = toml::from_str(text).map_err(|e| ThemeError::Toml {
            source_name: source_name.to_string(),
            reason: e.message().to_string(),
        })?;
        let base_name = raw.base.as_deref().unwrap_or("dark");
        let base = Theme::builtin(base_name).ok_or_else(|| ThemeError::UnknownBase {
            source_name: source_name.to_string(),
            base: base_name.to_string(),
        })?;
        base.apply(raw, source_name)
    }

    fn patched(self, text: &str, source_name: &str) -> Result<Theme, ThemeError> {
        let raw: RawTheme = toml::from_str(text).map_err(|e| ThemeError::Toml {
            source_name: source_name.to_string(),
            reason: e.message().to_string(),
        })?;
        self.apply(raw, source_name)
    }

    fn apply(mut self, raw: RawTheme, source_name: &str) -> Result<Theme, ThemeError> {
        if let Some(n) = raw.name {
            self.name = n;
        }
        if let Some(s) = raw.syntax {
            self.syntax = s;
        }
        for (slot, rs) in raw.slots {
            let color = |c: &Option<String>| -> Result<Option<Color>, ThemeError> {
                c.as_ref()
                    .map(|c| {
                        Color::from_str(c).map_err(|_| ThemeError::BadColor {
                            source_name: source_name.to_string(),
                            slot: slot.clone(),
                            color: c.clone(),
                        })
                    })
                    .transpose()
            };
            let mut style = Style::new();
            if let Some(fg) = color(&rs.fg)? {
                style = style.fg(fg);
            }
            if let Some(bg) = color(&rs.bg)? {
                style = style.bg(bg);
            }
            for (on, m) in [
                (rs.bold, Modifier::BOLD),
                (rs.italic, Modifier::ITALIC),
                (rs.underline, Modifier::UNDERLINED),
            ] {
                if on {
                    style = style.add_modifier(m);
                }
            }
            let target = self
                .slot_mut(&slot)
                .ok_or_else(|| ThemeError::UnknownSlot {
                    source_name: source_name.to_string(),
                    slot: slot.clone(),
                })?;
            *target = style;
        }
        Ok(self)
    }

    /// Style of an HTTP method.
    pub fn method(&self, method: &str) -> Style {
        match method {
            "GET" => self.method_get,
            "POST" => self.method_post,
            "PUT" | "PATCH" => self.method_put,
            "DELETE" => self.method_delete,
            _ => self.method_other,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_themes_fill_every_slot_they_list() {
        let dark = Theme::dark();
        let light = Theme::light();
        assert_eq!(dark.name, "dark");
        assert_eq!(light.name, "light");
        assert_ne!(dark.accepted, Style::new());
        assert_ne!(dark.selected, light.selected);
        assert_eq!(light.syntax, "InspiredGitHub");
    }

    #[test]
    fn user_theme_patches_only_listed_slots() {
        let t = Theme::from_user_toml(
            "base = \"light\"\n[slots]\naccepted = { fg = \"#ff0000\" }\n",
            "mine.toml",
        )
        .unwrap();
        assert_eq!(t.accepted, Style::new().fg(Color::Rgb(255, 0, 0)));
        assert_eq!(t.rejected, Theme::light().rejected);
    }

    #[test]
    fn bad_theme_names_the_problem() {
        let e = Theme::from_user_toml("[slots]\naccpted = { fg = \"red\" }\n", "t.toml");
        assert!(matches!(e, Err(ThemeError::UnknownSlot { ref slot, .. }) if slot == "accpted"));
        let e = Theme::from_user_toml("[slots]\naccepted = { fg = \"notacolour\" }\n", "t.toml");
        assert!(matches!(e, Err(ThemeError::BadColor { ref color, .. }) if color == "notacolour"));
    }
}
