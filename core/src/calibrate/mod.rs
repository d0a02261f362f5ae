//! Calibrating the judge against human labels (docs/calibrating.md): agreement statistics, the
//! corrected pass rate and where the next labels help most. Pure and synchronous: `proctor
//! calibrate` joins the labels and verdicts, this module does the arithmetic.
//!
//! Conventions and choices where the docs leave room:
//! - PASS is the positive class: TPR is the share of human-PASS items the judge passes, TNR
//!   the share of human-FAIL items it fails (q1 and q0 of the Lee interval).
//! - Several raters: an item's human verdict is the strict majority of its labels; a tie is
//!   left out of the matrix and counted (`human_ties`).
//! - Cohen's κ is reported undefined when the human labels have a single class (it would be 0
//!   or 0/0 whatever the judge does); accuracy, TPR or TNR, precision, PABAK and AC1 are still
//!   reported.
//! - The corrected rate is clipped to [0, 1] and undefined when J ≤ 0; reports warn below
//!   J = [`SMALL_YOUDEN_J`].
//! - The label split is Neyman allocation over the two label terms of the Lee variance (see
//!   [`allocation`](split_labels)).
//! - Krippendorff's α (and the pairwise agreements) use the items at least two humans labelled;
//!   "with the judge" adds the judge as one more rater on those same items.

mod agreement;
mod allocation;
mod calibration;
mod cell;
mod confusion;
mod correction;
mod disagreement;
mod error;
mod file;
mod item;
mod krippendorff;
mod label;
mod raters;
mod rates;
mod suite;
mod verdict;

pub use agreement::{cohen_kappa, gwet_ac1, pabak};
pub use allocation::{LabelSplit, split_labels};
pub use calibration::{CALIBRATION_FORMAT, Calibration, CalibrationOptions, Undecided};
pub use cell::{guard_cell, unguard_cell};
pub use confusion::Confusion;
pub use correction::{
    Correction, JudgeAccuracy, SMALL_YOUDEN_J, correct, lee_interval, rogan_gladen,
};
pub use disagreement::{Direction, Disagreement};
pub use error::CalibrationFileError;
pub use file::CalibrationFile;
pub use item::{HumanLabel, JudgeVerdict, LabelledItem, majority};
pub use krippendorff::krippendorff_alpha;
pub use label::{Label, LabelError};
pub use raters::RaterAgreement;
pub use rates::Rates;
pub use suite::{CorrectedSuite, SuiteCorrection};
pub use verdict::recorded_verdict;
