//! How `--sample N` splits between judge-PASS and judge-FAIL attempts: the split `proctor
//! calibrate --verdicts R --labels L --results R --label-budget N` advises (Neyman allocation
//! on the corrected rate's variance), computed by that command's own code.
//!
//! The labels it plans from are those of the other raters: the sample is what this rater
//! is about to label, so their own labels must not move it, or a restart after ten labels
//! would draw another sample. Before both human classes are labelled the advice is
//! undefined and the split is even.

use super::labels_file::StoredLabel;
use super::sample::Advice;
use crate::commands::calibrate::problems::InputProblems;
use crate::commands::calibrate::verdicts_calibration;
use std::io::Write;
use std::path::PathBuf;

/// The advised (judge-PASS, judge-FAIL) split of `budget` more labels.
pub fn advice(
    results: &[PathBuf],
    labels: &[StoredLabel],
    rater: &str,
    budget: u64,
) -> anyhow::Result<Advice> {
    let others: Vec<&StoredLabel> = labels.iter().filter(|l| l.rater != rater).collect();
    if others.is_empty() {
        return Ok(None);
    }
    let mut file = tempfile::Builder::new()
        .prefix("proctor-review-")
        .suffix(".csv")
        .tempfile()?;
    let mut csv = csv::Writer::from_writer(Vec::new());
    csv.write_record(["task", "attempt", "human", "rater"])?;
    for label in others {
        csv.write_record([
            label.task.as_str(),
            &label.attempt.to_string(),
            label.human.name(),
            &label.rater,
        ])?;
    }
    file.write_all(
        &csv.into_inner()
            .map_err(|e| anyhow::anyhow!(e.to_string()))?,
    )?;
    file.flush()?;
    let calibration = verdicts_calibration(
        results,
        file.path(),
        results,
        Some(budget),
        &mut InputProblems::kept(),
    )?;
    Ok(calibration
        .label_split
        .and_then(|split| Some((split.pass_labels?, split.fail_labels?))))
}
