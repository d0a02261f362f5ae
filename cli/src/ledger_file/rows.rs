//! [`LedgerRows`]: the ledger rows of a command that grades (`grade --ledger`, and `run
//! --ledger`), gathered as results are made and appended in one locked batch at the end.

use super::error::ledger_error;
use super::suite::suite_name;
use crate::args::CostArgs;
use crate::usage_cost::Pricer;
use jiff::Timestamp;
use proctor_core::result::ResultLine;
use proctor_ledger::book::{LedgerBatch, RowContext, rows_of_result};
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};

/// Rows waiting for the end of the command.
#[derive(Debug)]
pub struct LedgerRows {
    path: PathBuf,
    batch: LedgerBatch,
    run_id: String,
    suite: String,
    now: Timestamp,
}

impl LedgerRows {
    /// Rows for `--ledger`, if given: the suite is `--suite`, else named after `tasks`.
    pub fn open(
        cost: &CostArgs,
        tasks: &Path,
        pricer: &Pricer,
    ) -> anyhow::Result<Option<LedgerRows>> {
        let Some(path) = &cost.ledger else {
            return Ok(None);
        };
        let suite = cost.suite.clone().unwrap_or_else(|| suite_name(tasks));
        LedgerRows::for_suite(path, suite, pricer.now()).map(Some)
    }

    /// Rows of `suite`; the run id is 12 hex digits of a hash of the start time, the
    /// process id and the ledger path, unique per invocation.
    pub fn for_suite(path: &Path, suite: String, now: Timestamp) -> anyhow::Result<LedgerRows> {
        let mut hasher = Sha256::new();
        hasher.update(now.as_nanosecond().to_le_bytes());
        hasher.update(std::process::id().to_le_bytes());
        hasher.update(path.as_os_str().as_encoded_bytes());
        let run_id = hasher
            .finalize()
            .iter()
            .take(6)
            .map(|b| format!("{b:02x}"))
            .collect();
        Ok(LedgerRows {
            path: path.to_owned(),
            batch: LedgerBatch::new().map_err(ledger_error)?,
            run_id,
            suite,
            now,
        })
    }

    /// Adds the rows of one result line.
    pub fn push(&mut self, line: &ResultLine) -> anyhow::Result<()> {
        let ctx = RowContext {
            // `run` writes its run id on each line: its rows name the same run.
            run_id: line.run_id.as_deref().unwrap_or(&self.run_id),
            suite: &self.suite,
            fallback_time: self.now,
        };
        for row in rows_of_result(line, &ctx) {
            self.batch.push(&row).map_err(ledger_error)?;
        }
        Ok(())
    }

    /// Appends every row to the ledger, under its lock.
    pub fn commit(self) -> anyhow::Result<()> {
        let report = self.batch.commit(&self.path).map_err(ledger_error)?;
        eprintln!(
            "proctor: added {} rows to {} ({} already there)",
            report.added,
            self.path.display(),
            report.duplicates
        );
        Ok(())
    }
}
