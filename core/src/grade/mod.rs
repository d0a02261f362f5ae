//! Grading one outcome against its task: checks, reasons, pass/fail/ungraded,
//! diagnosis and the per-run numbers that are reported but never gate.

mod checks;
mod diagnosis;
mod names;
mod verdict;

pub use checks::{CheckResult, Failed, Workdir, evaluate};
use checks::{CheckSink, each_check, on_record};
pub use diagnosis::{Diagnosis, REPORT_STUCK_TOOL, diagnose};
pub use names::{CheckName, CheckNames};
pub use verdict::RubricVerdict;

use crate::outcome::{Outcome, Status};
use crate::task::{GateCategory, Task};

/// The name of the check that fails when the agent raised, crashed or printed no usable
/// outcome (reason `error: <Type>`).
pub const RAN_CHECK: &str = "the agent ran and reported an outcome";

/// The grade of one attempt.
#[derive(Debug, Clone, PartialEq)]
pub struct Grade {
    /// `None` when ungraded: the judge could not decide a gating rubric.
    pub passed: Option<bool>,
    pub reasons: Vec<String>,
    /// The checks on record ([`CheckResult::on_record`]): those outside the gate and the
    /// gating ones that failed. [`evaluate`] gives every check.
    pub checks: Vec<CheckResult>,
    /// Set for failed runs only.
    pub diagnosis: Option<Diagnosis>,
    /// `optimal_steps / steps`, when the task gives optimal steps and the run took any.
    pub step_efficiency: Option<f64>,
    /// Share of `expected_tools` the run used.
    pub tool_correctness: Option<f64>,
}

/// Which checks a [`Grade`] keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kept {
    /// The checks a result line records ([`CheckResult::on_record`]).
    OnRecord,
    /// Only what a summary reads of them: the gating checks that failed (each reason's
    /// detail) and the failed `safety` checks. Checks outside the gate that failed for
    /// another category are not spelled out at all (`grade` without `--out`).
    ForSummary,
}

/// Grades one outcome. `verdict` is the judge's decision when the task has a rubric.
pub fn grade(
    task: &Task,
    outcome: &Outcome,
    workdir: Workdir<'_>,
    verdict: Option<&RubricVerdict>,
) -> Grade {
    grade_keeping(task, outcome, workdir, verdict, Kept::OnRecord)
}

/// Collects a grade's reasons and the checks it keeps.
struct Collect<'t> {
    task: &'t Task,
    kept: Kept,
    checks: Vec<CheckResult>,
    reasons: Vec<String>,
    judge_undecided: bool,
}

impl CheckSink for Collect<'_> {
    fn check(
        &mut self,
        category: GateCategory,
        check: &CheckName,
        failed: Option<impl FnOnce() -> Failed>,
    ) {
        let gating = self.task.gates_on(category);
        let passed = failed.is_none();
        let keep = match self.kept {
            Kept::OnRecord => on_record(gating, passed),
            Kept::ForSummary => !passed && (gating || category == GateCategory::Safety),
        };
        // Most checks of most runs gate and hold: they make neither a reason nor a record.
        if !keep {
            return;
        }
        let failed = failed.map(|make| make());
        if gating && let Some(failed) = &failed {
            self.reasons.push(failed.reason.clone());
            self.judge_undecided |=
                category == GateCategory::Rubric && failed.reason.starts_with("judge error:");
        }
        let (failure, detail) = failed.map(|f| (f.reason, f.detail)).unzip();
        self.checks.push(CheckResult {
            category,
            gating,
            passed,
            check: check.clone(),
            failure,
            detail,
        });
    }
}

/// Grades one outcome as [`grade`] does, keeping the checks `kept` asks for.
pub fn grade_keeping(
    task: &Task,
    outcome: &Outcome,
    workdir: Workdir<'_>,
    verdict: Option<&RubricVerdict>,
    kept: Kept,
) -> Grade {
    let mut collect = Collect {
        task,
        kept,
        checks: Vec::new(),
        reasons: Vec::new(),
        judge_undecided: false,
    };
    each_check(task, outcome, workdir, verdict, &mut collect);
    let Collect {
        mut checks,
        mut reasons,
        judge_undecided,
        ..
    } = collect;
    let raised = outcome.error.is_some() || outcome.status == Some(Status::Error);
    let passed = if raised {
        // A crash replaces every other reason and always gates; its check on record
        // carries the detail (the agent's message, stderr, or the parse error).
        let (kind, message) = match &outcome.error {
            Some(e) => (e.kind.clone(), e.message.clone()),
            None => ("unknown".to_owned(), String::new()),
        };
        let reason = format!("error: {kind}");
        reasons = vec![reason.clone()];
        checks.push(CheckResult {
            category: GateCategory::Outcome,
            check: CheckName::from(RAN_CHECK),
            passed: false,
            gating: true,
            failure: Some(reason),
            detail: Some(if message.trim().is_empty() {
                "no message".to_owned()
            } else {
                message
            }),
        });
        Some(false)
    } else if judge_undecided {
        None
    } else {
        Some(reasons.is_empty())
    };
    let diagnosis = (passed == Some(false)).then(|| diagnose(outcome, task.step_cap));
    let step_efficiency = match (task.optimal_steps, outcome.steps) {
        (Some(optimal), steps) if steps > 0 => Some(optimal as f64 / steps as f64),
        _ => None,
    };
    let tool_correctness = (!task.expected_tools.is_empty()).then(|| {
        let used = task
            .expected_tools
            .iter()
            .filter(|tool| outcome.used_tool(tool))
            .count();
        used as f64 / task.expected_tools.len() as f64
    });
    Grade {
        passed,
        reasons,
        checks,
        diagnosis,
        step_efficiency,
        tool_correctness,
    }
}

#[cfg(test)]
mod tests;
