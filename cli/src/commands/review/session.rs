//! A review in progress: the offered attempts, the labels file and this rater, and what the
//! page asks of them (the state, one attempt's detail, a new label).

use super::attempts::Attempt;
use super::labels_file::{AppendError, LabelsFile, NewLabel, StoredLabel};
use super::sample::Plan;
use super::{detail, live};
use crate::judging::Seeds;
use proctor_core::calibrate::Label;
use proctor_core::task::Suite;
use serde::Deserialize;
use serde_json::{Value, json};
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Mutex;

/// The longest note kept, in characters.
pub const MAX_NOTE_CHARS: usize = 2000;

#[derive(Debug)]
pub struct Session {
    /// In the order offered.
    pub attempts: Vec<Attempt>,
    pub plan: Option<Plan>,
    pub labels: LabelsFile,
    pub rater: String,
    pub show_judge: bool,
    pub results: Vec<PathBuf>,
    pub suite: Option<Suite>,
    pub seeds: Mutex<Seeds>,
}

/// A label as the page posts it.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PostedLabel {
    /// The attempt's place in the offered list.
    pub index: usize,
    pub human: String,
    #[serde(default)]
    pub note: String,
}

/// Why a label was not saved, by HTTP status.
#[derive(Debug)]
pub enum Refusal {
    /// 400: the request is not a label of an offered attempt.
    Bad(String),
    /// 409: this rater already labelled the attempt.
    Conflict(String),
    /// 500: the file could not be read or written.
    Failed(String),
}

impl Session {
    /// Everything the page lays out but the attempts' contents: the list with each
    /// attempt's label count and this rater's label, the plan, and the calibration now.
    pub fn state(&self) -> anyhow::Result<Value> {
        let labels = self.labels.read()?;
        Ok(self.state_of(&labels))
    }

    fn state_of(&self, labels: &[StoredLabel]) -> Value {
        let mut counts: HashMap<(&str, u64), u64> = HashMap::new();
        let mut mine: HashMap<(&str, u64), &StoredLabel> = HashMap::new();
        for label in labels {
            *counts.entry((&label.task, label.attempt)).or_default() += 1;
            if label.rater == self.rater {
                mine.entry((&label.task, label.attempt)).or_insert(label);
            }
        }
        let attempts: Vec<Value> = self
            .attempts
            .iter()
            .map(|a| {
                let key = (a.task.as_str(), a.attempt);
                let mut entry = json!({
                    "task": a.task,
                    "attempt": a.attempt,
                    "agent": a.agent,
                    "labels": counts.get(&key).copied().unwrap_or(0),
                    "mine": mine.get(&key).map(|l| json!({
                        "human": l.human.name(),
                        "note": l.note,
                        "timestamp": l.timestamp,
                    })),
                });
                if self.show_judge {
                    entry["judge"] = json!(a.judge.name());
                }
                entry
            })
            .collect();
        let human_pass = labels.iter().filter(|l| l.human.is_pass()).count();
        json!({
            "rater": self.rater,
            "labels_file": self.labels.path().display().to_string(),
            "show_judge": self.show_judge,
            "attempts": attempts,
            "plan": self.plan,
            "totals": {
                "labels": labels.len(),
                "human_pass": human_pass,
                "human_fail": labels.len() - human_pass,
                "mine": labels.iter().filter(|l| l.rater == self.rater).count(),
                "raters": labels.iter().map(|l| l.rater.as_str()).collect::<std::collections::BTreeSet<_>>().len(),
            },
            "calibration_command": live::command(&self.results, self.labels.path()),
            "calibration": live::calibration(&self.results, self.labels.path(), labels.len()),
        })
    }

    /// The detail of the attempt at `index`.
    pub fn detail(&self, index: usize) -> Option<anyhow::Result<Value>> {
        let attempt = self.attempts.get(index)?;
        Some(detail::detail(
            attempt,
            self.suite.as_ref(),
            &self.seeds,
            self.show_judge,
        ))
    }

    /// Appends a label (synced to disk) and returns the new state.
    pub fn label(&self, posted: PostedLabel) -> Result<Value, Refusal> {
        let attempt = self.attempts.get(posted.index).ok_or_else(|| {
            Refusal::Bad(format!("no attempt number {} is offered", posted.index))
        })?;
        let human = match posted.human.as_str() {
            "PASS" => Label::Pass,
            "FAIL" => Label::Fail,
            other => {
                return Err(Refusal::Bad(format!(
                    "human {other:?}: send PASS or FAIL (a skip is not sent)"
                )));
            }
        };
        if posted.note.chars().count() > MAX_NOTE_CHARS {
            return Err(Refusal::Bad(format!(
                "the note is longer than {MAX_NOTE_CHARS} characters"
            )));
        }
        let label = NewLabel {
            task: &attempt.task,
            attempt: attempt.attempt,
            human,
            rater: &self.rater,
            note: posted.note.trim(),
        };
        match self.labels.append(&label) {
            Ok(labels) => Ok(self.state_of(&labels)),
            Err(e @ AppendError::AlreadyLabelled { .. }) => Err(Refusal::Conflict(e.to_string())),
            Err(AppendError::Io(e)) => Err(Refusal::Failed(format!("{e:#}"))),
        }
    }
}
