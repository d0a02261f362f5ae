//! `proctor grade`: grade recorded outcomes offline, streaming.

use crate::args::GradeArgs;
use crate::commands::ledger::LedgerRows;
use crate::judging::{Judged, Seeds, check_globs, judge_failure as judge_failure_kind, judge_run};
use crate::outcome_log::{Item, OutcomeLog};
use crate::problems::Problems;
use crate::results_file::ResultWriter;
use crate::run::sandbox::path_component;
use crate::{gate, render, usage_cost};
use anyhow::Context;
use proctor_core::grade::{Workdir, grade};
use proctor_core::outcome::Status;
use proctor_core::result::ResultLine;
use proctor_core::summary::SummaryBuilder;
use proctor_core::task::Suite;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

pub fn run(args: GradeArgs) -> anyhow::Result<()> {
    let suite = Suite::load(&args.tasks)?;
    check_globs(suite.tasks.iter())?;
    let judge = args.judge.build(suite.tasks.iter())?;
    // Judging is async; grading stays a plain streaming loop around it.
    let runtime = match &judge {
        Some(_) => Some(
            tokio::runtime::Builder::new_multi_thread()
                .enable_all()
                .build()
                .context("cannot start the async runtime")?,
        ),
        None => None,
    };
    let mut seeds = Seeds::default();
    let pricer = usage_cost::load_pricer(&args.cost.prices)?;
    let mut ledger = LedgerRows::open(&args.cost, &args.tasks, &pricer)?;
    let mut log = OutcomeLog::open(&args.outcomes, args.task_key.clone())?;
    let mut writer = args.out.as_deref().map(ResultWriter::create).transpose()?;
    let mut summary = SummaryBuilder::new();
    let mut problems = Problems::default();
    let mut next_attempt: HashMap<String, u64> = HashMap::new();
    let mut judge_failure: Option<anyhow::Error> = None;
    let log_name = log.path().display().to_string();

    while let Some(item) = log.next_item()? {
        let record = match item {
            Item::Record(record) => record,
            Item::Bad(bad) => {
                problems.report(format!("{log_name}:{}: {}", bad.line, bad.message));
                continue;
            }
        };
        let Some(task) = suite.get(&record.task) else {
            problems.report(format!(
                "{log_name}:{}: task `{}` is not in the suite {}",
                record.line,
                record.task,
                args.tasks.display()
            ));
            continue;
        };
        let counter = next_attempt.entry(record.task.clone()).or_insert(0);
        let attempt = record.attempt.unwrap_or(*counter);
        *counter = (*counter).max(attempt + 1);

        let sandbox = args
            .workdir
            .as_deref()
            .map(|dir| workdir_for(dir, args.label.as_deref(), &task.id, attempt));
        let workdir = match &sandbox {
            Some(dir) => Workdir::Dir(dir),
            None => Workdir::Missing,
        };
        let judged = match (&runtime, &task.rubric) {
            (Some(runtime), Some(_)) => {
                let seed = seeds.for_task(task)?;
                let outcome = &record.outcome;
                let crashed = outcome.error.is_some() || outcome.status == Some(Status::Error);
                let judging = judge_run(
                    judge.as_ref(),
                    task,
                    &seed,
                    outcome.answer.as_deref(),
                    crashed,
                    sandbox.as_deref(),
                );
                match runtime.block_on(judging) {
                    Ok(judged) => judged,
                    Err(error) if error.is_infrastructure() => {
                        // Stop here; everything graded so far is kept below.
                        judge_failure = Some(judge_failure_error(error, record.line, &log_name));
                        break;
                    }
                    Err(error) => Some(Judged::undecided(error.to_string())),
                }
            }
            (None, Some(_)) => Some(Judged::not_judged()),
            _ => None,
        };
        let verdict = judged.as_ref().map(|j| j.verdict.clone());
        let graded = grade(task, &record.outcome, workdir, verdict.as_ref());
        let judge_usage = judged.as_ref().map(|j| j.usage.clone()).unwrap_or_default();
        let time = match &record.time {
            Ok(time) => Ok(*time),
            Err(e) => {
                problems.report(format!("{log_name}:{}: usage not priced: {e}", record.line));
                Err(())
            }
        };
        let counted = match time {
            Ok(time) => pricer.cost(&record.outcome.usage, &judge_usage, time),
            Err(()) => pricer.unpriced_cost(&record.outcome.usage),
        };
        let cost = match counted {
            Ok(cost) => cost,
            Err(e) => {
                problems.report(format!(
                    "{log_name}:{}: usage not counted: {e}",
                    record.line
                ));
                Default::default()
            }
        };
        let mut line = ResultLine::new(
            &task.id,
            attempt,
            args.label.clone(),
            record.outcome,
            graded,
        );
        line.cost = cost;
        line.judge = judged.and_then(|j| j.record);
        line.task_digest = suite.digest.clone();
        if let Some(writer) = writer.as_mut() {
            writer.write(&line)?;
        }
        if let Some(ledger) = ledger.as_mut() {
            ledger.push(&line)?;
        }
        summary.add(&line);
    }
    if let Some(writer) = writer {
        writer.finish()?;
    }
    if let Some(ledger) = ledger {
        ledger.commit()?;
    }
    if let Some(error) = judge_failure {
        return Err(error);
    }
    let summary = summary
        .finish(args.summary.k)
        .context("cannot compute pass@k")?;
    let title = format!("grade {}", args.outcomes.display());
    render::print_summary(args.summary.format, &title, &summary)?;
    problems.into_result("outcome lines")?;
    gate::check(&args.summary, &summary)
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
