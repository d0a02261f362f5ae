//! [`normalise`]: which shape a usage object has, and reading it as that shape.

use compact_str::CompactString;
use proctor_core::compact_json::CompactJson;
use serde_json::{Map, Value};

use super::fields::{Fields, describe};
use super::record::{names_anthropic, names_openai};
use super::{
    Usage, UsageError, UsageShape, anthropic, gemini, openai_chat, openai_responses, otel,
};

/// Keys that wrap a usage object in a whole API response, tried in order.
const WRAPPERS: [&str; 3] = ["usage", "usageMetadata", "usage_metadata"];

/// Keys naming the model in a wrapping response besides `model` (Gemini).
const WRAPPER_MODEL_KEYS: [&str; 2] = ["modelVersion", "model_version"];

/// `input_tokens` / `output_tokens`: Anthropic's or OpenAI Responses' keys.
const INPUT_OUTPUT: &[&str] = &["input_tokens", "output_tokens"];
const INPUT_OUTPUT_LABEL: &str = "Anthropic or OpenAI Responses";

/// Reads one usage object in any accepted shape into disjoint buckets.
///
/// The shape is found from the keys (see the [module docs](super) for the rules), the object
/// may be a whole API response with the usage under `usage` or `usageMetadata`, and the
/// provider and model are taken from the object when it names them.
///
/// # Errors
///
/// A [`UsageError`] naming the field when the value is not an object, has no token keys of
/// any accepted shape or keys of two, holds a count that is not a non-negative integer, or
/// contradicts its own shape (a part larger than the count that should include it).
pub fn normalise(value: &Value) -> Result<Usage, UsageError> {
    let Value::Object(outer) = value else {
        return Err(UsageError::NotAnObject {
            found: describe(value),
        });
    };
    read_usage(Fields::new(outer, ""), otel::collect(outer))
}

/// [`normalise`] for a usage object kept as its compact JSON text, as an outcome keeps it.
///
/// The text is read in place: a usage object is a handful of keys read once, for every
/// line of a log. Text with escapes, and objects with OpenTelemetry attributes (which are
/// flattened into a map first), are read through [`Value`]; either way the result is what
/// [`normalise`] gives for the parsed value.
///
/// # Errors
///
/// As [`normalise`].
pub fn normalise_compact(usage: &CompactJson) -> Result<Usage, UsageError> {
    let text = usage.as_str();
    if !text.contains('\\')
        && let Some(top) = Fields::from_text(text, "")
        && !top.any_key(otel::may_hold_attributes)
    {
        return read_usage(top, None);
    }
    normalise(&usage.to_value())
}

/// Reads the usage object `top`, whose OpenTelemetry attributes are `otel_attrs`.
fn read_usage(
    top: Fields<'_>,
    otel_attrs: Option<Map<String, Value>>,
) -> Result<Usage, UsageError> {
    let provider_key = top.text("provider")?;
    let model_key = top.text("model")?;

    let top_families = families(&top);
    let (shape, body, provider, model) = match &otel_attrs {
        Some(attrs) => {
            if let Some(&(family, key)) = top_families.as_slice().first() {
                return Err(UsageError::Ambiguous {
                    first: otel::marker(attrs),
                    first_shape: UsageShape::OpenTelemetry.label(),
                    second: top.name(key),
                    second_shape: family.label(),
                });
            }
            let body = Fields::new(attrs, "");
            let provider = provider_key.or(first_text(&body, &otel::PROVIDER_KEYS)?);
            let model = model_key.or(first_text(&body, &otel::MODEL_KEYS)?);
            (UsageShape::OpenTelemetry, body, provider, model)
        }
        None => match unwrap(&top, &top_families)? {
            // A whole response: the usage inside names its provider and model first.
            Some(body) => {
                let body_families = families(&body);
                let provider = body.text("provider")?.or(provider_key);
                let model = match body.text("model")? {
                    Some(m) => Some(m),
                    None => model_key.or(first_text(&top, &WRAPPER_MODEL_KEYS)?),
                };
                let shape = shape_of(&body, &body_families, provider.as_deref())?;
                (shape, body, provider, model)
            }
            // The top level is the usage: its families and names are read already.
            // `modelVersion` is looked at only when there is no `model`, so a bad one
            // beside a `model` is no error (the wrapped branch above reads it whenever the
            // inner object names no model).
            None => {
                let model = match model_key {
                    Some(m) => Some(m),
                    None => first_text(&top, &WRAPPER_MODEL_KEYS)?,
                };
                let shape = shape_of(&top, &top_families, provider_key.as_deref())?;
                (shape, top, provider_key, model)
            }
        },
    };
    let tokens = match shape {
        UsageShape::Anthropic => anthropic::read(&body)?,
        UsageShape::OpenAiChat => openai_chat::read(&body)?,
        UsageShape::OpenAiResponses => openai_responses::read(&body)?,
        UsageShape::Gemini => gemini::read(&body)?,
        UsageShape::OpenTelemetry => otel::read(&body, provider.as_deref())?,
    };
    Ok(Usage {
        provider,
        model,
        shape,
        tokens,
    })
}

/// Reads a list of usage objects (an outcome's `usage`), failing on the first bad one with
/// its position.
///
/// # Errors
///
/// [`UsageError::Item`] with the position (from 0) and the error of the first bad object.
pub fn normalise_all(values: &[Value]) -> Result<Vec<Usage>, UsageError> {
    values
        .iter()
        .enumerate()
        .map(|(index, value)| {
            normalise(value).map_err(|error| UsageError::Item {
                index,
                error: Box::new(error),
            })
        })
        .collect()
}

/// The usage object inside a whole response (`{"model": …, "usage": {…}}`), when the
/// top level has no token keys of its own.
fn unwrap<'a>(top: &Fields<'a>, top_families: &Families) -> Result<Option<Fields<'a>>, UsageError> {
    if !top_families.as_slice().is_empty() || has_any(top, anthropic::HINTS) {
        return Ok(None);
    }
    for key in WRAPPERS {
        if let Some(inner) = top.child(key)? {
            return Ok(Some(inner));
        }
    }
    Ok(None)
}

/// A family of primary token keys; an object must have keys of at most one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Family {
    Gemini,
    OpenAiChat,
    /// `input_tokens` / `output_tokens`: Anthropic or OpenAI Responses.
    InputOutput,
}

impl Family {
    const ALL: [Family; 3] = [Family::Gemini, Family::OpenAiChat, Family::InputOutput];

    fn markers(self) -> &'static [&'static str] {
        match self {
            Family::Gemini => gemini::MARKERS,
            Family::OpenAiChat => openai_chat::MARKERS,
            Family::InputOutput => INPUT_OUTPUT,
        }
    }

    fn label(self) -> &'static str {
        match self {
            Family::Gemini => UsageShape::Gemini.label(),
            Family::OpenAiChat => UsageShape::OpenAiChat.label(),
            Family::InputOutput => INPUT_OUTPUT_LABEL,
        }
    }
}

/// The families of token keys present, each with the first key found, kept on the stack:
/// every usage object of a log is looked at this way.
struct Families {
    found: [(Family, &'static str); Family::ALL.len()],
    len: usize,
}

impl Families {
    fn as_slice(&self) -> &[(Family, &'static str)] {
        &self.found[..self.len]
    }
}

/// Which families `f` has keys of.
fn families(f: &Fields<'_>) -> Families {
    let mut families = Families {
        found: [(Family::InputOutput, ""); Family::ALL.len()],
        len: 0,
    };
    for family in Family::ALL {
        if let Some(key) = f.first_present(family.markers()) {
            families.found[families.len] = (family, key);
            families.len += 1;
        }
    }
    families
}

fn has_any(f: &Fields<'_>, keys: &[&str]) -> bool {
    keys.iter().any(|k| f.has(k))
}

/// Which shape `f` is, from its keys (`families` are its own) and the provider it names.
fn shape_of(
    f: &Fields<'_>,
    families: &Families,
    provider: Option<&str>,
) -> Result<UsageShape, UsageError> {
    match families.as_slice() {
        [] if has_any(f, anthropic::HINTS) => Ok(UsageShape::Anthropic),
        [] => Err(UsageError::Unrecognised {
            found: describe_keys(f),
        }),
        [(first_family, first), (second_family, second), ..] => Err(UsageError::Ambiguous {
            first: f.name(first),
            first_shape: first_family.label(),
            second: f.name(second),
            second_shape: second_family.label(),
        }),
        [(Family::Gemini, _)] => Ok(UsageShape::Gemini),
        [(Family::OpenAiChat, _)] => Ok(UsageShape::OpenAiChat),
        [(Family::InputOutput, _)] => input_output_shape(f, provider),
    }
}

/// Anthropic or OpenAI Responses, for an object with `input_tokens` / `output_tokens`.
///
/// A provider naming Anthropic decides; then Anthropic's cache keys or the Responses'
/// `*_tokens_details` (both at once is refused); then a provider naming OpenAI; else
/// Anthropic, whose plain `{input_tokens, output_tokens}` is the common case.
fn input_output_shape(f: &Fields<'_>, provider: Option<&str>) -> Result<UsageShape, UsageError> {
    if names_anthropic(provider) {
        return Ok(UsageShape::Anthropic);
    }
    match (
        f.first_present(anthropic::HINTS),
        f.first_present(openai_responses::HINTS),
    ) {
        (Some(first), Some(second)) => Err(UsageError::Ambiguous {
            first: f.name(first),
            first_shape: UsageShape::Anthropic.label(),
            second: f.name(second),
            second_shape: UsageShape::OpenAiResponses.label(),
        }),
        (Some(_), None) => Ok(UsageShape::Anthropic),
        (None, Some(_)) => Ok(UsageShape::OpenAiResponses),
        (None, None) if names_openai(provider) => Ok(UsageShape::OpenAiResponses),
        (None, None) => Ok(UsageShape::Anthropic),
    }
}

/// The first present string among `keys`.
fn first_text(f: &Fields<'_>, keys: &[&str]) -> Result<Option<CompactString>, UsageError> {
    for key in keys {
        if let Some(text) = f.text(key)? {
            return Ok(Some(text));
        }
    }
    Ok(None)
}

/// "keys `a`, `b`" (at most eight), or "no keys".
fn describe_keys(f: &Fields<'_>) -> String {
    const SHOWN: usize = 8;
    let keys: Vec<String> = f
        .keys()
        .into_iter()
        .map(|k| format!("`{}`", f.name(k)))
        .collect();
    match keys.len() {
        0 => "no keys".to_owned(),
        n if n > SHOWN => format!("keys {}, … ({n} in all)", keys[..SHOWN].join(", ")),
        _ => format!("keys {}", keys.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::TokenCounts;
    use proptest::prelude::*;
    use serde_json::json;

    fn ok(v: Value) -> Usage {
        normalise(&v).unwrap_or_else(|e| panic!("{v}: {e}"))
    }

    fn err(v: Value) -> String {
        normalise(&v).expect_err(&v.to_string()).to_string()
    }

    #[test]
    fn a_model_version_is_read_where_a_model_is_missing() {
        // The top level is the usage: `modelVersion` only when there is no `model`.
        let g = ok(json!({"modelVersion": "g", "promptTokenCount": 1}));
        assert_eq!(g.model.as_deref(), Some("g"));
        let m = ok(json!({"model": "m", "modelVersion": 5, "promptTokenCount": 1}));
        assert_eq!(m.model.as_deref(), Some("m"));
        assert!(err(json!({"modelVersion": 5, "promptTokenCount": 1})).contains("`modelVersion`"));
        // A wrapped usage that names no model of its own: the wrapper's keys are read.
        let wrapped =
            json!({"model": "m", "modelVersion": 5, "usageMetadata": {"promptTokenCount": 1}});
        assert!(err(wrapped).contains("`modelVersion`"));
    }

    #[test]
    fn the_outcome_example_of_design_3_1() {
        let u = ok(
            json!({"provider": "anthropic", "model": "claude-sonnet-4-6",
                          "input_tokens": 812, "output_tokens": 64}),
        );
        assert_eq!(
            u,
            Usage {
                provider: Some("anthropic".into()),
                model: Some("claude-sonnet-4-6".into()),
                shape: UsageShape::Anthropic,
                tokens: TokenCounts {
                    input_tokens: 812,
                    output_tokens: 64,
                    ..Default::default()
                },
            }
        );
    }

    #[test]
    fn plain_input_output_is_anthropic_unless_the_provider_names_openai() {
        assert_eq!(
            ok(json!({"input_tokens": 5, "output_tokens": 1})).shape,
            UsageShape::Anthropic
        );
        assert_eq!(ok(json!({"input_tokens": 5})).shape, UsageShape::Anthropic);
        let u = ok(json!({"provider": "openai", "input_tokens": 5, "output_tokens": 1}));
        assert_eq!(u.shape, UsageShape::OpenAiResponses);
        assert_eq!(u.tokens.input_tokens, 5);
    }

    #[test]
    fn anthropic_cache_keys_pick_anthropic_and_details_pick_responses() {
        let a = ok(json!({"input_tokens": 5, "output_tokens": 1, "cache_read_input_tokens": 100}));
        assert_eq!(a.shape, UsageShape::Anthropic);
        assert_eq!(
            (a.tokens.input_tokens, a.tokens.cache_read_tokens),
            (5, 100)
        );
        let r = ok(json!({"input_tokens": 500, "output_tokens": 1,
                          "input_tokens_details": {"cached_tokens": 100}}));
        assert_eq!(r.shape, UsageShape::OpenAiResponses);
        assert_eq!(
            (r.tokens.input_tokens, r.tokens.cache_read_tokens),
            (400, 100)
        );
    }

    #[test]
    fn the_same_counts_read_differently_by_shape_is_the_trap() {
        // 1000 input with 800 cached: Anthropic bills 1000 uncached + 800 cached,
        // OpenAI 200 uncached + 800 cached.
        let anthropic = ok(json!({"input_tokens": 1000, "output_tokens": 0,
                                  "cache_read_input_tokens": 800}));
        let openai = ok(json!({"input_tokens": 1000, "output_tokens": 0,
                               "input_tokens_details": {"cached_tokens": 800}}));
        assert_eq!(anthropic.tokens.total(), 1800);
        assert_eq!(openai.tokens.total(), 1000);
    }

    #[test]
    fn a_provider_naming_anthropic_decides_between_input_output_shapes() {
        let u = ok(
            json!({"provider": "Anthropic", "input_tokens": 5, "output_tokens": 1,
                          "input_tokens_details": {"cached_tokens": 3}}),
        );
        assert_eq!(u.shape, UsageShape::Anthropic);
        assert_eq!(u.tokens.input_tokens, 5);
    }

    #[test]
    fn a_provider_does_not_override_chat_or_gemini_keys() {
        let u = ok(json!({"provider": "anthropic", "prompt_tokens": 5, "completion_tokens": 1}));
        assert_eq!(u.shape, UsageShape::OpenAiChat);
        let g = ok(json!({"provider": "openai", "promptTokenCount": 5}));
        assert_eq!(g.shape, UsageShape::Gemini);
    }

    #[test]
    fn cache_keys_of_both_input_output_shapes_are_refused() {
        assert_eq!(
            err(
                json!({"input_tokens": 5, "output_tokens": 1, "cache_read_input_tokens": 3,
                       "input_tokens_details": {"cached_tokens": 3}})
            ),
            "usage object mixes shapes: `cache_read_input_tokens` belongs to Anthropic but \
             `input_tokens_details` to OpenAI Responses; give one usage object per call"
        );
    }

    #[test]
    fn mixed_families_are_refused_naming_both_keys() {
        assert_eq!(
            err(json!({"prompt_tokens": 5, "input_tokens": 5})),
            "usage object mixes shapes: `prompt_tokens` belongs to OpenAI Chat but \
             `input_tokens` to Anthropic or OpenAI Responses; give one usage object per call"
        );
        assert!(
            err(json!({"gen_ai.usage.input_tokens": 5, "completion_tokens": 1})).starts_with(
                "usage object mixes shapes: `gen_ai.usage.input_tokens` belongs to OpenTelemetry"
            )
        );
    }

    #[test]
    fn cache_keys_alone_are_anthropic() {
        let u = ok(json!({"cache_read_input_tokens": 7}));
        assert_eq!(u.shape, UsageShape::Anthropic);
        assert_eq!(u.tokens.cache_read_tokens, 7);
    }

    #[test]
    fn chat_shape_via_normalise() {
        let u = ok(
            json!({"model": "gpt-4o", "prompt_tokens": 1200, "completion_tokens": 300,
                          "prompt_tokens_details": {"cached_tokens": 1024}}),
        );
        assert_eq!(u.shape, UsageShape::OpenAiChat);
        assert_eq!(u.model.as_deref(), Some("gpt-4o"));
        assert_eq!(
            (u.tokens.input_tokens, u.tokens.cache_read_tokens),
            (176, 1024)
        );
    }

    #[test]
    fn whole_responses_are_unwrapped_and_named() {
        let openai = ok(json!({"id": "chatcmpl-1", "model": "gpt-4o-2024-08-06",
                               "usage": {"prompt_tokens": 10, "completion_tokens": 2}}));
        assert_eq!(openai.shape, UsageShape::OpenAiChat);
        assert_eq!(openai.model.as_deref(), Some("gpt-4o-2024-08-06"));
        assert_eq!(openai.tokens.input_tokens, 10);

        let gemini = ok(
            json!({"modelVersion": "gemini-2.5-flash", "usageMetadata": {
            "promptTokenCount": 100, "candidatesTokenCount": 10, "thoughtsTokenCount": 40}}),
        );
        assert_eq!(gemini.shape, UsageShape::Gemini);
        assert_eq!(gemini.model.as_deref(), Some("gemini-2.5-flash"));
        assert_eq!(
            (gemini.tokens.output_tokens, gemini.tokens.reasoning_tokens),
            (50, 40)
        );

        let snake = ok(json!({"usage_metadata": {"prompt_token_count": 3}}));
        assert_eq!(snake.shape, UsageShape::Gemini);
    }

    #[test]
    fn names_inside_the_usage_win_over_the_wrapper() {
        let u = ok(json!({"provider": "openrouter", "model": "outer",
                          "usage": {"model": "inner", "input_tokens": 1}}));
        assert_eq!(u.provider.as_deref(), Some("openrouter"));
        assert_eq!(u.model.as_deref(), Some("inner"));
    }

    #[test]
    fn errors_inside_a_wrapper_give_the_full_path() {
        assert_eq!(
            err(json!({"usage": {"prompt_tokens": 10, "completion_tokens": -1}})),
            "usage field `usage.completion_tokens`: expected a non-negative integer, found -1"
        );
    }

    #[test]
    fn opentelemetry_via_normalise_with_names() {
        let u = ok(json!({
            "name": "chat claude",
            "attributes": {
                "gen_ai.system": "anthropic",
                "gen_ai.request.model": "claude-sonnet-4-6",
                "gen_ai.response.model": "claude-sonnet-4-6-20260101",
                "gen_ai.usage.input_tokens": 3,
                "gen_ai.usage.output_tokens": 550,
                "gen_ai.usage.cache_creation_input_tokens": 12304,
            }
        }));
        assert_eq!(u.shape, UsageShape::OpenTelemetry);
        assert_eq!(u.provider.as_deref(), Some("anthropic"));
        assert_eq!(u.model.as_deref(), Some("claude-sonnet-4-6-20260101"));
        assert_eq!(
            (
                u.tokens.input_tokens,
                u.tokens.cache_write_5m_tokens,
                u.tokens.output_tokens
            ),
            (3, 12304, 550)
        );
    }

    #[test]
    fn opentelemetry_system_decides_older_cache_attributes() {
        let span = |system: &str| {
            json!({"gen_ai.provider.name": system, "gen_ai.request.model": "m",
                   "gen_ai.usage.input_tokens": 1000, "gen_ai.usage.output_tokens": 5,
                   "gen_ai.usage.cache_read_input_tokens": 400})
        };
        let openai = ok(span("openai"));
        assert_eq!(openai.provider.as_deref(), Some("openai"));
        assert_eq!(openai.model.as_deref(), Some("m"));
        assert_eq!(
            (openai.tokens.input_tokens, openai.tokens.cache_read_tokens),
            (600, 400)
        );
        let anthropic = ok(span("anthropic"));
        assert_eq!(
            (
                anthropic.tokens.input_tokens,
                anthropic.tokens.cache_read_tokens
            ),
            (1000, 400)
        );
        // An explicit `provider` key counts as the system too.
        let keyed = ok(
            json!({"provider": "openai", "gen_ai.usage.input_tokens": 10,
                              "gen_ai.usage.cache_read_input_tokens": 4}),
        );
        assert_eq!(keyed.tokens.input_tokens, 6);
    }

    #[test]
    fn non_objects_are_refused() {
        assert_eq!(
            err(json!([1, 2])),
            "usage: expected an object, found a list"
        );
        assert_eq!(err(json!(812)), "usage: expected an object, found 812");
        assert_eq!(err(Value::Null), "usage: expected an object, found null");
    }

    #[test]
    fn unrecognised_objects_list_the_accepted_shapes() {
        let message = err(json!({"tokens": 5, "cost": 0.1}));
        assert!(
            message.starts_with("usage object has no recognised token fields (keys `tokens`, `cost`); accepted shapes: Anthropic"),
            "{message}"
        );
        for shape in [
            "OpenAI Chat",
            "OpenAI Responses",
            "Gemini",
            "OpenTelemetry",
            "`promptTokenCount`",
            "`gen_ai.usage.*`",
        ] {
            assert!(message.contains(shape), "{shape} missing from {message}");
        }
        assert!(err(json!({})).contains("(no keys)"));
        assert!(
            err(json!({"provider": "openai", "model": "gpt-4o"}))
                .contains("no recognised token fields")
        );
        let many: serde_json::Map<String, Value> =
            (0..10).map(|i| (format!("k{i}"), json!(i))).collect();
        assert!(err(Value::Object(many)).contains("`k7`, … (10 in all)"));
    }

    #[test]
    fn bad_names_are_refused() {
        assert_eq!(
            err(json!({"model": 4, "input_tokens": 1})),
            "usage field `model`: expected a string, found 4"
        );
        assert_eq!(
            err(json!({"gen_ai.system": true, "gen_ai.usage.input_tokens": 1})),
            "usage field `gen_ai.system`: expected a string, found true"
        );
    }

    #[test]
    fn bad_counts_are_refused_naming_the_field() {
        assert_eq!(
            err(json!({"input_tokens": 3, "output_tokens": -3})),
            "usage field `output_tokens`: expected a non-negative integer, found -3"
        );
        assert_eq!(
            err(json!({"prompt_tokens": 2.5, "completion_tokens": 1})),
            "usage field `prompt_tokens`: expected a non-negative integer, found 2.5"
        );
        assert_eq!(
            err(json!({"input_tokens": "lots"})),
            "usage field `input_tokens`: expected a non-negative integer, found \"lots\""
        );
        assert_eq!(
            err(json!({"candidatesTokenCount": [3]})),
            "usage field `candidatesTokenCount`: expected a non-negative integer, found a list"
        );
    }

    #[test]
    fn digit_strings_are_counts() {
        let u = ok(json!({"input_tokens": "812", "output_tokens": "64"}));
        assert_eq!((u.tokens.input_tokens, u.tokens.output_tokens), (812, 64));
    }

    #[test]
    fn normalise_all_keeps_order_and_names_the_failing_item() {
        let list = [
            json!({"input_tokens": 1, "output_tokens": 2}),
            json!({"prompt_tokens": 3, "completion_tokens": 4}),
        ];
        let all = normalise_all(&list).unwrap();
        assert_eq!(
            all.iter().map(|u| u.shape).collect::<Vec<_>>(),
            [UsageShape::Anthropic, UsageShape::OpenAiChat]
        );
        assert!(normalise_all(&[]).unwrap().is_empty());

        let bad = [
            list[0].clone(),
            json!({"input_tokens": 1, "output_tokens": -3}),
        ];
        let e = normalise_all(&bad).unwrap_err();
        assert_eq!(
            e.to_string(),
            "usage[1]: usage field `output_tokens`: expected a non-negative integer, found -3"
        );
        assert!(matches!(e, UsageError::Item { index: 1, .. }));
    }

    // Property tests: whatever the counts, each shape's own notion of "all tokens" equals
    // the normalised total, so nothing is lost and nothing counted twice.
    proptest! {
        #[test]
        fn anthropic_total_is_input_plus_cache_plus_output(
            input in 0u64..1 << 40, read in 0u64..1 << 40, w5 in 0u64..1 << 40,
            w1 in 0u64..1 << 40, output in 0u64..1 << 40, split in any::<bool>(),
        ) {
            let v = if split {
                json!({"input_tokens": input, "output_tokens": output,
                       "cache_read_input_tokens": read, "cache_creation_input_tokens": w5 + w1,
                       "cache_creation": {"ephemeral_5m_input_tokens": w5, "ephemeral_1h_input_tokens": w1}})
            } else {
                json!({"input_tokens": input, "output_tokens": output,
                       "cache_read_input_tokens": read, "cache_creation_input_tokens": w5 + w1})
            };
            let t = normalise(&v).unwrap().tokens;
            prop_assert_eq!(t.total(), input + read + w5 + w1 + output);
            prop_assert_eq!(t.input_tokens, input);
            prop_assert_eq!(t.cache_write_tokens(), w5 + w1);
        }

        #[test]
        fn openai_chat_total_is_prompt_plus_completion(
            prompt in 0u64..1 << 40, cached_share in 0.0f64..=1.0,
            completion in 0u64..1 << 40, reasoning_share in 0.0f64..=1.0,
        ) {
            let cached = (prompt as f64 * cached_share) as u64;
            let reasoning = (completion as f64 * reasoning_share) as u64;
            let v = json!({"prompt_tokens": prompt, "completion_tokens": completion,
                           "prompt_tokens_details": {"cached_tokens": cached},
                           "completion_tokens_details": {"reasoning_tokens": reasoning}});
            let t = normalise(&v).unwrap().tokens;
            prop_assert_eq!(t.total(), prompt + completion);
            prop_assert_eq!(t.input_tokens + t.cache_read_tokens, prompt);
            prop_assert_eq!(t.cache_read_tokens, cached);
            prop_assert!(t.reasoning_tokens <= t.output_tokens);
        }

        #[test]
        fn openai_responses_total_is_input_plus_output(
            input in 0u64..1 << 40, cached_share in 0.0f64..=1.0, output in 0u64..1 << 40,
        ) {
            let cached = (input as f64 * cached_share) as u64;
            let v = json!({"input_tokens": input, "output_tokens": output,
                           "input_tokens_details": {"cached_tokens": cached}});
            let t = normalise(&v).unwrap().tokens;
            prop_assert_eq!(t.total(), input + output);
            prop_assert_eq!(t.cache_read_tokens, cached);
        }

        #[test]
        fn gemini_total_is_prompt_plus_candidates_plus_thoughts(
            prompt in 0u64..1 << 40, cached_share in 0.0f64..=1.0,
            candidates in 0u64..1 << 40, thoughts in 0u64..1 << 40,
        ) {
            let cached = (prompt as f64 * cached_share) as u64;
            let v = json!({"usageMetadata": {"promptTokenCount": prompt,
                           "cachedContentTokenCount": cached, "candidatesTokenCount": candidates,
                           "thoughtsTokenCount": thoughts}});
            let t = normalise(&v).unwrap().tokens;
            prop_assert_eq!(t.total(), prompt + candidates + thoughts);
            prop_assert_eq!(t.output_tokens, candidates + thoughts);
            prop_assert_eq!(t.reasoning_tokens, thoughts);
        }

        #[test]
        fn cached_above_prompt_is_always_refused(prompt in 0u64..1 << 40, extra in 1u64..1 << 20) {
            let v = json!({"prompt_tokens": prompt, "completion_tokens": 0,
                           "prompt_tokens_details": {"cached_tokens": prompt + extra}});
            let is_part_exceeds_whole = matches!(normalise(&v), Err(UsageError::PartExceedsWhole { .. }));
            prop_assert!(is_part_exceeds_whole);
        }

        #[test]
        fn digit_strings_read_as_their_numbers(input in any::<u64>(), output in any::<u64>()) {
            let as_numbers = normalise(&json!({"input_tokens": input, "output_tokens": output})).unwrap();
            let as_strings = normalise(&json!({"input_tokens": input.to_string(),
                                               "output_tokens": output.to_string()})).unwrap();
            prop_assert_eq!(as_numbers, as_strings);
        }

        #[test]
        fn negative_counts_are_always_refused(n in i64::MIN..0) {
            let is_bad_count = matches!(
                normalise(&json!({"input_tokens": 1, "output_tokens": n})),
                Err(UsageError::BadCount { ref field, .. }) if field == "output_tokens"
            );
            prop_assert!(is_bad_count);
        }
    }
}
