//! The simulated user of a task's `user:` (docs/tools.md, "The simulated user"), served as
//! the tool `ask_user {message}` and answered by scripted turns, a user-simulator command or
//! an LLM following the user's instructions.

use super::ScriptBackend;
use serde::Serialize;

/// The tool a task with `user:` serves: the agent's message in, the user's reply out.
pub const ASK_USER: &str = "ask_user";
/// The marker in a reply that ends the conversation.
pub const STOP: &str = "###STOP###";
/// Replies a conversation holds when `max_turns` is not given.
pub const DEFAULT_MAX_TURNS: u32 = 10;
/// Seconds a `command` or LLM user may take for one reply when `timeout_s` is not given.
pub const DEFAULT_REPLY_TIMEOUT_S: f64 = 60.0;

/// A task's simulated user.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct UserSpec {
    /// Who answers.
    pub backend: UserBackend,
    /// Replies after which `ask_user` answers `conversation over`.
    pub max_turns: u32,
    /// Seconds a `command` or LLM user may take for one reply.
    pub timeout_s: f64,
}

/// Who answers `ask_user`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum UserBackend {
    /// Scripted turns, tried in order.
    Turns(Vec<ScriptedTurn>),
    /// A user-simulator process, started once per attempt, speaking JSON lines.
    Command(ScriptBackend),
    /// An LLM playing the user from these instructions.
    Instructions(String),
}

/// One scripted reply: said when `when` (a regular expression) matches the agent's
/// message, or always without `when`; used once unless `repeat`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ScriptedTurn {
    /// The pattern the agent's message must match, checked to compile at load.
    pub when: Option<String>,
    /// The reply.
    pub say: String,
    /// Whether the turn may be used more than once.
    pub repeat: bool,
}

impl UserSpec {
    /// Whether an LLM plays this user, which needs a model for the run.
    pub fn needs_model(&self) -> bool {
        matches!(self.backend, UserBackend::Instructions(_))
    }
}
