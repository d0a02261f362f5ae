//! Reading the judge's answer into a decision, and combining several samples.

mod parse;
mod vote;

pub use parse::{ParsedVerdict, VerdictError, parse_verdict};
pub use vote::{Tally, majority};

use serde::{Deserialize, Serialize};

/// A decided verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Decision {
    #[serde(rename = "PASS")]
    Pass,
    #[serde(rename = "FAIL")]
    Fail,
}

impl Decision {
    pub fn name(self) -> &'static str {
        match self {
            Decision::Pass => "PASS",
            Decision::Fail => "FAIL",
        }
    }
}
