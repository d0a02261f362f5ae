//! The options of `proctor review`.

use clap::Args;
use std::path::PathBuf;

#[derive(Debug, Args)]
pub struct ReviewArgs {
    /// Judged result files (`proctor run --keep DIR` with a judge, or `proctor judge`).
    #[arg(value_name = "R.jsonl", required = true)]
    pub results: Vec<PathBuf>,
    /// The folder `proctor run --keep DIR` kept the sandboxes in: the end state shown.
    #[arg(long, value_name = "DIR")]
    pub keep: PathBuf,
    /// Task file or folder the results were run on: the rubric, the input and the seed
    /// files the end state is compared with. Without it only the answer and files are shown.
    #[arg(long, value_name = "T")]
    pub tasks: Option<PathBuf>,
    /// The labels file, appended to (created with its header when missing); the file
    /// `proctor calibrate --labels` reads.
    #[arg(long, value_name = "L.csv")]
    pub labels: PathBuf,
    /// Your name, written on every label: several raters can label into the same file.
    #[arg(long, value_name = "NAME", value_parser = parse_rater)]
    pub rater: String,
    /// Offer N judged attempts, split between judge-PASS and judge-FAIL as `proctor
    /// calibrate --label-budget` advises; without it every judged attempt is offered.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub sample: Option<u64>,
    /// The seed of the sample: the same seed draws the same attempts.
    #[arg(long, value_name = "S", default_value_t = 0)]
    pub seed: u64,
    /// Hide the judge's verdict and reasoning (the default), so they cannot sway the label.
    #[arg(long, conflicts_with = "show_judge")]
    pub blind: bool,
    /// Show the judge's verdict and reasoning beside each attempt.
    #[arg(long)]
    pub show_judge: bool,
    /// The port on 127.0.0.1 (default: a free one).
    #[arg(long, value_name = "P", default_value_t = 0, hide_default_value = true)]
    pub port: u16,
}

/// A rater name is a cell of the labels file: printable, no surrounding spaces (the file
/// is read trimmed, so `ann ` would come back as `ann`).
fn parse_rater(text: &str) -> Result<String, String> {
    if text.is_empty() || text.trim() != text {
        return Err("give a name without leading or trailing spaces".to_owned());
    }
    if text.chars().any(char::is_control) || text.len() > 100 {
        return Err("a rater name is printable and at most 100 bytes".to_owned());
    }
    Ok(text.to_owned())
}
