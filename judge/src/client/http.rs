//! The HTTP exchange both clients share: endpoint URLs, sending a JSON body, and turning
//! transport failures, status codes and bodies into [`ClientError`]s.

use super::error::ClientError;
use reqwest::header::HeaderMap;
use std::time::Duration;

/// How much of an error body goes into a message.
const BODY_EXCERPT: usize = 300;

/// `{base}/v1/{path}`, without doubling a `/v1` that the base already ends with: OpenAI
/// SDK users write base URLs such as `http://localhost:8000/v1`.
pub(crate) fn endpoint(base: &str, path: &str) -> String {
    let base = base.trim_end_matches('/');
    if base.ends_with("/v1") {
        format!("{base}/{path}")
    } else {
        format!("{base}/v1/{path}")
    }
}

/// Builds the reqwest client with the per-request timeout.
pub(crate) fn http_client(
    provider: &str,
    timeout: Duration,
) -> Result<reqwest::Client, ClientError> {
    reqwest::Client::builder()
        .timeout(timeout)
        .build()
        .map_err(|e| ClientError::Setup {
            provider: provider.to_owned(),
            detail: error_chain(&e),
        })
}

/// One POST of a JSON body; returns the parsed JSON answer of a 2xx response.
pub(crate) async fn post_json(
    exchange: Exchange<'_>,
    builder: reqwest::RequestBuilder,
    body: &serde_json::Value,
) -> Result<serde_json::Value, ClientError> {
    let response = builder
        .json(body)
        .send()
        .await
        .map_err(|e| exchange.transport(&e))?;
    let status = response.status();
    let retry_after = retry_after(response.headers());
    let bytes = response.bytes().await.map_err(|e| exchange.transport(&e))?;
    if status == reqwest::StatusCode::UNAUTHORIZED || status == reqwest::StatusCode::FORBIDDEN {
        return Err(ClientError::Auth {
            provider: exchange.provider.to_owned(),
            status: status.as_u16(),
            url: exchange.url.to_owned(),
            variable: exchange.key_variable,
        });
    }
    if !status.is_success() {
        return Err(ClientError::Status {
            provider: exchange.provider.to_owned(),
            status: status.as_u16(),
            url: exchange.url.to_owned(),
            body: exchange.redact(excerpt(&bytes)),
            retry_after,
        });
    }
    serde_json::from_slice(&bytes).map_err(|e| {
        let body = exchange.redact(excerpt(&bytes));
        exchange.malformed(format!("not JSON ({e}): {body}"))
    })
}

/// Who is being called, for error messages.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Exchange<'a> {
    pub provider: &'a str,
    pub url: &'a str,
    pub timeout: Duration,
    pub key_variable: &'static str,
    /// The key sent, so that a server echoing it back cannot put it into a message.
    pub secret: Option<&'a str>,
}

impl Exchange<'_> {
    fn redact(&self, text: String) -> String {
        match self.secret {
            Some(secret) if !secret.is_empty() => text.replace(secret, "<redacted>"),
            _ => text,
        }
    }

    pub(crate) fn malformed(&self, detail: String) -> ClientError {
        ClientError::Malformed {
            provider: self.provider.to_owned(),
            url: self.url.to_owned(),
            detail,
        }
    }

    fn transport(&self, error: &reqwest::Error) -> ClientError {
        if error.is_timeout() {
            ClientError::Timeout {
                provider: self.provider.to_owned(),
                url: self.url.to_owned(),
                timeout: self.timeout,
            }
        } else {
            ClientError::Unreachable {
                provider: self.provider.to_owned(),
                url: self.url.to_owned(),
                detail: error_chain(error),
            }
        }
    }
}

/// The wait a server asks for: `retry-after-ms` (milliseconds, sent by OpenAI) first, then
/// `retry-after` in seconds. The HTTP-date form is not read; backoff applies instead.
pub(crate) fn retry_after(headers: &HeaderMap) -> Option<Duration> {
    let number = |name: &str| -> Option<f64> {
        let value: f64 = headers.get(name)?.to_str().ok()?.trim().parse().ok()?;
        (value.is_finite() && value >= 0.0).then_some(value)
    };
    number("retry-after-ms")
        .map(|ms| Duration::from_secs_f64(ms / 1000.0))
        .or_else(|| number("retry-after").map(Duration::from_secs_f64))
}

/// The start of a body, lossily decoded, on one line.
fn excerpt(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    let text = text.trim();
    let mut cut: String = text.chars().take(BODY_EXCERPT).collect();
    if cut.len() < text.len() {
        cut.push_str("...");
    }
    cut.replace(['\n', '\r'], " ")
}

/// An error with its causes, `: `-separated (reqwest's own message alone is often just
/// "error sending request").
fn error_chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        let cause_text = cause.to_string();
        if !text.contains(&cause_text) {
            text.push_str(": ");
            text.push_str(&cause_text);
        }
        source = cause.source();
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use reqwest::header::HeaderValue;

    #[test]
    fn endpoint_adds_v1_once() {
        assert_eq!(
            endpoint("https://api.anthropic.com", "messages"),
            "https://api.anthropic.com/v1/messages"
        );
        assert_eq!(
            endpoint("http://localhost:8000/v1/", "chat/completions"),
            "http://localhost:8000/v1/chat/completions"
        );
        assert_eq!(
            endpoint("https://openrouter.ai/api/v1", "chat/completions"),
            "https://openrouter.ai/api/v1/chat/completions"
        );
    }

    #[test]
    fn retry_after_prefers_milliseconds() {
        let mut headers = HeaderMap::new();
        assert_eq!(retry_after(&headers), None);
        headers.insert("retry-after", HeaderValue::from_static("2"));
        assert_eq!(retry_after(&headers), Some(Duration::from_secs(2)));
        headers.insert("retry-after-ms", HeaderValue::from_static("150"));
        assert_eq!(retry_after(&headers), Some(Duration::from_millis(150)));
        let mut dated = HeaderMap::new();
        dated.insert(
            "retry-after",
            HeaderValue::from_static("Wed, 21 Oct 2015 07:28:00 GMT"),
        );
        assert_eq!(retry_after(&dated), None);
        let mut negative = HeaderMap::new();
        negative.insert("retry-after", HeaderValue::from_static("-1"));
        assert_eq!(retry_after(&negative), None);
    }

    #[test]
    fn excerpt_is_bounded_and_one_line() {
        let long = "x\n".repeat(1000);
        let cut = excerpt(long.as_bytes());
        assert!(cut.len() <= BODY_EXCERPT + 3);
        assert!(!cut.contains('\n'));
        assert!(cut.ends_with("..."));
    }
}
