//! How provider and model names in usage records are matched to price rows.
//!
//! Provider names vary by source (`gemini`, `gcp.gemini`, `google`), and models are often
//! named by a dated snapshot (`claude-sonnet-4-5-20250929`, `gpt-4o-2024-08-06`) or with a
//! routing prefix (`models/gemini-2.5-pro`, `anthropic/claude-sonnet-4-5`).

use std::borrow::Cow;

/// The providers whose own names win when a usage record does not name its provider and
/// a model is sold by several (OpenAI's `gpt-4o` is also on Azure).
pub(crate) const FIRST_PARTY: [&str; 3] = ["anthropic", "openai", "google"];

/// The canonical name of a provider: trimmed, lowercase, with the usual aliases folded.
/// Nothing is copied unless the name has capitals, as usage records mostly write names in
/// lowercase.
pub fn canonical_provider(name: &str) -> Cow<'_, str> {
    let lower = ascii_lowercase(name.trim());
    let canonical = match lower.as_ref() {
        "gemini" | "google" | "gcp.gemini" | "google.gemini" | "google_genai" | "google-genai"
        | "google_ai_studio" | "googleai" => "google",
        "azure" | "azure.ai.openai" | "az.ai.openai" | "azure_openai" | "azure_ai" => "azure",
        "aws.bedrock" | "bedrock" | "bedrock_converse" => "bedrock",
        "gcp.vertex_ai"
        | "vertex_ai"
        | "vertexai"
        | "vertex_ai-language-models"
        | "vertex_ai-anthropic_models" => "vertex_ai",
        _ => return lower,
    };
    Cow::Borrowed(canonical)
}

/// `text` with ASCII capitals lowercased, borrowed when it has none.
pub(crate) fn ascii_lowercase(text: &str) -> Cow<'_, str> {
    if text.bytes().any(|b| b.is_ascii_uppercase()) {
        Cow::Owned(text.to_ascii_lowercase())
    } else {
        Cow::Borrowed(text)
    }
}

/// The names to try for `model`, most exact first: as given (lowercase), without a
/// `models/` or provider prefix, and without a trailing snapshot date.
pub(crate) fn model_candidates(model: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::with_capacity(3);
    let mut push = |name: &str| {
        if !name.is_empty() && !out.iter().any(|n| n == name) {
            out.push(name.to_owned());
        }
    };
    let lower = model.trim().to_ascii_lowercase();
    push(&lower);
    let mut bare = lower.as_str();
    if let Some(rest) = bare.strip_prefix("models/") {
        bare = rest;
    }
    if let Some((prefix, rest)) = bare.split_once('/') {
        let canonical = canonical_provider(prefix);
        if FIRST_PARTY.contains(&canonical.as_ref()) || canonical != prefix {
            bare = rest;
        }
    }
    push(bare);
    if let Some(undated) = strip_date(bare) {
        push(undated);
    }
    out
}

/// `name` without a trailing snapshot date: `-20250929`, `-2024-08-06` or `@20250929`.
fn strip_date(name: &str) -> Option<&str> {
    let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    let bytes = name.len();
    if bytes > 9 {
        let (head, tail) = name.split_at(bytes - 9);
        if (tail.starts_with('-') || tail.starts_with('@')) && digits(&tail[1..]) {
            return Some(head);
        }
    }
    if bytes > 11 {
        let (head, tail) = name.split_at(bytes - 11);
        let b = tail.as_bytes();
        if b[0] == b'-'
            && b[5] == b'-'
            && b[8] == b'-'
            && digits(&tail[1..5])
            && digits(&tail[6..8])
            && digits(&tail[9..])
        {
            return Some(head);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn provider_aliases_fold() {
        assert_eq!(canonical_provider("Gemini"), "google");
        assert_eq!(canonical_provider("gcp.gemini"), "google");
        assert_eq!(canonical_provider("azure.ai.openai"), "azure");
        assert_eq!(canonical_provider(" Anthropic "), "anthropic");
        assert_eq!(canonical_provider("acme"), "acme");
    }

    #[test]
    fn model_candidates_drop_prefixes_and_dates() {
        assert_eq!(
            model_candidates("claude-sonnet-4-5-20250929"),
            ["claude-sonnet-4-5-20250929", "claude-sonnet-4-5"]
        );
        assert_eq!(
            model_candidates("gpt-4o-2024-08-06"),
            ["gpt-4o-2024-08-06", "gpt-4o"]
        );
        assert_eq!(
            model_candidates("models/Gemini-2.5-Pro"),
            ["models/gemini-2.5-pro", "gemini-2.5-pro"]
        );
        assert_eq!(
            model_candidates("anthropic/claude-opus-4-1@20250805"),
            [
                "anthropic/claude-opus-4-1@20250805",
                "claude-opus-4-1@20250805",
                "claude-opus-4-1"
            ]
        );
        assert_eq!(model_candidates("gpt-5-mini"), ["gpt-5-mini"]);
        assert_eq!(model_candidates("my-org/finetune"), ["my-org/finetune"]);
        assert_eq!(model_candidates("o3"), ["o3"]);
    }
}
