//! The spreadsheet formula-injection guard.
//!
//! A text cell that starts with `=`, `+`, `-` or `@` (or a tab or carriage return, which
//! some spreadsheets skip before one of those) would be run as a formula when the CSV is
//! opened; such a cell is written with a leading `'`, which spreadsheets show as text.
//! A cell that itself starts with `'` gets one more, so reading strips exactly one and
//! every value comes back as it was.

use std::borrow::Cow;

const TRIGGERS: [char; 7] = ['=', '+', '-', '@', '\t', '\r', '\''];

/// The cell to write for `text`.
pub fn guard(text: &str) -> Cow<'_, str> {
    if text.starts_with(TRIGGERS) {
        Cow::Owned(format!("'{text}"))
    } else {
        Cow::Borrowed(text)
    }
}

/// The value of a guarded cell, as bytes.
pub(crate) fn unguard_bytes(cell: &[u8]) -> &[u8] {
    cell.strip_prefix(b"'").unwrap_or(cell)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn formula_starts_are_guarded() {
        for (text, cell) in [
            ("=HYPERLINK(\"x\")", "'=HYPERLINK(\"x\")"),
            ("+1", "'+1"),
            ("-v2", "'-v2"),
            ("@SUM(A1)", "'@SUM(A1)"),
            ("\t=1", "'\t=1"),
            ("'quoted", "''quoted"),
            ("v1.2", "v1.2"),
            ("a=b", "a=b"),
            ("", ""),
        ] {
            assert_eq!(guard(text), cell, "{text:?}");
            assert_eq!(unguard_bytes(guard(text).as_bytes()), text.as_bytes());
        }
    }

    proptest! {
        #[test]
        fn guarding_round_trips_and_never_starts_a_formula(text in ".*") {
            let cell = guard(&text);
            prop_assert_eq!(unguard_bytes(cell.as_bytes()), text.as_bytes());
            prop_assert!(!cell.starts_with(['=', '+', '-', '@', '\t', '\r']));
        }
    }
}
