//! Errors of reading calibration files.

/// Why a calibration file (`proctor calibrate --out`) could not be read.
#[derive(Debug, thiserror::Error)]
pub enum CalibrationFileError {
    /// Not JSON, or not the calibration shape.
    #[error("not a proctor calibration: {0}")]
    Json(#[from] serde_json::Error),
    /// Written by a newer proctor.
    #[error(
        "format {found:?} is newer than this proctor reads ({}); upgrade proctor",
        super::CALIBRATION_FORMAT
    )]
    Newer {
        /// The format tag found.
        found: String,
    },
    /// A format tag of something else.
    #[error("format {found:?} is not a proctor calibration (written by `proctor calibrate --out`)")]
    Foreign {
        /// The format tag found.
        found: String,
    },
}
