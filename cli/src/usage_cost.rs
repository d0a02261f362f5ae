//! Tokens and cost of an outcome's usage records.
//!
//! Prices are not applied yet, so every model call is counted as unpriced: its cost
//! is unknown, never 0, and cost per success in USD stays empty.

use proctor_core::result::Cost;
use proctor_ledger::{UsageError, normalise_all};
use serde_json::Value;

pub fn cost_of(usage: &[Value]) -> Result<Cost, UsageError> {
    let records = normalise_all(usage)?;
    Ok(Cost {
        usd: None,
        tokens: records.iter().map(|r| r.tokens.total()).sum(),
        unpriced_calls: records.len() as u64,
        ..Cost::default()
    })
}
