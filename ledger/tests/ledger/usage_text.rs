//! A usage object read from its compact text (as outcomes keep it) reads exactly as the
//! parsed value does: the same counts, names and shape, or the same error.

use proctor_core::compact_json::CompactJson;
use proctor_ledger::{normalise, normalise_compact};
use proptest::prelude::*;
use serde_json::{Map, Value, json};

/// Keys of every shape, the wrappers, names, and keys that are read through `Value`
/// (OpenTelemetry's, one that needs an escape).
const KEYS: &[&str] = &[
    "provider",
    "model",
    "modelVersion",
    "input_tokens",
    "output_tokens",
    "cache_creation_input_tokens",
    "cache_read_input_tokens",
    "cache_creation",
    "ephemeral_5m_input_tokens",
    "ephemeral_1h_input_tokens",
    "prompt_tokens",
    "completion_tokens",
    "prompt_tokens_details",
    "completion_tokens_details",
    "input_tokens_details",
    "output_tokens_details",
    "cached_tokens",
    "reasoning_tokens",
    "prompt_cache_hit_tokens",
    "promptTokenCount",
    "candidatesTokenCount",
    "thoughtsTokenCount",
    "cachedContentTokenCount",
    "usage",
    "usageMetadata",
    "total_tokens",
    "service_tier",
    "gen_ai.usage.input_tokens",
    "gen_ai.system",
    "attributes",
    "quote\"d",
];

fn leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        (0u64..5000).prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        (-5000i64..0).prop_map(Value::from),
        Just(json!(812.0)),
        Just(json!(12.5)),
        Just(json!(1e300)),
        Just(json!(-0.0)),
        (0u64..5000).prop_map(|n| Value::from(n.to_string())),
        Just(json!("18446744073709551616")),
        Just(json!(" 812")),
        Just(json!("")),
        Just(json!("  ")),
        Just(json!("anthropic")),
        Just(json!("OpenAI")),
        Just(json!(" gpt-4o ")),
        Just(json!("claude \"quoted\"")),
        Just(json!("caf\u{e9}\n")),
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        Just(json!([1, 2])),
    ]
}

fn object_of(values: impl Strategy<Value = Value>) -> impl Strategy<Value = Value> {
    prop::collection::vec((prop::sample::select(KEYS), values), 0..7).prop_map(|members| {
        let map: Map<String, Value> = members
            .into_iter()
            .map(|(key, value)| (key.to_owned(), value))
            .collect();
        Value::Object(map)
    })
}

/// Usage-like objects two levels deep, and now and then something that is no object.
fn usage() -> impl Strategy<Value = Value> {
    prop_oneof![
        8 => object_of(prop_oneof![3 => leaf(), 1 => object_of(leaf())]),
        1 => leaf(),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn text_reads_as_the_value_reads(value in usage()) {
        let compact = CompactJson::from_value(&value);
        prop_assert_eq!(normalise_compact(&compact), normalise(&value), "{}", compact);
    }
}

#[test]
fn the_shapes_of_design_6_2_read_the_same_from_text() {
    for value in [
        json!({"provider": "anthropic", "model": "claude-sonnet-4-6",
               "input_tokens": 3, "output_tokens": 550, "cache_creation_input_tokens": 12304,
               "cache_creation": {"ephemeral_5m_input_tokens": 12304, "ephemeral_1h_input_tokens": 0}}),
        json!({"model": "gpt-4o", "prompt_tokens": 100, "completion_tokens": 5,
               "prompt_tokens_details": {"cached_tokens": 90},
               "completion_tokens_details": {"reasoning_tokens": 2}}),
        json!({"provider": "openai", "input_tokens": 100, "output_tokens": 5,
               "input_tokens_details": {"cached_tokens": 90}}),
        json!({"modelVersion": "gemini-2.5-pro", "usageMetadata": {"promptTokenCount": "100",
               "cachedContentTokenCount": 90, "candidatesTokenCount": 2.0}}),
        json!({"attributes": {"gen_ai.system": "openai", "gen_ai.usage.input_tokens": 100}}),
        json!({"model": "m", "usage": {"input_tokens": 1, "output_tokens": -1}}),
        json!({"input_tokens": 1, "cache_creation": 5}),
        json!({"provider": 3, "input_tokens": 1}),
        json!({"nothing": 1}),
        json!([1]),
    ] {
        let compact = CompactJson::from_value(&value);
        assert_eq!(normalise_compact(&compact), normalise(&value), "{compact}");
    }
}
