//! Price tables (docs/cost.md): effective-dated rows of USD per million tokens per provider
//! and model, long-context tiers and service-tier multipliers.
//!
//! A table comes from the default compiled into the binary ([`PriceTable::builtin`]),
//! from TOML files in proctor's format ([`toml_file`](self) docs) or from LiteLLM's JSON
//! price file; [`load_price_file`] tells them apart, and [`PriceTable::override_with`]
//! lays one over another.

mod builtin;
mod error;
mod litellm;
mod names;
mod position;
mod row;
mod table;
mod toml_file;
mod value;

pub use builtin::{DEFAULT_PRICES_NAME, DEFAULT_PRICES_TOML};
pub use error::PriceError;
pub use row::{LongContext, PriceRow};
pub use table::{PriceTable, RowInForce, Unpriced};
pub use toml_file::PRICES_FORMAT;

use proctor_core::utf8_text::utf8_text;
use std::path::Path;

/// Reads a price file: LiteLLM's JSON when it ends in `.json` or starts with `{`, else
/// proctor's TOML.
///
/// # Errors
///
/// [`PriceError`] naming the file, and the line and column of bad syntax or a bad row (the
/// line and byte offset of text that is not UTF-8).
pub fn load_price_file(path: &Path) -> Result<PriceTable, PriceError> {
    let bytes = std::fs::read(path).map_err(|source| PriceError::Io {
        path: path.to_owned(),
        source,
    })?;
    let text = utf8_text(&bytes).map_err(|at| PriceError::NotUtf8 {
        path: path.to_owned(),
        at,
    })?;
    parse_price_text(text, path).map(PriceTable::from_rows)
}

/// Reads price rows from text; `path` names it in messages and tells JSON from TOML.
///
/// # Errors
///
/// As [`load_price_file`].
pub fn parse_price_text(text: &str, path: &Path) -> Result<Vec<PriceRow>, PriceError> {
    let json = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("json"))
        || text.trim_start().starts_with('{');
    if json {
        litellm::parse_litellm(text, path)
    } else {
        toml_file::parse_toml(text, path)
    }
}

impl PriceTable {
    /// A table of rows read by [`parse_price_text`].
    pub fn from_price_rows(rows: Vec<PriceRow>) -> PriceTable {
        PriceTable::from_rows(rows)
    }
}
