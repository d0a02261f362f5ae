//! Several humans per item: how well they agree with each other, and whether the judge agrees
//! with them as well as they agree among themselves.

use super::item::{JudgeVerdict, LabelledItem, majority};
use super::krippendorff::krippendorff_alpha;
use super::{Label, confusion::ratio};
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;

/// Agreement over the items that at least two humans labelled. Every number is computed on
/// those same items, so the human-only and with-judge numbers compare directly.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RaterAgreement {
    /// Distinct raters in the label file.
    pub raters: usize,
    /// Items with two or more human labels.
    pub items: u64,
    /// Krippendorff's α (nominal) among the humans.
    pub krippendorff_alpha_humans: Option<f64>,
    /// The same with the judge added as one more rater.
    pub krippendorff_alpha_with_judge: Option<f64>,
    /// The share of agreeing pairs of human labels on the same item.
    pub human_agreement: Option<f64>,
    /// The share of (judge, human) pairs that agree: the judge's counterpart of
    /// `human_agreement`. A judge as good as a human scores about the same.
    pub judge_human_agreement: Option<f64>,
    /// The share of items (with a strict human majority) where the judge agrees with it.
    pub judge_majority_agreement: Option<f64>,
}

/// `None` when no item has two human labels.
pub fn rater_agreement(items: &[LabelledItem]) -> Option<RaterAgreement> {
    let several: Vec<&LabelledItem> = items.iter().filter(|i| i.humans.len() >= 2).collect();
    if several.is_empty() {
        return None;
    }
    let raters: BTreeSet<Option<&str>> = items
        .iter()
        .flat_map(|i| i.humans.iter().map(|h| h.rater.as_deref()))
        .collect();
    let judge_of = |item: &LabelledItem| match &item.judge {
        JudgeVerdict::Decided { label, .. } => Some(*label),
        JudgeVerdict::Undecided(_) => None,
    };
    let human_units: Vec<Vec<Label>> = several
        .iter()
        .map(|i| i.humans.iter().map(|h| h.label).collect())
        .collect();
    let with_judge: Vec<Vec<Label>> = several
        .iter()
        .zip(&human_units)
        .map(|(item, unit)| unit.iter().copied().chain(judge_of(item)).collect())
        .collect();
    let (mut agreeing_pairs, mut pairs) = (0u64, 0u64);
    let (mut judge_agreeing, mut judge_pairs) = (0u64, 0u64);
    let (mut majority_agreeing, mut majority_items) = (0u64, 0u64);
    for (item, unit) in several.iter().zip(&human_units) {
        let m = unit.len() as u64;
        let pass = unit.iter().filter(|l| l.is_pass()).count() as u64;
        let fail = m - pass;
        agreeing_pairs += pass * pass.saturating_sub(1) + fail * fail.saturating_sub(1);
        pairs += m * (m - 1);
        if let Some(judge) = judge_of(item) {
            judge_agreeing += if judge.is_pass() { pass } else { fail };
            judge_pairs += m;
            if let Some(humans) = majority(&item.humans) {
                majority_items += 1;
                majority_agreeing += u64::from(humans == judge);
            }
        }
    }
    Some(RaterAgreement {
        raters: raters.len(),
        items: several.len() as u64,
        krippendorff_alpha_humans: krippendorff_alpha(&human_units),
        krippendorff_alpha_with_judge: krippendorff_alpha(&with_judge),
        human_agreement: ratio(agreeing_pairs, pairs),
        judge_human_agreement: ratio(judge_agreeing, judge_pairs),
        judge_majority_agreement: ratio(majority_agreeing, majority_items),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::calibrate::item::HumanLabel;
    use Label::{Fail, Pass};

    fn item(id: &str, humans: &[(&str, Label)], judge: Option<Label>) -> LabelledItem {
        LabelledItem {
            item: id.to_owned(),
            attempt: None,
            humans: humans
                .iter()
                .map(|(r, label)| HumanLabel {
                    rater: Some((*r).to_owned()),
                    label: *label,
                })
                .collect(),
            judge: match judge {
                Some(label) => JudgeVerdict::Decided {
                    label,
                    reasoning: String::new(),
                },
                None => JudgeVerdict::Undecided("no verdict".into()),
            },
        }
    }

    #[test]
    fn single_rater_files_have_no_rater_section() {
        let items = [item("a", &[("ann", Pass)], Some(Pass))];
        assert_eq!(rater_agreement(&items), None);
    }

    #[test]
    fn counts_pairs_and_majorities_on_the_multiply_rated_items() {
        let items = [
            item(
                "a",
                &[("ann", Pass), ("bo", Pass), ("cy", Fail)],
                Some(Pass),
            ),
            item("b", &[("ann", Fail), ("bo", Fail)], Some(Pass)),
            item("c", &[("ann", Pass), ("bo", Fail)], Some(Fail)),
            item("d", &[("ann", Pass)], Some(Fail)),
            item("e", &[("ann", Pass), ("bo", Pass)], None),
        ];
        let r = rater_agreement(&items).unwrap();
        assert_eq!((r.raters, r.items), (3, 4));
        // Ordered pairs: a 2 of 6 agree, b 2/2, c 0/2, e 2/2 → 6/12.
        assert_eq!(r.human_agreement, Some(0.5));
        // Judge pairs: a 2/3, b 0/2, c 1/2 (e undecided) → 3/7.
        assert_eq!(r.judge_human_agreement, Some(3.0 / 7.0));
        // Majorities: a PASS (judge agrees), b FAIL (judge disagrees), c tied → 1/2.
        assert_eq!(r.judge_majority_agreement, Some(0.5));
        assert!(r.krippendorff_alpha_humans.is_some());
        assert!(r.krippendorff_alpha_with_judge < r.krippendorff_alpha_humans);
    }

    #[test]
    fn a_judge_that_always_agrees_with_unanimous_humans_keeps_alpha_one() {
        let items = [
            item("a", &[("ann", Pass), ("bo", Pass)], Some(Pass)),
            item("b", &[("ann", Fail), ("bo", Fail)], Some(Fail)),
        ];
        let r = rater_agreement(&items).unwrap();
        assert_eq!(r.krippendorff_alpha_humans, Some(1.0));
        assert_eq!(r.krippendorff_alpha_with_judge, Some(1.0));
        assert_eq!(r.judge_human_agreement, Some(1.0));
    }
}
