//! `--set CAL.jsonl`: a labelled calibration set, run through the judge.
//!
//! One JSON object a line: `id` (unique), `rubric`, `input` (aliases `goal`, `prompt`),
//! optional `answer`, the end state as `files` (path → text, written into a fresh folder) or
//! `dir` (a folder, relative to the set file), optional `judge_files` globs, and `human`: a
//! label (`"PASS"`, `"fail"`, `1`, `0`) or an object of labels by rater. `note` is free text
//! for the labeller. Unknown fields are errors, as in task files: a typo must not silently drop
//! a file from what the judge sees. The judge sees the files as added (there is no seed).

use super::judge_config;
use super::problems::InputProblems;
use crate::args::JudgeArgs;
use crate::exit::InputContext;
use anyhow::Context;
use proctor_core::calibrate::{HumanLabel, JudgeVerdict, Label, LabelledItem};
use proctor_judge::{Decision, Judge, JudgeError, JudgeOutcome, JudgeRequest, Seed};
use serde::Deserialize;
use serde_json::Value;
use std::collections::{BTreeMap, HashMap};
use std::io::{BufRead, BufReader};
use std::path::{Component, Path, PathBuf};

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct SetItem {
    id: String,
    rubric: String,
    #[serde(alias = "goal", alias = "prompt")]
    input: String,
    #[serde(default)]
    answer: Option<String>,
    #[serde(default)]
    files: Option<BTreeMap<String, String>>,
    #[serde(default)]
    dir: Option<PathBuf>,
    #[serde(default)]
    judge_files: Vec<String>,
    human: Value,
    /// Free text for whoever labels or reviews the item.
    #[serde(default, rename = "note")]
    _note: Option<String>,
}

/// An item ready for the judge. The temporary folder lives as long as the item.
#[derive(Debug)]
struct Prepared {
    place: String,
    id: String,
    humans: Vec<HumanLabel>,
    request: JudgeRequest,
    _sandbox: Option<tempfile::TempDir>,
}

/// The judged items and the judge that judged them.
#[derive(Debug)]
pub struct Judged {
    pub items: Vec<LabelledItem>,
    pub judge: String,
}

/// Reads the set and judges every usable item.
pub fn judge_set(
    path: &Path,
    options: &JudgeArgs,
    problems: &mut InputProblems,
) -> anyhow::Result<Judged> {
    let config = judge_config::config(options)?;
    let prepared = read_set(path, problems)?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    runtime.block_on(async move {
        let judge = Judge::new(config).map_err(|e| failure("judge", e))?;
        let name = format!(
            "{}/{} ({})",
            options.judge_provider,
            options.judge_model.as_deref().unwrap_or_default(),
            judge.template_version()
        );
        let mut running = tokio::task::JoinSet::new();
        for (index, item) in prepared.iter().enumerate() {
            let judge = judge.clone();
            let request = item.request.clone();
            running.spawn(async move { (index, judge.judge(request).await) });
        }
        let mut outcomes: Vec<Option<JudgeOutcome>> = vec![None; prepared.len()];
        while let Some(joined) = running.join_next().await {
            let (index, result) = joined.context("a judge call failed inside proctor")?;
            let item = &prepared[index];
            // Dropping the set on return aborts the calls still running.
            outcomes[index] = Some(
                result.map_err(|e| failure(&format!("{} (item {})", item.place, item.id), e))?,
            );
        }
        let items = prepared
            .into_iter()
            .zip(outcomes)
            .map(|(item, outcome)| LabelledItem {
                item: item.id,
                attempt: None,
                humans: item.humans,
                judge: verdict(outcome.expect("every item was judged")),
            })
            .collect();
        Ok(Judged { items, judge: name })
    })
}

/// Exit 3 for the judge being unreachable or a cassette miss, exit 2 for bad configuration.
fn failure(place: &str, error: JudgeError) -> anyhow::Error {
    if error.is_infrastructure() {
        crate::exit::infrastructure(place, error)
    } else {
        crate::exit::bad_input!("{place}: {error}")
    }
}

fn verdict(outcome: JudgeOutcome) -> JudgeVerdict {
    match outcome.verdict {
        Some(decision) => JudgeVerdict::Decided {
            label: match decision {
                Decision::Pass => Label::Pass,
                Decision::Fail => Label::Fail,
            },
            reasoning: outcome.reasoning,
        },
        None => JudgeVerdict::Undecided(
            outcome
                .error
                .unwrap_or_else(|| "the judge gave no verdict".to_owned()),
        ),
    }
}

fn read_set(path: &Path, problems: &mut InputProblems) -> anyhow::Result<Vec<Prepared>> {
    let name = path.display();
    let file = std::fs::File::open(path)
        .with_input_context(|| format!("{name}: cannot read the calibration set"))?;
    let base = path.parent().unwrap_or(Path::new("")).to_owned();
    let mut prepared = Vec::new();
    let mut ids: HashMap<String, usize> = HashMap::new();
    let mut lines = 0;
    for (index, line) in BufReader::new(file).lines().enumerate() {
        let number = index + 1;
        let line = line.with_input_context(|| format!("{name}:{number}: cannot read"))?;
        if line.trim().is_empty() {
            continue;
        }
        lines += 1;
        let place = format!("{name}:{number}");
        let item: SetItem = match serde_json::from_str(&line) {
            Ok(item) => item,
            Err(e) => {
                problems.report(format!("{place}: {e}"));
                continue;
            }
        };
        if let Some(first) = ids.get(&item.id) {
            problems.report(format!(
                "{place}: duplicate id {:?} (first on line {first}); this line is skipped",
                item.id
            ));
            continue;
        }
        ids.insert(item.id.clone(), number);
        match prepare(item, &base, place.clone()) {
            Ok(item) => prepared.push(item),
            Err(e) => problems.report(format!("{place}: {e}")),
        }
    }
    if lines == 0 {
        crate::exit::bail_input!("{name}: the calibration set is empty");
    }
    Ok(prepared)
}

/// Checks an item and builds its judge request (writing `files` into a temporary folder).
fn prepare(item: SetItem, base: &Path, place: String) -> Result<Prepared, String> {
    let humans = humans(&item.human)?;
    let (sandbox, kept) = match (&item.files, &item.dir) {
        (Some(_), Some(_)) => {
            return Err(format!(
                "item {:?} has both `files` and `dir`; give one",
                item.id
            ));
        }
        (Some(files), None) => {
            let dir = write_files(files).map_err(|e| format!("item {:?}: {e}", item.id))?;
            (Some(dir.path().to_owned()), Some(dir))
        }
        (None, Some(dir)) => {
            let dir = base.join(dir);
            if !dir.is_dir() {
                return Err(format!(
                    "item {:?}: `dir` {} is not a folder",
                    item.id,
                    dir.display()
                ));
            }
            (Some(dir), None)
        }
        (None, None) => (None, None),
    };
    Ok(Prepared {
        place,
        humans,
        request: JudgeRequest {
            rubric: item.rubric,
            input: item.input,
            answer: item.answer,
            judge_files: item.judge_files,
            sandbox,
            seed: Seed::default(),
        },
        id: item.id,
        _sandbox: kept,
    })
}

/// `human`: one label, or labels by rater.
fn humans(value: &Value) -> Result<Vec<HumanLabel>, String> {
    let label = |v: &Value| -> Result<Label, String> {
        match v {
            Value::String(text) => text.parse().map_err(|e| format!("`human`: {e}")),
            Value::Number(n) => n.to_string().parse().map_err(|e| format!("`human`: {e}")),
            other => Err(format!(
                "`human`: {other} is not a label; expected PASS or FAIL (any case), or 1 or 0"
            )),
        }
    };
    match value {
        Value::Object(by_rater) if by_rater.is_empty() => Err("`human` has no labels".to_owned()),
        Value::Object(by_rater) => by_rater
            .iter()
            .map(|(rater, v)| {
                Ok(HumanLabel {
                    rater: Some(rater.clone()),
                    label: label(v).map_err(|e| format!("{e} (rater {rater})"))?,
                })
            })
            .collect(),
        other => Ok(vec![HumanLabel {
            rater: None,
            label: label(other)?,
        }]),
    }
}

/// Writes `files` into a fresh folder; paths must stay inside it.
fn write_files(files: &BTreeMap<String, String>) -> Result<tempfile::TempDir, String> {
    let dir = tempfile::Builder::new()
        .prefix("proctor-calibrate-")
        .tempdir()
        .map_err(|e| format!("cannot create a temporary folder: {e}"))?;
    for (relative, text) in files {
        let inside = !relative.is_empty()
            && Path::new(relative)
                .components()
                .all(|c| matches!(c, Component::Normal(_) | Component::CurDir));
        if !inside {
            return Err(format!(
                "file path {relative:?} must be relative and stay inside the folder"
            ));
        }
        let path = dir.path().join(relative);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|e| format!("{relative}: {e}"))?;
        }
        std::fs::write(&path, text).map_err(|e| format!("{relative}: {e}"))?;
    }
    Ok(dir)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn human_is_a_label_or_labels_by_rater() {
        assert_eq!(humans(&json!("pass")).unwrap()[0].label, Label::Pass);
        assert_eq!(humans(&json!(0)).unwrap()[0].label, Label::Fail);
        let raters = humans(&json!({"ann": "PASS", "bo": "fail"})).unwrap();
        assert_eq!(raters.len(), 2);
        assert_eq!(raters[1].rater.as_deref(), Some("bo"));
        assert!(
            humans(&json!("maybe"))
                .unwrap_err()
                .contains("\"maybe\" is not a label")
        );
        assert!(
            humans(&json!({"ann": true}))
                .unwrap_err()
                .contains("rater ann")
        );
        assert!(humans(&json!({})).is_err());
    }

    #[test]
    fn files_may_not_leave_their_folder() {
        let ok = BTreeMap::from([("logs/a.log".to_owned(), "x".to_owned())]);
        let dir = write_files(&ok).unwrap();
        assert_eq!(
            std::fs::read_to_string(dir.path().join("logs/a.log")).unwrap(),
            "x"
        );
        for bad in ["../escape", "/etc/passwd", ""] {
            let files = BTreeMap::from([(bad.to_owned(), String::new())]);
            assert!(write_files(&files).is_err(), "{bad:?}");
        }
    }
}
