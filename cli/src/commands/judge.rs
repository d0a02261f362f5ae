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
use crate::settle::{Place, Settling, settle};
use crate::usage_cost::{Pricer, load_pricer};
use anyhow::Context;
use futures_util::{StreamExt, TryStreamExt};
use proctor_core::grade::{Evidence, Kept, Workdir};
use proctor_core::result::ResultLine;
use proctor_core::task::Suite;
use proctor_core::task::Task;
use proctor_judge::{Judge, Seed};
use proctor_ledger::time::parse_time;
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
    // flight; then each line settled again with its verdict.
    let to_judge = lines_to_judge(&args, &suite, &lines, &mut problems)?;
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
    for (to_judge, judged) in to_judge.iter().zip(judgements) {
        let Some(judged) = judged else { continue };
        let workdir = match &to_judge.sandbox {
            Some(dir) => Workdir::Dir(dir, &commands),
            None => Workdir::Missing,
        };
        let line = &mut lines[to_judge.index];
        for problem in settle_again(line, to_judge.task, workdir, judged, &pricer) {
            problems.report_settled(problem, |m| eprintln!("{m}"));
        }
        rejudged += 1;
    }
    write_back(&args, &suite, &lines, rejudged, problems)
}

/// A line to judge again, and what judging it needs.
struct ToJudge<'a> {
    /// Its place among the lines read.
    index: usize,
    task: &'a Task,
    seed: Seed,
    /// Its kept sandbox, when it was found.
    sandbox: Option<PathBuf>,
}

/// The lines of tasks with a rubric, in order, with their seed files and kept sandboxes;
/// a line of a task not in the suite is left as it was, and one without its sandbox is
/// left ungraded, each said. Results of other task files are refused.
fn lines_to_judge<'a>(
    args: &JudgeCommandArgs,
    suite: &'a Suite,
    lines: &[ResultLine],
    problems: &mut Problems,
) -> anyhow::Result<Vec<ToJudge<'a>>> {
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
            crate::exit::bail_input!(
                "{}: results of other task files ({}, not {}); judge them with the task files they were run on",
                args.results.display(),
                line.task_digest,
                suite.digest
            );
        }
        let sandbox = kept_sandbox(&args.keep, line);
        if sandbox.is_none() {
            problems.report_settled(
                format!(
                    "task `{}` attempt {}: no kept sandbox under {}; left ungraded",
                    line.task,
                    line.attempt,
                    args.keep.display()
                ),
                |m| eprintln!("{m}"),
            );
        }
        to_judge.push(ToJudge {
            index,
            task,
            seed: seeds.for_task(task)?,
            sandbox,
        });
    }
    Ok(to_judge)
}

/// Every judgement went through: the file is replaced whole, and the lines go to every
/// output.
fn write_back(
    args: &JudgeCommandArgs,
    suite: &Suite,
    lines: &[ResultLine],
    rejudged: usize,
    problems: Problems,
) -> anyhow::Result<()> {
    let mut outputs = Outputs::new(args.summary.scorecard_options()).with_common()?;
    outputs.add(ResultsOut::replacing(&args.results)?);
    let page = PageOptions {
        suite,
        ledger: None,
        kept: Some((args.keep.as_path(), false)),
    };
    let results = ResultsFile::new(Some(&args.results), None)?;
    outputs.add_summary(args.format, &args.summary, results, page);
    for line in lines {
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
    to_judge: &[ToJudge<'_>],
    jobs: usize,
) -> anyhow::Result<Vec<Option<Judged>>> {
    let judgements = to_judge.iter().map(|to_judge| async move {
        let Some(dir) = &to_judge.sandbox else {
            return Ok(Some(Judged::undecided("kept sandbox not found")));
        };
        let outcome = lines[to_judge.index].outcome();
        judge_run(judge, to_judge.task, &to_judge.seed, &outcome, Some(dir)).await
    });
    // More lines under way than calls in flight, so that prompts are built while
    // earlier calls are answered; results come back in order.
    futures_util::stream::iter(judgements)
        .buffered(jobs.max(1) * 4)
        .map(|judged| judged.map_err(judge_failure))
        .try_collect()
        .await
}

/// Settles a result line again with the judge's new verdict (crate::settle): graded on
/// the evidence the run saw, with the checks it added (a forbidden call seen only in the
/// trace, or a served tool's limit gone over, fails the line again), and priced again at
/// the time the run started. Gives what could not be settled fully.
fn settle_again(
    line: &mut ResultLine,
    task: &Task,
    workdir: Workdir<'_>,
    judged: Judged,
    pricer: &Pricer,
) -> Vec<String> {
    let outcome = line.outcome();
    let evidence = Evidence::from_record(&line.evidence);
    let runner_checks = line
        .checks
        .iter()
        .filter(|check| is_runner_check(check))
        .cloned()
        .collect();
    let priced_at = match line.timings.started_at.as_deref() {
        None => Ok(None),
        Some(text) => parse_time("timings.started_at", &serde_json::Value::from(text)).map(Some),
    };
    let place = Place {
        line: None,
        task: &line.task,
        attempt: Some(line.attempt),
    };
    let mut settled = settle(
        Settling {
            task,
            place: &place,
            outcome: &outcome,
            evidence: &evidence,
            workdir,
            judged: Some(judged),
            runner_checks,
            priced_at,
        },
        pricer,
        Kept::OnRecord,
        None,
    );
    let problems = std::mem::take(&mut settled.problems);
    settled.apply_to(line);
    problems
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
