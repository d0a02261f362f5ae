//! OpenAI Responses usage.
//!
//! ```json
//! {"input_tokens": 1200, "output_tokens": 300, "total_tokens": 1500,
//!  "input_tokens_details": {"cached_tokens": 1024},
//!  "output_tokens_details": {"reasoning_tokens": 256}}
//! ```
//!
//! The same keys as Anthropic's `input_tokens` / `output_tokens`, with the opposite meaning:
//! cached tokens are *inside* `input_tokens`, so uncached input = `input_tokens` − cached.
//! Reasoning tokens are inside `output_tokens`. `input_tokens_details.cache_write_tokens`
//! (Azure) is read as 5-minute writes inside `input_tokens`.

use super::UsageError;
use super::fields::{Fields, without_parts};
use crate::TokenCounts;

/// Keys only the Responses shape has.
pub(crate) const HINTS: &[&str] = &["input_tokens_details", "output_tokens_details"];

/// Reads an OpenAI Responses usage object.
pub(crate) fn read(f: &Fields<'_>) -> Result<TokenCounts, UsageError> {
    let input = f.count("input_tokens")?;
    let output = f.count("output_tokens")?;

    let (cached, cache_write, uncached) = match f.child("input_tokens_details")? {
        Some(d) => {
            let cached = d.count("cached_tokens")?;
            let cache_write = d.count("cache_write_tokens")?;
            let uncached = without_parts(
                (&f.name("input_tokens"), input),
                &[
                    (&d.name("cached_tokens"), cached),
                    (&d.name("cache_write_tokens"), cache_write),
                ],
            )?;
            (cached, cache_write, uncached)
        }
        None => (0, 0, input),
    };

    let reasoning = match f.child("output_tokens_details")? {
        Some(d) => {
            let reasoning = d.count("reasoning_tokens")?;
            without_parts(
                (&f.name("output_tokens"), output),
                &[(&d.name("reasoning_tokens"), reasoning)],
            )?;
            reasoning
        }
        None => 0,
    };

    Ok(TokenCounts {
        input_tokens: uncached,
        cache_read_tokens: cached,
        cache_write_5m_tokens: cache_write,
        cache_write_1h_tokens: 0,
        output_tokens: output,
        reasoning_tokens: reasoning,
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
    fn cached_tokens_are_inside_input_tokens() {
        let t = read_json(json!({
            "input_tokens": 1200, "output_tokens": 300, "total_tokens": 1500,
            "input_tokens_details": {"cached_tokens": 1024},
            "output_tokens_details": {"reasoning_tokens": 256},
        }))
        .unwrap();
        assert_eq!(
            t,
            TokenCounts {
                input_tokens: 176,
                cache_read_tokens: 1024,
                cache_write_5m_tokens: 0,
                cache_write_1h_tokens: 0,
                output_tokens: 300,
                reasoning_tokens: 256,
            }
        );
        assert_eq!(t.total(), 1500);
    }

    #[test]
    fn without_details_all_input_is_uncached() {
        let t = read_json(json!({"input_tokens": 40, "output_tokens": 2})).unwrap();
        assert_eq!(
            (t.input_tokens, t.cache_read_tokens, t.output_tokens),
            (40, 0, 2)
        );
    }

    #[test]
    fn more_cached_than_input_is_refused() {
        let err = read_json(json!({
            "input_tokens": 10, "output_tokens": 2,
            "input_tokens_details": {"cached_tokens": 11},
        }))
        .unwrap_err();
        assert_eq!(
            err.to_string(),
            "usage field `input_tokens_details.cached_tokens`: 11 tokens, more than the 10 in \
             `input_tokens`, which should include them"
        );
    }

    #[test]
    fn more_reasoning_than_output_is_refused() {
        let err = read_json(json!({
            "input_tokens": 10, "output_tokens": 2,
            "output_tokens_details": {"reasoning_tokens": 3},
        }))
        .unwrap_err();
        assert!(
            err.to_string()
                .contains("`output_tokens_details.reasoning_tokens`: 3 tokens")
        );
    }

    #[test]
    fn azure_cache_writes_are_moved_out_of_input() {
        let t = read_json(json!({
            "input_tokens": 100, "output_tokens": 2,
            "input_tokens_details": {"cached_tokens": 10, "cache_write_tokens": 50},
        }))
        .unwrap();
        assert_eq!(
            (t.input_tokens, t.cache_read_tokens, t.cache_write_5m_tokens),
            (40, 10, 50)
        );
    }
}
