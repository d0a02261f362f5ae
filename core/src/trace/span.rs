//! The spans and log records proctor reads, independent of the wire format (protobuf or
//! JSON) they arrived in. Ids are lowercase hex; attribute values are JSON values.

use serde_json::Value;
use std::sync::Arc;

/// Attributes in the order they came, looked up by a linear scan: spans carry a few dozen.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Attributes(pub Vec<(String, Value)>);

impl Attributes {
    /// The value of `key`, if present.
    #[must_use]
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.0.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    /// The value of `key` when it is a non-empty string.
    #[must_use]
    pub fn str(&self, key: &str) -> Option<&str> {
        self.get(key)
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
    }

    /// The first of `keys` that is a non-empty string.
    #[must_use]
    pub fn first_str(&self, keys: &[&str]) -> Option<&str> {
        keys.iter().find_map(|key| self.str(key))
    }

    /// The value of `key` as a token count: a non-negative integer, or a string of digits
    /// (OTLP JSON writes int64 values as strings).
    #[must_use]
    pub fn count(&self, key: &str) -> Option<u64> {
        match self.get(key)? {
            Value::Number(n) => n.as_u64().or_else(|| {
                n.as_f64()
                    .filter(|f| *f >= 0.0 && f.fract() == 0.0)
                    .map(|f| f as u64)
            }),
            Value::String(s) => s.trim().parse().ok(),
            _ => None,
        }
    }

    /// The first of `keys` that holds a count.
    #[must_use]
    pub fn first_count(&self, keys: &[&str]) -> Option<u64> {
        keys.iter().find_map(|key| self.count(key))
    }

    /// Adds `key` after the existing attributes (a repeated key is kept; `get` finds the first).
    pub fn push(&mut self, key: impl Into<String>, value: Value) {
        self.0.push((key.into(), value));
    }
}

/// A span's status: `code` 0 unset, 1 ok, 2 error (the OTLP enum).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SpanStatus {
    /// 0 unset, 1 ok, 2 error.
    pub code: u8,
    /// The status message; empty when none was sent.
    pub message: String,
}

impl SpanStatus {
    /// The OTLP code for an error status.
    pub const ERROR: u8 = 2;

    /// Whether the span ended in error.
    #[must_use]
    pub fn is_error(&self) -> bool {
        self.code == Self::ERROR
    }
}

/// An event recorded on a span (`exception`, or older `gen_ai.*` message events).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SpanEvent {
    /// The span or event name, e.g. `chat gpt-4o` or `exception`.
    pub name: String,
    /// Its own attributes.
    pub attributes: Attributes,
}

/// One span, with its resource's attributes shared with the other spans of its batch.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Span {
    /// The hex trace id.
    pub trace_id: String,
    /// The hex span id.
    pub span_id: String,
    /// `None` for a root span.
    pub parent_span_id: Option<String>,
    /// The span or event name, e.g. `chat gpt-4o` or `exception`.
    pub name: String,
    /// Start time, nanoseconds since the Unix epoch.
    pub start_ns: u64,
    /// End time, nanoseconds since the Unix epoch.
    pub end_ns: u64,
    /// Its own attributes.
    pub attributes: Attributes,
    /// The attributes of the resource that emitted it, shared with its batch.
    pub resource: Arc<Attributes>,
    /// The span's status.
    pub status: SpanStatus,
    /// Events recorded on the span, in order.
    pub events: Vec<SpanEvent>,
}

impl Span {
    /// The value of `key` on the span, else on its resource.
    #[must_use]
    pub fn attribute(&self, key: &str) -> Option<&Value> {
        self.attributes.get(key).or_else(|| self.resource.get(key))
    }
}

/// One log record (an OpenTelemetry event); GenAI instrumentations log usage and messages
/// as these.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LogRecord {
    /// The trace and span the record was emitted in, when it was.
    pub trace_id: Option<String>,
    /// The hex span id.
    pub span_id: Option<String>,
    /// When the record was emitted (else observed), nanoseconds since the Unix epoch.
    pub time_ns: u64,
    /// The record's event name (e.g. `gen_ai.user.message`); empty when it has none.
    pub event_name: String,
    /// Its own attributes.
    pub attributes: Attributes,
    /// The attributes of the resource that emitted it, shared with its batch.
    pub resource: Arc<Attributes>,
    /// The record's body, when it has one.
    pub body: Option<Value>,
}

impl LogRecord {
    /// The value of `key` on the record, else on its resource.
    #[must_use]
    pub fn attribute(&self, key: &str) -> Option<&Value> {
        self.attributes.get(key).or_else(|| self.resource.get(key))
    }
}

/// What one OTLP document (a request body, or a line of a file) held.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Telemetry {
    /// The spans, in document order.
    pub spans: Vec<Span>,
    /// The log records, in document order.
    pub logs: Vec<LogRecord>,
}
