//! `proctor view`: every run under some folders in a browser, followed live
//! (docs/viewing.md).
//!
//! A watcher thread finds results files by their content ([`found`]), summarises each as
//! `report` would ([`summary`], kept in [`cache`]), follows files a run is writing
//! ([`live`]) and publishes the list ([`listing`], [`state`]). The server ([`server`]) answers
//! the page from what was published, and makes a run's page or a comparison with the
//! commands' own code ([`pages`]), streaming pages as they are written ([`streamed`]); [`ledger`] adds a ledger's cost to the history.

mod cache;
mod catalog;
mod found;
mod ledger;
mod listing;
mod live;
mod pages;
mod server;
mod state;
mod streamed;
mod summary;

pub use crate::args::ViewArgs;

use crate::loopback::page_server::Gate;
use anyhow::Context;
use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;

pub fn run(args: ViewArgs) -> anyhow::Result<()> {
    let given = if args.paths.is_empty() {
        vec![PathBuf::from(".")]
    } else {
        args.paths.clone()
    };
    let mut roots = Vec::with_capacity(given.len());
    for path in &given {
        let root = std::fs::canonicalize(path)
            .map_err(|e| crate::exit::bad_input!("{}: cannot view: {e}", path.display()))?;
        roots.push(root);
    }
    if let Some(ledger) = &args.ledger
        && !ledger.is_file()
    {
        crate::exit::bail_input!("{}: no such ledger file", ledger.display());
    }
    let (cache, note) = cache::Cache::open(args.cache.as_deref(), &roots);
    if let Some(note) = note {
        eprintln!("proctor: note: {note}");
    }
    let shared = Arc::new(state::Shared::new(roots.clone(), args.ledger.clone()));
    let catalog = catalog::Catalog::new(roots, cache);
    {
        let shared = shared.clone();
        std::thread::Builder::new()
            .name("view-watcher".to_owned())
            .spawn(move || state::watch(catalog, shared))
            .context("cannot start the folder watcher")?;
    }
    let token =
        crate::loopback::token::new_token().context("cannot read the OS's random source")?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    runtime.block_on(async move {
        let listener = crate::loopback::bind(args.port).await.map_err(|e| {
            crate::exit::infrastructure(format!("cannot listen on 127.0.0.1:{}", args.port), e)
        })?;
        let port = listener.local_addr()?.port();
        let app = Arc::new(server::App {
            shared,
            gate: Gate {
                token,
                port,
                command: "view",
            },
        });
        {
            let mut out = crate::exit::stdout();
            let written = writeln!(out, "{}", app.gate.address());
            out.close(written.map_err(crate::exit::stdout_error))?;
        }
        eprintln!(
            "proctor: view: open the address above in a browser; Ctrl-C stops (nothing is written but the summary cache)"
        );
        let serving = server::serve(listener, app)
            .map_err(|e| crate::exit::infrastructure("cannot serve the view", e))?;
        let _ = tokio::signal::ctrl_c().await;
        drop(serving);
        Ok(())
    })
}
