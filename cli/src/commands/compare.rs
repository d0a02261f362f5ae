//! `proctor compare OLD NEW`: is the new version of an agent worse than the old one?
//!
//! Reads two result files (streaming, one tally per task), hands them to
//! [`proctor_core::compare`], prints the comparison and applies `--fail-on`. The statistics and
//! the choices behind them are documented there.

use crate::commands::calibrate::{correct_results, load_calibration};
use crate::duplicates::Duplicates;
use crate::exit::Failure;
use crate::problems::Problems;
use crate::render;
use crate::render::html::{self, Grouping, ReportInput};
use crate::results_file::for_each_result_at;
use clap::{Args, ValueEnum};
use proctor_core::compare::{
    CompareOptions, Comparison, DEFAULT_MARGIN, Side, SideBuilder, SideTally, Verdict, compare,
};
use std::path::{Path, PathBuf};

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

pub fn run(args: CompareArgs) -> anyhow::Result<()> {
    let calibration = args
        .calibration
        .as_deref()
        .map(load_calibration)
        .transpose()?;
    if calibration.is_some() && args.labels.is_some() {
        anyhow::bail!(
            "--calibration corrects whole files; with --labels, write each label's results to its own file"
        );
    }
    let mut problems = Problems::default();
    let mut skipped = 0usize;
    let new_path = args.new.clone().unwrap_or_else(|| args.old.clone());
    let (old_label, new_label) = match &args.labels {
        Some((old, new)) => (Some(old.as_str()), Some(new.as_str())),
        None => (None, None),
    };
    let read = |side, path: &Path, label, problems: &mut Problems, skipped: &mut usize| {
        read_side(side, path, label, args.duplicates, problems, skipped)
    };
    let old = read(Side::Old, &args.old, old_label, &mut problems, &mut skipped)?;
    let new = read(Side::New, &new_path, new_label, &mut problems, &mut skipped)?;
    let options = CompareOptions {
        margin: args.margin,
        allow_different_tasks: args.allow_different_tasks,
    };
    let comparison = compare(old, new, &options)?;
    if args.format == CompareFormat::Json {
        // The table and markdown carry these notes, JSON under `notes`; stderr shows them too.
        for note in render::compare::notes(&comparison) {
            eprintln!("proctor: note: {note}");
        }
    }
    let text = match args.format {
        CompareFormat::Table => render::compare::table::render(&comparison),
        CompareFormat::Markdown => render::compare::markdown::render(&comparison),
        CompareFormat::Json => render::compare::json::render(&comparison),
    };
    let text = match &calibration {
        Some(cal) => {
            let old = correct_results(std::slice::from_ref(&args.old), cal)?;
            let new = correct_results(std::slice::from_ref(&new_path), cal)?;
            let shape = args.format.into();
            render::calibrate::corrected::compare(text, shape, &old, &new, cal.source())
        }
        None => text,
    };
    render::compare::print(&text);
    if let Some(page) = &args.html {
        html::write_file(page, &compare_page(&args, &comparison)?)?;
    }
    if skipped > 0 {
        return Err(Failure::PartialInput(format!(
            "{skipped} result lines skipped; the comparison covers the rest"
        ))
        .into());
    }
    gate(args.fail_on, &comparison)
}

/// Tallies one file, or the lines of one `label` in it; unreadable lines are reported and
/// skipped, a label or digest mix stops.
fn read_side(
    side: Side,
    path: &Path,
    label: Option<&str>,
    duplicates: Duplicates,
    problems: &mut Problems,
    skipped: &mut usize,
) -> anyhow::Result<SideTally> {
    let name = match label {
        Some(label) => format!("{} [{label}]", path.display()),
        None => path.display().to_string(),
    };
    let mut builder = SideBuilder::new(side, name.clone());
    let mut found = false;
    let paths = [path.to_owned()];
    let mut attempts = duplicates.filter(&paths)?;
    for_each_result_at(
        &paths,
        |at, _, _, line| {
            if label.is_some_and(|l| line.label.as_deref() != Some(l)) {
                return Ok(());
            }
            if !attempts.admit(at, &line)? {
                return Ok(());
            }
            found = true;
            Ok(builder.add(&line)?)
        },
        |bad| {
            *skipped += 1;
            problems.report(bad.to_string());
        },
        |_| {},
    )?;
    if let (Some(label), false) = (label, found) {
        anyhow::bail!("{side} {name}: no result carries the label `{label}`");
    }
    Ok(builder.finish())
}

/// The HTML page: the comparison and every attempt, grouped by label with `--labels` (one
/// file), else by file, each named `label (file)`.
fn compare_page(args: &CompareArgs, comparison: &Comparison) -> anyhow::Result<ReportInput> {
    let (title, results, grouping) = match (&args.new, &args.labels) {
        (Some(new), _) => {
            let names = [&comparison.old, &comparison.new]
                .map(|side| render::compare::side_name(&side.file, side.label.as_deref()));
            (
                format!("compare {} {}", args.old.display(), new.display()),
                vec![args.old.clone(), new.clone()],
                Grouping::ByFile(names.to_vec()),
            )
        }
        (None, labels) => {
            let (old, new) = labels.clone().unwrap_or_default();
            (
                format!("compare {} --labels {old},{new}", args.old.display()),
                vec![args.old.clone()],
                Grouping::ByLabel,
            )
        }
    };
    Ok(ReportInput {
        title,
        results,
        grouping,
        summary: None,
        comparison: Some(render::compare::json::value(comparison)),
        tasks: Default::default(),
        chart_svg: None,
        k: None,
        end_states: None,
        duplicates: args.duplicates,
    })
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

/// `--fail-on`: exit 1 with a message that says what failed.
fn gate(fail_on: Option<FailOn>, c: &Comparison) -> anyhow::Result<()> {
    match fail_on {
        Some(FailOn::Regression) if c.verdict == Verdict::Regression => {
            let ci = c.delta.ci.expect("a regression verdict has an interval");
            Err(Failure::Gate(format!(
                "verdict regression: Δ {:+.4}, 95% CI [{:.4}, {:.4}] lies below 0 (--fail-on regression)",
                c.delta.estimate, ci.low, ci.high
            ))
            .into())
        }
        Some(FailOn::AnyRegressedTask) if !c.regressed.is_empty() => Err(Failure::Gate(format!(
            "{} task{} regressed: {} (--fail-on any-regressed-task)",
            c.regressed.len(),
            if c.regressed.len() == 1 { "" } else { "s" },
            c.regressed.join(", ")
        ))
        .into()),
        _ => Ok(()),
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
