//! Why the bundle could not be built.

use std::path::PathBuf;

/// A bundle failure; each message names the path or pattern.
#[derive(Debug, thiserror::Error)]
pub enum BundleError {
    #[error("judge_files pattern {pattern:?} is not a valid glob: {detail}")]
    Glob { pattern: String, detail: String },
    #[error("cannot read the sandbox {path}: {source}")]
    Sandbox {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot read the seed files in {path}: {source}")]
    Seed {
        path: PathBuf,
        source: std::io::Error,
    },
}
