//! The report as CSV (docs/cost.md's columns).
//!
//! Money is rounded here and only here: USD to 6 decimals, the success rate to 4, both
//! half to even. Empty cells mean "unknown": cost per success with no success, costs with
//! nothing priced. Text cells go through the formula-injection guard.

use super::rollup::{Report, ReportRow};
use crate::book::{csv_writer, guard};
use rust_decimal::Decimal;
use std::io::Write;

/// Decimals of USD in reports.
pub const USD_DECIMALS: u32 = 6;
/// Decimals of the success rate.
pub const RATE_DECIMALS: u32 = 4;

/// The header for a report grouped as `report.options.by` says: `model` and `suite`
/// columns follow `label` only when grouped by them.
pub fn report_columns(report: &Report) -> Vec<&'static str> {
    let by = report.options.by;
    let mut columns = vec!["period", "period_start", "period_end", "label"];
    if by.model {
        columns.push("model");
    }
    if by.suite {
        columns.push("suite");
    }
    columns.extend([
        "runs",
        "successes",
        "success_rate",
        "agent_cost_usd",
        "judge_cost_usd",
        "total_cost_usd",
        "cost_per_success_usd",
        "cost_per_run_usd",
        "input_tokens",
        "cache_read_tokens",
        "cache_write_tokens",
        "output_tokens",
        "unpriced_calls",
    ]);
    columns
}

/// A decimal rounded for output, without trailing zeros; empty when unknown.
pub fn rounded(value: Option<Decimal>, decimals: u32) -> String {
    value.map_or_else(String::new, |v| {
        v.round_dp_with_strategy(
            decimals,
            rust_decimal::RoundingStrategy::MidpointNearestEven,
        )
        .normalize()
        .to_string()
    })
}

/// The cells of one report row, in [`report_columns`] order.
pub fn report_cells(report: &Report, row: &ReportRow) -> Vec<String> {
    let by = report.options.by;
    let period = report.options.period;
    let t = &row.totals;
    let mut cells = vec![
        period.name(row.start),
        row.start.to_string(),
        period.end_of(row.start).to_string(),
        guard(&row.group.label).into_owned(),
    ];
    if by.model {
        cells.push(guard(&row.group.model).into_owned());
    }
    if by.suite {
        cells.push(guard(&row.group.suite).into_owned());
    }
    cells.extend([
        t.runs.to_string(),
        t.successes.to_string(),
        rounded(t.success_rate(), RATE_DECIMALS),
        rounded(t.agent_cost, USD_DECIMALS),
        rounded(t.judge_cost, USD_DECIMALS),
        rounded(t.total_cost(), USD_DECIMALS),
        rounded(t.cost_per_success(), USD_DECIMALS),
        rounded(t.cost_per_run(), USD_DECIMALS),
        t.input_tokens.to_string(),
        t.cache_read_tokens.to_string(),
        t.cache_write_tokens.to_string(),
        t.output_tokens.to_string(),
        t.unpriced_calls.to_string(),
    ]);
    cells
}

/// Writes the report as CSV with RFC 4180 quoting.
///
/// # Errors
///
/// The writer's I/O error.
pub fn write_report_csv<W: Write>(report: &Report, out: W) -> std::io::Result<()> {
    let mut csv = csv_writer(out);
    csv.write_record(report_columns(report))?;
    for row in &report.rows {
        csv.write_record(report_cells(report, row))?;
    }
    csv.flush()
}
