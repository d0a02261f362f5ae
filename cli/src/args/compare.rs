//! `proctor compare`.

use crate::duplicates::Duplicates;
use clap::{Args, ValueEnum};
use proctor_core::compare::DEFAULT_MARGIN;
use std::path::PathBuf;

#[derive(Debug, Args)]
pub struct CompareArgs {
    /// Results of the old version, the baseline (proctor.result/1 JSONL).
    #[arg(value_name = "OLD.jsonl")]
    pub old: PathBuf,
    /// Results of the new version (leave out with --labels to compare two labels of OLD.jsonl).
    #[arg(value_name = "NEW.jsonl", required_unless_present = "labels")]
    pub new: Option<PathBuf>,
    /// Compare two labels (agents) of the results, paired by task: OLD's attempts against
    /// NEW's, from one file (or from OLD.jsonl and NEW.jsonl respectively).
    #[arg(long, value_name = "OLD,NEW", value_parser = parse_labels)]
    pub labels: Option<(String, String)>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = CompareFormat::Table)]
    pub format: CompareFormat,
    /// The largest drop of the pass rate that may still read "no regression" (0..1).
    #[arg(long, value_name = "m", default_value_t = DEFAULT_MARGIN, value_parser = parse_margin)]
    pub margin: f64,
    /// Gate: exit 1 on a `regression` verdict, or on any task whose pass rate dropped.
    #[arg(long, value_enum, value_name = "WHAT")]
    pub fail_on: Option<FailOn>,
    /// Compare results graded against different task files, on the task ids they share.
    #[arg(long)]
    pub allow_different_tasks: bool,
    /// Show each side's pass rate corrected for the judge's errors, from `proctor calibrate --out`.
    #[arg(long, value_name = "CAL.json")]
    pub calibration: Option<PathBuf>,
    /// Also write the comparison and every attempt of both files as one self-contained HTML page.
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
    /// Two lines for the same label, task and attempt: refuse them (error), keep the first
    /// or the last, or count all.
    #[arg(long, value_enum, default_value_t = Duplicates::Error)]
    pub duplicates: Duplicates,
}

/// How the comparison is printed (JUnit has no place for a comparison).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum CompareFormat {
    Table,
    Json,
    Markdown,
}

/// What `--fail-on` gates on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum FailOn {
    /// The verdict is `regression` (the 95% interval of Δ lies below 0).
    Regression,
    /// Any task's pass rate dropped, however little: strict, and noisy with few attempts.
    AnyRegressedTask,
}

/// `OLD,NEW`: two different labels.
fn parse_labels(text: &str) -> Result<(String, String), String> {
    match text.split_once(',') {
        Some((old, new)) if !old.trim().is_empty() && !new.trim().is_empty() && old != new => {
            Ok((old.trim().to_owned(), new.trim().to_owned()))
        }
        _ => Err(format!("{text:?} is not two different labels as OLD,NEW")),
    }
}

fn parse_margin(text: &str) -> Result<f64, String> {
    let value: f64 = text
        .parse()
        .map_err(|_| format!("{text:?} is not a number"))?;
    if (0.0..1.0).contains(&value) {
        Ok(value)
    } else {
        Err(format!("{value} is not in [0, 1)"))
    }
}
