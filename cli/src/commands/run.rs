//! `proctor run`: run agents on every task, in fresh sandboxes, and grade each
//! attempt as it ends.

use crate::args::{CostArgs, SummaryArgs};
use crate::commands::html_page::{PageOptions, ResultsFile};
use crate::commands::ledger::LedgerRows;
use crate::exit::Failure;
use crate::judging::{JudgeArgs, NoJudgeArg, Seeds, check_globs};
use crate::otlp::Receiver;
use crate::results_file::{ResultWriter, for_each_result};
use crate::run::agent::{self, AgentSpec};
use crate::run::attempt::{
    AgentPhase, Finished, RunContext, ToolSettings, TraceSettings, finish_attempt, run_agent,
};
use crate::run::environment::PassEnv;
use crate::run::isolation::Isolation;
use crate::run::isolation::args::ContainmentArgs;
use crate::run::isolation::contained_command::ContainedCommands;
use crate::run::plan::{Shard, plan, selected};
use crate::run::progress::Progress;
use crate::run::signals;
use crate::run::variants::VariantChoice;
use crate::usage_cost::load_pricer;
use crate::{gate, render};
use anyhow::{Context, bail};
use clap::Args;
use proctor_core::summary::ScorecardBuilder;
use proctor_core::task::{Suite, TaskNetwork};
use proctor_judge::Seed;
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;
use tokio::task::JoinSet;

#[derive(Debug, Args)]
pub struct RunArgs {
    /// Task file or folder of task files.
    #[arg(long, value_name = "T")]
    pub tasks: PathBuf,
    /// The agent command (split like a shell), or NAME=CMD; repeat for several agents. NAME
    /// is letters, digits, _ - . @ + with no space after the `=`; a NAME in capitals only
    /// (MODEL=x cmd) reads as an environment variable and is refused: use `env MODEL=x cmd`.
    #[arg(long, value_name = "CMD", required_unless_present = "agents")]
    pub agent: Vec<String>,
    /// A YAML or JSON list of agents: name, command, optional env and cwd.
    #[arg(long, value_name = "FILE", conflicts_with = "agent")]
    pub agents: Option<PathBuf>,
    /// Attempts per task and agent.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..))]
    pub attempts: u64,
    /// Attempts run in parallel (default: the number of CPUs).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    pub jobs: Option<u64>,
    /// Seconds an attempt may take, for tasks without `timeout_s`.
    #[arg(long, default_value_t = 300.0, value_parser = parse_seconds)]
    pub timeout: f64,
    /// Run seed; each attempt's seed is a hash of it, the task and the attempt.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// The agent version stored on every result (a single unnamed --agent).
    #[arg(long, value_name = "NAME")]
    pub label: Option<String>,
    /// Keep each attempt's sandbox at DIR/<task>/<attempt>/ (DIR/<agent>/<task>/<attempt>/ with several agents).
    #[arg(long, value_name = "DIR")]
    pub keep: Option<PathBuf>,
    /// Append each result line to this file as soon as its attempt ends.
    #[arg(long, value_name = "R.jsonl")]
    pub out: Option<PathBuf>,
    /// Skip attempts already in --out and append the rest.
    #[arg(long, requires = "out")]
    pub resume: bool,
    /// Only tasks whose stable hash of the id falls in shard I of N (1-based).
    #[arg(long, value_name = "I/N")]
    pub shard: Option<Shard>,
    /// Only tasks whose id or a tag matches one of these globs.
    #[arg(long, value_name = "PATTERN")]
    pub only: Vec<String>,
    /// Which task variants run besides the base tasks: all (the default), none, or the
    /// variants' names (repeat or separate with commas).
    #[arg(long, value_name = "none|all|NAME", num_args = 1..)]
    pub variants: Vec<String>,
    /// Seconds an attempt that exported spans waits after its agent exits for late spans,
    /// unless its root span arrived.
    #[arg(long, default_value_t = 2.0, value_name = "S", value_parser = parse_seconds)]
    pub trace_grace: f64,
    /// Grade trajectory rules on the agent's OpenTelemetry trace, even when it reports a
    /// trajectory of its own.
    #[arg(long, value_enum, value_name = "SOURCE")]
    pub trajectory_from: Option<TrajectoryFrom>,
    #[command(flatten)]
    pub containment: ContainmentArgs,
    #[command(flatten)]
    pub cost: CostArgs,
    #[command(flatten)]
    pub judge: JudgeArgs,
    #[command(flatten)]
    pub no_judge: NoJudgeArg,
    /// Output format.
    #[arg(long, value_enum, default_value_t = crate::args::Format::Table)]
    pub format: crate::args::Format,
    #[command(flatten)]
    pub summary: SummaryArgs,
}

/// Where `--trajectory-from` takes the graded trajectory from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum TrajectoryFrom {
    Trace,
}

fn parse_seconds(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(s) if s.is_finite() && s > 0.0 => Ok(s),
        _ => Err(format!("{text:?} is not a positive number of seconds")),
    }
}

pub fn run(mut args: RunArgs) -> anyhow::Result<()> {
    absolute_paths(&mut args)?;
    // Everything that can be wrong with the input is found before any agent starts.
    let suite = crate::commands::load_tasks(&args.tasks)?;
    let mut agents = match &args.agents {
        Some(file) => agent::from_file(file)?,
        None => agent::from_flags(&args.agent, args.label.as_deref())?,
    };
    let pass_env = PassEnv::new(&args.containment.pass_env, "--pass-env")?;
    for agent in &mut agents {
        agent.pass_env = pass_env.union(&agent.pass_env)?;
    }
    let only = build_globs(&args.only)?;
    let variants = VariantChoice::parse(&args.variants, &suite)?;
    let tasks: Vec<usize> = suite
        .tasks
        .iter()
        .enumerate()
        .filter(|(_, t)| variants.chooses(t))
        .filter(|(_, t)| selected(t, &only))
        // A variant stays in its base task's shard, so each shard pairs them.
        .filter(|(_, t)| args.shard.is_none_or(|s| s.holds(t.base_id())))
        .map(|(i, _)| i)
        .collect();
    if tasks.is_empty() && args.shard.is_none() {
        bail!(
            "no task of {} matches --only {}",
            args.tasks.display(),
            args.only.join(" --only ")
        );
    }
    let in_scope = || tasks.iter().map(|&i| &suite.tasks[i]);
    check_globs(in_scope())?;
    let judge = args.judge.build(in_scope(), args.no_judge.no_judge)?;
    // A cassette folder a first recording run would make later is made now: a path that
    // does not exist when agents start cannot be hidden from them.
    if judge.is_some()
        && let Some(cassette) = &args.judge.cassette
    {
        std::fs::create_dir_all(cassette).map_err(|e| {
            anyhow::anyhow!(
                "{}: cannot create the cassette folder: {e}",
                cassette.display()
            )
        })?;
    }
    let mut seeds = HashMap::new();
    let mut seed_files = Seeds::default();
    if judge.is_some() {
        for &i in &tasks {
            let task = &suite.tasks[i];
            if task.rubric.is_some() {
                seeds.insert(i, seed_files.for_task(task)?);
            }
        }
    }
    let pricer = load_pricer(&args.cost.prices)?;
    let jobs = args
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get() as u64))
        as usize;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    let control = tempfile::Builder::new()
        .prefix("proctor-run-")
        .rand_bytes(12)
        .tempdir()
        .map_err(|e| crate::exit::infrastructure("temporary folder", e))?;
    if let Some(keep) = &args.keep {
        std::fs::create_dir_all(keep)
            .map_err(|e| anyhow::anyhow!("{}: cannot create --keep folder: {e}", keep.display()))?;
    }
    // The sandboxes under it are shown at their resolved paths, where it is hidden.
    if let Some(keep) = args.keep.as_mut()
        && let Ok(resolved) = keep.canonicalize()
    {
        *keep = resolved;
    }
    let hidden = hidden_from_agents(&args, &suite, control.path());
    let isolation = Isolation::set_up(&args.containment.options(), &agents, hidden)?;
    if !isolation.namespaces()
        && let Some(task) = in_scope().find(|t| t.network == Some(TaskNetwork::None))
    {
        bail!(
            "task `{}` ({}) asks for network: none, which needs namespaces, and agents run without them here (--isolate)",
            task.id,
            task.source.display()
        );
    }
    for note in &isolation.notes {
        eprintln!("proctor: {note}");
    }
    let judging = Judging {
        judge,
        seeds,
        pricer,
        control,
        isolation,
    };
    runtime.block_on(execute(args, suite, agents, tasks, jobs, judging))
}

/// Makes every path option absolute, once, before anything uses it: agents run in
/// other working directories (their sandboxes), and bubblewrap and landlock take
/// absolute paths only. `--tasks` stays as typed, for the titles that name it.
fn absolute_paths(args: &mut RunArgs) -> anyhow::Result<()> {
    let cwd = std::env::current_dir().context("cannot read the working directory")?;
    let paths = [
        &mut args.keep,
        &mut args.out,
        &mut args.agents,
        &mut args.cost.ledger,
        &mut args.judge.cassette,
        &mut args.judge.judge_template,
        &mut args.summary.html,
    ];
    for path in paths.into_iter().flatten() {
        *path = cwd.join(&*path);
    }
    for path in &mut args.containment.isolate_allow {
        *path = cwd.join(&*path);
    }
    Ok(())
}

/// What no agent may see (DESIGN 11): the task files and every file they name for
/// grading, the agents file (other agents' `env`), the judge's recordings and
/// template, results, the ledger, kept sandboxes, proctor's private folder of this
/// run, and earlier results and reports: every `*.jsonl` and `*.html` beside a task
/// file or in the folder of `--out` or `--html`.
fn hidden_from_agents(args: &RunArgs, suite: &Suite, control: &Path) -> Vec<PathBuf> {
    let mut hidden = vec![args.tasks.clone(), control.to_owned()];
    for task in &suite.tasks {
        hidden.extend(task.grading_files());
        // A command check's own files: the agent could copy the check's logic.
        hidden.extend(task.verify.iter().flat_map(|check| check.files()).cloned());
    }
    hidden.extend(args.agents.clone());
    hidden.extend(args.out.clone());
    hidden.extend(args.keep.clone());
    hidden.extend(args.cost.ledger.clone());
    hidden.extend(args.judge.cassette.clone());
    hidden.extend(args.judge.judge_template.clone());
    hidden.extend(args.summary.html.clone());
    let mut hidden: Vec<PathBuf> = hidden.iter().filter_map(|p| absolute(p)).collect();
    let mut folders: Vec<PathBuf> = suite
        .tasks
        .iter()
        .filter_map(|t| absolute(&t.source)?.parent().map(Path::to_owned))
        .chain(
            [&args.out, &args.summary.html]
                .into_iter()
                .flatten()
                .filter_map(|p| absolute(p)?.parent().map(Path::to_owned)),
        )
        .collect();
    folders.sort();
    folders.dedup();
    for folder in folders {
        hidden.extend(earlier_results(&folder));
    }
    hidden
}

/// The result files and HTML reports lying in `folder` (not below it).
fn earlier_results(folder: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(folder) else {
        return Vec::new();
    };
    entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.extension()
                .is_some_and(|x| x == "jsonl" || x == "html" || x == "htm")
        })
        .filter_map(|p| p.canonicalize().ok())
        .collect()
}

/// `path` made absolute with its links resolved, also for a file not written yet.
fn absolute(path: &Path) -> Option<PathBuf> {
    if let Ok(path) = path.canonicalize() {
        return Some(path);
    }
    let name = path.file_name()?;
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.canonicalize().ok()?,
        _ => std::env::current_dir().ok()?,
    };
    Some(parent.join(name))
}

fn build_globs(patterns: &[String]) -> anyhow::Result<globset::GlobSet> {
    let mut builder = globset::GlobSetBuilder::new();
    for pattern in patterns {
        builder.add(globset::Glob::new(pattern).with_context(|| format!("--only {pattern:?}"))?);
    }
    Ok(builder.build()?)
}

/// The judge and prices an attempt needs besides its agent.
struct Judging {
    judge: Option<proctor_judge::Judge>,
    seeds: HashMap<usize, Seed>,
    pricer: crate::usage_cost::Pricer,
    control: tempfile::TempDir,
    isolation: Isolation,
}

async fn execute(
    args: RunArgs,
    suite: Suite,
    agents: Vec<AgentSpec>,
    tasks: Vec<usize>,
    jobs: usize,
    judging: Judging,
) -> anyhow::Result<()> {
    let mut summary = ScorecardBuilder::new(args.summary.scorecard_options());
    let results = ResultsFile::new(args.out.as_deref(), args.summary.html.as_deref())?;
    // The file is locked before it is read for --resume and before any agent starts, so a
    // second run on the same --out is refused at once.
    let mut writer = match &results.path {
        Some(out) if args.resume => Some(ResultWriter::append(out)?),
        Some(out) => Some(ResultWriter::create(out)?),
        None => None,
    };
    let done = match (&args.out, args.resume) {
        (Some(out), true) => previous_results(out, &suite, &agents, &tasks, &mut summary)?,
        _ => HashSet::new(),
    };
    let planned = plan(&tasks, agents.len(), args.attempts, &done);
    let receiver = Receiver::start()
        .await
        .map_err(|e| crate::exit::infrastructure("the OTLP receiver on 127.0.0.1", e))?;
    let tools = serve_tools(&suite, &tasks).await?;
    let mut isolation = judging.isolation;
    // Agents whose network is none reach the receiver and the tool server through a
    // forwarder.
    isolation.forward(receiver.address);
    if let Some(server) = &tools.server {
        isolation.forward(server.address);
    }
    let isolation = Arc::new(isolation);
    // Script backends and command checks in flight across the run: two per agent slot.
    let commands = ContainedCommands::new(
        isolation.clone(),
        2 * jobs,
        judging.control.path().to_owned(),
    );
    let context = Arc::new(RunContext {
        keep_by_label: agents.len() > 1,
        suite,
        agents,
        default_timeout: Duration::from_secs_f64(args.timeout),
        seed: args.seed,
        keep: args.keep.clone(),
        control: judging.control,
        isolation,
        commands,
        judge: judging.judge,
        seeds: judging.seeds,
        pricer: judging.pricer,
        traces: TraceSettings {
            collector: receiver.collector.clone(),
            endpoint: receiver.endpoint(),
            grace: Duration::from_secs_f64(args.trace_grace),
            trajectory_from_trace: args.trajectory_from == Some(TrajectoryFrom::Trace),
        },
        tools,
    });
    let mut ledger = LedgerRows::open(&args.cost, &args.tasks, &context.pricer)?;
    let cancel = signals::cancellation().context("cannot watch for Ctrl-C")?;
    let mut progress = Progress::new(planned.len() as u64);
    let mut queue = planned.into_iter();
    // Agents hold one of `jobs` slots; judging and grading run apart, so that an attempt
    // waiting for its verdict frees its slot. Attempts waiting to be finished are bounded
    // too, so that sandboxes do not pile up when the judge is slower than the agents.
    let waiting_at_most = jobs.max(2 * args.judge.judge_jobs as usize);
    let mut agents_running = JoinSet::new();
    let mut finishing = JoinSet::new();
    let mut infrastructure_errors = 0usize;
    let mut interrupted = false;
    let mut judge_failure: Option<String> = None;
    let mut crashes = CrashTally::default();
    loop {
        while agents_running.len() < jobs
            && agents_running.len() + finishing.len() < jobs + waiting_at_most
            && !*cancel.borrow()
            && judge_failure.is_none()
        {
            let Some(next) = queue.next() else { break };
            agents_running.spawn(run_agent(context.clone(), next, cancel.clone()));
        }
        if agents_running.is_empty() && finishing.is_empty() {
            break;
        }
        tokio::select! {
            Some(joined) = agents_running.join_next() => {
                match attempt_ran(joined, &progress, &mut infrastructure_errors) {
                    Some(AgentPhase::Ended(ended)) => {
                        finishing.spawn(finish_attempt(context.clone(), *ended, cancel.clone()));
                    }
                    Some(AgentPhase::Cancelled) => interrupted = true,
                    None => {}
                }
            }
            Some(joined) = finishing.join_next() => {
                match attempt_ran(joined, &progress, &mut infrastructure_errors) {
                    Some(Finished::Result(line)) => {
                        if let Some(writer) = writer.as_mut() {
                            writer.write_now(&line)?;
                        }
                        if let Some(ledger) = ledger.as_mut() {
                            ledger.push(&line)?;
                        }
                        progress.finished(&line);
                        crashes.add(&line);
                        summary.add(&line, context.suite.tags_of(&line.task));
                    }
                    Some(Finished::Cancelled) => interrupted = true,
                    // Stop scheduling; attempts already running finish and are kept.
                    Some(Finished::JudgeFailed(message)) if judge_failure.is_none() => {
                        progress.note(&format!("proctor: judge failed, stopping: {message}"));
                        judge_failure = Some(message);
                    }
                    Some(Finished::JudgeFailed(_)) | None => {}
                }
            }
        }
    }
    progress.finish();
    if let Some(server) = &context.tools.server
        && server.unauthorized() > 0
    {
        eprintln!(
            "proctor: {} requests to the MCP server had no valid token and were refused (HTTP 401)",
            server.unauthorized()
        );
    }
    let unattributed = receiver.collector.unattributed();
    if unattributed > 0 {
        eprintln!(
            "proctor: {unattributed} spans or log records sent to the OTLP receiver matched no attempt and were not used"
        );
    }
    if let (refused @ 1.., Some(reason)) = receiver.collector.refused() {
        eprintln!(
            "proctor: {refused} requests to the OTLP receiver were refused (HTTP 413), the first: {reason}"
        );
    }
    if let Some(writer) = writer {
        writer.finish()?;
    }
    // Rows of every finished attempt, also when interrupted or the judge failed.
    if let Some(ledger) = ledger {
        ledger.commit()?;
    }
    if interrupted || *cancel.borrow() {
        let kept = match &args.out {
            Some(out) => format!(
                "finished attempts are in {}; run the same command with --resume to complete it",
                out.display()
            ),
            None => "no --out was given, so nothing was kept".to_owned(),
        };
        return Err(Failure::Interrupted(format!(
            "interrupted; running agents were stopped; {kept}"
        ))
        .into());
    }
    let summary = summary
        .finish(args.summary.k)
        .context("cannot summarise the results")?;
    let title = format!("run {}", args.tasks.display());
    render::print_scorecards(args.format, &title, &summary)?;
    results.write_page(
        title,
        &summary,
        PageOptions {
            page: args.summary.html.as_deref(),
            k: args.summary.k,
            suite: &context.suite,
            ledger: args.cost.ledger.as_deref(),
            kept: args.keep.as_deref().map(|dir| (dir, false)),
        },
    )?;
    if let Some(message) = judge_failure {
        let kept = match &args.out {
            Some(out) => format!(
                "finished results are in {}; --resume completes the run",
                out.display()
            ),
            None => "no --out was given".to_owned(),
        };
        return Err(Failure::Infrastructure(format!("judge: {message}; {kept}")).into());
    }
    if infrastructure_errors > 0 {
        return Err(Failure::Infrastructure(format!(
            "{infrastructure_errors} attempts could not run (see above); every other result was written"
        ))
        .into());
    }
    crashes.check()?;
    gate::check(&args.summary, &summary)
}

/// The MCP server and each in-scope task's compiled tools, when some task has `tools:`.
async fn serve_tools(suite: &Suite, tasks: &[usize]) -> anyhow::Result<ToolSettings> {
    let mut by_task = HashMap::new();
    for &i in tasks {
        let tools = crate::mcp::attempt::TaskTools::of(&suite.tasks[i])
            .map_err(|e| anyhow::anyhow!("{}: {e}", suite.tasks[i].source.display()))?;
        if let Some(tools) = tools {
            by_task.insert(i, tools);
        }
    }
    if by_task.is_empty() {
        return Ok(ToolSettings::default());
    }
    let server = crate::mcp::ToolServer::start()
        .await
        .map_err(|e| crate::exit::infrastructure("the MCP server on 127.0.0.1", e))?;
    Ok(ToolSettings {
        server: Some(server),
        by_task,
    })
}

/// Per agent, in the order first seen: attempts run, attempts that ended in `error:`, and
/// the first such attempt's detail. An agent all of whose attempts errored evaluated
/// nothing, which is not a result but a broken set-up (DESIGN 10: exit 3).
#[derive(Debug, Default)]
struct CrashTally(Vec<(String, u64, u64, Option<String>)>);

impl CrashTally {
    fn add(&mut self, line: &proctor_core::result::ResultLine) {
        let label = line.label.as_deref().unwrap_or_default();
        let at = match self.0.iter().position(|(name, ..)| name == label) {
            Some(at) => at,
            None => {
                self.0.push((label.to_owned(), 0, 0, None));
                self.0.len() - 1
            }
        };
        let entry = &mut self.0[at];
        entry.1 += 1;
        if line
            .reasons
            .first()
            .is_some_and(|r| r.starts_with("error: "))
        {
            entry.2 += 1;
            if entry.3.is_none() {
                let reason = &line.reasons[0];
                entry.3 = Some(match crate::details::crash_detail(line) {
                    Some(detail) => format!("{reason}: {detail}"),
                    None => reason.clone(),
                });
            }
        }
    }

    fn check(self) -> anyhow::Result<()> {
        let broken: Vec<String> = self
            .0
            .into_iter()
            .filter(|(_, attempts, errored, _)| *attempts > 0 && attempts == errored)
            .map(|(name, _, _, first)| {
                format!(
                    "agent `{name}`: every attempt failed to start or crashed; the first: {}",
                    first.unwrap_or_default()
                )
            })
            .collect();
        if broken.is_empty() {
            return Ok(());
        }
        Err(Failure::Infrastructure(broken.join("\n")).into())
    }
}

/// What a phase of an attempt gave; `None`, counted and reported, when it could not run
/// (an infrastructure failure) or failed inside proctor.
fn attempt_ran<T>(
    joined: Result<anyhow::Result<T>, tokio::task::JoinError>,
    progress: &Progress,
    infrastructure_errors: &mut usize,
) -> Option<T> {
    let message = match joined {
        Ok(Ok(value)) => return Some(value),
        Ok(Err(error)) => format!("proctor: an attempt could not run: {error:#}"),
        Err(error) => format!("proctor: an attempt failed inside proctor: {error}"),
    };
    *infrastructure_errors += 1;
    progress.note(&message);
    None
}

/// Reads `--out` for `--resume`: the attempts already done (fed into the summary),
/// refusing results written for other task files.
fn previous_results(
    out: &std::path::Path,
    suite: &Suite,
    agents: &[AgentSpec],
    tasks: &[usize],
    summary: &mut ScorecardBuilder,
) -> anyhow::Result<HashSet<(usize, usize, u64)>> {
    let agent_index: HashMap<&str, usize> = agents
        .iter()
        .enumerate()
        .map(|(i, a)| (a.name.as_str(), i))
        .collect();
    let task_index: HashMap<&str, usize> = tasks
        .iter()
        .map(|&i| (suite.tasks[i].id.as_str(), i))
        .collect();
    let mut done = HashSet::new();
    let mut bad = 0usize;
    for_each_result(
        &[out.to_owned()],
        |_, line| {
            if !line.task_digest.is_empty() && line.task_digest != suite.digest {
                bail!(
                    "{}: written for other task files ({}, not {}); use another --out or drop --resume",
                    out.display(),
                    line.task_digest,
                    suite.digest
                );
            }
            let agent = agent_index.get(line.label.as_deref().unwrap_or(""));
            let task = task_index.get(line.task.as_str());
            if let (Some(&agent), Some(&task)) = (agent, task)
                && done.insert((agent, task, line.attempt))
            {
                summary.add(&line, suite.tags_of(&line.task));
            }
            Ok(())
        },
        |problem| {
            // A line cut short by a crash is simply run again.
            bad += 1;
            eprintln!(
                "proctor: {}:{}: unreadable result line will be run again: {}",
                problem.path.display(),
                problem.line,
                problem.message
            );
        },
    )?;
    Ok(done)
}
