//! Grading one outcome against its task: checks, reasons, pass/fail/ungraded,
//! diagnosis and the per-run numbers that are reported but never gate.

mod checks;
mod diagnosis;
mod names;
mod verdict;

pub use checks::{CheckResult, Workdir, evaluate};
use checks::{each_check, on_record};
pub use diagnosis::{Diagnosis, REPORT_STUCK_TOOL, diagnose};
pub use names::{CheckName, CheckNames};
pub use verdict::RubricVerdict;

use crate::outcome::{Outcome, Status};
use crate::task::{GateCategory, Task};

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

/// Grades one outcome. `verdict` is the judge's decision when the task has a rubric.
pub fn grade(
    task: &Task,
    outcome: &Outcome,
    workdir: Workdir<'_>,
    verdict: Option<&RubricVerdict>,
) -> Grade {
    let mut checks = Vec::new();
    let mut reasons = Vec::new();
    let mut judge_undecided = false;
    // Most checks of most runs gate and hold: they make neither a reason nor a record.
    each_check(
        task,
        outcome,
        workdir,
        verdict,
        |category, check, failure| {
            let gating = task.gates_on(category);
            if gating && let Some(failure) = &failure {
                reasons.push(failure.clone());
                judge_undecided |=
                    category == GateCategory::Rubric && failure.starts_with("judge error:");
            }
            let passed = failure.is_none();
            if on_record(gating, passed) {
                checks.push(CheckResult {
                    category,
                    gating,
                    passed,
                    check: check.clone(),
                    failure,
                });
            }
        },
    );
    let raised = outcome.error.is_some() || outcome.status == Some(Status::Error);
    let passed = if raised {
        // A crash replaces every other reason and always gates.
        let kind = outcome
            .error
            .as_ref()
            .map(|e| e.kind.clone())
            .unwrap_or_else(|| "unknown".to_owned());
        reasons = vec![format!("error: {kind}")];
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
