//! Retries with exponential backoff, and an adaptive bound on calls in flight, around
//! any client.

use super::adaptive::AdaptiveLimit;
use super::{ChatRequest, ChatResponse, ClientError, ModelClient};
use async_trait::async_trait;
use std::hash::{BuildHasher, Hasher, RandomState};
use std::sync::Arc;
use std::time::Duration;

/// When and how often to try a failed call again.
#[derive(Debug, Clone, PartialEq)]
pub struct RetryPolicy {
    /// Calls in all, the first included (at least 1), not counting those the server
    /// throttled.
    pub max_attempts: u32,
    /// Throttled answers (429, 503, 529) waited out per call before giving up: a rate
    /// limit lowers the rate rather than failing the evaluation.
    pub max_throttled: u32,
    /// The wait before the first retry; it doubles each time.
    pub base_delay: Duration,
    /// The longest backoff wait.
    pub max_delay: Duration,
    /// The longest wait granted to a server's `retry-after`; longer requests are cut to it.
    pub max_retry_after: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            max_attempts: 5,
            max_throttled: 30,
            base_delay: Duration::from_millis(500),
            max_delay: Duration::from_secs(20),
            max_retry_after: Duration::from_secs(60),
        }
    }
}

impl RetryPolicy {
    /// The wait before retry number `retry` (1 for the first retry). A server's
    /// `retry-after` is honoured as given (up to `max_retry_after`); otherwise the
    /// exponential backoff is scaled by `jitter` in `[0.5, 1]`, so that many callers
    /// throttled at once do not come back at once.
    pub fn delay(&self, retry: u32, retry_after: Option<Duration>, jitter: f64) -> Duration {
        if let Some(wait) = retry_after {
            return wait.min(self.max_retry_after);
        }
        let factor = 2f64.powi(retry.saturating_sub(1).min(30) as i32);
        let backoff = self.base_delay.mul_f64(factor).min(self.max_delay);
        backoff.mul_f64(jitter.clamp(0.5, 1.0))
    }
}

/// A random factor in `[0.5, 1]` without a dependency: std's per-instance hash keys.
fn jitter() -> f64 {
    let bits = RandomState::new().build_hasher().finish();
    0.5 + (bits >> 11) as f64 / (1u64 << 53) as f64 / 2.0
}

/// Wraps a client with retries and an adaptive limit of at most `jobs` calls in flight.
/// A place is held only while a request is in flight, not while waiting to retry, so a
/// throttled call does not block others; throttled answers lower the limit.
#[derive(Debug, Clone)]
pub struct RetryingClient {
    inner: Arc<dyn ModelClient>,
    policy: RetryPolicy,
    limit: Arc<AdaptiveLimit>,
}

impl RetryingClient {
    /// `jobs` is the most calls in flight at once (0 counts as 1).
    pub fn new(inner: Arc<dyn ModelClient>, policy: RetryPolicy, jobs: usize) -> Self {
        RetryingClient {
            inner,
            policy,
            limit: Arc::new(AdaptiveLimit::new(jobs)),
        }
    }

    /// The calls allowed in flight now: `jobs`, or less after throttled answers.
    pub fn current_limit(&self) -> usize {
        self.limit.current()
    }
}

#[async_trait]
impl ModelClient for RetryingClient {
    fn provider(&self) -> &str {
        self.inner.provider()
    }

    async fn complete(&self, request: &ChatRequest) -> Result<ChatResponse, ClientError> {
        let attempts = self.policy.max_attempts.max(1);
        // Calls made, and of those the ones the server throttled.
        let mut calls = 1;
        let mut throttled = 0;
        loop {
            let result = {
                let permit = self.limit.acquire().await;
                let result = self.inner.complete(request).await;
                match &result {
                    Ok(_) => permit.succeeded(),
                    Err(error) if error.is_throttled() => permit.throttled(),
                    Err(_) => {}
                }
                result
            };
            let error = match result {
                Ok(response) => return Ok(response),
                Err(error) => error,
            };
            let waited_out = error.is_throttled() && throttled < self.policy.max_throttled;
            let retried = !waited_out && error.is_retryable() && calls - throttled < attempts;
            if waited_out || retried {
                throttled += u32::from(waited_out);
                let wait = self.policy.delay(calls, error.retry_after(), jitter());
                tokio::time::sleep(wait).await;
                calls += 1;
            } else if calls > 1 || error.is_retryable() {
                return Err(ClientError::GaveUp {
                    attempts: calls,
                    last: Box::new(error),
                });
            } else {
                return Err(error);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_up_to_the_cap() {
        let policy = RetryPolicy {
            max_attempts: 10,
            max_throttled: 0,
            base_delay: Duration::from_millis(100),
            max_delay: Duration::from_millis(700),
            max_retry_after: Duration::from_secs(5),
        };
        let full: Vec<u128> = (1..=5)
            .map(|n| policy.delay(n, None, 1.0).as_millis())
            .collect();
        assert_eq!(full, [100, 200, 400, 700, 700]);
        assert_eq!(policy.delay(2, None, 0.5).as_millis(), 100);
        assert_eq!(
            policy.delay(2, None, 0.0).as_millis(),
            100,
            "jitter is clamped"
        );
    }

    #[test]
    fn retry_after_wins_within_its_cap() {
        let policy = RetryPolicy {
            max_retry_after: Duration::from_secs(5),
            ..RetryPolicy::default()
        };
        let asked = Some(Duration::from_millis(1500));
        assert_eq!(policy.delay(1, asked, 0.5), Duration::from_millis(1500));
        let greedy = Some(Duration::from_secs(3600));
        assert_eq!(policy.delay(1, greedy, 1.0), Duration::from_secs(5));
    }

    #[test]
    fn jitter_stays_in_range() {
        for _ in 0..100 {
            let j = jitter();
            assert!((0.5..=1.0).contains(&j), "{j}");
        }
    }
}
