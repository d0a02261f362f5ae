//! OpenAI Chat Completions (`POST {base}/v1/chat/completions`), which OpenAI-compatible
//! servers (vLLM, Ollama, LM Studio, OpenRouter) also speak.

use super::http::{Exchange, endpoint, http_client, post_json};
use super::{ChatRequest, ChatResponse, ClientError, ClientOptions, ModelClient};
use crate::secret::ApiKey;
use async_trait::async_trait;
use serde_json::{Value, json};
use std::time::Duration;

/// A client for OpenAI Chat Completions or a compatible server.
#[derive(Debug)]
pub struct OpenAiClient {
    http: reqwest::Client,
    url: String,
    key: Option<ApiKey>,
    timeout: Duration,
}

impl OpenAiClient {
    /// The provider name recorded in provenance and cassette keys, for compatible servers
    /// too.
    pub const PROVIDER: &'static str = "openai";
    /// The environment variable the API key is read from; optional for local servers.
    pub const KEY_VARIABLE: &'static str = "OPENAI_API_KEY";
    /// OpenAI's public API, used when no base URL is given.
    pub const DEFAULT_BASE_URL: &'static str = "https://api.openai.com";

    /// A client for `options.base_url` (default OpenAI's API). Without a key no
    /// `Authorization` header is sent, which local servers accept.
    pub fn new(options: ClientOptions) -> Result<Self, ClientError> {
        let base = options
            .base_url
            .unwrap_or_else(|| Self::DEFAULT_BASE_URL.to_owned());
        Ok(OpenAiClient {
            http: http_client(Self::PROVIDER, options.timeout)?,
            url: endpoint(&base, "chat/completions"),
            key: options.api_key,
            timeout: options.timeout,
        })
    }

    /// The Chat Completions body. `max_tokens` rather than `max_completion_tokens`:
    /// every compatible server reads it.
    fn body(request: &ChatRequest) -> Value {
        json!({
            "model": request.model,
            "messages": request.messages,
            "temperature": request.temperature,
            "max_tokens": request.max_tokens,
        })
    }
}

#[async_trait]
impl ModelClient for OpenAiClient {
    fn provider(&self) -> &str {
        Self::PROVIDER
    }

    async fn complete(&self, request: &ChatRequest) -> Result<ChatResponse, ClientError> {
        let exchange = Exchange {
            provider: Self::PROVIDER,
            url: &self.url,
            timeout: self.timeout,
            key_variable: Self::KEY_VARIABLE,
            secret: self.key.as_ref().map(ApiKey::expose),
        };
        let mut builder = self.http.post(&self.url);
        if let Some(key) = &self.key {
            builder = builder.bearer_auth(key.expose());
        }
        let answer = post_json(exchange, builder, &Self::body(request)).await?;
        parse_answer(&answer).map_err(|detail| exchange.malformed(detail))
    }
}

/// Reads `choices[0].message.content` (a string, or a list of text parts), `model` and
/// `usage`. A `null` content (a refusal) reads as empty text: the verdict parser then
/// reports it as undecided.
fn parse_answer(answer: &Value) -> Result<ChatResponse, String> {
    let message = answer
        .get("choices")
        .and_then(Value::as_array)
        .and_then(|choices| choices.first())
        .and_then(|choice| choice.get("message"))
        .ok_or_else(|| "no `choices[0].message`".to_owned())?;
    let text = match message.get("content") {
        Some(Value::String(text)) => text.clone(),
        Some(Value::Array(parts)) => parts
            .iter()
            .filter_map(|part| part.get("text").and_then(Value::as_str))
            .collect(),
        Some(Value::Null) | None => String::new(),
        Some(other) => return Err(format!("`content` is neither text nor parts: {other}")),
    };
    Ok(ChatResponse {
        text,
        model: answer
            .get("model")
            .and_then(Value::as_str)
            .map(str::to_owned),
        usage: answer.get("usage").cloned().unwrap_or(Value::Null),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_string_and_part_contents() {
        let plain =
            json!({"choices": [{"message": {"content": "hi"}}], "usage": {"prompt_tokens": 1}});
        let parsed = parse_answer(&plain).unwrap();
        assert_eq!(parsed.text, "hi");
        assert_eq!(parsed.usage["prompt_tokens"], 1);
        let parts = json!({"choices": [{"message": {"content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]}}]});
        assert_eq!(parse_answer(&parts).unwrap().text, "ab");
        assert_eq!(parse_answer(&parts).unwrap().usage, Value::Null);
        let refusal = json!({"choices": [{"message": {"content": null, "refusal": "no"}}]});
        assert_eq!(parse_answer(&refusal).unwrap().text, "");
    }

    #[test]
    fn refuses_answers_without_choices() {
        assert!(parse_answer(&json!({"choices": []})).is_err());
        assert!(parse_answer(&json!({"choices": [{"message": {"content": 3}}]})).is_err());
    }
}
