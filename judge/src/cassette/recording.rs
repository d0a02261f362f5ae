//! What one cassette file holds. Apart from the store because both the store and the
//! explanation of a miss read recordings.

use super::CanonicalRequest;
use crate::client::ChatResponse;
use serde::{Deserialize, Serialize};

/// The format tag of every cassette file.
pub const CASSETTE_FORMAT: &str = "proctor.cassette/1";

/// One recorded exchange. It holds no header and no key: only what is hashed and what
/// came back.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Recording {
    /// Always [`CASSETTE_FORMAT`].
    pub format: String,
    /// The request's key, which also names the file.
    pub key: String,
    /// The request whose answer this is; loading checks it against the request asked for.
    pub request: CanonicalRequest,
    /// The answer's text and the model that gave it.
    pub response: RecordedResponse,
    /// The provider's usage object, as sent.
    pub usage: serde_json::Value,
}

/// The recorded part of a [`ChatResponse`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RecordedResponse {
    pub text: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
}

impl Recording {
    /// The recorded answer as a model client would have given it.
    pub fn into_response(self) -> ChatResponse {
        ChatResponse {
            text: self.response.text,
            model: self.response.model,
            usage: self.usage,
        }
    }
}
