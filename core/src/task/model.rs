//! The task model (docs/task-file.md), after aliases, defaults and validation.

use super::CheckNames;
use super::gate::GateCategory;
use crate::end_state::EndStateCheck;
use crate::faults::FaultSpec;
use crate::normalise::{ExpectedAnswer, ExpectedForm};
use crate::rules::Rule;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::PathBuf;

/// One task of a suite, ready to run and grade.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Task {
    /// Unique within the suite (alias `name` in the file).
    pub id: String,
    /// What the agent is asked (aliases `goal`, `prompt`).
    pub input: String,
    /// The expected answer as text: the answer itself, the list's answers joined with
    /// ` | `, or the regular expression; `expected_form` says which.
    pub expected: Option<String>,
    /// Whether `expected` is one answer, a list of answers or a regular expression.
    pub expected_form: ExpectedForm,
    /// `expected_all`: texts that must each appear in the answer, both normalised
    /// (substring match); checked together with `expected` as one answer check.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub expected_all: Vec<String>,
    /// `told_user`: texts the agent must have said to the user in some message; checked
    /// with the answer, in the `outcome` category.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub told_user: Option<super::ToldUser>,
    /// The tool-call budget; more calls fail the `budget` category.
    pub max_tool_calls: Option<u64>,
    /// Includes the tools of `never` rules; sorted, without duplicates.
    pub forbidden_tools: Vec<String>,
    /// Tools the agent should use; feeds tool correctness, gates only if `process` is in `gate`.
    pub expected_tools: Vec<String>,
    /// The fewest steps the task needs; feeds step efficiency.
    pub optimal_steps: Option<u64>,
    /// The step limit told to the agent; reaching it diagnoses a failure as `hit_cap`.
    pub step_cap: Option<u64>,
    /// Seconds for one attempt; `None` takes the command line's default.
    pub timeout_s: Option<f64>,
    /// Seed files written into the sandbox, by relative path.
    pub files: BTreeMap<String, String>,
    /// Seed folder copied into the sandbox, resolved against the task file's folder.
    pub files_dir: Option<PathBuf>,
    /// Seed files of the tool state folder (docs/tools.md), written after `state_dir`.
    pub state_files: BTreeMap<String, String>,
    /// Seed folder copied into the tool state folder, resolved like `files_dir`.
    pub state_dir: Option<PathBuf>,
    /// Trajectory rules other than `never` (which joins `forbidden_tools`).
    pub rules: Vec<Rule>,
    /// The category of each rule: `process`, or `safety` when marked `category: safety`.
    pub rule_categories: Vec<GateCategory>,
    /// End-state checks run against the sandbox after the attempt.
    pub verify: Vec<EndStateCheck>,
    /// The category of each end-state check: `end_state`, or `safety` when marked so.
    pub verify_categories: Vec<GateCategory>,
    /// What the LLM judge grades the attempt against.
    pub rubric: Option<String>,
    /// Globs of the sandbox files the judge sees; empty means all text files.
    pub judge_files: Vec<String>,
    /// The categories that decide pass or fail, sorted.
    pub gate: Vec<GateCategory>,
    /// Free labels for grouping results.
    pub tags: Vec<String>,
    /// `trajectory_from: trace`: rules are graded on the agent's trace even when it
    /// reports a trajectory of its own (docs/traces.md).
    pub trajectory_from_trace: bool,
    /// `network: none`: the agent gets a network namespace with loopback only.
    pub network: Option<TaskNetwork>,
    /// Seeded tool faults: the task's own, then its variant's (docs/tools.md).
    pub faults: Vec<FaultSpec>,
    /// The variant's name for a task `id@NAME` expanded from `variants:`; `None` for a
    /// task as written.
    pub variant: Option<String>,
    /// Tools proctor serves to the agent over MCP (docs/tools.md); when there are any, the
    /// recorded calls are the graded trajectory.
    pub tools: Vec<crate::tools::ToolSpec>,
    /// Tools the agent runs itself and reports (`agent_tools`): names its rules may use
    /// beside the served tools (docs/task-file.md, "Tool names are checked").
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub agent_tools: Vec<String>,
    /// The file the task was read from.
    pub source: PathBuf,
    /// The names of the checks above, made once at load for every attempt's result.
    #[serde(skip)]
    pub(crate) check_names: CheckNames,
    /// The expected answer normalised, made once at load for every attempt's grade.
    #[serde(skip)]
    pub(crate) expected_answer: ExpectedAnswer,
}

/// A task's `network:`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TaskNetwork {
    /// The host's network (the default).
    Host,
    /// Loopback only, in a namespace of its own.
    None,
}

impl Task {
    /// The id of the task as written: `id` of `id@variant`. Variants share their base
    /// task's attempt seeds, so that each attempt pairs with the base's.
    pub fn base_id(&self) -> &str {
        match &self.variant {
            Some(_) => self.id.split_once('@').map_or(&self.id, |(base, _)| base),
            None => &self.id,
        }
    }

    /// The check families this task defines; `outcome` always counts, since every
    /// outcome has a status.
    pub fn defined_categories(&self) -> Vec<GateCategory> {
        let mut categories = vec![GateCategory::Outcome];
        if self.max_tool_calls.is_some() {
            categories.push(GateCategory::Budget);
        }
        let marked = |category| {
            self.rule_categories.contains(&category) || self.verify_categories.contains(&category)
        };
        if !self.forbidden_tools.is_empty() || marked(GateCategory::Safety) {
            categories.push(GateCategory::Safety);
        }
        if marked(GateCategory::Process) {
            categories.push(GateCategory::Process);
        }
        if marked(GateCategory::EndState) {
            categories.push(GateCategory::EndState);
        }
        if self.rubric.is_some() {
            categories.push(GateCategory::Rubric);
        }
        categories
    }

    /// True when failures of this category decide the run.
    pub fn gates_on(&self, category: GateCategory) -> bool {
        self.gate.contains(&category)
    }

    /// True when the task checks the answer: `expected`, `expected_all` or both.
    pub fn checks_answer(&self) -> bool {
        self.expected.is_some() || !self.expected_all.is_empty()
    }

    /// True when the task has any criterion at all (an empty list must never auto-pass).
    pub fn has_criteria(&self) -> bool {
        self.checks_answer() || self.told_user.is_some() || self.defined_categories().len() > 1
    }
}
