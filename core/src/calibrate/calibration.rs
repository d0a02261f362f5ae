//! The whole calibration report of docs/calibrating.md, built from labelled items: what `proctor
//! calibrate` prints and writes as `proctor.calibration/1` JSON.

use super::agreement::{cohen_kappa, gwet_ac1, pabak};
use super::allocation::{LabelSplit, split_labels};
use super::confusion::ratio;
use super::correction::{Correction, JudgeAccuracy, correct};
use super::disagreement::{Direction, Disagreement};
use super::item::{JudgeVerdict, LabelledItem, majority};
use super::raters::{RaterAgreement, rater_agreement};
use super::{Confusion, Rates};
use serde::Serialize;

/// The format tag of a calibration file.
pub const CALIBRATION_FORMAT: &str = "proctor.calibration/1";

/// What else the report needs besides the items.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CalibrationOptions {
    /// The normal quantile of every interval.
    pub z: f64,
    /// From `--results`: the judge passed `.0` of `.1` judged, unlabelled runs.
    pub results: Option<(u64, u64)>,
    /// `--label-budget`: how many more labels to plan for.
    pub label_budget: Option<u64>,
}

/// An item the judge could not decide, left out of every number.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Undecided {
    /// The item's id (the task id, for a result file).
    pub item: String,
    /// The attempt number, when the item is one attempt of a task.
    pub attempt: Option<u64>,
    /// Why the judge gave no verdict.
    pub why: String,
}

/// The calibration report. Field names are the metric names of docs/metrics.md in snake_case.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Calibration {
    /// The report's format tag, for readers to check before parsing.
    pub format: String,
    /// The files this was computed from (set by the command line).
    pub inputs: Vec<String>,
    /// The judges whose verdicts were measured, `provider/model (template)`, when known.
    pub judges: Vec<String>,
    /// Labelled items read.
    pub items: u64,
    /// Items in the confusion matrix: a human verdict and a judge verdict.
    pub n: u64,
    /// Labelled items without a judge verdict.
    pub judge_undecided: u64,
    /// Items whose human labels tie (several raters), without a human verdict.
    pub human_ties: u64,
    /// Share of decided items the humans passed.
    pub human_pass_share: Option<f64>,
    /// Share of decided items the judge passed.
    pub judge_pass_share: Option<f64>,
    /// Judge against human verdicts, over the items both decided.
    pub confusion_matrix: Confusion,
    /// Agreement, TPR, TNR and the rest, read off the confusion matrix.
    #[serde(flatten)]
    pub rates: Rates,
    /// Cohen's κ: agreement beyond chance; empty when undefined.
    pub cohen_kappa: Option<f64>,
    /// Prevalence- and bias-adjusted κ; empty when undefined.
    pub pabak: Option<f64>,
    /// Gwet's AC1, steadier than κ when nearly every item passes; empty when undefined.
    pub gwet_ac1: Option<f64>,
    /// Several raters: Krippendorff's α and pairwise agreement.
    pub raters: Option<RaterAgreement>,
    /// With `--results`: the judge's raw and corrected pass rates.
    pub correction: Option<Correction>,
    /// With `--results`: where the next labels help most.
    pub label_split: Option<LabelSplit>,
    /// What limits the numbers above, in plain words.
    pub warnings: Vec<String>,
    /// In review order (see [`Disagreement::review_order`]).
    pub disagreements: Vec<Disagreement>,
    /// Items the judge could not decide.
    pub undecided: Vec<Undecided>,
}

impl Calibration {
    /// Builds the report. Items whose humans tie, or whose judge did not decide, are counted
    /// and left out of the matrix.
    pub fn build(items: &[LabelledItem], options: &CalibrationOptions) -> Calibration {
        let mut confusion = Confusion::default();
        let mut disagreements = Vec::new();
        let mut undecided = Vec::new();
        let mut human_ties = 0;
        for item in items {
            let human = majority(&item.humans);
            match (&item.judge, human) {
                (JudgeVerdict::Undecided(why), _) => undecided.push(Undecided {
                    item: item.item.clone(),
                    attempt: item.attempt,
                    why: why.clone(),
                }),
                (JudgeVerdict::Decided { .. }, None) => human_ties += 1,
                (JudgeVerdict::Decided { label, reasoning }, Some(human)) => {
                    confusion.add(human, *label);
                    if human != *label {
                        disagreements.push(Disagreement {
                            item: item.item.clone(),
                            attempt: item.attempt,
                            direction: if label.is_pass() {
                                Direction::FalsePass
                            } else {
                                Direction::FalseFail
                            },
                            human,
                            judge: *label,
                            human_votes: item.humans.iter().filter(|h| h.label == human).count()
                                as u64,
                            human_labels: item.humans.len() as u64,
                            reasoning: reasoning.clone(),
                        });
                    }
                }
            }
        }
        disagreements.sort_by(Disagreement::review_order);
        let one_human_class =
            confusion.n() > 0 && (confusion.human_pass() == 0 || confusion.human_fail() == 0);
        let correction = options
            .results
            .map(|(passed, runs)| correct(passed, runs, &confusion, options.z));
        let label_split = correction.as_ref().and_then(|c| {
            let judge = JudgeAccuracy::of(&confusion)?;
            c.corrected_pass_rate?;
            split_labels(
                c.raw_pass_rate?,
                c.runs,
                &judge,
                options.label_budget,
                options.z,
            )
        });
        let mut report = Calibration {
            format: CALIBRATION_FORMAT.to_owned(),
            inputs: Vec::new(),
            judges: Vec::new(),
            items: items.len() as u64,
            n: confusion.n(),
            judge_undecided: undecided.len() as u64,
            human_ties,
            human_pass_share: ratio(confusion.human_pass(), confusion.n()),
            judge_pass_share: ratio(confusion.judge_pass(), confusion.n()),
            confusion_matrix: confusion,
            rates: Rates::of(&confusion, options.z),
            // With one human class p_e equals p_o for any judge: κ is 0 or 0/0 and says
            // nothing, so it is reported undefined rather than as a misleading 0.
            cohen_kappa: cohen_kappa(&confusion).filter(|_| !one_human_class),
            pabak: pabak(&confusion),
            gwet_ac1: gwet_ac1(&confusion),
            raters: rater_agreement(items),
            correction,
            label_split,
            warnings: Vec::new(),
            disagreements,
            undecided,
        };
        report.warnings = warnings(&report, one_human_class);
        report
    }
}

/// The plain-words limits of a report.
fn warnings(r: &Calibration, one_human_class: bool) -> Vec<String> {
    let c = &r.confusion_matrix;
    let mut out = Vec::new();
    if r.n == 0 {
        out.push(
            "no item has both a human verdict and a judge verdict, so nothing can be computed"
                .to_owned(),
        );
    } else if one_human_class {
        let (class, other) = if c.human_fail() == 0 {
            ("PASS", "FAIL")
        } else {
            ("FAIL", "PASS")
        };
        out.push(format!(
            "all {} human verdicts are {class}: {} balanced accuracy, Youden's J and Cohen's κ are undefined. κ corrects agreement for chance from both raters' class shares; with a single human class the chance agreement equals the observed agreement whatever the judge does, so κ would say nothing. Accuracy, {}, precision, PABAK and AC1 are shown. Label some {other} items.",
            r.n,
            if class == "PASS" { "TNR," } else { "TPR," },
            if class == "PASS" { "TPR" } else { "TNR" },
        ));
    } else if c.judge_pass() == 0 || c.judge_fail() == 0 {
        let verdict = if c.judge_fail() == 0 { "PASS" } else { "FAIL" };
        out.push(format!(
            "the judge said {verdict} on every item: Cohen's κ is 0, no better than chance"
        ));
    }
    if r.judge_undecided > 0 {
        out.push(format!(
            "{} labelled item{} had no judge verdict and {} left out (listed under undecided)",
            r.judge_undecided,
            plural(r.judge_undecided),
            if r.judge_undecided == 1 { "is" } else { "are" }
        ));
    }
    if r.human_ties > 0 {
        out.push(format!(
            "{} item{} with tied human labels {} left out: there is no human verdict to compare with",
            r.human_ties,
            plural(r.human_ties),
            if r.human_ties == 1 { "is" } else { "are" }
        ));
    }
    out
}

fn plural(n: u64) -> &'static str {
    if n == 1 { "" } else { "s" }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::calibrate::{HumanLabel, Label};
    use crate::stats::Z95;

    fn item(id: &str, human: Label, judge: Label) -> LabelledItem {
        LabelledItem {
            item: id.to_owned(),
            attempt: Some(0),
            humans: vec![HumanLabel {
                rater: None,
                label: human,
            }],
            judge: JudgeVerdict::Decided {
                label: judge,
                reasoning: format!("{id} reasoning"),
            },
        }
    }

    /// The items of the worked example of docs/calibrating.md: TP40 FN10 FP5 TN45.
    fn design_items() -> Vec<LabelledItem> {
        let mut items = Vec::new();
        for (count, human, judge) in [
            (40, Label::Pass, Label::Pass),
            (10, Label::Pass, Label::Fail),
            (5, Label::Fail, Label::Pass),
            (45, Label::Fail, Label::Fail),
        ] {
            for i in 0..count {
                items.push(item(&format!("{human}-{judge}-{i:02}"), human, judge));
            }
        }
        items
    }

    fn options() -> CalibrationOptions {
        CalibrationOptions {
            z: Z95,
            results: None,
            label_budget: None,
        }
    }

    fn round4(x: Option<f64>) -> f64 {
        (x.unwrap() * 1e4).round() / 1e4
    }

    #[test]
    fn design_check_end_to_end() {
        let r = Calibration::build(&design_items(), &options());
        assert_eq!(r.confusion_matrix, Confusion::new(40, 10, 5, 45));
        assert_eq!(r.n, 100);
        assert_eq!(round4(r.rates.accuracy), 0.85);
        assert_eq!(round4(r.rates.tpr), 0.8);
        assert_eq!(round4(r.rates.tnr), 0.9);
        assert_eq!(round4(r.cohen_kappa), 0.7);
        assert_eq!(round4(r.gwet_ac1), 0.7007);
        assert_eq!(round4(r.pabak), 0.7);
        assert_eq!(
            (r.human_pass_share, r.judge_pass_share),
            (Some(0.5), Some(0.45))
        );
        assert_eq!(r.disagreements.len(), 15);
        assert_eq!(r.disagreements[0].direction, Direction::FalsePass);
        assert_eq!(r.disagreements[0].item, "FAIL-PASS-00");
        assert_eq!(r.disagreements[0].reasoning, "FAIL-PASS-00 reasoning");
        assert!(r.warnings.is_empty(), "{:?}", r.warnings);
        assert_eq!((r.correction.clone(), r.raters.clone()), (None, None));
    }

    #[test]
    fn with_results_corrects_and_advises() {
        let opts = CalibrationOptions {
            results: Some((600, 1000)),
            label_budget: Some(50),
            ..options()
        };
        let r = Calibration::build(&design_items(), &opts);
        let c = r.correction.unwrap();
        // (0.6 + 0.9 − 1) / 0.7
        assert_eq!(round4(c.corrected_pass_rate), 0.7143);
        let split = r.label_split.unwrap();
        assert_eq!(split.pass_labels.unwrap() + split.fail_labels.unwrap(), 50);
    }

    #[test]
    fn a_single_human_class_reports_what_it_can_and_says_why_kappa_is_not() {
        let items = vec![
            item("a", Label::Pass, Label::Pass),
            item("b", Label::Pass, Label::Pass),
            item("c", Label::Pass, Label::Fail),
        ];
        let r = Calibration::build(
            &items,
            &CalibrationOptions {
                results: Some((5, 10)),
                ..options()
            },
        );
        assert_eq!(r.cohen_kappa, None);
        assert_eq!(r.rates.tnr, None);
        assert_eq!(round4(r.rates.tpr), 0.6667);
        assert_eq!(round4(r.rates.accuracy), 0.6667);
        assert!(r.pabak.is_some() && r.gwet_ac1.is_some());
        assert!(
            r.warnings[0].starts_with("all 3 human verdicts are PASS"),
            "{:?}",
            r.warnings
        );
        assert!(r.warnings[0].contains("κ would say nothing"));
        assert_eq!(r.correction.unwrap().corrected_pass_rate, None);
        assert_eq!(r.label_split, None);
    }

    #[test]
    fn undecided_judges_and_tied_humans_are_counted_apart() {
        let mut tied = item("tie", Label::Pass, Label::Pass);
        tied.humans.push(HumanLabel {
            rater: Some("bo".into()),
            label: Label::Fail,
        });
        let undecided = LabelledItem {
            judge: JudgeVerdict::Undecided("no majority".into()),
            ..item("u", Label::Fail, Label::Fail)
        };
        let items = vec![item("a", Label::Pass, Label::Pass), tied, undecided];
        let r = Calibration::build(&items, &options());
        assert_eq!(
            (r.items, r.n, r.human_ties, r.judge_undecided),
            (3, 1, 1, 1)
        );
        assert_eq!(r.undecided[0].why, "no majority");
        assert_eq!(r.warnings.len(), 3, "{:?}", r.warnings);
        assert!(r.raters.is_some());
    }

    #[test]
    fn nothing_to_compute_says_so() {
        let r = Calibration::build(&[], &options());
        assert_eq!(r.n, 0);
        assert_eq!((r.rates.accuracy, r.cohen_kappa), (None, None));
        assert!(r.warnings[0].starts_with("no item has both"));
    }

    #[test]
    fn json_uses_the_design_names() {
        let r = Calibration::build(&design_items(), &options());
        let json = serde_json::to_value(&r).unwrap();
        for key in [
            "n",
            "human_pass_share",
            "judge_pass_share",
            "confusion_matrix",
            "accuracy",
            "balanced_accuracy",
            "tpr",
            "tpr_ci",
            "tnr",
            "tnr_ci",
            "precision_pass",
            "f1_pass",
            "precision_fail",
            "f1_fail",
            "cohen_kappa",
            "pabak",
            "gwet_ac1",
            "youden_j",
            "disagreements",
        ] {
            assert!(json.get(key).is_some(), "{key} missing");
        }
        assert_eq!(json["format"], CALIBRATION_FORMAT);
        assert_eq!(json["confusion_matrix"]["fn"], 10);
    }
}
