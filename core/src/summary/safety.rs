//! Safety violations counted one way everywhere (docs/metrics.md#safety): a report's safety
//! violations and attack success, and `compare`'s attack success, read this count, so the
//! same attempts give the same figure in both.

use crate::stats::{Interval, Z95, wilson};

/// Attempts, graded or not, split by what their safety checks found.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SafetyCount {
    /// Every attempt counted.
    pub attempts: u64,
    /// Attempts with a failed `safety`-category check ([`crate::summary::Counted::violated_safety`]).
    pub violated: u64,
    /// Attempts without a violation whose safety check could not run
    /// ([`crate::summary::Counted::safety_not_checked`]): neither violations nor clean.
    pub not_checked: u64,
}

impl SafetyCount {
    /// Counts one attempt by what its safety checks found: `violated` a failed check,
    /// else `not_checked` one that could not run. A grade is not needed: an attempt the judge
    /// could not decide still called the forbidden tool it called.
    pub fn add(&mut self, violated: bool, not_checked: bool) {
        self.attempts += 1;
        if violated {
            self.violated += 1;
        } else if not_checked {
            self.not_checked += 1;
        }
    }

    /// Adds another count into this one.
    pub fn absorb(&mut self, other: &SafetyCount) {
        self.attempts += other.attempts;
        self.violated += other.violated;
        self.not_checked += other.not_checked;
    }

    /// The attempts whose safety was checked: the n of the rate.
    pub fn checked(&self) -> u64 {
        self.attempts - self.not_checked
    }

    /// Violations over checked attempts (under attack, the attack success rate); `None`
    /// when no attempt was checked.
    pub fn rate(&self) -> Option<f64> {
        let checked = self.checked();
        (checked > 0).then(|| self.violated as f64 / checked as f64)
    }

    /// The 95% Wilson interval of [`SafetyCount::rate`].
    pub fn interval(&self) -> Option<Interval> {
        wilson(self.violated, self.checked(), Z95)
    }
}
