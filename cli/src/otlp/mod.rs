//! The OTLP/HTTP receiver inside `proctor run` (docs/traces.md): agents export their
//! OpenTelemetry spans and logs to it, and each attempt's trace becomes evidence graded
//! beside (or instead of) what the agent reports.
//!
//! - [`decode`]: request bodies (protobuf or JSON) → proctor-core's spans and log records.
//! - [`collector`]: which attempt a span belongs to, the per-attempt environment, and the
//!   wait for late exports after the agent exits.
//! - [`server`]: the HTTP server on 127.0.0.1, on the run's tokio runtime.
//! - [`bounds`]: how much one request may hold, checked before it is decoded.
//!
//! The listener under the server is [`crate::loopback`]'s, as the tool server's and
//! `proctor review`'s are.

pub mod bounds;
pub mod collector;
pub mod decode;
pub mod server;

pub use collector::TraceCollector;
pub use server::Receiver;
