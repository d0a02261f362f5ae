//! `proctor judge`.

use super::judge_options::JudgeArgs;
use super::summary::{Format, SummaryArgs};
use clap::Args;
use std::path::PathBuf;

#[derive(Debug, Args)]
pub struct JudgeCommandArgs {
    /// Task file or folder of task files the results were run on.
    #[arg(long, value_name = "T")]
    pub tasks: PathBuf,
    /// The result file to judge again; it is rewritten in place.
    #[arg(long, value_name = "R.jsonl")]
    pub results: PathBuf,
    /// The folder `proctor run --keep DIR` kept the sandboxes in.
    #[arg(long, value_name = "DIR")]
    pub keep: PathBuf,
    /// Price tables over the built-in one, for the judge's usage.
    #[arg(long, value_name = "FILE")]
    pub prices: Vec<PathBuf>,
    #[command(flatten)]
    pub judge: JudgeArgs,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    pub format: Format,
    #[command(flatten)]
    pub summary: SummaryArgs,
}
