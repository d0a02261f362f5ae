//! `proctor calibrate` output, one renderer per format over the same [`Calibration`], and the
//! corrected pass rate that `report` and `compare --calibration` add to their own output.

pub mod corrected;
pub mod markdown;
pub mod table;

use super::numbers::MISSING;
use proctor_core::calibrate::{Calibration, Disagreement, Undecided};

/// `--format json` and `--out`: every number, snake_case names.
pub fn json(c: &Calibration) -> String {
    let mut text = serde_json::to_string_pretty(c).expect("a calibration always serialises");
    text.push('\n');
    text
}

/// `task attempt 3`, or the calibration set's id.
fn item_name(item: &str, attempt: Option<u64>) -> String {
    match attempt {
        Some(a) => format!("{item} attempt {a}"),
        None => item.to_owned(),
    }
}

fn disagreement_name(d: &Disagreement) -> String {
    item_name(&d.item, d.attempt)
}

fn undecided_name(u: &Undecided) -> String {
    item_name(&u.item, u.attempt)
}

/// "2 of 3 humans" when there were several, else "human".
fn humans(d: &Disagreement) -> String {
    if d.human_labels > 1 {
        format!("{} of {} humans {}", d.human_votes, d.human_labels, d.human)
    } else {
        format!("human {}", d.human)
    }
}

/// The reasoning on one line, whitespace collapsed; `MISSING` when none was recorded.
fn one_line(text: &str) -> String {
    let joined = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if joined.is_empty() {
        MISSING.to_owned()
    } else {
        joined
    }
}

fn count(n: u64, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}
