//! One-line bars (the header, the operations summary) on a narrow terminal: whole items
//! are left out, least important first, so a count is never shown with a digit cut
//! off (`✗52` read as `✗5`).

use ratatui::text::Span;

/// One item of a bar: its spans, how much it matters (higher stays longer), and what
/// a click on it does.
pub(crate) struct Item<T> {
    pub spans: Vec<Span<'static>>,
    pub keep: u8,
    pub hit: Option<T>,
}

impl<T> Item<T> {
    pub fn new(keep: u8, spans: Vec<Span<'static>>) -> Item<T> {
        Item {
            spans,
            keep,
            hit: None,
        }
    }

    pub fn width(&self) -> usize {
        self.spans.iter().map(Span::width).sum()
    }
}

/// The items that fit in `width` columns, in their order: while the bar is too wide,
/// the least important item (the rightmost among equals) is left out.
pub(crate) fn fit<T>(mut items: Vec<Item<T>>, width: usize) -> Vec<Item<T>> {
    while items.iter().map(Item::width).sum::<usize>() > width && !items.is_empty() {
        let low = items.iter().map(|i| i.keep).min().unwrap_or(0);
        let at = items.iter().rposition(|i| i.keep == low).unwrap_or(0);
        items.remove(at);
    }
    items
}
