//! The agent of `bench/mcp/`: measures a tool call served by proctor against a bare
//! loopback HTTP request/response of the same size, in the same process with the same
//! HTTP client (reqwest, one kept-alive connection each), interleaved in rounds.
//!
//! The baseline server is a minimal hyper server started here on 127.0.0.1 that answers
//! every POST with a fixed body as long as the served call's reply. The measurements go
//! into the outcome's answer as JSON: `{"calls", "served_us", "bare_us", "ratio", ...}`
//! (medians of per-round means, microseconds per request).
//!
//! Usage (inside `proctor run`, which gives PROCTOR_MCP_URL and PROCTOR_MCP_TOKEN):
//! `mcp_bench [CALLS_PER_ROUND] [ROUNDS]`.

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use serde_json::json;
use std::convert::Infallible;
use std::time::Instant;

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut line = String::new();
    std::io::stdin().read_line(&mut line)?;
    let mut args = std::env::args().skip(1);
    let calls: usize = args.next().map_or(Ok(500), |a| a.parse())?;
    let rounds: usize = args.next().map_or(Ok(7), |a| a.parse())?;
    let url = std::env::var("PROCTOR_MCP_URL")?;
    let bearer = format!("Bearer {}", std::env::var("PROCTOR_MCP_TOKEN")?);
    let client = reqwest::Client::builder()
        .pool_max_idle_per_host(1)
        .build()?;
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "get_order", "arguments": {"order_id": "A1"}}})
    .to_string();
    // The same request, headers and body to either server: only the address differs.
    let post = async |to: &str| -> Result<Bytes, reqwest::Error> {
        client
            .post(to)
            .header("authorization", &bearer)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header("mcp-protocol-version", "2025-03-26")
            .body(body.clone())
            .send()
            .await?
            .error_for_status()?
            .bytes()
            .await
    };
    let served = async || post(&url).await;
    let reply = served().await?;
    if !reply.windows(9).any(|w| w == b"\"result\":") {
        return Err(format!(
            "the served call failed: {}",
            String::from_utf8_lossy(&reply)
        )
        .into());
    }
    // The baseline: the same number of bytes back, from a server that does nothing else.
    let fixed = reply.clone();
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", 0)).await?;
    let bare_url = format!("http://{}/", listener.local_addr()?);
    tokio::spawn(async move {
        loop {
            let Ok((stream, _)) = listener.accept().await else {
                continue;
            };
            let _ = stream.set_nodelay(true);
            let fixed = fixed.clone();
            tokio::spawn(async move {
                let service = service_fn(move |request: hyper::Request<hyper::body::Incoming>| {
                    let fixed = fixed.clone();
                    async move {
                        let _ = request.into_body().collect().await;
                        let mut response = hyper::Response::new(Full::new(fixed));
                        response.headers_mut().insert(
                            "content-type",
                            hyper::header::HeaderValue::from_static("application/json"),
                        );
                        Ok::<_, Infallible>(response)
                    }
                });
                let _ = http1::Builder::new()
                    .serve_connection(TokioIo::new(stream), service)
                    .await;
            });
        }
    });
    let bare = async || post(&bare_url).await;
    for _ in 0..50 {
        served().await?;
        bare().await?;
    }
    let (mut served_us, mut bare_us) = (Vec::new(), Vec::new());
    for _ in 0..rounds {
        let started = Instant::now();
        for _ in 0..calls {
            bare().await?;
        }
        bare_us.push(started.elapsed().as_secs_f64() * 1e6 / calls as f64);
        let started = Instant::now();
        for _ in 0..calls {
            served().await?;
        }
        served_us.push(started.elapsed().as_secs_f64() * 1e6 / calls as f64);
    }
    let median = |mut v: Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    let (served_us, bare_us) = (median(served_us), median(bare_us));
    let answer = json!({
        "calls": calls * rounds,
        "rounds": rounds,
        "reply_bytes": reply.len(),
        "request_bytes": body.len(),
        "served_us": (served_us * 10.0).round() / 10.0,
        "bare_us": (bare_us * 10.0).round() / 10.0,
        "ratio": (served_us / bare_us * 100.0).round() / 100.0,
    });
    let outcome = json!({"status": "final", "answer": answer.to_string()});
    std::fs::write(std::env::var("PROCTOR_OUTCOME")?, outcome.to_string())?;
    Ok(())
}
