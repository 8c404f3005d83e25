//! Where the workbench finds its user files: keymap, themes and settings.
//!
//! The config directory is `$MASTOR_CONFIG`, else `$XDG_CONFIG_HOME/mastor`, else the
//! platform config directory from `directories`. Logs go to the platform state (or
//! cache) directory. Nothing here is read at draw time.

use super::keymap::{Keymap, KeymapError};
use super::theme::{Theme, ThemeError};
use std::path::{Path, PathBuf};

/// Why the user's files could not be used.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error(transparent)]
    Keymap(#[from] KeymapError),
    #[error(transparent)]
    Theme(#[from] ThemeError),
    #[error("cannot read {}: {source}", path.display())]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("unknown theme `{0}`: use dark, light, or a path to a theme TOML file")]
    UnknownTheme(String),
    #[error("{}: {message}", path.display())]
    Settings { path: PathBuf, message: String },
}

/// The workbench's behaviour settings, from `<config>/settings.toml`:
///
/// ```toml
/// [review]
/// # After `a` / `r`, move to the next oracle still to review (default true).
/// advance = true
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Settings {
    #[serde(default)]
    pub review: ReviewSettings,
}

/// The `[review]` table of the settings.
#[derive(Debug, Clone, PartialEq, Eq, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReviewSettings {
    /// Accepting or rejecting the selected oracle moves on to the next one still to
    /// review, so a review is a run of `a` and `r`.
    #[serde(default = "yes")]
    pub advance: bool,
}

fn yes() -> bool {
    true
}

impl Default for ReviewSettings {
    fn default() -> Self {
        ReviewSettings { advance: true }
    }
}

/// The settings: from `path` (or `<config>/settings.toml`), defaults when the file is
/// not there; a file that does not parse, or names a key we do not know, is an error
/// naming it.
pub fn load_settings(path: Option<&Path>) -> Result<Settings, ConfigError> {
    let path = path
        .map(Path::to_path_buf)
        .or_else(|| config_dir().map(|d| d.join("settings.toml")));
    let Some(path) = path else {
        return Ok(Settings::default());
    };
    match read(&path)? {
        Some(text) => toml::from_str(&text).map_err(|e| ConfigError::Settings {
            path,
            message: e.to_string(),
        }),
        None => Ok(Settings::default()),
    }
}

/// The user config directory, if one can be found.
pub fn config_dir() -> Option<PathBuf> {
    if let Some(d) = std::env::var_os("MASTOR_CONFIG") {
        return Some(PathBuf::from(d));
    }
    if let Some(d) = std::env::var_os("XDG_CONFIG_HOME") {
        return Some(PathBuf::from(d).join("mastor"));
    }
    directories::ProjectDirs::from("", "", "mastor").map(|p| p.config_dir().to_path_buf())
}

/// Directory for the TUI log file.
pub fn log_dir() -> Option<PathBuf> {
    let p = directories::ProjectDirs::from("", "", "mastor")?;
    Some(p.state_dir().unwrap_or(p.cache_dir()).to_path_buf())
}

fn read(path: &Path) -> Result<Option<String>, ConfigError> {
    match std::fs::read_to_string(path) {
        Ok(t) => Ok(Some(t)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(source) => Err(ConfigError::Read {
            path: path.to_path_buf(),
            source,
        }),
    }
}

/// The keymap: default, patched by `path` (or `<config>/keymap.toml` when it exists).
pub fn load_keymap(path: Option<&Path>) -> Result<Keymap, ConfigError> {
    let path = path
        .map(Path::to_path_buf)
        .or_else(|| config_dir().map(|d| d.join("keymap.toml")));
    match path {
        Some(p) => match read(&p)? {
            Some(text) => Ok(Keymap::with_overrides(&text, &p.display().to_string())?),
            None => Ok(Keymap::default_keymap()),
        },
        None => Ok(Keymap::default_keymap()),
    }
}

/// The theme: `name` is `dark`, `light`, a theme file in `<config>/themes/`, or a path;
/// without a name, `<config>/theme.toml` when it exists, else dark.
pub fn load_theme(name: Option<&str>) -> Result<Theme, ConfigError> {
    let from_file = |p: &Path| -> Result<Option<Theme>, ConfigError> {
        Ok(match read(p)? {
            Some(text) => Some(Theme::from_user_toml(&text, &p.display().to_string())?),
            None => None,
        })
    };
    match name {
        Some(n) => {
            if let Some(t) = Theme::builtin(n) {
                return Ok(t);
            }
            let candidates = [
                Some(PathBuf::from(n)),
                config_dir().map(|d| d.join("themes").join(format!("{n}.toml"))),
            ];
            for c in candidates.into_iter().flatten() {
                if let Some(t) = from_file(&c)? {
                    return Ok(t);
                }
            }
            Err(ConfigError::UnknownTheme(n.to_string()))
        }
        None => match config_dir() {
            Some(d) => Ok(from_file(&d.join("theme.toml"))?.unwrap_or_else(Theme::dark)),
            None => Ok(Theme::dark()),
        },
    }
}
