//! What every HTTP client is built with. Apart from the providers because the provider
//! list builds the clients and the clients take these options.

use crate::secret::ApiKey;
use std::time::Duration;

/// What an HTTP client needs besides the request.
#[derive(Debug, Clone)]
pub struct ClientOptions {
    /// Defaults to the provider's public API.
    pub base_url: Option<String>,
    /// The key sent in the provider's header; `None` sends no key (an Anthropic call then
    /// fails with [`ClientError::MissingKey`](super::ClientError::MissingKey)).
    pub api_key: Option<ApiKey>,
    /// The limit on one request, connection and body included.
    pub timeout: Duration,
}

impl ClientOptions {
    /// Options with the key read from the environment variable `key_variable` (a
    /// provider's [`key_variable`](super::Provider::key_variable)).
    pub fn from_env(key_variable: &str, base_url: Option<String>, timeout: Duration) -> Self {
        ClientOptions {
            base_url,
            api_key: ApiKey::from_env(key_variable),
            timeout,
        }
    }
}
