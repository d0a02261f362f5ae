//! `--format markdown`: a calibration fit for a pull-request comment, TPR and TNR first.

use super::super::numbers::{MISSING, interval, rate};
use super::{count, disagreement_name, humans, one_line, undecided_name};
use crate::render::markdown::table;
use proctor_core::calibrate::{Calibration, Direction};
use std::fmt::Write;

pub fn render(c: &Calibration) -> String {
    let m = &c.confusion_matrix;
    let r = &c.rates;
    let mut out = String::new();
    let _ = writeln!(out, "### proctor calibrate");
    let _ = writeln!(out);
    let judges = if c.judges.is_empty() {
        String::new()
    } else {
        format!("Judge {}. ", c.judges.join(", "))
    };
    let _ = writeln!(
        out,
        "{judges}{} labelled, {} with a human and a judge verdict ({}).",
        count(c.items, "item", "items"),
        c.n,
        c.inputs.join(", ")
    );
    let _ = writeln!(out);
    let _ = writeln!(
        out,
        "**TPR {}** (95% CI {}): the judge passes {} of {} items humans passed. **TNR {}** (95% CI {}): it fails {} of {} items humans failed.",
        rate(r.tpr),
        interval(r.tpr_ci),
        m.tp,
        m.human_pass(),
        rate(r.tnr),
        interval(r.tnr_ci),
        m.tn,
        m.human_fail()
    );
    let _ = writeln!(out);
    out.push_str(&table(&[
        vec![String::new(), "judge PASS".into(), "judge FAIL".into()],
        vec![
            "**human PASS**".into(),
            format!("{} (TP)", m.tp),
            format!("{} (FN)", m.fn_),
        ],
        vec![
            "**human FAIL**".into(),
            format!("{} (FP)", m.fp),
            format!("{} (TN)", m.tn),
        ],
    ]));
    let _ = writeln!(out);
    out.push_str(&table(&[
        vec!["metric".into(), "value".into()],
        vec!["accuracy".into(), rate(r.accuracy)],
        vec!["balanced accuracy".into(), rate(r.balanced_accuracy)],
        vec![
            "precision PASS / F1 PASS".into(),
            format!("{} / {}", rate(r.precision_pass), rate(r.f1_pass)),
        ],
        vec![
            "precision FAIL / F1 FAIL".into(),
            format!("{} / {}", rate(r.precision_fail), rate(r.f1_fail)),
        ],
        vec!["Cohen's κ".into(), rate(c.cohen_kappa)],
        vec!["PABAK".into(), rate(c.pabak)],
        vec!["Gwet's AC1".into(), rate(c.gwet_ac1)],
        vec!["Youden's J".into(), rate(r.youden_j)],
        vec!["human pass share".into(), rate(c.human_pass_share)],
        vec!["judge pass share".into(), rate(c.judge_pass_share)],
    ]));
    if let Some(raters) = &c.raters {
        let _ = writeln!(out);
        let _ = writeln!(
            out,
            "{} raters; {} labelled by two or more. Krippendorff's α: humans {}, with the judge {}. Agreement: human-human {}, judge-human {}, judge-majority {}.",
            raters.raters,
            count(raters.items, "item", "items"),
            rate(raters.krippendorff_alpha_humans),
            rate(raters.krippendorff_alpha_with_judge),
            rate(raters.human_agreement),
            rate(raters.judge_human_agreement),
            rate(raters.judge_majority_agreement)
        );
    }
    if let Some(k) = &c.correction {
        let _ = writeln!(out);
        let corrected = match k.corrected_pass_rate {
            Some(v) => format!("**{v:.4}** (95% CI {})", interval(k.corrected_pass_rate_ci)),
            None => MISSING.to_owned(),
        };
        let _ = writeln!(
            out,
            "Over {} judged runs the judge's pass rate is {}; corrected (Rogan–Gladen, Lee et al. interval) {corrected}.",
            k.runs,
            rate(k.raw_pass_rate)
        );
        if let Some(s) = &c.label_split {
            let _ = writeln!(out);
            match (s.budget, s.pass_labels, s.fail_labels) {
                (Some(budget), Some(p), Some(f)) => {
                    let _ = writeln!(
                        out,
                        "Next labels: of the next {budget}, label {p} human-PASS and {f} human-FAIL items; the interval's half-width goes from {:.4} to {}.",
                        s.half_width,
                        rate(s.projected_half_width)
                    );
                }
                _ => {
                    let _ = writeln!(
                        out,
                        "Next labels: {:.0}% of all labels should be human-PASS items; the interval's half-width is {:.4}.",
                        s.optimal_pass_share * 100.0,
                        s.half_width
                    );
                }
            }
        }
        if let Some(w) = &k.warning {
            let _ = writeln!(out);
            let _ = writeln!(out, "> **Warning:** {w}");
        }
    }
    for w in &c.warnings {
        let _ = writeln!(out);
        let _ = writeln!(out, "> **Warning:** {w}");
    }
    if !c.disagreements.is_empty() {
        let _ = writeln!(out);
        let _ = writeln!(
            out,
            "#### {} (false passes first)",
            count(
                c.disagreements.len() as u64,
                "disagreement",
                "disagreements"
            )
        );
        let _ = writeln!(out);
        for d in &c.disagreements {
            let direction = match d.direction {
                Direction::FalsePass => "false pass",
                Direction::FalseFail => "false fail",
            };
            let _ = writeln!(
                out,
                "- **{direction}** `{}`: {}, judge {}. {}",
                disagreement_name(d),
                humans(d),
                d.judge,
                one_line(&d.reasoning)
            );
        }
    }
    if !c.undecided.is_empty() {
        let _ = writeln!(out);
        let _ = writeln!(out, "#### No judge verdict");
        let _ = writeln!(out);
        for u in &c.undecided {
            let _ = writeln!(out, "- `{}`: {}", undecided_name(u), one_line(&u.why));
        }
    }
    out
}
