//! `--verdicts R.jsonl --labels L.csv`: joins human labels with the judge verdicts already
//! recorded in result lines, by task and attempt.
//!
//! The verdict is the result line's `judge.verdict` (with `judge.reasoning`), as the judge
//! writes it. A line without a `judge` field falls back to its grade: a `rubric: FAIL` reason
//! is a FAIL, a `judge error: ...` reason is undecided, and a passed run is a PASS (every gate
//! held, the rubric's included). Anything else has no verdict and is listed as undecided.

use super::labels::LabelRow;
use super::problems::InputProblems;
use crate::exit::InputContext;
use proctor_core::calibrate::{HumanLabel, JudgeVerdict, Label, LabelledItem, recorded_verdict};
use proctor_core::result::ResultLine;
use serde_json::Value;
use std::collections::{BTreeSet, HashMap};
use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};

type Key = (String, u64);

/// The joined items, in the order of the label file, and the judges that gave the verdicts.
#[derive(Debug)]
pub struct Joined {
    pub items: Vec<LabelledItem>,
    pub judges: Vec<String>,
}

/// A labelled attempt's verdict, once found.
struct Found {
    place: String,
    verdict: JudgeVerdict,
}

pub fn join(
    verdict_files: &[PathBuf],
    labels_file: &Path,
    labels: Vec<LabelRow>,
    problems: &mut InputProblems,
) -> anyhow::Result<Joined> {
    let mut order: Vec<Key> = Vec::new();
    let mut rows: HashMap<Key, Vec<LabelRow>> = HashMap::new();
    for row in labels {
        let key = (row.task.clone(), row.attempt);
        rows.entry(key.clone())
            .or_insert_with(|| {
                order.push(key);
                Vec::new()
            })
            .push(row);
    }
    let mut found: HashMap<Key, Found> = HashMap::new();
    let mut judges = BTreeSet::new();
    for path in verdict_files {
        read_lines(path, |number, line| {
            let line = match line {
                Ok(line) => line,
                Err(e) => {
                    problems.report(format!("{}:{number}: {e}", path.display()));
                    return;
                }
            };
            let key = (line.task.to_string(), line.attempt);
            if !rows.contains_key(&key) {
                return;
            }
            let place = format!("{}:{number}", path.display());
            if let Some(first) = found.get(&key) {
                problems.report(format!(
                    "{place}: task {} attempt {} appears again (first at {}): the labels cannot say which run they mean; the first is used",
                    key.0, key.1, first.place
                ));
                return;
            }
            judges.extend(judge_name(&line));
            found.insert(
                key,
                Found {
                    place,
                    verdict: verdict_of(&line),
                },
            );
        })?;
    }
    let files = verdict_files
        .iter()
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>()
        .join(", ");
    let mut items = Vec::new();
    for key in order {
        let rows = rows.remove(&key).expect("every key has rows");
        let Some(found) = found.remove(&key) else {
            let more = match rows.len() {
                1 => String::new(),
                n => format!(
                    " (and {} more label{})",
                    n - 1,
                    if n == 2 { "" } else { "s" }
                ),
            };
            problems.report(format!(
                "{}:{}: no result line for task {} attempt {} in {files}; the label{more} is skipped",
                labels_file.display(),
                rows[0].line,
                key.0,
                key.1
            ));
            continue;
        };
        items.push(LabelledItem {
            item: key.0,
            attempt: Some(key.1),
            humans: rows
                .into_iter()
                .map(|r| HumanLabel {
                    rater: r.rater,
                    label: r.label,
                })
                .collect(),
            judge: found.verdict,
        });
    }
    Ok(Joined {
        items,
        judges: judges.into_iter().collect(),
    })
}

/// The recorded verdict, with the fallback for lines graded without a `judge` field.
fn verdict_of(line: &ResultLine) -> JudgeVerdict {
    recorded_verdict(line).unwrap_or_else(|| {
        if line.passed == Some(true) {
            JudgeVerdict::Decided {
                label: Label::Pass,
                reasoning: String::new(),
            }
        } else {
            JudgeVerdict::Undecided(
                "no judge verdict recorded (no `judge` field, no `rubric: FAIL` reason, and the run did not pass)"
                    .to_owned(),
            )
        }
    })
}

/// `provider/model (template)` of the judge's first sample, when recorded.
fn judge_name(line: &ResultLine) -> Option<String> {
    let provenance = line
        .judge
        .as_ref()?
        .get("samples")?
        .get(0)?
        .get("provenance")?;
    let field = |name: &str| provenance.get(name).and_then(Value::as_str);
    let mut text = format!("{}/{}", field("provider")?, field("model")?);
    if let Some(template) = field("template_version") {
        text.push_str(&format!(" ({template})"));
    }
    Some(text)
}

/// Streams a result file's lines with their numbers, blank lines left out.
fn read_lines(
    path: &Path,
    mut each: impl FnMut(usize, Result<ResultLine, String>),
) -> anyhow::Result<()> {
    let file = File::open(path)
        .with_input_context(|| format!("{}: cannot read verdicts", path.display()))?;
    let mut reader = BufReader::with_capacity(1 << 16, file);
    let mut buffer = String::new();
    let mut number = 0;
    loop {
        buffer.clear();
        let read = reader
            .read_line(&mut buffer)
            .with_input_context(|| format!("{}:{}: cannot read", path.display(), number + 1))?;
        if read == 0 {
            return Ok(());
        }
        number += 1;
        if buffer.trim().is_empty() {
            continue;
        }
        each(
            number,
            ResultLine::parse(buffer.trim()).map_err(|e| e.to_string()),
        );
    }
}
