//! A ledger rolled up into a report (docs/cost.md), read under a shared lock: for
//! `ledger report`, and as the weekly chart of the HTML report's `--ledger`.

use super::error::ledger_error;
use crate::exit::infrastructure;
use proctor_ledger::book::LedgerReader;
use proctor_ledger::chart::render_chart;
use proctor_ledger::report::{GroupBy, Period, Report, ReportOptions, build_report};
use std::path::Path;

/// The weekly cost-per-success chart of a whole ledger, one line per label (`--ledger` on
/// the HTML report).
pub fn weekly_chart(ledger: &Path) -> anyhow::Result<String> {
    let options = ReportOptions {
        period: Period::Week,
        by: GroupBy::label(),
        since: None,
        until: None,
    };
    Ok(render_chart(&read_report(ledger, options)?))
}

/// Reads a ledger under a shared lock and rolls it up.
pub fn read_report(ledger: &Path, options: ReportOptions) -> anyhow::Result<Report> {
    let file = std::fs::File::open(ledger)
        .map_err(|e| crate::exit::bad_input!("{}: cannot read ledger: {e}", ledger.display()))?;
    // A shared lock: an append in progress finishes before the report reads.
    file.lock_shared()
        .map_err(|e| infrastructure(ledger.display(), e))?;
    let mut reader = LedgerReader::new(ledger, &file).map_err(ledger_error)?;
    let report = build_report(&mut reader, options).map_err(ledger_error)?;
    drop(reader);
    let _ = file.unlock();
    Ok(report)
}
