//! OTLP request bodies → spans and log records: protobuf through the `opentelemetry-proto`
//! types, JSON through proctor-core's OTLP JSON reader.

use opentelemetry_proto::tonic::collector::logs::v1::ExportLogsServiceRequest;
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::{AnyValue, KeyValue, any_value};
use opentelemetry_proto::tonic::resource::v1::Resource;
use proctor_core::trace::span::SpanEvent;
use proctor_core::trace::{
    Attributes, LogRecord, Span, SpanStatus, Telemetry, hex_id, read_document,
};
use prost::Message;
use serde_json::{Map, Value};
use std::sync::Arc;

/// Which OTLP signal a request carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Signal {
    Traces,
    Logs,
}

/// How the body is encoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Encoding {
    Protobuf,
    Json,
}

/// Decodes one request body; the error is the reason sent back with a 400.
pub fn decode(signal: Signal, encoding: Encoding, body: &[u8]) -> Result<Telemetry, String> {
    match encoding {
        Encoding::Json => {
            let document: Value =
                serde_json::from_slice(body).map_err(|e| format!("body is not JSON: {e}"))?;
            let telemetry = read_document(&document).map_err(|e| e.to_string())?;
            let wrong = match signal {
                Signal::Traces => !telemetry.logs.is_empty(),
                Signal::Logs => !telemetry.spans.is_empty(),
            };
            if wrong {
                return Err("spans go to /v1/traces and log records to /v1/logs".to_owned());
            }
            Ok(telemetry)
        }
        Encoding::Protobuf => match signal {
            Signal::Traces => ExportTraceServiceRequest::decode(body)
                .map(spans)
                .map_err(|e| format!("not an ExportTraceServiceRequest: {e}")),
            Signal::Logs => ExportLogsServiceRequest::decode(body)
                .map(logs)
                .map_err(|e| format!("not an ExportLogsServiceRequest: {e}")),
        },
    }
}

fn spans(request: ExportTraceServiceRequest) -> Telemetry {
    let mut telemetry = Telemetry::default();
    for resource_spans in request.resource_spans {
        let resource = resource_attributes(resource_spans.resource);
        for scope_spans in resource_spans.scope_spans {
            for span in scope_spans.spans {
                let status = span.status.unwrap_or_default();
                telemetry.spans.push(Span {
                    trace_id: hex_id(&span.trace_id),
                    span_id: hex_id(&span.span_id),
                    parent_span_id: id(&span.parent_span_id),
                    name: span.name,
                    start_ns: span.start_time_unix_nano,
                    end_ns: span.end_time_unix_nano,
                    attributes: attributes(span.attributes),
                    resource: resource.clone(),
                    status: SpanStatus {
                        code: u8::try_from(status.code).unwrap_or(0),
                        message: status.message,
                    },
                    events: span
                        .events
                        .into_iter()
                        .map(|event| SpanEvent {
                            name: event.name,
                            attributes: attributes(event.attributes),
                        })
                        .collect(),
                });
            }
        }
    }
    telemetry
}

fn logs(request: ExportLogsServiceRequest) -> Telemetry {
    let mut telemetry = Telemetry::default();
    for resource_logs in request.resource_logs {
        let resource = resource_attributes(resource_logs.resource);
        for scope_logs in resource_logs.scope_logs {
            for record in scope_logs.log_records {
                telemetry.logs.push(LogRecord {
                    trace_id: id(&record.trace_id),
                    span_id: id(&record.span_id),
                    time_ns: if record.time_unix_nano > 0 {
                        record.time_unix_nano
                    } else {
                        record.observed_time_unix_nano
                    },
                    event_name: record.event_name,
                    attributes: attributes(record.attributes),
                    resource: resource.clone(),
                    body: record.body.map(any_value),
                });
            }
        }
    }
    telemetry
}

/// An id as hex; empty and all-zero ids are none.
fn id(bytes: &[u8]) -> Option<String> {
    bytes.iter().any(|b| *b != 0).then(|| hex_id(bytes))
}

fn resource_attributes(resource: Option<Resource>) -> Arc<Attributes> {
    Arc::new(
        resource
            .map(|r| attributes(r.attributes))
            .unwrap_or_default(),
    )
}

fn attributes(pairs: Vec<KeyValue>) -> Attributes {
    Attributes(
        pairs
            .into_iter()
            .map(|pair| (pair.key, pair.value.map_or(Value::Null, any_value)))
            .collect(),
    )
}

fn any_value(value: AnyValue) -> Value {
    match value.value {
        None => Value::Null,
        Some(any_value::Value::StringValue(text)) => Value::String(text),
        Some(any_value::Value::BoolValue(flag)) => Value::Bool(flag),
        Some(any_value::Value::IntValue(number)) => Value::from(number),
        Some(any_value::Value::DoubleValue(number)) => {
            serde_json::Number::from_f64(number).map_or(Value::Null, Value::Number)
        }
        Some(any_value::Value::ArrayValue(list)) => {
            Value::Array(list.values.into_iter().map(any_value).collect())
        }
        Some(any_value::Value::KvlistValue(list)) => Value::Object(
            list.values
                .into_iter()
                .map(|pair| (pair.key, pair.value.map_or(Value::Null, any_value)))
                .collect::<Map<String, Value>>(),
        ),
        Some(any_value::Value::BytesValue(bytes)) => Value::String(hex_id(&bytes)),
        // An index into a profiles dictionary: no text to read here.
        Some(any_value::Value::StringValueStrindex(_)) => Value::Null,
    }
}
