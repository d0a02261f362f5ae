//! The reasons that earlier lines of a stretch of a log gave, per task.
//!
//! A summary shows each reason of a task with the detail of the first attempt that gave
//! it, and reads no other detail. A failing rule's detail lists the trajectory, and in a
//! large log most failing lines repeat a reason an earlier line of the same chunk gave:
//! those lines need no detail, because the earlier one comes first in the log.

use crate::fast_hash::FastBuild;
use std::collections::HashSet;

/// Reasons given so far, per task, by the task's position in its suite.
#[derive(Debug, Default)]
pub struct ReasonsGiven {
    /// Each task's reasons with the stretch they were given in: those of an earlier
    /// stretch are stale, and emptied when the task is next looked at, so that starting
    /// a stretch costs nothing however many tasks the suite has.
    by_task: Vec<(u64, TaskReasons)>,
    stretch: u64,
}

/// The reasons earlier lines of one task gave.
#[derive(Debug, Default)]
pub struct TaskReasons(HashSet<String, FastBuild>);

impl ReasonsGiven {
    /// Forgets every reason: for a stretch of the log that does not follow the last one.
    pub fn clear(&mut self) {
        self.stretch += 1;
    }

    /// The reasons of the task at `slot` in the suite.
    pub fn of_task(&mut self, slot: usize) -> &mut TaskReasons {
        if self.by_task.len() <= slot {
            self.by_task.resize_with(slot + 1, Default::default);
        }
        let (given_in, reasons) = &mut self.by_task[slot];
        if *given_in != self.stretch {
            reasons.0.clear();
            *given_in = self.stretch;
        }
        reasons
    }
}

impl TaskReasons {
    /// Whether an earlier line gave `reason`.
    pub fn has(&self, reason: &str) -> bool {
        self.0.contains(reason)
    }

    /// Remembers the reasons a line gave: those of its grade, which a summary counts (a
    /// crash replaces the reasons its checks gave).
    pub fn add(&mut self, reasons: &[String]) {
        for reason in reasons {
            if !self.0.contains(reason.as_str()) {
                self.0.insert(reason.clone());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reason_is_known_per_task_once_added_until_cleared() {
        let mut given = ReasonsGiven::default();
        assert!(!given.of_task(0).has("rule: x"));
        given
            .of_task(0)
            .add(&["rule: x".to_owned(), "not final".to_owned()]);
        assert!(given.of_task(0).has("rule: x") && given.of_task(0).has("not final"));
        assert!(!given.of_task(3).has("rule: x"));
        assert!(!given.of_task(0).has("rule: y"));
        given.of_task(3).add(&["rule: z".to_owned()]);
        given.clear();
        assert!(!given.of_task(0).has("rule: x"));
        assert!(!given.of_task(3).has("rule: z"));
        given.of_task(0).add(&["rule: x".to_owned()]);
        assert!(given.of_task(0).has("rule: x"));
    }
}
