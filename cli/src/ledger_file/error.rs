//! How a ledger's errors become the command's failure (docs/exit-codes.md).

use crate::exit::Failure;
use proctor_ledger::book::LedgerError;

/// Bad rows, headers and missing files are bad input (exit 2); failing to lock, read or
/// write an existing file is an infrastructure failure (exit 3).
pub fn ledger_error(error: LedgerError) -> anyhow::Error {
    use std::io::ErrorKind::{NotFound, PermissionDenied};
    match &error {
        LedgerError::Io { source, .. } if !matches!(source.kind(), NotFound | PermissionDenied) => {
            anyhow::Error::new(Failure::Infrastructure(error.to_string()))
        }
        _ => anyhow::Error::new(error),
    }
}
