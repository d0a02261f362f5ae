//! Reading the judge's answer into a decision, and combining several samples.

mod parse;
mod vote;

pub(crate) use parse::parse_verdict;
pub use parse::{ParsedVerdict, VerdictError};
pub use vote::{Tally, majority};

use serde::{Deserialize, Serialize};

/// A decided verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Decision {
    /// The run meets the rubric.
    #[serde(rename = "PASS")]
    Pass,
    /// The run does not meet the rubric.
    #[serde(rename = "FAIL")]
    Fail,
}

impl Decision {
    /// The verdict as the judge writes it and the result line records it: `PASS` or `FAIL`.
    pub fn name(self) -> &'static str {
        match self {
            Decision::Pass => "PASS",
            Decision::Fail => "FAIL",
        }
    }
}
