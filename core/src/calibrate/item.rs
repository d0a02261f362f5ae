//! One labelled item as `proctor calibrate` joins it: who the humans said, what the judge said.

use super::Label;
use serde::{Deserialize, Serialize};

/// The judge's decision on one item.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum JudgeVerdict {
    /// The judge passed or failed the item.
    Decided {
        /// The label given.
        label: Label,
        /// The judge's reasoning, for review.
        reasoning: String,
    },
    /// The judge gave no verdict; why.
    Undecided(String),
}

/// One human's label; `rater` is `None` for a label file without a rater column.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HumanLabel {
    /// Who labelled it.
    pub rater: Option<String>,
    /// The label given.
    pub label: Label,
}

/// A labelled item: a task's attempt (`--verdicts`) or a calibration set's entry (`--set`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LabelledItem {
    /// The task id, or the calibration set's `id`.
    pub item: String,
    /// The attempt, for items joined from result files.
    pub attempt: Option<u64>,
    /// At least one.
    pub humans: Vec<HumanLabel>,
    /// What the judge decided.
    pub judge: JudgeVerdict,
}

/// The humans' verdict: the strict majority of their labels, or `None` on a tie. With one
/// rater, that rater's label.
pub fn majority(humans: &[HumanLabel]) -> Option<Label> {
    let pass = humans.iter().filter(|h| h.label.is_pass()).count();
    let fail = humans.len() - pass;
    match pass.cmp(&fail) {
        std::cmp::Ordering::Greater => Some(Label::Pass),
        std::cmp::Ordering::Less => Some(Label::Fail),
        std::cmp::Ordering::Equal => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn labels(list: &[Label]) -> Vec<HumanLabel> {
        list.iter()
            .map(|&label| HumanLabel { rater: None, label })
            .collect()
    }

    #[test]
    fn strict_majority_or_nothing() {
        use Label::{Fail, Pass};
        assert_eq!(majority(&labels(&[Pass])), Some(Pass));
        assert_eq!(majority(&labels(&[Pass, Fail, Fail])), Some(Fail));
        assert_eq!(majority(&labels(&[Pass, Fail])), None);
        assert_eq!(majority(&labels(&[])), None);
    }
}
