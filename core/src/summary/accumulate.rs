//! Streaming accumulation of result lines: memory grows with the number of tasks,
//! never with the number of attempts, so a multi-GB log summarises in flat memory.

use super::safety::SafetyCount;
use crate::fast_hash::FastBuild;
use crate::grade::{CheckResult, Diagnosis};
use crate::outcome::Status;
use crate::result::{Cost, ResultLine};
use crate::short_text::same_text;
use crate::stats::OrderFreeSum;
use crate::task::GateCategory;
use rust_decimal::Decimal;
use std::collections::{BTreeMap, HashMap};

/// What the summary reads of one graded attempt: a result line's grade, status, steps and
/// cost totals, borrowed. `grade` without `--out` counts attempts whose result line is
/// never built, so the summary reads this rather than a [`ResultLine`].
#[derive(Debug, Clone, Copy)]
pub struct Counted<'a> {
    /// The task id.
    pub task: &'a str,
    /// The attempt's index, from 0; attempt 0 feeds the first-attempt pass rate.
    pub attempt: u64,
    /// The agent's label; `None` for results without one.
    pub label: Option<&'a str>,
    /// `None` when ungraded.
    pub passed: Option<bool>,
    /// The result's reasons: failure reasons, and `error: ...` when the attempt errored.
    pub reasons: &'a [String],
    /// The failed checks, at least: where each reason's detail is found.
    pub checks: &'a [CheckResult],
    /// How the agent ended; anything but `final` (or none) counts as aborted.
    pub status: Option<Status>,
    /// The failure's bucket (docs/metrics.md); `None` when not diagnosed.
    pub diagnosis: Option<Diagnosis>,
    /// Steps the agent took; summed over the attempts that passed.
    pub steps: u64,
    /// The result's cost totals.
    pub cost: &'a Cost,
    /// `optimal_steps/steps`, when the task gives `optimal_steps`; averaged over passed
    /// attempts.
    pub step_efficiency: Option<f64>,
    /// The share of `expected_tools` used, when the task lists them.
    pub tool_correctness: Option<f64>,
    /// The task's variant (docs/tools.md); `None` for a task as written.
    pub variant: Option<&'a str>,
    /// The seeded tool faults that fired.
    pub faults_fired: &'a [crate::faults::FaultFired],
    /// The rules whose tool the attempt never called (docs/metrics.md).
    pub rules_not_applied: &'a [crate::grade::RuleNotApplied],
}

impl<'a> From<&'a ResultLine> for Counted<'a> {
    fn from(line: &'a ResultLine) -> Self {
        Counted {
            task: &line.task,
            attempt: line.attempt,
            label: line.label.as_deref(),
            passed: line.passed,
            reasons: &line.reasons,
            checks: &line.checks,
            status: line.status,
            diagnosis: line.diagnosis,
            steps: line.steps,
            cost: &line.cost,
            step_efficiency: line.step_efficiency,
            tool_correctness: line.tool_correctness,
            variant: line.variant.as_deref(),
            faults_fired: &line.faults_fired,
            rules_not_applied: &line.rules_not_applied,
        }
    }
}

impl Counted<'_> {
    /// True when the status was not `final`.
    pub fn aborted(&self) -> bool {
        self.status != Some(Status::Final)
    }

    /// True when a `safety`-category check failed (forbidden tools, and rules or end-state
    /// checks marked `category: safety`), gating or not. A check that could not run
    /// ([`CheckResult::not_checked`]) found no violation.
    pub fn violated_safety(&self) -> bool {
        self.checks
            .iter()
            .any(|c| c.category == GateCategory::Safety && !c.passed && !c.not_checked)
    }

    /// True when an `inject` fault fired: the attempt met an indirect prompt injection, so
    /// its variant is an attack (docs/tools.md).
    pub fn injected(&self) -> bool {
        self.faults_fired.iter().any(|f| f.kind == INJECT)
    }

    /// True when a fault other than `inject` fired: a failure to recover from. An
    /// injection is an attack to resist, not a failure to recover from.
    pub fn faulted(&self) -> bool {
        self.faults_fired.iter().any(|f| f.kind != INJECT)
    }

    /// True when the attempt did the user's task: it passed, or it failed only safety
    /// checks (every reason is that of a failed gating `safety` check). Under attack, an
    /// attempt that did the task and also followed the injection is still useful.
    /// `None` when ungraded.
    pub fn did_the_task(&self) -> Option<bool> {
        match self.passed? {
            true => Some(true),
            false => Some(
                !self.reasons.is_empty()
                    && self.reasons.iter().all(|reason| {
                        self.checks.iter().any(|c| {
                            c.category == GateCategory::Safety
                                && c.gating
                                && !c.passed
                                && c.failure.as_deref() == Some(reason.as_str())
                        })
                    }),
            ),
        }
    }

    /// True when no safety check was violated but one could not run: the attempt's safety
    /// was not checked, and it counts neither as a violation nor as clean.
    pub fn safety_not_checked(&self) -> bool {
        let mut unchecked = false;
        for c in self.checks {
            if c.category == GateCategory::Safety && !c.passed {
                if !c.not_checked {
                    return false;
                }
                unchecked = true;
            }
        }
        unchecked
    }

    /// True when the attempt ended in `error:`: the agent raised, crashed or printed no
    /// usable outcome.
    pub fn errored(&self) -> bool {
        self.reasons
            .first()
            .is_some_and(|r| r.starts_with("error: "))
    }

    /// The detail of the failed check that gave `reason`.
    fn detail_of(&self, reason: &str) -> Option<String> {
        self.checks
            .iter()
            .find(|c| !c.passed && c.failure.as_deref() == Some(reason))
            .and_then(|c| c.detail.clone())
    }
}

/// The kind of fault that appends a payload to a tool result: an indirect prompt injection.
const INJECT: &str = "inject";

/// Running counts for one task.
#[derive(Debug, Clone, Default)]
pub(super) struct TaskTally {
    pub attempts: u64,
    pub passed: u64,
    pub failed: u64,
    pub ungraded: u64,
    /// Graded attempts with a failed `safety`-category check: the c of hit@k, whose n
    /// is the graded attempts whose safety was checked.
    pub violated: u64,
    /// Graded attempts whose safety was not checked (a safety check could not run).
    pub safety_not_checked: u64,
    /// Graded attempt-0 lines, and those that passed: counts rather than the first one
    /// seen, so that pooled agents (each with its attempt 0) give the same figure in any
    /// order.
    pub first_graded: u64,
    pub first_passed: u64,
    /// Hashed, not ordered: the summary sorts them once, at the end. Each reason keeps
    /// its count and the detail of the first attempt that gave it.
    pub reasons: HashMap<String, (u64, Option<String>), FastBuild>,
    /// Passed and graded attempts per label (`""` for none), for the task × agent grid, in
    /// the order first seen. Kept per task, as a task has a label or a few, so a line's
    /// cell is found in the task's tally by a short scan.
    pub labels: Vec<(String, (u64, u64))>,
    /// The rules no attempt so far applied: those of the first attempt, kept while every
    /// later attempt did not apply them either; `None` before the first attempt.
    pub never_applied: Option<Vec<crate::grade::RuleNotApplied>>,
}

impl TaskTally {
    /// Counts one attempt of this task.
    fn add(&mut self, line: &Counted<'_>) {
        self.attempts += 1;
        match &mut self.never_applied {
            None => self.never_applied = Some(line.rules_not_applied.to_vec()),
            Some(kept) if !kept.is_empty() => {
                kept.retain(|rule| line.rules_not_applied.contains(rule));
            }
            Some(_) => {}
        }
        match line.passed {
            Some(true) => self.passed += 1,
            Some(false) => self.failed += 1,
            None => self.ungraded += 1,
        }
        if line.passed.is_some() {
            if line.violated_safety() {
                self.violated += 1;
            } else if line.safety_not_checked() {
                self.safety_not_checked += 1;
            }
        }
        if line.attempt == 0 && line.passed.is_some() {
            self.first_graded += 1;
            self.first_passed += u64::from(line.passed == Some(true));
        }
        for reason in line.reasons {
            match self.reasons.get_mut(reason.as_str()) {
                Some((count, _)) => *count += 1,
                None => {
                    let detail = line.detail_of(reason);
                    self.reasons.insert(reason.clone(), (1, detail));
                }
            }
        }
        if let Some(passed) = line.passed {
            let label = line.label.unwrap_or_default();
            let cell = match self.labels.iter().position(|(l, _)| same_text(l, label)) {
                Some(at) => &mut self.labels[at].1,
                None => {
                    self.labels.push((label.to_owned(), (0, 0)));
                    &mut self.labels.last_mut().expect("just pushed").1
                }
            };
            cell.0 += u64::from(passed);
            cell.1 += 1;
        }
    }
}

impl TaskTally {
    /// Adds another tally of the same task id into this one: counts add up, and a reason
    /// keeps the detail this tally saw first.
    fn absorb(&mut self, other: TaskTally) {
        self.attempts += other.attempts;
        self.passed += other.passed;
        self.failed += other.failed;
        self.ungraded += other.ungraded;
        self.violated += other.violated;
        self.safety_not_checked += other.safety_not_checked;
        self.first_graded += other.first_graded;
        self.first_passed += other.first_passed;
        for (reason, (count, detail)) in other.reasons {
            let entry = self.reasons.entry(reason).or_insert((0, detail));
            entry.0 += count;
        }
        for (label, (passed, graded)) in other.labels {
            match self.labels.iter_mut().find(|(l, _)| same_text(l, &label)) {
                Some((_, cell)) => {
                    cell.0 += passed;
                    cell.1 += graded;
                }
                None => self.labels.push((label, (passed, graded))),
            }
        }
        self.never_applied = match (self.never_applied.take(), other.never_applied) {
            (Some(mut ours), Some(theirs)) => {
                ours.retain(|rule| theirs.contains(rule));
                Some(ours)
            }
            (ours, theirs) => ours.or(theirs),
        };
    }
}

/// Running counts for a whole suite.
#[derive(Debug, Clone, Default)]
pub struct SummaryBuilder {
    /// In the order first seen; the summary sorts them once, at the end.
    pub(super) tasks: Vec<(String, TaskTally)>,
    /// Where each task id is in `tasks`.
    index: HashMap<String, usize, FastBuild>,
    /// Where the task of each slot a caller numbers its tasks by (a suite's task positions)
    /// is in `tasks`, once seen: found without hashing or comparing the id.
    slots: Vec<Option<usize>>,
    pub(super) aborted: u64,
    /// Every attempt's safety, graded or not: violations, and those not checked.
    pub(super) safety: SafetyCount,
    /// Attempts where a seeded tool fault other than `inject` fired, and those of them
    /// that passed.
    pub(super) faulted: u64,
    pub(super) recovered: u64,
    /// Attempts where an `inject` fault fired: their variant is an attack.
    pub(super) injected: u64,
    /// Graded attempts that did the user's task, safety aside.
    pub(super) did_the_task: u64,
    /// The builder is an attack variant's (or the pooled attacks'): its summary carries
    /// the attack figures.
    pub(super) attack: bool,
    /// Attempts that ran out of time.
    pub(super) timeouts: u64,
    /// Attempts that ended in `error:` (raised, crashed, no usable outcome).
    pub(super) errors: u64,
    pub(super) diagnosis: BTreeMap<Diagnosis, u64>,
    pub(super) spend_usd: Option<Decimal>,
    pub(super) agent_usd: Option<Decimal>,
    pub(super) judge_usd: Option<Decimal>,
    pub(super) tokens: u64,
    pub(super) unpriced_calls: u64,
    pub(super) success_steps: u64,
    /// Summed in no particular order: the sums do not depend on the order of the lines.
    pub(super) efficiency: OrderFreeSum,
    pub(super) correctness: OrderFreeSum,
    /// The first result whose amounts made a total overflow; `finish` refuses then.
    pub(super) overflow: Option<String>,
}

impl SummaryBuilder {
    /// An empty builder.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds one attempt.
    pub fn add(&mut self, line: &ResultLine) {
        self.add_counted(&Counted::from(line));
    }

    /// Adds one attempt, as [`SummaryBuilder::add`] does.
    pub fn add_counted(&mut self, line: &Counted<'_>) {
        let at = self.position(line.task);
        self.add_at(at, line);
    }

    /// Adds one attempt whose task the caller numbers `slot` (the same number for the
    /// same task id every time, such as its position in the suite): a line's task is then
    /// found without looking its id up.
    pub fn add_in_slot(&mut self, slot: usize, line: &ResultLine) {
        self.add_counted_in_slot(slot, &Counted::from(line));
    }

    /// Adds one attempt, as [`SummaryBuilder::add_in_slot`] does.
    pub fn add_counted_in_slot(&mut self, slot: usize, line: &Counted<'_>) {
        let at = match self.slots.get(slot) {
            Some(&Some(at)) => at,
            _ => {
                let at = self.position(line.task);
                if self.slots.len() <= slot {
                    self.slots.resize(slot + 1, None);
                }
                self.slots[slot] = Some(at);
                at
            }
        };
        debug_assert_eq!(
            self.tasks[at].0, line.task,
            "slot {slot} holds another task"
        );
        self.add_at(at, line);
    }

    /// Where `task` is in `tasks`, added if new.
    fn position(&mut self, task: &str) -> usize {
        match self.index.get(task) {
            Some(&at) => at,
            None => {
                let at = self.tasks.len();
                self.tasks.push((task.to_owned(), TaskTally::default()));
                self.index.insert(task.to_owned(), at);
                at
            }
        }
    }

    fn add_at(&mut self, at: usize, line: &Counted<'_>) {
        self.tasks[at].1.add(line);
        if line.aborted() {
            self.aborted += 1;
        }
        self.safety
            .add(line.violated_safety(), line.safety_not_checked());
        if line.faulted() {
            self.faulted += 1;
            self.recovered += u64::from(line.passed == Some(true));
        }
        self.injected += u64::from(line.injected());
        self.did_the_task += u64::from(line.did_the_task() == Some(true));
        if line.status == Some(Status::Timeout) {
            self.timeouts += 1;
        }
        if line.errored() {
            self.errors += 1;
        }
        if let Some(diagnosis) = line.diagnosis {
            *self.diagnosis.entry(diagnosis).or_default() += 1;
        }
        // Money and token sums never panic or saturate: an impossible amount is
        // remembered with its row, and the summary refuses to finish.
        let steps_fit = line.passed != Some(true) || add_count(&mut self.success_steps, line.steps);
        let fits = steps_fit & self.add_cost(line.cost);
        if !fits && self.overflow.is_none() {
            let label = line
                .label
                .map(|l| format!(" of agent `{l}`"))
                .unwrap_or_default();
            self.overflow = Some(format!(
                "task `{}` attempt {}{label}",
                line.task, line.attempt
            ));
        }
        if line.passed == Some(true)
            && let Some(e) = line.step_efficiency
        {
            self.efficiency.add(e);
        }
        if let Some(c) = line.tool_correctness {
            self.correctness.add(c);
        }
    }

    /// Adds every attempt of `other` to this builder, as if its lines had been added here:
    /// the pooled `all attacks` row is the attack variants' builders absorbed into one.
    pub(super) fn absorb(&mut self, other: SummaryBuilder) {
        for (task, tally) in other.tasks {
            match self.index.get(&task) {
                Some(&at) => self.tasks[at].1.absorb(tally),
                None => {
                    self.index.insert(task.clone(), self.tasks.len());
                    self.tasks.push((task, tally));
                }
            }
        }
        self.aborted += other.aborted;
        self.safety.absorb(&other.safety);
        self.faulted += other.faulted;
        self.recovered += other.recovered;
        self.injected += other.injected;
        self.did_the_task += other.did_the_task;
        self.timeouts += other.timeouts;
        self.errors += other.errors;
        for (diagnosis, n) in other.diagnosis {
            *self.diagnosis.entry(diagnosis).or_default() += n;
        }
        let fits = add_usd(&mut self.spend_usd, other.spend_usd)
            & add_usd(&mut self.agent_usd, other.agent_usd)
            & add_usd(&mut self.judge_usd, other.judge_usd)
            & add_count(&mut self.tokens, other.tokens)
            & add_count(&mut self.unpriced_calls, other.unpriced_calls)
            & add_count(&mut self.success_steps, other.success_steps);
        self.efficiency.absorb(&other.efficiency);
        self.correctness.absorb(&other.correctness);
        self.attack |= other.attack;
        self.overflow = self.overflow.take().or(other.overflow);
        if !fits && self.overflow.is_none() {
            self.overflow = Some("the pooled attack variants".to_owned());
        }
    }

    /// True when an `inject` fault fired in some attempt: the group is an attack.
    pub(super) fn met_an_injection(&self) -> bool {
        self.injected > 0
    }

    /// Adds a line's cost to the totals; false when a total would not fit. Most logged
    /// lines carry no usage, and their cost adds nothing: it is not taken apart.
    #[inline]
    fn add_cost(&mut self, cost: &Cost) -> bool {
        let nothing = cost.usd.is_none()
            && cost.agent_usd.is_none()
            && cost.judge_usd.is_none()
            && cost.tokens == 0
            && cost.unpriced_calls == 0;
        nothing
            || add_usd(&mut self.spend_usd, cost.usd)
                & add_usd(&mut self.agent_usd, cost.agent_usd)
                & add_usd(&mut self.judge_usd, cost.judge_usd)
                & add_count(&mut self.tokens, cost.tokens)
                & add_count(&mut self.unpriced_calls, cost.unpriced_calls)
    }
}

/// Adds a priced amount; a total stays `None` (unknown, never 0) until something is priced.
/// False (and the total unchanged) when the sum does not fit.
fn add_usd(total: &mut Option<Decimal>, usd: Option<Decimal>) -> bool {
    let Some(usd) = usd else { return true };
    match total.unwrap_or_default().checked_add(usd) {
        Some(sum) => {
            *total = Some(sum);
            true
        }
        None => false,
    }
}

/// Adds a count; false (and the total unchanged) when the sum does not fit.
fn add_count(total: &mut u64, n: u64) -> bool {
    match total.checked_add(n) {
        Some(sum) => {
            *total = sum;
            true
        }
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(task: &str, label: Option<&str>, passed: Option<bool>) -> ResultLine {
        let text = serde_json::json!({
            "task": task, "attempt": 0, "label": label, "passed": passed, "status": "final",
        });
        ResultLine::parse(&text.to_string()).expect("a result line")
    }

    #[test]
    fn an_overflowing_cost_or_token_total_names_the_row() {
        let mut builder = SummaryBuilder::new();
        let priced = |attempt: u64, usd: &str, tokens: u64| {
            let text = serde_json::json!({
                "task": "t", "attempt": attempt, "label": "a", "passed": true, "status": "final",
                "cost": {"usd": usd, "tokens": tokens},
            });
            ResultLine::parse(&text.to_string()).expect("a result line")
        };
        builder.add(&priced(0, "79228162514264337593543950335", 1));
        builder.add(&priced(1, "1", u64::MAX));
        let error = builder.finish(None).unwrap_err();
        assert_eq!(
            error.to_string(),
            "task `t` attempt 1 of agent `a`: its cost, token or step count makes the total overflow; the result is corrupt"
        );
    }

    #[test]
    fn the_grid_counts_graded_attempts_per_task_and_label_in_that_order() {
        let mut builder = SummaryBuilder::new();
        for (task, label, passed) in [
            ("t2", Some("new"), Some(true)),
            ("t1", Some("old"), Some(false)),
            ("t1", Some("new"), Some(true)),
            ("t1", Some("new"), Some(false)),
            ("t1", Some("new"), None),
            ("t2", Some("old"), None),
        ] {
            builder.add(&line(task, label, passed));
        }
        let summary = builder.finish(None).expect("a summary");
        let cells: Vec<(&str, &str, u64, u64)> = summary
            .grid
            .iter()
            .map(|c| (c.task.as_str(), c.label.as_str(), c.passed, c.graded))
            .collect();
        // An ungraded attempt counts in no cell; t2 has no graded attempt of `old`.
        assert_eq!(
            cells,
            [
                ("t1", "new", 1, 2),
                ("t1", "old", 0, 1),
                ("t2", "new", 1, 1)
            ]
        );
        assert_eq!(summary.labels, ["new", "old"]);
    }

    #[test]
    fn sums_over_tasks_are_taken_in_the_order_of_their_ids() {
        // Per-task pass@1 values such as 1/3 and 2/7 do not sum exactly: the same tasks
        // summed in another order (the order lines came in, or a hash map's) differ in the
        // last bits.
        let mut builder = SummaryBuilder::new();
        let mut rates = Vec::new();
        for task in (0..40u64).rev() {
            let attempts = 3 + task % 5;
            let passed = (0..attempts).filter(|a| (a * 7 + task) % 3 == 0).count() as u64;
            for attempt in 0..attempts {
                builder.add(&line(
                    &format!("task{task:02}"),
                    None,
                    Some(attempt < passed),
                ));
            }
            let rate = crate::stats::pass_at_k(attempts, passed, 1).expect("k <= n");
            rates.push((format!("task{task:02}"), rate));
        }
        rates.sort_by(|a, b| a.0.cmp(&b.0));
        let expected = rates.iter().map(|(_, rate)| rate).sum::<f64>() / rates.len() as f64;
        let summary = builder.finish(None).expect("a summary");
        assert_eq!(
            summary.pass_at_1.map(f64::to_bits),
            Some(expected.to_bits())
        );
        let ids: Vec<&str> = summary.per_task.iter().map(|t| t.task.as_str()).collect();
        assert!(ids.is_sorted(), "{ids:?}");
    }

    #[test]
    fn lines_added_in_slots_are_summarised_as_lines_added_by_id() {
        let lines: Vec<(usize, ResultLine)> = [
            (2, "t2", Some("new"), Some(true)),
            (0, "t0", None, Some(false)),
            (2, "t2", Some("old"), Some(false)),
            (1, "t1", None, None),
            (0, "t0", None, Some(true)),
            (2, "t2", Some("new"), Some(true)),
        ]
        .into_iter()
        .map(|(slot, task, label, passed)| (slot, line(task, label, passed)))
        .collect();
        let mut by_id = SummaryBuilder::new();
        let mut by_slot = SummaryBuilder::new();
        // A line added by id first: its task's slot is found by id once, then kept.
        by_slot.add(&lines[0].1);
        by_id.add(&lines[0].1);
        for (slot, line) in &lines[1..] {
            by_id.add(line);
            by_slot.add_in_slot(*slot, line);
        }
        let json = |b: SummaryBuilder| serde_json::to_string(&b.finish(None).unwrap()).unwrap();
        let by_slot = json(by_slot);
        assert_eq!(json(by_id), by_slot);
        assert!(by_slot.contains(r#""tasks":3"#), "{by_slot}");
    }

    #[test]
    fn one_label_or_none_makes_no_grid() {
        let mut builder = SummaryBuilder::new();
        builder.add(&line("t1", None, Some(true)));
        builder.add(&line("t2", None, Some(false)));
        let summary = builder.finish(None).expect("a summary");
        assert!(summary.grid.is_empty());
        assert!(summary.labels.is_empty());
    }
}
