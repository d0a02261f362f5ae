//! Errors from loading task files. Every message names the file, and where known the
//! line, the task and the field, because a typo must never silently disable a check.

use std::path::PathBuf;

/// Where in a task file a problem is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Place {
    pub file: PathBuf,
    pub line: Option<usize>,
    /// The task id, or `#N` (1-based position) when the task has no id yet.
    pub task: Option<String>,
}

impl std::fmt::Display for Place {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.file.display())?;
        if let Some(line) = self.line {
            write!(f, ":{line}")?;
        }
        if let Some(task) = &self.task {
            write!(f, ": task {task}")?;
        }
        Ok(())
    }
}

#[derive(Debug, thiserror::Error)]
pub enum TaskError {
    #[error("{path}: cannot read: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}: not UTF-8 at byte {offset}; task files must be UTF-8")]
    Encoding { path: PathBuf, offset: usize },
    #[error("{path}: unsupported task file extension (use .json, .jsonl, .yaml or .yml)")]
    Extension { path: PathBuf },
    #[error("{path}: no task files (.json, .jsonl, .yaml, .yml) in this folder")]
    EmptyFolder { path: PathBuf },
    #[error("{place}: {message}")]
    Syntax { place: Place, message: String },
    #[error("{place}: {message}")]
    Invalid { place: Place, message: String },
    #[error("{place}: duplicate task id (first defined at {first})")]
    Duplicate { place: Place, first: Box<Place> },
}
