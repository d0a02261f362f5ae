//! The labels file's guard against spreadsheet formulas (docs/calibrating.md).
//!
//! A cell that starts with `=`, `+`, `-` or `@`, or with a tab or carriage return, is run as
//! a formula when the CSV is opened in a spreadsheet; `review` writes such a text cell with a
//! leading `'`, which spreadsheets show as text. Reading takes that one `'` off again, and
//! only before such a start, so that a hand-written `'tis fine` stays as it is. A text that
//! already starts with quotes before such a start (`'=x`) gets one more, so every text comes
//! back as it was typed.

use std::borrow::Cow;

/// The first characters that make a spreadsheet read a cell as a formula.
const FORMULA_STARTS: [char; 6] = ['=', '+', '-', '@', '\t', '\r'];

/// Whether `text`, past any leading quotes, starts like a formula.
fn starts_like_a_formula(text: &str) -> bool {
    text.trim_start_matches('\'').starts_with(FORMULA_STARTS)
}

/// The cell to write for `text`: `text` itself, or `'` and `text` when it starts like a
/// formula.
pub fn guard_cell(text: &str) -> Cow<'_, str> {
    if starts_like_a_formula(text) {
        Cow::Owned(format!("'{text}"))
    } else {
        Cow::Borrowed(text)
    }
}

/// The text a cell was written for: without the `'` that [`guard_cell`] added, and
/// unchanged otherwise.
pub fn unguard_cell(cell: &str) -> &str {
    match cell.strip_prefix('\'') {
        Some(rest) if starts_like_a_formula(rest) => rest,
        _ => cell,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn formula_starts_get_a_quote_that_reading_takes_off() {
        for (text, cell) in [
            (
                "=HYPERLINK(\"http://x\",\"click\")",
                "'=HYPERLINK(\"http://x\",\"click\")",
            ),
            ("-5", "'-5"),
            ("+1", "'+1"),
            ("@SUM(A1)", "'@SUM(A1)"),
            ("\t=1", "'\t=1"),
            ("\r-1", "'\r-1"),
            ("'=x", "''=x"),
            ("'tis fine", "'tis fine"),
            ("a=b", "a=b"),
            ("", ""),
        ] {
            assert_eq!(guard_cell(text), cell, "{text:?}");
            assert_eq!(unguard_cell(cell), text, "{cell:?}");
        }
    }

    #[test]
    fn a_hand_written_quote_before_other_text_is_kept() {
        assert_eq!(unguard_cell("'tis"), "'tis");
        assert_eq!(unguard_cell("''"), "''");
        assert_eq!(unguard_cell("'"), "'");
    }

    proptest! {
        #[test]
        fn guarding_round_trips_and_never_starts_a_formula(text in "['=+@\t\r -]{0,3}.{0,4}") {
            let cell = guard_cell(&text);
            prop_assert_eq!(unguard_cell(&cell), text.as_str());
            prop_assert!(!cell.starts_with(FORMULA_STARTS));
        }
    }
}
