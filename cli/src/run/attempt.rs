//! One attempt, start to finish: sandbox, agent, outcome, grade, result line.

use super::agent::AgentSpec;
use super::outcome::resolve;
use super::plan::{Planned, attempt_seed};
use super::process::{self, Exit, Launch, Stopped};
use super::sandbox;
use super::traced;
use crate::judging::{Judged, judge_run};
use crate::otlp::TraceCollector;
use crate::usage_cost::Pricer;
use proctor_core::grade::{Workdir, grade};
use proctor_core::outcome::{AgentError, Outcome, Status};
use proctor_core::result::{ProcessInfo, ResultLine, Timings};
use proctor_core::task::{Suite, Task};
use proctor_judge::{Judge, Seed};
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{Semaphore, watch};

/// Everything attempts share.
#[derive(Debug)]
pub struct RunContext {
    pub suite: Suite,
    pub agents: Vec<AgentSpec>,
    pub default_timeout: Duration,
    pub seed: u64,
    pub keep: Option<PathBuf>,
    /// Several agents keep their sandboxes apart: `<keep>/<label>/<task>/<attempt>`.
    pub keep_by_label: bool,
    /// Where agents write their outcome files: outside every sandbox, so an outcome
    /// file is never mistaken for part of the end state.
    pub control: tempfile::TempDir,
    /// The judge, when some task has a rubric and one is configured.
    pub judge: Option<Judge>,
    /// The seed files of each task with a rubric, for the judge's added/modified status.
    pub seeds: HashMap<usize, Seed>,
    pub pricer: Pricer,
    /// Where agents export spans (DESIGN 12), and how long an attempt waits for late ones.
    pub traces: TraceSettings,
}

/// The OTLP receiver's side of a run.
#[derive(Debug)]
pub struct TraceSettings {
    pub collector: Arc<TraceCollector>,
    /// `OTEL_EXPORTER_OTLP_ENDPOINT` for every attempt.
    pub endpoint: String,
    /// `--trace-grace`: the longest wait for late spans after an agent exits.
    pub grace: Duration,
    /// `--trajectory-from trace`: grade every task's rules on the trace.
    pub trajectory_from_trace: bool,
    /// Agent slots (`--jobs`): an attempt holds one while its agent runs, not while it
    /// waits for late spans.
    pub agent_slots: Arc<Semaphore>,
}

/// How an attempt ended.
#[derive(Debug)]
pub enum Finished {
    Result(Box<ResultLine>),
    /// proctor was interrupted; nothing is recorded, so `--resume` runs it again.
    Cancelled,
    /// The judge could not be reached (after retries) or its cassette missed: an
    /// infrastructure failure that stops the run; nothing is recorded.
    JudgeFailed(String),
}

/// Runs one attempt. Errors are infrastructure failures (a sandbox that cannot be
/// made); everything the agent does wrong is a graded result.
pub async fn run_attempt(
    context: Arc<RunContext>,
    planned: Planned,
    cancel: watch::Receiver<bool>,
) -> anyhow::Result<Finished> {
    let task = &context.suite.tasks[planned.task];
    let agent = &context.agents[planned.agent];
    let seed = attempt_seed(context.seed, &task.id, planned.attempt);
    let timeout = task
        .timeout_s
        .map(Duration::from_secs_f64)
        .unwrap_or(context.default_timeout);
    let agent_slot = context.traces.agent_slots.clone().acquire_owned().await?;
    let started_at = jiff::Timestamp::now();

    let sandbox = {
        let context = context.clone();
        let label = context.keep_by_label.then(|| agent.name.clone());
        tokio::task::spawn_blocking(move || {
            let task = &context.suite.tasks[planned.task];
            sandbox::prepare(
                task,
                context.keep.as_deref(),
                label.as_deref(),
                planned.attempt,
            )
        })
        .await??
    };
    let outcome_path = context.control.path().join(format!(
        "outcome-{}-{}-{}.json",
        planned.agent, planned.task, planned.attempt
    ));
    // A file left by an interrupted earlier try must not count as this attempt's.
    let _ = std::fs::remove_file(&outcome_path);
    let registration = context.traces.collector.register(
        &context.traces.endpoint,
        &agent.name,
        &task.id,
        planned.attempt,
    );
    let env = environment(
        task,
        planned.attempt,
        seed,
        timeout,
        &outcome_path,
        agent,
        &registration.env,
    );
    let stdin_line = serde_json::json!({
        "task_id": task.id,
        "attempt": planned.attempt,
        "input": task.input,
        "seed": seed,
        "step_cap": task.step_cap,
        "timeout_s": timeout.as_secs_f64(),
    })
    .to_string();
    let launch = Launch {
        program: &agent.program,
        args: &agent.args,
        env: &env,
        cwd: &sandbox.dir,
        stdin_line,
        timeout,
    };
    let (outcome, process_info, duration) = match process::run(launch, cancel).await {
        Ok(run) if run.stopped == Some(Stopped::Cancelled) => return Ok(Finished::Cancelled),
        Ok(run) => {
            let outcome = resolve(&run, &outcome_path);
            let _ = std::fs::remove_file(&outcome_path);
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
                stdout_bytes: run.stdout.total,
                stderr_tail: tail.into_iter().rev().collect::<Vec<_>>().join("\n"),
            };
            (outcome, Some(info), run.duration)
        }
        Err(error) => (
            Outcome {
                status: Some(Status::Error),
                error: Some(AgentError {
                    kind: "could not start".to_owned(),
                    message: error.to_string(),
                }),
                ..Outcome::default()
            },
            None,
            Duration::ZERO,
        ),
    };
    // Waiting for late spans leaves the agent slot to the next attempt.
    drop(agent_slot);
    let collected = context
        .traces
        .collector
        .finish(registration, context.traces.grace)
        .await;
    let (outcome, trace_checks) = traced::combine(
        outcome,
        collected,
        task.trajectory_from_trace || context.traces.trajectory_from_trace,
    );

    let crashed = outcome.error.is_some() || outcome.status == Some(Status::Error);
    let seed_files = context
        .seeds
        .get(&planned.task)
        .cloned()
        .unwrap_or_default();
    let judged = match judge_run(
        context.judge.as_ref(),
        task,
        &seed_files,
        outcome.answer.as_deref(),
        crashed,
        Some(&sandbox.dir),
    )
    .await
    {
        Ok(judged) => judged,
        Err(error) if error.is_infrastructure() => {
            return Ok(Finished::JudgeFailed(format!(
                "task `{}` attempt {}: {error}",
                task.id, planned.attempt
            )));
        }
        // Something about this run alone (an unreadable sandbox): it stays ungraded.
        Err(error) => Some(Judged::undecided(error.to_string())),
    };
    let mut graded = {
        let context = context.clone();
        let dir = sandbox.dir.clone();
        let outcome = outcome.clone();
        let verdict = judged.as_ref().map(|j| j.verdict.clone());
        tokio::task::spawn_blocking(move || {
            let task = &context.suite.tasks[planned.task];
            grade(task, &outcome, Workdir::Dir(&dir), verdict.as_ref())
        })
        .await?
    };
    graded.checks.extend(trace_checks);
    let judge_usage = judged.as_ref().map(|j| j.usage.clone()).unwrap_or_default();
    let priced_at: jiff::Timestamp = started_at;
    let cost = context
        .pricer
        .cost(&outcome.usage, &judge_usage, Some(priced_at))
        .or_else(|_| context.pricer.unpriced_cost(&outcome.usage))
        .unwrap_or_default();
    let mut line = ResultLine::new(
        &task.id,
        planned.attempt,
        Some(agent.name.clone()),
        outcome,
        graded,
    );
    line.judge = judged.and_then(|j| j.record);
    line.cost = cost;
    line.task_digest = context.suite.digest.clone();
    line.seed = Some(seed);
    line.process = process_info;
    line.timings = Timings {
        started_at: Some(started_at.to_string()),
        duration_ms: Some(duration.as_millis() as u64),
    };
    drop(sandbox);
    Ok(Finished::Result(Box::new(line)))
}

/// The `PROCTOR_*` variables, then the agent's own environment. Grading fields
/// (`expected`, `rubric`, `rules`, `verify`) are never among them.
fn environment(
    task: &Task,
    attempt: u64,
    seed: u64,
    timeout: Duration,
    outcome_path: &std::path::Path,
    agent: &AgentSpec,
    telemetry: &[(String, String)],
) -> Vec<(String, String)> {
    let mut env = vec![
        ("PROCTOR_TASK_ID".to_owned(), task.id.clone()),
        ("PROCTOR_ATTEMPT".to_owned(), attempt.to_string()),
        ("PROCTOR_SEED".to_owned(), seed.to_string()),
        ("PROCTOR_INPUT".to_owned(), task.input.clone()),
        (
            "PROCTOR_STEP_CAP".to_owned(),
            task.step_cap.map(|c| c.to_string()).unwrap_or_default(),
        ),
        (
            "PROCTOR_TIMEOUT_S".to_owned(),
            timeout.as_secs_f64().to_string(),
        ),
        (
            "PROCTOR_OUTCOME".to_owned(),
            outcome_path.to_string_lossy().into_owned(),
        ),
    ];
    // The OTLP endpoint, TRACEPARENT and resource attributes (DESIGN 12).
    env.extend(telemetry.iter().cloned());
    env.extend(agent.env.iter().cloned());
    env
}
