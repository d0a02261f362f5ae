//! Served tools (docs/tools.md): the `tools:` of a task file, each with a JSON Schema for its
//! arguments and one backend that answers its calls. proctor serves them to the agent over
//! MCP and records every call; the recorded calls are the graded trajectory.
//!
//! - `parse`: a task's `tools:` list → [`ToolSpec`]s, refused with a clear message.
//! - `responses`: the canned `responses` backend (first `when` that matches wins).
//! - `user`: the simulated user a task's `user:` describes, served as `ask_user`.

mod parse;
mod responses;
mod user;

pub(crate) use parse::parse_command;
pub(crate) use parse::parse_tools;
pub use responses::canned_result;
pub use user::{
    ASK_USER, DEFAULT_MAX_TURNS, DEFAULT_REPLY_TIMEOUT_S, STOP, ScriptedTurn, UserBackend, UserSpec,
};

use serde::Serialize;
use serde_json::Value;
use std::path::PathBuf;

/// The longest time a `script` backend may take by default.
pub const DEFAULT_SCRIPT_TIMEOUT_S: f64 = 10.0;

/// One tool a task serves.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ToolSpec {
    /// The name agents call it by.
    pub name: String,
    /// What the agent is told the tool does.
    pub description: String,
    /// A JSON Schema of `type: object`, checked to compile at load.
    pub input_schema: Value,
    /// What answers its calls.
    pub backend: ToolBackend,
}

/// What answers a tool's calls.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolBackend {
    /// Canned results, tried in order.
    Responses(Vec<CannedResponse>),
    /// A command run per call outside the agent's isolation, the sandbox its working folder.
    Script(ScriptBackend),
    /// The task's simulated user, answering `ask_user` (a task's `user:`).
    User(Box<UserSpec>),
    /// A command started once per attempt on its first call, answering JSON lines; tools
    /// naming the same command line share one process.
    Server(ScriptBackend),
}

/// One canned result: returned when every argument in `when` equals the call's (JSON
/// equality, numbers by value); without `when` it is the default.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CannedResponse {
    /// The arguments that select this result; `None` for the default.
    pub when: Option<serde_json::Map<String, Value>>,
    /// The result returned.
    pub result: Value,
}

/// A `script` or `server` backend: the command line split like a shell would, with every word that
/// names a file beside the task file made absolute (those files are hidden from agents).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ScriptBackend {
    /// The command line, as written.
    pub line: String,
    /// The line split into words.
    pub argv: Vec<String>,
    /// The files of the task's folder the command names: grading data, hidden from agents.
    pub files: Vec<PathBuf>,
    /// Seconds before the call fails: a script is killed then, a server stopped (and
    /// started again on the next call).
    pub timeout_s: f64,
}

impl ToolSpec {
    /// The files of the command this tool runs (`script` or `server`), if any.
    pub fn script_files(&self) -> &[PathBuf] {
        match &self.backend {
            ToolBackend::Script(command) | ToolBackend::Server(command) => &command.files,
            ToolBackend::User(user) => match &user.backend {
                UserBackend::Command(command) => &command.files,
                _ => &[],
            },
            ToolBackend::Responses(_) => &[],
        }
    }
}

/// A compiled argument schema, made once per run for every call.
#[derive(Debug)]
pub struct ArgumentSchema(jsonschema::Validator);

impl ArgumentSchema {
    /// Compiles a tool's schema; it compiled at load, so this fails only on a schema
    /// built by hand.
    pub fn compile(tool: &ToolSpec) -> Result<ArgumentSchema, String> {
        crate::end_state::compile_schema(&tool.input_schema).map(ArgumentSchema)
    }

    /// `None` when `args` is valid, else the first violation with where it is
    /// (`(root)` for the arguments object itself).
    pub fn violation(&self, args: &Value) -> Option<String> {
        // The common case, valid arguments, without building an error iterator.
        if self.0.is_valid(args) {
            return None;
        }
        let error = self.0.iter_errors(args).next()?;
        let at = error.instance_path();
        let at = if at.is_empty() {
            "(root)".to_owned()
        } else {
            at.as_str().to_owned()
        };
        Some(format!("{error} at {at}"))
    }
}
