//! How often the judge is right, per class: the rates a reader should see before any single
//! agreement number, because accuracy alone hides a judge that passes almost everything.

use super::Confusion;
use super::confusion::ratio;
use crate::stats::{Interval, wilson};
use serde::{Deserialize, Serialize};

/// Every rate of docs/calibrating.md that is a plain ratio of the confusion matrix. `None` where the
/// ratio has nothing to divide by (for example TNR without human FAIL labels).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Rates {
    /// Sensitivity: the share of human-PASS items the judge passes.
    pub tpr: Option<f64>,
    /// The 95% interval of TPR.
    pub tpr_ci: Option<Interval>,
    /// Specificity: the share of human-FAIL items the judge fails.
    pub tnr: Option<f64>,
    /// The 95% interval of TNR.
    pub tnr_ci: Option<Interval>,
    /// The share of items on which judge and humans agree.
    pub accuracy: Option<f64>,
    /// The mean of TPR and TNR: accuracy as if both classes were equally common.
    pub balanced_accuracy: Option<f64>,
    /// Of the judge's PASS verdicts, the share humans also passed.
    pub precision_pass: Option<f64>,
    /// F1 with PASS as the positive class.
    pub f1_pass: Option<f64>,
    /// Of the judge's FAIL verdicts, the share humans also failed.
    pub precision_fail: Option<f64>,
    /// F1 with FAIL as the positive class.
    pub f1_fail: Option<f64>,
    /// TPR + TNR − 1: 0 for a judge no better than a coin of any bias, 1 for a perfect one.
    pub youden_j: Option<f64>,
}

impl Rates {
    /// The rates of `c`, with Wilson intervals at normal quantile `z`.
    pub fn of(c: &Confusion, z: f64) -> Self {
        let tpr = ratio(c.tp, c.human_pass());
        let tnr = ratio(c.tn, c.human_fail());
        let both = tpr.zip(tnr);
        Rates {
            tpr,
            tpr_ci: wilson(c.tp, c.human_pass(), z),
            tnr,
            tnr_ci: wilson(c.tn, c.human_fail(), z),
            accuracy: ratio(c.agreements(), c.n()),
            balanced_accuracy: both.map(|(p, n)| (p + n) / 2.0),
            precision_pass: ratio(c.tp, c.judge_pass()),
            f1_pass: ratio(2 * c.tp, 2 * c.tp + c.fp + c.fn_),
            precision_fail: ratio(c.tn, c.judge_fail()),
            f1_fail: ratio(2 * c.tn, 2 * c.tn + c.fp + c.fn_),
            youden_j: both.map(|(p, n)| p + n - 1.0),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::Z95;

    fn round4(x: Option<f64>) -> f64 {
        (x.unwrap() * 1e4).round() / 1e4
    }

    #[test]
    fn design_check_40_10_5_45() {
        let r = Rates::of(&Confusion::new(40, 10, 5, 45), Z95);
        assert_eq!(round4(r.accuracy), 0.8500);
        assert_eq!(round4(r.tpr), 0.8000);
        assert_eq!(round4(r.tnr), 0.9000);
        assert_eq!(round4(r.balanced_accuracy), 0.8500);
        assert_eq!(round4(r.youden_j), 0.7000);
        // 40/45 and 45/55; F1 = 2TP / (2TP + FP + FN).
        assert_eq!(round4(r.precision_pass), 0.8889);
        assert_eq!(round4(r.precision_fail), 0.8182);
        assert_eq!(round4(r.f1_pass), 0.8421);
        assert_eq!(round4(r.f1_fail), 0.8571);
        // Wilson 40/50, as in docs/metrics.md.
        let ci = r.tpr_ci.unwrap();
        assert_eq!(
            (round4(Some(ci.low)), round4(Some(ci.high))),
            (0.6696, 0.8876)
        );
    }

    #[test]
    fn design_check_85_5_8_2_accuracy_hides_a_lenient_judge() {
        let r = Rates::of(&Confusion::new(85, 5, 8, 2), Z95);
        assert_eq!(round4(r.accuracy), 0.8700);
        assert_eq!(round4(r.tpr), 0.9444);
        assert_eq!(round4(r.tnr), 0.2000);
        assert_eq!(round4(r.youden_j), 0.1444);
    }

    #[test]
    fn a_missing_class_leaves_its_rates_undefined() {
        let r = Rates::of(&Confusion::new(8, 2, 0, 0), Z95);
        assert_eq!(round4(r.tpr), 0.8);
        assert_eq!((r.tnr, r.tnr_ci), (None, None));
        assert_eq!((r.balanced_accuracy, r.youden_j), (None, None));
        assert_eq!(r.precision_fail, Some(0.0));
        assert_eq!(r.f1_fail, Some(0.0));
        let empty = Rates::of(&Confusion::default(), Z95);
        assert_eq!(
            (empty.accuracy, empty.f1_pass, empty.tpr),
            (None, None, None)
        );
    }
}
