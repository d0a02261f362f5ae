//! Reading a request body whole, bounded in size, in time and in the memory all bodies being
//! read at once may hold.

use http_body_util::BodyExt;
use hyper::HeaderMap;
use hyper::body::Incoming;
use std::fmt;
use std::time::Duration;
use tokio::sync::{Semaphore, SemaphorePermit};

/// How long a request's body may take to arrive once its head has: a request being read
/// counts as in service (it is never closed as idle), so without this a client trickling
/// its body would hold a connection, and the memory it claimed, for as long as it liked.
pub const BODY_TIMEOUT: Duration = Duration::from_secs(10);

/// Why a body was not read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BodyError {
    /// Longer than the limit given.
    TooLarge,
    /// Not whole within [`BODY_TIMEOUT`] of the head.
    Late,
    /// The memory budget was closed: the server is stopping.
    Closed,
    /// The connection failed or the body was malformed.
    Unreadable(String),
}

impl fmt::Display for BodyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BodyError::TooLarge => f.write_str("the body is over the limit"),
            BodyError::Late => write!(
                f,
                "the body did not arrive within {} s",
                BODY_TIMEOUT.as_secs()
            ),
            BodyError::Closed => f.write_str("shutting down"),
            BodyError::Unreadable(reason) => f.write_str(reason),
        }
    }
}

/// Reads a request body whole, up to `limit` bytes, holding `limit` bytes of `memory`
/// (the listener's budget for bodies being held), all within [`BODY_TIMEOUT`] of the
/// head: waiting for a share of the budget counts too, so requests stalled in a queue
/// are answered within the same bound. The share is held until the returned permit is
/// dropped.
pub async fn read_body(
    body: Incoming,
    limit: usize,
    memory: &Semaphore,
) -> Result<(bytes::Bytes, SemaphorePermit<'_>), BodyError> {
    let deadline = tokio::time::Instant::now() + BODY_TIMEOUT;
    let share = u32::try_from(limit.max(1)).unwrap_or(u32::MAX);
    let permit = match tokio::time::timeout_at(deadline, memory.acquire_many(share)).await {
        Ok(Ok(permit)) => permit,
        Ok(Err(_)) => return Err(BodyError::Closed),
        Err(_) => return Err(BodyError::Late),
    };
    let reading = http_body_util::Limited::new(body, limit).collect();
    match tokio::time::timeout_at(deadline, reading).await {
        Ok(Ok(body)) => Ok((body.to_bytes(), permit)),
        Ok(Err(error)) if error.is::<http_body_util::LengthLimitError>() => {
            Err(BodyError::TooLarge)
        }
        Ok(Err(error)) => Err(BodyError::Unreadable(error.to_string())),
        Err(_) => Err(BodyError::Late),
    }
}

/// The body size a request's `Content-Length` declares, when it declares one: a body
/// declared over the limit is refused before a byte of it is read.
pub fn declared_length(headers: &HeaderMap) -> Option<u64> {
    headers
        .get(hyper::header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok())
}

/// A size in MiB with one decimal, as limit reasons show it.
pub fn mib(bytes: u64) -> String {
    format!("{:.1} MiB", bytes as f64 / (1 << 20) as f64)
}
