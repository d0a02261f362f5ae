//! Gemini `usageMetadata` (camelCase as the REST API sends it, or snake_case as the Python
//! SDK dumps it).
//!
//! ```json
//! {"promptTokenCount": 1200, "cachedContentTokenCount": 1024,
//!  "candidatesTokenCount": 300, "thoughtsTokenCount": 500, "totalTokenCount": 2000}
//! ```
//!
//! Cached tokens are *inside* `promptTokenCount`: uncached input = prompt − cached.
//! Thinking tokens are billed as output but are *not* inside `candidatesTokenCount`:
//! output = candidates + thoughts, reasoning = thoughts. `toolUsePromptTokenCount` (the
//! results of built-in tools fed back to the model) is billed as input and is outside
//! `promptTokenCount`, so it is added to uncached input. Gemini leaves out fields that
//! are zero, so every count may be absent.

use super::UsageError;
use super::fields::{Fields, without_parts};
use crate::TokenCounts;

const PROMPT: [&str; 2] = ["promptTokenCount", "prompt_token_count"];
const CACHED: [&str; 2] = ["cachedContentTokenCount", "cached_content_token_count"];
const TOOL_USE: [&str; 2] = ["toolUsePromptTokenCount", "tool_use_prompt_token_count"];
const CANDIDATES: [&str; 2] = ["candidatesTokenCount", "candidates_token_count"];
const THOUGHTS: [&str; 2] = ["thoughtsTokenCount", "thoughts_token_count"];

/// Keys that mark this shape.
pub(crate) const MARKERS: &[&str] = &[
    PROMPT[0],
    CANDIDATES[0],
    CACHED[0],
    THOUGHTS[0],
    TOOL_USE[0],
    "totalTokenCount",
    PROMPT[1],
    CANDIDATES[1],
    CACHED[1],
    THOUGHTS[1],
    TOOL_USE[1],
    "total_token_count",
];

/// Reads a Gemini usage object.
pub(crate) fn read(f: &Fields<'_>) -> Result<TokenCounts, UsageError> {
    let count = |keys: [&str; 2]| -> Result<(String, u64), UsageError> {
        Ok(f.count_of_any(&keys)?
            .unwrap_or_else(|| (f.name(keys[0]), 0)))
    };
    let (prompt_name, prompt) = count(PROMPT)?;
    let (cached_name, cached) = count(CACHED)?;
    let (_, tool_use) = count(TOOL_USE)?;
    let (_, candidates) = count(CANDIDATES)?;
    let (_, thoughts) = count(THOUGHTS)?;

    let uncached_prompt = without_parts((&prompt_name, prompt), &[(&cached_name, cached)])?;
    Ok(TokenCounts {
        input_tokens: uncached_prompt.saturating_add(tool_use),
        cache_read_tokens: cached,
        cache_write_5m_tokens: 0,
        cache_write_1h_tokens: 0,
        output_tokens: candidates.saturating_add(thoughts),
        reasoning_tokens: thoughts,
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
    fn thinking_tokens_are_counted_in_output() {
        let t = read_json(json!({
            "promptTokenCount": 1200, "cachedContentTokenCount": 1024,
            "candidatesTokenCount": 300, "thoughtsTokenCount": 500, "totalTokenCount": 2000,
        }))
        .unwrap();
        assert_eq!(
            t,
            TokenCounts {
                input_tokens: 176,
                cache_read_tokens: 1024,
                cache_write_5m_tokens: 0,
                cache_write_1h_tokens: 0,
                output_tokens: 800,
                reasoning_tokens: 500,
            }
        );
        assert_eq!(t.total(), 2000);
    }

    #[test]
    fn tool_use_prompt_tokens_are_input() {
        let t = read_json(json!({
            "promptTokenCount": 100, "toolUsePromptTokenCount": 40, "candidatesTokenCount": 5,
            "totalTokenCount": 145,
        }))
        .unwrap();
        assert_eq!(t.input_tokens, 140);
        assert_eq!(t.total(), 145);
    }

    #[test]
    fn snake_case_from_the_python_sdk() {
        let t = read_json(json!({
            "prompt_token_count": 50, "cached_content_token_count": 20,
            "candidates_token_count": 7, "thoughts_token_count": 3,
        }))
        .unwrap();
        assert_eq!(
            (
                t.input_tokens,
                t.cache_read_tokens,
                t.output_tokens,
                t.reasoning_tokens
            ),
            (30, 20, 10, 3)
        );
    }

    #[test]
    fn absent_counts_are_zero() {
        let t = read_json(json!({"promptTokenCount": 8})).unwrap();
        assert_eq!((t.input_tokens, t.output_tokens), (8, 0));
    }

    #[test]
    fn more_cached_than_prompt_is_refused() {
        let err =
            read_json(json!({"promptTokenCount": 10, "cachedContentTokenCount": 20})).unwrap_err();
        assert_eq!(
            err.to_string(),
            "usage field `cachedContentTokenCount`: 20 tokens, more than the 10 in \
             `promptTokenCount`, which should include them"
        );
    }

    #[test]
    fn bad_counts_name_the_field() {
        let err = read_json(json!({"promptTokenCount": 10, "thoughtsTokenCount": -2})).unwrap_err();
        assert_eq!(
            err.to_string(),
            "usage field `thoughtsTokenCount`: expected a non-negative integer, found -2"
        );
    }
}
