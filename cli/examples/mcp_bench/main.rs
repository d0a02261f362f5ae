//! The agent of `bench/mcp/`: measures a tool call served by proctor against bare loopback
//! HTTP request/responses of the same size, with the same HTTP client (reqwest, one
//! kept-alive connection to each server) and the same request bytes, interleaved in rounds.
//!
//! The baselines ([`bare`]) answer every POST with a fixed body as long as the served
//! call's reply: a server in a separate process on a multi-thread runtime (the plain hyper
//! echo server, what the 2x target is measured against), the same on a single-threaded
//! runtime, and a server inside this process on this process's own runtime. The
//! measurements go into the outcome's answer as JSON (medians of per-round means,
//! microseconds per request).
//!
//! Usage (inside `proctor run`, which gives PROCTOR_MCP_URL and PROCTOR_MCP_TOKEN):
//! `mcp_bench [CALLS_PER_ROUND] [ROUNDS]`; `mcp_bench --serve-bare multi|current` is the
//! separate baseline server, which the agent starts itself.

mod bare;

use bytes::Bytes;
use serde_json::json;
use std::error::Error;
use std::time::Instant;

fn main() -> Result<(), Box<dyn Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some(bare::SERVE_FLAG) {
        return bare::main(args.get(1).map(String::as_str));
    }
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?
        .block_on(agent(&args))
}

async fn agent(args: &[String]) -> Result<(), Box<dyn Error>> {
    let mut line = String::new();
    std::io::stdin().read_line(&mut line)?;
    let mut args = args.iter();
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
    // The same request, headers and body to every server: only the address differs.
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
    let reply = post(&url).await?;
    if !reply.windows(9).any(|w| w == b"\"result\":") {
        return Err(format!(
            "the served call failed: {}",
            String::from_utf8_lossy(&reply)
        )
        .into());
    }
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", 0)).await?;
    let in_process = format!("http://{}/", listener.local_addr()?);
    tokio::spawn(bare::serve(listener, reply.clone()));
    let multi = bare::Separate::start(bare::Flavor::MultiThread, &reply).await?;
    let current = bare::Separate::start(bare::Flavor::CurrentThread, &reply).await?;
    // Each round times every side in turn, in this order.
    let sides = [url.as_str(), &multi.url, &current.url, &in_process];
    for to in sides {
        for _ in 0..50 {
            if post(to).await?.len() != reply.len() {
                return Err(format!("{to} answered with another length").into());
            }
        }
    }
    let mut means: [Vec<f64>; 4] = Default::default();
    for _ in 0..rounds {
        for (side, to) in sides.iter().enumerate() {
            let started = Instant::now();
            for _ in 0..calls {
                post(to).await?;
            }
            means[side].push(started.elapsed().as_secs_f64() * 1e6 / calls as f64);
        }
    }
    let [served, multi, current, in_process] = means.map(|mut v| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    });
    let us = |v: f64| (v * 10.0).round() / 10.0;
    let ratio = |baseline: f64| (served / baseline * 100.0).round() / 100.0;
    let answer = json!({
        "calls": calls * rounds,
        "rounds": rounds,
        "reply_bytes": reply.len(),
        "request_bytes": body.len(),
        "served_us": us(served),
        "echo_us": us(multi),
        "echo_current_thread_us": us(current),
        "in_process_us": us(in_process),
        "ratio": ratio(multi),
        "ratio_current_thread": ratio(current),
        "ratio_in_process": ratio(in_process),
    });
    let outcome = json!({"status": "final", "answer": answer.to_string()});
    std::fs::write(std::env::var("PROCTOR_OUTCOME")?, outcome.to_string())?;
    Ok(())
}
