//! OTLP JSON: the OTLP/HTTP JSON encoding, and the OpenTelemetry Collector's file exporter
//! (one `TracesData` or `LogsData` document a line).
//!
//! The encoding writes field names in lowerCamelCase, ids as hex, enums as integers and
//! 64-bit integers as strings; the protobuf JSON mapping (`MessageToDict`) writes ids as
//! base64 and may keep snake_case names. All of these are read. A document that is not
//! OTLP (no `resourceSpans` or `resourceLogs`) is an error, never an empty trace.

use super::ids::read_id;
use super::span::{Attributes, LogRecord, Span, SpanEvent, SpanStatus, Telemetry};
use serde_json::{Map, Value};
use std::sync::Arc;

/// Why a document could not be read; the message names the field's path.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{path}: {problem}")]
pub struct OtlpError {
    /// The path of the offending field, e.g. `resourceSpans[0].scopeSpans[1]`.
    pub path: String,
    /// What is wrong with it.
    pub problem: String,
}

fn error(path: &str, problem: impl Into<String>) -> OtlpError {
    OtlpError {
        path: path.to_owned(),
        problem: problem.into(),
    }
}

/// Reads one OTLP JSON document (`TracesData`/`ExportTraceServiceRequest`, `LogsData`/
/// `ExportLogsServiceRequest`, or an object holding both lists).
pub fn read_document(document: &Value) -> Result<Telemetry, OtlpError> {
    let Some(object) = document.as_object() else {
        return Err(error("document", "expected an OTLP JSON object"));
    };
    let spans = field(object, "resourceSpans", "resource_spans");
    let logs = field(object, "resourceLogs", "resource_logs");
    if spans.is_none() && logs.is_none() {
        let keys: Vec<&str> = object.keys().map(String::as_str).take(5).collect();
        return Err(error(
            "document",
            format!(
                "not OTLP: no resourceSpans or resourceLogs (found {})",
                if keys.is_empty() {
                    "an empty object".to_owned()
                } else {
                    keys.join(", ")
                }
            ),
        ));
    }
    let mut telemetry = Telemetry::default();
    for (r, resource_spans) in list(spans, "resourceSpans")?.iter().enumerate() {
        let path = format!("resourceSpans[{r}]");
        let resource_spans = object_at(resource_spans, &path)?;
        let resource = Arc::new(resource_attributes(resource_spans, &path)?);
        let scopes = field(resource_spans, "scopeSpans", "scope_spans").or_else(|| {
            field(
                resource_spans,
                "instrumentationLibrarySpans",
                "instrumentation_library_spans",
            )
        });
        for (s, scope_spans) in list(scopes, &path)?.iter().enumerate() {
            let path = format!("{path}.scopeSpans[{s}]");
            let scope_spans = object_at(scope_spans, &path)?;
            for (i, span) in list(scope_spans.get("spans"), &path)?.iter().enumerate() {
                let path = format!("{path}.spans[{i}]");
                telemetry.spans.push(read_span(span, &resource, &path)?);
            }
        }
    }
    for (r, resource_logs) in list(logs, "resourceLogs")?.iter().enumerate() {
        let path = format!("resourceLogs[{r}]");
        let resource_logs = object_at(resource_logs, &path)?;
        let resource = Arc::new(resource_attributes(resource_logs, &path)?);
        let scopes = field(resource_logs, "scopeLogs", "scope_logs");
        for (s, scope_logs) in list(scopes, &path)?.iter().enumerate() {
            let path = format!("{path}.scopeLogs[{s}]");
            let scope_logs = object_at(scope_logs, &path)?;
            let records = field(scope_logs, "logRecords", "log_records");
            for (i, record) in list(records, &path)?.iter().enumerate() {
                let path = format!("{path}.logRecords[{i}]");
                telemetry.logs.push(read_log(record, &resource, &path)?);
            }
        }
    }
    Ok(telemetry)
}

fn read_span(value: &Value, resource: &Arc<Attributes>, path: &str) -> Result<Span, OtlpError> {
    let span = object_at(value, path)?;
    let trace_id = id(span, "traceId", "trace_id", 16, path)?
        .ok_or_else(|| error(path, "a span without a traceId"))?;
    let span_id = id(span, "spanId", "span_id", 8, path)?
        .ok_or_else(|| error(path, "a span without a spanId"))?;
    let parent_span_id = id(span, "parentSpanId", "parent_span_id", 8, path)?;
    let name = match span.get("name") {
        Some(Value::String(name)) => name.clone(),
        None | Some(Value::Null) => String::new(),
        Some(_) => return Err(error(&format!("{path}.name"), "expected a string")),
    };
    let status = match span.get("status") {
        Some(Value::Object(status)) => SpanStatus {
            code: status_code(status.get("code"), &format!("{path}.status.code"))?,
            message: status
                .get("message")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned(),
        },
        _ => SpanStatus::default(),
    };
    let mut events = Vec::new();
    for (e, event) in list(span.get("events"), path)?.iter().enumerate() {
        let path = format!("{path}.events[{e}]");
        let event = object_at(event, &path)?;
        events.push(SpanEvent {
            name: event
                .get("name")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned(),
            attributes: attributes(event.get("attributes"), &path)?,
        });
    }
    Ok(Span {
        trace_id,
        span_id,
        parent_span_id,
        name,
        start_ns: nanos(span, "startTimeUnixNano", "start_time_unix_nano", path)?,
        end_ns: nanos(span, "endTimeUnixNano", "end_time_unix_nano", path)?,
        attributes: attributes(span.get("attributes"), path)?,
        resource: resource.clone(),
        status,
        events,
    })
}

fn read_log(value: &Value, resource: &Arc<Attributes>, path: &str) -> Result<LogRecord, OtlpError> {
    let record = object_at(value, path)?;
    let time_ns = match nanos(record, "timeUnixNano", "time_unix_nano", path)? {
        0 => nanos(
            record,
            "observedTimeUnixNano",
            "observed_time_unix_nano",
            path,
        )?,
        time => time,
    };
    let body = match record.get("body") {
        None | Some(Value::Null) => None,
        Some(body) => Some(any_value(body, &format!("{path}.body"))?),
    };
    Ok(LogRecord {
        trace_id: id(record, "traceId", "trace_id", 16, path)?,
        span_id: id(record, "spanId", "span_id", 8, path)?,
        time_ns,
        event_name: field(record, "eventName", "event_name")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned(),
        attributes: attributes(record.get("attributes"), path)?,
        resource: resource.clone(),
        body,
    })
}

fn resource_attributes(parent: &Map<String, Value>, path: &str) -> Result<Attributes, OtlpError> {
    match parent.get("resource") {
        Some(Value::Object(resource)) => {
            attributes(resource.get("attributes"), &format!("{path}.resource"))
        }
        _ => Ok(Attributes::default()),
    }
}

/// A `KeyValue` list as attributes.
fn attributes(value: Option<&Value>, path: &str) -> Result<Attributes, OtlpError> {
    let mut out = Attributes::default();
    for (a, pair) in list(value, path)?.iter().enumerate() {
        let path = format!("{path}.attributes[{a}]");
        let pair = object_at(pair, &path)?;
        let Some(Value::String(key)) = pair.get("key") else {
            return Err(error(&path, "an attribute without a string `key`"));
        };
        let value = match pair.get("value") {
            None | Some(Value::Null) => Value::Null,
            Some(value) => any_value(value, &format!("{path}.value"))?,
        };
        out.push(key.clone(), value);
    }
    Ok(out)
}

/// An `AnyValue` as plain JSON: strings, booleans, numbers, lists and objects.
fn any_value(value: &Value, path: &str) -> Result<Value, OtlpError> {
    let Some(object) = value.as_object() else {
        return Err(error(
            path,
            "expected an AnyValue object such as {\"stringValue\": ...}",
        ));
    };
    let Some((kind, inner)) = object.iter().next() else {
        return Ok(Value::Null);
    };
    Ok(match kind.as_str() {
        "stringValue" | "string_value" | "bytesValue" | "bytes_value" => inner.clone(),
        "boolValue" | "bool_value" => inner.clone(),
        "intValue" | "int_value" => match inner {
            Value::String(text) => text
                .parse::<i64>()
                .map(Value::from)
                .map_err(|_| error(path, format!("intValue {text:?} is not an integer")))?,
            other => other.clone(),
        },
        "doubleValue" | "double_value" => match inner {
            Value::String(text) => text
                .parse::<f64>()
                .ok()
                .and_then(serde_json::Number::from_f64)
                .map_or(Value::Null, Value::Number),
            other => other.clone(),
        },
        "arrayValue" | "array_value" => {
            let mut items = Vec::new();
            for (i, item) in list(inner.get("values"), path)?.iter().enumerate() {
                items.push(any_value(item, &format!("{path}.values[{i}]"))?);
            }
            Value::Array(items)
        }
        "kvlistValue" | "kvlist_value" => {
            let mut map = Map::new();
            for (key, value) in attributes(inner.get("values"), path)?.0 {
                map.insert(key, value);
            }
            Value::Object(map)
        }
        other => return Err(error(path, format!("unknown AnyValue kind `{other}`"))),
    })
}

fn field<'a>(object: &'a Map<String, Value>, camel: &str, snake: &str) -> Option<&'a Value> {
    object.get(camel).or_else(|| object.get(snake))
}

fn object_at<'a>(value: &'a Value, path: &str) -> Result<&'a Map<String, Value>, OtlpError> {
    value
        .as_object()
        .ok_or_else(|| error(path, "expected an object"))
}

/// A list, or nothing when the field is absent or null (OTLP JSON omits empty lists).
fn list<'a>(value: Option<&'a Value>, path: &str) -> Result<&'a [Value], OtlpError> {
    match value {
        None | Some(Value::Null) => Ok(&[]),
        Some(Value::Array(items)) => Ok(items),
        Some(_) => Err(error(path, "expected a list")),
    }
}

fn id(
    object: &Map<String, Value>,
    camel: &str,
    snake: &str,
    bytes: usize,
    path: &str,
) -> Result<Option<String>, OtlpError> {
    match field(object, camel, snake) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(text)) => {
            read_id(text, bytes).map_err(|problem| error(&format!("{path}.{camel}"), problem))
        }
        Some(_) => Err(error(&format!("{path}.{camel}"), "expected a string")),
    }
}

fn nanos(
    object: &Map<String, Value>,
    camel: &str,
    snake: &str,
    path: &str,
) -> Result<u64, OtlpError> {
    match field(object, camel, snake) {
        None | Some(Value::Null) => Ok(0),
        Some(Value::Number(n)) => n.as_u64().ok_or_else(|| {
            error(
                &format!("{path}.{camel}"),
                "expected a non-negative integer",
            )
        }),
        Some(Value::String(text)) => text.parse().map_err(|_| {
            error(
                &format!("{path}.{camel}"),
                format!("{text:?} is not an integer"),
            )
        }),
        Some(_) => Err(error(&format!("{path}.{camel}"), "expected an integer")),
    }
}

fn status_code(value: Option<&Value>, path: &str) -> Result<u8, OtlpError> {
    match value {
        None | Some(Value::Null) => Ok(0),
        Some(Value::Number(n)) => match n.as_u64() {
            Some(code @ 0..=2) => Ok(code as u8),
            _ => Err(error(path, format!("unknown status code {n}"))),
        },
        Some(Value::String(name)) => match name.as_str() {
            "STATUS_CODE_UNSET" => Ok(0),
            "STATUS_CODE_OK" => Ok(1),
            "STATUS_CODE_ERROR" => Ok(2),
            _ => Err(error(path, format!("unknown status code {name:?}"))),
        },
        Some(_) => Err(error(path, "expected an integer")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reads_spans_with_resource_and_typed_values() {
        let document = json!({"resourceSpans": [{
            "resource": {"attributes": [{"key": "proctor.task_id", "value": {"stringValue": "t1"}}]},
            "scopeSpans": [{"scope": {"name": "x"}, "spans": [{
                "traceId": "5b8efff798038103d269b633813fc60c", "spanId": "eee19b7ec3c1b174",
                "parentSpanId": "", "name": "chat gpt-4o", "kind": 3,
                "startTimeUnixNano": "1544712660000000000", "endTimeUnixNano": "1544712661000000000",
                "attributes": [
                    {"key": "gen_ai.usage.input_tokens", "value": {"intValue": "812"}},
                    {"key": "ratio", "value": {"doubleValue": 0.5}},
                    {"key": "list", "value": {"arrayValue": {"values": [{"stringValue": "a"}]}}},
                    {"key": "map", "value": {"kvlistValue": {"values": [{"key": "k", "value": {"boolValue": true}}]}}}
                ],
                "status": {"code": 2, "message": "boom"}
            }]}]
        }]});
        let telemetry = read_document(&document).unwrap();
        let span = &telemetry.spans[0];
        assert_eq!(span.parent_span_id, None);
        assert_eq!(span.start_ns, 1_544_712_660_000_000_000);
        assert_eq!(
            span.attributes.count("gen_ai.usage.input_tokens"),
            Some(812)
        );
        assert_eq!(span.attributes.get("list"), Some(&json!(["a"])));
        assert_eq!(span.attributes.get("map"), Some(&json!({"k": true})));
        assert_eq!(span.attribute("proctor.task_id"), Some(&json!("t1")));
        assert!(span.status.is_error());
    }

    #[test]
    fn not_otlp_and_bad_ids_name_the_place() {
        let e = read_document(&json!({"task": "x"})).unwrap_err();
        assert_eq!(
            e.to_string(),
            "document: not OTLP: no resourceSpans or resourceLogs (found task)"
        );
        let e = read_document(&json!({"resourceSpans": [{"scopeSpans": [{"spans": [
            {"traceId": "zz", "spanId": "eee19b7ec3c1b174"}]}]}]}))
        .unwrap_err();
        assert_eq!(e.path, "resourceSpans[0].scopeSpans[0].spans[0].traceId");
    }

    #[test]
    fn reads_log_records() {
        let document = json!({"resourceLogs": [{"scopeLogs": [{"logRecords": [{
            "timeUnixNano": "5", "traceId": "5b8efff798038103d269b633813fc60c",
            "eventName": "gen_ai.client.inference.operation.details",
            "body": {"stringValue": "hi"},
            "attributes": [{"key": "gen_ai.usage.output_tokens", "value": {"intValue": 7}}]
        }]}]}]});
        let telemetry = read_document(&document).unwrap();
        assert_eq!(
            telemetry.logs[0]
                .attributes
                .count("gen_ai.usage.output_tokens"),
            Some(7)
        );
        assert_eq!(telemetry.logs[0].body, Some(json!("hi")));
    }
}
