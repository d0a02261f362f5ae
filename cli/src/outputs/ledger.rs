//! The cost ledger (`--ledger`): rows of every attempt, committed in one batch at the end.

use super::{Attempt, AttemptSink, Reads};
use crate::ledger_file::LedgerRows;

/// Gathers the ledger rows of every attempt whose result line was built.
#[derive(Debug)]
pub struct LedgerOut(Option<LedgerRows>);

impl LedgerOut {
    pub fn new(rows: Option<LedgerRows>) -> LedgerOut {
        LedgerOut(rows)
    }
}

impl AttemptSink for LedgerOut {
    /// A row per model of each attempt: its cost, label, times and outcome.
    fn reads(&self) -> Reads {
        match self.0 {
            Some(_) => Reads::LINE,
            None => Reads::NOTHING,
        }
    }

    fn attempt(&mut self, attempt: &Attempt<'_>) -> anyhow::Result<()> {
        match (&mut self.0, attempt.line) {
            (Some(rows), Some(line)) => rows.push(line),
            _ => Ok(()),
        }
    }

    /// Rows of every finished attempt, also when the command stops early.
    fn close(&mut self) -> anyhow::Result<()> {
        match self.0.take() {
            Some(rows) => rows.commit(),
            None => Ok(()),
        }
    }
}
