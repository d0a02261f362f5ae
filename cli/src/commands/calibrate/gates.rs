//! `--min-kappa`, `--min-tpr`, `--min-tnr`: exit 1 when the judge agrees with humans less than
//! required. A number that cannot be computed fails its gate: missing data is never a pass.

use crate::exit::Failure;
use proctor_core::calibrate::Calibration;

#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Gates {
    pub min_kappa: Option<f64>,
    pub min_tpr: Option<f64>,
    pub min_tnr: Option<f64>,
}

pub fn check(gates: &Gates, c: &Calibration) -> anyhow::Result<()> {
    let mut failed = Vec::new();
    let checks = [
        ("Cohen's κ", "--min-kappa", gates.min_kappa, c.cohen_kappa),
        ("TPR", "--min-tpr", gates.min_tpr, c.rates.tpr),
        ("TNR", "--min-tnr", gates.min_tnr, c.rates.tnr),
    ];
    for (name, flag, min, value) in checks {
        let Some(min) = min else { continue };
        match value {
            Some(v) if v >= min => {}
            Some(v) => failed.push(format!("{name} {v:.4} is below {flag} {min}")),
            None => failed.push(format!(
                "{name} is undefined for these labels, so it cannot reach {flag} {min}"
            )),
        }
    }
    if failed.is_empty() {
        Ok(())
    } else {
        Err(Failure::Gate(failed.join("; ")).into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proctor_core::calibrate::{
        CalibrationOptions, HumanLabel, JudgeVerdict, Label, LabelledItem,
    };
    use proctor_core::stats::Z95;

    fn calibration(pairs: &[(Label, Label)]) -> Calibration {
        let items: Vec<LabelledItem> = pairs
            .iter()
            .enumerate()
            .map(|(i, (human, judge))| LabelledItem {
                item: i.to_string(),
                attempt: None,
                humans: vec![HumanLabel {
                    rater: None,
                    label: *human,
                }],
                judge: JudgeVerdict::Decided {
                    label: *judge,
                    reasoning: String::new(),
                },
            })
            .collect();
        Calibration::build(
            &items,
            &CalibrationOptions {
                z: Z95,
                results: None,
                label_budget: None,
            },
        )
    }

    #[test]
    fn passes_at_the_threshold_and_names_every_failure() {
        use Label::{Fail, Pass};
        let c = calibration(&[(Pass, Pass), (Pass, Fail), (Fail, Fail), (Fail, Fail)]);
        let at = Gates {
            min_tpr: Some(0.5),
            min_tnr: Some(1.0),
            min_kappa: None,
        };
        assert!(check(&at, &c).is_ok());
        let above = Gates {
            min_tpr: Some(0.6),
            min_tnr: Some(1.0),
            min_kappa: Some(0.9),
        };
        let err = check(&above, &c).unwrap_err().to_string();
        assert!(err.contains("TPR 0.5000 is below --min-tpr 0.6"), "{err}");
        assert!(
            err.contains("Cohen's κ 0.5000 is below --min-kappa 0.9"),
            "{err}"
        );
        assert!(!err.contains("TNR"), "{err}");
    }

    #[test]
    fn an_undefined_number_fails_its_gate() {
        let c = calibration(&[(Label::Pass, Label::Pass)]);
        let err = check(
            &Gates {
                min_kappa: Some(0.0),
                ..Gates::default()
            },
            &c,
        )
        .unwrap_err();
        assert!(err.to_string().contains("Cohen's κ is undefined"), "{err}");
    }
}
