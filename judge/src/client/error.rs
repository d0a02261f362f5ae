//! Why a model call failed, and whether trying again could help.

use std::time::Duration;

/// A failed model call. Messages name the provider and URL, never a key.
#[derive(Debug, Clone, thiserror::Error)]
pub enum ClientError {
    /// The provider needs a key and none was given (its variable is unset or blank).
    #[error("{provider}: no API key; set {variable}")]
    MissingKey {
        /// The provider's name, as in provenance.
        provider: String,
        /// The environment variable to set.
        variable: &'static str,
    },
    /// The server refused the key (HTTP 401 or 403). Never retried.
    #[error(
        "{provider}: authentication failed (HTTP {status}) at {url}; set {variable} to a valid key"
    )]
    Auth {
        /// The provider's name, as in provenance.
        provider: String,
        /// The HTTP status: 401 or 403.
        status: u16,
        /// The URL called.
        url: String,
        /// The environment variable whose key was refused.
        variable: &'static str,
    },
    /// Any other non-2xx answer. Retried for 408, 429 and 5xx.
    #[error("{provider}: HTTP {status} from {url}: {body}")]
    Status {
        /// The provider's name, as in provenance.
        provider: String,
        /// The HTTP status.
        status: u16,
        /// The URL called.
        url: String,
        /// The start of the response body, for the message.
        body: String,
        /// What the server asked us to wait (`retry-after-ms` or `retry-after`).
        retry_after: Option<Duration>,
    },
    /// No complete answer within the request timeout. Retried.
    #[error("{provider}: no answer from {url} within {timeout:?}")]
    Timeout {
        /// The provider's name, as in provenance.
        provider: String,
        /// The URL called.
        url: String,
        /// The request timeout that ran out.
        timeout: Duration,
    },
    /// The connection failed (DNS, refused, reset, TLS). Retried.
    #[error("{provider}: cannot reach {url}: {detail}")]
    Unreachable {
        /// The provider's name, as in provenance.
        provider: String,
        /// The URL called.
        url: String,
        /// The transport error with its causes.
        detail: String,
    },
    /// A 2xx answer not in the API's shape: this run is left ungraded, the evaluation goes on.
    #[error("{provider}: malformed response from {url}: {detail}")]
    Malformed {
        /// The provider's name, as in provenance.
        provider: String,
        /// The URL called.
        url: String,
        /// What is missing or wrong in the answer.
        detail: String,
    },
    /// The HTTP client could not be built (say, its TLS backend).
    #[error("{provider}: cannot set up the HTTP client: {detail}")]
    Setup {
        /// The provider's name, as in provenance.
        provider: String,
        /// The builder's error with its causes.
        detail: String,
    },
    /// A retryable failure that ran out of attempts, or any failure after a retry.
    #[error("{last} (gave up after {attempts} attempts)")]
    GaveUp {
        /// Calls made, the first and the throttled ones included.
        attempts: u32,
        /// The final attempt's failure.
        last: Box<ClientError>,
    },
}

impl ClientError {
    /// True for failures that another attempt may not repeat: rate limits (429), server
    /// errors (5xx), request timeouts (408 and our own), and connection failures.
    pub fn is_retryable(&self) -> bool {
        match self {
            ClientError::Status { status, .. } => {
                *status == 408 || *status == 429 || (500..600).contains(status)
            }
            ClientError::Timeout { .. } | ClientError::Unreachable { .. } => true,
            _ => false,
        }
    }

    /// The wait the server asked for, if it asked.
    pub fn retry_after(&self) -> Option<Duration> {
        match self {
            ClientError::Status { retry_after, .. } => *retry_after,
            _ => None,
        }
    }

    /// True when the server answered but not in its API's shape: a problem with this one
    /// answer, which leaves the run ungraded rather than stopping the evaluation.
    pub fn is_malformed(&self) -> bool {
        match self {
            ClientError::Malformed { .. } => true,
            ClientError::GaveUp { last, .. } => last.is_malformed(),
            _ => false,
        }
    }

    /// True when the server says it is overloaded or rate-limited (429, 503, 529): the
    /// rate should fall, and waiting out the storm is not a failure of the run.
    pub fn is_throttled(&self) -> bool {
        matches!(
            self,
            ClientError::Status {
                status: 429 | 503 | 529,
                ..
            }
        )
    }

    /// True when no key was configured: a usage error, not an outage.
    pub fn is_missing_key(&self) -> bool {
        matches!(self, ClientError::MissingKey { .. })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn status(code: u16) -> ClientError {
        ClientError::Status {
            provider: "p".into(),
            status: code,
            url: "u".into(),
            body: String::new(),
            retry_after: None,
        }
    }

    #[test]
    fn retries_rate_limits_and_server_errors_only() {
        for code in [408, 429, 500, 502, 503, 529] {
            assert!(status(code).is_retryable(), "{code}");
        }
        for code in [400, 404, 422] {
            assert!(!status(code).is_retryable(), "{code}");
        }
        for code in [429, 503, 529] {
            assert!(status(code).is_throttled(), "{code}");
        }
        for code in [408, 500, 502] {
            assert!(!status(code).is_throttled(), "{code}");
        }
        let auth = ClientError::Auth {
            provider: "anthropic".into(),
            status: 401,
            url: "u".into(),
            variable: "ANTHROPIC_API_KEY",
        };
        assert!(!auth.is_retryable());
        assert!(auth.to_string().contains("set ANTHROPIC_API_KEY"));
    }
}
