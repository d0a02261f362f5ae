//! `proctor run`: run agents on every task, in fresh sandboxes, and grade each
//! attempt as it ends.

use crate::args::{RunArgs, TrajectoryFrom};
use crate::exit::Failure;
use crate::exit::InputContext;
use crate::judging::{Seeds, check_globs};
use crate::ledger_file::LedgerRows;
use crate::mcp::user::llm::{UserModel, UserModelConfig};
use crate::otlp::Receiver;
use crate::outputs::crashes::CrashTally;
use crate::outputs::ledger::LedgerOut;
use crate::outputs::page::{PageOptions, ResultsFile};
use crate::outputs::progress::{Notes, Progress};
use crate::outputs::results::ResultsOut;
use crate::outputs::{Attempt, Ending, Outputs};
use crate::problems::Problems;
use crate::results_file::{ResultWriter, for_each_result};
use crate::run::agent::{self, AgentSpec};
use crate::run::attempt::{
    AgentPhase, Finished, RunContext, ToolSettings, TraceSettings, finish_attempt, run_agent,
};
use crate::run::environment::PassEnv;
use crate::run::isolation::Isolation;
use crate::run::isolation::contained_command::ContainedCommands;
use crate::run::keep_folder::KeepFolder;
use crate::run::plan::{Planned, Shard, deal, plan, selected};
use crate::run::scheduler::Sharding;
use crate::run::signals;
use crate::run::variants::VariantChoice;
use crate::run_record::RunRecord;
use crate::usage_cost::load_pricer;
use anyhow::Context;
use proctor_core::summary::ScorecardBuilder;
use proctor_core::task::{Suite, TaskNetwork};
use proctor_judge::Seed;
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;
use tokio::task::JoinSet;

pub fn run(mut args: RunArgs) -> anyhow::Result<()> {
    absolute_paths(&mut args)?;
    let sharding = Sharding::of(args.shard, args.shard_count)?;
    // Everything that can be wrong with the input is found before any agent starts.
    let suite = crate::commands::load_tasks(&args.tasks)?;
    let agents = agents_of(&args)?;
    let tasks = tasks_in_scope(&args, &suite)?;
    let in_scope = || tasks.iter().map(|&i| &suite.tasks[i]);
    check_globs(in_scope())?;
    let judge = args.judge.build(in_scope(), args.no_judge.no_judge)?;
    let seeds = match &judge {
        Some(_) => seed_files(&args, &suite, &tasks)?,
        None => HashMap::new(),
    };
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
    let keep = keep_folder(&mut args)?;
    let hidden = hidden_from_agents(&args, &suite, control.path());
    let isolation = Isolation::set_up(&args.containment.options(), &agents, hidden)?;
    if !isolation.namespaces()
        && let Some(task) = in_scope().find(|t| t.network == Some(TaskNetwork::None))
    {
        crate::exit::bail_input!(
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
        keep,
        isolation,
    };
    let ran = runtime.block_on(execute(args, suite, agents, tasks, jobs, judging, sharding));
    // An interrupted run does not wait for a check still grading (it is bounded, but a
    // user who asked proctor to stop is not kept waiting).
    runtime.shutdown_timeout(STOP_WITHIN);
    crate::run::process::kill_what_is_left();
    ran
}

/// The agents to run, from `--agents FILE` or `--agent`, each passed the variables
/// `--pass-env` names besides its own.
fn agents_of(args: &RunArgs) -> anyhow::Result<Vec<AgentSpec>> {
    let mut agents = match &args.agents {
        Some(file) => agent::from_file(file)?,
        None => agent::from_flags(&args.agent, args.label.as_deref())?,
    };
    let pass_env = PassEnv::new(&args.containment.pass_env, "--pass-env")?;
    for agent in &mut agents {
        agent.pass_env = pass_env.union(&agent.pass_env)?;
    }
    Ok(agents)
}

/// The suite's tasks this run runs: chosen by `--variants` and `--only`.
fn tasks_in_scope(args: &RunArgs, suite: &Suite) -> anyhow::Result<Vec<usize>> {
    let only = build_globs(&args.only)?;
    let variants = VariantChoice::parse(&args.variants, suite)?;
    let tasks: Vec<usize> = suite
        .tasks
        .iter()
        .enumerate()
        .filter(|(_, t)| variants.chooses(t))
        .filter(|(_, t)| selected(t, &only))
        .map(|(i, _)| i)
        .collect();
    if tasks.is_empty() {
        crate::exit::bail_input!(
            "no task of {} matches --only {}",
            args.tasks.display(),
            args.only.join(" --only ")
        );
    }
    Ok(tasks)
}

/// The seed files of each rubric task in scope, which the judge compares the sandbox
/// with. A cassette folder a first recording run would make later is made now: a path
/// that does not exist when agents start cannot be hidden from them.
fn seed_files(
    args: &RunArgs,
    suite: &Suite,
    tasks: &[usize],
) -> anyhow::Result<HashMap<usize, Seed>> {
    if let Some(cassette) = &args.judge.cassette {
        std::fs::create_dir_all(cassette).map_err(|e| {
            crate::exit::infrastructure(
                format!("{}: cannot create the cassette folder", cassette.display()),
                e,
            )
        })?;
    }
    let mut seeds = HashMap::new();
    let mut seed_files = Seeds::default();
    for &i in tasks {
        let task = &suite.tasks[i];
        if task.rubric.is_some() {
            seeds.insert(i, seed_files.for_task(task)?);
        }
    }
    Ok(seeds)
}

/// The `--keep` folder, made and opened; `args.keep` becomes its resolved path, at which
/// the sandboxes under it are shown where it is hidden.
fn keep_folder(args: &mut RunArgs) -> anyhow::Result<Option<KeepFolder>> {
    let Some(keep) = args.keep.as_mut() else {
        return Ok(None);
    };
    std::fs::create_dir_all(&*keep).map_err(|e| {
        crate::exit::infrastructure(
            format!("{}: cannot create --keep folder", keep.display()),
            e,
        )
    })?;
    if let Ok(resolved) = keep.canonicalize() {
        *keep = resolved;
    }
    KeepFolder::open(keep).map(Some).map_err(|e| {
        crate::exit::infrastructure(
            format!("{}: cannot prepare --keep folder", keep.display()),
            e,
        )
    })
}

/// How long an interrupted run waits for what still runs (docs/exit-codes.md, 130).
const STOP_WITHIN: Duration = Duration::from_millis(800);

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

/// What no agent may see (docs/agent-protocol.md): the task files and every file they name for
/// grading, the agents file (other agents' `env`), the judge's recordings and
/// template, results, the ledger, kept sandboxes, proctor's private folder of this
/// run, and earlier results and reports: every `*.jsonl`, `*.html` and run record
/// (`*.run.json`) beside a task file or in the folder of `--out` or `--html`.
fn hidden_from_agents(args: &RunArgs, suite: &Suite, control: &Path) -> Vec<PathBuf> {
    let mut hidden = vec![args.tasks.clone(), control.to_owned()];
    for task in &suite.tasks {
        hidden.extend(task.grading_files());
        // A command check's own files: the agent could copy the check's logic.
        hidden.extend(task.verify.iter().flat_map(|check| check.files()).cloned());
    }
    hidden.extend(args.agents.clone());
    hidden.extend(args.out.clone());
    hidden.extend(args.out.as_deref().map(crate::run_record::record_path));
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

/// The result files, run records and HTML reports lying in `folder` (not below it).
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
                || p.file_name()
                    .is_some_and(|n| n.as_encoded_bytes().ends_with(b".run.json"))
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
        builder
            .add(globset::Glob::new(pattern).with_input_context(|| format!("--only {pattern:?}"))?);
    }
    Ok(builder.build()?)
}

/// The judge, prices and folders an attempt needs besides its agent.
struct Judging {
    judge: Option<proctor_judge::Judge>,
    seeds: HashMap<usize, Seed>,
    pricer: crate::usage_cost::Pricer,
    control: tempfile::TempDir,
    keep: Option<KeepFolder>,
    isolation: Isolation,
}

async fn execute(
    args: RunArgs,
    suite: Suite,
    agents: Vec<AgentSpec>,
    tasks: Vec<usize>,
    jobs: usize,
    judging: Judging,
    sharding: Sharding,
) -> anyhow::Result<()> {
    let mut earlier = ScorecardBuilder::new(args.summary.scorecard_options());
    let results = ResultsFile::new(args.out.as_deref(), args.summary.html.as_deref())?;
    // The file is locked before it is read for --resume and before any agent starts, so a
    // second run on the same --out is refused at once.
    let writer = match &results.path {
        Some(out) if args.resume => Some(ResultWriter::append(out)?),
        Some(out) => Some(ResultWriter::create(out)?),
        None => None,
    };
    let previous = match (&args.out, args.resume) {
        (Some(out), true) => previous_results(out, &suite, &agents, &tasks, &mut earlier)?,
        _ => Previous::default(),
    };
    // Every shard of a run, and a resumed run, names the same run.
    let run_id = args
        .run_id
        .clone()
        .or(sharding.run_id)
        .or(previous.run_id)
        .or_else(|| {
            sharding
                .shard
                .map(|shard| hand_sharded_run_id(&args, &suite, &agents, shard))
        })
        .unwrap_or_else(|| crate::run::scheduler::new_run_id(jiff::Timestamp::now()));
    let mut planned = plan(&tasks, agents.len(), args.attempts);
    let all = planned.len();
    if let Some(shard) = sharding.shard {
        planned = deal(planned, shard, |task| suite.tasks[task].base_id());
    }
    if let (Some(out), Some(writer)) = (&args.out, &writer)
        && writer.is_regular()
    {
        let record = RunRecord {
            format: crate::run_record::FORMAT.to_owned(),
            run_id: run_id.clone(),
            results: out
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default(),
            tasks: absolute(&args.tasks)
                .unwrap_or_else(|| args.tasks.clone())
                .to_string_lossy()
                .into_owned(),
            agents: agents.iter().map(|a| Some(a.name.clone())).collect(),
            planned: planned.len() as u64,
            done_at_start: previous.lines,
            started_at: jiff::Timestamp::now().to_string(),
            shard: sharding.shard.map(|s| s.to_string()),
            keep: args.keep.as_ref().map(|k| k.to_string_lossy().into_owned()),
            pid: std::process::id(),
        };
        record_run(out, &record);
    }
    if let Some(shard) = sharding.shard
        && planned.is_empty()
    {
        eprintln!(
            "proctor: shard {shard} holds no attempts ({all} attempts dealt among {} shards)",
            shard.count
        );
        return Ok(());
    }
    planned.retain(|p| !previous.done.contains(&(p.agent, p.task, p.attempt)));
    let (context, receiver) = start(&args, suite, agents, &tasks, jobs, judging).await?;
    let ledger = LedgerRows::open(&args.cost, &args.tasks, &context.pricer)?;
    let mut outputs = Outputs::after(earlier).with_common()?;
    let progress = Progress::new(planned.len() as u64);
    let notes = progress.notes();
    outputs.add(ResultsOut::new(writer, true));
    outputs.add(LedgerOut::new(ledger));
    outputs.add(progress);
    outputs.add(CrashTally::default());
    let page = PageOptions {
        suite: &context.suite,
        ledger: args.cost.ledger.as_deref(),
        kept: args.keep.as_deref().map(|dir| (dir, false)),
    };
    outputs.add_summary(args.format, &args.summary, results, page);
    let cancel = signals::cancellation().context("cannot watch for Ctrl-C")?;
    // Agents hold one of `jobs` slots; judging and grading run apart, so that an attempt
    // waiting for its verdict frees its slot. Attempts waiting to be finished are bounded
    // too, so that sandboxes do not pile up when the judge is slower than the agents.
    let schedule = Schedule {
        context: &context,
        cancel: &cancel,
        notes: &notes,
        jobs,
        waiting_at_most: jobs.max(2 * args.judge.judge_jobs as usize),
        run_id: &run_id,
        shard: sharding.shard,
    };
    let ran = schedule.run(planned, &mut outputs).await?;
    // What the servers refused is told even when an output could not be closed.
    let closed = outputs.close();
    report_servers(&context, &receiver);
    closed?;
    outputs.conclude(ran.ending(&args, *cancel.borrow()))
}

/// Writes the run record beside the results file `out` (docs/result-format.md, "The run
/// record"): a record that cannot be written is a note, and the run goes on.
fn record_run(out: &Path, record: &RunRecord) {
    if let Err(e) = crate::run_record::write(out, record) {
        eprintln!(
            "proctor: note: {}: cannot write the run record: {e}",
            crate::run_record::record_path(out).display()
        );
    }
}

/// The run id shards given by hand share: a digest of what makes the run.
fn hand_sharded_run_id(
    args: &RunArgs,
    suite: &Suite,
    agents: &[AgentSpec],
    shard: Shard,
) -> String {
    let (seed, attempts, count) = (
        args.seed.to_string(),
        args.attempts.to_string(),
        shard.count.to_string(),
    );
    let mut parts = vec![suite.digest.as_str(), &seed, &attempts, &count];
    parts.extend(agents.iter().map(|a| a.name.as_str()));
    parts.push("--only");
    parts.extend(args.only.iter().map(String::as_str));
    parts.push("--variants");
    parts.extend(args.variants.iter().map(String::as_str));
    crate::run::scheduler::shared_run_id(&parts)
}

/// Starts what the attempts reach (the OTLP receiver, the tool server, the forwarders of
/// contained agents) and gathers everything an attempt needs.
async fn start(
    args: &RunArgs,
    suite: Suite,
    agents: Vec<AgentSpec>,
    tasks: &[usize],
    jobs: usize,
    judging: Judging,
) -> anyhow::Result<(Arc<RunContext>, Receiver)> {
    let receiver = Receiver::start()
        .await
        .map_err(|e| crate::exit::infrastructure("the OTLP receiver on 127.0.0.1", e))?;
    let tools = serve_tools(&suite, tasks, args).await?;
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
        keep: judging.keep,
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
    Ok((context, receiver))
}

/// What the schedule needs besides the attempts to run.
struct Schedule<'a> {
    context: &'a Arc<RunContext>,
    cancel: &'a tokio::sync::watch::Receiver<bool>,
    notes: &'a Notes,
    /// Agents running at once.
    jobs: usize,
    /// Attempts whose agent ended waiting to be judged and graded, at most.
    waiting_at_most: usize,
    /// Written on every result line, with the shard (docs/result-format.md).
    run_id: &'a str,
    shard: Option<Shard>,
}

/// How the schedule ended, besides the attempts handed to the outputs.
#[derive(Debug, Default)]
struct Ran {
    infrastructure_errors: usize,
    /// Attempts that could not be settled fully (usage not priced): exit 2 at the end.
    problems: Problems,
    interrupted: bool,
    /// The model whose failure stopped the run (`judge`, `simulated user`), and why.
    model_failure: Option<(&'static str, String)>,
}

impl Ran {
    /// How the run ends: interrupted (`cancelled` too), or with the judge failed or
    /// attempts that could not run, each saying where the finished results are.
    fn ending(self, args: &RunArgs, cancelled: bool) -> Ending {
        let stopped = if self.interrupted || cancelled {
            let kept = match &args.out {
                Some(out) => format!(
                    "finished attempts are in {}; run the same command with --resume to complete it",
                    out.display()
                ),
                None => "no --out was given, so nothing was kept".to_owned(),
            };
            let message = format!("interrupted; running agents were stopped; {kept}");
            Err(Failure::Interrupted(message).into())
        } else {
            Ok(())
        };
        let failed = match self.model_failure {
            Some((what, message)) => {
                let kept = match &args.out {
                    Some(out) => format!(
                        "finished results are in {}; --resume completes the run",
                        out.display()
                    ),
                    None => "no --out was given".to_owned(),
                };
                Err(Failure::infrastructure(format!("{what}: {message}; {kept}")).into())
            }
            None if self.infrastructure_errors > 0 => Err(Failure::infrastructure(format!(
                "{} attempts could not run (see above); every other result was written",
                self.infrastructure_errors
            ))
            .into()),
            None => self.problems.into_result("attempts"),
        };
        Ending {
            title: format!("run {}", args.tasks.display()),
            k: args.summary.k,
            stopped,
            failed,
        }
    }
}

impl Schedule<'_> {
    /// Runs the planned attempts, `jobs` agents at a time, and hands each finished
    /// attempt to `outputs`. Stops scheduling on Ctrl-C or when the judge fails; the
    /// attempts already running finish and are kept.
    async fn run(&self, planned: Vec<Planned>, outputs: &mut Outputs<'_>) -> anyhow::Result<Ran> {
        let mut queue = planned.into_iter();
        let mut agents_running = JoinSet::new();
        let mut finishing = JoinSet::new();
        let mut ran = Ran::default();
        // Once interrupted, what still runs gets a moment to end, and is then left: an
        // attempt not finished by then is not written (`--resume` runs it again), and its
        // processes end with proctor.
        let mut cancel = self.cancel.clone();
        let give_up = async {
            crate::run::process::cancelled(&mut cancel).await;
            tokio::time::sleep(STOP_WITHIN).await;
        };
        tokio::pin!(give_up);
        loop {
            while agents_running.len() < self.jobs
                && agents_running.len() + finishing.len() < self.jobs + self.waiting_at_most
                && !*self.cancel.borrow()
                && ran.model_failure.is_none()
            {
                let Some(next) = queue.next() else { break };
                agents_running.spawn(run_agent(self.context.clone(), next, self.cancel.clone()));
            }
            if agents_running.is_empty() && finishing.is_empty() {
                return Ok(ran);
            }
            tokio::select! {
                Some(joined) = agents_running.join_next() => {
                    match attempt_ran(joined, self.notes, &mut ran.infrastructure_errors) {
                        Some(AgentPhase::Ended(ended)) => {
                            finishing.spawn(finish_attempt(self.context.clone(), *ended, self.cancel.clone()));
                        }
                        Some(AgentPhase::Cancelled) => ran.interrupted = true,
                        None => {}
                    }
                }
                Some(joined) = finishing.join_next() => {
                    match attempt_ran(joined, self.notes, &mut ran.infrastructure_errors) {
                        Some(Finished::Result { mut line, problems }) => {
                            line.run_id = Some(self.run_id.to_owned());
                            line.shard = self.shard.map(|s| s.to_string());
                            for problem in problems {
                                ran.problems.report_settled(problem, |m| self.notes.note(m));
                            }
                            let tags = self.context.suite.tags_of(&line.task);
                            outputs.attempt(&Attempt::of_line(&line, tags))?;
                        }
                        Some(Finished::Cancelled) => ran.interrupted = true,
                        Some(Finished::ModelFailed { what, message }) if ran.model_failure.is_none() => {
                            self.notes.note(&format!("proctor: {what} failed, stopping: {message}"));
                            ran.model_failure = Some((what, message));
                        }
                        Some(Finished::ModelFailed { .. }) | None => {}
                    }
                }
                () = &mut give_up => {
                    ran.interrupted = true;
                    agents_running.abort_all();
                    finishing.abort_all();
                    return Ok(ran);
                }
            }
        }
    }
}

/// What the servers of the run refused or could not place, on stderr.
fn report_servers(context: &RunContext, receiver: &Receiver) {
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
}

/// The MCP server and each in-scope task's compiled tools, when some task has `tools:`.
async fn serve_tools(
    suite: &Suite,
    tasks: &[usize],
    args: &RunArgs,
) -> anyhow::Result<ToolSettings> {
    let user_model = UserModel::for_run(user_model_config(args), suite, tasks)?;
    let mut by_task = HashMap::new();
    for &i in tasks {
        let tools = crate::mcp::attempt::TaskTools::of(&suite.tasks[i], user_model.as_ref())
            .map_err(|e| crate::exit::bad_input!("{}: {e}", suite.tasks[i].source.display()))?;
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

/// The simulated users' model that `--user-model` and its options describe, with the
/// judge's cassette and time limit.
fn user_model_config(args: &RunArgs) -> Option<UserModelConfig> {
    Some(UserModelConfig {
        provider: args.user_provider,
        model: args.user_model.clone()?,
        base_url: args.user_base_url.clone(),
        cassette: args.judge.cassette.clone(),
        mode: args.judge.cassette_mode,
        timeout: Duration::from_secs(args.judge.judge_timeout.max(1)),
    })
}

/// What a phase of an attempt gave; `None`, counted and reported, when it could not run
/// (an infrastructure failure) or failed inside proctor.
fn attempt_ran<T>(
    joined: Result<anyhow::Result<T>, tokio::task::JoinError>,
    notes: &Notes,
    infrastructure_errors: &mut usize,
) -> Option<T> {
    let message = match joined {
        Ok(Ok(value)) => return Some(value),
        Ok(Err(error)) => format!("proctor: an attempt could not run: {error:#}"),
        Err(error) => format!("proctor: an attempt failed inside proctor: {error}"),
    };
    *infrastructure_errors += 1;
    notes.note(&message);
    None
}

/// What `--resume` finds in `--out`.
#[derive(Debug, Default)]
struct Previous {
    /// (agent, task, attempt) of each attempt already done.
    done: HashSet<(usize, usize, u64)>,
    /// The run id of the first line that has one: the resumed run keeps it.
    run_id: Option<String>,
    /// Readable result lines in the file, whichever attempts they are of.
    lines: u64,
}

/// Reads `--out` for `--resume`: the attempts already done (counted in the scorecards),
/// refusing results written for other task files.
fn previous_results(
    out: &std::path::Path,
    suite: &Suite,
    agents: &[AgentSpec],
    tasks: &[usize],
    summary: &mut ScorecardBuilder,
) -> anyhow::Result<Previous> {
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
    let mut run_id = None;
    let mut bad = 0usize;
    let mut lines = 0;
    for_each_result(
        &[out.to_owned()],
        |_, line| {
            lines += 1;
            if !line.task_digest.is_empty() && line.task_digest != suite.digest {
                crate::exit::bail_input!(
                    "{}: written for other task files ({}, not {}); use another --out or drop --resume",
                    out.display(),
                    line.task_digest,
                    suite.digest
                );
            }
            if run_id.is_none() {
                run_id.clone_from(&line.run_id);
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
    Ok(Previous {
        done,
        run_id,
        lines,
    })
}
