//! [`PriceError`]: why a price file could not be used.

use std::path::PathBuf;

/// A price file that could not be read, or a row in it that makes no sense.
///
/// Every message names the file, and where the problem is in it, the line and column.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PriceError {
    /// The file could not be read.
    #[error("{}: cannot read price file: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The file is not UTF-8 text.
    #[error("{}:{}: {at}; price files must be UTF-8", path.display(), at.line)]
    NotUtf8 {
        /// The file.
        path: PathBuf,
        /// Where its first bytes that are not UTF-8 are.
        at: proctor_core::utf8_text::NotUtf8,
    },
    /// Bad syntax, a bad value or a row that contradicts another.
    #[error("{}:{line}:{column}: {message}", path.display())]
    At {
        /// The file.
        path: PathBuf,
        /// 1-based line.
        line: usize,
        /// 1-based column, in characters.
        column: usize,
        /// What is wrong, lowercase.
        message: String,
    },
}
