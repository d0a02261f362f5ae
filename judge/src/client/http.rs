//! The HTTP exchange both clients share: endpoint URLs, sending a JSON body, and turning
//! transport failures, status codes and bodies into [`ClientError`]s.

use super::error::ClientError;
use reqwest::header::HeaderMap;
use std::time::Duration;

/// How much of an error body goes into a message.
const BODY_EXCERPT: usize = 300;
/// The largest answer read from a judge server.
pub(crate) const ANSWER_LIMIT: usize = 1 << 20;

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
    let mut response = builder
        .json(body)
        .send()
        .await
        .map_err(|e| exchange.transport(&e))?;
    let status = response.status();
    let retry_after = retry_after(response.headers());
    let mut bytes = Vec::new();
    while let Some(chunk) = response.chunk().await.map_err(|e| exchange.transport(&e))? {
        if bytes.len() + chunk.len() > ANSWER_LIMIT {
            return Err(exchange.malformed(format!(
                "the answer is over the {} MiB limit",
                ANSWER_LIMIT >> 20
            )));
        }
        bytes.extend_from_slice(&chunk);
    }
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
    let mut answer: serde_json::Value = serde_json::from_slice(&bytes).map_err(|e| {
        let body = exchange.redact(excerpt(&bytes));
        exchange.malformed(format!("not JSON ({e}): {body}"))
    })?;
    // A server may echo the key back (in the answer, an id, a warning): it must not
    // reach a verdict, a result line or a cassette.
    exchange.redact_json(&mut answer);
    Ok(answer)
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

    /// Redacts the key in every string (and key) of a JSON answer.
    fn redact_json(&self, value: &mut serde_json::Value) {
        let Some(secret) = self.secret.filter(|s| !s.is_empty()) else {
            return;
        };
        redact_value(value, secret);
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

fn redact_value(value: &mut serde_json::Value, secret: &str) {
    use serde_json::Value;
    match value {
        Value::String(text) if text.contains(secret) => {
            *text = text.replace(secret, "<redacted>");
        }
        Value::Array(items) => items.iter_mut().for_each(|v| redact_value(v, secret)),
        Value::Object(object) => {
            let leaked: Vec<String> = object
                .keys()
                .filter(|k| k.contains(secret))
                .cloned()
                .collect();
            for key in leaked {
                if let Some(v) = object.remove(&key) {
                    object.insert(key.replace(secret, "<redacted>"), v);
                }
            }
            object.values_mut().for_each(|v| redact_value(v, secret));
        }
        _ => {}
    }
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
    fn an_echoed_key_is_redacted_everywhere_in_an_answer() {
        let exchange = Exchange {
            provider: "anthropic",
            url: "http://127.0.0.1/v1/messages",
            timeout: Duration::from_secs(1),
            key_variable: "ANTHROPIC_API_KEY",
            secret: Some("sk-echo-123"),
        };
        let mut answer = serde_json::json!({
            "content": [{"type": "text", "text": "PASS. Your key is sk-echo-123."}],
            "id": "msg_sk-echo-123",
            "sk-echo-123": 1,
            "usage": {"input_tokens": 3}
        });
        exchange.redact_json(&mut answer);
        let text = answer.to_string();
        assert!(!text.contains("sk-echo-123"), "{text}");
        assert_eq!(
            answer["content"][0]["text"],
            "PASS. Your key is <redacted>."
        );
        assert_eq!(answer["usage"]["input_tokens"], 3);
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
