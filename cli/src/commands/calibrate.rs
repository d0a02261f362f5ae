//! `proctor calibrate`: measures the judge against human labels (docs/calibrating.md).
//!
//! Two inputs: `--set CAL.jsonl` runs a labelled calibration set through the judge (see
//! [`set`]), `--verdicts R.jsonl --labels L.csv` joins verdicts already recorded (see
//! [`verdicts`]). The statistics are [`proctor_core::calibrate`]'s. Bad input lines are reported
//! with file and line, the rest is calibrated, and the command exits 2; otherwise the gates
//! decide between 0 and 1.

mod gates;
mod judge_config;
mod labels;
pub(crate) mod problems;
mod results;
mod set;
mod verdicts;

use crate::args::{CalibrateArgs, CalibrateFormat};
use crate::exit::InputContext;
use crate::exit::infrastructure;
use crate::render;
use crate::results_file::for_each_result;
use gates::Gates;
use problems::InputProblems;
use proctor_core::calibrate::{
    Calibration, CalibrationFile, CalibrationOptions, CorrectedSuite, SuiteCorrection,
};
use proctor_core::stats::Z95;
use std::path::{Path, PathBuf};

pub fn run(args: CalibrateArgs) -> anyhow::Result<()> {
    let mut problems = InputProblems::default();
    let calibration = if let Some(set) = &args.set {
        // Read before the judge runs, so that a bad --results file costs no judge calls.
        let counts = judged_counts(&args.results, &mut problems)?;
        let judged = set::judge_set(set, &args.judge, &mut problems)?;
        let mut calibration = build(&judged.items, counts, args.label_budget);
        calibration.inputs = std::iter::once(set)
            .chain(&args.results)
            .map(|p| p.display().to_string())
            .collect();
        calibration.judges = vec![judged.judge];
        calibration
    } else {
        let labels_file = args.labels.as_deref().expect("clap requires --labels");
        verdicts_calibration(
            &args.verdicts,
            labels_file,
            &args.results,
            args.label_budget,
            &mut problems,
        )?
    };
    let json = render::calibrate::json(&calibration);
    if let Some(out) = &args.out {
        write_out(out, &json)?;
    }
    let text = match args.format {
        CalibrateFormat::Table => render::calibrate::table::render(&calibration),
        CalibrateFormat::Markdown => render::calibrate::markdown::render(&calibration),
        CalibrateFormat::Json => json,
    };
    crate::exit::print(&text)?;
    problems.into_result()?;
    gates::check(
        &Gates {
            min_kappa: args.min_kappa,
            min_tpr: args.min_tpr,
            min_tnr: args.min_tnr,
        },
        &calibration,
    )
}

/// `--verdicts R --labels L [--results R2]`: recorded verdicts joined with human labels and
/// calibrated. `proctor review` calls this for its live numbers, so that its page shows what
/// this command prints for the same files.
pub(crate) fn verdicts_calibration(
    verdicts: &[PathBuf],
    labels_file: &Path,
    results: &[PathBuf],
    label_budget: Option<u64>,
    problems: &mut InputProblems,
) -> anyhow::Result<Calibration> {
    let counts = judged_counts(results, problems)?;
    let labels = labels::read_labels(labels_file, problems)?;
    let joined = verdicts::join(verdicts, labels_file, labels, problems)?;
    let mut calibration = build(&joined.items, counts, label_budget);
    calibration.inputs = verdicts
        .iter()
        .map(|p| p.display().to_string())
        .chain([labels_file.display().to_string()])
        .chain(results.iter().map(|p| p.display().to_string()))
        .collect();
    calibration.judges = joined.judges;
    Ok(calibration)
}

/// The judge's verdicts over `--results`, `None` without the option.
fn judged_counts(
    results: &[PathBuf],
    problems: &mut InputProblems,
) -> anyhow::Result<Option<results::JudgeCounts>> {
    if results.is_empty() {
        return Ok(None);
    }
    let counts = results::count(results, problems)?;
    if counts.without_verdict > 0 {
        problems.note(format!(
            "{} of the --results runs have no judge verdict and are left out of the raw pass rate",
            counts.without_verdict
        ));
    }
    Ok(Some(counts))
}

fn build(
    items: &[proctor_core::calibrate::LabelledItem],
    counts: Option<results::JudgeCounts>,
    label_budget: Option<u64>,
) -> Calibration {
    Calibration::build(
        items,
        &CalibrationOptions {
            z: Z95,
            results: counts.map(|c| (c.passed, c.judged)),
            label_budget,
        },
    )
}

fn write_out(path: &Path, json: &str) -> anyhow::Result<()> {
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).map_err(|e| infrastructure(parent.display(), e))?;
    }
    std::fs::write(path, json).map_err(|e| infrastructure(path.display(), e))
}

/// A calibration written by `--out`, with the path it came from, for `--calibration`.
#[derive(Debug, Clone)]
pub struct LoadedCalibration {
    pub path: String,
    pub file: CalibrationFile,
}

impl LoadedCalibration {
    /// How renderers name it.
    pub fn source(&self) -> render::calibrate::corrected::Source<'_> {
        render::calibrate::corrected::Source {
            path: &self.path,
            file: &self.file,
        }
    }
}

/// Reads `--calibration CAL.json` of `report` and `compare`; a bad file is bad input (exit 2).
pub fn load_calibration(path: &Path) -> anyhow::Result<LoadedCalibration> {
    let text = std::fs::read_to_string(path)
        .with_input_context(|| format!("{}: cannot read the calibration", path.display()))?;
    let file =
        CalibrationFile::parse(&text).with_input_context(|| format!("{}", path.display()))?;
    Ok(LoadedCalibration {
        path: path.display().to_string(),
        file,
    })
}

/// The suite pass rate of `paths` with the judge's part corrected by `calibration`: a second
/// streaming pass (bad lines were already reported by the command's own pass).
pub fn correct_results(
    paths: &[PathBuf],
    calibration: &LoadedCalibration,
) -> anyhow::Result<CorrectedSuite> {
    let mut suite = SuiteCorrection::new();
    for_each_result(
        paths,
        |_, line| {
            suite.add(&line);
            Ok(())
        },
        |_| {},
    )?;
    Ok(suite.finish(&calibration.file.confusion_matrix, Z95))
}
