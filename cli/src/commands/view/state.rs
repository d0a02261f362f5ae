//! What the server answers from: the latest list the watcher published, each run's file,
//! and the ledger. The watcher thread owns the [`Catalog`]; requests read only what it
//! published, so a slow look at the folders never holds a request.

use super::catalog::Catalog;
use super::listing::{Verdicts, runs_json};
use crate::run_record::RunRecord;
use bytes::Bytes;
use serde_json::Value;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// The shortest pause between two looks at the folders; a look that took long waits
/// longer, so watching a huge folder does not take a core.
const LOOK_EVERY: Duration = Duration::from_millis(250);

#[derive(Debug, Default)]
struct Published {
    version: u64,
    /// The list without its version, to tell whether it changed.
    unversioned: Vec<u8>,
    runs: Bytes,
    paths: HashMap<String, Listed>,
}

/// A listed file, as a request about it needs it.
#[derive(Debug, Clone)]
pub struct Listed {
    pub path: PathBuf,
    pub record: Option<RunRecord>,
    /// Why `report` refuses the file, when it does.
    pub error: Option<String>,
}

#[derive(Debug)]
pub struct Shared {
    roots: Vec<PathBuf>,
    published: Mutex<Published>,
    ledger: Option<PathBuf>,
    verdicts: Mutex<Verdicts>,
}

impl Shared {
    pub fn new(roots: Vec<PathBuf>, ledger: Option<PathBuf>) -> Shared {
        let shared = Shared {
            roots,
            published: Mutex::new(Published::default()),
            ledger,
            verdicts: Mutex::default(),
        };
        shared.publish_value(
            &serde_json::json!({
                "roots": shared.roots.iter().map(|r| r.display().to_string()).collect::<Vec<_>>(),
                "scanning": true,
                "notes": ["looking for results files…"],
                "runs": [],
            }),
            HashMap::new(),
        );
        shared
    }

    /// The list's version and its JSON.
    pub fn runs(&self) -> (u64, Bytes) {
        let published = self.lock();
        (published.version, published.runs.clone())
    }

    /// A listed run's file and record.
    pub fn path_of(&self, id: &str) -> Option<Listed> {
        self.lock().paths.get(id).cloned()
    }

    pub fn ledger(&self) -> Value {
        match &self.ledger {
            Some(path) => super::ledger::series(path),
            None => serde_json::json!({"series": []}),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Published> {
        self.published.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Publishes the catalog as it is now; the version moves only when the list changed.
    pub fn publish(&self, catalog: &Catalog) {
        let value = {
            let mut verdicts = self.verdicts.lock().unwrap_or_else(|e| e.into_inner());
            runs_json(catalog, &self.roots, jiff::Timestamp::now(), &mut verdicts)
        };
        let paths = catalog
            .entries
            .values()
            .map(|e| {
                let listed = Listed {
                    path: e.found.path.clone(),
                    record: e.record.clone(),
                    error: e.summary.error.clone(),
                };
                (e.id.clone(), listed)
            })
            .collect();
        self.publish_value(&value, paths);
    }

    fn publish_value(&self, value: &Value, paths: HashMap<String, Listed>) {
        let unversioned = serde_json::to_vec(value).expect("JSON values serialise");
        let mut published = self.lock();
        if published.version > 0 && published.unversioned == unversioned {
            return;
        }
        let mut value = value.clone();
        published.version += 1;
        value["version"] = Value::from(published.version);
        published.runs = Bytes::from(serde_json::to_vec(&value).expect("JSON values serialise"));
        published.unversioned = unversioned;
        published.paths = paths;
    }
}

/// Looks at the folders for as long as the process lives, publishing every change.
pub fn watch(mut catalog: Catalog, shared: std::sync::Arc<Shared>) {
    loop {
        let started = Instant::now();
        if catalog.refresh(|c| shared.publish(c)) || catalog.entries.values().any(|e| e.live) {
            shared.publish(&catalog);
        }
        std::thread::sleep(LOOK_EVERY.max(started.elapsed() * 3));
    }
}
