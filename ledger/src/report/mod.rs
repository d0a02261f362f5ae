//! Period reports over a ledger (docs/cost.md): one row per period and group with runs,
//! successes, agent and judge cost, cost per success and per run, tokens and unpriced
//! calls.
//!
//! Choices: a *run* is an attempt, counted once however many rows (roles, models) it has;
//! the success rate is successes per run (an ungraded run is paid for and is not a
//! success); cost per success divides all spend, failed runs included, by successes and is
//! empty with none; a cost cell is empty when no call in it was priced (unpriced calls are
//! counted apart, never taken as 0). With `--by model` an attempt that used two models is a
//! run of each. Periods are read from `recorded_at` in UTC; `since`/`until` are UTC days,
//! inclusive, and only periods with rows are listed.

mod day;
mod group;
mod period;
mod rollup;
mod write;

pub use group::{GroupBy, GroupKey};
pub use period::Period;
pub use rollup::{Report, ReportOptions, ReportRow, Totals, build_report};
pub use write::{
    RATE_DECIMALS, USD_DECIMALS, report_cells, report_columns, rounded, write_report_csv,
};
