//! The canonical request and its key. The key covers what decides the answer (provider,
//! model, messages, parameters, template version, sample index) and nothing that does
//! not (headers, keys, URLs, timeouts).

use crate::client::{ChatRequest, Message};
use crate::hash::sha256_hex;
use serde::{Deserialize, Serialize};

/// Sampling parameters sent to the model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Parameters {
    /// The request's temperature (0 for the judge).
    pub temperature: f64,
    /// The answer's token limit.
    pub max_tokens: u32,
}

/// A request in the form that is hashed and recorded. Field order is fixed by this
/// struct, and the key is the SHA-256 of its compact JSON.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CanonicalRequest {
    /// The provider's name, as its client gives it.
    pub provider: String,
    /// The model asked for.
    pub model: String,
    /// The template version, so that a template edit changes every key.
    pub template_version: String,
    /// Which of the N samples this is: samples are recorded apart.
    pub sample: u32,
    /// The sampling parameters.
    pub parameters: Parameters,
    /// The messages as sent.
    pub messages: Vec<Message>,
}

impl CanonicalRequest {
    /// The canonical form of `request` as sample `sample` of a run.
    pub fn new(provider: &str, request: &ChatRequest, template_version: &str, sample: u32) -> Self {
        CanonicalRequest {
            provider: provider.to_owned(),
            model: request.model.clone(),
            template_version: template_version.to_owned(),
            sample,
            parameters: Parameters {
                temperature: request.temperature,
                max_tokens: request.max_tokens,
            },
            messages: request.messages.clone(),
        }
    }

    /// The lowercase hex SHA-256 of the compact JSON form.
    pub fn key(&self) -> String {
        let json = serde_json::to_vec(self).expect("a canonical request always serialises");
        sha256_hex(&json)
    }

    /// A one-line description for messages.
    pub fn summary(&self) -> String {
        format!(
            "provider {}, model {}, template {}, sample {}",
            self.provider, self.model, self.template_version, self.sample
        )
    }
}
