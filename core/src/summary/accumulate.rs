//! Streaming accumulation of result lines: memory grows with the number of tasks,
//! never with the number of attempts, so a multi-GB log summarises in flat memory.

use crate::grade::Diagnosis;
use crate::result::ResultLine;
use rust_decimal::Decimal;
use std::collections::BTreeMap;

/// Running counts for one task.
#[derive(Debug, Clone, Default)]
pub(super) struct TaskTally {
    pub attempts: u64,
    pub passed: u64,
    pub failed: u64,
    pub ungraded: u64,
    /// Whether attempt 0 passed, once seen graded.
    pub first_attempt: Option<bool>,
    pub reasons: BTreeMap<String, u64>,
}

/// Running counts for a whole suite.
#[derive(Debug, Clone, Default)]
pub struct SummaryBuilder {
    pub(super) tasks: BTreeMap<String, TaskTally>,
    /// Pass counts per (task, label), for the task × agent grid.
    pub(super) grid: BTreeMap<(String, String), (u64, u64)>,
    pub(super) aborted: u64,
    pub(super) diagnosis: BTreeMap<Diagnosis, u64>,
    pub(super) spend_usd: Option<Decimal>,
    pub(super) agent_usd: Option<Decimal>,
    pub(super) judge_usd: Option<Decimal>,
    pub(super) tokens: u64,
    pub(super) unpriced_calls: u64,
    pub(super) success_steps: u64,
    pub(super) efficiency_sum: f64,
    pub(super) efficiency_count: u64,
    pub(super) correctness_sum: f64,
    pub(super) correctness_count: u64,
    /// A reused (task, label) key for looking up grid cells.
    grid_key: (String, String),
}

impl SummaryBuilder {
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds one attempt.
    pub fn add(&mut self, line: &ResultLine) {
        update(&mut self.tasks, &line.task, |tally: &mut TaskTally| {
            tally.attempts += 1;
            match line.passed {
                Some(true) => tally.passed += 1,
                Some(false) => tally.failed += 1,
                None => tally.ungraded += 1,
            }
            if line.attempt == 0 && line.passed.is_some() && tally.first_attempt.is_none() {
                tally.first_attempt = line.passed;
            }
            for reason in &line.reasons {
                update(&mut tally.reasons, reason, |count| *count += 1);
            }
        });
        if line.passed.is_some() {
            // The key is filled in place, so a cell seen before costs no allocation.
            let key = &mut self.grid_key;
            key.0.clone_from(&line.task);
            key.1.clear();
            key.1.push_str(line.label.as_deref().unwrap_or_default());
            let passed = u64::from(line.passed == Some(true));
            match self.grid.get_mut(key) {
                Some(cell) => *cell = (cell.0 + passed, cell.1 + 1),
                None => {
                    self.grid.insert(key.clone(), (passed, 1));
                }
            }
        }
        if line.aborted() {
            self.aborted += 1;
        }
        if let Some(diagnosis) = line.diagnosis {
            *self.diagnosis.entry(diagnosis).or_default() += 1;
        }
        add_usd(&mut self.spend_usd, line.cost.usd);
        add_usd(&mut self.agent_usd, line.cost.agent_usd);
        add_usd(&mut self.judge_usd, line.cost.judge_usd);
        self.tokens = self.tokens.saturating_add(line.cost.tokens);
        self.unpriced_calls += line.cost.unpriced_calls;
        if line.passed == Some(true) {
            self.success_steps += line.steps;
            if let Some(e) = line.step_efficiency {
                self.efficiency_sum += e;
                self.efficiency_count += 1;
            }
        }
        if let Some(c) = line.tool_correctness {
            self.correctness_sum += c;
            self.correctness_count += 1;
        }
    }
}

/// Changes the value for `key`, inserted as the default the first time. Looking up first
/// means the key is copied once per task or reason, not once per line, and a key seen
/// before is looked up once.
fn update<V: Default>(map: &mut BTreeMap<String, V>, key: &str, change: impl FnOnce(&mut V)) {
    match map.get_mut(key) {
        Some(value) => change(value),
        None => change(map.entry(key.to_owned()).or_default()),
    }
}

/// Adds a priced amount; a total stays `None` (unknown, never 0) until something is priced.
fn add_usd(total: &mut Option<Decimal>, usd: Option<Decimal>) {
    if let Some(usd) = usd {
        *total = Some(total.unwrap_or_default() + usd);
    }
}
