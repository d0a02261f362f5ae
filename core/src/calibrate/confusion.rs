//! The 2×2 confusion matrix of judge verdicts against human labels, PASS positive.

use super::Label;
use serde::{Deserialize, Serialize};

/// Counts of (human, judge) pairs. `tp`: both PASS; `fn`: human PASS, judge FAIL; `fp`: human
/// FAIL, judge PASS (the judge let bad work through); `tn`: both FAIL.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Confusion {
    /// Both PASS.
    pub tp: u64,
    /// Human PASS, judge FAIL.
    #[serde(rename = "fn")]
    pub fn_: u64,
    /// Human FAIL, judge PASS: bad work let through.
    pub fp: u64,
    /// Both FAIL.
    pub tn: u64,
}

impl Confusion {
    /// A matrix of these counts.
    pub fn new(tp: u64, fn_: u64, fp: u64, tn: u64) -> Self {
        Confusion { tp, fn_, fp, tn }
    }

    /// Counts one item.
    pub fn add(&mut self, human: Label, judge: Label) {
        match (human, judge) {
            (Label::Pass, Label::Pass) => self.tp += 1,
            (Label::Pass, Label::Fail) => self.fn_ += 1,
            (Label::Fail, Label::Pass) => self.fp += 1,
            (Label::Fail, Label::Fail) => self.tn += 1,
        }
    }

    /// Items counted.
    pub fn n(&self) -> u64 {
        self.tp + self.fn_ + self.fp + self.tn
    }

    /// Items humans passed (m1 in the Lee interval).
    pub fn human_pass(&self) -> u64 {
        self.tp + self.fn_
    }

    /// Items humans failed (m0 in the Lee interval).
    pub fn human_fail(&self) -> u64 {
        self.fp + self.tn
    }

    /// Items the judge passed.
    pub fn judge_pass(&self) -> u64 {
        self.tp + self.fp
    }

    /// Items the judge failed.
    pub fn judge_fail(&self) -> u64 {
        self.fn_ + self.tn
    }

    /// Items on which judge and humans agree.
    pub fn agreements(&self) -> u64 {
        self.tp + self.tn
    }

    /// The matrix with the raters' roles swapped (human ↔ judge).
    pub fn transposed(&self) -> Self {
        Confusion::new(self.tp, self.fp, self.fn_, self.tn)
    }

    /// The matrix with the classes swapped (PASS ↔ FAIL).
    pub fn flipped(&self) -> Self {
        Confusion::new(self.tn, self.fp, self.fn_, self.tp)
    }
}

/// `num / den`, or `None` when there is nothing to divide by.
pub(crate) fn ratio(num: u64, den: u64) -> Option<f64> {
    (den > 0).then(|| num as f64 / den as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_each_cell_and_the_margins() {
        let mut c = Confusion::default();
        for (h, j) in [
            (Label::Pass, Label::Pass),
            (Label::Pass, Label::Fail),
            (Label::Fail, Label::Pass),
            (Label::Fail, Label::Fail),
            (Label::Fail, Label::Fail),
        ] {
            c.add(h, j);
        }
        assert_eq!(c, Confusion::new(1, 1, 1, 2));
        assert_eq!((c.n(), c.human_pass(), c.human_fail()), (5, 2, 3));
        assert_eq!((c.judge_pass(), c.judge_fail(), c.agreements()), (2, 3, 3));
    }

    #[test]
    fn serialises_with_the_short_names() {
        let text = serde_json::to_string(&Confusion::new(40, 10, 5, 45)).unwrap();
        assert_eq!(text, r#"{"tp":40,"fn":10,"fp":5,"tn":45}"#);
        assert_eq!(
            serde_json::from_str::<Confusion>(&text).unwrap(),
            Confusion::new(40, 10, 5, 45)
        );
    }

    #[test]
    fn transposing_and_flipping_swap_the_off_diagonal_or_the_diagonal() {
        let c = Confusion::new(1, 2, 3, 4);
        assert_eq!(c.transposed(), Confusion::new(1, 3, 2, 4));
        assert_eq!(c.flipped(), Confusion::new(4, 3, 2, 1));
        assert_eq!(ratio(1, 0), None);
        assert_eq!(ratio(1, 4), Some(0.25));
    }
}
