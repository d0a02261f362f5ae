//! Gate categories (docs/task-file.md): which kinds of check decide pass or fail.

use serde::{Deserialize, Serialize};
use std::fmt;

/// A family of checks. A task gates on `outcome` and every other family it defines,
/// unless its `gate:` list narrows that.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GateCategory {
    /// Status is `final` and the answer matches `expected`.
    Outcome,
    /// `max_tool_calls`.
    Budget,
    /// `forbidden_tools` and `never` rules.
    Safety,
    /// Trajectory rules.
    Process,
    /// `verify` checks against the sandbox.
    EndState,
    /// The LLM judge's verdict on the rubric.
    Rubric,
}

impl GateCategory {
    /// Every category, in the documented order.
    pub const ALL: [GateCategory; 6] = [
        GateCategory::Outcome,
        GateCategory::Budget,
        GateCategory::Safety,
        GateCategory::Process,
        GateCategory::EndState,
        GateCategory::Rubric,
    ];

    /// The name used in task files and reasons.
    pub fn as_str(self) -> &'static str {
        match self {
            GateCategory::Outcome => "outcome",
            GateCategory::Budget => "budget",
            GateCategory::Safety => "safety",
            GateCategory::Process => "process",
            GateCategory::EndState => "end_state",
            GateCategory::Rubric => "rubric",
        }
    }
}

impl fmt::Display for GateCategory {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
