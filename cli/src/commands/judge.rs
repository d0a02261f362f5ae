//! `proctor judge`: judge kept sandboxes again without running the agents, and rewrite
//! the results. Useful after a rubric, judge model or prompt template changes.
//!
//! Each result of a task with a rubric is judged against its sandbox under `--keep DIR`
//! (`DIR/<task>/<attempt>/`, or `DIR/<label>/<task>/<attempt>/` as `run` keeps them for
//! several agents) and graded again, end-state checks included, on the other accounts of the
//! calls the line kept (`evidence`) and with the checks the run added. Other lines are copied
//! unchanged. The file is replaced only when every judgement went through: a judge that
//! cannot be reached leaves the results as they were (exit 3).

use crate::args::JudgeCommandArgs;
use crate::judging::{Judged, Seeds, check_globs, judge_failure, judge_run};
use crate::outputs::page::{PageOptions, ResultsFile};
use crate::outputs::results::ResultsOut;
use crate::outputs::{Attempt, Ending, Outputs};
use crate::problems::Problems;
use crate::results_file::{for_each_result, hold_for_replacing};
use crate::run::is_runner_check;
use crate::run::isolation::contained_command::ContainedCommands;
use crate::run::sandbox::path_component;
use crate::usage_cost::load_pricer;
use anyhow::Context;
use futures_util::{StreamExt, TryStreamExt};
use proctor_core::grade::{Evidence, Workdir, grade_on_evidence};
use proctor_core::result::ResultLine;
use proctor_core::task::Suite;
use proctor_core::task::Task;
use proctor_judge::{Judge, Seed};
use std::path::{Path, PathBuf};

pub fn run(args: JudgeCommandArgs) -> anyhow::Result<()> {
    let suite = Suite::load(&args.tasks)?;
    check_globs(suite.tasks.iter())?;
    let judge = args.judge.build(suite.tasks.iter(), false)?;
    let pricer = load_pricer(&args.prices)?;
    // Held until the file is replaced.
    let _held = hold_for_replacing(&args.results)?;
    let mut lines = Vec::new();
    let mut problems = Problems::default();
    for_each_result(
        std::slice::from_ref(&args.results),
        |_, line| {
            lines.push(line);
            Ok(())
        },
        |bad| problems.report(bad.to_string()),
    )?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    // First the lines to judge, in order; then their judgements, `--judge-jobs` calls in
    // flight; then each line graded again with its verdict.
    let mut seeds = Seeds::default();
    let mut to_judge = Vec::new();
    for (index, line) in lines.iter().enumerate() {
        let Some(task) = suite.get(&line.task) else {
            problems.report(format!(
                "{}: task `{}` attempt {} is not in {}; left as it was",
                args.results.display(),
                line.task,
                line.attempt,
                args.tasks.display()
            ));
            continue;
        };
        if task.rubric.is_none() {
            continue;
        }
        if !line.task_digest.is_empty() && line.task_digest != suite.digest {
            anyhow::bail!(
                "{}: results of other task files ({}, not {}); judge them with the task files they were run on",
                args.results.display(),
                line.task_digest,
                suite.digest
            );
        }
        let seed = seeds.for_task(task)?;
        let sandbox = kept_sandbox(&args.keep, line);
        if sandbox.is_none() {
            problems.report(format!(
                "task `{}` attempt {}: no kept sandbox under {}; left ungraded",
                line.task,
                line.attempt,
                args.keep.display()
            ));
        }
        to_judge.push((index, task, seed, sandbox));
    }
    let judgements = runtime.block_on(judge_all(
        judge.as_ref(),
        &lines,
        &to_judge,
        args.judge.judge_jobs as usize,
    ))?;
    // Command checks run contained, the task files and results out of their sight.
    let hidden = [&args.tasks, &args.results]
        .into_iter()
        .filter_map(|p| p.canonicalize().ok())
        .collect();
    let commands = ContainedCommands::offline(hidden, 1)?;
    let mut rejudged = 0usize;
    for ((index, task, _, sandbox), judged) in to_judge.iter().zip(judgements) {
        let Some(judged) = judged else { continue };
        let line = &mut lines[*index];
        let outcome = line.outcome();
        let workdir = match sandbox {
            Some(dir) => Workdir::Dir(dir, &commands),
            None => Workdir::Missing,
        };
        // On the evidence the run saw, with the checks it added: a forbidden call seen only
        // in the trace, or a served tool's limit gone over, fails the line again.
        let evidence = Evidence::from_record(&line.evidence);
        let mut regraded =
            grade_on_evidence(task, &outcome, &evidence, workdir, Some(&judged.verdict));
        let runner_checks: Vec<_> = line
            .checks
            .iter()
            .filter(|check| is_runner_check(check))
            .cloned()
            .collect();
        regraded.add_runner_checks(runner_checks, &outcome, task.step_cap);
        line.set_grade(regraded);
        line.judge = judged.record;
        crate::details::add_runner_details(line, None);
        let at = line
            .timings
            .started_at
            .as_deref()
            .and_then(|t| t.parse::<jiff::Timestamp>().ok());
        if let Ok(cost) = pricer.cost(&line.usage, &judged.usage, at) {
            line.cost = cost;
        }
        rejudged += 1;
    }
    // Every judgement went through: replace the file whole.
    let mut outputs = Outputs::new(args.summary.scorecard_options());
    outputs.add(ResultsOut::replacing(&args.results)?);
    let page = PageOptions {
        suite: &suite,
        ledger: None,
        kept: Some((args.keep.as_path(), false)),
    };
    let results = ResultsFile::new(Some(&args.results), None)?;
    outputs.add_summary(args.format, &args.summary, results, page);
    for line in &lines {
        outputs.attempt(&Attempt::of_line(line, suite.tags_of(&line.task)))?;
    }
    outputs.close()?;
    eprintln!(
        "proctor: judged {rejudged} results again and rewrote {}",
        args.results.display()
    );
    outputs.conclude(Ending {
        title: format!("judge {}", args.results.display()),
        k: args.summary.k,
        stopped: Ok(()),
        failed: problems.into_result("results"),
    })
}

/// The judgement of each line to judge, in the same order, with `jobs` calls in flight;
/// the first judge that cannot be reached fails the whole (the file is then left as it
/// was). A line without its sandbox is not sent to the judge: it is left ungraded.
async fn judge_all(
    judge: Option<&Judge>,
    lines: &[ResultLine],
    to_judge: &[(usize, &Task, Seed, Option<PathBuf>)],
    jobs: usize,
) -> anyhow::Result<Vec<Option<Judged>>> {
    let judgements = to_judge
        .iter()
        .map(|(index, task, seed, sandbox)| async move {
            let Some(dir) = sandbox else {
                return Ok(Some(Judged::undecided("kept sandbox not found")));
            };
            let line = &lines[*index];
            let outcome = line.outcome();
            let crashed = outcome.error.is_some();
            judge_run(
                judge,
                task,
                seed,
                outcome.answer.as_deref(),
                crashed,
                Some(dir),
            )
            .await
        });
    // More lines under way than calls in flight, so that prompts are built while
    // earlier calls are answered; results come back in order.
    futures_util::stream::iter(judgements)
        .buffered(jobs.max(1) * 4)
        .map(|judged| judged.map_err(judge_failure))
        .try_collect()
        .await
}

/// Where `run --keep` put this attempt's sandbox, if it is there.
pub(crate) fn kept_sandbox(keep: &Path, line: &ResultLine) -> Option<PathBuf> {
    let task = path_component(&line.task);
    let attempt = line.attempt.to_string();
    let mut candidates = Vec::new();
    if let Some(label) = &line.label {
        candidates.push(keep.join(path_component(label)).join(&task).join(&attempt));
    }
    candidates.push(keep.join(&task).join(&attempt));
    candidates.into_iter().find(|dir| dir.is_dir())
}
