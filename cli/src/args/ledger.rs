//! `proctor ledger add|report|recost`.

use clap::{Args, Subcommand};
use proctor_ledger::report::{GroupBy, Period};
use std::path::PathBuf;

#[derive(Debug, Subcommand)]
pub enum LedgerCommand {
    /// Append one row per attempt, role and model of result files to a ledger.
    Add(AddArgs),
    /// Cost per success and success rate per period and group, as CSV (and an SVG chart).
    Report(ReportArgs),
    /// Re-price a ledger with a price file into a new ledger (history never re-prices by itself).
    Recost(RecostArgs),
}

#[derive(Debug, Args)]
pub struct AddArgs {
    /// Result files (proctor.result/1 JSONL).
    #[arg(required = true, value_name = "R.jsonl")]
    pub results: Vec<PathBuf>,
    /// The ledger (CSV); created with its header when missing.
    #[arg(long, value_name = "L.csv")]
    pub ledger: PathBuf,
    /// The suite name in the rows (default: the first 12 hex digits of the task-file digest).
    #[arg(long, value_name = "NAME")]
    pub suite: Option<String>,
    /// The run id in the rows (default: each line's `run_id`, else 12 hex digits of the
    /// results file's SHA-256).
    #[arg(long, value_name = "ID")]
    pub run_id: Option<String>,
}

#[derive(Debug, Args)]
pub struct ReportArgs {
    /// The ledger (CSV).
    #[arg(long, value_name = "L.csv")]
    pub ledger: PathBuf,
    /// Period length: ISO week (2026-W48), calendar month or UTC day.
    #[arg(long, value_name = "week|month|day", default_value = "week", value_parser = parse_period)]
    pub period: Period,
    /// Split periods by these columns (comma-separated: label, model, suite; empty for none).
    #[arg(long, value_name = "label,model,suite", default_value = "label", value_parser = parse_group_by)]
    pub by: GroupBy,
    /// Only rows recorded on or after this UTC day (YYYY-MM-DD).
    #[arg(long, value_name = "DATE", value_parser = parse_day)]
    pub since: Option<jiff::civil::Date>,
    /// Only rows recorded on or before this UTC day (YYYY-MM-DD).
    #[arg(long, value_name = "DATE", value_parser = parse_day)]
    pub until: Option<jiff::civil::Date>,
    /// Write the report here (CSV); default: standard output.
    #[arg(long, value_name = "R.csv")]
    pub out: Option<PathBuf>,
    /// Also draw cost per success and success rate per period as a self-contained SVG.
    #[arg(long, value_name = "R.svg")]
    pub chart: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct RecostArgs {
    /// The ledger to re-price (left as it is).
    #[arg(long, value_name = "L.csv")]
    pub ledger: PathBuf,
    /// Price files laid over the built-in prices, in order (proctor TOML or LiteLLM JSON).
    #[arg(long = "prices", value_name = "FILE", required = true)]
    pub prices: Vec<PathBuf>,
    /// The re-priced ledger; must not be the input.
    #[arg(long, value_name = "L2.csv")]
    pub out: PathBuf,
}

fn parse_period(text: &str) -> Result<Period, String> {
    text.parse()
}

fn parse_group_by(text: &str) -> Result<GroupBy, String> {
    text.parse()
}

fn parse_day(text: &str) -> Result<jiff::civil::Date, String> {
    text.parse()
        .map_err(|_| format!("{text:?} is not a date (YYYY-MM-DD)"))
}
