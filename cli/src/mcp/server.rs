//! The MCP listener of a run: streamable HTTP at `http://127.0.0.1:PORT/mcp`. Each attempt
//! with served tools registers under a random bearer token; a request is served only with
//! `Authorization: Bearer TOKEN` of an attempt still running, which also picks that
//! attempt's tools and recorder. Anything else gets a 401 and is counted.

use super::attempt::AttemptTools;
use super::record::{CUT_OFF_WAIT, RecordedCall};
use super::rmcp_adapter::{MAX_REQUEST_BYTES, McpHttp, McpResponse};
use crate::loopback::{BodyError, Listener, declared_length, mib, read_body};
use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::{Request, StatusCode};
use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use tokio::sync::Semaphore;

/// The path the tools are served at.
pub const MCP_PATH: &str = "/mcp";
/// Request bodies held in memory at once, over all attempts; more wait their turn.
pub const MAX_BODIES_IN_MEMORY: usize = 32 << 20;
/// JSON values one request may hold: parsed, each takes far more memory than its bytes.
pub const MAX_REQUEST_VALUES: usize = 100_000;

type Attempts = Mutex<HashMap<String, (McpHttp, Arc<AttemptTools>)>>;

/// A running listener; it stops when dropped.
#[derive(Debug)]
pub struct ToolServer {
    pub address: SocketAddr,
    attempts: Arc<Attempts>,
    unauthorized: Arc<AtomicU64>,
    listener: Listener,
}

/// An attempt's place in the server, until [`ToolServer::finish`].
#[derive(Debug)]
pub struct Served {
    pub token: String,
    tools: Arc<AttemptTools>,
}

impl Served {
    /// Stops an attempt that will not be recorded (proctor was interrupted): no more
    /// calls, and its `server` backends stopped.
    pub async fn abandon(&self) {
        self.tools.close();
        self.tools.stop_servers().await;
    }
}

/// What an attempt's agent did with its tools.
#[derive(Debug)]
pub struct ServedCalls {
    pub calls: Vec<RecordedCall>,
    /// Calls over the recording limit, answered with an error and not kept.
    pub dropped: u64,
    /// The faults that fired, in the order they fired: the result line's `faults_fired`.
    pub fired: Vec<proctor_core::faults::FaultFired>,
    /// The `calls:` faults whose call never came: the result line's `faults_missed`.
    pub missed: Vec<proctor_core::faults::FaultMissed>,
    /// Why the attempt went over a limit of the tool server, if it did.
    pub over_limits: Vec<String>,
    /// What failed on the simulated user's side in this attempt (`user: ...`): the attempt
    /// is not evaluated.
    pub user_failures: Vec<String>,
    /// A failure of the user's model that stops the run (unreachable, a cassette miss).
    pub user_stopped: Option<String>,
}

impl ToolServer {
    /// Listens on a random loopback port, on the current tokio runtime.
    pub async fn start() -> std::io::Result<ToolServer> {
        let attempts: Arc<Attempts> = Arc::default();
        let unauthorized = Arc::new(AtomicU64::new(0));
        let memory = Arc::new(Semaphore::new(MAX_BODIES_IN_MEMORY));
        let (shared, refused) = (attempts.clone(), unauthorized.clone());
        let listener = Listener::start(move |request: Request<hyper::body::Incoming>| {
            // Which attempt, decided as the head is read: a barrier after the agent's exit
            // then knows the request is on its way.
            let routed = route(&shared, &refused, &request);
            let memory = memory.clone();
            async move {
                match routed {
                    Ok((http, tools)) => {
                        let _request = tools.request();
                        serve(http, &tools, request, &memory).await
                    }
                    Err(response) => *response,
                }
            }
        })
        .await?;
        Ok(ToolServer {
            address: listener.address,
            attempts,
            unauthorized,
            listener,
        })
    }

    /// `PROCTOR_MCP_URL`.
    pub fn url(&self) -> String {
        format!("http://{}{MCP_PATH}", self.address)
    }

    /// Serves `tools` under a fresh token until [`ToolServer::finish`].
    pub fn register(&self, tools: Arc<AttemptTools>) -> Served {
        let random = crate::otlp::collector::random_bytes::<32>();
        let token = proctor_core::trace::hex_id(&random);
        let http = McpHttp::new(tools.clone());
        self.attempts
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(token.clone(), (http, tools.clone()));
        Served { token, tools }
    }

    /// After the agent exited (at `exited`): waits until every request it sent has been
    /// read and every call it started has ended, at most until [`CUT_OFF_WAIT`] after its
    /// exit; then stops serving the attempt (its token is refused from now on), records the
    /// calls still running as cut off, and gives its calls.
    pub async fn finish(&self, served: Served, exited: tokio::time::Instant) -> ServedCalls {
        let deadline = exited + CUT_OFF_WAIT;
        let within = deadline.saturating_duration_since(tokio::time::Instant::now());
        self.listener.settle(within).await;
        served.tools.settled(deadline).await;
        self.attempts
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&served.token);
        served.tools.close();
        served.tools.stop_servers().await;
        let (calls, dropped) = served.tools.recorder.take();
        let fired =
            std::mem::take(&mut *served.tools.fired.lock().unwrap_or_else(|e| e.into_inner()));
        let missed = served.tools.faults_missed();
        let mut over_limits = Vec::new();
        let oversized = served.tools.oversized.load(Ordering::Relaxed);
        if oversized > 0 {
            let largest = served.tools.oversized_bytes.load(Ordering::Relaxed);
            let size = if largest > 0 {
                mib(largest)
            } else {
                "of unknown size".to_owned()
            };
            over_limits.push(format!(
                "tools: {oversized} requests refused over the limits per request ({} MiB, {MAX_REQUEST_VALUES} JSON values), the largest {size}",
                MAX_REQUEST_BYTES >> 20
            ));
        }
        let trimmed = served.tools.recorder.trimmed();
        if trimmed > 0 {
            over_limits.push(format!(
                "tools: {trimmed} calls recorded without their arguments and results, over the {} MiB of recorded calls per attempt",
                super::record::MAX_RECORDED_BYTES >> 20
            ));
        }
        let (user_failures, user_stopped) = match &served.tools.user {
            Some(user) => user.failures(),
            None => (Vec::new(), None),
        };
        ServedCalls {
            calls,
            dropped,
            fired,
            missed,
            over_limits,
            user_failures,
            user_stopped,
        }
    }

    /// Requests refused for a missing or unknown token.
    pub fn unauthorized(&self) -> u64 {
        self.unauthorized.load(Ordering::Relaxed)
    }
}

/// The attempt a request is for, by its token; a reply when it is for none.
fn route(
    attempts: &Attempts,
    unauthorized: &AtomicU64,
    request: &Request<hyper::body::Incoming>,
) -> Result<(McpHttp, Arc<AttemptTools>), Box<McpResponse>> {
    if request.uri().path() != MCP_PATH {
        return Err(Box::new(reply(
            StatusCode::NOT_FOUND,
            format!("no MCP endpoint here; use {MCP_PATH}"),
        )));
    }
    let token = request
        .headers()
        .get(hyper::header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .map(str::trim);
    let found = token.and_then(|token| {
        attempts
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(token)
            .cloned()
    });
    let Some(found) = found else {
        unauthorized.fetch_add(1, Ordering::Relaxed);
        let mut response = reply(
            StatusCode::UNAUTHORIZED,
            "send Authorization: Bearer $PROCTOR_MCP_TOKEN (the token of a running attempt)"
                .to_owned(),
        );
        response.headers_mut().insert(
            hyper::header::WWW_AUTHENTICATE,
            hyper::header::HeaderValue::from_static("Bearer"),
        );
        return Err(Box::new(response));
    };
    Ok(found)
}

/// Reads the body (within [`MAX_REQUEST_BYTES`], and [`MAX_BODIES_IN_MEMORY`] over all
/// requests) and answers; a body over the limit is refused and counted on the attempt.
async fn serve(
    http: McpHttp,
    tools: &AttemptTools,
    request: Request<hyper::body::Incoming>,
    memory: &Semaphore,
) -> McpResponse {
    let declared = declared_length(request.headers());
    let too_large = |size: Option<u64>| {
        tools.oversized.fetch_add(1, Ordering::Relaxed);
        let size = size.unwrap_or(0);
        tools.oversized_bytes.fetch_max(size, Ordering::Relaxed);
        reply(
            StatusCode::PAYLOAD_TOO_LARGE,
            format!(
                "tools: request over the {} MiB limit; send smaller arguments",
                MAX_REQUEST_BYTES >> 20
            ),
        )
    };
    if let Some(size) = declared.filter(|size| *size > MAX_REQUEST_BYTES as u64) {
        return too_large(Some(size));
    }
    let claim = declared.map_or(MAX_REQUEST_BYTES, |size| size as usize);
    let (parts, body) = request.into_parts();
    // The share of the memory budget is held until the call is answered.
    let (body, _memory) = match read_body(body, claim, memory).await {
        Ok(read) => read,
        Err(BodyError::TooLarge) => return too_large(None),
        Err(error) => {
            return reply(
                StatusCode::BAD_REQUEST,
                format!("cannot read the body: {error}"),
            );
        }
    };
    if crate::otlp::bounds::json_values(&body).map_or(true, |n| n > MAX_REQUEST_VALUES) {
        tools.oversized.fetch_add(1, Ordering::Relaxed);
        return reply(
            StatusCode::PAYLOAD_TOO_LARGE,
            format!(
                "tools: request holds over {MAX_REQUEST_VALUES} JSON values or nests too deep; send smaller arguments"
            ),
        );
    }
    http.serve(Request::from_parts(parts, Full::new(body)))
        .await
}

fn reply(status: StatusCode, text: String) -> McpResponse {
    let mut response = hyper::Response::new(Full::new(Bytes::from(text)).boxed());
    *response.status_mut() = status;
    response
}
