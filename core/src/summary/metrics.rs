//! The suite and per-task metrics of docs/metrics.md, computed from accumulated counts.

use super::accumulate::SummaryBuilder;
use crate::grade::Diagnosis;
use crate::stats::{
    Interval, StatsError, Z95, mean_pass_at_k, mean_pass_hat_k, pass_hat_k, wilson,
};
use rust_decimal::Decimal;
use serde::Serialize;
use std::collections::BTreeMap;

/// Spend divided by successes, in money and in tokens.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CostPerSuccess {
    /// Empty when nothing was priced or nothing succeeded.
    #[serde(with = "rust_decimal::serde::str_option")]
    pub usd: Option<Decimal>,
    /// The agent's share of `usd`.
    #[serde(with = "rust_decimal::serde::str_option")]
    pub agent_usd: Option<Decimal>,
    /// The judge's share of `usd`.
    #[serde(with = "rust_decimal::serde::str_option")]
    pub judge_usd: Option<Decimal>,
    /// Empty when nothing succeeded.
    pub tokens: Option<f64>,
    /// Some calls were unpriced: `usd` covers the priced ones only.
    pub cost_is_lower_bound: bool,
}

/// All spend, failed attempts included.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TotalCost {
    /// All priced spend in USD; empty when nothing was priced.
    #[serde(with = "rust_decimal::serde::str_option")]
    pub usd: Option<Decimal>,
    /// The agent's priced spend; empty when none of its calls was priced.
    #[serde(with = "rust_decimal::serde::str_option")]
    pub agent_usd: Option<Decimal>,
    /// The judge's priced spend; empty when none of its calls was priced (or no judge ran).
    #[serde(with = "rust_decimal::serde::str_option")]
    pub judge_usd: Option<Decimal>,
    /// Every billed token once, agent and judge.
    pub tokens: u64,
    /// Some calls were unpriced: `usd` covers the priced ones only.
    pub cost_is_lower_bound: bool,
}

/// What only an attack variant's row has (docs/tools.md): the user's task done under attack.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AttackFigures {
    /// Graded attempts that did the user's task, safety aside: they passed, or failed
    /// only `safety` checks (they did the task and also followed the injection).
    pub useful_attempts: u64,
    /// `useful_attempts` over the graded attempts: utility under attack.
    pub utility_under_attack: Option<f64>,
    /// The 95% Wilson interval of `utility_under_attack`.
    pub utility_under_attack_ci: Option<Interval>,
}

/// How often a reason occurred for a task.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ReasonCount {
    /// The reason string, as in the result lines' `reasons`.
    pub reason: String,
    /// How many times attempts at the task gave it.
    pub count: u64,
    /// What the first attempt with this reason found.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
}

/// The metrics of one task (docs/metrics.md, per task).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TaskSummary {
    /// The task id.
    pub task: String,
    /// All attempts, ungraded included.
    pub attempts: u64,
    /// Attempts that passed.
    pub passed: u64,
    /// Attempts that failed.
    pub failed: u64,
    /// Attempts with no grade (`passed` null): left out of every rate, and counted here.
    pub ungraded: u64,
    /// `passed / (passed + failed)`; empty when no attempt was graded.
    pub pass_rate: Option<f64>,
    /// The 95% Wilson interval of `pass_rate`; empty when no attempt was graded.
    pub pass_rate_ci: Option<Interval>,
    /// pass^k (`C(c,k)/C(n,k)`) at the suite's k; empty when no attempt was graded or
    /// there is no k.
    pub pass_hat_k: Option<f64>,
    /// Most frequent first.
    pub reasons: Vec<ReasonCount>,
    /// The rules of a task that knows no tools that no attempt applied: the tool each
    /// guards was never called, perhaps because its name is misspelt (docs/metrics.md).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub never_applied: Vec<crate::grade::RuleNotApplied>,
}

/// One cell of the task × agent grid.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GridCell {
    /// The task id.
    pub task: String,
    /// The agent's label; empty for results without one.
    pub label: String,
    /// Graded attempts that passed.
    pub passed: u64,
    /// Graded attempts.
    pub graded: u64,
    /// `passed / graded`; empty when nothing was graded.
    pub pass_rate: Option<f64>,
}

/// The suite summary printed by `grade`, `report` and `run`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Summary {
    /// Tasks with at least one attempt.
    pub tasks: u64,
    /// All attempts, ungraded included.
    pub attempts: u64,
    /// Attempts that passed.
    pub passed: u64,
    /// Attempts that failed.
    pub failed: u64,
    /// Attempts with no grade: left out of every rate's n and c, and counted here.
    pub ungraded: u64,
    /// `passed / (passed + failed)` over all graded attempts; empty when none was graded.
    pub pass_rate: Option<f64>,
    /// The 95% Wilson interval of `pass_rate`.
    pub pass_rate_ci: Option<Interval>,
    /// Unbiased pass@1: the mean over tasks of c/n, each task weighing the same; empty when
    /// nothing was graded.
    pub pass_at_1: Option<f64>,
    /// Graded attempt-0 results that passed, over graded attempt-0 results (one per task,
    /// or one per task and agent when agents are pooled).
    pub first_attempt_pass_rate: Option<f64>,
    /// The k of pass@k and pass^k.
    pub k: Option<u64>,
    /// Unbiased pass@k (Chen et al. 2021), the mean over tasks of `1 - C(n-c,k)/C(n,k)`.
    pub pass_at_k: Option<f64>,
    /// pass^k (τ-bench), the mean over tasks of `C(c,k)/C(n,k)`.
    pub pass_hat_k: Option<f64>,
    /// Share of tasks that passed every graded attempt.
    pub always_pass: Option<f64>,
    /// All spend, failed attempts included, divided by successes.
    pub cost_per_success: CostPerSuccess,
    /// All spend, failed attempts included.
    pub total_cost: TotalCost,
    /// Model calls with no price: their cost is unknown, never counted as 0.
    pub unpriced_calls: u64,
    /// Some calls were unpriced: USD totals and cost per success are lower bounds.
    pub cost_is_lower_bound: bool,
    /// Mean steps of the attempts that passed; empty when none passed.
    pub mean_steps_success: Option<f64>,
    /// Mean of `optimal_steps/steps` over passed attempts that have it; empty when none has.
    pub step_efficiency: Option<f64>,
    /// Mean share of `expected_tools` used, over attempts that have it; empty when none has.
    pub tool_correctness: Option<f64>,
    /// Attempts whose status was not `final` (or was missing), over all attempts.
    pub aborted_share: Option<f64>,
    /// Attempts per diagnosis bucket (docs/metrics.md: every failed run gets one); every bucket
    /// is present, 0 when unused.
    pub diagnosis: BTreeMap<String, u64>,
    /// Attempts that ran out of time.
    pub timeouts: u64,
    /// Attempts that ended in `error:`.
    pub errors: u64,
    /// Attempts with a failed `safety`-category check, gating or not.
    pub safety_violations: u64,
    /// Attempts without a violation whose safety check could not run (an end-state check
    /// graded without `--workdir`): neither violations nor clean.
    pub safety_not_checked: u64,
    /// `safety_violations` over the attempts whose safety was checked (all attempts but
    /// `safety_not_checked`).
    pub safety_violation_rate: Option<f64>,
    /// The 95% Wilson interval of `safety_violation_rate`.
    pub safety_violation_rate_ci: Option<Interval>,
    /// hit@k: the pass@k estimator with c = the attempts that violated a safety check, so
    /// the chance that at least one of k attempts at a task does (attack success at k).
    /// Its n is a task's graded attempts whose safety was checked; a task with fewer than
    /// k of them is left out.
    pub hit_at_k: Option<f64>,
    /// Attempts where a seeded tool fault other than `inject` fired: an injection is an
    /// attack to resist, not a failure to recover from.
    pub faulted: u64,
    /// Of `faulted`, the attempts that still passed.
    pub recovered: u64,
    /// `recovered` over `faulted`; empty when no fault fired.
    pub recovery_rate: Option<f64>,
    /// Set for an attack variant's row and the pooled `all attacks` row only; its fields
    /// then stand beside the others.
    #[serde(flatten)]
    pub attack: Option<AttackFigures>,
    /// The labels of graded results, sorted and distinct; results without a label add none.
    pub labels: Vec<String>,
    /// Pass rate per task and label; filled only when results carry several labels.
    pub grid: Vec<GridCell>,
    /// One entry per task, in order of task id.
    pub per_task: Vec<TaskSummary>,
}

fn ratio(part: u64, whole: u64) -> Option<f64> {
    (whole > 0).then(|| part as f64 / whole as f64)
}

impl SummaryBuilder {
    /// The default k: the smallest number of graded attempts of any task.
    pub(super) fn smallest_graded(&self) -> Option<u64> {
        self.tasks
            .iter()
            .map(|(_, t)| t.passed + t.failed)
            .filter(|n| *n > 0)
            .min()
    }

    /// Computes the metrics. `k` overrides the default (the smallest number of graded
    /// attempts of any task); a k larger than some task's attempts is an error.
    pub fn finish(self, k: Option<u64>) -> Result<Summary, StatsError> {
        if let Some(row) = self.overflow {
            return Err(StatsError::Overflow(row));
        }
        // Tasks in order of their ids (and labels in order within each), so that every
        // sum below adds its terms in the same order whatever order the lines came in.
        let mut tasks = self.tasks;
        tasks.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        let counts: Vec<(u64, u64)> = tasks
            .iter()
            .map(|(_, t)| (t.passed + t.failed, t.passed))
            .filter(|(n, _)| *n > 0)
            .collect();
        let k = match k {
            Some(k) => Some(k),
            None => counts.iter().map(|(n, _)| *n).min(),
        };
        let (pass_at_k, pass_hat_k_suite) = match k {
            Some(k) => (mean_pass_at_k(&counts, k)?, mean_pass_hat_k(&counts, k)?),
            None => (None, None),
        };
        // Over the graded attempts, as pass@k, so that the same k applies; attempts whose
        // safety was not checked are left out, and a task with fewer than k checked ones.
        let hit_at_k = match k {
            Some(k) => {
                let violations: Vec<(u64, u64)> = tasks
                    .iter()
                    .map(|(_, t)| (t.passed + t.failed - t.safety_not_checked, t.violated))
                    .filter(|(n, _)| *n >= k)
                    .collect();
                mean_pass_at_k(&violations, k)?
            }
            None => None,
        };
        let attempts: u64 = tasks.iter().map(|(_, t)| t.attempts).sum();
        let passed: u64 = tasks.iter().map(|(_, t)| t.passed).sum();
        let failed: u64 = tasks.iter().map(|(_, t)| t.failed).sum();
        let ungraded: u64 = tasks.iter().map(|(_, t)| t.ungraded).sum();
        let graded = passed + failed;
        let pass_at_1 = mean_pass_at_k(&counts, 1).unwrap_or(None);
        // Every graded attempt-0 line counts: one per task for one agent, one per agent
        // and task when agents are pooled.
        let first_attempt_pass_rate = ratio(
            tasks.iter().map(|(_, t)| t.first_passed).sum(),
            tasks.iter().map(|(_, t)| t.first_graded).sum(),
        );
        let always_pass = ratio(
            counts.iter().filter(|(n, c)| n == c).count() as u64,
            counts.len() as u64,
        );
        let per_success = |usd: Option<Decimal>| {
            usd.filter(|_| passed > 0)
                .map(|usd| usd / Decimal::from(passed))
        };
        let cost_per_success = CostPerSuccess {
            usd: per_success(self.spend_usd),
            agent_usd: per_success(self.agent_usd),
            judge_usd: per_success(self.judge_usd),
            tokens: (passed > 0).then(|| self.tokens as f64 / passed as f64),
            cost_is_lower_bound: self.unpriced_calls > 0,
        };
        let mut diagnosis: BTreeMap<String, u64> = Diagnosis::ALL
            .iter()
            .map(|d| (d.as_str().to_owned(), 0))
            .collect();
        for (d, n) in &self.diagnosis {
            diagnosis.insert(d.as_str().to_owned(), *n);
        }
        let mut per_task = Vec::with_capacity(tasks.len());
        for (task, tally) in &tasks {
            let n = tally.passed + tally.failed;
            let mut reasons: Vec<ReasonCount> = tally
                .reasons
                .iter()
                .map(|(reason, (count, detail))| ReasonCount {
                    reason: reason.clone(),
                    count: *count,
                    detail: detail.clone(),
                })
                .collect();
            reasons.sort_by(|a, b| b.count.cmp(&a.count).then_with(|| a.reason.cmp(&b.reason)));
            per_task.push(TaskSummary {
                task: task.clone(),
                attempts: tally.attempts,
                passed: tally.passed,
                failed: tally.failed,
                ungraded: tally.ungraded,
                pass_rate: ratio(tally.passed, n),
                pass_rate_ci: wilson(tally.passed, n, Z95),
                pass_hat_k: match k {
                    Some(k) if n > 0 => Some(pass_hat_k(n, tally.passed, k)?),
                    _ => None,
                },
                reasons,
                never_applied: tally.never_applied.clone().unwrap_or_default(),
            });
        }
        let mut labels: Vec<String> = tasks
            .iter()
            .map(|(_, t)| t)
            .flat_map(|tally| tally.labels.iter().map(|(label, _)| label.clone()))
            .collect();
        labels.sort();
        labels.dedup();
        // Tasks and the labels within each are in order, so the cells are in
        // (task, label) order.
        let grid = if labels.len() > 1 {
            tasks
                .iter()
                .flat_map(|(task, tally)| {
                    let mut cells: Vec<&(String, (u64, u64))> = tally.labels.iter().collect();
                    cells.sort_unstable_by(|a, b| a.0.cmp(&b.0));
                    cells.into_iter().map(|(label, (c, n))| GridCell {
                        task: task.clone(),
                        label: label.clone(),
                        passed: *c,
                        graded: *n,
                        pass_rate: ratio(*c, *n),
                    })
                })
                .collect()
        } else {
            Vec::new()
        };
        Ok(Summary {
            tasks: tasks.len() as u64,
            attempts,
            passed,
            failed,
            ungraded,
            pass_rate: ratio(passed, graded),
            pass_rate_ci: wilson(passed, graded, Z95),
            pass_at_1,
            first_attempt_pass_rate,
            k,
            pass_at_k,
            pass_hat_k: pass_hat_k_suite,
            always_pass,
            cost_per_success,
            total_cost: TotalCost {
                usd: self.spend_usd,
                agent_usd: self.agent_usd,
                judge_usd: self.judge_usd,
                tokens: self.tokens,
                cost_is_lower_bound: self.unpriced_calls > 0,
            },
            unpriced_calls: self.unpriced_calls,
            cost_is_lower_bound: self.unpriced_calls > 0,
            mean_steps_success: ratio(self.success_steps, passed),
            step_efficiency: self.efficiency.mean(),
            tool_correctness: self.correctness.mean(),
            aborted_share: ratio(self.aborted, attempts),
            diagnosis,
            timeouts: self.timeouts,
            errors: self.errors,
            safety_violations: self.safety.violated,
            safety_not_checked: self.safety.not_checked,
            safety_violation_rate: self.safety.rate(),
            safety_violation_rate_ci: self.safety.interval(),
            hit_at_k,
            faulted: self.faulted,
            recovered: self.recovered,
            recovery_rate: ratio(self.recovered, self.faulted),
            attack: self.attack.then(|| AttackFigures {
                useful_attempts: self.did_the_task,
                utility_under_attack: ratio(self.did_the_task, graded),
                utility_under_attack_ci: wilson(self.did_the_task, graded, Z95),
            }),
            labels: labels.into_iter().filter(|l| !l.is_empty()).collect(),
            grid,
            per_task,
        })
    }
}

#[cfg(test)]
mod cost_tests {
    use super::*;
    use crate::result::{Cost, ResultLine};

    fn line(task: &str, passed: bool, agent: &str, judge: Option<&str>) -> ResultLine {
        let agent: Decimal = agent.parse().unwrap();
        let judge: Option<Decimal> = judge.map(|j| j.parse().unwrap());
        let mut line: ResultLine = serde_json::from_value(serde_json::json!({
            "format": "proctor.result/1", "task": task, "passed": passed, "status": "final",
        }))
        .unwrap();
        line.cost = Cost {
            usd: Some(agent + judge.unwrap_or_default()),
            agent_usd: Some(agent),
            judge_usd: judge,
            tokens: 100,
            ..Cost::default()
        };
        line
    }

    #[test]
    fn cost_per_success_counts_failed_spend_and_splits_agent_and_judge() {
        let mut b = SummaryBuilder::new();
        b.add(&line("a", true, "0.30", Some("0.01")));
        b.add(&line("a", false, "0.50", Some("0.02")));
        b.add(&line("b", true, "0.20", None));
        let s = b.finish(None).unwrap();
        let cps = &s.cost_per_success;
        assert_eq!(cps.usd, Some("0.515".parse().unwrap()));
        assert_eq!(cps.agent_usd, Some("0.5".parse().unwrap()));
        assert_eq!(cps.judge_usd, Some("0.015".parse().unwrap()));
        assert_eq!(s.total_cost.agent_usd, Some("1.00".parse().unwrap()));
        assert_eq!(cps.tokens, Some(150.0));
    }

    #[test]
    fn cost_per_success_is_empty_with_zero_successes() {
        let mut b = SummaryBuilder::new();
        b.add(&line("a", false, "0.30", Some("0.01")));
        let s = b.finish(None).unwrap();
        assert_eq!(s.cost_per_success.usd, None);
        assert_eq!(s.cost_per_success.agent_usd, None);
        assert_eq!(s.cost_per_success.tokens, None);
        assert_eq!(s.total_cost.usd, Some("0.31".parse().unwrap()));
    }
}

#[cfg(test)]
mod ungraded_task_tests {
    use super::*;
    use crate::result::ResultLine;

    fn line(task: &str, attempt: u64, passed: Option<bool>) -> ResultLine {
        let text = serde_json::json!({
            "task": task, "attempt": attempt, "passed": passed, "status": "final",
        });
        ResultLine::parse(&text.to_string()).unwrap()
    }

    /// docs/metrics.md#reliability: a task none of whose attempts was graded is counted
    /// (tasks, attempts, ungraded) but has no n: it is left out of pass@1, pass@k, pass^k,
    /// always pass and of the choice of k, and its own rates are empty.
    #[test]
    fn a_task_without_a_graded_attempt_is_left_out_of_every_rate_and_of_k() {
        let mut b = SummaryBuilder::new();
        for attempt in 0..3 {
            b.add(&line("a", attempt, Some(attempt == 0)));
        }
        b.add(&line("b", 0, None));
        let s = b.clone().finish(None).unwrap();
        assert_eq!((s.tasks, s.attempts, s.ungraded), (2, 4, 1));
        // k is a's 3, not b's 0.
        assert_eq!(s.k, Some(3));
        assert!((s.pass_at_1.unwrap() - 1.0 / 3.0).abs() < 1e-12);
        assert_eq!((s.pass_at_k, s.pass_hat_k), (Some(1.0), Some(0.0)));
        assert_eq!(s.always_pass, Some(0.0));
        let b_task = &s.per_task[1];
        assert_eq!(
            (b_task.pass_rate, b_task.pass_rate_ci, b_task.pass_hat_k),
            (None, None, None)
        );
        // `--k 2` is no error for b, which has no graded attempt to draw from.
        let s = b.finish(Some(2)).unwrap();
        assert_eq!(s.pass_hat_k, Some(0.0));
        // Only ungraded attempts: no k and no rate at all.
        let mut none = SummaryBuilder::new();
        none.add(&line("b", 0, None));
        let s = none.finish(None).unwrap();
        assert_eq!(
            (s.k, s.pass_at_k, s.pass_hat_k, s.pass_at_1),
            (None, None, None, None)
        );
    }
}
