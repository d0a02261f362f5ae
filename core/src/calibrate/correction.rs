//! The judge's pass rate corrected for its errors: the Rogan–Gladen estimator with the
//! interval of Lee et al. (2025), "How to correctly report LLM-as-a-judge evaluations".
//!
//! A judge with sensitivity q1 (TPR) and specificity q0 (TNR) passes a share
//! p = θ q1 + (1 − θ)(1 − q0) of runs whose true pass rate is θ, so θ = (p + q0 − 1) / J with
//! J = q0 + q1 − 1. The interval accounts for the noise in p (n judged runs) and in q0 and q1
//! (m0 human-FAIL and m1 human-PASS labels); its formulas are docs/calibrating.md's, term for term.

use super::Confusion;
use super::confusion::ratio;
use crate::stats::Interval;
use serde::{Deserialize, Serialize};

/// Below this Youden's J the correction divides by a small number, amplifying the noise of
/// the raw rate more than threefold; reports warn.
pub const SMALL_YOUDEN_J: f64 = 0.3;

/// The judge's accuracy as measured against human labels.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct JudgeAccuracy {
    /// TPR, from `m1` human-PASS labels.
    pub q1: f64,
    /// Human-PASS labels behind `q1`.
    pub m1: f64,
    /// TNR, from `m0` human-FAIL labels.
    pub q0: f64,
    /// Human-FAIL labels behind `q0`.
    pub m0: f64,
}

impl JudgeAccuracy {
    /// `None` unless the humans labelled both classes: without both, J is unknown.
    pub fn of(c: &Confusion) -> Option<Self> {
        Some(JudgeAccuracy {
            q1: ratio(c.tp, c.human_pass())?,
            m1: c.human_pass() as f64,
            q0: ratio(c.tn, c.human_fail())?,
            m0: c.human_fail() as f64,
        })
    }

    /// Youden's J = TPR + TNR − 1: how far the judge is from a coin; the correction divides by it.
    pub fn youden_j(&self) -> f64 {
        self.q0 + self.q1 - 1.0
    }
}

/// Rogan–Gladen: (p + q0 − 1) / (q0 + q1 − 1), clipped to [0, 1]. `None` when J ≤ 0: a judge
/// no better than chance (or worse) carries no information about θ, so θ is not identifiable.
pub fn rogan_gladen(p: f64, judge: &JudgeAccuracy) -> Option<f64> {
    let j = judge.youden_j();
    (j > 0.0).then(|| ((p + judge.q0 - 1.0) / j).clamp(0.0, 1.0))
}

/// The pieces of the Lee et al. interval at given label counts; shared with the advice on
/// where the next labels do most good.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct LeeTerms {
    /// The adjusted estimate θ~ (unclipped).
    pub theta: f64,
    /// The bias correction dθ.
    pub shift: f64,
    /// The standard error.
    pub se: f64,
    /// Variance terms of the labels, before division by J~²: (1−θ~)² q0~(1−q0~)/m0~ and
    /// θ~² q1~(1−q1~)/m1~.
    pub fail_term: f64,
    pub pass_term: f64,
}

/// The terms for `n` judged runs with raw pass share `p`, or `None` when `n` is 0 or the
/// adjusted J~ = q0~ + q1~ − 1 is not positive.
pub(crate) fn lee_terms(p: f64, n: f64, judge: &JudgeAccuracy, z: f64) -> Option<LeeTerms> {
    if n <= 0.0 {
        return None;
    }
    let z2 = z * z;
    let p_t = (n * p + z2 / 2.0) / (n + z2);
    let n_t = n + z2;
    let q0_t = (judge.m0 * judge.q0 + 1.0) / (judge.m0 + 2.0);
    let m0_t = judge.m0 + 2.0;
    let q1_t = (judge.m1 * judge.q1 + 1.0) / (judge.m1 + 2.0);
    let m1_t = judge.m1 + 2.0;
    let j_t = q0_t + q1_t - 1.0;
    if j_t <= 0.0 {
        return None;
    }
    let theta = (p_t + q0_t - 1.0) / j_t;
    let fail_var = q0_t * (1.0 - q0_t) / m0_t;
    let pass_var = q1_t * (1.0 - q1_t) / m1_t;
    let shift = 2.0 * z2 * (-(1.0 - theta) * fail_var + theta * pass_var);
    let fail_term = (1.0 - theta).powi(2) * fail_var;
    let pass_term = theta.powi(2) * pass_var;
    let se = (p_t * (1.0 - p_t) / n_t + fail_term + pass_term).sqrt() / j_t;
    Some(LeeTerms {
        theta,
        shift,
        se,
        fail_term,
        pass_term,
    })
}

impl LeeTerms {
    /// [θ~ + dθ − z SE, θ~ + dθ + z SE], clipped to [0, 1].
    pub fn interval(&self, z: f64) -> Interval {
        let center = self.theta + self.shift;
        Interval {
            low: (center - z * self.se).clamp(0.0, 1.0),
            high: (center + z * self.se).clamp(0.0, 1.0),
        }
    }
}

/// The Lee et al. (2025) interval for θ from `n` judged runs with raw pass share `p`.
/// `None` when there are no runs, or when J ≤ 0 (nothing to correct with).
pub fn lee_interval(p: f64, n: u64, judge: &JudgeAccuracy, z: f64) -> Option<Interval> {
    if judge.youden_j() <= 0.0 {
        return None;
    }
    lee_terms(p, n as f64, judge, z).map(|t| t.interval(z))
}

/// A raw judge pass rate and its correction, as reports show them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Correction {
    /// Runs with a judge verdict.
    pub runs: u64,
    /// Of those, the runs the judge passed.
    pub judge_passed: u64,
    /// `judge_passed / runs`, the pass rate as the judge reports it.
    pub raw_pass_rate: Option<f64>,
    /// `None` when not identifiable (J ≤ 0) or unknown (a class without labels).
    pub corrected_pass_rate: Option<f64>,
    /// Its 95% interval, label and run uncertainty both counted.
    pub corrected_pass_rate_ci: Option<Interval>,
    /// Why the corrected rate is missing or should be read with care.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub warning: Option<String>,
}

/// Corrects `judge_passed` of `runs` with the judge's accuracy from `calibration`.
pub fn correct(judge_passed: u64, runs: u64, calibration: &Confusion, z: f64) -> Correction {
    let raw = ratio(judge_passed, runs);
    let mut out = Correction {
        runs,
        judge_passed,
        raw_pass_rate: raw,
        corrected_pass_rate: None,
        corrected_pass_rate_ci: None,
        warning: None,
    };
    let Some(judge) = JudgeAccuracy::of(calibration) else {
        out.warning = Some(
            "the calibration has no human labels of one class, so TPR or TNR is unknown and the pass rate cannot be corrected".to_owned(),
        );
        return out;
    };
    let j = judge.youden_j();
    if j <= 0.0 {
        out.warning = Some(format!(
            "not identifiable: Youden's J is {j:.4} (TPR + TNR − 1 ≤ 0), so the judge's verdicts carry no information about the true pass rate"
        ));
        return out;
    }
    let Some(p) = raw else {
        return out;
    };
    out.corrected_pass_rate = rogan_gladen(p, &judge);
    out.corrected_pass_rate_ci = lee_interval(p, runs, &judge, z);
    if j < SMALL_YOUDEN_J {
        out.warning = Some(format!(
            "Youden's J is only {j:.4}: the correction divides by J, so the corrected rate is very sensitive to errors in TPR and TNR and its interval is wide"
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::Z95;

    fn round4(x: f64) -> f64 {
        (x * 1e4).round() / 1e4
    }

    const DOCUMENTED: JudgeAccuracy = JudgeAccuracy {
        q1: 0.9,
        m1: 100.0,
        q0: 0.8,
        m0: 100.0,
    };

    #[test]
    fn design_check_rogan_gladen_and_lee() {
        assert_eq!(round4(rogan_gladen(0.6, &DOCUMENTED).unwrap()), 0.5714);
        let ci = lee_interval(0.6, 1000, &DOCUMENTED, Z95).unwrap();
        assert_eq!((round4(ci.low), round4(ci.high)), (0.4898, 0.6555));
    }

    #[test]
    fn design_check_through_a_confusion_matrix() {
        // TPR 90/100, TNR 80/100: the same check from counts, as `proctor calibrate` gets them.
        let c = correct(600, 1000, &Confusion::new(90, 10, 20, 80), Z95);
        assert_eq!(c.raw_pass_rate, Some(0.6));
        assert_eq!(round4(c.corrected_pass_rate.unwrap()), 0.5714);
        let ci = c.corrected_pass_rate_ci.unwrap();
        assert_eq!((round4(ci.low), round4(ci.high)), (0.4898, 0.6555));
        assert_eq!(c.warning, None);
    }

    #[test]
    fn clipped_to_the_unit_interval() {
        // A raw rate below the judge's false-pass rate would give a negative θ.
        assert_eq!(rogan_gladen(0.1, &DOCUMENTED), Some(0.0));
        assert_eq!(rogan_gladen(0.95, &DOCUMENTED), Some(1.0));
        let ci = lee_interval(0.0, 50, &DOCUMENTED, Z95).unwrap();
        assert_eq!(ci.low, 0.0);
    }

    #[test]
    fn not_identifiable_at_j_zero_or_below() {
        let coin = JudgeAccuracy {
            q1: 0.5,
            q0: 0.5,
            ..DOCUMENTED
        };
        assert_eq!(rogan_gladen(0.6, &coin), None);
        assert_eq!(lee_interval(0.6, 1000, &coin, Z95), None);
        let c = correct(6, 10, &Confusion::new(5, 5, 5, 5), Z95);
        assert_eq!(c.corrected_pass_rate, None);
        assert!(c.warning.unwrap().starts_with("not identifiable"));
    }

    #[test]
    fn small_j_warns_and_one_class_cannot_correct() {
        let weak = correct(60, 100, &Confusion::new(85, 5, 8, 2), Z95);
        assert!(weak.corrected_pass_rate.is_some());
        assert!(weak.warning.unwrap().contains("only 0.1444"));
        let one_class = correct(60, 100, &Confusion::new(8, 2, 0, 0), Z95);
        assert_eq!(one_class.corrected_pass_rate, None);
        assert!(
            one_class
                .warning
                .unwrap()
                .contains("no human labels of one class")
        );
    }

    #[test]
    fn a_perfect_judge_leaves_the_rate_alone() {
        let perfect = JudgeAccuracy {
            q1: 1.0,
            q0: 1.0,
            ..DOCUMENTED
        };
        assert!((rogan_gladen(0.37, &perfect).unwrap() - 0.37).abs() < 1e-12);
    }
}
