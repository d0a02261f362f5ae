//! [`quote`]: the cost of one call at the row in force at its time.

use crate::prices::{PriceTable, Unpriced};
use crate::{TokenCounts, cost_usd};
use jiff::Timestamp;
use rust_decimal::Decimal;

/// Service tiers that cost the list price (what providers report for ordinary calls).
const STANDARD_TIERS: [&str; 4] = ["standard", "default", "auto", "on_demand"];

/// One model call to price.
#[derive(Debug, Clone, Copy)]
pub struct Call<'a> {
    /// The provider, when the usage names it.
    pub provider: Option<&'a str>,
    /// The model, when the usage names it.
    pub model: Option<&'a str>,
    /// The counts, in disjoint buckets.
    pub tokens: &'a TokenCounts,
    /// When the call ran: the row in force then is used.
    pub at: Timestamp,
    /// The service tier the call ran on (`batch`, `flex`), when known.
    pub service_tier: Option<&'a str>,
    /// The request's input size compared with a long-context threshold: normally all
    /// input buckets of this one call (see [`Call::new`]).
    pub request_input: u64,
}

impl<'a> Call<'a> {
    /// A call whose request input is its own uncached, cache-read and cache-write tokens.
    pub fn new(
        provider: Option<&'a str>,
        model: Option<&'a str>,
        tokens: &'a TokenCounts,
        at: Timestamp,
        service_tier: Option<&'a str>,
    ) -> Call<'a> {
        Call {
            provider,
            model,
            tokens,
            at,
            service_tier,
            request_input: tokens
                .input_tokens
                .saturating_add(tokens.cache_read_tokens)
                .saturating_add(tokens.cache_write_tokens()),
        }
    }
}

/// A priced call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Quote {
    /// Exact USD, not rounded.
    pub usd: Decimal,
    /// The row used, plus `+long_context` when that tier applied and `+<tier>` when a
    /// service-tier multiplier did: `anthropic/claude-sonnet-4-5@2025-09-29+long_context+batch`.
    pub price_id: String,
}

/// Suffix of a price id when the long-context tier applied.
pub const LONG_CONTEXT_SUFFIX: &str = "+long_context";

/// Prices one call, or says why it has no price.
///
/// The row is the one in force at `call.at`. Above the row's long-context threshold
/// (strictly: a request of exactly `above` input tokens is still at the base prices) every
/// bucket of the request takes the long-context price. A service tier other than the
/// standard ones multiplies the whole cost by the row's multiplier for it, and leaves the
/// call unpriced when the row has none.
pub fn quote(table: &PriceTable, call: &Call<'_>) -> Result<Quote, Unpriced> {
    let model = call
        .model
        .filter(|m| !m.trim().is_empty())
        .ok_or(Unpriced::NoModel)?;
    let row = table.find(call.provider, model, call.at)?;
    let mut price_id = row.id.clone();
    let prices = match &row.long_context {
        Some(long) if call.request_input > long.above => {
            price_id.push_str(LONG_CONTEXT_SUFFIX);
            &long.prices
        }
        _ => &row.prices,
    };
    let mut usd = cost_usd(call.tokens, prices);
    let tier = call
        .service_tier
        .map(|t| t.trim().to_ascii_lowercase())
        .filter(|t| !t.is_empty() && !STANDARD_TIERS.contains(&t.as_str()));
    if let Some(tier) = tier {
        let multiplier =
            row.service_tiers
                .get(&tier)
                .ok_or_else(|| Unpriced::UnknownServiceTier {
                    price_id: row.id.clone(),
                    tier: tier.clone(),
                })?;
        usd = (usd * multiplier).normalize();
        price_id.push('+');
        price_id.push_str(&tier);
    }
    Ok(Quote { usd, price_id })
}
