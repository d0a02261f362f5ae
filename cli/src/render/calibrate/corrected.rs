//! The corrected pass rate beside the raw one, in the output of `proctor report` and `proctor
//! compare` with `--calibration CAL.json`. Text formats get a few more lines; JSON gets more
//! fields in the same object.

use super::super::Shape;
use super::super::numbers::{MISSING, interval, rate};
use super::super::table::columns;
use proctor_core::calibrate::{CalibrationFile, CorrectedSuite, Rates};
use proctor_core::stats::Z95;
use proctor_core::summary::Summary;
use serde_json::{Map, Value, json};
use std::fmt::Write;

/// The calibration a correction used, as its output names it.
#[derive(Debug, Clone, Copy)]
pub struct Source<'a> {
    pub path: &'a str,
    pub file: &'a CalibrationFile,
}

impl Source<'_> {
    fn rates(&self) -> Rates {
        Rates::of(&self.file.confusion_matrix, Z95)
    }

    /// "TPR 0.9000, TNR 0.8000 from CAL.json".
    fn describe(&self) -> String {
        let r = self.rates();
        format!(
            "judge TPR {}, TNR {} from {}",
            rate(r.tpr),
            rate(r.tnr),
            self.path
        )
    }

    fn json(&self) -> Map<String, Value> {
        let r = self.rates();
        let mut map = Map::new();
        map.insert("file".into(), json!(self.path));
        map.insert("judges".into(), json!(self.file.judges));
        map.insert("tpr".into(), json!(r.tpr));
        map.insert("tnr".into(), json!(r.tnr));
        map.insert("youden_j".into(), json!(r.youden_j));
        map
    }
}

/// The corrected rate and what it rests on, in words.
fn sentence(c: &CorrectedSuite) -> String {
    let value = match c.corrected_pass_rate {
        Some(v) => format!("{v:.4}  95% CI {}", interval(c.corrected_pass_rate_ci)),
        None => MISSING.to_owned(),
    };
    format!(
        "{value}  (raw {}; the judge decided {} of {} graded runs: its pass rate {} corrected to {})",
        rate(c.pass_rate),
        c.judged_runs,
        c.graded,
        rate(c.judge.raw_pass_rate),
        rate(c.judge.corrected_pass_rate)
    )
}

fn side_json(c: &CorrectedSuite) -> Value {
    json!({
        "pass_rate": c.pass_rate,
        "corrected_pass_rate": c.corrected_pass_rate,
        "corrected_pass_rate_ci": c.corrected_pass_rate_ci,
        "graded": c.graded,
        "judged_runs": c.judged_runs,
        "judge_pass_rate": c.judge.raw_pass_rate,
        "corrected_judge_pass_rate": c.judge.corrected_pass_rate,
        "corrected_judge_pass_rate_ci": c.judge.corrected_pass_rate_ci,
        "warning": c.judge.warning,
    })
}

/// Adds fields to a JSON object printed by another renderer.
fn extend_json(text: &str, fields: Map<String, Value>) -> String {
    let mut value: Value = serde_json::from_str(text).expect("renderers print valid JSON");
    if let Value::Object(object) = &mut value {
        object.extend(fields);
    }
    let mut text = serde_json::to_string_pretty(&value).expect("JSON values serialise");
    text.push('\n');
    text
}

/// `proctor report --calibration`: the summary with the corrected pass rate added.
pub fn report(
    shape: Shape,
    title: &str,
    summary: &Summary,
    c: &CorrectedSuite,
    source: Source,
) -> anyhow::Result<String> {
    Ok(match shape {
        Shape::Json => {
            let mut fields = Map::new();
            fields.insert("corrected_pass_rate".into(), json!(c.corrected_pass_rate));
            fields.insert(
                "corrected_pass_rate_ci".into(),
                json!(c.corrected_pass_rate_ci),
            );
            let mut calibration = source.json();
            if let Value::Object(side) = side_json(c) {
                calibration.extend(side);
            }
            fields.insert("calibration".into(), Value::Object(calibration));
            extend_json(&super::super::json::render(summary), fields)
        }
        Shape::Table => {
            let mut text = super::super::table::render(title, summary);
            text.push('\n');
            text.push_str(&columns(&[vec![
                "corrected pass rate".to_owned(),
                sentence(c),
            ]]));
            let _ = writeln!(text, "{}", source.describe());
            if let Some(w) = &c.judge.warning {
                let _ = writeln!(text, "warning: {w}");
            }
            text
        }
        Shape::Markdown => {
            let mut text = super::super::markdown::render(title, summary);
            let _ = writeln!(text);
            let _ = writeln!(
                text,
                "**Corrected pass rate** {}; {}.",
                sentence(c),
                source.describe()
            );
            if let Some(w) = &c.judge.warning {
                let _ = writeln!(text);
                let _ = writeln!(text, "> **Warning:** {w}");
            }
            text
        }
    })
}

/// `proctor compare --calibration`: the comparison text with both sides' corrected rates.
pub fn compare(
    text: String,
    shape: Shape,
    old: &CorrectedSuite,
    new: &CorrectedSuite,
    source: Source,
) -> String {
    let warning = [&old.judge.warning, &new.judge.warning]
        .into_iter()
        .flatten()
        .next();
    let mut text = text;
    match shape {
        Shape::Json => {
            let mut calibration = source.json();
            calibration.insert("old".into(), side_json(old));
            calibration.insert("new".into(), side_json(new));
            let mut fields = Map::new();
            fields.insert("calibration".into(), Value::Object(calibration));
            return extend_json(&text, fields);
        }
        Shape::Table => {
            let _ = writeln!(text);
            let _ = writeln!(text, "corrected pass rate ({}):", source.describe());
            text.push_str(&columns(&[
                vec!["  old".to_owned(), sentence(old)],
                vec!["  new".to_owned(), sentence(new)],
            ]));
            if let Some(w) = warning {
                let _ = writeln!(text, "warning: {w}");
            }
        }
        Shape::Markdown => {
            let _ = writeln!(text);
            let _ = writeln!(text, "**Corrected pass rate** ({}):", source.describe());
            let _ = writeln!(text);
            let _ = writeln!(text, "- old: {}", sentence(old));
            let _ = writeln!(text, "- new: {}", sentence(new));
            if let Some(w) = warning {
                let _ = writeln!(text);
                let _ = writeln!(text, "> **Warning:** {w}");
            }
        }
    }
    text
}
