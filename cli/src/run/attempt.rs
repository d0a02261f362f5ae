//! One attempt, start to finish, in two phases: the agent's (sandbox, agent, outcome),
//! which holds one of `--jobs` agent slots, and what follows it (judge, grade, cost,
//! result line), which does not, so that an attempt waiting for its verdict lets the
//! next agent start.

use super::agent::AgentSpec;
use super::environment::AgentEnvironment;
use super::isolation::contained_command::ContainedCommands;
use super::isolation::{Isolation, MemoryUse};
use super::keep_folder::KeepFolder;
use super::outcome::resolve;
use super::plan::{Planned, attempt_seed};
use super::process::{self, Exit, Launch, Stopped};
use super::sandbox::{self, AttemptFolders};
use super::traced;
use crate::judging::{Judged, judge_run};
use crate::mcp::ToolServer;
use crate::mcp::attempt::{AttemptTools, TaskTools};
use crate::mcp::server::Served;
use crate::mcp::server::ServedCalls;
use crate::otlp::TraceCollector;
use crate::otlp::collector::Collected;
use crate::otlp::collector::Registration;
use crate::settle::{Place, Settling, add_details, settle};
use crate::usage_cost::Pricer;
use proctor_core::grade::{CheckResult, Evidence, Kept, Workdir};
use proctor_core::outcome::{AgentError, Outcome, Status};
use proctor_core::result::{ProcessInfo, ResultLine, Timings};
use proctor_core::task::{Suite, Task, TaskNetwork};
use proctor_judge::{Judge, Seed};
use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::watch;

/// Everything attempts share.
#[derive(Debug)]
pub struct RunContext {
    pub suite: Suite,
    pub agents: Vec<AgentSpec>,
    pub default_timeout: Duration,
    pub seed: u64,
    /// `--keep`: where sandboxes run and are kept.
    pub keep: Option<KeepFolder>,
    /// Several agents keep their sandboxes apart: `<keep>/<label>/<task>/<attempt>`.
    pub keep_by_label: bool,
    /// The run's private folder (mode 0700, a random name): each attempt's private
    /// folders and outcome folder are made in it, outside every sandbox.
    pub control: tempfile::TempDir,
    /// How agents are contained.
    pub isolation: Arc<Isolation>,
    /// Runs command checks and script backends contained like the agents, a bounded
    /// number at once.
    pub commands: ContainedCommands,
    /// The judge, when some task has a rubric and one is configured.
    pub judge: Option<Judge>,
    /// The seed files of each task with a rubric, for the judge's added/modified status.
    pub seeds: HashMap<usize, Seed>,
    pub pricer: Pricer,
    /// Where agents export spans (docs/traces.md), and how long an attempt waits for late ones.
    pub traces: TraceSettings,
    /// The tools served to tasks with `tools:` (docs/tools.md).
    pub tools: ToolSettings,
}

/// The MCP server's side of a run.
#[derive(Debug, Default)]
pub struct ToolSettings {
    /// Running when some task in scope has `tools:`.
    pub server: Option<ToolServer>,
    /// Each such task's tools, by task index, compiled once.
    pub by_task: HashMap<usize, Arc<TaskTools>>,
}

/// The OTLP receiver's side of a run.
#[derive(Debug)]
pub struct TraceSettings {
    pub collector: Arc<TraceCollector>,
    /// `OTEL_EXPORTER_OTLP_ENDPOINT` for every attempt.
    pub endpoint: String,
    /// `--trace-grace`: the longest wait for late spans after an agent exits, outside the
    /// agent's slot.
    pub grace: Duration,
    /// `--trajectory-from trace`: grade every task's rules on the trace.
    pub trajectory_from_trace: bool,
}

/// How an attempt ended.
#[derive(Debug)]
pub enum Finished {
    /// The attempt's line, and what could not be settled fully (usage not priced), each
    /// naming the attempt.
    Result {
        line: Box<ResultLine>,
        problems: Vec<String>,
    },
    /// proctor was interrupted; nothing is recorded, so `--resume` runs it again.
    Cancelled,
    /// A model the run needs (the judge, or the model playing a simulated user) could not
    /// be reached after retries, or its cassette missed: an infrastructure failure that
    /// stops the run; nothing is recorded.
    ModelFailed {
        /// `judge` or `simulated user`.
        what: &'static str,
        message: String,
    },
}

/// An attempt whose agent has ended, waiting to be judged and graded.
#[derive(Debug)]
pub struct AgentEnded {
    planned: Planned,
    seed: u64,
    started_at: jiff::Timestamp,
    /// Kept until the attempt is graded: the judge and the end-state checks read the
    /// sandbox.
    folders: AttemptFolders,
    outcome: Outcome,
    process_info: Option<ProcessInfo>,
    duration: Duration,
    /// The attempt's place in the OTLP receiver, where its spans are collected.
    traces: Registration,
    /// The attempt's place in the tool server, when the task has `tools:`, and when its
    /// agent exited: its calls are taken after the calls it started have ended.
    served: Option<(Served, tokio::time::Instant)>,
}

/// How the agent's phase of an attempt ended.
#[derive(Debug)]
pub enum AgentPhase {
    Ended(Box<AgentEnded>),
    /// proctor was interrupted; nothing is recorded, so `--resume` runs it again.
    Cancelled,
}

/// The agent's phase: a fresh sandbox, the agent in it, its outcome. Errors are
/// infrastructure failures (a sandbox that cannot be made); everything the agent does
/// wrong is a graded result.
pub async fn run_agent(
    context: Arc<RunContext>,
    planned: Planned,
    cancel: watch::Receiver<bool>,
) -> anyhow::Result<AgentPhase> {
    let task = &context.suite.tasks[planned.task];
    let agent = &context.agents[planned.agent];
    // A variant draws its base task's seed, so its attempts pair with the base's.
    let seed = attempt_seed(context.seed, task.base_id(), planned.attempt);
    let timeout = task
        .timeout_s
        .map(Duration::from_secs_f64)
        .unwrap_or(context.default_timeout);
    let started_at = jiff::Timestamp::now();
    let folders = make_sandbox(&context, planned).await?;
    let traces = context.traces.collector.register(
        &context.traces.endpoint,
        &agent.name,
        &task.id,
        planned.attempt,
    );
    let mut env = environment(task, planned.attempt, seed, timeout, &folders, agent);
    if let Some(path) = env.value("PATH").map(str::to_owned) {
        env.set("PATH", context.isolation.path_seen_by(planned.agent, &path));
    }
    let served = serve_tools(&context, planned, seed, &folders, &mut env).await?;
    // The OTLP endpoint, TRACEPARENT and resource attributes (docs/traces.md): proctor's, as the
    // PROCTOR_* variables are, since attributing spans depends on them.
    for (name, value) in &traces.env {
        env.set(name, value.clone());
    }
    let loopback_only = task.network == Some(TaskNetwork::None);
    let prepared = context
        .isolation
        .prepare(planned.agent, agent, &folders, loopback_only)?;
    let mut vars = env.vars().to_vec();
    vars.extend(prepared.env.iter().cloned());
    let launch = Launch {
        program: &prepared.program,
        args: &prepared.args,
        env: &vars,
        cwd: &folders.sandbox,
        stdin_line: stdin_line(task, planned.attempt, seed, timeout),
        timeout,
        disk: prepared.disk.as_ref(),
        bubblewrap: prepared.bubblewrap,
    };
    let ran = process::run(launch, cancel).await;
    // Read before the groups go: whether the memory limit killed a process.
    let memory = prepared.groups.as_ref().and_then(|g| g.memory_use());
    // The attempt's processes are gone: its cgroups, sockets and token can go too.
    drop(prepared.groups);
    drop(prepared.relays);
    let served = served.map(|served| (served, tokio::time::Instant::now()));
    let Some((outcome, process_info, duration)) =
        outcome_of(ran, &folders.outcome_file, memory, timeout)
    else {
        // Nothing is recorded; the attempt's server backends go with it.
        if let Some((served, _)) = &served {
            served.abandon().await;
        }
        return Ok(AgentPhase::Cancelled);
    };
    Ok(AgentPhase::Ended(Box::new(AgentEnded {
        planned,
        seed,
        started_at,
        folders,
        outcome,
        process_info,
        duration,
        traces,
        served,
    })))
}

/// The attempt's fresh sandbox and private folders (blocking: seed files are copied).
async fn make_sandbox(
    context: &Arc<RunContext>,
    planned: Planned,
) -> anyhow::Result<AttemptFolders> {
    let context = context.clone();
    tokio::task::spawn_blocking(move || {
        let task = &context.suite.tasks[planned.task];
        let agent = &context.agents[planned.agent];
        let label = context.keep_by_label.then_some(agent.name.as_str());
        sandbox::prepare(
            task,
            context.control.path(),
            context.keep.as_ref(),
            label,
            planned.attempt,
        )
    })
    .await?
    .map_err(Into::into)
}

/// The task's tools, served under a token of this attempt's own (docs/tools.md), when it
/// has `tools:`: their address goes into the agent's environment and `.mcp.json`.
async fn serve_tools(
    context: &RunContext,
    planned: Planned,
    seed: u64,
    folders: &AttemptFolders,
    env: &mut AgentEnvironment,
) -> anyhow::Result<Option<Served>> {
    let (Some(server), Some(tools)) = (
        &context.tools.server,
        context.tools.by_task.get(&planned.task),
    ) else {
        return Ok(None);
    };
    let task = &context.suite.tasks[planned.task];
    let tools = AttemptTools::new(
        tools.clone(),
        task,
        planned.attempt,
        (folders.sandbox.clone(), folders.state.clone()),
        // Drawn from the attempt's seed (a variant's is its base task's), so a rerun, a
        // resume or a shard fires the same faults.
        proctor_core::faults::FaultPlan::new(&task.faults, seed),
        context.commands.clone(),
    );
    let served = server.register(tools);
    let url = server.url();
    for (name, value) in crate::mcp::client_config::env(&url, &served.token) {
        env.set(name, value);
    }
    let written = crate::mcp::client_config::write_config(&folders.sandbox, &url, &served.token);
    if let Err(error) = written {
        server.finish(served, tokio::time::Instant::now()).await;
        return Err(crate::exit::infrastructure(
            "cannot write .mcp.json into the sandbox",
            error,
        ));
    }
    Ok(Some(served))
}

/// The line the agent reads on stdin (docs/agent-protocol.md). The base id: a variant's
/// name (`@pushy`) would tell the agent it is being tested.
fn stdin_line(task: &Task, attempt: u64, seed: u64, timeout: Duration) -> String {
    serde_json::json!({
        "task_id": task.base_id(),
        "attempt": attempt,
        "input": task.input,
        "seed": seed,
        "step_cap": task.step_cap,
        "timeout_s": timeout.as_secs_f64(),
    })
    .to_string()
}

/// What the agent's process gave: its outcome (from the outcome file, else stdout), how
/// it ended, and how long it ran; `None` when proctor was interrupted. An agent that could
/// not start is an attempt that crashed.
fn outcome_of(
    ran: std::io::Result<process::AgentRun>,
    outcome_file: &std::path::Path,
    memory: Option<MemoryUse>,
    timeout: Duration,
) -> Option<(Outcome, Option<ProcessInfo>, Duration)> {
    let run = match ran {
        Ok(run) if run.stopped == Some(Stopped::Cancelled) => return None,
        Ok(run) => run,
        Err(error) => {
            let crashed = Outcome {
                status: Some(Status::Error),
                error: Some(AgentError {
                    kind: "could not start".to_owned(),
                    message: error.to_string(),
                }),
                ..Outcome::default()
            };
            return Some((crashed, None, Duration::ZERO));
        }
    };
    let outcome = resolve(&run, outcome_file, memory);
    let _ = std::fs::remove_file(outcome_file);
    let stderr = String::from_utf8_lossy(&run.stderr.bytes);
    let tail: Vec<&str> = stderr.lines().rev().take(5).collect();
    let info = ProcessInfo {
        exit_code: match run.exit {
            Exit::Code(code) => Some(code),
            Exit::Signal(_) => None,
        },
        signal: match run.exit {
            Exit::Signal(signal) => Some(signal),
            Exit::Code(_) => None,
        },
        timed_out: run.stopped == Some(Stopped::TimedOut),
        timeout_s: Some(timeout.as_secs_f64()),
        stdout_bytes: run.stdout.total,
        stderr_tail: tail.into_iter().rev().collect::<Vec<_>>().join("\n"),
    };
    Some((outcome, Some(info), run.duration))
}

/// What follows the agent: its late spans and served calls, its kept sandbox, the judge
/// (each given up when proctor is interrupted), then the attempt settled into its line.
pub async fn finish_attempt(
    context: Arc<RunContext>,
    ended: AgentEnded,
    mut cancel: watch::Receiver<bool>,
) -> anyhow::Result<Finished> {
    let planned = ended.planned;
    let task = &context.suite.tasks[planned.task];
    // Late spans, and the served calls still running, are waited for here, outside the
    // agent's slot.
    let served_calls = async {
        match (ended.served, &context.tools.server) {
            (Some((served, exited)), Some(server)) => Some(server.finish(served, exited).await),
            _ => None,
        }
    };
    let traced_spans = context
        .traces
        .collector
        .finish(ended.traces, context.traces.grace);
    let (collected, served) = tokio::select! {
        both = async { tokio::join!(traced_spans, served_calls) } => both,
        _ = process::cancelled(&mut cancel) => return Ok(Finished::Cancelled),
    };
    if let Some(stopped) = served.as_ref().and_then(|s| s.user_stopped.clone()) {
        return Ok(Finished::ModelFailed {
            what: "simulated user",
            message: format!("task `{}` attempt {}: {stopped}", task.id, planned.attempt),
        });
    }
    let folders = keep_sandbox(ended.folders, task, planned.attempt).await?;
    let accounts = Accounts::of(
        ended.outcome,
        collected,
        served.as_ref(),
        task.trajectory_from_trace || context.traces.trajectory_from_trace,
    );
    let seed_files = context
        .seeds
        .get(&planned.task)
        .cloned()
        .unwrap_or_default();
    let judging = judge_run(
        context.judge.as_ref(),
        task,
        &seed_files,
        &accounts.outcome,
        Some(&folders.sandbox),
    );
    // Ctrl-C drops a judge call in flight (and its connection) at once: the attempt is
    // not recorded, so `--resume` judges it again.
    let judged = tokio::select! {
        judged = judging => judged,
        _ = process::cancelled(&mut cancel) => return Ok(Finished::Cancelled),
    };
    let judged = match judged {
        Ok(judged) => judged,
        Err(error) => {
            return Ok(Finished::ModelFailed {
                what: "judge",
                message: format!("task `{}` attempt {}: {error}", task.id, planned.attempt),
            });
        }
    };
    let ran = Ran {
        seed: ended.seed,
        started_at: ended.started_at,
        duration: ended.duration,
        process: ended.process_info,
    };
    let settled = {
        let context = context.clone();
        tokio::task::spawn_blocking(move || {
            settle_attempt(&context, planned, &folders, accounts, judged, ran, served)
        })
        .await?
    };
    Ok(settled)
}

/// Moves the sandbox to its kept place under `--keep` once nothing of the attempt runs
/// any more (its served calls are in), where grading and every later command find it.
/// Blocking: what an earlier run kept there, however large, is removed first.
async fn keep_sandbox(
    folders: AttemptFolders,
    task: &Task,
    attempt: u64,
) -> anyhow::Result<AttemptFolders> {
    tokio::task::spawn_blocking(move || {
        let mut folders = folders;
        folders.keep().map(|()| folders)
    })
    .await?
    .map_err(|error| {
        crate::exit::infrastructure(
            format_args!(
                "cannot keep the sandbox of task `{}` attempt {attempt}",
                task.id
            ),
            error,
        )
    })
}

/// Every account of an attempt's calls, and the one its trajectory is graded on.
struct Accounts {
    outcome: Outcome,
    /// The other accounts, on which safety is graded too.
    evidence: Evidence,
    /// The checks the trace and the served calls add.
    runner_checks: Vec<CheckResult>,
}

impl Accounts {
    /// The agent's own account, the trace's and the tool server's: safety is graded on
    /// them all; the trajectory on the trace's when `from_trace`, and the served calls
    /// replace what the agent said of them.
    fn of(
        reported: Outcome,
        collected: Option<Collected>,
        served: Option<&ServedCalls>,
        from_trace: bool,
    ) -> Accounts {
        let mut evidence = Evidence::default();
        evidence.add(&reported);
        if let Some(collected) = &collected {
            evidence.add(&collected.evidence.outcome);
        }
        let (outcome, trace_checks) = traced::combine(reported, collected, from_trace);
        let (outcome, served_checks) = match served {
            Some(served) => super::served::combine(outcome, served),
            None => (outcome, Vec::new()),
        };
        let evidence = evidence.besides(&outcome);
        Accounts {
            outcome,
            evidence,
            runner_checks: trace_checks.into_iter().chain(served_checks).collect(),
        }
    }
}

/// What the runner alone knows of an attempt's run.
struct Ran {
    seed: u64,
    started_at: jiff::Timestamp,
    duration: Duration,
    process: Option<ProcessInfo>,
}

/// The attempt settled (crate::settle) into its result line: graded in its sandbox,
/// priced at its start, with the runner's record of its run.
fn settle_attempt(
    context: &RunContext,
    planned: Planned,
    folders: &AttemptFolders,
    accounts: Accounts,
    judged: Option<Judged>,
    ran: Ran,
    served: Option<ServedCalls>,
) -> Finished {
    let task = &context.suite.tasks[planned.task];
    let agent = &context.agents[planned.agent];
    let commands = context.commands.with_state(folders.state.as_deref());
    let place = Place {
        line: None,
        task: &task.id,
        attempt: Some(planned.attempt),
    };
    let mut settled = settle(
        Settling {
            task,
            place: &place,
            outcome: &accounts.outcome,
            evidence: &accounts.evidence,
            workdir: Workdir::Dir(&folders.sandbox, &commands),
            judged,
            runner_checks: accounts.runner_checks,
            priced_at: Ok(Some(ran.started_at)),
        },
        &context.pricer,
        Kept::OnRecord,
        None,
    );
    let problems = std::mem::take(&mut settled.problems);
    let mut line = settled.into_line(
        task,
        planned.attempt,
        Some(agent.name.clone()),
        accounts.outcome,
        &context.suite.digest,
    );
    line.evidence = accounts.evidence.on_record();
    line.seed = Some(ran.seed);
    line.process = ran.process;
    line.timings = Timings {
        started_at: Some(ran.started_at.to_string()),
        duration_ms: Some(ran.duration.as_millis() as u64),
        tool_calls: served
            .as_ref()
            .map(|served| crate::mcp::record::timings(&served.calls))
            .unwrap_or_default(),
    };
    if let Some(served) = served {
        line.faults_fired = served.fired;
        line.faults_missed = served.missed;
    }
    add_details(&mut line);
    Finished::Result {
        line: Box::new(line),
        problems,
    }
}

/// The agent's whole environment (docs/agent-protocol.md): the harmless host variables and
/// those the user passes, the agents file's `env`, a private `HOME` and `TMPDIR`,
/// then the `PROCTOR_*` variables, which nothing overrides. Grading fields
/// (`expected`, `rubric`, `rules`, `verify`) are never among them.
fn environment(
    task: &Task,
    attempt: u64,
    seed: u64,
    timeout: Duration,
    folders: &AttemptFolders,
    agent: &AgentSpec,
) -> AgentEnvironment {
    let mut env = AgentEnvironment::from_host(std::env::vars_os(), &agent.pass_env);
    for (name, value) in &agent.env {
        env.set(name, value.clone());
    }
    env.set("HOME", folders.home.to_string_lossy());
    env.set("TMPDIR", folders.tmp.to_string_lossy());
    env.set("PROCTOR_TASK_ID", task.base_id());
    env.set("PROCTOR_ATTEMPT", attempt.to_string());
    env.set("PROCTOR_SEED", seed.to_string());
    env.set("PROCTOR_INPUT", task.input.clone());
    env.set(
        "PROCTOR_STEP_CAP",
        task.step_cap.map(|c| c.to_string()).unwrap_or_default(),
    );
    env.set("PROCTOR_TIMEOUT_S", timeout.as_secs_f64().to_string());
    env.set("PROCTOR_OUTCOME", folders.outcome_file.to_string_lossy());
    env
}
