//! Reading an outcome straight from JSON, one field at a time.
//!
//! A log line is mostly an outcome, so building a map of the whole line and then copying
//! each field out of it costs more than the grading. This reader takes each field as it
//! comes: the trajectory into steps, the few other outcome fields into values, any field
//! the caller names (a task key, a timestamp) into a value it gets back, and every other
//! field only checked as JSON and dropped (a log line is someone else's format).
//!
//! It works on any serde deserializer: on JSON text for logs, and on an already parsed
//! object for [`Outcome::from_json`], so both paths share one set of rules.

use super::plain::{read_plain, read_plain_into, value_of};
use super::skip::Skip;
use super::steps::{RawTrajectory, TrajectorySeed};
use super::usage::{RawUsage, UsageSeed};
use super::{Outcome, OutcomeError, kind_of};
use crate::short_text::same_text;
use serde::Deserializer;
use serde::de::{DeserializeSeed, Error as _, MapAccess, SeqAccess, Visitor};
use serde_json::Value;
use std::fmt;
use std::ops::Range;

/// Reads one outcome, plus the values of `extra_keys` for the caller.
///
/// Problems with the outcome's fields are returned in [`ReadOutcome::outcome`] rather
/// than as errors, so that the caller can check its own fields first; the deserializer's
/// error means the JSON itself is bad.
#[derive(Debug, Clone, Copy)]
pub struct OutcomeSeed<'k, S> {
    extra_keys: &'k [S],
    filter: KeyFilter,
}

/// A set of keys as 64 bits, one for each key ([`key_bit`]): a key whose bit is not set
/// is none of them. Most keys of a line are outcome fields, not the extra keys
/// asked for, and are turned away by one test instead of a comparison with each.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KeyFilter(u64);

impl KeyFilter {
    /// The filter that lets every one of `keys` through.
    #[must_use]
    pub fn of<S: AsRef<str>>(keys: &[S]) -> Self {
        KeyFilter(
            keys.iter()
                .fold(0, |bits, key| bits | key_bit(key.as_ref().as_bytes())),
        )
    }

    /// False when `key` is none of the filter's keys; true when it may be one.
    #[inline]
    fn may_hold(self, key: &str) -> bool {
        self.0 & key_bit(key.as_bytes()) != 0
    }
}

/// A key's bit among 64, from its length and its first and last bytes: equal keys have the
/// same bit, and most different keys of a line or an object do not.
#[inline]
pub(super) fn key_bit(key: &[u8]) -> u64 {
    let ends = match key {
        [] => 0,
        [first, .., last] => usize::from(*first) ^ (usize::from(*last) << 2),
        [only] => usize::from(*only),
    };
    1 << (key.len().wrapping_mul(31).wrapping_add(ends) % 64)
}

/// An outcome as read, with the caller's extra fields.
#[derive(Debug)]
pub struct ReadOutcome {
    pub outcome: Result<Outcome, OutcomeError>,
    /// The value of each extra key, in the order asked; `None` when the field is absent.
    pub extras: Vec<Option<Value>>,
}

/// The value of an extra key as [`OutcomeSeed::read_str_into`] read it.
#[derive(Debug, Clone, PartialEq)]
pub enum Extra {
    /// Where the value's JSON text is in the line (checked, but not built into a value:
    /// a task id is looked up straight from the line).
    Text(Range<usize>),
    /// The value, from a line the plain reader left to the general one.
    Value(Value),
}

impl Extra {
    /// The value; `line` is the text it was read from. `None` only if checked text does
    /// not parse, which it always does.
    pub fn to_value(&self, line: &str) -> Option<Value> {
        match self {
            Extra::Text(at) => value_of(line.get(at.clone())?),
            Extra::Value(value) => Some(value.clone()),
        }
    }

    /// The text of a string value that holds no escape, borrowed from `line`: what most
    /// task ids are. `None` for anything else, a parsed value included.
    pub fn plain_str<'l>(&self, line: &'l str) -> Option<&'l str> {
        match self {
            Extra::Text(at) => {
                let text = line.get(at.clone())?;
                let inner = text.strip_prefix('"')?.strip_suffix('"')?;
                // Byte by byte, inlined: a task id is a few bytes, and a search for the
                // backslash would call `memchr` for each.
                (!inner.bytes().any(|byte| byte == b'\\')).then_some(inner)
            }
            Extra::Value(_) => None,
        }
    }
}

/// The JSON value was not an object; holds its kind as [`kind_of`] names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NotAnObject(pub &'static str);

/// The most extra keys a reader takes (they are tracked as bits).
const MAX_EXTRA_KEYS: usize = 64;

impl<'k, S: AsRef<str>> OutcomeSeed<'k, S> {
    /// A reader that also returns the values of `extra_keys` (at most 64). A key may be
    /// an outcome field too (`--task-key status`); it is then read as both.
    pub fn new(extra_keys: &'k [S]) -> Self {
        Self::with_filter(extra_keys, KeyFilter::of(extra_keys))
    }

    /// [`OutcomeSeed::new`] with the filter of `extra_keys` made once, by
    /// [`KeyFilter::of`] on the same keys, for a caller that reads many lines.
    pub fn with_filter(extra_keys: &'k [S], filter: KeyFilter) -> Self {
        assert!(
            extra_keys.len() <= MAX_EXTRA_KEYS,
            "at most {MAX_EXTRA_KEYS} extra keys"
        );
        debug_assert_eq!(filter, KeyFilter::of(extra_keys), "a filter of other keys");
        OutcomeSeed { extra_keys, filter }
    }

    /// Reads one JSON document (a log line). Trailing text after the value is an error,
    /// as it is for `serde_json::from_str`.
    pub fn read_str(self, text: &str) -> serde_json::Result<Result<ReadOutcome, NotAnObject>> {
        if let Some(read) = read_plain(text, self.extra_keys, self.filter) {
            return Ok(Ok(read));
        }
        let mut deserializer = serde_json::Deserializer::from_str(text);
        let read = self.deserialize(&mut deserializer)?;
        deserializer.end()?;
        Ok(read)
    }

    /// [`OutcomeSeed::read_str`] into `outcome`, whose lists keep their room, with the
    /// extra keys' values in `extras`: reading line after line into the same two
    /// allocates nothing for a plain line. After an outcome error, `outcome` must not be
    /// read.
    pub fn read_str_into(
        self,
        text: &str,
        outcome: &mut Outcome,
        extras: &mut Vec<Option<Extra>>,
    ) -> serde_json::Result<Result<Result<(), OutcomeError>, NotAnObject>> {
        if let Some(read) = read_plain_into(text, self.extra_keys, self.filter, outcome, extras) {
            return Ok(Ok(read));
        }
        let mut deserializer = serde_json::Deserializer::from_str(text);
        let read = self.deserialize(&mut deserializer)?;
        deserializer.end()?;
        Ok(read.map(|read| {
            extras.clear();
            extras.extend(read.extras.into_iter().map(|v| v.map(Extra::Value)));
            read.outcome.map(|read| *outcome = read)
        }))
    }
}

impl<'de, S: AsRef<str>> DeserializeSeed<'de> for OutcomeSeed<'_, S> {
    type Value = Result<ReadOutcome, NotAnObject>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de, S: AsRef<str>> Visitor<'de> for OutcomeSeed<'_, S> {
    type Value = Result<ReadOutcome, NotAnObject>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an outcome object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut fields = RawFields::default();
        let mut extras = vec![None; self.extra_keys.len()];
        // A repeated key keeps its last value, as a parsed JSON object would.
        while let Some((field, bits)) = map.next_key_seed(KeySeed(|key: &str| {
            (field_of(key), extra_bits(self.extra_keys, self.filter, key))
        }))? {
            if bits == 0 {
                match field {
                    Field::Trajectory => {
                        fields.trajectory = Some(map.next_value_seed(TrajectorySeed)?);
                    }
                    Field::Other => map.next_value_seed(Skip)?,
                    Field::Usage => fields.usage = Some(map.next_value_seed(UsageSeed)?),
                    field => *fields.value_slot(field) = Some(map.next_value()?),
                }
                continue;
            }
            let value: Value = map.next_value()?;
            for (i, extra) in extras.iter_mut().enumerate() {
                if bits & (1 << i) != 0 {
                    *extra = Some(value.clone());
                }
            }
            match field {
                Field::Trajectory => {
                    let steps = TrajectorySeed
                        .deserialize(&value)
                        .map_err(A::Error::custom)?;
                    fields.trajectory = Some(steps);
                }
                Field::Usage => {
                    let usage = UsageSeed.deserialize(&value).map_err(A::Error::custom)?;
                    fields.usage = Some(usage);
                }
                Field::Other => {}
                field => *fields.value_slot(field) = Some(value),
            }
        }
        Ok(Ok(ReadOutcome {
            outcome: Outcome::from_fields(fields),
            extras,
        }))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
        Skip.visit_seq(seq)?;
        Ok(Err(NotAnObject(kind_of(&Value::Array(Vec::new())))))
    }

    fn visit_unit<E>(self) -> Result<Self::Value, E> {
        Ok(Err(NotAnObject(kind_of(&Value::Null))))
    }

    fn visit_bool<E>(self, v: bool) -> Result<Self::Value, E> {
        Ok(Err(NotAnObject(kind_of(&Value::Bool(v)))))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Self::Value, E> {
        Ok(Err(NotAnObject(kind_of(&Value::from(v)))))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Self::Value, E> {
        Ok(Err(NotAnObject(kind_of(&Value::from(v)))))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Self::Value, E> {
        Ok(Err(NotAnObject(kind_of(&Value::from(v)))))
    }

    fn visit_str<E>(self, v: &str) -> Result<Self::Value, E> {
        Ok(Err(NotAnObject(kind_of(&Value::from(v)))))
    }
}

/// The outcome fields of DESIGN 3.1 as read, before defaults and checks.
#[derive(Debug, Default)]
pub(super) struct RawFields {
    pub status: Option<Value>,
    pub answer: Option<Value>,
    pub tool_calls: Option<Value>,
    pub tools_used: Option<Value>,
    pub trajectory: Option<RawTrajectory>,
    pub usage: Option<RawUsage>,
    pub steps: Option<Value>,
    pub error: Option<Value>,
    /// Whether any slot of [`RawFields::value_slot`] was handed out: without one, the
    /// outcome has no value to check.
    pub values_read: bool,
}

/// The extra keys that `key` is, as bits; `filter` is theirs.
#[inline]
pub(super) fn extra_bits<S: AsRef<str>>(extra_keys: &[S], filter: KeyFilter, key: &str) -> u64 {
    if !filter.may_hold(key) {
        return 0;
    }
    extra_keys
        .iter()
        .enumerate()
        .filter(|(_, extra)| same_text(extra.as_ref(), key))
        .fold(0, |bits, (i, _)| bits | 1 << i)
}

/// Which outcome field a key names.
#[derive(Debug, Clone, Copy)]
pub(super) enum Field {
    Status,
    Answer,
    ToolCalls,
    ToolsUsed,
    Trajectory,
    Usage,
    Steps,
    Error,
    Other,
}

pub(super) fn field_of(key: &str) -> Field {
    match key {
        "status" => Field::Status,
        "answer" => Field::Answer,
        "tool_calls" => Field::ToolCalls,
        "tools_used" => Field::ToolsUsed,
        "trajectory" => Field::Trajectory,
        "usage" => Field::Usage,
        "steps" => Field::Steps,
        "error" => Field::Error,
        _ => Field::Other,
    }
}

impl RawFields {
    /// Where a field read as a plain value goes. The trajectory has its own reader and
    /// other keys are not kept, so they have no slot.
    pub(super) fn value_slot(&mut self, field: Field) -> &mut Option<Value> {
        self.values_read = true;
        match field {
            Field::Status => &mut self.status,
            Field::Answer => &mut self.answer,
            Field::ToolCalls => &mut self.tool_calls,
            Field::ToolsUsed => &mut self.tools_used,
            Field::Steps => &mut self.steps,
            Field::Error => &mut self.error,
            Field::Trajectory | Field::Usage | Field::Other => {
                unreachable!("{field:?} has no value slot")
            }
        }
    }
}

/// Reads an object key without allocating it, mapping it at once to what the reader
/// needs to know about it.
#[derive(Debug, Clone, Copy)]
pub(super) struct KeySeed<F>(pub F);

impl<'de, K, F: FnOnce(&str) -> K> DeserializeSeed<'de> for KeySeed<F> {
    type Value = K;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<K, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl<'de, K, F: FnOnce(&str) -> K> Visitor<'de> for KeySeed<F> {
    type Value = K;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object key")
    }

    fn visit_str<E>(self, key: &str) -> Result<K, E> {
        Ok((self.0)(key))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::outcome::{AgentError, Status, Step};
    use serde_json::json;

    #[test]
    fn a_key_filter_lets_its_own_keys_through_and_turns_most_others_away() {
        let keys = [
            "order",
            "attempt",
            "run",
            "timestamp",
            "recorded_at",
            "started_at",
        ];
        let filter = KeyFilter::of(&keys);
        for key in keys {
            assert!(filter.may_hold(key), "{key}");
        }
        let others = ["trajectory", "status", "answer", "usage", "steps", "error"];
        assert!(others.iter().filter(|key| filter.may_hold(key)).count() <= 1);
        // A key that shares a bit with one asked for is still compared, not taken for it.
        let twin = (b'a'..=b'z')
            .map(|first| format!("{}rder", first as char))
            .chain((0..64).map(|n| format!("o{}", "x".repeat(n))))
            .find(|key| key != "order" && filter.may_hold(key))
            .expect("64 bits hold a collision among 90 keys");
        assert_eq!(extra_bits(&keys, filter, &twin), 0);
        assert_eq!(extra_bits(&keys, filter, "run"), 0b100);
    }

    /// Reads a line the fast way, with no extra keys.
    fn read(text: &str) -> Result<Outcome, OutcomeError> {
        OutcomeSeed::<&str>::new(&[])
            .read_str(text)
            .expect("valid JSON")
            .expect("an object")
            .outcome
    }

    /// The same line parsed into a map first, the way `Outcome::from_json` is used.
    fn from_map(text: &str) -> Result<Outcome, OutcomeError> {
        let value: Value = serde_json::from_str(text).unwrap();
        Outcome::from_json(value.as_object().unwrap())
    }

    #[test]
    fn both_step_shapes_read_into_steps() {
        let o = read(
            r#"{"status": "done", "trajectory": [
                {"tool": "lookup", "args": {"order_id": "A1"}, "error": null, "result": {"ok": true}, "latency_ms": 3},
                ["refund", {"order_id": "A1"}],
                {"tool": "email", "error": "timeout"}]}"#,
        )
        .unwrap();
        assert_eq!(o.status, Some(Status::Final));
        assert_eq!(
            o.trajectory,
            vec![
                Step {
                    tool: "lookup".into(),
                    args: json!({"order_id": "A1"}).into(),
                    error: None,
                    result: Some(Box::new(json!({"ok": true}))),
                },
                Step {
                    tool: "refund".into(),
                    args: json!({"order_id": "A1"}).into(),
                    error: None,
                    result: None,
                },
                Step {
                    tool: "email".into(),
                    args: Default::default(),
                    error: Some(Box::new(json!("timeout"))),
                    result: None,
                },
            ]
        );
        assert_eq!((o.tool_calls, o.steps), (3, 3));
        assert_eq!(o.used_tools(), ["lookup", "refund", "email"]);
    }

    #[test]
    fn bad_steps_name_their_index() {
        for bad in [
            r#"[["a", 1], 42]"#,
            r#"[["a", 1], ["b"]]"#,
            r#"[["a", 1], ["b", 1, 2]]"#,
            r#"[["a", 1], [7, 1]]"#,
            r#"[["a", 1], {"args": 1}]"#,
            r#"[["a", 1], {"tool": 5}]"#,
            r#"[["a", 1], null, "also bad"]"#,
        ] {
            let text = format!(r#"{{"trajectory": {bad}, "after": [1, {{"x": 2}}]}}"#);
            let e = read(&text).unwrap_err();
            assert_eq!(e.field, "trajectory[1]", "{bad}");
            assert_eq!(Err(e), from_map(&text), "{bad}");
        }
    }

    #[test]
    fn bad_status_is_reported_after_the_whole_line_is_checked() {
        let e = read(r#"{"status": "finished", "trajectory": [42]}"#).unwrap_err();
        assert_eq!(e.field, "status");
        assert_eq!(
            e.to_string(),
            "field `status`: unknown status \"finished\" (expected final, done, completed, \
             gave_up, hit_cap, timeout or error)"
        );
        let e = read(r#"{"status": 3}"#).unwrap_err();
        assert_eq!(
            e.to_string(),
            "field `status`: expected a string, found a number"
        );
        // Bad JSON later in the line wins over a bad field earlier in it.
        let bad_json = OutcomeSeed::<&str>::new(&[]).read_str(r#"{"status": "finished", "x": }"#);
        assert!(bad_json.is_err());
    }

    #[test]
    fn a_line_too_deep_for_serde_json_is_refused_wherever_the_depth_is() {
        // serde_json refuses a 128th level of nesting, counted from the line's own object.
        for (open, outer, close) in [
            (r#"{"trajectory":[["t","#, 3, "]]}"),
            (r#"{"trajectory":[{"tool":"t","args":"#, 3, "}]}"),
            (r#"{"usage":"#, 1, "}"),
            (r#"{"ts":"#, 1, "}"),
        ] {
            let inner = 128 - outer;
            let line = format!("{open}{}{}{close}", "[".repeat(inner), "]".repeat(inner));
            let error = OutcomeSeed::<&str>::new(&[]).read_str(&line).unwrap_err();
            assert!(
                error.to_string().starts_with("recursion limit exceeded"),
                "{open}"
            );
            let shallower = format!(
                "{open}{}{}{close}",
                "[".repeat(inner - 1),
                "]".repeat(inner - 1)
            );
            assert!(
                OutcomeSeed::<&str>::new(&[]).read_str(&shallower).is_ok(),
                "{open}"
            );
        }
    }

    #[test]
    fn unknown_fields_are_ignored_but_still_checked_as_json() {
        let o = read(
            r#"{"status": "final", "answer": "5", "ts": "2026-03-01", "request_id": {"a": [1, 2.5, null]}}"#,
        )
        .unwrap();
        assert_eq!(o.answer.as_deref(), Some("5"));
        // As when the line is parsed into a map first: an out-of-range number is bad JSON.
        let text = r#"{"status": "final", "noise": 1e400}"#;
        assert!(OutcomeSeed::<&str>::new(&[]).read_str(text).is_err());
        assert!(serde_json::from_str::<Value>(text).is_err());
    }

    #[test]
    fn numbers_and_booleans_are_answers_in_their_json_text() {
        for (answer, text) in [("5", "5"), ("-2", "-2"), ("2.5", "2.5"), ("true", "true")] {
            let line = format!(r#"{{"status": "final", "answer": {answer}}}"#);
            assert_eq!(read(&line).unwrap().answer.as_deref(), Some(text));
        }
        let o = read(r#"{"answer": null}"#).unwrap();
        assert_eq!(o.answer, None);
    }

    #[test]
    fn error_and_usage_shapes() {
        let o = read(
            r#"{"status": "error", "error": {"type": "KeyError", "message": "x", "trace": []},
                "usage": {"input_tokens": 3}}"#,
        )
        .unwrap();
        assert_eq!(
            o.error,
            Some(AgentError {
                kind: "KeyError".into(),
                message: "x".into()
            })
        );
        assert_eq!(o.usage, vec![json!({"input_tokens": 3})]);
        let o = read(r#"{"error": "Boom", "usage": [{"a": 1}, {"b": 2}]}"#).unwrap();
        assert_eq!(o.error.unwrap().kind, "Boom");
        assert_eq!(o.usage.len(), 2);
    }

    #[test]
    fn extra_keys_come_back_even_when_they_are_outcome_fields() {
        let keys = ["task", "status", "trajectory", "missing", "task"];
        let read = OutcomeSeed::new(&keys)
            .read_str(r#"{"task": "t1", "status": "done", "trajectory": [["a", 1]], "task": "t2"}"#)
            .unwrap()
            .unwrap();
        assert_eq!(
            read.extras,
            vec![
                Some(json!("t2")),
                Some(json!("done")),
                Some(json!([["a", 1]])),
                None,
                Some(json!("t2")),
            ]
        );
        let outcome = read.outcome.unwrap();
        assert_eq!(outcome.status, Some(Status::Final));
        assert_eq!(outcome.trajectory[0].tool, "a");
    }

    #[test]
    fn other_json_values_are_not_objects() {
        for (text, kind) in [
            ("[1, {\"a\": 2}]", "a list"),
            ("\"x\"", "a string"),
            ("7", "a number"),
            ("true", "a boolean"),
            ("null", "null"),
        ] {
            let read = OutcomeSeed::<&str>::new(&[]).read_str(text).unwrap();
            assert_eq!(read.unwrap_err(), NotAnObject(kind), "{text}");
        }
        assert!(OutcomeSeed::<&str>::new(&[]).read_str("{} x").is_err());
    }

    #[test]
    fn reading_text_and_reading_a_parsed_object_agree() {
        for text in [
            r#"{"status": "final", "answer": "5", "trajectory": [["calc", "2+3"]], "tool_calls": 4}"#,
            r#"{"status": "hit_cap", "steps": 9, "tools_used": ["a", "b"], "trajectory": []}"#,
            r#"{"status": null, "trajectory": null, "usage": null, "error": null}"#,
            r#"{"trajectory": {"tool": "a"}}"#,
            r#"{"trajectory": "a"}"#,
            r#"{"tool_calls": -1}"#,
            r#"{"steps": 1.5}"#,
            r#"{"tools_used": [1]}"#,
            r#"{"tools_used": "a"}"#,
            r#"{"usage": 3}"#,
            r#"{"error": 3}"#,
            r#"{"error": {"type": " ", "message": {"m": 1}}}"#,
            r#"{"status": "final", "status": "gave_up"}"#,
            r#"{"answer": [1, "a"], "answer": {"k": "v"}}"#,
        ] {
            assert_eq!(read(text), from_map(text), "{text}");
        }
    }
}
