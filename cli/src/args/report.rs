//! `proctor report`.

use super::summary::SummaryArgs;
use crate::duplicates::Duplicates;
use clap::{Args, ValueEnum};
use std::path::PathBuf;

/// How `report` prints: the summary formats, and JUnit, which lists every attempt of the
/// result files it reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ReportFormat {
    Table,
    Json,
    Markdown,
    Junit,
    /// One self-contained page (`proctor report` only; elsewhere `--html FILE`).
    Html,
}

#[derive(Debug, Args)]
pub struct ReportArgs {
    /// Result files (proctor.result/1 JSONL).
    #[arg(required = true, value_name = "R.jsonl")]
    pub results: Vec<PathBuf>,
    /// Show the pass rate corrected for the judge's errors, from `proctor calibrate --out`.
    #[arg(long, value_name = "CAL.json")]
    pub calibration: Option<PathBuf>,
    /// The task file or folder the results were graded against: for `--by tag` (result
    /// lines do not carry their task's tags), and in the HTML report each attempt's input and
    /// the tag filter.
    #[arg(long, value_name = "T")]
    pub tasks: Option<PathBuf>,
    /// Summarise results of different task files (task digests), one summary per digest,
    /// instead of refusing them.
    #[arg(long)]
    pub mixed: bool,
    /// Output format.
    #[arg(long, value_enum, default_value_t = ReportFormat::Table)]
    pub format: ReportFormat,
    /// A cost ledger: the HTML report adds its weekly cost-per-success chart.
    #[arg(long, value_name = "L.csv")]
    pub ledger: Option<PathBuf>,
    /// The folder `run --keep` kept the sandboxes in: the HTML report lists each attempt's files.
    #[arg(long, value_name = "DIR")]
    pub keep: Option<PathBuf>,
    /// Two lines for the same label, task and attempt: refuse them (error), keep the first
    /// or the last, or count all.
    #[arg(long, value_enum, default_value_t = Duplicates::Error)]
    pub duplicates: Duplicates,
    #[command(flatten)]
    pub summary: SummaryArgs,
}
