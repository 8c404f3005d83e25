//! Every user intent the workbench understands, as one enum.
//!
//! Keys map to actions through the keymap; actions change the state in `update`. The
//! names here are the ones used in keymap files, and the descriptions are what the help
//! overlay and the footer show, so they cannot drift from the real behaviour.

macro_rules! actions {
    (
        $($(#[doc = $doc:literal])* $variant:ident = $name:literal, $desc:literal;)*
        @screens
        $($(#[doc = $doc2:literal])* $variant2:ident = $name2:literal, $desc2:literal;)*
    ) => {
        /// A user intent, independent of the key that asked for it.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Action {
            $($(#[doc = $doc])* $variant,)*
            $($(#[doc = $doc2])* $variant2,)*
            /// Go to a screen of the header (`show_<screen>`, from the screen's
            /// `ScreenType::TAB`): back to it where it is on the screen stack, else a
            /// fresh one over the operations list.
            Show(ScreenKind),
        }

        impl Action {
            /// All actions, in help order (the header's screens where `@screens` is).
            pub fn all() -> impl Iterator<Item = Action> {
                let shows = ScreenKind::ALL
                    .iter()
                    .filter(|k| k.tab().is_some())
                    .map(|&k| Action::Show(k));
                [$(Action::$variant,)*]
                    .into_iter()
                    .chain(shows)
                    .chain([$(Action::$variant2,)*])
            }

            /// The name used in keymap files.
            pub fn name(self) -> &'static str {
                match self {
                    $(Action::$variant => $name,)*
                    $(Action::$variant2 => $name2,)*
                    Action::Show(k) => k.tab().map_or("show", |t| t.action),
                }
            }

            /// One-line description for the help overlay and footer.
            pub fn description(self) -> &'static str {
                match self {
                    $(Action::$variant => $desc,)*
                    $(Action::$variant2 => $desc2,)*
                    Action::Show(k) => k.tab().map_or("show", |t| t.help),
                }
            }

            /// Looks an action up by its keymap name.
            pub fn from_name(name: &str) -> Option<Action> {
                match name {
                    $($name => Some(Action::$variant),)*
                    $($name2 => Some(Action::$variant2),)*
                    _ => ScreenKind::ALL
                        .iter()
                        .find(|k| k.tab().is_some_and(|t| t.action == name))
                        .map(|&k| Action::Show(k)),
                }
            }
        }
    };
}

use super::screens::ScreenKind;

actions! {
    /// Leave the workbench (decisions are already on disk).
    Quit = "quit", "quit";
    /// Show or hide the key reference.
    Help = "help", "help";
    /// Close the top popup, or go up one screen.
    Back = "back", "back";
    /// Open the selected row (operation, group) or confirm.
    Open = "open", "open";
    /// Move the selection up one row.
    Up = "up", "up";
    /// Move the selection down one row.
    Down = "down", "down";
    /// Move the selection up one page.
    PageUp = "page_up", "page up";
    /// Move the selection down one page.
    PageDown = "page_down", "page down";
    /// Jump to the first row.
    Top = "top", "first";
    /// Jump to the last row.
    Bottom = "bottom", "last";
    /// Next tab of the operation screen.
    NextTab = "next_tab", "next tab";
    /// Previous tab of the operation screen.
    PrevTab = "prev_tab", "prev tab";
    // The header's screens (`Action::Show`), one per screen with a header entry.
    @screens
    /// Type a text filter (search in the Bundle tab).
    Filter = "filter", "filter";
    /// Clear every filter.
    ClearFilter = "clear_filter", "clear filters";
    /// Cycle the sort column of the operations list.
    CycleSort = "cycle_sort", "sort";
    /// Cycle the HTTP method filter.
    CycleMethod = "cycle_method", "method filter";
    /// Cycle the agent status filter (running, failed, done, ...).
    CycleStatus = "cycle_status", "status filter";
    /// Cycle the review state filter (proposed, accepted, ...).
    CycleState = "cycle_state", "review filter";
    /// Accept the selected oracle.
    Accept = "accept", "accept";
    /// Reject the selected oracle, with an optional note.
    Reject = "reject", "reject";
    /// Edit the selected oracle as JSON in place.
    Edit = "edit", "edit";
    /// Edit the selected oracle in $EDITOR.
    EditExternal = "edit_external", "$EDITOR";
    /// Undo the latest review step of the session (a bulk action is one step).
    Undo = "undo", "undo";
    /// Apply the latest undone review step again.
    Redo = "redo", "redo";
    /// Judge the selected item's latest failure a true positive (a fault in the API).
    TruePositive = "true_positive", "true positive";
    /// Judge the selected item's latest failure a false positive (a wrong oracle).
    FalsePositive = "false_positive", "false positive";
    /// Judge every failure of the filtered list a true positive, one note, one undo step.
    BulkTruePositive = "bulk_true_positive", "all shown failures TP";
    /// Judge every failure of the filtered list a false positive, one note, one undo step.
    BulkFalsePositive = "bulk_false_positive", "all shown failures FP";
    /// Undo the latest true / false positive judgement.
    UndoJudgement = "undo_judgement", "undo TP/FP";
    /// Cycle the judgement filter (unjudged failures, true, false positives, off).
    CycleJudged = "cycle_judged", "TP/FP filter";
    /// Accept every oracle of the filtered list (asks first).
    BulkAccept = "bulk_accept", "accept all shown";
    /// Reject every oracle of the filtered list (asks first).
    BulkReject = "bulk_reject", "reject all shown";
    /// Open the export dialog.
    Export = "export", "export";
    /// Show the next evidence reference of the selected oracle.
    NextRef = "next_ref", "next evidence";
    /// Show the previous evidence reference.
    PrevRef = "prev_ref", "prev evidence";
    /// Toggle between the evidence excerpt and the whole file.
    WholeFile = "whole_file", "whole file";
    /// Wrap long source lines instead of cutting them at the pane's edge.
    WrapSource = "wrap_source", "wrap source";
    /// Give the source pane the whole width (evidence lines still marked), or back.
    ZoomSource = "zoom_source", "zoom source";
    /// Scroll the source or detail pane down.
    ScrollDown = "scroll_down", "scroll source down";
    /// Scroll the source or detail pane up.
    ScrollUp = "scroll_up", "scroll source up";
    /// Ask the model again for this one operation, in the background.
    Rerun = "rerun", "re-run op";
    /// Run the accepted and edited oracles against a live API.
    RunOracles = "run_oracles", "run oracles";
    /// Run the mutation analysis of the session in the background (asks for commands).
    RunMutate = "run_mutate", "run mutate";
    /// Cycle the oracle list's mutation filter (kills nothing, redundant, off).
    CycleMutation = "cycle_mutation", "kills filter";
    /// Mutants screen: cycle the mutation operator filter.
    CycleOperator = "cycle_operator", "operator filter";
    /// Mutants screen: cycle the mutated file filter.
    CycleFile = "cycle_file", "file filter";
    /// Mutants screen: cycle the operation filter (operations reaching the file).
    CycleMutantOp = "cycle_mutant_op", "operation filter";
    /// Mutants screen: mark the selected survivor equivalent (with a note), or withdraw
    /// the mark of an equivalent one.
    MarkEquivalent = "mark_equivalent", "equivalent";
    /// Mutants screen: ask the model for oracles that kill the selected survivor.
    RegenerateSurvivor = "regenerate_survivor", "kill it";
    /// Mutants screen: the same for every survivor of the operation filter.
    RegenerateSurvivors = "regenerate_survivors", "kill the op's survivors";
    /// Scroll the detail pane (the oracle, the metamorphic test, a text tab) down.
    ScrollDetailDown = "scroll_detail_down", "scroll down";
    /// Scroll the detail pane up.
    ScrollDetailUp = "scroll_detail_up", "scroll up";
    /// Show the request sent and the response received by the selected oracle's
    /// latest run, with every failed assertion.
    ShowFailure = "show_failure", "request/response";
    /// Copy the latest run's request of the selected oracle as a curl line (OSC 52).
    CopyCurl = "copy_curl", "copy curl";
    /// Copy the latest run's response body of the selected oracle (OSC 52).
    CopyBody = "copy_body", "copy body";
    /// Run the selected oracle again against the last base URL.
    RunOne = "run_one", "run this oracle";
    /// Run every currently failing oracle again against the last base URL.
    RunFailing = "run_failing", "run failing";
    /// Next oracle matching the search, across operations.
    NextMatch = "next_match", "next match";
    /// Previous oracle matching the search, across operations.
    PrevMatch = "prev_match", "prev match";
    /// Next oracle still to review, across operations.
    NextToReview = "next_to_review", "next to review";
    /// Previous oracle still to review, across operations.
    PrevToReview = "prev_to_review", "prev to review";
    /// Next failing oracle, across operations.
    NextFailing = "next_failing", "next failing";
    /// Previous failing oracle, across operations.
    PrevFailing = "prev_failing", "prev failing";
    /// Context tab: serve the operation from the static match, from the next run on.
    PickStaticHandler = "pick_static_handler", "use the scan's handler";
    /// Context tab: serve the operation from the model's discovery answer.
    PickDiscoveredHandler = "pick_discovered_handler", "use the model's handler";
    /// Context tab: the extraction call that made the context, on the Calls tab (the
    /// prompt with the bundle as sent, and the model's raw answer).
    ShowModelInput = "show_model_input", "what the model saw";
    /// Context tab: edit the operation's source context as JSON; runs generate from the
    /// edit and never extract over it.
    EditContext = "edit_context", "edit context";
    /// Context tab: drop the operation's context edit (the extraction's is used again).
    DropContextEdit = "drop_context_edit", "drop context edit";
    /// Cycle the verdict filter (failing, stale, not run, passing, off).
    CycleVerdict = "cycle_verdict", "verdict filter";
    /// Popups: answer yes to a question.
    Yes = "yes", "yes";
    /// Popups: answer no to a question.
    No = "no", "no";
    /// Popups: confirm (submit the typed text, start, close).
    Confirm = "confirm", "confirm";
    /// Popups: cancel and close.
    Cancel = "cancel", "cancel";
    /// JSON editor: validate and keep the edit.
    Save = "save", "validate and keep";
    /// Export dialog: next export format.
    NextFormat = "next_format", "next format";
}
