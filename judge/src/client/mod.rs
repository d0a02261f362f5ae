//! Model clients: the provider-neutral request and response, the [`ModelClient`] trait,
//! the Anthropic and OpenAI-compatible HTTP clients, and the retrying, rate-limited
//! wrapper every call goes through.

mod adaptive;
mod anthropic;
mod error;
mod http;
mod openai;
mod options;
mod provider;
mod retry;

pub use anthropic::AnthropicClient;
pub use error::ClientError;
pub use openai::OpenAiClient;
pub use options::ClientOptions;
pub use provider::Provider;
pub use retry::{RetryPolicy, RetryingClient};

use async_trait::async_trait;
use serde::{Deserialize, Serialize};
use std::fmt;

/// Who speaks a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// Instructions that frame the conversation; Anthropic takes them as the top-level
    /// `system` field, OpenAI as a message.
    System,
    /// The asker: for the judge, the rendered prompt with the rubric and the bundle.
    User,
    /// The model's side of the conversation.
    Assistant,
}

/// One message of a chat request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Message {
    /// Who speaks it.
    pub role: Role,
    /// The message's text.
    pub content: String,
}

/// A chat request in no provider's shape; each client maps it onto its own API.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChatRequest {
    /// The model asked for, as the provider names it.
    pub model: String,
    /// The conversation in order; the judge sends at most a system and a user message.
    pub messages: Vec<Message>,
    /// Always 0 for the judge: a grader should not be creative.
    pub temperature: f64,
    /// The answer's token limit, sent as the API's `max_tokens`.
    pub max_tokens: u32,
}

/// What a model answered.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChatResponse {
    /// The answer's text blocks, joined.
    pub text: String,
    /// The model the server says answered (often a dated snapshot of the requested one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// The provider's usage object as sent (`null` when the server sent none), so that
    /// cost accounting can read cache and reasoning tokens in the provider's own shape.
    #[serde(default)]
    pub usage: serde_json::Value,
}

/// A chat model behind some API. Implementations make one attempt per call; retries,
/// backoff and the bound on calls in flight live in [`RetryingClient`].
#[async_trait]
pub trait ModelClient: Send + Sync + fmt::Debug {
    /// The provider's name as recorded in provenance and cassette keys (`anthropic`,
    /// `openai`).
    fn provider(&self) -> &str;

    /// Sends one request and returns the answer.
    async fn complete(&self, request: &ChatRequest) -> Result<ChatResponse, ClientError>;
}
