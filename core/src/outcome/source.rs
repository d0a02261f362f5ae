//! Where a graded trajectory came from (docs/traces.md): the agent's own report, its trace, or
//! the tool calls proctor served and recorded.

use serde::{Deserialize, Serialize};

/// Where a trajectory came from; result lines name it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TrajectorySource {
    /// What the agent said about itself (an outcome file, stdout, a log line).
    #[default]
    Reported,
    /// Read from the agent's OpenTelemetry spans.
    Trace,
    /// The tool calls proctor served to the agent and recorded.
    Tools,
}

impl TrajectorySource {
    /// The name result lines give it.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            TrajectorySource::Reported => "reported",
            TrajectorySource::Trace => "trace",
            TrajectorySource::Tools => "tools",
        }
    }
}
