//! [`Usage`] and [`UsageShape`]: what one usage object says once read.

use compact_str::CompactString;
use serde::{Deserialize, Serialize};

use crate::TokenCounts;

/// Which shape a usage object was read as.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum UsageShape {
    /// Anthropic Messages: cache reads and writes are outside `input_tokens`.
    #[serde(rename = "anthropic")]
    Anthropic,
    /// OpenAI Chat Completions: cached tokens are inside `prompt_tokens`.
    #[serde(rename = "openai_chat")]
    OpenAiChat,
    /// OpenAI Responses: cached tokens are inside `input_tokens`.
    #[serde(rename = "openai_responses")]
    OpenAiResponses,
    /// Gemini `usageMetadata`: cached tokens inside `promptTokenCount`, thoughts outside
    /// `candidatesTokenCount`.
    #[serde(rename = "gemini")]
    Gemini,
    /// OpenTelemetry GenAI attributes (`gen_ai.usage.*`).
    #[serde(rename = "opentelemetry")]
    OpenTelemetry,
}

impl UsageShape {
    /// The shape's name for people, e.g. "OpenAI Chat".
    pub fn label(self) -> &'static str {
        match self {
            UsageShape::Anthropic => "Anthropic",
            UsageShape::OpenAiChat => "OpenAI Chat",
            UsageShape::OpenAiResponses => "OpenAI Responses",
            UsageShape::Gemini => "Gemini",
            UsageShape::OpenTelemetry => "OpenTelemetry",
        }
    }
}

impl std::fmt::Display for UsageShape {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.label())
    }
}

/// A usage object read from an outcome: the counts plus the provider and model if the
/// object names them (`provider` / `model` keys, or OpenTelemetry's `gen_ai.provider.name`
/// / `gen_ai.system` and `gen_ai.response.model` / `gen_ai.request.model`).
///
/// The provider is never guessed from the shape: an OpenAI-shaped object may come from any
/// OpenAI-compatible server.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    /// The provider as the object names it, e.g. `anthropic` (inline when short, as
    /// provider names are).
    pub provider: Option<CompactString>,
    /// The model as the object names it, e.g. `claude-sonnet-4-6` (inline up to 24 bytes).
    pub model: Option<CompactString>,
    /// The shape the object was read as.
    pub shape: UsageShape,
    /// The counts, in disjoint buckets.
    pub tokens: TokenCounts,
}

/// Whether a provider name is OpenAI's (also Azure OpenAI: `azure.ai.openai`, `az.ai.openai`).
pub(crate) fn names_openai(provider: Option<&str>) -> bool {
    provider.is_some_and(|p| contains_ignoring_case(p, "openai"))
}

/// Whether a provider name is Anthropic's.
pub(crate) fn names_anthropic(provider: Option<&str>) -> bool {
    provider.is_some_and(|p| contains_ignoring_case(p, "anthropic"))
}

/// Whether `text` contains `lowercase` (ASCII), in any case, without lowercasing a copy.
fn contains_ignoring_case(text: &str, lowercase: &str) -> bool {
    debug_assert!(!lowercase.is_empty() && lowercase.is_ascii());
    text.as_bytes()
        .windows(lowercase.len())
        .any(|window| window.eq_ignore_ascii_case(lowercase.as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_serialise_as_lowercase_names() {
        let names: Vec<String> = [
            UsageShape::Anthropic,
            UsageShape::OpenAiChat,
            UsageShape::OpenAiResponses,
            UsageShape::Gemini,
            UsageShape::OpenTelemetry,
        ]
        .iter()
        .map(|s| {
            serde_json::to_value(s)
                .unwrap()
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect();
        assert_eq!(
            names,
            [
                "anthropic",
                "openai_chat",
                "openai_responses",
                "gemini",
                "opentelemetry"
            ]
        );
        assert_eq!(UsageShape::OpenAiChat.to_string(), "OpenAI Chat");
    }

    #[test]
    fn provider_names() {
        assert!(names_openai(Some("OpenAI")));
        assert!(names_openai(Some("azure.ai.openai")));
        assert!(!names_openai(Some("anthropic")));
        assert!(!names_openai(None));
        assert!(names_anthropic(Some("Anthropic")));
        assert!(!names_anthropic(Some("openai")));
    }
}
