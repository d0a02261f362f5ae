//! End to end through the public API: usage objects as agents report them, priced; price
//! files; the ledger file; reports, charts and re-pricing.

mod book;
mod common;
mod prices;
mod pricing;
mod report;
mod usage_text;

use std::str::FromStr;

use proctor_ledger::{BucketPrices, TokenCounts, UsageShape, cost_usd, normalise, normalise_all};
use rust_decimal::Decimal;
use serde_json::json;

fn dec(s: &str) -> Decimal {
    Decimal::from_str(s).unwrap()
}

fn prices(
    input: &str,
    cache_read: &str,
    write_5m: &str,
    write_1h: &str,
    output: &str,
) -> BucketPrices {
    BucketPrices {
        input: dec(input),
        cache_read: dec(cache_read),
        cache_write_5m: dec(write_5m),
        cache_write_1h: dec(write_1h),
        output: dec(output),
    }
}

#[test]
fn design_6_2_check_from_an_anthropic_usage_object() {
    let usage = normalise(&json!({
        "provider": "anthropic", "model": "claude-sonnet-4-6",
        "input_tokens": 3, "output_tokens": 550,
        "cache_creation_input_tokens": 12304, "cache_read_input_tokens": 0,
    }))
    .unwrap();
    let cost = cost_usd(&usage.tokens, &prices("3", "0.30", "3.75", "6", "15")).unwrap();
    assert_eq!(cost.to_string(), "0.054399");
}

#[test]
fn openai_cached_tokens_are_priced_once_at_the_cache_price() {
    let usage = normalise(&json!({
        "prompt_tokens": 1_000_000, "completion_tokens": 0,
        "prompt_tokens_details": {"cached_tokens": 800_000},
    }))
    .unwrap();
    // 200k uncached at $2.50 + 800k cached at $1.25 = $0.50 + $1.00.
    let cost = cost_usd(&usage.tokens, &prices("2.50", "1.25", "0", "0", "10")).unwrap();
    assert_eq!(cost, dec("1.5"));
}

#[test]
fn an_outcome_usage_list_in_mixed_shapes_sums_without_double_counting() {
    let usage = normalise_all(&[
        json!({"provider": "anthropic", "model": "claude-sonnet-4-6",
               "input_tokens": 10, "output_tokens": 5, "cache_read_input_tokens": 90}),
        json!({"model": "gpt-4o", "prompt_tokens": 100, "completion_tokens": 5,
               "prompt_tokens_details": {"cached_tokens": 90}}),
        json!({"usageMetadata": {"promptTokenCount": 100, "cachedContentTokenCount": 90,
               "candidatesTokenCount": 2, "thoughtsTokenCount": 3}}),
        json!({"attributes": {"gen_ai.system": "openai", "gen_ai.usage.input_tokens": 100,
               "gen_ai.usage.output_tokens": 5, "gen_ai.usage.cache_read_input_tokens": 90}}),
    ])
    .unwrap();
    assert_eq!(
        usage.iter().map(|u| u.shape).collect::<Vec<_>>(),
        [
            UsageShape::Anthropic,
            UsageShape::OpenAiChat,
            UsageShape::Gemini,
            UsageShape::OpenTelemetry
        ]
    );
    let mut sum = TokenCounts::default();
    for u in &usage {
        // Every call: 10 uncached, 90 cached, 5 output.
        assert_eq!(
            (
                u.tokens.input_tokens,
                u.tokens.cache_read_tokens,
                u.tokens.output_tokens
            ),
            (10, 90, 5),
            "{:?}",
            u.shape
        );
        sum.add(&u.tokens);
    }
    assert_eq!(sum.total(), 4 * 105);
    assert_eq!(sum.reasoning_tokens, 3);
}

#[test]
fn errors_read_well() {
    let err = normalise_all(&[json!({"input_tokens": 3, "output_tokens": -3})]).unwrap_err();
    assert_eq!(
        err.to_string(),
        "usage[0]: usage field `output_tokens`: expected a non-negative integer, found -3"
    );
}
