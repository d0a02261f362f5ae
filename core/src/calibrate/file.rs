//! Reading back a calibration that `proctor calibrate --out` wrote: report and compare need
//! only the confusion matrix (the judge's TPR and TNR and how many labels they rest on).

use super::Confusion;
use super::error::CalibrationFileError;
use serde::Deserialize;

const FORMAT_PREFIX: &str = "proctor.calibration/";
const FORMAT_VERSION: u32 = 1;

/// The parts of a calibration file that other commands use; the rest is ignored.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct CalibrationFile {
    /// The format tag, checked before the rest is trusted.
    pub format: String,
    /// The judge against the humans.
    pub confusion_matrix: Confusion,
    /// The judges measured, when the file records them.
    #[serde(default)]
    pub judges: Vec<String>,
}

impl CalibrationFile {
    /// Parses the JSON, refusing other formats and newer versions.
    pub fn parse(text: &str) -> Result<Self, CalibrationFileError> {
        let file: CalibrationFile = serde_json::from_str(text)?;
        let version = file
            .format
            .strip_prefix(FORMAT_PREFIX)
            .and_then(|v| v.parse::<u32>().ok())
            .ok_or_else(|| CalibrationFileError::Foreign {
                found: file.format.clone(),
            })?;
        if version > FORMAT_VERSION {
            return Err(CalibrationFileError::Newer { found: file.format });
        }
        Ok(file)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::calibrate::{Calibration, CalibrationOptions};
    use crate::stats::Z95;

    #[test]
    fn reads_what_calibrate_writes() {
        let report = Calibration::build(
            &[],
            &CalibrationOptions {
                z: Z95,
                results: None,
                label_budget: None,
            },
        );
        let text = serde_json::to_string_pretty(&report).unwrap();
        let file = CalibrationFile::parse(&text).unwrap();
        assert_eq!(file.confusion_matrix, Confusion::default());
    }

    #[test]
    fn refuses_other_formats_and_newer_versions() {
        let newer = r#"{"format": "proctor.calibration/2", "confusion_matrix": {"tp": 1, "fn": 0, "fp": 0, "tn": 1}}"#;
        assert!(matches!(
            CalibrationFile::parse(newer),
            Err(CalibrationFileError::Newer { .. })
        ));
        let foreign = r#"{"format": "proctor.result/1", "confusion_matrix": {"tp": 1, "fn": 0, "fp": 0, "tn": 1}}"#;
        let err = CalibrationFile::parse(foreign).unwrap_err();
        assert!(err.to_string().contains("proctor calibrate --out"), "{err}");
        assert!(CalibrationFile::parse("{}").is_err());
    }
}
