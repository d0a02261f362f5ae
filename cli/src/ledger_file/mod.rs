//! The cost ledger's file (docs/cost.md) as the commands and outputs use it: rows appended
//! in one locked batch, a report read under a shared lock, and how the ledger's errors
//! become exit codes.

pub mod error;
pub mod report;
pub mod rows;
mod suite;

pub use rows::LedgerRows;
