//! The `proctor.result/1` on-disk format: one JSON line per attempt.
//!
//! Every writer and reader of result files goes through this module, so the format
//! has one definition. Readers accept older lines (no `format` field, `task_id` for
//! `task`, `run` for `attempt`) and refuse lines from a newer major version rather than
//! misreading them.
//!
//! A line leaves out what it can say by absence: gating checks that held (see
//! [`recorded_checks`]), per-run shares that were not measured, USD that nothing priced and
//! token buckets that are 0. Every such field has a default, so a line reads back the same
//! whether it was written with them or without.

pub mod fields;
pub(crate) mod json_text;
mod negative_count;
mod write;

use crate::compact_json::CompactJson;
use crate::faults::FaultFired;
use crate::grade::{CheckResult, Diagnosis, Grade};
use crate::outcome::{AgentError, CompactString, Outcome, Status, Step, TrajectorySource};
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::borrow::Cow;

/// The format tag written on every line.
pub const RESULT_FORMAT: &str = "proctor.result/1";
const FORMAT_PREFIX: &str = "proctor.result/";
const FORMAT_VERSION: u32 = 1;

/// Money and tokens spent on one attempt.
///
/// Every field after `unpriced_calls` was added later and has a default, so older lines
/// still read. Lines written before `models` carried each call's price row also list the
/// rows in `price_ids`; [`Cost::price_ids`] gives the same from `models`.
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
    /// USD of the agent's priced calls; `None` (not written) when none was priced.
    #[serde(
        default,
        with = "rust_decimal::serde::str_option",
        skip_serializing_if = "Option::is_none"
    )]
    pub agent_usd: Option<Decimal>,
    /// USD of the judge's priced calls; `None` (not written) when none was priced.
    #[serde(
        default,
        with = "rust_decimal::serde::str_option",
        skip_serializing_if = "Option::is_none"
    )]
    pub judge_usd: Option<Decimal>,
    /// The time whose prices were used (RFC 3339, UTC).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub priced_at: Option<String>,
    /// One entry per role, provider, model, service tier and price row: what the ledger stores.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub models: Vec<ModelCost>,
}

impl Cost {
    /// Refuses a negative amount, naming its field (`cost.usd`, `cost.models[1].usd`).
    fn check(&self) -> Result<(), ResultError> {
        let negative = |field: &str, usd: Option<Decimal>| match usd {
            Some(value) if value.is_sign_negative() && !value.is_zero() => {
                Err(ResultError::NegativeCost {
                    field: field.to_owned(),
                    value,
                })
            }
            _ => Ok(()),
        };
        negative("cost.usd", self.usd)?;
        negative("cost.agent_usd", self.agent_usd)?;
        negative("cost.judge_usd", self.judge_usd)?;
        for (index, model) in self.models.iter().enumerate() {
            negative(&format!("cost.models[{index}].usd"), model.usd)?;
        }
        Ok(())
    }

    /// The price rows used, sorted, each once (e.g. `anthropic/claude-sonnet-4-6@2026-02-17`).
    pub fn price_ids(&self) -> Vec<&str> {
        let mut ids: Vec<&str> = self
            .models
            .iter()
            .filter_map(|m| m.price_id.as_deref())
            .collect();
        ids.sort_unstable();
        ids.dedup();
        ids
    }
}

/// Who made a model call: the agent under test or the judge grading it.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum CallRole {
    /// The agent under test.
    #[default]
    Agent,
    /// The LLM judge grading a rubric.
    Judge,
}

impl CallRole {
    /// The role as the line writes it (`agent`, `judge`).
    pub fn as_str(self) -> &'static str {
        match self {
            CallRole::Agent => "agent",
            CallRole::Judge => "judge",
        }
    }
}

/// The calls of one attempt to one model, summed, in disjoint token buckets.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ModelCost {
    /// Whose calls these are.
    pub role: CallRole,
    /// Inline when short (up to 24 bytes), as provider and model names mostly are.
    #[serde(default)]
    pub provider: Option<CompactString>,
    /// The model the calls named, as their usage reported it.
    #[serde(default)]
    pub model: Option<CompactString>,
    /// The service tier the calls ran on (`batch`, `flex`), when the usage named one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub service_tier: Option<String>,
    /// How many calls were summed into this entry.
    #[serde(default)]
    pub calls: u64,
    /// Input tokens billed at the plain input price (cache reads and writes apart).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub input_tokens: u64,
    /// Input tokens read from the prompt cache.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub cache_read_tokens: u64,
    /// Input tokens written to a cache that lives five minutes.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub cache_write_5m_tokens: u64,
    /// Input tokens written to a cache that lives an hour.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub cache_write_1h_tokens: u64,
    /// Output, reasoning included.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub output_tokens: u64,
    /// Already inside `output_tokens`; reported apart.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub reasoning_tokens: u64,
    /// USD of these calls; `None` when unpriced.
    #[serde(default, with = "rust_decimal::serde::str_option")]
    pub usd: Option<Decimal>,
    /// The price row used, with `+long_context` or `+<tier>` when those applied.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub price_id: Option<String>,
}

/// When the attempt ran and for how long.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Timings {
    /// When the attempt started (RFC 3339, UTC); `None` for a graded log that gave none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub started_at: Option<String>,
    /// Wall time of the attempt in milliseconds, when measured.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<u64>,
    /// When each served tool call (docs/tools.md) started and how long it took, by step;
    /// not written when the task serves no tools.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<CallTiming>,
}

/// The timing of one recorded tool call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CallTiming {
    /// The call's step in the trajectory, from 1.
    pub step: u64,
    /// When the call started (RFC 3339, UTC).
    pub started_at: String,
    /// Microseconds, since a served call often takes less than a millisecond.
    pub duration_us: u64,
}

/// How the agent process ended, for attempts proctor ran itself.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ProcessInfo {
    /// The exit code, when the process exited rather than being killed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i32>,
    /// The signal that killed the process, when one did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signal: Option<i32>,
    /// Whether proctor killed it for running past the task's time limit.
    #[serde(default)]
    pub timed_out: bool,
    /// The attempt's time limit in seconds, which a timeout's detail names whichever
    /// command settles the line again (docs/result-format.md).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_s: Option<f64>,
    /// Bytes the agent wrote to stdout (only a bounded tail is kept).
    #[serde(default)]
    pub stdout_bytes: u64,
    /// The last few lines of stderr, to see why a run crashed.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub stderr_tail: String,
}

/// One result line.
///
/// Its fields are written by hand (`write.rs`) and their names listed in [`fields::ALL`]: a
/// field added here is added to both, and set in `fixtures/result/every_field.json`, or the
/// build or the tests fail.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ResultLine {
    /// Borrowed from [`RESULT_FORMAT`] on the lines this version writes, so a line costs
    /// no allocation for it.
    #[serde(default = "older_format")]
    pub format: Cow<'static, str>,
    /// Inline when short (up to 24 bytes): a task id is copied onto every line. Read as
    /// empty when missing, so that [`ResultLine::parse`] refuses both alike.
    #[serde(default, alias = "task_id")]
    pub task: CompactString,
    /// The variant's name for an `id@NAME` task (docs/tools.md); a task as written has none
    /// (`null`, left out of the line).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub variant: Option<String>,
    /// The attempt's number within its task, from 0 (`run` on older lines).
    #[serde(default, alias = "run")]
    pub attempt: u64,
    /// The `--label` of the run (the agent version compared), when given.
    #[serde(default)]
    pub label: Option<String>,
    /// `null` when ungraded.
    pub passed: Option<bool>,
    /// Why the attempt did not pass: one reason per failed gating check, in docs/task-file.md's
    /// order; empty when it passed.
    #[serde(default)]
    pub reasons: Vec<String>,
    /// What kind of failure it was (docs/metrics.md); `None` when it passed or was not graded.
    #[serde(default)]
    pub diagnosis: Option<Diagnosis>,
    /// The checks the reasons do not account for: every check outside the gate, and
    /// every gating check that failed (see [`recorded_checks`]).
    #[serde(default)]
    pub checks: Vec<CheckResult>,
    /// The `before` and `at_most` rules whose tool the attempt never called, in a task that
    /// knows no tools (docs/metrics.md); not written when none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rules_not_applied: Vec<crate::grade::RuleNotApplied>,
    // The outcome fields.
    /// How the agent's attempt ended, as its outcome said.
    #[serde(default)]
    pub status: Option<Status>,
    /// The agent's final answer, when it gave one.
    #[serde(default)]
    pub answer: Option<String>,
    /// How many tool calls the agent made.
    #[serde(default)]
    pub tool_calls: u64,
    /// The tools the agent used, each once: as its outcome listed them, else in the order
    /// of their first call.
    #[serde(default)]
    pub tools_used: Vec<CompactString>,
    /// The graded tool calls, in order.
    #[serde(default)]
    pub trajectory: Vec<Step>,
    /// Where the graded trajectory came from; lines written before it existed were reported.
    #[serde(default)]
    pub trajectory_source: TrajectorySource,
    /// Steps whose arguments the trace did not capture (numbered from 1); not written when none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub uncaptured_args: Vec<u64>,
    /// The seeded tool faults that fired, in call order; not written when none did.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub faults_fired: Vec<FaultFired>,
    /// The `calls:` faults whose call never came; not written when none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub faults_missed: Vec<crate::faults::FaultMissed>,
    /// The other accounts of the attempt's calls (the trace, the report: whichever was not
    /// graded) when they showed any, so that grading the line again (`proctor judge`) sees
    /// what the run saw; not written when there were none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub evidence: Vec<crate::grade::Account>,
    /// How many steps the agent took, as its outcome counted them.
    #[serde(default)]
    pub steps: u64,
    /// The agent's error, when the attempt ended in one.
    #[serde(default)]
    pub error: Option<AgentError>,
    /// The usage objects of the agent's model calls, as reported, for pricing.
    #[serde(default)]
    pub usage: Vec<CompactJson>,
    // Per-run numbers that are reported, never gated; not written when there is none.
    /// `optimal_steps / steps` (docs/metrics.md), when the task gives `optimal_steps`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub step_efficiency: Option<f64>,
    /// The share of the task's `expected_tools` used (docs/metrics.md), when it lists some.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_correctness: Option<f64>,
    /// The judge's verdict with its provenance, when the task has a rubric.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub judge: Option<Value>,
    /// What the attempt cost (agent and judge).
    #[serde(default)]
    pub cost: Cost,
    /// When the attempt ran and for how long.
    #[serde(default)]
    pub timings: Timings,
    /// The digest of the task file the attempt was graded against (`sha256:…`).
    #[serde(default)]
    pub task_digest: String,
    /// The run that made the attempt: one id for every shard of a run (docs/cluster.md).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_id: Option<String>,
    /// `I/N` when a shard of a run made the attempt.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<String>,
    /// The attempt's seed, told to the agent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
    /// How the agent process ended, for attempts proctor ran itself.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub process: Option<ProcessInfo>,
}

/// The checks a result line records: those outside the gate (evaluated and reported, never
/// counted) and the gating checks that failed, with what failed.
///
/// A gating check that held is left out. `passed` and `reasons` already say it held, and the
/// task file (pinned by `task_digest`) says what it was. A log of a million lines would
/// otherwise repeat every check's description a million times: it was a third of the line.
pub fn recorded_checks(mut checks: Vec<CheckResult>) -> Vec<CheckResult> {
    checks.retain(CheckResult::on_record);
    checks
}

fn is_zero(count: &u64) -> bool {
    *count == 0
}

fn older_format() -> Cow<'static, str> {
    Cow::Owned(format!("{FORMAT_PREFIX}0"))
}

/// Why a result line could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ResultError {
    /// The line is not JSON, or not a result line's shape.
    #[error("{0}")]
    Json(#[from] serde_json::Error),
    /// A later major version of the format, which this version could misread.
    #[error("format {found:?} is newer than this proctor reads ({RESULT_FORMAT}); upgrade proctor")]
    Newer {
        /// The line's `format`.
        found: String,
    },
    /// Another program's format.
    #[error("format {found:?} is not a proctor result")]
    Foreign {
        /// The line's `format`.
        found: String,
    },
    /// No task id, or an empty one: the line could be counted under no task.
    #[error("`task` is missing or empty; every result line names its task")]
    NoTask,
    /// A count below zero (tokens, calls, the attempt), named by its key.
    #[error("`{field}` is negative ({value}); counts are whole numbers from 0")]
    NegativeCount {
        /// The key of the count (`input_tokens`).
        field: String,
        /// The number as written.
        value: String,
    },
    /// A cost below zero: no call earns money, and summing it would hide real spend.
    #[error("`{field}` is negative ({value})")]
    NegativeCost {
        /// Where the amount is (`cost.models[1].usd`).
        field: String,
        /// The amount.
        value: Decimal,
    },
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
        let tools_used = outcome.used_tools();
        ResultLine {
            format: Cow::Borrowed(RESULT_FORMAT),
            task: task.into(),
            variant: None,
            attempt,
            label,
            passed: grade.passed,
            reasons: grade.reasons,
            diagnosis: grade.diagnosis,
            checks: recorded_checks(grade.checks),
            rules_not_applied: Vec::new(),
            status: outcome.status,
            answer: outcome.answer,
            tool_calls: outcome.tool_calls,
            tools_used,
            trajectory: outcome.trajectory,
            trajectory_source: outcome.trajectory_source,
            uncaptured_args: outcome.uncaptured_args,
            faults_fired: Vec::new(),
            faults_missed: Vec::new(),
            evidence: Vec::new(),
            steps: outcome.steps,
            error: outcome.error,
            usage: outcome.usage,
            step_efficiency: grade.step_efficiency,
            tool_correctness: grade.tool_correctness,
            judge: None,
            cost: Cost::default(),
            timings: Timings::default(),
            task_digest: String::new(),
            run_id: None,
            shard: None,
            seed: None,
            process: None,
        }
    }

    /// Reads one line, checking its format version.
    pub fn parse(line: &str) -> Result<ResultLine, ResultError> {
        let parsed: ResultLine = serde_json::from_str(line).map_err(|error| {
            match negative_count::negative_count(&error, line) {
                Some((field, value)) => ResultError::NegativeCount { field, value },
                None => ResultError::Json(error),
            }
        })?;
        let version = parsed
            .format
            .strip_prefix(FORMAT_PREFIX)
            .and_then(|v| v.parse::<u32>().ok())
            .ok_or_else(|| ResultError::Foreign {
                found: parsed.format.to_string(),
            })?;
        if version > FORMAT_VERSION {
            return Err(ResultError::Newer {
                found: parsed.format.into_owned(),
            });
        }
        if parsed.task.is_empty() {
            return Err(ResultError::NoTask);
        }
        parsed.cost.check()?;
        Ok(parsed)
    }

    /// Writes the line as compact JSON (no trailing newline).
    pub fn to_json(&self) -> String {
        let mut out = Vec::with_capacity(2048);
        self.write_json(&mut out);
        String::from_utf8(out).expect("JSON text is UTF-8")
    }

    /// Appends the line as compact JSON (no trailing newline) to `out`: the text
    /// `serde_json` writes for it, written by hand because logs have millions of lines.
    pub fn write_json(&self, out: &mut Vec<u8>) {
        write::write_line(out, self);
    }

    /// The agent's outcome as recorded on this line, for grading it again.
    pub fn outcome(&self) -> Outcome {
        // Every field is named, none left to `..`: a field added to the outcome does not
        // build until the line carries it too.
        Outcome {
            status: self.status,
            answer: self.answer.clone(),
            tool_calls: self.tool_calls,
            tools_used: Some(self.tools_used.clone()),
            trajectory: self.trajectory.clone(),
            usage: self.usage.clone(),
            steps: self.steps,
            error: self.error.clone(),
            trajectory_source: self.trajectory_source,
            uncaptured_args: self.uncaptured_args.clone(),
        }
    }

    /// Replaces the grade, keeping the outcome, cost and timings.
    pub fn set_grade(&mut self, grade: Grade) {
        self.passed = grade.passed;
        self.reasons = grade.reasons;
        self.diagnosis = grade.diagnosis;
        self.checks = recorded_checks(grade.checks);
        self.step_efficiency = grade.step_efficiency;
        self.tool_correctness = grade.tool_correctness;
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
                agent_usd: Some(Decimal::new(54399, 6)),
                ..Cost::default()
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
    fn a_line_records_only_the_checks_its_reasons_do_not_account_for() {
        use crate::grade::CheckName;
        use crate::task::GateCategory;
        let check = |passed: bool, gating: bool| CheckResult {
            category: GateCategory::Process,
            check: CheckName::from(format!("passed {passed}, gating {gating}")),
            passed,
            gating,
            failure: (!passed).then(|| "rule: x".to_owned()),
            detail: (!passed).then(|| "trajectory (0 steps):".to_owned()),
            not_checked: false,
        };
        let all = vec![
            check(true, true),
            check(false, true),
            check(true, false),
            check(false, false),
        ];
        let grade = Grade {
            passed: Some(false),
            reasons: vec!["rule: x".into()],
            checks: all.clone(),
            diagnosis: None,
            step_efficiency: None,
            tool_correctness: None,
        };
        let line = ResultLine::new("t", 0, None, Outcome::default(), grade);
        assert_eq!(line.checks, all[1..]);
        assert_eq!(ResultLine::parse(&line.to_json()).unwrap(), line);
    }

    #[test]
    fn absent_numbers_are_left_out_and_read_back_as_absent() {
        let line = ResultLine {
            cost: Cost {
                usd: None,
                tokens: 20,
                unpriced_calls: 1,
                models: vec![ModelCost {
                    provider: Some("acme".into()),
                    calls: 1,
                    input_tokens: 12,
                    output_tokens: 8,
                    ..ModelCost::default()
                }],
                ..Cost::default()
            },
            ..ResultLine::new(
                "t",
                0,
                None,
                Outcome::default(),
                Grade {
                    passed: Some(true),
                    reasons: vec![],
                    checks: vec![],
                    diagnosis: None,
                    step_efficiency: None,
                    tool_correctness: None,
                },
            )
        };
        let text = line.to_json();
        for left_out in [
            "step_efficiency",
            "tool_correctness",
            "agent_usd",
            "judge_usd",
            "cache_read_tokens",
            "cache_write_5m_tokens",
            "cache_write_1h_tokens",
            "reasoning_tokens",
        ] {
            assert!(!text.contains(left_out), "{left_out} in {text}");
        }
        assert!(text.contains(r#""usd":null,"tokens":20,"unpriced_calls":1,"#));
        assert!(text.contains(r#""calls":1,"input_tokens":12,"output_tokens":8,"usd":null"#));
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
    fn negative_costs_are_refused_naming_the_field() {
        let line = |cost: &str| {
            ResultLine::parse(&format!(
                r#"{{"format": "proctor.result/1", "task": "a", "passed": true, "cost": {cost}}}"#
            ))
            .map(|_| ())
            .map_err(|e| e.to_string())
        };
        assert_eq!(
            line(r#"{"usd": "-1000", "tokens": 1}"#),
            Err("`cost.usd` is negative (-1000)".to_owned())
        );
        assert_eq!(
            line(r#"{"usd": "1", "judge_usd": "-0.5"}"#),
            Err("`cost.judge_usd` is negative (-0.5)".to_owned())
        );
        assert_eq!(
            line(
                r#"{"usd": "1", "models": [{"role": "agent", "usd": "1"}, {"role": "judge", "usd": "-1"}]}"#
            ),
            Err("`cost.models[1].usd` is negative (-1)".to_owned())
        );
        assert_eq!(line(r#"{"usd": "-0", "tokens": 1}"#), Ok(()));
    }

    #[test]
    fn a_line_without_a_task_is_refused() {
        for line in [
            r#"{"format": "proctor.result/1", "passed": true}"#,
            r#"{"format": "proctor.result/1", "task": "", "passed": true}"#,
        ] {
            let err = ResultLine::parse(line).unwrap_err();
            assert!(matches!(err, ResultError::NoTask), "{line}: {err}");
        }
    }

    #[test]
    fn older_cost_objects_read_with_the_new_fields_empty() {
        let old = ResultLine::parse(
            r#"{"task": "a", "passed": true, "cost": {"usd": null, "tokens": 7, "unpriced_calls": 1}}"#,
        )
        .unwrap();
        assert_eq!(old.cost.tokens, 7);
        assert_eq!(old.cost.unpriced_calls, 1);
        assert_eq!((old.cost.agent_usd, old.cost.judge_usd), (None, None));
        assert!(old.cost.price_ids().is_empty() && old.cost.models.is_empty());
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
