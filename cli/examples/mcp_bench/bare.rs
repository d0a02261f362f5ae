//! The baselines: a minimal hyper HTTP/1 server on 127.0.0.1 (as proctor's listener is) that
//! answers every request with a fixed body, as long as the served call's reply, and does
//! nothing else.
//!
//! It runs either inside the bench agent (on the agent's own single-threaded runtime, so an
//! exchange with it never wakes another thread) or as a separate process: this binary run
//! again with `--serve-bare multi|current`. The separate process is "a bare loopback HTTP
//! echo" as any program would talk to one: each exchange crosses into another process and
//! back, as a served call does.

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use std::convert::Infallible;
use std::error::Error;
use std::io::{BufRead, Read, Write};
use std::process::Stdio;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpListener;
use tokio::process::{Child, ChildStdin, Command};

/// The first argument that makes this binary the separate baseline server.
pub const SERVE_FLAG: &str = "--serve-bare";

/// The separate server's tokio runtime.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flavor {
    /// What `#[tokio::main]` gives: a worker thread per core. The plain hyper server.
    MultiThread,
    /// One thread, as the bench agent itself runs.
    CurrentThread,
}

impl Flavor {
    fn arg(self) -> &'static str {
        match self {
            Flavor::MultiThread => "multi",
            Flavor::CurrentThread => "current",
        }
    }
}

/// Accepts connections on `listener` for ever; every request is read whole and answered
/// with `body`.
pub async fn serve(listener: TcpListener, body: Bytes) {
    loop {
        let Ok((stream, _)) = listener.accept().await else {
            continue;
        };
        let _ = stream.set_nodelay(true);
        let body = body.clone();
        tokio::spawn(async move {
            let service = service_fn(move |request: hyper::Request<hyper::body::Incoming>| {
                let body = body.clone();
                async move {
                    let _ = request.into_body().collect().await;
                    let mut response = hyper::Response::new(Full::new(body));
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
}

/// The baseline server in a process of its own; it ends when this handle is dropped.
#[derive(Debug)]
pub struct Separate {
    pub url: String,
    _child: Child,
    /// Kept open: the server exits when it reads the end of its stdin.
    _stdin: ChildStdin,
}

impl Separate {
    /// Starts this binary as the server, answering with `body` (one line of JSON).
    pub async fn start(flavor: Flavor, body: &[u8]) -> Result<Separate, Box<dyn Error>> {
        if body.contains(&b'\n') {
            return Err("the baseline body is passed as one line".into());
        }
        let mut child = Command::new(std::env::current_exe()?)
            .args([SERVE_FLAG, flavor.arg()])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .kill_on_drop(true)
            .spawn()?;
        let mut stdin = child.stdin.take().ok_or("no stdin")?;
        stdin.write_all(body).await?;
        stdin.write_all(b"\n").await?;
        stdin.flush().await?;
        let mut address = String::new();
        BufReader::new(child.stdout.take().ok_or("no stdout")?)
            .read_line(&mut address)
            .await?;
        if address.trim().is_empty() {
            return Err("the separate baseline server did not start".into());
        }
        Ok(Separate {
            url: format!("http://{}/", address.trim()),
            _child: child,
            _stdin: stdin,
        })
    }
}

/// The separate server's `main`: reads the body from stdin, prints its address, serves
/// until stdin ends (the bench agent has finished or died).
pub fn main(flavor: Option<&str>) -> Result<(), Box<dyn Error>> {
    let runtime = match flavor {
        Some("multi") => tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build()?,
        Some("current") => tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?,
        _ => return Err(format!("usage: mcp_bench {SERVE_FLAG} multi|current").into()),
    };
    let mut body = String::new();
    std::io::stdin().lock().read_line(&mut body)?;
    let body = Bytes::from(body.trim_end_matches('\n').to_owned());
    // Off the runtime, so the server's threads do nothing but serve.
    std::thread::spawn(|| {
        let _ = std::io::stdin().read_to_end(&mut Vec::new());
        std::process::exit(0);
    });
    runtime.block_on(async move {
        let listener = TcpListener::bind(("127.0.0.1", 0)).await?;
        let mut stdout = std::io::stdout().lock();
        writeln!(stdout, "{}", listener.local_addr()?)?;
        stdout.flush()?;
        drop(stdout);
        serve(listener, body).await;
        Ok(())
    })
}
