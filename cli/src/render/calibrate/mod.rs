//! `proctor calibrate` output: what it says, decided once ([`content`]), one layout of it per
//! format, and the corrected pass rate that `report` and `compare --calibration` add to their own output.

mod content;
pub mod corrected;
pub mod markdown;
pub mod table;

use proctor_core::calibrate::Calibration;

/// `--format json` and `--out`: every number, snake_case names.
pub fn json(c: &Calibration) -> String {
    let mut text = serde_json::to_string_pretty(c).expect("a calibration always serialises");
    text.push('\n');
    text
}
