//! Java syntax highlighting with syntect, computed outside drawing and cached per file.
//!
//! The syntax and theme sets load on first use (they cost tens of milliseconds), and
//! only files actually shown are highlighted. Lines come out as ratatui `Line`s with
//! foreground colours only, so the workbench theme keeps control of backgrounds.

use ratatui::style::{Color, Style};
use ratatui::text::{Line, Span};
use std::collections::HashMap;
use syntect::easy::HighlightLines;
use syntect::highlighting::ThemeSet;
use syntect::parsing::SyntaxSet;

/// Cache of highlighted files.
pub struct Highlighter {
    theme_name: String,
    sets: Option<(SyntaxSet, ThemeSet)>,
    cache: HashMap<String, Vec<Line<'static>>>,
}

impl Highlighter {
    /// A highlighter using the syntect theme `theme_name` (falls back to a built-in one).
    pub fn new(theme_name: &str) -> Highlighter {
        Highlighter {
            theme_name: theme_name.to_string(),
            sets: None,
            cache: HashMap::new(),
        }
    }

    /// Highlights `file` once; later calls are free.
    pub fn ensure(&mut self, file: &str, lines: &[String]) {
        if self.cache.contains_key(file) {
            return;
        }
        let (ss, ts) = self.sets.get_or_insert_with(|| {
            (
                SyntaxSet::load_defaults_newlines(),
                ThemeSet::load_defaults(),
            )
        });
        let ext = file.rsplit('.').next().unwrap_or("");
        let syntax = ss
            .find_syntax_by_extension(ext)
            .unwrap_or_else(|| ss.find_syntax_plain_text());
        let Some(theme) = ts
            .themes
            .get(&self.theme_name)
            .or_else(|| ts.themes.values().next())
        else {
            return;
        };
        let mut h = HighlightLines::new(syntax, theme);
        let mut out = Vec::with_capacity(lines.len());
        for line in lines {
            let with_nl = format!("{line}\n");
            let spans = match h.highlight_line(&with_nl, ss) {
                Ok(ranges) => ranges
                    .into_iter()
                    .map(|(st, text)| {
                        let c = st.foreground;
                        Span::styled(
                            text.trim_end_matches('\n').to_string(),
                            Style::new().fg(Color::Rgb(c.r, c.g, c.b)),
                        )
                    })
                    .collect(),
                Err(_) => vec![Span::raw(line.clone())],
            };
            out.push(Line::from(spans));
        }
        self.cache.insert(file.to_string(), out);
    }

    /// Highlighted lines of `file`, if prepared.
    pub fn lines(&self, file: &str) -> Option<&[Line<'static>]> {
        self.cache.get(file).map(Vec::as_slice)
    }
}
