//! Errors of reading calibration files.

/// Why a calibration file (`proctor calibrate --out`) could not be read.
#[derive(Debug, thiserror::Error)]
pub enum CalibrationFileError {
    #[error("not a proctor calibration: {0}")]
    Json(#[from] serde_json::Error),
    #[error(
        "format {found:?} is newer than this proctor reads ({}); upgrade proctor",
        super::CALIBRATION_FORMAT
    )]
    Newer { found: String },
    #[error("format {found:?} is not a proctor calibration (written by `proctor calibrate --out`)")]
    Foreign { found: String },
}
