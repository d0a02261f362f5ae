//! Reading a trajectory: steps as objects `{tool, args, error?, result?}` or as pairs
//! `[tool, arg]` (DESIGN 3.1), each built directly from the JSON without an
//! intermediate map.
//!
//! A malformed step does not stop the reading: the rest of the line must still be
//! checked as JSON (bad JSON is reported before a bad field) and an earlier field may
//! hold the error to report. So the first bad step is kept as a result and reported
//! when the outcome is assembled.

use super::read::KeySeed;
use super::skip::Skip;
use super::{OutcomeError, Step, kind_of};
use crate::compact_json::CompactJson;
use serde::de::value::MapAccessDeserializer;
use serde::de::{DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer};
use serde_json::Value;
use std::fmt;

/// A `trajectory` field as read.
#[derive(Debug)]
pub(super) enum RawTrajectory {
    Null,
    /// A list: its steps, or the first step that is not one.
    Steps(Result<Vec<Step>, OutcomeError>),
    /// A list whose steps were read straight into the outcome being filled.
    InPlace,
    /// Anything else, by kind (`a string`, `an object`, ...).
    NotAList(&'static str),
}

/// Reads a `trajectory` value.
#[derive(Debug, Clone, Copy)]
pub(super) struct TrajectorySeed;

impl<'de> DeserializeSeed<'de> for TrajectorySeed {
    type Value = RawTrajectory;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<RawTrajectory, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for TrajectorySeed {
    type Value = RawTrajectory;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a list of steps")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<RawTrajectory, A::Error> {
        let mut steps = Vec::with_capacity(seq.size_hint().unwrap_or(0));
        while let Some(step) = seq.next_element_seed(StepSeed { index: steps.len() })? {
            match step {
                Ok(step) => steps.push(step),
                Err(error) => {
                    while seq.next_element_seed(Skip)?.is_some() {}
                    return Ok(RawTrajectory::Steps(Err(error)));
                }
            }
        }
        Ok(RawTrajectory::Steps(Ok(steps)))
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<RawTrajectory, A::Error> {
        let value = Value::deserialize(MapAccessDeserializer::new(map))?;
        Ok(RawTrajectory::NotAList(kind_of(&value)))
    }

    fn visit_unit<E>(self) -> Result<RawTrajectory, E> {
        Ok(RawTrajectory::Null)
    }

    fn visit_bool<E>(self, v: bool) -> Result<RawTrajectory, E> {
        Ok(RawTrajectory::NotAList(kind_of(&Value::Bool(v))))
    }

    fn visit_i64<E>(self, v: i64) -> Result<RawTrajectory, E> {
        Ok(RawTrajectory::NotAList(kind_of(&Value::from(v))))
    }

    fn visit_u64<E>(self, v: u64) -> Result<RawTrajectory, E> {
        Ok(RawTrajectory::NotAList(kind_of(&Value::from(v))))
    }

    fn visit_f64<E>(self, v: f64) -> Result<RawTrajectory, E> {
        Ok(RawTrajectory::NotAList(kind_of(&Value::from(v))))
    }

    fn visit_str<E>(self, v: &str) -> Result<RawTrajectory, E> {
        Ok(RawTrajectory::NotAList(kind_of(&Value::from(v))))
    }
}

/// Reads one step; the inner result says whether the value was a step at all.
#[derive(Debug, Clone, Copy)]
struct StepSeed {
    index: usize,
}

impl StepSeed {
    fn error(self, problem: &str) -> OutcomeError {
        OutcomeError::new(format!("trajectory[{}]", self.index), problem)
    }

    fn not_a_step(self) -> OutcomeError {
        self.error("a step is an object {tool, args} or a pair [tool, arg]")
    }
}

type StepResult = Result<Step, OutcomeError>;

impl<'de> DeserializeSeed<'de> for StepSeed {
    type Value = StepResult;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<StepResult, D::Error> {
        deserializer.deserialize_any(self)
    }
}

/// The keys a step object uses; others are skipped.
enum StepKey {
    Tool,
    Args,
    Error,
    Result,
    Other,
}

impl<'de> Visitor<'de> for StepSeed {
    type Value = StepResult;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a step")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<StepResult, A::Error> {
        let (mut tool, mut args, mut error, mut result) = (None, None, None, None);
        // A repeated key keeps its last value, as a parsed JSON object would.
        while let Some(key) = map.next_key_seed(KeySeed(step_key))? {
            match key {
                StepKey::Tool => tool = Some(map.next_value::<Value>()?),
                StepKey::Args => args = Some(map.next_value::<CompactJson>()?),
                StepKey::Error => error = Some(map.next_value::<Value>()?),
                StepKey::Result => result = Some(map.next_value::<Value>()?),
                StepKey::Other => map.next_value_seed(Skip)?,
            }
        }
        let Some(Value::String(tool)) = tool else {
            return Ok(Err(self.error("a step needs a string `tool`")));
        };
        Ok(Ok(Step {
            tool: tool.into(),
            args: args.unwrap_or_default(),
            error: error.filter(|v| !v.is_null()).map(Box::new),
            result: result.filter(|v| !v.is_null()).map(Box::new),
        }))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<StepResult, A::Error> {
        let first = seq.next_element::<Value>()?;
        let second = match first {
            Some(_) => seq.next_element::<CompactJson>()?,
            None => None,
        };
        let mut longer = false;
        while seq.next_element_seed(Skip)?.is_some() {
            longer = true;
        }
        Ok(match (first, second, longer) {
            (Some(Value::String(tool)), Some(args), false) => Ok(Step {
                tool: tool.into(),
                args,
                error: None,
                result: None,
            }),
            _ => Err(self.not_a_step()),
        })
    }

    fn visit_unit<E>(self) -> Result<StepResult, E> {
        Ok(Err(self.not_a_step()))
    }

    fn visit_bool<E>(self, _: bool) -> Result<StepResult, E> {
        Ok(Err(self.not_a_step()))
    }

    fn visit_i64<E>(self, _: i64) -> Result<StepResult, E> {
        Ok(Err(self.not_a_step()))
    }

    fn visit_u64<E>(self, _: u64) -> Result<StepResult, E> {
        Ok(Err(self.not_a_step()))
    }

    fn visit_f64<E>(self, _: f64) -> Result<StepResult, E> {
        Ok(Err(self.not_a_step()))
    }

    fn visit_str<E>(self, _: &str) -> Result<StepResult, E> {
        Ok(Err(self.not_a_step()))
    }
}

fn step_key(key: &str) -> StepKey {
    match key {
        "tool" => StepKey::Tool,
        "args" => StepKey::Args,
        "error" => StepKey::Error,
        "result" => StepKey::Result,
        _ => StepKey::Other,
    }
}
