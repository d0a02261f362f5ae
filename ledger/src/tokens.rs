//! [`TokenCounts`]: one call's tokens in disjoint, separately priced buckets.

use serde::{Deserialize, Serialize};

/// One usage record in disjoint buckets; summing buckets never double-counts.
///
/// `reasoning_tokens` is the exception that proves the rule: it is not a bucket but a
/// breakdown of `output_tokens` (reasoning is billed as output), kept for reporting.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct TokenCounts {
    /// Input tokens that were neither read from nor written to a cache.
    pub input_tokens: u64,
    /// Input tokens read from a provider-managed cache.
    pub cache_read_tokens: u64,
    /// Input tokens written to a cache that lives 5 minutes (also: cache writes of unknown lifetime).
    pub cache_write_5m_tokens: u64,
    /// Input tokens written to a cache that lives 1 hour.
    pub cache_write_1h_tokens: u64,
    /// Output tokens, reasoning included.
    pub output_tokens: u64,
    /// Reasoning ("thinking") tokens, counted apart; already inside `output_tokens`.
    pub reasoning_tokens: u64,
}

impl TokenCounts {
    /// Cache writes of both lifetimes (saturating).
    pub fn cache_write_tokens(&self) -> u64 {
        self.cache_write_5m_tokens
            .saturating_add(self.cache_write_1h_tokens)
    }

    /// Every billed token once: input + cache read + cache writes + output (saturating).
    ///
    /// Reasoning tokens are not added: they are already inside `output_tokens`.
    pub fn total(&self) -> u64 {
        self.input_tokens
            .saturating_add(self.cache_read_tokens)
            .saturating_add(self.cache_write_tokens())
            .saturating_add(self.output_tokens)
    }

    /// Adds `other` bucket by bucket, saturating at `u64::MAX`.
    pub fn add(&mut self, other: &TokenCounts) {
        self.input_tokens = self.input_tokens.saturating_add(other.input_tokens);
        self.cache_read_tokens = self
            .cache_read_tokens
            .saturating_add(other.cache_read_tokens);
        self.cache_write_5m_tokens = self
            .cache_write_5m_tokens
            .saturating_add(other.cache_write_5m_tokens);
        self.cache_write_1h_tokens = self
            .cache_write_1h_tokens
            .saturating_add(other.cache_write_1h_tokens);
        self.output_tokens = self.output_tokens.saturating_add(other.output_tokens);
        self.reasoning_tokens = self.reasoning_tokens.saturating_add(other.reasoning_tokens);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn sample() -> TokenCounts {
        TokenCounts {
            input_tokens: 1,
            cache_read_tokens: 20,
            cache_write_5m_tokens: 300,
            cache_write_1h_tokens: 4_000,
            output_tokens: 50_000,
            reasoning_tokens: 600,
        }
    }

    #[test]
    fn total_counts_every_bucket_once_and_not_reasoning() {
        let t = sample();
        assert_eq!(t.cache_write_tokens(), 4_300);
        assert_eq!(t.total(), 54_321);
    }

    #[test]
    fn add_sums_each_bucket_separately() {
        let mut t = sample();
        t.add(&TokenCounts {
            input_tokens: 1,
            cache_read_tokens: 2,
            cache_write_5m_tokens: 3,
            cache_write_1h_tokens: 4,
            output_tokens: 5,
            reasoning_tokens: 6,
        });
        assert_eq!(
            t,
            TokenCounts {
                input_tokens: 2,
                cache_read_tokens: 22,
                cache_write_5m_tokens: 303,
                cache_write_1h_tokens: 4_004,
                output_tokens: 50_005,
                reasoning_tokens: 606,
            }
        );
    }

    #[test]
    fn add_and_total_saturate_instead_of_overflowing() {
        let mut t = TokenCounts {
            input_tokens: u64::MAX - 1,
            output_tokens: 7,
            ..TokenCounts::default()
        };
        assert_eq!(t.total(), u64::MAX);
        t.add(&TokenCounts {
            input_tokens: 5,
            ..TokenCounts::default()
        });
        assert_eq!(t.input_tokens, u64::MAX);
        assert_eq!(t.output_tokens, 7);
    }

    #[test]
    fn serialises_with_the_bucket_names() {
        let json = serde_json::to_value(sample()).unwrap();
        assert_eq!(json["cache_write_1h_tokens"], 4_000);
        assert_eq!(
            serde_json::from_value::<TokenCounts>(json).unwrap(),
            sample()
        );
    }

    fn counts(max: u64) -> impl Strategy<Value = TokenCounts> {
        (0..=max, 0..=max, 0..=max, 0..=max, 0..=max, 0..=max).prop_map(|(a, b, c, d, e, f)| {
            TokenCounts {
                input_tokens: a,
                cache_read_tokens: b,
                cache_write_5m_tokens: c,
                cache_write_1h_tokens: d,
                output_tokens: e,
                reasoning_tokens: f,
            }
        })
    }

    proptest! {
        #[test]
        fn total_is_the_sum_of_the_buckets(t in counts(u64::MAX / 8)) {
            let sum = u128::from(t.input_tokens)
                + u128::from(t.cache_read_tokens)
                + u128::from(t.cache_write_5m_tokens)
                + u128::from(t.cache_write_1h_tokens)
                + u128::from(t.output_tokens);
            prop_assert_eq!(u128::from(t.total()), sum);
        }

        #[test]
        fn total_of_a_sum_is_the_sum_of_totals(a in counts(u64::MAX / 16), b in counts(u64::MAX / 16)) {
            let mut s = a;
            s.add(&b);
            prop_assert_eq!(s.total(), a.total() + b.total());
            prop_assert_eq!(s.reasoning_tokens, a.reasoning_tokens + b.reasoning_tokens);
        }
    }
}
