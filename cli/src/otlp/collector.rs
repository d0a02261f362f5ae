//! Which attempt each span belongs to, and each attempt's spans until it is graded.
//!
//! Every attempt gets its own trace id (through `TRACEPARENT`) and resource attributes
//! (through `OTEL_RESOURCE_ATTRIBUTES`): `proctor.task_id`, `proctor.attempt`, `proctor.agent`
//! and `proctor.attempt_key`, a random key no other attempt knows. A span is attributed by
//! that key among its resource attributes (SDKs copy them all from the environment), else by
//! its trace id. Spans that match no running attempt are counted and dropped, never guessed.

use proctor_core::trace::{Attributes, LogRecord, Span, Telemetry, TraceEvidence, evidence};
use serde_json::Value;
use std::collections::HashMap;
use std::io::Read;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;
use tokio::sync::Notify;

/// Spans and log records kept per attempt; more are dropped (and counted), so a flooding
/// agent cannot exhaust proctor's memory.
pub const MAX_ITEMS_PER_ATTEMPT: usize = 100_000;
/// Bytes of spans and log records kept per attempt (their text and values, plus a fixed
/// cost per item); more are dropped and counted.
pub const MAX_BYTES_PER_ATTEMPT: usize = 32 << 20;
/// The fixed cost counted per span, record, attribute or value: what it takes in memory
/// beyond its text.
const ITEM_COST: usize = 64;

const TASK_ATTR: &str = "proctor.task_id";
const ATTEMPT_ATTR: &str = "proctor.attempt";
const AGENT_ATTR: &str = "proctor.agent";
const KEY_ATTR: &str = "proctor.attempt_key";

/// A running attempt's place in the collector and the variables that point its exporter here.
#[derive(Debug)]
pub struct Registration {
    id: u64,
    pub env: Vec<(String, String)>,
}

#[derive(Debug, Default)]
struct AttemptTraces {
    key: String,
    trace_id: String,
    /// The span id in `TRACEPARENT`: a span whose parent it is, is the attempt's root.
    parent_span_id: String,
    spans: Vec<Span>,
    logs: Vec<LogRecord>,
    root_seen: bool,
    dropped: u64,
    /// What is kept, in bytes, as [`span_weight`] and [`log_weight`] count it.
    bytes: usize,
    /// The last resource counted: a batch's spans share one.
    last_resource: usize,
    arrived: Arc<Notify>,
}

impl AttemptTraces {
    /// Whether an item of `weight` bytes (with its resource) may be kept; counts it if so.
    fn admit(&mut self, weight: usize, resource: &Arc<Attributes>) -> bool {
        let resource_at = Arc::as_ptr(resource) as usize;
        let resource_weight = if resource_at == self.last_resource {
            0
        } else {
            attributes_weight(resource)
        };
        if self.spans.len() + self.logs.len() >= MAX_ITEMS_PER_ATTEMPT {
            self.dropped += 1;
            return false;
        }
        let total = self.bytes + weight + resource_weight;
        if total > MAX_BYTES_PER_ATTEMPT {
            self.dropped += 1;
            return false;
        }
        self.bytes = total;
        self.last_resource = resource_at;
        true
    }
}

#[derive(Debug, Default)]
struct State {
    attempts: HashMap<u64, AttemptTraces>,
    next_id: u64,
    unattributed: u64,
    /// Requests refused whole (over a limit): how many, and the first reason.
    refused: (u64, Option<String>),
}

/// Collects spans for the attempts of one run.
#[derive(Debug, Default)]
pub struct TraceCollector {
    state: Mutex<State>,
}

/// What one request brought.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Accepted {
    pub attributed: usize,
    pub unattributed: usize,
}

impl TraceCollector {
    fn lock(&self) -> MutexGuard<'_, State> {
        // A panic while holding the lock leaves plain data behind; keep using it.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Registers an attempt and returns the environment its agent gets. `endpoint` is the
    /// receiver's base URL (`http://127.0.0.1:PORT`).
    pub fn register(&self, endpoint: &str, agent: &str, task: &str, attempt: u64) -> Registration {
        let random = random_bytes::<40>();
        let trace_id = proctor_core::trace::hex_id(&random[..16]);
        let parent_span_id = proctor_core::trace::hex_id(&random[16..24]);
        let key = proctor_core::trace::hex_id(&random[24..]);
        let env = vec![
            (
                "OTEL_EXPORTER_OTLP_ENDPOINT".to_owned(),
                endpoint.to_owned(),
            ),
            (
                "OTEL_EXPORTER_OTLP_PROTOCOL".to_owned(),
                "http/protobuf".to_owned(),
            ),
            (
                "TRACEPARENT".to_owned(),
                format!("00-{trace_id}-{parent_span_id}-01"),
            ),
            (
                "OTEL_RESOURCE_ATTRIBUTES".to_owned(),
                format!(
                    "{TASK_ATTR}={},{ATTEMPT_ATTR}={attempt},{AGENT_ATTR}={},{KEY_ATTR}={key}",
                    percent_encode(task),
                    percent_encode(agent)
                ),
            ),
        ];
        let mut state = self.lock();
        let id = state.next_id;
        state.next_id += 1;
        state.attempts.insert(
            id,
            AttemptTraces {
                key,
                trace_id,
                parent_span_id,
                ..AttemptTraces::default()
            },
        );
        Registration { id, env }
    }

    /// Files what one request brought under the attempts it belongs to.
    pub fn accept(&self, telemetry: Telemetry) -> Accepted {
        let mut state = self.lock();
        let mut accepted = Accepted::default();
        let mut woken = Vec::new();
        for span in telemetry.spans {
            let owner = owner(&state, |key| span.resource.get(key), &span.trace_id);
            let Some(id) = owner else {
                accepted.unattributed += 1;
                continue;
            };
            accepted.attributed += 1;
            let traces = state.attempts.get_mut(&id).expect("owner is registered");
            let root = span
                .parent_span_id
                .as_deref()
                .is_none_or(|parent| parent == traces.parent_span_id);
            let kept = traces.admit(span_weight(&span), &span.resource);
            if kept {
                traces.spans.push(span);
            }
            if root && !traces.root_seen {
                traces.root_seen = true;
                woken.push(traces.arrived.clone());
            }
        }
        for log in telemetry.logs {
            let trace_id = log.trace_id.clone().unwrap_or_default();
            let Some(id) = owner(&state, |key| log.resource.get(key), &trace_id) else {
                accepted.unattributed += 1;
                continue;
            };
            accepted.attributed += 1;
            let traces = state.attempts.get_mut(&id).expect("owner is registered");
            if traces.admit(log_weight(&log), &log.resource) {
                traces.logs.push(log);
            }
        }
        state.unattributed += accepted.unattributed as u64;
        drop(state);
        for notify in woken {
            notify.notify_waiters();
        }
        accepted
    }

    /// After the agent exited: waits for late exports until the attempt's root span arrived
    /// or `grace` ended (not at all when it exported nothing), then returns what its trace
    /// shows and forgets it. `None` when the attempt exported nothing.
    pub async fn finish(&self, registration: Registration, grace: Duration) -> Option<Collected> {
        let (exported, rooted, arrived) = {
            let state = self.lock();
            let traces = state.attempts.get(&registration.id)?;
            (
                !traces.spans.is_empty() || !traces.logs.is_empty(),
                traces.root_seen,
                traces.arrived.clone(),
            )
        };
        if exported && !rooted {
            let notified = arrived.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            if !self.root_seen(registration.id) {
                let _ = tokio::time::timeout(grace, notified).await;
            }
        }
        let traces = self.lock().attempts.remove(&registration.id)?;
        if traces.spans.is_empty() && traces.logs.is_empty() {
            return None;
        }
        let seen = evidence(&traces.spans, &traces.logs);
        Some(Collected {
            evidence: seen,
            rooted: traces.root_seen,
            dropped: traces.dropped,
        })
    }

    fn root_seen(&self, id: u64) -> bool {
        self.lock().attempts.get(&id).is_some_and(|t| t.root_seen)
    }

    /// Notes a request refused whole for being over a limit.
    pub fn refuse(&self, reason: String) {
        let mut state = self.lock();
        state.refused.0 += 1;
        state.refused.1.get_or_insert(reason);
    }

    /// Requests refused whole so far, and the first one's reason.
    pub fn refused(&self) -> (u64, Option<String>) {
        self.lock().refused.clone()
    }

    /// Spans and records that matched no running attempt, so far.
    pub fn unattributed(&self) -> u64 {
        self.lock().unattributed
    }
}

/// What an attempt's trace showed.
#[derive(Debug)]
pub struct Collected {
    pub evidence: TraceEvidence,
    /// False when the grace period ended before the root span arrived.
    pub rooted: bool,
    /// Spans and records dropped over [`MAX_ITEMS_PER_ATTEMPT`] or [`MAX_BYTES_PER_ATTEMPT`].
    pub dropped: u64,
}

/// What a span takes, as the per-attempt budget counts it.
fn span_weight(span: &Span) -> usize {
    let events: usize = span
        .events
        .iter()
        .map(|e| ITEM_COST + e.name.len() + attributes_weight(&e.attributes))
        .sum();
    ITEM_COST * 4
        + span.trace_id.len()
        + span.span_id.len()
        + span.parent_span_id.as_ref().map_or(0, String::len)
        + span.name.len()
        + span.status.message.len()
        + attributes_weight(&span.attributes)
        + events
}

fn log_weight(log: &LogRecord) -> usize {
    ITEM_COST * 4
        + log.trace_id.as_ref().map_or(0, String::len)
        + log.span_id.as_ref().map_or(0, String::len)
        + log.event_name.len()
        + attributes_weight(&log.attributes)
        + log.body.as_ref().map_or(0, value_weight)
}

fn attributes_weight(attributes: &Attributes) -> usize {
    attributes
        .0
        .iter()
        .map(|(key, value)| ITEM_COST + key.len() + value_weight(value))
        .sum()
}

fn value_weight(value: &Value) -> usize {
    ITEM_COST
        + match value {
            Value::String(text) => text.len(),
            Value::Array(items) => items.iter().map(value_weight).sum(),
            Value::Object(members) => members
                .iter()
                .map(|(key, value)| key.len() + value_weight(value))
                .sum(),
            _ => 0,
        }
}

/// The running attempt a span or record belongs to: by the attempt key in its resource
/// attributes, else by trace id. The task and attempt attributes alone are not trusted: any
/// agent could write another attempt's, but none knows another attempt's key.
fn owner<'a>(
    state: &State,
    resource: impl Fn(&str) -> Option<&'a Value>,
    trace_id: &str,
) -> Option<u64> {
    if let Some(key) = resource(KEY_ATTR) {
        // A key that matches nothing is not guessed around: it is another run's, or forged.
        return state
            .attempts
            .iter()
            .find(|(_, t)| Some(t.key.as_str()) == key.as_str())
            .map(|(id, _)| *id);
    }
    state
        .attempts
        .iter()
        .find(|(_, t)| t.trace_id == trace_id)
        .map(|(id, _)| *id)
}

/// Percent-encodes a value for `OTEL_RESOURCE_ATTRIBUTES` (W3C baggage octets): SDKs decode it.
fn percent_encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'_' | b'.' | b'~') {
            out.push(byte as char);
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

/// Random bytes from the kernel, for ids no other attempt can guess.
pub(crate) fn random_bytes<const N: usize>() -> [u8; N] {
    let mut bytes = [0u8; N];
    let read = std::fs::File::open("/dev/urandom").and_then(|mut f| f.read_exact(&mut bytes));
    if read.is_err() {
        // Unique still, if guessable: the time and a process-wide counter.
        use std::hash::{BuildHasher, RandomState};
        for (index, chunk) in bytes.chunks_mut(8).enumerate() {
            let value = RandomState::new().hash_one((index, std::time::SystemTime::now()));
            chunk.copy_from_slice(&value.to_le_bytes()[..chunk.len()]);
        }
    }
    bytes
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn env<'a>(registration: &'a Registration, name: &str) -> &'a str {
        &registration.env.iter().find(|(k, _)| k == name).unwrap().1
    }

    /// The attempt key in a registration's resource attributes.
    fn key(registration: &Registration) -> String {
        let attributes = env(registration, "OTEL_RESOURCE_ATTRIBUTES");
        attributes.rsplit('=').next().unwrap().to_owned()
    }

    fn span(trace: &str, parent: Option<&str>, resource: Vec<(&str, Value)>) -> Span {
        Span {
            trace_id: trace.to_owned(),
            span_id: "00000000000000aa".to_owned(),
            parent_span_id: parent.map(str::to_owned),
            resource: Arc::new(Attributes(
                resource
                    .into_iter()
                    .map(|(k, v)| (k.to_owned(), v))
                    .collect(),
            )),
            attributes: Attributes(vec![(
                "gen_ai.operation.name".to_owned(),
                json!("execute_tool"),
            )]),
            ..Span::default()
        }
    }

    #[tokio::test]
    async fn spans_are_attributed_by_resource_then_trace_id() {
        let collector = TraceCollector::default();
        let a = collector.register("http://127.0.0.1:1", "v1", "task one", 0);
        let b = collector.register("http://127.0.0.1:1", "v2", "task one", 0);
        assert_eq!(
            env(&a, "OTEL_RESOURCE_ATTRIBUTES")
                .split(",")
                .take(3)
                .collect::<Vec<_>>(),
            vec![
                "proctor.task_id=task%20one",
                "proctor.attempt=0",
                "proctor.agent=v1"
            ]
        );
        let traceparent = env(&b, "TRACEPARENT").to_owned();
        let b_trace = traceparent.split('-').nth(1).unwrap().to_owned();
        let b_parent = traceparent.split('-').nth(2).unwrap().to_owned();
        let a_key = key(&a);
        let accepted = collector.accept(Telemetry {
            spans: vec![
                // By the resource attributes an SDK read from the environment: the key decides.
                span(
                    "ffff",
                    None,
                    vec![
                        ("proctor.task_id", json!("task one")),
                        ("proctor.attempt", json!(0)),
                        ("proctor.attempt_key", json!(a_key)),
                    ],
                ),
                // Task and attempt alone could be anyone's: not trusted.
                span(
                    "ffff",
                    None,
                    vec![
                        ("proctor.task_id", json!("task one")),
                        ("proctor.attempt", json!("0")),
                        ("proctor.agent", json!("v1")),
                    ],
                ),
                // By trace id (TRACEPARENT), its root a child of the given parent.
                span(&b_trace, Some(&b_parent), vec![]),
                // A forged key matches nothing, whatever the trace id.
                span(&b_trace, None, vec![("proctor.attempt_key", json!("00"))]),
            ],
            logs: Vec::new(),
        });
        assert_eq!(
            accepted,
            Accepted {
                attributed: 2,
                unattributed: 2
            }
        );
        assert_eq!(collector.unattributed(), 2);
        let grace = Duration::from_secs(30);
        let a_seen = collector.finish(a, grace).await.unwrap();
        assert!(a_seen.rooted);
        assert_eq!(a_seen.evidence.outcome.trajectory.len(), 1);
        let b_seen = collector.finish(b, grace).await.unwrap();
        assert!(b_seen.rooted);
    }

    #[tokio::test]
    async fn the_wait_ends_at_the_root_or_the_grace_and_is_skipped_without_spans() {
        let collector = Arc::new(TraceCollector::default());
        let silent = collector.register("e", "a", "t", 0);
        let started = std::time::Instant::now();
        assert!(
            collector
                .finish(silent, Duration::from_secs(30))
                .await
                .is_none()
        );
        assert!(started.elapsed() < Duration::from_secs(5));

        let late = collector.register("e", "a", "t", 1);
        let late_key = key(&late);
        let resource = move || vec![("proctor.attempt_key", json!(late_key.clone()))];
        collector.accept(Telemetry {
            spans: vec![span("aa", Some("1234"), resource())],
            logs: Vec::new(),
        });
        let feeder = collector.clone();
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(50)).await;
            feeder.accept(Telemetry {
                spans: vec![span("aa", None, resource())],
                logs: Vec::new(),
            });
        });
        let seen = collector
            .finish(late, Duration::from_secs(30))
            .await
            .unwrap();
        assert!(seen.rooted);
        assert_eq!(seen.evidence.outcome.trajectory.len(), 2);

        let rootless = collector.register("e", "a", "t", 2);
        collector.accept(Telemetry {
            spans: vec![span(
                "bb",
                Some("1234"),
                vec![("proctor.attempt_key", json!(key(&rootless)))],
            )],
            logs: Vec::new(),
        });
        let seen = collector
            .finish(rootless, Duration::from_millis(20))
            .await
            .unwrap();
        assert!(!seen.rooted);
    }
}
