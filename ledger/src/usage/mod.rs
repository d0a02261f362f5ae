//! Usage normalisation: a usage object in any provider's shape → [`TokenCounts`](crate::TokenCounts)
//! in disjoint buckets (docs/cost.md).
//!
//! # Shapes and how they are told apart
//!
//! An object may carry token keys of only one family; mixing them (`prompt_tokens` beside
//! `input_tokens`) is refused as ambiguous rather than guessed, because the families
//! disagree on what their input count includes.
//!
//! | shape | recognised by | cache tokens are | module |
//! |-------|---------------|------------------|--------|
//! | OpenTelemetry | a `gen_ai.usage.*` attribute (flat, nested, or under `attributes`) | see below | `otel` |
//! | Gemini | `promptTokenCount`, `candidatesTokenCount`, … (or snake_case) | inside `promptTokenCount` | `gemini` |
//! | OpenAI Chat | `prompt_tokens` / `completion_tokens` | inside `prompt_tokens` | `openai_chat` |
//! | Anthropic | `input_tokens` / `output_tokens` with `cache_creation_input_tokens`, `cache_read_input_tokens` or `cache_creation`; or any such object whose provider names Anthropic | outside `input_tokens` | `anthropic` |
//! | OpenAI Responses | `input_tokens` / `output_tokens` with `input_tokens_details` or `output_tokens_details`; or without any cache key when the provider names OpenAI | inside `input_tokens` | `openai_responses` |
//!
//! A plain `{"input_tokens": …, "output_tokens": …}` with no other hint is read as
//! Anthropic's shape unless its provider names OpenAI (a provider containing `openai`, so
//! also `azure.ai.openai`). Without cache keys the two shapes give the same counts anyway;
//! the choice only matters once a cache key appears, and then the key decides. An object
//! with both Anthropic's cache keys and the Responses' details is refused unless its
//! provider names Anthropic.
//!
//! Per shape, beyond the cache trap:
//!
//! - Anthropic: cache writes are split by lifetime with `cache_creation.ephemeral_5m_input_tokens`
//!   / `ephemeral_1h_input_tokens` when present (they must add up to
//!   `cache_creation_input_tokens`); otherwise all cache writes are 5-minute writes.
//!   Thinking is inside `output_tokens` and not reported apart, so `reasoning_tokens` is 0.
//! - OpenAI Chat and Responses: reasoning (`*_tokens_details.reasoning_tokens`) is inside the
//!   output count. `cache_write_tokens` in the input details (OpenRouter, Azure) is taken as
//!   5-minute writes inside the input count; DeepSeek's `prompt_cache_hit_tokens` stands in
//!   for `prompt_tokens_details.cached_tokens` when that is absent.
//! - Gemini: thinking (`thoughtsTokenCount`) is billed as output but is *not* inside
//!   `candidatesTokenCount`, so output = candidates + thoughts; `toolUsePromptTokenCount` is
//!   input outside `promptTokenCount` and is added to it.
//! - OpenTelemetry: input is `gen_ai.usage.input_tokens` (or the older `prompt_tokens`),
//!   output `gen_ai.usage.output_tokens` (or `completion_tokens`). The current conventions'
//!   `gen_ai.usage.cache_read.input_tokens` / `cache_creation.input_tokens` are inside the
//!   input, as the conventions say. The older `gen_ai.usage.cache_read_input_tokens` /
//!   `cache_creation_input_tokens` mirror the provider's own usage, so they are inside the
//!   input when the system names OpenAI and outside it (as Anthropic counts) otherwise,
//!   including when no system is named. Reasoning
//!   (`gen_ai.usage.reasoning.output_tokens`, older `reasoning_tokens`) is inside the output.
//!
//! # Where the usage and its names are found
//!
//! The usage object may be a whole API response: when its top level has no token keys, the
//! object under `usage`, `usageMetadata` or `usage_metadata` is read, and error messages
//! give paths from the top (`usage.prompt_tokens`). The provider is the `provider` key (of
//! the usage object, else of the response; for OpenTelemetry then `gen_ai.provider.name`,
//! then `gen_ai.system`). The model is the `model` key (then Gemini's `modelVersion`; for
//! OpenTelemetry then `gen_ai.response.model`, then `gen_ai.request.model`). Neither is
//! ever guessed from the shape.
//!
//! # Counts
//!
//! A count is a non-negative JSON integer, a JSON number with no fraction (`812.0`), or a
//! string of ASCII digits (`"812"`). Absent and `null` count 0 (Gemini leaves out zeros,
//! streaming events carry partial usage). Anything else is refused with the field's path:
//! ``usage field `output_tokens`: expected a non-negative integer, found -3``. A count that
//! should include another but is smaller (more cached tokens than prompt tokens, more
//! reasoning than output) is refused too: that object would be double-counted.
//!
//! Keys outside the shape's own are ignored (`total_tokens`, `audio_tokens`,
//! `service_tier`, request ids).

mod anthropic;
mod detect;
mod error;
mod fields;
mod gemini;
mod openai_chat;
mod openai_responses;
mod otel;
mod record;

pub use detect::{normalise, normalise_all, normalise_compact};
pub use error::UsageError;
pub use record::{Usage, UsageShape};
