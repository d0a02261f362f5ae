//! The providers proctor can talk to, and how to build a client for one.

use super::{AnthropicClient, ClientError, ClientOptions, ModelClient, OpenAiClient};
use std::fmt;
use std::str::FromStr;
use std::sync::Arc;

/// A judge API.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Provider {
    /// The Anthropic Messages API.
    Anthropic,
    /// OpenAI Chat Completions, and servers that speak it (vLLM, Ollama, LM Studio,
    /// OpenRouter) through a base URL.
    OpenAi,
}

impl Provider {
    /// The name used on the command line, in provenance and in cassette keys.
    pub fn name(self) -> &'static str {
        match self {
            Provider::Anthropic => "anthropic",
            Provider::OpenAi => "openai",
        }
    }

    /// The environment variable holding this provider's API key.
    pub fn key_variable(self) -> &'static str {
        match self {
            Provider::Anthropic => AnthropicClient::KEY_VARIABLE,
            Provider::OpenAi => OpenAiClient::KEY_VARIABLE,
        }
    }

    /// Whether a call can go out without a key: local OpenAI-compatible servers need none.
    pub fn key_required(self) -> bool {
        matches!(self, Provider::Anthropic)
    }

    /// Builds this provider's HTTP client.
    pub fn client(self, options: ClientOptions) -> Result<Arc<dyn ModelClient>, ClientError> {
        Ok(match self {
            Provider::Anthropic => Arc::new(AnthropicClient::new(options)?),
            Provider::OpenAi => Arc::new(OpenAiClient::new(options)?),
        })
    }
}

impl fmt::Display for Provider {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Provider {
    type Err = String;

    /// Accepts `anthropic`, and `openai` (alias `openai-compatible`).
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match text.trim().to_ascii_lowercase().as_str() {
            "anthropic" => Ok(Provider::Anthropic),
            "openai" | "openai-compatible" => Ok(Provider::OpenAi),
            other => Err(format!(
                "unknown judge provider {other:?}; expected anthropic or openai"
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_names_and_aliases() {
        assert_eq!("anthropic".parse(), Ok(Provider::Anthropic));
        assert_eq!("OpenAI".parse(), Ok(Provider::OpenAi));
        assert_eq!("openai-compatible".parse(), Ok(Provider::OpenAi));
        let err = "gemini".parse::<Provider>().unwrap_err();
        assert!(err.contains("\"gemini\""), "{err}");
    }

    #[test]
    fn names_the_key_variables() {
        assert_eq!(Provider::Anthropic.key_variable(), "ANTHROPIC_API_KEY");
        assert_eq!(Provider::OpenAi.key_variable(), "OPENAI_API_KEY");
        assert!(Provider::Anthropic.key_required());
        assert!(!Provider::OpenAi.key_required());
    }
}
