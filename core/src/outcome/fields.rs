//! The rules of docs/agent-protocol.md for each outcome field, applied to its parsed value.
//!
//! Both readers use them: the reference reader on the fields of a parsed object, the
//! scanner on the few fields it parses into a value (it reads the trajectory and the
//! usage itself, and leaves every line these rules refuse to the reference). `null` is
//! taken as an absent field by the callers, so no rule here sees one except inside
//! a list.

use super::names::{self, step};
use super::{AgentError, CompactString, OutcomeError, Status, Step, kind_of};
use crate::compact_json::CompactJson;
use serde_json::Value;

/// `status`: a status name or one of its aliases.
pub(super) fn status(value: &Value) -> Result<Status, OutcomeError> {
    match value {
        Value::String(s) => Status::parse(s).ok_or_else(|| {
            OutcomeError::new(
                names::STATUS,
                format!(
                    "unknown status {s:?} (expected final, done, completed, gave_up, hit_cap, timeout or error)"
                ),
            )
        }),
        other => Err(OutcomeError::new(
            names::STATUS,
            format!("expected a string, found {}", kind_of(other)),
        )),
    }
}

/// `answer`: a string, or the JSON text of any other value (numbers and booleans are
/// answers too: "5", "true").
pub(super) fn answer(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// `tool_calls` or `steps`: a non-negative integer.
pub(super) fn count(value: &Value, field: &str) -> Result<u64, OutcomeError> {
    value.as_u64().ok_or_else(|| {
        OutcomeError::new(
            field,
            format!("expected a non-negative integer, found {value}"),
        )
    })
}

/// `tools_used`: a list of tool names.
pub(super) fn tools_used(value: &Value) -> Result<Vec<CompactString>, OutcomeError> {
    let Value::Array(items) = value else {
        return Err(OutcomeError::new(
            names::TOOLS_USED,
            format!("expected a list of tool names, found {}", kind_of(value)),
        ));
    };
    items
        .iter()
        .map(|item| match item {
            Value::String(s) => Ok(s.into()),
            _ => Err(OutcomeError::new(
                names::TOOLS_USED,
                "expected a list of tool names",
            )),
        })
        .collect()
}

/// `error`: `{type, message}`, or the type alone as a string. A missing or blank type is
/// `unknown`; a message that is not a string is kept as its JSON text.
pub(super) fn agent_error(value: &Value) -> Result<AgentError, OutcomeError> {
    match value {
        Value::String(s) => Ok(AgentError {
            kind: s.clone(),
            message: String::new(),
        }),
        Value::Object(map) => Ok(AgentError {
            kind: match map.get("type") {
                Some(Value::String(s)) if !s.trim().is_empty() => s.clone(),
                _ => "unknown".to_owned(),
            },
            message: match map.get("message") {
                Some(Value::String(s)) => s.clone(),
                Some(Value::Null) | None => String::new(),
                Some(other) => other.to_string(),
            },
        }),
        other => Err(OutcomeError::new(
            names::ERROR,
            format!(
                "expected an object {{type, message}}, found {}",
                kind_of(other)
            ),
        )),
    }
}

/// `usage`: one usage object, or a list of them (each item kept whatever it is).
pub(super) fn usage(value: &Value) -> Result<Vec<CompactJson>, OutcomeError> {
    match value {
        Value::Object(_) => Ok(vec![CompactJson::from_value(value)]),
        Value::Array(items) => Ok(items.iter().map(CompactJson::from_value).collect()),
        other => Err(OutcomeError::new(
            names::USAGE,
            format!(
                "expected a usage object or a list of them, found {}",
                kind_of(other)
            ),
        )),
    }
}

/// `trajectory`: a list of steps; the first that is not one is the error.
pub(super) fn trajectory(value: &Value) -> Result<Vec<Step>, OutcomeError> {
    let Value::Array(items) = value else {
        return Err(OutcomeError::new(
            names::TRAJECTORY,
            format!("expected a list of steps, found {}", kind_of(value)),
        ));
    };
    items
        .iter()
        .enumerate()
        .map(|(index, item)| step(index, item))
        .collect()
}

/// One step: an object `{tool, args, error?, result?}` with a string `tool`, or a pair
/// `[tool, arg]`. Missing arguments are `null`; a `null` error or result is none.
fn step(index: usize, value: &Value) -> Result<Step, OutcomeError> {
    let problem = |text: &str| OutcomeError::new(format!("{}[{index}]", names::TRAJECTORY), text);
    match value {
        Value::Object(map) => {
            let Some(Value::String(tool)) = map.get(step::TOOL) else {
                return Err(problem("a step needs a string `tool`"));
            };
            let present = |key: &str| map.get(key).filter(|v| !v.is_null()).cloned();
            Ok(Step {
                tool: tool.into(),
                args: map
                    .get(step::ARGS)
                    .map(CompactJson::from_value)
                    .unwrap_or_default(),
                error: present(step::ERROR).map(Box::new),
                result: present(step::RESULT).map(Box::new),
                faults: None,
            })
        }
        Value::Array(pair) => match pair.as_slice() {
            [Value::String(tool), arg] => Ok(Step {
                tool: tool.into(),
                args: CompactJson::from_value(arg),
                error: None,
                result: None,
                faults: None,
            }),
            _ => Err(problem(NOT_A_STEP)),
        },
        _ => Err(problem(NOT_A_STEP)),
    }
}

const NOT_A_STEP: &str = "a step is an object {tool, args} or a pair [tool, arg]";
