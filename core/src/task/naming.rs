//! A task's check names, made from the task itself. Apart from [`CheckNames`] because a task
//! holds its names: the names are data of the task, naming reads the task.

use super::{CheckNames, Task};
use crate::normalise::ExpectedForm;

/// The names of `task`'s checks.
pub fn check_names(task: &Task) -> CheckNames {
    CheckNames {
        status: "status is final".into(),
        answer: answer_name(task).map(Into::into),
        told_user: task
            .told_user
            .as_ref()
            .map(|told| format!("told the user {}", quoted_list(&told.all)).into()),
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

/// `answer is "Paris"`, `answer contains "W1", "cancelled"`, or both joined by `and`.
fn answer_name(task: &Task) -> Option<String> {
    let is = task
        .expected
        .as_ref()
        .map(|expected| match &task.expected_form {
            ExpectedForm::Text => format!("is {expected:?}"),
            form => format!("is {}", form.describe(expected)),
        });
    let contains = (!task.expected_all.is_empty())
        .then(|| format!("contains {}", quoted_list(&task.expected_all)));
    match (is, contains) {
        (Some(is), Some(contains)) => Some(format!("answer {is} and {contains}")),
        (Some(one), None) | (None, Some(one)) => Some(format!("answer {one}")),
        (None, None) => None,
    }
}

/// `"W1", "cancelled"`: texts quoted, comma-separated.
pub(crate) fn quoted_list(texts: &[impl AsRef<str>]) -> String {
    texts
        .iter()
        .map(|text| format!("{:?}", text.as_ref()))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Whether `names` are names for `task`'s checks: one for each, so a task built
/// without them (or changed after loading) gets fresh names rather than wrong ones.
pub(crate) fn names_fit(names: &CheckNames, task: &Task) -> bool {
    names.answer.is_some() == task.checks_answer()
        && names.told_user.is_some() == task.told_user.is_some()
        && names.budget.is_some() == task.max_tool_calls.is_some()
        && names.forbidden_tools.len() == task.forbidden_tools.len()
        && names.rules.len() == task.rules.len()
        && names.verify.len() == task.verify.len()
}
