//! OpenAI Chat Completions usage (also most OpenAI-compatible servers).
//!
//! ```json
//! {"prompt_tokens": 1200, "completion_tokens": 300,
//!  "prompt_tokens_details": {"cached_tokens": 1024},
//!  "completion_tokens_details": {"reasoning_tokens": 256}}
//! ```
//!
//! Cached tokens are *inside* `prompt_tokens`: uncached input = `prompt_tokens` − cached.
//! Reasoning tokens are inside `completion_tokens`, which is the output bucket as it is.
//! Two common extensions are read too, both inside `prompt_tokens`:
//! `prompt_tokens_details.cache_write_tokens` (OpenRouter and others; taken as 5-minute
//! writes) and DeepSeek's `prompt_cache_hit_tokens` (used as the cached count when
//! `prompt_tokens_details.cached_tokens` is absent). Parts larger than their whole are refused.

use super::UsageError;
use super::fields::{Fields, without_parts};
use crate::TokenCounts;

/// Keys that mark this shape.
pub(crate) const MARKERS: &[&str] = &["prompt_tokens", "completion_tokens"];

/// Reads an OpenAI Chat usage object.
pub(crate) fn read(f: &Fields<'_>) -> Result<TokenCounts, UsageError> {
    let prompt = f.count("prompt_tokens")?;
    let completion = f.count("completion_tokens")?;

    let prompt_details = f.child("prompt_tokens_details")?;
    let (cached_name, cached) = match prompt_details
        .as_ref()
        .map(|d| d.count_of_any(&["cached_tokens"]))
        .transpose()?
        .flatten()
    {
        Some(found) => found,
        None => match f.count_of_any(&["prompt_cache_hit_tokens"])? {
            Some(found) => found,
            None => (f.name("prompt_tokens_details.cached_tokens"), 0),
        },
    };
    let (write_name, cache_write) = match &prompt_details {
        Some(d) => (d.name("cache_write_tokens"), d.count("cache_write_tokens")?),
        None => (String::new(), 0),
    };
    let input = without_parts(
        (&f.name("prompt_tokens"), prompt),
        &[(&cached_name, cached), (&write_name, cache_write)],
    )?;

    let reasoning = match f.child("completion_tokens_details")? {
        Some(d) => {
            let reasoning = d.count("reasoning_tokens")?;
            without_parts(
                (&f.name("completion_tokens"), completion),
                &[(&d.name("reasoning_tokens"), reasoning)],
            )?;
            reasoning
        }
        None => 0,
    };

    Ok(TokenCounts {
        input_tokens: input,
        cache_read_tokens: cached,
        cache_write_5m_tokens: cache_write,
        cache_write_1h_tokens: 0,
        output_tokens: completion,
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
    fn cached_tokens_are_not_charged_twice() {
        let t = read_json(json!({
            "prompt_tokens": 1200, "completion_tokens": 300, "total_tokens": 1500,
            "prompt_tokens_details": {"cached_tokens": 1024, "audio_tokens": 0},
            "completion_tokens_details": {"reasoning_tokens": 256},
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
    fn plain_prompt_and_completion() {
        let t = read_json(json!({"prompt_tokens": 9, "completion_tokens": 12})).unwrap();
        assert_eq!(
            (t.input_tokens, t.cache_read_tokens, t.output_tokens),
            (9, 0, 12)
        );
    }

    #[test]
    fn null_details_count_nothing() {
        let t = read_json(json!({
            "prompt_tokens": 9, "completion_tokens": 12,
            "prompt_tokens_details": null, "completion_tokens_details": {"reasoning_tokens": null},
        }))
        .unwrap();
        assert_eq!((t.input_tokens, t.reasoning_tokens), (9, 0));
    }

    #[test]
    fn more_cached_than_prompt_tokens_is_refused() {
        let err = read_json(json!({
            "prompt_tokens": 100, "completion_tokens": 1,
            "prompt_tokens_details": {"cached_tokens": 120},
        }))
        .unwrap_err();
        assert_eq!(
            err.to_string(),
            "usage field `prompt_tokens_details.cached_tokens`: 120 tokens, more than the 100 \
             in `prompt_tokens`, which should include them"
        );
    }

    #[test]
    fn more_reasoning_than_completion_tokens_is_refused() {
        let err = read_json(json!({
            "prompt_tokens": 1, "completion_tokens": 10,
            "completion_tokens_details": {"reasoning_tokens": 11},
        }))
        .unwrap_err();
        assert!(
            matches!(err, UsageError::PartExceedsWhole { ref whole, .. } if whole == "completion_tokens")
        );
    }

    #[test]
    fn cache_writes_inside_the_prompt_are_moved_out_of_input() {
        let t = read_json(json!({
            "prompt_tokens": 1000, "completion_tokens": 5,
            "prompt_tokens_details": {"cached_tokens": 200, "cache_write_tokens": 700},
        }))
        .unwrap();
        assert_eq!(
            (t.input_tokens, t.cache_read_tokens, t.cache_write_5m_tokens),
            (100, 200, 700)
        );
        let err = read_json(json!({
            "prompt_tokens": 1000, "completion_tokens": 5,
            "prompt_tokens_details": {"cached_tokens": 400, "cache_write_tokens": 700},
        }))
        .unwrap_err();
        assert!(err.to_string().starts_with(
            "usage fields `prompt_tokens_details.cached_tokens` + \
             `prompt_tokens_details.cache_write_tokens`: 1100 tokens"
        ));
    }

    #[test]
    fn deepseek_cache_hits_count_as_cached() {
        let t = read_json(json!({
            "prompt_tokens": 500, "completion_tokens": 5,
            "prompt_cache_hit_tokens": 300, "prompt_cache_miss_tokens": 200,
        }))
        .unwrap();
        assert_eq!((t.input_tokens, t.cache_read_tokens), (200, 300));
    }

    #[test]
    fn a_bad_cached_count_names_the_nested_field() {
        let err = read_json(json!({
            "prompt_tokens": 5, "completion_tokens": 5,
            "prompt_tokens_details": {"cached_tokens": "many"},
        }))
        .unwrap_err();
        assert_eq!(
            err.to_string(),
            "usage field `prompt_tokens_details.cached_tokens`: expected a non-negative integer, \
             found \"many\""
        );
    }
}
