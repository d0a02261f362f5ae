//! The ledger's columns and format version.
//!
//! The first 17 columns are docs/cost.md's, in its order. Four more follow, so that a row
//! can be re-priced exactly and read by a later proctor: `cache_write_1h_tokens` (the
//! 1-hour part of `cache_write_tokens`), `service_tier`, `calls` (model calls summed in
//! the row) and `format` (`proctor.ledger/1`, on every row, so a row written by a newer
//! proctor is refused rather than misread). A ledger written by hand may leave the last
//! four out: they then read as 0, empty, 1 call when a model is named, and this version.

use std::collections::HashMap;

/// The format tag on every row.
pub const LEDGER_FORMAT: &str = "proctor.ledger/1";
pub(crate) const FORMAT_PREFIX: &str = "proctor.ledger/";
pub(crate) const FORMAT_VERSION: u32 = 1;

/// The header, in order.
pub const LEDGER_COLUMNS: [&str; 21] = [
    "recorded_at",
    "run_id",
    "suite",
    "label",
    "task",
    "attempt",
    "passed",
    "role",
    "provider",
    "model",
    "input_tokens",
    "cache_read_tokens",
    "cache_write_tokens",
    "output_tokens",
    "reasoning_tokens",
    "cost_usd",
    "price_id",
    "cache_write_1h_tokens",
    "service_tier",
    "calls",
    "format",
];

/// How many of [`LEDGER_COLUMNS`] every ledger must have (docs/cost.md).
pub(crate) const REQUIRED: usize = 17;

/// A column, by its position in [`LEDGER_COLUMNS`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[allow(missing_docs)]
pub enum Col {
    RecordedAt = 0,
    RunId,
    Suite,
    Label,
    Task,
    Attempt,
    Passed,
    Role,
    Provider,
    Model,
    InputTokens,
    CacheReadTokens,
    CacheWriteTokens,
    OutputTokens,
    ReasoningTokens,
    CostUsd,
    PriceId,
    CacheWrite1hTokens,
    ServiceTier,
    Calls,
    Format,
}

impl Col {
    /// The column's name in the header.
    pub fn name(self) -> &'static str {
        LEDGER_COLUMNS[self as usize]
    }
}

/// Where each column is in one file's header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Columns {
    at: [Option<usize>; 21],
    /// Whether the header is exactly [`LEDGER_COLUMNS`].
    pub exact: bool,
}

impl Columns {
    /// Maps a header; the error names the first missing required column.
    pub fn from_header<'h>(header: impl Iterator<Item = &'h [u8]>) -> Result<Columns, String> {
        let names: Vec<&[u8]> = header.collect();
        let index: HashMap<&[u8], usize> = names.iter().enumerate().map(|(i, n)| (*n, i)).collect();
        let mut at = [None; 21];
        for (i, name) in LEDGER_COLUMNS.iter().enumerate() {
            at[i] = index.get(name.as_bytes()).copied();
            if i < REQUIRED && at[i].is_none() {
                return Err(format!(
                    "the header has no column `{name}`; a ledger's columns are {}",
                    LEDGER_COLUMNS[..REQUIRED].join(",")
                ));
            }
        }
        let exact = names.len() == LEDGER_COLUMNS.len()
            && names
                .iter()
                .zip(LEDGER_COLUMNS)
                .all(|(n, c)| *n == c.as_bytes());
        Ok(Columns { at, exact })
    }

    /// The position of `col` in the file, if it has it.
    pub fn get(&self, col: Col) -> Option<usize> {
        self.at[col as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_map_by_name_in_any_order() {
        let mut names: Vec<&[u8]> = LEDGER_COLUMNS[..REQUIRED]
            .iter()
            .map(|c| c.as_bytes())
            .collect();
        names.reverse();
        let cols = Columns::from_header(names.into_iter()).unwrap();
        assert_eq!(cols.get(Col::RecordedAt), Some(16));
        assert_eq!(cols.get(Col::PriceId), Some(0));
        assert_eq!(cols.get(Col::Format), None);
        assert!(!cols.exact);
        let full = Columns::from_header(LEDGER_COLUMNS.iter().map(|c| c.as_bytes())).unwrap();
        assert!(full.exact);
        assert_eq!(Col::Format.name(), "format");
    }

    #[test]
    fn a_missing_required_column_is_named() {
        let err =
            Columns::from_header(LEDGER_COLUMNS[1..].iter().map(|c| c.as_bytes())).unwrap_err();
        assert!(
            err.starts_with("the header has no column `recorded_at`"),
            "{err}"
        );
    }
}
