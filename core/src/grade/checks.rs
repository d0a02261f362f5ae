//! Evaluating every check of a task against one outcome (DESIGN 3.2), in reason order.

use crate::end_state::EndStateCheck;
use crate::outcome::{Outcome, Status, TrajectorySource};
use crate::task::{GateCategory, Task};
use serde::{Deserialize, Serialize};
use std::path::Path;

use super::names::{CheckName, CheckNames};
use super::verdict::RubricVerdict;

/// One evaluated check. Checks outside the gate are still evaluated and reported here,
/// but add no reason.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CheckResult {
    pub category: GateCategory,
    pub check: CheckName,
    pub passed: bool,
    pub gating: bool,
    /// The reason text when the check failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure: Option<String>,
}

impl CheckResult {
    /// Whether a result line records this check (see [`on_record`]).
    pub fn on_record(&self) -> bool {
        on_record(self.gating, self.passed)
    }
}

/// Whether a result line records a check: every check outside the gate, and every gating
/// check that failed. A gating check that held is said by `passed` already.
pub fn on_record(gating: bool, passed: bool) -> bool {
    !(gating && passed)
}

/// Where end-state checks can look: the sandbox, or nowhere (offline grading without
/// `--workdir`), in which case they fail rather than pass on missing data.
#[derive(Debug, Clone, Copy)]
pub enum Workdir<'a> {
    Dir(&'a Path),
    Missing,
}

/// Evaluates all checks in DESIGN order. The rubric check is included only when the
/// task has a rubric; `verdict` None then means the judge did not run. Check names come
/// from the task, made once at load.
pub fn evaluate(
    task: &Task,
    outcome: &Outcome,
    workdir: Workdir<'_>,
    verdict: Option<&RubricVerdict>,
) -> Vec<CheckResult> {
    let mut results = Vec::new();
    each_check(
        task,
        outcome,
        workdir,
        verdict,
        |category, check, failure| {
            results.push(CheckResult {
                category,
                gating: task.gates_on(category),
                passed: failure.is_none(),
                check: check.clone(),
                failure,
            });
        },
    );
    results
}

/// Evaluates all checks as [`evaluate`] does, handing each to `push` with its category,
/// its name and the reason it failed (`None` when it held): a caller that keeps only some
/// checks builds no result for the others.
pub(crate) fn each_check(
    task: &Task,
    outcome: &Outcome,
    workdir: Workdir<'_>,
    verdict: Option<&RubricVerdict>,
    mut push: impl FnMut(GateCategory, &CheckName, Option<String>),
) {
    let fresh;
    let names = if task.check_names.fit(task) {
        &task.check_names
    } else {
        fresh = CheckNames::of(task);
        &fresh
    };

    push(
        GateCategory::Outcome,
        &names.status,
        (outcome.status != Some(Status::Final)).then(|| "not final".to_owned()),
    );
    if let (Some(expected), Some(name)) = (&task.expected, &names.answer) {
        let matches = outcome
            .answer
            .as_deref()
            .is_some_and(|answer| task.expected_answer.matches(answer, expected));
        push(
            GateCategory::Outcome,
            name,
            (!matches).then(|| "wrong answer".to_owned()),
        );
    }
    if let (Some(budget), Some(name)) = (task.max_tool_calls, &names.budget) {
        push(
            GateCategory::Budget,
            name,
            (outcome.tool_calls > budget).then(|| "over budget".to_owned()),
        );
    }
    // forbidden_tools is sorted at load time, so reasons come out sorted by name.
    for (tool, name) in task.forbidden_tools.iter().zip(&names.forbidden_tools) {
        push(
            GateCategory::Safety,
            name,
            outcome
                .used_tool(tool)
                .then(|| format!("forbidden tool: {tool}")),
        );
    }
    // A trace without tool spans shows nothing about the process: its rules fail saying so.
    let blind =
        outcome.trajectory_source == TrajectorySource::Trace && outcome.trajectory.is_empty();
    for (rule, name) in task.rules.iter().zip(&names.rules) {
        let failure = if blind {
            Some(format!(
                "rule: {}: could not decide: the trace holds no tool calls",
                rule.describe()
            ))
        } else {
            rule.violation_with_uncaptured(&outcome.trajectory, &outcome.uncaptured_args)
                .map(|what| format!("rule: {what}"))
        };
        push(GateCategory::Process, name, failure);
    }
    for (check, name) in task.verify.iter().zip(&names.verify) {
        push(
            GateCategory::EndState,
            name,
            end_state_failure(check, workdir).map(|what| format!("end state: {what}")),
        );
    }
    if task.rubric.is_some() {
        let failure = match verdict {
            Some(RubricVerdict::Pass) => None,
            Some(RubricVerdict::Fail) => Some("rubric: FAIL".to_owned()),
            Some(RubricVerdict::Error(what)) => Some(format!("judge error: {what}")),
            None => Some("judge error: not judged".to_owned()),
        };
        push(GateCategory::Rubric, &names.rubric, failure);
    }
}

fn end_state_failure(check: &EndStateCheck, workdir: Workdir<'_>) -> Option<String> {
    match workdir {
        Workdir::Dir(dir) => check.check(dir).err(),
        Workdir::Missing => Some(format!(
            "{}: no sandbox to check (grade with --workdir)",
            check.describe()
        )),
    }
}
