//! The Context tab's error-body lines: what each error case's body holds (its own fields
//! and fixed values) and the project's error envelopes, read from the code or claimed by
//! the model, with their evidence. Everything shown comes from a model or the source, so
//! it is escaped.

use crate::model::{EnvelopeOrigin, ErrorCase, ErrorEnvelope, ErrorField};
use crate::text::escape_controls;
use crate::tui::theme::Theme;
use ratatui::text::{Line, Span};

/// One error case: the status and condition, then its envelope and body fields. A status
/// the framework itself answers is marked so, naming the framework (its evidence: no
/// line of the project's code returns it).
pub fn case_lines<'a>(t: &Theme, e: &ErrorCase, out: &mut Vec<Line<'a>>) {
    let mut spans = vec![Span::styled(format!("  {} ", e.status), t.fail)];
    if let Some(fw) = &e.framework {
        spans.push(Span::styled(
            format!("[framework fact: {}] ", escape_controls(fw)),
            t.accent,
        ));
    }
    spans.push(Span::raw(escape_controls(&e.condition).to_string()));
    out.push(Line::from(spans));
    if let Some(env) = &e.envelope {
        out.push(Line::from(Span::styled(
            format!("      body rendered by {}", escape_controls(env)),
            t.muted,
        )));
    }
    for f in &e.body {
        out.push(field_line(t, f, "      "));
    }
}

/// The envelopes section; nothing when the project has none.
pub fn envelope_lines<'a>(t: &Theme, envelopes: &[ErrorEnvelope], out: &mut Vec<Line<'a>>) {
    if envelopes.is_empty() {
        return;
    }
    out.push(Line::raw(""));
    out.push(Line::from(Span::styled("Error envelopes", t.title)));
    for e in envelopes {
        let (origin, style) = match e.origin {
            EnvelopeOrigin::Static => ("read from the code", t.muted),
            EnvelopeOrigin::Extraction => ("claimed by the model", t.warning),
        };
        let at = e
            .evidence_refs
            .first()
            .map(|r| format!(" at {}:{}", escape_controls(&r.file), r.start_line))
            .unwrap_or_default();
        out.push(Line::from(vec![
            Span::styled(format!("  {}", escape_controls(&e.name)), t.accent),
            Span::styled(format!("  {origin}{at}"), style),
        ]));
        for f in &e.fields {
            out.push(field_line(t, f, "      "));
        }
    }
}

fn field_line<'a>(t: &Theme, f: &ErrorField, indent: &str) -> Line<'a> {
    let mut spans = vec![
        Span::styled(
            format!("{indent}{:<16}", escape_controls(&f.name)),
            t.accent,
        ),
        Span::raw(escape_controls(&f.ty).to_string()),
    ];
    if let Some(v) = &f.value {
        spans.push(Span::styled(
            format!("  = {}", escape_controls(&v.to_string())),
            t.text,
        ));
    }
    if let Some(tpl) = &f.template {
        spans.push(Span::styled(
            format!("  ~ \"{}\"", escape_controls(tpl)),
            t.text,
        ));
    }
    Line::from(spans)
}
