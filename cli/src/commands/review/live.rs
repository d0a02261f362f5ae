//! The calibration the page shows: `proctor calibrate --verdicts R --labels L --results R`,
//! computed by that command's code on the labels file as it is now, after every label.
//!
//! Only the summary numbers go to the page. The per-attempt disagreements would show the
//! judge's verdicts, which a blind review hides.

use crate::commands::calibrate::problems::InputProblems;
use crate::commands::calibrate::verdicts_calibration;
use serde_json::{Map, Value, json};
use std::path::{Path, PathBuf};

/// The fields of the calibration JSON the page shows.
const SHOWN: [&str; 10] = [
    "items",
    "n",
    "confusion_matrix",
    "tpr",
    "tpr_ci",
    "tnr",
    "tnr_ci",
    "cohen_kappa",
    "correction",
    "warnings",
];

/// The command whose numbers these are, for the page to name.
pub fn command(results: &[PathBuf], labels: &Path) -> String {
    let results: Vec<String> = results.iter().map(|p| p.display().to_string()).collect();
    let verdicts = results
        .iter()
        .map(|r| format!("--verdicts {r}"))
        .collect::<Vec<_>>()
        .join(" ");
    let runs = results
        .iter()
        .map(|r| format!("--results {r}"))
        .collect::<Vec<_>>()
        .join(" ");
    format!(
        "proctor calibrate {verdicts} --labels {} {runs}",
        labels.display()
    )
}

/// The numbers now, or why there are none; `labels` is how many the file holds.
pub fn calibration(results: &[PathBuf], labels_file: &Path, labels: usize) -> Value {
    if labels == 0 {
        return json!({"error": "no labels yet"});
    }
    let mut problems = InputProblems::kept();
    match verdicts_calibration(results, labels_file, results, None, &mut problems) {
        Ok(calibration) => {
            let Value::Object(all) =
                serde_json::to_value(&calibration).expect("a calibration always serialises")
            else {
                unreachable!("a calibration is an object")
            };
            let mut shown: Map<String, Value> = SHOWN
                .iter()
                .filter_map(|key| Some((key.to_string(), all.get(*key)?.clone())))
                .collect();
            shown.insert("problems".to_owned(), json!(problems.messages()));
            Value::Object(shown)
        }
        Err(e) => json!({"error": format!("{e:#}")}),
    }
}
