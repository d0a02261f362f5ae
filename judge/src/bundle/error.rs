//! Why the bundle could not be built.

use std::path::PathBuf;

/// A bundle failure; each message names the path or pattern.
#[derive(Debug, thiserror::Error)]
pub enum BundleError {
    /// A `judge_files` pattern does not parse.
    #[error("judge_files pattern {pattern:?} is not a valid glob: {detail}")]
    Glob {
        /// The pattern as written in the task (all of them, `, `-joined, when only the set
        /// as a whole fails).
        pattern: String,
        /// The glob parser's complaint.
        detail: String,
    },
    /// The sandbox directory could not be opened.
    #[error("cannot read the sandbox {path}: {source}")]
    Sandbox {
        /// The sandbox directory.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// Reading the task's `files_dir` for the seed failed.
    #[error("cannot read the seed files in {path}: {source}")]
    Seed {
        /// The directory or file that failed.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
}
