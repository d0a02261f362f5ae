//! How a ledger's errors reach the command's failure (docs/exit-codes.md).

use proctor_ledger::book::LedgerError;

/// A ledger error as the commands return it. Its class is decided with every other's in
/// cli/src/exit.rs (docs/exit-codes.md): bad rows, headers and missing files are bad input
/// (exit 2); failing to lock, read or write an existing file is infrastructure (exit 3).
pub fn ledger_error(error: LedgerError) -> anyhow::Error {
    anyhow::Error::new(error)
}
