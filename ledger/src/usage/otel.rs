//! OpenTelemetry GenAI span attributes (`gen_ai.usage.*`).
//!
//! Attributes are read from flat dotted keys at the top of the object, from a nested
//! `gen_ai` object, or from `attributes`: an object (flat or nested) or OTLP/JSON's list of
//! `{"key": …, "value": {"intValue": "812"}}`. Counts:
//!
//! | bucket | attributes (first present wins) |
//! |--------|---------------------------------|
//! | input | `gen_ai.usage.input_tokens`, older `gen_ai.usage.prompt_tokens` |
//! | output | `gen_ai.usage.output_tokens`, older `gen_ai.usage.completion_tokens` |
//! | cache read | `gen_ai.usage.cache_read.input_tokens`, older `gen_ai.usage.cache_read_input_tokens` |
//! | cache write (5 min) | `gen_ai.usage.cache_creation.input_tokens`, older `gen_ai.usage.cache_creation_input_tokens` |
//! | reasoning | `gen_ai.usage.reasoning.output_tokens`, older `gen_ai.usage.reasoning_tokens` |
//!
//! Whether the input count includes the cache counts is the trap again, decided so:
//!
//! - The current semantic conventions (`cache_read.input_tokens`,
//!   `cache_creation.input_tokens`) say these are included in `gen_ai.usage.input_tokens`,
//!   so they are subtracted from it whatever the provider.
//! - The older underscore attributes (`cache_read_input_tokens`,
//!   `cache_creation_input_tokens`) were copied from each provider's own usage; they are
//!   taken as inside the input when the system (`gen_ai.provider.name`, else
//!   `gen_ai.system`, else `provider`) names OpenAI (`openai`, `azure.ai.openai`, …) and as
//!   outside it, like Anthropic's, for every other system or none.
//!
//! Reasoning is taken as inside the output (as the conventions and OpenAI count it); more
//! reasoning than output is refused.

use serde_json::{Map, Value};

use super::UsageError;
use super::fields::{Fields, without_parts};
use super::record::names_openai;
use crate::TokenCounts;

const PREFIX: &str = "gen_ai.";
const USAGE_PREFIX: &str = "gen_ai.usage.";

const INPUT: [&str; 2] = ["gen_ai.usage.input_tokens", "gen_ai.usage.prompt_tokens"];
const OUTPUT: [&str; 2] = [
    "gen_ai.usage.output_tokens",
    "gen_ai.usage.completion_tokens",
];
const CACHE_READ: &str = "gen_ai.usage.cache_read.input_tokens";
const CACHE_READ_OLD: &str = "gen_ai.usage.cache_read_input_tokens";
const CACHE_WRITE: &str = "gen_ai.usage.cache_creation.input_tokens";
const CACHE_WRITE_OLD: &str = "gen_ai.usage.cache_creation_input_tokens";
const REASONING: [&str; 2] = [
    "gen_ai.usage.reasoning.output_tokens",
    "gen_ai.usage.reasoning_tokens",
];

/// Keys naming the provider, first present wins.
pub(crate) const PROVIDER_KEYS: [&str; 2] = ["gen_ai.provider.name", "gen_ai.system"];
/// Keys naming the model, first present wins: the model that answered is more precise
/// (often a dated snapshot) than the one asked for.
pub(crate) const MODEL_KEYS: [&str; 2] = ["gen_ai.response.model", "gen_ai.request.model"];

/// The `gen_ai.*` attributes of a usage object, flattened to dotted keys, or `None` when
/// there is no `gen_ai.usage.*` among them. Top-level keys win over `attributes`.
pub(crate) fn collect(outer: &Map<String, Value>) -> Option<Map<String, Value>> {
    let mut attrs = Map::new();
    for (key, value) in outer {
        if is_attribute(key) {
            flatten(key, value, &mut attrs);
        }
    }
    match outer.get("attributes") {
        Some(Value::Object(map)) => {
            for (key, value) in map {
                flatten(key, value, &mut attrs);
            }
        }
        Some(Value::Array(items)) => {
            for item in items {
                if let Some(key) = item.get("key").and_then(Value::as_str) {
                    let value = item.get("value").map_or(&Value::Null, otlp_value);
                    flatten(key, value, &mut attrs);
                }
            }
        }
        _ => {}
    }
    attrs.retain(|key, _| key.starts_with(PREFIX));
    attrs
        .keys()
        .any(|key| key.starts_with(USAGE_PREFIX))
        .then_some(attrs)
}

/// Whether a top-level key may bring attributes that [`collect`] reads: when no key of
/// an object does, it has none.
pub(crate) fn may_hold_attributes(key: &str) -> bool {
    is_attribute(key) || key == "attributes"
}

/// Whether a top-level key is a `gen_ai` attribute or an object of them.
fn is_attribute(key: &str) -> bool {
    key == "gen_ai" || key.starts_with(PREFIX)
}

/// The first `gen_ai.usage.*` attribute, to name the shape in messages.
pub(crate) fn marker(attrs: &Map<String, Value>) -> String {
    attrs
        .keys()
        .find(|key| key.starts_with(USAGE_PREFIX))
        .cloned()
        .unwrap_or_else(|| USAGE_PREFIX.to_owned() + "*")
}

/// Adds `value` under `key`, or its leaves under `key.child…` when it is an object; keys
/// already present are kept.
fn flatten(key: &str, value: &Value, into: &mut Map<String, Value>) {
    match value {
        Value::Object(map) => {
            for (child, value) in map {
                flatten(&format!("{key}.{child}"), value, into);
            }
        }
        _ => {
            into.entry(key).or_insert_with(|| value.clone());
        }
    }
}

/// The scalar inside an OTLP/JSON `AnyValue` (`{"intValue": "812"}`), or the value itself.
fn otlp_value(value: &Value) -> &Value {
    const KINDS: [&str; 8] = [
        "intValue",
        "doubleValue",
        "stringValue",
        "boolValue",
        "int_value",
        "double_value",
        "string_value",
        "bool_value",
    ];
    match value {
        Value::Object(map) => KINDS
            .iter()
            .find_map(|kind| map.get(*kind))
            .unwrap_or(value),
        _ => value,
    }
}

/// Reads the counts from `f`, over the map [`collect`] made; `system` is the provider the
/// span names (or the `provider` key).
pub(crate) fn read(f: &Fields<'_>, system: Option<&str>) -> Result<TokenCounts, UsageError> {
    let (input_name, input) = f.count_of_any(&INPUT)?.unwrap_or((INPUT[0].to_owned(), 0));
    let (output_name, output) = f
        .count_of_any(&OUTPUT)?
        .unwrap_or((OUTPUT[0].to_owned(), 0));
    let old_inside = names_openai(system);
    let (read_name, cache_read, read_inside) =
        cache_count(f, CACHE_READ, CACHE_READ_OLD, old_inside)?;
    let (write_name, cache_write, write_inside) =
        cache_count(f, CACHE_WRITE, CACHE_WRITE_OLD, old_inside)?;
    let (reasoning_name, reasoning) = f
        .count_of_any(&REASONING)?
        .unwrap_or((REASONING[0].to_owned(), 0));

    let inside = |is: bool, n: u64| if is { n } else { 0 };
    let uncached = without_parts(
        (&input_name, input),
        &[
            (&read_name, inside(read_inside, cache_read)),
            (&write_name, inside(write_inside, cache_write)),
        ],
    )?;
    without_parts((&output_name, output), &[(&reasoning_name, reasoning)])?;

    Ok(TokenCounts {
        input_tokens: uncached,
        cache_read_tokens: cache_read,
        cache_write_5m_tokens: cache_write,
        cache_write_1h_tokens: 0,
        output_tokens: output,
        reasoning_tokens: reasoning,
    })
}

/// A cache count from the current attribute (inside the input) or the older one (inside
/// only when `old_inside`): `(name, tokens, inside input)`.
fn cache_count(
    f: &Fields<'_>,
    current: &str,
    old: &str,
    old_inside: bool,
) -> Result<(String, u64, bool), UsageError> {
    if let Some((name, n)) = f.count_of_any(&[current])? {
        return Ok((name, n, true));
    }
    Ok(match f.count_of_any(&[old])? {
        Some((name, n)) => (name, n, old_inside),
        None => (current.to_owned(), 0, true),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn attrs(v: Value) -> Map<String, Value> {
        collect(v.as_object().unwrap()).expect("gen_ai.usage attributes")
    }

    fn read_json(v: Value, system: Option<&str>) -> Result<TokenCounts, UsageError> {
        read(&Fields::new(&attrs(v), ""), system)
    }

    #[test]
    fn flat_keys_with_older_cache_attributes_are_outside_input_for_anthropic() {
        let t = read_json(
            json!({
                "gen_ai.usage.input_tokens": 3, "gen_ai.usage.output_tokens": 550,
                "gen_ai.usage.cache_read_input_tokens": 2000,
                "gen_ai.usage.cache_creation_input_tokens": 12304,
            }),
            Some("anthropic"),
        )
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
    }

    #[test]
    fn older_cache_attributes_are_outside_input_when_no_system_is_named() {
        let t = read_json(
            json!({"gen_ai.usage.input_tokens": 10, "gen_ai.usage.cache_read_input_tokens": 50}),
            None,
        )
        .unwrap();
        assert_eq!((t.input_tokens, t.cache_read_tokens), (10, 50));
    }

    #[test]
    fn older_cache_attributes_are_inside_input_for_openai() {
        for system in ["openai", "azure.ai.openai"] {
            let t = read_json(
                json!({
                    "gen_ai.usage.input_tokens": 1200, "gen_ai.usage.output_tokens": 300,
                    "gen_ai.usage.cache_read_input_tokens": 1024,
                }),
                Some(system),
            )
            .unwrap();
            assert_eq!(
                (t.input_tokens, t.cache_read_tokens),
                (176, 1024),
                "{system}"
            );
            assert_eq!(t.total(), 1500);
        }
    }

    #[test]
    fn current_cache_attributes_are_inside_input_for_every_system() {
        for system in [Some("anthropic"), Some("openai"), None] {
            let t = read_json(
                json!({
                    "gen_ai.usage.input_tokens": 1000, "gen_ai.usage.output_tokens": 10,
                    "gen_ai.usage.cache_read.input_tokens": 600,
                    "gen_ai.usage.cache_creation.input_tokens": 300,
                }),
                system,
            )
            .unwrap();
            assert_eq!(
                (t.input_tokens, t.cache_read_tokens, t.cache_write_5m_tokens),
                (100, 600, 300),
                "{system:?}"
            );
        }
    }

    #[test]
    fn cache_counts_above_the_input_are_refused_when_inside() {
        let err = read_json(
            json!({"gen_ai.usage.input_tokens": 100, "gen_ai.usage.cache_read.input_tokens": 150}),
            None,
        )
        .unwrap_err();
        assert_eq!(
            err.to_string(),
            "usage field `gen_ai.usage.cache_read.input_tokens`: 150 tokens, more than the 100 \
             in `gen_ai.usage.input_tokens`, which should include them"
        );
    }

    #[test]
    fn older_prompt_and_completion_attributes() {
        let t = read_json(
            json!({"gen_ai.usage.prompt_tokens": 7, "gen_ai.usage.completion_tokens": 9}),
            None,
        )
        .unwrap();
        assert_eq!((t.input_tokens, t.output_tokens), (7, 9));
    }

    #[test]
    fn reasoning_is_inside_output() {
        let t = read_json(
            json!({"gen_ai.usage.output_tokens": 90, "gen_ai.usage.reasoning.output_tokens": 60}),
            None,
        )
        .unwrap();
        assert_eq!((t.output_tokens, t.reasoning_tokens), (90, 60));
        assert!(
            read_json(
                json!({"gen_ai.usage.output_tokens": 9, "gen_ai.usage.reasoning_tokens": 60}),
                None
            )
            .is_err()
        );
    }

    #[test]
    fn nested_attributes_object_and_gen_ai_object() {
        let a = attrs(
            json!({"attributes": {"gen_ai.usage.input_tokens": 5, "gen_ai": {"system": "openai"}}}),
        );
        assert_eq!(a["gen_ai.usage.input_tokens"], 5);
        assert_eq!(a["gen_ai.system"], "openai");
        let b = attrs(json!({"gen_ai": {"usage": {"output_tokens": 8}}, "name": "chat"}));
        assert_eq!(b["gen_ai.usage.output_tokens"], 8);
        assert!(!b.contains_key("name"));
    }

    #[test]
    fn otlp_attribute_lists_with_string_encoded_integers() {
        let v = json!({"attributes": [
            {"key": "gen_ai.system", "value": {"stringValue": "anthropic"}},
            {"key": "gen_ai.usage.input_tokens", "value": {"intValue": "812"}},
            {"key": "gen_ai.usage.output_tokens", "value": {"intValue": 64}},
            {"key": "http.status_code", "value": {"intValue": "200"}},
        ]});
        let a = attrs(v);
        assert_eq!(a["gen_ai.system"], "anthropic");
        assert!(!a.contains_key("http.status_code"));
        let t = read(&Fields::new(&a, ""), Some("anthropic")).unwrap();
        assert_eq!((t.input_tokens, t.output_tokens), (812, 64));
    }

    #[test]
    fn top_level_keys_win_over_attributes() {
        let a = attrs(json!({
            "gen_ai.usage.input_tokens": 1,
            "attributes": {"gen_ai.usage.input_tokens": 2},
        }));
        assert_eq!(a["gen_ai.usage.input_tokens"], 1);
    }

    #[test]
    fn no_usage_attributes_is_not_this_shape() {
        assert!(collect(json!({"gen_ai.system": "openai"}).as_object().unwrap()).is_none());
        assert!(collect(json!({"attributes": "x"}).as_object().unwrap()).is_none());
    }

    #[test]
    fn bad_counts_name_the_attribute() {
        let err = read_json(json!({"gen_ai.usage.output_tokens": "-3"}), None).unwrap_err();
        assert_eq!(
            err.to_string(),
            "usage field `gen_ai.usage.output_tokens`: expected a non-negative integer, found \"-3\""
        );
    }
}
