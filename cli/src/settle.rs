//! Settling an attempt (docs/architecture.md, "Settling an attempt"): from what it left
//! behind (its outcome, the other accounts of its calls, its end state, the judge's verdict,
//! the checks the runner added) to its grade, its cost and its result line.
//!
//! `run`, `grade` and `judge` settle every attempt here and nowhere else, so one attempt
//! gets the same line, the same messages and the same exit code whichever command settles
//! it. What a command knows only by itself (the process, the timings, the served calls) it
//! writes on the line [`Settled::into_line`] gives, before [`add_details`] reads the line's
//! own record; `judge` settles a line again in place ([`Settled::apply_to`]).

use crate::judging::Judged;
use crate::usage_cost::Pricer;
use proctor_core::grade::{
    CheckResult, Evidence, Grade, Kept, TaskReasons, Workdir, grade_keeping,
};
use proctor_core::outcome::Outcome;
use proctor_core::result::{Cost, ResultLine};
use proctor_core::task::Task;
use proctor_ledger::time::TimeError;
use std::fmt;

/// When an attempt's usage is priced: at the time it records (`None`: the command's
/// start), or not at all when that time cannot be read.
pub type PriceTime = Result<Option<jiff::Timestamp>, TimeError>;

/// Everything an attempt is settled from, whichever command settles it.
pub struct Settling<'a> {
    pub task: &'a Task,
    /// How messages name the attempt (see [`Place`]).
    pub place: &'a Place<'a>,
    pub outcome: &'a Outcome,
    /// The other accounts of the agent's calls, on which safety is graded too.
    pub evidence: &'a Evidence,
    /// Where the end-state checks look.
    pub workdir: Workdir<'a>,
    /// The judge's verdict, for a task with a rubric.
    pub judged: Option<Judged>,
    /// The checks only the runner can make (a served tool's limit, the trace's account).
    pub runner_checks: Vec<CheckResult>,
    pub priced_at: PriceTime,
}

/// How messages about one attempt name it: by task and attempt, after the line of the
/// log it came from when there is one. The task and attempt come last, so that the same
/// attempt gets the same message from every command, a log's line in front.
#[derive(Debug, Clone, Copy)]
pub struct Place<'a> {
    /// `log.jsonl:12`, when the attempt was read from a log.
    pub line: Option<(&'a str, usize)>,
    pub task: &'a str,
    /// `None` while a log's unnumbered line has no number yet.
    pub attempt: Option<u64>,
}

impl fmt::Display for Place<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some((log, line)) = self.line {
            write!(f, "{log}:{line}: ")?;
        }
        write!(f, "task `{}`", self.task)?;
        match self.attempt {
            Some(attempt) => write!(f, " attempt {attempt}"),
            None => Ok(()),
        }
    }
}

/// A settled attempt: what its result line records besides the outcome.
#[derive(Debug)]
pub struct Settled {
    pub grade: Grade,
    /// `None` only when a summary alone reads the attempt and nothing was used: an
    /// empty cost is not built for it.
    pub cost: Option<Cost>,
    /// The judge's verdict with its provenance, for the line's `judge` field.
    pub judge: Option<serde_json::Value>,
    /// What could not be settled fully, each naming the attempt: usage that could not be
    /// priced (its calls are counted unpriced, never as 0). The command says them and
    /// exits 2 at the end (docs/exit-codes.md).
    pub problems: Vec<String>,
}

/// Settles one attempt. `kept` says which checks the grade keeps (a result line's, or only
/// what a summary reads), `given` the reasons already shown for the summary alone.
pub fn settle(
    attempt: Settling<'_>,
    pricer: &Pricer,
    kept: Kept,
    given: Option<&mut TaskReasons>,
) -> Settled {
    let Settling {
        task,
        place,
        outcome,
        evidence,
        workdir,
        judged,
        runner_checks,
        priced_at,
    } = attempt;
    let verdict = judged.as_ref().map(|j| &j.verdict);
    let mut grade = grade_keeping(task, outcome, evidence, workdir, verdict, kept, given);
    let user_failed = crate::run::runner_checks::user_failure(&runner_checks).map(str::to_owned);
    grade.add_runner_checks(runner_checks, outcome, task.step_cap);
    if let Some(reason) = user_failed {
        grade.not_evaluated(&reason);
    }
    let judge_usage = judged.as_ref().map_or(&[][..], |j| &j.usage[..]);
    let mut problems = Vec::new();
    let nothing_used = outcome.usage.is_empty() && judge_usage.is_empty();
    let cost = match (kept, nothing_used) {
        (Kept::ForSummary, true) => None,
        // Nothing to price: a time that cannot be read concerns no call, and the line
        // records the command's time.
        (Kept::OnRecord, true) => Some(pricer.cost(&[], &[], priced_at.ok().flatten()).cost),
        (_, false) => Some(price(
            pricer,
            outcome,
            judge_usage,
            priced_at,
            place,
            &mut problems,
        )),
    };
    Settled {
        grade,
        cost,
        judge: judged.and_then(|j| j.record),
        problems,
    }
}

/// Prices an attempt's calls at `at`; a call that cannot be priced is counted unpriced and
/// said, naming the attempt and the usage object.
fn price(
    pricer: &Pricer,
    outcome: &Outcome,
    judge_usage: &[proctor_core::compact_json::CompactJson],
    at: PriceTime,
    place: &Place<'_>,
    problems: &mut Vec<String>,
) -> Cost {
    let priced = match at {
        Ok(at) => pricer.cost(&outcome.usage, judge_usage, at),
        Err(error) => {
            problems.push(format!(
                "{place}: usage not priced: {error}; its calls are counted unpriced"
            ));
            pricer.unpriced(&outcome.usage, judge_usage)
        }
    };
    for problem in &priced.problems {
        problems.push(format!(
            "{place}: usage not priced: {problem}; the call is counted unpriced"
        ));
    }
    priced.cost
}

impl Settled {
    /// Writes the settlement on `line`, which held the attempt before: its grade, the
    /// judge's record, its cost, and the details of its failed checks that the line's own
    /// record gives (the time limit, an agent that printed nothing, the judge's
    /// reasoning). Everything else on the line is the command's: the outcome, the run's
    /// record, the served calls.
    pub fn apply_to(self, line: &mut ResultLine) {
        line.set_grade(self.grade);
        line.judge = self.judge;
        line.cost = self.cost.unwrap_or_default();
        add_details(line);
    }

    /// The result line of the attempt for `task`, with the outcome and what the task file
    /// says of it (its variant, the task files' digest). The command writes its own record
    /// of the run on it, then calls [`add_details`].
    pub fn into_line(
        self,
        task: &Task,
        attempt: u64,
        label: Option<String>,
        outcome: Outcome,
        digest: &str,
    ) -> ResultLine {
        let not_applied = proctor_core::grade::rules_not_applied(task, &outcome);
        let mut line = ResultLine::new(&task.id, attempt, label, outcome, self.grade);
        line.rules_not_applied = not_applied;
        line.variant.clone_from(&task.variant);
        line.task_digest = digest.to_owned();
        line.judge = self.judge;
        line.cost = self.cost.unwrap_or_default();
        line
    }
}

/// The details of a settled line's failed checks that its own record gives: read from the
/// line alone, so that every command that settles it gives the same.
pub fn add_details(line: &mut ResultLine) {
    crate::details::add_runner_details(line);
}
