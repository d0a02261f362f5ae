//! Benchmark baseline for the OTLP receiver of `proctor run`: a bare protobuf decode of an
//! `ExportTraceServiceRequest`, nothing else. See `bench/traces/README.md`.
//!
//! `otlp_decode_baseline write BODY.pb SPANS` writes a request of SPANS GenAI spans (tool and
//! chat spans with realistic attributes, resource attributes naming task `bench` attempt 0);
//! `otlp_decode_baseline decode BODY.pb REPEAT` decodes it REPEAT times and prints the spans
//! decoded per second.

use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::{AnyValue, KeyValue, any_value};
use opentelemetry_proto::tonic::resource::v1::Resource;
use opentelemetry_proto::tonic::trace::v1::{ResourceSpans, ScopeSpans, Span};
use prost::Message;
use std::time::Instant;

fn text(key: &str, value: &str) -> KeyValue {
    KeyValue {
        key: key.to_owned(),
        key_strindex: 0,
        value: Some(AnyValue {
            value: Some(any_value::Value::StringValue(value.to_owned())),
        }),
    }
}

fn int(key: &str, value: i64) -> KeyValue {
    KeyValue {
        key: key.to_owned(),
        key_strindex: 0,
        value: Some(AnyValue {
            value: Some(any_value::Value::IntValue(value)),
        }),
    }
}

fn body(spans: usize) -> Vec<u8> {
    let spans = (0..spans)
        .map(|index| {
            let tool = index % 3 != 0;
            let attributes = if tool {
                vec![
                    text("gen_ai.operation.name", "execute_tool"),
                    text("gen_ai.tool.name", "refund"),
                    text("gen_ai.tool.call.id", &format!("call_{index}")),
                    text("gen_ai.tool.call.arguments", r#"{"order_id":"A1"}"#),
                    text("gen_ai.agent.name", "refund_agent"),
                ]
            } else {
                vec![
                    text("gen_ai.operation.name", "chat"),
                    text("gen_ai.provider.name", "openai"),
                    text("gen_ai.request.model", "gpt-4o-mini"),
                    text("gen_ai.response.model", "gpt-4o-mini"),
                    int("gen_ai.usage.input_tokens", 100),
                    int("gen_ai.usage.output_tokens", 20),
                    text("gen_ai.response.id", &format!("chatcmpl-{index}")),
                ]
            };
            Span {
                trace_id: vec![7; 16],
                span_id: (index as u64 + 1).to_be_bytes().to_vec(),
                parent_span_id: vec![0xee; 8],
                name: if tool {
                    "execute_tool refund"
                } else {
                    "chat gpt-4o-mini"
                }
                .to_owned(),
                kind: 1,
                start_time_unix_nano: 1_764_000_000_000_000_000 + index as u64,
                end_time_unix_nano: 1_764_000_000_000_500_000 + index as u64,
                attributes,
                ..Span::default()
            }
        })
        .collect();
    ExportTraceServiceRequest {
        resource_spans: vec![ResourceSpans {
            resource: Some(Resource {
                attributes: vec![
                    text("service.name", "bench"),
                    text("proctor.task_id", "bench"),
                    text("proctor.attempt", "0"),
                ],
                ..Resource::default()
            }),
            scope_spans: vec![ScopeSpans {
                spans,
                ..ScopeSpans::default()
            }],
            ..ResourceSpans::default()
        }],
    }
    .encode_to_vec()
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.iter().map(String::as_str).collect::<Vec<_>>()[..] {
        ["write", path, spans] => {
            std::fs::write(path, body(spans.parse()?))?;
        }
        ["decode", path, repeat] => {
            let bytes = std::fs::read(path)?;
            let repeat: usize = repeat.parse()?;
            let started = Instant::now();
            let mut spans = 0usize;
            for _ in 0..repeat {
                let request = ExportTraceServiceRequest::decode(bytes.as_slice())?;
                spans += request
                    .resource_spans
                    .iter()
                    .flat_map(|r| &r.scope_spans)
                    .map(|s| s.spans.len())
                    .sum::<usize>();
            }
            let seconds = started.elapsed().as_secs_f64();
            println!("{:.0}", spans as f64 / seconds);
        }
        _ => {
            return Err(
                "usage: otlp_decode_baseline write BODY.pb SPANS | decode BODY.pb REPEAT".into(),
            );
        }
    }
    Ok(())
}
