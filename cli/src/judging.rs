//! The judge as the commands use it: building it from its options, the refusal to run rubric tasks without
//! a judge, and judging one run.

use crate::args::JudgeArgs;
use crate::exit::Failure;
use proctor_core::compact_json::CompactJson;
use proctor_core::grade::RubricVerdict;
use proctor_core::outcome::{Outcome, Status};
use proctor_core::task::Task;
use proctor_judge::{CassetteMode, Judge, JudgeConfig, JudgeError, JudgeRequest, Seed};
use serde_json::Value;
use std::collections::HashMap;
use std::path::Path;
use std::time::Duration;

/// Errors from the judge, mapped to exit 3 (infrastructure) or 2 (bad input).
pub fn judge_failure(error: JudgeError) -> anyhow::Error {
    if error.is_infrastructure() {
        crate::exit::infrastructure("judge", error)
    } else {
        crate::exit::bad_input!("judge: {error}")
    }
}

impl JudgeArgs {
    /// The judge for these tasks: `None` when none has a rubric or `no_judge`; an
    /// error when a task has a rubric and no judge is configured, or the judge cannot be
    /// reached (no key, nothing recorded to replay): found before any agent runs.
    pub fn build<'a>(
        &self,
        mut tasks: impl Iterator<Item = &'a Task>,
        no_judge: bool,
    ) -> anyhow::Result<Option<Judge>> {
        let Some(first) = tasks.find(|t| t.rubric.is_some()) else {
            return Ok(None);
        };
        if no_judge {
            return Ok(None);
        }
        let Some(model) = &self.judge_model else {
            crate::exit::bail_input!(
                "task `{}` ({}) has a rubric, and no judge is configured: pass --judge-model (with --cassette DIR for recorded answers), or --no-judge to report rubrics as not judged (those runs are then ungraded)",
                first.id,
                first.source.display()
            );
        };
        self.check_cassette(first)?;
        Judge::new(self.config(model))
            .map(Some)
            .map_err(judge_failure)
    }

    /// In replay mode a cassette folder that is missing or holds no recording can answer
    /// nothing: said now, naming the task that needs it, not after every agent ran.
    fn check_cassette(&self, first: &Task) -> anyhow::Result<()> {
        let Some(dir) = &self.cassette else {
            return Ok(());
        };
        if self.cassette_mode != CassetteMode::Replay {
            return Ok(());
        }
        let recorded = std::fs::read_dir(dir).map(|entries| {
            entries
                .flatten()
                .any(|e| e.path().extension().is_some_and(|x| x == "json"))
        });
        let problem = match recorded {
            Ok(true) => return Ok(()),
            Ok(false) => "holds no recorded judge answer",
            Err(_) => "cannot be read",
        };
        Err(Failure::infrastructure(format!(
            "judge: cassette folder {} {problem}, and --cassette-mode replay only replays; task `{}` ({}) has a rubric: record answers with --cassette-mode record (or auto) and a judge key, or pass --no-judge",
            dir.display(),
            first.id,
            first.source.display()
        ))
        .into())
    }

    /// The library configuration these options describe, for `model`.
    pub fn config(&self, model: &str) -> JudgeConfig {
        let mut config = JudgeConfig::new(self.judge_provider, model);
        config.base_url = self.judge_base_url.clone();
        config.cassette = self.cassette.clone();
        config.mode = self.cassette_mode;
        config.samples = self.judge_samples;
        config.jobs = self.judge_jobs as usize;
        config.timeout = Duration::from_secs(self.judge_timeout.max(1));
        config.template = self.judge_template.clone();
        config
    }
}

/// Checks every rubric task's `judge_files` globs, before any agent starts.
pub fn check_globs<'a>(tasks: impl Iterator<Item = &'a Task>) -> anyhow::Result<()> {
    for task in tasks.filter(|t| t.rubric.is_some()) {
        proctor_judge::bundle::validate_globs(&task.judge_files).map_err(|e| {
            crate::exit::bad_input!(
                "{}: task `{}`: field `judge_files`: {e}",
                task.source.display(),
                task.id
            )
        })?;
    }
    Ok(())
}

/// The seed files of each task with a rubric, read once per task: the judge marks
/// every sandbox file added, modified, unchanged or deleted against them.
#[derive(Debug, Default)]
pub struct Seeds(HashMap<String, Seed>);

impl Seeds {
    pub fn for_task(&mut self, task: &Task) -> anyhow::Result<Seed> {
        if let Some(seed) = self.0.get(&task.id) {
            return Ok(seed.clone());
        }
        let seed = Seed::from_task(task).map_err(|e| {
            crate::exit::bad_input!("{}: task `{}`: {e}", task.source.display(), task.id)
        })?;
        self.0.insert(task.id.clone(), seed.clone());
        Ok(seed)
    }
}

/// What judging one run gives grading and the result line.
#[derive(Debug)]
pub struct Judged {
    pub verdict: RubricVerdict,
    /// The verdict with provenance, for the result line's `judge` field.
    pub record: Option<Value>,
    /// The judge's token usage, priced under role `judge`.
    pub usage: Vec<CompactJson>,
}

impl Judged {
    /// A rubric the judge did not decide, and why: the run is ungraded.
    pub fn undecided(why: impl Into<String>) -> Judged {
        Judged {
            verdict: RubricVerdict::Error(why.into()),
            record: None,
            usage: Vec::new(),
        }
    }

    /// A rubric nobody judged: the run is ungraded.
    pub fn not_judged() -> Judged {
        Judged::undecided("not judged (--no-judge)")
    }
}

/// Judges one run of a task with a rubric. A run that crashed (an `error`, or status
/// `error`) is not judged: its `error:` reason replaces every other, so a verdict would
/// change nothing.
///
/// The answer is [`decided`]: `Err` only for a judge that cannot be reached, which stops
/// the command; anything about this run alone (an unreadable sandbox) leaves it undecided.
pub async fn judge_run(
    judge: Option<&Judge>,
    task: &Task,
    seed: &Seed,
    outcome: &Outcome,
    sandbox: Option<&Path>,
) -> Result<Option<Judged>, JudgeError> {
    decided(ask_judge(judge, task, seed, outcome, sandbox).await)
}

/// A judge's answer as grading takes it: a judge that cannot be reached (after retries,
/// or a cassette miss) is an infrastructure failure the caller stops on; any other error
/// concerns this run alone, whose rubric stays undecided, with the error as its reason.
fn decided(judged: Result<Option<Judged>, JudgeError>) -> Result<Option<Judged>, JudgeError> {
    match judged {
        Err(error) if !error.is_infrastructure() => Ok(Some(Judged::undecided(error.to_string()))),
        judged => judged,
    }
}

async fn ask_judge(
    judge: Option<&Judge>,
    task: &Task,
    seed: &Seed,
    outcome: &Outcome,
    sandbox: Option<&Path>,
) -> Result<Option<Judged>, JudgeError> {
    if task.rubric.is_none() {
        return Ok(None);
    }
    let Some(judge) = judge else {
        return Ok(Some(Judged::not_judged()));
    };
    if outcome.error.is_some() || outcome.status == Some(Status::Error) {
        return Ok(Some(Judged::undecided("not judged (the agent crashed)")));
    }
    let answer = outcome.answer.as_deref();
    let Some(request) = JudgeRequest::for_task(task, answer, sandbox, seed.clone()) else {
        return Ok(None);
    };
    let outcome = judge.judge(request).await?;
    Ok(Some(Judged {
        verdict: outcome.rubric_verdict(),
        record: Some(outcome.to_json()),
        usage: outcome
            .usage()
            .iter()
            .map(CompactJson::from_value)
            .collect(),
    }))
}
