//! Traces as evidence (docs/traces.md): OpenTelemetry spans and log records read into an
//! [`Outcome`](crate::outcome::Outcome), so an instrumented agent is graded without glue
//! code and a self-reported trajectory can be checked against what really ran.
//!
//! - [`span`]: the spans and log records proctor reads, whatever wire format they came in.
//! - [`otlp_json`]: OTLP JSON documents (the OTLP/HTTP JSON encoding and the Collector's
//!   file exporter), hex or base64 ids.
//! - [`group`]: spans grouped into traces, a trace closing once its root span arrived.
//! - [`evidence`](mod@evidence): one trace's spans and logs → the outcome they show.
//! - [`compare`]: the differences between a reported trajectory and a traced one.
//!
//! Everything here is synchronous and offline; the receiver that collects spans from a
//! running agent lives in the command line.

pub mod compare;
mod conventions;
pub mod evidence;
pub mod group;
mod ids;
pub mod otlp_json;
pub mod span;
mod usage;

pub use compare::{Evidence, RECORDED_CALLS, differences, differences_from};
pub use evidence::{TraceEvidence, evidence};
pub use group::{ClosedTrace, TraceGrouper};
pub use ids::hex as hex_id;
pub use otlp_json::{OtlpError, read_document};
pub use span::{Attributes, LogRecord, Span, SpanStatus, Telemetry};
