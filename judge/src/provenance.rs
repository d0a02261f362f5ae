//! Where a verdict came from, recorded beside it: enough to reproduce it (template,
//! hashes, sample, cassette key) and to cost it (provider, model, usage).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The provenance of one sample's verdict.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Provenance {
    /// The provider as its client names it (`anthropic`, `openai`): prices are looked up
    /// by it, and it is part of the cassette key.
    pub provider: String,
    /// The model asked for (the name prices are looked up by).
    pub model: String,
    /// The model the server says answered, when it says (often a dated snapshot).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub served_model: Option<String>,
    /// The prompt template's version: `proctor-v1` for the built-in one, `custom-` and 16
    /// hex digits of its SHA-256 for a user's file.
    pub template_version: String,
    /// SHA-256 (hex) of the rubric text as given.
    pub rubric_sha256: String,
    /// SHA-256 (hex) of the rendered end-state bundle, with a fixed placeholder fence so that
    /// it depends on the files alone.
    pub bundle_sha256: String,
    /// Which of the N samples (from 0).
    pub sample: u32,
    /// True when the answer came from a cassette rather than the model.
    pub replayed: bool,
    /// The cassette key of the request, recorded or not, to find or make its recording.
    pub cassette_key: String,
    /// The provider's usage object with `provider` and `model` added, in the shape the
    /// outcome's `usage` entries have; `null` when the call gave no usable answer.
    pub usage: Value,
}

/// A provider usage object tagged with who served it. A missing usage object (some
/// local servers send none) becomes just the tags.
pub(crate) fn tagged_usage(provider: &str, model: &str, usage: &Value) -> Value {
    let mut tagged = Map::new();
    tagged.insert("provider".into(), Value::String(provider.to_owned()));
    tagged.insert("model".into(), Value::String(model.to_owned()));
    if let Value::Object(fields) = usage {
        for (name, value) in fields {
            if name != "provider" && name != "model" {
                tagged.insert(name.clone(), value.clone());
            }
        }
    }
    Value::Object(tagged)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn usage_is_tagged_with_provider_and_model() {
        let raw = json!({"input_tokens": 812, "output_tokens": 64});
        assert_eq!(
            tagged_usage("anthropic", "claude-x", &raw),
            json!({"provider": "anthropic", "model": "claude-x", "input_tokens": 812, "output_tokens": 64})
        );
        assert_eq!(
            tagged_usage("openai", "llama", &Value::Null),
            json!({"provider": "openai", "model": "llama"})
        );
    }
}
