//! A task's check names, made from the task itself. Apart from [`CheckNames`] because a task
//! holds its names: the names are data of the task, naming reads the task.

use super::{CheckNames, Task};
use crate::normalise::ExpectedForm;

/// The names of `task`'s checks.
pub fn check_names(task: &Task) -> CheckNames {
    CheckNames {
        status: "status is final".into(),
        answer: task
            .expected
            .as_ref()
            .map(|expected| match &task.expected_form {
                ExpectedForm::Text => format!("answer is {expected:?}").into(),
                form => format!("answer is {}", form.describe(expected)).into(),
            }),
        budget: task
            .max_tool_calls
            .map(|budget| format!("at most {budget} tool calls").into()),
        forbidden_tools: task
            .forbidden_tools
            .iter()
            .map(|tool| format!("never calls {tool}").into())
            .collect(),
        rules: task
            .rules
            .iter()
            .map(|rule| rule.describe().into())
            .collect(),
        verify: task
            .verify
            .iter()
            .map(|check| check.describe().into())
            .collect(),
        rubric: "rubric".into(),
    }
}

/// Whether `names` are names for `task`'s checks: one for each, so a task built
/// without them (or changed after loading) gets fresh names rather than wrong ones.
pub(crate) fn names_fit(names: &CheckNames, task: &Task) -> bool {
    names.answer.is_some() == task.expected.is_some()
        && names.budget.is_some() == task.max_tool_calls.is_some()
        && names.forbidden_tools.len() == task.forbidden_tools.len()
        && names.rules.len() == task.rules.len()
        && names.verify.len() == task.verify.len()
}
