//! The attempts a merge lacks (docs/merging.md): those between 0 and the highest seen of
//! each task (or `--attempts K`), and tasks of `--tasks` with no result at all.

use std::collections::{BTreeMap, BTreeSet};

/// The attempts merged, by (label, task).
#[derive(Debug, Default)]
pub struct AttemptsSeen {
    by_task: BTreeMap<(String, String), BTreeSet<u64>>,
}

impl AttemptsSeen {
    pub fn record(&mut self, label: &str, task: &str, attempt: u64) {
        self.by_task
            .entry((label.to_owned(), task.to_owned()))
            .or_default()
            .insert(attempt);
    }

    /// One message per task that lacks attempts, then one per task of `suite_tasks` with no
    /// result at all; `attempts` is how many each task should have (else up to its highest).
    pub fn missing(&self, attempts: Option<u64>, suite_tasks: &[String]) -> Vec<String> {
        let mut missing = Vec::new();
        for ((label, task), seen) in &self.by_task {
            let expected =
                attempts.unwrap_or_else(|| seen.last().map_or(0, |a| a.saturating_add(1)));
            let absent: Vec<String> = (0..expected)
                .filter(|a| !seen.contains(a))
                .map(|a| a.to_string())
                .collect();
            if !absent.is_empty() {
                let who = if label.is_empty() {
                    String::new()
                } else {
                    format!(" [{label}]")
                };
                missing.push(format!(
                    "missing task `{task}`{who}: attempts {}",
                    absent.join(", ")
                ));
            }
        }
        for task in suite_tasks {
            if !self.by_task.keys().any(|(_, t)| t == task) {
                missing.push(format!("missing task `{task}`: no results at all"));
            }
        }
        missing
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merge_lists_gaps_and_tasks_without_results() {
        let mut seen = AttemptsSeen::default();
        seen.record("v1", "a", 0);
        seen.record("v1", "a", 2);
        seen.record("", "b", 0);
        assert_eq!(
            seen.missing(None, &["a".to_owned(), "c".to_owned()]),
            [
                "missing task `a` [v1]: attempts 1",
                "missing task `c`: no results at all",
            ]
        );
        assert_eq!(
            seen.missing(Some(2), &[]),
            [
                "missing task `b`: attempts 1",
                "missing task `a` [v1]: attempts 1"
            ]
        );
    }
}
