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

use anyhow::Context;
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
    crate::commands::served_page::serve_until_interrupted(
        args.port,
        "view",
        "nothing is written but the summary cache",
        |gate| Arc::new(server::App { shared, gate }),
        server::serve,
    )?;
    Ok(())
}
