//! The Mutants screen: every mutant of the last mutation analysis, survivors first,
//! beside its source with the mutated line as a diff, filtered by operator, file and
//! operation. Nothing here is reviewed: it shows where the suite is blind.

use super::{Ctx, Detail, HeaderTab, Outcome, ScreenState, ScreenType, step};
use crate::model::EvidenceRef;
use crate::mutate::Operator;
use crate::tui::action::Action;
use crate::tui::mutation::{MutantFilter, MutantView};
use crate::tui::state::App;
use crate::tui::update::Effect;
use crate::tui::view::SessionView;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;

/// The Mutants screen's own state: filters, the rows they let through, the cursor and
/// the source pane's position.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MutantsScreen {
    /// Operator, file and operation filters.
    pub filter: MutantFilter,
    /// Indices into `MutationView::mutants` passing the filters.
    pub visible: Vec<usize>,
    /// Row of `visible` under the cursor.
    pub cursor: usize,
    /// Scroll of the source pane.
    pub detail: Detail,
}

impl MutantsScreen {
    /// The screen over the session's results, unfiltered (empty without results).
    pub fn new(view: &SessionView) -> MutantsScreen {
        let mut s = MutantsScreen::default();
        s.refresh(view);
        s
    }

    /// Recomputes the rows after a filter or data change, keeping the cursor in range.
    pub fn refresh(&mut self, view: &SessionView) {
        self.visible = view
            .mutation
            .as_ref()
            .map_or_else(Vec::new, |m| self.filter.visible(&m.mutants));
        self.cursor = crate::tui::state::clamp(self.cursor, self.visible.len());
    }

    /// The mutant under the cursor.
    pub fn selected<'a>(&self, view: &'a SessionView) -> Option<&'a MutantView> {
        let i = *self.visible.get(self.cursor)?;
        view.mutation.as_ref()?.mutants.get(i)
    }

    /// Sets the next value of the filter `action` cycles (operators, files or
    /// operations present in the results, then off); returns what it filters by now.
    pub fn cycle(&mut self, view: &SessionView, action: Action) -> String {
        let mutants = view.mutation.as_ref().map_or(&[][..], |m| &m.mutants[..]);
        let label = match action {
            Action::CycleOperator => {
                let all: Vec<Operator> = distinct(mutants.iter().map(|m| m.mutant.operator));
                self.filter.operator = next(&all, self.filter.operator.as_ref());
                (
                    "operator",
                    self.filter.operator.map(|o| o.name().to_string()),
                )
            }
            Action::CycleFile => {
                let all = distinct(mutants.iter().map(|m| m.mutant.file.clone()));
                self.filter.file = next(&all, self.filter.file.as_ref());
                ("file", self.filter.file.clone())
            }
            _ => {
                let all = distinct(mutants.iter().flat_map(|m| m.mutant.ops.iter().cloned()));
                self.filter.op = next(&all, self.filter.op.as_ref());
                ("operation", self.filter.op.clone())
            }
        };
        self.cursor = 0;
        self.detail = Detail::default();
        self.refresh(view);
        let shown = label.1.unwrap_or_else(|| "any".into());
        crate::text::escape_controls(&format!("{}: {shown}", label.0)).into_owned()
    }
}

fn distinct<T: Ord>(items: impl Iterator<Item = T>) -> Vec<T> {
    let set: std::collections::BTreeSet<T> = items.collect();
    set.into_iter().collect()
}

/// The value after `current` in `all`; `None` after the last one (filter off).
fn next<T: Clone + PartialEq>(all: &[T], current: Option<&T>) -> Option<T> {
    match current.and_then(|c| all.iter().position(|x| x == c)) {
        None => all.first().cloned(),
        Some(i) => all.get(i + 1).cloned(),
    }
}

impl ScreenType for MutantsScreen {
    const TAB: Option<HeaderTab> = Some(HeaderTab {
        title: "Mutants",
        action: "show_mutants",
        help: "mutants",
    });
    const SECTIONS: &'static [&'static str] = &["mutants"];

    fn fresh(view: &SessionView) -> Self {
        MutantsScreen::new(view)
    }
}

impl ScreenState for MutantsScreen {
    fn sections(&self) -> &'static [&'static str] {
        &["mutants", "list", "global"]
    }

    fn hints(&self) -> &'static [Action] {
        &[
            Action::CycleOperator,
            Action::CycleFile,
            Action::CycleMutantOp,
            Action::MarkEquivalent,
            Action::ClearFilter,
            Action::RunMutate,
            Action::ScrollDown,
            Action::Back,
            Action::Help,
        ]
    }

    fn draw(&self, app: &App, area: Rect, buf: &mut Buffer) {
        crate::tui::ui::draw_mutants(app, self, area, buf);
    }

    fn handle(&mut self, action: Action, ctx: &mut Ctx) -> Outcome {
        match action {
            Action::CycleOperator | Action::CycleFile | Action::CycleMutantOp => {
                let msg = self.cycle(ctx.view, action);
                ctx.notify(msg);
                Outcome::Done(Vec::new())
            }
            Action::MarkEquivalent => Outcome::Done(self.mark_equivalent(ctx)),
            _ => Outcome::Ignored,
        }
    }

    fn move_cursor(&mut self, _view: &SessionView, _visible_ops: &[usize], delta: i64) {
        self.cursor = step(self.cursor, self.visible.len(), delta);
        self.detail = Detail::default();
    }

    fn current_row(&self) -> Option<usize> {
        Some(self.cursor)
    }

    fn refresh(&mut self, view: &SessionView) {
        MutantsScreen::refresh(self, view);
    }

    /// The mutated line of the mutant under the cursor.
    fn source_target(&self, view: &SessionView) -> Option<EvidenceRef> {
        let m = &self.selected(view)?.mutant;
        Some(EvidenceRef {
            file: m.file.clone(),
            start_line: m.line,
            end_line: m.line,
        })
    }

    fn detail(&self) -> Detail {
        self.detail
    }

    fn detail_mut(&mut self) -> Option<&mut Detail> {
        Some(&mut self.detail)
    }

    fn clear_filters(&mut self) {
        self.filter = MutantFilter::default();
    }
}

impl MutantsScreen {
    /// The equivalence key: a survivor gets a note popup; an equivalent mutant has its
    /// mark withdrawn; anything else is refused with the reason.
    fn mark_equivalent(&self, ctx: &mut Ctx) -> Vec<Effect> {
        use crate::mutate::Status;
        let picked = self.selected(ctx.view).map(|m| {
            (
                m.mutant.id.clone(),
                m.status,
                format!("{}:{} {}", m.mutant.file, m.mutant.line, m.mutant.operator),
            )
        });
        let Some((id, status, what)) = picked else {
            ctx.notify("no mutant selected");
            return Vec::new();
        };
        match status {
            Status::Missed => {
                ctx.popups.push(crate::tui::popups::Popup::Equivalent(
                    crate::tui::popups::Equivalent {
                        mutant: id,
                        what: crate::text::escape_controls(&what).into_owned(),
                        text: Default::default(),
                    },
                ));
                Vec::new()
            }
            Status::Equivalent => vec![Effect::MarkEquivalent {
                mutant: id,
                note: String::new(),
                undo: true,
            }],
            other => {
                ctx.notify(format!(
                    "{id} is {}: only a survivor can be marked equivalent",
                    other.name()
                ));
                Vec::new()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mutate::Mutant;
    use crate::mutate::matrix::{Matrix, Status};
    use crate::tui::mutation::MutationView;

    fn view() -> SessionView {
        let mv = |id: &str, op: Operator, file: &str, status| MutantView {
            mutant: Mutant {
                id: id.into(),
                operator: op,
                file: file.into(),
                line: 1,
                column: 1,
                start: 0,
                end: 0,
                before: String::new(),
                after: String::new(),
                ops: vec![format!("GET /{id}")],
            },
            status,
            killed_by: vec![],
            detail: String::new(),
            diff: None,
        };
        SessionView {
            mutation: Some(MutationView {
                mutants: vec![
                    mv("a", Operator::Math, "A.java", Status::Missed),
                    mv("b", Operator::ReturnValues, "B.java", Status::Caught),
                    mv("c", Operator::Math, "B.java", Status::Caught),
                ],
                matrix: Matrix {
                    oracles: vec![],
                    excluded: vec![],
                    mutants: vec![],
                },
                summary: None,
                options: None,
                figures: Default::default(),
                kills_nothing: Default::default(),
                redundant: Default::default(),
            }),
            ..SessionView::default()
        }
    }

    #[test]
    fn filter_keys_cycle_through_what_the_results_hold_then_off() {
        let view = view();
        let mut s = MutantsScreen::new(&view);
        assert_eq!(s.visible, [0, 1, 2]);
        assert_eq!(s.cycle(&view, Action::CycleOperator), "operator: math");
        assert_eq!(s.visible, [0, 2]);
        assert_eq!(s.cycle(&view, Action::CycleFile), "file: A.java");
        assert_eq!(s.visible, [0]);
        s.cycle(&view, Action::CycleFile);
        assert_eq!(s.visible, [2]);
        assert_eq!(s.cycle(&view, Action::CycleFile), "file: any");
        assert_eq!(s.cycle(&view, Action::CycleMutantOp), "operation: GET /a");
        assert_eq!(s.visible, [0]);
        s.clear_filters();
        s.refresh(&view);
        assert_eq!(s.visible, [0, 1, 2]);
    }
}
