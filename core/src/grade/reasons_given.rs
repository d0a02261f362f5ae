//! The reasons that earlier lines of a stretch of a log gave, per task.
//!
//! A summary shows each reason of a task with the detail of the first attempt that gave
//! it, and reads no other detail. A failing rule's detail lists the trajectory, and in a
//! large log most failing lines repeat a reason an earlier line of the same chunk gave:
//! those lines need no detail, because the earlier one comes first in the log.

use crate::fast_hash::FastBuild;
use std::collections::{HashMap, HashSet};

/// Reasons given so far, per task id.
#[derive(Debug, Default)]
pub struct ReasonsGiven {
    by_task: HashMap<String, HashSet<String, FastBuild>, FastBuild>,
}

impl ReasonsGiven {
    /// Forgets every reason: for a stretch of the log that does not follow the last one.
    pub fn clear(&mut self) {
        self.by_task.clear();
    }

    /// Whether an earlier line of `task` gave `reason`.
    pub fn has(&self, task: &str, reason: &str) -> bool {
        self.by_task
            .get(task)
            .is_some_and(|reasons| reasons.contains(reason))
    }

    /// Remembers the reasons a line of `task` gave: those of its grade, which a summary
    /// counts (a crash replaces the reasons its checks gave).
    pub fn add(&mut self, task: &str, reasons: &[String]) {
        if reasons.is_empty() {
            return;
        }
        let known = match self.by_task.get_mut(task) {
            Some(known) => known,
            None => self.by_task.entry(task.to_owned()).or_default(),
        };
        for reason in reasons {
            if !known.contains(reason.as_str()) {
                known.insert(reason.clone());
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
        assert!(!given.has("a", "rule: x"));
        given.add("a", &["rule: x".to_owned(), "not final".to_owned()]);
        assert!(given.has("a", "rule: x") && given.has("a", "not final"));
        assert!(!given.has("b", "rule: x"));
        assert!(!given.has("a", "rule: y"));
        given.clear();
        assert!(!given.has("a", "rule: x"));
    }
}
