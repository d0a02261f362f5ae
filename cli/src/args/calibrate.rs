//! `proctor calibrate`.

use super::judge_options::JudgeArgs;
use super::values::{parse_kappa, parse_share};
use clap::{ArgGroup, Args, ValueEnum};
use std::path::PathBuf;

#[derive(Debug, Args)]
#[command(group = ArgGroup::new("input").required(true).args(["set", "verdicts"]))]
pub struct CalibrateArgs {
    /// A labelled calibration set to run through the judge (JSONL: id, rubric, input, answer,
    /// files or dir, human).
    #[arg(long, value_name = "CAL.jsonl", conflicts_with_all = ["verdicts", "labels"])]
    pub set: Option<PathBuf>,
    /// Result files whose recorded judge verdicts are joined with --labels by task and attempt.
    #[arg(long, value_name = "R.jsonl", requires = "labels")]
    pub verdicts: Vec<PathBuf>,
    /// Human labels (CSV: task, attempt, human, optional rater). PASS/FAIL in any case, or 1/0.
    #[arg(long, value_name = "L.csv", requires = "verdicts")]
    pub labels: Option<PathBuf>,
    /// Judged, unlabelled runs: report the judge's raw and corrected pass rate over them.
    #[arg(long, value_name = "R.jsonl")]
    pub results: Vec<PathBuf>,
    /// Plan this many more labels: how many human-PASS and human-FAIL items to label.
    #[arg(long, value_name = "M", requires = "results")]
    pub label_budget: Option<u64>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = CalibrateFormat::Table)]
    pub format: CalibrateFormat,
    /// Write the full calibration as JSON here (for `report` and `compare --calibration`).
    #[arg(long, value_name = "CAL.json")]
    pub out: Option<PathBuf>,
    /// Gate: exit 1 when Cohen's κ is below X (or undefined).
    #[arg(long, value_name = "X", allow_hyphen_values = true, value_parser = parse_kappa)]
    pub min_kappa: Option<f64>,
    /// Gate: exit 1 when the judge's TPR is below X (0..1).
    #[arg(long, value_name = "X", value_parser = parse_share)]
    pub min_tpr: Option<f64>,
    /// Gate: exit 1 when the judge's TNR is below X (0..1).
    #[arg(long, value_name = "X", value_parser = parse_share)]
    pub min_tnr: Option<f64>,
    #[command(flatten)]
    pub judge: JudgeArgs,
}

/// How the calibration is printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum CalibrateFormat {
    Table,
    Json,
    Markdown,
}
