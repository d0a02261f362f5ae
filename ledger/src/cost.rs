//! Cost of one usage record at given per-bucket prices.
//!
//! The price table (effective-dated rows per provider and model) will live beside this
//! module; for now the caller supplies the prices of each bucket.

use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

use crate::TokenCounts;

/// One million, the unit prices are quoted in.
const PER_MILLION: Decimal = Decimal::from_parts(1_000_000, 0, 0, false, 0);

/// USD per million tokens for each bucket.
///
/// Reasoning tokens have no price of their own: they are billed as output and are already
/// inside [`TokenCounts::output_tokens`]. Prices are expected to be non-negative; the price
/// table checks that when it reads them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct BucketPrices {
    /// Uncached input.
    pub input: Decimal,
    /// Input read from a cache.
    pub cache_read: Decimal,
    /// Input written to a 5-minute cache.
    pub cache_write_5m: Decimal,
    /// Input written to a 1-hour cache.
    pub cache_write_1h: Decimal,
    /// Output, reasoning included.
    pub output: Decimal,
}

/// The exact cost in USD of `tokens` at `prices` (per million tokens), with no rounding;
/// `None` when it does not fit in a [`Decimal`] (about 7.9 × 10²⁸ micro-USD), which takes
/// absurd counts or prices: such a call is left unpriced, never a panic or a wrong sum.
///
/// The result is normalised (no trailing zeros): 0.054399, not 0.05439900.
pub fn cost_usd(tokens: &TokenCounts, prices: &BucketPrices) -> Option<Decimal> {
    let buckets = [
        (tokens.input_tokens, prices.input),
        (tokens.cache_read_tokens, prices.cache_read),
        (tokens.cache_write_5m_tokens, prices.cache_write_5m),
        (tokens.cache_write_1h_tokens, prices.cache_write_1h),
        (tokens.output_tokens, prices.output),
    ];
    let mut micro_usd = Decimal::ZERO;
    for (count, price) in buckets {
        let part = Decimal::from(count).checked_mul(price)?;
        micro_usd = micro_usd.checked_add(part)?;
    }
    Some(per_million(micro_usd).normalize())
}

/// `value / 1_000_000`, exact: shifting the scale keeps every digit; division (which could
/// round) is only the fallback when the scale would pass the 28 digits a `Decimal` holds.
fn per_million(value: Decimal) -> Decimal {
    let mut shifted = value;
    match shifted.set_scale(value.scale() + 6) {
        Ok(()) => shifted,
        Err(_) => value / PER_MILLION,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::str::FromStr;

    fn cost(tokens: &TokenCounts, prices: &BucketPrices) -> Decimal {
        cost_usd(tokens, prices).expect("fits")
    }

    #[test]
    fn a_cost_that_does_not_fit_is_none() {
        let max = Decimal::from(1_000_000_000_000u64);
        let prices = BucketPrices {
            input: max,
            output: max,
            ..Default::default()
        };
        let tokens = TokenCounts {
            input_tokens: u64::MAX,
            output_tokens: u64::MAX,
            ..Default::default()
        };
        assert_eq!(cost_usd(&tokens, &prices), None);
        let one = TokenCounts {
            input_tokens: 1,
            ..Default::default()
        };
        assert_eq!(cost_usd(&one, &prices), Some(Decimal::from(1_000_000)));
    }

    fn dec(s: &str) -> Decimal {
        Decimal::from_str(s).unwrap()
    }

    /// Claude Sonnet-like prices: $3 input, $0.30 cache read, $3.75 / $6 cache writes, $15 output.
    fn sonnet() -> BucketPrices {
        BucketPrices {
            input: dec("3"),
            cache_read: dec("0.30"),
            cache_write_5m: dec("3.75"),
            cache_write_1h: dec("6"),
            output: dec("15"),
        }
    }

    #[test]
    fn design_check_3_input_12304_cache_write_550_output_is_0_054399() {
        let tokens = TokenCounts {
            input_tokens: 3,
            cache_write_5m_tokens: 12_304,
            output_tokens: 550,
            ..TokenCounts::default()
        };
        let cost = cost(&tokens, &sonnet());
        assert_eq!(cost, dec("0.054399"));
        assert_eq!(cost.to_string(), "0.054399");
    }

    #[test]
    fn each_bucket_uses_its_own_price() {
        let one = |t: TokenCounts| cost(&t, &sonnet());
        let million = 1_000_000;
        assert_eq!(
            one(TokenCounts {
                input_tokens: million,
                ..Default::default()
            }),
            dec("3")
        );
        assert_eq!(
            one(TokenCounts {
                cache_read_tokens: million,
                ..Default::default()
            }),
            dec("0.3")
        );
        assert_eq!(
            one(TokenCounts {
                cache_write_5m_tokens: million,
                ..Default::default()
            }),
            dec("3.75")
        );
        assert_eq!(
            one(TokenCounts {
                cache_write_1h_tokens: million,
                ..Default::default()
            }),
            dec("6")
        );
        assert_eq!(
            one(TokenCounts {
                output_tokens: million,
                ..Default::default()
            }),
            dec("15")
        );
    }

    #[test]
    fn reasoning_tokens_are_not_charged_twice() {
        let without = TokenCounts {
            output_tokens: 1_000,
            ..Default::default()
        };
        let with = TokenCounts {
            reasoning_tokens: 800,
            ..without
        };
        assert_eq!(cost(&with, &sonnet()), cost(&without, &sonnet()));
        assert_eq!(cost(&with, &sonnet()), dec("0.015"));
    }

    #[test]
    fn a_single_token_at_a_fine_price_is_exact() {
        let prices = BucketPrices {
            input: dec("0.0375"),
            ..Default::default()
        };
        let tokens = TokenCounts {
            input_tokens: 1,
            ..Default::default()
        };
        assert_eq!(cost(&tokens, &prices).to_string(), "0.0000000375");
    }

    #[test]
    fn no_tokens_cost_zero() {
        assert_eq!(cost(&TokenCounts::default(), &sonnet()), Decimal::ZERO);
    }

    #[test]
    fn division_fallback_when_the_scale_is_full() {
        let value = Decimal::from_i128_with_scale(12_345, 25);
        assert_eq!(per_million(value), value / PER_MILLION);
        assert_eq!(per_million(dec("54399.00")), dec("0.054399"));
    }

    fn price() -> impl Strategy<Value = Decimal> {
        (0i64..=100_000_000, 0u32..=6).prop_map(|(m, s)| Decimal::new(m, s))
    }

    fn prices() -> impl Strategy<Value = BucketPrices> {
        (price(), price(), price(), price(), price()).prop_map(|(a, b, c, d, e)| BucketPrices {
            input: a,
            cache_read: b,
            cache_write_5m: c,
            cache_write_1h: d,
            output: e,
        })
    }

    const MAX_TOKENS: u64 = 1 << 40;

    fn tokens() -> impl Strategy<Value = TokenCounts> {
        let n = 0..=MAX_TOKENS;
        (n.clone(), n.clone(), n.clone(), n.clone(), n.clone(), n).prop_map(|(a, b, c, d, e, f)| {
            TokenCounts {
                input_tokens: a,
                cache_read_tokens: b,
                cache_write_5m_tokens: c,
                cache_write_1h_tokens: d,
                output_tokens: e,
                reasoning_tokens: f.min(e),
            }
        })
    }

    /// Adds `delta` to bucket `which` (0..5: input, cache read, 5m write, 1h write, output;
    /// 5: reasoning) and returns the new counts and that bucket's price.
    fn bump(t: TokenCounts, p: &BucketPrices, which: usize, delta: u64) -> (TokenCounts, Decimal) {
        let mut t = t;
        let price = match which {
            0 => {
                t.input_tokens += delta;
                p.input
            }
            1 => {
                t.cache_read_tokens += delta;
                p.cache_read
            }
            2 => {
                t.cache_write_5m_tokens += delta;
                p.cache_write_5m
            }
            3 => {
                t.cache_write_1h_tokens += delta;
                p.cache_write_1h
            }
            4 => {
                t.output_tokens += delta;
                p.output
            }
            _ => {
                t.reasoning_tokens += delta;
                Decimal::ZERO
            }
        };
        (t, price)
    }

    proptest! {
        #[test]
        fn cost_is_never_negative(t in tokens(), p in prices()) {
            prop_assert!(cost(&t, &p) >= Decimal::ZERO);
        }

        #[test]
        fn cost_is_monotone_in_every_token_count(
            t in tokens(), p in prices(), which in 0usize..6, delta in 0..=MAX_TOKENS,
        ) {
            let before = cost(&t, &p);
            let (more, price) = bump(t, &p, which, delta);
            let after = cost(&more, &p);
            prop_assert!(after >= before, "bucket {which}: {after} < {before}");
            // Exactly the added tokens at that bucket's price: no bucket borrows another's price.
            prop_assert_eq!(after - before, Decimal::from(delta) * price / PER_MILLION);
        }

        #[test]
        fn cost_is_additive_over_calls(a in tokens(), b in tokens(), p in prices()) {
            let mut both = a;
            both.add(&b);
            prop_assert_eq!(cost(&both, &p), cost(&a, &p) + cost(&b, &p));
        }
    }
}
