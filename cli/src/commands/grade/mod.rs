//! `proctor grade`: grade recorded outcomes offline, streaming.

mod in_order;
mod line;
mod parallel;
mod sink;
mod traces;

use crate::args::GradeArgs;
use crate::exit::InputContext;
use crate::judging::check_globs;
use crate::ledger_file::LedgerRows;
use crate::outcome_log::{LineKeys, OutcomeLog};
use crate::outputs::ledger::LedgerOut;
use crate::outputs::page::{PageOptions, ResultsFile};
use crate::outputs::results::ResultsOut;
use crate::outputs::{Ending, Outputs};
use crate::results_file::ResultWriter;
use crate::run::isolation::contained_command::ContainedCommands;
use crate::run::sandbox::path_component;
use crate::usage_cost;
use in_order::grade_in_order;
use line::LineGrader;
use parallel::grade_in_parallel;
use proctor_core::task::Suite;
use sink::Sink;
use std::path::{Path, PathBuf};

pub fn run(args: GradeArgs) -> anyhow::Result<()> {
    let suite = crate::commands::load_tasks(&args.tasks)?;
    check_globs(suite.tasks.iter())?;
    let judge = args
        .judge
        .build(suite.tasks.iter(), no_judge(&args, &suite))?;
    let pricer = usage_cost::load_pricer(&args.cost.prices)?;
    let ledger = LedgerRows::open(&args.cost, &args.tasks, &pricer)?;
    let results = ResultsFile::new(args.out.as_deref(), args.summary.html.as_deref())?;
    let commands = match &args.workdir {
        Some(_) => Some(command_checks(&args, &suite)?),
        None => None,
    };
    let workdir = args
        .workdir
        .as_deref()
        .zip(commands.as_ref())
        .map(|(dir, commands)| line::OfflineWorkdir {
            dir,
            kept: holds_kept_sandboxes(dir, args.label.as_deref(), &suite),
            state_dir: args.state_dir.as_deref(),
            commands,
        });
    if let Some(path) = &args.traces {
        let mut sink = grading_sink(&args, &suite, results.path.as_deref(), ledger)?;
        let grader = LineGrader {
            suite: &suite,
            pricer: &pricer,
            keys: LineKeys::new(None),
            label: args.label.as_deref(),
            workdir,
            log_name: path.display().to_string(),
            tasks_name: args.tasks.display().to_string(),
            reads: sink.reads(),
        };
        let keys = traces::TraceKeys {
            task_attr: &args.task_attr,
            task: args.task.as_deref(),
            judge: judge.as_ref().map(traces::TraceJudge::new).transpose()?,
        };
        let graded = traces::grade_traces(&grader, path, &keys, &mut sink);
        let title = format!("grade {}", path.display());
        return finish(&args, &suite, results, sink, graded, title, "traces");
    }
    let outcomes = args
        .outcomes
        .as_deref()
        .input_context("give --outcomes LOG or --traces FILE")?;
    let log = OutcomeLog::open(outcomes)?;
    let mut sink = grading_sink(&args, &suite, results.path.as_deref(), ledger)?;
    let grader = LineGrader {
        suite: &suite,
        pricer: &pricer,
        keys: LineKeys::new(args.task_key.as_deref()),
        label: args.label.as_deref(),
        workdir,
        log_name: log.path().display().to_string(),
        tasks_name: args.tasks.display().to_string(),
        reads: sink.reads(),
    };
    // A judge or an end state on disk needs each line's attempt before grading it, which
    // only reading in order gives (judge calls then run concurrently, results written in
    // the log's order); everything else is graded on every CPU.
    let graded = match (&judge, &args.workdir) {
        (None, None) => {
            let jobs = args.jobs.map_or_else(
                || std::thread::available_parallelism().map_or(1, |n| n.get()),
                |jobs| jobs as usize,
            );
            grade_in_parallel(&grader, log, &mut sink, jobs)
        }
        _ => grade_in_order(
            &grader,
            log,
            &mut sink,
            judge.as_ref(),
            args.judge.judge_jobs as usize,
        ),
    };
    let title = format!("grade {}", outcomes.display());
    finish(&args, &suite, results, sink, graded, title, "outcome lines")
}

/// Whether to grade without a judge. Recorded outcomes are graded even when no judge is
/// configured: the runs of rubric tasks are then ungraded, marked as `run --no-judge`
/// marks them, and a note says how to judge them (nothing ran that a refusal could save).
fn no_judge(args: &GradeArgs, suite: &Suite) -> bool {
    if args.no_judge.no_judge || args.judge.judge_model.is_some() {
        return args.no_judge.no_judge;
    }
    let rubric: Vec<&str> = suite
        .tasks
        .iter()
        .filter(|t| t.rubric.is_some())
        .map(|t| t.id.as_str())
        .collect();
    if let Some(first) = rubric.first() {
        let more = match rubric.len() {
            1 => String::new(),
            n => format!(" and {} more", n - 1),
        };
        eprintln!(
            "proctor: no judge is configured, so the runs of task `{first}`{more} (with a rubric) are ungraded, as with --no-judge; pass --judge-model M (with --cassette DIR for recorded answers) to judge them"
        );
    }
    true
}

/// Where graded lines go: the results file and the ledger, when asked for.
fn grading_sink(
    args: &GradeArgs,
    suite: &Suite,
    out: Option<&Path>,
    ledger: Option<LedgerRows>,
) -> anyhow::Result<Sink> {
    let mut outputs = Outputs::new(args.summary.scorecard_options()).with_common()?;
    outputs.add(ResultsOut::new(
        out.map(ResultWriter::create).transpose()?,
        false,
    ));
    outputs.add(LedgerOut::new(ledger));
    let tags = match args.summary.by {
        Some(_) => suite.tasks.iter().map(|t| t.tags.clone()).collect(),
        None => Vec::new(),
    };
    Ok(Sink::new(outputs, tags, args.label.as_deref()))
}

/// Writes what was graded, prints the summary, then reports skipped input and the gates.
fn finish(
    args: &GradeArgs,
    suite: &Suite,
    results: ResultsFile,
    sink: Sink,
    graded: anyhow::Result<()>,
    title: String,
    what: &str,
) -> anyhow::Result<()> {
    // Whatever stopped grading, everything graded so far is kept.
    let (mut outputs, problems) = sink.finish();
    let page = PageOptions {
        suite,
        ledger: args.cost.ledger.as_deref(),
        kept: args.workdir.as_deref().map(|dir| (dir, true)),
    };
    outputs.add_summary(args.format, &args.summary, results, page);
    outputs.conclude(Ending {
        title,
        k: args.summary.k,
        stopped: graded,
        failed: problems.into_result(what),
    })
}

/// What runs the command checks against `--workdir`: contained as `proctor run` contains
/// agents (docs/agent-protocol.md), the task files and the logs out of their sight. Says what
/// protection is missing, when some task has a command check.
fn command_checks(args: &GradeArgs, suite: &Suite) -> anyhow::Result<ContainedCommands> {
    let mut hidden = vec![args.tasks.clone()];
    for task in &suite.tasks {
        hidden.push(task.source.clone());
        hidden.extend(task.files_dir.clone());
        hidden.extend(task.state_dir.clone());
        for tool in &task.tools {
            hidden.extend(tool.script_files().iter().cloned());
        }
        hidden.extend(task.verify.iter().flat_map(|c| c.files()).cloned());
    }
    hidden.extend(args.outcomes.clone());
    hidden.extend(args.traces.clone());
    hidden.extend(args.out.clone());
    let hidden = hidden
        .into_iter()
        .filter_map(|p| p.canonicalize().ok())
        .collect();
    let at_once = std::thread::available_parallelism().map_or(1, |n| n.get());
    let commands = ContainedCommands::offline(hidden, at_once)?;
    let has_command = suite
        .tasks
        .iter()
        .any(|t| t.verify.iter().any(|c| c.kind() == "command"));
    if has_command {
        for note in commands.notes() {
            eprintln!("proctor: command checks: {note}");
        }
    }
    Ok(commands)
}

/// The end state of one attempt, in the layouts `run --keep` writes:
/// `DIR/<label>/<task>/<attempt>/` (several agents), `DIR/<task>/<attempt>/`, else DIR
/// itself when it holds no kept sandboxes (`kept` false: one end state for every line).
/// `Err` names the kept sandbox that is not there: checking DIR in its place would grade
/// the attempt on files that are not its own.
fn workdir_for(
    dir: &Path,
    label: Option<&str>,
    task: &str,
    attempt: u64,
    kept: bool,
) -> Result<PathBuf, PathBuf> {
    let task = path_component(task);
    let attempt = attempt.to_string();
    let by_label = label
        .map(|l| dir.join(path_component(l)))
        .filter(|folder| folder.is_dir())
        .map(|folder| folder.join(&task).join(&attempt));
    let kept_here = dir.join(&task).join(&attempt);
    if let Some(found) = by_label
        .iter()
        .chain([&kept_here])
        .find(|candidate| candidate.is_dir())
    {
        return Ok(found.clone());
    }
    if kept {
        Err(by_label.unwrap_or(kept_here))
    } else {
        Ok(dir.to_owned())
    }
}

/// Whether DIR holds kept sandboxes (a folder for the label, or for a task of the suite)
/// rather than one end state.
fn holds_kept_sandboxes(dir: &Path, label: Option<&str>, suite: &Suite) -> bool {
    label.is_some_and(|l| dir.join(path_component(l)).is_dir())
        || suite
            .tasks
            .iter()
            .any(|task| dir.join(path_component(&task.id)).is_dir())
}
