//! `proctor mcp-bridge`: MCP over stdio for agents whose client only launches servers
//! (newline-delimited JSON-RPC on stdin and stdout), forwarded to the attempt's streamable
//! HTTP server at `PROCTOR_MCP_URL` with `Authorization: Bearer $PROCTOR_MCP_TOKEN`.
//!
//! Each message read from stdin is POSTed as it comes; the reply (a JSON body, or the
//! events of an SSE stream) is written to stdout one message a line. A request the server
//! cannot answer (no token, server gone) gets a JSON-RPC error naming why, so the client
//! never waits forever. Diagnostics go to stderr, never stdout.

use crate::args::McpBridgeArgs;
use crate::exit::InputContext;
use anyhow::Context;
use reqwest::header::{ACCEPT, AUTHORIZATION, CONTENT_TYPE, HeaderValue};
use serde_json::{Value, json};
use std::sync::{Arc, Mutex};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::sync::Mutex as AsyncMutex;

/// The longest message read from stdin or from the server.
const MAX_MESSAGE_BYTES: u64 = 16 << 20;
const SESSION_HEADER: &str = "mcp-session-id";
const VERSION_HEADER: &str = "mcp-protocol-version";

/// What the bridge learns from the server's replies and sends back on later requests.
#[derive(Debug, Default)]
struct Negotiated {
    session: Option<HeaderValue>,
    version: Option<HeaderValue>,
}

pub fn run(args: McpBridgeArgs) -> anyhow::Result<()> {
    let url = match args.url {
        Some(url) => url,
        None => std::env::var("PROCTOR_MCP_URL")
            .ok()
            .filter(|url| !url.is_empty())
            .input_context("PROCTOR_MCP_URL is not set: run the bridge inside an attempt of a task with tools:, or give --url")?,
    };
    let token = std::env::var("PROCTOR_MCP_TOKEN").unwrap_or_default();
    if token.is_empty() {
        crate::exit::bail_input!(
            "PROCTOR_MCP_TOKEN is not set: proctor gives it to attempts of tasks with tools:"
        );
    }
    let bearer = HeaderValue::from_str(&format!("Bearer {token}"))
        .input_context("PROCTOR_MCP_TOKEN is not a valid header value")?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    runtime.block_on(bridge(url, bearer))
}

async fn bridge(url: String, bearer: HeaderValue) -> anyhow::Result<()> {
    let http = reqwest::Client::builder()
        .build()
        .map_err(|e| crate::exit::infrastructure("cannot build the HTTP client", e))?;
    let stdout = Arc::new(AsyncMutex::new(tokio::io::stdout()));
    let negotiated = Arc::new(Mutex::new(Negotiated::default()));
    let mut stdin = BufReader::new(tokio::io::stdin());
    let mut pending = tokio::task::JoinSet::new();
    loop {
        let mut line = Vec::new();
        let read = (&mut stdin)
            .take(MAX_MESSAGE_BYTES + 1)
            .read_until(b'\n', &mut line)
            .await
            .context("cannot read stdin")?;
        if read == 0 {
            break;
        }
        if line.len() as u64 > MAX_MESSAGE_BYTES {
            crate::exit::bail_input!("a message on stdin is over {} MiB", MAX_MESSAGE_BYTES >> 20);
        }
        let Ok(message) = serde_json::from_slice::<Value>(&line) else {
            if !line.iter().all(u8::is_ascii_whitespace) {
                eprintln!("proctor mcp-bridge: a line on stdin is not JSON; skipped");
            }
            continue;
        };
        let initialize = message.get("method").and_then(Value::as_str) == Some("initialize");
        let (http, url, bearer) = (http.clone(), url.clone(), bearer.clone());
        let (stdout, negotiated) = (stdout.clone(), negotiated.clone());
        let forward = async move {
            let id = message.get("id").cloned();
            let replies = match forward(&http, &url, &bearer, &negotiated, &message).await {
                Ok(replies) => replies,
                Err(problem) => {
                    eprintln!("proctor mcp-bridge: {problem}");
                    match id {
                        Some(id) if message.get("method").is_some() => vec![json!({
                            "jsonrpc": "2.0", "id": id,
                            "error": {"code": -32000, "message": problem},
                        })],
                        _ => Vec::new(),
                    }
                }
            };
            let mut out = stdout.lock().await;
            for reply in replies {
                let mut text = reply.to_string();
                text.push('\n');
                if out.write_all(text.as_bytes()).await.is_err() {
                    return;
                }
            }
            let _ = out.flush().await;
        };
        // The initialize handshake is answered before anything else is sent.
        if initialize {
            forward.await;
        } else {
            pending.spawn(forward);
        }
    }
    while pending.join_next().await.is_some() {}
    Ok(())
}

/// POSTs one message and gives the server's replies.
async fn forward(
    http: &reqwest::Client,
    url: &str,
    bearer: &HeaderValue,
    negotiated: &Mutex<Negotiated>,
    message: &Value,
) -> Result<Vec<Value>, String> {
    let mut request = http
        .post(url)
        .header(AUTHORIZATION, bearer.clone())
        .header(CONTENT_TYPE, "application/json")
        .header(ACCEPT, "application/json, text/event-stream")
        .body(message.to_string());
    {
        let known = negotiated.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(session) = &known.session {
            request = request.header(SESSION_HEADER, session.clone());
        }
        if let Some(version) = &known.version {
            request = request.header(VERSION_HEADER, version.clone());
        }
    }
    let mut response = request
        .send()
        .await
        .map_err(|e| format!("cannot reach {url}: {e}"))?;
    if let Some(session) = response.headers().get(SESSION_HEADER) {
        negotiated.lock().unwrap_or_else(|e| e.into_inner()).session = Some(session.clone());
    }
    let status = response.status();
    let event_stream = response
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("text/event-stream"));
    let mut body = Vec::new();
    while let Some(chunk) = response
        .chunk()
        .await
        .map_err(|e| format!("reading the reply: {e}"))?
    {
        body.extend_from_slice(&chunk);
        if body.len() as u64 > MAX_MESSAGE_BYTES {
            return Err(format!("a reply is over {} MiB", MAX_MESSAGE_BYTES >> 20));
        }
    }
    if !status.is_success() {
        let text = String::from_utf8_lossy(&body);
        return Err(format!("the server answered {status}: {}", text.trim()));
    }
    let replies: Vec<Value> = if event_stream {
        sse_messages(&body)
    } else if body.iter().all(u8::is_ascii_whitespace) {
        Vec::new()
    } else {
        match serde_json::from_slice::<Value>(&body) {
            Ok(Value::Array(batch)) => batch,
            Ok(one) => vec![one],
            Err(e) => return Err(format!("the server's reply is not JSON: {e}")),
        }
    };
    if let Some(version) = replies
        .iter()
        .find_map(|r| r.pointer("/result/protocolVersion").and_then(Value::as_str))
        .and_then(|v| HeaderValue::from_str(v).ok())
    {
        negotiated.lock().unwrap_or_else(|e| e.into_inner()).version = Some(version);
    }
    Ok(replies)
}

/// The JSON messages in an SSE body: each event's `data:` lines joined by newlines.
fn sse_messages(body: &[u8]) -> Vec<Value> {
    let text = String::from_utf8_lossy(body);
    let mut messages = Vec::new();
    let mut data = String::new();
    for line in text.lines().chain(std::iter::once("")) {
        if line.is_empty() {
            if let Ok(message) = serde_json::from_str::<Value>(&data) {
                messages.push(message);
            }
            data.clear();
        } else if let Some(value) = line.strip_prefix("data:") {
            if !data.is_empty() {
                data.push('\n');
            }
            data.push_str(value.strip_prefix(' ').unwrap_or(value));
        }
    }
    messages
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sse_events_give_their_json_messages() {
        let body = b"id: 1\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n: ping\n\ndata: {\"jsonrpc\":\ndata: \"2.0\",\"method\":\"x\"}\n\ndata:\n\n";
        assert_eq!(
            sse_messages(body),
            [
                json!({"jsonrpc": "2.0", "id": 1, "result": {}}),
                json!({"jsonrpc": "2.0", "method": "x"}),
            ]
        );
    }
}
