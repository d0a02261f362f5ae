//! The OTLP/HTTP server: `POST /v1/traces` and `POST /v1/logs` on 127.0.0.1, protobuf or
//! JSON, bodies up to [`MAX_BODY_BYTES`] holding what [`super::bounds`] allows. A body that
//! cannot be read gets a 400 with the reason, one over a limit a 413, and the run goes on.

use super::bounds::{MAX_BODY_BYTES, check};
use super::collector::TraceCollector;
use super::decode::{Encoding, Signal, decode};
use crate::loopback::{BodyError, Listener, declared_length, mib, read_body};
use bytes::Bytes;
use http_body_util::Full;
use hyper::body::Incoming;
use hyper::header::{CONTENT_ENCODING, CONTENT_TYPE, HeaderValue};
use hyper::{Method, Request, Response, StatusCode};
use std::net::SocketAddr;
use std::sync::Arc;
use tokio::sync::Semaphore;

/// Request bodies held in memory at once over all attempts: a request waits for its
/// share before its body is read, so many agents sending large bodies at once cost
/// proctor this much, not their number times [`MAX_BODY_BYTES`].
pub const MAX_BODIES_IN_MEMORY: usize = 32 << 20;
static BODIES_IN_MEMORY: Semaphore = Semaphore::const_new(MAX_BODIES_IN_MEMORY);

/// A running receiver; it stops when dropped.
#[derive(Debug)]
pub struct Receiver {
    pub address: SocketAddr,
    pub collector: Arc<TraceCollector>,
    /// Held for its life: it stops when dropped.
    _listener: Listener,
}

impl Receiver {
    /// Listens on a random loopback port, on the current tokio runtime.
    pub async fn start() -> std::io::Result<Receiver> {
        let collector = Arc::new(TraceCollector::default());
        let shared = collector.clone();
        let listener = Listener::start(move |request| {
            let collector = shared.clone();
            async move { respond(&collector, request).await }
        })
        .await?;
        Ok(Receiver {
            address: listener.address,
            collector,
            _listener: listener,
        })
    }

    /// The base URL agents export to (`OTEL_EXPORTER_OTLP_ENDPOINT`).
    pub fn endpoint(&self) -> String {
        format!("http://{}", self.address)
    }
}

async fn respond(collector: &TraceCollector, request: Request<Incoming>) -> Response<Full<Bytes>> {
    let signal = match request.uri().path() {
        "/v1/traces" => Signal::Traces,
        "/v1/logs" => Signal::Logs,
        other => {
            return reply(
                StatusCode::NOT_FOUND,
                format!("no OTLP endpoint at {other}; use /v1/traces or /v1/logs"),
            );
        }
    };
    if request.method() != Method::POST {
        return reply(
            StatusCode::METHOD_NOT_ALLOWED,
            "OTLP requests are POSTs".to_owned(),
        );
    }
    let content_type = request
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_ascii_lowercase();
    let encoding = if content_type.starts_with("application/x-protobuf")
        || content_type.starts_with("application/protobuf")
    {
        Encoding::Protobuf
    } else if content_type.starts_with("application/json") {
        Encoding::Json
    } else {
        return reply(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            format!(
                "content type {content_type:?}: send application/x-protobuf or application/json"
            ),
        );
    };
    if let Some(coding) = request.headers().get(CONTENT_ENCODING)
        && coding != "identity"
    {
        return reply(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            format!(
                "content encoding {:?} is not read; set OTEL_EXPORTER_OTLP_COMPRESSION=none",
                coding.to_str().unwrap_or("?")
            ),
        );
    }
    let declared = declared_length(request.headers());
    let too_large = |size: Option<u64>| {
        let reason = match size {
            Some(size) => format!(
                "trace: {} request is over the {} MiB limit",
                mib(size),
                MAX_BODY_BYTES >> 20
            ),
            None => format!(
                "trace: request is over the {} MiB limit",
                MAX_BODY_BYTES >> 20
            ),
        };
        collector.refuse(reason.clone());
        reply(
            StatusCode::PAYLOAD_TOO_LARGE,
            format!("{reason}; export smaller batches"),
        )
    };
    if let Some(size) = declared.filter(|size| *size > MAX_BODY_BYTES as u64) {
        return too_large(Some(size));
    }
    let claim = declared.map_or(MAX_BODY_BYTES, |size| size as usize);
    let body = match read_body(request.into_body(), claim, &BODIES_IN_MEMORY).await {
        // The share of the budget is held until the request is decoded.
        Ok((body, _memory)) => body,
        Err(BodyError::TooLarge) => return too_large(None),
        Err(error) => {
            return reply(
                StatusCode::BAD_REQUEST,
                format!("cannot read the body: {error}"),
            );
        }
    };
    if let Err(reason) = check(signal, encoding, &body) {
        collector.refuse(reason.clone());
        return reply(StatusCode::PAYLOAD_TOO_LARGE, reason);
    }
    match decode(signal, encoding, &body) {
        Ok(telemetry) => {
            collector.accept(telemetry);
            // An empty Export*ServiceResponse: full success.
            let (body, kind) = match encoding {
                Encoding::Protobuf => (Bytes::new(), "application/x-protobuf"),
                Encoding::Json => (Bytes::from_static(b"{}"), "application/json"),
            };
            let mut response = Response::new(Full::new(body));
            response
                .headers_mut()
                .insert(CONTENT_TYPE, HeaderValue::from_static(kind));
            response
        }
        Err(reason) => reply(StatusCode::BAD_REQUEST, reason),
    }
}

fn reply(status: StatusCode, reason: String) -> Response<Full<Bytes>> {
    let mut response = Response::new(Full::new(Bytes::from(reason)));
    *response.status_mut() = status;
    response.headers_mut().insert(
        CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    response
}

#[cfg(test)]
mod tests {
    use super::*;
    use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
    use opentelemetry_proto::tonic::common::v1::{AnyValue, KeyValue, any_value};
    use opentelemetry_proto::tonic::resource::v1::Resource;
    use opentelemetry_proto::tonic::trace::v1::{ResourceSpans, ScopeSpans, Span};
    use prost::Message;
    use std::time::Duration;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    /// Sends one HTTP/1.1 request and returns the status code and body.
    async fn post(
        address: SocketAddr,
        path: &str,
        content_type: &str,
        body: &[u8],
    ) -> (u16, String) {
        let mut stream = tokio::net::TcpStream::connect(address).await.unwrap();
        let head = format!(
            "POST {path} HTTP/1.1\r\nhost: x\r\ncontent-type: {content_type}\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
            body.len()
        );
        stream.write_all(head.as_bytes()).await.unwrap();
        stream.write_all(body).await.unwrap();
        let mut response = Vec::new();
        stream.read_to_end(&mut response).await.unwrap();
        let text = String::from_utf8_lossy(&response).into_owned();
        let status = text[9..12].parse().unwrap();
        let body = text
            .split_once("\r\n\r\n")
            .map(|(_, b)| b.to_owned())
            .unwrap_or_default();
        (status, body)
    }

    fn text(key: &str, value: &str) -> KeyValue {
        KeyValue {
            key: key.to_owned(),
            key_strindex: 0,
            value: Some(AnyValue {
                value: Some(any_value::Value::StringValue(value.to_owned())),
            }),
        }
    }

    #[tokio::test]
    async fn protobuf_and_json_are_read_and_bad_bodies_get_a_reason() {
        let receiver = Receiver::start().await.unwrap();
        let registration = receiver
            .collector
            .register(&receiver.endpoint(), "a", "t", 0);
        let trace_id = registration.env[2].1.split('-').nth(1).unwrap().to_owned();
        let key = registration.env[3].1.rsplit('=').next().unwrap().to_owned();
        let request = ExportTraceServiceRequest {
            resource_spans: vec![ResourceSpans {
                resource: Some(Resource {
                    attributes: vec![
                        text("proctor.task_id", "t"),
                        text("proctor.attempt", "0"),
                        text("proctor.attempt_key", &key),
                    ],
                    ..Resource::default()
                }),
                scope_spans: vec![ScopeSpans {
                    spans: vec![Span {
                        trace_id: vec![7; 16],
                        span_id: vec![1; 8],
                        name: "execute_tool refund".to_owned(),
                        start_time_unix_nano: 5,
                        attributes: vec![
                            text("gen_ai.operation.name", "execute_tool"),
                            text("gen_ai.tool.name", "refund"),
                            text("gen_ai.tool.call.arguments", r#"{"order_id":"A1"}"#),
                        ],
                        ..Span::default()
                    }],
                    ..ScopeSpans::default()
                }],
                ..ResourceSpans::default()
            }],
        };
        let (status, _) = post(
            receiver.address,
            "/v1/traces",
            "application/x-protobuf",
            &request.encode_to_vec(),
        )
        .await;
        assert_eq!(status, 200);
        // The same attempt by trace id, in JSON.
        let json = format!(
            r#"{{"resourceSpans":[{{"scopeSpans":[{{"spans":[{{"traceId":"{trace_id}","spanId":"0000000000000002","name":"execute_tool check","startTimeUnixNano":"1","attributes":[{{"key":"gen_ai.operation.name","value":{{"stringValue":"execute_tool"}}}},{{"key":"gen_ai.tool.name","value":{{"stringValue":"check"}}}}]}}]}}]}}]}}"#
        );
        let (status, body) = post(
            receiver.address,
            "/v1/traces",
            "application/json",
            json.as_bytes(),
        )
        .await;
        assert_eq!((status, body.as_str()), (200, "{}"));
        let (status, body) = post(
            receiver.address,
            "/v1/traces",
            "application/x-protobuf",
            b"\xff\xff\xff",
        )
        .await;
        assert_eq!(status, 400);
        assert!(
            body.starts_with("not an ExportTraceServiceRequest"),
            "{body}"
        );
        let (status, body) = post(
            receiver.address,
            "/v1/traces",
            "application/json",
            b"{\"spans\": []}",
        )
        .await;
        assert_eq!(
            (status, body.as_str()),
            (
                400,
                "document: not OTLP: no resourceSpans or resourceLogs (found spans)"
            )
        );
        let (status, _) = post(receiver.address, "/v1/metrics", "application/json", b"{}").await;
        assert_eq!(status, 404);
        let (status, _) = post(receiver.address, "/v1/traces", "text/plain", b"{}").await;
        assert_eq!(status, 415);
        // A log record carrying usage, in protobuf, attributed by trace id.
        let logs = opentelemetry_proto::tonic::collector::logs::v1::ExportLogsServiceRequest {
            resource_logs: vec![opentelemetry_proto::tonic::logs::v1::ResourceLogs {
                scope_logs: vec![opentelemetry_proto::tonic::logs::v1::ScopeLogs {
                    log_records: vec![opentelemetry_proto::tonic::logs::v1::LogRecord {
                        trace_id: (0..16)
                            .map(|i| u8::from_str_radix(&trace_id[2 * i..2 * i + 2], 16).unwrap())
                            .collect(),
                        attributes: vec![
                            text("gen_ai.provider.name", "openai"),
                            KeyValue {
                                key: "gen_ai.usage.input_tokens".to_owned(),
                                key_strindex: 0,
                                value: Some(AnyValue {
                                    value: Some(any_value::Value::IntValue(42)),
                                }),
                            },
                        ],
                        ..Default::default()
                    }],
                    ..Default::default()
                }],
                ..Default::default()
            }],
        };
        let (status, _) = post(
            receiver.address,
            "/v1/logs",
            "application/x-protobuf",
            &logs.encode_to_vec(),
        )
        .await;
        assert_eq!(status, 200);
        let collected = receiver
            .collector
            .finish(registration, Duration::from_millis(10))
            .await
            .unwrap();
        let usage = &collected.evidence.outcome.usage;
        assert_eq!(usage.len(), 1);
        assert_eq!(usage[0].to_value()["input_tokens"], 42);
        let tools: Vec<&str> = collected
            .evidence
            .outcome
            .trajectory
            .iter()
            .map(|s| s.tool.as_str())
            .collect();
        assert_eq!(tools, vec!["check", "refund"], "ordered by start time");
        assert_eq!(receiver.collector.unattributed(), 0);
    }
}
