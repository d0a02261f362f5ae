//! [`LedgerError`]: why a ledger could not be read or written.

use std::path::PathBuf;

/// A ledger problem, naming the file and, for a bad row, its line and column.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum LedgerError {
    /// The file could not be opened, read, locked or written.
    #[error("{}: {what}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// What was being done.
        what: &'static str,
        /// Why it failed.
        source: std::io::Error,
    },
    /// A bad header or row; `column` is the 1-based CSV field.
    #[error("{}:{line}:{column}: {message}", path.display())]
    At {
        /// The file.
        path: PathBuf,
        /// 1-based line.
        line: u64,
        /// 1-based field number.
        column: usize,
        /// What is wrong, naming the column.
        message: String,
    },
}

impl LedgerError {
    pub(crate) fn io(path: &std::path::Path, what: &'static str, source: std::io::Error) -> Self {
        LedgerError::Io {
            path: path.to_owned(),
            what,
            source,
        }
    }
}
