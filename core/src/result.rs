//! The `proctor.result/1` on-disk format: one JSON line per attempt.
//!
//! Every writer and reader of result files goes through this module, so the format
//! has one definition. Readers accept older lines (no `format` field, `task_id` for
//! `task`, `run` for `attempt`) and refuse lines from a newer major version rather than
//! misreading them.

use crate::grade::{CheckResult, Diagnosis, Grade};
use crate::outcome::{AgentError, Outcome, Status, Step};
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The format tag written on every line.
pub const RESULT_FORMAT: &str = "proctor.result/1";
const FORMAT_PREFIX: &str = "proctor.result/";
const FORMAT_VERSION: u32 = 1;

/// Money and tokens spent on one attempt.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Cost {
    /// Total USD for priced calls; `None` when nothing was priced.
    #[serde(default, with = "rust_decimal::serde::str_option")]
    pub usd: Option<Decimal>,
    /// Every billed token once, all roles.
    #[serde(default)]
    pub tokens: u64,
    /// Model calls with no price: their cost is unknown, never 0.
    #[serde(default)]
    pub unpriced_calls: u64,
}

/// When the attempt ran and for how long.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Timings {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub started_at: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<u64>,
}

/// One result line.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ResultLine {
    #[serde(default = "older_format")]
    pub format: String,
    #[serde(alias = "task_id")]
    pub task: String,
    #[serde(default, alias = "run")]
    pub attempt: u64,
    #[serde(default)]
    pub label: Option<String>,
    /// `null` when ungraded.
    pub passed: Option<bool>,
    #[serde(default)]
    pub reasons: Vec<String>,
    #[serde(default)]
    pub diagnosis: Option<Diagnosis>,
    #[serde(default)]
    pub checks: Vec<CheckResult>,
    // The outcome fields.
    #[serde(default)]
    pub status: Option<Status>,
    #[serde(default)]
    pub answer: Option<String>,
    #[serde(default)]
    pub tool_calls: u64,
    #[serde(default)]
    pub tools_used: Vec<String>,
    #[serde(default)]
    pub trajectory: Vec<Step>,
    #[serde(default)]
    pub steps: u64,
    #[serde(default)]
    pub error: Option<AgentError>,
    #[serde(default)]
    pub usage: Vec<Value>,
    // Per-run numbers that are reported, never gated.
    #[serde(default)]
    pub step_efficiency: Option<f64>,
    #[serde(default)]
    pub tool_correctness: Option<f64>,
    /// The judge's verdict with its provenance, when the task has a rubric.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub judge: Option<Value>,
    #[serde(default)]
    pub cost: Cost,
    #[serde(default)]
    pub timings: Timings,
    #[serde(default)]
    pub task_digest: String,
}

fn older_format() -> String {
    format!("{FORMAT_PREFIX}0")
}

/// Why a result line could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ResultError {
    #[error("{0}")]
    Json(#[from] serde_json::Error),
    #[error("format {found:?} is newer than this proctor reads ({RESULT_FORMAT}); upgrade proctor")]
    Newer { found: String },
    #[error("format {found:?} is not a proctor result")]
    Foreign { found: String },
}

impl ResultLine {
    /// Builds the line for a graded attempt.
    pub fn new(
        task: &str,
        attempt: u64,
        label: Option<String>,
        outcome: Outcome,
        grade: Grade,
    ) -> Self {
        ResultLine {
            format: RESULT_FORMAT.to_owned(),
            task: task.to_owned(),
            attempt,
            label,
            passed: grade.passed,
            reasons: grade.reasons,
            diagnosis: grade.diagnosis,
            checks: grade.checks,
            status: outcome.status,
            answer: outcome.answer,
            tool_calls: outcome.tool_calls,
            tools_used: outcome.tools_used,
            trajectory: outcome.trajectory,
            steps: outcome.steps,
            error: outcome.error,
            usage: outcome.usage,
            step_efficiency: grade.step_efficiency,
            tool_correctness: grade.tool_correctness,
            judge: None,
            cost: Cost::default(),
            timings: Timings::default(),
            task_digest: String::new(),
        }
    }

    /// Reads one line, checking its format version.
    pub fn parse(line: &str) -> Result<ResultLine, ResultError> {
        let parsed: ResultLine = serde_json::from_str(line)?;
        let version = parsed
            .format
            .strip_prefix(FORMAT_PREFIX)
            .and_then(|v| v.parse::<u32>().ok())
            .ok_or_else(|| ResultError::Foreign {
                found: parsed.format.clone(),
            })?;
        if version > FORMAT_VERSION {
            return Err(ResultError::Newer {
                found: parsed.format,
            });
        }
        Ok(parsed)
    }

    /// Writes the line as compact JSON (no trailing newline).
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("a result line always serialises")
    }

    /// True when the status was not `final`.
    pub fn aborted(&self) -> bool {
        self.status != Some(Status::Final)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_keeps_everything() {
        let line = ResultLine {
            cost: Cost {
                usd: Some(Decimal::new(54399, 6)),
                tokens: 12857,
                unpriced_calls: 0,
            },
            ..ResultLine::new(
                "t",
                2,
                Some("v1".into()),
                Outcome::default(),
                Grade {
                    passed: None,
                    reasons: vec!["judge error: timeout".into()],
                    checks: vec![],
                    diagnosis: None,
                    step_efficiency: Some(0.5),
                    tool_correctness: None,
                },
            )
        };
        let text = line.to_json();
        assert!(text.starts_with("{\"format\":\"proctor.result/1\""));
        assert!(text.contains("\"usd\":\"0.054399\""));
        assert_eq!(ResultLine::parse(&text).unwrap(), line);
    }

    #[test]
    fn older_lines_are_accepted() {
        let old = ResultLine::parse(r#"{"task_id": "a", "run": 3, "passed": true}"#).unwrap();
        assert_eq!(old.task, "a");
        assert_eq!(old.attempt, 3);
        assert_eq!(old.format, "proctor.result/0");
    }

    #[test]
    fn newer_and_foreign_lines_are_refused() {
        let newer =
            ResultLine::parse(r#"{"format": "proctor.result/2", "task": "a", "passed": true}"#);
        assert!(matches!(newer, Err(ResultError::Newer { .. })));
        let foreign = ResultLine::parse(r#"{"format": "other/1", "task": "a", "passed": true}"#);
        assert!(matches!(foreign, Err(ResultError::Foreign { .. })));
    }
}
