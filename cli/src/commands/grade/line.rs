//! Grading one outcome line into its result line: the work every thread shares.

use crate::commands::grade::workdir_for;
use crate::judging::Judged;
use crate::outcome_log::run_record::RunFacts;
use crate::outcome_log::{
    Item, LineBuffer, LineHead, LineKeys, OutcomeRecord, RunRecord, parse_item, read_item,
    read_text,
};
use crate::outputs::Reads;
use crate::run::isolation::contained_command::ContainedCommands;
use crate::run::sandbox::kept_state_folder;
use crate::settle::{Place, Settled, Settling, add_details, settle};
use crate::usage_cost::Pricer;
use proctor_core::grade::{Evidence, Grade, Kept, ReasonsGiven, Workdir};
use proctor_core::outcome::{CompactString, Outcome, Status};
use proctor_core::result::{Cost, ResultLine};
use proctor_core::summary::Counted;
use proctor_core::task::{Suite, Task};
use std::ops::Range;
use std::path::Path;

/// What grading needs besides the line: read-only, so threads share it.
#[derive(Debug)]
pub struct LineGrader<'a> {
    pub suite: &'a Suite,
    pub pricer: &'a Pricer,
    pub keys: LineKeys,
    pub label: Option<&'a str>,
    /// `--workdir` and `--state-dir`, and what runs command checks there (contained).
    pub workdir: Option<OfflineWorkdir<'a>>,
    /// The log's name, for messages.
    pub log_name: String,
    /// The task file's name, for messages.
    pub tasks_name: String,
    /// What the outputs read of each line: the written text (`--out`), the whole line (a
    /// ledger). A line nothing reads is not built; a line no output reads whole keeps
    /// only what the summary counts.
    pub reads: Reads,
}

/// Where offline grading finds end states: `--workdir`, `--state-dir`, and what runs
/// command checks.
#[derive(Debug, Clone, Copy)]
pub struct OfflineWorkdir<'a> {
    pub dir: &'a Path,
    /// Whether `dir` holds kept sandboxes, one per attempt, rather than one end state.
    pub kept: bool,
    /// `--state-dir`: the tool state folder of every line; without it, a kept sandbox's
    /// `<attempt>.state` beside it, when there is one.
    pub state_dir: Option<&'a Path>,
    pub commands: &'a ContainedCommands,
}

/// A graded line, serialised and ready to be written.
#[derive(Debug)]
pub struct GradedLine {
    /// The attempt the line gave; `None` when it is numbered in file order, which only
    /// the writer can do (it sees the lines in order).
    pub given_attempt: Option<u64>,
    /// The task's position in the suite, by which the writer keeps its counts per task.
    pub slot: usize,
    /// What the summary (and the ledger) read of the line.
    pub counts: LineCounts,
    /// Where `result` is, as one JSON line with its newline, in the buffer given to
    /// [`LineGrader::finish`] (empty when no result line is written). When
    /// `given_attempt` is `None`, the attempt in it is a placeholder `0` at [`attempt_at`].
    pub text: Range<usize>,
    /// What could not be settled fully, though the line was graded (usage not priced):
    /// not skipped input.
    pub problems: Vec<String>,
}

/// What the summary and the ledger read of a graded line.
///
/// The counts stay inline: a graded line is boxed already, and the counts of most lines
/// are the smaller [`LineCounts::Summary`] (a result line is boxed apart).
#[derive(Debug)]
#[allow(clippy::large_enum_variant)]
pub enum LineCounts {
    /// The result line, without what the summary and the ledger do not read (the
    /// outcome's trajectory, usage and answer, the format and digest, and the cost per
    /// model unless a ledger reads it): those are in the written text. The checks stay:
    /// the summary counts safety violations and shows each reason's detail from them.
    Result(Box<ResultLine>),
    /// Only what the summary reads, when no result line is written and no ledger reads
    /// one: none is built.
    Summary(SummaryCounts),
}

/// What the summary reads of an attempt whose result line is never built.
#[derive(Debug)]
pub struct SummaryCounts {
    /// Inline when short, as [`ResultLine::task`].
    pub task: CompactString,
    /// Whether the task is a variant (its id then names the variant after its `@`): most
    /// are not, and their ids are not searched.
    pub is_variant: bool,
    /// The grade, keeping only the checks the summary reads ([`Kept::ForSummary`]).
    pub grade: Grade,
    pub status: Option<Status>,
    pub steps: u64,
    /// `None` for nothing priced (most logged lines carry no usage): a cost is several
    /// times the size of the rest, and a graded line is moved a few times on its way.
    pub cost: Option<Box<Cost>>,
    /// The rules whose tool the attempt never called (docs/metrics.md); mostly empty.
    pub rules_not_applied: Vec<proctor_core::grade::RuleNotApplied>,
}

/// The cost of a line with nothing priced.
static NO_COST: Cost = Cost {
    usd: None,
    tokens: 0,
    unpriced_calls: 0,
    agent_usd: None,
    judge_usd: None,
    priced_at: None,
    models: Vec::new(),
};

impl LineCounts {
    /// The line as the summary reads it, with its attempt and label.
    pub fn counted<'a>(&'a self, attempt: u64, label: Option<&'a str>) -> Counted<'a> {
        match self {
            LineCounts::Result(line) => Counted {
                attempt,
                ..Counted::from(&**line)
            },
            LineCounts::Summary(counts) => Counted {
                task: &counts.task,
                attempt,
                label,
                passed: counts.grade.passed,
                reasons: &counts.grade.reasons,
                checks: &counts.grade.checks,
                status: counts.status,
                diagnosis: counts.grade.diagnosis,
                steps: counts.steps,
                cost: counts.cost.as_deref().unwrap_or(&NO_COST),
                step_efficiency: counts.grade.step_efficiency,
                tool_correctness: counts.grade.tool_correctness,
                // Base task ids hold no `@`, so a variant task's id names its variant; a
                // logged outcome records no served calls, so no fault fired.
                variant: counts
                    .is_variant
                    .then(|| counts.task.split_once('@').map(|(_, variant)| variant))
                    .flatten(),
                faults_fired: &[],
                rules_not_applied: &counts.rules_not_applied,
            },
        }
    }
}

/// The field whose number the writer fills in; it follows `format` and `task`, so its first
/// occurrence is the top-level field (a quote inside a JSON string is always escaped).
const ATTEMPT_FIELD: &[u8] = b",\"attempt\":";

/// Where the attempt number starts in a serialised result line.
pub fn attempt_at(text: &[u8]) -> usize {
    let field = text
        .windows(ATTEMPT_FIELD.len())
        .position(|window| window == ATTEMPT_FIELD)
        .expect("a result line has an attempt field");
    field + ATTEMPT_FIELD.len()
}

/// What became of one non-empty line.
#[derive(Debug)]
// Kept inline: a box per graded line costs more than moving it into the chunk's list.
#[allow(clippy::large_enum_variant)]
pub enum LineOutput {
    Graded(GradedLine),
    /// Not graded; the message names the log and the line.
    Skipped(String),
}

impl LineGrader<'_> {
    /// Reads a line; `Err` holds the message for a line that cannot be graded.
    pub fn read(&self, bytes: &[u8], number: usize) -> Option<Result<ReadLine<'_>, String>> {
        Some(match parse_item(bytes, number, &self.keys)? {
            Item::Bad { line, message } => Err(format!("{}:{line}: {message}", self.log_name)),
            Item::Record(record) => match self.suite.find(&record.task) {
                Some((slot, task)) => Ok(ReadLine { task, slot, record }),
                None => Err(format!(
                    "{}:{}: task `{}` is not in the suite {}",
                    self.log_name, record.line, record.task, self.tasks_name
                )),
            },
        })
    }

    /// Reads a line into `buffer`, as [`LineGrader::read`] does without building an owned
    /// record: the outcome stays in the buffer for [`LineGrader::finish_outcome`].
    pub fn read_into(
        &self,
        bytes: &[u8],
        number: usize,
        buffer: &mut LineBuffer,
    ) -> Option<Result<LineRef<'_>, String>> {
        let head = read_item(bytes, &self.keys, buffer)?;
        Some(self.locate(head, number))
    }

    /// [`LineGrader::read_into`] for a line already known to be UTF-8 text.
    pub fn read_text_into(
        &self,
        text: &str,
        number: usize,
        buffer: &mut LineBuffer,
    ) -> Option<Result<LineRef<'_>, String>> {
        let head = read_text(text, &self.keys, buffer)?;
        Some(self.locate(head, number))
    }

    /// The task of a line read into a buffer, or the message for a line that cannot be
    /// graded.
    fn locate(
        &self,
        head: Result<LineHead<'_>, String>,
        number: usize,
    ) -> Result<LineRef<'_>, String> {
        match head {
            Err(message) => Err(format!("{}:{number}: {message}", self.log_name)),
            Ok(head) => match self.suite.find(&head.task) {
                Some((slot, task)) => Ok(LineRef {
                    task,
                    slot,
                    line: number,
                    attempt: head.attempt,
                    time: head.time,
                    run: head.run,
                }),
                None => Err(format!(
                    "{}:{number}: task `{}` is not in the suite {}",
                    self.log_name, head.task, self.tasks_name
                )),
            },
        }
    }

    /// The end state to check for `attempt` of `task`, with `--workdir`. `Err` says the
    /// attempt is not graded: its kept sandbox is missing and the task reads its end
    /// state (end-state checks, or a rubric when `judging`).
    pub fn sandbox(
        &self,
        task: &Task,
        attempt: u64,
        judging: bool,
    ) -> Result<Option<std::path::PathBuf>, String> {
        let Some(workdir) = self.workdir else {
            return Ok(None);
        };
        match workdir_for(workdir.dir, self.label, &task.id, attempt, workdir.kept) {
            Ok(dir) => Ok(Some(dir)),
            Err(missing) if !task.verify.is_empty() || (judging && task.rubric.is_some()) => {
                Err(format!(
                    "attempt {attempt} of task `{}` not graded: its kept sandbox {} is missing",
                    task.id,
                    missing.display()
                ))
            }
            Err(_) => Ok(None),
        }
    }

    /// Grades, prices and serialises a line (when result lines are written), appending it
    /// to `text`. `attempt` is the line's own, or the number the caller gave it; `None`
    /// leaves a placeholder for the writer.
    pub fn finish(
        &self,
        read: ReadLine<'_>,
        attempt: Option<u64>,
        judged: Option<Judged>,
        text: &mut Vec<u8>,
    ) -> GradedLine {
        let ReadLine { task, slot, record } = read;
        let OutcomeRecord {
            line,
            mut outcome,
            time,
            attempt: given,
            run,
            ..
        } = *record;
        let line = LineRef {
            task,
            slot,
            line,
            attempt: given,
            time,
            run,
        };
        self.finish_outcome(line, &mut outcome, attempt, judged, text, None)
    }

    /// [`LineGrader::finish`] for a line whose outcome is in `outcome`; a result line
    /// takes the outcome, leaving a default in its place. `given` holds the reasons that
    /// earlier lines of the same chunk gave: a line graded for the summary alone repeats
    /// one without its detail.
    pub fn finish_outcome(
        &self,
        line: LineRef<'_>,
        outcome: &mut Outcome,
        attempt: Option<u64>,
        judged: Option<Judged>,
        text: &mut Vec<u8>,
        given: Option<&mut ReasonsGiven>,
    ) -> GradedLine {
        let LineRef {
            task,
            slot,
            line: number,
            time,
            run,
            ..
        } = line;
        // A missing kept sandbox was reported before grading; were it not, the end-state
        // checks fail on `Workdir::Missing`.
        let sandbox = attempt.and_then(|attempt| self.sandbox(task, attempt, false).ok().flatten());
        let kept_state = sandbox.as_deref().map(kept_state_folder);
        let attempt_commands = self.workdir.map(|w| {
            let state = w
                .state_dir
                .or(kept_state.as_deref().filter(|state| state.is_dir()));
            // Without it, a `state:` check names the kept folder it looked for.
            let looked = state.is_none().then_some(kept_state.as_deref()).flatten();
            w.commands.with_state(state).state_missing_at(looked)
        });
        let workdir = match (&sandbox, &attempt_commands) {
            (Some(dir), Some(commands)) => Workdir::Dir(dir, commands),
            _ => Workdir::Missing,
        };
        // A judge's record changes a rubric check's detail on the result line: with one,
        // the line is built whatever is written.
        let builds_line = self.reads.text
            || self.reads.line
            || judged.as_ref().is_some_and(|j| j.record.is_some());
        let kept = if builds_line {
            Kept::OnRecord
        } else {
            Kept::ForSummary
        };
        let given = given.map(|given| given.of_task(slot));
        static NO_EVIDENCE: Evidence = Evidence::NONE;
        // A result line's own run: its checks join the grade, its evidence the line written.
        let (evidence, runner_checks, facts) = RunRecord::split(run);
        let time = RunFacts::price_time(facts.as_ref(), time);
        let place = Place {
            line: Some((&self.log_name, number)),
            task: &task.id,
            attempt,
        };
        let settled = settle(
            Settling {
                task,
                place: &place,
                outcome,
                evidence: evidence.as_ref().unwrap_or(&NO_EVIDENCE),
                workdir,
                judged,
                runner_checks,
                priced_at: time,
            },
            self.pricer,
            kept,
            given,
        );
        let run = (evidence, facts);
        match builds_line {
            false => summary_line(task, slot, attempt, outcome, settled, text.len()),
            true => self.result_line(task, slot, attempt, outcome, settled, run, text),
        }
    }

    /// The graded line as a result line: built, written when an output reads its text,
    /// and kept whole when one reads all of it.
    #[allow(clippy::too_many_arguments)]
    fn result_line(
        &self,
        task: &Task,
        slot: usize,
        attempt: Option<u64>,
        outcome: &mut Outcome,
        mut settled: Settled,
        (evidence, facts): (Option<Evidence>, Option<RunFacts>),
        text: &mut Vec<u8>,
    ) -> GradedLine {
        let problems = std::mem::take(&mut settled.problems);
        let mut result = settled.into_line(
            task,
            attempt.unwrap_or(0),
            self.label.map(str::to_owned),
            std::mem::take(outcome),
            &self.suite.digest,
        );
        if let Some(evidence) = evidence {
            result.evidence = evidence.on_record();
        }
        if let Some(facts) = facts {
            facts.write_on(&mut result);
        }
        add_details(&mut result);
        let start = text.len();
        if self.reads.text {
            result.write_json(text);
            text.push(b'\n');
        }
        if !self.reads.line {
            keep_counted(&mut result);
        }
        GradedLine {
            given_attempt: attempt,
            slot,
            counts: LineCounts::Result(Box::new(result)),
            text: start..text.len(),
            problems,
        }
    }
}

/// The graded line as the summary counts it, when no output reads its result line.
fn summary_line(
    task: &Task,
    slot: usize,
    attempt: Option<u64>,
    outcome: &Outcome,
    settled: Settled,
    at: usize,
) -> GradedLine {
    let Settled {
        grade,
        cost,
        problems,
        ..
    } = settled;
    GradedLine {
        given_attempt: attempt,
        slot,
        counts: LineCounts::Summary(SummaryCounts {
            task: task.id.as_str().into(),
            is_variant: task.variant.is_some(),
            status: outcome.status,
            steps: outcome.steps,
            grade,
            cost: cost.filter(|cost| *cost != Cost::default()).map(Box::new),
            rules_not_applied: proctor_core::grade::rules_not_applied(task, outcome),
        }),
        text: at..at,
        problems,
    }
}

/// Frees what the summary does not read of a line no output reads whole, here, by the
/// thread that allocated it, rather than by the writer's.
fn keep_counted(result: &mut ResultLine) {
    drop((
        std::mem::take(&mut result.trajectory),
        std::mem::take(&mut result.usage),
        std::mem::take(&mut result.tools_used),
        result.answer.take(),
        result.judge.take(),
        std::mem::take(&mut result.format),
        std::mem::take(&mut result.task_digest),
        std::mem::take(&mut result.cost.models),
        result.cost.priced_at.take(),
    ));
}

/// A line read into a [`LineBuffer`] whose task is in the suite; its outcome is in the
/// buffer.
#[derive(Debug)]
pub struct LineRef<'a> {
    pub task: &'a Task,
    /// The task's position in the suite.
    pub slot: usize,
    /// The line's number in the log.
    pub line: usize,
    /// The attempt the line gave, if any.
    pub attempt: Option<u64>,
    /// The line's own time, at which its usage is priced.
    pub time: Result<Option<jiff::Timestamp>, proctor_ledger::time::TimeError>,
    /// What a result line kept of its run.
    pub run: Option<Box<RunRecord>>,
}

/// A line that was read and whose task is in the suite.
#[derive(Debug)]
pub struct ReadLine<'a> {
    pub task: &'a Task,
    /// The task's position in the suite.
    pub slot: usize,
    pub record: Box<OutcomeRecord>,
}

/// The verdict of a line graded without a judge: "not judged" for a task with a rubric.
pub fn unjudged(task: &Task) -> Option<Judged> {
    task.rubric.as_ref().map(|_| Judged::not_judged())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cost_of_nothing_priced_is_the_default_cost() {
        assert_eq!(NO_COST, Cost::default());
    }
}
