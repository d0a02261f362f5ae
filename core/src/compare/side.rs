//! One side of a comparison: a result file's attempts tallied per task, streaming.
//!
//! Memory grows with the number of tasks, never with the number of attempts, as in
//! [`SummaryBuilder`](crate::summary::SummaryBuilder). Unlike a report, a side must hold one
//! agent version graded against one task file, so the builder checks both as it goes.

use super::CompareError;
use super::attack_tally::AttackTally;
use super::which::Side;
use crate::result::ResultLine;
use rust_decimal::Decimal;
use std::collections::BTreeMap;

/// Running counts for one task on one side.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct TaskTally {
    /// Attempts that passed.
    pub passed: u64,
    /// Attempts that failed.
    pub failed: u64,
    /// Attempts the judge could not decide: left out of `passed`/`failed`, counted here.
    pub ungraded: u64,
    /// All spend on the task, ungraded and failed attempts included; `None` if nothing priced.
    pub spend_usd: Option<Decimal>,
    /// All tokens spent on the task.
    pub tokens: u64,
    /// Model calls without a price, left out of `spend_usd`.
    pub unpriced_calls: u64,
    /// Steps summed over passed attempts, for the mean steps of successful runs.
    pub success_steps: u64,
    /// What the attack figures read (docs/tools.md).
    pub attack: AttackTally,
}

impl TaskTally {
    /// Graded attempts: the n of the task's pass rate.
    pub fn graded(&self) -> u64 {
        self.passed + self.failed
    }

    /// Adds one attempt; false (and the money and token totals unchanged) when an
    /// amount does not fit, which only a corrupt line can cause.
    fn add(&mut self, line: &ResultLine) -> bool {
        let steps = if line.passed == Some(true) {
            self.success_steps.checked_add(line.steps)
        } else {
            Some(self.success_steps)
        };
        let spend = match line.cost.usd {
            Some(usd) => self
                .spend_usd
                .unwrap_or_default()
                .checked_add(usd)
                .map(Some),
            None => Some(self.spend_usd),
        };
        let tokens = self.tokens.checked_add(line.cost.tokens);
        let unpriced = self.unpriced_calls.checked_add(line.cost.unpriced_calls);
        let (Some(steps), Some(spend), Some(tokens), Some(unpriced)) =
            (steps, spend, tokens, unpriced)
        else {
            return false;
        };
        match line.passed {
            Some(true) => self.passed += 1,
            Some(false) => self.failed += 1,
            None => self.ungraded += 1,
        }
        self.success_steps = steps;
        self.attack.add(line);
        self.spend_usd = spend;
        self.tokens = tokens;
        self.unpriced_calls = unpriced;
        true
    }

    /// Adds another task's tally into this total; false (and this total unchanged)
    /// when a sum does not fit.
    pub fn absorb(&mut self, other: &TaskTally) -> bool {
        let spend = match (self.spend_usd, other.spend_usd) {
            (total, None) => Some(total),
            (total, Some(usd)) => total.unwrap_or_default().checked_add(usd).map(Some),
        };
        let sums = (
            self.passed.checked_add(other.passed),
            self.failed.checked_add(other.failed),
            self.ungraded.checked_add(other.ungraded),
            self.tokens.checked_add(other.tokens),
            self.unpriced_calls.checked_add(other.unpriced_calls),
            self.success_steps.checked_add(other.success_steps),
            spend,
        );
        let (
            Some(passed),
            Some(failed),
            Some(ungraded),
            Some(tokens),
            Some(unpriced_calls),
            Some(success_steps),
            Some(spend_usd),
        ) = sums
        else {
            return false;
        };
        let mut attack = self.attack.clone();
        attack.absorb(&other.attack);
        *self = TaskTally {
            attack,
            passed,
            failed,
            ungraded,
            spend_usd,
            tokens,
            unpriced_calls,
            success_steps,
        };
        true
    }
}

/// Where a label or digest was first seen, for error messages.
#[derive(Debug, Clone)]
struct FirstSeen<T> {
    value: T,
    task: String,
    attempt: u64,
}

/// Accumulates one result file.
#[derive(Debug, Clone)]
pub struct SideBuilder {
    /// Which file this is.
    side: Side,
    file: String,
    label: Option<FirstSeen<Option<String>>>,
    digest: Option<FirstSeen<String>>,
    /// Each task's counts, by task id.
    tasks: BTreeMap<String, TaskTally>,
}

/// One result file, tallied; serialisable, so that a tally can be kept and compared later.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct SideTally {
    /// Which file this is.
    pub side: Side,
    /// The file's name as the user gave it.
    pub file: String,
    /// The agent version (`label`) shared by every line; `None` when the lines carry none.
    pub label: Option<String>,
    /// The task-file digest shared by every line that records one.
    pub task_digest: Option<String>,
    /// Each task's counts, by task id.
    pub tasks: BTreeMap<String, TaskTally>,
}

impl SideBuilder {
    /// An empty tally of `file`, read as `side`.
    pub fn new(side: Side, file: impl Into<String>) -> Self {
        SideBuilder {
            side,
            file: file.into(),
            label: None,
            digest: None,
            tasks: BTreeMap::new(),
        }
    }

    /// Adds one attempt. A second label, or a second task-file digest, is an error: one file
    /// must hold one version graded against one task file. Lines without a digest (older
    /// writers) are accepted and checked only by their label.
    pub fn add(&mut self, line: &ResultLine) -> Result<(), CompareError> {
        match &self.label {
            None => {
                self.label = Some(FirstSeen {
                    value: line.label.clone(),
                    task: line.task.to_string(),
                    attempt: line.attempt,
                });
            }
            Some(first) if first.value != line.label => {
                return Err(CompareError::LabelMix {
                    side: self.side,
                    file: self.file.clone(),
                    first: seen(&first.value, &first.task, first.attempt),
                    second: seen(&line.label, &line.task, line.attempt),
                });
            }
            Some(_) => {}
        }
        if !line.task_digest.is_empty() {
            match &self.digest {
                None => {
                    self.digest = Some(FirstSeen {
                        value: line.task_digest.clone(),
                        task: line.task.to_string(),
                        attempt: line.attempt,
                    });
                }
                Some(first) if first.value != line.task_digest => {
                    return Err(CompareError::DigestMix {
                        side: self.side,
                        file: self.file.clone(),
                        first: first.value.clone(),
                        second: line.task_digest.clone(),
                        at: format!("task `{}` attempt {}", line.task, line.attempt),
                    });
                }
                Some(_) => {}
            }
        }
        let fits = match self.tasks.get_mut(line.task.as_str()) {
            Some(tally) => tally.add(line),
            None => {
                let mut tally = TaskTally::default();
                let fits = tally.add(line);
                self.tasks.insert(line.task.to_string(), tally);
                fits
            }
        };
        if !fits {
            return Err(CompareError::Overflow {
                side: self.side,
                file: self.file.clone(),
                at: format!("task `{}` attempt {}", line.task, line.attempt),
            });
        }
        Ok(())
    }

    /// The tally of every line added.
    pub fn finish(self) -> SideTally {
        SideTally {
            side: self.side,
            file: self.file,
            label: self.label.and_then(|l| l.value),
            task_digest: self.digest.map(|d| d.value),
            tasks: self.tasks,
        }
    }
}

/// "label \"v1\" (task `a` attempt 0)", for a label-mix message.
fn seen(label: &Option<String>, task: &str, attempt: u64) -> String {
    let label = match label {
        Some(l) => format!("{l:?}"),
        None => "(none)".to_owned(),
    };
    format!("label {label} (task `{task}` attempt {attempt})")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::result::Cost;

    fn line(task: &str, attempt: u64, label: Option<&str>, passed: Option<bool>) -> ResultLine {
        let mut l = ResultLine::parse(r#"{"task": "x", "passed": null}"#).unwrap();
        l.task = task.into();
        l.attempt = attempt;
        l.label = label.map(str::to_owned);
        l.passed = passed;
        l.steps = 3;
        l.task_digest = "sha256:aa".to_owned();
        l
    }

    #[test]
    fn tallies_per_task_with_ungraded_apart() {
        let mut b = SideBuilder::new(Side::Old, "old.jsonl");
        b.add(&line("a", 0, Some("v1"), Some(true))).unwrap();
        b.add(&line("a", 1, Some("v1"), Some(false))).unwrap();
        b.add(&line("a", 2, Some("v1"), None)).unwrap();
        let mut priced = line("b", 0, Some("v1"), Some(true));
        priced.cost = Cost {
            usd: Some(Decimal::new(15, 3)),
            tokens: 100,
            unpriced_calls: 1,
            ..Cost::default()
        };
        b.add(&priced).unwrap();
        let side = b.finish();
        assert_eq!(side.label.as_deref(), Some("v1"));
        assert_eq!(side.task_digest.as_deref(), Some("sha256:aa"));
        let a = &side.tasks["a"];
        assert_eq!((a.passed, a.failed, a.ungraded, a.graded()), (1, 1, 1, 2));
        assert_eq!((a.success_steps, a.spend_usd), (3, None));
        let b = &side.tasks["b"];
        assert_eq!(
            (b.spend_usd, b.tokens, b.unpriced_calls),
            (Some(Decimal::new(15, 3)), 100, 1)
        );
    }

    #[test]
    fn an_overflowing_cost_or_token_sum_names_file_and_attempt() {
        let mut costly = line("a", 0, None, Some(true));
        costly.cost.usd = Some(Decimal::MAX);
        let mut b = SideBuilder::new(Side::Old, "old.jsonl");
        b.add(&costly).unwrap();
        costly.attempt = 1;
        let err = b.add(&costly).unwrap_err();
        assert_eq!(
            err.to_string(),
            "OLD old.jsonl: task `a` attempt 1: its cost, token or step count makes the total overflow; the result is corrupt"
        );
        let mut tokens = line("b", 0, None, Some(false));
        tokens.cost.tokens = u64::MAX;
        let mut b = SideBuilder::new(Side::New, "new.jsonl");
        b.add(&tokens).unwrap();
        tokens.attempt = 7;
        tokens.cost.tokens = 1;
        let err = b.add(&tokens).unwrap_err();
        assert!(
            err.to_string()
                .contains("NEW new.jsonl: task `b` attempt 7"),
            "{err}"
        );
        // The refused attempt left the tally as it was.
        let tally = &b.finish().tasks["b"];
        assert_eq!((tally.failed, tally.tokens), (1, u64::MAX));
    }

    #[test]
    fn a_label_mix_names_file_and_both_attempts() {
        let mut b = SideBuilder::new(Side::New, "new.jsonl");
        b.add(&line("a", 0, Some("v1"), Some(true))).unwrap();
        let err = b.add(&line("c", 4, Some("v2"), Some(true))).unwrap_err();
        assert_eq!(
            err.to_string(),
            "NEW new.jsonl: results of several versions in one file: label \"v1\" (task `a` attempt 0) and label \"v2\" (task `c` attempt 4); compare one version per file, or pick two with --labels OLD,NEW"
        );
        // A line without a label among labelled ones is a mix too.
        let err = b.add(&line("c", 5, None, Some(true))).unwrap_err();
        assert!(
            err.to_string()
                .contains("label (none) (task `c` attempt 5)"),
            "{err}"
        );
    }

    #[test]
    fn a_digest_mix_is_refused_and_a_missing_digest_is_not() {
        let mut b = SideBuilder::new(Side::Old, "old.jsonl");
        b.add(&line("a", 0, None, Some(true))).unwrap();
        let mut older = line("a", 1, None, Some(true));
        older.task_digest.clear();
        b.add(&older).unwrap();
        let mut other = line("a", 2, None, Some(true));
        other.task_digest = "sha256:bb".to_owned();
        let err = b.add(&other).unwrap_err();
        assert!(matches!(err, CompareError::DigestMix { .. }));
        assert!(
            err.to_string()
                .contains("sha256:aa and sha256:bb (task `a` attempt 2)"),
            "{err}"
        );
    }
}
