//! Retries with exponential backoff, and a bound on calls in flight, around any client.

use super::{ChatRequest, ChatResponse, ClientError, ModelClient};
use async_trait::async_trait;
use std::hash::{BuildHasher, Hasher, RandomState};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::Semaphore;

/// When and how often to try a failed call again.
#[derive(Debug, Clone, PartialEq)]
pub struct RetryPolicy {
    /// Calls in all, the first included (at least 1).
    pub max_attempts: u32,
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

/// Wraps a client with retries and a semaphore of `jobs` permits. A permit is held only
/// while a request is in flight, not while waiting to retry, so a throttled call does
/// not block others.
#[derive(Debug, Clone)]
pub struct RetryingClient {
    inner: Arc<dyn ModelClient>,
    policy: RetryPolicy,
    permits: Arc<Semaphore>,
}

impl RetryingClient {
    /// `jobs` is the most calls in flight at once (0 counts as 1).
    pub fn new(inner: Arc<dyn ModelClient>, policy: RetryPolicy, jobs: usize) -> Self {
        RetryingClient {
            inner,
            policy,
            permits: Arc::new(Semaphore::new(jobs.max(1))),
        }
    }
}

#[async_trait]
impl ModelClient for RetryingClient {
    fn provider(&self) -> &str {
        self.inner.provider()
    }

    async fn complete(&self, request: &ChatRequest) -> Result<ChatResponse, ClientError> {
        let attempts = self.policy.max_attempts.max(1);
        let mut attempt = 1;
        loop {
            let result = {
                // The semaphore is never closed, so acquiring cannot fail.
                let _permit = self.permits.acquire().await.ok();
                self.inner.complete(request).await
            };
            match result {
                Ok(response) => return Ok(response),
                Err(error) if error.is_retryable() && attempt < attempts => {
                    let wait = self.policy.delay(attempt, error.retry_after(), jitter());
                    tokio::time::sleep(wait).await;
                    attempt += 1;
                }
                Err(error) if attempt > 1 || error.is_retryable() => {
                    return Err(ClientError::GaveUp {
                        attempts: attempt,
                        last: Box::new(error),
                    });
                }
                Err(error) => return Err(error),
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
