//! The dated default price table compiled into the binary (`ledger/prices/default.toml`).

use super::table::PriceTable;
use super::toml_file::parse_toml;
use std::path::Path;

/// The default table's text, as shipped.
pub const DEFAULT_PRICES_TOML: &str = include_str!("../../prices/default.toml");

/// The name the default table goes by in messages and row origins.
pub const DEFAULT_PRICES_NAME: &str = "<built-in prices>";

impl PriceTable {
    /// The default table shipped in the binary.
    ///
    /// # Panics
    ///
    /// Never for a released binary: a test reads the same text.
    pub fn builtin() -> PriceTable {
        let rows = parse_toml(DEFAULT_PRICES_TOML, Path::new(DEFAULT_PRICES_NAME))
            .expect("the built-in price table is valid");
        PriceTable::from_rows(rows)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_builtin_table_reads_and_every_row_has_a_source_and_a_check_date() {
        let table = PriceTable::builtin();
        assert!(table.len() >= 20, "{} rows", table.len());
        for row in table.rows() {
            assert!(
                row.source
                    .as_deref()
                    .is_some_and(|s| s.starts_with("https://")),
                "{}",
                row.id
            );
            assert!(row.checked.is_some(), "{}", row.id);
            assert!(row.effective.is_some(), "{}", row.id);
        }
    }
}
