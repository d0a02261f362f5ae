//! The reference reader: the line parsed into a `serde_json::Value`, then each outcome field
//! taken from the object by the rules of [`fields`](super::fields).
//!
//! It reads every line the scanner leaves, and it is what the scanner is tested against:
//! for any text, the two give the same outcome, the same extra values and the same errors.

use super::fields;
use super::names;
use super::{Outcome, OutcomeError, TrajectorySource, kind_of};
use serde_json::{Map, Value};

/// An outcome as read, with the values of the extra keys asked for.
#[derive(Debug)]
pub struct ReadOutcome {
    /// The outcome, or what is wrong with one of its fields.
    pub outcome: Result<Outcome, OutcomeError>,
    /// The value of each extra key, in the order asked; `None` when the field is absent.
    pub extras: Vec<Option<Value>>,
}

/// The JSON value was not an object; holds its kind as [`kind_of`] names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NotAnObject(pub &'static str);

/// Reads one JSON document as an outcome with the values of `extra_keys`. The error is
/// serde_json's when the text is not JSON (trailing text included).
pub(super) fn read_line<S: AsRef<str>>(
    text: &str,
    extra_keys: &[S],
) -> serde_json::Result<Result<ReadOutcome, NotAnObject>> {
    Ok(match serde_json::from_str::<Value>(text)? {
        Value::Object(object) => Ok(ReadOutcome {
            outcome: outcome_of(&object),
            extras: extra_keys
                .iter()
                .map(|key| object.get(key.as_ref()).cloned())
                .collect(),
        }),
        other => Err(NotAnObject(kind_of(&other))),
    })
}

/// The outcome of a parsed object: docs/agent-protocol.md's defaults applied, other keys ignored, a
/// `null` field taken as absent. Fields are checked in a fixed order and the first
/// problem is the error.
pub(super) fn outcome_of(object: &Map<String, Value>) -> Result<Outcome, OutcomeError> {
    let field = |key: &str| object.get(key).filter(|value| !value.is_null());
    let status = field(names::STATUS).map(fields::status).transpose()?;
    let answer = field(names::ANSWER).map(fields::answer);
    let trajectory = field(names::TRAJECTORY)
        .map(fields::trajectory)
        .transpose()?
        .unwrap_or_default();
    let count = |key: &str| -> Result<u64, OutcomeError> {
        let given = field(key)
            .map(|value| fields::count(value, key))
            .transpose()?;
        Ok(given.unwrap_or(trajectory.len() as u64))
    };
    let tool_calls = count(names::TOOL_CALLS)?;
    let steps = count(names::STEPS)?;
    let tools_used = field(names::TOOLS_USED)
        .map(fields::tools_used)
        .transpose()?;
    let usage = field(names::USAGE)
        .map(fields::usage)
        .transpose()?
        .unwrap_or_default();
    let error = field(names::ERROR).map(fields::agent_error).transpose()?;
    Ok(Outcome {
        status,
        answer,
        tool_calls,
        tools_used,
        trajectory,
        usage,
        steps,
        error,
        trajectory_source: TrajectorySource::Reported,
        uncaptured_args: Vec::new(),
    })
}
