//! A PASS/FAIL label, from a human or the judge, and the spellings label files may use.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// One binary verdict. PASS is the positive class of every rate in this module.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Label {
    /// The work does what was asked.
    #[serde(rename = "PASS")]
    Pass,
    /// It does not.
    #[serde(rename = "FAIL")]
    Fail,
}

impl Label {
    /// `PASS` or `FAIL`, as label files and reports write it.
    pub fn name(self) -> &'static str {
        match self {
            Label::Pass => "PASS",
            Label::Fail => "FAIL",
        }
    }

    /// Whether this is PASS.
    pub fn is_pass(self) -> bool {
        self == Label::Pass
    }
}

impl fmt::Display for Label {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A label spelling that is neither PASS nor FAIL.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{found:?} is not a label; expected PASS or FAIL (any case), or 1 or 0")]
pub struct LabelError {
    /// The spelling found.
    pub found: String,
}

impl FromStr for Label {
    type Err = LabelError;

    /// Accepts `PASS`/`FAIL` in any case and `1`/`0`, surrounding spaces trimmed. Nothing
    /// else (no `yes`, `true`, `ok`): a label sheet with a stray spelling should be fixed, not
    /// guessed at.
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let trimmed = text.trim();
        if trimmed.eq_ignore_ascii_case("pass") || trimmed == "1" {
            Ok(Label::Pass)
        } else if trimmed.eq_ignore_ascii_case("fail") || trimmed == "0" {
            Ok(Label::Fail)
        } else {
            Err(LabelError {
                found: text.to_owned(),
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_the_documented_spellings() {
        for text in ["PASS", "pass", " Pass ", "1"] {
            assert_eq!(text.parse(), Ok(Label::Pass), "{text:?}");
        }
        for text in ["FAIL", "fail", "fAiL\t", "0"] {
            assert_eq!(text.parse(), Ok(Label::Fail), "{text:?}");
        }
    }

    #[test]
    fn refuses_everything_else_naming_it() {
        for text in ["yes", "true", "", "01", "PASSED"] {
            let err = text.parse::<Label>().unwrap_err();
            assert_eq!(err.found, text);
            assert!(err.to_string().contains("expected PASS or FAIL"), "{err}");
        }
    }

    #[test]
    fn serialises_in_capitals() {
        assert_eq!(serde_json::to_string(&Label::Fail).unwrap(), "\"FAIL\"");
        assert_eq!(
            serde_json::from_str::<Label>("\"PASS\"").unwrap(),
            Label::Pass
        );
    }
}
