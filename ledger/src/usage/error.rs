//! [`UsageError`]: why a usage object could not be read.

/// The shapes [`normalise`](super::normalise) accepts, for error messages.
pub(crate) const ACCEPTED_SHAPES: &str = "Anthropic (`input_tokens`, `output_tokens`, \
`cache_creation_input_tokens`, `cache_read_input_tokens`), OpenAI Chat (`prompt_tokens`, \
`completion_tokens`), OpenAI Responses (`input_tokens`, `output_tokens`, `input_tokens_details`, \
`output_tokens_details`), Gemini (`promptTokenCount`, `candidatesTokenCount`, \
`cachedContentTokenCount`, `thoughtsTokenCount`, also under `usageMetadata`) and OpenTelemetry \
(`gen_ai.usage.*`, flat or under `attributes`)";

/// A usage object that could not be turned into [`TokenCounts`](crate::TokenCounts).
///
/// Field names are given as paths from the usage object, e.g.
/// `prompt_tokens_details.cached_tokens` or `usageMetadata.promptTokenCount`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum UsageError {
    /// The usage value is not a JSON object.
    #[error("usage: expected an object, found {found}")]
    NotAnObject {
        /// What was found instead.
        found: String,
    },
    /// A token count is negative, fractional, too large or not a number.
    #[error("usage field `{field}`: expected a non-negative integer, found {found}")]
    BadCount {
        /// Path of the field.
        field: String,
        /// The value found, as JSON.
        found: String,
    },
    /// A field that is not a count has the wrong type (a model name that is a number, a
    /// details object that is a list).
    #[error("usage field `{field}`: expected {expected}, found {found}")]
    WrongType {
        /// Path of the field.
        field: String,
        /// What was expected, e.g. "a string".
        expected: &'static str,
        /// What was found.
        found: String,
    },
    /// A count that the provider includes in another is larger than it (cached tokens above
    /// the prompt tokens, reasoning above the output): the object contradicts its own shape.
    #[error(
        "usage {part}: {part_tokens} tokens, more than the {whole_tokens} in `{whole}`, which \
         should include them"
    )]
    PartExceedsWhole {
        /// The part, e.g. "field `prompt_tokens_details.cached_tokens`".
        part: String,
        /// Tokens in the part.
        part_tokens: u64,
        /// Path of the field that should include the part.
        whole: String,
        /// Tokens in that field.
        whole_tokens: u64,
    },
    /// Anthropic's split of cache writes by lifetime does not add up to its total.
    #[error(
        "usage field `{split}`: 5-minute and 1-hour cache writes add up to {split_tokens}, \
         but `{total}` is {total_tokens}"
    )]
    CacheSplitMismatch {
        /// Path of the split object (`cache_creation`).
        split: String,
        /// Sum of the split.
        split_tokens: u64,
        /// Path of the total (`cache_creation_input_tokens`).
        total: String,
        /// The total.
        total_tokens: u64,
    },
    /// The object has the fields of two different shapes, so it is unclear what its
    /// counts include.
    #[error(
        "usage object mixes shapes: `{first}` belongs to {first_shape} but `{second}` to \
         {second_shape}; give one usage object per call"
    )]
    Ambiguous {
        /// A field of the first shape.
        first: String,
        /// The first shape.
        first_shape: &'static str,
        /// A field of the second shape.
        second: String,
        /// The second shape.
        second_shape: &'static str,
    },
    /// No field of any accepted shape.
    #[error(
        "usage object has no recognised token fields ({found}); accepted shapes: {ACCEPTED_SHAPES}"
    )]
    Unrecognised {
        /// The keys found, e.g. "keys `tokens`, `cost`", or "no keys".
        found: String,
    },
    /// An item of a list of usage objects failed.
    #[error("usage[{index}]: {error}")]
    Item {
        /// Position in the list, from 0.
        index: usize,
        /// What went wrong with it.
        error: Box<UsageError>,
    },
}
