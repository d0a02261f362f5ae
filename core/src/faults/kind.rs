//! What a fault does to a tool call.

use serde::Serialize;

/// The message of an `error` fault that gives none.
pub const DEFAULT_ERROR_MESSAGE: &str = "the tool failed (injected fault)";
/// The default wait of a `timeout` fault before the tool error is returned.
pub const DEFAULT_TIMEOUT_MS: u64 = 5000;
/// The default retry hint of a `rate_limit` fault.
pub const DEFAULT_RETRY_AFTER_S: u64 = 1;
/// The longest `ms` a fault may ask for: a fault slows an attempt, it never hangs it.
pub const MAX_FAULT_MS: u64 = 600_000;

/// The effect of a fault on the call it fires on. `Error`, `Timeout`, `RateLimit`,
/// `Malformed` and `Empty` are tool results with `isError: true` or a broken result
/// text, never a broken protocol frame; `Latency` and `Inject` keep the real result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum FaultKind {
    /// A tool error carrying `message`.
    Error {
        /// The error text the tool returns.
        message: String,
    },
    /// The call waits `ms`, then fails as timed out.
    Timeout {
        /// Milliseconds to wait.
        ms: u64,
    },
    /// The call waits `ms`, then returns its real result.
    Latency {
        /// Milliseconds to wait.
        ms: u64,
    },
    /// A tool error saying the caller is rate limited, with a retry hint.
    RateLimit {
        /// The retry hint, in seconds.
        retry_after_s: u64,
        /// The error text the tool returns.
        message: String,
    },
    /// The result text is cut so that it no longer parses.
    Malformed,
    /// The result is empty.
    Empty,
    /// `payload` is appended to the real result: an indirect prompt injection.
    Inject {
        /// The text appended.
        payload: String,
    },
}

impl FaultKind {
    /// The name written in task files and on result lines (`faults_fired[].kind`).
    pub fn name(&self) -> &'static str {
        match self {
            FaultKind::Error { .. } => "error",
            FaultKind::Timeout { .. } => "timeout",
            FaultKind::Latency { .. } => "latency",
            FaultKind::RateLimit { .. } => "rate_limit",
            FaultKind::Malformed => "malformed",
            FaultKind::Empty => "empty",
            FaultKind::Inject { .. } => "inject",
        }
    }

    /// True for the kinds that decide the call's result (`error`, `timeout`,
    /// `rate_limit`, `malformed`, `empty`); `latency` and `inject` only add to it.
    pub fn changes_outcome(&self) -> bool {
        !matches!(self, FaultKind::Latency { .. } | FaultKind::Inject { .. })
    }

    /// True for the kinds answered without running the tool (`error`, `timeout`,
    /// `rate_limit`): the others run it, and it may change the state.
    pub fn skips_tool(&self) -> bool {
        matches!(
            self,
            FaultKind::Error { .. } | FaultKind::Timeout { .. } | FaultKind::RateLimit { .. }
        )
    }

    /// Every kind's name, in the order the docs list them.
    pub const NAMES: [&'static str; 7] = [
        "error",
        "timeout",
        "latency",
        "rate_limit",
        "malformed",
        "empty",
        "inject",
    ];
}

impl std::fmt::Display for FaultKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}
