//! Serving a page on 127.0.0.1 until Ctrl-C, as `proctor review` and `proctor view` do: a
//! fresh token, the address printed first on standard output, a line on standard error, then
//! the server until interrupted.

use crate::loopback::Listener;
use crate::loopback::page_server::Gate;
use anyhow::Context;
use std::io::Write;
use std::sync::Arc;
use tokio::net::TcpListener;

/// Serves the page of `command` on `port` (0: a free one) until Ctrl-C, then hands the app
/// back for the command's closing words. `app` is made once the port is known; `serve`
/// starts the command's own routes.
pub fn serve_until_interrupted<A>(
    port: u16,
    command: &'static str,
    hint: &str,
    app: impl FnOnce(Gate) -> Arc<A>,
    serve: impl FnOnce(TcpListener, Arc<A>) -> std::io::Result<Listener>,
) -> anyhow::Result<Arc<A>> {
    let token =
        crate::loopback::token::new_token().context("cannot read the OS's random source")?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    runtime.block_on(async move {
        let listener = crate::loopback::bind(port).await.map_err(|e| {
            crate::exit::infrastructure(format!("cannot listen on 127.0.0.1:{port}"), e)
        })?;
        let gate = Gate {
            token,
            port: listener.local_addr()?.port(),
            command,
        };
        {
            let mut out = crate::exit::stdout();
            let written = writeln!(out, "{}", gate.address());
            out.close(written.map_err(crate::exit::stdout_error))?;
        }
        eprintln!("proctor: {command}: open the address above in a browser; Ctrl-C stops ({hint})");
        let app = app(gate);
        let serving = serve(listener, app.clone())
            .map_err(|e| crate::exit::infrastructure(format!("cannot serve the {command}"), e))?;
        let _ = tokio::signal::ctrl_c().await;
        drop(serving);
        Ok(app)
    })
}
