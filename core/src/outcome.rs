//! What an agent reports about one attempt (docs/agent-protocol.md).
//!
//! Outcomes come from other people's programs and logs, so parsing is lenient about
//! extra fields (timestamps, request ids) but strict about the fields it reads: a
//! malformed `status` or trajectory step is an error, never a silent default.
//!
//! Two readers read the same format. [`Outcome::from_json`] is the reference: the line
//! parsed into a `serde_json::Value`, each field taken by the rules of docs/agent-protocol.md.
//! [`OutcomeReader`] reads log lines: a scanner reads the plain lines programs write,
//! compact or spaced, without building a value of each, and leaves every other line to
//! the reference, so that both read every text alike (the property tests hold them to it).

mod extra;
mod fields;
mod keys;
pub mod names;
#[cfg(test)]
mod props;
mod reader;
mod reference;
mod scan;
mod source;

pub use extra::Extra;
pub use keys::KeyFilter;
pub use reader::OutcomeReader;
pub use reference::{NotAnObject, ReadOutcome};
pub use source::TrajectorySource;

use crate::compact_json::CompactJson;
use crate::short_text::same_text;
pub use compact_str::CompactString;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// How an attempt ended, as the agent reported it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// The agent gave its answer (`final`, or the aliases `done` and `completed`).
    Final,
    /// The agent stopped without an answer.
    GaveUp,
    /// The agent ran into its step or tool-call cap.
    HitCap,
    /// The attempt ran out of time.
    Timeout,
    /// The agent failed with an error.
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

    /// The status's name as outcomes and result lines write it.
    #[must_use]
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
    /// The error the call returned, if any. Boxed, as is `result`: a logged step rarely
    /// has either, and a step moved whole (millions of times in a large log) stays small.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<Box<Value>>,
    /// What the call returned, when the trajectory recorded it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<Box<Value>>,
    /// The seeded faults applied to a served call, by kind, in the order they applied
    /// (`["latency", "inject"]`); only proctor's recorded calls have them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub faults: Option<Box<Vec<String>>>,
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
            faults: None,
        }
    }
}

/// The exception an agent raised, if any.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AgentError {
    /// The exception's type (`KeyError`); `unknown` when the agent gave none.
    #[serde(rename = "type")]
    pub kind: String,
    /// The exception's message; empty when the agent gave none.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub message: String,
}

/// An attempt's outcome with every default of docs/agent-protocol.md applied.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct Outcome {
    /// `None` when the source recorded no status (production logs graded by process only).
    pub status: Option<Status>,
    /// The final answer; a number or boolean answer as its JSON text.
    pub answer: Option<String>,
    /// Tool calls made: as given, else the trajectory's length.
    pub tool_calls: u64,
    /// The tools the agent listed (`tools_used`), inline names as [`Step::tool`]; `None`
    /// when it listed none, as most logs do: the list is then the trajectory's tools
    /// ([`Outcome::used_tools`]), worked out only for a result line that shows it.
    pub tools_used: Option<Vec<CompactString>>,
    /// The tool calls, in order.
    pub trajectory: Vec<Step>,
    /// Raw usage objects in whatever provider shape they came in, as their compact JSON.
    pub usage: Vec<CompactJson>,
    /// Agent turns: as given, else the trajectory's length.
    pub steps: u64,
    /// The exception the agent raised, if any.
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
    /// The field, as `status` or `trajectory[2]`.
    pub field: String,
    /// What is wrong with its value.
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
    /// Reads an outcome from a JSON object, ignoring fields it does not know: the
    /// reference reader, which [`OutcomeReader`] reads every line as.
    pub fn from_json(object: &Map<String, Value>) -> Result<Outcome, OutcomeError> {
        reference::outcome_of(object)
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
