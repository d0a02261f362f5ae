//! What the page shows of one attempt: what the judge saw. The rubric, the task's input, the
//! agent's answer and the end-state bundle, read by proctor-judge's bundle code with the
//! judge's limits, so the files, their statuses against the seed and every cut are the
//! judge's own. Everything is data for the page to set as text.

use super::attempts::Attempt;
use crate::judging::Seeds;
use proctor_core::task::Suite;
use proctor_judge::bundle::{Bundle, Content, collect};
use proctor_judge::{BundleLimits, Seed};
use serde_json::{Value, json};
use std::sync::Mutex;

/// The detail of `attempt`; `show_judge` adds the verdict and reasoning.
pub fn detail(
    attempt: &Attempt,
    suite: Option<&Suite>,
    seeds: &Mutex<Seeds>,
    show_judge: bool,
) -> anyhow::Result<Value> {
    let task = suite.and_then(|suite| suite.get(&attempt.task));
    let seed = match task {
        Some(task) => seeds
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .for_task(task)?,
        None => Seed::default(),
    };
    let judge_files = task.map_or(&[][..], |t| t.judge_files.as_slice());
    let bundle = collect(
        attempt.sandbox.as_deref(),
        &seed,
        judge_files,
        task.and_then(|t| t.rubric.as_deref()).unwrap_or_default(),
        BundleLimits::default(),
    )
    .map_err(|e| anyhow::anyhow!("task `{}`: {e}", attempt.task))?;
    let mut detail = json!({
        "task": attempt.task,
        "attempt": attempt.attempt,
        "agent": attempt.agent,
        "rubric": task.and_then(|t| t.rubric.as_deref()),
        "input": task.map(|t| t.input.as_str()),
        "answer": attempt.answer,
        "files": files(&bundle),
    });
    if show_judge {
        detail["judge"] = json!({
            "verdict": attempt.judge.name(),
            "reasoning": attempt.reasoning,
        });
    }
    Ok(detail)
}

fn files(bundle: &Bundle) -> Value {
    let entries: Vec<Value> = bundle
        .entries
        .iter()
        .map(|entry| {
            let (kind, text, hidden) = match &entry.content {
                Content::Text { text, hidden } => ("text", Some(text.as_str()), *hidden),
                Content::OverBudget => ("over_budget", None, 0),
                Content::Binary => ("binary", None, 0),
                Content::Symlink { target } => ("symlink", Some(target.as_str()), 0),
                Content::Special => ("special", None, 0),
                Content::Unreadable(why) => ("unreadable", Some(why.as_str()), 0),
                Content::Gone => ("deleted", None, 0),
            };
            json!({
                "path": entry.path,
                "status": entry.status.name(),
                "size": entry.size,
                "sha256": entry.sha256,
                "kind": kind,
                "text": text,
                "hidden": hidden,
            })
        })
        .collect();
    json!({
        "sandbox": bundle.sandbox,
        "globs": bundle.globs,
        "entries": entries,
        "unlisted": bundle.unlisted,
        "limits": {
            "per_file": bundle.limits.per_file,
            "total": bundle.limits.total,
            "max_files": bundle.limits.max_files,
        },
    })
}
