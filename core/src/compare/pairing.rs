//! Per-task pairing: each task's pass rate under OLD against NEW, and whether it regressed.
//!
//! The task is the unit of comparison (docs/comparing.md): attempts of one task are correlated, tasks are
//! the independent draws from the space of work the agent is meant to do.

use super::side::{SideTally, TaskTally};
use crate::stats::fisher_exact;
use serde::Serialize;
use std::cmp::Ordering;

/// What happened to one task between the versions.
///
/// Defined on the task's pass rate c/n (graded attempts only): **regressed** when the new rate
/// is lower, **fixed** when it is higher, **tied** when equal. With one attempt each this is
/// exactly "passed, now fails" and "failed, now passes". With k attempts every drop counts,
/// however small: 4/5 → 3/5 is listed as regressed, and the per-task Fisher p beside it says
/// how easily noise alone does that.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Change {
    /// The new pass rate is lower.
    Regressed,
    /// The new pass rate is higher.
    Fixed,
    /// The pass rates are equal.
    Tied,
}

impl Change {
    /// The name used in reports and JSON output.
    pub fn as_str(self) -> &'static str {
        match self {
            Change::Regressed => "regressed",
            Change::Fixed => "fixed",
            Change::Tied => "tied",
        }
    }
}

/// One task's counts on one side.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct TaskCounts {
    /// Graded attempts that passed.
    pub passed: u64,
    /// Attempts that passed or failed.
    pub graded: u64,
    /// Left out of `passed` and `graded`.
    pub ungraded: u64,
    /// `passed / graded`.
    pub pass_rate: f64,
}

impl TaskCounts {
    fn of(tally: &TaskTally) -> TaskCounts {
        let graded = tally.graded();
        TaskCounts {
            passed: tally.passed,
            graded,
            ungraded: tally.ungraded,
            pass_rate: tally.passed as f64 / graded as f64,
        }
    }
}

/// One task present and graded in both files.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PairedTask {
    /// The task id.
    pub task: String,
    /// Its counts in OLD.
    pub old: TaskCounts,
    /// Its counts in NEW.
    pub new: TaskCounts,
    /// New pass rate − old pass rate.
    pub delta: f64,
    /// Whether its pass rate fell, rose or held.
    pub change: Change,
    /// Two-sided Fisher exact p of old c/n against new c/n: how surprising this task's change
    /// is on its own (no correction for the number of tasks; the suite test is `delta`).
    pub fisher_p: f64,
}

/// A task that is in both files but has no graded attempt in one of them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Ungradable {
    /// The task id.
    pub task: String,
    /// At least one of the two graded counts is 0.
    pub old_graded: u64,
    /// Graded attempts in NEW.
    pub new_graded: u64,
    /// Ungraded attempts in OLD.
    pub old_ungraded: u64,
    /// Ungraded attempts in NEW.
    pub new_ungraded: u64,
}

/// The tasks of two files, matched by id.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Pairing {
    /// Sorted by task id.
    pub tasks: Vec<PairedTask>,
    /// Tasks only OLD holds, by id.
    pub only_old: Vec<String>,
    /// Tasks only NEW holds, by id.
    pub only_new: Vec<String>,
    /// Tasks in both files without a graded attempt on some side.
    pub ungradable: Vec<Ungradable>,
}

/// Matches tasks by id. Tasks with no graded attempt on a side cannot be compared and are
/// set apart, like tasks that only one file holds.
pub fn pair(old: &SideTally, new: &SideTally) -> Pairing {
    let mut pairing = Pairing::default();
    for (task, o) in &old.tasks {
        let Some(n) = new.tasks.get(task) else {
            pairing.only_old.push(task.clone());
            continue;
        };
        if o.graded() == 0 || n.graded() == 0 {
            pairing.ungradable.push(Ungradable {
                task: task.clone(),
                old_graded: o.graded(),
                new_graded: n.graded(),
                old_ungraded: o.ungraded,
                new_ungraded: n.ungraded,
            });
            continue;
        }
        let (old_counts, new_counts) = (TaskCounts::of(o), TaskCounts::of(n));
        pairing.tasks.push(PairedTask {
            task: task.clone(),
            old: old_counts,
            new: new_counts,
            delta: new_counts.pass_rate - old_counts.pass_rate,
            change: change(o, n),
            fisher_p: fisher_exact(o.passed, o.failed, n.passed, n.failed),
        });
    }
    pairing.only_new = new
        .tasks
        .keys()
        .filter(|t| !old.tasks.contains_key(*t))
        .cloned()
        .collect();
    pairing
}

/// Compares c_new/n_new with c_old/n_old by cross-multiplying, so that 2/4 and 3/6 tie exactly
/// where floating point might not.
fn change(old: &TaskTally, new: &TaskTally) -> Change {
    let lhs = u128::from(new.passed) * u128::from(old.graded());
    let rhs = u128::from(old.passed) * u128::from(new.graded());
    match lhs.cmp(&rhs) {
        Ordering::Less => Change::Regressed,
        Ordering::Greater => Change::Fixed,
        Ordering::Equal => Change::Tied,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compare::Side;
    use std::collections::BTreeMap;

    fn side(side: Side, tasks: &[(&str, u64, u64, u64)]) -> SideTally {
        let tasks: BTreeMap<String, TaskTally> = tasks
            .iter()
            .map(|&(t, passed, failed, ungraded)| {
                (
                    t.to_owned(),
                    TaskTally {
                        passed,
                        failed,
                        ungraded,
                        ..TaskTally::default()
                    },
                )
            })
            .collect();
        SideTally {
            side,
            file: "f".into(),
            label: None,
            task_digest: None,
            tasks,
        }
    }

    #[test]
    fn classifies_by_pass_rate_and_sets_apart_unmatched_tasks() {
        let old = side(
            Side::Old,
            &[
                ("a", 4, 1, 0),
                ("b", 1, 4, 0),
                ("c", 2, 2, 0),
                ("d", 1, 0, 0),
                ("e", 0, 0, 3),
            ],
        );
        let new = side(
            Side::New,
            &[
                ("a", 0, 5, 0),
                ("b", 5, 0, 0),
                ("c", 3, 3, 1),
                ("e", 1, 0, 0),
                ("f", 1, 0, 0),
            ],
        );
        let p = pair(&old, &new);
        let changes: Vec<(&str, Change)> = p
            .tasks
            .iter()
            .map(|t| (t.task.as_str(), t.change))
            .collect();
        assert_eq!(
            changes,
            vec![
                ("a", Change::Regressed),
                ("b", Change::Fixed),
                ("c", Change::Tied)
            ]
        );
        assert_eq!(p.only_old, vec!["d"]);
        assert_eq!(p.only_new, vec!["f"]);
        assert_eq!(
            p.ungradable,
            vec![Ungradable {
                task: "e".into(),
                old_graded: 0,
                new_graded: 1,
                old_ungraded: 3,
                new_ungraded: 0,
            }]
        );
        let a = &p.tasks[0];
        assert!((a.delta - -0.8).abs() < 1e-12);
        assert!((a.fisher_p - 10.0 / 210.0).abs() < 1e-12);
        // 2/4 and 3/6 tie exactly; the ungraded attempt is left out of n.
        assert_eq!((p.tasks[2].new.graded, p.tasks[2].new.ungraded), (6, 1));
        assert_eq!(p.tasks[2].delta, 0.0);
    }

    #[test]
    fn one_attempt_each_is_passed_to_failed() {
        let old = side(Side::Old, &[("a", 1, 0, 0), ("b", 0, 1, 0), ("c", 1, 0, 0)]);
        let new = side(Side::New, &[("a", 0, 1, 0), ("b", 1, 0, 0), ("c", 1, 0, 0)]);
        let p = pair(&old, &new);
        let changes: Vec<Change> = p.tasks.iter().map(|t| t.change).collect();
        assert_eq!(
            changes,
            vec![Change::Regressed, Change::Fixed, Change::Tied]
        );
    }
}
