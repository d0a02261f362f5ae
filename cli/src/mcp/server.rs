//! The MCP listener of a run: streamable HTTP at `http://127.0.0.1:PORT/mcp`. Each attempt
//! with served tools registers under a random bearer token; a request is served only with
//! `Authorization: Bearer TOKEN` of an attempt still running, which also picks that
//! attempt's tools and recorder. Anything else gets a 401 and is counted.

use super::attempt::AttemptTools;
use super::record::RecordedCall;
use super::rmcp_adapter::{McpHttp, McpResponse};
use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Request, StatusCode};
use hyper_util::rt::TokioIo;
use std::collections::HashMap;
use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use tokio::net::TcpListener;
use tokio::task::JoinHandle;

/// The path the tools are served at.
pub const MCP_PATH: &str = "/mcp";

type Attempts = Mutex<HashMap<String, (McpHttp, Arc<AttemptTools>)>>;

/// A running listener; it stops when dropped.
#[derive(Debug)]
pub struct ToolServer {
    pub address: SocketAddr,
    attempts: Arc<Attempts>,
    unauthorized: Arc<AtomicU64>,
    accepting: JoinHandle<()>,
}

/// An attempt's place in the server, until [`ToolServer::finish`].
#[derive(Debug)]
pub struct Served {
    pub token: String,
    tools: Arc<AttemptTools>,
}

/// What an attempt's agent did with its tools.
#[derive(Debug)]
pub struct ServedCalls {
    pub calls: Vec<RecordedCall>,
    /// Calls over the recording limit, answered with an error and not kept.
    pub dropped: u64,
    /// The faults that fired, in the order they fired.
    // Listed on the result line once it has `faults_fired`.
    #[allow(dead_code)]
    pub fired: Vec<proctor_core::faults::FaultFired>,
}

impl ToolServer {
    /// Listens on a random loopback port, on the current tokio runtime.
    pub async fn start() -> std::io::Result<ToolServer> {
        let listener = TcpListener::bind(("127.0.0.1", 0)).await?;
        let address = listener.local_addr()?;
        let attempts: Arc<Attempts> = Arc::default();
        let unauthorized = Arc::new(AtomicU64::new(0));
        let (shared, refused) = (attempts.clone(), unauthorized.clone());
        let accepting = tokio::spawn(async move {
            loop {
                let Ok((stream, _)) = listener.accept().await else {
                    continue;
                };
                let _ = stream.set_nodelay(true);
                let (attempts, refused) = (shared.clone(), refused.clone());
                tokio::spawn(async move {
                    let service = service_fn(move |request| {
                        let (attempts, refused) = (attempts.clone(), refused.clone());
                        async move { Ok::<_, Infallible>(respond(&attempts, &refused, request).await) }
                    });
                    // A client that hangs up mid-request only ends its own connection.
                    let _ = http1::Builder::new()
                        .serve_connection(TokioIo::new(stream), service)
                        .await;
                });
            }
        });
        Ok(ToolServer {
            address,
            attempts,
            unauthorized,
            accepting,
        })
    }

    /// `PROCTOR_MCP_URL`.
    pub fn url(&self) -> String {
        format!("http://{}{MCP_PATH}", self.address)
    }

    /// Serves `tools` under a fresh token until [`ToolServer::finish`].
    pub fn register(&self, tools: AttemptTools) -> Served {
        let random = crate::otlp::collector::random_bytes::<32>();
        let token = proctor_core::trace::hex_id(&random);
        let tools = Arc::new(tools);
        let http = McpHttp::new(tools.clone());
        self.attempts
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(token.clone(), (http, tools.clone()));
        Served { token, tools }
    }

    /// Stops serving the attempt (its token is refused from now on) and gives its calls.
    pub fn finish(&self, served: Served) -> ServedCalls {
        self.attempts
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&served.token);
        let (calls, dropped) = served.tools.recorder.take();
        let fired =
            std::mem::take(&mut *served.tools.fired.lock().unwrap_or_else(|e| e.into_inner()));
        ServedCalls {
            calls,
            dropped,
            fired,
        }
    }

    /// Requests refused for a missing or unknown token.
    pub fn unauthorized(&self) -> u64 {
        self.unauthorized.load(Ordering::Relaxed)
    }
}

impl Drop for ToolServer {
    fn drop(&mut self) {
        self.accepting.abort();
    }
}

async fn respond(
    attempts: &Attempts,
    unauthorized: &AtomicU64,
    request: Request<hyper::body::Incoming>,
) -> McpResponse {
    if request.uri().path() != MCP_PATH {
        return reply(
            StatusCode::NOT_FOUND,
            format!("no MCP endpoint here; use {MCP_PATH}"),
        );
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
            .map(|(http, _)| http.clone())
    });
    let Some(http) = found else {
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
        return response;
    };
    http.serve(request).await
}

fn reply(status: StatusCode, text: String) -> McpResponse {
    let mut response = hyper::Response::new(Full::new(Bytes::from(text)).boxed());
    *response.status_mut() = status;
    response
}
