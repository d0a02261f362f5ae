//! The three-way verdict of docs/comparing.md.

use crate::stats::Interval;
use serde::Serialize;
use std::fmt;

/// What the comparison says about the new version.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// The whole 95% interval of Δ is below 0: the new version is worse.
    Regression,
    /// The interval's lower bound is above −margin: any drop is smaller than the margin.
    NoRegression,
    /// Neither: the data cannot tell a drop of the margin from noise.
    Inconclusive,
}

impl Verdict {
    /// The name used in reports and JSON output.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Regression => "regression",
            Verdict::NoRegression => "no regression",
            Verdict::Inconclusive => "inconclusive",
        }
    }
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// `regression` if high < 0, else `no regression` if low > −margin, else `inconclusive`, in
/// that order (docs/comparing.md). So a drop that is certain but smaller than the margin is still a
/// regression: the margin bounds what "no regression" may hide, it does not excuse a drop the
/// data shows. No interval (a single task) is inconclusive.
pub fn verdict(ci: Option<Interval>, margin: f64) -> Verdict {
    match ci {
        Some(ci) if ci.high < 0.0 => Verdict::Regression,
        Some(ci) if ci.low > -margin => Verdict::NoRegression,
        _ => Verdict::Inconclusive,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ci(low: f64, high: f64) -> Option<Interval> {
        Some(Interval { low, high })
    }

    #[test]
    fn three_ways() {
        assert_eq!(verdict(ci(-0.4698, 0.0698), 0.05), Verdict::Inconclusive);
        assert_eq!(verdict(ci(-0.3, -0.01), 0.05), Verdict::Regression);
        assert_eq!(verdict(ci(-0.04, 0.1), 0.05), Verdict::NoRegression);
        assert_eq!(verdict(ci(0.0, 0.0), 0.05), Verdict::NoRegression);
        assert_eq!(verdict(None, 0.05), Verdict::Inconclusive);
    }

    #[test]
    fn bounds_are_strict_and_regression_wins() {
        assert_eq!(verdict(ci(-0.2, 0.0), 0.05), Verdict::Inconclusive);
        assert_eq!(verdict(ci(-0.05, 0.1), 0.05), Verdict::Inconclusive);
        // Certainly below 0 yet within the margin: still a regression.
        assert_eq!(verdict(ci(-0.03, -0.01), 0.05), Verdict::Regression);
    }

    #[test]
    fn names() {
        assert_eq!(Verdict::NoRegression.to_string(), "no regression");
        assert_eq!(
            serde_json::to_string(&Verdict::NoRegression).unwrap(),
            "\"no_regression\""
        );
    }
}
