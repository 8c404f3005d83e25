//! Finding oracles across the whole session: the text search (`/`, then `n` / `N`) and
//! the jumps to the next oracle still to review or the next failing one.
//!
//! The search matches an oracle's whole content as the reviewer left it (test id,
//! description, input values, field paths, expected values, evidence text and files),
//! not only the operation's method and path, so "where did we assert `owner`?" has an
//! answer. Jumps walk the operations in list order (filtered and sorted as shown), then
//! each operation's oracles as its Oracles tab lists them, and wrap around.

use super::screens::{OperationScreen, Screen, Tab};
use super::state::{App, ItemRef};
use super::verdict_mark::VerdictMark;
use super::view::SessionView;
use crate::model::ReviewState;

/// Whether an item's content contains `needle` (already lower case; empty matches all).
pub fn item_matches(view: &SessionView, item: ItemRef, needle: &str) -> bool {
    if needle.is_empty() {
        return true;
    }
    let text = match item {
        ItemRef::Single { op, oracle } => view
            .ops
            .get(op)
            .and_then(|o| o.oracles.get(oracle))
            .and_then(|o| serde_json::to_string(&view.effective_oracle(o)).ok()),
        ItemRef::Multi { group, oracle } => view
            .groups
            .get(group)
            .and_then(|g| g.oracles.get(oracle))
            .and_then(|o| serde_json::to_string(&view.effective_multi(o)).ok()),
        ItemRef::Meta { test } => view
            .metamorphic
            .get(test)
            .and_then(|t| serde_json::to_string(t).ok()),
    };
    text.is_some_and(|t| t.to_lowercase().contains(needle))
}

/// Whether any oracle of operation `op` matches `needle` (lower case).
pub fn op_has_match(view: &SessionView, op: usize, needle: &str) -> bool {
    view.ops.get(op).is_some_and(|o| {
        (0..o.oracles.len())
            .any(|oracle| item_matches(view, ItemRef::Single { op, oracle }, needle))
    })
}

/// What a jump looks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    /// Oracles matching the session search.
    Match,
    /// Oracles nobody reviewed yet.
    ToReview,
    /// Oracles whose latest run failed or errored.
    Failing,
}

impl Target {
    fn words(self) -> &'static str {
        match self {
            Target::Match => "matching oracle",
            Target::ToReview => "oracle to review",
            Target::Failing => "failing oracle",
        }
    }

    fn wants(self, app: &App, item: ItemRef) -> bool {
        let Some(o_id) = app.o_id(item) else {
            return false;
        };
        match self {
            Target::Match => item_matches(&app.view, item, &app.search.to_lowercase()),
            Target::ToReview => app.view.review_state(&o_id) == ReviewState::Proposed,
            Target::Failing => matches!(
                app.view.verdict_mark(&o_id),
                Some(VerdictMark::Fail | VerdictMark::Error)
            ),
        }
    }
}

/// Every single-operation oracle in the order the lists show them: operations as the
/// operations list has them, each operation's oracles as its Oracles tab filters them.
fn walk(app: &App) -> Vec<ItemRef> {
    app.visible_ops
        .iter()
        .flat_map(|&op| app.op_items(op))
        .collect()
}

/// Moves to the next (or previous) oracle `target` wants, opening its operation on
/// the Oracles tab; says so in the status line, or that there is none.
pub fn jump(app: &mut App, target: Target, forward: bool) {
    if target == Target::Match && app.search.is_empty() {
        app.notify("no search: type / and a text first");
        return;
    }
    // Every oracle in list order, the ones the target wants (their rows), and where the
    // selection is; the next wanted row after it (before it, backwards), wrapping.
    let all = walk(app);
    let wanted: Vec<usize> = (0..all.len())
        .filter(|&i| target.wants(app, all[i]))
        .collect();
    let (Some(&first), Some(&last)) = (wanted.first(), wanted.last()) else {
        app.notify(format!("no {} in the listed operations", target.words()));
        return;
    };
    let here = app.selected_item();
    let h = all.iter().position(|i| Some(*i) == here);
    let row = match (h, forward) {
        (Some(h), true) => wanted.iter().copied().find(|&w| w > h).unwrap_or(first),
        (Some(h), false) => wanted
            .iter()
            .rev()
            .copied()
            .find(|&w| w < h)
            .unwrap_or(last),
        (None, true) => first,
        (None, false) => last,
    };
    let found = all[row];
    show_item(app, found);
    let pos = wanted.iter().position(|&w| w == row).map_or(0, |p| p + 1);
    let op = match found {
        ItemRef::Single { op, .. } => app.view.ops.get(op).map(|o| o.op_id.clone()),
        _ => None,
    };
    app.notify(format!(
        "{} {pos} of {}: {}",
        target.words(),
        wanted.len(),
        op.unwrap_or_default()
    ));
}

/// Shows `item` selected on its operation's Oracles tab (the operation screen is
/// opened, or reused when it is already on show).
pub fn show_item(app: &mut App, item: ItemRef) {
    let ItemRef::Single { op, .. } = item else {
        return;
    };
    let reuse = matches!(&app.screen, Screen::Operation(s) if s.op == op);
    if !reuse {
        app.back_to(|s| matches!(s, Screen::Operations(_)));
        if let Some(row) = app.visible_ops.iter().position(|&i| i == op)
            && let Some(list) = app.operations_mut()
        {
            list.cursor = row;
        }
        let mut screen = OperationScreen::new(op);
        screen.items.filter = app.search.clone();
        app.cover(Screen::Operation(screen));
    }
    if let Screen::Operation(s) = &mut app.screen {
        s.tab = Tab::Oracles;
        if let Some(row) = s.items.visible.iter().position(|i| *i == item) {
            s.items.cursor = row;
            s.detail = Default::default();
        }
    }
}
