//! The one pass over result files that the page is built from.
//!
//! Each accepted line is written into the page as it is read (bounded, escaped), with its
//! fields as they are on disk, so fields this version does not model still show. Beside it
//! the pass keeps a small index row (task, agent, attempt, outcome, variant, reason kinds)
//! that the page filters on without parsing every attempt, and one summary per agent, built
//! by the same code as `--format json`.

use super::bound::{EMBED_AS_IS_BYTES, bound_attempt};
use super::embed::push_escaped;
use super::end_state::{EndStateDir, EndStateLister};
use crate::duplicates::Duplicates;
use crate::results_file::{LineAt, for_each_result_at};
use proctor_core::compare::{CompareOptions, Side, SideBuilder, compare};
use proctor_core::summary::SummaryBuilder;
use serde::Serialize;
use serde_json::Value;
use std::collections::{BTreeMap, HashMap};
use std::io::Write;
use std::path::PathBuf;

/// The agent name shown for results that carry no label.
pub const NO_LABEL: &str = "(no label)";
/// Skipped lines listed one by one in the page; the rest are counted.
const SHOWN_SKIPPED: usize = 50;

/// How attempts are grouped into agents.
#[derive(Debug, Clone)]
pub enum Grouping {
    /// By each line's `label`.
    ByLabel,
    /// By the file a line came from, one name per file (`compare OLD NEW`).
    ByFile(Vec<String>),
}

/// Distinct strings numbered in order of first appearance.
#[derive(Debug, Default, Serialize)]
#[serde(transparent)]
struct Names {
    names: Vec<String>,
    #[serde(skip)]
    numbers: HashMap<String, usize>,
}

impl Names {
    fn number(&mut self, name: &str) -> usize {
        if let Some(&n) = self.numbers.get(name) {
            return n;
        }
        let n = self.names.len();
        self.names.push(name.to_owned());
        self.numbers.insert(name.to_owned(), n);
        n
    }
}

/// What the pass learned, besides the attempts it wrote.
#[derive(Debug, Default)]
pub struct Pass {
    pub tasks: Vec<String>,
    pub agents: Vec<String>,
    pub reason_kinds: Vec<String>,
    pub variants: Vec<String>,
    /// One row per attempt written, in the same order.
    pub index: Vec<IndexRow>,
    /// One scorecard per agent: the summary `--format json` prints for that agent's lines.
    pub scorecards: BTreeMap<String, Value>,
    /// The comparison of two labels, when the results hold exactly two.
    pub comparison: Option<Value>,
    /// What the page left out or could not compute, for the reader.
    pub notes: Vec<String>,
}

/// One attempt as the page's filters see it.
#[derive(Debug, Serialize)]
pub struct IndexRow(
    /// Task number.
    usize,
    /// Agent number.
    usize,
    /// Attempt.
    u64,
    /// 0 passed, 1 failed, 2 ungraded.
    u8,
    /// Variant number, or -1 for a base task.
    i64,
    /// Reason kinds (`rule`, `wrong answer`, ...), by number.
    Vec<usize>,
);

/// The part of a reason before its first `": "`: `rule`, `end state`, `error`, or the whole
/// reason when it has no detail (`wrong answer`, `over budget`).
pub fn reason_kind(reason: &str) -> &str {
    reason.split_once(": ").map_or(reason, |(kind, _)| kind)
}

/// The variant of an attempt: its `variant` field, else the part of its task id after `@`.
fn variant_of(attempt: Option<&Value>, task: &str) -> Option<String> {
    match attempt.and_then(|a| a.get("variant")) {
        Some(Value::String(name)) => Some(name.clone()),
        _ => task.split_once('@').map(|(_, v)| v.to_owned()),
    }
}

/// Reads every result line of `files`, writes each accepted one to `out` (one per line), and
/// returns what the page needs besides them.
pub fn write_attempts(
    out: &mut dyn Write,
    files: &[PathBuf],
    grouping: &Grouping,
    k: Option<u64>,
    end_states: Option<&EndStateDir>,
    duplicates: Duplicates,
) -> anyhow::Result<Pass> {
    // One line per attempt, as the command that made the page counted them: across the
    // files for agents by label, within each file for agents by file (`compare OLD NEW`).
    let mut across = match grouping {
        Grouping::ByLabel => Some(duplicates.filter(files)?),
        Grouping::ByFile(_) => None,
    };
    let mut end_states = end_states.map(EndStateLister::new);
    let mut tasks = Names::default();
    let mut agents = Names::default();
    let mut kinds = Names::default();
    let mut variants = Names::default();
    let mut index = Vec::new();
    let mut builders: BTreeMap<String, SummaryBuilder> = BTreeMap::new();
    let mut sides: BTreeMap<String, Result<SideBuilder, String>> = BTreeMap::new();
    let mut notes = Vec::new();
    let mut skipped = 0usize;
    // Torn last lines, dropped as every reader drops them.
    let mut torn = Vec::new();
    let mut cut_attempts = 0usize;
    let mut text = Vec::new();
    let mut escaped = Vec::new();
    for (file_number, file) in files.iter().enumerate() {
        let mut own = match across {
            None => Some(duplicates.filter(std::slice::from_ref(file))?),
            Some(_) => None,
        };
        for_each_result_at(
            std::slice::from_ref(file),
            |at, _, line_text, line| {
                let admitted = match (across.as_mut(), own.as_mut()) {
                    (Some(filter), _) => filter.admit(
                        LineAt {
                            file: file_number,
                            ..at
                        },
                        &line,
                    )?,
                    (None, Some(filter)) => filter.admit(at, &line)?,
                    (None, None) => true,
                };
                if !admitted {
                    return Ok(());
                }
                let agent = match grouping {
                    Grouping::ByFile(names) => names[file_number].clone(),
                    Grouping::ByLabel => line.label.clone().unwrap_or_else(|| NO_LABEL.into()),
                };
                builders.entry(agent.clone()).or_default().add(&line);
                if matches!(grouping, Grouping::ByLabel) {
                    let side = sides
                        .entry(agent.clone())
                        .or_insert_with(|| Ok(SideBuilder::new(Side::Old, agent.clone())));
                    if let Ok(builder) = side
                        && let Err(e) = builder.add(&line)
                    {
                        *side = Err(e.to_string());
                    }
                }
                // Most lines go into the page as they are; a long one, one that names a
                // variant, or one that gets its end state listed is read as a value first.
                let as_is = line_text.len() <= EMBED_AS_IS_BYTES
                    && end_states.is_none()
                    && !line_text.contains("\"variant\"");
                let mut variant = variant_of(None, &line.task);
                text.clear();
                if as_is {
                    text.extend_from_slice(line_text.as_bytes());
                } else {
                    let mut attempt: Value =
                        serde_json::from_str(line_text).unwrap_or_else(|_| Value::Null);
                    if bound_attempt(&mut attempt) > 0 {
                        cut_attempts += 1;
                    }
                    // Listed after the cuts: the listing is bounded by limits of its own.
                    if let (Some(lister), Value::Object(fields)) =
                        (end_states.as_mut(), &mut attempt)
                        && !fields.contains_key("end_state")
                        && let Some(listing) =
                            lister.listing(&line.task, line.label.as_deref(), line.attempt)
                    {
                        fields.insert("end_state".to_owned(), listing);
                    }
                    variant = variant_of(Some(&attempt), &line.task);
                    serde_json::to_writer(&mut text, &attempt).expect("a JSON value serialises");
                }
                let variant = variant.map_or(-1, |v| variants.number(&v) as i64);
                let mut reason_numbers: Vec<usize> = line
                    .reasons
                    .iter()
                    .map(|r| kinds.number(reason_kind(r)))
                    .collect();
                reason_numbers.sort_unstable();
                reason_numbers.dedup();
                index.push(IndexRow(
                    tasks.number(&line.task),
                    agents.number(&agent),
                    line.attempt,
                    match line.passed {
                        Some(true) => 0,
                        Some(false) => 1,
                        None => 2,
                    },
                    variant,
                    reason_numbers,
                ));
                escaped.clear();
                push_escaped(&mut escaped, &text);
                escaped.push(b'\n');
                out.write_all(&escaped)
                    .map_err(|e| crate::exit::infrastructure("the HTML report", e))
            },
            |bad| {
                skipped += 1;
                if skipped <= SHOWN_SKIPPED {
                    notes.push(format!("left out {bad}"));
                }
            },
            |dropped| torn.push(format!("left out {dropped}")),
        )?;
    }
    notes.append(&mut torn);
    if skipped > SHOWN_SKIPPED {
        notes.push(format!(
            "left out {} more unreadable result lines",
            skipped - SHOWN_SKIPPED
        ));
    }
    if cut_attempts > 0 {
        notes.push(format!(
            "{cut_attempts} attempt{} too large to show whole: each says what was cut",
            if cut_attempts == 1 { " was" } else { "s were" }
        ));
    }
    let mut scorecards = BTreeMap::new();
    for (agent, builder) in builders {
        match builder.finish(k) {
            Ok(summary) => {
                let mut value = serde_json::to_value(&summary).expect("a summary serialises");
                if let Value::Object(fields) = &mut value {
                    let shown = crate::render::shown::summary_shown(&summary);
                    fields.insert("shown".to_owned(), Value::Object(shown));
                    if let Some(Value::Array(tasks)) = fields.get_mut("per_task") {
                        for (task, figures) in tasks.iter_mut().zip(&summary.per_task) {
                            if let Value::Object(task) = task {
                                let shown = crate::render::shown::task_shown(figures);
                                task.insert("shown".to_owned(), Value::Object(shown));
                            }
                        }
                    }
                }
                scorecards.insert(agent, value);
            }
            Err(e) => notes.push(format!("no scorecard for {agent}: {e}")),
        }
    }
    let comparison = compare_two_labels(sides, &mut notes);
    Ok(Pass {
        tasks: tasks.names,
        agents: agents.names,
        reason_kinds: kinds.names,
        variants: variants.names,
        index,
        scorecards,
        comparison,
        notes,
    })
}

/// With exactly two labels, the first in sorted order is the old version and the second the
/// new one, compared as `proctor compare` compares two files.
fn compare_two_labels(
    sides: BTreeMap<String, Result<SideBuilder, String>>,
    notes: &mut Vec<String>,
) -> Option<Value> {
    if sides.len() != 2 {
        return None;
    }
    let mut sides = sides.into_iter();
    let (old_name, old) = sides.next()?;
    let (new_name, new) = sides.next()?;
    let (old, new) = match (old, new) {
        (Ok(old), Ok(new)) => (old, new),
        (Err(e), _) | (_, Err(e)) => {
            notes.push(format!("no comparison of {old_name} and {new_name}: {e}"));
            return None;
        }
    };
    // Both were tallied as they were read, before it was known which is which.
    let mut new = new.finish();
    new.side = Side::New;
    match compare(old.finish(), new, &CompareOptions::default()) {
        Ok(comparison) => Some(crate::render::compare::json::value(&comparison)),
        Err(e) => {
            notes.push(format!("no comparison of {old_name} and {new_name}: {e}"));
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn line(
        task: &str,
        attempt: u64,
        label: &str,
        passed: Option<bool>,
        reasons: &[&str],
    ) -> String {
        json!({"format": "proctor.result/1", "task": task, "attempt": attempt, "label": label,
               "passed": passed, "reasons": reasons, "status": "final", "task_digest": "sha256:t"})
        .to_string()
    }

    #[test]
    fn reason_kinds_are_the_part_before_the_detail() {
        assert_eq!(
            reason_kind("rule: refund at step 2 has no earlier check"),
            "rule"
        );
        assert_eq!(reason_kind("end state: a.txt: missing"), "end state");
        assert_eq!(reason_kind("wrong answer"), "wrong answer");
    }

    #[test]
    fn one_pass_indexes_every_attempt_scores_each_agent_and_compares_two() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.jsonl");
        let text = [
            line("a", 0, "v2", Some(true), &[]),
            line(
                "a",
                0,
                "v1",
                Some(false),
                &["rule: x at step 1", "wrong answer"],
            ),
            line("b@pushy", 0, "v2", None, &["judge error: timeout"]),
            line("b@pushy", 0, "v1", Some(true), &[]),
            r#"{"format": "proctor.result/9", "task": "a", "passed": true}"#.to_owned(),
            "{\"task\": \"cut".to_owned(),
        ]
        .join("\n");
        std::fs::write(&path, text).unwrap();
        let mut out = Vec::new();
        let pass = write_attempts(
            &mut out,
            &[path],
            &Grouping::ByLabel,
            None,
            None,
            Duplicates::First,
        )
        .unwrap();
        let out = String::from_utf8(out).unwrap();
        assert_eq!(out.lines().count(), 4);
        assert_eq!(pass.tasks, ["a", "b@pushy"]);
        assert_eq!(pass.agents, ["v2", "v1"]);
        assert_eq!(pass.variants, ["pushy"]);
        assert_eq!(pass.reason_kinds, ["rule", "wrong answer", "judge error"]);
        let rows = serde_json::to_value(&pass.index).unwrap();
        assert_eq!(
            rows,
            json!([
                [0, 0, 0, 0, -1, []],
                [0, 1, 0, 1, -1, [0, 1]],
                [1, 0, 0, 2, 0, [2]],
                [1, 1, 0, 0, 0, []]
            ])
        );
        assert_eq!(pass.scorecards["v2"]["passed"], 1);
        assert_eq!(pass.scorecards["v2"]["ungraded"], 1);
        assert_eq!(pass.scorecards["v1"]["failed"], 1);
        // The first label in sorted order is the old version.
        let comparison = pass.comparison.unwrap();
        assert_eq!(
            (
                comparison["old"]["file"].as_str(),
                comparison["new"]["file"].as_str()
            ),
            (Some("v1"), Some("v2"))
        );
        assert_eq!(pass.notes.len(), 2, "{:?}", pass.notes);
        assert!(pass.notes[0].contains("r.jsonl:5: format \"proctor.result/9\" is newer"));
        assert!(pass.notes[1].contains("r.jsonl:6:"));
    }
}
