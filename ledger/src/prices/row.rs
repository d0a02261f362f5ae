//! [`PriceRow`]: the prices of one model from one date on.

use crate::BucketPrices;
use jiff::Timestamp;
use rust_decimal::Decimal;
use std::collections::BTreeMap;

/// USD per million tokens of one provider's model, in force from `effective` until the
/// next row of the same model.
#[derive(Debug, Clone, PartialEq)]
pub struct PriceRow {
    /// Recorded on every cost priced with this row, e.g. `anthropic/claude-sonnet-4-6@2026-02-17`.
    pub id: String,
    /// Canonical provider name (see `canonical_provider`).
    pub provider: String,
    /// Model name, lowercase.
    pub model: String,
    /// Other names of the model (dated snapshots), lowercase.
    pub aliases: Vec<String>,
    /// From when the row is in force; `None` means since always (LiteLLM rows).
    pub effective: Option<Timestamp>,
    /// Where the prices come from (a URL, "LiteLLM", a contract).
    pub source: Option<String>,
    /// When someone last checked them against the source.
    pub checked: Option<String>,
    /// The prices of each bucket.
    pub prices: BucketPrices,
    /// Prices of the whole request when its input is above a threshold.
    pub long_context: Option<LongContext>,
    /// Multipliers of the whole cost per service tier (`batch = 0.5`). A tier not listed
    /// here, other than the standard ones, leaves a call unpriced.
    pub service_tiers: BTreeMap<String, Decimal>,
    /// The file and line the row was read from, for messages.
    pub origin: String,
}

/// A long-context tier: a request whose input (uncached, cache reads and cache writes
/// together) is *above* `above` tokens is priced entirely at `prices`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LongContext {
    /// The threshold: at exactly this many input tokens the base prices still apply.
    pub above: u64,
    /// The prices of every bucket above the threshold.
    pub prices: BucketPrices,
}
