//! `proctor grade`: grade recorded outcomes offline, streaming.

use crate::args::GradeArgs;
use crate::commands::ledger::LedgerRows;
use crate::outcome_log::{Item, OutcomeLog};
use crate::problems::Problems;
use crate::results_file::ResultWriter;
use crate::{gate, render, usage_cost};
use anyhow::Context;
use proctor_core::grade::{RubricVerdict, Workdir, grade};
use proctor_core::result::ResultLine;
use proctor_core::summary::SummaryBuilder;
use proctor_core::task::Suite;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

pub fn run(args: GradeArgs) -> anyhow::Result<()> {
    let suite = Suite::load(&args.tasks)?;
    if !args.no_judge
        && let Some(task) = suite.tasks.iter().find(|t| t.rubric.is_some())
    {
        anyhow::bail!(
            "task `{}` ({}) has a rubric, and no judge is configured; pass --no-judge to report rubrics as not judged (those runs are then ungraded)",
            task.id,
            task.source.display()
        );
    }
    let pricer = usage_cost::load_pricer(&args.prices)?;
    let mut ledger = match &args.ledger {
        Some(path) => Some(LedgerRows::new(path, &args, &pricer)?),
        None => None,
    };
    let mut log = OutcomeLog::open(&args.outcomes, args.task_key.clone())?;
    let mut writer = args.out.as_deref().map(ResultWriter::create).transpose()?;
    let mut summary = SummaryBuilder::new();
    let mut problems = Problems::default();
    let mut next_attempt: HashMap<String, u64> = HashMap::new();
    let not_judged = RubricVerdict::Error("not judged (--no-judge)".to_owned());
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
            .map(|dir| workdir_for(dir, &task.id, attempt));
        let workdir = match &sandbox {
            Some(dir) => Workdir::Dir(dir),
            None => Workdir::Missing,
        };
        let verdict = task.rubric.as_ref().map(|_| &not_judged);
        let graded = grade(task, &record.outcome, workdir, verdict);
        let time = match &record.time {
            Ok(time) => Ok(*time),
            Err(e) => {
                problems.report(format!("{log_name}:{}: usage not priced: {e}", record.line));
                Err(())
            }
        };
        let counted = match time {
            Ok(time) => pricer.cost(&record.outcome.usage, &[], time),
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
    let summary = summary
        .finish(args.summary.k)
        .context("cannot compute pass@k")?;
    let title = format!("grade {}", args.outcomes.display());
    render::print_summary(args.summary.format, &title, &summary)?;
    problems.into_result("outcome lines")?;
    gate::check(&args.summary, &summary)
}

/// The end state of one attempt: `DIR/<task>/<attempt>/` (the `--keep` layout) when
/// it exists, else `DIR` itself.
fn workdir_for(dir: &Path, task: &str, attempt: u64) -> PathBuf {
    let kept = dir.join(task).join(attempt.to_string());
    if kept.is_dir() { kept } else { dir.to_owned() }
}
