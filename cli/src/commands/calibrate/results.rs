//! `--results R.jsonl`: the judge's raw pass rate over judged, unlabelled runs, the input of
//! the corrected pass rate. Only recorded judge verdicts count (`judge.verdict`, or a
//! `rubric: FAIL` reason); runs without one are counted apart and left out.

use super::problems::InputProblems;
use crate::results_file::for_each_result;
use proctor_core::calibrate::{JudgeVerdict, recorded_verdict};
use std::path::PathBuf;

/// The judge's verdicts over the result files.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct JudgeCounts {
    pub passed: u64,
    pub judged: u64,
    /// Runs without a judge verdict (no rubric, or undecided).
    pub without_verdict: u64,
}

pub fn count(paths: &[PathBuf], problems: &mut InputProblems) -> anyhow::Result<JudgeCounts> {
    let mut counts = JudgeCounts::default();
    for_each_result(
        paths,
        |_, line| {
            match recorded_verdict(&line) {
                Some(JudgeVerdict::Decided { label, .. }) => {
                    counts.judged += 1;
                    counts.passed += u64::from(label.is_pass());
                }
                _ => counts.without_verdict += 1,
            }
            Ok(())
        },
        |bad| problems.report(bad.to_string()),
    )?;
    Ok(counts)
}
