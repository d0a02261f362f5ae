//! What an agent reports about one attempt (DESIGN 3.1).
//!
//! Outcomes come from other people's programs and logs, so parsing is lenient about
//! extra fields (timestamps, request ids) but strict about the fields it reads: a
//! malformed `status` or trajectory step is an error, never a silent default.
//!
//! [`OutcomeSeed`] reads an outcome straight from JSON text (or a parsed object), so a
//! large log is graded without building a map of every line first.

mod plain;
mod read;
mod skip;
mod source;
mod steps;
mod usage;

pub use read::{Extra, KeyFilter, NotAnObject, OutcomeSeed, ReadOutcome};
pub use source::TrajectorySource;

use crate::compact_json::CompactJson;
use crate::short_text::same_text;
pub use compact_str::CompactString;
use read::RawFields;
use serde::de::DeserializeSeed;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use steps::RawTrajectory;
use usage::RawUsage;

/// How an attempt ended, as the agent reported it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    Final,
    GaveUp,
    HitCap,
    Timeout,
    Error,
}

impl Status {
    /// Parses a status string, accepting the aliases `done` and `completed` for `final`.
    pub fn parse(text: &str) -> Option<Status> {
        const NAMES: [(&str, Status); 7] = [
            ("final", Status::Final),
            ("done", Status::Final),
            ("completed", Status::Final),
            ("gave_up", Status::GaveUp),
            ("hit_cap", Status::HitCap),
            ("timeout", Status::Timeout),
            ("error", Status::Error),
        ];
        // Compared without a lowercased copy: every outcome line has a status.
        let text = text.trim();
        NAMES
            .iter()
            .find(|(name, _)| name.eq_ignore_ascii_case(text))
            .map(|&(_, status)| status)
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Status::Final => "final",
            Status::GaveUp => "gave_up",
            Status::HitCap => "hit_cap",
            Status::Timeout => "timeout",
            Status::Error => "error",
        }
    }
}

/// One tool call in a trajectory.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Step {
    /// Inline when short (up to 24 bytes, as tool names are): no allocation per call.
    pub tool: CompactString,
    /// The call's arguments as compact JSON text; rules look into them only when asked.
    #[serde(default)]
    pub args: CompactJson,
    /// Boxed, as is `result`: a logged step rarely has either, and a step moved whole
    /// (millions of times in a large log) stays small.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<Box<Value>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<Box<Value>>,
}

impl Step {
    /// A call that succeeded with no recorded result: what tests and hand-built
    /// trajectories need.
    pub fn call(tool: &str, args: &Value) -> Step {
        Step {
            tool: tool.into(),
            args: CompactJson::from_value(args),
            error: None,
            result: None,
        }
    }
}

/// The exception an agent raised, if any.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AgentError {
    #[serde(rename = "type")]
    pub kind: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub message: String,
}

/// An attempt's outcome with every default of DESIGN 3.1 applied.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct Outcome {
    /// `None` when the source recorded no status (production logs graded by process only).
    pub status: Option<Status>,
    pub answer: Option<String>,
    pub tool_calls: u64,
    /// The tools the agent listed (`tools_used`), inline names as [`Step::tool`]; `None`
    /// when it listed none, as most logs do: the list is then the trajectory's tools
    /// ([`Outcome::used_tools`]), worked out only for a result line that shows it.
    pub tools_used: Option<Vec<CompactString>>,
    pub trajectory: Vec<Step>,
    /// Raw usage objects in whatever provider shape they came in, as their compact JSON.
    pub usage: Vec<CompactJson>,
    pub steps: u64,
    pub error: Option<AgentError>,
    /// Where `trajectory` came from; an outcome read from a report is `reported`.
    #[serde(default)]
    pub trajectory_source: TrajectorySource,
    /// Steps (numbered from 1) whose arguments a trace did not capture: rules that compare
    /// arguments cannot decide on them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub uncaptured_args: Vec<u64>,
}

/// Why an outcome could not be read; the message names the field.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("field `{field}`: {problem}")]
pub struct OutcomeError {
    pub field: String,
    pub problem: String,
}

impl OutcomeError {
    fn new(field: impl Into<String>, problem: impl Into<String>) -> Self {
        OutcomeError {
            field: field.into(),
            problem: problem.into(),
        }
    }
}

impl Outcome {
    /// Reads an outcome from a JSON object, ignoring fields it does not know.
    pub fn from_json(object: &Map<String, Value>) -> Result<Outcome, OutcomeError> {
        // The same reader as for log lines, run over the parsed object, so both paths
        // apply one set of rules.
        match OutcomeSeed::<&str>::new(&[]).deserialize(object) {
            Ok(Ok(read)) => read.outcome,
            Ok(Err(NotAnObject(_))) => unreachable!("a map is an object"),
            Err(e) => unreachable!("reading a parsed object cannot fail: {e}"),
        }
    }

    /// Applies the defaults and checks of DESIGN 3.1 to the fields as read, moving
    /// their values rather than copying them.
    fn from_fields(mut fields: RawFields) -> Result<Outcome, OutcomeError> {
        let mut outcome = Outcome::default();
        outcome.fill(&mut fields)?;
        Ok(outcome)
    }

    /// [`Outcome::from_fields`] into this outcome, whose lists keep their room: a reader
    /// that reads line after line into one outcome allocates nothing for most lines. A
    /// trajectory read as [`RawTrajectory::InPlace`] is already in `self.trajectory`.
    /// On an error the outcome holds a mix of old and new values and must be read again.
    fn fill(&mut self, fields: &mut RawFields) -> Result<(), OutcomeError> {
        if !fields.values_read {
            // Most logged lines give a trajectory and nothing else kept as a value: there
            // is no value to check, and no empty slot is moved out.
            self.status = None;
            self.answer = None;
            self.fill_trajectory(fields.trajectory.take())?;
            self.tool_calls = self.trajectory.len() as u64;
            self.steps = self.tool_calls;
            self.tools_used = None;
            self.fill_usage(fields.usage.take())?;
            self.error = None;
            self.trajectory_source = TrajectorySource::Reported;
            self.uncaptured_args.clear();
            return Ok(());
        }
        self.status = match fields.status.take() {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => Some(Status::parse(&s).ok_or_else(|| {
                OutcomeError::new(
                    "status",
                    format!(
                        "unknown status {s:?} (expected final, done, completed, gave_up, hit_cap, timeout or error)"
                    ),
                )
            })?),
            Some(other) => {
                return Err(OutcomeError::new(
                    "status",
                    format!("expected a string, found {}", kind_of(&other)),
                ));
            }
        };
        self.answer = match fields.answer.take() {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => Some(s),
            // Numbers and booleans are answers too ("5", "true"); keep their JSON text.
            Some(other) => Some(other.to_string()),
        };
        self.fill_trajectory(fields.trajectory.take())?;
        let trajectory = &self.trajectory;
        self.tool_calls = match fields.tool_calls.take() {
            None | Some(Value::Null) => trajectory.len() as u64,
            Some(v) => count(&v, "tool_calls")?,
        };
        self.steps = match fields.steps.take() {
            None | Some(Value::Null) => trajectory.len() as u64,
            Some(v) => count(&v, "steps")?,
        };
        self.tools_used = match fields.tools_used.take() {
            None | Some(Value::Null) => None,
            Some(Value::Array(items)) => Some(
                items
                    .into_iter()
                    .map(|item| match item {
                        Value::String(s) => Ok(s.into()),
                        _ => Err(OutcomeError::new(
                            "tools_used",
                            "expected a list of tool names",
                        )),
                    })
                    .collect::<Result<_, _>>()?,
            ),
            Some(other) => {
                return Err(OutcomeError::new(
                    "tools_used",
                    format!("expected a list of tool names, found {}", kind_of(&other)),
                ));
            }
        };
        self.fill_usage(fields.usage.take())?;
        self.error = match fields.error.take() {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => Some(AgentError {
                kind: s,
                message: String::new(),
            }),
            Some(Value::Object(mut map)) => {
                let kind = match map.remove("type") {
                    Some(Value::String(s)) if !s.trim().is_empty() => s,
                    _ => "unknown".to_owned(),
                };
                let message = match map.remove("message") {
                    Some(Value::String(s)) => s,
                    Some(Value::Null) | None => String::new(),
                    Some(other) => other.to_string(),
                };
                Some(AgentError { kind, message })
            }
            Some(other) => {
                return Err(OutcomeError::new(
                    "error",
                    format!(
                        "expected an object {{type, message}}, found {}",
                        kind_of(&other)
                    ),
                ));
            }
        };
        self.trajectory_source = TrajectorySource::Reported;
        self.uncaptured_args.clear();
        Ok(())
    }

    /// The trajectory as read; a list read in place is in `self.trajectory` already.
    fn fill_trajectory(&mut self, read: Option<RawTrajectory>) -> Result<(), OutcomeError> {
        match read {
            None | Some(RawTrajectory::Null) => self.trajectory.clear(),
            Some(RawTrajectory::InPlace) => {}
            Some(RawTrajectory::Steps(steps)) => self.trajectory = steps?,
            Some(RawTrajectory::NotAList(kind)) => {
                return Err(OutcomeError::new(
                    "trajectory",
                    format!("expected a list of steps, found {kind}"),
                ));
            }
        }
        Ok(())
    }

    /// The usage objects as read, in place of the last line's.
    fn fill_usage(&mut self, read: Option<RawUsage>) -> Result<(), OutcomeError> {
        self.usage.clear();
        match read {
            None => {}
            Some(RawUsage::Objects(items)) => self.usage.extend(items),
            Some(RawUsage::Other(kind)) => {
                return Err(OutcomeError::new(
                    "usage",
                    format!("expected a usage object or a list of them, found {kind}"),
                ));
            }
        }
        Ok(())
    }

    /// True when the agent used `tool` at least once.
    pub fn used_tool(&self, tool: &str) -> bool {
        self.tools_used.iter().flatten().any(|t| same_text(t, tool))
            || self.trajectory.iter().any(|s| same_text(&s.tool, tool))
    }

    /// The tools the agent used, as a result line lists them: those it listed, else each
    /// tool its trajectory called, once, in the order of first call.
    pub fn used_tools(&self) -> Vec<CompactString> {
        if let Some(listed) = &self.tools_used {
            return listed.clone();
        }
        let mut tools: Vec<CompactString> = Vec::new();
        for step in &self.trajectory {
            if !tools.contains(&step.tool) {
                tools.push(step.tool.clone());
            }
        }
        tools
    }
}

fn count(value: &Value, field: &str) -> Result<u64, OutcomeError> {
    value.as_u64().ok_or_else(|| {
        OutcomeError::new(
            field,
            format!("expected a non-negative integer, found {value}"),
        )
    })
}

/// A short name for a JSON value's type, for error messages.
pub fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn parse(v: Value) -> Result<Outcome, OutcomeError> {
        Outcome::from_json(v.as_object().unwrap())
    }

    #[test]
    fn defaults_come_from_the_trajectory() {
        let o = parse(json!({"status": "done", "answer": "5",
            "trajectory": [["calculator", "2+3"], {"tool": "calculator", "args": {"expr": "1"}}]}))
        .unwrap();
        assert_eq!(o.status, Some(Status::Final));
        assert_eq!(o.tool_calls, 2);
        assert_eq!(o.steps, 2);
        assert_eq!(o.tools_used, None);
        assert_eq!(o.used_tools(), ["calculator"]);
        assert_eq!(o.trajectory[0].args, json!("2+3"));
    }

    #[test]
    fn status_names_ignore_case_and_outer_space() {
        for (text, status) in [
            (" DONE ", Some(Status::Final)),
            ("Completed", Some(Status::Final)),
            ("final", Some(Status::Final)),
            ("Gave_Up", Some(Status::GaveUp)),
            ("hit_cap\n", Some(Status::HitCap)),
            ("TIMEOUT", Some(Status::Timeout)),
            ("error", Some(Status::Error)),
            ("finished", None),
            ("gave up", None),
            ("", None),
        ] {
            assert_eq!(Status::parse(text), status, "{text:?}");
        }
    }

    #[test]
    fn given_numbers_stand() {
        let o = parse(
            json!({"status": "final", "tool_calls": 7, "tools_used": ["a"],
            "trajectory": [["b", 1]]}),
        )
        .unwrap();
        assert_eq!(o.tool_calls, 7);
        assert_eq!(o.tools_used, Some(vec!["a".into()]));
        assert_eq!(o.used_tools(), ["a"]);
        assert!(o.used_tool("a") && o.used_tool("b") && !o.used_tool("c"));
    }

    #[test]
    fn an_empty_list_of_tools_is_not_a_missing_one() {
        let listed = parse(json!({"tools_used": [], "trajectory": [["b", 1]]})).unwrap();
        assert_eq!(listed.used_tools(), Vec::<CompactString>::new());
        let missing = parse(json!({"tools_used": null, "trajectory": [["b", 1]]})).unwrap();
        assert_eq!(missing.used_tools(), ["b"]);
    }

    #[test]
    fn error_object_and_usage_shapes() {
        let o = parse(
            json!({"status": "error", "error": {"type": "KeyError", "message": "x"},
            "usage": {"input_tokens": 3}, "request_id": "ignored"}),
        )
        .unwrap();
        assert_eq!(o.error.unwrap().kind, "KeyError");
        assert_eq!(o.usage.len(), 1);
    }

    #[test]
    fn bad_status_names_the_field() {
        let e = parse(json!({"status": "finished"})).unwrap_err();
        assert_eq!(e.field, "status");
        let e = parse(json!({"trajectory": [42]})).unwrap_err();
        assert_eq!(e.field, "trajectory[0]");
    }
}
