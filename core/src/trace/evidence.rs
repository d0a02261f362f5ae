//! One trace's spans and log records → the outcome they show (docs/traces.md).
//!
//! - Tool calls are tool spans (see `conventions::kind`), ordered by start time. A tool span
//!   inside another tool span (an MCP client span under `execute_tool`) is the same call
//!   and counts once.
//! - Arguments come from the tool span, else from the model output that asked for the call
//!   (paired by tool-call id). A call with neither is recorded with `null` arguments and its
//!   step number in [`Outcome::uncaptured_args`], so a rule that compares arguments says it
//!   could not decide instead of passing.
//! - Usage is summed over model-call spans only, one usage object per span; a model span
//!   inside another that already carries usage (two instrumentations of one call) counts
//!   once. Log records carrying usage count unless their span's usage already did. An
//!   agent-level aggregate is used only when no model span (and no log) carries usage.
//! - Answer and status come from the agent span (`invoke_agent`, OpenInference AGENT), else
//!   from the root span.

use super::conventions::{self, SpanKind};
use super::span::{LogRecord, Span};
use super::usage::{Tokens, tokens, usage_object};
use crate::compact_json::CompactJson;
use crate::outcome::{AgentError, Outcome, Status, Step, TrajectorySource};
use serde_json::{Value, json};
use std::collections::{HashMap, HashSet};

/// What a trace shows about one attempt.
#[derive(Debug, Clone, PartialEq)]
pub struct TraceEvidence {
    /// The outcome, with `trajectory_source: trace`.
    pub outcome: Outcome,
    /// Model-call spans, whether or not they carried usage.
    pub model_calls: usize,
    /// True when the usage is an agent-level aggregate (no model span carried any).
    pub aggregated_usage: bool,
}

/// Reads the outcome of one trace.
#[must_use]
pub fn evidence(spans: &[Span], logs: &[LogRecord]) -> TraceEvidence {
    let tree = Tree::new(spans);
    let by_id = &tree.by_id;
    let kinds: Vec<SpanKind> = spans.iter().map(conventions::kind).collect();
    let has_ancestor = |index: usize, test: &dyn Fn(usize) -> bool| tree.has_ancestor(index, test);
    let mut order: Vec<usize> = (0..spans.len()).collect();
    order.sort_by_key(|&index| (spans[index].start_ns, index));

    // Tool calls requested by model outputs, by call id.
    let mut requested: HashMap<String, Value> = HashMap::new();
    for (index, span) in spans.iter().enumerate() {
        if kinds[index] == SpanKind::Model {
            for (id, arguments) in conventions::requested_calls(span) {
                requested.entry(id).or_insert(arguments);
            }
        }
    }

    let mut trajectory = Vec::new();
    let mut uncaptured_args = Vec::new();
    for &index in &order {
        if kinds[index] != SpanKind::Tool
            || has_ancestor(index, &|parent| kinds[parent] == SpanKind::Tool)
        {
            continue;
        }
        let span = &spans[index];
        let arguments = conventions::tool_arguments(span)
            .or_else(|| conventions::tool_call_id(span).and_then(|id| requested.get(id).cloned()));
        let args = match arguments {
            Some(arguments) => CompactJson::from_value(&arguments),
            None => {
                uncaptured_args.push(trajectory.len() as u64 + 1);
                CompactJson::null()
            }
        };
        let error = span.status.is_error().then(|| {
            if span.status.message.is_empty() {
                json!("error")
            } else {
                json!(span.status.message)
            }
        });
        trajectory.push(Step {
            tool: conventions::tool_name(span).into(),
            args,
            error: error.map(Box::new),
            result: None,
            faults: None,
        });
    }

    let (usage, model_calls, aggregated_usage) = trace_usage(&tree, logs, &kinds, &order);

    let agent = order
        .iter()
        .copied()
        .find(|&index| kinds[index] == SpanKind::Agent)
        .or_else(|| {
            order.iter().copied().find(|&index| {
                spans[index]
                    .parent_span_id
                    .as_deref()
                    .is_none_or(|parent| !by_id.contains_key(parent))
            })
        });
    let (status, answer, error) = match agent.map(|index| &spans[index]) {
        None => (None, None, None),
        Some(span) if span.status.is_error() => (
            Some(Status::Error),
            conventions::agent_answer(span),
            Some(agent_error(span)),
        ),
        Some(span) => (Some(Status::Final), conventions::agent_answer(span), None),
    };
    // An agent span that records no answer (the OpenAI Agents SDK's): the last model output,
    // when it was text.
    let answer = answer.or_else(|| {
        let last_model = order
            .iter()
            .rev()
            .find(|&&index| kinds[index] == SpanKind::Model)?;
        conventions::model_text(&spans[*last_model])
    });

    let outcome = Outcome {
        status,
        answer,
        tool_calls: trajectory.len() as u64,
        // The trajectory's tools, as for a log that lists none.
        tools_used: None,
        steps: trajectory.len() as u64,
        trajectory,
        usage,
        error,
        trajectory_source: TrajectorySource::Trace,
        uncaptured_args,
    };
    TraceEvidence {
        outcome,
        model_calls,
        aggregated_usage,
    }
}

/// The usage objects of a trace, the number of model-call spans, and whether the usage
/// is an agent-level aggregate.
fn trace_usage(
    tree: &Tree<'_>,
    logs: &[LogRecord],
    kinds: &[SpanKind],
    order: &[usize],
) -> (Vec<CompactJson>, usize, bool) {
    let spans = tree.spans;
    let has_ancestor = |index: usize, test: &dyn Fn(usize) -> bool| tree.has_ancestor(index, test);
    let span_tokens: Vec<Option<Tokens>> = spans
        .iter()
        .map(|span| {
            tokens(
                &span.attributes,
                "gen_ai.usage.",
                conventions::provider(span).as_deref(),
            )
        })
        .collect();
    let counts = |index: usize| kinds[index] == SpanKind::Model && span_tokens[index].is_some();
    let mut usage = Vec::new();
    let mut counted_spans: Vec<&str> = Vec::new();
    let model_calls = kinds.iter().filter(|k| **k == SpanKind::Model).count();
    for &index in order {
        if !counts(index) || has_ancestor(index, &counts) {
            continue;
        }
        let span = &spans[index];
        let tokens = span_tokens[index].expect("counted spans carry usage");
        usage.push(object(
            tokens,
            conventions::provider(span),
            conventions::model(span),
        ));
        counted_spans.push(&span.span_id);
    }
    let mut log_order: Vec<&LogRecord> = logs.iter().collect();
    log_order.sort_by_key(|log| log.time_ns);
    for log in log_order {
        if log
            .span_id
            .as_deref()
            .is_some_and(|id| counted_spans.contains(&id))
        {
            continue;
        }
        let provider = ["gen_ai.provider.name", "gen_ai.system"]
            .iter()
            .find_map(|key| log.attribute(key).and_then(Value::as_str))
            .map(str::to_owned);
        if let Some(tokens) = tokens(&log.attributes, "gen_ai.usage.", provider.as_deref()) {
            let model = ["gen_ai.response.model", "gen_ai.request.model"]
                .iter()
                .find_map(|key| log.attribute(key).and_then(Value::as_str))
                .map(str::to_owned);
            usage.push(object(tokens, provider, model));
        }
    }
    if !usage.is_empty() {
        return (usage, model_calls, false);
    }
    // No model call carried usage: an agent-level aggregate, outermost spans only (nested
    // agent spans repeat their parent's totals).
    let aggregate = |index: usize| -> Option<Tokens> {
        if kinds[index] == SpanKind::Model {
            return None;
        }
        let provider = conventions::provider(&spans[index]);
        tokens(
            &spans[index].attributes,
            "gen_ai.aggregated_usage.",
            provider.as_deref(),
        )
        .or(span_tokens[index])
    };
    for &index in order {
        let Some(tokens) = aggregate(index) else {
            continue;
        };
        if has_ancestor(index, &|parent| aggregate(parent).is_some()) {
            continue;
        }
        let span = &spans[index];
        usage.push(object(
            tokens,
            conventions::provider(span),
            conventions::model(span),
        ));
    }
    let aggregated = !usage.is_empty();
    (usage, model_calls, aggregated)
}

/// The spans of a trace with their parent links.
struct Tree<'a> {
    spans: &'a [Span],
    by_id: HashMap<&'a str, usize>,
}

impl<'a> Tree<'a> {
    fn new(spans: &'a [Span]) -> Self {
        let by_id = spans
            .iter()
            .enumerate()
            .map(|(index, span)| (span.span_id.as_str(), index))
            .collect();
        Tree { spans, by_id }
    }

    /// Whether any ancestor of span `index` satisfies `test`. A span whose parents run
    /// round a cycle (a malformed trace: two spans each the other's parent) has none: such
    /// links say nothing of which span holds which, and a call counted once too often is
    /// safer than a call hidden inside its own child.
    fn has_ancestor(&self, index: usize, test: &dyn Fn(usize) -> bool) -> bool {
        let mut ancestors = Vec::new();
        let mut seen = HashSet::from([index]);
        let mut current = index;
        while let Some(&parent) = self.spans[current]
            .parent_span_id
            .as_deref()
            .and_then(|id| self.by_id.get(id))
        {
            if !seen.insert(parent) {
                return false;
            }
            ancestors.push(parent);
            current = parent;
        }
        ancestors.into_iter().any(test)
    }
}

fn object(tokens: Tokens, provider: Option<String>, model: Option<String>) -> CompactJson {
    CompactJson::from_value(&usage_object(tokens, provider.as_deref(), model.as_deref()))
}

/// The exception an agent span recorded: its `exception` event, else `error.type`.
fn agent_error(span: &Span) -> AgentError {
    let exception = span.events.iter().find(|event| event.name == "exception");
    let kind = exception
        .and_then(|event| event.attributes.str("exception.type"))
        .or_else(|| span.attributes.str("error.type"))
        .unwrap_or("error")
        .to_owned();
    let message = exception
        .and_then(|event| event.attributes.str("exception.message"))
        .unwrap_or(&span.status.message)
        .to_owned();
    AgentError { kind, message }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::span::{Attributes, SpanEvent, SpanStatus};
    use crate::trace::{TraceGrouper, read_document};
    use serde_json::Value;

    /// The spans of a committed fixture, made by real instrumentation (fixtures/traces/).
    fn fixture(name: &str) -> Vec<Span> {
        let path = format!("{}/../fixtures/traces/{name}", env!("CARGO_MANIFEST_DIR"));
        let text = std::fs::read_to_string(&path).unwrap();
        let mut grouper = TraceGrouper::new();
        let mut traces = Vec::new();
        for (index, line) in text.lines().enumerate() {
            let document: Value = serde_json::from_str(line).unwrap();
            traces.extend(grouper.add(read_document(&document).unwrap(), index + 1));
        }
        traces.extend(grouper.finish());
        assert_eq!(traces.len(), 1, "{name} holds one trace");
        traces.remove(0).spans
    }

    fn tools(outcome: &Outcome) -> Vec<(String, String)> {
        outcome
            .trajectory
            .iter()
            .map(|s| (s.tool.to_string(), s.args.to_string()))
            .collect()
    }

    fn input_tokens(outcome: &Outcome) -> Vec<u64> {
        outcome
            .usage
            .iter()
            .map(|u| u.to_value()["input_tokens"].as_u64().unwrap())
            .collect()
    }

    #[test]
    fn every_fixture_shows_the_same_run() {
        let expected = vec![
            (
                "check_eligibility".to_owned(),
                r#"{"order_id":"A1"}"#.to_owned(),
            ),
            ("refund".to_owned(), r#"{"order_id":"A1"}"#.to_owned()),
        ];
        for name in [
            "current.jsonl",
            "agent_usage.jsonl",
            "openinference.jsonl",
            "base64_ids.jsonl",
            "older_generation.jsonl",
            "agents_sdk.jsonl",
        ] {
            let seen = evidence(&fixture(name), &[]);
            let outcome = &seen.outcome;
            assert_eq!(tools(outcome), expected, "{name}");
            assert_eq!(outcome.answer.as_deref(), Some("refunded A1"), "{name}");
            assert_eq!(outcome.status, Some(Status::Final), "{name}");
            // Three model calls of 100, 150 and 200 input tokens: counted once each, never
            // with the agent span's total (450) or OpenInference's copy of the same numbers.
            assert_eq!(input_tokens(outcome), vec![100, 150, 200], "{name}");
            assert!(!seen.aggregated_usage, "{name}");
            assert_eq!(seen.model_calls, 3, "{name}");
            assert_eq!(outcome.trajectory_source, TrajectorySource::Trace);
            assert!(outcome.uncaptured_args.is_empty(), "{name}");
        }
    }

    #[test]
    fn uncaptured_arguments_are_marked() {
        let outcome = evidence(&fixture("no_content.jsonl"), &[]).outcome;
        assert_eq!(outcome.uncaptured_args, vec![1, 2]);
        assert_eq!(outcome.trajectory[0].args, Value::Null);
        assert_eq!(outcome.answer, None);
    }

    fn span(id: &str, parent: Option<&str>, start: u64, attributes: Value) -> Span {
        Span {
            trace_id: "t".to_owned(),
            span_id: id.to_owned(),
            parent_span_id: parent.map(str::to_owned),
            start_ns: start,
            attributes: Attributes(
                attributes
                    .as_object()
                    .unwrap()
                    .clone()
                    .into_iter()
                    .collect(),
            ),
            ..Span::default()
        }
    }

    #[test]
    fn an_agent_aggregate_counts_only_when_no_model_span_has_usage() {
        let spans = vec![
            span(
                "a",
                None,
                1,
                json!({"gen_ai.operation.name": "invoke_agent",
                "gen_ai.aggregated_usage.input_tokens": 450, "gen_ai.aggregated_usage.output_tokens": 60,
                "gen_ai.provider.name": "openai"}),
            ),
            // A duplicate agent span inside the first repeats its totals.
            span(
                "b",
                Some("a"),
                2,
                json!({"gen_ai.operation.name": "invoke_agent",
                "gen_ai.usage.input_tokens": 450, "gen_ai.usage.output_tokens": 60}),
            ),
            span("c", Some("b"), 3, json!({"gen_ai.operation.name": "chat"})),
        ];
        let seen = evidence(&spans, &[]);
        assert!(seen.aggregated_usage);
        assert_eq!(input_tokens(&seen.outcome), vec![450]);
        // Once a model span carries usage, the aggregate is ignored.
        let mut with_model_usage = spans.clone();
        with_model_usage[2] = span(
            "c",
            Some("b"),
            3,
            json!({"gen_ai.operation.name": "chat",
            "gen_ai.usage.input_tokens": 100, "gen_ai.usage.output_tokens": 20}),
        );
        let seen = evidence(&with_model_usage, &[]);
        assert!(!seen.aggregated_usage);
        assert_eq!(input_tokens(&seen.outcome), vec![100]);
    }

    #[test]
    fn usage_from_log_records_counts_unless_its_span_did() {
        let spans = vec![span(
            "m",
            None,
            1,
            json!({"gen_ai.operation.name": "chat",
            "gen_ai.usage.input_tokens": 100, "gen_ai.usage.output_tokens": 20}),
        )];
        let log = |span: &str, input: u64| LogRecord {
            span_id: Some(span.to_owned()),
            attributes: Attributes(vec![
                ("gen_ai.usage.input_tokens".to_owned(), json!(input)),
                ("gen_ai.usage.output_tokens".to_owned(), json!(5)),
            ]),
            ..LogRecord::default()
        };
        let outcome = evidence(&spans, &[log("m", 100), log("other", 30)]).outcome;
        assert_eq!(input_tokens(&outcome), vec![100, 30]);
    }

    #[test]
    fn tool_spans_nest_once_and_mcp_calls_count() {
        let spans = vec![
            span("r", None, 0, json!({})),
            span(
                "t2",
                Some("r"),
                20,
                json!({"mcp.method.name": "tools/call", "gen_ai.tool.name": "refund",
                "gen_ai.tool.call.arguments": "{\"order_id\":\"A1\"}"}),
            ),
            span(
                "t1",
                Some("r"),
                10,
                json!({"gen_ai.operation.name": "execute_tool",
                "gen_ai.tool.name": "lookup", "gen_ai.tool.call.arguments": {"q": 1}}),
            ),
            // The MCP client span inside the execute_tool span is the same call.
            span(
                "t1m",
                Some("t1"),
                11,
                json!({"mcp.method.name": "tools/call", "gen_ai.tool.name": "lookup"}),
            ),
            // OpenInference: the arguments are input.value, never tool.parameters (a schema).
            span(
                "t3",
                Some("r"),
                30,
                json!({"openinference.span.kind": "TOOL", "tool.name": "email",
                "tool.parameters": "{\"type\":\"object\"}"}),
            ),
        ];
        let outcome = evidence(&spans, &[]).outcome;
        assert_eq!(
            tools(&outcome),
            vec![
                ("lookup".to_owned(), r#"{"q":1}"#.to_owned()),
                ("refund".to_owned(), r#"{"order_id":"A1"}"#.to_owned()),
                ("email".to_owned(), "null".to_owned()),
            ]
        );
        assert_eq!(outcome.uncaptured_args, vec![3]);
    }

    #[test]
    fn tool_spans_that_are_each_others_parent_both_count() {
        let tool =
            |name: &str| json!({"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": name});
        let spans = vec![
            span("r", None, 0, json!({})),
            span("a", Some("b"), 10, tool("lookup")),
            span("b", Some("a"), 20, tool("delete_order")),
            span("c", Some("a"), 30, tool("refund")),
            span("s", Some("s"), 40, tool("email")),
        ];
        let outcome = evidence(&spans, &[]).outcome;
        let names: Vec<String> = tools(&outcome).into_iter().map(|(tool, _)| tool).collect();
        assert_eq!(names, ["lookup", "delete_order", "refund", "email"]);
    }

    #[test]
    fn a_failed_agent_span_is_an_error_with_its_exception() {
        let mut agent = span(
            "a",
            None,
            0,
            json!({"gen_ai.operation.name": "invoke_agent"}),
        );
        agent.status = SpanStatus {
            code: SpanStatus::ERROR,
            message: "boom".to_owned(),
        };
        agent.events.push(SpanEvent {
            name: "exception".to_owned(),
            attributes: Attributes(vec![("exception.type".to_owned(), json!("KeyError"))]),
        });
        let outcome = evidence(&[agent], &[]).outcome;
        assert_eq!(outcome.status, Some(Status::Error));
        assert_eq!(outcome.error.unwrap().kind, "KeyError");
        assert_eq!(evidence(&[], &[]).outcome.status, None);
    }
}
