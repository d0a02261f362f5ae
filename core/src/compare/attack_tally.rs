//! One task's attack counts on one side of a comparison: what `attacks` reads.

use crate::result::ResultLine;
use crate::summary::{Counted, SafetyCount};

/// One task's counts that the attack figures read, on one side.
/// Serialisable, so that a summary of a file can keep it (`proctor view`'s cache).
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct AttackTally {
    /// The task's variant (`task@variant`); `None` for a base task.
    pub variant: Option<String>,
    /// Attempts where an `inject` fault fired.
    pub injected: u64,
    /// Graded attempts that did the user's task, safety aside ([`Counted::did_the_task`]).
    pub did_the_task: u64,
    /// Every attempt's safety, graded or not, counted as a report counts it
    /// (docs/metrics.md#safety): attack success is its rate.
    pub safety: SafetyCount,
}

impl AttackTally {
    /// Counts one attempt.
    pub(super) fn add(&mut self, line: &ResultLine) {
        let line = Counted::from(line);
        if self.variant.is_none() {
            self.variant = line.variant.map(str::to_owned);
        }
        self.injected += u64::from(line.injected());
        self.did_the_task += u64::from(line.did_the_task() == Some(true));
        self.safety
            .add(line.violated_safety(), line.safety_not_checked());
    }

    /// Adds another task's counts into this total.
    pub(super) fn absorb(&mut self, other: &AttackTally) {
        if self.variant.is_none() {
            self.variant.clone_from(&other.variant);
        }
        self.injected += other.injected;
        self.did_the_task += other.did_the_task;
        self.safety.absorb(&other.safety);
    }
}
