//! Which spans are what, under the OpenTelemetry GenAI conventions (both generations of
//! attribute names), OpenInference and the MCP conventions.

use super::span::Span;
use serde_json::Value;

const OPERATION: &str = "gen_ai.operation.name";
const OPENINFERENCE_KIND: &str = "openinference.span.kind";
const MCP_METHOD: &str = "mcp.method.name";
/// The first generation's model-call marker (`chat`, `completion`), before `gen_ai.operation.name`.
const OLDER_REQUEST_TYPE: &str = "llm.request.type";
/// The operations that are one call to a model.
const MODEL_OPERATIONS: [&str; 3] = ["chat", "text_completion", "generate_content"];
const AGENT_OPERATIONS: [&str; 1] = ["invoke_agent"];

/// What a span stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SpanKind {
    /// One tool call: `execute_tool`, an OpenInference TOOL span or an MCP `tools/call`.
    Tool,
    /// One model call: `chat`, `text_completion`, `generate_content`, OpenInference LLM.
    Model,
    /// A whole agent run: `invoke_agent`, an OpenInference AGENT span.
    Agent,
    Other,
}

pub(crate) fn kind(span: &Span) -> SpanKind {
    let operation = span.attributes.str(OPERATION).unwrap_or_default();
    let openinference = span.attributes.str(OPENINFERENCE_KIND).unwrap_or_default();
    let mcp_method = span.attributes.str(MCP_METHOD).unwrap_or_default();
    if operation == "execute_tool"
        || openinference.eq_ignore_ascii_case("TOOL")
        || mcp_method == "tools/call"
        || span.name == "tools/call"
        || span.name.starts_with("tools/call ")
    {
        SpanKind::Tool
    } else if MODEL_OPERATIONS.contains(&operation)
        || openinference.eq_ignore_ascii_case("LLM")
        || (operation.is_empty()
            && matches!(
                span.attributes.str(OLDER_REQUEST_TYPE),
                Some("chat" | "completion")
            ))
    {
        SpanKind::Model
    } else if AGENT_OPERATIONS.contains(&operation) || openinference.eq_ignore_ascii_case("AGENT") {
        SpanKind::Agent
    } else {
        SpanKind::Other
    }
}

/// The tool a tool span called.
pub(crate) fn tool_name(span: &Span) -> String {
    if let Some(name) = span
        .attributes
        .first_str(&["gen_ai.tool.name", "tool.name", "tool_name"])
    {
        return name.to_owned();
    }
    for prefix in ["execute_tool ", "tools/call ", "running tool: "] {
        if let Some(rest) = span.name.strip_prefix(prefix) {
            return rest.trim().to_owned();
        }
    }
    span.name.clone()
}

/// The tool call's id, to pair the call with the model output that asked for it.
pub(crate) fn tool_call_id(span: &Span) -> Option<&str> {
    span.attributes.first_str(&[
        "gen_ai.tool.call.id",
        "tool_call.id",
        "tool_call_id",
        "tool.call_id",
    ])
}

/// The arguments a tool span captured itself: `gen_ai.tool.call.arguments`, OpenInference's
/// `input.value` (never `tool.parameters`, which is the tool's schema), or pydantic-ai's
/// older `tool_arguments`. Text that is JSON is parsed; other text stays a string.
pub(crate) fn tool_arguments(span: &Span) -> Option<Value> {
    let is_openinference = span.attributes.get(OPENINFERENCE_KIND).is_some();
    let keys: &[&str] = if is_openinference {
        &[
            "gen_ai.tool.call.arguments",
            "input.value",
            "tool_arguments",
        ]
    } else {
        &["gen_ai.tool.call.arguments", "tool_arguments"]
    };
    keys.iter()
        .find_map(|key| span.attributes.get(key))
        .filter(|value| !value.is_null())
        .map(parse_text)
}

/// A JSON text attribute as its value; anything else as it is.
pub(crate) fn parse_text(value: &Value) -> Value {
    match value {
        Value::String(text) => serde_json::from_str(text).unwrap_or_else(|_| value.clone()),
        other => other.clone(),
    }
}

/// The provider a model span names, under either generation of names or OpenInference's.
pub(crate) fn provider(span: &Span) -> Option<String> {
    span.attributes
        .first_str(&[
            "gen_ai.provider.name",
            "gen_ai.system",
            "llm.provider",
            "llm.system",
        ])
        .map(str::to_owned)
}

/// The model a model span names: the response's model first (the one that ran).
pub(crate) fn model(span: &Span) -> Option<String> {
    span.attributes
        .first_str(&[
            "gen_ai.response.model",
            "gen_ai.request.model",
            "llm.model_name",
        ])
        .map(str::to_owned)
}

/// Every tool call a model span's output asked for, as `(call id, arguments)`: from
/// `gen_ai.output.messages` (current conventions) or from flattened attributes such as
/// OpenInference's `llm.output_messages.0.message.tool_calls.0.tool_call.id` with its
/// `...tool_call.function.arguments`, or the older `gen_ai.completion.0.tool_calls.0.id`.
pub(crate) fn requested_calls(span: &Span) -> Vec<(String, Value)> {
    let mut calls = Vec::new();
    if let Some(Value::Array(messages)) = span
        .attributes
        .get("gen_ai.output.messages")
        .map(parse_text)
    {
        for message in &messages {
            let parts = message.get("parts").and_then(Value::as_array);
            for part in parts.into_iter().flatten() {
                if part.get("type").and_then(Value::as_str) == Some("tool_call")
                    && let Some(id) = part.get("id").and_then(Value::as_str)
                    && let Some(arguments) = part.get("arguments")
                {
                    calls.push((id.to_owned(), parse_text(arguments)));
                }
            }
        }
    }
    for (key, value) in &span.attributes.0 {
        let Some(prefix) = key.strip_suffix("id") else {
            continue;
        };
        if !key.contains("tool_calls.") || !(prefix.ends_with('.')) {
            continue;
        }
        let Some(id) = value.as_str() else { continue };
        let arguments = [
            format!("{prefix}arguments"),
            format!("{prefix}function.arguments"),
        ]
        .iter()
        .find_map(|key| span.attributes.get(key))
        .map(parse_text);
        if let Some(arguments) = arguments
            && !calls.iter().any(|(known, _)| known == id)
        {
            calls.push((id.to_owned(), arguments));
        }
    }
    calls
}

/// The text a model span's output ended with, when it ended with text rather than tool
/// calls: `gen_ai.output.messages`, OpenInference's `llm.output_messages.0.message.content`,
/// or the older `gen_ai.completion.0.content`.
pub(crate) fn model_text(span: &Span) -> Option<String> {
    messages_text(span).or_else(|| {
        span.attributes
            .first_str(&[
                "llm.output_messages.0.message.content",
                "gen_ai.completion.0.content",
            ])
            .map(str::to_owned)
    })
}

/// The last assistant text of `gen_ai.output.messages`.
fn messages_text(span: &Span) -> Option<String> {
    let Some(Value::Array(messages)) = span
        .attributes
        .get("gen_ai.output.messages")
        .map(parse_text)
    else {
        return None;
    };
    let text: Vec<&str> = messages
        .iter()
        .rev()
        .find(|m| m.get("role").and_then(Value::as_str) == Some("assistant"))
        .and_then(|m| m.get("parts").and_then(Value::as_array))
        .into_iter()
        .flatten()
        .filter(|p| p.get("type").and_then(Value::as_str) == Some("text"))
        .filter_map(|p| p.get("content").and_then(Value::as_str))
        .collect();
    (!text.is_empty()).then(|| text.join(""))
}

/// The final answer an agent span records: the last assistant text of
/// `gen_ai.output.messages`, pydantic-ai's `final_result`, or OpenInference's `output.value`.
pub(crate) fn agent_answer(span: &Span) -> Option<String> {
    if let Some(text) = messages_text(span) {
        return Some(text);
    }
    ["final_result", "output.value"]
        .iter()
        .find_map(|key| span.attributes.get(key))
        .map(|value| match value {
            Value::String(text) => text.clone(),
            other => other.to_string(),
        })
}
