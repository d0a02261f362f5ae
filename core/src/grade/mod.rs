//! Grading one outcome against its task: checks, reasons, pass/fail/ungraded,
//! diagnosis and the per-run numbers that are reported but never gate.

mod checks;
mod diagnosis;
mod evidence;
mod not_applied;
mod reasons_given;
mod verdict;

pub use crate::task::{CheckName, CheckNames};
pub use checks::{CheckResult, Failed, Workdir, evaluate};
use checks::{CheckSink, each_check, on_record};
pub(crate) use diagnosis::diagnose;
pub use diagnosis::{Diagnosis, REPORT_STUCK_TOOL};
pub use evidence::{Account, Evidence};
pub use not_applied::{RuleNotApplied, rules_not_applied};
pub use reasons_given::{ReasonsGiven, TaskReasons};
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
    /// Why it failed, one reason per failed gating check, as docs/task-file.md spells them.
    pub reasons: Vec<String>,
    /// The checks on record ([`CheckResult::on_record`]): those outside the gate and the
    /// gating ones that failed. [`evaluate`] gives every check.
    pub checks: Vec<CheckResult>,
    /// Set for failed runs only.
    pub diagnosis: Option<Diagnosis>,
    /// `optimal_steps / steps`, when the task gives optimal steps and the run took any
    /// (1 for 0 of 0); above 1 when the run took fewer steps than optimal.
    pub step_efficiency: Option<f64>,
    /// Share of `expected_tools` the run used.
    pub tool_correctness: Option<f64>,
}

impl Grade {
    /// Adds checks the runner made beside the task's own (the trajectory against the trace
    /// or the recorded calls, the served tools' limits). One that gates and failed fails the
    /// attempt, with its reason after the task's (a crash's reason stays the only one), and
    /// gives it its diagnosis.
    pub fn add_runner_checks(
        &mut self,
        checks: Vec<CheckResult>,
        outcome: &Outcome,
        step_cap: Option<u64>,
    ) {
        if checks.is_empty() {
            return;
        }
        let crashed = self
            .checks
            .iter()
            .any(|check| check.check == RAN_CHECK && !check.passed);
        for check in checks {
            if check.gating && !check.passed {
                self.passed = Some(false);
                if !crashed {
                    self.reasons.extend(check.failure.clone());
                }
                self.diagnosis
                    .get_or_insert_with(|| diagnose(outcome, step_cap));
            }
            self.checks.push(check);
        }
    }
}

impl Grade {
    /// Makes the attempt not evaluated (ungraded) for `reason`, its only reason: something
    /// outside the agent (its simulated user) failed, so the attempt is neither a pass nor
    /// a fail. Its checks stay on record as they were evaluated.
    pub fn not_evaluated(&mut self, reason: &str) {
        self.passed = None;
        self.reasons = vec![reason.to_owned()];
        self.diagnosis = None;
    }
}

/// Which checks a [`Grade`] keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kept {
    /// The checks a result line records ([`CheckResult::on_record`]).
    OnRecord,
    /// Only what a summary reads of them: the gating checks that failed with a detail
    /// (each reason's; one repeating a reason without it is left out) and the failed
    /// `safety` checks. Checks outside the gate that failed for another category are not
    /// spelled out at all (`grade` without `--out`).
    ForSummary,
}

/// Grades one outcome. `verdict` is the judge's decision when the task has a rubric.
pub fn grade(
    task: &Task,
    outcome: &Outcome,
    workdir: Workdir<'_>,
    verdict: Option<&RubricVerdict>,
) -> Grade {
    grade_on_evidence(task, outcome, &Evidence::default(), workdir, verdict)
}

/// Grades one outcome as [`grade`] does, with forbidden tools and `safety` rules also
/// graded on `evidence`, the other accounts of the attempt's calls (docs/traces.md).
pub fn grade_on_evidence(
    task: &Task,
    outcome: &Outcome,
    evidence: &Evidence,
    workdir: Workdir<'_>,
    verdict: Option<&RubricVerdict>,
) -> Grade {
    grade_with(
        task,
        outcome,
        evidence,
        workdir,
        verdict,
        Kept::OnRecord,
        None,
    )
}

/// Collects a grade's reasons and the checks it keeps.
struct Collect<'t, 'g> {
    task: &'t Task,
    kept: Kept,
    /// With [`Kept::ForSummary`], the reasons earlier lines gave: a repeated one needs no
    /// detail.
    given: Option<&'g mut TaskReasons>,
    /// How many of the reasons were found in `given` already: when all were, the line
    /// adds nothing to it.
    known_reasons: usize,
    checks: Vec<CheckResult>,
    reasons: Vec<String>,
    judge_undecided: bool,
}

impl CheckSink for Collect<'_, '_> {
    fn wants_detail(&mut self, category: GateCategory, reason: &str) -> bool {
        match (self.kept, &self.given) {
            (Kept::OnRecord, _) | (Kept::ForSummary, None) => true,
            // A summary reads the detail of a reason only, the first time it is given.
            (Kept::ForSummary, Some(given)) => {
                if !self.task.gates_on(category) {
                    return false;
                }
                let known = given.has(reason);
                self.known_reasons += usize::from(known);
                !known
            }
        }
    }

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
        let mut failed = failed.map(|make| make());
        if gating && let Some(failed) = &mut failed {
            self.judge_undecided |=
                category == GateCategory::Rubric && failed.reason.starts_with("judge error:");
            // A summary reads a failed check for its detail or its category alone: one
            // that repeats a reason without detail, outside `safety`, gives it nothing,
            // and its reason is moved rather than copied.
            if self.kept == Kept::ForSummary
                && failed.detail.is_none()
                && category != GateCategory::Safety
            {
                self.reasons.push(std::mem::take(&mut failed.reason));
                return;
            }
            self.reasons.push(failed.reason.clone());
        }
        let not_checked = failed.as_ref().is_some_and(|f| f.not_checked);
        let (failure, detail) = failed.map(|f| (f.reason, f.detail)).unzip();
        let detail = detail.flatten();
        self.checks.push(CheckResult {
            category,
            gating,
            passed,
            check: check.clone(),
            failure,
            detail,
            not_checked,
        });
    }
}

/// Grades one outcome as [`grade_on_evidence`] does, keeping the checks `kept` asks for. With
/// [`Kept::ForSummary`] and `given`, the reasons earlier lines of the task gave, a reason
/// among them comes without its detail (the summary reads that line's), and the grade's
/// reasons are added to `given`.
pub fn grade_keeping(
    task: &Task,
    outcome: &Outcome,
    evidence: &Evidence,
    workdir: Workdir<'_>,
    verdict: Option<&RubricVerdict>,
    kept: Kept,
    given: Option<&mut TaskReasons>,
) -> Grade {
    grade_with(task, outcome, evidence, workdir, verdict, kept, given)
}

fn grade_with(
    task: &Task,
    outcome: &Outcome,
    evidence: &Evidence,
    workdir: Workdir<'_>,
    verdict: Option<&RubricVerdict>,
    kept: Kept,
    given: Option<&mut TaskReasons>,
) -> Grade {
    let mut collect = Collect {
        task,
        kept,
        given,
        known_reasons: 0,
        checks: Vec::new(),
        reasons: Vec::new(),
        judge_undecided: false,
    };
    each_check(task, outcome, evidence, workdir, verdict, &mut collect);
    let Collect {
        mut checks,
        mut reasons,
        judge_undecided,
        given,
        known_reasons,
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
            not_checked: false,
        });
        Some(false)
    } else if judge_undecided {
        None
    } else {
        Some(reasons.is_empty())
    };
    // Every gating check that failed gave a reason, so a line whose reasons were all
    // found given (a crash replaces them, and is never found) has nothing to add.
    if let Some(given) = given.filter(|_| raised || known_reasons < reasons.len()) {
        given.add(&reasons);
    }
    let diagnosis = (passed == Some(false)).then(|| diagnose(outcome, task.step_cap));
    // docs/metrics.md#efficiency: 0 steps where 0 are needed is efficient; 0 steps where
    // some are needed has no ratio and is left out; fewer steps than optimal stay above 1.
    let step_efficiency = match (task.optimal_steps, outcome.steps) {
        (Some(0), 0) => Some(1.0),
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
