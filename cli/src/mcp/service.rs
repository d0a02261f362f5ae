//! The seam between an MCP SDK and proctor's tools: the SDK adapter (`rmcp_adapter`)
//! speaks the protocol, a [`ToolService`] answers. Swapping the SDK
//! means writing another adapter; nothing else changes.

use super::call_args::CallArgs;
use proctor_core::tools::ToolSpec;
use serde_json::{Value, json};
use std::future::Future;
use std::pin::Pin;

/// What a tool call gives back to the agent.
#[derive(Debug, Clone, PartialEq)]
pub enum ToolReply {
    /// A result (`isError: false`), or a tool error (`isError: true`) the agent reads and
    /// may recover from: JSON text, plus structured content when the result is an object.
    Result { value: Value, is_error: bool },
    /// Text that is not the tool's JSON (a script's non-JSON stdout, a `malformed` fault).
    Text { text: String, is_error: bool },
    /// A protocol error (an unknown tool): JSON-RPC `invalid params` with this message.
    Refused(String),
}

/// A tool error the agent reads: `{"error": message}`.
pub fn tool_error(message: String) -> ToolReply {
    ToolReply::Result {
        value: json!({"error": message}),
        is_error: true,
    }
}

/// A boxed future, so the trait stays object-safe.
pub type Reply<'a> = Pin<Box<dyn Future<Output = ToolReply> + Send + 'a>>;

/// The tools of one attempt, as an MCP server serves them.
pub trait ToolService: Send + Sync + 'static {
    /// Every tool, in the task file's order (`tools/list`).
    fn tools(&self) -> &[ToolSpec];
    /// Answers and records one `tools/call`; `args` is `None` when the client sent none.
    fn call<'a>(&'a self, name: &'a str, args: Option<CallArgs>) -> Reply<'a>;
}
