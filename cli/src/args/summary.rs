//! Options every command that prints scorecards shares.

use super::values::parse_share;
use clap::{Args, ValueEnum};
use std::path::PathBuf;

/// How `run`, `grade` and `judge` print their summary.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    Table,
    Json,
    Markdown,
}

/// What splits every scorecard further.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum By {
    /// The task's tags: an attempt counts under each; untagged tasks under `-`.
    Tag,
    /// The task's variant (`id@NAME`); the base tasks under `-`.
    Variant,
}

/// Options shared by every command that prints a summary.
#[derive(Debug, Args)]
pub struct SummaryArgs {
    /// The k of pass@k and pass^k (default: the fewest graded attempts of any task).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    pub k: Option<u64>,
    /// Gate: exit 1 when an agent's pass rate is below X (0..1); with several agents,
    /// every agent must reach it.
    #[arg(long, value_name = "X", value_parser = parse_share)]
    pub min_pass_rate: Option<f64>,
    /// Also write the results as one self-contained HTML page, to open in a browser.
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
    /// Also show the figures of all agents pooled (never shown unless asked for).
    #[arg(long)]
    pub pool: bool,
    /// Split every agent's scorecard further.
    #[arg(long, value_enum, value_name = "WHAT")]
    pub by: Option<By>,
}

impl SummaryArgs {
    /// The scorecards these options ask for.
    pub fn scorecard_options(&self) -> proctor_core::summary::ScorecardOptions {
        proctor_core::summary::ScorecardOptions {
            pool: self.pool,
            split: self.by.map(|by| match by {
                By::Tag => proctor_core::summary::Split::Tag,
                By::Variant => proctor_core::summary::Split::Variant,
            }),
        }
    }
}
