//! Tokens and cost of an attempt's usage records, priced at the attempt's time.
//!
//! The price table is the default compiled into the binary, overlaid with each
//! `--prices FILE` in order (proctor TOML or LiteLLM JSON). A call is priced at its own
//! time when its usage object records one, else at the outcome line's `timestamp`,
//! `recorded_at`, `started_at` or `created_at`, else at the time the command started.
//! Calls with no price are counted as unpriced: their cost is unknown, never 0.

use anyhow::Context;
use jiff::Timestamp;
use proctor_core::compact_json::CompactJson;
use proctor_ledger::prices::{PriceTable, load_price_file};
use proctor_ledger::pricing::{PricedAttempt, price_attempt};
use std::path::PathBuf;

/// The price table of one command, and the time it started.
#[derive(Debug)]
pub struct Pricer {
    table: PriceTable,
    now: Timestamp,
}

impl Pricer {
    /// The default table overlaid with `files`, in order; a bad file is bad input (exit 2)
    /// naming its line and column.
    pub fn load(files: &[PathBuf]) -> anyhow::Result<Pricer> {
        let mut table = PriceTable::builtin();
        for file in files {
            table.override_with(load_price_file(file)?);
        }
        Ok(Pricer {
            table,
            now: Timestamp::now(),
        })
    }

    /// The time the command started: the price time of outcomes that record none.
    pub fn now(&self) -> Timestamp {
        self.now
    }

    /// The table in use.
    pub fn table(&self) -> &PriceTable {
        &self.table
    }

    /// The cost of one attempt's agent and judge usage, at `at` (else now); a call that
    /// cannot be priced is counted unpriced, and said in the problems.
    pub fn cost(
        &self,
        agent: &[CompactJson],
        judge: &[CompactJson],
        at: Option<Timestamp>,
    ) -> PricedAttempt {
        price_attempt(&self.table, agent, judge, at.unwrap_or(self.now))
    }

    /// Tokens counted, every call unpriced: for usage whose time could not be read.
    pub fn unpriced(&self, agent: &[CompactJson], judge: &[CompactJson]) -> PricedAttempt {
        price_attempt(&PriceTable::empty(), agent, judge, self.now)
    }
}

/// Reads `--prices` files up front so that a bad one stops the command before any work.
pub fn load_pricer(files: &[PathBuf]) -> anyhow::Result<Pricer> {
    Pricer::load(files).context("cannot use --prices")
}
