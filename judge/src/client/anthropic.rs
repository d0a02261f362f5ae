//! The Anthropic Messages API: `POST {base}/v1/messages` with `x-api-key` and
//! `anthropic-version`.

use super::http::{Exchange, endpoint, http_client, post_json};
use super::{ChatRequest, ChatResponse, ClientError, ClientOptions, ModelClient, Role};
use crate::secret::ApiKey;
use async_trait::async_trait;
use serde_json::{Value, json};
use std::time::Duration;

/// A client for the Anthropic Messages API.
#[derive(Debug)]
pub struct AnthropicClient {
    http: reqwest::Client,
    url: String,
    key: Option<ApiKey>,
    timeout: Duration,
}

impl AnthropicClient {
    /// The provider name recorded in provenance and cassette keys.
    pub const PROVIDER: &'static str = "anthropic";
    /// The environment variable the API key is read from.
    pub const KEY_VARIABLE: &'static str = "ANTHROPIC_API_KEY";
    /// The public API, used when no base URL is given.
    pub const DEFAULT_BASE_URL: &'static str = "https://api.anthropic.com";
    /// The API version sent in `anthropic-version`.
    pub const API_VERSION: &'static str = "2023-06-01";

    /// A client for `options.base_url` (default the public API). A missing key is
    /// reported at the first call, so that replaying cassettes needs none.
    pub fn new(options: ClientOptions) -> Result<Self, ClientError> {
        let base = options
            .base_url
            .unwrap_or_else(|| Self::DEFAULT_BASE_URL.to_owned());
        Ok(AnthropicClient {
            http: http_client(Self::PROVIDER, options.timeout)?,
            url: endpoint(&base, "messages"),
            key: options.api_key,
            timeout: options.timeout,
        })
    }

    /// The Messages body: system messages go to the top-level `system` field.
    fn body(request: &ChatRequest) -> Value {
        let system: Vec<&str> = request
            .messages
            .iter()
            .filter(|m| m.role == Role::System)
            .map(|m| m.content.as_str())
            .collect();
        let messages: Vec<Value> = request
            .messages
            .iter()
            .filter(|m| m.role != Role::System)
            .map(|m| json!({"role": m.role, "content": m.content}))
            .collect();
        let mut body = json!({
            "model": request.model,
            "max_tokens": request.max_tokens,
            "temperature": request.temperature,
            "messages": messages,
        });
        if !system.is_empty() {
            body["system"] = Value::String(system.join("\n\n"));
        }
        body
    }
}

#[async_trait]
impl ModelClient for AnthropicClient {
    fn provider(&self) -> &str {
        Self::PROVIDER
    }

    async fn complete(&self, request: &ChatRequest) -> Result<ChatResponse, ClientError> {
        let key = self.key.as_ref().ok_or(ClientError::MissingKey {
            provider: Self::PROVIDER.to_owned(),
            variable: Self::KEY_VARIABLE,
        })?;
        let exchange = Exchange {
            provider: Self::PROVIDER,
            url: &self.url,
            timeout: self.timeout,
            key_variable: Self::KEY_VARIABLE,
            secret: Some(key.expose()),
        };
        let builder = self
            .http
            .post(&self.url)
            .header("x-api-key", key.expose())
            .header("anthropic-version", Self::API_VERSION);
        let answer = post_json(exchange, builder, &Self::body(request)).await?;
        parse_answer(&answer).map_err(|detail| exchange.malformed(detail))
    }
}

/// Reads `content[].text` (text blocks only), `model` and `usage`.
fn parse_answer(answer: &Value) -> Result<ChatResponse, String> {
    let blocks = answer
        .get("content")
        .and_then(Value::as_array)
        .ok_or_else(|| "no `content` array".to_owned())?;
    let text: Vec<&str> = blocks
        .iter()
        .filter(|block| block.get("type").and_then(Value::as_str) == Some("text"))
        .filter_map(|block| block.get("text").and_then(Value::as_str))
        .collect();
    Ok(ChatResponse {
        text: text.join(""),
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
    use crate::client::Message;

    #[test]
    fn system_goes_to_the_top_level_field() {
        let request = ChatRequest {
            model: "m".into(),
            messages: vec![
                Message {
                    role: Role::System,
                    content: "be strict".into(),
                },
                Message {
                    role: Role::User,
                    content: "grade".into(),
                },
            ],
            temperature: 0.0,
            max_tokens: 10,
        };
        let body = AnthropicClient::body(&request);
        assert_eq!(body["system"], "be strict");
        assert_eq!(
            body["messages"],
            json!([{"role": "user", "content": "grade"}])
        );
        assert_eq!(body["temperature"], 0.0);
    }

    #[test]
    fn joins_text_blocks_and_skips_others() {
        let answer = json!({
            "model": "claude-x-2026",
            "content": [{"type": "thinking", "thinking": "hm"},
                        {"type": "text", "text": "a"}, {"type": "text", "text": "b"}],
            "usage": {"input_tokens": 3, "output_tokens": 4}
        });
        let parsed = parse_answer(&answer).unwrap();
        assert_eq!(parsed.text, "ab");
        assert_eq!(parsed.model.as_deref(), Some("claude-x-2026"));
        assert_eq!(parsed.usage["output_tokens"], 4);
        assert_eq!(
            parse_answer(&json!({"error": "x"})).unwrap_err(),
            "no `content` array"
        );
    }
}
