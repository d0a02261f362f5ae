//! The attempts a reviewer can label: every result line with a judge verdict (PASS or FAIL)
//! whose task has a rubric.
//!
//! Labels name an attempt by `task,attempt` only, and `proctor calibrate` joins them with the
//! first result line of that task and attempt. Results of several agents (`label`) in one
//! file share those keys, so the review does the same: the first line is offered, later ones
//! are counted and named on stderr, never labelled under the wrong run.

use crate::commands::judge::kept_sandbox;
use crate::problems::Problems;
use crate::results_file::for_each_result;
use proctor_core::calibrate::{JudgeVerdict, Label, recorded_verdict};
use proctor_core::task::Suite;
use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// One judged attempt.
#[derive(Debug, Clone)]
pub struct Attempt {
    /// `id` or `id@variant`, as in the result line.
    pub task: String,
    pub attempt: u64,
    /// The agent's name (`label`), when the run had several.
    pub agent: Option<String>,
    pub judge: Label,
    pub reasoning: String,
    pub answer: Option<String>,
    /// The kept sandbox, when it is there.
    pub sandbox: Option<PathBuf>,
}

/// The judged attempts of the result files, in file order.
#[derive(Debug, Default)]
pub struct Judged {
    pub attempts: Vec<Attempt>,
    /// Lines with a task and attempt already offered (several agents in one file).
    pub repeated: u64,
    /// Judged lines of tasks `--tasks` does not hold or that have no rubric there.
    pub without_rubric: u64,
}

/// Reads `results`; bad lines are named on stderr and skipped.
pub fn read(results: &[PathBuf], keep: &Path, suite: Option<&Suite>) -> anyhow::Result<Judged> {
    let mut judged = Judged::default();
    let mut seen = HashSet::new();
    let mut problems = Problems::default();
    for_each_result(
        results,
        |_, line| {
            let Some(JudgeVerdict::Decided { label, reasoning }) = recorded_verdict(&line) else {
                return Ok(());
            };
            let has_rubric = suite.is_none_or(|suite| {
                suite
                    .get(&line.task)
                    .is_some_and(|task| task.rubric.is_some())
            });
            if !has_rubric {
                judged.without_rubric += 1;
                return Ok(());
            }
            if !seen.insert((line.task.to_string(), line.attempt)) {
                judged.repeated += 1;
                return Ok(());
            }
            judged.attempts.push(Attempt {
                task: line.task.to_string(),
                attempt: line.attempt,
                agent: line.label.clone(),
                judge: label,
                reasoning,
                answer: line.answer.clone(),
                sandbox: kept_sandbox(keep, &line),
            });
            Ok(())
        },
        |bad| problems.report(bad.to_string()),
    )?;
    if judged.repeated > 0 {
        eprintln!(
            "proctor: note: {} judged result line{} repeat a task and attempt seen before (several agents in one file?); labels name only task and attempt, and calibrate joins them with the first such line, so only the first is offered",
            judged.repeated,
            if judged.repeated == 1 { "" } else { "s" }
        );
    }
    if judged.without_rubric > 0 {
        eprintln!(
            "proctor: note: {} judged result line{} are of tasks without a rubric in --tasks and are not offered",
            judged.without_rubric,
            if judged.without_rubric == 1 { "" } else { "s" }
        );
    }
    // Bad lines were named as they were read; the review goes on with the rest, as
    // `calibrate` does, which reports the same lines when it reads these files.
    Ok(judged)
}
