//! [`LedgerRow`]: one attempt's calls to one model in one role, and how it is written.

use super::columns::{LEDGER_COLUMNS, LEDGER_FORMAT};
use super::guard::guard;
use crate::TokenCounts;
use proctor_core::result::CallRole;
use rust_decimal::Decimal;
use std::io::Write;

/// One ledger row (docs/cost.md, plus the columns described in the `columns` module, next to [`LEDGER_COLUMNS`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LedgerRow {
    /// When the attempt ran (RFC 3339, UTC): the time its calls were priced at.
    pub recorded_at: String,
    /// The invocation that added the row.
    pub run_id: String,
    /// The task suite.
    pub suite: String,
    /// The agent version.
    pub label: String,
    /// The task id.
    pub task: String,
    /// The attempt number.
    pub attempt: u64,
    /// `None` when ungraded.
    pub passed: Option<bool>,
    /// Agent or judge.
    pub role: CallRole,
    /// As the usage named it; empty when it did not.
    pub provider: String,
    /// As the usage named it; empty for an attempt that reported no usage.
    pub model: String,
    /// Summed over the row's calls.
    pub tokens: TokenCounts,
    /// `None` when unpriced (or no calls).
    pub cost_usd: Option<Decimal>,
    /// The price row used; empty when unpriced.
    pub price_id: String,
    /// The service tier, when not the standard one.
    pub service_tier: String,
    /// How many model calls the row sums.
    pub calls: u64,
}

impl LedgerRow {
    /// Writes the row; text cells are guarded against formula injection.
    ///
    /// # Errors
    ///
    /// The writer's I/O error.
    pub fn write<W: Write>(&self, out: &mut csv::Writer<W>) -> csv::Result<()> {
        let t = &self.tokens;
        let passed = match self.passed {
            Some(true) => "true",
            Some(false) => "false",
            None => "",
        };
        let cost = self
            .cost_usd
            .map(|c| c.normalize().to_string())
            .unwrap_or_default();
        let cells: [&str; 21] = [
            &guard(&self.recorded_at),
            &guard(&self.run_id),
            &guard(&self.suite),
            &guard(&self.label),
            &guard(&self.task),
            &self.attempt.to_string(),
            passed,
            self.role.as_str(),
            &guard(&self.provider),
            &guard(&self.model),
            &t.input_tokens.to_string(),
            &t.cache_read_tokens.to_string(),
            &t.cache_write_tokens().to_string(),
            &t.output_tokens.to_string(),
            &t.reasoning_tokens.to_string(),
            &cost,
            &guard(&self.price_id),
            &t.cache_write_1h_tokens.to_string(),
            &guard(&self.service_tier),
            &self.calls.to_string(),
            LEDGER_FORMAT,
        ];
        out.write_record(cells)
    }
}

/// A CSV writer with the ledger's quoting: RFC 4180 quotes where needed, `\n` line ends.
pub fn csv_writer<W: Write>(out: W) -> csv::Writer<W> {
    csv::WriterBuilder::new()
        .quote_style(csv::QuoteStyle::Necessary)
        .from_writer(out)
}

/// Writes the header.
///
/// # Errors
///
/// The writer's I/O error.
pub fn write_header<W: Write>(out: &mut csv::Writer<W>) -> csv::Result<()> {
    out.write_record(LEDGER_COLUMNS)
}
