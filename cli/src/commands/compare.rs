//! `proctor compare OLD NEW`: is the new version of an agent worse than the old one?
//!
//! Reads two result files (streaming, one tally per task), hands them to
//! [`proctor_core::compare`], prints the comparison and applies `--fail-on`. The statistics and
//! the choices behind them are documented there.

use crate::args::{CompareArgs, CompareFormat, FailOn};
use crate::commands::calibrate::{correct_results, load_calibration};
use crate::duplicates::Duplicates;
use crate::exit::Failure;
use crate::html::{self, Grouping, ReportInput};
use crate::problems::Problems;
use crate::render;
use crate::render::Shape;
use crate::results_file::for_each_result_at;
use proctor_core::compare::{
    CompareOptions, Comparison, Side, SideBuilder, SideTally, Verdict, compare,
};
use std::path::Path;

pub fn run(args: CompareArgs) -> anyhow::Result<()> {
    let calibration = args
        .calibration
        .as_deref()
        .map(load_calibration)
        .transpose()?;
    if calibration.is_some() && args.labels.is_some() {
        crate::exit::bail_input!(
            "--calibration corrects whole files; with --labels, write each label's results to its own file"
        );
    }
    let new_path = args.new.clone().unwrap_or_else(|| args.old.clone());
    let Compared {
        comparison,
        skipped,
    } = comparison(&args)?;
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
            let shape = match args.format {
                CompareFormat::Table => Shape::Table,
                CompareFormat::Markdown => Shape::Markdown,
                CompareFormat::Json => Shape::Json,
            };
            render::calibrate::corrected::compare(text, shape, &old, &new, cal.source())
        }
        None => text,
    };
    crate::exit::print(&text)?;
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

/// A comparison as the command computes it, with how many lines it could not read.
pub struct Compared {
    pub comparison: Comparison,
    /// Result lines skipped as unreadable.
    pub skipped: usize,
}

/// Reads both sides and compares them, as `proctor compare` does for these options (the
/// format, `--fail-on` and `--calibration` aside).
pub fn comparison(args: &CompareArgs) -> anyhow::Result<Compared> {
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
    // Unreadable lines were reported on stderr as they were met.
    Ok(Compared {
        comparison,
        skipped,
    })
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
        crate::exit::bail_input!("{side} {name}: no result carries the label `{label}`");
    }
    Ok(builder.finish())
}

/// The HTML page: the comparison and every attempt, grouped by label with `--labels` (one
/// file), else by file, each named `label (file)`.
pub fn compare_page(args: &CompareArgs, comparison: &Comparison) -> anyhow::Result<ReportInput> {
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
