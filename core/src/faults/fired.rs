//! A fault that fired during an attempt, and a `calls:` fault whose call never came, as
//! the result line lists them.

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

/// One entry of a result line's `faults_missed`: a `calls:` fault whose call never came
/// (no tool its glob matches was called that often).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FaultMissed {
    /// The fault's tool glob, as written.
    pub tool: String,
    /// The kind's name.
    pub kind: String,
    /// The call number (from 1) that never came.
    pub call: u32,
}
