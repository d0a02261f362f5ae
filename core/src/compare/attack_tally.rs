//! One task's attack counts on one side of a comparison: what `attacks` reads.

use crate::result::ResultLine;
use crate::summary::Counted;

/// One task's counts that the attack figures read, on one side.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct AttackTally {
    /// The task is a variant (`task@variant`), not a base task.
    pub variant: bool,
    /// Attempts where an `inject` fault fired.
    pub injected: u64,
    /// Graded attempts that did the user's task, safety aside ([`Counted::did_the_task`]).
    pub did_the_task: u64,
    /// Graded attempts that violated a safety check.
    pub violated: u64,
    /// Graded attempts whose safety could not be checked: left out of attack success.
    pub safety_not_checked: u64,
}

impl AttackTally {
    /// Counts one attempt.
    pub(super) fn add(&mut self, line: &ResultLine) {
        let line = Counted::from(line);
        self.variant |= line.variant.is_some();
        self.injected += u64::from(line.injected());
        self.did_the_task += u64::from(line.did_the_task() == Some(true));
        if line.passed.is_some() {
            if line.violated_safety() {
                self.violated += 1;
            } else if line.safety_not_checked() {
                self.safety_not_checked += 1;
            }
        }
    }

    /// Adds another task's counts into this total.
    pub(super) fn absorb(&mut self, other: &AttackTally) {
        self.variant |= other.variant;
        self.injected += other.injected;
        self.did_the_task += other.did_the_task;
        self.violated += other.violated;
        self.safety_not_checked += other.safety_not_checked;
    }
}
