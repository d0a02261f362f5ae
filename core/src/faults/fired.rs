//! A fault that fired during an attempt, as the result line lists it.

use serde::{Deserialize, Serialize};

/// One entry of a result line's `faults_fired`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FaultFired {
    /// The call's position in the attempt's trajectory, counting from 1 (as rule reasons do).
    pub step: u32,
    /// The tool called.
    pub tool: String,
    /// The kind's name: `error`, `timeout`, `latency`, `rate_limit`, `malformed`,
    /// `empty` or `inject`.
    pub kind: String,
}
