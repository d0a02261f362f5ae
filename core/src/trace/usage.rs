//! Token usage on spans and log records, read under both generations of GenAI names and
//! OpenInference's, and written as one usage object in disjoint buckets.

use super::span::Attributes;
use serde_json::{Map, Value, json};

/// Tokens of one model call (or one agent-level aggregate), in disjoint buckets.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Tokens {
    /// Input not read from or written to a cache.
    pub uncached_input: u64,
    pub cache_read: u64,
    pub cache_write: u64,
    pub output: u64,
}

/// The usage a set of attributes carries under `prefix` (`gen_ai.usage.` or
/// `gen_ai.aggregated_usage.`), else under OpenInference's `llm.token_count.*`. A span
/// carrying both families is read once, from the GenAI names.
pub(crate) fn tokens(
    attributes: &Attributes,
    prefix: &str,
    provider: Option<&str>,
) -> Option<Tokens> {
    let key = |name: &str| format!("{prefix}{name}");
    let input = attributes.first_count(&[&key("input_tokens"), &key("prompt_tokens")]);
    let output = attributes.first_count(&[&key("output_tokens"), &key("completion_tokens")]);
    if input.is_some() || output.is_some() {
        let input = input.unwrap_or(0);
        // The current names count cache tokens inside the input; the older ones mirror the
        // provider's own usage: inside for OpenAI, outside (as Anthropic counts) otherwise.
        let current_read = attributes.count(&key("cache_read.input_tokens"));
        let current_write = attributes.count(&key("cache_creation.input_tokens"));
        let older_read = attributes.count(&key("cache_read_input_tokens"));
        let older_write = attributes.count(&key("cache_creation_input_tokens"));
        let openai = provider.is_some_and(|p| p.to_ascii_lowercase().contains("openai"));
        let (cache_read, cache_write, inside) = if current_read.is_some() || current_write.is_some()
        {
            (current_read.unwrap_or(0), current_write.unwrap_or(0), true)
        } else {
            (older_read.unwrap_or(0), older_write.unwrap_or(0), openai)
        };
        let uncached_input = if inside {
            input.saturating_sub(cache_read).saturating_sub(cache_write)
        } else {
            input
        };
        return Some(Tokens {
            uncached_input,
            cache_read,
            cache_write,
            output: output.unwrap_or(0),
        });
    }
    if prefix != "gen_ai.usage." {
        return None;
    }
    let prompt = attributes.count("llm.token_count.prompt");
    let completion = attributes.count("llm.token_count.completion");
    if prompt.is_none() && completion.is_none() {
        return None;
    }
    // OpenInference's prompt count includes the cached part.
    let cache_read = attributes
        .count("llm.token_count.prompt_details.cache_read")
        .unwrap_or(0);
    let cache_write = attributes
        .count("llm.token_count.prompt_details.cache_write")
        .unwrap_or(0);
    Some(Tokens {
        uncached_input: prompt
            .unwrap_or(0)
            .saturating_sub(cache_read)
            .saturating_sub(cache_write),
        cache_read,
        cache_write,
        output: completion.unwrap_or(0),
    })
}

/// The usage object stored on the result: `{provider, model, input_tokens, output_tokens}`
/// with the cache buckets (outside `input_tokens`, as Anthropic writes them) when non-zero.
pub(crate) fn usage_object(tokens: Tokens, provider: Option<&str>, model: Option<&str>) -> Value {
    let mut object = Map::new();
    object.insert("provider".to_owned(), json!(provider));
    object.insert("model".to_owned(), json!(model));
    object.insert("input_tokens".to_owned(), json!(tokens.uncached_input));
    object.insert("output_tokens".to_owned(), json!(tokens.output));
    if tokens.cache_read > 0 {
        object.insert(
            "cache_read_input_tokens".to_owned(),
            json!(tokens.cache_read),
        );
    }
    if tokens.cache_write > 0 {
        object.insert(
            "cache_creation_input_tokens".to_owned(),
            json!(tokens.cache_write),
        );
    }
    Value::Object(object)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn attributes(pairs: Value) -> Attributes {
        Attributes(pairs.as_object().unwrap().clone().into_iter().collect())
    }

    #[test]
    fn both_generations_and_openinference_read_the_same() {
        let current = attributes(
            json!({"gen_ai.usage.input_tokens": 100, "gen_ai.usage.output_tokens": "20"}),
        );
        let older = attributes(
            json!({"gen_ai.usage.prompt_tokens": 100, "gen_ai.usage.completion_tokens": 20}),
        );
        let openinference =
            attributes(json!({"llm.token_count.prompt": 100, "llm.token_count.completion": 20}));
        let expected = Tokens {
            uncached_input: 100,
            output: 20,
            ..Tokens::default()
        };
        for attrs in [current, older, openinference] {
            assert_eq!(tokens(&attrs, "gen_ai.usage.", None), Some(expected));
        }
    }

    #[test]
    fn a_span_with_both_families_counts_once() {
        let both = attributes(
            json!({"gen_ai.usage.input_tokens": 100, "gen_ai.usage.output_tokens": 20,
            "llm.token_count.prompt": 100, "llm.token_count.completion": 20, "llm.token_count.total": 120}),
        );
        assert_eq!(
            tokens(&both, "gen_ai.usage.", None).unwrap().uncached_input,
            100
        );
    }

    #[test]
    fn cache_tokens_become_disjoint() {
        let current = attributes(
            json!({"gen_ai.usage.input_tokens": 100, "gen_ai.usage.output_tokens": 5,
            "gen_ai.usage.cache_read.input_tokens": 60}),
        );
        let t = tokens(&current, "gen_ai.usage.", Some("anthropic")).unwrap();
        assert_eq!((t.uncached_input, t.cache_read), (40, 60));
        let older = attributes(
            json!({"gen_ai.usage.input_tokens": 100, "gen_ai.usage.cache_read_input_tokens": 60}),
        );
        assert_eq!(
            tokens(&older, "gen_ai.usage.", Some("anthropic"))
                .unwrap()
                .uncached_input,
            100
        );
        assert_eq!(
            tokens(&older, "gen_ai.usage.", Some("openai"))
                .unwrap()
                .uncached_input,
            40
        );
        let object = usage_object(t, Some("anthropic"), Some("m"));
        assert_eq!(
            object,
            json!({"provider": "anthropic", "model": "m", "input_tokens": 40,
            "output_tokens": 5, "cache_read_input_tokens": 60})
        );
    }
}
