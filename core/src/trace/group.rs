//! Spans grouped into traces across lines or requests. A trace closes at the end of the
//! line that brought its root span (exporters send children before their parents, and a
//! batch may hold the root before its last children), or when the input ends, so only the
//! traces still open are held in memory.

use super::span::{LogRecord, Span, Telemetry};
use std::collections::{HashMap, HashSet, VecDeque};

/// How many closed trace ids are remembered to recognise stragglers: enough for any
/// exporter's delay, bounded so that a file of millions of traces keeps memory flat.
const REMEMBERED: usize = 65_536;

/// One complete trace.
#[derive(Debug, Clone, PartialEq)]
pub struct ClosedTrace {
    /// The hex trace id.
    pub trace_id: String,
    /// Its spans, in arrival order.
    pub spans: Vec<Span>,
    /// Its log records, in arrival order.
    pub logs: Vec<LogRecord>,
    /// The line (or request) that brought its first span or record, counted from 1.
    pub first_line: usize,
    /// False when the input ended before the root span arrived.
    pub rooted: bool,
}

#[derive(Debug, Default)]
struct OpenTrace {
    spans: Vec<Span>,
    logs: Vec<LogRecord>,
    first_line: usize,
    rooted: bool,
}

/// Groups spans by trace id.
#[derive(Debug, Default)]
pub struct TraceGrouper {
    open: HashMap<String, OpenTrace>,
    /// Ids of closed traces, so a straggler is reported rather than graded as a new trace.
    closed: HashSet<String>,
    closed_order: VecDeque<String>,
    /// Spans and records that arrived after their trace closed, or with no trace id.
    pub stragglers: u64,
}

impl TraceGrouper {
    /// A grouper with no trace open.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds what one line held and returns the traces it completed, in the order their
    /// first spans arrived.
    pub fn add(&mut self, telemetry: Telemetry, line: usize) -> Vec<ClosedTrace> {
        let mut touched: Vec<String> = Vec::new();
        for span in telemetry.spans {
            if self.closed.contains(&span.trace_id) {
                self.stragglers += 1;
                continue;
            }
            let root = span.parent_span_id.is_none();
            let trace = self
                .open
                .entry(span.trace_id.clone())
                .or_insert_with(|| OpenTrace {
                    first_line: line,
                    ..OpenTrace::default()
                });
            trace.rooted |= root;
            if root && !touched.contains(&span.trace_id) {
                touched.push(span.trace_id.clone());
            }
            trace.spans.push(span);
        }
        for log in telemetry.logs {
            match log.trace_id.clone() {
                Some(id) if !self.closed.contains(&id) => {
                    let trace = self.open.entry(id).or_insert_with(|| OpenTrace {
                        first_line: line,
                        ..OpenTrace::default()
                    });
                    trace.logs.push(log);
                }
                _ => self.stragglers += 1,
            }
        }
        let mut done: Vec<ClosedTrace> = touched
            .into_iter()
            .filter_map(|id| {
                let trace = self.open.remove(&id)?;
                self.remember(id.clone());
                Some(close(id, trace))
            })
            .collect();
        done.sort_by_key(|trace| trace.first_line);
        done
    }

    fn remember(&mut self, id: String) {
        if self.closed_order.len() == REMEMBERED
            && let Some(oldest) = self.closed_order.pop_front()
        {
            self.closed.remove(&oldest);
        }
        self.closed.insert(id.clone());
        self.closed_order.push_back(id);
    }

    /// Closes every trace still open (the input ended), in the order they began.
    #[must_use]
    pub fn finish(self) -> Vec<ClosedTrace> {
        let mut done: Vec<ClosedTrace> = self
            .open
            .into_iter()
            .map(|(id, trace)| close(id, trace))
            .collect();
        done.sort_by(|a, b| (a.first_line, &a.trace_id).cmp(&(b.first_line, &b.trace_id)));
        done
    }

    /// How many traces are still open.
    #[must_use]
    pub fn open_traces(&self) -> usize {
        self.open.len()
    }
}

fn close(trace_id: String, trace: OpenTrace) -> ClosedTrace {
    ClosedTrace {
        trace_id,
        spans: trace.spans,
        logs: trace.logs,
        first_line: trace.first_line,
        rooted: trace.rooted,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn span(trace: &str, id: &str, parent: Option<&str>) -> Span {
        Span {
            trace_id: trace.to_owned(),
            span_id: id.to_owned(),
            parent_span_id: parent.map(str::to_owned),
            ..Span::default()
        }
    }

    fn line(spans: Vec<Span>) -> Telemetry {
        Telemetry {
            spans,
            logs: Vec::new(),
        }
    }

    #[test]
    fn a_trace_closes_at_its_root_and_the_rest_at_the_end() {
        let mut grouper = TraceGrouper::new();
        assert!(
            grouper
                .add(line(vec![span("a", "2", Some("1"))]), 1)
                .is_empty()
        );
        assert!(
            grouper
                .add(line(vec![span("b", "9", Some("8"))]), 2)
                .is_empty()
        );
        assert_eq!(grouper.open_traces(), 2);
        let closed = grouper.add(
            line(vec![span("a", "1", None), span("a", "3", Some("1"))]),
            3,
        );
        assert_eq!(closed.len(), 1);
        assert_eq!(
            (
                closed[0].spans.len(),
                closed[0].first_line,
                closed[0].rooted
            ),
            (3, 1, true)
        );
        assert_eq!(grouper.open_traces(), 1);
        grouper.add(line(vec![span("a", "4", Some("1"))]), 4);
        assert_eq!(grouper.stragglers, 1);
        let rest = grouper.finish();
        assert_eq!(
            (rest.len(), rest[0].trace_id.as_str(), rest[0].rooted),
            (1, "b", false)
        );
    }
}
