//! [`normalise`]: which shape a usage object has, and reading it as that shape.

use serde_json::Value;

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
pub fn normalise(value: &Value) -> Result<Usage, UsageError> {
    let Value::Object(outer) = value else {
        return Err(UsageError::NotAnObject {
            found: describe(value),
        });
    };
    let top = Fields::new(outer, "");
    let provider_key = top.text("provider")?;
    let model_key = top.text("model")?;

    if let Some(attrs) = otel::collect(outer) {
        if let Some((family, key)) = families(&top).into_iter().next() {
            return Err(UsageError::Ambiguous {
                first: otel::marker(&attrs),
                first_shape: UsageShape::OpenTelemetry.label(),
                second: key,
                second_shape: family.label(),
            });
        }
        let a = Fields::new(&attrs, "");
        let provider = provider_key.or(first_text(&a, &otel::PROVIDER_KEYS)?);
        let model = model_key.or(first_text(&a, &otel::MODEL_KEYS)?);
        let tokens = otel::read(&attrs, provider.as_deref())?;
        return Ok(Usage {
            provider,
            model,
            shape: UsageShape::OpenTelemetry,
            tokens,
        });
    }

    let body = match unwrap(&top)? {
        Some(inner) => inner,
        None => top.clone(),
    };
    let provider = body.text("provider")?.or(provider_key);
    let model = match body.text("model")? {
        Some(m) => Some(m),
        None => model_key.or(first_text(&top, &WRAPPER_MODEL_KEYS)?),
    };
    let shape = shape_of(&body, provider.as_deref())?;
    let tokens = match shape {
        UsageShape::Anthropic => anthropic::read(&body)?,
        UsageShape::OpenAiChat => openai_chat::read(&body)?,
        UsageShape::OpenAiResponses => openai_responses::read(&body)?,
        UsageShape::Gemini => gemini::read(&body)?,
        UsageShape::OpenTelemetry => unreachable!("OpenTelemetry attributes are read above"),
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
fn unwrap<'a>(top: &Fields<'a>) -> Result<Option<Fields<'a>>, UsageError> {
    if !families(top).is_empty() || has_any(top, anthropic::HINTS) {
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

/// The families of token keys present, each with the first key found.
fn families(f: &Fields<'_>) -> Vec<(Family, String)> {
    Family::ALL
        .into_iter()
        .filter_map(|family| f.first_present(family.markers()).map(|key| (family, key)))
        .collect()
}

fn has_any(f: &Fields<'_>, keys: &[&str]) -> bool {
    keys.iter().any(|k| f.has(k))
}

/// Which shape `f` is, from its keys and the provider it names.
fn shape_of(f: &Fields<'_>, provider: Option<&str>) -> Result<UsageShape, UsageError> {
    match families(f).as_slice() {
        [] if has_any(f, anthropic::HINTS) => Ok(UsageShape::Anthropic),
        [] => Err(UsageError::Unrecognised {
            found: describe_keys(f),
        }),
        [(first_family, first), (second_family, second), ..] => Err(UsageError::Ambiguous {
            first: first.clone(),
            first_shape: first_family.label(),
            second: second.clone(),
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
            first,
            first_shape: UsageShape::Anthropic.label(),
            second,
            second_shape: UsageShape::OpenAiResponses.label(),
        }),
        (Some(_), None) => Ok(UsageShape::Anthropic),
        (None, Some(_)) => Ok(UsageShape::OpenAiResponses),
        (None, None) if names_openai(provider) => Ok(UsageShape::OpenAiResponses),
        (None, None) => Ok(UsageShape::Anthropic),
    }
}

/// The first present string among `keys`.
fn first_text(f: &Fields<'_>, keys: &[&str]) -> Result<Option<String>, UsageError> {
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
    let keys: Vec<String> = f.keys().map(|k| format!("`{}`", f.name(k))).collect();
    match keys.len() {
        0 => "no keys".to_owned(),
        n if n > SHOWN => format!("keys {}, … ({n} in all)", keys[..SHOWN].join(", ")),
        _ => format!("keys {}", keys.join(", ")),
    }
}
