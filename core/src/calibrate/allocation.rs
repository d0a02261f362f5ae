//! Where the next human labels do most good: how to split a budget of M labels between
//! human-PASS and human-FAIL items so that the corrected pass rate's interval shrinks most.
//!
//! The labels enter the Lee et al. variance through two terms, (1−θ)² q0(1−q0)/m0 for the
//! human-FAIL items and θ² q1(1−q1)/m1 for the human-PASS items. Minimising a0/m0 + a1/m1
//! for a fixed m0 + m1 (Lagrange) gives m1/m0 = √a1 / √a0: Neyman allocation. We use the
//! adjusted estimates θ~, q0~, q1~ of the interval, so a class with a perfect rate so far
//! still gets labels, and we split the total after the new labels (m0 + m1 + M) in that
//! ratio, giving the new labels to whichever class is short of its share (all of them to one
//! class when the other already has more than its share). In practice human-PASS items are
//! found by sampling runs the judge passed, and human-FAIL items among those it failed.

use super::correction::{JudgeAccuracy, lee_terms};
use serde::{Deserialize, Serialize};

/// The advice, with the interval's half-width now and after the new labels (assuming the
/// judge's rates stay as measured).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct LabelSplit {
    /// The share of all labels (old and new) that should be human-PASS items.
    pub optimal_pass_share: f64,
    /// The budget split; `None` without `--label-budget`.
    pub budget: Option<u64>,
    /// Of the budget, the human-PASS items to label.
    pub pass_labels: Option<u64>,
    /// Of the budget, the human-FAIL items to label.
    pub fail_labels: Option<u64>,
    /// z × SE of the corrected rate with the current labels.
    pub half_width: f64,
    /// z × SE after the split budget is labelled; `None` without a budget.
    pub projected_half_width: Option<f64>,
}

/// The split for `budget` more labels, given `n` judged runs with raw pass share `p`.
/// `None` where the interval itself is undefined (no runs, J~ ≤ 0).
pub fn split_labels(
    p: f64,
    n: u64,
    judge: &JudgeAccuracy,
    budget: Option<u64>,
    z: f64,
) -> Option<LabelSplit> {
    let now = lee_terms(p, n as f64, judge, z)?;
    let theta = now.theta.clamp(0.0, 1.0);
    let adjusted = |q: f64, m: f64| (m * q + 1.0) / (m + 2.0);
    let q0 = adjusted(judge.q0, judge.m0);
    let q1 = adjusted(judge.q1, judge.m1);
    let a0 = ((1.0 - theta).powi(2) * q0 * (1.0 - q0)).sqrt();
    let a1 = (theta.powi(2) * q1 * (1.0 - q1)).sqrt();
    let optimal_pass_share = if a0 + a1 > 0.0 { a1 / (a0 + a1) } else { 0.5 };
    let mut split = LabelSplit {
        optimal_pass_share,
        budget,
        pass_labels: None,
        fail_labels: None,
        half_width: z * now.se,
        projected_half_width: None,
    };
    if let Some(m) = budget {
        let total = judge.m0 + judge.m1 + m as f64;
        let wanted = (total * optimal_pass_share - judge.m1).round();
        let pass = wanted.clamp(0.0, m as f64) as u64;
        let fail = m - pass;
        split.pass_labels = Some(pass);
        split.fail_labels = Some(fail);
        let after = JudgeAccuracy {
            m1: judge.m1 + pass as f64,
            m0: judge.m0 + fail as f64,
            ..*judge
        };
        split.projected_half_width = lee_terms(p, n as f64, &after, z).map(|t| z * t.se);
    }
    Some(split)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::Z95;

    const DOCUMENTED: JudgeAccuracy = JudgeAccuracy {
        q1: 0.9,
        m1: 100.0,
        q0: 0.8,
        m0: 100.0,
    };

    /// The variance of the corrected rate after giving `pass` of `m` labels to human-PASS items.
    fn half_width_after(pass: u64, m: u64) -> f64 {
        let after = JudgeAccuracy {
            m1: DOCUMENTED.m1 + pass as f64,
            m0: DOCUMENTED.m0 + (m - pass) as f64,
            ..DOCUMENTED
        };
        Z95 * lee_terms(0.6, 1000.0, &after, Z95).unwrap().se
    }

    #[test]
    fn design_example_splits_about_evenly() {
        // θ~ ≈ 0.574: θ²·q1(1−q1) ≈ (1−θ)²·q0(1−q0), so the two terms nearly balance.
        let split = split_labels(0.6, 1000, &DOCUMENTED, Some(100), Z95).unwrap();
        assert_eq!((split.optimal_pass_share * 1e4).round() / 1e4, 0.5080);
        // 300 labels in all × 0.508 − 100 already labelled PASS ≈ 52.4.
        assert_eq!((split.pass_labels, split.fail_labels), (Some(52), Some(48)));
        assert!(split.projected_half_width.unwrap() < split.half_width);
    }

    #[test]
    fn a_low_pass_rate_wants_fail_labels() {
        // Near θ = 0 the PASS term θ²·q1(1−q1) vanishes: TNR is what matters.
        let weak_tnr = JudgeAccuracy {
            q1: 0.95,
            m1: 50.0,
            q0: 0.7,
            m0: 50.0,
        };
        let split = split_labels(0.3, 1000, &weak_tnr, Some(40), Z95).unwrap();
        assert!(split.optimal_pass_share < 0.01, "{split:?}");
        assert_eq!((split.pass_labels, split.fail_labels), (Some(0), Some(40)));
    }

    #[test]
    fn the_split_is_the_best_integer_split_up_to_rounding() {
        let split = split_labels(0.6, 1000, &DOCUMENTED, Some(100), Z95).unwrap();
        let chosen = half_width_after(split.pass_labels.unwrap(), 100);
        let best = (0..=100)
            .map(|pass| half_width_after(pass, 100))
            .fold(f64::INFINITY, f64::min);
        // The Neyman ratio minimises the label terms; the p-term and θ~ shift are fixed.
        assert!(chosen - best < 1e-4, "chosen {chosen}, best {best}");
    }

    #[test]
    fn a_class_already_over_its_share_gets_nothing() {
        let lopsided = JudgeAccuracy {
            m1: 400.0,
            m0: 10.0,
            ..DOCUMENTED
        };
        let split = split_labels(0.6, 1000, &lopsided, Some(20), Z95).unwrap();
        assert_eq!((split.pass_labels, split.fail_labels), (Some(0), Some(20)));
    }

    #[test]
    fn without_a_budget_only_the_share_and_current_width() {
        let split = split_labels(0.6, 1000, &DOCUMENTED, None, Z95).unwrap();
        assert_eq!(
            (split.pass_labels, split.projected_half_width),
            (None, None)
        );
        assert!(split.half_width > 0.0);
        assert_eq!(split_labels(0.6, 0, &DOCUMENTED, None, Z95), None);
    }
}
