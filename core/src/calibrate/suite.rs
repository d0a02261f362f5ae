//! A suite's pass rate with the judge's part corrected, for `proctor report` and `proctor
//! compare --calibration`.
//!
//! A run passes when every deterministic check holds and the judge says PASS. Only the runs
//! whose fate the judge decided (judge PASS and the run passed; judge FAIL and `rubric: FAIL`
//! its only reason) depend on the judge's errors; every other graded run passes or fails
//! whatever the judge said. So the corrected pass rate is
//! (runs that pass without the judge + judged runs × corrected judge pass rate) / graded runs,
//! and its interval is the Lee interval of the judged runs mapped the same way. It assumes the
//! calibration's TPR and TNR hold for these rubrics and runs.

use super::correction::{Correction, correct};
use super::item::JudgeVerdict;
use super::verdict::{failed_only_the_rubric, recorded_verdict};
use super::{Confusion, Label};
use crate::result::ResultLine;
use crate::stats::Interval;
use serde::Serialize;

/// Streams result lines into the counts the correction needs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SuiteCorrection {
    /// Graded runs read.
    graded: u64,
    passed: u64,
    /// Graded runs the judge decided.
    judged: u64,
    judged_passed: u64,
}

/// The corrected suite pass rate.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CorrectedSuite {
    /// Graded runs read.
    pub graded: u64,
    /// The suite pass rate as graded, judge errors included.
    pub pass_rate: Option<f64>,
    /// The pass rate corrected for the judge's measured TPR and TNR.
    pub corrected_pass_rate: Option<f64>,
    /// Its 95% interval, label and run uncertainty both counted.
    pub corrected_pass_rate_ci: Option<Interval>,
    /// Graded runs whose pass or fail the judge decided.
    pub judged_runs: u64,
    /// The judge's own pass rate over those runs, raw and corrected.
    pub judge: Correction,
}

impl SuiteCorrection {
    /// Nothing read yet.
    pub fn new() -> Self {
        SuiteCorrection::default()
    }

    /// Counts one result line; ungraded lines are skipped.
    pub fn add(&mut self, line: &ResultLine) {
        let Some(passed) = line.passed else {
            return;
        };
        self.graded += 1;
        self.passed += u64::from(passed);
        let decided_by_judge = match recorded_verdict(line) {
            Some(JudgeVerdict::Decided {
                label: Label::Pass, ..
            }) => passed,
            Some(JudgeVerdict::Decided {
                label: Label::Fail, ..
            }) => failed_only_the_rubric(line),
            _ => false,
        };
        if decided_by_judge {
            self.judged += 1;
            self.judged_passed += u64::from(passed);
        }
    }

    /// The correction with the judge's accuracy from `calibration`.
    pub fn finish(&self, calibration: &Confusion, z: f64) -> CorrectedSuite {
        let judge = correct(self.judged_passed, self.judged, calibration, z);
        let graded = self.graded as f64;
        let fixed = (self.passed - self.judged_passed) as f64;
        let judged = self.judged as f64;
        let scale = |theta: f64| (fixed + judged * theta) / graded;
        let pass_rate = (self.graded > 0).then(|| self.passed as f64 / graded);
        let (corrected, ci) = if self.judged == 0 {
            // Nothing the judge decided: nothing to correct.
            (pass_rate, None)
        } else {
            (
                judge.corrected_pass_rate.map(scale),
                judge.corrected_pass_rate_ci.map(|i| Interval {
                    low: scale(i.low),
                    high: scale(i.high),
                }),
            )
        };
        CorrectedSuite {
            graded: self.graded,
            pass_rate,
            corrected_pass_rate: corrected,
            corrected_pass_rate_ci: ci,
            judged_runs: self.judged,
            judge,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::Z95;

    fn add(s: &mut SuiteCorrection, json: &str, times: usize) {
        let line = ResultLine::parse(json).unwrap();
        for _ in 0..times {
            s.add(&line);
        }
    }

    const JUDGE_PASS: &str = r#"{"task": "r", "passed": true, "judge": {"verdict": "PASS"}}"#;
    const JUDGE_FAIL: &str = r#"{"task": "r", "passed": false, "reasons": ["rubric: FAIL"], "judge": {"verdict": "FAIL"}}"#;

    #[test]
    fn only_judge_decided_runs_are_corrected() {
        let mut s = SuiteCorrection::new();
        add(&mut s, JUDGE_PASS, 600);
        add(&mut s, JUDGE_FAIL, 400);
        // Runs the judge did not decide: no rubric, a failed check, ungraded.
        add(&mut s, r#"{"task": "x", "passed": true}"#, 500);
        add(
            &mut s,
            r#"{"task": "r", "passed": false, "reasons": ["wrong answer", "rubric: FAIL"], "judge": {"verdict": "FAIL"}}"#,
            500,
        );
        add(
            &mut s,
            r#"{"task": "r", "passed": null, "judge": {"verdict": null}}"#,
            7,
        );
        let c = s.finish(&Confusion::new(90, 10, 20, 80), Z95);
        assert_eq!((c.graded, c.judged_runs), (2000, 1000));
        assert_eq!(c.pass_rate, Some(0.55));
        // (500 + 1000 × 0.5714) / 2000, and the Lee interval of docs/calibrating.md's example mapped the same way.
        let round4 = |x: f64| (x * 1e4).round() / 1e4;
        assert_eq!(round4(c.corrected_pass_rate.unwrap()), 0.5357);
        let ci = c.corrected_pass_rate_ci.unwrap();
        assert_eq!(
            round4(ci.low),
            round4((500.0 + 1000.0 * 0.4898187) / 2000.0)
        );
        assert_eq!(round4(c.judge.corrected_pass_rate.unwrap()), 0.5714);
    }

    #[test]
    fn a_suite_without_judged_runs_is_left_as_it_is() {
        let mut s = SuiteCorrection::new();
        add(&mut s, r#"{"task": "x", "passed": true}"#, 3);
        add(
            &mut s,
            r#"{"task": "x", "passed": false, "reasons": ["wrong answer"]}"#,
            1,
        );
        let c = s.finish(&Confusion::new(90, 10, 20, 80), Z95);
        assert_eq!(c.corrected_pass_rate, Some(0.75));
        assert_eq!((c.corrected_pass_rate_ci, c.judged_runs), (None, 0));
    }

    #[test]
    fn a_rubric_outside_the_gate_is_not_the_judges_doing() {
        // Judge FAIL but the run passed: the rubric did not gate, so the judge decided nothing.
        let mut s = SuiteCorrection::new();
        add(
            &mut s,
            r#"{"task": "r", "passed": true, "judge": {"verdict": "FAIL"}}"#,
            2,
        );
        assert_eq!(s.finish(&Confusion::new(9, 1, 2, 8), Z95).judged_runs, 0);
    }
}
