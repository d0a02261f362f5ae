//! What the judge needs to know about one run.

use crate::bundle::Seed;
use proctor_core::task::Task;
use std::path::{Path, PathBuf};

/// One run to judge. Owned, so that judging can move it to a blocking thread to read
/// the sandbox.
#[derive(Debug, Clone)]
pub struct JudgeRequest {
    /// The task's rubric: the plain-language criteria the judge grades against.
    pub rubric: String,
    /// What the agent was asked.
    pub input: String,
    /// The agent's final answer; `None` when it gave none.
    pub answer: Option<String>,
    /// Globs selecting the files the judge sees; empty for all.
    pub judge_files: Vec<String>,
    /// The sandbox after the run; `None` when it was not kept.
    pub sandbox: Option<PathBuf>,
    /// The files the sandbox started with.
    pub seed: Seed,
}

impl JudgeRequest {
    /// The request for a run of `task`, or `None` when the task has no rubric.
    pub fn for_task(
        task: &Task,
        answer: Option<&str>,
        sandbox: Option<&Path>,
        seed: Seed,
    ) -> Option<JudgeRequest> {
        let rubric = task.rubric.as_ref()?;
        Some(JudgeRequest {
            rubric: rubric.clone(),
            input: task.input.clone(),
            answer: answer.map(str::to_owned),
            judge_files: task.judge_files.clone(),
            sandbox: sandbox.map(Path::to_owned),
            seed,
        })
    }
}
