//! Helpers shared by the ledger tests.

use jiff::Timestamp;
use proctor_ledger::prices::{PriceTable, load_price_file};
use rust_decimal::Decimal;
use std::path::{Path, PathBuf};
use std::str::FromStr;

pub fn dec(s: &str) -> Decimal {
    Decimal::from_str(s).unwrap()
}

pub fn ts(s: &str) -> Timestamp {
    s.parse().unwrap()
}

pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_owned()
}

/// `fixtures/prices/test.toml`.
pub fn test_prices() -> PriceTable {
    load_price_file(&root().join("fixtures/prices/test.toml")).unwrap()
}
