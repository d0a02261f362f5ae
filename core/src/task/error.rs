//! Errors from loading task files. Every message names the file, and where known the
//! line, the task and the field, because a typo must never silently disable a check.

use std::path::PathBuf;

/// Where in a task file a problem is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Place {
    /// The task file.
    pub file: PathBuf,
    /// The 1-based line, when the parser knows it.
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

/// Why a task file (or folder of them) cannot be loaded.
#[derive(Debug, thiserror::Error)]
pub enum TaskError {
    /// The file or folder could not be read.
    #[error("{path}: cannot read: {source}")]
    Read {
        /// The file or folder at fault.
        path: PathBuf,
        /// The underlying read error.
        source: std::io::Error,
    },
    /// The file is not UTF-8.
    #[error("{path}:{line}: not UTF-8 at byte {offset}; task files must be UTF-8")]
    Encoding {
        /// The file or folder at fault.
        path: PathBuf,
        /// The 1-based line of the first invalid byte.
        line: usize,
        /// The byte offset of the first invalid byte.
        offset: usize,
    },
    /// The extension is not one of .json, .jsonl, .yaml or .yml.
    #[error("{path}: unsupported task file extension (use .json, .jsonl, .yaml or .yml)")]
    Extension {
        /// The file or folder at fault.
        path: PathBuf,
    },
    /// A folder holds no task files.
    #[error("{path}: no task files (.json, .jsonl, .yaml, .yml) in this folder")]
    EmptyFolder {
        /// The file or folder at fault.
        path: PathBuf,
    },
    /// The file is not valid JSON or YAML.
    #[error("{place}: {message}")]
    Syntax {
        /// Where the problem is.
        place: Place,
        /// What is wrong, in the parser's or validator's words.
        message: String,
    },
    /// A task is well-formed but breaks a rule of the task format (unknown field, bad value).
    #[error("{place}: {message}")]
    Invalid {
        /// Where the problem is.
        place: Place,
        /// What is wrong, in the parser's or validator's words.
        message: String,
    },
    /// Two tasks share an id.
    #[error("{place}: duplicate task id (first defined at {first})")]
    Duplicate {
        /// Where the problem is.
        place: Place,
        /// Where the task id was first defined.
        first: Box<Place>,
    },
}
