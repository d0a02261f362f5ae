//! Which of the two compared files a tally or a problem belongs to.

use serde::{Deserialize, Serialize};
use std::fmt;

/// Which of the two files.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Side {
    /// The baseline file (OLD).
    Old,
    /// The file under test (NEW).
    New,
}

impl fmt::Display for Side {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Side::Old => "OLD",
            Side::New => "NEW",
        })
    }
}
