//! `proctor grade`: grade recorded outcomes offline, streaming.

mod line;
mod parallel;
mod sink;
mod traces;

use crate::args::GradeArgs;
use crate::commands::ledger::LedgerRows;
use crate::judging::{Judged, Seeds, check_globs, judge_failure as judge_failure_kind, judge_run};
use crate::outcome_log::{LineKeys, OutcomeLog};
use crate::run::sandbox::path_component;
use crate::{gate, render, usage_cost};
use anyhow::Context;
use line::{LineGrader, LineOutput, unjudged};
use parallel::{CHUNK_BYTES, grade_in_parallel};
use proctor_core::outcome::Status;
use proctor_core::task::Suite;
use proctor_judge::Judge;
use sink::Sink;
use std::path::{Path, PathBuf};

pub fn run(args: GradeArgs) -> anyhow::Result<()> {
    let suite = Suite::load(&args.tasks)?;
    check_globs(suite.tasks.iter())?;
    let judge = args.judge.build(suite.tasks.iter())?;
    let pricer = usage_cost::load_pricer(&args.cost.prices)?;
    let ledger = LedgerRows::open(&args.cost, &args.tasks, &pricer)?;
    let for_ledger = ledger.is_some();
    if let Some(path) = &args.traces {
        let mut sink = Sink::new(args.out.as_deref(), ledger)?;
        let grader = LineGrader {
            suite: &suite,
            pricer: &pricer,
            keys: LineKeys::new(None),
            label: args.label.as_deref(),
            workdir: args.workdir.as_deref(),
            log_name: path.display().to_string(),
            tasks_name: args.tasks.display().to_string(),
            for_ledger,
        };
        let keys = traces::TraceKeys {
            task_attr: &args.task_attr,
            task: args.task.as_deref(),
            judge: judge.as_ref().map(traces::TraceJudge::new).transpose()?,
        };
        let graded = traces::grade_traces(&grader, path, &keys, &mut sink);
        return finish(
            &args,
            sink,
            graded,
            &format!("grade {}", path.display()),
            "traces",
        );
    }
    let outcomes = args
        .outcomes
        .as_deref()
        .context("give --outcomes LOG or --traces FILE")?;
    let log = OutcomeLog::open(outcomes)?;
    let mut sink = Sink::new(args.out.as_deref(), ledger)?;
    let grader = LineGrader {
        suite: &suite,
        pricer: &pricer,
        keys: LineKeys::new(args.task_key.as_deref()),
        label: args.label.as_deref(),
        workdir: args.workdir.as_deref(),
        log_name: log.path().display().to_string(),
        tasks_name: args.tasks.display().to_string(),
        for_ledger,
    };
    // A judge or an end state on disk needs each line's attempt before grading it, which
    // only reading in order gives; everything else is graded on every CPU.
    let graded = match (&judge, &args.workdir) {
        (None, None) => {
            let jobs = args.jobs.map_or_else(
                || std::thread::available_parallelism().map_or(1, |n| n.get()),
                |jobs| jobs as usize,
            );
            grade_in_parallel(&grader, log, &mut sink, jobs)
        }
        _ => grade_in_order(&grader, log, &mut sink, judge.as_ref()),
    };
    let title = format!("grade {}", outcomes.display());
    finish(&args, sink, graded, &title, "outcome lines")
}

/// Writes what was graded, prints the summary, then reports skipped input and the gates.
fn finish(
    args: &GradeArgs,
    sink: Sink,
    graded: anyhow::Result<()>,
    title: &str,
    what: &str,
) -> anyhow::Result<()> {
    // Whatever stopped grading, everything graded so far is kept.
    let (summary, problems) = sink.finish()?;
    graded?;
    let summary = summary
        .finish(args.summary.k)
        .context("cannot compute pass@k")?;
    render::print_summary(args.summary.format, title, &summary)?;
    problems.into_result(what)?;
    gate::check(&args.summary, &summary)
}

/// Grades line after line, numbering attempts before grading: with a judge (one call at a
/// time, stopping at the first it cannot reach) or with `--workdir`.
fn grade_in_order(
    grader: &LineGrader<'_>,
    mut log: OutcomeLog,
    sink: &mut Sink,
    judge: Option<&Judge>,
) -> anyhow::Result<()> {
    // Judging is async; grading stays a plain loop around it.
    let runtime = match judge {
        Some(_) => Some(
            tokio::runtime::Builder::new_multi_thread()
                .enable_all()
                .build()
                .context("cannot start the async runtime")?,
        ),
        None => None,
    };
    let mut seeds = Seeds::default();
    let mut text = Vec::new();
    while let Some(chunk) = log.next_chunk(CHUNK_BYTES, Vec::new())? {
        for (number, bytes) in chunk.lines() {
            let read = match grader.read(bytes, number) {
                None => continue,
                Some(Err(message)) => {
                    sink.accept_chunk(vec![LineOutput::Skipped(message)], &[])?;
                    continue;
                }
                Some(Ok(read)) => read,
            };
            let task = read.task;
            let attempt = sink.attempts.resolve(read.slot, read.record.attempt);
            let judged = match (&runtime, &task.rubric) {
                (Some(runtime), Some(_)) => {
                    let seed = seeds.for_task(task)?;
                    let outcome = &read.record.outcome;
                    let crashed = outcome.error.is_some() || outcome.status == Some(Status::Error);
                    let sandbox = grader.sandbox(task, attempt);
                    let judging = judge_run(
                        judge,
                        task,
                        &seed,
                        outcome.answer.as_deref(),
                        crashed,
                        sandbox.as_deref(),
                    );
                    match runtime.block_on(judging) {
                        Ok(judged) => judged,
                        Err(error) if error.is_infrastructure() => {
                            // Stop here; everything graded so far is kept.
                            return Err(judge_failure_error(error, number, &grader.log_name));
                        }
                        Err(error) => Some(Judged::undecided(error.to_string())),
                    }
                }
                _ => unjudged(task),
            };
            text.clear();
            let graded = grader.finish(read, Some(attempt), judged, &mut text);
            sink.accept_chunk(vec![LineOutput::Graded(Box::new(graded))], &text)?;
        }
    }
    Ok(())
}

/// A judge that cannot be reached ends grading (exit 3), naming the line it stopped at.
fn judge_failure_error(error: proctor_judge::JudgeError, line: usize, log: &str) -> anyhow::Error {
    judge_failure_kind(error).context(format!(
        "{log}:{line}: judging stopped here; the results before this line were written"
    ))
}

/// The end state of one attempt, in the layouts `run --keep` writes:
/// `DIR/<label>/<task>/<attempt>/` (several agents), `DIR/<task>/<attempt>/`, else `DIR`.
fn workdir_for(dir: &Path, label: Option<&str>, task: &str, attempt: u64) -> PathBuf {
    let task = path_component(task);
    let attempt = attempt.to_string();
    let by_label = label.map(|l| dir.join(path_component(l)).join(&task).join(&attempt));
    let kept = dir.join(&task).join(&attempt);
    by_label
        .into_iter()
        .chain([kept])
        .find(|candidate| candidate.is_dir())
        .unwrap_or_else(|| dir.to_owned())
}
