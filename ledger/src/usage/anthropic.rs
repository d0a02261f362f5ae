//! Anthropic Messages usage.
//!
//! ```json
//! {"input_tokens": 3, "output_tokens": 550,
//!  "cache_read_input_tokens": 0, "cache_creation_input_tokens": 12304,
//!  "cache_creation": {"ephemeral_5m_input_tokens": 12304, "ephemeral_1h_input_tokens": 0}}
//! ```
//!
//! Cache tokens are *outside* `input_tokens`, so every field is already its own bucket.
//! Cache writes are split by lifetime with `cache_creation` when it is there (it must add
//! up to `cache_creation_input_tokens` when both are given); without it, all of
//! `cache_creation_input_tokens` is taken as 5-minute writes, the default lifetime.
//! Anthropic does not report thinking tokens apart (they are inside `output_tokens`), so
//! `reasoning_tokens` is 0.

use super::UsageError;
use super::fields::Fields;
use crate::TokenCounts;

/// Keys only Anthropic's shape has.
pub(crate) const HINTS: &[&str] = &[
    "cache_creation_input_tokens",
    "cache_read_input_tokens",
    "cache_creation",
];

const SPLIT_5M: &str = "ephemeral_5m_input_tokens";
const SPLIT_1H: &str = "ephemeral_1h_input_tokens";

/// Reads an Anthropic usage object.
pub(crate) fn read(f: &Fields<'_>) -> Result<TokenCounts, UsageError> {
    let creation_total = f.optional_count("cache_creation_input_tokens")?;
    let split = f
        .child("cache_creation")?
        .filter(|s| s.has(SPLIT_5M) || s.has(SPLIT_1H));
    let (write_5m, write_1h) = match split {
        Some(split) => {
            let (w5, w1) = (split.count(SPLIT_5M)?, split.count(SPLIT_1H)?);
            let split_tokens = w5.saturating_add(w1);
            if let Some(total_tokens) = creation_total
                && total_tokens != split_tokens
            {
                return Err(UsageError::CacheSplitMismatch {
                    split: f.name("cache_creation"),
                    split_tokens,
                    total: f.name("cache_creation_input_tokens"),
                    total_tokens,
                });
            }
            (w5, w1)
        }
        None => (creation_total.unwrap_or(0), 0),
    };
    Ok(TokenCounts {
        input_tokens: f.count("input_tokens")?,
        cache_read_tokens: f.count("cache_read_input_tokens")?,
        cache_write_5m_tokens: write_5m,
        cache_write_1h_tokens: write_1h,
        output_tokens: f.count("output_tokens")?,
        reasoning_tokens: 0,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    fn read_json(v: Value) -> Result<TokenCounts, UsageError> {
        read(&Fields::new(v.as_object().unwrap(), ""))
    }

    #[test]
    fn cache_tokens_are_outside_input_tokens() {
        let t = read_json(json!({
            "input_tokens": 3, "output_tokens": 550,
            "cache_read_input_tokens": 2000, "cache_creation_input_tokens": 12304,
        }))
        .unwrap();
        assert_eq!(
            t,
            TokenCounts {
                input_tokens: 3,
                cache_read_tokens: 2000,
                cache_write_5m_tokens: 12304,
                cache_write_1h_tokens: 0,
                output_tokens: 550,
                reasoning_tokens: 0,
            }
        );
        assert_eq!(t.total(), 3 + 2000 + 12304 + 550);
    }

    #[test]
    fn cache_creation_splits_writes_by_lifetime() {
        let t = read_json(json!({
            "input_tokens": 10, "output_tokens": 20,
            "cache_creation_input_tokens": 1500,
            "cache_creation": {"ephemeral_5m_input_tokens": 1000, "ephemeral_1h_input_tokens": 500},
        }))
        .unwrap();
        assert_eq!(t.cache_write_5m_tokens, 1000);
        assert_eq!(t.cache_write_1h_tokens, 500);
        assert_eq!(t.input_tokens, 10);
        assert_eq!(t.total(), 1530);
    }

    #[test]
    fn the_split_alone_is_enough() {
        let t = read_json(json!({
            "input_tokens": 1, "output_tokens": 2,
            "cache_creation": {"ephemeral_1h_input_tokens": 700},
        }))
        .unwrap();
        assert_eq!((t.cache_write_5m_tokens, t.cache_write_1h_tokens), (0, 700));
    }

    #[test]
    fn an_empty_split_falls_back_to_five_minutes() {
        let t = read_json(json!({
            "input_tokens": 1, "output_tokens": 2,
            "cache_creation_input_tokens": 400, "cache_creation": {},
        }))
        .unwrap();
        assert_eq!((t.cache_write_5m_tokens, t.cache_write_1h_tokens), (400, 0));
    }

    #[test]
    fn a_split_that_does_not_add_up_is_refused() {
        let err = read_json(json!({
            "input_tokens": 1, "output_tokens": 2,
            "cache_creation_input_tokens": 1000,
            "cache_creation": {"ephemeral_5m_input_tokens": 600, "ephemeral_1h_input_tokens": 500},
        }))
        .unwrap_err();
        assert_eq!(
            err.to_string(),
            "usage field `cache_creation`: 5-minute and 1-hour cache writes add up to 1100, \
             but `cache_creation_input_tokens` is 1000"
        );
    }

    #[test]
    fn bad_counts_name_the_nested_field() {
        let err = read_json(json!({
            "input_tokens": 1, "output_tokens": 2,
            "cache_creation": {"ephemeral_1h_input_tokens": 1.5},
        }))
        .unwrap_err();
        assert_eq!(
            err.to_string(),
            "usage field `cache_creation.ephemeral_1h_input_tokens`: expected a non-negative \
             integer, found 1.5"
        );
    }
}
