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

    pub fn push(&mut self, key: impl Into<String>, value: Value) {
        self.0.push((key.into(), value));
    }
}

/// A span's status: `code` 0 unset, 1 ok, 2 error (the OTLP enum).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SpanStatus {
    pub code: u8,
    pub message: String,
}

impl SpanStatus {
    pub const ERROR: u8 = 2;

    #[must_use]
    pub fn is_error(&self) -> bool {
        self.code == Self::ERROR
    }
}

/// An event recorded on a span (`exception`, or older `gen_ai.*` message events).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SpanEvent {
    pub name: String,
    pub attributes: Attributes,
}

/// One span, with its resource's attributes shared with the other spans of its batch.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Span {
    pub trace_id: String,
    pub span_id: String,
    /// `None` for a root span.
    pub parent_span_id: Option<String>,
    pub name: String,
    pub start_ns: u64,
    pub end_ns: u64,
    pub attributes: Attributes,
    pub resource: Arc<Attributes>,
    pub status: SpanStatus,
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
    pub span_id: Option<String>,
    pub time_ns: u64,
    pub event_name: String,
    pub attributes: Attributes,
    pub resource: Arc<Attributes>,
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
    pub spans: Vec<Span>,
    pub logs: Vec<LogRecord>,
}
