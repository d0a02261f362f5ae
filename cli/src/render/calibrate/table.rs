//! `--format table`: TPR and TNR first (accuracy alone can hide a judge that passes almost
//! everything), then the matrix, the agreement numbers, the correction and the disagreements
//! with the judge's reasoning.

use super::super::numbers::{MISSING, interval, rate};
use super::super::table::columns;
use super::{count, disagreement_name, humans, one_line, undecided_name};
use proctor_core::calibrate::{Calibration, Direction};
use std::fmt::Write;

/// Reasoning longer than this is cut in the table; JSON and markdown carry it whole.
const REASONING_CHARS: usize = 300;

pub fn render(c: &Calibration) -> String {
    let mut out = String::new();
    let m = &c.confusion_matrix;
    let r = &c.rates;
    let _ = writeln!(out, "proctor calibrate {}", c.inputs.join(" "));
    if !c.judges.is_empty() {
        let _ = writeln!(out, "judge: {}", c.judges.join(", "));
    }
    let _ = writeln!(
        out,
        "{} labelled, {} with a human and a judge verdict",
        count(c.items, "item", "items"),
        c.n
    );
    let _ = writeln!(out);
    out.push_str(&columns(&[
        vec![
            "TPR".to_owned(),
            rate(r.tpr),
            format!("95% CI {}", interval(r.tpr_ci)),
            format!(
                "the judge passes {} of {} items humans passed",
                m.tp,
                m.human_pass()
            ),
        ],
        vec![
            "TNR".to_owned(),
            rate(r.tnr),
            format!("95% CI {}", interval(r.tnr_ci)),
            format!(
                "the judge fails {} of {} items humans failed",
                m.tn,
                m.human_fail()
            ),
        ],
    ]));
    let _ = writeln!(out);
    out.push_str(&columns(&[
        vec![String::new(), "judge PASS".into(), "judge FAIL".into()],
        vec![
            "human PASS".into(),
            format!("{} (TP)", m.tp),
            format!("{} (FN)", m.fn_),
        ],
        vec![
            "human FAIL".into(),
            format!("{} (FP)", m.fp),
            format!("{} (TN)", m.tn),
        ],
    ]));
    let _ = writeln!(out);
    out.push_str(&columns(&[
        vec!["accuracy".into(), rate(r.accuracy)],
        vec!["balanced accuracy".into(), rate(r.balanced_accuracy)],
        vec![
            "precision / F1".into(),
            format!(
                "PASS {} / {}, FAIL {} / {}",
                rate(r.precision_pass),
                rate(r.f1_pass),
                rate(r.precision_fail),
                rate(r.f1_fail)
            ),
        ],
        vec!["Cohen's κ".into(), rate(c.cohen_kappa)],
        vec!["PABAK".into(), rate(c.pabak)],
        vec!["Gwet's AC1".into(), rate(c.gwet_ac1)],
        vec!["Youden's J".into(), rate(r.youden_j)],
        vec![
            "pass share".into(),
            format!(
                "human {}, judge {}",
                rate(c.human_pass_share),
                rate(c.judge_pass_share)
            ),
        ],
    ]));
    if let Some(raters) = &c.raters {
        let _ = writeln!(out);
        let _ = writeln!(
            out,
            "several raters: {}, {} labelled by two or more",
            raters.raters,
            count(raters.items, "item", "items")
        );
        out.push_str(&columns(&[
            vec![
                "Krippendorff's α".into(),
                format!(
                    "humans {}, with the judge {}",
                    rate(raters.krippendorff_alpha_humans),
                    rate(raters.krippendorff_alpha_with_judge)
                ),
            ],
            vec![
                "agreement".into(),
                format!(
                    "human-human {}, judge-human {}, judge-majority {}",
                    rate(raters.human_agreement),
                    rate(raters.judge_human_agreement),
                    rate(raters.judge_majority_agreement)
                ),
            ],
        ]));
    }
    if let Some(k) = &c.correction {
        let _ = writeln!(out);
        let _ = writeln!(out, "corrected pass rate over {} judged runs", k.runs);
        let mut rows = vec![
            vec![
                "raw".to_owned(),
                format!(
                    "{}  ({} of {} passed by the judge)",
                    rate(k.raw_pass_rate),
                    k.judge_passed,
                    k.runs
                ),
            ],
            vec![
                "corrected".to_owned(),
                match k.corrected_pass_rate {
                    Some(v) => format!(
                        "{v:.4}  95% CI {}  (Rogan–Gladen, Lee et al. interval)",
                        interval(k.corrected_pass_rate_ci)
                    ),
                    None => format!("{MISSING}  (see the warning)"),
                },
            ],
        ];
        if let Some(s) = &c.label_split {
            let advice = match (s.budget, s.pass_labels, s.fail_labels) {
                (Some(m), Some(p), Some(f)) => format!(
                    "of the next {m}: {p} human-PASS and {f} human-FAIL items; the CI half-width goes from {:.4} to {}",
                    s.half_width,
                    rate(s.projected_half_width)
                ),
                _ => format!(
                    "{:.0}% of all labels human-PASS (pass --label-budget M for counts); CI half-width now {:.4}",
                    s.optimal_pass_share * 100.0,
                    s.half_width
                ),
            };
            rows.push(vec!["next labels".to_owned(), advice]);
        }
        out.push_str(&columns(&rows));
        if let Some(w) = &k.warning {
            let _ = writeln!(out, "warning: {w}");
        }
    }
    if !c.warnings.is_empty() {
        let _ = writeln!(out);
        for w in &c.warnings {
            let _ = writeln!(out, "warning: {w}");
        }
    }
    if !c.disagreements.is_empty() {
        let _ = writeln!(out);
        let _ = writeln!(
            out,
            "{} (false passes first, clearest first):",
            count(
                c.disagreements.len() as u64,
                "disagreement",
                "disagreements"
            )
        );
        for d in &c.disagreements {
            let direction = match d.direction {
                Direction::FalsePass => "false pass",
                Direction::FalseFail => "false fail",
            };
            let _ = writeln!(
                out,
                "  {direction}  {}  {}, judge {}",
                disagreement_name(d),
                humans(d),
                d.judge
            );
            let _ = writeln!(out, "      {}", cut(&one_line(&d.reasoning)));
        }
    }
    if !c.undecided.is_empty() {
        let _ = writeln!(out);
        let _ = writeln!(out, "no judge verdict:");
        for u in &c.undecided {
            let _ = writeln!(out, "  {}  {}", undecided_name(u), cut(&one_line(&u.why)));
        }
    }
    out
}

fn cut(text: &str) -> String {
    if text.chars().count() <= REASONING_CHARS {
        text.to_owned()
    } else {
        let kept: String = text.chars().take(REASONING_CHARS).collect();
        format!("{kept}…")
    }
}
