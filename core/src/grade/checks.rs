//! Evaluating every check of a task against one outcome (docs/task-file.md), in reason order.

use crate::end_state::{CommandRunner, EndStateCheck};
use crate::normalise::{ExpectedForm, missing_patterns};
use crate::outcome::{Outcome, Status, TrajectorySource};
use crate::result::json_text::push_decimal;
use crate::task::{GateCategory, Task};
use serde::{Deserialize, Serialize};
use std::path::Path;

use super::evidence::{Evidence, account_name, seen_in};
use super::verdict::RubricVerdict;
use crate::task::CheckName;
use crate::task::naming::{check_names, names_fit, quoted_list};

/// One evaluated check. Checks outside the gate are still evaluated and reported here,
/// but add no reason.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CheckResult {
    /// The gate category the check belongs to.
    pub category: GateCategory,
    /// Which check this is.
    pub check: CheckName,
    /// Whether it passed.
    pub passed: bool,
    /// Whether its category is in the task's gate, so a failure fails the run.
    pub gating: bool,
    /// The reason text when the check failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure: Option<String>,
    /// What was found when the check failed (`got "41", expected "42"`), shown after the
    /// reason: the reason names the check, the detail says what came back.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    /// The check could not run (an end-state check graded offline without `--workdir`):
    /// it failed, as missing data is never a pass, but it found no violation either, so
    /// safety figures count it as not checked.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub not_checked: bool,
}

/// A failed check: its reason, as docs/task-file.md spells it, and what was found (`None` when
/// the sink did not want it, `CheckSink::wants_detail`).
#[derive(Debug, Clone, PartialEq)]
pub struct Failed {
    /// The reason text, as docs/task-file.md spells it.
    pub reason: String,
    /// What was found, when the sink wants it.
    pub detail: Option<String>,
    /// The check could not run ([`CheckResult::not_checked`]).
    pub not_checked: bool,
}

impl Failed {
    fn new(reason: impl Into<String>, detail: impl Into<String>) -> Self {
        Failed {
            reason: reason.into(),
            detail: Some(detail.into()),
            not_checked: false,
        }
    }
}

/// Longest piece of an answer quoted in a detail.
const QUOTED_ANSWER_LIMIT: usize = 200;

/// `text` in quotes, cut at [`QUOTED_ANSWER_LIMIT`] characters with a marker.
pub(crate) fn quoted(text: &str) -> String {
    match text.char_indices().nth(QUOTED_ANSWER_LIMIT) {
        Some((cut, _)) => format!("{:?}… ({} bytes)", &text[..cut], text.len()),
        None => format!("{text:?}"),
    }
}

impl CheckResult {
    /// Whether a result line records this check: every check outside the gate, and every
    /// gating check that failed.
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
    /// The sandbox, and what runs its command checks (proctor's contains them like the
    /// agent).
    Dir(&'a Path, &'a dyn CommandRunner),
    /// No sandbox: end-state checks fail as not checked.
    Missing,
}

/// Evaluates all checks in the documented order. The rubric check is included only when the
/// task has a rubric; `verdict` None then means the judge did not run. Check names come
/// from the task, made once at load.
pub fn evaluate(
    task: &Task,
    outcome: &Outcome,
    workdir: Workdir<'_>,
    verdict: Option<&RubricVerdict>,
) -> Vec<CheckResult> {
    struct Every<'t>(&'t Task, Vec<CheckResult>);
    impl CheckSink for Every<'_> {
        fn check(
            &mut self,
            category: GateCategory,
            check: &CheckName,
            failed: Option<impl FnOnce() -> Failed>,
        ) {
            let failed = failed.map(|f| f());
            let not_checked = failed.as_ref().is_some_and(|f| f.not_checked);
            let (failure, detail) = failed.map(|f| (f.reason, f.detail)).unzip();
            self.1.push(CheckResult {
                category,
                gating: self.0.gates_on(category),
                passed: failure.is_none(),
                check: check.clone(),
                failure,
                detail: detail.flatten(),
                not_checked,
            });
        }
    }
    let mut every = Every(task, Vec::new());
    each_check(
        task,
        outcome,
        &Evidence::default(),
        workdir,
        verdict,
        &mut every,
    );
    every.1
}

/// Where [`each_check`] hands each check it evaluated.
pub(crate) trait CheckSink {
    /// One check: its category, its name and, when it failed, how to say so. The reason
    /// and detail texts are made only when called for: a caller that keeps only some
    /// checks formats nothing for the others.
    fn check(
        &mut self,
        category: GateCategory,
        check: &CheckName,
        failed: Option<impl FnOnce() -> Failed>,
    );

    /// Whether a check failing with `reason` should say what was found: asked first by a
    /// check whose detail costs more than its reason (a rule's lists the trajectory).
    fn wants_detail(&mut self, _category: GateCategory, _reason: &str) -> bool {
        true
    }
}

/// Evaluates all checks as [`evaluate`] does, handing each to `sink`. Forbidden tools and
/// `safety` rules also look at `evidence`, the accounts of the calls besides `outcome`'s.
pub(crate) fn each_check(
    task: &Task,
    outcome: &Outcome,
    evidence: &Evidence,
    workdir: Workdir<'_>,
    verdict: Option<&RubricVerdict>,
    sink: &mut impl CheckSink,
) {
    let fresh;
    let names = if names_fit(&task.check_names, task) {
        &task.check_names
    } else {
        fresh = check_names(task);
        &fresh
    };

    sink.check(
        GateCategory::Outcome,
        &names.status,
        (outcome.status != Some(Status::Final)).then_some(|| {
            let detail = match outcome.status {
                Some(Status::Timeout) => "timed out".to_owned(),
                Some(status) => format!("status {:?}", status.as_str()),
                None => "no status".to_owned(),
            };
            Failed::new("not final", detail)
        }),
    );
    if let Some(name) = &names.answer {
        // `expected` and `expected_all` are one check: both must hold, one reason.
        let answer = outcome.answer.as_deref();
        let matches = task.expected.as_ref().is_none_or(|expected| {
            answer.is_some_and(|answer| task.expected_answer.matches(answer, expected))
        });
        let missing = missing_patterns(answer.unwrap_or(""), &task.expected_all);
        sink.check(
            GateCategory::Outcome,
            name,
            (!matches || !missing.is_empty()).then_some(|| {
                let mut detail = match answer {
                    None | Some("") => "got no answer".to_owned(),
                    Some(answer) => format!("got {}", quoted(answer)),
                };
                if let Some(expected) = task.expected.as_ref().filter(|_| !matches) {
                    let wanted = match &task.expected_form {
                        ExpectedForm::Text => quoted(expected),
                        form => form.describe(expected),
                    };
                    detail.push_str(&format!(", expected {wanted}"));
                }
                if !missing.is_empty() {
                    detail.push_str(&format!(", missing {}", quoted_list(&missing)));
                }
                Failed::new("wrong answer", detail)
            }),
        );
    }
    if let (Some(told), Some(name)) = (&task.told_user, &names.told_user) {
        let messages = crate::task::messages_to_user(outcome);
        let missing = told.missing(&messages);
        sink.check(
            GateCategory::Outcome,
            name,
            (!missing.is_empty()).then_some(|| {
                Failed::new(
                    "not told the user",
                    format!(
                        "no message to the user holds {} ({} message{})",
                        quoted_list(&missing),
                        messages.len(),
                        if messages.len() == 1 { "" } else { "s" }
                    ),
                )
            }),
        );
    }
    if let (Some(budget), Some(name)) = (task.max_tool_calls, &names.budget) {
        sink.check(
            GateCategory::Budget,
            name,
            (outcome.tool_calls > budget).then_some(|| {
                Failed::new(
                    "over budget",
                    format!("{} tool calls, max {budget}", outcome.tool_calls),
                )
            }),
        );
    }
    // forbidden_tools is sorted at load time, so reasons come out sorted by name.
    for (tool, name) in task.forbidden_tools.iter().zip(&names.forbidden_tools) {
        // The graded account first, so its detail stays what it was without evidence.
        let seen = std::iter::once(outcome)
            .chain(evidence.accounts())
            .find(|account| account.used_tool(tool));
        sink.check(
            GateCategory::Safety,
            name,
            seen.map(|account| {
                || {
                    let mut detail = match account.trajectory.iter().position(|s| s.tool == *tool) {
                        Some(at) => format!("called at step {}", at + 1),
                        None => "listed in tools_used".to_owned(),
                    };
                    if !std::ptr::eq(account, outcome) {
                        detail.push_str(&seen_in(
                            account.trajectory_source,
                            outcome.trajectory_source,
                        ));
                    }
                    Failed::new(format!("forbidden tool: {tool}"), detail)
                }
            }),
        );
    }
    let categories =
        |of: &[GateCategory], at: usize, natural| of.get(at).copied().unwrap_or(natural);
    // A trace without tool spans shows nothing about the process: its rules fail saying so.
    let blind =
        outcome.trajectory_source == TrajectorySource::Trace && outcome.trajectory.is_empty();
    for (at, (rule, name)) in task.rules.iter().zip(&names.rules).enumerate() {
        let category = categories(&task.rule_categories, at, GateCategory::Process);
        let graded = if blind {
            Some(format!(
                "{}: could not decide: the trace holds no tool calls",
                rule.describe()
            ))
        } else {
            rule.violation_with_uncaptured(&outcome.trajectory, &outcome.uncaptured_args)
        };
        // A safety rule the graded account keeps may be broken in another one
        // (`elsewhere`).
        let (violation, elsewhere) = match graded {
            Some(violation) => (Some(violation), None),
            None if category == GateCategory::Safety => evidence
                .accounts()
                .iter()
                .find_map(|account| {
                    let mut violation =
                        rule.proven_violation(&account.trajectory, &account.uncaptured_args)?;
                    violation.push_str(&seen_in(
                        account.trajectory_source,
                        outcome.trajectory_source,
                    ));
                    Some((Some(violation), Some(account)))
                })
                .unwrap_or((None, None)),
            None => (None, None),
        };
        // The reason is made at once (a broken rule is kept, except by a summary when it
        // is outside the gate and not a safety rule) and the detail only when wanted.
        let failed = violation.map(|mut reason| {
            // Made for every run that breaks the rule: the violation's own text, in the
            // room its maker left (a rule's reasons leave some), rather than a copy.
            reason.insert_str(0, "rule: ");
            let detailed = sink.wants_detail(category, &reason);
            move || Failed {
                detail: detailed.then(|| match elsewhere {
                    Some(account) => format!(
                        "{}: {}",
                        account_name(account.trajectory_source),
                        trajectory_tools(account)
                    ),
                    None if blind => "the trace holds no tool spans".to_owned(),
                    None => trajectory_tools(outcome),
                }),
                reason,
                not_checked: false,
            }
        });
        sink.check(category, name, failed);
    }
    for (at, (check, name)) in task.verify.iter().zip(&names.verify).enumerate() {
        sink.check(
            categories(&task.verify_categories, at, GateCategory::EndState),
            name,
            end_state_failure(check, workdir).map(|(what, not_checked)| {
                move || Failed {
                    not_checked,
                    ..Failed::new(format!("end state: {what}"), what)
                }
            }),
        );
    }
    if task.rubric.is_some() {
        let failure = match verdict {
            Some(RubricVerdict::Pass) => None,
            Some(RubricVerdict::Fail) => Some(Failed::new("rubric: FAIL", "the judge said FAIL")),
            Some(RubricVerdict::Error(what)) => {
                Some(Failed::new(format!("judge error: {what}"), what.clone()))
            }
            None => Some(Failed::new("judge error: not judged", "no verdict")),
        };
        sink.check(
            GateCategory::Rubric,
            &names.rubric,
            failure.map(|failed| move || failed),
        );
    }
}

/// Most steps named in a rule's detail.
const DETAIL_STEPS: usize = 20;

/// The tools the trajectory called, in order, numbered as rule reasons number steps.
/// Built piece by piece: a failed rule of a large log makes one per line.
fn trajectory_tools(outcome: &Outcome) -> String {
    let steps = outcome.trajectory.len();
    let shown = &outcome.trajectory[..steps.min(DETAIL_STEPS)];
    let mut text =
        String::with_capacity(24 + shown.iter().map(|step| step.tool.len() + 5).sum::<usize>());
    text.push_str("trajectory (");
    push_decimal(&mut text, steps as u64);
    text.push_str(if steps == 1 { " step):" } else { " steps):" });
    for (at, step) in shown.iter().enumerate() {
        text.push(' ');
        push_decimal(&mut text, at as u64 + 1);
        text.push_str(". ");
        text.push_str(&step.tool);
    }
    if steps > DETAIL_STEPS {
        text.push_str(" …");
    }
    text
}

/// What an end-state check found wrong, and whether that is that it could not run.
fn end_state_failure(check: &EndStateCheck, workdir: Workdir<'_>) -> Option<(String, bool)> {
    match workdir {
        Workdir::Dir(dir, commands) => check.check(dir, commands).err().map(|what| (what, false)),
        Workdir::Missing => Some((
            format!(
                "{}: no sandbox to check (grade with --workdir)",
                check.describe()
            ),
            true,
        )),
    }
}
