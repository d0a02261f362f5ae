//! [`quote`]: the cost of one call at the row in force at its time.

use crate::prices::{LongContext, PriceTable, Unpriced};
use crate::{BucketPrices, TokenCounts, cost_usd};
use jiff::Timestamp;
use rust_decimal::Decimal;
use std::cell::RefCell;

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
    let tier = call
        .service_tier
        .map(|t| t.trim().to_ascii_lowercase())
        .filter(|t| !t.is_empty() && !STANDARD_TIERS.contains(&t.as_str()));
    let Some(tier) = tier else {
        // The common call: list prices, from the row this thread found last time, mostly.
        return LAST_ROW.with_borrow_mut(|last| {
            if !last
                .as_ref()
                .is_some_and(|row| row.answers(table, call.provider, model, call.at))
            {
                *last = Some(LastRow::find(table, call.provider, model, call.at)?);
            }
            let row = last.as_ref().expect("just found");
            priced(call, &row.id, &row.prices, row.long_context)
        });
    };
    let row = table.find(call.provider, model, call.at)?;
    let Quote { usd, mut price_id } = priced(call, &row.id, &row.prices, row.long_context)?;
    let multiplier = row
        .service_tiers
        .get(&tier)
        .ok_or_else(|| Unpriced::UnknownServiceTier {
            price_id: row.id.clone(),
            tier: tier.clone(),
        })?;
    let usd = usd
        .checked_mul(*multiplier)
        .ok_or_else(|| Unpriced::TooLarge {
            price_id: price_id.clone(),
        })?;
    price_id.push('+');
    price_id.push_str(&tier);
    Ok(Quote {
        usd: usd.normalize(),
        price_id,
    })
}

/// A call at list prices: the base prices, or the long-context ones above the threshold;
/// unpriced when the cost does not fit in a decimal.
fn priced(
    call: &Call<'_>,
    id: &str,
    prices: &BucketPrices,
    long_context: Option<LongContext>,
) -> Result<Quote, Unpriced> {
    let (prices, price_id) = match long_context {
        Some(long) if call.request_input > long.above => {
            (long.prices, format!("{id}{LONG_CONTEXT_SUFFIX}"))
        }
        _ => (*prices, id.to_owned()),
    };
    match cost_usd(call.tokens, &prices) {
        Some(usd) => Ok(Quote { usd, price_id }),
        None => Err(Unpriced::TooLarge { price_id }),
    }
}

thread_local! {
    /// The row this thread found last: the calls of a log mostly name one model and are
    /// priced at one time, and finding a row means hashing names and searching a map.
    static LAST_ROW: RefCell<Option<LastRow>> = const { RefCell::new(None) };
}

/// A row found for a (table, provider, model), what a quote at list prices reads of it,
/// and the times it is in force between.
#[derive(Debug)]
struct LastRow {
    table: u64,
    provider: Option<String>,
    model: String,
    from: Option<Timestamp>,
    until: Option<Timestamp>,
    id: String,
    prices: BucketPrices,
    long_context: Option<LongContext>,
}

impl LastRow {
    fn find(
        table: &PriceTable,
        provider: Option<&str>,
        model: &str,
        at: Timestamp,
    ) -> Result<LastRow, Unpriced> {
        let found = table.find_in_force(provider, model, at)?;
        Ok(LastRow {
            table: table.generation(),
            provider: provider.map(str::to_owned),
            model: model.to_owned(),
            from: found.row.effective,
            until: found.until,
            id: found.row.id.clone(),
            prices: found.row.prices,
            long_context: found.row.long_context,
        })
    }

    /// Whether [`PriceTable::find`] would find this row for the call.
    fn answers(
        &self,
        table: &PriceTable,
        provider: Option<&str>,
        model: &str,
        at: Timestamp,
    ) -> bool {
        self.table == table.generation()
            && self.provider.as_deref() == provider
            && self.model == model
            && self.from.is_none_or(|from| from <= at)
            && self.until.is_none_or(|until| at < until)
    }
}
