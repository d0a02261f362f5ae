//! The ledger (docs/cost.md): a CSV file with one row per attempt, role and model, only
//! ever appended to.

mod append;
mod columns;
mod error;
mod from_result;
mod guard;
mod key;
mod read;
mod row;

pub use append::{AppendReport, LedgerBatch, append_rows};
pub use columns::{Col, LEDGER_COLUMNS, LEDGER_FORMAT};
pub use error::LedgerError;
pub use from_result::{RowContext, rows_of_result};
pub use guard::guard;
pub use read::{LedgerReader, RawRow};
pub use row::LedgerRow;
pub(crate) use row::{csv_writer, write_header};

pub(crate) use key::{DigestSet, attempt_key};
/// Builds foldhash's fast hashers with a fixed seed, for maps keyed by ledger rows' own values.
pub(crate) type FastBuild = foldhash::fast::FixedState;
pub(crate) use read::parse_u64;
